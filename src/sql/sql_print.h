/*
 * sql_print.h - the canonical text of syntax trees (layer 7, sql).
 *
 * Prints trees back as SQL in one canonical form: keywords in upper case,
 * every operator application in parentheses, joins and set operations
 * parenthesized, optional words normalized (INNER, OUTER, AS). Parsing the
 * printed text gives a tree that prints the same, which the tests and the
 * fuzzer check; so the form shows precedence and node shapes exactly.
 */
#ifndef FL_SQL_PRINT_H
#define FL_SQL_PRINT_H

#include "base/buf.h"
#include "sql/sql_ast.h"

void sql_print_stmt(const sql_stmt_t *s, fl_buf_t *out);
void sql_print_query(const sql_query_t *q, fl_buf_t *out);
void sql_print_expr(const sql_expr_t *e, fl_buf_t *out);
void sql_print_type(const sql_type_t *t, fl_buf_t *out);

/* The same into a NUL-terminated arena string. */
char *sql_stmt_text(fl_arena_t *a, const sql_stmt_t *s);

#endif
