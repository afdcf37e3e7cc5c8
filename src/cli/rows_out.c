/*
 * rows_out.c - tables, CSV and JSON lines on standard output (layer 12).
 */
#include "cli/rows_out.h"

#include <inttypes.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "format/json/json_text.h"
#include "types/value.h"

struct cli_out {
  cli_fmt_t fmt;
  FILE *fp;
  uint32_t ncols;
  char **cols;
  uint32_t col; /* the next cell's column */
  fl_buf_t line;
  /* table: every cell, row-major; NULL entries are nulls */
  char **cells;
  size_t ncells, cap;
  bool failed;
  uint64_t rows; /* rows ended so far (JSON array separators) */
};

bool cli_fmt_parse(const char *s, cli_fmt_t *out) {
  if (strcmp(s, "table") == 0) *out = CLI_FMT_TABLE;
  else if (strcmp(s, "csv") == 0) *out = CLI_FMT_CSV;
  else if (strcmp(s, "jsonl") == 0 || strcmp(s, "json") == 0) *out = CLI_FMT_JSONL;
  else return false;
  return true;
}

bool cli_fmt_parse_sql(const char *s, cli_fmt_t *out) {
  if (strcmp(s, "tsv") == 0) *out = CLI_FMT_TSV;
  else if (strcmp(s, "json") == 0) *out = CLI_FMT_JSON;
  else return cli_fmt_parse(s, out);
  return true;
}

static void tsv_cell(fl_buf_t *b, const char *s) {
  for (const char *p = s; *p; p++) {
    if (*p == '\t') fl_buf_append_str(b, "\\t");
    else if (*p == '\n') fl_buf_append_str(b, "\\n");
    else if (*p == '\r') fl_buf_append_str(b, "\\r");
    else if (*p == '\\') fl_buf_append_str(b, "\\\\");
    else fl_buf_append_u8(b, (uint8_t)*p);
  }
}

static void csv_cell(fl_buf_t *b, const char *s) {
  bool quote = *s == '\0' || strpbrk(s, ",\"\r\n") != NULL;
  if (!quote) {
    fl_buf_append_str(b, s);
    return;
  }
  fl_buf_append_u8(b, '"');
  for (const char *p = s; *p; p++) {
    if (*p == '"') fl_buf_append_u8(b, '"');
    fl_buf_append_u8(b, (uint8_t)*p);
  }
  fl_buf_append_u8(b, '"');
}

/* A cell for the aligned table: control characters shown as escapes so
 * that every row stays on one line. */
static char *table_text(const char *s) {
  fl_buf_t b;
  fl_buf_init(&b);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '\n') fl_buf_append_str(&b, "\\n");
    else if (*p == '\r') fl_buf_append_str(&b, "\\r");
    else if (*p == '\t') fl_buf_append_str(&b, "\\t");
    else if (*p < 0x20 || *p == 0x7f) fl_buf_printf(&b, "\\x%02x", *p);
    else fl_buf_append_u8(&b, *p);
  }
  fl_buf_append_u8(&b, '\0');
  char *out = fl_strdup((const char *)b.data);
  fl_buf_free(&b);
  return out;
}

cli_out_t *cli_out_new(cli_fmt_t fmt, FILE *fp, const char *const *cols, uint32_t ncols) {
  cli_out_t *o = fl_calloc(1, sizeof *o);
  o->fmt = fmt;
  o->fp = fp;
  o->ncols = ncols;
  o->cols = fl_calloc(ncols ? ncols : 1, sizeof *o->cols);
  for (uint32_t i = 0; i < ncols; i++) o->cols[i] = fl_strdup(cols[i]);
  fl_buf_init(&o->line);
  if (fmt == CLI_FMT_CSV || fmt == CLI_FMT_TSV) {
    for (uint32_t i = 0; i < ncols; i++) {
      if (i) fl_buf_append_u8(&o->line, fmt == CLI_FMT_CSV ? ',' : '\t');
      if (fmt == CLI_FMT_CSV)
        csv_cell(&o->line, cols[i]);
      else
        tsv_cell(&o->line, cols[i]);
    }
    fl_buf_append_u8(&o->line, '\n');
    if (fwrite(o->line.data, 1, o->line.len, fp) != o->line.len) o->failed = true;
    fl_buf_clear(&o->line);
  }
  return o;
}

static void push_cell(cli_out_t *o, char *s) {
  if (o->ncells == o->cap) {
    o->cap = o->cap ? o->cap * 2 : 256;
    o->cells = fl_realloc(o->cells, o->cap * sizeof *o->cells);
  }
  o->cells[o->ncells++] = s;
}

void cli_out_cell(cli_out_t *o, const char *text, bool json) {
  uint32_t c = o->col++;
  switch (o->fmt) {
  case CLI_FMT_TABLE:
    push_cell(o, text ? table_text(text) : NULL);
    break;
  case CLI_FMT_CSV:
    if (c) fl_buf_append_u8(&o->line, ',');
    if (text) csv_cell(&o->line, text);
    break;
  case CLI_FMT_TSV:
    if (c) fl_buf_append_u8(&o->line, '\t');
    if (text) tsv_cell(&o->line, text);
    break;
  case CLI_FMT_JSON:
    if (!c) fl_buf_append_str(&o->line, o->rows ? ",\n" : "[\n");
    /* fall through */
  case CLI_FMT_JSONL:
    fl_buf_append_u8(&o->line, c ? ',' : '{');
    js_append_string(&o->line, (const uint8_t *)o->cols[c], strlen(o->cols[c]));
    fl_buf_append_u8(&o->line, ':');
    if (!text) fl_buf_append_str(&o->line, "null");
    else if (json) fl_buf_append_str(&o->line, text);
    else js_append_string(&o->line, (const uint8_t *)text, strlen(text));
    break;
  }
}

void cli_out_cell_i64(cli_out_t *o, int64_t v) {
  char tmp[32];
  snprintf(tmp, sizeof tmp, "%" PRId64, v);
  cli_out_cell(o, tmp, true);
}

void cli_out_end_row(cli_out_t *o) {
  while (o->col < o->ncols) cli_out_cell(o, NULL, false);
  o->col = 0;
  if (o->fmt == CLI_FMT_TABLE) return;
  if (o->fmt == CLI_FMT_JSONL || o->fmt == CLI_FMT_JSON) {
    if (o->ncols == 0) fl_buf_append_str(&o->line, o->fmt == CLI_FMT_JSON && !o->rows ? "[\n{" : "{");
    fl_buf_append_u8(&o->line, '}');
  }
  o->rows++;
  if (o->fmt != CLI_FMT_JSON) fl_buf_append_u8(&o->line, '\n');
  if (o->line.len >= 1 << 16) {
    if (fwrite(o->line.data, 1, o->line.len, o->fp) != o->line.len) o->failed = true;
    fl_buf_clear(&o->line);
  }
}

static void value_text(const ty_vec_t *v, uint32_t i, fl_buf_t *out) {
  fl_buf_clear(out);
  if (ty_is_nested(v->type)) {
    js_append_value(out, v, i);
  } else if (v->type->kind == TY_STRING) {
    size_t n;
    const uint8_t *p = ty_vec_get_bytes(v, i, &n);
    fl_buf_append(out, p, n);
  } else {
    ty_value_t x = ty_value_from_vec(v, i);
    ty_value_format(v->type, &x, out);
  }
  fl_buf_append_u8(out, '\0');
}

void cli_out_batch(cli_out_t *o, const ty_batch_t *b) {
  uint32_t n = ty_batch_live(b);
  fl_buf_t cell;
  fl_buf_init(&cell);
  for (uint32_t k = 0; k < n; k++) {
    uint32_t r = b->sel ? b->sel[k] : k;
    if (o->fmt == CLI_FMT_JSONL) {
      js_append_row(&o->line, b, r);
      o->col = o->ncols;
      fl_buf_append_u8(&o->line, '\n');
      o->col = 0;
      if (o->line.len >= 1 << 16) {
        if (fwrite(o->line.data, 1, o->line.len, o->fp) != o->line.len) o->failed = true;
        fl_buf_clear(&o->line);
      }
      continue;
    }
    for (uint32_t c = 0; c < b->ncols; c++) {
      const ty_vec_t *v = b->cols[c];
      if (ty_vec_is_null(v, r)) {
        cli_out_cell(o, NULL, false);
        continue;
      }
      value_text(v, r, &cell);
      cli_out_cell(o, (const char *)cell.data, false);
    }
    cli_out_end_row(o);
  }
  fl_buf_free(&cell);
}

/* Display width of UTF-8 text: code points (good enough for a terminal). */
static size_t width(const char *s) {
  size_t w = 0;
  for (; *s; s++)
    if (((unsigned char)*s & 0xC0) != 0x80) w++;
  return w;
}

static void pad(FILE *fp, size_t n) {
  while (n--) fputc(' ', fp);
}

static void print_table(cli_out_t *o) {
  uint32_t nc = o->ncols;
  if (nc == 0) return;
  size_t nrows = o->ncells / nc;
  size_t *w = fl_calloc(nc, sizeof *w);
  for (uint32_t c = 0; c < nc; c++) w[c] = width(o->cols[c]);
  for (size_t i = 0; i < o->ncells; i++) {
    size_t x = o->cells[i] ? width(o->cells[i]) : 4;
    if (x > w[i % nc]) w[i % nc] = x;
  }
  for (uint32_t c = 0; c < nc; c++) {
    if (c) fputs(" | ", o->fp);
    fputs(o->cols[c], o->fp);
    if (c + 1 < nc) pad(o->fp, w[c] - width(o->cols[c]));
  }
  fputc('\n', o->fp);
  for (uint32_t c = 0; c < nc; c++) {
    if (c) fputs("-+-", o->fp);
    for (size_t k = 0; k < w[c]; k++) fputc('-', o->fp);
  }
  fputc('\n', o->fp);
  for (size_t r = 0; r < nrows; r++) {
    for (uint32_t c = 0; c < nc; c++) {
      const char *s = o->cells[r * nc + c];
      if (c) fputs(" | ", o->fp);
      fputs(s ? s : "null", o->fp);
      if (c + 1 < nc) pad(o->fp, w[c] - (s ? width(s) : 4));
    }
    fputc('\n', o->fp);
  }
  fprintf(o->fp, "(%zu row%s)\n", nrows, nrows == 1 ? "" : "s");
  fl_free(w);
}

bool cli_out_finish(cli_out_t *o) {
  if (o->fmt == CLI_FMT_TABLE) print_table(o);
  if (o->fmt == CLI_FMT_JSON) fl_buf_append_str(&o->line, o->rows ? "\n]\n" : "[]\n");
  if (o->line.len && fwrite(o->line.data, 1, o->line.len, o->fp) != o->line.len) o->failed = true;
  if (fflush(o->fp) != 0) o->failed = true;
  bool ok = !o->failed;
  for (size_t i = 0; i < o->ncells; i++) fl_free(o->cells[i]);
  fl_free(o->cells);
  for (uint32_t i = 0; i < o->ncols; i++) fl_free(o->cols[i]);
  fl_free(o->cols);
  fl_buf_free(&o->line);
  fl_free(o);
  return ok;
}
