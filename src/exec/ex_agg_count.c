/*
 * ex_agg_count.c - count(*) and count(x): a bigint per group that starts at
 * zero, so a group (or a global aggregate over no rows) counts 0, never
 * NULL.
 */
#include "exec/ex_agg.h"

static void count_init(ex_agg_t *a, uint8_t *st) { memset(st, 0, 8); }

static int count_update(ex_agg_t *a, uint8_t *states, size_t stride, const uint32_t *gids,
                        const ty_vec_t *arg, const uint32_t *rows, uint32_t n, fl_err_t *err) {
  if (arg && arg->null_count) {
    EX_AGG_EACH_ROW({ (*(int64_t *)st)++; });
    return FL_OK;
  }
  /* Runs of one group (rows sorted by group) count at once. */
  for (uint32_t k = 0; k < n;) {
    uint32_t g = gids[k], k0 = k;
    while (k < n && gids[k] == g) k++;
    *(int64_t *)(states + (size_t)g * stride) += k - k0;
  }
  return FL_OK;
}

static int count_combine(ex_agg_t *a, uint8_t *dst, const uint8_t *src, fl_err_t *err) {
  *(int64_t *)dst += *(const int64_t *)src;
  return FL_OK;
}

static int count_finalize(ex_agg_t *a, const uint8_t *states, size_t stride, uint32_t n,
                          ty_vec_t *out, fl_err_t *err) {
  for (uint32_t g = 0; g < n; g++)
    ty_vec_append_i64(out, *(const int64_t *)(states + (size_t)g * stride));
  return FL_OK;
}

static void count_serialize(ex_agg_t *a, const uint8_t *st, fl_buf_t *out) {
  fl_buf_append_le64(out, (uint64_t) * (const int64_t *)st);
}

static int count_deserialize(ex_agg_t *a, uint8_t *st, fl_rd_t *r, fl_err_t *err) {
  uint64_t v;
  int rc = fl_rd_le64(r, &v, err);
  if (!rc) *(int64_t *)st = (int64_t)v;
  return rc;
}

static const ex_agg_fn_t count_fn = {
    .name = "count",
    .state_size = 8,
    .state_align = 8,
    .init = count_init,
    .update = count_update,
    .combine = count_combine,
    .finalize = count_finalize,
    .serialize = count_serialize,
    .deserialize = count_deserialize,
};

int ex__agg_bind_count(ex_agg_t *a, fl_err_t *err) {
  a->fn = &count_fn;
  a->out = ty_primitive(TY_LONG);
  return FL_OK;
}
