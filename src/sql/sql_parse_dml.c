/*
 * sql_parse_dml.c - statements that change rows (layer 7, sql):
 * INSERT INTO (and Flink's INSERT OVERWRITE), DELETE, UPDATE, MERGE INTO
 * and TRUNCATE TABLE.
 */
#include "sql/sql_parse_int.h"

int sql__stmt_insert(sql_parser_t *p, sql_stmt_t *s) {
  sql__next(p); /* INSERT */
  s->kind = SQL_S_INSERT;
  if (sql__peek_word(p, 0, "overwrite")) {
    sql__next(p);
    s->u.insert.overwrite = true;
    sql__accept_kw(p, SQL_KW_TABLE);
  } else {
    SQL_TRY(sql__expect_kw(p, SQL_KW_INTO, "INTO after INSERT"));
  }
  SQL_TRY(sql__qname(p, &s->u.insert.table, "a table name"));
  if (sql__is(p, SQL_T_LPAREN) && !sql__at_paren_query(p))
    SQL_TRY(sql__ident_list_paren(p, &s->u.insert.columns, "a column name"));
  if (!sql__at_query_keyword(p, 0) && !sql__is(p, SQL_T_LPAREN))
    return sql__expected(p, "VALUES or a query after the table");
  return sql__query(p, &s->u.insert.query);
}

int sql__stmt_delete(sql_parser_t *p, sql_stmt_t *s) {
  sql__next(p); /* DELETE */
  s->kind = SQL_S_DELETE;
  SQL_TRY(sql__expect_kw(p, SQL_KW_FROM, "FROM after DELETE"));
  SQL_TRY(sql__qname(p, &s->u.delete_.table, "a table name"));
  if (sql__accept_kw(p, SQL_KW_AS))
    SQL_TRY(sql__ident(p, &s->u.delete_.alias, "an alias after AS"));
  else if (sql__at_ident(p))
    SQL_TRY(sql__ident(p, &s->u.delete_.alias, "an alias"));
  if (sql__accept_kw(p, SQL_KW_WHERE)) SQL_TRY(sql__expr(p, &s->u.delete_.where));
  return FL_OK;
}

static int assignments(sql_parser_t *p, sql_assignment_t **out, size_t *n) {
  size_t cap = 0;
  do {
    sql_assignment_t as = {0};
    SQL_TRY(sql__qname(p, &as.column, "a column name to set"));
    SQL_TRY(sql__expect(p, SQL_T_EQ, "'=' after the column name"));
    SQL_TRY(sql__expr(p, &as.value));
    SQL_PUSH(p, *out, *n, cap, as);
  } while (sql__accept(p, SQL_T_COMMA));
  return FL_OK;
}

int sql__stmt_update(sql_parser_t *p, sql_stmt_t *s) {
  sql__next(p); /* UPDATE */
  s->kind = SQL_S_UPDATE;
  SQL_TRY(sql__qname(p, &s->u.update.table, "a table name"));
  SQL_TRY(sql__expect_kw(p, SQL_KW_SET, "SET after the table name"));
  SQL_TRY(assignments(p, &s->u.update.sets, &s->u.update.nsets));
  if (sql__accept_kw(p, SQL_KW_WHERE)) SQL_TRY(sql__expr(p, &s->u.update.where));
  return FL_OK;
}

static int merge_clause(sql_parser_t *p, sql_merge_clause_t *c) {
  c->pos = sql__pos(p);
  sql__next(p); /* WHEN */
  c->matched = !sql__accept_kw(p, SQL_KW_NOT);
  SQL_TRY(
      sql__expect_kw(p, SQL_KW_MATCHED,
                     c->matched ? "MATCHED or NOT MATCHED after WHEN" : "MATCHED after WHEN NOT"));
  if (sql__accept_kw(p, SQL_KW_AND)) SQL_TRY(sql__expr(p, &c->cond));
  SQL_TRY(sql__expect_kw(p, SQL_KW_THEN, "THEN in the WHEN clause"));
  if (c->matched) {
    if (sql__accept_kw(p, SQL_KW_DELETE)) {
      c->action = SQL_MERGE_DELETE;
      return FL_OK;
    }
    SQL_TRY(sql__expect_kw(p, SQL_KW_UPDATE, "UPDATE or DELETE after WHEN MATCHED THEN"));
    SQL_TRY(sql__expect_kw(p, SQL_KW_SET, "SET after UPDATE"));
    c->action = SQL_MERGE_UPDATE;
    return assignments(p, &c->sets, &c->nsets);
  }
  SQL_TRY(sql__expect_kw(p, SQL_KW_INSERT, "INSERT after WHEN NOT MATCHED THEN"));
  c->action = SQL_MERGE_INSERT;
  if (sql__is(p, SQL_T_LPAREN)) SQL_TRY(sql__ident_list_paren(p, &c->columns, "a column name"));
  SQL_TRY(sql__expect_kw(p, SQL_KW_VALUES, "VALUES in the INSERT clause"));
  SQL_TRY(sql__expect(p, SQL_T_LPAREN, "'(' after VALUES"));
  SQL_TRY(sql__expr_list(p, &c->values));
  return sql__expect(p, SQL_T_RPAREN, "',' or ')' after the inserted values");
}

int sql__stmt_merge(sql_parser_t *p, sql_stmt_t *s) {
  sql__next(p); /* MERGE */
  s->kind = SQL_S_MERGE;
  SQL_TRY(sql__expect_kw(p, SQL_KW_INTO, "INTO after MERGE"));
  SQL_TRY(sql__qname(p, &s->u.merge.target, "the target table name"));
  if (sql__accept_kw(p, SQL_KW_AS))
    SQL_TRY(sql__ident(p, &s->u.merge.alias, "an alias after AS"));
  else if (sql__at_ident(p))
    SQL_TRY(sql__ident(p, &s->u.merge.alias, "an alias"));
  SQL_TRY(sql__expect_kw(p, SQL_KW_USING, "USING and the source"));
  SQL_TRY(sql__rel_primary(p, &s->u.merge.source));
  SQL_TRY(sql__expect_kw(p, SQL_KW_ON, "ON and the merge condition"));
  SQL_TRY(sql__expr(p, &s->u.merge.on));
  size_t cap = 0;
  while (sql__is_kw(p, SQL_KW_WHEN)) {
    sql_merge_clause_t c = {0};
    SQL_TRY(merge_clause(p, &c));
    SQL_PUSH(p, s->u.merge.clauses, s->u.merge.nclauses, cap, c);
  }
  if (s->u.merge.nclauses == 0) return sql__expected(p, "WHEN MATCHED or WHEN NOT MATCHED");
  return FL_OK;
}

int sql__stmt_truncate(sql_parser_t *p, sql_stmt_t *s) {
  sql__next(p); /* TRUNCATE */
  s->kind = SQL_S_TRUNCATE;
  SQL_TRY(sql__expect_kw(p, SQL_KW_TABLE, "TABLE after TRUNCATE"));
  return sql__qname(p, &s->u.drop.name, "a table name");
}
