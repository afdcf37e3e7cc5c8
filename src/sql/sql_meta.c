/*
 * sql_meta.c - the kinds of Iceberg metadata tables and their columns
 * (layer 7, sql). Names and types are those of Trino's Iceberg connector
 * (io.trino.plugin.iceberg.system): $snapshots, $history, $files,
 * $manifests, $all_manifests, $partitions, $refs, $properties,
 * $metadata_log_entries, $entries. See sql_meta.h.
 */
#include "sql/sql_meta.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "iceberg/ice_transform.h"

static const char *const g_names[] = {NULL,
#define SQL__META_NAME(name, text, versioned) text,
                                      SQL_META_KINDS(SQL__META_NAME)
#undef SQL__META_NAME
};
static const bool g_versioned[] = {false,
#define SQL__META_VERSIONED(name, text, versioned) versioned,
                                   SQL_META_KINDS(SQL__META_VERSIONED)
#undef SQL__META_VERSIONED
};

sql_meta_kind_t sql_meta_kind(const char *suffix) {
  for (int k = 1; k < SQL_META_COUNT; k++)
    if (strcasecmp(suffix, g_names[k]) == 0) return (sql_meta_kind_t)k;
  return SQL_META_NONE;
}

const char *sql_meta_name(sql_meta_kind_t k) {
  return k > SQL_META_NONE && k < SQL_META_COUNT ? g_names[k] : "?";
}

bool sql_meta_versioned(sql_meta_kind_t k) {
  return k > SQL_META_NONE && k < SQL_META_COUNT && g_versioned[k];
}

/* ---- types ---- */

static const sql_dtype_t T_INT = {.kind = SQL_DT_INTEGER}, T_BIGINT = {.kind = SQL_DT_BIGINT},
                         T_VARCHAR = {.kind = SQL_DT_VARCHAR}, T_BOOL = {.kind = SQL_DT_BOOLEAN},
                         T_VARBINARY = {.kind = SQL_DT_VARBINARY}, T_JSON = {.kind = SQL_DT_JSON},
                         T_TS3 = {.kind = SQL_DT_TIMESTAMPTZ, .precision = 3};

static sql_dtype_t map_of(const sql_dtype_t *k, const sql_dtype_t *v) {
  return (sql_dtype_t){.kind = SQL_DT_MAP, .key = k, .elem = v};
}
static sql_dtype_t array_of(fl_arena_t *a, sql_dtype_t e) {
  sql_dtype_t *p = fl_arena_alloc(a, sizeof *p);
  *p = e;
  return (sql_dtype_t){.kind = SQL_DT_ARRAY, .elem = p};
}
static sql_dtype_t row_of(fl_arena_t *a, const sql_col_t *cols, uint32_t n) {
  sql_dfield_t *f = fl_arena_zalloc(a, (n ? n : 1) * sizeof *f);
  for (uint32_t i = 0; i < n; i++)
    f[i] = (sql_dfield_t){.name = cols[i].name, .type = cols[i].type};
  return (sql_dtype_t){.kind = SQL_DT_ROW, .fields = f, .nfields = n};
}

/* Columns under construction. */
typedef struct cols {
  fl_arena_t *a;
  sql_col_t *v;
  uint32_t n, cap;
} cols_t;

static void add(cols_t *c, const char *name, sql_dtype_t t) {
  if (c->n == c->cap) {
    uint32_t cap = c->cap ? c->cap * 2 : 16;
    sql_col_t *v = fl_arena_zalloc(c->a, cap * sizeof *v);
    if (c->n) memcpy(v, c->v, c->n * sizeof *v);
    c->v = v;
    c->cap = cap;
  }
  c->v[c->n++] = (sql_col_t){.name = name, .type = t};
}

/* ---- the table-dependent parts ---- */

static int part_fields(fl_arena_t *a, const ice_table_t *t, const sql_resolver_t *r,
                       sql_meta_layout_t *out, fl_err_t *err) {
  const ice_meta_t *m = t->meta;
  const ty_schema_t *s = ice_meta_schema(m);
  uint32_t cap = 0;
  for (uint32_t i = 0; i < m->nspecs; i++) cap += m->specs[i]->nfields;
  out->parts = fl_arena_zalloc(a, (cap ? cap : 1) * sizeof *out->parts);
  sql_col_t *pc = fl_arena_zalloc(a, (cap ? cap : 1) * sizeof *pc);
  for (uint32_t i = 0; i < m->nspecs; i++) {
    const ice_spec_t *sp = m->specs[i];
    for (uint32_t j = 0; j < sp->nfields; j++) {
      const ice_partition_field_t *f = &sp->fields[j];
      if (f->transform.kind == ICE_T_VOID) continue;
      bool seen = false;
      for (uint32_t k = 0; k < out->nparts && !seen; k++)
        seen = out->parts[k].field_id == f->field_id;
      if (seen) continue;
      const ty_field_t *src = ty_schema_find_id(s, f->source_id);
      if (!src) continue; /* the source column was dropped */
      const ty_type_t *rt = ice_transform_result_type(&f->transform, src->type);
      sql_dtype_t dt;
      if (!rt || r->from_storage(r->ctx, rt, &dt, err)) continue;
      pc[out->nparts] = (sql_col_t){.name = f->name, .type = dt};
      out->parts[out->nparts++] =
          (sql_meta_part_t){.field_id = f->field_id, .name = f->name, .type = rt};
    }
  }
  fl_err_clear(err);
  out->part_type = row_of(a, pc, out->nparts);
  return FL_OK;
}

static int cmp_prim(const void *x, const void *y) {
  return strcmp(((const sql_meta_col_t *)x)->name, ((const sql_meta_col_t *)y)->name);
}

static void add_prims(fl_arena_t *a, const ty_type_t *st, const char *prefix, sql_meta_col_t **v,
                      uint32_t *n, uint32_t *cap) {
  for (uint32_t i = 0; i < st->nfields; i++) {
    const ty_field_t *f = &st->fields[i];
    const char *name = prefix ? fl_arena_sprintf(a, "%s.%s", prefix, f->name) : f->name;
    if (f->type->kind == TY_STRUCT) {
      add_prims(a, f->type, name, v, n, cap);
      continue;
    }
    if (ty_is_nested(f->type)) continue;
    if (*n == *cap) {
      *cap = *cap ? *cap * 2 : 16;
      sql_meta_col_t *nv = fl_arena_zalloc(a, *cap * sizeof *nv);
      if (*n) memcpy(nv, *v, *n * sizeof *nv);
      *v = nv;
    }
    (*v)[(*n)++] = (sql_meta_col_t){.field_id = f->id, .name = name, .type = f->type};
  }
}

/* $partitions.data: row(col row(min T, max T, null_count bigint, nan_count bigint), ...). */
static sql_dtype_t metrics_type(fl_arena_t *a, const ice_table_t *t, const sql_resolver_t *r,
                                sql_meta_layout_t *out, fl_err_t *err) {
  const ty_schema_t *s = ice_meta_schema(t->meta);
  const ice_spec_t *spec = ice_meta_spec(t->meta);
  uint32_t n = s->root.nfields;
  out->metrics = fl_arena_zalloc(a, (n ? n : 1) * sizeof *out->metrics);
  sql_col_t *mc = fl_arena_zalloc(a, (n ? n : 1) * sizeof *mc);
  for (uint32_t i = 0; i < n; i++) {
    const ty_field_t *f = &s->root.fields[i];
    if (ty_is_nested(f->type)) continue;
    bool identity = false;
    for (uint32_t j = 0; spec && j < spec->nfields && !identity; j++)
      identity =
          spec->fields[j].source_id == f->id && spec->fields[j].transform.kind == ICE_T_IDENTITY;
    if (identity) continue;
    sql_dtype_t dt;
    if (r->from_storage(r->ctx, f->type, &dt, err)) continue;
    sql_col_t stats[4] = {
        {"min", dt}, {"max", dt}, {"null_count", T_BIGINT}, {"nan_count", T_BIGINT}};
    mc[out->nmetrics] = (sql_col_t){.name = f->name, .type = row_of(a, stats, 4)};
    out->metrics[out->nmetrics++] =
        (sql_meta_col_t){.field_id = f->id, .name = f->name, .type = f->type};
  }
  fl_err_clear(err);
  return row_of(a, mc, out->nmetrics);
}

/* The data_file columns shared by $files and $entries.data_file. */
static void data_file_cols(cols_t *c, const sql_meta_layout_t *l) {
  static const sql_dtype_t ib = {.kind = SQL_DT_MAP, .key = &T_INT, .elem = &T_BIGINT},
                           iv = {.kind = SQL_DT_MAP, .key = &T_INT, .elem = &T_VARCHAR};
  add(c, "content", T_INT);
  add(c, "file_path", T_VARCHAR);
  add(c, "file_format", T_VARCHAR);
  add(c, "spec_id", T_INT);
  if (l->nparts) add(c, "partition", l->part_type);
  add(c, "record_count", T_BIGINT);
  add(c, "file_size_in_bytes", T_BIGINT);
  add(c, "column_sizes", ib);
  add(c, "value_counts", ib);
  add(c, "null_value_counts", ib);
  add(c, "nan_value_counts", ib);
  add(c, "lower_bounds", iv);
  add(c, "upper_bounds", iv);
  add(c, "key_metadata", T_VARBINARY);
  add(c, "split_offsets", array_of(c->a, T_BIGINT));
  add(c, "equality_ids", array_of(c->a, T_INT));
  add(c, "sort_order_id", T_INT);
}

static sql_dtype_t partition_summaries_type(fl_arena_t *a) {
  sql_col_t f[4] = {{"contains_null", T_BOOL},
                    {"contains_nan", T_BOOL},
                    {"lower_bound", T_VARCHAR},
                    {"upper_bound", T_VARCHAR}};
  return array_of(a, row_of(a, f, 4));
}

int sql_meta_layout(fl_arena_t *a, sql_meta_kind_t k, const ice_table_t *t, const sql_resolver_t *r,
                    sql_meta_layout_t *out, fl_err_t *err) {
  memset(out, 0, sizeof *out);
  out->kind = k;
  int rc;
  if ((rc = part_fields(a, t, r, out, err))) return rc;
  uint32_t pcap = 0;
  add_prims(a, &ice_meta_schema(t->meta)->root, NULL, &out->prims, &out->nprims, &pcap);
  if (out->nprims) qsort(out->prims, out->nprims, sizeof *out->prims, cmp_prim);
  cols_t c = {.a = a};
  switch (k) {
    case SQL_META_SNAPSHOTS:
      add(&c, "committed_at", T_TS3);
      add(&c, "snapshot_id", T_BIGINT);
      add(&c, "parent_id", T_BIGINT);
      add(&c, "operation", T_VARCHAR);
      add(&c, "manifest_list", T_VARCHAR);
      add(&c, "summary", map_of(&T_VARCHAR, &T_VARCHAR));
      break;
    case SQL_META_HISTORY:
      add(&c, "made_current_at", T_TS3);
      add(&c, "snapshot_id", T_BIGINT);
      add(&c, "parent_id", T_BIGINT);
      add(&c, "is_current_ancestor", T_BOOL);
      break;
    case SQL_META_FILES:
      data_file_cols(&c, out);
      add(&c, "readable_metrics", T_JSON);
      break;
    case SQL_META_MANIFESTS:
      add(&c, "content", T_INT);
      add(&c, "path", T_VARCHAR);
      add(&c, "length", T_BIGINT);
      add(&c, "partition_spec_id", T_INT);
      add(&c, "added_snapshot_id", T_BIGINT);
      add(&c, "added_data_files_count", T_INT);
      add(&c, "added_rows_count", T_BIGINT);
      add(&c, "existing_data_files_count", T_INT);
      add(&c, "existing_rows_count", T_BIGINT);
      add(&c, "deleted_data_files_count", T_INT);
      add(&c, "deleted_rows_count", T_BIGINT);
      add(&c, "partition_summaries", partition_summaries_type(a));
      break;
    case SQL_META_ALL_MANIFESTS:
      add(&c, "content", T_INT);
      add(&c, "path", T_VARCHAR);
      add(&c, "length", T_BIGINT);
      add(&c, "partition_spec_id", T_INT);
      add(&c, "added_snapshot_id", T_BIGINT);
      add(&c, "added_data_files_count", T_INT);
      add(&c, "existing_data_files_count", T_INT);
      add(&c, "deleted_data_files_count", T_INT);
      add(&c, "added_delete_files_count", T_INT);
      add(&c, "existing_delete_files_count", T_INT);
      add(&c, "deleted_delete_files_count", T_INT);
      add(&c, "partition_summaries", partition_summaries_type(a));
      add(&c, "reference_snapshot_id", T_BIGINT);
      break;
    case SQL_META_PARTITIONS: {
      if (out->nparts) add(&c, "partition", out->part_type);
      add(&c, "record_count", T_BIGINT);
      add(&c, "file_count", T_BIGINT);
      add(&c, "total_size", T_BIGINT);
      sql_dtype_t dt = metrics_type(a, t, r, out, err);
      if (out->nmetrics) add(&c, "data", dt);
      break;
    }
    case SQL_META_REFS:
      add(&c, "name", T_VARCHAR);
      add(&c, "type", T_VARCHAR);
      add(&c, "snapshot_id", T_BIGINT);
      add(&c, "max_reference_age_in_ms", T_BIGINT);
      add(&c, "min_snapshots_to_keep", T_INT);
      add(&c, "max_snapshot_age_in_ms", T_BIGINT);
      break;
    case SQL_META_PROPERTIES:
      add(&c, "key", T_VARCHAR);
      add(&c, "value", T_VARCHAR);
      break;
    case SQL_META_METADATA_LOG_ENTRIES:
      add(&c, "timestamp", T_TS3);
      add(&c, "file", T_VARCHAR);
      add(&c, "latest_snapshot_id", T_BIGINT);
      add(&c, "latest_schema_id", T_INT);
      add(&c, "latest_sequence_number", T_BIGINT);
      break;
    case SQL_META_ENTRIES: {
      cols_t df = {.a = a};
      data_file_cols(&df, out);
      add(&c, "status", T_INT);
      add(&c, "snapshot_id", T_BIGINT);
      add(&c, "sequence_number", T_BIGINT);
      add(&c, "file_sequence_number", T_BIGINT);
      add(&c, "data_file", row_of(a, df.v, df.n));
      add(&c, "readable_metrics", T_JSON);
      break;
    }
    default: return fl_err_set(err, FL_EINVALID, "not a metadata table kind: %d", (int)k);
  }
  out->cols = c.v;
  out->ncols = c.n;
  return FL_OK;
}
