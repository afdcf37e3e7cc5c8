/*
 * window.c - the sliding read window of row-oriented text readers.
 */
#include "io/window.h"

#include <string.h>

#include "base/alloc.h"

int io_window_open(io_window_t *w, io_reader_t *in, size_t chunk_bytes, size_t max_bytes,
                   fl_err_t *err) {
  memset(w, 0, sizeof *w);
  w->in = in;
  w->cap = chunk_bytes ? chunk_bytes : 1;
  w->max_bytes = max_bytes > w->cap ? max_bytes : w->cap;
  w->buf = fl_try_malloc(w->cap);
  if (!w->buf) return fl_err_set(err, FL_ENOMEM, "%s: no memory for the read buffer", in->path);
  return io_window_fill(w, err);
}

void io_window_free(io_window_t *w) {
  if (w->in) w->in->close(w->in);
  fl_free(w->buf);
  memset(w, 0, sizeof *w);
}

int io_window_fill(io_window_t *w, fl_err_t *err) {
  if (w->start) {
    memmove(w->buf, w->buf + w->start, w->len - w->start);
    w->len -= w->start;
    w->start = 0;
  }
  if (w->len == w->cap) {
    uint64_t row_at = w->file_off - w->len;
    if (w->cap >= w->max_bytes)
      return fl_err_set(err, FL_ELIMIT, "%s: the row at byte %llu is longer than %zu bytes",
                        w->in->path, (unsigned long long)row_at, w->max_bytes);
    size_t cap = w->cap * 2 < w->max_bytes ? w->cap * 2 : w->max_bytes;
    char *nb = fl_try_realloc(w->buf, cap);
    if (!nb) return fl_err_set(err, FL_ENOMEM, "%s: no memory for a %zu-byte row", w->in->path, cap);
    w->buf = nb;
    w->cap = cap;
  }
  uint64_t left = w->in->size - w->file_off;
  size_t want = w->cap - w->len;
  if (want > left) want = (size_t)left;
  if (want) {
    int rc = w->in->read_at(w->in, w->file_off, w->buf + w->len, want, err);
    if (rc) return rc;
    w->len += want;
    w->file_off += want;
  }
  return FL_OK;
}
