/*
 * pq_meta.h - Parquet's footer and page-header structures as C structs
 * (layer 4, format/parquet, private to the Parquet module).
 *
 * These mirror parquet.thrift field for field (the names and numbers are
 * the spec's); optional Thrift fields carry a has_* flag. All pointers,
 * strings and arrays live in the arena the structure was decoded into or
 * built in. The writer encodes them with the Thrift compact protocol
 * (pq_meta_write.c); the reader decodes them (pq_meta_read.c) checking
 * every length against the bytes at hand.
 */
#ifndef FL_FORMAT_PARQUET_PQ_META_H
#define FL_FORMAT_PARQUET_PQ_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"

typedef enum pq_type {
  PQ_BOOLEAN = 0,
  PQ_INT32 = 1,
  PQ_INT64 = 2,
  PQ_INT96 = 3,
  PQ_FLOAT = 4,
  PQ_DOUBLE = 5,
  PQ_BYTE_ARRAY = 6,
  PQ_FIXED_LEN_BYTE_ARRAY = 7,
} pq_type_t;

typedef enum pq_repetition { PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2 } pq_repetition_t;

typedef enum pq_converted_type {
  PQ_CT_UTF8 = 0,
  PQ_CT_MAP = 1,
  PQ_CT_MAP_KEY_VALUE = 2,
  PQ_CT_LIST = 3,
  PQ_CT_ENUM = 4,
  PQ_CT_DECIMAL = 5,
  PQ_CT_DATE = 6,
  PQ_CT_TIME_MILLIS = 7,
  PQ_CT_TIME_MICROS = 8,
  PQ_CT_TIMESTAMP_MILLIS = 9,
  PQ_CT_TIMESTAMP_MICROS = 10,
  PQ_CT_UINT_8 = 11,
  PQ_CT_UINT_16 = 12,
  PQ_CT_UINT_32 = 13,
  PQ_CT_UINT_64 = 14,
  PQ_CT_INT_8 = 15,
  PQ_CT_INT_16 = 16,
  PQ_CT_INT_32 = 17,
  PQ_CT_INT_64 = 18,
  PQ_CT_JSON = 19,
  PQ_CT_BSON = 20,
  PQ_CT_INTERVAL = 21,
} pq_converted_type_t;

/* The LogicalType union's member ids. */
typedef enum pq_logical_kind {
  PQ_LT_NONE = 0,
  PQ_LT_STRING = 1,
  PQ_LT_MAP = 2,
  PQ_LT_LIST = 3,
  PQ_LT_ENUM = 4,
  PQ_LT_DECIMAL = 5,
  PQ_LT_DATE = 6,
  PQ_LT_TIME = 7,
  PQ_LT_TIMESTAMP = 8,
  PQ_LT_INTEGER = 10,
  PQ_LT_UNKNOWN = 11,
  PQ_LT_JSON = 12,
  PQ_LT_BSON = 13,
  PQ_LT_UUID = 14,
  PQ_LT_FLOAT16 = 15,
  PQ_LT_VARIANT = 16,
  PQ_LT_GEOMETRY = 17,
  PQ_LT_GEOGRAPHY = 18,
} pq_logical_kind_t;

typedef enum pq_time_unit { PQ_MILLIS = 1, PQ_MICROS = 2, PQ_NANOS = 3 } pq_time_unit_t;

typedef struct pq_logical_type {
  pq_logical_kind_t kind;
  int32_t decimal_scale, decimal_precision; /* DECIMAL */
  bool is_adjusted_to_utc;                  /* TIME, TIMESTAMP */
  pq_time_unit_t unit;                      /* TIME, TIMESTAMP */
  int8_t int_bit_width;                     /* INTEGER */
  bool int_is_signed;                       /* INTEGER */
} pq_logical_type_t;

typedef enum pq_encoding {
  PQ_ENC_PLAIN = 0,
  PQ_ENC_PLAIN_DICTIONARY = 2,
  PQ_ENC_RLE = 3,
  PQ_ENC_BIT_PACKED = 4,
  PQ_ENC_DELTA_BINARY_PACKED = 5,
  PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
  PQ_ENC_DELTA_BYTE_ARRAY = 7,
  PQ_ENC_RLE_DICTIONARY = 8,
  PQ_ENC_BYTE_STREAM_SPLIT = 9,
} pq_encoding_t;

typedef enum pq_codec {
  PQ_CODEC_UNCOMPRESSED = 0,
  PQ_CODEC_SNAPPY = 1,
  PQ_CODEC_GZIP = 2,
  PQ_CODEC_LZO = 3,
  PQ_CODEC_BROTLI = 4,
  PQ_CODEC_LZ4 = 5, /* deprecated Hadoop-framed (or raw) LZ4 */
  PQ_CODEC_ZSTD = 6,
  PQ_CODEC_LZ4_RAW = 7,
} pq_codec_t;

typedef enum pq_page_type {
  PQ_PAGE_DATA = 0,
  PQ_PAGE_INDEX = 1,
  PQ_PAGE_DICTIONARY = 2,
  PQ_PAGE_DATA_V2 = 3,
} pq_page_type_t;

typedef enum pq_boundary_order {
  PQ_UNORDERED = 0,
  PQ_ASCENDING = 1,
  PQ_DESCENDING = 2,
} pq_boundary_order_t;

typedef struct pq_bytes {
  const uint8_t *p;
  size_t n;
} pq_bytes_t;

typedef struct pq_statistics {
  bool has_max, has_min, has_null_count, has_distinct_count, has_max_value, has_min_value;
  bool has_is_max_value_exact, has_is_min_value_exact;
  pq_bytes_t max, min; /* deprecated signed-order fields 1 and 2 */
  int64_t null_count;
  int64_t distinct_count;
  pq_bytes_t max_value, min_value; /* fields 5 and 6: the ones to trust */
  bool is_max_value_exact, is_min_value_exact;
} pq_statistics_t;

typedef struct pq_schema_element {
  bool has_type, has_type_length, has_repetition, has_num_children, has_converted_type;
  bool has_scale, has_precision, has_field_id, has_logical_type;
  pq_type_t type;
  int32_t type_length;
  pq_repetition_t repetition;
  const char *name;
  int32_t num_children;
  pq_converted_type_t converted_type;
  int32_t scale, precision;
  int32_t field_id;
  pq_logical_type_t logical_type;
} pq_schema_element_t;

typedef struct pq_data_page_header {
  int32_t num_values;
  pq_encoding_t encoding;
  pq_encoding_t definition_level_encoding;
  pq_encoding_t repetition_level_encoding;
  bool has_statistics;
  pq_statistics_t statistics;
} pq_data_page_header_t;

typedef struct pq_dictionary_page_header {
  int32_t num_values;
  pq_encoding_t encoding;
  bool has_is_sorted;
  bool is_sorted;
} pq_dictionary_page_header_t;

typedef struct pq_data_page_header_v2 {
  int32_t num_values, num_nulls, num_rows;
  pq_encoding_t encoding;
  int32_t definition_levels_byte_length, repetition_levels_byte_length;
  bool is_compressed; /* defaults to true when absent */
  bool has_statistics;
  pq_statistics_t statistics;
} pq_data_page_header_v2_t;

typedef struct pq_page_header {
  pq_page_type_t type;
  int32_t uncompressed_page_size;
  int32_t compressed_page_size;
  bool has_crc;
  int32_t crc;
  bool has_data_page_header, has_dictionary_page_header, has_data_page_header_v2;
  pq_data_page_header_t data_page_header;
  pq_dictionary_page_header_t dictionary_page_header;
  pq_data_page_header_v2_t data_page_header_v2;
} pq_page_header_t;

typedef struct pq_key_value {
  const char *key;
  const char *value; /* may be NULL */
} pq_key_value_t;

typedef struct pq_page_encoding_stats {
  pq_page_type_t page_type;
  pq_encoding_t encoding;
  int32_t count;
} pq_page_encoding_stats_t;

typedef struct pq_column_meta {
  pq_type_t type;
  uint32_t nencodings;
  pq_encoding_t *encodings;
  uint32_t npath;
  const char **path_in_schema;
  pq_codec_t codec;
  int64_t num_values;
  int64_t total_uncompressed_size, total_compressed_size;
  uint32_t nkey_value;
  pq_key_value_t *key_value_metadata;
  int64_t data_page_offset;
  bool has_index_page_offset, has_dictionary_page_offset;
  int64_t index_page_offset, dictionary_page_offset;
  bool has_statistics;
  pq_statistics_t statistics;
  uint32_t nencoding_stats;
  pq_page_encoding_stats_t *encoding_stats;
  bool has_bloom_filter_offset, has_bloom_filter_length;
  int64_t bloom_filter_offset;
  int32_t bloom_filter_length;
} pq_column_meta_t;

typedef struct pq_column_chunk {
  const char *file_path; /* NULL: this file */
  int64_t file_offset;
  bool has_meta_data;
  pq_column_meta_t meta_data;
  bool has_offset_index, has_column_index;
  int64_t offset_index_offset, column_index_offset;
  int32_t offset_index_length, column_index_length;
  bool is_encrypted; /* crypto_metadata or encrypted_column_metadata present */
} pq_column_chunk_t;

typedef struct pq_sorting_column {
  int32_t column_idx;
  bool descending, nulls_first;
} pq_sorting_column_t;

typedef struct pq_row_group {
  uint32_t ncolumns;
  pq_column_chunk_t *columns;
  int64_t total_byte_size;
  int64_t num_rows;
  uint32_t nsorting_columns;
  pq_sorting_column_t *sorting_columns;
  bool has_file_offset, has_total_compressed_size, has_ordinal;
  int64_t file_offset, total_compressed_size;
  int16_t ordinal;
} pq_row_group_t;

typedef struct pq_file_meta {
  int32_t version;
  uint32_t nschema;
  pq_schema_element_t *schema; /* depth-first, element 0 is the root */
  int64_t num_rows;
  uint32_t nrow_groups;
  pq_row_group_t *row_groups;
  uint32_t nkey_value;
  pq_key_value_t *key_value_metadata;
  const char *created_by;
  uint32_t ncolumn_orders; /* each is TYPE_ORDER when present */
  bool has_encryption_algorithm;
} pq_file_meta_t;

typedef struct pq_page_location {
  int64_t offset;
  int32_t compressed_page_size;
  int64_t first_row_index;
} pq_page_location_t;

typedef struct pq_offset_index {
  uint32_t npages;
  pq_page_location_t *page_locations;
  uint32_t nunencoded;
  int64_t *unencoded_byte_array_data_bytes;
} pq_offset_index_t;

typedef struct pq_column_index {
  uint32_t npages;
  bool *null_pages;
  pq_bytes_t *min_values, *max_values;
  pq_boundary_order_t boundary_order;
  bool has_null_counts;
  int64_t *null_counts;
} pq_column_index_t;

/* Encoders (pq_meta_write.c): append the compact-protocol bytes to out. */
void pq_meta_write_file(const pq_file_meta_t *m, fl_buf_t *out);
void pq_meta_write_page_header(const pq_page_header_t *h, fl_buf_t *out);
void pq_meta_write_column_index(const pq_column_index_t *ci, fl_buf_t *out);
void pq_meta_write_offset_index(const pq_offset_index_t *oi, fl_buf_t *out);

/*
 * Decoders (pq_meta_read.c): parse [p, p+n) into structures allocated in
 * the arena; *used (when not NULL) gets the number of bytes consumed.
 * Lengths, counts, nesting depth and enum values are validated; a hostile
 * footer gives FL_ECORRUPT naming the structure and byte offset.
 */
int pq_meta_read_file(fl_arena_t *a, const uint8_t *p, size_t n, pq_file_meta_t *out,
                      fl_err_t *err);
int pq_meta_read_page_header(fl_arena_t *a, const uint8_t *p, size_t n, pq_page_header_t *out,
                             size_t *used, fl_err_t *err);
int pq_meta_read_column_index(fl_arena_t *a, const uint8_t *p, size_t n, pq_column_index_t *out,
                              fl_err_t *err);
int pq_meta_read_offset_index(fl_arena_t *a, const uint8_t *p, size_t n, pq_offset_index_t *out,
                              fl_err_t *err);

/* Names for inspect and messages ("RLE_DICTIONARY", "ZSTD", "INT64"). */
const char *pq_encoding_name(pq_encoding_t e);
const char *pq_codec_name(pq_codec_t c);
const char *pq_type_name(pq_type_t t);

#endif
