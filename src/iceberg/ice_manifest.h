/*
 * ice_manifest.h - manifests and manifest lists (layer 5, iceberg).
 *
 * A manifest is an Avro file of manifest_entry records (status, snapshot
 * id, sequence numbers, data_file) with the exact Iceberg schema, field
 * ids and header keys (schema, schema-id, partition-spec,
 * partition-spec-id, format-version, content); a manifest list is an
 * Avro file of manifest_file records, one per manifest of a snapshot.
 * Both are written in the table's format version (1 to 3) and follow the
 * spec's sequence number inheritance: ADDED entries are written with null
 * sequence numbers (and, as Java does, the writer's snapshot id) and take
 * them from their manifest's list entry on read; a null snapshot id is
 * inherited too.
 *
 * Column bounds are kept in the single-value binary form (ice_conv.h) as
 * they sit in the file, so reading and rewriting a manifest never changes
 * them; ice_conv decodes them when a predicate needs them.
 */
#ifndef FL_ICEBERG_ICE_MANIFEST_H
#define FL_ICEBERG_ICE_MANIFEST_H

#include "base/arena.h"
#include "base/error.h"
#include "format/avro/avro_container.h"
#include "iceberg/ice_meta.h"
#include "iceberg/ice_spec.h"
#include "io/fs.h"
#include "types/type.h"
#include "types/value.h"

typedef enum ice_content {
  ICE_CONTENT_DATA = 0,
  ICE_CONTENT_POSITION_DELETES = 1,
  ICE_CONTENT_EQUALITY_DELETES = 2,
} ice_content_t;

typedef struct ice_bytes {
  const uint8_t *p; /* NULL: absent */
  size_t n;
} ice_bytes_t;

/* Per-column metrics of a data file; -1 marks a count that is absent. */
typedef struct ice_col_metrics {
  int32_t field_id;
  int64_t column_size;
  int64_t value_count;
  int64_t null_count;
  int64_t nan_count;
  ice_bytes_t lower, upper; /* single-value binary form */
} ice_col_metrics_t;

typedef struct ice_data_file {
  ice_content_t content;
  const char *path;
  const char *format; /* "PARQUET", "AVRO", "ORC" as written */
  int32_t spec_id;
  uint32_t npartition;
  ty_value_t *partition; /* one per spec field, typed by ice_spec_partition_type */
  int64_t record_count;
  int64_t file_size;
  uint32_t ncols;
  ice_col_metrics_t *cols; /* sorted by field id */
  uint32_t nsplit_offsets;
  int64_t *split_offsets;
  uint32_t nequality_ids;
  int32_t *equality_ids;
  int32_t sort_order_id;            /* -1: absent */
  const char *referenced_data_file; /* position deletes (v3); NULL: absent */
  ice_bytes_t key_metadata;
  int64_t first_row_id;                  /* v3; -1 absent */
  int64_t content_offset, content_size; /* v3 deletion vectors; -1 absent */
} ice_data_file_t;

typedef enum ice_entry_status {
  ICE_STATUS_EXISTING = 0,
  ICE_STATUS_ADDED = 1,
  ICE_STATUS_DELETED = 2,
} ice_entry_status_t;

typedef struct ice_manifest_entry {
  ice_entry_status_t status;
  int64_t snapshot_id;          /* after inheritance */
  int64_t sequence_number;      /* data sequence number, after inheritance */
  int64_t file_sequence_number; /* after inheritance */
  ice_data_file_t file;
} ice_manifest_entry_t;

typedef struct ice_field_summary {
  bool contains_null;
  int contains_nan; /* 1, 0, or -1 when absent */
  ice_bytes_t lower, upper;
} ice_field_summary_t;

typedef struct ice_manifest_file {
  const char *path;
  int64_t length;
  int32_t spec_id;
  int32_t content; /* 0 data, 1 deletes */
  int64_t sequence_number;
  int64_t min_sequence_number;
  int64_t added_snapshot_id;
  int32_t added_files, existing_files, deleted_files;
  int64_t added_rows, existing_rows, deleted_rows;
  uint32_t npartitions;
  ice_field_summary_t *partitions; /* one per spec field; NULL when absent */
  ice_bytes_t key_metadata;
  int64_t first_row_id; /* v3; -1 absent */
} ice_manifest_file_t;

/* ---- manifests ---- */

typedef struct ice_manifest_writer ice_manifest_writer_t;

/*
 * How manifests and manifest lists are compressed. The reference
 * implementation applies the table properties write.avro.compression-codec
 * (gzip - Avro's deflate - by default; snappy, zstd, uncompressed) and
 * write.avro.compression-level to them; ice_manifest_codec reads those from
 * m and fails with a message naming the property on an unknown value.
 */
typedef struct ice_avro_codec {
  av_codec_t codec;
  int level; /* 0: the codec's default */
} ice_avro_codec_t;
int ice_manifest_codec(const ice_meta_t *m, ice_avro_codec_t *out, fl_err_t *err);

/*
 * Starts a manifest at path for files of one spec over schema. content:
 * 0 data, 1 deletes (v2 and later). snapshot_id is the committing snapshot,
 * written on ADDED entries as Java writes it (-1: the entry's own, or null
 * so that readers inherit it). codec NULL: deflate at its default level.
 * The writer copies what it needs.
 */
int ice_manifest_writer_open(io_fs_t *fs, const char *path, int format_version,
                             const ty_schema_t *schema, const ice_spec_t *spec, int32_t content,
                             int64_t snapshot_id, const ice_avro_codec_t *codec,
                             ice_manifest_writer_t **out, fl_err_t *err);
/* Adds an entry. ADDED entries' sequence numbers are ignored (inherited);
 * EXISTING and DELETED entries keep theirs. */
int ice_manifest_writer_add(ice_manifest_writer_t *w, const ice_manifest_entry_t *e,
                            fl_err_t *err);
/*
 * Finishes the file and fills *out (path, length, spec, content, counts,
 * partition summaries, added_snapshot_id; sequence numbers -1 meaning
 * "assigned at commit": the manifest list writer fills them). Strings of
 * *out are allocated in a. Frees the writer either way.
 */
int ice_manifest_writer_close(ice_manifest_writer_t *w, fl_arena_t *a, ice_manifest_file_t *out,
                              fl_err_t *err);
void ice_manifest_writer_abort(ice_manifest_writer_t *w);

/*
 * Reads every entry of a manifest into a (mf gives the inheritance source:
 * its sequence number and added snapshot id; for v1 manifests sequence
 * numbers are 0). partition_type is the spec's partition struct (from
 * ice_spec_partition_type); NULL takes it from the manifest's own Avro
 * schema. Errors name the manifest and the entry.
 */
int ice_manifest_read(io_fs_t *fs, fl_arena_t *a, const ice_manifest_file_t *mf,
                      const ty_type_t *partition_type, ice_manifest_entry_t **out, size_t *n,
                      fl_err_t *err);

/* ---- manifest lists ---- */

/*
 * Writes the manifest list of snapshot snapshot_id (parent -1: none) with
 * sequence number seq. Manifests whose sequence numbers are -1 (new in
 * this commit) get seq, and their min_sequence_number seq unless set.
 *
 * v3 row lineage: with first_row_id >= 0 (the table's next-row-id), each
 * data manifest without a first_row_id is given the next free id, and the
 * ids move on by its added and existing rows (existing files of an
 * upgraded table may lack ids of their own), as Java's writer does. The
 * list's header records first-row-id; *assigned_rows (may be NULL) gets
 * the ids handed out, the snapshot's added-rows. files is not changed, so
 * a retried commit assigns afresh from the new base. codec NULL: deflate.
 */
int ice_manifest_list_write(io_fs_t *fs, const char *path, int format_version,
                            int64_t snapshot_id, int64_t parent_id, int64_t seq,
                            int64_t first_row_id, const ice_manifest_file_t *files, size_t n,
                            int64_t *assigned_rows, const ice_avro_codec_t *codec,
                            fl_err_t *err);

/* Reads a manifest list (v1: sequence numbers 0, content data). */
int ice_manifest_list_read(io_fs_t *fs, fl_arena_t *a, const char *path,
                           ice_manifest_file_t **out, size_t *n, fl_err_t *err);

/* Finds a column's metrics in a data file; NULL when absent. */
const ice_col_metrics_t *ice_data_file_col(const ice_data_file_t *f, int32_t field_id);

#endif
