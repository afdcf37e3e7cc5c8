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

#define MAX_ROW_BYTES ((size_t)1 << 30)

size_t js__reader_chunk_bytes = (size_t)4 << 20;

typedef struct js_reader {
  fmt_reader_t base;
  io_reader_t *in;
  fl_arena_t *arena; /* the inferred schema */
  js_decoder_t *dec;
  ty_batch_t *batch;
  char *buf;
  size_t cap, start, len; /* live bytes are buf[start, len) */
  uint64_t file_off;      /* next byte of the file to read */
  bool done;
} js_reader_t;

/* Moves the live bytes to the front and reads more after them, growing the
 * buffer when it is full of one unfinished row. */
static int fill(js_reader_t *r, fl_err_t *err) {
  if (r->start) {
    memmove(r->buf, r->buf + r->start, r->len - r->start);
    r->len -= r->start;
    r->start = 0;
  }
  if (r->len == r->cap) {
    if (r->cap >= MAX_ROW_BYTES)
      return fl_err_set(err, FL_ELIMIT, "%s: a row is longer than %zu bytes", r->in->path,
                        MAX_ROW_BYTES);
    char *nb = fl_try_realloc(r->buf, r->cap * 2);
    if (!nb) return fl_err_set(err, FL_ENOMEM, "%s: no memory for a %zu-byte row", r->in->path, r->cap * 2);
    r->buf = nb;
    r->cap *= 2;
  }
  uint64_t left = r->in->size - r->file_off;
  size_t want = r->cap - r->len;
  if (want > left) want = (size_t)left;
  if (want) {
    int rc = r->in->read_at(r->in, r->file_off, r->buf + r->len, want, err);
    if (rc) return fl_err_prefix(err, "%s: ", r->in->path);
    r->len += want;
    r->file_off += want;
  }
  return FL_OK;
}

static bool at_eof(const js_reader_t *r) { return r->file_off >= r->in->size; }

static int js_next(fmt_reader_t *fr, ty_batch_t **out, fl_err_t *err) {
  js_reader_t *r = (js_reader_t *)fr;
  *out = NULL;
  if (r->done) return FL_OK;
  ty_batch_reset(r->batch);
  for (;;) {
    size_t used;
    bool more = !at_eof(r);
    int rc = js_decode_chunk(r->dec, r->buf + r->start, r->len - r->start, more, r->batch, &used, err);
    r->start += used;
    if (rc) {
      r->done = true;
      return fl_err_prefix(err, "%s: ", r->in->path);
    }
    if (r->batch->nrows >= TY_BATCH_ROWS) break;
    if (!more) {
      r->done = true;
      break;
    }
    if ((rc = fill(r, err))) {
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
  if (r->in) r->in->close(r->in);
  fl_free(r->buf);
  fl_arena_free(r->arena);
  fl_free(r);
}

int js_fmt_open_reader(io_fs_t *fs, const char *path, const fmt_read_opts_t *opts,
                       fmt_reader_t **out, fl_err_t *err) {
  js_reader_t *r = fl_calloc(1, sizeof *r);
  int rc = fs->open_read(fs, path, &r->in, err);
  if (rc) {
    fl_free(r);
    return rc;
  }
  r->arena = fl_arena_new(0);
  r->cap = js__reader_chunk_bytes ? js__reader_chunk_bytes : 1;
  r->buf = fl_try_malloc(r->cap);
  if (!r->buf) {
    js_close_reader(&r->base);
    return fl_err_set(err, FL_ENOMEM, "%s: no memory for the read buffer", path);
  }
  if ((rc = fill(r, err))) goto err;
  const ty_schema_t *schema = opts->schema;
  if (!schema) {
    uint32_t want = opts->infer_rows ? opts->infer_rows : 1000, rows = 0;
    ty_schema_t *s = NULL;
    /* Sample from the buffer, reading more while it holds fewer rows than
     * wanted and the file goes on (bounded by the row-size limit). */
    for (;;) {
      rc = js__infer(r->buf, r->len, want, !at_eof(r), r->arena, &s, &rows, err);
      if (rc) {
        fl_err_prefix(err, "%s: ", path);
        goto err;
      }
      if (rows >= want || at_eof(r) || r->cap >= (size_t)64 << 20) break;
      if (r->len < r->cap) {
        if ((rc = fill(r, err))) goto err;
        continue;
      }
      /* Full buffer, too few rows: grow it by reading on. */
      if ((rc = fill(r, err))) goto err;
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
