/*
 * test_func_compare.c - comparisons over every type (strings in UTF-8
 * byte order, decimals of different scales, NaN), IS DISTINCT FROM,
 * BETWEEN, and three-valued AND / OR / NOT / IS NULL.
 */
#include "ft.h"
#include "test.h"

TEST(compare_strings) {
  CHECK_STR(FTN("<", "varchar;varchar", 5, "a", "b", "abc", "abd", "ab", "abc", "z", "é", "b", "a"),
            "true|true|true|true|false");
  CHECK_STR(FTN("=", "varchar;varchar", 3, "", "", "a", "a ", "é", "é"), "true|false|true");
  CHECK_STR(FT1(">=", "varbinary;varbinary", "ff", "0fff"), "true");
}

TEST(compare_numbers_across_types) {
  CHECK_STR(FTN("=", "decimal(5,2);decimal(3,1)", 2, "1.50", "1.5", "1.51", "1.5"), "true|false");
  CHECK_STR(FT1(">", "decimal(5,2);decimal(3,1)", "1.51", "1.5"), "true");
  CHECK_STR(FT1("=", "integer;decimal(5,2)", "1", "1.00"), "true");
  CHECK_STR(FT1("<", "bigint;double", "9007199254740993", "9007199254740992"), "false");
  CHECK_STR(FT1(">", "decimal(38,0);decimal(38,37)", "99999999999999999999999999999999999999",
                "9.9999999999999999999999999999999999999"),
            "true");
  CHECK_STR(FT1("<", "decimal(38,37);decimal(38,37)", "-9.9999999999999999999999999999999999999",
                "-9.9999999999999999999999999999999999998"),
            "true");
  CHECK_STR(FT1("<", "decimal(3,2);decimal(3,1)", "-0.50", "0.3"), "true");
  CHECK_STR(FT1("=", "tinyint;bigint", "-5", "-5"), "true");
}

TEST(compare_double_nan) {
  CHECK_STR(FTN("=", "double;double", 3, "NaN", "NaN", "0", "-0", "1", "NaN"), "false|true|false");
  CHECK_STR(FTN("<>", "double;double", 2, "NaN", "NaN", "1", "1"), "true|false");
  CHECK_STR(FTN("<", "double;double", 2, "NaN", "1", "1", "NaN"), "false|false");
  CHECK_STR(FTN("is_distinct_from", "double;double", 3, "NaN", "NaN", "0", "-0", "NaN", "1"),
            "false|false|true");
}

TEST(compare_temporal) {
  CHECK_STR(FT1("<", "date;date", "2020-01-01", "2020-01-02"), "true");
  CHECK_STR(FT1("<", "timestamp;timestamp", "1969-12-31 23:59:59.999999", "1970-01-01 00:00:00"),
            "true");
  CHECK_STR(FT1("=", "date;timestamp", "2020-01-01", "2020-01-01 00:00:00"), "true");
  CHECK_STR(FT1("<", "date;timestamp", "2020-01-01", "2020-01-01 00:00:00.000001"), "true");
  CHECK_STR(FT1("=", "timestamp with time zone;timestamp with time zone", "2026-01-01 00:00:00 UTC",
                "2026-01-01 01:00:00 Europe/Berlin"),
            "true");
  CHECK_STR(FT1("=", "boolean;boolean", "true", "false"), "false");
  CHECK_STR(FT1("<", "boolean;boolean", "false", "true"), "true");
}

TEST(distinct_and_between) {
  CHECK_STR(FTN("is_distinct_from", "bigint;bigint", 4, NULL, NULL, "1", NULL, NULL, "1", "1", "1"),
            "false|true|true|false");
  CHECK_STR(FTN("is_not_distinct_from", "varchar;varchar", 2, NULL, NULL, "a", "b"), "true|false");
  CHECK_STR(FTN("=", "bigint;bigint", 2, NULL, "1", "1", "1"), "NULL|true");
  CHECK_STR(FTN("between", "integer;integer;integer", 4, "5", "1", "10", "0", "1", "10", "10", "1",
                "10", NULL, "1", "2"),
            "true|false|true|NULL");
  CHECK_STR(FT1("between", "varchar;varchar;varchar", "m", "a", "z"), "true");
}

TEST(three_valued_logic) {
  /* Rows: all 9 combinations of TRUE, FALSE, NULL. */
  const char *cells[] = {"true",  "true",  "true", "false", "true", NULL, "false", "true", "false",
                         "false", "false", NULL,   NULL,    "true", NULL, "false", NULL,   NULL};
  CHECK_STR(ft_eval("and", "boolean;boolean", 9, cells),
            "true|false|NULL|false|false|false|NULL|false|NULL");
  CHECK_STR(ft_eval("or", "boolean;boolean", 9, cells),
            "true|true|true|true|false|NULL|true|NULL|NULL");
  CHECK_STR(FTN("not", "boolean", 3, "true", "false", NULL), "false|true|NULL");
  CHECK_STR(FTN("is_null", "bigint", 2, NULL, "1"), "true|false");
  CHECK_STR(FTN("is_not_null", "varchar", 2, NULL, ""), "false|true");
  CHECK_STR(FT1("and", "boolean;boolean;boolean", "true", NULL, "false"), "false");
  CHECK_STR(FT1("and", "boolean;unknown", "false", NULL), "false");
  CHECK_STR(FT1("or", "unknown;boolean", NULL, "false"), "NULL");
}

TEST(compare_with_selection) {
  const char *cells[] = {"1", "2", "3", "3", "5", "4"};
  CHECK_STR(ft_eval_ex("<", "bigint;bigint", 3, cells, (const uint32_t[]){1, 2}, 2, 0, NULL),
            "-|false|false");
  const char *k[] = {"b", "b", "a", NULL, "c", NULL};
  CHECK_STR(ft_eval_ex("=", "varchar;varchar", 3, k, NULL, 0, 2u, NULL), "true|false|false");
}
