/*
 * op_project.c - the projection operator (layer 8, exec).
 *
 * Algorithm: evaluate each output expression over the live rows of the
 * input batch and pass on a batch of the results under the input's
 * selection. A column reference passes the input vector itself; a
 * constant is broadcast into a vector of the batch's row count, because
 * downstream operators index columns by row. A call or cast that several
 * outputs contain is computed once per batch (ex_cse_t).
 *
 * States: one, streaming. Nothing to checkpoint.
 */
#include "base/alloc.h"
#include "exec/op_basic.h"

typedef struct project_op {
  ex_op_t op;
  ex_ctx_t *ctx;
  ex_expr_t **exprs;
  ex_cse_t *cse; /* subexpressions the outputs share */
  uint32_t n;
  ty_vec_t **bcast; /* per constant column: the broadcast values */
  ty_vec_t **cols;  /* the output batch's column pointers */
} project_op_t;

static int project_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  project_op_t *p = (project_op_t *)op;
  ex_rows_t rows = {.nrows = b->nrows, .sel = b->sel, .n = ty_batch_live(b)};
  if (!rows.n) return FL_OK;
  ex_cse_next_batch(p->cse);
  for (uint32_t i = 0; i < p->n; i++) {
    const ty_vec_t *v;
    int rc = ex_expr_eval(p->ctx, p->exprs[i], b, &rows, &v, err);
    if (rc) return rc;
    if (v->len != b->nrows) {
      /* A constant (one row) under a batch of more rows. */
      ty_vec_t *c = p->bcast[i];
      if (!c) c = p->bcast[i] = ty_vec_new(v->type, b->nrows);
      ty_vec_reset(c);
      for (uint32_t r = 0; r < b->nrows; r++) ty_vec_append_from(c, v, 0);
      v = c;
    }
    p->cols[i] = (ty_vec_t *)v;
  }
  ty_batch_t out = {.schema = op->out_schema,
                    .ncols = p->n,
                    .cols = p->cols,
                    .nrows = b->nrows,
                    .sel = b->sel,
                    .nsel = b->nsel,
                    .sel_cap = b->sel_cap};
  return ex_op_emit(op, &out, err);
}

static int project_watermark(ex_op_t *op, int64_t ts, fl_err_t *err) {
  return ex_op_forward_watermark(op, ts, err);
}
static int project_finish(ex_op_t *op, fl_err_t *err) { return ex_op_forward_finish(op, err); }
static int project_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) { return FL_OK; }
static int project_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) { return FL_OK; }
static void project_destroy(ex_op_t *op) {
  project_op_t *p = (project_op_t *)op;
  for (uint32_t i = 0; i < p->n; i++) ty_vec_free(p->bcast[i]);
  fl_free(p->bcast);
  fl_free(p->cols);
  fl_free(p->exprs);
  fl_free(p);
}

static const ex_op_vt_t project_vt = {
    .name = "project",
    .push = project_push,
    .watermark = project_watermark,
    .finish = project_finish,
    .checkpoint = project_checkpoint,
    .restore = project_restore,
    .destroy = project_destroy,
};

int ex_project_new(ex_ctx_t *ctx, const ty_schema_t *in, const ty_schema_t *out_schema,
                   sql_bexpr_t *const *exprs, uint32_t n, ex_op_t *next, ex_op_t **out,
                   fl_err_t *err) {
  project_op_t *p = fl_calloc(1, sizeof *p);
  p->op.vt = &project_vt;
  p->op.next = next;
  p->op.out_schema = out_schema;
  p->ctx = ctx;
  p->n = n;
  p->exprs = fl_calloc(n ? n : 1, sizeof *p->exprs);
  p->bcast = fl_calloc(n ? n : 1, sizeof *p->bcast);
  p->cols = fl_calloc(n ? n : 1, sizeof *p->cols);
  p->cse = ex_cse_new(ctx);
  for (uint32_t i = 0; i < n; i++) {
    int rc = ex_expr_compile_cse(ctx, exprs[i], in, p->cse, &p->exprs[i], err);
    if (rc) {
      project_destroy(&p->op);
      return rc;
    }
  }
  *out = &p->op;
  return FL_OK;
}
