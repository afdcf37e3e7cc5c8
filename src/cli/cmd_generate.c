/*
 * cmd_generate.c - `floe generate`: reproducible random rows of a schema
 * written to any supported format, for tests, benchmarks and the demo.
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/arena.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/write_opts.h"
#include "types/gen.h"

extern const cli_command_t cli_cmd_generate;

static int parse_fraction(const char *v, double *out) {
  char *end;
  double d = strtod(v, &end);
  if (*end || end == v || d < 0 || d > 1) return -1;
  *out = d;
  return 0;
}

static int run_generate(int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {
      {"schema", true}, {"rows", true},           {"seed", true},       {"null-fraction", true},
      {"edge-fraction", true}, {"max-string", true}, {"sequence", true}, CLI_WRITE_OPT_SPECS,
      {0, false}};
  cli_args_t a;
  if (cli_args_parse("generate", argc, argv, specs, &a)) return 2;
  if (a.npos != 1) return cli_usage_error(&cli_cmd_generate, "expected one OUT file");
  const char *schema_text = cli_args_get(&a, "schema");
  if (!schema_text) return cli_usage_error(&cli_cmd_generate, "--schema is required");
  uint64_t rows = 1000, seed = 1, max_string = 0;
  const char *v;
  if ((v = cli_args_get(&a, "rows")) && !cli_parse_size(v, &rows))
    return cli_usage_error(&cli_cmd_generate, "--rows needs a number");
  if ((v = cli_args_get(&a, "seed")) && !cli_parse_size(v, &seed))
    return cli_usage_error(&cli_cmd_generate, "--seed needs a number");
  if ((v = cli_args_get(&a, "max-string")) && !cli_parse_size(v, &max_string))
    return cli_usage_error(&cli_cmd_generate, "--max-string needs a number");
  ty_gen_opts_t go = {.seed = seed, .null_fraction = -1, .edge_fraction = -1,
                      .max_string = (uint32_t)max_string};
  if ((v = cli_args_get(&a, "null-fraction")) && parse_fraction(v, &go.null_fraction))
    return cli_usage_error(&cli_cmd_generate, "--null-fraction must be between 0 and 1");
  if ((v = cli_args_get(&a, "edge-fraction")) && parse_fraction(v, &go.edge_fraction))
    return cli_usage_error(&cli_cmd_generate, "--edge-fraction must be between 0 and 1");
  go.sequence_column = cli_args_get(&a, "sequence");
  fmt_write_opts_t wo;
  if (cli_write_opts_from_args("generate", &a, &wo)) return 2;

  fl_arena_t *arena = fl_arena_new(0);
  fl_err_t err;
  fl_err_clear(&err);
  ty_schema_t *s;
  if (ty_schema_parse(arena, schema_text, &s, &err)) {
    cli_fail("generate", "--schema: %s", err.msg);
    fl_arena_free(arena);
    return 2;
  }
  int status = 1;
  fmt_writer_t *w = NULL;
  ty_batch_t *b = ty_batch_new(s, TY_BATCH_ROWS);
  ty_gen_t *g = ty_gen_new(&go);
  if (fmt_open_writer(io_local_fs(), a.pos[0], s, &wo, &w, &err)) goto out;
  for (uint64_t done = 0; done < rows;) {
    uint32_t n = rows - done < TY_BATCH_ROWS ? (uint32_t)(rows - done) : TY_BATCH_ROWS;
    ty_batch_reset(b);
    ty_gen_fill(g, b, n);
    if (w->write(w, b, &err)) {
      w->abort(w);
      goto out;
    }
    done += n;
  }
  if (w->close(w, &err)) goto out;
  status = 0;
out:
  if (status) cli_fail("generate", "%s", err.msg);
  ty_gen_free(g);
  ty_batch_free(b);
  fl_arena_free(arena);
  return status;
}

const cli_command_t cli_cmd_generate = {
    .name = "generate",
    .summary = "write reproducible random rows of a schema",
    .usage = "usage: floe generate --schema S [--rows N] [--seed K] OUT [options]\n\n"
             "Writes N (default 1000) random rows of schema S to OUT in the format its\n"
             "extension names. The same seed and schema give the same rows in every format.\n\n"
             "options:\n"
             "  --schema S            columns, e.g. 'id long not null, name string, tags list<string>'\n"
             "  --rows N              number of rows (K/M/G suffixes allowed)\n"
             "  --seed K              random seed (default 1)\n"
             "  --null-fraction F     share of nulls in optional columns (default 0.1)\n"
             "  --edge-fraction F     share of edge values: extremes, NaN, empty (default 0.02)\n"
             "  --max-string N        longest string (default 40)\n"
             "  --sequence COL        fill long column COL with the row number\n" CLI_WRITE_OPTS_HELP,
    .run = run_generate,
};
