/*
 * op_join_filter.h - a filter on a hash join's finished build keys, placed
 * deep in the join's probe side (layer 8, exec).
 *
 * Rows whose key tuple is not in the join's build table can never find a
 * pair; for joins that drop such probe rows (INNER, RIGHT, SEMI and the
 * RIGHT_SEMI/RIGHT_ANTI forms) they may be dropped before any work is
 * spent on them. The planner puts this filter below an aggregation grouped
 * on the join keys (a decorrelated subquery: TPC-H Q17 averages lineitem
 * per part, then joins 200 parts), where it keeps the aggregation from
 * building groups the join throws away. The build side has finished
 * before any probe pipeline runs, so the table is complete when the first
 * batch arrives; while it is absent (a spilled join) every row passes.
 */
#ifndef FL_EXEC_OP_JOIN_FILTER_H
#define FL_EXEC_OP_JOIN_FILTER_H

#include "exec/ex_operator.h"

/*
 * A filter keeping the rows whose columns cols[0..ncols) (the join's probe
 * key types, in key order) are a key tuple of hash join `join`'s build
 * side. The join must outlive the filter. One thread at a time pushes to
 * one filter; filters of several lanes may share the join.
 */
int ex_join_filter_new(const ex_op_t *join, const ty_schema_t *in, const uint32_t *cols,
                       uint32_t ncols, ex_op_t *next, ex_op_t **out, fl_err_t *err);

/* Rows the filter has dropped. */
uint64_t ex_join_filter_dropped(const ex_op_t *op);

#endif
