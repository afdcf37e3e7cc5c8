/*
 * ice_commit.h - snapshot-producing commits (layer 5, iceberg).
 *
 * One ice_change_t describes what a commit does to the files of a branch:
 * files to add (data and delete files, already written), files to remove
 * (by path), and for overwrite/delete by filter the row filter whose
 * matching files go away. ice_commit turns it into a snapshot: manifests
 * for the added files, rewritten manifests where files were removed
 * (DELETED entries), manifest merging when a spec's manifests grow past
 * commit.manifest.min-count-to-merge, a manifest list, summary counters
 * (added-*, deleted-*, total-* as decimal strings, as Java's
 * SnapshotSummary writes them: totals left out when the parent lacks
 * them; the caller's extra keys, which cannot replace those), the
 * operation Java would name ("append", "overwrite", "delete", "replace"),
 * and new metadata swapped in through the table's committer.
 *
 * Conflicts: the change is validated against the snapshots committed
 * since its base before the first attempt (the base may be older than the
 * head) and again after each lost swap (the table is refreshed), with the
 * reference implementation's rules per operation:
 *   append     - nothing to check; re-applied on the new head.
 *   overwrite / delete - every removed file must still be live; with
 *                 a filter (serializable isolation) no data file added
 *                 since the base may match the filter.
 *   row delta  - data files referenced by new position deletes must still
 *                 be live; no data files matching the conflict filter may
 *                 have been added since the base.
 *   rewrite    - every replaced file must still be live and no delete
 *                 file may have been added since the base.
 * A failed validation is FL_ECONFLICT, not retriable; otherwise the
 * commit retries with backoff (ice_table_retry). Files written for failed
 * attempts (manifests, lists, metadata) are deleted.
 */
#ifndef FL_ICEBERG_ICE_COMMIT_H
#define FL_ICEBERG_ICE_COMMIT_H

#include "iceberg/ice_expr.h"
#include "iceberg/ice_manifest.h"
#include "iceberg/ice_table.h"

typedef enum ice_change_kind {
  ICE_CHANGE_APPEND,
  ICE_CHANGE_OVERWRITE,
  ICE_CHANGE_DELETE,
  ICE_CHANGE_ROW_DELTA,
  ICE_CHANGE_REWRITE,
} ice_change_kind_t;

typedef struct ice_change {
  ice_change_kind_t kind;
  const char *branch; /* NULL: main */
  /* Files to add: data files, and (row delta) delete files. */
  const ice_data_file_t *add;
  uint32_t nadd;
  /* Files to remove, by path (overwrite, delete, rewrite). */
  const char *const *remove;
  uint32_t nremove;
  /* Overwrite / delete: data files whose every row matches are removed
   * (bound to the current schema). Files that match only partly make the
   * commit fail (FL_EINVALID): the caller rewrites them first. */
  const ice_expr_t *filter;
  /* Conflict detection filter (NULL: none): row deltas, and overwrites
   * that name their removed files by path (copy-on-write deletes): no
   * data file added since the base may match it. */
  const ice_expr_t *conflict_filter;
  /* The snapshot the change was computed against (-1: the branch head at
   * the first attempt). Validation checks what was committed after it. */
  int64_t base_snapshot_id;
  /* Extra summary keys (floe.job-id, ...). */
  const ice_kv_t *summary;
  uint32_t nsummary;
} ice_change_t;

typedef struct ice_commit_result {
  int64_t snapshot_id;
  int64_t sequence_number;
  int attempts;
} ice_commit_result_t;

/* Commits the change; on success t holds the new metadata. */
int ice_commit(ice_table_t *t, const ice_change_t *c, ice_commit_result_t *res, fl_err_t *err);

/*
 * A metadata-only change (schema, spec, sort order, properties, refs):
 * fn edits a clone of the current metadata; on conflict the table is
 * refreshed and fn runs again on the new head (so it must re-check its
 * preconditions there and fail with a clear error when they no longer
 * hold).
 */
typedef int (*ice_meta_edit_fn)(ice_meta_t *m, void *arg, fl_err_t *err);
int ice_commit_meta_edit(ice_table_t *t, ice_meta_edit_fn fn, void *arg, fl_err_t *err);

/* Every live data and delete file entry of a snapshot, with sequence numbers
 * (for maintenance, scans and validation); entries in a. */
int ice_snapshot_entries(const ice_table_t *t, fl_arena_t *a, const ice_snapshot_t *s,
                         ice_manifest_entry_t **out, size_t *n, fl_err_t *err);
/* Every entry of one manifest of t, DELETED ones included, with sequence
 * numbers and snapshot ids inherited from mf (metadata tables). */
int ice_manifest_entries(const ice_table_t *t, fl_arena_t *a, const ice_manifest_file_t *mf,
                         ice_manifest_entry_t **out, size_t *n, fl_err_t *err);
/* The manifests of a snapshot (v1 inline lists included). */
int ice_snapshot_manifests(const ice_table_t *t, fl_arena_t *a, const ice_snapshot_t *s,
                           ice_manifest_file_t **out, size_t *n, fl_err_t *err);

#endif
