/*
 * ex_cond.h - lazy evaluation of CASE, IF, COALESCE and NULLIF over
 * selection vectors (layer 8, exec).
 *
 * A branch of a CASE must only be computed for the rows that reach it
 * (CASE WHEN x = 0 THEN 0 ELSE 1 / x END must not divide by zero), so
 * these are not plain kernels. The expression evaluator runs them as:
 *
 *   CASE WHEN c1 THEN v1 WHEN c2 THEN v2 ELSE v3 END over rows R:
 *     eval c1 over R;          ex_cond_split(c1, R) -> T1 (true), R1 (rest)
 *     eval v1 over T1 into b[0]; ex_cond_mark(which, T1, 0)
 *     eval c2 over R1;         ex_cond_split(c2, R1) -> T2, R2
 *     eval v2 over T2 into b[1]; ex_cond_mark(which, T2, 1)
 *     eval v3 over R2 into b[2]; ex_cond_mark(which, R2, 2)
 *     ex_cond_gather(out, b, which, R)
 *   IF(c, a, b) is CASE WHEN c THEN a ELSE b END.
 *   COALESCE(a, b, c): eval a over R into b[0]; ex_cond_split_null(b[0], R)
 *     -> N1 (null rows), mark the others 0; eval b over N1 ... and so on;
 *     rows null in every argument keep which = EX_COND_NULL.
 *   NULLIF(a, b) needs no laziness: the registered kernel "nullif".
 *
 * Every branch vector has the full nrows slots (only its rows filled) and
 * the result type (the binder casts each branch to the common type), so
 * gather is one pass in row order. Selections are written into
 * caller-provided arrays of at least rows->n entries.
 */
#ifndef FL_EXEC_EX_COND_H
#define FL_EXEC_EX_COND_H

#include "exec/ex_func.h"

#define EX_COND_NULL 0xFF

/* Splits rows by a boolean vector: rows where it is TRUE into t (count
 * *nt), the others (FALSE or NULL) into rest (count *nrest). */
void ex_cond_split(const ty_vec_t *cond, const ex_rows_t *rows, uint32_t *t, uint32_t *nt,
                   uint32_t *rest, uint32_t *nrest);
/* Splits rows by whether v is NULL there (into nulls) or not (into vals). */
void ex_cond_split_null(const ty_vec_t *v, const ex_rows_t *rows, uint32_t *nulls, uint32_t *nnulls,
                        uint32_t *vals, uint32_t *nvals);
/* Sets which[row] = branch for each of the n rows in sel. */
void ex_cond_mark(uint8_t *which, const uint32_t *sel, uint32_t n, uint8_t branch);
/* Fills which[0..nrows) with EX_COND_NULL. */
void ex_cond_reset(uint8_t *which, uint32_t nrows);
/* out[i] = branches[which[i]][i] for the selected rows (NULL where which
 * is EX_COND_NULL). out is reset to rows->nrows slots. */
void ex_cond_gather(ty_vec_t *out, const ty_vec_t *const *branches, uint32_t nbranches,
                    const uint8_t *which, const ex_rows_t *rows);

#endif
