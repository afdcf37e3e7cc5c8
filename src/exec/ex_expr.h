/*
 * ex_expr.h - the expression evaluator (layer 8, exec).
 *
 * A bound expression (sql/sql_plan.h) is compiled once per query into a
 * tree of evaluation nodes, each holding what it needs at run time: the
 * function call object (ex_func.h) with its compiled constant patterns,
 * the cast's types, a result vector reused across batches, selection
 * scratch for the lazy forms. Subtrees that read no column and are
 * deterministic are evaluated once at compile time (constant folding); one
 * that fails there (1/0) is kept and fails only if a row reaches it, as in
 * Trino.
 *
 * Evaluation runs over one batch and a row selection: kernels compute only
 * the selected rows. AND and OR evaluate their right side only for rows
 * the left side does not decide; CASE evaluates each branch only for the
 * rows that reach it and COALESCE each argument only for rows still NULL
 * (ex_cond.h). A result is a vector with the batch's nrows slots, or a
 * one-row vector for a constant; it stays valid until the next evaluation.
 *
 * Everything a compiled expression holds is released with ctx->arena.
 */
#ifndef FL_EXEC_EX_EXPR_H
#define FL_EXEC_EX_EXPR_H

#include "exec/ex_func.h"
#include "sql/sql_plan.h"

typedef struct ex_expr ex_expr_t;

/* The executor's type for a binder type, and back. */
ex_type_t ex_type_of(const sql_dtype_t *t, fl_arena_t *a);
sql_dtype_t ex_dtype_of(const ex_type_t *t, fl_arena_t *a);

/* Compiles e (over input columns of `in`) for evaluation in ctx. */
int ex_expr_compile(ex_ctx_t *ctx, const sql_bexpr_t *e, const ty_schema_t *in, ex_expr_t **out,
                    fl_err_t *err);
/* ex_expr_compile for a predicate given to ex_expr_select: the operands
 * of its conjunctions (nested ones flattened) are also put in an order of
 * rising estimated cost, so cheap fixed-width tests thin the rows before
 * string tests and function calls run. */
int ex_expr_compile_pred(ex_ctx_t *ctx, const sql_bexpr_t *e, const ty_schema_t *in,
                         ex_expr_t **out, fl_err_t *err);
/*
 * Common subexpressions of expressions compiled together over one input
 * (a projection's): a call or cast that occurs again is compiled once and
 * evaluated once per batch. ex_cse_next_batch must be called before the
 * expressions are evaluated over each new batch, and every expression
 * compiled with one ex_cse_t must be evaluated over the same rows of a
 * batch. Lives in ctx's arena.
 */
typedef struct ex_cse ex_cse_t;
/* An empty subquery cache in arena a, for the lane contexts of one query
 * (ex_ctx_t.subqs), whose subqueries then run on the query's `threads`
 * (0: the default). It is filled while the query's operators are built,
 * which happens on one thread, and only read afterwards. */
ex_subq_cache_t *ex_subq_cache_new(fl_arena_t *a, uint32_t threads);

ex_cse_t *ex_cse_new(ex_ctx_t *ctx);
void ex_cse_next_batch(ex_cse_t *cse);
int ex_expr_compile_cse(ex_ctx_t *ctx, const sql_bexpr_t *e, const ty_schema_t *in, ex_cse_t *cse,
                        ex_expr_t **out, fl_err_t *err);
/* Evaluates over the rows of b (rows: which ones; nrows = b->nrows). */
int ex_expr_eval(ex_ctx_t *ctx, ex_expr_t *x, const ty_batch_t *b, const ex_rows_t *rows,
                 const ty_vec_t **out, fl_err_t *err);
/*
 * Evaluates boolean predicate x over the rows of b and writes the rows
 * where it is TRUE (not FALSE, not NULL), in order, to sel (room for
 * rows->n; sel may be rows->sel itself), their count to *n. A conjunction
 * narrows the rows operand by operand: each one is evaluated only on the
 * rows every earlier one kept; a disjunction evaluates each operand only
 * on the rows no earlier one made TRUE.
 */
int ex_expr_select(ex_ctx_t *ctx, ex_expr_t *x, const ty_batch_t *b, const ex_rows_t *rows,
                   uint32_t *sel, uint32_t *n, fl_err_t *err);
/* The result's SQL type and storage type. */
const ex_type_t *ex_expr_type(const ex_expr_t *x);
const ty_type_t *ex_expr_storage(const ex_expr_t *x);
/* The folded value when the expression is constant (a one-row vector), else NULL. */
const ty_vec_t *ex_expr_const(const ex_expr_t *x);

/* Builds the one-row vector of a literal. */
ty_vec_t *ex_const_vec(ex_ctx_t *ctx, const sql_const_t *c, const ex_type_t *t, fl_err_t *err);

#endif
