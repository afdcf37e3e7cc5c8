/*
 * cmd_demo.c - `floe demo`: floe's main job on its embedded defaults.
 *
 * At this stage of the product the job is the lakehouse round trip: three
 * days of sample click events are generated as JSON lines; the first day
 * is converted to a zstd Parquet file with field ids and statistics, read
 * back and inspected; then a day-partitioned Iceberg table is created in
 * the embedded SQLite catalog of <dir>/warehouse, the three days are
 * appended in three commits (Parquet, then JSON lines, the first tagged
 * day1), and the demo shows the snapshots, a scan pruned to one day and a
 * time-travel scan, through the same code as the `floe table` commands.
 * It ends in floe sql: an aggregate, a join with a small dimension table
 * of pages (demo.pages, created and filled by SQL), a time-travel query
 * (FOR VERSION AS OF 'day1' beside the current answer) and the metadata
 * tables "events$snapshots" and "events$partitions".
 */
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/time.h"
#include "catalog/cat_tables.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/pipe.h"
#include "cli/rows_out.h"
#include "cli/session.h"
#include "cli/sql_exec.h"
#include "cli/table_cmds.h"
#include "iceberg/ice_scan.h"
#include "sql/sql_parse.h"
#include "types/gen.h"

extern const cli_command_t cli_cmd_demo;

static const char *const demo_schema =
    "event_id long not null, ts timestamptz not null, user_id long, country string, "
    "url string, duration_ms int, revenue decimal(12,2), is_mobile boolean, "
    "tags list<string>, device struct<os: string, version: string>";

/* The first demo day, 2026-11-30 00:00 UTC, in microseconds. */
#define DEMO_DAY0_US 1795996800000000LL
#define DEMO_DAYS 3

/* What click events look like, so the demo's answers read like a real
 * table's: a few countries carry most traffic, most events buy nothing. */
static const char *const demo_countries[] = {"US", "DE", "GB", "IN", "FR", "BR", "JP", "NL",
                                             "ES", "CA", "SE", "PL", "IT", "MX", "AU"};
static const char *const demo_urls[] = {
    "/",      "/pricing",      "/docs/quickstart", "/docs/sql", "/blog/iceberg",   "/signup",
    "/login", "/product/floe", "/checkout",        "/careers",  "/docs/streaming", "/status"};
#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* Skewed pick among n: the smaller of two uniform draws favours the first. */
static size_t skewed(ty_gen_t *g, size_t n) {
  uint64_t r = ty_gen_next(g);
  size_t a = (size_t)(r % n), b = (size_t)((r >> 32) % n);
  return a < b ? a : b;
}

/* Replaces a string column's values by picks from names, keeping its nulls. */
static void refill_names(ty_gen_t *g, ty_vec_t *v, const char *const *names, size_t n) {
  uint32_t len = v->len;
  uint8_t valid[TY_BATCH_ROWS];
  for (uint32_t i = 0; i < len; i++) valid[i] = ty_vec_is_valid(v, i);
  ty_vec_reset(v);
  for (uint32_t i = 0; i < len; i++) {
    if (!valid[i]) {
      ty_vec_append_null(v);
      continue;
    }
    const char *c = names[skewed(g, n)];
    ty_vec_append_bytes(v, c, strlen(c));
  }
}

/* Plausible values for the columns the demo's queries look at; nulls stay
 * where the generator put them. */
static void make_plausible(ty_gen_t *g, const ty_schema_t *s, ty_batch_t *b, uint32_t n) {
  refill_names(g, b->cols[ty_schema_find_name(s, "country")], demo_countries,
               NELEMS(demo_countries));
  refill_names(g, b->cols[ty_schema_find_name(s, "url")], demo_urls, NELEMS(demo_urls));
  int64_t *user = (int64_t *)b->cols[ty_schema_find_name(s, "user_id")]->data;
  int32_t *dur = (int32_t *)b->cols[ty_schema_find_name(s, "duration_ms")]->data;
  ty_vec_t *rev = b->cols[ty_schema_find_name(s, "revenue")];
  for (uint32_t i = 0; i < n; i++) {
    user[i] = 1 + (int64_t)(ty_gen_next(g) % 50000);
    dur[i] = 20 + (int32_t)(ty_gen_next(g) % 4000) + (int32_t)(ty_gen_next(g) % 8 == 0 ? 20000 : 0);
    /* One event in 25 is a purchase of 1.00-400.00; the rest earn nothing. */
    uint64_t r = ty_gen_next(g);
    fl_i128 cents = r % 25 == 0 ? (fl_i128)(100 + (r >> 8) % 39901) : 0;
    memcpy(rev->data + (size_t)i * 16, &cents, 16);
  }
}

/* Writes `rows` events of day `day` (0-based): event ids continue across
 * days and timestamps rise evenly through the day. */
static int write_events(const ty_schema_t *s, const char *path, uint64_t rows, int day,
                        fl_err_t *err) {
  ty_gen_opts_t go = {.seed = 42 + (uint64_t)day,
                      .null_fraction = 0.05,
                      .edge_fraction = 0,
                      .max_string = 24,
                      .max_elements = 3,
                      .sequence_column = "event_id"};
  int ts_col = ty_schema_find_name(s, "ts");
  int id_col = ty_schema_find_name(s, "event_id");
  const int64_t step = rows ? 86400000000LL / (int64_t)rows : 0;
  ty_gen_t *g = ty_gen_new(&go);
  ty_batch_t *b = ty_batch_new(s, TY_BATCH_ROWS);
  fmt_writer_t *w;
  fmt_write_opts_t wo = {0};
  int rc = fmt_open_writer(io_local_fs(), path, s, &wo, &w, err);
  for (uint64_t done = 0; !rc && done < rows;) {
    uint32_t n = rows - done < TY_BATCH_ROWS ? (uint32_t)(rows - done) : TY_BATCH_ROWS;
    ty_batch_reset(b);
    ty_gen_fill(g, b, n);
    make_plausible(g, s, b, n);
    int64_t *ts = (int64_t *)b->cols[ts_col]->data;
    int64_t *ids = (int64_t *)b->cols[id_col]->data;
    for (uint32_t i = 0; i < n; i++) {
      ts[i] = DEMO_DAY0_US + day * 86400000000LL + (int64_t)(done + i) * step;
      ids[i] = (int64_t)((uint64_t)day * rows + done + i);
    }
    rc = w->write(w, b, err);
    if (rc) w->abort(w);
    done += n;
  }
  if (!rc) rc = w->close(w, err);
  ty_batch_free(b);
  ty_gen_free(g);
  return rc;
}

static int convert(const char *in, const char *out, const ty_schema_t *s, uint64_t *rows,
                   fl_err_t *err) {
  fmt_read_opts_t ro = {.schema = s};
  fmt_write_opts_t wo = {.compression = "zstd"};
  fmt_reader_t *r;
  fmt_writer_t *w;
  int rc = fmt_open_reader(io_local_fs(), in, &ro, &r, err);
  if (rc) return rc;
  rc = fmt_open_writer(io_local_fs(), out, r->schema, &wo, &w, err);
  if (!rc) rc = cli_pipe(r, w, rows, err);
  r->close(r);
  return rc;
}

static int count_rows(const char *path, uint64_t *rows, fl_err_t *err) {
  fmt_reader_t *r;
  int rc = fmt_open_reader(io_local_fs(), path, NULL, &r, err);
  if (rc) return rc;
  *rows = 0;
  for (;;) {
    ty_batch_t *b;
    rc = r->next(r, &b, err);
    if (rc || !b) break;
    *rows += ty_batch_live(b);
  }
  r->close(r);
  return rc;
}

/* Runs one `floe table` subcommand with the demo's catalog, echoing it. */
static int table_cmd(cat_catalog_t *c, cli_table_fn fn, const char *shown, int argc,
                     const char **argv) {
  printf("$ floe table %s", shown);
  for (int i = 0; i < argc; i++)
    printf(strchr(argv[i], '\'')        ? " \"%s\""
           : strpbrk(argv[i], " ()<>,") ? " '%s'"
                                        : " %s",
           argv[i]);
  printf("\n");
  fflush(stdout);
  int status = fn(c, argc, (char **)argv);
  fflush(stdout);
  fflush(stderr);
  return status;
}

/* Rows of the table at a snapshot (-1: current), through a scan. */
static int count_table_rows(cat_catalog_t *c, int64_t snapshot_id, uint64_t *rows, fl_err_t *err) {
  ice_table_t *t;
  int rc = cat_open_table(c, io_local_fs(), "demo", "events", &t, err);
  if (rc) return rc;
  ice_scan_opts_t o = {
      .snapshot_id = snapshot_id, .as_of_ms = -1, .limit = -1, .case_sensitive = true};
  const char *cols[] = {"event_id"};
  o.columns = cols;
  o.ncolumns = 1;
  ice_scan_t *s = NULL;
  rc = ice_scan_plan(t, &o, &s, err);
  *rows = 0;
  while (rc == FL_OK) {
    ty_batch_t *b;
    rc = ice_scan_next(s, &b, err);
    if (rc || !b) break;
    *rows += ty_batch_live(b);
  }
  ice_scan_free(s);
  ice_table_free(t);
  return rc;
}

/* Runs one statement through floe sql's engine and prints its rows; a
 * query (want_rows) that finds none is an error. */
static int sql_run(cat_catalog_t *c, const char *sql, bool want_rows, fl_err_t *err) {
  /* Shown as a shell would take it: in double quotes, or in single quotes
   * (each ' written '\'') when the text holds a quoted name. */
  if (strchr(sql, '"')) {
    printf("$ floe sql -c '");
    for (const char *p = sql; *p; p++)
      if (*p == '\'')
        fputs("'\\''", stdout);
      else
        putchar(*p);
    printf("'\n");
  } else {
    printf("$ floe sql -c \"%s\"\n", sql);
  }
  fflush(stdout);
  fl_arena_t *a = fl_arena_new(0);
  sql_stmt_t *st;
  sql_result_t res;
  sql_session_t s = {.catalog = c};
  int rc = sql_parse_statement(a, sql, strlen(sql), &st, err);
  if (!rc) rc = sql_exec_stmt(&s, a, sql, strlen(sql), st, &res, err);
  if (rc) {
    sql_exec_print_error("floe sql", sql, strlen(sql), err);
  } else {
    cli_out_t *o = cli_out_new(CLI_FMT_TABLE, stdout, res.names, res.ncols);
    for (uint64_t i = 0; i < res.nrows; i++) {
      for (uint32_t k = 0; k < res.ncols; k++) cli_out_cell(o, res.cells[i * res.ncols + k], false);
      cli_out_end_row(o);
    }
    if (!cli_out_finish(o)) rc = fl_err_set(err, FL_EIO, "writing to standard output failed");
    if (!rc && want_rows && res.nrows == 0)
      rc = fl_err_set(err, FL_EINTERNAL, "the query found no rows");
  }
  fl_arena_free(a);
  return rc;
}

static int sql_step(cat_catalog_t *c, const char *sql, fl_err_t *err) {
  return sql_run(c, sql, true, err);
}

/* The pages the demo's clicks land on, a small dimension table to join. */
static const char *const demo_pages_sql =
    "INSERT INTO demo.pages VALUES ('/', 'home'), ('/pricing', 'sales'), "
    "('/docs/quickstart', 'docs'), ('/docs/sql', 'docs'), ('/blog/iceberg', 'blog'), "
    "('/signup', 'sales'), ('/login', 'account'), ('/product/floe', 'sales'), "
    "('/checkout', 'sales'), ('/careers', 'company'), ('/docs/streaming', 'docs'), "
    "('/status', 'company')";

/* Steps 10 to 12: a join, time travel and metadata tables, all in SQL. */
static int sql_steps(cat_catalog_t *c, fl_err_t *err) {
  printf("\n== 10. a join with floe sql: a small dimension table of pages, clicks by section\n");
  if (sql_run(c, "DROP TABLE IF EXISTS demo.pages", false, err) ||
      sql_run(c, "CREATE TABLE demo.pages (url varchar, section varchar)", false, err) ||
      sql_run(c, demo_pages_sql, false, err) ||
      sql_step(c,
               "SELECT p.section, count(*) AS events, count(DISTINCT e.user_id) AS users, "
               "sum(e.revenue) AS revenue FROM demo.events e JOIN demo.pages p ON e.url = p.url "
               "GROUP BY p.section ORDER BY events DESC",
               err))
    return err->code ? err->code : FL_EINTERNAL;
  printf("\n== 11. time travel in SQL: events per day at the first commit (tagged day1) and now\n");
  if (sql_step(c,
               "SELECT CAST(ts AS date) AS day, count(*) AS events FROM demo.events "
               "FOR VERSION AS OF 'day1' GROUP BY 1 ORDER BY 1",
               err) ||
      sql_step(c,
               "SELECT CAST(ts AS date) AS day, count(*) AS events FROM demo.events "
               "GROUP BY 1 ORDER BY 1",
               err))
    return err->code ? err->code : FL_EINTERNAL;
  printf("\n== 12. Iceberg metadata tables: the table's commits and partitions, as SQL\n");
  if (sql_step(c,
               "SELECT row_number() OVER (ORDER BY committed_at) AS commit, operation, "
               "summary['added-records'] AS added, summary['total-records'] AS total, "
               "summary['total-data-files'] AS files FROM demo.\"events$snapshots\" "
               "ORDER BY committed_at",
               err) ||
      sql_step(c,
               "SELECT partition.ts_day AS day, record_count, file_count, data.revenue.max AS "
               "max_revenue FROM demo.\"events$partitions\" ORDER BY 1",
               err))
    return err->code ? err->code : FL_EINTERNAL;
  return FL_OK;
}

static int lakehouse_steps(const char *dir, char paths[DEMO_DAYS][1024], uint64_t per_day,
                           fl_err_t *err) {
  char wh[1100];
  snprintf(wh, sizeof wh, "%s/warehouse", dir);
  cli_session_set_warehouse(wh);
  cat_catalog_t *c;
  if (cli_session_catalog("demo", &c)) return fl_err_set(err, FL_EIO, "cannot open the catalog");
  int rc = FL_OK;
  bool exists = false;
  rc = cat_ns_exists(c, "demo", &exists, err);
  if (rc == FL_OK && !exists) rc = cat_ns_create(c, "demo", NULL, 0, err);
  if (rc) goto out;
  printf("\n== 4. an Iceberg table in the embedded catalog of the warehouse %s\n",
         cli_session_warehouse());
  {
    const char *drop[] = {"demo.events", "--purge", "--if-exists"};
    if (table_cmd(c, cli_table_drop, "drop", 3, drop)) goto failed;
    const char *create[] = {"demo.events",
                            "--schema",
                            demo_schema,
                            "--partition",
                            "day(ts)",
                            "--property",
                            "write.parquet.compression-codec=zstd"};
    if (table_cmd(c, cli_table_create, "create", 7, create)) goto failed;
  }
  printf("\n== 5. appending the three days in three commits (Parquet, then JSON lines)\n");
  for (int d = 0; d < DEMO_DAYS; d++) {
    const char *append[] = {"demo.events", paths[d]};
    if (table_cmd(c, cli_table_append, "append", 2, append)) goto failed;
    /* The first commit gets a name, for time travel in SQL (step 11). */
    const char *tag[] = {"demo.events", "day1"};
    if (d == 0 && table_cmd(c, cli_table_tag, "tag", 2, tag)) goto failed;
  }
  printf("\n== 6. the table's snapshots and partitions\n");
  {
    const char *snaps[] = {"demo.events", "--format", "csv"};
    if (table_cmd(c, cli_table_history, "history", 3, snaps)) goto failed;
    const char *parts[] = {"demo.events"};
    if (table_cmd(c, cli_table_partitions, "partitions", 1, parts)) goto failed;
  }
  printf("\n== 7. a scan pruned to one day (partition pruning: 1 of 3 files read)\n");
  {
    const char *scan[] = {"demo.events",
                          "--filter",
                          "ts >= TIMESTAMP '2026-12-01T00:00:00+00:00' AND ts < TIMESTAMP "
                          "'2026-12-01T00:00:10+00:00'",
                          "--columns",
                          "event_id,ts,country,revenue",
                          "--stats"};
    if (table_cmd(c, cli_table_scan, "scan", 6, scan)) goto failed;
  }
  printf("\n== 8. time travel: the table as of its first snapshot\n");
  {
    ice_table_t *t;
    rc = cat_open_table(c, io_local_fs(), "demo", "events", &t, err);
    if (rc) goto out;
    const ice_meta_t *m = t->meta;
    int64_t first = m->nsnapshots ? m->snapshots[0].snapshot_id : -1;
    int64_t current = m->current_snapshot_id;
    ice_table_free(t);
    uint64_t then = 0, now = 0;
    rc = count_table_rows(c, first, &then, err);
    if (rc == FL_OK) rc = count_table_rows(c, current, &now, err);
    if (rc) goto out;
    printf("rows at the first snapshot %lld: %llu; rows now: %llu\n", (long long)first,
           (unsigned long long)then, (unsigned long long)now);
    if (then != per_day || now != per_day * DEMO_DAYS) {
      rc = fl_err_set(err, FL_EINTERNAL, "expected %llu and %llu rows", (unsigned long long)per_day,
                      (unsigned long long)(per_day * DEMO_DAYS));
      goto out;
    }
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)first);
    const char *scan[] = {"demo.events", "--snapshot", id, "--columns",
                          "event_id,ts", "--limit",    "3"};
    if (table_cmd(c, cli_table_scan, "scan", 7, scan)) goto failed;
  }
  printf(
      "\n== 9. an aggregate query with floe sql: mobile revenue by country over the last two "
      "days\n   (the filter on ts skips the first day's manifest)\n");
  if (sql_step(c,
               "SELECT country, count(*) AS events, sum(revenue) AS revenue, "
               "round(avg(duration_ms), 1) AS avg_ms FROM demo.events "
               "WHERE ts >= TIMESTAMP '2026-12-01 00:00:00 UTC' AND is_mobile "
               "GROUP BY country ORDER BY revenue DESC LIMIT 5",
               err))
    goto failed;
  if (sql_steps(c, err)) goto failed;
  goto out;
failed:
  rc = fl_err_set(err, FL_EINTERNAL, "a table command failed (see above)");
out:
  cat_close(c);
  return rc;
}

static int run_demo(int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {{"dir", true}, {"rows", true}, {0, false}};
  cli_args_t a;
  if (cli_args_parse("demo", argc, argv, specs, &a)) return 2;
  const char *dir = cli_args_get(&a, "dir");
  if (!dir) dir = "demo";
  uint64_t rows = 300000;
  const char *v = cli_args_get(&a, "rows");
  if (v && !cli_parse_size(v, &rows))
    return cli_usage_error(&cli_cmd_demo, "--rows needs a number");
  uint64_t per_day = rows / DEMO_DAYS;
  if (per_day == 0) return cli_usage_error(&cli_cmd_demo, "--rows must be at least %d", DEMO_DAYS);
  fl_arena_t *arena = fl_arena_new(0);
  fl_err_t err;
  fl_err_clear(&err);
  int status = 1;
  ty_schema_t *s;
  char jsonl[DEMO_DAYS][1024], parquet[1024], inputs[DEMO_DAYS][1024];
  for (int d = 0; d < DEMO_DAYS; d++)
    snprintf(jsonl[d], sizeof jsonl[d], "%s/events-2026-%s.jsonl", dir,
             d == 0   ? "11-30"
             : d == 1 ? "12-01"
                      : "12-02");
  snprintf(parquet, sizeof parquet, "%s/events-2026-11-30.parquet", dir);
  if (ty_schema_parse(arena, demo_schema, &s, &err)) goto out;
  if (io_local_fs()->mkdirs(io_local_fs(), dir, &err)) goto out;

  printf("== 1. generating %d days of %llu click events each as JSON lines in %s\n", DEMO_DAYS,
         (unsigned long long)per_day, dir);
  int64_t t0 = fl_monotonic_ns();
  for (int d = 0; d < DEMO_DAYS; d++)
    if (write_events(s, jsonl[d], per_day, d, &err)) goto out;
  printf("== 2. converting the first day to Parquet (zstd) with floe: %s\n", parquet);
  int64_t t1 = fl_monotonic_ns();
  uint64_t written = 0, read_back = 0;
  if (convert(jsonl[0], parquet, s, &written, &err)) goto out;
  int64_t t2 = fl_monotonic_ns();
  if (count_rows(parquet, &read_back, &err)) goto out;
  int64_t t3 = fl_monotonic_ns();
  printf("   generated in %.2f s, converted %llu rows in %.2f s, read back %llu rows in %.2f s\n",
         (double)(t1 - t0) / 1e9, (unsigned long long)written, (double)(t2 - t1) / 1e9,
         (unsigned long long)read_back, (double)(t3 - t2) / 1e9);
  if (read_back != written) {
    fl_err_set(&err, FL_EINTERNAL, "read back %llu rows, wrote %llu", (unsigned long long)read_back,
               (unsigned long long)written);
    goto out;
  }
  printf("== 3. floe inspect %s\n", parquet);
  fflush(stdout);
  if (fmt_inspect(io_local_fs(), parquet, false, stdout, &err)) goto out;
  snprintf(inputs[0], sizeof inputs[0], "%s", parquet);
  for (int d = 1; d < DEMO_DAYS; d++) snprintf(inputs[d], sizeof inputs[d], "%s", jsonl[d]);
  if (lakehouse_steps(dir, inputs, per_day, &err)) goto out;
  status = 0;
out:
  if (status) cli_fail("demo", "%s", err.msg);
  fl_arena_free(arena);
  return status;
}

const cli_command_t cli_cmd_demo = {
    .name = "demo",
    .summary = "run the demo job on the embedded defaults",
    .usage =
        "usage: floe demo [--dir DIR] [--rows N]\n\n"
        "Generates three days of sample click events as JSON lines in DIR (default\n"
        "./demo), converts the first to Parquet and inspects it, then creates the\n"
        "day-partitioned table demo.events in the catalog of DIR/warehouse, appends\n"
        "the three days in three commits and shows the history, a scan pruned to one\n"
        "day and a time-travel scan. --rows (default 300000) is the total.\n",
    .run = run_demo,
};
