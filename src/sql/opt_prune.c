/*
 * opt_prune.c - projection pruning (layer 7, sql): a scan reads only the
 * table columns the plan above it references.
 *
 * The binder always puts a projection over a scan (or over a filter over
 * a scan), so the rule looks for Project -> [Filter ->] Scan, collects the
 * columns the projection's expressions and the filter's predicate read,
 * shrinks the scan's column list to them and renumbers the references.
 * A scan that needs no column at all (count(*)) keeps its first one, so
 * that batches still carry their row count.
 */
#include <string.h>

#include "sql/sql_plan.h"

static void mark(const sql_bexpr_t *e, bool *used) {
  if (e->kind == SQL_BX_COL) used[e->col] = true;
  for (uint32_t i = 0; i < e->nargs; i++) mark(e->args[i], used);
}

/* A copy of e with column references renumbered through map. */
static sql_bexpr_t *remap(fl_arena_t *a, const sql_bexpr_t *e, const uint32_t *map) {
  sql_bexpr_t *c = fl_arena_memdup(a, e, sizeof *e);
  if (e->kind == SQL_BX_COL) c->col = map[e->col];
  if (e->nargs) {
    c->args = fl_arena_alloc(a, e->nargs * sizeof *c->args);
    for (uint32_t i = 0; i < e->nargs; i++) c->args[i] = remap(a, e->args[i], map);
  }
  return c;
}

static void prune_at(fl_arena_t *a, sql_plan_t *proj) {
  sql_plan_t *filter = proj->in->kind == SQL_P_FILTER ? proj->in : NULL;
  sql_plan_t *scan = filter ? filter->in : proj->in;
  uint32_t n = scan->ncols;
  if (n == 0) return;
  bool *used = fl_arena_zalloc(a, n * sizeof *used);
  for (uint32_t i = 0; i < proj->ncols; i++) mark(proj->u.project.exprs[i], used);
  if (filter) mark(filter->u.filter.pred, used);
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) k += used[i];
  if (k == n) return;
  if (k == 0) {
    used[0] = true;
    k = 1;
  }
  uint32_t *map = fl_arena_zalloc(a, n * sizeof *map);
  sql_col_t *cols = fl_arena_zalloc(a, k * sizeof *cols);
  const char **names = fl_arena_zalloc(a, k * sizeof *names);
  uint32_t j = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!used[i]) continue;
    map[i] = j;
    cols[j] = scan->cols[i];
    names[j] = scan->u.scan.columns[i];
    j++;
  }
  scan->cols = cols;
  scan->ncols = k;
  scan->u.scan.columns = names;
  if (filter) {
    filter->u.filter.pred = remap(a, filter->u.filter.pred, map);
    filter->cols = cols;
    filter->ncols = k;
  }
  for (uint32_t i = 0; i < proj->ncols; i++)
    proj->u.project.exprs[i] = remap(a, proj->u.project.exprs[i], map);
}

int sql_opt_prune(fl_arena_t *a, sql_plan_t *p, fl_err_t *err) {
  for (uint32_t i = 0; i < p->ninputs; i++) {
    int rc = sql_opt_prune(a, p->inputs[i], err);
    if (rc) return rc;
  }
  if (p->kind != SQL_P_PROJECT) return FL_OK;
  const sql_plan_t *in = p->in;
  if (in->kind == SQL_P_FILTER) in = in->in;
  if (in->kind == SQL_P_SCAN) prune_at(a, p);
  return FL_OK;
}
