/*
 * cli.c - dispatch to subcommands, --version and --help.
 */
#include "cli/cli.h"
#include "cli/session.h"

#include "base/alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifndef FLOE_VERSION
#define FLOE_VERSION "0.0.0"
#endif

const cli_command_t *cli_find_command(const char *name) {
  for (const cli_command_t *const *c = cli_commands; *c; c++)
    if (strcmp((*c)->name, name) == 0) return *c;
  return NULL;
}

static void print_help(FILE *out) {
  fprintf(out,
          "floe %s - a streaming lakehouse\n\n"
          "usage: floe [--version] [--help] [--warehouse DIR] [--catalog URI] COMMAND [ARGS]\n\n"
          "commands:\n",
          FLOE_VERSION);
  for (const cli_command_t *const *c = cli_commands; *c; c++)
    fprintf(out, "  %-10s %s\n", (*c)->name, (*c)->summary);
  fprintf(out, "\nRun 'floe help COMMAND' for a command's options.\n");
}

int cli_fail(const char *cmd, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "floe %s: ", cmd);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return 1;
}

int cli_usage_error(const cli_command_t *cmd, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "floe %s: ", cmd->name);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n\n%s", cmd->usage);
  return 2;
}

static int run_help(int argc, char **argv) {
  if (argc < 1) {
    print_help(stdout);
    return 0;
  }
  const cli_command_t *c = cli_find_command(argv[0]);
  if (!c) return cli_fail("help", "unknown command '%s'", argv[0]);
  fputs(c->usage, stdout);
  return 0;
}

const cli_command_t cli_cmd_help = {
    .name = "help",
    .summary = "show help for a command",
    .usage = "usage: floe help COMMAND\n\nShows the options of COMMAND.\n",
    .run = run_help,
};

int cli_main(int argc, char **argv) {
  fl_alloc_tune();
  argc = cli_session_take_options(argc, argv);
  if (argc < 0) return 2;
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    print_help(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
    printf("floe %s\n", FLOE_VERSION);
    return 0;
  }
  const cli_command_t *c = cli_find_command(argv[1]);
  if (!c) {
    fprintf(stderr, "floe: unknown command '%s' (see 'floe --help')\n", argv[1]);
    return 2;
  }
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(c->usage, stdout);
      return 0;
    }
  }
  return c->run(argc - 2, argv + 2);
}
