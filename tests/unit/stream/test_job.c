/*
 * test_job.c - parsing and binding streaming jobs: connector tables
 * (Flink types, computed and metadata columns, WATERMARK, options), SET,
 * INSERT and statement sets against a real catalog, and errors that
 * name the line and column.
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/arena.h"
#include "catalog/cat_tables.h"
#include "io/fs.h"
#include "stream/st_job.h"
#include "test.h"

static cat_catalog_t *catalog(const char *name, fl_err_t *err) {
  char wh[512];
  snprintf(wh, sizeof wh, "%s/%s", t_tmpdir(), name);
  cat_catalog_t *c = NULL;
  if (cat_open(NULL, wh, NULL, &c, err)) return NULL;
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s;
  if (cat_ns_create(c, "db", NULL, 0, err) ||
      ty_schema_parse(a, "id long, who string, amount decimal(10,2), ts timestamp", &s, err)) {
    fl_arena_free(a);
    cat_close(c);
    return NULL;
  }
  cat_create_opts_t o = {.schema = s};
  int rc = cat_create_table(c, io_local_fs(), "db", "out", &o, NULL, err);
  fl_arena_free(a);
  if (rc) {
    cat_close(c);
    return NULL;
  }
  return c;
}

static const char *JOB =
    "SET 'pipeline.name' = 'p1';\n"
    "SET 'execution.checkpointing.interval' = '5 s';\n"
    "CREATE TEMPORARY TABLE src (\n"
    "  id BIGINT,\n"
    "  who STRING,\n"
    "  amount DECIMAL(10, 2),\n"
    "  tags ARRAY<STRING>,\n"
    "  attrs MAP<STRING, INT>,\n"
    "  pos ROW<x DOUBLE, y DOUBLE>,\n"
    "  ts TIMESTAMP(3),\n"
    "  kts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',\n"
    "  `offset` BIGINT METADATA VIRTUAL,\n"
    "  twice AS amount * 2,\n"
    "  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,\n"
    "  PRIMARY KEY (id) NOT ENFORCED\n"
    ") WITH ('connector' = 'kafka', 'topic' = 't', 'format' = 'json');\n"
    "EXECUTE STATEMENT SET BEGIN\n"
    "  INSERT INTO db.out SELECT id, who, twice, ts FROM src WHERE amount > 1;\n"
    "  INSERT INTO db.out SELECT id, upper(who), amount, ts FROM src;\n"
    "END;\n";

TEST(job_parses_tables_sets_and_statement_sets) {
  fl_err_t err;
  fl_err_clear(&err);
  cat_catalog_t *c = catalog("job1", &err);
  CHECK_OK(c ? FL_OK : err.code, &err);
  fl_arena_t *a = fl_arena_new(0);
  st_job_t *j = NULL;
  int rc = st_job_parse(a, "x.sql", JOB, strlen(JOB), c, &j, &err);
  if (rc) {
    fl_arena_free(a);
    cat_close(c);
  }
  CHECK_OK(rc, &err);
  CHECK_STR(st_job_option(j, "pipeline.name"), "p1");
  CHECK_STR(st_job_option(j, "execution.checkpointing.interval"), "5 s");
  CHECK_EQ(j->ntables, 1);
  const sql_stream_table_t *t = j->tables[0];
  CHECK_STR(t->name, "src");
  CHECK_EQ(t->ncols, 10);
  CHECK_EQ(t->nbase, 9); /* all but the computed column */
  CHECK_EQ(t->cols[9].kind, SQL_COL_COMPUTED);
  CHECK_EQ(t->cols[9].type.kind, SQL_DT_DECIMAL);
  CHECK_EQ(t->cols[7].kind, SQL_COL_METADATA);
  CHECK_STR(t->cols[7].metadata_key, "timestamp");
  CHECK_EQ(t->cols[7].type.kind, SQL_DT_TIMESTAMPTZ);
  CHECK_STR(t->cols[8].metadata_key, "offset"); /* the column's own name */
  CHECK(t->cols[8].is_virtual);
  CHECK_EQ(t->cols[3].storage->kind, TY_LIST);
  CHECK_EQ(t->cols[4].storage->kind, TY_MAP);
  CHECK(!t->cols[4].hidden); /* maps are SQL values too */
  CHECK_EQ(t->cols[5].storage->kind, TY_STRUCT);
  CHECK_EQ(t->rowtime_col, 6);
  CHECK(t->watermark != NULL);
  CHECK_EQ(t->watermark->type.kind, SQL_DT_TIMESTAMP);
  CHECK_STR(sql_stream_option(t, "topic"), "t");
  CHECK_EQ(t->npk, 1);
  CHECK_EQ(j->ninserts, 2);
  CHECK_STR(j->inserts[0].name, "out");
  CHECK_EQ(j->inserts[1].pos.line, 19);
  fl_arena_free(a);
  cat_close(c);
}

typedef struct bad {
  const char *text;
  const char *msg; /* a part of the message, position first */
} bad_t;

TEST(job_errors_name_line_and_column) {
  static const bad_t cases[] = {
      {"CREATE TABLE s (a INT) WITH ('connector' = 'datagen');\nINSERT INTO db.out SELEC a FROM s;",
       "line 2, column 20"},
      {"CREATE TABLE s (a INT) WITH ('connector' = 'datagen');\n"
       "INSERT INTO db.out SELECT b, 'x', 1, TIMESTAMP '2020-01-01 00:00:00' FROM s;",
       "line 2, column 27"},
      {"CREATE TABLE s (a INT, b AS nope + 1) WITH ('connector' = 'datagen');\n"
       "INSERT INTO db.out SELECT a, 'x', 1, TIMESTAMP '2020-01-01 00:00:00' FROM s;",
       "line 1, column 29"},
      {"CREATE TABLE s (a INT, WATERMARK FOR zz AS zz) WITH ('connector' = 'datagen');",
       "line 1, column 38: The rowtime column 'zz'"},
      {"CREATE TABLE s (ts TIMESTAMP(3), WATERMARK FOR ts AS 1) WITH ('connector' = 'datagen');",
       "line 1, column 54: The WATERMARK expression must give a timestamp"},
      {"CREATE TABLE s (a INT) WITH ('connector' = 'datagen');\n"
       "INSERT INTO db.nope SELECT a FROM s;",
       "line 2, column 1: Table 'db.nope' does not exist"},
      {"CREATE TABLE db.s (a INT);", "line 1, column 1: a job creates connector tables only"},
      {"CREATE TABLE s (a INT) WITH ('connector' = 'datagen');\nSELECT a FROM s;",
       "line 2, column 1: a job holds"},
      {"CREATE TABLE s (a INT) WITH ('connector' = 'datagen');", "no INSERT INTO"},
      {"CREATE TABLE s (a INT) WITH ('connector' = 'datagen');\n"
       "CREATE TABLE s (b INT) WITH ('connector' = 'datagen');",
       "line 2, column 1: the job already has a table"},
      {"CREATE TABLE s (a INT) WITH ('connector' = 'datagen', rows = '1');",
       "line 1, column 55: Option names of a connector table are quoted"},
      {"CREATE TABLE s (a INT) WITH ('connector' = 'datagen');\n"
       "INSERT INTO db.out SELECT id, who, amount, ts FROM db.out;",
       "reads the catalog table db.out"},
  };
  fl_err_t err;
  fl_err_clear(&err);
  cat_catalog_t *c = catalog("job2", &err);
  CHECK_OK(c ? FL_OK : err.code, &err);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fl_arena_t *a = fl_arena_new(0);
    st_job_t *j = NULL;
    fl_err_clear(&err);
    int rc = st_job_parse(a, "x.sql", cases[i].text, strlen(cases[i].text), c, &j, &err);
    fl_arena_free(a);
    if (rc == FL_OK || !strstr(err.msg, cases[i].msg)) {
      cat_close(c);
      t_fail(__FILE__, __LINE__, "case %zu: expected \"%s\", got rc %d \"%s\"", i, cases[i].msg, rc,
             err.msg);
      return;
    }
  }
  cat_close(c);
}

TEST(duration_parse_flink_spellings) {
  static const struct {
    const char *s;
    int64_t ms;
  } ok[] = {{"500 ms", 500},  {"5s", 5000},      {"5 s", 5000}, {"1 min", 60000},
            {"2 h", 7200000}, {"1 d", 86400000}, {"250", 250},  {"10 seconds", 10000}};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    int64_t v = -1;
    CHECK(st_duration_parse(ok[i].s, &v));
    CHECK_EQ(v, ok[i].ms);
  }
  static const char *const bad[] = {"", "s", "5 parsecs", "-1 s", "1.5 s"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int64_t v;
    CHECK(!st_duration_parse(bad[i], &v));
  }
}
