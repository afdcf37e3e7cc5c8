/*
 * op_filter.c - the filter operator (layer 8, exec).
 *
 * Algorithm: for each input batch, evaluate the predicate over the batch's
 * live rows (its selection, or all rows) and collect the rows where it is
 * TRUE - not FALSE, not NULL - into a selection vector (ex_expr_select: a
 * conjunction narrows the selection operand by operand, so each operand
 * runs only on the rows the ones before it kept). The output batch
 * is the input's columns under that selection: no row is copied. A batch
 * with no row left is not passed on.
 *
 * States: one, streaming; finish() is forwarded as it comes. Nothing to
 * checkpoint.
 */
#include "base/alloc.h"
#include "exec/op_basic.h"

typedef struct filter_op {
  ex_op_t op;
  ex_ctx_t *ctx;
  ex_expr_t *pred;
  uint32_t *sel;
  uint32_t cap;
} filter_op_t;

static int filter_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  filter_op_t *f = (filter_op_t *)op;
  ex_rows_t rows = {.nrows = b->nrows, .sel = b->sel, .n = ty_batch_live(b)};
  if (!rows.n) return FL_OK;
  if (f->cap < rows.n) {
    fl_free(f->sel);
    f->cap = rows.n < TY_BATCH_ROWS ? TY_BATCH_ROWS : rows.n;
    f->sel = fl_malloc(f->cap * sizeof *f->sel);
  }
  uint32_t n;
  int rc = ex_expr_select(f->ctx, f->pred, b, &rows, f->sel, &n, err);
  if (rc) return rc;
  if (!n) return FL_OK;
  ty_batch_t out = *b;
  out.sel = f->sel;
  out.nsel = n;
  out.sel_cap = f->cap;
  return ex_op_emit(op, &out, err);
}

static int filter_watermark(ex_op_t *op, int64_t ts, fl_err_t *err) {
  return ex_op_forward_watermark(op, ts, err);
}
static int filter_finish(ex_op_t *op, fl_err_t *err) { return ex_op_forward_finish(op, err); }
static int filter_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) { return FL_OK; }
static int filter_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) { return FL_OK; }
static void filter_destroy(ex_op_t *op) {
  filter_op_t *f = (filter_op_t *)op;
  fl_free(f->sel);
  fl_free(f);
}

static const ex_op_vt_t filter_vt = {
    .name = "filter",
    .push = filter_push,
    .watermark = filter_watermark,
    .finish = filter_finish,
    .checkpoint = filter_checkpoint,
    .restore = filter_restore,
    .destroy = filter_destroy,
};

int ex_filter_new(ex_ctx_t *ctx, const ty_schema_t *in, const sql_bexpr_t *pred, ex_op_t *next,
                  ex_op_t **out, fl_err_t *err) {
  ex_expr_t *x;
  int rc = ex_expr_compile_pred(ctx, pred, in, &x, err);
  if (rc) return rc;
  filter_op_t *f = fl_calloc(1, sizeof *f);
  f->op.vt = &filter_vt;
  f->op.next = next;
  f->op.out_schema = in;
  f->ctx = ctx;
  f->pred = x;
  *out = &f->op;
  return FL_OK;
}
