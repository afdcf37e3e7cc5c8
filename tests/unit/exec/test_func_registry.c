/*
 * test_func_registry.c - overload resolution: Trino's implicit coercions,
 * decimal result types, type variables and the messages for calls that
 * match nothing.
 */
#include "ft.h"
#include "test.h"

TEST(resolve_integer_widening) {
  CHECK_STR(ft_resolve("+", "integer;bigint"), "bigint <- bigint bigint");
  CHECK_STR(ft_resolve("+", "tinyint;smallint"), "smallint <- smallint smallint");
  CHECK_STR(ft_resolve("+", "tinyint;tinyint"), "tinyint <- tinyint tinyint");
  CHECK_STR(ft_resolve("+", "integer;double"), "double <- double double");
  CHECK_STR(ft_resolve("+", "integer;real"), "real <- real real");
  CHECK_STR(ft_resolve("+", "real;double"), "double <- double double");
  CHECK_STR(ft_resolve("+", "unknown;integer"), "integer <- integer integer");
  CHECK_STR(ft_resolve("sqrt", "integer"), "double <- double");
}

TEST(resolve_decimal_result_types) {
  CHECK_STR(ft_resolve("+", "bigint;decimal(10,2)"),
            "decimal(22,2) <- decimal(19,0) decimal(10,2)");
  CHECK_STR(ft_resolve("+", "decimal(38,0);decimal(38,10)"),
            "decimal(38,10) <- decimal(38,0) decimal(38,10)");
  CHECK_STR(ft_resolve("-", "decimal(5,2);decimal(7,4)"),
            "decimal(8,4) <- decimal(5,2) decimal(7,4)");
  CHECK_STR(ft_resolve("*", "decimal(20,5);decimal(20,5)"),
            "decimal(38,10) <- decimal(20,5) decimal(20,5)");
  CHECK_STR(ft_resolve("*", "decimal(3,1);integer"), "decimal(13,1) <- decimal(3,1) decimal(10,0)");
  CHECK_STR(ft_resolve("/", "decimal(10,2);decimal(5,3)"),
            "decimal(14,3) <- decimal(10,2) decimal(5,3)");
  CHECK_STR(ft_resolve("%", "decimal(10,2);decimal(5,3)"),
            "decimal(5,3) <- decimal(10,2) decimal(5,3)");
  CHECK_STR(ft_resolve("round", "decimal(10,3)"), "decimal(8,0) <- decimal(10,3)");
  CHECK_STR(ft_resolve("truncate", "decimal(10,3)"), "decimal(7,0) <- decimal(10,3)");
  CHECK_STR(ft_resolve("abs", "decimal(10,3)"), "decimal(10,3) <- decimal(10,3)");
  CHECK_STR(ft_resolve("+", "decimal(10,2);double"), "double <- double double");
  CHECK_STR(ft_resolve("+", "decimal(10,2);real"), "real <- real real");
  CHECK(strncmp(ft_resolve("*", "decimal(38,20);decimal(38,20)"), "ERR:DECIMAL scale must be",
                25) == 0);
}

TEST(resolve_type_variables) {
  CHECK_STR(ft_resolve("=", "date;timestamp"), "boolean <- timestamp(6) timestamp(6)");
  CHECK_STR(ft_resolve("=", "timestamp;timestamp with time zone"),
            "boolean <- timestamp(6) with time zone timestamp(6) with time zone");
  /* Decimals keep their own scale for comparison; integers become decimals. */
  CHECK_STR(ft_resolve("=", "integer;decimal(5,2)"), "boolean <- decimal(10,0) decimal(5,2)");
  CHECK_STR(ft_resolve("<", "decimal(38,0);decimal(38,37)"),
            "boolean <- decimal(38,0) decimal(38,37)");
  CHECK_STR(ft_resolve("coalesce", "integer;bigint;unknown"), "bigint <- bigint bigint bigint");
  CHECK_STR(ft_resolve("greatest", "integer;double"), "double <- double double");
  CHECK_STR(ft_resolve("coalesce", "decimal(5,2);decimal(7,1)"),
            "decimal(8,2) <- decimal(8,2) decimal(8,2)");
  CHECK_STR(ft_resolve("if", "boolean;varchar;unknown"), "varchar <- boolean varchar varchar");
  CHECK_STR(ft_resolve("concat", "varchar;varchar;varchar"), "varchar <- varchar varchar varchar");
  CHECK_STR(ft_resolve("and", "boolean;boolean;unknown"), "boolean <- boolean boolean boolean");
}

TEST(resolve_temporal) {
  CHECK_STR(ft_resolve("date_add", "varchar;integer;date"), "date <- varchar bigint date");
  CHECK_STR(ft_resolve("+", "date;interval day to second"), "date <- date interval day to second");
  CHECK_STR(ft_resolve("+", "interval year to month;timestamp"),
            "timestamp(6) <- interval year to month timestamp(6)");
  CHECK_STR(ft_resolve("-", "timestamp;timestamp"),
            "interval day to second <- timestamp(6) timestamp(6)");
  CHECK_STR(ft_resolve("year", "timestamp with time zone"),
            "bigint <- timestamp(6) with time zone");
  CHECK_STR(ft_resolve("to_unixtime", "timestamp"), "double <- timestamp(6) with time zone");
}

TEST(resolve_errors) {
  /* A varchar is never a number implicitly. */
  CHECK_STR(ft_resolve("+", "varchar;integer"), "ERR:Cannot apply operator: varchar + integer");
  CHECK_STR(ft_resolve("=", "varchar;bigint"), "ERR:Cannot apply operator: varchar = bigint");
  CHECK_STR(ft_resolve("nosuch", "integer"), "ERR:Function 'nosuch' not registered");
  const char *r = ft_resolve("abs", "varchar");
  CHECK(strncmp(r, "ERR:Unexpected parameters (varchar) for function abs. Expected: abs(tinyint)",
                75) == 0);
  CHECK(strncmp(ft_resolve("substr", "varchar"),
                "ERR:Unexpected parameters (varchar) for function substr", 55) == 0);
  CHECK(strncmp(ft_resolve("<", "json;json"), "ERR:Cannot apply operator",
                25) == 0);
  /* Narrowing is never implicit. */
  CHECK(strncmp(ft_resolve("chr", "double"), "ERR:Unexpected parameters (double)", 34) == 0);
  CHECK_STR(ft_resolve("ABS", "bigint"), "bigint <- bigint");
}

TEST(type_parse_and_common) {
  fl_err_t err;
  ex_type_t t, u, c;
  CHECK_OK(ex_type_parse("decimal(10,2)", &t, &err), &err);
  CHECK_EQ(t.kind, EX_DECIMAL);
  CHECK_EQ(t.precision, 10);
  CHECK_EQ(t.scale, 2);
  CHECK_OK(ex_type_parse("timestamp(6) with time zone", &t, &err), &err);
  CHECK_EQ(t.kind, EX_TIMESTAMPTZ);
  CHECK_OK(ex_type_parse("DOUBLE PRECISION", &t, &err), &err);
  CHECK_EQ(t.kind, EX_DOUBLE);
  CHECK_ERR(ex_type_parse("decimal(39,2)", &t, &err), FL_EINVALID);
  CHECK_ERR(ex_type_parse("strng", &t, &err), FL_EPARSE);
  CHECK_STR(err.msg, "Unknown type: 'strng'");
  CHECK_OK(ex_type_parse("decimal(38,0)", &t, &err), &err);
  CHECK_OK(ex_type_parse("decimal(38,37)", &u, &err), &err);
  CHECK(ex_type_common(&t, &u, &c));
  CHECK_STR(ex_type_str(&c), "decimal(38,37)"); /* capped at 38 digits */
  t = ex_type(EX_VARCHAR);
  u = ex_type(EX_INTEGER);
  CHECK(!ex_type_common(&t, &u, &c));
  CHECK_EQ(ex_type_coercion_cost(&u, &t), -1);
  t = ex_type(EX_BIGINT);
  CHECK_EQ(ex_type_coercion_cost(&t, &u), -1);
  CHECK_EQ(ex_type_coercion_cost(&u, &t), 1);
}

TEST(registry_is_complete) {
  size_t n;
  const ex_func_t *fs = ex_func_list(&n);
  CHECK(n > 300);
  for (size_t i = 0; i < n; i++) {
    CHECK(fs[i].name && fs[i].name[0]);
    CHECK(fs[i].kernel != NULL);
    CHECK(fs[i].nparams <= 4);
  }
  CHECK(ex_func_exists("regexp_like"));
  CHECK(ex_func_exists("DATE_TRUNC"));
  CHECK(!ex_func_exists("no_such_function"));
}

/* docs/functions.md names every registered function. */
TEST(every_function_is_documented) {
  FILE *f = fopen("docs/functions.md", "rb");
  CHECK(f != NULL);
  static char doc[1 << 17];
  size_t n = fread(doc, 1, sizeof doc - 1, f);
  fclose(f);
  doc[n] = 0;
  size_t nf;
  const ex_func_t *fs = ex_func_list(&nf);
  for (size_t i = 0; i < nf; i++) {
    const char *name = fs[i].name;
    size_t len = strlen(name);
    bool found = false;
    for (const char *p = strstr(doc, name); p && !found; p = strstr(p + 1, name)) {
      char before = p > doc ? p[-1] : ' ', after = p[len];
      bool ident = (name[0] >= 'a' && name[0] <= 'z');
      found = !ident ||
              (!(before == '_' || (before >= 'a' && before <= 'z')) &&
               !(after == '_' || (after >= 'a' && after <= 'z') || (after >= '0' && after <= '9')));
    }
    if (!found) t_fail(__FILE__, __LINE__, "%s is not in docs/functions.md", name);
  }
}
