/*
 * cmd_convert.c - `floe convert IN OUT`: between CSV, JSON lines, Parquet
 * and Avro, chosen by extension.
 */
#include <stdio.h>

#include "base/arena.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/pipe.h"
#include "cli/write_opts.h"

extern const cli_command_t cli_cmd_convert;

static int run_convert(int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {{"schema", true}, {"no-header", false}, {"quiet", false},
                                         CLI_WRITE_OPT_SPECS, {0, false}};
  cli_args_t a;
  if (cli_args_parse("convert", argc, argv, specs, &a)) return 2;
  if (a.npos != 2) return cli_usage_error(&cli_cmd_convert, "expected IN and OUT files");
  fmt_write_opts_t wo;
  if (cli_write_opts_from_args("convert", &a, &wo)) return 2;
  fl_arena_t *arena = fl_arena_new(0);
  fl_err_t err;
  fl_err_clear(&err);
  fmt_read_opts_t ro = {0};
  ro.csv_no_header = cli_args_flag(&a, "no-header");
  ro.csv_delimiter = wo.csv_delimiter;
  int status = 1;
  const char *schema_text = cli_args_get(&a, "schema");
  if (schema_text) {
    ty_schema_t *s;
    if (ty_schema_parse(arena, schema_text, &s, &err)) {
      cli_fail("convert", "--schema: %s", err.msg);
      fl_arena_free(arena);
      return 2;
    }
    ro.schema = s;
  }
  io_fs_t *fs = io_local_fs();
  fmt_reader_t *r = NULL;
  fmt_writer_t *w = NULL;
  uint64_t rows = 0;
  if (fmt_open_reader(fs, a.pos[0], &ro, &r, &err)) goto out;
  if (fmt_open_writer(fs, a.pos[1], r->schema, &wo, &w, &err)) goto out;
  if (cli_pipe(r, w, &rows, &err)) goto out;
  if (!cli_args_flag(&a, "quiet")) fprintf(stderr, "%llu rows written to %s\n", (unsigned long long)rows, a.pos[1]);
  status = 0;
out:
  if (status) cli_fail("convert", "%s", err.msg);
  if (r) r->close(r);
  fl_arena_free(arena);
  return status;
}

const cli_command_t cli_cmd_convert = {
    .name = "convert",
    .summary = "convert between CSV, JSON lines, Parquet and Avro",
    .usage =
        "usage: floe convert IN OUT [options]\n\n"
        "Converts IN to OUT; formats come from the extensions (.csv, .tsv, .jsonl,\n"
        ".ndjson, .json, .parquet, .avro). Without --schema, CSV and JSON column types\n"
        "are inferred from the first rows; Parquet and Avro carry their own schema.\n\n"
        "options:\n"
        "  --schema S            columns of the input, e.g.\n"
        "                        'id long not null, ts timestamptz, price decimal(10,2), tags list<string>'\n"
        "  --no-header           CSV input has no header row\n"
        "  --quiet               do not report the row count\n" CLI_WRITE_OPTS_HELP,
    .run = run_convert,
};
