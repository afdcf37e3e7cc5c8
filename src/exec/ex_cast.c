/*
 * ex_cast.c - CAST and TRY_CAST: one loop per pair of source and target
 * classes (integers, floats, decimals, booleans, temporals, text), chosen
 * once per batch.
 *
 * Text forms are Trino's: doubles as "1.5E0" (shortest digits that read
 * back, scientific notation, SQL-standard style), reals alike, decimals
 * with their scale ("12.30"), timestamps "2024-01-02 03:04:05.123456",
 * timestamps with time zone followed by the zone ("... UTC",
 * "... America/New_York"), intervals "1 02:03:04.500" and "1-2".
 */
#include "exec/ex_cast.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "base/time.h"
#include "exec/ex_func_int.h"
#include "types/value.h"

/* ---- type names ---- */

static bool word(const char **p, const char *w) {
  const char *s = *p;
  while (*s == ' ') s++;
  size_t n = strlen(w);
  if (strncasecmp(s, w, n) != 0 || isalnum((unsigned char)s[n])) return false;
  *p = s + n;
  return true;
}

static bool parse_params(const char **p, int *a, int *b, int *np) {
  const char *s = *p;
  while (*s == ' ') s++;
  *np = 0;
  if (*s != '(') return true;
  s++;
  char *e;
  *a = (int)strtol(s, &e, 10);
  if (e == s) return false;
  s = e;
  *np = 1;
  while (*s == ' ') s++;
  if (*s == ',') {
    s++;
    *b = (int)strtol(s, &e, 10);
    if (e == s) return false;
    s = e;
    *np = 2;
  }
  while (*s == ' ') s++;
  if (*s != ')') return false;
  *p = s + 1;
  return true;
}

int ex_type_parse(const char *text, ex_type_t *out, fl_err_t *err) {
  static const ex_type_t varchar = {.kind = EX_VARCHAR};
  const char *p = text;
  int a = 0, b = 0, np = 0;
  *out = ex_type(EX_UNKNOWN);
  if (word(&p, "unknown"))
    *out = ex_type(EX_UNKNOWN);
  else if (word(&p, "boolean"))
    *out = ex_type(EX_BOOLEAN);
  else if (word(&p, "tinyint"))
    *out = ex_type(EX_TINYINT);
  else if (word(&p, "smallint"))
    *out = ex_type(EX_SMALLINT);
  else if (word(&p, "integer") || word(&p, "int"))
    *out = ex_type(EX_INTEGER);
  else if (word(&p, "bigint"))
    *out = ex_type(EX_BIGINT);
  else if (word(&p, "real"))
    *out = ex_type(EX_REAL);
  else if (word(&p, "double")) {
    word(&p, "precision");
    *out = ex_type(EX_DOUBLE);
  } else if (word(&p, "decimal")) {
    a = 38, b = 0;
    if (!parse_params(&p, &a, &b, &np)) goto bad;
    if (np == 1) b = 0;
    if (a < 1 || a > 38 || b < 0 || b > a) {
      return fl_err_set(
          err, FL_EINVALID,
          "DECIMAL precision must be in range [1, 38] and scale in [0, precision]: '%s'", text);
    }
    *out = ex_type_decimal(a, b);
  } else if (word(&p, "varchar") || word(&p, "char")) {
    if (!parse_params(&p, &a, &b, &np)) goto bad;
    *out = ex_type(EX_VARCHAR);
  } else if (word(&p, "varbinary"))
    *out = ex_type(EX_VARBINARY);
  else if (word(&p, "date"))
    *out = ex_type(EX_DATE);
  else if (word(&p, "uuid"))
    *out = ex_type(EX_UUID);
  else if (word(&p, "json"))
    *out = ex_type(EX_JSON);
  else if (word(&p, "time")) {
    if (!parse_params(&p, &a, &b, &np)) goto bad;
    *out = ex_type(EX_TIME);
  } else if (word(&p, "timestamp")) {
    if (!parse_params(&p, &a, &b, &np)) goto bad;
    *out = ex_type(EX_TIMESTAMP);
    const char *q = p;
    if (word(&q, "with") && word(&q, "time") && word(&q, "zone")) {
      *out = ex_type(EX_TIMESTAMPTZ);
      p = q;
    } else if (word(&q, "without") && word(&q, "time") && word(&q, "zone")) {
      p = q;
    }
  } else if (word(&p, "interval")) {
    if (word(&p, "day") && word(&p, "to") && word(&p, "second"))
      *out = ex_type(EX_INTERVAL_DS);
    else if (word(&p, "year") && word(&p, "to") && word(&p, "month"))
      *out = ex_type(EX_INTERVAL_YM);
    else
      goto bad;
  } else if (word(&p, "array")) {
    const char *s = p;
    while (*s == ' ') s++;
    if (strncasecmp(s, "(varchar)", 9) != 0) goto bad;
    p = s + 9;
    *out = (ex_type_t){.kind = EX_ARRAY, .elem = &varchar};
  } else {
    goto bad;
  }
  while (*p == ' ') p++;
  if (*p) goto bad;
  return FL_OK;
bad:
  return fl_err_set(err, FL_EPARSE, "Unknown type: '%s'", text);
}

/* Upper-case spelling of a type for cast messages ("DECIMAL(10,2)"). */
static const char *up(const ex_type_t *t) {
  static _Thread_local char ring[4][96];
  static _Thread_local int at;
  char *b = ring[at++ & 3];
  snprintf(b, 96, "%s", ex_type_str(t));
  for (char *c = b; *c; c++) *c = (char)toupper((unsigned char)*c);
  return b;
}

/* ---- double digits ---- */

/* Shortest significant digits of |d| that read back as d; returns their
 * count and sets the decimal exponent of the first digit. */
static int shortest_digits(double d, bool is_float, char digits[24], int *exp10) {
  char e[48];
  int prec = 1, max = is_float ? 9 : 17;
  for (; prec <= max; prec++) {
    snprintf(e, sizeof e, "%.*e", prec - 1, fabs(d));
    if (is_float ? strtof(e, NULL) == (float)fabs(d) : strtod(e, NULL) == fabs(d)) break;
  }
  if (prec > max) snprintf(e, sizeof e, "%.*e", max - 1, fabs(d));
  int nd = 0;
  const char *p = e;
  for (; *p && *p != 'e'; p++)
    if (*p != '.') digits[nd++] = *p;
  *exp10 = atoi(p + 1);
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  return nd;
}

/* Trino's CAST(double AS varchar): "1.5E0", "-1.0E-5", "0E0", "NaN". */
static size_t format_sci(double d, bool is_float, char *buf) {
  if (isnan(d)) return (size_t)sprintf(buf, "NaN");
  if (isinf(d)) return (size_t)sprintf(buf, d < 0 ? "-Infinity" : "Infinity");
  if (d == 0) return (size_t)sprintf(buf, signbit(d) ? "-0E0" : "0E0");
  char dg[24];
  int e, nd = shortest_digits(d, is_float, dg, &e);
  size_t n = 0;
  if (d < 0) buf[n++] = '-';
  buf[n++] = dg[0];
  buf[n++] = '.';
  if (nd == 1) buf[n++] = '0';
  for (int i = 1; i < nd; i++) buf[n++] = dg[i];
  n += (size_t)sprintf(buf + n, "E%d", e);
  return n;
}

/* Plain decimal text of a finite double with its shortest digits, for
 * conversion to decimal; false when it has more than 40 integer digits. */
static bool double_plain(double d, char *buf, size_t *len) {
  char dg[24];
  size_t n = 0;
  if (d == 0) {
    buf[0] = '0';
    *len = 1;
    return true;
  }
  int e, nd = shortest_digits(d, false, dg, &e);
  if (e > 40) return false;
  if (d < 0) buf[n++] = '-';
  if (e < -45) {
    buf[n++] = '0';
  } else if (e >= 0) {
    for (int i = 0; i <= e; i++) buf[n++] = i < nd ? dg[i] : '0';
    if (nd > e + 1) {
      buf[n++] = '.';
      for (int i = e + 1; i < nd; i++) buf[n++] = dg[i];
    }
  } else {
    buf[n++] = '0';
    buf[n++] = '.';
    for (int i = -1; i > e; i--) buf[n++] = '0';
    for (int i = 0; i < nd; i++) buf[n++] = dg[i];
  }
  *len = n;
  return true;
}

/* ---- values as text ---- */

static size_t format_interval_ds(int64_t us, char *buf) {
  bool neg = us < 0;
  uint64_t u = neg ? (uint64_t)0 - (uint64_t)us : (uint64_t)us;
  uint64_t ms = u / 1000, s = ms / 1000;
  return (size_t)sprintf(buf, "%s%llu %02llu:%02llu:%02llu.%03llu", neg ? "-" : "",
                         (unsigned long long)(s / 86400), (unsigned long long)(s / 3600 % 24),
                         (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60),
                         (unsigned long long)(ms % 1000));
}

static size_t format_ts(int64_t local_us, int digits, char *buf) {
  size_t n = fl_format_timestamp(local_us, digits, false, buf);
  buf[10] = ' ';
  return n;
}

/* An element of an array, map or row: floating point numbers in their
 * shortest form (4.5), as Trino's clients show nested values. */
static void format_elem(ex_ctx_t *ctx, const ex_type_t *t, const ty_vec_t *v, uint32_t i,
                        fl_buf_t *out) {
  char b[64];
  if (t->kind == EX_DOUBLE) {
    fl_buf_append(out, b, ty_format_double(TY_VEC_DATA(v, double)[i], b));
    return;
  }
  if (t->kind == EX_REAL) {
    fl_buf_append(out, b, ty_format_float(TY_VEC_DATA(v, float)[i], b));
    return;
  }
  ex__format_value(ctx, t, v, i, out);
}

void ex__format_value(ex_ctx_t *ctx, const ex_type_t *t, const ty_vec_t *v, uint32_t i,
                      fl_buf_t *out) {
  char b[128];
  size_t n = 0;
  switch (t->kind) {
    case EX_BOOLEAN: fl_buf_append_str(out, v->data[i] ? "true" : "false"); return;
    case EX_TINYINT:
    case EX_SMALLINT:
    case EX_INTEGER: n = (size_t)sprintf(b, "%d", TY_VEC_DATA(v, int32_t)[i]); break;
    case EX_BIGINT: n = (size_t)sprintf(b, "%lld", (long long)TY_VEC_DATA(v, int64_t)[i]); break;
    case EX_REAL: n = format_sci(TY_VEC_DATA(v, float)[i], true, b); break;
    case EX_DOUBLE: n = format_sci(TY_VEC_DATA(v, double)[i], false, b); break;
    case EX_DECIMAL: n = ex__dec_format(ty_vec_get_i128(v, i), t->scale, b, sizeof b); break;
    case EX_DATE: n = fl_format_date(TY_VEC_DATA(v, int32_t)[i], b); break;
    case EX_TIME: n = fl_format_time(TY_VEC_DATA(v, int64_t)[i], b); break;
    case EX_TIMESTAMP:
      n = format_ts(TY_VEC_DATA(v, int64_t)[i], ex_type_is_nanos(t) ? 9 : 6, b);
      break;
    case EX_TIMESTAMPTZ: {
      const fl_tz_t *z = ex__zone(ctx, t);
      int64_t local = ex_type_is_nanos(t) ? ex__ns_shift(z, TY_VEC_DATA(v, int64_t)[i], true)
                                          : ex__utc_to_local(z, TY_VEC_DATA(v, int64_t)[i]);
      n = format_ts(local, ex_type_is_nanos(t) ? 9 : 6, b);
      /* timestamp(3): the stored micros shown to the millisecond (metadata
       * times are whole milliseconds). */
      if (t->precision == 3 && n > 3) n -= 3;
      b[n] = 0;
      n += (size_t)snprintf(b + n, sizeof b - n, " %s", fl_tz_name(z));
      break;
    }
    case EX_INTERVAL_DS: n = format_interval_ds(TY_VEC_DATA(v, int64_t)[i], b); break;
    case EX_INTERVAL_YM: {
      int32_t m = TY_VEC_DATA(v, int32_t)[i];
      long long am = m < 0 ? -(long long)m : m;
      n = (size_t)sprintf(b, "%s%lld-%lld", m < 0 ? "-" : "", am / 12, am % 12);
      break;
    }
    case EX_UUID: {
      size_t len;
      const uint8_t *p = ty_vec_get_bytes(v, i, &len);
      ty_uuid_format(p, b);
      n = 36;
      break;
    }
    case EX_VARCHAR:
    case EX_JSON:
    case EX_VARBINARY: {
      size_t len;
      const uint8_t *p = ty_vec_get_bytes(v, i, &len);
      fl_buf_append(out, p, len);
      return;
    }
    case EX_ARRAY: {
      fl_buf_append_str(out, "[");
      const ty_vec_t *c = v->children[0];
      for (int32_t e = v->offsets[i]; e < v->offsets[i + 1]; e++) {
        if (e > v->offsets[i]) fl_buf_append_str(out, ", ");
        if (ty_vec_is_null(c, (uint32_t)e))
          fl_buf_append_str(out, "NULL");
        else
          format_elem(ctx, t->elem, c, (uint32_t)e, out);
      }
      fl_buf_append_str(out, "]");
      return;
    }
    case EX_MAP: {
      /* As Trino's clients show maps: {k1=v1, k2=v2}. */
      fl_buf_append_str(out, "{");
      const ty_vec_t *k = v->children[0], *val = v->children[1];
      for (int32_t e = v->offsets[i]; e < v->offsets[i + 1]; e++) {
        if (e > v->offsets[i]) fl_buf_append_str(out, ", ");
        format_elem(ctx, t->key, k, (uint32_t)e, out);
        fl_buf_append_str(out, "=");
        if (ty_vec_is_null(val, (uint32_t)e))
          fl_buf_append_str(out, "NULL");
        else
          format_elem(ctx, t->elem, val, (uint32_t)e, out);
      }
      fl_buf_append_str(out, "}");
      return;
    }
    case EX_ROW: {
      /* Rows the same way, by field name: {a=1, b=x}. */
      fl_buf_append_str(out, "{");
      for (uint32_t f = 0; f < t->nfields && f < v->nchildren; f++) {
        if (f) fl_buf_append_str(out, ", ");
        if (t->fields[f].name) fl_buf_printf(out, "%s=", t->fields[f].name);
        if (ty_vec_is_null(v->children[f], i))
          fl_buf_append_str(out, "NULL");
        else
          format_elem(ctx, &t->fields[f].type, v->children[f], i, out);
      }
      fl_buf_append_str(out, "}");
      return;
    }
    default: fl_buf_append_str(out, "NULL"); return;
  }
  fl_buf_append(out, b, n);
}

/* ---- the cast loops ---- */

typedef struct cast_env {
  ex_ctx_t *ctx;
  const ex_type_t *from, *to;
  bool try_cast;
  const ty_vec_t *in;
  const ex_rows_t *rows;
  ty_vec_t *out;
  fl_err_t *err;
  uint32_t m;
} cast_env_t;

/* Fails row i: NULL under TRY_CAST, else the error naming the value. */
static int fail_value(cast_env_t *c, uint32_t i) {
  if (c->try_cast) {
    ex__set_null(c->out, i);
    return FL_OK;
  }
  fl_buf_t b;
  fl_buf_init(&b);
  ex__format_value(c->ctx, c->from, c->in, i & c->m, &b);
  int rc;
  if (c->from->kind == EX_VARCHAR)
    rc = ex__err(c->err, "Cannot cast '%.*s' to %s", (int)(b.len > 200 ? 200 : b.len),
                 (const char *)b.data, up(c->to));
  else
    rc = ex__err(c->err, "Cannot cast %s '%.*s' to %s", up(c->from), (int)b.len,
                 (const char *)b.data, up(c->to));
  fl_buf_free(&b);
  return rc;
}
/* Used as a statement inside the row loop: continues with the next row. */
#define FAIL(i)                   \
  {                               \
    int rc_ = fail_value(c, (i)); \
    if (rc_) return rc_;          \
    continue;                     \
  }

/* Source values as int64 (integers, booleans), double, or decimal. */
static int64_t get_i64(const ty_vec_t *v, uint32_t j) {
  switch (v->type->kind) {
    case TY_BOOLEAN: return v->data[j];
    case TY_INT:
    case TY_DATE: return TY_VEC_DATA(v, int32_t)[j];
    default: return TY_VEC_DATA(v, int64_t)[j];
  }
}

static void put_int(ty_vec_t *o, uint32_t i, int64_t x) {
  switch (o->type->kind) {
    case TY_BOOLEAN: o->data[i] = x != 0; break;
    case TY_INT:
    case TY_DATE: TY_VEC_DATA(o, int32_t)[i] = (int32_t)x; break;
    default: TY_VEC_DATA(o, int64_t)[i] = x;
  }
}

static int cast_int_to_int(cast_env_t *c) {
  const int64_t lo = ex_type_int_min(c->to->kind), hi = ex_type_int_max(c->to->kind);
  bool to_bool = c->to->kind == EX_BOOLEAN;
  if (c->in->type->kind == TY_INT && c->out->type->kind == TY_INT) {
    const int32_t *s = TY_VEC_DATA(c->in, int32_t);
    int32_t *o = TY_VEC_DATA(c->out, int32_t);
    EX_ROWS(c->rows, i) {
      if (!ex__valid(c->out, i)) continue;
      int32_t x = s[i & c->m];
      if (x < lo || x > hi) FAIL(i);
      o[i] = x;
    }
    return FL_OK;
  }
  EX_ROWS(c->rows, i) {
    if (!ex__valid(c->out, i)) continue;
    int64_t x = get_i64(c->in, i & c->m);
    if (!to_bool && (x < lo || x > hi)) FAIL(i);
    put_int(c->out, i, x);
  }
  return FL_OK;
}

static int cast_int_to_float(cast_env_t *c) {
  bool f32 = c->to->kind == EX_REAL;
  EX_ROWS(c->rows, i) {
    if (!ex__valid(c->out, i)) continue;
    int64_t x = get_i64(c->in, i & c->m);
    if (f32)
      TY_VEC_DATA(c->out, float)[i] = (float)x;
    else
      TY_VEC_DATA(c->out, double)[i] = (double)x;
  }
  return FL_OK;
}

static int cast_int_to_dec(cast_env_t *c) {
  const fl_i128 lim = ex__pow10[c->to->precision] - 1;
  const int s = c->to->scale;
  fl_i128 *o = TY_VEC_DATA(c->out, fl_i128);
  EX_ROWS(c->rows, i) {
    if (!ex__valid(c->out, i)) continue;
    fl_i128 r;
    if (!ex__dec_upscale((fl_i128)get_i64(c->in, i & c->m), s, &r) || ex__dec_abs(r) > lim) FAIL(i);
    o[i] = r;
  }
  return FL_OK;
}

static double get_f64(const ty_vec_t *v, uint32_t j) {
  return v->type->kind == TY_FLOAT ? (double)TY_VEC_DATA(v, float)[j] : TY_VEC_DATA(v, double)[j];
}

static int cast_float_to_int(cast_env_t *c) {
  const int64_t lo = ex_type_int_min(c->to->kind), hi = ex_type_int_max(c->to->kind);
  bool to_bool = c->to->kind == EX_BOOLEAN;
  EX_ROWS(c->rows, i) {
    if (!ex__valid(c->out, i)) continue;
    double x = get_f64(c->in, i & c->m);
    if (to_bool) {
      c->out->data[i] = x != 0;
      continue;
    }
    if (isnan(x)) FAIL(i);
    double r = round(x); /* half away from zero */
    /* 2^63 is exactly representable; anything >= it is out of range. */
    if (r < (double)lo || r >= -(double)INT64_MIN || (hi < INT64_MAX && r > (double)hi)) FAIL(i);
    put_int(c->out, i, (int64_t)r);
  }
  return FL_OK;
}

static int cast_float_to_float(cast_env_t *c) {
  bool f32 = c->to->kind == EX_REAL;
  EX_ROWS(c->rows, i) {
    double x = get_f64(c->in, i & c->m);
    if (f32)
      TY_VEC_DATA(c->out, float)[i] = (float)x;
    else
      TY_VEC_DATA(c->out, double)[i] = x;
  }
  return FL_OK;
}

static int cast_float_to_dec(cast_env_t *c) {
  fl_i128 *o = TY_VEC_DATA(c->out, fl_i128);
  EX_ROWS(c->rows, i) {
    if (!ex__valid(c->out, i)) continue;
    double x = get_f64(c->in, i & c->m);
    char buf[96];
    size_t n = 0;
    if (!isfinite(x) || !double_plain(x, buf, &n)) FAIL(i);
    if (!ty_decimal_parse(buf, n, c->to->precision, c->to->scale, true, &o[i])) FAIL(i);
  }
  return FL_OK;
}

static int cast_dec_to_int(cast_env_t *c) {
  const int64_t lo = ex_type_int_min(c->to->kind), hi = ex_type_int_max(c->to->kind);
  const int s = c->from->scale;
  bool to_bool = c->to->kind == EX_BOOLEAN;
  EX_ROWS(c->rows, i) {
    if (!ex__valid(c->out, i)) continue;
    fl_i128 x = ty_vec_get_i128(c->in, i & c->m);
    if (to_bool) {
      c->out->data[i] = x != 0;
      continue;
    }
    fl_i128 r = ex__dec_downscale(x, s);
    if (r < lo || r > hi) FAIL(i);
    put_int(c->out, i, (int64_t)r);
  }
  return FL_OK;
}

static int cast_dec_to_float(cast_env_t *c) {
  bool f32 = c->to->kind == EX_REAL;
  EX_ROWS(c->rows, i) {
    double d = ex__dec_to_double(ty_vec_get_i128(c->in, i & c->m), c->from->scale);
    if (f32)
      TY_VEC_DATA(c->out, float)[i] = (float)d;
    else
      TY_VEC_DATA(c->out, double)[i] = d;
  }
  return FL_OK;
}

static int cast_dec_to_dec(cast_env_t *c) {
  const fl_i128 lim = ex__pow10[c->to->precision] - 1;
  const int s1 = c->from->scale, s2 = c->to->scale;
  fl_i128 *o = TY_VEC_DATA(c->out, fl_i128);
  EX_ROWS(c->rows, i) {
    if (!ex__valid(c->out, i)) continue;
    fl_i128 r;
    if (!ex__dec_rescale(ty_vec_get_i128(c->in, i & c->m), s1, s2, &r) || ex__dec_abs(r) > lim)
      FAIL(i);
    o[i] = r;
  }
  return FL_OK;
}

static int cast_to_varchar(cast_env_t *c) {
  ex_sw_t w = {0};
  ex__sw_init(&w, c->out);
  fl_buf_t b;
  fl_buf_init(&b);
  EX_ROWS(c->rows, i) {
    if (!ex__valid(c->out, i)) continue;
    fl_buf_clear(&b);
    ex__format_value(c->ctx, c->from, c->in, i & c->m, &b);
    ex__sw_put(&w, i, b.data, b.len);
  }
  fl_buf_free(&b);
  return FL_OK;
}

static void trim(const uint8_t **p, size_t *n) {
  while (*n && isspace((*p)[0])) (*p)++, (*n)--;
  while (*n && isspace((*p)[*n - 1])) (*n)--;
}

static bool parse_i64(const uint8_t *p, size_t n, int64_t *out) {
  trim(&p, &n);
  size_t i = 0;
  bool neg = false;
  if (i < n && (p[i] == '+' || p[i] == '-')) neg = p[i++] == '-';
  if (i == n) return false;
  uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  for (; i < n; i++) {
    if (p[i] < '0' || p[i] > '9') return false;
    unsigned d = p[i] - '0';
    if (v > (lim - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return true;
}

/* Java's Double.parseDouble forms: decimal and exponent, NaN, Infinity. */
static bool parse_f64(const uint8_t *p, size_t n, double *out) {
  trim(&p, &n);
  char buf[128];
  if (n == 0 || n >= sizeof buf) return false;
  memcpy(buf, p, n);
  buf[n] = '\0';
  const char *s = buf + (buf[0] == '+' || buf[0] == '-');
  if (!strcmp(s, "NaN")) {
    *out = NAN;
    return true;
  }
  if (!strcmp(s, "Infinity")) {
    *out = buf[0] == '-' ? -INFINITY : INFINITY;
    return true;
  }
  if (!(isdigit((unsigned char)s[0]) || (s[0] == '.' && isdigit((unsigned char)s[1]))))
    return false;
  for (const char *q = s; *q; q++)
    if (*q == 'x' || *q == 'X') return false;
  char *e;
  *out = strtod(buf, &e);
  return *e == '\0';
}

static int cast_from_varchar(cast_env_t *c) {
  const ex_tkind_t k = c->to->kind;
  ty_vec_t *o = c->out;
  const int64_t lo = ex_type_int_min(k), hi = ex_type_int_max(k);
  ex_sw_t w = {0};
  if (o->offsets) ex__sw_init(&w, o);
  EX_ROWS(c->rows, i) {
    if (!ex__valid(o, i)) continue;
    size_t n;
    const uint8_t *p = ex__str(c->in, i & c->m, &n);
    switch (k) {
      case EX_TINYINT:
      case EX_SMALLINT:
      case EX_INTEGER:
      case EX_BIGINT: {
        int64_t x = 0;
        if (!parse_i64(p, n, &x) || x < lo || x > hi) FAIL(i);
        put_int(o, i, x);
        break;
      }
      case EX_REAL:
      case EX_DOUBLE: {
        double d = 0;
        if (!parse_f64(p, n, &d)) FAIL(i);
        if (k == EX_REAL)
          TY_VEC_DATA(o, float)[i] = (float)d;
        else
          TY_VEC_DATA(o, double)[i] = d;
        break;
      }
      case EX_DECIMAL: {
        trim(&p, &n);
        fl_i128 x;
        if (!ty_decimal_parse((const char *)p, n, c->to->precision, c->to->scale, true, &x))
          FAIL(i);
        TY_VEC_DATA(o, fl_i128)[i] = x;
        break;
      }
      case EX_BOOLEAN: {
        trim(&p, &n);
        if ((n == 4 && !strncasecmp((const char *)p, "true", 4)) ||
            (n == 1 && (*p == 't' || *p == 'T' || *p == '1')))
          o->data[i] = 1;
        else if ((n == 5 && !strncasecmp((const char *)p, "false", 5)) ||
                 (n == 1 && (*p == 'f' || *p == 'F' || *p == '0')))
          o->data[i] = 0;
        else
          FAIL(i);
        break;
      }
      case EX_DATE: {
        trim(&p, &n);
        int32_t d;
        if (!fl_parse_date((const char *)p, n, &d)) FAIL(i);
        TY_VEC_DATA(o, int32_t)[i] = d;
        break;
      }
      case EX_TIME: {
        trim(&p, &n);
        int64_t t;
        if (!fl_parse_time((const char *)p, n, &t)) FAIL(i);
        TY_VEC_DATA(o, int64_t)[i] = t;
        break;
      }
      case EX_TIMESTAMP:
      case EX_TIMESTAMPTZ: {
        trim(&p, &n);
        int64_t t;
        bool zoned;
        const fl_tz_t *z = NULL;
        const bool ns = ex_type_is_nanos(c->to);
        const int digits = ns ? 9 : 6;
        if (!fl_parse_timestamp((const char *)p, n, digits, &t, &zoned)) {
          /* "2024-01-02 03:04:05 Europe/Berlin": a zone name after a space. */
          size_t sp = n;
          while (sp > 0 && p[sp - 1] != ' ') sp--;
          fl_err_t zerr;
          if (k != EX_TIMESTAMPTZ || sp < 2 ||
              !fl_parse_timestamp((const char *)p, sp - 1, digits, &t, &zoned) || zoned ||
              fl_tz_get((const char *)p + sp, n - sp, &z, &zerr) != FL_OK)
            FAIL(i);
          t = ns ? ex__ns_shift(z, t, false) : ex__local_to_utc(z, t);
          zoned = true;
        }
        if (k == EX_TIMESTAMP && zoned) FAIL(i);
        if (k == EX_TIMESTAMPTZ && !zoned) {
          const fl_tz_t *zt = ex__zone(c->ctx, c->to);
          t = ns ? ex__ns_shift(zt, t, false) : ex__local_to_utc(zt, t);
        }
        TY_VEC_DATA(o, int64_t)[i] = t;
        break;
      }
      case EX_UUID: {
        trim(&p, &n);
        uint8_t u[16];
        if (!ty_uuid_parse((const char *)p, n, u)) FAIL(i);
        memcpy(o->data + (size_t)i * 16, u, 16);
        break;
      }
      case EX_VARCHAR:
      case EX_VARBINARY: ex__sw_put(&w, i, p, n); break;
      default: FAIL(i);
    }
  }
  return FL_OK;
}

/* date, timestamp, timestamp with time zone, time among themselves. */
static int cast_temporal(cast_env_t *c) {
  const ex_tkind_t f = c->from->kind, t = c->to->kind;
  const fl_tz_t *zf = ex__zone(c->ctx, c->from), *zt = ex__zone(c->ctx, c->to);
  EX_ROWS(c->rows, i) {
    if (!ex__valid(c->out, i)) continue;
    uint32_t j = i & c->m;
    /* Local wall-clock micros of the source (or the instant for tz). */
    int64_t local;
    if (f == EX_DATE) {
      if (__builtin_mul_overflow((int64_t)TY_VEC_DATA(c->in, int32_t)[j], FL_MICROS_PER_DAY,
                                 &local))
        FAIL(i);
    } else if (f == EX_TIMESTAMPTZ) {
      local = ex__utc_to_local(zf, TY_VEC_DATA(c->in, int64_t)[j]);
    } else {
      local = TY_VEC_DATA(c->in, int64_t)[j];
    }
    switch (t) {
      case EX_DATE: {
        int64_t d = fl_floordiv(local, FL_MICROS_PER_DAY);
        if (d < INT32_MIN || d > INT32_MAX) FAIL(i);
        TY_VEC_DATA(c->out, int32_t)[i] = (int32_t)d;
        break;
      }
      case EX_TIME: {
        int64_t days, tod;
        ex__split_day(local, &days, &tod);
        TY_VEC_DATA(c->out, int64_t)[i] = tod;
        break;
      }
      case EX_TIMESTAMP: TY_VEC_DATA(c->out, int64_t)[i] = local; break;
      default: /* timestamptz */
        TY_VEC_DATA(c->out, int64_t)
        [i] = f == EX_TIMESTAMPTZ ? TY_VEC_DATA(c->in, int64_t)[j] : ex__local_to_utc(zt, local);
    }
  }
  return FL_OK;
}

#define NANOS_PER_DAY ((int64_t)86400 * 1000000000)

/* Micros of nanos rounded half up, as Trino lowers timestamp precision. */
static int64_t ns_to_us(int64_t ns) { return fl_floordiv(ns + 500, 1000); }

/* Temporal casts where either side keeps nanoseconds (timestamp(9)). */
static int cast_temporal_ns(cast_env_t *c) {
  const ex_tkind_t f = c->from->kind, t = c->to->kind;
  const bool fns = ex_type_is_nanos(c->from), tns = ex_type_is_nanos(c->to);
  const fl_tz_t *zf = ex__zone(c->ctx, c->from), *zt = ex__zone(c->ctx, c->to);
  EX_ROWS(c->rows, i) {
    if (!ex__valid(c->out, i)) continue;
    uint32_t j = i & c->m;
    int64_t v = f == EX_DATE ? TY_VEC_DATA(c->in, int32_t)[j] : TY_VEC_DATA(c->in, int64_t)[j];
    /* A timestamp with time zone to one: the instant stays. */
    if (f == EX_TIMESTAMPTZ && t == EX_TIMESTAMPTZ) {
      int64_t r = v;
      if (fns && !tns) r = ns_to_us(v);
      if (!fns && tns && __builtin_mul_overflow(v, 1000, &r)) FAIL(i);
      TY_VEC_DATA(c->out, int64_t)[i] = r;
      continue;
    }
    /* Local wall-clock nanos of the source. */
    int64_t local;
    if (f == EX_DATE) {
      if (__builtin_mul_overflow(v, NANOS_PER_DAY, &local)) FAIL(i);
    } else if (f == EX_TIMESTAMPTZ) {
      if (fns)
        local = ex__ns_shift(zf, v, true);
      else if (__builtin_mul_overflow(ex__utc_to_local(zf, v), 1000, &local))
        FAIL(i);
    } else if (fns) {
      local = v;
    } else if (__builtin_mul_overflow(v, 1000, &local)) {
      FAIL(i);
    }
    switch (t) {
      case EX_DATE:
        TY_VEC_DATA(c->out, int32_t)[i] = (int32_t)fl_floordiv(local, NANOS_PER_DAY);
        break;
      case EX_TIME:
        TY_VEC_DATA(c->out, int64_t)[i] = fl_floormod(local, NANOS_PER_DAY) / 1000;
        break;
      case EX_TIMESTAMP: TY_VEC_DATA(c->out, int64_t)[i] = tns ? local : ns_to_us(local); break;
      default: /* timestamptz */
        TY_VEC_DATA(c->out, int64_t)
        [i] = tns ? ex__ns_shift(zt, local, false) : ex__local_to_utc(zt, ns_to_us(local));
    }
  }
  return FL_OK;
}

static int cast_copy(cast_env_t *c) {
  ex_sw_t w = {0};
  if (c->out->offsets) ex__sw_init(&w, c->out);
  size_t width = ty_value_width(c->out->type);
  EX_ROWS(c->rows, i) {
    if (!ex__valid(c->out, i)) continue;
    uint32_t j = i & c->m;
    if (c->out->offsets) {
      size_t n;
      const uint8_t *p = ty_vec_get_bytes(c->in, j, &n);
      if (c->to->kind == EX_UUID && n != 16) FAIL(i);
      ex__sw_put(&w, i, p, n);
    } else if (c->to->kind == EX_UUID) {
      size_t n;
      const uint8_t *p = ty_vec_get_bytes(c->in, j, &n);
      if (n != 16) FAIL(i);
      memcpy(c->out->data + (size_t)i * 16, p, 16);
    } else {
      memcpy(c->out->data + (size_t)i * width, c->in->data + (size_t)j * width, width);
    }
  }
  return FL_OK;
}

/* The element range of row j of an array or map vector. */
static void range_of(const ty_vec_t *v, uint32_t j, int32_t *b, int32_t *e) {
  *b = v->offsets[j];
  *e = v->offsets[j + 1];
}

/*
 * Casts the elements of the selected, present rows of an array or map
 * (child k of in, element type ft, to tt) into a vector of as many
 * elements; the elements of other rows are left NULL, so they raise no
 * errors. The caller frees *out.
 */
static int cast_children(cast_env_t *c, uint32_t k, const ex_type_t *ft, const ex_type_t *tt,
                         ty_vec_t **out) {
  const ty_vec_t *src = c->in->children[k];
  uint32_t n = src->len;
  uint32_t *sel = fl_malloc((n ? n : 1) * sizeof *sel), ns = 0;
  uint8_t *seen = fl_calloc(n ? n : 1, 1);
  EX_ROWS(c->rows, i) {
    if (!ex__valid(c->out, i)) continue;
    int32_t b, e;
    range_of(c->in, i & c->m, &b, &e);
    for (int32_t x = b; x < e; x++) seen[x] = 1;
  }
  for (uint32_t x = 0; x < n; x++)
    if (seen[x]) sel[ns++] = x;
  fl_free(seen);
  *out = ty_vec_new(ex_type_storage(tt, c->ctx->arena), n ? n : 1);
  ex_rows_t er = {.nrows = n, .sel = sel, .n = ns};
  int rc = ex_cast_eval(c->ctx, ft, tt, c->try_cast, src, &er, *out, c->err);
  fl_free(sel);
  return rc;
}

/* array(A) to array(B), map(K, V) to map(K2, V2): element by element. */
static int cast_list(cast_env_t *c) {
  const bool is_map = c->from->kind == EX_MAP;
  ty_vec_t *cast[2] = {NULL, NULL};
  int rc = cast_children(c, 0, is_map ? c->from->key : c->from->elem,
                         is_map ? c->to->key : c->to->elem, &cast[0]);
  if (!rc && is_map) rc = cast_children(c, 1, c->from->elem, c->to->elem, &cast[1]);
  if (!rc && is_map && !c->try_cast) {
    /* A map key that became NULL (TRY_CAST) is not a key. */
    EX_ROWS(c->rows, i) {
      if (!ex__valid(c->out, i)) continue;
      int32_t b, e;
      range_of(c->in, i & c->m, &b, &e);
      for (int32_t x = b; x < e; x++)
        if (ty_vec_is_null(cast[0], (uint32_t)x)) {
          rc = ex__err(c->err, "map key cannot be null");
          break;
        }
      if (rc) break;
    }
  }
  if (rc) {
    ty_vec_free(cast[0]);
    ty_vec_free(cast[1]);
    return rc;
  }
  ty_vec_t *o = c->out;
  uint32_t nch = is_map ? 2 : 1;
  if (c->try_cast) {
    /* TRY_CAST: an element that failed makes the whole value NULL, as in
     * Trino (an element that was NULL stays one). */
    EX_ROWS(c->rows, i) {
      if (!ex__valid(o, i)) continue;
      int32_t b, e;
      range_of(c->in, i & c->m, &b, &e);
      for (int32_t x = b; x < e; x++)
        for (uint32_t k = 0; k < nch; k++)
          if (ty_vec_is_null(cast[k], (uint32_t)x) &&
              !ty_vec_is_null(c->in->children[k], (uint32_t)x))
            ex__set_null(o, i);
    }
  }
  for (uint32_t k = 0; k < nch; k++) ty_vec_reset(o->children[k]);
  uint32_t next = 0;
  EX_ROWS(c->rows, i) {
    for (; next <= i; next++) o->offsets[next] = (int32_t)o->children[0]->len;
    if (ex__valid(o, i)) {
      int32_t b, e;
      range_of(c->in, i & c->m, &b, &e);
      for (int32_t x = b; x < e; x++)
        for (uint32_t k = 0; k < nch; k++) ty_vec_append_from(o->children[k], cast[k], (uint32_t)x);
    }
    o->offsets[i + 1] = (int32_t)o->children[0]->len;
    next = i + 1;
  }
  ty_vec_free(cast[0]);
  ty_vec_free(cast[1]);
  return FL_OK;
}

/* row(...) to row(...) with as many fields: field by field, by position. */
static int cast_row(cast_env_t *c) {
  ty_vec_t *o = c->out;
  for (uint32_t f = 0; f < c->to->nfields; f++) {
    int rc = ex_cast_eval(c->ctx, &c->from->fields[f].type, &c->to->fields[f].type, c->try_cast,
                          c->in->children[f], c->rows, o->children[f], c->err);
    if (rc) return rc;
  }
  if (c->try_cast) /* a field that failed makes the row NULL */
    EX_ROWS(c->rows, i) {
      if (!ex__valid(o, i)) continue;
      for (uint32_t f = 0; f < o->nchildren; f++)
        if (ty_vec_is_null(o->children[f], i) && !ty_vec_is_null(c->in->children[f], i & c->m))
          ex__set_null(o, i);
    }
  /* Rows the cast does not compute, and NULL rows, have NULL fields. */
  for (uint32_t i = 0; i < o->len; i++)
    if (!ex__valid(o, i))
      for (uint32_t f = 0; f < o->nchildren; f++) ex__set_null(o->children[f], i);
  for (uint32_t f = 0; f < o->nchildren; f++) ex__out_end(o->children[f]);
  return FL_OK;
}

typedef int (*cast_fn)(cast_env_t *);

static bool is_intlike(ex_tkind_t k) { return ex_type_is_integral(k) || k == EX_BOOLEAN; }
static bool is_float(ex_tkind_t k) { return k == EX_REAL || k == EX_DOUBLE; }
static bool is_temporal(ex_tkind_t k) {
  return k == EX_DATE || k == EX_TIMESTAMP || k == EX_TIMESTAMPTZ || k == EX_TIME;
}

static cast_fn pick(const ex_type_t *from, const ex_type_t *to);

static int cast_to_json(cast_env_t *c) {
  return ex__cast_to_json(c->ctx, c->from, c->in, c->rows, c->out, c->err);
}
static int cast_from_json(cast_env_t *c) {
  return ex__cast_from_json(c->ctx, c->to, c->try_cast, c->in, c->rows, c->out, c->err);
}

/* Whether the parts of a nested cast convert. */
static bool castable(const ex_type_t *from, const ex_type_t *to) {
  return from->kind == EX_UNKNOWN || pick(from, to) != NULL;
}

static cast_fn pick(const ex_type_t *from, const ex_type_t *to) {
  ex_tkind_t f = from->kind, t = to->kind;
  if (f == EX_ARRAY && t == EX_ARRAY)
    return from->elem && to->elem && castable(from->elem, to->elem) ? cast_list : NULL;
  if (f == EX_MAP && t == EX_MAP)
    return from->key && to->key && from->elem && to->elem && castable(from->key, to->key) &&
                   castable(from->elem, to->elem)
               ? cast_list
               : NULL;
  if (f == EX_ROW && t == EX_ROW) {
    if (from->nfields != to->nfields) return NULL;
    for (uint32_t i = 0; i < from->nfields; i++)
      if (!castable(&from->fields[i].type, &to->fields[i].type)) return NULL;
    return cast_row;
  }
  if (t == EX_JSON && f != EX_JSON) return ex__json_castable_to(from) ? cast_to_json : NULL;
  if (f == EX_JSON && t != EX_JSON) return ex__json_castable_from(to) ? cast_from_json : NULL;
  if (f == EX_MAP || f == EX_ROW || f == EX_JSON || t == EX_MAP || t == EX_ROW || t == EX_JSON)
    return f == EX_JSON && t == EX_JSON ? cast_copy : NULL;
  if (t == EX_VARCHAR && f != EX_ARRAY && f != EX_MAP && f != EX_ROW)
    return f == EX_VARCHAR || f == EX_VARBINARY ? cast_copy : cast_to_varchar;
  if (f == EX_VARCHAR)
    return t == EX_ARRAY || t == EX_INTERVAL_DS || t == EX_INTERVAL_YM ? NULL : cast_from_varchar;
  if (is_intlike(f) && is_intlike(t)) return cast_int_to_int;
  if (is_intlike(f) && is_float(t)) return cast_int_to_float;
  if (is_intlike(f) && t == EX_DECIMAL) return cast_int_to_dec;
  if (is_float(f) && is_intlike(t)) return cast_float_to_int;
  if (is_float(f) && is_float(t)) return cast_float_to_float;
  if (is_float(f) && t == EX_DECIMAL) return cast_float_to_dec;
  if (f == EX_DECIMAL && is_intlike(t)) return cast_dec_to_int;
  if (f == EX_DECIMAL && is_float(t)) return cast_dec_to_float;
  if (f == EX_DECIMAL && t == EX_DECIMAL) return cast_dec_to_dec;
  if (is_temporal(f) && is_temporal(t)) {
    if (f == EX_TIME && t != EX_TIME) return NULL;
    if (t == EX_TIME && f == EX_DATE) return NULL;
    if (ex_type_is_nanos(from) != ex_type_is_nanos(to) || (ex_type_is_nanos(from) && f != t))
      return cast_temporal_ns;
    if (f == t && f != EX_TIMESTAMPTZ) return cast_copy;
    return cast_temporal;
  }
  if ((f == EX_UUID || f == EX_VARBINARY) && (t == EX_UUID || t == EX_VARBINARY)) return cast_copy;
  if (f == t && f != EX_ARRAY) return cast_copy;
  return NULL;
}

void ex_format_value(ex_ctx_t *ctx, const ex_type_t *t, const ty_vec_t *v, uint32_t i,
                     fl_buf_t *out) {
  ex__format_value(ctx, t, v, i, out);
}

int ex_cast_check(const ex_type_t *from, const ex_type_t *to, fl_err_t *err) {
  if (from->kind == EX_UNKNOWN || pick(from, to)) return FL_OK;
  return fl_err_set(err, FL_EINVALID, "Cannot cast %s to %s", ex_type_str(from), ex_type_str(to));
}

int ex_cast_eval(ex_ctx_t *ctx, const ex_type_t *from, const ex_type_t *to, bool try_cast,
                 const ty_vec_t *in, const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  ex__out_begin(out, rows->nrows);
  if (from->kind == EX_UNKNOWN) {
    ex__out_end(out);
    return FL_OK;
  }
  cast_fn fn = pick(from, to);
  if (!fn) return ex_cast_check(from, to, err);
  ex__valid_all(out, &in, 1, rows);
  cast_env_t c = {.ctx = ctx,
                  .from = from,
                  .to = to,
                  .try_cast = try_cast,
                  .in = in,
                  .rows = rows,
                  .out = out,
                  .err = err,
                  .m = ex__m(in)};
  int rc = fn(&c);
  ex__out_end(out);
  return rc;
}
