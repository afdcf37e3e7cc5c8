/*
 * rows_out.h - printing rows on standard output as an aligned table, CSV
 * TSV, JSON lines or a JSON array (layer 12, cli).
 *
 * Used for table scans (batches) and for the metadata listings (cells
 * given one by one). The table form buffers every row to size its
 * columns; CSV and JSON lines stream.
 */
#ifndef FL_CLI_ROWS_OUT_H
#define FL_CLI_ROWS_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "types/vec.h"

typedef enum cli_fmt { CLI_FMT_TABLE, CLI_FMT_CSV, CLI_FMT_JSONL, CLI_FMT_TSV, CLI_FMT_JSON } cli_fmt_t;

/* "table", "csv", "jsonl" (also "json"); false when unknown. */
/* With sql_forms also "tsv" (tab-separated, no quoting; tabs and newlines
 * in values escaped as \t, \n) and "json" as one JSON array of objects. */
bool cli_fmt_parse_sql(const char *s, cli_fmt_t *out);
bool cli_fmt_parse(const char *s, cli_fmt_t *out);

typedef struct cli_out cli_out_t;

cli_out_t *cli_out_new(cli_fmt_t fmt, FILE *fp, const char *const *cols, uint32_t ncols);
/* The next cell of the current row: text, or with json set a JSON literal
 * (number, true/false, object) printed unquoted in JSON lines. NULL text
 * is a null. */
void cli_out_cell(cli_out_t *o, const char *text, bool json);
void cli_out_cell_i64(cli_out_t *o, int64_t v);
void cli_out_end_row(cli_out_t *o);
/* All live rows of a batch whose columns match the header. */
void cli_out_batch(cli_out_t *o, const ty_batch_t *b);
/* Prints what is buffered, frees o; false when writing failed. */
bool cli_out_finish(cli_out_t *o);

#endif
