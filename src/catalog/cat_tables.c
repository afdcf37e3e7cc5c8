/*
 * cat_tables.c - Iceberg tables kept in a catalog (layer 6, catalog).
 */
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/buf.h"
#include "catalog/cat_tables.h"
#include "iceberg/ice_maint.h"

/* ---- the committer: the catalog's compare-and-swap ---- */

typedef struct committer_ctx {
  cat_catalog_t *c;
  char *ns, *name;
} committer_ctx_t;

static int cc_current(void *ctx, char **out, fl_err_t *err) {
  committer_ctx_t *cc = ctx;
  return cat_table_load(cc->c, cc->ns, cc->name, out, err);
}

static int cc_swap(void *ctx, const char *old_location, const char *new_location, fl_err_t *err) {
  committer_ctx_t *cc = ctx;
  return cat_table_swap(cc->c, cc->ns, cc->name, old_location, new_location, err);
}

static void cc_release(void *ctx) {
  committer_ctx_t *cc = ctx;
  fl_free(cc->ns);
  fl_free(cc->name);
  fl_free(cc);
}

static ice_committer_t committer_for(cat_catalog_t *c, const char *ns, const char *name) {
  committer_ctx_t *cc = fl_calloc(1, sizeof *cc);
  cc->c = c;
  cc->ns = fl_strdup(ns);
  cc->name = fl_strdup(name);
  return (ice_committer_t){cc, cc_current, cc_swap, cc_release};
}

/* ---- locations ---- */

static void append_trimmed(fl_buf_t *b, const char *s) {
  size_t n = strlen(s);
  while (n > 1 && s[n - 1] == '/') n--;
  fl_buf_append(b, s, n);
}

int cat_default_location(cat_catalog_t *c, const char *ns, const char *name, char **out,
                         fl_err_t *err) {
  cat_prop_t *props = NULL;
  size_t nprops = 0;
  int rc = cat_ns_properties(c, ns, &props, &nprops, err);
  if (rc) return rc;
  fl_buf_t b;
  fl_buf_init(&b);
  const char *ns_location = NULL;
  for (size_t i = 0; i < nprops; i++)
    if (strcmp(props[i].key, "location") == 0) ns_location = props[i].value;
  if (ns_location) {
    append_trimmed(&b, ns_location);
  } else {
    const char *wh = cat_warehouse(c);
    if (!wh || !*wh) {
      cat_props_free(props, nprops);
      fl_buf_free(&b);
      return fl_err_set(err, FL_EINVALID,
                        "table %s.%s: no location given and the catalog has no warehouse", ns,
                        name);
    }
    append_trimmed(&b, wh);
    /* One folder per namespace level. */
    fl_buf_append_u8(&b, (uint8_t)'/');
    for (const char *p = ns; *p; p++) fl_buf_append_u8(&b, (uint8_t)(*p == '.' ? '/' : *p));
  }
  fl_buf_append_u8(&b, (uint8_t)'/');
  fl_buf_append(&b, name, strlen(name));
  cat_props_free(props, nprops);
  *out = fl_strndup((const char *)b.data, b.len);
  fl_buf_free(&b);
  return FL_OK;
}

/* ---- create, open, register, drop ---- */

int cat_create_table(cat_catalog_t *c, io_fs_t *fs, const char *ns, const char *name,
                     const cat_create_opts_t *o, ice_table_t **out, fl_err_t *err) {
  bool ns_ok = false;
  int rc = cat_ns_exists(c, ns, &ns_ok, err);
  if (rc) return rc;
  if (!ns_ok) return fl_err_set(err, FL_ENOTFOUND, "namespace %s does not exist", ns);
  char *existing = NULL;
  fl_err_t probe;
  if (cat_table_load(c, ns, name, &existing, &probe) == FL_OK) {
    fl_free(existing);
    return fl_err_set(err, FL_EEXISTS, "table %s.%s already exists", ns, name);
  }
  char *location = NULL;
  if (o->location && *o->location) {
    size_t n = strlen(o->location);
    while (n > 1 && o->location[n - 1] == '/') n--;
    location = fl_strndup(o->location, n);
  } else {
    rc = cat_default_location(c, ns, name, &location, err);
    if (rc) return rc;
  }
  ice_meta_t *m = NULL;
  rc = ice_meta_new(o->schema, o->spec, o->sort, location, o->props, o->nprops, &m, err);
  if (rc) {
    fl_free(location);
    return fl_err_prefix(err, "creating table %s.%s: ", ns, name);
  }
  fl_arena_t *a = fl_arena_new(0);
  char *path = ice_metadata_file_name(a, location, NULL);
  char *dir = fl_arena_strndup(a, path, (size_t)(strrchr(path, '/') - path));
  rc = fs->mkdirs ? fs->mkdirs(fs, dir, err) : FL_OK;
  if (rc == FL_OK) rc = ice_meta_write(fs, path, m, err);
  if (rc == FL_OK) {
    rc = cat_table_register(c, ns, name, path, err);
    if (rc) {
      fl_err_t ignored;
      fs->remove(fs, path, &ignored);
    }
  }
  if (rc == FL_OK && out) {
    ice_committer_t cm = committer_for(c, ns, name);
    fl_buf_t ident;
    fl_buf_init(&ident);
    fl_buf_printf(&ident, "%s.%s", ns, name);
    ice_table_t *t = fl_calloc(1, sizeof *t);
    t->fs = fs;
    t->ident = fl_strndup((const char *)ident.data, ident.len);
    t->metadata_location = fl_strdup(path);
    t->meta = m;
    t->committer = cm;
    m = NULL;
    fl_buf_free(&ident);
    *out = t;
  }
  if (m) ice_meta_free(m);
  fl_arena_free(a);
  fl_free(location);
  return rc;
}

int cat_open_table(cat_catalog_t *c, io_fs_t *fs, const char *ns, const char *name,
                   ice_table_t **out, fl_err_t *err) {
  char *loc = NULL;
  int rc = cat_table_load(c, ns, name, &loc, err);
  if (rc) return rc;
  fl_buf_t ident;
  fl_buf_init(&ident);
  fl_buf_printf(&ident, "%s.%s", ns, name);
  fl_buf_append_u8(&ident, (uint8_t)'\0');
  ice_committer_t cm = committer_for(c, ns, name);
  rc = ice_table_load(fs, (const char *)ident.data, loc, &cm, out, err);
  if (rc) cc_release(cm.ctx);
  fl_buf_free(&ident);
  fl_free(loc);
  return rc;
}

int cat_register_table(cat_catalog_t *c, io_fs_t *fs, const char *ns, const char *name,
                       const char *metadata_location, fl_err_t *err) {
  ice_meta_t *m = NULL;
  int rc = ice_meta_read(fs, metadata_location, &m, err);
  if (rc) return fl_err_prefix(err, "registering %s.%s: ", ns, name);
  ice_meta_free(m);
  return cat_table_register(c, ns, name, metadata_location, err);
}

int cat_drop_table(cat_catalog_t *c, io_fs_t *fs, const char *ns, const char *name, bool purge,
                   size_t *deleted, fl_err_t *err) {
  if (deleted) *deleted = 0;
  ice_table_t *t = NULL;
  fl_arena_t *a = NULL;
  const char **files = NULL;
  size_t nfiles = 0;
  int rc;
  if (purge) {
    /* Collect what to delete before the entry goes: afterwards nothing names it. */
    rc = cat_open_table(c, fs, ns, name, &t, err);
    if (rc) return rc;
    a = fl_arena_new(0);
    rc = ice_reachable_files(t, a, &files, &nfiles, err);
    if (rc) goto out;
  }
  rc = cat_table_drop(c, ns, name, err);
  if (rc) goto out;
  for (size_t i = 0; i < nfiles; i++) {
    fl_err_t ignored; /* already gone is fine: purging is best effort past the drop */
    if (fs->remove(fs, files[i], &ignored) == FL_OK && deleted) (*deleted)++;
  }
out:
  ice_table_free(t);
  if (a) fl_arena_free(a);
  return rc;
}
