/*
 * opt_limit.c - limit pushdown (layer 7, sql): LIMIT n OFFSET m directly
 * over a scan, or over a projection of a scan, lets the scan stop after
 * n + m rows. Not past a filter (which may drop rows), a sort or an
 * aggregation; the LIMIT itself stays, so the result is the same.
 */
#include "sql/sql_plan.h"

int sql_opt_limit(fl_arena_t *a, sql_plan_t *p, fl_err_t *err) {
  for (uint32_t i = 0; i < p->ninputs; i++) {
    int rc = sql_opt_limit(a, p->inputs[i], err);
    if (rc) return rc;
  }
  if (p->kind != SQL_P_LIMIT || p->u.limit.limit < 0) return FL_OK;
  sql_plan_t *in = p->in;
  if (in->kind == SQL_P_PROJECT) in = in->in;
  if (in->kind != SQL_P_SCAN || in->u.scan.meta || in->u.scan.stream) return FL_OK;
  int64_t n = p->u.limit.limit + p->u.limit.offset;
  if (in->u.scan.limit < 0 || n < in->u.scan.limit) in->u.scan.limit = n;
  return FL_OK;
}
