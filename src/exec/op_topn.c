/*
 * op_topn.c - top-N: ORDER BY ... LIMIT n [OFFSET m] without sorting the
 * whole input.
 *
 * Algorithm. The operator keeps the best k = m + n rows seen so far in a
 * binary max-heap ordered by (normalized key, input sequence number), so
 * the worst kept row is at the top. Each input batch's keys are encoded
 * once; a row enters only if the heap is not full or it sorts before the
 * top, replacing it. Ties are broken by sequence number, so the result
 * equals a stable sort followed by OFFSET/LIMIT. Entered rows are copied
 * into a store batch; replaced rows leave dead rows behind, and when the
 * store holds more than 2k + 2048 rows it is compacted to the live ones.
 * At finish the kept rows are sorted and rows m..m+n-1 emitted.
 *
 * States.
 *   COLLECTING  taking input; the heap holds the best min(k, rows) rows
 *   FINISHED    output emitted and finish() passed on
 * The kept rows are bounded by k, not by the input, so top-N does not
 * spill: a k whose rows alone exceed the memory budget is an FL_ELIMIT
 * error; within it, top-N takes its bytes even when other operators hold
 * the rest of the budget (they can spill).
 * checkpoint() writes the kept rows in order; restore() pushes them back.
 */
#include <stdlib.h>

#include "base/alloc.h"
#include "exec/ex_spill.h"
#include "exec/ex_vec.h"
#include "exec/op_sort.h"

enum { ST_COLLECTING, ST_FINISHED };

typedef struct entry {
  uint8_t *key;
  uint32_t klen;
  uint32_t row; /* in the store */
  uint64_t seq;
} entry_t;

typedef struct topn_op {
  ex_op_t op;
  ex_opctx_t *ctx;
  const ty_schema_t *schema;
  ex_sortkey_t *key;
  uint64_t limit, offset, k;
  int state;
  entry_t *heap;
  uint64_t nheap;
  ty_batch_t *store;
  uint64_t seq;
  size_t reserved, key_bytes;
  fl_buf_t kbuf;
  uint64_t *koff;
  uint32_t koff_cap;
  ty_batch_t *out;
} topn_op_t;

/* a before b in the output order. */
static inline int entry_cmp(const entry_t *a, const entry_t *b) {
  int c = ex_sortkey_cmp(a->key, a->klen, b->key, b->klen);
  if (c) return c;
  return (a->seq > b->seq) - (a->seq < b->seq);
}

static void sift_up(entry_t *h, uint64_t i) {
  while (i) {
    uint64_t p = (i - 1) / 2;
    if (entry_cmp(&h[p], &h[i]) >= 0) return;
    entry_t t = h[p];
    h[p] = h[i];
    h[i] = t;
    i = p;
  }
}

static void sift_down(entry_t *h, uint64_t n, uint64_t i) {
  for (;;) {
    uint64_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && entry_cmp(&h[l], &h[m]) > 0) m = l;
    if (r < n && entry_cmp(&h[r], &h[m]) > 0) m = r;
    if (m == i) return;
    entry_t t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

static void compact(topn_op_t *t) {
  ty_batch_t *ns = ty_batch_new(t->schema, (uint32_t)(t->nheap ? t->nheap : 1));
  for (uint64_t i = 0; i < t->nheap; i++) {
    for (uint32_t c = 0; c < ns->ncols; c++)
      ty_vec_append_from(ns->cols[c], t->store->cols[c], t->heap[i].row);
    t->heap[i].row = (uint32_t)i;
  }
  ty_batch_seal(ns);
  ty_batch_free(t->store);
  t->store = ns;
}

static int account(topn_op_t *t, fl_err_t *err) {
  size_t now = ex_batch_bytes(t->store) + t->key_bytes + t->k * sizeof(entry_t);
  if (now <= t->reserved) return FL_OK;
  if (!ex_mem_reserve(t->ctx->mem, now - t->reserved)) {
    /* The budget is shared: a join or aggregation below may hold most of
     * it (a join key with more rows than the budget is joined over it).
     * Those spill and top-N cannot, and what it keeps is bounded by k, so
     * it is refused only when it alone needs more than the whole budget. */
    if (now > t->ctx->mem->limit)
      return fl_err_set(
          err, FL_ELIMIT,
          "top-N: keeping %llu rows needs %zu bytes, beyond the memory budget of %zu bytes",
          (unsigned long long)t->k, now, t->ctx->mem->limit);
    ex_mem_force(t->ctx->mem, now - t->reserved);
  }
  t->reserved = now;
  return FL_OK;
}

static int topn_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  topn_op_t *t = (topn_op_t *)op;
  if (t->state != ST_COLLECTING)
    return fl_err_set(err, FL_EINTERNAL, "top-N: batch pushed after finish");
  uint32_t n = ty_batch_live(b);
  if (!n || t->k == 0) {
    t->seq += n;
    return FL_OK;
  }
  if (n + 1 > t->koff_cap) {
    t->koff_cap = n + 1;
    t->koff = fl_realloc(t->koff, t->koff_cap * sizeof *t->koff);
  }
  fl_buf_clear(&t->kbuf);
  ex_sortkey_encode(t->key, b, b->sel, n, &t->kbuf, t->koff);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t r = b->sel ? b->sel[i] : i;
    entry_t e = {.key = t->kbuf.data + t->koff[i],
                 .klen = (uint32_t)(t->koff[i + 1] - t->koff[i]),
                 .seq = t->seq++};
    bool full = t->nheap == t->k;
    if (full && entry_cmp(&e, &t->heap[0]) >= 0) continue;
    uint8_t *copy = fl_malloc(e.klen ? e.klen : 1);
    if (e.klen) memcpy(copy, e.key, e.klen);
    e.key = copy;
    e.row = t->store->nrows;
    for (uint32_t c = 0; c < t->store->ncols; c++)
      ty_vec_append_from(t->store->cols[c], b->cols[c], r);
    t->store->nrows++;
    t->key_bytes += e.klen;
    if (full) {
      t->key_bytes -= t->heap[0].klen;
      fl_free(t->heap[0].key);
      t->heap[0] = e;
      sift_down(t->heap, t->nheap, 0);
    } else {
      t->heap[t->nheap] = e;
      sift_up(t->heap, t->nheap++);
    }
  }
  if (t->store->nrows > 2 * t->k + TY_BATCH_ROWS) compact(t);
  return account(t, err);
}

static int cmp_entries(const void *a, const void *b) { return entry_cmp(a, b); }

static int topn_finish(ex_op_t *op, fl_err_t *err) {
  topn_op_t *t = (topn_op_t *)op;
  if (t->state != ST_COLLECTING) return fl_err_set(err, FL_EINTERNAL, "top-N: finished twice");
  t->state = ST_FINISHED;
  qsort(t->heap, t->nheap, sizeof *t->heap, cmp_entries);
  int rc = FL_OK;
  for (uint64_t i = t->offset; i < t->nheap && !rc; i++) {
    for (uint32_t c = 0; c < t->out->ncols; c++)
      ty_vec_append_from(t->out->cols[c], t->store->cols[c], t->heap[i].row);
    if (t->out->cols[0]->len == TY_BATCH_ROWS || i + 1 == t->nheap) {
      ty_batch_seal(t->out);
      rc = ex_op_emit(op, t->out, err);
      ty_batch_reset(t->out);
    }
  }
  if (rc) return rc;
  return ex_op_forward_finish(op, err);
}

static int topn_watermark(ex_op_t *op, int64_t ts_us, fl_err_t *err) {
  return ex_op_forward_watermark(op, ts_us, err);
}

#define TOPN_CHECKPOINT_MAGIC 0x4e504f54u /* "TOPN" */

static int topn_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) {
  topn_op_t *t = (topn_op_t *)op;
  /* The kept rows in output order; pushing them back in that order into a
   * fresh operator rebuilds the same heap (ties keep their order). */
  entry_t *sorted = fl_malloc((t->nheap ? t->nheap : 1) * sizeof *sorted);
  memcpy(sorted, t->heap, t->nheap * sizeof *sorted);
  qsort(sorted, t->nheap, sizeof *sorted, cmp_entries);
  ty_batch_t *b = ty_batch_new(t->schema, (uint32_t)(t->nheap ? t->nheap : 1));
  for (uint64_t i = 0; i < t->nheap; i++)
    for (uint32_t c = 0; c < b->ncols; c++)
      ty_vec_append_from(b->cols[c], t->store->cols[c], sorted[i].row);
  ty_batch_seal(b);
  fl_buf_append_le32(w, TOPN_CHECKPOINT_MAGIC);
  fl_buf_append_le64(w, t->seq);
  ex_batch_encode(b, w);
  ty_batch_free(b);
  fl_free(sorted);
  return FL_OK;
}

static int topn_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  topn_op_t *t = (topn_op_t *)op;
  uint32_t magic;
  uint64_t seq;
  int rc;
  if ((rc = fl_rd_le32(r, &magic, err)) || (rc = fl_rd_le64(r, &seq, err)))
    return fl_err_prefix(err, "top-N checkpoint: ");
  if (magic != TOPN_CHECKPOINT_MAGIC)
    return fl_err_set(err, FL_ECORRUPT, "%s: not a top-N checkpoint", r->what);
  ty_batch_t *b = ty_batch_new(t->schema, TY_BATCH_ROWS);
  rc = ex_batch_decode(r, b, err);
  if (!rc) rc = topn_push(op, b, err);
  ty_batch_free(b);
  if (!rc && seq > t->seq) t->seq = seq;
  return rc;
}

static void topn_destroy(ex_op_t *op) {
  topn_op_t *t = (topn_op_t *)op;
  for (uint64_t i = 0; i < t->nheap; i++) fl_free(t->heap[i].key);
  ex_mem_release(t->ctx->mem, t->reserved);
  fl_free(t->heap);
  fl_free(t->koff);
  fl_buf_free(&t->kbuf);
  ty_batch_free(t->store);
  ty_batch_free(t->out);
  ex_sortkey_free(t->key);
  fl_free(t);
}

static const ex_op_vt_t topn_vt = {
    .name = "topn",
    .push = topn_push,
    .watermark = topn_watermark,
    .finish = topn_finish,
    .checkpoint = topn_checkpoint,
    .restore = topn_restore,
    .destroy = topn_destroy,
};

int ex_topn_new(ex_opctx_t *ctx, const ty_schema_t *schema, const ex_sort_key_t *keys,
                uint32_t nkeys, uint64_t limit, uint64_t offset, ex_op_t *next, ex_op_t **out,
                fl_err_t *err) {
  if (schema->root.nfields == 0) return fl_err_set(err, FL_EINVALID, "top-N: input has no columns");
  if (limit > UINT32_MAX / 4 || offset > UINT32_MAX / 4)
    return fl_err_set(err, FL_ELIMIT,
                      "top-N: LIMIT %llu OFFSET %llu is too large for a top-N; sort instead",
                      (unsigned long long)limit, (unsigned long long)offset);
  ex_sortkey_t *k;
  int rc = ex_sortkey_new(schema, keys, nkeys, &k, err);
  if (rc) return rc;
  topn_op_t *t = fl_calloc(1, sizeof *t);
  t->op.vt = &topn_vt;
  t->op.next = next;
  t->op.out_schema = schema;
  t->ctx = ctx;
  t->schema = schema;
  t->key = k;
  t->limit = limit;
  t->offset = offset;
  t->k = limit + offset;
  t->heap = fl_malloc((t->k ? t->k : 1) * sizeof *t->heap);
  t->store = ty_batch_new(schema, 64);
  t->out = ty_batch_new(schema, TY_BATCH_ROWS);
  fl_buf_init(&t->kbuf);
  *out = &t->op;
  return FL_OK;
}
