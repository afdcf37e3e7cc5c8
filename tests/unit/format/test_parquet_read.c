/*
 * test_parquet_read.c - unit tests of the Parquet reader: the decoders
 * against byte vectors worked out by hand from the Parquet encoding spec,
 * Thrift compact decoding of hand-made bytes, hostile inputs, and whole
 * parquet-testing files checked against their _expect.csv / .md values.
 */
#include <stdlib.h>

#include "base/alloc.h"
#include "format/parquet/pq_decode.h"
#include "format/parquet/pq_meta.h"
#include "format/parquet/pq_reader.h"
#include "test.h"
#include "types/value.h"

/* ---- RLE / bit-packed hybrid ---- */

TEST(rle_bitpacked_spec_example) {
  /* Spec: values 0..7 with bit width 3, one bit-packed group. */
  const uint8_t in[] = {0x03, 0x88, 0xC6, 0xFA};
  uint32_t out[8];
  fl_err_t err;
  size_t used;
  CHECK_OK(pq_rle_decode(in, sizeof in, 3, 8, out, &used, &err), &err);
  for (uint32_t i = 0; i < 8; i++) CHECK_EQ(out[i], i);
  CHECK_EQ(used, 4);
}

TEST(rle_runs_and_mixed) {
  /* RLE run of 5 x 3 (bw 3), then a bit-packed group 0..7, then a run of
   * 300 x 1 (header 600 = varint 0xD8 0x04). */
  const uint8_t in[] = {0x0A, 0x03, 0x03, 0x88, 0xC6, 0xFA, 0xD8, 0x04, 0x01};
  uint32_t out[313];
  fl_err_t err;
  CHECK_OK(pq_rle_decode(in, sizeof in, 3, 313, out, NULL, &err), &err);
  for (int i = 0; i < 5; i++) CHECK_EQ(out[i], 3);
  for (int i = 0; i < 8; i++) CHECK_EQ(out[5 + i], i);
  for (int i = 13; i < 313; i++) CHECK_EQ(out[i], 1);
  uint16_t lv[313];
  CHECK_OK(pq_rle_decode_levels(in, sizeof in, 3, 313, lv, &err), &err);
  CHECK_EQ(lv[0], 3);
  CHECK_EQ(lv[12], 7);
  CHECK_EQ(lv[312], 1);
}

TEST(rle_booleans_width1) {
  /* Bit width 1, two groups: 0b10110001, 0b00000011. */
  const uint8_t in[] = {0x05, 0xB1, 0x03};
  uint32_t out[16];
  fl_err_t err;
  CHECK_OK(pq_rle_decode(in, sizeof in, 1, 16, out, NULL, &err), &err);
  const uint32_t want[16] = {1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 16; i++) CHECK_EQ(out[i], want[i]);
}

TEST(rle_truncated_is_corrupt) {
  const uint8_t in[] = {0x0A}; /* run header without its value */
  uint32_t out[5];
  fl_err_t err;
  CHECK_ERR(pq_rle_decode(in, sizeof in, 3, 5, out, NULL, &err), FL_ECORRUPT);
  const uint8_t in2[] = {0x0A, 0x01};
  CHECK_ERR(pq_rle_decode(in2, sizeof in2, 3, 6, out, NULL, &err), FL_ECORRUPT); /* too few */
  CHECK_ERR(pq_rle_decode(in2, sizeof in2, 33, 1, out, NULL, &err), FL_ECORRUPT);
  /* A huge bit-packed group count with no bytes behind it. */
  const uint8_t in3[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F};
  CHECK_ERR(pq_rle_decode(in3, sizeof in3, 5, 4, out, NULL, &err), FL_ECORRUPT);
}

TEST(legacy_bit_packed_levels) {
  /* Spec: 0..7 with bit width 3, most significant bit first. */
  const uint8_t in[] = {0x05, 0x39, 0x77};
  uint16_t out[8];
  fl_err_t err;
  size_t used;
  CHECK_OK(pq_bitpacked_levels(in, sizeof in, 3, 8, out, &used, &err), &err);
  for (int i = 0; i < 8; i++) CHECK_EQ(out[i], i);
  CHECK_EQ(used, 3);
  CHECK_ERR(pq_bitpacked_levels(in, 2, 3, 8, out, &used, &err), FL_ECORRUPT);
}

TEST(plain_booleans) {
  const uint8_t in[] = {0x0D, 0x01}; /* 1,0,1,1,0,0,0,0, 1 */
  uint8_t out[9];
  fl_err_t err;
  CHECK_OK(pq_plain_bool(in, sizeof in, 9, out, &err), &err);
  const uint8_t want[9] = {1, 0, 1, 1, 0, 0, 0, 0, 1};
  CHECK_MEM(out, want, 9);
  CHECK_ERR(pq_plain_bool(in, 1, 9, out, &err), FL_ECORRUPT);
}

TEST(plain_byte_arrays) {
  const uint8_t in[] = {2, 0, 0, 0, 'h', 'i', 0, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c'};
  uint32_t st[3], ln[3];
  fl_err_t err;
  CHECK_OK(pq_plain_bytes(in, sizeof in, 3, st, ln, NULL, &err), &err);
  CHECK_EQ(ln[0], 2);
  CHECK_EQ(ln[1], 0);
  CHECK_EQ(ln[2], 3);
  CHECK_MEM(in + st[2], "abc", 3);
  CHECK_ERR(pq_plain_bytes(in, sizeof in - 1, 3, st, ln, NULL, &err), FL_ECORRUPT);
  const uint8_t huge[] = {0xff, 0xff, 0xff, 0xff, 1};
  CHECK_ERR(pq_plain_bytes(huge, sizeof huge, 1, st, ln, NULL, &err), FL_ECORRUPT);
}

/* ---- DELTA_BINARY_PACKED and friends ---- */

TEST(delta_binary_packed_constant_delta) {
  /* Spec example 1: 1..5, block 128, 4 miniblocks, all deltas 1 -> width 0. */
  const uint8_t in[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0};
  int32_t out[5];
  fl_err_t err;
  size_t used;
  CHECK_OK(pq_delta_binary(in, sizeof in, 5, false, out, &used, &err), &err);
  for (int i = 0; i < 5; i++) CHECK_EQ(out[i], i + 1);
  CHECK_EQ(used, sizeof in);
}

TEST(delta_binary_packed_negative_min_delta) {
  /* Spec example 2: 7,5,3,1,2,3,4,5: min delta -2, relative deltas
   * 0,0,0,3,3,3,3 in width 2: bytes 0xC0 0x3F, miniblock of 8 bytes. */
  const uint8_t in[] = {0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 2,    0, 0, 0,
                        0xC0, 0x3F, 0,    0,    0,    0,    0,    0};
  int64_t out[8];
  fl_err_t err;
  size_t used;
  CHECK_OK(pq_delta_binary(in, sizeof in, 8, true, out, &used, &err), &err);
  const int64_t want[8] = {7, 5, 3, 1, 2, 3, 4, 5};
  for (int i = 0; i < 8; i++) CHECK_EQ(out[i], want[i]);
  CHECK_EQ(used, sizeof in);
  /* Truncated miniblock. */
  CHECK_ERR(pq_delta_binary(in, sizeof in - 3, 8, true, out, &used, &err), FL_ECORRUPT);
  /* Bad block size (not a multiple of 128). */
  const uint8_t bad[] = {0x7F, 0x04, 0x08, 0x0E};
  CHECK_ERR(pq_delta_binary(bad, sizeof bad, 8, true, out, &used, &err), FL_ECORRUPT);
  /* Fewer values than asked for. */
  CHECK_ERR(pq_delta_binary(in, sizeof in, 9, true, out, &used, &err), FL_ECORRUPT);
}

TEST(delta_length_byte_array) {
  /* "Hello","World","Foobar","ABCDEF": lengths 5,5,6,6 = first 5, deltas
   * 0,1,0 (min 0, width 1: 0b010). */
  const uint8_t in[] = {0x80, 0x01, 0x04, 0x04, 0x0A, 0x00, 1, 0, 0, 0, 0x02, 0, 0, 0,
                        'H',  'e',  'l',  'l',  'o',  'W',  'o', 'r', 'l', 'd', 'F', 'o', 'o', 'b',
                        'a',  'r',  'A',  'B',  'C',  'D',  'E', 'F'};
  uint32_t st[4], ln[4];
  fl_err_t err;
  CHECK_OK(pq_delta_length(in, sizeof in, 4, st, ln, NULL, &err), &err);
  CHECK_EQ(ln[0], 5);
  CHECK_EQ(ln[2], 6);
  CHECK_MEM(in + st[2], "Foobar", 6);
  CHECK_MEM(in + st[3], "ABCDEF", 6);
  CHECK_ERR(pq_delta_length(in, sizeof in - 1, 4, st, ln, NULL, &err), FL_ECORRUPT);
}

TEST(delta_byte_array) {
  /* "axis","axle","babble","babyhood": prefixes 0,2,0,3 (first 0, deltas
   * 2,-2,3: min -2, relative 4,0,5 in width 3 = 0x44 0x01), suffix lengths
   * 4,2,6,5 (first 4, deltas -2,4,-1: relative 0,6,1 = 0x70). */
  uint8_t in[200];
  size_t n = 0;
  const uint8_t pre[] = {0x80, 0x01, 0x04, 0x04, 0x00, 0x03, 3, 0, 0, 0, 0x44, 0x01};
  memcpy(in + n, pre, sizeof pre);
  n += sizeof pre;
  memset(in + n, 0, 10);
  n += 10;
  const uint8_t suf[] = {0x80, 0x01, 0x04, 0x04, 0x08, 0x03, 3, 0, 0, 0, 0x70};
  memcpy(in + n, suf, sizeof suf);
  n += sizeof suf;
  memset(in + n, 0, 11);
  n += 11;
  memcpy(in + n, "axislebabbleyhood", 17);
  n += 17;
  fl_buf_t heap;
  fl_buf_init(&heap);
  uint32_t st[4], ln[4];
  fl_err_t err;
  CHECK_OK(pq_delta_byte_array(in, n, 4, &heap, st, ln, &err), &err);
  const char *want[4] = {"axis", "axle", "babble", "babyhood"};
  for (int i = 0; i < 4; i++) {
    CHECK_EQ(ln[i], strlen(want[i]));
    CHECK_MEM(heap.data + st[i], want[i], ln[i]);
  }
  /* A prefix longer than the previous value is corrupt. */
  in[sizeof pre - 2] = 0x47; /* first relative delta 7: prefix 5 > 4 */
  heap.len = 0;
  CHECK_ERR(pq_delta_byte_array(in, n, 4, &heap, st, ln, &err), FL_ECORRUPT);
  fl_buf_free(&heap);
}

TEST(byte_stream_split) {
  /* 1.0f = 00 00 80 3f, 2.0f = 00 00 00 40, -0.5f = 00 00 00 bf. */
  const uint8_t in[] = {0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0x3f, 0x40, 0xbf};
  uint8_t out[12];
  fl_err_t err;
  CHECK_OK(pq_byte_stream_split(in, sizeof in, 3, 4, out, &err), &err);
  float f[3];
  memcpy(f, out, 12);
  CHECK(f[0] == 1.0f && f[1] == 2.0f && f[2] == -0.5f);
  /* Width 3 (FIXED_LEN_BYTE_ARRAY(3)), two values: abc, def. */
  const uint8_t in3[] = {'a', 'd', 'b', 'e', 'c', 'f'};
  CHECK_OK(pq_byte_stream_split(in3, sizeof in3, 2, 3, out, &err), &err);
  CHECK_MEM(out, "abcdef", 6);
  CHECK_ERR(pq_byte_stream_split(in, 11, 3, 4, out, &err), FL_ECORRUPT);
}

/* ---- Thrift ---- */

TEST(thrift_page_header) {
  const uint8_t in[] = {
      0x15, 0x00,              /* 1: type = DATA_PAGE */
      0x15, 0xC8, 0x01,        /* 2: uncompressed_page_size = 100 */
      0x15, 0x90, 0x01,        /* 3: compressed_page_size = 72 */
      0x2C,                    /* 5: data_page_header */
      0x15, 0x14,              /*   num_values = 10 */
      0x15, 0x10,              /*   encoding = RLE_DICTIONARY (8) */
      0x15, 0x06, 0x15, 0x06,  /*   level encodings RLE */
      0x00,                    /*   stop */
      0x09, 0xC6, 0x01,        /* 99: unknown list<i32> (long field header) */
      0x25, 0x02, 0x04,        /*   two elements */
      0x0C, 0xD0, 0x0F,        /* 1000: unknown struct */
      0x18, 0x02, 'h', 'i',    /*   binary field */
      0x1B, 0x01, 0x85, 0x01, 'k', 0x04, /* map<binary,i32>: 1 entry */
      0x00,                    /*   stop */
      0x00,                    /* stop */
      0xEE};                   /* trailing byte: not consumed */
  fl_arena_t *a = fl_arena_new(0);
  pq_page_header_t h;
  size_t used;
  fl_err_t err;
  CHECK_OK(pq_meta_read_page_header(a, in, sizeof in, &h, &used, &err), &err);
  CHECK_EQ(h.type, PQ_PAGE_DATA);
  CHECK_EQ(h.uncompressed_page_size, 100);
  CHECK_EQ(h.compressed_page_size, 72);
  CHECK(h.has_data_page_header);
  CHECK_EQ(h.data_page_header.num_values, 10);
  CHECK_EQ(h.data_page_header.encoding, PQ_ENC_RLE_DICTIONARY);
  CHECK_EQ(used, sizeof in - 1);
  /* Every truncation fails cleanly. */
  for (size_t n = 0; n < sizeof in - 1; n++)
    CHECK_ERR(pq_meta_read_page_header(a, in, n, &h, &used, &err), FL_ECORRUPT);
  fl_arena_free(a);
}

TEST(thrift_hostile_inputs) {
  fl_arena_t *a = fl_arena_new(0);
  pq_file_meta_t m;
  fl_err_t err;
  /* schema: list of 2^32-1 structs in 8 bytes. */
  const uint8_t huge[] = {0x15, 0x02, 0x19, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x00};
  CHECK_ERR(pq_meta_read_file(a, huge, sizeof huge, &m, &err), FL_ECORRUPT);
  /* Deep nesting of unknown structs. */
  uint8_t deep[3000];
  memset(deep, 0x1C, sizeof deep);
  CHECK_ERR(pq_meta_read_file(a, deep, sizeof deep, &m, &err), FL_ECORRUPT);
  CHECK(strstr(err.msg, "deep") != NULL);
  /* A binary whose length runs past the end. */
  const uint8_t longbin[] = {0x68, 0xFF, 0x7F, 'x'};
  CHECK_ERR(pq_meta_read_file(a, longbin, sizeof longbin, &m, &err), FL_ECORRUPT);
  /* Varint longer than 10 bytes. */
  uint8_t vlong[16] = {0x16};
  memset(vlong + 1, 0xFF, 15);
  CHECK_ERR(pq_meta_read_file(a, vlong, sizeof vlong, &m, &err), FL_ECORRUPT);
  /* No schema at all. */
  const uint8_t empty[] = {0x00};
  CHECK_ERR(pq_meta_read_file(a, empty, sizeof empty, &m, &err), FL_ECORRUPT);
  /* Bad field type nibble. */
  const uint8_t badtype[] = {0x1E, 0x00};
  CHECK_ERR(pq_meta_read_file(a, badtype, sizeof badtype, &m, &err), FL_ECORRUPT);
  /* Random bytes never crash. */
  srand(7);
  uint8_t rnd[256];
  for (int k = 0; k < 2000; k++) {
    size_t n = (size_t)(rand() % 256);
    for (size_t i = 0; i < n; i++) rnd[i] = (uint8_t)rand();
    fl_arena_reset(a);
    (void)pq_meta_read_file(a, rnd, n, &m, &err);
    pq_page_header_t h;
    size_t used;
    (void)pq_meta_read_page_header(a, rnd, n, &h, &used, &err);
    pq_column_index_t ci;
    (void)pq_meta_read_column_index(a, rnd, n, &ci, &err);
    pq_offset_index_t oi;
    (void)pq_meta_read_offset_index(a, rnd, n, &oi, &err);
  }
  fl_arena_free(a);
}

TEST(names) {
  CHECK_STR(pq_encoding_name(PQ_ENC_RLE_DICTIONARY), "RLE_DICTIONARY");
  CHECK_STR(pq_codec_name(PQ_CODEC_ZSTD), "ZSTD");
  CHECK_STR(pq_type_name(PQ_INT96), "INT96");
}

/* ---- whole files ---- */

static char *data_path(const char *name) {
  static char buf[1024];
  snprintf(buf, sizeof buf, "%s/parquet-testing/data/%s", t_testdata(), name);
  return buf;
}

/* Splits one CSV line into cells (quotes removed); *quoted says whether a
 * cell was quoted (an empty unquoted cell is a null). Returns the count. */
static int csv_split(char *line, char **cells, bool *quoted, int max) {
  int n = 0;
  char *p = line;
  while (n < max) {
    char *out = p, *start = p;
    quoted[n] = false;
    if (*p == '"') {
      quoted[n] = true;
      p++;
      for (;;) {
        if (*p == '"' && p[1] == '"') {
          *out++ = '"';
          p += 2;
        } else if (*p == '"' || !*p) {
          if (*p) p++;
          break;
        } else {
          *out++ = *p++;
        }
      }
    } else {
      while (*p && *p != ',' && *p != '\n' && *p != '\r') *out++ = *p++;
    }
    char end = *p;
    *out = 0;
    cells[n++] = start;
    if (end != ',') break;
    p++;
  }
  return n;
}

/* Reads a parquet file and checks every value against the CSV file. */
static void check_against_csv(const char *pqname, const char *csvname, int64_t want_rows) {
  fl_err_t err;
  pq_reader_t *r;
  CHECK_OK(pq_reader_open(io_local_fs(), data_path(pqname), NULL, &r, &err), &err);
  FILE *f = fopen(data_path(csvname), "r");
  CHECK(f != NULL);
  static char line[1 << 16], hdr[1 << 16];
  char *cells[256], *names[256];
  bool quoted[256], hq[256];
  CHECK(fgets(hdr, sizeof hdr, f) != NULL);
  int ncols = csv_split(hdr, names, hq, 256);
  const ty_schema_t *s = pq_reader_schema(r);
  CHECK_EQ(ncols, s->root.nfields);
  for (int c = 0; c < ncols; c++) {
    const char *nm = names[c];
    while (*nm == ' ') nm++;
    /* The required-column file's names carry a trailing ':'. */
    CHECK(strncmp(s->root.fields[c].name, nm, strlen(nm)) == 0);
  }
  fl_buf_t b;
  fl_buf_init(&b);
  int64_t row = 0;
  ty_batch_t *bt;
  for (;;) {
    CHECK_OK(pq_reader_next(r, &bt, &err), &err);
    if (!bt) break;
    for (uint32_t i = 0; i < bt->nrows; i++, row++) {
      CHECK(fgets(line, sizeof line, f) != NULL);
      int n = csv_split(line, cells, quoted, 256);
      CHECK_EQ(n, ncols);
      for (int c = 0; c < ncols; c++) {
        const ty_vec_t *v = bt->cols[c];
        if (ty_vec_is_null(v, i)) {
          if (cells[c][0] || quoted[c]) t_fail(__FILE__, __LINE__, "row %lld col %d: null vs '%s'", (long long)row, c, cells[c]);
          CHECK(!cells[c][0] && !quoted[c]);
          continue;
        }
        ty_value_t x = ty_value_from_vec(v, i);
        fl_buf_clear(&b);
        if (x.kind == TY_STRING)
          fl_buf_append(&b, x.u.bytes.p, x.u.bytes.n);
        else
          ty_value_format(v->type, &x, &b);
        fl_buf_append_u8(&b, 0);
        if (strcmp((char *)b.data, cells[c]) != 0) {
          t_fail(__FILE__, __LINE__, "%s row %lld col %s: '%s' != '%s'", pqname, (long long)row,
                 s->root.fields[c].name, (char *)b.data, cells[c]);
          return;
        }
      }
    }
  }
  CHECK_EQ(row, want_rows);
  CHECK(fgets(line, sizeof line, f) == NULL);
  fclose(f);
  fl_buf_free(&b);
  pq_reader_close(r);
}

TEST(file_delta_binary_packed) {
  check_against_csv("delta_binary_packed.parquet", "delta_binary_packed_expect.csv", 200);
}
TEST(file_delta_byte_array) {
  check_against_csv("delta_byte_array.parquet", "delta_byte_array_expect.csv", 1000);
}
TEST(file_delta_optional) {
  check_against_csv("delta_encoding_optional_column.parquet",
                    "delta_encoding_optional_column_expect.csv", 100);
}
TEST(file_delta_required) {
  check_against_csv("delta_encoding_required_column.parquet",
                    "delta_encoding_required_column_expect.csv", 100);
}

/* Reads all rows of column 0 of a file as formatted text lines. */
static int read_col0(const char *name, fl_buf_t *out, fl_err_t *err) {
  pq_reader_t *r;
  int rc = pq_reader_open(io_local_fs(), data_path(name), NULL, &r, err);
  if (rc) return rc;
  ty_batch_t *bt;
  while (!(rc = pq_reader_next(r, &bt, err)) && bt) {
    for (uint32_t i = 0; i < bt->nrows; i++) {
      if (ty_vec_is_null(bt->cols[0], i)) {
        fl_buf_append_str(out, "null");
      } else {
        ty_value_t x = ty_value_from_vec(bt->cols[0], i);
        ty_value_format(bt->cols[0]->type, &x, out);
      }
      fl_buf_append_u8(out, '\n');
    }
  }
  pq_reader_close(r);
  return rc;
}

TEST(file_int96_from_spark) {
  /* int96_from_spark.md: microseconds 1704141296123456, 1704070800000000,
   * 253402225200000000, 1735599600000000, null, 9089380393200000000. */
  fl_buf_t b;
  fl_buf_init(&b);
  fl_err_t err;
  CHECK_OK(read_col0("int96_from_spark.parquet", &b, &err), &err);
  fl_buf_append_u8(&b, 0);
  CHECK_STR((char *)b.data,
            "2024-01-01T20:34:56.123456+00:00\n2024-01-01T01:00:00.000000+00:00\n"
            "9999-12-31T03:00:00.000000+00:00\n2024-12-30T23:00:00.000000+00:00\nnull\n"
            "+290000-12-30T23:00:00.000000+00:00\n");
  fl_buf_free(&b);
}

TEST(file_checksums) {
  fl_buf_t b;
  fl_buf_init(&b);
  fl_err_t err;
  CHECK_OK(read_col0("datapage_v1-snappy-compressed-checksum.parquet", &b, &err), &err);
  b.len = 0;
  CHECK_ERR(read_col0("datapage_v1-corrupt-checksum.parquet", &b, &err), FL_ECORRUPT);
  CHECK(strstr(err.msg, "CRC") && strstr(err.msg, "row group 0") && strstr(err.msg, "offset"));
  CHECK(strstr(err.msg, "datapage_v1-corrupt-checksum.parquet") != NULL);
  fl_buf_free(&b);
}

TEST(file_encrypted_and_brotli) {
  fl_buf_t b;
  fl_buf_init(&b);
  fl_err_t err;
  CHECK_ERR(read_col0("uniform_encryption.parquet.encrypted", &b, &err), FL_EUNSUPPORTED);
  CHECK(strstr(err.msg, "encrypt") != NULL);
  CHECK_ERR(read_col0("encrypt_columns_plaintext_footer.parquet.encrypted", &b, &err),
            FL_EUNSUPPORTED);
  CHECK_ERR(read_col0("large_string_map.brotli.parquet", &b, &err), FL_EUNSUPPORTED);
  CHECK(strstr(err.msg, "BROTLI") != NULL);
  fl_buf_free(&b);
}

TEST(file_projection_and_pruning) {
  /* alltypes_plain: 8 rows in one row group, id 0..7 (field id 1). */
  fl_err_t err;
  pq_reader_t *r;
  int32_t ids[] = {2, 1};
  pq_pred_term_t t = {.field_id = 1, .op = PQ_OP_GT, .value = {.kind = TY_INT, .u.i32 = 100}};
  pq_read_opts_t o = {.field_ids = ids, .nfield_ids = 2};
  CHECK_OK(pq_reader_open(io_local_fs(), data_path("alltypes_plain.parquet"), &o, &r, &err), &err);
  const ty_schema_t *s = pq_reader_schema(r);
  CHECK_EQ(s->root.nfields, 2);
  CHECK_STR(s->root.fields[0].name, "bool_col");
  CHECK_STR(s->root.fields[1].name, "id");
  ty_batch_t *bt;
  CHECK_OK(pq_reader_next(r, &bt, &err), &err);
  CHECK(bt && bt->nrows == 8 && bt->ncols == 2);
  CHECK_EQ(TY_VEC_DATA(bt->cols[1], int32_t)[0], 4);
  pq_reader_close(r);
  /* id > 100 prunes the only row group when statistics exist; otherwise the
   * rows come back unfiltered. Use a file with statistics. */
  o.field_ids = NULL;
  o.nfield_ids = 0;
  o.pred = &t;
  o.npred = 1;
  t.field_id = 1;
  t.value.kind = TY_LONG;
  t.value.u.i64 = 1000000;
  CHECK_OK(pq_reader_open(io_local_fs(), data_path("sort_columns.parquet"), &o, &r, &err), &err);
  CHECK_OK(pq_reader_next(r, &bt, &err), &err);
  CHECK(bt == NULL);
  CHECK_EQ(pq_reader_stats(r)->row_groups_skipped, 2);
  pq_reader_close(r);
  t.op = PQ_OP_LT;
  CHECK_OK(pq_reader_open(io_local_fs(), data_path("sort_columns.parquet"), &o, &r, &err), &err);
  int64_t rows = 0;
  while (!pq_reader_next(r, &bt, &err) && bt) rows += bt->nrows;
  CHECK_EQ(rows, 6);
  CHECK_EQ(pq_reader_stats(r)->row_groups_read, 2);
  pq_reader_close(r);
}

TEST(file_truncated_copies) {
  /* Every prefix of a small file fails cleanly (or reads, for none). */
  uint8_t *data;
  size_t len;
  fl_err_t err;
  CHECK_OK(io_read_all(io_local_fs(), data_path("nested_lists.snappy.parquet"), 1 << 20, &data,
                       &len, &err),
           &err);
  char path[1024];
  snprintf(path, sizeof path, "%s/trunc.parquet", t_tmpdir());
  for (size_t n = 0; n < len; n += 7) {
    CHECK_OK(io_write_all(io_local_fs(), path, data, n, &err), &err);
    pq_reader_t *r;
    int rc = pq_reader_open(io_local_fs(), path, NULL, &r, &err);
    CHECK(rc != FL_OK);
    CHECK(strstr(err.msg, "trunc.parquet") != NULL);
  }
  fl_free(data);
}

/* Reads alltypes_tiny_pages with one predicate term; checks that every row
 * of the file matching it comes back, that the other columns stay aligned
 * (bool_col is id even, tinyint_col is id % 10), and returns counters. */
static void tiny_pages_case(pq_pred_op_t op, int32_t v, int64_t want_matches, bool want_skip) {
  fl_err_t err;
  pq_reader_t *r;
  pq_pred_term_t t = {.field_id = 1, .op = op, .value = {.kind = TY_INT, .u.i32 = v}};
  pq_read_opts_t o = {.pred = &t, .npred = 1};
  CHECK_OK(pq_reader_open(io_local_fs(), data_path("alltypes_tiny_pages.parquet"), &o, &r, &err),
           &err);
  int64_t rows = 0, matches = 0;
  ty_batch_t *bt;
  for (;;) {
    CHECK_OK(pq_reader_next(r, &bt, &err), &err);
    if (!bt) break;
    for (uint32_t i = 0; i < bt->nrows; i++, rows++) {
      int32_t id = TY_VEC_DATA(bt->cols[0], int32_t)[i];
      CHECK_EQ(bt->cols[1]->data[i], id % 2 == 0);
      CHECK_EQ(TY_VEC_DATA(bt->cols[2], int32_t)[i], id % 10);
      bool m = op == PQ_OP_EQ ? id == v : op == PQ_OP_LT ? id < v : op == PQ_OP_GE ? id >= v : true;
      matches += m;
    }
  }
  const pq_read_stats_t *st = pq_reader_stats(r);
  CHECK_EQ(matches, want_matches);
  CHECK_EQ(st->rows_read + st->rows_skipped, 7300);
  CHECK_EQ(st->rows_read, rows);
  if (want_skip) {
    CHECK(rows < 7300);
    CHECK(st->pages_skipped > 0);
  }
  pq_reader_close(r);
}

TEST(page_index_pruning) {
  tiny_pages_case(PQ_OP_EQ, 0, 1, true);
  tiny_pages_case(PQ_OP_EQ, 100, 1, true);
  tiny_pages_case(PQ_OP_EQ, 3650, 1, true);
  tiny_pages_case(PQ_OP_EQ, 7299, 1, true);
  tiny_pages_case(PQ_OP_LT, 50, 50, true);
  tiny_pages_case(PQ_OP_GE, 7000, 300, true);
  tiny_pages_case(PQ_OP_NOT_NULL, 0, 7300, false);
}

TEST(rle_run_value_wider_than_bit_width) {
  /* A run of 4 x 5 with bit width 1: the value does not fit, so a level
   * decoder must not accept it (it would disagree with the maximum). */
  const uint8_t in[] = {0x08, 0x05};
  uint16_t out[4];
  fl_err_t err;
  CHECK_ERR(pq_rle_decode_levels(in, sizeof in, 1, 4, out, &err), FL_ECORRUPT);
}

#include <jansson.h>

#include "format/json/json_text.h"

/* Rows of a file as parsed JSON objects (floe's JSON form). */
static json_t *rows_json(const char *name, const pq_read_opts_t *o, fl_err_t *err) {
  pq_reader_t *r;
  if (pq_reader_open(io_local_fs(), data_path(name), o, &r, err)) return NULL;
  json_t *rows = json_array();
  fl_buf_t b;
  fl_buf_init(&b);
  ty_batch_t *bt;
  while (!pq_reader_next(r, &bt, err) && bt) {
    for (uint32_t i = 0; i < bt->nrows; i++) {
      fl_buf_clear(&b);
      js_append_row(&b, bt, i);
      json_array_append_new(rows, json_loadb((const char *)b.data, b.len, 0, NULL));
    }
  }
  fl_buf_free(&b);
  pq_reader_close(r);
  return rows;
}

static void strip_key(json_t *j, const char *key) {
  if (json_is_object(j)) {
    json_object_del(j, key);
    const char *k;
    json_t *v;
    json_object_foreach(j, k, v) strip_key(v, key);
  } else if (json_is_array(j)) {
    size_t i;
    json_t *v;
    json_array_foreach(j, i, v) strip_key(v, key);
  }
}

TEST(nested_projection) {
  /* nullable.impala: ids 1 id, 4 int_map (11 its value), 6 nested_struct
   * (15 A, 16 b, 17 C with 23 E / 24 F deep inside lists, 18 g). The full
   * read is checked against pyarrow by the interop tests; the projection
   * must return exactly the asked-for parts of it. */
  fl_err_t err;
  json_t *full = rows_json("nullable.impala.parquet", NULL, &err);
  CHECK(full != NULL);
  int32_t ids[] = {16, 1, 11, 23};
  pq_read_opts_t o = {.field_ids = ids, .nfield_ids = 4};
  json_t *proj = rows_json("nullable.impala.parquet", &o, &err);
  CHECK(proj != NULL);
  CHECK_EQ(json_array_size(proj), json_array_size(full));
  for (size_t i = 0; i < json_array_size(full); i++) {
    json_t *f = json_array_get(full, i), *p = json_array_get(proj, i);
    CHECK_EQ(json_object_size(p), 3);
    /* Column order: nested_struct (first mention, id 16), id, int_map. */
    void *it = json_object_iter(p);
    CHECK_STR(json_object_iter_key(it), "nested_struct");
    it = json_object_iter_next(p, it);
    CHECK_STR(json_object_iter_key(it), "id");
    CHECK(json_equal(json_object_get(p, "id"), json_object_get(f, "id")));
    CHECK(json_equal(json_object_get(p, "int_map"), json_object_get(f, "int_map")));
    json_t *want = json_deep_copy(json_object_get(f, "nested_struct"));
    if (json_is_object(want)) {
      json_object_del(want, "A");
      json_object_del(want, "g");
      strip_key(json_object_get(want, "C"), "F");
    }
    bool same = json_equal(json_object_get(p, "nested_struct"), want);
    if (!same) {
      char *a = json_dumps(json_object_get(p, "nested_struct"), 0), *b = json_dumps(want, 0);
      t_fail(__FILE__, __LINE__, "row %zu: %s != %s", i, a, b);
      free(a);
      free(b);
    }
    json_decref(want);
    CHECK(same);
  }
  json_decref(full);
  json_decref(proj);
  int32_t missing[] = {999};
  o.field_ids = missing;
  o.nfield_ids = 1;
  pq_reader_t *r;
  CHECK_ERR(pq_reader_open(io_local_fs(), data_path("nullable.impala.parquet"), &o, &r, &err),
            FL_ENOTFOUND);
}
