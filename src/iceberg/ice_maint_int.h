/*
 * ice_maint_int.h - what snapshot expiry and orphan removal share: the
 * canonical form of a path and the walk that collects the files
 * snapshots reach (layer 5, private to ice_expire.c, ice_orphans.c and
 * ice_reachable.c).
 */
#ifndef FL_ICEBERG_ICE_MAINT_INT_H
#define FL_ICEBERG_ICE_MAINT_INT_H

#include "base/strset.h"
#include "iceberg/ice_int.h"
#include "iceberg/ice_maint.h"

/*
 * The form paths are compared in: "file:///p", "file://localhost/p" and
 * "file:/p" reduced to "/p", runs of slashes and "/./" segments collapsed,
 * no trailing slash. Other URIs (s3://...) are kept as they are. For paths
 * the file system gave (listings); the result lives in a.
 */
char *ice__clean_path(fl_arena_t *a, const char *path);
/* The same for a path from metadata, relative ones first joined to the
 * table's base_dir (ice_table_path). */
char *ice__norm_path(const ice_table_t *t, fl_arena_t *a, const char *path);

/* Files reached by a set of snapshots, as normalised paths. */
typedef struct ice_reach {
  fl_strset_t lists;        /* manifest lists */
  fl_strset_t manifests;    /* manifests (also: the ones already read) */
  fl_strset_t data_files;   /* content 0 */
  fl_strset_t delete_files; /* content 1 and 2 */
  fl_strset_t eq_deletes;   /* content 2 (also in delete_files) */
  /* DELETED manifest entries count as reached too (orphan removal keeps
   * them; expiry wants only what a snapshot can read). */
  bool deleted_entries;
  /* Unreadable manifest lists and manifests are errors; when false they
   * are skipped (expired snapshots whose files are already gone). */
  bool strict;
  uint64_t skipped; /* lists and manifests that could not be read (lenient) */
} ice_reach_t;

void ice__reach_init(ice_reach_t *r, bool deleted_entries, bool strict);

/* ice_reachable_files, also counting the manifests read (*nmanifests; may be NULL). */
int ice__reachable_files(const ice_table_t *t, fl_arena_t *a, const char ***out, size_t *n,
                         uint64_t *nmanifests, fl_err_t *err);
void ice__reach_free(ice_reach_t *r);

/* Adds a snapshot's manifest list and manifests (not their entries). The
 * manifests are appended to *mfs (grown in a) unless already in r. */
int ice__reach_snapshot(const ice_table_t *t, fl_arena_t *a, ice_reach_t *r,
                        const ice_snapshot_t *s, ice_manifest_file_t **mfs, size_t *nmfs,
                        size_t *cap, fl_err_t *err);
/* Reads the entries of the manifests and adds their files to r. */
int ice__reach_entries(const ice_table_t *t, ice_reach_t *r, const ice_manifest_file_t *mfs,
                       size_t nmfs, fl_err_t *err);

/* Calls fn on every key of a string set (keys are NUL-terminated). */
void ice__strset_each(const fl_strset_t *s, void (*fn)(const char *key, void *arg), void *arg);

/* False when gc.enabled is "false": the table's files may be shared with
 * other tables, so nothing may delete them. */
bool ice__gc_enabled(const ice_meta_t *m);

#endif
