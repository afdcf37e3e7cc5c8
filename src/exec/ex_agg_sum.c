/*
 * ex_agg_sum.c - sum and avg.
 *
 * One state serves both: an exact 128-bit integer sum (integers and
 * decimals) with a count of 128-bit wrap-arounds, a double sum (real and
 * double) and the count of values. Integer sums are checked when the
 * result is produced: a bigint sum whose exact value does not fit in
 * bigint is an error, as is a decimal sum beyond 38 digits. The check is
 * on the exact total, so it does not depend on the order rows (or partial
 * states) arrive in.
 */
#include "exec/ex_agg.h"
#include "types/value.h"

typedef struct sum_state {
  fl_i128 isum;
  int64_t wraps; /* net 2^128 overflows of isum */
  double dsum;
  int64_t count;
} sum_state_t;

static void sum_init(ex_agg_t *a, uint8_t *st) { memset(st, 0, sizeof(sum_state_t)); }

static inline void add_i128(sum_state_t *s, fl_i128 v) {
  fl_i128 r;
  if (__builtin_add_overflow(s->isum, v, &r)) s->wraps += v > 0 ? 1 : -1;
  s->isum = r;
}

static int sum_update(ex_agg_t *a, uint8_t *states, size_t stride, const uint32_t *gids,
                      const ty_vec_t *arg, const uint32_t *rows, uint32_t n, fl_err_t *err) {
  switch (arg->type->kind) {
    case TY_INT: {
      const int32_t *d = TY_VEC_DATA(arg, int32_t);
      EX_AGG_EACH_ROW({
        sum_state_t *s = (sum_state_t *)st;
        s->isum += d[r];
        s->count++;
      });
      break;
    }
    case TY_LONG: {
      const int64_t *d = TY_VEC_DATA(arg, int64_t);
      EX_AGG_EACH_ROW({
        sum_state_t *s = (sum_state_t *)st;
        s->isum += d[r];
        s->count++;
      });
      break;
    }
    case TY_DECIMAL:
      if (!arg->null_count) {
        /* Runs of one group (rows sorted by group) add in registers. */
        const fl_i128 *d = TY_VEC_DATA(arg, fl_i128);
        for (uint32_t k = 0; k < n;) {
          uint32_t g = gids[k], k0 = k;
          sum_state_t *s = (sum_state_t *)(states + (size_t)g * stride);
          fl_i128 acc = s->isum;
          int64_t wraps = s->wraps;
          for (; k < n && gids[k] == g; k++) {
            fl_i128 v = d[rows[k]], r;
            if (__builtin_add_overflow(acc, v, &r)) wraps += v > 0 ? 1 : -1;
            acc = r;
          }
          s->isum = acc;
          s->wraps = wraps;
          s->count += k - k0;
        }
        break;
      }
      EX_AGG_EACH_ROW({
        sum_state_t *s = (sum_state_t *)st;
        add_i128(s, ty_vec_get_i128(arg, r));
        s->count++;
      });
      break;
    case TY_FLOAT: {
      const float *d = TY_VEC_DATA(arg, float);
      EX_AGG_EACH_ROW({
        sum_state_t *s = (sum_state_t *)st;
        s->dsum += d[r];
        s->count++;
      });
      break;
    }
    default: {
      const double *d = TY_VEC_DATA(arg, double);
      EX_AGG_EACH_ROW({
        sum_state_t *s = (sum_state_t *)st;
        s->dsum += d[r];
        s->count++;
      });
    }
  }
  return FL_OK;
}

static int sum_combine(ex_agg_t *a, uint8_t *dst, const uint8_t *src, fl_err_t *err) {
  sum_state_t *d = (sum_state_t *)dst;
  const sum_state_t *s = (const sum_state_t *)src;
  add_i128(d, s->isum);
  d->wraps += s->wraps;
  d->dsum += s->dsum;
  d->count += s->count;
  return FL_OK;
}

static int sum_finalize(ex_agg_t *a, const uint8_t *states, size_t stride, uint32_t n,
                        ty_vec_t *out, fl_err_t *err) {
  for (uint32_t g = 0; g < n; g++) {
    const sum_state_t *s = (const sum_state_t *)(states + (size_t)g * stride);
    if (s->count == 0) {
      ty_vec_append_null(out);
      continue;
    }
    switch (a->arg->kind) {
      case TY_INT:
      case TY_LONG:
        if (s->isum > INT64_MAX || s->isum < INT64_MIN)
          return fl_err_set(err, FL_EINVALID,
                            "sum: bigint overflow (the total does not fit in 64 bits)");
        ty_vec_append_i64(out, (int64_t)s->isum);
        break;
      case TY_DECIMAL: {
        fl_i128 max = ty_decimal_max(38);
        if (s->wraps || s->isum > max || s->isum < -max)
          return fl_err_set(err, FL_EINVALID,
                            "sum: decimal overflow (the total exceeds 38 digits)");
        ty_vec_append_i128(out, s->isum);
        break;
      }
      case TY_FLOAT: ty_vec_append_f32(out, (float)s->dsum); break;
      default: ty_vec_append_f64(out, s->dsum);
    }
  }
  return FL_OK;
}

/* Decimal average: the sum divided by the count, rounded half away from
 * zero (Trino's HALF_UP). */
static fl_i128 div_round(fl_i128 s, int64_t c) {
  fl_i128 q = s / c, rem = s % c;
  if (rem < 0) rem = -rem;
  if (rem * 2 >= c) q += s < 0 ? -1 : 1;
  return q;
}

static int avg_finalize(ex_agg_t *a, const uint8_t *states, size_t stride, uint32_t n,
                        ty_vec_t *out, fl_err_t *err) {
  for (uint32_t g = 0; g < n; g++) {
    const sum_state_t *s = (const sum_state_t *)(states + (size_t)g * stride);
    if (s->count == 0) {
      ty_vec_append_null(out);
      continue;
    }
    switch (a->arg->kind) {
      case TY_INT:
      case TY_LONG: ty_vec_append_f64(out, (double)s->isum / (double)s->count); break;
      case TY_DECIMAL:
        if (s->wraps)
          return fl_err_set(err, FL_EINVALID, "avg: decimal overflow (the sum exceeds 128 bits)");
        ty_vec_append_i128(out, div_round(s->isum, s->count));
        break;
      case TY_FLOAT: ty_vec_append_f32(out, (float)(s->dsum / (double)s->count)); break;
      default: ty_vec_append_f64(out, s->dsum / (double)s->count);
    }
  }
  return FL_OK;
}

static void sum_serialize(ex_agg_t *a, const uint8_t *st, fl_buf_t *out) {
  fl_buf_append(out, st, sizeof(sum_state_t));
}

static int sum_deserialize(ex_agg_t *a, uint8_t *st, fl_rd_t *r, fl_err_t *err) {
  const uint8_t *p;
  int rc = fl_rd_bytes(r, sizeof(sum_state_t), &p, err);
  if (rc) return rc;
  memcpy(st, p, sizeof(sum_state_t));
  if (((sum_state_t *)st)->count < 0)
    return fl_err_set(err, FL_ECORRUPT, "%s: negative count in sum state", r->what);
  return FL_OK;
}

static const ex_agg_fn_t sum_fn = {
    .name = "sum",
    .state_size = sizeof(sum_state_t),
    .state_align = 16,
    .init = sum_init,
    .update = sum_update,
    .combine = sum_combine,
    .finalize = sum_finalize,
    .serialize = sum_serialize,
    .deserialize = sum_deserialize,
};

static const ex_agg_fn_t avg_fn = {
    .name = "avg",
    .state_size = sizeof(sum_state_t),
    .state_align = 16,
    .init = sum_init,
    .update = sum_update,
    .combine = sum_combine,
    .finalize = avg_finalize,
    .serialize = sum_serialize,
    .deserialize = sum_deserialize,
};

static bool numeric(const ty_type_t *t) {
  return t->kind == TY_INT || t->kind == TY_LONG || t->kind == TY_DECIMAL || t->kind == TY_FLOAT ||
         t->kind == TY_DOUBLE;
}

int ex__agg_bind_sum(ex_agg_t *a, fl_err_t *err) {
  if (!numeric(a->arg))
    return fl_err_set(err, FL_EINVALID, "sum(%s) is not defined: the argument must be numeric",
                      ty_kind_name(a->arg->kind));
  a->fn = &sum_fn;
  switch (a->arg->kind) {
    case TY_INT:
    case TY_LONG: a->out = ty_primitive(TY_LONG); break;
    case TY_DECIMAL: a->out = ex_agg__decimal(a, 38, a->arg->scale); break;
    default: a->out = a->arg;
  }
  return FL_OK;
}

int ex__agg_bind_avg(ex_agg_t *a, fl_err_t *err) {
  if (!numeric(a->arg))
    return fl_err_set(err, FL_EINVALID, "avg(%s) is not defined: the argument must be numeric",
                      ty_kind_name(a->arg->kind));
  a->fn = &avg_fn;
  switch (a->arg->kind) {
    case TY_INT:
    case TY_LONG: a->out = ty_primitive(TY_DOUBLE); break;
    default: a->out = a->arg;
  }
  return FL_OK;
}
