/*
 * json_reader.c - the JSON-lines fmt_reader_t: streams a file through the
 * decoder in large chunks read with io_reader_t read_at, never holding the
 * whole file. A row cut by the end of a chunk is carried to the front of
 * the buffer and completed by the next read; a row longer than the buffer
 * grows it (up to a limit). Without a given schema, the schema is inferred
 * from the first rows of the file.
 */
#include "base/alloc.h"
#include "format/format.h"
#include "format/json/json_decoder.h"
#include "format/json/json_int.h"
#include "io/window.h"

#define MAX_ROW_BYTES ((size_t)1 << 30)

size_t js__reader_chunk_bytes = (size_t)4 << 20;

typedef struct js_reader {
  fmt_reader_t base;
  io_window_t win;
  fl_arena_t *arena; /* the inferred schema */
  js_decoder_t *dec;
  ty_batch_t *batch;
  bool done;
} js_reader_t;

static int js_next(fmt_reader_t *fr, ty_batch_t **out, fl_err_t *err) {
  js_reader_t *r = (js_reader_t *)fr;
  *out = NULL;
  if (r->done) return FL_OK;
  ty_batch_reset(r->batch);
  for (;;) {
    size_t used;
    bool more = !io_window_at_eof(&r->win);
    int rc = js_decode_chunk(r->dec, r->win.buf + r->win.start, r->win.len - r->win.start, more, r->batch, &used, err);
    r->win.start += used;
    if (rc) {
      r->done = true;
      return fl_err_prefix(err, "%s: ", r->win.in->path);
    }
    if (r->batch->nrows >= TY_BATCH_ROWS) break;
    if (!more) {
      r->done = true;
      break;
    }
    if ((rc = io_window_fill(&r->win, err))) {
      r->done = true;
      return rc;
    }
  }
  if (r->batch->nrows) *out = r->batch;
  return FL_OK;
}

static void js_close_reader(fmt_reader_t *fr) {
  js_reader_t *r = (js_reader_t *)fr;
  if (!r) return;
  ty_batch_free(r->batch);
  js_decoder_free(r->dec);
  io_window_free(&r->win);
  fl_arena_free(r->arena);
  fl_free(r);
}

int js_fmt_open_reader(io_fs_t *fs, const char *path, const fmt_read_opts_t *opts,
                       fmt_reader_t **out, fl_err_t *err) {
  io_reader_t *in;
  int rc = fs->open_read(fs, path, &in, err);
  if (rc) return rc;
  js_reader_t *r = fl_calloc(1, sizeof *r);
  r->arena = fl_arena_new(0);
  if ((rc = io_window_open(&r->win, in, js__reader_chunk_bytes, MAX_ROW_BYTES, err))) goto err;
  const ty_schema_t *schema = opts->schema;
  if (!schema) {
    uint32_t want = opts->infer_rows ? opts->infer_rows : 1000, rows = 0;
    ty_schema_t *s = NULL;
    /* Sample from the buffer, reading more while it holds fewer rows than
     * wanted and the file goes on (bounded by the row-size limit). */
    for (;;) {
      rc = js__infer(r->win.buf, r->win.len, want, !io_window_at_eof(&r->win), r->arena, &s, &rows, err);
      if (rc) {
        fl_err_prefix(err, "%s: ", path);
        goto err;
      }
      if (rows >= want || io_window_at_eof(&r->win) || r->win.cap >= (size_t)64 << 20) break;
      if (r->win.len < r->win.cap) {
        if ((rc = io_window_fill(&r->win, err))) goto err;
        continue;
      }
      /* Full buffer, too few rows: grow it by reading on. */
      if ((rc = io_window_fill(&r->win, err))) goto err;
    }
    schema = s;
  }
  r->dec = js_decoder_new(schema, NULL);
  r->batch = ty_batch_new(schema, TY_BATCH_ROWS);
  r->base.schema = schema;
  r->base.next = js_next;
  r->base.close = js_close_reader;
  *out = &r->base;
  return FL_OK;
err:
  js_close_reader(&r->base);
  return rc;
}
