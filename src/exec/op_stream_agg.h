/*
 * op_stream_agg.h - streaming aggregation: GROUP BY over input that
 * arrives grouped (sorted on the keys), emitting each group as soon as
 * the keys change, in bounded memory (layer 8, exec). The algorithm and
 * its states are described in op_stream_agg.c.
 */
#ifndef FL_EXEC_OP_STREAM_AGG_H
#define FL_EXEC_OP_STREAM_AGG_H

#include "exec/op_hash_agg.h"

/*
 * Builds the operator from the same options as hash aggregation (the
 * same aggregate functions and output columns: the keys, then one column
 * per aggregate), without grouping sets and with at least one key. The
 * input must hold the rows of each group together (any order of the
 * groups; sorted on the keys is the usual reason); a group that comes
 * back later is emitted again. Fails on a wrong column or type, or keys
 * that cannot be compared (nested types).
 */
int ex_stream_agg_new(ex_opctx_t *ctx, fl_arena_t *arena, const ex_hash_agg_opts_t *opts,
                      ex_op_t *next, ex_op_t **out, fl_err_t *err);

/* Rows read and groups emitted so far. */
typedef struct ex_stream_agg_stats {
  uint64_t rows_in;
  uint64_t groups_out;
} ex_stream_agg_stats_t;
const ex_stream_agg_stats_t *ex_stream_agg_stats(const ex_op_t *op);

#endif
