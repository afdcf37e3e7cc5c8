/*
 * session.c - global catalog options and opening tables (layer 12, cli).
 */
#include "cli/session.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/time.h"
#include "catalog/cat_tables.h"
#include "cli/cli.h"
#include "io/fs.h"

static char *g_warehouse;
static const char *g_catalog;

static bool take(char **argv, int *i, int argc, const char *name, const char **value) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strncmp(a, name, n) != 0) return false;
  if (a[n] == '=') {
    *value = a + n + 1;
    return true;
  }
  if (a[n] != '\0') return false;
  if (*i + 1 >= argc) {
    *value = NULL;
    return true;
  }
  *value = argv[++*i];
  return true;
}

/* The warehouse as a URI: local folders become file:///abs/path, the form
 * Java and PyIceberg write into metadata for local tables. */
static char *absolute(const char *p) {
  if (strstr(p, "://")) return fl_strdup(p);
  char cwd[PATH_MAX];
  if (p[0] == '/') cwd[0] = '\0';
  else if (!getcwd(cwd, sizeof cwd)) return fl_strdup(p);
  size_t n = strlen(cwd) + strlen(p) + 16;
  char *out = fl_malloc(n);
  if (p[0] == '/') snprintf(out, n, "file://%s", p);
  else snprintf(out, n, "file://%s/%s", cwd, strncmp(p, "./", 2) == 0 ? p + 2 : p);
  size_t len = strlen(out);
  while (len > 1 && out[len - 1] == '/') out[--len] = '\0';
  return out;
}

int cli_session_take_options(int argc, char **argv) {
  const char *wh = getenv("FLOE_WAREHOUSE");
  g_catalog = getenv("FLOE_CATALOG");
  int out = 0;
  for (int i = 0; i < argc; i++) {
    const char *v;
    if (i > 0 && take(argv, &i, argc, "--warehouse", &v)) {
      if (!v || !*v) {
        fprintf(stderr, "floe: --warehouse needs a directory\n");
        return -1;
      }
      wh = v;
      continue;
    }
    if (i > 0 && take(argv, &i, argc, "--catalog", &v)) {
      if (!v) {
        fprintf(stderr, "floe: --catalog needs a URI (sqlite:PATH or postgresql://...)\n");
        return -1;
      }
      g_catalog = v;
      continue;
    }
    argv[out++] = argv[i];
  }
  argv[out] = NULL;
  fl_free(g_warehouse);
  g_warehouse = absolute(wh && *wh ? wh : "warehouse");
  return out;
}

void cli_session_set_warehouse(const char *dir) {
  fl_free(g_warehouse);
  g_warehouse = absolute(dir);
  g_catalog = NULL;
}

const char *cli_session_warehouse(void) {
  if (!g_warehouse) g_warehouse = absolute("warehouse");
  return g_warehouse;
}

int cli_session_catalog(const char *cmd, cat_catalog_t **out) {
  const char *wh = cli_session_warehouse();
  fl_err_t err;
  fl_err_clear(&err);
  if (!g_catalog || !*g_catalog || strncmp(g_catalog, "sqlite:", 7) == 0) {
    /* The SQLite default lives in the warehouse: make sure it exists. */
    const char *dir = strncmp(wh, "file://", 7) == 0 ? wh + 7 : wh;
    if (!strstr(dir, "://") && io_local_fs()->mkdirs(io_local_fs(), dir, &err))
      return cli_fail(cmd, "warehouse %s: %s", dir, err.msg);
  }
  if (cat_open(g_catalog, wh, NULL, out, &err)) return cli_fail(cmd, "%s", err.msg);
  return 0;
}

int cli_session_table(const char *cmd, cat_catalog_t *c, const char *ident, ice_table_t **out) {
  fl_err_t err;
  fl_err_clear(&err);
  char *ns = NULL, *name = NULL;
  if (cat_split_ident(ident, &ns, &name, &err)) return cli_fail(cmd, "%s", err.msg);
  int rc = cat_open_table(c, io_local_fs(), ns, name, out, &err);
  fl_free(ns);
  fl_free(name);
  if (rc) return cli_fail(cmd, "%s", err.msg);
  return 0;
}

bool cli_parse_time_ms(const char *s, bool ago_ok, int64_t *out) {
  size_t n = strlen(s);
  if (n == 0) return false;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno == 0 && end != s && *end == '\0') {
    *out = v;
    return true;
  }
  if (ago_ok && errno == 0 && end != s && v >= 0) {
    int64_t unit = 0;
    if (strcmp(end, "ms") == 0) unit = 1;
    else if (strcmp(end, "s") == 0) unit = 1000;
    else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0) unit = 60000;
    else if (strcmp(end, "h") == 0) unit = 3600000;
    else if (strcmp(end, "d") == 0) unit = 86400000;
    if (unit) {
      if (v > INT64_MAX / unit) return false;
      *out = fl_now_micros() / 1000 - v * unit;
      return true;
    }
  }
  int64_t us;
  bool zone;
  if (!fl_parse_timestamp(s, n, 6, &us, &zone)) {
    int32_t days;
    if (!fl_parse_date(s, n, &days)) return false;
    us = (int64_t)days * 86400000000LL;
  }
  *out = fl_floordiv(us, 1000);
  return true;
}
