/*
 * ex_agg.c - the aggregate registry: SQL names, aliases and constant
 * parameters to the function families of ex_agg_*.c.
 */
#include "exec/ex_agg.h"

#include <math.h>
#include <string.h>

#include "base/hash.h"

typedef struct agg_entry {
  const char *name;
  int (*bind)(ex_agg_t *a, fl_err_t *err);
  uint32_t variant;
  bool needs_arg;
  uint32_t min_params, max_params;
} agg_entry_t;

static const agg_entry_t registry[] = {
    {"count", ex__agg_bind_count, 0, false, 0, 0},
    {"sum", ex__agg_bind_sum, 0, true, 0, 0},
    {"avg", ex__agg_bind_avg, 0, true, 0, 0},
    {"min", ex__agg_bind_min, 0, true, 0, 0},
    {"max", ex__agg_bind_max, 0, true, 0, 0},
    {"any_value", ex__agg_bind_any, 0, true, 0, 0},
    {"arbitrary", ex__agg_bind_any, 0, true, 0, 0},
    {"bool_and", ex__agg_bind_bool_and, 0, true, 0, 0},
    {"every", ex__agg_bind_bool_and, 0, true, 0, 0},
    {"bool_or", ex__agg_bind_bool_or, 0, true, 0, 0},
    {"stddev", ex__agg_bind_variance, EX_STDDEV_SAMP, true, 0, 0},
    {"stddev_samp", ex__agg_bind_variance, EX_STDDEV_SAMP, true, 0, 0},
    {"stddev_pop", ex__agg_bind_variance, EX_STDDEV_POP, true, 0, 0},
    {"variance", ex__agg_bind_variance, EX_VAR_SAMP, true, 0, 0},
    {"var_samp", ex__agg_bind_variance, EX_VAR_SAMP, true, 0, 0},
    {"var_pop", ex__agg_bind_variance, EX_VAR_POP, true, 0, 0},
    {"approx_distinct", ex__agg_bind_approx_distinct, 0, true, 0, 1},
    {"approx_percentile", ex__agg_bind_approx_percentile, 0, true, 1, 1},
    {"array_agg", ex__agg_bind_array_agg, 0, true, 0, 0},
};

static int bind_one(fl_arena_t *arena, const agg_entry_t *e, const char *name, const ty_type_t *arg,
                    const double *params, uint32_t nparams, ex_agg_t **out, fl_err_t *err) {
  ex_agg_t *a = fl_arena_zalloc(arena, sizeof *a);
  a->name = fl_arena_strdup(arena, name);
  a->arg = arg;
  a->variant = e->variant;
  a->arena = arena;
  a->param = nparams ? params[0] : NAN;
  int rc = e->bind(a, err);
  if (rc) return rc;
  *out = a;
  return FL_OK;
}

int ex_agg_bind(fl_arena_t *arena, const char *name, const ty_type_t *arg, bool distinct,
                const double *params, uint32_t nparams, ex_agg_t **out, fl_err_t *err) {
  const agg_entry_t *e = NULL;
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
    if (strcmp(registry[i].name, name) == 0) e = &registry[i];
  if (!e) return fl_err_set(err, FL_ENOTFOUND, "unknown aggregate function %s", name);
  if (e->needs_arg && !arg)
    return fl_err_set(err, FL_EINVALID, "%s(*) is not an aggregate; %s needs an argument", name,
                      name);
  if (nparams < e->min_params || nparams > e->max_params)
    return fl_err_set(err, FL_EINVALID,
                      "%s takes %u to %u constant parameters after its argument, got %u", name,
                      e->min_params, e->max_params, nparams);
  if (distinct && !arg) return fl_err_set(err, FL_EINVALID, "count(DISTINCT *) is not valid");
  ex_agg_t *a;
  int rc = bind_one(arena, e, name, arg, params, nparams, &a, err);
  if (rc) return rc;
  if (!distinct) {
    *out = a;
    return FL_OK;
  }
  ex_agg_t *outer = fl_arena_zalloc(arena, sizeof *outer);
  *outer = *a;
  outer->distinct = true;
  if ((rc = ex__agg_wrap_distinct(outer, a, err))) return rc;
  *out = outer;
  return FL_OK;
}

static inline uint64_t canon_f64(double d) {
  if (d == 0) return 0;
  if (isnan(d)) return 0x7ff8000000000000ULL;
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}

uint64_t ex_agg__value_hash(const ty_vec_t *v, uint32_t i) {
  if (ty_vec_is_null(v, i)) return 0x6a09e667f3bcc908ULL;
  uint64_t x;
  switch (v->type->kind) {
    case TY_BOOLEAN: x = v->data[i]; break;
    case TY_INT:
    case TY_DATE: x = (uint64_t)(int64_t)TY_VEC_DATA(v, int32_t)[i]; break;
    case TY_FLOAT: x = canon_f64(TY_VEC_DATA(v, float)[i]); break;
    case TY_DOUBLE: x = canon_f64(TY_VEC_DATA(v, double)[i]); break;
    case TY_DECIMAL: return fl_xxhash64(v->data + (size_t)i * 16, 16, 7);
    case TY_STRING:
    case TY_BINARY:
    case TY_UUID:
    case TY_FIXED: {
      size_t n;
      const uint8_t *p = ty_vec_get_bytes(v, i, &n);
      return fl_xxhash64(p, n, 7);
    }
    case TY_STRUCT:
    case TY_LIST:
    case TY_MAP: return 0; /* not reached: callers refuse nested arguments */
    default: x = (uint64_t)TY_VEC_DATA(v, int64_t)[i];
  }
  return fl_xxhash64(&x, 8, 7);
}

const ty_type_t *ex_agg__decimal(ex_agg_t *a, int precision, int scale) {
  return ty_decimal(a->arena, precision, scale);
}
