/*
 * test_json.c - the JSON-lines decoder, schema inference and reader:
 * every type from its canonical and alternative forms, escapes, nesting
 * with nulls, unknown and missing fields, errors naming line, column and
 * field, chunk boundaries, and writer -> reader round trips.
 */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "base/alloc.h"
#include "base/time.h"
#include "format/format.h"
#include "format/json/json_decoder.h"
#include "format/json/json_int.h"
#include "format/json/json_text.h"
#include "test.h"

typedef struct fx {
  fl_arena_t *a;
  ty_schema_t *s;
  js_decoder_t *d;
  ty_batch_t *b;
  fl_err_t err;
  char out[8192];
} fx_t;

static void fx_open(fx_t *f, const char *schema) {
  memset(f, 0, sizeof *f);
  f->a = fl_arena_new(0);
  fl_err_t e;
  if (ty_schema_parse(f->a, schema, &f->s, &e)) {
    fprintf(stderr, "schema: %s\n", e.msg);
    abort();
  }
  f->d = js_decoder_new(f->s, NULL);
  f->b = ty_batch_new(f->s, 16);
}

static void fx_close(fx_t *f) {
  ty_batch_free(f->b);
  js_decoder_free(f->d);
  fl_arena_free(f->a);
}

static int fx_decode(fx_t *f, const char *text) {
  fl_err_clear(&f->err);
  return js_decode(f->d, text, strlen(text), f->b, &f->err);
}

/* Row i in the canonical JSON form. */
static const char *fx_row(fx_t *f, uint32_t i) {
  fl_buf_t b;
  fl_buf_init(&b);
  js_append_row(&b, f->b, i);
  size_t n = b.len < sizeof f->out - 1 ? b.len : sizeof f->out - 1;
  memcpy(f->out, b.data, n);
  f->out[n] = '\0';
  fl_buf_free(&b);
  return f->out;
}

TEST(json_primitives_canonical) {
  fx_t f;
  fx_open(&f,
          "b boolean, i int, l long, f float, d double, m decimal(9,2), dt date, t time, "
          "ts timestamp, tz timestamptz, tn timestamp_ns, s string, u uuid, x binary, fx fixed(2)");
  const char *in =
      "{\"b\":true,\"i\":-2147483648,\"l\":9223372036854775807,\"f\":1.5,\"d\":0.1,"
      "\"m\":\"-12.30\",\"dt\":\"2024-02-29\",\"t\":\"13:45:01.5\","
      "\"ts\":\"2024-01-02T03:04:05.123456\",\"tz\":\"2024-01-02T03:04:05+02:00\","
      "\"tn\":\"1970-01-01T00:00:00.000000001\",\"s\":\"h\\u00e9\",\"u\":"
      "\"123e4567-e89b-12d3-a456-426614174000\",\"x\":\"00ff\",\"fx\":\"abcd\"}\n";
  CHECK_OK(fx_decode(&f, in), &f.err);
  CHECK_EQ(f.b->nrows, 1);
  CHECK_EQ(f.b->cols[0]->data[0], 1);
  CHECK_EQ(TY_VEC_DATA(f.b->cols[1], int32_t)[0], INT32_MIN);
  CHECK_EQ(TY_VEC_DATA(f.b->cols[2], int64_t)[0], INT64_MAX);
  CHECK(TY_VEC_DATA(f.b->cols[3], float)[0] == 1.5f);
  CHECK(TY_VEC_DATA(f.b->cols[4], double)[0] == 0.1);
  CHECK(ty_vec_get_i128(f.b->cols[5], 0) == -1230);
  CHECK_EQ(TY_VEC_DATA(f.b->cols[6], int32_t)[0], fl_days_from_civil(2024, 2, 29));
  CHECK_EQ(TY_VEC_DATA(f.b->cols[7], int64_t)[0], (13 * 3600 + 45 * 60 + 1) * 1000000LL + 500000);
  CHECK_EQ(TY_VEC_DATA(f.b->cols[8], int64_t)[0],
           fl_days_from_civil(2024, 1, 2) * FL_MICROS_PER_DAY + (3 * 3600 + 4 * 60 + 5) * 1000000LL + 123456);
  CHECK_EQ(TY_VEC_DATA(f.b->cols[9], int64_t)[0],
           fl_days_from_civil(2024, 1, 2) * FL_MICROS_PER_DAY + (1 * 3600 + 4 * 60 + 5) * 1000000LL);
  CHECK_EQ(TY_VEC_DATA(f.b->cols[10], int64_t)[0], 1);
  size_t n;
  const uint8_t *p = ty_vec_get_bytes(f.b->cols[11], 0, &n);
  CHECK_EQ(n, 3);
  CHECK_MEM(p, "h\xc3\xa9", 3);
  p = ty_vec_get_bytes(f.b->cols[12], 0, &n);
  CHECK_EQ(p[0], 0x12);
  CHECK_EQ(p[15], 0x00);
  p = ty_vec_get_bytes(f.b->cols[13], 0, &n);
  CHECK_EQ(n, 2);
  CHECK_MEM(p, "\x00\xff", 2);
  p = ty_vec_get_bytes(f.b->cols[14], 0, &n);
  CHECK_MEM(p, "\xab\xcd", 2);
  fx_close(&f);
}

TEST(json_primitives_alternatives) {
  fx_t f;
  fx_open(&f, "b boolean, l long, d double, m decimal(5,2), dt date, t time, ts timestamptz, s string");
  CHECK_OK(fx_decode(&f,
                     "{\"b\":\"false\",\"l\":\"-42\",\"d\":\"NaN\",\"m\":12.5,\"dt\":19000,\"t\":1000000,"
                     "\"ts\":1700000000000000,\"s\":123.50}\n"
                     "{\"b\":\"true\",\"l\":1e3,\"d\":\"-Infinity\",\"m\":\"1e2\",\"dt\":-1,\"t\":0,"
                     "\"ts\":\"2023-11-14T22:13:20Z\",\"s\":{\"a\": [1, true]}}\n"),
           &f.err);
  CHECK_EQ(f.b->nrows, 2);
  CHECK_EQ(f.b->cols[0]->data[0], 0);
  CHECK_EQ(f.b->cols[0]->data[1], 1);
  CHECK_EQ(TY_VEC_DATA(f.b->cols[1], int64_t)[0], -42);
  CHECK_EQ(TY_VEC_DATA(f.b->cols[1], int64_t)[1], 1000);
  CHECK(isnan(TY_VEC_DATA(f.b->cols[2], double)[0]));
  CHECK(TY_VEC_DATA(f.b->cols[2], double)[1] == -INFINITY);
  CHECK(ty_vec_get_i128(f.b->cols[3], 0) == 1250);
  CHECK(ty_vec_get_i128(f.b->cols[3], 1) == 10000);
  CHECK_EQ(TY_VEC_DATA(f.b->cols[4], int32_t)[0], 19000);
  CHECK_EQ(TY_VEC_DATA(f.b->cols[4], int32_t)[1], -1);
  CHECK_EQ(TY_VEC_DATA(f.b->cols[5], int64_t)[0], 1000000);
  CHECK_EQ(TY_VEC_DATA(f.b->cols[6], int64_t)[0], 1700000000000000LL);
  CHECK_EQ(TY_VEC_DATA(f.b->cols[6], int64_t)[1], 1700000000000000LL);
  size_t n;
  const uint8_t *p = ty_vec_get_bytes(f.b->cols[7], 0, &n);
  CHECK_EQ(n, 6);
  CHECK_MEM(p, "123.50", 6);
  p = ty_vec_get_bytes(f.b->cols[7], 1, &n);
  CHECK_EQ(n, 16);
  CHECK_MEM(p, "{\"a\": [1, true]}", 16);
  fx_close(&f);
}

TEST(json_integer_ranges_and_doubles) {
  fx_t f;
  fx_open(&f, "i int, l long, d double");
  CHECK_ERR(fx_decode(&f, "{\"i\":2147483648}"), FL_EINVALID);
  CHECK(strstr(f.err.msg, "field 'i'") && strstr(f.err.msg, "out of range"));
  CHECK_ERR(fx_decode(&f, "{\"l\":9223372036854775808}"), FL_EINVALID);
  CHECK_ERR(fx_decode(&f, "{\"l\":1.5}"), FL_EINVALID);
  CHECK_OK(fx_decode(&f, "{\"l\":-9223372036854775808, \"d\": 2.2250738585072014e-308}"), &f.err);
  CHECK_EQ(TY_VEC_DATA(f.b->cols[1], int64_t)[0], INT64_MIN);
  CHECK(TY_VEC_DATA(f.b->cols[2], double)[0] == 2.2250738585072014e-308);
  /* Long mantissas and exponents take the correctly rounded slow path. */
  const char *cases[] = {"3.141592653589793238462643383279", "1e23", "8.98846567431158e307",
                         "123456789012345678901234567890", "4.9e-324", "0.1000000000000000055511151231257827"};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char line[128];
    snprintf(line, sizeof line, "{\"d\":%s}", cases[k]);
    ty_batch_reset(f.b);
    CHECK_OK(fx_decode(&f, line), &f.err);
    CHECK(TY_VEC_DATA(f.b->cols[2], double)[0] == strtod(cases[k], NULL));
  }
  fx_close(&f);
}

TEST(json_escapes_and_utf8) {
  fx_t f;
  fx_open(&f, "s string");
  CHECK_OK(fx_decode(&f, "{\"s\":\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20ac\\ud83d\\ude00\"}"),
           &f.err);
  size_t n;
  const uint8_t *p = ty_vec_get_bytes(f.b->cols[0], 0, &n);
  const char want[] = "a\"b\\c/d\b\f\n\r\tA\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
  CHECK_EQ(n, sizeof want - 1);
  CHECK_MEM(p, want, n);
  CHECK_ERR(fx_decode(&f, "{\"s\":\"\\ud83d\"}"), FL_EPARSE);
  CHECK(strstr(f.err.msg, "surrogate"));
  CHECK_ERR(fx_decode(&f, "{\"s\":\"\\ude00x\"}"), FL_EPARSE);
  CHECK_ERR(fx_decode(&f, "{\"s\":\"\\x\"}"), FL_EPARSE);
  CHECK(strstr(f.err.msg, "invalid escape"));
  CHECK_ERR(fx_decode(&f, "{\"s\":\"\\u12g4\"}"), FL_EPARSE);
  CHECK_ERR(fx_decode(&f, "{\"s\":\"\xc3\x28\"}"), FL_EPARSE);
  CHECK(strstr(f.err.msg, "UTF-8"));
  CHECK_ERR(fx_decode(&f, "{\"s\":\"\xed\xa0\x80\"}"), FL_EPARSE); /* encoded surrogate */
  CHECK_ERR(fx_decode(&f, "{\"s\":\"\xc0\xaf\"}"), FL_EPARSE);     /* overlong */
  CHECK_ERR(fx_decode(&f, "{\"s\":\"a\tb\"}"), FL_EPARSE);         /* raw control */
  CHECK_EQ(f.b->nrows, 1);
  fx_close(&f);
}

TEST(json_nested_with_nulls) {
  fx_t f;
  fx_open(&f,
          "id long not null, user struct<name: string, age: int, addr: struct<city: string>>, "
          "tags list<string>, pts list<struct<x: double, y: double>>, attrs map<string, long>, "
          "m2 map<int, string>");
  const char *in =
      "{\"id\":1,\"user\":{\"name\":\"ann\",\"age\":30,\"addr\":{\"city\":\"Oslo\"}},\"tags\":[\"a\",null,\"c\"],"
      "\"pts\":[{\"x\":1.0,\"y\":2.0},null,{\"x\":null}],\"attrs\":{\"k\":1,\"n\":null},"
      "\"m2\":[{\"key\":1,\"value\":\"one\"},{\"value\":null,\"key\":2}]}\n"
      "{\"id\":2,\"user\":null,\"tags\":null,\"pts\":[],\"attrs\":{},\"m2\":{\"7\":\"seven\"}}\n"
      "{\"id\":3,\"user\":{\"addr\":null}}\n"
      "{\"id\":4,\"user\":{\"name\":null,\"age\":null,\"addr\":{}}}\n";
  CHECK_OK(fx_decode(&f, in), &f.err);
  CHECK_EQ(f.b->nrows, 4);
  CHECK_STR(fx_row(&f, 0),
            "{\"id\":1,\"user\":{\"name\":\"ann\",\"age\":30,\"addr\":{\"city\":\"Oslo\"}},\"tags\":[\"a\",null,\"c\"],"
            "\"pts\":[{\"x\":1.0,\"y\":2.0},null,{\"x\":null,\"y\":null}],\"attrs\":{\"k\":1,\"n\":null},"
            "\"m2\":[{\"key\":1,\"value\":\"one\"},{\"key\":2,\"value\":null}]}");
  CHECK_STR(fx_row(&f, 1),
            "{\"id\":2,\"user\":null,\"tags\":null,\"pts\":[],\"attrs\":{},\"m2\":[{\"key\":7,\"value\":\"seven\"}]}");
  CHECK_STR(fx_row(&f, 2),
            "{\"id\":3,\"user\":{\"name\":null,\"age\":null,\"addr\":null},\"tags\":null,\"pts\":null,"
            "\"attrs\":null,\"m2\":null}");
  CHECK_STR(fx_row(&f, 3),
            "{\"id\":4,\"user\":{\"name\":null,\"age\":null,\"addr\":{\"city\":null}},\"tags\":null,\"pts\":null,"
            "\"attrs\":null,\"m2\":null}");
  fx_close(&f);
}

TEST(json_unknown_missing_required) {
  fx_t f;
  fx_open(&f, "id long not null, s struct<a: int not null, b: string>");
  CHECK_OK(fx_decode(&f,
                     "{\"zz\":{\"deep\":[1,{\"x\":[[]]},\"s\"]},\"id\":5,\"s\":{\"q\":null,\"a\":1,\"r\":[true]}}"),
           &f.err);
  CHECK_STR(fx_row(&f, 0), "{\"id\":5,\"s\":{\"a\":1,\"b\":null}}");
  CHECK_ERR(fx_decode(&f, "{\"s\":null}"), FL_EINVALID);
  CHECK(strstr(f.err.msg, "field 'id'") && strstr(f.err.msg, "required"));
  CHECK_ERR(fx_decode(&f, "{\"id\":1,\"s\":{\"b\":\"x\"}}"), FL_EINVALID);
  CHECK(strstr(f.err.msg, "field 's.a'"));
  CHECK_ERR(fx_decode(&f, "{\"id\":null}"), FL_EINVALID);
  CHECK_ERR(fx_decode(&f, "{\"id\":1,\"id\":2}"), FL_EINVALID);
  CHECK(strstr(f.err.msg, "twice"));
  /* Failed rows leave nothing behind. */
  CHECK_EQ(f.b->nrows, 1);
  CHECK_EQ(f.b->cols[1]->children[0]->len, 1);
  fx_close(&f);
}

TEST(json_case_insensitive) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s;
  fl_err_t err;
  CHECK_OK(ty_schema_parse(a, "UserId long, name string", &s, &err), &err);
  js_decode_opts_t o = {.case_insensitive = true};
  js_decoder_t *d = js_decoder_new(s, &o);
  ty_batch_t *b = ty_batch_new(s, 8);
  CHECK_OK(js_decode(d, "{\"userid\":1,\"NAME\":\"x\"}", 23, b, &err), &err);
  CHECK_EQ(TY_VEC_DATA(b->cols[0], int64_t)[0], 1);
  CHECK_EQ(b->cols[1]->null_count, 0);
  /* Repeated objects in one spelling, then others: each still matches
   * (the spelling remembered for the in-place path must not stick), also
   * an escaped name and members out of order. */
  static const char *const rows[] = {
      "{\"userid\":2,\"NAME\":\"y\"}", "{\"userid\":3,\"NAME\":\"z\"}",
      "{\"USERID\":4,\"Name\":\"w\"}", "{\"u\\u0073erId\":5,\"name\":\"v\"}",
      "{\"name\":\"u\",\"UserId\":6}", "{\"userid\":7,\"nam\":\"t\"}"};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    CHECK_OK(js_decode(d, rows[i], strlen(rows[i]), b, &err), &err);
  CHECK_EQ(b->nrows, 7);
  for (uint32_t i = 0; i < 7; i++) CHECK_EQ(TY_VEC_DATA(b->cols[0], int64_t)[i], (int64_t)i + 1);
  CHECK_EQ(b->cols[1]->null_count, 1); /* "nam" is no column */
  CHECK(!ty_vec_is_valid(b->cols[1], 6));
  js_decoder_free(d);
  d = js_decoder_new(s, NULL);
  ty_batch_reset(b);
  CHECK_OK(js_decode(d, "{\"userid\":1,\"NAME\":\"x\"}", 23, b, &err), &err);
  CHECK_EQ(b->cols[0]->null_count, 1);
  js_decoder_free(d);
  ty_batch_free(b);
  fl_arena_free(a);
}

TEST(json_error_positions) {
  fx_t f;
  fx_open(&f, "id long, user struct<name: string, age: int, tags: list<int>>");
  CHECK_ERR(fx_decode(&f, "{\"id\":1}\n{\"id\":2}\n\n{\"id\":3, \"user\": {\"name\": \"x\", \"age\": \"old\"}}\n"),
            FL_EINVALID);
  CHECK(strstr(f.err.msg, "line 4, column 39: field 'user.age': expected an integer"));
  CHECK_EQ(f.b->nrows, 2);
  fx_close(&f);
  fx_open(&f, "id long, user struct<name: string, age: int, tags: list<int>>");
  CHECK_ERR(fx_decode(&f, "{\"user\":\n  {\"tags\": [1, 2,\n true]}}"), FL_EINVALID);
  CHECK(strstr(f.err.msg, "line 3, column 2: field 'user.tags[2]': expected an integer, found a boolean"));
  CHECK_ERR(fx_decode(&f, "{\"id\": 1"), FL_EPARSE);
  CHECK(strstr(f.err.msg, "line 1, column 1: field 'id': unexpected end of input"));
  CHECK_ERR(fx_decode(&f, "{\"id\": 01}"), FL_EPARSE);
  CHECK_ERR(fx_decode(&f, "{\"id\": 1,}"), FL_EPARSE);
  CHECK_ERR(fx_decode(&f, "[1]"), FL_EPARSE);
  CHECK(strstr(f.err.msg, "expected a JSON object"));
  CHECK_ERR(fx_decode(&f, "{\"id\": tru}"), FL_EPARSE);
  CHECK_ERR(fx_decode(&f, "{\"user\": \"x\"}"), FL_EINVALID);
  CHECK(strstr(f.err.msg, "field 'user': expected an object, found a string"));
  fx_close(&f);
}

TEST(json_depth_limit) {
  fx_t f;
  fx_open(&f, "a string, b long");
  char deep[400];
  size_t k = 0;
  k += (size_t)sprintf(deep, "{\"a\":");
  for (int i = 0; i < 100; i++) deep[k++] = '[';
  for (int i = 0; i < 100; i++) deep[k++] = ']';
  deep[k++] = '}';
  deep[k] = '\0';
  CHECK_ERR(fx_decode(&f, deep), FL_EPARSE);
  memcpy(deep, "{\"x\":", 5);
  CHECK_ERR(fx_decode(&f, deep), FL_EPARSE);
  CHECK(strstr(f.err.msg, "nesting deeper"));
  fx_close(&f);
}

TEST(json_batch_full_resume) {
  fx_t f;
  fx_open(&f, "n long");
  fl_buf_t text;
  fl_buf_init(&text);
  for (int i = 0; i < 5000; i++) fl_buf_printf(&text, "{\"n\":%d}\n", i);
  size_t off = 0;
  int64_t expect = 0;
  int batches = 0;
  while (off < text.len) {
    ty_batch_reset(f.b);
    CHECK_OK(js_decode(f.d, (const char *)text.data + off, text.len - off, f.b, &f.err), &f.err);
    CHECK(f.b->nrows <= TY_BATCH_ROWS);
    for (uint32_t i = 0; i < f.b->nrows; i++) CHECK_EQ(TY_VEC_DATA(f.b->cols[0], int64_t)[i], expect++);
    off += js_decoder_consumed(f.d);
    batches++;
  }
  CHECK_EQ(expect, 5000);
  CHECK_EQ(batches, 3);
  /* Line numbers continue across calls. */
  ty_batch_reset(f.b);
  CHECK_ERR(fx_decode(&f, "{\"n\":\"x\"}"), FL_EINVALID);
  CHECK(strstr(f.err.msg, "line 5001,"));
  fl_buf_free(&text);
  fx_close(&f);
}

TEST(json_chunk_boundaries) {
  /* Every split point: the first part with more=true, then the rest. */
  const char *text =
      "{\"id\":1,\"s\":\"caf\xc3\xa9 \\u00e9 \\ud83d\\ude00\",\"l\":[1.5,-2e3],\"t\":true}\n"
      "  {\"id\":22,\"s\":null,\"l\":[],\"t\":false}\r\n{\"id\":333,\n\"s\":\"x\"}\n";
  fx_t ref;
  fx_open(&ref, "id long, s string, l list<double>, t boolean");
  CHECK_OK(fx_decode(&ref, text), &ref.err);
  CHECK_EQ(ref.b->nrows, 3);
  char want[3][256];
  for (uint32_t i = 0; i < 3; i++) {
    const char *row = fx_row(&ref, i);
    size_t rl = strlen(row) < 255 ? strlen(row) : 255;
    memcpy(want[i], row, rl);
    want[i][rl] = 0;
  }
  size_t n = strlen(text);
  for (size_t cut = 0; cut <= n; cut++) {
    fx_t f;
    fx_open(&f, "id long, s string, l list<double>, t boolean");
    char *buf = fl_malloc(n);
    memcpy(buf, text, n);
    size_t used;
    CHECK_OK(js_decode_chunk(f.d, buf, cut, true, f.b, &used, &f.err), &f.err);
    CHECK(used <= cut);
    CHECK_OK(js_decode_chunk(f.d, buf + used, n - used, false, f.b, &used, &f.err), &f.err);
    CHECK_EQ(f.b->nrows, 3);
    for (uint32_t i = 0; i < 3; i++) CHECK_STR(fx_row(&f, i), want[i]);
    fl_free(buf);
    fx_close(&f);
  }
  fx_close(&ref);
}

static const char *infer_text(fl_arena_t *a, const char *text, uint32_t rows) {
  ty_schema_t *s;
  fl_err_t err;
  if (js_infer_schema(text, strlen(text), rows, a, &s, &err)) return fl_arena_strdup(a, err.msg);
  fl_buf_t b;
  fl_buf_init(&b);
  ty_schema_format(s, &b);
  char *out = fl_arena_strndup(a, (const char *)b.data, b.len);
  fl_buf_free(&b);
  return out;
}

TEST(json_inference) {
  fl_arena_t *a = fl_arena_new(0);
  CHECK_STR(infer_text(a,
                       "{\"id\":1,\"ok\":true,\"x\":1,\"name\":\"a\",\"n\":null}\n"
                       "{\"id\":2,\"x\":2.5,\"extra\":\"late\",\"name\":\"b\"}\n",
                       0),
            "id long, ok boolean, x double, name string, n string, extra string");
  CHECK_STR(infer_text(a,
                       "{\"d\":\"2024-01-02\",\"ts\":\"2024-01-02T03:04:05\",\"tz\":\"2024-01-02T03:04:05Z\","
                       "\"mix\":\"2024-01-02\",\"s\":\"x\"}\n"
                       "{\"d\":\"1999-12-31\",\"ts\":\"2024-01-02 03:04:05.5\",\"tz\":\"2024-01-02T03:04:05+01:00\","
                       "\"mix\":\"hello\"}\n",
                       0),
            "d date, ts timestamp, tz timestamptz, mix string, s string");
  CHECK_STR(infer_text(a,
                       "{\"u\":{\"a\":1},\"l\":[1,2],\"e\":[],\"c\":1}\n"
                       "{\"u\":{\"b\":[{\"x\":true}]},\"l\":[3.5],\"c\":\"s\"}\n",
                       0),
            "u struct<a: long, b: list<struct<x: boolean>>>, l list<double>, e list<string>, c string");
  /* Only the first max_rows rows count. */
  CHECK_STR(infer_text(a, "{\"a\":1}\n{\"a\":\"x\"}\n", 1), "a long");
  const char *msg = infer_text(a, "{\"a\":1}\n{\"a\":}\n", 0);
  CHECK(strstr(msg, "line 2, column 6"));
  /* Ids as Iceberg assigns fresh ids. */
  ty_schema_t *s;
  fl_err_t err;
  const char *t = "{\"a\":{\"x\":1,\"y\":[1]},\"b\":2}";
  CHECK_OK(js_infer_schema(t, strlen(t), 0, a, &s, &err), &err);
  CHECK_EQ(s->root.fields[0].id, 1);
  CHECK_EQ(s->root.fields[1].id, 2);
  CHECK_EQ(s->root.fields[0].type->fields[0].id, 3);
  CHECK_EQ(s->root.fields[0].type->fields[1].id, 4);
  CHECK_EQ(s->root.fields[0].type->fields[1].type->fields[0].id, 5);
  CHECK(!s->root.fields[0].required);
  fl_arena_free(a);
}

/* Writes rows with the JSON-lines writer and reads them back through the
 * format interface with a small chunk size (rows span chunks). */
TEST(json_round_trip_writer_reader) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s;
  fl_err_t err;
  CHECK_OK(ty_schema_parse(a,
                           "id long not null, d double, f float, m decimal(20,4), dt date, ts timestamptz, "
                           "tn timestamp_ns, t time, s string, u uuid, x binary, fx fixed(3), b boolean, "
                           "st struct<a: int, l: list<string>>, mp map<string, double>, mi map<long, boolean>",
                           &s, &err),
           &err);
  ty_batch_t *b = ty_batch_new(s, 16);
  const char *src =
      "{\"id\":1,\"d\":-0.0,\"f\":3.25,\"m\":\"-1234567890123456.7891\",\"dt\":\"0001-01-01\","
      "\"ts\":\"1969-12-31T23:59:59.999999+00:00\",\"tn\":\"2200-01-01T00:00:00.123456789\","
      "\"t\":\"23:59:59.999999\",\"s\":\"quote\\\" nl\\n \\u0001 \xe2\x82\xac\","
      "\"u\":\"00000000-0000-0000-0000-000000000001\",\"x\":\"\",\"fx\":\"010203\",\"b\":false,"
      "\"st\":{\"a\":-1,\"l\":[\"\",null]},\"mp\":{\"k\":\"NaN\",\"j\":\"Infinity\"},"
      "\"mi\":[{\"key\":-5,\"value\":true}]}\n"
      "{\"id\":2}\n";
  js_decoder_t *d = js_decoder_new(s, NULL);
  fl_buf_t many;
  fl_buf_init(&many);
  for (int rep = 0; rep < 150; rep++) fl_buf_append_str(&many, src);
  CHECK_OK(js_decode(d, (const char *)many.data, many.len, b, &err), &err);
  CHECK_EQ(b->nrows, 300);
  fl_buf_free(&many);
  ty_batch_seal(b);
  char path[512];
  snprintf(path, sizeof path, "%s/rt.jsonl", t_tmpdir());
  fmt_writer_t *w;
  CHECK_OK(fmt_open_writer(io_local_fs(), path, s, NULL, &w, &err), &err);
  CHECK_OK(w->write(w, b, &err), &err);
  CHECK_OK(w->close(w, &err), &err);
  size_t saved = js__reader_chunk_bytes;
  js__reader_chunk_bytes = 97;
  fmt_read_opts_t ro = {.schema = s};
  fmt_reader_t *r;
  CHECK_OK(fmt_open_reader(io_local_fs(), path, &ro, &r, &err), &err);
  ty_batch_t *got;
  uint32_t row = 0;
  fl_buf_t x, y;
  fl_buf_init(&x);
  fl_buf_init(&y);
  for (;;) {
    CHECK_OK(r->next(r, &got, &err), &err);
    if (!got) break;
    for (uint32_t i = 0; i < got->nrows; i++, row++) {
      fl_buf_clear(&x);
      fl_buf_clear(&y);
      js_append_row(&x, b, row);
      js_append_row(&y, got, i);
      CHECK_EQ(x.len, y.len);
      CHECK_MEM(x.data, y.data, x.len);
    }
  }
  CHECK_EQ(row, b->nrows);
  r->close(r);
  /* With inference: same row count, first column long. */
  CHECK_OK(fmt_open_reader(io_local_fs(), path, &(fmt_read_opts_t){0}, &r, &err), &err);
  CHECK_EQ(r->schema->root.fields[0].type->kind, TY_LONG);
  CHECK_EQ(r->schema->root.fields[2].type->kind, TY_DOUBLE);
  CHECK_EQ(r->schema->root.fields[5].type->kind, TY_TIMESTAMPTZ);
  uint32_t total = 0;
  for (;;) {
    CHECK_OK(r->next(r, &got, &err), &err);
    if (!got) break;
    total += got->nrows;
  }
  CHECK_EQ(total, b->nrows);
  r->close(r);
  js__reader_chunk_bytes = saved;
  fl_buf_free(&x);
  fl_buf_free(&y);
  js_decoder_free(d);
  ty_batch_free(b);
  fl_arena_free(a);
}

TEST(json_reader_errors_name_file_and_line) {
  char path[512];
  snprintf(path, sizeof path, "%s/bad.jsonl", t_tmpdir());
  const char *text = "{\"a\":1}\n{\"a\":2}\n{\"a\":\"x\n";
  fl_err_t err;
  CHECK_OK(io_write_all(io_local_fs(), path, text, strlen(text), &err), &err);
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s;
  CHECK_OK(ty_schema_parse(a, "a long", &s, &err), &err);
  fmt_reader_t *r;
  fmt_read_opts_t ro = {.schema = s};
  CHECK_OK(fmt_open_reader(io_local_fs(), path, &ro, &r, &err), &err);
  ty_batch_t *got;
  CHECK_ERR(r->next(r, &got, &err), FL_EPARSE);
  CHECK(strstr(err.msg, "bad.jsonl: line 3, column"));
  r->close(r);
  fl_arena_free(a);
}

static int64_t cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Decode speed on typical events; prints the figure (per CPU second of
 * this thread, so other load on the machine does not count, and per wall
 * second), asserts only that every row decoded. */
TEST(json_decode_speed) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s;
  fl_err_t err;
  CHECK_OK(ty_schema_parse(a,
                           "event_id long not null, ts timestamptz, user_id string, kind string, "
                           "price double, qty int, ok boolean, geo struct<lat: double, lon: double>, "
                           "session string",
                           &s, &err),
           &err);
  static const char *kinds[] = {"click", "view", "purchase", "scroll"};
  fl_buf_t text;
  fl_buf_init(&text);
  uint64_t x = 88172645463325252ull;
  uint32_t rows = 0;
  while (text.len < (16u << 20)) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    fl_buf_printf(&text,
                  "{\"event_id\":%llu,\"ts\":\"2024-05-%02uT%02u:%02u:%02u.%06uZ\",\"user_id\":\"user_%u\","
                  "\"kind\":\"%s\",\"price\":%u.%02u,\"qty\":%u,\"ok\":%s,\"geo\":{\"lat\":%u.%04u,\"lon\":%u.%04u},"
                  "\"session\":\"%08x\"}\n",
                  (unsigned long long)(x >> 20), (unsigned)(x % 28) + 1, (unsigned)(x >> 8) % 24,
                  (unsigned)(x >> 16) % 60, (unsigned)(x >> 24) % 60, (unsigned)(x >> 32) % 1000000,
                  (unsigned)(x >> 40) % 100000, kinds[x % 4], (unsigned)(x >> 12) % 1000,
                  (unsigned)(x >> 4) % 100, (unsigned)(x >> 50) % 10, (x & 1) ? "true" : "false",
                  (unsigned)(x >> 3) % 90, (unsigned)(x >> 9) % 10000, (unsigned)(x >> 5) % 180,
                  (unsigned)(x >> 11) % 10000, (unsigned)(x >> 28));
    rows++;
  }
  js_decoder_t *d = js_decoder_new(s, NULL);
  ty_batch_t *b = ty_batch_new(s, TY_BATCH_ROWS);
  double best = 0, best_wall = 0;
  for (int rep = 0; rep < 5; rep++) {
    int64_t t0 = cpu_ns(), w0 = fl_monotonic_ns();
    size_t off = 0;
    uint32_t got = 0;
    while (off < text.len) {
      ty_batch_reset(b);
      CHECK_OK(js_decode(d, (const char *)text.data + off, text.len - off, b, &err), &err);
      off += js_decoder_consumed(d);
      got += b->nrows;
    }
    int64_t t1 = cpu_ns(), w1 = fl_monotonic_ns();
    CHECK_EQ(got, rows);
    double mbs = (double)text.len / 1e6 / ((double)(t1 - t0) / 1e9);
    double wall = (double)text.len / 1e6 / ((double)(w1 - w0) / 1e9);
    if (mbs > best) best = mbs;
    if (wall > best_wall) best_wall = wall;
  }
  printf("json decode: %.1f MB/s per CPU second (%.1f MB/s wall; %u rows, %.1f MB of typical events)\n",
         best, best_wall, rows, (double)text.len / 1e6);
  js_decoder_free(d);
  ty_batch_free(b);
  fl_buf_free(&text);
  fl_arena_free(a);
}

/* The decoder predicts the next member name and compares it in place;
 * members in changing orders, names that extend the predicted one,
 * escaped names and duplicates must decode as if every name were looked up. */
TEST(json_member_prediction_does_not_change_results) {
  fx_t f;
  fx_open(&f, "id long, idx long, name string, n struct<a: int, b: int>");
  CHECK_OK(fx_decode(&f,
                     "{\"id\":1,\"idx\":2,\"name\":\"a\",\"n\":{\"a\":1,\"b\":2}}\n"
                     "{\"idx\":3,\"id\":4,\"n\":{\"b\":5,\"a\":6},\"name\":\"b\"}\n"
                     "{\"i\\u0064\":5,\"id\\u0078\":6,\"nam\":\"x\",\"name\":\"c\"}\n"
                     "{\"name\":\"d\",\"idxx\":0,\"id\":7}\n"),
           &f.err);
  CHECK_EQ(f.b->nrows, 4);
  CHECK_STR(fx_row(&f, 0), "{\"id\":1,\"idx\":2,\"name\":\"a\",\"n\":{\"a\":1,\"b\":2}}");
  CHECK_STR(fx_row(&f, 1), "{\"id\":4,\"idx\":3,\"name\":\"b\",\"n\":{\"a\":6,\"b\":5}}");
  CHECK_STR(fx_row(&f, 2), "{\"id\":5,\"idx\":6,\"name\":\"c\",\"n\":null}");
  CHECK_STR(fx_row(&f, 3), "{\"id\":7,\"idx\":null,\"name\":\"d\",\"n\":null}");
  CHECK_ERR(fx_decode(&f, "{\"id\":1,\"id\":2}\n"), FL_EINVALID);
  fx_close(&f);
}

/* Doubles take the decoder's own digit collection and fast paths: every
 * value must be exactly what strtod gives for its text. */
TEST(json_doubles_match_strtod) {
  static const char *const fixed[] = {
      "0", "-0", "0.0", "-0.0", "0.000123", "1e5", "1E-5", "123.456e+7", "17521754.516934507",
      "-40264893.1200916", "9007199254740993", "123456789012345678901234567890",
      "0.1234567890123456789012345", "1e308", "1e309", "-1e400", "4.9e-324", "1e-400",
      "2.2250738585072011e-308", "100000000000000000000000e-30", "0.00000000000000000000001"};
  fx_t f;
  fx_open(&f, "d double");
  char line[96];
  uint64_t x = 0x2545F4914F6CDD1Dull;
  for (int i = 0; i < 20000; i++) {
    char num[64];
    if (i < (int)(sizeof fixed / sizeof fixed[0])) {
      snprintf(num, sizeof num, "%s", fixed[i]);
    } else {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      double d;
      uint64_t b = x;
      memcpy(&d, &b, sizeof d);
      if (!isfinite(d)) continue;
      int prec = 1 + (int)(x % 17);
      snprintf(num, sizeof num, (i & 1) ? "%.*g" : "%.*e", prec, d);
    }
    snprintf(line, sizeof line, "{\"d\":%s}\n", num);
    ty_batch_reset(f.b);
    CHECK_OK(fx_decode(&f, line), &f.err);
    CHECK_EQ(f.b->nrows, 1);
    double want = strtod(num, NULL), got = TY_VEC_DATA(f.b->cols[0], double)[0];
    if (memcmp(&want, &got, sizeof want) != 0) {
      t_fail(__FILE__, __LINE__, "%s: decoded %.17g, strtod %.17g", num, got, want);
      return;
    }
  }
  fx_close(&f);
}
