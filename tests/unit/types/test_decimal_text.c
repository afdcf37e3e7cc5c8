/*
 * test_decimal_text.c - ty_decimal_parse against a digit-string reference
 * on random decimal text, around the 64-bit and 38-digit boundaries.
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "types/value.h"

/* Reference: works on the digit characters themselves (no running
 * arithmetic limit), for text without an exponent. */
static bool ref_parse(const char *s, size_t n, int precision, int scale, bool round,
                      fl_i128 *out) {
  size_t i = 0;
  bool neg = false;
  if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  char ip[128], fp[128];
  size_t ni = 0, nf = 0;
  bool point = false;
  for (; i < n; i++) {
    char c = s[i];
    if (c == '.') {
      if (point) return false;
      point = true;
    } else if (c >= '0' && c <= '9') {
      if (point)
        fp[nf++] = c;
      else
        ip[ni++] = c;
    } else {
      return false;
    }
  }
  if (ni + nf == 0) return false;
  char digits[300];
  size_t nd = 0;
  memcpy(digits, ip, ni);
  nd = ni;
  for (int k = 0; k < scale; k++) digits[nd++] = (size_t)k < nf ? fp[k] : '0';
  bool extra_nonzero = false;
  int extra_first = 0;
  for (size_t k = (size_t)scale; k < nf; k++) {
    if (k == (size_t)scale) extra_first = fp[k] - '0';
    if (fp[k] != '0') extra_nonzero = true;
  }
  size_t z = 0;
  while (z < nd && digits[z] == '0') z++;
  if (nd - z > 38) return false;
  fl_i128 v = 0;
  for (size_t k = z; k < nd; k++) v = v * 10 + (digits[k] - '0');
  if (extra_nonzero) {
    if (!round) return false;
    if (extra_first >= 5) v += 1;
  }
  if (v > ty_decimal_max(precision)) return false;
  *out = neg ? -v : v;
  return true;
}

static char rand_digit(void) {
  int r = rand() % 10;
  if (r < 3) return '0';
  if (r < 6) return '9';
  return (char)('0' + rand() % 10);
}

TEST(decimal_parse_matches_reference_on_random_text) {
  srand(12345);
  for (int iter = 0; iter < 300000; iter++) {
    char s[128];
    size_t n = 0;
    int r = rand() % 4;
    if (r == 0) s[n++] = '-';
    if (r == 1) s[n++] = '+';
    int ni = rand() % 42, nf = rand() % 3 == 0 ? 0 : rand() % 30;
    for (int k = 0; k < ni; k++) s[n++] = rand_digit();
    if (nf || rand() % 4 == 0) s[n++] = '.';
    for (int k = 0; k < nf; k++) s[n++] = rand_digit();
    if (rand() % 50 == 0) s[rand() % (n + 1)] = rand() % 2 ? '.' : 'x';
    if (rand() % 50 == 0 && n) n--;
    int precision = 1 + rand() % 38;
    int scale = rand() % (precision + 1);
    if (scale > 20) scale = rand() % 21;
    bool round = rand() % 2;
    fl_i128 a = 0, b = 0;
    bool ra = ty_decimal_parse(s, n, precision, scale, round, &a);
    bool rb = ref_parse(s, n, precision, scale, round, &b);
    if (ra != rb || (ra && a != b)) {
      s[n] = '\0';
      fprintf(stderr, "mismatch on '%s' p=%d s=%d round=%d: %d vs %d\n", s, precision, scale,
              (int)round, (int)ra, (int)rb);
    }
    CHECK(ra == rb);
    if (ra && rb) CHECK(a == b);
  }
}

TEST(decimal_parse_edges) {
  fl_i128 v;
  const char *nines = "99999999999999999999999999999999999999"; /* 38 */
  CHECK(ty_decimal_parse(nines, 38, 38, 0, false, &v));
  CHECK(v == ty_decimal_max(38));
  CHECK(!ty_decimal_parse("100000000000000000000000000000000000000", 39, 38, 0, false, &v));
  CHECK(ty_decimal_parse("000000000000000000000000000000000000000001", 42, 38, 0, false, &v));
  CHECK(v == 1);
  /* Crossing 10^17 and 2^64 in the leading digits. */
  CHECK(ty_decimal_parse("18446744073709551616.25", 23, 38, 2, false, &v));
  CHECK(v == (fl_i128)18446744073709551616.0 * 100 + 25);
  CHECK(ty_decimal_parse("123456789012345678.9", 20, 38, 1, false, &v));
  CHECK(v == (fl_i128)1234567890123456789ULL);
  CHECK(!ty_decimal_parse("12345678901234567.891", 21, 38, 2, false, &v));
  CHECK(ty_decimal_parse("12345678901234567.895", 21, 38, 2, true, &v));
  CHECK(v == (fl_i128)1234567890123456790ULL);
  CHECK(ty_decimal_parse("-3821993603.69", 14, 12, 2, false, &v));
  CHECK(v == -382199360369LL);
  CHECK(!ty_decimal_parse("", 0, 12, 2, false, &v));
  CHECK(!ty_decimal_parse("-", 1, 12, 2, false, &v));
  CHECK(!ty_decimal_parse(".", 1, 12, 2, false, &v));
  CHECK(!ty_decimal_parse("1.2.3", 5, 12, 2, false, &v));
}
