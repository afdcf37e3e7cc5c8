/*
 * csv_int.h - the CSV field splitter and field parser shared by the file
 * reader (csv_reader.c) and the one-record decoder (csv_record.c) (layer
 * 4, format/csv; private to the folder).
 *
 * A row is split into field spans without copying (csv__split_row); a
 * field's text is unescaped into a scratch buffer only when it holds a
 * doubled quote or an escape character (csv__field_text); csv__field_append
 * parses it into a vector per text_parse.h.
 */
#ifndef FL_FORMAT_CSV_CSV_INT_H
#define FL_FORMAT_CSV_CSV_INT_H

#include "base/buf.h"
#include "base/error.h"
#include "format/csv/csv.h"

typedef struct csv_field {
  const char *p;
  size_t n;
  bool quoted, unescape; /* unescape: holds doubled quotes or escapes */
  uint64_t line;
  size_t col;
} csv_field_t;

typedef struct csv_splitter {
  csv_dialect_t d;
  const char *where; /* the file's path or "record", for messages */
  csv_field_t *fields;
  size_t nf, fcap;
  fl_buf_t scratch;
} csv_splitter_t;

void csv__splitter_init(csv_splitter_t *sp, const csv_dialect_t *d, const char *where);
void csv__splitter_free(csv_splitter_t *sp);

/*
 * Splits the row at p into sp->fields. Sets *whole and returns 0 with *next
 * after the row and *line_out the line after it; leaves *whole false when
 * the row is cut off by end and more text follows; returns FL_EPARSE for
 * malformed text.
 */
int csv__split_row(csv_splitter_t *sp, const char *p, const char *end, bool more, uint64_t line,
                   const char **next, uint64_t *line_out, bool *whole, fl_err_t *err);

/* The text of a field: raw, or unescaped in sp->scratch (valid until the
 * next call). */
void csv__field_text(csv_splitter_t *sp, const csv_field_t *f, const char **s, size_t *n);

/* "WHERE: line L, column C: field 'name': why[, found "text"]". */
int csv__field_error(const csv_splitter_t *sp, const csv_field_t *f, const char *name, int code,
                     const char *why, const char *s, size_t n, fl_err_t *err);

#endif
