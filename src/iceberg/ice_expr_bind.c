/*
 * ice_expr_bind.c - binding unbound filters to a schema (layer 5,
 * iceberg): column names to field ids (dotted names walk nested structs),
 * literals to values of the column's type.
 *
 * NOT is pushed down to the predicates first (exact under three-valued
 * logic), so a bound tree has no NOT nodes and false and unknown need not
 * be told apart above a predicate. Literal conversion follows Iceberg
 * Java's Literal.to rules:
 *   - integers convert to int, long, float, double, decimal (exactly, at
 *     the column's scale), date (days), time and timestamps (units);
 *   - decimal and float text converts to float, double, and to decimal
 *     when the value is exact at the column's scale (1.2 and 1.20 for
 *     decimal(10,2)); text with more non-zero fraction digits than the
 *     scale is rejected, as Java rejects a scale mismatch;
 *   - strings convert to string, date, time, timestamps (ISO-8601; an
 *     offset is required to be absent for timestamp without zone, and
 *     taken as UTC when absent for timestamptz), uuid, decimal, binary and
 *     fixed (the UTF-8 bytes);
 *   - a value beyond the column type's range (Java's aboveMax/belowMin)
 *     folds the predicate: x < huge is x IS NOT NULL, x > huge is FALSE;
 *   - NaN (only for float and double columns): x = NaN is x IS NAN,
 *     x != NaN is x IS NOT NAN, other comparisons with NaN are rejected;
 *     IN lists drop NaN into an IS NAN alternative.
 * IN lists are sorted and deduplicated; a one-value IN is an equality.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/time.h"
#include "iceberg/ice_expr_int.h"

typedef enum conv {
  CONV_OK,
  CONV_ABOVE_MAX,
  CONV_BELOW_MIN,
  CONV_NAN,
} conv_t;

typedef struct binder {
  fl_arena_t *a;
  const ty_schema_t *schema;
  bool case_sensitive;
  fl_err_t *err;
} binder_t;

static bool name_eq(const binder_t *b, const char *x, size_t n, const char *name) {
  if (strlen(name) != n) return false;
  return b->case_sensitive ? memcmp(x, name, n) == 0 : strncasecmp(x, name, n) == 0;
}

/* Resolves dotted name against a struct's fields, trying every split so
 * that names holding dots still resolve. */
static const ty_field_t *resolve(const binder_t *b, const ty_type_t *st, const char *name,
                                 fl_buf_t *full) {
  size_t n = strlen(name);
  for (uint32_t i = 0; i < st->nfields; i++) {
    const ty_field_t *f = &st->fields[i];
    size_t fl = strlen(f->name);
    if (name_eq(b, name, n, f->name)) {
      fl_buf_append_str(full, f->name);
      return f;
    }
    if (f->type->kind == TY_STRUCT && fl < n && name[fl] == '.' && name_eq(b, name, fl, f->name)) {
      size_t mark = full->len;
      fl_buf_append_str(full, f->name);
      fl_buf_append_u8(full, '.');
      const ty_field_t *g = resolve(b, f->type, name + fl + 1, full);
      if (g) return g;
      full->len = mark;
    }
  }
  return NULL;
}

static int parse_i64(const char *s, int64_t *out, conv_t *range) {
  errno = 0;
  char *end;
  long long v = strtoll(s, &end, 10);
  if (*end) return -1;
  *range = CONV_OK;
  if (errno == ERANGE) *range = v > 0 ? CONV_ABOVE_MAX : CONV_BELOW_MIN;
  *out = v;
  return 0;
}

static bool is_nan_text(const char *s) {
  return strcasecmp(s, "nan") == 0 || strcasecmp(s, "-nan") == 0;
}

static int bad(binder_t *b, const char *col, const ice_literal_t *l, const ty_type_t *t,
               const char *why) {
  fl_buf_t tb;
  fl_buf_init(&tb);
  ty_type_format(t, &tb);
  fl_buf_append_u8(&tb, 0);
  int rc = fl_err_set(b->err, FL_EINVALID, "filter: cannot compare column %s (%s) with %s%s%s: %s",
                      col, (const char *)tb.data, l->kind == ICE_LIT_STRING ? "'" : "", l->text,
                      l->kind == ICE_LIT_STRING ? "'" : "", why);
  fl_buf_free(&tb);
  return rc;
}

static const char *lit_kind_name(ice_lit_kind_t k) {
  switch (k) {
    case ICE_LIT_INT: return "an integer";
    case ICE_LIT_NUMBER: return "a number";
    case ICE_LIT_STRING: return "a string";
    case ICE_LIT_BOOL: return "a boolean";
    case ICE_LIT_TIMESTAMP: return "a timestamp";
    case ICE_LIT_DATE: return "a date";
  }
  return "a literal";
}

static int convert_decimal(binder_t *b, const char *col, const ice_literal_t *l,
                           const ty_type_t *t, ty_value_t *v, conv_t *range) {
  const char *s = l->text;
  size_t n = strlen(s);
  fl_i128 x;
  if (ty_decimal_parse(s, n, 38, t->scale, false, &x)) {
    fl_i128 max = ty_decimal_max(t->precision);
    if (x > max) *range = CONV_ABOVE_MAX;
    else if (x < -max) *range = CONV_BELOW_MIN;
    v->u.i128 = x;
    return FL_OK;
  }
  if (ty_decimal_parse(s, n, 38, t->scale, true, &x))
    return bad(b, col, l, t,
               fl_arena_sprintf(b->a, "more than %d fraction digits cannot be represented exactly",
                                t->scale));
  /* Well-formed but beyond 38 digits: out of the column's range. */
  char *end;
  double d = strtod(s, &end);
  if (n > 0 && *end == 0 && isfinite(d) && !is_nan_text(s) && l->kind != ICE_LIT_STRING) {
    *range = d < 0 ? CONV_BELOW_MIN : CONV_ABOVE_MAX;
    return FL_OK;
  }
  return bad(b, col, l, t, "not a decimal number");
}

static int convert_ts(binder_t *b, const char *col, const ice_literal_t *l, const ty_type_t *t,
                      ty_value_t *v) {
  bool tz = t->kind == TY_TIMESTAMPTZ || t->kind == TY_TIMESTAMPTZ_NS;
  int prec = (t->kind == TY_TIMESTAMP_NS || t->kind == TY_TIMESTAMPTZ_NS) ? 9 : 6;
  bool has_zone;
  if (!fl_parse_timestamp(l->text, strlen(l->text), prec, &v->u.i64, &has_zone))
    return bad(b, col, l, t, "not an ISO-8601 timestamp");
  if (has_zone && !tz)
    return bad(b, col, l, t, "a timestamp without time zone takes no offset");
  return FL_OK;
}

/* Converts literal l to column type t. */
static int convert(binder_t *b, const char *col, const ice_literal_t *l, const ty_type_t *t,
                   ty_value_t *v, conv_t *range) {
  memset(v, 0, sizeof *v);
  v->kind = t->kind;
  *range = CONV_OK;
  int64_t i;
  const char *s = l->text;
  size_t n = strlen(s);
  switch (t->kind) {
    case TY_BOOLEAN:
      if (l->kind != ICE_LIT_BOOL) break;
      v->u.b = s[0] == 't';
      return FL_OK;
    case TY_INT:
    case TY_LONG:
      if (l->kind != ICE_LIT_INT) break;
      parse_i64(s, &i, range);
      if (*range == CONV_OK && t->kind == TY_INT) {
        if (i > INT32_MAX) *range = CONV_ABOVE_MAX;
        else if (i < INT32_MIN) *range = CONV_BELOW_MIN;
      }
      if (t->kind == TY_INT) v->u.i32 = (int32_t)i;
      else v->u.i64 = i;
      return FL_OK;
    case TY_FLOAT:
    case TY_DOUBLE: {
      if (l->kind != ICE_LIT_INT && l->kind != ICE_LIT_NUMBER) break;
      if (is_nan_text(s)) {
        *range = CONV_NAN;
        return FL_OK;
      }
      double d = strtod(s, NULL);
      if (t->kind == TY_FLOAT) v->u.f32 = (float)d;
      else v->u.f64 = d;
      return FL_OK;
    }
    case TY_DECIMAL:
      if (l->kind != ICE_LIT_INT && l->kind != ICE_LIT_NUMBER && l->kind != ICE_LIT_STRING) break;
      return convert_decimal(b, col, l, t, v, range);
    case TY_DATE:
      if (l->kind == ICE_LIT_INT) {
        parse_i64(s, &i, range);
        if (*range == CONV_OK && i > INT32_MAX) *range = CONV_ABOVE_MAX;
        if (*range == CONV_OK && i < INT32_MIN) *range = CONV_BELOW_MIN;
        v->u.i32 = (int32_t)i;
        return FL_OK;
      }
      if (l->kind == ICE_LIT_TIMESTAMP) {
        int64_t us;
        bool z;
        if (!fl_parse_timestamp(s, n, 6, &us, &z)) return bad(b, col, l, t, "not an ISO-8601 timestamp");
        v->u.i32 = (int32_t)fl_floordiv(us, FL_MICROS_PER_DAY);
        return FL_OK;
      }
      if (l->kind != ICE_LIT_STRING && l->kind != ICE_LIT_DATE) break;
      if (!fl_parse_date(s, n, &v->u.i32)) return bad(b, col, l, t, "not an ISO-8601 date (YYYY-MM-DD)");
      return FL_OK;
    case TY_TIME:
      if (l->kind == ICE_LIT_INT) {
        parse_i64(s, &v->u.i64, range);
        return FL_OK;
      }
      if (l->kind != ICE_LIT_STRING) break;
      if (!fl_parse_time(s, n, &v->u.i64)) return bad(b, col, l, t, "not an ISO-8601 time (HH:MM:SS)");
      return FL_OK;
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS:
      if (l->kind == ICE_LIT_INT) {
        parse_i64(s, &v->u.i64, range);
        return FL_OK;
      }
      if (l->kind != ICE_LIT_STRING && l->kind != ICE_LIT_TIMESTAMP && l->kind != ICE_LIT_DATE) break;
      return convert_ts(b, col, l, t, v);
    case TY_STRING:
    case TY_BINARY:
      if (l->kind != ICE_LIT_STRING) break;
      v->u.bytes.p = (const uint8_t *)s;
      v->u.bytes.n = n;
      return FL_OK;
    case TY_FIXED:
      if (l->kind != ICE_LIT_STRING) break;
      if (n != (size_t)t->length)
        return bad(b, col, l, t, fl_arena_sprintf(b->a, "fixed(%d) takes exactly %d bytes", t->length, t->length));
      v->u.bytes.p = (const uint8_t *)s;
      v->u.bytes.n = n;
      return FL_OK;
    case TY_UUID: {
      if (l->kind != ICE_LIT_STRING) break;
      uint8_t *u = fl_arena_alloc(b->a, 16);
      if (!ty_uuid_parse(s, n, u)) return bad(b, col, l, t, "not a uuid (8-4-4-4-12 hex digits)");
      v->u.bytes.p = u;
      v->u.bytes.n = 16;
      return FL_OK;
    }
    default:
      return bad(b, col, l, t, "nested columns cannot be compared");
  }
  return bad(b, col, l, t, fl_arena_sprintf(b->a, "%s does not convert to %s", lit_kind_name(l->kind), ty_kind_name(t->kind)));
}

static ice_expr_t *pred(binder_t *b, ice_op_t op, const ty_field_t *f, const char *col,
                        const ty_value_t *vals, uint32_t n) {
  ice_expr_t *e = ice__pred_new(b->a, op, f->id, f->type, vals, n);
  e->column = col;
  return e;
}

static int bind_pred(binder_t *b, const ice_expr_t *e, ice_expr_t **out) {
  fl_buf_t full;
  fl_buf_init(&full);
  const ty_field_t *f = resolve(b, &b->schema->root, e->column, &full);
  const char *col = fl_arena_strndup(b->a, full.len ? (const char *)full.data : "", full.len);
  fl_buf_free(&full);
  if (!f) return fl_err_set(b->err, FL_EINVALID, "filter: unknown column %s", e->column);
  const ty_type_t *t = f->type;
  ice_op_t op = e->op;
  if (op == ICE_OP_IS_NULL || op == ICE_OP_NOT_NULL) {
    if (op == ICE_OP_IS_NULL && f->required) {
      *out = ice_expr_const(b->a, false);
      return FL_OK;
    }
    *out = pred(b, op, f, col, NULL, 0);
    return FL_OK;
  }
  if (ty_is_nested(t))
    return fl_err_set(b->err, FL_EINVALID, "filter: column %s is a %s; only IS [NOT] NULL applies",
                      col, ty_kind_name(t->kind));
  if (op == ICE_OP_IS_NAN || op == ICE_OP_NOT_NAN) {
    if (t->kind != TY_FLOAT && t->kind != TY_DOUBLE)
      return fl_err_set(b->err, FL_EINVALID, "filter: IS [NOT] NAN needs a float or double column; %s is %s",
                        col, ty_kind_name(t->kind));
    *out = pred(b, op, f, col, NULL, 0);
    return FL_OK;
  }
  if (op == ICE_OP_STARTS_WITH || op == ICE_OP_NOT_STARTS_WITH) {
    if (t->kind != TY_STRING)
      return fl_err_set(b->err, FL_EINVALID, "filter: STARTS WITH needs a string column; %s is %s",
                        col, ty_kind_name(t->kind));
  }
  ty_value_t *vals = fl_arena_alloc(b->a, (e->nlits ? e->nlits : 1) * sizeof *vals);
  uint32_t nv = 0;
  bool has_nan = false;
  for (uint32_t i = 0; i < e->nlits; i++) {
    conv_t range;
    int rc = convert(b, col, &e->lits[i], t, &vals[nv], &range);
    if (rc) return rc;
    if (range == CONV_NAN) {
      if (op != ICE_OP_EQ && op != ICE_OP_NE && op != ICE_OP_IN && op != ICE_OP_NOT_IN)
        return fl_err_set(b->err, FL_EINVALID,
                          "filter: %s %s NaN is never true; use IS NAN or IS NOT NAN", col,
                          ice__op_text(op));
      has_nan = true;
      continue;
    }
    if (range == CONV_OK) {
      nv++;
      continue;
    }
    if (op == ICE_OP_IN || op == ICE_OP_NOT_IN) continue; /* no value of the column equals it */
    /* Java's aboveMax / belowMin folding. */
    bool above = range == CONV_ABOVE_MAX;
    bool always = op == ICE_OP_NE || (above ? (op == ICE_OP_LT || op == ICE_OP_LE)
                                            : (op == ICE_OP_GT || op == ICE_OP_GE));
    *out = always ? pred(b, ICE_OP_NOT_NULL, f, col, NULL, 0) : ice_expr_const(b->a, false);
    return FL_OK;
  }
  if (op == ICE_OP_EQ || op == ICE_OP_NE) {
    if (has_nan) {
      *out = pred(b, op == ICE_OP_EQ ? ICE_OP_IS_NAN : ICE_OP_NOT_NAN, f, col, NULL, 0);
      return FL_OK;
    }
  }
  if (op == ICE_OP_IN || op == ICE_OP_NOT_IN) {
    bool in = op == ICE_OP_IN;
    nv = ice__sort_dedup(vals, nv);
    ice_expr_t *list;
    if (nv == 0)
      list = in ? ice_expr_const(b->a, false) : pred(b, ICE_OP_NOT_NULL, f, col, NULL, 0);
    else if (nv == 1)
      list = pred(b, in ? ICE_OP_EQ : ICE_OP_NE, f, col, vals, 1);
    else
      list = pred(b, op, f, col, vals, nv);
    if (has_nan) {
      ice_expr_t *nan = pred(b, in ? ICE_OP_IS_NAN : ICE_OP_NOT_NAN, f, col, NULL, 0);
      /* NOT IN with NaN: not NaN and not in the rest; x NOT IN () alone is
       * x IS NOT NULL, which IS NOT NAN already implies for non-null rows. */
      list = in ? ice_expr_or(b->a, nan, list)
                : (nv == 0 ? nan : ice_expr_and(b->a, nan, list));
    }
    *out = list;
    return FL_OK;
  }
  *out = pred(b, op, f, col, vals, 1);
  return FL_OK;
}

/* Binds e, negated when negate is set: NOT is pushed down as the tree is
 * bound, so that each predicate is negated knowing its column's type. */
static int bind_tree(binder_t *b, const ice_expr_t *e, bool negate, ice_expr_t **out) {
  int rc;
  switch (e->kind) {
    case ICE_E_TRUE:
    case ICE_E_FALSE: *out = ice_expr_const(b->a, (e->kind == ICE_E_TRUE) != negate); return FL_OK;
    case ICE_E_AND:
    case ICE_E_OR: {
      ice_expr_t *l, *r;
      if ((rc = bind_tree(b, e->left, negate, &l)) || (rc = bind_tree(b, e->right, negate, &r)))
        return rc;
      bool is_and = (e->kind == ICE_E_AND) != negate;
      *out = is_and ? ice_expr_and(b->a, l, r) : ice_expr_or(b->a, l, r);
      return FL_OK;
    }
    case ICE_E_NOT: return bind_tree(b, e->left, !negate, out);
    case ICE_E_PRED: {
      ice_expr_t *p = NULL;
      if (e->field_id != 0 && !e->column)
        p = fl_arena_memdup(b->a, e, sizeof *e);
      else if ((rc = bind_pred(b, e, &p)))
        return rc;
      *out = negate ? ice_expr_rewrite_not(b->a, ice_expr_not(b->a, p)) : p;
      return FL_OK;
    }
  }
  return fl_err_set(b->err, FL_EINTERNAL, "filter: unknown node");
}

int ice_expr_bind(fl_arena_t *a, const ice_expr_t *e, const ty_schema_t *schema,
                  bool case_sensitive, ice_expr_t **out, fl_err_t *err) {
  binder_t b = {.a = a, .schema = schema, .case_sensitive = case_sensitive, .err = err};
  return bind_tree(&b, e, false, out);
}
