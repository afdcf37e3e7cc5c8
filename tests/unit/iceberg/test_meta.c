/*
 * test_meta.c - Iceberg table metadata: the iceberg-rust fixtures (valid
 * ones with their values, invalid ones with the error Java or Rust
 * gives), every metadata file of the duckdb-iceberg fixtures (written by
 * Spark and PyIceberg), gzip, round trips, hostile input, and the
 * building and update functions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/alloc.h"
#include "iceberg/ice_meta.h"
#include "iceberg/ice_meta_int.h"
#include "iceberg/ice_schema_json.h"
#include "test.h"

static const char *rust_fixture(const char *name) {
  static char buf[4][1024];
  static int k;
  char *p = buf[k++ & 3];
  snprintf(p, 1024, "%s/iceberg-fixtures/iceberg-rust/crates/iceberg/testdata/table_metadata/%s",
           t_testdata(), name);
  return p;
}

static const char *duck_fixture(const char *rel) {
  static char buf[4][1024];
  static int k;
  char *p = buf[k++ & 3];
  snprintf(p, 1024, "%s/iceberg-fixtures/duckdb-iceberg/data/persistent/%s", t_testdata(), rel);
  return p;
}

static int read_meta(const char *path, ice_meta_t **m, fl_err_t *err) {
  return ice_meta_read(io_local_fs(), path, m, err);
}

static char *slurp(const char *path, size_t *n) {
  uint8_t *data = NULL;
  fl_err_t err = {0};
  if (io_read_all(io_local_fs(), path, 1 << 26, &data, n, &err)) return NULL;
  return (char *)data;
}

/* ---- structural equality of two metadata objects ---- */

static bool kv_same(const ice_kv_t *a, uint32_t na, const ice_kv_t *b, uint32_t nb) {
  if (na != nb) return false;
  for (uint32_t i = 0; i < na; i++) {
    bool found = false;
    for (uint32_t k = 0; k < nb && !found; k++)
      found = strcmp(a[i].key, b[k].key) == 0 && strcmp(a[i].value, b[k].value) == 0;
    if (!found) return false;
  }
  return true;
}

static bool str_same(const char *a, const char *b) {
  return (!a || !b) ? a == b : strcmp(a, b) == 0;
}

static bool json_same(const json_t *a, const json_t *b) {
  bool ea = !a || json_object_size(a) == 0, eb = !b || json_object_size(b) == 0;
  if (ea || eb) return ea == eb;
  return json_equal(a, b);
}

/* Returns NULL when equal, else what differs. */
static const char *meta_diff(const ice_meta_t *a, const ice_meta_t *b) {
  if (a->format_version != b->format_version) return "format_version";
  if (strcmp(a->table_uuid, b->table_uuid)) return "table_uuid";
  if (!str_same(a->location, b->location)) return "location";
  if (a->last_sequence_number != b->last_sequence_number) return "last_sequence_number";
  if (a->last_updated_ms != b->last_updated_ms) return "last_updated_ms";
  if (a->last_column_id != b->last_column_id) return "last_column_id";
  if (a->nschemas != b->nschemas || a->current_schema_id != b->current_schema_id) return "schemas";
  for (uint32_t i = 0; i < a->nschemas; i++)
    if (a->schemas[i]->schema_id != b->schemas[i]->schema_id ||
        !ice__schema_same(a->schemas[i], b->schemas[i]))
      return "schema";
  if (a->nspecs != b->nspecs || a->default_spec_id != b->default_spec_id ||
      a->last_partition_id != b->last_partition_id)
    return "specs";
  for (uint32_t i = 0; i < a->nspecs; i++) {
    const ice_spec_t *x = a->specs[i], *y = b->specs[i];
    if (x->spec_id != y->spec_id || x->nfields != y->nfields) return "spec";
    for (uint32_t k = 0; k < x->nfields; k++)
      if (x->fields[k].field_id != y->fields[k].field_id ||
          x->fields[k].source_id != y->fields[k].source_id ||
          strcmp(x->fields[k].name, y->fields[k].name) ||
          !ice_transform_equal(&x->fields[k].transform, &y->fields[k].transform))
        return "spec field";
  }
  if (a->nsort_orders != b->nsort_orders || a->default_sort_order_id != b->default_sort_order_id)
    return "sort orders";
  for (uint32_t i = 0; i < a->nsort_orders; i++) {
    const ice_sort_order_t *x = a->sort_orders[i], *y = b->sort_orders[i];
    if (x->order_id != y->order_id || x->nfields != y->nfields) return "sort order";
    for (uint32_t k = 0; k < x->nfields; k++)
      if (x->fields[k].source_id != y->fields[k].source_id ||
          x->fields[k].descending != y->fields[k].descending ||
          x->fields[k].nulls_first != y->fields[k].nulls_first ||
          !ice_transform_equal(&x->fields[k].transform, &y->fields[k].transform))
        return "sort field";
  }
  if (!kv_same(a->properties, a->nproperties, b->properties, b->nproperties)) return "properties";
  if (a->current_snapshot_id != b->current_snapshot_id) return "current_snapshot_id";
  if (a->nsnapshots != b->nsnapshots) return "nsnapshots";
  for (uint32_t i = 0; i < a->nsnapshots; i++) {
    const ice_snapshot_t *x = &a->snapshots[i], *y = &b->snapshots[i];
    if (x->snapshot_id != y->snapshot_id || x->parent_id != y->parent_id ||
        x->sequence_number != y->sequence_number || x->timestamp_ms != y->timestamp_ms ||
        !str_same(x->manifest_list, y->manifest_list) || x->nmanifests_v1 != y->nmanifests_v1 ||
        x->schema_id != y->schema_id || x->first_row_id != y->first_row_id ||
        x->added_rows != y->added_rows)
      return "snapshot";
    for (uint32_t k = 0; k < x->nmanifests_v1; k++)
      if (strcmp(x->manifests_v1[k], y->manifests_v1[k])) return "snapshot manifests";
    if (!kv_same(x->summary, x->nsummary, y->summary, y->nsummary)) return "snapshot summary";
    if (strcmp(ice_snapshot_operation(x), ice_snapshot_operation(y))) return "operation";
    if (!json_same(x->extra, y->extra)) return "snapshot extra";
  }
  if (a->nsnapshot_log != b->nsnapshot_log) return "snapshot log";
  for (uint32_t i = 0; i < a->nsnapshot_log; i++)
    if (a->snapshot_log[i].snapshot_id != b->snapshot_log[i].snapshot_id ||
        a->snapshot_log[i].timestamp_ms != b->snapshot_log[i].timestamp_ms)
      return "snapshot log entry";
  if (a->nmetadata_log != b->nmetadata_log) return "metadata log";
  for (uint32_t i = 0; i < a->nmetadata_log; i++)
    if (strcmp(a->metadata_log[i].file, b->metadata_log[i].file) ||
        a->metadata_log[i].timestamp_ms != b->metadata_log[i].timestamp_ms)
      return "metadata log entry";
  if (a->nrefs != b->nrefs) return "refs";
  for (uint32_t i = 0; i < a->nrefs; i++) {
    const ice_ref_t *x = &a->refs[i], *y = ice_meta_ref(b, a->refs[i].name);
    if (!y || x->snapshot_id != y->snapshot_id || x->is_tag != y->is_tag ||
        x->max_ref_age_ms != y->max_ref_age_ms ||
        x->max_snapshot_age_ms != y->max_snapshot_age_ms ||
        x->min_snapshots_to_keep != y->min_snapshots_to_keep)
      return "ref";
  }
  if (a->next_row_id != b->next_row_id && !(a->format_version >= 3 && a->next_row_id < 0))
    return "next_row_id";
  /* statistics and partition-statistics are always written (empty when absent). */
  json_t *ea = json_deep_copy(a->extra), *eb = json_deep_copy(b->extra);
  const char *keys[] = {"statistics", "partition-statistics"};
  for (int i = 0; i < 2; i++) {
    json_t *x = json_object_get(ea, keys[i]), *y = json_object_get(eb, keys[i]);
    if ((!x || json_array_size(x) == 0) && (!y || json_array_size(y) == 0)) {
      json_object_del(ea, keys[i]);
      json_object_del(eb, keys[i]);
    }
  }
  bool same = json_same(ea, eb);
  json_decref(ea);
  json_decref(eb);
  return same ? NULL : "extra";
}

/* Writes m, parses the text back and compares; the second writing gives
 * the same text as the first. */
static const char *round_trip(const ice_meta_t *m, fl_err_t *err) {
  fl_buf_t b1, b2;
  fl_buf_init(&b1);
  fl_buf_init(&b2);
  const char *diff = NULL;
  ice_meta_t *m2 = NULL;
  if (ice_meta_to_json(m, &b1, err)) {
    diff = "to_json";
    goto out;
  }
  if (ice_meta_parse((const char *)b1.data, b1.len, "written", &m2, err)) {
    diff = "parse of written";
    goto out;
  }
  diff = meta_diff(m, m2);
  if (diff) goto out;
  if (ice_meta_to_json(m2, &b2, err)) {
    diff = "to_json again";
    goto out;
  }
  if (b1.len != b2.len || memcmp(b1.data, b2.data, b1.len)) diff = "second text";
out:
  ice_meta_free(m2);
  fl_buf_free(&b1);
  fl_buf_free(&b2);
  return diff;
}

#define CHECK_ROUND_TRIP(m)                                                 \
  do {                                                                      \
    fl_err_t rt_err = {0};                                                  \
    const char *rt_diff = round_trip((m), &rt_err);                         \
    if (rt_diff) {                                                          \
      t_fail(__FILE__, __LINE__, "round trip: %s %s", rt_diff, rt_err.msg); \
      return;                                                               \
    }                                                                       \
  } while (0)

/* ---- the iceberg-rust fixtures ---- */

TEST(rust_v2_valid) {
  fl_err_t err = {0};
  ice_meta_t *m;
  CHECK_OK(read_meta(rust_fixture("TableMetadataV2Valid.json"), &m, &err), &err);
  CHECK_EQ(m->format_version, 2);
  CHECK_STR(m->table_uuid, "9c12d441-03fe-4693-9a96-a0705ddf69c1");
  CHECK_STR(m->location, "s3://bucket/test/location");
  CHECK_EQ(m->last_sequence_number, 34);
  CHECK_EQ(m->last_updated_ms, 1602638573590LL);
  CHECK_EQ(m->last_column_id, 3);
  CHECK_EQ(m->nschemas, 2);
  CHECK_EQ(m->current_schema_id, 1);
  const ty_schema_t *s = ice_meta_schema(m);
  CHECK_EQ(s->root.nfields, 3);
  CHECK_EQ(s->nidentifiers, 2);
  CHECK_STR(s->root.fields[1].doc, "comment");
  CHECK_EQ(ice_meta_schema_by_id(m, 0)->root.nfields, 1);
  const ice_spec_t *sp = ice_meta_spec(m);
  CHECK_EQ(sp->spec_id, 0);
  CHECK_EQ(sp->nfields, 1);
  CHECK_EQ(sp->fields[0].field_id, 1000);
  CHECK_EQ(sp->fields[0].source_id, 1);
  CHECK_EQ(sp->fields[0].transform.kind, ICE_T_IDENTITY);
  CHECK_EQ(m->last_partition_id, 1000);
  const ice_sort_order_t *so = ice_meta_sort_order(m);
  CHECK_EQ(so->order_id, 3);
  CHECK_EQ(so->nfields, 2);
  CHECK(!so->fields[0].descending && so->fields[0].nulls_first);
  CHECK(so->fields[1].descending && !so->fields[1].nulls_first);
  CHECK_EQ(so->fields[1].transform.kind, ICE_T_BUCKET);
  CHECK_EQ(so->fields[1].transform.param, 4);
  CHECK_EQ(m->nsnapshots, 2);
  const ice_snapshot_t *cur = ice_meta_current_snapshot(m);
  CHECK(cur);
  CHECK_EQ(cur->snapshot_id, 3055729675574597004LL);
  CHECK_EQ(cur->parent_id, 3051729675574597004LL);
  CHECK_EQ(cur->sequence_number, 1);
  CHECK_EQ(cur->schema_id, 1);
  CHECK_STR(cur->manifest_list, "s3://a/b/2.avro");
  CHECK_STR(ice_snapshot_operation(cur), "append");
  CHECK_EQ(m->snapshots[0].parent_id, -1);
  CHECK_EQ(m->snapshots[0].schema_id, -1);
  /* No refs in the file: main comes from current-snapshot-id. */
  const ice_ref_t *main = ice_meta_ref(m, "main");
  CHECK(main && !main->is_tag);
  CHECK_EQ(main->snapshot_id, cur->snapshot_id);
  CHECK_EQ(m->nsnapshot_log, 2);
  CHECK_EQ(ice_meta_snapshot_as_of(m, 1515100955770LL)->snapshot_id, 3051729675574597004LL);
  CHECK_EQ(ice_meta_snapshot_as_of(m, 1555100955769LL)->snapshot_id, 3051729675574597004LL);
  CHECK_EQ(ice_meta_snapshot_as_of(m, 1555100955770LL)->snapshot_id, 3055729675574597004LL);
  CHECK(ice_meta_snapshot_as_of(m, 1515100955769LL) == NULL);
  CHECK_ROUND_TRIP(m);
  ice_meta_free(m);
}

TEST(rust_v2_minimal_and_v3) {
  fl_err_t err = {0};
  ice_meta_t *m;
  CHECK_OK(read_meta(rust_fixture("TableMetadataV2ValidMinimal.json"), &m, &err), &err);
  CHECK_EQ(m->nsnapshots, 0);
  CHECK_EQ(m->current_snapshot_id, -1);
  CHECK(ice_meta_current_snapshot(m) == NULL);
  CHECK_EQ(m->nrefs, 0);
  CHECK_EQ(m->nproperties, 0);
  CHECK_ROUND_TRIP(m);
  ice_meta_free(m);

  CHECK_OK(read_meta(rust_fixture("TableMetadataV3ValidMinimal.json"), &m, &err), &err);
  CHECK_EQ(m->format_version, 3);
  CHECK_EQ(m->next_row_id, 0);
  const ty_field_t *x = ty_schema_find_id(ice_meta_schema(m), 1);
  CHECK(x->initial_default && x->write_default);
  CHECK_EQ(x->initial_default->u.i64, 1);
  CHECK_ROUND_TRIP(m);
  ice_meta_free(m);

  CHECK_OK(read_meta(rust_fixture("TableMetadataV3ValidEncryption.json"), &m, &err), &err);
  CHECK_EQ(m->format_version, 3);
  CHECK_STR(ice_meta_property(m, "encryption.key-id"), "master-1");
  /* encryption-keys and the snapshot's key-id are kept verbatim. */
  CHECK(json_array_size(json_object_get(m->extra, "encryption-keys")) == 2);
  CHECK(m->snapshots[0].extra);
  CHECK_STR(json_string_value(json_object_get(m->snapshots[0].extra, "key-id")),
            "1fb95f04-7f98-4b1f-a08f-e810cfb907ff");
  CHECK_ROUND_TRIP(m);
  fl_buf_t b;
  fl_buf_init(&b);
  CHECK_OK(ice_meta_to_json(m, &b, &err), &err);
  fl_buf_append_u8(&b, 0);
  CHECK(strstr((char *)b.data, "\"encrypted-by-id\": \"master-1\""));
  CHECK(strstr((char *)b.data, "\"key-id\": \"1fb95f04-7f98-4b1f-a08f-e810cfb907ff\""));
  fl_buf_free(&b);
  ice_meta_free(m);
}

TEST(rust_v1_fallbacks) {
  fl_err_t err = {0};
  ice_meta_t *m;
  /* Only "schema" and "partition-spec": schema 0, spec 0, unsorted. */
  CHECK_OK(read_meta(rust_fixture("TableMetadataV1Valid.json"), &m, &err), &err);
  CHECK_EQ(m->format_version, 1);
  CHECK_EQ(m->last_sequence_number, 0);
  CHECK_EQ(m->nschemas, 1);
  CHECK_EQ(m->current_schema_id, 0);
  CHECK_EQ(ice_meta_schema(m)->root.nfields, 3);
  CHECK_EQ(m->nspecs, 1);
  CHECK_EQ(ice_meta_spec(m)->fields[0].field_id, 1000);
  CHECK_EQ(m->last_partition_id, 1000); /* the highest field id, as Java derives it */
  CHECK_EQ(m->nsort_orders, 1);
  CHECK_EQ(ice_meta_sort_order(m)->nfields, 0);
  CHECK_ROUND_TRIP(m);
  /* Written back as v1 with the deprecated keys older readers need. */
  fl_buf_t b;
  fl_buf_init(&b);
  CHECK_OK(ice_meta_to_json(m, &b, &err), &err);
  fl_buf_append_u8(&b, 0);
  CHECK(strstr((char *)b.data, "\"schema\": {"));
  CHECK(strstr((char *)b.data, "\"partition-spec\": ["));
  CHECK(!strstr((char *)b.data, "last-sequence-number"));
  fl_buf_free(&b);
  ice_meta_free(m);

  /* "schemas" without current-schema-id but with "schema": iceberg-rust
   * takes "schema" (Java would refuse); its id 0 is in the list. */
  CHECK_OK(read_meta(rust_fixture("TableMetadataV1SchemasWithoutCurrentId.json"), &m, &err), &err);
  CHECK_EQ(m->nschemas, 1);
  CHECK_EQ(m->current_schema_id, 0);
  ice_meta_free(m);

  /* "partition-specs" without default-spec-id: the highest spec id (2). */
  CHECK_OK(read_meta(rust_fixture("TableMetadataV1PartitionSpecsWithoutDefaultId.json"), &m, &err),
           &err);
  CHECK_EQ(m->nspecs, 2);
  CHECK_EQ(m->default_spec_id, 2);
  CHECK_EQ(ice_meta_spec(m)->fields[0].source_id, 2);
  CHECK_EQ(m->last_partition_id, 1001);
  CHECK_ROUND_TRIP(m);
  ice_meta_free(m);

  /* A Glue/Spark v1 file with everything plus non-standard keys. */
  CHECK_OK(read_meta(rust_fixture("TableMetadataV1Compat.json"), &m, &err), &err);
  CHECK_EQ(m->current_snapshot_id, 917896971991367610LL);
  CHECK_STR(ice_snapshot_operation(ice_meta_current_snapshot(m)), "overwrite");
  CHECK_STR(ice_snapshot_summary(ice_meta_current_snapshot(m), "total-records"), "3");
  CHECK_EQ(ice_meta_property_int(m, "write.metadata.previous-versions-max", 100), 20);
  CHECK_EQ(m->nmetadata_log, 1);
  CHECK(json_object_get(m->extra, "statistics-files") != NULL);
  CHECK_ROUND_TRIP(m);
  ice_meta_free(m);
}

TEST(rust_invalid_files_fail_clearly) {
  static const struct {
    const char *file;
    int code;
    const char *needle;
  } cases[] = {
      /* v3 needs "schemas" like v2 (Java: "schemas must exist in format v3"). */
      {"TableMetadataUnsupportedVersion.json", FL_ECORRUPT, "schemas: missing"},
      {"TableMetadataV2CurrentSchemaNotFound.json", FL_ECORRUPT,
       "current-schema-id: no schema with id 2"},
      {"TableMetadataV2MissingLastPartitionId.json", FL_ECORRUPT, "last-partition-id: missing"},
      {"TableMetadataV2MissingPartitionSpecs.json", FL_ECORRUPT, "partition-specs: missing"},
      {"TableMetadataV2MissingSchemas.json", FL_ECORRUPT, "schemas: missing"},
      {"TableMetadataV2MissingSortOrder.json", FL_ECORRUPT, "sort-orders: missing"},
      /* "schemas" without current-schema-id and no "schema" to fall back on. */
      {"TableMetadataV1NoValidSchema.json", FL_ECORRUPT, "current-schema-id: missing"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    fl_err_t err = {0};
    ice_meta_t *m = NULL;
    const char *path = rust_fixture(cases[i].file);
    int rc = read_meta(path, &m, &err);
    if (rc != cases[i].code || !strstr(err.msg, cases[i].needle) || !strstr(err.msg, cases[i].file))
      t_fail(__FILE__, __LINE__, "%s: got %s \"%s\"", cases[i].file, fl_code_name(rc), err.msg);
    CHECK(m == NULL);
  }
}

TEST(every_rust_fixture_is_judged) {
  /* Every file of the folder is either valid (and round-trips) or one of
   * the invalid cases above: nothing new slips by unexamined. */
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "ls %s", rust_fixture(""));
  FILE *fp = popen(cmd, "r");
  CHECK(fp);
  char line[512];
  int valid = 0, invalid = 0;
  while (fgets(line, sizeof line, fp)) {
    line[strcspn(line, "\n")] = 0;
    fl_err_t err = {0};
    ice_meta_t *m = NULL;
    int rc = read_meta(rust_fixture(line), &m, &err);
    bool expect_bad = strstr(line, "Missing") || strstr(line, "NotFound") ||
                      strstr(line, "Unsupported") || strstr(line, "NoValid");
    if (expect_bad) {
      if (rc == FL_OK) t_fail(__FILE__, __LINE__, "%s parsed", line);
      invalid++;
    } else {
      if (rc)
        t_fail(__FILE__, __LINE__, "%s: %s", line, err.msg);
      else {
        const char *d = round_trip(m, &err);
        if (d) t_fail(__FILE__, __LINE__, "%s: round trip: %s %s", line, d, err.msg);
      }
      valid++;
    }
    ice_meta_free(m);
  }
  pclose(fp);
  CHECK_EQ(valid, 8);
  CHECK_EQ(invalid, 7);
}

/* ---- the duckdb-iceberg fixtures ---- */

/* The text m writes (a malloc'd copy; NULL on error). */
static char *meta_text(const ice_meta_t *m) {
  fl_buf_t b;
  fl_buf_init(&b);
  fl_err_t err;
  if (ice_meta_to_json(m, &b, &err)) {
    fl_buf_free(&b);
    return NULL;
  }
  char *t = fl_strndup((const char *)b.data, b.len);
  fl_buf_free(&b);
  return t;
}

/*
 * What ice_meta_to_json assembles key by key is byte for byte jansson's
 * indented dump of the whole document, and snapshot text rendered once
 * (and carried through clones) writes the same bytes as a fresh
 * rendering, also after a format upgrade that changes what a snapshot
 * holds. Returns what differs, or NULL.
 */
static const char *layout_diff(const ice_meta_t *m) {
  const char *d = NULL;
  char *text = meta_text(m), *again = NULL, *up_cached = NULL, *up_fresh = NULL;
  json_t *j = text ? json_loads(text, 0, NULL) : NULL;
  char *dump = j ? json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
  json_decref(j);
  ice_meta_t *c = ice_meta_clone(m);
  ice_meta_render_snapshots(c);
  ice_meta_t *c2 = ice_meta_clone(c);
  ice_meta_free(c);
  ice_meta_t *f = ice_meta_clone(m);
  if (!text || !dump) {
    d = "no text";
  } else if (strcmp(text, dump) != 0) {
    d = "layout differs from a whole dump";
  } else if (!(again = meta_text(c2)) || strcmp(again, text) != 0) {
    d = "rendered snapshots write other text";
  } else if (m->format_version == 1 && m->nsnapshots) {
    c2->format_version = f->format_version = 2;
    up_cached = meta_text(c2);
    up_fresh = meta_text(f);
    if (!up_cached || !up_fresh || strcmp(up_cached, up_fresh) != 0 ||
        !strstr(up_cached, "\"sequence-number\""))
      d = "snapshot text rendered for v1 kept after an upgrade";
  }
  ice_meta_free(c2);
  ice_meta_free(f);
  free(dump);
  fl_free(text);
  fl_free(again);
  fl_free(up_cached);
  fl_free(up_fresh);
  return d;
}

TEST(every_duckdb_fixture_parses_and_round_trips) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "find %s -name '*metadata.json' | sort", duck_fixture(""));
  FILE *fp = popen(cmd, "r");
  CHECK(fp);
  char line[1024];
  int files = 0, v1 = 0, v2 = 0, with_snapshots = 0, bad = 0;
  /* Deliberately broken files of the fixtures: two JSON documents in one
   * file, a BigQuery stub without format-version, and hand-made tables
   * whose snapshot id 9876543210123456789 does not fit the spec's long
   * (Java's parser refuses them too). */
  static const char *broken[] = {"bad_data/bad_iceberg_metadata.json",
                                 "big_query_error/metadata/v0.metadata.json",
                                 "equality_delete_cross_partition/warehouse/ns/t/metadata/vfinal",
                                 "equality_delete_extra_column/warehouse/ns/t/metadata/vfinal"};
  while (fgets(line, sizeof line, fp)) {
    line[strcspn(line, "\n")] = 0;
    fl_err_t err = {0};
    ice_meta_t *m = NULL;
    int rc = read_meta(line, &m, &err);
    bool expect_bad = false;
    for (size_t i = 0; i < sizeof broken / sizeof *broken; i++)
      expect_bad |= strstr(line, broken[i]) != NULL;
    if (expect_bad) {
      if (rc != FL_ECORRUPT) t_fail(__FILE__, __LINE__, "%s: %s", line, fl_code_name(rc));
      ice_meta_free(m);
      bad++;
      continue;
    }
    if (rc) {
      t_fail(__FILE__, __LINE__, "%s: %s", line, err.msg);
      continue;
    }
    files++;
    v1 += m->format_version == 1;
    v2 += m->format_version == 2;
    with_snapshots += m->nsnapshots > 0;
    if (!ice_meta_schema(m) || !ice_meta_spec(m) || !ice_meta_sort_order(m))
      t_fail(__FILE__, __LINE__, "%s: lookups fail", line);
    if (m->current_snapshot_id >= 0) {
      const ice_snapshot_t *s = ice_meta_current_snapshot(m);
      if (!s || !ice_meta_ref(m, "main") || ice_meta_ref(m, "main")->snapshot_id != s->snapshot_id)
        t_fail(__FILE__, __LINE__, "%s: current snapshot and main disagree", line);
    }
    const char *d = round_trip(m, &err);
    if (d) t_fail(__FILE__, __LINE__, "%s: round trip: %s %s", line, d, err.msg);
    d = layout_diff(m);
    if (d) t_fail(__FILE__, __LINE__, "%s: %s", line, d);
    ice_meta_t *c = ice_meta_clone(m);
    d = meta_diff(m, c);
    if (d) t_fail(__FILE__, __LINE__, "%s: clone differs: %s", line, d);
    ice_meta_free(m);
    d = round_trip(c, &err); /* the clone stands alone */
    if (d) t_fail(__FILE__, __LINE__, "%s: clone round trip: %s %s", line, d, err.msg);
    ice_meta_free(c);
  }
  pclose(fp);
  CHECK_EQ(bad, 4);
  CHECK(files >= 100);
  CHECK(v1 > 0 && v2 > 0 && with_snapshots > 50);
}

/* Strings that need escapes and non-ASCII text in the parts written
 * without a JSON tree come out as jansson writes them; text that is not
 * UTF-8 is refused. */
TEST(metadata_text_escapes_like_jansson) {
  fl_err_t err = {0};
  ice_meta_t *m = NULL;
  CHECK_OK(read_meta(rust_fixture("TableMetadataV2Valid.json"), &m, &err), &err);
  ice_meta_t *c = ice_meta_clone(m);
  ice_meta_log_previous(c, "placeholder", 1000, 2000);
  CHECK(c->nmetadata_log > 0);
  c->metadata_log[0].file = "s3://b/t/\"q\"\\x\tt\x01-\xc3\xa9/v1.json";
  const char *d = layout_diff(c);
  if (d) t_fail(__FILE__, __LINE__, "%s", d);
  char *text = meta_text(c);
  CHECK(text && strstr(text, "\"s3://b/t/\\\"q\\\"\\\\x\\tt\\u0001-\xc3\xa9/v1.json\""));
  fl_free(text);
  c->metadata_log[0].file = "bad-\xff";
  fl_buf_t b;
  fl_buf_init(&b);
  CHECK_ERR(ice_meta_to_json(c, &b, &err), FL_EINVALID);
  CHECK_EQ(b.len, 0);
  fl_buf_free(&b);
  ice_meta_free(c);
  ice_meta_free(m);
}

TEST(duckdb_partition_evolution_and_defaults) {
  fl_err_t err = {0};
  ice_meta_t *m;
  /* A PyIceberg table whose later schemas add columns with defaults. */
  CHECK_OK(
      read_meta(duck_fixture("add_columns_with_defaults/default.db/add_columns_with_defaults/"
                             "metadata/00003-3f1801a5-7dfb-4072-b14a-39cd12f9279b.metadata.json"),
                &m, &err),
      &err);
  CHECK(m->nschemas >= 2);
  CHECK_EQ(m->current_schema_id, m->schemas[m->nschemas - 1]->schema_id);
  int defaults = 0;
  const ty_schema_t *s = ice_meta_schema(m);
  for (uint32_t i = 0; i < s->root.nfields; i++)
    defaults += s->root.fields[i].initial_default != NULL;
  CHECK(defaults > 0);
  CHECK_ROUND_TRIP(m);
  ice_meta_free(m);
}

TEST(gzip_metadata_reads_like_plain) {
  fl_err_t err = {0};
  ice_meta_t *gz, *plain;
  CHECK_OK(read_meta(duck_fixture("iceberg/lineitem_iceberg_gz/metadata/v2.gz.metadata.json"), &gz,
                     &err),
           &err);
  CHECK(ice_meta_schema(gz)->root.nfields >= 16);
  CHECK(gz->nsnapshots >= 1);
  ice_meta_free(gz);
  CHECK_OK(
      read_meta(duck_fixture("iceberg/lineitem_iceberg_gz_no_hint/metadata/v1.gz.metadata.json"),
                &gz, &err),
      &err);
  ice_meta_free(gz);

  /* Compress a plain file ourselves and compare the two readings. */
  size_t n;
  char *text = slurp(rust_fixture("TableMetadataV2Valid.json"), &n);
  CHECK(text);
  uLong cap = compressBound(n) + 64;
  uint8_t *out = fl_malloc(cap);
  z_stream z = {0};
  CHECK(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  z.next_in = (Bytef *)text;
  z.avail_in = (uInt)n;
  z.next_out = out;
  z.avail_out = (uInt)cap;
  CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
  size_t zn = z.total_out;
  deflateEnd(&z);
  char path[1024];
  snprintf(path, sizeof path, "%s/v9.gz.metadata.json", t_tmpdir());
  CHECK_OK(io_write_all(io_local_fs(), path, out, zn, &err), &err);
  CHECK_OK(read_meta(path, &gz, &err), &err);
  CHECK_OK(ice_meta_parse(text, n, "plain", &plain, &err), &err);
  CHECK(meta_diff(gz, plain) == NULL);
  ice_meta_free(gz);
  ice_meta_free(plain);
  /* Truncated or damaged gzip is an error, not a crash. */
  for (size_t cut = 2; cut < zn; cut += (cut < 40 ? 1 : 97)) {
    CHECK_OK(io_write_all(io_local_fs(), path, out, cut, &err), &err);
    ice_meta_t *m = NULL;
    int rc = read_meta(path, &m, &err);
    CHECK(rc == FL_ECORRUPT);
    CHECK(m == NULL);
  }
  out[zn / 2] ^= 0x55;
  CHECK_OK(io_write_all(io_local_fs(), path, out, zn, &err), &err);
  ice_meta_t *m = NULL;
  CHECK(read_meta(path, &m, &err) == FL_ECORRUPT);
  fl_free(out);
  fl_free(text);
}

/* ---- hostile input ---- */

TEST(every_prefix_fails_cleanly) {
  size_t n;
  char *text = slurp(rust_fixture("TableMetadataV2Valid.json"), &n);
  CHECK(text);
  for (size_t i = 0; i + 1 < n; i++) {
    fl_err_t err = {0};
    ice_meta_t *m = NULL;
    int rc = ice_meta_parse(text, i, "prefix", &m, &err);
    /* The last byte is a newline or brace: only shorter prefixes must fail. */
    if (i < n - 2 && rc != FL_ECORRUPT) {
      t_fail(__FILE__, __LINE__, "prefix %zu: %s", i, fl_code_name(rc));
      break;
    }
    ice_meta_free(m);
  }
  fl_free(text);
}

/* Replaces the value at a path of the parsed fixture and parses it again. */
static int mutate(const char *file, const char *key, const char *sub, json_t *value,
                  fl_err_t *err) {
  size_t n;
  char *text = slurp(rust_fixture(file), &n);
  if (!text) return fl_err_set(err, FL_ENOTFOUND, "fixture %s is missing", file);
  json_t *root = json_loadb(text, n, 0, NULL);
  fl_free(text);
  if (!root) return fl_err_set(err, FL_EINTERNAL, "fixture %s is not JSON", file);
  json_t *target = root;
  if (sub) {
    target = json_object_get(root, key);
    if (json_is_array(target)) target = json_array_get(target, json_array_size(target) - 1);
    key = sub;
  }
  if (value)
    json_object_set_new(target, key, value);
  else
    json_object_del(target, key);
  char *out = json_dumps(root, 0);
  json_decref(root);
  ice_meta_t *m = NULL;
  int rc = ice_meta_parse(out, strlen(out), "mutated.json", &m, err);
  free(out);
  ice_meta_free(m);
  return rc;
}

TEST(wrong_types_give_errors_with_paths) {
  static const char *required[] = {
      "format-version",  "table-uuid",      "location",          "last-sequence-number",
      "last-updated-ms", "last-column-id",  "current-schema-id", "schemas",
      "default-spec-id", "partition-specs", "last-partition-id", "default-sort-order-id",
      "sort-orders"};
  for (size_t i = 0; i < sizeof required / sizeof *required; i++) {
    fl_err_t err = {0};
    int rc = mutate("TableMetadataV2Valid.json", required[i], NULL, NULL, &err);
    if (rc != FL_ECORRUPT || !strstr(err.msg, required[i]) || !strstr(err.msg, "mutated.json"))
      t_fail(__FILE__, __LINE__, "without %s: %s %s", required[i], fl_code_name(rc), err.msg);
    /* A value of the wrong type: an object where a scalar or array goes,
     * an array where an object or scalar goes. */
    rc = mutate("TableMetadataV2Valid.json", required[i], NULL,
                strcmp(required[i], "schemas") && strcmp(required[i], "partition-specs") &&
                        strcmp(required[i], "sort-orders")
                    ? json_array()
                    : json_object(),
                &err);
    if (rc != FL_ECORRUPT || !strstr(err.msg, required[i]))
      t_fail(__FILE__, __LINE__, "wrong type for %s: %s %s", required[i], fl_code_name(rc),
             err.msg);
  }
  static const struct {
    const char *key, *sub;
    const char *value; /* JSON */
    int code;
    const char *needle;
  } cases[] = {
      {"format-version", NULL, "4", FL_EUNSUPPORTED, "format-version 4"},
      {"format-version", NULL, "0", FL_ECORRUPT, "format-version"},
      {"table-uuid", NULL, "\"not-a-uuid\"", FL_ECORRUPT, "table-uuid"},
      {"last-column-id", NULL, "99999999999", FL_ECORRUPT, "out of range"},
      {"snapshots", "snapshot-id", "\"1\"", FL_ECORRUPT, "snapshots[1].snapshot-id"},
      {"snapshots", "timestamp-ms", "null", FL_ECORRUPT, "snapshots[1].timestamp-ms: missing"},
      {"snapshots", "manifest-list", "5", FL_ECORRUPT, "snapshots[1].manifest-list"},
      {"snapshots", "summary", "{\"added-files\": \"1\"}", FL_ECORRUPT, "summary.operation"},
      {"snapshots", "summary", "{\"operation\": \"append\", \"n\": 1}", FL_ECORRUPT, "summary.n"},
      {"snapshot-log", "snapshot-id", "[]", FL_ECORRUPT, "snapshot-log[1].snapshot-id"},
      {"metadata-log", NULL, "[{\"timestamp-ms\": 1}]", FL_ECORRUPT,
       "metadata-log[0].metadata-file"},
      {"properties", NULL, "{\"a\": 1}", FL_ECORRUPT, "properties.a"},
      {"properties", NULL, "[]", FL_ECORRUPT, "properties"},
      {"current-snapshot-id", NULL, "12345", FL_ECORRUPT, "current-snapshot-id: no snapshot"},
      {"refs", NULL, "{\"main\": {\"snapshot-id\": 3051729675574597004, \"type\": \"branch\"}}",
       FL_ECORRUPT, "does not match the main branch"},
      {"refs", NULL, "{\"t\": {\"snapshot-id\": 1, \"type\": \"tag\"}}", FL_ECORRUPT,
       "refs.t.snapshot-id: no snapshot"},
      {"refs", NULL, "{\"t\": {\"snapshot-id\": 3051729675574597004, \"type\": \"leaf\"}}",
       FL_ECORRUPT, "refs.t.type"},
      {"refs", NULL, "{\"t\": {\"type\": \"tag\"}}", FL_ECORRUPT, "refs.t.snapshot-id: missing"},
      {"partition-specs", "fields",
       "[{\"name\": \"x\", \"transform\": \"bucket[0]\", "
       "\"source-id\": 1, \"field-id\": 1000}]",
       FL_ECORRUPT, "partition-specs[0]: fields[0].transform"},
      {"partition-specs", "fields",
       "[{\"name\": \"x\", \"transform\": \"identity\", "
       "\"source-id\": 1}]",
       FL_ECORRUPT, "fields[0].field-id: missing"},
      {"partition-specs", "fields",
       "[{\"name\": \"x\", \"transform\": \"identity\", "
       "\"source-id\": 77, \"field-id\": 1000}]",
       FL_ECORRUPT, "source id 77"},
      {"sort-orders", "fields",
       "[{\"transform\": \"identity\", \"source-id\": 2, "
       "\"direction\": \"up\", \"null-order\": \"nulls-first\"}]",
       FL_ECORRUPT, "sort-orders[0]: fields[0].direction"},
      {"sort-orders", "fields", "[]", FL_ECORRUPT, "unsorted order must have id 0"},
      {"schemas", "fields",
       "[{\"id\": 1, \"name\": \"x\", \"required\": true, \"type\": \"variant\"}]", FL_EUNSUPPORTED,
       "schemas[1]"},
      {"schemas", "schema-id", "0", FL_ECORRUPT, "schema id 0 is used twice"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    fl_err_t err = {0};
    json_t *v = json_loads(cases[i].value, JSON_DECODE_ANY, NULL);
    int rc = mutate("TableMetadataV2Valid.json", cases[i].key, cases[i].sub, v, &err);
    if (rc != cases[i].code || !strstr(err.msg, cases[i].needle))
      t_fail(__FILE__, __LINE__, "case %zu (%s.%s): %s \"%s\"", i, cases[i].key,
             cases[i].sub ? cases[i].sub : "", fl_code_name(rc), err.msg);
  }
  /* Not JSON at all, or not an object. */
  fl_err_t err = {0};
  ice_meta_t *m = NULL;
  CHECK_ERR(ice_meta_parse("", 0, "empty", &m, &err), FL_ECORRUPT);
  CHECK_ERR(ice_meta_parse("[1]", 3, "array", &m, &err), FL_ECORRUPT);
  CHECK_ERR(ice_meta_parse("\x89PNG", 4, "binary", &m, &err), FL_ECORRUPT);
  CHECK(m == NULL);
}

/* ---- building and updating ---- */

static ice_meta_t *new_table(fl_arena_t *a, fl_err_t *err) {
  ty_schema_t *s;
  if (ty_schema_parse(a,
                      "id long not null, ts timestamptz, tags list<string>, "
                      "p struct<x: double, y: double not null>, name string",
                      &s, err))
    return NULL;
  /* Scramble the ids so that the new table must renumber them. */
  s->root.fields[0].id = 50;
  s->root.fields[1].id = 40;
  s->root.fields[4].id = 30;
  int32_t last = 999;
  ice_spec_t *spec;
  if (ice_spec_parse(a, "day(ts), bucket(4, id)", s, 7, &last, &spec, err)) return NULL;
  ice_sort_order_t *order;
  if (ice_sort_order_parse(a, "name DESC NULLS LAST, id", s, 5, &order, err)) return NULL;
  ice_kv_t props[] = {{"owner", "floe"}, {"format-version", "2"}};
  ice_meta_t *m;
  if (ice_meta_new(s, spec, order, "file:///tmp/wh/t/", props, 2, &m, err)) return NULL;
  return m;
}

TEST(new_table_gets_fresh_ids) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ice_meta_t *m = new_table(a, &err);
  CHECK_OK(m ? FL_OK : err.code, &err);
  CHECK_EQ(m->format_version, 2);
  CHECK_STR(m->location, "file:///tmp/wh/t");
  CHECK_EQ(strlen(m->table_uuid), 36);
  CHECK_EQ(m->table_uuid[14], '4');
  const ty_schema_t *s = ice_meta_schema(m);
  CHECK_EQ(s->schema_id, 0);
  /* Top-level 1..5, then tags' element 6, then p's members 7 and 8. */
  for (int i = 0; i < 5; i++) CHECK_EQ(s->root.fields[i].id, i + 1);
  CHECK_EQ(s->root.fields[2].type->fields[0].id, 6);
  CHECK_EQ(s->root.fields[3].type->fields[0].id, 7);
  CHECK_EQ(s->root.fields[3].type->fields[1].id, 8);
  CHECK_EQ(m->last_column_id, 8);
  const ice_spec_t *sp = ice_meta_spec(m);
  CHECK_EQ(sp->spec_id, 0);
  CHECK_EQ(sp->nfields, 2);
  CHECK_EQ(sp->fields[0].source_id, 2); /* ts */
  CHECK_EQ(sp->fields[0].field_id, 1000);
  CHECK_STR(sp->fields[0].name, "ts_day");
  CHECK_EQ(sp->fields[1].source_id, 1); /* id */
  CHECK_EQ(sp->fields[1].field_id, 1001);
  CHECK_EQ(m->last_partition_id, 1001);
  const ice_sort_order_t *so = ice_meta_sort_order(m);
  CHECK_EQ(so->order_id, 1);
  CHECK_EQ(so->fields[0].source_id, 5);
  CHECK(so->fields[0].descending && !so->fields[0].nulls_first);
  CHECK_EQ(so->fields[1].source_id, 1);
  CHECK_STR(ice_meta_property(m, "owner"), "floe");
  CHECK(ice_meta_property(m, "format-version") == NULL);
  CHECK_EQ(m->current_snapshot_id, -1);
  CHECK_ROUND_TRIP(m);

  /* The written text has every required key in Java's order. */
  fl_buf_t b;
  fl_buf_init(&b);
  CHECK_OK(ice_meta_to_json(m, &b, &err), &err);
  fl_buf_append_u8(&b, 0);
  static const char *order[] = {"format-version",
                                "table-uuid",
                                "location",
                                "last-sequence-number",
                                "last-updated-ms",
                                "last-column-id",
                                "current-schema-id",
                                "schemas",
                                "default-spec-id",
                                "partition-specs",
                                "last-partition-id",
                                "default-sort-order-id",
                                "sort-orders",
                                "properties",
                                "current-snapshot-id",
                                "refs",
                                "snapshots",
                                "statistics",
                                "partition-statistics",
                                "snapshot-log",
                                "metadata-log"};
  const char *at = (const char *)b.data;
  for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
    char key[64];
    snprintf(key, sizeof key, "\n  \"%s\":", order[i]);
    const char *p = strstr(at, key);
    if (!p) {
      t_fail(__FILE__, __LINE__, "key %s missing or out of order", order[i]);
      break;
    }
    at = p;
  }
  CHECK(strstr((char *)b.data, "\"current-snapshot-id\": -1"));
  CHECK(!strstr((char *)b.data, "\"schema\":"));
  fl_buf_free(&b);

  /* An unpartitioned, unsorted table; a version from the properties. */
  ty_schema_t *s2;
  CHECK_OK(ty_schema_parse(a, "a int", &s2, &err), &err);
  ice_kv_t v1[] = {{"format-version", "1"}};
  ice_meta_t *m2;
  CHECK_OK(ice_meta_new(s2, NULL, NULL, "/x", v1, 1, &m2, &err), &err);
  CHECK_EQ(m2->format_version, 1);
  CHECK_EQ(ice_meta_spec(m2)->nfields, 0);
  CHECK_EQ(m2->last_partition_id, 999);
  CHECK_EQ(ice_meta_sort_order(m2)->order_id, 0);
  CHECK_ROUND_TRIP(m2);
  ice_meta_free(m2);
  ice_kv_t bad[] = {{"format-version", "7"}};
  CHECK_ERR(ice_meta_new(s2, NULL, NULL, "/x", bad, 1, &m2, &err), FL_EINVALID);
  ice_meta_free(m);
  fl_arena_free(a);
}

static ice_snapshot_t snap(int64_t id, int64_t parent, int64_t seq, int64_t ts, ice_kv_t *sum,
                           uint32_t nsum) {
  return (ice_snapshot_t){.snapshot_id = id,
                          .parent_id = parent,
                          .sequence_number = seq,
                          .timestamp_ms = ts,
                          .manifest_list = "file:///tmp/wh/t/metadata/snap.avro",
                          .schema_id = 0,
                          .summary = sum,
                          .nsummary = nsum,
                          .first_row_id = -1,
                          .added_rows = -1};
}

static ice_ref_t branch(const char *name, int64_t id) {
  return (ice_ref_t){.name = name,
                     .snapshot_id = id,
                     .max_ref_age_ms = -1,
                     .max_snapshot_age_ms = -1,
                     .min_snapshots_to_keep = -1};
}

TEST(snapshots_refs_and_logs) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ice_meta_t *base = new_table(a, &err);
  CHECK_OK(base ? FL_OK : err.code, &err);
  ice_meta_t *m = ice_meta_clone(base);
  ice_meta_free(base);
  ice_kv_t sum[] = {{"added-records", "3"}, {"operation", "append"}};
  int64_t t0 = m->last_updated_ms + 10;
  ice_snapshot_t s1 = snap(11, -1, 1, t0, sum, 2);
  CHECK_OK(ice_meta_add_snapshot(m, &s1, &err), &err);
  CHECK_EQ(m->last_sequence_number, 1);
  CHECK_STR(m->snapshots[0].summary[0].key, "operation");      /* operation first */
  CHECK_ERR(ice_meta_add_snapshot(m, &s1, &err), FL_EINVALID); /* same id */
  ice_snapshot_t stale = snap(12, 11, 1, t0 + 1, sum, 2);
  CHECK_ERR(ice_meta_add_snapshot(m, &stale, &err), FL_EINVALID); /* sequence not above last */
  CHECK(strstr(err.msg, "sequence number"));
  ice_ref_t mainr = branch("main", 11);
  CHECK_OK(ice_meta_set_ref(m, &mainr, t0, &err), &err);
  CHECK_EQ(m->current_snapshot_id, 11);
  CHECK_EQ(m->nsnapshot_log, 1);
  CHECK_OK(ice_meta_set_ref(m, &mainr, t0 + 5, &err), &err); /* unchanged: no log entry */
  CHECK_EQ(m->nsnapshot_log, 1);
  ice_snapshot_t s2 = snap(12, 11, 2, t0 + 100, sum, 2);
  CHECK_OK(ice_meta_add_snapshot(m, &s2, &err), &err);
  mainr.snapshot_id = 12;
  CHECK_OK(ice_meta_set_ref(m, &mainr, t0 + 100, &err), &err);
  CHECK_EQ(m->nsnapshot_log, 2);
  CHECK_EQ(ice_meta_current_snapshot(m)->snapshot_id, 12);
  ice_ref_t tag = {.name = "v1",
                   .snapshot_id = 11,
                   .is_tag = true,
                   .max_ref_age_ms = 1000,
                   .max_snapshot_age_ms = -1,
                   .min_snapshots_to_keep = -1};
  CHECK_OK(ice_meta_set_ref(m, &tag, t0 + 101, &err), &err);
  CHECK_EQ(m->nsnapshot_log, 2); /* only main moves the log */
  ice_ref_t missing = branch("b", 999);
  CHECK_ERR(ice_meta_set_ref(m, &missing, t0, &err), FL_EINVALID);
  ice_ref_t maintag = tag;
  maintag.name = "main";
  CHECK_ERR(ice_meta_set_ref(m, &maintag, t0, &err), FL_EINVALID);
  CHECK_EQ(ice_meta_snapshot_as_of(m, t0 + 50)->snapshot_id, 11);
  CHECK_EQ(ice_meta_snapshot_as_of(m, t0 + 100)->snapshot_id, 12);
  CHECK(m->last_updated_ms >= t0 + 100);
  CHECK_ROUND_TRIP(m);

  /* Refs survive a write and read with their retention settings. */
  ice_meta_t *c = ice_meta_clone(m);
  CHECK(meta_diff(m, c) == NULL);
  ice_meta_free(c);

  /* Removing snapshot 11 drops the tag on it and the log before it. */
  int64_t gone[] = {11};
  ice_meta_remove_snapshots(m, gone, 1);
  CHECK_EQ(m->nsnapshots, 1);
  CHECK(ice_meta_ref(m, "v1") == NULL);
  CHECK_EQ(m->nsnapshot_log, 1);
  CHECK_EQ(m->snapshot_log[0].snapshot_id, 12);
  CHECK(ice_meta_snapshot_as_of(m, t0 + 50) == NULL);
  CHECK_ROUND_TRIP(m); /* the parent id 11 that no longer exists is fine */

  CHECK_OK(ice_meta_remove_ref(m, "main", &err), &err);
  CHECK_EQ(m->current_snapshot_id, -1);
  CHECK_ERR(ice_meta_remove_ref(m, "main", &err), FL_ENOTFOUND);
  CHECK_ROUND_TRIP(m);
  ice_meta_free(m);
  fl_arena_free(a);
}

TEST(schema_spec_and_order_updates_reuse) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ice_meta_t *base = new_table(a, &err);
  CHECK_OK(base ? FL_OK : err.code, &err);
  ice_meta_t *m = ice_meta_clone(base);
  ice_meta_free(base);
  const ty_schema_t *s0 = ice_meta_schema(m);
  int32_t id = -1;
  /* The same schema again is schema 0. */
  CHECK_OK(ice_meta_add_schema(m, s0, &id, &err), &err);
  CHECK_EQ(id, 0);
  CHECK_EQ(m->nschemas, 1);
  /* A new column: schema 1, last-column-id raised. */
  ty_field_t *fields = fl_arena_zalloc(a, (s0->root.nfields + 1) * sizeof *fields);
  memcpy(fields, s0->root.fields, s0->root.nfields * sizeof *fields);
  fields[s0->root.nfields] = (ty_field_t){.id = 9, .name = "extra", .type = ty_primitive(TY_INT)};
  ty_schema_t *s1 = ty_schema_new(a, 42, fields, s0->root.nfields + 1);
  CHECK_OK(ice_meta_add_schema(m, s1, &id, &err), &err);
  CHECK_EQ(id, 1);
  CHECK_EQ(m->current_schema_id, 1);
  CHECK_EQ(m->last_column_id, 9);
  /* Going back to the first schema reuses its id. */
  CHECK_OK(ice_meta_add_schema(m, ice_meta_schema_by_id(m, 0), &id, &err), &err);
  CHECK_EQ(id, 0);
  CHECK_EQ(m->nschemas, 2);
  CHECK_EQ(m->last_column_id, 9);

  /* Specs: the same fields reuse spec 0; new fields get ids after 1001. */
  ice_spec_t *same = ice__spec_copy(a, ice_meta_spec(m));
  CHECK_OK(ice_meta_add_spec(m, same, &id, &err), &err);
  CHECK_EQ(id, 0);
  int32_t last = 0; /* ids below 1000: assigned from last-partition-id */
  ice_spec_t *byname;
  CHECK_OK(ice_spec_parse(a, "name", ice_meta_schema(m), 0, &last, &byname, &err), &err);
  CHECK_OK(ice_meta_add_spec(m, byname, &id, &err), &err);
  CHECK_EQ(id, 1);
  CHECK_EQ(ice_meta_spec(m)->fields[0].field_id, 1002);
  CHECK_EQ(m->last_partition_id, 1002);
  CHECK_OK(ice_meta_add_spec(m, same, &id, &err), &err);
  CHECK_EQ(id, 0);
  CHECK_EQ(m->default_spec_id, 0);
  ice_spec_t bad = {
      .spec_id = 0,
      .nfields = 1,
      .fields = &(ice_partition_field_t){.source_id = 77, .field_id = 1005, .name = "q"}};
  CHECK_ERR(ice_meta_add_spec(m, &bad, &id, &err), FL_EINVALID);

  /* Sort orders: unsorted is 0; an equal order is reused. */
  ice_sort_order_t unsorted = {0};
  CHECK_OK(ice_meta_add_sort_order(m, &unsorted, &id, &err), &err);
  CHECK_EQ(id, 0);
  CHECK_EQ(m->nsort_orders, 2);
  ice_sort_order_t *o;
  CHECK_OK(ice_sort_order_parse(a, "id DESC", ice_meta_schema(m), 0, &o, &err), &err);
  CHECK_OK(ice_meta_add_sort_order(m, o, &id, &err), &err);
  CHECK_EQ(id, 2);
  CHECK_OK(ice_meta_add_sort_order(m, o, &id, &err), &err);
  CHECK_EQ(id, 2);
  CHECK_EQ(m->nsort_orders, 3);
  CHECK_EQ(m->default_sort_order_id, 2);

  /* Properties: set, replace, remove. */
  ice_meta_set_property(m, "k", "1");
  ice_meta_set_property(m, "k", "2");
  CHECK_STR(ice_meta_property(m, "k"), "2");
  CHECK_EQ(ice_meta_property_int(m, "k", 0), 2);
  CHECK_EQ(ice_meta_property_int(m, "owner", 5), 5);
  ice_meta_set_property(m, "k", NULL);
  CHECK(ice_meta_property(m, "k") == NULL);
  CHECK_STR(ice_meta_property(m, "owner"), "floe");
  CHECK_ROUND_TRIP(m);
  ice_meta_free(m);
  fl_arena_free(a);
}

TEST(metadata_log_is_trimmed) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ice_meta_t *m = new_table(a, &err);
  CHECK_OK(m ? FL_OK : err.code, &err);
  ice_meta_set_property(m, "write.metadata.previous-versions-max", "3");
  for (int i = 0; i < 5; i++) {
    char f[64];
    snprintf(f, sizeof f, "file:///m/%05d.metadata.json", i);
    ice_meta_log_previous(m, f, 1000 + i, 2000 + i);
  }
  CHECK_EQ(m->nmetadata_log, 3);
  CHECK_STR(m->metadata_log[0].file, "file:///m/00002.metadata.json");
  CHECK_EQ(m->metadata_log[2].timestamp_ms, 1004);
  CHECK_EQ(m->last_updated_ms, 2004);
  CHECK_ROUND_TRIP(m);
  ice_meta_free(m);
  fl_arena_free(a);
}

TEST(write_is_exclusive) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ice_meta_t *m = new_table(a, &err);
  CHECK_OK(m ? FL_OK : err.code, &err);
  char path[1024];
  snprintf(path, sizeof path, "%s/00000-x.metadata.json", t_tmpdir());
  CHECK_OK(ice_meta_write(io_local_fs(), path, m, &err), &err);
  CHECK_ERR(ice_meta_write(io_local_fs(), path, m, &err), FL_EEXISTS);
  ice_meta_t *back;
  CHECK_OK(read_meta(path, &back, &err), &err);
  CHECK(meta_diff(m, back) == NULL);
  ice_meta_free(back);
  /* A .gz.metadata.json name gets gzip bytes that read back the same. */
  snprintf(path, sizeof path, "%s/00001-x.gz.metadata.json", t_tmpdir());
  CHECK_OK(ice_meta_write(io_local_fs(), path, m, &err), &err);
  size_t n;
  char *raw = slurp(path, &n);
  CHECK(raw && n > 2 && (uint8_t)raw[0] == 0x1f && (uint8_t)raw[1] == 0x8b);
  fl_free(raw);
  CHECK_OK(read_meta(path, &back, &err), &err);
  CHECK(meta_diff(m, back) == NULL);
  ice_meta_free(back);
  ice_meta_free(m);
  fl_arena_free(a);
}

TEST(v3_row_lineage_counts_on) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ty_schema_t *s;
  CHECK_OK(ty_schema_parse(a, "a int", &s, &err), &err);
  ice_kv_t v3[] = {{"format-version", "3"}};
  ice_meta_t *m;
  CHECK_OK(ice_meta_new(s, NULL, NULL, "/v3", v3, 1, &m, &err), &err);
  CHECK_EQ(m->format_version, 3);
  CHECK_EQ(m->next_row_id, 0);
  ice_kv_t sum[] = {{"operation", "append"}};
  ice_snapshot_t s1 = snap(1, -1, 1, m->last_updated_ms + 1, sum, 1);
  s1.added_rows = 10;
  CHECK_OK(ice_meta_add_snapshot(m, &s1, &err), &err);
  ice_snapshot_t s2 = snap(2, 1, 2, m->last_updated_ms + 2, sum, 1);
  s2.added_rows = 5;
  CHECK_OK(ice_meta_add_snapshot(m, &s2, &err), &err);
  CHECK_EQ(ice_meta_snapshot(m, 1)->first_row_id, 0);
  CHECK_EQ(ice_meta_snapshot(m, 2)->first_row_id, 10);
  CHECK_EQ(m->next_row_id, 15);
  CHECK_ROUND_TRIP(m);
  ice_meta_free(m);
  fl_arena_free(a);
}

TEST(removing_snapshots_drops_their_statistics) {
  size_t n;
  char *text = slurp(rust_fixture("TableMetadataV2Valid.json"), &n);
  CHECK(text);
  json_t *root = json_loadb(text, n, 0, NULL);
  fl_free(text);
  CHECK(root);
  json_t *stats =
      json_pack("[{s:I, s:s, s:I, s:I, s:[]}, {s:I, s:s, s:I, s:I, s:[]}]", "snapshot-id",
                (json_int_t)3051729675574597004LL, "statistics-path", "s3://a/stats1.puffin",
                "file-size-in-bytes", (json_int_t)10, "file-footer-size-in-bytes", (json_int_t)5,
                "blob-metadata", "snapshot-id", (json_int_t)3055729675574597004LL,
                "statistics-path", "s3://a/stats2.puffin", "file-size-in-bytes", (json_int_t)10,
                "file-footer-size-in-bytes", (json_int_t)5, "blob-metadata");
  json_object_set_new(root, "statistics", stats);
  json_object_set_new(
      root, "partition-statistics",
      json_pack("[{s:I, s:s, s:I}]", "snapshot-id", (json_int_t)3051729675574597004LL,
                "statistics-path", "s3://a/p.parquet", "file-size-in-bytes", (json_int_t)3));
  char *out = json_dumps(root, 0);
  json_decref(root);
  fl_err_t err = {0};
  ice_meta_t *m;
  CHECK_OK(ice_meta_parse(out, strlen(out), "stats.json", &m, &err), &err);
  free(out);
  CHECK_ROUND_TRIP(m);
  ice_meta_t *c = ice_meta_clone(m);
  ice_meta_free(m);
  /* Without a snapshot log, time travel walks main's ancestry. */
  ice_meta_t *nolog = ice_meta_clone(c);
  nolog->nsnapshot_log = 0;
  CHECK_EQ(ice_meta_snapshot_as_of(nolog, 1515100955770LL + 1)->snapshot_id, 3051729675574597004LL);
  CHECK_EQ(ice_meta_snapshot_as_of(nolog, 1555100955770LL)->snapshot_id, 3055729675574597004LL);
  CHECK(ice_meta_snapshot_as_of(nolog, 0) == NULL);
  ice_meta_free(nolog);

  int64_t gone[] = {3051729675574597004LL};
  ice_meta_remove_snapshots(c, gone, 1);
  CHECK_EQ(c->nsnapshots, 1);
  CHECK_EQ(c->current_snapshot_id, 3055729675574597004LL);
  CHECK_EQ(json_array_size(json_object_get(c->extra, "statistics")), 1);
  CHECK_STR(json_string_value(json_object_get(
                json_array_get(json_object_get(c->extra, "statistics"), 0), "statistics-path")),
            "s3://a/stats2.puffin");
  CHECK_EQ(json_array_size(json_object_get(c->extra, "partition-statistics")), 0);
  CHECK_EQ(c->nsnapshot_log, 1);
  CHECK_ROUND_TRIP(c);
  /* Removing the current snapshot leaves the table without one. */
  int64_t cur[] = {3055729675574597004LL};
  ice_meta_remove_snapshots(c, cur, 1);
  CHECK_EQ(c->current_snapshot_id, -1);
  CHECK(ice_meta_ref(c, "main") == NULL);
  CHECK_EQ(c->nsnapshot_log, 0);
  CHECK_EQ(json_array_size(json_object_get(c->extra, "statistics")), 0);
  CHECK_ROUND_TRIP(c);
  ice_meta_free(c);
}
