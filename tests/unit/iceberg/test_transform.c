/*
 * test_transform.c - partition transforms: the spec's hash test vectors
 * (appendix B), bucket/truncate/temporal transforms on values either side
 * of the epoch and of zero, human strings, both parse spellings and their
 * errors, result types, ordering, satisfaction and default field names.
 */
#include <string.h>

#include "base/time.h"
#include "iceberg/ice_transform.h"
#include "test.h"

static ty_value_t v_i32(ty_kind_t k, int32_t x) {
  ty_value_t v = {.kind = k};
  v.u.i32 = x;
  return v;
}
static ty_value_t v_i64(ty_kind_t k, int64_t x) {
  ty_value_t v = {.kind = k};
  v.u.i64 = x;
  return v;
}
static ty_value_t v_bytes(ty_kind_t k, const void *p, size_t n) {
  ty_value_t v = {.kind = k};
  v.u.bytes.p = p;
  v.u.bytes.n = n;
  return v;
}
static ty_value_t v_dec(fl_i128 x) {
  ty_value_t v = {.kind = TY_DECIMAL};
  v.u.i128 = x;
  return v;
}

static int64_t ts(const char *s, int precision) {
  int64_t out = 0;
  bool zone;
  if (!fl_parse_timestamp(s, strlen(s), precision, &out, &zone)) return INT64_MIN;
  return out;
}

static int32_t hash_of(ty_kind_t k, ty_value_t v) { return ice_bucket_hash(ty_primitive(k), &v); }

TEST(hash_spec_vectors) {
  CHECK_EQ(hash_of(TY_INT, v_i32(TY_INT, 34)), 2017239379);
  CHECK_EQ(hash_of(TY_LONG, v_i64(TY_LONG, 34)), 2017239379);
  fl_arena_t *a = fl_arena_new(0);
  CHECK_EQ(ice_bucket_hash(ty_decimal(a, 9, 2), &(ty_value_t){.kind = TY_DECIMAL, .u.i128 = 1420}),
           -500754589);
  fl_arena_free(a);
  int32_t d;
  CHECK(fl_parse_date("2017-11-16", 10, &d));
  CHECK_EQ(d, 17486);
  CHECK_EQ(hash_of(TY_DATE, v_i32(TY_DATE, d)), -653330422);
  int64_t t;
  CHECK(fl_parse_time("22:31:08", 8, &t));
  CHECK_EQ(hash_of(TY_TIME, v_i64(TY_TIME, t)), -662762989);
  CHECK_EQ(hash_of(TY_TIMESTAMP, v_i64(TY_TIMESTAMP, ts("2017-11-16T22:31:08", 6))), -2047944441);
  CHECK_EQ(hash_of(TY_TIMESTAMP, v_i64(TY_TIMESTAMP, ts("2017-11-16T22:31:08.000001", 6))),
           -1207196810);
  CHECK_EQ(hash_of(TY_TIMESTAMPTZ, v_i64(TY_TIMESTAMPTZ, ts("2017-11-16T14:31:08-08:00", 6))),
           -2047944441);
  CHECK_EQ(
      hash_of(TY_TIMESTAMPTZ, v_i64(TY_TIMESTAMPTZ, ts("2017-11-16T14:31:08.000001-08:00", 6))),
      -1207196810);
  /* v3: nanosecond timestamps hash as their microseconds. */
  CHECK_EQ(hash_of(TY_TIMESTAMP_NS, v_i64(TY_TIMESTAMP_NS, ts("2017-11-16T22:31:08", 9))),
           -2047944441);
  CHECK_EQ(
      hash_of(TY_TIMESTAMP_NS, v_i64(TY_TIMESTAMP_NS, ts("2017-11-16T22:31:08.000001001", 9))),
      -1207196810);
  CHECK_EQ(hash_of(TY_TIMESTAMPTZ_NS,
                   v_i64(TY_TIMESTAMPTZ_NS, ts("2017-11-16T14:31:08.000001001-08:00", 9))),
           -1207196810);
  CHECK_EQ(hash_of(TY_STRING, v_bytes(TY_STRING, "iceberg", 7)), 1210000089);
  CHECK_EQ(hash_of(TY_STRING, v_bytes(TY_STRING, "34", 2)), -427558391);
  uint8_t u[16];
  CHECK(ty_uuid_parse("f79c3e09-677c-4bbd-a479-3f349cb785e7", 36, u));
  CHECK_EQ(hash_of(TY_UUID, v_bytes(TY_UUID, u, 16)), 1488055340);
  static const uint8_t b4[4] = {0, 1, 2, 3};
  CHECK_EQ(hash_of(TY_BINARY, v_bytes(TY_BINARY, b4, 4)), -188683207);
  fl_arena_t *a2 = fl_arena_new(0);
  CHECK_EQ(ice_bucket_hash(ty_fixed(a2, 4), &(ty_value_t){.kind = TY_FIXED, .u.bytes = {b4, 4}}),
           -188683207);
  fl_arena_free(a2);
  /* Floats hash as doubles; -0 as 0 (spec appendix B). */
  ty_value_t f1 = {.kind = TY_FLOAT, .u.f32 = 1.0f}, d1 = {.kind = TY_DOUBLE, .u.f64 = 1.0};
  CHECK_EQ(hash_of(TY_FLOAT, f1), -142385009);
  CHECK_EQ(hash_of(TY_DOUBLE, d1), -142385009);
  ty_value_t z = {.kind = TY_DOUBLE, .u.f64 = 0.0}, nz = {.kind = TY_DOUBLE, .u.f64 = -0.0};
  CHECK_EQ(hash_of(TY_DOUBLE, z), 1669671676);
  CHECK_EQ(hash_of(TY_DOUBLE, nz), 1669671676);
}

static ice_transform_t tr(ice_transform_kind_t k, int32_t p) {
  ice_transform_t t = {.kind = k, .param = p};
  return t;
}

static int32_t apply_i32(ice_transform_t t, ty_kind_t k, ty_value_t in) {
  ty_value_t out;
  fl_err_t err;
  if (ice_transform_apply(&t, ty_primitive(k), &in, &out, &err) != FL_OK) return INT32_MIN;
  return out.u.i32;
}

TEST(bucket_values) {
  /* PyIceberg's and Java's published bucket[100] examples. */
  ice_transform_t b100 = tr(ICE_T_BUCKET, 100);
  CHECK_EQ(apply_i32(b100, TY_INT, v_i32(TY_INT, 34)), 79);
  CHECK_EQ(apply_i32(b100, TY_LONG, v_i64(TY_LONG, 34)), 79);
  CHECK_EQ(apply_i32(b100, TY_DATE, v_i32(TY_DATE, 17486)), 26);
  CHECK_EQ(apply_i32(b100, TY_TIME, v_i64(TY_TIME, 81068000000LL)), 59);
  CHECK_EQ(apply_i32(b100, TY_STRING, v_bytes(TY_STRING, "iceberg", 7)), 89);
  CHECK_EQ(apply_i32(tr(ICE_T_BUCKET, 2), TY_INT, v_i32(TY_INT, 0)), 0);
  /* The result is the hash with the sign bit cleared, modulo N. */
  int32_t h = hash_of(TY_INT, v_i32(TY_INT, -7));
  CHECK_EQ(apply_i32(tr(ICE_T_BUCKET, 16), TY_INT, v_i32(TY_INT, -7)), (h & 0x7fffffff) % 16);
  /* Bucket does not apply to boolean, float or double. */
  ty_value_t out;
  fl_err_t err;
  ice_transform_t b = tr(ICE_T_BUCKET, 4);
  ty_value_t fv = {.kind = TY_DOUBLE, .u.f64 = 1};
  CHECK_ERR(ice_transform_apply(&b, ty_primitive(TY_DOUBLE), &fv, &out, &err), FL_EUNSUPPORTED);
  CHECK(!ice_transform_can_apply(&b, ty_primitive(TY_BOOLEAN)));
  CHECK(!ice_transform_can_apply(&b, ty_primitive(TY_FLOAT)));
  CHECK(ice_transform_can_apply(&b, ty_primitive(TY_TIMESTAMPTZ_NS)));
}

TEST(truncate_numbers) {
  ice_transform_t t10 = tr(ICE_T_TRUNCATE, 10);
  CHECK_EQ(apply_i32(t10, TY_INT, v_i32(TY_INT, 1)), 0);
  CHECK_EQ(apply_i32(t10, TY_INT, v_i32(TY_INT, 5)), 0);
  CHECK_EQ(apply_i32(t10, TY_INT, v_i32(TY_INT, 9)), 0);
  CHECK_EQ(apply_i32(t10, TY_INT, v_i32(TY_INT, 10)), 10);
  CHECK_EQ(apply_i32(t10, TY_INT, v_i32(TY_INT, 11)), 10);
  CHECK_EQ(apply_i32(t10, TY_INT, v_i32(TY_INT, -1)), -10);
  CHECK_EQ(apply_i32(t10, TY_INT, v_i32(TY_INT, -5)), -10);
  CHECK_EQ(apply_i32(t10, TY_INT, v_i32(TY_INT, -10)), -10);
  CHECK_EQ(apply_i32(t10, TY_INT, v_i32(TY_INT, -11)), -20);
  ty_value_t out;
  fl_err_t err;
  ty_value_t in = v_i64(TY_LONG, -1);
  CHECK_OK(ice_transform_apply(&t10, ty_primitive(TY_LONG), &in, &out, &err), &err);
  CHECK_EQ(out.u.i64, -10);
  in = v_i64(TY_LONG, 1234567890123LL);
  CHECK_OK(ice_transform_apply(&t10, ty_primitive(TY_LONG), &in, &out, &err), &err);
  CHECK_EQ(out.u.i64, 1234567890120LL);
  /* Decimal: on the unscaled value (spec: 10.65 -> 10.50 for W=50). */
  fl_arena_t *a = fl_arena_new(0);
  const ty_type_t *dt = ty_decimal(a, 9, 2);
  ice_transform_t t50 = tr(ICE_T_TRUNCATE, 50);
  in = v_dec(1065);
  CHECK_OK(ice_transform_apply(&t50, dt, &in, &out, &err), &err);
  CHECK(out.u.i128 == 1050);
  CHECK_EQ(out.kind, TY_DECIMAL);
  in = v_dec(-1);
  CHECK_OK(ice_transform_apply(&t10, dt, &in, &out, &err), &err);
  CHECK(out.u.i128 == -10);
  fl_buf_t b;
  fl_buf_init(&b);
  ice_transform_human(&t10, dt, &out, &b);
  CHECK_EQ(b.len, 5);
  CHECK_MEM(b.data, "-0.10", 5);
  fl_buf_free(&b);
  fl_arena_free(a);
}

TEST(truncate_bytes) {
  ice_transform_t t3 = tr(ICE_T_TRUNCATE, 3);
  ty_value_t out;
  fl_err_t err;
  ty_value_t in = v_bytes(TY_STRING, "iceberg", 7);
  CHECK_OK(ice_transform_apply(&t3, ty_primitive(TY_STRING), &in, &out, &err), &err);
  CHECK_EQ(out.u.bytes.n, 3);
  CHECK(out.u.bytes.p == in.u.bytes.p);
  /* Code points, not bytes: "äöü€x" -> "äöü" is 6 bytes. */
  const char *s = "\xc3\xa4\xc3\xb6\xc3\xbc\xe2\x82\xac" "x";
  in = v_bytes(TY_STRING, s, strlen(s));
  CHECK_OK(ice_transform_apply(&t3, ty_primitive(TY_STRING), &in, &out, &err), &err);
  CHECK_EQ(out.u.bytes.n, 6);
  ice_transform_t t4 = tr(ICE_T_TRUNCATE, 4);
  CHECK_OK(ice_transform_apply(&t4, ty_primitive(TY_STRING), &in, &out, &err), &err);
  CHECK_EQ(out.u.bytes.n, 9);
  /* An emoji (4 bytes) counts as one. */
  const char *e = "\xf0\x9f\x98\x80\xf0\x9f\x98\x81z";
  in = v_bytes(TY_STRING, e, strlen(e));
  ice_transform_t t1 = tr(ICE_T_TRUNCATE, 1);
  CHECK_OK(ice_transform_apply(&t1, ty_primitive(TY_STRING), &in, &out, &err), &err);
  CHECK_EQ(out.u.bytes.n, 4);
  /* Short values stay whole. */
  in = v_bytes(TY_STRING, "ab", 2);
  CHECK_OK(ice_transform_apply(&t3, ty_primitive(TY_STRING), &in, &out, &err), &err);
  CHECK_EQ(out.u.bytes.n, 2);
  static const uint8_t bin[5] = {1, 2, 3, 4, 5};
  in = v_bytes(TY_BINARY, bin, 5);
  CHECK_OK(ice_transform_apply(&t3, ty_primitive(TY_BINARY), &in, &out, &err), &err);
  CHECK_EQ(out.u.bytes.n, 3);
  CHECK(!ice_transform_can_apply(&t3, ty_primitive(TY_UUID)));
  CHECK(!ice_transform_can_apply(&t3, ty_primitive(TY_DATE)));
}

TEST(temporal_positive_and_negative) {
  ice_transform_t y = tr(ICE_T_YEAR, 0), m = tr(ICE_T_MONTH, 0), d = tr(ICE_T_DAY, 0),
                  h = tr(ICE_T_HOUR, 0);
  int64_t t = ts("2017-11-16T22:31:08", 6);
  CHECK_EQ(apply_i32(y, TY_TIMESTAMP, v_i64(TY_TIMESTAMP, t)), 47);
  CHECK_EQ(apply_i32(m, TY_TIMESTAMP, v_i64(TY_TIMESTAMP, t)), 574);
  CHECK_EQ(apply_i32(d, TY_TIMESTAMP, v_i64(TY_TIMESTAMP, t)), 17486);
  CHECK_EQ(apply_i32(h, TY_TIMESTAMP, v_i64(TY_TIMESTAMP, t)), 17486 * 24 + 22);
  int64_t tn = ts("2017-11-16T22:31:08.000001001", 9);
  CHECK_EQ(apply_i32(y, TY_TIMESTAMP_NS, v_i64(TY_TIMESTAMP_NS, tn)), 47);
  CHECK_EQ(apply_i32(m, TY_TIMESTAMP_NS, v_i64(TY_TIMESTAMP_NS, tn)), 574);
  CHECK_EQ(apply_i32(d, TY_TIMESTAMPTZ_NS, v_i64(TY_TIMESTAMPTZ_NS, tn)), 17486);
  CHECK_EQ(apply_i32(h, TY_TIMESTAMP_NS, v_i64(TY_TIMESTAMP_NS, tn)), 17486 * 24 + 22);
  /* One unit before the epoch falls into the previous year/month/day/hour. */
  CHECK_EQ(apply_i32(y, TY_TIMESTAMP, v_i64(TY_TIMESTAMP, -1)), -1);
  CHECK_EQ(apply_i32(m, TY_TIMESTAMP, v_i64(TY_TIMESTAMP, -1)), -1);
  CHECK_EQ(apply_i32(d, TY_TIMESTAMP, v_i64(TY_TIMESTAMP, -1)), -1);
  CHECK_EQ(apply_i32(h, TY_TIMESTAMP, v_i64(TY_TIMESTAMP, -1)), -1);
  CHECK_EQ(apply_i32(h, TY_TIMESTAMP_NS, v_i64(TY_TIMESTAMP_NS, -1)), -1);
  CHECK_EQ(apply_i32(d, TY_TIMESTAMPTZ_NS, v_i64(TY_TIMESTAMPTZ_NS, -1)), -1);
  CHECK_EQ(apply_i32(y, TY_DATE, v_i32(TY_DATE, -1)), -1);
  CHECK_EQ(apply_i32(m, TY_DATE, v_i32(TY_DATE, -1)), -1);
  CHECK_EQ(apply_i32(d, TY_DATE, v_i32(TY_DATE, -1)), -1);
  /* 1969-01-01 is day -365: month -12, year -1; 1968-12-31 is year -2. */
  CHECK_EQ(apply_i32(m, TY_DATE, v_i32(TY_DATE, -365)), -12);
  CHECK_EQ(apply_i32(y, TY_DATE, v_i32(TY_DATE, -365)), -1);
  CHECK_EQ(apply_i32(y, TY_DATE, v_i32(TY_DATE, -366)), -2);
  CHECK_EQ(apply_i32(m, TY_DATE, v_i32(TY_DATE, -366)), -13);
  int64_t pre = ts("1922-02-15T01:28:51.999998", 6);
  CHECK_EQ(apply_i32(y, TY_TIMESTAMP, v_i64(TY_TIMESTAMP, pre)), 1922 - 1970);
  CHECK_EQ(apply_i32(m, TY_TIMESTAMP, v_i64(TY_TIMESTAMP, pre)), (1922 - 1970) * 12 + 1);
  int32_t day;
  CHECK(fl_parse_date("1922-02-15", 10, &day));
  CHECK_EQ(apply_i32(d, TY_TIMESTAMP, v_i64(TY_TIMESTAMP, pre)), day);
  CHECK_EQ(apply_i32(h, TY_TIMESTAMP, v_i64(TY_TIMESTAMP, pre)), (int64_t)day * 24 + 1);
  /* Hour does not apply to dates; day's result type is date. */
  CHECK(!ice_transform_can_apply(&h, ty_primitive(TY_DATE)));
  CHECK(ice_transform_result_type(&d, ty_primitive(TY_TIMESTAMP))->kind == TY_DATE);
  CHECK(ice_transform_result_type(&m, ty_primitive(TY_DATE))->kind == TY_INT);
  CHECK(ice_transform_result_type(&y, ty_primitive(TY_STRING)) == NULL);
}

TEST(null_and_void) {
  ty_value_t in = {.kind = TY_INT, .is_null = true}, out;
  fl_err_t err;
  ice_transform_t b = tr(ICE_T_BUCKET, 16);
  CHECK_OK(ice_transform_apply(&b, ty_primitive(TY_INT), &in, &out, &err), &err);
  CHECK(out.is_null);
  ice_transform_t v = tr(ICE_T_VOID, 0);
  in = v_bytes(TY_STRING, "x", 1);
  CHECK_OK(ice_transform_apply(&v, ty_primitive(TY_STRING), &in, &out, &err), &err);
  CHECK(out.is_null);
  CHECK(ice_transform_result_type(&v, ty_primitive(TY_STRING))->kind == TY_STRING);
  fl_arena_t *a = fl_arena_new(0);
  ice_transform_t u;
  CHECK_OK(ice_transform_parse(a, "zorder[3]", &u, &err), &err);
  CHECK_EQ(u.kind, ICE_T_UNKNOWN);
  CHECK_ERR(ice_transform_apply(&u, ty_primitive(TY_STRING), &in, &out, &err), FL_EUNSUPPORTED);
  CHECK(ice_transform_result_type(&u, ty_primitive(TY_INT))->kind == TY_STRING);
  fl_arena_free(a);
}

static const char *human(fl_buf_t *b, ice_transform_t t, const ty_type_t *rt, ty_value_t v) {
  fl_buf_clear(b);
  ice_transform_human(&t, rt, &v, b);
  fl_buf_append_u8(b, 0);
  return (const char *)b->data;
}

TEST(human_strings) {
  fl_buf_t b;
  fl_buf_init(&b);
  const ty_type_t *I = ty_primitive(TY_INT);
  CHECK_STR(human(&b, tr(ICE_T_YEAR, 0), I, v_i32(TY_INT, 47)), "2017");
  CHECK_STR(human(&b, tr(ICE_T_YEAR, 0), I, v_i32(TY_INT, -1)), "1969");
  CHECK_STR(human(&b, tr(ICE_T_MONTH, 0), I, v_i32(TY_INT, 574)), "2017-11");
  CHECK_STR(human(&b, tr(ICE_T_MONTH, 0), I, v_i32(TY_INT, -1)), "1969-12");
  CHECK_STR(human(&b, tr(ICE_T_DAY, 0), ty_primitive(TY_DATE), v_i32(TY_DATE, 17486)), "2017-11-16");
  CHECK_STR(human(&b, tr(ICE_T_DAY, 0), ty_primitive(TY_DATE), v_i32(TY_DATE, -1)), "1969-12-31");
  CHECK_STR(human(&b, tr(ICE_T_HOUR, 0), I, v_i32(TY_INT, 17486 * 24 + 22)), "2017-11-16-22");
  CHECK_STR(human(&b, tr(ICE_T_HOUR, 0), I, v_i32(TY_INT, -1)), "1969-12-31-23");
  CHECK_STR(human(&b, tr(ICE_T_BUCKET, 16), I, v_i32(TY_INT, 3)), "3");
  ty_value_t nul = {.kind = TY_INT, .is_null = true};
  CHECK_STR(human(&b, tr(ICE_T_IDENTITY, 0), I, nul), "null");
  ice_transform_t id = tr(ICE_T_IDENTITY, 0);
  CHECK_STR(human(&b, id, I, v_i32(TY_INT, -34)), "-34");
  CHECK_STR(human(&b, id, ty_primitive(TY_STRING), v_bytes(TY_STRING, "a/b c", 5)), "a/b c");
  /* Java: LocalDateTime/LocalTime.toString, OffsetDateTime with "Z". */
  CHECK_STR(human(&b, id, ty_primitive(TY_TIMESTAMP),
                  v_i64(TY_TIMESTAMP, ts("2017-11-16T22:31:08", 6))),
            "2017-11-16T22:31:08");
  CHECK_STR(human(&b, id, ty_primitive(TY_TIMESTAMP),
                  v_i64(TY_TIMESTAMP, ts("2017-11-16T22:31:00", 6))),
            "2017-11-16T22:31");
  CHECK_STR(human(&b, id, ty_primitive(TY_TIMESTAMPTZ),
                  v_i64(TY_TIMESTAMPTZ, ts("2017-11-16T22:31:08.000001", 6))),
            "2017-11-16T22:31:08.000001Z");
  CHECK_STR(human(&b, id, ty_primitive(TY_TIMESTAMP),
                  v_i64(TY_TIMESTAMP, ts("2017-11-16T22:31:08.5", 6))),
            "2017-11-16T22:31:08.500");
  CHECK_STR(human(&b, id, ty_primitive(TY_TIMESTAMP_NS),
                  v_i64(TY_TIMESTAMP_NS, ts("2017-11-16T22:31:08.000001001", 9))),
            "2017-11-16T22:31:08.000001001");
  CHECK_STR(human(&b, id, ty_primitive(TY_TIMESTAMP), v_i64(TY_TIMESTAMP, -1)),
            "1969-12-31T23:59:59.999999");
  CHECK_STR(human(&b, id, ty_primitive(TY_TIME), v_i64(TY_TIME, 81068000000LL)), "22:31:08");
  CHECK_STR(human(&b, id, ty_primitive(TY_DATE), v_i32(TY_DATE, 17486)), "2017-11-16");
  ty_value_t tv = {.kind = TY_BOOLEAN, .u.b = true};
  CHECK_STR(human(&b, id, ty_primitive(TY_BOOLEAN), tv), "true");
  static const uint8_t bin[4] = {0, 1, 2, 3};
  CHECK_STR(human(&b, id, ty_primitive(TY_BINARY), v_bytes(TY_BINARY, bin, 4)), "AAECAw==");
  CHECK_STR(human(&b, id, ty_primitive(TY_BINARY), v_bytes(TY_BINARY, bin, 3)), "AAEC");
  CHECK_STR(human(&b, id, ty_primitive(TY_BINARY), v_bytes(TY_BINARY, bin, 2)), "AAE=");
  uint8_t u[16];
  CHECK(ty_uuid_parse("f79c3e09-677c-4bbd-a479-3f349cb785e7", 36, u));
  CHECK_STR(human(&b, id, ty_primitive(TY_UUID), v_bytes(TY_UUID, u, 16)),
            "f79c3e09-677c-4bbd-a479-3f349cb785e7");
  fl_arena_t *a = fl_arena_new(0);
  CHECK_STR(human(&b, id, ty_decimal(a, 9, 2), v_dec(1420)), "14.20");
  CHECK_STR(human(&b, id, ty_decimal(a, 9, 2), v_dec(-5)), "-0.05");
  /* BigDecimal.toString switches to exponent form below 1E-6. */
  CHECK_STR(human(&b, id, ty_decimal(a, 10, 8), v_dec(1)), "1E-8");
  CHECK_STR(human(&b, id, ty_decimal(a, 10, 8), v_dec(-123)), "-0.00000123");
  CHECK_STR(human(&b, id, ty_decimal(a, 10, 8), v_dec(-12)), "-1.2E-7");
  CHECK_STR(human(&b, id, ty_decimal(a, 10, 7), v_dec(1)), "1E-7");
  CHECK_STR(human(&b, id, ty_decimal(a, 10, 6), v_dec(1)), "0.000001");
  fl_arena_free(a);
  fl_buf_free(&b);
}

static const char *fmt(fl_buf_t *b, const ice_transform_t *t) {
  fl_buf_clear(b);
  ice_transform_format(t, b);
  fl_buf_append_u8(b, 0);
  return (const char *)b->data;
}

TEST(parse_metadata_spelling) {
  fl_arena_t *a = fl_arena_new(0);
  fl_buf_t b;
  fl_buf_init(&b);
  fl_err_t err;
  static const char *ok[] = {"identity", "bucket[16]", "truncate[4]", "year", "month",
                             "day",      "hour",       "void"};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    ice_transform_t t;
    CHECK_OK(ice_transform_parse(a, ok[i], &t, &err), &err);
    CHECK_STR(fmt(&b, &t), ok[i]);
    CHECK(t.text == NULL);
  }
  ice_transform_t t;
  CHECK_OK(ice_transform_parse(a, "BUCKET[7]", &t, &err), &err);
  CHECK_EQ(t.kind, ICE_T_BUCKET);
  CHECK_EQ(t.param, 7);
  CHECK_OK(ice_transform_parse(a, "Day", &t, &err), &err);
  CHECK_EQ(t.kind, ICE_T_DAY);
  CHECK_OK(ice_transform_parse(a, "geohash[5]", &t, &err), &err);
  CHECK_EQ(t.kind, ICE_T_UNKNOWN);
  CHECK_STR(fmt(&b, &t), "geohash[5]");
  static const char *bad[] = {"bucket[0]", "bucket[x]", "bucket[]",     "bucket",
                              "bucket[-1]", "truncate[", "bucket[16]x", "truncate[99999999999]"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fl_err_clear(&err);
    CHECK_ERR(ice_transform_parse(a, bad[i], &t, &err), FL_EPARSE);
    CHECK(strstr(err.msg, bad[i]) != NULL);
  }
  fl_buf_free(&b);
  fl_arena_free(a);
}

TEST(parse_call_spelling) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ice_transform_t t;
  const char *col;
  CHECK_OK(ice_transform_parse_call(a, "ts", &t, &col, &err), &err);
  CHECK_EQ(t.kind, ICE_T_IDENTITY);
  CHECK_STR(col, "ts");
  CHECK_OK(ice_transform_parse_call(a, " day( ts ) ", &t, &col, &err), &err);
  CHECK_EQ(t.kind, ICE_T_DAY);
  CHECK_STR(col, "ts");
  CHECK_OK(ice_transform_parse_call(a, "bucket(16, id)", &t, &col, &err), &err);
  CHECK_EQ(t.kind, ICE_T_BUCKET);
  CHECK_EQ(t.param, 16);
  CHECK_STR(col, "id");
  CHECK_OK(ice_transform_parse_call(a, "bucket(id, 8)", &t, &col, &err), &err);
  CHECK_EQ(t.param, 8);
  CHECK_STR(col, "id");
  CHECK_OK(ice_transform_parse_call(a, "truncate(name,4)", &t, &col, &err), &err);
  CHECK_EQ(t.kind, ICE_T_TRUNCATE);
  CHECK_EQ(t.param, 4);
  CHECK_OK(ice_transform_parse_call(a, "TRUNCATE(4, point.x)", &t, &col, &err), &err);
  CHECK_STR(col, "point.x");
  CHECK_OK(ice_transform_parse_call(a, "years(ts)", &t, &col, &err), &err);
  CHECK_EQ(t.kind, ICE_T_YEAR);
  CHECK_OK(ice_transform_parse_call(a, "hours(ts)", &t, &col, &err), &err);
  CHECK_EQ(t.kind, ICE_T_HOUR);
  CHECK_OK(ice_transform_parse_call(a, "void(x)", &t, &col, &err), &err);
  CHECK_EQ(t.kind, ICE_T_VOID);
  CHECK_OK(ice_transform_parse_call(a, "identity(\"my col\")", &t, &col, &err), &err);
  CHECK_EQ(t.kind, ICE_T_IDENTITY);
  CHECK_STR(col, "my col");
  static const struct {
    const char *text, *needle;
  } bad[] = {
      {"zorder(x)", "unknown transform \"zorder\""},
      {"bucket(x)", "takes a number and a column"},
      {"bucket(0, x)", "positive"},
      {"bucket(16, 4)", "takes a number and a column"},
      {"bucket(a, b)", "takes a number and a column"},
      {"day(ts", "expected ')'"},
      {"day()", "missing column"},
      {"day(a, b)", "takes one column"},
      {"bucket(1, 2, x)", "too many arguments"},
      {"", "missing column"},
      {"a b", "invalid column name"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fl_err_clear(&err);
    CHECK_ERR(ice_transform_parse_call(a, bad[i].text, &t, &col, &err), FL_EPARSE);
    if (!strstr(err.msg, bad[i].needle)) {
      t_fail(__FILE__, __LINE__, "\"%s\": message \"%s\" lacks \"%s\"", bad[i].text, err.msg,
             bad[i].needle);
      return;
    }
  }
  fl_arena_free(a);
}

TEST(order_equal_satisfies) {
  CHECK(ice_transform_preserves_order(&(ice_transform_t){.kind = ICE_T_TRUNCATE, .param = 3}));
  CHECK(ice_transform_preserves_order(&(ice_transform_t){.kind = ICE_T_DAY}));
  CHECK(!ice_transform_preserves_order(&(ice_transform_t){.kind = ICE_T_BUCKET, .param = 3}));
  CHECK(!ice_transform_preserves_order(&(ice_transform_t){.kind = ICE_T_VOID}));
  ice_transform_t b16 = tr(ICE_T_BUCKET, 16), b8 = tr(ICE_T_BUCKET, 8), b3 = tr(ICE_T_BUCKET, 3);
  CHECK(ice_transform_equal(&b16, &(ice_transform_t){.kind = ICE_T_BUCKET, .param = 16}));
  CHECK(!ice_transform_equal(&b16, &b8));
  ice_transform_t u1 = {.kind = ICE_T_UNKNOWN, .text = "zz"}, u2 = {.kind = ICE_T_UNKNOWN, .text = "zz"},
                  u3 = {.kind = ICE_T_UNKNOWN, .text = "yy"};
  CHECK(ice_transform_equal(&u1, &u2));
  CHECK(!ice_transform_equal(&u1, &u3));
  ice_transform_t y = tr(ICE_T_YEAR, 0), m = tr(ICE_T_MONTH, 0), d = tr(ICE_T_DAY, 0),
                  h = tr(ICE_T_HOUR, 0), id = tr(ICE_T_IDENTITY, 0), v = tr(ICE_T_VOID, 0);
  CHECK(ice_transform_satisfies(&d, &m));
  CHECK(ice_transform_satisfies(&h, &y));
  CHECK(ice_transform_satisfies(&m, &m));
  CHECK(!ice_transform_satisfies(&m, &d));
  CHECK(!ice_transform_satisfies(&y, &h));
  CHECK(ice_transform_satisfies(&id, &d));
  CHECK(ice_transform_satisfies(&id, &b16));
  CHECK(ice_transform_satisfies(&b16, &b8));
  CHECK(!ice_transform_satisfies(&b8, &b16));
  CHECK(!ice_transform_satisfies(&b16, &b3));
  CHECK(ice_transform_satisfies(&b3, &v));
  CHECK(!ice_transform_satisfies(&d, &id));
  CHECK(!ice_transform_satisfies(&u1, &id));
  ice_transform_t t4 = tr(ICE_T_TRUNCATE, 4), t2 = tr(ICE_T_TRUNCATE, 2);
  CHECK(ice_transform_satisfies(&t4, &t4));
  CHECK(!ice_transform_satisfies(&t4, &t2));
}

TEST(field_names) {
  fl_arena_t *a = fl_arena_new(0);
  /* PyIceberg's _PartitionNameGenerator (and Java's UpdatePartitionSpec). */
  CHECK_STR(ice_transform_field_name(a, &(ice_transform_t){.kind = ICE_T_IDENTITY}, "id"), "id");
  CHECK_STR(ice_transform_field_name(a, &(ice_transform_t){.kind = ICE_T_BUCKET, .param = 16}, "id"),
            "id_bucket_16");
  CHECK_STR(
      ice_transform_field_name(a, &(ice_transform_t){.kind = ICE_T_TRUNCATE, .param = 4}, "name"),
      "name_trunc_4");
  CHECK_STR(ice_transform_field_name(a, &(ice_transform_t){.kind = ICE_T_YEAR}, "ts"), "ts_year");
  CHECK_STR(ice_transform_field_name(a, &(ice_transform_t){.kind = ICE_T_MONTH}, "ts"), "ts_month");
  CHECK_STR(ice_transform_field_name(a, &(ice_transform_t){.kind = ICE_T_DAY}, "ts"), "ts_day");
  CHECK_STR(ice_transform_field_name(a, &(ice_transform_t){.kind = ICE_T_HOUR}, "ts"), "ts_hour");
  CHECK_STR(ice_transform_field_name(a, &(ice_transform_t){.kind = ICE_T_VOID}, "x"), "x_null");
  fl_arena_free(a);
}
