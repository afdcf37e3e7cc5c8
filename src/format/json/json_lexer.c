/*
 * json_lexer.c - JSON tokens: strings (escapes, UTF-8 validation),
 * numbers (RFC 8259 grammar), literals, and skipping whole values.
 */
#include <stdarg.h>
#include <stdio.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "format/json/json_int.h"
#include "format/text_parse.h"

int js__fail(js_lex_t *l, int code, const char *pos, const char *fmt, ...) {
  if (l->ecode) return l->ecode;
  l->ecode = code;
  l->epos = pos;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(l->ereason, sizeof l->ereason, fmt, ap);
  va_end(ap);
  return code;
}

int js__fail_eof(js_lex_t *l, const char *what) {
  int rc = js__fail(l, FL_EPARSE, l->end, "unexpected end of input in %s", what);
  l->eof = true;
  return rc;
}

/* High bits set in the bytes of v that are '"', '\\', a control character
 * or >= 0x80. Bits above the first such byte may be false alarms (borrows),
 * the lowest one is exact. */
static inline uint64_t special8(uint64_t v) {
  const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
  uint64_t q = v ^ (ones * '"'), b = v ^ (ones * '\\');
  uint64_t t = ((q - ones) & ~q) | ((b - ones) & ~b) | ((v - ones * 0x20) & ~v) | v;
  return t & high;
}

/* The offset of the first special byte (as special8) in p[0..16), or 16. */
#ifdef __SSE2__
static inline unsigned special16(const char *p) {
  __m128i v = _mm_loadu_si128((const __m128i *)p);
  /* Signed compare: bytes >= 0x80 are negative, so "< 0x20" catches them too. */
  __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                                        _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                           _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
  unsigned bits = (unsigned)_mm_movemask_epi8(m);
  return bits ? (unsigned)__builtin_ctz(bits) : 16;
}
#else
static inline unsigned special16(const char *p) {
  for (unsigned k = 0; k < 16; k += 8) {
    uint64_t v;
    memcpy(&v, p + k, 8);
    uint64_t m = special8(v);
    if (m) return k + ((unsigned)__builtin_ctzll(m) >> 3);
  }
  return 16;
}
#endif

static inline bool special1(unsigned char c) { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80; }

static int hex4(const char *p, uint32_t *out) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return -1;
    v = v << 4 | (uint32_t)d;
  }
  *out = v;
  return 0;
}

/* The first special byte (as special8) at or after p, or end. */
static inline const char *next_special(const char *p, const char *end) {
  while (end - p >= 16) {
    unsigned k = special16(p);
    if (k < 16) return p + k;
    p += 16;
  }
  if (end - p >= 8) {
    uint64_t v;
    memcpy(&v, p, 8);
    uint64_t m = special8(v);
    if (m) return p + (__builtin_ctzll(m) >> 3);
    p += 8;
  }
  while (p < end && !special1((unsigned char)*p)) p++;
  return p;
}

const char *js__plain_string_end(const char *p, const char *end) {
  for (;;) {
    p = next_special(p, end);
    if (p >= end) return NULL;
    unsigned char c = (unsigned char)*p;
    if (c == '"') return p;
    if (c < 0x80) return NULL; /* an escape or a control character */
    int k = tp_utf8_seq_len((const uint8_t *)p, (const uint8_t *)end);
    if (k <= 0) return NULL;
    p += k;
  }
}

int js__scan_string(js_lex_t *l, const char **s, size_t *n, bool *esc) {
  const char *p = l->p + 1, *end = l->end;
  *s = p;
  *esc = false;
  for (;;) {
    p = next_special(p, end);
    if (p >= end) return js__fail_eof(l, "a string");
    unsigned char c = (unsigned char)*p;
    if (c == '"') {
      *n = (size_t)(p - *s);
      l->p = p + 1;
      return FL_OK;
    }
    if (c == '\\') {
      *esc = true;
      if (end - p < 2) return js__fail_eof(l, "a string");
      char e = p[1];
      if (e == 'u') {
        if (end - p < 6) return js__fail_eof(l, "a string");
        uint32_t cp;
        if (hex4(p + 2, &cp))
          return js__fail(l, FL_EPARSE, p, "\\u must be followed by four hex digits");
        p += 6;
      } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' ||
                 e == 't') {
        p += 2;
      } else {
        return js__fail(l, FL_EPARSE, p, "invalid escape '\\%c' in a string",
                        e >= 0x20 && e < 0x7f ? e : '?');
      }
    } else if (c < 0x20) {
      return js__fail(l, FL_EPARSE, p, "control character 0x%02x in a string (must be escaped)", c);
    } else if (c >= 0x80) {
      int k = tp_utf8_seq_len((const uint8_t *)p, (const uint8_t *)end);
      if (k < 0) return js__fail_eof(l, "a string");
      if (k == 0) return js__fail(l, FL_EPARSE, p, "invalid UTF-8 in a string");
      p += k;
    } else {
      p++;
    }
  }
}

int js__unescape(js_lex_t *l, const char *s, size_t n, uint8_t *out, size_t *outn) {
  size_t i = 0, o = 0;
  while (i < n) {
    const char *bs = memchr(s + i, '\\', n - i);
    size_t run = bs ? (size_t)(bs - (s + i)) : n - i;
    memcpy(out + o, s + i, run);
    o += run;
    i += run;
    if (i >= n) break;
    /* s[i] is a backslash; the scanner guaranteed a byte after it. */
    char e = s[i + 1];
    switch (e) {
      case '"': out[o++] = '"'; i += 2; continue;
      case '\\': out[o++] = '\\'; i += 2; continue;
      case '/': out[o++] = '/'; i += 2; continue;
      case 'b': out[o++] = '\b'; i += 2; continue;
      case 'f': out[o++] = '\f'; i += 2; continue;
      case 'n': out[o++] = '\n'; i += 2; continue;
      case 'r': out[o++] = '\r'; i += 2; continue;
      case 't': out[o++] = '\t'; i += 2; continue;
      case 'u': break;
      default: return js__fail(l, FL_EPARSE, s + i, "invalid escape '\\%c' in a string", e);
    }
    uint32_t cp;
    if (n - i < 6 || hex4(s + i + 2, &cp))
      return js__fail(l, FL_EPARSE, s + i, "\\u must be followed by four hex digits");
    size_t used = 6;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      uint32_t lo;
      if (n - i < 12 || s[i + 6] != '\\' || s[i + 7] != 'u' || hex4(s + i + 8, &lo) || lo < 0xDC00 ||
          lo > 0xDFFF)
        return js__fail(l, FL_EPARSE, s + i, "unpaired UTF-16 surrogate \\u%04X", cp);
      cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      used = 12;
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
      return js__fail(l, FL_EPARSE, s + i, "unpaired UTF-16 surrogate \\u%04X", cp);
    }
    if (cp < 0x80) {
      out[o++] = (uint8_t)cp;
    } else if (cp < 0x800) {
      out[o++] = (uint8_t)(0xC0 | cp >> 6);
      out[o++] = (uint8_t)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out[o++] = (uint8_t)(0xE0 | cp >> 12);
      out[o++] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
      out[o++] = (uint8_t)(0x80 | (cp & 0x3F));
    } else {
      out[o++] = (uint8_t)(0xF0 | cp >> 18);
      out[o++] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
      out[o++] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
      out[o++] = (uint8_t)(0x80 | (cp & 0x3F));
    }
    i += used;
  }
  *outn = o;
  return FL_OK;
}

static bool is_delim(char c) {
  return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\t' || c == '\r' ||
         c == ':';
}

int js__scan_number(js_lex_t *l, const char **s, size_t *n, bool *is_int, js_num_t *num) {
  const char *p = l->p, *end = l->end, *start = p;
  /* The decimal parts are collected while scanning (JSON allows no
   * leading zeros in the integer part, so only the fraction skips them). */
  uint64_t mant = 0;
  int nd = 0;
  int64_t e10 = 0;
  unsigned dg;
  *is_int = true;
  bool neg = *p == '-';
  if (neg) p++;
  if (p >= end) return js__fail_eof(l, "a number");
  if (*p == '0') {
    p++;
  } else if (*p >= '1' && *p <= '9') {
    for (; p < end && (dg = (unsigned)(*p - '0')) <= 9; p++, nd++) {
      if (nd < 19)
        mant = mant * 10 + dg;
      else
        e10++;
    }
  } else {
    return js__fail(l, FL_EPARSE, start, "invalid number");
  }
  if (p < end && *p == '.') {
    *is_int = false;
    p++;
    const char *d = p;
    for (; p < end && (dg = (unsigned)(*p - '0')) <= 9; p++) {
      if (nd == 0 && dg == 0) {
        e10--;
        continue;
      }
      if (nd < 19) {
        mant = mant * 10 + dg;
        e10--;
      }
      nd++;
    }
    if (p == d) {
      if (p >= end) return js__fail_eof(l, "a number");
      return js__fail(l, FL_EPARSE, start, "invalid number (digits must follow '.')");
    }
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    *is_int = false;
    p++;
    bool eneg = false;
    if (p < end && (*p == '+' || *p == '-')) eneg = *p++ == '-';
    const char *d = p;
    int64_t e = 0;
    for (; p < end && (dg = (unsigned)(*p - '0')) <= 9; p++)
      if (e < 100000) e = e * 10 + dg;
    if (p == d) {
      if (p >= end) return js__fail_eof(l, "a number");
      return js__fail(l, FL_EPARSE, start, "invalid number (digits must follow the exponent)");
    }
    e10 += eneg ? -e : e;
  }
  if (num) {
    num->mant = mant;
    num->ndigits = nd;
    num->exp10 = e10;
    num->neg = neg;
  }
  if (p >= end) return js__fail_eof(l, "a number");
  if (!is_delim(*p)) return js__fail(l, FL_EPARSE, start, "invalid number");
  *s = start;
  *n = (size_t)(p - start);
  l->p = p;
  return FL_OK;
}

int js__literal(js_lex_t *l, const char *word, size_t len) {
  const char *p = l->p;
  size_t avail = (size_t)(l->end - p);
  size_t k = avail < len ? avail : len;
  if (memcmp(p, word, k) != 0) return js__fail(l, FL_EPARSE, p, "invalid literal (expected %s)", word);
  if (avail <= len) return js__fail_eof(l, "a literal");
  if (!is_delim(p[len])) return js__fail(l, FL_EPARSE, p, "invalid literal (expected %s)", word);
  l->p = p + len;
  return FL_OK;
}

int js__skip_value(js_lex_t *l, uint32_t depth) {
  js__ws(l);
  if (l->p >= l->end) return js__fail_eof(l, "a value");
  const char *s;
  size_t n;
  bool flag;
  char c = *l->p;
  switch (c) {
    case '"': return js__scan_string(l, &s, &n, &flag);
    case 't': return js__literal(l, "true", 4);
    case 'f': return js__literal(l, "false", 5);
    case 'n': return js__literal(l, "null", 4);
    case '{':
    case '[': {
      if (depth > l->max_depth)
        return js__fail(l, FL_EPARSE, l->p, "nesting deeper than %u levels", l->max_depth);
      char close = c == '{' ? '}' : ']';
      l->p++;
      js__ws(l);
      if (l->p >= l->end) return js__fail_eof(l, c == '{' ? "an object" : "an array");
      if (*l->p == close) {
        l->p++;
        return FL_OK;
      }
      for (;;) {
        int rc;
        if (c == '{') {
          js__ws(l);
          if (l->p >= l->end) return js__fail_eof(l, "an object");
          if (*l->p != '"') return js__fail(l, FL_EPARSE, l->p, "expected a member name in quotes");
          if ((rc = js__scan_string(l, &s, &n, &flag))) return rc;
          js__ws(l);
          if (l->p >= l->end) return js__fail_eof(l, "an object");
          if (*l->p != ':') return js__fail(l, FL_EPARSE, l->p, "expected ':' after a member name");
          l->p++;
        }
        if ((rc = js__skip_value(l, depth + 1))) return rc;
        js__ws(l);
        if (l->p >= l->end) return js__fail_eof(l, c == '{' ? "an object" : "an array");
        if (*l->p == ',') {
          l->p++;
          continue;
        }
        if (*l->p == close) {
          l->p++;
          return FL_OK;
        }
        return js__fail(l, FL_EPARSE, l->p, "expected ',' or '%c'", close);
      }
    }
    default:
      if (c == '-' || (c >= '0' && c <= '9')) return js__scan_number(l, &s, &n, &flag, NULL);
      return js__fail(l, FL_EPARSE, l->p, "unexpected character '%c'", c >= 0x20 && c < 0x7f ? c : '?');
  }
}

int js__report(const js_lex_t *l, const char *path, fl_err_t *err) {
  long long col = (long long)((l->epos - l->base) - l->line_off) + 1;
  if (path && *path)
    return fl_err_set(err, l->ecode, "line %llu, column %lld: field '%s': %s",
                      (unsigned long long)l->line, col, path, l->ereason);
  return fl_err_set(err, l->ecode, "line %llu, column %lld: %s", (unsigned long long)l->line, col,
                    l->ereason);
}

void js__eof_at_row(js_lex_t *l, const char *row, uint64_t line0, ptrdiff_t off0) {
  if (!l->eof) return;
  l->epos = row;
  l->line = line0;
  l->line_off = off0;
  size_t n = strlen(l->ereason);
  snprintf(l->ereason + n, sizeof l->ereason - n, " (the row starting here is incomplete)");
}
