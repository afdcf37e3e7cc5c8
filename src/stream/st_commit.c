/*
 * st_commit.c - the multi-table, exactly-once commit of a checkpoint
 * (layer 10, stream). See st_commit.h.
 *
 * States of one attempt: tables opened fresh from the catalog -> those
 * already holding the checkpoint dropped -> each remaining table's
 * snapshot staged (manifests, list, metadata file written; the swap only
 * recorded) -> all swaps in one transaction -> done; or, when another
 * writer moved a table meanwhile (FL_ECONFLICT), the staged metadata
 * files are deleted and the attempt starts over.
 */
#include "stream/st_commit.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "catalog/cat_tables.h"
#include "iceberg/ice_commit.h"

typedef struct find_arg {
  const char *job_id;
  int64_t found;
} find_arg_t;

static const char *summary_get(const ice_snapshot_t *s, const char *key) {
  for (uint32_t i = 0; i < s->nsummary; i++)
    if (strcmp(s->summary[i].key, key) == 0) return s->summary[i].value;
  return NULL;
}

static bool find_fn(const ice_snapshot_t *s, void *arg) {
  find_arg_t *f = arg;
  const char *job = summary_get(s, "floe.job-id");
  const char *chk = summary_get(s, "floe.checkpoint-id");
  if (!job || !chk || strcmp(job, f->job_id) != 0) return true;
  /* Checkpoint ids only grow along the ancestry: the newest one is it. */
  f->found = strtoll(chk, NULL, 10);
  return false;
}

int64_t st_committed_checkpoint(const ice_table_t *t, const char *job_id) {
  const ice_ref_t *main = ice_meta_ref(t->meta, "main");
  if (!main) return 0;
  find_arg_t f = {.job_id = job_id, .found = 0};
  ice_table_ancestors(t->meta, main->snapshot_id, find_fn, &f);
  return f.found;
}

/* ---- the staging committer: records the swap instead of doing it ---- */

typedef struct staged {
  ice_committer_t real;
  char *old_location, *new_location;
} staged_t;

static int staged_current(void *ctx, char **out, fl_err_t *err) {
  staged_t *s = ctx;
  return s->real.current(s->real.ctx, out, err);
}

static int staged_swap(void *ctx, const char *old_location, const char *new_location,
                       fl_err_t *err) {
  (void)err;
  staged_t *s = ctx;
  fl_free(s->old_location);
  fl_free(s->new_location);
  s->old_location = old_location ? fl_strdup(old_location) : NULL;
  s->new_location = fl_strdup(new_location);
  return FL_OK;
}

static void staged_release(void *ctx) {
  staged_t *s = ctx;
  if (s->real.release) s->real.release(s->real.ctx);
  fl_free(s->old_location);
  fl_free(s->new_location);
  fl_free(s);
}

static staged_t *stage(ice_table_t *t) {
  staged_t *s = fl_calloc(1, sizeof *s);
  s->real = t->committer;
  t->committer = (ice_committer_t){s, staged_current, staged_swap, staged_release};
  return s;
}

static int attempt(cat_catalog_t *cat, const char *job_id, int64_t checkpoint,
                   const ice_kv_t *summary, st_commit_table_t *tables, uint32_t n, bool fault,
                   fl_err_t *err) {
  ice_table_t **open = fl_calloc(n ? n : 1, sizeof *open);
  staged_t **st = fl_calloc(n ? n : 1, sizeof *st);
  cat_swap_t *swaps = fl_calloc(n ? n : 1, sizeof *swaps);
  size_t nswaps = 0;
  int rc = FL_OK;
  for (uint32_t i = 0; i < n && !rc; i++) {
    st_commit_table_t *c = &tables[i];
    c->snapshot_id = -1;
    if (!c->nfiles) continue;
    if ((rc = cat_open_table(cat, io_local_fs(), c->ns, c->name, &open[i], err))) {
      fl_err_prefix(err, "%s.%s: ", c->ns, c->name);
      break;
    }
    if (st_committed_checkpoint(open[i], job_id) >= checkpoint) continue;
    st[i] = stage(open[i]);
    ice_change_t ch = {.kind = ICE_CHANGE_APPEND,
                       .add = c->files,
                       .nadd = (uint32_t)c->nfiles,
                       .base_snapshot_id = -1,
                       .summary = summary,
                       .nsummary = 3};
    ice_commit_result_t res = {0};
    if ((rc = ice_commit(open[i], &ch, &res, err))) break;
    c->snapshot_id = res.snapshot_id;
    swaps[nswaps++] = (cat_swap_t){c->ns, c->name, st[i]->old_location, st[i]->new_location};
  }
  if (!rc && fault) {
    fprintf(stderr, "floe run: FLOE_FAULT_POINT=mid-commit: exiting before the catalog swap\n");
    _exit(86);
  }
  if (!rc && nswaps) rc = cat_table_swap_many(cat, swaps, nswaps, err);
  if (rc) {
    /* The staged metadata files were never swapped in: nobody reads them. */
    for (uint32_t i = 0; i < n; i++) {
      tables[i].snapshot_id = -1;
      if (!st[i] || !st[i]->new_location) continue;
      fl_err_t ignored;
      fl_arena_t *a = fl_arena_new(0);
      open[i]->fs->remove(open[i]->fs, ice_table_path(open[i], a, st[i]->new_location), &ignored);
      fl_arena_free(a);
    }
  }
  for (uint32_t i = 0; i < n; i++) ice_table_free(open[i]);
  fl_free(open);
  fl_free(st);
  fl_free(swaps);
  return rc;
}

int st_commit_checkpoint(cat_catalog_t *cat, const char *job_id, int64_t checkpoint,
                         const char *offsets_json, st_commit_table_t *tables, uint32_t n,
                         bool fault_mid_commit, fl_err_t *err) {
  char chk[32];
  snprintf(chk, sizeof chk, "%" PRId64, checkpoint);
  ice_kv_t summary[3] = {
      {"floe.job-id", job_id}, {"floe.checkpoint-id", chk}, {"floe.offsets", offsets_json}};
  int rc = FL_OK;
  for (int tries = 0; tries < 8; tries++) {
    rc = attempt(cat, job_id, checkpoint, summary, tables, n, fault_mid_commit, err);
    if (rc != FL_ECONFLICT) break;
    usleep(50000u << (tries < 5 ? tries : 5));
    fl_err_clear(err);
  }
  if (rc) fl_err_prefix(err, "committing checkpoint %" PRId64 ": ", checkpoint);
  return rc;
}
