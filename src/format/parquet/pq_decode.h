/*
 * pq_decode.h - Parquet's value and level encodings, decoding side
 * (layer 4, format/parquet, private).
 *
 * Each decoder turns the bytes of one page section into exactly `count`
 * values, checks every length against the bytes it was given, and fails
 * with FL_ECORRUPT (naming the encoding and position) instead of reading
 * past the end. Outputs are flat arrays the caller sized for `count`
 * values; nothing here allocates except DELTA_BYTE_ARRAY, which rebuilds
 * its strings into a caller-owned fl_buf_t.
 *
 * Byte arrays come out as (start, len) pairs relative to a base pointer,
 * so PLAIN and DELTA_LENGTH_BYTE_ARRAY values are never copied before they
 * reach a vector's heap.
 */
#ifndef FL_FORMAT_PARQUET_PQ_DECODE_H
#define FL_FORMAT_PARQUET_PQ_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

/* Bits needed for values 0..max (0 for max == 0). */
static inline int pq_bit_width(uint32_t max) {
  int w = 0;
  while (max) {
    w++;
    max >>= 1;
  }
  return w;
}

/*
 * RLE/bit-packed hybrid (no length prefix) with values of bit_width bits
 * (0..32): exactly count values into out. *used (optional) gets the bytes
 * consumed. A final bit-packed run shorter than its header says is
 * accepted when it still holds the values asked for.
 */
int pq_rle_decode(const uint8_t *p, size_t n, int bit_width, uint32_t count, uint32_t *out,
                  size_t *used, fl_err_t *err);
/* The same for repetition and definition levels (16-bit output). */
int pq_rle_decode_levels(const uint8_t *p, size_t n, int bit_width, uint32_t count, uint16_t *out,
                         fl_err_t *err);
/* The deprecated BIT_PACKED level encoding (most significant bit first);
 * *used gets ceil(count * bit_width / 8). */
int pq_bitpacked_levels(const uint8_t *p, size_t n, int bit_width, uint32_t count, uint16_t *out,
                        size_t *used, fl_err_t *err);

/* PLAIN booleans: bit-packed, least significant bit first, 1 byte out each. */
int pq_plain_bool(const uint8_t *p, size_t n, uint32_t count, uint8_t *out, fl_err_t *err);
/* PLAIN BYTE_ARRAY: 4-byte little-endian length then bytes; start[i] is
 * relative to p. *used gets the bytes consumed. */
int pq_plain_bytes(const uint8_t *p, size_t n, uint32_t count, uint32_t *start, uint32_t *len,
                   size_t *used, fl_err_t *err);

/* DELTA_BINARY_PACKED into int32 (is64 false) or int64 values; *used gets
 * the bytes of the whole encoded run (all of its values, even when count
 * is smaller than the run's total). */
int pq_delta_binary(const uint8_t *p, size_t n, uint32_t count, bool is64, void *out, size_t *used,
                    fl_err_t *err);
/* DELTA_LENGTH_BYTE_ARRAY: start[i] is relative to p. */
int pq_delta_length(const uint8_t *p, size_t n, uint32_t count, uint32_t *start, uint32_t *len,
                    size_t *used, fl_err_t *err);
/* DELTA_BYTE_ARRAY: values are rebuilt into heap (appended); start[i] is
 * relative to heap->data as it is after the call. */
int pq_delta_byte_array(const uint8_t *p, size_t n, uint32_t count, fl_buf_t *heap,
                        uint32_t *start, uint32_t *len, fl_err_t *err);
/* BYTE_STREAM_SPLIT of values `width` bytes wide into out (count*width). */
int pq_byte_stream_split(const uint8_t *p, size_t n, uint32_t count, uint32_t width, uint8_t *out,
                         fl_err_t *err);

#endif
