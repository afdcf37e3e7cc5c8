/*
 * commit_tool.c - a test-only driver of snapshot-producing commits
 * (ice_commit.h) over a SQL catalog that PyIceberg's SqlCatalog shares,
 * for the interop tests. Tables have the schema "id long not null,
 * v string"; rows are (id, "row-<id>") unless --v gives one value for all.
 *
 *   commit_tool --catalog URI --warehouse DIR [--name CATALOG]
 *               --table NS.NAME COMMAND [options]
 *   commands:
 *     create [--spec "v"] [--prop k=v]...
 *     append --rows N [--start K] [--v S]
 *     overwrite --filter TEXT [--rows N --start K [--v S]]
 *     delete --filter TEXT | delete --path P
 *     pos-delete --path DATAFILE --pos 0,3,5       (row delta)
 *     eq-delete --ids 1,2 [--v S]                 (row delta, equality on id)
 *   every commit takes --base SNAPSHOT_ID: the snapshot the change was
 *   computed against (default: the head at the first attempt).
 *
 * Prints one JSON object: snapshot_id, sequence_number, operation,
 * summary, and the paths of the files the commit added. Errors go to
 * stderr (exit status 1; 3 for a commit conflict).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "catalog/cat_tables.h"
#include "iceberg/ice_commit.h"
#include "iceberg/ice_data_writer.h"

static int usage(void) {
  fprintf(stderr,
          "usage: commit_tool --catalog URI --warehouse DIR [--name C] --table NS.NAME COMMAND\n"
          "  create [--spec S] [--prop k=v]...\n"
          "  append --rows N [--start K] [--v S]\n"
          "  overwrite --filter TEXT [--rows N --start K [--v S]]\n"
          "  delete --filter TEXT | --path P\n"
          "  pos-delete --path DATAFILE --pos 0,3\n"
          "  eq-delete --ids 1,2 [--v S]\n");
  return 2;
}

typedef struct opts {
  const char *spec, *filter, *path, *v, *pos, *ids;
  long long rows, start, base;
  ice_kv_t props[16];
  uint32_t nprops;
} opts_t;

/* Parses "1,2,3" into a (at most cap values). */
static size_t parse_list(const char *s, int64_t *out, size_t cap) {
  size_t n = 0;
  while (s && *s && n < cap) {
    char *end;
    out[n++] = strtoll(s, &end, 10);
    s = *end == ',' ? end + 1 : NULL;
  }
  return n;
}

/* Writes rows start..start+n-1 as data files. */
static int write_rows(ice_table_t *t, fl_arena_t *a, const opts_t *o, ice_data_file_t **files,
                      size_t *nf, fl_err_t *err) {
  const ty_schema_t *schema = ice_meta_schema(t->meta);
  const ice_spec_t *spec = ice_meta_spec(t->meta);
  ice_dw_opts_t dwo = {.spec = spec->nfields ? spec : NULL, .sort_order_id = 0};
  ice_dw_t *w = NULL;
  int rc = ice_dw_open(t->fs, t->meta->location, schema, &dwo, &w, err);
  if (rc) return rc;
  ty_batch_t *b = ty_batch_new(schema, (uint32_t)(o->rows > 0 ? o->rows : 1));
  for (long long i = 0; i < o->rows; i++) {
    char v[40];
    snprintf(v, sizeof v, "row-%lld", o->start + i);
    const char *val = o->v ? o->v : v;
    ty_vec_append_i64(b->cols[0], o->start + i);
    ty_vec_append_bytes(b->cols[1], val, strlen(val));
  }
  ty_batch_seal(b);
  rc = ice_dw_write(w, b, err);
  ty_batch_free(b);
  if (!rc) rc = ice_dw_close(w, a, files, nf, err);
  if (rc) {
    ice_dw_abort(w);
    return rc;
  }
  ice_dw_free(w);
  return FL_OK;
}

static int bind_filter(ice_table_t *t, fl_arena_t *a, const char *text, ice_expr_t **out,
                       fl_err_t *err) {
  ice_expr_t *e;
  int rc = ice_expr_parse(a, text, &e, err);
  if (!rc) rc = ice_expr_bind(a, e, ice_meta_schema(t->meta), true, out, err);
  return rc;
}

/* The live entry of a data file in the current snapshot. */
static int find_file(ice_table_t *t, fl_arena_t *a, const char *path, const ice_data_file_t **out,
                     fl_err_t *err) {
  const ice_snapshot_t *s = ice_meta_current_snapshot(t->meta);
  if (!s) return fl_err_set(err, FL_ENOTFOUND, "table %s is empty", t->ident);
  ice_manifest_entry_t *es;
  size_t n;
  int rc = ice_snapshot_entries(t, a, s, &es, &n, err);
  if (rc) return rc;
  for (size_t i = 0; i < n; i++)
    if (strcmp(es[i].file.path, path) == 0) {
      *out = &es[i].file;
      return FL_OK;
    }
  return fl_err_set(err, FL_ENOTFOUND, "no live file %s", path);
}

static int write_deletes(ice_table_t *t, fl_arena_t *a, const opts_t *o, bool positions,
                         ice_data_file_t **files, size_t *nf, fl_err_t *err) {
  const ice_spec_t *spec = ice_meta_spec(t->meta);
  ice_dw_opts_t dwo = {.spec = spec->nfields ? spec : NULL};
  int32_t eq_ids[] = {1};
  ty_value_t part = {.kind = TY_STRING};
  const ice_data_file_t *target = NULL;
  int rc;
  if (positions) {
    if (!o->path || !o->pos)
      return fl_err_set(err, FL_EINVALID, "pos-delete needs --path and --pos");
    rc = find_file(t, a, o->path, &target, err);
    if (rc) return rc;
    dwo.content = ICE_CONTENT_POSITION_DELETES;
    dwo.partition = spec->nfields ? target->partition : NULL;
  } else {
    if (!o->ids) return fl_err_set(err, FL_EINVALID, "eq-delete needs --ids");
    if (spec->nfields && !o->v)
      return fl_err_set(err, FL_EINVALID, "eq-delete needs --v (partition)");
    dwo.content = ICE_CONTENT_EQUALITY_DELETES;
    dwo.equality_ids = eq_ids;
    dwo.nequality_ids = 1;
    if (spec->nfields) {
      part.u.bytes.p = (const uint8_t *)o->v;
      part.u.bytes.n = strlen(o->v);
      dwo.partition = &part;
    }
  }
  ice_dw_t *w = NULL;
  rc = ice_dw_open(t->fs, t->meta->location, ice_meta_schema(t->meta), &dwo, &w, err);
  if (rc) return rc;
  int64_t vals[1024];
  size_t nv = parse_list(positions ? o->pos : o->ids, vals, 1024);
  if (positions) {
    for (size_t i = 0; i < nv && !rc; i++) rc = ice_dw_delete_position(w, o->path, vals[i], err);
  } else {
    ty_batch_t *b = ty_batch_new(ice_dw_schema(w), (uint32_t)(nv ? nv : 1));
    for (size_t i = 0; i < nv; i++) ty_vec_append_i64(b->cols[0], vals[i]);
    ty_batch_seal(b);
    rc = ice_dw_write(w, b, err);
    ty_batch_free(b);
  }
  if (!rc) rc = ice_dw_close(w, a, files, nf, err);
  if (rc) {
    ice_dw_abort(w);
    return rc;
  }
  ice_dw_free(w);
  return FL_OK;
}

static int do_commit(ice_table_t *t, const char *cmd, const opts_t *o, json_t *out, fl_err_t *err) {
  fl_arena_t *a = fl_arena_new(0);
  ice_data_file_t *files = NULL;
  size_t nf = 0;
  ice_change_t c = {.base_snapshot_id = o->base};
  const char *remove[1];
  int rc = FL_OK;
  if (strcmp(cmd, "append") == 0) {
    c.kind = ICE_CHANGE_APPEND;
    rc = write_rows(t, a, o, &files, &nf, err);
  } else if (strcmp(cmd, "overwrite") == 0 || strcmp(cmd, "delete") == 0) {
    c.kind = cmd[0] == 'o' ? ICE_CHANGE_OVERWRITE : ICE_CHANGE_DELETE;
    ice_expr_t *f = NULL;
    if (o->filter) rc = bind_filter(t, a, o->filter, &f, err);
    c.filter = f;
    if (o->path) {
      remove[0] = o->path;
      c.remove = remove;
      c.nremove = 1;
    }
    if (!rc && !f && !o->path)
      rc = fl_err_set(err, FL_EINVALID, "%s needs --filter or --path", cmd);
    if (!rc && o->rows > 0) rc = write_rows(t, a, o, &files, &nf, err);
  } else if (strcmp(cmd, "pos-delete") == 0 || strcmp(cmd, "eq-delete") == 0) {
    c.kind = ICE_CHANGE_ROW_DELTA;
    rc = write_deletes(t, a, o, cmd[0] == 'p', &files, &nf, err);
  } else {
    rc = fl_err_set(err, FL_EINVALID, "unknown command %s", cmd);
  }
  if (rc) goto out;
  c.add = files;
  c.nadd = (uint32_t)nf;
  ice_commit_result_t res;
  rc = ice_commit(t, &c, &res, err);
  if (rc) {
    fl_err_t ignored;
    for (size_t i = 0; i < nf; i++) t->fs->remove(t->fs, files[i].path, &ignored);
    goto out;
  }
  const ice_snapshot_t *s = ice_meta_snapshot(t->meta, res.snapshot_id);
  json_object_set_new(out, "snapshot_id", json_integer(res.snapshot_id));
  json_object_set_new(out, "sequence_number", json_integer(res.sequence_number));
  json_object_set_new(out, "attempts", json_integer(res.attempts));
  json_object_set_new(out, "operation", json_string(ice_snapshot_operation(s)));
  json_t *sum = json_object();
  for (uint32_t i = 0; i < s->nsummary; i++)
    json_object_set_new(sum, s->summary[i].key, json_string(s->summary[i].value));
  json_object_set_new(out, "summary", sum);
  json_t *paths = json_array();
  for (size_t i = 0; i < nf; i++) json_array_append_new(paths, json_string(files[i].path));
  json_object_set_new(out, "files", paths);
out:
  fl_arena_free(a);
  return rc;
}

static int do_create(cat_catalog_t *cat, io_fs_t *fs, const char *ns, const char *name,
                     const opts_t *o, json_t *out, fl_err_t *err) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *schema;
  ice_spec_t *spec = NULL;
  int32_t last = 999;
  ice_table_t *t = NULL;
  int rc = ty_schema_parse(a, "id long not null, v string", &schema, err);
  if (!rc && o->spec) rc = ice_spec_parse(a, o->spec, schema, 0, &last, &spec, err);
  cat_create_opts_t co = {.schema = schema, .spec = spec, .props = o->props, .nprops = o->nprops};
  if (!rc) rc = cat_create_table(cat, fs, ns, name, &co, &t, err);
  if (!rc) json_object_set_new(out, "metadata_location", json_string(t->metadata_location));
  ice_table_free(t);
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
  opts_t o = {.base = -1};
  for (; i + 1 < argc; i += 2) {
    const char *k = argv[i], *v = argv[i + 1];
    if (strcmp(k, "--spec") == 0)
      o.spec = v;
    else if (strcmp(k, "--filter") == 0)
      o.filter = v;
    else if (strcmp(k, "--path") == 0)
      o.path = v;
    else if (strcmp(k, "--v") == 0)
      o.v = v;
    else if (strcmp(k, "--pos") == 0)
      o.pos = v;
    else if (strcmp(k, "--ids") == 0)
      o.ids = v;
    else if (strcmp(k, "--rows") == 0)
      o.rows = atoll(v);
    else if (strcmp(k, "--start") == 0)
      o.start = atoll(v);
    else if (strcmp(k, "--base") == 0)
      o.base = atoll(v);
    else if (strcmp(k, "--prop") == 0 && strchr(v, '=') && o.nprops < 16) {
      char *kv = fl_strdup(v);
      char *eq = strchr(kv, '=');
      *eq = 0;
      o.props[o.nprops++] = (ice_kv_t){kv, eq + 1};
    } else
      return usage();
  }
  if (i != argc) return usage();

  fl_err_t err;
  fl_err_clear(&err);
  cat_catalog_t *c = NULL;
  ice_table_t *t = NULL;
  char *ns = NULL, *tname = NULL;
  io_fs_t *fs = io_local_fs();
  json_t *out = json_object();
  int rc = cat_open(uri, warehouse, name, &c, &err);
  if (!rc) rc = cat_split_ident(ident, &ns, &tname, &err);
  if (!rc && strcmp(cmd, "create") == 0) {
    rc = do_create(c, fs, ns, tname, &o, out, &err);
  } else if (!rc) {
    rc = cat_open_table(c, fs, ns, tname, &t, &err);
    if (!rc) rc = do_commit(t, cmd, &o, out, &err);
  }
  if (rc) {
    fprintf(stderr, "commit_tool: %s: %s\n", fl_code_name(rc), err.msg);
  } else {
    char *s = json_dumps(out, JSON_COMPACT);
    printf("%s\n", s);
    free(s);
  }
  json_decref(out);
  ice_table_free(t);
  fl_free(ns);
  fl_free(tname);
  cat_close(c);
  for (uint32_t k = 0; k < o.nprops; k++) fl_free((void *)o.props[k].key);
  return rc == FL_OK ? 0 : rc == FL_ECONFLICT ? 3 : 1;
}
