/*
 * fuzz_parquet.c - libFuzzer target for the Parquet reader: the input is a
 * whole file, served from memory through an io_reader_t, read to the end
 * (all columns, every batch). Any outcome but a crash, hang or leak is
 * fine; errors must be reported through the error object.
 */
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "format/parquet/pq_reader.h"

typedef struct mem_reader {
  io_reader_t base;
  const uint8_t *data;
} mem_reader_t;

static int mem_read_at(io_reader_t *r, uint64_t off, void *buf, size_t n, fl_err_t *err) {
  mem_reader_t *m = (mem_reader_t *)r;
  if (off > r->size || n > r->size - off)
    return fl_err_set(err, FL_EIO, "read of %zu bytes at %llu past the end", n,
                      (unsigned long long)off);
  memcpy(buf, m->data + off, n);
  return FL_OK;
}

static void mem_close(io_reader_t *r) { fl_free(r); }

/* Every batch must be self-consistent: offsets ascending and inside the
 * heap or the child, children as long as their parents say. */
static void check_vec(const ty_vec_t *v) {
  if (v->null_count > v->len || v->len > v->cap) abort();
  switch (v->type->kind) {
    case TY_STRING:
    case TY_BINARY:
      if (v->offsets[0] != 0) abort();
      for (uint32_t i = 0; i < v->len; i++)
        if (v->offsets[i + 1] < v->offsets[i]) abort();
      if ((size_t)v->offsets[v->len] != v->heap_len) abort();
      break;
    case TY_LIST:
    case TY_MAP:
      for (uint32_t i = 0; i < v->len; i++)
        if (v->offsets[i + 1] < v->offsets[i]) abort();
      for (uint32_t c = 0; c < v->nchildren; c++) {
        if ((uint32_t)v->offsets[v->len] != v->children[c]->len) abort();
        check_vec(v->children[c]);
      }
      break;
    case TY_STRUCT:
      for (uint32_t c = 0; c < v->nchildren; c++) {
        if (v->children[c]->len != v->len) abort();
        check_vec(v->children[c]);
      }
      break;
    default: break;
  }
}

static void read_all(const uint8_t *data, size_t size, const pq_read_opts_t *opts) {
  mem_reader_t *m = fl_calloc(1, sizeof *m);
  m->base.path = "fuzz.parquet";
  m->base.size = size;
  m->base.read_at = mem_read_at;
  m->base.close = mem_close;
  m->data = data;
  fl_err_t err;
  fl_err_clear(&err);
  pq_reader_t *r;
  if (pq_reader_open_io(&m->base, opts, &r, &err) != FL_OK) return;
  ty_batch_t *b;
  while (pq_reader_next(r, &b, &err) == FL_OK && b) {
    for (uint32_t c = 0; c < b->ncols; c++) {
      if (b->cols[c]->len != b->nrows) abort();
      check_vec(b->cols[c]);
    }
  }
  pq_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  read_all(data, size, NULL);
  /* Again with a predicate on the first column, so that statistics,
   * column and offset indexes and page skipping are exercised too. */
  pq_pred_term_t t[2] = {
      {.field_id = 1, .op = PQ_OP_EQ, .value = {.kind = TY_INT, .u.i32 = 100}},
      {.field_id = 1, .op = PQ_OP_GE, .value = {.kind = TY_LONG, .u.i64 = 5}},
  };
  pq_read_opts_t o = {.pred = t, .npred = 2};
  read_all(data, size, &o);
  return 0;
}
