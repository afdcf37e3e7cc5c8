/*
 * sql_parse_util.c - the parser's shared helpers (layer 7, sql): error
 * messages with positions, the recursion guard, backtracking support,
 * arena arrays, identifiers, qualified names and literal decoding.
 */
#include <stdarg.h>
#include <stdio.h>
#include <strings.h>

#include "sql/sql_parse_int.h"

const char *sql__tok_text(sql_parser_t *p, const sql_tok_t *t) {
  if (t->kind == SQL_T_EOF) return "end of input";
  size_t n = t->len;
  const char *s = p->src + t->pos.off;
  bool cut = false;
  if (n > 40) {
    n = 40;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--; /* keep UTF-8 whole */
    cut = true;
  }
  if (t->kind == SQL_T_STRING)
    return fl_arena_sprintf(p->a, "string %.*s%s", (int)n, s, cut ? "...'" : "");
  return fl_arena_sprintf(p->a, "'%.*s%s'", (int)n, s, cut ? "..." : "");
}

static int fail_at(sql_parser_t *p, const sql_tok_t *t, const char *fmt, va_list ap) {
  char what[600];
  vsnprintf(what, sizeof what, fmt, ap);
  p->err_tok = (size_t)(t - p->toks);
  return fl_err_set(p->err, FL_EPARSE, "line %u, column %u: %s", t->pos.line, t->pos.col, what);
}

int sql__fail(sql_parser_t *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = fail_at(p, sql__tok(p), fmt, ap);
  va_end(ap);
  return rc;
}

int sql__expected(sql_parser_t *p, const char *what) {
  return sql__fail(p, "expected %s, found %s", what, sql__tok_text(p, sql__tok(p)));
}

int sql__expect(sql_parser_t *p, sql_tok_kind_t kind, const char *what) {
  if (sql__accept(p, kind)) return FL_OK;
  return sql__expected(p, what);
}

int sql__expect_kw(sql_parser_t *p, sql_kw_t kw, const char *what) {
  if (sql__accept_kw(p, kw)) return FL_OK;
  return sql__expected(p, what);
}

int sql__enter(sql_parser_t *p) {
  if (++p->depth > SQL_MAX_DEPTH) {
    p->depth--;
    p->too_deep = true;
    return sql__fail(p, "statement nests deeper than %d levels", SQL_MAX_DEPTH);
  }
  return FL_OK;
}

fl_err_t *sql__save_err(sql_parser_t *p, size_t *tok) {
  fl_err_t *e = fl_arena_memdup(p->a, p->err, sizeof *e);
  *tok = p->err_tok;
  return e;
}

bool sql__query_failed_here(const sql_parser_t *p) {
  return p->query_failed && p->query_failed[p->i];
}

void sql__note_query_failed(sql_parser_t *p, size_t tok) {
  if (!p->query_failed) p->query_failed = fl_arena_zalloc(p->a, p->ntok);
  p->query_failed[tok] = 1;
}

int sql__farthest(sql_parser_t *p, fl_err_t *first, size_t first_tok) {
  if (first_tok > p->err_tok) {
    memcpy(p->err, first, sizeof *first);
    p->err_tok = first_tok;
  }
  return p->err->code ? p->err->code : FL_EPARSE;
}

void *sql__grow(fl_arena_t *a, void *arr, size_t n, size_t *cap, size_t elem) {
  size_t nc = *cap ? *cap * 2 : 4;
  void *fresh = fl_arena_alloc(a, nc * elem);
  if (n) memcpy(fresh, arr, n * elem);
  *cap = nc;
  return fresh;
}

bool sql__at_ident(const sql_parser_t *p) {
  const sql_tok_t *t = sql__tok(p);
  if (t->kind == SQL_T_QIDENT) return true;
  return t->kind == SQL_T_WORD && !sql_keyword_reserved((sql_kw_t)t->kw);
}

bool sql__peek_word(const sql_parser_t *p, size_t k, const char *word) {
  const sql_tok_t *t = sql__peek(p, k);
  return t->kind == SQL_T_WORD && strlen(word) == t->len &&
         strncasecmp(p->src + t->pos.off, word, t->len) == 0;
}

int sql__ident(sql_parser_t *p, sql_ident_t *out, const char *what) {
  const sql_tok_t *t = sql__tok(p);
  const char *s = p->src + t->pos.off;
  if (t->kind == SQL_T_WORD) {
    if (sql_keyword_reserved((sql_kw_t)t->kw))
      return sql__fail(p, "expected %s, found reserved word '%.*s' (quote it to use it as a name)",
                       what, (int)t->len, s);
    char *name = fl_arena_strndup(p->a, s, t->len);
    for (char *c = name; *c; c++)
      if (*c >= 'A' && *c <= 'Z') *c = (char)(*c - 'A' + 'a');
    *out = (sql_ident_t){name, false, t->pos};
    sql__next(p);
    return FL_OK;
  }
  if (t->kind == SQL_T_QIDENT) {
    char q = s[0];
    char *name = fl_arena_alloc(p->a, t->len);
    size_t n = 0;
    for (size_t k = 1; k + 1 < t->len; k++) {
      name[n++] = s[k];
      if (s[k] == q) k++; /* a doubled quote stands for one */
    }
    name[n] = '\0';
    *out = (sql_ident_t){name, true, t->pos};
    sql__next(p);
    return FL_OK;
  }
  return sql__expected(p, what);
}

int sql__arg_name(sql_parser_t *p, sql_ident_t *out) {
  const sql_tok_t *t = sql__tok(p);
  if (t->kind != SQL_T_WORD) return sql__ident(p, out, "an argument name");
  char *name = fl_arena_strndup(p->a, p->src + t->pos.off, t->len);
  for (char *c = name; *c; c++)
    if (*c >= 'A' && *c <= 'Z') *c = (char)(*c - 'A' + 'a');
  *out = (sql_ident_t){name, false, t->pos};
  sql__next(p);
  return FL_OK;
}

int sql__qname(sql_parser_t *p, sql_qname_t *out, const char *what) {
  sql_ident_t *parts = NULL;
  size_t n = 0, cap = 0;
  sql_ident_t id;
  SQL_TRY(sql__ident(p, &id, what));
  SQL_PUSH(p, parts, n, cap, id);
  while (sql__is(p, SQL_T_DOT)) {
    sql__next(p);
    SQL_TRY(sql__ident(p, &id, "a name after '.'"));
    SQL_PUSH(p, parts, n, cap, id);
  }
  out->parts = parts;
  out->n = n;
  return FL_OK;
}

int sql__ident_list_paren(sql_parser_t *p, sql_ident_list_t *out, const char *what) {
  SQL_TRY(sql__expect(p, SQL_T_LPAREN, "'('"));
  sql_ident_t *items = NULL;
  size_t n = 0, cap = 0;
  do {
    sql_ident_t id;
    SQL_TRY(sql__ident(p, &id, what));
    SQL_PUSH(p, items, n, cap, id);
  } while (sql__accept(p, SQL_T_COMMA));
  SQL_TRY(sql__expect(p, SQL_T_RPAREN, "',' or ')' in the name list"));
  out->items = items;
  out->n = n;
  return FL_OK;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static size_t put_utf8(char *o, uint32_t cp) {
  if (cp < 0x80) {
    o[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    o[0] = (char)(0xC0 | (cp >> 6));
    o[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (char)(0xE0 | (cp >> 12));
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | (cp >> 18));
  o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  o[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

int sql__string(sql_parser_t *p, const char **data, size_t *len, const char *what) {
  const sql_tok_t *t = sql__tok(p);
  if (t->kind != SQL_T_STRING && t->kind != SQL_T_USTRING) return sql__expected(p, what);
  bool uni = t->kind == SQL_T_USTRING;
  const char *s = p->src + t->pos.off + (uni ? 3 : 1);
  size_t n = t->len - (uni ? 4 : 2);
  char *o = fl_arena_alloc(p->a, n + 1);
  size_t m = 0;
  for (size_t k = 0; k < n; k++) {
    if (s[k] == '\'') {
      o[m++] = '\'';
      k++; /* '' */
      continue;
    }
    if (uni && s[k] == '\\') {
      if (k + 1 < n && s[k + 1] == '\\') {
        o[m++] = '\\';
        k++;
        continue;
      }
      size_t digits = (k + 1 < n && s[k + 1] == '+') ? 6 : 4;
      size_t start = k + 1 + (digits == 6);
      uint32_t cp = 0;
      if (start + digits > n)
        return sql__fail(p, "unicode string has a short escape (\\XXXX or \\+XXXXXX)");
      for (size_t d = 0; d < digits; d++) {
        int h = hexval(s[start + d]);
        if (h < 0) return sql__fail(p, "unicode string escape holds a character that is not hex");
        cp = cp * 16 + (uint32_t)h;
      }
      if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return sql__fail(p, "unicode string escape U+%04X is not a character", cp);
      m += put_utf8(o + m, cp);
      k = start + digits - 1;
      continue;
    }
    o[m++] = s[k];
  }
  o[m] = '\0';
  *data = o;
  *len = m;
  sql__next(p);
  return FL_OK;
}

int sql__int(sql_parser_t *p, int64_t *out, const char *what) {
  const sql_tok_t *t = sql__tok(p);
  if (t->kind != SQL_T_INT) return sql__expected(p, what);
  uint64_t v = 0;
  const char *s = p->src + t->pos.off;
  for (size_t k = 0; k < t->len; k++) {
    uint64_t d = (uint64_t)(s[k] - '0');
    if (v > (UINT64_MAX - d) / 10 || v * 10 + d > (uint64_t)INT64_MAX)
      return sql__fail(p, "integer %.*s is too large", (int)t->len, s);
    v = v * 10 + d;
  }
  *out = (int64_t)v;
  sql__next(p);
  return FL_OK;
}
