/*
 * ice_meta_write.c - writing table metadata JSON (layer 5, iceberg).
 *
 * The key order and the set of keys are the ones Java's
 * TableMetadataParser.toJson writes, so files diff cleanly against
 * Java-written ones and every reader finds its required fields:
 * format-version, table-uuid, location, last-sequence-number (v2+),
 * last-updated-ms, last-column-id, (v1: schema), current-schema-id,
 * schemas, (v1: partition-spec), default-spec-id, partition-specs,
 * last-partition-id, default-sort-order-id, sort-orders, properties,
 * current-snapshot-id (-1 when none), refs, snapshots, statistics,
 * partition-statistics, snapshot-log, metadata-log, then next-row-id (v3)
 * and the keys kept verbatim from the file that was read. The file is
 * published atomically and exclusively through the io_fs_t back end,
 * gzip-compressed when its name ends in ".gz.metadata.json" (the name
 * Java gives files under write.metadata.compression-codec=gzip).
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "iceberg/ice_meta.h"
#include "iceberg/ice_meta_int.h"
#include "iceberg/ice_schema_json.h"

static json_t *transform_json(const ice_transform_t *t) {
  fl_buf_t b;
  fl_buf_init(&b);
  ice_transform_format(t, &b);
  json_t *j = json_stringn(b.len ? (const char *)b.data : "", b.len);
  fl_buf_free(&b);
  return j;
}

json_t *ice_spec_fields_to_json(const ice_spec_t *s) {
  json_t *arr = json_array();
  for (uint32_t i = 0; i < s->nfields; i++) {
    const ice_partition_field_t *f = &s->fields[i];
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(f->name));
    json_object_set_new(o, "transform", transform_json(&f->transform));
    json_object_set_new(o, "source-id", json_integer(f->source_id));
    json_object_set_new(o, "field-id", json_integer(f->field_id));
    json_array_append_new(arr, o);
  }
  return arr;
}

json_t *ice_spec_to_json(const ice_spec_t *s) {
  json_t *o = json_object();
  json_object_set_new(o, "spec-id", json_integer(s->spec_id));
  json_object_set_new(o, "fields", ice_spec_fields_to_json(s));
  return o;
}

json_t *ice_sort_order_to_json(const ice_sort_order_t *so) {
  json_t *o = json_object(), *arr = json_array();
  json_object_set_new(o, "order-id", json_integer(so->order_id));
  for (uint32_t i = 0; i < so->nfields; i++) {
    const ice_sort_field_t *f = &so->fields[i];
    json_t *fo = json_object();
    json_object_set_new(fo, "transform", transform_json(&f->transform));
    json_object_set_new(fo, "source-id", json_integer(f->source_id));
    json_object_set_new(fo, "direction", json_string(f->descending ? "desc" : "asc"));
    json_object_set_new(fo, "null-order",
                        json_string(f->nulls_first ? "nulls-first" : "nulls-last"));
    json_array_append_new(arr, fo);
  }
  json_object_set_new(o, "fields", arr);
  return o;
}

static json_t *snapshot_json(const ice_meta_t *m, const ice_snapshot_t *s) {
  json_t *o = json_object();
  if (m->format_version >= 2)
    json_object_set_new(o, "sequence-number", json_integer(s->sequence_number));
  json_object_set_new(o, "snapshot-id", json_integer(s->snapshot_id));
  if (s->parent_id >= 0) json_object_set_new(o, "parent-snapshot-id", json_integer(s->parent_id));
  json_object_set_new(o, "timestamp-ms", json_integer(s->timestamp_ms));
  if (s->nsummary) {
    json_t *sum = json_object();
    json_object_set_new(sum, "operation", json_string(ice_snapshot_operation(s)));
    for (uint32_t i = 0; i < s->nsummary; i++)
      if (strcmp(s->summary[i].key, "operation") != 0)
        json_object_set_new(sum, s->summary[i].key, json_string(s->summary[i].value));
    json_object_set_new(o, "summary", sum);
  }
  if (s->manifest_list) {
    json_object_set_new(o, "manifest-list", json_string(s->manifest_list));
  } else {
    json_t *arr = json_array();
    for (uint32_t i = 0; i < s->nmanifests_v1; i++)
      json_array_append_new(arr, json_string(s->manifests_v1[i]));
    json_object_set_new(o, "manifests", arr);
  }
  if (s->schema_id >= 0) json_object_set_new(o, "schema-id", json_integer(s->schema_id));
  if (s->first_row_id >= 0) json_object_set_new(o, "first-row-id", json_integer(s->first_row_id));
  if (s->added_rows >= 0) json_object_set_new(o, "added-rows", json_integer(s->added_rows));
  if (s->extra) json_object_update_missing(o, s->extra);
  return o;
}

static json_t *refs_json(const ice_meta_t *m) {
  json_t *o = json_object();
  for (uint32_t i = 0; i < m->nrefs; i++) {
    const ice_ref_t *r = &m->refs[i];
    json_t *ro = json_object();
    json_object_set_new(ro, "snapshot-id", json_integer(r->snapshot_id));
    json_object_set_new(ro, "type", json_string(r->is_tag ? "tag" : "branch"));
    if (!r->is_tag && r->min_snapshots_to_keep >= 0)
      json_object_set_new(ro, "min-snapshots-to-keep", json_integer(r->min_snapshots_to_keep));
    if (!r->is_tag && r->max_snapshot_age_ms >= 0)
      json_object_set_new(ro, "max-snapshot-age-ms", json_integer(r->max_snapshot_age_ms));
    if (r->max_ref_age_ms >= 0)
      json_object_set_new(ro, "max-ref-age-ms", json_integer(r->max_ref_age_ms));
    json_object_set_new(o, r->name, ro);
  }
  return o;
}

static json_t *extra_or_empty(const ice_meta_t *m, const char *key) {
  json_t *v = m->extra ? json_object_get(m->extra, key) : NULL;
  return v ? json_incref(v) : json_array();
}

static json_t *meta_json(const ice_meta_t *m) {
  json_t *o = json_object();
  json_object_set_new(o, "format-version", json_integer(m->format_version));
  if (m->table_uuid[0] || m->format_version >= 2)
    json_object_set_new(o, "table-uuid", json_string(m->table_uuid));
  json_object_set_new(o, "location", json_string(m->location));
  if (m->format_version >= 2)
    json_object_set_new(o, "last-sequence-number", json_integer(m->last_sequence_number));
  json_object_set_new(o, "last-updated-ms", json_integer(m->last_updated_ms));
  json_object_set_new(o, "last-column-id", json_integer(m->last_column_id));
  if (m->format_version == 1 && ice_meta_schema(m))
    json_object_set_new(o, "schema", ice_schema_to_json(ice_meta_schema(m)));
  json_object_set_new(o, "current-schema-id", json_integer(m->current_schema_id));
  json_t *arr = json_array();
  for (uint32_t i = 0; i < m->nschemas; i++)
    json_array_append_new(arr, ice_schema_to_json(m->schemas[i]));
  json_object_set_new(o, "schemas", arr);
  if (m->format_version == 1 && ice_meta_spec(m))
    json_object_set_new(o, "partition-spec", ice_spec_fields_to_json(ice_meta_spec(m)));
  json_object_set_new(o, "default-spec-id", json_integer(m->default_spec_id));
  arr = json_array();
  for (uint32_t i = 0; i < m->nspecs; i++)
    json_array_append_new(arr, ice_spec_to_json(m->specs[i]));
  json_object_set_new(o, "partition-specs", arr);
  json_object_set_new(o, "last-partition-id", json_integer(m->last_partition_id));
  json_object_set_new(o, "default-sort-order-id", json_integer(m->default_sort_order_id));
  arr = json_array();
  for (uint32_t i = 0; i < m->nsort_orders; i++)
    json_array_append_new(arr, ice_sort_order_to_json(m->sort_orders[i]));
  json_object_set_new(o, "sort-orders", arr);
  json_t *props = json_object();
  for (uint32_t i = 0; i < m->nproperties; i++)
    json_object_set_new(props, m->properties[i].key, json_string(m->properties[i].value));
  json_object_set_new(o, "properties", props);
  const ice_snapshot_t *cur = ice_meta_current_snapshot(m);
  json_object_set_new(o, "current-snapshot-id", json_integer(cur ? cur->snapshot_id : -1));
  json_object_set_new(o, "refs", refs_json(m));
  arr = json_array();
  for (uint32_t i = 0; i < m->nsnapshots; i++)
    json_array_append_new(arr, snapshot_json(m, &m->snapshots[i]));
  json_object_set_new(o, "snapshots", arr);
  json_object_set_new(o, "statistics", extra_or_empty(m, "statistics"));
  json_object_set_new(o, "partition-statistics", extra_or_empty(m, "partition-statistics"));
  arr = json_array();
  for (uint32_t i = 0; i < m->nsnapshot_log; i++) {
    json_t *e = json_object();
    json_object_set_new(e, "timestamp-ms", json_integer(m->snapshot_log[i].timestamp_ms));
    json_object_set_new(e, "snapshot-id", json_integer(m->snapshot_log[i].snapshot_id));
    json_array_append_new(arr, e);
  }
  json_object_set_new(o, "snapshot-log", arr);
  arr = json_array();
  for (uint32_t i = 0; i < m->nmetadata_log; i++) {
    json_t *e = json_object();
    json_object_set_new(e, "timestamp-ms", json_integer(m->metadata_log[i].timestamp_ms));
    json_object_set_new(e, "metadata-file", json_string(m->metadata_log[i].file));
    json_array_append_new(arr, e);
  }
  json_object_set_new(o, "metadata-log", arr);
  if (m->format_version >= 3 || m->next_row_id >= 0)
    json_object_set_new(o, "next-row-id", json_integer(m->next_row_id >= 0 ? m->next_row_id : 0));
  if (m->extra) json_object_update_missing(o, m->extra);
  return o;
}

int ice_meta_to_json(const ice_meta_t *m, fl_buf_t *out, fl_err_t *err) {
  if (!m->location || !ice_meta_schema(m) || !ice_meta_spec(m) || !ice_meta_sort_order(m))
    return fl_err_set(
        err, FL_EINVALID,
        "table metadata lacks a location, current schema, default spec or sort order");
  json_t *j = meta_json(m);
  char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  json_decref(j);
  if (!text) return fl_err_set(err, FL_EINVALID, "table metadata has text that is not valid UTF-8");
  fl_buf_append_str(out, text);
  free(text);
  return FL_OK;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* Gzip-compresses b in place (Java's write.metadata.compression-codec=gzip). */
static int gzip_buf(fl_buf_t *b, const char *path, fl_err_t *err) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK)
    return fl_err_set(err, FL_EINTERNAL, "%s: cannot start zlib", path);
  fl_buf_t out;
  fl_buf_init(&out);
  fl_buf_reserve(&out, deflateBound(&z, b->len) + 32);
  z.next_in = b->data;
  z.avail_in = (uInt)b->len;
  z.next_out = out.data;
  z.avail_out = (uInt)out.cap;
  int zr = deflate(&z, Z_FINISH);
  out.len = z.total_out;
  deflateEnd(&z);
  if (zr != Z_STREAM_END) {
    fl_buf_free(&out);
    return fl_err_set(err, FL_EINTERNAL, "%s: gzip compression failed", path);
  }
  fl_buf_free(b);
  *b = out;
  return FL_OK;
}

int ice_meta_write(io_fs_t *fs, const char *path, const ice_meta_t *m, fl_err_t *err) {
  fl_buf_t b;
  fl_buf_init(&b);
  int rc = ice_meta_to_json(m, &b, err);
  if (!rc && ends_with(path, ".gz.metadata.json")) rc = gzip_buf(&b, path, err);
  if (rc) goto out;
  io_writer_t *w;
  rc = fs->create(fs, path, true, &w, err);
  if (rc) goto out;
  rc = w->write(w, b.data, b.len, err);
  if (rc) {
    w->abort(w);
    goto out;
  }
  rc = w->commit(w, err);
out:
  fl_buf_free(&b);
  return rc;
}
