/*
 * ex_agg_minmax.c - min, max and any_value (alias arbitrary) over every
 * orderable primitive type.
 *
 * The state holds the best value so far inline (numbers, decimals,
 * temporal values) or as an owned heap copy (strings, binary, fixed,
 * uuid). Ordering is Trino's: numbers numerically with -0.0 below 0.0 and
 * NaN above every other double, strings and binary by unsigned bytes (for
 * UTF-8, code point order). any_value keeps the first non-NULL value it
 * sees.
 */
#include <math.h>

#include "base/alloc.h"
#include "exec/ex_agg.h"

enum { MM_MIN, MM_MAX, MM_ANY };

typedef struct mm_state {
  union {
    int64_t i64;
    int32_t i32;
    float f32;
    double f64;
    fl_i128 i128;
    uint8_t b;
    uint8_t *p;
  } v;
  uint32_t len, cap; /* bytes values */
  uint8_t has;
} mm_state_t;

static void mm_init(ex_agg_t *a, uint8_t *st) { memset(st, 0, sizeof(mm_state_t)); }

static void mm_destroy(ex_agg_t *a, uint8_t *st) {
  mm_state_t *s = (mm_state_t *)st;
  if (s->cap) {
    a->heap_bytes -= s->cap;
    fl_free(s->v.p);
  }
  s->cap = 0;
  s->has = 0;
}

static inline int cmp_f64(double x, double y) {
  bool nx = isnan(x), ny = isnan(y);
  if (nx || ny) return nx == ny ? 0 : (nx ? 1 : -1);
  if (x < y) return -1;
  if (x > y) return 1;
  if (x == 0 && y == 0) return signbit(x) == signbit(y) ? 0 : (signbit(x) ? -1 : 1);
  return 0;
}

static inline int cmp_bytes(const uint8_t *p, size_t n, const uint8_t *q, size_t m) {
  size_t k = n < m ? n : m;
  int c = k ? memcmp(p, q, k) : 0;
  if (c) return c;
  return (n > m) - (n < m);
}

static void set_bytes(ex_agg_t *a, mm_state_t *s, const uint8_t *p, size_t n) {
  if (n > s->cap || !s->cap) {
    size_t cap = n < 16 ? 16 : n;
    a->heap_bytes += (int64_t)cap - (int64_t)s->cap;
    s->v.p = fl_realloc(s->cap ? s->v.p : NULL, cap);
    s->cap = (uint32_t)cap;
  }
  if (n) memcpy(s->v.p, p, n);
  s->len = (uint32_t)n;
  s->has = 1;
}

/* cmp(x, cur) < 0 decides for min, > 0 for max; any takes the first. */
#define MM_LOOP(T, field, CMP)                                   \
  do {                                                           \
    const T *d = (const T *)arg->data;                           \
    EX_AGG_EACH_ROW({                                            \
      mm_state_t *s = (mm_state_t *)st;                          \
      T x = d[r];                                                \
      if (!s->has || (op == MM_MIN && CMP(x, s->v.field) < 0) || \
          (op == MM_MAX && CMP(x, s->v.field) > 0)) {            \
        s->v.field = x;                                          \
        s->has = 1;                                              \
      }                                                          \
    });                                                          \
  } while (0)

#define CMP_NUM(x, y) (((x) > (y)) - ((x) < (y)))

static int mm_update(ex_agg_t *a, uint8_t *states, size_t stride, const uint32_t *gids,
                     const ty_vec_t *arg, const uint32_t *rows, uint32_t n, fl_err_t *err) {
  int op = (int)a->variant;
  switch (arg->type->kind) {
    case TY_BOOLEAN: MM_LOOP(uint8_t, b, CMP_NUM); break;
    case TY_INT:
    case TY_DATE: MM_LOOP(int32_t, i32, CMP_NUM); break;
    case TY_FLOAT: MM_LOOP(float, f32, cmp_f64); break;
    case TY_DOUBLE: MM_LOOP(double, f64, cmp_f64); break;
    case TY_DECIMAL:
      EX_AGG_EACH_ROW({
        mm_state_t *s = (mm_state_t *)st;
        fl_i128 x = ty_vec_get_i128(arg, r);
        if (!s->has || (op == MM_MIN && x < s->v.i128) || (op == MM_MAX && x > s->v.i128)) {
          s->v.i128 = x;
          s->has = 1;
        }
      });
      break;
    case TY_STRING:
    case TY_BINARY:
    case TY_UUID:
    case TY_FIXED:
      EX_AGG_EACH_ROW({
        mm_state_t *s = (mm_state_t *)st;
        size_t len;
        const uint8_t *p = ty_vec_get_bytes(arg, r, &len);
        if (!s->has) {
          set_bytes(a, s, p, len);
        } else if (op != MM_ANY) {
          int c = cmp_bytes(p, len, s->v.p, s->len);
          if ((op == MM_MIN && c < 0) || (op == MM_MAX && c > 0)) set_bytes(a, s, p, len);
        }
      });
      break;
    default: MM_LOOP(int64_t, i64, CMP_NUM); break;
  }
  return FL_OK;
}

static bool is_bytes(const ty_type_t *t) {
  return t->kind == TY_STRING || t->kind == TY_BINARY || t->kind == TY_UUID || t->kind == TY_FIXED;
}

/* Three-way comparison of two held values. */
static int state_cmp(const ty_type_t *t, const mm_state_t *x, const mm_state_t *y) {
  switch (t->kind) {
    case TY_BOOLEAN: return CMP_NUM(x->v.b, y->v.b);
    case TY_INT:
    case TY_DATE: return CMP_NUM(x->v.i32, y->v.i32);
    case TY_FLOAT: return cmp_f64(x->v.f32, y->v.f32);
    case TY_DOUBLE: return cmp_f64(x->v.f64, y->v.f64);
    case TY_DECIMAL: return CMP_NUM(x->v.i128, y->v.i128);
    default:
      if (is_bytes(t)) return cmp_bytes(x->v.p, x->len, y->v.p, y->len);
      return CMP_NUM(x->v.i64, y->v.i64);
  }
}

static int mm_combine(ex_agg_t *a, uint8_t *dst, const uint8_t *src, fl_err_t *err) {
  mm_state_t *d = (mm_state_t *)dst;
  const mm_state_t *s = (const mm_state_t *)src;
  if (!s->has) return FL_OK;
  bool take = !d->has;
  if (!take && a->variant != MM_ANY) {
    int c = state_cmp(a->arg, s, d);
    take = a->variant == MM_MIN ? c < 0 : c > 0;
  }
  if (!take) return FL_OK;
  if (is_bytes(a->arg))
    set_bytes(a, d, s->v.p, s->len);
  else {
    d->v = s->v;
    d->has = 1;
  }
  return FL_OK;
}

static int mm_finalize(ex_agg_t *a, const uint8_t *states, size_t stride, uint32_t n, ty_vec_t *out,
                       fl_err_t *err) {
  for (uint32_t g = 0; g < n; g++) {
    const mm_state_t *s = (const mm_state_t *)(states + (size_t)g * stride);
    if (!s->has) {
      ty_vec_append_null(out);
      continue;
    }
    switch (a->arg->kind) {
      case TY_BOOLEAN: ty_vec_append_bool(out, s->v.b); break;
      case TY_INT:
      case TY_DATE: ty_vec_append_i32(out, s->v.i32); break;
      case TY_FLOAT: ty_vec_append_f32(out, s->v.f32); break;
      case TY_DOUBLE: ty_vec_append_f64(out, s->v.f64); break;
      case TY_DECIMAL: ty_vec_append_i128(out, s->v.i128); break;
      default:
        if (is_bytes(a->arg))
          ty_vec_append_bytes(out, s->v.p, s->len);
        else
          ty_vec_append_i64(out, s->v.i64);
    }
  }
  return FL_OK;
}

static void mm_serialize(ex_agg_t *a, const uint8_t *st, fl_buf_t *out) {
  const mm_state_t *s = (const mm_state_t *)st;
  fl_buf_append_u8(out, s->has);
  if (!s->has) return;
  if (is_bytes(a->arg)) {
    fl_buf_append_uvarint(out, s->len);
    fl_buf_append(out, s->v.p, s->len);
  } else {
    fl_buf_append(out, &s->v, 16);
  }
}

static int mm_deserialize(ex_agg_t *a, uint8_t *st, fl_rd_t *r, fl_err_t *err) {
  mm_state_t *s = (mm_state_t *)st;
  uint8_t has;
  const uint8_t *p;
  int rc = fl_rd_u8(r, &has, err);
  if (rc || !has) return rc;
  if (is_bytes(a->arg)) {
    uint64_t len;
    if ((rc = fl_rd_uvarint(r, &len, err))) return rc;
    if (len > fl_rd_left(r))
      return fl_err_set(err, FL_ECORRUPT, "%s: %s state of %llu bytes at byte %zu", r->what,
                        a->name, (unsigned long long)len, r->pos);
    if ((rc = fl_rd_bytes(r, len, &p, err))) return rc;
    set_bytes(a, s, p, len);
  } else {
    if ((rc = fl_rd_bytes(r, 16, &p, err))) return rc;
    memcpy(&s->v, p, 16);
    s->has = 1;
  }
  return FL_OK;
}

static const ex_agg_fn_t mm_fn = {
    .name = "min/max",
    .state_size = sizeof(mm_state_t),
    .state_align = 16,
    .init = mm_init,
    .update = mm_update,
    .combine = mm_combine,
    .finalize = mm_finalize,
    .serialize = mm_serialize,
    .deserialize = mm_deserialize,
    .destroy = mm_destroy,
};

static int bind_mm(ex_agg_t *a, uint32_t op, fl_err_t *err) {
  if (ty_is_nested(a->arg))
    return fl_err_set(err, FL_EUNSUPPORTED,
                      "%s(%s) is not supported: the argument must be a primitive type", a->name,
                      ty_kind_name(a->arg->kind));
  a->fn = &mm_fn;
  a->variant = op;
  a->out = a->arg;
  return FL_OK;
}

int ex__agg_bind_min(ex_agg_t *a, fl_err_t *err) { return bind_mm(a, MM_MIN, err); }
int ex__agg_bind_max(ex_agg_t *a, fl_err_t *err) { return bind_mm(a, MM_MAX, err); }
int ex__agg_bind_any(ex_agg_t *a, fl_err_t *err) { return bind_mm(a, MM_ANY, err); }
