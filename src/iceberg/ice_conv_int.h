/*
 * ice_conv_int.h - helpers shared inside the iceberg layer by the value
 * serializations and the transforms (layer 5, iceberg; private).
 */
#ifndef FL_ICEBERG_ICE_CONV_INT_H
#define FL_ICEBERG_ICE_CONV_INT_H

#include <stddef.h>
#include <stdint.h>

#include "types/type.h"

/*
 * Writes the minimal big-endian two's complement of v (what Java's
 * BigInteger.toByteArray gives: 0 is one zero byte) into out and returns
 * its length (1..16).
 */
size_t ice__decimal_bytes(fl_i128 v, uint8_t out[16]);

/* Byte length of the UTF-8 sequence starting with lead byte b (1 for
 * bytes that cannot start one, so malformed text still advances). */
static inline size_t ice__utf8_len(uint8_t b) {
  if (b < 0xC0) return 1;
  if (b < 0xE0) return 2;
  if (b < 0xF0) return 3;
  return b < 0xF8 ? 4 : 1;
}

/* Byte length of the first max_cp code points of s[0..n). */
size_t ice__utf8_prefix(const uint8_t *s, size_t n, size_t max_cp);

#endif
