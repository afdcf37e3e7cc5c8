/*
 * fuzz_json.c - the JSON decoder and schema inference on arbitrary text.
 *
 * Under a fixed schema with nested types: decoding must fail cleanly or
 * succeed; decoding in two chunks split anywhere must give the same rows
 * as one pass; and rows that decoded must survive writer -> decoder
 * unchanged. With inference: inferring and then decoding under the
 * inferred schema must not crash.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "format/json/json_decoder.h"
#include "format/json/json_text.h"

static const char *kSchema =
    "id long not null, name string, score double, f float, ok boolean, n int, "
    "price decimal(10,2), day date, at timestamptz, tn timestamp_ns, t time, u uuid, "
    "raw binary, fx fixed(2), "
    "user struct<name: string, age: int, tags: list<string>, addr: struct<city: string, zip: int>>, "
    "pts list<struct<x: double, y: double not null>>, attrs map<string, long>, "
    "im map<int, list<boolean>>";

static void rows_text(const ty_batch_t *b, fl_buf_t *out) {
  for (uint32_t i = 0; i < b->nrows; i++) {
    js_append_row(out, b, i);
    fl_buf_append_u8(out, '\n');
  }
}

/* Decodes all of text (batch by batch); the rows' canonical text goes to
 * out. split: bytes of the first chunk (more = true), or SIZE_MAX. */
static int decode_all(const ty_schema_t *s, const char *text, size_t n, size_t split, fl_buf_t *out) {
  js_decoder_t *d = js_decoder_new(s, NULL);
  ty_batch_t *b = ty_batch_new(s, 16);
  fl_err_t err;
  int rc = FL_OK;
  size_t off = 0;
  if (split < n) {
    size_t used;
    rc = js_decode_chunk(d, text, split, true, b, &used, &err);
    if (!rc) off = used;
  }
  while (!rc && off < n) {
    rc = js_decode(d, text + off, n - off, b, &err);
    size_t used = js_decoder_consumed(d);
    rows_text(b, out);
    ty_batch_reset(b);
    if (!rc && used == 0) break;
    off += used;
  }
  if (rc) fl_buf_clear(out);
  ty_batch_free(b);
  js_decoder_free(d);
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 16) return 0;
  static fl_arena_t *sa;
  static ty_schema_t *schema;
  if (!schema) {
    fl_err_t err;
    sa = fl_arena_new(0);
    if (ty_schema_parse(sa, kSchema, &schema, &err)) abort();
  }
  size_t split = size ? (size_t)data[0] * size / 256 : 0;
  char *text = fl_malloc(size ? size : 1);
  memcpy(text, data, size);

  fl_buf_t one, two;
  fl_buf_init(&one);
  fl_buf_init(&two);
  int rc1 = decode_all(schema, text, size, (size_t)-1, &one);
  int rc2 = decode_all(schema, text, size, split, &two);
  if (rc1 != rc2) abort();
  if (one.len != two.len || (one.len && memcmp(one.data, two.data, one.len))) abort();
  if (rc1 == FL_OK && one.len) {
    fl_buf_t again;
    fl_buf_init(&again);
    char *copy = fl_malloc(one.len);
    memcpy(copy, one.data, one.len);
    if (decode_all(schema, copy, one.len, (size_t)-1, &again)) abort();
    if (again.len != one.len || memcmp(again.data, one.data, one.len)) abort();
    fl_free(copy);
    fl_buf_free(&again);
  }
  fl_buf_free(&one);
  fl_buf_free(&two);

  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *inferred;
  fl_err_t err;
  if (js_infer_schema(text, size, 0, a, &inferred, &err) == FL_OK) {
    fl_buf_t out;
    fl_buf_init(&out);
    decode_all(inferred, text, size, split, &out);
    fl_buf_free(&out);
  }
  fl_arena_free(a);
  fl_free(text);
  return 0;
}
