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
#include <stdio.h>

#include "base/alloc.h"
#include "format/csv/csv.h"
#include "format/csv/csv_int.h"
#include "format/json/json_decoder.h"
#include "format/text_parse.h"
#include "io/window.h"

#define MAX_ROW_BYTES ((size_t)1 << 30)

size_t csv__reader_chunk_bytes = (size_t)4 << 20;

typedef struct csv_reader {
  fmt_reader_t base;
  io_window_t win;
  fl_arena_t *arena;
  ty_batch_t *batch;
  bool done;
  csv_splitter_t sp;
  uint64_t line; /* physical line of buf[start] */
  uint32_t nfile_cols;
  int32_t *col_map;      /* file field -> batch column, or -1 */
  bool *present;         /* batch column fed by some file field */
  js_decoder_t **nested; /* per batch column: decoder of a nested column's JSON text */
  ty_schema_t **nested_schema;
  fl_buf_t wrap;
} csv_reader_t;

/* A blank line is skipped, except in a one-column file, where it is the
 * row of a null value (as the writer writes it). */
static bool blank_row(const csv_reader_t *r) {
  return r->sp.nf == 1 && !r->sp.fields[0].quoted && r->sp.fields[0].n == 0 && r->nfile_cols != 1;
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
  return csv__field_error(&r->sp, f, r->base.schema->root.fields[c].name, code, why, s, n, err);
}

/* Appends the split row to the batch, or cuts it back out on error. */
static int apply_row(csv_reader_t *r, uint64_t row_line, fl_err_t *err) {
  if (r->sp.nf != r->nfile_cols)
    return fl_err_set(err, FL_EPARSE, "%s: line %llu: expected %u fields, found %zu",
                      r->win.in->path, (unsigned long long)row_line, r->nfile_cols, r->sp.nf);
  ty_batch_t *b = r->batch;
  uint32_t rows = b->nrows;
  const ty_field_t *cols = r->base.schema->root.fields;
  int rc = FL_OK;
  for (size_t i = 0; i < r->sp.nf; i++) {
    int32_t c = r->col_map[i];
    if (c < 0) continue;
    const csv_field_t *f = &r->sp.fields[i];
    ty_vec_t *v = b->cols[c];
    if (!f->quoted && f->n == 0) {
      if (cols[c].required) {
        rc = field_error(r, f, (uint32_t)c, FL_EINVALID, "empty (null) value for a required field",
                         NULL, 0, err);
        goto fail;
      }
      ty_vec_append_null(v);
      continue;
    }
    const char *s;
    size_t n;
    csv__field_text(&r->sp, f, &s, &n);
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
    if ((rc = csv__split_row(&r->sp, r->win.buf + r->win.start, r->win.buf + r->win.len,
                             !io_window_at_eof(&r->win), r->line, &next, &line_after, &whole, err)))
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
  csv__splitter_free(&r->sp);
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
      int rc = csv__split_row(&r->sp, r->win.buf + *pos, r->win.buf + r->win.len,
                              !io_window_at_eof(&r->win), *line, &next, &after, &whole, err);
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
    if (r->sp.nf != ncols) {
      rc = fl_err_set(err, FL_EPARSE, "%s: line %llu: expected %u fields, found %zu",
                      r->win.in->path, (unsigned long long)(line - 1), ncols, r->sp.nf);
      goto done;
    }
    for (uint32_t c = 0; c < ncols; c++) {
      const csv_field_t *f = &r->sp.fields[c];
      if (!f->quoted && f->n == 0) continue;
      const char *s;
      size_t n;
      csv__field_text(&r->sp, f, &s, &n);
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
  fl_buf_init(&r->wrap);
  size_t plen = strlen(in->path);
  bool tsv = plen >= 4 &&
             (strcmp(in->path + plen - 4, ".tsv") == 0 || strcmp(in->path + plen - 4, ".TSV") == 0);
  csv_dialect_t dialect = {.delimiter =
                               opts->csv_delimiter ? opts->csv_delimiter : (tsv ? '\t' : ',')};
  csv__splitter_init(&r->sp, &dialect, in->path);
  int rc;
  char delim = r->sp.d.delimiter;
  if (delim == '"' || delim == '\n' || delim == '\r') {
    rc = fl_err_set(err, FL_EINVALID, "%s: the delimiter cannot be a quote or a line break",
                    in->path);
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
    nnames = (uint32_t)r->sp.nf;
    names = fl_arena_zalloc(r->arena, nnames * sizeof *names);
    for (uint32_t i = 0; i < nnames; i++) {
      if (opts->csv_no_header) {
        names[i] = fl_arena_sprintf(r->arena, "f%u", i);
      } else {
        const char *s;
        size_t n;
        csv__field_text(&r->sp, &r->sp.fields[i], &s, &n);
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
    if ((rc = infer(r, opts->infer_rows ? opts->infer_rows : 1000, names, nnames, &s, err)))
      goto err;
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
