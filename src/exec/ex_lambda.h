/*
 * ex_lambda.h - the array functions that take a lambda (layer 8, exec):
 * transform, filter, any_match, all_match, none_match, reduce. The expression
 * compiler (ex_expr.c) hands a call with a body here; see ex_lambda.c.
 */
#ifndef FL_EXEC_EX_LAMBDA_H
#define FL_EXEC_EX_LAMBDA_H

#include "exec/ex_expr.h"
#include "exec/ex_func.h"

typedef struct ex_lambda ex_lambda_t;

/* Compiles the body of call `name` whose arguments (the array, then the
 * captured values) have storage types arg_storage; lives in ctx->arena. */
int ex__lambda_compile(ex_ctx_t *ctx, const char *name, const sql_bexpr_t *body,
                       const sql_bexpr_t *body2, const ty_type_t *const *arg_storage,
                       uint32_t nargs, ex_lambda_t **out, fl_err_t *err);
/* Evaluates the call over the selected rows into out (nrows slots). */
int ex__lambda_eval(ex_ctx_t *ctx, ex_lambda_t *l, const ty_vec_t *const *argv,
                    const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err);

#endif
