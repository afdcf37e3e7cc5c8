/*
 * sql_parse_expr.c - expressions (layer 7, sql).
 *
 * Precedence, loosest first, as in Trino:
 *
 *   expr      := and { OR and }
 *   and       := not { AND not }
 *   not       := NOT not | predicate
 *   predicate := value { cmp value | cmp (ANY|SOME|ALL) (query)
 *                      | IS [NOT] NULL | IS [NOT] DISTINCT FROM value
 *                      | [NOT] BETWEEN value AND value | [NOT] IN (list | query)
 *                      | [NOT] LIKE value [ESCAPE value] }
 *   value     := additive { || additive }
 *   additive  := mult { (+ | -) mult }
 *   mult      := unary { (* | / | %) unary }
 *   unary     := (- | +) unary | zoned
 *   zoned     := postfix { AT TIME ZONE postfix | AT LOCAL }
 *   postfix   := primary { [ expr ] | . name }
 *
 * Left-associative chains are loops, but each step counts against the
 * recursion guard, so the height of the tree (which later passes walk
 * recursively) stays bounded however long the chain.
 */
#include <stdlib.h>
#include <strings.h>

#include "sql/sql_parse_int.h"

static sql_expr_t *new_expr(sql_parser_t *p, sql_expr_kind_t kind, sql_pos_t pos) {
  sql_expr_t *e = SQL_NEW(p, sql_expr_t);
  e->kind = kind;
  e->pos = pos;
  return e;
}

static sql_expr_t *new_bin(sql_parser_t *p, sql_binop_t op, sql_expr_t *l, sql_expr_t *r) {
  sql_expr_t *e = new_expr(p, SQL_E_BINARY_OP, l->pos);
  e->u.bin.op = op;
  e->u.bin.l = l;
  e->u.bin.r = r;
  return e;
}

static int and_expr(sql_parser_t *p, sql_expr_t **out);
static int not_expr(sql_parser_t *p, sql_expr_t **out);
static int predicate(sql_parser_t *p, sql_expr_t **out);
static int additive(sql_parser_t *p, sql_expr_t **out);
static int mult(sql_parser_t *p, sql_expr_t **out);
static int unary(sql_parser_t *p, sql_expr_t **out);
static int zoned(sql_parser_t *p, sql_expr_t **out);
static int postfix(sql_parser_t *p, sql_expr_t **out);
static int primary(sql_parser_t *p, sql_expr_t **out);

int sql__expr(sql_parser_t *p, sql_expr_t **out) {
  SQL_TRY(sql__enter(p));
  int base = p->depth;
  sql_expr_t *l;
  SQL_TRY(and_expr(p, &l));
  while (sql__is_kw(p, SQL_KW_OR)) {
    sql__next(p);
    SQL_TRY(sql__enter(p));
    sql_expr_t *r;
    SQL_TRY(and_expr(p, &r));
    l = new_bin(p, SQL_OP_OR, l, r);
  }
  p->depth = base - 1;
  *out = l;
  return FL_OK;
}

static int and_expr(sql_parser_t *p, sql_expr_t **out) {
  int base = p->depth;
  sql_expr_t *l;
  SQL_TRY(not_expr(p, &l));
  while (sql__is_kw(p, SQL_KW_AND)) {
    sql__next(p);
    SQL_TRY(sql__enter(p));
    sql_expr_t *r;
    SQL_TRY(not_expr(p, &r));
    l = new_bin(p, SQL_OP_AND, l, r);
  }
  p->depth = base;
  *out = l;
  return FL_OK;
}

static int not_expr(sql_parser_t *p, sql_expr_t **out) {
  if (sql__is_kw(p, SQL_KW_NOT)) {
    sql_pos_t pos = sql__pos(p);
    sql__next(p);
    SQL_TRY(sql__enter(p));
    sql_expr_t *arg;
    SQL_TRY(not_expr(p, &arg));
    sql__leave(p);
    sql_expr_t *e = new_expr(p, SQL_E_UNARY, pos);
    e->u.unary.op = SQL_UN_NOT;
    e->u.unary.arg = arg;
    *out = e;
    return FL_OK;
  }
  return predicate(p, out);
}

static bool cmp_op(const sql_parser_t *p, sql_binop_t *op) {
  switch ((sql_tok_kind_t)sql__tok(p)->kind) {
    case SQL_T_EQ: *op = SQL_OP_EQ; return true;
    case SQL_T_NE: *op = SQL_OP_NE; return true;
    case SQL_T_LT: *op = SQL_OP_LT; return true;
    case SQL_T_LE: *op = SQL_OP_LE; return true;
    case SQL_T_GT: *op = SQL_OP_GT; return true;
    case SQL_T_GE: *op = SQL_OP_GE; return true;
    default: return false;
  }
}

/*
 * At '(' where a query may follow: parses "( query )" if it is one. With a
 * query keyword right after '(' it must be; with more '(' first it may also
 * be an expression, so a failed attempt rewinds and sets *is_query false,
 * leaving the first error in *first_err for sql__farthest.
 */
static int paren_query(sql_parser_t *p, sql_query_t **q, bool *is_query, fl_err_t **first_err,
                       size_t *first_tok) {
  *is_query = false;
  *first_err = NULL;
  if (!sql__at_paren_query(p)) return FL_OK;
  if (sql__at_query_keyword(p, 1)) {
    sql__next(p);
    SQL_TRY(sql__query(p, q));
    SQL_TRY(sql__expect(p, SQL_T_RPAREN, "')' after the subquery"));
    *is_query = true;
    return FL_OK;
  }
  if (sql__query_failed_here(p)) return FL_OK;
  sql_mark_t m = sql__mark(p);
  sql__next(p);
  int rc = sql__query(p, q);
  if (!rc && sql__accept(p, SQL_T_RPAREN)) {
    *is_query = true;
    return FL_OK;
  }
  if (rc && p->too_deep) return rc;
  if (!rc) sql__expected(p, "')' after the subquery");
  *first_err = sql__save_err(p, first_tok);
  sql__reset(p, m);
  sql__note_query_failed(p, m.i);
  return FL_OK;
}

static int suffix_in(sql_parser_t *p, sql_expr_t *arg, bool negated, sql_expr_t **out) {
  sql_pos_t pos = arg->pos;
  if (!sql__is(p, SQL_T_LPAREN)) return sql__expected(p, "'(' after IN");
  sql_query_t *q;
  bool is_query;
  fl_err_t *first;
  size_t first_tok;
  SQL_TRY(paren_query(p, &q, &is_query, &first, &first_tok));
  if (is_query) {
    sql_expr_t *e = new_expr(p, SQL_E_IN_QUERY, pos);
    e->u.in_query.arg = arg;
    e->u.in_query.query = q;
    e->u.in_query.negated = negated;
    *out = e;
    return FL_OK;
  }
  sql__next(p); /* ( */
  sql_expr_t *e = new_expr(p, SQL_E_IN_LIST, pos);
  int rc = sql__expr_list(p, &e->u.in_list.list);
  if (!rc) rc = sql__expect(p, SQL_T_RPAREN, "',' or ')' in the IN list");
  if (rc) return first ? sql__farthest(p, first, first_tok) : rc;
  e->u.in_list.arg = arg;
  e->u.in_list.negated = negated;
  *out = e;
  return FL_OK;
}

static int predicate(sql_parser_t *p, sql_expr_t **out) {
  int base = p->depth;
  sql_expr_t *l;
  SQL_TRY(sql__value_expr(p, &l));
  for (;;) {
    sql_binop_t op;
    sql_pos_t pos = l->pos;
    if (cmp_op(p, &op)) {
      sql__next(p);
      SQL_TRY(sql__enter(p));
      if ((sql__is_kw(p, SQL_KW_ANY) || sql__is_kw(p, SQL_KW_SOME) || sql__is_kw(p, SQL_KW_ALL)) &&
          sql__peek(p, 1)->kind == SQL_T_LPAREN && sql__at_query_keyword(p, 2)) {
        sql_quantifier_t qf = sql__is_kw(p, SQL_KW_ANY)    ? SQL_Q_ANY
                              : sql__is_kw(p, SQL_KW_SOME) ? SQL_Q_SOME
                                                           : SQL_Q_ALL;
        sql__next(p);
        sql__next(p);
        sql_expr_t *e = new_expr(p, SQL_E_QUANTIFIED, pos);
        SQL_TRY(sql__query(p, &e->u.quant.query));
        SQL_TRY(sql__expect(p, SQL_T_RPAREN, "')' after the subquery"));
        e->u.quant.op = op;
        e->u.quant.q = qf;
        e->u.quant.arg = l;
        l = e;
        continue;
      }
      sql_expr_t *r;
      SQL_TRY(sql__value_expr(p, &r));
      l = new_bin(p, op, l, r);
      continue;
    }
    if (sql__is_kw(p, SQL_KW_IS)) {
      sql__next(p);
      SQL_TRY(sql__enter(p));
      bool neg = sql__accept_kw(p, SQL_KW_NOT);
      if (sql__accept_kw(p, SQL_KW_NULL)) {
        sql_expr_t *e = new_expr(p, SQL_E_IS_NULL, pos);
        e->u.is_null.arg = l;
        e->u.is_null.negated = neg;
        l = e;
        continue;
      }
      if (sql__accept_kw(p, SQL_KW_DISTINCT)) {
        SQL_TRY(sql__expect_kw(p, SQL_KW_FROM, "FROM after IS DISTINCT"));
        sql_expr_t *e = new_expr(p, SQL_E_IS_DISTINCT, pos);
        SQL_TRY(sql__value_expr(p, &e->u.is_distinct.r));
        e->u.is_distinct.l = l;
        e->u.is_distinct.negated = neg;
        l = e;
        continue;
      }
      return sql__expected(
          p, neg ? "NULL or DISTINCT FROM after IS NOT" : "NULL, NOT or DISTINCT FROM after IS");
    }
    bool neg = false;
    if (sql__is_kw(p, SQL_KW_NOT) &&
        (sql__peek_kw(p, 1, SQL_KW_BETWEEN) || sql__peek_kw(p, 1, SQL_KW_IN) ||
         sql__peek_kw(p, 1, SQL_KW_LIKE))) {
      sql__next(p);
      neg = true;
    }
    if (sql__accept_kw(p, SQL_KW_BETWEEN)) {
      SQL_TRY(sql__enter(p));
      sql_expr_t *e = new_expr(p, SQL_E_BETWEEN, pos);
      SQL_TRY(sql__value_expr(p, &e->u.between.lo));
      SQL_TRY(sql__expect_kw(p, SQL_KW_AND, "AND between the BETWEEN bounds"));
      SQL_TRY(sql__value_expr(p, &e->u.between.hi));
      e->u.between.arg = l;
      e->u.between.negated = neg;
      l = e;
      continue;
    }
    if (sql__accept_kw(p, SQL_KW_IN)) {
      SQL_TRY(sql__enter(p));
      SQL_TRY(suffix_in(p, l, neg, &l));
      continue;
    }
    if (sql__accept_kw(p, SQL_KW_LIKE)) {
      SQL_TRY(sql__enter(p));
      sql_expr_t *e = new_expr(p, SQL_E_LIKE, pos);
      SQL_TRY(sql__value_expr(p, &e->u.like.pattern));
      if (sql__accept_kw(p, SQL_KW_ESCAPE)) SQL_TRY(sql__value_expr(p, &e->u.like.escape));
      e->u.like.arg = l;
      e->u.like.negated = neg;
      l = e;
      continue;
    }
    break;
  }
  p->depth = base;
  *out = l;
  return FL_OK;
}

int sql__value_expr(sql_parser_t *p, sql_expr_t **out) {
  int base = p->depth;
  sql_expr_t *l;
  SQL_TRY(additive(p, &l));
  while (sql__is(p, SQL_T_CONCAT)) {
    sql__next(p);
    SQL_TRY(sql__enter(p));
    sql_expr_t *r;
    SQL_TRY(additive(p, &r));
    l = new_bin(p, SQL_OP_CONCAT, l, r);
  }
  p->depth = base;
  *out = l;
  return FL_OK;
}

static int additive(sql_parser_t *p, sql_expr_t **out) {
  int base = p->depth;
  sql_expr_t *l;
  SQL_TRY(mult(p, &l));
  while (sql__is(p, SQL_T_PLUS) || sql__is(p, SQL_T_MINUS)) {
    sql_binop_t op = sql__is(p, SQL_T_PLUS) ? SQL_OP_ADD : SQL_OP_SUB;
    sql__next(p);
    SQL_TRY(sql__enter(p));
    sql_expr_t *r;
    SQL_TRY(mult(p, &r));
    l = new_bin(p, op, l, r);
  }
  p->depth = base;
  *out = l;
  return FL_OK;
}

static int mult(sql_parser_t *p, sql_expr_t **out) {
  int base = p->depth;
  sql_expr_t *l;
  SQL_TRY(unary(p, &l));
  while (sql__is(p, SQL_T_STAR) || sql__is(p, SQL_T_SLASH) || sql__is(p, SQL_T_PERCENT)) {
    sql_binop_t op = sql__is(p, SQL_T_STAR)    ? SQL_OP_MUL
                     : sql__is(p, SQL_T_SLASH) ? SQL_OP_DIV
                                               : SQL_OP_MOD;
    sql__next(p);
    SQL_TRY(sql__enter(p));
    sql_expr_t *r;
    SQL_TRY(unary(p, &r));
    l = new_bin(p, op, l, r);
  }
  p->depth = base;
  *out = l;
  return FL_OK;
}

static int unary(sql_parser_t *p, sql_expr_t **out) {
  if (sql__is(p, SQL_T_MINUS) || sql__is(p, SQL_T_PLUS)) {
    sql_pos_t pos = sql__pos(p);
    sql_unop_t op = sql__is(p, SQL_T_MINUS) ? SQL_UN_NEG : SQL_UN_PLUS;
    sql__next(p);
    SQL_TRY(sql__enter(p));
    sql_expr_t *arg;
    SQL_TRY(unary(p, &arg));
    sql__leave(p);
    sql_expr_t *e = new_expr(p, SQL_E_UNARY, pos);
    e->u.unary.op = op;
    e->u.unary.arg = arg;
    *out = e;
    return FL_OK;
  }
  return zoned(p, out);
}

static int zoned(sql_parser_t *p, sql_expr_t **out) {
  int base = p->depth;
  sql_expr_t *l;
  SQL_TRY(postfix(p, &l));
  while (sql__is_kw(p, SQL_KW_AT) &&
         (sql__peek_kw(p, 1, SQL_KW_TIME) || sql__peek_kw(p, 1, SQL_KW_LOCAL))) {
    sql__next(p);
    SQL_TRY(sql__enter(p));
    sql_expr_t *e = new_expr(p, SQL_E_AT_TIME_ZONE, l->pos);
    e->u.at_tz.arg = l;
    if (!sql__accept_kw(p, SQL_KW_LOCAL)) {
      sql__next(p); /* TIME */
      SQL_TRY(sql__expect_kw(p, SQL_KW_ZONE, "ZONE after AT TIME"));
      SQL_TRY(postfix(p, &e->u.at_tz.zone));
    }
    l = e;
  }
  p->depth = base;
  *out = l;
  return FL_OK;
}

static int postfix(sql_parser_t *p, sql_expr_t **out) {
  int base = p->depth;
  sql_expr_t *l;
  SQL_TRY(primary(p, &l));
  for (;;) {
    if (sql__is(p, SQL_T_LBRACKET)) {
      sql__next(p);
      SQL_TRY(sql__enter(p));
      sql_expr_t *e = new_expr(p, SQL_E_SUBSCRIPT, l->pos);
      e->u.subscript.base = l;
      SQL_TRY(sql__expr(p, &e->u.subscript.index));
      SQL_TRY(sql__expect(p, SQL_T_RBRACKET, "']' after the subscript"));
      l = e;
      continue;
    }
    /* A bare a.b.c stays one name; (a.b).c and f(x).c are field accesses. */
    if (sql__is(p, SQL_T_DOT) &&
        (l->kind != SQL_E_COLUMN || p->toks[p->i - 1].kind == SQL_T_RPAREN)) {
      if (sql__peek(p, 1)->kind == SQL_T_STAR) break; /* (row).* is a select item */
      sql__next(p);
      SQL_TRY(sql__enter(p));
      sql_expr_t *e = new_expr(p, SQL_E_DEREF, l->pos);
      e->u.deref.base = l;
      SQL_TRY(sql__ident(p, &e->u.deref.field, "a field name after '.'"));
      l = e;
      continue;
    }
    break;
  }
  p->depth = base;
  *out = l;
  return FL_OK;
}

/* ---- primaries ---- */

static int literal_int(sql_parser_t *p, sql_expr_t **out) {
  const sql_tok_t *t = sql__tok(p);
  const char *s = p->src + t->pos.off;
  uint64_t v = 0;
  bool big = false;
  for (size_t k = 0; k < t->len && !big; k++) {
    uint64_t d = (uint64_t)(s[k] - '0');
    if (v > ((uint64_t)INT64_MAX - d) / 10)
      big = true;
    else
      v = v * 10 + d;
  }
  sql_expr_t *e = new_expr(p, big ? SQL_E_DECIMAL : SQL_E_INT, t->pos);
  char *text = fl_arena_strndup(p->a, s, t->len);
  if (big) {
    e->u.num.text = text;
  } else {
    e->u.i.value = (int64_t)v;
    e->u.i.text = text;
  }
  sql__next(p);
  *out = e;
  return FL_OK;
}

static int literal_binary(sql_parser_t *p, sql_expr_t **out) {
  const sql_tok_t *t = sql__tok(p);
  const char *s = p->src + t->pos.off + 2;
  size_t n = t->len - 3;
  char *o = fl_arena_alloc(p->a, n / 2 + 1);
  size_t m = 0;
  int hi = -1;
  for (size_t k = 0; k < n; k++) {
    char c = s[k];
    if (c == ' ') continue;
    int v = (c >= '0' && c <= '9') ? c - '0' : (c | 0x20) - 'a' + 10;
    if (hi < 0) {
      hi = v;
    } else {
      o[m++] = (char)(hi * 16 + v);
      hi = -1;
    }
  }
  sql_expr_t *e = new_expr(p, SQL_E_BINARY, t->pos);
  e->u.str.data = o;
  e->u.str.len = m;
  sql__next(p);
  *out = e;
  return FL_OK;
}

static bool interval_field(sql_parser_t *p, sql_field_t *f) {
  const sql_tok_t *t = sql__tok(p);
  if (t->kind != SQL_T_WORD) return false;
  /* Flink writes plurals: INTERVAL '10' MINUTES. */
  static const struct {
    const char *word;
    sql_field_t field;
  } plurals[] = {{"years", SQL_F_YEAR}, {"months", SQL_F_MONTH},   {"days", SQL_F_DAY},
                 {"hours", SQL_F_HOUR}, {"minutes", SQL_F_MINUTE}, {"seconds", SQL_F_SECOND}};
  for (size_t k = 0; k < sizeof plurals / sizeof plurals[0]; k++)
    if (sql__peek_word(p, 0, plurals[k].word)) {
      *f = plurals[k].field;
      return true;
    }
  switch (t->kw) {
    case SQL_KW_YEAR: *f = SQL_F_YEAR; return true;
    case SQL_KW_MONTH: *f = SQL_F_MONTH; return true;
    case SQL_KW_DAY: *f = SQL_F_DAY; return true;
    case SQL_KW_HOUR: *f = SQL_F_HOUR; return true;
    case SQL_KW_MINUTE: *f = SQL_F_MINUTE; return true;
    case SQL_KW_SECOND: *f = SQL_F_SECOND; return true;
    default: return false;
  }
}

static int literal_interval(sql_parser_t *p, sql_expr_t **out) {
  sql_expr_t *e = new_expr(p, SQL_E_INTERVAL, sql__pos(p));
  sql__next(p); /* INTERVAL */
  if (sql__accept(p, SQL_T_MINUS))
    e->u.interval.negative = true;
  else
    sql__accept(p, SQL_T_PLUS);
  SQL_TRY(sql__string(p, &e->u.interval.data, &e->u.interval.len,
                      "a quoted interval value after INTERVAL, as in INTERVAL '5' SECOND"));
  if (!interval_field(p, &e->u.interval.from))
    return sql__expected(p, "an interval field (YEAR, MONTH, DAY, HOUR, MINUTE or SECOND)");
  sql__next(p);
  if (sql__accept_kw(p, SQL_KW_TO)) {
    if (!interval_field(p, &e->u.interval.to))
      return sql__expected(p, "an interval field after TO");
    sql__next(p);
    if (e->u.interval.to <= e->u.interval.from)
      return sql__fail(p, "interval field after TO must be smaller than %s",
                       sql_field_name(e->u.interval.from));
  }
  *out = e;
  return FL_OK;
}

static int case_expr(sql_parser_t *p, sql_expr_t **out) {
  sql_expr_t *e = new_expr(p, SQL_E_CASE, sql__pos(p));
  sql__next(p); /* CASE */
  if (!sql__is_kw(p, SQL_KW_WHEN)) SQL_TRY(sql__expr(p, &e->u.case_.operand));
  sql_case_when_t *whens = NULL;
  size_t n = 0, cap = 0;
  while (sql__accept_kw(p, SQL_KW_WHEN)) {
    sql_case_when_t w;
    SQL_TRY(sql__expr(p, &w.when));
    SQL_TRY(sql__expect_kw(p, SQL_KW_THEN, "THEN after the WHEN condition"));
    SQL_TRY(sql__expr(p, &w.then));
    SQL_PUSH(p, whens, n, cap, w);
  }
  if (n == 0) return sql__expected(p, "WHEN in CASE");
  if (sql__accept_kw(p, SQL_KW_ELSE)) SQL_TRY(sql__expr(p, &e->u.case_.else_));
  SQL_TRY(sql__expect_kw(p, SQL_KW_END, "WHEN, ELSE or END in CASE"));
  e->u.case_.whens = whens;
  e->u.case_.nwhens = n;
  *out = e;
  return FL_OK;
}

static int cast_expr(sql_parser_t *p, sql_expr_t **out) {
  sql_expr_t *e = new_expr(p, SQL_E_CAST, sql__pos(p));
  e->u.cast.try_ = sql__is_kw(p, SQL_KW_TRY_CAST);
  sql__next(p);
  SQL_TRY(sql__expect(p, SQL_T_LPAREN, e->u.cast.try_ ? "'(' after TRY_CAST" : "'(' after CAST"));
  SQL_TRY(sql__expr(p, &e->u.cast.arg));
  SQL_TRY(sql__expect_kw(p, SQL_KW_AS, "AS in CAST(value AS type)"));
  SQL_TRY(sql__type(p, &e->u.cast.type));
  SQL_TRY(sql__expect(p, SQL_T_RPAREN, "')' after the CAST type"));
  *out = e;
  return FL_OK;
}

static int extract_expr(sql_parser_t *p, sql_expr_t **out) {
  sql_expr_t *e = new_expr(p, SQL_E_EXTRACT, sql__pos(p));
  sql__next(p);
  SQL_TRY(sql__expect(p, SQL_T_LPAREN, "'(' after EXTRACT"));
  const sql_tok_t *t = sql__tok(p);
  if (t->kind != SQL_T_WORD) return sql__expected(p, "a field name such as YEAR in EXTRACT");
  e->u.extract.field = sql_field_lookup(p->src + t->pos.off, t->len);
  if (e->u.extract.field == SQL_F_NONE)
    return sql__fail(p, "unknown EXTRACT field %s", sql__tok_text(p, t));
  sql__next(p);
  SQL_TRY(sql__expect_kw(p, SQL_KW_FROM, "FROM in EXTRACT(field FROM value)"));
  SQL_TRY(sql__expr(p, &e->u.extract.arg));
  SQL_TRY(sql__expect(p, SQL_T_RPAREN, "')' after EXTRACT"));
  *out = e;
  return FL_OK;
}

static int current_expr(sql_parser_t *p, sql_expr_t **out) {
  sql_expr_t *e = new_expr(p, SQL_E_CURRENT, sql__pos(p));
  e->u.current.which = (sql_kw_t)sql__tok(p)->kw;
  e->u.current.precision = -1;
  sql__next(p);
  if (e->u.current.which != SQL_KW_CURRENT_DATE && sql__accept(p, SQL_T_LPAREN)) {
    int64_t prec;
    SQL_TRY(sql__int(p, &prec, "a precision"));
    if (prec > 12) return sql__fail(p, "precision %lld is above 12", (long long)prec);
    e->u.current.precision = (int)prec;
    SQL_TRY(sql__expect(p, SQL_T_RPAREN, "')' after the precision"));
  }
  *out = e;
  return FL_OK;
}

/* The rest of a call after its name: ( args ) [FILTER (WHERE e)] [OVER ...]. */
static void set_args(sql_parser_t *p, sql_call_t *c, sql_expr_t **args, size_t n) {
  c->args.items = fl_arena_memdup(p->a, args, n * sizeof *args);
  c->args.n = n;
}

/*
 * The standard's keyword-argument forms, after '(' of a one-part name, as
 * ordinary calls: position(a IN b) -> position(a, b), substring(s FROM i
 * [FOR n]) -> substring(s, i, n), trim([BOTH | LEADING | TRAILING] [c] FROM
 * s) -> trim / ltrim / rtrim(s [, c]). Sets *done if the form was there.
 */
static int keyword_args(sql_parser_t *p, sql_call_t *c, bool *done) {
  *done = false;
  if (c->name.n != 1 || c->name.parts[0].quoted) return FL_OK;
  const char *fn = c->name.parts[0].name;
  sql_expr_t *args[3];
  if (strcmp(fn, "trim") == 0) {
    const char *side = NULL;
    sql_tok_kind_t after = (sql_tok_kind_t)sql__peek(p, 1)->kind;
    if (after != SQL_T_RPAREN && after != SQL_T_COMMA) { /* trim(both) names a column */
      if (sql__peek_word(p, 0, "both")) side = "trim";
      if (sql__peek_word(p, 0, "leading")) side = "ltrim";
      if (sql__peek_word(p, 0, "trailing")) side = "rtrim";
    }
    if (side) sql__next(p);
    size_t n = 0;
    if (!sql__is_kw(p, SQL_KW_FROM)) {
      sql_mark_t m = sql__mark(p);
      SQL_TRY(sql__value_expr(p, &args[1]));
      if (!sql__is_kw(p, SQL_KW_FROM)) {
        if (side) return sql__expected(p, "FROM in TRIM(... FROM string)");
        sql__reset(p, m); /* an ordinary trim(s, ...) */
        return FL_OK;
      }
      n = 1;
    } else if (!side) {
      return FL_OK;
    }
    SQL_TRY(sql__expect_kw(p, SQL_KW_FROM, "FROM in TRIM(... FROM string)"));
    SQL_TRY(sql__value_expr(p, &args[0]));
    SQL_TRY(sql__expect(p, SQL_T_RPAREN, "')' after TRIM(... FROM string)"));
    c->name.parts = fl_arena_memdup(p->a, c->name.parts, sizeof *c->name.parts);
    c->name.parts[0].name = side ? side : "trim";
    set_args(p, c, args, n + 1);
    *done = true;
    return FL_OK;
  }
  bool position = strcmp(fn, "position") == 0, substring = strcmp(fn, "substring") == 0;
  if (!position && !substring) return FL_OK;
  sql_mark_t m = sql__mark(p);
  if (sql__value_expr(p, &args[0]) != FL_OK || !sql__is_kw(p, position ? SQL_KW_IN : SQL_KW_FROM)) {
    sql__reset(p, m);
    return FL_OK;
  }
  sql__next(p);
  SQL_TRY(sql__value_expr(p, &args[1]));
  size_t n = 2;
  if (substring && sql__accept_kw(p, SQL_KW_FOR)) SQL_TRY(sql__value_expr(p, &args[n++]));
  SQL_TRY(sql__expect(
      p, SQL_T_RPAREN,
      position ? "')' after POSITION(a IN b)" : "FOR or ')' in SUBSTRING(s FROM i FOR n)"));
  set_args(p, c, args, n);
  *done = true;
  return FL_OK;
}

static int call_rest(sql_parser_t *p, sql_qname_t name, sql_pos_t pos, sql_expr_t **out) {
  sql_expr_t *e = new_expr(p, SQL_E_CALL, pos);
  sql_call_t *c = &e->u.call;
  c->name = name;
  sql__next(p); /* ( */
  bool done;
  SQL_TRY(keyword_args(p, c, &done));
  if (!done) SQL_TRY(sql__call_args(p, c, true));
  if ((sql__peek_word(p, 0, "ignore") || sql__peek_word(p, 0, "respect")) &&
      sql__peek_kw(p, 1, SQL_KW_NULLS)) {
    c->nulls_treatment = sql__peek_word(p, 0, "ignore") ? -1 : 1;
    sql__next(p);
    sql__next(p);
  }
  if (sql__is_kw(p, SQL_KW_FILTER) && sql__peek(p, 1)->kind == SQL_T_LPAREN) {
    sql__next(p);
    sql__next(p);
    SQL_TRY(sql__expect_kw(p, SQL_KW_WHERE, "WHERE in FILTER (WHERE ...)"));
    SQL_TRY(sql__expr(p, &c->filter));
    SQL_TRY(sql__expect(p, SQL_T_RPAREN, "')' after the FILTER condition"));
  }
  if (sql__accept_kw(p, SQL_KW_OVER)) {
    if (sql__accept(p, SQL_T_LPAREN)) {
      c->over = SQL_NEW(p, sql_window_spec_t);
      SQL_TRY(sql__window_spec(p, c->over));
    } else {
      SQL_TRY(sql__ident(p, &c->over_name, "'(' or a window name after OVER"));
    }
  }
  *out = e;
  return FL_OK;
}

/* At '(' inside call arguments: ( a, b ) -> ... is a lambda's parameter list. */
static bool at_lambda_params(const sql_parser_t *p) {
  size_t k = 1;
  for (;;) {
    const sql_tok_t *t = sql__peek(p, k);
    if (t->kind != SQL_T_WORD && t->kind != SQL_T_QIDENT) return false;
    t = sql__peek(p, ++k);
    if (t->kind == SQL_T_RPAREN) return sql__peek(p, k + 1)->kind == SQL_T_ARROW;
    if (t->kind != SQL_T_COMMA) return false;
    k++;
  }
}

static int lambda(sql_parser_t *p, sql_expr_t **out) {
  sql_expr_t *e = new_expr(p, SQL_E_LAMBDA, sql__pos(p));
  if (sql__is(p, SQL_T_LPAREN)) {
    SQL_TRY(sql__ident_list_paren(p, &e->u.lambda.params, "a lambda parameter"));
  } else {
    sql_ident_t *id = SQL_NEW(p, sql_ident_t);
    SQL_TRY(sql__ident(p, id, "a lambda parameter"));
    e->u.lambda.params.items = id;
    e->u.lambda.params.n = 1;
  }
  SQL_TRY(sql__expect(p, SQL_T_ARROW, "'->' after the lambda parameters"));
  SQL_TRY(sql__expr(p, &e->u.lambda.body));
  *out = e;
  return FL_OK;
}

int sql__call_args(sql_parser_t *p, sql_call_t *c, bool allow_aggregate) {
  if (sql__accept(p, SQL_T_RPAREN)) return FL_OK;
  if (allow_aggregate && sql__is(p, SQL_T_STAR) && sql__peek(p, 1)->kind == SQL_T_RPAREN) {
    sql__next(p);
    sql__next(p);
    c->star = true;
    return FL_OK;
  }
  if (allow_aggregate) {
    if (sql__accept_kw(p, SQL_KW_DISTINCT))
      c->distinct = true;
    else if (sql__peek(p, 1)->kind != SQL_T_RPAREN && sql__peek(p, 1)->kind != SQL_T_COMMA)
      sql__accept_kw(p, SQL_KW_ALL);
  }
  sql_expr_t **args = NULL;
  sql_ident_t *names = NULL;
  size_t n = 0, cap = 0, ncap = 0, nn = 0;
  bool any_named = false;
  do {
    sql_ident_t name = {0};
    if ((sql__is(p, SQL_T_WORD) || sql__is(p, SQL_T_QIDENT)) &&
        sql__peek(p, 1)->kind == SQL_T_NAMEDARG) {
      SQL_TRY(sql__arg_name(p, &name));
      sql__next(p); /* => */
      any_named = true;
    } else if (any_named) {
      return sql__fail(p, "positional argument after a named one (name => value)");
    }
    sql_expr_t *arg;
    if (((sql__is(p, SQL_T_WORD) || sql__is(p, SQL_T_QIDENT)) &&
         sql__peek(p, 1)->kind == SQL_T_ARROW) ||
        (sql__is(p, SQL_T_LPAREN) && at_lambda_params(p))) {
      SQL_TRY(lambda(p, &arg));
    } else {
      SQL_TRY(sql__expr(p, &arg));
    }
    SQL_PUSH(p, args, n, cap, arg);
    SQL_PUSH(p, names, nn, ncap, name);
  } while (sql__accept(p, SQL_T_COMMA));
  if (allow_aggregate && sql__is_kw(p, SQL_KW_ORDER)) {
    sql__next(p);
    SQL_TRY(sql__expect_kw(p, SQL_KW_BY, "BY after ORDER"));
    SQL_TRY(sql__sort_list(p, &c->order_by));
  }
  SQL_TRY(sql__expect(p, SQL_T_RPAREN, "',' or ')' after the argument list"));
  c->args.items = args;
  c->args.n = n;
  c->arg_names = any_named ? names : NULL;
  return FL_OK;
}

static int paren_primary(sql_parser_t *p, sql_expr_t **out) {
  sql_pos_t pos = sql__pos(p);
  sql_query_t *q;
  bool is_query;
  fl_err_t *first;
  size_t first_tok;
  SQL_TRY(paren_query(p, &q, &is_query, &first, &first_tok));
  if (is_query) {
    sql_expr_t *e = new_expr(p, SQL_E_SUBQUERY, pos);
    e->u.query = q;
    *out = e;
    return FL_OK;
  }
  sql__next(p); /* ( */
  sql_expr_t *e;
  int rc = sql__expr(p, &e);
  if (!rc && sql__is(p, SQL_T_COMMA)) {
    sql_expr_t *row = new_expr(p, SQL_E_ROW, pos);
    row->u.row.implicit = true;
    sql_expr_t **items = NULL;
    size_t n = 0, cap = 0;
    SQL_PUSH(p, items, n, cap, e);
    while (!rc && sql__accept(p, SQL_T_COMMA)) {
      rc = sql__expr(p, &e);
      if (!rc) SQL_PUSH(p, items, n, cap, e);
    }
    row->u.row.items.items = items;
    row->u.row.items.n = n;
    e = row;
  }
  if (!rc) rc = sql__expect(p, SQL_T_RPAREN, "')'");
  if (rc) return first ? sql__farthest(p, first, first_tok) : rc;
  *out = e;
  return FL_OK;
}

/* ARRAY[...] and ROW(...): the opener is the current token. */
static int constructor(sql_parser_t *p, sql_expr_kind_t kind, sql_tok_kind_t close,
                       sql_expr_t **out) {
  sql_expr_t *e = new_expr(p, kind, sql__pos(p));
  sql__next(p); /* ARRAY or ROW */
  sql__next(p); /* [ or ( */
  if (!sql__accept(p, close)) {
    SQL_TRY(sql__expr_list(p, &e->u.row.items));
    SQL_TRY(sql__expect(
        p, close, close == SQL_T_RBRACKET ? "',' or ']' in ARRAY[...]" : "',' or ')' in ROW(...)"));
  }
  *out = e;
  return FL_OK;
}

static int word_primary(sql_parser_t *p, sql_expr_t **out) {
  const sql_tok_t *t = sql__tok(p);
  sql_pos_t pos = t->pos;
  const sql_tok_t *t1 = sql__peek(p, 1);
  switch (t->kw) {
    case SQL_KW_TRUE:
    case SQL_KW_FALSE: {
      sql_expr_t *e = new_expr(p, SQL_E_BOOL, pos);
      e->u.b = t->kw == SQL_KW_TRUE;
      sql__next(p);
      *out = e;
      return FL_OK;
    }
    case SQL_KW_NULL:
      sql__next(p);
      *out = new_expr(p, SQL_E_NULL, pos);
      return FL_OK;
    case SQL_KW_CASE: return case_expr(p, out);
    case SQL_KW_CAST:
    case SQL_KW_TRY_CAST:
      if (t1->kind == SQL_T_LPAREN) return cast_expr(p, out);
      break;
    case SQL_KW_EXTRACT: return extract_expr(p, out);
    case SQL_KW_CURRENT_DATE:
    case SQL_KW_CURRENT_TIME:
    case SQL_KW_CURRENT_TIMESTAMP:
    case SQL_KW_LOCALTIME:
    case SQL_KW_LOCALTIMESTAMP: return current_expr(p, out);
    case SQL_KW_EXISTS: {
      sql__next(p);
      if (!sql__is(p, SQL_T_LPAREN) || !sql__at_paren_query(p))
        return sql__expected(p, "a parenthesized query after EXISTS");
      sql_query_t *q;
      bool is_query;
      fl_err_t *first;
      size_t first_tok;
      SQL_TRY(paren_query(p, &q, &is_query, &first, &first_tok));
      if (!is_query) {
        memcpy(p->err, first, sizeof *first);
        return first->code;
      }
      sql_expr_t *e = new_expr(p, SQL_E_EXISTS, pos);
      e->u.query = q;
      *out = e;
      return FL_OK;
    }
    case SQL_KW_INTERVAL:
      if (t1->kind == SQL_T_STRING || t1->kind == SQL_T_USTRING ||
          ((t1->kind == SQL_T_MINUS || t1->kind == SQL_T_PLUS) &&
           sql__peek(p, 2)->kind == SQL_T_STRING))
        return literal_interval(p, out);
      break;
    case SQL_KW_ARRAY:
      if (t1->kind == SQL_T_LBRACKET) return constructor(p, SQL_E_ARRAY, SQL_T_RBRACKET, out);
      break;
    case SQL_KW_ROW:
      if (t1->kind == SQL_T_LPAREN) return constructor(p, SQL_E_ROW, SQL_T_RPAREN, out);
      break;
    case SQL_KW_GROUPING:
      if (t1->kind == SQL_T_LPAREN) {
        sql_ident_t *id = SQL_NEW(p, sql_ident_t);
        *id = (sql_ident_t){"grouping", false, pos};
        sql__next(p);
        return call_rest(p, (sql_qname_t){id, 1}, pos, out);
      }
      break;
    default: break;
  }
  if (t1->kind == SQL_T_STRING) {
    int kind = sql__type_word_kind(p, t);
    if (kind >= 0) {
      sql_expr_t *e = new_expr(p, SQL_E_TYPED, pos);
      sql_type_t *ty = SQL_NEW(p, sql_type_t);
      ty->kind = (sql_type_kind_t)kind;
      ty->pos = pos;
      e->u.typed.type = ty;
      sql__next(p);
      SQL_TRY(sql__string(p, &e->u.typed.data, &e->u.typed.len, "a string"));
      *out = e;
      return FL_OK;
    }
  }
  if (!sql__at_ident(p)) return sql__expected(p, "an expression");
  sql_qname_t name;
  SQL_TRY(sql__qname(p, &name, "a name"));
  if (sql__is(p, SQL_T_LPAREN)) return call_rest(p, name, pos, out);
  sql_expr_t *e = new_expr(p, SQL_E_COLUMN, pos);
  e->u.column = name;
  *out = e;
  return FL_OK;
}

/* {'k': v, ...}: DuckDB's struct literal, the same as struct_pack(k => v,
 * ...); keys are strings or names. */
static int struct_literal(sql_parser_t *p, sql_expr_t **out) {
  sql_expr_t *e = new_expr(p, SQL_E_CALL, sql__pos(p));
  sql__next(p); /* { */
  sql_ident_t *fn = SQL_NEW(p, sql_ident_t);
  *fn = (sql_ident_t){"struct_pack", false, e->pos};
  sql_call_t *c = &e->u.call;
  c->name = (sql_qname_t){fn, 1};
  sql_expr_t **args = NULL;
  sql_ident_t *names = NULL;
  size_t n = 0, cap = 0, nn = 0, ncap = 0;
  if (!sql__accept(p, SQL_T_RBRACE)) {
    do {
      sql_ident_t name = {0};
      const sql_tok_t *t = sql__tok(p);
      if (t->kind == SQL_T_STRING) {
        const char *data;
        size_t len;
        name.pos = t->pos;
        SQL_TRY(sql__string(p, &data, &len, "a key"));
        if (memchr(data, 0, len)) return sql__fail(p, "a struct key may not hold a NUL byte");
        name.name = fl_arena_strndup(p->a, data, len);
        name.quoted = true;
      } else {
        SQL_TRY(sql__ident(p, &name, "a key (a string or a name) in {...}"));
      }
      SQL_TRY(sql__expect(p, SQL_T_COLON, "':' after the key in {...}"));
      sql_expr_t *v;
      SQL_TRY(sql__expr(p, &v));
      SQL_PUSH(p, args, n, cap, v);
      SQL_PUSH(p, names, nn, ncap, name);
    } while (sql__accept(p, SQL_T_COMMA));
    SQL_TRY(sql__expect(p, SQL_T_RBRACE, "',' or '}' in {...}"));
  }
  c->args.items = args;
  c->args.n = n;
  c->arg_names = n ? names : NULL;
  *out = e;
  return FL_OK;
}

static int primary(sql_parser_t *p, sql_expr_t **out) {
  const sql_tok_t *t = sql__tok(p);
  switch ((sql_tok_kind_t)t->kind) {
    case SQL_T_INT: return literal_int(p, out);
    case SQL_T_DECIMAL:
    case SQL_T_DOUBLE: {
      sql_expr_t *e = new_expr(p, t->kind == SQL_T_DECIMAL ? SQL_E_DECIMAL : SQL_E_DOUBLE, t->pos);
      e->u.num.text = fl_arena_strndup(p->a, p->src + t->pos.off, t->len);
      sql__next(p);
      *out = e;
      return FL_OK;
    }
    case SQL_T_LBRACE: return struct_literal(p, out);
    case SQL_T_LBRACKET: {
      /* [a, b]: DuckDB's list literal, the same as ARRAY[a, b]. */
      sql_expr_t *e = new_expr(p, SQL_E_ARRAY, t->pos);
      sql__next(p);
      if (!sql__accept(p, SQL_T_RBRACKET)) {
        SQL_TRY(sql__expr_list(p, &e->u.row.items));
        SQL_TRY(sql__expect(p, SQL_T_RBRACKET, "',' or ']' in [...]"));
      }
      *out = e;
      return FL_OK;
    }
    case SQL_T_STRING:
    case SQL_T_USTRING: {
      sql_expr_t *e = new_expr(p, SQL_E_STRING, t->pos);
      SQL_TRY(sql__string(p, &e->u.str.data, &e->u.str.len, "a string"));
      *out = e;
      return FL_OK;
    }
    case SQL_T_BINARY: return literal_binary(p, out);
    case SQL_T_PARAM: {
      sql_expr_t *e = new_expr(p, SQL_E_PARAM, t->pos);
      e->u.param = p->nparams++;
      sql__next(p);
      *out = e;
      return FL_OK;
    }
    case SQL_T_LPAREN: {
      SQL_TRY(sql__enter(p));
      SQL_TRY(paren_primary(p, out));
      sql__leave(p);
      return FL_OK;
    }
    case SQL_T_WORD:
    case SQL_T_QIDENT: return word_primary(p, out);
    default: return sql__expected(p, "an expression");
  }
}

int sql__expr_list(sql_parser_t *p, sql_expr_list_t *out) {
  sql_expr_t **items = NULL;
  size_t n = 0, cap = 0;
  do {
    sql_expr_t *e;
    SQL_TRY(sql__expr(p, &e));
    SQL_PUSH(p, items, n, cap, e);
  } while (sql__accept(p, SQL_T_COMMA));
  out->items = items;
  out->n = n;
  return FL_OK;
}

int sql__sort_list(sql_parser_t *p, sql_sort_list_t *out) {
  sql_sort_item_t *items = NULL;
  size_t n = 0, cap = 0;
  do {
    sql_sort_item_t it = {0};
    SQL_TRY(sql__expr(p, &it.expr));
    if (sql__accept_kw(p, SQL_KW_ASC))
      it.dir = SQL_SORT_ASC;
    else if (sql__accept_kw(p, SQL_KW_DESC))
      it.dir = SQL_SORT_DESC;
    if (sql__accept_kw(p, SQL_KW_NULLS)) {
      if (sql__accept_kw(p, SQL_KW_FIRST))
        it.nulls = SQL_NULLS_FIRST;
      else if (sql__accept_kw(p, SQL_KW_LAST))
        it.nulls = SQL_NULLS_LAST;
      else
        return sql__expected(p, "FIRST or LAST after NULLS");
    }
    SQL_PUSH(p, items, n, cap, it);
  } while (sql__accept(p, SQL_T_COMMA));
  out->items = items;
  out->n = n;
  return FL_OK;
}

static int frame_bound(sql_parser_t *p, sql_frame_bound_t *b) {
  if (sql__is_kw(p, SQL_KW_UNBOUNDED)) {
    sql__next(p);
    if (sql__accept_kw(p, SQL_KW_PRECEDING))
      b->kind = SQL_BOUND_UNBOUNDED_PRECEDING;
    else if (sql__accept_kw(p, SQL_KW_FOLLOWING))
      b->kind = SQL_BOUND_UNBOUNDED_FOLLOWING;
    else
      return sql__expected(p, "PRECEDING or FOLLOWING after UNBOUNDED");
    return FL_OK;
  }
  if (sql__is_kw(p, SQL_KW_CURRENT) && sql__peek_kw(p, 1, SQL_KW_ROW)) {
    sql__next(p);
    sql__next(p);
    b->kind = SQL_BOUND_CURRENT_ROW;
    return FL_OK;
  }
  SQL_TRY(sql__value_expr(p, &b->offset));
  if (sql__accept_kw(p, SQL_KW_PRECEDING))
    b->kind = SQL_BOUND_PRECEDING;
  else if (sql__accept_kw(p, SQL_KW_FOLLOWING))
    b->kind = SQL_BOUND_FOLLOWING;
  else
    return sql__expected(p, "PRECEDING or FOLLOWING after the frame offset");
  return FL_OK;
}

int sql__window_spec(sql_parser_t *p, sql_window_spec_t *w) {
  if (sql__at_ident(p) && !sql__is_kw(p, SQL_KW_PARTITION) && !sql__is_kw(p, SQL_KW_ROWS) &&
      !sql__is_kw(p, SQL_KW_RANGE) && !sql__is_kw(p, SQL_KW_GROUPS))
    SQL_TRY(sql__ident(p, &w->base, "a window name"));
  if (sql__accept_kw(p, SQL_KW_PARTITION)) {
    SQL_TRY(sql__expect_kw(p, SQL_KW_BY, "BY after PARTITION"));
    SQL_TRY(sql__expr_list(p, &w->partition_by));
  }
  if (sql__accept_kw(p, SQL_KW_ORDER)) {
    SQL_TRY(sql__expect_kw(p, SQL_KW_BY, "BY after ORDER"));
    SQL_TRY(sql__sort_list(p, &w->order_by));
  }
  if (sql__is_kw(p, SQL_KW_ROWS) || sql__is_kw(p, SQL_KW_RANGE) || sql__is_kw(p, SQL_KW_GROUPS)) {
    w->frame = sql__is_kw(p, SQL_KW_ROWS)    ? SQL_FRAME_ROWS
               : sql__is_kw(p, SQL_KW_RANGE) ? SQL_FRAME_RANGE
                                             : SQL_FRAME_GROUPS;
    sql__next(p);
    if (sql__accept_kw(p, SQL_KW_BETWEEN)) {
      SQL_TRY(frame_bound(p, &w->start));
      SQL_TRY(sql__expect_kw(p, SQL_KW_AND, "AND between the frame bounds"));
      SQL_TRY(frame_bound(p, &w->end));
      w->has_end = true;
    } else {
      SQL_TRY(frame_bound(p, &w->start));
    }
  }
  return sql__expect(p, SQL_T_RPAREN, "')' after the window specification");
}
