/*
 * test_func_array.c - cardinality, element_at, the subscript operator,
 * contains and array_join over the arrays split() makes, the functions
 * that build arrays row by row, and the fixed/varbinary adaptation.
 */
#include "exec/ex_vec.h"
#include "ft.h"
#include "test.h"

/* Splits the strings by ',' and applies fn(array[, extra]) to the result;
 * extra is one constant argument of type extra_type (or NULL). */
static const char *on_split(const char *fn, int nrows, const char *const *strings,
                            const char *extra_type, const char *extra, const char *extra2) {
  fl_err_t err;
  fl_arena_t *a = fl_arena_new(0);
  ex_ctx_t ctx;
  ex_ctx_init(&ctx, a, NULL, 0);
  ty_vec_t *s = ty_vec_new(ty_primitive(TY_STRING), (uint32_t)nrows),
           *d = ty_vec_new(ty_primitive(TY_STRING), 1);
  for (int r = 0; r < nrows; r++) {
    if (strings[r])
      ty_vec_append_bytes(s, strings[r], strlen(strings[r]));
    else
      ty_vec_append_null(s);
  }
  ty_vec_append_bytes(d, ",", 1);
  ex_type_t vt[2] = {ex_type(EX_VARCHAR), ex_type(EX_VARCHAR)};
  const ty_vec_t *sa[2] = {s, d};
  ex_rows_t rows = {.nrows = (uint32_t)nrows, .n = (uint32_t)nrows};
  ty_vec_t *arr = NULL, *out = NULL, *x = NULL, *x2 = NULL;
  ex_type_t at, rt;
  int rc = ex_func_eval(&ctx, "split", vt, sa, 2, &rows, &arr, &at, &err);
  ex_type_t types[3] = {at};
  const ty_vec_t *args[3] = {arr};
  size_t n = 1;
  if (rc == FL_OK && extra_type) {
    ex_type_parse(extra_type, &types[1], &err);
    x = ty_vec_new(ex_type_storage(&types[1], a), 1);
    if (types[1].kind == EX_BIGINT)
      ty_vec_append_i64(x, atoll(extra));
    else
      ty_vec_append_bytes(x, extra, strlen(extra));
    args[1] = x;
    n = 2;
    if (extra2) {
      types[2] = ex_type(EX_VARCHAR);
      x2 = ty_vec_new(ty_primitive(TY_STRING), 1);
      ty_vec_append_bytes(x2, extra2, strlen(extra2));
      args[2] = x2;
      n = 3;
    }
  }
  if (rc == FL_OK) rc = ex_func_eval(&ctx, fn, types, args, n, &rows, &out, &rt, &err);
  if (rc) {
    snprintf(ft_result, sizeof ft_result, "ERR:%s", err.msg);
  } else {
    size_t at_ = 0;
    ft_result[0] = 0;
    for (int r = 0; r < nrows; r++) {
      char cell[1024];
      ft__text(&ctx, &rt, out, (uint32_t)r, cell, sizeof cell);
      at_ += (size_t)snprintf(ft_result + at_, sizeof ft_result - at_, "%s%s", r ? "|" : "", cell);
    }
  }
  ty_vec_free(s);
  ty_vec_free(d);
  ty_vec_free(arr);
  ty_vec_free(out);
  ty_vec_free(x);
  ty_vec_free(x2);
  fl_arena_free(a);
  return ft_result;
}

static const char *const rows3[] = {"a,b,c", "", NULL};

TEST(cardinality_and_element_at) {
  CHECK_STR(on_split("cardinality", 3, rows3, NULL, NULL, NULL), "3|1|NULL");
  CHECK_STR(on_split("element_at", 3, rows3, "bigint", "2", NULL), "b|NULL|NULL");
  CHECK_STR(on_split("element_at", 3, rows3, "bigint", "-1", NULL), "c||NULL");
  CHECK_STR(on_split("element_at", 3, rows3, "bigint", "0", NULL),
            "ERR:SQL array indices start at 1");
  CHECK_STR(on_split("[]", 1, rows3, "bigint", "3", NULL), "c");
  CHECK_STR(on_split("[]", 1, rows3, "bigint", "4", NULL),
            "ERR:Array subscript must be less than or equal to array length: 4 > 3");
  CHECK_STR(on_split("[]", 1, rows3, "bigint", "0", NULL),
            "ERR:Array subscript is out of bounds: 0");
}

TEST(contains_and_join) {
  CHECK_STR(on_split("contains", 3, rows3, "varchar", "b", NULL), "true|false|NULL");
  CHECK_STR(on_split("contains", 3, rows3, "varchar", "", NULL), "false|true|NULL");
  CHECK_STR(on_split("array_join", 3, rows3, "varchar", "-", NULL), "a-b-c||NULL");
  CHECK_STR(on_split("array_join", 3, rows3, "varchar", "-", "x"), "a-b-c||NULL");
  CHECK_STR(ft_resolve("cardinality", "array(varchar)"), "bigint <- array(varchar)");
  CHECK_STR(ft_resolve("contains", "array(varchar);unknown"), "boolean <- array(varchar) varchar");
}

static const char *const rows4[] = {"c,a,b,a", "", NULL, "x"};

/* The functions that build arrays row by row, over rows of every kind
 * (several elements, one empty element, a NULL array). */
TEST(arrays_built_row_by_row) {
  CHECK_STR(on_split("array_sort", 4, rows4, NULL, NULL, NULL), "[a,a,b,c]|[]|NULL|[x]");
  CHECK_STR(on_split("array_distinct", 4, rows4, NULL, NULL, NULL), "[c,a,b]|[]|NULL|[x]");
  CHECK_STR(on_split("reverse", 4, rows4, NULL, NULL, NULL), "[a,b,a,c]|[]|NULL|[x]");
  CHECK_STR(on_split("array_max", 4, rows4, NULL, NULL, NULL), "c||NULL|x");
  CHECK_STR(on_split("array_position", 4, rows4, "varchar", "a", NULL), "2|0|NULL|0");
  CHECK_STR(on_split("array_remove", 4, rows4, "varchar", "a", NULL), "[c,b]|[]|NULL|[x]");
  CHECK_STR(on_split("element_at", 4, rows4, "bigint", "4", NULL), "a|NULL|NULL|NULL");
  CHECK_STR(ft_resolve("array_sort", "array(varchar)"), "array(varchar) <- array(varchar)");
}

/* fixed(L) values read as varbinary and written back, lengths checked. */
TEST(fixed_and_varbinary_adapt) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  const ty_type_t *fx = ty_fixed(a, 2);
  const ty_type_t *lf = ty_list_new(a, 1, false, fx),
                  *lb = ty_list_new(a, 1, false, ty_primitive(TY_BINARY));
  ty_vec_t *f = ty_vec_new(lf, 4), *b = ty_vec_new(lb, 4), *back = ty_vec_new(lf, 4);
  ty_vec_append_bytes(f->children[0], "ab", 2);
  ty_vec_append_null(f->children[0]);
  ty_vec_append_list_end(f);
  ty_vec_append_null(f);
  CHECK_OK(ex_vec_adapt(b, f, &err), &err);
  CHECK_EQ(b->len, 2);
  CHECK_EQ(b->children[0]->len, 2);
  size_t n;
  const uint8_t *p = ty_vec_get_bytes(b->children[0], 0, &n);
  CHECK(n == 2 && memcmp(p, "ab", 2) == 0);
  CHECK(ty_vec_is_null(b->children[0], 1) && ty_vec_is_null(b, 1));
  CHECK_OK(ex_vec_adapt(back, b, &err), &err);
  p = ty_vec_get_bytes(back->children[0], 0, &n);
  CHECK(n == 2 && memcmp(p, "ab", 2) == 0);
  ty_vec_append_bytes(b->children[0], "abc", 3);
  ty_vec_append_list_end(b);
  CHECK_ERR(ex_vec_adapt(back, b, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "3 bytes cannot be written to a fixed(2) column") != NULL);
  ty_vec_free(f);
  ty_vec_free(b);
  ty_vec_free(back);
  fl_arena_free(a);
}
