/*
 * args.c - option parsing for subcommands.
 */
#include "cli/args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_args_parse(const char *cmd, int argc, char **argv, const cli_opt_spec_t *specs,
                   cli_args_t *out) {
  memset(out, 0, sizeof *out);
  for (int i = 0; i < argc; i++) {
    const char *arg = argv[i];
    if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
      if (out->npos == CLI_MAX_ARGS) {
        fprintf(stderr, "floe %s: too many arguments\n", cmd);
        return 2;
      }
      out->pos[out->npos++] = arg;
      continue;
    }
    const char *name = arg + 2;
    const char *eq = strchr(name, '=');
    size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
    const cli_opt_spec_t *spec = NULL;
    for (const cli_opt_spec_t *s = specs; s && s->name; s++)
      if (strlen(s->name) == nlen && strncmp(s->name, name, nlen) == 0) spec = s;
    if (!spec) {
      fprintf(stderr, "floe %s: unknown option --%.*s (see 'floe help %s')\n", cmd, (int)nlen, name,
              cmd);
      return 2;
    }
    const char *value = NULL;
    if (spec->takes_value) {
      if (eq)
        value = eq + 1;
      else if (i + 1 < argc)
        value = argv[++i];
      else {
        fprintf(stderr, "floe %s: option --%s needs a value\n", cmd, spec->name);
        return 2;
      }
    } else if (eq) {
      fprintf(stderr, "floe %s: option --%s takes no value\n", cmd, spec->name);
      return 2;
    }
    if (out->nopts == CLI_MAX_ARGS) {
      fprintf(stderr, "floe %s: too many options\n", cmd);
      return 2;
    }
    out->names[out->nopts] = spec->name;
    out->values[out->nopts] = value;
    out->nopts++;
  }
  return 0;
}

const char *cli_args_get(const cli_args_t *a, const char *name) {
  const char *v = NULL;
  for (int i = 0; i < a->nopts; i++)
    if (strcmp(a->names[i], name) == 0) v = a->values[i];
  return v;
}

bool cli_args_flag(const cli_args_t *a, const char *name) {
  for (int i = 0; i < a->nopts; i++)
    if (strcmp(a->names[i], name) == 0) return true;
  return false;
}

bool cli_parse_size(const char *s, uint64_t *out) {
  if (!s || !*s || *s == '-') return false;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s) return false;
  uint64_t mult = 1;
  if (*end) {
    switch (*end) {
      case 'k': case 'K': mult = 1ULL << 10; break;
      case 'm': case 'M': mult = 1ULL << 20; break;
      case 'g': case 'G': mult = 1ULL << 30; break;
      default: return false;
    }
    end++;
    if (*end == 'B' || *end == 'b') end++;
    if (*end) return false;
  }
  if (v > UINT64_MAX / mult) return false;
  *out = v * mult;
  return true;
}
