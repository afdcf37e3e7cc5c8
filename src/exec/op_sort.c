/*
 * op_sort.c - ORDER BY: a stable external merge sort.
 *
 * Algorithm. Input batches are copied (live rows only) and their ORDER BY
 * columns encoded into normalized keys (ex_sortkey.h), so every comparison
 * is one memcmp. The rows held in memory form the current run. When the
 * budget refuses the next batch, the run is sorted (a merge sort over row
 * numbers, stable: equal keys keep input order) and written to a spill
 * file as batches of the input columns plus the key as a binary column;
 * then memory is released and input continues. At finish, without spilled
 * runs, the in-memory run is sorted and emitted. Otherwise it becomes the
 * last run, and the runs are merged with a binary heap ordered by (key,
 * run number): runs hold consecutive stretches of the input in order, so
 * breaking ties by run number keeps the sort stable. When there are more
 * runs than EX_SORT_FANIN (each open run costs a file and a batch), the
 * oldest EX_SORT_FANIN runs are first merged into one new run, repeatedly.
 *
 * States.
 *   COLLECTING  taking input; rows since the last spill are in memory
 *   MERGING     finish() called; emitting in order
 *   FINISHED    everything emitted and finish() passed on
 * checkpoint() writes the in-memory rows when nothing was spilled (a sort
 * in a streaming job holds a bounded input); restore() reads them back.
 */
#include "exec/op_sort.h"

#include "base/alloc.h"
#include "exec/ex_spill.h"
#include "exec/ex_vec.h"

#define EX_SORT_FANIN 64

enum { ST_COLLECTING, ST_MERGING, ST_FINISHED };

typedef struct sort_op {
  ex_op_t op;
  ex_opctx_t *ctx;
  const ty_schema_t *schema;
  ex_sortkey_t *key;
  fl_arena_t *arena;
  int state;
  /* The in-memory run. */
  ty_batch_t **batches;
  uint32_t nbatches, batches_cap;
  uint64_t *batch_first; /* per held batch: number of its first row */
  uint64_t *koff;        /* key offsets, nrows + 1 */
  uint64_t nrows, rows_cap;
  fl_buf_t keys;
  size_t reserved;
  /* Spilled runs, oldest first. */
  const ty_schema_t *run_schema; /* input columns + "$key" binary */
  ex_spill_dir_t *dir;
  ex_spill_file_t **runs;
  uint32_t nruns, runs_cap;
  ty_batch_t *out;
  ex_sort_stats_t stats;
} sort_op_t;

/* A row to sort: the first 8 key bytes as a big-endian integer, so most
 * comparisons are one integer compare on memory that is sorted along with
 * it, and where the row is for the rest of the key and for emitting. */
typedef struct sort_ent {
  uint64_t prefix;
  uint32_t batch, index; /* where the row is held */
} sort_ent_t;

static inline uint64_t ent_row(const sort_op_t *s, const sort_ent_t *e) {
  return s->batch_first[e->batch] + e->index;
}

static inline int ent_cmp(const sort_op_t *s, const sort_ent_t *x, const sort_ent_t *y) {
  if (x->prefix != y->prefix) return x->prefix < y->prefix ? -1 : 1;
  uint64_t xr = ent_row(s, x), yr = ent_row(s, y);
  uint64_t xo = s->koff[xr], yo = s->koff[yr];
  size_t nx = s->koff[xr + 1] - xo, ny = s->koff[yr + 1] - yo;
  /* Equal prefixes: a key of at most 8 bytes is a prefix of the other
   * (its padding zeros matched real bytes), so the shorter sorts first. */
  if (nx > 8 && ny > 8) {
    int c = ex_sortkey_cmp(s->keys.data + xo + 8, nx - 8, s->keys.data + yo + 8, ny - 8);
    if (c) return c;
  }
  return (nx > ny) - (nx < ny);
}

/* Stable bottom-up merge sort of a[lo, hi) with ent_cmp (tmp: scratch of
 * the same size as a). */
static void merge_sort_range(const sort_op_t *s, sort_ent_t *a, sort_ent_t *tmp, uint64_t lo0,
                             uint64_t hi0) {
  /* Insertion sort of runs of 16, then merging doubles the width. */
  for (uint64_t lo = lo0; lo < hi0; lo += 16) {
    uint64_t hi = lo + 16 < hi0 ? lo + 16 : hi0;
    for (uint64_t i = lo + 1; i < hi; i++) {
      sort_ent_t x = a[i];
      uint64_t j = i;
      while (j > lo && ent_cmp(s, &a[j - 1], &x) > 0) {
        a[j] = a[j - 1];
        j--;
      }
      a[j] = x;
    }
  }
  sort_ent_t *src = a, *dst = tmp;
  for (uint64_t w = 16; w < hi0 - lo0; w *= 2) {
    for (uint64_t lo = lo0; lo < hi0; lo += 2 * w) {
      uint64_t mid = lo + w < hi0 ? lo + w : hi0, hi = lo + 2 * w < hi0 ? lo + 2 * w : hi0;
      uint64_t i = lo, j = mid, k = lo;
      if (mid >= hi || ent_cmp(s, &src[mid - 1], &src[mid]) <= 0) {
        memcpy(dst + lo, src + lo, (hi - lo) * sizeof *src);
        continue;
      }
      while (i < mid && j < hi) dst[k++] = ent_cmp(s, &src[j], &src[i]) < 0 ? src[j++] : src[i++];
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    sort_ent_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != a) memcpy(a + lo0, src + lo0, (hi0 - lo0) * sizeof *a);
}

/*
 * Sorts the held rows stably and returns them in order (fl_free). An
 * LSD radix sort on the 8-byte key prefix (stable; passes over a byte that
 * is the same in every row are skipped) does most of the work with
 * sequential memory traffic; runs of equal prefixes whose keys may still
 * differ are then finished with the merge sort.
 */
static sort_ent_t *sort_rows(const sort_op_t *s) {
  uint64_t n = s->nrows;
  sort_ent_t *a = fl_malloc((n ? n : 1) * sizeof *a), *tmp = fl_malloc((n ? n : 1) * sizeof *tmp);
  for (uint32_t b = 0, i = 0; b < s->nbatches; b++) {
    uint32_t rows = s->batches[b]->nrows;
    for (uint32_t r = 0; r < rows; r++, i++) {
      const uint8_t *k = s->keys.data + s->koff[i];
      size_t len = s->koff[i + 1] - s->koff[i];
      uint64_t p = 0;
      for (size_t j = 0; j < 8; j++) p = (p << 8) | (j < len ? k[j] : 0);
      a[i] = (sort_ent_t){p, b, r};
    }
  }
  if (n < 256) {
    merge_sort_range(s, a, tmp, 0, n);
  } else {
    uint64_t counts[8][256];
    memset(counts, 0, sizeof counts);
    for (uint64_t i = 0; i < n; i++)
      for (int b = 0; b < 8; b++) counts[b][(a[i].prefix >> (8 * b)) & 0xff]++;
    for (int b = 0; b < 8; b++) {
      if (counts[b][(a[0].prefix >> (8 * b)) & 0xff] == n) continue; /* one value: no-op pass */
      uint64_t pos[256], sum = 0;
      for (int v = 0; v < 256; v++) {
        pos[v] = sum;
        sum += counts[b][v];
      }
      for (uint64_t i = 0; i < n; i++) tmp[pos[(a[i].prefix >> (8 * b)) & 0xff]++] = a[i];
      sort_ent_t *t = a;
      a = tmp;
      tmp = t;
    }
    for (uint64_t lo = 0; lo < n;) {
      uint64_t hi = lo + 1;
      uint64_t r0 = ent_row(s, &a[lo]);
      size_t len0 = s->koff[r0 + 1] - s->koff[r0];
      bool differ = len0 > 8;
      while (hi < n && a[hi].prefix == a[lo].prefix) {
        uint64_t r = ent_row(s, &a[hi]);
        size_t len = s->koff[r + 1] - s->koff[r];
        differ |= len != len0 || len > 8;
        hi++;
      }
      if (hi - lo > 1 && differ) merge_sort_range(s, a, tmp, lo, hi);
      lo = hi;
    }
  }
  fl_free(tmp);
  return a;
}

static void drop_memory_run(sort_op_t *s) {
  for (uint32_t i = 0; i < s->nbatches; i++) ty_batch_free(s->batches[i]);
  s->nbatches = 0;
  s->nrows = 0;
  fl_buf_clear(&s->keys);
  ex_mem_release(s->ctx->mem, s->reserved);
  s->reserved = 0;
}

static int out_flush(sort_op_t *s, fl_err_t *err) {
  if (!s->out->ncols || !s->out->cols[0]->len) return FL_OK;
  ty_batch_seal(s->out);
  int rc = ex_op_emit(&s->op, s->out, err);
  ty_batch_reset(s->out);
  return rc;
}

/* Writes the held rows in the order perm, as output batches or, when f is
 * set, as run batches (with their keys) to f. Each column of a chunk is
 * one multi-source gather. */
static int emit_sorted(sort_op_t *s, const sort_ent_t *perm, ex_spill_file_t *f, fl_err_t *err) {
  ty_batch_t *ob = f ? ty_batch_new(s->run_schema, TY_BATCH_ROWS) : s->out;
  uint32_t ncols = s->schema->root.nfields;
  const ty_vec_t **srcs = fl_malloc(TY_BATCH_ROWS * sizeof *srcs);
  uint32_t *idx = fl_malloc(TY_BATCH_ROWS * sizeof *idx);
  int rc = FL_OK;
  for (uint64_t i0 = 0; i0 < s->nrows && !rc; i0 += TY_BATCH_ROWS) {
    uint32_t n = s->nrows - i0 < TY_BATCH_ROWS ? (uint32_t)(s->nrows - i0) : TY_BATCH_ROWS;
    ty_batch_reset(ob);
    for (uint32_t c = 0; c < ncols; c++) {
      for (uint32_t k = 0; k < n; k++) {
        srcs[k] = s->batches[perm[i0 + k].batch]->cols[c];
        idx[k] = perm[i0 + k].index;
      }
      ex_vec_gather_multi(ob->cols[c], srcs, idx, n);
    }
    if (f)
      for (uint32_t k = 0; k < n; k++) {
        uint64_t r = ent_row(s, &perm[i0 + k]);
        ty_vec_append_bytes(ob->cols[ncols], s->keys.data + s->koff[r],
                            s->koff[r + 1] - s->koff[r]);
      }
    ty_batch_seal(ob);
    rc = f ? ex_spill_write(f, ob, err) : ex_op_emit(&s->op, ob, err);
  }
  ty_batch_reset(s->out);
  if (f) ty_batch_free(ob);
  fl_free(srcs);
  fl_free(idx);
  return rc;
}

static int new_run(sort_op_t *s, ex_spill_file_t **f, fl_err_t *err) {
  int rc;
  if (!s->dir && (rc = ex_spill_dir_open(s->ctx->spill_dir, &s->dir, err))) return rc;
  if ((rc = ex_spill_create(s->dir, f, err))) return rc;
  if (s->nruns == s->runs_cap) {
    s->runs_cap = s->runs_cap ? s->runs_cap * 2 : 8;
    s->runs = fl_realloc(s->runs, s->runs_cap * sizeof *s->runs);
  }
  s->runs[s->nruns++] = *f;
  return FL_OK;
}

/* Sorts the in-memory rows and writes them as a new run. */
static int spill_run(sort_op_t *s, fl_err_t *err) {
  ex_spill_file_t *f;
  int rc = new_run(s, &f, err);
  if (rc) return rc;
  sort_ent_t *perm = sort_rows(s);
  rc = emit_sorted(s, perm, f, err);
  fl_free(perm);
  if (!rc) rc = ex_spill_seal(f, err);
  s->stats.runs++;
  drop_memory_run(s);
  return rc;
}

static void hold_rows(sort_op_t *s, ty_batch_t *copy) {
  uint32_t n = copy->nrows;
  if (s->nrows + n + 1 > s->rows_cap) {
    uint64_t cap = s->rows_cap ? s->rows_cap : 4096;
    while (cap < s->nrows + n + 1) cap *= 2;
    s->koff = fl_realloc(s->koff, cap * sizeof *s->koff);
    s->rows_cap = cap;
  }
  if (s->nbatches == s->batches_cap) {
    s->batches_cap = s->batches_cap ? s->batches_cap * 2 : 16;
    s->batches = fl_realloc(s->batches, s->batches_cap * sizeof *s->batches);
    s->batch_first = fl_realloc(s->batch_first, s->batches_cap * sizeof *s->batch_first);
  }
  ex_sortkey_encode(s->key, copy, NULL, n, &s->keys, s->koff + s->nrows);
  s->batch_first[s->nbatches] = s->nrows;
  s->batches[s->nbatches++] = copy;
  s->nrows += n;
}

static int sort_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  sort_op_t *s = (sort_op_t *)op;
  if (s->state != ST_COLLECTING)
    return fl_err_set(err, FL_EINTERNAL, "sort: batch pushed after finish");
  uint32_t n = ty_batch_live(b);
  if (!n) return FL_OK;
  if (s->nrows + n >= UINT32_MAX)
    return fl_err_set(err, FL_ELIMIT,
                      "sort: more than 4 billion rows in memory; lower the memory budget");
  ty_batch_t *copy = ty_batch_new(s->schema, n);
  ex_batch_append_live(copy, b);
  size_t keys_before = s->keys.len;
  hold_rows(s, copy);
  /* Per row: its key offset (8 bytes) and the two sort entries sorting
   * will need (2 x 16), reserved now so that sorting cannot overshoot. */
  size_t cost = ex_batch_bytes(copy) + (s->keys.len - keys_before) + (size_t)n * 40;
  s->stats.rows += n;
  if (ex_mem_reserve(s->ctx->mem, cost)) {
    s->reserved += cost;
    return FL_OK;
  }
  /* Over budget: the held rows, this batch included, become a sorted run
   * on disk and the memory goes back to the budget. */
  return spill_run(s, err);
}

typedef struct run_cursor {
  ex_spill_file_t *f;
  ty_batch_t *b;
  uint32_t pos;
  uint32_t run; /* age: lower is earlier input */
} run_cursor_t;

static int cursor_less(const run_cursor_t *x, const run_cursor_t *y) {
  uint32_t kc = x->b->ncols - 1;
  size_t nx, ny;
  const uint8_t *px = ty_vec_get_bytes(x->b->cols[kc], x->pos, &nx);
  const uint8_t *py = ty_vec_get_bytes(y->b->cols[kc], y->pos, &ny);
  int c = ex_sortkey_cmp(px, nx, py, ny);
  return c < 0 || (c == 0 && x->run < y->run);
}

static void sift_down(run_cursor_t **h, uint32_t n, uint32_t i) {
  for (;;) {
    uint32_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && cursor_less(h[l], h[m])) m = l;
    if (r < n && cursor_less(h[r], h[m])) m = r;
    if (m == i) return;
    run_cursor_t *t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

/* The rows picked by a merge and not yet copied out: gathered a column at
 * a time when 2048 are pending or before a cursor replaces its batch. */
typedef struct pending {
  const ty_batch_t **from;
  uint32_t *idx;
  const ty_vec_t **srcs;
  uint32_t n;
} pending_t;

static int flush_pending(sort_op_t *s, pending_t *p, ty_batch_t *ob, ex_spill_file_t *into,
                         fl_err_t *err) {
  if (!p->n) return FL_OK;
  for (uint32_t c = 0; c < ob->ncols; c++) {
    for (uint32_t k = 0; k < p->n; k++) p->srcs[k] = p->from[k]->cols[c];
    ex_vec_gather_multi(ob->cols[c], p->srcs, p->idx, p->n);
  }
  p->n = 0;
  ty_batch_seal(ob);
  int rc = into ? ex_spill_write(into, ob, err) : ex_op_emit(&s->op, ob, err);
  ty_batch_reset(ob);
  return rc;
}

/* Merges runs[0..n) into `into` (a run file, keys kept) or, when into is
 * NULL, into the operator's output. */
static int merge_runs(sort_op_t *s, ex_spill_file_t **runs, uint32_t n, ex_spill_file_t *into,
                      fl_err_t *err) {
  run_cursor_t *cur = fl_calloc(n, sizeof *cur);
  run_cursor_t **heap = fl_calloc(n, sizeof *heap);
  pending_t p = {.from = fl_malloc(TY_BATCH_ROWS * sizeof *p.from),
                 .idx = fl_malloc(TY_BATCH_ROWS * sizeof *p.idx),
                 .srcs = fl_malloc(TY_BATCH_ROWS * sizeof *p.srcs)};
  uint32_t nh = 0;
  int rc = FL_OK;
  for (uint32_t i = 0; i < n && !rc; i++) {
    bool eof;
    cur[i].f = runs[i];
    cur[i].run = i;
    cur[i].b = ty_batch_new(s->run_schema, TY_BATCH_ROWS);
    ex_spill_rewind(runs[i]);
    rc = ex_spill_read(runs[i], cur[i].b, &eof, err);
    if (!rc && !eof && cur[i].b->nrows) heap[nh++] = &cur[i];
  }
  for (int64_t i = (int64_t)nh / 2 - 1; i >= 0 && !rc; i--) sift_down(heap, nh, (uint32_t)i);
  ty_batch_t *ob = into ? ty_batch_new(s->run_schema, TY_BATCH_ROWS) : s->out;
  while (nh && !rc) {
    run_cursor_t *c = heap[0];
    p.from[p.n] = c->b;
    p.idx[p.n++] = c->pos;
    if (p.n == TY_BATCH_ROWS && (rc = flush_pending(s, &p, ob, into, err))) break;
    if (++c->pos == c->b->nrows) {
      /* The batch is about to be replaced: copy out what points into it. */
      if ((rc = flush_pending(s, &p, ob, into, err))) break;
      bool eof = false;
      c->pos = 0;
      do rc = ex_spill_read(c->f, c->b, &eof, err);
      while (!rc && !eof && c->b->nrows == 0);
      if (rc) break;
      if (eof) {
        heap[0] = heap[--nh];
        if (!nh) break;
      }
    }
    sift_down(heap, nh, 0);
  }
  if (!rc) rc = flush_pending(s, &p, ob, into, err);
  if (!rc && into) rc = ex_spill_seal(into, err);
  if (into) ty_batch_free(ob);
  for (uint32_t i = 0; i < n; i++) ty_batch_free(cur[i].b);
  fl_free(p.from);
  fl_free(p.idx);
  fl_free(p.srcs);
  fl_free(cur);
  fl_free(heap);
  return rc;
}

static int sort_finish(ex_op_t *op, fl_err_t *err) {
  sort_op_t *s = (sort_op_t *)op;
  if (s->state != ST_COLLECTING) return fl_err_set(err, FL_EINTERNAL, "sort: finished twice");
  s->state = ST_MERGING;
  int rc = FL_OK;
  if (s->nruns == 0) {
    sort_ent_t *perm = sort_rows(s);
    rc = emit_sorted(s, perm, NULL, err);
    fl_free(perm);
    drop_memory_run(s);
  } else {
    if (s->nrows) rc = spill_run(s, err);
    /* Fold the oldest runs together until one merge can take them all;
     * the merged run replaces them at the front, keeping the age order. */
    while (!rc && s->nruns > EX_SORT_FANIN) {
      ex_spill_file_t *merged;
      if ((rc = new_run(s, &merged, err))) break;
      s->nruns--; /* new_run appended it; it goes to the front instead */
      rc = merge_runs(s, s->runs, EX_SORT_FANIN, merged, err);
      for (uint32_t i = 0; i < EX_SORT_FANIN; i++) ex_spill_free(s->runs[i]);
      memmove(s->runs + 1, s->runs + EX_SORT_FANIN, (s->nruns - EX_SORT_FANIN) * sizeof *s->runs);
      s->nruns -= EX_SORT_FANIN - 1;
      s->runs[0] = merged;
      s->stats.merge_passes++;
    }
    if (!rc) rc = merge_runs(s, s->runs, s->nruns, NULL, err);
  }
  if (!rc) rc = out_flush(s, err);
  if (rc) return rc;
  s->state = ST_FINISHED;
  return ex_op_forward_finish(op, err);
}

static int sort_watermark(ex_op_t *op, int64_t ts_us, fl_err_t *err) {
  return ex_op_forward_watermark(op, ts_us, err);
}

#define SORT_CHECKPOINT_MAGIC 0x54524f53u /* "SORT" */

static int sort_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) {
  sort_op_t *s = (sort_op_t *)op;
  if (s->nruns)
    return fl_err_set(err, FL_EUNSUPPORTED, "sort: cannot checkpoint after spilling runs");
  fl_buf_append_le32(w, SORT_CHECKPOINT_MAGIC);
  fl_buf_append_le32(w, s->nbatches);
  for (uint32_t i = 0; i < s->nbatches; i++) ex_batch_encode(s->batches[i], w);
  return FL_OK;
}

static int sort_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  sort_op_t *s = (sort_op_t *)op;
  uint32_t magic, n;
  int rc;
  if ((rc = fl_rd_le32(r, &magic, err)) || (rc = fl_rd_le32(r, &n, err)))
    return fl_err_prefix(err, "sort checkpoint: ");
  if (magic != SORT_CHECKPOINT_MAGIC)
    return fl_err_set(err, FL_ECORRUPT, "%s: not a sort checkpoint", r->what);
  for (uint32_t i = 0; i < n; i++) {
    ty_batch_t *b = ty_batch_new(s->schema, TY_BATCH_ROWS);
    if ((rc = ex_batch_decode(r, b, err))) {
      ty_batch_free(b);
      return fl_err_prefix(err, "sort checkpoint: ");
    }
    rc = sort_push(op, b, err);
    ty_batch_free(b);
    if (rc) return rc;
  }
  return FL_OK;
}

static void sort_destroy(ex_op_t *op) {
  sort_op_t *s = (sort_op_t *)op;
  drop_memory_run(s);
  for (uint32_t i = 0; i < s->nruns; i++) ex_spill_free(s->runs[i]);
  ex_spill_dir_close(s->dir);
  fl_free(s->runs);
  fl_free(s->batches);
  fl_free(s->batch_first);
  fl_free(s->koff);
  fl_buf_free(&s->keys);
  ty_batch_free(s->out);
  ex_sortkey_free(s->key);
  fl_arena_free(s->arena);
  fl_free(s);
}

static const ex_op_vt_t sort_vt = {
    .name = "sort",
    .push = sort_push,
    .watermark = sort_watermark,
    .finish = sort_finish,
    .checkpoint = sort_checkpoint,
    .restore = sort_restore,
    .destroy = sort_destroy,
};

int ex_sort_new(ex_opctx_t *ctx, const ty_schema_t *schema, const ex_sort_key_t *keys,
                uint32_t nkeys, ex_op_t *next, ex_op_t **out, fl_err_t *err) {
  ex_sortkey_t *k;
  int rc = ex_sortkey_new(schema, keys, nkeys, &k, err);
  if (rc) return rc;
  if (schema->root.nfields == 0) {
    ex_sortkey_free(k);
    return fl_err_set(err, FL_EINVALID, "sort: input has no columns");
  }
  sort_op_t *s = fl_calloc(1, sizeof *s);
  s->op.vt = &sort_vt;
  s->op.next = next;
  s->op.out_schema = schema;
  s->ctx = ctx;
  s->schema = schema;
  s->key = k;
  s->arena = fl_arena_new(4096);
  uint32_t nf = schema->root.nfields;
  ty_field_t *f = fl_arena_zalloc(s->arena, (nf + 1) * sizeof *f);
  memcpy(f, schema->root.fields, nf * sizeof *f);
  f[nf] = (ty_field_t){
      .id = (int32_t)nf + 1, .name = "$key", .required = true, .type = ty_primitive(TY_BINARY)};
  s->run_schema = ty_schema_new(s->arena, 0, f, nf + 1);
  s->out = ty_batch_new(schema, TY_BATCH_ROWS);
  fl_buf_init(&s->keys);
  *out = &s->op;
  return FL_OK;
}

const ex_sort_stats_t *ex_sort_stats(const ex_op_t *op) { return &((const sort_op_t *)op)->stats; }
