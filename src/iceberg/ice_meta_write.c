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
 *
 * A commit rewrites the whole file, snapshots and all, so its cost would
 * grow with the table's history; snapshots never change once written, so
 * their text is rendered once and kept with them (ice_meta_render_snapshots)
 * and later commits copy it.
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

/*
 * The file is written as jansson's JSON_INDENT(2) | JSON_PRESERVE_ORDER
 * dump of the whole object would write it, but one top-level key at a
 * time: each value is dumped alone and indented to its depth (JSON text
 * has no raw newlines inside strings, so every newline starts a line).
 * That lets the snapshots - most of the file once a table has history -
 * come from text rendered once per snapshot (ice_meta_render_snapshots)
 * instead of being rebuilt and dumped on every commit.
 */
typedef struct jw {
  fl_buf_t *out;
  bool first;
  int rc;
  const char *keys[32]; /* the keys written so far (valid while writing) */
  uint32_t nkeys;
} jw_t;

/* Appends text with depth * 2 spaces after each newline. */
static void put_indented(fl_buf_t *out, const char *text, size_t n, int depth) {
  const char *p = text, *end = text + n;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) {
      fl_buf_append(out, p, (size_t)(end - p));
      return;
    }
    fl_buf_append(out, p, (size_t)(nl + 1 - p));
    for (int i = 0; i < depth; i++) fl_buf_append(out, "  ", 2);
    p = nl + 1;
  }
}

/* Appends v dumped as at depth (v's reference is taken); false when its
 * text is not valid UTF-8. */
static bool put_json(fl_buf_t *out, json_t *v, int depth) {
  char *text = v ? json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY) : NULL;
  json_decref(v);
  if (!text) return false;
  put_indented(out, text, strlen(text), depth);
  free(text);
  return true;
}

/* Appends s as a JSON string: printable ASCII without quotes or
 * backslashes as it is, anything else through jansson (its escapes and
 * its UTF-8 check). False when s is not valid UTF-8. */
static bool put_str(fl_buf_t *out, const char *s) {
  size_t n = 0;
  for (; s[n]; n++) {
    unsigned char c = (unsigned char)s[n];
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') return put_json(out, json_string(s), 0);
  }
  fl_buf_append(out, "\"", 1);
  fl_buf_append(out, s, n);
  fl_buf_append(out, "\"", 1);
  return true;
}

/* Appends v in decimal (what jansson and printf's %lld write). */
static void put_i64(fl_buf_t *out, int64_t v) {
  char tmp[24], *p = tmp + sizeof tmp;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do {
    *--p = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) *--p = '-';
  fl_buf_append(out, p, (size_t)(tmp + sizeof tmp - p));
}

static void jw_key(jw_t *w, const char *key) {
  fl_buf_append_str(w->out, w->first ? "{\n  " : ",\n  ");
  w->first = false;
  if (w->nkeys < sizeof w->keys / sizeof w->keys[0]) w->keys[w->nkeys++] = key;
  if (!put_str(w->out, key)) w->rc = FL_EINVALID;
  fl_buf_append(w->out, ": ", 2);
}

/* key: v (v's reference is taken). */
static void jw_set(jw_t *w, const char *key, json_t *v) {
  jw_key(w, key);
  if (!put_json(w->out, v, 1)) w->rc = FL_EINVALID;
}

static void jw_int(jw_t *w, const char *key, int64_t v) {
  jw_key(w, key);
  put_i64(w->out, v);
}

/* A snapshot's text at depth 0 (a new string to free; NULL: not UTF-8). */
static char *snapshot_text(const ice_meta_t *m, const ice_snapshot_t *s) {
  json_t *j = snapshot_json(m, s);
  char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  json_decref(j);
  return text;
}

void ice_meta_render_snapshots(ice_meta_t *m) {
  for (uint32_t i = 0; i < m->nsnapshots; i++) {
    ice_snapshot_t *s = &m->snapshots[i];
    if (s->json && s->json_format_version == m->format_version) continue;
    char *text = snapshot_text(m, s);
    if (!text) continue; /* ice_meta_to_json reports it */
    fl_buf_t b;
    fl_buf_init(&b);
    put_indented(&b, text, strlen(text), 2);
    free(text);
    s->json = fl_arena_strndup(m->arena, (const char *)b.data, b.len);
    s->json_format_version = m->format_version;
    fl_buf_free(&b);
  }
}

static void put_snapshots(jw_t *w, const ice_meta_t *m) {
  jw_key(w, "snapshots");
  if (!m->nsnapshots) {
    fl_buf_append(w->out, "[]", 2);
    return;
  }
  fl_buf_append(w->out, "[", 1);
  for (uint32_t i = 0; i < m->nsnapshots; i++) {
    const ice_snapshot_t *s = &m->snapshots[i];
    fl_buf_append_str(w->out, i ? ",\n    " : "\n    ");
    if (s->json && s->json_format_version == m->format_version) {
      fl_buf_append_str(w->out, s->json);
      continue;
    }
    char *text = snapshot_text(m, s);
    if (!text) {
      w->rc = FL_EINVALID;
      return;
    }
    put_indented(w->out, text, strlen(text), 2);
    free(text);
  }
  fl_buf_append(w->out, "\n  ]", 4);
}

static void put_snapshot_log(jw_t *w, const ice_meta_t *m) {
  jw_key(w, "snapshot-log");
  if (!m->nsnapshot_log) {
    fl_buf_append(w->out, "[]", 2);
    return;
  }
  fl_buf_append(w->out, "[", 1);
  for (uint32_t i = 0; i < m->nsnapshot_log; i++) {
    fl_buf_append_str(
        w->out, i ? ",\n    {\n      \"timestamp-ms\": " : "\n    {\n      \"timestamp-ms\": ");
    put_i64(w->out, m->snapshot_log[i].timestamp_ms);
    fl_buf_append_str(w->out, ",\n      \"snapshot-id\": ");
    put_i64(w->out, m->snapshot_log[i].snapshot_id);
    fl_buf_append_str(w->out, "\n    }");
  }
  fl_buf_append(w->out, "\n  ]", 4);
}

static void put_metadata_log(jw_t *w, const ice_meta_t *m) {
  jw_key(w, "metadata-log");
  if (!m->nmetadata_log) {
    fl_buf_append(w->out, "[]", 2);
    return;
  }
  fl_buf_append(w->out, "[", 1);
  for (uint32_t i = 0; i < m->nmetadata_log; i++) {
    fl_buf_append_str(
        w->out, i ? ",\n    {\n      \"timestamp-ms\": " : "\n    {\n      \"timestamp-ms\": ");
    put_i64(w->out, m->metadata_log[i].timestamp_ms);
    fl_buf_append_str(w->out, ",\n      \"metadata-file\": ");
    if (!put_str(w->out, m->metadata_log[i].file)) w->rc = FL_EINVALID;
    fl_buf_append_str(w->out, "\n    }");
  }
  fl_buf_append(w->out, "\n  ]", 4);
}

static int meta_text(const ice_meta_t *m, fl_buf_t *out) {
  jw_t w = {.out = out, .first = true};
  jw_int(&w, "format-version", m->format_version);
  if (m->table_uuid[0] || m->format_version >= 2)
    jw_set(&w, "table-uuid", json_string(m->table_uuid));
  jw_set(&w, "location", json_string(m->location));
  if (m->format_version >= 2) jw_int(&w, "last-sequence-number", m->last_sequence_number);
  jw_int(&w, "last-updated-ms", m->last_updated_ms);
  jw_int(&w, "last-column-id", m->last_column_id);
  if (m->format_version == 1 && ice_meta_schema(m))
    jw_set(&w, "schema", ice_schema_to_json(ice_meta_schema(m)));
  jw_int(&w, "current-schema-id", m->current_schema_id);
  json_t *arr = json_array();
  for (uint32_t i = 0; i < m->nschemas; i++)
    json_array_append_new(arr, ice_schema_to_json(m->schemas[i]));
  jw_set(&w, "schemas", arr);
  if (m->format_version == 1 && ice_meta_spec(m))
    jw_set(&w, "partition-spec", ice_spec_fields_to_json(ice_meta_spec(m)));
  jw_int(&w, "default-spec-id", m->default_spec_id);
  arr = json_array();
  for (uint32_t i = 0; i < m->nspecs; i++)
    json_array_append_new(arr, ice_spec_to_json(m->specs[i]));
  jw_set(&w, "partition-specs", arr);
  jw_int(&w, "last-partition-id", m->last_partition_id);
  jw_int(&w, "default-sort-order-id", m->default_sort_order_id);
  arr = json_array();
  for (uint32_t i = 0; i < m->nsort_orders; i++)
    json_array_append_new(arr, ice_sort_order_to_json(m->sort_orders[i]));
  jw_set(&w, "sort-orders", arr);
  json_t *props = json_object();
  for (uint32_t i = 0; i < m->nproperties; i++)
    json_object_set_new(props, m->properties[i].key, json_string(m->properties[i].value));
  jw_set(&w, "properties", props);
  const ice_snapshot_t *cur = ice_meta_current_snapshot(m);
  jw_int(&w, "current-snapshot-id", cur ? cur->snapshot_id : -1);
  jw_set(&w, "refs", refs_json(m));
  put_snapshots(&w, m);
  jw_set(&w, "statistics", extra_or_empty(m, "statistics"));
  jw_set(&w, "partition-statistics", extra_or_empty(m, "partition-statistics"));
  put_snapshot_log(&w, m);
  put_metadata_log(&w, m);
  if (m->format_version >= 3 || m->next_row_id >= 0)
    jw_int(&w, "next-row-id", m->next_row_id >= 0 ? m->next_row_id : 0);
  /* Then the kept keys not written above, as json_object_update_missing
   * would add them. */
  if (m->extra) {
    uint32_t nfixed = w.nkeys;
    const char *k;
    json_t *v;
    json_object_foreach(m->extra, k, v) {
      bool dup = false;
      for (uint32_t i = 0; i < nfixed && !dup; i++) dup = strcmp(w.keys[i], k) == 0;
      if (!dup) jw_set(&w, k, json_incref(v));
    }
  }
  fl_buf_append(out, "\n}", 2);
  return w.rc;
}

int ice_meta_to_json(const ice_meta_t *m, fl_buf_t *out, fl_err_t *err) {
  if (!m->location || !ice_meta_schema(m) || !ice_meta_spec(m) || !ice_meta_sort_order(m))
    return fl_err_set(
        err, FL_EINVALID,
        "table metadata lacks a location, current schema, default spec or sort order");
  size_t start = out->len;
  if (meta_text(m, out)) {
    out->len = start;
    return fl_err_set(err, FL_EINVALID, "table metadata has text that is not valid UTF-8");
  }
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
