/*
 * ice_commit_validate.c - does a change still apply after losing a race?
 * (layer 5, iceberg).
 *
 * Between the snapshot a change was computed against (its base) and the
 * branch head after a refresh, other writers committed snapshots. Each
 * operation tolerates some of them and not others, following the
 * reference implementation (MergingSnapshotProducer's validations):
 *
 *   append     - anything; appends commute.
 *   overwrite, delete
 *              - every file the change removes must still be live at the
 *                new head (someone else may have deleted or compacted it);
 *                no delete file may have been added for a removed file's
 *                partition (its rows would be resurrected or lost);
 *                with a filter, no data file added since the base may
 *                match it (serializable isolation: those rows were not
 *                seen by the writer).
 *   row delta  - data files referenced by the new position deletes must
 *                still be live; no data or delete file added since the
 *                base may match the conflict filter.
 *   rewrite    - every replaced file must still be live and no delete
 *                file may have been added since the base for a replaced
 *                file's partition (the rewritten copy would not carry it).
 *
 * A failed validation is FL_ECONFLICT and not retriable: the caller must
 * recompute its change. The history between base and head must be linear
 * (base an ancestor of head); a rollback in between is a conflict too.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "iceberg/ice_commit_int.h"

typedef struct since_base {
  const ice_snapshot_t **snaps; /* newest first */
  size_t n, cap;
  int64_t base_id;
  bool reached_base;
  fl_arena_t *a;
} since_base_t;

static bool collect(const ice_snapshot_t *s, void *arg) {
  since_base_t *sb = arg;
  if (s->snapshot_id == sb->base_id) {
    sb->reached_base = true;
    return false;
  }
  if (sb->n == sb->cap) {
    size_t cap = sb->cap ? sb->cap * 2 : 16;
    const ice_snapshot_t **bigger = fl_arena_alloc(sb->a, cap * sizeof *bigger);
    if (sb->n) memcpy(bigger, sb->snaps, sb->n * sizeof *bigger);
    sb->snaps = bigger;
    sb->cap = cap;
  }
  sb->snaps[sb->n++] = s;
  return true;
}

/* The entries a snapshot added (status ADDED in manifests it wrote). */
typedef struct added_files {
  const ice_manifest_entry_t **e;
  size_t n, cap;
} added_files_t;

static void added_push(fl_arena_t *a, added_files_t *af, const ice_manifest_entry_t *e) {
  if (af->n == af->cap) {
    size_t cap = af->cap ? af->cap * 2 : 64;
    const ice_manifest_entry_t **bigger = fl_arena_alloc(a, cap * sizeof *bigger);
    if (af->n) memcpy(bigger, af->e, af->n * sizeof *bigger);
    af->e = bigger;
    af->cap = cap;
  }
  af->e[af->n++] = e;
}

static int added_since_base(ice_commit_state_t *st, const since_base_t *sb, added_files_t *out,
                            fl_err_t *err) {
  for (size_t i = 0; i < sb->n; i++) {
    const ice_snapshot_t *s = sb->snaps[i];
    ice_manifest_file_t *mfs;
    size_t nmfs;
    int rc = ice_snapshot_manifests(st->t, st->a, s, &mfs, &nmfs, err);
    if (rc) return rc;
    for (size_t m = 0; m < nmfs; m++) {
      /* Only manifests written by s can hold entries s added; v1 lists
       * without the field (-1) are read to be safe. */
      if (mfs[m].added_snapshot_id >= 0 && mfs[m].added_snapshot_id != s->snapshot_id) continue;
      if (mfs[m].added_snapshot_id >= 0 && mfs[m].added_files == 0 && mfs[m].existing_files >= 0 &&
          mfs[m].deleted_files >= 0)
        continue;
      ice_manifest_entry_t *es;
      size_t ne;
      rc = ice__read_manifest(st->t, st->a, &mfs[m], &es, &ne, err);
      if (rc) return rc;
      for (size_t k = 0; k < ne; k++)
        if (es[k].status == ICE_STATUS_ADDED && es[k].snapshot_id == s->snapshot_id)
          added_push(st->a, out, &es[k]);
    }
  }
  return FL_OK;
}

static int conflict(ice_commit_state_t *st, fl_err_t *err, const char *fmt, const char *path,
                    int64_t snapshot_id) {
  fl_err_set(err, FL_ECONFLICT,
             "%s: concurrent commit %" PRId64 " conflicts with this change: ", st->t->ident,
             snapshot_id);
  char msg[1024];
  snprintf(msg, sizeof msg, fmt, path);
  size_t have = strlen(err->msg);
  snprintf(err->msg + have, sizeof err->msg - have, "%s", msg);
  err->retriable = false;
  return FL_ECONFLICT;
}

/* Whether a file may hold rows matching filter (partition projection and
 * column metrics, like scan planning). */
static bool file_might_match(ice_commit_state_t *st, const ice_expr_t *filter,
                             const ice_data_file_t *f) {
  const ice_meta_t *m = st->t->meta;
  const ty_schema_t *schema = ice_meta_schema(m);
  const ice_spec_t *spec = ice_meta_spec_by_id(m, f->spec_id);
  if (spec && f->npartition) {
    const ty_type_t *pt = NULL;
    fl_err_t ignored;
    if (ice_spec_partition_type(st->a, spec, schema, &pt, &ignored) == FL_OK) {
      ice_expr_t *incl = ice_expr_project_inclusive(st->a, filter, spec, schema, pt);
      if (incl && !ice_partition_eval(incl, pt, f->partition)) return false;
    }
  }
  if (f->content != ICE_CONTENT_DATA) return true; /* delete metrics say little about rows */
  return ice_metrics_might_match(filter, schema, f);
}

/* A partition key "spec/path" for matching delete files to data files. */
static const char *partition_key(ice_commit_state_t *st, const ice_data_file_t *f) {
  fl_buf_t key;
  fl_buf_init(&key);
  fl_buf_printf(&key, "%d/", f->spec_id);
  const ice_spec_t *spec = ice_meta_spec_by_id(st->t->meta, f->spec_id);
  const ty_type_t *pt = NULL;
  fl_err_t ignored;
  if (spec && f->npartition &&
      ice_spec_partition_type(st->a, spec, ice_meta_schema(st->t->meta), &pt, &ignored) == FL_OK)
    ice_spec_partition_path(spec, pt, f->partition, &key);
  const char *out = fl_arena_strndup(st->a, key.data ? (const char *)key.data : "", key.len);
  fl_buf_free(&key);
  return out;
}

static bool spec_unpartitioned(ice_commit_state_t *st, int32_t spec_id) {
  const ice_spec_t *spec = ice_meta_spec_by_id(st->t->meta, spec_id);
  return !spec || spec->nfields == 0;
}

/* Checks that every path in need is a live file at the new head; the live
 * data files' partition keys go to live_parts when given. */
static int check_live(ice_commit_state_t *st, const char *const *need, size_t nneed,
                      const char *what, fl_strset_t *parts_of_needed, fl_err_t *err) {
  if (nneed == 0) return FL_OK;
  const ice_snapshot_t *head = st->head;
  fl_strset_t live;
  fl_strset_init(&live);
  if (head) {
    ice_manifest_entry_t *es;
    size_t ne;
    int rc = ice_snapshot_entries(st->t, st->a, head, &es, &ne, err);
    if (rc) {
      fl_strset_free(&live);
      return rc;
    }
    fl_strset_t want;
    fl_strset_init(&want);
    for (size_t i = 0; i < nneed; i++) fl_strset_add_str(&want, need[i]);
    for (size_t i = 0; i < ne; i++) {
      fl_strset_add_str(&live, es[i].file.path);
      if (parts_of_needed && fl_strset_has_str(&want, es[i].file.path))
        fl_strset_add_str(parts_of_needed, partition_key(st, &es[i].file));
    }
    fl_strset_free(&want);
  }
  int rc = FL_OK;
  for (size_t i = 0; i < nneed && rc == FL_OK; i++)
    if (!fl_strset_has_str(&live, need[i]))
      rc = conflict(st, err, what, need[i], head ? head->snapshot_id : -1);
  fl_strset_free(&live);
  return rc;
}

int ice__commit_validate(ice_commit_state_t *st, fl_err_t *err) {
  const ice_change_t *c = st->c;
  if (c->kind == ICE_CHANGE_APPEND) return FL_OK;
  const ice_meta_t *m = st->t->meta;
  const char *branch = c->branch ? c->branch : "main";
  const ice_ref_t *ref = ice_meta_ref(m, branch);
  st->head = ref ? ice_meta_snapshot(m, ref->snapshot_id)
                 : (strcmp(branch, "main") == 0 ? ice_meta_current_snapshot(m) : NULL);

  since_base_t sb = {.base_id = st->base_snapshot_id, .a = st->a};
  if (st->head) ice_table_ancestors(m, st->head->snapshot_id, collect, &sb);
  if (st->base_snapshot_id >= 0 && !sb.reached_base)
    return conflict(st, err,
                    "the branch no longer descends from the snapshot the change was based on%s", "",
                    st->head ? st->head->snapshot_id : -1);
  if (sb.n == 0) return FL_OK; /* nothing new: the swap lost to a metadata-only change */

  added_files_t added = {0};
  int rc = added_since_base(st, &sb, &added, err);
  if (rc) return rc;

  /* Files that must still be live. */
  const char **need = fl_arena_alloc(st->a, (c->nremove + c->nadd + 1) * sizeof *need);
  size_t nneed = 0;
  for (uint32_t i = 0; i < c->nremove; i++) need[nneed++] = c->remove[i];
  size_t nremoved_paths = nneed;
  if (c->kind == ICE_CHANGE_ROW_DELTA)
    for (uint32_t i = 0; i < c->nadd; i++)
      if (c->add[i].content == ICE_CONTENT_POSITION_DELETES && c->add[i].referenced_data_file)
        need[nneed++] = c->add[i].referenced_data_file;

  fl_strset_t parts;
  fl_strset_init(&parts);
  rc = check_live(st, need, nneed, "file %s is no longer live (deleted or rewritten)", &parts, err);

  /* New delete files against files the change removes or rewrites. */
  if (rc == FL_OK && nremoved_paths &&
      (c->kind == ICE_CHANGE_OVERWRITE || c->kind == ICE_CHANGE_DELETE ||
       c->kind == ICE_CHANGE_REWRITE)) {
    fl_strset_t removed;
    fl_strset_init(&removed);
    for (size_t i = 0; i < nremoved_paths; i++) fl_strset_add_str(&removed, need[i]);
    for (size_t i = 0; i < added.n && rc == FL_OK; i++) {
      const ice_data_file_t *f = &added.e[i]->file;
      if (f->content == ICE_CONTENT_DATA) continue;
      bool applies;
      if (f->referenced_data_file)
        applies = fl_strset_has_str(&removed, f->referenced_data_file);
      else
        applies =
            spec_unpartitioned(st, f->spec_id) || fl_strset_has_str(&parts, partition_key(st, f));
      if (applies)
        rc = conflict(st, err, "it added delete file %s for rows of a file this change replaces",
                      f->path, added.e[i]->snapshot_id);
    }
    fl_strset_free(&removed);
  }
  fl_strset_free(&parts);

  /* Rows the writer did not see. */
  const ice_expr_t *filter = NULL;
  bool check_deletes_too = false;
  if (c->kind == ICE_CHANGE_OVERWRITE || c->kind == ICE_CHANGE_DELETE)
    filter = c->filter ? c->filter : c->conflict_filter;
  if (c->kind == ICE_CHANGE_ROW_DELTA) {
    filter = c->conflict_filter;
    check_deletes_too = true;
  }
  for (size_t i = 0; rc == FL_OK && filter && i < added.n; i++) {
    const ice_data_file_t *f = &added.e[i]->file;
    if (f->content != ICE_CONTENT_DATA && !check_deletes_too) continue;
    if (file_might_match(st, filter, f))
      rc = conflict(st, err,
                    f->content == ICE_CONTENT_DATA
                        ? "it added data file %s that may hold rows matching this change's filter"
                        : "it added delete file %s that may delete rows matching this change's "
                          "filter",
                    f->path, added.e[i]->snapshot_id);
  }
  return rc;
}
