/*
 * args.h - a small option parser shared by floe's subcommands (layer 12).
 *
 * Options are `--name value`, `--name=value` or bare flags; everything else
 * is a positional argument, kept in order. Unknown options are an error
 * that names them.
 */
#ifndef FL_CLI_ARGS_H
#define FL_CLI_ARGS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct cli_opt_spec {
  const char *name; /* without the leading dashes */
  bool takes_value;
} cli_opt_spec_t;

#define CLI_MAX_ARGS 1024

typedef struct cli_args {
  const char *names[CLI_MAX_ARGS];
  const char *values[CLI_MAX_ARGS]; /* NULL for flags */
  int nopts;
  const char *pos[CLI_MAX_ARGS];
  int npos;
} cli_args_t;

/* Returns 0, or prints an error for cmd and returns 2. */
int cli_args_parse(const char *cmd, int argc, char **argv, const cli_opt_spec_t *specs,
                   cli_args_t *out);
/* The last value given for an option, or NULL. */
const char *cli_args_get(const cli_args_t *a, const char *name);
bool cli_args_flag(const cli_args_t *a, const char *name);
/* Parses a non-negative integer with an optional K/M/G suffix (powers of
 * 1024 for sizes); returns false when malformed. */
bool cli_parse_size(const char *s, uint64_t *out);

#endif
