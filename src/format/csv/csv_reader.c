/*
 * csv_reader.c - the CSV fmt_reader_t (see csv.h for the dialect).
 *
 * The file streams through a buffer read with read_at in large chunks. A
 * row is first split into field spans (no copy; quoted fields with doubled
 * quotes are unescaped later into a scratch buffer), and only when the
 * whole row is there are its fields parsed into the batch's vectors, so a
 * row cut by the end of a chunk is simply split again after the next read.
 * A row that fails to parse is cut back out of every column.
 */
#include "format/csv/csv.h"

#include <stdio.h>

#include "base/alloc.h"
#include "format/json/json_decoder.h"
#include "format/text_parse.h"
#include "io/window.h"

#define MAX_ROW_BYTES ((size_t)1 << 30)

size_t csv__reader_chunk_bytes = (size_t)4 << 20;

typedef struct csv_field {
  const char *p;
  size_t n;
  bool quoted, dq; /* dq: holds doubled quotes */
  uint64_t line;
  size_t col;
} csv_field_t;

typedef struct csv_reader {
  fmt_reader_t base;
  io_window_t win;
  fl_arena_t *arena;
  ty_batch_t *batch;
  bool done;
  char delim;
  uint64_t line; /* physical line of buf[start] */
  csv_field_t *fields;
  size_t nf, fcap;
  uint32_t nfile_cols;
  int32_t *col_map;   /* file field -> batch column, or -1 */
  bool *present;      /* batch column fed by some file field */
  js_decoder_t **nested; /* per batch column: decoder of a nested column's JSON text */
  ty_schema_t **nested_schema;
  fl_buf_t scratch, wrap;
} csv_reader_t;


static void add_field(csv_reader_t *r, const csv_field_t *f) {
  if (r->nf == r->fcap) {
    r->fcap = r->fcap ? r->fcap * 2 : 16;
    r->fields = fl_realloc(r->fields, r->fcap * sizeof *r->fields);
  }
  r->fields[r->nf++] = *f;
}

/*
 * Splits the row at p into r->fields. Sets *whole and returns 0 with *next
 * after the row and *line_out the line after it; leaves *whole false when
 * the row is cut off by end and more text follows; returns an error code
 * for malformed text.
 */
static int split_row(csv_reader_t *r, const char *p, const char *end, bool more, uint64_t line,
                     const char **next, uint64_t *line_out, bool *whole, fl_err_t *err) {
  const char *q = p, *ls = p;
  *whole = false;
  char delim = r->delim;
  r->nf = 0;
  for (;;) {
    csv_field_t f = {.line = line, .col = (size_t)(q - ls) + 1};
    if (q < end && *q == '"') {
      q++;
      f.p = q;
      f.quoted = true;
      for (;;) {
        const char *x = memchr(q, '"', (size_t)(end - q));
        const char *stop = x ? x : end;
        for (const char *c = memchr(q, '\n', (size_t)(stop - q)); c;
             c = memchr(c + 1, '\n', (size_t)(stop - c - 1))) {
          line++;
          ls = c + 1;
        }
        if (!x || (x + 1 == end && more)) {
          if (more) return FL_OK;
          return fl_err_set(err, FL_EPARSE, "%s: line %llu, column %zu: unterminated quoted field",
                            r->win.in->path, (unsigned long long)f.line, f.col);
        }
        if (x + 1 < end && x[1] == '"') {
          f.dq = true;
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
                          r->win.in->path, (unsigned long long)line, (size_t)(q - ls) + 1);
    } else {
      f.p = q;
      while (q < end && *q != delim && *q != '\n' && *q != '\r') q++;
      f.n = (size_t)(q - f.p);
    }
    add_field(r, &f);
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

/* A blank line is skipped, except in a one-column file, where it is the
 * row of a null value (as the writer writes it). */
static bool blank_row(const csv_reader_t *r) {
  return r->nf == 1 && !r->fields[0].quoted && r->fields[0].n == 0 && r->nfile_cols != 1;
}

/* The text of a field: raw, or with doubled quotes undone in scratch. */
static void field_text(csv_reader_t *r, const csv_field_t *f, const char **s, size_t *n) {
  if (!f->dq) {
    *s = f->p;
    *n = f->n;
    return;
  }
  fl_buf_clear(&r->scratch);
  fl_buf_reserve(&r->scratch, f->n);
  size_t o = 0;
  for (size_t i = 0; i < f->n; i++) {
    r->scratch.data[o++] = (uint8_t)f->p[i];
    if (f->p[i] == '"') i++;
  }
  *s = (const char *)r->scratch.data;
  *n = o;
}

/* Parses a nested column's JSON text into v through a one-column decoder. */
static int nested_field(csv_reader_t *r, uint32_t c, ty_vec_t *v, const char *s, size_t n,
                        fl_err_t *err) {
  fl_buf_clear(&r->wrap);
  fl_buf_append_str(&r->wrap, "{\"v\":");
  fl_buf_append(&r->wrap, s, n);
  fl_buf_append_u8(&r->wrap, '}');
  ty_vec_t *cols[1] = {v};
  ty_batch_t one = {.schema = r->nested_schema[c], .ncols = 1, .cols = cols};
  uint32_t before = v->len;
  js_decoder_set_line(r->nested[c], 1);
  int rc = js_decode(r->nested[c], (const char *)r->wrap.data, r->wrap.len, &one, err);
  if (!rc && v->len != before + 1) rc = fl_err_set(err, FL_EINVALID, "expected one JSON value");
  return rc;
}

static int field_error(csv_reader_t *r, const csv_field_t *f, uint32_t c, int code, const char *why,
                       const char *s, size_t n, fl_err_t *err) {
  char shown[48];
  size_t k = n < 40 ? n : 40;
  for (size_t i = 0; i < k; i++) shown[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
  shown[k] = '\0';
  return fl_err_set(err, code, "%s: line %llu, column %zu: field '%s': %s%s%s%s%s", r->win.in->path,
                    (unsigned long long)f->line, f->col, r->base.schema->root.fields[c].name, why,
                    s ? ", found \"" : "", s ? shown : "", s && n > k ? "..." : "", s ? "\"" : "");
}

/* Appends the split row to the batch, or cuts it back out on error. */
static int apply_row(csv_reader_t *r, uint64_t row_line, fl_err_t *err) {
  if (r->nf != r->nfile_cols)
    return fl_err_set(err, FL_EPARSE, "%s: line %llu: expected %u fields, found %zu", r->win.in->path,
                      (unsigned long long)row_line, r->nfile_cols, r->nf);
  ty_batch_t *b = r->batch;
  uint32_t rows = b->nrows;
  const ty_field_t *cols = r->base.schema->root.fields;
  int rc = FL_OK;
  for (size_t i = 0; i < r->nf; i++) {
    int32_t c = r->col_map[i];
    if (c < 0) continue;
    const csv_field_t *f = &r->fields[i];
    ty_vec_t *v = b->cols[c];
    if (!f->quoted && f->n == 0) {
      if (cols[c].required) {
        rc = field_error(r, f, (uint32_t)c, FL_EINVALID, "empty (null) value for a required field", NULL, 0, err);
        goto fail;
      }
      ty_vec_append_null(v);
      continue;
    }
    const char *s;
    size_t n;
    field_text(r, f, &s, &n);
    if (r->nested[c]) {
      fl_err_t je;
      if (nested_field(r, (uint32_t)c, v, s, n, &je)) {
        rc = field_error(r, f, (uint32_t)c, je.code, je.msg, NULL, 0, err);
        goto fail;
      }
      continue;
    }
    const char *why = tp_append(v, s, n);
    if (why) {
      rc = field_error(r, f, (uint32_t)c, FL_EINVALID, why, s, n, err);
      goto fail;
    }
  }
  for (uint32_t c = 0; c < b->ncols; c++)
    if (!r->present[c]) ty_vec_append_null(b->cols[c]);
  b->nrows = rows + 1;
  return FL_OK;
fail:
  for (uint32_t c = 0; c < b->ncols; c++) tp_vec_truncate(b->cols[c], rows);
  return rc;
}

static int csv_next(fmt_reader_t *fr, ty_batch_t **out, fl_err_t *err) {
  csv_reader_t *r = (csv_reader_t *)fr;
  *out = NULL;
  if (r->done) return FL_OK;
  ty_batch_reset(r->batch);
  int rc = FL_OK;
  while (r->batch->nrows < TY_BATCH_ROWS) {
    if (r->win.start >= r->win.len) {
      if (io_window_at_eof(&r->win)) {
        r->done = true;
        break;
      }
      if ((rc = io_window_fill(&r->win, err))) goto fail;
      continue;
    }
    const char *next;
    uint64_t line_after;
    bool whole;
    if ((rc = split_row(r, r->win.buf + r->win.start, r->win.buf + r->win.len, !io_window_at_eof(&r->win), r->line, &next,
                        &line_after, &whole, err)))
      goto fail;
    if (!whole) {
      if ((rc = io_window_fill(&r->win, err))) goto fail;
      continue;
    }
    uint64_t row_line = r->line;
    r->win.start = (size_t)(next - r->win.buf);
    r->line = line_after;
    if (blank_row(r)) continue;
    if ((rc = apply_row(r, row_line, err))) goto fail;
  }
  if (r->batch->nrows) *out = r->batch;
  return FL_OK;
fail:
  r->done = true;
  return rc;
}

static void csv_close_reader(fmt_reader_t *fr) {
  csv_reader_t *r = (csv_reader_t *)fr;
  if (!r) return;
  if (r->nested)
    for (uint32_t c = 0; r->batch && c < r->batch->ncols; c++) js_decoder_free(r->nested[c]);
  ty_batch_free(r->batch);
  io_window_free(&r->win);
  fl_free(r->fields);
  fl_buf_free(&r->scratch);
  fl_buf_free(&r->wrap);
  fl_arena_free(r->arena);
  fl_free(r);
}

/* Splits the next non-blank row at buf[*pos], reading more as needed;
 * *found is false at the end of the file. */
static int peek_row(csv_reader_t *r, size_t *pos, uint64_t *line, bool *found, fl_err_t *err) {
  *found = false;
  for (;;) {
    if (*pos >= r->win.len && io_window_at_eof(&r->win)) return FL_OK;
    const char *next;
    uint64_t after;
    bool whole = false;
    if (*pos < r->win.len) {
      int rc = split_row(r, r->win.buf + *pos, r->win.buf + r->win.len, !io_window_at_eof(&r->win), *line, &next, &after, &whole, err);
      if (rc) return rc;
    }
    if (!whole) {
      /* fill() moves live bytes to the front: keep *pos relative. */
      size_t keep = r->win.start;
      int rc = io_window_fill(&r->win, err);
      if (rc) return rc;
      *pos -= keep;
      continue;
    }
    *pos = (size_t)(next - r->win.buf);
    *line = after;
    if (!blank_row(r)) {
      *found = true;
      return FL_OK;
    }
  }
}

static int infer(csv_reader_t *r, uint32_t want, const char **names, uint32_t ncols,
                 ty_schema_t **out, fl_err_t *err) {
  unsigned *cls = fl_calloc(ncols ? ncols : 1, sizeof *cls);
  bool *seen = fl_calloc(ncols ? ncols : 1, sizeof *seen);
  size_t pos = r->win.start;
  uint64_t line = r->line;
  int rc = FL_OK;
  for (uint32_t rows = 0; rows < want;) {
    bool found;
    if ((rc = peek_row(r, &pos, &line, &found, err))) goto done;
    if (!found) break;
    if (r->nf != ncols) {
      rc = fl_err_set(err, FL_EPARSE, "%s: line %llu: expected %u fields, found %zu", r->win.in->path,
                      (unsigned long long)(line - 1), ncols, r->nf);
      goto done;
    }
    for (uint32_t c = 0; c < ncols; c++) {
      const csv_field_t *f = &r->fields[c];
      if (!f->quoted && f->n == 0) continue;
      const char *s;
      size_t n;
      field_text(r, f, &s, &n);
      unsigned k = tp_classify(s, n);
      cls[c] = seen[c] ? cls[c] & k : k;
      seen[c] = true;
    }
    rows++;
  }
  ty_field_t *fields = fl_arena_zalloc(r->arena, (ncols ? ncols : 1) * sizeof *fields);
  for (uint32_t c = 0; c < ncols; c++) {
    fields[c].id = (int32_t)c + 1;
    fields[c].name = names[c];
    fields[c].type = ty_primitive(seen[c] ? tp_class_kind(cls[c]) : TY_STRING);
  }
  *out = ty_schema_new(r->arena, 0, fields, ncols);
done:
  fl_free(cls);
  fl_free(seen);
  return rc;
}

int csv_open_reader_io(io_reader_t *in, const fmt_read_opts_t *opts, fmt_reader_t **out,
                       fl_err_t *err) {
  csv_reader_t *r = fl_calloc(1, sizeof *r);
  r->arena = fl_arena_new(0);
  r->line = 1;
  fl_buf_init(&r->scratch);
  fl_buf_init(&r->wrap);
  size_t plen = strlen(in->path);
  bool tsv = plen >= 4 && (strcmp(in->path + plen - 4, ".tsv") == 0 || strcmp(in->path + plen - 4, ".TSV") == 0);
  r->delim = opts->csv_delimiter ? opts->csv_delimiter : (tsv ? '\t' : ',');
  int rc;
  if (r->delim == '"' || r->delim == '\n' || r->delim == '\r') {
    rc = fl_err_set(err, FL_EINVALID, "%s: the delimiter cannot be a quote or a line break", in->path);
    in->close(in);
    goto err;
  }
  size_t chunk = csv__reader_chunk_bytes < 4 ? 4 : csv__reader_chunk_bytes;
  if ((rc = io_window_open(&r->win, in, chunk, MAX_ROW_BYTES, err))) goto err;
  if (r->win.len >= 3 && memcmp(r->win.buf, "\xEF\xBB\xBF", 3) == 0) r->win.start = 3;

  /* The first row: names, or just the field count. */
  const char **names = NULL;
  uint32_t nnames = 0;
  size_t pos = r->win.start;
  uint64_t line = r->line;
  bool found;
  if ((rc = peek_row(r, &pos, &line, &found, err))) goto err;
  if (found) {
    nnames = (uint32_t)r->nf;
    names = fl_arena_zalloc(r->arena, nnames * sizeof *names);
    for (uint32_t i = 0; i < nnames; i++) {
      if (opts->csv_no_header) {
        names[i] = fl_arena_sprintf(r->arena, "f%u", i);
      } else {
        const char *s;
        size_t n;
        field_text(r, &r->fields[i], &s, &n);
        names[i] = fl_arena_strndup(r->arena, s, n);
      }
    }
    if (!opts->csv_no_header) {
      r->win.start = pos;
      r->line = line;
    }
  }
  r->nfile_cols = nnames;
  const ty_schema_t *schema = opts->schema;
  if (!schema) {
    ty_schema_t *s = NULL;
    if ((rc = infer(r, opts->infer_rows ? opts->infer_rows : 1000, names, nnames, &s, err))) goto err;
    schema = s;
  }
  uint32_t ncols = schema->root.nfields;
  r->col_map = fl_arena_zalloc(r->arena, (nnames ? nnames : 1) * sizeof *r->col_map);
  r->present = fl_arena_zalloc(r->arena, (ncols ? ncols : 1) * sizeof *r->present);
  for (uint32_t i = 0; i < nnames; i++) {
    int c = opts->csv_no_header ? (i < ncols ? (int)i : -1) : ty_schema_find_name(schema, names[i]);
    if (c >= 0 && r->present[c]) c = -1; /* a repeated header name feeds the first one */
    r->col_map[i] = c;
    if (c >= 0) r->present[c] = true;
  }
  for (uint32_t c = 0; c < ncols; c++)
    if (!r->present[c] && schema->root.fields[c].required && nnames) {
      rc = fl_err_set(err, FL_EINVALID, "%s: required column '%s' is not in the file", in->path,
                      schema->root.fields[c].name);
      goto err;
    }
  r->nested = fl_arena_zalloc(r->arena, (ncols ? ncols : 1) * sizeof *r->nested);
  r->nested_schema = fl_arena_zalloc(r->arena, (ncols ? ncols : 1) * sizeof *r->nested_schema);
  r->base.schema = schema;
  r->batch = ty_batch_new(schema, TY_BATCH_ROWS);
  for (uint32_t c = 0; c < ncols; c++) {
    const ty_field_t *f = &schema->root.fields[c];
    if (!ty_is_nested(f->type)) continue;
    ty_field_t one = *f;
    one.name = "v";
    r->nested_schema[c] = ty_schema_new(r->arena, 0, &one, 1);
    r->nested[c] = js_decoder_new(r->nested_schema[c], NULL);
  }
  r->base.next = csv_next;
  r->base.close = csv_close_reader;
  *out = &r->base;
  return FL_OK;
err:
  csv_close_reader(&r->base);
  return rc;
}

int csv_fmt_open_reader(io_fs_t *fs, const char *path, const fmt_read_opts_t *opts,
                        fmt_reader_t **out, fl_err_t *err) {
  io_reader_t *in;
  int rc = fs->open_read(fs, path, &in, err);
  if (rc) return rc;
  return csv_open_reader_io(in, opts, out, err);
}
