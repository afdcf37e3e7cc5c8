/*
 * ice_compact.c - bin-pack compaction of data files (layer 5, iceberg).
 *
 * What Trino's ALTER TABLE EXECUTE optimize and Java's RewriteDataFiles
 * (bin-pack strategy) do, as one rewrite:
 *
 *  1. Plan the branch's files with no filter, so every data file is paired
 *     with all delete files that apply to it.
 *  2. Choose the candidates: data files smaller than the threshold, and
 *     files that have deletes (their deleted rows go away). With a filter,
 *     only files of partitions the filter selects whole (its strict
 *     projection on the file's spec, or the file's metrics) take part;
 *     a file the filter may select only in part is an error, as Trino
 *     accepts only partition predicates.
 *  3. Group the candidates by spec and partition; a group of one file
 *     without deletes gains nothing and stays.
 *  4. Read each remaining candidate with its deletes applied and write its
 *     rows through one data writer under the table's current spec, which
 *     packs the rows of a partition into files up to
 *     write.target-file-size-bytes.
 *  5. A delete file every one of whose data files was rewritten is fully
 *     applied and goes too.
 *  6. Commit a rewrite (operation "replace") from the planned snapshot:
 *     ice_commit validates that every replaced file is still live and no
 *     delete file was added for them since, retrying on a lost race, and
 *     writes the summary counters as Java's SnapshotSummary does. On any
 *     failure the written files are deleted.
 */
#include <string.h>

#include "base/alloc.h"
#include "base/strset.h"
#include "iceberg/ice_commit.h"
#include "iceberg/ice_data_writer.h"
#include "iceberg/ice_maint.h"
#include "iceberg/ice_scan.h"
#include "iceberg/ice_spec.h"

/* Where a planned file stands with respect to the filter. */
typedef enum { SEL_ALL, SEL_NONE, SEL_PART } selection_t;

static selection_t select_file(fl_arena_t *a, const ice_table_t *t, const ice_expr_t *bound,
                               const ice_data_file_t *f) {
  if (!bound) return SEL_ALL;
  const ty_schema_t *schema = ice_meta_schema(t->meta);
  if (ice_metrics_must_match(bound, schema, f)) return SEL_ALL;
  if (!ice_metrics_might_match(bound, schema, f)) return SEL_NONE;
  const ice_spec_t *spec = ice_meta_spec_by_id(t->meta, f->spec_id);
  if (!spec || spec->nfields == 0) return SEL_PART;
  const ty_type_t *pt;
  fl_err_t ignored;
  if (ice_spec_partition_type(a, spec, schema, &pt, &ignored)) return SEL_PART;
  ice_expr_t *strict = ice_expr_project_strict(a, bound, spec, schema, pt);
  if (strict && ice_partition_eval(strict, pt, f->partition)) return SEL_ALL;
  ice_expr_t *incl = ice_expr_project_inclusive(a, bound, spec, schema, pt);
  if (incl && !ice_partition_eval(incl, pt, f->partition)) return SEL_NONE;
  return SEL_PART;
}

/* "spec/partition path" of a file, the key of its group. */
static const char *group_key(fl_arena_t *a, const ice_table_t *t, const ice_data_file_t *f) {
  const ice_spec_t *spec = ice_meta_spec_by_id(t->meta, f->spec_id);
  fl_buf_t b;
  fl_buf_init(&b);
  fl_buf_printf(&b, "%d/", f->spec_id);
  const ty_type_t *pt;
  fl_err_t ignored;
  if (spec && spec->nfields &&
      ice_spec_partition_type(a, spec, ice_meta_schema(t->meta), &pt, &ignored) == FL_OK)
    ice_spec_partition_path(spec, pt, f->partition, &b);
  fl_buf_append_u8(&b, 0);
  const char *k = fl_arena_strdup(a, (const char *)b.data);
  fl_buf_free(&b);
  return k;
}

int ice_compact(ice_table_t *t, const ice_compact_opts_t *o, ice_compact_result_t *res,
                fl_err_t *err) {
  memset(res, 0, sizeof *res);
  res->snapshot_id = -1;
  fl_arena_t *a = fl_arena_new(0);
  ice_scan_t *s = NULL;
  ice_dw_t *w = NULL;
  fl_strset_t groups_seen, groups_many;
  fl_strset_init(&groups_seen);
  fl_strset_init(&groups_many);
  const ty_schema_t *schema = ice_meta_schema(t->meta);
  ice_expr_t *bound = NULL;
  int rc = FL_OK;
  if (o->filter && (rc = ice_expr_bind(a, o->filter, schema, false, &bound, err))) goto out;
  ice_scan_opts_t so = {.snapshot_id = -1, .as_of_ms = -1, .limit = -1, .ref = o->branch};
  if ((rc = ice_scan_plan(t, &so, &s, err))) goto out;
  uint32_t ntasks = 0;
  const ice_scan_task_t *tasks = ice_scan_tasks(s, &ntasks);
  const ice_snapshot_t *base = ice_scan_snapshot(s);
  if (!base || ntasks == 0) goto out;

  /* Candidates, and how many each group has. */
  bool *cand = fl_arena_zalloc(a, ntasks * sizeof *cand);
  const char **key = fl_arena_zalloc(a, ntasks * sizeof *key);
  for (uint32_t i = 0; i < ntasks; i++) {
    const ice_data_file_t *f = &tasks[i].data->file;
    selection_t sel = select_file(a, t, bound, f);
    if (sel == SEL_PART) {
      rc = fl_err_set(err, FL_EINVALID,
                      "%s: the WHERE clause of optimize must select whole partitions (a "
                      "predicate on partition columns); it selects part of %s",
                      t->ident, f->path);
      goto out;
    }
    if (sel == SEL_NONE) continue;
    if (f->file_size >= o->file_size_threshold && tasks[i].ndeletes == 0) continue;
    cand[i] = true;
    key[i] = group_key(a, t, f);
    if (tasks[i].ndeletes || fl_strset_has_str(&groups_seen, key[i]))
      fl_strset_add_str(&groups_many, key[i]);
    fl_strset_add_str(&groups_seen, key[i]);
  }
  for (uint32_t i = 0; i < ntasks; i++)
    if (cand[i] && !fl_strset_has_str(&groups_many, key[i])) cand[i] = false;

  /* Rewrite the candidates. */
  const ice_sort_order_t *sort = ice_meta_sort_order(t->meta);
  ice_dw_opts_t dwo = {.content = ICE_CONTENT_DATA,
                       .spec = ice_meta_spec(t->meta),
                       .props = t->meta->properties,
                       .nprops = t->meta->nproperties,
                       .sort_order_id = sort ? sort->order_id : 0};
  const char **remove = fl_arena_zalloc(a, (ntasks + 1) * sizeof *remove);
  uint32_t nremove = 0;
  for (uint32_t i = 0; i < ntasks; i++) {
    if (!cand[i]) continue;
    if (!w && (rc = ice_dw_open(t->fs, t->meta->location, schema, &dwo, &w, err))) goto out;
    if ((rc = ice_scan_read_task(s, i, err))) goto out;
    for (;;) {
      ty_batch_t *b;
      if ((rc = ice_scan_next(s, &b, err))) goto out;
      if (!b) break;
      if (ty_batch_live(b) == 0) continue;
      if ((rc = ice_dw_write(w, b, err))) goto out;
    }
    remove[nremove++] = tasks[i].data->file.path;
    res->rewritten_data_files++;
    res->rewritten_bytes += (uint64_t)tasks[i].data->file.file_size;
  }
  if (nremove == 0) goto out;

  /* Delete files whose every data file was rewritten. */
  fl_strset_t kept_refs, all_refs;
  fl_strset_init(&kept_refs);
  fl_strset_init(&all_refs);
  for (uint32_t i = 0; i < ntasks; i++)
    for (uint32_t d = 0; d < tasks[i].ndeletes; d++) {
      const char *p = tasks[i].deletes[d]->file.path;
      fl_strset_add_str(&all_refs, p);
      if (!cand[i]) fl_strset_add_str(&kept_refs, p);
    }
  const char **dremove = fl_arena_zalloc(a, (all_refs.n + 1) * sizeof *dremove);
  uint32_t ndremove = 0;
  fl_strset_t listed;
  fl_strset_init(&listed);
  for (uint32_t i = 0; i < ntasks; i++)
    for (uint32_t d = 0; cand[i] && d < tasks[i].ndeletes; d++) {
      const char *p = tasks[i].deletes[d]->file.path;
      if (fl_strset_has_str(&kept_refs, p) || fl_strset_has_str(&listed, p)) continue;
      fl_strset_add_str(&listed, p);
      dremove[ndremove++] = p;
    }
  fl_strset_free(&listed);
  fl_strset_free(&kept_refs);
  fl_strset_free(&all_refs);
  const char **all = fl_arena_zalloc(a, (nremove + ndremove + 1) * sizeof *all);
  memcpy(all, remove, nremove * sizeof *all);
  if (ndremove) memcpy(all + nremove, dremove, ndremove * sizeof *all);
  res->removed_delete_files = ndremove;

  ice_data_file_t *files = NULL;
  size_t nfiles = 0;
  rc = ice_dw_close(w, a, &files, &nfiles, err);
  if (rc) goto out;
  res->added_data_files = nfiles;
  for (size_t i = 0; i < nfiles; i++) res->added_bytes += (uint64_t)files[i].file_size;
  ice_change_t ch = {.kind = ICE_CHANGE_REWRITE,
                     .branch = o->branch,
                     .add = files,
                     .nadd = (uint32_t)nfiles,
                     .remove = all,
                     .nremove = nremove + ndremove,
                     .base_snapshot_id = base->snapshot_id};
  ice_commit_result_t cr = {0};
  rc = ice_commit(t, &ch, &cr, err);
  if (!rc) res->snapshot_id = cr.snapshot_id;

out:
  if (w) {
    /* abort deletes what was written; after a commit only the writer goes. */
    if (rc)
      ice_dw_abort(w);
    else
      ice_dw_free(w);
  }
  if (rc) {
    memset(res, 0, sizeof *res);
    res->snapshot_id = -1;
  }
  fl_strset_free(&groups_seen);
  fl_strset_free(&groups_many);
  ice_scan_free(s);
  fl_arena_free(a);
  return rc;
}
