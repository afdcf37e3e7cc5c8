/*
 * sql_parse_type.c - type names in CAST and DDL (layer 7, sql).
 *
 * Trino's spellings (integer, varchar(n), decimal(p,s), timestamp(p) with
 * time zone, array(T), map(K,V), row(a T)), Flink's angle-bracket forms
 * (ARRAY<T>, MAP<K,V>, ROW<a T>, STRING, BYTES, TIMESTAMP_LTZ(p)) and
 * Iceberg's (string, long, binary, fixed(L), timestamptz), all normalized
 * to one kind per type so the binder sees a single spelling.
 */
#include <strings.h>

#include "sql/sql_parse_int.h"

typedef struct type_word {
  const char *word;
  sql_type_kind_t kind;
  bool literal_ok; /* may prefix a typed literal: DATE '...' */
  bool tz;         /* implies with time zone */
  int precision;   /* implied precision (timestamp_ns), or 0 for none */
} type_word_t;

static const type_word_t type_words[] = {
    {"bigint", SQL_TY_BIGINT, true, false, 0},
    {"binary", SQL_TY_VARBINARY, false, false, 0},
    {"bool", SQL_TY_BOOLEAN, false, false, 0},
    {"boolean", SQL_TY_BOOLEAN, true, false, 0},
    {"bytes", SQL_TY_VARBINARY, false, false, 0},
    {"char", SQL_TY_CHAR, true, false, 0},
    {"character", SQL_TY_CHAR, false, false, 0},
    {"date", SQL_TY_DATE, true, false, 0},
    {"dec", SQL_TY_DECIMAL, false, false, 0},
    {"decimal", SQL_TY_DECIMAL, true, false, 0},
    {"double", SQL_TY_DOUBLE, true, false, 0},
    {"fixed", SQL_TY_FIXED, false, false, 0},
    {"float", SQL_TY_REAL, false, false, 0},
    {"int", SQL_TY_INTEGER, true, false, 0},
    {"integer", SQL_TY_INTEGER, true, false, 0},
    {"json", SQL_TY_JSON, true, false, 0},
    {"long", SQL_TY_BIGINT, false, false, 0},
    {"numeric", SQL_TY_DECIMAL, true, false, 0},
    {"real", SQL_TY_REAL, true, false, 0},
    {"smallint", SQL_TY_SMALLINT, true, false, 0},
    {"string", SQL_TY_VARCHAR, false, false, 0},
    {"time", SQL_TY_TIME, true, false, 0},
    {"timestamp", SQL_TY_TIMESTAMP, true, false, 0},
    {"timestamp_ltz", SQL_TY_TIMESTAMP, false, true, 0},
    {"timestamptz", SQL_TY_TIMESTAMP, false, true, 0},
    {"tinyint", SQL_TY_TINYINT, true, false, 0},
    {"uuid", SQL_TY_UUID, true, false, 0},
    {"varbinary", SQL_TY_VARBINARY, true, false, 0},
    {"varchar", SQL_TY_VARCHAR, true, false, 0},
    {"array", SQL_TY_ARRAY, false, false, 0},
    {"timestamp_ns", SQL_TY_TIMESTAMP, false, false, 9},
    {"timestamptz_ns", SQL_TY_TIMESTAMP, false, true, 9},
    {"map", SQL_TY_MAP, false, false, 0},
    {"row", SQL_TY_ROW, false, false, 0},
};

static const type_word_t *find_word(const sql_parser_t *p, const sql_tok_t *t) {
  if (t->kind != SQL_T_WORD) return NULL;
  for (size_t k = 0; k < sizeof type_words / sizeof type_words[0]; k++)
    if (strlen(type_words[k].word) == t->len &&
        strncasecmp(type_words[k].word, p->src + t->pos.off, t->len) == 0)
      return &type_words[k];
  return NULL;
}

int sql__type_word_kind(const sql_parser_t *p, const sql_tok_t *t) {
  const type_word_t *w = find_word(p, t);
  return w && w->literal_ok ? (int)w->kind : -1;
}

/* ( n [, m] ) after a type name; max_params is 1 or 2. */
static int type_params(sql_parser_t *p, sql_type_t *t, int max_params) {
  if (!sql__accept(p, SQL_T_LPAREN)) return FL_OK;
  do {
    if (t->nparams == max_params) return sql__expected(p, "')' after the type parameters");
    SQL_TRY(sql__int(p, &t->params[t->nparams], "a number in the type's parentheses"));
    t->nparams++;
  } while (sql__accept(p, SQL_T_COMMA));
  return sql__expect(p, SQL_T_RPAREN, "')' after the type parameters");
}

static int check_params(sql_parser_t *p, sql_type_t *t, sql_pos_t at) {
  const char *name = sql_type_kind_name(t->kind);
  int64_t a = t->params[0], b = t->params[1];
  const char *bad = NULL;
  switch (t->kind) {
    case SQL_TY_DECIMAL:
      if (t->nparams >= 1 && (a < 1 || a > 38)) bad = "precision must be 1 to 38";
      if (t->nparams == 2 && (b < 0 || b > a)) bad = "scale must be 0 to the precision";
      break;
    case SQL_TY_VARCHAR:
    case SQL_TY_CHAR:
      if (t->nparams == 1 && (a < 1 || a > INT32_MAX)) bad = "length must be 1 to 2147483647";
      break;
    case SQL_TY_FIXED:
      if (t->nparams != 1)
        bad = "a length is required, as in fixed(16)";
      else if (a < 1 || a > INT32_MAX)
        bad = "length must be 1 to 2147483647";
      break;
    case SQL_TY_TIME:
    case SQL_TY_TIMESTAMP:
      if (t->nparams == 1 && a > 12) bad = "precision must be 0 to 12";
      break;
    default: break;
  }
  if (!bad) return FL_OK;
  return fl_err_set(p->err, FL_EPARSE, "line %u, column %u: type %s: %s", at.line, at.col, name,
                    bad);
}

/* [WITH [LOCAL] TIME ZONE | WITHOUT TIME ZONE] after time/timestamp. */
static int zone_suffix(sql_parser_t *p, sql_type_t *t) {
  bool with = sql__is_kw(p, SQL_KW_WITH), without = sql__is_kw(p, SQL_KW_WITHOUT);
  if (!with && !without) return FL_OK;
  size_t k = 1;
  if (with && sql__peek_kw(p, 1, SQL_KW_LOCAL)) k = 2;
  if (!sql__peek_kw(p, k, SQL_KW_TIME) || !sql__peek_kw(p, k + 1, SQL_KW_ZONE))
    return FL_OK; /* some other WITH, e.g. CREATE TABLE ... WITH (...) */
  for (size_t j = 0; j < k + 2; j++) sql__next(p);
  t->with_tz = with;
  return FL_OK;
}

static int row_fields(sql_parser_t *p, sql_type_t *t, sql_tok_kind_t close) {
  sql_row_field_t *fields = NULL;
  size_t n = 0, cap = 0;
  do {
    sql_row_field_t f = {0};
    /* A field is "name type" or a bare type; try the named form first. */
    sql_mark_t m = sql__mark(p);
    bool named = false;
    if (sql__at_ident(p)) {
      const sql_tok_t *t1 = sql__peek(p, 1);
      if (t1->kind == SQL_T_WORD || t1->kind == SQL_T_QIDENT) {
        if (sql__ident(p, &f.name, "a field name") == FL_OK && sql__type(p, &f.type) == FL_OK)
          named = true;
      }
    }
    if (!named) {
      if (p->too_deep) return p->err->code;
      sql__reset(p, m);
      f.name = (sql_ident_t){0};
      SQL_TRY(sql__type(p, &f.type));
    }
    if (sql__is_kw(p, SQL_KW_NOT) && sql__peek_kw(p, 1, SQL_KW_NULL)) {
      sql__next(p);
      sql__next(p);
      f.type->not_null = true;
    }
    SQL_PUSH(p, fields, n, cap, f);
  } while (sql__accept(p, SQL_T_COMMA));
  SQL_TRY(sql__expect(
      p, close, close == SQL_T_GT ? "',' or '>' in the row type" : "',' or ')' in the row type"));
  t->fields = fields;
  t->nfields = n;
  return FL_OK;
}

static int nested(sql_parser_t *p, sql_type_t *t) {
  sql_tok_kind_t close;
  if (sql__accept(p, SQL_T_LPAREN))
    close = SQL_T_RPAREN;
  else if (sql__accept(p, SQL_T_LT))
    close = SQL_T_GT;
  else
    return sql__expected(
        p, t->kind == SQL_TY_ROW ? "'(' or '<' after ROW" : "'(' or '<' after the type name");
  if (t->kind == SQL_TY_ROW) return row_fields(p, t, close);
  SQL_TRY(sql__type(p, &t->elem));
  if (t->kind == SQL_TY_MAP) {
    SQL_TRY(sql__expect(p, SQL_T_COMMA, "',' between the map key and value types"));
    SQL_TRY(sql__type(p, &t->value));
  }
  return sql__expect(p, close,
                     close == SQL_T_GT ? "'>' to close the type" : "')' to close the type");
}

int sql__type(sql_parser_t *p, sql_type_t **out) {
  SQL_TRY(sql__enter(p));
  const sql_tok_t *tok = sql__tok(p);
  const type_word_t *w = find_word(p, tok);
  if (!w) {
    if (tok->kind == SQL_T_WORD || tok->kind == SQL_T_QIDENT)
      return sql__fail(p, "unknown type %s", sql__tok_text(p, tok));
    return sql__expected(p, "a type");
  }
  sql_type_t *t = SQL_NEW(p, sql_type_t);
  t->kind = w->kind;
  t->pos = tok->pos;
  t->with_tz = w->tz;
  if (w->precision) {
    t->nparams = 1;
    t->params[0] = w->precision;
  }
  sql__next(p);
  switch (t->kind) {
    case SQL_TY_ARRAY:
    case SQL_TY_MAP:
    case SQL_TY_ROW: SQL_TRY(nested(p, t)); break;
    case SQL_TY_DOUBLE: sql__accept_kw(p, SQL_KW_PRECISION); break;
    case SQL_TY_DECIMAL: SQL_TRY(type_params(p, t, 2)); break;
    case SQL_TY_CHAR:
      if (sql__peek_word(p, 0, "varying")) { /* character varying */
        sql__next(p);
        t->kind = SQL_TY_VARCHAR;
      }
      SQL_TRY(type_params(p, t, 1));
      break;
    case SQL_TY_VARCHAR:
    case SQL_TY_FIXED: SQL_TRY(type_params(p, t, 1)); break;
    case SQL_TY_TIME:
    case SQL_TY_TIMESTAMP:
      if (w->precision) break;
      SQL_TRY(type_params(p, t, 1));
      if (!w->tz) SQL_TRY(zone_suffix(p, t));
      break;
    default: break;
  }
  SQL_TRY(check_params(p, t, tok->pos));
  sql__leave(p);
  *out = t;
  return FL_OK;
}
