/*
 * scan_tool.c - a test-only driver of Iceberg scans (ice_scan.h) for the
 * interop tests: loads a table from a metadata file (read-only, no
 * catalog), plans and reads a scan with the given options and prints
 * every row as one JSON object, then one line {"__stats__": {...}}.
 *
 *   scan_tool --metadata FILE [--base-dir DIR] [--snapshot ID] [--ref NAME]
 *             [--as-of MS] [--filter TEXT] [--columns a,b.c] [--limit N]
 *             [--case-insensitive] [--tasks] [--quiet]
 *
 * Values are printed in their raw forms so that tests compare exactly:
 * integers, dates (days), times and timestamps (micros or nanos since the
 * epoch) as JSON integers; floats as numbers ("NaN", "Infinity",
 * "-Infinity" as strings); decimals as their text; strings as strings;
 * binary and fixed as hex; uuids as text; structs as objects; lists as
 * arrays; maps as arrays of [key, value]. --tasks prints the planned
 * tasks (data file, deletes) instead of rows; --quiet reads every row but
 * prints only the stats.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "iceberg/ice_scan.h"

static json_t *hex(const uint8_t *p, size_t n) {
  char *s = fl_malloc(n * 2 + 1);
  for (size_t i = 0; i < n; i++) snprintf(s + 2 * i, 3, "%02x", p[i]);
  s[2 * n] = 0;
  json_t *j = json_string(s);
  fl_free(s);
  return j;
}

static json_t *value_json(const ty_vec_t *v, uint32_t i);

static json_t *float_json(double d) {
  if (isnan(d)) return json_string("NaN");
  if (isinf(d)) return json_string(d > 0 ? "Infinity" : "-Infinity");
  return json_real(d);
}

static json_t *value_json(const ty_vec_t *v, uint32_t i) {
  if (ty_vec_is_null(v, i)) return json_null();
  const ty_type_t *t = v->type;
  switch (t->kind) {
    case TY_BOOLEAN: return json_boolean(v->data[i]);
    case TY_INT:
    case TY_DATE: return json_integer(TY_VEC_DATA(v, int32_t)[i]);
    case TY_LONG:
    case TY_TIME:
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS: return json_integer(TY_VEC_DATA(v, int64_t)[i]);
    case TY_FLOAT: return float_json(TY_VEC_DATA(v, float)[i]);
    case TY_DOUBLE: return float_json(TY_VEC_DATA(v, double)[i]);
    case TY_DECIMAL: {
      char buf[64];
      ty_decimal_format(ty_vec_get_i128(v, i), t->scale, buf, sizeof buf);
      return json_string(buf);
    }
    case TY_STRING: {
      size_t n;
      const uint8_t *p = ty_vec_get_bytes(v, i, &n);
      json_t *j = json_stringn((const char *)p, n);
      return j ? j : hex(p, n);
    }
    case TY_UUID: {
      size_t n;
      const uint8_t *p = ty_vec_get_bytes(v, i, &n);
      char text[37];
      ty_uuid_format(p, text);
      return json_string(text);
    }
    case TY_BINARY:
    case TY_FIXED: {
      size_t n;
      const uint8_t *p = ty_vec_get_bytes(v, i, &n);
      return hex(p, n);
    }
    case TY_STRUCT: {
      json_t *o = json_object();
      for (uint32_t c = 0; c < t->nfields; c++)
        json_object_set_new(o, t->fields[c].name, value_json(v->children[c], i));
      return o;
    }
    case TY_LIST: {
      json_t *a = json_array();
      for (int32_t e = v->offsets[i]; e < v->offsets[i + 1]; e++)
        json_array_append_new(a, value_json(v->children[0], (uint32_t)e));
      return a;
    }
    case TY_MAP: {
      json_t *a = json_array();
      for (int32_t e = v->offsets[i]; e < v->offsets[i + 1]; e++) {
        json_t *kv = json_array();
        json_array_append_new(kv, value_json(v->children[0], (uint32_t)e));
        json_array_append_new(kv, value_json(v->children[1], (uint32_t)e));
        json_array_append_new(a, kv);
      }
      return a;
    }
    default: return json_null();
  }
}

static void print_json(json_t *j) {
  char *s = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII);
  fputs(s, stdout);
  fputc('\n', stdout);
  free(s);
  json_decref(j);
}

static json_t *entry_json(const ice_manifest_entry_t *e) {
  json_t *o = json_object();
  json_object_set_new(o, "path", json_string(e->file.path));
  json_object_set_new(o, "content", json_integer(e->file.content));
  json_object_set_new(o, "sequence_number", json_integer(e->sequence_number));
  json_object_set_new(o, "spec_id", json_integer(e->file.spec_id));
  json_object_set_new(o, "record_count", json_integer(e->file.record_count));
  return o;
}

static int usage(void) {
  fprintf(stderr,
          "usage: scan_tool --metadata FILE [--base-dir DIR] [--snapshot ID] [--ref NAME]\n"
          "                 [--as-of MS] [--filter TEXT] [--columns a,b] [--limit N]\n"
          "                 [--case-insensitive] [--tasks] [--quiet]\n");
  return 2;
}

int main(int argc, char **argv) {
  const char *metadata = NULL, *base_dir = NULL, *filter_text = NULL, *columns = NULL;
  bool tasks_only = false, quiet = false;
  ice_scan_opts_t o = {.snapshot_id = -1, .as_of_ms = -1, .case_sensitive = true, .limit = -1};
  for (int i = 1; i < argc; i++) {
    const char *k = argv[i];
    if (strcmp(k, "--case-insensitive") == 0) {
      o.case_sensitive = false;
      continue;
    }
    if (strcmp(k, "--tasks") == 0) {
      tasks_only = true;
      continue;
    }
    if (strcmp(k, "--quiet") == 0) {
      quiet = true;
      continue;
    }
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) return usage();
    i++;
    if (strcmp(k, "--metadata") == 0)
      metadata = v;
    else if (strcmp(k, "--base-dir") == 0)
      base_dir = v;
    else if (strcmp(k, "--snapshot") == 0)
      o.snapshot_id = atoll(v);
    else if (strcmp(k, "--ref") == 0)
      o.ref = v;
    else if (strcmp(k, "--as-of") == 0)
      o.as_of_ms = atoll(v);
    else if (strcmp(k, "--filter") == 0)
      filter_text = v;
    else if (strcmp(k, "--columns") == 0)
      columns = v;
    else if (strcmp(k, "--limit") == 0)
      o.limit = atoll(v);
    else
      return usage();
  }
  if (!metadata) return usage();
  fl_err_t err;
  fl_err_clear(&err);
  fl_arena_t *a = fl_arena_new(0);
  ice_table_t *t = NULL;
  ice_scan_t *s = NULL;
  int rc = ice_table_load(io_local_fs(), NULL, metadata, NULL, &t, &err);
  if (rc) goto out;
  if (base_dir) t->base_dir = fl_strdup(base_dir);
  if (filter_text) {
    ice_expr_t *e;
    if ((rc = ice_expr_parse(a, filter_text, &e, &err))) goto out;
    o.filter = e;
  }
  if (columns) {
    const char **cols = fl_arena_alloc(a, (strlen(columns) + 1) * sizeof *cols);
    uint32_t n = 0;
    const char *p = columns;
    for (;;) {
      const char *c = strchr(p, ',');
      size_t len = c ? (size_t)(c - p) : strlen(p);
      cols[n++] = fl_arena_strndup(a, p, len);
      if (!c) break;
      p = c + 1;
    }
    o.columns = cols;
    o.ncolumns = n;
  }
  if ((rc = ice_scan_plan(t, &o, &s, &err))) goto out;
  if (tasks_only) {
    uint32_t n;
    const ice_scan_task_t *tasks = ice_scan_tasks(s, &n);
    for (uint32_t i = 0; i < n; i++) {
      json_t *j = json_object();
      json_object_set_new(j, "data", entry_json(tasks[i].data));
      json_t *d = json_array();
      for (uint32_t k = 0; k < tasks[i].ndeletes; k++)
        json_array_append_new(d, entry_json(tasks[i].deletes[k]));
      json_object_set_new(j, "deletes", d);
      print_json(j);
    }
  } else {
    const ty_schema_t *sch = ice_scan_schema(s);
    for (;;) {
      ty_batch_t *b;
      if ((rc = ice_scan_next(s, &b, &err)) || !b) break;
      uint32_t live = quiet ? 0 : ty_batch_live(b);
      for (uint32_t k = 0; k < live; k++) {
        uint32_t r = b->sel ? b->sel[k] : k;
        json_t *row = json_object();
        for (uint32_t c = 0; c < b->ncols; c++)
          json_object_set_new(row, sch->root.fields[c].name, value_json(b->cols[c], r));
        print_json(row);
      }
    }
    if (rc) goto out;
  }
  const ice_scan_stats_t *st = ice_scan_stats(s);
  const ice_snapshot_t *snap = ice_scan_snapshot(s);
  json_t *j = json_object();
  json_t *stats = json_object();
#define STAT(name) json_object_set_new(stats, #name, json_integer((json_int_t)st->name))
  STAT(manifests_total);
  STAT(manifests_skipped);
  STAT(files_total);
  STAT(files_skipped_partition);
  STAT(files_skipped_metrics);
  STAT(delete_files);
  STAT(row_groups_read);
  STAT(row_groups_skipped);
  STAT(pages_skipped);
  STAT(rows_read);
  STAT(rows_deleted);
  STAT(rows_filtered);
  STAT(rows_out);
  STAT(bytes_read);
#undef STAT
  uint32_t ntasks;
  ice_scan_tasks(s, &ntasks);
  json_object_set_new(stats, "tasks", json_integer(ntasks));
  json_object_set_new(stats, "snapshot_id", snap ? json_integer(snap->snapshot_id) : json_null());
  json_object_set_new(j, "__stats__", stats);
  print_json(j);
out:
  if (rc) fprintf(stderr, "scan_tool: %s\n", err.msg);
  ice_scan_free(s);
  ice_table_free(t);
  fl_arena_free(a);
  fflush(stdout);
  return rc ? 1 : 0;
}
