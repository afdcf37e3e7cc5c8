/*
 * buf.c - growable buffers and bounds-checked readers.
 */
#include "base/buf.h"

#include <stdarg.h>
#include <stdio.h>

#include "base/alloc.h"

void fl_buf_init(fl_buf_t *b) {
  b->data = NULL;
  b->len = b->cap = 0;
}

void fl_buf_free(fl_buf_t *b) {
  fl_free(b->data);
  fl_buf_init(b);
}

void fl_buf_reserve(fl_buf_t *b, size_t extra) {
  if (b->cap - b->len >= extra) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap - b->len < extra) cap *= 2;
  b->data = fl_realloc(b->data, cap);
  b->cap = cap;
}

void fl_buf_append(fl_buf_t *b, const void *p, size_t n) {
  if (!n) return;
  fl_buf_reserve(b, n);
  memcpy(b->data + b->len, p, n);
  b->len += n;
}

void fl_buf_append_str(fl_buf_t *b, const char *s) { fl_buf_append(b, s, strlen(s)); }

void fl_buf_printf(fl_buf_t *b, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n > 0) {
    fl_buf_reserve(b, (size_t)n + 1);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
  }
  va_end(ap);
}

void fl_buf_append_u8(fl_buf_t *b, uint8_t v) {
  fl_buf_reserve(b, 1);
  b->data[b->len++] = v;
}

void fl_buf_append_le32(fl_buf_t *b, uint32_t v) {
  fl_buf_reserve(b, 4);
  fl_store_le32(b->data + b->len, v);
  b->len += 4;
}

void fl_buf_append_le64(fl_buf_t *b, uint64_t v) {
  fl_buf_reserve(b, 8);
  fl_store_le64(b->data + b->len, v);
  b->len += 8;
}

void fl_buf_append_uvarint(fl_buf_t *b, uint64_t v) {
  fl_buf_reserve(b, 10);
  while (v >= 0x80) {
    b->data[b->len++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  b->data[b->len++] = (uint8_t)v;
}

void fl_buf_append_zvarint(fl_buf_t *b, int64_t v) {
  fl_buf_append_uvarint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

uint8_t *fl_buf_steal(fl_buf_t *b, size_t *len) {
  uint8_t *p = b->data;
  if (len) *len = b->len;
  fl_buf_init(b);
  return p;
}

static int short_read(fl_rd_t *r, size_t n, fl_err_t *err) {
  return fl_err_set(err, FL_ECORRUPT, "%s: truncated at byte %zu (need %zu more, %zu left)",
                    r->what, r->pos, n, fl_rd_left(r));
}

int fl_rd_u8(fl_rd_t *r, uint8_t *out, fl_err_t *err) {
  if (fl_rd_left(r) < 1) return short_read(r, 1, err);
  *out = r->p[r->pos++];
  return FL_OK;
}

int fl_rd_le32(fl_rd_t *r, uint32_t *out, fl_err_t *err) {
  if (fl_rd_left(r) < 4) return short_read(r, 4, err);
  *out = fl_load_le32(r->p + r->pos);
  r->pos += 4;
  return FL_OK;
}

int fl_rd_le64(fl_rd_t *r, uint64_t *out, fl_err_t *err) {
  if (fl_rd_left(r) < 8) return short_read(r, 8, err);
  *out = fl_load_le64(r->p + r->pos);
  r->pos += 8;
  return FL_OK;
}

int fl_rd_uvarint(fl_rd_t *r, uint64_t *out, fl_err_t *err) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (r->pos >= r->len) return short_read(r, 1, err);
    uint8_t byte = r->p[r->pos++];
    v |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *out = v;
      return FL_OK;
    }
  }
  return fl_err_set(err, FL_ECORRUPT, "%s: varint longer than 10 bytes at byte %zu", r->what,
                    r->pos);
}

int fl_rd_zvarint(fl_rd_t *r, int64_t *out, fl_err_t *err) {
  uint64_t u = 0;
  int rc = fl_rd_uvarint(r, &u, err);
  if (rc) return rc;
  *out = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
  return FL_OK;
}

int fl_rd_bytes(fl_rd_t *r, size_t n, const uint8_t **out, fl_err_t *err) {
  if (fl_rd_left(r) < n) return short_read(r, n, err);
  *out = r->p + r->pos;
  r->pos += n;
  return FL_OK;
}

int fl_rd_skip(fl_rd_t *r, size_t n, fl_err_t *err) {
  if (fl_rd_left(r) < n) return short_read(r, n, err);
  r->pos += n;
  return FL_OK;
}
