/*
 * ex_agg_distinct.c - the DISTINCT form of any aggregate: count(DISTINCT
 * x), sum(DISTINCT x), array_agg(DISTINCT x), ...
 *
 * The state is a set of the group's distinct argument values (a one-column
 * group hash table, created at the first value), so equal values count
 * once under the same equality GROUP BY uses. At finalize the inner
 * aggregate runs over the set's values. NULLs are left out of the set
 * unless the inner aggregate keeps them (array_agg). Sets combine by
 * union, and serialize as their value column.
 */
#include "base/alloc.h"
#include "exec/ex_agg.h"
#include "exec/ex_hash_table.h"
#include "exec/ex_spill.h"

typedef struct dist_state {
  ex_ht_t *set;
} dist_state_t;

#define INNER_STATE_MAX 128

static void dist_init(ex_agg_t *a, uint8_t *st) { ((dist_state_t *)st)->set = NULL; }

static void dist_destroy(ex_agg_t *a, uint8_t *st) {
  dist_state_t *s = (dist_state_t *)st;
  if (s->set) {
    a->heap_bytes -= (int64_t)ex_ht_bytes(s->set);
    ex_ht_free(s->set);
  }
  s->set = NULL;
}

/* Adds rows[0..n) of v to the set of state s. */
static void dist_add(ex_agg_t *a, dist_state_t *s, const ty_vec_t *v, const uint32_t *rows,
                     uint32_t n) {
  if (!s->set) {
    s->set = ex_ht_new(&a->arg, 1);
    a->heap_bytes += (int64_t)ex_ht_bytes(s->set);
  }
  uint32_t gids_local[256];
  uint32_t *gids = n <= 256 ? gids_local : fl_malloc(n * sizeof *gids);
  size_t before = ex_ht_bytes(s->set);
  ty_vec_t *cols[1] = {(ty_vec_t *)v};
  ex_ht_find_or_insert(s->set, cols, rows, n, NULL, gids);
  a->heap_bytes += (int64_t)ex_ht_bytes(s->set) - (int64_t)before;
  if (gids != gids_local) fl_free(gids);
}

static int dist_update(ex_agg_t *a, uint8_t *states, size_t stride, const uint32_t *gids,
                       const ty_vec_t *arg, const uint32_t *rows, uint32_t n, fl_err_t *err) {
  bool skip_nulls = !a->inner->fn->keeps_nulls && arg->null_count;
  uint32_t *run = fl_malloc((n ? n : 1) * sizeof *run);
  uint32_t k = 0;
  while (k < n) {
    uint32_t g = gids[k], m = 0;
    for (; k < n && gids[k] == g; k++)
      if (!skip_nulls || ty_vec_is_valid(arg, rows[k])) run[m++] = rows[k];
    if (m) dist_add(a, (dist_state_t *)(states + (size_t)g * stride), arg, run, m);
  }
  fl_free(run);
  return FL_OK;
}

static int dist_combine(ex_agg_t *a, uint8_t *dst, const uint8_t *src, fl_err_t *err) {
  const dist_state_t *s = (const dist_state_t *)src;
  if (s->set && ex_ht_groups(s->set))
    dist_add(a, (dist_state_t *)dst, ex_ht_keys(s->set, 0), NULL, ex_ht_groups(s->set));
  return FL_OK;
}

static int dist_finalize(ex_agg_t *a, const uint8_t *states, size_t stride, uint32_t n,
                         ty_vec_t *out, fl_err_t *err) {
  ex_agg_t *in = a->inner;
  _Alignas(16) uint8_t buf[INNER_STATE_MAX];
  uint32_t *rows = NULL, *zeros = NULL, cap = 0;
  int rc = FL_OK;
  for (uint32_t g = 0; g < n && !rc; g++) {
    const dist_state_t *s = (const dist_state_t *)(states + (size_t)g * stride);
    in->fn->init(in, buf);
    uint32_t m = s->set ? ex_ht_groups(s->set) : 0;
    if (m > cap) {
      cap = m;
      rows = fl_realloc(rows, cap * sizeof *rows);
      zeros = fl_realloc(zeros, cap * sizeof *zeros);
    }
    for (uint32_t i = 0; i < m; i++) {
      rows[i] = i;
      zeros[i] = 0;
    }
    if (m) rc = in->fn->update(in, buf, 0, zeros, ex_ht_keys(s->set, 0), rows, m, err);
    if (!rc) rc = in->fn->finalize(in, buf, 0, 1, out, err);
    if (in->fn->destroy) in->fn->destroy(in, buf);
  }
  fl_free(rows);
  fl_free(zeros);
  return rc;
}

static void dist_serialize(ex_agg_t *a, const uint8_t *st, fl_buf_t *out) {
  const dist_state_t *s = (const dist_state_t *)st;
  uint32_t m = s->set ? ex_ht_groups(s->set) : 0;
  fl_buf_append_u8(out, m ? 1 : 0);
  if (m) ex_vec_encode(ex_ht_keys(s->set, 0), m, out);
}

static int dist_deserialize(ex_agg_t *a, uint8_t *st, fl_rd_t *r, fl_err_t *err) {
  uint8_t has;
  int rc = fl_rd_u8(r, &has, err);
  if (rc || !has) return rc;
  ty_vec_t *tmp = ty_vec_new(a->arg, 16);
  rc = ex_vec_decode(r, tmp, err);
  if (!rc && tmp->len) dist_add(a, (dist_state_t *)st, tmp, NULL, tmp->len);
  ty_vec_free(tmp);
  return rc;
}

static const ex_agg_fn_t dist_fn = {
    .name = "distinct",
    .state_size = sizeof(dist_state_t),
    .state_align = 8,
    .init = dist_init,
    .update = dist_update,
    .combine = dist_combine,
    .finalize = dist_finalize,
    .serialize = dist_serialize,
    .deserialize = dist_deserialize,
    .destroy = dist_destroy,
};

int ex__agg_wrap_distinct(ex_agg_t *outer, ex_agg_t *inner, fl_err_t *err) {
  if (inner->fn->state_size > INNER_STATE_MAX || inner->fn->state_align > 16)
    return fl_err_set(err, FL_EINTERNAL, "%s(DISTINCT): state too large", inner->name);
  outer->fn = &dist_fn;
  outer->inner = inner;
  outer->out = inner->out;
  return FL_OK;
}
