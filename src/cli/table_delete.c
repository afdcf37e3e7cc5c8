/*
 * table_delete.c - `floe table delete NAME --filter EXPR` (layer 12, cli).
 *
 * Copy-on-write, as Iceberg's default write.delete.mode: planning with the
 * filter finds the data files that may hold matching rows; a file whose
 * every row matches (by its partition or its column metrics) leaves the
 * table whole; a file with some matching rows is rewritten without them
 * (its other deletes applied) and replaced; a file with none stays. One
 * overwrite commit does it all, validated against concurrent writers with
 * the filter: a data file someone else added meanwhile that may hold
 * matching rows is a conflict.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "cli/args.h"
#include "cli/session.h"
#include "cli/table_cmds.h"
#include "iceberg/ice_commit.h"
#include "iceberg/ice_data_writer.h"
#include "iceberg/ice_scan.h"

/* Whether every row of the task's data file matches (no need to read it). */
static bool whole_file_matches(fl_arena_t *a, const ice_table_t *t, const ice_expr_t *bound,
                               const ice_scan_task_t *task) {
  const ice_data_file_t *f = &task->data->file;
  const ty_schema_t *schema = ice_meta_schema(t->meta);
  if (ice_metrics_must_match(bound, schema, f)) return true;
  const ice_spec_t *spec = ice_meta_spec_by_id(t->meta, f->spec_id);
  if (!spec || spec->nfields == 0) return false;
  const ty_type_t *pt;
  fl_err_t ignored;
  if (ice_spec_partition_type(a, spec, schema, &pt, &ignored)) return false;
  ice_expr_t *strict = ice_expr_project_strict(a, bound, spec, schema, pt);
  return strict && ice_partition_eval(strict, pt, f->partition);
}

/* Counts the task's matching rows; with w set also writes the others. */
static int pass(ice_scan_t *s, uint32_t task, const ice_expr_t *bound, const ty_schema_t *schema,
                ice_dw_t *w, uint64_t *matched, uint64_t *kept, fl_err_t *err) {
  int rc = ice_scan_read_task(s, task, err);
  if (rc) return rc;
  uint32_t *sel = NULL, *keep = NULL;
  uint32_t cap = 0;
  for (;;) {
    ty_batch_t *b;
    rc = ice_scan_next(s, &b, err);
    if (rc || !b) break;
    uint32_t live = ty_batch_live(b);
    if (b->nrows > cap) {
      cap = b->nrows;
      sel = fl_realloc(sel, cap * sizeof *sel);
      keep = fl_realloc(keep, cap * sizeof *keep);
    }
    uint32_t n = 0;
    rc = ice_expr_eval_batch(bound, schema, b, sel, &n, err);
    if (rc) break;
    *matched += n;
    if (!w) continue;
    /* The complement of the matches among the live rows: rows where the
     * filter is false or unknown stay. */
    uint32_t nk = 0, j = 0;
    for (uint32_t k = 0; k < live; k++) {
      uint32_t row = b->sel ? b->sel[k] : k;
      if (j < n && sel[j] == row) {
        j++;
        continue;
      }
      keep[nk++] = row;
    }
    *kept += nk;
    if (nk == 0) continue;
    ty_batch_t view = *b;
    view.sel = keep;
    view.nsel = nk;
    rc = ice_dw_write(w, &view, err);
    if (rc) break;
  }
  fl_free(sel);
  fl_free(keep);
  return rc;
}

int cli_table_delete(cat_catalog_t *c, int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {{"filter", true}, {"branch", true}, {0, false}};
  cli_args_t a;
  if (cli_args_parse("table delete", argc, argv, specs, &a)) return 2;
  if (a.npos != 1) return cli_table_usage("delete", "expected one NAME");
  const char *text = cli_args_get(&a, "filter");
  if (!text) return cli_table_usage("delete", "--filter is required (all rows: --filter true)");
  ice_table_t *t;
  if (cli_session_table("table delete", c, a.pos[0], &t)) return 1;
  fl_arena_t *ar = fl_arena_new(0);
  fl_err_t err;
  fl_err_clear(&err);
  int rc;
  ice_expr_t *unbound, *bound = NULL;
  ice_scan_t *s = NULL;
  ice_dw_t *w = NULL;
  const char *branch = cli_args_get(&a, "branch");
  const ty_schema_t *schema = ice_meta_schema(t->meta);
  uint64_t deleted = 0, kept = 0;
  uint32_t nremove = 0;
  rc = ice_expr_parse(ar, text, &unbound, &err);
  if (rc) fl_err_prefix(&err, "--filter: ");
  if (rc == FL_OK) rc = ice_expr_bind(ar, unbound, schema, true, &bound, &err);
  ice_scan_opts_t so = {.snapshot_id = -1, .as_of_ms = -1, .limit = -1, .case_sensitive = true,
                        .ref = branch, .filter = unbound};
  if (rc == FL_OK) rc = ice_scan_plan(t, &so, &s, &err);
  uint32_t ntasks = 0;
  const ice_scan_task_t *tasks = s ? ice_scan_tasks(s, &ntasks) : NULL;
  const char **remove = fl_arena_alloc(ar, (ntasks + 1) * sizeof *remove);
  const ice_snapshot_t *base = s ? ice_scan_snapshot(s) : NULL;
  if (rc == FL_OK) {
    const ice_sort_order_t *so_ = ice_meta_sort_order(t->meta);
    ice_dw_opts_t o = {.spec = ice_meta_spec(t->meta), .props = t->meta->properties,
                       .nprops = t->meta->nproperties, .sort_order_id = so_ ? so_->order_id : 0};
    rc = ice_dw_open(t->fs, t->meta->location, schema, &o, &w, &err);
  }
  for (uint32_t i = 0; rc == FL_OK && i < ntasks; i++) {
    const ice_scan_task_t *task = &tasks[i];
    if (whole_file_matches(ar, t, bound, task)) {
      /* Rows of it that deletes already removed are not counted again. */
      uint64_t m = 0;
      rc = task->ndeletes ? pass(s, i, bound, schema, NULL, &m, &kept, &err) : FL_OK;
      deleted += task->ndeletes ? m : (uint64_t)task->data->file.record_count;
      remove[nremove++] = task->data->file.path;
      continue;
    }
    uint64_t m = 0;
    rc = pass(s, i, bound, schema, NULL, &m, &kept, &err);
    if (rc || m == 0) continue;
    /* Data files of other specs are rewritten under the current spec. */
    rc = pass(s, i, bound, schema, w, &deleted, &kept, &err);
    remove[nremove++] = task->data->file.path;
  }
  ice_data_file_t *files = NULL;
  size_t nfiles = 0;
  if (rc == FL_OK) rc = ice_dw_close(w, ar, &files, &nfiles, &err);
  ice_commit_result_t res = {0};
  bool committed = false;
  if (rc == FL_OK && nremove > 0) {
    ice_change_t ch = {.kind = ICE_CHANGE_OVERWRITE, .branch = branch, .add = files,
                       .nadd = (uint32_t)nfiles, .remove = remove, .nremove = nremove,
                       .conflict_filter = bound,
                       .base_snapshot_id = base ? base->snapshot_id : -1};
    rc = ice_commit(t, &ch, &res, &err);
    committed = rc == FL_OK;
  }
  int status = 0;
  if (rc) {
    if (w) ice_dw_abort(w);
    status = cli_fail("table delete", "%s", err.msg);
  } else {
    if (w) ice_dw_free(w);
    if (committed)
      printf("deleted %" PRIu64 " rows from %s (%u files replaced or dropped, %zu written): "
             "snapshot %" PRId64 "\n",
             deleted, t->ident, nremove, nfiles, res.snapshot_id);
    else
      printf("no rows of %s match; nothing committed\n", t->ident);
  }
  ice_scan_free(s);
  fl_arena_free(ar);
  ice_table_free(t);
  return status;
}
