/*
 * op_values.c - VALUES (and a SELECT without FROM) as a pipeline source
 * (layer 8, exec).
 *
 * Algorithm: every cell is a constant expression; each is compiled and
 * evaluated once (over a one-row batch with no columns) and appended to
 * its column, so VALUES raises the same errors as any expression
 * (VALUES (1/0) fails, as in Trino). run() pushes the batches of at most
 * TY_BATCH_ROWS rows, then finishes the consumer.
 *
 * States: built (all rows held), DONE after run().
 */
#include "base/alloc.h"
#include "exec/op_basic.h"

typedef struct values_src {
  ex_source_t src;
  ex_ctx_t *ctx;
  const ty_schema_t *schema;
  sql_bexpr_t *const *cells;
  uint32_t nrows, ncols;
  ty_batch_t *batch;
} values_src_t;

static int values_run(ex_source_t *s, fl_err_t *err) {
  values_src_t *v = (values_src_t *)s;
  ty_batch_t empty = {.nrows = 1};
  ex_rows_t one = {.nrows = 1, .n = 1};
  int rc;
  for (uint32_t r = 0; r < v->nrows; r++) {
    if (ex_source_stopped(s)) break;
    for (uint32_t c = 0; c < v->ncols; c++) {
      ex_expr_t *x;
      const ty_vec_t *out;
      if ((rc = ex_expr_compile(v->ctx, v->cells[(size_t)r * v->ncols + c], NULL, &x, err)) ||
          (rc = ex_expr_eval(v->ctx, x, &empty, &one, &out, err)))
        return rc;
      ty_vec_append_from(v->batch->cols[c], out, 0);
    }
    v->batch->nrows++;
    if (v->batch->nrows == TY_BATCH_ROWS || r + 1 == v->nrows) {
      if ((rc = ex_op_push(s->next, v->batch, err))) return rc;
      ty_batch_reset(v->batch);
      v->batch->nrows = 0;
    }
  }
  return ex_op_finish(s->next, err);
}

static void values_destroy(ex_source_t *s) {
  values_src_t *v = (values_src_t *)s;
  ty_batch_free(v->batch);
  fl_free(v);
}

int ex_values_source_new(ex_ctx_t *ctx, const ty_schema_t *schema, sql_bexpr_t *const *cells,
                         uint32_t nrows, ex_op_t *next, const bool *stop, ex_source_t **out,
                         fl_err_t *err) {
  values_src_t *v = fl_calloc(1, sizeof *v);
  v->src.run = values_run;
  v->src.destroy = values_destroy;
  v->src.next = next;
  v->src.stop = stop;
  v->ctx = ctx;
  v->schema = schema;
  v->cells = cells;
  v->nrows = nrows;
  v->ncols = schema->root.nfields;
  v->batch = ty_batch_new(schema, nrows < TY_BATCH_ROWS ? (nrows ? nrows : 1) : TY_BATCH_ROWS);
  *out = &v->src;
  return FL_OK;
}
