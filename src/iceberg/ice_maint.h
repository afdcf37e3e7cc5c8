/*
 * ice_maint.h - snapshot management and table maintenance (layer 5,
 * iceberg).
 *
 * Ref operations (each one metadata commit through ice_commit_meta_edit):
 * rollback main to an ancestor snapshot or to the snapshot current at a
 * time; set main to any snapshot; cherry-pick an append (or overwrite
 * without conflicts) snapshot onto main; create/replace/drop branches and
 * tags; fast-forward a branch to another whose head descends from it.
 *
 * Expiry removes snapshots that no ref needs: every ref keeps its head;
 * a branch keeps the ancestors within its min-snapshots-to-keep (default
 * history.expire.min-snapshots-to-keep = 1) and max-snapshot-age-ms
 * (history.expire.max-snapshot-age-ms, 5 days), overridden by the
 * caller's older_than / retain_last; refs older than max-ref-age-ms go
 * (never main). After the metadata commit, files that only the expired
 * snapshots reached - manifest lists, manifests, data and delete files -
 * are deleted; files any kept snapshot reaches are never touched.
 *
 * Orphan removal lists everything under the table location and deletes
 * files no metadata reaches (current and logged metadata files, every
 * snapshot's manifest list, manifests and files) that are older than a
 * threshold, so in-flight commits of other writers are safe.
 */
#ifndef FL_ICEBERG_ICE_MAINT_H
#define FL_ICEBERG_ICE_MAINT_H

#include "iceberg/ice_expr.h"
#include "iceberg/ice_table.h"

int ice_rollback_to_snapshot(ice_table_t *t, int64_t snapshot_id, fl_err_t *err);
int ice_rollback_to_time(ice_table_t *t, int64_t ts_ms, fl_err_t *err);
int ice_set_current_snapshot(ice_table_t *t, int64_t snapshot_id, fl_err_t *err);
int ice_cherry_pick(ice_table_t *t, int64_t snapshot_id, fl_err_t *err);

/* Creates (or with replace, moves) a branch / tag to snapshot_id (-1: main's
 * head). FL_EEXISTS when it exists and replace is false. */
int ice_create_branch(ice_table_t *t, const char *name, int64_t snapshot_id, bool replace,
                      fl_err_t *err);
int ice_create_tag(ice_table_t *t, const char *name, int64_t snapshot_id, bool replace,
                   fl_err_t *err);
/*
 * The general form: creates or (replace) moves r->name to r->snapshot_id
 * (-1: main's head) with r's retention (max-ref-age-ms; for branches
 * min-snapshots-to-keep and max-snapshot-age-ms), a field of -1 keeping
 * the replaced ref's value (or staying unset). must_exist: the ref must
 * already exist (Spark's REPLACE BRANCH), FL_ENOTFOUND otherwise.
 */
int ice_set_ref(ice_table_t *t, const ice_ref_t *r, bool replace, bool must_exist, fl_err_t *err);
/* Drops a branch or tag; main cannot be dropped. */
int ice_drop_ref(ice_table_t *t, const char *name, fl_err_t *err);
/* Moves branch `name` to the head of `to` when that head descends from it. */
int ice_fast_forward(ice_table_t *t, const char *name, const char *to, fl_err_t *err);

typedef struct ice_expire_opts {
  int64_t older_than_ms; /* -1: now - history.expire.max-snapshot-age-ms */
  int32_t retain_last;   /* -1: history.expire.min-snapshots-to-keep */
  bool dry_run;          /* compute and report, delete nothing */
} ice_expire_opts_t;

typedef struct ice_expire_result {
  uint64_t snapshots_expired;
  uint64_t manifest_lists_deleted, manifests_deleted, data_files_deleted, delete_files_deleted;
  uint64_t eq_delete_files_deleted; /* of delete_files_deleted, the equality deletes */
  uint64_t statistics_files_deleted;
} ice_expire_result_t;

int ice_expire_snapshots(ice_table_t *t, const ice_expire_opts_t *o, ice_expire_result_t *res,
                         fl_err_t *err);

typedef struct ice_orphan_result {
  uint64_t files_seen, orphans_deleted, bytes_deleted;
  uint64_t reachable_files; /* files the metadata reaches (the orphans' complement) */
  uint64_t manifests_read;  /* manifests read to find them */
} ice_orphan_result_t;

/* Deletes unreachable files under the table location older than older_than_ms
 * (file modification time); dry_run only counts. Listed orphan paths go to
 * fn when set. */
int ice_remove_orphans(ice_table_t *t, int64_t older_than_ms, bool dry_run,
                       void (*fn)(const char *path, void *arg), void *arg,
                       ice_orphan_result_t *res, fl_err_t *err);

/*
 * Bin-pack compaction (ice_compact.c): rewrites the data files of a branch
 * smaller than file_size_threshold, and those with deletes, a partition
 * at a time into files of write.target-file-size-bytes with their deletes
 * applied, removes the delete files that only they needed, and commits
 * one "replace" snapshot validated against concurrent commits. filter
 * (unbound, NULL: all) must select whole partitions. Nothing is committed
 * when no partition has two or more candidates or one with deletes
 * (snapshot_id -1).
 */
typedef struct ice_compact_opts {
  int64_t file_size_threshold;
  const ice_expr_t *filter;
  const char *branch; /* NULL: main */
} ice_compact_opts_t;

typedef struct ice_compact_result {
  uint64_t rewritten_data_files, removed_delete_files, added_data_files;
  uint64_t rewritten_bytes, added_bytes;
  int64_t snapshot_id;
} ice_compact_result_t;

int ice_compact(ice_table_t *t, const ice_compact_opts_t *o, ice_compact_result_t *res,
                fl_err_t *err);

/* Every file path the table's metadata reaches (metadata files, lists,
 * manifests, data and delete files), normalised to local paths, in a. */
int ice_reachable_files(const ice_table_t *t, fl_arena_t *a, const char ***out, size_t *n,
                        fl_err_t *err);

#endif
