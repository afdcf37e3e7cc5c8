/*
 * ice_conv.c - Iceberg's single-value binary and JSON forms, and the
 * truncation of column bounds (layer 5, iceberg).
 *
 * The binary form is what manifests store as lower and upper bounds and
 * manifest lists as partition summaries; the JSON form is what schemas
 * store as field defaults. Decoding checks every length against the type
 * (accepting the narrower forms older writers produced for promoted
 * columns) and copies byte values into the caller's arena.
 */
#include <stdio.h>
#include <string.h>

#include "base/time.h"
#include "iceberg/ice_conv.h"
#include "iceberg/ice_conv_int.h"

size_t ice__decimal_bytes(fl_i128 v, uint8_t out[16]) {
  uint8_t be[16];
  unsigned __int128 u = (unsigned __int128)v;
  for (int i = 15; i >= 0; i--) {
    be[i] = (uint8_t)u;
    u >>= 8;
  }
  /* Drop leading bytes that only repeat the sign of the next one. */
  int start = 0;
  while (start < 15) {
    uint8_t b = be[start], next = be[start + 1];
    if ((b == 0x00 && !(next & 0x80)) || (b == 0xFF && (next & 0x80)))
      start++;
    else
      break;
  }
  size_t n = (size_t)(16 - start);
  memcpy(out, be + start, n);
  return n;
}

size_t ice__utf8_prefix(const uint8_t *s, size_t n, size_t max_cp) {
  size_t pos = 0, cp = 0;
  while (pos < n && cp < max_cp) {
    size_t l = ice__utf8_len(s[pos]);
    pos += l;
    cp++;
  }
  return pos > n ? n : pos;
}

static const char *kind_text(const ty_type_t *t) { return ty_kind_name(t->kind); }

int ice_value_to_bytes(const ty_type_t *t, const ty_value_t *v, fl_buf_t *out, fl_err_t *err) {
  if (v->is_null)
    return fl_err_set(err, FL_EINVALID, "a null %s has no single-value binary form", kind_text(t));
  switch (t->kind) {
  case TY_BOOLEAN: fl_buf_append_u8(out, v->u.b ? 1 : 0); return FL_OK;
  case TY_INT:
  case TY_DATE: fl_buf_append_le32(out, (uint32_t)v->u.i32); return FL_OK;
  case TY_LONG:
  case TY_TIME:
  case TY_TIMESTAMP:
  case TY_TIMESTAMPTZ:
  case TY_TIMESTAMP_NS:
  case TY_TIMESTAMPTZ_NS: fl_buf_append_le64(out, (uint64_t)v->u.i64); return FL_OK;
  case TY_FLOAT: {
    uint32_t bits;
    memcpy(&bits, &v->u.f32, 4);
    fl_buf_append_le32(out, bits);
    return FL_OK;
  }
  case TY_DOUBLE: {
    uint64_t bits;
    memcpy(&bits, &v->u.f64, 8);
    fl_buf_append_le64(out, bits);
    return FL_OK;
  }
  case TY_DECIMAL: {
    uint8_t b[16];
    fl_buf_append(out, b, ice__decimal_bytes(v->u.i128, b));
    return FL_OK;
  }
  case TY_UUID:
    if (v->u.bytes.n != 16)
      return fl_err_set(err, FL_EINVALID, "uuid value of %zu bytes", v->u.bytes.n);
    fl_buf_append(out, v->u.bytes.p, 16);
    return FL_OK;
  case TY_FIXED:
  case TY_STRING:
  case TY_BINARY:
    if (v->u.bytes.n) fl_buf_append(out, v->u.bytes.p, v->u.bytes.n);
    return FL_OK;
  default:
    return fl_err_set(err, FL_EINVALID, "%s values have no single-value binary form",
                      kind_text(t));
  }
}

static int bad_len(fl_err_t *err, const char *what, const ty_type_t *t, size_t n) {
  return fl_err_set(err, FL_ECORRUPT, "%s: %zu bytes do not hold a %s value", what ? what : "value",
                    n, kind_text(t));
}

int ice_value_from_bytes(fl_arena_t *a, const ty_type_t *t, const uint8_t *p, size_t n,
                         const char *what, ty_value_t *out, fl_err_t *err) {
  memset(out, 0, sizeof *out);
  out->kind = t->kind;
  switch (t->kind) {
  case TY_BOOLEAN:
    if (n != 1) return bad_len(err, what, t, n);
    out->u.b = p[0] != 0;
    return FL_OK;
  case TY_INT:
  case TY_DATE:
    if (n != 4) return bad_len(err, what, t, n);
    out->u.i32 = (int32_t)fl_load_le32(p);
    return FL_OK;
  case TY_LONG:
    /* An int column promoted to long keeps its 4-byte bounds. */
    if (n == 4) {
      out->u.i64 = (int32_t)fl_load_le32(p);
      return FL_OK;
    }
    if (n != 8) return bad_len(err, what, t, n);
    out->u.i64 = (int64_t)fl_load_le64(p);
    return FL_OK;
  case TY_TIME:
  case TY_TIMESTAMP:
  case TY_TIMESTAMPTZ:
  case TY_TIMESTAMP_NS:
  case TY_TIMESTAMPTZ_NS:
    if (n != 8) return bad_len(err, what, t, n);
    out->u.i64 = (int64_t)fl_load_le64(p);
    return FL_OK;
  case TY_FLOAT:
    if (n != 4) return bad_len(err, what, t, n);
    {
      uint32_t bits = fl_load_le32(p);
      memcpy(&out->u.f32, &bits, 4);
    }
    return FL_OK;
  case TY_DOUBLE:
    if (n == 4) { /* a float column promoted to double */
      uint32_t bits = fl_load_le32(p);
      float f;
      memcpy(&f, &bits, 4);
      out->u.f64 = f;
      return FL_OK;
    }
    if (n != 8) return bad_len(err, what, t, n);
    {
      uint64_t bits = fl_load_le64(p);
      memcpy(&out->u.f64, &bits, 8);
    }
    return FL_OK;
  case TY_DECIMAL: {
    if (n == 0 || n > 16) return bad_len(err, what, t, n);
    unsigned __int128 u = (p[0] & 0x80) ? ~(unsigned __int128)0 : 0;
    for (size_t i = 0; i < n; i++) u = (u << 8) | p[i];
    fl_i128 v = (fl_i128)u;
    if (t->precision && (v > ty_decimal_max(t->precision) || v < -ty_decimal_max(t->precision)))
      return fl_err_set(err, FL_ECORRUPT, "%s: decimal value exceeds precision %d",
                        what ? what : "value", t->precision);
    out->u.i128 = v;
    return FL_OK;
  }
  case TY_UUID:
    if (n != 16) return bad_len(err, what, t, n);
    break;
  case TY_FIXED:
    if (n != (size_t)t->length) return bad_len(err, what, t, n);
    break;
  case TY_STRING:
  case TY_BINARY: break;
  default:
    return fl_err_set(err, FL_ECORRUPT, "%s: %s values have no single-value binary form",
                      what ? what : "value", kind_text(t));
  }
  out->u.bytes.p = n ? fl_arena_memdup(a, p, n) : (const uint8_t *)"";
  out->u.bytes.n = n;
  return FL_OK;
}

static void hex_text(const uint8_t *p, size_t n, fl_buf_t *out) {
  static const char hex[] = "0123456789ABCDEF";
  for (size_t i = 0; i < n; i++) {
    char c[2] = {hex[p[i] >> 4], hex[p[i] & 15]};
    fl_buf_append(out, c, 2);
  }
}

int ice_value_to_json(const ty_type_t *t, const ty_value_t *v, json_t **out, fl_err_t *err) {
  char tmp[64];
  *out = NULL;
  if (v->is_null) {
    *out = json_null();
    return FL_OK;
  }
  switch (t->kind) {
  case TY_BOOLEAN: *out = json_boolean(v->u.b); break;
  case TY_INT: *out = json_integer(v->u.i32); break;
  case TY_LONG: *out = json_integer(v->u.i64); break;
  case TY_FLOAT:
  case TY_DOUBLE:
    *out = json_real(t->kind == TY_FLOAT ? (double)v->u.f32 : v->u.f64);
    if (!*out)
      return fl_err_set(err, FL_EINVALID, "%s default NaN or infinity has no JSON form",
                        kind_text(t));
    break;
  case TY_DECIMAL:
    ty_decimal_format(v->u.i128, t->scale, tmp, sizeof tmp);
    *out = json_string(tmp);
    break;
  case TY_DATE:
    fl_format_date(v->u.i32, tmp);
    *out = json_string(tmp);
    break;
  case TY_TIME:
    fl_format_time(v->u.i64, tmp);
    *out = json_string(tmp);
    break;
  case TY_TIMESTAMP:
  case TY_TIMESTAMPTZ:
  case TY_TIMESTAMP_NS:
  case TY_TIMESTAMPTZ_NS:
    fl_format_timestamp(v->u.i64,
                        (t->kind == TY_TIMESTAMP_NS || t->kind == TY_TIMESTAMPTZ_NS) ? 9 : 6,
                        t->kind == TY_TIMESTAMPTZ || t->kind == TY_TIMESTAMPTZ_NS, tmp);
    *out = json_string(tmp);
    break;
  case TY_STRING:
    *out = json_stringn((const char *)v->u.bytes.p, v->u.bytes.n);
    if (!*out) return fl_err_set(err, FL_EINVALID, "string default is not valid UTF-8");
    break;
  case TY_UUID:
    if (v->u.bytes.n != 16)
      return fl_err_set(err, FL_EINVALID, "uuid value of %zu bytes", v->u.bytes.n);
    ty_uuid_format(v->u.bytes.p, tmp);
    *out = json_string(tmp);
    break;
  case TY_FIXED:
  case TY_BINARY: {
    fl_buf_t b;
    fl_buf_init(&b);
    hex_text(v->u.bytes.p, v->u.bytes.n, &b);
    *out = json_stringn(b.len ? (const char *)b.data : "", b.len);
    fl_buf_free(&b);
    break;
  }
  default:
    return fl_err_set(err, FL_EINVALID, "%s values have no JSON single-value form", kind_text(t));
  }
  return FL_OK;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* The scale BigDecimal gives decimal text: fraction digits minus the
 * exponent; INT32_MIN for text it cannot be. */
static int64_t text_scale(const char *s, size_t n) {
  size_t i = 0;
  int64_t frac = 0;
  while (i < n && s[i] != '.' && s[i] != 'e' && s[i] != 'E') i++;
  if (i < n && s[i] == '.')
    for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) frac++;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    bool neg = i < n && s[i] == '-';
    if (i < n && (s[i] == '-' || s[i] == '+')) i++;
    if (i == n) return INT32_MIN;
    int64_t e = 0;
    for (; i < n; i++) {
      if (s[i] < '0' || s[i] > '9' || e > 1000) return INT32_MIN;
      e = e * 10 + (s[i] - '0');
    }
    frac -= neg ? -e : e;
  }
  return frac;
}

/* Whether timestamp text ends in a zero offset ("+00:00", "-00:00", "Z"). */
static bool utc_suffix(const char *s, size_t n) {
  if (n >= 1 && (s[n - 1] == 'Z' || s[n - 1] == 'z')) return true;
  return n >= 6 && (memcmp(s + n - 6, "+00:00", 6) == 0 || memcmp(s + n - 6, "-00:00", 6) == 0);
}

static int bad_json(fl_err_t *err, const char *what, const ty_type_t *t, const char *expect) {
  return fl_err_set(err, FL_EPARSE, "%s: a %s default must be %s", what ? what : "value",
                    kind_text(t), expect);
}

int ice_value_from_json(fl_arena_t *a, const ty_type_t *t, const json_t *j, const char *what,
                        ty_value_t *out, fl_err_t *err) {
  memset(out, 0, sizeof *out);
  out->kind = t->kind;
  if (json_is_null(j)) {
    out->is_null = true;
    return FL_OK;
  }
  const char *s = json_is_string(j) ? json_string_value(j) : NULL;
  size_t n = s ? json_string_length(j) : 0;
  switch (t->kind) {
  case TY_BOOLEAN:
    if (!json_is_boolean(j)) return bad_json(err, what, t, "true or false");
    out->u.b = json_is_true(j);
    return FL_OK;
  case TY_INT:
    if (!json_is_integer(j) || json_integer_value(j) < INT32_MIN ||
        json_integer_value(j) > INT32_MAX)
      return bad_json(err, what, t, "a JSON integer within 32 bits");
    out->u.i32 = (int32_t)json_integer_value(j);
    return FL_OK;
  case TY_LONG:
    if (!json_is_integer(j)) return bad_json(err, what, t, "a JSON integer");
    out->u.i64 = json_integer_value(j);
    return FL_OK;
  case TY_FLOAT:
  case TY_DOUBLE:
    if (!json_is_number(j)) return bad_json(err, what, t, "a JSON number");
    if (t->kind == TY_FLOAT)
      out->u.f32 = (float)json_number_value(j);
    else
      out->u.f64 = json_number_value(j);
    return FL_OK;
  case TY_DECIMAL:
    /* Java's SingleValueParser insists on the type's scale ("14.20" for
     * decimal(9,2), not "14.2"). */
    if (!s || text_scale(s, n) != t->scale ||
        !ty_decimal_parse(s, n, t->precision, t->scale, false, &out->u.i128))
      return bad_json(err, what, t, "a string holding a decimal of that precision and scale");
    return FL_OK;
  case TY_DATE:
    if (!s || !fl_parse_date(s, n, &out->u.i32))
      return bad_json(err, what, t, "a string \"YYYY-MM-DD\"");
    return FL_OK;
  case TY_TIME:
    if (!s || !fl_parse_time(s, n, &out->u.i64))
      return bad_json(err, what, t, "a string \"HH:MM:SS[.ffffff]\"");
    return FL_OK;
  case TY_TIMESTAMP:
  case TY_TIMESTAMPTZ:
  case TY_TIMESTAMP_NS:
  case TY_TIMESTAMPTZ_NS: {
    bool tz = t->kind == TY_TIMESTAMPTZ || t->kind == TY_TIMESTAMPTZ_NS;
    bool ns = t->kind == TY_TIMESTAMP_NS || t->kind == TY_TIMESTAMPTZ_NS;
    bool has_zone = false;
    if (!s || !fl_parse_timestamp(s, n, ns ? 9 : 6, &out->u.i64, &has_zone) || has_zone != tz ||
        (tz && !utc_suffix(s, n)))
      return bad_json(err, what, t,
                      tz ? "a string \"YYYY-MM-DDTHH:MM:SS[.f]+00:00\" in UTC"
                         : "a string \"YYYY-MM-DDTHH:MM:SS[.f]\" without an offset");
    return FL_OK;
  }
  case TY_STRING:
    if (!s) return bad_json(err, what, t, "a JSON string");
    out->u.bytes.p = n ? fl_arena_memdup(a, s, n) : (const uint8_t *)"";
    out->u.bytes.n = n;
    return FL_OK;
  case TY_UUID: {
    uint8_t b[16];
    if (!s || !ty_uuid_parse(s, n, b))
      return bad_json(err, what, t, "a string in 8-4-4-4-12 hex form");
    out->u.bytes.p = fl_arena_memdup(a, b, 16);
    out->u.bytes.n = 16;
    return FL_OK;
  }
  case TY_FIXED:
  case TY_BINARY: {
    if (!s || n % 2 != 0 || (t->kind == TY_FIXED && n != 2 * (size_t)t->length))
      return bad_json(err, what, t,
                      t->kind == TY_FIXED ? "a hex string of twice its length" : "a hex string");
    uint8_t *b = fl_arena_alloc(a, n / 2 + 1);
    for (size_t i = 0; i < n / 2; i++) {
      int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
      if (hi < 0 || lo < 0) return bad_json(err, what, t, "a hex string");
      b[i] = (uint8_t)(hi << 4 | lo);
    }
    out->u.bytes.p = b;
    out->u.bytes.n = n / 2;
    return FL_OK;
  }
  default:
    return fl_err_set(err, FL_EINVALID, "%s: %s values have no JSON single-value form",
                      what ? what : "value", kind_text(t));
  }
}

static bool is_text(const ty_type_t *t) { return t->kind == TY_STRING; }

void ice_truncate_lower(fl_arena_t *a, const ty_type_t *t, const ty_value_t *v, int max_len,
                        ty_value_t *out) {
  *out = *v;
  if (v->is_null || max_len < 0) return;
  size_t n = is_text(t) ? ice__utf8_prefix(v->u.bytes.p, v->u.bytes.n, (size_t)max_len)
                        : (v->u.bytes.n < (size_t)max_len ? v->u.bytes.n : (size_t)max_len);
  out->u.bytes.p = n ? fl_arena_memdup(a, v->u.bytes.p, n) : (const uint8_t *)"";
  out->u.bytes.n = n;
}

/* Appends code point cp as UTF-8 to b at *len. */
static void put_utf8(uint8_t *b, size_t *len, uint32_t cp) {
  if (cp < 0x80) {
    b[(*len)++] = (uint8_t)cp;
  } else if (cp < 0x800) {
    b[(*len)++] = (uint8_t)(0xC0 | cp >> 6);
    b[(*len)++] = (uint8_t)(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    b[(*len)++] = (uint8_t)(0xE0 | cp >> 12);
    b[(*len)++] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    b[(*len)++] = (uint8_t)(0x80 | (cp & 0x3F));
  } else {
    b[(*len)++] = (uint8_t)(0xF0 | cp >> 18);
    b[(*len)++] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    b[(*len)++] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    b[(*len)++] = (uint8_t)(0x80 | (cp & 0x3F));
  }
}

static uint32_t get_utf8(const uint8_t *p, size_t l) {
  if (l == 1) return p[0];
  uint32_t cp = p[0] & (0xFF >> (l + 1));
  for (size_t i = 1; i < l; i++) cp = cp << 6 | (p[i] & 0x3F);
  return cp;
}

bool ice_truncate_upper(fl_arena_t *a, const ty_type_t *t, const ty_value_t *v, int max_len,
                        ty_value_t *out) {
  *out = *v;
  if (v->is_null || max_len < 0) return true;
  const uint8_t *p = v->u.bytes.p;
  size_t n = v->u.bytes.n;
  if (!is_text(t)) {
    if (n <= (size_t)max_len) {
      out->u.bytes.p = n ? fl_arena_memdup(a, p, n) : (const uint8_t *)"";
      return true;
    }
    for (size_t k = (size_t)max_len; k > 0; k--) {
      if (p[k - 1] != 0xFF) {
        uint8_t *b = fl_arena_memdup(a, p, k);
        b[k - 1]++;
        out->u.bytes.p = b;
        out->u.bytes.n = k;
        return true;
      }
    }
    return false;
  }
  size_t pre = ice__utf8_prefix(p, n, (size_t)max_len);
  if (pre >= n) {
    out->u.bytes.p = n ? fl_arena_memdup(a, p, n) : (const uint8_t *)"";
    return true;
  }
  /* Start offsets of the prefix's code points, walked from the last one. */
  size_t starts_n = 0;
  size_t *starts = fl_arena_alloc(a, sizeof(size_t) * ((size_t)max_len + 1));
  for (size_t pos = 0; pos < pre; pos += ice__utf8_len(p[pos])) starts[starts_n++] = pos;
  for (size_t k = starts_n; k > 0; k--) {
    size_t at = starts[k - 1];
    size_t l = ice__utf8_len(p[at]);
    if (at + l > pre) l = pre - at;
    uint32_t next = get_utf8(p + at, l) + 1;
    if (next >= 0xD800 && next <= 0xDFFF) next = 0xE000;
    if (next > 0x10FFFF) continue;
    uint8_t *b = fl_arena_alloc(a, at + 4);
    memcpy(b, p, at);
    size_t len = at;
    put_utf8(b, &len, next);
    out->u.bytes.p = b;
    out->u.bytes.n = len;
    return true;
  }
  return false;
}
