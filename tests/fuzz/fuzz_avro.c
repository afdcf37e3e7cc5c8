/*
 * fuzz_avro.c - libFuzzer target: the input is an Avro container file
 * (schema from its own header), read completely through the batch reader
 * and through the generic value decoder. Any crash, hang, leak or
 * undefined behaviour is a bug; errors are expected.
 */
#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "format/avro/avro.h"
#include "format/avro/avro_binary.h"
#include "format/avro/avro_container.h"

typedef struct mem_reader {
  io_reader_t base;
  const uint8_t *data;
} mem_reader_t;

static const uint8_t *g_data;
static size_t g_size;

static int mem_read_at(io_reader_t *r, uint64_t off, void *buf, size_t n, fl_err_t *err) {
  mem_reader_t *m = (mem_reader_t *)r;
  if (off > r->size || n > r->size - off)
    return fl_err_set(err, FL_EIO, "%s: short read at %llu", r->path, (unsigned long long)off);
  memcpy(buf, m->data + off, n);
  return FL_OK;
}

static void mem_close(io_reader_t *r) { fl_free(r); }

static int mem_open(io_fs_t *fs, const char *path, io_reader_t **out, fl_err_t *err) {
  (void)fs;
  (void)err;
  mem_reader_t *m = fl_calloc(1, sizeof *m);
  m->base.path = path;
  m->base.size = g_size;
  m->base.read_at = mem_read_at;
  m->base.close = mem_close;
  m->data = g_data;
  *out = &m->base;
  return FL_OK;
}

static void read_generic(io_fs_t *fs) {
  io_reader_t *in;
  fl_err_t err = {0};
  if (fs->open_read(fs, "fuzz.avro", &in, &err)) return;
  av_reader_t *r;
  if (av_reader_open(in, &r, &err) == FL_OK) {
    fl_arena_t *a = fl_arena_new(0);
    uint64_t recs, blocks;
    (void)av_reader_scan(r, &recs, &blocks, &err);
    for (;;) {
      const uint8_t *data;
      size_t len;
      uint64_t count;
      if (av_reader_next_block(r, &data, &len, &count, NULL, &err) || !data) break;
      fl_rd_t rd;
      fl_rd_init(&rd, data, len, "fuzz.avro");
      int rc = FL_OK;
      for (uint64_t i = 0; i < count && !rc; i++) {
        av_value_t *v;
        rc = av_decode(a, r->schema, &rd, &v, &err);
        if (!rc) {
          /* Re-encoding a decoded value must succeed. */
          fl_buf_t b;
          fl_buf_init(&b);
          if (av_encode(r->schema, v, &b, &err) != FL_OK) __builtin_trap();
          fl_buf_free(&b);
        }
      }
      fl_arena_reset(a);
      if (rc) break;
    }
    fl_arena_free(a);
    av_reader_close(r);
  }
  in->close(in);
}

static void read_batches(io_fs_t *fs) {
  fmt_reader_t *r;
  fl_err_t err = {0};
  if (av_fmt_open_reader(fs, "fuzz.avro", NULL, &r, &err)) return;
  for (;;) {
    ty_batch_t *b;
    if (r->next(r, &b, &err) || !b) break;
  }
  r->close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  io_fs_t fs = {.name = "mem", .open_read = mem_open};
  g_data = data;
  g_size = size;
  read_generic(&fs);
  read_batches(&fs);
  return 0;
}
