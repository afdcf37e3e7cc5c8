/*
 * ex_plan.h - the physical planner and query execution (layer 8, exec).
 *
 * ex_query_new turns an optimized logical plan (sql/sql_plan.h) into a
 * push pipeline of operators ending in a sink: scans and VALUES become
 * sources, Filter/Project/Limit/Union the streaming operators of
 * op_basic.h, Aggregate the hash aggregation (op_hash_agg.h), Sort the
 * sort, and a Limit directly over a Sort the top-N (op_sort.h).
 * ex_query_run drives the sources in order; with threads > 1 each
 * pipeline runs as that many lanes on a base/pool of workers (morsel-
 * driven: workers claim a source's morsels from a shared counter), see
 * ex_plan.c for how pipeline breakers join and split the lanes.
 *
 * ex_sql_resolver fills the binder's function-resolver interface
 * (sql/sql_bind.h) over the function registry and the aggregates, so the
 * binder and the executor share one function library.
 */
#ifndef FL_EXEC_EX_PLAN_H
#define FL_EXEC_EX_PLAN_H

#include "exec/ex_expr.h"
#include "exec/ex_operator.h"
#include "exec/ex_progress.h"
#include "exec/op_window_agg.h"
#include "sql/sql_bind.h"

/*
 * A streaming job that runs one copy of a query per lane places an
 * exchange in front of the query's keyed operator (a window aggregation,
 * or a hash aggregation whose groups all have keys): the planner calls
 * this once the operator op is built, with op's input schema and the
 * input columns whose hash decides which lane's copy owns a row (none:
 * every row belongs to one lane), and builds the input into *front
 * instead of op. The callee owns *front.
 */
typedef int (*ex_keyed_exchange_fn)(void *arg, const ty_schema_t *in, const uint32_t *hash_cols,
                                    uint32_t nhash, ex_op_t *op, ex_op_t **front, fl_err_t *err);

typedef struct ex_query_opts {
  size_t mem_limit;      /* bytes; 0: unlimited */
  const char *spill_dir; /* NULL: $TMPDIR or /tmp */
  const fl_tz_t *zone;   /* session time zone; NULL: UTC */
  int64_t now_us;        /* statement time; < 0: the clock */
  ex_progress_t *progress; /* counters the scans update as they read; NULL: none */
  uint32_t threads;      /* lanes of every pipeline; 0: one per core; 1: single-threaded */
  bool analyze;          /* meter every operator (EXPLAIN ANALYZE) */
  /* The operator the query's output goes to instead of the collecting
   * sink (a streaming job's table sink); not owned; NULL: the sink. */
  ex_op_t *sink;
  /* Window aggregations (op_window_agg.h): firing delay and the side
   * output of late rows; 0 and NULL: none. */
  int64_t window_allowed_lateness_us;
  ex_window_late_fn window_late_fn;
  void *window_late_arg;
  /* One lane per query (threads 1) only: see ex_keyed_exchange_fn. */
  ex_keyed_exchange_fn keyed_exchange;
  void *keyed_exchange_arg;
} ex_query_opts_t;

#define EX_MAX_THREADS 256

/* One per online core (at least 1, at most EX_MAX_THREADS). */
uint32_t ex_default_threads(void);

typedef struct ex_query ex_query_t;

/* Builds the pipeline of plan p; everything lives until ex_query_free
 * (the plan and arena must outlive the query). */
int ex_query_new(fl_arena_t *a, const sql_plan_t *p, const ex_query_opts_t *o, ex_query_t **out,
                 fl_err_t *err);
/* Runs the query to its end; the rows are then in the sink. */
int ex_query_run(ex_query_t *q, fl_err_t *err);
const ex_sink_t *ex_query_sink(const ex_query_t *q);
/* Output columns: names and SQL types. */
uint32_t ex_query_ncols(const ex_query_t *q);
const char *ex_query_col_name(const ex_query_t *q, uint32_t i);
const ex_type_t *ex_query_col_type(const ex_query_t *q, uint32_t i);
ex_ctx_t *ex_query_ctx(ex_query_t *q);
/* The number of lanes (threads) the query runs with. */
uint32_t ex_query_threads(const ex_query_t *q);
/* The window aggregation operators of the query (their statistics, late
 * row counters: ex_window_agg_stats), in plan order. */
uint32_t ex_query_window_aggs(const ex_query_t *q, ex_op_t *const **ops);
/* After a run: one line per table scan with what it read and what pruning
 * skipped, one per join, one per window aggregation, and with opts.analyze one per plan node with the
 * rows pushed into it and its own time, each summed over its threads
 * (EXPLAIN ANALYZE). */
void ex_query_format_stats(const ex_query_t *q, fl_buf_t *out);
void ex_query_free(ex_query_t *q);

/*
 * Streaming inputs: a SCAN of a connector table (sql_stream.h) has no
 * source operator; the job runtime pushes the table's batches (columns
 * named by the scan, in its order), watermarks and finish into the
 * operator it returns here (lane 0; jobs run with one lane per query).
 */
uint32_t ex_query_stream_inputs(const ex_query_t *q);
typedef struct ex_stream_input {
  const struct sql_stream_table *table;
  const char *const *columns; /* the scan's columns (names of table columns) */
  uint32_t ncols;
  const ty_schema_t *schema; /* of the batches to push */
  ex_op_t *op;               /* where to push them */
} ex_stream_input_t;
void ex_query_stream_input(const ex_query_t *q, uint32_t i, ex_stream_input_t *out);
/* Whether copies of streaming plan p can run side by side on several
 * lanes, each fed a share of the input: every node goes row by row
 * (scans, filters, projections, UNION ALL, UNNEST, window table
 * functions) except at most one keyed operator (see
 * ex_keyed_exchange_fn) that an exchange feeds by key. *keyed: there is
 * one. */
bool ex_plan_lanes_ok(const sql_plan_t *p, bool *keyed);
/* Every operator's state, in building order, each as a length-prefixed
 * record; restore reads them back into a query built from the same plan. */
int ex_query_checkpoint(ex_query_t *q, fl_buf_t *w, fl_err_t *err);
int ex_query_restore(ex_query_t *q, fl_rd_t *r, fl_err_t *err);

/* The binder's resolver over this library; a is where it allocates. */
void ex_sql_resolver(sql_resolver_t *r, fl_arena_t *a);

#endif
