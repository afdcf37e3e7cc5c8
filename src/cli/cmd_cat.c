/*
 * cmd_cat.c - `floe cat FILE`: rows of any supported file as JSON lines on
 * standard output, in floe's canonical JSON form of values.
 */
#include <stdio.h>

#include "base/arena.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "format/format.h"
#include "format/json/json_text.h"

extern const cli_command_t cli_cmd_cat;

static int run_cat(int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {{"schema", true}, {"limit", true}, {"no-header", false}, {0, false}};
  cli_args_t a;
  if (cli_args_parse("cat", argc, argv, specs, &a)) return 2;
  if (a.npos != 1) return cli_usage_error(&cli_cmd_cat, "expected one FILE");
  fl_arena_t *arena = fl_arena_new(0);
  fl_err_t err;
  fl_err_clear(&err);
  fmt_read_opts_t ro = {0};
  ro.csv_no_header = cli_args_flag(&a, "no-header");
  uint64_t limit = UINT64_MAX;
  const char *lim = cli_args_get(&a, "limit");
  if (lim && !cli_parse_size(lim, &limit)) {
    fl_arena_free(arena);
    return cli_usage_error(&cli_cmd_cat, "--limit needs a number");
  }
  const char *schema_text = cli_args_get(&a, "schema");
  if (schema_text) {
    ty_schema_t *s;
    if (ty_schema_parse(arena, schema_text, &s, &err)) {
      cli_fail("cat", "--schema: %s", err.msg);
      fl_arena_free(arena);
      return 2;
    }
    ro.schema = s;
  }
  fmt_reader_t *r = NULL;
  int status = 1;
  fl_buf_t buf;
  fl_buf_init(&buf);
  uint64_t done = 0;
  if (fmt_open_reader(io_local_fs(), a.pos[0], &ro, &r, &err)) goto out;
  while (done < limit) {
    ty_batch_t *b;
    if (r->next(r, &b, &err)) goto out;
    if (!b) break;
    uint32_t n = ty_batch_live(b);
    for (uint32_t k = 0; k < n && done < limit; k++, done++) {
      js_append_row(&buf, b, b->sel ? b->sel[k] : k);
      fl_buf_append_u8(&buf, '\n');
    }
    if (fwrite(buf.data, 1, buf.len, stdout) != buf.len) {
      fl_err_set(&err, FL_EIO, "writing to standard output failed");
      goto out;
    }
    fl_buf_clear(&buf);
  }
  status = 0;
out:
  if (status) cli_fail("cat", "%s", err.msg);
  if (r) r->close(r);
  fl_buf_free(&buf);
  fl_arena_free(arena);
  return status;
}

const cli_command_t cli_cmd_cat = {
    .name = "cat",
    .summary = "print the rows of a file as JSON lines",
    .usage = "usage: floe cat FILE [--schema S] [--limit N] [--no-header]\n\n"
             "Prints the rows of FILE (Parquet, Avro, CSV, JSON lines) on standard output,\n"
             "one JSON object per row: decimals as strings, dates and timestamps ISO-8601,\n"
             "binary as hex, uuid in canonical form.\n",
    .run = run_cat,
};
