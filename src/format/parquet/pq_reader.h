/*
 * pq_reader.h - the Parquet reader (layer 4, format/parquet, public).
 *
 * Reads any Parquet file through io/fs.h positioned reads: the footer
 * first, then one row group at a time, each needed column chunk in one
 * read, so memory stays bounded by a row group's projected columns and
 * files larger than memory stream. Batches of up to TY_BATCH_ROWS rows
 * never span row groups and are reused from call to call.
 *
 * Options select columns by Iceberg field id and give an AND-list of
 * simple predicates; row groups whose statistics prove that no row can
 * match are skipped without being read. The counters say how much was
 * read and skipped (for EXPLAIN).
 */
#ifndef FL_FORMAT_PARQUET_PQ_READER_H
#define FL_FORMAT_PARQUET_PQ_READER_H

#include "format/parquet/pq_meta.h"
#include "io/fs.h"
#include "types/value.h"
#include "types/vec.h"

typedef enum pq_pred_op {
  PQ_OP_EQ,
  PQ_OP_LT,
  PQ_OP_LE,
  PQ_OP_GT,
  PQ_OP_GE,
  PQ_OP_IS_NULL,
  PQ_OP_NOT_NULL,
} pq_pred_op_t;

/* One predicate term: field op value (value unused for the null tests;
 * its kind must be the field's kind for the term to prune). */
typedef struct pq_pred_term {
  int32_t field_id;
  pq_pred_op_t op;
  ty_value_t value;
} pq_pred_term_t;

typedef struct pq_read_opts {
  /* Fields to read by id; NULL: all. Top-level ids select whole columns
   * in that order; nested ids select sub-fields, their top-level column
   * appearing (pruned to what was asked) at its first mention. */
  const int32_t *field_ids;
  uint32_t nfield_ids;
  /* Terms that must all hold; used for pruning only (rows of row groups
   * that are read are returned unfiltered). */
  const pq_pred_term_t *pred;
  uint32_t npred;
  /* Only row groups [rg_begin, rg_end) are read (rg_end 0: to the last);
   * rows before rg_begin still count as skipped, so row positions stay
   * those of the file (parallel readers of one file split it so). */
  uint32_t rg_begin, rg_end;
} pq_read_opts_t;

typedef struct pq_read_stats {
  uint64_t row_groups_read, row_groups_skipped;
  uint64_t pages_read, pages_skipped;
  uint64_t rows_read, rows_skipped;
  uint64_t bytes_read;
} pq_read_stats_t;

typedef struct pq_reader pq_reader_t;

/* Opens path; opts may be NULL. Errors name the file. */
int pq_reader_open(io_fs_t *fs, const char *path, const pq_read_opts_t *opts, pq_reader_t **out,
                   fl_err_t *err);
/* Same over an already open io_reader_t, which the reader takes over
 * (closed by pq_reader_close, or on failure). */
int pq_reader_open_io(io_reader_t *io, const pq_read_opts_t *opts, pq_reader_t **out,
                      fl_err_t *err);
/* Yields the next batch (owned by the reader, valid until the next call)
 * or *out = NULL at the end. */
int pq_reader_next(pq_reader_t *r, ty_batch_t **out, fl_err_t *err);
/* The schema of the batches (the projection), and of the whole file. */
const ty_schema_t *pq_reader_schema(const pq_reader_t *r);
const ty_schema_t *pq_reader_file_schema(const pq_reader_t *r);
const pq_file_meta_t *pq_reader_file_meta(const pq_reader_t *r);
const pq_read_stats_t *pq_reader_stats(const pq_reader_t *r);
void pq_reader_close(pq_reader_t *r);

#endif
