/*
 * pq_writer.h - the Parquet file writer (layer 4, format/parquet, public).
 *
 * Writes batches of an Iceberg schema as a Parquet file that pyarrow,
 * DuckDB, Spark and parquet-mr read: field ids on every column, 3-level
 * lists and maps, dictionary or PLAIN pages (v1 or v2) compressed with one
 * codec, page CRCs, column statistics, column and offset indexes. Memory
 * holds the open row group's encoded pages, never the file.
 *
 * Life cycle: pq_writer_open, any number of pq_writer_write, then either
 * pq_writer_close (publishes the file atomically) followed by
 * pq_writer_metrics and pq_writer_free, or pq_writer_abort. One thread
 * uses a writer at a time.
 */
#ifndef FL_FORMAT_PARQUET_PQ_WRITER_H
#define FL_FORMAT_PARQUET_PQ_WRITER_H

#include "format/format.h"
#include "types/value.h"

typedef struct pq_writer pq_writer_t;

/*
 * Creates path on fs (published only by pq_writer_close) for batches of
 * schema, which must outlive the writer. opts may be NULL (defaults: zstd,
 * dictionary on, v1 pages of 1 MiB, row groups of 1,048,576 rows / 128 MiB).
 */
int pq_writer_open(io_fs_t *fs, const char *path, const ty_schema_t *schema,
                   const fmt_write_opts_t *opts, pq_writer_t **out, fl_err_t *err);

/* Adds a key/value pair to the footer (copied); e.g. "iceberg.schema". Before close. */
void pq_writer_add_kv(pq_writer_t *w, const char *key, const char *value);

/* Appends the batch's live rows (its selection vector when set). */
int pq_writer_write(pq_writer_t *w, const ty_batch_t *b, fl_err_t *err);

/*
 * Flushes the last row group, writes the page indexes and footer and
 * publishes the file. The writer stays allocated (for pq_writer_metrics)
 * until pq_writer_free; on failure the partial file is discarded.
 */
int pq_writer_close(pq_writer_t *w, fl_err_t *err);

/*
 * How large the file is growing: *written the bytes already in the file,
 * *buffered an estimate of the open row group held in memory (encoded,
 * before compression), which is also what the writer's memory grows with.
 * Writers that roll files at a target size compare written + buffered.
 */
void pq_writer_size(const pq_writer_t *w, uint64_t *written, uint64_t *buffered);

/* Discards the partial file and frees the writer. */
void pq_writer_abort(pq_writer_t *w);

/* Frees a closed writer (NULL is ok). */
void pq_writer_free(pq_writer_t *w);

/*
 * What an Iceberg data_file records about one leaf column, keyed by its
 * field id. Counts follow Iceberg: value_count includes nulls (for columns
 * inside lists and maps it counts the column's levels), nan_count is -1
 * for types other than float and double. Bounds are the exact smallest
 * and largest non-null, non-NaN values (untruncated; byte values point
 * into the writer and live until pq_writer_free); has_bounds is false when
 * there is no such value and for columns inside lists and maps.
 */
typedef struct pq_column_metrics {
  int32_t field_id;
  const ty_type_t *type;
  int64_t compressed_bytes;
  int64_t value_count, null_count, nan_count;
  bool has_bounds;
  ty_value_t lower, upper;
} pq_column_metrics_t;

typedef struct pq_file_metrics {
  int64_t record_count;
  int64_t file_size;
  uint32_t nsplit_offsets;
  const int64_t *split_offsets; /* start of each row group */
  uint32_t ncolumns;
  const pq_column_metrics_t *columns; /* leaf columns in schema order */
} pq_file_metrics_t;

/* Metrics of a successfully closed writer (NULL before close). */
const pq_file_metrics_t *pq_writer_metrics(const pq_writer_t *w);

/* The fmt_writer_t wrapper (pq_fmt_write.c). */
int pq_fmt_open_writer(io_fs_t *fs, const char *path, const ty_schema_t *schema,
                       const fmt_write_opts_t *opts, fmt_writer_t **out, fl_err_t *err);

#endif
