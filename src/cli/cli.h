/*
 * cli.h - the floe command line (layer 12, cli).
 *
 * Each subcommand lives in its own cmd_<name>.c and describes itself with
 * a cli_command_t; the table of commands is in commands.c. A command gets
 * argv after its own name and returns the process exit status.
 */
#ifndef FL_CLI_CLI_H
#define FL_CLI_CLI_H

typedef struct cli_command {
  const char *name;
  const char *summary; /* one line for `floe --help` */
  const char *usage;   /* the full text of `floe help NAME` */
  int (*run)(int argc, char **argv);
} cli_command_t;

/* The registered commands, NULL-terminated. */
extern const cli_command_t *const cli_commands[];

const cli_command_t *cli_find_command(const char *name);
int cli_main(int argc, char **argv);

/* Prints "floe NAME: message" to stderr and returns exit status 1 (or 2 for usage). */
int cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cli_usage_error(const cli_command_t *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
