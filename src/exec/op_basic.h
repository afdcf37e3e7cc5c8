/*
 * op_basic.h - the streaming relational operators and the sources of a
 * pipeline (layer 8, exec): scan of an Iceberg table (op_scan.c), VALUES
 * (op_values.c), filter (op_filter.c), projection (op_project.c), LIMIT /
 * OFFSET (op_limit.c) and UNION ALL (op_union.c). Hash aggregation, sort
 * and top-N are in op_hash_agg.h and op_sort.h.
 *
 * Operators follow ex_operator.h. A source is not pushed to: run() reads
 * its input and pushes every batch to its consumer, then finishes it. A
 * source stops early when *stop becomes true (a satisfied LIMIT sets it;
 * read it with ex_source_stopped, since other threads may set it).
 *
 * Parallel sources. A source that can be read in pieces also sets split
 * and run_morsel: split(s, nlanes, &n) prepares one reader per lane and
 * says how many morsels the input has (Iceberg scan tasks, say); then
 * workers call run_morsel(s, lane, m, next) for every m in [0, n), each
 * morsel once, concurrently for different lanes, each pushing the morsel's
 * batches into its lane's consumer `next` without finishing it (the
 * driver finishes every lane after its last morsel). A source that leaves
 * split NULL runs whole through run() as a single morsel of lane 0.
 */
#ifndef FL_EXEC_OP_BASIC_H
#define FL_EXEC_OP_BASIC_H

#include "exec/ex_expr.h"
#include "exec/ex_operator.h"
#include "exec/ex_progress.h"
#include "iceberg/ice_scan.h"

typedef struct ex_source ex_source_t;
struct ex_source {
  int (*run)(ex_source_t *s, fl_err_t *err);
  void (*destroy)(ex_source_t *s);
  ex_op_t *next;
  const bool *stop;
  /* Optional: morsel-driven parallel reading (see above). */
  int (*split)(ex_source_t *s, uint32_t nlanes, uint32_t *nmorsels, fl_err_t *err);
  int (*run_morsel)(ex_source_t *s, uint32_t lane, uint32_t morsel, ex_op_t *next, fl_err_t *err);
};

/* Whether the pipeline's stop flag is raised (NULL: never). */
static inline bool ex_source_stopped(const ex_source_t *s) {
  return s->stop && __atomic_load_n(s->stop, __ATOMIC_RELAXED);
}

/* Reads a planned scan (taken over: freed with the source). */
ex_source_t *ex_scan_source_new(ice_scan_t *scan, ex_op_t *next, const bool *stop);
/* The scan's statistics when s is a scan source, else NULL. */
const ice_scan_stats_t *ex_scan_source_stats(const ex_source_t *s);
/* The scan of a metadata table ("t$files"): p is a scan node whose meta
 * kind is set (sql/sql_meta.h), schema its output (op_meta_scan.c). */
int ex_meta_source_new(fl_arena_t *a, const sql_plan_t *p, const ty_schema_t *schema, ex_op_t *next,
                       const bool *stop, ex_source_t **out, fl_err_t *err);
/*
 * Reads the files of a table function's scan (op_file_scan.c): the plan's
 * files, columns (`columns`, ncols of them, as out_schema's storage
 * types), pruning filter (unbound, by column name) and row limit.
 * progress may be NULL; the scan adds its files and bytes to the totals
 * now and its reading as it goes.
 */
int ex_file_scan_source_new(const sql_files_t *files, const char *const *columns, uint32_t ncols,
                            const ty_schema_t *out_schema, const ice_expr_t *filter, int64_t limit,
                            ex_progress_t *progress, ex_op_t *next, const bool *stop,
                            ex_source_t **out, fl_err_t *err);
/* After a run: one line of what a file scan read and skipped; false when
 * s is not a file scan. */
bool ex_file_scan_source_format_stats(const ex_source_t *s, uint32_t index, fl_buf_t *out);
/* Counts the rows an Iceberg scan source produces into progress. */
void ex_scan_source_set_progress(ex_source_t *s, ex_progress_t *progress);
/* One batch of rows, each cell a constant expression (compiled in ctx). */
int ex_values_source_new(ex_ctx_t *ctx, const ty_schema_t *schema, sql_bexpr_t *const *cells,
                         uint32_t nrows, ex_op_t *next, const bool *stop, ex_source_t **out,
                         fl_err_t *err);

/* Passes on the rows where pred is TRUE, as a selection over the same
 * columns (no copy). */
int ex_filter_new(ex_ctx_t *ctx, const ty_schema_t *in, const sql_bexpr_t *pred, ex_op_t *next,
                  ex_op_t **out, fl_err_t *err);
/* Computes exprs over each batch; the output keeps the input's selection. */
int ex_project_new(ex_ctx_t *ctx, const ty_schema_t *in, const ty_schema_t *out_schema,
                   sql_bexpr_t *const *exprs, uint32_t n, ex_op_t *next, ex_op_t **out,
                   fl_err_t *err);
/* Skips offset rows, passes limit rows (-1: all), then sets *stop. */
ex_op_t *ex_limit_new(const ty_schema_t *schema, int64_t limit, int64_t offset, bool *stop,
                      ex_op_t *next);
/* Passes batches of schema in on as batches of schema out, copying the
 * columns whose types hold fixed(L) into their SQL layout (varbinary);
 * see op_adapt.c. */
ex_op_t *ex_adapt_new(const ty_schema_t *in, const ty_schema_t *out, ex_op_t *next);
/* Forwards every batch of ninputs producers; finishes after the last one. */
ex_op_t *ex_union_new(const ty_schema_t *schema, uint32_t ninputs, ex_op_t *next);

#endif
