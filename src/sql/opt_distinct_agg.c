/*
 * opt_distinct_agg.c - single distinct aggregation as two groupings
 * (layer 7, sql).
 *
 * An AGGREGATE whose aggregates are all DISTINCT over the same argument
 * column x, without FILTER, grouped on keys K,
 *
 *   AGGREGATE keys=K aggs=[f(DISTINCT x), g(DISTINCT x), ...]
 *
 * becomes a grouping on K and x that leaves one row per distinct value,
 * under the aggregations proper without DISTINCT:
 *
 *   AGGREGATE keys=[0..|K|) aggs=[f($|K|), g($|K|), ...]
 *     AGGREGATE keys=K + [x]
 *
 * (Trino's SingleDistinctAggregationToGroupBy.) The inner grouping uses
 * the equality of GROUP BY, as the DISTINCT form's per-group sets do, and
 * keeps NULL as one value, which the outer aggregate then counts or drops
 * as it would (count(x) drops it, array_agg keeps it once), so the result
 * is the same. The DISTINCT form holds a hash table per group, allocated
 * and probed for one group's rows at a time; the two groupings are plain
 * hash aggregations, vectorized over whole batches (TPC-H Q16's
 * count(DISTINCT ps_suppkey) over 18,000 groups).
 *
 * Left alone: grouping sets, a mix of DISTINCT and other aggregates or of
 * DISTINCT arguments, FILTER, and x among the keys.
 */
#include <string.h>

#include "sql/sql_plan.h"

static bool single_distinct(const sql_plan_t *p) {
  if (p->kind != SQL_P_AGGREGATE || p->u.agg.sets || p->u.agg.nsets || !p->u.agg.naggs)
    return false;
  int32_t x = p->u.agg.aggs[0].arg_col;
  if (x < 0) return false;
  for (uint32_t j = 0; j < p->u.agg.naggs; j++) {
    const sql_agg_call_t *g = &p->u.agg.aggs[j];
    if (!g->distinct || g->arg_col != x || g->filter_col >= 0) return false;
  }
  for (uint32_t i = 0; i < p->u.agg.nkeys; i++)
    if (p->u.agg.keys[i] == (uint32_t)x) return false;
  return true;
}

static void rewrite(fl_arena_t *a, sql_plan_t *p) {
  sql_plan_t *in = p->in;
  uint32_t nk = p->u.agg.nkeys;
  uint32_t x = (uint32_t)p->u.agg.aggs[0].arg_col;
  sql_plan_t *d = sql_plan_new(a, SQL_P_AGGREGATE, in);
  d->u.agg.nkeys = nk + 1;
  d->u.agg.keys = fl_arena_zalloc(a, (nk + 1) * sizeof(uint32_t));
  if (nk) memcpy(d->u.agg.keys, p->u.agg.keys, nk * sizeof(uint32_t));
  d->u.agg.keys[nk] = x;
  d->ncols = nk + 1;
  d->cols = fl_arena_zalloc(a, (nk + 1) * sizeof *d->cols);
  for (uint32_t i = 0; i <= nk; i++) d->cols[i] = in->cols[d->u.agg.keys[i]];

  uint32_t *keys = fl_arena_zalloc(a, (nk ? nk : 1) * sizeof(uint32_t));
  for (uint32_t i = 0; i < nk; i++) keys[i] = i;
  sql_agg_call_t *aggs = fl_arena_zalloc(a, p->u.agg.naggs * sizeof *aggs);
  for (uint32_t j = 0; j < p->u.agg.naggs; j++) {
    aggs[j] = p->u.agg.aggs[j];
    aggs[j].distinct = false;
    aggs[j].arg_col = (int32_t)nk;
  }
  p->in = d;
  p->inputs[0] = d;
  p->u.agg.keys = keys;
  p->u.agg.aggs = aggs;
}

static void walk(fl_arena_t *a, sql_plan_t *p) {
  for (uint32_t i = 0; i < p->ninputs; i++) walk(a, p->inputs[i]);
  if (single_distinct(p)) rewrite(a, p);
}

int sql_opt_distinct_agg(fl_arena_t *a, sql_plan_t *p, fl_err_t *err) {
  (void)err;
  walk(a, p);
  return FL_OK;
}
