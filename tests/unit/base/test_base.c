/*
 * test_base.c - arenas, errors, buffers, hashes and calendar math.
 */
#include <stdlib.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/hash.h"
#include "base/time.h"
#include "test.h"

static int cleanups_run;
static void count_cleanup(void *arg) { cleanups_run += *(int *)arg; }

TEST(arena_alloc_reset_cleanup) {
  fl_arena_t *a = fl_arena_new(1024);
  char *s = fl_arena_strdup(a, "hello");
  CHECK_STR(s, "hello");
  for (int i = 0; i < 1000; i++) {
    uint8_t *p = fl_arena_alloc(a, 100);
    CHECK(((uintptr_t)p & 15) == 0);
    memset(p, i, 100);
  }
  void *big = fl_arena_alloc(a, 100000);
  memset(big, 1, 100000);
  static int one = 1, ten = 10;
  fl_arena_on_reset(a, count_cleanup, &one);
  fl_arena_on_reset(a, count_cleanup, &ten);
  CHECK(fl_arena_used(a) > 100000);
  fl_arena_reset(a);
  CHECK_EQ(cleanups_run, 11);
  CHECK_EQ(fl_arena_used(a), 0);
  CHECK_STR(fl_arena_sprintf(a, "%d-%s", 42, "x"), "42-x");
  fl_arena_free(a);
  CHECK_EQ(cleanups_run, 11);
}

TEST(error_codes_and_prefix) {
  fl_err_t err;
  fl_err_clear(&err);
  CHECK_EQ(fl_err_set(&err, FL_ECORRUPT, "page at %d", 7), FL_ECORRUPT);
  CHECK(!err.retriable);
  fl_err_prefix(&err, "%s: ", "x.parquet");
  CHECK_STR(err.msg, "x.parquet: page at 7");
  CHECK_STR(fl_code_name(FL_ECONFLICT), "CONFLICT");
  fl_err_set_retriable(&err, FL_ECONFLICT, "lost race");
  CHECK(err.retriable);
}

TEST(buf_varints_and_reader) {
  fl_buf_t b;
  fl_buf_init(&b);
  int64_t vals[] = {0, 1, -1, 63, -64, 300, INT64_MAX, INT64_MIN};
  for (size_t i = 0; i < 8; i++) fl_buf_append_zvarint(&b, vals[i]);
  fl_buf_append_le32(&b, 0xdeadbeef);
  fl_rd_t r;
  fl_err_t err;
  fl_rd_init(&r, b.data, b.len, "test");
  for (size_t i = 0; i < 8; i++) {
    int64_t v;
    CHECK_OK(fl_rd_zvarint(&r, &v, &err), &err);
    CHECK_EQ(v, vals[i]);
  }
  uint32_t u;
  CHECK_OK(fl_rd_le32(&r, &u, &err), &err);
  CHECK_EQ(u, 0xdeadbeef);
  CHECK_ERR(fl_rd_le32(&r, &u, &err), FL_ECORRUPT);
  CHECK(strstr(err.msg, "truncated") != NULL);
  fl_buf_free(&b);
}

TEST(murmur3_matches_iceberg_vectors) {
  /* Iceberg spec: bucket hash of int/long 34 is the hash of its 8-byte LE form. */
  int64_t v = 34;
  CHECK_EQ((int32_t)fl_murmur3_32(&v, 8, 0), 2017239379);
  CHECK_EQ((int32_t)fl_murmur3_32("iceberg", 7, 0), 1210000089);
  uint8_t bytes[4] = {0, 1, 2, 3};
  CHECK_EQ((int32_t)fl_murmur3_32(bytes, 4, 0), -188683207);
}

TEST(xxhash64_known_values) {
  CHECK(fl_xxhash64("", 0, 0) == 0xEF46DB3751D8E999ULL);
  CHECK(fl_xxhash64("abc", 3, 0) == 0x44BC2CF5AD770999ULL);
  CHECK(fl_crc32(0, "123456789", 9) == 0xCBF43926u);
}

/* A bitwise CRC-32 (reflected 0xEDB88320), the definition itself. */
static uint32_t crc32_bitwise(uint32_t crc, const uint8_t *p, size_t n) {
  crc = ~crc;
  for (size_t i = 0; i < n; i++) {
    crc ^= p[i];
    for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

TEST(crc32_matches_definition_at_every_length_and_split) {
  uint8_t buf[4200];
  uint64_t x = 88172645463325252ull;
  for (size_t i = 0; i < sizeof buf; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    buf[i] = (uint8_t)x;
  }
  CHECK(fl_crc32(0, buf, 0) == 0);
  for (size_t n = 1; n <= sizeof buf; n += (n < 300 ? 1 : 97)) {
    uint32_t want = crc32_bitwise(0, buf + (n & 7), n - (n & 7));
    CHECK(fl_crc32(0, buf + (n & 7), n - (n & 7)) == want);
    size_t cut = n / 3;
    CHECK(fl_crc32(fl_crc32(0, buf, cut), buf + cut, n - cut) == crc32_bitwise(0, buf, n));
  }
}

TEST(calendar_round_trip) {
  for (int64_t d = -800000; d < 800000; d += 37) {
    int64_t y;
    unsigned m, dd;
    fl_civil_from_days(d, &y, &m, &dd);
    CHECK_EQ(fl_days_from_civil(y, m, dd), d);
  }
  int32_t days;
  CHECK(fl_parse_date("2017-11-16", 10, &days));
  CHECK_EQ(days, 17486);
  CHECK(!fl_parse_date("2017-02-29", 10, &days));
  CHECK(fl_parse_date("1969-12-31", 10, &days));
  CHECK_EQ(days, -1);
}

TEST(timestamp_parse_and_format) {
  int64_t ts;
  bool zone;
  CHECK(fl_parse_timestamp("2017-11-16T22:31:08", 19, 6, &ts, &zone));
  CHECK_EQ(ts, 1510871468000000LL);
  CHECK(!zone);
  const char *tz = "2017-11-16T14:31:08-08:00";
  CHECK(fl_parse_timestamp(tz, strlen(tz), 6, &ts, &zone));
  CHECK_EQ(ts, 1510871468000000LL);
  CHECK(zone);
  const char *frac = "1969-12-31 23:59:59.999999999Z";
  CHECK(fl_parse_timestamp(frac, strlen(frac), 9, &ts, &zone));
  CHECK_EQ(ts, -1);
  char buf[64];
  fl_format_timestamp(-1, 9, true, buf);
  CHECK_STR(buf, "1969-12-31T23:59:59.999999999+00:00");
  fl_format_timestamp(1510871468000001LL, 6, false, buf);
  CHECK_STR(buf, "2017-11-16T22:31:08.000001");
  CHECK(!fl_parse_timestamp("2017-11-16T25:00:00", 19, 6, &ts, &zone));
  CHECK(!fl_parse_timestamp("2017-11-16X", 11, 6, &ts, &zone));
  int64_t t;
  CHECK(fl_parse_time("22:31:08", 8, &t));
  CHECK_EQ(t, 81068000000LL);
}
