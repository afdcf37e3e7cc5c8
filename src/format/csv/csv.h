/*
 * csv.h - the CSV (RFC 4180) reader and writer (layer 4, format/csv).
 *
 * Reading: fields separated by opts->csv_delimiter (',' by default, tab
 * for .tsv), optionally quoted with '"' (a doubled quote inside stands for
 * one; quoted fields may hold delimiters and newlines); rows end with LF
 * or CRLF; a UTF-8 byte-order mark is skipped; blank lines are skipped
 * (in a one-column file a blank line is a null).
 * The header row names the columns (unless opts->csv_no_header, then they
 * are f0, f1, ...). With a schema, header names are matched to columns by
 * name (unknown file columns are ignored, schema columns absent from the
 * file read as null); without a header, by position. An empty unquoted
 * field is null; "" is the empty string. Values are parsed per type by
 * text_parse.h; nested columns read their JSON text. Without a schema the
 * types are inferred from the first opts->infer_rows rows: boolean, long,
 * double, date, timestamp, timestamptz, else string, all optional.
 * Errors name the file, the line (physical, counting newlines inside
 * quotes) and the byte column: "x.csv: line 7, column 12: field 'age': ...".
 *
 * Writing: a header row and one row per record, values in floe's canonical
 * JSON text forms without JSON quoting (nested values as their JSON text),
 * null as an empty field, the empty string as "", a field quoted when it
 * holds the delimiter, a quote, CR or LF.
 */
#ifndef FL_FORMAT_CSV_CSV_H
#define FL_FORMAT_CSV_CSV_H

#include "format/format.h"

int csv_fmt_open_reader(io_fs_t *fs, const char *path, const fmt_read_opts_t *opts,
                        fmt_reader_t **out, fl_err_t *err);
/* As csv_fmt_open_reader over an already open input, which the reader
 * takes over (closed with it, also on failure). */
int csv_open_reader_io(io_reader_t *in, const fmt_read_opts_t *opts, fmt_reader_t **out,
                       fl_err_t *err);
int csv_fmt_open_writer(io_fs_t *fs, const char *path, const ty_schema_t *schema,
                        const fmt_write_opts_t *opts, fmt_writer_t **out, fl_err_t *err);

/*
 * The dialect of CSV text. The file reader uses the defaults with its
 * delimiter; a one-record decoder takes all of it (Flink's csv format
 * options: 'csv.field-delimiter', 'csv.quote-character',
 * 'csv.disable-quote-character', 'csv.escape-character',
 * 'csv.allow-comments', 'csv.null-literal', 'csv.array-element-delimiter').
 */
typedef struct csv_dialect {
  char delimiter;           /* ',' when 0 */
  char quote;               /* '"' when 0, unless no_quote */
  bool no_quote;            /* quoting disabled: the quote is a plain character */
  char escape;              /* 0: none; else it makes the next character literal */
  bool allow_comments;      /* a record starting with '#' is skipped (records only) */
  const char *null_literal; /* NULL: none; a field with this text is null */
  char array_delimiter;     /* ';' when 0: elements of ARRAY and fields of ROW values */
} csv_dialect_t;

/*
 * One CSV record into one row of a schema, fields by position (a Kafka
 * message value in Flink's csv format). The record may end with one LF or
 * CRLF; it must have exactly as many fields as the schema has columns. An
 * empty unquoted field or the null literal is null (an error for a
 * required column); list columns split their field at the array
 * delimiter into elements, struct columns into their fields (primitive
 * elements only; maps are refused when the decoder is made). Primitive
 * values are parsed by text_parse.h.
 */
typedef struct csv_record_decoder csv_record_decoder_t;

/* Checks the dialect (distinct delimiter, quote, escape; none a line
 * break) and the column types; s must outlive the decoder. */
int csv_record_decoder_new(const ty_schema_t *s, const csv_dialect_t *d, csv_record_decoder_t **out,
                           fl_err_t *err);
void csv_record_decoder_free(csv_record_decoder_t *d);
/*
 * Appends the record p[0,n) as a row of b (a batch of the schema; b->nrows
 * grows by one) and sets *appended; a comment record (allow_comments)
 * appends nothing. On error nothing is appended and err reads
 * "record: line 1, column C: field 'x': why" or names the field count.
 */
int csv_record_decode(csv_record_decoder_t *d, const char *p, size_t n, ty_batch_t *b,
                      bool *appended, fl_err_t *err);

/* Read size of the readers (tests shrink it to cross chunk boundaries). */
extern size_t csv__reader_chunk_bytes;

#endif
