/*
 * ice_meta_update.c - building, copying, querying and changing table
 * metadata (layer 5, iceberg).
 *
 * Metadata read from a file is never changed in place: a commit clones
 * it (a deep copy into a new arena) and applies the update functions to
 * the clone, which then is written as the next metadata file. The update
 * rules are those of Java's TableMetadata.Builder: an equal schema, a
 * compatible spec or an equal sort order is reused instead of added;
 * setting main moves current-snapshot-id and appends to the snapshot log;
 * removing snapshots drops the refs that point at them and the snapshot
 * log before the newest removed entry (so time travel never skips a
 * state); the metadata log keeps write.metadata.previous-versions-max
 * entries. Arrays grow by reallocation in the arena, which is fine for
 * the handful of changes one commit makes.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/time.h"
#include "iceberg/ice_meta.h"
#include "iceberg/ice_meta_int.h"

/* ---- lookups ---- */

const ty_schema_t *ice_meta_schema_by_id(const ice_meta_t *m, int32_t id) {
  for (uint32_t i = 0; i < m->nschemas; i++)
    if (m->schemas[i]->schema_id == id) return m->schemas[i];
  return NULL;
}

const ty_schema_t *ice_meta_schema(const ice_meta_t *m) {
  return ice_meta_schema_by_id(m, m->current_schema_id);
}

const ice_spec_t *ice_meta_spec_by_id(const ice_meta_t *m, int32_t id) {
  for (uint32_t i = 0; i < m->nspecs; i++)
    if (m->specs[i]->spec_id == id) return m->specs[i];
  return NULL;
}

const ice_spec_t *ice_meta_spec(const ice_meta_t *m) {
  return ice_meta_spec_by_id(m, m->default_spec_id);
}

static const ice_sort_order_t *sort_order_by_id(const ice_meta_t *m, int32_t id) {
  for (uint32_t i = 0; i < m->nsort_orders; i++)
    if (m->sort_orders[i]->order_id == id) return m->sort_orders[i];
  return NULL;
}

const ice_sort_order_t *ice_meta_sort_order(const ice_meta_t *m) {
  return sort_order_by_id(m, m->default_sort_order_id);
}

const ice_snapshot_t *ice_meta_snapshot(const ice_meta_t *m, int64_t id) {
  for (uint32_t i = 0; i < m->nsnapshots; i++)
    if (m->snapshots[i].snapshot_id == id) return &m->snapshots[i];
  return NULL;
}

const ice_snapshot_t *ice_meta_current_snapshot(const ice_meta_t *m) {
  return m->current_snapshot_id < 0 ? NULL : ice_meta_snapshot(m, m->current_snapshot_id);
}

const ice_ref_t *ice_meta_ref(const ice_meta_t *m, const char *name) {
  for (uint32_t i = 0; i < m->nrefs; i++)
    if (strcmp(m->refs[i].name, name) == 0) return &m->refs[i];
  return NULL;
}

const ice_snapshot_t *ice_meta_snapshot_as_of(const ice_meta_t *m, int64_t ts_ms) {
  if (m->nsnapshot_log > 0) {
    const ice_snapshot_log_entry_t *best = NULL;
    for (uint32_t i = 0; i < m->nsnapshot_log; i++)
      if (m->snapshot_log[i].timestamp_ms <= ts_ms) best = &m->snapshot_log[i];
    /* An expired snapshot was the state then: there is nothing to give. */
    return best ? ice_meta_snapshot(m, best->snapshot_id) : NULL;
  }
  /* No log (older writers): walk main's ancestry. */
  const ice_snapshot_t *s = ice_meta_current_snapshot(m);
  for (uint32_t steps = 0; s && steps <= m->nsnapshots; steps++) {
    if (s->timestamp_ms <= ts_ms) return s;
    s = s->parent_id >= 0 ? ice_meta_snapshot(m, s->parent_id) : NULL;
  }
  return NULL;
}

const char *ice_meta_property(const ice_meta_t *m, const char *key) {
  for (uint32_t i = 0; i < m->nproperties; i++)
    if (strcmp(m->properties[i].key, key) == 0) return m->properties[i].value;
  return NULL;
}

int64_t ice_meta_property_int(const ice_meta_t *m, const char *key, int64_t dflt) {
  const char *v = ice_meta_property(m, key);
  if (!v || !*v) return dflt;
  char *end;
  long long x = strtoll(v, &end, 10);
  return *end ? dflt : (int64_t)x;
}

const char *ice_snapshot_summary(const ice_snapshot_t *s, const char *key) {
  for (uint32_t i = 0; i < s->nsummary; i++)
    if (strcmp(s->summary[i].key, key) == 0) return s->summary[i].value;
  return NULL;
}

const char *ice_snapshot_operation(const ice_snapshot_t *s) {
  const char *op = ice_snapshot_summary(s, "operation");
  return op ? op : "";
}

/* ---- copies ---- */

static const char *sdup(fl_arena_t *a, const char *s) { return s ? fl_arena_strdup(a, s) : NULL; }

static void transform_copy(fl_arena_t *a, ice_transform_t *t) { t->text = sdup(a, t->text); }

ice_spec_t *ice__spec_copy(fl_arena_t *a, const ice_spec_t *s) {
  ice_spec_t *c = fl_arena_memdup(a, s, sizeof *s);
  c->fields = fl_arena_zalloc(a, (s->nfields ? s->nfields : 1) * sizeof *c->fields);
  for (uint32_t i = 0; i < s->nfields; i++) {
    c->fields[i] = s->fields[i];
    c->fields[i].name = sdup(a, s->fields[i].name);
    transform_copy(a, &c->fields[i].transform);
  }
  return c;
}

ice_sort_order_t *ice__sort_order_copy(fl_arena_t *a, const ice_sort_order_t *o) {
  ice_sort_order_t *c = fl_arena_memdup(a, o, sizeof *o);
  c->fields = fl_arena_zalloc(a, (o->nfields ? o->nfields : 1) * sizeof *c->fields);
  for (uint32_t i = 0; i < o->nfields; i++) {
    c->fields[i] = o->fields[i];
    transform_copy(a, &c->fields[i].transform);
  }
  return c;
}

static json_t *arena_json_copy(fl_arena_t *a, const json_t *j) {
  return j ? ice__arena_json(a, json_deep_copy(j)) : NULL;
}

void ice__snapshot_copy(fl_arena_t *a, ice_snapshot_t *dst, const ice_snapshot_t *src) {
  *dst = *src;
  dst->manifest_list = sdup(a, src->manifest_list);
  if (src->nmanifests_v1) {
    dst->manifests_v1 = fl_arena_zalloc(a, src->nmanifests_v1 * sizeof *dst->manifests_v1);
    for (uint32_t i = 0; i < src->nmanifests_v1; i++)
      dst->manifests_v1[i] = sdup(a, src->manifests_v1[i]);
  }
  /* "operation" goes first whatever order the caller gave. */
  dst->summary = fl_arena_zalloc(a, (src->nsummary + 1) * sizeof *dst->summary);
  dst->nsummary = 0;
  const char *op = ice_snapshot_summary(src, "operation");
  if (op) dst->summary[dst->nsummary++] = (ice_kv_t){"operation", sdup(a, op)};
  for (uint32_t i = 0; i < src->nsummary; i++)
    if (strcmp(src->summary[i].key, "operation") != 0)
      dst->summary[dst->nsummary++] =
          (ice_kv_t){sdup(a, src->summary[i].key), sdup(a, src->summary[i].value)};
  dst->extra = arena_json_copy(a, src->extra);
  dst->json = sdup(a, src->json);
}

static void *grow(fl_arena_t *a, const void *old, size_t n, size_t extra, size_t elem) {
  void *p = fl_arena_zalloc(a, (n + extra) * elem + 1);
  if (n) memcpy(p, old, n * elem);
  return p;
}

ice_meta_t *ice_meta_clone(const ice_meta_t *src) {
  fl_arena_t *a = fl_arena_new(0);
  ice_meta_t *m = fl_arena_memdup(a, src, sizeof *src);
  m->arena = a;
  m->location = sdup(a, src->location);
  m->schemas = grow(a, NULL, 0, src->nschemas, sizeof *m->schemas);
  for (uint32_t i = 0; i < src->nschemas; i++) m->schemas[i] = ice__schema_copy(a, src->schemas[i]);
  m->specs = grow(a, NULL, 0, src->nspecs, sizeof *m->specs);
  for (uint32_t i = 0; i < src->nspecs; i++) m->specs[i] = ice__spec_copy(a, src->specs[i]);
  m->sort_orders = grow(a, NULL, 0, src->nsort_orders, sizeof *m->sort_orders);
  for (uint32_t i = 0; i < src->nsort_orders; i++)
    m->sort_orders[i] = ice__sort_order_copy(a, src->sort_orders[i]);
  m->properties = grow(a, NULL, 0, src->nproperties, sizeof *m->properties);
  for (uint32_t i = 0; i < src->nproperties; i++)
    m->properties[i] =
        (ice_kv_t){sdup(a, src->properties[i].key), sdup(a, src->properties[i].value)};
  m->snapshots = grow(a, NULL, 0, src->nsnapshots, sizeof *m->snapshots);
  for (uint32_t i = 0; i < src->nsnapshots; i++)
    ice__snapshot_copy(a, &m->snapshots[i], &src->snapshots[i]);
  m->snapshot_log = grow(a, src->snapshot_log, src->nsnapshot_log, 0, sizeof *m->snapshot_log);
  m->metadata_log = grow(a, NULL, 0, src->nmetadata_log, sizeof *m->metadata_log);
  for (uint32_t i = 0; i < src->nmetadata_log; i++)
    m->metadata_log[i] = (ice_metadata_log_entry_t){src->metadata_log[i].timestamp_ms,
                                                    sdup(a, src->metadata_log[i].file)};
  m->refs = grow(a, NULL, 0, src->nrefs, sizeof *m->refs);
  for (uint32_t i = 0; i < src->nrefs; i++) {
    m->refs[i] = src->refs[i];
    m->refs[i].name = sdup(a, src->refs[i].name);
  }
  m->extra = src->extra ? arena_json_copy(a, src->extra) : ice__arena_json(a, json_object());
  return m;
}

/* ---- a new table ---- */

typedef struct idmap {
  int32_t *from, *to;
  size_t n;
} idmap_t;

/* Gives the copy fresh ids the way Java's TypeUtil.assignFreshIds does: a
 * struct's fields first, then each field's nested type, recording the
 * old -> new mapping. */
static void fresh_ids(fl_arena_t *a, ty_type_t *t, int32_t *next, idmap_t *map) {
  if (!ty_is_nested(t)) return;
  for (uint32_t i = 0; i < t->nfields; i++) {
    map->from = grow(a, map->from, map->n, 1, sizeof(int32_t));
    map->to = grow(a, map->to, map->n, 1, sizeof(int32_t));
    map->from[map->n] = t->fields[i].id;
    map->to[map->n++] = t->fields[i].id = ++*next;
  }
  for (uint32_t i = 0; i < t->nfields; i++) fresh_ids(a, (ty_type_t *)t->fields[i].type, next, map);
}

static bool map_id(const idmap_t *map, int32_t from, int32_t *to) {
  for (size_t i = 0; i < map->n; i++)
    if (map->from[i] == from) {
      *to = map->to[i];
      return true;
    }
  return false;
}

int ice_meta_new(const ty_schema_t *schema, const ice_spec_t *spec, const ice_sort_order_t *sort,
                 const char *location, const ice_kv_t *props, uint32_t nprops, ice_meta_t **out,
                 fl_err_t *err) {
  *out = NULL;
  if (!schema || !location || !*location)
    return fl_err_set(err, FL_EINVALID, "a new table needs a schema and a location");
  fl_arena_t *a = fl_arena_new(0);
  ice_meta_t *m = fl_arena_zalloc(a, sizeof *m);
  m->arena = a;
  m->format_version = 2;
  ice_new_uuid(m->table_uuid);
  size_t ln = strlen(location);
  while (ln > 1 && location[ln - 1] == '/') ln--;
  m->location = fl_arena_strndup(a, location, ln);
  m->last_updated_ms = fl_now_micros() / 1000;
  m->current_snapshot_id = -1;
  m->next_row_id = -1;
  m->extra = ice__arena_json(a, json_object());
  int rc = FL_OK;

  m->properties = grow(a, NULL, 0, nprops, sizeof *m->properties);
  for (uint32_t i = 0; i < nprops; i++) {
    if (strcmp(props[i].key, "format-version") == 0) {
      /* A reserved property: it picks the version and is not stored. */
      if (strcmp(props[i].value, "1") && strcmp(props[i].value, "2") &&
          strcmp(props[i].value, "3")) {
        rc = fl_err_set(err, FL_EINVALID, "format-version '%s': floe writes versions 1 to 3",
                        props[i].value);
        goto fail;
      }
      m->format_version = props[i].value[0] - '0';
      continue;
    }
    ice_meta_set_property(m, props[i].key, props[i].value);
  }
  if (m->format_version >= 3) m->next_row_id = 0;

  ty_schema_t *s = ice__schema_copy(a, schema);
  s->schema_id = 0;
  idmap_t map = {0};
  int32_t next = 0;
  fresh_ids(a, &s->root, &next, &map);
  for (uint32_t i = 0; i < s->nidentifiers; i++)
    if (!map_id(&map, schema->identifier_ids[i], &s->identifier_ids[i])) {
      rc = fl_err_set(err, FL_EINVALID, "identifier field id %d is not in the schema",
                      schema->identifier_ids[i]);
      goto fail;
    }
  m->schemas = grow(a, NULL, 0, 1, sizeof *m->schemas);
  m->schemas[m->nschemas++] = s;
  m->last_column_id = next;

  ice_spec_t *ns = fl_arena_zalloc(a, sizeof *ns);
  m->last_partition_id = 999;
  if (spec && spec->nfields) {
    ns = ice__spec_copy(a, spec);
    ns->spec_id = 0;
    for (uint32_t i = 0; i < ns->nfields; i++) {
      ice_partition_field_t *f = &ns->fields[i];
      if (!map_id(&map, spec->fields[i].source_id, &f->source_id)) {
        rc = fl_err_set(err, FL_EINVALID, "partition field '%s': source id %d is not in the schema",
                        f->name, spec->fields[i].source_id);
        goto fail;
      }
      const ty_field_t *src = ty_schema_find_id(s, f->source_id);
      if (f->transform.kind != ICE_T_UNKNOWN &&
          !ice_transform_can_apply(&f->transform, src->type)) {
        rc =
            fl_err_set(err, FL_EINVALID, "partition field '%s': the transform does not apply to %s",
                       f->name, ty_kind_name(src->type->kind));
        goto fail;
      }
      f->field_id = ++m->last_partition_id;
    }
  }
  m->specs = grow(a, NULL, 0, 1, sizeof *m->specs);
  m->specs[m->nspecs++] = ns;

  ice_sort_order_t *no = fl_arena_zalloc(a, sizeof *no);
  if (sort && sort->nfields) {
    no = ice__sort_order_copy(a, sort);
    no->order_id = 1;
    for (uint32_t i = 0; i < no->nfields; i++)
      if (!map_id(&map, sort->fields[i].source_id, &no->fields[i].source_id)) {
        rc = fl_err_set(err, FL_EINVALID, "sort field %u: source id %d is not in the schema", i,
                        sort->fields[i].source_id);
        goto fail;
      }
  }
  m->sort_orders = grow(a, NULL, 0, 1, sizeof *m->sort_orders);
  m->sort_orders[m->nsort_orders++] = no;
  m->default_sort_order_id = no->order_id;
  *out = m;
  return FL_OK;
fail:
  fl_arena_free(a);
  return rc;
}

/* ---- updates ---- */

void ice_meta_log_previous(ice_meta_t *m, const char *prev_file, int64_t prev_updated_ms,
                           int64_t now_ms) {
  int64_t max = ice_meta_property_int(m, "write.metadata.previous-versions-max", 100);
  if (max < 1) max = 1;
  uint32_t n = m->nmetadata_log + 1;
  uint32_t skip = n > (uint64_t)max ? n - (uint32_t)max : 0;
  ice_metadata_log_entry_t *log = fl_arena_zalloc(m->arena, n * sizeof *log);
  uint32_t k = 0;
  for (uint32_t i = skip; i < m->nmetadata_log; i++) log[k++] = m->metadata_log[i];
  log[k++] = (ice_metadata_log_entry_t){prev_updated_ms, fl_arena_strdup(m->arena, prev_file)};
  m->metadata_log = log;
  m->nmetadata_log = k;
  m->last_updated_ms = now_ms;
}

int ice_meta_add_schema(ice_meta_t *m, const ty_schema_t *s, int32_t *id, fl_err_t *err) {
  int32_t highest = ty_schema_highest_id(s);
  for (uint32_t i = 0; i < s->nidentifiers; i++)
    if (!ty_schema_find_id(s, s->identifier_ids[i]))
      return fl_err_set(err, FL_EINVALID, "identifier field id %d is not in the schema",
                        s->identifier_ids[i]);
  const ty_schema_t *found = NULL;
  int32_t max_id = -1;
  for (uint32_t i = 0; i < m->nschemas; i++) {
    if (m->schemas[i]->schema_id > max_id) max_id = m->schemas[i]->schema_id;
    if (!found && ice__schema_same(m->schemas[i], s)) found = m->schemas[i];
  }
  if (!found) {
    ty_schema_t *c = ice__schema_copy(m->arena, s);
    c->schema_id = max_id + 1;
    m->schemas = grow(m->arena, m->schemas, m->nschemas, 1, sizeof *m->schemas);
    m->schemas[m->nschemas++] = c;
    found = c;
  }
  m->current_schema_id = found->schema_id;
  if (highest > m->last_column_id) m->last_column_id = highest;
  if (id) *id = found->schema_id;
  return FL_OK;
}

/* Same fields, ids and names (a renamed partition field makes a new spec,
 * as Java's compatibleWith compares names). */
static bool spec_same_ids(const ice_spec_t *a, const ice_spec_t *b) {
  if (!ice_spec_compatible(a, b)) return false;
  for (uint32_t i = 0; i < a->nfields; i++)
    if (a->fields[i].field_id != b->fields[i].field_id ||
        strcmp(a->fields[i].name ? a->fields[i].name : "",
               b->fields[i].name ? b->fields[i].name : "") != 0)
      return false;
  return true;
}

int ice_meta_add_spec(ice_meta_t *m, const ice_spec_t *s, int32_t *id, fl_err_t *err) {
  const ty_schema_t *schema = ice_meta_schema(m);
  for (uint32_t i = 0; i < s->nfields; i++) {
    const ice_partition_field_t *f = &s->fields[i];
    if (f->transform.kind == ICE_T_VOID) continue;
    if (!schema || !ty_schema_find_id(schema, f->source_id))
      return fl_err_set(err, FL_EINVALID,
                        "partition field '%s': source id %d is not in the current schema",
                        f->name ? f->name : "?", f->source_id);
  }
  ice_spec_t *c = ice__spec_copy(m->arena, s);
  int32_t last = m->last_partition_id;
  for (uint32_t i = 0; i < c->nfields; i++) {
    ice_partition_field_t *f = &c->fields[i];
    /* A field some spec already has keeps its id: the same field (or, in
     * v1, its void replacement) as given, and in v2+ one with the same
     * source, transform and name, as Java's UpdatePartitionSpec recycles
     * them; ids that are unset (below 1000) or taken by another field get
     * the next free one. */
    bool reused = false, taken = false;
    for (uint32_t k = 0; k < m->nspecs && !reused; k++)
      for (uint32_t j = 0; j < m->specs[k]->nfields && !reused; j++) {
        const ice_partition_field_t *g = &m->specs[k]->fields[j];
        bool same_transform = ice_transform_equal(&g->transform, &f->transform);
        if (g->source_id == f->source_id && g->field_id == f->field_id &&
            (same_transform || f->transform.kind == ICE_T_VOID)) {
          reused = true;
        } else if (m->format_version >= 2 && g->source_id == f->source_id && same_transform &&
                   g->name && f->name && strcmp(g->name, f->name) == 0) {
          f->field_id = g->field_id;
          reused = true;
        } else if (g->field_id == f->field_id) {
          taken = true;
        }
      }
    if (reused) continue;
    if (f->field_id < 1000 || taken)
      f->field_id = ++last;
    else if (f->field_id > last)
      last = f->field_id;
  }
  const ice_spec_t *found = NULL;
  int32_t max_id = -1;
  for (uint32_t i = 0; i < m->nspecs; i++) {
    if (m->specs[i]->spec_id > max_id) max_id = m->specs[i]->spec_id;
    if (!found && spec_same_ids(m->specs[i], c)) found = m->specs[i];
  }
  if (!found) {
    c->spec_id = max_id + 1;
    m->specs = grow(m->arena, m->specs, m->nspecs, 1, sizeof *m->specs);
    m->specs[m->nspecs++] = c;
    m->last_partition_id = last;
    found = c;
  }
  m->default_spec_id = found->spec_id;
  if (id) *id = found->spec_id;
  return FL_OK;
}

static bool order_same(const ice_sort_order_t *a, const ice_sort_order_t *b) {
  if (a->nfields != b->nfields) return false;
  for (uint32_t i = 0; i < a->nfields; i++) {
    const ice_sort_field_t *x = &a->fields[i], *y = &b->fields[i];
    if (x->source_id != y->source_id || x->descending != y->descending ||
        x->nulls_first != y->nulls_first || !ice_transform_equal(&x->transform, &y->transform))
      return false;
  }
  return true;
}

int ice_meta_add_sort_order(ice_meta_t *m, const ice_sort_order_t *o, int32_t *id, fl_err_t *err) {
  const ty_schema_t *schema = ice_meta_schema(m);
  for (uint32_t i = 0; i < o->nfields; i++)
    if (!schema || !ty_schema_find_id(schema, o->fields[i].source_id))
      return fl_err_set(err, FL_EINVALID,
                        "sort field %u: source id %d is not in the current schema", i,
                        o->fields[i].source_id);
  const ice_sort_order_t *found = NULL;
  int32_t max_id = 0;
  for (uint32_t i = 0; i < m->nsort_orders; i++) {
    if (m->sort_orders[i]->order_id > max_id) max_id = m->sort_orders[i]->order_id;
    if (!found && order_same(m->sort_orders[i], o)) found = m->sort_orders[i];
  }
  if (!found) {
    ice_sort_order_t *c = ice__sort_order_copy(m->arena, o);
    c->order_id = o->nfields ? max_id + 1 : 0;
    m->sort_orders = grow(m->arena, m->sort_orders, m->nsort_orders, 1, sizeof *m->sort_orders);
    m->sort_orders[m->nsort_orders++] = c;
    found = c;
  }
  m->default_sort_order_id = found->order_id;
  if (id) *id = found->order_id;
  return FL_OK;
}

void ice_meta_set_property(ice_meta_t *m, const char *key, const char *value) {
  for (uint32_t i = 0; i < m->nproperties; i++) {
    if (strcmp(m->properties[i].key, key) != 0) continue;
    if (value) {
      m->properties[i].value = fl_arena_strdup(m->arena, value);
    } else {
      memmove(&m->properties[i], &m->properties[i + 1],
              (m->nproperties - i - 1) * sizeof *m->properties);
      m->nproperties--;
    }
    return;
  }
  if (!value) return;
  m->properties = grow(m->arena, m->properties, m->nproperties, 1, sizeof *m->properties);
  m->properties[m->nproperties++] =
      (ice_kv_t){fl_arena_strdup(m->arena, key), fl_arena_strdup(m->arena, value)};
}

int ice_meta_add_snapshot(ice_meta_t *m, const ice_snapshot_t *s, fl_err_t *err) {
  if (ice_meta_snapshot(m, s->snapshot_id))
    return fl_err_set(err, FL_EINVALID, "snapshot %" PRId64 " already exists", s->snapshot_id);
  if (m->format_version >= 2 && s->sequence_number <= m->last_sequence_number)
    return fl_err_set(err, FL_EINVALID,
                      "snapshot %" PRId64 ": sequence number %" PRId64
                      " is not above last-sequence-number %" PRId64,
                      s->snapshot_id, s->sequence_number, m->last_sequence_number);
  if (s->schema_id >= 0 && !ice_meta_schema_by_id(m, s->schema_id))
    return fl_err_set(err, FL_EINVALID, "snapshot %" PRId64 ": no schema with id %d",
                      s->snapshot_id, s->schema_id);
  m->snapshots = grow(m->arena, m->snapshots, m->nsnapshots, 1, sizeof *m->snapshots);
  ice_snapshot_t *c = &m->snapshots[m->nsnapshots++];
  ice__snapshot_copy(m->arena, c, s);
  if (m->format_version < 2) c->sequence_number = 0;
  /* v3 row lineage: a snapshot that says how many rows it added gets the
   * table's next row id as its first, and the table's counter moves on. */
  if (m->format_version >= 3 && m->next_row_id >= 0 && c->added_rows >= 0) {
    if (c->first_row_id < 0) c->first_row_id = m->next_row_id;
    if (c->first_row_id + c->added_rows > m->next_row_id)
      m->next_row_id = c->first_row_id + c->added_rows;
  }
  if (c->sequence_number > m->last_sequence_number) m->last_sequence_number = c->sequence_number;
  if (c->timestamp_ms > m->last_updated_ms) m->last_updated_ms = c->timestamp_ms;
  return FL_OK;
}

static bool ref_equal(const ice_ref_t *a, const ice_ref_t *b) {
  return a->snapshot_id == b->snapshot_id && a->is_tag == b->is_tag &&
         a->max_ref_age_ms == b->max_ref_age_ms &&
         a->max_snapshot_age_ms == b->max_snapshot_age_ms &&
         a->min_snapshots_to_keep == b->min_snapshots_to_keep;
}

int ice_meta_set_ref(ice_meta_t *m, const ice_ref_t *ref, int64_t now_ms, fl_err_t *err) {
  if (!ref->name || !*ref->name) return fl_err_set(err, FL_EINVALID, "a ref needs a name");
  if (!ice_meta_snapshot(m, ref->snapshot_id))
    return fl_err_set(err, FL_EINVALID, "ref %s: snapshot %" PRId64 " does not exist", ref->name,
                      ref->snapshot_id);
  bool is_main = strcmp(ref->name, "main") == 0;
  if (is_main && ref->is_tag) return fl_err_set(err, FL_EINVALID, "main must be a branch");
  ice_ref_t *slot = (ice_ref_t *)ice_meta_ref(m, ref->name);
  if (slot && ref_equal(slot, ref)) return FL_OK;
  if (!slot) {
    m->refs = grow(m->arena, m->refs, m->nrefs, 1, sizeof *m->refs);
    slot = &m->refs[m->nrefs++];
    slot->name = fl_arena_strdup(m->arena, ref->name);
  }
  const char *name = slot->name;
  *slot = *ref;
  slot->name = name;
  if (slot->is_tag) slot->max_snapshot_age_ms = slot->min_snapshots_to_keep = -1;
  if (is_main && m->current_snapshot_id != ref->snapshot_id) {
    m->current_snapshot_id = ref->snapshot_id;
    int64_t ts = now_ms;
    if (m->nsnapshot_log && ts < m->snapshot_log[m->nsnapshot_log - 1].timestamp_ms)
      ts = m->snapshot_log[m->nsnapshot_log - 1].timestamp_ms; /* the log stays sorted */
    m->snapshot_log = grow(m->arena, m->snapshot_log, m->nsnapshot_log, 1, sizeof *m->snapshot_log);
    m->snapshot_log[m->nsnapshot_log++] = (ice_snapshot_log_entry_t){ts, ref->snapshot_id};
    if (ts > m->last_updated_ms) m->last_updated_ms = ts;
  }
  return FL_OK;
}

static void drop_ref_at(ice_meta_t *m, uint32_t i) {
  if (strcmp(m->refs[i].name, "main") == 0) m->current_snapshot_id = -1;
  memmove(&m->refs[i], &m->refs[i + 1], (m->nrefs - i - 1) * sizeof *m->refs);
  m->nrefs--;
}

int ice_meta_remove_ref(ice_meta_t *m, const char *name, fl_err_t *err) {
  for (uint32_t i = 0; i < m->nrefs; i++)
    if (strcmp(m->refs[i].name, name) == 0) {
      drop_ref_at(m, i);
      return FL_OK;
    }
  return fl_err_set(err, FL_ENOTFOUND, "no ref named %s", name);
}

static bool in_ids(const int64_t *ids, uint32_t n, int64_t id) {
  for (uint32_t i = 0; i < n; i++)
    if (ids[i] == id) return true;
  return false;
}

/* Drops the entries of the statistics array `key` in extra that belong
 * to removed snapshots. */
static void drop_statistics(ice_meta_t *m, const char *key, const int64_t *ids, uint32_t n) {
  json_t *arr = m->extra ? json_object_get(m->extra, key) : NULL;
  if (!json_is_array(arr)) return;
  for (size_t i = json_array_size(arr); i-- > 0;) {
    json_t *sid = json_object_get(json_array_get(arr, i), "snapshot-id");
    if (json_is_integer(sid) && in_ids(ids, n, json_integer_value(sid))) json_array_remove(arr, i);
  }
}

void ice_meta_remove_snapshots(ice_meta_t *m, const int64_t *ids, uint32_t n) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < m->nsnapshots; i++)
    if (!in_ids(ids, n, m->snapshots[i].snapshot_id)) m->snapshots[k++] = m->snapshots[i];
  m->nsnapshots = k;
  /* History before an entry whose snapshot is gone is dropped with it, so
   * that no gap makes a later snapshot look current when it was not. */
  k = 0;
  for (uint32_t i = 0; i < m->nsnapshot_log; i++) {
    if (ice_meta_snapshot(m, m->snapshot_log[i].snapshot_id))
      m->snapshot_log[k++] = m->snapshot_log[i];
    else
      k = 0;
  }
  m->nsnapshot_log = k;
  for (uint32_t i = m->nrefs; i-- > 0;)
    if (!ice_meta_snapshot(m, m->refs[i].snapshot_id)) drop_ref_at(m, i);
  if (m->current_snapshot_id >= 0 && !ice_meta_snapshot(m, m->current_snapshot_id))
    m->current_snapshot_id = -1;
  drop_statistics(m, "statistics", ids, n);
  drop_statistics(m, "partition-statistics", ids, n);
}
