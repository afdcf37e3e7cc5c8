/*
 * ice_expr_project.c - projecting bound row filters through a partition
 * spec onto partition values, and testing projected filters on one
 * file's partition tuple (layer 5, iceberg).
 *
 * A predicate on a source column projects through every partition field
 * of that column; the inclusive projections of one predicate are ANDed
 * (any of them may exclude a partition) and the strict ones ORed (any of
 * them proves every row matches). A predicate no field projects becomes
 * TRUE inclusively and FALSE strictly. AND and OR map to themselves, so
 * NOT is pushed to the predicates first.
 *
 * Per transform, as Iceberg's Projections and ProjectionUtil do:
 *   identity           every predicate, unchanged;
 *   bucket             inclusive =, IN; strict !=, NOT IN;
 *   truncate (numbers) and year/month/day/hour: ranges close over the
 *                      boundary's neighbour (x < v is t(x) <= t(v - 1)
 *                      inclusively, t(x) < t(v) strictly), =/IN
 *                      inclusively, !=/NOT IN strictly;
 *   truncate (strings, binary): x < v is t(x) <= t(v) / t(x) < t(v),
 *                      STARTS WITH by the prefix length against the width;
 *   void, unknown      nothing.
 * The temporal transforms then widen (inclusive) or narrow (strict) the
 * result around negative partition values, as Java does for files whose
 * writers (Iceberg 0.10 and older) put pre-1970 values one unit too high.
 */
#include <string.h>

#include "iceberg/ice_expr_int.h"

typedef struct proj {
  fl_arena_t *a;
  const ice_spec_t *spec;
  const ty_type_t *pt;
  bool strict;
} proj_t;

/* v + delta (delta is +1 or -1) in the value's own unit; false on overflow. */
static bool step(const ty_value_t *v, int delta, ty_value_t *out) {
  *out = *v;
  switch (v->kind) {
    case TY_INT:
    case TY_DATE:
      if ((delta > 0 && v->u.i32 == INT32_MAX) || (delta < 0 && v->u.i32 == INT32_MIN)) return false;
      out->u.i32 += delta;
      return true;
    case TY_LONG:
    case TY_TIME:
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS:
      if ((delta > 0 && v->u.i64 == INT64_MAX) || (delta < 0 && v->u.i64 == INT64_MIN)) return false;
      out->u.i64 += delta;
      return true;
    case TY_DECIMAL: out->u.i128 += delta; return true;
    default: return false;
  }
}

/* The transform of v; false when it cannot be computed. */
static bool apply(const ice_transform_t *t, const ty_type_t *src, const ty_value_t *v,
                  ty_value_t *out) {
  fl_err_t err = {0};
  return ice_transform_apply(t, src, v, out, &err) == FL_OK && !out->is_null;
}

static bool is_temporal(ice_transform_kind_t k) {
  return k == ICE_T_YEAR || k == ICE_T_MONTH || k == ICE_T_DAY || k == ICE_T_HOUR;
}

/* Length of a string in code points, of a binary in bytes. */
static size_t lit_len(const ty_value_t *v) {
  if (v->kind != TY_STRING) return v->u.bytes.n;
  size_t n = 0;
  for (size_t i = 0; i < v->u.bytes.n; i++)
    if ((v->u.bytes.p[i] & 0xC0) != 0x80) n++;
  return n;
}

static ice_expr_t *mk(proj_t *P, ice_op_t op, const ty_field_t *pf, const ty_value_t *vals,
                      uint32_t n) {
  return ice__pred_new(P->a, op, pf->id, pf->type, vals, n);
}

/* The temporal value as an int (year/month/hour ints, day dates). */
static int32_t tv(const ty_value_t *v) { return v->u.i32; }

static ty_value_t with_i32(const ty_value_t *like, int32_t x) {
  ty_value_t v = *like;
  v.u.i32 = x;
  return v;
}

/* Java's fixInclusiveTimeProjection / fixStrictTimeProjection over a
 * projected predicate q (NULL: no projection). */
static ice_expr_t *fix_time(proj_t *P, const ty_field_t *pf, ice_expr_t *q) {
  if (!q || q->kind != ICE_E_PRED) return q;
  ty_value_t *v = q->values;
  if (!P->strict) {
    switch (q->op) {
      case ICE_OP_LT:
      case ICE_OP_LE:
        if (tv(&v[0]) < 0) v[0] = with_i32(&v[0], tv(&v[0]) + 1);
        return q;
      case ICE_OP_EQ:
      case ICE_OP_IN: {
        uint32_t n = q->op == ICE_OP_EQ ? 1 : q->nlits;
        bool neg = false;
        ty_value_t *w = fl_arena_alloc(P->a, 2 * n * sizeof *w);
        uint32_t m = 0;
        for (uint32_t i = 0; i < n; i++) {
          w[m++] = v[i];
          if (tv(&v[i]) < 0) {
            neg = true;
            w[m++] = with_i32(&v[i], tv(&v[i]) + 1);
          }
        }
        return neg ? mk(P, ICE_OP_IN, pf, w, m) : q;
      }
      case ICE_OP_NE:
      case ICE_OP_NOT_IN: return NULL;
      default: return q;
    }
  }
  switch (q->op) {
    case ICE_OP_GT:
    case ICE_OP_GE:
      if (tv(&v[0]) <= 0) v[0] = with_i32(&v[0], tv(&v[0]) + 1);
      return q;
    case ICE_OP_EQ:
    case ICE_OP_IN: return NULL;
    case ICE_OP_NE:
    case ICE_OP_NOT_IN: {
      uint32_t n = q->op == ICE_OP_NE ? 1 : q->nlits;
      bool neg = false;
      ty_value_t *w = fl_arena_alloc(P->a, 2 * n * sizeof *w);
      uint32_t m = 0;
      for (uint32_t i = 0; i < n; i++) {
        w[m++] = v[i];
        if (tv(&v[i]) < 0) {
          neg = true;
          w[m++] = with_i32(&v[i], tv(&v[i]) + 1);
        }
      }
      return neg ? mk(P, ICE_OP_NOT_IN, pf, w, m) : q;
    }
    default: return q;
  }
}

/* op t(v) with v first stepped by delta (0: none); NULL when out of range. */
static ice_expr_t *one(proj_t *P, ice_op_t op, const ice_transform_t *t, const ty_type_t *src,
                       const ty_field_t *pf, const ty_value_t *v, int delta) {
  ty_value_t s = *v, r;
  if (delta && !step(v, delta, &s)) return NULL;
  if (!apply(t, src, &s, &r)) return NULL;
  return mk(P, op, pf, &r, 1);
}

/* op {t(v) : v in p's list}. */
static ice_expr_t *set(proj_t *P, ice_op_t op, const ice_transform_t *t, const ty_type_t *src,
                       const ty_field_t *pf, const ice_expr_t *p) {
  ty_value_t *w = fl_arena_alloc(P->a, (p->nlits ? p->nlits : 1) * sizeof *w);
  uint32_t n = p->op == ICE_OP_IN || p->op == ICE_OP_NOT_IN ? p->nlits : 1;
  for (uint32_t i = 0; i < n; i++)
    if (!apply(t, src, &p->values[i], &w[i])) return NULL;
  return mk(P, op, pf, w, n);
}

/* Ordered numbers and times: ProjectionUtil.truncateLong and its strict twin. */
static ice_expr_t *project_number(proj_t *P, const ice_expr_t *p, const ice_transform_t *t,
                                  const ty_field_t *pf) {
  const ty_type_t *src = p->type;
  const ty_value_t *v = p->values;
  if (!P->strict) {
    switch (p->op) {
      case ICE_OP_LT: return one(P, ICE_OP_LE, t, src, pf, v, -1);
      case ICE_OP_LE: return one(P, ICE_OP_LE, t, src, pf, v, 0);
      case ICE_OP_GT: return one(P, ICE_OP_GE, t, src, pf, v, +1);
      case ICE_OP_GE: return one(P, ICE_OP_GE, t, src, pf, v, 0);
      case ICE_OP_EQ: return one(P, ICE_OP_EQ, t, src, pf, v, 0);
      case ICE_OP_IN: return set(P, ICE_OP_IN, t, src, pf, p);
      default: return NULL;
    }
  }
  switch (p->op) {
    case ICE_OP_LT: return one(P, ICE_OP_LT, t, src, pf, v, 0);
    case ICE_OP_LE: return one(P, ICE_OP_LT, t, src, pf, v, +1);
    case ICE_OP_GT: return one(P, ICE_OP_GT, t, src, pf, v, 0);
    case ICE_OP_GE: return one(P, ICE_OP_GT, t, src, pf, v, -1);
    case ICE_OP_NE: return one(P, ICE_OP_NE, t, src, pf, v, 0);
    case ICE_OP_NOT_IN: return set(P, ICE_OP_NOT_IN, t, src, pf, p);
    default: return NULL;
  }
}

/* Truncated strings and binaries: ProjectionUtil.truncateArray and the
 * STARTS WITH rules of Truncate's string projection. */
static ice_expr_t *project_array(proj_t *P, const ice_expr_t *p, const ice_transform_t *t,
                                 const ty_field_t *pf) {
  const ty_type_t *src = p->type;
  const ty_value_t *v = p->values;
  size_t w = (size_t)t->param;
  if (p->op == ICE_OP_STARTS_WITH || p->op == ICE_OP_NOT_STARTS_WITH) {
    size_t len = lit_len(v);
    bool sw = p->op == ICE_OP_STARTS_WITH;
    if (len < w) return mk(P, p->op, pf, v, 1);
    if (len == w) return mk(P, sw ? ICE_OP_EQ : ICE_OP_NE, pf, v, 1);
    if (P->strict) return sw ? NULL : one(P, ICE_OP_NOT_STARTS_WITH, t, src, pf, v, 0);
    return sw ? one(P, ICE_OP_STARTS_WITH, t, src, pf, v, 0) : NULL;
  }
  if (!P->strict) {
    switch (p->op) {
      case ICE_OP_LT:
      case ICE_OP_LE: return one(P, ICE_OP_LE, t, src, pf, v, 0);
      case ICE_OP_GT:
      case ICE_OP_GE: return one(P, ICE_OP_GE, t, src, pf, v, 0);
      case ICE_OP_EQ: return one(P, ICE_OP_EQ, t, src, pf, v, 0);
      case ICE_OP_IN: return set(P, ICE_OP_IN, t, src, pf, p);
      default: return NULL;
    }
  }
  switch (p->op) {
    case ICE_OP_LT:
    case ICE_OP_LE: return one(P, ICE_OP_LT, t, src, pf, v, 0);
    case ICE_OP_GT:
    case ICE_OP_GE: return one(P, ICE_OP_GT, t, src, pf, v, 0);
    case ICE_OP_NE: return one(P, ICE_OP_NE, t, src, pf, v, 0);
    case ICE_OP_NOT_IN: return set(P, ICE_OP_NOT_IN, t, src, pf, p);
    default: return NULL;
  }
}

/* The projection of predicate p through one partition field; NULL: none. */
static ice_expr_t *project_field(proj_t *P, const ice_expr_t *p, const ice_partition_field_t *f,
                                 const ty_field_t *pf) {
  const ice_transform_t *t = &f->transform;
  if (t->kind == ICE_T_VOID || t->kind == ICE_T_UNKNOWN) return NULL;
  if (!p->type || !ice_transform_can_apply(t, p->type)) return NULL;
  if (t->kind == ICE_T_IDENTITY) return mk(P, p->op, pf, p->values, p->nlits);
  if (ice__op_unary(p->op)) {
    /* Only null tests survive a transform other than identity. */
    if (p->op == ICE_OP_IS_NULL || p->op == ICE_OP_NOT_NULL) return mk(P, p->op, pf, NULL, 0);
    return NULL;
  }
  if (t->kind == ICE_T_BUCKET) {
    if (!P->strict) {
      if (p->op == ICE_OP_EQ) return one(P, ICE_OP_EQ, t, p->type, pf, p->values, 0);
      if (p->op == ICE_OP_IN) return set(P, ICE_OP_IN, t, p->type, pf, p);
      return NULL;
    }
    if (p->op == ICE_OP_NE) return one(P, ICE_OP_NE, t, p->type, pf, p->values, 0);
    if (p->op == ICE_OP_NOT_IN) return set(P, ICE_OP_NOT_IN, t, p->type, pf, p);
    return NULL;
  }
  ty_kind_t k = p->type->kind;
  if (t->kind == ICE_T_TRUNCATE && (k == TY_STRING || k == TY_BINARY || k == TY_FIXED))
    return project_array(P, p, t, pf);
  if (p->op == ICE_OP_STARTS_WITH || p->op == ICE_OP_NOT_STARTS_WITH) return NULL;
  ice_expr_t *q = project_number(P, p, t, pf);
  return is_temporal(t->kind) ? fix_time(P, pf, q) : q;
}

static ice_expr_t *project(proj_t *P, const ice_expr_t *e) {
  switch (e->kind) {
    case ICE_E_TRUE:
    case ICE_E_FALSE: return ice_expr_const(P->a, e->kind == ICE_E_TRUE);
    case ICE_E_AND: return ice_expr_and(P->a, project(P, e->left), project(P, e->right));
    case ICE_E_OR: return ice_expr_or(P->a, project(P, e->left), project(P, e->right));
    case ICE_E_NOT: /* not reached: NOT is pushed down first */ break;
    case ICE_E_PRED: {
      ice_expr_t *r = ice_expr_const(P->a, !P->strict);
      for (uint32_t i = 0; i < P->spec->nfields && i < P->pt->nfields; i++) {
        const ice_partition_field_t *f = &P->spec->fields[i];
        if (f->source_id != e->field_id) continue;
        ice_expr_t *q = project_field(P, e, f, &P->pt->fields[i]);
        if (!q) continue;
        r = P->strict ? ice_expr_or(P->a, r, q) : ice_expr_and(P->a, r, q);
      }
      return r;
    }
  }
  return ice_expr_const(P->a, !P->strict);
}

static ice_expr_t *project_top(fl_arena_t *a, const ice_expr_t *e, const ice_spec_t *spec,
                               const ty_type_t *partition_type, bool strict) {
  if (!partition_type) return ice_expr_const(a, !strict);
  proj_t P = {.a = a, .spec = spec, .pt = partition_type, .strict = strict};
  return project(&P, ice_expr_rewrite_not(a, e));
}

ice_expr_t *ice_expr_project_inclusive(fl_arena_t *a, const ice_expr_t *e, const ice_spec_t *spec,
                                       const ty_schema_t *schema, const ty_type_t *partition_type) {
  (void)schema;
  return project_top(a, e, spec, partition_type, false);
}

ice_expr_t *ice_expr_project_strict(fl_arena_t *a, const ice_expr_t *e, const ice_spec_t *spec,
                                    const ty_schema_t *schema, const ty_type_t *partition_type) {
  (void)schema;
  return project_top(a, e, spec, partition_type, true);
}

/* ---- evaluation on one partition tuple ---- */

static int part_eval(const ice_expr_t *e, const ty_type_t *pt, const ty_value_t *values) {
  switch (e->kind) {
    case ICE_E_TRUE: return ICE__T;
    case ICE_E_FALSE: return ICE__F;
    case ICE_E_NOT: return ICE__T - part_eval(e->left, pt, values);
    case ICE_E_AND: {
      int l = part_eval(e->left, pt, values);
      if (l == ICE__F) return l;
      int r = part_eval(e->right, pt, values);
      return l < r ? l : r;
    }
    case ICE_E_OR: {
      int l = part_eval(e->left, pt, values);
      if (l == ICE__T) return l;
      int r = part_eval(e->right, pt, values);
      return l > r ? l : r;
    }
    case ICE_E_PRED:
      for (uint32_t i = 0; i < pt->nfields; i++) {
        if (pt->fields[i].id != e->field_id) continue;
        ty_value_t v = values[i];
        if (!v.is_null && !ice__op_unary(e->op) && e->nlits && v.kind != e->values[0].kind)
          return ICE__U; /* a tuple of another type: cannot tell */
        return ice__pred_eval_value(e, &v);
      }
      return ICE__U;
  }
  return ICE__U;
}

bool ice_partition_eval(const ice_expr_t *projected, const ty_type_t *partition_type,
                        const ty_value_t *values) {
  if (projected->kind == ICE_E_TRUE) return true;
  if (projected->kind == ICE_E_FALSE) return false;
  if (!partition_type || !values) return false;
  return part_eval(projected, partition_type, values) == ICE__T;
}
