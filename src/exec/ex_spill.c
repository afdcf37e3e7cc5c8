/*
 * ex_spill.c - the batch encoding and the spill directory and files.
 *
 * Column encoding, recursively for nested types:
 *   u32 len | u32 null_count | validity ((len + 7) / 8 bytes)
 *   fixed width:     len * width bytes
 *   string, binary:  offsets (len + 1) * i32 | u64 heap bytes | heap
 *   list, map:       offsets (len + 1) * i32 | child columns
 *   struct:          child columns (each len rows)
 */
#include "exec/ex_spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/hash.h"

#define SPILL_HEADER "FLSPILL1"
#define BLOCK_MAGIC 0x4b4c4253u /* "SBLK" */
#define END_MAGIC 0x444e4553u   /* "SEND" */
#define MAX_BLOCK_BYTES (1u << 30)
#define WRITE_BUFFER (1u << 20)

static void encode_vec(const ty_vec_t *v, uint32_t len, fl_buf_t *out) {
  fl_buf_append_le32(out, len);
  uint32_t nulls = 0;
  if (v->null_count)
    for (uint32_t i = 0; i < len; i++) nulls += ty_vec_is_null(v, i);
  fl_buf_append_le32(out, nulls);
  fl_buf_append(out, v->validity, (len + 7) / 8);
  const ty_type_t *t = v->type;
  switch (t->kind) {
    case TY_STRING:
    case TY_BINARY: {
      fl_buf_append(out, v->offsets, ((size_t)len + 1) * sizeof(int32_t));
      uint64_t heap = (uint64_t)v->offsets[len];
      fl_buf_append_le64(out, heap);
      if (heap) fl_buf_append(out, v->heap, heap);
      break;
    }
    case TY_LIST:
    case TY_MAP:
      fl_buf_append(out, v->offsets, ((size_t)len + 1) * sizeof(int32_t));
      for (uint32_t c = 0; c < v->nchildren; c++)
        encode_vec(v->children[c], (uint32_t)v->offsets[len], out);
      break;
    case TY_STRUCT:
      for (uint32_t c = 0; c < v->nchildren; c++) encode_vec(v->children[c], len, out);
      break;
    default: fl_buf_append(out, v->data, (size_t)len * ty_value_width(t));
  }
}

void ex_batch_encode(const ty_batch_t *b, fl_buf_t *out) {
  fl_buf_append_le32(out, b->ncols);
  fl_buf_append_le32(out, b->nrows);
  for (uint32_t c = 0; c < b->ncols; c++) encode_vec(b->cols[c], b->nrows, out);
}

static int read_offsets(fl_rd_t *r, ty_vec_t *v, uint32_t len, uint64_t limit, fl_err_t *err) {
  const uint8_t *p;
  size_t pos = r->pos;
  int rc = fl_rd_bytes(r, ((size_t)len + 1) * sizeof(int32_t), &p, err);
  if (rc) return rc;
  memcpy(v->offsets, p, ((size_t)len + 1) * sizeof(int32_t));
  if (v->offsets[0] != 0)
    return fl_err_set(err, FL_ECORRUPT, "%s: offsets at byte %zu do not start at 0", r->what, pos);
  for (uint32_t i = 0; i < len; i++)
    if (v->offsets[i + 1] < v->offsets[i] || (uint64_t)v->offsets[i + 1] > limit)
      return fl_err_set(err, FL_ECORRUPT, "%s: offset %u at byte %zu out of order or range",
                        r->what, i + 1, pos);
  return FL_OK;
}

static int decode_vec(fl_rd_t *r, ty_vec_t *v, uint32_t expect_len, int depth, fl_err_t *err) {
  uint32_t len, nulls;
  size_t pos = r->pos;
  int rc;
  if (depth > 64) return fl_err_set(err, FL_ECORRUPT, "%s: nesting too deep", r->what);
  if ((rc = fl_rd_le32(r, &len, err)) || (rc = fl_rd_le32(r, &nulls, err))) return rc;
  if (len != expect_len)
    return fl_err_set(err, FL_ECORRUPT, "%s: column at byte %zu has %u rows, expected %u", r->what,
                      pos, len, expect_len);
  if (nulls > len)
    return fl_err_set(err, FL_ECORRUPT, "%s: column at byte %zu has %u nulls in %u rows", r->what,
                      pos, nulls, len);
  /* Each row takes at least one validity bit, so a length beyond what is
   * left cannot be genuine: refuse before allocating for it. */
  if ((len + 7) / 8 > fl_rd_left(r))
    return fl_err_set(err, FL_ECORRUPT, "%s: column at byte %zu claims %u rows", r->what, pos, len);
  ty_vec_reset(v);
  ty_vec_reserve(v, len ? len : 1);
  const uint8_t *p;
  if ((rc = fl_rd_bytes(r, (len + 7) / 8, &p, err))) return rc;
  memcpy(v->validity, p, (len + 7) / 8);
  v->null_count = nulls;
  const ty_type_t *t = v->type;
  switch (t->kind) {
    case TY_STRING:
    case TY_BINARY: {
      uint64_t heap;
      size_t opos = r->pos;
      if ((rc = fl_rd_skip(r, ((size_t)len + 1) * 4, err)) || (rc = fl_rd_le64(r, &heap, err)))
        return rc;
      if (heap > fl_rd_left(r) || heap > INT32_MAX)
        return fl_err_set(err, FL_ECORRUPT, "%s: string heap of %llu bytes at byte %zu", r->what,
                          (unsigned long long)heap, r->pos);
      size_t after = r->pos;
      r->pos = opos;
      if ((rc = read_offsets(r, v, len, heap, err))) return rc;
      if ((uint64_t)v->offsets[len] != heap)
        return fl_err_set(err, FL_ECORRUPT, "%s: offsets end at %d, heap has %llu bytes", r->what,
                          v->offsets[len], (unsigned long long)heap);
      r->pos = after;
      if (heap) {
        ty_vec_reserve_heap(v, heap);
        if ((rc = fl_rd_bytes(r, heap, &p, err))) return rc;
        memcpy(v->heap, p, heap);
      }
      v->heap_len = heap;
      break;
    }
    case TY_LIST:
    case TY_MAP: {
      if ((rc = read_offsets(r, v, len, UINT32_MAX, err))) return rc;
      uint32_t nelem = (uint32_t)v->offsets[len];
      for (uint32_t c = 0; c < v->nchildren; c++)
        if ((rc = decode_vec(r, v->children[c], nelem, depth + 1, err))) return rc;
      break;
    }
    case TY_STRUCT:
      for (uint32_t c = 0; c < v->nchildren; c++)
        if ((rc = decode_vec(r, v->children[c], len, depth + 1, err))) return rc;
      break;
    default: {
      size_t n = (size_t)len * ty_value_width(t);
      if ((rc = fl_rd_bytes(r, n, &p, err))) return rc;
      if (n) memcpy(v->data, p, n);
    }
  }
  v->len = len;
  return FL_OK;
}

void ex_vec_encode(const ty_vec_t *v, uint32_t len, fl_buf_t *out) {
  fl_buf_append_le32(out, len);
  encode_vec(v, len, out);
}

int ex_vec_decode(fl_rd_t *r, ty_vec_t *into, fl_err_t *err) {
  uint32_t len;
  int rc = fl_rd_le32(r, &len, err);
  return rc ? rc : decode_vec(r, into, len, 0, err);
}

int ex_batch_decode(fl_rd_t *r, ty_batch_t *into, fl_err_t *err) {
  uint32_t ncols, nrows;
  size_t pos = r->pos;
  int rc;
  if ((rc = fl_rd_le32(r, &ncols, err)) || (rc = fl_rd_le32(r, &nrows, err))) return rc;
  if (ncols != into->ncols)
    return fl_err_set(err, FL_ECORRUPT, "%s: batch at byte %zu has %u columns, expected %u",
                      r->what, pos, ncols, into->ncols);
  ty_batch_reset(into);
  for (uint32_t c = 0; c < ncols; c++)
    if ((rc = decode_vec(r, into->cols[c], nrows, 0, err))) return rc;
  into->nrows = nrows;
  return FL_OK;
}

struct ex_spill_dir {
  char *path;
  uint64_t next_id;
};

struct ex_spill_file {
  char *path;
  int fd;
  bool sealed;
  fl_buf_t wbuf;  /* pending writes, then the read buffer */
  fl_buf_t block; /* one encoded batch */
  uint64_t size;  /* bytes written */
  uint64_t rows;
  uint32_t blocks;
  uint64_t rpos;   /* next byte to read */
  uint32_t rblock; /* blocks read */
};

int ex_spill_dir_open(const char *base, ex_spill_dir_t **out, fl_err_t *err) {
  if (!base) base = getenv("TMPDIR");
  if (!base || !*base) base = "/tmp";
  char tmpl[4096];
  int n = snprintf(tmpl, sizeof tmpl, "%s/floe-spill-XXXXXX", base);
  if (n < 0 || (size_t)n >= sizeof tmpl)
    return fl_err_set(err, FL_EINVALID, "spill directory base is too long: %s", base);
  mkdir(base, 0700);
  if (!mkdtemp(tmpl))
    return fl_err_set(err, FL_EIO, "creating spill directory in %s: %s", base, strerror(errno));
  ex_spill_dir_t *d = fl_calloc(1, sizeof *d);
  d->path = fl_strdup(tmpl);
  *out = d;
  return FL_OK;
}

void ex_spill_dir_close(ex_spill_dir_t *d) {
  if (!d) return;
  /* Files still open belong to callers that failed half-way; their names
   * are predictable, so remove every one this directory handed out. */
  char p[4200];
  for (uint64_t i = 0; i < d->next_id; i++) {
    snprintf(p, sizeof p, "%s/%llu.spill", d->path, (unsigned long long)i);
    unlink(p);
  }
  rmdir(d->path);
  fl_free(d->path);
  fl_free(d);
}

const char *ex_spill_dir_path(const ex_spill_dir_t *d) { return d->path; }

int ex_spill_create(ex_spill_dir_t *d, ex_spill_file_t **out, fl_err_t *err) {
  char *path = fl_malloc(strlen(d->path) + 32);
  sprintf(path, "%s/%llu.spill", d->path, (unsigned long long)d->next_id++);
  int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    int e = errno;
    fl_free(path);
    return fl_err_set(err, FL_EIO, "creating spill file in %s: %s", d->path, strerror(e));
  }
  ex_spill_file_t *f = fl_calloc(1, sizeof *f);
  f->path = path;
  f->fd = fd;
  fl_buf_init(&f->wbuf);
  fl_buf_init(&f->block);
  fl_buf_append(&f->wbuf, SPILL_HEADER, 8);
  *out = f;
  return FL_OK;
}

static int flush(ex_spill_file_t *f, fl_err_t *err) {
  size_t off = 0;
  while (off < f->wbuf.len) {
    ssize_t w = pwrite(f->fd, f->wbuf.data + off, f->wbuf.len - off, (off_t)f->size);
    if (w < 0) {
      if (errno == EINTR) continue;
      return fl_err_set(err, FL_EIO, "writing spill file %s: %s", f->path, strerror(errno));
    }
    off += (size_t)w;
    f->size += (uint64_t)w;
  }
  fl_buf_clear(&f->wbuf);
  return FL_OK;
}

int ex_spill_write(ex_spill_file_t *f, const ty_batch_t *b, fl_err_t *err) {
  if (f->sealed) return fl_err_set(err, FL_EINTERNAL, "spill file %s written after seal", f->path);
  fl_buf_clear(&f->block);
  ex_batch_encode(b, &f->block);
  if (f->block.len > MAX_BLOCK_BYTES)
    return fl_err_set(err, FL_ELIMIT, "spill batch of %zu bytes is too large", f->block.len);
  fl_buf_append_le32(&f->wbuf, BLOCK_MAGIC);
  fl_buf_append_le32(&f->wbuf, b->nrows);
  fl_buf_append_le32(&f->wbuf, (uint32_t)f->block.len);
  fl_buf_append_le32(&f->wbuf, fl_crc32(0, f->block.data, f->block.len));
  fl_buf_append(&f->wbuf, f->block.data, f->block.len);
  f->rows += b->nrows;
  f->blocks++;
  return f->wbuf.len >= WRITE_BUFFER ? flush(f, err) : FL_OK;
}

int ex_spill_seal(ex_spill_file_t *f, fl_err_t *err) {
  if (f->sealed) return FL_OK;
  uint8_t t[20];
  fl_store_le32(t, END_MAGIC);
  fl_store_le32(t + 4, f->blocks);
  fl_store_le64(t + 8, f->rows);
  fl_store_le32(t + 16, fl_crc32(0, t, 16));
  fl_buf_append(&f->wbuf, t, sizeof t);
  int rc = flush(f, err);
  if (rc) return rc;
  f->sealed = true;
  fl_buf_free(&f->block);
  ex_spill_rewind(f);
  return FL_OK;
}

void ex_spill_rewind(ex_spill_file_t *f) {
  f->rpos = 8;
  f->rblock = 0;
}

/* Reads exactly n bytes at the read position into f->wbuf. */
static int read_exact(ex_spill_file_t *f, size_t n, const char *what, fl_err_t *err) {
  fl_buf_clear(&f->wbuf);
  fl_buf_reserve(&f->wbuf, n);
  size_t got = 0;
  while (got < n) {
    ssize_t r = pread(f->fd, f->wbuf.data + got, n - got, (off_t)(f->rpos + got));
    if (r < 0) {
      if (errno == EINTR) continue;
      return fl_err_set(err, FL_EIO, "reading spill file %s at byte %llu: %s", f->path,
                        (unsigned long long)(f->rpos + got), strerror(errno));
    }
    if (r == 0)
      return fl_err_set(err, FL_ECORRUPT,
                        "spill file %s is truncated: %s of block %u at byte %llu needs %zu bytes, "
                        "the file ends after %zu",
                        f->path, what, f->rblock, (unsigned long long)f->rpos, n, got);
    got += (size_t)r;
  }
  f->wbuf.len = n;
  return FL_OK;
}

int ex_spill_read(ex_spill_file_t *f, ty_batch_t *into, bool *eof, fl_err_t *err) {
  *eof = false;
  if (!f->sealed) return fl_err_set(err, FL_EINTERNAL, "spill file %s read before seal", f->path);
  if (f->rpos == 8) {
    char head[8];
    ssize_t r = pread(f->fd, head, 8, 0);
    if (r != 8 || memcmp(head, SPILL_HEADER, 8) != 0)
      return fl_err_set(err, FL_ECORRUPT, "spill file %s: missing header", f->path);
  }
  int rc = read_exact(f, 16, "header", err);
  if (rc) return rc;
  const uint8_t *h = f->wbuf.data;
  uint32_t magic = fl_load_le32(h);
  if (magic == END_MAGIC) {
    if ((rc = read_exact(f, 20, "trailer", err))) return rc;
    h = f->wbuf.data;
    if (fl_crc32(0, h, 16) != fl_load_le32(h + 16) || fl_load_le32(h + 4) != f->blocks ||
        fl_load_le64(h + 8) != f->rows)
      return fl_err_set(err, FL_ECORRUPT, "spill file %s: trailer at byte %llu does not match",
                        f->path, (unsigned long long)f->rpos);
    if (f->rblock != f->blocks)
      return fl_err_set(err, FL_ECORRUPT, "spill file %s: %u blocks read, trailer says %u", f->path,
                        f->rblock, f->blocks);
    *eof = true;
    return FL_OK;
  }
  if (magic != BLOCK_MAGIC)
    return fl_err_set(err, FL_ECORRUPT, "spill file %s: bad block marker at byte %llu", f->path,
                      (unsigned long long)f->rpos);
  uint32_t nrows = fl_load_le32(h + 4), len = fl_load_le32(h + 8), crc = fl_load_le32(h + 12);
  if (len > MAX_BLOCK_BYTES)
    return fl_err_set(err, FL_ECORRUPT, "spill file %s: block of %u bytes at byte %llu", f->path,
                      len, (unsigned long long)f->rpos);
  uint64_t start = f->rpos;
  f->rpos += 16;
  if ((rc = read_exact(f, len, "payload", err))) return rc;
  if (fl_crc32(0, f->wbuf.data, len) != crc)
    return fl_err_set(err, FL_ECORRUPT, "spill file %s: checksum mismatch in block at byte %llu",
                      f->path, (unsigned long long)start);
  fl_rd_t r;
  fl_rd_init(&r, f->wbuf.data, len, f->path);
  if ((rc = ex_batch_decode(&r, into, err))) return rc;
  if (into->nrows != nrows || fl_rd_left(&r) != 0)
    return fl_err_set(err, FL_ECORRUPT,
                      "spill file %s: block at byte %llu does not match its header", f->path,
                      (unsigned long long)start);
  f->rpos += len;
  f->rblock++;
  return FL_OK;
}

void ex_spill_free(ex_spill_file_t *f) {
  if (!f) return;
  close(f->fd);
  unlink(f->path);
  fl_buf_free(&f->wbuf);
  fl_buf_free(&f->block);
  fl_free(f->path);
  fl_free(f);
}

const char *ex_spill_path(const ex_spill_file_t *f) { return f->path; }
uint64_t ex_spill_rows(const ex_spill_file_t *f) { return f->rows; }
uint64_t ex_spill_bytes(const ex_spill_file_t *f) { return f->size + f->wbuf.len; }
