/*
 * ex_datetime.c - Trino's date and time functions and interval
 * arithmetic: current_date, now/current_timestamp, localtimestamp,
 * current_timezone, date_trunc, the field extractors (year ... second,
 * day_of_week, day_of_year, quarter, week, year_of_week, millisecond,
 * timezone_hour/minute), date_add, date_diff, from_unixtime, to_unixtime,
 * at_timezone (AT TIME ZONE), with_timezone, last_day_of_month, and
 * date/timestamp +- interval, timestamp - timestamp.
 *
 * Every computation works on local wall-clock micros: a date is its
 * midnight, a timestamp is itself, a timestamp with time zone is its
 * instant shifted into its zone (the type's, else the session's) and back
 * afterwards through the IANA rules (base/tz.h). So date_add('day', 1, x)
 * across a DST change keeps the wall-clock time, while adding
 * INTERVAL '24' HOUR adds an absolute 24 hours, as in Trino. Months add
 * with the day clamped to the month's end (Jan 31 + 1 month = Feb 28/29).
 * "now" is the statement's start time from ex_ctx, the same for all rows.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <strings.h>

#include "base/time.h"
#include "exec/ex_func_int.h"

#define US_SEC 1000000LL
#define US_MIN (60 * US_SEC)
#define US_HOUR (60 * US_MIN)
#define US_DAY FL_MICROS_PER_DAY

enum {
  U_MICROSECOND,
  U_MILLISECOND,
  U_SECOND,
  U_MINUTE,
  U_HOUR,
  U_DAY,
  U_WEEK,
  U_MONTH,
  U_QUARTER,
  U_YEAR,
  U_BAD
};
static const char *const g_units[] = {"microsecond", "millisecond", "second", "minute",  "hour",
                                      "day",         "week",        "month",  "quarter", "year"};
static const int64_t g_unit_us[] = {1, 1000, US_SEC, US_MIN, US_HOUR, US_DAY, 7 * US_DAY};

static int parse_unit(const ty_vec_t *v, uint32_t j, int *unit, fl_err_t *err) {
  size_t n;
  const uint8_t *p = ex__str(v, j, &n);
  for (int u = 0; u < U_BAD; u++) {
    size_t un = strlen(g_units[u]);
    if ((n == un || (n == un + 1 && (p[un] == 's' || p[un] == 'S'))) &&
        strncasecmp((const char *)p, g_units[u], un) == 0) {
      *unit = u;
      return FL_OK;
    }
  }
  return ex__err(err, "'%.*s' is not a valid time unit", (int)(n > 40 ? 40 : n), (const char *)p);
}

/* ---- local time of a value and back ---- */

#define DATE_LIMIT EX_DATE_LIMIT

static inline int64_t to_local(ex_tkind_t k, const ty_vec_t *v, uint32_t j, const fl_tz_t *z) {
  switch (k) {
    case EX_DATE: {
      /* Clamped so that no date overflows; kernels reject those with date_guard. */
      int64_t d = TY_VEC_DATA(v, int32_t)[j];
      return (d > DATE_LIMIT ? DATE_LIMIT : d < -DATE_LIMIT ? -DATE_LIMIT : d) * US_DAY;
    }
    case EX_TIMESTAMPTZ: return ex__utc_to_local(z, TY_VEC_DATA(v, int64_t)[j]);
    default: return TY_VEC_DATA(v, int64_t)[j];
  }
}

static inline void from_local(ex_tkind_t k, ty_vec_t *o, uint32_t i, int64_t local,
                              const fl_tz_t *z) {
  switch (k) {
    case EX_DATE: TY_VEC_DATA(o, int32_t)[i] = (int32_t)fl_floordiv(local, US_DAY); break;
    case EX_TIMESTAMPTZ: TY_VEC_DATA(o, int64_t)[i] = ex__local_to_utc(z, local); break;
    default: TY_VEC_DATA(o, int64_t)[i] = local;
  }
}

int ex__temporal_guard(ex_tkind_t k, const ty_vec_t *v, uint32_t j, fl_err_t *err) {
  if (k == EX_DATE) {
    int32_t d = TY_VEC_DATA(v, int32_t)[j];
    if (d > EX_DATE_LIMIT || d < -EX_DATE_LIMIT)
      return ex__err(err, "Date out of range: %d days from 1970-01-01", d);
  } else if (k == EX_TIMESTAMP || k == EX_TIMESTAMPTZ) {
    int64_t t = TY_VEC_DATA(v, int64_t)[j];
    if (t >= EX_TS_LIMIT || t <= -EX_TS_LIMIT)
      return ex__err(err, "Timestamp out of range: %lld microseconds from 1970-01-01",
                     (long long)t);
  }
  return FL_OK;
}
#define date_guard ex__temporal_guard

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
static unsigned month_len(int64_t y, unsigned m) {
  static const unsigned d[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return d[m - 1] + (m == 2 && is_leap(y));
}

/* local + months, the day clamped to the target month's length. */
static bool add_months(int64_t local, int64_t months, int64_t *out) {
  int64_t days, tod, y;
  ex__split_day(local, &days, &tod);
  unsigned m, d;
  fl_civil_from_days(days, &y, &m, &d);
  if (months > 12LL * 300000 || months < -12LL * 300000) return false;
  int64_t total = y * 12 + (m - 1) + months;
  int64_t ny = fl_floordiv(total, 12);
  unsigned nm = (unsigned)(total - ny * 12) + 1;
  unsigned nd = d > month_len(ny, nm) ? month_len(ny, nm) : d;
  int64_t nd_days = fl_days_from_civil(ny, nm, nd);
  if (nd_days > EX_DATE_LIMIT || nd_days < -EX_DATE_LIMIT) return false;
  *out = nd_days * US_DAY + tod;
  return true;
}

/* ISO-8601 week number and its year for a day number. */
static void iso_week(int64_t days, int64_t *week, int64_t *wyear) {
  int64_t dow = fl_floormod(days + 3, 7); /* 0 = Monday */
  int64_t thursday = days - dow + 3;
  int64_t y;
  unsigned m, d;
  fl_civil_from_days(thursday, &y, &m, &d);
  int64_t jan1 = fl_days_from_civil(y, 1, 1);
  *week = (thursday - jan1) / 7 + 1;
  *wyear = y;
}

/* ---- date_trunc ---- */

static int64_t trunc_local(int64_t local, int unit) {
  if (unit <= U_DAY) {
    int64_t r = local % g_unit_us[unit];
    return local - (r < 0 ? r + g_unit_us[unit] : r);
  }
  int64_t days = fl_floordiv(local, US_DAY), y;
  unsigned m, d;
  if (unit == U_WEEK) return (days - fl_floormod(days + 3, 7)) * US_DAY;
  fl_civil_from_days(days, &y, &m, &d);
  if (unit == U_MONTH) return fl_days_from_civil(y, m, 1) * US_DAY;
  if (unit == U_QUARTER) return fl_days_from_civil(y, (m - 1) / 3 * 3 + 1, 1) * US_DAY;
  return fl_days_from_civil(y, 1, 1) * US_DAY;
}

typedef struct unit_state {
  int unit; /* U_BAD: parse per row */
  const fl_tz_t *zone;
} unit_state_t;

static int unit_init(ex_ctx_t *ctx, ex_call_t *call, fl_err_t *err) {
  unit_state_t *st = fl_arena_zalloc(ctx->arena, sizeof *st);
  st->unit = U_BAD;
  call->state = st;
  const ty_vec_t *uv = call->consts ? call->consts[0] : NULL;
  if (uv && !ty_vec_is_null(uv, 0)) return parse_unit(uv, 0, &st->unit, err);
  return FL_OK;
}

static int check_date_unit(int unit, ex_tkind_t k, fl_err_t *err) {
  if (k == EX_DATE && unit < U_DAY)
    return ex__err(err, "'%s' is not a valid DATE field", g_units[unit]);
  return FL_OK;
}

static int k_date_trunc(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                        const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  unit_state_t *st = call->state;
  const ex_tkind_t k = call->r.args[1].kind;
  const fl_tz_t *z = ex__zone(ctx, &call->r.args[1]);
  const uint32_t mu = ex__m(args[0]), m = ex__m(args[1]);
  int unit = st->unit;
  if (unit != U_BAD && check_date_unit(unit, k, err)) return err->code;
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    if (st->unit == U_BAD &&
        (parse_unit(args[0], i & mu, &unit, err) || check_date_unit(unit, k, err)))
      return err->code;
    if (date_guard(k, args[1], i & m, err)) return err->code;
    int64_t local = to_local(k, args[1], i & m, z);
    from_local(k, out, i, trunc_local(local, unit), z);
  }
  return FL_OK;
}

/* ---- date_add ---- */

static int add_units(int64_t local, int unit, int64_t n, int64_t *out) {
  if (unit >= U_MONTH) {
    int64_t mult = unit == U_MONTH ? 1 : unit == U_QUARTER ? 3 : 12, months;
    if (__builtin_mul_overflow(n, mult, &months) || !add_months(local, months, out)) return -1;
    return 0;
  }
  int64_t d;
  if (__builtin_mul_overflow(n, g_unit_us[unit], &d) || __builtin_add_overflow(local, d, out))
    return -1;
  return 0;
}

static int k_date_add(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                      const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  unit_state_t *st = call->state;
  const ex_tkind_t k = call->r.args[2].kind;
  const fl_tz_t *z = ex__zone(ctx, &call->r.args[2]);
  const uint32_t mu = ex__m(args[0]), mn = ex__m(args[1]), m = ex__m(args[2]);
  const int64_t *nv = TY_VEC_DATA(args[1], int64_t);
  int unit = st->unit;
  if (unit != U_BAD && check_date_unit(unit, k, err)) return err->code;
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    if (st->unit == U_BAD &&
        (parse_unit(args[0], i & mu, &unit, err) || check_date_unit(unit, k, err)))
      return err->code;
    int64_t n = nv[i & mn], r;
    if (k == EX_TIMESTAMPTZ && unit < U_DAY) {
      /* Sub-day units add absolute time to the instant. */
      int64_t d;
      if (__builtin_mul_overflow(n, g_unit_us[unit], &d) ||
          __builtin_add_overflow(TY_VEC_DATA(args[2], int64_t)[i & m], d, &r))
        return ex__err(err, "date_add overflow: %lld %s", (long long)n, g_units[unit]);
      TY_VEC_DATA(out, int64_t)[i] = r;
      continue;
    }
    if (date_guard(k, args[2], i & m, err)) return err->code;
    if (add_units(to_local(k, args[2], i & m, z), unit, n, &r))
      return ex__err(err, "date_add overflow: %lld %s", (long long)n, g_units[unit]);
    from_local(k, out, i, r, z);
  }
  return FL_OK;
}

/* ---- date_diff ---- */

/*
 * Whole months from a to b (local micros) as Joda-Time counts them, which
 * Trino uses: a month is complete when a plus that many months (the day
 * clamped to the month's end) does not pass b; negative spans mirror.
 */
static int64_t months_between(int64_t a, int64_t b) {
  if (b < a) return -months_between(b, a);
  int64_t da = fl_floordiv(a, US_DAY), db = fl_floordiv(b, US_DAY), ya, yb, t;
  unsigned ma, mb, xa, xb;
  fl_civil_from_days(da, &ya, &ma, &xa);
  fl_civil_from_days(db, &yb, &mb, &xb);
  int64_t months = (yb * 12 + mb) - (ya * 12 + ma);
  add_months(a, months, &t);
  if (months > 0 && t > b) months--;
  return months;
}

/* Whole years: the year difference, less one when b's position within its
 * year is before a's (Joda's year field has no month-end rule). */
static int64_t years_between(int64_t a, int64_t b) {
  if (b < a) return -years_between(b, a);
  int64_t ya, yb;
  unsigned m, d;
  fl_civil_from_days(fl_floordiv(a, US_DAY), &ya, &m, &d);
  fl_civil_from_days(fl_floordiv(b, US_DAY), &yb, &m, &d);
  int64_t ra = a - fl_days_from_civil(ya, 1, 1) * US_DAY,
          rb = b - fl_days_from_civil(yb, 1, 1) * US_DAY;
  return yb - ya - (rb < ra);
}

static int k_date_diff(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                       const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  unit_state_t *st = call->state;
  const ex_tkind_t k = call->r.args[1].kind;
  const fl_tz_t *z = ex__zone(ctx, &call->r.args[1]);
  const uint32_t mu = ex__m(args[0]), ma = ex__m(args[1]), mb = ex__m(args[2]);
  int64_t *o = TY_VEC_DATA(out, int64_t);
  int unit = st->unit;
  if (unit != U_BAD && check_date_unit(unit, k, err)) return err->code;
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    if (st->unit == U_BAD &&
        (parse_unit(args[0], i & mu, &unit, err) || check_date_unit(unit, k, err)))
      return err->code;
    int64_t a, b;
    if (k == EX_TIMESTAMPTZ && unit < U_DAY) {
      a = TY_VEC_DATA(args[1], int64_t)[i & ma];
      b = TY_VEC_DATA(args[2], int64_t)[i & mb];
    } else {
      if (date_guard(k, args[1], i & ma, err) || date_guard(k, args[2], i & mb, err))
        return err->code;
      a = to_local(k, args[1], i & ma, z);
      b = to_local(k, args[2], i & mb, z);
    }
    if (unit >= U_MONTH) {
      o[i] = unit == U_YEAR    ? years_between(a, b)
             : unit == U_MONTH ? months_between(a, b)
                               : months_between(a, b) / 3;
    } else {
      int64_t d;
      if (__builtin_sub_overflow(b, a, &d)) return ex__err(err, "date_diff overflow");
      o[i] = d / g_unit_us[unit];
    }
  }
  return FL_OK;
}

/* ---- field extraction ---- */

enum {
  F_YEAR,
  F_QUARTER,
  F_MONTH,
  F_WEEK,
  F_DAY,
  F_DOW,
  F_DOY,
  F_HOUR,
  F_MINUTE,
  F_SECOND,
  F_MILLISECOND,
  F_YOW,
  F_TZ_HOUR,
  F_TZ_MINUTE
};

static int k_extract(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                     const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const int f = call->r.fn->op;
  const ex_tkind_t k = call->r.args[0].kind;
  const fl_tz_t *z = ex__zone(ctx, &call->r.args[0]);
  const uint32_t m = ex__m(args[0]);
  int64_t *o = TY_VEC_DATA(out, int64_t);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    int64_t local =
        k == EX_TIME ? TY_VEC_DATA(args[0], int64_t)[i & m] : to_local(k, args[0], i & m, z);
    int64_t days, tod, y, r = 0, w;
    ex__split_day(local, &days, &tod);
    if (k == EX_DATE) days = TY_VEC_DATA(args[0], int32_t)[i & m], tod = 0; /* exact for any date */
    unsigned mo, d;
    switch (f) {
      case F_HOUR: r = tod / US_HOUR; break;
      case F_MINUTE: r = tod / US_MIN % 60; break;
      case F_SECOND: r = tod / US_SEC % 60; break;
      case F_MILLISECOND: r = tod / 1000 % 1000; break;
      case F_DOW: r = fl_floormod(days + 3, 7) + 1; break;
      case F_WEEK: iso_week(days, &r, &w); break;
      case F_YOW: iso_week(days, &w, &r); break;
      case F_TZ_HOUR:
      case F_TZ_MINUTE: {
        int64_t off = (local - TY_VEC_DATA(args[0], int64_t)[i & m]) / US_MIN;
        r = f == F_TZ_HOUR ? off / 60 : off % 60;
        break;
      }
      default:
        fl_civil_from_days(days, &y, &mo, &d);
        r = f == F_YEAR      ? y
            : f == F_QUARTER ? (mo - 1) / 3 + 1
            : f == F_MONTH   ? mo
            : f == F_DAY     ? d
                             : days - fl_days_from_civil(y, 1, 1) + 1;
    }
    o[i] = r;
  }
  return FL_OK;
}

static int k_last_day(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                      const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const ex_tkind_t k = call->r.args[0].kind;
  const fl_tz_t *z = ex__zone(ctx, &call->r.args[0]);
  const uint32_t m = ex__m(args[0]);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    int64_t days = k == EX_DATE ? TY_VEC_DATA(args[0], int32_t)[i & m]
                                : fl_floordiv(to_local(k, args[0], i & m, z), US_DAY),
            y;
    unsigned mo, d;
    fl_civil_from_days(days, &y, &mo, &d);
    TY_VEC_DATA(out, int32_t)[i] = (int32_t)fl_days_from_civil(y, mo, month_len(y, mo));
  }
  return FL_OK;
}

/* ---- now and friends ---- */

enum { N_DATE, N_TIMESTAMPTZ, N_LOCALTS, N_ZONE };
static int k_now(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args, const ex_rows_t *rows,
                 ty_vec_t *out, fl_err_t *err) {
  const int op = call->r.fn->op;
  const int64_t local = ex__utc_to_local(ctx->zone, ctx->now_us);
  ex_sw_t w = {0};
  if (out->offsets) ex__sw_init(&w, out);
  const char *zn = fl_tz_name(ctx->zone);
  EX_ROWS(rows, i) {
    switch (op) {
      case N_DATE: TY_VEC_DATA(out, int32_t)[i] = (int32_t)fl_floordiv(local, US_DAY); break;
      case N_TIMESTAMPTZ: TY_VEC_DATA(out, int64_t)[i] = ctx->now_us; break;
      case N_LOCALTS: TY_VEC_DATA(out, int64_t)[i] = local; break;
      default: ex__sw_put(&w, i, zn, strlen(zn));
    }
  }
  return FL_OK;
}

/* Flink's PROCTIME(): the wall clock when the row is processed (a
 * processing-time attribute), not the statement's start as now(). */
static int k_proctime(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                      const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx, (void)call, (void)args, (void)err;
  const int64_t t = fl_now_micros();
  EX_ROWS(rows, i) { TY_VEC_DATA(out, int64_t)[i] = t; }
  return FL_OK;
}

/* ---- unix time ---- */

static int k_from_unixtime(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                           const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const uint32_t m = ex__m(args[0]);
  const double *a = TY_VEC_DATA(args[0], double);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    double s = a[i & m];
    /* Trino keeps milliseconds: round the seconds to the nearest milli. */
    double us = round(s * 1000.0) * 1000.0;
    if (!isfinite(us) || fabs(us) > 9.2e18)
      return ex__err(err, "Value out of range for from_unixtime: %g", s);
    TY_VEC_DATA(out, int64_t)[i] = (int64_t)us;
  }
  return FL_OK;
}

/* Flink's TO_TIMESTAMP_LTZ(epoch, precision): the epoch counts seconds
 * (precision 0), milliseconds (3), microseconds (6) or nanoseconds (9;
 * floe keeps microseconds). */
static int k_to_timestamp_ltz(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                              const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx;
  const uint32_t m = ex__m(args[0]);
  const int64_t *a = TY_VEC_DATA(args[0], int64_t);
  const uint32_t mp = call->r.nargs > 1 ? ex__m(args[1]) : 0;
  const int32_t *p = call->r.nargs > 1 ? TY_VEC_DATA(args[1], int32_t) : NULL;
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    int32_t prec = p ? p[i & mp] : 3;
    int64_t v = a[i & m], us;
    switch (prec) {
      case 0:
        if (__builtin_mul_overflow(v, (int64_t)1000000, &us))
          return ex__err(err, "Value out of range for to_timestamp_ltz: %" PRId64, v);
        break;
      case 3:
        if (__builtin_mul_overflow(v, (int64_t)1000, &us))
          return ex__err(err, "Value out of range for to_timestamp_ltz: %" PRId64, v);
        break;
      case 6: us = v; break;
      case 9: us = v >= 0 ? v / 1000 : -((-(v + 1)) / 1000) - 1; break;
      default:
        return ex__err(err, "to_timestamp_ltz: precision must be 0, 3, 6 or 9, not %d", (int)prec);
    }
    TY_VEC_DATA(out, int64_t)[i] = us;
  }
  return FL_OK;
}

static int k_to_unixtime(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                         const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const uint32_t m = ex__m(args[0]);
  const int64_t *a = TY_VEC_DATA(args[0], int64_t);
  EX_ROWS(rows, i) TY_VEC_DATA(out, double)[i] = (double)a[i & m] / 1e6;
  return FL_OK;
}

/* ---- time zones ---- */

typedef struct zone_state {
  const fl_tz_t *zone; /* constant zone argument, or NULL */
} zone_state_t;

static int zone_of(const ty_vec_t *v, uint32_t j, const fl_tz_t **z, fl_err_t *err) {
  size_t n;
  const uint8_t *p = ex__str(v, j, &n);
  fl_err_t e;
  if (fl_tz_get((const char *)p, n, z, &e) != FL_OK)
    return ex__err(err, "Time zone not supported: %.*s", (int)(n > 64 ? 64 : n), (const char *)p);
  return FL_OK;
}

static int zone_init(ex_ctx_t *ctx, ex_call_t *call, fl_err_t *err) {
  zone_state_t *st = fl_arena_zalloc(ctx->arena, sizeof *st);
  call->state = st;
  const ty_vec_t *zv = call->consts ? call->consts[1] : NULL;
  if (!zv || ty_vec_is_null(zv, 0)) return FL_OK;
  int rc = zone_of(zv, 0, &st->zone, err);
  if (rc) return rc;
  /* AT TIME ZONE with a constant zone: the result shows in that zone. */
  if (call->r.ret.kind == EX_TIMESTAMPTZ) call->r.ret.zone = st->zone;
  return FL_OK;
}

enum { Z_AT, Z_WITH };
static int k_zone(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                  const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  zone_state_t *st = call->state;
  const int op = call->r.fn->op;
  const uint32_t m = ex__m(args[0]), mz = ex__m(args[1]);
  const int64_t *a = TY_VEC_DATA(args[0], int64_t);
  int64_t *o = TY_VEC_DATA(out, int64_t);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    const fl_tz_t *z = st->zone;
    if (!z && zone_of(args[1], i & mz, &z, err)) return err->code;
    /* at_timezone keeps the instant (only the display zone changes);
     * with_timezone reads the timestamp as wall-clock time in z. */
    o[i] = op == Z_AT ? a[i & m] : ex__local_to_utc(z, a[i & m]);
  }
  return FL_OK;
}

/* ---- interval arithmetic ---- */

enum {
  I_TS_PLUS_DS,
  I_TS_PLUS_YM,
  I_DS_PLUS_TS,
  I_YM_PLUS_TS,
  I_TS_MINUS_DS,
  I_TS_MINUS_YM,
  I_TS_MINUS_TS
};

static int k_interval(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                      const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  int op = call->r.fn->op;
  const ty_vec_t *tv = args[0], *iv = args[1];
  const ex_type_t *tt = &call->r.args[0];
  if (op == I_DS_PLUS_TS || op == I_YM_PLUS_TS) {
    tv = args[1], iv = args[0], tt = &call->r.args[1];
    op = op == I_DS_PLUS_TS ? I_TS_PLUS_DS : I_TS_PLUS_YM;
  }
  const ex_tkind_t k = tt->kind;
  const fl_tz_t *z = ex__zone(ctx, tt);
  const uint32_t mt = ex__m(tv), mi = ex__m(iv);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    int64_t r;
    switch (op) {
      case I_TS_PLUS_DS:
      case I_TS_MINUS_DS: {
        int64_t d = TY_VEC_DATA(iv, int64_t)[i & mi];
        if (op == I_TS_MINUS_DS) d = -d;
        if (k == EX_TIMESTAMPTZ) {
          if (__builtin_add_overflow(TY_VEC_DATA(tv, int64_t)[i & mt], d, &r)) goto overflow;
          TY_VEC_DATA(out, int64_t)[i] = r;
          continue;
        }
        if (date_guard(k, tv, i & mt, err)) return err->code;
        if (__builtin_add_overflow(to_local(k, tv, i & mt, z), d, &r)) goto overflow;
        from_local(k, out, i, r, z);
        break;
      }
      case I_TS_PLUS_YM:
      case I_TS_MINUS_YM: {
        int64_t mo = TY_VEC_DATA(iv, int32_t)[i & mi];
        if (op == I_TS_MINUS_YM) mo = -mo;
        if (date_guard(k, tv, i & mt, err)) return err->code;
        if (!add_months(to_local(k, tv, i & mt, z), mo, &r)) goto overflow;
        from_local(k, out, i, r, z);
        break;
      }
      default: { /* timestamp - timestamp */
        int64_t a = TY_VEC_DATA(args[0], int64_t)[i & mt],
                b = TY_VEC_DATA(args[1], int64_t)[i & mi];
        if (k == EX_DATE) {
          a = (int64_t)TY_VEC_DATA(args[0], int32_t)[i & mt] * US_DAY;
          b = (int64_t)TY_VEC_DATA(args[1], int32_t)[i & mi] * US_DAY;
        }
        if (__builtin_sub_overflow(a, b, &r)) goto overflow;
        TY_VEC_DATA(out, int64_t)[i] = r;
      }
    }
    continue;
  overflow:
    return ex__err(err, "%s arithmetic overflow", ex_tkind_name(k));
  }
  return FL_OK;
}

/* interval +- interval, -interval, interval * bigint. */
enum { IV_ADD, IV_SUB, IV_NEG, IV_MUL, IV_MUL_REV };
static int k_interval_math(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                           const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const int op = call->r.fn->op;
  const bool ym = call->r.ret.kind == EX_INTERVAL_YM;
  const ty_vec_t *iv = op == IV_MUL_REV ? args[1] : args[0];
  const ty_vec_t *ov = op == IV_NEG ? NULL : op == IV_MUL_REV ? args[0] : args[1];
  const uint32_t m0 = ex__m(iv), m1 = ov ? ex__m(ov) : 0;
  const int64_t lo = ym ? INT32_MIN : INT64_MIN, hi = ym ? INT32_MAX : INT64_MAX;
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    int64_t a = ym ? TY_VEC_DATA(iv, int32_t)[i & m0] : TY_VEC_DATA(iv, int64_t)[i & m0];
    int64_t b = 0, r;
    if (ov) {
      if (op == IV_MUL || op == IV_MUL_REV)
        b = TY_VEC_DATA(ov, int64_t)[i & m1];
      else
        b = ym ? TY_VEC_DATA(ov, int32_t)[i & m1] : TY_VEC_DATA(ov, int64_t)[i & m1];
    }
    bool bad = false;
    switch (op) {
      case IV_ADD: bad = __builtin_add_overflow(a, b, &r); break;
      case IV_SUB: bad = __builtin_sub_overflow(a, b, &r); break;
      case IV_NEG: bad = __builtin_sub_overflow((int64_t)0, a, &r); break;
      default: bad = __builtin_mul_overflow(a, b, &r);
    }
    if (bad || r < lo || r > hi)
      return ex__err(err, "%s overflow", ex_tkind_name(call->r.ret.kind));
    if (ym)
      TY_VEC_DATA(out, int32_t)[i] = (int32_t)r;
    else
      TY_VEC_DATA(out, int64_t)[i] = r;
  }
  return FL_OK;
}

void ex__reg_datetime(void) {
  const ex_type_t V = EX_T(VARCHAR), B = EX_T(BIGINT), D = EX_T(DATE), TS = EX_T(TIMESTAMP),
                  TZ = EX_T(TIMESTAMPTZ), DS = EX_T(INTERVAL_DS), YM = EX_T(INTERVAL_YM);
  const ex_type_t temporal[] = {D, TS, TZ};
  for (int t = 0; t < 3; t++) {
    ex_type_t x = temporal[t];
    ex__reg(&(ex_func_t){.name = "date_trunc",
                         .nparams = 2,
                         .params = {V, x},
                         .ret = x,
                         .kernel = k_date_trunc,
                         .init = unit_init});
    ex__reg(&(ex_func_t){.name = "date_add",
                         .nparams = 3,
                         .params = {V, B, x},
                         .ret = x,
                         .kernel = k_date_add,
                         .init = unit_init});
    ex__reg(&(ex_func_t){.name = "date_diff",
                         .nparams = 3,
                         .params = {V, x, x},
                         .ret = B,
                         .kernel = k_date_diff,
                         .init = unit_init});
    ex__reg(&(ex_func_t){
        .name = "last_day_of_month", .nparams = 1, .params = {x}, .ret = D, .kernel = k_last_day});
  }
  static const struct {
    const char *name;
    int f;
    bool date_ok;
  } fields[] = {{"year", F_YEAR, 1},
                {"quarter", F_QUARTER, 1},
                {"month", F_MONTH, 1},
                {"week", F_WEEK, 1},
                {"week_of_year", F_WEEK, 1},
                {"day", F_DAY, 1},
                {"day_of_month", F_DAY, 1},
                {"day_of_week", F_DOW, 1},
                {"dow", F_DOW, 1},
                {"day_of_year", F_DOY, 1},
                {"doy", F_DOY, 1},
                {"year_of_week", F_YOW, 1},
                {"yow", F_YOW, 1},
                {"hour", F_HOUR, 0},
                {"minute", F_MINUTE, 0},
                {"second", F_SECOND, 0},
                {"millisecond", F_MILLISECOND, 0}};
  for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
    for (int t = fields[f].date_ok ? 0 : 1; t < 3; t++)
      ex__reg(&(ex_func_t){.name = fields[f].name,
                           .nparams = 1,
                           .params = {temporal[t]},
                           .ret = B,
                           .kernel = k_extract,
                           .op = fields[f].f});
    if (!fields[f].date_ok)
      ex__reg(&(ex_func_t){.name = fields[f].name,
                           .nparams = 1,
                           .params = {EX_T(TIME)},
                           .ret = B,
                           .kernel = k_extract,
                           .op = fields[f].f});
  }
  ex__reg(&(ex_func_t){.name = "timezone_hour",
                       .nparams = 1,
                       .params = {TZ},
                       .ret = B,
                       .kernel = k_extract,
                       .op = F_TZ_HOUR});
  ex__reg(&(ex_func_t){.name = "timezone_minute",
                       .nparams = 1,
                       .params = {TZ},
                       .ret = B,
                       .kernel = k_extract,
                       .op = F_TZ_MINUTE});
  ex__reg(&(ex_func_t){.name = "current_date", .ret = D, .kernel = k_now, .op = N_DATE});
  ex__reg(&(ex_func_t){.name = "now", .ret = TZ, .kernel = k_now, .op = N_TIMESTAMPTZ});
  ex__reg(
      &(ex_func_t){.name = "current_timestamp", .ret = TZ, .kernel = k_now, .op = N_TIMESTAMPTZ});
  ex__reg(&(ex_func_t){.name = "localtimestamp", .ret = TS, .kernel = k_now, .op = N_LOCALTS});
  ex__reg(&(ex_func_t){.name = "proctime", .ret = TZ, .kernel = k_proctime, .flags = EX_FN_NONDET});
  ex__reg(&(ex_func_t){.name = "current_timezone", .ret = V, .kernel = k_now, .op = N_ZONE});
  ex__reg(&(ex_func_t){.name = "from_unixtime",
                       .nparams = 1,
                       .params = {EX_T(DOUBLE)},
                       .ret = TZ,
                       .kernel = k_from_unixtime});
  ex__reg(&(ex_func_t){.name = "to_timestamp_ltz",
                       .nparams = 1,
                       .params = {B},
                       .ret = TZ,
                       .kernel = k_to_timestamp_ltz});
  ex__reg(&(ex_func_t){.name = "to_timestamp_ltz",
                       .nparams = 2,
                       .params = {B, EX_T(INTEGER)},
                       .ret = TZ,
                       .kernel = k_to_timestamp_ltz});
  ex__reg(&(ex_func_t){.name = "to_unixtime",
                       .nparams = 1,
                       .params = {TZ},
                       .ret = EX_T(DOUBLE),
                       .kernel = k_to_unixtime});
  ex__reg(&(ex_func_t){.name = "at_timezone",
                       .nparams = 2,
                       .params = {TZ, V},
                       .ret = TZ,
                       .kernel = k_zone,
                       .init = zone_init,
                       .op = Z_AT});
  ex__reg(&(ex_func_t){.name = "with_timezone",
                       .nparams = 2,
                       .params = {TS, V},
                       .ret = TZ,
                       .kernel = k_zone,
                       .init = zone_init,
                       .op = Z_WITH});
  for (int t = 0; t < 3; t++) {
    ex_type_t x = temporal[t];
    ex__reg(&(ex_func_t){.name = "+",
                         .nparams = 2,
                         .params = {x, DS},
                         .ret = x,
                         .kernel = k_interval,
                         .op = I_TS_PLUS_DS});
    ex__reg(&(ex_func_t){.name = "+",
                         .nparams = 2,
                         .params = {DS, x},
                         .ret = x,
                         .kernel = k_interval,
                         .op = I_DS_PLUS_TS});
    ex__reg(&(ex_func_t){.name = "+",
                         .nparams = 2,
                         .params = {x, YM},
                         .ret = x,
                         .kernel = k_interval,
                         .op = I_TS_PLUS_YM});
    ex__reg(&(ex_func_t){.name = "+",
                         .nparams = 2,
                         .params = {YM, x},
                         .ret = x,
                         .kernel = k_interval,
                         .op = I_YM_PLUS_TS});
    ex__reg(&(ex_func_t){.name = "-",
                         .nparams = 2,
                         .params = {x, DS},
                         .ret = x,
                         .kernel = k_interval,
                         .op = I_TS_MINUS_DS});
    ex__reg(&(ex_func_t){.name = "-",
                         .nparams = 2,
                         .params = {x, YM},
                         .ret = x,
                         .kernel = k_interval,
                         .op = I_TS_MINUS_YM});
  }
  ex__reg(&(ex_func_t){.name = "-",
                       .nparams = 2,
                       .params = {TS, TS},
                       .ret = DS,
                       .kernel = k_interval,
                       .op = I_TS_MINUS_TS});
  ex__reg(&(ex_func_t){.name = "-",
                       .nparams = 2,
                       .params = {TZ, TZ},
                       .ret = DS,
                       .kernel = k_interval,
                       .op = I_TS_MINUS_TS});
  const ex_type_t ivs[] = {DS, YM};
  for (int t = 0; t < 2; t++) {
    ex_type_t x = ivs[t];
    ex__reg(&(ex_func_t){.name = "+",
                         .nparams = 2,
                         .params = {x, x},
                         .ret = x,
                         .kernel = k_interval_math,
                         .op = IV_ADD});
    ex__reg(&(ex_func_t){.name = "-",
                         .nparams = 2,
                         .params = {x, x},
                         .ret = x,
                         .kernel = k_interval_math,
                         .op = IV_SUB});
    ex__reg(&(ex_func_t){.name = "negate",
                         .nparams = 1,
                         .params = {x},
                         .ret = x,
                         .kernel = k_interval_math,
                         .op = IV_NEG});
    ex__reg(&(ex_func_t){.name = "*",
                         .nparams = 2,
                         .params = {x, B},
                         .ret = x,
                         .kernel = k_interval_math,
                         .op = IV_MUL});
    ex__reg(&(ex_func_t){.name = "*",
                         .nparams = 2,
                         .params = {B, x},
                         .ret = x,
                         .kernel = k_interval_math,
                         .op = IV_MUL_REV});
  }
}
