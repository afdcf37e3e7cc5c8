/*
 * op_meta_scan.c - the scan of an Iceberg metadata table ("t$snapshots",
 * "t$files", ...) as a pipeline source (layer 8, exec).
 *
 * Algorithm: the binder marked the scan node with the metadata table's
 * kind and chose its columns from sql_meta_layout (sql/sql_meta.h); the
 * projection may since have pruned them. run() takes the layout again,
 * points each layout column at the output vector of the same name (NULL
 * for pruned ones, which are then not built), and walks the table's
 * metadata: the snapshots, snapshot log, refs, properties and metadata log
 * from the metadata file; the manifest list of the chosen snapshot (the
 * scan's snapshot id or ref, else the current one) and its manifests for
 * $manifests, $files, $entries and $partitions; every snapshot's list for
 * $all_manifests. One row is appended to every output vector at a time;
 * full batches of TY_BATCH_ROWS rows are pushed as they fill. Values
 * follow Trino's Iceberg connector: bounds as the identity transform's
 * human text, readable_metrics as compact JSON of the single-value JSON
 * forms, $partitions grouped over live data files.
 *
 * States: built (nothing read), READING during run() (metadata read, rows
 * appended and pushed), DONE after the consumer is finished. Manifests are
 * read into a scratch arena the source frees when destroyed.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "exec/ex_plan.h"
#include "exec/op_basic.h"
#include "format/json/json_text.h"
#include "iceberg/ice_commit.h"
#include "iceberg/ice_conv.h"
#include "iceberg/ice_manifest.h"
#include "sql/sql_meta.h"

typedef struct meta_src {
  ex_source_t src;
  fl_arena_t *scratch; /* manifests read, owned */
  const sql_plan_t *p;
  ice_table_t *t;
  sql_meta_layout_t l;
  ty_batch_t *batch;
  ty_vec_t **col; /* per layout column: the output vector, or NULL when pruned */
  fl_buf_t buf;
} meta_src_t;

/* ---- appending one value (v NULL: the column is not read) ---- */

static void put_null(ty_vec_t *v) {
  if (v) ty_vec_append_null(v);
}
static void put_i32(ty_vec_t *v, int32_t x) {
  if (v) ty_vec_append_i32(v, x);
}
static void put_i64(ty_vec_t *v, int64_t x) {
  if (v) ty_vec_append_i64(v, x);
}
/* A count or id where -1 marks its absence. */
static void put_opt(ty_vec_t *v, int64_t x) {
  if (!v) return;
  if (x < 0)
    ty_vec_append_null(v);
  else if (v->type->kind == TY_INT)
    ty_vec_append_i32(v, (int32_t)x);
  else
    ty_vec_append_i64(v, x);
}
static void put_bool(ty_vec_t *v, bool x) {
  if (v) ty_vec_append_bool(v, x);
}
static void put_str(ty_vec_t *v, const char *s) {
  if (!v) return;
  if (s)
    ty_vec_append_bytes(v, s, strlen(s));
  else
    ty_vec_append_null(v);
}
static void put_ms(ty_vec_t *v, int64_t ms) { put_i64(v, ms * 1000); }

/* A primitive value into a vector of its storage kind. */
static void put_value(ty_vec_t *v, const ty_value_t *x) {
  if (!v) return;
  if (!x || x->is_null) {
    ty_vec_append_null(v);
    return;
  }
  switch (v->type->kind) {
    case TY_BOOLEAN: ty_vec_append_bool(v, x->u.b); return;
    case TY_INT:
    case TY_DATE: ty_vec_append_i32(v, x->u.i32); return;
    case TY_LONG:
    case TY_TIME:
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
      ty_vec_append_i64(v, x->kind == TY_INT || x->kind == TY_DATE ? x->u.i32 : x->u.i64);
      return;
    case TY_FLOAT: ty_vec_append_f32(v, x->u.f32); return;
    case TY_DOUBLE: ty_vec_append_f64(v, x->kind == TY_FLOAT ? x->u.f32 : x->u.f64); return;
    case TY_DECIMAL: ty_vec_append_i128(v, x->u.i128); return;
    case TY_STRING:
    case TY_BINARY:
    case TY_UUID:
    case TY_FIXED: ty_vec_append_bytes(v, x->u.bytes.p, x->u.bytes.n); return;
    default: ty_vec_append_null(v); return;
  }
}

static ty_vec_t *col(meta_src_t *m, const char *name) {
  for (uint32_t i = 0; i < m->l.ncols; i++)
    if (strcmp(m->l.cols[i].name, name) == 0) return m->col[i];
  return NULL;
}

/* Counts the row; pushes the batch when it is full. */
static int end_row(meta_src_t *m, fl_err_t *err) {
  if (++m->batch->nrows < TY_BATCH_ROWS) return FL_OK;
  int rc = ex_op_push(m->src.next, m->batch, err);
  ty_batch_reset(m->batch);
  m->batch->nrows = 0;
  return rc;
}

/* The snapshot the scan describes: its id or ref, else the current one. */
static const ice_snapshot_t *chosen_snapshot(const meta_src_t *m) {
  const ice_meta_t *md = m->t->meta;
  if (m->p->u.scan.snapshot_id >= 0) return ice_meta_snapshot(md, m->p->u.scan.snapshot_id);
  if (m->p->u.scan.ref) {
    const ice_ref_t *r = ice_meta_ref(md, m->p->u.scan.ref);
    return r ? ice_meta_snapshot(md, r->snapshot_id) : NULL;
  }
  return ice_meta_current_snapshot(md);
}

/* ---- $snapshots, $history, $refs, $properties, $metadata_log_entries ---- */

static int rows_snapshots(meta_src_t *m, fl_err_t *err) {
  const ice_meta_t *md = m->t->meta;
  ty_vec_t *at = col(m, "committed_at"), *id = col(m, "snapshot_id"), *par = col(m, "parent_id"),
           *op = col(m, "operation"), *ml = col(m, "manifest_list"), *sum = col(m, "summary");
  for (uint32_t i = 0; i < md->nsnapshots; i++) {
    const ice_snapshot_t *s = &md->snapshots[i];
    put_ms(at, s->timestamp_ms);
    put_i64(id, s->snapshot_id);
    put_opt(par, s->parent_id);
    put_str(op, ice_snapshot_operation(s));
    put_str(ml, s->manifest_list);
    if (sum) {
      /* Java keeps the operation out of the summary map. */
      for (uint32_t k = 0; k < s->nsummary; k++) {
        if (strcmp(s->summary[k].key, "operation") == 0) continue;
        put_str(sum->children[0], s->summary[k].key);
        put_str(sum->children[1], s->summary[k].value);
      }
      ty_vec_append_list_end(sum);
    }
    int rc = end_row(m, err);
    if (rc) return rc;
  }
  return FL_OK;
}

typedef struct id_set {
  int64_t *ids;
  size_t n, cap;
} id_set_t;

static bool add_id(const ice_snapshot_t *s, void *arg) {
  id_set_t *set = arg;
  if (set->n == set->cap) {
    set->cap = set->cap ? set->cap * 2 : 64;
    set->ids = fl_realloc(set->ids, set->cap * sizeof *set->ids);
  }
  set->ids[set->n++] = s->snapshot_id;
  return true;
}

static int rows_history(meta_src_t *m, fl_err_t *err) {
  const ice_meta_t *md = m->t->meta;
  ty_vec_t *at = col(m, "made_current_at"), *id = col(m, "snapshot_id"), *par = col(m, "parent_id"),
           *anc = col(m, "is_current_ancestor");
  id_set_t set = {0};
  if (md->current_snapshot_id >= 0) ice_table_ancestors(md, md->current_snapshot_id, add_id, &set);
  int rc = FL_OK;
  /* Trino lists every snapshot with the time it was committed. */
  for (uint32_t i = 0; i < md->nsnapshots && !rc; i++) {
    const ice_snapshot_t *s = &md->snapshots[i];
    bool is_anc = false;
    for (size_t k = 0; k < set.n && !is_anc; k++) is_anc = set.ids[k] == s->snapshot_id;
    put_ms(at, s->timestamp_ms);
    put_i64(id, s->snapshot_id);
    put_opt(par, s->parent_id);
    put_bool(anc, is_anc);
    rc = end_row(m, err);
  }
  fl_free(set.ids);
  return rc;
}

static int ref_row(meta_src_t *m, const ice_ref_t *r, fl_err_t *err) {
  put_str(col(m, "name"), r->name);
  put_str(col(m, "type"), r->is_tag ? "TAG" : "BRANCH");
  put_i64(col(m, "snapshot_id"), r->snapshot_id);
  put_opt(col(m, "max_reference_age_in_ms"), r->max_ref_age_ms);
  put_opt(col(m, "min_snapshots_to_keep"), r->min_snapshots_to_keep);
  put_opt(col(m, "max_snapshot_age_in_ms"), r->max_snapshot_age_ms);
  return end_row(m, err);
}

static int rows_refs(meta_src_t *m, fl_err_t *err) {
  const ice_meta_t *md = m->t->meta;
  int rc;
  if (!ice_meta_ref(md, "main") && md->current_snapshot_id >= 0) {
    /* v1 tables and old writers keep main only as current-snapshot-id. */
    ice_ref_t main = {.name = "main",
                      .snapshot_id = md->current_snapshot_id,
                      .max_ref_age_ms = -1,
                      .max_snapshot_age_ms = -1,
                      .min_snapshots_to_keep = -1};
    if ((rc = ref_row(m, &main, err))) return rc;
  }
  for (uint32_t i = 0; i < md->nrefs; i++)
    if ((rc = ref_row(m, &md->refs[i], err))) return rc;
  return FL_OK;
}

static int prop_row(meta_src_t *m, const char *k, const char *v, fl_err_t *err) {
  put_str(col(m, "key"), k);
  put_str(col(m, "value"), v);
  return end_row(m, err);
}

static int rows_properties(meta_src_t *m, fl_err_t *err) {
  const ice_meta_t *md = m->t->meta;
  fl_arena_t *a = m->scratch;
  /* Trino's derived entries first, then the table's own properties. */
  const char *fmt = ice_meta_property(md, "write.format.default");
  const char *cur = md->current_snapshot_id >= 0
                        ? fl_arena_sprintf(a, "%lld", (long long)md->current_snapshot_id)
                        : "none";
  int rc;
  if ((rc = prop_row(m, "format", fl_arena_sprintf(a, "iceberg/%s", fmt ? fmt : "parquet"), err)) ||
      (rc = prop_row(m, "provider", "iceberg", err)) ||
      (rc = prop_row(m, "current-snapshot-id", cur, err)) ||
      (rc = prop_row(m, "location", md->location, err)) ||
      (rc = prop_row(m, "format-version", fl_arena_sprintf(a, "%d", md->format_version), err)))
    return rc;
  const ice_sort_order_t *so = ice_meta_sort_order(md);
  if (so && so->nfields) {
    /* sort-order: "a, b DESC NULLS LAST" when every field is an identity. */
    fl_buf_t b;
    fl_buf_init(&b);
    bool ok = true;
    for (uint32_t i = 0; i < so->nfields && ok; i++) {
      const ice_sort_field_t *f = &so->fields[i];
      const ty_field_t *src = ty_schema_find_id(ice_meta_schema(md), f->source_id);
      ok = f->transform.kind == ICE_T_IDENTITY && src;
      if (!ok) break;
      if (i) fl_buf_append_str(&b, ", ");
      fl_buf_append_str(&b, src->name);
      if (f->descending) fl_buf_append_str(&b, " DESC");
      if (!f->descending && !f->nulls_first) fl_buf_append_str(&b, " NULLS LAST");
      if (f->descending && f->nulls_first) fl_buf_append_str(&b, " NULLS FIRST");
    }
    char *text = fl_arena_strndup(a, (const char *)b.data, b.len);
    fl_buf_free(&b);
    if (ok && (rc = prop_row(m, "sort-order", text, err))) return rc;
  }
  static const char *const reserved[] = {"provider", "format", "current-snapshot-id", "location",
                                         "format-version"};
  for (uint32_t i = 0; i < md->nproperties; i++) {
    bool skip = false;
    for (size_t k = 0; k < sizeof reserved / sizeof *reserved && !skip; k++)
      skip = strcmp(md->properties[i].key, reserved[k]) == 0;
    if (!skip && (rc = prop_row(m, md->properties[i].key, md->properties[i].value, err))) return rc;
  }
  return FL_OK;
}

/* The snapshot of main's log that was current at ts_ms (NULL: none). */
static const ice_snapshot_t *current_at(const ice_meta_t *md, int64_t ts_ms) {
  const ice_snapshot_t *s = NULL;
  for (uint32_t i = 0; i < md->nsnapshot_log; i++)
    if (md->snapshot_log[i].timestamp_ms <= ts_ms) {
      const ice_snapshot_t *x = ice_meta_snapshot(md, md->snapshot_log[i].snapshot_id);
      if (x) s = x;
    }
  return s;
}

static int log_row(meta_src_t *m, int64_t ts_ms, const char *file, fl_err_t *err) {
  const ice_meta_t *md = m->t->meta;
  const ice_snapshot_t *s = current_at(md, ts_ms);
  put_ms(col(m, "timestamp"), ts_ms);
  put_str(col(m, "file"), file);
  put_opt(col(m, "latest_snapshot_id"), s ? s->snapshot_id : -1);
  put_opt(col(m, "latest_schema_id"), s ? s->schema_id : -1);
  put_opt(col(m, "latest_sequence_number"), s ? s->sequence_number : -1);
  return end_row(m, err);
}

static int rows_metadata_log(meta_src_t *m, fl_err_t *err) {
  const ice_meta_t *md = m->t->meta;
  int rc;
  for (uint32_t i = 0; i < md->nmetadata_log; i++)
    if ((rc = log_row(m, md->metadata_log[i].timestamp_ms, md->metadata_log[i].file, err)))
      return rc;
  return log_row(m, md->last_updated_ms, m->t->metadata_location, err);
}

/* ---- manifests ---- */

static const char *human(meta_src_t *m, const ty_type_t *t, const ice_transform_t *tr,
                         const ice_bytes_t *b) {
  if (!b->p) return NULL;
  ty_value_t v;
  fl_err_t e2;
  if (ice_value_from_bytes(m->scratch, t, b->p, b->n, "bound", &v, &e2)) return NULL;
  fl_buf_clear(&m->buf);
  ice_transform_human(tr, t, &v, &m->buf);
  return fl_arena_strndup(m->scratch, (const char *)m->buf.data, m->buf.len);
}

static void put_summaries(meta_src_t *m, ty_vec_t *v, const ice_manifest_file_t *mf) {
  if (!v) return;
  const ice_meta_t *md = m->t->meta;
  const ice_spec_t *spec = ice_meta_spec_by_id(md, mf->spec_id);
  const ty_type_t *pt = NULL;
  fl_err_t e2;
  if (spec && ice_spec_partition_type(m->scratch, spec, ice_meta_schema(md), &pt, &e2)) pt = NULL;
  ty_vec_t *row = v->children[0];
  for (uint32_t i = 0; i < mf->npartitions; i++) {
    const ice_field_summary_t *fs = &mf->partitions[i];
    bool known = spec && pt && i < spec->nfields && i < pt->nfields;
    put_bool(row->children[0], fs->contains_null);
    if (fs->contains_nan < 0)
      put_null(row->children[1]);
    else
      put_bool(row->children[1], fs->contains_nan == 1);
    put_str(row->children[2],
            known ? human(m, pt->fields[i].type, &spec->fields[i].transform, &fs->lower) : NULL);
    put_str(row->children[3],
            known ? human(m, pt->fields[i].type, &spec->fields[i].transform, &fs->upper) : NULL);
    ty_vec_append_struct(row);
  }
  ty_vec_append_list_end(v);
}

static int rows_manifests(meta_src_t *m, const ice_snapshot_t *s, bool all, fl_err_t *err) {
  ice_manifest_file_t *mfs;
  size_t n;
  int rc = ice_snapshot_manifests(m->t, m->scratch, s, &mfs, &n, err);
  if (rc) return rc;
  for (size_t i = 0; i < n; i++) {
    const ice_manifest_file_t *mf = &mfs[i];
    bool data = mf->content == 0;
    put_i32(col(m, "content"), mf->content);
    put_str(col(m, "path"), mf->path);
    put_i64(col(m, "length"), mf->length);
    put_i32(col(m, "partition_spec_id"), mf->spec_id);
    put_opt(col(m, "added_snapshot_id"), mf->added_snapshot_id);
    if (all) {
      put_i32(col(m, "added_data_files_count"), data ? mf->added_files : 0);
      put_i32(col(m, "existing_data_files_count"), data ? mf->existing_files : 0);
      put_i32(col(m, "deleted_data_files_count"), data ? mf->deleted_files : 0);
      put_i32(col(m, "added_delete_files_count"), data ? 0 : mf->added_files);
      put_i32(col(m, "existing_delete_files_count"), data ? 0 : mf->existing_files);
      put_i32(col(m, "deleted_delete_files_count"), data ? 0 : mf->deleted_files);
      put_summaries(m, col(m, "partition_summaries"), mf);
      put_i64(col(m, "reference_snapshot_id"), s->snapshot_id);
    } else {
      put_opt(col(m, "added_data_files_count"), mf->added_files);
      put_opt(col(m, "added_rows_count"), mf->added_rows);
      put_opt(col(m, "existing_data_files_count"), mf->existing_files);
      put_opt(col(m, "existing_rows_count"), mf->existing_rows);
      put_opt(col(m, "deleted_data_files_count"), mf->deleted_files);
      put_opt(col(m, "deleted_rows_count"), mf->deleted_rows);
      put_summaries(m, col(m, "partition_summaries"), mf);
    }
    if ((rc = end_row(m, err))) return rc;
  }
  return FL_OK;
}

/* ---- data files ---- */

/* The value of partition field field_id in a file's tuple (NULL: none). */
static const ty_value_t *part_value(const meta_src_t *m, const ice_data_file_t *f,
                                    int32_t field_id) {
  const ice_spec_t *spec = ice_meta_spec_by_id(m->t->meta, f->spec_id);
  for (uint32_t i = 0; spec && i < spec->nfields && i < f->npartition; i++)
    if (spec->fields[i].field_id == field_id) return &f->partition[i];
  return NULL;
}

static void put_partition(meta_src_t *m, ty_vec_t *v, const ice_data_file_t *f) {
  if (!v) return;
  for (uint32_t j = 0; j < m->l.nparts; j++)
    put_value(v->children[j], part_value(m, f, m->l.parts[j].field_id));
  ty_vec_append_struct(v);
}

/* The type of a column a bound or metric names: the current schema's, or
 * the reserved columns of position delete files. */
static const ty_type_t *field_type(const meta_src_t *m, int32_t id) {
  const ty_field_t *f = ty_schema_find_id(ice_meta_schema(m->t->meta), id);
  if (f) return ty_is_nested(f->type) ? NULL : f->type;
  if (id == 2147483546) return ty_primitive(TY_STRING); /* file_path */
  if (id == 2147483545) return ty_primitive(TY_LONG);   /* pos */
  return NULL;
}

enum { M_SIZE, M_VALUES, M_NULLS, M_NANS };

static void put_count_map(ty_vec_t *v, const ice_data_file_t *f, int which) {
  if (!v) return;
  bool any = false;
  for (uint32_t i = 0; i < f->ncols; i++) {
    const ice_col_metrics_t *c = &f->cols[i];
    int64_t x = which == M_SIZE     ? c->column_size
                : which == M_VALUES ? c->value_count
                : which == M_NULLS  ? c->null_count
                                    : c->nan_count;
    if (x < 0) continue;
    ty_vec_append_i32(v->children[0], c->field_id);
    ty_vec_append_i64(v->children[1], x);
    any = true;
  }
  if (any)
    ty_vec_append_list_end(v);
  else
    ty_vec_append_null(v);
}

static void put_bound_map(meta_src_t *m, ty_vec_t *v, const ice_data_file_t *f, bool upper) {
  if (!v) return;
  static const ice_transform_t identity = {.kind = ICE_T_IDENTITY};
  bool any = false;
  for (uint32_t i = 0; i < f->ncols; i++) {
    const ice_col_metrics_t *c = &f->cols[i];
    const ice_bytes_t *b = upper ? &c->upper : &c->lower;
    const ty_type_t *t = b->p ? field_type(m, c->field_id) : NULL;
    const char *text = t ? human(m, t, &identity, b) : NULL;
    if (!text) continue;
    ty_vec_append_i32(v->children[0], c->field_id);
    ty_vec_append_bytes(v->children[1], text, strlen(text));
    any = true;
  }
  if (any)
    ty_vec_append_list_end(v);
  else
    ty_vec_append_null(v);
}

static void json_count(fl_buf_t *b, const char *key, int64_t x) {
  fl_buf_printf(b, "\"%s\":", key);
  if (x < 0)
    fl_buf_append_str(b, "null");
  else
    fl_buf_printf(b, "%lld", (long long)x);
}

static void json_bound(meta_src_t *m, fl_buf_t *b, const char *key, const ty_type_t *t,
                       const ice_bytes_t *x) {
  fl_buf_printf(b, "\"%s\":", key);
  ty_value_t v;
  json_t *j = NULL;
  fl_err_t e2;
  char *text = NULL;
  if (x->p && !ice_value_from_bytes(m->scratch, t, x->p, x->n, "bound", &v, &e2) &&
      !ice_value_to_json(t, &v, &j, &e2))
    text = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
  fl_buf_append_str(b, text ? text : "null");
  free(text);
  if (j) json_decref(j);
}

/* readable_metrics: {"col": {"column_size": .., "value_count": .., "null_value_count": ..,
 * "nan_value_count": .., "lower_bound": .., "upper_bound": ..}, ...} by column name. */
static void put_readable(meta_src_t *m, ty_vec_t *v, const ice_data_file_t *f) {
  if (!v) return;
  fl_buf_t b;
  fl_buf_init(&b);
  fl_buf_append_u8(&b, '{');
  for (uint32_t i = 0; i < m->l.nprims; i++) {
    const sql_meta_col_t *p = &m->l.prims[i];
    const ice_col_metrics_t *c = ice_data_file_col(f, p->field_id);
    static const ice_bytes_t none = {0};
    if (i) fl_buf_append_u8(&b, ',');
    js_append_string(&b, (const uint8_t *)p->name, strlen(p->name));
    fl_buf_append_str(&b, ":{");
    json_count(&b, "column_size", c ? c->column_size : -1);
    fl_buf_append_u8(&b, ',');
    json_count(&b, "value_count", c ? c->value_count : -1);
    fl_buf_append_u8(&b, ',');
    json_count(&b, "null_value_count", c ? c->null_count : -1);
    fl_buf_append_u8(&b, ',');
    json_count(&b, "nan_value_count", c ? c->nan_count : -1);
    fl_buf_append_u8(&b, ',');
    json_bound(m, &b, "lower_bound", p->type, c ? &c->lower : &none);
    fl_buf_append_u8(&b, ',');
    json_bound(m, &b, "upper_bound", p->type, c ? &c->upper : &none);
    fl_buf_append_u8(&b, '}');
  }
  fl_buf_append_u8(&b, '}');
  ty_vec_append_bytes(v, b.data, b.len);
  fl_buf_free(&b);
}

/* The data_file columns, into the vectors the caller found (by name in
 * $files, as fields of the data_file row in $entries). */
typedef struct file_cols {
  ty_vec_t *content, *path, *format, *spec, *partition, *records, *size, *sizes, *values, *nulls,
      *nans, *lower, *upper, *key, *splits, *eq, *sort;
} file_cols_t;

static void put_file(meta_src_t *m, const file_cols_t *c, const ice_data_file_t *f) {
  put_i32(c->content, (int32_t)f->content);
  put_str(c->path, f->path);
  put_str(c->format, f->format);
  put_i32(c->spec, f->spec_id);
  put_partition(m, c->partition, f);
  put_i64(c->records, f->record_count);
  put_i64(c->size, f->file_size);
  put_count_map(c->sizes, f, M_SIZE);
  put_count_map(c->values, f, M_VALUES);
  put_count_map(c->nulls, f, M_NULLS);
  put_count_map(c->nans, f, M_NANS);
  put_bound_map(m, c->lower, f, false);
  put_bound_map(m, c->upper, f, true);
  if (c->key) {
    if (f->key_metadata.p)
      ty_vec_append_bytes(c->key, f->key_metadata.p, f->key_metadata.n);
    else
      ty_vec_append_null(c->key);
  }
  if (c->splits) {
    if (f->split_offsets) {
      for (uint32_t i = 0; i < f->nsplit_offsets; i++)
        ty_vec_append_i64(c->splits->children[0], f->split_offsets[i]);
      ty_vec_append_list_end(c->splits);
    } else {
      ty_vec_append_null(c->splits);
    }
  }
  if (c->eq) {
    /* Only equality delete files carry equality ids. */
    if (f->content == ICE_CONTENT_EQUALITY_DELETES && f->equality_ids) {
      for (uint32_t i = 0; i < f->nequality_ids; i++)
        ty_vec_append_i32(c->eq->children[0], f->equality_ids[i]);
      ty_vec_append_list_end(c->eq);
    } else {
      ty_vec_append_null(c->eq);
    }
  }
  /* Position delete files have no sort order. */
  put_opt(c->sort, f->content == ICE_CONTENT_POSITION_DELETES ? -1 : f->sort_order_id);
}

static ty_vec_t *child(ty_vec_t *row, const sql_dtype_t *t, const char *name) {
  if (!row) return NULL;
  for (uint32_t i = 0; i < t->nfields; i++)
    if (strcmp(t->fields[i].name, name) == 0) return row->children[i];
  return NULL;
}

/* The data_file columns: by name in $files (row NULL), else fields of row. */
static file_cols_t file_cols(meta_src_t *m, ty_vec_t *row, const sql_dtype_t *rt) {
#define FC(name) (rt ? child(row, rt, name) : col(m, name))
  file_cols_t c = {
      FC("content"),      FC("file_path"),         FC("file_format"),        FC("spec_id"),
      FC("partition"),    FC("record_count"),      FC("file_size_in_bytes"), FC("column_sizes"),
      FC("value_counts"), FC("null_value_counts"), FC("nan_value_counts"),   FC("lower_bounds"),
      FC("upper_bounds"), FC("key_metadata"),      FC("split_offsets"),      FC("equality_ids"),
      FC("sort_order_id")};
#undef FC
  return c;
}

/* Every entry of the chosen snapshot's manifests; live_only for $files. */
static int rows_entries(meta_src_t *m, const ice_snapshot_t *s, bool live_only, fl_err_t *err) {
  ice_manifest_file_t *mfs;
  size_t n;
  int rc = ice_snapshot_manifests(m->t, m->scratch, s, &mfs, &n, err);
  if (rc) return rc;
  ty_vec_t *df = live_only ? NULL : col(m, "data_file");
  const sql_dtype_t *dft = NULL;
  for (uint32_t i = 0; i < m->l.ncols; i++)
    if (strcmp(m->l.cols[i].name, "data_file") == 0) dft = &m->l.cols[i].type;
  file_cols_t fc = live_only ? file_cols(m, NULL, NULL) : file_cols(m, df, dft);
  ty_vec_t *rm = col(m, "readable_metrics"), *st = col(m, "status"), *sid = col(m, "snapshot_id"),
           *seq = col(m, "sequence_number"), *fseq = col(m, "file_sequence_number");
  for (size_t i = 0; i < n; i++) {
    ice_manifest_entry_t *es;
    size_t ne;
    if ((rc = ice_manifest_entries(m->t, m->scratch, &mfs[i], &es, &ne, err))) return rc;
    for (size_t j = 0; j < ne; j++) {
      const ice_manifest_entry_t *e = &es[j];
      if (live_only && e->status == ICE_STATUS_DELETED) continue;
      if (!live_only) {
        put_i32(st, (int32_t)e->status);
        put_opt(sid, e->snapshot_id);
        put_opt(seq, e->sequence_number);
        put_opt(fseq, e->file_sequence_number);
      }
      put_file(m, &fc, &e->file);
      if (df) ty_vec_append_struct(df);
      put_readable(m, rm, &e->file);
      if ((rc = end_row(m, err))) return rc;
    }
  }
  return FL_OK;
}

/* ---- $partitions ---- */

typedef struct col_stats {
  bool has_min, has_max;
  ty_value_t min, max;
  int64_t nulls, nans; /* -1: no file told */
} col_stats_t;

typedef struct part_group {
  const ice_data_file_t *first; /* gives the partition values */
  int64_t records, files, bytes;
  col_stats_t *stats; /* per metric column */
} part_group_t;

static bool same_partition(const meta_src_t *m, const ice_data_file_t *a,
                           const ice_data_file_t *b) {
  for (uint32_t j = 0; j < m->l.nparts; j++) {
    const ty_value_t *x = part_value(m, a, m->l.parts[j].field_id);
    const ty_value_t *y = part_value(m, b, m->l.parts[j].field_id);
    bool xn = !x || x->is_null, yn = !y || y->is_null;
    if (xn != yn) return false;
    if (!xn && (x->kind != y->kind || ty_value_cmp(x, y) != 0)) return false;
  }
  return true;
}

static void add_stats(meta_src_t *m, col_stats_t *cs, const sql_meta_col_t *mc,
                      const ice_data_file_t *f) {
  const ice_col_metrics_t *c = ice_data_file_col(f, mc->field_id);
  if (!c) return;
  ty_value_t v;
  fl_err_t e2;
  if (c->lower.p &&
      !ice_value_from_bytes(m->scratch, mc->type, c->lower.p, c->lower.n, "bound", &v, &e2) &&
      (!cs->has_min || ty_value_cmp(&v, &cs->min) < 0)) {
    cs->min = v;
    cs->has_min = true;
  }
  if (c->upper.p &&
      !ice_value_from_bytes(m->scratch, mc->type, c->upper.p, c->upper.n, "bound", &v, &e2) &&
      (!cs->has_max || ty_value_cmp(&v, &cs->max) > 0)) {
    cs->max = v;
    cs->has_max = true;
  }
  if (c->null_count >= 0) cs->nulls = (cs->nulls < 0 ? 0 : cs->nulls) + c->null_count;
  if (c->nan_count >= 0) cs->nans = (cs->nans < 0 ? 0 : cs->nans) + c->nan_count;
}

static int rows_partitions(meta_src_t *m, const ice_snapshot_t *s, fl_err_t *err) {
  ice_manifest_entry_t *es;
  size_t n;
  int rc = ice_snapshot_entries(m->t, m->scratch, s, &es, &n, err);
  if (rc) return rc;
  part_group_t *g = fl_arena_zalloc(m->scratch, (n ? n : 1) * sizeof *g);
  size_t ng = 0;
  uint32_t nm = m->l.nmetrics;
  for (size_t i = 0; i < n; i++) {
    const ice_data_file_t *f = &es[i].file;
    if (f->content != ICE_CONTENT_DATA) continue;
    part_group_t *pg = NULL;
    for (size_t k = 0; k < ng && !pg; k++)
      if (same_partition(m, g[k].first, f)) pg = &g[k];
    if (!pg) {
      pg = &g[ng++];
      pg->first = f;
      pg->stats = fl_arena_zalloc(m->scratch, (nm ? nm : 1) * sizeof *pg->stats);
      for (uint32_t k = 0; k < nm; k++) pg->stats[k].nulls = pg->stats[k].nans = -1;
    }
    pg->records += f->record_count;
    pg->files++;
    pg->bytes += f->file_size;
    for (uint32_t k = 0; k < nm; k++) add_stats(m, &pg->stats[k], &m->l.metrics[k], f);
  }
  ty_vec_t *part = col(m, "partition"), *data = col(m, "data");
  for (size_t k = 0; k < ng; k++) {
    put_partition(m, part, g[k].first);
    put_i64(col(m, "record_count"), g[k].records);
    put_i64(col(m, "file_count"), g[k].files);
    put_i64(col(m, "total_size"), g[k].bytes);
    if (data) {
      for (uint32_t c = 0; c < nm; c++) {
        const col_stats_t *cs = &g[k].stats[c];
        ty_vec_t *r = data->children[c];
        if (!cs->has_min && !cs->has_max && cs->nulls < 0) {
          ty_vec_append_null(r);
          continue;
        }
        put_value(r->children[0], cs->has_min ? &cs->min : NULL);
        put_value(r->children[1], cs->has_max ? &cs->max : NULL);
        put_opt(r->children[2], cs->nulls);
        put_opt(r->children[3], cs->nans);
        ty_vec_append_struct(r);
      }
      ty_vec_append_struct(data);
    }
    if ((rc = end_row(m, err))) return rc;
  }
  return FL_OK;
}

/* ---- the source ---- */

static int meta_rows(meta_src_t *m, fl_err_t *err) {
  const ice_snapshot_t *s = chosen_snapshot(m);
  switch ((sql_meta_kind_t)m->p->u.scan.meta) {
    case SQL_META_SNAPSHOTS: return rows_snapshots(m, err);
    case SQL_META_HISTORY: return rows_history(m, err);
    case SQL_META_REFS: return rows_refs(m, err);
    case SQL_META_PROPERTIES: return rows_properties(m, err);
    case SQL_META_METADATA_LOG_ENTRIES: return rows_metadata_log(m, err);
    case SQL_META_MANIFESTS: return s ? rows_manifests(m, s, false, err) : FL_OK;
    case SQL_META_ALL_MANIFESTS:
      for (uint32_t i = 0; i < m->t->meta->nsnapshots; i++) {
        int rc = rows_manifests(m, &m->t->meta->snapshots[i], true, err);
        if (rc) return rc;
      }
      return FL_OK;
    case SQL_META_FILES: return s ? rows_entries(m, s, true, err) : FL_OK;
    case SQL_META_ENTRIES: return s ? rows_entries(m, s, false, err) : FL_OK;
    case SQL_META_PARTITIONS: return s ? rows_partitions(m, s, err) : FL_OK;
    default:
      return fl_err_set(err, FL_EINTERNAL, "unknown metadata table kind %d", m->p->u.scan.meta);
  }
}

static int meta_run(ex_source_t *s, fl_err_t *err) {
  meta_src_t *m = (meta_src_t *)s;
  int rc = meta_rows(m, err);
  if (!rc && m->batch->nrows) rc = ex_op_push(s->next, m->batch, err);
  if (rc) return rc;
  return ex_op_finish(s->next, err);
}

static void meta_destroy(ex_source_t *s) {
  meta_src_t *m = (meta_src_t *)s;
  ty_batch_free(m->batch);
  fl_arena_free(m->scratch);
  fl_buf_free(&m->buf);
  fl_free(m);
}

int ex_meta_source_new(fl_arena_t *a, const sql_plan_t *p, const ty_schema_t *schema, ex_op_t *next,
                       const bool *stop, ex_source_t **out, fl_err_t *err) {
  sql_resolver_t r;
  ex_sql_resolver(&r, a);
  sql_meta_layout_t l;
  int rc = sql_meta_layout(a, (sql_meta_kind_t)p->u.scan.meta, p->u.scan.table, &r, &l, err);
  if (rc) return rc;
  meta_src_t *m = fl_calloc(1, sizeof *m);
  m->src.run = meta_run;
  m->src.destroy = meta_destroy;
  m->src.next = next;
  m->src.stop = stop;
  m->scratch = fl_arena_new(0);
  m->p = p;
  m->t = p->u.scan.table;
  m->l = l;
  fl_buf_init(&m->buf);
  m->batch = ty_batch_new(schema, TY_BATCH_ROWS);
  m->col = fl_arena_zalloc(a, (l.ncols ? l.ncols : 1) * sizeof *m->col);
  for (uint32_t j = 0; j < p->ncols; j++) {
    uint32_t i = 0;
    while (i < l.ncols && strcmp(l.cols[i].name, p->u.scan.columns[j]) != 0) i++;
    if (i == l.ncols || m->col[i]) {
      meta_destroy(&m->src);
      return fl_err_set(err, FL_EINTERNAL, "%s has no column %s to read", p->u.scan.ident,
                        p->u.scan.columns[j]);
    }
    m->col[i] = m->batch->cols[j];
  }
  *out = &m->src;
  return FL_OK;
}
