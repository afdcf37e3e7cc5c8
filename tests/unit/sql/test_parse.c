/*
 * test_parse.c - the SQL lexer, parser and printer (layer 7, sql).
 *
 * Most cases are pairs of SQL text and its canonical printed form, which
 * shows precedence (every operator application is parenthesized), node
 * shapes (join trees, set-operation trees, normalized types) and the words
 * the parser kept. Every case is also printed, re-parsed and printed again,
 * which must give the same text. Error cases check line, column and the
 * message. Further tests look at tree fields directly, at scripts and
 * statement splitting, the caret display, and hostile input.
 */
#include <stdlib.h>

#include "base/arena.h"
#include "base/buf.h"
#include "sql/sql_parse.h"
#include "sql/sql_print.h"
#include "test.h"

typedef struct sql_case {
  const char *in;
  const char *want;
} sql_case_t;

typedef struct sql_error_case {
  const char *in;
  unsigned line, col;
  const char *msg; /* the message after "line L, column C: " */
} sql_error_case_t;

typedef enum { PARSE_STMT, PARSE_EXPR, PARSE_TYPE } parse_mode_t;

/* Parses text in one of the modes and prints it; NULL (err set) on failure. */
static char *parse_print(fl_arena_t *a, parse_mode_t mode, const char *text, fl_err_t *err) {
  fl_buf_t b;
  fl_buf_init(&b);
  int rc;
  if (mode == PARSE_EXPR) {
    sql_expr_t *e;
    rc = sql_parse_expression(a, text, strlen(text), &e, err);
    if (!rc) sql_print_expr(e, &b);
  } else if (mode == PARSE_TYPE) {
    sql_type_t *t;
    rc = sql_parse_type(a, text, strlen(text), &t, err);
    if (!rc) sql_print_type(t, &b);
  } else {
    sql_stmt_t *s;
    rc = sql_parse_statement(a, text, strlen(text), &s, err);
    if (!rc) sql_print_stmt(s, &b);
  }
  char *out = rc ? NULL : fl_arena_strndup(a, b.len ? (const char *)b.data : "", b.len);
  fl_buf_free(&b);
  return out;
}

/* Checks one case: the printed form, and that it survives a round trip. */
static bool check_case(parse_mode_t mode, const sql_case_t *c, const char *file, int line) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  bool ok = false;
  char *got = parse_print(a, mode, c->in, &err);
  if (!got) {
    t_fail(file, line, "parsing \"%s\" failed: %s", c->in, err.msg);
  } else if (strcmp(got, c->want) != 0) {
    t_fail(file, line, "\"%s\"\n    printed  \"%s\"\n    expected \"%s\"", c->in, got, c->want);
  } else {
    char *again = parse_print(a, mode, got, &err);
    if (!again)
      t_fail(file, line, "re-parsing \"%s\" failed: %s", got, err.msg);
    else if (strcmp(again, got) != 0)
      t_fail(file, line, "round trip of \"%s\" printed \"%s\"", got, again);
    else
      ok = true;
  }
  fl_arena_free(a);
  return ok;
}

static int run_cases(parse_mode_t mode, const sql_case_t *cases, size_t n, const char *file,
                     int line) {
  int failed = 0;
  for (size_t i = 0; i < n; i++)
    if (!check_case(mode, &cases[i], file, line)) failed++;
  return failed;
}

#define RUN_CASES(mode, cases) \
  CHECK_EQ(run_cases(mode, cases, sizeof cases / sizeof cases[0], __FILE__, __LINE__), 0)

/* Parses a statement that must fail; checks code, position and message. */
static bool check_error(const char *in, unsigned line, unsigned col, const char *msg,
                        const char *file, int at) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  sql_stmt_t *s;
  bool ok = false;
  char want[900];
  snprintf(want, sizeof want, "line %u, column %u: %s", line, col, msg);
  int rc = sql_parse_statement(a, in, strlen(in), &s, &err);
  if (rc == FL_OK)
    t_fail(file, at, "\"%s\" parsed, expected: %s", in, want);
  else if (rc != FL_EPARSE)
    t_fail(file, at, "\"%s\": code %s, expected PARSE", in, fl_code_name(rc));
  else if (strcmp(err.msg, want) != 0)
    t_fail(file, at, "\"%s\"\n    error    \"%s\"\n    expected \"%s\"", in, err.msg, want);
  else
    ok = true;
  fl_arena_free(a);
  return ok;
}

static const sql_case_t expr_cases[] = {
    {"a OR b AND c", "(a OR (b AND c))"},
    {"a AND b OR c AND d", "((a AND b) OR (c AND d))"},
    {"NOT a AND b", "((NOT a) AND b)"},
    {"NOT a = b", "(NOT (a = b))"},
    {"a = b AND c <> d OR e != f", "(((a = b) AND (c <> d)) OR (e <> f))"},
    {"a < b OR a <= b OR a > b OR a >= b", "((((a < b) OR (a <= b)) OR (a > b)) OR (a >= b))"},
    {"a + b * c", "(a + (b * c))"},
    {"(a + b) * c", "((a + b) * c)"},
    {"a - b - c", "((a - b) - c)"},
    {"a / b / c", "((a / b) / c)"},
    {"a * b % c", "((a * b) % c)"},
    {"a || b || c", "((a || b) || c)"},
    {"a || b + c", "(a || (b + c))"},
    {"a + b || c", "((a + b) || c)"},
    {"-a * b", "((-a) * b)"},
    {"-a.b", "(-a.b)"},
    {"- - a", "(-(-a))"},
    {"-(a + b)", "(-(a + b))"},
    {"+a", "(+a)"},
    {"a = -1", "(a = (-1))"},
    {"1 - -1", "(1 - (-1))"},
    {"a IS NULL AND b IS NOT NULL", "((a IS NULL) AND (b IS NOT NULL))"},
    {"a = b IS NULL", "((a = b) IS NULL)"},
    {"a IS DISTINCT FROM b + 1", "(a IS DISTINCT FROM (b + 1))"},
    {"a BETWEEN 1 AND 2 AND b", "((a BETWEEN 1 AND 2) AND b)"},
    {"a NOT BETWEEN b + 1 AND c * 2", "(a NOT BETWEEN (b + 1) AND (c * 2))"},
    {"a BETWEEN 1 AND 2 OR a BETWEEN 3 AND 4", "((a BETWEEN 1 AND 2) OR (a BETWEEN 3 AND 4))"},
    {"a IN (1)", "(a IN (1))"},
    {"a IN (1, 2, 3)", "(a IN (1, 2, 3))"},
    {"a NOT IN ('x', 'y')", "(a NOT IN ('x', 'y'))"},
    {"a IN (SELECT b FROM t)", "(a IN (SELECT b FROM t))"},
    {"a NOT IN (SELECT b FROM t WHERE c)", "(a NOT IN (SELECT b FROM t WHERE c))"},
    {"a LIKE 'x%'", "(a LIKE 'x%')"},
    {"a NOT LIKE 'x\\_%' ESCAPE '\\'", "(a NOT LIKE 'x\\_%' ESCAPE '\\')"},
    {"a LIKE b || '%'", "(a LIKE (b || '%'))"},
    {"EXISTS (SELECT 1 FROM t)", "(EXISTS (SELECT 1 FROM t))"},
    {"NOT EXISTS (SELECT 1)", "(NOT (EXISTS (SELECT 1)))"},
    {"(SELECT 1)", "(SELECT 1)"},
    {"(SELECT max(a) FROM t) + 1", "((SELECT max(a) FROM t) + 1)"},
    {"a = ANY (SELECT b FROM t)", "(a = ANY (SELECT b FROM t))"},
    {"a <> ALL (SELECT b FROM t)", "(a <> ALL (SELECT b FROM t))"},
    {"a >= SOME (SELECT b FROM t)", "(a >= SOME (SELECT b FROM t))"},
    {"CASE WHEN a THEN 1 END", "CASE WHEN a THEN 1 END"},
    {"CASE WHEN a > 1 THEN 'x' WHEN a > 0 THEN 'y' ELSE 'z' END",
     "CASE WHEN (a > 1) THEN 'x' WHEN (a > 0) THEN 'y' ELSE 'z' END"},
    {"CASE a WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END",
     "CASE a WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END"},
    {"CASE a + 1 WHEN b THEN c END", "CASE (a + 1) WHEN b THEN c END"},
    {"CAST(a AS bigint)", "CAST(a AS bigint)"},
    {"CAST(a + 1 AS varchar(10))", "CAST((a + 1) AS varchar(10))"},
    {"TRY_CAST(a AS double)", "TRY_CAST(a AS double)"},
    {"CAST(NULL AS array(integer))", "CAST(NULL AS array(integer))"},
    {"coalesce(a, b, 0)", "coalesce(a, b, 0)"},
    {"nullif(a, '')", "nullif(a, '')"},
    {"if(a > 0, 'pos', 'neg')", "if((a > 0), 'pos', 'neg')"},
    {"count(*)", "count(*)"},
    {"count(DISTINCT a)", "count(DISTINCT a)"},
    {"count(ALL a)", "count(a)"},
    {"sum(a) FILTER (WHERE b > 0)", "sum(a) FILTER (WHERE (b > 0))"},
    {"array_agg(a ORDER BY b DESC)", "array_agg(a ORDER BY b DESC)"},
    {"max(a) OVER ()", "max(a) OVER ()"},
    {"row_number() OVER (ORDER BY a)", "row_number() OVER (ORDER BY a)"},
    {"rank() OVER (PARTITION BY a, b ORDER BY c DESC NULLS FIRST)",
     "rank() OVER (PARTITION BY a, b ORDER BY c DESC NULLS FIRST)"},
    {"sum(a) OVER (PARTITION BY b ORDER BY c ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
     "sum(a) OVER (PARTITION BY b ORDER BY c ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"},
    {"sum(a) OVER (ORDER BY c ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING)",
     "sum(a) OVER (ORDER BY c ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING)"},
    {"sum(a) OVER (ORDER BY c RANGE BETWEEN INTERVAL '1' DAY PRECEDING AND UNBOUNDED FOLLOWING)",
     "sum(a) OVER (ORDER BY c RANGE BETWEEN INTERVAL '1' DAY PRECEDING AND UNBOUNDED FOLLOWING)"},
    {"sum(a) OVER (ORDER BY c ROWS UNBOUNDED PRECEDING)",
     "sum(a) OVER (ORDER BY c ROWS UNBOUNDED PRECEDING)"},
    {"sum(a) OVER (ORDER BY c GROUPS BETWEEN CURRENT ROW AND 1 FOLLOWING)",
     "sum(a) OVER (ORDER BY c GROUPS BETWEEN CURRENT ROW AND 1 FOLLOWING)"},
    {"sum(a) OVER w", "sum(a) OVER w"},
    {"sum(a) OVER (w ORDER BY b)", "sum(a) OVER (w ORDER BY b)"},
    {"count(*) FILTER (WHERE a) OVER (PARTITION BY b)",
     "count(*) FILTER (WHERE a) OVER (PARTITION BY b)"},
    {"EXTRACT(YEAR FROM ts)", "EXTRACT(YEAR FROM ts)"},
    {"EXTRACT(day_of_week FROM ts)", "EXTRACT(DAY_OF_WEEK FROM ts)"},
    {"EXTRACT(SECOND FROM ts + INTERVAL '1' SECOND)",
     "EXTRACT(SECOND FROM (ts + INTERVAL '1' SECOND))"},
    {"ts AT TIME ZONE 'America/New_York'", "(ts AT TIME ZONE 'America/New_York')"},
    {"ts AT TIME ZONE 'UTC' AT TIME ZONE 'Europe/Paris'",
     "((ts AT TIME ZONE 'UTC') AT TIME ZONE 'Europe/Paris')"},
    {"ts AT TIME ZONE INTERVAL '1' HOUR", "(ts AT TIME ZONE INTERVAL '1' HOUR)"},
    {"ts AT LOCAL", "(ts AT LOCAL)"},
    {"a[1]", "a[1]"},
    {"a[1][2]", "a[1][2]"},
    {"m['key']", "m['key']"},
    {"a[i + 1]", "a[(i + 1)]"},
    {"s.f", "s.f"},
    {"t.s.f", "t.s.f"},
    {"(s).f", "(s).f"},
    {"(a.b).c", "(a.b).c"},
    {"f(x).y", "f(x).y"},
    {"a[1].b", "a[1].b"},
    {"(a + b).c", "(a + b).c"},
    {"ARRAY[]", "ARRAY[]"},
    {"ARRAY[1, 2, 3]", "ARRAY[1, 2, 3]"},
    {"ARRAY[ARRAY[1], ARRAY[2]]", "ARRAY[ARRAY[1], ARRAY[2]]"},
    {"ARRAY[1, 2][1]", "ARRAY[1, 2][1]"},
    {"ROW(1, 'a', TRUE)", "ROW(1, 'a', TRUE)"},
    {"(1, 2)", "(1, 2)"},
    {"(1, 2) = (a, b)", "((1, 2) = (a, b))"},
    {"MAP(ARRAY['a'], ARRAY[1])", "map(ARRAY['a'], ARRAY[1])"},
    {"map()", "map()"},
    {"transform(a, x -> x * 2)", "transform(a, (x) -> (x * 2))"},
    {"reduce(a, 0, (s, x) -> s + x, s -> s)", "reduce(a, 0, (s, x) -> (s + x), (s) -> s)"},
    {"filter(a, x -> x IS NOT NULL)", "filter(a, (x) -> (x IS NOT NULL))"},
    {"42", "42"},
    {"0", "0"},
    {"9223372036854775807", "9223372036854775807"},
    {"9223372036854775808", "9223372036854775808"},
    {"123456789012345678901234567890", "123456789012345678901234567890"},
    {"1.5", "1.5"},
    {".5", ".5"},
    {"1.", "1."},
    {"1e10", "1e10"},
    {"1E-10", "1E-10"},
    {"2.5e+3", "2.5e+3"},
    {"'hello'", "'hello'"},
    {"'it''s'", "'it''s'"},
    {"''", "''"},
    {"U&'caf\\00E9'", "'café'"},
    {"U&'\\+01F600'", "'😀'"},
    {"X'00ff'", "X'00FF'"},
    {"X''", "X''"},
    {"TRUE", "TRUE"},
    {"false", "FALSE"},
    {"NULL", "NULL"},
    {"DATE '2026-01-01'", "DATE '2026-01-01'"},
    {"TIME '12:34:56.789'", "TIME '12:34:56.789'"},
    {"TIMESTAMP '2026-01-01 00:00:00'", "TIMESTAMP '2026-01-01 00:00:00'"},
    {"TIMESTAMP '2026-01-01 00:00:00 UTC'", "TIMESTAMP '2026-01-01 00:00:00 UTC'"},
    {"TIMESTAMP '2026-01-01 00:00:00.123456+02:00'",
     "TIMESTAMP '2026-01-01 00:00:00.123456+02:00'"},
    {"DECIMAL '1.23'", "DECIMAL '1.23'"},
    {"REAL '1.5'", "REAL '1.5'"},
    {"INTERVAL '5' SECOND", "INTERVAL '5' SECOND"},
    {"INTERVAL '1-2' YEAR TO MONTH", "INTERVAL '1-2' YEAR TO MONTH"},
    {"INTERVAL '3' DAY", "INTERVAL '3' DAY"},
    {"INTERVAL '2 03:04:05' DAY TO SECOND", "INTERVAL '2 03:04:05' DAY TO SECOND"},
    {"INTERVAL -'1' HOUR", "INTERVAL -'1' HOUR"},
    {"INTERVAL '10' MINUTE", "INTERVAL '10' MINUTE"},
    {"INTERVAL '1' MONTH", "INTERVAL '1' MONTH"},
    {"?", "?"},
    {"? + ?", "(? + ?)"},
    {"CURRENT_DATE", "CURRENT_DATE"},
    {"CURRENT_TIME", "CURRENT_TIME"},
    {"CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP"},
    {"CURRENT_TIMESTAMP(3)", "CURRENT_TIMESTAMP(3)"},
    {"LOCALTIMESTAMP", "LOCALTIMESTAMP"},
    {"LOCALTIME(6)", "LOCALTIME(6)"},
    {"date + interval '1' day", "(date + INTERVAL '1' DAY)"},
    {"year", "year"},
    {"data", "data"},
    {"comment", "comment"},
    {"\"select\"", "\"select\""},
    {"\"Mixed Case\"", "\"Mixed Case\""},
    {"\"a\"\"b\"", "\"a\"\"b\""},
    {"`flink`", "\"flink\""},
    {"cat.ns.t.c", "cat.ns.t.c"},
    {"a.b.c.d.e", "a.b.c.d.e"},
    {"sys.f(1)", "sys.f(1)"},
    {"grouping(a, b)", "grouping(a, b)"},
    {"interval - 1", "(interval - 1)"},
    {"array", "\"array\""},
    {"array[1]", "ARRAY[1]"},
    {"\"array\"[1]", "\"array\"[1]"},
    {"a = b = c", "((a = b) = c)"},
    {"a OR b OR c OR d", "(((a OR b) OR c) OR d)"},
    {"a AND (b OR c)", "(a AND (b OR c))"},
    {"(a OR b) AND c", "((a OR b) AND c)"},
    {"NOT (a AND b)", "(NOT (a AND b))"},
    {"a * (b + c) / d", "((a * (b + c)) / d)"},
    {"-2 * -3", "((-2) * (-3))"},
    {"a % 2 = 0", "((a % 2) = 0)"},
    {"x'01' || x'02'", "(X'01' || X'02')"},
    {"lag(x, 1) IGNORE NULLS OVER (ORDER BY t)", "lag(x, 1) IGNORE NULLS OVER (ORDER BY t)"},
    {"first_value(x) respect nulls OVER w", "first_value(x) RESPECT NULLS OVER w"},
    {"position('a' IN s)", "position('a', s)"},
    {"position(a IN (SELECT 1))", "position(a, (SELECT 1))"},
    {"substring(s FROM 2 FOR 3)", "substring(s, 2, 3)"},
    {"substring(s FROM 2)", "substring(s, 2)"},
    {"substring(s, 1)", "substring(s, 1)"},
    {"trim(s)", "trim(s)"},
    {"trim(BOTH ' ' FROM s)", "trim(s, ' ')"},
    {"trim(LEADING FROM s)", "ltrim(s)"},
    {"trim(TRAILING 'x' FROM s)", "rtrim(s, 'x')"},
    {"trim('x' FROM s)", "trim(s, 'x')"},
    {"trim(both)", "trim(both)"},
    {"\"trim\"(x)", "\"trim\"(x)"},
};

static const sql_case_t type_cases[] = {
    {"boolean", "boolean"},
    {"BOOL", "boolean"},
    {"tinyint", "tinyint"},
    {"smallint", "smallint"},
    {"integer", "integer"},
    {"INT", "integer"},
    {"bigint", "bigint"},
    {"long", "bigint"},
    {"real", "real"},
    {"float", "real"},
    {"double", "double"},
    {"DOUBLE PRECISION", "double"},
    {"decimal", "decimal"},
    {"decimal(10)", "decimal(10)"},
    {"DECIMAL(38, 9)", "decimal(38, 9)"},
    {"numeric(5,2)", "decimal(5, 2)"},
    {"varchar", "varchar"},
    {"varchar(255)", "varchar(255)"},
    {"string", "varchar"},
    {"STRING", "varchar"},
    {"char(3)", "char(3)"},
    {"character(3)", "char(3)"},
    {"character varying(10)", "varchar(10)"},
    {"varbinary", "varbinary"},
    {"binary", "varbinary"},
    {"BYTES", "varbinary"},
    {"fixed(16)", "fixed(16)"},
    {"date", "date"},
    {"time", "time"},
    {"time(3)", "time(3)"},
    {"time with time zone", "time with time zone"},
    {"timestamp", "timestamp"},
    {"timestamp(3)", "timestamp(3)"},
    {"timestamp(6) with time zone", "timestamp(6) with time zone"},
    {"timestamp without time zone", "timestamp"},
    {"timestamp(9) without time zone", "timestamp(9)"},
    {"TIMESTAMP(3) WITH LOCAL TIME ZONE", "timestamp(3) with time zone"},
    {"timestamptz", "timestamp with time zone"},
    {"TIMESTAMP_LTZ(3)", "timestamp(3) with time zone"},
    {"uuid", "uuid"},
    {"timestamp_ns", "timestamp(9)"},
    {"TIMESTAMPTZ_NS", "timestamp(9) with time zone"},
    {"json", "json"},
    {"array(integer)", "array(integer)"},
    {"array(array(varchar))", "array(array(varchar))"},
    {"ARRAY<INT>", "array(integer)"},
    {"ARRAY<ARRAY<STRING>>", "array(array(varchar))"},
    {"map(varchar, bigint)", "map(varchar, bigint)"},
    {"MAP<STRING, INT>", "map(varchar, integer)"},
    {"MAP<STRING, ARRAY<INT>>", "map(varchar, array(integer))"},
    {"row(a integer, b varchar)", "row(a integer, b varchar)"},
    {"row(integer, varchar)", "row(integer, varchar)"},
    {"ROW<a INT, b STRING>", "row(a integer, b varchar)"},
    {"ROW(a INT NOT NULL, b STRING)", "row(a integer NOT NULL, b varchar)"},
    {"row(date date, \"Key\" bigint)", "row(date date, \"Key\" bigint)"},
    {"row(a row(b array(map(varchar, timestamp(3) with time zone))))",
     "row(a row(b array(map(varchar, timestamp(3) with time zone))))"},
    {"row(double precision)", "row(double)"},
};

static const sql_case_t query_cases[] = {
    {"SELECT DISTINCT t.*, \"Quoted \"\"x\"\"\" FROM cat.ns.t AS t (a, b)",
     "SELECT DISTINCT t.*, \"Quoted \"\"x\"\"\" FROM cat.ns.t AS t (a, b)"},
    {"SELECT * FROM read_parquet('x/*.parquet')",
     "SELECT * FROM TABLE(read_parquet('x/*.parquet'))"},
    {"SELECT window_start, count(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '5' "
     "SECOND)) GROUP BY window_start, window_end",
     "SELECT window_start, count(*) FROM TABLE(tumble(TABLE src, DESCRIPTOR(ts), INTERVAL '5' "
     "SECOND)) GROUP BY window_start, window_end"},
    {"SELECT * FROM TABLE(HOP(TABLE src, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '5' "
     "MINUTE))",
     "SELECT * FROM TABLE(hop(TABLE src, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '5' "
     "MINUTE))"},
    {"SELECT x, n FROM UNNEST(ARRAY[1,2]) WITH ORDINALITY AS u(x, n)",
     "SELECT x, n FROM UNNEST(ARRAY[1, 2]) WITH ORDINALITY AS u (x, n)"},
    {"SELECT * FROM t FOR VERSION AS OF 123", "SELECT * FROM t FOR VERSION AS OF 123"},
    {"SELECT * FROM t FOR VERSION AS OF 'branch' AS b",
     "SELECT * FROM t FOR VERSION AS OF 'branch' AS b"},
    {"SELECT * FROM t FOR TIMESTAMP AS OF TIMESTAMP '2026-01-01 00:00:00 UTC'",
     "SELECT * FROM t FOR TIMESTAMP AS OF TIMESTAMP '2026-01-01 00:00:00 UTC'"},
    {"SELECT * FROM \"t$snapshots\"", "SELECT * FROM \"t$snapshots\""},
    {"SELECT a FROM t GROUP BY ROLLUP (a, b), CUBE (c), GROUPING SETS ((a, b), (a), ()) HAVING "
     "count(*) > 1",
     "SELECT a FROM t GROUP BY ROLLUP (a, b), CUBE (c), GROUPING SETS ((a, b), (a), ()) HAVING "
     "(count(*) > 1)"},
    {"WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT * FROM "
     "r",
     "WITH RECURSIVE r (n) AS ((SELECT 1) UNION ALL (SELECT (n + 1) FROM r WHERE (n < 10))) SELECT "
     "* FROM r"},
    {"SELECT 1 UNION SELECT 2 INTERSECT SELECT 3 EXCEPT DISTINCT SELECT 4",
     "((SELECT 1) UNION ((SELECT 2) INTERSECT (SELECT 3))) EXCEPT DISTINCT (SELECT 4)"},
    {"(SELECT 1 ORDER BY 1 LIMIT 1) UNION ALL (SELECT 2)",
     "(SELECT 1 ORDER BY 1 LIMIT 1) UNION ALL (SELECT 2)"},
    {"VALUES (1, 'a'), (2, 'b')", "VALUES (1, 'a'), (2, 'b')"},
    {"SELECT * FROM (VALUES (1, 2)) AS v (a, b)", "SELECT * FROM (VALUES (1, 2)) AS v (a, b)"},
    {"SELECT a FROM t ORDER BY a OFFSET 10 ROWS FETCH FIRST 5 ROWS ONLY",
     "SELECT a FROM t ORDER BY a OFFSET 10 FETCH FIRST 5 ROWS ONLY"},
    {"SELECT a FROM t LIMIT 10 OFFSET 5", "SELECT a FROM t OFFSET 5 LIMIT 10"},
    {"SELECT CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END, CASE x WHEN 1 THEN 'a' END FROM t",
     "SELECT CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END, CASE x WHEN 1 THEN 'a' END FROM t"},
    {"SELECT CAST(a AS decimal(10,2)), TRY_CAST(b AS varchar), coalesce(a, b), nullif(a, b), if(a, "
     "b, c)",
     "SELECT CAST(a AS decimal(10, 2)), TRY_CAST(b AS varchar), coalesce(a, b), nullif(a, b), "
     "if(a, b, c)"},
    {"SELECT count(DISTINCT a), sum(b) FILTER (WHERE c > 0), row_number() OVER (PARTITION BY a "
     "ORDER BY b ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
     "SELECT count(DISTINCT a), sum(b) FILTER (WHERE (c > 0)), row_number() OVER (PARTITION BY a "
     "ORDER BY b ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"},
    {"SELECT sum(x) OVER w FROM t WINDOW w AS (PARTITION BY a RANGE BETWEEN INTERVAL '1' HOUR "
     "PRECEDING AND 2 FOLLOWING)",
     "SELECT sum(x) OVER w FROM t WINDOW w AS (PARTITION BY a RANGE BETWEEN INTERVAL '1' HOUR "
     "PRECEDING AND 2 FOLLOWING)"},
    {"SELECT EXTRACT(YEAR FROM ts), ts AT TIME ZONE 'UTC', a[1], m['k'], s.f, (s).f, (a.b).c, "
     "ARRAY[1,2], ROW(1, 'a'), MAP(ARRAY['a'], ARRAY[1])",
     "SELECT EXTRACT(YEAR FROM ts), (ts AT TIME ZONE 'UTC'), a[1], m['k'], s.f, (s).f, (a.b).c, "
     "ARRAY[1, 2], ROW(1, 'a'), map(ARRAY['a'], ARRAY[1])"},
    {"SELECT 9223372036854775807, 9223372036854775808, 1.5, .5, 1e10, 1.5E-3, 'it''s', X'aBcd', "
     "TRUE, FALSE, NULL, DATE '2020-01-01', TIME '01:02:03', TIMESTAMP '2020-01-01 00:00:00', "
     "TIMESTAMP '2020-01-01 00:00:00 UTC', INTERVAL '1-2' YEAR TO MONTH, INTERVAL '3' DAY, "
     "INTERVAL -'3' DAY, ?, ?",
     "SELECT 9223372036854775807, 9223372036854775808, 1.5, .5, 1e10, 1.5E-3, 'it''s', X'ABCD', "
     "TRUE, FALSE, NULL, DATE '2020-01-01', TIME '01:02:03', TIMESTAMP '2020-01-01 00:00:00', "
     "TIMESTAMP '2020-01-01 00:00:00 UTC', INTERVAL '1-2' YEAR TO MONTH, INTERVAL '3' DAY, "
     "INTERVAL -'3' DAY, ?, ?"},
    {"SELECT a || b || c, -a, +b, - -c, a - -b, a % b / c, NOT NOT a",
     "SELECT ((a || b) || c), (-a), (+b), (-(-c)), (a - (-b)), ((a % b) / c), (NOT (NOT a))"},
    {"SELECT a IS NULL, a IS NOT NULL, a IS DISTINCT FROM b, a IS NOT DISTINCT FROM b, a NOT "
     "BETWEEN 1 AND 2, a IN (1, 2), a NOT IN (SELECT x FROM y), a LIKE 'x%' ESCAPE '\\', a NOT "
     "LIKE 'y'",
     "SELECT (a IS NULL), (a IS NOT NULL), (a IS DISTINCT FROM b), (a IS NOT DISTINCT FROM b), (a "
     "NOT BETWEEN 1 AND 2), (a IN (1, 2)), (a NOT IN (SELECT x FROM y)), (a LIKE 'x%' ESCAPE "
     "'\\'), (a NOT LIKE 'y')"},
    {"SELECT EXISTS (SELECT 1), (SELECT max(x) FROM t), a = ANY (SELECT b FROM c), a > ALL (SELECT "
     "b FROM c), a < SOME (SELECT 1)",
     "SELECT (EXISTS (SELECT 1)), (SELECT max(x) FROM t), (a = ANY (SELECT b FROM c)), (a > ALL "
     "(SELECT b FROM c)), (a < SOME (SELECT 1))"},
    {"SELECT transform(arr, x -> x + 1), zip_with(a, b, (x, y) -> x * y)",
     "SELECT transform(arr, (x) -> (x + 1)), zip_with(a, b, (x, y) -> (x * y))"},
    {"SELECT current_date, current_timestamp, current_timestamp(3), localtime",
     "SELECT CURRENT_DATE, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP(3), LOCALTIME"},
    {"SELECT date, year, data, comment, \"select\" FROM t",
     "SELECT date, year, data, comment, \"select\" FROM t"},
    {"SELECT * FROM a CROSS JOIN b NATURAL JOIN c FULL OUTER JOIN d ON true RIGHT JOIN e ON false",
     "SELECT * FROM ((((a CROSS JOIN b) NATURAL JOIN c) FULL JOIN d ON TRUE) RIGHT JOIN e ON "
     "FALSE)"},
    {"SELECT * FROM a, LATERAL (SELECT * FROM b WHERE b.x = a.x) l",
     "SELECT * FROM a, LATERAL (SELECT * FROM b WHERE (b.x = a.x)) AS l"},
    {"SELECT * FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.proc_time AS r ON o.c = r.c",
     "SELECT * FROM (orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.proc_time AS r ON (o.c = "
     "r.c))"},
    {"SELECT ((SELECT 1) + 2), ((SELECT 1) UNION (SELECT 2))",
     "SELECT ((SELECT 1) + 2), ((SELECT 1) UNION (SELECT 2))"},
    {"SELECT * FROM ((SELECT 1) a CROSS JOIN b)", "SELECT * FROM ((SELECT 1) AS a CROSS JOIN b)"},
    {"SELECT * FROM (a JOIN b ON x) j", "SELECT * FROM (a JOIN b ON x) AS j"},
    {"SELECT CAST(x AS array(map(varchar, row(a integer, b timestamp(3) with time zone)))), CAST(y "
     "AS ARRAY<MAP<STRING, ROW<a INT NOT NULL, b BIGINT>>>), CAST(z AS timestamptz), CAST(w AS "
     "fixed(16)), CAST(q AS double precision), CAST(r AS long), CAST(s AS binary), CAST(t AS "
     "row(integer, varchar))",
     "SELECT CAST(x AS array(map(varchar, row(a integer, b timestamp(3) with time zone)))), CAST(y "
     "AS array(map(varchar, row(a integer NOT NULL, b bigint)))), CAST(z AS timestamp with time "
     "zone), CAST(w AS fixed(16)), CAST(q AS double), CAST(r AS bigint), CAST(s AS varbinary), "
     "CAST(t AS row(integer, varchar))"},
    {"SELECT 1", "SELECT 1"},
    {"SELECT ALL a FROM t", "SELECT a FROM t"},
    {"SELECT DISTINCT a, b FROM t", "SELECT DISTINCT a, b FROM t"},
    {"SELECT * FROM t", "SELECT * FROM t"},
    {"SELECT t.* FROM t", "SELECT t.* FROM t"},
    {"SELECT cat.ns.t.*, x FROM cat.ns.t", "SELECT cat.ns.t.*, x FROM cat.ns.t"},
    {"SELECT a AS x, b y, c AS \"Z\" FROM t", "SELECT a AS x, b AS y, c AS \"Z\" FROM t"},
    {"SELECT a FROM t AS u", "SELECT a FROM t AS u"},
    {"SELECT a FROM t u", "SELECT a FROM t AS u"},
    {"SELECT a FROM t AS u (x, y)", "SELECT a FROM t AS u (x, y)"},
    {"SELECT a FROM cat.ns.t", "SELECT a FROM cat.ns.t"},
    {"SELECT a FROM \"Cat\".\"NS\".\"T\"", "SELECT a FROM \"Cat\".\"NS\".\"T\""},
    {"SELECT * FROM \"orders$snapshots\"", "SELECT * FROM \"orders$snapshots\""},
    {"SELECT * FROM \"orders$files\" f", "SELECT * FROM \"orders$files\" AS f"},
    {"SELECT * FROM t FOR VERSION AS OF 8954597067493422955",
     "SELECT * FROM t FOR VERSION AS OF 8954597067493422955"},
    {"SELECT * FROM t FOR VERSION AS OF 'audit-branch'",
     "SELECT * FROM t FOR VERSION AS OF 'audit-branch'"},
    {"SELECT * FROM t FOR TIMESTAMP AS OF TIMESTAMP '2026-01-01 00:00:00 UTC'",
     "SELECT * FROM t FOR TIMESTAMP AS OF TIMESTAMP '2026-01-01 00:00:00 UTC'"},
    {"SELECT * FROM t FOR TIMESTAMP AS OF current_timestamp - INTERVAL '1' DAY",
     "SELECT * FROM t FOR TIMESTAMP AS OF (CURRENT_TIMESTAMP - INTERVAL '1' DAY)"},
    {"SELECT * FROM t FOR VERSION AS OF 1 AS old JOIN t FOR VERSION AS OF 2 AS new ON old.id = "
     "new.id",
     "SELECT * FROM (t FOR VERSION AS OF 1 AS old JOIN t FOR VERSION AS OF 2 AS new ON (old.id = "
     "new.id))"},
    {"SELECT * FROM read_parquet('data/*.parquet')",
     "SELECT * FROM TABLE(read_parquet('data/*.parquet'))"},
    {"SELECT * FROM read_parquet('a.parquet') AS p (x, y)",
     "SELECT * FROM TABLE(read_parquet('a.parquet')) AS p (x, y)"},
    {"SELECT * FROM read_parquet(['a.parquet', 'b/*.parquet'], union_by_name => true)",
     "SELECT * FROM TABLE(read_parquet(ARRAY['a.parquet', 'b/*.parquet'], union_by_name => TRUE))"},
    {"SELECT [1, 2][1], []", "SELECT ARRAY[1, 2][1], ARRAY[]"},
    {"SELECT {'a': 1, b: 'x', 'C d': 2}, {}",
     "SELECT struct_pack(\"a\" => 1, b => 'x', \"C d\" => 2), struct_pack()"},
    {"SELECT * FROM TABLE(system.sequence(start => 1, stop => 10))",
     "SELECT * FROM TABLE(system.sequence(start => 1, stop => 10))"},
    {"SELECT * FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '5' SECOND))",
     "SELECT * FROM TABLE(tumble(TABLE src, DESCRIPTOR(ts), INTERVAL '5' SECOND))"},
    {"SELECT * FROM TABLE(HOP(TABLE src, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '1' "
     "MINUTE))",
     "SELECT * FROM TABLE(hop(TABLE src, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '1' "
     "MINUTE))"},
    {"SELECT * FROM TABLE(CUMULATE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '1' "
     "HOUR))",
     "SELECT * FROM TABLE(cumulate(TABLE src, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '1' "
     "HOUR))"},
    {"SELECT * FROM TABLE(SESSION(TABLE src PARTITION BY k, DESCRIPTOR(ts), INTERVAL '10' MINUTE))",
     "SELECT * FROM TABLE(session(TABLE src PARTITION BY k, DESCRIPTOR(ts), INTERVAL '10' "
     "MINUTE))"},
    {"SELECT * FROM TABLE(TUMBLE(DATA => TABLE src, TIMECOL => DESCRIPTOR(ts), SIZE => INTERVAL "
     "'1' HOUR))",
     "SELECT * FROM TABLE(tumble(data => TABLE src, timecol => DESCRIPTOR(ts), size => INTERVAL "
     "'1' HOUR))"},
    {"SELECT * FROM TABLE(TUMBLE(TABLE(src), DESCRIPTOR(ts), INTERVAL '5' SECOND))",
     "SELECT * FROM TABLE(tumble(TABLE src, DESCRIPTOR(ts), INTERVAL '5' SECOND))"},
    {"SELECT * FROM TABLE(f(TABLE(SELECT * FROM src)))",
     "SELECT * FROM TABLE(f(TABLE (SELECT * FROM src)))"},
    {"SELECT window_start, window_end, sum(price) FROM TABLE(TUMBLE(TABLE bids, "
     "DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end",
     "SELECT window_start, window_end, sum(price) FROM TABLE(tumble(TABLE bids, "
     "DESCRIPTOR(bidtime), INTERVAL '10' MINUTE)) GROUP BY window_start, window_end"},
    {"SELECT * FROM UNNEST(ARRAY[1, 2, 3])", "SELECT * FROM UNNEST(ARRAY[1, 2, 3])"},
    {"SELECT * FROM UNNEST(ARRAY[1, 2], ARRAY['a', 'b']) AS t (n, s)",
     "SELECT * FROM UNNEST(ARRAY[1, 2], ARRAY['a', 'b']) AS t (n, s)"},
    {"SELECT * FROM UNNEST(m) WITH ORDINALITY AS t (k, v, i)",
     "SELECT * FROM UNNEST(m) WITH ORDINALITY AS t (k, v, i)"},
    {"SELECT * FROM t CROSS JOIN UNNEST(t.arr) AS u (x)",
     "SELECT * FROM (t CROSS JOIN UNNEST(t.arr) AS u (x))"},
    {"SELECT * FROM a JOIN b ON a.id = b.id", "SELECT * FROM (a JOIN b ON (a.id = b.id))"},
    {"SELECT * FROM a INNER JOIN b ON a.id = b.id", "SELECT * FROM (a JOIN b ON (a.id = b.id))"},
    {"SELECT * FROM a LEFT JOIN b ON a.id = b.id",
     "SELECT * FROM (a LEFT JOIN b ON (a.id = b.id))"},
    {"SELECT * FROM a LEFT OUTER JOIN b ON a.id = b.id",
     "SELECT * FROM (a LEFT JOIN b ON (a.id = b.id))"},
    {"SELECT * FROM a RIGHT OUTER JOIN b USING (id)", "SELECT * FROM (a RIGHT JOIN b USING (id))"},
    {"SELECT * FROM a FULL OUTER JOIN b USING (id, k)",
     "SELECT * FROM (a FULL JOIN b USING (id, k))"},
    {"SELECT * FROM a FULL JOIN b ON TRUE", "SELECT * FROM (a FULL JOIN b ON TRUE)"},
    {"SELECT * FROM a CROSS JOIN b", "SELECT * FROM (a CROSS JOIN b)"},
    {"SELECT * FROM a NATURAL JOIN b", "SELECT * FROM (a NATURAL JOIN b)"},
    {"SELECT * FROM a NATURAL LEFT JOIN b", "SELECT * FROM (a NATURAL LEFT JOIN b)"},
    {"SELECT * FROM a, b, c WHERE a.x = b.x AND b.y = c.y",
     "SELECT * FROM a, b, c WHERE ((a.x = b.x) AND (b.y = c.y))"},
    {"SELECT * FROM a JOIN b ON a.x = b.x JOIN c ON b.y = c.y",
     "SELECT * FROM ((a JOIN b ON (a.x = b.x)) JOIN c ON (b.y = c.y))"},
    {"SELECT * FROM a JOIN (b JOIN c ON b.y = c.y) ON a.x = b.x",
     "SELECT * FROM (a JOIN (b JOIN c ON (b.y = c.y)) ON (a.x = b.x))"},
    {"SELECT * FROM (a JOIN b USING (x)) AS j", "SELECT * FROM (a JOIN b USING (x)) AS j"},
    {"SELECT * FROM (a)", "SELECT * FROM a"},
    {"SELECT * FROM ((a))", "SELECT * FROM a"},
    {"SELECT * FROM (SELECT 1) AS s", "SELECT * FROM (SELECT 1) AS s"},
    {"SELECT * FROM (SELECT 1) s (x)", "SELECT * FROM (SELECT 1) AS s (x)"},
    {"SELECT * FROM ((SELECT 1)) s", "SELECT * FROM (SELECT 1) AS s"},
    {"SELECT * FROM ((SELECT 1) AS a CROSS JOIN (SELECT 2) AS b)",
     "SELECT * FROM ((SELECT 1) AS a CROSS JOIN (SELECT 2) AS b)"},
    {"SELECT * FROM a LEFT JOIN LATERAL (SELECT * FROM b WHERE b.k = a.k) AS l ON TRUE",
     "SELECT * FROM (a LEFT JOIN LATERAL (SELECT * FROM b WHERE (b.k = a.k)) AS l ON TRUE)"},
    {"SELECT * FROM orders AS o LEFT JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON "
     "o.cid = c.id",
     "SELECT * FROM (orders AS o LEFT JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON "
     "(o.cid = c.id))"},
    {"SELECT * FROM t WHERE a = 1", "SELECT * FROM t WHERE (a = 1)"},
    {"SELECT * FROM t WHERE a = 1 AND (b = 2 OR c = 3)",
     "SELECT * FROM t WHERE ((a = 1) AND ((b = 2) OR (c = 3)))"},
    {"SELECT a, count(*) FROM t GROUP BY a", "SELECT a, count(*) FROM t GROUP BY a"},
    {"SELECT a, count(*) FROM t GROUP BY 1", "SELECT a, count(*) FROM t GROUP BY 1"},
    {"SELECT a, b, count(*) FROM t GROUP BY 1, 2 ORDER BY 3 DESC",
     "SELECT a, b, count(*) FROM t GROUP BY 1, 2 ORDER BY 3 DESC"},
    {"SELECT a, count(*) FROM t GROUP BY a HAVING count(*) > 1",
     "SELECT a, count(*) FROM t GROUP BY a HAVING (count(*) > 1)"},
    {"SELECT a, b FROM t GROUP BY ROLLUP (a, b)", "SELECT a, b FROM t GROUP BY ROLLUP (a, b)"},
    {"SELECT a, b FROM t GROUP BY CUBE (a, b)", "SELECT a, b FROM t GROUP BY CUBE (a, b)"},
    {"SELECT a, b FROM t GROUP BY GROUPING SETS ((a, b), (a), ())",
     "SELECT a, b FROM t GROUP BY GROUPING SETS ((a, b), (a), ())"},
    {"SELECT a, b FROM t GROUP BY GROUPING SETS (a, b)",
     "SELECT a, b FROM t GROUP BY GROUPING SETS ((a), (b))"},
    {"SELECT a, b, c FROM t GROUP BY a, ROLLUP (b, c)",
     "SELECT a, b, c FROM t GROUP BY a, ROLLUP (b, c)"},
    {"SELECT a FROM t GROUP BY DISTINCT ROLLUP (a, b), CUBE (a)",
     "SELECT a FROM t GROUP BY DISTINCT ROLLUP (a, b), CUBE (a)"},
    {"SELECT a FROM t GROUP BY ALL a", "SELECT a FROM t GROUP BY a"},
    {"SELECT count(*) FROM t GROUP BY ()", "SELECT count(*) FROM t GROUP BY ()"},
    {"SELECT grouping(a, b), a FROM t GROUP BY ROLLUP (a, b)",
     "SELECT grouping(a, b), a FROM t GROUP BY ROLLUP (a, b)"},
    {"SELECT rank() OVER w FROM t WINDOW w AS (PARTITION BY a ORDER BY b)",
     "SELECT rank() OVER w FROM t WINDOW w AS (PARTITION BY a ORDER BY b)"},
    {"SELECT sum(x) OVER w1, avg(x) OVER w2 FROM t WINDOW w1 AS (PARTITION BY a), w2 AS (w1 ORDER "
     "BY b)",
     "SELECT sum(x) OVER w1, avg(x) OVER w2 FROM t WINDOW w1 AS (PARTITION BY a), w2 AS (w1 ORDER "
     "BY b)"},
    {"SELECT a FROM t ORDER BY a", "SELECT a FROM t ORDER BY a"},
    {"SELECT a FROM t ORDER BY a ASC, b DESC", "SELECT a FROM t ORDER BY a ASC, b DESC"},
    {"SELECT a FROM t ORDER BY a NULLS FIRST, b DESC NULLS LAST",
     "SELECT a FROM t ORDER BY a NULLS FIRST, b DESC NULLS LAST"},
    {"SELECT a FROM t ORDER BY a + b", "SELECT a FROM t ORDER BY (a + b)"},
    {"SELECT a FROM t LIMIT 10", "SELECT a FROM t LIMIT 10"},
    {"SELECT f(x) ignore, g(y) respect FROM t", "SELECT f(x) AS ignore, g(y) AS respect FROM t"},
    {"SELECT a FROM t LIMIT ALL", "SELECT a FROM t LIMIT ALL"},
    {"SELECT a FROM t LIMIT ?", "SELECT a FROM t LIMIT ?"},
    {"SELECT a FROM t OFFSET 5", "SELECT a FROM t OFFSET 5"},
    {"SELECT a FROM t OFFSET 5 ROWS", "SELECT a FROM t OFFSET 5"},
    {"SELECT a FROM t OFFSET 5 LIMIT 10", "SELECT a FROM t OFFSET 5 LIMIT 10"},
    {"SELECT a FROM t LIMIT 10 OFFSET 5", "SELECT a FROM t OFFSET 5 LIMIT 10"},
    {"SELECT a FROM t FETCH FIRST 5 ROWS ONLY", "SELECT a FROM t FETCH FIRST 5 ROWS ONLY"},
    {"SELECT a FROM t FETCH NEXT 1 ROW ONLY", "SELECT a FROM t FETCH FIRST 1 ROWS ONLY"},
    {"SELECT a FROM t FETCH FIRST ROW ONLY", "SELECT a FROM t FETCH FIRST ROWS ONLY"},
    {"SELECT a FROM t ORDER BY a FETCH FIRST 3 ROWS WITH TIES",
     "SELECT a FROM t ORDER BY a FETCH FIRST 3 ROWS WITH TIES"},
    {"SELECT a FROM t ORDER BY a OFFSET 2 ROWS FETCH NEXT 3 ROWS ONLY",
     "SELECT a FROM t ORDER BY a OFFSET 2 FETCH FIRST 3 ROWS ONLY"},
    {"WITH x AS (SELECT 1) SELECT * FROM x", "WITH x AS (SELECT 1) SELECT * FROM x"},
    {"WITH x (a, b) AS (SELECT 1, 2) SELECT a FROM x",
     "WITH x (a, b) AS (SELECT 1, 2) SELECT a FROM x"},
    {"WITH x AS (SELECT 1), y AS (SELECT * FROM x) SELECT * FROM y",
     "WITH x AS (SELECT 1), y AS (SELECT * FROM x) SELECT * FROM y"},
    {"WITH RECURSIVE t (n) AS (VALUES (1) UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT sum(n) "
     "FROM t",
     "WITH RECURSIVE t (n) AS ((VALUES 1) UNION ALL (SELECT (n + 1) FROM t WHERE (n < 5))) SELECT "
     "sum(n) FROM t"},
    {"SELECT 1 UNION SELECT 2", "(SELECT 1) UNION (SELECT 2)"},
    {"SELECT 1 UNION ALL SELECT 2", "(SELECT 1) UNION ALL (SELECT 2)"},
    {"SELECT 1 UNION DISTINCT SELECT 2", "(SELECT 1) UNION DISTINCT (SELECT 2)"},
    {"SELECT 1 EXCEPT SELECT 2", "(SELECT 1) EXCEPT (SELECT 2)"},
    {"SELECT 1 EXCEPT ALL SELECT 2", "(SELECT 1) EXCEPT ALL (SELECT 2)"},
    {"SELECT 1 INTERSECT SELECT 2", "(SELECT 1) INTERSECT (SELECT 2)"},
    {"SELECT 1 INTERSECT ALL SELECT 2", "(SELECT 1) INTERSECT ALL (SELECT 2)"},
    {"SELECT 1 UNION SELECT 2 UNION SELECT 3", "((SELECT 1) UNION (SELECT 2)) UNION (SELECT 3)"},
    {"SELECT 1 UNION SELECT 2 INTERSECT SELECT 3",
     "(SELECT 1) UNION ((SELECT 2) INTERSECT (SELECT 3))"},
    {"SELECT 1 INTERSECT SELECT 2 UNION SELECT 3",
     "((SELECT 1) INTERSECT (SELECT 2)) UNION (SELECT 3)"},
    {"SELECT 1 EXCEPT SELECT 2 INTERSECT SELECT 3 INTERSECT SELECT 4",
     "(SELECT 1) EXCEPT (((SELECT 2) INTERSECT (SELECT 3)) INTERSECT (SELECT 4))"},
    {"(SELECT 1 UNION SELECT 2) INTERSECT SELECT 3",
     "((SELECT 1) UNION (SELECT 2)) INTERSECT (SELECT 3)"},
    {"SELECT 1 UNION (SELECT 2 UNION SELECT 3)", "(SELECT 1) UNION ((SELECT 2) UNION (SELECT 3))"},
    {"SELECT a FROM t UNION SELECT b FROM u ORDER BY 1 LIMIT 5",
     "(SELECT a FROM t) UNION (SELECT b FROM u) ORDER BY 1 LIMIT 5"},
    {"(SELECT a FROM t ORDER BY a LIMIT 1) UNION ALL (SELECT b FROM u ORDER BY b LIMIT 1)",
     "(SELECT a FROM t ORDER BY a LIMIT 1) UNION ALL (SELECT b FROM u ORDER BY b LIMIT 1)"},
    {"(SELECT 1)", "SELECT 1"},
    {"((SELECT 1))", "SELECT 1"},
    {"(SELECT 1) ORDER BY 1", "SELECT 1 ORDER BY 1"},
    {"(SELECT 1 LIMIT 1)", "(SELECT 1 LIMIT 1)"},
    {"(WITH x AS (SELECT 1) SELECT * FROM x) UNION SELECT 2",
     "(WITH x AS (SELECT 1) SELECT * FROM x) UNION (SELECT 2)"},
    {"VALUES 1, 2, 3", "VALUES 1, 2, 3"},
    {"VALUES (1, 'a'), (2, 'b')", "VALUES (1, 'a'), (2, 'b')"},
    {"VALUES ROW(1, 2)", "VALUES ROW(1, 2)"},
    {"VALUES 1 UNION VALUES 2", "(VALUES 1) UNION (VALUES 2)"},
    {"TABLE t", "TABLE t"},
    {"TABLE cat.ns.t UNION TABLE u", "(TABLE cat.ns.t) UNION (TABLE u)"},
    {"SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v (id, name)",
     "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v (id, name)"},
    {"SELECT * FROM (TABLE t) AS x", "SELECT * FROM (TABLE t) AS x"},
    {"SELECT (SELECT max(b) FROM u WHERE u.a = t.a) AS m FROM t",
     "SELECT (SELECT max(b) FROM u WHERE (u.a = t.a)) AS m FROM t"},
    {"SELECT * FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.id = t.id)",
     "SELECT * FROM t WHERE (EXISTS (SELECT 1 FROM u WHERE (u.id = t.id)))"},
    {"SELECT * FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.id = t.id)",
     "SELECT * FROM t WHERE (NOT (EXISTS (SELECT 1 FROM u WHERE (u.id = t.id))))"},
    {"SELECT * FROM t WHERE a IN (SELECT a FROM u)",
     "SELECT * FROM t WHERE (a IN (SELECT a FROM u))"},
    {"SELECT * FROM t WHERE a IN ((SELECT 1), 2)", "SELECT * FROM t WHERE (a IN ((SELECT 1), 2))"},
    {"SELECT * FROM t WHERE (a, b) IN (VALUES (1, 2))",
     "SELECT * FROM t WHERE ((a, b) IN (VALUES (1, 2)))"},
    {"SELECT * FROM t WHERE a > ALL (SELECT b FROM u)",
     "SELECT * FROM t WHERE (a > ALL (SELECT b FROM u))"},
    {"SELECT * FROM t WHERE a = ANY (SELECT b FROM u)",
     "SELECT * FROM t WHERE (a = ANY (SELECT b FROM u))"},
    {"SELECT a, ? FROM t WHERE b = ? LIMIT ?", "SELECT a, ? FROM t WHERE (b = ?) LIMIT ?"},
    {"SELECT date, year, data, comment, time, timestamp, interval, key, type, version, tag, branch "
     "FROM t",
     "SELECT date, year, data, comment, time, timestamp, interval, key, type, version, tag, branch "
     "FROM t"},
    {"SELECT \"from\", \"Select\", \"a b\" FROM \"table\"",
     "SELECT \"from\", \"Select\", \"a b\" FROM \"table\""},
    {"SELECT `a`, `b c` FROM `t`", "SELECT \"a\", \"b c\" FROM \"t\""},
    {"SELECT a FROM t -- trailing comment", "SELECT a FROM t"},
    {"/* leading */ SELECT /* mid */ a FROM t", "SELECT a FROM t"},
    {"SELECT 'a;b' FROM t", "SELECT 'a;b' FROM t"},
    {"select lower(a), UPPER(b) From T Where C", "SELECT lower(a), upper(b) FROM t WHERE c"},
    {"SELECT * FROM t WHERE ts >= TIMESTAMP '2026-01-01 00:00:00' AND ts < DATE '2026-02-01'",
     "SELECT * FROM t WHERE ((ts >= TIMESTAMP '2026-01-01 00:00:00') AND (ts < DATE "
     "'2026-02-01'))"},
    {"SELECT count(*) FILTER (WHERE x > 0) AS pos, count(*) FILTER (WHERE x < 0) AS neg FROM t",
     "SELECT count(*) FILTER (WHERE (x > 0)) AS pos, count(*) FILTER (WHERE (x < 0)) AS neg FROM "
     "t"},
    {"SELECT a, row_number() OVER (PARTITION BY b ORDER BY c) AS rn FROM t",
     "SELECT a, row_number() OVER (PARTITION BY b ORDER BY c) AS rn FROM t"},
    {"SELECT a FROM t WHERE a LIKE '%x%' OR a LIKE 'y%' ESCAPE '!'",
     "SELECT a FROM t WHERE ((a LIKE '%x%') OR (a LIKE 'y%' ESCAPE '!'))"},
    {"SELECT CASE WHEN a IS NULL THEN 'none' ELSE a END FROM t",
     "SELECT CASE WHEN (a IS NULL) THEN 'none' ELSE a END FROM t"},
    {"SELECT * FROM TABLE(read_parquet(path => 's3://bucket/x/*.parquet'))",
     "SELECT * FROM TABLE(read_parquet(path => 's3://bucket/x/*.parquet'))"},
};

static const sql_case_t stmt_cases[] = {
    {"CREATE SCHEMA IF NOT EXISTS cat.ns WITH (location = 's3://b/x')",
     "CREATE SCHEMA IF NOT EXISTS cat.ns WITH (location = 's3://b/x')"},
    {"DROP SCHEMA IF EXISTS ns CASCADE", "DROP SCHEMA IF EXISTS ns CASCADE"},
    {"DROP SCHEMA ns RESTRICT", "DROP SCHEMA ns RESTRICT"},
    {"CREATE TABLE IF NOT EXISTS t (id bigint NOT NULL COMMENT 'the id', name varchar(20), ts "
     "timestamp(6) with time zone, \"date\" date) COMMENT 'tbl' WITH (format = 'PARQUET', "
     "partitioning = ARRAY['day(ts)', 'bucket(id, 16)'], 'write.format.default' = 'parquet')",
     "CREATE TABLE IF NOT EXISTS t (id bigint NOT NULL COMMENT 'the id', name varchar(20), ts "
     "timestamp(6) with time zone, \"date\" date) COMMENT 'tbl' WITH (format = 'PARQUET', "
     "partitioning = ARRAY['day(ts)', 'bucket(id, 16)'], 'write.format.default' = 'parquet')"},
    {"CREATE TABLE orders (order_id BIGINT, price DECIMAL(10, 2), ts TIMESTAMP(3), cost AS price * "
     "2, part INT METADATA FROM 'partition' VIRTUAL, off BIGINT METADATA, WATERMARK FOR ts AS ts - "
     "INTERVAL '5' SECOND, PRIMARY KEY (order_id) NOT ENFORCED) WITH ('connector' = 'kafka', "
     "'topic' = 'orders')",
     "CREATE TABLE orders (order_id bigint, price decimal(10, 2), ts timestamp(3), cost AS (price "
     "* 2), part integer METADATA FROM 'partition' VIRTUAL, off bigint METADATA, WATERMARK FOR ts "
     "AS (ts - INTERVAL '5' SECOND), PRIMARY KEY (order_id) NOT ENFORCED) WITH ('connector' = "
     "'kafka', 'topic' = 'orders')"},
    {"CREATE TABLE t2 (id INT PRIMARY KEY NOT ENFORCED, v STRING) PARTITIONED BY (v)",
     "CREATE TABLE t2 (id integer, v varchar, PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (v)"},
    {"CREATE TABLE t3 AS SELECT * FROM t WITH NO DATA",
     "CREATE TABLE t3 AS SELECT * FROM t WITH NO DATA"},
    {"CREATE TABLE t4 (a, b) WITH (format = 'ORC') AS SELECT 1, 2 WITH DATA",
     "CREATE TABLE t4 (a, b) WITH (format = 'ORC') AS SELECT 1, 2 WITH DATA"},
    {"CREATE OR REPLACE TABLE t5 AS SELECT 1", "CREATE OR REPLACE TABLE t5 AS SELECT 1"},
    {"DROP TABLE IF EXISTS t", "DROP TABLE IF EXISTS t"},
    {"DROP VIEW v", "DROP VIEW v"},
    {"CREATE OR REPLACE VIEW v COMMENT 'x' AS SELECT 1",
     "CREATE OR REPLACE VIEW v COMMENT 'x' AS SELECT 1"},
    {"ALTER TABLE t ADD COLUMN IF NOT EXISTS c varchar COMMENT 'c'",
     "ALTER TABLE t ADD COLUMN IF NOT EXISTS c varchar COMMENT 'c'"},
    {"ALTER TABLE t DROP COLUMN IF EXISTS c", "ALTER TABLE t DROP COLUMN IF EXISTS c"},
    {"ALTER TABLE t DROP COLUMN s.f", "ALTER TABLE t DROP COLUMN s.f"},
    {"ALTER TABLE t RENAME COLUMN a TO b", "ALTER TABLE t RENAME COLUMN a TO b"},
    {"ALTER TABLE t ALTER COLUMN c SET DATA TYPE bigint",
     "ALTER TABLE t ALTER COLUMN c SET DATA TYPE bigint"},
    {"ALTER TABLE t ALTER COLUMN c DROP NOT NULL", "ALTER TABLE t ALTER COLUMN c DROP NOT NULL"},
    {"ALTER TABLE IF EXISTS t RENAME TO ns.t2", "ALTER TABLE IF EXISTS t RENAME TO ns.t2"},
    {"ALTER TABLE t SET PROPERTIES format_version = 2, partitioning = ARRAY['a'], x = DEFAULT",
     "ALTER TABLE t SET PROPERTIES format_version = 2, partitioning = ARRAY['a'], x = DEFAULT"},
    {"ALTER TABLE t EXECUTE optimize(file_size_threshold => '128MB')",
     "ALTER TABLE t EXECUTE optimize(file_size_threshold => '128MB')"},
    {"ALTER TABLE t EXECUTE optimize WHERE ts > DATE '2020-01-01'",
     "ALTER TABLE t EXECUTE optimize WHERE (ts > DATE '2020-01-01')"},
    {"ALTER TABLE t EXECUTE expire_snapshots(retention_threshold => '7d')",
     "ALTER TABLE t EXECUTE expire_snapshots(retention_threshold => '7d')"},
    {"ALTER TABLE t EXECUTE remove_orphan_files(retention_threshold => '7d')",
     "ALTER TABLE t EXECUTE remove_orphan_files(retention_threshold => '7d')"},
    {"ALTER TABLE t CREATE BRANCH IF NOT EXISTS dev AS OF VERSION 123 RETAIN 7 DAYS",
     "ALTER TABLE t CREATE BRANCH IF NOT EXISTS dev AS OF VERSION 123 RETAIN 7 DAYS"},
    {"ALTER TABLE t CREATE OR REPLACE BRANCH dev", "ALTER TABLE t CREATE OR REPLACE BRANCH dev"},
    {"ALTER TABLE t CREATE TAG v1 AS OF VERSION 5 RETAIN 30 DAYS",
     "ALTER TABLE t CREATE TAG v1 AS OF VERSION 5 RETAIN 30 DAYS"},
    {"ALTER TABLE t DROP BRANCH IF EXISTS dev", "ALTER TABLE t DROP BRANCH IF EXISTS dev"},
    {"ALTER TABLE t DROP TAG v1", "ALTER TABLE t DROP TAG v1"},
    {"ALTER TABLE t ADD COLUMN IF NOT EXISTS s.f.g bigint COMMENT 'deep'",
     "ALTER TABLE t ADD COLUMN IF NOT EXISTS s.f.g bigint COMMENT 'deep'"},
    {"ALTER TABLE t REPLACE BRANCH dev AS OF VERSION 7 RETAIN 2 DAYS",
     "ALTER TABLE t REPLACE BRANCH dev AS OF VERSION 7 RETAIN 2 DAYS"},
    {"ALTER TABLE t REPLACE TAG v1 AS OF VERSION 7",
     "ALTER TABLE t REPLACE TAG v1 AS OF VERSION 7"},
    {"ALTER TABLE t CREATE BRANCH b WITH SNAPSHOT RETENTION 3 SNAPSHOTS 2 DAYS",
     "ALTER TABLE t CREATE BRANCH b WITH SNAPSHOT RETENTION 3 SNAPSHOTS 2 DAYS"},
    {"ALTER TABLE t CREATE BRANCH b RETAIN 1 DAYS WITH SNAPSHOT RETENTION 4 HOURS",
     "ALTER TABLE t CREATE BRANCH b RETAIN 1 DAYS WITH SNAPSHOT RETENTION 4 HOURS"},
    {"ALTER TABLE t CREATE BRANCH b WITH SNAPSHOT RETENTION 5 SNAPSHOTS",
     "ALTER TABLE t CREATE BRANCH b WITH SNAPSHOT RETENTION 5 SNAPSHOTS"},
    {"ALTER TABLE t SET IDENTIFIER FIELDS id, Region",
     "ALTER TABLE t SET IDENTIFIER FIELDS id, region"},
    {"ALTER TABLE t DROP IDENTIFIER FIELDS id", "ALTER TABLE t DROP IDENTIFIER FIELDS id"},
    {"ALTER TABLE t ADD PARTITION FIELD bucket(16, id) AS shard",
     "ALTER TABLE t ADD PARTITION FIELD bucket(16, id) AS shard"},
    {"ALTER TABLE t ADD PARTITION FIELD days(ts)", "ALTER TABLE t ADD PARTITION FIELD days(ts)"},
    {"ALTER TABLE t ADD PARTITION FIELD p.region", "ALTER TABLE t ADD PARTITION FIELD p.region"},
    {"ALTER TABLE t DROP PARTITION FIELD shard", "ALTER TABLE t DROP PARTITION FIELD shard"},
    {"ALTER TABLE t REPLACE PARTITION FIELD days(ts) WITH hours(ts) AS h",
     "ALTER TABLE t REPLACE PARTITION FIELD days(ts) WITH hours(ts) AS h"},
    {"ALTER TABLE t ALTER COLUMN c FIRST", "ALTER TABLE t ALTER COLUMN c FIRST"},
    {"ALTER TABLE t ADD COLUMN c bigint FIRST", "ALTER TABLE t ADD COLUMN c bigint FIRST"},
    {"ALTER TABLE t ADD COLUMN c bigint COMMENT 'x' AFTER b",
     "ALTER TABLE t ADD COLUMN c bigint COMMENT 'x' AFTER b"},
    {"ALTER TABLE t ADD COLUMN c bigint LAST", "ALTER TABLE t ADD COLUMN c bigint LAST"},
    {"ALTER TABLE t ALTER COLUMN s.c AFTER s.b", "ALTER TABLE t ALTER COLUMN s.c AFTER s.b"},
    {"ALTER TABLE t ALTER COLUMN c BEFORE a", "ALTER TABLE t ALTER COLUMN c BEFORE a"},
    {"ALTER TABLE t ALTER COLUMN c COMMENT 'it''s'",
     "ALTER TABLE t ALTER COLUMN c COMMENT 'it''s'"},
    {"COMMENT ON TABLE ns.t IS 'orders'", "COMMENT ON TABLE ns.t IS 'orders'"},
    {"COMMENT ON COLUMN ns.t.c IS NULL", "COMMENT ON COLUMN ns.t.c IS NULL"},
    {"ALTER TABLE t SET PARTITIONING ARRAY['day(ts)']",
     "ALTER TABLE t SET PROPERTIES partitioning = ARRAY['day(ts)']"},
    {"CALL system.rollback_to_snapshot('db', 't', 123)",
     "CALL system.rollback_to_snapshot('db', 't', 123)"},
    {"CALL system.expire_snapshots(table => 'db.t', older_than => TIMESTAMP '2020-01-01 00:00:00')",
     "CALL system.expire_snapshots(table => 'db.t', older_than => TIMESTAMP '2020-01-01 "
     "00:00:00')"},
    {"INSERT INTO t VALUES (1, 'a'), (2, 'b')", "INSERT INTO t VALUES (1, 'a'), (2, 'b')"},
    {"INSERT INTO t (a, b) SELECT x, y FROM s", "INSERT INTO t (a, b) SELECT x, y FROM s"},
    {"INSERT INTO t (SELECT 1)", "INSERT INTO t SELECT 1"},
    {"INSERT OVERWRITE t SELECT 1", "INSERT OVERWRITE t SELECT 1"},
    {"DELETE FROM t WHERE a = 1", "DELETE FROM t WHERE (a = 1)"},
    {"DELETE FROM t", "DELETE FROM t"},
    {"UPDATE t SET a = 1, b = b + 1 WHERE c", "UPDATE t SET a = 1, b = (b + 1) WHERE c"},
    {"MERGE INTO t AS a USING s AS b ON a.id = b.id WHEN MATCHED AND b.del THEN DELETE WHEN "
     "MATCHED THEN UPDATE SET v = b.v WHEN NOT MATCHED AND b.v > 0 THEN INSERT (id, v) VALUES "
     "(b.id, b.v) WHEN NOT MATCHED THEN INSERT VALUES (b.id, b.v)",
     "MERGE INTO t AS a USING s AS b ON (a.id = b.id) WHEN MATCHED AND b.del THEN DELETE WHEN "
     "MATCHED THEN UPDATE SET v = b.v WHEN NOT MATCHED AND (b.v > 0) THEN INSERT (id, v) VALUES "
     "(b.id, b.v) WHEN NOT MATCHED THEN INSERT VALUES (b.id, b.v)"},
    {"MERGE INTO t USING (SELECT * FROM s) src ON t.id = src.id WHEN MATCHED THEN DELETE",
     "MERGE INTO t USING (SELECT * FROM s) AS src ON (t.id = src.id) WHEN MATCHED THEN DELETE"},
    {"TRUNCATE TABLE t", "TRUNCATE TABLE t"},
    {"EXPLAIN SELECT 1", "EXPLAIN SELECT 1"},
    {"EXPLAIN ANALYZE INSERT INTO t VALUES 1", "EXPLAIN ANALYZE INSERT INTO t VALUES 1"},
    {"SHOW SCHEMAS", "SHOW SCHEMAS"},
    {"SHOW SCHEMAS FROM cat LIKE 'x%'", "SHOW SCHEMAS FROM cat LIKE 'x%'"},
    {"SHOW TABLES FROM ns", "SHOW TABLES FROM ns"},
    {"SHOW TABLES", "SHOW TABLES"},
    {"SHOW COLUMNS FROM t", "SHOW COLUMNS FROM t"},
    {"SHOW CREATE TABLE ns.t", "SHOW CREATE TABLE ns.t"},
    {"DESCRIBE t", "DESCRIBE t"},
    {"DESC t", "DESCRIBE t"},
    {"USE cat.ns", "USE cat.ns"},
    {"SET 'execution.checkpointing.interval' = '10s'",
     "SET 'execution.checkpointing.interval' = '10s'"},
    {"SET table.exec.state.ttl = 1000", "SET table.exec.state.ttl = 1000"},
    {"SET SESSION query_max_memory = '1GB'", "SET SESSION query_max_memory = '1GB'"},
    {"SET", "SET"},
    {"RESET", "RESET"},
    {"RESET 'a.b'", "RESET 'a.b'"},
    {"EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM s; INSERT INTO b SELECT CASE WHEN x "
     "THEN 1 END FROM s; END",
     "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM s; INSERT INTO b SELECT CASE WHEN x "
     "THEN 1 END FROM s; END"},
    {"SELECT 1", "SELECT 1"},
    {"CREATE TABLE kafka_src (user_id BIGINT, item STRING, ts TIMESTAMP(3), proc AS PROCTIME(), "
     "WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'kafka', 'topic' = "
     "'clicks', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset')",
     "CREATE TABLE kafka_src (user_id bigint, item varchar, ts timestamp(3), proc AS proctime(), "
     "WATERMARK FOR ts AS (ts - INTERVAL '5' SECOND)) WITH ('connector' = 'kafka', 'topic' = "
     "'clicks', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset')"},
    {"CREATE TABLE t (a int NULL, b int NOT NULL, c varchar WITH (x = 1))",
     "CREATE TABLE t (a integer, b integer NOT NULL, c varchar WITH (x = 1))"},
    {"CREATE TEMPORARY TABLE tmp (a int) WITH ('connector' = 'datagen')",
     "CREATE TEMPORARY TABLE tmp (a integer) WITH ('connector' = 'datagen')"},
    {"CREATE TABLE t (id BIGINT, CONSTRAINT pk PRIMARY KEY (id) NOT ENFORCED)",
     "CREATE TABLE t (id bigint, PRIMARY KEY (id) NOT ENFORCED)"},
    {"CREATE TABLE t (id bigint, data varchar, comment varchar, year int, key int)",
     "CREATE TABLE t (id bigint, data varchar, comment varchar, year integer, key integer)"},
    {"CREATE TABLE t (a int) WITH (format_version = 2, sorted_by = ARRAY['a'], location = "
     "'s3://x/y')",
     "CREATE TABLE t (a integer) WITH (format_version = 2, sorted_by = ARRAY['a'], location = "
     "'s3://x/y')"},
    {"CREATE TABLE t COMMENT 'c' AS SELECT * FROM s",
     "CREATE TABLE t COMMENT 'c' AS SELECT * FROM s"},
    {"CREATE SCHEMA s", "CREATE SCHEMA s"},
    {"CREATE VIEW v (a, b) AS SELECT 1, 2", "CREATE VIEW v (a, b) AS SELECT 1, 2"},
    {"CREATE TEMPORARY VIEW v AS SELECT * FROM t WHERE x",
     "CREATE TEMPORARY VIEW v AS SELECT * FROM t WHERE x"},
    {"ALTER TABLE t ADD COLUMN c row(a integer, b array(varchar)) NOT NULL COMMENT 'nested'",
     "ALTER TABLE t ADD COLUMN c row(a integer, b array(varchar)) NOT NULL COMMENT 'nested'"},
    {"ALTER TABLE t EXECUTE optimize", "ALTER TABLE t EXECUTE optimize"},
    {"ALTER TABLE t EXECUTE drop_extended_stats", "ALTER TABLE t EXECUTE drop_extended_stats"},
    {"ALTER TABLE t CREATE BRANCH b RETAIN 12 HOURS",
     "ALTER TABLE t CREATE BRANCH b RETAIN 12 HOURS"},
    {"ALTER TABLE t CREATE TAG IF NOT EXISTS t1", "ALTER TABLE t CREATE TAG IF NOT EXISTS t1"},
    {"ALTER TABLE t SET PROPERTIES \"write.format.default\" = 'avro'",
     "ALTER TABLE t SET PROPERTIES \"write.format.default\" = 'avro'"},
    {"CALL system.remove_orphan_files(table => 'db.t', dry_run => TRUE)",
     "CALL system.remove_orphan_files(table => 'db.t', dry_run => TRUE)"},
    {"CALL catalog.system.create_branch('db', 't', 'dev')",
     "CALL catalog.system.create_branch('db', 't', 'dev')"},
    {"INSERT INTO cat.ns.t SELECT * FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' "
     "MINUTE))",
     "INSERT INTO cat.ns.t SELECT * FROM TABLE(tumble(TABLE src, DESCRIPTOR(ts), INTERVAL '1' "
     "MINUTE))"},
    {"INSERT INTO t WITH x AS (SELECT 1) SELECT * FROM x",
     "INSERT INTO t WITH x AS (SELECT 1) SELECT * FROM x"},
    {"INSERT INTO t VALUES (?, ?)", "INSERT INTO t VALUES (?, ?)"},
    {"DELETE FROM t AS x WHERE x.a IN (SELECT a FROM u)",
     "DELETE FROM t AS x WHERE (x.a IN (SELECT a FROM u))"},
    {"UPDATE t SET s.f = 1", "UPDATE t SET s.f = 1"},
    {"MERGE INTO t USING (VALUES (1, 'a')) AS s (id, v) ON t.id = s.id WHEN NOT MATCHED THEN "
     "INSERT (id, v) VALUES (s.id, s.v)",
     "MERGE INTO t USING (VALUES (1, 'a')) AS s (id, v) ON (t.id = s.id) WHEN NOT MATCHED THEN "
     "INSERT (id, v) VALUES (s.id, s.v)"},
    {"EXPLAIN ANALYZE VERBOSE SELECT * FROM t", "EXPLAIN ANALYZE VERBOSE SELECT * FROM t"},
    {"EXPLAIN PLAN FOR SELECT 1", "EXPLAIN SELECT 1"},
    {"EXPLAIN CREATE TABLE t (a int)", "EXPLAIN CREATE TABLE t (a integer)"},
    {"SHOW CATALOGS", "SHOW CATALOGS"},
    {"SHOW FUNCTIONS LIKE 'array%'", "SHOW FUNCTIONS LIKE 'array%'"},
    {"SHOW CREATE VIEW v", "SHOW CREATE VIEW v"},
    {"SHOW TABLES IN cat.ns LIKE 'o%'", "SHOW TABLES FROM cat.ns LIKE 'o%'"},
    {"USE ns", "USE ns"},
    {"SET 'table.exec.mini-batch.enabled' = 'true'",
     "SET 'table.exec.mini-batch.enabled' = 'true'"},
    {"SET \"pipeline.name\" = 'job'", "SET \"pipeline.name\" = 'job'"},
    {"SET parallelism.default = 4", "SET parallelism.default = 4"},
    {"RESET SESSION query_max_memory", "RESET SESSION query_max_memory"},
    {"RESET table.exec.state.ttl", "RESET table.exec.state.ttl"},
    {"EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; END",
     "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; END"},
};

static const sql_error_case_t error_cases[] = {
    {"SELECT", 1, 7, "expected an expression, found end of input"},
    {"SELECT a FROM", 1, 14, "expected a table name, '(' or UNNEST, found end of input"},
    {"SELECT a, FROM t", 1, 11, "expected an expression, found 'FROM'"},
    {"SELECT a FROM t WHERE", 1, 22, "expected an expression, found end of input"},
    {"SELECT (a FROM t", 1, 11, "expected ')', found 'FROM'"},
    {"SELECT f(a FROM t", 1, 12, "expected ',' or ')' after the argument list, found 'FROM'"},
    {"SELECT f(a, b FROM t", 1, 15, "expected ',' or ')' after the argument list, found 'FROM'"},
    {"SELECT a FROM t GROUP a", 1, 23, "expected BY after GROUP, found 'a'"},
    {"SELECT a FROM t ORDER a", 1, 23, "expected BY after ORDER, found 'a'"},
    {"SELECT CASE a END", 1, 15, "expected WHEN in CASE, found 'END'"},
    {"SELECT CASE WHEN a THEN b", 1, 26, "expected WHEN, ELSE or END in CASE, found end of input"},
    {"SELECT CAST(a bigint)", 1, 15, "expected AS in CAST(value AS type), found 'bigint'"},
    {"SELECT CAST(a AS foo)", 1, 18, "unknown type 'foo'"},
    {"SELECT CAST(a AS decimal(40, 2))", 1, 18, "type decimal: precision must be 1 to 38"},
    {"SELECT CAST(a AS decimal(10, 11))", 1, 18, "type decimal: scale must be 0 to the precision"},
    {"SELECT CAST(a AS varchar(0))", 1, 18, "type varchar: length must be 1 to 2147483647"},
    {"SELECT CAST(a AS timestamp(13))", 1, 18, "type timestamp: precision must be 0 to 12"},
    {"SELECT CAST(a AS fixed)", 1, 18, "type fixed: a length is required, as in fixed(16)"},
    {"SELECT CAST(a AS array(integer)", 1, 32,
     "expected ')' after the CAST type, found end of input"},
    {"SELECT CAST(a AS map(integer))", 1, 29,
     "expected ',' between the map key and value types, found ')'"},
    {"SELECT 'abc", 1, 8, "unterminated string literal"},
    {"SELECT \"abc", 1, 8, "unterminated quoted identifier"},
    {"SELECT a /* never closed", 1, 10, "unterminated comment"},
    {"SELECT \"\"", 1, 8, "zero-length quoted identifier"},
    {"SELECT 1e", 1, 8, "malformed number: the exponent has no digits"},
    {"SELECT 123abc", 1, 8, "malformed number: a letter follows the digits"},
    {"SELECT X'abc'", 1, 8, "binary literal has an odd number of hex digits"},
    {"SELECT X'zz'", 1, 8, "binary literal holds a character that is not a hex digit"},
    {"SELECT a # b", 1, 10, "unexpected character '#'"},
    {"SELECT a FROM t LIMIT x", 1, 23, "expected a row count or ALL after LIMIT, found 'x'"},
    {"SELECT a FROM t LIMIT 99999999999999999999", 1, 23,
     "integer 99999999999999999999 is too large"},
    {"SELECT a FROM t FETCH FIRST 5 ROWS", 1, 35,
     "expected ONLY or WITH TIES after FETCH FIRST ... ROWS, found end of input"},
    {"SELECT a FROM t OFFSET 1 OFFSET 2", 1, 26, "OFFSET given twice"},
    {"SELECT * FROM a JOIN b", 1, 23,
     "expected ON or USING after the joined table, found end of input"},
    {"SELECT * FROM a NATURAL CROSS JOIN b", 1, 31, "NATURAL cannot be combined with CROSS JOIN"},
    {"SELECT * FROM t FOR VERSION 1", 1, 29,
     "expected AS OF after FOR VERSION/TIMESTAMP, found '1'"},
    {"SELECT * FROM t FOR SOMETHING AS OF 1", 1, 21,
     "expected VERSION, TIMESTAMP or SYSTEM_TIME after FOR, found 'SOMETHING'"},
    {"SELECT a IS 5", 1, 13, "expected NULL, NOT or DISTINCT FROM after IS, found '5'"},
    {"SELECT a NOT 5", 1, 10, "expected end of statement (is a ';' or ',' missing?), found 'NOT'"},
    {"SELECT EXTRACT(FOO FROM x)", 1, 16, "unknown EXTRACT field 'FOO'"},
    {"SELECT INTERVAL '1' WEEK", 1, 21,
     "expected an interval field (YEAR, MONTH, DAY, HOUR, MINUTE or SECOND), found 'WEEK'"},
    {"SELECT INTERVAL '1' MONTH TO YEAR", 1, 34,
     "interval field after TO must be smaller than MONTH"},
    {"SELECT count(*) OVER (ROWS 5)", 1, 29,
     "expected PRECEDING or FOLLOWING after the frame offset, found ')'"},
    {"SELECT count(*) OVER (ROWS BETWEEN UNBOUNDED AND CURRENT ROW)", 1, 46,
     "expected PRECEDING or FOLLOWING after UNBOUNDED, found 'AND'"},
    {"SELECT select FROM t", 1, 8, "expected an expression, found 'select'"},
    {"SELECT a FROM t WHERE a IN ()", 1, 29, "expected an expression, found ')'"},
    {"SELECT a FROM t WHERE a IN 1", 1, 28, "expected '(' after IN, found '1'"},
    {"SELECT f(a => 1, 2)", 1, 18, "positional argument after a named one (name => value)"},
    {"SELECT U&'\\00'", 1, 8, "unicode string has a short escape (\\XXXX or \\+XXXXXX)"},
    {"SELECT U&'\\D800'", 1, 8, "unicode string escape U+D800 is not a character"},
    {"SELECT 1; SELECT 2", 1, 11,
     "expected end of statement (is a ';' or ',' missing?), found 'SELECT'"},
    {"SELECT 1 SELECT 2", 1, 10,
     "expected end of statement (is a ';' or ',' missing?), found 'SELECT'"},
    {"FOO BAR", 1, 1, "expected a statement (SELECT, INSERT, CREATE, ...), found 'FOO'"},
    {"CREATE", 1, 7, "expected SCHEMA, TABLE or VIEW after CREATE, found end of input"},
    {"CREATE TABLE", 1, 13, "expected a table name, found end of input"},
    {"CREATE TABLE t", 1, 15, "expected '(' and column definitions, or AS, found end of input"},
    {"CREATE TABLE t (a)", 1, 18, "expected a type, found ')'"},
    {"CREATE TABLE t (a int,)", 1, 23, "expected a column name, found ')'"},
    {"CREATE TABLE t (a int) WITH (x)", 1, 31, "expected '=' after the property name, found ')'"},
    {"CREATE TABLE t (a int) AS SELECT 1", 1, 27,
     "CREATE TABLE AS takes column names only, not column definitions"},
    {"CREATE TABLE t (a int, PRIMARY KEY (a), PRIMARY KEY (a))", 1, 53,
     "the table already has a primary key"},
    {"CREATE TABLE t (a int, WATERMARK FOR a AS a, WATERMARK FOR a AS a)", 1, 46,
     "WATERMARK given twice"},
    {"CREATE OR REPLACE TABLE IF NOT EXISTS t (a int)", 1, 25,
     "CREATE OR REPLACE TABLE cannot also say IF NOT EXISTS"},
    {"CREATE SCHEMA IF EXISTS s", 1, 18, "expected NOT after IF, found 'EXISTS'"},
    {"DROP t", 1, 6, "expected SCHEMA, TABLE or VIEW after DROP, found 't'"},
    {"DROP TABLE IF t", 1, 15, "expected EXISTS after IF, found 't'"},
    {"ALTER TABLE t", 1, 14,
     "expected ADD, DROP, RENAME, ALTER, SET, EXECUTE, CREATE or REPLACE after the table name, "
     "found end of input"},
    {"COMMENT ON COLUMN c IS 'x'", 1, 21, "COMMENT ON COLUMN needs table.column"},
    {"COMMENT ON t IS 'x'", 1, 12, "expected TABLE or COLUMN after COMMENT ON, found 't'"},
    {"ALTER TABLE t ADD PARTITION FIELD bucket(16 id)", 1, 45,
     "expected ',' or ')' after the transform's arguments, found 'id'"},
    {"ALTER TABLE t REPLACE PARTITION FIELD a b", 1, 41,
     "expected WITH after the partition field, found 'b'"},
    {"ALTER TABLE t SET IDENTIFIER id", 1, 30, "expected FIELDS after SET IDENTIFIER, found 'id'"},
    {"ALTER TABLE t CREATE TAG v WITH SNAPSHOT RETENTION 2 SNAPSHOTS", 1, 28,
     "a tag has no snapshot retention"},
    {"ALTER TABLE t REPLACE BRANCH IF NOT EXISTS b", 1, 30,
     "OR REPLACE and IF NOT EXISTS cannot be combined"},
    {"ALTER TABLE t CREATE BRANCH b WITH SNAPSHOT RETENTION 2 WEEKS", 1, 57,
     "expected SNAPSHOTS, DAYS, HOURS or MINUTES after the number, found 'WEEKS'"},
    {"ALTER TABLE t ADD c int", 1, 19, "expected COLUMN or PARTITION FIELD after ADD, found 'c'"},
    {"ALTER TABLE t ALTER COLUMN c SET TYPE int", 1, 34,
     "expected DATA TYPE after SET, found 'TYPE'"},
    {"ALTER TABLE t CREATE BRANCH", 1, 28, "expected a branch name, found end of input"},
    {"ALTER TABLE t CREATE BRANCH b RETAIN 7 WEEKS", 1, 40,
     "expected DAYS, HOURS or MINUTES after RETAIN n, found 'WEEKS'"},
    {"ALTER TABLE t CREATE OR REPLACE BRANCH IF NOT EXISTS b", 1, 40,
     "OR REPLACE and IF NOT EXISTS cannot be combined"},
    {"ALTER TABLE t SET foo", 1, 19,
     "expected PROPERTIES, PARTITIONING or IDENTIFIER FIELDS after SET, found 'foo'"},
    {"INSERT t VALUES 1", 1, 8, "expected INTO after INSERT, found 't'"},
    {"INSERT INTO t", 1, 14, "expected VALUES or a query after the table, found end of input"},
    {"INSERT INTO t (a, b", 1, 20, "expected ',' or ')' in the name list, found end of input"},
    {"DELETE t", 1, 8, "expected FROM after DELETE, found 't'"},
    {"UPDATE t a = 1", 1, 10, "expected SET after the table name, found 'a'"},
    {"UPDATE t SET a", 1, 15, "expected '=' after the column name, found end of input"},
    {"MERGE INTO t USING s", 1, 21, "expected ON and the merge condition, found end of input"},
    {"MERGE INTO t USING s ON a", 1, 26,
     "expected WHEN MATCHED or WHEN NOT MATCHED, found end of input"},
    {"MERGE INTO t USING s ON a WHEN MATCHED THEN INSERT VALUES (1)", 1, 45,
     "expected UPDATE or DELETE after WHEN MATCHED THEN, found 'INSERT'"},
    {"MERGE INTO t USING s ON a WHEN NOT MATCHED THEN DELETE", 1, 49,
     "expected INSERT after WHEN NOT MATCHED THEN, found 'DELETE'"},
    {"TRUNCATE t", 1, 10, "expected TABLE after TRUNCATE, found 't'"},
    {"SHOW", 1, 5,
     "expected SCHEMAS, TABLES, COLUMNS, CREATE, CATALOGS or FUNCTIONS after SHOW, found end of "
     "input"},
    {"SHOW COLUMNS t", 1, 14, "expected FROM after SHOW COLUMNS, found 't'"},
    {"EXPLAIN", 1, 8, "expected a statement (SELECT, INSERT, CREATE, ...), found end of input"},
    {"EXPLAIN EXPLAIN SELECT 1", 1, 25, "EXPLAIN cannot explain EXPLAIN"},
    {"SET 'a'", 1, 8, "expected '=' after the key, found end of input"},
    {"SET '' = 1", 1, 8, "empty key in SET"},
    {"EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1;", 1, 52,
     "expected END to close the statement set, found end of input"},
    {"EXECUTE STATEMENT SET BEGIN SELECT 1; END", 1, 29,
     "expected INSERT (a statement set holds only INSERT statements) or END, found 'SELECT'"},
    {"BEGIN STATEMENT SET INSERT INTO a SELECT 1; END", 1, 21,
     "expected ';' after BEGIN STATEMENT SET, found 'INSERT'"},
    {"BEGIN STATEMENT SET; END", 1, 25, "the statement set holds no INSERT statement"},
    {"CALL p", 1, 7, "expected '(' after the procedure name, found end of input"},
    {"CALL p(1", 1, 9, "expected ',' or ')' after the argument list, found end of input"},
    {"WITH x AS SELECT 1 SELECT 2", 1, 11, "expected '(' after AS, found 'SELECT'"},
    {"WITH x (SELECT 1) SELECT 2", 1, 9,
     "expected a column name, found reserved word 'SELECT' (quote it to use it as a name)"},
    {"SELECT (SELECT 1", 1, 17, "expected ')' after the subquery, found end of input"},
    {"SELECT * FROM (SELECT 1", 1, 24, "expected ')' after the subquery, found end of input"},
    {"SELECT * FROM TABLE(tumble(TABLE src, DESCRIPTOR(ts) INTERVAL '1' SECOND))", 1, 54,
     "expected ',' or ')' after the table function arguments, found 'INTERVAL'"},
    {"SELECT EXISTS 1", 1, 15, "expected a parenthesized query after EXISTS, found '1'"},
    {"SELECT trim(BOTH x)", 1, 19, "expected FROM in TRIM(... FROM string), found ')'"},
    {"SELECT substring(s FROM 1 2)", 1, 27,
     "expected FOR or ')' in SUBSTRING(s FROM i FOR n), found '2'"},
    {"SELECT position(a IN b c)", 1, 24, "expected ')' after POSITION(a IN b), found 'c'"},
};

TEST(sql_keyword_table) {
  CHECK(sql_keyword_table_sorted());
  CHECK_EQ(sql_keyword_lookup("select", 6), SQL_KW_SELECT);
  CHECK_EQ(sql_keyword_lookup("SeLeCt", 6), SQL_KW_SELECT);
  CHECK(sql_keyword_reserved(SQL_KW_SELECT));
  CHECK_EQ(sql_keyword_lookup("date", 4), SQL_KW_NONE); /* a type word, not a keyword */
  CHECK_EQ(sql_keyword_lookup("data", 4), SQL_KW_DATA);
  CHECK(!sql_keyword_reserved(SQL_KW_DATA));
  CHECK(!sql_keyword_reserved(SQL_KW_COMMENT));
  CHECK(!sql_keyword_reserved(SQL_KW_YEAR));
  CHECK_EQ(sql_keyword_lookup("selec", 5), SQL_KW_NONE);
  CHECK_EQ(sql_keyword_lookup("selects", 7), SQL_KW_NONE);
  CHECK_EQ(sql_keyword_lookup("zone", 4), SQL_KW_ZONE);
  CHECK_EQ(sql_keyword_lookup("add", 3), SQL_KW_ADD);
  CHECK_STR(sql_keyword_name(SQL_KW_WATERMARK), "WATERMARK");
}

TEST(sql_lexer_tokens) {
  const char *text =
      "SELECT a,\n  'x''y' -- note; here\n/* c;\n */ \"Q\" 1.5e3 ? <> != => -> || X'0a' .5 7";
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  sql_tok_t *t;
  size_t n;
  CHECK_OK(sql_lex(a, text, strlen(text), &t, &n, &err), &err);
  static const sql_tok_kind_t kinds[] = {SQL_T_WORD,   SQL_T_WORD,     SQL_T_COMMA, SQL_T_STRING,
                                         SQL_T_QIDENT, SQL_T_DOUBLE,   SQL_T_PARAM, SQL_T_NE,
                                         SQL_T_NE,     SQL_T_NAMEDARG, SQL_T_ARROW, SQL_T_CONCAT,
                                         SQL_T_BINARY, SQL_T_DECIMAL,  SQL_T_INT,   SQL_T_EOF};
  CHECK_EQ(n, sizeof kinds / sizeof kinds[0]);
  for (size_t i = 0; i < n; i++) CHECK_EQ(t[i].kind, kinds[i]);
  CHECK_EQ(t[0].kw, SQL_KW_SELECT);
  CHECK_EQ(t[1].kw, SQL_KW_NONE);
  CHECK_EQ(t[3].pos.line, 2);
  CHECK_EQ(t[3].pos.col, 3);
  CHECK_EQ(t[3].len, 6);
  CHECK_EQ(t[4].pos.line, 4); /* after a two-line comment */
  CHECK_EQ(t[4].pos.col, 5);
  CHECK_EQ(t[4].pos.off, (uint32_t)(strstr(text, "\"Q\"") - text));
  CHECK_EQ(t[15].pos.off, strlen(text));
  /* Columns count characters: 'é' is two bytes, one column. */
  const char *u = "SELECT 'é', b";
  CHECK_OK(sql_lex(a, u, strlen(u), &t, &n, &err), &err);
  CHECK_EQ(t[3].kind, SQL_T_WORD);
  CHECK_EQ(t[3].pos.col, 13);
  CHECK_EQ(t[3].pos.off, 13);
  CHECK_EQ(t[2].pos.col, 11);
  fl_arena_free(a);
}

TEST(sql_expressions) { RUN_CASES(PARSE_EXPR, expr_cases); }
TEST(sql_types) { RUN_CASES(PARSE_TYPE, type_cases); }
TEST(sql_queries) { RUN_CASES(PARSE_STMT, query_cases); }
TEST(sql_statements) { RUN_CASES(PARSE_STMT, stmt_cases); }

TEST(sql_errors) {
  int failed = 0;
  for (size_t i = 0; i < sizeof error_cases / sizeof error_cases[0]; i++) {
    const sql_error_case_t *c = &error_cases[i];
    if (!check_error(c->in, c->line, c->col, c->msg, __FILE__, __LINE__)) failed++;
  }
  CHECK_EQ(failed, 0);
}

TEST(sql_error_lines) {
  CHECK(check_error("SELECT a,\n       b\n  FROM t\n WHERE c = = 1", 4, 12,
                    "expected an expression, found '='", __FILE__, __LINE__));
  CHECK(check_error("SELECT count(a\nFROM t", 2, 1,
                    "expected ',' or ')' after the argument list, found 'FROM'", __FILE__,
                    __LINE__));
  CHECK(check_error("-- header\n\nSELECT 'é', \"ü\" FROM", 3, 21,
                    "expected a table name, '(' or UNNEST, found end of input", __FILE__,
                    __LINE__));
  CHECK(check_error("SELECT\n  'one\n  two", 2, 3, "unterminated string literal", __FILE__,
                    __LINE__));
  CHECK(check_error("SELECT 1 /* a\n b */ +", 2, 8, "expected an expression, found end of input",
                    __FILE__, __LINE__));
  CHECK(
      check_error("SELECT a FROM t WHERE x = 'a very long string literal that goes on and on'"
                  " 1",
                  1, 76, "expected end of statement, found '1'", __FILE__, __LINE__));
  CHECK(check_error("SELECT 'x' 'this string is far longer than forty bytes so it is cut'", 1, 12,
                    "expected end of statement, found string 'this string is far longer than "
                    "forty by...'",
                    __FILE__, __LINE__));
}

static const sql_stmt_t *parse_ok(fl_arena_t *a, const char *text) {
  fl_err_t err;
  sql_stmt_t *s = NULL;
  if (sql_parse_statement(a, text, strlen(text), &s, &err) != FL_OK) {
    fprintf(stderr, "  parsing %s: %s\n", text, err.msg);
    return NULL;
  }
  return s;
}

TEST(sql_tree_literals) {
  fl_arena_t *a = fl_arena_new(0);
  const sql_stmt_t *s =
      parse_ok(a,
               "SELECT 9223372036854775807, 9223372036854775808, -9223372036854775808, 1.50, 2e3, "
               "X'00FF10', U&'\\00e9', 'a''b'");
  CHECK(s);
  CHECK_EQ(s->kind, SQL_S_QUERY);
  const sql_select_t *sel = &s->u.query->body->u.select;
  CHECK_EQ(sel->nitems, 8);
  const sql_expr_t *e = sel->items[0].expr;
  CHECK_EQ(e->kind, SQL_E_INT);
  CHECK(e->u.i.value == INT64_MAX);
  e = sel->items[1].expr;
  CHECK_EQ(e->kind, SQL_E_DECIMAL); /* beyond int64: an exact decimal literal */
  CHECK_STR(e->u.num.text, "9223372036854775808");
  e = sel->items[2].expr;
  CHECK_EQ(e->kind, SQL_E_UNARY);
  CHECK_EQ(e->u.unary.op, SQL_UN_NEG);
  CHECK_EQ(e->u.unary.arg->kind, SQL_E_DECIMAL);
  CHECK_EQ(sel->items[3].expr->kind, SQL_E_DECIMAL);
  CHECK_STR(sel->items[3].expr->u.num.text, "1.50");
  CHECK_EQ(sel->items[4].expr->kind, SQL_E_DOUBLE);
  e = sel->items[5].expr;
  CHECK_EQ(e->kind, SQL_E_BINARY);
  CHECK_EQ(e->u.str.len, 3);
  CHECK_MEM(e->u.str.data, "\x00\xff\x10", 3);
  e = sel->items[6].expr;
  CHECK_EQ(e->kind, SQL_E_STRING);
  CHECK_EQ(e->u.str.len, 2);
  CHECK_MEM(e->u.str.data, "\xc3\xa9", 2);
  e = sel->items[7].expr;
  CHECK_EQ(e->u.str.len, 3);
  CHECK_MEM(e->u.str.data, "a'b", 3);
  fl_arena_free(a);
}

TEST(sql_tree_typed_literals) {
  fl_arena_t *a = fl_arena_new(0);
  const sql_stmt_t *s = parse_ok(
      a,
      "SELECT DATE '2026-01-02', TIMESTAMP '2026-01-01 00:00:00 UTC', INTERVAL '1-2' YEAR TO "
      "MONTH, INTERVAL -'5' SECOND, CURRENT_TIMESTAMP(3), CAST(x AS timestamp(6) with time "
      "zone)");
  CHECK(s);
  const sql_select_t *sel = &s->u.query->body->u.select;
  const sql_expr_t *e = sel->items[0].expr;
  CHECK_EQ(e->kind, SQL_E_TYPED);
  CHECK_EQ(e->u.typed.type->kind, SQL_TY_DATE);
  CHECK_MEM(e->u.typed.data, "2026-01-02", 10);
  e = sel->items[1].expr;
  CHECK_EQ(e->u.typed.type->kind, SQL_TY_TIMESTAMP);
  CHECK_EQ(e->u.typed.len, 23);
  e = sel->items[2].expr;
  CHECK_EQ(e->kind, SQL_E_INTERVAL);
  CHECK_EQ(e->u.interval.from, SQL_F_YEAR);
  CHECK_EQ(e->u.interval.to, SQL_F_MONTH);
  CHECK(!e->u.interval.negative);
  e = sel->items[3].expr;
  CHECK(e->u.interval.negative);
  CHECK_EQ(e->u.interval.from, SQL_F_SECOND);
  CHECK_EQ(e->u.interval.to, SQL_F_NONE);
  e = sel->items[4].expr;
  CHECK_EQ(e->kind, SQL_E_CURRENT);
  CHECK_EQ(e->u.current.which, SQL_KW_CURRENT_TIMESTAMP);
  CHECK_EQ(e->u.current.precision, 3);
  e = sel->items[5].expr;
  CHECK_EQ(e->kind, SQL_E_CAST);
  CHECK_EQ(e->u.cast.type->kind, SQL_TY_TIMESTAMP);
  CHECK(e->u.cast.type->with_tz);
  CHECK_EQ(e->u.cast.type->nparams, 1);
  CHECK_EQ(e->u.cast.type->params[0], 6);
  fl_arena_free(a);
}

TEST(sql_tree_names_and_params) {
  fl_arena_t *a = fl_arena_new(0);
  const sql_stmt_t *s =
      parse_ok(a, "SELECT \"Mixed\", PLAIN, ? FROM Cat.\"NS\".T WHERE a = ? LIMIT ?");
  CHECK(s);
  CHECK_EQ(s->nparams, 3);
  const sql_select_t *sel = &s->u.query->body->u.select;
  const sql_qname_t *c0 = &sel->items[0].expr->u.column;
  CHECK_EQ(c0->n, 1);
  CHECK_STR(c0->parts[0].name, "Mixed");
  CHECK(c0->parts[0].quoted);
  const sql_qname_t *c1 = &sel->items[1].expr->u.column;
  CHECK_STR(c1->parts[0].name, "plain"); /* unquoted names fold to lower case */
  CHECK(!c1->parts[0].quoted);
  CHECK_EQ(sel->items[2].expr->u.param, 0);
  CHECK_EQ(sel->where->u.bin.r->u.param, 1);
  CHECK_EQ(s->u.query->limit->u.param, 2);
  const sql_rel_t *r = sel->from[0];
  CHECK_EQ(r->kind, SQL_REL_TABLE);
  CHECK_EQ(r->u.table.name.n, 3);
  CHECK_STR(r->u.table.name.parts[0].name, "cat");
  CHECK_STR(r->u.table.name.parts[1].name, "NS");
  CHECK_STR(r->u.table.name.parts[2].name, "t");
  s = parse_ok(a, "SELECT * FROM \"orders$snapshots\"");
  CHECK(s);
  r = s->u.query->body->u.select.from[0];
  CHECK_EQ(r->u.table.name.n, 1);
  CHECK_STR(r->u.table.name.parts[0].name, "orders$snapshots");
  fl_arena_free(a);
}

TEST(sql_tree_positions) {
  fl_arena_t *a = fl_arena_new(0);
  const char *text = "  SELECT\n    x + y AS s\n  FROM t\n  JOIN u ON t.k = u.k;";
  const sql_stmt_t *s = parse_ok(a, text);
  CHECK(s);
  CHECK_EQ(s->pos.line, 1);
  CHECK_EQ(s->pos.col, 3);
  CHECK_EQ(s->end, strlen(text) - 1); /* up to, not including, the ';' */
  const sql_select_t *sel = &s->u.query->body->u.select;
  const sql_expr_t *e = sel->items[0].expr;
  CHECK_EQ(e->kind, SQL_E_BINARY_OP);
  CHECK_EQ(e->pos.line, 2);
  CHECK_EQ(e->pos.col, 5);
  CHECK_EQ(e->u.bin.r->pos.col, 9);
  CHECK_EQ(sel->items[0].alias.pos.col, 14);
  const sql_rel_t *j = sel->from[0];
  CHECK_EQ(j->kind, SQL_REL_JOIN);
  CHECK_EQ(j->u.join.left->pos.line, 3);
  CHECK_EQ(j->u.join.left->pos.col, 8);
  CHECK_EQ(j->u.join.right->pos.line, 4);
  CHECK_EQ(j->u.join.right->pos.col, 8);
  CHECK_EQ(j->u.join.on->pos.col, 13);
  fl_arena_free(a);
}

TEST(sql_tree_time_travel) {
  fl_arena_t *a = fl_arena_new(0);
  static const struct {
    const char *sql;
    sql_time_travel_t kind;
    sql_expr_kind_t expr;
  } cases[] = {
      {"SELECT * FROM t FOR VERSION AS OF 123", SQL_TT_VERSION, SQL_E_INT},
      {"SELECT * FROM t FOR VERSION AS OF 'main'", SQL_TT_VERSION, SQL_E_STRING},
      {"SELECT * FROM t FOR TIMESTAMP AS OF TIMESTAMP '2026-01-01 00:00:00 UTC'", SQL_TT_TIMESTAMP,
       SQL_E_TYPED},
      {"SELECT * FROM t FOR SYSTEM_TIME AS OF o.ts", SQL_TT_SYSTEM_TIME, SQL_E_COLUMN},
      {"SELECT * FROM t", SQL_TT_NONE, SQL_E_KIND_COUNT},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const sql_stmt_t *s = parse_ok(a, cases[i].sql);
    CHECK(s);
    const sql_rel_t *r = s->u.query->body->u.select.from[0];
    CHECK_EQ(r->u.table.travel, cases[i].kind);
    if (cases[i].kind != SQL_TT_NONE) CHECK_EQ(r->u.table.as_of->kind, cases[i].expr);
  }
  fl_arena_free(a);
}

TEST(sql_tree_flink_table) {
  fl_arena_t *a = fl_arena_new(0);
  const sql_stmt_t *s =
      parse_ok(a,
               "CREATE TABLE clicks (id BIGINT NOT NULL, ts TIMESTAMP(3), cost AS price * 2, "
               "part INT METADATA FROM 'partition' VIRTUAL, off BIGINT METADATA, "
               "WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (id) NOT ENFORCED) "
               "WITH ('connector' = 'kafka', format = 'json')");
  CHECK(s);
  CHECK_EQ(s->kind, SQL_S_CREATE_TABLE);
  const __typeof__(s->u.create_table) *t = &s->u.create_table;
  CHECK_EQ(t->ncolumns, 5);
  CHECK_EQ(t->columns[0].kind, SQL_COL_PHYSICAL);
  CHECK(t->columns[0].not_null);
  CHECK_EQ(t->columns[1].type->kind, SQL_TY_TIMESTAMP);
  CHECK_EQ(t->columns[1].type->params[0], 3);
  CHECK_EQ(t->columns[2].kind, SQL_COL_COMPUTED);
  CHECK(t->columns[2].type == NULL);
  CHECK_EQ(t->columns[2].computed->kind, SQL_E_BINARY_OP);
  CHECK_EQ(t->columns[3].kind, SQL_COL_METADATA);
  CHECK_EQ(t->columns[3].metadata_key_len, 9);
  CHECK_MEM(t->columns[3].metadata_key, "partition", 9);
  CHECK(t->columns[3].is_virtual);
  CHECK_EQ(t->columns[4].kind, SQL_COL_METADATA);
  CHECK(t->columns[4].metadata_key == NULL);
  CHECK(!t->columns[4].is_virtual);
  CHECK(t->watermark);
  CHECK_STR(t->watermark->column.name, "ts");
  CHECK_EQ(t->watermark->expr->u.bin.op, SQL_OP_SUB);
  CHECK_EQ(t->primary_key.n, 1);
  CHECK(t->pk_not_enforced);
  CHECK_EQ(t->props.n, 2);
  CHECK(t->props.items[0].key_is_string);
  CHECK_STR(t->props.items[0].key.name, "connector");
  CHECK(!t->props.items[1].key_is_string);
  fl_arena_free(a);
}

TEST(sql_tree_alter_and_merge) {
  fl_arena_t *a = fl_arena_new(0);
  const sql_stmt_t *s =
      parse_ok(a, "ALTER TABLE t EXECUTE optimize(file_size_threshold => '128MB')");
  CHECK(s);
  const sql_alter_t *al = &s->u.alter_table.alter;
  CHECK_EQ(al->kind, SQL_ALTER_EXECUTE);
  CHECK_STR(al->procedure->name.parts[0].name, "optimize");
  CHECK_EQ(al->procedure->args.n, 1);
  CHECK_STR(al->procedure->arg_names[0].name, "file_size_threshold");
  s = parse_ok(a, "ALTER TABLE t CREATE OR REPLACE BRANCH dev AS OF VERSION 42 RETAIN 3 HOURS");
  CHECK(s);
  al = &s->u.alter_table.alter;
  CHECK_EQ(al->kind, SQL_ALTER_CREATE_REF);
  CHECK_EQ(al->ref, SQL_REF_BRANCH);
  CHECK(al->or_replace);
  CHECK_STR(al->ref_name.name, "dev");
  CHECK_EQ(al->as_of_version->u.i.value, 42);
  CHECK(al->has_retain);
  CHECK_EQ(al->retain, 3);
  CHECK_EQ(al->retain_unit, SQL_RETAIN_HOURS);
  s = parse_ok(a, "ALTER TABLE t SET PARTITIONING ARRAY['day(ts)']");
  CHECK(s);
  al = &s->u.alter_table.alter;
  CHECK_EQ(al->kind, SQL_ALTER_SET_PROPERTIES);
  CHECK_EQ(al->props.n, 1);
  CHECK_STR(al->props.items[0].key.name, "partitioning");
  CHECK_EQ(al->props.items[0].value->kind, SQL_E_ARRAY);
  s = parse_ok(a,
               "MERGE INTO t AS x USING s ON x.id = s.id WHEN MATCHED AND s.d THEN DELETE "
               "WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id)");
  CHECK(s);
  CHECK_EQ(s->u.merge.nclauses, 2);
  CHECK(s->u.merge.clauses[0].matched);
  CHECK_EQ(s->u.merge.clauses[0].action, SQL_MERGE_DELETE);
  CHECK(s->u.merge.clauses[0].cond);
  CHECK(!s->u.merge.clauses[1].matched);
  CHECK_EQ(s->u.merge.clauses[1].action, SQL_MERGE_INSERT);
  CHECK_EQ(s->u.merge.clauses[1].columns.n, 1);
  CHECK_EQ(s->u.merge.clauses[1].values.n, 1);
  fl_arena_free(a);
}

TEST(sql_tree_setops) {
  fl_arena_t *a = fl_arena_new(0);
  const sql_stmt_t *s = parse_ok(a, "SELECT 1 UNION ALL SELECT 2 INTERSECT SELECT 3 ORDER BY 1");
  CHECK(s);
  const sql_qbody_t *b = s->u.query->body;
  CHECK_EQ(b->kind, SQL_QB_SETOP);
  CHECK_EQ(b->u.setop.op, SQL_SET_UNION);
  CHECK(b->u.setop.all);
  CHECK_EQ(b->u.setop.l->kind, SQL_QB_SELECT);
  CHECK_EQ(b->u.setop.r->kind, SQL_QB_SETOP);
  CHECK_EQ(b->u.setop.r->u.setop.op, SQL_SET_INTERSECT);
  CHECK_EQ(s->u.query->order_by.n, 1);
  s = parse_ok(a, "(SELECT 1 LIMIT 1) EXCEPT SELECT 2");
  CHECK(s);
  b = s->u.query->body;
  CHECK_EQ(b->u.setop.op, SQL_SET_EXCEPT);
  CHECK_EQ(b->u.setop.l->kind, SQL_QB_PAREN);
  CHECK_EQ(b->u.setop.l->u.paren->limit_kind, SQL_LIMIT_COUNT);
  fl_arena_free(a);
}

TEST(sql_script) {
  const char *text =
      "SET 'pipeline.name' = 'a;b';\n"
      "-- a comment; with a semicolon\n"
      "CREATE TABLE t (a int); /* ; */\n"
      ";;\n"
      "BEGIN STATEMENT SET;\n"
      "  INSERT INTO x SELECT CASE WHEN a THEN 1 END FROM t;\n"
      "  INSERT INTO y SELECT 2;\n"
      "END;\n"
      "SELECT ? , ?";
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  sql_stmt_t **ss;
  size_t n;
  CHECK_OK(sql_parse_script(a, text, strlen(text), &ss, &n, &err), &err);
  CHECK_EQ(n, 4);
  CHECK_EQ(ss[0]->kind, SQL_S_SET);
  CHECK_EQ(ss[1]->kind, SQL_S_CREATE_TABLE);
  CHECK_EQ(ss[1]->pos.line, 3);
  CHECK_EQ(ss[2]->kind, SQL_S_STATEMENT_SET);
  CHECK_EQ(ss[2]->pos.line, 5);
  CHECK_EQ(ss[2]->u.statement_set.n, 2);
  CHECK_EQ(ss[2]->u.statement_set.stmts[1]->pos.line, 7);
  CHECK_EQ(ss[2]->u.statement_set.stmts[1]->pos.col, 3);
  CHECK_EQ(ss[3]->kind, SQL_S_QUERY);
  CHECK_EQ(ss[3]->nparams, 2); /* counted per statement */
  CHECK_EQ(ss[0]->nparams, 0);
  CHECK(strncmp(text + ss[1]->pos.off, "CREATE TABLE t (a int)", ss[1]->end - ss[1]->pos.off) == 0);
  CHECK_EQ(ss[1]->end - ss[1]->pos.off, strlen("CREATE TABLE t (a int)"));

  sql_piece_t *pieces;
  CHECK_OK(sql_split_script(a, text, strlen(text), &pieces, &n, &err), &err);
  CHECK_EQ(n, 4);
  static const char *const want[] = {
      "SET 'pipeline.name' = 'a;b'",
      "CREATE TABLE t (a int)",
      ("BEGIN STATEMENT SET;\n  INSERT INTO x SELECT CASE WHEN a THEN 1 END FROM t;\n"
       "  INSERT INTO y SELECT 2;\nEND"),
      "SELECT ? , ?",
  };
  for (size_t i = 0; i < n; i++) {
    CHECK_EQ(pieces[i].len, strlen(want[i]));
    CHECK_MEM(text + pieces[i].off, want[i], pieces[i].len);
  }
  CHECK_EQ(pieces[2].pos.line, 5);
  CHECK_EQ(pieces[3].pos.line, 9);
  /* Each piece parses on its own to the same statement the script gave. */
  for (size_t i = 0; i < n; i++) {
    sql_stmt_t *one;
    CHECK_OK(sql_parse_statement(a, text + pieces[i].off, pieces[i].len, &one, &err), &err);
    CHECK_STR(sql_stmt_text(a, one), sql_stmt_text(a, ss[i]));
  }

  const char *exec =
      "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; INSERT INTO b SELECT 2; END; SELECT 3;"
      "EXPLAIN STATEMENT SET BEGIN INSERT INTO a SELECT 1; INSERT INTO b SELECT 2; END;"
      "EXPLAIN EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; END";
  CHECK_OK(sql_split_script(a, exec, strlen(exec), &pieces, &n, &err), &err);
  CHECK_EQ(n, 4);
  CHECK_EQ(pieces[1].off, (uint32_t)(strstr(exec, "SELECT 3") - exec));
  CHECK_OK(sql_parse_script(a, exec, strlen(exec), &ss, &n, &err), &err);
  CHECK_EQ(n, 4);
  CHECK_EQ(ss[2]->kind, SQL_S_EXPLAIN);
  CHECK_EQ(ss[2]->u.explain.stmt->kind, SQL_S_STATEMENT_SET);
  CHECK_EQ(ss[2]->u.explain.stmt->u.statement_set.n, 2);
  CHECK_EQ(ss[3]->u.explain.stmt->kind, SQL_S_STATEMENT_SET);
  CHECK_STR(
      sql_stmt_text(a, ss[2]),
      "EXPLAIN EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; INSERT INTO b SELECT 2; END");

  CHECK_OK(sql_parse_script(a, " ;; -- nothing\n", 15, &ss, &n, &err), &err);
  CHECK_EQ(n, 0);
  const char *bad = "SELECT 1;\nSELECT 2;\nSELECT FROM t;\n";
  CHECK_ERR(sql_parse_script(a, bad, strlen(bad), &ss, &n, &err), FL_EPARSE);
  CHECK_STR(err.msg, "line 3, column 8: expected an expression, found 'FROM'");
  const char *missing = "SELECT 1\nSELECT 2";
  CHECK_ERR(sql_parse_script(a, missing, strlen(missing), &ss, &n, &err), FL_EPARSE);
  CHECK_STR(err.msg, "line 2, column 1: expected ';' between statements, found 'SELECT'");
  CHECK_ERR(sql_split_script(a, "SELECT 'x", 9, &pieces, &n, &err), FL_EPARSE);
  fl_arena_free(a);
}

/* A streaming job file as `floe run` will read it. */
TEST(sql_job_file) {
  const char *job =
      "-- clicks per user per minute\n"
      "SET 'execution.checkpointing.interval' = '10s';\n"
      "SET 'pipeline.name' = 'clicks-per-minute';\n"
      "\n"
      "CREATE TABLE clicks (\n"
      "  user_id BIGINT,\n"
      "  url STRING,\n"
      "  ts TIMESTAMP(3),\n"
      "  kafka_offset BIGINT METADATA FROM 'offset' VIRTUAL,\n"
      "  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND\n"
      ") WITH (\n"
      "  'connector' = 'kafka',\n"
      "  'topic' = 'clicks',\n"
      "  'format' = 'json'\n"
      ");\n"
      "\n"
      "CREATE TABLE IF NOT EXISTS lake.web.clicks_per_minute (\n"
      "  window_start TIMESTAMP(3), user_id BIGINT, clicks BIGINT\n"
      ") WITH (partitioning = ARRAY['day(window_start)'], format_version = 2);\n"
      "\n"
      "INSERT INTO lake.web.clicks_per_minute\n"
      "SELECT window_start, user_id, count(*) AS clicks\n"
      "FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTES))\n"
      "GROUP BY window_start, window_end, user_id;\n";
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  sql_stmt_t **ss;
  size_t n;
  CHECK_OK(sql_parse_script(a, job, strlen(job), &ss, &n, &err), &err);
  CHECK_EQ(n, 5);
  CHECK_EQ(ss[0]->kind, SQL_S_SET);
  CHECK_EQ(ss[0]->pos.line, 2);
  CHECK_EQ(ss[2]->kind, SQL_S_CREATE_TABLE);
  CHECK_EQ(ss[2]->pos.line, 5);
  CHECK(ss[2]->u.create_table.watermark);
  CHECK_EQ(ss[2]->u.create_table.watermark->pos.line, 10);
  CHECK_EQ(ss[2]->u.create_table.columns[3].kind, SQL_COL_METADATA);
  CHECK_EQ(ss[3]->u.create_table.name.n, 3);
  CHECK_EQ(ss[4]->kind, SQL_S_INSERT);
  CHECK_EQ(ss[4]->pos.line, 21);
  const sql_rel_t *r = ss[4]->u.insert.query->body->u.select.from[0];
  CHECK_EQ(r->kind, SQL_REL_FUNCTION);
  CHECK_STR(r->u.func.name.parts[0].name, "tumble");
  CHECK_EQ(r->u.func.nargs, 3);
  CHECK_EQ(r->u.func.args[0].kind, SQL_TARG_TABLE);
  CHECK_EQ(r->u.func.args[1].kind, SQL_TARG_DESCRIPTOR);
  CHECK_EQ(r->u.func.args[2].kind, SQL_TARG_EXPR);
  CHECK_EQ(r->u.func.args[2].expr->u.interval.from, SQL_F_MINUTE);
  CHECK_STR(sql_stmt_text(a, ss[4]),
            "INSERT INTO lake.web.clicks_per_minute SELECT window_start, user_id, count(*) AS "
            "clicks FROM TABLE(tumble(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP "
            "BY window_start, window_end, user_id");
  /* A mistake deep in the file is reported on its own line. */
  char *broken = fl_arena_strdup(a, job);
  memcpy(strstr(broken, "user_id, count"), "user_id  count", 14); /* a missing comma */
  CHECK_ERR(sql_parse_script(a, broken, strlen(broken), &ss, &n, &err), FL_EPARSE);
  /* "user_id count" reads as user_id AS count, so the '(' is what cannot follow. */
  CHECK_STR(err.msg, "line 22, column 36: expected ';' between statements, found '('");
  fl_arena_free(a);
}

TEST(sql_caret_display) {
  const char *text = "SELECT a\n\tFROM t WHERE b = = 1\nLIMIT 1";
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  sql_stmt_t *s;
  CHECK_ERR(sql_parse_statement(a, text, strlen(text), &s, &err), FL_EPARSE);
  uint32_t line, col;
  CHECK(sql_error_pos(&err, &line, &col));
  CHECK_EQ(line, 2);
  CHECK_EQ(col, 19);
  fl_buf_t b;
  fl_buf_init(&b);
  sql_error_caret(text, strlen(text), &err, &b);
  fl_buf_append_u8(&b, 0);
  CHECK_STR((const char *)b.data, "\tFROM t WHERE b = = 1\n\t                 ^\n");
  /* A prefix added on the way up keeps the position findable. */
  fl_err_prefix(&err, "job.sql: ");
  CHECK(sql_error_pos(&err, &line, &col));
  CHECK_EQ(col, 19);
  /* At end of input the caret sits just past the last character. */
  CHECK_ERR(sql_parse_statement(a, "SELECT é +", 11, &s, &err), FL_EPARSE);
  fl_buf_clear(&b);
  sql_error_caret("SELECT é +", 11, &err, &b);
  fl_buf_append_u8(&b, 0);
  CHECK_STR((const char *)b.data, "SELECT é +\n          ^\n");
  fl_err_t none;
  fl_err_clear(&none);
  CHECK(!sql_error_pos(&none, &line, &col));
  fl_buf_clear(&b);
  sql_error_caret(text, strlen(text), &none, &b);
  CHECK_EQ(b.len, 0);
  fl_buf_free(&b);
  fl_arena_free(a);
}

/* Builds prefix + middle * n + suffix. */
static char *repeat(const char *prefix, const char *middle, size_t n, const char *suffix) {
  size_t pl = strlen(prefix), ml = strlen(middle), sl = strlen(suffix);
  char *s = malloc(pl + ml * n + sl + 1);
  memcpy(s, prefix, pl);
  for (size_t i = 0; i < n; i++) memcpy(s + pl + i * ml, middle, ml);
  memcpy(s + pl + ml * n, suffix, sl + 1);
  return s;
}

static bool deep_fails(const char *prefix, const char *middle, size_t n, const char *suffix) {
  char *text = repeat(prefix, middle, n, suffix);
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  sql_stmt_t *s;
  int rc = sql_parse_statement(a, text, strlen(text), &s, &err);
  bool ok = rc == FL_EPARSE && strstr(err.msg, "nests deeper than") != NULL;
  if (!ok) fprintf(stderr, "  %s%s...: rc %d %s\n", prefix, middle, rc, err.msg);
  fl_arena_free(a);
  free(text);
  return ok;
}

static bool deep_parses(const char *prefix, const char *middle, size_t n, const char *suffix) {
  char *text = repeat(prefix, middle, n, suffix);
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  sql_stmt_t *s;
  int rc = sql_parse_statement(a, text, strlen(text), &s, &err);
  if (rc) fprintf(stderr, "  %s%s...: %s\n", prefix, middle, err.msg);
  bool ok = rc == FL_OK;
  if (ok) { /* the printer walks the whole tree */
    char *printed = sql_stmt_text(a, s);
    ok = printed[0] != '\0';
  }
  fl_arena_free(a);
  free(text);
  return ok;
}

TEST(sql_depth_limits) {
  CHECK(deep_fails("SELECT ", "(", 100000, "1"));
  CHECK(deep_fails("SELECT ", "- ", 100000, "1"));
  CHECK(deep_fails("SELECT ", "NOT ", 100000, "1"));
  CHECK(deep_fails("SELECT 1", " + 1", 100000, ""));
  CHECK(deep_fails("SELECT 1", " OR 1", 100000, ""));
  CHECK(deep_fails("SELECT 1", " || 'x'", 100000, ""));
  CHECK(deep_fails("SELECT a", "[1]", 100000, ""));
  CHECK(deep_fails("SELECT ", "f(", 100000, ""));
  CHECK(deep_fails("SELECT ", "ARRAY[", 100000, ""));
  CHECK(deep_fails("SELECT ", "CASE WHEN a THEN ", 100000, ""));
  CHECK(deep_fails("SELECT * FROM ", "(SELECT * FROM ", 100000, ""));
  CHECK(deep_fails("SELECT * FROM ", "(", 100000, "t"));
  CHECK(deep_fails("SELECT * FROM t", " JOIN t ON x", 100000, ""));
  CHECK(deep_fails("SELECT 1", " UNION SELECT 1", 100000, ""));
  CHECK(deep_fails("", "(", 100000, "SELECT 1"));
  CHECK(deep_fails("SELECT CAST(x AS ", "array(", 100000, ""));
  CHECK(deep_fails("SELECT CAST(x AS ", "row(a ", 100000, ""));
  CHECK(deep_fails("", "EXPLAIN ", 100000, "SELECT 1"));
  CHECK(deep_fails("SELECT a ", "IS NULL ", 100000, ""));
  /* Long flat lists are not nesting, and ordinary depths are fine. */
  CHECK(deep_parses("SELECT a FROM t WHERE a IN (0", ", 1", 50000, ")"));
  CHECK(deep_parses("SELECT 1", ", 1", 20000, ""));
  CHECK(deep_parses("VALUES (1)", ", (1)", 20000, ""));
  CHECK(deep_parses("SELECT 1", " + 1", 500, ""));
  CHECK(deep_parses("SELECT a FROM t WHERE a = 1", " OR a = 1", 300, ""));
  char *closing = repeat("1", ")", 200, "");
  CHECK(deep_parses("SELECT ", "(", 200, closing));
  free(closing);
  closing = repeat("1", ")", 150, "");
  CHECK(deep_parses("SELECT ", "(SELECT ", 150, closing));
  free(closing);
}

/*
 * "((SELECT ..." may open a subquery or a parenthesized expression, so the
 * parser tries one and then the other. Nested, a failed attempt must not be
 * retried at every enclosing level, or this input would take 2^40 steps.
 */
TEST(sql_backtracking_stays_polynomial) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  sql_stmt_t *s;
  /* The innermost part is broken, so every level fails both ways. */
  char *open = repeat("SELECT ", "((SELECT ", 40, "1 +");
  char *text = repeat(open, ")", 80, "");
  CHECK_ERR(sql_parse_statement(a, text, strlen(text), &s, &err), FL_EPARSE);
  CHECK(strstr(err.msg, "expected an expression, found ')'") != NULL);
  CHECK(strstr(err.msg, "line 1, column 371:") == err.msg);
  free(text);
  free(open);
  open = repeat("SELECT ", "((SELECT ", 40, "1");
  text = repeat(open, ")", 80, "");
  CHECK_OK(sql_parse_statement(a, text, strlen(text), &s, &err), &err);
  free(text);
  free(open);
  /* The same in FROM, where "((SELECT" may also open a parenthesized join. */
  open = repeat("SELECT * FROM ", "((SELECT * FROM ", 40, "t WHERE");
  text = repeat(open, ")", 80, "");
  CHECK_ERR(sql_parse_statement(a, text, strlen(text), &s, &err), FL_EPARSE);
  CHECK(strstr(err.msg, "expected an expression, found ')'") != NULL);
  free(text);
  free(open);
  fl_arena_free(a);
}

/* A tiny deterministic generator so the test is repeatable. */
static uint64_t rng_state;
static uint32_t rng(void) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(rng_state >> 33);
}

TEST(sql_random_token_soup) {
  static const char *const words[] = {
      "SELECT",   "FROM",   "WHERE",  "(",          ")",         ",",         "a",
      "t",        "1",      "'s'",    "+",          "-",         "*",         "=",
      "AND",      "OR",     "NOT",    "IN",         "BETWEEN",   "CASE",      "WHEN",
      "THEN",     "END",    "JOIN",   "ON",         "GROUP",     "BY",        "ORDER",
      "LIMIT",    "UNION",  "AS",     "CAST",       "int",       "ARRAY",     "[",
      "]",        ".",      "?",      "IS",         "NULL",      "OVER",      "PARTITION",
      "INTERVAL", "DAY",    "TABLE",  "VALUES",     "WITH",      "INSERT",    "INTO",
      "CREATE",   "DROP",   "ALTER",  "SET",        ";",         "DATE",      "EXISTS",
      "LIKE",     "=>",     "->",     "DESCRIPTOR", "ROW",       "TIMESTAMP", "FOR",
      "VERSION",  "OF",     "BEGIN",  "STATEMENT",  "\"q\"",     "x'00'",     "1.5",
      "1e3",      "||",     "LEFT",   "CROSS",      "USING",     "ANY",       "ALL",
      "DISTINCT", "FILTER", "ROWS",   "PRECEDING",  "CURRENT",   "UNNEST",    "MERGE",
      "MATCHED",  "DELETE", "UPDATE", "COLUMN",     "WATERMARK", "METADATA",  "PRIMARY",
      "KEY"};
  size_t nwords = sizeof words / sizeof words[0];
  rng_state = 42;
  int parsed = 0, rejected = 0, bad = 0;
  char text[512];
  for (int iter = 0; iter < 20000; iter++) {
    size_t len = 0;
    /* Half the inputs start like a query so more of them get deep. */
    if (iter % 2) len = (size_t)snprintf(text, sizeof text, "SELECT ");
    int n = 1 + (int)(rng() % 24);
    for (int k = 0; k < n && len + 32 < sizeof text; k++)
      len += (size_t)snprintf(text + len, sizeof text - len, "%s ", words[rng() % nwords]);
    fl_arena_t *a = fl_arena_new(0);
    fl_err_t err;
    sql_stmt_t *s;
    int rc = sql_parse_statement(a, text, len, &s, &err);
    if (rc == FL_OK) {
      parsed++;
      char *p1 = sql_stmt_text(a, s);
      sql_stmt_t *s2;
      if (sql_parse_statement(a, p1, strlen(p1), &s2, &err) != FL_OK ||
          strcmp(p1, sql_stmt_text(a, s2)) != 0) {
        if (bad++ < 5) fprintf(stderr, "  round trip of \"%s\" -> \"%s\" failed\n", text, p1);
      }
    } else if (rc == FL_EPARSE && sql_error_pos(&err, &(uint32_t){0}, &(uint32_t){0})) {
      rejected++;
    } else {
      if (bad++ < 5) fprintf(stderr, "  \"%s\": rc %d %s\n", text, rc, err.msg);
    }
    fl_arena_free(a);
  }
  CHECK_EQ(bad, 0);
  CHECK(parsed > 100); /* the generator does reach valid statements */
  CHECK(rejected > 1000);
}

TEST(sql_nul_bytes) {
  /* Trees print as C strings, so NUL is refused wherever it appears. */
  static const struct {
    const char *text;
    size_t len;
    unsigned col;
  } cases[] = {
      {"SELECT 'a\0b'", 13, 10},
      {"SELECT \"a\0b\"", 13, 10},
      {"SELECT 1\0", 9, 9},
      {"SELECT X'0\0'", 13, 11},
  };
  fl_arena_t *a = fl_arena_new(0);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fl_err_t err;
    sql_stmt_t *s;
    CHECK_ERR(sql_parse_statement(a, cases[i].text, cases[i].len, &s, &err), FL_EPARSE);
    char want[64];
    snprintf(want, sizeof want, "line 1, column %u: NUL byte in SQL text", cases[i].col);
    CHECK_STR(err.msg, want);
  }
  fl_err_t err;
  sql_stmt_t *s;
  CHECK_ERR(sql_parse_statement(a, "SELECT U&'\\0000'", 16, &s, &err), FL_EPARSE);
  CHECK_STR(err.msg, "line 1, column 8: unicode string escape U+0000 is not a character");
  fl_arena_free(a);
}

TEST(sql_bytes_never_crash) {
  /* Random bytes, including NUL, control characters and bare UTF-8 lead bytes. */
  rng_state = 7;
  unsigned char text[256];
  for (int iter = 0; iter < 5000; iter++) {
    size_t len = rng() % sizeof text;
    for (size_t k = 0; k < len; k++) text[k] = (unsigned char)(rng() % 256);
    fl_arena_t *a = fl_arena_new(0);
    fl_err_t err;
    sql_stmt_t **ss;
    size_t n;
    int rc = sql_parse_script(a, (const char *)text, len, &ss, &n, &err);
    CHECK(rc == FL_OK || rc == FL_EPARSE);
    fl_arena_free(a);
  }
}
