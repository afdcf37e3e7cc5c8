/*
 * text_parse.c - text to typed values for the JSON and CSV readers (see
 * text_parse.h for the accepted forms).
 */
#include "format/text_parse.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/time.h"
#include "types/value.h"

bool tp_parse_i64(const char *s, size_t n, int64_t *out) {
  size_t i = 0;
  bool neg = false;
  if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  if (i == n || n - i > 19 + 8) goto slow;
  uint64_t v = 0;
  size_t start = i;
  for (; i < n; i++) {
    unsigned c = (unsigned char)s[i] - '0';
    if (c > 9) goto slow;
    if (i - start >= 19) {
      if (v > (UINT64_MAX - c) / 10) return false;
    }
    v = v * 10 + c;
  }
  if (neg) {
    if (v > (uint64_t)INT64_MAX + 1) return false;
    *out = (int64_t)(0 - v);
  } else {
    if (v > (uint64_t)INT64_MAX) return false;
    *out = (int64_t)v;
  }
  return true;
slow:;
  /* Integral values written with a fraction or an exponent ("3.0", "1e3"). */
  fl_i128 x;
  if (!ty_decimal_parse(s, n, 38, 0, false, &x)) return false;
  if (x > INT64_MAX || x < INT64_MIN) return false;
  *out = (int64_t)x;
  return true;
}

/* Checks the decimal-number grammar [+-]digits[.digits][(e|E)[+-]digits]
 * (a leading or trailing point is allowed) and splits out its parts. */
typedef struct num_parts {
  uint64_t mant;   /* first 19 significant digits */
  int ndigits;     /* significant digits (leading zeros skipped) */
  int64_t exp10;   /* value = mant * 10^exp10 when ndigits <= 19 */
  bool neg;
} num_parts_t;

static bool split_number(const char *s, size_t n, num_parts_t *np) {
  size_t i = 0;
  np->neg = false;
  np->mant = 0;
  np->ndigits = 0;
  np->exp10 = 0;
  if (i < n && (s[i] == '-' || s[i] == '+')) np->neg = s[i++] == '-';
  bool any = false;
  int64_t dropped = 0;
  for (; i < n && (unsigned)(s[i] - '0') <= 9; i++) {
    any = true;
    if (np->ndigits == 0 && s[i] == '0') continue;
    if (np->ndigits < 19)
      np->mant = np->mant * 10 + (uint64_t)(s[i] - '0');
    else
      dropped++;
    np->ndigits++;
  }
  if (i < n && s[i] == '.') {
    i++;
    for (; i < n && (unsigned)(s[i] - '0') <= 9; i++) {
      any = true;
      if (np->ndigits == 0 && s[i] == '0') {
        np->exp10--;
        continue;
      }
      if (np->ndigits < 19) {
        np->mant = np->mant * 10 + (uint64_t)(s[i] - '0');
        np->exp10--;
      }
      np->ndigits++;
    }
  }
  if (!any) return false;
  np->exp10 += dropped;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    bool eneg = false;
    if (i < n && (s[i] == '-' || s[i] == '+')) eneg = s[i++] == '-';
    if (i == n) return false;
    int64_t e = 0;
    for (; i < n && (unsigned)(s[i] - '0') <= 9; i++)
      if (e < 100000) e = e * 10 + (s[i] - '0');
    np->exp10 += eneg ? -e : e;
  }
  return i == n;
}

static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static bool special_double(const char *s, size_t n, double *out) {
  static const struct {
    const char *t;
    double v;
  } sp[] = {{"NaN", NAN},       {"nan", NAN},        {"Infinity", INFINITY}, {"+Infinity", INFINITY},
            {"inf", INFINITY},  {"-Infinity", -INFINITY}, {"-inf", -INFINITY}};
  for (size_t k = 0; k < sizeof sp / sizeof sp[0]; k++)
    if (strlen(sp[k].t) == n && memcmp(sp[k].t, s, n) == 0) {
      *out = sp[k].v;
      return true;
    }
  return false;
}

#if LDBL_MANT_DIG == 64
/* 10^0..10^27 in x87 extended precision; all exact (5^27 < 2^64). */
static const long double pow10_ext[28] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
    1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};

/*
 * mant * 10^exp10 for up to 19 digits and |exp10| <= 27, through one
 * extended-precision operation: both operands are exact, so the result
 * r is the true value x rounded to 64 mantissa bits. Rounding r to 53
 * bits gives the correctly rounded double unless a 53-bit rounding
 * boundary (a midpoint between doubles) separates x from r or is r
 * itself; a midpoint lies on the 64-bit grid, so that can only happen
 * when r is the midpoint, i.e. its low 11 mantissa bits are exactly
 * 0b10000000000. Those (rare) values are left to the caller. Returns
 * false when the fast path does not apply.
 */
static bool ext_fast_path(uint64_t mant, int64_t exp10, double *out) {
  if (exp10 < -27 || exp10 > 27) return false;
  long double x = (long double)mant;
  long double r = exp10 >= 0 ? x * pow10_ext[exp10] : x / pow10_ext[-exp10];
  uint64_t bits;
  memcpy(&bits, &r, sizeof bits); /* the explicit 64-bit significand */
  if ((bits & 0x7FF) == 0x400) return false;
  *out = (double)r;
  return true;
}
#else
static bool ext_fast_path(uint64_t mant, int64_t exp10, double *out) {
  (void)mant, (void)exp10, (void)out;
  return false;
}
#endif

bool tp_double_fast(bool neg, uint64_t mant, int ndigits, int64_t exp10, double *out) {
  if (ndigits == 0) {
    *out = neg ? -0.0 : 0.0;
    return true;
  }
  if (ndigits > 19) return false;
  double d;
  /* Clinger's fast path: an exact mantissa times an exact power of ten
   * rounds correctly in one IEEE operation. */
  if (mant <= (1ull << 53) && exp10 >= -22 && exp10 <= 22) {
    d = (double)mant;
    d = exp10 >= 0 ? d * pow10_exact[exp10] : d / pow10_exact[-exp10];
  } else if (!ext_fast_path(mant, exp10, &d)) {
    return false;
  }
  *out = neg ? -d : d;
  return true;
}

bool tp_parse_double(const char *s, size_t n, double *out) {
  num_parts_t np;
  if (!split_number(s, n, &np)) return special_double(s, n, out);
  if (tp_double_fast(np.neg, np.mant, np.ndigits, np.exp10, out)) return true;
  char tmp[800];
  if (n >= sizeof tmp) return false;
  memcpy(tmp, s, n);
  tmp[n] = '\0';
  *out = strtod(tmp, NULL);
  return true;
}

bool tp_parse_float(const char *s, size_t n, float *out) {
  num_parts_t np;
  if (!split_number(s, n, &np)) {
    double d;
    if (!special_double(s, n, &d)) return false;
    *out = (float)d;
    return true;
  }
  char tmp[800];
  if (n >= sizeof tmp) return false;
  memcpy(tmp, s, n);
  tmp[n] = '\0';
  *out = strtof(tmp, NULL);
  return true;
}

int tp_utf8_seq_len(const uint8_t *p, const uint8_t *end) {
  unsigned c = p[0];
  if (c < 0x80) return 1;
  int len;
  uint32_t cp;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  for (int k = 1; k < len; k++) {
    if (p + k >= end) return -1;
    if ((p[k] & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (p[k] & 0x3F);
  }
  /* Overlong forms, surrogates and values past U+10FFFF. */
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return len;
}

size_t tp_utf8_valid_prefix(const uint8_t *p, size_t n) {
  size_t i = 0;
  while (i < n) {
    if (p[i] < 0x80) {
      i++;
      continue;
    }
    int len = tp_utf8_seq_len(p + i, p + n);
    if (len <= 0) return i;
    i += (size_t)len;
  }
  return n;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static bool parse_bool(const char *s, size_t n, bool *out) {
  static const char *const t[] = {"true", "True", "TRUE"}, *const f[] = {"false", "False", "FALSE"};
  for (int k = 0; k < 3; k++) {
    if (n == 4 && memcmp(s, t[k], 4) == 0) return *out = true, true;
    if (n == 5 && memcmp(s, f[k], 5) == 0) return *out = false, true;
  }
  return false;
}

static const char *append_hex(ty_vec_t *v, const char *s, size_t n) {
  if (n % 2) return "expected an even number of hex digits";
  size_t len = n / 2;
  if (v->type->kind == TY_FIXED && len != (size_t)v->type->length)
    return "expected hex digits of the fixed length";
  uint8_t small[64];
  uint8_t *dst = small;
  if (v->type->kind == TY_BINARY) {
    ty_vec_reserve_heap(v, len ? len : 1);
    dst = v->heap + v->heap_len;
  } else if (len > sizeof small) {
    return "fixed value too long";
  }
  for (size_t i = 0; i < len; i++) {
    int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
    if (hi < 0 || lo < 0) return "expected hex digits";
    dst[i] = (uint8_t)(hi << 4 | lo);
  }
  if (v->type->kind == TY_BINARY) {
    /* The bytes are already in place in the heap. */
    ty__vec_grow1(v);
    ty__vec_mark(v, true);
    v->heap_len += len;
    v->offsets[v->len + 1] = (int32_t)v->heap_len;
    v->len++;
  } else {
    ty_vec_append_bytes(v, dst, len);
  }
  return NULL;
}

const char *tp_append(ty_vec_t *v, const char *s, size_t n) {
  const ty_type_t *t = v->type;
  switch (t->kind) {
    case TY_BOOLEAN: {
      bool b;
      if (!parse_bool(s, n, &b)) return "expected true or false";
      ty_vec_append_bool(v, b);
      return NULL;
    }
    case TY_INT: {
      int64_t x;
      if (!tp_parse_i64(s, n, &x)) return "expected an integer";
      if (x < INT32_MIN || x > INT32_MAX) return "integer out of range for int";
      ty_vec_append_i32(v, (int32_t)x);
      return NULL;
    }
    case TY_LONG: {
      int64_t x;
      if (!tp_parse_i64(s, n, &x)) return "expected an integer in the range of long";
      ty_vec_append_i64(v, x);
      return NULL;
    }
    case TY_FLOAT: {
      float f;
      if (!tp_parse_float(s, n, &f)) return "expected a number";
      ty_vec_append_f32(v, f);
      return NULL;
    }
    case TY_DOUBLE: {
      double d;
      if (!tp_parse_double(s, n, &d)) return "expected a number";
      ty_vec_append_f64(v, d);
      return NULL;
    }
    case TY_DECIMAL: {
      fl_i128 x;
      if (!ty_decimal_parse(s, n, t->precision, t->scale, false, &x))
        return "expected a decimal number that fits the column's precision and scale";
      ty_vec_append_i128(v, x);
      return NULL;
    }
    case TY_DATE: {
      int32_t d;
      if (!fl_parse_date(s, n, &d)) return "expected a date (YYYY-MM-DD)";
      ty_vec_append_i32(v, d);
      return NULL;
    }
    case TY_TIME: {
      int64_t x;
      if (!fl_parse_time(s, n, &x)) return "expected a time (HH:MM:SS[.ffffff])";
      ty_vec_append_i64(v, x);
      return NULL;
    }
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS: {
      int64_t x;
      bool zone;
      int prec = (t->kind == TY_TIMESTAMP_NS || t->kind == TY_TIMESTAMPTZ_NS) ? 9 : 6;
      if (!fl_parse_timestamp(s, n, prec, &x, &zone))
        return "expected an ISO-8601 timestamp (YYYY-MM-DDTHH:MM:SS[.f][+HH:MM])";
      ty_vec_append_i64(v, x);
      return NULL;
    }
    case TY_STRING:
      if (tp_utf8_valid_prefix((const uint8_t *)s, n) != n) return "invalid UTF-8";
      ty_vec_append_bytes(v, s, n);
      return NULL;
    case TY_UUID: {
      uint8_t u[16];
      if (!ty_uuid_parse(s, n, u)) return "expected a uuid (8-4-4-4-12 hex digits)";
      ty_vec_append_bytes(v, u, 16);
      return NULL;
    }
    case TY_BINARY:
    case TY_FIXED: return append_hex(v, s, n);
    default: return "a nested value cannot be read from text";
  }
}

unsigned tp_classify(const char *s, size_t n) {
  unsigned c = 0;
  bool b;
  if (parse_bool(s, n, &b)) return TP_BOOL;
  if (n == 0) return 0;
  char first = s[0];
  if ((first >= '0' && first <= '9') || first == '-' || first == '+' || first == '.' ||
      first == 'N' || first == 'I' || first == 'n' || first == 'i') {
    double d;
    if (tp_parse_double(s, n, &d)) {
      c |= TP_DOUBLE;
      int64_t x;
      bool plain = true;
      for (size_t i = 0; i < n; i++)
        if (s[i] == '.' || s[i] == 'e' || s[i] == 'E' || s[i] == 'n' || s[i] == 'N' || s[i] == 'I' ||
            s[i] == 'i')
          plain = false;
      if (plain && tp_parse_i64(s, n, &x)) c |= TP_LONG;
      return c;
    }
  }
  if (n >= 10 && first >= '0' && first <= '9') {
    int32_t days;
    int64_t ts;
    bool zone;
    if (fl_parse_date(s, n, &days)) return TP_DATE | TP_TIMESTAMP;
    if (fl_parse_timestamp(s, n, 6, &ts, &zone)) return zone ? TP_TIMESTAMPTZ : TP_TIMESTAMP;
  }
  return c;
}

ty_kind_t tp_class_kind(unsigned c) {
  if (c & TP_BOOL) return TY_BOOLEAN;
  if (c & TP_LONG) return TY_LONG;
  if (c & TP_DOUBLE) return TY_DOUBLE;
  if (c & TP_DATE) return TY_DATE;
  if (c & TP_TIMESTAMP) return TY_TIMESTAMP;
  if (c & TP_TIMESTAMPTZ) return TY_TIMESTAMPTZ;
  return TY_STRING;
}

static uint32_t count_nulls(const ty_vec_t *v, uint32_t from, uint32_t to) {
  uint32_t k = 0;
  for (uint32_t i = from; i < to; i++) k += ty_vec_is_null(v, i);
  return k;
}

void tp_vec_truncate(ty_vec_t *v, uint32_t len) {
  if (len > v->len) return;
  /* Children are cut even when v itself has len values: a row being
   * decoded appends to them before it closes its parent. */
  if (v->null_count && len < v->len) v->null_count -= count_nulls(v, len, v->len);
  switch (v->type->kind) {
    case TY_STRING:
    case TY_BINARY: v->heap_len = (size_t)v->offsets[len]; break;
    case TY_LIST:
    case TY_MAP:
      for (uint32_t c = 0; c < v->nchildren; c++) tp_vec_truncate(v->children[c], (uint32_t)v->offsets[len]);
      break;
    case TY_STRUCT:
      for (uint32_t c = 0; c < v->nchildren; c++) tp_vec_truncate(v->children[c], len);
      break;
    default: break;
  }
  v->len = len;
}
