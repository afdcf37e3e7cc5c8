/*
 * test_func_cast.c - CAST and TRY_CAST: numeric range checks and
 * rounding, decimal rescale, Trino's text forms both ways, temporal
 * conversions through time zones, and every error message.
 */
#include "ft.h"
#include "test.h"

TEST(cast_varchar_to_numbers) {
  CHECK_STR(FT1("cast:integer", "varchar", "abc"), "ERR:Cannot cast 'abc' to INTEGER");
  CHECK_STR(FTN("cast:integer", "varchar", 3, " 12 ", "-2147483648", "+7"), "12|-2147483648|7");
  CHECK_STR(FT1("cast:integer", "varchar", "2147483648"),
            "ERR:Cannot cast '2147483648' to INTEGER");
  CHECK_STR(FT1("cast:bigint", "varchar", "1.5"), "ERR:Cannot cast '1.5' to BIGINT");
  CHECK_STR(FT1("cast:tinyint", "varchar", "128"), "ERR:Cannot cast '128' to TINYINT");
  CHECK_STR(FT1("cast:bigint", "varchar", "-9223372036854775808"), "-9223372036854775808");
  CHECK_STR(FT1("cast:bigint", "varchar", "9223372036854775808"),
            "ERR:Cannot cast '9223372036854775808' to BIGINT");
  CHECK_STR(FTN("try_cast:integer", "varchar", 3, "abc", " 12 ", NULL), "NULL|12|NULL");
  CHECK_STR(FTN("cast:double", "varchar", 4, "1e3", "NaN", "-Infinity", " .5 "),
            "1.0E3|NaN|-Infinity|5.0E-1");
  CHECK_STR(FT1("cast:double", "varchar", "inf"), "ERR:Cannot cast 'inf' to DOUBLE");
  CHECK_STR(FT1("cast:double", "varchar", "0x10"), "ERR:Cannot cast '0x10' to DOUBLE");
  CHECK_STR(FTN("cast:decimal(3,2)", "varchar", 3, "1.255", "-1.255", "9.994"), "1.26|-1.26|9.99");
  CHECK_STR(FT1("cast:decimal(3,2)", "varchar", "9.995"),
            "ERR:Cannot cast '9.995' to DECIMAL(3,2)");
  CHECK_STR(FTN("cast:boolean", "varchar", 5, "true", "FALSE", "t", "0", " True "),
            "true|false|true|false|true");
  CHECK_STR(FT1("cast:boolean", "varchar", "yes"), "ERR:Cannot cast 'yes' to BOOLEAN");
}

TEST(cast_between_numbers) {
  CHECK_STR(FT1("cast:integer", "bigint", "3000000000"),
            "ERR:Cannot cast BIGINT '3000000000' to INTEGER");
  CHECK_STR(FT1("try_cast:integer", "bigint", "3000000000"), "NULL");
  CHECK_STR(FTN("cast:integer", "double", 4, "2.5", "-2.5", "2.4999", "-0.5"), "3|-3|2|-1");
  CHECK_STR(FT1("cast:integer", "double", "NaN"), "ERR:Cannot cast DOUBLE 'NaN' to INTEGER");
  CHECK_STR(FT1("cast:bigint", "double", "9.223372036854776E18"),
            "ERR:Cannot cast DOUBLE '9.223372036854776E18' to BIGINT");
  CHECK_STR(FT1("cast:bigint", "double", "-9.223372036854776E18"), "-9223372036854775808");
  CHECK_STR(FTN("cast:integer", "decimal(3,1)", 3, "2.5", "-2.5", "-2.4"), "3|-3|-2");
  CHECK_STR(FT1("cast:tinyint", "decimal(5,1)", "127.5"),
            "ERR:Cannot cast DECIMAL(5,1) '127.5' to TINYINT");
  CHECK_STR(FTN("cast:decimal(10,2)", "decimal(10,3)", 3, "1.255", "-1.255", "1.254"),
            "1.26|-1.26|1.25");
  CHECK_STR(FT1("cast:decimal(3,1)", "decimal(10,2)", "123.45"),
            "ERR:Cannot cast DECIMAL(10,2) '123.45' to DECIMAL(3,1)");
  CHECK_STR(FT1("cast:decimal(38,37)", "decimal(38,0)", "10"),
            "ERR:Cannot cast DECIMAL(38,0) '10' to DECIMAL(38,37)");
  CHECK_STR(FT1("cast:decimal(38,0)", "decimal(38,37)", "9.9999999999999999999999999999999999999"),
            "10");
  CHECK_STR(FTN("cast:decimal(10,5)", "double", 3, "0.1", "-2.000005", "1e-7"),
            "0.10000|-2.00001|0.00000");
  CHECK_STR(FT1("cast:decimal(38,0)", "double", "1e30"), "1000000000000000000000000000000");
  CHECK_STR(FT1("cast:decimal(5,0)", "double", "1e30"),
            "ERR:Cannot cast DOUBLE '1.0E30' to DECIMAL(5,0)");
  CHECK_STR(FT1("cast:decimal(5,0)", "double", "Infinity"),
            "ERR:Cannot cast DOUBLE 'Infinity' to DECIMAL(5,0)");
  CHECK_STR(FT1("cast:decimal(3,0)", "bigint", "12345"),
            "ERR:Cannot cast BIGINT '12345' to DECIMAL(3,0)");
  CHECK_STR(FT1("cast:decimal(21,2)", "bigint", "-9223372036854775808"), "-9223372036854775808.00");
  CHECK_STR(FT1("cast:decimal(20,2)", "bigint", "-9223372036854775808"),
            "ERR:Cannot cast BIGINT '-9223372036854775808' to DECIMAL(20,2)");
  CHECK_STR(FT1("cast:double", "decimal(5,2)", "-1.25"), "-1.25E0");
  CHECK_STR(FT1("cast:real", "double", "0.1"), "1.0E-1");
  CHECK_STR(FTN("cast:boolean", "integer", 2, "0", "5"), "false|true");
  CHECK_STR(FTN("cast:integer", "boolean", 2, "true", "false"), "1|0");
}

TEST(cast_to_varchar_forms) {
  CHECK_STR(FTN("cast:varchar", "double", 6, "1.5", "123456789", "0.001", "0", "-0", "1e100"),
            "1.5E0|1.23456789E8|1.0E-3|0E0|-0E0|1.0E100");
  CHECK_STR(FT1("cast:varchar", "real", "1.1"), "1.1E0");
  CHECK_STR(FT1("cast:varchar", "decimal(5,2)", "-0.5"), "-0.50");
  CHECK_STR(FT1("cast:varchar", "bigint", "-9223372036854775808"), "-9223372036854775808");
  CHECK_STR(FT1("cast:varchar", "boolean", "true"), "true");
  CHECK_STR(FT1("cast:varchar", "date", "2024-02-29"), "2024-02-29");
  CHECK_STR(FT1("cast:varchar", "timestamp", "2020-01-02 03:04:05.123456"),
            "2020-01-02 03:04:05.123456");
  CHECK_STR(FT1("cast:varchar", "timestamp", "1969-12-31 23:59:59.999999"),
            "1969-12-31 23:59:59.999999");
  CHECK_STR(FT1("cast:varchar", "timestamp", "1900-01-01"), "1900-01-01 00:00:00.000000");
  CHECK_STR(FT1("cast:varchar", "uuid", "123e4567-e89b-12d3-a456-426614174000"),
            "123e4567-e89b-12d3-a456-426614174000");
  CHECK_STR(FT1("cast:uuid", "varchar", "not-a-uuid"), "ERR:Cannot cast 'not-a-uuid' to UUID");
  CHECK_STR(FT1("cast:varbinary", "varchar", "abc"), "616263");
}

TEST(cast_temporal) {
  CHECK_STR(FT1("cast:date", "varchar", "2021-02-29"), "ERR:Cannot cast '2021-02-29' to DATE");
  CHECK_STR(FT1("cast:date", "timestamp", "1969-12-31 23:00:00"), "1969-12-31");
  CHECK_STR(FT1("cast:timestamp", "date", "1960-06-01"), "1960-06-01 00:00:00.000000");
  CHECK_STR(FT1("cast:time", "timestamp", "1969-12-31 23:00:00.5"), "23:00:00.500000");
  CHECK_STR(FT1("cast:timestamp", "varchar", "2020-01-01 00:00:00 UTC"),
            "ERR:Cannot cast '2020-01-01 00:00:00 UTC' to TIMESTAMP(6)");
  /* Spring forward in New York: 02:30 does not exist and moves to 03:30 EDT. */
  CHECK_STR(FT1("cast:timestamp with time zone", "varchar", "2026-03-08 02:30:00 America/New_York"),
            "2026-03-08 07:30:00.000000 UTC");
  /* Fall back in Berlin: 02:30 happens twice; the earlier offset (CEST) wins. */
  CHECK_STR(FT1("cast:timestamp with time zone", "varchar", "2026-10-25 02:30:00 Europe/Berlin"),
            "2026-10-25 00:30:00.000000 UTC");
  CHECK_STR(FT1("cast:timestamp with time zone", "varchar", "2026-10-25 03:30:00 Europe/Berlin"),
            "2026-10-25 02:30:00.000000 UTC");
  CHECK_STR(FT1("cast:timestamp with time zone", "varchar", "2026-01-01 12:00:00+05:30"),
            "2026-01-01 06:30:00.000000 UTC");
  CHECK_STR(FT1("cast:timestamp with time zone", "varchar", "2026-01-01 12:00:00 Mars/Olympus"),
            "ERR:Cannot cast '2026-01-01 12:00:00 Mars/Olympus' to TIMESTAMP(6) WITH TIME ZONE");
  fl_err_t err;
  CHECK_OK(fl_tz_get("Europe/Berlin", 13, &ft_zone, &err), &err);
  /* The session zone interprets timestamps without zone (Berlin spring gap). */
  CHECK_STR(FT1("cast:timestamp with time zone", "timestamp", "2026-03-29 02:30:00"),
            "2026-03-29 03:30:00.000000 Europe/Berlin");
  CHECK_STR(FT1("cast:timestamp", "timestamp with time zone", "2026-07-01 00:00:00 UTC"),
            "2026-07-01 02:00:00.000000");
  CHECK_STR(FT1("cast:date", "timestamp with time zone", "2026-07-01 23:30:00 UTC"), "2026-07-02");
  ft_zone = NULL;
}

TEST(cast_other_types) {
  CHECK_STR(FT1("cast:bigint", "unknown", NULL), "NULL");
  /* Intervals have no text form to parse (literals are the binder's job). */
  CHECK_STR(FT1("cast:varchar", "interval day to second", "x"),
            "ERR:Cannot cast varchar to interval day to second");
  fl_err_t err;
  ex_type_t d = ex_type(EX_DATE), i = ex_type(EX_INTEGER), a = ex_type_array_varchar();
  CHECK_ERR(ex_cast_check(&d, &i, &err), FL_EINVALID);
  CHECK_STR(err.msg, "Cannot cast date to integer");
  CHECK_OK(ex_cast_check(&a, &a, &err), &err);
  CHECK_ERR(ex_cast_check(&a, &i, &err), FL_EINVALID);
  /* Interval text (the interval vectors come from intervals arithmetic). */
  CHECK_STR(FT1("-", "timestamp;timestamp", "2020-01-02 01:01:01.001", "2020-01-01 00:00:00"),
            "1 01:01:01.001");
  CHECK_STR(FT1("-", "timestamp;timestamp", "2020-01-01 00:00:00", "2020-01-02 01:00:00"),
            "-1 01:00:00.000");
}

TEST(cast_selection_and_try) {
  const char *cells[] = {"1", "x", "3"};
  CHECK_STR(ft_eval_ex("cast:integer", "varchar", 3, cells, (const uint32_t[]){0, 2}, 2, 0, NULL),
            "1|-|3");
  CHECK_STR(ft_eval_ex("try_cast:integer", "varchar", 3, cells, NULL, 0, 0, NULL), "1|NULL|3");
  CHECK_STR(ft_eval_ex("cast:integer", "varchar", 3, cells, NULL, 0, 0, NULL),
            "ERR:Cannot cast 'x' to INTEGER");
}
