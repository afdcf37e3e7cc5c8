/*
 * test_func_arith.c - arithmetic operators: overflow and division by zero
 * errors with Trino's messages, truncating division, the sign of %,
 * decimals at precision 38, IEEE doubles, NULLs, selections, constants.
 */
#include "ft.h"
#include "test.h"

TEST(integer_overflow_messages) {
  CHECK_STR(FT1("+", "bigint;bigint", "9223372036854775807", "1"),
            "ERR:bigint addition overflow: 9223372036854775807 + 1");
  CHECK_STR(FT1("-", "bigint;bigint", "-9223372036854775808", "1"),
            "ERR:bigint subtraction overflow: -9223372036854775808 - 1");
  CHECK_STR(FT1("*", "bigint;bigint", "4611686018427387904", "2"),
            "ERR:bigint multiplication overflow: 4611686018427387904 * 2");
  CHECK_STR(FT1("/", "bigint;bigint", "-9223372036854775808", "-1"),
            "ERR:bigint division overflow: -9223372036854775808 / -1");
  CHECK_STR(FT1("negate", "bigint", "-9223372036854775808"),
            "ERR:bigint negation overflow: -9223372036854775808");
  CHECK_STR(FT1("+", "integer;integer", "2147483647", "1"),
            "ERR:integer addition overflow: 2147483647 + 1");
  CHECK_STR(FT1("*", "tinyint;tinyint", "100", "2"),
            "ERR:tinyint multiplication overflow: 100 * 2");
  CHECK_STR(FT1("-", "smallint;smallint", "-32768", "1"),
            "ERR:smallint subtraction overflow: -32768 - 1");
  CHECK_STR(FT1("negate", "tinyint", "-128"), "ERR:tinyint negation overflow: -128");
  CHECK_STR(FT1("/", "tinyint;tinyint", "-128", "-1"), "ERR:tinyint division overflow: -128 / -1");
  CHECK_STR(FT1("+", "integer;integer", "2147483646", "1"), "2147483647");
  CHECK_STR(FT1("*", "bigint;bigint", "-3037000499", "3037000499"), "-9223372030926249001");
}

TEST(division_and_modulus) {
  CHECK_STR(FTN("/", "integer;integer", 4, "7", "2", "-7", "2", "7", "-2", "-7", "-2"),
            "3|-3|-3|3");
  CHECK_STR(FTN("%", "integer;integer", 4, "7", "3", "-7", "3", "7", "-3", "-7", "-3"),
            "1|-1|1|-1");
  CHECK_STR(FTN("mod", "bigint;bigint", 2, "-9223372036854775808", "-1", "10", "4"), "0|2");
  CHECK_STR(FT1("/", "integer;integer", "1", "0"), "ERR:Division by zero");
  CHECK_STR(FT1("%", "bigint;bigint", "1", "0"), "ERR:Division by zero");
  CHECK_STR(FT1("/", "decimal(5,2);decimal(5,2)", "1.00", "0.00"), "ERR:Division by zero");
  CHECK_STR(FT1("%", "decimal(5,2);decimal(5,2)", "1.00", "0"), "ERR:Division by zero");
}

TEST(double_semantics) {
  CHECK_STR(FTN("/", "double;double", 4, "1", "0", "-1", "0", "0", "0", "NaN", "1"),
            "Infinity|-Infinity|NaN|NaN");
  CHECK_STR(FT1("+", "double;double", "Infinity", "-Infinity"), "NaN");
  CHECK_STR(FT1("*", "double;double", "1.5", "2"), "3.0E0");
  CHECK_STR(FT1("%", "double;double", "-7.5", "2"), "-1.5E0");
  CHECK_STR(FT1("%", "double;double", "1", "0"), "NaN");
  CHECK_STR(FT1("+", "real;real", "1.5", "2.25"), "3.75E0");
  CHECK_STR(FT1("negate", "double", "0"), "-0E0");
}

TEST(decimal_arithmetic) {
  CHECK_STR(FT1("+", "decimal(1,1);decimal(1,1)", "0.1", "0.2"), "0.3");
  CHECK_STR(FT1("-", "decimal(5,2);decimal(7,4)", "1.50", "0.0001"), "1.4999");
  CHECK_STR(FT1("*", "decimal(5,2);decimal(3,1)", "-1.25", "2.5"), "-3.125");
  /* Quotients round HALF_UP to the larger scale. */
  CHECK_STR(FTN("/", "decimal(3,2);decimal(1,0)", 3, "1.00", "3", "2.00", "3", "-2.00", "3"),
            "0.33|0.67|-0.67");
  CHECK_STR(FT1("/", "decimal(2,1);decimal(2,1)", "0.5", "0.4"), "1.3");
  CHECK_STR(FTN("%", "decimal(2,1);decimal(1,0)", 2, "5.5", "2", "-5.5", "2"), "1.5|-1.5");
  CHECK_STR(FT1("negate", "decimal(3,2)", "1.50"), "-1.50");
}

TEST(decimal_precision_38) {
  const char *max = "99999999999999999999999999999999999999";
  CHECK_STR(FT1("+", "decimal(38,0);decimal(1,0)", max, "1"),
            "ERR:Decimal overflow: 99999999999999999999999999999999999999 + 1");
  CHECK_STR(FT1("-", "decimal(38,0);decimal(1,0)", max, "1"),
            "99999999999999999999999999999999999998");
  CHECK_STR(
      FT1("+", "decimal(38,0);decimal(38,0)", "-99999999999999999999999999999999999998", "-1"),
      "-99999999999999999999999999999999999999");
  CHECK_STR(FT1("+", "decimal(38,0);decimal(38,0)", max, max),
            "ERR:Decimal overflow: 99999999999999999999999999999999999999 + "
            "99999999999999999999999999999999999999");
  CHECK_STR(FT1("-", "decimal(38,0);decimal(38,0)", max, "-99999999999999999999999999999999999999"),
            "ERR:Decimal overflow: 99999999999999999999999999999999999999 - "
            "-99999999999999999999999999999999999999");
  CHECK_STR(FT1("*", "decimal(38,0);decimal(38,0)", max, "2"),
            "ERR:Decimal overflow: 99999999999999999999999999999999999999 * 2");
  CHECK_STR(FT1("*", "decimal(19,0);decimal(19,0)", "9999999999999999999", "9999999999999999999"),
            "99999999999999999980000000000000000001");
  /* A quotient whose intermediate needs more than 128 bits. */
  CHECK_STR(FT1("/", "decimal(38,10);decimal(11,10)", "1234567890123456789012345678.1234567890",
                "3.0000000000"),
            "411522630041152263004115226.0411522630");
  /* The dividend scaled by 10^48 (beyond 10^38) before dividing. */
  CHECK_STR(FT1("/", "decimal(10,2);decimal(30,25)", "1.00", "3.0"), "0.3333333333333333333333333");
  CHECK_STR(FT1("/", "decimal(10,2);decimal(30,25)", "-12345678.91", "0.0000000000000000000000003"),
            "ERR:Decimal overflow: -12345678.91 / 0.0000000000000000000000003");
  CHECK_STR(FT1("/", "decimal(38,0);decimal(38,38)", "1", "0.5"),
            "ERR:Decimal overflow: 1 / 0.50000000000000000000000000000000000000");
  CHECK_STR(
      FT1("/", "decimal(38,2);decimal(38,2)", "123456789012345678901234567890123456.78", "0.01"),
      "ERR:Decimal overflow: 123456789012345678901234567890123456.78 / 0.01");
  /* Rescaling to the result scale can overflow before the addition. */
  CHECK_STR(FT1("+", "decimal(38,0);decimal(38,38)", max, "0.1"),
            "ERR:Decimal overflow: 99999999999999999999999999999999999999 + "
            "0.10000000000000000000000000000000000000");
}

TEST(nulls_selection_constants) {
  CHECK_STR(FTN("+", "bigint;bigint", 3, "1", NULL, NULL, "2", "3", "4"), "NULL|NULL|7");
  /* Row 1 would overflow but is not selected: no error, and it is NULL. */
  uint32_t sel[] = {0, 2};
  const char *cells[] = {"1", "2", "9223372036854775807", "1", "5", "5"};
  CHECK_STR(ft_eval_ex("+", "bigint;bigint", 3, cells, sel, 2, 0, NULL), "3|-|10");
  CHECK_STR(
      ft_eval_ex("/", "integer;integer", 3, (const char *const[]){"6", "0", "9", "0", "12", "0"},
                 (const uint32_t[]){0}, 0, 0, NULL),
      "-|-|-");
  /* Column 1 is a constant 10 for all three rows. */
  const char *k[] = {"1", "10", "2", NULL, "3", NULL};
  CHECK_STR(ft_eval_ex("*", "bigint;bigint", 3, k, NULL, 0, 2u, NULL), "10|20|30");
  const char *kd[] = {"1.5", "2", "2.5", NULL};
  CHECK_STR(ft_eval_ex("*", "decimal(2,1);decimal(1,0)", 2, kd, NULL, 0, 2u, NULL), "3.0|5.0");
  CHECK_STR(FT1("+", "unknown;integer", NULL, "1"), "NULL");
  /* A division by zero in a NULL row is not an error. */
  CHECK_STR(FTN("/", "integer;integer", 2, NULL, "0", "4", "2"), "NULL|2");
}
