/*
 * test_func_math.c - the math functions: exact kinds keep their type and
 * check overflow, decimal rounding is HALF_UP, double rounding is half
 * away from zero, greatest/least propagate NULL and reject NaN.
 */
#include "ft.h"
#include "test.h"

static const char *const none[] = {NULL};

TEST(abs_sign) {
  CHECK_STR(FTN("abs", "bigint", 3, "-5", "0", "7"), "5|0|7");
  CHECK_STR(FT1("abs", "tinyint", "-128"), "ERR:Value -128 is out of range for abs()");
  CHECK_STR(FT1("abs", "bigint", "-9223372036854775808"),
            "ERR:Value -9223372036854775808 is out of range for abs()");
  CHECK_STR(FT1("abs", "decimal(38,2)", "-999999999999999999999999999999999999.99"),
            "999999999999999999999999999999999999.99");
  CHECK_STR(FTN("abs", "double", 2, "-0", "-Infinity"), "0E0|Infinity");
  CHECK_STR(FTN("sign", "integer", 3, "-5", "0", "9"), "-1|0|1");
  CHECK_STR(FT1("sign", "decimal(5,2)", "-2.50"), "-1");
  CHECK_STR(FTN("sign", "double", 2, "NaN", "-0.1"), "NaN|-1.0E0");
}

TEST(ceil_floor_round_truncate) {
  CHECK_STR(FTN("ceil", "double", 3, "-1.5", "1.2", "2"), "-1.0E0|2.0E0|2.0E0");
  CHECK_STR(FTN("floor", "double", 2, "-1.5", "1.7"), "-2.0E0|1.0E0");
  ex_type_t rt;
  CHECK_STR(ft_eval_ex("floor", "decimal(3,1)", 3, (const char *const[]){"-1.5", "1.5", "-1.0"},
                       NULL, 0, 0, &rt),
            "-2|1|-1");
  CHECK_STR(ex_type_str(&rt), "decimal(3,0)");
  CHECK_STR(FTN("ceiling", "decimal(3,1)", 2, "-1.5", "1.1"), "-1|2");
  CHECK_STR(FTN("round", "double", 4, "2.5", "-2.5", "0.49999999999999994", "-0.5"),
            "3.0E0|-3.0E0|0E0|-1.0E0");
  CHECK_STR(FTN("round", "decimal(10,3)", 3, "2.345", "-2.5", "0.499"), "2|-3|0");
  CHECK_STR(FTN("round", "decimal(4,3);bigint", 3, "2.345", "2", "-2.345", "2", "2.344", "2"),
            "2.350|-2.350|2.340");
  CHECK_STR(FT1("round", "decimal(38,0);bigint", "99999999999999999999999999999999999999", "-1"),
            "ERR:Decimal overflow in round()");
  CHECK_STR(FTN("round", "integer;bigint", 4, "1234", "-2", "1250", "-2", "-1250", "-2", "5", "1"),
            "1200|1300|-1300|5");
  CHECK_STR(FT1("round", "tinyint;bigint", "125", "-1"),
            "ERR:tinyint round overflow: round(125, -1)");
  CHECK_STR(FTN("round", "double;bigint", 3, "2.567", "2", "-2.5", "0", "1234.5", "-2"),
            "2.57E0|-3.0E0|1.2E3");
  CHECK_STR(FTN("truncate", "double", 2, "-2.7", "2.7"), "-2.0E0|2.0E0");
  CHECK_STR(FTN("truncate", "decimal(4,2)", 2, "-2.79", "2.79"), "-2|2");
  CHECK_STR(FT1("round", "bigint", "-7"), "-7");
}

TEST(exp_log_power) {
  CHECK_STR(FTN("sqrt", "double", 3, "4", "-1", "0"), "2.0E0|NaN|0E0");
  CHECK_STR(FT1("sqrt", "integer", "9"), "3.0E0");
  CHECK_STR(FT1("cbrt", "double", "-27"), "-3.0E0");
  CHECK_STR(FTN("ln", "double", 2, "0", "1"), "-Infinity|0E0");
  CHECK_STR(FT1("exp", "double", "0"), "1.0E0");
  CHECK_STR(FT1("log2", "double", "8"), "3.0E0");
  CHECK_STR(FT1("log10", "double", "1000"), "3.0E0");
  CHECK_STR(FT1("log", "double;double", "2", "1024"), "1.0E1");
  CHECK_STR(FTN("power", "double;double", 2, "2", "10", "-8", "0.3333333333333333"), "1.024E3|NaN");
  CHECK_STR(FT1("pow", "bigint;bigint", "3", "4"), "8.1E1");
  CHECK_STR(FTN("mod", "integer;integer", 2, "-7", "3", "7", "-3"), "-1|1");
  CHECK_STR(FT1("mod", "double;double", "5.5", "2"), "1.5E0");
}

TEST(constants_and_predicates) {
  CHECK_STR(ft_eval("pi", "", 1, none), "3.141592653589793E0");
  CHECK_STR(ft_eval("e", "", 2, none), "2.718281828459045E0|2.718281828459045E0");
  CHECK_STR(ft_eval("nan", "", 1, none), "NaN");
  CHECK_STR(ft_eval("infinity", "", 1, none), "Infinity");
  CHECK_STR(FTN("is_nan", "double", 3, "NaN", "1", NULL), "true|false|NULL");
  CHECK_STR(FTN("is_finite", "double", 3, "Infinity", "1", "NaN"), "false|true|false");
  CHECK_STR(FTN("is_infinite", "double", 3, "-Infinity", "1", "NaN"), "true|false|false");
  /* random: within bounds, and differs across rows. */
  const char *r = ft_eval("random", "", 8, none);
  CHECK(strstr(r, "E") != NULL);
  double first = atof(r);
  CHECK(first >= 0 && first < 1);
  const char *rn = FTN("random", "bigint", 4, "3", "3", "3", "3");
  for (const char *p = rn; *p; p++) CHECK(*p == '|' || (*p >= '0' && *p <= '2'));
  CHECK_STR(FT1("random", "bigint", "0"), "ERR:bound must be positive: 0");
}

TEST(greatest_least) {
  CHECK_STR(FT1("greatest", "integer;integer;integer", "1", "5", "3"), "5");
  CHECK_STR(FT1("least", "integer;bigint;integer", "1", "-5", "3"), "-5");
  CHECK_STR(FT1("greatest", "integer;double", "1", "2.5"), "2.5E0");
  CHECK_STR(FT1("greatest", "integer;integer", "1", NULL), "NULL");
  CHECK_STR(FT1("greatest", "varchar;varchar;varchar", "apple", "pear", "fig"), "pear");
  CHECK_STR(FT1("least", "decimal(3,1);decimal(4,2)", "1.5", "1.49"), "1.49");
  CHECK_STR(FT1("greatest", "date;date", "2020-01-01", "1969-01-01"), "2020-01-01");
  CHECK_STR(FT1("greatest", "double;double", "NaN", "1"),
            "ERR:Invalid argument to greatest(): NaN");
}
