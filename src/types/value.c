/*
 * value.c - scalar values: comparison and text conversion.
 */
#include "types/value.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/time.h"

ty_value_t ty_value_from_vec(const ty_vec_t *v, uint32_t i) {
  ty_value_t x = {.kind = v->type->kind};
  if (ty_vec_is_null(v, i)) {
    x.is_null = true;
    return x;
  }
  switch (v->type->kind) {
    case TY_BOOLEAN: x.u.b = v->data[i] != 0; break;
    case TY_INT:
    case TY_DATE: x.u.i32 = TY_VEC_DATA(v, int32_t)[i]; break;
    case TY_FLOAT: x.u.f32 = TY_VEC_DATA(v, float)[i]; break;
    case TY_DOUBLE: x.u.f64 = TY_VEC_DATA(v, double)[i]; break;
    case TY_DECIMAL: x.u.i128 = ty_vec_get_i128(v, i); break;
    case TY_STRING:
    case TY_BINARY:
    case TY_UUID:
    case TY_FIXED: x.u.bytes.p = ty_vec_get_bytes(v, i, &x.u.bytes.n); break;
    case TY_STRUCT:
    case TY_LIST:
    case TY_MAP: x.is_null = true; break;
    default: x.u.i64 = TY_VEC_DATA(v, int64_t)[i]; break;
  }
  return x;
}

static int cmp_double(double a, double b) {
  bool na = isnan(a), nb = isnan(b);
  if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  if (a < b) return -1;
  if (a > b) return 1;
  if (a == 0 && b == 0) return signbit(a) == signbit(b) ? 0 : (signbit(a) ? -1 : 1);
  return 0;
}

int ty_value_cmp(const ty_value_t *a, const ty_value_t *b) {
  switch (a->kind) {
    case TY_BOOLEAN: return (int)a->u.b - (int)b->u.b;
    case TY_INT:
    case TY_DATE: return (a->u.i32 > b->u.i32) - (a->u.i32 < b->u.i32);
    case TY_FLOAT: return cmp_double(a->u.f32, b->u.f32);
    case TY_DOUBLE: return cmp_double(a->u.f64, b->u.f64);
    case TY_DECIMAL: return (a->u.i128 > b->u.i128) - (a->u.i128 < b->u.i128);
    case TY_STRING:
    case TY_BINARY:
    case TY_UUID:
    case TY_FIXED: {
      size_t n = a->u.bytes.n < b->u.bytes.n ? a->u.bytes.n : b->u.bytes.n;
      int c = n ? memcmp(a->u.bytes.p, b->u.bytes.p, n) : 0;
      if (c) return c < 0 ? -1 : 1;
      return (a->u.bytes.n > b->u.bytes.n) - (a->u.bytes.n < b->u.bytes.n);
    }
    default: return (a->u.i64 > b->u.i64) - (a->u.i64 < b->u.i64);
  }
}

size_t ty_decimal_format(fl_i128 unscaled, int scale, char *buf, size_t cap) {
  char digits[48];
  int nd = 0;
  bool neg = unscaled < 0;
  /* Work on the magnitude as unsigned to cover the most negative value. */
  unsigned __int128 m = neg ? (unsigned __int128)(-(unscaled + 1)) + 1 : (unsigned __int128)unscaled;
  do {
    digits[nd++] = (char)('0' + (int)(m % 10));
    m /= 10;
  } while (m);
  while (nd <= scale) digits[nd++] = '0';
  size_t n = 0;
  char tmp[64];
  if (neg) tmp[n++] = '-';
  for (int i = nd - 1; i >= 0; i--) {
    tmp[n++] = digits[i];
    if (i == scale && scale > 0) tmp[n++] = '.';
  }
  if (n >= cap) n = cap - 1;
  memcpy(buf, tmp, n);
  buf[n] = '\0';
  return n;
}

/* 10^0 .. 10^38 (the digit loops below compare against them). */
static const fl_i128 g_pow10[39] = {
    1ULL,
    10ULL,
    100ULL,
    1000ULL,
    10000ULL,
    100000ULL,
    1000000ULL,
    10000000ULL,
    100000000ULL,
    1000000000ULL,
    10000000000ULL,
    100000000000ULL,
    1000000000000ULL,
    10000000000000ULL,
    100000000000000ULL,
    1000000000000000ULL,
    10000000000000000ULL,
    100000000000000000ULL,
    1000000000000000000ULL,
    10000000000000000000ULL,
    (fl_i128)10000000000000000000ULL * 10ULL,
    (fl_i128)10000000000000000000ULL * 100ULL,
    (fl_i128)10000000000000000000ULL * 1000ULL,
    (fl_i128)10000000000000000000ULL * 10000ULL,
    (fl_i128)10000000000000000000ULL * 100000ULL,
    (fl_i128)10000000000000000000ULL * 1000000ULL,
    (fl_i128)10000000000000000000ULL * 10000000ULL,
    (fl_i128)10000000000000000000ULL * 100000000ULL,
    (fl_i128)10000000000000000000ULL * 1000000000ULL,
    (fl_i128)10000000000000000000ULL * 10000000000ULL,
    (fl_i128)10000000000000000000ULL * 100000000000ULL,
    (fl_i128)10000000000000000000ULL * 1000000000000ULL,
    (fl_i128)10000000000000000000ULL * 10000000000000ULL,
    (fl_i128)10000000000000000000ULL * 100000000000000ULL,
    (fl_i128)10000000000000000000ULL * 1000000000000000ULL,
    (fl_i128)10000000000000000000ULL * 10000000000000000ULL,
    (fl_i128)10000000000000000000ULL * 100000000000000000ULL,
    (fl_i128)10000000000000000000ULL * 1000000000000000000ULL,
    (fl_i128)10000000000000000000ULL * 10000000000000000000ULL,
};

static const fl_i128 *pow10_table(void) { return g_pow10; }

fl_i128 ty_decimal_max(int precision) {
  if (precision >= 0 && precision <= 38) return pow10_table()[precision] - 1;
  fl_i128 m = 1;
  for (int i = 0; i < precision; i++) m *= 10;
  return m - 1;
}

bool ty_decimal_parse(const char *s, size_t n, int precision, int scale, bool round,
                      fl_i128 *out) {
  size_t i = 0;
  bool neg = false;
  if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  /* Collect digits, remembering where the point is. */
  fl_i128 v = 0;
  int frac_digits = 0;
  bool seen_point = false, any = false;
  int extra_first = -1; /* first digit beyond the scale, for rounding */
  bool extra_nonzero = false;
  /* v * 10 + d stays within 10^38 - 1 exactly when v <= 10^37 - 1. */
  const fl_i128 lim37 = pow10_table()[37] - 1;
  /* Leading digits accumulate in 64 bits (no 128-bit arithmetic) while
   * they cannot overflow; the general loop below takes over after. */
  uint64_t w = 0;
  for (; i < n && w < 100000000000000000ULL; i++) {
    char c = s[i];
    if (c == '.') {
      if (seen_point) return false;
      seen_point = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    any = true;
    if (seen_point && frac_digits >= scale) break; /* the general loop handles it */
    if (seen_point) frac_digits++;
    w = w * 10 + (uint64_t)(c - '0');
  }
  v = (fl_i128)w;
  for (; i < n; i++) {
    char c = s[i];
    if (c == '.') {
      if (seen_point) return false;
      seen_point = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    any = true;
    if (seen_point && frac_digits >= scale) {
      if (extra_first < 0)
        extra_first = c - '0';
      else if (c != '0')
        extra_nonzero = true;
      continue;
    }
    if (seen_point) frac_digits++;
    if (v > lim37) return false;
    v = v * 10 + (c - '0');
  }
  if (!any) return false;
  int exp = 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    char *end;
    char tmp[16];
    size_t len = n - i < 15 ? n - i : 15;
    memcpy(tmp, s + i, len);
    tmp[len] = '\0';
    long e = strtol(tmp, &end, 10);
    if (end == tmp || (size_t)(end - tmp) != n - i || e > 76 || e < -76) return false;
    exp = (int)e;
    i = n;
  }
  if (i != n) return false;
  if (exp != 0 && extra_first >= 0) return false; /* keep exponent forms simple and exact */
  /* Scale v (which has frac_digits fraction digits) to the target scale. */
  int shift = scale - frac_digits + exp;
  for (; shift > 0; shift--) {
    if (v > lim37) return false;
    v *= 10;
  }
  for (; shift < 0; shift++) {
    int d = (int)(v % 10);
    v /= 10;
    if (extra_first >= 0 && extra_first != 0) extra_nonzero = true;
    extra_first = d;
  }
  if (extra_first > 0 || extra_nonzero) {
    if (!round) return false;
    if (extra_first >= 5) v += 1;
  }
  if (v > ty_decimal_max(precision)) return false;
  *out = neg ? -v : v;
  return true;
}

/*
 * Writes the shortest digits that read back as d (prec significant digits
 * found by trying 1..max) the way Python's repr does: plain notation with
 * at least one fraction digit when the decimal exponent is in [-4, 16),
 * scientific ("1e+20", "1.5e-07") otherwise.
 */
static size_t format_shortest(double d, int max_prec, bool is_float, char *buf) {
  char e[40];
  int prec = 1;
  for (; prec <= max_prec; prec++) {
    snprintf(e, sizeof e, "%.*e", prec - 1, d);
    if (is_float ? strtof(e, NULL) == (float)d : strtod(e, NULL) == d) break;
  }
  if (prec > max_prec) {
    prec = max_prec;
    snprintf(e, sizeof e, "%.*e", prec - 1, d);
  }
  /* e is [-]D[.DDD]e(+|-)XX */
  const char *p = e;
  bool neg = *p == '-';
  if (neg) p++;
  char digits[24];
  int nd = 0;
  for (; *p && *p != 'e'; p++)
    if (*p != '.') digits[nd++] = *p;
  int exp10 = atoi(p + 1);
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  size_t n = 0;
  if (neg) buf[n++] = '-';
  if (exp10 < -4 || exp10 >= 16) {
    buf[n++] = digits[0];
    if (nd > 1) {
      buf[n++] = '.';
      memcpy(buf + n, digits + 1, (size_t)nd - 1);
      n += (size_t)nd - 1;
    }
    n += (size_t)sprintf(buf + n, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
  } else if (exp10 < 0) {
    buf[n++] = '0';
    buf[n++] = '.';
    for (int i = -1; i > exp10; i--) buf[n++] = '0';
    memcpy(buf + n, digits, (size_t)nd);
    n += (size_t)nd;
  } else {
    for (int i = 0; i <= exp10; i++) buf[n++] = i < nd ? digits[i] : '0';
    buf[n++] = '.';
    if (nd > exp10 + 1) {
      memcpy(buf + n, digits + exp10 + 1, (size_t)(nd - exp10 - 1));
      n += (size_t)(nd - exp10 - 1);
    } else {
      buf[n++] = '0';
    }
  }
  buf[n] = '\0';
  return n;
}

size_t ty_format_double(double d, char *buf) {
  if (isnan(d)) return (size_t)sprintf(buf, "NaN");
  if (isinf(d)) return (size_t)sprintf(buf, d < 0 ? "-Infinity" : "Infinity");
  return format_shortest(d, 17, false, buf);
}

size_t ty_format_float(float f, char *buf) {
  if (isnan(f)) return (size_t)sprintf(buf, "NaN");
  if (isinf(f)) return (size_t)sprintf(buf, f < 0 ? "-Infinity" : "Infinity");
  return format_shortest((double)f, 9, true, buf);
}

void ty_uuid_format(const uint8_t b[16], char out[37]) {
  static const char hex[] = "0123456789abcdef";
  size_t k = 0;
  for (int i = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out[k++] = '-';
    out[k++] = hex[b[i] >> 4];
    out[k++] = hex[b[i] & 15];
  }
  out[k] = '\0';
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool ty_uuid_parse(const char *s, size_t n, uint8_t out[16]) {
  if (n != 36) return false;
  size_t k = 0;
  for (size_t i = 0; i < 36;) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return false;
      i++;
      continue;
    }
    int hi = hexval(s[i]), lo = hexval(s[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[k++] = (uint8_t)(hi << 4 | lo);
    i += 2;
  }
  return true;
}

void ty_value_format(const ty_type_t *t, const ty_value_t *v, fl_buf_t *out) {
  char tmp[64];
  if (v->is_null) {
    fl_buf_append_str(out, "null");
    return;
  }
  switch (v->kind) {
    case TY_BOOLEAN: fl_buf_append_str(out, v->u.b ? "true" : "false"); break;
    case TY_INT: fl_buf_printf(out, "%d", v->u.i32); break;
    case TY_LONG: fl_buf_printf(out, "%lld", (long long)v->u.i64); break;
    case TY_FLOAT: fl_buf_append(out, tmp, ty_format_float(v->u.f32, tmp)); break;
    case TY_DOUBLE: fl_buf_append(out, tmp, ty_format_double(v->u.f64, tmp)); break;
    case TY_DECIMAL: fl_buf_append(out, tmp, ty_decimal_format(v->u.i128, t->scale, tmp, sizeof tmp)); break;
    case TY_DATE: fl_buf_append(out, tmp, fl_format_date(v->u.i32, tmp)); break;
    case TY_TIME: fl_buf_append(out, tmp, fl_format_time(v->u.i64, tmp)); break;
    case TY_TIMESTAMP: fl_buf_append(out, tmp, fl_format_timestamp(v->u.i64, 6, false, tmp)); break;
    case TY_TIMESTAMPTZ: fl_buf_append(out, tmp, fl_format_timestamp(v->u.i64, 6, true, tmp)); break;
    case TY_TIMESTAMP_NS: fl_buf_append(out, tmp, fl_format_timestamp(v->u.i64, 9, false, tmp)); break;
    case TY_TIMESTAMPTZ_NS: fl_buf_append(out, tmp, fl_format_timestamp(v->u.i64, 9, true, tmp)); break;
    case TY_STRING: fl_buf_append(out, v->u.bytes.p, v->u.bytes.n); break;
    case TY_UUID:
      if (v->u.bytes.n == 16) {
        ty_uuid_format(v->u.bytes.p, tmp);
        fl_buf_append_str(out, tmp);
        break;
      }
      /* fall through */
    default: {
      static const char hex[] = "0123456789abcdef";
      for (size_t i = 0; i < v->u.bytes.n; i++) {
        char h[2] = {hex[v->u.bytes.p[i] >> 4], hex[v->u.bytes.p[i] & 15]};
        fl_buf_append(out, h, 2);
      }
    }
  }
}
