/*
 * op_window_agg.h - windowed aggregation: GROUP BY window_start,
 * window_end [, keys] over Flink's TUMBLE, HOP, CUMULATE and SESSION
 * window table functions, for bounded inputs (every window emitted at
 * finish) and for streams (windows emitted as the watermark passes them)
 * (layer 8, exec). The algorithm, its state and its checkpoint format are
 * described in op_window_agg.c.
 */
#ifndef FL_EXEC_OP_WINDOW_AGG_H
#define FL_EXEC_OP_WINDOW_AGG_H

#include "base/arena.h"
#include "exec/ex_window_assign.h"
#include "exec/op_hash_agg.h"

/*
 * Called with the rows of a pushed batch that arrived too late for every
 * window they belong to (Flink's late records; a side output); time_col is
 * the batch's event-time column. The batch is only valid during the call.
 * A non-zero return stops the push with that error.
 */
typedef int (*ex_window_late_fn)(void *arg, const ty_batch_t *b, uint32_t time_col,
                                 const uint32_t *rows, uint32_t n, fl_err_t *err);

typedef struct ex_window_agg_opts {
  const ty_schema_t *in_schema;
  ex_window_spec_t spec;
  uint32_t time_col; /* timestamp or timestamptz; NULL times are dropped */
  /* SESSION: sessions are formed per value of these columns (the TVF's
   * PARTITION BY); none: over all rows. */
  const uint32_t *partition_cols;
  uint32_t npartition;
  /* GROUP BY columns besides the window, and grouping sets over them as
   * bit masks (nsets 0: plain GROUP BY); the window is in every set. */
  const uint32_t *key_cols;
  uint32_t nkeys;
  const uint64_t *grouping_sets;
  uint32_t nsets;
  const ex_agg_spec_t *aggs;
  uint32_t naggs;
  /* Streaming: a window fires when the watermark reaches its
   * window_time (end - 1 ms) plus this much. */
  int64_t allowed_lateness_us;
  ex_window_late_fn late_fn; /* NULL: late rows are only counted */
  void *late_arg;
} ex_window_agg_opts_t;

typedef struct ex_window_agg_stats {
  uint64_t rows_in;
  uint64_t late_rows;    /* rows dropped because their windows had fired */
  uint64_t windows_out;  /* windows emitted */
  uint64_t groups_out;   /* rows emitted */
  uint64_t open_windows; /* windows (sessions) holding state now */
  uint64_t spills;       /* runs written */
  uint64_t compactions;  /* rebuilds of the tables without fired state */
  uint64_t run_merges;   /* times the spill runs were merged into one */
} ex_window_agg_stats_t;

/*
 * Output columns: window_start, window_end, window_time (the time
 * column's type), the keys (named as in the input), "$grouping_set"
 * (bigint) when there are grouping sets, one column per aggregate.
 * Types and the schema are allocated in arena, which must outlive the
 * operator.
 */
int ex_window_agg_new(ex_opctx_t *ctx, fl_arena_t *arena, const ex_window_agg_opts_t *opts,
                      ex_op_t *next, ex_op_t **out, fl_err_t *err);
const ex_window_agg_stats_t *ex_window_agg_stats(const ex_op_t *op);

#endif
