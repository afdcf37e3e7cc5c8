/*
 * op_unnest.c - UNNEST.
 *
 * Algorithm: per input batch, the array expressions are evaluated over its
 * live rows (a constant array is one row standing for all). For each live
 * row the number of output rows is the largest element count among its
 * arrays (NULL counts 0). Output rows are described by index lists - the
 * input row, and per array the element's position in the array's child
 * vector or -1 for padding - and whenever 2048 have accumulated they are
 * gathered into the output batch and emitted (an outer UNNEST gives a row
 * without elements one row of NULLs): the input columns by one
 * gather, the element columns element by element, the ordinality as a
 * counter. A row with a million elements thus streams out in batches.
 *
 * States: one, streaming. Nothing to checkpoint: nothing is held between
 * batches.
 */
#include "exec/op_unnest.h"

#include "base/alloc.h"
#include "exec/ex_vec.h"

typedef struct unnest_op {
  ex_op_t op;
  ex_ctx_t *ctx;
  ex_expr_t **exprs;
  uint32_t n, nin;
  bool ordinality, outer;
  const ty_vec_t **arrays; /* per batch: the evaluated arrays */
  uint32_t *rows;          /* output row -> input row */
  int64_t **elems;         /* per array: output row -> element index, -1: NULL */
  int64_t *ord;
  uint32_t nout;
  ty_batch_t *out;
} unnest_op_t;

static int flush(unnest_op_t *u, const ty_batch_t *b, fl_err_t *err) {
  if (!u->nout) return FL_OK;
  ty_batch_t *o = u->out;
  ty_batch_reset(o);
  for (uint32_t c = 0; c < u->nin; c++) ex_vec_gather(o->cols[c], b->cols[c], u->rows, u->nout);
  for (uint32_t j = 0; j < u->n; j++) {
    ty_vec_t *dst = o->cols[u->nin + j];
    const ty_vec_t *child = u->arrays[j]->children[0];
    for (uint32_t k = 0; k < u->nout; k++) {
      if (u->elems[j][k] < 0)
        ty_vec_append_null(dst);
      else
        ty_vec_append_from(dst, child, (uint32_t)u->elems[j][k]);
    }
  }
  if (u->ordinality)
    for (uint32_t k = 0; k < u->nout; k++) {
      if (u->ord[k] < 0)
        ty_vec_append_null(o->cols[u->nin + u->n]);
      else
        ty_vec_append_i64(o->cols[u->nin + u->n], u->ord[k]);
    }
  ty_batch_seal(o);
  u->nout = 0;
  return ex_op_emit(&u->op, o, err);
}

static int unnest_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  unnest_op_t *u = (unnest_op_t *)op;
  ex_rows_t rows = {.nrows = b->nrows, .sel = b->sel, .n = ty_batch_live(b)};
  if (!rows.n) return FL_OK;
  for (uint32_t j = 0; j < u->n; j++) {
    int rc = ex_expr_eval(u->ctx, u->exprs[j], b, &rows, &u->arrays[j], err);
    if (rc) return rc;
  }
  for (uint32_t k = 0; k < rows.n; k++) {
    uint32_t r = b->sel ? b->sel[k] : k;
    int64_t len = 0;
    for (uint32_t j = 0; j < u->n; j++) {
      const ty_vec_t *a = u->arrays[j];
      uint32_t ar = a->len == 1 ? 0 : r;
      if (ty_vec_is_null(a, ar)) continue;
      int64_t l = a->offsets[ar + 1] - a->offsets[ar];
      if (l > len) len = l;
    }
    if (!len && u->outer) {
      /* No elements: one row of NULLs (ordinality -1 marks it). */
      u->rows[u->nout] = r;
      for (uint32_t j = 0; j < u->n; j++) u->elems[j][u->nout] = -1;
      u->ord[u->nout] = -1;
      if (++u->nout == TY_BATCH_ROWS) {
        int rc = flush(u, b, err);
        if (rc) return rc;
      }
    }
    for (int64_t i = 0; i < len; i++) {
      u->rows[u->nout] = r;
      for (uint32_t j = 0; j < u->n; j++) {
        const ty_vec_t *a = u->arrays[j];
        uint32_t ar = a->len == 1 ? 0 : r;
        bool has = !ty_vec_is_null(a, ar) && i < a->offsets[ar + 1] - a->offsets[ar];
        u->elems[j][u->nout] = has ? a->offsets[ar] + i : -1;
      }
      u->ord[u->nout] = i + 1;
      if (++u->nout == TY_BATCH_ROWS) {
        int rc = flush(u, b, err);
        if (rc) return rc;
      }
    }
  }
  return flush(u, b, err);
}

static int unnest_watermark(ex_op_t *op, int64_t ts, fl_err_t *err) {
  return ex_op_forward_watermark(op, ts, err);
}
static int unnest_finish(ex_op_t *op, fl_err_t *err) { return ex_op_forward_finish(op, err); }
static int unnest_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) {
  (void)op;
  (void)w;
  (void)err;
  return FL_OK;
}
static int unnest_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  (void)op;
  (void)r;
  (void)err;
  return FL_OK;
}

static void unnest_destroy(ex_op_t *op) {
  unnest_op_t *u = (unnest_op_t *)op;
  for (uint32_t j = 0; j < u->n; j++) fl_free(u->elems[j]);
  fl_free(u->elems);
  fl_free(u->exprs);
  fl_free(u->arrays);
  fl_free(u->rows);
  fl_free(u->ord);
  ty_batch_free(u->out);
  fl_free(u);
}

static const ex_op_vt_t unnest_vt = {
    .name = "unnest",
    .push = unnest_push,
    .watermark = unnest_watermark,
    .finish = unnest_finish,
    .checkpoint = unnest_checkpoint,
    .restore = unnest_restore,
    .destroy = unnest_destroy,
};

int ex_unnest_new(ex_ctx_t *ctx, const ty_schema_t *in, const ty_schema_t *out_schema,
                  sql_bexpr_t *const *exprs, uint32_t n, bool ordinality, bool outer, ex_op_t *next,
                  ex_op_t **out, fl_err_t *err) {
  uint32_t nin = in->root.nfields;
  if (out_schema->root.nfields != nin + n + (ordinality ? 1 : 0))
    return fl_err_set(err, FL_EINTERNAL, "unnest: %u output columns for %u inputs and %u arrays",
                      out_schema->root.nfields, nin, n);
  unnest_op_t *u = fl_calloc(1, sizeof *u);
  u->op.vt = &unnest_vt;
  u->op.next = next;
  u->op.out_schema = out_schema;
  u->ctx = ctx;
  u->n = n;
  u->nin = nin;
  u->ordinality = ordinality;
  u->outer = outer;
  u->exprs = fl_calloc(n ? n : 1, sizeof *u->exprs);
  u->arrays = fl_calloc(n ? n : 1, sizeof *u->arrays);
  u->elems = fl_calloc(n ? n : 1, sizeof *u->elems);
  for (uint32_t j = 0; j < n; j++) u->elems[j] = fl_calloc(TY_BATCH_ROWS, sizeof **u->elems);
  u->rows = fl_calloc(TY_BATCH_ROWS, sizeof *u->rows);
  u->ord = fl_calloc(TY_BATCH_ROWS, sizeof *u->ord);
  u->out = ty_batch_new(out_schema, TY_BATCH_ROWS);
  for (uint32_t j = 0; j < n; j++) {
    int rc = ex_expr_compile(ctx, exprs[j], in, &u->exprs[j], err);
    if (!rc && ex_expr_storage(u->exprs[j])->kind != TY_LIST)
      rc = fl_err_set(err, FL_EINVALID, "unnest: argument %u is not an array", j + 1);
    if (rc) {
      unnest_destroy(&u->op);
      return rc;
    }
  }
  *out = &u->op;
  return FL_OK;
}
