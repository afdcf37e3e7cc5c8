/*
 * ice_manifest_int.h - what the manifest and manifest list files share
 * (layer 5, iceberg, private).
 *
 * The Avro schemas of manifest_entry and manifest_file are built as
 * Iceberg schemas (ice_manifest_schema.c) and turned into Avro by
 * av_schema_from_iceberg, so names, field ids, docs, r<id> records and
 * k<id>_v<id> map records come out as Java writes them. Readers never
 * rely on names: they find fields by field id, since writers differ
 * (Java's v1 lists say added_data_files_count, PyIceberg's
 * added_files_count).
 */
#ifndef FL_ICEBERG_ICE_MANIFEST_INT_H
#define FL_ICEBERG_ICE_MANIFEST_INT_H

#include "format/avro/avro_binary.h"
#include "format/avro/avro_container.h"
#include "format/avro/avro_iceberg.h"
#include "iceberg/ice_manifest.h"

/* The Iceberg schema of manifest_entry for a format version (1..3) with
 * the given partition struct type. */
const ty_schema_t *ice__manifest_entry_schema(fl_arena_t *a, int format_version,
                                              const ty_type_t *partition_type);
/* The Iceberg schema of manifest_file for a format version (1..3). */
const ty_schema_t *ice__manifest_file_schema(fl_arena_t *a, int format_version);

/* Index of the field of a record schema whose "field-id" is id, or -1. */
int ice__av_field_by_id(const av_schema_t *rec, int32_t id);
/*
 * The field ids of the record schemas a reader meets, worked out once per
 * schema (a manifest has a handful: manifest_entry, r2, r102, r508) so
 * that looking a field up by id is a scan of a few integers. Lives in
 * arena a, as long as the reader.
 */
#define ICE__AV_IDS_MAX 16
typedef struct ice__av_ids {
  fl_arena_t *a;
  uint32_t n;
  const av_schema_t *schemas[ICE__AV_IDS_MAX];
  int32_t *ids[ICE__AV_IDS_MAX];
} ice__av_ids_t;

/* The field value of a decoded record by field id; NULL when the schema
 * has no such field or the value is null. */
const av_value_t *ice__av_get(ice__av_ids_t *c, const av_value_t *rec, int32_t id);

/*
 * Wraps a writer so that the bytes written are counted into *count (the
 * manifest_length a manifest list records). The wrapper forwards commit
 * and abort and frees itself.
 */
io_writer_t *ice__counting_writer(io_writer_t *inner, uint64_t *count);

/* Reads the container header's format-version key; dflt when absent. */
int ice__av_format_version(const av_reader_t *r, int dflt);

#endif
