/*
 * sql_parse_ddl.c - schema and table definitions (layer 7, sql).
 *
 * CREATE/DROP SCHEMA, CREATE TABLE (Trino columns and properties plus
 * Flink's computed and metadata columns, WATERMARK, PRIMARY KEY NOT
 * ENFORCED, PARTITIONED BY, string-keyed WITH options), CREATE TABLE AS,
 * CREATE/DROP VIEW, DROP TABLE, and ALTER TABLE with Trino's actions, its
 * EXECUTE procedures, and Iceberg's branch and tag statements in their
 * Spark spelling. SET PARTITIONING ARRAY[...] becomes the property
 * partitioning = ARRAY[...], the same change Trino spells SET PROPERTIES.
 */
#include "sql/sql_parse_int.h"

static int if_not_exists(sql_parser_t *p, bool *out) {
  if (!sql__is_kw(p, SQL_KW_IF)) return FL_OK;
  sql__next(p);
  SQL_TRY(sql__expect_kw(p, SQL_KW_NOT, "NOT after IF"));
  SQL_TRY(sql__expect_kw(p, SQL_KW_EXISTS, "EXISTS after IF NOT"));
  *out = true;
  return FL_OK;
}

static int if_exists(sql_parser_t *p, bool *out) {
  if (!sql__is_kw(p, SQL_KW_IF)) return FL_OK;
  sql__next(p);
  SQL_TRY(sql__expect_kw(p, SQL_KW_EXISTS, "EXISTS after IF"));
  *out = true;
  return FL_OK;
}

static int property(sql_parser_t *p, sql_property_t *pr) {
  if (sql__is(p, SQL_T_STRING)) {
    const char *data;
    size_t len;
    sql_pos_t pos = sql__pos(p);
    SQL_TRY(sql__string(p, &data, &len, "a property name"));
    if (memchr(data, '\0', len)) return sql__fail(p, "property name holds a NUL byte");
    pr->key = (sql_ident_t){data, true, pos};
    pr->key_is_string = true;
  } else {
    SQL_TRY(sql__ident(p, &pr->key, "a property name"));
  }
  SQL_TRY(sql__expect(p, SQL_T_EQ, "'=' after the property name"));
  if (sql__peek_word(p, 0, "default") &&
      (sql__peek(p, 1)->kind == SQL_T_COMMA || sql__peek(p, 1)->kind == SQL_T_RPAREN ||
       sql__peek(p, 1)->kind == SQL_T_EOF || sql__peek(p, 1)->kind == SQL_T_SEMI)) {
    sql__next(p);
    pr->value = NULL;
    return FL_OK;
  }
  return sql__expr(p, &pr->value);
}

/* k = v {, k = v} without parentheses (SET PROPERTIES). */
static int property_list(sql_parser_t *p, sql_prop_list_t *out) {
  size_t cap = 0;
  do {
    sql_property_t pr = {0};
    SQL_TRY(property(p, &pr));
    SQL_PUSH(p, out->items, out->n, cap, pr);
  } while (sql__accept(p, SQL_T_COMMA));
  return FL_OK;
}

int sql__properties(sql_parser_t *p, sql_prop_list_t *out) {
  SQL_TRY(sql__expect(p, SQL_T_LPAREN, "'(' after WITH"));
  SQL_TRY(property_list(p, out));
  return sql__expect(p, SQL_T_RPAREN, "',' or ')' after the properties");
}

static int comment_string(sql_parser_t *p, const char **text, size_t *len) {
  return sql__string(p, text, len, "a quoted comment after COMMENT");
}

static int column_rest(sql_parser_t *p, sql_column_def_t *c, sql_ident_list_t *inline_pk);

/* A column: name type [NOT NULL] ..., name AS expr, name type METADATA ... */
static int column_def(sql_parser_t *p, sql_column_def_t *c, sql_ident_list_t *inline_pk) {
  c->pos = sql__pos(p);
  SQL_TRY(sql__ident(p, &c->name, "a column name"));
  return column_rest(p, c, inline_pk);
}

/* What follows a column's name. */
static int column_rest(sql_parser_t *p, sql_column_def_t *c, sql_ident_list_t *inline_pk) {
  if (sql__accept_kw(p, SQL_KW_AS)) {
    c->kind = SQL_COL_COMPUTED;
    SQL_TRY(sql__expr(p, &c->computed));
  } else {
    SQL_TRY(sql__type(p, &c->type));
    if (sql__accept_kw(p, SQL_KW_METADATA)) {
      c->kind = SQL_COL_METADATA;
      if (sql__accept_kw(p, SQL_KW_FROM))
        SQL_TRY(sql__string(p, &c->metadata_key, &c->metadata_key_len, "a quoted metadata key"));
      c->is_virtual = sql__accept_kw(p, SQL_KW_VIRTUAL);
    }
  }
  for (;;) {
    if (sql__is_kw(p, SQL_KW_NOT) && sql__peek_kw(p, 1, SQL_KW_NULL)) {
      sql__next(p);
      sql__next(p);
      c->not_null = true;
    } else if (sql__is_kw(p, SQL_KW_NULL)) {
      sql__next(p); /* explicitly nullable */
    } else if (sql__accept_kw(p, SQL_KW_COMMENT)) {
      if (c->comment) return sql__fail(p, "COMMENT given twice for column %s", c->name.name);
      SQL_TRY(comment_string(p, &c->comment, &c->comment_len));
    } else if (sql__is_kw(p, SQL_KW_PRIMARY) && inline_pk) {
      sql__next(p);
      SQL_TRY(sql__expect_kw(p, SQL_KW_KEY, "KEY after PRIMARY"));
      if (inline_pk->n) return sql__fail(p, "the table already has a primary key");
      inline_pk->items = SQL_NEW(p, sql_ident_t);
      inline_pk->items[0] = c->name;
      inline_pk->n = 1;
    } else if (sql__is_kw(p, SQL_KW_WITH) && c->kind == SQL_COL_PHYSICAL &&
               sql__peek(p, 1)->kind == SQL_T_LPAREN) {
      sql__next(p);
      SQL_TRY(sql__properties(p, &c->props));
    } else {
      break;
    }
  }
  return FL_OK;
}

static int pk_not_enforced(sql_parser_t *p, bool *out) {
  if (sql__is_kw(p, SQL_KW_NOT) && sql__peek_kw(p, 1, SQL_KW_ENFORCED)) {
    sql__next(p);
    sql__next(p);
    *out = true;
  }
  return FL_OK;
}

static int table_elements(sql_parser_t *p, sql_stmt_t *s) {
  size_t cap = 0;
  do {
    if (sql__is_kw(p, SQL_KW_WATERMARK) && sql__peek_kw(p, 1, SQL_KW_FOR)) {
      if (s->u.create_table.watermark) return sql__fail(p, "WATERMARK given twice");
      sql_watermark_t *w = SQL_NEW(p, sql_watermark_t);
      w->pos = sql__pos(p);
      sql__next(p);
      sql__next(p);
      SQL_TRY(sql__ident(p, &w->column, "the event-time column after WATERMARK FOR"));
      SQL_TRY(sql__expect_kw(p, SQL_KW_AS, "AS after WATERMARK FOR column"));
      SQL_TRY(sql__expr(p, &w->expr));
      s->u.create_table.watermark = w;
      continue;
    }
    if (sql__is_kw(p, SQL_KW_CONSTRAINT) ||
        (sql__is_kw(p, SQL_KW_PRIMARY) && sql__peek_kw(p, 1, SQL_KW_KEY))) {
      if (sql__accept_kw(p, SQL_KW_CONSTRAINT)) {
        sql_ident_t ignored;
        SQL_TRY(sql__ident(p, &ignored, "a constraint name"));
      }
      SQL_TRY(sql__expect_kw(p, SQL_KW_PRIMARY, "PRIMARY KEY after CONSTRAINT name"));
      SQL_TRY(sql__expect_kw(p, SQL_KW_KEY, "KEY after PRIMARY"));
      if (s->u.create_table.primary_key.n)
        return sql__fail(p, "the table already has a primary key");
      SQL_TRY(sql__ident_list_paren(p, &s->u.create_table.primary_key, "a key column"));
      SQL_TRY(pk_not_enforced(p, &s->u.create_table.pk_not_enforced));
      continue;
    }
    sql_column_def_t c = {0};
    SQL_TRY(column_def(p, &c, &s->u.create_table.primary_key));
    if (s->u.create_table.primary_key.n == 1 &&
        s->u.create_table.primary_key.items[0].name == c.name.name)
      SQL_TRY(pk_not_enforced(p, &s->u.create_table.pk_not_enforced));
    SQL_PUSH(p, s->u.create_table.columns, s->u.create_table.ncolumns, cap, c);
  } while (sql__accept(p, SQL_T_COMMA));
  return sql__expect(p, SQL_T_RPAREN, "',' or ')' after the column definitions");
}

/* At '(' after the table name: a column-name list (CTAS) rather than definitions? */
static bool at_name_list(const sql_parser_t *p) {
  size_t k = 1;
  for (;;) {
    const sql_tok_t *t = sql__peek(p, k);
    if (t->kind != SQL_T_WORD && t->kind != SQL_T_QIDENT) return false;
    t = sql__peek(p, k + 1);
    if (t->kind == SQL_T_RPAREN)
      return sql__peek_kw(p, k + 2, SQL_KW_AS) || sql__peek_kw(p, k + 2, SQL_KW_COMMENT) ||
             sql__peek_kw(p, k + 2, SQL_KW_WITH);
    if (t->kind != SQL_T_COMMA) return false;
    k += 2;
  }
}

static int create_table(sql_parser_t *p, sql_stmt_t *s) {
  s->kind = SQL_S_CREATE_TABLE;
  SQL_TRY(if_not_exists(p, &s->u.create_table.if_not_exists));
  SQL_TRY(sql__qname(p, &s->u.create_table.name, "a table name"));
  bool defined = false;
  if (sql__is(p, SQL_T_LPAREN)) {
    if (at_name_list(p)) {
      SQL_TRY(sql__ident_list_paren(p, &s->u.create_table.as_columns, "a column name"));
    } else {
      sql__next(p);
      SQL_TRY(table_elements(p, s));
      defined = true;
    }
  }
  for (;;) {
    if (sql__accept_kw(p, SQL_KW_COMMENT)) {
      if (s->u.create_table.comment) return sql__fail(p, "COMMENT given twice");
      SQL_TRY(comment_string(p, &s->u.create_table.comment, &s->u.create_table.comment_len));
    } else if (sql__is_kw(p, SQL_KW_PARTITIONED)) {
      sql__next(p);
      SQL_TRY(sql__expect_kw(p, SQL_KW_BY, "BY after PARTITIONED"));
      SQL_TRY(sql__ident_list_paren(p, &s->u.create_table.partitioned_by, "a partition column"));
    } else if (sql__is_kw(p, SQL_KW_WITH) && sql__peek(p, 1)->kind == SQL_T_LPAREN) {
      if (s->u.create_table.props.n) return sql__fail(p, "WITH properties given twice");
      sql__next(p);
      SQL_TRY(sql__properties(p, &s->u.create_table.props));
    } else {
      break;
    }
  }
  if (sql__accept_kw(p, SQL_KW_AS)) {
    if (defined)
      return sql__fail(p, "CREATE TABLE AS takes column names only, not column definitions");
    bool paren = sql__is(p, SQL_T_LPAREN) && !sql__at_paren_query(p);
    if (paren) return sql__expected(p, "a query after AS");
    SQL_TRY(sql__query(p, &s->u.create_table.as_query));
    if (sql__is_kw(p, SQL_KW_WITH)) {
      sql__next(p);
      s->u.create_table.with_data_given = true;
      s->u.create_table.with_no_data = sql__accept_kw(p, SQL_KW_NO);
      SQL_TRY(sql__expect_kw(p, SQL_KW_DATA, "DATA after WITH [NO]"));
    }
    return FL_OK;
  }
  if (!defined)
    return sql__expected(
        p, s->u.create_table.as_columns.n ? "AS and a query" : "'(' and column definitions, or AS");
  return FL_OK;
}

static int create_view(sql_parser_t *p, sql_stmt_t *s) {
  s->kind = SQL_S_CREATE_VIEW;
  SQL_TRY(sql__qname(p, &s->u.create_view.name, "a view name"));
  if (sql__is(p, SQL_T_LPAREN))
    SQL_TRY(sql__ident_list_paren(p, &s->u.create_view.columns, "a column name"));
  if (sql__accept_kw(p, SQL_KW_COMMENT))
    SQL_TRY(comment_string(p, &s->u.create_view.comment, &s->u.create_view.comment_len));
  SQL_TRY(sql__expect_kw(p, SQL_KW_AS, "AS and the view's query"));
  return sql__query(p, &s->u.create_view.query);
}

int sql__stmt_create(sql_parser_t *p, sql_stmt_t *s) {
  sql__next(p); /* CREATE */
  bool or_replace = false, temporary = false;
  if (sql__accept_kw(p, SQL_KW_OR)) {
    SQL_TRY(sql__expect_kw(p, SQL_KW_REPLACE, "REPLACE after CREATE OR"));
    or_replace = true;
  }
  temporary = sql__accept_kw(p, SQL_KW_TEMPORARY);
  if (sql__accept_kw(p, SQL_KW_SCHEMA)) {
    if (or_replace || temporary)
      return sql__fail(p, "CREATE SCHEMA takes no OR REPLACE or TEMPORARY");
    s->kind = SQL_S_CREATE_SCHEMA;
    SQL_TRY(if_not_exists(p, &s->u.create_schema.if_not_exists));
    SQL_TRY(sql__qname(p, &s->u.create_schema.name, "a schema name"));
    if (sql__accept_kw(p, SQL_KW_WITH)) SQL_TRY(sql__properties(p, &s->u.create_schema.props));
    return FL_OK;
  }
  if (sql__accept_kw(p, SQL_KW_TABLE)) {
    if (or_replace && sql__is_kw(p, SQL_KW_IF))
      return sql__fail(p, "CREATE OR REPLACE TABLE cannot also say IF NOT EXISTS");
    SQL_TRY(create_table(p, s));
    s->u.create_table.or_replace = or_replace;
    s->u.create_table.temporary = temporary;
    return FL_OK;
  }
  if (sql__accept_kw(p, SQL_KW_VIEW)) {
    SQL_TRY(create_view(p, s));
    s->u.create_view.or_replace = or_replace;
    s->u.create_view.temporary = temporary;
    return FL_OK;
  }
  return sql__expected(p, "SCHEMA, TABLE or VIEW after CREATE");
}

int sql__stmt_drop(sql_parser_t *p, sql_stmt_t *s) {
  sql__next(p); /* DROP */
  const char *what;
  if (sql__accept_kw(p, SQL_KW_SCHEMA)) {
    s->kind = SQL_S_DROP_SCHEMA;
    what = "a schema name";
  } else if (sql__accept_kw(p, SQL_KW_TABLE)) {
    s->kind = SQL_S_DROP_TABLE;
    what = "a table name";
  } else if (sql__accept_kw(p, SQL_KW_VIEW)) {
    s->kind = SQL_S_DROP_VIEW;
    what = "a view name";
  } else {
    return sql__expected(p, "SCHEMA, TABLE or VIEW after DROP");
  }
  SQL_TRY(if_exists(p, &s->u.drop.if_exists));
  SQL_TRY(sql__qname(p, &s->u.drop.name, what));
  if (s->kind == SQL_S_DROP_SCHEMA) {
    if (sql__accept_kw(p, SQL_KW_CASCADE))
      s->u.drop.cascade = true;
    else if (sql__accept_kw(p, SQL_KW_RESTRICT))
      s->u.drop.restrict_ = true;
  }
  return FL_OK;
}

static int time_unit(sql_parser_t *p, sql_retain_unit_t *out, const char *what) {
  if (sql__accept_kw(p, SQL_KW_DAYS) || sql__accept_kw(p, SQL_KW_DAY))
    *out = SQL_RETAIN_DAYS;
  else if (sql__accept_kw(p, SQL_KW_HOURS) || sql__accept_kw(p, SQL_KW_HOUR))
    *out = SQL_RETAIN_HOURS;
  else if (sql__accept_kw(p, SQL_KW_MINUTES) || sql__accept_kw(p, SQL_KW_MINUTE))
    *out = SQL_RETAIN_MINUTES;
  else
    return sql__expected(p, what);
  return FL_OK;
}

/*
 * CREATE [OR REPLACE] BRANCH|TAG [IF NOT EXISTS] name [AS OF VERSION n] [RETAIN n unit]
 *   [WITH SNAPSHOT RETENTION [n SNAPSHOTS] [n unit]], and Spark's REPLACE BRANCH|TAG name ...
 * (after CREATE, or at REPLACE when replace_only).
 */
static int create_ref(sql_parser_t *p, sql_alter_t *a, bool replace_only) {
  a->kind = SQL_ALTER_CREATE_REF;
  a->replace_only = replace_only;
  if (!replace_only && sql__accept_kw(p, SQL_KW_OR)) {
    SQL_TRY(sql__expect_kw(p, SQL_KW_REPLACE, "REPLACE after CREATE OR"));
    a->or_replace = true;
  }
  if (sql__accept_kw(p, SQL_KW_BRANCH))
    a->ref = SQL_REF_BRANCH;
  else if (sql__accept_kw(p, SQL_KW_TAG))
    a->ref = SQL_REF_TAG;
  else
    return sql__expected(
        p, replace_only ? "BRANCH or TAG after REPLACE" : "BRANCH or TAG after CREATE");
  if ((a->or_replace || replace_only) && sql__is_kw(p, SQL_KW_IF))
    return sql__fail(p, "OR REPLACE and IF NOT EXISTS cannot be combined");
  SQL_TRY(if_not_exists(p, &a->if_not_exists));
  SQL_TRY(sql__ident(p, &a->ref_name, a->ref == SQL_REF_BRANCH ? "a branch name" : "a tag name"));
  if (sql__is_kw(p, SQL_KW_AS)) {
    sql__next(p);
    SQL_TRY(sql__expect_kw(p, SQL_KW_OF, "OF after AS"));
    SQL_TRY(sql__expect_kw(p, SQL_KW_VERSION, "VERSION after AS OF"));
    SQL_TRY(sql__value_expr(p, &a->as_of_version));
  }
  if (sql__accept_kw(p, SQL_KW_RETAIN)) {
    SQL_TRY(sql__int(p, &a->retain, "a number after RETAIN"));
    a->has_retain = true;
    SQL_TRY(time_unit(p, &a->retain_unit, "DAYS, HOURS or MINUTES after RETAIN n"));
  }
  if (sql__is_kw(p, SQL_KW_WITH) && sql__peek_word(p, 1, "snapshot")) {
    if (a->ref == SQL_REF_TAG) return sql__fail(p, "a tag has no snapshot retention");
    sql__next(p);
    sql__next(p);
    if (!sql__peek_word(p, 0, "retention"))
      return sql__expected(p, "RETENTION after WITH SNAPSHOT");
    sql__next(p);
    int64_t n;
    SQL_TRY(sql__int(p, &n, "a number after WITH SNAPSHOT RETENTION"));
    if (sql__peek_word(p, 0, "snapshots")) {
      sql__next(p);
      a->has_min_snapshots = true;
      a->min_snapshots = n;
      if (!sql__is(p, SQL_T_INT)) return FL_OK;
      SQL_TRY(sql__int(p, &n, "a number"));
    }
    a->has_snapshot_age = true;
    a->snapshot_age = n;
    SQL_TRY(
        time_unit(p, &a->snapshot_age_unit, "SNAPSHOTS, DAYS, HOURS or MINUTES after the number"));
  }
  return FL_OK;
}

/*
 * A partition transform term as Spark writes it - name, name(arg, ...)
 * with arguments numbers or (dotted) column names - as the text the
 * Iceberg layer parses: "bucket(16, id)", "days(ts)", "id".
 */
static int partition_term(sql_parser_t *p, const char **out, sql_pos_t *pos) {
  *pos = sql__pos(p);
  fl_buf_t b;
  fl_buf_init(&b);
  sql_qname_t q;
  int rc = sql__qname(p, &q, "a partition transform or column");
  for (size_t i = 0; !rc && i < q.n; i++) {
    if (i) fl_buf_append_u8(&b, '.');
    fl_buf_append_str(&b, q.parts[i].name);
  }
  if (!rc && q.n == 1 && sql__accept(p, SQL_T_LPAREN)) {
    fl_buf_append_u8(&b, '(');
    for (int k = 0; !rc; k++) {
      if (k) fl_buf_append_str(&b, ", ");
      if (sql__is(p, SQL_T_INT)) {
        fl_buf_append(&b, p->src + sql__tok(p)->pos.off, sql__tok(p)->len);
        sql__next(p);
      } else {
        sql_qname_t arg;
        rc = sql__qname(p, &arg, "a column name or a number");
        for (size_t i = 0; !rc && i < arg.n; i++) {
          if (i) fl_buf_append_u8(&b, '.');
          fl_buf_append_str(&b, arg.parts[i].name);
        }
      }
      if (rc || !sql__accept(p, SQL_T_COMMA)) break;
    }
    if (!rc) rc = sql__expect(p, SQL_T_RPAREN, "',' or ')' after the transform's arguments");
    fl_buf_append_u8(&b, ')');
  }
  fl_buf_append_u8(&b, 0);
  if (!rc) *out = fl_arena_strdup(p->a, (const char *)b.data);
  fl_buf_free(&b);
  return rc;
}

static int partition_field_name(sql_parser_t *p, sql_alter_t *a) {
  if (!sql__accept_kw(p, SQL_KW_AS)) return FL_OK;
  return sql__ident(p, &a->part_name, "a partition field name after AS");
}

/* a, b, c without parentheses. */
static int ident_list(sql_parser_t *p, sql_ident_list_t *out, const char *what) {
  size_t cap = 0;
  do {
    sql_ident_t id;
    SQL_TRY(sql__ident(p, &id, what));
    SQL_PUSH(p, out->items, out->n, cap, id);
  } while (sql__accept(p, SQL_T_COMMA));
  return FL_OK;
}

static bool accept_word(sql_parser_t *p, const char *w) {
  if (!sql__peek_word(p, 0, w)) return false;
  sql__next(p);
  return true;
}

static int alter_drop(sql_parser_t *p, sql_alter_t *a) {
  if (accept_word(p, "identifier")) {
    if (!accept_word(p, "fields")) return sql__expected(p, "FIELDS after DROP IDENTIFIER");
    a->kind = SQL_ALTER_SET_IDENTIFIER;
    a->drop_identifier = true;
    return ident_list(p, &a->idents, "an identifier field");
  }
  if (sql__is_kw(p, SQL_KW_PARTITION) && sql__peek_word(p, 1, "field")) {
    sql__next(p);
    sql__next(p);
    a->kind = SQL_ALTER_DROP_PARTITION_FIELD;
    return partition_term(p, &a->part_old, &a->part_old_pos);
  }
  if (sql__accept_kw(p, SQL_KW_BRANCH) || sql__accept_kw(p, SQL_KW_TAG)) {
    a->kind = SQL_ALTER_DROP_REF;
    a->ref = sql__tok(p)[-1].kw == SQL_KW_BRANCH ? SQL_REF_BRANCH : SQL_REF_TAG;
    SQL_TRY(if_exists(p, &a->if_exists));
    return sql__ident(p, &a->ref_name, a->ref == SQL_REF_BRANCH ? "a branch name" : "a tag name");
  }
  SQL_TRY(sql__expect_kw(p, SQL_KW_COLUMN, "COLUMN, BRANCH or TAG after DROP"));
  a->kind = SQL_ALTER_DROP_COLUMN;
  SQL_TRY(if_exists(p, &a->if_exists));
  return sql__qname(p, &a->target, "a column name");
}

static int alter_action(sql_parser_t *p, sql_alter_t *a) {
  if (sql__accept_kw(p, SQL_KW_ADD)) {
    if (sql__is_kw(p, SQL_KW_PARTITION) && sql__peek_word(p, 1, "field")) {
      sql__next(p);
      sql__next(p);
      a->kind = SQL_ALTER_ADD_PARTITION_FIELD;
      SQL_TRY(partition_term(p, &a->part_term, &a->part_pos));
      return partition_field_name(p, a);
    }
    SQL_TRY(sql__expect_kw(p, SQL_KW_COLUMN, "COLUMN or PARTITION FIELD after ADD"));
    a->kind = SQL_ALTER_ADD_COLUMN;
    SQL_TRY(if_not_exists(p, &a->if_not_exists));
    /* Trino adds a field to a row column by its dotted name: s.f type. */
    a->column.pos = sql__pos(p);
    SQL_TRY(sql__qname(p, &a->target, "a column name"));
    a->column.name = a->target.parts[a->target.n - 1];
    SQL_TRY(column_rest(p, &a->column, NULL));
    /* Trino's position of the new column. */
    if (sql__accept_kw(p, SQL_KW_FIRST)) {
      a->has_move = true;
      a->move = SQL_MOVE_FIRST;
    } else if (sql__accept_kw(p, SQL_KW_LAST)) {
      a->has_move = true;
      a->move = SQL_MOVE_LAST;
    } else if (accept_word(p, "after")) {
      a->has_move = true;
      a->move = SQL_MOVE_AFTER;
      SQL_TRY(sql__qname(p, &a->move_ref, "a column name after AFTER"));
    }
    return FL_OK;
  }
  if (sql__accept_kw(p, SQL_KW_DROP)) return alter_drop(p, a);
  if (sql__accept_kw(p, SQL_KW_RENAME)) {
    if (sql__accept_kw(p, SQL_KW_TO)) {
      a->kind = SQL_ALTER_RENAME_TO;
      return sql__qname(p, &a->target, "the new table name");
    }
    SQL_TRY(sql__expect_kw(p, SQL_KW_COLUMN, "COLUMN or TO after RENAME"));
    a->kind = SQL_ALTER_RENAME_COLUMN;
    SQL_TRY(if_exists(p, &a->if_exists));
    SQL_TRY(sql__qname(p, &a->target, "a column name"));
    SQL_TRY(sql__expect_kw(p, SQL_KW_TO, "TO after the column name"));
    return sql__ident(p, &a->new_name, "the new column name");
  }
  if (sql__accept_kw(p, SQL_KW_ALTER)) {
    SQL_TRY(sql__expect_kw(p, SQL_KW_COLUMN, "COLUMN after ALTER"));
    SQL_TRY(sql__qname(p, &a->target, "a column name"));
    if (sql__accept_kw(p, SQL_KW_FIRST)) {
      a->kind = SQL_ALTER_MOVE_COLUMN;
      a->move = SQL_MOVE_FIRST;
      return FL_OK;
    }
    if (sql__peek_word(p, 0, "after") || sql__peek_word(p, 0, "before")) {
      a->kind = SQL_ALTER_MOVE_COLUMN;
      a->move = sql__peek_word(p, 0, "after") ? SQL_MOVE_AFTER : SQL_MOVE_BEFORE;
      sql__next(p);
      return sql__qname(p, &a->move_ref, "a column name");
    }
    if (sql__accept_kw(p, SQL_KW_COMMENT)) {
      a->kind = SQL_ALTER_COLUMN_COMMENT;
      return comment_string(p, &a->column.comment, &a->column.comment_len);
    }
    if (sql__accept_kw(p, SQL_KW_SET)) {
      SQL_TRY(sql__expect_kw(p, SQL_KW_DATA, "DATA TYPE after SET"));
      SQL_TRY(sql__expect_kw(p, SQL_KW_TYPE, "TYPE after SET DATA"));
      a->kind = SQL_ALTER_SET_TYPE;
      return sql__type(p, &a->type);
    }
    SQL_TRY(sql__expect_kw(p, SQL_KW_DROP,
                           "SET DATA TYPE, DROP NOT NULL, COMMENT, FIRST, AFTER or BEFORE"));
    SQL_TRY(sql__expect_kw(p, SQL_KW_NOT, "NOT NULL after DROP"));
    SQL_TRY(sql__expect_kw(p, SQL_KW_NULL, "NULL after DROP NOT"));
    a->kind = SQL_ALTER_DROP_NOT_NULL;
    return FL_OK;
  }
  if (sql__accept_kw(p, SQL_KW_SET)) {
    if (accept_word(p, "identifier")) {
      if (!accept_word(p, "fields")) return sql__expected(p, "FIELDS after SET IDENTIFIER");
      a->kind = SQL_ALTER_SET_IDENTIFIER;
      return ident_list(p, &a->idents, "an identifier field");
    }
    a->kind = SQL_ALTER_SET_PROPERTIES;
    if (sql__accept_kw(p, SQL_KW_PROPERTIES)) return property_list(p, &a->props);
    if (sql__is_kw(p, SQL_KW_PARTITIONING)) {
      sql_property_t pr = {0};
      pr.key = (sql_ident_t){"partitioning", false, sql__pos(p)};
      sql__next(p);
      SQL_TRY(sql__expr(p, &pr.value));
      a->props.items = SQL_NEW(p, sql_property_t);
      a->props.items[0] = pr;
      a->props.n = 1;
      return FL_OK;
    }
    return sql__expected(p, "PROPERTIES, PARTITIONING or IDENTIFIER FIELDS after SET");
  }
  if (sql__accept_kw(p, SQL_KW_EXECUTE)) {
    a->kind = SQL_ALTER_EXECUTE;
    a->procedure = SQL_NEW(p, sql_call_t);
    SQL_TRY(sql__qname(p, &a->procedure->name, "a procedure name after EXECUTE"));
    if (sql__accept(p, SQL_T_LPAREN)) SQL_TRY(sql__call_args(p, a->procedure, false));
    if (sql__accept_kw(p, SQL_KW_WHERE)) SQL_TRY(sql__expr(p, &a->where));
    return FL_OK;
  }
  if (sql__accept_kw(p, SQL_KW_CREATE)) return create_ref(p, a, false);
  if (sql__accept_kw(p, SQL_KW_REPLACE)) {
    if (sql__is_kw(p, SQL_KW_PARTITION) && sql__peek_word(p, 1, "field")) {
      sql__next(p);
      sql__next(p);
      a->kind = SQL_ALTER_REPLACE_PARTITION_FIELD;
      SQL_TRY(partition_term(p, &a->part_old, &a->part_old_pos));
      SQL_TRY(sql__expect_kw(p, SQL_KW_WITH, "WITH after the partition field"));
      SQL_TRY(partition_term(p, &a->part_term, &a->part_pos));
      return partition_field_name(p, a);
    }
    return create_ref(p, a, true);
  }
  return sql__expected(
      p, "ADD, DROP, RENAME, ALTER, SET, EXECUTE, CREATE or REPLACE after the table name");
}

/* COMMENT ON TABLE t IS '...' | NULL, COMMENT ON COLUMN t.c IS '...' | NULL (Trino). */
int sql__stmt_comment(sql_parser_t *p, sql_stmt_t *s) {
  sql__next(p); /* COMMENT */
  s->kind = SQL_S_COMMENT;
  SQL_TRY(sql__expect_kw(p, SQL_KW_ON, "ON after COMMENT"));
  if (sql__accept_kw(p, SQL_KW_COLUMN)) {
    s->u.comment.column = true;
    SQL_TRY(sql__qname(p, &s->u.comment.name, "a table and column name"));
    if (s->u.comment.name.n < 2) return sql__fail(p, "COMMENT ON COLUMN needs table.column");
  } else {
    SQL_TRY(sql__expect_kw(p, SQL_KW_TABLE, "TABLE or COLUMN after COMMENT ON"));
    SQL_TRY(sql__qname(p, &s->u.comment.name, "a table name"));
  }
  SQL_TRY(sql__expect_kw(p, SQL_KW_IS, "IS after the name"));
  if (sql__accept_kw(p, SQL_KW_NULL)) return FL_OK;
  return comment_string(p, &s->u.comment.text, &s->u.comment.len);
}

int sql__stmt_alter(sql_parser_t *p, sql_stmt_t *s) {
  sql__next(p); /* ALTER */
  SQL_TRY(sql__expect_kw(p, SQL_KW_TABLE, "TABLE after ALTER"));
  s->kind = SQL_S_ALTER_TABLE;
  SQL_TRY(if_exists(p, &s->u.alter_table.if_exists));
  SQL_TRY(sql__qname(p, &s->u.alter_table.name, "a table name"));
  s->u.alter_table.alter.pos = sql__pos(p);
  return alter_action(p, &s->u.alter_table.alter);
}
