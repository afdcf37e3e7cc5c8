/*
 * ice_scan.h - planning and reading a table scan (layer 5, iceberg).
 *
 * Planning picks the snapshot (current, by id, by timestamp, by branch or
 * tag), reads its manifest list, skips manifests whose partition summaries
 * rule the filter out, reads the rest, skips files whose partition tuple
 * (through the filter's inclusive projection on the file's spec) or column
 * metrics rule it out, and pairs every remaining data file with the delete
 * files that apply to it:
 *   position deletes: sequence number >= the data file's, same partition
 *     (or unpartitioned spec), and file_path bounds admitting the file;
 *   equality deletes: sequence number > the data file's, same partition or
 *     an unpartitioned delete spec.
 *
 * Reading opens each data file with the Parquet reader projected by field
 * id (plus the columns the filter and equality deletes need), row groups
 * and pages pruned by the filter's terms, fills columns the file lacks
 * with nulls or their initial default, widens promoted types (int->long,
 * float->double, decimal precision), drops deleted rows (positions and
 * equality keys), applies the filter exactly, and yields batches of the
 * projected schema.
 */
#ifndef FL_ICEBERG_ICE_SCAN_H
#define FL_ICEBERG_ICE_SCAN_H

#include "iceberg/ice_expr.h"
#include "iceberg/ice_manifest.h"
#include "iceberg/ice_table.h"

typedef struct ice_scan_opts {
  int64_t snapshot_id; /* -1: see ref / as_of_ms / current */
  const char *ref;     /* branch or tag name; NULL: main */
  int64_t as_of_ms;    /* -1: none */
  /* Unbound filter (bound to the scan's schema); NULL: all rows. */
  const ice_expr_t *filter;
  /* Columns by name (top-level or dotted); NULL: all. Hidden columns may
   * follow the table's, each once, in any order: "$path", the data file's
   * path as the manifest names it (string); "$pos", the row's position in
   * that file (long), the row identity row-level deletes and updates
   * need; "$partition", the file's partition path ("g=a/d=2024-01-01",
   * "" unpartitioned; string), as Trino shows it. Scans without them pay
   * nothing. */
  const char *const *columns;
  uint32_t ncolumns;
  bool case_sensitive;
  int64_t limit; /* -1: none */
  /* The filter only prunes (manifests, data files, row groups, pages);
   * the rows of what is read are not tested one by one, because the
   * caller evaluates the same predicate itself. Batches then come
   * straight from the Parquet reader, without a copy. */
  bool prune_only;
} ice_scan_opts_t;

typedef struct ice_scan_task {
  const ice_manifest_entry_t *data;
  uint32_t ndeletes;
  const ice_manifest_entry_t **deletes;
} ice_scan_task_t;

typedef struct ice_scan_stats {
  uint64_t manifests_total, manifests_skipped;
  uint64_t files_total, files_skipped_partition, files_skipped_metrics;
  uint64_t delete_files;
  uint64_t row_groups_read, row_groups_skipped, pages_skipped;
  uint64_t rows_read, rows_deleted, rows_filtered, rows_out;
  uint64_t bytes_read;
} ice_scan_stats_t;

typedef struct ice_scan ice_scan_t;

/* Plans a scan (no data read yet). An empty table gives a scan with no
 * tasks. Errors name the snapshot, ref or column. */
int ice_scan_plan(const ice_table_t *t, const ice_scan_opts_t *opts, ice_scan_t **out,
                  fl_err_t *err);
/* The schema of the batches (the projection of the snapshot's schema). */
const ty_schema_t *ice_scan_schema(const ice_scan_t *s);
/* The chosen snapshot (NULL for an empty table). */
const ice_snapshot_t *ice_scan_snapshot(const ice_scan_t *s);
/* The planned tasks. */
const ice_scan_task_t *ice_scan_tasks(const ice_scan_t *s, uint32_t *n);
/* Yields the next batch (owned by the scan, valid until the next call) or
 * *out = NULL at the end. Errors name the data file. */
int ice_scan_next(ice_scan_t *s, ty_batch_t **out, fl_err_t *err);
const ice_scan_stats_t *ice_scan_stats(const ice_scan_t *s);

/*
 * Restarts reading on task `index` alone: ice_scan_next then yields every
 * live row of its data file (deletes applied) and ends with the file. The
 * filter and the limit no longer apply, and no page is pruned: this is for
 * writers that rewrite a file without some of its rows (copy-on-write
 * deletes), after planning chose the files.
 */
int ice_scan_read_task(ice_scan_t *s, uint32_t index, fl_err_t *err);

/* Field ids of the hidden columns (Iceberg's reserved _file, _pos and
 * _partition). */
#define ICE_SCAN_PATH_ID 2147483646
#define ICE_SCAN_POS_ID 2147483645
#define ICE_SCAN_PARTITION_ID 2147483643
/* "$file_modified_time" (Trino's): the data file's modification time. */
#define ICE_SCAN_MODIFIED_ID 2147483641

/*
 * The positions of task `index`'s data file that its position delete
 * files and deletion vectors delete, sorted and deduplicated, in a
 * malloc'd array the caller frees (NULL when none).
 */
int ice_scan_task_positions(ice_scan_t *s, uint32_t index, int64_t **out, size_t *n, fl_err_t *err);
/*
 * Parallel reading. ice_scan_fork makes a reader over the same plan (same
 * tasks, filter and projection; no limit) with its own reading state and
 * statistics, so several threads can read one planned scan, each through
 * its own fork. The parent must outlive its forks and is not read while
 * they are. ice_scan_read_range restarts a scan or fork on tasks [begin,
 * end) with the filter still applied (unlike ice_scan_read_task), and of
 * each task's data file only row groups [rg_begin, rg_end) (0, 0: all;
 * a task's split_offsets give its row groups). A fork's ice_scan_stats
 * count only what it read.
 */
int ice_scan_fork(const ice_scan_t *s, ice_scan_t **out, fl_err_t *err);
int ice_scan_read_range(ice_scan_t *s, uint32_t begin, uint32_t end, uint32_t rg_begin,
                        uint32_t rg_end, fl_err_t *err);
void ice_scan_free(ice_scan_t *s);

#endif
