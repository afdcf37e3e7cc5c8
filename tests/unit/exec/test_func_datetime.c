/*
 * test_func_datetime.c - date and time functions: fields (leap years,
 * ISO weeks, times before 1970), date_trunc, date_add and date_diff with
 * month-end clamping and across DST changes in New York and Berlin,
 * time zone conversion, unix time, now(), interval arithmetic.
 */
#include "base/time.h"
#include "ft.h"
#include "test.h"

static const char *const none[] = {NULL};

static void zone(const char *name) {
  fl_err_t err;
  ft_zone = NULL;
  if (name) fl_tz_get(name, strlen(name), &ft_zone, &err);
}

TEST(fields) {
  zone(NULL);
  CHECK_STR(FT1("year", "date", "2024-02-29"), "2024");
  CHECK_STR(FT1("month", "date", "2024-02-29"), "2");
  CHECK_STR(FT1("day", "date", "2024-02-29"), "29");
  CHECK_STR(FTN("day_of_year", "date", 3, "2024-12-31", "2023-12-31", "2000-03-01"), "366|365|61");
  CHECK_STR(FTN("day_of_week", "date", 3, "2026-03-08", "2026-03-09", "1969-12-31"), "7|1|3");
  CHECK_STR(FTN("quarter", "date", 2, "2026-03-31", "2026-04-01"), "1|2");
  CHECK_STR(FTN("week", "date", 3, "2021-01-03", "2021-01-04", "2020-12-31"), "53|1|53");
  CHECK_STR(FT1("year_of_week", "date", "2021-01-03"), "2020");
  CHECK_STR(FT1("hour", "timestamp", "1969-12-31 23:59:59.5"), "23");
  CHECK_STR(FT1("minute", "timestamp", "1969-12-31 23:58:59.5"), "58");
  CHECK_STR(FT1("second", "timestamp", "1969-12-31 23:59:59.5"), "59");
  CHECK_STR(FT1("millisecond", "timestamp", "1969-12-31 23:59:59.5"), "500");
  CHECK_STR(FT1("year", "timestamp", "1900-03-01 00:00:00"), "1900");
  CHECK_STR(FT1("day", "timestamp", "1900-02-28 23:59:59"), "28");
  CHECK_STR(FT1("hour", "time", "13:14:15"), "13");
  /* Fields of a timestamp with time zone are in the session zone. */
  zone("America/New_York");
  CHECK_STR(FT1("hour", "timestamp with time zone", "2026-07-01 00:30:00 UTC"), "20");
  CHECK_STR(FT1("day", "timestamp with time zone", "2026-07-01 00:30:00 UTC"), "30");
  CHECK_STR(FTN("timezone_hour", "timestamp with time zone", 2, "2026-07-01 00:00:00 UTC",
                "2026-01-01 00:00:00 UTC"),
            "-4|-5");
  zone(NULL);
}

TEST(date_trunc_units) {
  zone(NULL);
  CHECK_STR(FT1("date_trunc", "varchar;timestamp", "month", "2024-02-29 13:14:15"),
            "2024-02-01 00:00:00.000000");
  CHECK_STR(FT1("date_trunc", "varchar;timestamp", "week", "2026-03-08 10:00:00"),
            "2026-03-02 00:00:00.000000");
  CHECK_STR(FT1("date_trunc", "varchar;timestamp", "quarter", "2026-08-17 10:00:00"),
            "2026-07-01 00:00:00.000000");
  CHECK_STR(FT1("date_trunc", "varchar;timestamp", "hour", "1969-12-31 23:30:00"),
            "1969-12-31 23:00:00.000000");
  CHECK_STR(FT1("date_trunc", "varchar;timestamp", "second", "1969-12-31 23:59:59.75"),
            "1969-12-31 23:59:59.000000");
  CHECK_STR(FT1("date_trunc", "varchar;timestamp", "millisecond", "2020-01-01 00:00:00.123456"),
            "2020-01-01 00:00:00.123000");
  CHECK_STR(FT1("date_trunc", "varchar;date", "year", "2024-07-04"), "2024-01-01");
  CHECK_STR(FT1("date_trunc", "varchar;date", "hour", "2024-07-04"),
            "ERR:'hour' is not a valid DATE field");
  CHECK_STR(FT1("date_trunc", "varchar;date", "fortnight", "2024-07-04"),
            "ERR:'fortnight' is not a valid time unit");
  zone("America/New_York");
  /* The day starts at local midnight in the zone. */
  CHECK_STR(FT1("date_trunc", "varchar;timestamp with time zone", "day",
                "2026-03-08 12:00:00 America/New_York"),
            "2026-03-08 00:00:00.000000 America/New_York");
  CHECK_STR(FT1("cast:varchar", "timestamp with time zone", "2026-03-08 00:00:00 America/New_York"),
            "2026-03-08 00:00:00.000000 America/New_York");
  zone(NULL);
}

TEST(date_add_and_diff) {
  zone(NULL);
  CHECK_STR(FTN("date_add", "varchar;bigint;date", 4, "month", "1", "2024-01-31", "month", "1",
                "2023-01-31", "year", "1", "2024-02-29", "day", "-1", "1970-01-01"),
            "2024-02-29|2023-02-28|2025-02-28|1969-12-31");
  CHECK_STR(FT1("date_add", "varchar;bigint;timestamp", "quarter", "-1", "2024-05-31 08:00:00"),
            "2024-02-29 08:00:00.000000");
  CHECK_STR(FT1("date_add", "varchar;bigint;timestamp", "minute", "-90", "1970-01-01 00:30:00"),
            "1969-12-31 23:00:00.000000");
  CHECK_STR(FT1("date_add", "varchar;bigint;timestamp", "day", "9223372036854775807",
                "2020-01-01 00:00:00"),
            "ERR:date_add overflow: 9223372036854775807 day");
  CHECK_STR(FTN("date_diff", "varchar;date;date", 4, "month", "2020-01-31", "2020-02-29", "month",
                "2020-01-31", "2020-02-28", "year", "2020-02-29", "2021-02-28", "day", "2020-03-01",
                "2020-02-01"),
            "1|0|0|-29");
  CHECK_STR(FTN("date_diff", "varchar;date;date", 3, "year", "2020-02-29", "2021-03-01", "month",
                "2020-03-31", "2020-01-31", "quarter", "2020-01-15", "2020-07-14"),
            "1|-2|1");
  CHECK_STR(FT1("date_diff", "varchar;timestamp;timestamp", "hour", "1969-12-31 23:00:00",
                "1970-01-01 01:30:00"),
            "2");
  CHECK_STR(FT1("date_diff", "varchar;timestamp;timestamp", "week", "2026-01-01 00:00:00",
                "2026-01-15 00:00:00"),
            "2");
  zone("America/New_York");
  /* Across spring forward: a day keeps the wall clock, 24 hours do not. */
  CHECK_STR(FT1("date_add", "varchar;bigint;timestamp with time zone", "day", "1",
                "2026-03-07 12:00:00 America/New_York"),
            "2026-03-08 12:00:00.000000 America/New_York");
  CHECK_STR(FT1("date_add", "varchar;bigint;timestamp with time zone", "hour", "24",
                "2026-03-07 12:00:00 America/New_York"),
            "2026-03-08 13:00:00.000000 America/New_York");
  CHECK_STR(FT1("date_diff", "varchar;timestamp with time zone;timestamp with time zone", "hour",
                "2026-03-08 00:00:00 America/New_York", "2026-03-09 00:00:00 America/New_York"),
            "23");
  CHECK_STR(FT1("date_diff", "varchar;timestamp with time zone;timestamp with time zone", "day",
                "2026-03-08 00:00:00 America/New_York", "2026-03-09 00:00:00 America/New_York"),
            "1");
  zone("Europe/Berlin");
  CHECK_STR(FT1("date_diff", "varchar;timestamp with time zone;timestamp with time zone", "hour",
                "2026-10-25 00:00:00 Europe/Berlin", "2026-10-26 00:00:00 Europe/Berlin"),
            "25");
  zone(NULL);
}

TEST(time_zone_conversion) {
  zone(NULL);
  /* at_timezone with a constant zone: the result shows in that zone. */
  const char *c[] = {"2026-01-01 00:00:00 UTC", "America/New_York", "2026-07-01 00:00:00 UTC",
                     NULL};
  CHECK_STR(
      ft_eval_ex("at_timezone", "timestamp with time zone;varchar", 2, c, NULL, 0, 2u, NULL),
      "2025-12-31 19:00:00.000000 America/New_York|2026-06-30 20:00:00.000000 America/New_York");
  /* A constant zone is the result's display zone; the gap moves 02:30 to 03:30. */
  CHECK_STR(FT1("with_timezone", "timestamp;varchar", "2026-03-08 02:30:00", "America/New_York"),
            "2026-03-08 03:30:00.000000 America/New_York");
  /* Zones varying per row: shown in the session zone (UTC here). */
  CHECK_STR(FTN("with_timezone", "timestamp;varchar", 2, "2026-03-08 02:30:00", "America/New_York",
                "2026-10-25 02:30:00", "Europe/Berlin"),
            "2026-03-08 07:30:00.000000 UTC|2026-10-25 00:30:00.000000 UTC");
  CHECK_STR(FTN("with_timezone", "timestamp;varchar", 2, "1960-01-01 00:00:00", "+05:30",
                "1960-01-01 00:00:00", "-01:00"),
            "1959-12-31 18:30:00.000000 UTC|1960-01-01 01:00:00.000000 UTC");
  CHECK_STR(FT1("at_timezone", "timestamp with time zone;varchar", "2026-01-01 00:00:00 UTC",
                "Nowhere/Land"),
            "ERR:Time zone not supported: Nowhere/Land");
  CHECK_STR(FT1("to_unixtime", "timestamp with time zone", "1970-01-01 00:00:01 UTC"), "1.0E0");
  CHECK_STR(FT1("to_unixtime", "timestamp with time zone", "1969-12-31 23:59:59.5 UTC"), "-5.0E-1");
  CHECK_STR(FT1("from_unixtime", "double", "-1.5"), "1969-12-31 23:59:58.500000 UTC");
  CHECK_STR(FT1("from_unixtime", "double", "1e300"),
            "ERR:Value out of range for from_unixtime: 1e+300");
  CHECK_STR(FT1("last_day_of_month", "date", "2024-02-10"), "2024-02-29");
}

TEST(now_is_the_statement_time) {
  zone("America/New_York");
  /* ft_now_us is 2026-01-01T00:00:00Z: still 2025-12-31 in New York. */
  CHECK_STR(ft_eval("current_date", "", 2, none), "2025-12-31|2025-12-31");
  CHECK_STR(ft_eval("now", "", 1, none), "2025-12-31 19:00:00.000000 America/New_York");
  CHECK_STR(ft_eval("localtimestamp", "", 1, none), "2025-12-31 19:00:00.000000");
  CHECK_STR(ft_eval("current_timezone", "", 1, none), "America/New_York");
  zone(NULL);
  CHECK_STR(ft_eval("current_date", "", 1, none), "2026-01-01");
}

TEST(interval_arithmetic) {
  zone(NULL);
  /* Interval vectors are built from integers: micros and months. */
  fl_err_t err;
  fl_arena_t *a = fl_arena_new(0);
  ex_ctx_t ctx;
  ex_ctx_init(&ctx, a, NULL, 0);
  ex_type_t types[2] = {ex_type(EX_TIMESTAMP), ex_type(EX_INTERVAL_YM)};
  ty_vec_t *ts = ty_vec_new(ty_primitive(TY_TIMESTAMP), 2),
           *ym = ty_vec_new(ty_primitive(TY_INT), 2);
  int64_t t;
  bool z;
  fl_parse_timestamp("2024-01-31T10:00:00", 19, 6, &t, &z);
  ty_vec_append_i64(ts, t);
  ty_vec_append_i64(ts, -1);
  ty_vec_append_i32(ym, 1);
  ty_vec_append_i32(ym, -13);
  const ty_vec_t *args[2] = {ts, ym};
  ex_rows_t rows = {.nrows = 2, .n = 2};
  ty_vec_t *out = NULL;
  ex_type_t rt;
  CHECK_OK(ex_func_eval(&ctx, "+", types, args, 2, &rows, &out, &rt, &err), &err);
  CHECK_EQ(rt.kind, EX_TIMESTAMP);
  char buf[64];
  fl_format_timestamp(TY_VEC_DATA(out, int64_t)[0], 6, false, buf);
  CHECK_STR(buf, "2024-02-29T10:00:00.000000");
  fl_format_timestamp(TY_VEC_DATA(out, int64_t)[1], 6, false, buf);
  CHECK_STR(buf, "1968-11-30T23:59:59.999999");
  ty_vec_free(out);
  /* date - interval day to second (one day) and interval sums. */
  ex_type_t t2[2] = {ex_type(EX_DATE), ex_type(EX_INTERVAL_DS)};
  ty_vec_t *d = ty_vec_new(ty_primitive(TY_DATE), 1), *ds = ty_vec_new(ty_primitive(TY_LONG), 1);
  ty_vec_append_i32(d, (int32_t)fl_days_from_civil(2024, 3, 1));
  ty_vec_append_i64(ds, 86400000000LL);
  const ty_vec_t *a2[2] = {d, ds};
  ex_rows_t one = {.nrows = 1, .n = 1};
  CHECK_OK(ex_func_eval(&ctx, "-", t2, a2, 2, &one, &out, &rt, &err), &err);
  fl_format_date(TY_VEC_DATA(out, int32_t)[0], buf);
  CHECK_STR(buf, "2024-02-29");
  ty_vec_free(out);
  ex_type_t t3[2] = {ex_type(EX_INTERVAL_DS), ex_type(EX_INTERVAL_DS)};
  const ty_vec_t *a3[2] = {ds, ds};
  CHECK_OK(ex_func_eval(&ctx, "+", t3, a3, 2, &one, &out, &rt, &err), &err);
  CHECK_EQ(TY_VEC_DATA(out, int64_t)[0], 2 * 86400000000LL);
  ty_vec_free(out);
  ex_type_t t4[2] = {ex_type(EX_INTERVAL_YM), ex_type(EX_BIGINT)};
  ty_vec_t *big = ty_vec_new(ty_primitive(TY_LONG), 1);
  ty_vec_append_i64(big, 1LL << 40);
  const ty_vec_t *a4[2] = {ym, big};
  rows.n = 1;
  rows.nrows = 1;
  CHECK_ERR(ex_func_eval(&ctx, "*", t4, a4, 2, &rows, &out, &rt, &err), FL_EINVALID);
  CHECK_STR(err.msg, "interval year to month overflow");
  ty_vec_free(out);
  ty_vec_free(big);
  ty_vec_free(d);
  ty_vec_free(ds);
  ty_vec_free(ts);
  ty_vec_free(ym);
  fl_arena_free(a);
}

TEST(leap_years_and_old_dates) {
  zone(NULL);
  CHECK_STR(FT1("cast:date", "varchar", "1900-02-29"), "ERR:Cannot cast '1900-02-29' to DATE");
  CHECK_STR(FT1("cast:date", "varchar", "2000-02-29"), "2000-02-29");
  CHECK_STR(FT1("date_add", "varchar;bigint;date", "day", "1", "1900-02-28"), "1900-03-01");
  CHECK_STR(FT1("date_add", "varchar;bigint;date", "year", "-100", "2000-02-29"), "1900-02-28");
  CHECK_STR(FT1("date_add", "varchar;bigint;date", "month", "-1", "0001-01-15"), "0000-12-15");
  CHECK_STR(FT1("day_of_week", "date", "1582-10-15"), "5");
  CHECK_STR(FT1("date_diff", "varchar;date;date", "day", "1969-12-31", "1970-01-01"), "1");
  CHECK_STR(FT1("date_trunc", "varchar;timestamp", "year", "1969-06-15 12:00:00"),
            "1969-01-01 00:00:00.000000");
  CHECK_STR(FT1("date_trunc", "varchar;timestamp", "week", "1970-01-01 00:00:00"),
            "1969-12-29 00:00:00.000000");
  CHECK_STR(FT1("last_day_of_month", "date", "1900-02-01"), "1900-02-28");
}

TEST(date_format_specifiers) {
  zone(NULL);
  CHECK_STR(
      FT1("date_format", "timestamp;varchar", "2026-03-08 14:05:09.123456", "%Y-%m-%d %H:%i:%s.%f"),
      "2026-03-08 14:05:09.123456");
  CHECK_STR(FT1("date_format", "timestamp;varchar", "2026-03-08 14:05:09",
                "%a %W %b %M %c %e %j %k %l %h %p %r %T %y %%"),
            "Sun Sunday Mar March 3 8 067 14 2 02 PM 02:05:09 PM 14:05:09 26 %");
  CHECK_STR(FT1("date_format", "timestamp;varchar", "2021-01-03 00:00:00", "%x-W%v %I"),
            "2020-W53 12");
  CHECK_STR(FT1("date_format", "timestamp;varchar", "1969-12-31 23:59:59.5", "%Y%m%d %H%i%S %f"),
            "19691231 235959 500000");
  CHECK_STR(FT1("date_format", "date;varchar", "2024-02-29", "%d/%m/%Y"), "29/02/2024");
  CHECK_STR(FT1("date_format", "timestamp;varchar", "2024-02-29 00:00:00", "%D"),
            "ERR:%D not supported in date format string");
  CHECK_STR(FTN("date_format", "timestamp;varchar", 2, "2024-02-29 00:00:00", "%Y",
                "2024-02-29 00:00:00", "%U"),
            "ERR:%U not supported in date format string");
  zone("Europe/Berlin");
  CHECK_STR(
      FT1("date_format", "timestamp with time zone;varchar", "2026-07-01 00:00:00 UTC", "%H:%i"),
      "02:00");
  zone(NULL);
}

TEST(iso8601) {
  zone(NULL);
  CHECK_STR(FT1("to_iso8601", "date", "1969-07-20"), "1969-07-20");
  CHECK_STR(FT1("to_iso8601", "timestamp", "2020-01-02 03:04:05.5"), "2020-01-02T03:04:05.500000");
  CHECK_STR(FT1("to_iso8601", "timestamp with time zone", "2020-01-02 03:04:05 UTC"),
            "2020-01-02T03:04:05.000000Z");
  zone("America/New_York");
  CHECK_STR(FT1("to_iso8601", "timestamp with time zone", "2026-07-01 00:00:00 UTC"),
            "2026-06-30T20:00:00.000000-04:00");
  CHECK_STR(FT1("from_iso8601_timestamp", "varchar", "2020-05-11T11:15:05"),
            "2020-05-11 11:15:05.000000 America/New_York");
  zone(NULL);
  CHECK_STR(FT1("from_iso8601_timestamp", "varchar", "2020-05-11T11:15:05.055+01:00"),
            "2020-05-11 10:15:05.055000 UTC");
  CHECK_STR(FT1("from_iso8601_timestamp", "varchar", "2020-05-11 11:15:05"),
            "ERR:Invalid format: \"2020-05-11 11:15:05\"");
  CHECK_STR(FT1("from_iso8601_date", "varchar", "2020-02-30"),
            "ERR:Invalid format: \"2020-02-30\"");
  CHECK_STR(FT1("from_iso8601_date", "varchar", "2020-02-29"), "2020-02-29");
}

TEST(format_datetime_and_date_parse) {
  zone(NULL);
  CHECK_STR(FT1("format_datetime", "timestamp;varchar", "2026-03-08 14:05:09.123456",
                "yyyy-MM-dd HH:mm:ss.SSS"),
            "2026-03-08 14:05:09.123");
  CHECK_STR(FT1("format_datetime", "timestamp;varchar", "2026-03-08 14:05:09",
                "EEE, d MMM yy h:mm a 'at' D ''"),
            "Sun, 8 Mar 26 2:05 PM at 67 '");
  CHECK_STR(FT1("format_datetime", "timestamp;varchar", "2021-01-03 00:00:00",
                "xxxx-'W'ww-e EEEE MMMM k K"),
            "2020-W53-7 Sunday January 24 0");
  CHECK_STR(FT1("format_datetime", "timestamp;varchar", "2026-03-08 14:05:09", "yyyy q"),
            "ERR:Illegal pattern component: q");
  zone("America/New_York");
  CHECK_STR(FT1("format_datetime", "timestamp with time zone;varchar", "2026-07-01 00:00:00 UTC",
                "HH:mm Z ZZ ZZZ"),
            "20:00 -0400 -04:00 America/New_York");
  zone(NULL);
  CHECK_STR(FT1("date_parse", "varchar;varchar", "2026-03-08 14:05:09.5", "%Y-%m-%d %H:%i:%s.%f"),
            "2026-03-08 14:05:09.500000");
  CHECK_STR(FT1("date_parse", "varchar;varchar", "8 Mar 26 02:05:09 PM", "%e %b %y %h:%i:%s %p"),
            "2026-03-08 14:05:09.000000");
  CHECK_STR(FT1("date_parse", "varchar;varchar", "March 1969 12 AM", "%M %Y %l %p"),
            "1969-03-01 00:00:00.000000");
  CHECK_STR(FT1("date_parse", "varchar;varchar", "2023-02-29", "%Y-%m-%d"),
            "ERR:Invalid format: \"2023-02-29\" does not match \"%Y-%m-%d\"");
  CHECK_STR(FT1("date_parse", "varchar;varchar", "2023-02-28x", "%Y-%m-%d"),
            "ERR:Invalid format: \"2023-02-28x\" does not match \"%Y-%m-%d\"");
  CHECK_STR(FT1("date_parse", "varchar;varchar", "2023", "%D"),
            "ERR:%D not supported in date format string");
}
