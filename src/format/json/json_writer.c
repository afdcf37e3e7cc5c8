/*
 * json_writer.c - the JSON-lines writer: one object per row, buffered and
 * flushed to the file in large writes.
 */
#include "base/alloc.h"
#include "format/format.h"
#include "format/json/json_text.h"

#define FLUSH_BYTES (1u << 20)

typedef struct js_writer {
  fmt_writer_t base;
  io_writer_t *out;
  fl_buf_t buf;
} js_writer_t;

static int flush(js_writer_t *w, fl_err_t *err) {
  if (!w->buf.len) return FL_OK;
  int rc = w->out->write(w->out, w->buf.data, w->buf.len, err);
  fl_buf_clear(&w->buf);
  return rc;
}

static int js_write(fmt_writer_t *fw, const ty_batch_t *b, fl_err_t *err) {
  js_writer_t *w = (js_writer_t *)fw;
  uint32_t n = ty_batch_live(b);
  for (uint32_t k = 0; k < n; k++) {
    uint32_t row = b->sel ? b->sel[k] : k;
    js_append_row(&w->buf, b, row);
    fl_buf_append_u8(&w->buf, '\n');
    if (w->buf.len >= FLUSH_BYTES) {
      int rc = flush(w, err);
      if (rc) return rc;
    }
  }
  return FL_OK;
}

static void js_abort(fmt_writer_t *fw) {
  js_writer_t *w = (js_writer_t *)fw;
  w->out->abort(w->out);
  fl_buf_free(&w->buf);
  fl_free(w);
}

static int js_close(fmt_writer_t *fw, fl_err_t *err) {
  js_writer_t *w = (js_writer_t *)fw;
  int rc = flush(w, err);
  if (rc) {
    js_abort(fw);
    return rc;
  }
  rc = w->out->commit(w->out, err);
  fl_buf_free(&w->buf);
  fl_free(w);
  return rc;
}

int js_fmt_open_writer(io_fs_t *fs, const char *path, const ty_schema_t *schema,
                       const fmt_write_opts_t *opts, fmt_writer_t **out, fl_err_t *err) {
  (void)schema;
  (void)opts;
  io_writer_t *o;
  int rc = fs->create(fs, path, false, &o, err);
  if (rc) return rc;
  js_writer_t *w = fl_calloc(1, sizeof *w);
  w->out = o;
  fl_buf_init(&w->buf);
  w->base.write = js_write;
  w->base.close = js_close;
  w->base.abort = js_abort;
  *out = &w->base;
  return FL_OK;
}
