/*
 * test_time_fast.c - the fixed-layout timestamp path agrees with the
 * general parser: a leading '+' on the year sends the same text through
 * the general path, which must give the same answer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/time.h"
#include "test.h"

TEST(timestamp_fixed_layout_matches_general_path) {
  srand(777);
  for (int iter = 0; iter < 200000; iter++) {
    char s[80];
    int y = rand() % 10000, mo = rand() % 14, d = rand() % 33;
    int h = rand() % 25, mi = rand() % 61, sec = rand() % 62;
    if (rand() % 4) {
      mo = 1 + rand() % 12;
      d = 1 + rand() % 28;
      h = rand() % 24;
      mi = rand() % 60;
      sec = rand() % 61;
    }
    int n = snprintf(s, sizeof s, "%04d-%02d-%02d%c%02d:%02d:%02d", y, mo, d,
                     "Tt "[rand() % 3], h, mi, sec);
    int nf = rand() % 12;
    if (nf) {
      s[n++] = '.';
      for (int k = 1; k < nf; k++) s[n++] = (char)('0' + rand() % 10);
    }
    switch (rand() % 5) {
      case 0: break;
      case 1: s[n++] = 'Z'; break;
      case 2: s[n++] = 'z'; break;
      default:
        n += snprintf(s + n, sizeof s - (size_t)n, "%c%02d:%02d", rand() % 2 ? '+' : '-',
                      rand() % 20, rand() % 61);
    }
    if (rand() % 40 == 0) s[rand() % n] = "x9:-"[rand() % 4];
    s[n] = '\0';
    char g[84];
    g[0] = '+';
    memcpy(g + 1, s, (size_t)n + 1);
    int prec = rand() % 2 ? 6 : rand() % 10;
    int64_t a = 0, b = 0;
    bool za = false, zb = false;
    bool ra = fl_parse_timestamp(s, (size_t)n, prec, &a, &za);
    bool rb = fl_parse_timestamp(g, (size_t)n + 1, prec, &b, &zb);
    if (ra != rb || (ra && (a != b || za != zb)))
      fprintf(stderr, "mismatch on '%s' prec %d: %d %lld / %d %lld\n", s, prec, (int)ra,
              (long long)a, (int)rb, (long long)b);
    CHECK(ra == rb);
    if (ra && rb) {
      CHECK(a == b);
      CHECK(za == zb);
    }
  }
}

TEST(timestamp_fixed_layout_against_timegm) {
  int64_t v;
  bool z;
  CHECK(fl_parse_timestamp("2057-02-08T19:01:57.814407+00:00", 32, 6, &v, &z));
  struct tm tm = {.tm_year = 2057 - 1900, .tm_mon = 1, .tm_mday = 8, .tm_hour = 19,
                  .tm_min = 1, .tm_sec = 57};
  CHECK(z);
  CHECK(v == (int64_t)timegm(&tm) * 1000000 + 814407);
  CHECK(fl_parse_timestamp("1920-05-08T04:57:58.793379-05:30", 32, 6, &v, &z));
  struct tm t2 = {.tm_year = 1920 - 1900, .tm_mon = 4, .tm_mday = 8, .tm_hour = 4,
                  .tm_min = 57, .tm_sec = 58};
  CHECK(v == ((int64_t)timegm(&t2) + 5 * 3600 + 1800) * 1000000 + 793379);
  CHECK(!fl_parse_timestamp("2021-02-29T00:00:00Z", 20, 6, &v, &z));
  CHECK(fl_parse_timestamp("2024-02-29T23:59:60Z", 20, 6, &v, &z));
  CHECK(!fl_parse_timestamp("2024-02-29T00:00:00.1234567890Z", 31, 9, &v, &z));
  /* Nanoseconds past 2262 overflow int64. */
  CHECK(!fl_parse_timestamp("2263-01-01T00:00:00Z", 20, 9, &v, &z));
}

/* The date kept from the call before never stands in for another date,
 * valid or not: each timestamp after it parses as on its own. */
TEST(timestamp_last_date_reused_only_for_the_same_date) {
  int64_t v, w;
  bool z;
  CHECK(fl_parse_timestamp("2024-01-31 10:00:00", 19, 6, &v, &z));
  CHECK(fl_parse_timestamp("2024-01-31 11:00:00", 19, 6, &w, &z));
  CHECK_EQ(w - v, 3600LL * 1000000);
  CHECK(!fl_parse_timestamp("2024-02-31 11:00:00", 19, 6, &w, &z));
  CHECK(!fl_parse_timestamp("2024-01-32 11:00:00", 19, 6, &w, &z));
  CHECK(!fl_parse_timestamp("2024-17-31 11:00:00", 19, 6, &w, &z));
  CHECK(fl_parse_timestamp("2024-02-01 10:00:00", 19, 6, &w, &z));
  CHECK_EQ(w - v, 86400LL * 1000000);
  CHECK(fl_parse_timestamp("2024-01-31 10:00:00", 19, 6, &w, &z));
  CHECK_EQ(w, v);
  CHECK(!fl_parse_timestamp("2023-02-29 10:00:00", 19, 6, &w, &z));
  CHECK(fl_parse_timestamp("2024-02-29 10:00:00", 19, 6, &w, &z));
}
