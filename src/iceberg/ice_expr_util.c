/*
 * ice_expr_util.c - building, rewriting and printing expression trees,
 * and what other modules take from them: the Parquet reader's pruning
 * terms and the referenced field ids (layer 5, iceberg).
 *
 * Builders simplify constants as they go (AND with FALSE is FALSE, OR
 * with TRUE is TRUE, NOT of a constant is the other constant), which is
 * exact under SQL's three-valued logic too. ice_expr_rewrite_not pushes
 * NOT down to the predicates: NOT (a < 1) is a >= 1, NOT (a IN (..)) is
 * a NOT IN (..), De Morgan for AND and OR; each step keeps the truth
 * value, unknown included. For float and double columns NOT (a < 1) is
 * a >= 1 OR a IS NAN, since NaN fails every ordering comparison.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "iceberg/ice_expr_int.h"

ice_op_t ice__op_negate(ice_op_t op) {
  switch (op) {
    case ICE_OP_EQ: return ICE_OP_NE;
    case ICE_OP_NE: return ICE_OP_EQ;
    case ICE_OP_LT: return ICE_OP_GE;
    case ICE_OP_LE: return ICE_OP_GT;
    case ICE_OP_GT: return ICE_OP_LE;
    case ICE_OP_GE: return ICE_OP_LT;
    case ICE_OP_IS_NULL: return ICE_OP_NOT_NULL;
    case ICE_OP_NOT_NULL: return ICE_OP_IS_NULL;
    case ICE_OP_IS_NAN: return ICE_OP_NOT_NAN;
    case ICE_OP_NOT_NAN: return ICE_OP_IS_NAN;
    case ICE_OP_IN: return ICE_OP_NOT_IN;
    case ICE_OP_NOT_IN: return ICE_OP_IN;
    case ICE_OP_STARTS_WITH: return ICE_OP_NOT_STARTS_WITH;
    case ICE_OP_NOT_STARTS_WITH: return ICE_OP_STARTS_WITH;
  }
  return op;
}

ice_op_t ice__op_flip(ice_op_t op) {
  switch (op) {
    case ICE_OP_LT: return ICE_OP_GT;
    case ICE_OP_LE: return ICE_OP_GE;
    case ICE_OP_GT: return ICE_OP_LT;
    case ICE_OP_GE: return ICE_OP_LE;
    default: return op;
  }
}

bool ice__op_unary(ice_op_t op) {
  return op == ICE_OP_IS_NULL || op == ICE_OP_NOT_NULL || op == ICE_OP_IS_NAN ||
         op == ICE_OP_NOT_NAN;
}

const char *ice__op_text(ice_op_t op) {
  switch (op) {
    case ICE_OP_EQ: return "=";
    case ICE_OP_NE: return "!=";
    case ICE_OP_LT: return "<";
    case ICE_OP_LE: return "<=";
    case ICE_OP_GT: return ">";
    case ICE_OP_GE: return ">=";
    case ICE_OP_IS_NULL: return "IS NULL";
    case ICE_OP_NOT_NULL: return "IS NOT NULL";
    case ICE_OP_IS_NAN: return "IS NAN";
    case ICE_OP_NOT_NAN: return "IS NOT NAN";
    case ICE_OP_IN: return "IN";
    case ICE_OP_NOT_IN: return "NOT IN";
    case ICE_OP_STARTS_WITH: return "STARTS WITH";
    case ICE_OP_NOT_STARTS_WITH: return "NOT STARTS WITH";
  }
  return "?";
}

bool ice__val_is_nan(const ty_value_t *v) {
  if (v->is_null) return false;
  if (v->kind == TY_FLOAT) return isnan(v->u.f32);
  if (v->kind == TY_DOUBLE) return isnan(v->u.f64);
  return false;
}

static int cmp_fp(double a, double b) {
  bool na = isnan(a), nb = isnan(b);
  if (na || nb) return (int)na - (int)nb;
  return (a > b) - (a < b);
}

int ice__val_cmp(const ty_value_t *a, const ty_value_t *b) {
  if (a->kind == TY_FLOAT) return cmp_fp(a->u.f32, b->u.f32);
  if (a->kind == TY_DOUBLE) return cmp_fp(a->u.f64, b->u.f64);
  return ty_value_cmp(a, b);
}

bool ice__starts_with(const ty_value_t *s, const ty_value_t *prefix) {
  return s->u.bytes.n >= prefix->u.bytes.n &&
         (prefix->u.bytes.n == 0 || memcmp(s->u.bytes.p, prefix->u.bytes.p, prefix->u.bytes.n) == 0);
}

static int cmp_qsort(const void *x, const void *y) { return ice__val_cmp(x, y); }

uint32_t ice__sort_dedup(ty_value_t *v, uint32_t n) {
  if (n < 2) return n;
  qsort(v, n, sizeof *v, cmp_qsort);
  uint32_t w = 1;
  for (uint32_t i = 1; i < n; i++)
    if (ice__val_cmp(&v[w - 1], &v[i]) != 0) v[w++] = v[i];
  return w;
}

int ice__find_struct_path(const ty_type_t *st, int32_t id, uint32_t *path, int cap) {
  if (cap <= 0 || st->kind != TY_STRUCT) return 0;
  for (uint32_t i = 0; i < st->nfields; i++) {
    const ty_field_t *f = &st->fields[i];
    if (f->id == id) {
      path[0] = i;
      return 1;
    }
    if (f->type->kind == TY_STRUCT) {
      int d = ice__find_struct_path(f->type, id, path + 1, cap - 1);
      if (d) {
        path[0] = i;
        return d + 1;
      }
    }
  }
  return 0;
}

/* ---- builders ---- */

static ice_expr_t *node(fl_arena_t *a, ice_expr_kind_t k) {
  ice_expr_t *e = fl_arena_zalloc(a, sizeof *e);
  e->kind = k;
  return e;
}

ice_expr_t *ice_expr_const(fl_arena_t *a, bool value) {
  return node(a, value ? ICE_E_TRUE : ICE_E_FALSE);
}

ice_expr_t *ice_expr_and(fl_arena_t *a, ice_expr_t *l, ice_expr_t *r) {
  if (l->kind == ICE_E_FALSE || r->kind == ICE_E_TRUE) return l;
  if (r->kind == ICE_E_FALSE || l->kind == ICE_E_TRUE) return r;
  ice_expr_t *e = node(a, ICE_E_AND);
  e->left = l;
  e->right = r;
  return e;
}

ice_expr_t *ice_expr_or(fl_arena_t *a, ice_expr_t *l, ice_expr_t *r) {
  if (l->kind == ICE_E_TRUE || r->kind == ICE_E_FALSE) return l;
  if (r->kind == ICE_E_TRUE || l->kind == ICE_E_FALSE) return r;
  ice_expr_t *e = node(a, ICE_E_OR);
  e->left = l;
  e->right = r;
  return e;
}

ice_expr_t *ice_expr_not(fl_arena_t *a, ice_expr_t *x) {
  if (x->kind == ICE_E_TRUE) return ice_expr_const(a, false);
  if (x->kind == ICE_E_FALSE) return ice_expr_const(a, true);
  if (x->kind == ICE_E_NOT) return x->left;
  ice_expr_t *e = node(a, ICE_E_NOT);
  e->left = x;
  return e;
}

ice_expr_t *ice__pred_new(fl_arena_t *a, ice_op_t op, int32_t field_id, const ty_type_t *type,
                          const ty_value_t *values, uint32_t n) {
  ice_expr_t *e = node(a, ICE_E_PRED);
  e->op = op;
  e->field_id = field_id;
  e->type = type;
  e->nlits = n;
  if (n) {
    e->values = fl_arena_memdup(a, values, n * sizeof *values);
    if (op == ICE_OP_IN || op == ICE_OP_NOT_IN) e->nlits = ice__sort_dedup(e->values, n);
  }
  return e;
}

ice_expr_t *ice_expr_pred(fl_arena_t *a, ice_op_t op, int32_t field_id, const ty_type_t *type,
                          const ty_value_t *values, uint32_t nvalues) {
  return ice__pred_new(a, op, field_id, type, values, nvalues);
}

static ice_expr_t *rewrite(fl_arena_t *a, const ice_expr_t *e, bool negate) {
  switch (e->kind) {
    case ICE_E_TRUE:
    case ICE_E_FALSE: return ice_expr_const(a, (e->kind == ICE_E_TRUE) != negate);
    case ICE_E_NOT: return rewrite(a, e->left, !negate);
    case ICE_E_AND:
    case ICE_E_OR: {
      ice_expr_t *l = rewrite(a, e->left, negate), *r = rewrite(a, e->right, negate);
      bool is_and = (e->kind == ICE_E_AND) != negate;
      return is_and ? ice_expr_and(a, l, r) : ice_expr_or(a, l, r);
    }
    case ICE_E_PRED: {
      ice_expr_t *p = fl_arena_memdup(a, e, sizeof *e);
      if (!negate) return p;
      p->op = ice__op_negate(e->op);
      /* NaN fails x < v and x >= v alike, so NOT (x < v) is x >= v OR x IS NAN. */
      bool fp = e->type && (e->type->kind == TY_FLOAT || e->type->kind == TY_DOUBLE);
      if (fp && e->op >= ICE_OP_LT && e->op <= ICE_OP_GE) {
        ice_expr_t *nan = ice__pred_new(a, ICE_OP_IS_NAN, e->field_id, e->type, NULL, 0);
        nan->column = e->column;
        return ice_expr_or(a, p, nan);
      }
      return p;
    }
  }
  return ice_expr_const(a, true);
}

ice_expr_t *ice_expr_rewrite_not(fl_arena_t *a, const ice_expr_t *e) { return rewrite(a, e, false); }

/* ---- format ---- */

static void format_quoted(fl_buf_t *out, const uint8_t *p, size_t n) {
  fl_buf_append_u8(out, '\'');
  for (size_t i = 0; i < n; i++) {
    if (p[i] == '\'') fl_buf_append_u8(out, '\'');
    fl_buf_append_u8(out, p[i]);
  }
  fl_buf_append_u8(out, '\'');
}

static void format_value(const ty_type_t *t, const ty_value_t *v, fl_buf_t *out) {
  switch (v->kind) {
    case TY_BOOLEAN:
    case TY_INT:
    case TY_LONG:
    case TY_FLOAT:
    case TY_DOUBLE:
    case TY_DECIMAL: ty_value_format(t, v, out); return;
    case TY_STRING: format_quoted(out, v->u.bytes.p, v->u.bytes.n); return;
    default: {
      fl_buf_t tmp;
      fl_buf_init(&tmp);
      ty_value_format(t, v, &tmp);
      format_quoted(out, tmp.data, tmp.len);
      fl_buf_free(&tmp);
    }
  }
}

static void format_lit(const ice_literal_t *l, fl_buf_t *out) {
  switch (l->kind) {
    case ICE_LIT_INT:
    case ICE_LIT_NUMBER:
    case ICE_LIT_BOOL: fl_buf_append_str(out, l->text); return;
    case ICE_LIT_TIMESTAMP: fl_buf_append_str(out, "TIMESTAMP "); break;
    case ICE_LIT_DATE: fl_buf_append_str(out, "DATE "); break;
    case ICE_LIT_STRING: break;
  }
  format_quoted(out, (const uint8_t *)l->text, strlen(l->text));
}

static void format_column(const ice_expr_t *e, fl_buf_t *out) {
  if (!e->column) {
    fl_buf_printf(out, "$%d", e->field_id);
    return;
  }
  const char *s = e->column;
  bool plain = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_';
  for (const char *q = s; *q && plain; q++)
    plain = (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
            *q == '_' || *q == '.';
  if (plain) {
    fl_buf_append_str(out, s);
    return;
  }
  fl_buf_append_u8(out, '"');
  for (const char *q = s; *q; q++) {
    if (*q == '"') fl_buf_append_u8(out, '"');
    fl_buf_append_u8(out, (uint8_t)*q);
  }
  fl_buf_append_u8(out, '"');
}

static void format_one(const ice_expr_t *e, fl_buf_t *out, bool top) {
  switch (e->kind) {
    case ICE_E_TRUE: fl_buf_append_str(out, "TRUE"); return;
    case ICE_E_FALSE: fl_buf_append_str(out, "FALSE"); return;
    case ICE_E_NOT:
      fl_buf_append_str(out, "NOT ");
      format_one(e->left, out, false);
      return;
    case ICE_E_AND:
    case ICE_E_OR:
      fl_buf_append_u8(out, '(');
      format_one(e->left, out, false);
      fl_buf_append_str(out, e->kind == ICE_E_AND ? " AND " : " OR ");
      format_one(e->right, out, false);
      fl_buf_append_u8(out, ')');
      return;
    case ICE_E_PRED: break;
  }
  (void)top;
  format_column(e, out);
  fl_buf_append_u8(out, ' ');
  fl_buf_append_str(out, ice__op_text(e->op));
  if (ice__op_unary(e->op)) return;
  fl_buf_append_u8(out, ' ');
  bool list = e->op == ICE_OP_IN || e->op == ICE_OP_NOT_IN;
  if (list) fl_buf_append_u8(out, '(');
  for (uint32_t i = 0; i < e->nlits; i++) {
    if (i) fl_buf_append_str(out, ", ");
    if (e->values)
      format_value(e->type, &e->values[i], out);
    else if (e->lits)
      format_lit(&e->lits[i], out);
  }
  if (list) fl_buf_append_u8(out, ')');
}

void ice_expr_format(const ice_expr_t *e, fl_buf_t *out) { format_one(e, out, true); }

/* ---- what other modules take ---- */

static bool pq_prunable(const ice_expr_t *p) {
  return p->type && !ty_is_nested(p->type) && p->field_id > 0;
}

static void add_term(fl_arena_t *a, pq_pred_term_t **terms, uint32_t *n, uint32_t *cap,
                     int32_t id, pq_pred_op_t op, const ty_value_t *v) {
  if (*n == *cap) {
    uint32_t nc = *cap ? *cap * 2 : 8;
    pq_pred_term_t *t = fl_arena_alloc(a, nc * sizeof *t);
    if (*n) memcpy(t, *terms, *n * sizeof *t);
    *terms = t;
    *cap = nc;
  }
  pq_pred_term_t *t = &(*terms)[(*n)++];
  memset(t, 0, sizeof *t);
  t->field_id = id;
  t->op = op;
  if (v) t->value = *v;
}

static void collect_terms(fl_arena_t *a, const ice_expr_t *e, pq_pred_term_t **terms, uint32_t *n,
                          uint32_t *cap) {
  if (e->kind == ICE_E_AND) {
    collect_terms(a, e->left, terms, n, cap);
    collect_terms(a, e->right, terms, n, cap);
    return;
  }
  if (e->kind != ICE_E_PRED || !pq_prunable(e)) return;
  int32_t id = e->field_id;
  switch (e->op) {
    case ICE_OP_EQ: add_term(a, terms, n, cap, id, PQ_OP_EQ, &e->values[0]); break;
    case ICE_OP_LT: add_term(a, terms, n, cap, id, PQ_OP_LT, &e->values[0]); break;
    case ICE_OP_LE: add_term(a, terms, n, cap, id, PQ_OP_LE, &e->values[0]); break;
    case ICE_OP_GT: add_term(a, terms, n, cap, id, PQ_OP_GT, &e->values[0]); break;
    case ICE_OP_GE: add_term(a, terms, n, cap, id, PQ_OP_GE, &e->values[0]); break;
    case ICE_OP_IS_NULL: add_term(a, terms, n, cap, id, PQ_OP_IS_NULL, NULL); break;
    case ICE_OP_NOT_NULL: add_term(a, terms, n, cap, id, PQ_OP_NOT_NULL, NULL); break;
    case ICE_OP_IN:
      /* The sorted list's ends bound every matching value. */
      if (e->nlits == 0) break;
      add_term(a, terms, n, cap, id, PQ_OP_GE, &e->values[0]);
      add_term(a, terms, n, cap, id, PQ_OP_LE, &e->values[e->nlits - 1]);
      break;
    case ICE_OP_STARTS_WITH:
      /* Every string with the prefix sorts at or after it. */
      add_term(a, terms, n, cap, id, PQ_OP_GE, &e->values[0]);
      break;
    default: break;
  }
}

void ice_expr_pq_terms(fl_arena_t *a, const ice_expr_t *e, pq_pred_term_t **terms, uint32_t *n) {
  uint32_t cap = 0;
  *terms = NULL;
  *n = 0;
  collect_terms(a, e, terms, n, &cap);
}

static void collect_ids(fl_arena_t *a, const ice_expr_t *e, int32_t **ids, uint32_t *n,
                        uint32_t *cap) {
  if (e->left) collect_ids(a, e->left, ids, n, cap);
  if (e->right) collect_ids(a, e->right, ids, n, cap);
  if (e->kind != ICE_E_PRED || e->field_id == 0) return;
  for (uint32_t i = 0; i < *n; i++)
    if ((*ids)[i] == e->field_id) return;
  if (*n == *cap) {
    uint32_t nc = *cap ? *cap * 2 : 8;
    int32_t *t = fl_arena_alloc(a, nc * sizeof *t);
    if (*n) memcpy(t, *ids, *n * sizeof *t);
    *ids = t;
    *cap = nc;
  }
  (*ids)[(*n)++] = e->field_id;
}

void ice_expr_field_ids(fl_arena_t *a, const ice_expr_t *e, int32_t **ids, uint32_t *n) {
  uint32_t cap = 0;
  *ids = NULL;
  *n = 0;
  collect_ids(a, e, ids, n, &cap);
}
