/*
 * test_spill.c - spill files and the batch encoding: a round trip of every
 * type (nested included) byte for byte, re-reading, truncated and
 * corrupted files giving clear errors, garbage never crashing the decoder,
 * and the spill directory disappearing when closed.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "exec/ex_spill.h"
#include "exec_test_util.h"
#include "test.h"
#include "types/gen.h"

static const char *all_types =
    "i int, l long, d double, r float, dec decimal(20,3), s string, b binary, u uuid, f fixed(5), "
    "bo boolean, dt date, ts timestamp, tz timestamptz, li list<string>, st struct<x: int, y: "
    "string>, "
    "m map<string, long>";

static ty_batch_t *gen_batch(const ty_schema_t *s, uint64_t seed, uint32_t rows) {
  ty_gen_opts_t o = {.seed = seed, .null_fraction = 0.15, .edge_fraction = 0.05};
  ty_gen_t *g = ty_gen_new(&o);
  ty_batch_t *b = ty_batch_new(s, rows);
  ty_gen_fill(g, b, rows);
  ty_gen_free(g);
  return b;
}

static bool same_encoding(const ty_batch_t *a, const ty_batch_t *b) {
  fl_buf_t x, y;
  fl_buf_init(&x);
  fl_buf_init(&y);
  ex_batch_encode(a, &x);
  ex_batch_encode(b, &y);
  bool same = x.len == y.len && memcmp(x.data, y.data, x.len) == 0;
  fl_buf_free(&x);
  fl_buf_free(&y);
  return same;
}

TEST(spill_round_trip_all_types) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s;
  fl_err_t err;
  CHECK_OK(ty_schema_parse(a, all_types, &s, &err), &err);
  ex_spill_dir_t *d;
  CHECK_OK(ex_spill_dir_open(t_tmpdir(), &d, &err), &err);
  char dirpath[4096];
  snprintf(dirpath, sizeof dirpath, "%s", ex_spill_dir_path(d));
  ex_spill_file_t *f;
  CHECK_OK(ex_spill_create(d, &f, &err), &err);
  ty_batch_t *in[6];
  uint32_t sizes[6] = {1, 2048, 0, 777, 1500, 3};
  for (int i = 0; i < 6; i++) {
    in[i] = gen_batch(s, 100 + i, sizes[i]);
    CHECK_OK(ex_spill_write(f, in[i], &err), &err);
  }
  CHECK_OK(ex_spill_seal(f, &err), &err);
  CHECK_EQ(ex_spill_rows(f), 1 + 2048 + 777 + 1500 + 3);
  ty_batch_t *out = ty_batch_new(s, 16);
  for (int pass = 0; pass < 2; pass++) {
    ex_spill_rewind(f);
    for (int i = 0; i < 6; i++) {
      bool eof;
      CHECK_OK(ex_spill_read(f, out, &eof, &err), &err);
      CHECK(!eof);
      CHECK_EQ(out->nrows, sizes[i]);
      CHECK(same_encoding(in[i], out));
    }
    bool eof;
    CHECK_OK(ex_spill_read(f, out, &eof, &err), &err);
    CHECK(eof);
  }
  /* Closing the directory removes files still open and the directory. */
  ex_spill_file_t *g;
  CHECK_OK(ex_spill_create(d, &g, &err), &err);
  ex_spill_free(f);
  struct stat st;
  CHECK(stat(dirpath, &st) == 0);
  ex_spill_dir_close(d);
  CHECK(stat(dirpath, &st) != 0);
  /* The handle of g outlived its directory: freeing it is still safe. */
  ex_spill_free(g);
  for (int i = 0; i < 6; i++) ty_batch_free(in[i]);
  ty_batch_free(out);
  fl_arena_free(a);
}

/* Writes three batches, cuts the file to `keep` bytes, reads until error. */
static int read_truncated(const ty_schema_t *s, int64_t cut_from_end, char *msg, size_t msg_cap) {
  fl_err_t err;
  ex_spill_dir_t *d;
  ex_spill_file_t *f;
  if (ex_spill_dir_open(t_tmpdir(), &d, &err) || ex_spill_create(d, &f, &err)) return -1;
  ty_batch_t *b = gen_batch(s, 7, 500);
  for (int i = 0; i < 3; i++) ex_spill_write(f, b, &err);
  ex_spill_seal(f, &err);
  uint64_t size = ex_spill_bytes(f);
  if (truncate(ex_spill_path(f), (off_t)(size - (uint64_t)cut_from_end)) != 0) return -1;
  ty_batch_t *out = ty_batch_new(s, 16);
  int rc = FL_OK;
  bool eof = false;
  ex_spill_rewind(f);
  while (!rc && !eof) rc = ex_spill_read(f, out, &eof, &err);
  snprintf(msg, msg_cap, "%s", rc ? err.msg : "");
  ty_batch_free(out);
  ty_batch_free(b);
  ex_spill_free(f);
  ex_spill_dir_close(d);
  return rc;
}

TEST(spill_truncated_file_is_an_error) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s;
  fl_err_t err;
  CHECK_OK(ty_schema_parse(a, all_types, &s, &err), &err);
  char msg[800];
  /* Cut inside the trailer, at the block boundary (trailer gone), inside
   * the last block's payload and inside a block header. */
  const int64_t cuts[] = {5, 20, 100, 20 + 1};
  for (int i = 0; i < 4; i++) {
    int rc = read_truncated(s, cuts[i], msg, sizeof msg);
    CHECK_EQ(rc, FL_ECORRUPT);
    CHECK(strstr(msg, "truncated") != NULL || strstr(msg, "trailer") != NULL);
    CHECK(strstr(msg, ".spill") != NULL); /* the message names the file */
  }
  CHECK_EQ(read_truncated(s, 0, msg, sizeof msg), FL_OK);
  fl_arena_free(a);
}

TEST(spill_corrupt_byte_is_an_error) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s;
  fl_err_t err;
  CHECK_OK(ty_schema_parse(a, "x long, s string", &s, &err), &err);
  ex_spill_dir_t *d;
  ex_spill_file_t *f;
  CHECK_OK(ex_spill_dir_open(t_tmpdir(), &d, &err), &err);
  CHECK_OK(ex_spill_create(d, &f, &err), &err);
  ty_batch_t *b = gen_batch(s, 1, 300);
  CHECK_OK(ex_spill_write(f, b, &err), &err);
  CHECK_OK(ex_spill_seal(f, &err), &err);
  FILE *fp = fopen(ex_spill_path(f), "r+b");
  CHECK(fp != NULL);
  fseek(fp, 8 + 16 + 40, SEEK_SET);
  int c = fgetc(fp);
  fseek(fp, 8 + 16 + 40, SEEK_SET);
  fputc(c ^ 0x55, fp);
  fclose(fp);
  bool eof;
  CHECK_ERR(ex_spill_read(f, b, &eof, &err), FL_ECORRUPT);
  CHECK(strstr(err.msg, "checksum") != NULL);
  ty_batch_free(b);
  ex_spill_free(f);
  ex_spill_dir_close(d);
  fl_arena_free(a);
}

TEST(spill_decoder_survives_garbage) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s;
  fl_err_t err;
  CHECK_OK(ty_schema_parse(a, all_types, &s, &err), &err);
  ty_batch_t *b = gen_batch(s, 3, 50);
  fl_buf_t enc;
  fl_buf_init(&enc);
  ex_batch_encode(b, &enc);
  ty_batch_t *out = ty_batch_new(s, 16);
  uint64_t seed = 1;
  int failures = 0;
  for (int i = 0; i < 2000; i++) {
    /* Mutate a copy: flip bytes, or cut it short. */
    uint8_t *p = fl_malloc(enc.len);
    memcpy(p, enc.data, enc.len);
    size_t len = enc.len;
    uint64_t r = tu_rand(&seed);
    if (r & 1)
      len = (size_t)(r >> 8) % enc.len;
    else
      for (int k = 0; k < 4; k++) p[tu_rand(&seed) % enc.len] ^= (uint8_t)(tu_rand(&seed) | 1);
    fl_rd_t rd;
    fl_rd_init(&rd, p, len, "garbage");
    if (ex_batch_decode(&rd, out, &err) != FL_OK) failures++;
    fl_free(p);
  }
  CHECK(failures > 1000); /* every cut-short copy fails */
  fl_rd_t rd;
  fl_rd_init(&rd, enc.data, enc.len, "good");
  CHECK_OK(ex_batch_decode(&rd, out, &err), &err);
  CHECK(same_encoding(b, out));
  fl_buf_free(&enc);
  ty_batch_free(out);
  ty_batch_free(b);
  fl_arena_free(a);
}
