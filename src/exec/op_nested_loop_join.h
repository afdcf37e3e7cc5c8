/*
 * op_nested_loop_join.h - the nested loop join: cross joins and joins on
 * conditions that are not equalities (`ON a.t BETWEEN b.lo AND b.hi`),
 * given as the residual condition of ex_join.h (layer 8, exec). The
 * algorithm and its states are described in op_nested_loop_join.c.
 */
#ifndef FL_EXEC_OP_NESTED_LOOP_JOIN_H
#define FL_EXEC_OP_NESTED_LOOP_JOIN_H

#include "base/arena.h"
#include "exec/ex_join.h"
#include "exec/ex_operator.h"

typedef struct ex_nl_join_stats {
  uint64_t build_rows;
  uint64_t probe_rows;
  uint64_t pairs; /* candidate pairs tried */
  uint64_t rows_out;
  uint64_t blocks; /* build blocks joined after spilling (0: in memory) */
} ex_nl_join_stats_t;

/*
 * Builds the join of spec (INNER with no filter is a cross join; INNER,
 * LEFT, RIGHT, FULL, SEMI and ANTI take a filter; NULL_AWARE_ANTI needs
 * keys: use the hash join). The returned operator takes the probe side;
 * the build side is pushed to ex_nl_join_build_side(op) and finished
 * first, as for the hash join. Beyond the memory budget both sides are
 * spilled and joined block by block. Schemas live in arena.
 */
int ex_nl_join_new(ex_opctx_t *ctx, fl_arena_t *arena, const ex_join_spec_t *spec, ex_op_t *next,
                   ex_op_t **out, fl_err_t *err);
ex_op_t *ex_nl_join_build_side(ex_op_t *join);
const ex_nl_join_stats_t *ex_nl_join_stats(const ex_op_t *join);

#endif
