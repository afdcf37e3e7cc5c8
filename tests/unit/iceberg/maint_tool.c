/*
 * maint_tool.c - a test-only driver of table maintenance (ice_maint.h)
 * over a SQL catalog, for the interop tests: opens a table of a catalog
 * that PyIceberg's SqlCatalog shares and runs one operation, printing
 * its result as one JSON object.
 *
 *   maint_tool --catalog sqlite:PATH --warehouse DIR [--name CATALOG]
 *              --table NS.NAME COMMAND [options]
 *   commands:
 *     expire [--older-than MS] [--retain-last N] [--dry-run]
 *     orphans --older-than MS [--dry-run]
 *     reachable
 *     append --rows N [--start K] [--branch B]   (tables of "id long, v string")
 *     tag NAME SNAPSHOT_ID | branch NAME SNAPSHOT_ID
 *
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/alloc.h"
#include "catalog/cat_tables.h"
#include "iceberg/ice_commit.h"
#include "iceberg/ice_data_writer.h"
#include "iceberg/ice_maint.h"

static int usage(void) {
  fprintf(stderr,
          "usage: maint_tool --catalog URI --warehouse DIR [--name C] --table NS.NAME COMMAND ...\n"
          "  expire [--older-than MS] [--retain-last N] [--dry-run]\n"
          "  orphans --older-than MS [--dry-run]\n"
          "  reachable\n"
          "  append --rows N [--start K] [--branch B]\n"
          "  tag NAME SNAPSHOT_ID | branch NAME SNAPSHOT_ID\n");
  return 2;
}

static void print_json(json_t *j) {
  char *s = json_dumps(j, JSON_COMPACT);
  printf("%s\n", s);
  free(s);
  json_decref(j);
}

static void add_path(const char *path, void *arg) { json_array_append_new(arg, json_string(path)); }

/* Writes rows start..start+n-1 as (id, "row-<id>") and appends them. */
static int do_append(ice_table_t *t, const char *branch, long long start, long long n,
                     json_t *out, fl_err_t *err) {
  const ty_schema_t *schema = ice_meta_schema(t->meta);
  fl_arena_t *a = fl_arena_new(0);
  ice_dw_t *w = NULL;
  int rc = ice_dw_open(t->fs, t->meta->location, schema, NULL, &w, err);
  if (rc) goto out;
  ty_batch_t *b = ty_batch_new(schema, (uint32_t)(n > 0 ? n : 1));
  for (long long i = 0; i < n; i++) {
    char v[40];
    snprintf(v, sizeof v, "row-%lld", start + i);
    ty_vec_append_i64(b->cols[0], start + i);
    ty_vec_append_bytes(b->cols[1], v, strlen(v));
  }
  ty_batch_seal(b);
  rc = ice_dw_write(w, b, err);
  ty_batch_free(b);
  ice_data_file_t *files = NULL;
  size_t nf = 0;
  if (!rc) rc = ice_dw_close(w, a, &files, &nf, err);
  if (rc) {
    ice_dw_abort(w);
    goto out;
  }
  ice_dw_free(w);
  ice_change_t c = {.kind = ICE_CHANGE_APPEND, .branch = branch, .add = files,
                    .nadd = (uint32_t)nf, .base_snapshot_id = -1};
  ice_commit_result_t res;
  rc = ice_commit(t, &c, &res, err);
  if (rc) {
    fl_err_t ignored;
    for (size_t i = 0; i < nf; i++) t->fs->remove(t->fs, files[i].path, &ignored);
    goto out;
  }
  json_object_set_new(out, "snapshot_id", json_integer(res.snapshot_id));
  json_t *paths = json_array();
  for (size_t i = 0; i < nf; i++) json_array_append_new(paths, json_string(files[i].path));
  json_object_set_new(out, "files", paths);
out:
  fl_arena_free(a);
  return rc;
}

int main(int argc, char **argv) {
  const char *uri = NULL, *warehouse = NULL, *name = NULL, *ident = NULL;
  int i = 1;
  for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
    if (strcmp(argv[i], "--catalog") == 0)
      uri = argv[i + 1];
    else if (strcmp(argv[i], "--warehouse") == 0)
      warehouse = argv[i + 1];
    else if (strcmp(argv[i], "--name") == 0)
      name = argv[i + 1];
    else if (strcmp(argv[i], "--table") == 0)
      ident = argv[i + 1];
    else
      return usage();
  }
  if (!uri || !warehouse || !ident || i >= argc) return usage();
  const char *cmd = argv[i++];
  int64_t older_than = -1;
  int32_t retain_last = -1;
  bool dry_run = false;
  long long rows = 0, start = 0;
  const char *branch = NULL;
  const char *pos[2] = {NULL, NULL};
  int npos = 0;
  for (; i < argc; i++) {
    const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(k, "--dry-run") == 0) {
      dry_run = true;
    } else if (strncmp(k, "--", 2) == 0) {
      if (!v) return usage();
      i++;
      if (strcmp(k, "--older-than") == 0)
        older_than = atoll(v);
      else if (strcmp(k, "--retain-last") == 0)
        retain_last = atoi(v);
      else if (strcmp(k, "--rows") == 0)
        rows = atoll(v);
      else if (strcmp(k, "--start") == 0)
        start = atoll(v);
      else if (strcmp(k, "--branch") == 0)
        branch = v;
      else
        return usage();
    } else if (npos < 2) {
      pos[npos++] = k;
    } else {
      return usage();
    }
  }

  fl_err_t err;
  fl_err_clear(&err);
  cat_catalog_t *c = NULL;
  ice_table_t *t = NULL;
  char *ns = NULL, *tname = NULL;
  io_fs_t *fs = io_local_fs();
  json_t *out = json_object();
  int rc = cat_open(uri, warehouse, name, &c, &err);
  if (!rc) rc = cat_split_ident(ident, &ns, &tname, &err);
  if (!rc) rc = cat_open_table(c, fs, ns, tname, &t, &err);
  if (rc) goto out;

  if (strcmp(cmd, "expire") == 0) {
    ice_expire_opts_t o = {.older_than_ms = older_than, .retain_last = retain_last,
                           .dry_run = dry_run};
    ice_expire_result_t r;
    rc = ice_expire_snapshots(t, &o, &r, &err);
    if (!rc) {
      json_object_set_new(out, "snapshots_expired", json_integer((json_int_t)r.snapshots_expired));
      json_object_set_new(out, "manifest_lists_deleted",
                          json_integer((json_int_t)r.manifest_lists_deleted));
      json_object_set_new(out, "manifests_deleted", json_integer((json_int_t)r.manifests_deleted));
      json_object_set_new(out, "data_files_deleted", json_integer((json_int_t)r.data_files_deleted));
      json_object_set_new(out, "delete_files_deleted",
                          json_integer((json_int_t)r.delete_files_deleted));
    }
  } else if (strcmp(cmd, "orphans") == 0) {
    if (older_than < 0) {
      rc = usage();
      goto done;
    }
    ice_orphan_result_t r;
    json_t *paths = json_array();
    rc = ice_remove_orphans(t, older_than, dry_run, add_path, paths, &r, &err);
    json_object_set_new(out, "paths", paths);
    if (!rc) {
      json_object_set_new(out, "files_seen", json_integer((json_int_t)r.files_seen));
      json_object_set_new(out, "orphans_deleted", json_integer((json_int_t)r.orphans_deleted));
      json_object_set_new(out, "bytes_deleted", json_integer((json_int_t)r.bytes_deleted));
    }
  } else if (strcmp(cmd, "reachable") == 0) {
    fl_arena_t *a = fl_arena_new(0);
    const char **paths;
    size_t n;
    rc = ice_reachable_files(t, a, &paths, &n, &err);
    if (!rc) {
      json_t *arr = json_array();
      for (size_t k = 0; k < n; k++) json_array_append_new(arr, json_string(paths[k]));
      json_object_set_new(out, "paths", arr);
    }
    fl_arena_free(a);
  } else if (strcmp(cmd, "append") == 0) {
    rc = do_append(t, branch, start, rows, out, &err);
  } else if (strcmp(cmd, "tag") == 0 || strcmp(cmd, "branch") == 0) {
    if (npos != 2) {
      rc = usage();
      goto done;
    }
    int64_t id = strtoll(pos[1], NULL, 10);
    rc = cmd[0] == 't' ? ice_create_tag(t, pos[0], id, false, &err)
                       : ice_create_branch(t, pos[0], id, false, &err);
  } else {
    rc = usage();
    goto done;
  }
out:
  if (rc) {
    fprintf(stderr, "maint_tool: %s\n", err.msg);
    rc = 1;
  } else {
    json_object_set_new(out, "metadata_location", json_string(t->metadata_location));
    print_json(out);
    out = NULL;
  }
done:
  if (out) json_decref(out);
  ice_table_free(t);
  fl_free(ns);
  fl_free(tname);
  if (c) cat_close(c);
  return rc;
}
