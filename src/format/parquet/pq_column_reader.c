/*
 * pq_column_reader.c - reads the pages of one column chunk into a leaf
 * vector (layer 4, format/parquet).
 *
 * A chunk's bytes are read once (one positioned read), then pages are
 * taken one at a time: the page is decompressed, its levels decoded into
 * 16-bit arrays and its values decoded into the vector's own layout
 * (PLAIN fixed-width values are used in place; dictionary pages are
 * converted once and gathered from by index). A read of N rows then copies
 * ranges out of the current page: the non-null values densely, after which
 * they are spread to their slots from the definition levels in one
 * backward pass. No function pointer or allocation happens per value.
 */
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "format/parquet/pq_codec.h"
#include "format/parquet/pq_decode.h"
#include "format/parquet/pq_int.h"

#define PQ_MAX_PAGE_VALUES (1u << 24)
/* Values one leaf may hold for one batch (nested rows can hold many). */
#define PQ_MAX_BATCH_VALUES (1u << 25)

enum { VK_FIXED, VK_BYTES, VK_DICT };

struct pq_col {
  const pq_node_t *leaf;
  pq_read_stats_t *stats;
  const pq_column_chunk_t *cc;
  pq_codec_t codec;
  uint32_t rg;
  uint64_t chunk_off;
  size_t vw; /* vector width of a value (0 for strings) */
  size_t pw; /* physical width (bool 1, FLBA L, 0 for BYTE_ARRAY) */

  uint8_t *chunk;
  size_t chunk_len, chunk_cap;
  size_t pos;

  bool has_dict;
  bool dict_bytes;
  uint32_t dict_n;
  fl_buf_t dict_raw, dict_vals;
  const uint8_t *dict_base; /* the dictionary page's bytes */
  size_t dict_size;
  uint32_t *dict_start, *dict_len;
  size_t dict_cap, dict_cap2;

  fl_buf_t page;
  uint32_t pn, ppos;
  uint16_t *pdef, *prep;
  size_t dcap, rcap;
  uint32_t pnv, pvpos;
  int vk;
  const uint8_t *vfixed;
  fl_buf_t vbuf, vbuf2, bheap;
  uint32_t *idx;
  size_t idx_cap;
  const uint8_t *bbase;
  uint32_t *bstart, *blen;
  size_t bcap, bcap2;
  bool chunk_started;

  uint16_t *bdef, *brep;
  uint32_t bn, blcap;
};

pq_col_t *pq__col_new(const pq_node_t *leaf, pq_read_stats_t *stats) {
  pq_col_t *c = fl_calloc(1, sizeof *c);
  c->leaf = leaf;
  c->stats = stats;
  c->vw = ty_value_width(leaf->field.type);
  switch (leaf->ptype) {
    case PQ_BOOLEAN: c->pw = 1; break;
    case PQ_INT32:
    case PQ_FLOAT: c->pw = 4; break;
    case PQ_INT64:
    case PQ_DOUBLE: c->pw = 8; break;
    case PQ_INT96: c->pw = 12; break;
    case PQ_FIXED_LEN_BYTE_ARRAY: c->pw = (size_t)leaf->type_length; break;
    case PQ_BYTE_ARRAY: c->pw = 0; break;
  }
  fl_buf_init(&c->dict_raw);
  fl_buf_init(&c->dict_vals);
  fl_buf_init(&c->page);
  fl_buf_init(&c->vbuf);
  fl_buf_init(&c->vbuf2);
  fl_buf_init(&c->bheap);
  return c;
}

void pq__col_free(pq_col_t *c) {
  if (!c) return;
  fl_free(c->chunk);
  fl_buf_free(&c->dict_raw);
  fl_buf_free(&c->dict_vals);
  fl_free(c->dict_start);
  fl_free(c->dict_len);
  fl_buf_free(&c->page);
  fl_free(c->pdef);
  fl_free(c->prep);
  fl_buf_free(&c->vbuf);
  fl_buf_free(&c->vbuf2);
  fl_buf_free(&c->bheap);
  fl_free(c->idx);
  fl_free(c->bstart);
  fl_free(c->blen);
  fl_free(c->bdef);
  fl_free(c->brep);
  fl_free(c);
}

static int col_fail(pq_col_t *c, int code, const char *what, size_t at, fl_err_t *err) {
  return fl_err_set(err, code, "column '%s', row group %u, page at offset %llu: %s", c->leaf->path,
                    c->rg, (unsigned long long)(c->chunk_off + at), what);
}

int pq__col_start(pq_col_t *c, io_reader_t *r, const pq_column_chunk_t *cc, uint32_t rg,
                  uint64_t off, uint64_t len, fl_err_t *err) {
  c->cc = cc;
  c->rg = rg;
  c->codec = cc->meta_data.codec;
  c->chunk_off = off;
  c->pos = 0;
  c->pn = c->ppos = 0;
  c->pnv = c->pvpos = 0;
  c->has_dict = false;
  c->chunk_started = false;
  if (len > SIZE_MAX / 2) return fl_err_set(err, FL_ELIMIT, "column chunk too large");
  /* 16 bytes of slack let string copies move whole words. */
  if (len + 16 > c->chunk_cap) {
    uint8_t *p = fl_try_realloc(c->chunk, (size_t)len + 16);
    if (!p)
      return fl_err_set(err, FL_ENOMEM, "column '%s': cannot hold a chunk of %llu bytes",
                        c->leaf->path, (unsigned long long)len);
    c->chunk = p;
    c->chunk_cap = (size_t)len + 16;
  }
  c->chunk_len = (size_t)len;
  int rc = len ? r->read_at(r, off, c->chunk, (size_t)len, err) : FL_OK;
  if (rc) return rc;
  if (c->stats) c->stats->bytes_read += len;
  return FL_OK;
}

void pq__col_levels(const pq_col_t *c, const uint16_t **def, const uint16_t **rep, uint32_t *n) {
  *def = c->bdef;
  *rep = c->brep;
  *n = c->bn;
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return p;
  size_t n = *cap ? *cap : 1024;
  while (n < need) n *= 2;
  *cap = n;
  return fl_realloc(p, n * elem);
}

static inline fl_i128 be_to_i128(const uint8_t *p, size_t n) {
  if (n == 0) return 0;
  fl_i128 v = (int8_t)p[0];
  for (size_t i = 1; i < n; i++) v = (fl_i128)((unsigned __int128)v << 8) | p[i];
  return v;
}

static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {
      /* Subnormal: normalise. */
      int e = -1;
      do {
        e++;
        man <<= 1;
      } while (!(man & 0x400));
      bits = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

/* Converts n fixed-width physical values to the vector layout. */
static int convert_fixed(pq_col_t *c, const uint8_t *src, uint32_t n, uint8_t *dst, fl_err_t *err) {
  switch (c->leaf->conv) {
    case PQ_CV_COPY:
    case PQ_CV_BYTES: memcpy(dst, src, (size_t)n * c->vw); return FL_OK;
    case PQ_CV_U32:
      for (uint32_t i = 0; i < n; i++) ((int64_t *)dst)[i] = (int64_t)fl_load_le32(src + 4 * (size_t)i);
      return FL_OK;
    case PQ_CV_U64:
      for (uint32_t i = 0; i < n; i++) {
        uint64_t u = fl_load_le64(src + 8 * (size_t)i);
        if (u > INT64_MAX)
          return fl_err_set(err, FL_EUNSUPPORTED,
                            "column '%s': unsigned value %llu does not fit a long", c->leaf->path,
                            (unsigned long long)u);
        ((int64_t *)dst)[i] = (int64_t)u;
      }
      return FL_OK;
    case PQ_CV_I32_X1000:
      for (uint32_t i = 0; i < n; i++)
        ((int64_t *)dst)[i] = (int64_t)(int32_t)fl_load_le32(src + 4 * (size_t)i) * 1000;
      return FL_OK;
    case PQ_CV_I64_X1000:
      for (uint32_t i = 0; i < n; i++)
        ((int64_t *)dst)[i] = (int64_t)(fl_load_le64(src + 8 * (size_t)i) * 1000u);
      return FL_OK;
    case PQ_CV_I64_D1000:
      for (uint32_t i = 0; i < n; i++) {
        int64_t v = (int64_t)fl_load_le64(src + 8 * (size_t)i);
        int64_t q = v / 1000;
        if (v % 1000 < 0) q--;
        ((int64_t *)dst)[i] = q;
      }
      return FL_OK;
    case PQ_CV_I32_DEC:
      for (uint32_t i = 0; i < n; i++) {
        fl_i128 v = (int32_t)fl_load_le32(src + 4 * (size_t)i);
        memcpy(dst + 16 * (size_t)i, &v, 16);
      }
      return FL_OK;
    case PQ_CV_I64_DEC:
      for (uint32_t i = 0; i < n; i++) {
        fl_i128 v = (int64_t)fl_load_le64(src + 8 * (size_t)i);
        memcpy(dst + 16 * (size_t)i, &v, 16);
      }
      return FL_OK;
    case PQ_CV_BE_DEC:
      for (uint32_t i = 0; i < n; i++) {
        fl_i128 v = be_to_i128(src + c->pw * i, c->pw);
        memcpy(dst + 16 * (size_t)i, &v, 16);
      }
      return FL_OK;
    case PQ_CV_INT96:
      for (uint32_t i = 0; i < n; i++) {
        const uint8_t *p = src + 12 * (size_t)i;
        int64_t nanos = (int64_t)fl_load_le64(p);
        int64_t jd = (int32_t)fl_load_le32(p + 8);
        int64_t q = nanos / 1000;
        if (nanos % 1000 < 0) q--;
        ((int64_t *)dst)[i] = (int64_t)((uint64_t)(jd - 2440588) * 86400000000ull + (uint64_t)q);
      }
      return FL_OK;
    case PQ_CV_F16:
      for (uint32_t i = 0; i < n; i++) {
        uint16_t h = (uint16_t)(src[2 * (size_t)i] | (src[2 * (size_t)i + 1] << 8));
        ((float *)dst)[i] = half_to_float(h);
      }
      return FL_OK;
  }
  return fl_err_set(err, FL_EINTERNAL, "unknown conversion");
}

/* Byte arrays to decimals. */
static int convert_bytes_dec(pq_col_t *c, const uint8_t *base, const uint32_t *start,
                             const uint32_t *len, uint32_t n, uint8_t *dst, fl_err_t *err) {
  for (uint32_t i = 0; i < n; i++) {
    if (len[i] > 16)
      return fl_err_set(err, FL_ECORRUPT, "column '%s': decimal value of %u bytes", c->leaf->path,
                        len[i]);
    fl_i128 v = be_to_i128(base + start[i], len[i]);
    memcpy(dst + 16 * (size_t)i, &v, 16);
  }
  return FL_OK;
}

/*
 * Decodes n PLAIN values at [p, p+sz) into the vector layout: fixed values
 * into *fixed (pointing into p or into out), byte arrays into start/len.
 */
static int decode_plain(pq_col_t *c, const uint8_t *p, size_t sz, uint32_t n, fl_buf_t *tmp,
                        fl_buf_t *out, const uint8_t **fixed, uint32_t *start, uint32_t *len,
                        bool *is_bytes, fl_err_t *err) {
  int rc;
  const uint8_t *phys = p;
  *is_bytes = false;
  if (c->leaf->ptype == PQ_BYTE_ARRAY) {
    if ((rc = pq_plain_bytes(p, sz, n, start, len, NULL, err))) return rc;
    if (c->leaf->conv == PQ_CV_BE_DEC) {
      fl_buf_clear(out);
      fl_buf_reserve(out, (size_t)n * 16 + 16);
      if ((rc = convert_bytes_dec(c, p, start, len, n, out->data, err))) return rc;
      *fixed = out->data;
      return FL_OK;
    }
    *is_bytes = true;
    return FL_OK;
  }
  if (c->leaf->ptype == PQ_BOOLEAN) {
    fl_buf_clear(tmp);
    fl_buf_reserve(tmp, (size_t)n + 8);
    if ((rc = pq_plain_bool(p, sz, n, tmp->data, err))) return rc;
    phys = tmp->data;
  } else if ((size_t)n * c->pw > sz) {
    return fl_err_set(err, FL_ECORRUPT, "PLAIN: %u values of %zu bytes need more than %zu", n, c->pw,
                      sz);
  }
  if (c->leaf->conv == PQ_CV_COPY) {
    *fixed = phys;
    return FL_OK;
  }
  fl_buf_clear(out);
  fl_buf_reserve(out, (size_t)n * c->vw + 16);
  if ((rc = convert_fixed(c, phys, n, out->data, err))) return rc;
  *fixed = out->data;
  return FL_OK;
}

static int load_dictionary(pq_col_t *c, const pq_page_header_t *h, fl_err_t *err) {
  const pq_dictionary_page_header_t *d = &h->dictionary_page_header;
  if (d->encoding != PQ_ENC_PLAIN && d->encoding != PQ_ENC_PLAIN_DICTIONARY)
    return fl_err_set(err, FL_EUNSUPPORTED, "dictionary page encoding %s",
                      pq_encoding_name(d->encoding));
  if (d->num_values < 0 || (uint32_t)d->num_values > PQ_MAX_PAGE_VALUES)
    return fl_err_set(err, FL_ECORRUPT, "dictionary of %d values", d->num_values);
  uint32_t n = (uint32_t)d->num_values;
  c->dict_start = grow(c->dict_start, &c->dict_cap, (size_t)n + 1, sizeof *c->dict_start);
  c->dict_len = grow(c->dict_len, &c->dict_cap2, (size_t)n + 1, sizeof *c->dict_len);
  const uint8_t *fixed = NULL;
  bool is_bytes;
  fl_buf_t tmp;
  fl_buf_init(&tmp);
  int rc = decode_plain(c, c->dict_base, c->dict_size, n, &tmp, &c->vbuf2, &fixed,
                        c->dict_start, c->dict_len, &is_bytes, err);
  if (!rc && !is_bytes) {
    /* Keep the converted values (they may point into the raw page). */
    fl_buf_clear(&c->dict_vals);
    fl_buf_append(&c->dict_vals, fixed, (size_t)n * c->vw);
    fl_buf_reserve(&c->dict_vals, 16);
  }
  fl_buf_free(&tmp);
  if (rc) return rc;
  c->dict_bytes = is_bytes;
  c->dict_n = n;
  c->has_dict = true;
  return FL_OK;
}

static int decode_levels(pq_col_t *c, pq_encoding_t enc, const uint8_t *p, size_t n, bool v1,
                         int max, uint16_t *out, size_t *used, fl_err_t *err) {
  int bw = pq_bit_width((uint32_t)max);
  int rc;
  if (enc == PQ_ENC_BIT_PACKED && v1) {
    rc = pq_bitpacked_levels(p, n, bw, c->pn, out, used, err);
  } else if (enc == PQ_ENC_RLE || !v1) {
    size_t off = 0, len = n;
    if (v1) {
      if (n < 4) return fl_err_set(err, FL_ECORRUPT, "levels: missing length prefix");
      uint32_t l = fl_load_le32(p);
      if (l > n - 4) return fl_err_set(err, FL_ECORRUPT, "levels: length %u past the page end", l);
      off = 4;
      len = l;
    }
    rc = pq_rle_decode_levels(p + off, len, bw, c->pn, out, err);
    if (used) *used = off + len;
  } else {
    return fl_err_set(err, FL_EUNSUPPORTED, "level encoding %s", pq_encoding_name(enc));
  }
  if (rc) return rc;
  if ((uint32_t)max == (1u << bw) - 1) return FL_OK; /* no value of bw bits can exceed it */
  uint16_t worst = 0;
  for (uint32_t i = 0; i < c->pn; i++) worst = out[i] > worst ? out[i] : worst;
  if (worst > max) return fl_err_set(err, FL_ECORRUPT, "level %u above the maximum %d", worst, max);
  return FL_OK;
}

static int decode_values(pq_col_t *c, pq_encoding_t enc, const uint8_t *p, size_t n, fl_err_t *err) {
  uint32_t nv = c->pnv;
  const pq_node_t *lf = c->leaf;
  int rc = FL_OK;
  c->pvpos = 0;
  bool is_bytes = false;
  const uint8_t *fixed = NULL;
  if (lf->ptype == PQ_BYTE_ARRAY || enc == PQ_ENC_DELTA_BYTE_ARRAY) {
    c->bstart = grow(c->bstart, &c->bcap, (size_t)nv + 1, sizeof *c->bstart);
    c->blen = grow(c->blen, &c->bcap2, (size_t)nv + 1, sizeof *c->blen);
  }
  switch (enc) {
    case PQ_ENC_PLAIN:
      rc = decode_plain(c, p, n, nv, &c->vbuf, &c->vbuf2, &fixed, c->bstart, c->blen, &is_bytes, err);
      if (rc) return rc;
      if (is_bytes) {
        c->vk = VK_BYTES;
        c->bbase = p;
      } else {
        c->vk = VK_FIXED;
        c->vfixed = fixed;
      }
      return FL_OK;
    case PQ_ENC_PLAIN_DICTIONARY:
    case PQ_ENC_RLE_DICTIONARY: {
      if (!c->has_dict) return fl_err_set(err, FL_ECORRUPT, "dictionary-encoded page without a dictionary");
      c->idx = grow(c->idx, &c->idx_cap, (size_t)nv + 1, sizeof *c->idx);
      if (nv == 0) {
        c->vk = VK_DICT;
        return FL_OK;
      }
      if (n < 1) return fl_err_set(err, FL_ECORRUPT, "dictionary indices: empty page");
      int bw = p[0];
      if ((rc = pq_rle_decode(p + 1, n - 1, bw, nv, c->idx, NULL, err))) return rc;
      /* A maximum, unlike a per-value flag, vectorizes. */
      uint32_t top = 0;
      for (uint32_t i = 0; i < nv; i++) top = c->idx[i] > top ? c->idx[i] : top;
      if (top >= c->dict_n) return fl_err_set(err, FL_ECORRUPT, "dictionary index out of range (%u entries)", c->dict_n);
      c->vk = VK_DICT;
      return FL_OK;
    }
    case PQ_ENC_RLE: {
      if (lf->ptype != PQ_BOOLEAN) break;
      if (n < 4) return fl_err_set(err, FL_ECORRUPT, "RLE booleans: missing length");
      uint32_t l = fl_load_le32(p);
      if (l > n - 4) return fl_err_set(err, FL_ECORRUPT, "RLE booleans: length past the end");
      c->idx = grow(c->idx, &c->idx_cap, (size_t)nv + 1, sizeof *c->idx);
      if ((rc = pq_rle_decode(p + 4, l, 1, nv, c->idx, NULL, err))) return rc;
      fl_buf_clear(&c->vbuf);
      fl_buf_reserve(&c->vbuf, (size_t)nv + 8);
      for (uint32_t i = 0; i < nv; i++) c->vbuf.data[i] = (uint8_t)(c->idx[i] & 1);
      c->vk = VK_FIXED;
      c->vfixed = c->vbuf.data;
      return FL_OK;
    }
    case PQ_ENC_DELTA_BINARY_PACKED: {
      if (lf->ptype != PQ_INT32 && lf->ptype != PQ_INT64) break;
      fl_buf_clear(&c->vbuf);
      fl_buf_reserve(&c->vbuf, (size_t)nv * c->pw + 16);
      if ((rc = pq_delta_binary(p, n, nv, lf->ptype == PQ_INT64, c->vbuf.data, NULL, err))) return rc;
      fixed = c->vbuf.data;
      goto convert;
    }
    case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
      if (lf->ptype != PQ_BYTE_ARRAY) break;
      if ((rc = pq_delta_length(p, n, nv, c->bstart, c->blen, NULL, err))) return rc;
      c->bbase = p;
      goto bytes;
    case PQ_ENC_DELTA_BYTE_ARRAY:
      if (lf->ptype != PQ_BYTE_ARRAY && lf->ptype != PQ_FIXED_LEN_BYTE_ARRAY) break;
      fl_buf_clear(&c->bheap);
      if ((rc = pq_delta_byte_array(p, n, nv, &c->bheap, c->bstart, c->blen, err))) return rc;
      fl_buf_reserve(&c->bheap, 16);
      c->bbase = c->bheap.data;
      if (lf->ptype == PQ_FIXED_LEN_BYTE_ARRAY) {
        fl_buf_clear(&c->vbuf);
        fl_buf_reserve(&c->vbuf, (size_t)nv * c->pw + 16);
        for (uint32_t i = 0; i < nv; i++) {
          if (c->blen[i] != c->pw)
            return fl_err_set(err, FL_ECORRUPT, "DELTA_BYTE_ARRAY: value of %u bytes in FIXED(%zu)",
                              c->blen[i], c->pw);
          memcpy(c->vbuf.data + i * c->pw, c->bbase + c->bstart[i], c->pw);
        }
        fixed = c->vbuf.data;
        goto convert;
      }
      goto bytes;
    case PQ_ENC_BYTE_STREAM_SPLIT:
      if (lf->ptype == PQ_BOOLEAN || lf->ptype == PQ_BYTE_ARRAY || lf->ptype == PQ_INT96) break;
      fl_buf_clear(&c->vbuf);
      fl_buf_reserve(&c->vbuf, (size_t)nv * c->pw + 16);
      if ((rc = pq_byte_stream_split(p, n, nv, (uint32_t)c->pw, c->vbuf.data, err))) return rc;
      fixed = c->vbuf.data;
      goto convert;
    default: break;
  }
  return fl_err_set(err, FL_EUNSUPPORTED, "encoding %s for %s", pq_encoding_name(enc),
                    pq_type_name(lf->ptype));
convert:
  c->vk = VK_FIXED;
  if (lf->conv == PQ_CV_COPY) {
    c->vfixed = fixed;
    return FL_OK;
  }
  fl_buf_clear(&c->vbuf2);
  fl_buf_reserve(&c->vbuf2, (size_t)nv * c->vw + 16);
  if ((rc = convert_fixed(c, fixed, nv, c->vbuf2.data, err))) return rc;
  c->vfixed = c->vbuf2.data;
  return FL_OK;
bytes:
  if (lf->conv == PQ_CV_BE_DEC) {
    fl_buf_clear(&c->vbuf2);
    fl_buf_reserve(&c->vbuf2, (size_t)nv * 16 + 16);
    if ((rc = convert_bytes_dec(c, c->bbase, c->bstart, c->blen, nv, c->vbuf2.data, err))) return rc;
    c->vk = VK_FIXED;
    c->vfixed = c->vbuf2.data;
    return FL_OK;
  }
  c->vk = VK_BYTES;
  return FL_OK;
}

/* Inflates [p, p+csize) into b (usize bytes); *out gets the bytes, which
 * for uncompressed pages stay where they are in the chunk. */
static int inflate_into(pq_col_t *c, const uint8_t *p, size_t csize, size_t usize, fl_buf_t *b,
                        const uint8_t **out, fl_err_t *err) {
  fl_buf_clear(b);
  if (c->codec == PQ_CODEC_UNCOMPRESSED) {
    if (csize != usize)
      return fl_err_set(err, FL_ECORRUPT, "uncompressed page has %zu bytes, expected %zu", csize,
                        usize);
    *out = p;
    return FL_OK;
  }
  if (usize > (size_t)1 << 31) return fl_err_set(err, FL_ELIMIT, "page of %zu bytes", usize);
  int rc = pq__decompress_check(c->codec, p, csize, usize, err);
  if (rc) return rc;
  fl_buf_reserve(b, usize + 16);
  rc = pq_decompress(c->codec, p, csize, b->data, usize, err);
  if (rc) return rc;
  b->len = usize;
  *out = b->data;
  return FL_OK;
}

/* Loads the next data page; returns 1 at the end of the chunk. */
static int next_page(pq_col_t *c, fl_err_t *err) {
  const pq_node_t *lf = c->leaf;
  for (;;) {
    if (c->pos >= c->chunk_len) return 1;
    size_t at = c->pos, used = 0;
    pq_page_header_t h;
    fl_arena_t *a = fl_arena_new(4096);
    int rc = pq_meta_read_page_header(a, c->chunk + at, c->chunk_len - at, &h, &used, err);
    fl_arena_free(a); /* statistics are not needed here */
    if (rc) return fl_err_prefix(err, "column '%s', row group %u, page at offset %llu: ", lf->path,
                                 c->rg, (unsigned long long)(c->chunk_off + at));
    size_t csize = (size_t)h.compressed_page_size, usize = (size_t)h.uncompressed_page_size;
    if (csize > c->chunk_len - at - used)
      return col_fail(c, FL_ECORRUPT, "page extends past the column chunk", at, err);
    const uint8_t *data = c->chunk + at + used;
    c->pos = at + used + csize;
    if (h.has_crc) {
      uint32_t crc = fl_crc32(0, data, csize);
      if (crc != (uint32_t)h.crc)
        return col_fail(c, FL_ECORRUPT, "page CRC mismatch", at, err);
    }
    if (h.type == PQ_PAGE_DICTIONARY) {
      if (!h.has_dictionary_page_header)
        return col_fail(c, FL_ECORRUPT, "dictionary page without its header", at, err);
      if ((rc = inflate_into(c, data, csize, usize, &c->dict_raw, &c->dict_base, err)) ||
          (c->dict_size = usize, rc = load_dictionary(c, &h, err)))
        return fl_err_prefix(err, "column '%s', row group %u, page at offset %llu: ", lf->path, c->rg,
                             (unsigned long long)(c->chunk_off + at));
      continue;
    }
    if (h.type == PQ_PAGE_INDEX) continue;
    bool v1 = h.type == PQ_PAGE_DATA;
    if (v1 && !h.has_data_page_header)
      return col_fail(c, FL_ECORRUPT, "data page without its header", at, err);
    if (!v1 && !h.has_data_page_header_v2)
      return col_fail(c, FL_ECORRUPT, "data page v2 without its header", at, err);
    int32_t nvals = v1 ? h.data_page_header.num_values : h.data_page_header_v2.num_values;
    if (nvals < 0 || (uint32_t)nvals > PQ_MAX_PAGE_VALUES)
      return col_fail(c, FL_ECORRUPT, "bad num_values in page", at, err);
    if (c->stats) c->stats->pages_read++;
    if (nvals == 0) continue;
    c->pn = (uint32_t)nvals;
    c->ppos = 0;
    if (lf->max_def > 0) c->pdef = grow(c->pdef, &c->dcap, c->pn, sizeof(uint16_t));
    if (lf->max_rep > 0) c->prep = grow(c->prep, &c->rcap, c->pn, sizeof(uint16_t));
    const uint8_t *vp;
    size_t vn;
    pq_encoding_t enc;
    if (v1) {
      const pq_data_page_header_t *d = &h.data_page_header;
      enc = d->encoding;
      const uint8_t *pg;
      if ((rc = inflate_into(c, data, csize, usize, &c->page, &pg, err))) goto fail;
      size_t pos = 0, u = 0;
      if (lf->max_rep > 0) {
        if ((rc = decode_levels(c, d->repetition_level_encoding, pg, usize, true,
                                lf->max_rep, c->prep, &u, err)))
          goto fail;
        pos += u;
      }
      if (lf->max_def > 0) {
        if ((rc = decode_levels(c, d->definition_level_encoding, pg + pos, usize - pos, true,
                                lf->max_def, c->pdef, &u, err)))
          goto fail;
        pos += u;
      }
      vp = pg + pos;
      vn = usize - pos;
    } else {
      const pq_data_page_header_v2_t *d = &h.data_page_header_v2;
      enc = d->encoding;
      if (d->repetition_levels_byte_length < 0 || d->definition_levels_byte_length < 0 ||
          (size_t)d->repetition_levels_byte_length + (size_t)d->definition_levels_byte_length > csize ||
          (size_t)d->repetition_levels_byte_length + (size_t)d->definition_levels_byte_length > usize)
        return col_fail(c, FL_ECORRUPT, "level lengths exceed the page", at, err);
      size_t rl = (size_t)d->repetition_levels_byte_length, dl = (size_t)d->definition_levels_byte_length;
      if (lf->max_rep > 0 &&
          (rc = decode_levels(c, PQ_ENC_RLE, data, rl, false, lf->max_rep, c->prep, NULL, err)))
        goto fail;
      if (lf->max_def > 0 &&
          (rc = decode_levels(c, PQ_ENC_RLE, data + rl, dl, false, lf->max_def, c->pdef, NULL, err)))
        goto fail;
      const uint8_t *body = data + rl + dl;
      size_t bc = csize - rl - dl, bu = usize - rl - dl;
      if (d->is_compressed && c->codec != PQ_CODEC_UNCOMPRESSED && bu > 0) {
        if ((rc = inflate_into(c, body, bc, bu, &c->page, &vp, err))) goto fail;
        vn = bu;
      } else {
        vp = body;
        vn = bc;
      }
    }
    /* Count the values present. */
    if (lf->max_def > 0) {
      uint32_t nv = 0;
      for (uint32_t i = 0; i < c->pn; i++) nv += c->pdef[i] == lf->max_def;
      c->pnv = nv;
    } else {
      c->pnv = c->pn;
    }
    if ((rc = decode_values(c, enc, vp, vn, err))) goto fail;
    return FL_OK;
  fail:
    c->pn = c->ppos = 0;
    return fl_err_prefix(err, "column '%s', row group %u, page at offset %llu: ", lf->path, c->rg,
                         (unsigned long long)(c->chunk_off + at));
  }
}

#define PQ_MAX_BATCH_HEAP ((size_t)1 << 30)

static int heap_limit(pq_col_t *c, const ty_vec_t *v, size_t total, fl_err_t *err) {
  if (total > PQ_MAX_BATCH_HEAP || v->heap_len + total > PQ_MAX_BATCH_HEAP)
    return fl_err_set(err, FL_ELIMIT,
                      "column '%s', row group %u: one batch's values exceed %zu bytes",
                      c->leaf->path, c->rg, PQ_MAX_BATCH_HEAP);
  return FL_OK;
}

/* Appends n dense values from the current page to v (validity not set). */
static int emit(pq_col_t *c, uint32_t n, ty_vec_t *v, fl_err_t *err) {
  if (n == 0) return FL_OK;
  uint32_t at = v->len;
  if (c->vk == VK_FIXED) {
    memcpy(v->data + (size_t)at * c->vw, c->vfixed + (size_t)c->pvpos * c->vw, (size_t)n * c->vw);
  } else if (c->vk == VK_BYTES) {
    const uint32_t *st = c->bstart + c->pvpos, *ln = c->blen + c->pvpos;
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++) total += ln[i];
    if (heap_limit(c, v, total, err)) return FL_ELIMIT;
    ty_vec_reserve_heap(v, total + 16);
    uint8_t *h = v->heap;
    size_t hl = v->heap_len;
    int32_t *off = v->offsets + at + 1;
    const uint8_t *base = c->bbase;
    for (uint32_t i = 0; i < n; i++) {
      /* Sources keep 16 bytes of slack, so short values move as 16 bytes. */
      if (ln[i] <= 16)
        memcpy(h + hl, base + st[i], 16);
      else
        memcpy(h + hl, base + st[i], ln[i]);
      hl += ln[i];
      off[i] = (int32_t)hl;
    }
    v->heap_len = hl;
  } else if (!c->dict_bytes) {
    const uint32_t *ix = c->idx + c->pvpos;
    const uint8_t *d = c->dict_vals.data;
    uint8_t *o = v->data + (size_t)at * c->vw;
    switch (c->vw) {
      case 1:
        for (uint32_t i = 0; i < n; i++) o[i] = d[ix[i]];
        break;
      case 4:
        for (uint32_t i = 0; i < n; i++) ((uint32_t *)o)[i] = ((const uint32_t *)d)[ix[i]];
        break;
      case 8:
        for (uint32_t i = 0; i < n; i++) ((uint64_t *)o)[i] = ((const uint64_t *)d)[ix[i]];
        break;
      case 16: /* decimals: a constant size makes each copy one move */
        for (uint32_t i = 0; i < n; i++) memcpy(o + (size_t)i * 16, d + (size_t)ix[i] * 16, 16);
        break;
      default:
        for (uint32_t i = 0; i < n; i++) memcpy(o + (size_t)i * c->vw, d + (size_t)ix[i] * c->vw, c->vw);
        break;
    }
  } else {
    const uint32_t *ix = c->idx + c->pvpos;
    const uint8_t *base = c->dict_base;
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++) total += c->dict_len[ix[i]];
    if (heap_limit(c, v, total, err)) return FL_ELIMIT;
    ty_vec_reserve_heap(v, total + 16);
    uint8_t *h = v->heap;
    size_t hl = v->heap_len;
    int32_t *off = v->offsets + at + 1;
    for (uint32_t i = 0; i < n; i++) {
      uint32_t l = c->dict_len[ix[i]];
      if (l <= 16)
        memcpy(h + hl, base + c->dict_start[ix[i]], 16);
      else
        memcpy(h + hl, base + c->dict_start[ix[i]], l);
      hl += l;
      off[i] = (int32_t)hl;
    }
    v->heap_len = hl;
  }
  c->pvpos += n;
  v->len = at + n;
  return FL_OK;
}

static inline void set_bit(uint8_t *bm, uint32_t i, bool on) {
  if (on)
    bm[i >> 3] |= (uint8_t)(1u << (i & 7));
  else
    bm[i >> 3] &= (uint8_t)~(1u << (i & 7));
}

/*
 * Validity bits [l0, l0+n) of a column whose every level is a slot
 * (ctx_def 0): slot i is valid when def[i] reaches max_def. Whole bytes
 * are assembled 8 levels at a time instead of bit by bit.
 */
static void validity_flat(uint8_t *bm, uint32_t l0, const uint16_t *def, uint32_t n, int mx) {
  uint32_t i = 0;
  for (; i < n && ((l0 + i) & 7); i++) set_bit(bm, l0 + i, def[i] >= mx);
  for (; i + 8 <= n; i += 8) {
    const uint16_t *d = def + i;
    unsigned b = (unsigned)(d[0] >= mx) | (unsigned)(d[1] >= mx) << 1 |
                 (unsigned)(d[2] >= mx) << 2 | (unsigned)(d[3] >= mx) << 3 |
                 (unsigned)(d[4] >= mx) << 4 | (unsigned)(d[5] >= mx) << 5 |
                 (unsigned)(d[6] >= mx) << 6 | (unsigned)(d[7] >= mx) << 7;
    bm[(l0 + i) >> 3] = (uint8_t)b;
  }
  for (; i < n; i++) set_bit(bm, l0 + i, def[i] >= mx);
}

/*
 * Moves the j dense values of width w at base[0..j) out to their slots
 * among s, back to front (a value only ever moves up), and zeroes the
 * null slots. Inlined with a constant w for the usual widths.
 */
static inline __attribute__((always_inline)) void spread_fixed(uint8_t *base, size_t w,
                                                               const uint16_t *def, uint32_t ne,
                                                               int ctx, int mx, uint32_t s,
                                                               uint32_t j) {
  for (uint32_t e = ne; e-- > 0 && s > j;) {
    if (def[e] < ctx) continue;
    s--;
    uint8_t *dst = base + (size_t)s * w;
    if (def[e] >= mx) {
      j--;
      if (j != s) memcpy(dst, base + (size_t)j * w, w);
    } else {
      memset(dst, 0, w);
    }
  }
}

/*
 * Spreads the nv dense values at [l0, l0+nv) over ns slots: the entries of
 * def[0..ne) with def >= ctx_def are slots; those at max_def hold values.
 */
static void expand(pq_col_t *c, ty_vec_t *v, uint32_t l0, uint32_t ns, uint32_t nv,
                   const uint16_t *def, uint32_t ne) {
  const int ctx = c->leaf->ctx_def, mx = c->leaf->max_def;
  if (nv == ns) {
    for (uint32_t i = l0; i < l0 + ns && (i & 7); i++) set_bit(v->validity, i, true);
    uint32_t i = (l0 + 7) & ~7u;
    if (i < l0 + ns) {
      uint32_t end8 = (l0 + ns) & ~7u;
      if (end8 > i) memset(v->validity + (i >> 3), 0xff, (end8 - i) >> 3);
      for (i = end8 > i ? end8 : i; i < l0 + ns; i++) set_bit(v->validity, i, true);
    }
    v->len = l0 + ns;
    return;
  }
  if (ctx == 0)
    validity_flat(v->validity, l0, def, ne, mx);
  else
    for (uint32_t e = 0, s = 0; e < ne; e++)
      if (def[e] >= ctx) set_bit(v->validity, l0 + s++, def[e] >= mx);
  uint32_t j = nv, s = ns;
  if (c->vw && !v->offsets) {
    uint8_t *base = v->data + (size_t)l0 * c->vw;
    /* A constant width lets the compiler turn each copy into one move. */
    switch (c->vw) {
      case 1: spread_fixed(base, 1, def, ne, ctx, mx, s, j); break;
      case 2: spread_fixed(base, 2, def, ne, ctx, mx, s, j); break;
      case 4: spread_fixed(base, 4, def, ne, ctx, mx, s, j); break;
      case 8: spread_fixed(base, 8, def, ne, ctx, mx, s, j); break;
      case 16: spread_fixed(base, 16, def, ne, ctx, mx, s, j); break;
      default: spread_fixed(base, c->vw, def, ne, ctx, mx, s, j); break;
    }
  } else {
    int32_t *off = v->offsets;
    for (uint32_t e = ne; e-- > 0 && s > j;) {
      if (def[e] < ctx) continue;
      s--;
      if (def[e] >= mx) {
        j--;
        off[l0 + 1 + s] = off[l0 + 1 + j];
      } else {
        off[l0 + 1 + s] = off[l0 + j];
      }
    }
  }
  v->null_count += ns - nv;
  v->len = l0 + ns;
}

static void keep_levels(pq_col_t *c, uint32_t a, uint32_t b) {
  const pq_node_t *lf = c->leaf;
  uint32_t n = b - a;
  if (c->bn + n > c->blcap) {
    uint32_t cap = c->blcap ? c->blcap : 4096;
    while (cap < c->bn + n) cap *= 2;
    c->bdef = fl_realloc(c->bdef, cap * sizeof(uint16_t));
    c->brep = fl_realloc(c->brep, cap * sizeof(uint16_t));
    c->blcap = cap;
  }
  if (lf->max_def > 0)
    memcpy(c->bdef + c->bn, c->pdef + a, n * sizeof(uint16_t));
  else
    memset(c->bdef + c->bn, 0, n * sizeof(uint16_t));
  if (lf->max_rep > 0)
    memcpy(c->brep + c->bn, c->prep + a, n * sizeof(uint16_t));
  else
    memset(c->brep + c->bn, 0, n * sizeof(uint16_t));
  c->bn += n;
}

/*
 * Skipping a flat column at a page boundary: data pages whose values all
 * fall in the rows to skip are stepped over by their headers alone, never
 * decompressed. Returns the rows skipped that way.
 */
static uint32_t skip_whole_pages(pq_col_t *c, uint32_t rows) {
  uint32_t skipped = 0;
  while (skipped < rows && c->pos < c->chunk_len) {
    pq_page_header_t h;
    size_t used = 0;
    fl_err_t e2;
    fl_arena_t *a = fl_arena_new(4096);
    int rc = pq_meta_read_page_header(a, c->chunk + c->pos, c->chunk_len - c->pos, &h, &used, &e2);
    fl_arena_free(a);
    if (rc || (size_t)h.compressed_page_size > c->chunk_len - c->pos - used) break;
    int32_t nv;
    if (h.type == PQ_PAGE_DATA && h.has_data_page_header)
      nv = h.data_page_header.num_values;
    else if (h.type == PQ_PAGE_DATA_V2 && h.has_data_page_header_v2)
      nv = h.data_page_header_v2.num_values;
    else
      break; /* dictionary pages and anything odd take the normal path */
    if (nv < 0 || (uint32_t)nv > rows - skipped) break;
    c->pos += used + (size_t)h.compressed_page_size;
    skipped += (uint32_t)nv;
    if (c->stats) c->stats->pages_skipped++;
  }
  return skipped;
}

/* Takes `rows` rows from the pages; v NULL skips them. */
static int take_rows(pq_col_t *c, uint32_t rows, ty_vec_t *v, fl_err_t *err) {
  const pq_node_t *lf = c->leaf;
  const bool flat = lf->max_rep == 0;
  uint32_t got = 0;
  for (;;) {
    if (flat && got == rows) return FL_OK;
    if (c->ppos == c->pn && flat && !v) {
      got += skip_whole_pages(c, rows - got);
      if (got == rows) return FL_OK;
    }
    if (c->ppos == c->pn) {
      int rc = next_page(c, err);
      if (rc == 1) {
        if (got == rows) return FL_OK;
        return fl_err_set(err, FL_ECORRUPT,
                          "column '%s', row group %u: column chunk ends after %u of %u rows",
                          lf->path, c->rg, got, rows);
      }
      if (rc) return rc;
      if (!flat && !c->chunk_started && c->prep[0] != 0)
        return fl_err_set(err, FL_ECORRUPT, "column '%s', row group %u: first repetition level is not 0",
                          lf->path, c->rg);
      c->chunk_started = true;
    }
    uint32_t a = c->ppos, b;
    bool row_boundary = false;
    if (flat) {
      uint32_t k = c->pn - a;
      if (k > rows - got) k = rows - got;
      b = a + k;
      got += k;
    } else {
      b = a;
      while (b < c->pn) {
        if (c->prep[b] == 0) {
          if (got == rows) {
            row_boundary = true;
            break;
          }
          got++;
        }
        b++;
      }
    }
    uint32_t ne = b - a, nv = ne, ns = ne;
    if (lf->max_def > 0 && c->pnv != c->pn) {
      nv = 0;
      const uint16_t *d = c->pdef + a;
      for (uint32_t i = 0; i < ne; i++) nv += d[i] == lf->max_def;
      if (lf->ctx_def > 0) {
        ns = 0;
        for (uint32_t i = 0; i < ne; i++) ns += d[i] >= lf->ctx_def;
      }
    }
    if (nv > c->pnv - c->pvpos)
      return fl_err_set(err, FL_ECORRUPT, "column '%s', row group %u: page has fewer values than levels",
                        lf->path, c->rg);
    if (v) {
      uint32_t l0 = v->len;
      if ((uint64_t)l0 + ns > PQ_MAX_BATCH_VALUES)
        return fl_err_set(err, FL_ELIMIT, "column '%s', row group %u: more than %u values in %u rows",
                          lf->path, c->rg, PQ_MAX_BATCH_VALUES, rows);
      ty_vec_reserve(v, l0 + ns);
      int rc = emit(c, nv, v, err);
      if (rc) return rc;
      if (lf->max_def > 0)
        expand(c, v, l0, ns, nv, c->pdef + a, ne);
      else
        expand(c, v, l0, ns, nv, NULL, 0);
      if (lf->max_def > 0 || lf->max_rep > 0) keep_levels(c, a, b);
    } else {
      c->pvpos += nv;
    }
    c->ppos = b;
    if (row_boundary) return FL_OK;
  }
}

int pq__col_read(pq_col_t *c, uint32_t skip_rows, uint32_t rows, ty_vec_t *v, fl_err_t *err) {
  c->bn = 0;
  int rc = FL_OK;
  if (skip_rows) {
    rc = take_rows(c, skip_rows, NULL, err);
    if (rc) return rc;
  }
  return take_rows(c, rows, v, err);
}

