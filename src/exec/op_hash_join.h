/*
 * op_hash_join.h - the hash join: equi-joins on one or more key columns,
 * every join type of ex_join.h, an optional residual condition, and a
 * grace hash join through spill files beyond the memory budget (layer 8,
 * exec). The algorithm and its states are described in op_hash_join.c.
 */
#ifndef FL_EXEC_OP_HASH_JOIN_H
#define FL_EXEC_OP_HASH_JOIN_H

#include "base/arena.h"
#include "exec/ex_join.h"
#include "exec/ex_operator.h"

typedef struct ex_hash_join_opts {
  ex_join_spec_t join;
  /* probe_keys[i] = build_keys[i], for i < nkeys (at least one). The key
   * columns of a pair must have equal types: the planner casts keys of
   * differing comparable types to their common type first. */
  const uint32_t *probe_keys;
  const uint32_t *build_keys;
  uint32_t nkeys;
} ex_hash_join_opts_t;

/* Statistics of one run, for tests and EXPLAIN ANALYZE. */
typedef struct ex_hash_join_stats {
  uint64_t build_rows;
  uint64_t probe_rows;
  uint64_t rows_out;
  uint64_t partitions;        /* spilled partitions joined (0: in memory) */
  uint32_t max_level;         /* deepest repartitioning level reached */
  uint64_t forced_partitions; /* joined over the budget (skew no split could fix) */
} ex_hash_join_stats_t;

/*
 * Builds the join. The returned operator takes the probe side; the build
 * side is pushed to ex_hash_join_build_side(op), and its finish() must
 * come before the first probe batch. finish() of the probe side emits
 * what is left (unmatched build rows of RIGHT and FULL joins, spilled
 * partitions) and finishes the consumer. Output columns are
 * opts->join.probe_out then build_out. Schemas live in arena, which must
 * outlive the operator. Fails when a column index or type is wrong.
 */
int ex_hash_join_new(ex_opctx_t *ctx, fl_arena_t *arena, const ex_hash_join_opts_t *opts,
                     ex_op_t *next, ex_op_t **out, fl_err_t *err);
/* The consumer of the build side, owned by the join (destroying it is a
 * no-op; destroy the join). */
ex_op_t *ex_hash_join_build_side(ex_op_t *join);
/* The statistics of the join and its lanes together. */
const ex_hash_join_stats_t *ex_hash_join_stats(const ex_op_t *join);

/*
 * Adds a probe lane: an operator that probes the join's build side
 * concurrently with the join itself and its other lanes, emitting to
 * `next`. filter/filter_arg are the lane's own residual (the spec's
 * callback may not be shared across threads; NULL when the join has
 * none). Call before the build side runs; the join owns and frees its
 * lanes. Each lane and the join are finished once; the last finish
 * emits what the whole probe side leaves (unmatched build rows, spilled
 * partitions) through the join's own consumer.
 * @locality each lane is driven by one thread at a time.
 */
int ex_hash_join_probe_lane(ex_op_t *join, fl_arena_t *arena, ex_join_filter_fn filter,
                            void *filter_arg, ex_op_t *next, ex_op_t **out, fl_err_t *err);

/*
 * The finished build side's table of key tuples, for looking up whether a
 * probe key can match at all (op_join_filter.h); NULL while the build
 * side runs and when it has spilled (then every key may match). Only key
 * tuples of matchable build rows are in it (no NULL, no NaN). Read-only:
 * look up with ex_ht_find_shared.
 */
const struct ex_ht *ex_hash_join_table(const ex_op_t *join);

#endif
