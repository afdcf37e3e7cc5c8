/*
 * op_adapt.c - hands a scan's batches on in the vector layouts of their
 * SQL types (layer 8, exec).
 *
 * Iceberg's fixed(L) is varbinary in SQL; its vectors keep L bytes per
 * value where every varbinary kernel reads offsets into a heap. A scan of
 * a column that holds fixed(L) anywhere (a top-level fixed column, a list
 * of fixed, a struct field) therefore passes through this operator, which
 * copies such columns into vectors of the SQL type's storage
 * (ex_vec_adapt) and passes every other column, and the selection, on
 * unchanged. The copy is per batch and only for those columns.
 *
 * States: one, stateless between batches.
 */
#include "base/alloc.h"
#include "exec/ex_vec.h"
#include "exec/op_basic.h"

typedef struct adapt_op {
  ex_op_t op;
  uint32_t ncols;
  ty_vec_t **owned; /* per column: the adapted vector, NULL where passed on */
  ty_vec_t **cols;  /* the output batch's columns */
} adapt_op_t;

static int adapt_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  adapt_op_t *a = (adapt_op_t *)op;
  if (b->ncols != a->ncols)
    return fl_err_set(err, FL_EINTERNAL, "adapt: batch of %u columns, expected %u", b->ncols,
                      a->ncols);
  for (uint32_t c = 0; c < a->ncols; c++) {
    if (!a->owned[c]) {
      a->cols[c] = b->cols[c];
      continue;
    }
    int rc = ex_vec_adapt(a->owned[c], b->cols[c], err);
    if (rc) return rc;
    a->cols[c] = a->owned[c];
  }
  ty_batch_t out = *b;
  out.schema = op->out_schema;
  out.cols = a->cols;
  return ex_op_emit(op, &out, err);
}

static int adapt_watermark(ex_op_t *op, int64_t ts, fl_err_t *err) {
  return ex_op_forward_watermark(op, ts, err);
}
static int adapt_finish(ex_op_t *op, fl_err_t *err) { return ex_op_forward_finish(op, err); }
static int adapt_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) {
  (void)op, (void)w, (void)err;
  return FL_OK;
}
static int adapt_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  (void)op, (void)r, (void)err;
  return FL_OK;
}
static void adapt_destroy(ex_op_t *op) {
  adapt_op_t *a = (adapt_op_t *)op;
  for (uint32_t c = 0; c < a->ncols; c++) ty_vec_free(a->owned[c]);
  fl_free(a->owned);
  fl_free(a->cols);
  fl_free(a);
}

static const ex_op_vt_t adapt_vt = {
    .name = "adapt",
    .push = adapt_push,
    .watermark = adapt_watermark,
    .finish = adapt_finish,
    .checkpoint = adapt_checkpoint,
    .restore = adapt_restore,
    .destroy = adapt_destroy,
};

ex_op_t *ex_adapt_new(const ty_schema_t *in, const ty_schema_t *out, ex_op_t *next) {
  adapt_op_t *a = fl_calloc(1, sizeof *a);
  a->op.vt = &adapt_vt;
  a->op.next = next;
  a->op.out_schema = out;
  a->ncols = out->root.nfields;
  a->owned = fl_calloc(a->ncols ? a->ncols : 1, sizeof *a->owned);
  a->cols = fl_calloc(a->ncols ? a->ncols : 1, sizeof *a->cols);
  for (uint32_t c = 0; c < a->ncols; c++)
    if (c < in->root.nfields && ex_type_has_fixed(in->root.fields[c].type))
      a->owned[c] = ty_vec_new(out->root.fields[c].type, TY_BATCH_ROWS);
  return &a->op;
}
