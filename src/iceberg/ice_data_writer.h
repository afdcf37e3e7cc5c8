/*
 * ice_data_writer.h - writing a table's rows as Iceberg data and delete
 * files (layer 5, iceberg).
 *
 * A data writer takes batches and writes them as Parquet files under
 * <location>/data/ (or the table's write.data.path) for one partition
 * spec, and hands back one ice_data_file_t per file, ready for a manifest
 * (ice_manifest.h) and a commit (ice_commit.h).
 *
 * Hidden partitioning: for each row the partition tuple is computed from
 * the source columns (found by field id, top-level or inside structs) with
 * the spec's transforms; rows are grouped by tuple and each partition has
 * its own open Parquet file (a fanout writer, so input need not be
 * clustered) at <data>/<ice_spec_partition_path>/<name>.parquet. File
 * names follow Java's OutputFileFactory:
 * "<partition id %05d>-<task id>-<writer uuid>-<counter %05d>.parquet",
 * with "-deletes" before the extension for delete files; the counter runs
 * over every file of the writer, so names never repeat.
 *
 * Memory stays bounded: when more than max_open_files files are open, or
 * their buffered row groups together exceed max_buffered_bytes, the file
 * holding the most buffered bytes is closed (and finished: it goes into
 * the result) and later rows of its partition start a new file. A file is
 * also closed and a new one started when its size (written plus buffered)
 * reaches write.target-file-size-bytes.
 *
 * Table properties read (all optional):
 *   write.target-file-size-bytes          default 536870912
 *   write.parquet.compression-codec       zstd (snappy, gzip, lz4, uncompressed)
 *   write.parquet.compression-level       codec default
 *   write.parquet.row-group-size-bytes    134217728
 *   write.parquet.page-size-bytes         1048576
 *   write.parquet.page-row-limit          20000
 *   write.parquet.dict-size-bytes         2097152
 *   write.metadata.metrics.default        truncate(16) (none, counts, truncate(N), full)
 *   write.metadata.metrics.column.<name>  per column, <name> the dotted full name
 *                                         ("point.x", "tags.element", "attrs.key")
 *   write.metadata.metrics.max-inferred-column-defaults  100: when no default is
 *                                         set, only the first 100 leaf columns get
 *                                         metrics (Java's rule)
 *   write.data.path                       replaces <location>/data
 * A malformed value is FL_EINVALID naming the property.
 *
 * Metrics of each file follow Java's Parquet writer: column_sizes
 * (compressed bytes), value_counts (nulls included; levels for columns in
 * lists and maps), null_value_counts, nan_value_counts (float and double
 * only), lower/upper bounds in the single-value binary form (not for
 * columns inside lists and maps; strings truncated to N code points and
 * binary/fixed to N bytes in truncate(N) mode, the upper bound rounded up
 * or dropped when it cannot be); mode "counts" keeps all but the bounds,
 * "none" nothing. Position delete files always keep full metrics of
 * file_path and pos (so a reader can tell which data file they touch).
 * Every file's footer carries "iceberg.schema" (the file's schema as
 * Iceberg JSON), as Java writes it.
 *
 * Delete files go through the same machinery:
 *   - position deletes (content 1): batches of ice_dw_schema(w) =
 *     file_path string (id 2147483546), pos long (id 2147483545), both
 *     required; rows are buffered and each file is written sorted by path
 *     then pos (a file is cut when the buffer holds max_buffered_deletes
 *     rows). referenced_data_file is set when all of a file's rows name
 *     one data file.
 *   - equality deletes (content 2): batches of ice_dw_schema(w), the table
 *     schema projected on equality_ids (parent structs kept with only the
 *     selected children), written in the order given; equality_ids is set
 *     on each file.
 * Delete files are not partitioned by their rows: they all carry the
 * tuple opts.partition (one value per spec field), or none when the spec
 * is unpartitioned.
 *
 * Life cycle: ice_dw_open, any number of ice_dw_write, then ice_dw_close
 * (finishes every file and returns the list) and ice_dw_free; or
 * ice_dw_abort at any point, also after a successful close when the
 * commit of the files failed: it deletes every file the writer wrote. A
 * failed write leaves the writer unusable except for ice_dw_abort. One
 * thread uses a writer at a time.
 */
#ifndef FL_ICEBERG_ICE_DATA_WRITER_H
#define FL_ICEBERG_ICE_DATA_WRITER_H

#include "base/arena.h"
#include "base/error.h"
#include "iceberg/ice_manifest.h"
#include "iceberg/ice_meta.h"
#include "iceberg/ice_spec.h"
#include "io/fs.h"
#include "types/type.h"
#include "types/value.h"
#include "types/vec.h"

/* Field ids of the reserved position-delete columns. */
#define ICE_DELETE_FILE_PATH_ID 2147483546
#define ICE_DELETE_POS_ID 2147483545

typedef struct ice_dw ice_dw_t;

typedef struct ice_dw_opts {
  ice_content_t content; /* ICE_CONTENT_DATA (0) unless set */
  /* The spec files are written for; NULL: unpartitioned, spec id 0. */
  const ice_spec_t *spec;
  /* Delete files: their partition tuple, one value per spec field (copied);
   * NULL only when the spec is unpartitioned. Ignored for data files. */
  const ty_value_t *partition;
  /* Equality deletes: the field ids rows are matched on (copied). */
  const int32_t *equality_ids;
  uint32_t nequality_ids;
  /* Table properties (see above); not kept after open. */
  const ice_kv_t *props;
  uint32_t nprops;
  /* Recorded on data and equality delete files; 0 = unsorted, -1 absent.
   * Position delete files never carry one. */
  int32_t sort_order_id;
  /* The first two parts of file names (Java: Spark partition id, task id). */
  int32_t partition_id;
  int64_t task_id;
  /* Fanout bounds; 0 takes the default (64 files, 256 MiB buffered). */
  uint32_t max_open_files;
  uint64_t max_buffered_bytes;
  /* Position deletes held before a file is cut; 0: 1,000,000. */
  uint32_t max_buffered_deletes;
} ice_dw_opts_t;

/*
 * Opens a writer for files under location (a path or a URI such as
 * file:///wh/db/t; the files' paths keep its form) of the table with
 * schema (the current schema; must outlive the writer). For data files
 * every spec field's source column must be in the schema outside lists
 * and maps, and every transform must apply to its type (FL_EINVALID
 * naming the field otherwise). opts NULL: data files, unpartitioned.
 */
int ice_dw_open(io_fs_t *fs, const char *location, const ty_schema_t *schema,
                const ice_dw_opts_t *opts, ice_dw_t **out, fl_err_t *err);

/* The schema the writer's batches must have: the table schema for data
 * files, the projection or the position-delete schema for delete files.
 * Lives as long as the writer. */
const ty_schema_t *ice_dw_schema(const ice_dw_t *w);

/*
 * Writes the batch's live rows (its selection vector when set). The batch
 * need not outlive the call. Errors (a required column holding a null, a
 * transform failing, the file system) name the file and leave the writer
 * failed: only ice_dw_abort remains.
 */
int ice_dw_write(ice_dw_t *w, const ty_batch_t *b, fl_err_t *err);

/* Adds one position delete (path copied); the same as a one-row batch. */
int ice_dw_delete_position(ice_dw_t *w, const char *path, int64_t pos, fl_err_t *err);

/*
 * Finishes every open file and returns all files written (in the order
 * they were finished) in a: paths, partition values, metrics and id
 * lists are copied there. On failure the writer is failed (ice_dw_abort
 * deletes what it wrote). The writer stays allocated for ice_dw_abort
 * until ice_dw_free.
 */
int ice_dw_close(ice_dw_t *w, fl_arena_t *a, ice_data_file_t **files, size_t *n, fl_err_t *err);

/* Frees a writer, keeping the files it finished (NULL is ok). */
void ice_dw_free(ice_dw_t *w);

/*
 * Discards open files and deletes every file the writer finished, then
 * frees it. Deletion failures are ignored (the files are unreferenced and
 * orphan-file cleanup removes them later).
 */
void ice_dw_abort(ice_dw_t *w);

/* Files open right now (for tests and memory accounting). */
uint32_t ice_dw_open_files(const ice_dw_t *w);

/* The writer's uuid, part of every file name it gives, and the folder its
 * data files go under (without a trailing '/'): a streaming sink records
 * both before writing, so that files of a checkpoint that never completed
 * can be found and deleted on recovery. */
const char *ice_dw_uuid(const ice_dw_t *w);
const char *ice_dw_data_dir(const ice_dw_t *w);

#endif
