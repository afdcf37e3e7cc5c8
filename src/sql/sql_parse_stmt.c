/*
 * sql_parse_stmt.c - statements and scripts (layer 7, sql).
 *
 * The top of the parser: a table from a statement's first keyword to the
 * routine that parses it, the small statements (EXPLAIN, SHOW, DESCRIBE,
 * USE, SET, RESET, CALL), Flink statement sets, the public entry points for
 * one statement, a script, an expression or a type, and the script splitter.
 */
#include <stdio.h>

#include "sql/sql_parse_int.h"

static int statement_set_begin(sql_parser_t *p, sql_stmt_t *s);

static int stmt_query(sql_parser_t *p, sql_stmt_t *s) {
  s->kind = SQL_S_QUERY;
  return sql__query(p, &s->u.query);
}

static int stmt_call(sql_parser_t *p, sql_stmt_t *s) {
  sql__next(p); /* CALL */
  s->kind = SQL_S_CALL;
  s->u.call = SQL_NEW(p, sql_call_t);
  SQL_TRY(sql__qname(p, &s->u.call->name, "a procedure name after CALL"));
  SQL_TRY(sql__expect(p, SQL_T_LPAREN, "'(' after the procedure name"));
  return sql__call_args(p, s->u.call, false);
}

static int stmt_explain(sql_parser_t *p, sql_stmt_t *s) {
  sql__next(p); /* EXPLAIN */
  s->kind = SQL_S_EXPLAIN;
  if (sql__peek_word(p, 0, "plan") && sql__peek_kw(p, 1, SQL_KW_FOR)) { /* Flink */
    sql__next(p);
    sql__next(p);
  }
  s->u.explain.analyze = sql__accept_kw(p, SQL_KW_ANALYZE);
  if (sql__peek_word(p, 0, "verbose") && sql__peek(p, 1)->kind != SQL_T_EOF) {
    sql__next(p);
    s->u.explain.verbose = true;
  }
  SQL_TRY(sql__enter(p));
  if (sql__is_kw(p, SQL_KW_STATEMENT)) { /* Flink: EXPLAIN STATEMENT SET BEGIN ... END */
    sql_stmt_t *set = SQL_NEW(p, sql_stmt_t);
    set->pos = sql__pos(p);
    SQL_TRY(statement_set_begin(p, set));
    set->end = p->toks[p->i - 1].pos.off + p->toks[p->i - 1].len;
    set->nparams = p->nparams;
    s->u.explain.stmt = set;
  } else {
    SQL_TRY(sql__statement(p, &s->u.explain.stmt));
  }
  sql__leave(p);
  if (s->u.explain.stmt->kind == SQL_S_EXPLAIN)
    return sql__fail(p, "EXPLAIN cannot explain EXPLAIN");
  return FL_OK;
}

static int show_like(sql_parser_t *p, sql_stmt_t *s) {
  if (!sql__accept_kw(p, SQL_KW_LIKE)) return FL_OK;
  return sql__string(p, &s->u.show.like, &s->u.show.like_len, "a quoted pattern after LIKE");
}

static int stmt_show(sql_parser_t *p, sql_stmt_t *s) {
  sql__next(p); /* SHOW */
  s->kind = SQL_S_SHOW;
  if (sql__accept_kw(p, SQL_KW_SCHEMAS) || sql__accept_kw(p, SQL_KW_TABLES)) {
    s->u.show.kind = sql__tok(p)[-1].kw == SQL_KW_SCHEMAS ? SQL_SHOW_SCHEMAS : SQL_SHOW_TABLES;
    if (sql__accept_kw(p, SQL_KW_FROM) || sql__accept_kw(p, SQL_KW_IN))
      SQL_TRY(sql__qname(p, &s->u.show.from, "a name after FROM"));
    return show_like(p, s);
  }
  if (sql__accept_kw(p, SQL_KW_COLUMNS)) {
    s->u.show.kind = SQL_SHOW_COLUMNS;
    if (!sql__accept_kw(p, SQL_KW_FROM) && !sql__accept_kw(p, SQL_KW_IN))
      return sql__expected(p, "FROM after SHOW COLUMNS");
    return sql__qname(p, &s->u.show.from, "a table name");
  }
  if (sql__accept_kw(p, SQL_KW_CREATE)) {
    if (sql__accept_kw(p, SQL_KW_TABLE))
      s->u.show.kind = SQL_SHOW_CREATE_TABLE;
    else if (sql__accept_kw(p, SQL_KW_VIEW))
      s->u.show.kind = SQL_SHOW_CREATE_VIEW;
    else
      return sql__expected(p, "TABLE or VIEW after SHOW CREATE");
    return sql__qname(p, &s->u.show.from, "a name");
  }
  if (sql__peek_word(p, 0, "catalogs")) {
    sql__next(p);
    s->u.show.kind = SQL_SHOW_CATALOGS;
    return show_like(p, s);
  }
  if (sql__peek_word(p, 0, "functions")) {
    sql__next(p);
    s->u.show.kind = SQL_SHOW_FUNCTIONS;
    return show_like(p, s);
  }
  return sql__expected(p, "SCHEMAS, TABLES, COLUMNS, CREATE, CATALOGS or FUNCTIONS after SHOW");
}

static int stmt_describe(sql_parser_t *p, sql_stmt_t *s) {
  sql__next(p); /* DESCRIBE or DESC */
  s->kind = SQL_S_DESCRIBE;
  return sql__qname(p, &s->u.drop.name, "a table name after DESCRIBE");
}

static int stmt_use(sql_parser_t *p, sql_stmt_t *s) {
  sql__next(p); /* USE */
  s->kind = SQL_S_USE;
  return sql__qname(p, &s->u.drop.name, "a schema name after USE");
}

static bool at_stmt_end(const sql_parser_t *p) {
  return sql__is(p, SQL_T_EOF) || sql__is(p, SQL_T_SEMI) || sql__is_kw(p, SQL_KW_END);
}

/* The key of SET and RESET: 'quoted.key' or a dotted name. */
static int set_key(sql_parser_t *p, sql_stmt_t *s) {
  if (sql__is(p, SQL_T_STRING)) {
    SQL_TRY(sql__string(p, &s->u.set.key_string, &s->u.set.key_len, "a key"));
    if (s->u.set.key_len == 0) return sql__fail(p, "empty key in SET");
    return FL_OK;
  }
  /* Unquoted keys are dotted words, reserved ones too: table.exec.state.ttl. */
  size_t cap = 0;
  do {
    if (!sql__is(p, SQL_T_WORD) && !sql__is(p, SQL_T_QIDENT))
      return sql__expected(p, "a key, quoted ('key') or as a dotted name");
    sql_ident_t id;
    SQL_TRY(sql__arg_name(p, &id));
    SQL_PUSH(p, s->u.set.key.parts, s->u.set.key.n, cap, id);
  } while (sql__accept(p, SQL_T_DOT));
  return FL_OK;
}

static int stmt_set(sql_parser_t *p, sql_stmt_t *s) {
  sql__next(p); /* SET */
  s->kind = SQL_S_SET;
  if (at_stmt_end(p)) return FL_OK; /* Flink: SET lists all */
  if (sql__is_kw(p, SQL_KW_SESSION) && !(sql__peek(p, 1)->kind == SQL_T_EQ)) {
    sql__next(p);
    s->u.set.session = true;
  }
  SQL_TRY(set_key(p, s));
  SQL_TRY(sql__expect(p, SQL_T_EQ, "'=' after the key"));
  return sql__expr(p, &s->u.set.value);
}

static int stmt_reset(sql_parser_t *p, sql_stmt_t *s) {
  sql__next(p); /* RESET */
  s->kind = SQL_S_RESET;
  if (sql__is_kw(p, SQL_KW_SESSION) && !at_stmt_end(p) && sql__peek(p, 1)->kind != SQL_T_EOF &&
      sql__peek(p, 1)->kind != SQL_T_SEMI) {
    sql__next(p);
    s->u.set.session = true;
  }
  if (at_stmt_end(p)) return FL_OK;
  return set_key(p, s);
}

/* The statements between BEGIN and END of a statement set. */
static int statement_set_body(sql_parser_t *p, sql_stmt_t *s) {
  s->kind = SQL_S_STATEMENT_SET;
  size_t cap = 0;
  for (;;) {
    while (sql__accept(p, SQL_T_SEMI)) {
    }
    if (sql__accept_kw(p, SQL_KW_END)) break;
    if (sql__is(p, SQL_T_EOF)) return sql__expected(p, "END to close the statement set");
    if (!sql__is_kw(p, SQL_KW_INSERT))
      return sql__expected(p, "INSERT (a statement set holds only INSERT statements) or END");
    sql_stmt_t *inner;
    SQL_TRY(sql__statement(p, &inner));
    SQL_PUSH(p, s->u.statement_set.stmts, s->u.statement_set.n, cap, inner);
    if (!sql__is_kw(p, SQL_KW_END))
      SQL_TRY(sql__expect(p, SQL_T_SEMI, "';' or END after the INSERT statement"));
  }
  if (s->u.statement_set.n == 0) return sql__fail(p, "the statement set holds no INSERT statement");
  return FL_OK;
}

static int statement_set_begin(sql_parser_t *p, sql_stmt_t *s) {
  SQL_TRY(sql__expect_kw(p, SQL_KW_STATEMENT, "STATEMENT SET after EXECUTE"));
  SQL_TRY(sql__expect_kw(p, SQL_KW_SET, "SET after EXECUTE STATEMENT"));
  SQL_TRY(sql__expect_kw(p, SQL_KW_BEGIN, "BEGIN after EXECUTE STATEMENT SET"));
  return statement_set_body(p, s);
}

static int stmt_execute(sql_parser_t *p, sql_stmt_t *s) {
  sql__next(p); /* EXECUTE */
  return statement_set_begin(p, s);
}

static int stmt_begin(sql_parser_t *p, sql_stmt_t *s) {
  sql__next(p); /* BEGIN */
  SQL_TRY(sql__expect_kw(p, SQL_KW_STATEMENT, "STATEMENT SET after BEGIN"));
  SQL_TRY(sql__expect_kw(p, SQL_KW_SET, "SET after BEGIN STATEMENT"));
  s->u.statement_set.begin_form = true;
  if (!sql__is(p, SQL_T_SEMI)) return sql__expected(p, "';' after BEGIN STATEMENT SET");
  return statement_set_body(p, s);
}

typedef int (*stmt_fn)(sql_parser_t *p, sql_stmt_t *s);

static const struct {
  sql_kw_t kw;
  stmt_fn fn;
} stmt_table[] = {
    {SQL_KW_SELECT, stmt_query},
    {SQL_KW_WITH, stmt_query},
    {SQL_KW_VALUES, stmt_query},
    {SQL_KW_TABLE, stmt_query},
    {SQL_KW_CREATE, sql__stmt_create},
    {SQL_KW_DROP, sql__stmt_drop},
    {SQL_KW_ALTER, sql__stmt_alter},
    {SQL_KW_COMMENT, sql__stmt_comment},
    {SQL_KW_CALL, stmt_call},
    {SQL_KW_INSERT, sql__stmt_insert},
    {SQL_KW_DELETE, sql__stmt_delete},
    {SQL_KW_UPDATE, sql__stmt_update},
    {SQL_KW_MERGE, sql__stmt_merge},
    {SQL_KW_TRUNCATE, sql__stmt_truncate},
    {SQL_KW_EXPLAIN, stmt_explain},
    {SQL_KW_SHOW, stmt_show},
    {SQL_KW_DESCRIBE, stmt_describe},
    {SQL_KW_DESC, stmt_describe},
    {SQL_KW_USE, stmt_use},
    {SQL_KW_SET, stmt_set},
    {SQL_KW_RESET, stmt_reset},
    {SQL_KW_EXECUTE, stmt_execute},
    {SQL_KW_BEGIN, stmt_begin},
};

int sql__statement(sql_parser_t *p, sql_stmt_t **out) {
  sql_stmt_t *s = SQL_NEW(p, sql_stmt_t);
  s->pos = sql__pos(p);
  stmt_fn fn = NULL;
  if (sql__is(p, SQL_T_LPAREN)) {
    fn = stmt_query;
  } else if (sql__is(p, SQL_T_WORD)) {
    for (size_t k = 0; k < sizeof stmt_table / sizeof stmt_table[0]; k++)
      if (stmt_table[k].kw == sql__tok(p)->kw) fn = stmt_table[k].fn;
  }
  if (!fn) return sql__expected(p, "a statement (SELECT, INSERT, CREATE, ...)");
  SQL_TRY(fn(p, s));
  const sql_tok_t *last = p->i > 0 ? &p->toks[p->i - 1] : sql__tok(p);
  s->end = last->pos.off + last->len;
  s->nparams = p->nparams;
  *out = s;
  return FL_OK;
}

/* ---- entry points ---- */

static int start(sql_parser_t *p, fl_arena_t *a, const char *text, size_t len, fl_err_t *err) {
  sql_tok_t *toks;
  size_t n;
  fl_err_clear(err);
  *p = (sql_parser_t){.a = a, .src = text, .len = len, .err = err};
  SQL_TRY(sql_lex(a, text, len, &toks, &n, err));
  p->toks = toks;
  p->ntok = n;
  return FL_OK;
}

static int finish(sql_parser_t *p, fl_err_t *err, int rc) {
  if (rc && err && err->code == FL_OK)
    return fl_err_set(err, FL_EINTERNAL, "SQL parser failed without a message");
  return rc;
}

int sql_parse_statement(fl_arena_t *a, const char *text, size_t len, sql_stmt_t **out,
                        fl_err_t *err) {
  fl_err_t local;
  if (!err) err = &local;
  sql_parser_t p;
  SQL_TRY(start(&p, a, text, len, err));
  int rc = sql__statement(&p, out);
  if (!rc) {
    while (sql__accept(&p, SQL_T_SEMI)) {
    }
    if (!sql__is(&p, SQL_T_EOF))
      rc = sql__expected(&p, sql__is(&p, SQL_T_WORD) || sql__is(&p, SQL_T_QIDENT)
                                 ? "end of statement (is a ';' or ',' missing?)"
                                 : "end of statement");
  }
  return finish(&p, err, rc);
}

int sql_parse_script(fl_arena_t *a, const char *text, size_t len, sql_stmt_t ***out, size_t *n,
                     fl_err_t *err) {
  fl_err_t local;
  if (!err) err = &local;
  sql_parser_t p;
  SQL_TRY(start(&p, a, text, len, err));
  sql_stmt_t **stmts = NULL;
  size_t count = 0, cap = 0;
  int rc = FL_OK;
  for (;;) {
    while (sql__accept(&p, SQL_T_SEMI)) {
    }
    if (sql__is(&p, SQL_T_EOF)) break;
    sql_stmt_t *s;
    p.nparams = 0;
    rc = sql__statement(&p, &s);
    if (rc) break;
    SQL_PUSH(&p, stmts, count, cap, s);
    if (!sql__is(&p, SQL_T_EOF) && !sql__is(&p, SQL_T_SEMI)) {
      rc = sql__expected(&p, "';' between statements");
      break;
    }
  }
  if (rc) return finish(&p, err, rc);
  *out = stmts;
  *n = count;
  return FL_OK;
}

int sql_parse_expression(fl_arena_t *a, const char *text, size_t len, sql_expr_t **out,
                         fl_err_t *err) {
  fl_err_t local;
  if (!err) err = &local;
  sql_parser_t p;
  SQL_TRY(start(&p, a, text, len, err));
  int rc = sql__expr(&p, out);
  if (!rc && !sql__is(&p, SQL_T_EOF)) rc = sql__expected(&p, "end of expression");
  return finish(&p, err, rc);
}

int sql_parse_type(fl_arena_t *a, const char *text, size_t len, sql_type_t **out, fl_err_t *err) {
  fl_err_t local;
  if (!err) err = &local;
  sql_parser_t p;
  SQL_TRY(start(&p, a, text, len, err));
  int rc = sql__type(&p, out);
  if (!rc && !sql__is(&p, SQL_T_EOF)) rc = sql__expected(&p, "end of type");
  return finish(&p, err, rc);
}

/* ---- splitting ---- */

static bool word_is(const sql_tok_t *t, sql_kw_t kw) {
  return t->kind == SQL_T_WORD && t->kw == kw;
}

int sql_split_script(fl_arena_t *a, const char *text, size_t len, sql_piece_t **out, size_t *n,
                     fl_err_t *err) {
  sql_tok_t *toks;
  size_t ntok;
  SQL_TRY(sql_lex(a, text, len, &toks, &ntok, err));
  sql_piece_t *pieces = NULL;
  size_t count = 0, cap = 0;
  size_t i = 0;
  while (toks[i].kind != SQL_T_EOF) {
    if (toks[i].kind == SQL_T_SEMI) {
      i++;
      continue;
    }
    size_t first = i, last = i;
    /* BEGIN | EXECUTE | EXPLAIN [EXECUTE] STATEMENT SET opens a block. */
    size_t k = i + 1;
    if (word_is(&toks[i], SQL_KW_EXPLAIN) && word_is(&toks[k], SQL_KW_EXECUTE)) k++;
    bool block = (word_is(&toks[i], SQL_KW_BEGIN) || word_is(&toks[i], SQL_KW_EXECUTE) ||
                  word_is(&toks[i], SQL_KW_EXPLAIN)) &&
                 k + 1 < ntok && word_is(&toks[k], SQL_KW_STATEMENT) &&
                 word_is(&toks[k + 1], SQL_KW_SET);
    if (block) {
      /* Runs to the END that closes the set; CASE ... END pairs inside nest. */
      int cases = 0;
      while (toks[i].kind != SQL_T_EOF) {
        last = i;
        if (word_is(&toks[i], SQL_KW_CASE)) cases++;
        if (word_is(&toks[i], SQL_KW_END)) {
          if (cases == 0) {
            i++;
            break;
          }
          cases--;
        }
        i++;
      }
    } else {
      while (toks[i].kind != SQL_T_EOF && toks[i].kind != SQL_T_SEMI) last = i++;
    }
    if (count == cap) pieces = sql__grow(a, pieces, count, &cap, sizeof *pieces);
    pieces[count].off = toks[first].pos.off;
    pieces[count].len = toks[last].pos.off + toks[last].len - toks[first].pos.off;
    pieces[count].pos = toks[first].pos;
    count++;
  }
  *out = pieces;
  *n = count;
  return FL_OK;
}

/* ---- error display ---- */

bool sql_error_pos(const fl_err_t *err, uint32_t *line, uint32_t *col) {
  if (!err || err->code == FL_OK) return false;
  for (const char *s = strstr(err->msg, "line "); s; s = strstr(s + 1, "line ")) {
    unsigned l, c;
    if (sscanf(s, "line %u, column %u:", &l, &c) == 2 && l > 0 && c > 0) {
      *line = l;
      *col = c;
      return true;
    }
  }
  return false;
}

void sql_error_caret(const char *text, size_t len, const fl_err_t *err, fl_buf_t *out) {
  uint32_t line, col;
  if (!sql_error_pos(err, &line, &col)) return;
  size_t b = 0;
  for (uint32_t l = 1; l < line && b < len; b++)
    if (text[b] == '\n') l++;
  size_t e = b;
  while (e < len && text[e] != '\n' && text[e] != '\r') e++;
  fl_buf_append(out, text + b, e - b);
  fl_buf_append_u8(out, '\n');
  /* Walk the same characters the lexer counted, keeping tabs so the caret lines up. */
  uint32_t c = 1;
  for (size_t k = b; k < e && c < col; k++) {
    unsigned char ch = (unsigned char)text[k];
    if ((ch & 0xC0) == 0x80) continue;
    fl_buf_append_u8(out, ch == '\t' ? '\t' : ' ');
    c++;
  }
  while (c++ < col) fl_buf_append_u8(out, ' ');
  fl_buf_append_str(out, "^\n");
}
