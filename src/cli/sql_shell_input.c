/*
 * sql_shell_input.c - when the shell's gathered input holds complete
 * statements (layer 12, cli).
 *
 * The parser's splitter decides where statements begin and end, so the
 * shell agrees with `floe sql -f` about strings, quoted names, comments and
 * statement sets. What the splitter does not say is whether the last piece
 * was closed: that is so when a ';' token follows the piece's last token.
 * An unclosed string, quoted name or comment is a lexical error at the end
 * of the text, which more input can fix, so it counts as incomplete.
 */
#include <string.h>

#include "cli/sql_shell.h"
#include "sql/sql_lex.h"

/* The lexer's errors that only mean "the text stops inside a token". */
static bool lex_error_is_open(const fl_err_t *err) {
  return strstr(err->msg, "unterminated") != NULL;
}

/* The byte offset of a lexer position, counting as the lexer does: a new
 * line resets the column, UTF-8 continuation bytes do not advance it. */
static size_t offset_of(const char *text, size_t len, uint32_t line, uint32_t col) {
  uint32_t l = 1, c = 1;
  for (size_t i = 0; i < len; i++) {
    unsigned char ch = (unsigned char)text[i];
    if (l == line && c == col && (ch & 0xC0) != 0x80) return i;
    if (ch == '\n') {
      l++;
      c = 1;
    } else if ((ch & 0xC0) != 0x80) {
      c++;
    }
  }
  return len;
}

int cli_sql_shell_split(fl_arena_t *a, const char *text, size_t len, size_t from, sql_piece_t **out,
                        size_t *n, size_t *rest, bool *incomplete, fl_err_t *err) {
  *out = NULL;
  *n = 0;
  *rest = len;
  *incomplete = false;
  sql_tok_t *toks;
  size_t ntok;
  int rc = sql_lex(a, text, len, &toks, &ntok, err);
  if (rc == FL_EPARSE && lex_error_is_open(err)) {
    /* Statements closed before the open token are complete all the same:
     * split the text up to where the open token starts. */
    uint32_t line, col;
    size_t at = sql_error_pos(err, &line, &col) ? offset_of(text, len, line, col) : from;
    fl_err_clear(err);
    if (at > from) {
      rc = cli_sql_shell_split(a, text, at, from, out, n, rest, incomplete, err);
      if (rc) return rc;
    } else {
      *rest = from;
    }
    *incomplete = true;
    return FL_OK;
  }
  if (rc) return rc;
  sql_piece_t *pieces;
  size_t np;
  rc = sql_split_script(a, text, len, &pieces, &np, err);
  if (rc) return rc;

  size_t first = 0;
  while (first < np && pieces[first].off < from) first++;
  size_t k = 0; /* token cursor, moves forward only */
  size_t done = first;
  for (size_t i = first; i < np; i++) {
    size_t end = (size_t)pieces[i].off + pieces[i].len;
    size_t next = i + 1 < np ? pieces[i + 1].off : len;
    while (k < ntok && toks[k].pos.off < end) k++;
    bool closed = false;
    for (size_t j = k; j < ntok && toks[j].pos.off < next; j++)
      if (toks[j].kind == SQL_T_SEMI) closed = true;
    if (!closed) break;
    done = i + 1;
  }
  *out = pieces + first;
  *n = done - first;
  if (done < np) {
    *rest = pieces[done].off;
    *incomplete = true;
  }
  return FL_OK;
}
