/*
 * pq_encode.h - Parquet value and level encodings for the writer (layer 4,
 * format/parquet, private): the RLE/bit-packed hybrid, PLAIN booleans, and
 * the dictionary that RLE_DICTIONARY pages index into.
 */
#ifndef FL_FORMAT_PARQUET_PQ_ENCODE_H
#define FL_FORMAT_PARQUET_PQ_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* Bits needed to hold max (0 for 0). */
static inline int pq__bit_width(uint32_t max) { return max ? 32 - __builtin_clz(max) : 0; }

/*
 * Appends n values of `width` bits (0..32) in the RLE/bit-packed hybrid:
 * runs of 8 or more equal values become RLE runs, everything else
 * bit-packed groups of 8 (the last group padded with zeros). No length
 * prefix and no bit-width byte; callers add what their page kind needs.
 */
void pq__rle_encode(const uint32_t *v, size_t n, int width, fl_buf_t *out);

/* The same with the 4-byte little-endian length prefix of v1 level data. */
void pq__rle_encode_prefixed(const uint32_t *v, size_t n, int width, fl_buf_t *out);

/* PLAIN booleans: one bit per value, least significant bit first. */
void pq__plain_bool(const uint8_t *v, size_t n, fl_buf_t *out);

/* A byte range: a BYTE_ARRAY value or a fixed-width value. */
typedef struct pq__span {
  const uint8_t *p;
  uint32_t n;
} pq__span_t;

/*
 * A dictionary of distinct values with a hash table over them. Fixed-width
 * values (width > 0) are stored back to back; byte arrays (width 0) in
 * PLAIN form (4-byte length, bytes). Either way `vals` is exactly the
 * PLAIN body of the dictionary page. No allocation per value.
 */
typedef struct pq__dict {
  uint32_t width;
  uint32_t n;       /* entries */
  uint32_t mask;    /* hash table slots - 1 */
  uint32_t *slots;  /* entry index + 1, 0 = empty */
  uint64_t *keys;   /* per slot: the entry's value (widths 4 and 8), else its hash */
  uint32_t *offs;   /* byte arrays: offset of each entry's length prefix in vals */
  uint32_t cap;     /* entries allocated in offs */
  fl_buf_t vals;
} pq__dict_t;

void pq__dict_init(pq__dict_t *d, uint32_t width);
void pq__dict_reset(pq__dict_t *d);
void pq__dict_free(pq__dict_t *d);
/* Adds n fixed-width values (back to back at vals) and writes their entry indexes. */
void pq__dict_put_fixed(pq__dict_t *d, const uint8_t *vals, size_t n, uint32_t *out);
/* Adds n byte arrays and writes their entry indexes. */
void pq__dict_put_spans(pq__dict_t *d, const pq__span_t *vals, size_t n, uint32_t *out);

/*
 * Statistics bounds of byte arrays cut to at most max bytes (strings on a
 * UTF-8 character boundary). pq__truncate_min returns the length of the
 * prefix to keep (a prefix is <= the value). pq__truncate_max writes to
 * out the value itself when it fits, else the shortest value above every
 * value with that prefix (the last byte or code point incremented,
 * carrying past 0xFF / U+10FFFF and skipping surrogates); false when no
 * such value exists (all 0xFF bytes).
 */
size_t pq__truncate_min(const uint8_t *s, size_t n, size_t max, bool utf8);
bool pq__truncate_max(const uint8_t *s, size_t n, size_t max, bool utf8, fl_buf_t *out);

#endif
