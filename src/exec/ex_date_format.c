/*
 * ex_date_format.c - dates and times as text and back: date_format with
 * the MySQL-style specifiers Trino implements (%Y-%m-%d %H:%i:%s and
 * friends), to_iso8601, from_iso8601_timestamp, from_iso8601_date.
 *
 * The format is parsed per row only when it is not a constant; a constant
 * format is validated once at call set-up, so an unsupported specifier
 * fails before any row is read. Names are English, as in Trino.
 */
#include <stdio.h>

#include "base/time.h"
#include "exec/ex_func_int.h"

static const char *const g_wday[] = {"Monday", "Tuesday", "Wednesday", "Thursday",
                                     "Friday", "Saturday", "Sunday"};
static const char *const g_month[] = {"January", "February", "March",     "April",   "May",      "June",
                                      "July",    "August",   "September", "October", "November", "December"};

/* Specifiers Trino rejects. */
static bool unsupported(char c) { return c == 'D' || c == 'U' || c == 'u' || c == 'V' || c == 'w' || c == 'X'; }

static int check_format(const uint8_t *f, size_t n, fl_err_t *err) {
  for (size_t i = 0; i + 1 < n; i++)
    if (f[i] == '%') {
      if (unsupported((char)f[i + 1])) return ex__err(err, "%%%c not supported in date format string", f[i + 1]);
      i++;
    }
  return FL_OK;
}

/* Appends the local wall-clock micros `t` formatted by f. */
static void format_local(int64_t t, const uint8_t *f, size_t n, fl_buf_t *b) {
  int64_t days = fl_floordiv(t, FL_MICROS_PER_DAY), tod = t - days * FL_MICROS_PER_DAY, y;
  unsigned mo, d;
  fl_civil_from_days(days, &y, &mo, &d);
  int64_t h = tod / 3600000000LL, mi = tod / 60000000 % 60, s = tod / 1000000 % 60, us = tod % 1000000;
  int wd = (int)fl_floormod(days + 3, 7); /* 0 = Monday */
  int64_t h12 = h % 12 == 0 ? 12 : h % 12;
  int64_t doy = days - fl_days_from_civil(y, 1, 1) + 1;
  for (size_t i = 0; i < n; i++) {
    if (f[i] != '%' || i + 1 == n) {
      fl_buf_append_u8(b, f[i]);
      continue;
    }
    char c = (char)f[++i];
    switch (c) {
      case 'a': fl_buf_printf(b, "%.3s", g_wday[wd]); break;
      case 'b': fl_buf_printf(b, "%.3s", g_month[mo - 1]); break;
      case 'c': fl_buf_printf(b, "%u", mo); break;
      case 'd': fl_buf_printf(b, "%02u", d); break;
      case 'e': fl_buf_printf(b, "%u", d); break;
      case 'f': fl_buf_printf(b, "%06lld", (long long)us); break;
      case 'H': fl_buf_printf(b, "%02lld", (long long)h); break;
      case 'h':
      case 'I': fl_buf_printf(b, "%02lld", (long long)h12); break;
      case 'i': fl_buf_printf(b, "%02lld", (long long)mi); break;
      case 'j': fl_buf_printf(b, "%03lld", (long long)doy); break;
      case 'k': fl_buf_printf(b, "%lld", (long long)h); break;
      case 'l': fl_buf_printf(b, "%lld", (long long)h12); break;
      case 'M': fl_buf_append_str(b, g_month[mo - 1]); break;
      case 'm': fl_buf_printf(b, "%02u", mo); break;
      case 'p': fl_buf_append_str(b, h < 12 ? "AM" : "PM"); break;
      case 'r':
        fl_buf_printf(b, "%02lld:%02lld:%02lld %s", (long long)h12, (long long)mi, (long long)s, h < 12 ? "AM" : "PM");
        break;
      case 'S':
      case 's': fl_buf_printf(b, "%02lld", (long long)s); break;
      case 'T': fl_buf_printf(b, "%02lld:%02lld:%02lld", (long long)h, (long long)mi, (long long)s); break;
      case 'v':
      case 'x': {
        /* ISO week and its year (Monday first). */
        int64_t thursday = days - wd + 3, wy;
        unsigned m2, d2;
        fl_civil_from_days(thursday, &wy, &m2, &d2);
        if (c == 'v')
          fl_buf_printf(b, "%02lld", (long long)((thursday - fl_days_from_civil(wy, 1, 1)) / 7 + 1));
        else
          fl_buf_printf(b, "%04lld", (long long)wy);
        break;
      }
      case 'W': fl_buf_append_str(b, g_wday[wd]); break;
      case 'Y': fl_buf_printf(b, "%04lld", (long long)y); break;
      case 'y': fl_buf_printf(b, "%02lld", (long long)fl_floormod(y, 100)); break;
      default: fl_buf_append_u8(b, (uint8_t)c); break; /* %% and unknown letters: the letter */
    }
  }
}

static int fmt_init(ex_ctx_t *ctx, ex_call_t *call, fl_err_t *err) {
  const ty_vec_t *fv = call->consts ? call->consts[1] : NULL;
  if (!fv || ty_vec_is_null(fv, 0)) return FL_OK;
  size_t n;
  const uint8_t *f = ex__str(fv, 0, &n);
  int rc = check_format(f, n, err);
  if (rc) return rc;
  call->state = (void *)1; /* validated */
  return FL_OK;
}

static int k_date_format(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                         const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const ex_tkind_t k = call->r.args[0].kind;
  const fl_tz_t *z = ex__zone(ctx, &call->r.args[0]);
  const uint32_t m = ex__m(args[0]), mf = ex__m(args[1]);
  const bool checked = call->state != NULL;
  ex_sw_t w = {0};
  ex__sw_init(&w, out);
  fl_buf_t b;
  fl_buf_init(&b);
  int rc = FL_OK;
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    size_t n;
    const uint8_t *f = ex__str(args[1], i & mf, &n);
    if (!checked && (rc = check_format(f, n, err))) break;
    int64_t t = TY_VEC_DATA(args[0], int64_t)[i & m];
    if (k == EX_TIMESTAMPTZ) t = ex__utc_to_local(z, t);
    fl_buf_clear(&b);
    format_local(t, f, n, &b);
    ex__sw_put(&w, i, b.data, b.len);
  }
  fl_buf_free(&b);
  return rc;
}

/* to_iso8601: 2020-01-02, 2020-01-02T03:04:05.000000, ...Z or ...+01:00. */
static int k_to_iso8601(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                        const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const ex_tkind_t k = call->r.args[0].kind;
  const fl_tz_t *z = ex__zone(ctx, &call->r.args[0]);
  const uint32_t m = ex__m(args[0]);
  ex_sw_t w = {0};
  ex__sw_init(&w, out);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    char b[64];
    size_t n;
    if (k == EX_DATE) {
      n = fl_format_date(TY_VEC_DATA(args[0], int32_t)[i & m], b);
    } else {
      int64_t t = TY_VEC_DATA(args[0], int64_t)[i & m], local = t;
      if (k == EX_TIMESTAMPTZ) local = ex__utc_to_local(z, t);
      n = fl_format_timestamp(local, 6, false, b);
      if (k == EX_TIMESTAMPTZ) {
        int64_t off = (local - t) / 60000000;
        if (off == 0)
          b[n++] = 'Z';
        else
          n += (size_t)snprintf(b + n, sizeof b - n, "%c%02lld:%02lld", off < 0 ? '-' : '+',
                                (long long)(off < 0 ? -off : off) / 60, (long long)(off < 0 ? -off : off) % 60);
      }
    }
    ex__sw_put(&w, i, b, n);
  }
  return FL_OK;
}

/* from_iso8601_timestamp / from_iso8601_date: ISO text with 'T'; a
 * timestamp without an offset is local time in the session zone. */
static int k_from_iso8601(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                          const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const bool date = call->r.ret.kind == EX_DATE;
  const uint32_t m = ex__m(args[0]);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    size_t n;
    const char *p = (const char *)ex__str(args[0], i & m, &n);
    if (date) {
      int32_t d;
      if (!fl_parse_date(p, n, &d)) return ex__err(err, "Invalid format: \"%.*s\"", (int)(n > 64 ? 64 : n), p);
      TY_VEC_DATA(out, int32_t)[i] = d;
      continue;
    }
    int64_t t;
    bool zoned;
    bool has_t = memchr(p, 'T', n) != NULL || n == 10;
    if (!has_t || !fl_parse_timestamp(p, n, 6, &t, &zoned))
      return ex__err(err, "Invalid format: \"%.*s\"", (int)(n > 64 ? 64 : n), p);
    TY_VEC_DATA(out, int64_t)[i] = zoned ? t : ex__local_to_utc(ex__zone(ctx, &call->r.ret), t);
  }
  return FL_OK;
}

void ex__reg_date_format(void) {
  ex__reg(&(ex_func_t){.name = "to_iso8601", .nparams = 1, .params = {EX_T(DATE)}, .ret = EX_T(VARCHAR),
                       .kernel = k_to_iso8601});
  ex__reg(&(ex_func_t){.name = "to_iso8601", .nparams = 1, .params = {EX_T(TIMESTAMP)}, .ret = EX_T(VARCHAR),
                       .kernel = k_to_iso8601});
  ex__reg(&(ex_func_t){.name = "to_iso8601", .nparams = 1, .params = {EX_T(TIMESTAMPTZ)}, .ret = EX_T(VARCHAR),
                       .kernel = k_to_iso8601});
  ex__reg(&(ex_func_t){.name = "from_iso8601_timestamp", .nparams = 1, .params = {EX_T(VARCHAR)},
                       .ret = EX_T(TIMESTAMPTZ), .kernel = k_from_iso8601});
  ex__reg(&(ex_func_t){.name = "from_iso8601_date", .nparams = 1, .params = {EX_T(VARCHAR)}, .ret = EX_T(DATE),
                       .kernel = k_from_iso8601});
  const ex_type_t V = EX_T(VARCHAR);
  ex__reg(&(ex_func_t){.name = "date_format", .nparams = 2, .params = {EX_T(TIMESTAMP), V}, .ret = V,
                       .kernel = k_date_format, .init = fmt_init});
  ex__reg(&(ex_func_t){.name = "date_format", .nparams = 2, .params = {EX_T(TIMESTAMPTZ), V}, .ret = V,
                       .kernel = k_date_format, .init = fmt_init});
}
