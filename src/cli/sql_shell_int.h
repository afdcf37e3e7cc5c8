/*
 * sql_shell_int.h - what the shell's loop (sql_shell.c) and its commands
 * (sql_shell_cmds.c) share (layer 12, cli, private).
 */
#ifndef FL_CLI_SQL_SHELL_INT_H
#define FL_CLI_SQL_SHELL_INT_H

#include "cli/sql_shell.h"

typedef struct cli_shell {
  const cli_sql_shell_opts_t *opts;
  cli_sql_shell_settings_t *settings; /* opts->settings or own_settings */
  cli_sql_shell_settings_t own_settings;
  bool quit;
} cli_shell_t;

/*
 * Whether line (one line typed at the main prompt, no newline) is a shell
 * command rather than SQL: it starts with '\', or is help, quit or exit
 * (any case, an optional ';'). When it is, runs it and returns true.
 */
bool cli_shell__command(cli_shell_t *sh, const char *line);

#endif
