/*
 * op_unnest.h - the UNNEST operator: each input row repeated once per
 * element of one or more arrays computed from it (layer 8, exec). The
 * algorithm is described in op_unnest.c.
 */
#ifndef FL_EXEC_OP_UNNEST_H
#define FL_EXEC_OP_UNNEST_H

#include "exec/ex_expr.h"
#include "exec/ex_operator.h"

/*
 * Output (out_schema): the input columns, then one column per array
 * expression (its element type), then the 1-based ordinality (long) when
 * ordinality is set. Arrays are zipped: a row yields as many rows as its
 * longest array has elements, shorter ones padded with NULL; a NULL or
 * empty array has no elements, so a row whose arrays are all empty yields
 * nothing (CROSS JOIN UNNEST) unless outer is set, when it yields one
 * row with the elements and ordinality NULL (LEFT JOIN UNNEST ... ON
 * TRUE). Expressions are compiled in ctx.
 */
int ex_unnest_new(ex_ctx_t *ctx, const ty_schema_t *in, const ty_schema_t *out_schema,
                  sql_bexpr_t *const *exprs, uint32_t n, bool ordinality, bool outer, ex_op_t *next,
                  ex_op_t **out, fl_err_t *err);

#endif
