/*
 * fuzz_schema.c - the column-list parser must reject any text with an
 * error, never crash, and re-read what it formats as the same schema.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "types/type.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) return 0;
  char *text = fl_strndup((const char *)data, size);
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *s;
  if (ty_schema_parse(a, text, &s, &err) == FL_OK) {
    fl_buf_t b;
    fl_buf_init(&b);
    ty_schema_format(s, &b);
    fl_buf_append_u8(&b, 0);
    ty_schema_t *again;
    if (ty_schema_parse(a, (const char *)b.data, &again, &err) != FL_OK) abort();
    if (!ty_type_equal(&s->root, &again->root)) abort();
    fl_buf_free(&b);
  }
  fl_arena_free(a);
  fl_free(text);
  return 0;
}
