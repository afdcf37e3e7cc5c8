/*
 * csv_writer.c - the CSV writer: a header row, then one row per record in
 * the text forms of floe's canonical JSON form (see csv.h), buffered and
 * written in large pieces.
 */
#include <math.h>

#include "base/alloc.h"
#include "format/csv/csv.h"
#include "format/json/json_text.h"
#include "types/value.h"

#define FLUSH_BYTES (1u << 20)

typedef struct csv_writer {
  fmt_writer_t base;
  io_writer_t *out;
  const ty_schema_t *schema;
  char delim;
  fl_buf_t buf, cell;
} csv_writer_t;

static int flush(csv_writer_t *w, fl_err_t *err) {
  if (!w->buf.len) return FL_OK;
  int rc = w->out->write(w->out, w->buf.data, w->buf.len, err);
  fl_buf_clear(&w->buf);
  return rc;
}

/* Appends a cell, quoted when it must be (or when force is set). */
static void put_cell(csv_writer_t *w, const uint8_t *p, size_t n, bool force) {
  bool quote = force;
  for (size_t i = 0; i < n && !quote; i++)
    quote = p[i] == (uint8_t)w->delim || p[i] == '"' || p[i] == '\n' || p[i] == '\r';
  if (!quote) {
    fl_buf_append(&w->buf, p, n);
    return;
  }
  fl_buf_append_u8(&w->buf, '"');
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] != '"') continue;
    fl_buf_append(&w->buf, p + run, i + 1 - run);
    fl_buf_append_u8(&w->buf, '"');
    run = i + 1;
  }
  fl_buf_append(&w->buf, p + run, n - run);
  fl_buf_append_u8(&w->buf, '"');
}

static void put_value(csv_writer_t *w, const ty_vec_t *v, uint32_t i) {
  if (ty_vec_is_null(v, i)) return;
  const ty_type_t *t = v->type;
  fl_buf_clear(&w->cell);
  if (ty_is_nested(t)) {
    js_append_value(&w->cell, v, i);
  } else if (t->kind == TY_STRING) {
    size_t n;
    const uint8_t *p = ty_vec_get_bytes(v, i, &n);
    put_cell(w, p, n, n == 0);
    return;
  } else {
    ty_value_t x = ty_value_from_vec(v, i);
    ty_value_format(t, &x, &w->cell);
  }
  put_cell(w, w->cell.data, w->cell.len, w->cell.len == 0);
}

static int csv_write(fmt_writer_t *fw, const ty_batch_t *b, fl_err_t *err) {
  csv_writer_t *w = (csv_writer_t *)fw;
  uint32_t n = ty_batch_live(b);
  for (uint32_t k = 0; k < n; k++) {
    uint32_t row = b->sel ? b->sel[k] : k;
    for (uint32_t c = 0; c < b->ncols; c++) {
      if (c) fl_buf_append_u8(&w->buf, (uint8_t)w->delim);
      put_value(w, b->cols[c], row);
    }
    fl_buf_append_u8(&w->buf, '\n');
    if (w->buf.len >= FLUSH_BYTES) {
      int rc = flush(w, err);
      if (rc) return rc;
    }
  }
  return FL_OK;
}

static void csv_abort(fmt_writer_t *fw) {
  csv_writer_t *w = (csv_writer_t *)fw;
  w->out->abort(w->out);
  fl_buf_free(&w->buf);
  fl_buf_free(&w->cell);
  fl_free(w);
}

static int csv_close(fmt_writer_t *fw, fl_err_t *err) {
  csv_writer_t *w = (csv_writer_t *)fw;
  int rc = flush(w, err);
  if (rc) {
    csv_abort(fw);
    return rc;
  }
  rc = w->out->commit(w->out, err);
  fl_buf_free(&w->buf);
  fl_buf_free(&w->cell);
  fl_free(w);
  return rc;
}

int csv_fmt_open_writer(io_fs_t *fs, const char *path, const ty_schema_t *schema,
                        const fmt_write_opts_t *opts, fmt_writer_t **out, fl_err_t *err) {
  size_t plen = strlen(path);
  bool tsv = plen >= 4 && (strcmp(path + plen - 4, ".tsv") == 0 || strcmp(path + plen - 4, ".TSV") == 0);
  char delim = opts && opts->csv_delimiter ? opts->csv_delimiter : (tsv ? '\t' : ',');
  if (delim == '"' || delim == '\n' || delim == '\r')
    return fl_err_set(err, FL_EINVALID, "%s: the delimiter cannot be a quote or a line break", path);
  io_writer_t *o;
  int rc = fs->create(fs, path, false, &o, err);
  if (rc) return rc;
  csv_writer_t *w = fl_calloc(1, sizeof *w);
  w->out = o;
  w->schema = schema;
  w->delim = delim;
  fl_buf_init(&w->buf);
  fl_buf_init(&w->cell);
  for (uint32_t c = 0; c < schema->root.nfields; c++) {
    if (c) fl_buf_append_u8(&w->buf, (uint8_t)delim);
    const char *name = schema->root.fields[c].name;
    put_cell(w, (const uint8_t *)name, strlen(name), false);
  }
  fl_buf_append_u8(&w->buf, '\n');
  w->base.write = csv_write;
  w->base.close = csv_close;
  w->base.abort = csv_abort;
  *out = &w->base;
  return FL_OK;
}
