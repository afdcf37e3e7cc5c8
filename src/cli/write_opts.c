/*
 * write_opts.c - parsing of the shared file-writing options.
 */
#include "cli/write_opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

static int bad(const char *cmd, const char *opt, const char *v) {
  fprintf(stderr, "floe %s: --%s: '%s' is not a valid size\n", cmd, opt, v);
  return 2;
}

int cli_write_opts_from_args(const char *cmd, const cli_args_t *a, fmt_write_opts_t *o) {
  memset(o, 0, sizeof *o);
  o->compression = cli_args_get(a, "compression");
  const char *v;
  uint64_t n;
  if ((v = cli_args_get(a, "compression-level"))) {
    char *end;
    long l = strtol(v, &end, 10);
    if (*end || end == v) return bad(cmd, "compression-level", v);
    o->compression_level = (int)l;
  }
  static const struct {
    const char *name;
    size_t offset;
  } sizes[] = {
      {"row-group-size", offsetof(fmt_write_opts_t, row_group_rows)},
      {"row-group-bytes", offsetof(fmt_write_opts_t, row_group_bytes)},
      {"page-size", offsetof(fmt_write_opts_t, page_bytes)},
      {"dictionary-page-size", offsetof(fmt_write_opts_t, dict_page_bytes)},
  };
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    if ((v = cli_args_get(a, sizes[i].name))) {
      if (!cli_parse_size(v, &n) || n == 0) return bad(cmd, sizes[i].name, v);
      *(uint64_t *)((char *)o + sizes[i].offset) = n;
    }
  }
  o->no_dictionary = cli_args_flag(a, "no-dictionary");
  o->data_page_v2 = cli_args_flag(a, "page-v2");
  if ((v = cli_args_get(a, "delimiter"))) {
    if (strcmp(v, "\\t") == 0 || strcmp(v, "tab") == 0)
      o->csv_delimiter = '\t';
    else if (strlen(v) == 1)
      o->csv_delimiter = v[0];
    else {
      fprintf(stderr, "floe %s: --delimiter must be one character\n", cmd);
      return 2;
    }
  }
  return 0;
}
