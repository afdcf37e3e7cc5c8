/*
 * cat_open.c - opening a catalog: URI parsing and dispatch to the SQLite
 * or PostgreSQL driver (layer 6).
 *
 * URIs: NULL, "" or "sqlite:" open <warehouse>/catalog.db; "sqlite:PATH"
 * a file; "sqlite:///PATH" the file PATH as SQLAlchemy reads it
 * (sqlite:///rel.db is relative, sqlite:////abs/x.db absolute);
 * "postgresql://..." or "postgres://..." (also SQLAlchemy's
 * "postgresql+psycopg2://...") a server, through libpq's URI syntax.
 */
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "catalog/cat_sql_int.h"
#include "io/fs.h"

static bool starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* The local directory of a warehouse given as a path or file:// URI. */
static const char *warehouse_dir(const char *wh) {
  if (starts(wh, "file://")) return wh + 7;
  if (starts(wh, "file:")) return wh + 5;
  return wh;
}

int cat_open(const char *uri, const char *warehouse, const char *name, cat_catalog_t **out,
             fl_err_t *err) {
  *out = NULL;
  cat_catalog_t *c = fl_calloc(1, sizeof *c);
  c->name = fl_strdup(name && *name ? name : "floe");
  c->warehouse = warehouse ? fl_strdup(warehouse) : NULL;
  c->tx_seed = (unsigned)getpid() ^ (unsigned)time(NULL) ^ (unsigned)(uintptr_t)c;
  int rc = FL_OK;
  if (!uri) uri = "";
  if (!*uri || starts(uri, "sqlite:")) {
    const char *rest = *uri ? uri + 7 : "";
    char *path = NULL;
    if (starts(rest, "///")) {
      path = fl_strdup(rest + 3);
    } else if (starts(rest, "//")) {
      rc = fl_err_set(err, FL_EINVALID,
                      "catalog URI '%s': write sqlite:PATH or sqlite:///PATH (no host)", uri);
    } else {
      path = fl_strdup(rest);
    }
    if (!rc && (!path || !*path)) {
      fl_free(path);
      path = NULL;
      if (!warehouse || !*warehouse) {
        rc = fl_err_set(err, FL_EINVALID, "the default catalog needs a warehouse directory");
      } else {
        const char *dir = warehouse_dir(warehouse);
        rc = io_local_fs()->mkdirs(io_local_fs(), dir, err);
        if (!rc) path = cat__sprintf("%s/catalog.db", dir);
      }
    }
    if (!rc) rc = cat__sqlite_open(c, path, err);
    fl_free(path);
  } else if (starts(uri, "postgresql://") || starts(uri, "postgres://")) {
    rc = cat__pg_open(c, uri, err);
  } else if (starts(uri, "postgresql+")) {
    const char *p = strstr(uri, "://");
    if (!p) {
      rc = fl_err_set(err, FL_EINVALID, "catalog URI: cannot read '%.*s...'", 12, uri);
    } else {
      char *u = cat__sprintf("postgresql%s", p);
      rc = cat__pg_open(c, u, err);
      fl_free(u);
    }
  } else {
    const char *colon = strchr(uri, ':');
    rc = fl_err_set(err, FL_EINVALID,
                    "catalog URI: unsupported scheme '%.*s' (use sqlite:PATH or "
                    "postgresql://HOST:PORT/DB)",
                    colon ? (int)(colon - uri) : (int)strlen(uri), uri);
  }
  if (!rc) rc = cat__schema_init(c, err);
  if (rc) {
    cat_close(c);
    return rc;
  }
  *out = c;
  return FL_OK;
}

void cat_close(cat_catalog_t *c) {
  if (!c) return;
  if (c->drv && c->db) c->drv->close(c);
  fl_free(c->name);
  fl_free(c->warehouse);
  fl_free(c->where);
  fl_free(c);
}

const char *cat_name(const cat_catalog_t *c) { return c->name; }

const char *cat_warehouse(const cat_catalog_t *c) { return c->warehouse; }
