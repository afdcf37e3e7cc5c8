/*
 * opt_window_agg.c - window aggregation (layer 7, sql): an aggregation
 * whose GROUP BY holds window_start and window_end of a window table
 * function below it (through projections and filters) becomes one
 * WINDOW_AGG node over the function's input, as Flink plans a window
 * aggregate: the aggregation assigns the windows itself from the time
 * column, so streaming input fires windows by watermark and SESSION
 * windows can merge.
 *
 *   AGGREGATE keys=[ws, we, k]           PROJECT [ws, we, k, aggs]
 *     PROJECT [ws, we, k, args]    =>      WINDOW_AGG keys=[k] time=$t
 *       FILTER pred                          PROJECT [.., k, args, $t]
 *         WINDOW_TVF time=$t                   FILTER pred
 *           input                                input
 *
 * Conditions: the nodes between are projections and filters that use the
 * window columns only by passing them on unchanged, the aggregates'
 * arguments are not window columns, window_start and window_end (and
 * window_time when grouped on) are in every grouping set. Otherwise the
 * aggregation stays a hash aggregation over the function's rows, which
 * gives the same result over a bounded input; a SESSION function (whose
 * windows need the aggregation) is then an error, as is a HOP whose size
 * is not a multiple of its slide (Flink's rule for window aggregation).
 */
#include <stdio.h>
#include <string.h>

#include "sql/sql_plan.h"

#define MAX_CHAIN 64

static sql_bexpr_t *col_ref(fl_arena_t *a, uint32_t col, const sql_dtype_t *t) {
  sql_bexpr_t *e = fl_arena_zalloc(a, sizeof *e);
  e->kind = SQL_BX_COL;
  e->col = col;
  e->type = *t;
  return e;
}

/* Whether e reads a column whose class (cls) is a window column. */
static bool reads_window(const sql_bexpr_t *e, const int *cls) {
  if (!e) return false;
  if (e->kind == SQL_BX_COL && cls[e->col] >= 0) return true;
  for (uint32_t i = 0; i < e->nargs; i++)
    if (reads_window(e->args[i], cls)) return true;
  return false;
}

static int errpos(fl_err_t *err, sql_pos_t pos, const char *msg) {
  return fl_err_set(err, FL_EINVALID, "line %u, column %u: %s", pos.line, pos.col, msg);
}

/* Tries to turn aggregation *pp into a window aggregation. */
static int fuse(fl_arena_t *a, sql_plan_t **pp, fl_err_t *err) {
  sql_plan_t *A = *pp;
  sql_plan_t *chain[MAX_CHAIN];
  uint32_t n = 0;
  sql_plan_t *x = A->in;
  while ((x->kind == SQL_P_PROJECT || x->kind == SQL_P_FILTER) && n < MAX_CHAIN) {
    chain[n++] = x;
    x = x->in;
  }
  if (x->kind != SQL_P_WINDOW_TVF) return FL_OK;
  sql_plan_t *T = x;
  bool session = T->u.wtvf.kind == SQL_WT_SESSION;
  const char *why = NULL;
  if (!n || chain[0]->kind != SQL_P_PROJECT) why = "no projection";
  /* Classes of each node's output columns: -1 an ordinary column, 0..2
   * window_start, window_end, window_time passed on. */
  uint32_t m = T->in->ncols;
  int *cls = fl_arena_zalloc(a, (T->ncols ? T->ncols : 1) * sizeof *cls);
  for (uint32_t i = 0; i < T->ncols; i++) cls[i] = i < m ? -1 : (int)(i - m);
  for (uint32_t k = n; k-- > 0 && !why;) {
    sql_plan_t *c = chain[k];
    if (c->kind == SQL_P_FILTER) {
      if (reads_window(c->u.filter.pred, cls)) why = "a filter on a window column";
      continue;
    }
    int *oc = fl_arena_zalloc(a, (c->ncols ? c->ncols : 1) * sizeof *oc);
    for (uint32_t i = 0; i < c->ncols && !why; i++) {
      const sql_bexpr_t *e = c->u.project.exprs[i];
      oc[i] = -1;
      if (e->kind == SQL_BX_COL && cls[e->col] >= 0)
        oc[i] = cls[e->col];
      else if (reads_window(e, cls))
        why = "an expression over a window column";
    }
    cls = oc;
  }
  /* The aggregation's keys: the window columns and the others. */
  int wkey[3] = {-1, -1, -1};
  uint32_t nreg = 0;
  uint32_t *reg = fl_arena_zalloc(a, (A->u.agg.nkeys ? A->u.agg.nkeys : 1) * sizeof *reg);
  int *regpos = fl_arena_zalloc(a, (A->u.agg.nkeys ? A->u.agg.nkeys : 1) * sizeof *regpos);
  for (uint32_t i = 0; i < A->u.agg.nkeys && !why; i++) {
    int c = cls[A->u.agg.keys[i]];
    regpos[i] = -1;
    if (c >= 0) {
      wkey[c] = (int)i;
    } else {
      regpos[i] = (int)nreg;
      reg[nreg++] = A->u.agg.keys[i];
    }
  }
  if (!why && (wkey[0] < 0 || wkey[1] < 0)) why = "GROUP BY without window_start and window_end";
  for (uint32_t j = 0; j < A->u.agg.naggs && !why; j++) {
    const sql_agg_call_t *g = &A->u.agg.aggs[j];
    if ((g->arg_col >= 0 && cls[g->arg_col] >= 0) ||
        (g->filter_col >= 0 && cls[g->filter_col] >= 0))
      why = "an aggregate of a window column";
  }
  uint64_t *sets = NULL;
  if (!why && A->u.agg.nsets) {
    sets = fl_arena_zalloc(a, A->u.agg.nsets * sizeof *sets);
    for (uint32_t s = 0; s < A->u.agg.nsets && !why; s++) {
      uint64_t mask = A->u.agg.sets[s];
      for (int w = 0; w < 3; w++)
        if (wkey[w] >= 0 && !((mask >> wkey[w]) & 1))
          why = "a grouping set without window_start and window_end";
      for (uint32_t i = 0; i < A->u.agg.nkeys; i++)
        if (regpos[i] >= 0 && ((mask >> i) & 1)) sets[s] |= 1ull << regpos[i];
    }
  }
  if (why) {
    if (!session) return FL_OK;
    char msg[200];
    snprintf(msg, sizeof msg,
             "SESSION windows need GROUP BY window_start, window_end directly over the window "
             "table function (found %s)",
             why);
    return errpos(err, T->u.wtvf.pos, msg);
  }
  if (T->u.wtvf.kind == SQL_WT_HOP && T->u.wtvf.size_us % T->u.wtvf.slide_us) {
    char msg[200];
    snprintf(msg, sizeof msg,
             "HOP table function based aggregate requires size must be an integral multiple of "
             "slide, but got size %lld ms and slide %lld ms",
             (long long)(T->u.wtvf.size_us / 1000), (long long)(T->u.wtvf.slide_us / 1000));
    return errpos(err, T->u.wtvf.pos, msg);
  }

  /* Rewire: the chain sits on T's input; window columns passed on
   * become the time column (same type; pruned when unused); the time
   * column and the session partition columns ride up to the top. */
  uint32_t nx = 1 + T->u.wtvf.npartition;
  uint32_t *idx = fl_arena_zalloc(a, nx * sizeof *idx);
  idx[0] = T->u.wtvf.time_col;
  for (uint32_t i = 0; i < T->u.wtvf.npartition; i++) idx[1 + i] = T->u.wtvf.partition[i];
  sql_plan_t *below = T->in;
  chain[n - 1]->in = below;
  chain[n - 1]->inputs[0] = below;
  for (uint32_t k = n; k-- > 0;) {
    sql_plan_t *c = chain[k];
    sql_plan_t *ci = c->in;
    if (c->kind == SQL_P_FILTER) {
      c->cols = ci->cols;
      c->ncols = ci->ncols;
      continue;
    }
    /* References to window columns of the input were passthroughs. */
    const sql_dtype_t *tt = &ci->cols[idx[0]].type;
    uint32_t nc = c->ncols + nx;
    sql_bexpr_t **ex = fl_arena_zalloc(a, nc * sizeof *ex);
    sql_col_t *cols = fl_arena_zalloc(a, nc * sizeof *cols);
    for (uint32_t i = 0; i < c->ncols; i++) {
      const sql_bexpr_t *e = c->u.project.exprs[i];
      ex[i] = (sql_bexpr_t *)e;
      if (e->kind == SQL_BX_COL && e->col >= ci->ncols) ex[i] = col_ref(a, idx[0], tt);
      cols[i] = c->cols[i];
    }
    for (uint32_t j = 0; j < nx; j++) {
      ex[c->ncols + j] = col_ref(a, idx[j], &ci->cols[idx[j]].type);
      cols[c->ncols + j] =
          (sql_col_t){.name = j ? "$wpart" : "$wtime", .type = ci->cols[idx[j]].type};
      idx[j] = c->ncols + j;
    }
    c->u.project.exprs = ex;
    c->cols = cols;
    c->ncols = nc;
  }
  /* The window columns of a passthrough in a projection were numbered
   * past the input (T's window columns); in a projection over another
   * projection they are that projection's ordinary columns, rewritten
   * above. */

  sql_plan_t *W = sql_plan_new(a, SQL_P_WINDOW_AGG, A->in);
  W->u.wtvf = T->u.wtvf;
  W->u.wtvf.time_col = idx[0];
  W->u.wtvf.partition = T->u.wtvf.npartition ? idx + 1 : NULL;
  W->u.wtvf.keys = reg;
  W->u.wtvf.nkeys = nreg;
  W->u.wtvf.aggs = A->u.agg.aggs;
  W->u.wtvf.naggs = A->u.agg.naggs;
  W->u.wtvf.sets = sets;
  W->u.wtvf.nsets = A->u.agg.nsets;
  uint32_t nsetcol = A->u.agg.nsets ? 1 : 0;
  W->ncols = 3 + nreg + nsetcol + A->u.agg.naggs;
  W->cols = fl_arena_zalloc(a, W->ncols * sizeof *W->cols);
  const sql_dtype_t *tt = &T->cols[T->ncols - 1].type;
  static const char *const names[] = {"window_start", "window_end", "window_time"};
  for (int i = 0; i < 3; i++) W->cols[i] = (sql_col_t){.name = names[i], .type = *tt};
  for (uint32_t i = 0; i < nreg; i++) W->cols[3 + i] = W->in->cols[reg[i]];
  if (nsetcol) W->cols[3 + nreg] = A->cols[A->u.agg.nkeys];
  for (uint32_t j = 0; j < A->u.agg.naggs; j++)
    W->cols[3 + nreg + nsetcol + j] = A->cols[A->ncols - A->u.agg.naggs + j];

  /* A projection back to the aggregation's columns. */
  sql_bexpr_t **ex = fl_arena_zalloc(a, (A->ncols ? A->ncols : 1) * sizeof *ex);
  const char **nm = fl_arena_zalloc(a, (A->ncols ? A->ncols : 1) * sizeof *nm);
  for (uint32_t i = 0; i < A->ncols; i++) {
    uint32_t src;
    if (i < A->u.agg.nkeys)
      src = regpos[i] >= 0 ? 3 + (uint32_t)regpos[i] : (uint32_t)cls[A->u.agg.keys[i]];
    else
      src = 3 + nreg + (i - A->u.agg.nkeys);
    ex[i] = col_ref(a, src, &W->cols[src].type);
    nm[i] = A->cols[i].name;
  }
  *pp = sql_plan_project(a, W, ex, nm, A->ncols);
  return FL_OK;
}

static int walk(fl_arena_t *a, sql_plan_t **pp, fl_err_t *err) {
  sql_plan_t *p = *pp;
  int rc;
  for (uint32_t i = 0; i < p->ninputs; i++)
    if ((rc = walk(a, &p->inputs[i], err))) return rc;
  if (p->ninputs) p->in = p->inputs[0];
  if (p->kind == SQL_P_AGGREGATE && (rc = fuse(a, pp, err))) return rc;
  return FL_OK;
}

/* SESSION functions left over have no aggregation over them. */
static int check(const sql_plan_t *p, fl_err_t *err) {
  if (p->kind == SQL_P_WINDOW_TVF && p->u.wtvf.kind == SQL_WT_SESSION)
    return errpos(err, p->u.wtvf.pos,
                  "SESSION windows need GROUP BY window_start, window_end directly over the window "
                  "table function");
  for (uint32_t i = 0; i < p->ninputs; i++) {
    int rc = check(p->inputs[i], err);
    if (rc) return rc;
  }
  return FL_OK;
}

int sql_opt_window_agg(fl_arena_t *a, sql_plan_t **p, fl_err_t *err) {
  int rc = walk(a, p, err);
  return rc ? rc : check(*p, err);
}
