/*
 * test_conv.c - single-value binary form (exact bytes from the spec's
 * appendix D and Python's struct/int.to_bytes), decoding of promoted and
 * malformed bounds, the JSON single-value form, and truncation of string
 * and binary bounds (code points, multi-byte UTF-8, 0xFF carries).
 */
#include <string.h>

#include "base/time.h"
#include "iceberg/ice_conv.h"
#include "test.h"

typedef struct {
  const char *type; /* ty_type_parse text */
  ty_value_t v;
  const char *hex; /* expected single-value bytes */
} bin_case_t;

static void to_hex(const uint8_t *p, size_t n, char *out) {
  static const char h[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = h[p[i] >> 4];
    out[2 * i + 1] = h[p[i] & 15];
  }
  out[2 * n] = 0;
}

static const uint8_t uuid_bytes[16] = {0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd,
                                       0xa4, 0x79, 0x3f, 0x34, 0x9c, 0xb7, 0x85, 0xe7};
static const uint8_t bin4[4] = {0, 1, 2, 3};

#define I32(k, x) {.kind = k, .u.i32 = (x)}
#define I64(k, x) {.kind = k, .u.i64 = (x)}
#define DEC(x) {.kind = TY_DECIMAL, .u.i128 = (x)}
#define BYTES(k, p, n) {.kind = k, .u.bytes = {(const uint8_t *)(p), (n)}}

TEST(binary_exact_bytes_and_round_trip) {
  static const bin_case_t cases[] = {
      {"boolean", {.kind = TY_BOOLEAN, .u.b = true}, "01"},
      {"boolean", {.kind = TY_BOOLEAN, .u.b = false}, "00"},
      {"int", I32(TY_INT, 34), "22000000"},
      {"int", I32(TY_INT, -1), "ffffffff"},
      {"long", I64(TY_LONG, 34), "2200000000000000"},
      {"long", I64(TY_LONG, -1), "ffffffffffffffff"},
      {"float", {.kind = TY_FLOAT, .u.f32 = 1.0f}, "0000803f"},
      {"double", {.kind = TY_DOUBLE, .u.f64 = 1.0}, "000000000000f03f"},
      {"decimal(9,2)", DEC(1420), "058c"},
      {"decimal(9,2)", DEC(0), "00"},
      {"decimal(9,2)", DEC(127), "7f"},
      {"decimal(9,2)", DEC(128), "0080"},
      {"decimal(9,2)", DEC(-128), "80"},
      {"decimal(9,2)", DEC(-129), "ff7f"},
      {"decimal(9,2)", DEC(255), "00ff"},
      {"decimal(9,2)", DEC(-256), "ff00"},
      {"date", I32(TY_DATE, 17486), "4e440000"},
      {"time", I64(TY_TIME, 81068000000LL), "008307e012000000"},
      {"timestamp", I64(TY_TIMESTAMP, 1510871468000000LL), "00c3262d215e0500"},
      {"timestamptz", I64(TY_TIMESTAMPTZ, 1510871468000000LL), "00c3262d215e0500"},
      {"timestamp_ns", I64(TY_TIMESTAMP_NS, -1), "ffffffffffffffff"},
      {"timestamptz_ns", I64(TY_TIMESTAMPTZ_NS, 1), "0100000000000000"},
      {"string", BYTES(TY_STRING, "iceberg", 7), "69636562657267"},
      {"string", BYTES(TY_STRING, "", 0), ""},
      {"uuid", BYTES(TY_UUID, uuid_bytes, 16), "f79c3e09677c4bbda4793f349cb785e7"},
      {"fixed(4)", BYTES(TY_FIXED, bin4, 4), "00010203"},
      {"binary", BYTES(TY_BINARY, bin4, 4), "00010203"},
  };
  fl_arena_t *a = fl_arena_new(0);
  fl_buf_t b;
  fl_buf_init(&b);
  fl_err_t err;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int32_t next = 1;
    const ty_type_t *t;
    CHECK_OK(ty_type_parse(a, cases[i].type, &next, &t, &err), &err);
    fl_buf_clear(&b);
    CHECK_OK(ice_value_to_bytes(t, &cases[i].v, &b, &err), &err);
    char hex[80];
    to_hex(b.data, b.len, hex);
    if (strcmp(hex, cases[i].hex) != 0) {
      t_fail(__FILE__, __LINE__, "case %zu (%s): %s != %s", i, cases[i].type, hex, cases[i].hex);
      return;
    }
    ty_value_t back;
    CHECK_OK(ice_value_from_bytes(a, t, b.data, b.len, "bound", &back, &err), &err);
    CHECK(!back.is_null);
    CHECK_EQ(back.kind, t->kind);
    if (t->kind == TY_BOOLEAN) {
      CHECK_EQ(back.u.b, cases[i].v.u.b);
    } else {
      CHECK_EQ(ty_value_cmp(&back, &cases[i].v), 0);
    }
  }
  /* The largest decimal(38) magnitudes take 16 bytes. */
  fl_i128 max38 = ty_decimal_max(38);
  ty_value_t big = DEC(max38), nbig = DEC(-max38);
  const ty_type_t *d38 = ty_decimal(a, 38, 0);
  fl_buf_clear(&b);
  CHECK_OK(ice_value_to_bytes(d38, &big, &b, &err), &err);
  char hex[80];
  to_hex(b.data, b.len, hex);
  CHECK_STR(hex, "4b3b4ca85a86c47a098a223fffffffff");
  fl_buf_clear(&b);
  CHECK_OK(ice_value_to_bytes(d38, &nbig, &b, &err), &err);
  to_hex(b.data, b.len, hex);
  CHECK_STR(hex, "b4c4b357a5793b85f675ddc000000001");
  ty_value_t back;
  CHECK_OK(ice_value_from_bytes(a, d38, b.data, b.len, "bound", &back, &err), &err);
  CHECK(back.u.i128 == -max38);
  /* Null and nested values have no binary form. */
  ty_value_t nul = {.kind = TY_INT, .is_null = true};
  CHECK_ERR(ice_value_to_bytes(ty_primitive(TY_INT), &nul, &b, &err), FL_EINVALID);
  fl_buf_free(&b);
  fl_arena_free(a);
}

TEST(binary_promotions_and_errors) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_value_t v;
  /* A long column's bound written as an int before promotion. */
  static const uint8_t m1[4] = {0xff, 0xff, 0xff, 0xff};
  CHECK_OK(ice_value_from_bytes(a, ty_primitive(TY_LONG), m1, 4, "b", &v, &err), &err);
  CHECK_EQ(v.u.i64, -1);
  /* A double column's bound written as a float: 1.5f = 0x3fc00000. */
  static const uint8_t f15[4] = {0x00, 0x00, 0xc0, 0x3f};
  CHECK_OK(ice_value_from_bytes(a, ty_primitive(TY_DOUBLE), f15, 4, "b", &v, &err), &err);
  CHECK(v.u.f64 == 1.5);
  static const uint8_t junk[17] = {0};
  static const struct {
    const char *type;
    size_t n;
  } bad[] = {{"int", 3}, {"int", 8},    {"boolean", 0}, {"boolean", 2}, {"long", 5},
             {"timestamp", 4}, {"float", 8}, {"double", 5}, {"decimal(9,2)", 0},
             {"decimal(38,0)", 17}, {"uuid", 15}, {"fixed(4)", 3}, {"date", 8}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int32_t next = 1;
    const ty_type_t *t;
    CHECK_OK(ty_type_parse(a, bad[i].type, &next, &t, &err), &err);
    fl_err_clear(&err);
    CHECK_ERR(ice_value_from_bytes(a, t, junk, bad[i].n, "lower_bounds[3]", &v, &err),
              FL_ECORRUPT);
    CHECK(strstr(err.msg, "lower_bounds[3]") != NULL);
  }
  /* A decimal beyond its precision is corrupt: 1000 in decimal(3,0). */
  static const uint8_t k[2] = {0x03, 0xe8};
  CHECK_ERR(ice_value_from_bytes(a, ty_decimal(a, 3, 0), k, 2, "b", &v, &err), FL_ECORRUPT);
  /* Byte values are copies. */
  uint8_t src[3] = {'a', 'b', 'c'};
  CHECK_OK(ice_value_from_bytes(a, ty_primitive(TY_STRING), src, 3, "b", &v, &err), &err);
  src[0] = 'z';
  CHECK(v.u.bytes.p[0] == 'a');
  fl_arena_free(a);
}

static char *json_text(const ty_type_t *t, ty_value_t v) {
  json_t *j;
  fl_err_t err;
  if (ice_value_to_json(t, &v, &j, &err) != FL_OK) return NULL;
  char *s = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
  json_decref(j);
  return s;
}

TEST(json_single_values) {
  /* The spec's appendix D examples. */
  static const struct {
    const char *type;
    ty_value_t v;
    const char *json;
  } cases[] = {
      {"boolean", {.kind = TY_BOOLEAN, .u.b = true}, "true"},
      {"int", I32(TY_INT, 34), "34"},
      {"long", I64(TY_LONG, 34), "34"},
      {"double", {.kind = TY_DOUBLE, .u.f64 = 1.0}, "1.0"},
      {"decimal(9,2)", DEC(1420), "\"14.20\""},
      {"decimal(9,4)", DEC(-5), "\"-0.0005\""},
      {"date", I32(TY_DATE, 17486), "\"2017-11-16\""},
      {"time", I64(TY_TIME, 81068123456LL), "\"22:31:08.123456\""},
      {"timestamp", I64(TY_TIMESTAMP, 1510871468123456LL), "\"2017-11-16T22:31:08.123456\""},
      {"timestamptz", I64(TY_TIMESTAMPTZ, 1510871468123456LL),
       "\"2017-11-16T22:31:08.123456+00:00\""},
      {"timestamp_ns", I64(TY_TIMESTAMP_NS, 1510871468123456789LL),
       "\"2017-11-16T22:31:08.123456789\""},
      {"timestamptz_ns", I64(TY_TIMESTAMPTZ_NS, 1510871468123456789LL),
       "\"2017-11-16T22:31:08.123456789+00:00\""},
      {"string", BYTES(TY_STRING, "iceberg", 7), "\"iceberg\""},
      {"uuid", BYTES(TY_UUID, uuid_bytes, 16), "\"f79c3e09-677c-4bbd-a479-3f349cb785e7\""},
      {"fixed(4)", BYTES(TY_FIXED, bin4, 4), "\"00010203\""},
      {"binary", BYTES(TY_BINARY, "\x00\x01\x02\xff", 4), "\"000102FF\""},
  };
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int32_t next = 1;
    const ty_type_t *t;
    CHECK_OK(ty_type_parse(a, cases[i].type, &next, &t, &err), &err);
    char *s = json_text(t, cases[i].v);
    CHECK(s != NULL);
    bool same = strcmp(s, cases[i].json) == 0;
    if (!same) t_fail(__FILE__, __LINE__, "%s: %s != %s", cases[i].type, s, cases[i].json);
    free(s);
    if (!same) return;
    json_error_t je;
    json_t *j = json_loads(cases[i].json, JSON_DECODE_ANY, &je);
    CHECK(j != NULL);
    ty_value_t back;
    int rc = ice_value_from_json(a, t, j, "default", &back, &err);
    json_decref(j);
    CHECK_OK(rc, &err);
    if (t->kind == TY_BOOLEAN)
      CHECK_EQ(back.u.b, cases[i].v.u.b);
    else
      CHECK_EQ(ty_value_cmp(&back, &cases[i].v), 0);
  }
  /* Lower-case hex reads too; floats take integers. */
  ty_value_t v;
  json_t *j = json_string("00ff");
  CHECK_OK(ice_value_from_json(a, ty_primitive(TY_BINARY), j, "d", &v, &err), &err);
  CHECK_EQ(v.u.bytes.n, 2);
  CHECK_EQ(v.u.bytes.p[1], 0xff);
  json_decref(j);
  j = json_integer(3);
  CHECK_OK(ice_value_from_json(a, ty_primitive(TY_FLOAT), j, "d", &v, &err), &err);
  CHECK(v.u.f32 == 3.0f);
  json_decref(j);
  /* Wrong shapes are parse errors naming the field. */
  static const struct {
    const char *type, *json;
  } bad[] = {
      {"int", "\"34\""},           {"int", "3000000000"},  {"int", "1.5"},
      {"boolean", "1"},            {"decimal(9,2)", "14.20"}, {"decimal(9,2)", "\"14.2\""},
      {"decimal(9,2)", "\"14.201\""}, {"date", "\"2017-13-01\""},
      {"timestamp", "\"2017-11-16T22:31:08+00:00\""},
      {"timestamptz", "\"2017-11-16T22:31:08\""},
      {"timestamptz", "\"2017-11-16T22:31:08-08:00\""},
      {"uuid", "\"f79c3e09\""},    {"fixed(4)", "\"000102\""}, {"binary", "\"0g\""},
      {"binary", "\"abc\""},       {"string", "5"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int32_t next = 1;
    const ty_type_t *t;
    CHECK_OK(ty_type_parse(a, bad[i].type, &next, &t, &err), &err);
    json_error_t je;
    j = json_loads(bad[i].json, JSON_DECODE_ANY, &je);
    CHECK(j != NULL);
    fl_err_clear(&err);
    int rc = ice_value_from_json(a, t, j, "write-default of x", &v, &err);
    json_decref(j);
    if (rc != FL_EPARSE || !strstr(err.msg, "write-default of x")) {
      t_fail(__FILE__, __LINE__, "%s %s: rc %d msg %s", bad[i].type, bad[i].json, rc, err.msg);
      return;
    }
  }
  fl_arena_free(a);
}

static bool upper(fl_arena_t *a, ty_kind_t k, const char *s, size_t n, int max, char *out,
                  size_t *out_n) {
  ty_value_t v = {.kind = k, .u.bytes = {(const uint8_t *)s, n}}, r;
  bool ok = ice_truncate_upper(a, ty_primitive(k), &v, max, &r);
  if (ok) {
    memcpy(out, r.u.bytes.p, r.u.bytes.n);
    *out_n = r.u.bytes.n;
  }
  return ok;
}

static size_t lower(fl_arena_t *a, ty_kind_t k, const char *s, int max) {
  ty_value_t v = {.kind = k, .u.bytes = {(const uint8_t *)s, strlen(s)}}, r;
  ice_truncate_lower(a, ty_primitive(k), &v, max, &r);
  return r.u.bytes.n;
}

TEST(truncate_bounds) {
  fl_arena_t *a = fl_arena_new(0);
  char out[64];
  size_t n;
  /* Lower bounds: the prefix in code points. */
  CHECK_EQ(lower(a, TY_STRING, "abcdef", 3), 3);
  CHECK_EQ(lower(a, TY_STRING, "ab", 3), 2);
  CHECK_EQ(lower(a, TY_STRING, "\xc3\xa4\xc3\xb6\xc3\xbc", 2), 4);
  CHECK_EQ(lower(a, TY_STRING, "\xf0\x9f\x98\x80\xf0\x9f\x98\x80", 1), 4);
  CHECK_EQ(lower(a, TY_BINARY, "abcdef", 4), 4);
  /* Upper bounds: increment the last kept code point. */
  CHECK(upper(a, TY_STRING, "abcdef", 6, 3, out, &n));
  CHECK_EQ(n, 3);
  CHECK_MEM(out, "abd", 3);
  CHECK(upper(a, TY_STRING, "abc", 3, 3, out, &n));
  CHECK_EQ(n, 3);
  CHECK_MEM(out, "abc", 3);
  /* "aä..." -> "aå" (U+00E4 + 1 = U+00E5). */
  CHECK(upper(a, TY_STRING, "a\xc3\xa4zz", 5, 2, out, &n));
  CHECK_EQ(n, 3);
  CHECK_MEM(out, "a\xc3\xa5", 3);
  /* U+007F + 1 = U+0080 becomes two bytes. */
  CHECK(upper(a, TY_STRING, "a\x7fzz", 4, 2, out, &n));
  CHECK_EQ(n, 3);
  CHECK_MEM(out, "a\xc2\x80", 3);
  /* U+D7FF + 1 skips the surrogates to U+E000. */
  CHECK(upper(a, TY_STRING, "\xed\x9f\xbfz", 4, 1, out, &n));
  CHECK_EQ(n, 3);
  CHECK_MEM(out, "\xee\x80\x80", 3);
  /* U+10FFFF cannot grow: carry into the previous code point. */
  CHECK(upper(a, TY_STRING, "a\xf4\x8f\xbf\xbfzz", 7, 2, out, &n));
  CHECK_EQ(n, 1);
  CHECK_MEM(out, "b", 1);
  CHECK(!upper(a, TY_STRING, "\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\x41", 9, 2, out, &n));
  /* Binary: increment the last byte, carrying over 0xFF. */
  CHECK(upper(a, TY_BINARY, "\x01\x02\x03\x04", 4, 2, out, &n));
  CHECK_EQ(n, 2);
  CHECK_MEM(out, "\x01\x03", 2);
  CHECK(upper(a, TY_BINARY, "\x01\xff\xff\x04", 4, 3, out, &n));
  CHECK_EQ(n, 1);
  CHECK_MEM(out, "\x02", 1);
  CHECK(!upper(a, TY_BINARY, "\xff\xff\xff", 3, 2, out, &n));
  CHECK(upper(a, TY_BINARY, "\xff\xff", 2, 2, out, &n));
  CHECK_EQ(n, 2);
  /* The result bounds the value: the truncated upper compares greater. */
  ty_value_t v = {.kind = TY_STRING, .u.bytes = {(const uint8_t *)"zebra\xc3\xbf", 7}}, r;
  CHECK(ice_truncate_upper(a, ty_primitive(TY_STRING), &v, 5, &r) == true);
  CHECK(ty_value_cmp(&r, &v) > 0);
  fl_arena_free(a);
}
