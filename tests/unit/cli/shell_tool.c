/*
 * shell_tool.c - a test-only host of the interactive SQL shell (sql_shell.h)
 * for tests/interop/test_sql_shell.py, which drives it on a pseudo-terminal:
 *
 *   shell_tool [--warehouse DIR] [--catalog URI]
 *
 * Its execute callback prints each statement it receives as one line,
 *   EXEC <line>:<column> [<format>] <statement with newlines as \n>
 * and a statement starting with FAIL prints an error to stderr and returns
 * 1, so the tests see that the shell carries on; SLEEP waits up to five
 * seconds for Ctrl-C (cli_sql_shell_interrupted) as a long query would. The describe commands go
 * to the real catalog of the warehouse. Exits with the shell's status.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/session.h"
#include "cli/sql_shell.h"

typedef struct tool {
  cli_sql_shell_settings_t settings;
} tool_t;

static int echo_statement(void *ctx, const char *sql, size_t len, int line, int column) {
  tool_t *t = ctx;
  if (len >= 4 && memcmp(sql, "FAIL", 4) == 0) {
    fprintf(stderr, "error: statement at %d:%d failed on purpose\n", line, column);
    return 1;
  }
  if (len == 5 && memcmp(sql, "SLEEP", 5) == 0) {
    printf("sleeping\n");
    fflush(stdout);
    for (int i = 0; i < 500 && !cli_sql_shell_interrupted(); i++) usleep(10000);
    printf("%s\n", cli_sql_shell_interrupted() ? "woken by Ctrl-C" : "slept");
    return 0;
  }
  printf("EXEC %d:%d [%s] ", line, column, t->settings.format);
  for (size_t i = 0; i < len; i++) {
    if (sql[i] == '\n')
      fputs("\\n", stdout);
    else
      putchar(sql[i]);
  }
  putchar('\n');
  return 0;
}

int main(int argc, char **argv) {
  argc = cli_session_take_options(argc, argv);
  if (argc < 0) return 2;
  if (argc != 1) {
    fprintf(stderr, "usage: shell_tool [--warehouse DIR] [--catalog URI]\n");
    return 2;
  }
  cat_catalog_t *c;
  if (cli_session_catalog("shell_tool", &c)) return 1;
  tool_t t = {.settings = {.format = "table"}};
  static const char *const formats[] = {"table", "csv", "json", "jsonl", NULL};
  cli_sql_shell_opts_t o = {
      .ctx = &t,
      .execute = echo_statement,
      .settings = &t.settings,
      .formats = formats,
  };
  cli_sql_shell_use_catalog(&o, c);
  printf("interactive: %s\n", cli_sql_shell_is_interactive() ? "yes" : "no");
  int status = cli_sql_shell_run(&o);
  cat_close(c);
  return status;
}
