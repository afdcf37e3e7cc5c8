/*
 * ice_table.h - an Iceberg table: its current metadata, how to commit a
 * new version, and the file names a table uses (layer 5, iceberg).
 *
 * A table is loaded from the location of its metadata file and carries a
 * committer: the catalog's compare-and-swap of that location (the catalog
 * layer above provides it; this layer only calls through the pointer).
 * Every change to a table - appends, deletes, schema evolution, ref moves,
 * expiry - is written as a new metadata file and becomes visible only when
 * the swap succeeds; a writer that loses the race refreshes, checks that
 * its change still applies (ice_commit.c) and tries again.
 *
 * Paths inside metadata are kept as written (file:// URIs, plain absolute
 * paths, or relative ones in test fixtures, resolved against base_dir).
 */
#ifndef FL_ICEBERG_ICE_TABLE_H
#define FL_ICEBERG_ICE_TABLE_H

#include "base/arena.h"
#include "base/error.h"
#include "iceberg/ice_meta.h"
#include "io/fs.h"

typedef struct ice_committer {
  void *ctx;
  /* The metadata location the catalog holds now (malloc'd into *out). */
  int (*current)(void *ctx, char **out, fl_err_t *err);
  /* Compare-and-swap; FL_ECONFLICT (retriable) when old is no longer current. */
  int (*swap)(void *ctx, const char *old_location, const char *new_location, fl_err_t *err);
  /* Frees ctx when the table is freed (NULL: ctx is not the table's). */
  void (*release)(void *ctx);
} ice_committer_t;

typedef struct ice_table {
  io_fs_t *fs;
  char *ident;             /* "ns.name" for messages */
  char *metadata_location; /* of meta */
  ice_meta_t *meta;
  char *base_dir;          /* resolves relative paths; NULL: none */
  ice_committer_t committer; /* .swap NULL: read-only (a bare metadata file) */
  /* The manifest list this handle committed last, as reading it back would
   * give it, so that the next commit on top of it (a sink appending every
   * few seconds) does not read it back; NULL: none (ice_commit.c). */
  struct ice_list_cache *list_cache;
} ice_table_t;

/* Loads the table whose metadata is at location (ident for messages). */
int ice_table_load(io_fs_t *fs, const char *ident, const char *metadata_location,
                   const ice_committer_t *committer, ice_table_t **out, fl_err_t *err);
/* Re-reads the current metadata through the committer. */
int ice_table_refresh(ice_table_t *t, fl_err_t *err);
void ice_table_free(ice_table_t *t);

/* A path from the metadata made openable (relative ones joined to base_dir);
 * the result lives in a. */
const char *ice_table_path(const ice_table_t *t, fl_arena_t *a, const char *path);

/*
 * The name of the next metadata file for a table at location with current
 * metadata file prev (NULL for a new table): <location>/metadata/
 * NNNNN-<uuid>.metadata.json, NNNNN one above prev's (or 00000).
 */
char *ice_metadata_file_name(fl_arena_t *a, const char *location, const char *prev);

/*
 * Writes m as the table's next metadata file and swaps it in. Takes
 * ownership of m in every case: on success t->meta becomes m (the old
 * metadata is freed) and metadata_location the new file; on failure
 * (FL_ECONFLICT included) m is freed, the written file deleted again and
 * the table left as it was (refresh and retry are the caller's).
 */
int ice_table_commit_meta(ice_table_t *t, ice_meta_t *m, fl_err_t *err);

/* Commit retry policy from the table properties (commit.retry.*). */
typedef struct ice_retry {
  int num_retries;   /* commit.retry.num-retries, default 4 */
  int min_wait_ms;   /* commit.retry.min-wait-ms, default 100 */
  int max_wait_ms;   /* commit.retry.max-wait-ms, default 60000 */
  int total_timeout_ms; /* commit.retry.total-timeout-ms, default 1800000 */
} ice_retry_t;
ice_retry_t ice_table_retry(const ice_table_t *t);
/* Sleeps the backoff for attempt n (exponential with jitter). */
void ice_retry_sleep(const ice_retry_t *r, int attempt);

/* Walks the ancestry of a snapshot (itself first), stopping at expired parents. */
typedef bool (*ice_ancestor_fn)(const ice_snapshot_t *s, void *arg); /* false stops */
void ice_table_ancestors(const ice_meta_t *m, int64_t snapshot_id, ice_ancestor_fn fn, void *arg);
bool ice_is_ancestor(const ice_meta_t *m, int64_t snapshot_id, int64_t ancestor_id);

#endif
