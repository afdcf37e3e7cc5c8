/*
 * test_types.c - the type system, schema syntax, vectors and values.
 */
#include <stdlib.h>

#include "base/alloc.h"
#include "test.h"
#include "types/type.h"
#include "types/value.h"
#include "types/vec.h"

TEST(schema_parse_assigns_iceberg_ids) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *s;
  CHECK_OK(ty_schema_parse(a,
                           "id long not null, ts timestamptz, name string, price decimal(10,2), "
                           "tags list<string>, attrs map<string, long not null>, "
                           "pt struct<x: double not null, y: double>, h fixed(16), u uuid",
                           &s, &err),
           &err);
  CHECK_EQ(s->root.nfields, 9);
  CHECK_EQ(s->root.fields[0].id, 1);
  CHECK(s->root.fields[0].required);
  CHECK(!s->root.fields[1].required);
  CHECK_EQ(s->root.fields[3].type->precision, 10);
  CHECK_EQ(s->root.fields[3].type->scale, 2);
  /* Nested ids follow the top-level ones, in column order. */
  CHECK_EQ(s->root.fields[4].type->fields[0].id, 10);
  CHECK_EQ(s->root.fields[5].type->fields[0].id, 11);
  CHECK_EQ(s->root.fields[5].type->fields[1].id, 12);
  CHECK(s->root.fields[5].type->fields[1].required);
  CHECK_EQ(s->root.fields[6].type->fields[1].id, 14);
  CHECK_EQ(ty_schema_highest_id(s), 14);
  CHECK_STR(ty_schema_find_id(s, 13)->name, "x");
  fl_buf_t b;
  fl_buf_init(&b);
  ty_schema_format(s, &b);
  fl_buf_append_u8(&b, 0);
  CHECK_STR((char *)b.data,
            "id long not null, ts timestamptz, name string, price decimal(10,2), tags list<string>, "
            "attrs map<string, long not null>, pt struct<x: double not null, y: double>, h fixed(16), "
            "u uuid");
  ty_schema_t *again;
  CHECK_OK(ty_schema_parse(a, (char *)b.data, &again, &err), &err);
  CHECK(ty_type_equal(&s->root, &again->root));
  fl_buf_free(&b);
  fl_arena_free(a);
}

TEST(schema_parse_errors_name_position) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *s;
  CHECK_ERR(ty_schema_parse(a, "id lung", &s, &err), FL_EPARSE);
  CHECK(strstr(err.msg, "unknown type") && strstr(err.msg, "position 4"));
  CHECK_ERR(ty_schema_parse(a, "a int, a int", &s, &err), FL_EPARSE);
  CHECK_ERR(ty_schema_parse(a, "d decimal(39,2)", &s, &err), FL_EPARSE);
  CHECK_ERR(ty_schema_parse(a, "l list<int", &s, &err), FL_EPARSE);
  CHECK_ERR(ty_schema_parse(a, "", &s, &err), FL_EPARSE);
  fl_arena_free(a);
}

/* Quoted names keep any character; a doubled quote inside stands for one,
 * and formatting doubles it, so every name survives a round trip. */
TEST(schema_quoted_names_round_trip) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *s;
  CHECK_OK(ty_schema_parse(a, "`say \"hi\"` int, \"a\"\"b\" string, `x``y` long", &s, &err),
           &err);
  CHECK_STR(s->root.fields[0].name, "say \"hi\"");
  CHECK_STR(s->root.fields[1].name, "a\"b");
  CHECK_STR(s->root.fields[2].name, "x`y");
  fl_buf_t b;
  fl_buf_init(&b);
  ty_schema_format(s, &b);
  fl_buf_append_u8(&b, 0);
  CHECK_STR((char *)b.data, "\"say \"\"hi\"\"\" int, \"a\"\"b\" string, \"x`y\" long");
  ty_schema_t *again;
  CHECK_OK(ty_schema_parse(a, (char *)b.data, &again, &err), &err);
  CHECK(ty_type_equal(&s->root, &again->root));
  CHECK_ERR(ty_schema_parse(a, "\"open int", &s, &err), FL_EPARSE);
  CHECK(strstr(err.msg, "unterminated quoted name") != NULL);
  fl_buf_free(&b);
  fl_arena_free(a);
}

TEST(vectors_hold_nested_values) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *s;
  CHECK_OK(ty_schema_parse(a, "n string, tags list<string>, p struct<x: int>", &s, &err), &err);
  ty_batch_t *b = ty_batch_new(s, 4);
  for (int i = 0; i < 5000; i++) {
    char name[16];
    int n = snprintf(name, sizeof name, "row%d", i);
    if (i % 3 == 0)
      ty_vec_append_null(b->cols[0]);
    else
      ty_vec_append_bytes(b->cols[0], name, (size_t)n);
    for (int k = 0; k < i % 4; k++) ty_vec_append_bytes(b->cols[1]->children[0], "t", 1);
    ty_vec_append_list_end(b->cols[1]);
    if (i % 5 == 0) {
      ty_vec_append_null(b->cols[2]);
    } else {
      ty_vec_append_i32(b->cols[2]->children[0], i);
      ty_vec_append_struct(b->cols[2]);
    }
  }
  ty_batch_seal(b);
  CHECK_EQ(b->nrows, 5000);
  CHECK_EQ(b->cols[0]->null_count, 1667);
  size_t n;
  const uint8_t *p = ty_vec_get_bytes(b->cols[0], 4999, &n);
  CHECK(n == 7 && memcmp(p, "row4999", 7) == 0);
  CHECK_EQ(b->cols[1]->offsets[5000] - b->cols[1]->offsets[4999], 3);
  CHECK(ty_vec_is_null(b->cols[2], 10));
  CHECK(ty_vec_is_null(b->cols[2]->children[0], 10));
  CHECK_EQ(TY_VEC_DATA(b->cols[2]->children[0], int32_t)[11], 11);
  ty_vec_t *copy = ty_vec_new(b->cols[1]->type, 1);
  ty_vec_append_from(copy, b->cols[1], 3);
  CHECK_EQ(copy->children[0]->len, 3);
  ty_vec_free(copy);
  ty_batch_reset(b);
  CHECK_EQ(b->cols[1]->children[0]->len, 0);
  ty_batch_free(b);
  fl_arena_free(a);
}

TEST(decimal_text) {
  fl_i128 v;
  CHECK(ty_decimal_parse("14.20", 5, 10, 2, false, &v));
  CHECK(v == 1420);
  CHECK(ty_decimal_parse("-0.5", 4, 10, 2, false, &v));
  CHECK(v == -50);
  CHECK(!ty_decimal_parse("1.234", 5, 10, 2, false, &v));
  CHECK(ty_decimal_parse("1.235", 5, 10, 2, true, &v));
  CHECK(v == 124);
  CHECK(!ty_decimal_parse("123456789", 9, 8, 0, false, &v));
  CHECK(ty_decimal_parse("1e2", 3, 10, 2, false, &v));
  CHECK(v == 10000);
  char buf[64];
  ty_decimal_format(-5, 3, buf, sizeof buf);
  CHECK_STR(buf, "-0.005");
  fl_i128 big = ty_decimal_max(38);
  ty_decimal_format(-big, 0, buf, sizeof buf);
  CHECK_STR(buf, "-99999999999999999999999999999999999999");
  CHECK(ty_decimal_parse(buf, strlen(buf), 38, 0, false, &v));
  CHECK(v == -big);
}

TEST(value_order_and_text) {
  ty_value_t a = {.kind = TY_DOUBLE, .u.f64 = -0.0}, b = {.kind = TY_DOUBLE, .u.f64 = 0.0};
  CHECK(ty_value_cmp(&a, &b) < 0);
  b.u.f64 = __builtin_nan("");
  a.u.f64 = 1e300;
  CHECK(ty_value_cmp(&a, &b) < 0);
  ty_value_t s1 = {.kind = TY_STRING, .u.bytes = {(const uint8_t *)"ab", 2}};
  ty_value_t s2 = {.kind = TY_STRING, .u.bytes = {(const uint8_t *)"abc", 3}};
  CHECK(ty_value_cmp(&s1, &s2) < 0);
  char buf[40];
  static const struct {
    double d;
    const char *text;
  } cases[] = {{0.1, "0.1"},        {1000, "1000.0"},   {-0.0, "-0.0"},      {1e16, "1e+16"},
               {1e-7, "1e-07"},     {123.456, "123.456"}, {0.00001, "1e-05"}, {0.0001, "0.0001"},
               {1.5e300, "1.5e+300"}, {5e-324, "5e-324"}, {9007199254740993.0, "9007199254740992.0"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ty_format_double(cases[i].d, buf);
    CHECK_STR(buf, cases[i].text);
    CHECK(strtod(buf, NULL) == cases[i].d);
  }
  ty_format_float(0.1f, buf);
  CHECK_STR(buf, "0.1");
  ty_format_float(3.4028235e38f, buf);
  CHECK_STR(buf, "3.4028235e+38");
  uint8_t u[16];
  CHECK(ty_uuid_parse("f79c3e09-677c-4bbd-a479-3f349cb785e7", 36, u));
  char text[37];
  ty_uuid_format(u, text);
  CHECK_STR(text, "f79c3e09-677c-4bbd-a479-3f349cb785e7");
}

TEST(vector_append_from_itself_while_growing) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *s;
  CHECK_OK(ty_schema_parse(a, "s string, f fixed(3), l list<string>", &s, &err), &err);
  ty_batch_t *b = ty_batch_new(s, 1);
  ty_vec_append_bytes(b->cols[0], "hello", 5);
  ty_vec_append_bytes(b->cols[1], "abc", 3);
  ty_vec_append_bytes(b->cols[2]->children[0], "x", 1);
  ty_vec_append_list_end(b->cols[2]);
  for (int i = 0; i < 5000; i++)
    for (uint32_t c = 0; c < 3; c++) ty_vec_append_from(b->cols[c], b->cols[c], (uint32_t)i);
  size_t n;
  const uint8_t *p = ty_vec_get_bytes(b->cols[0], 5000, &n);
  CHECK(n == 5 && memcmp(p, "hello", 5) == 0);
  p = ty_vec_get_bytes(b->cols[1], 5000, &n);
  CHECK(n == 3 && memcmp(p, "abc", 3) == 0);
  CHECK_EQ(b->cols[2]->children[0]->len, 5001);
  ty_batch_free(b);
  fl_arena_free(a);
}

TEST(vector_exchange_keeps_types_and_children) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *s, *o;
  CHECK_OK(
      ty_schema_parse(a, "n string, p struct<x: int, t: list<binary>>, ts timestamp", &s, &err),
      &err);
  CHECK_OK(ty_schema_parse(a,
                           "n binary, p struct<y: int, u: list<string>>, ts timestamptz, "
                           "q struct<x: int>, l long, i int",
                           &o, &err),
           &err);
  /* Same storage under other names and annotations; a different shape is not. */
  for (int c = 0; c < 3; c++)
    CHECK(ty_layout_equal(s->root.fields[c].type, o->root.fields[c].type));
  CHECK(!ty_layout_equal(s->root.fields[1].type, o->root.fields[3].type));
  CHECK(!ty_layout_equal(o->root.fields[4].type, o->root.fields[5].type));
  CHECK(!ty_layout_equal(s->root.fields[0].type, o->root.fields[4].type));

  ty_vec_t *x = ty_vec_new(s->root.fields[1].type, 4), *y = ty_vec_new(o->root.fields[1].type, 4);
  const ty_vec_t *xkid = x->children[1];
  for (int i = 0; i < 100; i++) {
    ty_vec_append_i32(x->children[0], i);
    ty_vec_append_bytes(x->children[1]->children[0], "ab", 2);
    ty_vec_append_list_end(x->children[1]);
    ty_vec_append_struct(x);
  }
  ty_vec_append_null(y);
  ty_vec_exchange(x, y);
  CHECK_EQ(y->len, 100);
  CHECK_EQ(x->len, 1);
  CHECK_EQ(x->null_count, 1);
  CHECK(y->type == o->root.fields[1].type && x->type == s->root.fields[1].type);
  CHECK(x->children[1] == xkid);
  CHECK_EQ(TY_VEC_DATA(y->children[0], int32_t)[99], 99);
  size_t n;
  const uint8_t *p = ty_vec_get_bytes(y->children[1]->children[0], 99, &n);
  CHECK(n == 2 && memcmp(p, "ab", 2) == 0);
  /* Both stay usable: appends after the exchange grow the buffers each now owns. */
  ty_vec_reset(x);
  for (int i = 0; i < 50; i++) {
    ty_vec_append_i32(x->children[0], -i);
    ty_vec_append_list_end(x->children[1]);
    ty_vec_append_struct(x);
  }
  CHECK_EQ(x->len, 50);
  CHECK_EQ(TY_VEC_DATA(y->children[0], int32_t)[0], 0);
  ty_vec_free(x);
  ty_vec_free(y);
  fl_arena_free(a);
}
