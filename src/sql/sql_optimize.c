/*
 * sql_optimize.c - the optimizer driver (layer 7, sql): runs the rules of
 * opt_*.c over a bound plan in a fixed order. Decorrelation goes first,
 * so that every later rule sees joins and aggregations only; window
 * aggregations over window table functions are recognized next (their
 * filters and projections then sit on the function's input); folding next,
 * so that pushdown sees constants (id > 1 + 1 is id > 2); common conjuncts
 * come out of ORs before join planning, so that keys inside them become
 * join keys; pushdown before pruning so that pruning sees the final
 * filter; a single DISTINCT aggregation becomes two groupings before
 * pruning too, so that pruning sees its new node; then limit pushdown,
 * and last the choice of streaming aggregation, which needs the final
 * plan.
 */
#include "sql/sql_plan.h"

int sql_optimize(fl_arena_t *a, const struct sql_resolver *r, sql_plan_t **p, fl_err_t *err) {
  int rc;
  if ((rc = sql_opt_decorrelate(a, r, p, err))) return rc;
  if ((rc = sql_opt_window_agg(a, p, err))) return rc;
  if (r && (rc = sql_opt_fold(a, r, p, err))) return rc;
  if (r && (rc = sql_opt_or(a, r, *p, err))) return rc;
  if ((rc = sql_opt_join(a, r, p, err))) return rc;
  if ((rc = sql_opt_pushdown(a, *p, err))) return rc;
  if ((rc = sql_opt_distinct_agg(a, *p, err))) return rc;
  if ((rc = sql_opt_prune(a, *p, err))) return rc;
  if ((rc = sql_opt_limit(a, *p, err))) return rc;
  return sql_opt_stream_agg(a, *p, err);
}
