/*
 * op_window.h - the window operator: window functions (ranking, value
 * functions and aggregates over frames) over one window specification
 * (PARTITION BY, ORDER BY, frame), with Trino's semantics (layer 8,
 * exec). The algorithm and its states are described in op_window.c.
 */
#ifndef FL_EXEC_OP_WINDOW_H
#define FL_EXEC_OP_WINDOW_H

#include "base/arena.h"
#include "exec/ex_agg.h"
#include "exec/ex_operator.h"
#include "exec/ex_sortkey.h"

typedef enum ex_window_kind {
  EX_WIN_ROW_NUMBER,
  EX_WIN_RANK,
  EX_WIN_DENSE_RANK,
  EX_WIN_PERCENT_RANK,
  EX_WIN_CUME_DIST,
  EX_WIN_NTILE,
  EX_WIN_LAG,
  EX_WIN_LEAD,
  EX_WIN_FIRST_VALUE,
  EX_WIN_LAST_VALUE,
  EX_WIN_NTH_VALUE,
  EX_WIN_AGG, /* any bound aggregate of ex_agg.h over the frame */
  EX_WIN_KIND_COUNT
} ex_window_kind_t;

/* One window function of the operator. */
typedef struct ex_window_fn {
  ex_window_kind_t kind;
  int32_t arg_col;     /* value functions and aggregates; -1 for count(*) */
  int64_t param;       /* ntile: buckets (>= 1); lag/lead: offset (>= 0, the
                          binder passes 1 when omitted); nth_value: n (>= 1) */
  int32_t default_col; /* lag/lead: input column of the default; -1: NULL */
  bool ignore_nulls;   /* lag, lead, first_value, last_value, nth_value */
  ex_agg_t *agg;       /* EX_WIN_AGG: bound to the argument's type */
  const char *name;    /* output column name; NULL: the function's name */
} ex_window_fn_t;

typedef enum ex_frame_unit { EX_FRAME_ROWS, EX_FRAME_RANGE, EX_FRAME_GROUPS } ex_frame_unit_t;

typedef enum ex_bound_kind {
  EX_BOUND_UNBOUNDED_PRECEDING,
  EX_BOUND_PRECEDING,
  EX_BOUND_CURRENT_ROW,
  EX_BOUND_FOLLOWING,
  EX_BOUND_UNBOUNDED_FOLLOWING
} ex_bound_kind_t;

/*
 * A frame bound. The offset of n PRECEDING / n FOLLOWING is a row count
 * (ROWS), a peer group count (GROUPS) or, for RANGE, a distance in the
 * ORDER BY key's unit: `offset` for integer, decimal (unscaled, at the
 * key's scale), date (days) and timestamp (the key's micro- or
 * nanoseconds) keys, `offset_f` for real and double keys. Negative
 * offsets are refused, as Trino does.
 */
typedef struct ex_frame_bound {
  ex_bound_kind_t kind;
  int64_t offset;
  double offset_f;
} ex_frame_bound_t;

typedef struct ex_window_frame {
  ex_frame_unit_t unit;
  ex_frame_bound_t start, end;
} ex_window_frame_t;

typedef struct ex_window_opts {
  const ty_schema_t *in_schema;
  const uint32_t *partition_cols;
  uint32_t npartition;
  const ex_sort_key_t *order_keys;
  uint32_t norder;
  /* NULL: Trino's default, RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT
   * ROW (which is the whole partition without ORDER BY). */
  const ex_window_frame_t *frame;
  /* The input already arrives ordered by (partition columns, order keys),
   * partitions contiguous: no sort is done. */
  bool presorted;
  const ex_window_fn_t *fns;
  uint32_t nfns;
} ex_window_opts_t;

typedef struct ex_window_stats {
  uint64_t rows;
  uint64_t partitions;
  uint64_t max_partition_rows;
  uint32_t sort_runs;          /* runs the sort spilled */
  uint64_t spilled_partitions; /* partitions whose rows went to disk */
  uint64_t spilled_rows;
} ex_window_stats_t;

/*
 * Builds the operator. Output: the input columns, then one column per
 * function (bigint for row_number, rank, dense_rank and ntile, double for
 * percent_rank and cume_dist, the argument's type for value functions,
 * the aggregate's result type for aggregates). Types and the schema are
 * allocated in arena, which must outlive the operator; the functions'
 * aggregates too. Errors name the function or frame bound at fault.
 */
int ex_window_new(ex_opctx_t *ctx, fl_arena_t *arena, const ex_window_opts_t *opts, ex_op_t *next,
                  ex_op_t **out, fl_err_t *err);
const ex_window_stats_t *ex_window_stats(const ex_op_t *op);

#endif
