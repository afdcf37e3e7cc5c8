/*
 * sql_parse_int.h - private interface between the parser's files
 * (layer 7, sql): the parser state over the token array, token helpers,
 * error reporting, the recursion guard, and the entry points each file
 * offers the others (expressions, queries, types, DDL, DML, statements).
 */
#ifndef FL_SQL_PARSE_INT_H
#define FL_SQL_PARSE_INT_H

#include <stdbool.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "sql/sql_ast.h"
#include "sql/sql_lex.h"
#include "sql/sql_parse.h"

typedef struct sql_parser {
  fl_arena_t *a;
  const char *src;
  size_t len;
  const sql_tok_t *toks;
  size_t ntok; /* the last token is SQL_T_EOF */
  size_t i;    /* current token */
  fl_err_t *err;
  size_t err_tok; /* token index of the recorded error, to keep the farthest one */
  int depth;
  int nparams;
  bool too_deep; /* the depth limit was hit: no alternative may be tried */
  /* Per token: a "( query )" attempt starting here already failed. Keeps
     nested "((SELECT ..." ambiguities from retrying work exponentially. */
  uint8_t *query_failed;
} sql_parser_t;

#define SQL_TRY(x)               \
  do {                           \
    int sql__rc = (x);           \
    if (sql__rc) return sql__rc; \
  } while (0)

#define SQL_NEW(p, T) ((T *)fl_arena_zalloc((p)->a, sizeof(T)))

/* ---- tokens ---- */

static inline const sql_tok_t *sql__tok(const sql_parser_t *p) { return &p->toks[p->i]; }
static inline const sql_tok_t *sql__peek(const sql_parser_t *p, size_t k) {
  size_t j = p->i + k;
  return &p->toks[j < p->ntok ? j : p->ntok - 1];
}
static inline bool sql__is(const sql_parser_t *p, sql_tok_kind_t kind) {
  return sql__tok(p)->kind == kind;
}
static inline bool sql__is_kw(const sql_parser_t *p, sql_kw_t kw) {
  return sql__tok(p)->kind == SQL_T_WORD && sql__tok(p)->kw == kw;
}
static inline bool sql__peek_kw(const sql_parser_t *p, size_t k, sql_kw_t kw) {
  const sql_tok_t *t = sql__peek(p, k);
  return t->kind == SQL_T_WORD && t->kw == kw;
}
static inline void sql__next(sql_parser_t *p) {
  if (p->i + 1 < p->ntok) p->i++;
}
static inline bool sql__accept(sql_parser_t *p, sql_tok_kind_t kind) {
  if (!sql__is(p, kind)) return false;
  sql__next(p);
  return true;
}
static inline bool sql__accept_kw(sql_parser_t *p, sql_kw_t kw) {
  if (!sql__is_kw(p, kw)) return false;
  sql__next(p);
  return true;
}
static inline sql_pos_t sql__pos(const sql_parser_t *p) { return sql__tok(p)->pos; }

/* An identifier can stand here: a non-reserved word or a quoted name. */
bool sql__at_ident(const sql_parser_t *p);
/* The word at token k (relative) is one of the given spelling, any case. */
bool sql__peek_word(const sql_parser_t *p, size_t k, const char *word);

/* ---- errors ---- */

/* Records "line L, column C: <fmt>" at the current token; returns FL_EPARSE. */
int sql__fail(sql_parser_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records "expected <what>, found <current token>". */
int sql__expected(sql_parser_t *p, const char *what);
int sql__expect(sql_parser_t *p, sql_tok_kind_t kind, const char *what);
int sql__expect_kw(sql_parser_t *p, sql_kw_t kw, const char *what);

/* Recursion guard: every recursive production enters and leaves. */
int sql__enter(sql_parser_t *p);
static inline void sql__leave(sql_parser_t *p) { p->depth--; }

/* Backtracking: a saved position to return to after a failed attempt. */
typedef struct sql_mark {
  size_t i;
  int nparams;
  int depth;
} sql_mark_t;
static inline sql_mark_t sql__mark(const sql_parser_t *p) {
  return (sql_mark_t){p->i, p->nparams, p->depth};
}
static inline void sql__reset(sql_parser_t *p, sql_mark_t m) {
  p->i = m.i;
  p->nparams = m.nparams;
  p->depth = m.depth;
}
/* Saves the recorded error (arena copy) so a second attempt may overwrite it. */
fl_err_t *sql__save_err(sql_parser_t *p, size_t *tok);
/* Whether a "( query )" attempt at the current token failed before; noting it. */
bool sql__query_failed_here(const sql_parser_t *p);
void sql__note_query_failed(sql_parser_t *p, size_t tok);
/* After two failed attempts, keeps whichever error lies farther on. */
int sql__farthest(sql_parser_t *p, fl_err_t *first, size_t first_tok);

/* ---- arrays ---- */

/* Makes room for one more element in an arena array (doubling). */
void *sql__grow(fl_arena_t *a, void *arr, size_t n, size_t *cap, size_t elem);
#define SQL_PUSH(p, arr, n, cap, item)                                              \
  do {                                                                              \
    if ((n) == (cap)) (arr) = sql__grow((p)->a, (arr), (n), &(cap), sizeof *(arr)); \
    (arr)[(n)++] = (item);                                                          \
  } while (0)

/* ---- names and literals ---- */

int sql__ident(sql_parser_t *p, sql_ident_t *out, const char *what);
int sql__qname(sql_parser_t *p, sql_qname_t *out, const char *what);
/* The name before '=>': any word, reserved ones too (CALL p(table => 't')). */
int sql__arg_name(sql_parser_t *p, sql_ident_t *out);
/* ( a, b, c ) */
int sql__ident_list_paren(sql_parser_t *p, sql_ident_list_t *out, const char *what);
/* A string literal's decoded bytes ('' unescaped, U&'..' decoded). */
int sql__string(sql_parser_t *p, const char **data, size_t *len, const char *what);
/* An integer literal that fits int64. */
int sql__int(sql_parser_t *p, int64_t *out, const char *what);
/* The current token's source text, shortened for messages. */
const char *sql__tok_text(sql_parser_t *p, const sql_tok_t *t);

/* ---- productions ---- */

int sql__expr(sql_parser_t *p, sql_expr_t **out);
/* An expression without a trailing predicate: BETWEEN bounds, LIKE patterns. */
int sql__value_expr(sql_parser_t *p, sql_expr_t **out);
int sql__expr_list(sql_parser_t *p, sql_expr_list_t *out); /* e, e, ... */
/* Call arguments after '(' up to and including ')': positional, name => v, lambdas. */
int sql__call_args(sql_parser_t *p, sql_call_t *c, bool allow_aggregate);
int sql__window_spec(sql_parser_t *p, sql_window_spec_t *out); /* after '(' up to ')' */
int sql__sort_list(sql_parser_t *p, sql_sort_list_t *out);     /* after ORDER BY */

/* A token sequence that starts a query: SELECT, WITH, VALUES, TABLE, or (. */
bool sql__at_query_keyword(const sql_parser_t *p, size_t k);
/* Skipping any run of '(', a query keyword follows. */
bool sql__at_paren_query(const sql_parser_t *p);
int sql__query(sql_parser_t *p, sql_query_t **out);
int sql__relation(sql_parser_t *p, sql_rel_t **out);
/* One table, subquery, UNNEST or table function with its alias; no joins. */
int sql__rel_primary(sql_parser_t *p, sql_rel_t **out);

int sql__type(sql_parser_t *p, sql_type_t **out);
/* The type a bare word names (for typed literals), or -1. */
int sql__type_word_kind(const sql_parser_t *p, const sql_tok_t *t);

int sql__properties(sql_parser_t *p, sql_prop_list_t *out); /* after WITH: ( k = v, ... ) */
int sql__stmt_create(sql_parser_t *p, sql_stmt_t *s);
int sql__stmt_drop(sql_parser_t *p, sql_stmt_t *s);
int sql__stmt_alter(sql_parser_t *p, sql_stmt_t *s);
int sql__stmt_comment(sql_parser_t *p, sql_stmt_t *s);
int sql__stmt_insert(sql_parser_t *p, sql_stmt_t *s);
int sql__stmt_delete(sql_parser_t *p, sql_stmt_t *s);
int sql__stmt_update(sql_parser_t *p, sql_stmt_t *s);
int sql__stmt_merge(sql_parser_t *p, sql_stmt_t *s);
int sql__stmt_truncate(sql_parser_t *p, sql_stmt_t *s);
int sql__statement(sql_parser_t *p, sql_stmt_t **out);

#endif
