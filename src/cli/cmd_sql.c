/*
 * cmd_sql.c - `floe sql`: run SQL over the catalog's Iceberg tables and
 * VALUES (layer 12, cli). Statements come from -c TEXT, -f FILE or
 * standard input, split into statements by the parser's script splitter;
 * each query's rows are printed in the chosen format. The first failing
 * statement stops the script with one error line, the source line and a
 * caret under the offending token, and exit status 1. With neither -c nor
 * -f and a terminal on standard input, the interactive shell
 * (sql_shell.h) reads statements instead, and an error ends only its
 * statement.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/rows_out.h"
#include "cli/session.h"
#include "cli/sql_exec.h"
#include "cli/sql_progress.h"
#include "cli/sql_shell.h"
#include "exec/ex_plan.h"
#include "sql/sql_parse.h"

extern const cli_command_t cli_cmd_sql;

static bool read_all(FILE *fp, fl_buf_t *out) {
  char tmp[65536];
  size_t n;
  while ((n = fread(tmp, 1, sizeof tmp, fp)) > 0) fl_buf_append(out, tmp, n);
  return !ferror(fp);
}

/* Positions in a statement's own text, made positions in the script:
 * "line L, column C: " rewritten with the statement's start. */
static void shift_position(fl_err_t *err, const sql_pos_t *start) {
  uint32_t line, col;
  if (!sql_error_pos(err, &line, &col)) return;
  const char *rest = strstr(err->msg, ": ");
  if (!rest) return;
  if (line == 1) col += start->col - 1;
  line += start->line - 1;
  char tmp[sizeof err->msg];
  snprintf(tmp, sizeof tmp, "line %u, column %u%s", line, col, rest);
  memcpy(err->msg, tmp, sizeof err->msg);
}

/* Where results go and what runs beside a statement. */
typedef struct run_env {
  FILE *out;               /* results: standard output or --output FILE */
  const char *parquet_tmp; /* --format parquet to standard output: the file to copy */
  bool progress;           /* draw the progress line on standard error */
  unsigned progress_delay_ms;
} run_env_t;

static bool print_result(const sql_result_t *r, cli_fmt_t fmt, FILE *out) {
  if (r->ncols == 0 && !r->explain) return true; /* DDL prints nothing */
  if (r->explain) {
    fputs(r->explain, out);
    return fflush(out) == 0;
  }
  cli_out_t *o = cli_out_new(fmt, out, r->names, r->ncols);
  for (uint64_t i = 0; i < r->nrows; i++) {
    for (uint32_t c = 0; c < r->ncols; c++)
      cli_out_cell(o, r->cells[i * r->ncols + c], r->numeric[c]);
    cli_out_end_row(o);
  }
  return cli_out_finish(o);
}

/* Copies the Parquet file a query wrote to standard output, then removes it. */
static bool copy_out(const char *path, FILE *out) {
  FILE *in = fopen(path, "rb");
  if (!in) return false;
  char buf[65536];
  size_t n;
  bool ok = true;
  while ((n = fread(buf, 1, sizeof buf, in)) > 0) ok &= fwrite(buf, 1, n, out) == n;
  ok &= !ferror(in);
  fclose(in);
  remove(path);
  return ok && fflush(out) == 0;
}

/* One statement at a time, from the shell or from a script. */
static int run_one(sql_session_t *sess, const run_env_t *env, const char *script, size_t script_len,
                   const char *ptext, size_t plen, const sql_pos_t *pos, cli_fmt_t fmt) {
  fl_arena_t *sa = fl_arena_new(0);
  fl_err_t err;
  fl_err_clear(&err);
  sql_stmt_t *st;
  sql_result_t res;
  int status = 0;
  ex_progress_t prog;
  memset(&prog, 0, sizeof prog);
  cli_progress_t *pr = NULL;
  uint32_t written = sess->parquet_results;
  int rc = sql_parse_statement(sa, ptext, plen, &st, &err);
  if (!rc) {
    if (env->progress) {
      sess->progress = &prog;
      pr = cli_progress_start(&prog, stderr, env->progress_delay_ms);
    }
    rc = sql_exec_stmt(sess, sa, ptext, plen, st, &res, &err);
    cli_progress_stop(pr);
    sess->progress = NULL;
  }
  if (rc) {
    shift_position(&err, pos);
    sql_exec_print_error("floe sql", script, script_len, &err);
    status = 1;
  } else if (env->parquet_tmp && sess->parquet_results > written) {
    if (!copy_out(env->parquet_tmp, env->out))
      status = cli_fail("sql", "writing the Parquet result to standard output failed");
  } else if (!print_result(&res, fmt, env->out)) {
    status = cli_fail("sql", "writing the result failed");
  }
  fl_arena_free(sa);
  return status;
}

typedef struct shell_ctx {
  sql_session_t *sess;
  const run_env_t *env;
  cli_sql_shell_settings_t settings;
} shell_ctx_t;

static int shell_execute(void *ctx, const char *sql, size_t len, int line, int column) {
  shell_ctx_t *sc = ctx;
  cli_fmt_t fmt = CLI_FMT_TABLE;
  if (!cli_fmt_parse_sql(sc->settings.format, &fmt)) fmt = CLI_FMT_TABLE;
  /* Positions stay relative to the statement, whose own text the caret is
   * drawn under (the shell hands over one statement at a time). */
  (void)line;
  (void)column;
  sql_pos_t pos = {.line = 1, .col = 1};
  return run_one(sc->sess, sc->env, sql, len, sql, len, &pos, fmt);
}

static const char *const shell_formats[] = {"table", "csv", "tsv", "json", "jsonl", NULL};

static int run_shell(sql_session_t *sess, const run_env_t *env, const char *format) {
  shell_ctx_t sc = {.sess = sess, .env = env};
  snprintf(sc.settings.format, sizeof sc.settings.format, "%s", format ? format : "table");
  cli_sql_shell_opts_t o = {
      .ctx = &sc, .execute = shell_execute, .settings = &sc.settings, .formats = shell_formats};
  if (sess->catalog) cli_sql_shell_use_catalog(&o, sess->catalog);
  return cli_sql_shell_run(&o);
}

/* Runs the statements of -c TEXT, -f FILE or standard input; the first
 * failing one stops the script. */
static int run_script(sql_session_t *sess, const run_env_t *env, const char *cmd_text,
                      const char *file, cli_fmt_t fmt) {
  fl_buf_t text;
  fl_buf_init(&text);
  if (cmd_text) {
    fl_buf_append_str(&text, cmd_text);
  } else {
    FILE *fp = file ? fopen(file, "rb") : stdin;
    if (!fp) {
      fl_buf_free(&text);
      return cli_fail("sql", "cannot open %s", file);
    }
    bool ok = read_all(fp, &text);
    if (file) fclose(fp);
    if (!ok) {
      fl_buf_free(&text);
      return cli_fail("sql", "reading %s failed", file ? file : "standard input");
    }
  }
  const char *src = text.len ? (const char *)text.data : "";
  size_t len = text.len;
  fl_arena_t *arena = fl_arena_new(0);
  fl_err_t err;
  fl_err_clear(&err);
  int status = 0;
  /* Split first, then parse and run each statement in turn, so that the
   * statements before a bad one still run (as Trino's CLI does). */
  sql_piece_t *pieces;
  size_t n;
  if (sql_split_script(arena, src, len, &pieces, &n, &err)) {
    sql_exec_print_error("floe sql", src, len, &err);
    status = 1;
    n = 0;
  }
  for (size_t i = 0; i < n && !status; i++)
    status = run_one(sess, env, src, len, src + pieces[i].off, pieces[i].len, &pieces[i].pos, fmt);
  fl_arena_free(arena);
  fl_buf_free(&text);
  return status;
}

static int run_sql(int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {
      {"c", true},      {"f", true},      {"format", true},       {"namespace", true},
      {"memory", true}, {"output", true}, {"no-progress", false}, {"threads", true},
      {0, false}};
  /* -c and -f as the short forms psql and trino's CLI users expect. */
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "-c"))
      argv[i] = "--c";
    else if (!strcmp(argv[i], "-f"))
      argv[i] = "--f";
  }
  cli_args_t a;
  if (cli_args_parse("sql", argc, argv, specs, &a)) return 2;
  const char *cmd_text = cli_args_get(&a, "c"), *file = cli_args_get(&a, "f");
  if (a.npos) return cli_usage_error(&cli_cmd_sql, "unexpected argument '%s'", a.pos[0]);
  if (cmd_text && file) return cli_usage_error(&cli_cmd_sql, "give -c or -f, not both");
  cli_fmt_t fmt = CLI_FMT_TABLE;
  const char *fs = cli_args_get(&a, "format");
  bool parquet = fs && !strcmp(fs, "parquet");
  if (fs && !parquet && !cli_fmt_parse_sql(fs, &fmt))
    return cli_usage_error(&cli_cmd_sql,
                           "unknown --format '%s' (table, csv, tsv, json, jsonl, parquet)", fs);
  const char *output = cli_args_get(&a, "output");
  if (parquet && !output && isatty(STDOUT_FILENO))
    return cli_usage_error(&cli_cmd_sql,
                           "--format parquet does not write to a terminal: give --output FILE or "
                           "redirect standard output");
  uint64_t mem = 0;
  const char *ms = cli_args_get(&a, "memory");
  if (ms && !cli_parse_size(ms, &mem))
    return cli_usage_error(&cli_cmd_sql, "--memory needs a size");
  uint32_t threads = 0;
  const char *ts = cli_args_get(&a, "threads");
  if (ts) {
    char *end;
    long n = strtol(ts, &end, 10);
    if (*ts < '0' || *ts > '9' || *end || n < 1 || n > EX_MAX_THREADS)
      return cli_usage_error(&cli_cmd_sql, "--threads needs a number from 1 to %d", EX_MAX_THREADS);
    threads = (uint32_t)n;
  }

  run_env_t env = {.out = stdout, .progress_delay_ms = 1000};
  /* The progress line only ever goes to a terminal. */
  env.progress = !cli_args_flag(&a, "no-progress") && isatty(STDERR_FILENO);
  const char *delay = getenv("FLOE_PROGRESS_DELAY_MS");
  if (delay && *delay) env.progress_delay_ms = (unsigned)strtoul(delay, NULL, 10);
  FILE *outf = NULL;
  char tmp[4096] = "";
  if (output && !parquet) {
    if (!(outf = fopen(output, "wb"))) return cli_fail("sql", "cannot create %s", output);
    env.out = outf;
  }
  if (parquet && !output) {
    /* The Parquet writer needs a file it can seek back over: write one,
     * then copy it to standard output. */
    const char *td = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/floe-sql-%ld.parquet", td && *td ? td : "/tmp", (long)getpid());
    env.parquet_tmp = tmp;
  }
  cat_catalog_t *cat = NULL;
  if (cli_session_catalog("sql", &cat)) {
    if (outf) fclose(outf);
    return 1;
  }
  sql_session_t sess = {.catalog = cat,
                        .default_ns = cli_args_get(&a, "namespace"),
                        .mem_limit = mem,
                        .threads = threads,
                        .parquet_out = parquet ? (output ? output : tmp) : NULL};
  int status = !cmd_text && !file && cli_sql_shell_is_interactive()
                   ? run_shell(&sess, &env, parquet ? NULL : fs)
                   : run_script(&sess, &env, cmd_text, file, fmt);
  cat_close(cat);
  if (outf && fclose(outf) != 0 && !status) status = cli_fail("sql", "writing %s failed", output);
  if (tmp[0]) remove(tmp);
  return status;
}

const cli_command_t cli_cmd_sql = {
    .name = "sql",
    .summary = "run SQL queries over the catalog's tables (Trino dialect)",
    .usage =
        "usage: floe [--warehouse DIR] [--catalog URI] sql [-c SQL | -f FILE]\n"
        "           [--format table|csv|tsv|json|jsonl|parquet] [--output FILE]\n"
        "           [--namespace NS] [--memory SIZE] [--threads N] [--no-progress]\n\n"
        "Runs SQL statements separated by ';' from -c, from FILE, or from standard\n"
        "input, and prints each query's rows. Tables are namespace.table (one-part\n"
        "names are looked up in --namespace, default \"default\"); time travel with\n"
        "FOR VERSION AS OF <snapshot id | 'branch or tag'> and FOR TIMESTAMP AS OF\n"
        "TIMESTAMP '...'. Files are tables too: read_parquet('dir/**/*.parquet'),\n"
        "read_csv('x.csv', header => true, delim => ','), read_json('x.json').\n\n"
        "--format parquet writes one query's result as a Parquet file (to --output\n"
        "FILE or to standard output when that is not a terminal); --output FILE\n"
        "writes any format to FILE. On a terminal, a query running longer than a\n"
        "second shows a progress line on standard error (--no-progress: never).\n\n"
        "Executes: SELECT with WHERE, GROUP BY (expressions, ordinals, ROLLUP,\n"
        "CUBE, GROUPING SETS), aggregates (count, sum, avg, min, max, bool_and/or,\n"
        "stddev/variance, approx_distinct, approx_percentile; DISTINCT and FILTER),\n"
        "HAVING, DISTINCT, ORDER BY (names, ordinals, expressions, NULLS FIRST/LAST;\n"
        "NULLS LAST by default), LIMIT, OFFSET, VALUES, WITH, subqueries in FROM,\n"
        "joins ([INNER] JOIN, LEFT/RIGHT/FULL [OUTER] JOIN ... ON | USING, CROSS\n"
        "JOIN, comma lists; hash joins on equalities, nested loop otherwise),\n"
        "uncorrelated scalar and IN subqueries, IN and EXISTS correlated through\n"
        "their WHERE (IN, NOT IN, EXISTS and NOT EXISTS in WHERE run as semi and\n"
        "anti joins), UNION [ALL], EXPLAIN, CREATE SCHEMA, CREATE TABLE, DROP TABLE,\n"
        "INSERT INTO ... VALUES | SELECT, the scalar functions of\n"
        "docs/functions.md, and window functions (ranking, lag/lead,\n"
        "first/last/nth_value, aggregates) OVER (PARTITION BY ... ORDER BY ...\n"
        "ROWS|RANGE|GROUPS frame) with WINDOW w AS (...). Not yet: NATURAL and\n"
        "LATERAL joins. See docs/sql.md.\n\n"
        "--threads N runs every query's pipelines on N threads (default: one per\n"
        "core; 1 is single-threaded); SET SESSION threads = N changes it.\n\n"
        "On a terminal with neither -c nor -f, an interactive shell reads the\n"
        "statements (line editing, history in ~/.floe_history, \\d, \\dn, \\format,\n"
        "\\timing, help); an error there ends only its statement.\n\n"
        "An error prints one line with its position, the source line and a caret,\n"
        "and the exit status is 1.\n",
    .run = run_sql,
};
