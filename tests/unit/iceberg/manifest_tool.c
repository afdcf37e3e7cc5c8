/*
 * manifest_tool.c - a test-only driver of manifests and manifest lists
 * (ice_manifest.h) for the interop tests.
 *
 *   manifest_tool write --schema S [--spec S] --format-version V
 *                 --content 0|1 --snapshot-id N --seq N [--parent N]
 *                 --manifest PATH --list PATH --input entries.json
 *     writes one manifest of the entries in the JSON file (an array of
 *     {"status", "snapshot_id", "sequence_number", "file_sequence_number",
 *     "file": {...}}, partition values in the JSON single-value form,
 *     bounds and key metadata as hex) and a manifest list holding it;
 *     prints the list entry as JSON.
 *   manifest_tool dump LIST [--root DIR]
 *     reads a manifest list and every manifest in it (paths resolved
 *     against DIR when relative) and prints them as JSON, entries after
 *     inheritance, partition values as hex of their single-value binary
 *     form and as plain JSON numbers or strings.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "iceberg/ice_conv.h"
#include "iceberg/ice_manifest.h"

static json_t *hex(const uint8_t *p, size_t n) {
  char *s = fl_malloc(n * 2 + 1);
  for (size_t i = 0; i < n; i++) snprintf(s + 2 * i, 3, "%02x", p[i]);
  s[2 * n] = 0;
  json_t *j = json_string(s);
  fl_free(s);
  return j;
}

static ice_bytes_t unhex(fl_arena_t *a, const json_t *j) {
  ice_bytes_t b = {0};
  const char *s = json_string_value(j);
  if (!s) return b;
  size_t n = strlen(s) / 2;
  uint8_t *p = fl_arena_alloc(a, n + 1);
  for (size_t i = 0; i < n; i++) {
    unsigned x = 0;
    sscanf(s + 2 * i, "%2x", &x);
    p[i] = (uint8_t)x;
  }
  b.p = p;
  b.n = n;
  return b;
}

static json_t *bytes_json(ice_bytes_t b) { return b.p ? hex(b.p, b.n) : json_null(); }

static int64_t jint(const json_t *o, const char *k, int64_t dflt) {
  const json_t *v = json_object_get(o, k);
  return json_is_integer(v) ? json_integer_value(v) : dflt;
}

/* ---- write ---- */

static ice_col_metrics_t *col(fl_arena_t *a, ice_data_file_t *f, int32_t id, uint32_t *cap) {
  for (uint32_t i = 0; i < f->ncols; i++)
    if (f->cols[i].field_id == id) return &f->cols[i];
  if (f->ncols == *cap) {
    uint32_t nc = *cap ? *cap * 2 : 8;
    ice_col_metrics_t *b = fl_arena_alloc(a, nc * sizeof *b);
    if (f->ncols) memcpy(b, f->cols, f->ncols * sizeof *b);
    f->cols = b;
    *cap = nc;
  }
  ice_col_metrics_t *c = &f->cols[f->ncols++];
  memset(c, 0, sizeof *c);
  c->field_id = id;
  c->column_size = c->value_count = c->null_count = c->nan_count = -1;
  return c;
}

static int cmp_col(const void *x, const void *y) {
  const ice_col_metrics_t *a = x, *b = y;
  return (a->field_id > b->field_id) - (a->field_id < b->field_id);
}

static int parse_file(fl_arena_t *a, const json_t *o, const ty_type_t *pt, ice_data_file_t *f,
                      fl_err_t *err) {
  memset(f, 0, sizeof *f);
  f->content = (ice_content_t)jint(o, "content", 0);
  f->path = fl_arena_strdup(a, json_string_value(json_object_get(o, "path")) ?: "");
  f->format = fl_arena_strdup(a, json_string_value(json_object_get(o, "format")) ?: "PARQUET");
  f->record_count = jint(o, "record_count", 0);
  f->file_size = jint(o, "file_size", 0);
  f->sort_order_id = (int32_t)jint(o, "sort_order_id", -1);
  f->first_row_id = jint(o, "first_row_id", -1);
  f->content_offset = jint(o, "content_offset", -1);
  f->content_size = jint(o, "content_size", -1);
  const char *ref = json_string_value(json_object_get(o, "referenced_data_file"));
  f->referenced_data_file = ref ? fl_arena_strdup(a, ref) : NULL;
  f->key_metadata = unhex(a, json_object_get(o, "key_metadata"));
  const json_t *part = json_object_get(o, "partition");
  f->npartition = pt->nfields;
  f->partition = fl_arena_zalloc(a, sizeof *f->partition * (pt->nfields ? pt->nfields : 1));
  for (uint32_t i = 0; i < pt->nfields; i++) {
    const json_t *v = json_array_get(part, i);
    if (!v || json_is_null(v)) {
      f->partition[i].kind = pt->fields[i].type->kind;
      f->partition[i].is_null = true;
      continue;
    }
    int rc =
        ice_value_from_json(a, pt->fields[i].type, v, pt->fields[i].name, &f->partition[i], err);
    if (rc) return rc;
  }
  static const char *const maps[] = {"column_sizes",     "value_counts", "null_value_counts",
                                     "nan_value_counts", "lower_bounds", "upper_bounds"};
  uint32_t cap = 0;
  for (int k = 0; k < 6; k++) {
    const json_t *m = json_object_get(o, maps[k]);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)m, key, v) {
      ice_col_metrics_t *c = col(a, f, (int32_t)atoi(key), &cap);
      if (k == 0)
        c->column_size = json_integer_value(v);
      else if (k == 1)
        c->value_count = json_integer_value(v);
      else if (k == 2)
        c->null_count = json_integer_value(v);
      else if (k == 3)
        c->nan_count = json_integer_value(v);
      else if (k == 4)
        c->lower = unhex(a, v);
      else
        c->upper = unhex(a, v);
    }
  }
  if (f->ncols > 1) qsort(f->cols, f->ncols, sizeof *f->cols, cmp_col);
  const json_t *so = json_object_get(o, "split_offsets");
  if (json_array_size(so)) {
    f->nsplit_offsets = (uint32_t)json_array_size(so);
    f->split_offsets = fl_arena_alloc(a, sizeof(int64_t) * f->nsplit_offsets);
    for (uint32_t i = 0; i < f->nsplit_offsets; i++)
      f->split_offsets[i] = json_integer_value(json_array_get(so, i));
  }
  const json_t *eq = json_object_get(o, "equality_ids");
  if (json_array_size(eq)) {
    f->nequality_ids = (uint32_t)json_array_size(eq);
    f->equality_ids = fl_arena_alloc(a, sizeof(int32_t) * f->nequality_ids);
    for (uint32_t i = 0; i < f->nequality_ids; i++)
      f->equality_ids[i] = (int32_t)json_integer_value(json_array_get(eq, i));
  }
  return FL_OK;
}

/* ---- dump ---- */

static const ty_type_t *type_of(fl_arena_t *a, const ty_value_t *v) {
  if (v->kind == TY_DECIMAL) return ty_decimal(a, 38, 0);
  if (v->kind == TY_FIXED) return ty_fixed(a, (int32_t)v->u.bytes.n);
  return ty_primitive(v->kind);
}

static json_t *plain(const ty_value_t *v) {
  switch (v->kind) {
    case TY_BOOLEAN: return json_boolean(v->u.b);
    case TY_INT:
    case TY_DATE: return json_integer(v->u.i32);
    case TY_LONG:
    case TY_TIME:
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS: return json_integer(v->u.i64);
    case TY_FLOAT: return json_real(v->u.f32);
    case TY_DOUBLE: return json_real(v->u.f64);
    case TY_DECIMAL: {
      char buf[64];
      ty_decimal_format(v->u.i128, 0, buf, sizeof buf);
      return json_string(buf);
    }
    case TY_STRING: return json_stringn((const char *)v->u.bytes.p, v->u.bytes.n);
    default: return hex(v->u.bytes.p, v->u.bytes.n);
  }
}

static json_t *file_json(fl_arena_t *a, const ice_data_file_t *f) {
  json_t *o = json_object();
  json_object_set_new(o, "content", json_integer(f->content));
  json_object_set_new(o, "path", json_string(f->path));
  json_object_set_new(o, "format", json_string(f->format));
  json_object_set_new(o, "spec_id", json_integer(f->spec_id));
  json_object_set_new(o, "record_count", json_integer(f->record_count));
  json_object_set_new(o, "file_size", json_integer(f->file_size));
  json_t *ph = json_array(), *pp = json_array();
  for (uint32_t i = 0; i < f->npartition; i++) {
    const ty_value_t *v = &f->partition[i];
    if (v->is_null) {
      json_array_append_new(ph, json_null());
      json_array_append_new(pp, json_null());
      continue;
    }
    fl_buf_t b;
    fl_buf_init(&b);
    fl_err_t err;
    if (ice_value_to_bytes(type_of(a, v), v, &b, &err) == FL_OK)
      json_array_append_new(ph, hex(b.data, b.len));
    else
      json_array_append_new(ph, json_string(err.msg));
    fl_buf_free(&b);
    json_array_append_new(pp, plain(v));
  }
  json_object_set_new(o, "partition", ph);
  json_object_set_new(o, "partition_plain", pp);
  json_t *m[6];
  static const char *const names[] = {"column_sizes",     "value_counts", "null_value_counts",
                                      "nan_value_counts", "lower_bounds", "upper_bounds"};
  for (int k = 0; k < 6; k++) m[k] = json_object();
  for (uint32_t i = 0; i < f->ncols; i++) {
    const ice_col_metrics_t *c = &f->cols[i];
    char id[16];
    snprintf(id, sizeof id, "%d", c->field_id);
    if (c->column_size >= 0) json_object_set_new(m[0], id, json_integer(c->column_size));
    if (c->value_count >= 0) json_object_set_new(m[1], id, json_integer(c->value_count));
    if (c->null_count >= 0) json_object_set_new(m[2], id, json_integer(c->null_count));
    if (c->nan_count >= 0) json_object_set_new(m[3], id, json_integer(c->nan_count));
    if (c->lower.p) json_object_set_new(m[4], id, hex(c->lower.p, c->lower.n));
    if (c->upper.p) json_object_set_new(m[5], id, hex(c->upper.p, c->upper.n));
  }
  for (int k = 0; k < 6; k++) json_object_set_new(o, names[k], m[k]);
  json_t *so = json_array(), *eq = json_array();
  for (uint32_t i = 0; i < f->nsplit_offsets; i++)
    json_array_append_new(so, json_integer(f->split_offsets[i]));
  for (uint32_t i = 0; i < f->nequality_ids; i++)
    json_array_append_new(eq, json_integer(f->equality_ids[i]));
  json_object_set_new(o, "split_offsets", so);
  json_object_set_new(o, "equality_ids", eq);
  json_object_set_new(o, "sort_order_id", json_integer(f->sort_order_id));
  json_object_set_new(o, "referenced_data_file",
                      f->referenced_data_file ? json_string(f->referenced_data_file) : json_null());
  json_object_set_new(o, "key_metadata", bytes_json(f->key_metadata));
  json_object_set_new(o, "first_row_id", json_integer(f->first_row_id));
  json_object_set_new(o, "content_offset", json_integer(f->content_offset));
  json_object_set_new(o, "content_size", json_integer(f->content_size));
  return o;
}

static json_t *mf_json(const ice_manifest_file_t *m) {
  json_t *o = json_object();
  json_object_set_new(o, "path", json_string(m->path));
  json_object_set_new(o, "length", json_integer(m->length));
  json_object_set_new(o, "spec_id", json_integer(m->spec_id));
  json_object_set_new(o, "content", json_integer(m->content));
  json_object_set_new(o, "sequence_number", json_integer(m->sequence_number));
  json_object_set_new(o, "min_sequence_number", json_integer(m->min_sequence_number));
  json_object_set_new(o, "added_snapshot_id", json_integer(m->added_snapshot_id));
  json_object_set_new(o, "added_files", json_integer(m->added_files));
  json_object_set_new(o, "existing_files", json_integer(m->existing_files));
  json_object_set_new(o, "deleted_files", json_integer(m->deleted_files));
  json_object_set_new(o, "added_rows", json_integer(m->added_rows));
  json_object_set_new(o, "existing_rows", json_integer(m->existing_rows));
  json_object_set_new(o, "deleted_rows", json_integer(m->deleted_rows));
  json_object_set_new(o, "first_row_id", json_integer(m->first_row_id));
  json_object_set_new(o, "key_metadata", bytes_json(m->key_metadata));
  if (m->partitions) {
    json_t *ps = json_array();
    for (uint32_t i = 0; i < m->npartitions; i++) {
      const ice_field_summary_t *s = &m->partitions[i];
      json_t *so = json_object();
      json_object_set_new(so, "contains_null", json_boolean(s->contains_null));
      json_object_set_new(so, "contains_nan",
                          s->contains_nan < 0 ? json_null() : json_boolean(s->contains_nan));
      json_object_set_new(so, "lower_bound", bytes_json(s->lower));
      json_object_set_new(so, "upper_bound", bytes_json(s->upper));
      json_array_append_new(ps, so);
    }
    json_object_set_new(o, "partitions", ps);
  } else {
    json_object_set_new(o, "partitions", json_null());
  }
  return o;
}

static void print_json(json_t *j) {
  char *s = json_dumps(j, JSON_COMPACT);
  printf("%s\n", s);
  free(s);
  json_decref(j);
}

static int usage(void) {
  fprintf(stderr,
          "usage: manifest_tool write --schema S [--spec S] --format-version V "
          "--content C --snapshot-id N --seq N [--parent N] --manifest P --list P "
          "--input F\n"
          "       manifest_tool dump LIST [--root DIR]\n");
  return 2;
}

static int cmd_dump(int argc, char **argv, fl_arena_t *a, fl_err_t *err) {
  if (argc < 3) return usage();
  const char *list = argv[2], *root = NULL;
  for (int i = 3; i + 1 < argc; i += 2)
    if (!strcmp(argv[i], "--root")) root = argv[i + 1];
  ice_manifest_file_t *ms;
  size_t n;
  int rc = ice_manifest_list_read(io_local_fs(), a, list, &ms, &n, err);
  if (rc) return rc;
  json_t *out = json_array();
  for (size_t i = 0; i < n; i++) {
    json_t *mo = mf_json(&ms[i]);
    ice_manifest_file_t m = ms[i];
    if (root && m.path[0] != '/' && !strstr(m.path, "://"))
      m.path = fl_arena_sprintf(a, "%s/%s", root, m.path);
    else if (!strncmp(m.path, "file://", 7))
      m.path += 7;
    ice_manifest_entry_t *es;
    size_t ne;
    rc = ice_manifest_read(io_local_fs(), a, &m, NULL, &es, &ne, err);
    if (rc) {
      json_decref(out);
      json_decref(mo);
      return rc;
    }
    json_t *ea = json_array();
    for (size_t k = 0; k < ne; k++) {
      json_t *eo = json_object();
      json_object_set_new(eo, "status", json_integer(es[k].status));
      json_object_set_new(eo, "snapshot_id", json_integer(es[k].snapshot_id));
      json_object_set_new(eo, "sequence_number", json_integer(es[k].sequence_number));
      json_object_set_new(eo, "file_sequence_number", json_integer(es[k].file_sequence_number));
      json_object_set_new(eo, "file", file_json(a, &es[k].file));
      json_array_append_new(ea, eo);
    }
    json_object_set_new(mo, "entries", ea);
    json_array_append_new(out, mo);
  }
  print_json(out);
  return FL_OK;
}

static int cmd_write(int argc, char **argv, fl_arena_t *a, fl_err_t *err) {
  const char *schema_text = NULL, *spec_text = "", *mpath = NULL, *lpath = NULL, *input = NULL;
  int fv = 2;
  int32_t content = 0;
  int64_t snap = 1, seq = 1, parent = -1;
  for (int i = 2; i < argc; i += 2) {
    const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) return usage();
    if (!strcmp(k, "--schema"))
      schema_text = v;
    else if (!strcmp(k, "--spec"))
      spec_text = v;
    else if (!strcmp(k, "--format-version"))
      fv = atoi(v);
    else if (!strcmp(k, "--content"))
      content = atoi(v);
    else if (!strcmp(k, "--snapshot-id"))
      snap = atoll(v);
    else if (!strcmp(k, "--seq"))
      seq = atoll(v);
    else if (!strcmp(k, "--parent"))
      parent = atoll(v);
    else if (!strcmp(k, "--manifest"))
      mpath = v;
    else if (!strcmp(k, "--list"))
      lpath = v;
    else if (!strcmp(k, "--input"))
      input = v;
    else
      return usage();
  }
  if (!schema_text || !mpath || !lpath || !input) return usage();
  ty_schema_t *schema;
  int rc = ty_schema_parse(a, schema_text, &schema, err);
  if (rc) return rc;
  ice_spec_t empty = {0}, *spec = &empty;
  int32_t last = 999;
  if (*spec_text && (rc = ice_spec_parse(a, spec_text, schema, 0, &last, &spec, err))) return rc;
  const ty_type_t *pt;
  if ((rc = ice_spec_partition_type(a, spec, schema, &pt, err))) return rc;
  json_error_t je;
  json_t *root = json_load_file(input, 0, &je);
  if (!json_is_array(root)) {
    json_decref(root);
    return fl_err_set(err, FL_EPARSE, "%s: %s", input, je.text);
  }
  ice_manifest_writer_t *w;
  rc = ice_manifest_writer_open(io_local_fs(), mpath, fv, schema, spec, content, snap, NULL, &w, err);
  for (size_t i = 0; !rc && i < json_array_size(root); i++) {
    const json_t *eo = json_array_get(root, i);
    ice_manifest_entry_t e;
    memset(&e, 0, sizeof e);
    e.status = (ice_entry_status_t)jint(eo, "status", 1);
    e.snapshot_id = jint(eo, "snapshot_id", -1);
    e.sequence_number = jint(eo, "sequence_number", -1);
    e.file_sequence_number = jint(eo, "file_sequence_number", -1);
    rc = parse_file(a, json_object_get(eo, "file"), pt, &e.file, err);
    if (!rc) rc = ice_manifest_writer_add(w, &e, err);
    if (rc) ice_manifest_writer_abort(w);
  }
  json_decref(root);
  if (rc) return rc;
  ice_manifest_file_t mf;
  if ((rc = ice_manifest_writer_close(w, a, &mf, err))) return rc;
  if ((rc = ice_manifest_list_write(io_local_fs(), lpath, fv, snap, parent, seq, -1, &mf, 1, NULL, NULL, err)))
    return rc;
  print_json(mf_json(&mf));
  return FL_OK;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  fl_err_clear(&err);
  int rc;
  if (!strcmp(argv[1], "dump"))
    rc = cmd_dump(argc, argv, a, &err);
  else if (!strcmp(argv[1], "write"))
    rc = cmd_write(argc, argv, a, &err);
  else
    rc = usage();
  fl_arena_free(a);
  if (rc == 2 && err.code == 0) return 2;
  if (rc) {
    fprintf(stderr, "manifest_tool: %s\n", err.msg);
    return 1;
  }
  return 0;
}
