/*
 * ice_expr_eval.c - evaluating bound filters on batches (layer 5,
 * iceberg).
 *
 * Column at a time: each predicate runs one loop over the live rows of
 * its column (typed loops for the fixed-width numeric kinds, a value at a
 * time otherwise) and writes a truth byte per row; AND, OR combine those
 * arrays as min and max of false < unknown < true, which is SQL's
 * three-valued logic. Rows whose final truth is true are selected.
 *
 * Semantics per row: comparisons, IN and STARTS WITH with a null value
 * are unknown; IS [NOT] NULL never is; IS [NOT] NAN of null is unknown.
 * A NaN value satisfies no comparison except != (IEEE, and what Iceberg's
 * metrics evaluators assume); -0.0 equals 0.0. A nested field is null
 * when any struct above it is.
 */
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "iceberg/ice_expr_int.h"

static int cmp_to_tri(ice_op_t op, int c) {
  bool r;
  switch (op) {
    case ICE_OP_EQ: r = c == 0; break;
    case ICE_OP_NE: r = c != 0; break;
    case ICE_OP_LT: r = c < 0; break;
    case ICE_OP_LE: r = c <= 0; break;
    case ICE_OP_GT: r = c > 0; break;
    case ICE_OP_GE: r = c >= 0; break;
    default: r = false;
  }
  return r ? ICE__T : ICE__F;
}

static bool in_sorted(const ty_value_t *vals, uint32_t n, const ty_value_t *v) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    int c = ice__val_cmp(&vals[mid], v);
    if (c == 0) return true;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return false;
}

int ice__pred_eval_value(const ice_expr_t *p, const ty_value_t *v) {
  switch (p->op) {
    case ICE_OP_IS_NULL: return v->is_null ? ICE__T : ICE__F;
    case ICE_OP_NOT_NULL: return v->is_null ? ICE__F : ICE__T;
    default: break;
  }
  if (v->is_null) return ICE__U;
  bool nan = ice__val_is_nan(v);
  switch (p->op) {
    case ICE_OP_IS_NAN: return nan ? ICE__T : ICE__F;
    case ICE_OP_NOT_NAN: return nan ? ICE__F : ICE__T;
    case ICE_OP_IN: return !nan && in_sorted(p->values, p->nlits, v) ? ICE__T : ICE__F;
    case ICE_OP_NOT_IN: return nan || !in_sorted(p->values, p->nlits, v) ? ICE__T : ICE__F;
    case ICE_OP_STARTS_WITH: return ice__starts_with(v, &p->values[0]) ? ICE__T : ICE__F;
    case ICE_OP_NOT_STARTS_WITH: return ice__starts_with(v, &p->values[0]) ? ICE__F : ICE__T;
    default: break;
  }
  if (nan) return p->op == ICE_OP_NE ? ICE__T : ICE__F;
  return cmp_to_tri(p->op, ice__val_cmp(v, &p->values[0]));
}

typedef struct col_ref {
  const ty_vec_t *vec;
  const ty_vec_t *anc[16]; /* structs above vec */
  int nanc;
} col_ref_t;

static int find_col(const ty_schema_t *schema, const ty_batch_t *b, int32_t id, col_ref_t *out,
                    fl_err_t *err) {
  uint32_t path[16];
  int d = ice__find_struct_path(&schema->root, id, path, 16);
  if (!d || path[0] >= b->ncols)
    return fl_err_set(err, FL_EINVALID, "filter: field id %d is not among the batch's columns", id);
  const ty_vec_t *v = b->cols[path[0]];
  out->nanc = 0;
  for (int i = 1; i < d; i++) {
    if (path[i] >= v->nchildren)
      return fl_err_set(err, FL_EINVALID, "filter: field id %d: batch vector has no child %u", id,
                        path[i]);
    out->anc[out->nanc++] = v;
    v = v->children[path[i]];
  }
  out->vec = v;
  return FL_OK;
}

static inline bool row_null(const col_ref_t *c, uint32_t r) {
  if (c->vec->null_count && ty_vec_is_null(c->vec, r)) return true;
  for (int i = 0; i < c->nanc; i++)
    if (c->anc[i]->null_count && ty_vec_is_null(c->anc[i], r)) return true;
  return false;
}

#define CMP_LOOP(T, lit, ISNAN)                                                   \
  do {                                                                            \
    const T *d = (const T *)c.vec->data;                                          \
    T x = (lit);                                                                  \
    for (uint32_t k = 0; k < m; k++) {                                            \
      uint32_t r = rows[k];                                                       \
      if (row_null(&c, r)) {                                                      \
        out[k] = ICE__U;                                                          \
        continue;                                                                 \
      }                                                                           \
      T y = d[r];                                                                 \
      bool t;                                                                     \
      if (ISNAN(y)) t = op == ICE_OP_NE;                                          \
      else                                                                        \
        switch (op) {                                                             \
          case ICE_OP_EQ: t = y == x; break;                                      \
          case ICE_OP_NE: t = y != x; break;                                      \
          case ICE_OP_LT: t = y < x; break;                                       \
          case ICE_OP_LE: t = y <= x; break;                                      \
          case ICE_OP_GT: t = y > x; break;                                       \
          default: t = y >= x; break;                                             \
        }                                                                         \
      out[k] = t ? ICE__T : ICE__F;                                               \
    }                                                                             \
  } while (0)

#define NO_NAN(y) ((void)(y), false)
#define IS_NAN_F(y) isnan(y)

static int eval_pred(const ice_expr_t *p, const ty_schema_t *schema, const ty_batch_t *b,
                     const uint32_t *rows, uint32_t m, uint8_t *out, fl_err_t *err) {
  col_ref_t c = {0};
  int rc = find_col(schema, b, p->field_id, &c, err);
  if (rc) return rc;
  ice_op_t op = p->op;
  if (op == ICE_OP_IS_NULL || op == ICE_OP_NOT_NULL) {
    for (uint32_t k = 0; k < m; k++)
      out[k] = (row_null(&c, rows[k]) == (op == ICE_OP_IS_NULL)) ? ICE__T : ICE__F;
    return FL_OK;
  }
  if (ty_is_nested(c.vec->type))
    return fl_err_set(err, FL_EINVALID, "filter: field id %d is nested; only null tests apply",
                      p->field_id);
  if (!ice__op_unary(op) && (!p->nlits || c.vec->type->kind != p->values[0].kind))
    return fl_err_set(err, FL_EINVALID, "filter: field id %d is %s in the batch, %s in the filter",
                      p->field_id, ty_kind_name(c.vec->type->kind), ty_kind_name(p->values[0].kind));
  bool cmp = op <= ICE_OP_GE;
  if (cmp) {
    switch (c.vec->type->kind) {
      case TY_INT:
      case TY_DATE: CMP_LOOP(int32_t, p->values[0].u.i32, NO_NAN); return FL_OK;
      case TY_LONG:
      case TY_TIME:
      case TY_TIMESTAMP:
      case TY_TIMESTAMPTZ:
      case TY_TIMESTAMP_NS:
      case TY_TIMESTAMPTZ_NS: CMP_LOOP(int64_t, p->values[0].u.i64, NO_NAN); return FL_OK;
      case TY_DOUBLE: CMP_LOOP(double, p->values[0].u.f64, IS_NAN_F); return FL_OK;
      case TY_FLOAT: CMP_LOOP(float, p->values[0].u.f32, IS_NAN_F); return FL_OK;
      default: break;
    }
  }
  for (uint32_t k = 0; k < m; k++) {
    uint32_t r = rows[k];
    if (row_null(&c, r)) {
      out[k] = ICE__U;
      continue;
    }
    ty_value_t v = ty_value_from_vec(c.vec, r);
    v.is_null = false;
    out[k] = (uint8_t)ice__pred_eval_value(p, &v);
  }
  return FL_OK;
}

static int eval_node(const ice_expr_t *e, const ty_schema_t *schema, const ty_batch_t *b,
                     const uint32_t *rows, uint32_t m, uint8_t *out, fl_err_t *err) {
  switch (e->kind) {
    case ICE_E_TRUE:
    case ICE_E_FALSE: memset(out, e->kind == ICE_E_TRUE ? ICE__T : ICE__F, m); return FL_OK;
    case ICE_E_PRED: return eval_pred(e, schema, b, rows, m, out, err);
    case ICE_E_NOT: {
      int rc = eval_node(e->left, schema, b, rows, m, out, err);
      if (rc) return rc;
      for (uint32_t k = 0; k < m; k++) out[k] = (uint8_t)(ICE__T - out[k]);
      return FL_OK;
    }
    case ICE_E_AND:
    case ICE_E_OR: {
      int rc = eval_node(e->left, schema, b, rows, m, out, err);
      if (rc) return rc;
      uint8_t *tmp = fl_malloc(m ? m : 1);
      rc = eval_node(e->right, schema, b, rows, m, tmp, err);
      if (!rc) {
        if (e->kind == ICE_E_AND)
          for (uint32_t k = 0; k < m; k++) out[k] = out[k] < tmp[k] ? out[k] : tmp[k];
        else
          for (uint32_t k = 0; k < m; k++) out[k] = out[k] > tmp[k] ? out[k] : tmp[k];
      }
      fl_free(tmp);
      return rc;
    }
  }
  return fl_err_set(err, FL_EINTERNAL, "filter: unknown node");
}

int ice_expr_eval_batch(const ice_expr_t *e, const ty_schema_t *schema, const ty_batch_t *b,
                        uint32_t *sel, uint32_t *n, fl_err_t *err) {
  if (!schema) schema = b->schema;
  uint32_t m = ty_batch_live(b);
  *n = 0;
  if (m == 0) return FL_OK;
  uint32_t *rows = fl_malloc(m * sizeof *rows);
  if (b->sel)
    memcpy(rows, b->sel, m * sizeof *rows);
  else
    for (uint32_t k = 0; k < m; k++) rows[k] = k;
  uint8_t *truth = fl_malloc(m);
  int rc = eval_node(e, schema, b, rows, m, truth, err);
  if (!rc) {
    uint32_t w = 0;
    for (uint32_t k = 0; k < m; k++)
      if (truth[k] == ICE__T) sel[w++] = rows[k];
    *n = w;
  }
  fl_free(truth);
  fl_free(rows);
  return rc;
}
