/*
 * exec_test_util.h - helpers shared by the executor's unit tests: random
 * batches with NULLs, and rows rendered as text for comparing results.
 */
#ifndef FLOE_EXEC_TEST_UTIL_H
#define FLOE_EXEC_TEST_UTIL_H

#include <stdlib.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "exec/ex_operator.h"
#include "types/value.h"

static inline uint64_t tu_rand(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Appends row i of v as text ("NULL", numbers, [a, b] for lists). */
static inline void tu_format(const ty_vec_t *v, uint32_t i, fl_buf_t *out) {
  if (ty_vec_is_null(v, i)) {
    fl_buf_append_str(out, "NULL");
    return;
  }
  if (v->type->kind == TY_LIST) {
    fl_buf_append_str(out, "[");
    for (int32_t e = v->offsets[i]; e < v->offsets[i + 1]; e++) {
      if (e > v->offsets[i]) fl_buf_append_str(out, ", ");
      tu_format(v->children[0], (uint32_t)e, out);
    }
    fl_buf_append_str(out, "]");
    return;
  }
  ty_value_t x = ty_value_from_vec(v, i);
  ty_value_format(v->type, &x, out);
}

static int tu_strcmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sink's rows as "a|b|c" strings, sorted unless keep_order; free with
 * tu_rows_free. */
static inline char **tu_rows(const ex_sink_t *s, bool keep_order) {
  char **rows = fl_calloc(s->rows + 1, sizeof *rows);
  uint64_t r = 0;
  fl_buf_t b;
  fl_buf_init(&b);
  for (uint32_t bi = 0; bi < s->nbatches; bi++) {
    const ty_batch_t *bt = s->batches[bi];
    for (uint32_t i = 0; i < bt->nrows; i++) {
      fl_buf_clear(&b);
      for (uint32_t c = 0; c < bt->ncols; c++) {
        if (c) fl_buf_append_str(&b, "|");
        tu_format(bt->cols[c], i, &b);
      }
      fl_buf_append_u8(&b, 0);
      rows[r++] = fl_strdup((const char *)b.data);
    }
  }
  fl_buf_free(&b);
  if (!keep_order) qsort(rows, r, sizeof *rows, tu_strcmp);
  return rows;
}

static inline void tu_rows_free(char **rows) {
  for (size_t i = 0; rows[i]; i++) fl_free(rows[i]);
  fl_free(rows);
}

#endif
