/*
 * pq_decode.c - decoders for Parquet's encodings (layer 4, format/parquet).
 *
 * Bit unpacking reads 64-bit little-endian words at the byte where a value
 * starts (a value of up to 32 bits plus a shift of up to 7 fits in one
 * word); near the end of the input the word is assembled from the bytes
 * that exist, so no read ever passes the end.
 */
#include "format/parquet/pq_decode.h"

#include <string.h>

#include "base/alloc.h"

static inline uint64_t load_word(const uint8_t *p, size_t n, size_t off) {
  uint64_t w = 0;
  if (off + 8 <= n)
    memcpy(&w, p + off, 8);
  else if (off < n)
    memcpy(&w, p + off, n - off);
  return w;
}

static int rd_uvarint(const uint8_t *p, size_t n, size_t *pos, uint64_t *out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= n) return -1;
    uint8_t b = p[(*pos)++];
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return 0;
    }
  }
  return -1;
}

static int rd_zvarint(const uint8_t *p, size_t n, size_t *pos, int64_t *out) {
  uint64_t u;
  if (rd_uvarint(p, n, pos, &u)) return -1;
  *out = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
  return 0;
}

/* Unpacks nv values of bw bits (1..32) starting at bit 0 of src. */
#define PQ__UNPACK(NAME, T)                                                          \
  static void NAME(const uint8_t *src, size_t srclen, int bw, uint32_t nv, T *out) { \
    const uint64_t mask = bw == 64 ? ~0ull : ((1ull << bw) - 1);                     \
    uint32_t i = 0;                                                                  \
    if (bw == 1) {                                                                   \
      for (; i + 8 <= nv; i += 8) {                                                  \
        uint8_t b = src[i >> 3];                                                     \
        out[i] = b & 1;                                                              \
        out[i + 1] = (b >> 1) & 1;                                                   \
        out[i + 2] = (b >> 2) & 1;                                                   \
        out[i + 3] = (b >> 3) & 1;                                                   \
        out[i + 4] = (b >> 4) & 1;                                                   \
        out[i + 5] = (b >> 5) & 1;                                                   \
        out[i + 6] = (b >> 6) & 1;                                                   \
        out[i + 7] = (b >> 7) & 1;                                                   \
      }                                                                              \
    }                                                                                \
    size_t bit = (size_t)i * (size_t)bw;                                             \
    if (srclen >= 8) {                                                               \
      /* Fast path while a whole word can be loaded. */                              \
      for (; i < nv && (bit >> 3) + 8 <= srclen; i++, bit += (size_t)bw) {           \
        uint64_t w;                                                                  \
        memcpy(&w, src + (bit >> 3), 8);                                             \
        out[i] = (T)((w >> (bit & 7)) & mask);                                       \
      }                                                                              \
    }                                                                                \
    for (; i < nv; i++, bit += (size_t)bw)                                           \
      out[i] = (T)((load_word(src, srclen, bit >> 3) >> (bit & 7)) & mask);          \
  }

PQ__UNPACK(unpack32_any, uint32_t)
PQ__UNPACK(unpack16, uint16_t)

/*
 * Groups of 8 values of a constant width bw take exactly bw bytes, so
 * with bw known at compile time every load offset and shift is a
 * constant and the group unrolls into straight-line code. Returns the
 * values unpacked (a multiple of 8), stopping while a word can still be
 * loaded inside srclen.
 */
static inline __attribute__((always_inline)) uint32_t unpack32_k(const uint8_t *src, size_t srclen,
                                                                 const int bw, uint32_t nv,
                                                                 uint32_t *out) {
  const uint64_t mask = (1ull << bw) - 1;
  uint32_t i = 0;
  for (; i + 8 <= nv && (size_t)(i / 8) * bw + (size_t)bw + 8 <= srclen; i += 8) {
    const uint8_t *g = src + (size_t)(i / 8) * bw;
    for (int j = 0; j < 8; j++) {
      uint64_t w;
      memcpy(&w, g + (j * bw) / 8, 8);
      out[i + j] = (uint32_t)((w >> ((j * bw) & 7)) & mask);
    }
  }
  return i;
}

static void unpack32(const uint8_t *src, size_t srclen, int bw, uint32_t nv, uint32_t *out) {
  uint32_t i = 0;
  switch (bw) {
#define PQ__K(K) \
  case K: i = unpack32_k(src, srclen, K, nv, out); break;
    PQ__K(2) PQ__K(3) PQ__K(4) PQ__K(5) PQ__K(6) PQ__K(7) PQ__K(8) PQ__K(9) PQ__K(10) PQ__K(11)
    PQ__K(12) PQ__K(13) PQ__K(14) PQ__K(15) PQ__K(16) PQ__K(17) PQ__K(18) PQ__K(19) PQ__K(20)
#undef PQ__K
    default: break;
  }
  if (i < nv) {
    size_t skip = (size_t)i * (size_t)bw / 8;
    unpack32_any(src + skip, srclen - skip, bw, nv - i, out + i);
  }
}

/* Unpacks values of up to 64 bits (DELTA_BINARY_PACKED miniblocks). */
static void unpack64(const uint8_t *src, size_t srclen, int bw, uint32_t nv, uint64_t *out) {
  if (bw <= 32) {
    const uint64_t mask = bw == 0 ? 0 : ((1ull << bw) - 1);
    size_t bit = 0;
    for (uint32_t i = 0; i < nv; i++, bit += (size_t)bw)
      out[i] = bw ? (load_word(src, srclen, bit >> 3) >> (bit & 7)) & mask : 0;
    return;
  }
  const uint64_t mask = bw == 64 ? ~0ull : ((1ull << bw) - 1);
  size_t bit = 0;
  for (uint32_t i = 0; i < nv; i++, bit += (size_t)bw) {
    size_t byte = bit >> 3;
    unsigned sh = (unsigned)(bit & 7);
    uint64_t lo = load_word(src, srclen, byte);
    uint64_t v = lo >> sh;
    if (sh && (unsigned)bw + sh > 64) {
      uint64_t hi = byte + 8 < srclen ? src[byte + 8] : 0;
      v |= hi << (64 - sh);
    }
    out[i] = v & mask;
  }
}

#define PQ__RLE(NAME, T, UNPACK)                                                                  \
  static int NAME(const uint8_t *p, size_t n, int bw, uint32_t count, T *out, size_t *used,       \
                  const char *what, fl_err_t *err) {                                              \
    if (bw < 0 || bw > 32)                                                                        \
      return fl_err_set(err, FL_ECORRUPT, "%s: bit width %d out of range", what, bw);             \
    size_t pos = 0;                                                                               \
    uint32_t got = 0;                                                                             \
    const size_t vbytes = ((size_t)bw + 7) / 8;                                                   \
    while (got < count) {                                                                         \
      uint64_t h;                                                                                 \
      if (rd_uvarint(p, n, &pos, &h))                                                             \
        return fl_err_set(err, FL_ECORRUPT, "%s: data ends after %u of %u values", what, got,    \
                          count);                                                                 \
      uint32_t want = count - got;                                                                \
      if (h & 1) {                                                                                \
        uint64_t groups = h >> 1;                                                                 \
        size_t avail = n - pos;                                                                   \
        uint64_t nv;                                                                              \
        size_t bytes;                                                                             \
        if (bw == 0) {                                                                            \
          nv = groups * 8;                                                                        \
          bytes = 0;                                                                              \
          if (groups > UINT32_MAX) nv = UINT32_MAX;                                               \
        } else if (groups <= avail / (size_t)bw) {                                                \
          nv = groups * 8;                                                                        \
          bytes = (size_t)groups * (size_t)bw;                                                    \
        } else {                                                                                  \
          nv = (uint64_t)avail * 8 / (uint64_t)bw;                                                \
          bytes = avail;                                                                          \
        }                                                                                         \
        uint32_t take = nv < want ? (uint32_t)nv : want;                                          \
        if (take == 0 && groups)                                                                  \
          return fl_err_set(err, FL_ECORRUPT, "%s: bit-packed run past the end at byte %zu",    \
                            what, pos);                                                           \
        if (bw == 0)                                                                              \
          memset(out + got, 0, (size_t)take * sizeof(T));                                         \
        else                                                                                      \
          /* Bytes past the run up to the end of the data may be loaded (the     \
           * mask drops their bits), so only the data's last word is slow. */    \
          UNPACK(p + pos, avail, bw, take, out + got);                                            \
        got += take;                                                                              \
        pos += bytes;                                                                             \
      } else {                                                                                    \
        uint64_t run = h >> 1;                                                                    \
        if (vbytes > n - pos)                                                                     \
          return fl_err_set(err, FL_ECORRUPT, "%s: RLE run value past the end at byte %zu",     \
                            what, pos);                                                           \
        uint32_t v = 0;                                                                           \
        for (size_t k = 0; k < vbytes; k++) v |= (uint32_t)p[pos + k] << (8 * k);                 \
        pos += vbytes;                                                                            \
        if (bw < 32 && (v >> bw) != 0)                                                            \
          return fl_err_set(err, FL_ECORRUPT, "%s: run value %u wider than %d bits", what, v, bw); \
        if (run == 0) continue;                                                                   \
        uint32_t take = run < want ? (uint32_t)run : want;                                        \
        T tv = (T)v;                                                                              \
        if ((uint32_t)tv != v)                                                                    \
          return fl_err_set(err, FL_ECORRUPT, "%s: value %u too large", what, v);                 \
        T *o = out + got;                                                                         \
        if (sizeof(T) == 1 || tv == 0)                                                            \
          memset(o, (int)tv, (size_t)take * sizeof(T));                                           \
        else                                                                                      \
          for (uint32_t k = 0; k < take; k++) o[k] = tv;                                          \
        got += take;                                                                              \
      }                                                                                           \
    }                                                                                             \
    if (used) *used = pos;                                                                        \
    return FL_OK;                                                                                 \
  }

PQ__RLE(rle32, uint32_t, unpack32)
PQ__RLE(rle16, uint16_t, unpack16)

int pq_rle_decode(const uint8_t *p, size_t n, int bit_width, uint32_t count, uint32_t *out,
                  size_t *used, fl_err_t *err) {
  return rle32(p, n, bit_width, count, out, used, "RLE/bit-packed data", err);
}

int pq_rle_decode_levels(const uint8_t *p, size_t n, int bit_width, uint32_t count, uint16_t *out,
                         fl_err_t *err) {
  if (bit_width > 16) return fl_err_set(err, FL_ECORRUPT, "levels: bit width %d", bit_width);
  return rle16(p, n, bit_width, count, out, NULL, "RLE levels", err);
}

int pq_bitpacked_levels(const uint8_t *p, size_t n, int bit_width, uint32_t count, uint16_t *out,
                        size_t *used, fl_err_t *err) {
  if (bit_width < 0 || bit_width > 16)
    return fl_err_set(err, FL_ECORRUPT, "BIT_PACKED levels: bit width %d", bit_width);
  size_t bytes = ((size_t)count * (size_t)bit_width + 7) / 8;
  if (bytes > n)
    return fl_err_set(err, FL_ECORRUPT, "BIT_PACKED levels need %zu bytes, page has %zu", bytes, n);
  size_t bit = 0;
  for (uint32_t i = 0; i < count; i++) {
    uint32_t v = 0;
    for (int b = 0; b < bit_width; b++, bit++)
      v = (v << 1) | ((p[bit >> 3] >> (7 - (bit & 7))) & 1);
    out[i] = (uint16_t)v;
  }
  if (used) *used = bytes;
  return FL_OK;
}

int pq_plain_bool(const uint8_t *p, size_t n, uint32_t count, uint8_t *out, fl_err_t *err) {
  size_t bytes = ((size_t)count + 7) / 8;
  if (bytes > n)
    return fl_err_set(err, FL_ECORRUPT, "PLAIN booleans need %zu bytes, page has %zu", bytes, n);
  uint32_t i = 0;
  for (; i + 8 <= count; i += 8) {
    uint8_t b = p[i >> 3];
    for (int k = 0; k < 8; k++) out[i + k] = (b >> k) & 1;
  }
  for (; i < count; i++) out[i] = (p[i >> 3] >> (i & 7)) & 1;
  return FL_OK;
}

int pq_plain_bytes(const uint8_t *p, size_t n, uint32_t count, uint32_t *start, uint32_t *len,
                   size_t *used, fl_err_t *err) {
  if (n > UINT32_MAX) return fl_err_set(err, FL_ELIMIT, "PLAIN byte arrays: page too large");
  size_t pos = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (n - pos < 4)
      return fl_err_set(err, FL_ECORRUPT, "PLAIN byte array %u: length past the end at byte %zu", i,
                        pos);
    uint32_t l = fl_load_le32(p + pos);
    pos += 4;
    if (l > n - pos)
      return fl_err_set(err, FL_ECORRUPT,
                        "PLAIN byte array %u: length %u past the end at byte %zu", i, l, pos);
    start[i] = (uint32_t)pos;
    len[i] = l;
    pos += l;
  }
  if (used) *used = pos;
  return FL_OK;
}

int pq_delta_binary(const uint8_t *p, size_t n, uint32_t count, bool is64, void *out, size_t *used,
                    fl_err_t *err) {
  size_t pos = 0;
  uint64_t block, nmini, total;
  int64_t first;
  if (rd_uvarint(p, n, &pos, &block) || rd_uvarint(p, n, &pos, &nmini) ||
      rd_uvarint(p, n, &pos, &total) || rd_zvarint(p, n, &pos, &first))
    return fl_err_set(err, FL_ECORRUPT, "DELTA_BINARY_PACKED: truncated header");
  if (block == 0 || block % 128 || block > (1u << 20) || nmini == 0 || block % nmini ||
      (block / nmini) % 32)
    return fl_err_set(err, FL_ECORRUPT,
                      "DELTA_BINARY_PACKED: bad block size %llu / %llu miniblocks",
                      (unsigned long long)block, (unsigned long long)nmini);
  if (total < count)
    return fl_err_set(err, FL_ECORRUPT, "DELTA_BINARY_PACKED: holds %llu values, %u expected",
                      (unsigned long long)total, count);
  const uint32_t per_mini = (uint32_t)(block / nmini);
  int64_t *o64 = out;
  int32_t *o32 = out;
  uint64_t prev = (uint64_t)first;
  uint32_t got = 0;
  if (count) {
    if (is64)
      o64[0] = first;
    else
      o32[0] = (int32_t)(uint32_t)prev;
    got = 1;
  }
  uint64_t seen = total ? 1 : 0;
  uint64_t buf[256];
  while (seen < total) {
    int64_t min_delta;
    if (rd_zvarint(p, n, &pos, &min_delta))
      return fl_err_set(err, FL_ECORRUPT, "DELTA_BINARY_PACKED: truncated block at byte %zu", pos);
    if (nmini > n - pos)
      return fl_err_set(err, FL_ECORRUPT, "DELTA_BINARY_PACKED: bit widths past the end");
    const uint8_t *widths = p + pos;
    pos += (size_t)nmini;
    for (uint64_t m = 0; m < nmini && seen < total; m++) {
      int bw = widths[m];
      if (bw > 64)
        return fl_err_set(err, FL_ECORRUPT, "DELTA_BINARY_PACKED: miniblock bit width %d", bw);
      size_t bytes = (size_t)per_mini * (size_t)bw / 8;
      if (bytes > n - pos)
        return fl_err_set(err, FL_ECORRUPT, "DELTA_BINARY_PACKED: miniblock past the end at byte %zu",
                          pos);
      uint64_t left = total - seen;
      uint32_t nv = left < per_mini ? (uint32_t)left : per_mini;
      /* Only decode what the caller wants; the rest is walked over. */
      uint32_t keep = got < count ? (count - got < nv ? count - got : nv) : 0;
      const uint8_t *src = p + pos;
      for (uint32_t k = 0; k < keep;) {
        uint32_t chunk = keep - k < 256 ? keep - k : 256;
        /* Chunks start at multiples of 256 values, so at a byte boundary. */
        size_t boff = (size_t)k * (size_t)bw / 8;
        unpack64(src + boff, bytes - boff, bw, chunk, buf);
        if (is64) {
          for (uint32_t j = 0; j < chunk; j++) {
            prev += (uint64_t)min_delta + buf[j];
            o64[got++] = (int64_t)prev;
          }
        } else {
          for (uint32_t j = 0; j < chunk; j++) {
            prev += (uint64_t)min_delta + buf[j];
            o32[got++] = (int32_t)(uint32_t)prev;
          }
        }
        k += chunk;
      }
      seen += nv;
      pos += bytes;
    }
  }
  if (used) *used = pos;
  return FL_OK;
}

int pq_delta_length(const uint8_t *p, size_t n, uint32_t count, uint32_t *start, uint32_t *len,
                    size_t *used, fl_err_t *err) {
  if (n > UINT32_MAX) return fl_err_set(err, FL_ELIMIT, "DELTA_LENGTH_BYTE_ARRAY: page too large");
  size_t hdr;
  int rc = pq_delta_binary(p, n, count, false, len, &hdr, err);
  if (rc) return rc;
  size_t pos = hdr;
  for (uint32_t i = 0; i < count; i++) {
    int32_t l = (int32_t)len[i];
    if (l < 0 || (size_t)l > n - pos)
      return fl_err_set(err, FL_ECORRUPT, "DELTA_LENGTH_BYTE_ARRAY: value %u of length %d past the end",
                        i, l);
    start[i] = (uint32_t)pos;
    pos += (size_t)l;
  }
  if (used) *used = pos;
  return FL_OK;
}

int pq_delta_byte_array(const uint8_t *p, size_t n, uint32_t count, fl_buf_t *heap,
                        uint32_t *start, uint32_t *len, fl_err_t *err) {
  size_t used;
  /* Prefix lengths go to len[] first, suffixes' positions to start[]. */
  uint32_t *prefix = fl_malloc(((size_t)count + 1) * sizeof *prefix);
  uint32_t *slen = fl_malloc(((size_t)count + 1) * sizeof *slen);
  int rc = pq_delta_binary(p, n, count, false, prefix, &used, err);
  if (rc) goto out;
  rc = pq_delta_length(p + used, n - used, count, start, slen, NULL, err);
  if (rc) goto out;
  uint32_t prev_start = 0, prev_len = 0;
  for (uint32_t i = 0; i < count; i++) {
    int32_t pre = (int32_t)prefix[i];
    if (pre < 0 || (uint32_t)pre > prev_len) {
      rc = fl_err_set(err, FL_ECORRUPT, "DELTA_BYTE_ARRAY: value %u prefix %d longer than the previous value",
                      i, pre);
      goto out;
    }
    size_t total = (size_t)pre + slen[i];
    /* Shared prefixes let a few bytes stand for many; cap the expansion at
     * what real data reaches so a hostile page cannot claim gigabytes. */
    size_t cap = n > ((size_t)INT32_MAX >> 9) ? (size_t)INT32_MAX : n << 9;
    if (cap < ((size_t)1 << 26)) cap = (size_t)1 << 26;
    if (heap->len + total > cap) {
      rc = fl_err_set(err, FL_ELIMIT, "DELTA_BYTE_ARRAY: values expand beyond %zu bytes", cap);
      goto out;
    }
    fl_buf_reserve(heap, total);
    size_t at = heap->len;
    if (pre) memmove(heap->data + at, heap->data + prev_start, (size_t)pre);
    if (slen[i]) memcpy(heap->data + at + pre, p + used + start[i], slen[i]);
    heap->len += total;
    prev_start = (uint32_t)at;
    prev_len = (uint32_t)total;
    start[i] = (uint32_t)at;
    len[i] = (uint32_t)total;
  }
out:
  fl_free(prefix);
  fl_free(slen);
  return rc;
}

int pq_byte_stream_split(const uint8_t *p, size_t n, uint32_t count, uint32_t width, uint8_t *out,
                         fl_err_t *err) {
  if (width == 0 || (size_t)count * width > n)
    return fl_err_set(err, FL_ECORRUPT, "BYTE_STREAM_SPLIT: %u values of %u bytes need more than %zu",
                      count, width, n);
  /* Stream j holds byte j of every value: streams are count bytes apart. */
  size_t stride = count;
  if (width == 4) {
    const uint8_t *s0 = p, *s1 = p + stride, *s2 = p + 2 * stride, *s3 = p + 3 * stride;
    for (uint32_t i = 0; i < count; i++) {
      out[4 * (size_t)i] = s0[i];
      out[4 * (size_t)i + 1] = s1[i];
      out[4 * (size_t)i + 2] = s2[i];
      out[4 * (size_t)i + 3] = s3[i];
    }
    return FL_OK;
  }
  for (uint32_t j = 0; j < width; j++) {
    const uint8_t *s = p + (size_t)j * stride;
    for (uint32_t i = 0; i < count; i++) out[(size_t)i * width + j] = s[i];
  }
  return FL_OK;
}
