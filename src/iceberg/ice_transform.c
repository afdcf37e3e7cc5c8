/*
 * ice_transform.c - Iceberg partition transforms (layer 5, iceberg).
 *
 * Everything a transform is follows from its kind and parameter: which
 * source types it accepts and what it yields (the spec's transform table),
 * its value on one source value, its text in metadata and in CLI calls, its
 * human text in partition paths (Java's Transform.toHumanString) and the
 * default name of a partition field built from it (PyIceberg's and Java's
 * UpdatePartitionSpec naming).
 *
 * Temporal transforms count whole units from 1970-01-01T00:00 with floor
 * semantics, so every instant before the epoch falls into a negative
 * ordinal; nanosecond timestamps are floored to microseconds first, which
 * is also what bucket hashes for them (so a timestamp_ns column buckets
 * like a timestamp column).
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/time.h"
#include "iceberg/ice_conv_int.h"
#include "iceberg/ice_transform.h"

#define MICROS_PER_HOUR 3600000000LL

static const struct {
  const char *name;
  ice_transform_kind_t kind;
} simple_names[] = {
    {"identity", ICE_T_IDENTITY}, {"year", ICE_T_YEAR}, {"month", ICE_T_MONTH},
    {"day", ICE_T_DAY},           {"hour", ICE_T_HOUR}, {"void", ICE_T_VOID},
};

static bool ieq(const char *a, size_t n, const char *b) {
  size_t m = strlen(b);
  if (n != m) return false;
  for (size_t i = 0; i < n; i++)
    if (tolower((unsigned char)a[i]) != b[i]) return false;
  return true;
}

static bool iprefix(const char *s, const char *p) {
  for (; *p; s++, p++)
    if (tolower((unsigned char)*s) != *p) return false;
  return true;
}

/* Parses a positive decimal int32 in s[0..n); false when it is not one. */
static bool parse_positive(const char *s, size_t n, int32_t *out) {
  if (n == 0 || n > 10) return false;
  int64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  if (v <= 0 || v > INT32_MAX) return false;
  *out = (int32_t)v;
  return true;
}

int ice_transform_parse(fl_arena_t *a, const char *text, ice_transform_t *out, fl_err_t *err) {
  size_t n = strlen(text);
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < sizeof simple_names / sizeof simple_names[0]; i++) {
    if (ieq(text, n, simple_names[i].name)) {
      out->kind = simple_names[i].kind;
      return FL_OK;
    }
  }
  const char *p = NULL;
  if (iprefix(text, "bucket")) {
    out->kind = ICE_T_BUCKET;
    p = text + 6;
  } else if (iprefix(text, "truncate")) {
    out->kind = ICE_T_TRUNCATE;
    p = text + 8;
  }
  if (p) {
    size_t rest = n - (size_t)(p - text);
    if (rest < 3 || p[0] != '[' || p[rest - 1] != ']' || !parse_positive(p + 1, rest - 2, &out->param))
      return fl_err_set(err, FL_EPARSE,
                        "transform \"%s\": expected %s[N] with N a positive 32-bit integer", text,
                        out->kind == ICE_T_BUCKET ? "bucket" : "truncate");
    return FL_OK;
  }
  out->kind = ICE_T_UNKNOWN;
  out->text = fl_arena_strdup(a, text);
  return FL_OK;
}

static const char *skip_ws(const char *s, const char *end) {
  while (s < end && isspace((unsigned char)*s)) s++;
  return s;
}

static const char *trim_end(const char *s, const char *end) {
  while (end > s && isspace((unsigned char)end[-1])) end--;
  return end;
}

/*
 * Validates and copies a column reference s[0..n): a bare name (anything
 * without spaces, commas, parentheses or quotes) or one quoted with "" or
 * `` (the quotes are removed).
 */
static int column_ref(fl_arena_t *a, const char *s, size_t n, const char *whole, const char **out,
                      fl_err_t *err) {
  if (n >= 2 && (s[0] == '"' || s[0] == '`') && s[n - 1] == s[0]) {
    if (n == 2) return fl_err_set(err, FL_EPARSE, "partition field \"%s\": empty column name", whole);
    *out = fl_arena_strndup(a, s + 1, n - 2);
    return FL_OK;
  }
  if (n == 0) return fl_err_set(err, FL_EPARSE, "partition field \"%s\": missing column name", whole);
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (isspace((unsigned char)c) || c == ',' || c == '(' || c == ')' || c == '"' || c == '`' ||
        c == '[' || c == ']')
      return fl_err_set(err, FL_EPARSE, "partition field \"%s\": invalid column name \"%.*s\"", whole,
                        (int)n, s);
  }
  *out = fl_arena_strndup(a, s, n);
  return FL_OK;
}

static bool all_digits(const char *s, size_t n) {
  if (n == 0) return false;
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

int ice_transform_parse_call(fl_arena_t *a, const char *text, ice_transform_t *out,
                             const char **column, fl_err_t *err) {
  const char *end = text + strlen(text);
  const char *s = skip_ws(text, end);
  end = trim_end(s, end);
  memset(out, 0, sizeof *out);
  const char *open = memchr(s, '(', (size_t)(end - s));
  if (!open) {
    out->kind = ICE_T_IDENTITY;
    return column_ref(a, s, (size_t)(end - s), text, column, err);
  }
  if (end[-1] != ')')
    return fl_err_set(err, FL_EPARSE, "partition field \"%s\": expected ')' at the end", text);
  const char *fn_end = trim_end(s, open);
  size_t fn = (size_t)(fn_end - s);
  static const struct {
    const char *name;
    ice_transform_kind_t kind;
  } calls[] = {
      {"identity", ICE_T_IDENTITY}, {"year", ICE_T_YEAR},     {"years", ICE_T_YEAR},
      {"month", ICE_T_MONTH},       {"months", ICE_T_MONTH},  {"day", ICE_T_DAY},
      {"days", ICE_T_DAY},          {"hour", ICE_T_HOUR},     {"hours", ICE_T_HOUR},
      {"void", ICE_T_VOID},         {"bucket", ICE_T_BUCKET}, {"truncate", ICE_T_TRUNCATE},
  };
  bool found = false;
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
    if (ieq(s, fn, calls[i].name)) {
      out->kind = calls[i].kind;
      found = true;
      break;
    }
  }
  if (!found)
    return fl_err_set(err, FL_EPARSE,
                      "partition field \"%s\": unknown transform \"%.*s\" (expected identity, "
                      "bucket, truncate, year, month, day, hour or void)",
                      text, (int)fn, s);
  const char *args = open + 1, *args_end = end - 1;
  const char *comma = NULL;
  int depth = 0;
  for (const char *p = args; p < args_end; p++) {
    if (*p == '(') depth++;
    if (*p == ')') depth--;
    if (*p == ',' && depth == 0) {
      if (comma)
        return fl_err_set(err, FL_EPARSE, "partition field \"%s\": too many arguments", text);
      comma = p;
    }
  }
  bool param = out->kind == ICE_T_BUCKET || out->kind == ICE_T_TRUNCATE;
  if (!param) {
    if (comma)
      return fl_err_set(err, FL_EPARSE, "partition field \"%s\": %.*s takes one column", text,
                        (int)fn, s);
    const char *c = skip_ws(args, args_end);
    return column_ref(a, c, (size_t)(trim_end(c, args_end) - c), text, column, err);
  }
  if (!comma)
    return fl_err_set(err, FL_EPARSE, "partition field \"%s\": %.*s takes a number and a column",
                      text, (int)fn, s);
  const char *a1 = skip_ws(args, comma), *a1e = trim_end(a1, comma);
  const char *a2 = skip_ws(comma + 1, args_end), *a2e = trim_end(a2, args_end);
  const char *num, *nume, *col, *cole;
  if (all_digits(a1, (size_t)(a1e - a1)) && !all_digits(a2, (size_t)(a2e - a2))) {
    num = a1, nume = a1e, col = a2, cole = a2e;
  } else if (all_digits(a2, (size_t)(a2e - a2)) && !all_digits(a1, (size_t)(a1e - a1))) {
    num = a2, nume = a2e, col = a1, cole = a1e;
  } else {
    return fl_err_set(err, FL_EPARSE, "partition field \"%s\": %.*s takes a number and a column",
                      text, (int)fn, s);
  }
  if (!parse_positive(num, (size_t)(nume - num), &out->param))
    return fl_err_set(err, FL_EPARSE,
                      "partition field \"%s\": %.*s needs a positive 32-bit integer, not \"%.*s\"",
                      text, (int)fn, s, (int)(nume - num), num);
  return column_ref(a, col, (size_t)(cole - col), text, column, err);
}

void ice_transform_format(const ice_transform_t *t, fl_buf_t *out) {
  switch (t->kind) {
  case ICE_T_IDENTITY: fl_buf_append_str(out, "identity"); break;
  case ICE_T_BUCKET: fl_buf_printf(out, "bucket[%d]", (int)t->param); break;
  case ICE_T_TRUNCATE: fl_buf_printf(out, "truncate[%d]", (int)t->param); break;
  case ICE_T_YEAR: fl_buf_append_str(out, "year"); break;
  case ICE_T_MONTH: fl_buf_append_str(out, "month"); break;
  case ICE_T_DAY: fl_buf_append_str(out, "day"); break;
  case ICE_T_HOUR: fl_buf_append_str(out, "hour"); break;
  case ICE_T_VOID: fl_buf_append_str(out, "void"); break;
  case ICE_T_UNKNOWN: fl_buf_append_str(out, t->text ? t->text : ""); break;
  }
}

static bool is_timestamp(ty_kind_t k) {
  return k == TY_TIMESTAMP || k == TY_TIMESTAMPTZ || k == TY_TIMESTAMP_NS || k == TY_TIMESTAMPTZ_NS;
}

static bool is_nanos(ty_kind_t k) { return k == TY_TIMESTAMP_NS || k == TY_TIMESTAMPTZ_NS; }

bool ice_transform_can_apply(const ice_transform_t *t, const ty_type_t *src) {
  if (!src) return false;
  ty_kind_t k = src->kind;
  switch (t->kind) {
  case ICE_T_IDENTITY: return !ty_is_nested(src);
  case ICE_T_VOID: return true;
  case ICE_T_BUCKET:
    return k == TY_INT || k == TY_LONG || k == TY_DECIMAL || k == TY_DATE || k == TY_TIME ||
           is_timestamp(k) || k == TY_STRING || k == TY_UUID || k == TY_FIXED || k == TY_BINARY;
  case ICE_T_TRUNCATE:
    return k == TY_INT || k == TY_LONG || k == TY_DECIMAL || k == TY_STRING || k == TY_BINARY;
  case ICE_T_YEAR:
  case ICE_T_MONTH:
  case ICE_T_DAY: return k == TY_DATE || is_timestamp(k);
  case ICE_T_HOUR: return is_timestamp(k);
  case ICE_T_UNKNOWN: return false;
  }
  return false;
}

const ty_type_t *ice_transform_result_type(const ice_transform_t *t, const ty_type_t *src) {
  /* Java and PyIceberg type the partition values of transforms they do
   * not know as strings, so metadata written by newer engines still reads. */
  if (t->kind == ICE_T_UNKNOWN) return ty_primitive(TY_STRING);
  if (!ice_transform_can_apply(t, src)) return NULL;
  switch (t->kind) {
  case ICE_T_BUCKET:
  case ICE_T_YEAR:
  case ICE_T_MONTH:
  case ICE_T_HOUR: return ty_primitive(TY_INT);
  case ICE_T_DAY: return ty_primitive(TY_DATE);
  default: return src;
  }
}

static uint32_t hash_long(int64_t v) {
  uint8_t b[8];
  fl_store_le64(b, (uint64_t)v);
  return fl_murmur3_32(b, 8, 0);
}

int32_t ice_bucket_hash(const ty_type_t *src, const ty_value_t *v) {
  switch (src->kind) {
  case TY_BOOLEAN: return (int32_t)hash_long(v->u.b ? 1 : 0);
  case TY_INT:
  case TY_DATE: return (int32_t)hash_long(v->u.i32);
  case TY_LONG:
  case TY_TIME:
  case TY_TIMESTAMP:
  case TY_TIMESTAMPTZ: return (int32_t)hash_long(v->u.i64);
  case TY_TIMESTAMP_NS:
  case TY_TIMESTAMPTZ_NS: return (int32_t)hash_long(fl_floordiv(v->u.i64, 1000));
  case TY_FLOAT:
  case TY_DOUBLE: {
    double d = src->kind == TY_FLOAT ? (double)v->u.f32 : v->u.f64;
    uint64_t bits;
    if (d != d)
      bits = 0x7ff8000000000000ULL;
    else {
      if (d == 0) d = 0.0; /* -0 hashes as 0 */
      memcpy(&bits, &d, 8);
    }
    return (int32_t)hash_long((int64_t)bits);
  }
  case TY_DECIMAL: {
    uint8_t b[16];
    size_t n = ice__decimal_bytes(v->u.i128, b);
    return (int32_t)fl_murmur3_32(b, n, 0);
  }
  case TY_STRING:
  case TY_BINARY:
  case TY_FIXED:
  case TY_UUID: return (int32_t)fl_murmur3_32(v->u.bytes.p, v->u.bytes.n, 0);
  default: return 0;
  }
}

/* v - (((v % w) + w) % w) in the type's two's complement width, as Java
 * computes it (values within w of the minimum wrap around as Java's do). */
static int64_t trunc_long(int64_t v, int64_t w) {
  int64_t r = ((v % w) + w) % w;
  return (int64_t)((uint64_t)v - (uint64_t)r);
}

static int64_t micros_of(const ty_type_t *src, int64_t v) {
  return is_nanos(src->kind) ? fl_floordiv(v, 1000) : v;
}

/* Days since the epoch of a date or timestamp value. */
static int64_t days_of(const ty_type_t *src, const ty_value_t *in) {
  if (src->kind == TY_DATE) return in->u.i32;
  return fl_floordiv(micros_of(src, in->u.i64), FL_MICROS_PER_DAY);
}

int ice_transform_apply(const ice_transform_t *t, const ty_type_t *src, const ty_value_t *in,
                        ty_value_t *out, fl_err_t *err) {
  if (t->kind == ICE_T_UNKNOWN)
    return fl_err_set(err, FL_EUNSUPPORTED, "transform \"%s\" is not known to floe",
                      t->text ? t->text : "");
  const ty_type_t *rt = ice_transform_result_type(t, src);
  if (!rt) {
    fl_buf_t b;
    fl_buf_init(&b);
    ice_transform_format(t, &b);
    fl_buf_append_u8(&b, 0);
    int rc = fl_err_set(err, FL_EUNSUPPORTED, "transform %s cannot apply to type %s",
                        (const char *)b.data, ty_kind_name(src->kind));
    fl_buf_free(&b);
    return rc;
  }
  memset(out, 0, sizeof *out);
  out->kind = rt->kind;
  if (in->is_null || t->kind == ICE_T_VOID) {
    out->is_null = true;
    return FL_OK;
  }
  switch (t->kind) {
  case ICE_T_IDENTITY: *out = *in; break;
  case ICE_T_BUCKET:
    out->u.i32 = (int32_t)(((uint32_t)ice_bucket_hash(src, in) & 0x7fffffffu) % (uint32_t)t->param);
    break;
  case ICE_T_TRUNCATE:
    *out = *in;
    switch (src->kind) {
    case TY_INT: {
      int64_t v = in->u.i32, w = t->param;
      out->u.i32 = (int32_t)(uint32_t)(uint64_t)(v - (((v % w) + w) % w));
      break;
    }
    case TY_LONG: out->u.i64 = trunc_long(in->u.i64, t->param); break;
    case TY_DECIMAL: {
      fl_i128 v = in->u.i128, w = t->param;
      out->u.i128 = v - (((v % w) + w) % w);
      break;
    }
    case TY_STRING:
      out->u.bytes.n = ice__utf8_prefix(in->u.bytes.p, in->u.bytes.n, (size_t)t->param);
      break;
    case TY_BINARY:
      if (out->u.bytes.n > (size_t)t->param) out->u.bytes.n = (size_t)t->param;
      break;
    default: break;
    }
    break;
  case ICE_T_YEAR:
  case ICE_T_MONTH: {
    int64_t y;
    unsigned m, d;
    fl_civil_from_days(days_of(src, in), &y, &m, &d);
    out->u.i32 = (int32_t)(t->kind == ICE_T_YEAR ? y - 1970 : (y - 1970) * 12 + (int64_t)m - 1);
    break;
  }
  case ICE_T_DAY: out->u.i32 = (int32_t)days_of(src, in); break;
  case ICE_T_HOUR:
    out->u.i32 = (int32_t)fl_floordiv(micros_of(src, in->u.i64), MICROS_PER_HOUR);
    break;
  default: break;
  }
  return FL_OK;
}

/* "%04d" of a year as Java's String.format prints it. */
static void year_text(int64_t y, fl_buf_t *out) {
  if (y < 0)
    fl_buf_printf(out, "-%03lld", (long long)-y);
  else
    fl_buf_printf(out, "%04lld", (long long)y);
}

static void date_text(int64_t days, fl_buf_t *out) {
  int64_t y;
  unsigned m, d;
  fl_civil_from_days(days, &y, &m, &d);
  year_text(y, out);
  fl_buf_printf(out, "-%02u-%02u", m, d);
}

/* LocalTime.toString: HH:mm, then :ss when seconds or a fraction are set,
 * the fraction in 3, 6 or 9 digits as needed. */
static void clock_text(int64_t nanos_of_day, fl_buf_t *out) {
  int64_t secs = nanos_of_day / 1000000000, frac = nanos_of_day % 1000000000;
  fl_buf_printf(out, "%02lld:%02lld", (long long)(secs / 3600), (long long)(secs / 60 % 60));
  if (secs % 60 == 0 && frac == 0) return;
  fl_buf_printf(out, ":%02lld", (long long)(secs % 60));
  if (frac == 0) return;
  if (frac % 1000000 == 0)
    fl_buf_printf(out, ".%03lld", (long long)(frac / 1000000));
  else if (frac % 1000 == 0)
    fl_buf_printf(out, ".%06lld", (long long)(frac / 1000));
  else
    fl_buf_printf(out, ".%09lld", (long long)frac);
}

/* LocalDateTime.toString (years beyond 9999 get a '+', as LocalDate's). */
static void timestamp_text(int64_t units, bool nanos, bool zone, fl_buf_t *out) {
  int64_t per_day = nanos ? FL_MICROS_PER_DAY * 1000 : FL_MICROS_PER_DAY;
  int64_t days = fl_floordiv(units, per_day), tod = units - days * per_day;
  int64_t y;
  unsigned m, d;
  fl_civil_from_days(days, &y, &m, &d);
  if (y > 9999) fl_buf_append_u8(out, '+');
  year_text(y, out);
  fl_buf_printf(out, "-%02u-%02uT", m, d);
  clock_text(nanos ? tod : tod * 1000, out);
  if (zone) fl_buf_append_u8(out, 'Z');
}

static void base64_text(const uint8_t *p, size_t n, fl_buf_t *out) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16;
    if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
    if (i + 2 < n) v |= p[i + 2];
    char q[4] = {tab[v >> 18], tab[(v >> 12) & 63], i + 1 < n ? tab[(v >> 6) & 63] : '=',
                 i + 2 < n ? tab[v & 63] : '='};
    fl_buf_append(out, q, 4);
  }
}

/* BigDecimal.toString: plain unless the adjusted exponent is below -6. */
static void decimal_text(fl_i128 v, int scale, fl_buf_t *out) {
  char digits[48];
  size_t nd = ty_decimal_format(v < 0 ? -v : v, 0, digits, sizeof digits);
  int adjusted = (int)nd - 1 - scale;
  if (adjusted >= -6 || scale == 0) {
    char buf[64];
    size_t n = ty_decimal_format(v, scale, buf, sizeof buf);
    fl_buf_append(out, buf, n);
    return;
  }
  if (v < 0) fl_buf_append_u8(out, '-');
  fl_buf_append_u8(out, (uint8_t)digits[0]);
  if (nd > 1) {
    fl_buf_append_u8(out, '.');
    fl_buf_append(out, digits + 1, nd - 1);
  }
  fl_buf_printf(out, "E%d", adjusted);
}

void ice_transform_human(const ice_transform_t *t, const ty_type_t *result_type,
                         const ty_value_t *v, fl_buf_t *out) {
  if (!v || v->is_null || t->kind == ICE_T_VOID) {
    fl_buf_append_str(out, "null");
    return;
  }
  switch (t->kind) {
  case ICE_T_YEAR: year_text(1970 + (int64_t)v->u.i32, out); return;
  case ICE_T_MONTH: {
    int64_t mo = v->u.i32;
    year_text(1970 + fl_floordiv(mo, 12), out);
    fl_buf_printf(out, "-%02d", (int)(fl_floormod(mo, 12) + 1));
    return;
  }
  case ICE_T_DAY: date_text(v->u.i32, out); return;
  case ICE_T_HOUR: {
    int64_t h = v->u.i32;
    date_text(fl_floordiv(h, 24), out);
    fl_buf_printf(out, "-%02d", (int)fl_floormod(h, 24));
    return;
  }
  case ICE_T_BUCKET: fl_buf_printf(out, "%d", (int)v->u.i32); return;
  default: break;
  }
  switch (result_type->kind) {
  case TY_BOOLEAN: fl_buf_append_str(out, v->u.b ? "true" : "false"); break;
  case TY_INT: fl_buf_printf(out, "%d", (int)v->u.i32); break;
  case TY_LONG: fl_buf_printf(out, "%lld", (long long)v->u.i64); break;
  case TY_DATE: date_text(v->u.i32, out); break;
  case TY_TIME: clock_text(v->u.i64 * 1000, out); break;
  case TY_TIMESTAMP:
  case TY_TIMESTAMPTZ:
  case TY_TIMESTAMP_NS:
  case TY_TIMESTAMPTZ_NS:
    timestamp_text(v->u.i64, is_nanos(result_type->kind),
                   result_type->kind == TY_TIMESTAMPTZ || result_type->kind == TY_TIMESTAMPTZ_NS,
                   out);
    break;
  case TY_DECIMAL: decimal_text(v->u.i128, result_type->scale, out); break;
  case TY_STRING: fl_buf_append(out, v->u.bytes.p, v->u.bytes.n); break;
  case TY_BINARY:
  case TY_FIXED: base64_text(v->u.bytes.p, v->u.bytes.n, out); break;
  default: ty_value_format(result_type, v, out); break;
  }
}

bool ice_transform_preserves_order(const ice_transform_t *t) {
  switch (t->kind) {
  case ICE_T_IDENTITY:
  case ICE_T_TRUNCATE:
  case ICE_T_YEAR:
  case ICE_T_MONTH:
  case ICE_T_DAY:
  case ICE_T_HOUR: return true;
  default: return false;
  }
}

bool ice_transform_equal(const ice_transform_t *a, const ice_transform_t *b) {
  if (a->kind != b->kind) return false;
  if (a->kind == ICE_T_UNKNOWN) return a->text && b->text && strcmp(a->text, b->text) == 0;
  return a->param == b->param;
}

static int time_rank(ice_transform_kind_t k) {
  switch (k) {
  case ICE_T_HOUR: return 1;
  case ICE_T_DAY: return 2;
  case ICE_T_MONTH: return 3;
  case ICE_T_YEAR: return 4;
  default: return 0;
  }
}

bool ice_transform_satisfies(const ice_transform_t *fine, const ice_transform_t *coarse) {
  if (ice_transform_equal(fine, coarse)) return true;
  if (fine->kind == ICE_T_UNKNOWN || coarse->kind == ICE_T_UNKNOWN) return false;
  if (coarse->kind == ICE_T_VOID) return true;
  if (fine->kind == ICE_T_IDENTITY) return true;
  int rf = time_rank(fine->kind), rc = time_rank(coarse->kind);
  if (rf && rc) return rf <= rc;
  /* bucket[N] determines bucket[M] when M divides N. Truncation widths
   * compose differently for numbers (multiples) and strings (prefixes),
   * which the transform alone cannot tell, so only equal widths count. */
  if (fine->kind == ICE_T_BUCKET && coarse->kind == ICE_T_BUCKET)
    return fine->param % coarse->param == 0;
  return false;
}

const char *ice_transform_field_name(fl_arena_t *a, const ice_transform_t *t, const char *source) {
  switch (t->kind) {
  case ICE_T_IDENTITY: return fl_arena_strdup(a, source);
  case ICE_T_BUCKET: return fl_arena_sprintf(a, "%s_bucket_%d", source, (int)t->param);
  case ICE_T_TRUNCATE: return fl_arena_sprintf(a, "%s_trunc_%d", source, (int)t->param);
  case ICE_T_YEAR: return fl_arena_sprintf(a, "%s_year", source);
  case ICE_T_MONTH: return fl_arena_sprintf(a, "%s_month", source);
  case ICE_T_DAY: return fl_arena_sprintf(a, "%s_day", source);
  case ICE_T_HOUR: return fl_arena_sprintf(a, "%s_hour", source);
  case ICE_T_VOID: return fl_arena_sprintf(a, "%s_null", source);
  case ICE_T_UNKNOWN: break;
  }
  /* Java's generator names unknown transforms source + "_" + text. */
  return fl_arena_sprintf(a, "%s_%s", source, t->text ? t->text : "unknown");
}
