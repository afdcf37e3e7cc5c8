/*
 * ex_agg_var.c - variance, var_samp, var_pop, stddev, stddev_samp and
 * stddev_pop, with Welford's online update: the state is the count, the
 * running mean and the sum of squared deviations M2, which stays accurate
 * where the naive sum of squares cancels catastrophically. Two states
 * combine with Chan et al.'s pairwise formula, so partial aggregates and
 * spilled states merge exactly as one pass would (up to rounding).
 * Arguments of any numeric type are read as double; results are double.
 * The sample forms are NULL below two values, the population forms below
 * one.
 */
#include <math.h>

#include "exec/ex_agg.h"

typedef struct var_state {
  int64_t n;
  double mean;
  double m2;
} var_state_t;

static void var_init(ex_agg_t *a, uint8_t *st) { memset(st, 0, sizeof(var_state_t)); }

static inline void welford(var_state_t *s, double x) {
  s->n++;
  double delta = x - s->mean;
  s->mean += delta / (double)s->n;
  s->m2 += delta * (x - s->mean);
}

static double pow10_neg(int scale) {
  double d = 1;
  for (int i = 0; i < scale; i++) d /= 10;
  return d;
}

static int var_update(ex_agg_t *a, uint8_t *states, size_t stride, const uint32_t *gids,
                      const ty_vec_t *arg, const uint32_t *rows, uint32_t n, fl_err_t *err) {
  switch (arg->type->kind) {
    case TY_INT: {
      const int32_t *d = TY_VEC_DATA(arg, int32_t);
      EX_AGG_EACH_ROW({ welford((var_state_t *)st, d[r]); });
      break;
    }
    case TY_LONG: {
      const int64_t *d = TY_VEC_DATA(arg, int64_t);
      EX_AGG_EACH_ROW({ welford((var_state_t *)st, (double)d[r]); });
      break;
    }
    case TY_FLOAT: {
      const float *d = TY_VEC_DATA(arg, float);
      EX_AGG_EACH_ROW({ welford((var_state_t *)st, d[r]); });
      break;
    }
    case TY_DECIMAL: {
      double unit = pow10_neg(arg->type->scale);
      EX_AGG_EACH_ROW({ welford((var_state_t *)st, (double)ty_vec_get_i128(arg, r) * unit); });
      break;
    }
    default: {
      const double *d = TY_VEC_DATA(arg, double);
      EX_AGG_EACH_ROW({ welford((var_state_t *)st, d[r]); });
    }
  }
  return FL_OK;
}

static int var_combine(ex_agg_t *a, uint8_t *dst, const uint8_t *src, fl_err_t *err) {
  var_state_t *x = (var_state_t *)dst;
  const var_state_t *y = (const var_state_t *)src;
  if (y->n == 0) return FL_OK;
  if (x->n == 0) {
    *x = *y;
    return FL_OK;
  }
  double n = (double)(x->n + y->n), delta = y->mean - x->mean;
  x->m2 += y->m2 + delta * delta * (double)x->n * (double)y->n / n;
  x->mean += delta * (double)y->n / n;
  x->n += y->n;
  return FL_OK;
}

static int var_finalize(ex_agg_t *a, const uint8_t *states, size_t stride, uint32_t n,
                        ty_vec_t *out, fl_err_t *err) {
  bool pop = a->variant == EX_VAR_POP || a->variant == EX_STDDEV_POP;
  bool root = a->variant == EX_STDDEV_SAMP || a->variant == EX_STDDEV_POP;
  for (uint32_t g = 0; g < n; g++) {
    const var_state_t *s = (const var_state_t *)(states + (size_t)g * stride);
    int64_t denom = pop ? s->n : s->n - 1;
    if (denom <= 0) {
      ty_vec_append_null(out);
      continue;
    }
    double v = s->m2 / (double)denom;
    if (v < 0) v = 0; /* rounding in combine can leave -epsilon */
    ty_vec_append_f64(out, root ? sqrt(v) : v);
  }
  return FL_OK;
}

static void var_serialize(ex_agg_t *a, const uint8_t *st, fl_buf_t *out) {
  fl_buf_append(out, st, sizeof(var_state_t));
}

static int var_deserialize(ex_agg_t *a, uint8_t *st, fl_rd_t *r, fl_err_t *err) {
  const uint8_t *p;
  int rc = fl_rd_bytes(r, sizeof(var_state_t), &p, err);
  if (rc) return rc;
  memcpy(st, p, sizeof(var_state_t));
  if (((var_state_t *)st)->n < 0)
    return fl_err_set(err, FL_ECORRUPT, "%s: negative count in variance state", r->what);
  return FL_OK;
}

static const ex_agg_fn_t var_fn = {
    .name = "variance",
    .state_size = sizeof(var_state_t),
    .state_align = 8,
    .init = var_init,
    .update = var_update,
    .combine = var_combine,
    .finalize = var_finalize,
    .serialize = var_serialize,
    .deserialize = var_deserialize,
};

int ex__agg_bind_variance(ex_agg_t *a, fl_err_t *err) {
  ty_kind_t k = a->arg->kind;
  if (k != TY_INT && k != TY_LONG && k != TY_FLOAT && k != TY_DOUBLE && k != TY_DECIMAL)
    return fl_err_set(err, FL_EINVALID, "%s(%s) is not defined: the argument must be numeric",
                      a->name, ty_kind_name(k));
  a->fn = &var_fn;
  a->out = ty_primitive(TY_DOUBLE);
  return FL_OK;
}
