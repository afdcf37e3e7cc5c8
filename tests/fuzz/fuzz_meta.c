/*
 * fuzz_meta.c - libFuzzer target for table metadata JSON: any input is
 * rejected with an error or parsed; what parses is written, and the
 * written text must parse again into metadata that writes the same text,
 * directly and through a clone.
 */
#include <stdlib.h>
#include <string.h>

#include "iceberg/ice_meta.h"

static void write_text(const ice_meta_t *m, fl_buf_t *b) {
  fl_err_t err;
  if (ice_meta_to_json(m, b, &err) != FL_OK) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 20) return 0;
  fl_err_t err;
  ice_meta_t *m = NULL;
  if (ice_meta_parse((const char *)data, size, "fuzz", &m, &err) != FL_OK) {
    if (m || err.code == FL_OK) abort();
    return 0;
  }
  fl_buf_t b1, b2, b3;
  fl_buf_init(&b1);
  fl_buf_init(&b2);
  fl_buf_init(&b3);
  write_text(m, &b1);
  ice_meta_t *again = NULL;
  if (ice_meta_parse((const char *)b1.data, b1.len, "written", &again, &err) != FL_OK) abort();
  write_text(again, &b2);
  if (b1.len != b2.len || memcmp(b1.data, b2.data, b1.len) != 0) abort();
  ice_meta_t *c = ice_meta_clone(again);
  ice_meta_free(again);
  write_text(c, &b3);
  if (b2.len != b3.len || memcmp(b2.data, b3.data, b2.len) != 0) abort();
  ice_meta_free(c);
  ice_meta_free(m);
  fl_buf_free(&b1);
  fl_buf_free(&b2);
  fl_buf_free(&b3);
  return 0;
}
