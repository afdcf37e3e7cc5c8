/*
 * cmd_demo.c - `floe demo`: floe's main job on its embedded defaults.
 *
 * At this stage of the product the job is the foundation's round trip: a
 * sample dataset of click events is generated as JSON lines, decoded by
 * floe's JSON reader, written as a zstd Parquet file with field ids and
 * statistics, read back and summarised, and `floe inspect` of the result is
 * printed.
 */
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/time.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/pipe.h"
#include "types/gen.h"

extern const cli_command_t cli_cmd_demo;

static const char *const demo_schema =
    "event_id long not null, ts timestamptz not null, user_id long, country string, "
    "url string, duration_ms int, revenue decimal(12,2), is_mobile boolean, "
    "tags list<string>, device struct<os: string, version: string>";

static int write_events(const ty_schema_t *s, const char *path, uint64_t rows, fl_err_t *err) {
  ty_gen_opts_t go = {.seed = 42, .null_fraction = 0.05, .edge_fraction = 0, .max_string = 24,
                      .max_elements = 3, .sequence_column = "event_id"};
  ty_gen_t *g = ty_gen_new(&go);
  ty_batch_t *b = ty_batch_new(s, TY_BATCH_ROWS);
  fmt_writer_t *w;
  fmt_write_opts_t wo = {0};
  int rc = fmt_open_writer(io_local_fs(), path, s, &wo, &w, err);
  for (uint64_t done = 0; !rc && done < rows;) {
    uint32_t n = rows - done < TY_BATCH_ROWS ? (uint32_t)(rows - done) : TY_BATCH_ROWS;
    ty_batch_reset(b);
    ty_gen_fill(g, b, n);
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

static int run_demo(int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {{"dir", true}, {"rows", true}, {0, false}};
  cli_args_t a;
  if (cli_args_parse("demo", argc, argv, specs, &a)) return 2;
  const char *dir = cli_args_get(&a, "dir");
  if (!dir) dir = "demo";
  uint64_t rows = 200000;
  const char *v = cli_args_get(&a, "rows");
  if (v && !cli_parse_size(v, &rows)) return cli_usage_error(&cli_cmd_demo, "--rows needs a number");
  fl_arena_t *arena = fl_arena_new(0);
  fl_err_t err;
  fl_err_clear(&err);
  int status = 1;
  ty_schema_t *s;
  char jsonl[1024], parquet[1024];
  snprintf(jsonl, sizeof jsonl, "%s/events.jsonl", dir);
  snprintf(parquet, sizeof parquet, "%s/events.parquet", dir);
  if (ty_schema_parse(arena, demo_schema, &s, &err)) goto out;
  if (io_local_fs()->mkdirs(io_local_fs(), dir, &err)) goto out;

  printf("== 1. generating %llu click events as JSON lines: %s\n", (unsigned long long)rows, jsonl);
  int64_t t0 = fl_monotonic_ns();
  if (write_events(s, jsonl, rows, &err)) goto out;
  printf("== 2. converting to Parquet (zstd) with floe: %s\n", parquet);
  int64_t t1 = fl_monotonic_ns();
  uint64_t written = 0, read_back = 0;
  if (convert(jsonl, parquet, s, &written, &err)) goto out;
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
  status = 0;
out:
  if (status) cli_fail("demo", "%s", err.msg);
  fl_arena_free(arena);
  return status;
}

const cli_command_t cli_cmd_demo = {
    .name = "demo",
    .summary = "run the demo job on the embedded defaults",
    .usage = "usage: floe demo [--dir DIR] [--rows N]\n\n"
             "Generates a sample dataset of click events as JSON lines in DIR (default ./demo),\n"
             "converts it to Parquet with floe, reads it back, and prints 'floe inspect' of it.\n",
    .run = run_demo,
};
