/*
 * window.h - a sliding window over a file, for readers of row-oriented
 * text (layer 2, io).
 *
 * CSV and JSON-lines readers consume bytes from the front of the window
 * and ask for more when a row runs past its end: the live bytes are moved
 * to the front and the rest of the buffer is filled with positioned reads.
 * When one unfinished row fills the whole window it doubles, up to a
 * limit, so memory stays bounded by the longest row, never the file.
 */
#ifndef FL_IO_WINDOW_H
#define FL_IO_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/fs.h"

typedef struct io_window {
  io_reader_t *in;   /* owned: closed by io_window_free */
  char *buf;
  size_t cap;        /* bytes allocated */
  size_t start, len; /* live bytes are buf[start, len) */
  uint64_t file_off; /* next byte of the file to read */
  size_t max_bytes;  /* the window never grows beyond this */
} io_window_t;

/* Takes ownership of in, allocates chunk_bytes and reads the first chunk. */
int io_window_open(io_window_t *w, io_reader_t *in, size_t chunk_bytes, size_t max_bytes,
                   fl_err_t *err);
void io_window_free(io_window_t *w);

/*
 * Moves the live bytes to the front and reads more after them, doubling
 * the buffer when it is full of live bytes. Fails with FL_ELIMIT when a row
 * would need more than max_bytes, naming the file and the row's offset.
 */
int io_window_fill(io_window_t *w, fl_err_t *err);

static inline bool io_window_at_eof(const io_window_t *w) { return w->file_off >= w->in->size; }

#endif
