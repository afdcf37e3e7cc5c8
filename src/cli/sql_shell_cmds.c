/*
 * sql_shell_cmds.c - the shell's own commands (layer 12, cli): help, quit,
 * exit, \q, \d, \d NAME, \dn, \timing, \format. They are read only at the
 * main prompt, one per line, so a '\' inside a statement stays SQL.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/sql_shell_int.h"

static const char help_text[] =
    "Type SQL statements ending with ';' (they may span lines), or:\n"
    "  \\d              list tables\n"
    "  \\d NAME         describe table NAME (schema.table), or list schema NAME's tables\n"
    "  \\dn             list schemas\n"
    "  \\timing [on|off] print the time each statement takes\n"
    "  \\format [NAME]  show or set the output format\n"
    "  \\q, quit, exit  leave (so does Ctrl-D); Ctrl-C drops the current input\n"
    "  help, \\?        this text\n";

/* Trims blanks and one trailing ';' in place; returns the start. */
static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
  if (n && s[n - 1] == ';') s[--n] = '\0';
  while (n && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
  return s;
}

static void unavailable(const char *what) {
  fprintf(stderr, "%s: not available in this shell\n", what);
}

static void cmd_describe(cli_shell_t *sh, const char *arg) {
  const cli_sql_shell_opts_t *o = sh->opts;
  if (!*arg) {
    if (o->list_tables)
      o->list_tables(o->describe_ctx, NULL);
    else
      unavailable("\\d");
    return;
  }
  if (o->is_schema && o->list_tables && o->is_schema(o->describe_ctx, arg)) {
    o->list_tables(o->describe_ctx, arg);
    return;
  }
  if (o->describe_table)
    o->describe_table(o->describe_ctx, arg);
  else
    unavailable("\\d NAME");
}

/* on, off, or empty (flip); false for anything else. */
static bool parse_switch(const char *arg, bool cur, bool *out) {
  if (!*arg)
    *out = !cur;
  else if (strcasecmp(arg, "on") == 0)
    *out = true;
  else if (strcasecmp(arg, "off") == 0)
    *out = false;
  else
    return false;
  return true;
}

static void cmd_format(cli_shell_t *sh, const char *arg) {
  const char *const *names = sh->opts->formats;
  if (!*arg) {
    printf("format is %s\n", sh->settings->format);
    return;
  }
  bool known = names == NULL;
  for (size_t i = 0; names && names[i]; i++)
    if (strcasecmp(names[i], arg) == 0) known = true;
  if (!known || strlen(arg) >= sizeof sh->settings->format) {
    fprintf(stderr, "\\format: unknown format '%s'", arg);
    for (size_t i = 0; names && names[i]; i++)
      fprintf(stderr, "%s%s", i ? ", " : " (one of ", names[i]);
    fprintf(stderr, "%s\n", names && names[0] ? ")" : "");
    return;
  }
  size_t n = strlen(arg);
  for (size_t i = 0; i <= n; i++) sh->settings->format[i] = (char)tolower((unsigned char)arg[i]);
  printf("format is %s\n", sh->settings->format);
}

bool cli_shell__command(cli_shell_t *sh, const char *line) {
  char buf[1024];
  size_t n = strlen(line);
  if (n >= sizeof buf) {
    if (line[strspn(line, " \t")] != '\\') return false;
    fprintf(stderr, "shell command too long (over %zu bytes)\n", sizeof buf - 1);
    return true;
  }
  memcpy(buf, line, n + 1);
  char *s = trim(buf);
  if (strcasecmp(s, "quit") == 0 || strcasecmp(s, "exit") == 0) {
    sh->quit = true;
    return true;
  }
  if (strcasecmp(s, "help") == 0) {
    fputs(help_text, stdout);
    return true;
  }
  if (s[0] != '\\') return false;
  /* The command word runs to the first blank; the argument is the rest. */
  char *arg = s + 1;
  while (*arg && !isspace((unsigned char)*arg)) arg++;
  if (*arg) *arg++ = '\0';
  while (isspace((unsigned char)*arg)) arg++;
  const char *cmd = s + 1;
  if (strcmp(cmd, "q") == 0) {
    sh->quit = true;
  } else if (strcmp(cmd, "?") == 0 || strcmp(cmd, "h") == 0) {
    fputs(help_text, stdout);
  } else if (strcmp(cmd, "d") == 0) {
    cmd_describe(sh, arg);
  } else if (strcmp(cmd, "dn") == 0) {
    if (sh->opts->list_schemas)
      sh->opts->list_schemas(sh->opts->describe_ctx);
    else
      unavailable("\\dn");
  } else if (strcmp(cmd, "timing") == 0) {
    bool on;
    if (!parse_switch(arg, sh->settings->timing, &on)) {
      fprintf(stderr, "\\timing: expected on or off, not '%s'\n", arg);
    } else {
      sh->settings->timing = on;
      printf("timing is %s\n", on ? "on" : "off");
    }
  } else if (strcmp(cmd, "format") == 0) {
    cmd_format(sh, arg);
  } else {
    fprintf(stderr, "unknown command \\%s (type help for the list)\n", cmd);
  }
  return true;
}
