/*
 * sql_parse.h - SQL text to syntax trees (layer 7, sql).
 *
 * The one parser behind `floe sql` (batch) and `floe run` (streaming jobs):
 * Trino's dialect plus Flink's streaming spellings (computed and metadata
 * columns, WATERMARK, windowing table functions, statement sets, SET 'k' =
 * 'v'). The trees live in the caller's arena. Errors are FL_EPARSE with a
 * message that starts "line L, column C: " and says what was expected and
 * what was found; the parser never crashes and bounds its recursion, so any
 * input is safe to pass. See docs/sql.md for the language.
 */
#ifndef FL_SQL_PARSE_H
#define FL_SQL_PARSE_H

#include "base/buf.h"
#include "sql/sql_ast.h"

/* How deep expressions, queries and types may nest before parsing fails. */
#define SQL_MAX_DEPTH 1000

/*
 * Parses exactly one statement (a trailing ';' is allowed) from text[0..len).
 * On success *out points into arena a.
 */
int sql_parse_statement(fl_arena_t *a, const char *text, size_t len, sql_stmt_t **out,
                        fl_err_t *err);

/*
 * Parses a script: statements separated by ';' (empty statements skipped),
 * including Flink statement sets. *out is an arena array of *n statements,
 * each with its own position and end offset into text.
 */
int sql_parse_script(fl_arena_t *a, const char *text, size_t len, sql_stmt_t ***out, size_t *n,
                     fl_err_t *err);

/* One statement's text in a script, as found by sql_split_script. */
typedef struct sql_piece {
  uint32_t off; /* byte offset of the statement's first token */
  uint32_t len; /* bytes up to the end of its last token (no ';') */
  sql_pos_t pos;
} sql_piece_t;

/*
 * Splits a script into statement texts without parsing them: ';' inside
 * strings, quoted names and comments does not split, and a statement set
 * (BEGIN STATEMENT SET; ... END; or EXECUTE STATEMENT SET BEGIN ... END) is
 * one piece. Fails only on lexical errors.
 */
int sql_split_script(fl_arena_t *a, const char *text, size_t len, sql_piece_t **out, size_t *n,
                     fl_err_t *err);

/* Parses one expression or one type on its own (whole text). */
int sql_parse_expression(fl_arena_t *a, const char *text, size_t len, sql_expr_t **out,
                         fl_err_t *err);
int sql_parse_type(fl_arena_t *a, const char *text, size_t len, sql_type_t **out, fl_err_t *err);

/* The line and column of a parse error (from its message); false if none. */
bool sql_error_pos(const fl_err_t *err, uint32_t *line, uint32_t *col);

/*
 * Appends the offending line of text and a caret under the error's column:
 *     SELECT a, FROM t
 *               ^
 * Appends nothing if err carries no position.
 */
void sql_error_caret(const char *text, size_t len, const fl_err_t *err, fl_buf_t *out);

#endif
