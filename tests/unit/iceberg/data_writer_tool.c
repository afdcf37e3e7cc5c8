/*
 * data_writer_tool.c - a test-only driver of the Iceberg data writer
 * (ice_data_writer.h) for the interop tests: reads JSON lines of a schema,
 * writes them as data files of a partition spec under a table location,
 * and prints one JSON object per data file with its ice_data_file_t
 * (partition values and bounds as hex of their single-value binary form).
 *
 *   data_writer_tool --schema "id long not null, ..." --location DIR
 *                    --input rows.jsonl [--spec "day(ts), bucket(4, id)"]
 *                    [--prop key=value]... [--task N] [--max-open N]
 *
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/alloc.h"
#include "format/format.h"
#include "iceberg/ice_conv.h"
#include "iceberg/ice_data_writer.h"

static json_t *hex(const uint8_t *p, size_t n) {
  char *s = fl_malloc(n * 2 + 1);
  for (size_t i = 0; i < n; i++) snprintf(s + 2 * i, 3, "%02x", p[i]);
  s[2 * n] = 0;
  json_t *j = json_string(s);
  fl_free(s);
  return j;
}

static json_t *file_json(const ice_data_file_t *f, const ty_type_t *ptype) {
  json_t *o = json_object();
  json_object_set_new(o, "path", json_string(f->path));
  json_object_set_new(o, "content", json_integer(f->content));
  json_object_set_new(o, "format", json_string(f->format));
  json_object_set_new(o, "spec_id", json_integer(f->spec_id));
  json_object_set_new(o, "record_count", json_integer(f->record_count));
  json_object_set_new(o, "file_size", json_integer(f->file_size));
  json_object_set_new(o, "sort_order_id", json_integer(f->sort_order_id));
  json_t *part = json_array();
  for (uint32_t i = 0; i < f->npartition; i++) {
    if (f->partition[i].is_null || !ptype) {
      json_array_append_new(part, json_null());
      continue;
    }
    fl_buf_t b;
    fl_buf_init(&b);
    fl_err_t err;
    if (ice_value_to_bytes(ptype->fields[i].type, &f->partition[i], &b, &err) == FL_OK)
      json_array_append_new(part, hex(b.data, b.len));
    else
      json_array_append_new(part, json_string(err.msg));
    fl_buf_free(&b);
  }
  json_object_set_new(o, "partition", part);
  json_t *sizes = json_object(), *values = json_object(), *nulls = json_object();
  json_t *nans = json_object(), *lower = json_object(), *upper = json_object();
  for (uint32_t i = 0; i < f->ncols; i++) {
    const ice_col_metrics_t *c = &f->cols[i];
    char id[16];
    snprintf(id, sizeof id, "%d", c->field_id);
    if (c->column_size >= 0) json_object_set_new(sizes, id, json_integer(c->column_size));
    if (c->value_count >= 0) json_object_set_new(values, id, json_integer(c->value_count));
    if (c->null_count >= 0) json_object_set_new(nulls, id, json_integer(c->null_count));
    if (c->nan_count >= 0) json_object_set_new(nans, id, json_integer(c->nan_count));
    if (c->lower.p) json_object_set_new(lower, id, hex(c->lower.p, c->lower.n));
    if (c->upper.p) json_object_set_new(upper, id, hex(c->upper.p, c->upper.n));
  }
  json_object_set_new(o, "column_sizes", sizes);
  json_object_set_new(o, "value_counts", values);
  json_object_set_new(o, "null_value_counts", nulls);
  json_object_set_new(o, "nan_value_counts", nans);
  json_object_set_new(o, "lower_bounds", lower);
  json_object_set_new(o, "upper_bounds", upper);
  json_t *splits = json_array();
  for (uint32_t i = 0; i < f->nsplit_offsets; i++)
    json_array_append_new(splits, json_integer(f->split_offsets[i]));
  json_object_set_new(o, "split_offsets", splits);
  return o;
}

static int usage(void) {
  fprintf(stderr,
          "usage: data_writer_tool --schema S --location DIR --input F.jsonl [--spec S]\n"
          "                        [--prop k=v]... [--task N] [--max-open N]\n");
  return 2;
}

int main(int argc, char **argv) {
  const char *schema_text = NULL, *location = NULL, *input = NULL, *spec_text = NULL;
  ice_kv_t props[64];
  uint32_t nprops = 0;
  ice_dw_opts_t o = {0};
  fl_arena_t *a = fl_arena_new(0);
  for (int i = 1; i < argc; i++) {
    const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) return usage();
    i++;
    if (strcmp(k, "--schema") == 0) {
      schema_text = v;
    } else if (strcmp(k, "--location") == 0) {
      location = v;
    } else if (strcmp(k, "--input") == 0) {
      input = v;
    } else if (strcmp(k, "--spec") == 0) {
      spec_text = v;
    } else if (strcmp(k, "--task") == 0) {
      o.task_id = atoll(v);
    } else if (strcmp(k, "--max-open") == 0) {
      o.max_open_files = (uint32_t)atoi(v);
    } else if (strcmp(k, "--prop") == 0 && nprops < 64) {
      const char *eq = strchr(v, '=');
      if (!eq) return usage();
      props[nprops].key = fl_arena_strndup(a, v, (size_t)(eq - v));
      props[nprops++].value = eq + 1;
    } else {
      return usage();
    }
  }
  if (!schema_text || !location || !input) return usage();
  fl_err_t err;
  fl_err_clear(&err);
  ty_schema_t *schema;
  ice_spec_t *spec = NULL;
  int32_t last_pid = 999;
  const ty_type_t *ptype = NULL;
  int rc = ty_schema_parse(a, schema_text, &schema, &err);
  if (!rc && spec_text && *spec_text) {
    rc = ice_spec_parse(a, spec_text, schema, 0, &last_pid, &spec, &err);
    if (!rc) rc = ice_spec_partition_type(a, spec, schema, &ptype, &err);
  }
  if (rc) {
    fprintf(stderr, "data_writer_tool: %s\n", err.msg);
    return 1;
  }
  o.spec = spec;
  o.props = props;
  o.nprops = nprops;
  io_fs_t *fs = io_local_fs();
  fmt_read_opts_t ro = {.schema = schema};
  fmt_reader_t *r = NULL;
  ice_dw_t *w = NULL;
  ice_data_file_t *files = NULL;
  size_t n = 0;
  if ((rc = fmt_open_reader(fs, input, &ro, &r, &err))) goto out;
  if ((rc = ice_dw_open(fs, location, schema, &o, &w, &err))) goto out;
  for (;;) {
    ty_batch_t *b;
    if ((rc = r->next(r, &b, &err)) || !b) break;
    if ((rc = ice_dw_write(w, b, &err))) break;
  }
  if (!rc) rc = ice_dw_close(w, a, &files, &n, &err);
out:
  if (r) r->close(r);
  if (rc) {
    ice_dw_abort(w);
    fprintf(stderr, "data_writer_tool: %s\n", err.msg);
    fl_arena_free(a);
    return 1;
  }
  for (size_t i = 0; i < n; i++) {
    json_t *j = file_json(&files[i], ptype);
    char *s = json_dumps(j, JSON_COMPACT);
    printf("%s\n", s);
    free(s);
    json_decref(j);
  }
  ice_dw_free(w);
  fl_arena_free(a);
  return 0;
}
