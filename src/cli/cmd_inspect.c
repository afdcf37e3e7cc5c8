/*
 * cmd_inspect.c - `floe inspect FILE`: the structure of a Parquet or Avro
 * file.
 */
#include <stdio.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "format/format.h"

extern const cli_command_t cli_cmd_inspect;

static int run_inspect(int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {{"json", false}, {0, false}};
  cli_args_t a;
  if (cli_args_parse("inspect", argc, argv, specs, &a)) return 2;
  if (a.npos != 1) return cli_usage_error(&cli_cmd_inspect, "expected one FILE");
  fl_err_t err;
  fl_err_clear(&err);
  if (fmt_inspect(io_local_fs(), a.pos[0], cli_args_flag(&a, "json"), stdout, &err))
    return cli_fail("inspect", "%s", err.msg);
  return 0;
}

const cli_command_t cli_cmd_inspect = {
    .name = "inspect",
    .summary = "show the schema, layout and statistics of a Parquet or Avro file",
    .usage = "usage: floe inspect FILE [--json]\n\n"
             "Parquet: the schema with field ids, row groups, and per column the encodings,\n"
             "codec, sizes and statistics. Avro: the schema, codec, metadata and record count.\n"
             "  --json   one JSON document instead of text\n",
    .run = run_inspect,
};
