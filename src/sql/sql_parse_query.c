/*
 * sql_parse_query.c - queries and relations (layer 7, sql).
 *
 *   query     := [WITH [RECURSIVE] cte {, cte}] setterm [ORDER BY sorts]
 *                [OFFSET n [ROWS]] [LIMIT n | LIMIT ALL | FETCH FIRST [n] ROWS ONLY|WITH TIES]
 *   setterm   := interterm { (UNION | EXCEPT) [ALL | DISTINCT] interterm }
 *   interterm := qprimary { INTERSECT [ALL | DISTINCT] qprimary }
 *   qprimary  := SELECT ... | VALUES row {, row} | TABLE name | ( query )
 *   relation  := primary { [NATURAL] [INNER | LEFT | RIGHT | FULL [OUTER] | CROSS] JOIN primary
 *                          [ON expr | USING (cols)] }
 *   primary   := name [FOR VERSION|TIMESTAMP|SYSTEM_TIME AS OF expr] | ( query ) | ( relation )
 *              | LATERAL ( query ) | UNNEST (exprs) [WITH ORDINALITY]
 *              | name ( targs ) | TABLE ( name ( targs ) )      each [[AS] alias [(cols)]]
 *
 * INTERSECT binds tighter than UNION and EXCEPT. Parentheses around a
 * query that has no WITH, ORDER BY or LIMIT of its own only group, so they
 * leave no node behind.
 */
#include "sql/sql_parse_int.h"

bool sql__at_query_keyword(const sql_parser_t *p, size_t k) {
  const sql_tok_t *t = sql__peek(p, k);
  if (t->kind != SQL_T_WORD) return false;
  return t->kw == SQL_KW_SELECT || t->kw == SQL_KW_WITH || t->kw == SQL_KW_VALUES ||
         t->kw == SQL_KW_TABLE;
}

bool sql__at_paren_query(const sql_parser_t *p) {
  size_t k = 0;
  while (sql__peek(p, k)->kind == SQL_T_LPAREN) k++;
  return k > 0 && sql__at_query_keyword(p, k);
}

/* Words that end a relation or select item rather than name it. */
static bool clause_word(const sql_parser_t *p) {
  return sql__is_kw(p, SQL_KW_LIMIT) || sql__is_kw(p, SQL_KW_OFFSET) ||
         sql__is_kw(p, SQL_KW_FETCH) || sql__is_kw(p, SQL_KW_WINDOW);
}

static int alias(sql_parser_t *p, sql_ident_t *name, sql_ident_list_t *cols, bool with_cols) {
  if (sql__accept_kw(p, SQL_KW_AS)) {
    SQL_TRY(sql__ident(p, name, "an alias after AS"));
  } else if (sql__at_ident(p) && !clause_word(p)) {
    SQL_TRY(sql__ident(p, name, "an alias"));
  } else {
    return FL_OK;
  }
  if (with_cols && sql__is(p, SQL_T_LPAREN))
    SQL_TRY(sql__ident_list_paren(p, cols, "a column alias"));
  return FL_OK;
}

static sql_rel_t *new_rel(sql_parser_t *p, sql_rel_kind_t kind, sql_pos_t pos) {
  sql_rel_t *r = SQL_NEW(p, sql_rel_t);
  r->kind = kind;
  r->pos = pos;
  return r;
}

/* [PARTITION BY k | PARTITION BY (k1, k2)] after a table argument. */
static int targ_partition(sql_parser_t *p, sql_table_arg_t *a) {
  if (!sql__is_kw(p, SQL_KW_PARTITION)) return FL_OK;
  sql__next(p);
  SQL_TRY(sql__expect_kw(p, SQL_KW_BY, "BY after PARTITION"));
  sql_expr_t *e;
  SQL_TRY(sql__expr(p, &e));
  if (e->kind == SQL_E_ROW && e->u.row.implicit) {
    a->partition_by = e->u.row.items;
  } else {
    a->partition_by.items = fl_arena_alloc(p->a, sizeof *a->partition_by.items);
    a->partition_by.items[0] = e;
    a->partition_by.n = 1;
  }
  return FL_OK;
}

static int table_arg(sql_parser_t *p, sql_table_arg_t *a) {
  a->pos = sql__pos(p);
  if ((sql__is(p, SQL_T_WORD) || sql__is(p, SQL_T_QIDENT)) &&
      sql__peek(p, 1)->kind == SQL_T_NAMEDARG) {
    SQL_TRY(sql__arg_name(p, &a->name));
    sql__next(p);
  }
  if (sql__is_kw(p, SQL_KW_TABLE)) {
    sql_pos_t pos = sql__pos(p);
    sql__next(p);
    a->kind = SQL_TARG_TABLE;
    if (sql__is(p, SQL_T_LPAREN) && sql__at_query_keyword(p, 1)) {
      sql__next(p);
      a->table = new_rel(p, SQL_REL_SUBQUERY, pos);
      SQL_TRY(sql__query(p, &a->table->u.subquery.query));
      SQL_TRY(sql__expect(p, SQL_T_RPAREN, "')' after the table argument's query"));
      return targ_partition(p, a);
    }
    bool paren = sql__accept(p, SQL_T_LPAREN);
    a->table = new_rel(p, SQL_REL_TABLE, pos);
    SQL_TRY(sql__qname(p, &a->table->u.table.name, "a table name after TABLE"));
    if (paren) SQL_TRY(sql__expect(p, SQL_T_RPAREN, "')' after the table argument"));
    return targ_partition(p, a);
  }
  if (sql__is_kw(p, SQL_KW_DESCRIPTOR) && sql__peek(p, 1)->kind == SQL_T_LPAREN) {
    sql__next(p);
    a->kind = SQL_TARG_DESCRIPTOR;
    return sql__ident_list_paren(p, &a->columns, "a column name in DESCRIPTOR");
  }
  a->kind = SQL_TARG_EXPR;
  return sql__expr(p, &a->expr);
}

/* name ( targs ): the name is the current token. */
static int table_function(sql_parser_t *p, sql_rel_t **out) {
  sql_rel_t *r = new_rel(p, SQL_REL_FUNCTION, sql__pos(p));
  SQL_TRY(sql__qname(p, &r->u.func.name, "a table function name"));
  SQL_TRY(sql__expect(p, SQL_T_LPAREN, "'(' after the table function name"));
  sql_table_arg_t *args = NULL;
  size_t n = 0, cap = 0;
  if (!sql__accept(p, SQL_T_RPAREN)) {
    do {
      sql_table_arg_t a = {0};
      SQL_TRY(table_arg(p, &a));
      SQL_PUSH(p, args, n, cap, a);
    } while (sql__accept(p, SQL_T_COMMA));
    SQL_TRY(sql__expect(p, SQL_T_RPAREN, "',' or ')' after the table function arguments"));
  }
  r->u.func.args = args;
  r->u.func.nargs = n;
  *out = r;
  return FL_OK;
}

static int time_travel(sql_parser_t *p, sql_rel_t *r) {
  if (!sql__is_kw(p, SQL_KW_FOR)) return FL_OK;
  sql__next(p);
  if (sql__accept_kw(p, SQL_KW_VERSION))
    r->u.table.travel = SQL_TT_VERSION;
  else if (sql__accept_kw(p, SQL_KW_TIMESTAMP))
    r->u.table.travel = SQL_TT_TIMESTAMP;
  else if (sql__accept_kw(p, SQL_KW_SYSTEM_TIME))
    r->u.table.travel = SQL_TT_SYSTEM_TIME;
  else
    return sql__expected(p, "VERSION, TIMESTAMP or SYSTEM_TIME after FOR");
  SQL_TRY(sql__expect_kw(p, SQL_KW_AS, "AS OF after FOR VERSION/TIMESTAMP"));
  SQL_TRY(sql__expect_kw(p, SQL_KW_OF, "OF after AS"));
  return sql__value_expr(p, &r->u.table.as_of);
}

int sql__rel_primary(sql_parser_t *p, sql_rel_t **out) {
  sql_pos_t pos = sql__pos(p);
  sql_rel_t *r = NULL;
  if (sql__is(p, SQL_T_LPAREN)) {
    fl_err_t *first = NULL;
    size_t first_tok = 0;
    if (sql__at_paren_query(p) && !sql__query_failed_here(p)) {
      sql_mark_t m = sql__mark(p);
      bool direct = sql__at_query_keyword(p, 1);
      sql__next(p);
      r = new_rel(p, SQL_REL_SUBQUERY, pos);
      int rc = sql__query(p, &r->u.subquery.query);
      if (!rc) rc = sql__expect(p, SQL_T_RPAREN, "')' after the subquery");
      if (rc && (direct || p->too_deep)) return rc;
      if (rc) {
        /* ((SELECT ...) JOIN t ...) is a parenthesized relation instead. */
        first = sql__save_err(p, &first_tok);
        sql__reset(p, m);
        sql__note_query_failed(p, m.i);
        r = NULL;
      }
    }
    if (!r) {
      sql__next(p);
      int rc = sql__relation(p, &r);
      if (!rc) rc = sql__expect(p, SQL_T_RPAREN, "')' after the parenthesized relation");
      if (rc) return first ? sql__farthest(p, first, first_tok) : rc;
      if (r->alias.name) {
        /* (t AS a) keeps its alias; a second one would silently replace it. */
        *out = r;
        return FL_OK;
      }
    }
  } else if (sql__is_kw(p, SQL_KW_LATERAL) && sql__peek(p, 1)->kind == SQL_T_LPAREN) {
    sql__next(p);
    sql__next(p);
    r = new_rel(p, SQL_REL_SUBQUERY, pos);
    r->u.subquery.lateral = true;
    SQL_TRY(sql__query(p, &r->u.subquery.query));
    SQL_TRY(sql__expect(p, SQL_T_RPAREN, "')' after the LATERAL subquery"));
  } else if (sql__is_kw(p, SQL_KW_UNNEST)) {
    sql__next(p);
    r = new_rel(p, SQL_REL_UNNEST, pos);
    SQL_TRY(sql__expect(p, SQL_T_LPAREN, "'(' after UNNEST"));
    SQL_TRY(sql__expr_list(p, &r->u.unnest.args));
    SQL_TRY(sql__expect(p, SQL_T_RPAREN, "',' or ')' after the UNNEST arguments"));
    if (sql__is_kw(p, SQL_KW_WITH) && sql__peek_kw(p, 1, SQL_KW_ORDINALITY)) {
      sql__next(p);
      sql__next(p);
      r->u.unnest.with_ordinality = true;
    }
  } else if (sql__is_kw(p, SQL_KW_TABLE) && sql__peek(p, 1)->kind == SQL_T_LPAREN) {
    sql__next(p);
    sql__next(p);
    SQL_TRY(table_function(p, &r));
    SQL_TRY(sql__expect(p, SQL_T_RPAREN, "')' after TABLE(function(...))"));
    r->pos = pos;
  } else if (sql__at_ident(p)) {
    size_t k = 1;
    while (sql__peek(p, k)->kind == SQL_T_DOT) k += 2;
    if (sql__peek(p, k)->kind == SQL_T_LPAREN) {
      SQL_TRY(table_function(p, &r));
    } else {
      r = new_rel(p, SQL_REL_TABLE, pos);
      SQL_TRY(sql__qname(p, &r->u.table.name, "a table name"));
      SQL_TRY(time_travel(p, r));
    }
  } else {
    return sql__expected(p, "a table name, '(' or UNNEST");
  }
  SQL_TRY(alias(p, &r->alias, &r->alias_cols, true));
  *out = r;
  return FL_OK;
}

static bool join_start(const sql_parser_t *p) {
  return sql__is_kw(p, SQL_KW_JOIN) || sql__is_kw(p, SQL_KW_INNER) || sql__is_kw(p, SQL_KW_LEFT) ||
         sql__is_kw(p, SQL_KW_RIGHT) || sql__is_kw(p, SQL_KW_FULL) || sql__is_kw(p, SQL_KW_CROSS) ||
         sql__is_kw(p, SQL_KW_NATURAL);
}

int sql__relation(sql_parser_t *p, sql_rel_t **out) {
  SQL_TRY(sql__enter(p));
  int base = p->depth;
  sql_rel_t *l;
  SQL_TRY(sql__rel_primary(p, &l));
  while (join_start(p)) {
    SQL_TRY(sql__enter(p));
    sql_rel_t *j = new_rel(p, SQL_REL_JOIN, sql__pos(p));
    j->u.join.natural = sql__accept_kw(p, SQL_KW_NATURAL);
    sql_join_kind_t kind = SQL_JOIN_INNER;
    if (sql__accept_kw(p, SQL_KW_CROSS)) {
      kind = SQL_JOIN_CROSS;
    } else if (sql__accept_kw(p, SQL_KW_LEFT)) {
      kind = SQL_JOIN_LEFT;
      sql__accept_kw(p, SQL_KW_OUTER);
    } else if (sql__accept_kw(p, SQL_KW_RIGHT)) {
      kind = SQL_JOIN_RIGHT;
      sql__accept_kw(p, SQL_KW_OUTER);
    } else if (sql__accept_kw(p, SQL_KW_FULL)) {
      kind = SQL_JOIN_FULL;
      sql__accept_kw(p, SQL_KW_OUTER);
    } else {
      sql__accept_kw(p, SQL_KW_INNER);
    }
    if (j->u.join.natural && kind == SQL_JOIN_CROSS)
      return sql__fail(p, "NATURAL cannot be combined with CROSS JOIN");
    SQL_TRY(sql__expect_kw(p, SQL_KW_JOIN, "JOIN"));
    j->u.join.kind = kind;
    j->u.join.left = l;
    SQL_TRY(sql__rel_primary(p, &j->u.join.right));
    if (kind != SQL_JOIN_CROSS && !j->u.join.natural) {
      if (sql__accept_kw(p, SQL_KW_ON)) {
        SQL_TRY(sql__expr(p, &j->u.join.on));
      } else if (sql__accept_kw(p, SQL_KW_USING)) {
        SQL_TRY(sql__ident_list_paren(p, &j->u.join.using_, "a column name in USING"));
      } else {
        return sql__expected(p, "ON or USING after the joined table");
      }
    }
    l = j;
  }
  p->depth = base - 1;
  *out = l;
  return FL_OK;
}

/* ---- SELECT ---- */

/* ident { . ident } . * */
static bool at_qualified_star(const sql_parser_t *p) {
  size_t k = 0;
  for (;;) {
    const sql_tok_t *t = sql__peek(p, k);
    if (t->kind != SQL_T_WORD && t->kind != SQL_T_QIDENT) return false;
    if (sql__peek(p, k + 1)->kind != SQL_T_DOT) return false;
    if (sql__peek(p, k + 2)->kind == SQL_T_STAR) return true;
    k += 2;
  }
}

static int select_item(sql_parser_t *p, sql_select_item_t *it) {
  it->pos = sql__pos(p);
  if (sql__accept(p, SQL_T_STAR)) {
    it->kind = SQL_ITEM_STAR;
    return FL_OK;
  }
  if (at_qualified_star(p)) {
    it->kind = SQL_ITEM_STAR;
    size_t cap = 0;
    while (!sql__is(p, SQL_T_STAR)) {
      sql_ident_t id;
      SQL_TRY(sql__ident(p, &id, "a name before .*"));
      SQL_PUSH(p, it->qualifier.parts, it->qualifier.n, cap, id);
      sql__next(p); /* . */
    }
    sql__next(p); /* * */
    return FL_OK;
  }
  it->kind = SQL_ITEM_EXPR;
  SQL_TRY(sql__expr(p, &it->expr));
  return alias(p, &it->alias, NULL, false);
}

static int group_by(sql_parser_t *p, sql_select_t *s) {
  if (sql__accept_kw(p, SQL_KW_DISTINCT))
    s->group_distinct = true;
  else
    sql__accept_kw(p, SQL_KW_ALL);
  sql_group_elem_t *elems = NULL;
  size_t n = 0, cap = 0;
  do {
    sql_group_elem_t g = {0};
    g.pos = sql__pos(p);
    if ((sql__is_kw(p, SQL_KW_ROLLUP) || sql__is_kw(p, SQL_KW_CUBE))) {
      g.kind = sql__is_kw(p, SQL_KW_ROLLUP) ? SQL_GROUP_ROLLUP : SQL_GROUP_CUBE;
      sql__next(p);
      SQL_TRY(sql__expect(p, SQL_T_LPAREN, "'(' after ROLLUP or CUBE"));
      SQL_TRY(sql__expr_list(p, &g.list));
      SQL_TRY(sql__expect(p, SQL_T_RPAREN, "',' or ')' in the grouping list"));
    } else if (sql__is_kw(p, SQL_KW_GROUPING) && sql__peek_kw(p, 1, SQL_KW_SETS)) {
      sql__next(p);
      sql__next(p);
      g.kind = SQL_GROUP_SETS;
      SQL_TRY(sql__expect(p, SQL_T_LPAREN, "'(' after GROUPING SETS"));
      size_t scap = 0;
      do {
        sql_expr_list_t set = {0};
        if (sql__is(p, SQL_T_LPAREN) && !sql__at_paren_query(p)) {
          sql__next(p);
          if (!sql__accept(p, SQL_T_RPAREN)) {
            SQL_TRY(sql__expr_list(p, &set));
            SQL_TRY(sql__expect(p, SQL_T_RPAREN, "',' or ')' in the grouping set"));
          }
        } else {
          sql_expr_t *e;
          SQL_TRY(sql__expr(p, &e));
          set.items = fl_arena_alloc(p->a, sizeof *set.items);
          set.items[0] = e;
          set.n = 1;
        }
        SQL_PUSH(p, g.sets, g.nsets, scap, set);
      } while (sql__accept(p, SQL_T_COMMA));
      SQL_TRY(sql__expect(p, SQL_T_RPAREN, "',' or ')' after the grouping sets"));
    } else if (sql__is(p, SQL_T_LPAREN) && sql__peek(p, 1)->kind == SQL_T_RPAREN) {
      sql__next(p);
      sql__next(p);
      g.kind = SQL_GROUP_EMPTY;
    } else {
      g.kind = SQL_GROUP_EXPR;
      SQL_TRY(sql__expr(p, &g.expr));
    }
    SQL_PUSH(p, elems, n, cap, g);
  } while (sql__accept(p, SQL_T_COMMA));
  s->group_by = elems;
  s->ngroup = n;
  return FL_OK;
}

static int select_body(sql_parser_t *p, sql_qbody_t *b) {
  sql_select_t *s = &b->u.select;
  sql__next(p); /* SELECT */
  if (sql__accept_kw(p, SQL_KW_DISTINCT))
    s->distinct = true;
  else
    sql__accept_kw(p, SQL_KW_ALL);
  size_t cap = 0;
  do {
    sql_select_item_t it = {0};
    SQL_TRY(select_item(p, &it));
    SQL_PUSH(p, s->items, s->nitems, cap, it);
  } while (sql__accept(p, SQL_T_COMMA));
  if (sql__accept_kw(p, SQL_KW_FROM)) {
    cap = 0;
    do {
      sql_rel_t *r;
      SQL_TRY(sql__relation(p, &r));
      SQL_PUSH(p, s->from, s->nfrom, cap, r);
    } while (sql__accept(p, SQL_T_COMMA));
  }
  if (sql__accept_kw(p, SQL_KW_WHERE)) SQL_TRY(sql__expr(p, &s->where));
  if (sql__is_kw(p, SQL_KW_GROUP)) {
    sql__next(p);
    SQL_TRY(sql__expect_kw(p, SQL_KW_BY, "BY after GROUP"));
    SQL_TRY(group_by(p, s));
  }
  if (sql__accept_kw(p, SQL_KW_HAVING)) SQL_TRY(sql__expr(p, &s->having));
  if (sql__is_kw(p, SQL_KW_WINDOW)) {
    sql__next(p);
    cap = 0;
    do {
      sql_named_window_t w = {0};
      SQL_TRY(sql__ident(p, &w.name, "a window name"));
      SQL_TRY(sql__expect_kw(p, SQL_KW_AS, "AS after the window name"));
      SQL_TRY(sql__expect(p, SQL_T_LPAREN, "'(' after AS"));
      SQL_TRY(sql__window_spec(p, &w.spec));
      SQL_PUSH(p, s->windows, s->nwindows, cap, w);
    } while (sql__accept(p, SQL_T_COMMA));
  }
  return FL_OK;
}

static int query_primary(sql_parser_t *p, sql_qbody_t **out) {
  sql_qbody_t *b = SQL_NEW(p, sql_qbody_t);
  b->pos = sql__pos(p);
  if (sql__is_kw(p, SQL_KW_SELECT)) {
    b->kind = SQL_QB_SELECT;
    SQL_TRY(select_body(p, b));
  } else if (sql__accept_kw(p, SQL_KW_VALUES)) {
    b->kind = SQL_QB_VALUES;
    SQL_TRY(sql__expr_list(p, &b->u.values));
  } else if (sql__accept_kw(p, SQL_KW_TABLE)) {
    b->kind = SQL_QB_TABLE;
    SQL_TRY(sql__qname(p, &b->u.table, "a table name after TABLE"));
  } else if (sql__accept(p, SQL_T_LPAREN)) {
    SQL_TRY(sql__enter(p));
    sql_query_t *q;
    SQL_TRY(sql__query(p, &q));
    SQL_TRY(sql__expect(p, SQL_T_RPAREN, "')' after the query"));
    sql__leave(p);
    if (q->nctes == 0 && q->order_by.n == 0 && q->limit_kind == SQL_LIMIT_NONE && !q->offset) {
      *out = q->body;
      return FL_OK;
    }
    b->kind = SQL_QB_PAREN;
    b->u.paren = q;
  } else {
    return sql__expected(p, "SELECT, VALUES, TABLE or '('");
  }
  *out = b;
  return FL_OK;
}

/* [ALL | DISTINCT] after UNION, INTERSECT or EXCEPT. */
static void set_quantifier(sql_parser_t *p, bool *all, bool *distinct) {
  *all = sql__accept_kw(p, SQL_KW_ALL);
  *distinct = !*all && sql__accept_kw(p, SQL_KW_DISTINCT);
}

static int inter_term(sql_parser_t *p, sql_qbody_t **out) {
  int base = p->depth;
  sql_qbody_t *l;
  SQL_TRY(query_primary(p, &l));
  while (sql__is_kw(p, SQL_KW_INTERSECT)) {
    sql_qbody_t *b = SQL_NEW(p, sql_qbody_t);
    b->kind = SQL_QB_SETOP;
    b->pos = l->pos;
    sql__next(p);
    SQL_TRY(sql__enter(p));
    set_quantifier(p, &b->u.setop.all, &b->u.setop.distinct);
    b->u.setop.op = SQL_SET_INTERSECT;
    b->u.setop.l = l;
    SQL_TRY(query_primary(p, &b->u.setop.r));
    l = b;
  }
  p->depth = base;
  *out = l;
  return FL_OK;
}

static int set_term(sql_parser_t *p, sql_qbody_t **out) {
  int base = p->depth;
  sql_qbody_t *l;
  SQL_TRY(inter_term(p, &l));
  while (sql__is_kw(p, SQL_KW_UNION) || sql__is_kw(p, SQL_KW_EXCEPT)) {
    sql_qbody_t *b = SQL_NEW(p, sql_qbody_t);
    b->kind = SQL_QB_SETOP;
    b->pos = l->pos;
    b->u.setop.op = sql__is_kw(p, SQL_KW_UNION) ? SQL_SET_UNION : SQL_SET_EXCEPT;
    sql__next(p);
    SQL_TRY(sql__enter(p));
    set_quantifier(p, &b->u.setop.all, &b->u.setop.distinct);
    b->u.setop.l = l;
    SQL_TRY(inter_term(p, &b->u.setop.r));
    l = b;
  }
  p->depth = base;
  *out = l;
  return FL_OK;
}

/* LIMIT, OFFSET and FETCH take an integer literal or a parameter. */
static int count_value(sql_parser_t *p, sql_expr_t **out, const char *what) {
  sql_expr_t *e = SQL_NEW(p, sql_expr_t);
  e->pos = sql__pos(p);
  if (sql__is(p, SQL_T_PARAM)) {
    e->kind = SQL_E_PARAM;
    e->u.param = p->nparams++;
    sql__next(p);
  } else {
    const sql_tok_t *t = sql__tok(p);
    e->kind = SQL_E_INT;
    e->u.i.text = t->kind == SQL_T_INT ? fl_arena_strndup(p->a, p->src + t->pos.off, t->len) : "";
    SQL_TRY(sql__int(p, &e->u.i.value, what));
  }
  *out = e;
  return FL_OK;
}

static int offset_clause(sql_parser_t *p, sql_query_t *q) {
  if (q->offset) return sql__fail(p, "OFFSET given twice");
  sql__next(p);
  SQL_TRY(count_value(p, &q->offset, "a row count after OFFSET"));
  if (!sql__accept_kw(p, SQL_KW_ROWS)) sql__accept_kw(p, SQL_KW_ROW);
  return FL_OK;
}

static int limit_clauses(sql_parser_t *p, sql_query_t *q) {
  if (sql__is_kw(p, SQL_KW_OFFSET)) SQL_TRY(offset_clause(p, q));
  if (sql__is_kw(p, SQL_KW_LIMIT)) {
    sql__next(p);
    if (sql__accept_kw(p, SQL_KW_ALL)) {
      q->limit_kind = SQL_LIMIT_ALL;
    } else {
      q->limit_kind = SQL_LIMIT_COUNT;
      SQL_TRY(count_value(p, &q->limit, "a row count or ALL after LIMIT"));
    }
  } else if (sql__is_kw(p, SQL_KW_FETCH)) {
    sql__next(p);
    if (!sql__accept_kw(p, SQL_KW_FIRST) && !sql__accept_kw(p, SQL_KW_NEXT))
      return sql__expected(p, "FIRST or NEXT after FETCH");
    if (sql__is(p, SQL_T_INT) || sql__is(p, SQL_T_PARAM))
      SQL_TRY(count_value(p, &q->limit, "a row count"));
    if (!sql__accept_kw(p, SQL_KW_ROWS) && !sql__accept_kw(p, SQL_KW_ROW))
      return sql__expected(p, "ROW or ROWS in FETCH FIRST");
    if (sql__accept_kw(p, SQL_KW_ONLY)) {
      q->limit_kind = SQL_LIMIT_FETCH;
    } else if (sql__is_kw(p, SQL_KW_WITH) && sql__peek_kw(p, 1, SQL_KW_TIES)) {
      sql__next(p);
      sql__next(p);
      q->limit_kind = SQL_LIMIT_FETCH_TIES;
    } else {
      return sql__expected(p, "ONLY or WITH TIES after FETCH FIRST ... ROWS");
    }
  }
  if (sql__is_kw(p, SQL_KW_OFFSET)) SQL_TRY(offset_clause(p, q));
  return FL_OK;
}

int sql__query(sql_parser_t *p, sql_query_t **out) {
  SQL_TRY(sql__enter(p));
  sql_query_t *q = SQL_NEW(p, sql_query_t);
  q->pos = sql__pos(p);
  if (sql__accept_kw(p, SQL_KW_WITH)) {
    q->recursive = sql__accept_kw(p, SQL_KW_RECURSIVE);
    size_t cap = 0;
    do {
      sql_cte_t c = {0};
      SQL_TRY(sql__ident(p, &c.name, "a name for the WITH query"));
      if (sql__is(p, SQL_T_LPAREN)) SQL_TRY(sql__ident_list_paren(p, &c.columns, "a column name"));
      SQL_TRY(sql__expect_kw(p, SQL_KW_AS, "AS after the WITH query name"));
      SQL_TRY(sql__expect(p, SQL_T_LPAREN, "'(' after AS"));
      SQL_TRY(sql__query(p, &c.query));
      SQL_TRY(sql__expect(p, SQL_T_RPAREN, "')' after the WITH query"));
      SQL_PUSH(p, q->ctes, q->nctes, cap, c);
    } while (sql__accept(p, SQL_T_COMMA));
  }
  SQL_TRY(set_term(p, &q->body));
  if (sql__is_kw(p, SQL_KW_ORDER)) {
    sql__next(p);
    SQL_TRY(sql__expect_kw(p, SQL_KW_BY, "BY after ORDER"));
    SQL_TRY(sql__sort_list(p, &q->order_by));
  }
  SQL_TRY(limit_clauses(p, q));
  sql__leave(p);
  *out = q;
  return FL_OK;
}
