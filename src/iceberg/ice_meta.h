/*
 * ice_meta.h - Iceberg table metadata (layer 5, iceberg).
 *
 * The parsed form of a metadata.json file (format v1, v2 and v3 read; v2
 * written): schemas, partition specs, sort orders, snapshots and their
 * summaries, the snapshot and metadata logs, refs, properties. Everything
 * lives in the metadata's own arena. Metadata is immutable: a commit
 * clones it (ice_meta_clone), changes the clone through the ice_meta_*
 * update functions below and writes it as a new file.
 *
 * Keys floe does not model (statistics, partition-statistics, encryption
 * keys, future fields) are kept as raw JSON and written back unchanged.
 */
#ifndef FL_ICEBERG_ICE_META_H
#define FL_ICEBERG_ICE_META_H

#include <jansson.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "iceberg/ice_spec.h"
#include "io/fs.h"
#include "types/type.h"

typedef struct ice_kv {
  const char *key;
  const char *value;
} ice_kv_t;

typedef struct ice_snapshot {
  int64_t snapshot_id;
  int64_t parent_id; /* -1: none */
  int64_t sequence_number; /* 0 in v1 */
  int64_t timestamp_ms;
  const char *manifest_list; /* NULL for v1 snapshots with an inline "manifests" list */
  uint32_t nmanifests_v1;
  const char **manifests_v1;
  int32_t schema_id; /* -1: not recorded */
  uint32_t nsummary;
  ice_kv_t *summary; /* "operation" first */
  int64_t first_row_id, added_rows; /* v3 row lineage; -1 when absent */
  json_t *extra; /* object of keys floe does not model ("key-id"), or NULL; arena-held */
  /* Its JSON text as the metadata file holds it (indented for its place
   * in the snapshots array), rendered for json_format_version; NULL until
   * ice_meta_render_snapshots. */
  const char *json;
  int json_format_version;
} ice_snapshot_t;

typedef struct ice_ref {
  const char *name;
  int64_t snapshot_id;
  bool is_tag;
  int64_t max_ref_age_ms;      /* -1: not set */
  int64_t max_snapshot_age_ms; /* branches; -1: not set */
  int32_t min_snapshots_to_keep; /* branches; -1: not set */
} ice_ref_t;

typedef struct ice_snapshot_log_entry {
  int64_t timestamp_ms;
  int64_t snapshot_id;
} ice_snapshot_log_entry_t;

typedef struct ice_metadata_log_entry {
  int64_t timestamp_ms;
  const char *file;
} ice_metadata_log_entry_t;

typedef struct ice_meta {
  fl_arena_t *arena; /* owns everything below */
  int format_version;
  char table_uuid[37];
  const char *location;
  int64_t last_sequence_number;
  int64_t last_updated_ms;
  int32_t last_column_id;
  uint32_t nschemas;
  ty_schema_t **schemas;
  int32_t current_schema_id;
  uint32_t nspecs;
  ice_spec_t **specs;
  int32_t default_spec_id;
  int32_t last_partition_id;
  uint32_t nsort_orders;
  ice_sort_order_t **sort_orders;
  int32_t default_sort_order_id;
  uint32_t nproperties;
  ice_kv_t *properties;
  int64_t current_snapshot_id; /* -1: none */
  uint32_t nsnapshots;
  ice_snapshot_t *snapshots; /* in the file's order (commit order) */
  uint32_t nsnapshot_log;
  ice_snapshot_log_entry_t *snapshot_log;
  uint32_t nmetadata_log;
  ice_metadata_log_entry_t *metadata_log;
  uint32_t nrefs;
  ice_ref_t *refs;
  int64_t next_row_id; /* v3; -1 when absent */
  json_t *extra; /* object of keys kept verbatim (owned; released with the arena) */
} ice_meta_t;

/* ---- reading and writing ---- */

/*
 * Parses metadata JSON text. what names the source for messages. Checks
 * what the spec requires of the format version (v2: every required field,
 * ICEBERG-NOTES.md), that ids referenced (current schema, default spec,
 * default sort order, ref and current snapshot ids) exist, and gives
 * FL_ECORRUPT / FL_EUNSUPPORTED (format version > 3, unknown types) with
 * the key path in the message. Parents and snapshot-log entries may name
 * expired snapshots, as Java leaves them. v1 files get the fallbacks Java
 * and iceberg-rust apply: "schema" and "partition-spec" when the lists are
 * absent, the highest spec id when default-spec-id is, partition field ids
 * from 1000 when missing, unsorted order 0 when sort orders are absent.
 */
int ice_meta_parse(const char *json, size_t len, const char *what, ice_meta_t **out,
                   fl_err_t *err);
/* Reads a metadata file, gzip-compressed or not (by magic bytes). */
int ice_meta_read(io_fs_t *fs, const char *path, ice_meta_t **out, fl_err_t *err);
/* Appends the JSON text (format v2 layout with every required field). */
int ice_meta_to_json(const ice_meta_t *m, fl_buf_t *out, fl_err_t *err);
/* Renders (once) the JSON text of m's snapshots and keeps it with them, so
 * that writing m and the clones made from it later copy that text instead
 * of rebuilding it: call it on metadata about to be written. */
void ice_meta_render_snapshots(ice_meta_t *m);
/* Writes the metadata to path atomically and exclusively (FL_EEXISTS when taken),
 * gzip-compressed when path ends in ".gz.metadata.json". */
int ice_meta_write(io_fs_t *fs, const char *path, const ice_meta_t *m, fl_err_t *err);
void ice_meta_free(ice_meta_t *m);

/* Partition specs and sort orders as their JSON objects (new references):
 * {"spec-id", "fields": [{"name", "transform", "source-id", "field-id"}]}
 * and {"order-id", "fields": [{"transform", "source-id", "direction",
 * "null-order"}]}. ice_spec_fields_to_json gives the bare fields array
 * (the "partition-spec" key of manifests and v1 metadata). */
json_t *ice_spec_to_json(const ice_spec_t *s);
json_t *ice_spec_fields_to_json(const ice_spec_t *s);
json_t *ice_sort_order_to_json(const ice_sort_order_t *o);
/* Parses a spec object (or, with spec_id >= 0, a bare fields array given
 * that id); field ids missing (v1) count on from *next_field_id. */
int ice_spec_from_json(fl_arena_t *a, const json_t *j, const char *what, int32_t spec_id,
                       int32_t *next_field_id, ice_spec_t **out, fl_err_t *err);
int ice_sort_order_from_json(fl_arena_t *a, const json_t *j, const char *what,
                             ice_sort_order_t **out, fl_err_t *err);

/* ---- lookups ---- */
const ty_schema_t *ice_meta_schema(const ice_meta_t *m); /* current */
const ty_schema_t *ice_meta_schema_by_id(const ice_meta_t *m, int32_t id);
const ice_spec_t *ice_meta_spec(const ice_meta_t *m); /* default */
const ice_spec_t *ice_meta_spec_by_id(const ice_meta_t *m, int32_t id);
const ice_sort_order_t *ice_meta_sort_order(const ice_meta_t *m); /* default */
const ice_snapshot_t *ice_meta_snapshot(const ice_meta_t *m, int64_t id);
const ice_snapshot_t *ice_meta_current_snapshot(const ice_meta_t *m); /* NULL: empty table */
const ice_ref_t *ice_meta_ref(const ice_meta_t *m, const char *name);
/* The newest snapshot in main's history committed at or before ts (snapshot log). */
const ice_snapshot_t *ice_meta_snapshot_as_of(const ice_meta_t *m, int64_t ts_ms);
const char *ice_meta_property(const ice_meta_t *m, const char *key); /* NULL when unset */
int64_t ice_meta_property_int(const ice_meta_t *m, const char *key, int64_t dflt);
const char *ice_snapshot_summary(const ice_snapshot_t *s, const char *key);
/* The snapshot's operation ("append", ...), "" when the summary lacks it. */
const char *ice_snapshot_operation(const ice_snapshot_t *s);

/* ---- building and updating (on a clone) ---- */

/*
 * New v2 metadata for a table: the schema is re-numbered with fresh ids
 * (as Java's TableMetadata.newTableMetadata does; a schema whose ids are
 * already fresh comes out unchanged); spec and sort order (NULL or no
 * fields: unpartitioned / unsorted) refer to the given schema's ids and
 * are re-pointed to the new ones, the spec getting spec id 0 and field ids
 * from 1000, a sort order id 1. The reserved property "format-version"
 * (1, 2 or 3) picks the version and is not stored. uuid is generated.
 */
int ice_meta_new(const ty_schema_t *schema, const ice_spec_t *spec, const ice_sort_order_t *sort,
                 const char *location, const ice_kv_t *props, uint32_t nprops, ice_meta_t **out,
                 fl_err_t *err);

/* A deep copy in a new arena, ready to be updated. */
ice_meta_t *ice_meta_clone(const ice_meta_t *m);

/* Sets last_updated_ms and appends (prev_file, prev.last_updated_ms) to the
 * metadata log, trimming it to write.metadata.previous-versions-max (100). */
void ice_meta_log_previous(ice_meta_t *m, const char *prev_file, int64_t prev_updated_ms,
                           int64_t now_ms);

/* Adds a schema (or finds an equal one) and makes it current; *id gets its id.
 * last_column_id is raised to the schema's highest id. */
int ice_meta_add_schema(ice_meta_t *m, const ty_schema_t *s, int32_t *id, fl_err_t *err);
/* Adds a spec (or finds a compatible one with the same field ids) and makes it default. */
int ice_meta_add_spec(ice_meta_t *m, const ice_spec_t *s, int32_t *id, fl_err_t *err);
int ice_meta_add_sort_order(ice_meta_t *m, const ice_sort_order_t *o, int32_t *id, fl_err_t *err);
/* Sets (value != NULL) or removes (value == NULL) a property. */
void ice_meta_set_property(ice_meta_t *m, const char *key, const char *value);

/* Appends a snapshot (copied); in v2+ its sequence number must be above
 * last-sequence-number (a commit uses last + 1), which it then becomes. */
int ice_meta_add_snapshot(ice_meta_t *m, const ice_snapshot_t *s, fl_err_t *err);
/*
 * Points a branch or tag at a snapshot, creating it when absent. Setting
 * "main" also sets current_snapshot_id and appends to the snapshot log.
 */
int ice_meta_set_ref(ice_meta_t *m, const ice_ref_t *ref, int64_t now_ms, fl_err_t *err);
int ice_meta_remove_ref(ice_meta_t *m, const char *name, fl_err_t *err);
/* Removes snapshots by id, the refs that point at them, and the snapshot
 * log up to the newest entry naming one (Java's rule: no gaps in history). */
void ice_meta_remove_snapshots(ice_meta_t *m, const int64_t *ids, uint32_t n);

/* A random positive 63-bit snapshot id, and a random v4 uuid text. */
int64_t ice_new_snapshot_id(void);
void ice_new_uuid(char out[37]);

#endif
