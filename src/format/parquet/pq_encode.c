/*
 * pq_encode.c - the RLE/bit-packed hybrid encoder, PLAIN booleans and the
 * writer's dictionary (layer 4, format/parquet).
 *
 * The hybrid encoder works on a whole page of values at once: it scans for
 * runs of equal values, turning runs of at least 8 into RLE runs (header
 * count << 1, then the value in ceil(width / 8) little-endian bytes) and
 * collecting everything else into bit-packed groups of 8 values (header
 * groups << 1 | 1, then width bytes per group). When a long run follows a
 * bit-packed stretch whose length is not a multiple of 8, the run first
 * completes that stretch's last group, so no group is padded except the
 * very last one of the page.
 */
#include "format/parquet/pq_encode.h"

#include "base/alloc.h"

static void rle_run(fl_buf_t *out, uint32_t value, size_t count, int width) {
  fl_buf_append_uvarint(out, (uint64_t)count << 1);
  int nbytes = (width + 7) / 8;
  for (int b = 0; b < nbytes; b++) fl_buf_append_u8(out, (uint8_t)(value >> (8 * b)));
}

/* Bit-packs v[0..n) (n need not be a multiple of 8: zeros pad the end). */
static void bit_packed(fl_buf_t *out, const uint32_t *v, size_t n, int width) {
  size_t groups = (n + 7) / 8;
  fl_buf_append_uvarint(out, ((uint64_t)groups << 1) | 1);
  size_t nbytes = groups * (size_t)width;
  fl_buf_reserve(out, nbytes);
  uint8_t *dst = out->data + out->len;
  if (width == 0) return;
  if (width <= 8) {
    /* A group of 8 values is 8 * width <= 64 bits: gather it in one word. */
    size_t full = n / 8;
    for (size_t g = 0; g < groups; g++) {
      const uint32_t *q = v + g * 8;
      uint64_t acc = 0;
      if (g < full) {
        for (int k = 0; k < 8; k++) acc |= (uint64_t)q[k] << (k * width);
      } else {
        for (size_t k = 0; k < n - g * 8; k++) acc |= (uint64_t)q[k] << (k * (size_t)width);
      }
      for (int b = 0; b < width; b++) dst[g * (size_t)width + (size_t)b] = (uint8_t)(acc >> (8 * b));
    }
    out->len += nbytes;
    return;
  }
  /* Wider values (dictionary indexes past 256 entries): a 64-bit
   * accumulator that gives out 32 bits at a time; with width <= 32 it
   * holds under 32 bits before each value, so nothing overflows. The
   * groups are whole bytes, so no bits are left at the end. */
  uint64_t acc = 0;
  int bits = 0;
  size_t o = 0;
  for (size_t i = 0; i < groups * 8; i++) {
    uint64_t x = i < n ? v[i] : 0;
    acc |= x << bits;
    bits += width;
    if (bits >= 32) {
      fl_store_le32(dst + o, (uint32_t)acc);
      o += 4;
      acc >>= 32;
      bits -= 32;
    }
  }
  for (; bits > 0; bits -= 8, acc >>= 8) dst[o++] = (uint8_t)acc;
  out->len += nbytes;
}

void pq__rle_encode(const uint32_t *v, size_t n, int width, fl_buf_t *out) {
  size_t i = 0, bp_start = 0, bp_count = 0;
  while (i < n) {
    uint32_t x = v[i];
    size_t r = 1;
    while (i + r < n && v[i + r] == x) r++;
    if (r >= 8) {
      if (bp_count % 8) {
        size_t k = 8 - bp_count % 8;
        bp_count += k;
        i += k;
        r -= k;
      }
      if (r >= 8) {
        if (bp_count) bit_packed(out, v + bp_start, bp_count, width);
        rle_run(out, x, r, width);
        i += r;
        bp_start = i;
        bp_count = 0;
        continue;
      }
    }
    bp_count += r;
    i += r;
  }
  if (bp_count) bit_packed(out, v + bp_start, bp_count, width);
}

void pq__rle_encode_prefixed(const uint32_t *v, size_t n, int width, fl_buf_t *out) {
  size_t at = out->len;
  fl_buf_append_le32(out, 0);
  pq__rle_encode(v, n, width, out);
  fl_store_le32(out->data + at, (uint32_t)(out->len - at - 4));
}

void pq__plain_bool(const uint8_t *v, size_t n, fl_buf_t *out) {
  size_t nbytes = (n + 7) / 8;
  fl_buf_reserve(out, nbytes);
  uint8_t *dst = out->data + out->len;
  memset(dst, 0, nbytes);
  for (size_t i = 0; i < n; i++) dst[i >> 3] |= (uint8_t)((v[i] & 1) << (i & 7));
  out->len += nbytes;
}

/* ---- dictionary ---- */

static inline uint32_t mix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return (uint32_t)h;
}

/* The bytes of a short tail (n < 8) as one word, with fixed-size loads
 * (overlapping where n is not a power of two); n itself is hashed apart. */
static inline uint64_t tail_word(const uint8_t *p, size_t n) {
  if (n >= 4) return fl_load_le32(p) | (uint64_t)fl_load_le32(p + n - 4) << 32;
  if (n) return p[0] | (uint64_t)p[n >> 1] << 8 | (uint64_t)p[n - 1] << 16;
  return 0;
}

static inline uint32_t hash_bytes(const uint8_t *p, size_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) h = (h ^ fl_load_le64(p + i)) * 0x100000001b3ULL + (h >> 29);
  if (i < n) {
    /* The last 8 bytes when there are that many, else the short tail. */
    uint64_t t = n >= 8 ? fl_load_le64(p + n - 8) : tail_word(p, n);
    h = (h ^ t) * 0x100000001b3ULL + (h >> 29);
  }
  return mix64(h);
}

void pq__dict_init(pq__dict_t *d, uint32_t width) {
  memset(d, 0, sizeof *d);
  d->width = width;
  d->mask = 1023;
  d->slots = fl_calloc(d->mask + 1, sizeof *d->slots);
  d->keys = fl_calloc(d->mask + 1, sizeof *d->keys);
  fl_buf_init(&d->vals);
}

/* Widths 4 and 8 keep the value itself in keys, the others its hash. */
static inline bool word_keys(const pq__dict_t *d) { return d->width == 4 || d->width == 8; }

void pq__dict_reset(pq__dict_t *d) {
  d->n = 0;
  memset(d->slots, 0, ((size_t)d->mask + 1) * sizeof *d->slots);
  fl_buf_clear(&d->vals);
}

void pq__dict_free(pq__dict_t *d) {
  fl_free(d->slots);
  fl_free(d->keys);
  fl_free(d->offs);
  fl_buf_free(&d->vals);
  memset(d, 0, sizeof *d);
}

/* Doubles the table when it is half full; each slot's key gives its hash. */
static void maybe_rehash(pq__dict_t *d) {
  if ((d->n + 1) * 2 <= d->mask + 1) return;
  uint32_t mask = d->mask * 2 + 1;
  uint32_t *slots = fl_zalloc_written((size_t)mask + 1, sizeof *slots);
  uint64_t *keys = fl_malloc(((size_t)mask + 1) * sizeof *keys);
  bool words = word_keys(d);
  for (uint32_t o = 0; o <= d->mask; o++) {
    if (!d->slots[o]) continue;
    uint64_t key = d->keys[o];
    uint32_t s = (words ? mix64(key) : (uint32_t)key) & mask;
    while (slots[s]) s = (s + 1) & mask;
    slots[s] = d->slots[o];
    keys[s] = key;
  }
  fl_free(d->slots);
  fl_free(d->keys);
  d->slots = slots;
  d->keys = keys;
  d->mask = mask;
}

/* Gives a new entry (hash h, key) a slot; its index. The caller appends
 * the value to vals. */
static uint32_t dict_insert(pq__dict_t *d, uint32_t h, uint64_t key) {
  maybe_rehash(d);
  if (!d->width && d->n == d->cap) {
    d->cap = d->cap ? d->cap * 2 : 1024;
    d->offs = fl_realloc(d->offs, (size_t)d->cap * sizeof *d->offs);
  }
  uint32_t s = h & d->mask;
  while (d->slots[s]) s = (s + 1) & d->mask;
  d->slots[s] = d->n + 1;
  d->keys[s] = key;
  return d->n++;
}

/* One loop per width so the value is compared as a word, not by memcmp,
 * and with the word kept beside its slot (keys), so a probe reads the two
 * at once instead of the slot and then the entry. A value equal to the
 * one before it (event times, keys in runs) takes the previous index
 * without a probe. */
#define DICT_PUT_WORDS(name, T, load)                                                \
  static void name(pq__dict_t *d, const uint8_t *vals, size_t n, uint32_t *out) {    \
    T prev = 0;                                                                      \
    uint32_t prev_idx = UINT32_MAX;                                                  \
    for (size_t i = 0; i < n; i++) {                                                 \
      const uint8_t *p = vals + i * sizeof(T);                                       \
      T v = load(p);                                                                 \
      if (i + 16 < n) { /* the slot of a value ahead: its miss overlaps this work */ \
        uint32_t a = mix64(load(p + 16 * sizeof(T))) & d->mask;                      \
        __builtin_prefetch(&d->slots[a]);                                            \
        __builtin_prefetch(&d->keys[a]);                                             \
      }                                                                              \
      if (v == prev && prev_idx != UINT32_MAX) {                                     \
        out[i] = prev_idx;                                                           \
        continue;                                                                    \
      }                                                                              \
      uint32_t h = mix64(v), s = h & d->mask, e;                                     \
      while ((e = d->slots[s]) && d->keys[s] != (uint64_t)v) s = (s + 1) & d->mask;  \
      uint32_t idx = e ? e - 1 : dict_insert(d, h, v);                               \
      if (!e) fl_buf_append(&d->vals, p, sizeof(T));                                 \
      out[i] = prev_idx = idx;                                                       \
      prev = v;                                                                      \
    }                                                                                \
  }
DICT_PUT_WORDS(dict_put_w8, uint64_t, fl_load_le64)
DICT_PUT_WORDS(dict_put_w4, uint32_t, fl_load_le32)

void pq__dict_put_fixed(pq__dict_t *d, const uint8_t *vals, size_t n, uint32_t *out) {
  const uint32_t w = d->width;
  if (w == 8) return dict_put_w8(d, vals, n, out);
  if (w == 4) return dict_put_w4(d, vals, n, out);
  for (size_t i = 0; i < n; i++) {
    const uint8_t *p = vals + i * w;
    uint32_t h = hash_bytes(p, w);
    uint32_t s = h & d->mask, e;
    while ((e = d->slots[s]) &&
           !(d->keys[s] == h && memcmp(d->vals.data + (size_t)(e - 1) * w, p, w) == 0))
      s = (s + 1) & d->mask;
    if (e) {
      out[i] = e - 1;
      continue;
    }
    out[i] = dict_insert(d, h, h);
    fl_buf_append(&d->vals, p, w);
  }
}

void pq__dict_put_spans(pq__dict_t *d, const pq__span_t *vals, size_t n, uint32_t *out) {
  for (size_t i = 0; i < n; i++) {
    const uint8_t *p = vals[i].p;
    uint32_t len = vals[i].n;
    if (i && len == vals[i - 1].n && (len == 0 || memcmp(p, vals[i - 1].p, len) == 0)) {
      out[i] = out[i - 1]; /* a run of one value: no hashing */
      continue;
    }
    uint32_t h = hash_bytes(p, len);
    uint32_t s = h & d->mask, e;
    for (; (e = d->slots[s]); s = (s + 1) & d->mask) {
      if (d->keys[s] != h) continue;
      const uint8_t *q = d->vals.data + d->offs[e - 1];
      if (fl_load_le32(q) == len && (len == 0 || memcmp(q + 4, p, len) == 0)) break;
    }
    if (e) {
      out[i] = e - 1;
      continue;
    }
    uint32_t idx = dict_insert(d, h, h);
    d->offs[idx] = (uint32_t)d->vals.len;
    fl_buf_append_le32(&d->vals, len);
    if (len) fl_buf_append(&d->vals, p, len);
    out[i] = idx;
  }
}

/* ---- statistics bounds ---- */

size_t pq__truncate_min(const uint8_t *s, size_t n, size_t max, bool utf8) {
  if (n <= max) return n;
  if (!utf8) return max;
  size_t k = max;
  while (k > 0 && (s[k] & 0xC0) == 0x80) k--;
  return k;
}

static size_t utf8_encode(uint32_t cp, uint8_t *e) {
  if (cp < 0x80) {
    e[0] = (uint8_t)cp;
    return 1;
  }
  if (cp < 0x800) {
    e[0] = (uint8_t)(0xC0 | (cp >> 6));
    e[1] = (uint8_t)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    e[0] = (uint8_t)(0xE0 | (cp >> 12));
    e[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    e[2] = (uint8_t)(0x80 | (cp & 0x3F));
    return 3;
  }
  e[0] = (uint8_t)(0xF0 | (cp >> 18));
  e[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
  e[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
  e[3] = (uint8_t)(0x80 | (cp & 0x3F));
  return 4;
}

bool pq__truncate_max(const uint8_t *s, size_t n, size_t max, bool utf8, fl_buf_t *out) {
  fl_buf_clear(out);
  if (n <= max) {
    fl_buf_append(out, s, n);
    return true;
  }
  fl_buf_append(out, s, pq__truncate_min(s, n, max, utf8));
  if (!utf8) {
    while (out->len) {
      uint8_t *last = &out->data[out->len - 1];
      if (*last != 0xFF) {
        (*last)++;
        return true;
      }
      out->len--;
    }
    return false;
  }
  while (out->len) {
    size_t start = out->len - 1;
    while (start > 0 && (out->data[start] & 0xC0) == 0x80) start--;
    const uint8_t *p = out->data + start;
    size_t clen = out->len - start;
    uint32_t cp;
    if (p[0] < 0x80)
      cp = p[0];
    else if ((p[0] & 0xE0) == 0xC0 && clen >= 2)
      cp = ((uint32_t)(p[0] & 0x1F) << 6) | (p[1] & 0x3F);
    else if ((p[0] & 0xF0) == 0xE0 && clen >= 3)
      cp = ((uint32_t)(p[0] & 0x0F) << 12) | ((uint32_t)(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
    else if ((p[0] & 0xF8) == 0xF0 && clen >= 4)
      cp = ((uint32_t)(p[0] & 0x07) << 18) | ((uint32_t)(p[1] & 0x3F) << 12) |
           ((uint32_t)(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
    else
      cp = 0x10FFFF; /* not valid UTF-8: drop the byte and carry */
    out->len = start;
    cp++;
    if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xE000;
    if (cp > 0x10FFFF) continue;
    uint8_t e[4];
    fl_buf_append(out, e, utf8_encode(cp, e));
    return true;
  }
  return false;
}
