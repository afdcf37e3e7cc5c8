/*
 * op_union.c - UNION ALL (layer 8, exec).
 *
 * Algorithm: several producers push into the one operator, which forwards
 * each batch unchanged; the binder has already cast every input to the
 * same column types. finish() reaches the consumer only after the last
 * producer has finished. UNION (distinct) is this followed by an
 * aggregation over all columns.
 *
 * States: OPEN (some producer still running), FINISHED.
 */
#include "base/alloc.h"
#include "exec/op_basic.h"

typedef struct union_op {
  ex_op_t op;
  uint32_t ninputs, finished;
} union_op_t;

static int union_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  return ex_op_emit(op, b, err);
}
static int union_watermark(ex_op_t *op, int64_t ts, fl_err_t *err) {
  return ex_op_forward_watermark(op, ts, err);
}
static int union_finish(ex_op_t *op, fl_err_t *err) {
  union_op_t *u = (union_op_t *)op;
  if (++u->finished < u->ninputs) return FL_OK;
  return ex_op_forward_finish(op, err);
}
static int union_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) {
  fl_buf_append_le32(w, ((union_op_t *)op)->finished);
  return FL_OK;
}
static int union_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  return fl_rd_le32(r, &((union_op_t *)op)->finished, err);
}
static void union_destroy(ex_op_t *op) { fl_free(op); }

static const ex_op_vt_t union_vt = {
    .name = "union",
    .push = union_push,
    .watermark = union_watermark,
    .finish = union_finish,
    .checkpoint = union_checkpoint,
    .restore = union_restore,
    .destroy = union_destroy,
};

ex_op_t *ex_union_new(const ty_schema_t *schema, uint32_t ninputs, ex_op_t *next) {
  union_op_t *u = fl_calloc(1, sizeof *u);
  u->op.vt = &union_vt;
  u->op.next = next;
  u->op.out_schema = schema;
  u->ninputs = ninputs;
  return &u->op;
}
