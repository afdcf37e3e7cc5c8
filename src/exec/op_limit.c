/*
 * op_limit.c - LIMIT and OFFSET (layer 8, exec).
 *
 * Algorithm: count live rows as they pass; drop the first `offset`, pass
 * the next `limit` as a narrowed selection over the input's columns (no
 * copy), then drop everything and raise the pipeline's stop flag so the
 * source reads no further.
 *
 * States: SKIPPING (offset not yet reached), PASSING, DONE.
 */
#include "base/alloc.h"
#include "exec/op_basic.h"

typedef struct limit_op {
  ex_op_t op;
  int64_t limit, offset;
  uint64_t seen, passed;
  bool *stop;
  uint32_t *sel;
  uint32_t cap;
} limit_op_t;

static int limit_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  limit_op_t *l = (limit_op_t *)op;
  uint32_t live = ty_batch_live(b);
  if (l->limit >= 0 && l->passed >= (uint64_t)l->limit) {
    if (l->stop) __atomic_store_n(l->stop, true, __ATOMIC_RELAXED);
    return FL_OK;
  }
  uint32_t skip = 0;
  if (l->seen < (uint64_t)l->offset) {
    uint64_t left = (uint64_t)l->offset - l->seen;
    skip = left >= live ? live : (uint32_t)left;
  }
  l->seen += live;
  uint32_t take = live - skip;
  if (l->limit >= 0 && l->passed + take > (uint64_t)l->limit)
    take = (uint32_t)((uint64_t)l->limit - l->passed);
  if (!take) return FL_OK;
  l->passed += take;
  if (l->limit >= 0 && l->passed >= (uint64_t)l->limit && l->stop)
    __atomic_store_n(l->stop, true, __ATOMIC_RELAXED);
  if (skip == 0 && take == live) return ex_op_emit(op, b, err);
  if (l->cap < take) {
    fl_free(l->sel);
    l->cap = take;
    l->sel = fl_malloc(take * sizeof *l->sel);
  }
  for (uint32_t k = 0; k < take; k++) l->sel[k] = b->sel ? b->sel[skip + k] : skip + k;
  ty_batch_t out = *b;
  out.sel = l->sel;
  out.nsel = take;
  out.sel_cap = l->cap;
  return ex_op_emit(op, &out, err);
}

static int limit_watermark(ex_op_t *op, int64_t ts, fl_err_t *err) {
  return ex_op_forward_watermark(op, ts, err);
}
static int limit_finish(ex_op_t *op, fl_err_t *err) { return ex_op_forward_finish(op, err); }
static int limit_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) {
  limit_op_t *l = (limit_op_t *)op;
  fl_buf_append_le64(w, l->seen);
  fl_buf_append_le64(w, l->passed);
  return FL_OK;
}
static int limit_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  limit_op_t *l = (limit_op_t *)op;
  int rc = fl_rd_le64(r, &l->seen, err);
  return rc ? rc : fl_rd_le64(r, &l->passed, err);
}
static void limit_destroy(ex_op_t *op) {
  limit_op_t *l = (limit_op_t *)op;
  fl_free(l->sel);
  fl_free(l);
}

static const ex_op_vt_t limit_vt = {
    .name = "limit",
    .push = limit_push,
    .watermark = limit_watermark,
    .finish = limit_finish,
    .checkpoint = limit_checkpoint,
    .restore = limit_restore,
    .destroy = limit_destroy,
};

ex_op_t *ex_limit_new(const ty_schema_t *schema, int64_t limit, int64_t offset, bool *stop,
                      ex_op_t *next) {
  limit_op_t *l = fl_calloc(1, sizeof *l);
  l->op.vt = &limit_vt;
  l->op.next = next;
  l->op.out_schema = schema;
  l->limit = limit;
  l->offset = offset;
  l->stop = stop;
  return &l->op;
}
