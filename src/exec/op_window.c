/*
 * op_window.c - the window operator: evaluates window functions that share
 * one window specification (PARTITION BY, ORDER BY, frame) and emits every
 * input row with one more column per function.
 *
 * Algorithm. Window functions need the rows of a partition together and
 * in ORDER BY order, so the operator first sorts its input by (partition
 * columns, order keys) with the external sort of op_sort.c, which spills
 * sorted runs beyond the memory budget; with `presorted` the input is
 * taken as already in that order. The sorted rows stream into the window
 * stage, which compares each row's normalized partition key (ex_sortkey)
 * with the previous row's to find where a partition ends, and its
 * normalized order key to number the peer groups. The rows of one
 * partition are buffered; when the next partition starts (or the input
 * ends) the stage:
 *   1. computes the frame [start, end) of every row (ex_window_frame.c),
 *      once for all functions, since they share the frame;
 *   2. evaluates each function over the whole partition into a result
 *      vector, through the function family installed for its kind at
 *      set-up (ranking: ex_window_fn_rank.c, value functions:
 *      ex_window_fn_value.c, aggregates: ex_window_fn_agg.c, which runs a
 *      growing state or a segment tree);
 *   3. emits the partition's rows with the results in batches of
 *      TY_BATCH_ROWS, then drops the buffer.
 * Peers (rows equal on the order keys) share results under RANGE because
 * they share their frame, and ranking functions read peer groups.
 *
 * States:
 *   BUFFERING  rows of the current partition arrive and are buffered
 *              (through the sort first, unless presorted)
 *   SPILLING   the same, once the budget refused the partition's rows:
 *              whole rows go to a spill file, evaluation columns stay
 *              (w->spilled)
 *   EVALUATING a partition is complete: frames, functions, emission
 *              (reading spilled rows back in order); then back to
 *              BUFFERING with the row that started the next one
 *   FINISHED   the last partition is emitted and finish() passed on
 *
 * Memory. The sort spills, so the input as a whole may exceed the budget.
 * A partition is held twice over: its evaluation columns (those the
 * functions read: arguments, defaults, the first ORDER BY key) with its
 * peer numbers, and its whole rows (the payload). The payload is reserved
 * against the budget; when the budget refuses it, it is written to a spill
 * file in chunks of TY_BATCH_ROWS rows, as is the rest of the partition,
 * and read back sequentially when the partition is emitted. The
 * evaluation columns, frames, results and segment tree of the partition
 * being evaluated must stay in memory (random access): they are reserved
 * with ex_mem_force, so a partition whose evaluation data alone exceeds
 * the budget still runs and shows as the budget's peak. What is bounded,
 * then, is the width: memory per partition is its row count times the
 * evaluation columns and results, not times the row.
 *
 * Checkpoints: a window operator is for bounded (batch) input and refuses
 * to checkpoint.
 */
#include "exec/op_window.h"

#include "base/alloc.h"
#include "exec/ex_spill.h"
#include "exec/ex_vec.h"
#include "exec/ex_window_int.h"
#include "exec/op_sort.h"

const ex_win_family_t ex__win_families[EX_WIN_KIND_COUNT] = {
    [EX_WIN_ROW_NUMBER] = {ex__win_eval_rank, false, "row_number"},
    [EX_WIN_RANK] = {ex__win_eval_rank, false, "rank"},
    [EX_WIN_DENSE_RANK] = {ex__win_eval_rank, false, "dense_rank"},
    [EX_WIN_PERCENT_RANK] = {ex__win_eval_rank, false, "percent_rank"},
    [EX_WIN_CUME_DIST] = {ex__win_eval_rank, false, "cume_dist"},
    [EX_WIN_NTILE] = {ex__win_eval_rank, false, "ntile"},
    [EX_WIN_LAG] = {ex__win_eval_value, false, "lag"},
    [EX_WIN_LEAD] = {ex__win_eval_value, false, "lead"},
    [EX_WIN_FIRST_VALUE] = {ex__win_eval_value, true, "first_value"},
    [EX_WIN_LAST_VALUE] = {ex__win_eval_value, true, "last_value"},
    [EX_WIN_NTH_VALUE] = {ex__win_eval_value, true, "nth_value"},
    [EX_WIN_AGG] = {ex__win_eval_agg, true, "aggregate"},
};

typedef enum win_state { WIN_BUFFERING, WIN_EVALUATING, WIN_FINISHED } win_state_t;

typedef struct win_op {
  ex_op_t op;    /* what the producer sees */
  ex_op_t stage; /* the sort's consumer: sorted rows arrive here */
  ex_op_t *sort; /* NULL when presorted */
  ex_opctx_t *ctx;
  win_state_t state;
  const ty_schema_t *in;
  ex_window_frame_t frame;
  ex_sort_key_t order0; /* the first ORDER BY key (RANGE offsets) */
  uint32_t norder;
  ex_window_fn_t *fns;
  uint32_t nfns;
  bool need_frame;
  ex_sortkey_t *pkey, *okey; /* NULL without PARTITION BY / ORDER BY */
  fl_buf_t kbuf, prev_p, prev_o;
  uint64_t *koffs_p, *koffs_o;
  bool have_prev;
  /* The buffered partition: the columns the functions read (evaluation
   * columns, eval_cols[j] of the input is column j of evalb, always in
   * memory) and the whole rows (payload: in memory, or once the budget
   * refuses them, in a spill file written a chunk at a time). */
  const ty_schema_t *eval_schema;
  uint32_t *eval_cols;
  uint32_t neval;
  ex_window_fn_t *efns; /* fns with columns numbered in eval_schema */
  ex_sort_key_t eorder0;
  ty_batch_t *evalb;
  ty_batch_t *payload;
  size_t payload_reserved;
  bool spilled;
  ex_spill_dir_t *sdir;
  ex_spill_file_t *sfile;
  ty_batch_t *chunk; /* payload rows on their way to the spill file */
  uint32_t *peer;
  size_t peer_cap;
  uint32_t ngroups;
  size_t reserved;
  ty_batch_t *out;
  ex_window_stats_t stats;
} win_op_t;

#define STAGE_OF(o) ((win_op_t *)((char *)(o) - offsetof(win_op_t, stage)))

static int spill_seal(win_op_t *w, fl_err_t *err);

/* Bytes held for the partition besides its payload. */
static size_t eval_bytes(const win_op_t *w) {
  return ex_batch_bytes(w->evalb) + w->peer_cap * sizeof *w->peer;
}

static void reserve_to(win_op_t *w, size_t bytes) {
  if (bytes > w->reserved)
    ex_mem_force(w->ctx->mem, bytes - w->reserved);
  else
    ex_mem_release(w->ctx->mem, w->reserved - bytes);
  w->reserved = bytes;
}

/* Steps 1-3 of the essay for the buffered partition. */
static int eval_partition(win_op_t *w, fl_err_t *err) {
  uint32_t n = w->evalb->nrows;
  if (n == 0) return FL_OK;
  w->state = WIN_EVALUATING;
  w->stats.partitions++;
  if (n > w->stats.max_partition_rows) w->stats.max_partition_rows = n;
  uint32_t *gs = fl_malloc(((size_t)w->ngroups + 1) * sizeof *gs);
  for (uint32_t i = n; i-- > 0;) gs[w->peer[i]] = i;
  gs[w->ngroups] = n;
  ex_win_part_t p = {.rows = w->evalb, .n = n, .peer = w->peer, .group_start = gs,
                     .ngroups = w->ngroups};
  uint32_t *fs = NULL, *fe = NULL;
  size_t extra = ((size_t)w->ngroups + 1) * sizeof *gs;
  if (w->need_frame) {
    fs = fl_malloc((size_t)n * sizeof *fs);
    fe = fl_malloc((size_t)n * sizeof *fe);
    ex__win_frame_bounds(&w->frame, &p, w->norder ? (int32_t)w->eorder0.col : -1, &w->eorder0, fs,
                         fe);
    p.fstart = fs;
    p.fend = fe;
    extra += 2 * (size_t)n * sizeof *fs;
  }
  ty_vec_t **res = fl_calloc(w->nfns ? w->nfns : 1, sizeof *res);
  int rc = FL_OK;
  for (uint32_t f = 0; f < w->nfns && !rc; f++) {
    const ty_type_t *t = w->op.out_schema->root.fields[w->in->root.nfields + f].type;
    res[f] = ty_vec_new(t, n);
    rc = ex__win_families[w->efns[f].kind].eval(&w->efns[f], &p, res[f], err);
    if (!rc) extra += ex_vec_bytes(res[f]);
  }
  reserve_to(w, eval_bytes(w) + extra);
  /* Emit in batches; the row index list serves every column's gather.
   * Spilled rows come back from the file in the order written. */
  uint32_t idx[TY_BATCH_ROWS];
  uint32_t nin = w->in->root.nfields;
  ty_batch_t *src = w->payload;
  if (!rc && w->spilled) rc = spill_seal(w, err);
  if (w->spilled) src = ty_batch_new(w->in, TY_BATCH_ROWS);
  for (uint32_t s = 0; s < n && !rc;) {
    uint32_t m = n - s < TY_BATCH_ROWS ? n - s : TY_BATCH_ROWS;
    const uint32_t *from = idx;
    if (w->spilled) {
      bool eof;
      rc = ex_spill_read(w->sfile, src, &eof, err);
      if (!rc && (eof || src->nrows > n - s))
        rc = fl_err_set(err, FL_ECORRUPT, "window: spilled partition %s holds the wrong rows",
                        ex_spill_path(w->sfile));
      if (rc) break;
      m = src->nrows;
      from = NULL;
    }
    for (uint32_t k = 0; k < m; k++) idx[k] = s + k;
    ty_batch_reset(w->out);
    for (uint32_t c = 0; c < nin; c++) ex_vec_gather(w->out->cols[c], src->cols[c], from, m);
    for (uint32_t f = 0; f < w->nfns; f++) ex_vec_gather(w->out->cols[nin + f], res[f], idx, m);
    ty_batch_seal(w->out);
    rc = ex_op_emit(&w->op, w->out, err);
    s += m;
  }
  if (w->spilled) {
    ty_batch_reset(w->chunk);
    ty_batch_free(src);
    ex_spill_free(w->sfile);
    w->sfile = NULL;
    w->spilled = false;
  }
  for (uint32_t f = 0; f < w->nfns; f++) ty_vec_free(res[f]);
  fl_free(res);
  fl_free(fs);
  fl_free(fe);
  fl_free(gs);
  ty_batch_reset(w->evalb);
  ty_batch_reset(w->payload);
  w->ngroups = 0;
  reserve_to(w, eval_bytes(w));
  w->state = WIN_BUFFERING;
  return rc;
}

/* Appends rows[0..n) of the sorted batch to the partition buffer. */
static int buffer_rows(win_op_t *w, const ty_batch_t *b, const uint32_t *rows, uint32_t n,
                       fl_err_t *err) {
  if (!n) return FL_OK;
  for (uint32_t j = 0; j < w->neval; j++)
    ex_vec_gather(w->evalb->cols[j], b->cols[w->eval_cols[j]], rows, n);
  if (w->neval)
    ty_batch_seal(w->evalb);
  else
    w->evalb->nrows += n;
  if (!w->spilled) {
    for (uint32_t c = 0; c < b->ncols; c++) ex_vec_gather(w->payload->cols[c], b->cols[c], rows, n);
    ty_batch_seal(w->payload);
    return FL_OK;
  }
  w->stats.spilled_rows += n;
  for (uint32_t k = 0; k < n;) {
    uint32_t m = TY_BATCH_ROWS - w->chunk->nrows;
    if (m > n - k) m = n - k;
    for (uint32_t c = 0; c < b->ncols; c++) ex_vec_gather(w->chunk->cols[c], b->cols[c], rows + k, m);
    ty_batch_seal(w->chunk);
    k += m;
    if (w->chunk->nrows == TY_BATCH_ROWS) {
      int rc = ex_spill_write(w->sfile, w->chunk, err);
      ty_batch_reset(w->chunk);
      if (rc) return rc;
    }
  }
  return FL_OK;
}

/* The budget refused the buffered rows: they go to a new spill file, and
 * so do the partition's further rows. */
static int spill_payload(win_op_t *w, fl_err_t *err) {
  int rc = w->sdir ? FL_OK : ex_spill_dir_open(w->ctx->spill_dir, &w->sdir, err);
  if (!rc) rc = ex_spill_create(w->sdir, &w->sfile, err);
  if (rc) return fl_err_prefix(err, "window: ");
  w->spilled = true;
  w->stats.spilled_partitions++;
  w->stats.spilled_rows += w->payload->nrows;
  uint32_t idx[TY_BATCH_ROWS];
  for (uint32_t s = 0; s < w->payload->nrows && !rc; s += TY_BATCH_ROWS) {
    uint32_t m = w->payload->nrows - s < TY_BATCH_ROWS ? w->payload->nrows - s : TY_BATCH_ROWS;
    for (uint32_t k = 0; k < m; k++) idx[k] = s + k;
    ty_batch_reset(w->chunk);
    for (uint32_t c = 0; c < w->payload->ncols; c++)
      ex_vec_gather(w->chunk->cols[c], w->payload->cols[c], idx, m);
    ty_batch_seal(w->chunk);
    rc = ex_spill_write(w->sfile, w->chunk, err);
    ty_batch_reset(w->chunk);
  }
  /* Give the payload's memory back, not just its rows. */
  ty_batch_free(w->payload);
  w->payload = ty_batch_new(w->in, TY_BATCH_ROWS);
  ex_mem_release(w->ctx->mem, w->payload_reserved);
  w->payload_reserved = 0;
  return rc;
}

/* Writes the last chunk and makes the file readable. */
static int spill_seal(win_op_t *w, fl_err_t *err) {
  int rc = FL_OK;
  if (w->chunk->nrows) rc = ex_spill_write(w->sfile, w->chunk, err);
  ty_batch_reset(w->chunk);
  if (!rc) rc = ex_spill_seal(w->sfile, err);
  if (!rc) ex_spill_rewind(w->sfile);
  return rc;
}

/* After a push: the payload's growth is reserved, or spilled. */
static int payload_account(win_op_t *w, fl_err_t *err) {
  if (w->spilled) return FL_OK;
  size_t need = ex_batch_bytes(w->payload);
  if (need <= w->payload_reserved) return FL_OK;
  if (ex_mem_reserve(w->ctx->mem, need - w->payload_reserved)) {
    w->payload_reserved = need;
    return FL_OK;
  }
  return spill_payload(w, err);
}

static bool key_changed(fl_buf_t *prev, const fl_buf_t *kb, const uint64_t *offs, uint32_t k) {
  const uint8_t *key = kb->data + offs[k];
  size_t len = (size_t)(offs[k + 1] - offs[k]);
  bool changed = ex_sortkey_cmp(prev->data, prev->len, key, len) != 0;
  if (changed) {
    fl_buf_clear(prev);
    fl_buf_append(prev, key, len);
  }
  return changed;
}

static int stage_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  win_op_t *w = STAGE_OF(op);
  uint32_t n = ty_batch_live(b);
  if (!n) return FL_OK;
  w->stats.rows += n;
  uint32_t *rows = fl_malloc((size_t)n * sizeof *rows);
  for (uint32_t k = 0; k < n; k++) rows[k] = b->sel ? b->sel[k] : k;
  fl_buf_t *kb = &w->kbuf;
  if (w->pkey) {
    fl_buf_clear(kb);
    ex_sortkey_encode(w->pkey, b, rows, n, kb, w->koffs_p);
  }
  fl_buf_t okb;
  fl_buf_init(&okb);
  if (w->okey) ex_sortkey_encode(w->okey, b, rows, n, &okb, w->koffs_o);
  uint32_t run = 0; /* first row of b not yet buffered */
  int rc = FL_OK;
  if (w->peer_cap < (size_t)w->evalb->nrows + n) {
    size_t cap = w->peer_cap ? w->peer_cap : 1024;
    while (cap < (size_t)w->evalb->nrows + n) cap *= 2;
    w->peer = fl_realloc(w->peer, cap * sizeof *w->peer);
    w->peer_cap = cap;
  }
  for (uint32_t k = 0; k < n && !rc; k++) {
    bool newp = w->pkey && key_changed(&w->prev_p, kb, w->koffs_p, k);
    bool newo = w->okey && key_changed(&w->prev_o, &okb, w->koffs_o, k);
    if (newp && w->have_prev) {
      rc = buffer_rows(w, b, rows + run, k - run, err);
      run = k;
      if (!rc) rc = eval_partition(w, err);
      if (w->peer_cap < (size_t)n) {
        w->peer = fl_realloc(w->peer, (size_t)n * sizeof *w->peer);
        w->peer_cap = n;
      }
    }
    /* The partition buffer holds rows of b up to run; row k lands at
     * evalb->nrows + (k - run). */
    uint32_t at = w->evalb->nrows + (k - run);
    if (!w->have_prev || newp || w->ngroups == 0)
      w->ngroups++;
    else if (newo)
      w->ngroups++;
    w->peer[at] = w->ngroups - 1;
    w->have_prev = true;
  }
  if (!rc) rc = buffer_rows(w, b, rows + run, n - run, err);
  fl_buf_free(&okb);
  fl_free(rows);
  if (!rc) reserve_to(w, eval_bytes(w));
  if (!rc) rc = payload_account(w, err);
  return rc;
}

static int stage_finish(ex_op_t *op, fl_err_t *err) {
  win_op_t *w = STAGE_OF(op);
  int rc = eval_partition(w, err);
  if (rc) return rc;
  w->state = WIN_FINISHED;
  return ex_op_forward_finish(&w->op, err);
}

static int stage_watermark(ex_op_t *op, int64_t ts_us, fl_err_t *err) {
  return ex_op_forward_watermark(&STAGE_OF(op)->op, ts_us, err);
}

static int win_checkpoint(ex_op_t *op, fl_buf_t *wr, fl_err_t *err) {
  (void)op;
  (void)wr;
  return fl_err_set(err, FL_EUNSUPPORTED, "window: streaming checkpoints are not supported");
}

static int win_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  (void)op;
  (void)r;
  return fl_err_set(err, FL_EUNSUPPORTED, "window: streaming checkpoints are not supported");
}

static void stage_destroy(ex_op_t *op) { (void)op; }

static const ex_op_vt_t stage_vt = {
    .name = "window stage",
    .push = stage_push,
    .watermark = stage_watermark,
    .finish = stage_finish,
    .checkpoint = win_checkpoint,
    .restore = win_restore,
    .destroy = stage_destroy,
};

static int win_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  win_op_t *w = (win_op_t *)op;
  if (w->state == WIN_FINISHED) return fl_err_set(err, FL_EINTERNAL, "window: push after finish");
  return w->sort ? ex_op_push(w->sort, b, err) : stage_push(&w->stage, b, err);
}

static int win_finish(ex_op_t *op, fl_err_t *err) {
  win_op_t *w = (win_op_t *)op;
  return w->sort ? ex_op_finish(w->sort, err) : stage_finish(&w->stage, err);
}

static int win_watermark(ex_op_t *op, int64_t ts_us, fl_err_t *err) {
  return ex_op_forward_watermark(op, ts_us, err);
}

static void win_destroy(ex_op_t *op) {
  win_op_t *w = (win_op_t *)op;
  ex_op_destroy(w->sort);
  ex_sortkey_free(w->pkey);
  ex_sortkey_free(w->okey);
  fl_buf_free(&w->kbuf);
  fl_buf_free(&w->prev_p);
  fl_buf_free(&w->prev_o);
  fl_free(w->koffs_p);
  fl_free(w->koffs_o);
  ty_batch_free(w->evalb);
  ty_batch_free(w->payload);
  ty_batch_free(w->chunk);
  ex_spill_free(w->sfile);
  ex_spill_dir_close(w->sdir);
  if (w->payload_reserved) ex_mem_release(w->ctx->mem, w->payload_reserved);
  fl_free(w->eval_cols);
  fl_free(w->efns);
  ty_batch_free(w->out);
  fl_free(w->peer);
  fl_free(w->fns);
  reserve_to(w, 0);
  fl_free(w);
}

static const ex_op_vt_t win_vt = {
    .name = "window",
    .push = win_push,
    .watermark = win_watermark,
    .finish = win_finish,
    .checkpoint = win_checkpoint,
    .restore = win_restore,
    .destroy = win_destroy,
};

/* The result type of fn, after checking its arguments. */
static int fn_check(const ex_window_fn_t *fn, uint32_t i, const ty_schema_t *in,
                    const ty_type_t **out, fl_err_t *err) {
  uint32_t ncols = in->root.nfields;
  if ((unsigned)fn->kind >= EX_WIN_KIND_COUNT)
    return fl_err_set(err, FL_EINVALID, "window function %u: unknown kind %d", i, (int)fn->kind);
  const char *name = ex__win_families[fn->kind].name;
  switch (fn->kind) {
    case EX_WIN_ROW_NUMBER:
    case EX_WIN_RANK:
    case EX_WIN_DENSE_RANK: *out = ty_primitive(TY_LONG); return FL_OK;
    case EX_WIN_PERCENT_RANK:
    case EX_WIN_CUME_DIST: *out = ty_primitive(TY_DOUBLE); return FL_OK;
    case EX_WIN_NTILE:
      if (fn->param < 1)
        return fl_err_set(err, FL_EINVALID, "ntile: buckets must be greater than 0, got %lld",
                          (long long)fn->param);
      *out = ty_primitive(TY_LONG);
      return FL_OK;
    case EX_WIN_AGG:
      if (!fn->agg) return fl_err_set(err, FL_EINVALID, "window function %u: no aggregate", i);
      if (fn->arg_col >= (int32_t)ncols || (fn->arg_col < 0) != !fn->agg->arg)
        return fl_err_set(err, FL_EINVALID,
                          "window %s: argument column %d is out of range or does not match the "
                          "aggregate's arguments",
                          fn->agg->name, fn->arg_col);
      if (fn->arg_col >= 0 && in->root.fields[fn->arg_col].type->kind != fn->agg->arg->kind)
        return fl_err_set(err, FL_EINVALID, "window %s: bound to %s, column %d is %s",
                          fn->agg->name, ty_kind_name(fn->agg->arg->kind), fn->arg_col,
                          ty_kind_name(in->root.fields[fn->arg_col].type->kind));
      *out = fn->agg->out;
      return FL_OK;
    default: break;
  }
  if (fn->arg_col < 0 || fn->arg_col >= (int32_t)ncols)
    return fl_err_set(err, FL_EINVALID, "%s: argument column %d out of range", name, fn->arg_col);
  *out = in->root.fields[fn->arg_col].type;
  if ((fn->kind == EX_WIN_LAG || fn->kind == EX_WIN_LEAD) && fn->param < 0)
    return fl_err_set(err, FL_EINVALID, "%s: offset must be at least 0, got %lld", name,
                      (long long)fn->param);
  if (fn->kind == EX_WIN_NTH_VALUE && fn->param < 1)
    return fl_err_set(err, FL_EINVALID, "nth_value: n must be greater than 0, got %lld",
                      (long long)fn->param);
  if (fn->default_col >= 0) {
    if (fn->kind != EX_WIN_LAG && fn->kind != EX_WIN_LEAD)
      return fl_err_set(err, FL_EINVALID, "%s takes no default", name);
    if (fn->default_col >= (int32_t)ncols ||
        !ty_type_equal(in->root.fields[fn->default_col].type, *out))
      return fl_err_set(err, FL_EINVALID, "%s: default column %d is not of the argument's type",
                        name, fn->default_col);
  }
  return FL_OK;
}

int ex_window_new(ex_opctx_t *ctx, fl_arena_t *arena, const ex_window_opts_t *o, ex_op_t *next,
                  ex_op_t **out, fl_err_t *err) {
  const ty_schema_t *in = o->in_schema;
  uint32_t nin = in->root.nfields;
  ex_window_frame_t frame;
  if (o->frame)
    frame = *o->frame;
  else
    frame = (ex_window_frame_t){.unit = EX_FRAME_RANGE,
                                .start = {.kind = EX_BOUND_UNBOUNDED_PRECEDING},
                                .end = {.kind = EX_BOUND_CURRENT_ROW}};
  for (uint32_t i = 0; i < o->npartition; i++)
    if (o->partition_cols[i] >= nin)
      return fl_err_set(err, FL_EINVALID, "window: PARTITION BY column %u out of range",
                        o->partition_cols[i]);
  for (uint32_t i = 0; i < o->norder; i++)
    if (o->order_keys[i].col >= nin)
      return fl_err_set(err, FL_EINVALID, "window: ORDER BY column %u out of range",
                        o->order_keys[i].col);
  int rc = ex__win_frame_check(&frame, in, o->order_keys, o->norder, err);
  if (rc) return rc;
  ty_field_t *fields = fl_arena_zalloc(arena, ((size_t)nin + o->nfns + 1) * sizeof *fields);
  for (uint32_t c = 0; c < nin; c++) fields[c] = in->root.fields[c];
  bool need_frame = false;
  for (uint32_t f = 0; f < o->nfns; f++) {
    const ty_type_t *t = NULL;
    rc = fn_check(&o->fns[f], f, in, &t, err);
    if (rc) return rc;
    need_frame |= ex__win_families[o->fns[f].kind].uses_frame;
    const char *name = o->fns[f].name ? o->fns[f].name
                       : o->fns[f].kind == EX_WIN_AGG ? o->fns[f].agg->name
                                                      : ex__win_families[o->fns[f].kind].name;
    fields[nin + f] = (ty_field_t){.id = (int32_t)(nin + f + 1), .name = name, .type = t};
  }
  for (uint32_t c = 0; c < nin; c++) fields[c].id = (int32_t)c + 1;

  win_op_t *w = fl_calloc(1, sizeof *w);
  w->op.vt = &win_vt;
  w->op.next = next;
  w->op.out_schema = ty_schema_new(arena, 0, fields, nin + o->nfns);
  w->stage.vt = &stage_vt;
  w->stage.out_schema = in;
  w->ctx = ctx;
  w->in = in;
  w->frame = frame;
  w->norder = o->norder;
  if (o->norder) w->order0 = o->order_keys[0];
  w->nfns = o->nfns;
  w->fns = fl_calloc(o->nfns ? o->nfns : 1, sizeof *w->fns);
  if (o->nfns) memcpy(w->fns, o->fns, o->nfns * sizeof *w->fns);
  w->need_frame = need_frame;
  fl_buf_init(&w->kbuf);
  fl_buf_init(&w->prev_p);
  fl_buf_init(&w->prev_o);
  w->koffs_p = fl_malloc((TY_BATCH_ROWS + 1) * sizeof *w->koffs_p);
  w->koffs_o = fl_malloc((TY_BATCH_ROWS + 1) * sizeof *w->koffs_o);
  /* The evaluation columns: arguments, defaults and the ORDER BY key,
   * renumbered in the order first met. */
  int32_t *map = fl_malloc((nin ? nin : 1) * sizeof *map);
  for (uint32_t c = 0; c < nin; c++) map[c] = -1;
  w->eval_cols = fl_malloc(((size_t)nin + 1) * sizeof *w->eval_cols);
  w->efns = fl_calloc(o->nfns ? o->nfns : 1, sizeof *w->efns);
#define EVAL_COL(c) (map[(c)] >= 0 ? map[(c)] : (w->eval_cols[w->neval] = (c), map[(c)] = (int32_t)w->neval++))
  for (uint32_t f = 0; f < o->nfns; f++) {
    w->efns[f] = o->fns[f];
    if (o->fns[f].arg_col >= 0) w->efns[f].arg_col = EVAL_COL(o->fns[f].arg_col);
    if (o->fns[f].default_col >= 0) w->efns[f].default_col = EVAL_COL(o->fns[f].default_col);
  }
  if (o->norder) {
    w->eorder0 = o->order_keys[0];
    w->eorder0.col = (uint32_t)EVAL_COL(o->order_keys[0].col);
  }
#undef EVAL_COL
  fl_free(map);
  ty_field_t *ef = fl_arena_zalloc(arena, ((size_t)w->neval + 1) * sizeof *ef);
  for (uint32_t j = 0; j < w->neval; j++) {
    ef[j] = in->root.fields[w->eval_cols[j]];
    ef[j].id = (int32_t)j + 1;
  }
  w->eval_schema = ty_schema_new(arena, 0, ef, w->neval);
  w->evalb = ty_batch_new(w->eval_schema, TY_BATCH_ROWS);
  w->payload = ty_batch_new(in, TY_BATCH_ROWS);
  w->chunk = ty_batch_new(in, TY_BATCH_ROWS);
  w->out = ty_batch_new(w->op.out_schema, TY_BATCH_ROWS);
  ex_sort_key_t *keys = fl_calloc((size_t)o->npartition + o->norder + 1, sizeof *keys);
  for (uint32_t i = 0; i < o->npartition; i++) keys[i] = (ex_sort_key_t){.col = o->partition_cols[i]};
  for (uint32_t i = 0; i < o->norder; i++) keys[o->npartition + i] = o->order_keys[i];
  if (!rc && o->npartition) rc = ex_sortkey_new(in, keys, o->npartition, &w->pkey, err);
  if (!rc && o->norder) rc = ex_sortkey_new(in, keys + o->npartition, o->norder, &w->okey, err);
  if (!rc && !o->presorted && o->npartition + o->norder)
    rc = ex_sort_new(ctx, in, keys, o->npartition + o->norder, &w->stage, &w->sort, err);
  fl_free(keys);
  if (rc) {
    win_destroy(&w->op);
    return fl_err_prefix(err, "window: ");
  }
  *out = &w->op;
  return FL_OK;
}

const ex_window_stats_t *ex_window_stats(const ex_op_t *op) {
  win_op_t *w = (win_op_t *)op;
  if (w->sort) w->stats.sort_runs = ex_sort_stats(w->sort)->runs;
  return &w->stats;
}
