/*
 * sql_lex.c - the SQL lexer: text to an array of positioned tokens
 * (layer 7, sql). See sql_lex.h for the token forms.
 *
 * One pass over the bytes keeps the line and the character column, so every
 * token and every lexical error carries a position a person can find.
 */
#include "sql/sql_lex.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef struct kw_entry {
  const char *name;
  bool reserved;
} kw_entry_t;

static const kw_entry_t kw_table[] = {
#define SQL__KW_ENTRY(name, reserved) {#name, reserved},
    SQL_KEYWORDS(SQL__KW_ENTRY)
#undef SQL__KW_ENTRY
};
#define KW_COUNT (sizeof kw_table / sizeof kw_table[0])

sql_kw_t sql_keyword_lookup(const char *s, size_t n) {
  if (n == 0 || n > 20) return SQL_KW_NONE;
  size_t lo = 0, hi = KW_COUNT;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    const char *k = kw_table[mid].name;
    int c = strncasecmp(s, k, n);
    if (c == 0 && k[n] != '\0') c = -1; /* s is a proper prefix of k */
    if (c == 0) return (sql_kw_t)(mid + 1);
    if (c < 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  return SQL_KW_NONE;
}

const char *sql_keyword_name(sql_kw_t kw) {
  if (kw <= SQL_KW_NONE || kw >= SQL_KW_COUNT) return "?";
  return kw_table[kw - 1].name;
}

bool sql_keyword_reserved(sql_kw_t kw) {
  if (kw <= SQL_KW_NONE || kw >= SQL_KW_COUNT) return false;
  return kw_table[kw - 1].reserved;
}

bool sql_keyword_table_sorted(void) {
  for (size_t i = 1; i < KW_COUNT; i++)
    if (strcmp(kw_table[i - 1].name, kw_table[i].name) >= 0) return false;
  return true;
}

const char *sql_tok_kind_name(sql_tok_kind_t kind) {
  static const char *const names[SQL_T_KIND_COUNT] = {
      [SQL_T_EOF] = "end of input",
      [SQL_T_WORD] = "identifier",
      [SQL_T_QIDENT] = "quoted identifier",
      [SQL_T_STRING] = "string literal",
      [SQL_T_USTRING] = "unicode string literal",
      [SQL_T_BINARY] = "binary literal",
      [SQL_T_INT] = "integer literal",
      [SQL_T_DECIMAL] = "decimal literal",
      [SQL_T_DOUBLE] = "double literal",
      [SQL_T_PARAM] = "'?'",
      [SQL_T_LPAREN] = "'('",
      [SQL_T_RPAREN] = "')'",
      [SQL_T_LBRACKET] = "'['",
      [SQL_T_RBRACKET] = "']'",
      [SQL_T_COMMA] = "','",
      [SQL_T_DOT] = "'.'",
      [SQL_T_SEMI] = "';'",
      [SQL_T_PLUS] = "'+'",
      [SQL_T_MINUS] = "'-'",
      [SQL_T_STAR] = "'*'",
      [SQL_T_SLASH] = "'/'",
      [SQL_T_PERCENT] = "'%'",
      [SQL_T_CONCAT] = "'||'",
      [SQL_T_EQ] = "'='",
      [SQL_T_NE] = "'<>'",
      [SQL_T_LT] = "'<'",
      [SQL_T_LE] = "'<='",
      [SQL_T_GT] = "'>'",
      [SQL_T_GE] = "'>='",
      [SQL_T_ARROW] = "'->'",
      [SQL_T_NAMEDARG] = "'=>'",
      [SQL_T_LBRACE] = "'{'",
      [SQL_T_RBRACE] = "'}'",
      [SQL_T_COLON] = "':'",
  };
  if ((unsigned)kind >= SQL_T_KIND_COUNT) return "token";
  return names[kind];
}

typedef struct lexer {
  fl_arena_t *a;
  const char *s;
  size_t n;
  size_t i;      /* next byte */
  uint32_t line; /* of byte i */
  uint32_t col;  /* of byte i */
  sql_tok_t *toks;
  size_t ntok, cap;
  fl_err_t *err;
} lexer_t;

static bool is_word_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
static bool is_word_char(unsigned char c) {
  return is_word_start(c) || (c >= '0' && c <= '9') || c == '$';
}
static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static bool is_hex(unsigned char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Moves past one byte, keeping line and character column. */
static void adv(lexer_t *lx) {
  unsigned char c = (unsigned char)lx->s[lx->i++];
  if (c == '\n') {
    lx->line++;
    lx->col = 1;
  } else if ((c & 0xC0) != 0x80) {
    lx->col++;
  }
}

static int lex_fail(lexer_t *lx, sql_pos_t at, const char *what) {
  return fl_err_set(lx->err, FL_EPARSE, "line %u, column %u: %s", at.line, at.col, what);
}

static void push(lexer_t *lx, sql_tok_kind_t kind, sql_kw_t kw, sql_pos_t at) {
  if (lx->ntok == lx->cap) {
    /* Typical SQL has a token per five or six bytes; start near that. */
    size_t cap = lx->cap ? lx->cap * 2 : lx->n / 5 + 16;
    sql_tok_t *t = fl_arena_alloc(lx->a, cap * sizeof *t);
    if (lx->ntok) memcpy(t, lx->toks, lx->ntok * sizeof *t);
    lx->toks = t;
    lx->cap = cap;
  }
  sql_tok_t *t = &lx->toks[lx->ntok++];
  t->kind = (uint8_t)kind;
  t->kw = (uint16_t)kw;
  t->pos = at;
  t->len = (uint32_t)(lx->i - at.off);
}

/* Scans a quoted run closed by q, where a doubled q stands for one. */
static int scan_quoted(lexer_t *lx, char q, sql_pos_t at, const char *what) {
  adv(lx); /* opening quote */
  for (;;) {
    if (lx->i >= lx->n) return lex_fail(lx, at, what);
    if (lx->s[lx->i] == '\0') {
      /* Printed trees and names are C strings, so NUL stays out of all text. */
      sql_pos_t nul = {(uint32_t)lx->i, lx->line, lx->col};
      return lex_fail(lx, nul, "NUL byte in SQL text");
    }
    if (lx->s[lx->i] == q) {
      adv(lx);
      if (lx->i < lx->n && lx->s[lx->i] == q) {
        adv(lx);
        continue;
      }
      return FL_OK;
    }
    adv(lx);
  }
}

static int scan_number(lexer_t *lx, sql_pos_t at) {
  sql_tok_kind_t kind = SQL_T_INT;
  while (lx->i < lx->n && is_digit((unsigned char)lx->s[lx->i])) adv(lx);
  if (lx->i < lx->n && lx->s[lx->i] == '.') {
    kind = SQL_T_DECIMAL;
    adv(lx);
    while (lx->i < lx->n && is_digit((unsigned char)lx->s[lx->i])) adv(lx);
  }
  if (lx->i < lx->n && (lx->s[lx->i] == 'e' || lx->s[lx->i] == 'E')) {
    size_t x = lx->i + 1;
    if (x < lx->n && (lx->s[x] == '+' || lx->s[x] == '-')) x++;
    if (x >= lx->n || !is_digit((unsigned char)lx->s[x]))
      return lex_fail(lx, at, "malformed number: the exponent has no digits");
    while (lx->i < x) adv(lx);
    while (lx->i < lx->n && is_digit((unsigned char)lx->s[lx->i])) adv(lx);
    kind = SQL_T_DOUBLE;
  }
  if (lx->i < lx->n && is_word_char((unsigned char)lx->s[lx->i]))
    return lex_fail(lx, at, "malformed number: a letter follows the digits");
  push(lx, kind, SQL_KW_NONE, at);
  return FL_OK;
}

/* Operators and punctuation, longest first where one is a prefix of another. */
static const struct {
  const char *text;
  sql_tok_kind_t kind;
} punct[] = {
    {"||", SQL_T_CONCAT}, {"<>", SQL_T_NE},      {"!=", SQL_T_NE},       {"<=", SQL_T_LE},
    {">=", SQL_T_GE},     {"->", SQL_T_ARROW},   {"=>", SQL_T_NAMEDARG}, {"(", SQL_T_LPAREN},
    {")", SQL_T_RPAREN},  {"[", SQL_T_LBRACKET}, {"]", SQL_T_RBRACKET},  {",", SQL_T_COMMA},
    {".", SQL_T_DOT},     {";", SQL_T_SEMI},     {"+", SQL_T_PLUS},      {"-", SQL_T_MINUS},
    {"*", SQL_T_STAR},    {"/", SQL_T_SLASH},    {"%", SQL_T_PERCENT},   {"=", SQL_T_EQ},
    {"<", SQL_T_LT},      {">", SQL_T_GT},       {"?", SQL_T_PARAM},     {"{", SQL_T_LBRACE},
    {"}", SQL_T_RBRACE},  {":", SQL_T_COLON},
};

static int lex_one(lexer_t *lx) {
  const char *s = lx->s;
  sql_pos_t at = {(uint32_t)lx->i, lx->line, lx->col};
  unsigned char c = (unsigned char)s[lx->i];
  unsigned char c1 = lx->i + 1 < lx->n ? (unsigned char)s[lx->i + 1] : 0;

  if ((c == 'x' || c == 'X') && c1 == '\'') {
    adv(lx);
    int rc = scan_quoted(lx, '\'', at, "unterminated binary literal");
    if (rc) return rc;
    size_t digits = 0;
    for (size_t k = at.off + 2; k < lx->i - 1; k++) {
      if (s[k] == ' ') continue;
      if (!is_hex((unsigned char)s[k]))
        return lex_fail(lx, at, "binary literal holds a character that is not a hex digit");
      digits++;
    }
    if (digits % 2) return lex_fail(lx, at, "binary literal has an odd number of hex digits");
    push(lx, SQL_T_BINARY, SQL_KW_NONE, at);
    return FL_OK;
  }
  if ((c == 'u' || c == 'U') && c1 == '&' && lx->i + 2 < lx->n && s[lx->i + 2] == '\'') {
    adv(lx);
    adv(lx);
    int rc = scan_quoted(lx, '\'', at, "unterminated string literal");
    if (rc) return rc;
    push(lx, SQL_T_USTRING, SQL_KW_NONE, at);
    return FL_OK;
  }
  if (is_word_start(c)) {
    while (lx->i < lx->n && is_word_char((unsigned char)s[lx->i])) adv(lx);
    push(lx, SQL_T_WORD, sql_keyword_lookup(s + at.off, lx->i - at.off), at);
    return FL_OK;
  }
  if (is_digit(c) || (c == '.' && is_digit(c1))) return scan_number(lx, at);
  if (c == '\'') {
    int rc = scan_quoted(lx, '\'', at, "unterminated string literal");
    if (rc) return rc;
    push(lx, SQL_T_STRING, SQL_KW_NONE, at);
    return FL_OK;
  }
  if (c == '"' || c == '`') {
    int rc = scan_quoted(lx, (char)c, at, "unterminated quoted identifier");
    if (rc) return rc;
    if (lx->i - at.off == 2) return lex_fail(lx, at, "zero-length quoted identifier");
    push(lx, SQL_T_QIDENT, SQL_KW_NONE, at);
    return FL_OK;
  }
  for (size_t k = 0; k < sizeof punct / sizeof punct[0]; k++) {
    size_t pl = strlen(punct[k].text);
    if (lx->i + pl <= lx->n && memcmp(s + lx->i, punct[k].text, pl) == 0) {
      for (size_t j = 0; j < pl; j++) adv(lx);
      push(lx, punct[k].kind, SQL_KW_NONE, at);
      return FL_OK;
    }
  }
  char what[64];
  if (c >= 0x21 && c < 0x7f)
    snprintf(what, sizeof what, "unexpected character '%c'", c);
  else
    snprintf(what, sizeof what, "unexpected byte 0x%02x", c);
  return lex_fail(lx, at, what);
}

int sql_lex(fl_arena_t *a, const char *text, size_t len, sql_tok_t **out, size_t *ntok,
            fl_err_t *err) {
  if (len >= UINT32_MAX)
    return fl_err_set(err, FL_ELIMIT, "SQL text of %zu bytes is too long", len);
  lexer_t lx = {.a = a, .s = text, .n = len, .line = 1, .col = 1, .err = err};
  while (lx.i < lx.n) {
    unsigned char c = (unsigned char)text[lx.i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      adv(&lx);
      continue;
    }
    if (c == '-' && lx.i + 1 < lx.n && text[lx.i + 1] == '-') {
      while (lx.i < lx.n && text[lx.i] != '\n') adv(&lx);
      continue;
    }
    if (c == '/' && lx.i + 1 < lx.n && text[lx.i + 1] == '*') {
      sql_pos_t at = {(uint32_t)lx.i, lx.line, lx.col};
      adv(&lx);
      adv(&lx);
      for (;;) {
        if (lx.i + 1 >= lx.n) {
          return lex_fail(&lx, at, "unterminated comment");
        }
        if (text[lx.i] == '*' && text[lx.i + 1] == '/') break;
        adv(&lx);
      }
      adv(&lx);
      adv(&lx);
      continue;
    }
    if (c == 0) {
      sql_pos_t at = {(uint32_t)lx.i, lx.line, lx.col};
      return lex_fail(&lx, at, "NUL byte in SQL text");
    }
    int rc = lex_one(&lx);
    if (rc) return rc;
  }
  sql_pos_t end = {(uint32_t)lx.i, lx.line, lx.col};
  push(&lx, SQL_T_EOF, SQL_KW_NONE, end);
  *out = lx.toks;
  *ntok = lx.ntok;
  return FL_OK;
}
