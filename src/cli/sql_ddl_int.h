/*
 * sql_ddl_int.h - what the table-management statements of `floe sql`
 * share (layer 12, cli, private): ALTER TABLE (sql_alter.c, with
 * sql_alter_props.c for properties and partition fields and sql_refs.c for
 * branches and tags), its EXECUTE procedures (sql_execute.c), CALL
 * (sql_call.c) and SET SESSION (sql_set.c). Tables open through the session's catalog and close
 * with the statement's arena; errors carry "line L, column C: " and Trino's words where Trino has
 * them.
 */
#ifndef FL_CLI_SQL_DDL_INT_H
#define FL_CLI_SQL_DDL_INT_H

#include "cli/sql_exec.h"
#include "iceberg/ice_table.h"

/* Sets err to "line L, column C: " and the message; returns code. */
int sql__errp(fl_err_t *err, sql_pos_t pos, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Prefixes an error from a lower layer with the position (returns its code). */
int sql__errp_wrap(fl_err_t *err, sql_pos_t pos, int code);

/* ns and table name of a [catalog.]ns.table or table name (the session's
 * schema when none is given). */
void sql__table_ident(const sql_session_t *s, const sql_qname_t *q, const char **ns,
                      const char **name);
/* Opens a table (closed with a); FL_ENOTFOUND "Table 'ns.t' does not exist". */
int sql__ddl_open(const sql_session_t *s, fl_arena_t *a, const sql_qname_t *q, ice_table_t **out,
                  fl_err_t *err);

/* A result of nc columns and room for nrows rows (cells NULL). */
void sql__result_init(fl_arena_t *a, sql_result_t *res, const char *const *names,
                      const char *const *types, uint32_t nc, uint64_t nrows);
/* Trino's table-procedure output: rows of (metric_name varchar, metric_value bigint). */
void sql__result_metrics(fl_arena_t *a, sql_result_t *res, const char *const *names,
                         const uint64_t *values, size_t n);

/* The value of a session property (by its name without the catalog), or NULL. */
const char *sql__session_prop(const sql_session_t *s, const char *name);

/*
 * Trino's Duration ('7d', '1.5h', '30 s'; units ns us ms s m h d):
 * *ms is its length in milliseconds and canon its text as Trino prints
 * it ("7.00d"). Returns false when text is not a duration.
 */
bool sql__parse_duration(const char *text, size_t len, double *ms, char *canon, size_t cap);
/* Trino's DataSize ('128MB'; units B kB MB GB TB PB, powers of 1024). */
bool sql__parse_data_size(const char *text, size_t len, int64_t *bytes);

/*
 * Matches a call's arguments to the procedure's parameters, positional or
 * named (not both), as Trino does: vals[i] is the expression for params[i]
 * or NULL. Errors: Unknown argument name, Duplicate procedure argument,
 * Too many arguments for procedure, Named and positional arguments cannot
 * be mixed.
 */
int sql__bind_args(const sql_call_t *c, sql_pos_t pos, const char *const *params, size_t np,
                   const sql_expr_t **vals, sql_pos_t *val_pos, fl_err_t *err);
/* A literal argument's value ("Argument 'x' must be a varchar literal"). */
int sql__arg_string(const sql_expr_t *e, const char *param, fl_arena_t *a, const char **out,
                    fl_err_t *err);
int sql__arg_int(const sql_expr_t *e, const char *param, int64_t *out, fl_err_t *err);

/* text/len: the parsed text (the WHERE of EXECUTE optimize is read from it). */
int sql__exec_alter(sql_session_t *s, fl_arena_t *a, const char *text, size_t len,
                    const sql_stmt_t *st, sql_result_t *res, fl_err_t *err);
/* ALTER TABLE actions on the open table t (sql_alter_props.c, sql_refs.c). */
int sql__alter_properties(fl_arena_t *a, ice_table_t *t, const sql_alter_t *al, fl_err_t *err);
int sql__alter_partition_field(fl_arena_t *a, ice_table_t *t, const sql_alter_t *al, fl_err_t *err);
int sql__alter_create_ref(ice_table_t *t, const sql_alter_t *al, fl_err_t *err);
int sql__alter_drop_ref(ice_table_t *t, const sql_alter_t *al, fl_err_t *err);
/* COMMENT ON TABLE | COLUMN (sql_alter.c). */
int sql__exec_comment(sql_session_t *s, fl_arena_t *a, const sql_stmt_t *st, fl_err_t *err);
/* ALTER TABLE t EXECUTE proc(...) [WHERE ...] on the open table t. */
int sql__exec_table_procedure(sql_session_t *s, fl_arena_t *a, const char *text, size_t len,
                              const sql_stmt_t *st, ice_table_t *t, sql_result_t *res,
                              fl_err_t *err);
int sql__exec_call(sql_session_t *s, fl_arena_t *a, const sql_stmt_t *st, sql_result_t *res,
                   fl_err_t *err);
int sql__exec_set(sql_session_t *s, fl_arena_t *a, const sql_stmt_t *st, sql_result_t *res,
                  fl_err_t *err);

#endif
