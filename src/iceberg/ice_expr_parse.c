/*
 * ice_expr_parse.c - the row filter language: lexer and recursive-descent
 * parser into unbound trees (layer 5, iceberg).
 *
 *   expr    := and { OR and }
 *   and     := not { AND not }
 *   not     := NOT not | primary
 *   primary := '(' expr ')' | TRUE | FALSE | pred
 *   pred    := column cmp literal | literal cmp column
 *            | column [NOT] IN '(' literal { ',' literal } ')'
 *            | column IS [NOT] NULL | column IS [NOT] NAN
 *            | column [NOT] STARTS WITH string | column [NOT] LIKE string
 *   column  := name { '.' name }, name an identifier or "double quoted"
 *   literal := [-]digits | [-]number | NaN | Infinity | 'string'
 *            | TRUE | FALSE | TIMESTAMP 'text' | DATE 'text'
 *
 * Keywords are case-insensitive. LIKE takes prefix patterns only ('abc%',
 * or no wildcard at all for equality). Errors name the 1-based column of
 * the offending token and what was expected there.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "iceberg/ice_expr_int.h"

typedef enum tok_kind {
  T_END,
  T_IDENT,  /* bare word (keywords too) */
  T_QIDENT, /* "quoted" */
  T_STRING,
  T_INT,
  T_NUMBER,
  T_LPAREN,
  T_RPAREN,
  T_COMMA,
  T_DOT,
  T_OP,
} tok_kind_t;

typedef struct tok {
  tok_kind_t kind;
  size_t pos; /* byte offset of the token */
  const char *text; /* arena copy: identifier, unquoted string, number, operator */
} tok_t;

typedef struct parser {
  fl_arena_t *a;
  const char *s;
  size_t n, pos;
  tok_t tok;
  fl_err_t *err;
  int depth; /* open parentheses and NOTs, bounded so input cannot exhaust the stack */
} parser_t;

#define MAX_DEPTH 256

static const char *tok_desc(const parser_t *p) {
  switch (p->tok.kind) {
    case T_END: return "end of input";
    case T_STRING: return fl_arena_sprintf(p->a, "string '%s'", p->tok.text);
    case T_QIDENT: return fl_arena_sprintf(p->a, "\"%s\"", p->tok.text);
    default: return fl_arena_sprintf(p->a, "'%s'", p->tok.text);
  }
}

static int fail(parser_t *p, const char *expected) {
  return fl_err_set(p->err, FL_EPARSE, "filter: at column %zu: expected %s, found %s",
                    p->tok.pos + 1, expected, tok_desc(p));
}

static int lex_error(parser_t *p, size_t pos, const char *what) {
  return fl_err_set(p->err, FL_EPARSE, "filter: at column %zu: %s", pos + 1, what);
}

/* Reads the next token into p->tok. */
static int next(parser_t *p) {
  const char *s = p->s;
  while (p->pos < p->n && isspace((unsigned char)s[p->pos])) p->pos++;
  size_t b = p->pos;
  p->tok.pos = b;
  p->tok.text = "";
  if (b >= p->n) {
    p->tok.kind = T_END;
    return FL_OK;
  }
  char c = s[b];
  if (isalpha((unsigned char)c) || c == '_') {
    size_t e = b;
    while (e < p->n && (isalnum((unsigned char)s[e]) || s[e] == '_' || s[e] == '$')) e++;
    p->tok.kind = T_IDENT;
    p->tok.text = fl_arena_strndup(p->a, s + b, e - b);
    p->pos = e;
    return FL_OK;
  }
  if (isdigit((unsigned char)c) ||
      (c == '.' && b + 1 < p->n && isdigit((unsigned char)s[b + 1]))) {
    size_t e = b;
    bool number = false;
    while (e < p->n && isdigit((unsigned char)s[e])) e++;
    if (e < p->n && s[e] == '.') {
      number = true;
      e++;
      while (e < p->n && isdigit((unsigned char)s[e])) e++;
    }
    if (e < p->n && (s[e] == 'e' || s[e] == 'E')) {
      size_t x = e + 1;
      if (x < p->n && (s[x] == '+' || s[x] == '-')) x++;
      if (x >= p->n || !isdigit((unsigned char)s[x])) return lex_error(p, b, "malformed number exponent");
      while (x < p->n && isdigit((unsigned char)s[x])) x++;
      e = x;
      number = true;
    }
    if (e < p->n && (isalpha((unsigned char)s[e]) || s[e] == '_'))
      return lex_error(p, b, "malformed number");
    p->tok.kind = number ? T_NUMBER : T_INT;
    p->tok.text = fl_arena_strndup(p->a, s + b, e - b);
    p->pos = e;
    return FL_OK;
  }
  if (c == '\'' || c == '"') {
    fl_buf_t buf;
    fl_buf_init(&buf);
    size_t e = b + 1;
    for (;;) {
      if (e >= p->n) {
        fl_buf_free(&buf);
        return lex_error(p, b, c == '\'' ? "unterminated string" : "unterminated quoted name");
      }
      if (s[e] == c) {
        if (e + 1 < p->n && s[e + 1] == c) {
          fl_buf_append_u8(&buf, (uint8_t)c);
          e += 2;
          continue;
        }
        break;
      }
      fl_buf_append_u8(&buf, (uint8_t)s[e]);
      e++;
    }
    p->tok.kind = c == '\'' ? T_STRING : T_QIDENT;
    p->tok.text = fl_arena_strndup(p->a, buf.len ? (const char *)buf.data : "", buf.len);
    fl_buf_free(&buf);
    if (p->tok.kind == T_QIDENT && !p->tok.text[0]) return lex_error(p, b, "empty quoted name");
    if (memchr(s + b + 1, 0, e - b - 1)) return lex_error(p, b, "NUL byte in text");
    p->pos = e + 1;
    return FL_OK;
  }
  p->pos = b + 1;
  switch (c) {
    case '(': p->tok.kind = T_LPAREN; p->tok.text = "("; return FL_OK;
    case ')': p->tok.kind = T_RPAREN; p->tok.text = ")"; return FL_OK;
    case ',': p->tok.kind = T_COMMA; p->tok.text = ","; return FL_OK;
    case '.': p->tok.kind = T_DOT; p->tok.text = "."; return FL_OK;
    case '=':
      if (b + 1 < p->n && s[b + 1] == '=') p->pos++;
      p->tok.kind = T_OP;
      p->tok.text = "=";
      return FL_OK;
    case '!':
      if (b + 1 < p->n && s[b + 1] == '=') {
        p->pos++;
        p->tok.kind = T_OP;
        p->tok.text = "!=";
        return FL_OK;
      }
      break;
    case '<':
    case '>': {
      char two[3] = {c, 0, 0};
      if (b + 1 < p->n && (s[b + 1] == '=' || (c == '<' && s[b + 1] == '>'))) {
        two[1] = s[b + 1];
        p->pos++;
      }
      p->tok.kind = T_OP;
      p->tok.text = strcmp(two, "<>") == 0 ? "!=" : fl_arena_strdup(p->a, two);
      return FL_OK;
    }
    case '-':
    case '+':
      p->tok.kind = T_OP;
      p->tok.text = c == '-' ? "-" : "+";
      return FL_OK;
    default: break;
  }
  p->pos = b;
  return lex_error(p, b, fl_arena_sprintf(p->a, "unexpected character '%c'", c));
}

static bool is_kw(const parser_t *p, const char *kw) {
  return p->tok.kind == T_IDENT && strcasecmp(p->tok.text, kw) == 0;
}

static int expect_kw(parser_t *p, const char *kw) {
  if (!is_kw(p, kw)) return fail(p, kw);
  return next(p);
}

static bool reserved(const char *w) {
  static const char *const kws[] = {"AND", "OR", "NOT", "IN", "IS", "NULL", "LIKE", "TRUE", "FALSE"};
  for (size_t i = 0; i < sizeof kws / sizeof kws[0]; i++)
    if (strcasecmp(w, kws[i]) == 0) return true;
  return false;
}

static ice_expr_t *new_node(parser_t *p, ice_expr_kind_t k) {
  ice_expr_t *e = fl_arena_zalloc(p->a, sizeof *e);
  e->kind = k;
  return e;
}

/* A literal at the current token, if there is one (sets *ok false when not). */
static int parse_literal(parser_t *p, ice_literal_t *out, bool *ok) {
  *ok = true;
  int rc;
  if (p->tok.kind == T_OP && (!strcmp(p->tok.text, "-") || !strcmp(p->tok.text, "+"))) {
    bool neg = p->tok.text[0] == '-';
    if ((rc = next(p))) return rc;
    if (p->tok.kind == T_INT || p->tok.kind == T_NUMBER) {
      out->kind = p->tok.kind == T_INT ? ICE_LIT_INT : ICE_LIT_NUMBER;
      out->text = neg ? fl_arena_sprintf(p->a, "-%s", p->tok.text) : p->tok.text;
    } else if (is_kw(p, "inf") || is_kw(p, "infinity")) {
      out->kind = ICE_LIT_NUMBER;
      out->text = neg ? "-Infinity" : "Infinity";
    } else {
      return fail(p, "a number after the sign");
    }
    return next(p);
  }
  switch (p->tok.kind) {
    case T_INT: out->kind = ICE_LIT_INT; out->text = p->tok.text; return next(p);
    case T_NUMBER: out->kind = ICE_LIT_NUMBER; out->text = p->tok.text; return next(p);
    case T_STRING: out->kind = ICE_LIT_STRING; out->text = p->tok.text; return next(p);
    case T_IDENT: break;
    default: *ok = false; return FL_OK;
  }
  if (is_kw(p, "true") || is_kw(p, "false")) {
    out->kind = ICE_LIT_BOOL;
    out->text = is_kw(p, "true") ? "true" : "false";
    return next(p);
  }
  if (is_kw(p, "nan")) {
    out->kind = ICE_LIT_NUMBER;
    out->text = "NaN";
    return next(p);
  }
  if (is_kw(p, "inf") || is_kw(p, "infinity")) {
    out->kind = ICE_LIT_NUMBER;
    out->text = "Infinity";
    return next(p);
  }
  if (is_kw(p, "timestamp") || is_kw(p, "date")) {
    /* A typed literal only when a string follows; otherwise a column name. */
    size_t save_pos = p->pos;
    tok_t save = p->tok;
    if ((rc = next(p))) return rc;
    if (p->tok.kind == T_STRING) {
      out->kind = strcasecmp(save.text, "date") == 0 ? ICE_LIT_DATE : ICE_LIT_TIMESTAMP;
      out->text = p->tok.text;
      return next(p);
    }
    p->pos = save_pos;
    p->tok = save;
  }
  *ok = false;
  return FL_OK;
}

static int parse_column(parser_t *p, const char **out) {
  fl_buf_t name;
  fl_buf_init(&name);
  int rc;
  for (;;) {
    if (p->tok.kind == T_QIDENT || (p->tok.kind == T_IDENT && !reserved(p->tok.text))) {
      fl_buf_append_str(&name, p->tok.text);
    } else {
      rc = fail(p, name.len ? "a field name after '.'" : "a column name");
      goto done;
    }
    if ((rc = next(p))) goto done;
    if (p->tok.kind != T_DOT) break;
    fl_buf_append_u8(&name, '.');
    if ((rc = next(p))) goto done;
  }
  *out = fl_arena_strndup(p->a, (const char *)name.data, name.len);
  rc = FL_OK;
done:
  fl_buf_free(&name);
  return rc;
}

static int cmp_op(const char *t, ice_op_t *op) {
  if (!strcmp(t, "=")) *op = ICE_OP_EQ;
  else if (!strcmp(t, "!=")) *op = ICE_OP_NE;
  else if (!strcmp(t, "<")) *op = ICE_OP_LT;
  else if (!strcmp(t, "<=")) *op = ICE_OP_LE;
  else if (!strcmp(t, ">")) *op = ICE_OP_GT;
  else if (!strcmp(t, ">=")) *op = ICE_OP_GE;
  else return -1;
  return 0;
}

static int one_literal(parser_t *p, ice_expr_t *e, const char *expected) {
  ice_literal_t lit;
  bool ok;
  int rc = parse_literal(p, &lit, &ok);
  if (rc) return rc;
  if (!ok) {
    if (is_kw(p, "null"))
      return fl_err_set(p->err, FL_EPARSE,
                        "filter: at column %zu: comparison with NULL is never true; use IS NULL "
                        "or IS NOT NULL",
                        p->tok.pos + 1);
    return fail(p, expected);
  }
  e->nlits = 1;
  e->lits = fl_arena_memdup(p->a, &lit, sizeof lit);
  return FL_OK;
}

static int parse_like(parser_t *p, ice_expr_t *e, bool negated) {
  if (p->tok.kind != T_STRING) return fail(p, "a string pattern");
  const char *pat = p->tok.text;
  size_t n = strlen(pat);
  size_t pos = p->tok.pos;
  bool prefix = n > 0 && pat[n - 1] == '%';
  size_t body = prefix ? n - 1 : n;
  for (size_t i = 0; i < body; i++)
    if (pat[i] == '%' || pat[i] == '_')
      return fl_err_set(p->err, FL_EPARSE,
                        "filter: at column %zu: LIKE supports prefix patterns only ('abc%%'), "
                        "found '%s'",
                        pos + 1, pat);
  e->op = prefix ? (negated ? ICE_OP_NOT_STARTS_WITH : ICE_OP_STARTS_WITH)
                 : (negated ? ICE_OP_NE : ICE_OP_EQ);
  e->nlits = 1;
  e->lits = fl_arena_zalloc(p->a, sizeof *e->lits);
  e->lits[0].kind = ICE_LIT_STRING;
  e->lits[0].text = fl_arena_strndup(p->a, pat, body);
  return next(p);
}

static int parse_pred_rest(parser_t *p, ice_expr_t *e) {
  int rc;
  if (p->tok.kind == T_OP) {
    if (cmp_op(p->tok.text, &e->op)) return fail(p, "a comparison operator");
    if ((rc = next(p))) return rc;
    return one_literal(p, e, "a literal");
  }
  if (is_kw(p, "is")) {
    if ((rc = next(p))) return rc;
    bool neg = false;
    if (is_kw(p, "not")) {
      neg = true;
      if ((rc = next(p))) return rc;
    }
    if (is_kw(p, "null")) e->op = neg ? ICE_OP_NOT_NULL : ICE_OP_IS_NULL;
    else if (is_kw(p, "nan")) e->op = neg ? ICE_OP_NOT_NAN : ICE_OP_IS_NAN;
    else return fail(p, neg ? "NULL or NAN" : "NOT, NULL or NAN");
    return next(p);
  }
  bool neg = false;
  if (is_kw(p, "not")) {
    neg = true;
    if ((rc = next(p))) return rc;
    if (!is_kw(p, "in") && !is_kw(p, "starts") && !is_kw(p, "like"))
      return fail(p, "IN, STARTS WITH or LIKE after NOT");
  }
  if (is_kw(p, "in")) {
    e->op = neg ? ICE_OP_NOT_IN : ICE_OP_IN;
    if ((rc = next(p))) return rc;
    if (p->tok.kind != T_LPAREN) return fail(p, "'(' after IN");
    if ((rc = next(p))) return rc;
    uint32_t cap = 8;
    e->lits = fl_arena_alloc(p->a, cap * sizeof *e->lits);
    for (;;) {
      ice_literal_t lit;
      bool ok;
      if ((rc = parse_literal(p, &lit, &ok))) return rc;
      if (!ok) return fail(p, "a literal in the IN list");
      if (e->nlits == cap) {
        ice_literal_t *nl = fl_arena_alloc(p->a, cap * 2 * sizeof *nl);
        memcpy(nl, e->lits, cap * sizeof *nl);
        e->lits = nl;
        cap *= 2;
      }
      e->lits[e->nlits++] = lit;
      if (p->tok.kind == T_COMMA) {
        if ((rc = next(p))) return rc;
        continue;
      }
      if (p->tok.kind == T_RPAREN) return next(p);
      return fail(p, "',' or ')' in the IN list");
    }
  }
  if (is_kw(p, "starts")) {
    if ((rc = next(p))) return rc;
    if ((rc = expect_kw(p, "WITH"))) return rc;
    e->op = neg ? ICE_OP_NOT_STARTS_WITH : ICE_OP_STARTS_WITH;
    if (p->tok.kind != T_STRING) return fail(p, "a string prefix");
    return one_literal(p, e, "a string prefix");
  }
  if (is_kw(p, "like")) {
    if ((rc = next(p))) return rc;
    return parse_like(p, e, neg);
  }
  return fail(p, "a comparison operator, IN, IS, STARTS WITH or LIKE");
}

static int parse_or(parser_t *p, ice_expr_t **out);

static int too_deep(parser_t *p) {
  return fl_err_set(p->err, FL_EPARSE, "filter: at column %zu: nested too deeply (more than %d levels)",
                    p->tok.pos + 1, MAX_DEPTH);
}

static int parse_primary(parser_t *p, ice_expr_t **out) {
  int rc;
  if (p->tok.kind == T_LPAREN) {
    if (++p->depth > MAX_DEPTH) return too_deep(p);
    if ((rc = next(p))) return rc;
    if ((rc = parse_or(p, out))) return rc;
    if (p->tok.kind != T_RPAREN) return fail(p, "')'");
    p->depth--;
    return next(p);
  }
  /* A literal first: TRUE/FALSE alone, or literal op column. */
  ice_literal_t lit;
  bool ok;
  size_t lit_pos = p->tok.pos;
  if ((rc = parse_literal(p, &lit, &ok))) return rc;
  if (ok) {
    if (lit.kind == ICE_LIT_BOOL && p->tok.kind != T_OP) {
      *out = new_node(p, lit.text[0] == 't' ? ICE_E_TRUE : ICE_E_FALSE);
      return FL_OK;
    }
    ice_expr_t *e = new_node(p, ICE_E_PRED);
    ice_op_t op;
    if (p->tok.kind != T_OP || cmp_op(p->tok.text, &op)) {
      (void)lit_pos;
      return fail(p, "a comparison operator after the literal");
    }
    if ((rc = next(p))) return rc;
    if ((rc = parse_column(p, &e->column))) return rc;
    e->op = ice__op_flip(op);
    e->nlits = 1;
    e->lits = fl_arena_memdup(p->a, &lit, sizeof lit);
    *out = e;
    return FL_OK;
  }
  if (p->tok.kind != T_IDENT && p->tok.kind != T_QIDENT) return fail(p, "a predicate");
  ice_expr_t *e = new_node(p, ICE_E_PRED);
  if ((rc = parse_column(p, &e->column))) return rc;
  if ((rc = parse_pred_rest(p, e))) return rc;
  *out = e;
  return FL_OK;
}

static int parse_not(parser_t *p, ice_expr_t **out) {
  int rc;
  if (is_kw(p, "not")) {
    if (++p->depth > MAX_DEPTH) return too_deep(p);
    if ((rc = next(p))) return rc;
    ice_expr_t *inner;
    if ((rc = parse_not(p, &inner))) return rc;
    p->depth--;
    ice_expr_t *e = new_node(p, ICE_E_NOT);
    e->left = inner;
    *out = e;
    return FL_OK;
  }
  return parse_primary(p, out);
}

static int parse_and(parser_t *p, ice_expr_t **out) {
  int rc = parse_not(p, out);
  while (!rc && is_kw(p, "and")) {
    ice_expr_t *r;
    if ((rc = next(p)) || (rc = parse_not(p, &r))) return rc;
    ice_expr_t *e = new_node(p, ICE_E_AND);
    e->left = *out;
    e->right = r;
    *out = e;
  }
  return rc;
}

static int parse_or(parser_t *p, ice_expr_t **out) {
  int rc = parse_and(p, out);
  while (!rc && is_kw(p, "or")) {
    ice_expr_t *r;
    if ((rc = next(p)) || (rc = parse_and(p, &r))) return rc;
    ice_expr_t *e = new_node(p, ICE_E_OR);
    e->left = *out;
    e->right = r;
    *out = e;
  }
  return rc;
}

int ice_expr_parse(fl_arena_t *a, const char *text, ice_expr_t **out, fl_err_t *err) {
  parser_t p = {.a = a, .s = text, .n = strlen(text), .err = err};
  int rc = next(&p);
  if (rc) return rc;
  if (p.tok.kind == T_END) return fail(&p, "a filter");
  if ((rc = parse_or(&p, out))) return rc;
  if (p.tok.kind != T_END) return fail(&p, "AND, OR or the end of the filter");
  return FL_OK;
}
