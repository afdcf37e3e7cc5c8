/*
 * test_func_cond.c - COALESCE, IF, NULLIF and the lazy CASE helpers: a
 * branch is computed only for the rows that reach it.
 */
#include "exec/ex_cond.h"
#include "ft.h"
#include "test.h"

TEST(eager_kernels) {
  CHECK_STR(FTN("coalesce", "integer;bigint;bigint", 3, NULL, "2", "3", NULL, NULL, "3", NULL, NULL,
                NULL),
            "2|3|NULL");
  CHECK_STR(FTN("coalesce", "varchar;varchar", 2, "a", "b", NULL, "b"), "a|b");
  CHECK_STR(FT1("coalesce", "unknown;decimal(3,1)", NULL, "1.5"), "1.5");
  CHECK_STR(
      FTN("if", "boolean;integer;integer", 3, "true", "1", "2", NULL, "1", "2", "false", "1", "2"),
      "1|2|2");
  CHECK_STR(FT1("if", "boolean;varchar", "false", "x"), "NULL");
  CHECK_STR(FT1("if", "boolean;varchar;unknown", "false", "x", NULL), "NULL");
  CHECK_STR(FTN("nullif", "integer;integer", 3, "1", "1", "1", "2", NULL, "1"), "NULL|1|NULL");
  CHECK_STR(FT1("nullif", "decimal(2,1);decimal(3,2)", "1.0", "1.00"), "NULL");
  CHECK_STR(FT1("nullif", "varchar;varchar", "a", NULL), "a");
  CHECK_STR(FT1("nullif", "double;double", "NaN", "NaN"), "NaN");
}

/* CASE WHEN x = 0 THEN 0 ELSE 100 / x END, evaluated the lazy way. */
TEST(lazy_case_skips_rows) {
  fl_err_t err;
  fl_arena_t *a = fl_arena_new(0);
  ex_ctx_t ctx;
  ex_ctx_init(&ctx, a, NULL, 0);
  ex_type_t I = ex_type(EX_INTEGER);
  ty_vec_t *x = ty_vec_new(ty_primitive(TY_INT), 4), *zero = ty_vec_new(ty_primitive(TY_INT), 1),
           *hundred = ty_vec_new(ty_primitive(TY_INT), 1);
  ty_vec_append_i32(x, 0);
  ty_vec_append_i32(x, 5);
  ty_vec_append_null(x);
  ty_vec_append_i32(x, 20);
  ty_vec_append_i32(zero, 0);
  ty_vec_append_i32(hundred, 100);
  ex_rows_t all = {.nrows = 4, .n = 4};
  ex_type_t it[2] = {I, I};
  /* Eager evaluation of the ELSE branch fails on row 0. */
  ty_vec_t *bad = NULL;
  const ty_vec_t *div_args[2] = {hundred, x};
  CHECK_ERR(ex_func_eval(&ctx, "/", it, div_args, 2, &all, &bad, NULL, &err), FL_EINVALID);
  CHECK_STR(err.msg, "Division by zero");
  ty_vec_free(bad);
  ty_vec_t *cond = NULL, *then_v = NULL, *else_v = NULL;
  const ty_vec_t *eq_args[2] = {x, zero};
  CHECK_OK(ex_func_eval(&ctx, "=", it, eq_args, 2, &all, &cond, NULL, &err), &err);
  uint32_t t[4], rest[4], nt, nrest;
  ex_cond_split(cond, &all, t, &nt, rest, &nrest);
  CHECK_EQ(nt, 1);
  CHECK_EQ(nrest, 3); /* 5, NULL, 20: a NULL condition is not true */
  uint8_t which[4];
  ex_cond_reset(which, 4);
  ex_rows_t tr = {.nrows = 4, .sel = t, .n = nt}, rr = {.nrows = 4, .sel = rest, .n = nrest};
  const ty_vec_t *then_args[1] = {zero};
  ex_type_t one_t[1] = {I};
  CHECK_OK(ex_func_eval(&ctx, "abs", one_t, then_args, 1, &tr, &then_v, NULL, &err), &err);
  ex_cond_mark(which, t, nt, 0);
  CHECK_OK(ex_func_eval(&ctx, "/", it, div_args, 2, &rr, &else_v, NULL, &err), &err);
  ex_cond_mark(which, rest, nrest, 1);
  ty_vec_t *out = ty_vec_new(ty_primitive(TY_INT), 4);
  const ty_vec_t *branches[2] = {then_v, else_v};
  ex_cond_gather(out, branches, 2, which, &all);
  CHECK_EQ(out->len, 4);
  CHECK_EQ(out->null_count, 1);
  CHECK_EQ(TY_VEC_DATA(out, int32_t)[0], 0);
  CHECK_EQ(TY_VEC_DATA(out, int32_t)[1], 20);
  CHECK(ty_vec_is_null(out, 2));
  CHECK_EQ(TY_VEC_DATA(out, int32_t)[3], 5);
  ty_vec_free(out);
  ty_vec_free(cond);
  ty_vec_free(then_v);
  ty_vec_free(else_v);
  ty_vec_free(x);
  ty_vec_free(zero);
  ty_vec_free(hundred);
  fl_arena_free(a);
}

/* COALESCE(a, b) computing b only where a is NULL, on strings. */
TEST(lazy_coalesce_strings) {
  ty_vec_t *a = ty_vec_new(ty_primitive(TY_STRING), 3), *b = ty_vec_new(ty_primitive(TY_STRING), 3);
  ty_vec_append_bytes(a, "x", 1);
  ty_vec_append_null(a);
  ty_vec_append_null(a);
  ty_vec_append_bytes(b, "unused", 6);
  ty_vec_append_bytes(b, "yy", 2);
  ty_vec_append_null(b);
  ex_rows_t all = {.nrows = 3, .n = 3};
  uint32_t nulls[3], vals[3], nn, nv;
  ex_cond_split_null(a, &all, nulls, &nn, vals, &nv);
  CHECK_EQ(nn, 2);
  CHECK_EQ(nv, 1);
  uint8_t which[3];
  ex_cond_reset(which, 3);
  ex_cond_mark(which, vals, nv, 0);
  ex_rows_t nr = {.nrows = 3, .sel = nulls, .n = nn};
  uint32_t n2, v2, nulls2[3], vals2[3];
  ex_cond_split_null(b, &nr, nulls2, &n2, vals2, &v2);
  ex_cond_mark(which, vals2, v2, 1);
  ty_vec_t *out = ty_vec_new(ty_primitive(TY_STRING), 3);
  const ty_vec_t *br[2] = {a, b};
  ex_cond_gather(out, br, 2, which, &all);
  size_t n;
  const uint8_t *p = ty_vec_get_bytes(out, 0, &n);
  CHECK(n == 1 && p[0] == 'x');
  p = ty_vec_get_bytes(out, 1, &n);
  CHECK(n == 2 && memcmp(p, "yy", 2) == 0);
  CHECK(ty_vec_is_null(out, 2));
  CHECK_EQ(out->null_count, 1);
  ty_vec_free(out);
  ty_vec_free(a);
  ty_vec_free(b);
}
