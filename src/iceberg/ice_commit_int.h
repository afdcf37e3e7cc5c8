/*
 * ice_commit_int.h - the state of one commit, shared by ice_commit.c,
 * ice_commit_manifests.c and ice_commit_validate.c (layer 5, private).
 */
#ifndef FL_ICEBERG_ICE_COMMIT_INT_H
#define FL_ICEBERG_ICE_COMMIT_INT_H

#include "base/strset.h"
#include "iceberg/ice_int.h"

typedef struct ice_commit_delta {
  int64_t added_data_files, deleted_data_files, added_records, deleted_records;
  int64_t added_size, removed_size;
  int64_t added_delete_files, removed_delete_files;
  int64_t added_pos_files, added_eq_files, removed_pos_files, removed_eq_files;
  int64_t added_dvs, removed_dvs; /* deletion vectors: not counted as position delete files */
  int64_t added_pos_deletes, added_eq_deletes, removed_pos_deletes, removed_eq_deletes;
} ice_commit_delta_t;

typedef struct ice_commit_state {
  ice_table_t *t;
  const ice_change_t *c;
  fl_arena_t *a; /* lives for the whole commit, all attempts */
  int attempt;
  int64_t base_snapshot_id;
  /* This attempt: */
  const ice_snapshot_t *head; /* the branch head it builds on (NULL: none) */
  int64_t snapshot_id, seq;
  ice_manifest_file_t *mfs; /* the new snapshot's manifests */
  const char *list_path;    /* and the list naming them */
  size_t nmfs, mfs_cap;
  const char **written; /* manifests and lists this attempt wrote */
  size_t nwritten, written_cap;
  unsigned manifest_counter;
  ice_commit_delta_t d;
  fl_strset_t partitions; /* changed partitions */
} ice_commit_state_t;

/* Fills st->mfs: kept, rewritten, new and merged manifests. */
int ice__commit_build_manifests(ice_commit_state_t *st, fl_err_t *err);
/* Checks, after a lost race, that the change still applies on the new head. */
int ice__commit_validate(ice_commit_state_t *st, fl_err_t *err);

void ice__commit_note_written(ice_commit_state_t *st, const char *path);
/* Deletes a file this attempt wrote and no longer needs (a manifest
 * merged into another); paths it did not write are left alone. */
void ice__commit_discard_written(ice_commit_state_t *st, const char *path);
void ice__commit_add_manifest(ice_commit_state_t *st, const ice_manifest_file_t *mf);
char *ice__commit_manifest_path(ice_commit_state_t *st);
void ice__commit_count_file(ice_commit_state_t *st, const ice_data_file_t *f, int sign);

#endif
