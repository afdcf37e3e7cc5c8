/*
 * ex_cast.h - CAST and TRY_CAST between SQL types (layer 8, exec).
 *
 * Casts are not overloads in the function registry because their result
 * type is the target the query names, not a function of the argument. The
 * binder checks a cast with ex_cast_check and inserts one for every
 * implicit coercion that ex_func_resolve asks for; the evaluator runs it
 * with ex_cast_eval, a loop over the selected rows per (source, target)
 * pair.
 *
 * Semantics follow Trino: numbers convert with range checks (integers
 * from real/double/decimal round half away from zero), decimals rescale
 * with HALF_UP rounding, every type formats to and parses from varchar in
 * Trino's text forms, timestamp <-> timestamp with time zone go through
 * the session (or the type's) time zone. A failing CAST stops with
 * FL_EINVALID, "Cannot cast 'abc' to INTEGER"; TRY_CAST gives NULL there.
 */
#ifndef FL_EXEC_EX_CAST_H
#define FL_EXEC_EX_CAST_H

#include "exec/ex_func.h"

/* Appends row i (valid) of v, of SQL type t, as text: what CAST(... AS
 * varchar) gives, and for arrays, maps and rows what Trino's clients show
 * ([a, b], {k=v}, {field=v}). */
void ex_format_value(ex_ctx_t *ctx, const ex_type_t *t, const ty_vec_t *v, uint32_t i,
                     fl_buf_t *out);

/* Fails (FL_EINVALID) naming both types when there is no such cast. */
int ex_cast_check(const ex_type_t *from, const ex_type_t *to, fl_err_t *err);

/* Casts rows of in (type from) into out (storage of to). try_cast turns
 * row failures into NULLs. */
int ex_cast_eval(ex_ctx_t *ctx, const ex_type_t *from, const ex_type_t *to, bool try_cast,
                 const ty_vec_t *in, const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err);

/* Parses a type name as Trino spells it ("decimal(10,2)", "bigint",
 * "timestamp(6) with time zone", "array(varchar)"). */
int ex_type_parse(const char *s, ex_type_t *out, fl_err_t *err);

#endif
