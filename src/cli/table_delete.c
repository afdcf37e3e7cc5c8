/*
 * table_delete.c - `floe table delete NAME --filter EXPR` (layer 12, cli).
 *
 * Planning with the filter finds the data files that may hold matching
 * rows; a file whose every row matches (by its partition or its column
 * metrics) leaves the table whole; in the others the filter picks the
 * matching rows by position. The change goes through row_change.h in the
 * table's write.delete.mode (copy-on-write, Iceberg's default, rewrites
 * the files that lose some rows; merge-on-read writes position deletes
 * or deletion vectors), in one commit validated against concurrent
 * writers with the filter: a data file someone else added meanwhile that
 * may hold matching rows is a conflict.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "cli/args.h"
#include "cli/row_change.h"
#include "cli/session.h"
#include "cli/table_cmds.h"
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

/* Counts the task's live matching rows; with rc set also deletes them. */
static int pass(ice_scan_t *s, uint32_t task, const ice_expr_t *bound, const ty_schema_t *schema,
                cli_rc_t *rc, uint64_t *matched, fl_err_t *err) {
  int r = ice_scan_read_task(s, task, err);
  if (r) return r;
  const char *path = ice_scan_tasks(s, &(uint32_t){0})[task].data->file.path;
  size_t plen = strlen(path);
  uint32_t npos = schema->root.nfields; /* "$pos" follows the table's columns */
  uint32_t *sel = NULL;
  uint32_t cap = 0;
  for (;;) {
    ty_batch_t *b;
    r = ice_scan_next(s, &b, err);
    if (r || !b) break;
    if (b->nrows > cap) {
      cap = b->nrows;
      sel = fl_realloc(sel, cap * sizeof *sel);
    }
    uint32_t n = 0;
    r = ice_expr_eval_batch(bound, schema, b, sel, &n, err);
    if (r) break;
    *matched += n;
    const int64_t *pos = TY_VEC_DATA(b->cols[npos], int64_t);
    for (uint32_t k = 0; rc && k < n && !r; k++)
      r = cli_rc_delete(rc, path, plen, pos[sel[k]], err);
    if (r) break;
  }
  fl_free(sel);
  return r;
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
  cli_rc_t *ch = NULL;
  const char *branch = cli_args_get(&a, "branch");
  const ty_schema_t *schema = ice_meta_schema(t->meta);
  uint64_t deleted = 0;
  cli_rc_mode_t mode = CLI_RC_COPY_ON_WRITE;
  rc = ice_expr_parse(ar, text, &unbound, &err);
  if (rc) fl_err_prefix(&err, "--filter: ");
  if (rc == FL_OK) rc = ice_expr_bind(ar, unbound, schema, true, &bound, &err);
  if (rc == FL_OK) rc = cli_rc_mode(t, "write.delete.mode", &mode, &err);
  if (rc == FL_OK) rc = cli_rc_open(t, branch, -1, unbound, mode, &ch, &err);
  ice_scan_t *s = ch ? cli_rc_scan(ch) : NULL;
  uint32_t ntasks = 0;
  const ice_scan_task_t *tasks = s ? ice_scan_tasks(s, &ntasks) : NULL;
  for (uint32_t i = 0; rc == FL_OK && i < ntasks; i++) {
    const ice_scan_task_t *task = &tasks[i];
    if (whole_file_matches(ar, t, bound, task)) {
      /* Rows of it that deletes already removed are not counted again. */
      uint64_t m = 0;
      rc = task->ndeletes ? pass(s, i, bound, schema, NULL, &m, &err) : FL_OK;
      deleted += task->ndeletes ? m : (uint64_t)task->data->file.record_count;
      if (rc == FL_OK) rc = cli_rc_delete_file(ch, i, false, &err);
      continue;
    }
    rc = pass(s, i, bound, schema, ch, &deleted, &err);
  }
  cli_rc_stats_t st = {0};
  if (rc == FL_OK) rc = cli_rc_commit(ch, bound, NULL, &st, &err);
  int status = 0;
  if (rc) {
    status = cli_fail("table delete", "%s", err.msg);
  } else if (st.committed) {
    printf("deleted %" PRIu64
           " rows from %s (%u files replaced or dropped, %u written): "
           "snapshot %" PRId64 "\n",
           deleted, t->ident, st.data_files_removed, st.data_files_added + st.delete_files_added,
           st.snapshot_id);
  } else {
    printf("no rows of %s match; nothing committed\n", t->ident);
  }
  cli_rc_free(ch);
  fl_arena_free(ar);
  ice_table_free(t);
  return status;
}
