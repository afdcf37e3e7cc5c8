/*
 * op_stream_agg.c - streaming (sorted) aggregation.
 *
 * Algorithm. The input holds the rows of each group together, so a group
 * is complete as soon as a row with other keys arrives. Each batch's key
 * columns are encoded as normalized sort keys (ex_sortkey.h: equal bytes
 * for equal keys, NULL equal to NULL, -0.0 to 0.0 and NaN to NaN, as
 * GROUP BY wants), and a row starts a new group where its key differs
 * from the previous row's; the first row is compared with the key of the
 * group still open from the previous batch. The rows then get group
 * numbers 0, 1, ... within the batch (0 continuing the open group when
 * its key goes on) and every aggregate folds the batch into those states
 * with one update call, exactly as hash aggregation does, through the same
 * aggregate kernels (ex_agg.h). All groups but the last are complete:
 * their states are finalized and emitted, keys taken from their first
 * rows. The last group stays open: its state moves to slot 0 and its key
 * is kept (one row, plus its encoded form). At the end of input the open
 * group is emitted.
 *
 * Memory is one batch's worth of states (at most 2049 groups) and one key
 * row, whatever the number of groups: the states are reserved against
 * the budget once. What an aggregate's state holds on the heap (array_agg,
 * DISTINCT sets) grows with the size of one group only.
 *
 * States.
 *   EMPTY     no group open (start, or no rows yet)
 *   OPEN      slot 0 holds the state of the group whose key is kept
 *   FINISHED  the open group emitted and finish() passed downstream;
 *             further pushes are an error
 * Streaming checkpoints are refused (FL_EUNSUPPORTED).
 */
#include "exec/op_stream_agg.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "exec/ex_sortkey.h"
#include "exec/ex_vec.h"

enum { ST_EMPTY, ST_OPEN, ST_FINISHED };

#define SLOTS (TY_BATCH_ROWS + 1)

typedef struct stream_agg {
  ex_op_t op;
  ex_opctx_t *ctx;
  int state;
  uint32_t nkeys, naggs;
  uint32_t *key_cols;
  ex_agg_spec_t *aggs;
  size_t *offsets;
  size_t stride;
  uint8_t *states; /* SLOTS groups */
  uint32_t ninit;  /* slots whose states are initialised */
  size_t reserved;
  ex_sortkey_t *sk;           /* over the key columns of the input */
  const ty_schema_t *kschema; /* the key columns */
  ty_batch_t *kbatch;         /* the open group's key: one row */
  fl_buf_t kbytes;            /* its encoded form */
  fl_buf_t enc;               /* a batch's encoded keys */
  uint64_t *offs;
  uint32_t *rows, *gids, *frows, *fgids, *starts;
  ty_batch_t *out_batch;
  ex_stream_agg_stats_t stats;
} stream_agg_t;

static void init_slots(stream_agg_t *s, uint32_t n) {
  for (uint32_t g = s->ninit; g < n; g++)
    for (uint32_t i = 0; i < s->naggs; i++)
      s->aggs[i].agg->fn->init(s->aggs[i].agg, s->states + (size_t)g * s->stride + s->offsets[i]);
  if (n > s->ninit) s->ninit = n;
}

static void destroy_slots(stream_agg_t *s, uint32_t from, uint32_t to) {
  for (uint32_t i = 0; i < s->naggs; i++) {
    ex_agg_t *a = s->aggs[i].agg;
    if (!a->fn->destroy) continue;
    for (uint32_t g = from; g < to; g++)
      a->fn->destroy(a, s->states + (size_t)g * s->stride + s->offsets[i]);
  }
}

/* Folds rows[0..n) of b into slots gids[0..n), FILTER applied per aggregate. */
static int update(stream_agg_t *s, const ty_batch_t *b, uint32_t n, fl_err_t *err) {
  for (uint32_t i = 0; i < s->naggs; i++) {
    const ex_agg_spec_t *a = &s->aggs[i];
    const uint32_t *r = s->rows, *g = s->gids;
    uint32_t m = n;
    if (a->filter_col >= 0) {
      const ty_vec_t *f = b->cols[a->filter_col];
      m = 0;
      for (uint32_t k = 0; k < n; k++)
        if (ty_vec_is_valid(f, s->rows[k]) && f->data[s->rows[k]]) {
          s->frows[m] = s->rows[k];
          s->fgids[m++] = s->gids[k];
        }
      r = s->frows;
      g = s->fgids;
    }
    if (!m) continue;
    const ty_vec_t *arg = a->arg_col >= 0 ? b->cols[a->arg_col] : NULL;
    int rc = a->agg->fn->update(a->agg, s->states + s->offsets[i], s->stride, g, arg, r, m, err);
    if (rc) return fl_err_prefix(err, "%s: ", a->agg->name);
  }
  return FL_OK;
}

/*
 * Emits slots [0, n): slot 0's key from the kept key row when carried,
 * the others' from their first rows of b (starts[]); then frees them.
 */
static int emit(stream_agg_t *s, const ty_batch_t *b, uint32_t n, bool carried, fl_err_t *err) {
  if (!n) return FL_OK;
  ty_batch_t *ob = s->out_batch;
  ty_batch_reset(ob);
  for (uint32_t c = 0; c < s->nkeys; c++) {
    uint32_t from = 0;
    if (carried) {
      ty_vec_append_from(ob->cols[c], s->kbatch->cols[c], 0);
      from = 1;
    }
    if (n > from) ex_vec_gather(ob->cols[c], b->cols[s->key_cols[c]], s->starts + from, n - from);
  }
  int rc = FL_OK;
  for (uint32_t i = 0; i < s->naggs && !rc; i++) {
    ex_agg_t *a = s->aggs[i].agg;
    rc = a->fn->finalize(a, s->states + s->offsets[i], s->stride, n, ob->cols[s->nkeys + i], err);
    if (rc) fl_err_prefix(err, "%s: ", a->name);
  }
  destroy_slots(s, 0, n);
  s->ninit = 0;
  if (rc) return rc;
  ty_batch_seal(ob);
  s->stats.groups_out += n;
  return ex_op_emit(&s->op, ob, err);
}

/* Keeps row r of b (encoded key k, length len) as the open group's key. */
static void keep_key(stream_agg_t *s, const ty_batch_t *b, uint32_t r, const uint8_t *k,
                     size_t len) {
  ty_batch_reset(s->kbatch);
  for (uint32_t c = 0; c < s->nkeys; c++)
    ty_vec_append_from(s->kbatch->cols[c], b->cols[s->key_cols[c]], r);
  ty_batch_seal(s->kbatch);
  fl_buf_clear(&s->kbytes);
  fl_buf_append(&s->kbytes, k, len);
}

static int sa_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  stream_agg_t *s = (stream_agg_t *)op;
  if (s->state == ST_FINISHED)
    return fl_err_set(err, FL_EINTERNAL, "streaming aggregation: batch pushed after finish");
  uint32_t n = ty_batch_live(b);
  if (!n) return FL_OK;
  for (uint32_t k = 0; k < n; k++) s->rows[k] = b->sel ? b->sel[k] : k;
  s->stats.rows_in += n;
  fl_buf_clear(&s->enc);
  ex_sortkey_encode(s->sk, b, s->rows, n, &s->enc, s->offs);
  const uint8_t *kb = s->enc.data;
  /* Group numbers: a new slot where the key differs from the one before. */
  bool carried = s->state == ST_OPEN;
  uint32_t ng = carried ? 1 : 0;
  const uint8_t *prev = carried ? s->kbytes.data : NULL;
  size_t prev_len = carried ? s->kbytes.len : 0;
  for (uint32_t k = 0; k < n; k++) {
    const uint8_t *cur = kb + s->offs[k];
    size_t len = (size_t)(s->offs[k + 1] - s->offs[k]);
    if (!ng || ex_sortkey_cmp(prev, prev_len, cur, len) != 0) s->starts[ng++] = s->rows[k];
    s->gids[k] = ng - 1;
    prev = cur;
    prev_len = len;
  }
  init_slots(s, ng);
  int rc = update(s, b, n, err);
  if (rc) return rc;
  /* The last slot stays open; the rest are complete. Its key is taken
   * before the emitted slots are freed: slot 0 may be the carried one. */
  uint32_t last = ng - 1;
  bool last_carried = carried && last == 0;
  if (!last_carried) {
    uint32_t k0 = 0;
    while (s->rows[k0] != s->starts[last]) k0++;
    const uint8_t *k = kb + s->offs[k0];
    size_t len = (size_t)(s->offs[k0 + 1] - s->offs[k0]);
    if ((rc = emit(s, b, last, carried, err))) return rc;
    keep_key(s, b, s->starts[last], k, len);
    /* Move the open state to slot 0. */
    memmove(s->states, s->states + (size_t)last * s->stride, s->stride);
    s->ninit = 1;
  }
  s->state = ST_OPEN;
  return FL_OK;
}

static int sa_finish(ex_op_t *op, fl_err_t *err) {
  stream_agg_t *s = (stream_agg_t *)op;
  if (s->state == ST_FINISHED) return FL_OK;
  int rc = FL_OK;
  if (s->state == ST_OPEN) rc = emit(s, NULL, 1, true, err);
  s->state = ST_FINISHED;
  if (rc) return rc;
  return ex_op_forward_finish(op, err);
}

static int sa_watermark(ex_op_t *op, int64_t ts_us, fl_err_t *err) {
  return ex_op_forward_watermark(op, ts_us, err);
}

static int sa_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) {
  (void)op;
  (void)w;
  return fl_err_set(err, FL_EUNSUPPORTED, "streaming aggregation does not checkpoint");
}

static int sa_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  (void)op;
  (void)r;
  return fl_err_set(err, FL_EUNSUPPORTED, "streaming aggregation does not checkpoint");
}

static void sa_destroy(ex_op_t *op) {
  stream_agg_t *s = (stream_agg_t *)op;
  destroy_slots(s, 0, s->ninit);
  ex_mem_release(s->ctx->mem, s->reserved);
  ex_sortkey_free(s->sk);
  ty_batch_free(s->kbatch);
  ty_batch_free(s->out_batch);
  fl_buf_free(&s->kbytes);
  fl_buf_free(&s->enc);
  free(s->states);
  fl_free(s->offsets);
  fl_free(s->offs);
  fl_free(s->rows);
  fl_free(s->gids);
  fl_free(s->frows);
  fl_free(s->fgids);
  fl_free(s->starts);
  fl_free(s);
}

static const ex_op_vt_t stream_agg_vt = {
    .name = "stream_agg",
    .push = sa_push,
    .watermark = sa_watermark,
    .finish = sa_finish,
    .checkpoint = sa_checkpoint,
    .restore = sa_restore,
    .destroy = sa_destroy,
};

int ex_stream_agg_new(ex_opctx_t *ctx, fl_arena_t *arena, const ex_hash_agg_opts_t *o,
                      ex_op_t *next, ex_op_t **out, fl_err_t *err) {
  const ty_schema_t *in = o->in_schema;
  uint32_t ncols = in->root.nfields;
  if (o->nsets || !o->nkeys)
    return fl_err_set(err, FL_EINVALID,
                      "streaming aggregation needs grouping keys and no grouping sets");
  for (uint32_t c = 0; c < o->nkeys; c++)
    if (o->key_cols[c] >= ncols)
      return fl_err_set(err, FL_EINVALID, "streaming aggregation: key column %u of %u",
                        o->key_cols[c], ncols);
  for (uint32_t i = 0; i < o->naggs; i++) {
    const ex_agg_spec_t *a = &o->aggs[i];
    if (a->arg_col >= (int32_t)ncols || (a->arg_col < 0 && a->agg->arg))
      return fl_err_set(err, FL_EINVALID, "streaming aggregation: %s has no argument column",
                        a->agg->name);
    if (a->filter_col >= (int32_t)ncols ||
        (a->filter_col >= 0 && in->root.fields[a->filter_col].type->kind != TY_BOOLEAN))
      return fl_err_set(err, FL_EINVALID,
                        "streaming aggregation: FILTER of %s must be a boolean column",
                        a->agg->name);
  }
  ex_sort_key_t *keys = fl_arena_zalloc(arena, o->nkeys * sizeof *keys);
  for (uint32_t c = 0; c < o->nkeys; c++) keys[c] = (ex_sort_key_t){.col = o->key_cols[c]};
  ex_sortkey_t *sk;
  int rc = ex_sortkey_new(in, keys, o->nkeys, &sk, err);
  if (rc) return fl_err_prefix(err, "streaming aggregation: ");

  stream_agg_t *s = fl_calloc(1, sizeof *s);
  s->op.vt = &stream_agg_vt;
  s->op.next = next;
  s->ctx = ctx;
  s->sk = sk;
  s->nkeys = o->nkeys;
  s->naggs = o->naggs;
  s->key_cols = fl_arena_memdup(arena, o->key_cols, o->nkeys * sizeof *o->key_cols);
  s->aggs = fl_arena_memdup(arena, o->aggs, (o->naggs ? o->naggs : 1) * sizeof *o->aggs);
  s->offsets = fl_calloc(o->naggs ? o->naggs : 1, sizeof *s->offsets);
  size_t off = 0, align = 8;
  for (uint32_t i = 0; i < o->naggs; i++) {
    const ex_agg_fn_t *fn = o->aggs[i].agg->fn;
    off = ex_agg_align(off, fn->state_align);
    s->offsets[i] = off;
    off += fn->state_size;
    if (fn->state_align > align) align = fn->state_align;
  }
  s->stride = ex_agg_align(off ? off : 1, align);
  s->states = aligned_alloc(16, ex_agg_align((size_t)SLOTS * s->stride, 16));
  s->reserved = (size_t)SLOTS * s->stride;
  ex_mem_force(ctx->mem, s->reserved);

  uint32_t nout = o->nkeys + o->naggs;
  ty_field_t *fields = fl_arena_zalloc(arena, nout * sizeof *fields);
  for (uint32_t c = 0; c < o->nkeys; c++) {
    fields[c] = in->root.fields[o->key_cols[c]];
    fields[c].id = (int32_t)c + 1;
    fields[c].required = false;
  }
  for (uint32_t i = 0; i < o->naggs; i++) {
    const ex_agg_spec_t *a = &o->aggs[i];
    fields[o->nkeys + i] = (ty_field_t){.id = (int32_t)(o->nkeys + i + 1),
                                        .name = a->name ? a->name : a->agg->name,
                                        .type = a->agg->out};
  }
  s->op.out_schema = ty_schema_new(arena, 0, fields, nout);
  s->kschema = ty_schema_new(arena, 0, fields, o->nkeys);
  s->kbatch = ty_batch_new(s->kschema, 1);
  s->out_batch = ty_batch_new(s->op.out_schema, TY_BATCH_ROWS);
  fl_buf_init(&s->kbytes);
  fl_buf_init(&s->enc);
  s->offs = fl_calloc(TY_BATCH_ROWS + 1, sizeof *s->offs);
  s->rows = fl_calloc(TY_BATCH_ROWS, sizeof *s->rows);
  s->gids = fl_calloc(TY_BATCH_ROWS, sizeof *s->gids);
  s->frows = fl_calloc(TY_BATCH_ROWS, sizeof *s->frows);
  s->fgids = fl_calloc(TY_BATCH_ROWS, sizeof *s->fgids);
  s->starts = fl_calloc(SLOTS, sizeof *s->starts);
  *out = &s->op;
  return FL_OK;
}

const ex_stream_agg_stats_t *ex_stream_agg_stats(const ex_op_t *op) {
  return &((const stream_agg_t *)op)->stats;
}
