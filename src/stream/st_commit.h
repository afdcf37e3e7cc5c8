/*
 * st_commit.h - committing a checkpoint's pending files into the job's
 * tables, exactly once (layer 10, stream).
 *
 * One snapshot per table (an append of the files its sink wrote for the
 * checkpoint), all tables in one catalog transaction
 * (cat_table_swap_many): each table's new metadata is written first
 * through a staging committer that only records the swap, then every
 * swap happens at once or none does. Each snapshot's summary carries
 * floe.job-id, floe.checkpoint-id and floe.offsets (the source
 * positions, compact JSON). Before committing, each table's snapshot
 * ancestry is walked for the highest checkpoint id of this job already
 * there: a table that has the checkpoint is left alone, so a retried or
 * recovered commit never adds the files twice.
 */
#ifndef FL_STREAM_COMMIT_H
#define FL_STREAM_COMMIT_H

#include <stdint.h>

#include "catalog/catalog.h"
#include "iceberg/ice_manifest.h"
#include "iceberg/ice_table.h"

/* The highest floe.checkpoint-id of job_id in the ancestry of t's main
 * branch head (0: none). */
int64_t st_committed_checkpoint(const ice_table_t *t, const char *job_id);

typedef struct st_commit_table {
  const char *ns, *name;
  const ice_data_file_t *files;
  size_t nfiles;
  /* out: the new snapshot (-1: nothing committed, already there or no files) */
  int64_t snapshot_id;
} st_commit_table_t;

/*
 * Commits checkpoint `checkpoint` of job_id. offsets_json goes into the
 * summaries. Tables without files get no snapshot. A lost race with
 * another writer refreshes and tries again (a few times).
 * fault_mid_commit: the test hook (FLOE_FAULT_POINT=mid-commit) - the
 * process exits after the new metadata files are written and before the
 * catalog swap.
 */
int st_commit_checkpoint(cat_catalog_t *cat, const char *job_id, int64_t checkpoint,
                         const char *offsets_json, st_commit_table_t *tables, uint32_t n,
                         bool fault_mid_commit, fl_err_t *err);

#endif
