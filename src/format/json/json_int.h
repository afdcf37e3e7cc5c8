/*
 * json_int.h - the JSON lexer shared by the decoder and schema inference
 * (private to format/json).
 *
 * The lexer walks a span of text with a cursor and tracks the line and
 * the start of the current line, counting newlines only where JSON allows
 * them raw (whitespace). Every scanner checks the end of the span before
 * each read. Reaching the end inside a value sets `eof` besides the error
 * so that a chunked caller can tell "needs more text" from "malformed".
 */
#ifndef FL_FORMAT_JSON_INT_H
#define FL_FORMAT_JSON_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/error.h"

typedef struct js_lex {
  const char *base, *p, *end;
  uint64_t line;      /* line of p, from 1 */
  ptrdiff_t line_off; /* start of p's line relative to base (may be negative) */
  uint32_t max_depth;
  /* The first error: code, where, why; eof when the end cut a value. */
  int ecode;
  const char *epos;
  bool eof;
  char ereason[256];
} js_lex_t;

/* Records an error at pos (the message is formatted later, with line,
 * column and field path) and returns its code. */
int js__fail(js_lex_t *l, int code, const char *pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Same for text that ended inside a value. */
int js__fail_eof(js_lex_t *l, const char *what);

/* Formats the recorded error as "line L, column C: [field 'path': ]why"
 * into err and returns its code; path may be NULL or empty. */
int js__report(const js_lex_t *l, const char *path, fl_err_t *err);

/* Moves an end-of-input error to the start of the row it cut off (row,
 * on line line0 whose start is at off0), where a reader looks for it. */
void js__eof_at_row(js_lex_t *l, const char *row, uint64_t line0, ptrdiff_t off0);

/* Inference over a chunk: as js_infer_schema; with more set, a row cut off
 * by the end of the text is ignored. *rows: objects sampled. */
typedef struct fl_arena fl_arena_t;
typedef struct ty_schema ty_schema_t;
int js__infer(const char *p, size_t n, uint32_t max_rows, bool more, fl_arena_t *a,
              ty_schema_t **out, uint32_t *rows, fl_err_t *err);

/* Skips whitespace, counting lines. */
static inline void js__ws(js_lex_t *l) {
  const char *p = l->p, *end = l->end;
  while (p < end) {
    char c = *p;
    if (c == ' ' || c == '\t' || c == '\r') {
      p++;
    } else if (c == '\n') {
      p++;
      l->line++;
      l->line_off = p - l->base;
    } else {
      break;
    }
  }
  l->p = p;
}

/*
 * At a '"': finds the closing quote, validating UTF-8 and rejecting raw
 * control characters. *s, *n: the raw content; *esc: whether it holds
 * escapes (then js__unescape gives the text). Leaves p after the quote.
 */
int js__scan_string(js_lex_t *l, const char **s, size_t *n, bool *esc);
/* From the first byte after an opening quote: the closing quote, or NULL
 * when the string has an escape, a raw control character or invalid
 * UTF-8, or does not end before end (js__scan_string tells which). */
const char *js__plain_string_end(const char *p, const char *end);
/* Decodes the escapes of raw string content s[0,n) into out (room for n
 * bytes suffices) and sets *outn. */
int js__unescape(js_lex_t *l, const char *s, size_t n, uint8_t *out, size_t *outn);
/* A JSON number's value as decimal parts: value = mant * 10^exp10, exact
 * when ndigits (significant digits) <= 19. */
typedef struct js_num {
  uint64_t mant; /* the first 19 significant digits */
  int ndigits;
  int64_t exp10;
  bool neg;
} js_num_t;

/* At '-' or a digit: scans a JSON number; *is_int when it has neither a
 * fraction nor an exponent; num (may be NULL) gets its decimal parts. */
int js__scan_number(js_lex_t *l, const char **s, size_t *n, bool *is_int, js_num_t *num);
/* Consumes the literal word (true, false, null). */
int js__literal(js_lex_t *l, const char *word, size_t len);
/* Skips one value of any kind; depth is the value's nesting level. */
int js__skip_value(js_lex_t *l, uint32_t depth);

extern size_t js__reader_chunk_bytes; /* json_reader.c: read size (tests shrink it) */
#endif
