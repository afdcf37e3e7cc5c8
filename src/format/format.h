/*
 * format.h - the file formats floe reads and writes, behind one reader and
 * one writer interface (layer 4, format).
 *
 * `floe convert`, the Iceberg writer and the benchmarks move batches
 * between formats without knowing which one they hold: a fmt_reader_t
 * yields batches of a schema, a fmt_writer_t takes them. Each format
 * (parquet/, avro/, json/, csv/) provides an open function for each side,
 * and fmt_open_reader / fmt_open_writer pick one by file extension.
 */
#ifndef FL_FORMAT_FORMAT_H
#define FL_FORMAT_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "io/fs.h"
#include "types/type.h"
#include "types/vec.h"

typedef enum fmt_kind { FMT_UNKNOWN, FMT_PARQUET, FMT_AVRO, FMT_JSONL, FMT_CSV } fmt_kind_t;

/* .parquet/.parq/.pq, .avro, .jsonl/.ndjson/.json, .csv/.tsv (any case). */
fmt_kind_t fmt_kind_from_path(const char *path);
const char *fmt_kind_name(fmt_kind_t k);

typedef struct fmt_read_opts {
  /* Schema to decode text formats with; NULL infers one (CSV, JSON) or
   * takes the file's own (Parquet, Avro). For Parquet and Avro a given
   * schema selects and orders columns by field id. */
  const ty_schema_t *schema;
  /* Rows to sample for type inference (0: 1000). */
  uint32_t infer_rows;
  /* CSV: field separator (0: ',' or '\t' for .tsv) and header row. */
  char csv_delimiter;
  bool csv_no_header;
  /* The format to read; FMT_UNKNOWN picks it by the path's extension. */
  fmt_kind_t kind;
  /* JSON: how rows are laid out (JSON_AUTO looks at the first byte). */
  enum { FMT_JSON_AUTO, FMT_JSON_LINES, FMT_JSON_ARRAY } json_format;
} fmt_read_opts_t;

typedef struct fmt_write_opts {
  /* "zstd" (default), "snappy", "gzip", "lz4_raw", "uncompressed"; Avro:
   * "null", "deflate", "snappy", "zstd". NULL: the format's default. */
  const char *compression;
  int compression_level;     /* 0: the codec's default */
  uint64_t row_group_rows;   /* Parquet: 0 = 1,048,576 */
  uint64_t row_group_bytes;  /* Parquet: 0 = 128 MiB */
  uint64_t page_bytes;       /* Parquet: 0 = 1 MiB */
  uint64_t dict_page_bytes;  /* Parquet: dictionary size before falling back to PLAIN; 0 = 1 MiB */
  uint32_t page_rows;        /* Parquet: rows per data page at most; 0 = 20,000 */
  bool no_dictionary;        /* Parquet: write PLAIN only */
  bool data_page_v2;         /* Parquet: data pages v2 instead of v1 */
  char csv_delimiter;        /* CSV: 0 = ',' */
} fmt_write_opts_t;

typedef struct fmt_reader fmt_reader_t;
struct fmt_reader {
  const ty_schema_t *schema; /* the schema of the batches it yields */
  /*
   * Yields the next batch (owned by the reader, valid until the next call
   * or close) or *out = NULL at the end. Errors name the file and where.
   */
  int (*next)(fmt_reader_t *r, ty_batch_t **out, fl_err_t *err);
  void (*close)(fmt_reader_t *r);
};

typedef struct fmt_writer fmt_writer_t;
struct fmt_writer {
  /* Appends the live rows of a batch whose schema is the writer's. */
  int (*write)(fmt_writer_t *w, const ty_batch_t *b, fl_err_t *err);
  /* Finishes the file and publishes it; frees the writer either way. */
  int (*close)(fmt_writer_t *w, fl_err_t *err);
  /* Discards the partial file; frees the writer. */
  void (*abort)(fmt_writer_t *w);
};

/* Opens a reader / writer chosen by the path's extension. */
int fmt_open_reader(io_fs_t *fs, const char *path, const fmt_read_opts_t *opts, fmt_reader_t **out,
                    fl_err_t *err);
int fmt_open_writer(io_fs_t *fs, const char *path, const ty_schema_t *schema,
                    const fmt_write_opts_t *opts, fmt_writer_t **out, fl_err_t *err);

/*
 * Prints the structure of a file (`floe inspect`): human text, or one JSON
 * document when json is set.
 */
int fmt_inspect(io_fs_t *fs, const char *path, bool json, FILE *out, fl_err_t *err);

/*
 * What each format provides; formats.c lists the ones built in. A NULL
 * entry point means the format cannot do that (e.g. inspect for CSV).
 */
typedef struct fmt_impl {
  fmt_kind_t kind;
  int (*open_reader)(io_fs_t *fs, const char *path, const fmt_read_opts_t *opts,
                     fmt_reader_t **out, fl_err_t *err);
  int (*open_writer)(io_fs_t *fs, const char *path, const ty_schema_t *schema,
                     const fmt_write_opts_t *opts, fmt_writer_t **out, fl_err_t *err);
  int (*inspect)(io_fs_t *fs, const char *path, bool json, FILE *out, fl_err_t *err);
} fmt_impl_t;

/* NULL-terminated list of the built-in formats (formats.c). */
extern const fmt_impl_t *const fmt_impls[];

#endif
