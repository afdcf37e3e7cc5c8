/*
 * ex_date_format.c - dates and times as text and back: date_format and
 * date_parse with the MySQL-style specifiers Trino implements
 * (%Y-%m-%d %H:%i:%s and friends), format_datetime with Joda-Time
 * patterns (yyyy-MM-dd HH:mm:ss), to_iso8601, from_iso8601_timestamp,
 * from_iso8601_date.
 *
 * The format is parsed per row only when it is not a constant; a constant
 * format is validated once at call set-up, so an unsupported specifier
 * fails before any row is read. Names are English, as in Trino.
 */
#include <stdio.h>
#include <strings.h>

#include "base/time.h"
#include "exec/ex_func_int.h"

static const char *const g_wday[] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                     "Friday", "Saturday", "Sunday"};
static const char *const g_month[] = {"January",   "February", "March",    "April",
                                      "May",       "June",     "July",     "August",
                                      "September", "October",  "November", "December"};

/* Specifiers Trino rejects. */
static bool unsupported(char c) {
  return c == 'D' || c == 'U' || c == 'u' || c == 'V' || c == 'w' || c == 'X';
}

static int check_format(const uint8_t *f, size_t n, fl_err_t *err) {
  for (size_t i = 0; i + 1 < n; i++)
    if (f[i] == '%') {
      if (unsupported((char)f[i + 1]))
        return ex__err(err, "%%%c not supported in date format string", f[i + 1]);
      i++;
    }
  return FL_OK;
}

/* Appends the local wall-clock micros `t` formatted by f. */
static void format_local(int64_t t, const uint8_t *f, size_t n, fl_buf_t *b) {
  int64_t days, tod, y;
  ex__split_day(t, &days, &tod);
  unsigned mo, d;
  fl_civil_from_days(days, &y, &mo, &d);
  int64_t h = tod / 3600000000LL, mi = tod / 60000000 % 60, s = tod / 1000000 % 60,
          us = tod % 1000000;
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
        fl_buf_printf(b, "%02lld:%02lld:%02lld %s", (long long)h12, (long long)mi, (long long)s,
                      h < 12 ? "AM" : "PM");
        break;
      case 'S':
      case 's': fl_buf_printf(b, "%02lld", (long long)s); break;
      case 'T':
        fl_buf_printf(b, "%02lld:%02lld:%02lld", (long long)h, (long long)mi, (long long)s);
        break;
      case 'v':
      case 'x': {
        /* ISO week and its year (Monday first). */
        int64_t thursday = days - wd + 3, wy;
        unsigned m2, d2;
        fl_civil_from_days(thursday, &wy, &m2, &d2);
        if (c == 'v')
          fl_buf_printf(b, "%02lld",
                        (long long)((thursday - fl_days_from_civil(wy, 1, 1)) / 7 + 1));
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

/* ---- format_datetime: Joda-Time patterns ---- */

static int joda_format(int64_t t, int32_t off, const fl_tz_t *z, const uint8_t *f, size_t n,
                       fl_buf_t *b, fl_err_t *err) {
  int64_t days, tod, y;
  ex__split_day(t, &days, &tod);
  unsigned mo, d;
  fl_civil_from_days(days, &y, &mo, &d);
  int64_t h = tod / 3600000000LL, mi = tod / 60000000 % 60, s = tod / 1000000 % 60,
          us = tod % 1000000;
  int wd = (int)fl_floormod(days + 3, 7);
  int64_t thursday = days - wd + 3, wy;
  unsigned m2, d2;
  fl_civil_from_days(thursday, &wy, &m2, &d2);
  for (size_t i = 0; i < n;) {
    uint8_t c = f[i];
    if (c == '\'') {
      /* 'text' is literal; '' is a quote. */
      if (i + 1 < n && f[i + 1] == '\'') {
        fl_buf_append_u8(b, '\'');
        i += 2;
        continue;
      }
      size_t j = i + 1;
      while (j < n && f[j] != '\'') j++;
      fl_buf_append(b, f + i + 1, j - i - 1);
      i = j < n ? j + 1 : j;
      continue;
    }
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
      fl_buf_append_u8(b, c);
      i++;
      continue;
    }
    size_t cnt = 1;
    while (i + cnt < n && f[i + cnt] == c) cnt++;
    i += cnt;
    int w = (int)(cnt > 9 ? 9 : cnt);
    switch (c) {
      case 'y':
      case 'Y':
      case 'x': {
        int64_t v = c == 'x' ? wy : y;
        if (cnt == 2)
          fl_buf_printf(b, "%02lld", (long long)fl_floormod(v, 100));
        else
          fl_buf_printf(b, "%0*lld", w, (long long)v);
        break;
      }
      case 'C': fl_buf_printf(b, "%0*lld", w, (long long)fl_floordiv(y, 100)); break;
      case 'G': fl_buf_append_str(b, y > 0 ? "AD" : "BC"); break;
      case 'M':
        if (cnt >= 4)
          fl_buf_append_str(b, g_month[mo - 1]);
        else if (cnt == 3)
          fl_buf_printf(b, "%.3s", g_month[mo - 1]);
        else
          fl_buf_printf(b, "%0*u", w, mo);
        break;
      case 'd': fl_buf_printf(b, "%0*u", w, d); break;
      case 'D':
        fl_buf_printf(b, "%0*lld", w, (long long)(days - fl_days_from_civil(y, 1, 1) + 1));
        break;
      case 'w':
        fl_buf_printf(b, "%0*lld", w,
                      (long long)((thursday - fl_days_from_civil(wy, 1, 1)) / 7 + 1));
        break;
      case 'e': fl_buf_printf(b, "%0*d", w, wd + 1); break;
      case 'E':
        if (cnt >= 4)
          fl_buf_append_str(b, g_wday[wd]);
        else
          fl_buf_printf(b, "%.3s", g_wday[wd]);
        break;
      case 'a': fl_buf_append_str(b, h < 12 ? "AM" : "PM"); break;
      case 'H': fl_buf_printf(b, "%0*lld", w, (long long)h); break;
      case 'k': fl_buf_printf(b, "%0*lld", w, (long long)(h == 0 ? 24 : h)); break;
      case 'K': fl_buf_printf(b, "%0*lld", w, (long long)(h % 12)); break;
      case 'h': fl_buf_printf(b, "%0*lld", w, (long long)(h % 12 == 0 ? 12 : h % 12)); break;
      case 'm': fl_buf_printf(b, "%0*lld", w, (long long)mi); break;
      case 's': fl_buf_printf(b, "%0*lld", w, (long long)s); break;
      case 'S': {
        char frac[16];
        snprintf(frac, sizeof frac, "%06lld000", (long long)us);
        fl_buf_append(b, frac, (size_t)w);
        break;
      }
      case 'Z': {
        int32_t a = off < 0 ? -off : off;
        if (cnt >= 3)
          fl_buf_append_str(b, fl_tz_name(z));
        else if (off == 0 && cnt == 2)
          fl_buf_append_str(b, "Z");
        else
          fl_buf_printf(b, cnt == 1 ? "%c%02d%02d" : "%c%02d:%02d", off < 0 ? '-' : '+', a / 3600,
                        a / 60 % 60);
        break;
      }
      case 'z': fl_buf_append_str(b, fl_tz_name(z)); break;
      default:
        return ex__err(err, "Illegal pattern component: %.*s", (int)cnt, (const char *)f + i - cnt);
    }
  }
  return FL_OK;
}

static int k_format_datetime(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                             const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const ex_tkind_t k = call->r.args[0].kind;
  const fl_tz_t *z = k == EX_TIMESTAMPTZ ? ex__zone(ctx, &call->r.args[0]) : fl_tz_utc();
  const uint32_t m = ex__m(args[0]), mf = ex__m(args[1]);
  ex_sw_t w = {0};
  ex__sw_init(&w, out);
  fl_buf_t b;
  fl_buf_init(&b);
  int rc = FL_OK;
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    size_t n;
    const uint8_t *f = ex__str(args[1], i & mf, &n);
    int64_t t = TY_VEC_DATA(args[0], int64_t)[i & m],
            local = k == EX_TIMESTAMPTZ ? ex__utc_to_local(z, t) : t;
    fl_buf_clear(&b);
    if ((rc = joda_format(local, (int32_t)((local - t) / 1000000), z, f, n, &b, err))) break;
    ex__sw_put(&w, i, b.data, b.len);
  }
  fl_buf_free(&b);
  return rc;
}

/* ---- date_parse: MySQL specifiers back into a timestamp ---- */

static bool take_num(const uint8_t *s, size_t n, size_t *at, int maxd, int64_t *v) {
  size_t i = *at;
  int64_t x = 0;
  int nd = 0;
  while (i < n && nd < maxd && s[i] >= '0' && s[i] <= '9') x = x * 10 + (s[i++] - '0'), nd++;
  if (!nd) return false;
  *at = i;
  *v = x;
  return true;
}

static bool take_name(const uint8_t *s, size_t n, size_t *at, const char *const *names, int count,
                      bool shortform, int64_t *v) {
  for (int k = 0; k < count; k++) {
    size_t len = shortform ? 3 : strlen(names[k]);
    if (n - *at >= len && strncasecmp((const char *)s + *at, names[k], len) == 0) {
      *at += len;
      *v = k;
      return true;
    }
  }
  return false;
}

static bool mysql_parse(const uint8_t *s, size_t n, const uint8_t *f, size_t nf, int64_t *out) {
  int64_t y = 1970, mo = 1, d = 1, h = 0, mi = 0, sec = 0, us = 0, v;
  bool pm = false, half = false;
  size_t at = 0;
  for (size_t i = 0; i < nf; i++) {
    if (f[i] != '%' || i + 1 == nf) {
      if (at >= n || s[at] != f[i]) return false;
      at++;
      continue;
    }
    switch (f[++i]) {
      case 'Y':
        if (!take_num(s, n, &at, 4, &y)) return false;
        break;
      case 'y':
        if (!take_num(s, n, &at, 2, &y)) return false;
        y += y < 70 ? 2000 : 1900;
        break;
      case 'm':
      case 'c':
        if (!take_num(s, n, &at, 2, &mo)) return false;
        break;
      case 'd':
      case 'e':
        if (!take_num(s, n, &at, 2, &d)) return false;
        break;
      case 'H':
      case 'k':
        if (!take_num(s, n, &at, 2, &h)) return false;
        break;
      case 'h':
      case 'I':
      case 'l':
        if (!take_num(s, n, &at, 2, &h)) return false;
        half = true;
        break;
      case 'i':
        if (!take_num(s, n, &at, 2, &mi)) return false;
        break;
      case 's':
      case 'S':
        if (!take_num(s, n, &at, 2, &sec)) return false;
        break;
      case 'f': {
        size_t st = at;
        if (!take_num(s, n, &at, 9, &v)) return false;
        for (size_t k = at - st; k < 6; k++) v *= 10;
        for (size_t k = at - st; k > 6; k--) v /= 10;
        us = v;
        break;
      }
      case 'p':
        if (n - at < 2) return false;
        if (!strncasecmp((const char *)s + at, "PM", 2))
          pm = true;
        else if (strncasecmp((const char *)s + at, "AM", 2))
          return false;
        at += 2;
        break;
      case 'T':
        if (!take_num(s, n, &at, 2, &h) || at >= n || s[at++] != ':' ||
            !take_num(s, n, &at, 2, &mi) || at >= n || s[at++] != ':' ||
            !take_num(s, n, &at, 2, &sec))
          return false;
        break;
      case 'b':
      case 'M':
        if (!take_name(s, n, &at, g_month, 12, f[i] == 'b', &mo)) return false;
        mo++;
        break;
      case 'a':
      case 'W':
        if (!take_name(s, n, &at, g_wday, 7, f[i] == 'a', &v)) return false;
        break;
      case '%':
        if (at >= n || s[at] != '%') return false;
        at++;
        break;
      default: return false;
    }
  }
  if (at != n) return false;
  if (half) {
    if (h < 1 || h > 12) return false;
    h = h % 12 + (pm ? 12 : 0);
  }
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59) return false;
  static const unsigned ml[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (d > (int64_t)(ml[mo - 1] + (mo == 2 && leap))) return false;
  *out = fl_days_from_civil(y, (unsigned)mo, (unsigned)d) * FL_MICROS_PER_DAY +
         ((h * 60 + mi) * 60 + sec) * 1000000 + us;
  return true;
}

static int k_date_parse(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                        const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const uint32_t m = ex__m(args[0]), mf = ex__m(args[1]);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    size_t n, nf;
    const uint8_t *s = ex__str(args[0], i & m, &n), *f = ex__str(args[1], i & mf, &nf);
    int rc = check_format(f, nf, err);
    if (rc) return rc;
    if (!mysql_parse(s, n, f, nf, &TY_VEC_DATA(out, int64_t)[i]))
      return ex__err(err, "Invalid format: \"%.*s\" does not match \"%.*s\"",
                     (int)(n > 64 ? 64 : n), (const char *)s, (int)(nf > 64 ? 64 : nf),
                     (const char *)f);
  }
  return FL_OK;
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
                                (long long)(off < 0 ? -off : off) / 60,
                                (long long)(off < 0 ? -off : off) % 60);
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
      if (!fl_parse_date(p, n, &d))
        return ex__err(err, "Invalid format: \"%.*s\"", (int)(n > 64 ? 64 : n), p);
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
  ex__reg(&(ex_func_t){.name = "format_datetime",
                       .nparams = 2,
                       .params = {EX_T(TIMESTAMP), EX_T(VARCHAR)},
                       .ret = EX_T(VARCHAR),
                       .kernel = k_format_datetime});
  ex__reg(&(ex_func_t){.name = "format_datetime",
                       .nparams = 2,
                       .params = {EX_T(TIMESTAMPTZ), EX_T(VARCHAR)},
                       .ret = EX_T(VARCHAR),
                       .kernel = k_format_datetime});
  ex__reg(&(ex_func_t){.name = "date_parse",
                       .nparams = 2,
                       .params = {EX_T(VARCHAR), EX_T(VARCHAR)},
                       .ret = EX_T(TIMESTAMP),
                       .kernel = k_date_parse});
  ex__reg(&(ex_func_t){.name = "to_iso8601",
                       .nparams = 1,
                       .params = {EX_T(DATE)},
                       .ret = EX_T(VARCHAR),
                       .kernel = k_to_iso8601});
  ex__reg(&(ex_func_t){.name = "to_iso8601",
                       .nparams = 1,
                       .params = {EX_T(TIMESTAMP)},
                       .ret = EX_T(VARCHAR),
                       .kernel = k_to_iso8601});
  ex__reg(&(ex_func_t){.name = "to_iso8601",
                       .nparams = 1,
                       .params = {EX_T(TIMESTAMPTZ)},
                       .ret = EX_T(VARCHAR),
                       .kernel = k_to_iso8601});
  ex__reg(&(ex_func_t){.name = "from_iso8601_timestamp",
                       .nparams = 1,
                       .params = {EX_T(VARCHAR)},
                       .ret = EX_T(TIMESTAMPTZ),
                       .kernel = k_from_iso8601});
  ex__reg(&(ex_func_t){.name = "from_iso8601_date",
                       .nparams = 1,
                       .params = {EX_T(VARCHAR)},
                       .ret = EX_T(DATE),
                       .kernel = k_from_iso8601});
  const ex_type_t V = EX_T(VARCHAR);
  ex__reg(&(ex_func_t){.name = "date_format",
                       .nparams = 2,
                       .params = {EX_T(TIMESTAMP), V},
                       .ret = V,
                       .kernel = k_date_format,
                       .init = fmt_init});
  ex__reg(&(ex_func_t){.name = "date_format",
                       .nparams = 2,
                       .params = {EX_T(TIMESTAMPTZ), V},
                       .ret = V,
                       .kernel = k_date_format,
                       .init = fmt_init});
}
