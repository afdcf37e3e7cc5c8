/*
 * ex_sortkey.h - normalized sort keys: ORDER BY columns encoded into one
 * byte string per row whose unsigned byte order (memcmp, shorter first on
 * a common prefix) is the ORDER BY order (layer 8, exec).
 *
 * Sorting, merging spilled runs and top-N then compare rows with memcmp
 * alone: no per-row type dispatch, and spilled runs carry their keys. Per
 * column, in key order:
 *   a marker byte: 1 for a value; a NULL is 0 (NULLS FIRST) or 2 (NULLS
 *     LAST) and has no value bytes, so its place ignores ASC/DESC;
 *   the value, big-endian with the sign bit flipped (integers, decimals,
 *     temporal values); floats as their bits with negative values inverted
 *     (so -inf < ... < -0.0 = 0.0 < ... < +inf < NaN, every NaN alike, as
 *     Trino orders doubles); uuid and fixed as their bytes; strings and
 *     binary as their bytes with 0x00 escaped to 0x00 0xFF and a 0x00 0x00
 *     terminator, so that a prefix sorts first (UTF-8 byte order is code
 *     point order);
 *   for DESC the value bytes inverted.
 * Nested types are not orderable here and are refused at set-up.
 */
#ifndef FL_EXEC_EX_SORTKEY_H
#define FL_EXEC_EX_SORTKEY_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"
#include "types/vec.h"

typedef struct ex_sort_key {
  uint32_t col;
  bool desc;
  bool nulls_first; /* Trino's default is NULLS LAST for ASC and DESC alike */
} ex_sort_key_t;

typedef struct ex_sortkey ex_sortkey_t;

/* Checks the columns exist and are orderable; keys are copied. */
int ex_sortkey_new(const ty_schema_t *schema, const ex_sort_key_t *keys, uint32_t nkeys,
                   ex_sortkey_t **out, fl_err_t *err);
void ex_sortkey_free(ex_sortkey_t *k);

/*
 * Appends the keys of rows[0..n) (NULL: 0..n-1) of b to out; offsets[i]
 * receives the start of row i's key within out (relative to out->data),
 * offsets[n] the end.
 */
void ex_sortkey_encode(const ex_sortkey_t *k, const ty_batch_t *b, const uint32_t *rows, uint32_t n,
                       fl_buf_t *out, uint64_t *offsets);

/* memcmp order of two keys. */
static inline int ex_sortkey_cmp(const uint8_t *a, size_t na, const uint8_t *b, size_t nb) {
  size_t n = na < nb ? na : nb;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return c;
  return (na > nb) - (na < nb);
}

#endif
