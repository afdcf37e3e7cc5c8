/*
 * ice_int.h - helpers shared inside the Iceberg layer (layer 5, private).
 */
#ifndef FL_ICEBERG_ICE_INT_H
#define FL_ICEBERG_ICE_INT_H

#include "iceberg/ice_commit.h"
#include "iceberg/ice_manifest.h"
#include "iceberg/ice_table.h"

/* Reads one manifest of the table with inheritance from mf (its path
 * resolved through ice_table_path, partitions typed by its spec). */
int ice__read_manifest(const ice_table_t *t, fl_arena_t *a, const ice_manifest_file_t *mf,
                       ice_manifest_entry_t **out, size_t *n, fl_err_t *err);

/* A manifest list kept in memory (ice_table_t.list_cache): the list file
 * at list_path (as the metadata names it) holds exactly mfs[0..n). */
typedef struct ice_list_cache {
  fl_arena_t *a;
  const char *list_path;
  ice_manifest_file_t *mfs;
  size_t n;
} ice_list_cache_t;

/* Replaces t's cached list with mfs[0..n) of the v2 list written at
 * list_path for snapshot_id (sequence number seq), in the form
 * ice_manifest_list_read gives back. */
void ice__list_cache_put(ice_table_t *t, const char *list_path, int64_t snapshot_id, int64_t seq,
                         const ice_manifest_file_t *mfs, size_t n);
void ice__list_cache_free(ice_list_cache_t *c);
/* ice_snapshot_manifests for the head a commit builds on: from t's cached
 * list when it is s's. */
int ice__commit_base_manifests(const ice_table_t *t, fl_arena_t *a, const ice_snapshot_t *s,
                               ice_manifest_file_t **out, size_t *n, fl_err_t *err);

/* The folder metadata files go to: write.metadata.path or <location>/metadata. */
const char *ice__metadata_dir(const ice_meta_t *m, fl_arena_t *a);

/* Milliseconds since the epoch. */
int64_t ice__now_ms(void);

#endif
