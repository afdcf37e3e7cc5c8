/*
 * test_agg.c - every aggregate function through its kernel interface
 * against a brute-force computation done here, per group, over random
 * values with NULLs: in one pass, and in two halves whose second state
 * goes through serialize/deserialize before being combined (the partial
 * aggregation and spill path). Also the Trino rules for result types,
 * overflow and decimal rounding, and the error bounds of approx_distinct
 * and approx_percentile.
 */
#include <math.h>
#include <stdlib.h>

#include "exec/ex_agg.h"
#include "exec_test_util.h"
#include "test.h"
#include "types/gen.h"

#define NG 37
#define NV 20000

typedef struct run {
  ex_agg_t *agg;
  uint8_t *states;
  size_t stride;
} run_t;

static void run_init(run_t *r, ex_agg_t *a, uint32_t ngroups) {
  r->agg = a;
  r->stride = ex_agg_align(a->fn->state_size, 16);
  r->states = aligned_alloc(16, r->stride * ngroups);
  for (uint32_t g = 0; g < ngroups; g++) a->fn->init(a, r->states + g * r->stride);
}

static void run_free(run_t *r, uint32_t ngroups) {
  if (r->agg->fn->destroy)
    for (uint32_t g = 0; g < ngroups; g++) r->agg->fn->destroy(r->agg, r->states + g * r->stride);
  free(r->states);
}

static int run_update(run_t *r, const ty_vec_t *v, const uint32_t *gids, uint32_t from, uint32_t to,
                      fl_err_t *err) {
  uint32_t *rows = fl_malloc((to - from + 1) * sizeof *rows);
  for (uint32_t i = from; i < to; i++) rows[i - from] = i;
  int rc = r->agg->fn->update(r->agg, r->states, r->stride, gids + from, v, rows, to - from, err);
  fl_free(rows);
  return rc;
}

/* One pass and two halves (second serialized, deserialized, combined):
 * both finalized into out1 and out2. */
static int aggregate_n(ex_agg_t *a, const ty_vec_t *v, uint32_t nrows, const uint32_t *gids,
                       ty_vec_t *out1, ty_vec_t *out2, fl_err_t *err);
static int aggregate(ex_agg_t *a, const ty_vec_t *v, const uint32_t *gids, ty_vec_t *out1,
                     ty_vec_t *out2, fl_err_t *err) {
  return aggregate_n(a, v, v ? v->len : NV, gids, out1, out2, err);
}

static int aggregate_n(ex_agg_t *a, const ty_vec_t *v, uint32_t nrows, const uint32_t *gids,
                       ty_vec_t *out1, ty_vec_t *out2, fl_err_t *err) {
  run_t one, h1, h2, h3;
  run_init(&one, a, NG);
  run_init(&h1, a, NG);
  run_init(&h2, a, NG);
  run_init(&h3, a, NG);
  int rc = run_update(&one, v, gids, 0, nrows, err);
  if (!rc) rc = run_update(&h1, v, gids, 0, nrows / 3, err);
  if (!rc) rc = run_update(&h2, v, gids, nrows / 3, nrows, err);
  fl_buf_t buf;
  fl_buf_init(&buf);
  for (uint32_t g = 0; g < NG && !rc; g++) {
    fl_buf_clear(&buf);
    a->fn->serialize(a, h2.states + g * h2.stride, &buf);
    fl_rd_t rd;
    fl_rd_init(&rd, buf.data, buf.len, "state");
    rc = a->fn->deserialize(a, h3.states + g * h3.stride, &rd, err);
    if (!rc && fl_rd_left(&rd)) rc = fl_err_set(err, FL_ECORRUPT, "state bytes left over");
    if (!rc) rc = a->fn->combine(a, h1.states + g * h1.stride, h3.states + g * h3.stride, err);
  }
  fl_buf_free(&buf);
  if (!rc) rc = a->fn->finalize(a, one.states, one.stride, NG, out1, err);
  if (!rc) rc = a->fn->finalize(a, h1.states, h1.stride, NG, out2, err);
  run_free(&one, NG);
  run_free(&h1, NG);
  run_free(&h2, NG);
  run_free(&h3, NG);
  return rc;
}

typedef struct data {
  fl_arena_t *arena;
  uint32_t gids[NV];
  ty_vec_t *l, *d, *dec, *s, *b, *i;
} data_t;

static void make_data(data_t *x, uint64_t seed) {
  x->arena = fl_arena_new(0);
  x->l = ty_vec_new(ty_primitive(TY_LONG), NV);
  x->i = ty_vec_new(ty_primitive(TY_INT), NV);
  x->d = ty_vec_new(ty_primitive(TY_DOUBLE), NV);
  x->dec = ty_vec_new(ty_decimal(x->arena, 12, 2), NV);
  x->s = ty_vec_new(ty_primitive(TY_STRING), NV);
  x->b = ty_vec_new(ty_primitive(TY_BOOLEAN), NV);
  for (uint32_t k = 0; k < NV; k++) {
    uint64_t r = tu_rand(&seed);
    x->gids[k] = (uint32_t)(r % NG);
    bool null = (r >> 8) % 7 == 0;
    /* Group 5 sees only NULLs; group 6 only one value. */
    if (x->gids[k] == 5) null = true;
    if (x->gids[k] == 6 && k > 40) x->gids[k] = 7;
    int64_t v = (int64_t)((r >> 16) % 20001) - 10000;
    if (null) {
      ty_vec_append_null(x->l);
      ty_vec_append_null(x->i);
      ty_vec_append_null(x->d);
      ty_vec_append_null(x->dec);
      ty_vec_append_null(x->s);
      ty_vec_append_null(x->b);
      continue;
    }
    ty_vec_append_i64(x->l, v * 1000003);
    ty_vec_append_i32(x->i, (int32_t)v);
    ty_vec_append_f64(x->d, (double)v / 8);
    ty_vec_append_i128(x->dec, (fl_i128)v * 12345);
    char s[16];
    int n = snprintf(s, sizeof s, "v%lld", (long long)(v % 300));
    ty_vec_append_bytes(x->s, s, (size_t)n);
    ty_vec_append_bool(x->b, (r >> 40) % 5 != 0);
  }
}

static void free_data(data_t *x) {
  ty_vec_free(x->l);
  ty_vec_free(x->i);
  ty_vec_free(x->d);
  ty_vec_free(x->dec);
  ty_vec_free(x->s);
  ty_vec_free(x->b);
  fl_arena_free(x->arena);
}

static ex_agg_t *bind(fl_arena_t *a, const char *name, const ty_type_t *t, bool distinct) {
  fl_err_t err;
  ex_agg_t *agg = NULL;
  if (ex_agg_bind(a, name, t, distinct, NULL, 0, &agg, &err)) {
    fprintf(stderr, "bind %s: %s\n", name, err.msg);
    return NULL;
  }
  return agg;
}

TEST(agg_exact_functions_match_brute_force) {
  data_t x;
  make_data(&x, 1234);
  fl_err_t err;
  /* Reference per group. */
  int64_t cnt[NG] = {0}, cnt_all[NG] = {0}, lsum[NG] = {0}, imin[NG], imax[NG];
  fl_i128 dsum[NG] = {0};
  double fsum[NG] = {0};
  bool band[NG], bor[NG];
  char smin[NG][16], smax[NG][16];
  for (int g = 0; g < NG; g++) {
    imin[g] = INT64_MAX;
    imax[g] = INT64_MIN;
    band[g] = true;
    bor[g] = false;
    smin[g][0] = smax[g][0] = 0;
  }
  for (uint32_t k = 0; k < NV; k++) {
    uint32_t g = x.gids[k];
    cnt_all[g]++;
    if (ty_vec_is_null(x.l, k)) continue;
    int64_t v = TY_VEC_DATA(x.l, int64_t)[k];
    cnt[g]++;
    lsum[g] += v;
    dsum[g] += ty_vec_get_i128(x.dec, k);
    fsum[g] += TY_VEC_DATA(x.d, double)[k];
    if (v < imin[g]) imin[g] = v;
    if (v > imax[g]) imax[g] = v;
    size_t n;
    const uint8_t *p = ty_vec_get_bytes(x.s, k, &n);
    char s[16];
    snprintf(s, sizeof s, "%.*s", (int)n, p);
    if (!smin[g][0] || strcmp(s, smin[g]) < 0) snprintf(smin[g], 16, "%s", s);
    if (!smax[g][0] || strcmp(s, smax[g]) > 0) snprintf(smax[g], 16, "%s", s);
    bool b = x.b->data[k];
    band[g] = band[g] && b;
    bor[g] = bor[g] || b;
  }
  struct {
    const char *name;
    ty_vec_t *arg;
    ty_kind_t out_kind;
  } fns[] = {
      {"count", NULL, TY_LONG},      {"count", x.l, TY_LONG},    {"sum", x.l, TY_LONG},
      {"sum", x.dec, TY_DECIMAL},    {"sum", x.d, TY_DOUBLE},    {"min", x.l, TY_LONG},
      {"max", x.l, TY_LONG},         {"min", x.s, TY_STRING},    {"max", x.s, TY_STRING},
      {"bool_and", x.b, TY_BOOLEAN}, {"every", x.b, TY_BOOLEAN}, {"bool_or", x.b, TY_BOOLEAN},
      {"avg", x.l, TY_DOUBLE},       {"avg", x.dec, TY_DECIMAL}, {"sum", x.i, TY_LONG},
      {"any_value", x.s, TY_STRING},
  };
  for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
    ex_agg_t *a = bind(x.arena, fns[f].name, fns[f].arg ? fns[f].arg->type : NULL, false);
    CHECK(a != NULL);
    CHECK_EQ(a->out->kind, fns[f].out_kind);
    ty_vec_t *o1 = ty_vec_new(a->out, NG), *o2 = ty_vec_new(a->out, NG);
    CHECK_OK(aggregate(a, fns[f].arg, x.gids, o1, o2, &err), &err);
    CHECK_EQ(o1->len, NG);
    for (uint32_t g = 0; g < NG; g++) {
      bool empty = cnt[g] == 0;
      const char *n = fns[f].name;
      for (int pass = 0; pass < 2; pass++) {
        const ty_vec_t *o = pass ? o2 : o1;
        if (strcmp(n, "count") == 0) {
          CHECK_EQ(TY_VEC_DATA(o, int64_t)[g], fns[f].arg ? cnt[g] : cnt_all[g]);
          continue;
        }
        if (empty) {
          CHECK(ty_vec_is_null(o, g));
          continue;
        }
        CHECK(ty_vec_is_valid(o, g));
        size_t len;
        const uint8_t *p;
        if (strcmp(n, "sum") == 0 && fns[f].arg == x.l)
          CHECK_EQ(TY_VEC_DATA(o, int64_t)[g], lsum[g]);
        if (strcmp(n, "sum") == 0 && fns[f].arg == x.i)
          CHECK_EQ(TY_VEC_DATA(o, int64_t)[g], lsum[g] / 1000003);
        if (strcmp(n, "sum") == 0 && fns[f].arg == x.dec) {
          CHECK(ty_vec_get_i128(o, g) == dsum[g]);
          CHECK_EQ(a->out->precision, 38);
          CHECK_EQ(a->out->scale, 2);
        }
        if (strcmp(n, "sum") == 0 && fns[f].arg == x.d)
          CHECK(fabs(TY_VEC_DATA(o, double)[g] - fsum[g]) < 1e-6);
        if (strcmp(n, "min") == 0 && fns[f].arg == x.l)
          CHECK_EQ(TY_VEC_DATA(o, int64_t)[g], imin[g]);
        if (strcmp(n, "max") == 0 && fns[f].arg == x.l)
          CHECK_EQ(TY_VEC_DATA(o, int64_t)[g], imax[g]);
        if (strcmp(n, "min") == 0 && fns[f].arg == x.s) {
          p = ty_vec_get_bytes(o, g, &len);
          CHECK(len == strlen(smin[g]) && memcmp(p, smin[g], len) == 0);
        }
        if (strcmp(n, "max") == 0 && fns[f].arg == x.s) {
          p = ty_vec_get_bytes(o, g, &len);
          CHECK(len == strlen(smax[g]) && memcmp(p, smax[g], len) == 0);
        }
        if (strcmp(n, "any_value") == 0) {
          /* Some non-NULL value of the group. */
          p = ty_vec_get_bytes(o, g, &len);
          bool found = false;
          for (uint32_t k = 0; k < NV && !found; k++)
            if (x.gids[k] == g && ty_vec_is_valid(x.s, k)) {
              size_t m;
              const uint8_t *q = ty_vec_get_bytes(x.s, k, &m);
              found = m == len && memcmp(p, q, m) == 0;
            }
          CHECK(found);
        }
        if (strcmp(n, "bool_and") == 0 || strcmp(n, "every") == 0) CHECK_EQ(o->data[g], band[g]);
        if (strcmp(n, "bool_or") == 0) CHECK_EQ(o->data[g], bor[g]);
        if (strcmp(n, "avg") == 0 && fns[f].arg == x.l)
          CHECK(fabs(TY_VEC_DATA(o, double)[g] - (double)lsum[g] / (double)cnt[g]) < 1e-6);
        if (strcmp(n, "avg") == 0 && fns[f].arg == x.dec) {
          /* Half away from zero, at the argument's scale. */
          fl_i128 q = dsum[g] / cnt[g], rem = dsum[g] % cnt[g];
          if (rem < 0) rem = -rem;
          if (rem * 2 >= cnt[g]) q += dsum[g] < 0 ? -1 : 1;
          CHECK(ty_vec_get_i128(o, g) == q);
        }
      }
    }
    ty_vec_free(o1);
    ty_vec_free(o2);
  }
  free_data(&x);
}

TEST(agg_variance_family_matches_two_pass) {
  data_t x;
  make_data(&x, 77);
  fl_err_t err;
  const char *names[] = {"variance", "var_samp", "var_pop", "stddev", "stddev_samp", "stddev_pop"};
  for (int f = 0; f < 6; f++) {
    ex_agg_t *a = bind(x.arena, names[f], x.d->type, false);
    CHECK(a != NULL);
    ty_vec_t *o1 = ty_vec_new(a->out, NG), *o2 = ty_vec_new(a->out, NG);
    CHECK_OK(aggregate(a, x.d, x.gids, o1, o2, &err), &err);
    for (uint32_t g = 0; g < NG; g++) {
      double sum = 0, n = 0, m2 = 0;
      for (uint32_t k = 0; k < NV; k++)
        if (x.gids[k] == g && ty_vec_is_valid(x.d, k)) sum += TY_VEC_DATA(x.d, double)[k], n++;
      double mean = n ? sum / n : 0;
      for (uint32_t k = 0; k < NV; k++)
        if (x.gids[k] == g && ty_vec_is_valid(x.d, k)) {
          double dv = TY_VEC_DATA(x.d, double)[k] - mean;
          m2 += dv * dv;
        }
      bool pop = strstr(names[f], "pop") != NULL, root = strncmp(names[f], "stddev", 6) == 0;
      double denom = pop ? n : n - 1;
      for (int pass = 0; pass < 2; pass++) {
        const ty_vec_t *o = pass ? o2 : o1;
        if (denom <= 0) {
          CHECK(ty_vec_is_null(o, g));
          continue;
        }
        double want = root ? sqrt(m2 / denom) : m2 / denom;
        double got = TY_VEC_DATA(o, double)[g];
        CHECK(fabs(got - want) <= 1e-9 * fabs(want) + 1e-12);
      }
    }
    ty_vec_free(o1);
    ty_vec_free(o2);
  }
  free_data(&x);
}

TEST(agg_distinct_and_array_agg) {
  data_t x;
  make_data(&x, 4321);
  fl_err_t err;
  ex_agg_t *cd = bind(x.arena, "count", x.s->type, true);
  ex_agg_t *sd = bind(x.arena, "sum", x.i->type, true);
  ex_agg_t *aa = bind(x.arena, "array_agg", x.i->type, false);
  CHECK(cd && sd && aa);
  CHECK_EQ(aa->out->kind, TY_LIST);
  ty_vec_t *c1 = ty_vec_new(cd->out, NG), *c2 = ty_vec_new(cd->out, NG);
  ty_vec_t *s1 = ty_vec_new(sd->out, NG), *s2 = ty_vec_new(sd->out, NG);
  ty_vec_t *a1 = ty_vec_new(aa->out, NG), *a2 = ty_vec_new(aa->out, NG);
  CHECK_OK(aggregate(cd, x.s, x.gids, c1, c2, &err), &err);
  CHECK_OK(aggregate(sd, x.i, x.gids, s1, s2, &err), &err);
  CHECK_OK(aggregate(aa, x.i, x.gids, a1, a2, &err), &err);
  for (uint32_t g = 0; g < NG; g++) {
    /* Reference: distinct strings and ints of the group by marking. */
    static uint8_t seen_s[300 * 2 + 1], seen_i[20001];
    memset(seen_s, 0, sizeof seen_s);
    memset(seen_i, 0, sizeof seen_i);
    int64_t ndist = 0, sum = 0, rows = 0;
    for (uint32_t k = 0; k < NV; k++) {
      if (x.gids[k] != g) continue;
      rows++;
      if (ty_vec_is_null(x.i, k)) continue;
      int32_t v = TY_VEC_DATA(x.i, int32_t)[k];
      if (!seen_s[v % 300 + 300]++) ndist++;
      if (!seen_i[v + 10000]++) sum += v;
    }
    CHECK_EQ(TY_VEC_DATA(c1, int64_t)[g], ndist);
    CHECK_EQ(TY_VEC_DATA(c2, int64_t)[g], ndist);
    if (ndist == 0) {
      CHECK(ty_vec_is_null(s1, g) && ty_vec_is_null(s2, g));
    } else {
      CHECK_EQ(TY_VEC_DATA(s1, int64_t)[g], sum);
      CHECK_EQ(TY_VEC_DATA(s2, int64_t)[g], sum);
    }
    /* array_agg keeps NULLs and arrival order; halves combine in order. */
    for (int pass = 0; pass < 2; pass++) {
      const ty_vec_t *o = pass ? a2 : a1;
      if (rows == 0) {
        CHECK(ty_vec_is_null(o, g));
        continue;
      }
      CHECK_EQ(o->offsets[g + 1] - o->offsets[g], rows);
      int32_t e = o->offsets[g];
      for (uint32_t k = 0; k < NV; k++) {
        if (x.gids[k] != g) continue;
        const ty_vec_t *el = o->children[0];
        CHECK_EQ(ty_vec_is_null(el, (uint32_t)e), ty_vec_is_null(x.i, k));
        if (ty_vec_is_valid(x.i, k))
          CHECK_EQ(TY_VEC_DATA(el, int32_t)[e], TY_VEC_DATA(x.i, int32_t)[k]);
        e++;
      }
    }
  }
  ty_vec_free(c1);
  ty_vec_free(c2);
  ty_vec_free(s1);
  ty_vec_free(s2);
  ty_vec_free(a1);
  ty_vec_free(a2);
  free_data(&x);
}

TEST(agg_trino_overflow_and_rounding) {
  fl_arena_t *ar = fl_arena_new(0);
  fl_err_t err;
  uint32_t gids[4] = {0, 0, 0, 0};
  /* decimal(38,0) near the limit: the sum exceeds 38 digits. */
  const ty_type_t *d38 = ty_decimal(ar, 38, 0);
  ty_vec_t *v = ty_vec_new(d38, 4);
  ty_vec_append_i128(v, ty_decimal_max(38));
  ty_vec_append_i128(v, 1);
  ex_agg_t *a = bind(ar, "sum", d38, false);
  ty_vec_t *o1 = ty_vec_new(a->out, 1), *o2 = ty_vec_new(a->out, 1);
  CHECK_ERR(aggregate(a, v, gids, o1, o2, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "decimal overflow") != NULL);
  ty_vec_free(o1);
  ty_vec_free(o2);
  ty_vec_free(v);
  /* avg of decimal rounds half away from zero: avg(1, 2) = 2, avg(-1, -2) = -2. */
  const ty_type_t *d5 = ty_decimal(ar, 5, 0);
  v = ty_vec_new(d5, 4);
  ty_vec_append_i128(v, 1);
  ty_vec_append_i128(v, 2);
  uint32_t g2[2] = {0, 0};
  a = bind(ar, "avg", d5, false);
  CHECK_EQ(a->out->precision, 5);
  o1 = ty_vec_new(a->out, 1);
  o2 = ty_vec_new(a->out, 1);
  CHECK_OK(aggregate(a, v, g2, o1, o2, &err), &err);
  CHECK(ty_vec_get_i128(o1, 0) == 2);
  ty_vec_free(o1);
  ty_vec_free(o2);
  ty_vec_reset(v);
  ty_vec_append_i128(v, -1);
  ty_vec_append_i128(v, -2);
  o1 = ty_vec_new(a->out, 1);
  o2 = ty_vec_new(a->out, 1);
  CHECK_OK(aggregate(a, v, g2, o1, o2, &err), &err);
  CHECK(ty_vec_get_i128(o1, 0) == -2);
  ty_vec_free(o1);
  ty_vec_free(o2);
  ty_vec_free(v);
  /* Types: avg(int) is double, sum(real) is real, avg(real) is real. */
  CHECK_EQ(bind(ar, "avg", ty_primitive(TY_INT), false)->out->kind, TY_DOUBLE);
  CHECK_EQ(bind(ar, "sum", ty_primitive(TY_FLOAT), false)->out->kind, TY_FLOAT);
  CHECK_EQ(bind(ar, "avg", ty_primitive(TY_FLOAT), false)->out->kind, TY_FLOAT);
  CHECK_EQ(bind(ar, "stddev", ty_primitive(TY_LONG), false)->out->kind, TY_DOUBLE);
  /* min/max order doubles as Trino: NaN above everything. */
  v = ty_vec_new(ty_primitive(TY_DOUBLE), 4);
  ty_vec_append_f64(v, 1.0);
  ty_vec_append_f64(v, NAN);
  ty_vec_append_f64(v, -INFINITY);
  uint32_t g3[3] = {0, 0, 0};
  a = bind(ar, "max", v->type, false);
  o1 = ty_vec_new(a->out, 1);
  o2 = ty_vec_new(a->out, 1);
  CHECK_OK(aggregate(a, v, g3, o1, o2, &err), &err);
  CHECK(isnan(TY_VEC_DATA(o1, double)[0]) && isnan(TY_VEC_DATA(o2, double)[0]));
  ty_vec_free(o1);
  ty_vec_free(o2);
  ty_vec_free(v);
  fl_arena_free(ar);
}

TEST(agg_approx_distinct_error_bound) {
  fl_arena_t *ar = fl_arena_new(0);
  fl_err_t err;
  const uint64_t cards[] = {1, 10, 200, 1000, 5000, 50000, 300000};
  double worst = 0;
  for (size_t c = 0; c < sizeof cards / sizeof cards[0]; c++) {
    uint64_t n = cards[c];
    /* Each distinct value arrives three times, the second time into a
     * separate sketch that is combined at the end. */
    ty_vec_t *v = ty_vec_new(ty_primitive(TY_LONG), 4096);
    ex_agg_t *a = bind(ar, "approx_distinct", v->type, false);
    CHECK_EQ(a->variant, 11); /* 2048 registers for Trino's 2.3% */
    run_t r1, r2;
    run_init(&r1, a, 1);
    run_init(&r2, a, 1);
    uint32_t gids[4096] = {0}, rows[4096];
    for (uint32_t i = 0; i < 4096; i++) rows[i] = i;
    uint64_t seed = c + 1;
    for (int rep = 0; rep < 3; rep++) {
      for (uint64_t i = 0; i < n;) {
        ty_vec_reset(v);
        for (; i < n && v->len < 4096; i++) ty_vec_append_i64(v, (int64_t)(i * 2654435761u + seed));
        run_t *r = rep == 1 ? &r2 : &r1;
        CHECK_OK(a->fn->update(a, r->states, r->stride, gids, v, rows, v->len, &err), &err);
      }
    }
    CHECK_OK(a->fn->combine(a, r1.states, r2.states, &err), &err);
    ty_vec_t *o = ty_vec_new(a->out, 1);
    CHECK_OK(a->fn->finalize(a, r1.states, r1.stride, 1, o, &err), &err);
    double est = (double)TY_VEC_DATA(o, int64_t)[0], rel = fabs(est - (double)n) / (double)n;
    printf("  approx_distinct: true %llu, estimate %.0f, error %.2f%%\n", (unsigned long long)n,
           est, rel * 100);
    if (n <= 256) CHECK_EQ((uint64_t)est, n); /* exact while sparse */
    CHECK(rel <= 3 * 0.023);                  /* three standard errors */
    if (rel > worst) worst = rel;
    ty_vec_free(o);
    run_free(&r1, 1);
    run_free(&r2, 1);
    ty_vec_free(v);
  }
  /* A tighter requested error chooses more registers. */
  ex_agg_t *a;
  double e = 0.005;
  CHECK_OK(ex_agg_bind(ar, "approx_distinct", ty_primitive(TY_LONG), false, &e, 1, &a, &err), &err);
  CHECK_EQ(a->variant, 16);
  e = 0.5;
  CHECK_ERR(ex_agg_bind(ar, "approx_distinct", ty_primitive(TY_LONG), false, &e, 1, &a, &err),
            FL_EINVALID);
  fl_arena_free(ar);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

TEST(agg_approx_percentile_rank_error) {
  fl_arena_t *ar = fl_arena_new(0);
  fl_err_t err;
  const uint32_t n = 100000, parts = 10;
  double *vals = fl_malloc(n * sizeof *vals), *sorted = fl_malloc(n * sizeof *sorted);
  const double ps[] = {0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0};
  double worst = 0;
  for (int dist = 0; dist < 3; dist++) {
    uint64_t seed = 50 + dist;
    for (uint32_t i = 0; i < n; i++) {
      double u = (double)(tu_rand(&seed) >> 11) * 0x1.0p-53;
      vals[i] = dist == 0   ? u * 1000
                : dist == 1 ? -log(1 - u) * 10
                            : (double)i; /* uniform, skewed, sorted */
    }
    memcpy(sorted, vals, n * sizeof *vals);
    qsort(sorted, n, sizeof *sorted, cmp_double);
    for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++) {
      ex_agg_t *a;
      CHECK_OK(ex_agg_bind(ar, "approx_percentile", ty_primitive(TY_DOUBLE), false, &ps[pi], 1, &a,
                           &err),
               &err);
      /* Ten partial digests over slices, serialized and merged. */
      run_t total;
      run_init(&total, a, 1);
      ty_vec_t *v = ty_vec_new(ty_primitive(TY_DOUBLE), n / parts);
      uint32_t *gids = fl_calloc(n / parts, sizeof *gids),
               *rows = fl_malloc(n / parts * sizeof *rows);
      for (uint32_t i = 0; i < n / parts; i++) rows[i] = i;
      for (uint32_t p = 0; p < parts; p++) {
        run_t part, back;
        run_init(&part, a, 1);
        run_init(&back, a, 1);
        ty_vec_reset(v);
        for (uint32_t i = p * (n / parts); i < (p + 1) * (n / parts); i++)
          ty_vec_append_f64(v, vals[i]);
        CHECK_OK(a->fn->update(a, part.states, part.stride, gids, v, rows, v->len, &err), &err);
        fl_buf_t buf;
        fl_buf_init(&buf);
        a->fn->serialize(a, part.states, &buf);
        fl_rd_t rd;
        fl_rd_init(&rd, buf.data, buf.len, "digest");
        CHECK_OK(a->fn->deserialize(a, back.states, &rd, &err), &err);
        CHECK_OK(a->fn->combine(a, total.states, back.states, &err), &err);
        fl_buf_free(&buf);
        run_free(&part, 1);
        run_free(&back, 1);
      }
      ty_vec_t *o = ty_vec_new(a->out, 1);
      CHECK_OK(a->fn->finalize(a, total.states, total.stride, 1, o, &err), &err);
      double got = TY_VEC_DATA(o, double)[0];
      /* Rank error: where the answer falls in the data versus p. */
      uint32_t lo = 0, hi = n;
      while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (sorted[mid] < got)
          lo = mid + 1;
        else
          hi = mid;
      }
      double rank = (double)lo / (double)n, rerr = fabs(rank - ps[pi]);
      if (rerr > worst) worst = rerr;
      CHECK(rerr <= 0.01);
      if (ps[pi] == 0.0) CHECK(got == sorted[0]);
      if (ps[pi] == 1.0) CHECK(got == sorted[n - 1]);
      ty_vec_free(o);
      ty_vec_free(v);
      fl_free(gids);
      fl_free(rows);
      run_free(&total, 1);
    }
  }
  printf("  approx_percentile: worst rank error %.4f%% over 3 distributions x 10 percentiles\n",
         worst * 100);
  fl_free(vals);
  fl_free(sorted);
  fl_arena_free(ar);
}

/* min, max and any_value over every orderable primitive type, generated
 * with edge values (extremes, NaN, -0.0, empty strings), against a
 * reference built on ty_value_cmp. */
TEST(agg_min_max_every_type) {
  static const char *types[] = {"boolean",       "int",    "long",      "float",          "double",
                                "decimal(20,3)", "date",   "timestamp", "timestamptz_ns", "time",
                                "string",        "binary", "uuid",      "fixed(3)"};
  fl_arena_t *ar = fl_arena_new(0);
  fl_err_t err;
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    char text[64];
    snprintf(text, sizeof text, "v %s", types[t]);
    ty_schema_t *s;
    CHECK_OK(ty_schema_parse(ar, text, &s, &err), &err);
    ty_gen_opts_t go = {.seed = 9 + t, .null_fraction = 0.2, .edge_fraction = 0.1};
    ty_gen_t *g = ty_gen_new(&go);
    ty_batch_t *b = ty_batch_new(s, 3000);
    ty_gen_fill(g, b, 3000);
    ty_gen_free(g);
    const ty_vec_t *v = b->cols[0];
    uint32_t gids[3000];
    uint64_t seed = t;
    for (uint32_t k = 0; k < 3000; k++) gids[k] = (uint32_t)(tu_rand(&seed) % NG);
    const char *fns[2] = {"min", "max"};
    for (int f = 0; f < 2; f++) {
      ex_agg_t *a = bind(ar, fns[f], v->type, false);
      CHECK(a != NULL);
      ty_vec_t *o1 = ty_vec_new(a->out, NG), *o2 = ty_vec_new(a->out, NG);
      CHECK_OK(aggregate_n(a, v, 3000, gids, o1, o2, &err), &err);
      for (uint32_t grp = 0; grp < NG; grp++) {
        int64_t best = -1;
        for (uint32_t k = 0; k < 3000; k++) {
          if (gids[k] != grp || ty_vec_is_null(v, k)) continue;
          if (best < 0) {
            best = k;
            continue;
          }
          ty_value_t x = ty_value_from_vec(v, k), y = ty_value_from_vec(v, (uint32_t)best);
          int c = ty_value_cmp(&x, &y);
          if (f == 0 ? c < 0 : c > 0) best = k;
        }
        for (int pass = 0; pass < 2; pass++) {
          const ty_vec_t *o = pass ? o2 : o1;
          if (best < 0) {
            CHECK(ty_vec_is_null(o, grp));
            continue;
          }
          ty_value_t want = ty_value_from_vec(v, (uint32_t)best), got = ty_value_from_vec(o, grp);
          CHECK(!got.is_null);
          if (ty_value_cmp(&want, &got) != 0)
            t_fail(__FILE__, __LINE__, "%s(%s) group %u differs", fns[f], types[t], grp);
          CHECK(ty_value_cmp(&want, &got) == 0);
        }
      }
      ty_vec_free(o1);
      ty_vec_free(o2);
    }
    ty_batch_free(b);
  }
  fl_arena_free(ar);
}
