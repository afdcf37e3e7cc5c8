/*
 * fuzz_parquet.c - libFuzzer target for the Parquet reader: the input is a
 * whole file, served from memory through an io_reader_t, read to the end
 * (all columns, every batch). Any outcome but a crash, hang or leak is
 * fine; errors must be reported through the error object.
 */
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
