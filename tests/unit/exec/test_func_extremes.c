/*
 * test_func_extremes.c - values at the edges of their storage, as a
 * damaged or hostile file could deliver them: every function either
 * answers or fails with an error, never overflows (the sanitizer build
 * turns any undefined behaviour here into a failure).
 */
#include "ft.h"
#include "test.h"

static char last_error[768];

static int run_one(ex_ctx_t *ctx, const char *fn, const ex_type_t *types,
                   const ty_vec_t *const *args, size_t n) {
  ex_rows_t rows = {.nrows = args[0]->len, .n = args[0]->len};
  ty_vec_t *out = NULL;
  fl_err_t err;
  fl_err_clear(&err);
  int rc = ex_func_eval(ctx, fn, types, args, n, &rows, &out, NULL, &err);
  ty_vec_free(out);
  snprintf(last_error, sizeof last_error, "%s", rc ? err.msg : "");
  if (rc != FL_OK && rc != FL_EINVALID) {
    t_fail(__FILE__, __LINE__, "%s: unexpected code %s: %s", fn, fl_code_name(rc), err.msg);
    return -1;
  }
  return 0;
}

TEST(extreme_temporal_values) {
  fl_arena_t *a = fl_arena_new(0);
  ex_ctx_t ctx;
  fl_err_t err;
  const fl_tz_t *ny;
  CHECK_OK(fl_tz_get("America/New_York", 16, &ny, &err), &err);
  ex_ctx_init(&ctx, a, ny, 0);
  ty_vec_t *d = ty_vec_new(ty_primitive(TY_DATE), 4),
           *ts = ty_vec_new(ty_primitive(TY_TIMESTAMP), 4);
  ty_vec_t *tz = ty_vec_new(ty_primitive(TY_TIMESTAMPTZ), 4),
           *unit = ty_vec_new(ty_primitive(TY_STRING), 1);
  ty_vec_t *n = ty_vec_new(ty_primitive(TY_LONG), 1), *fmt = ty_vec_new(ty_primitive(TY_STRING), 1);
  int32_t dv[] = {INT32_MAX, INT32_MIN, 0, -1};
  int64_t tv[] = {INT64_MAX, INT64_MIN, 0, -1};
  for (int i = 0; i < 4; i++) {
    ty_vec_append_i32(d, dv[i]);
    ty_vec_append_i64(ts, tv[i]);
    ty_vec_append_i64(tz, tv[i]);
  }
  ty_vec_append_bytes(unit, "month", 5);
  ty_vec_append_i64(n, 1);
  ty_vec_append_bytes(fmt, "%Y-%m-%d %H:%i:%s", 17);
  const ex_tkind_t kinds[] = {EX_DATE, EX_TIMESTAMP, EX_TIMESTAMPTZ};
  const ty_vec_t *vecs[] = {d, ts, tz};
  const char *fields[] = {
      "year", "month", "day", "day_of_week", "week", "year_of_week", "last_day_of_month"};
  for (int k = 0; k < 3; k++) {
    ex_type_t t = ex_type(kinds[k]);
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
      if (run_one(&ctx, fields[f], &t, &vecs[k], 1)) return;
    if (k) {
      const char *tf[] = {"hour", "minute", "second"};
      for (int f = 0; f < 3; f++)
        if (run_one(&ctx, tf[f], &t, &vecs[k], 1)) return;
    }
    ex_type_t t2[2] = {ex_type(EX_VARCHAR), t};
    const ty_vec_t *a2[2] = {unit, vecs[k]};
    if (run_one(&ctx, "date_trunc", t2, a2, 2)) return;
    ex_type_t t3[3] = {ex_type(EX_VARCHAR), ex_type(EX_BIGINT), t};
    const ty_vec_t *a3[3] = {unit, n, vecs[k]};
    if (run_one(&ctx, "date_add", t3, a3, 3)) return;
    CHECK_STR(last_error,
              k == 0 ? "Date out of range: 2147483647 days from 1970-01-01"
                     : "Timestamp out of range: 9223372036854775807 microseconds from 1970-01-01");
    ex_type_t t4[3] = {ex_type(EX_VARCHAR), t, t};
    const ty_vec_t *a4[3] = {unit, vecs[k], vecs[k]};
    if (run_one(&ctx, "date_diff", t4, a4, 3)) return;
    ex_type_t tt[2] = {ex_type(EX_TIMESTAMPTZ), ex_type(EX_VARCHAR)};
    (void)tt;
    /* Casts among the temporal types and to text. */
    const ex_tkind_t to[] = {EX_DATE, EX_TIMESTAMP, EX_TIMESTAMPTZ, EX_VARCHAR, EX_TIME};
    for (int c = 0; c < 5; c++) {
      ex_type_t target = ex_type(to[c]);
      if (ex_cast_check(&t, &target, &err) != FL_OK) continue;
      ty_vec_t *out = ty_vec_new(ex_type_storage(&target, a), 4);
      ex_rows_t rows = {.nrows = 4, .n = 4};
      int rc = ex_cast_eval(&ctx, &t, &target, true, vecs[k], &rows, out, &err);
      ty_vec_free(out);
      CHECK(rc == FL_OK);
    }
    if (k) {
      ex_type_t tf[2] = {t, ex_type(EX_VARCHAR)};
      const ty_vec_t *af[2] = {vecs[k], fmt};
      if (run_one(&ctx, "date_format", tf, af, 2)) return;
      if (run_one(&ctx, "to_iso8601", &t, &vecs[k], 1)) return;
    }
  }
  ty_vec_free(d);
  ty_vec_free(ts);
  ty_vec_free(tz);
  ty_vec_free(unit);
  ty_vec_free(n);
  ty_vec_free(fmt);
  fl_arena_free(a);
}

TEST(extreme_decimal_and_integer_values) {
  fl_arena_t *a = fl_arena_new(0);
  ex_ctx_t ctx;
  ex_ctx_init(&ctx, a, NULL, 0);
  /* Unscaled values beyond 38 digits, up to the 128-bit limits. */
  ty_vec_t *d = ty_vec_new(ty_decimal(a, 38, 2), 4);
  fl_i128 big = (fl_i128)(((unsigned __int128)1 << 127) - 1);
  ty_vec_append_i128(d, big);
  ty_vec_append_i128(d, -big - 1);
  ty_vec_append_i128(d, 0);
  ty_vec_append_i128(d, -1);
  ex_type_t t = ex_type_decimal(38, 2), t2[2] = {t, t};
  const ty_vec_t *a2[2] = {d, d};
  const char *ops[] = {"+", "-", "*", "/", "%", "=", "<", "greatest"};
  for (int o = 0; o < 8; o++)
    if (run_one(&ctx, ops[o], t2, a2, 2)) return;
  const char *un[] = {"negate", "abs", "sign", "round", "floor", "ceil", "truncate"};
  for (int o = 0; o < 7; o++)
    if (run_one(&ctx, un[o], &t, a2, 1)) return;
  const ex_tkind_t to[] = {EX_VARCHAR, EX_BIGINT, EX_DOUBLE, EX_INTEGER};
  fl_err_t err;
  for (int c = 0; c < 4; c++) {
    ex_type_t target = ex_type(to[c]);
    ty_vec_t *out = ty_vec_new(ex_type_storage(&target, a), 4);
    ex_rows_t rows = {.nrows = 4, .n = 4};
    CHECK(ex_cast_eval(&ctx, &t, &target, true, d, &rows, out, &err) == FL_OK);
    ty_vec_free(out);
  }
  ex_type_t t10 = ex_type_decimal(10, 0);
  ty_vec_t *out = ty_vec_new(ex_type_storage(&t10, a), 4);
  ex_rows_t rows = {.nrows = 4, .n = 4};
  CHECK(ex_cast_eval(&ctx, &t, &t10, true, d, &rows, out, &err) == FL_OK);
  ty_vec_free(out);
  ty_vec_free(d);
  /* Integers at their limits through every unary integer function. */
  ty_vec_t *i = ty_vec_new(ty_primitive(TY_LONG), 2);
  ty_vec_append_i64(i, INT64_MIN);
  ty_vec_append_i64(i, INT64_MAX);
  ex_type_t bi = ex_type(EX_BIGINT);
  const ty_vec_t *ai[1] = {i};
  const char *iu[] = {"negate", "abs", "sign", "round", "chr", "random", "from_unixtime"};
  for (int o = 0; o < 7; o++)
    if (run_one(&ctx, iu[o], &bi, ai, 1)) return;
  ex_type_t b2[2] = {bi, bi};
  const ty_vec_t *ai2[2] = {i, i};
  if (run_one(&ctx, "round", b2, ai2, 2)) return;
  ty_vec_free(i);
  fl_arena_free(a);
}
