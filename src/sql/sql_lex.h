/*
 * sql_lex.h - the SQL lexer (layer 7, sql).
 *
 * Turns SQL text into an array of tokens, each with its byte offset, length,
 * 1-based line and column (columns count characters, not bytes). Words are
 * classified against one sorted keyword table; a keyword is either reserved
 * (never an identifier, as in Trino) or non-reserved (an identifier wherever
 * the grammar allows one, so `date`, `year`, `data`, `comment` work as column
 * names). Comments (`--` to end of line, nested-free `/ * ... * /`) and white
 * space are skipped. Token values (unescaped strings, folded identifiers) are
 * decoded by the parser from the source slice, which the lexer has checked.
 */
#ifndef FL_SQL_LEX_H
#define FL_SQL_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"

/*
 * The keyword table: X(name, reserved). Kept in strict alphabetical order so
 * lookups can binary-search it (a unit test checks the order).
 */
#define SQL_KEYWORDS(X)   \
  X(ADD, 0)               \
  X(ALL, 0)               \
  X(ALTER, 1)             \
  X(ANALYZE, 0)           \
  X(AND, 1)               \
  X(ANY, 0)               \
  X(ARRAY, 0)             \
  X(AS, 1)                \
  X(ASC, 0)               \
  X(AT, 0)                \
  X(BEGIN, 0)             \
  X(BETWEEN, 1)           \
  X(BRANCH, 0)            \
  X(BY, 1)                \
  X(CALL, 0)              \
  X(CASCADE, 0)           \
  X(CASE, 1)              \
  X(CAST, 1)              \
  X(COLUMN, 0)            \
  X(COLUMNS, 0)           \
  X(COMMENT, 0)           \
  X(CONSTRAINT, 1)        \
  X(CREATE, 1)            \
  X(CROSS, 1)             \
  X(CUBE, 1)              \
  X(CURRENT, 0)           \
  X(CURRENT_DATE, 1)      \
  X(CURRENT_TIME, 1)      \
  X(CURRENT_TIMESTAMP, 1) \
  X(DATA, 0)              \
  X(DAY, 0)               \
  X(DAYS, 0)              \
  X(DELETE, 1)            \
  X(DESC, 0)              \
  X(DESCRIBE, 1)          \
  X(DESCRIPTOR, 0)        \
  X(DISTINCT, 1)          \
  X(DROP, 1)              \
  X(ELSE, 1)              \
  X(END, 1)               \
  X(ENFORCED, 0)          \
  X(ESCAPE, 1)            \
  X(EXCEPT, 1)            \
  X(EXECUTE, 1)           \
  X(EXISTS, 1)            \
  X(EXPLAIN, 0)           \
  X(EXTRACT, 1)           \
  X(FALSE, 1)             \
  X(FETCH, 0)             \
  X(FILTER, 0)            \
  X(FIRST, 0)             \
  X(FOLLOWING, 0)         \
  X(FOR, 1)               \
  X(FROM, 1)              \
  X(FULL, 1)              \
  X(GROUP, 1)             \
  X(GROUPING, 1)          \
  X(GROUPS, 0)            \
  X(HAVING, 1)            \
  X(HOUR, 0)              \
  X(HOURS, 0)             \
  X(IF, 0)                \
  X(IN, 1)                \
  X(INNER, 1)             \
  X(INSERT, 1)            \
  X(INTERSECT, 1)         \
  X(INTERVAL, 0)          \
  X(INTO, 1)              \
  X(IS, 1)                \
  X(JOIN, 1)              \
  X(KEY, 0)               \
  X(LAST, 0)              \
  X(LATERAL, 0)           \
  X(LEFT, 1)              \
  X(LIKE, 1)              \
  X(LIMIT, 0)             \
  X(LOCAL, 0)             \
  X(LOCALTIME, 1)         \
  X(LOCALTIMESTAMP, 1)    \
  X(MATCHED, 0)           \
  X(MERGE, 0)             \
  X(METADATA, 0)          \
  X(MINUTE, 0)            \
  X(MINUTES, 0)           \
  X(MONTH, 0)             \
  X(NATURAL, 1)           \
  X(NEXT, 0)              \
  X(NO, 0)                \
  X(NOT, 1)               \
  X(NULL, 1)              \
  X(NULLS, 0)             \
  X(OF, 0)                \
  X(OFFSET, 0)            \
  X(ON, 1)                \
  X(ONLY, 0)              \
  X(OR, 1)                \
  X(ORDER, 1)             \
  X(ORDINALITY, 0)        \
  X(OUTER, 1)             \
  X(OVER, 0)              \
  X(PARTITION, 0)         \
  X(PARTITIONED, 0)       \
  X(PARTITIONING, 0)      \
  X(PRECEDING, 0)         \
  X(PRECISION, 0)         \
  X(PRIMARY, 0)           \
  X(PROPERTIES, 0)        \
  X(RANGE, 0)             \
  X(RECURSIVE, 1)         \
  X(RENAME, 0)            \
  X(REPLACE, 0)           \
  X(RESET, 0)             \
  X(RESTRICT, 0)          \
  X(RETAIN, 0)            \
  X(RIGHT, 1)             \
  X(ROLLUP, 1)            \
  X(ROW, 0)               \
  X(ROWS, 0)              \
  X(SCHEMA, 0)            \
  X(SCHEMAS, 0)           \
  X(SECOND, 0)            \
  X(SELECT, 1)            \
  X(SESSION, 0)           \
  X(SET, 0)               \
  X(SETS, 0)              \
  X(SHOW, 0)              \
  X(SOME, 0)              \
  X(STATEMENT, 0)         \
  X(SYSTEM_TIME, 0)       \
  X(TABLE, 1)             \
  X(TABLES, 0)            \
  X(TAG, 0)               \
  X(TEMPORARY, 0)         \
  X(THEN, 1)              \
  X(TIES, 0)              \
  X(TIME, 0)              \
  X(TIMESTAMP, 0)         \
  X(TO, 0)                \
  X(TRUE, 1)              \
  X(TRUNCATE, 0)          \
  X(TRY_CAST, 0)          \
  X(TYPE, 0)              \
  X(UNBOUNDED, 0)         \
  X(UNION, 1)             \
  X(UNNEST, 1)            \
  X(UPDATE, 0)            \
  X(USE, 0)               \
  X(USING, 1)             \
  X(VALUES, 1)            \
  X(VERSION, 0)           \
  X(VIEW, 0)              \
  X(VIRTUAL, 0)           \
  X(WATERMARK, 0)         \
  X(WHEN, 1)              \
  X(WHERE, 1)             \
  X(WINDOW, 0)            \
  X(WITH, 1)              \
  X(WITHOUT, 0)           \
  X(YEAR, 0)              \
  X(ZONE, 0)

typedef enum sql_kw {
  SQL_KW_NONE = 0,
#define SQL__KW_ENUM(name, reserved) SQL_KW_##name,
  SQL_KEYWORDS(SQL__KW_ENUM)
#undef SQL__KW_ENUM
      SQL_KW_COUNT
} sql_kw_t;

typedef enum sql_tok_kind {
  SQL_T_EOF,
  SQL_T_WORD,    /* identifier or keyword (see kw) */
  SQL_T_QIDENT,  /* "quoted identifier" */
  SQL_T_STRING,  /* 'string' */
  SQL_T_USTRING, /* U&'unicode string' */
  SQL_T_BINARY,  /* X'hex' */
  SQL_T_INT,     /* 123 */
  SQL_T_DECIMAL, /* 1.5, .5, 1. */
  SQL_T_DOUBLE,  /* 1e5, 1.5E-3 */
  SQL_T_PARAM,   /* ? */
  SQL_T_LPAREN,
  SQL_T_RPAREN,
  SQL_T_LBRACKET,
  SQL_T_RBRACKET,
  SQL_T_COMMA,
  SQL_T_DOT,
  SQL_T_SEMI,
  SQL_T_PLUS,
  SQL_T_MINUS,
  SQL_T_STAR,
  SQL_T_SLASH,
  SQL_T_PERCENT,
  SQL_T_CONCAT, /* || */
  SQL_T_EQ,
  SQL_T_NE, /* <> or != */
  SQL_T_LT,
  SQL_T_LE,
  SQL_T_GT,
  SQL_T_GE,
  SQL_T_ARROW,    /* -> */
  SQL_T_NAMEDARG, /* => */
  SQL_T_LBRACE,   /* { of DuckDB's struct literal {'k': v} */
  SQL_T_RBRACE,
  SQL_T_COLON,
  SQL_T_KIND_COUNT
} sql_tok_kind_t;

/* A source position: byte offset, 1-based line and column. */
typedef struct sql_pos {
  uint32_t off;
  uint32_t line;
  uint32_t col;
} sql_pos_t;

typedef struct sql_tok {
  uint8_t kind;  /* sql_tok_kind_t */
  uint16_t kw;   /* sql_kw_t for SQL_T_WORD, else SQL_KW_NONE */
  uint32_t len;  /* bytes of source text */
  sql_pos_t pos; /* where the token starts */
} sql_tok_t;

/*
 * Lexes text[0..len) into an arena array of tokens ending with one SQL_T_EOF
 * token. Returns FL_OK, or FL_EPARSE with "line L, column C: ..." for an
 * unterminated string, comment or quoted identifier, a malformed number or
 * binary literal, or a character SQL does not use. Inputs over 4 GiB fail.
 */
int sql_lex(fl_arena_t *a, const char *text, size_t len, sql_tok_t **out, size_t *ntok,
            fl_err_t *err);

/* The keyword for a word of n bytes (any case), or SQL_KW_NONE. */
sql_kw_t sql_keyword_lookup(const char *s, size_t n);
/* The upper-case spelling of a keyword, and whether it is reserved. */
const char *sql_keyword_name(sql_kw_t kw);
bool sql_keyword_reserved(sql_kw_t kw);
/* Checks that the keyword table is sorted (for the unit test). */
bool sql_keyword_table_sorted(void);

/* A short human name of a token kind ("string literal", "')'"). */
const char *sql_tok_kind_name(sql_tok_kind_t kind);

#endif
