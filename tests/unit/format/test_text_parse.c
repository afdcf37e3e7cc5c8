/*
 * test_text_parse.c - the text-to-number parsers shared by the JSON and
 * CSV readers: tp_parse_double must give exactly what strtod gives (the
 * correctly rounded double) on random and edge-case inputs, whichever of
 * its paths (exact fast paths, extended precision, strtod) a value takes.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "format/text_parse.h"
#include "test.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static uint64_t bits_of(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

/* Compares tp_parse_double with strtod on s; reports the first mismatch. */
static bool same_as_strtod(const char *s) {
  double want = strtod(s, NULL), got = 0;
  if (!tp_parse_double(s, strlen(s), &got)) {
    t_fail(__FILE__, __LINE__, "tp_parse_double rejected \"%s\"", s);
    return false;
  }
  if (bits_of(got) != bits_of(want) && !(isnan(got) && isnan(want))) {
    t_fail(__FILE__, __LINE__, "\"%s\": got %.17g (%016llx), strtod %.17g (%016llx)", s, got,
           (unsigned long long)bits_of(got), want, (unsigned long long)bits_of(want));
    return false;
  }
  return true;
}

TEST(double_edge_cases_match_strtod) {
  static const char *const cases[] = {
      "0", "-0", "0.0", "-0.0", "0e10", "1", "-1", "0.1", "0.2", "0.3", "1.5", "3.14159",
      "123456789012345", "1234567890123456", "12345678901234567", "123456789012345678",
      "1234567890123456789", "12345678901234567890", "98765432109876543210987654321",
      "9007199254740992", "9007199254740993", "9007199254740994", "9007199254740995",
      "18014398509481985", "18014398509481986", "18014398509481987", "18014398509481989",
      "9223372036854775807", "9223372036854775808", "18446744073709551615",
      "18446744073709551616", "17521754.516934507", "-40264893.1200916", "1538600.378593592",
      "0.30000000000000004", "2.2250738585072011e-308", "2.2250738585072014e-308",
      "2.225073858507201e-308", "4.9406564584124654e-324", "4.9e-324", "5e-324", "2e-324",
      "3e-324", "1e-323", "2.4703282292062327e-324", "2.4703282292062328e-324",
      "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
      "1e308", "1e309", "1e400", "-1e400", "1e-400", "1e-330", "123e-330", "1e22", "1e23",
      "1e27", "1e28", "1e-22", "1e-23", "1e-27", "1e-28", "8.98846567431158e307",
      "4.35679384e-27", "9999999999999999999e27", "9999999999999999999e-27",
      "1000000000000000000e-27", "0.000000000000000000000000001234567890123456789",
      "123456789.123456789e-5", "7.2057594037927933e16", "7.205759403792794e16",
      "5e-1", "25e-2", "125e-3", "0.1e1", ".5", "5.", "+1.25", "1E5", "1e+05", "1e-05",
      "2.5e-3", "4503599627370496.5", "4503599627370497.5", "2251799813685248.25",
      "2251799813685248.75", "1.00000000000000011102230246251565404236316680908203125",
      "1.00000000000000011102230246251565404236316680908203124",
      "1.00000000000000011102230246251565404236316680908203126",
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (!same_as_strtod(cases[i])) return;
}

/* Shortest and fixed-precision renderings of random finite doubles (all
 * magnitudes, subnormals included). */
TEST(random_doubles_round_trip_like_strtod) {
  char buf[64];
  for (int i = 0; i < 200000; i++) {
    uint64_t b = rnd();
    double d;
    memcpy(&d, &b, sizeof d);
    if (!isfinite(d)) continue;
    int prec = 1 + (int)(rnd() % 17);
    snprintf(buf, sizeof buf, (i & 1) ? "%.*g" : "%.*e", prec, d);
    if (!same_as_strtod(buf)) return;
    snprintf(buf, sizeof buf, "%.17g", d);
    if (!same_as_strtod(buf)) return;
  }
}

/* Random digit strings of 1..20 significant digits with the point
 * anywhere and small exponents: the range of the fast paths. */
TEST(random_decimals_near_fast_paths_match_strtod) {
  char buf[96];
  for (int i = 0; i < 300000; i++) {
    int ndig = 1 + (int)(rnd() % 20);
    size_t o = 0;
    if (rnd() & 1) buf[o++] = '-';
    int point = (int)(rnd() % (unsigned)(ndig + 1));
    for (int k = 0; k < ndig; k++) {
      if (k == point && k) buf[o++] = '.';
      buf[o++] = (char)('0' + (k == 0 ? 1 + rnd() % 9 : rnd() % 10));
    }
    int e = (int)(rnd() % 71) - 35;
    if (rnd() % 4) o += (size_t)snprintf(buf + o, sizeof buf - o, "e%d", e);
    buf[o] = '\0';
    if (!same_as_strtod(buf)) return;
  }
}

/* Exact midpoints between neighbouring doubles in [2^54, 2^63) (integers,
 * ties to even), the integers next to them, and the same digits scaled by
 * powers of ten: the cases where double rounding would show. */
TEST(midpoints_between_doubles_match_strtod) {
  char buf[96];
  for (int i = 0; i < 200000; i++) {
    int e2 = 54 + (int)(rnd() % 9);
    uint64_t m = (1ull << 52) | (rnd() & ((1ull << 52) - 1));
    uint64_t lo = m << (e2 - 52), ulp = 1ull << (e2 - 52);
    uint64_t mid = lo + ulp / 2;
    int64_t deltas[] = {0, -1, 1};
    for (int k = 0; k < 3; k++) {
      uint64_t v = mid + (uint64_t)deltas[k];
      snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
      if (!same_as_strtod(buf)) return;
      int sc = (int)(rnd() % 28);
      snprintf(buf, sizeof buf, "%llue-%d", (unsigned long long)v, sc);
      if (!same_as_strtod(buf)) return;
      snprintf(buf, sizeof buf, "%llue%d", (unsigned long long)v, sc);
      if (!same_as_strtod(buf)) return;
    }
  }
}

TEST(double_rejects_what_is_not_a_number) {
  double d;
  static const char *const bad[] = {"", "-", "+", "e5", "1e", "1e+", "1.2.3", "0x10", "1,5", "abc"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CHECK(!tp_parse_double(bad[i], strlen(bad[i]), &d));
  CHECK(tp_parse_double("NaN", 3, &d) && isnan(d));
  CHECK(tp_parse_double("-Infinity", 9, &d) && isinf(d) && d < 0);
}
