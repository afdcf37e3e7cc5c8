/*
 * csv_split.c - splitting CSV rows into field spans under a dialect, and
 * field text (layer 4, format/csv). See csv_int.h.
 *
 * A quoted field runs to the quote that is not doubled (and, with an
 * escape character, not escaped); an unquoted one to the delimiter or the
 * line's end. Without an escape character the quoted scan jumps from
 * quote to quote with memchr; with one it walks the bytes.
 */
#include <string.h>

#include "base/alloc.h"
#include "format/csv/csv_int.h"

void csv__splitter_init(csv_splitter_t *sp, const csv_dialect_t *d, const char *where) {
  memset(sp, 0, sizeof *sp);
  if (d) sp->d = *d;
  if (!sp->d.delimiter) sp->d.delimiter = ',';
  if (!sp->d.quote) sp->d.quote = '"';
  if (!sp->d.array_delimiter) sp->d.array_delimiter = ';';
  sp->where = where;
  fl_buf_init(&sp->scratch);
}

void csv__splitter_free(csv_splitter_t *sp) {
  fl_free(sp->fields);
  fl_buf_free(&sp->scratch);
  sp->fields = NULL;
  sp->nf = sp->fcap = 0;
}

static void add_field(csv_splitter_t *sp, const csv_field_t *f) {
  if (sp->nf == sp->fcap) {
    sp->fcap = sp->fcap ? sp->fcap * 2 : 16;
    sp->fields = fl_realloc(sp->fields, sp->fcap * sizeof *sp->fields);
  }
  sp->fields[sp->nf++] = *f;
}

/* The first quote or escape in [q, end), or NULL. */
static const char *next_special(const char *q, const char *end, char quote, char esc) {
  if (!esc) return memchr(q, quote, (size_t)(end - q));
  for (; q < end; q++)
    if (*q == quote || *q == esc) return q;
  return NULL;
}

int csv__split_row(csv_splitter_t *sp, const char *p, const char *end, bool more, uint64_t line,
                   const char **next, uint64_t *line_out, bool *whole, fl_err_t *err) {
  const char *q = p, *ls = p;
  *whole = false;
  const char delim = sp->d.delimiter, quote = sp->d.quote, esc = sp->d.escape;
  const bool quoting = !sp->d.no_quote;
  sp->nf = 0;
  for (;;) {
    csv_field_t f = {.line = line, .col = (size_t)(q - ls) + 1};
    if (quoting && q < end && *q == quote) {
      q++;
      f.p = q;
      f.quoted = true;
      for (;;) {
        const char *x = next_special(q, end, quote, esc);
        const char *stop = x ? x : end;
        for (const char *c = memchr(q, '\n', (size_t)(stop - q)); c;
             c = memchr(c + 1, '\n', (size_t)(stop - c - 1))) {
          line++;
          ls = c + 1;
        }
        if (x && esc && *x == esc) {
          if (x + 1 >= end) {
            if (more) return FL_OK;
            return fl_err_set(err, FL_EPARSE,
                              "%s: line %llu, column %zu: unterminated quoted field", sp->where,
                              (unsigned long long)f.line, f.col);
          }
          if (x[1] == '\n') {
            line++;
            ls = x + 2;
          }
          f.unescape = true;
          q = x + 2;
          continue;
        }
        if (!x || (x + 1 == end && more)) {
          if (more) return FL_OK;
          return fl_err_set(err, FL_EPARSE, "%s: line %llu, column %zu: unterminated quoted field",
                            sp->where, (unsigned long long)f.line, f.col);
        }
        if (x + 1 < end && x[1] == quote) {
          f.unescape = true;
          q = x + 2;
          continue;
        }
        f.n = (size_t)(x - f.p);
        q = x + 1;
        break;
      }
      if (q < end && *q != delim && *q != '\n' && *q != '\r')
        return fl_err_set(err, FL_EPARSE,
                          "%s: line %llu, column %zu: unexpected character after a closing quote",
                          sp->where, (unsigned long long)line, (size_t)(q - ls) + 1);
    } else {
      f.p = q;
      while (q < end && *q != delim && *q != '\n' && *q != '\r') {
        if (esc && *q == esc) {
          if (q + 1 >= end) {
            if (more) return FL_OK;
            q++; /* a trailing escape stands for itself */
            break;
          }
          f.unescape = true;
          q += 2;
          continue;
        }
        q++;
      }
      f.n = (size_t)(q - f.p);
    }
    add_field(sp, &f);
    if (q >= end) {
      if (more) return FL_OK;
      *next = end;
      *line_out = line;
      *whole = true;
      return FL_OK;
    }
    if (*q == delim) {
      q++;
      continue;
    }
    if (*q == '\r') {
      q++;
      if (q < end && *q == '\n')
        q++;
      else if (q >= end && more)
        return FL_OK;
    } else {
      q++;
    }
    *next = q;
    *line_out = line + 1;
    *whole = true;
    return FL_OK;
  }
}

void csv__field_text(csv_splitter_t *sp, const csv_field_t *f, const char **s, size_t *n) {
  if (!f->unescape) {
    *s = f->p;
    *n = f->n;
    return;
  }
  const char quote = sp->d.quote, esc = sp->d.escape;
  const bool doubled = f->quoted && !sp->d.no_quote;
  fl_buf_clear(&sp->scratch);
  fl_buf_reserve(&sp->scratch, f->n);
  size_t o = 0;
  for (size_t i = 0; i < f->n; i++) {
    char c = f->p[i];
    if (esc && c == esc && i + 1 < f->n) {
      sp->scratch.data[o++] = (uint8_t)f->p[++i];
      continue;
    }
    sp->scratch.data[o++] = (uint8_t)c;
    if (doubled && c == quote) i++;
  }
  *s = (const char *)sp->scratch.data;
  *n = o;
}

int csv__field_error(const csv_splitter_t *sp, const csv_field_t *f, const char *name, int code,
                     const char *why, const char *s, size_t n, fl_err_t *err) {
  char shown[48];
  size_t k = n < 40 ? n : 40;
  for (size_t i = 0; s && i < k; i++) shown[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
  shown[s ? k : 0] = '\0';
  return fl_err_set(err, code, "%s: line %llu, column %zu: field '%s': %s%s%s%s%s", sp->where,
                    (unsigned long long)f->line, f->col, name, why, s ? ", found \"" : "",
                    s ? shown : "", s && n > k ? "..." : "", s ? "\"" : "");
}
