/*
 * meta_tool.c - a test-only driver of the table metadata code
 * (ice_meta.h) for the interop tests.
 *
 *   meta_tool dump FILE
 *       parses FILE (plain or gzip) and prints what floe sees through its
 *       lookups as one JSON object: versions and ids, every schema, spec
 *       and sort order, the current ones, properties, snapshots with
 *       summaries, refs, both logs.
 *   meta_tool rewrite IN OUT
 *       parses IN and writes it to OUT (exclusive create).
 *   meta_tool create OUT --location L --schema "id long not null, ..."
 *             [--identifier COL] [--spec "day(ts), bucket(4, id)"]
 *             [--sort "name DESC NULLS LAST"] [--prop k=v]...
 *             [--add-column "name type"] [--snapshots N] [--spec2 "..."]
 *       builds a new table (fresh ids), then optionally evolves the schema
 *       by one column, adds a second spec, commits N append snapshots
 *       (main moves each time, with snapshot log entries), tags the first
 *       one "first" and branches "audit" at the last one with retention
 *       settings, records a previous metadata file, and writes OUT; then
 *       prints the dump of what it wrote.
 *
 * Errors go to stderr with exit status 1.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "iceberg/ice_meta.h"
#include "iceberg/ice_schema_json.h"

static int fail(const fl_err_t *err) {
  fprintf(stderr, "meta_tool: %s: %s\n", fl_code_name(err->code), err->msg);
  return 1;
}

static json_t *kv_json(const ice_kv_t *kv, uint32_t n) {
  json_t *o = json_object();
  for (uint32_t i = 0; i < n; i++) json_object_set_new(o, kv[i].key, json_string(kv[i].value));
  return o;
}

static json_t *dump(const ice_meta_t *m) {
  json_t *o = json_object();
  json_object_set_new(o, "format-version", json_integer(m->format_version));
  json_object_set_new(o, "table-uuid", json_string(m->table_uuid));
  json_object_set_new(o, "location", json_string(m->location));
  json_object_set_new(o, "last-sequence-number", json_integer(m->last_sequence_number));
  json_object_set_new(o, "last-updated-ms", json_integer(m->last_updated_ms));
  json_object_set_new(o, "last-column-id", json_integer(m->last_column_id));
  json_object_set_new(o, "current-schema-id", json_integer(m->current_schema_id));
  json_object_set_new(o, "current-schema", ice_schema_to_json(ice_meta_schema(m)));
  json_t *arr = json_array();
  for (uint32_t i = 0; i < m->nschemas; i++)
    json_array_append_new(arr, ice_schema_to_json(m->schemas[i]));
  json_object_set_new(o, "schemas", arr);
  json_object_set_new(o, "default-spec-id", json_integer(m->default_spec_id));
  json_object_set_new(o, "default-spec", ice_spec_to_json(ice_meta_spec(m)));
  arr = json_array();
  for (uint32_t i = 0; i < m->nspecs; i++)
    json_array_append_new(arr, ice_spec_to_json(m->specs[i]));
  json_object_set_new(o, "partition-specs", arr);
  json_object_set_new(o, "last-partition-id", json_integer(m->last_partition_id));
  json_object_set_new(o, "default-sort-order-id", json_integer(m->default_sort_order_id));
  json_object_set_new(o, "default-sort-order", ice_sort_order_to_json(ice_meta_sort_order(m)));
  arr = json_array();
  for (uint32_t i = 0; i < m->nsort_orders; i++)
    json_array_append_new(arr, ice_sort_order_to_json(m->sort_orders[i]));
  json_object_set_new(o, "sort-orders", arr);
  json_object_set_new(o, "properties", kv_json(m->properties, m->nproperties));
  const ice_snapshot_t *cur = ice_meta_current_snapshot(m);
  json_object_set_new(o, "current-snapshot-id", cur ? json_integer(cur->snapshot_id) : json_null());
  arr = json_array();
  for (uint32_t i = 0; i < m->nsnapshots; i++) {
    const ice_snapshot_t *s = &m->snapshots[i];
    json_t *so = json_object();
    json_object_set_new(so, "snapshot-id", json_integer(s->snapshot_id));
    json_object_set_new(so, "parent-snapshot-id",
                        s->parent_id >= 0 ? json_integer(s->parent_id) : json_null());
    json_object_set_new(so, "sequence-number", json_integer(s->sequence_number));
    json_object_set_new(so, "timestamp-ms", json_integer(s->timestamp_ms));
    json_object_set_new(so, "manifest-list",
                        s->manifest_list ? json_string(s->manifest_list) : json_null());
    json_object_set_new(so, "schema-id",
                        s->schema_id >= 0 ? json_integer(s->schema_id) : json_null());
    json_object_set_new(so, "operation", json_string(ice_snapshot_operation(s)));
    json_object_set_new(so, "summary", kv_json(s->summary, s->nsummary));
    json_t *asof = json_null();
    const ice_snapshot_t *at = ice_meta_snapshot_as_of(m, s->timestamp_ms);
    if (at) asof = json_integer(at->snapshot_id);
    json_object_set_new(so, "as-of-own-timestamp", asof);
    json_array_append_new(arr, so);
  }
  json_object_set_new(o, "snapshots", arr);
  json_t *refs = json_object();
  for (uint32_t i = 0; i < m->nrefs; i++) {
    const ice_ref_t *r = &m->refs[i];
    json_t *ro = json_object();
    json_object_set_new(ro, "snapshot-id", json_integer(r->snapshot_id));
    json_object_set_new(ro, "type", json_string(r->is_tag ? "tag" : "branch"));
    json_object_set_new(ro, "max-ref-age-ms",
                        r->max_ref_age_ms >= 0 ? json_integer(r->max_ref_age_ms) : json_null());
    json_object_set_new(
        ro, "max-snapshot-age-ms",
        r->max_snapshot_age_ms >= 0 ? json_integer(r->max_snapshot_age_ms) : json_null());
    json_object_set_new(
        ro, "min-snapshots-to-keep",
        r->min_snapshots_to_keep >= 0 ? json_integer(r->min_snapshots_to_keep) : json_null());
    json_object_set_new(refs, r->name, ro);
  }
  json_object_set_new(o, "refs", refs);
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
  json_object_set_new(o, "extra", json_deep_copy(m->extra));
  return o;
}

static void print_dump(const ice_meta_t *m) {
  json_t *d = dump(m);
  char *s = json_dumps(d, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
  puts(s);
  free(s);
  json_decref(d);
}

static int cmd_dump(const char *path) {
  fl_err_t err = {0};
  ice_meta_t *m;
  if (ice_meta_read(io_local_fs(), path, &m, &err)) return fail(&err);
  print_dump(m);
  ice_meta_free(m);
  return 0;
}

static int cmd_rewrite(const char *in, const char *out) {
  fl_err_t err = {0};
  ice_meta_t *m;
  if (ice_meta_read(io_local_fs(), in, &m, &err)) return fail(&err);
  int rc = ice_meta_write(io_local_fs(), out, m, &err);
  ice_meta_free(m);
  return rc ? fail(&err) : 0;
}

static int cmd_create(int argc, char **argv) {
  const char *out = argv[0], *location = NULL, *schema_text = NULL, *spec_text = NULL,
             *sort_text = NULL, *add_column = NULL, *spec2 = NULL, *identifier = NULL;
  int nsnaps = 0;
  ice_kv_t props[32];
  uint32_t nprops = 0;
  fl_arena_t *a = fl_arena_new(0);
  for (int i = 1; i < argc; i += 2) {
    const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) {
      fprintf(stderr, "meta_tool: %s needs a value\n", k);
      return 2;
    }
    if (!strcmp(k, "--location"))
      location = v;
    else if (!strcmp(k, "--schema"))
      schema_text = v;
    else if (!strcmp(k, "--spec"))
      spec_text = v;
    else if (!strcmp(k, "--spec2"))
      spec2 = v;
    else if (!strcmp(k, "--sort"))
      sort_text = v;
    else if (!strcmp(k, "--add-column"))
      add_column = v;
    else if (!strcmp(k, "--identifier"))
      identifier = v;
    else if (!strcmp(k, "--snapshots"))
      nsnaps = atoi(v);
    else if (!strcmp(k, "--prop") && nprops < 32) {
      const char *eq = strchr(v, '=');
      if (!eq) {
        fprintf(stderr, "meta_tool: --prop wants key=value\n");
        return 2;
      }
      props[nprops++] = (ice_kv_t){fl_arena_strndup(a, v, (size_t)(eq - v)), eq + 1};
    } else {
      fprintf(stderr, "meta_tool: unknown option %s\n", k);
      return 2;
    }
  }
  if (!location || !schema_text) {
    fprintf(stderr, "meta_tool: create needs --location and --schema\n");
    return 2;
  }
  fl_err_t err = {0};
  ty_schema_t *schema;
  if (ty_schema_parse(a, schema_text, &schema, &err)) return fail(&err);
  if (identifier) {
    int col = ty_schema_find_name(schema, identifier);
    if (col < 0) {
      fprintf(stderr, "meta_tool: no column %s\n", identifier);
      return 2;
    }
    schema->identifier_ids = fl_arena_alloc(a, sizeof(int32_t));
    schema->identifier_ids[0] = schema->root.fields[col].id;
    schema->nidentifiers = 1;
  }
  int32_t last = 999;
  ice_spec_t *spec = NULL;
  ice_sort_order_t *sort = NULL;
  if (spec_text && ice_spec_parse(a, spec_text, schema, 0, &last, &spec, &err)) return fail(&err);
  if (sort_text && ice_sort_order_parse(a, sort_text, schema, 1, &sort, &err)) return fail(&err);
  ice_meta_t *m;
  if (ice_meta_new(schema, spec, sort, location, props, nprops, &m, &err)) return fail(&err);
  if (add_column) {
    const ty_schema_t *cur = ice_meta_schema(m);
    const char *sp = strchr(add_column, ' ');
    if (!sp) {
      fprintf(stderr, "meta_tool: --add-column wants \"name type\"\n");
      return 2;
    }
    int32_t next = m->last_column_id + 1;
    const ty_type_t *t;
    if (ty_type_parse(a, sp + 1, &next, &t, &err)) return fail(&err);
    ty_field_t *fields = fl_arena_zalloc(a, (cur->root.nfields + 1) * sizeof *fields);
    memcpy(fields, cur->root.fields, cur->root.nfields * sizeof *fields);
    /* The new column takes the id after the nested ids the type got. */
    fields[cur->root.nfields] =
        (ty_field_t){.id = next,
                     .name = fl_arena_strndup(a, add_column, (size_t)(sp - add_column)),
                     .type = t,
                     .doc = "added later"};
    ty_schema_t *evolved = ty_schema_new(a, 0, fields, cur->root.nfields + 1);
    evolved->nidentifiers = cur->nidentifiers;
    evolved->identifier_ids = cur->identifier_ids;
    if (ice_meta_add_schema(m, evolved, NULL, &err)) return fail(&err);
  }
  if (spec2) {
    int32_t unused = 0; /* ids below 1000 are assigned by ice_meta_add_spec */
    ice_spec_t *s2;
    if (ice_spec_parse(a, spec2, ice_meta_schema(m), 0, &unused, &s2, &err)) return fail(&err);
    for (uint32_t i = 0; i < s2->nfields; i++) s2->fields[i].field_id = 0;
    if (ice_meta_add_spec(m, s2, NULL, &err)) return fail(&err);
  }
  int64_t ts = m->last_updated_ms, parent = -1, first = -1;
  int64_t total = 0;
  for (int i = 0; i < nsnaps; i++) {
    ts += 1000;
    int64_t id = ice_new_snapshot_id();
    total += 10 * (i + 1);
    char added[32], tot[32];
    snprintf(added, sizeof added, "%d", 10 * (i + 1));
    snprintf(tot, sizeof tot, "%" PRId64, total);
    ice_kv_t sum[] = {{"operation", "append"},         {"added-records", added},
                      {"total-records", tot},          {"added-data-files", "1"},
                      {"total-data-files", "1"},       {"total-delete-files", "0"},
                      {"total-position-deletes", "0"}, {"total-equality-deletes", "0"},
                      {"total-files-size", "1000"}};
    const char *ml = fl_arena_sprintf(a, "%s/metadata/snap-%" PRId64 "-1-x.avro", m->location, id);
    ice_snapshot_t s = {.snapshot_id = id,
                        .parent_id = parent,
                        .sequence_number = m->last_sequence_number + 1,
                        .timestamp_ms = ts,
                        .manifest_list = ml,
                        .schema_id = m->current_schema_id,
                        .nsummary = sizeof sum / sizeof *sum,
                        .summary = sum,
                        .first_row_id = -1,
                        .added_rows = -1};
    if (ice_meta_add_snapshot(m, &s, &err)) return fail(&err);
    ice_ref_t main = {.name = "main",
                      .snapshot_id = id,
                      .max_ref_age_ms = -1,
                      .max_snapshot_age_ms = -1,
                      .min_snapshots_to_keep = -1};
    if (ice_meta_set_ref(m, &main, ts, &err)) return fail(&err);
    if (first < 0) first = id;
    parent = id;
  }
  if (nsnaps > 0) {
    ice_ref_t tag = {.name = "first",
                     .snapshot_id = first,
                     .is_tag = true,
                     .max_ref_age_ms = 86400000,
                     .max_snapshot_age_ms = -1,
                     .min_snapshots_to_keep = -1};
    ice_ref_t br = {.name = "audit",
                    .snapshot_id = parent,
                    .max_ref_age_ms = -1,
                    .max_snapshot_age_ms = 3600000,
                    .min_snapshots_to_keep = 2};
    if (ice_meta_set_ref(m, &tag, ts, &err) || ice_meta_set_ref(m, &br, ts, &err))
      return fail(&err);
  }
  ice_meta_log_previous(m, fl_arena_sprintf(a, "%s/metadata/00000-prev.metadata.json", m->location),
                        m->last_updated_ms, m->last_updated_ms + 1);
  if (ice_meta_write(io_local_fs(), out, m, &err)) return fail(&err);
  print_dump(m);
  ice_meta_free(m);
  fl_arena_free(a);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && !strcmp(argv[1], "dump")) return cmd_dump(argv[2]);
  if (argc >= 4 && !strcmp(argv[1], "rewrite")) return cmd_rewrite(argv[2], argv[3]);
  if (argc >= 3 && !strcmp(argv[1], "create")) return cmd_create(argc - 2, argv + 2);
  fprintf(stderr,
          "usage: meta_tool dump FILE | rewrite IN OUT | create OUT --location L --schema S ...\n");
  return 2;
}
