/*
 * opt_prune.c - column pruning (layer 7, sql): every scan reads only the
 * table columns the plan above it uses, and every projection, filter,
 * sort, limit and join below the top passes on only the columns used
 * above it.
 *
 * One pass top down, after join planning: each node is told which of its
 * output columns its consumer reads (the root: all), adds the columns it
 * reads itself (a filter's predicate, sort keys, join keys and the
 * residual, grouping keys and aggregate arguments), prunes its inputs to
 * that, renumbers its own column references through the maps its inputs
 * return, drops the unused outputs it can, and returns the map from its
 * old output positions to its new ones for its consumer.
 *
 * Projections drop unused expressions, scans unused columns (a scan that
 * needs none, as under count(*), keeps its first one so that its batches
 * still carry a row count), filters, sorts and limits pass their input's
 * shape on, and a join keeps the used columns of each side (its key
 * columns stay in the inputs, past the output columns). Aggregations,
 * windows, unions and VALUES keep their outputs, but their inputs are
 * still pruned to what they read. So in `SELECT sum(l_quantity) FROM
 * lineitem JOIN orders ON l_orderkey = o_orderkey` the lineitem scan reads
 * two of its sixteen columns and orders one, and the hash join's build
 * side holds one column instead of nine.
 */
#include <string.h>

#include "sql/sql_plan.h"

#define DROPPED UINT32_MAX

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

static bool *all_used(fl_arena_t *a, uint32_t n) {
  bool *u = fl_arena_zalloc(a, (n ? n : 1) * sizeof *u);
  for (uint32_t i = 0; i < n; i++) u[i] = true;
  return u;
}

static uint32_t *identity(fl_arena_t *a, uint32_t n) {
  uint32_t *m = fl_arena_zalloc(a, (n ? n : 1) * sizeof *m);
  for (uint32_t i = 0; i < n; i++) m[i] = i;
  return m;
}

static uint32_t *prune(fl_arena_t *a, sql_plan_t *p, const bool *used);

/* Prunes each input to everything it yields; p's outputs stay. */
static uint32_t *keep_all(fl_arena_t *a, sql_plan_t *p) {
  for (uint32_t i = 0; i < p->ninputs; i++)
    prune(a, p->inputs[i], all_used(a, p->inputs[i]->ncols));
  return identity(a, p->ncols);
}

static uint32_t *prune_scan(fl_arena_t *a, sql_plan_t *p, const bool *used) {
  uint32_t n = p->ncols, k = 0;
  for (uint32_t i = 0; i < n; i++) k += used[i];
  if (k == n) return identity(a, n);
  bool first_only = k == 0;
  if (first_only) k = 1;
  uint32_t *map = fl_arena_zalloc(a, n * sizeof *map);
  sql_col_t *cols = fl_arena_zalloc(a, k * sizeof *cols);
  const char **names = fl_arena_zalloc(a, k * sizeof *names);
  uint32_t j = 0;
  for (uint32_t i = 0; i < n; i++) {
    map[i] = DROPPED;
    if (!(used[i] || (first_only && i == 0))) continue;
    map[i] = j;
    cols[j] = p->cols[i];
    names[j] = p->u.scan.columns[i];
    j++;
  }
  p->cols = cols;
  p->ncols = k;
  p->u.scan.columns = names;
  return map;
}

static uint32_t *prune_project(fl_arena_t *a, sql_plan_t *p, const bool *used) {
  sql_plan_t *in = p->in;
  bool *cu = fl_arena_zalloc(a, (in->ncols ? in->ncols : 1) * sizeof *cu);
  uint32_t k = 0;
  for (uint32_t i = 0; i < p->ncols; i++)
    if (used[i]) {
      mark(p->u.project.exprs[i], cu);
      k++;
    }
  const uint32_t *cmap = prune(a, in, cu);
  uint32_t *map = fl_arena_zalloc(a, (p->ncols ? p->ncols : 1) * sizeof *map);
  sql_col_t *cols = fl_arena_zalloc(a, (k ? k : 1) * sizeof *cols);
  sql_bexpr_t **exprs = fl_arena_zalloc(a, (k ? k : 1) * sizeof *exprs);
  uint32_t j = 0;
  for (uint32_t i = 0; i < p->ncols; i++) {
    map[i] = DROPPED;
    if (!used[i]) continue;
    map[i] = j;
    cols[j] = p->cols[i];
    exprs[j] = remap(a, p->u.project.exprs[i], cmap);
    j++;
  }
  p->cols = cols;
  p->ncols = k;
  p->u.project.exprs = exprs;
  return map;
}

/* Filter, sort and limit: the input's columns, plus what the node reads. */
static uint32_t *prune_pass(fl_arena_t *a, sql_plan_t *p, const bool *used) {
  sql_plan_t *in = p->in;
  bool *cu = fl_arena_zalloc(a, (in->ncols ? in->ncols : 1) * sizeof *cu);
  for (uint32_t i = 0; i < p->ncols; i++) cu[i] = used[i];
  if (p->kind == SQL_P_FILTER) mark(p->u.filter.pred, cu);
  if (p->kind == SQL_P_SORT)
    for (uint32_t i = 0; i < p->u.sort.nkeys; i++) cu[p->u.sort.keys[i].col] = true;
  uint32_t *cmap = prune(a, in, cu);
  if (p->kind == SQL_P_FILTER) p->u.filter.pred = remap(a, p->u.filter.pred, cmap);
  if (p->kind == SQL_P_SORT)
    for (uint32_t i = 0; i < p->u.sort.nkeys; i++)
      p->u.sort.keys[i].col = cmap[p->u.sort.keys[i].col];
  p->cols = in->cols;
  p->ncols = in->ncols;
  return cmap;
}

static uint32_t *prune_join(fl_arena_t *a, sql_plan_t *p, const bool *used) {
  sql_plan_t *L = p->inputs[0], *R = p->inputs[1];
  uint32_t nl = p->u.join.nleft, nr = p->u.join.nright, oln = L->ncols, orn = R->ncols;
  bool *both = fl_arena_zalloc(a, (oln + orn ? oln + orn : 1) * sizeof *both);
  for (uint32_t i = 0; i < nl; i++) both[i] = used[i];
  for (uint32_t j = 0; j < nr; j++) both[oln + j] = used[nl + j];
  for (uint32_t k = 0; k < p->u.join.nkeys; k++) {
    both[p->u.join.lkeys[k]] = true;
    both[oln + p->u.join.rkeys[k]] = true;
  }
  if (p->u.join.residual) mark(p->u.join.residual, both);
  const uint32_t *lmap = prune(a, L, both), *rmap = prune(a, R, both + oln);
  /* The residual reads left columns, then right ones. */
  uint32_t *rm = fl_arena_zalloc(a, (oln + orn ? oln + orn : 1) * sizeof *rm);
  for (uint32_t i = 0; i < oln; i++) rm[i] = lmap[i];
  for (uint32_t j = 0; j < orn; j++)
    rm[oln + j] = rmap[j] == DROPPED ? DROPPED : L->ncols + rmap[j];
  if (p->u.join.residual) p->u.join.residual = remap(a, p->u.join.residual, rm);
  for (uint32_t k = 0; k < p->u.join.nkeys; k++) {
    p->u.join.lkeys[k] = lmap[p->u.join.lkeys[k]];
    p->u.join.rkeys[k] = rmap[p->u.join.rkeys[k]];
  }
  /* Pruning keeps the order of columns, so the kept output columns of
   * each input are still its first ones. */
  uint32_t nl2 = 0, nr2 = 0;
  for (uint32_t i = 0; i < nl; i++) nl2 += lmap[i] != DROPPED;
  for (uint32_t j = 0; j < nr; j++) nr2 += rmap[j] != DROPPED;
  uint32_t *map = fl_arena_zalloc(a, (p->ncols ? p->ncols : 1) * sizeof *map);
  for (uint32_t i = 0; i < nl; i++) map[i] = lmap[i];
  for (uint32_t j = 0; j < nr; j++) map[nl + j] = rmap[j] == DROPPED ? DROPPED : nl2 + rmap[j];
  p->u.join.nleft = nl2;
  p->u.join.nright = nr2;
  p->ncols = nl2 + nr2;
  p->cols = fl_arena_zalloc(a, (p->ncols ? p->ncols : 1) * sizeof *p->cols);
  if (nl2) memcpy(p->cols, L->cols, nl2 * sizeof *p->cols);
  if (nr2) memcpy(p->cols + nl2, R->cols, nr2 * sizeof *p->cols);
  p->in = L;
  return map;
}

static uint32_t *prune_agg(fl_arena_t *a, sql_plan_t *p) {
  sql_plan_t *in = p->in;
  bool *cu = fl_arena_zalloc(a, (in->ncols ? in->ncols : 1) * sizeof *cu);
  for (uint32_t i = 0; i < p->u.agg.nkeys; i++) cu[p->u.agg.keys[i]] = true;
  for (uint32_t i = 0; i < p->u.agg.naggs; i++) {
    const sql_agg_call_t *g = &p->u.agg.aggs[i];
    if (g->arg_col >= 0) cu[g->arg_col] = true;
    if (g->filter_col >= 0) cu[g->filter_col] = true;
  }
  const uint32_t *cmap = prune(a, in, cu);
  for (uint32_t i = 0; i < p->u.agg.nkeys; i++) p->u.agg.keys[i] = cmap[p->u.agg.keys[i]];
  for (uint32_t i = 0; i < p->u.agg.naggs; i++) {
    sql_agg_call_t *g = &p->u.agg.aggs[i];
    if (g->arg_col >= 0) g->arg_col = (int32_t)cmap[g->arg_col];
    if (g->filter_col >= 0) g->filter_col = (int32_t)cmap[g->filter_col];
  }
  return identity(a, p->ncols);
}

/* A window aggregation reads its time column, session partition
 * columns, keys and aggregate arguments. */
static uint32_t *prune_window_agg(fl_arena_t *a, sql_plan_t *p) {
  sql_plan_t *in = p->in;
  bool *cu = fl_arena_zalloc(a, (in->ncols ? in->ncols : 1) * sizeof *cu);
  cu[p->u.wtvf.time_col] = true;
  for (uint32_t i = 0; i < p->u.wtvf.npartition; i++) cu[p->u.wtvf.partition[i]] = true;
  for (uint32_t i = 0; i < p->u.wtvf.nkeys; i++) cu[p->u.wtvf.keys[i]] = true;
  for (uint32_t i = 0; i < p->u.wtvf.naggs; i++) {
    const sql_agg_call_t *g = &p->u.wtvf.aggs[i];
    if (g->arg_col >= 0) cu[g->arg_col] = true;
    if (g->filter_col >= 0) cu[g->filter_col] = true;
  }
  const uint32_t *cmap = prune(a, in, cu);
  p->u.wtvf.time_col = cmap[p->u.wtvf.time_col];
  for (uint32_t i = 0; i < p->u.wtvf.npartition; i++)
    p->u.wtvf.partition[i] = cmap[p->u.wtvf.partition[i]];
  for (uint32_t i = 0; i < p->u.wtvf.nkeys; i++) p->u.wtvf.keys[i] = cmap[p->u.wtvf.keys[i]];
  for (uint32_t i = 0; i < p->u.wtvf.naggs; i++) {
    sql_agg_call_t *g = &p->u.wtvf.aggs[i];
    if (g->arg_col >= 0) g->arg_col = (int32_t)cmap[g->arg_col];
    if (g->filter_col >= 0) g->filter_col = (int32_t)cmap[g->filter_col];
  }
  return identity(a, p->ncols);
}

/* Prunes p to the outputs marked in used; returns the map from p's old
 * output positions to its new ones (DROPPED for dropped columns). */
static uint32_t *prune(fl_arena_t *a, sql_plan_t *p, const bool *used) {
  switch (p->kind) {
    case SQL_P_SCAN: return prune_scan(a, p, used);
    case SQL_P_PROJECT: return prune_project(a, p, used);
    case SQL_P_FILTER:
    case SQL_P_SORT:
    case SQL_P_LIMIT: return prune_pass(a, p, used);
    case SQL_P_JOIN:
      if (!p->u.join.split || p->ninputs != 2) return keep_all(a, p);
      return prune_join(a, p, used);
    case SQL_P_AGGREGATE: return prune_agg(a, p);
    case SQL_P_WINDOW_AGG: return prune_window_agg(a, p);
    default: return keep_all(a, p);
  }
}

int sql_opt_prune(fl_arena_t *a, sql_plan_t *p, fl_err_t *err) {
  (void)err;
  prune(a, p, all_used(a, p->ncols));
  return FL_OK;
}
