/*
 * sql_ast.c - names of the syntax tree's kinds, operators and fields
 * (layer 7, sql), generated from the X-macro tables in sql_ast.h.
 */
#include "sql/sql_ast.h"

#include <string.h>
#include <strings.h>

const char *sql_stmt_kind_name(sql_stmt_kind_t kind) {
  static const char *const names[] = {
#define SQL__STMT_NAME(name) #name,
      SQL_STMT_KINDS(SQL__STMT_NAME)
#undef SQL__STMT_NAME
  };
  return (unsigned)kind < SQL_S_KIND_COUNT ? names[kind] : "?";
}

const char *sql_expr_kind_name(sql_expr_kind_t kind) {
  static const char *const names[] = {
#define SQL__EXPR_NAME(name) #name,
      SQL_EXPR_KINDS(SQL__EXPR_NAME)
#undef SQL__EXPR_NAME
  };
  return (unsigned)kind < SQL_E_KIND_COUNT ? names[kind] : "?";
}

const char *sql_type_kind_name(sql_type_kind_t kind) {
  static const char *const names[] = {
#define SQL__TYPE_NAME(name, text) text,
      SQL_TYPE_KINDS(SQL__TYPE_NAME)
#undef SQL__TYPE_NAME
  };
  return (unsigned)kind < SQL_TY_KIND_COUNT ? names[kind] : "?";
}

const char *sql_binop_text(sql_binop_t op) {
  static const char *const texts[] = {
#define SQL__BINOP_TEXT(name, text) text,
      SQL_BINOPS(SQL__BINOP_TEXT)
#undef SQL__BINOP_TEXT
  };
  return (unsigned)op < SQL_OP_COUNT ? texts[op] : "?";
}

static const char *const field_names[] = {"",
#define SQL__FIELD_NAME(name) #name,
                                          SQL_FIELDS(SQL__FIELD_NAME)
#undef SQL__FIELD_NAME
};

const char *sql_field_name(sql_field_t f) {
  return (unsigned)f < SQL_F_COUNT ? field_names[f] : "?";
}

sql_field_t sql_field_lookup(const char *s, size_t n) {
  for (int f = 1; f < SQL_F_COUNT; f++)
    if (strlen(field_names[f]) == n && strncasecmp(field_names[f], s, n) == 0)
      return (sql_field_t)f;
  return SQL_F_NONE;
}
