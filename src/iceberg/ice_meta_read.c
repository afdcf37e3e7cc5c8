/*
 * ice_meta_read.c - parsing table metadata JSON (layer 5, iceberg).
 *
 * Reads format v1, v2 and v3 metadata into an ice_meta_t living in its
 * own arena. The checks follow the spec's table of required fields and
 * what Java's TableMetadataParser enforces: every v2 required field, the
 * current schema, default spec and default sort order present, refs and
 * the current snapshot naming snapshots that exist, main agreeing with
 * current-snapshot-id. v1 files get the fallbacks of older writers (see
 * ice_meta.h). Keys floe does not model are kept verbatim in m->extra.
 * Files are read whole (gzip-compressed ones are recognized by their
 * magic bytes and inflated with zlib, with a cap on the inflated size).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "base/alloc.h"
#include "iceberg/ice_meta.h"
#include "iceberg/ice_meta_int.h"
#include "iceberg/ice_schema_json.h"

#define META_MAX_FILE_BYTES ((size_t)512 << 20)
#define META_MAX_INFLATED_BYTES ((size_t)1 << 30)

typedef struct mp {
  fl_arena_t *a;
  const char *what;
  fl_err_t *err;
  int fv;
  ice_meta_t *m;
} mp_t;

static ice_jpath_t top(mp_t *p) { return (ice_jpath_t){p->what, ""}; }
static ice_jpath_t at_path(mp_t *p, const char *path) { return (ice_jpath_t){p->what, path}; }

/* ---- partition specs and sort orders ---- */

static int parse_spec_fields(fl_arena_t *a, const json_t *arr, ice_jpath_t at, const char *key,
                             int32_t *next_field_id, ice_spec_t *s, fl_err_t *err) {
  size_t n = json_array_size(arr);
  s->fields = fl_arena_zalloc(a, (n ? n : 1) * sizeof *s->fields);
  for (size_t i = 0; i < n; i++) {
    const json_t *f = json_array_get(arr, i);
    ice_jpath_t fat = {at.what, ice__jitem(a, at, key, i)};
    if (!json_is_object(f)) return ice__jfail(err, fat, NULL, "expected a partition field object");
    ice_partition_field_t *pf = &s->fields[i];
    const char *tr = NULL;
    int64_t src = 0, fid = 0;
    bool has_src = false, has_fid = false;
    int rc = ice__jstr(a, f, "name", fat, true, &pf->name, err);
    if (!rc) rc = ice__jstr(a, f, "transform", fat, true, &tr, err);
    if (!rc) rc = ice__jint(f, "source-id", fat, false, 0, INT32_MAX, &src, &has_src, err);
    if (!rc) rc = ice__jint(f, "field-id", fat, false, 0, INT32_MAX, &fid, &has_fid, err);
    if (rc) return rc;
    if (!has_src) {
      const json_t *ids = json_object_get(f, "source-ids");
      if (!json_is_array(ids)) return ice__jfail(err, fat, "source-id", "missing required field");
      if (json_array_size(ids) != 1 || !json_is_integer(json_array_get(ids, 0)))
        return fl_err_set(err, FL_EUNSUPPORTED,
                          "%s: %s.source-ids: multi-argument transforms are not supported", at.what,
                          fat.path);
      src = json_integer_value(json_array_get(ids, 0));
      if (src < 0 || src > INT32_MAX) return ice__jfail(err, fat, "source-ids", "bad field id");
    }
    if (!has_fid) {
      if (!next_field_id) return ice__jfail(err, fat, "field-id", "missing required field");
      fid = (*next_field_id)++;
    }
    rc = ice_transform_parse(a, tr, &pf->transform, err);
    if (rc) return ice__jfail(err, fat, "transform", "%s", err->msg);
    pf->source_id = (int32_t)src;
    pf->field_id = (int32_t)fid;
    for (size_t k = 0; k < i; k++)
      if (s->fields[k].field_id == pf->field_id)
        return ice__jfail(err, fat, "field-id", "partition field id %d is used twice",
                          pf->field_id);
  }
  s->nfields = (uint32_t)n;
  return FL_OK;
}

int ice_spec_from_json(fl_arena_t *a, const json_t *j, const char *what, int32_t spec_id,
                       int32_t *next_field_id, ice_spec_t **out, fl_err_t *err) {
  ice_jpath_t at = {what ? what : "partition spec", ""};
  ice_spec_t *s = fl_arena_zalloc(a, sizeof *s);
  int rc;
  if (spec_id >= 0 && json_is_array(j)) {
    s->spec_id = spec_id;
    rc = parse_spec_fields(a, j, at, NULL, next_field_id, s, err);
  } else {
    if (!json_is_object(j)) return ice__jfail(err, at, NULL, "expected a partition spec object");
    int64_t id = 0;
    const json_t *fields;
    rc = ice__jint(j, "spec-id", at, true, 0, INT32_MAX, &id, NULL, err);
    if (!rc) rc = ice__jarray(j, "fields", at, true, &fields, err);
    if (rc) return rc;
    s->spec_id = (int32_t)id;
    rc = parse_spec_fields(a, fields, at, "fields", next_field_id, s, err);
  }
  if (rc) return rc;
  *out = s;
  return FL_OK;
}

int ice_sort_order_from_json(fl_arena_t *a, const json_t *j, const char *what,
                             ice_sort_order_t **out, fl_err_t *err) {
  ice_jpath_t at = {what ? what : "sort order", ""};
  if (!json_is_object(j)) return ice__jfail(err, at, NULL, "expected a sort order object");
  int64_t id = 0;
  const json_t *fields;
  int rc = ice__jint(j, "order-id", at, true, 0, INT32_MAX, &id, NULL, err);
  if (!rc) rc = ice__jarray(j, "fields", at, true, &fields, err);
  if (rc) return rc;
  size_t n = json_array_size(fields);
  if ((id == 0) != (n == 0))
    return ice__jfail(err, at, "order-id",
                      id == 0 ? "order id 0 is reserved for the unsorted order"
                              : "an unsorted order must have id 0, not %lld",
                      (long long)id);
  ice_sort_order_t *o = fl_arena_zalloc(a, sizeof *o);
  o->order_id = (int32_t)id;
  o->fields = fl_arena_zalloc(a, (n ? n : 1) * sizeof *o->fields);
  for (size_t i = 0; i < n; i++) {
    const json_t *f = json_array_get(fields, i);
    ice_jpath_t fat = {at.what, ice__jitem(a, at, "fields", i)};
    if (!json_is_object(f)) return ice__jfail(err, fat, NULL, "expected a sort field object");
    ice_sort_field_t *sf = &o->fields[i];
    const char *tr = NULL, *dir = NULL, *nulls = NULL;
    int64_t src = 0;
    rc = ice__jstr(a, f, "transform", fat, true, &tr, err);
    if (!rc) rc = ice__jint(f, "source-id", fat, true, 0, INT32_MAX, &src, NULL, err);
    if (!rc) rc = ice__jstr(a, f, "direction", fat, true, &dir, err);
    if (!rc) rc = ice__jstr(a, f, "null-order", fat, true, &nulls, err);
    if (rc) return rc;
    if (ice_transform_parse(a, tr, &sf->transform, err))
      return ice__jfail(err, fat, "transform", "%s", err->msg);
    sf->source_id = (int32_t)src;
    if (strcasecmp(dir, "asc") == 0)
      sf->descending = false;
    else if (strcasecmp(dir, "desc") == 0)
      sf->descending = true;
    else
      return ice__jfail(err, fat, "direction", "expected \"asc\" or \"desc\", not \"%s\"", dir);
    if (strcasecmp(nulls, "nulls-first") == 0)
      sf->nulls_first = true;
    else if (strcasecmp(nulls, "nulls-last") == 0)
      sf->nulls_first = false;
    else
      return ice__jfail(err, fat, "null-order",
                        "expected \"nulls-first\" or \"nulls-last\", not \"%s\"", nulls);
  }
  o->nfields = (uint32_t)n;
  *out = o;
  return FL_OK;
}

/* ---- schemas ---- */

static int parse_schemas(mp_t *p, const json_t *root) {
  ice_meta_t *m = p->m;
  const json_t *arr;
  int rc = ice__jarray(root, "schemas", top(p), p->fv >= 2, &arr, p->err);
  if (rc) return rc;
  int64_t cur = 0;
  bool has_cur = false;
  rc = ice__jint(root, "current-schema-id", top(p), arr && p->fv >= 2, 0, INT32_MAX, &cur, &has_cur,
                 p->err);
  if (rc) return rc;
  size_t n = arr ? json_array_size(arr) : 0;
  m->schemas = fl_arena_zalloc(p->a, (n + 1) * sizeof *m->schemas);
  for (size_t i = 0; i < n; i++) {
    const json_t *sj = json_array_get(arr, i);
    const char *w = fl_arena_sprintf(p->a, "%s: schemas[%zu]", p->what, i);
    ty_schema_t *s;
    rc = ice_schema_from_json(p->a, sj, w, &s, p->err);
    if (rc) return rc;
    if (json_is_object(sj) && !json_object_get(sj, "schema-id")) {
      if (p->fv >= 2)
        return ice__jfail(p->err, at_path(p, ice__jitem(p->a, top(p), "schemas", i)), "schema-id",
                          "missing required field");
      s->schema_id = (int32_t)i;
    }
    for (uint32_t k = 0; k < m->nschemas; k++)
      if (m->schemas[k]->schema_id == s->schema_id)
        return ice__jfail(p->err, top(p), "schemas", "schema id %d is used twice", s->schema_id);
    m->schemas[m->nschemas++] = s;
  }
  if (!arr || !has_cur) {
    /* v1: the single "schema" is current (added to the list when absent). */
    const json_t *one = json_object_get(root, "schema");
    if (!one || json_is_null(one)) {
      if (arr)
        return ice__jfail(p->err, top(p), "current-schema-id",
                          "missing (required with \"schemas\" when \"schema\" is absent)");
      return ice__jfail(p->err, top(p), "schema", "missing required field (no schemas)");
    }
    ty_schema_t *s;
    rc = ice_schema_from_json(p->a, one, fl_arena_sprintf(p->a, "%s: schema", p->what), &s, p->err);
    if (rc) return rc;
    cur = s->schema_id;
    if (!ice_meta_schema_by_id(m, s->schema_id)) m->schemas[m->nschemas++] = s;
  }
  m->current_schema_id = (int32_t)cur;
  if (!ice_meta_schema(m))
    return ice__jfail(p->err, top(p), "current-schema-id", "no schema with id %lld",
                      (long long)cur);
  return FL_OK;
}

/* ---- specs and sort orders of the table ---- */

static int parse_specs(mp_t *p, const json_t *root) {
  ice_meta_t *m = p->m;
  const json_t *arr;
  int rc = ice__jarray(root, "partition-specs", top(p), p->fv >= 2, &arr, p->err);
  if (rc) return rc;
  int64_t def = 0;
  bool has_def = false;
  rc = ice__jint(root, "default-spec-id", top(p), arr && p->fv >= 2, 0, INT32_MAX, &def, &has_def,
                 p->err);
  if (rc) return rc;
  if (arr) {
    size_t n = json_array_size(arr);
    m->specs = fl_arena_zalloc(p->a, (n ? n : 1) * sizeof *m->specs);
    for (size_t i = 0; i < n; i++) {
      const char *w = fl_arena_sprintf(p->a, "%s: partition-specs[%zu]", p->what, i);
      int32_t next = 1000;
      ice_spec_t *s;
      rc = ice_spec_from_json(p->a, json_array_get(arr, i), w, -1, p->fv == 1 ? &next : NULL, &s,
                              p->err);
      if (rc) return rc;
      for (uint32_t k = 0; k < m->nspecs; k++)
        if (m->specs[k]->spec_id == s->spec_id)
          return ice__jfail(p->err, top(p), "partition-specs", "spec id %d is used twice",
                            s->spec_id);
      m->specs[m->nspecs++] = s;
      if (!has_def && s->spec_id > def) def = s->spec_id; /* v1: the newest spec */
    }
  } else {
    const json_t *fields = json_object_get(root, "partition-spec");
    if (!json_is_array(fields))
      return ice__jfail(
          p->err, top(p), "partition-spec",
          fields ? "expected an array" : "missing required field (no partition-specs)");
    int32_t next = 1000;
    ice_spec_t *s;
    rc = ice_spec_from_json(p->a, fields, fl_arena_sprintf(p->a, "%s: partition-spec", p->what), 0,
                            &next, &s, p->err);
    if (rc) return rc;
    m->specs = fl_arena_zalloc(p->a, sizeof *m->specs);
    m->specs[m->nspecs++] = s;
    def = 0;
  }
  m->default_spec_id = (int32_t)def;
  const ice_spec_t *ds = ice_meta_spec(m);
  if (!ds)
    return ice__jfail(p->err, top(p), "default-spec-id", "no partition spec with id %lld",
                      (long long)def);
  /* The default spec binds to the current schema, as Java's parser does. */
  const ty_schema_t *cur = ice_meta_schema(m);
  for (uint32_t i = 0; i < ds->nfields; i++)
    if (ds->fields[i].transform.kind != ICE_T_VOID &&
        !ty_schema_find_id(cur, ds->fields[i].source_id))
      return ice__jfail(p->err, top(p), "partition-specs",
                        "default spec %d field '%s' names source id %d, not in the current schema",
                        ds->spec_id, ds->fields[i].name, ds->fields[i].source_id);

  int64_t last = 0;
  bool has_last = false;
  rc = ice__jint(root, "last-partition-id", top(p), p->fv >= 2, 0, INT32_MAX, &last, &has_last,
                 p->err);
  if (rc) return rc;
  if (!has_last) {
    last = 999;
    for (uint32_t k = 0; k < m->nspecs; k++)
      for (uint32_t i = 0; i < m->specs[k]->nfields; i++)
        if (m->specs[k]->fields[i].field_id > last) last = m->specs[k]->fields[i].field_id;
  }
  m->last_partition_id = (int32_t)last;
  return FL_OK;
}

static int parse_sort_orders(mp_t *p, const json_t *root) {
  ice_meta_t *m = p->m;
  const json_t *arr;
  int rc = ice__jarray(root, "sort-orders", top(p), p->fv >= 2, &arr, p->err);
  if (rc) return rc;
  int64_t def = 0;
  rc = ice__jint(root, "default-sort-order-id", top(p), p->fv >= 2, 0, INT32_MAX, &def, NULL,
                 p->err);
  if (rc) return rc;
  size_t n = arr ? json_array_size(arr) : 0;
  m->sort_orders = fl_arena_zalloc(p->a, (n + 1) * sizeof *m->sort_orders);
  for (size_t i = 0; i < n; i++) {
    const char *w = fl_arena_sprintf(p->a, "%s: sort-orders[%zu]", p->what, i);
    ice_sort_order_t *o;
    rc = ice_sort_order_from_json(p->a, json_array_get(arr, i), w, &o, p->err);
    if (rc) return rc;
    for (uint32_t k = 0; k < m->nsort_orders; k++)
      if (m->sort_orders[k]->order_id == o->order_id)
        return ice__jfail(p->err, top(p), "sort-orders", "order id %d is used twice", o->order_id);
    m->sort_orders[m->nsort_orders++] = o;
  }
  if (!arr) {
    ice_sort_order_t *o = fl_arena_zalloc(p->a, sizeof *o);
    m->sort_orders[m->nsort_orders++] = o; /* v1 without orders: unsorted */
    def = 0;
  }
  m->default_sort_order_id = (int32_t)def;
  if (!ice_meta_sort_order(m))
    return ice__jfail(p->err, top(p), "default-sort-order-id", "no sort order with id %lld",
                      (long long)def);
  return FL_OK;
}

/* ---- snapshots, logs, refs ---- */

static const char *const snapshot_keys[] = {"snapshot-id",  "parent-snapshot-id", "sequence-number",
                                            "timestamp-ms", "manifest-list",      "manifests",
                                            "summary",      "schema-id",          "first-row-id",
                                            "added-rows"};

static bool is_key(const char *k, const char *const *keys, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(k, keys[i]) == 0) return true;
  return false;
}

static int parse_snapshot(mp_t *p, const json_t *j, const char *path, ice_snapshot_t *s) {
  ice_jpath_t at = at_path(p, path);
  if (!json_is_object(j)) return ice__jfail(p->err, at, NULL, "expected a snapshot object");
  memset(s, 0, sizeof *s);
  s->parent_id = -1;
  s->schema_id = -1;
  s->first_row_id = -1;
  s->added_rows = -1;
  int64_t sid = -1;
  int rc =
      ice__jint(j, "snapshot-id", at, true, INT64_MIN, INT64_MAX, &s->snapshot_id, NULL, p->err);
  if (!rc)
    rc = ice__jint(j, "parent-snapshot-id", at, false, INT64_MIN, INT64_MAX, &s->parent_id, NULL,
                   p->err);
  if (!rc)
    rc =
        ice__jint(j, "sequence-number", at, false, 0, INT64_MAX, &s->sequence_number, NULL, p->err);
  if (!rc)
    rc = ice__jint(j, "timestamp-ms", at, true, INT64_MIN, INT64_MAX, &s->timestamp_ms, NULL,
                   p->err);
  if (!rc) rc = ice__jstr(p->a, j, "manifest-list", at, p->fv >= 2, &s->manifest_list, p->err);
  if (!rc) rc = ice__jint(j, "schema-id", at, false, 0, INT32_MAX, &sid, NULL, p->err);
  if (!rc)
    rc = ice__jint(j, "first-row-id", at, false, 0, INT64_MAX, &s->first_row_id, NULL, p->err);
  if (!rc) rc = ice__jint(j, "added-rows", at, false, 0, INT64_MAX, &s->added_rows, NULL, p->err);
  if (rc) return rc;
  s->schema_id = (int32_t)sid;
  if (!s->manifest_list) {
    const json_t *mans;
    rc = ice__jarray(j, "manifests", at, false, &mans, p->err);
    if (rc) return rc;
    if (!mans)
      return ice__jfail(p->err, at, "manifest-list", "missing (and no inline \"manifests\")");
    size_t n = json_array_size(mans);
    s->manifests_v1 = fl_arena_zalloc(p->a, (n ? n : 1) * sizeof *s->manifests_v1);
    for (size_t i = 0; i < n; i++) {
      const json_t *v = json_array_get(mans, i);
      if (!json_is_string(v))
        return ice__jfail(p->err, at, fl_arena_sprintf(p->a, "manifests[%zu]", i),
                          "expected a string");
      s->manifests_v1[i] = fl_arena_strdup(p->a, json_string_value(v));
    }
    s->nmanifests_v1 = (uint32_t)n;
  }
  const json_t *sum = json_object_get(j, "summary");
  if (sum && !json_is_null(sum)) {
    if (!json_is_object(sum)) return ice__jfail(p->err, at, "summary", "expected an object");
    const json_t *op = json_object_get(sum, "operation");
    if (!json_is_string(op))
      return ice__jfail(p->err, at, "summary.operation",
                        op ? "expected a string" : "missing required field");
    size_t n = json_object_size(sum);
    s->summary = fl_arena_zalloc(p->a, n * sizeof *s->summary);
    s->summary[s->nsummary++] =
        (ice_kv_t){"operation", fl_arena_strdup(p->a, json_string_value(op))};
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)sum, k, v) {
      if (strcmp(k, "operation") == 0) continue;
      if (!json_is_string(v))
        return ice__jfail(p->err, at, fl_arena_sprintf(p->a, "summary.%s", k), "expected a string");
      s->summary[s->nsummary++] =
          (ice_kv_t){fl_arena_strdup(p->a, k), fl_arena_strdup(p->a, json_string_value(v))};
    }
  }
  const char *k;
  json_t *v;
  json_object_foreach((json_t *)j, k, v) {
    if (is_key(k, snapshot_keys, sizeof snapshot_keys / sizeof *snapshot_keys)) continue;
    if (!s->extra) s->extra = ice__arena_json(p->a, json_object());
    json_object_set(s->extra, k, v);
  }
  return FL_OK;
}

static int parse_snapshots(mp_t *p, const json_t *root) {
  ice_meta_t *m = p->m;
  const json_t *arr;
  int rc = ice__jarray(root, "snapshots", top(p), false, &arr, p->err);
  if (rc) return rc;
  size_t n = arr ? json_array_size(arr) : 0;
  m->snapshots = fl_arena_zalloc(p->a, (n ? n : 1) * sizeof *m->snapshots);
  for (size_t i = 0; i < n; i++) {
    ice_snapshot_t *s = &m->snapshots[i];
    rc = parse_snapshot(p, json_array_get(arr, i), ice__jitem(p->a, top(p), "snapshots", i), s);
    if (rc) return rc;
    if (ice_meta_snapshot(m, s->snapshot_id))
      return ice__jfail(p->err, top(p), ice__jitem(p->a, top(p), "snapshots", i),
                        "snapshot id %lld is used twice", (long long)s->snapshot_id);
    m->nsnapshots++;
  }
  return FL_OK;
}

static int parse_logs(mp_t *p, const json_t *root) {
  ice_meta_t *m = p->m;
  const json_t *arr;
  int rc = ice__jarray(root, "snapshot-log", top(p), false, &arr, p->err);
  if (rc) return rc;
  size_t n = arr ? json_array_size(arr) : 0;
  m->snapshot_log = fl_arena_zalloc(p->a, (n ? n : 1) * sizeof *m->snapshot_log);
  for (size_t i = 0; i < n; i++) {
    const json_t *e = json_array_get(arr, i);
    ice_jpath_t at = at_path(p, ice__jitem(p->a, top(p), "snapshot-log", i));
    if (!json_is_object(e)) return ice__jfail(p->err, at, NULL, "expected an object");
    ice_snapshot_log_entry_t *le = &m->snapshot_log[i];
    rc = ice__jint(e, "timestamp-ms", at, true, INT64_MIN, INT64_MAX, &le->timestamp_ms, NULL,
                   p->err);
    if (!rc)
      rc = ice__jint(e, "snapshot-id", at, true, INT64_MIN, INT64_MAX, &le->snapshot_id, NULL,
                     p->err);
    if (rc) return rc;
    m->nsnapshot_log++;
  }
  rc = ice__jarray(root, "metadata-log", top(p), false, &arr, p->err);
  if (rc) return rc;
  n = arr ? json_array_size(arr) : 0;
  m->metadata_log = fl_arena_zalloc(p->a, (n ? n : 1) * sizeof *m->metadata_log);
  for (size_t i = 0; i < n; i++) {
    const json_t *e = json_array_get(arr, i);
    ice_jpath_t at = at_path(p, ice__jitem(p->a, top(p), "metadata-log", i));
    if (!json_is_object(e)) return ice__jfail(p->err, at, NULL, "expected an object");
    ice_metadata_log_entry_t *le = &m->metadata_log[i];
    rc = ice__jint(e, "timestamp-ms", at, true, INT64_MIN, INT64_MAX, &le->timestamp_ms, NULL,
                   p->err);
    if (!rc) rc = ice__jstr(p->a, e, "metadata-file", at, true, &le->file, p->err);
    if (rc) return rc;
    m->nmetadata_log++;
  }
  return FL_OK;
}

static int parse_refs(mp_t *p, const json_t *root) {
  ice_meta_t *m = p->m;
  const json_t *refs = json_object_get(root, "refs");
  if (refs && json_is_null(refs)) refs = NULL;
  if (refs && !json_is_object(refs))
    return ice__jfail(p->err, top(p), "refs", "expected an object");
  size_t n = refs ? json_object_size(refs) : 0;
  m->refs = fl_arena_zalloc(p->a, (n + 1) * sizeof *m->refs);
  const char *name;
  const json_t *r;
  if (refs) {
    json_object_foreach((json_t *)refs, name, r) {
      ice_jpath_t at = at_path(p, fl_arena_sprintf(p->a, "refs.%s", name));
      if (!json_is_object(r)) return ice__jfail(p->err, at, NULL, "expected an object");
      ice_ref_t *ref = &m->refs[m->nrefs];
      ref->name = fl_arena_strdup(p->a, name);
      ref->max_ref_age_ms = ref->max_snapshot_age_ms = -1;
      int64_t keep = -1;
      const char *type = NULL;
      int rc = ice__jint(r, "snapshot-id", at, true, INT64_MIN, INT64_MAX, &ref->snapshot_id, NULL,
                         p->err);
      if (!rc) rc = ice__jstr(p->a, r, "type", at, true, &type, p->err);
      if (!rc)
        rc = ice__jint(r, "max-ref-age-ms", at, false, 0, INT64_MAX, &ref->max_ref_age_ms, NULL,
                       p->err);
      if (!rc)
        rc = ice__jint(r, "max-snapshot-age-ms", at, false, 0, INT64_MAX, &ref->max_snapshot_age_ms,
                       NULL, p->err);
      if (!rc)
        rc = ice__jint(r, "min-snapshots-to-keep", at, false, 0, INT32_MAX, &keep, NULL, p->err);
      if (rc) return rc;
      ref->min_snapshots_to_keep = (int32_t)keep;
      if (strcasecmp(type, "branch") == 0)
        ref->is_tag = false;
      else if (strcasecmp(type, "tag") == 0)
        ref->is_tag = true;
      else
        return ice__jfail(p->err, at, "type", "expected \"branch\" or \"tag\", not \"%s\"", type);
      if (ref->is_tag && (ref->max_snapshot_age_ms >= 0 || keep >= 0))
        return ice__jfail(p->err, at, NULL, "tags cannot have snapshot retention settings");
      if (!ice_meta_snapshot(m, ref->snapshot_id))
        return ice__jfail(p->err, at, "snapshot-id", "no snapshot with id %lld",
                          (long long)ref->snapshot_id);
      m->nrefs++;
    }
  }
  const ice_ref_t *main = ice_meta_ref(m, "main");
  if (m->current_snapshot_id != -1) {
    if (!ice_meta_snapshot(m, m->current_snapshot_id))
      return ice__jfail(p->err, top(p), "current-snapshot-id", "no snapshot with id %lld",
                        (long long)m->current_snapshot_id);
    if (main && main->snapshot_id != m->current_snapshot_id)
      return ice__jfail(p->err, top(p), "current-snapshot-id",
                        "%lld does not match the main branch (%lld)",
                        (long long)m->current_snapshot_id, (long long)main->snapshot_id);
    if (!main)
      m->refs[m->nrefs++] = (ice_ref_t){.name = "main",
                                        .snapshot_id = m->current_snapshot_id,
                                        .max_ref_age_ms = -1,
                                        .max_snapshot_age_ms = -1,
                                        .min_snapshots_to_keep = -1};
  } else if (main) {
    return ice__jfail(p->err, top(p), "current-snapshot-id",
                      "no current snapshot, but the main branch points at %lld",
                      (long long)main->snapshot_id);
  }
  return FL_OK;
}

static int parse_properties(mp_t *p, const json_t *root) {
  ice_meta_t *m = p->m;
  const json_t *props = json_object_get(root, "properties");
  if (!props || json_is_null(props)) return FL_OK;
  if (!json_is_object(props)) return ice__jfail(p->err, top(p), "properties", "expected an object");
  m->properties = fl_arena_zalloc(p->a, (json_object_size(props) + 1) * sizeof *m->properties);
  const char *k;
  const json_t *v;
  json_object_foreach((json_t *)props, k, v) {
    if (!json_is_string(v))
      return ice__jfail(p->err, top(p), fl_arena_sprintf(p->a, "properties.%s", k),
                        "expected a string value");
    m->properties[m->nproperties++] =
        (ice_kv_t){fl_arena_strdup(p->a, k), fl_arena_strdup(p->a, json_string_value(v))};
  }
  return FL_OK;
}

static const char *const modeled_keys[] = {"format-version",
                                           "table-uuid",
                                           "location",
                                           "last-sequence-number",
                                           "last-updated-ms",
                                           "last-column-id",
                                           "schema",
                                           "schemas",
                                           "current-schema-id",
                                           "partition-spec",
                                           "partition-specs",
                                           "default-spec-id",
                                           "last-partition-id",
                                           "sort-orders",
                                           "default-sort-order-id",
                                           "properties",
                                           "current-snapshot-id",
                                           "snapshots",
                                           "snapshot-log",
                                           "metadata-log",
                                           "refs",
                                           "next-row-id"};

static int parse_root(mp_t *p, const json_t *root) {
  ice_meta_t *m = p->m;
  if (!json_is_object(root)) return ice__jfail(p->err, top(p), NULL, "expected a JSON object");
  int64_t fv = 0;
  int rc = ice__jint(root, "format-version", top(p), true, 1, INT32_MAX, &fv, NULL, p->err);
  if (rc) return rc;
  if (fv > 3)
    return fl_err_set(p->err, FL_EUNSUPPORTED,
                      "%s: format-version %lld is not supported (floe reads versions 1 to 3)",
                      p->what, (long long)fv);
  p->fv = m->format_version = (int)fv;
  const char *uuid = NULL;
  rc = ice__jstr(p->a, root, "table-uuid", top(p), fv >= 2, &uuid, p->err);
  if (rc) return rc;
  if (uuid) {
    uint8_t b[16];
    if (!ty_uuid_parse(uuid, strlen(uuid), b))
      return ice__jfail(p->err, top(p), "table-uuid", "\"%s\" is not a uuid", uuid);
    ty_uuid_format(b, m->table_uuid);
  }
  rc = ice__jstr(p->a, root, "location", top(p), true, &m->location, p->err);
  if (!rc)
    rc = ice__jint(root, "last-sequence-number", top(p), fv >= 2, 0, INT64_MAX,
                   &m->last_sequence_number, NULL, p->err);
  if (!rc)
    rc = ice__jint(root, "last-updated-ms", top(p), true, INT64_MIN, INT64_MAX, &m->last_updated_ms,
                   NULL, p->err);
  int64_t lc = 0;
  if (!rc) rc = ice__jint(root, "last-column-id", top(p), true, 0, INT32_MAX, &lc, NULL, p->err);
  if (rc) return rc;
  m->last_column_id = (int32_t)lc;
  m->current_snapshot_id = -1;
  m->next_row_id = -1;
  rc = ice__jint(root, "current-snapshot-id", top(p), false, INT64_MIN, INT64_MAX,
                 &m->current_snapshot_id, NULL, p->err);
  if (!rc)
    rc = ice__jint(root, "next-row-id", top(p), false, 0, INT64_MAX, &m->next_row_id, NULL, p->err);
  if (rc) return rc;
  if (m->current_snapshot_id < 0) m->current_snapshot_id = -1;
  if ((rc = parse_schemas(p, root)) || (rc = parse_specs(p, root)) ||
      (rc = parse_sort_orders(p, root)) || (rc = parse_properties(p, root)) ||
      (rc = parse_snapshots(p, root)) || (rc = parse_logs(p, root)) || (rc = parse_refs(p, root)))
    return rc;
  m->extra = ice__arena_json(p->a, json_object());
  const char *k;
  json_t *v;
  json_object_foreach((json_t *)root, k, v) {
    if (!is_key(k, modeled_keys, sizeof modeled_keys / sizeof *modeled_keys))
      json_object_set(m->extra, k, v);
  }
  return FL_OK;
}

int ice_meta_parse(const char *json, size_t len, const char *what, ice_meta_t **out,
                   fl_err_t *err) {
  *out = NULL;
  what = what ? what : "metadata.json";
  json_error_t je;
  json_t *root = json_loadb(json, len, 0, &je);
  if (!root)
    return fl_err_set(err, FL_ECORRUPT, "%s: invalid JSON at line %d column %d: %s", what, je.line,
                      je.column, je.text);
  fl_arena_t *a = fl_arena_new(0);
  ice_meta_t *m = fl_arena_zalloc(a, sizeof *m);
  m->arena = a;
  mp_t p = {.a = a, .what = fl_arena_strdup(a, what), .err = err, .m = m};
  int rc = parse_root(&p, root);
  json_decref(root);
  if (rc) {
    if (rc == FL_EPARSE) err->code = rc = FL_ECORRUPT;
    fl_arena_free(a);
    return rc;
  }
  *out = m;
  return FL_OK;
}

/* Inflates gzip bytes into a malloc'd buffer, refusing more than the cap. */
static int gunzip(const uint8_t *in, size_t n, const char *path, uint8_t **out, size_t *outlen,
                  fl_err_t *err) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
    return fl_err_set(err, FL_EINTERNAL, "%s: cannot start zlib", path);
  size_t cap = n * 4 + 4096, len = 0;
  uint8_t *buf = fl_malloc(cap);
  z.next_in = (Bytef *)in;
  z.avail_in = (uInt)n;
  int zr;
  for (;;) {
    if (len == cap) {
      if (cap >= META_MAX_INFLATED_BYTES) {
        inflateEnd(&z);
        fl_free(buf);
        return fl_err_set(err, FL_ELIMIT, "%s: inflates to more than %zu bytes", path,
                          META_MAX_INFLATED_BYTES);
      }
      cap *= 2;
      buf = fl_realloc(buf, cap);
    }
    z.next_out = buf + len;
    z.avail_out = (uInt)(cap - len);
    zr = inflate(&z, Z_NO_FLUSH);
    len = cap - z.avail_out;
    if (zr == Z_STREAM_END) break;
    if (zr == Z_OK || (zr == Z_BUF_ERROR && z.avail_out == 0)) continue;
    break; /* an error, or no progress: the input ended early */
  }
  inflateEnd(&z);
  if (zr != Z_STREAM_END) {
    fl_free(buf);
    return fl_err_set(err, FL_ECORRUPT, "%s: gzip data is %s", path,
                      zr == Z_BUF_ERROR ? "truncated" : "corrupt");
  }
  *out = buf;
  *outlen = len;
  return FL_OK;
}

int ice_meta_read(io_fs_t *fs, const char *path, ice_meta_t **out, fl_err_t *err) {
  uint8_t *data = NULL;
  size_t len = 0;
  *out = NULL;
  int rc = io_read_all(fs, path, META_MAX_FILE_BYTES, &data, &len, err);
  if (rc) return rc;
  if (len >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
    uint8_t *plain = NULL;
    size_t plen = 0;
    rc = gunzip(data, len, path, &plain, &plen, err);
    fl_free(data);
    if (rc) return rc;
    data = plain;
    len = plen;
  }
  rc = ice_meta_parse((const char *)data, len, path, out, err);
  fl_free(data);
  return rc;
}

void ice_meta_free(ice_meta_t *m) {
  if (m) fl_arena_free(m->arena);
}
