/*
 * op_hash_agg.h - the hash aggregation operator: GROUP BY (with grouping
 * sets) and global aggregates, spilling to disk beyond the memory budget
 * (layer 8, exec). The algorithm and its states are described in
 * op_hash_agg.c.
 */
#ifndef FL_EXEC_OP_HASH_AGG_H
#define FL_EXEC_OP_HASH_AGG_H

#include "base/arena.h"
#include "exec/ex_agg.h"
#include "exec/ex_operator.h"

/* One aggregate of the operator: a bound function over an input column. */
typedef struct ex_agg_spec {
  ex_agg_t *agg;
  int32_t arg_col;    /* input column of the argument; -1 for count(*) */
  int32_t filter_col; /* boolean input column of FILTER (WHERE ...); -1: none */
  const char *name;   /* output column name; NULL: the function's name */
} ex_agg_spec_t;

/*
 * The phase of a two-phase (parallel) aggregation. COMPLETE aggregates
 * input rows into final values. PARTIAL aggregates input rows but emits
 * partial states: rows of the table keys (with "$grouping_set" when there
 * are sets) plus one binary column "states" with the serialized states of
 * all aggregates, the spill format; instead of spilling it emits its table
 * early and starts afresh, so one key may come out several times; it
 * always emits the groups of empty grouping sets (a global aggregate's
 * one group), which FINAL never creates on its own. FINAL
 * takes such rows (its in_schema is the PARTIAL's output; key_cols are
 * 0 .. nkeys-1; arg_col and filter_col are not used), combines the states
 * of equal keys, spills as COMPLETE does, and emits final values.
 */
typedef enum ex_agg_phase { EX_AGG_COMPLETE, EX_AGG_PARTIAL, EX_AGG_FINAL } ex_agg_phase_t;

typedef struct ex_hash_agg_opts {
  ex_agg_phase_t phase;
  const ty_schema_t *in_schema;
  const uint32_t *key_cols; /* GROUP BY columns of the input */
  uint32_t nkeys;
  /*
   * Grouping sets: each a bit mask over key_cols (bit i: key i is grouped
   * on). nsets 0 means plain GROUP BY over all keys. With sets, the output
   * gains a bigint column "$grouping_set" after the keys holding the index
   * of the set a row belongs to, and keys outside that set are NULL.
   */
  const uint64_t *grouping_sets;
  uint32_t nsets;
  const ex_agg_spec_t *aggs;
  uint32_t naggs;
} ex_hash_agg_opts_t;

/* Statistics of one run, for tests and EXPLAIN ANALYZE. */
typedef struct ex_hash_agg_stats {
  uint64_t rows_in;
  uint64_t groups_out;
  uint64_t spills;         /* times the table was written out */
  uint64_t spilled_groups; /* partial states written */
  uint32_t max_level;      /* deepest repartitioning level reached */
} ex_hash_agg_stats_t;

/*
 * Builds the operator. Output columns: the keys (named as in the input),
 * "$grouping_set" when there are grouping sets, then one column per
 * aggregate. Types and the output schema are allocated in arena, which
 * must outlive the operator. Fails when a column index or type is wrong.
 */
int ex_hash_agg_new(ex_opctx_t *ctx, fl_arena_t *arena, const ex_hash_agg_opts_t *opts,
                    ex_op_t *next, ex_op_t **out, fl_err_t *err);
const ex_hash_agg_stats_t *ex_hash_agg_stats(const ex_op_t *op);

#endif
