/*
 * expr_tool.c - a test-only driver of floe's Iceberg filters
 * (ice_expr.h) for the interop tests: reads one JSON request per line on
 * stdin and answers one JSON object per line on stdout.
 *
 * Request:
 *   {"schema": "v long, s string", "spec": "bucket(4, v)", "filter": "v < 3",
 *    "rows": [[1, "a"], [null, "b"]],
 *    "metrics": [{"id": 1, "vc": 2, "nc": 1, "nanc": -1, "lo": "0100..", "hi": null}],
 *    "record_count": 2,
 *    "summaries": [{"contains_null": false, "contains_nan": null, "lo": "..", "hi": ".."}]}
 * Row cells are JSON numbers for ints, longs, dates (days), timestamps
 * (microseconds) and doubles, strings for strings and decimals ("1.25"),
 * null for null.
 * Metrics bounds and partition summary bounds (one summary per spec
 * field, tested with the inclusive projection) are hex of the
 * single-value binary form.
 *
 * Answer:
 *   {"match": [0], "partitions": [["03000000"], [null]], "inclusive": [true, false],
 *    "strict": [false, false], "inclusive_text": "...", "strict_text": "...",
 *    "might": true, "must": false, "manifest": true}
 * or {"error": "message"} when the request cannot be served.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "iceberg/ice_conv.h"
#include "iceberg/ice_expr.h"
#include "iceberg/ice_spec.h"
#include "iceberg/ice_transform.h"

static json_t *hex(const uint8_t *p, size_t n) {
  char *s = fl_malloc(n * 2 + 1);
  for (size_t i = 0; i < n; i++) snprintf(s + 2 * i, 3, "%02x", p[i]);
  s[2 * n] = 0;
  json_t *j = json_string(s);
  fl_free(s);
  return j;
}

static bool unhex(fl_arena_t *a, const char *s, ice_bytes_t *out) {
  size_t n = strlen(s);
  if (n % 2) return false;
  uint8_t *p = fl_arena_alloc(a, n / 2 + 1);
  for (size_t i = 0; i < n / 2; i++) {
    unsigned x;
    if (sscanf(s + 2 * i, "%2x", &x) != 1) return false;
    p[i] = (uint8_t)x;
  }
  out->p = p;
  out->n = n / 2;
  return true;
}

static const char *formatted(fl_arena_t *a, const ice_expr_t *e) {
  fl_buf_t b;
  fl_buf_init(&b);
  ice_expr_format(e, &b);
  const char *s = fl_arena_strndup(a, b.len ? (const char *)b.data : "", b.len);
  fl_buf_free(&b);
  return s;
}

/* Appends one JSON cell to a vector of a primitive type. */
static int append_cell(ty_vec_t *v, const json_t *c, fl_err_t *err) {
  if (json_is_null(c)) {
    ty_vec_append_null(v);
    return FL_OK;
  }
  switch (v->type->kind) {
    case TY_INT:
    case TY_DATE: ty_vec_append_i32(v, (int32_t)json_integer_value(c)); return FL_OK;
    case TY_LONG:
    case TY_TIME:
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ: ty_vec_append_i64(v, (int64_t)json_integer_value(c)); return FL_OK;
    case TY_DOUBLE: ty_vec_append_f64(v, json_number_value(c)); return FL_OK;
    case TY_DECIMAL: {
      fl_i128 x;
      if (!json_is_string(c) || !ty_decimal_parse(json_string_value(c), json_string_length(c),
                                                  v->type->precision, v->type->scale, false, &x))
        return fl_err_set(err, FL_EINVALID, "decimal cell must be a string of the column's scale");
      ty_vec_append_i128(v, x);
      return FL_OK;
    }
    case TY_STRING:
      if (!json_is_string(c)) break;
      ty_vec_append_bytes(v, json_string_value(c), json_string_length(c));
      return FL_OK;
    default: break;
  }
  return fl_err_set(err, FL_EINVALID, "cell of unsupported type %s", ty_kind_name(v->type->kind));
}

static int serve(fl_arena_t *a, json_t *req, json_t *out, fl_err_t *err) {
  const char *schema_text = json_string_value(json_object_get(req, "schema"));
  const char *spec_text = json_string_value(json_object_get(req, "spec"));
  const char *filter = json_string_value(json_object_get(req, "filter"));
  if (!schema_text || !filter)
    return fl_err_set(err, FL_EINVALID, "schema and filter are required");
  ty_schema_t *schema;
  int rc = ty_schema_parse(a, schema_text, &schema, err);
  if (rc) return rc;
  ice_expr_t *parsed, *e;
  if ((rc = ice_expr_parse(a, filter, &parsed, err))) return rc;
  json_t *cs = json_object_get(req, "case_sensitive");
  if ((rc = ice_expr_bind(a, parsed, schema, cs ? json_is_true(cs) : true, &e, err))) return rc;
  json_object_set_new(out, "bound_text", json_string(formatted(a, e)));

  ice_spec_t *spec = NULL;
  const ty_type_t *pt = NULL;
  ice_expr_t *incl = NULL, *strict = NULL;
  if (spec_text) {
    int32_t last = 999;
    if ((rc = ice_spec_parse(a, spec_text, schema, 0, &last, &spec, err))) return rc;
    if ((rc = ice_spec_partition_type(a, spec, schema, &pt, err))) return rc;
    incl = ice_expr_project_inclusive(a, e, spec, schema, pt);
    strict = ice_expr_project_strict(a, e, spec, schema, pt);
    json_object_set_new(out, "inclusive_text", json_string(formatted(a, incl)));
    json_object_set_new(out, "strict_text", json_string(formatted(a, strict)));
  }

  json_t *rows = json_object_get(req, "rows");
  if (json_is_array(rows)) {
    size_t nrows = json_array_size(rows);
    ty_batch_t *b = ty_batch_new(schema, (uint32_t)(nrows ? nrows : 1));
    for (size_t r = 0; r < nrows; r++) {
      json_t *row = json_array_get(rows, r);
      if (json_array_size(row) != b->ncols) {
        ty_batch_free(b);
        return fl_err_set(err, FL_EINVALID, "row %zu has %zu cells for %u columns", r,
                          json_array_size(row), b->ncols);
      }
      for (uint32_t c = 0; c < b->ncols; c++)
        if ((rc = append_cell(b->cols[c], json_array_get(row, c), err))) {
          ty_batch_free(b);
          return rc;
        }
    }
    ty_batch_seal(b);
    uint32_t *sel = fl_arena_alloc(a, (nrows ? nrows : 1) * sizeof *sel), n = 0;
    rc = ice_expr_eval_batch(e, schema, b, sel, &n, err);
    if (rc) {
      ty_batch_free(b);
      return rc;
    }
    json_t *m = json_array();
    for (uint32_t i = 0; i < n; i++) json_array_append_new(m, json_integer(sel[i]));
    json_object_set_new(out, "match", m);
    if (spec) {
      json_t *parts = json_array(), *ji = json_array(), *js = json_array();
      ty_value_t *tuple = fl_arena_alloc(a, (spec->nfields + 1) * sizeof *tuple);
      for (size_t r = 0; r < nrows; r++) {
        json_t *pj = json_array();
        for (uint32_t i = 0; i < spec->nfields; i++) {
          const ice_partition_field_t *pf = &spec->fields[i];
          int col = -1;
          for (uint32_t c = 0; c < schema->root.nfields; c++)
            if (schema->root.fields[c].id == pf->source_id) col = (int)c;
          if (col < 0) {
            ty_batch_free(b);
            return fl_err_set(err, FL_EINVALID, "partition source %d is not a top-level column",
                              pf->source_id);
          }
          ty_value_t in = ty_value_from_vec(b->cols[col], (uint32_t)r);
          in.is_null = ty_vec_is_null(b->cols[col], (uint32_t)r);
          if ((rc = ice_transform_apply(&pf->transform, schema->root.fields[col].type, &in,
                                        &tuple[i], err))) {
            ty_batch_free(b);
            return rc;
          }
          if (tuple[i].is_null) {
            json_array_append_new(pj, json_null());
            continue;
          }
          fl_buf_t vb;
          fl_buf_init(&vb);
          ice_value_to_bytes(pt->fields[i].type, &tuple[i], &vb, err);
          json_array_append_new(pj, hex(vb.data, vb.len));
          fl_buf_free(&vb);
        }
        json_array_append_new(parts, pj);
        json_array_append_new(ji, json_boolean(ice_partition_eval(incl, pt, tuple)));
        json_array_append_new(js, json_boolean(ice_partition_eval(strict, pt, tuple)));
      }
      json_object_set_new(out, "partitions", parts);
      json_object_set_new(out, "inclusive", ji);
      json_object_set_new(out, "strict", js);
    }
    ty_batch_free(b);
  }

  json_t *summaries = json_object_get(req, "summaries");
  if (spec && json_is_array(summaries)) {
    ice_manifest_file_t mf = {0};
    mf.npartitions = (uint32_t)json_array_size(summaries);
    mf.partitions = fl_arena_zalloc(a, (mf.npartitions + 1) * sizeof *mf.partitions);
    for (uint32_t i = 0; i < mf.npartitions; i++) {
      json_t *sj = json_array_get(summaries, i);
      ice_field_summary_t *fs = &mf.partitions[i];
      fs->contains_null = json_is_true(json_object_get(sj, "contains_null"));
      json_t *nan = json_object_get(sj, "contains_nan");
      fs->contains_nan = json_is_boolean(nan) ? json_is_true(nan) : -1;
      const char *lo = json_string_value(json_object_get(sj, "lo"));
      const char *hi = json_string_value(json_object_get(sj, "hi"));
      if ((lo && !unhex(a, lo, &fs->lower)) || (hi && !unhex(a, hi, &fs->upper)))
        return fl_err_set(err, FL_EINVALID, "summary %u: bounds are not hex", i);
    }
    json_object_set_new(out, "manifest", json_boolean(ice_manifest_might_match(incl, pt, &mf)));
  }

  json_t *metrics = json_object_get(req, "metrics");
  if (json_is_array(metrics)) {
    ice_data_file_t f = {0};
    f.record_count = json_integer_value(json_object_get(req, "record_count"));
    f.ncols = (uint32_t)json_array_size(metrics);
    f.cols = fl_arena_zalloc(a, (f.ncols + 1) * sizeof *f.cols);
    for (uint32_t i = 0; i < f.ncols; i++) {
      json_t *mj = json_array_get(metrics, i);
      ice_col_metrics_t *c = &f.cols[i];
      c->field_id = (int32_t)json_integer_value(json_object_get(mj, "id"));
      c->value_count = json_integer_value(json_object_get(mj, "vc"));
      c->null_count = json_integer_value(json_object_get(mj, "nc"));
      c->nan_count = json_integer_value(json_object_get(mj, "nanc"));
      c->column_size = -1;
      const char *lo = json_string_value(json_object_get(mj, "lo"));
      const char *hi = json_string_value(json_object_get(mj, "hi"));
      if ((lo && !unhex(a, lo, &c->lower)) || (hi && !unhex(a, hi, &c->upper)))
        return fl_err_set(err, FL_EINVALID, "metrics %u: bounds are not hex", i);
    }
    json_object_set_new(out, "might", json_boolean(ice_metrics_might_match(e, schema, &f)));
    json_object_set_new(out, "must", json_boolean(ice_metrics_must_match(e, schema, &f)));
  }
  return FL_OK;
}

int main(void) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, stdin)) > 0) {
    json_error_t jerr;
    json_t *req = json_loadb(line, (size_t)len, 0, &jerr);
    json_t *out = json_object();
    if (!req) {
      json_object_set_new(out, "error", json_string(jerr.text));
    } else {
      fl_arena_t *a = fl_arena_new(0);
      fl_err_t err = {0};
      if (serve(a, req, out, &err)) {
        json_object_clear(out);
        json_object_set_new(out, "error", json_string(err.msg));
      }
      fl_arena_free(a);
      json_decref(req);
    }
    char *s = json_dumps(out, JSON_COMPACT);
    fputs(s, stdout);
    fputc('\n', stdout);
    fflush(stdout);
    free(s);
    json_decref(out);
  }
  free(line);
  return 0;
}
