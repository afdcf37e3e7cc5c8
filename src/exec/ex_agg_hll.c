/*
 * ex_agg_hll.c - approx_distinct(x [, e]) with HyperLogLog.
 *
 * A value's 64-bit hash picks one of m = 2^p registers with its top p bits;
 * the register keeps the largest rank (leading zeros + 1) of the remaining
 * bits. The estimate is Ertl's improved raw estimator ("New cardinality
 * estimation algorithms for HyperLogLog sketches", 2017), which is unbiased
 * from tiny to huge cardinalities without the empirical bias tables of
 * HLL++. The standard error is 1.04 / sqrt(m): the default e = 0.023
 * (Trino's) gives p = 11, m = 2048; e may range over [0.0040625, 0.26] as in
 * Trino, giving p from 16 down to 4.
 *
 * Small groups stay exact: until a group has seen m / 8 distinct hashes it
 * keeps the hashes themselves (a sorted array, no larger than the
 * registers would be), and the count is the number of distinct hashes.
 * States combine register-wise (max), so partial and spilled sketches
 * merge into exactly the sketch of the whole input.
 */
#include <math.h>

#include "base/alloc.h"
#include "exec/ex_agg.h"

typedef struct hll_state {
  uint8_t *dense;   /* m registers, NULL while sparse */
  uint64_t *sparse; /* sorted distinct hashes */
  uint32_t nsparse, sparse_cap;
} hll_state_t;

static inline uint32_t hll_p(const ex_agg_t *a) { return a->variant; }

static void hll_init(ex_agg_t *a, uint8_t *st) { memset(st, 0, sizeof(hll_state_t)); }

static void hll_destroy(ex_agg_t *a, uint8_t *st) {
  hll_state_t *s = (hll_state_t *)st;
  if (s->dense) a->heap_bytes -= (int64_t)1 << hll_p(a);
  a->heap_bytes -= (int64_t)s->sparse_cap * 8;
  fl_free(s->dense);
  fl_free(s->sparse);
  memset(s, 0, sizeof *s);
}

static inline void dense_add(uint8_t *regs, uint32_t p, uint64_t h) {
  uint32_t idx = (uint32_t)(h >> (64 - p));
  uint64_t rest = h << p;
  uint32_t q = 64 - p;
  uint8_t rank = rest ? (uint8_t)(__builtin_clzll(rest) + 1) : (uint8_t)(q + 1);
  if (rank > q + 1) rank = (uint8_t)(q + 1);
  if (rank > regs[idx]) regs[idx] = rank;
}

static void to_dense(ex_agg_t *a, hll_state_t *s) {
  uint32_t p = hll_p(a);
  s->dense = fl_calloc((size_t)1 << p, 1);
  a->heap_bytes += (int64_t)1 << p;
  for (uint32_t i = 0; i < s->nsparse; i++) dense_add(s->dense, p, s->sparse[i]);
  a->heap_bytes -= (int64_t)s->sparse_cap * 8;
  fl_free(s->sparse);
  s->sparse = NULL;
  s->nsparse = s->sparse_cap = 0;
}

static void hll_add(ex_agg_t *a, hll_state_t *s, uint64_t h) {
  if (s->dense) {
    dense_add(s->dense, hll_p(a), h);
    return;
  }
  /* Binary search for the insertion point in the sorted hash list. */
  uint32_t lo = 0, hi = s->nsparse;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (s->sparse[mid] < h)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < s->nsparse && s->sparse[lo] == h) return;
  uint32_t limit = (1u << hll_p(a)) / 8;
  if (s->nsparse + 1 > limit) {
    to_dense(a, s);
    dense_add(s->dense, hll_p(a), h);
    return;
  }
  if (s->nsparse == s->sparse_cap) {
    uint32_t cap = s->sparse_cap ? s->sparse_cap * 2 : 4;
    if (cap > limit) cap = limit;
    a->heap_bytes += ((int64_t)cap - s->sparse_cap) * 8;
    s->sparse = fl_realloc(s->sparse, (size_t)cap * 8);
    s->sparse_cap = cap;
  }
  memmove(s->sparse + lo + 1, s->sparse + lo, (size_t)(s->nsparse - lo) * 8);
  s->sparse[lo] = h;
  s->nsparse++;
}

static int hll_update(ex_agg_t *a, uint8_t *states, size_t stride, const uint32_t *gids,
                      const ty_vec_t *arg, const uint32_t *rows, uint32_t n, fl_err_t *err) {
  EX_AGG_EACH_ROW({ hll_add(a, (hll_state_t *)st, ex_agg__value_hash(arg, r)); });
  return FL_OK;
}

static int hll_combine(ex_agg_t *a, uint8_t *dst, const uint8_t *src, fl_err_t *err) {
  hll_state_t *d = (hll_state_t *)dst;
  const hll_state_t *s = (const hll_state_t *)src;
  if (s->dense) {
    if (!d->dense) to_dense(a, d);
    uint32_t m = 1u << hll_p(a);
    for (uint32_t i = 0; i < m; i++)
      if (s->dense[i] > d->dense[i]) d->dense[i] = s->dense[i];
  } else {
    for (uint32_t i = 0; i < s->nsparse; i++) hll_add(a, d, s->sparse[i]);
  }
  return FL_OK;
}

/* Ertl's sigma and tau series (Algorithm 6 of the paper). */
static double hll_sigma(double x) {
  if (x == 1) return INFINITY;
  double y = 1, z = x, zp;
  do {
    x *= x;
    zp = z;
    z += x * y;
    y += y;
  } while (zp != z);
  return z;
}

static double hll_tau(double x) {
  if (x == 0 || x == 1) return 0;
  double y = 1, z = 1 - x, zp;
  do {
    x = sqrt(x);
    zp = z;
    y *= 0.5;
    z -= (1 - x) * (1 - x) * y;
  } while (zp != z);
  return z / 3;
}

static int64_t hll_estimate(const ex_agg_t *a, const hll_state_t *s) {
  if (!s->dense) return s->nsparse;
  uint32_t p = hll_p(a), q = 64 - p, m = 1u << p;
  uint32_t c[66] = {0};
  for (uint32_t i = 0; i < m; i++) c[s->dense[i]]++;
  double dm = m;
  double z = dm * hll_tau(1 - c[q + 1] / dm);
  for (uint32_t k = q; k >= 1; k--) z = 0.5 * (z + c[k]);
  z += dm * hll_sigma(c[0] / dm);
  return llround(dm * dm / (2 * log(2)) / z);
}

static int hll_finalize(ex_agg_t *a, const uint8_t *states, size_t stride, uint32_t n,
                        ty_vec_t *out, fl_err_t *err) {
  for (uint32_t g = 0; g < n; g++)
    ty_vec_append_i64(out, hll_estimate(a, (const hll_state_t *)(states + (size_t)g * stride)));
  return FL_OK;
}

static void hll_serialize(ex_agg_t *a, const uint8_t *st, fl_buf_t *out) {
  const hll_state_t *s = (const hll_state_t *)st;
  if (s->dense) {
    fl_buf_append_u8(out, 1);
    fl_buf_append(out, s->dense, (size_t)1 << hll_p(a));
  } else {
    fl_buf_append_u8(out, 0);
    fl_buf_append_le32(out, s->nsparse);
    fl_buf_append(out, s->sparse, (size_t)s->nsparse * 8);
  }
}

static int hll_deserialize(ex_agg_t *a, uint8_t *st, fl_rd_t *r, fl_err_t *err) {
  hll_state_t *s = (hll_state_t *)st;
  uint8_t kind;
  const uint8_t *p;
  int rc = fl_rd_u8(r, &kind, err);
  if (rc) return rc;
  if (kind == 1) {
    uint32_t m = 1u << hll_p(a);
    if ((rc = fl_rd_bytes(r, m, &p, err))) return rc;
    for (uint32_t i = 0; i < m; i++)
      if (p[i] > 65 - hll_p(a))
        return fl_err_set(err, FL_ECORRUPT, "%s: HyperLogLog register %u out of range", r->what, i);
    if (!s->dense) to_dense(a, s);
    memcpy(s->dense, p, m);
    return FL_OK;
  }
  uint32_t cnt;
  if (kind != 0 || (rc = fl_rd_le32(r, &cnt, err)))
    return rc ? rc
              : fl_err_set(err, FL_ECORRUPT, "%s: bad HyperLogLog state tag %u", r->what, kind);
  if (cnt > (1u << hll_p(a)) / 8 || (size_t)cnt * 8 > fl_rd_left(r))
    return fl_err_set(err, FL_ECORRUPT, "%s: HyperLogLog state with %u hashes", r->what, cnt);
  if ((rc = fl_rd_bytes(r, (size_t)cnt * 8, &p, err))) return rc;
  for (uint32_t i = 0; i < cnt; i++) hll_add(a, s, fl_load_le64(p + (size_t)i * 8));
  return FL_OK;
}

static const ex_agg_fn_t hll_fn = {
    .name = "approx_distinct",
    .state_size = sizeof(hll_state_t),
    .state_align = 8,
    .init = hll_init,
    .update = hll_update,
    .combine = hll_combine,
    .finalize = hll_finalize,
    .serialize = hll_serialize,
    .deserialize = hll_deserialize,
    .destroy = hll_destroy,
};

int ex__agg_bind_approx_distinct(ex_agg_t *a, fl_err_t *err) {
  if (ty_is_nested(a->arg))
    return fl_err_set(err, FL_EUNSUPPORTED,
                      "approx_distinct(%s) is not supported: the argument must be a primitive type",
                      ty_kind_name(a->arg->kind));
  double e = isnan(a->param) ? 0.023 : a->param;
  if (!(e >= 0.0040625 && e <= 0.26))
    return fl_err_set(err, FL_EINVALID,
                      "approx_distinct: max standard error must be in [0.0040625, 0.26], got %g",
                      e);
  uint32_t p = 4;
  while (p < 16 && 1.04 / sqrt((double)(1u << p)) > e) p++;
  a->fn = &hll_fn;
  a->variant = p;
  a->param = e;
  a->out = ty_primitive(TY_LONG);
  return FL_OK;
}
