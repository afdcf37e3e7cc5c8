/*
 * test_parquet_write.c - the Parquet writer's encoders against bytes worked
 * out by hand from the specs (RLE/bit-packed hybrid, PLAIN, Thrift compact
 * protocol), statistics truncation, dictionary fallback, the schema
 * mapping, and whole files of every type and nesting written to the
 * scratch directory with their metrics checked against the input.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "format/json/json_text.h"
#include "format/parquet/pq_codec.h"
#include "format/parquet/pq_decode.h"
#include "format/parquet/pq_encode.h"
#include "format/parquet/pq_reader.h"
#include "format/parquet/pq_write_int.h"
#include "format/parquet/pq_writer.h"
#include "test.h"
#include "types/gen.h"
#include "types/value.h"

#define BYTES(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})

static bool buf_is(const fl_buf_t *b, const uint8_t *want, size_t n) {
  if (b->len != n || memcmp(b->data, want, n) != 0) {
    fprintf(stderr, "  got %zu bytes:", b->len);
    for (size_t i = 0; i < b->len && i < 64; i++) fprintf(stderr, " %02x", b->data[i]);
    fprintf(stderr, "\n  want %zu bytes:", n);
    for (size_t i = 0; i < n && i < 64; i++) fprintf(stderr, " %02x", want[i]);
    fprintf(stderr, "\n");
    return false;
  }
  return true;
}

static bool rle_is(const uint32_t *v, size_t n, int width, const uint8_t *want, size_t wn) {
  fl_buf_t b;
  fl_buf_init(&b);
  pq__rle_encode(v, n, width, &b);
  bool ok = buf_is(&b, want, wn);
  fl_buf_free(&b);
  return ok;
}

/* ---- the RLE / bit-packed hybrid ---- */

TEST(rle_runs) {
  uint32_t ones[300];
  for (int i = 0; i < 300; i++) ones[i] = 1;
  /* 10 ones, width 1: header 10 << 1 = 0x14, the value in one byte. */
  CHECK(rle_is(ones, 10, 1, BYTES(0x14, 0x01)));
  /* 300 ones: header 600 as a varint (0xd8 0x04). */
  CHECK(rle_is(ones, 300, 1, BYTES(0xd8, 0x04, 0x01)));
  /* Width 9 needs two value bytes, little endian. */
  uint32_t v9[8] = {0x1ff, 0x1ff, 0x1ff, 0x1ff, 0x1ff, 0x1ff, 0x1ff, 0x1ff};
  CHECK(rle_is(v9, 8, 9, BYTES(0x10, 0xff, 0x01)));
  /* Width 32: four value bytes. */
  uint32_t v32[8];
  for (int i = 0; i < 8; i++) v32[i] = 0xdeadbeef;
  CHECK(rle_is(v32, 8, 32, BYTES(0x10, 0xef, 0xbe, 0xad, 0xde)));
  /* Width 0: runs carry no value bytes. */
  uint32_t zeros[10] = {0};
  CHECK(rle_is(zeros, 10, 0, BYTES(0x14)));
}

/* Encoder against the reader's decoder: every width, lengths that end
 * inside a group, and a mix of runs and noise. */
TEST(rle_round_trips_through_the_decoder_at_every_width) {
  enum { N = 1000 };
  uint32_t v[N], back[N];
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int width = 1; width <= 32; width++) {
    uint32_t mask = width == 32 ? 0xFFFFFFFFu : (1u << width) - 1;
    for (size_t n = 1; n <= N; n = n * 3 + 1) {
      for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        /* Runs of a repeated value about half the time. */
        v[i] = (i && (x >> 60) < 8) ? v[i - 1] : (uint32_t)(x >> 11) & mask;
      }
      fl_buf_t b;
      fl_buf_init(&b);
      pq__rle_encode(v, n, width, &b);
      fl_err_t err;
      int rc = pq_rle_decode(b.data, b.len, width, (uint32_t)n, back, NULL, &err);
      fl_buf_free(&b);
      CHECK_OK(rc, &err);
      CHECK_MEM(back, v, n * sizeof *v);
    }
  }
}

TEST(rle_bit_packed) {
  /* The spec's example: 0..7 at width 3 packs to 10001000 11000110 11111010. */
  uint32_t v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  CHECK(rle_is(v, 8, 3, BYTES(0x03, 0x88, 0xc6, 0xfa)));
  /* Fewer than 8 values: one group padded with zeros; width 0 has no bytes. */
  uint32_t z[5] = {0};
  CHECK(rle_is(z, 5, 0, BYTES(0x03)));
  uint32_t w16[2] = {0x1234, 0xabcd};
  CHECK(rle_is(w16, 2, 16,
               BYTES(0x03, 0x34, 0x12, 0xcd, 0xab, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)));
}

TEST(rle_mixed) {
  /* 1 2 3 then twelve zeros at width 2: the zeros first fill the group of
   * eight, the remaining seven are too few for a run, so two groups:
   * header (2 << 1) | 1, 1 | 2 << 2 | 3 << 4 = 0x39, then zero bytes. */
  uint32_t a[15] = {1, 2, 3};
  CHECK(rle_is(a, 15, 2, BYTES(0x05, 0x39, 0x00, 0x00, 0x00)));
  /* 1..7,0 at width 3 (one aligned group) then twenty 7s (an RLE run):
   * 001 010 011 100 101 110 111 000 packed LSB first = d1 58 1f. */
  uint32_t b[28] = {1, 2, 3, 4, 5, 6, 7, 0};
  for (int i = 8; i < 28; i++) b[i] = 7;
  CHECK(rle_is(b, 28, 3, BYTES(0x03, 0xd1, 0x58, 0x1f, 0x28, 0x07)));
  /* A run, a short stretch, a run: 9 fives, 1 2, 8 fives at width 3.
   * The 2-value stretch takes 6 fives to complete its group, leaving 2. */
  uint32_t c[19];
  for (int i = 0; i < 9; i++) c[i] = 5;
  c[9] = 1;
  c[10] = 2;
  for (int i = 11; i < 19; i++) c[i] = 5;
  /* group 1: 1 2 5 5 5 5 5 5 -> 001 010 101 101 101 101 101 101
   *   byte0 = 1 | 2<<3 | (5&3)<<6 = 0x51; byte1 = 5>>2 | 5<<1 | 5<<4 | (5&1)<<7 = 0xdb;
   *   byte2 = 5>>1 | 5<<2 | 5<<5 = 0xb6;
   * group 2: 5 5 0 0 0 0 0 0 -> byte0 = 5 | 5<<3 = 0x2d, 0, 0. */
  CHECK(rle_is(c, 19, 3, BYTES(0x12, 0x05, 0x05, 0x51, 0xdb, 0xb6, 0x2d, 0x00, 0x00)));
}

/* An independent decoder of one bit-packed run for the width sweep. */
static uint32_t unpack(const uint8_t *p, int width, int i) {
  uint64_t v = 0;
  for (int b = 0; b < width; b++) {
    int bit = i * width + b;
    v |= (uint64_t)((p[bit / 8] >> (bit % 8)) & 1) << b;
  }
  return (uint32_t)v;
}

TEST(rle_all_widths) {
  for (int w = 0; w <= 32; w++) {
    uint32_t max = w == 32 ? 0xffffffffu : (uint32_t)((1ull << w) - 1);
    uint32_t v[16];
    for (int i = 0; i < 16; i++) v[i] = (uint32_t)(i * 2654435761u) & max;
    fl_buf_t b;
    fl_buf_init(&b);
    pq__rle_encode(v, 16, w, &b);
    /* Distinct neighbours: one bit-packed run of two groups. */
    bool distinct = true;
    for (int i = 1; i < 16; i++) distinct &= v[i] != v[i - 1];
    if (w >= 4 && distinct) {
      CHECK_EQ(b.len, 1 + 2 * (size_t)w);
      CHECK_EQ(b.data[0], 0x05);
      for (int i = 0; i < 16; i++) CHECK_EQ(unpack(b.data + 1, w, i), v[i]);
    }
    /* Eight copies of max: an RLE run of ceil(w/8) value bytes. */
    uint32_t r[8];
    for (int i = 0; i < 8; i++) r[i] = max;
    fl_buf_clear(&b);
    pq__rle_encode(r, 8, w, &b);
    CHECK_EQ(b.len, 1 + (size_t)(w + 7) / 8);
    CHECK_EQ(b.data[0], 0x10);
    uint32_t got = 0;
    for (int k = 0; k < (w + 7) / 8; k++) got |= (uint32_t)b.data[1 + k] << (8 * k);
    CHECK_EQ(got, max);
    fl_buf_free(&b);
  }
}

TEST(rle_length_prefix) {
  uint32_t ones[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  fl_buf_t b;
  fl_buf_init(&b);
  pq__rle_encode_prefixed(ones, 10, 1, &b);
  CHECK(buf_is(&b, BYTES(0x02, 0x00, 0x00, 0x00, 0x14, 0x01)));
  fl_buf_free(&b);
}

TEST(plain_booleans) {
  uint8_t v[9] = {1, 0, 1, 1, 0, 0, 0, 0, 1};
  fl_buf_t b;
  fl_buf_init(&b);
  pq__plain_bool(v, 9, &b);
  CHECK(buf_is(&b, BYTES(0x0d, 0x01)));
  fl_buf_free(&b);
}

/* ---- Thrift compact protocol ---- */

TEST(thrift_page_header) {
  pq_page_header_t h;
  memset(&h, 0, sizeof h);
  h.type = PQ_PAGE_DATA;
  h.uncompressed_page_size = 100;
  h.compressed_page_size = 50;
  h.has_crc = true;
  h.crc = 7;
  h.has_data_page_header = true;
  h.data_page_header.num_values = 10;
  h.data_page_header.encoding = PQ_ENC_PLAIN;
  h.data_page_header.definition_level_encoding = PQ_ENC_RLE;
  h.data_page_header.repetition_level_encoding = PQ_ENC_RLE;
  fl_buf_t b;
  fl_buf_init(&b);
  pq_meta_write_page_header(&h, &b);
  /* field header = (id delta) << 4 | type (i32 5, struct 12); every field
   * follows its predecessor, so each delta is 1; i32 values are zigzag
   * varints (100 -> 200 = c8 01). */
  CHECK(buf_is(&b, BYTES(0x15, 0x00, 0x15, 0xc8, 0x01, 0x15, 0x64, 0x15, 0x0e, 0x1c, 0x15, 0x14,
                         0x15, 0x00, 0x15, 0x06, 0x15, 0x06, 0x00, 0x00)));
  fl_buf_free(&b);
}

TEST(thrift_file_meta) {
  pq_schema_element_t el[2];
  memset(el, 0, sizeof el);
  el[0].name = "s";
  el[0].has_num_children = true;
  el[0].num_children = 1;
  el[1].name = "t";
  el[1].has_type = el[1].has_repetition = el[1].has_field_id = el[1].has_logical_type = true;
  el[1].type = PQ_INT64;
  el[1].repetition = PQ_OPTIONAL;
  el[1].field_id = 5;
  el[1].logical_type.kind = PQ_LT_TIMESTAMP;
  el[1].logical_type.is_adjusted_to_utc = true;
  el[1].logical_type.unit = PQ_MICROS;
  pq_file_meta_t m;
  memset(&m, 0, sizeof m);
  m.version = 2;
  m.nschema = 2;
  m.schema = el;
  m.created_by = "x";
  m.ncolumn_orders = 1;
  fl_buf_t b;
  fl_buf_init(&b);
  pq_meta_write_file(&m, &b);
  CHECK(buf_is(&b, BYTES(0x15, 0x04,             /* version 2 */
                         0x19, 0x2c,             /* schema (delta 1): list of 2 structs */
                         0x48, 0x01, 's',        /* name (field 4, binary) */
                         0x15, 0x02, 0x00,       /* num_children 1 (delta 1), stop */
                         0x15, 0x04,             /* type INT64 */
                         0x25, 0x02,             /* repetition OPTIONAL (field 3) */
                         0x18, 0x01, 't',        /* name */
                         0x55, 0x0a,             /* field_id 5 (field 9) */
                         0x1c,                   /* logicalType (field 10) */
                         0x8c,                   /* TIMESTAMP (member 8) */
                         0x11,                   /* isAdjustedToUTC true */
                         0x1c, 0x2c, 0x00, 0x00, /* unit: MICROS (member 2) */
                         0x00, 0x00, 0x00,       /* end timestamp, logical type, element */
                         0x16, 0x00,             /* num_rows 0 */
                         0x19, 0x0c,             /* row_groups: empty list */
                         0x28, 0x01, 'x',        /* created_by (field 6) */
                         0x19, 0x1c, 0x1c, 0x00, 0x00, /* column_orders: [TYPE_ORDER {}] */
                         0x00)));
  fl_buf_free(&b);
}

TEST(thrift_column_index) {
  bool nulls[2] = {true, false};
  pq_bytes_t mins[2] = {{(const uint8_t *)"a", 1}, {(const uint8_t *)"", 0}};
  pq_bytes_t maxs[2] = {{(const uint8_t *)"b", 1}, {(const uint8_t *)"", 0}};
  int64_t counts[2] = {0, 3};
  pq_column_index_t ci = {.npages = 2, .null_pages = nulls, .min_values = mins,
                          .max_values = maxs, .boundary_order = PQ_ASCENDING,
                          .has_null_counts = true, .null_counts = counts};
  fl_buf_t b;
  fl_buf_init(&b);
  pq_meta_write_column_index(&ci, &b);
  CHECK(buf_is(&b, BYTES(0x19, 0x21, 0x01, 0x02,       /* list<bool>: 1 true, 2 false */
                         0x19, 0x28, 0x01, 'a', 0x00,  /* list<binary> */
                         0x19, 0x28, 0x01, 'b', 0x00,
                         0x15, 0x02,                   /* boundary_order ASCENDING */
                         0x19, 0x26, 0x00, 0x06,       /* list<i64> 0, 3 */
                         0x00)));
  fl_buf_free(&b);
}

/* ---- statistics truncation ---- */

TEST(truncate_bounds) {
  fl_buf_t b;
  fl_buf_init(&b);
  /* Short values are kept whole. */
  CHECK_EQ(pq__truncate_min((const uint8_t *)"abc", 3, 64, true), 3);
  CHECK(pq__truncate_max((const uint8_t *)"abc", 3, 64, true, &b));
  CHECK(buf_is(&b, BYTES('a', 'b', 'c')));
  /* Binary: a prefix for min, the prefix with its last byte incremented for max. */
  CHECK_EQ(pq__truncate_min((const uint8_t *)"abcdef", 6, 4, false), 4);
  CHECK(pq__truncate_max((const uint8_t *)"abcdef", 6, 4, false, &b));
  CHECK(buf_is(&b, BYTES('a', 'b', 'c', 'e')));
  /* Trailing 0xff bytes carry. */
  CHECK(pq__truncate_max(BYTES(0x61, 0xff, 0xff, 0x01), 3, false, &b));
  CHECK(buf_is(&b, BYTES(0x62)));
  /* All 0xff: no upper bound exists. */
  CHECK(!pq__truncate_max(BYTES(0xff, 0xff, 0xff), 2, false, &b));
  /* UTF-8: never cut inside a character ("aé" + "b", cut at 2 bytes keeps "a"). */
  const uint8_t s[] = {'a', 0xc3, 0xa9, 'b'};
  CHECK_EQ(pq__truncate_min(s, 4, 2, true), 1);
  CHECK(pq__truncate_max(s, 4, 2, true, &b));
  CHECK(buf_is(&b, BYTES('b')));
  /* "é" incremented is "ê" (U+00EA). */
  CHECK(pq__truncate_max(s, 4, 3, true, &b));
  CHECK(buf_is(&b, BYTES('a', 0xc3, 0xaa)));
  /* U+D7FF increments past the surrogates to U+E000. */
  const uint8_t d7[] = {0xed, 0x9f, 0xbf, 'z'};
  CHECK(pq__truncate_max(d7, 4, 3, true, &b));
  CHECK(buf_is(&b, BYTES(0xee, 0x80, 0x80)));
  /* U+10FFFF cannot grow: carry into the previous character. */
  const uint8_t top[] = {'a', 0xf4, 0x8f, 0xbf, 0xbf, 'z'};
  CHECK(pq__truncate_max(top, 6, 5, true, &b));
  CHECK(buf_is(&b, BYTES('b')));
  fl_buf_free(&b);
}

/* ---- the dictionary ---- */

TEST(dictionary_entries) {
  pq__dict_t d;
  pq__dict_init(&d, 0);
  pq__span_t v[5] = {{(const uint8_t *)"x", 1}, {(const uint8_t *)"yy", 2},
                     {(const uint8_t *)"x", 1}, {(const uint8_t *)"", 0}, {(const uint8_t *)"yy", 2}};
  uint32_t idx[5];
  pq__dict_put_spans(&d, v, 5, idx);
  CHECK_EQ(d.n, 3);
  CHECK(idx[0] == 0 && idx[1] == 1 && idx[2] == 0 && idx[3] == 2 && idx[4] == 1);
  /* The values are the PLAIN dictionary page: 4-byte lengths and bytes. */
  CHECK(buf_is(&d.vals, BYTES(1, 0, 0, 0, 'x', 2, 0, 0, 0, 'y', 'y', 0, 0, 0, 0)));
  pq__dict_free(&d);
  /* Many fixed-width values: the table grows and indexes stay stable. */
  pq__dict_init(&d, 8);
  int64_t *vals = fl_malloc(100000 * sizeof *vals);
  uint32_t *out = fl_malloc(100000 * sizeof *out);
  for (int i = 0; i < 100000; i++) vals[i] = (int64_t)(i % 5000) * 7919 - 12345;
  pq__dict_put_fixed(&d, (const uint8_t *)vals, 100000, out);
  CHECK_EQ(d.n, 5000);
  for (int i = 0; i < 100000; i++) {
    CHECK_EQ(out[i], i % 5000);
  }
  int64_t e;
  memcpy(&e, d.vals.data + 8 * 4999, 8);
  CHECK_EQ(e, (int64_t)4999 * 7919 - 12345);
  fl_free(vals);
  fl_free(out);
  pq__dict_free(&d);
}

/* ---- codecs ---- */

TEST(codec_names) {
  fl_err_t err;
  pq_codec_t c;
  CHECK_OK(pq_codec_parse("ZSTD", &c, &err), &err);
  CHECK_EQ(c, PQ_CODEC_ZSTD);
  CHECK_OK(pq_codec_parse("lz4_raw", &c, &err), &err);
  CHECK_EQ(c, PQ_CODEC_LZ4_RAW);
  CHECK_OK(pq_codec_parse("none", &c, &err), &err);
  CHECK_EQ(c, PQ_CODEC_UNCOMPRESSED);
  CHECK_ERR(pq_codec_parse("brotli9", &c, &err), FL_EINVALID);
  /* gzip framing starts with the gzip magic. */
  fl_buf_t b;
  fl_buf_init(&b);
  CHECK_OK(pq_compress(PQ_CODEC_GZIP, 0, (const uint8_t *)"hello hello hello", 17, &b, &err), &err);
  CHECK(b.len > 10 && b.data[0] == 0x1f && b.data[1] == 0x8b);
  fl_buf_free(&b);
}

/* ---- schema mapping ---- */

TEST(schema_mapping) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *s;
  CHECK_OK(ty_schema_parse(a, "id long not null, price decimal(38,2), d9 decimal(9,1), "
                              "d18 decimal(18,0), d10 decimal(10,0), tags list<string not null>, "
                              "m map<string, timestamptz>, p struct<x: uuid, y: fixed(3)>",
                           &s, &err),
           &err);
  pq__schema_t ps;
  CHECK_OK(pq__schema_from_iceberg(a, s, &ps, &err), &err);
  CHECK_EQ(ps.nleaves, 10);
  const pq_schema_element_t *e = ps.elems;
  /* root, id, price, d9, d18, d10, tags, list, element, m, key_value, key, value, p, x, y */
  CHECK_EQ(ps.nelems, 16);
  CHECK_EQ(e[0].num_children, 8);
  CHECK(e[1].type == PQ_INT64 && e[1].repetition == PQ_REQUIRED && e[1].field_id == 1);
  CHECK(e[2].type == PQ_FIXED_LEN_BYTE_ARRAY && e[2].type_length == 16);
  CHECK(e[2].converted_type == PQ_CT_DECIMAL && e[2].precision == 38 && e[2].scale == 2);
  CHECK(e[2].logical_type.kind == PQ_LT_DECIMAL && e[2].repetition == PQ_OPTIONAL);
  CHECK(e[3].type == PQ_INT32 && e[4].type == PQ_INT64);
  /* 10 digits need 5 bytes (2^39 > 10^10 - 1). */
  CHECK(e[5].type == PQ_INT64);
  CHECK_EQ(pq__decimal_bytes(10), 5);
  CHECK_EQ(pq__decimal_bytes(19), 9);
  CHECK_EQ(pq__decimal_bytes(38), 16);
  CHECK_STR(e[6].name, "tags");
  CHECK(e[6].converted_type == PQ_CT_LIST && e[6].logical_type.kind == PQ_LT_LIST);
  CHECK(e[7].repetition == PQ_REPEATED && strcmp(e[7].name, "list") == 0 && !e[7].has_field_id);
  const ty_field_t *tags = &s->root.fields[5];
  CHECK(e[8].repetition == PQ_REQUIRED && e[8].field_id == tags->type->fields[0].id);
  CHECK_STR(e[8].name, "element");
  const ty_field_t *m = &s->root.fields[6];
  CHECK(e[9].converted_type == PQ_CT_MAP && strcmp(e[10].name, "key_value") == 0);
  CHECK(e[11].repetition == PQ_REQUIRED && e[11].field_id == m->type->fields[0].id);
  CHECK(e[12].field_id == m->type->fields[1].id && e[12].logical_type.kind == PQ_LT_TIMESTAMP);
  CHECK(e[12].logical_type.is_adjusted_to_utc && e[12].logical_type.unit == PQ_MICROS);
  CHECK(e[14].logical_type.kind == PQ_LT_UUID && e[14].type_length == 16);
  CHECK(e[15].type == PQ_FIXED_LEN_BYTE_ARRAY && e[15].type_length == 3 && !e[15].has_logical_type);
  /* Levels: tags.list.element max def 2 (optional tags, repeated), rep 1. */
  const pq__leaf_t *l = &ps.leaves[5];
  CHECK_EQ(l->max_def, 2);
  CHECK_EQ(l->max_rep, 1);
  CHECK_EQ(l->npath, 3);
  CHECK_STR(l->path[1], "list");
  /* m.key_value.value: optional m, repeated, optional value = 3. */
  CHECK_EQ(ps.leaves[7].max_def, 3);
  CHECK_EQ(ps.leaves[6].max_def, 2);
  fl_arena_free(a);
}

/* ---- whole files ---- */

static const char *tmp_path(const char *name) {
  static char p[1024];
  snprintf(p, sizeof p, "%s/%s", t_tmpdir(), name);
  return p;
}

/* Reads the file and checks its frame: magic at both ends and a footer length that fits. */
static bool file_frame_ok(const char *path, int64_t size) {
  uint8_t *data;
  size_t n;
  fl_err_t err;
  if (io_read_all(io_local_fs(), path, (size_t)1 << 30, &data, &n, &err)) return false;
  bool ok = n >= 12 && (int64_t)n == size && memcmp(data, "PAR1", 4) == 0 &&
            memcmp(data + n - 4, "PAR1", 4) == 0 && fl_load_le32(data + n - 8) <= n - 12;
  fl_free(data);
  return ok;
}

typedef struct truth {
  int64_t nulls, nans;
  bool has;
  ty_value_t lo, hi;
} truth_t;

/* Null count and bounds of a flat vector's selected rows, computed here. */
static truth_t truth_of(const ty_vec_t *v, const uint32_t *rows, uint32_t n) {
  truth_t t = {0};
  for (uint32_t k = 0; k < n; k++) {
    uint32_t r = rows ? rows[k] : k;
    if (ty_vec_is_null(v, r)) {
      t.nulls++;
      continue;
    }
    ty_value_t x = ty_value_from_vec(v, r);
    if ((x.kind == TY_FLOAT && isnan(x.u.f32)) || (x.kind == TY_DOUBLE && isnan(x.u.f64))) {
      t.nans++;
      continue;
    }
    if (!t.has) {
      t.lo = t.hi = x;
      t.has = true;
      continue;
    }
    if (ty_value_cmp(&x, &t.lo) < 0) t.lo = x;
    if (ty_value_cmp(&x, &t.hi) > 0) t.hi = x;
  }
  return t;
}

static bool value_eq(const ty_value_t *a, const ty_value_t *b) {
  if (a->kind == TY_FLOAT && a->u.f32 == 0 && b->u.f32 == 0) return true; /* sign per the spec */
  if (a->kind == TY_DOUBLE && a->u.f64 == 0 && b->u.f64 == 0) return true;
  return ty_value_cmp(a, b) == 0;
}

static const char *FLAT =
    "b boolean, i int, l long not null, f float, d double, dc decimal(9,2), dl decimal(18,3), "
    "dx decimal(38,10), dt date, t time, ts timestamp, tz timestamptz, tn timestamp_ns, "
    "tzn timestamptz_ns, s string, u uuid, fx fixed(5), bn binary";

static void write_flat(const fmt_write_opts_t *o, const char *name, bool select) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *s;
  CHECK_OK(ty_schema_parse(a, FLAT, &s, &err), &err);
  ty_gen_opts_t go = {.seed = 42, .null_fraction = 0.2, .edge_fraction = 0.1};
  ty_gen_t *g = ty_gen_new(&go);
  ty_batch_t *b = ty_batch_new(s, TY_BATCH_ROWS);
  ty_gen_fill(g, b, 1500);
  uint32_t *sel = NULL, nsel = b->nrows;
  if (select) {
    sel = fl_malloc(b->nrows * sizeof *sel);
    nsel = 0;
    for (uint32_t r = 0; r < b->nrows; r += 3) sel[nsel++] = r;
    ty_batch_select(b, sel, nsel);
  }
  pq_writer_t *w;
  const char *path = tmp_path(name);
  CHECK_OK(pq_writer_open(io_local_fs(), path, s, o, &w, &err), &err);
  pq_writer_add_kv(w, "iceberg.schema", "{}");
  /* The same batch twice: 2 x 1500 rows (or the selection twice). */
  CHECK_OK(pq_writer_write(w, b, &err), &err);
  CHECK_OK(pq_writer_write(w, b, &err), &err);
  CHECK_OK(pq_writer_close(w, &err), &err);
  const pq_file_metrics_t *m = pq_writer_metrics(w);
  CHECK(m != NULL);
  CHECK_EQ(m->record_count, 2 * (int64_t)nsel);
  CHECK(file_frame_ok(path, m->file_size));
  CHECK_EQ(m->ncolumns, s->root.nfields);
  for (uint32_t c = 0; c < m->ncolumns; c++) {
    const pq_column_metrics_t *cm = &m->columns[c];
    CHECK_EQ(cm->field_id, s->root.fields[c].id);
    truth_t t = truth_of(b->cols[c], sel, nsel);
    CHECK_EQ(cm->value_count, 2 * (int64_t)nsel);
    CHECK_EQ(cm->null_count, 2 * t.nulls);
    if (cm->type->kind == TY_FLOAT || cm->type->kind == TY_DOUBLE)
      CHECK_EQ(cm->nan_count, 2 * t.nans);
    else
      CHECK_EQ(cm->nan_count, -1);
    CHECK(cm->compressed_bytes > 0);
    CHECK_EQ(cm->has_bounds, t.has);
    if (t.has) {
      CHECK(value_eq(&cm->lower, &t.lo));
      CHECK(value_eq(&cm->upper, &t.hi));
    }
  }
  uint32_t nrg;
  const pq_row_group_t *rg = pq__writer_row_groups(w, &nrg);
  CHECK_EQ(nrg, m->nsplit_offsets);
  int64_t rows = 0;
  for (uint32_t i = 0; i < nrg; i++) {
    rows += rg[i].num_rows;
    CHECK_EQ(rg[i].file_offset, m->split_offsets[i]);
    for (uint32_t c = 0; c < rg[i].ncolumns; c++) {
      CHECK(rg[i].columns[c].has_offset_index);
      CHECK(rg[i].columns[c].meta_data.has_statistics);
    }
  }
  CHECK_EQ(rows, m->record_count);
  if (o && o->row_group_rows) CHECK_EQ(nrg, (uint32_t)((rows + o->row_group_rows - 1) / o->row_group_rows));
  pq_writer_free(w);
  fl_free(sel);
  ty_batch_free(b);
  ty_gen_free(g);
  fl_arena_free(a);
}

TEST(file_flat_defaults) { write_flat(NULL, "flat.parquet", false); }

TEST(file_flat_variants) {
  fmt_write_opts_t o = {.compression = "snappy", .data_page_v2 = true, .row_group_rows = 1000,
                        .page_bytes = 2048};
  write_flat(&o, "flat_v2.parquet", false);
  fmt_write_opts_t p = {.compression = "gzip", .no_dictionary = true, .row_group_rows = 777};
  write_flat(&p, "flat_plain.parquet", true);
  fmt_write_opts_t q = {.compression = "lz4_raw", .page_bytes = 512};
  write_flat(&q, "flat_lz4.parquet", true);
  fmt_write_opts_t u = {.compression = "uncompressed", .row_group_bytes = 4096};
  write_flat(&u, "flat_small_groups.parquet", false);
}

TEST(file_nested) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *s;
  CHECK_OK(ty_schema_parse(a,
                           "id long not null, li list<int>, mp map<string, list<double>>, "
                           "st struct<x: double, y: list<struct<z: string, w: decimal(38,2)>>>, "
                           "ll list<list<long not null>>",
                           &s, &err),
           &err);
  ty_gen_opts_t go = {.seed = 5, .null_fraction = 0.25};
  ty_gen_t *g = ty_gen_new(&go);
  ty_batch_t *b = ty_batch_new(s, TY_BATCH_ROWS);
  pq_writer_t *w;
  fmt_write_opts_t o = {.page_bytes = 1024, .row_group_rows = 3000};
  CHECK_OK(pq_writer_open(io_local_fs(), tmp_path("nested.parquet"), s, &o, &w, &err), &err);
  int64_t list_levels = 0;
  for (int k = 0; k < 4; k++) {
    ty_batch_reset(b);
    ty_gen_fill(g, b, 2000);
    /* li's levels: one per element, one per null or empty list. */
    const ty_vec_t *li = b->cols[1];
    for (uint32_t r = 0; r < li->len; r++) {
      int32_t n = li->offsets[r + 1] - li->offsets[r];
      list_levels += ty_vec_is_null(li, r) || n == 0 ? 1 : n;
    }
    CHECK_OK(pq_writer_write(w, b, &err), &err);
  }
  CHECK_OK(pq_writer_close(w, &err), &err);
  const pq_file_metrics_t *m = pq_writer_metrics(w);
  CHECK_EQ(m->record_count, 8000);
  CHECK_EQ(m->nsplit_offsets, 3);
  CHECK(file_frame_ok(tmp_path("nested.parquet"), m->file_size));
  /* Leaves: id, li.element, mp.key, mp.value.element, st.x, st.y.z, st.y.w, ll.element.element */
  CHECK_EQ(m->ncolumns, 8);
  CHECK_EQ(m->columns[1].value_count, list_levels);
  CHECK(!m->columns[1].has_bounds); /* inside a list */
  CHECK(m->columns[4].has_bounds || m->columns[4].null_count == 8000);
  uint32_t nrg;
  const pq_row_group_t *rg = pq__writer_row_groups(w, &nrg);
  CHECK_EQ(rg[0].columns[1].meta_data.npath, 3);
  CHECK_STR(rg[0].columns[7].meta_data.path_in_schema[3], "list");
  pq_writer_free(w);
  ty_batch_free(b);
  ty_gen_free(g);
  fl_arena_free(a);
}

static bool has_encoding(const pq_column_meta_t *m, pq_encoding_t e) {
  for (uint32_t i = 0; i < m->nencodings; i++)
    if (m->encodings[i] == e) return true;
  return false;
}

static int32_t pages_with(const pq_column_meta_t *m, pq_encoding_t e) {
  for (uint32_t i = 0; i < m->nencoding_stats; i++)
    if (m->encoding_stats[i].encoding == e && m->encoding_stats[i].page_type != PQ_PAGE_DICTIONARY)
      return m->encoding_stats[i].count;
  return 0;
}

TEST(dictionary_fallback) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *s;
  CHECK_OK(ty_schema_parse(a, "few int not null, grows long not null, unique string not null", &s,
                           &err),
           &err);
  ty_batch_t *b = ty_batch_new(s, TY_BATCH_ROWS);
  pq_writer_t *w;
  fmt_write_opts_t o = {.page_bytes = 4096, .dict_page_bytes = 8000};
  CHECK_OK(pq_writer_open(io_local_fs(), tmp_path("dict.parquet"), s, &o, &w, &err), &err);
  int64_t row = 0;
  for (int k = 0; k < 10; k++) {
    ty_batch_reset(b);
    for (uint32_t r = 0; r < TY_BATCH_ROWS; r++, row++) {
      ty_vec_append_i32(b->cols[0], (int32_t)(row % 7));
      ty_vec_append_i64(b->cols[1], row / 4);
      char txt[32];
      int n = snprintf(txt, sizeof txt, "value-%lld", (long long)row * 7919);
      ty_vec_append_bytes(b->cols[2], txt, (size_t)n);
    }
    ty_batch_seal(b);
    CHECK_OK(pq_writer_write(w, b, &err), &err);
  }
  CHECK_OK(pq_writer_close(w, &err), &err);
  uint32_t nrg;
  const pq_row_group_t *rg = pq__writer_row_groups(w, &nrg);
  CHECK_EQ(nrg, 1);
  /* Seven distinct values: a dictionary throughout. */
  const pq_column_meta_t *few = &rg[0].columns[0].meta_data;
  CHECK(few->has_dictionary_page_offset && has_encoding(few, PQ_ENC_RLE_DICTIONARY));
  CHECK(pages_with(few, PQ_ENC_RLE_DICTIONARY) >= 1 && pages_with(few, PQ_ENC_PLAIN) == 0);
  /* Values repeated 4 times: the dictionary pays off at first, then
   * outgrows 8000 bytes and the later pages are PLAIN. */
  const pq_column_meta_t *grows = &rg[0].columns[1].meta_data;
  CHECK(grows->has_dictionary_page_offset);
  CHECK(pages_with(grows, PQ_ENC_RLE_DICTIONARY) >= 1 && pages_with(grows, PQ_ENC_PLAIN) >= 1);
  CHECK(has_encoding(grows, PQ_ENC_PLAIN) && has_encoding(grows, PQ_ENC_RLE_DICTIONARY));
  /* Unique strings: the dictionary never pays off, no dictionary page at all. */
  const pq_column_meta_t *uniq = &rg[0].columns[2].meta_data;
  CHECK(!uniq->has_dictionary_page_offset && !has_encoding(uniq, PQ_ENC_RLE_DICTIONARY));
  CHECK(pages_with(uniq, PQ_ENC_PLAIN) > 1);
  /* Chunk statistics of the sequence column are exact. */
  const pq_statistics_t *st = &grows->statistics;
  CHECK(st->has_min_value && st->has_max_value && st->min_value.n == 8);
  CHECK_EQ((int64_t)fl_load_le64(st->min_value.p), 0);
  CHECK_EQ((int64_t)fl_load_le64(st->max_value.p), (row - 1) / 4);
  CHECK(rg[0].columns[1].has_column_index);
  pq_writer_free(w);
  ty_batch_free(b);
  fl_arena_free(a);
}

TEST(string_statistics_truncated) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *s;
  CHECK_OK(ty_schema_parse(a, "s string, f double", &s, &err), &err);
  ty_batch_t *b = ty_batch_new(s, 16);
  char lo[100], hi[100];
  memset(lo, 'a', 99);
  memset(hi, 'z', 99);
  lo[99] = hi[99] = 0;
  ty_vec_append_bytes(b->cols[0], hi, 99);
  ty_vec_append_bytes(b->cols[0], lo, 99);
  ty_vec_append_null(b->cols[0]);
  ty_vec_append_f64(b->cols[1], -0.0);
  ty_vec_append_f64(b->cols[1], NAN);
  ty_vec_append_f64(b->cols[1], 0.0);
  ty_batch_seal(b);
  pq_writer_t *w;
  CHECK_OK(pq_writer_open(io_local_fs(), tmp_path("trunc.parquet"), s, NULL, &w, &err), &err);
  CHECK_OK(pq_writer_write(w, b, &err), &err);
  CHECK_OK(pq_writer_close(w, &err), &err);
  uint32_t nrg;
  const pq_row_group_t *rg = pq__writer_row_groups(w, &nrg);
  const pq_statistics_t *st = &rg[0].columns[0].meta_data.statistics;
  CHECK_EQ(st->null_count, 1);
  CHECK(st->min_value.n == 64 && memcmp(st->min_value.p, lo, 64) == 0 && !st->is_min_value_exact);
  /* "zzz...z" (64) + 1 carries nothing: the last 'z' becomes '{'. */
  CHECK(st->max_value.n == 64 && memcmp(st->max_value.p, hi, 63) == 0 && st->max_value.p[63] == '{');
  CHECK(st->has_is_max_value_exact && !st->is_max_value_exact);
  CHECK(!st->has_min && !st->has_max); /* no deprecated fields for byte arrays */
  /* Doubles: NaN ignored, a zero minimum written as -0.0 and maximum as +0.0. */
  const pq_statistics_t *fs = &rg[0].columns[1].meta_data.statistics;
  double mn, mx;
  memcpy(&mn, fs->min_value.p, 8);
  memcpy(&mx, fs->max_value.p, 8);
  CHECK(mn == 0 && signbit(mn) && mx == 0 && !signbit(mx));
  const pq_file_metrics_t *m = pq_writer_metrics(w);
  CHECK_EQ(m->columns[1].nan_count, 1);
  CHECK_EQ(m->columns[0].upper.u.bytes.n, 99); /* metrics keep the exact values */
  pq_writer_free(w);
  ty_batch_free(b);
  fl_arena_free(a);
}

TEST(empty_file_and_errors) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *s;
  CHECK_OK(ty_schema_parse(a, "a int not null, b list<string>", &s, &err), &err);
  pq_writer_t *w;
  CHECK_OK(pq_writer_open(io_local_fs(), tmp_path("empty.parquet"), s, NULL, &w, &err), &err);
  CHECK_OK(pq_writer_close(w, &err), &err);
  const pq_file_metrics_t *m = pq_writer_metrics(w);
  CHECK_EQ(m->record_count, 0);
  CHECK_EQ(m->nsplit_offsets, 0);
  CHECK(file_frame_ok(tmp_path("empty.parquet"), m->file_size));
  pq_writer_free(w);
  /* A null in a required column is refused, and the file never appears. */
  ty_batch_t *b = ty_batch_new(s, 4);
  ty_vec_append_null(b->cols[0]);
  ty_vec_append_null(b->cols[1]);
  ty_batch_seal(b);
  CHECK_OK(pq_writer_open(io_local_fs(), tmp_path("bad.parquet"), s, NULL, &w, &err), &err);
  CHECK_ERR(pq_writer_write(w, b, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "'a'") != NULL);
  pq_writer_abort(w);
  bool exists = true;
  CHECK_OK(io_local_fs()->exists(io_local_fs(), tmp_path("bad.parquet"), &exists, &err), &err);
  CHECK(!exists);
  fmt_write_opts_t o = {.compression = "lzo"};
  CHECK_ERR(pq_writer_open(io_local_fs(), tmp_path("x.parquet"), s, &o, &w, &err), FL_EINVALID);
  ty_batch_free(b);
  fl_arena_free(a);
}

static bool read_file(const char *path, uint8_t **data, size_t *n) {
  fl_err_t err;
  return io_read_all(io_local_fs(), path, (size_t)1 << 30, data, n, &err) == FL_OK;
}

TEST(selection_equals_compacted_batch) {
  /* Writing a batch through a selection vector must give exactly the file
   * that writing a batch holding only the selected rows gives. */
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *s;
  CHECK_OK(ty_schema_parse(a, "id long not null, li list<string>, m map<int, struct<x: double>>, "
                              "st struct<a: list<int>, b: decimal(20,2)>",
                           &s, &err),
           &err);
  ty_gen_opts_t go = {.seed = 9, .null_fraction = 0.2};
  ty_gen_t *g = ty_gen_new(&go);
  ty_batch_t *b = ty_batch_new(s, TY_BATCH_ROWS);
  ty_gen_fill(g, b, 2000);
  ty_batch_t *c = ty_batch_new(s, TY_BATCH_ROWS);
  uint32_t sel[2000], n = 0;
  for (uint32_t r = 0; r < b->nrows; r++)
    if ((r * 7) % 5 < 2) sel[n++] = r;
  for (uint32_t k = 0; k < n; k++)
    for (uint32_t col = 0; col < c->ncols; col++) ty_vec_append_from(c->cols[col], b->cols[col], sel[k]);
  ty_batch_seal(c);
  ty_batch_select(b, sel, n);
  fmt_write_opts_t o = {.page_bytes = 2048, .row_group_rows = 500};
  const char *names[2] = {"sel.parquet", "compact.parquet"};
  ty_batch_t *batches[2] = {b, c};
  uint8_t *bytes[2];
  size_t len[2];
  for (int i = 0; i < 2; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s", tmp_path(names[i]));
    pq_writer_t *w;
    CHECK_OK(pq_writer_open(io_local_fs(), path, s, &o, &w, &err), &err);
    CHECK_OK(pq_writer_write(w, batches[i], &err), &err);
    CHECK_OK(pq_writer_close(w, &err), &err);
    CHECK_EQ(pq_writer_metrics(w)->record_count, n);
    pq_writer_free(w);
    CHECK(read_file(path, &bytes[i], &len[i]));
  }
  CHECK_EQ(len[0], len[1]);
  CHECK_MEM(bytes[0], bytes[1], len[0]);
  fl_free(bytes[0]);
  fl_free(bytes[1]);
  ty_batch_free(b);
  ty_batch_free(c);
  ty_gen_free(g);
  fl_arena_free(a);
}

/* Renders row r of b as JSON text: a comparison of whole rows, nested
 * values included, that does not depend on how the vectors are laid out. */
static void row_text(const ty_batch_t *b, uint32_t r, fl_buf_t *out) {
  fl_buf_clear(out);
  js_append_row(out, b, r);
}

TEST(read_back_nullable_columns_across_pages) {
  /* Small pages end anywhere inside the reader's batches, so null slots
   * are spread from every bit offset: the flat columns go through the
   * reader's byte-at-a-time validity and fixed-width fast paths (widths
   * 1, 4, 8, 16 and the general width 5, and string offsets), the nested
   * ones through the general path; stretches with no nulls and with only
   * nulls come between. Every row must read back as it was written. */
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *s;
  CHECK_OK(ty_schema_parse(a, "id long not null, b boolean, i int, l long, d double, u uuid, "
                              "dx decimal(38,10), fx fixed(5), s string, li list<int>, "
                              "st struct<x: double, y: list<long>>",
                           &s, &err),
           &err);
  const double fractions[] = {0.3, 0.0, 1.0, 0.05, 0.6};
  enum { NB = sizeof fractions / sizeof fractions[0], ROWS = 1337 };
  ty_batch_t *src[NB];
  const char *path = tmp_path("nullable_pages.parquet");
  fmt_write_opts_t o = {.page_bytes = 300, .row_group_rows = 2500};
  pq_writer_t *w;
  CHECK_OK(pq_writer_open(io_local_fs(), path, s, &o, &w, &err), &err);
  for (int k = 0; k < NB; k++) {
    ty_gen_opts_t go = {.seed = 100 + (uint64_t)k, .null_fraction = fractions[k]};
    ty_gen_t *g = ty_gen_new(&go);
    src[k] = ty_batch_new(s, TY_BATCH_ROWS);
    ty_gen_fill(g, src[k], ROWS);
    ty_gen_free(g);
    CHECK_OK(pq_writer_write(w, src[k], &err), &err);
  }
  CHECK_OK(pq_writer_close(w, &err), &err);
  pq_writer_free(w);

  pq_reader_t *r;
  CHECK_OK(pq_reader_open(io_local_fs(), path, NULL, &r, &err), &err);
  fl_buf_t want, got;
  fl_buf_init(&want);
  fl_buf_init(&got);
  uint64_t row = 0;
  ty_batch_t *bt;
  for (;;) {
    CHECK_OK(pq_reader_next(r, &bt, &err), &err);
    if (!bt) break;
    for (uint32_t i = 0; i < bt->nrows; i++, row++) {
      CHECK(row < (uint64_t)NB * ROWS);
      row_text(src[row / ROWS], (uint32_t)(row % ROWS), &want);
      row_text(bt, i, &got);
      if (want.len != got.len || memcmp(want.data, got.data, want.len) != 0) {
        t_fail(__FILE__, __LINE__, "row %llu: read %.*s, wrote %.*s", (unsigned long long)row,
               (int)got.len, (const char *)got.data, (int)want.len, (const char *)want.data);
        goto done;
      }
    }
  }
  CHECK_EQ(row, (uint64_t)NB * ROWS);
done:
  pq_reader_close(r);
  fl_buf_free(&want);
  fl_buf_free(&got);
  for (int k = 0; k < NB; k++) ty_batch_free(src[k]);
  fl_arena_free(a);
}
