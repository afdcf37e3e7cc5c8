/*
 * opt_stream_agg.c - choosing streaming aggregation (layer 7, sql): an
 * AGGREGATE whose input arrives sorted on its grouping keys runs as the
 * streaming aggregation operator (exec/op_stream_agg.c), which emits each
 * group when the keys change and holds one group at a time, instead of
 * hashing every group.
 *
 * The input is sorted on a set of columns when its sort order begins with
 * exactly those columns, in any order: a SORT (ORDER BY a, b serves GROUP
 * BY a, GROUP BY a, b and GROUP BY b, a, not GROUP BY b), seen through
 * the nodes that keep row order (FILTER, LIMIT, and PROJECT where the
 * keys are plain columns, renumbered through it), or a WINDOW, whose
 * output is sorted on its PARTITION BY columns and then its ORDER BY
 * keys. A streaming aggregation's own output keeps its input's order.
 * Grouping sets keep hash aggregation.
 *
 * Iceberg sort orders are not used: they order the rows within each data
 * file, and a key may appear in several files.
 */
#include <string.h>

#include "sql/sql_plan.h"

/* Whether set (cols[0..n), distinct) is the first n columns of p's order. */
static bool sorted_on(const sql_plan_t *p, const uint32_t *cols, uint32_t n);

static bool prefix_is_set(const uint32_t *order, uint32_t norder, const uint32_t *cols,
                          uint32_t n) {
  if (n > norder) return false;
  for (uint32_t i = 0; i < n; i++) {
    bool found = false;
    for (uint32_t j = 0; j < n && !found; j++) found = order[j] == cols[i];
    if (!found) return false;
  }
  return true;
}

static bool sorted_on(const sql_plan_t *p, const uint32_t *cols, uint32_t n) {
  switch (p->kind) {
    case SQL_P_SORT: {
      uint32_t order[64];
      if (p->u.sort.nkeys < n || n > 64) return false;
      for (uint32_t i = 0; i < n; i++) order[i] = p->u.sort.keys[i].col;
      return prefix_is_set(order, n, cols, n);
    }
    case SQL_P_FILTER:
    case SQL_P_LIMIT: return sorted_on(p->in, cols, n);
    case SQL_P_PROJECT: {
      uint32_t in[64];
      if (n > 64) return false;
      for (uint32_t i = 0; i < n; i++) {
        const sql_bexpr_t *e = p->u.project.exprs[cols[i]];
        if (e->kind != SQL_BX_COL) return false;
        in[i] = e->col;
      }
      return sorted_on(p->in, in, n);
    }
    case SQL_P_WINDOW: {
      uint32_t order[64], m = 0;
      for (uint32_t i = 0; i < p->u.window.npartition && m < 64; i++)
        order[m++] = p->u.window.partition[i];
      for (uint32_t i = 0; i < p->u.window.norder && m < 64; i++)
        order[m++] = p->u.window.order[i].col;
      /* The PARTITION BY columns come first, in no particular order among
       * themselves; a prefix may end inside them only as a whole set. */
      if (n < p->u.window.npartition) return false;
      return prefix_is_set(order, m, cols, n);
    }
    case SQL_P_AGGREGATE: {
      if (!p->u.agg.streaming) return false;
      /* Output keys 0..nkeys-1 in the input's order of the keys. */
      for (uint32_t i = 0; i < n; i++)
        if (cols[i] >= p->u.agg.nkeys) return false;
      uint32_t in[64];
      if (n > 64) return false;
      for (uint32_t i = 0; i < n; i++) in[i] = p->u.agg.keys[cols[i]];
      return sorted_on(p->in, in, n);
    }
    default: return false;
  }
}

static void walk(sql_plan_t *p) {
  for (uint32_t i = 0; i < p->ninputs; i++) walk(p->inputs[i]);
  if (p->kind != SQL_P_AGGREGATE || p->u.agg.nsets || !p->u.agg.nkeys || p->u.agg.nkeys > 64)
    return;
  /* Repeated keys (GROUP BY a, a) name one column once. */
  uint32_t cols[64], n = 0;
  for (uint32_t i = 0; i < p->u.agg.nkeys; i++) {
    bool dup = false;
    for (uint32_t j = 0; j < n && !dup; j++) dup = cols[j] == p->u.agg.keys[i];
    if (!dup) cols[n++] = p->u.agg.keys[i];
  }
  p->u.agg.streaming = sorted_on(p->in, cols, n);
}

int sql_opt_stream_agg(fl_arena_t *a, sql_plan_t *p, fl_err_t *err) {
  (void)a;
  (void)err;
  walk(p);
  return FL_OK;
}
