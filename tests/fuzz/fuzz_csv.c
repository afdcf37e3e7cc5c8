/*
 * fuzz_csv.c - the CSV reader on arbitrary bytes, under a fixed schema
 * (with a nested column) and with inference. Reading with a tiny read
 * size (rows cross chunk boundaries) must give the same rows, or the same
 * error code, as reading with a large one.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "format/csv/csv.h"
#include "format/json/json_text.h"

typedef struct mem_reader {
  io_reader_t base;
  const uint8_t *p;
} mem_reader_t;

static int mem_read_at(io_reader_t *r, uint64_t off, void *buf, size_t n, fl_err_t *err) {
  mem_reader_t *m = (mem_reader_t *)r;
  if (off > r->size || n > r->size - off) return fl_err_set(err, FL_EIO, "short read");
  memcpy(buf, m->p + off, n);
  return FL_OK;
}

static void mem_close(io_reader_t *r) { fl_free(r); }

static int read_all(const uint8_t *p, size_t n, const ty_schema_t *s, bool no_header, size_t chunk,
                    fl_buf_t *out) {
  mem_reader_t *m = fl_calloc(1, sizeof *m);
  m->base.path = "fuzz.csv";
  m->base.size = n;
  m->base.read_at = mem_read_at;
  m->base.close = mem_close;
  m->p = p;
  csv__reader_chunk_bytes = chunk;
  fmt_read_opts_t ro = {.schema = s, .csv_no_header = no_header, .infer_rows = 50};
  fmt_reader_t *r;
  fl_err_t err;
  int rc = csv_open_reader_io(&m->base, &ro, &r, &err);
  if (rc) return rc;
  for (;;) {
    ty_batch_t *b;
    if ((rc = r->next(r, &b, &err)) || !b) break;
    for (uint32_t i = 0; i < b->nrows; i++) {
      js_append_row(out, b, i);
      fl_buf_append_u8(out, '\n');
    }
  }
  r->close(r);
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > 1 << 16) return 0;
  static fl_arena_t *sa;
  static ty_schema_t *schema;
  if (!schema) {
    fl_err_t err;
    sa = fl_arena_new(0);
    if (ty_schema_parse(sa,
                        "a long, b string, c double not null, d date, e timestamptz, "
                        "f decimal(9,3), g boolean, h list<int>, i struct<x: string>",
                        &schema, &err))
      abort();
  }
  bool no_header = data[0] & 1, with_schema = data[0] & 2;
  size_t chunk = 4 + (data[0] >> 2);
  uint8_t *p = fl_malloc(size - 1 ? size - 1 : 1);
  memcpy(p, data + 1, size - 1);
  fl_buf_t big, small;
  fl_buf_init(&big);
  fl_buf_init(&small);
  const ty_schema_t *s = with_schema ? schema : NULL;
  int rc1 = read_all(p, size - 1, s, no_header, (size_t)4 << 20, &big);
  int rc2 = read_all(p, size - 1, s, no_header, chunk, &small);
  if (rc1 != rc2) abort();
  if (big.len != small.len || (big.len && memcmp(big.data, small.data, big.len))) abort();
  fl_buf_free(&big);
  fl_buf_free(&small);
  fl_free(p);
  return 0;
}
