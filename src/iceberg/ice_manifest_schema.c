/*
 * ice_manifest_schema.c - the Iceberg schemas of manifest_entry and
 * manifest_file, per format version, and the small Avro helpers the
 * manifest readers and writers share (layer 5, iceberg).
 *
 * Field names, ids, requiredness and docs follow Java's V1Metadata,
 * V2Metadata and V3Metadata (the files Spark writes), which the spec's
 * tables list too:
 *   manifest_entry: status 0, snapshot_id 1, sequence_number 3,
 *     file_sequence_number 4, data_file 2 (r2: content 134, file_path 100,
 *     file_format 101, partition 102, record_count 103, file_size_in_bytes
 *     104, block_size_in_bytes 105 (v1 only), column_sizes 108,
 *     value_counts 109, null_value_counts 110, nan_value_counts 137,
 *     lower_bounds 125, upper_bounds 128, key_metadata 131, split_offsets
 *     132, equality_ids 135, sort_order_id 140, first_row_id 142 (v3),
 *     referenced_data_file 143, content_offset 144 and
 *     content_size_in_bytes 145 (v3)).
 *   manifest_file: 500-520 as listed in ICEBERG-NOTES.md.
 */
#include <string.h>

#include "base/alloc.h"
#include "iceberg/ice_manifest_int.h"

static ty_field_t fld(int32_t id, const char *name, bool required, const ty_type_t *t,
                      const char *doc) {
  ty_field_t f;
  memset(&f, 0, sizeof f);
  f.id = id;
  f.name = name;
  f.required = required;
  f.type = t;
  f.doc = doc;
  return f;
}

static const ty_type_t *prim(ty_kind_t k) { return ty_primitive(k); }

static const ty_type_t *int_map(fl_arena_t *a, int32_t key_id, ty_kind_t value) {
  return ty_map_new(a, key_id, prim(TY_INT), key_id + 1, true, prim(value));
}

static const ty_type_t *data_file_type(fl_arena_t *a, int v, const ty_type_t *partition_type) {
  ty_field_t f[24];
  uint32_t n = 0;
  if (v >= 2)
    f[n++] = fld(134, "content", true, prim(TY_INT),
                 "Contents of the file: 0=data, 1=position deletes, 2=equality deletes");
  f[n++] = fld(100, "file_path", true, prim(TY_STRING), "Location URI with FS scheme");
  f[n++] =
      fld(101, "file_format", true, prim(TY_STRING), "File format name: avro, orc, or parquet");
  f[n++] = fld(102, "partition", true, partition_type,
               "Partition data tuple, schema based on the partition spec");
  f[n++] = fld(103, "record_count", true, prim(TY_LONG), "Number of records in the file");
  f[n++] = fld(104, "file_size_in_bytes", true, prim(TY_LONG), "Total file size in bytes");
  if (v == 1)
    f[n++] = fld(105, "block_size_in_bytes", true, prim(TY_LONG),
                 "Deprecated. Always write a default in v1. Do not write in v2.");
  f[n++] = fld(108, "column_sizes", false, int_map(a, 117, TY_LONG),
               "Map of column id to total size on disk");
  f[n++] = fld(109, "value_counts", false, int_map(a, 119, TY_LONG),
               "Map of column id to total count, including null and NaN");
  f[n++] = fld(110, "null_value_counts", false, int_map(a, 121, TY_LONG),
               "Map of column id to null value count");
  f[n++] = fld(137, "nan_value_counts", false, int_map(a, 138, TY_LONG),
               "Map of column id to number of NaN values in the column");
  f[n++] = fld(125, "lower_bounds", false, int_map(a, 126, TY_BINARY),
               "Map of column id to lower bound");
  f[n++] = fld(128, "upper_bounds", false, int_map(a, 129, TY_BINARY),
               "Map of column id to upper bound");
  f[n++] = fld(131, "key_metadata", false, prim(TY_BINARY), "Encryption key metadata blob");
  f[n++] = fld(132, "split_offsets", false, ty_list_new(a, 133, true, prim(TY_LONG)),
               "Splittable offsets");
  if (v >= 2)
    f[n++] = fld(135, "equality_ids", false, ty_list_new(a, 136, true, prim(TY_INT)),
                 "Equality comparison field IDs");
  f[n++] = fld(140, "sort_order_id", false, prim(TY_INT), "Sort order ID");
  if (v >= 3)
    f[n++] = fld(142, "first_row_id", false, prim(TY_LONG),
                 "The _row_id for the first row in the data file");
  if (v >= 2)
    f[n++] = fld(143, "referenced_data_file", false, prim(TY_STRING),
                 "Fully qualified location (URI with FS scheme) of a data file that all deletes "
                 "reference");
  if (v >= 3) {
    f[n++] = fld(144, "content_offset", false, prim(TY_LONG),
                 "The offset in the file where the content starts");
    f[n++] = fld(145, "content_size_in_bytes", false, prim(TY_LONG),
                 "The length of a referenced content stored in the file; required if "
                 "content_offset is present");
  }
  return ty_struct_new(a, f, n);
}

const ty_schema_t *ice__manifest_entry_schema(fl_arena_t *a, int v,
                                              const ty_type_t *partition_type) {
  ty_field_t f[5];
  uint32_t n = 0;
  f[n++] = fld(0, "status", true, prim(TY_INT), NULL);
  f[n++] = fld(1, "snapshot_id", v == 1, prim(TY_LONG), NULL);
  if (v >= 2) {
    f[n++] = fld(3, "sequence_number", false, prim(TY_LONG), NULL);
    f[n++] = fld(4, "file_sequence_number", false, prim(TY_LONG), NULL);
  }
  f[n++] = fld(2, "data_file", true, data_file_type(a, v, partition_type), NULL);
  return ty_schema_new(a, 0, f, n);
}

static const ty_type_t *field_summary_type(fl_arena_t *a) {
  ty_field_t f[4];
  f[0] = fld(509, "contains_null", true, prim(TY_BOOLEAN),
             "True if any file has a null partition value");
  f[1] = fld(518, "contains_nan", false, prim(TY_BOOLEAN),
             "True if any file has a nan partition value");
  f[2] = fld(510, "lower_bound", false, prim(TY_BINARY), "Partition lower bound for all files");
  f[3] = fld(511, "upper_bound", false, prim(TY_BINARY), "Partition upper bound for all files");
  return ty_struct_new(a, f, 4);
}

const ty_schema_t *ice__manifest_file_schema(fl_arena_t *a, int v) {
  ty_field_t f[20];
  uint32_t n = 0;
  const ty_type_t *parts = ty_list_new(a, 508, true, field_summary_type(a));
  f[n++] = fld(500, "manifest_path", true, prim(TY_STRING), "Location URI with FS scheme");
  f[n++] = fld(501, "manifest_length", true, prim(TY_LONG), "Total file size in bytes");
  f[n++] = fld(502, "partition_spec_id", true, prim(TY_INT), "Spec ID used to write");
  if (v == 1) {
    /* Java's V1Metadata: optional counts, partitions before the row counts. */
    f[n++] =
        fld(503, "added_snapshot_id", false, prim(TY_LONG), "Snapshot ID that added the manifest");
    f[n++] = fld(504, "added_data_files_count", false, prim(TY_INT), "Added entry count");
    f[n++] = fld(505, "existing_data_files_count", false, prim(TY_INT), "Existing entry count");
    f[n++] = fld(506, "deleted_data_files_count", false, prim(TY_INT), "Deleted entry count");
    f[n++] = fld(507, "partitions", false, parts, "Summary for each partition");
    f[n++] = fld(512, "added_rows_count", false, prim(TY_LONG), "Added rows count");
    f[n++] = fld(513, "existing_rows_count", false, prim(TY_LONG), "Existing rows count");
    f[n++] = fld(514, "deleted_rows_count", false, prim(TY_LONG), "Deleted rows count");
    return ty_schema_new(a, 0, f, n);
  }
  f[n++] = fld(517, "content", true, prim(TY_INT), "Contents of the manifest: 0=data, 1=deletes");
  f[n++] = fld(515, "sequence_number", true, prim(TY_LONG),
               "Sequence number when the manifest was added");
  f[n++] = fld(516, "min_sequence_number", true, prim(TY_LONG),
               "Lowest sequence number in the manifest");
  f[n++] =
      fld(503, "added_snapshot_id", true, prim(TY_LONG), "Snapshot ID that added the manifest");
  f[n++] = fld(504, "added_files_count", true, prim(TY_INT), "Added entry count");
  f[n++] = fld(505, "existing_files_count", true, prim(TY_INT), "Existing entry count");
  f[n++] = fld(506, "deleted_files_count", true, prim(TY_INT), "Deleted entry count");
  f[n++] = fld(512, "added_rows_count", true, prim(TY_LONG), "Added rows count");
  f[n++] = fld(513, "existing_rows_count", true, prim(TY_LONG), "Existing rows count");
  f[n++] = fld(514, "deleted_rows_count", true, prim(TY_LONG), "Deleted rows count");
  f[n++] = fld(507, "partitions", false, parts, "Summary for each partition");
  f[n++] = fld(519, "key_metadata", false, prim(TY_BINARY), "Encryption key metadata blob");
  if (v >= 3)
    f[n++] = fld(520, "first_row_id", false, prim(TY_LONG),
                 "Starting row ID to assign to new rows in ADDED data files");
  return ty_schema_new(a, 0, f, n);
}

/* ---- Avro helpers ---- */

static int32_t field_id_of(const av_field_t *f);

int ice__av_field_by_id(const av_schema_t *rec, int32_t id) {
  if (!rec || rec->type != AV_RECORD) return -1;
  for (uint32_t i = 0; i < rec->nfields; i++)
    if (field_id_of(&rec->fields[i]) == id) return (int)i;
  return -1;
}

static int32_t field_id_of(const av_field_t *f) {
  int64_t v;
  const char *j = av_field_attr(f, "field-id");
  return j && av_attr_int(j, &v) && v >= INT32_MIN && v <= INT32_MAX ? (int32_t)v : INT32_MIN;
}

static const int32_t *ids_of(ice__av_ids_t *c, const av_schema_t *rec) {
  for (uint32_t i = 0; i < c->n; i++)
    if (c->schemas[i] == rec) return c->ids[i];
  if (c->n == ICE__AV_IDS_MAX) return NULL;
  int32_t *ids = fl_arena_alloc(c->a, sizeof *ids * (rec->nfields ? rec->nfields : 1));
  for (uint32_t i = 0; i < rec->nfields; i++) ids[i] = field_id_of(&rec->fields[i]);
  c->schemas[c->n] = rec;
  c->ids[c->n++] = ids;
  return ids;
}

const av_value_t *ice__av_get(ice__av_ids_t *c, const av_value_t *rec, int32_t id) {
  if (!rec || rec->type != AV_RECORD || !rec->schema) return NULL;
  const int32_t *ids = ids_of(c, rec->schema);
  int i = -1;
  if (ids) {
    for (uint32_t k = 0; k < rec->schema->nfields; k++)
      if (ids[k] == id) {
        i = (int)k;
        break;
      }
  } else {
    i = ice__av_field_by_id(rec->schema, id);
  }
  if (i < 0 || (uint32_t)i >= rec->u.record.n) return NULL;
  const av_value_t *v = rec->u.record.fields[i];
  return v && v->type != AV_NULL ? v : NULL;
}

typedef struct counting_writer {
  io_writer_t base;
  io_writer_t *inner;
  uint64_t *count;
} counting_writer_t;

static int cw_write(io_writer_t *w, const void *buf, size_t n, fl_err_t *err) {
  counting_writer_t *c = (counting_writer_t *)w;
  int rc = c->inner->write(c->inner, buf, n, err);
  if (rc == FL_OK) {
    *c->count += n;
    c->base.written += n;
  }
  return rc;
}

static int cw_commit(io_writer_t *w, fl_err_t *err) {
  counting_writer_t *c = (counting_writer_t *)w;
  io_writer_t *inner = c->inner;
  fl_free(c);
  return inner->commit(inner, err);
}

static void cw_abort(io_writer_t *w) {
  counting_writer_t *c = (counting_writer_t *)w;
  io_writer_t *inner = c->inner;
  fl_free(c);
  inner->abort(inner);
}

io_writer_t *ice__counting_writer(io_writer_t *inner, uint64_t *count) {
  counting_writer_t *c = fl_calloc(1, sizeof *c);
  c->inner = inner;
  c->count = count;
  c->base.path = inner->path;
  c->base.write = cw_write;
  c->base.commit = cw_commit;
  c->base.abort = cw_abort;
  return &c->base;
}

int ice__av_format_version(const av_reader_t *r, int dflt) {
  size_t n;
  const uint8_t *p = av_reader_meta(r, "format-version", &n);
  if (!p || n == 0 || n > 2) return dflt;
  int v = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] < '0' || p[i] > '9') return dflt;
    v = v * 10 + (p[i] - '0');
  }
  return v;
}
