/*
 * buf.h - growable byte buffers and bounded byte readers (layer 1, base).
 *
 * fl_buf_t is the writer side: append-only bytes on the heap. fl_rd_t is the
 * reader side for decoding untrusted bytes: every read checks the remaining
 * length first and reports FL_ECORRUPT naming the offset, never reading past
 * the end.
 */
#ifndef FL_BASE_BUF_H
#define FL_BASE_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/error.h"

typedef struct fl_buf {
  uint8_t *data;
  size_t len;
  size_t cap;
} fl_buf_t;

void fl_buf_init(fl_buf_t *b);
void fl_buf_free(fl_buf_t *b);
/* Ensures room for `extra` more bytes; aborts on OOM. */
void fl_buf_reserve(fl_buf_t *b, size_t extra);
void fl_buf_append(fl_buf_t *b, const void *p, size_t n);
void fl_buf_append_str(fl_buf_t *b, const char *s);
void fl_buf_printf(fl_buf_t *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void fl_buf_append_u8(fl_buf_t *b, uint8_t v);
void fl_buf_append_le32(fl_buf_t *b, uint32_t v);
void fl_buf_append_le64(fl_buf_t *b, uint64_t v);
/* Unsigned LEB128 varint and zigzag-encoded signed varint. */
void fl_buf_append_uvarint(fl_buf_t *b, uint64_t v);
void fl_buf_append_zvarint(fl_buf_t *b, int64_t v);
static inline void fl_buf_clear(fl_buf_t *b) { b->len = 0; }
/* Detaches the bytes; the caller owns them (fl_free). */
uint8_t *fl_buf_steal(fl_buf_t *b, size_t *len);

typedef struct fl_rd {
  const uint8_t *p;   /* start of the whole input */
  size_t len;         /* total length */
  size_t pos;         /* next byte to read */
  const char *what;   /* what is being decoded, for messages */
} fl_rd_t;

static inline void fl_rd_init(fl_rd_t *r, const void *p, size_t len, const char *what) {
  r->p = p;
  r->len = len;
  r->pos = 0;
  r->what = what ? what : "input";
}
static inline size_t fl_rd_left(const fl_rd_t *r) { return r->len - r->pos; }

int fl_rd_u8(fl_rd_t *r, uint8_t *out, fl_err_t *err);
int fl_rd_le32(fl_rd_t *r, uint32_t *out, fl_err_t *err);
int fl_rd_le64(fl_rd_t *r, uint64_t *out, fl_err_t *err);
int fl_rd_uvarint(fl_rd_t *r, uint64_t *out, fl_err_t *err);
int fl_rd_zvarint(fl_rd_t *r, int64_t *out, fl_err_t *err);
/* Points *out at the next n bytes (no copy) and advances. */
int fl_rd_bytes(fl_rd_t *r, size_t n, const uint8_t **out, fl_err_t *err);
int fl_rd_skip(fl_rd_t *r, size_t n, fl_err_t *err);

static inline uint32_t fl_load_le32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static inline uint64_t fl_load_le64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}
static inline void fl_store_le32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void fl_store_le64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

#endif
