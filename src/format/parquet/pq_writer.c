/*
 * pq_writer.c - the Parquet file writer (layer 4, format/parquet).
 *
 * How a batch becomes a file:
 *   1. The batch's live rows are cut into pieces that fit the open row
 *      group (row limit), and each piece into slices of rows per top-level
 *      column, sized so that a slice stays well under a page.
 *   2. Shredding (Dremel): a slice of a flat column turns into definition
 *      levels straight from the validity bitmap; a nested column is walked
 *      row by row, every leaf below it receiving its repetition and
 *      definition level and, for present values, the value's position in
 *      the leaf vector.
 *   3. Per leaf, the slice's values update the page statistics with one
 *      typed loop and are converted to their physical form (decimals to
 *      INT32/INT64/big-endian bytes) in a scratch array, then either put
 *      into the column chunk's dictionary (giving indexes) or appended as
 *      PLAIN bytes.
 *   4. A page is cut when its estimated size reaches page_bytes (or 20,000
 *      rows): levels and values are encoded (v1: levels with length
 *      prefixes, everything compressed; v2: levels uncompressed before the
 *      compressed values), a CRC-32 of the page bytes goes into the page
 *      header, and the page joins the column chunk's buffer.
 *   5. The dictionary is dropped (the first page re-encoded PLAIN from its
 *      entries) when it does not pay off on the first page, and frozen
 *      (later pages PLAIN) when it outgrows dict_page_bytes.
 *   6. A row group is flushed when it reaches its row or byte limit: per
 *      column the dictionary page, then the buffered data pages, are
 *      written and the chunk's metadata, column index and offset index are
 *      recorded. At close the page indexes, the footer (schema, row
 *      groups, key/value metadata, TYPE_ORDER column orders) and the
 *      trailer are written and the file is published.
 */
#include "format/parquet/pq_writer.h"

#include <math.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "format/parquet/pq_codec.h"
#include "format/parquet/pq_encode.h"
#include "format/parquet/pq_meta.h"
#include "format/parquet/pq_write_int.h"

#ifndef FLOE_VERSION
#define FLOE_VERSION "0.1.0"
#endif

#define PAGE_ROW_LIMIT 20000
#define STATS_TRUNCATE 64
#define SLICE_MAX 256
/* Room kept before a page's PLAIN values for its encoded levels, so that
 * levels and values are contiguous without copying the values. */
#define PLAIN_HEAD 8192

enum vkind { V_BOOL, V_I32, V_I64, V_F32, V_F64, V_DEC32, V_DEC64, V_DECFL, V_FIXED, V_BYTES };
enum skind { S_BOOL, S_I32, S_I64, S_F32, S_F64, S_I128, S_BYTES };

typedef union num {
  int64_t i;
  double d;
  fl_i128 q;
} num_t;

typedef struct stats {
  bool has; /* min/max seen (non-null, non-NaN) */
  int64_t nulls, nans;
  num_t min, max;
  fl_buf_t bmin, bmax; /* S_BYTES: the full values */
  uint64_t kmin, kmax; /* S_BYTES: prefix_key of bmin and bmax */
} stats_t;

typedef struct page_info {
  int64_t offset; /* in the column chunk as written (header and body back to back) */
  int32_t size;   /* header and body */
  uint32_t hdr_off, hdr_len; /* the header, in the chunk's header buffer */
  size_t body_off;           /* the body, in the chunk's body buffer */
  int64_t first_row;
  int64_t nulls;
  bool null_page, has_minmax;
  num_t min, max;
  uint32_t min_off, min_len, max_off, max_len; /* encoded bounds in pstat_buf */
} page_info_t;

typedef struct col {
  const pq__leaf_t *leaf;
  int vkind, skind;
  uint32_t pwidth;
  const ty_vec_t *vec; /* the leaf vector of the current slice */
  /* the slice */
  uint32_t *idx;
  size_t nidx, idx_cap;
  size_t slice_lev0;
  /* the open page */
  uint32_t *def, *rep;
  size_t nlev, lev_cap;
  uint32_t *didx;
  size_t ndidx, didx_cap;
  fl_buf_t plain; /* PLAIN values from offset head on */
  size_t head;
  uint8_t *scratch;
  size_t scratch_cap;
  pq__span_t *spans;
  size_t spans_cap;
  int64_t page_rows, page_values, page_plain_bytes;
  stats_t pstats;
  bool dict_stats_pending; /* byte arrays: didx not yet in pstats */
  uint8_t *dict_seen;      /* per dictionary entry, for settle_dict_stats */
  size_t dict_seen_cap;
  /* the open column chunk */
  bool dict_on, dict_used;
  pq__dict_t dict;
  fl_buf_t chunk; /* page bodies, back to back */
  fl_buf_t hdrs;  /* page headers, back to back */
  int64_t chunk_bytes; /* headers and bodies of the chunk's data pages */
  page_info_t *pages;
  uint32_t npages, pages_cap;
  fl_buf_t pstat_buf;
  stats_t cstats;
  int64_t c_values, c_uncomp, next_row;
  int32_t n_dict_pages, n_plain_pages;
  /* the file */
  stats_t fstats;
  int64_t f_values, f_comp;
} col_t;

struct pq_writer {
  io_writer_t *out;
  const ty_schema_t *schema;
  char *path;
  fl_arena_t *arena;
  pq__schema_t sch;
  pq_codec_t codec;
  int level;
  uint64_t page_bytes, rg_row_limit, rg_byte_limit, dict_bytes;
  uint32_t page_row_limit;
  bool no_dict, v2;
  col_t *cols;
  uint32_t *slice_rows; /* per top-level column */
  uint64_t pos;
  int64_t rg_rows, total_rows;
  pq_row_group_t *rgs;
  uint32_t nrgs, rgs_cap;
  fl_buf_t ci_buf, oi_buf, page, comp, hdr;
  uint32_t *ident;
  uint32_t ident_cap;
  pq_key_value_t *kv;
  uint32_t nkv, kv_cap;
  bool failed, bad_null, closed;
  const char *bad_null_name;
  pq_file_metrics_t metrics;
  pq_column_metrics_t *col_metrics;
  int64_t *splits;
};

/* ---- statistics ---- */

static void stats_init(stats_t *s) {
  memset(s, 0, sizeof *s);
  fl_buf_init(&s->bmin);
  fl_buf_init(&s->bmax);
}
static void stats_clear(stats_t *s) {
  s->has = false;
  s->nulls = s->nans = 0;
  fl_buf_clear(&s->bmin);
  fl_buf_clear(&s->bmax);
}
static void stats_free(stats_t *s) {
  fl_buf_free(&s->bmin);
  fl_buf_free(&s->bmax);
}

static int bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  size_t n = an < bn ? an : bn;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return c;
  return an < bn ? -1 : an > bn ? 1 : 0;
}

static void buf_set(fl_buf_t *b, const uint8_t *p, size_t n) {
  fl_buf_clear(b);
  fl_buf_append(b, p, n);
}

/*
 * The first 8 bytes of a byte string as a big-endian number, zero-padded.
 * Unsigned order of keys agrees with bytes_cmp wherever keys differ:
 * key(a) < key(b) implies a < b. Equal keys decide nothing.
 */
static inline uint64_t prefix_key(const uint8_t *p, size_t n) {
  uint64_t k = 0;
  if (n >= 8) {
    memcpy(&k, p, 8);
  } else if (n) {
    memcpy(&k, p, n);
  }
  return __builtin_bswap64(k);
}

static void bound_set(stats_t *s, bool max, const uint8_t *p, size_t n) {
  if (max) {
    buf_set(&s->bmax, p, n);
    s->kmax = prefix_key(p, n);
  } else {
    buf_set(&s->bmin, p, n);
    s->kmin = prefix_key(p, n);
  }
}

static int num_cmp(int skind, const num_t *a, const num_t *b) {
  switch (skind) {
    case S_F32:
    case S_F64: return a->d < b->d ? -1 : a->d > b->d ? 1 : 0;
    case S_I128: return a->q < b->q ? -1 : a->q > b->q ? 1 : 0;
    default: return a->i < b->i ? -1 : a->i > b->i ? 1 : 0;
  }
}

/* Merges src into dst (both of one column). */
static void stats_merge(int skind, stats_t *dst, const stats_t *src) {
  dst->nulls += src->nulls;
  dst->nans += src->nans;
  if (!src->has) return;
  if (!dst->has) {
    dst->has = true;
    dst->min = src->min;
    dst->max = src->max;
    if (skind == S_BYTES) {
      bound_set(dst, false, src->bmin.data, src->bmin.len);
      bound_set(dst, true, src->bmax.data, src->bmax.len);
    }
    return;
  }
  if (skind == S_BYTES) {
    if (bytes_cmp(src->bmin.data, src->bmin.len, dst->bmin.data, dst->bmin.len) < 0)
      bound_set(dst, false, src->bmin.data, src->bmin.len);
    if (bytes_cmp(src->bmax.data, src->bmax.len, dst->bmax.data, dst->bmax.len) > 0)
      bound_set(dst, true, src->bmax.data, src->bmax.len);
    return;
  }
  if (num_cmp(skind, &src->min, &dst->min) < 0) dst->min = src->min;
  if (num_cmp(skind, &src->max, &dst->max) > 0) dst->max = src->max;
}

/* Updates the byte-array bounds of s with one value. */
static inline void bytes_stat(stats_t *s, const uint8_t *p, size_t len) {
  if (!s->has) {
    bound_set(s, false, p, len);
    bound_set(s, true, p, len);
    s->has = true;
    return;
  }
  /* A prefix strictly between the bounds' prefixes decides both
   * comparisons without looking further (the common case). */
  uint64_t key = prefix_key(p, len);
  if (key > s->kmin && key < s->kmax) return;
  if (key < s->kmin || (key == s->kmin && bytes_cmp(p, len, s->bmin.data, s->bmin.len) < 0))
    bound_set(s, false, p, len);
  else if (key > s->kmax || (key == s->kmax && bytes_cmp(p, len, s->bmax.data, s->bmax.len) > 0))
    bound_set(s, true, p, len);
}

#define MINMAX_LOOP(T, FIELD)                              \
  do {                                                     \
    const T *d = (const T *)v->data;                       \
    T mn, mx;                                              \
    size_t k = 0;                                          \
    if (!s->has) {                                         \
      mn = mx = d[idx[0]];                                 \
      k = 1;                                               \
    } else {                                               \
      mn = (T)s->min.FIELD;                                \
      mx = (T)s->max.FIELD;                                \
    }                                                      \
    for (; k < n; k++) {                                   \
      T x = d[idx[k]];                                     \
      mn = x < mn ? x : mn;                                \
      mx = x > mx ? x : mx;                                \
    }                                                      \
    s->has = true;                                         \
    s->min.FIELD = mn;                                     \
    s->max.FIELD = mx;                                     \
  } while (0)

#define FLOAT_LOOP(T)                                      \
  do {                                                     \
    const T *d = (const T *)v->data;                       \
    double mn = s->min.d, mx = s->max.d;                   \
    bool has = s->has;                                     \
    for (size_t k = 0; k < n; k++) {                       \
      double x = d[idx[k]];                                \
      if (x != x) {                                        \
        s->nans++;                                         \
        continue;                                          \
      }                                                    \
      if (!has) {                                          \
        mn = mx = x;                                       \
        has = true;                                        \
      }                                                    \
      mn = x < mn ? x : mn;                                \
      mx = x > mx ? x : mx;                                \
    }                                                      \
    s->has = has;                                          \
    s->min.d = mn;                                         \
    s->max.d = mx;                                         \
  } while (0)

/* Updates page statistics with the slice's n present values. */
static void stats_update(col_t *c, stats_t *s, const uint32_t *idx, size_t n) {
  const ty_vec_t *v = c->vec;
  if (!n) return;
  switch (c->skind) {
    case S_BOOL: {
      const uint8_t *d = v->data;
      int64_t mn = s->has ? s->min.i : 1, mx = s->has ? s->max.i : 0;
      for (size_t k = 0; k < n; k++) {
        int64_t x = d[idx[k]];
        mn = x < mn ? x : mn;
        mx = x > mx ? x : mx;
      }
      s->has = true;
      s->min.i = mn;
      s->max.i = mx;
      break;
    }
    case S_I32: MINMAX_LOOP(int32_t, i); break;
    case S_I64: MINMAX_LOOP(int64_t, i); break;
    case S_F32: FLOAT_LOOP(float); break;
    case S_F64: FLOAT_LOOP(double); break;
    case S_I128: {
      fl_i128 mn, mx;
      size_t k = 0;
      if (!s->has) {
        mn = mx = ty_vec_get_i128(v, idx[0]);
        k = 1;
      } else {
        mn = s->min.q;
        mx = s->max.q;
      }
      for (; k < n; k++) {
        fl_i128 x = ty_vec_get_i128(v, idx[k]);
        mn = x < mn ? x : mn;
        mx = x > mx ? x : mx;
      }
      s->has = true;
      s->min.q = mn;
      s->max.q = mx;
      break;
    }
    case S_BYTES: {
      for (size_t k = 0; k < n; k++) {
        size_t len;
        const uint8_t *p = ty_vec_get_bytes(v, idx[k], &len);
        bytes_stat(s, p, len);
      }
      break;
    }
  }
}

/* The PLAIN (statistics) bytes of one bound. */
static void encode_num(const col_t *c, const num_t *x, bool is_max, fl_buf_t *out) {
  switch (c->vkind) {
    case V_BOOL: fl_buf_append_u8(out, (uint8_t)x->i); break;
    case V_I32: {
      int32_t v = (int32_t)x->i;
      fl_buf_append(out, &v, 4);
      break;
    }
    case V_I64: fl_buf_append(out, &x->i, 8); break;
    case V_F32:
    case V_F64: {
      double d = x->d;
      /* The spec: a zero minimum is written as -0.0, a zero maximum as +0.0. */
      if (d == 0) d = is_max ? 0.0 : -0.0;
      if (c->vkind == V_F32) {
        float f = (float)d;
        fl_buf_append(out, &f, 4);
      } else {
        fl_buf_append(out, &d, 8);
      }
      break;
    }
    case V_DEC32: {
      int32_t v = (int32_t)x->q;
      fl_buf_append(out, &v, 4);
      break;
    }
    case V_DEC64: {
      int64_t v = (int64_t)x->q;
      fl_buf_append(out, &v, 8);
      break;
    }
    case V_DECFL: {
      uint8_t be[16];
      uint32_t w = c->pwidth;
      for (uint32_t b = 0; b < w; b++) be[w - 1 - b] = (uint8_t)(x->q >> (8 * b));
      fl_buf_append(out, be, w);
      break;
    }
    default: break;
  }
}

typedef struct bounds {
  bool has_min, has_max, min_exact, max_exact;
  uint32_t min_off, min_len, max_off, max_len; /* in the output buffer */
} bounds_t;

/* Appends the encoded (BYTE_ARRAY: truncated) bounds of s to out. */
static void encode_bounds(const col_t *c, const stats_t *s, fl_buf_t *out, fl_buf_t *tmp,
                          bounds_t *b) {
  memset(b, 0, sizeof *b);
  if (!s->has) return;
  b->has_min = b->has_max = b->min_exact = b->max_exact = true;
  if (c->skind != S_BYTES) {
    b->min_off = (uint32_t)out->len;
    encode_num(c, &s->min, false, out);
    b->min_len = (uint32_t)(out->len - b->min_off);
    b->max_off = (uint32_t)out->len;
    encode_num(c, &s->max, true, out);
    b->max_len = (uint32_t)(out->len - b->max_off);
    return;
  }
  bool truncate = c->vkind == V_BYTES;
  bool utf8 = c->leaf->type->kind == TY_STRING;
  size_t n = s->bmin.len;
  if (truncate && n > STATS_TRUNCATE) {
    n = pq__truncate_min(s->bmin.data, n, STATS_TRUNCATE, utf8);
    b->min_exact = false;
  }
  b->min_off = (uint32_t)out->len;
  fl_buf_append(out, s->bmin.data, n);
  b->min_len = (uint32_t)n;
  n = s->bmax.len;
  if (truncate && n > STATS_TRUNCATE) {
    b->max_exact = false;
    if (!pq__truncate_max(s->bmax.data, n, STATS_TRUNCATE, utf8, tmp)) {
      b->has_max = false;
      return;
    }
    b->max_off = (uint32_t)out->len;
    fl_buf_append(out, tmp->data, tmp->len);
    b->max_len = (uint32_t)tmp->len;
    return;
  }
  b->max_off = (uint32_t)out->len;
  fl_buf_append(out, s->bmax.data, n);
  b->max_len = (uint32_t)n;
}

/* ---- columns ---- */

static void plain_reset(col_t *c) {
  fl_buf_clear(&c->plain);
  if (c->head) {
    fl_buf_reserve(&c->plain, c->head);
    c->plain.len = c->head;
  }
}

static void col_init(pq_writer_t *w, col_t *c, const pq__leaf_t *l) {
  memset(c, 0, sizeof *c);
  c->leaf = l;
  const ty_type_t *t = l->type;
  switch (t->kind) {
    case TY_BOOLEAN: c->vkind = V_BOOL, c->skind = S_BOOL, c->pwidth = 1; break;
    case TY_INT:
    case TY_DATE: c->vkind = V_I32, c->skind = S_I32, c->pwidth = 4; break;
    case TY_FLOAT: c->vkind = V_F32, c->skind = S_F32, c->pwidth = 4; break;
    case TY_DOUBLE: c->vkind = V_F64, c->skind = S_F64, c->pwidth = 8; break;
    case TY_DECIMAL:
      c->skind = S_I128;
      if (l->ptype == PQ_INT32) c->vkind = V_DEC32, c->pwidth = 4;
      else if (l->ptype == PQ_INT64) c->vkind = V_DEC64, c->pwidth = 8;
      else c->vkind = V_DECFL, c->pwidth = (uint32_t)l->type_length;
      break;
    case TY_UUID:
    case TY_FIXED:
      c->vkind = V_FIXED, c->skind = S_BYTES, c->pwidth = (uint32_t)l->type_length;
      break;
    case TY_STRING:
    case TY_BINARY: c->vkind = V_BYTES, c->skind = S_BYTES, c->pwidth = 0; break;
    default: c->vkind = V_I64, c->skind = S_I64, c->pwidth = 8; break; /* long, time, timestamps */
  }
  fl_buf_init(&c->plain);
  c->head = c->vkind != V_BOOL && (l->max_def || l->max_rep) ? PLAIN_HEAD : 0;
  plain_reset(c);
  fl_buf_init(&c->chunk);
  fl_buf_init(&c->hdrs);
  fl_buf_init(&c->pstat_buf);
  stats_init(&c->pstats);
  stats_init(&c->cstats);
  stats_init(&c->fstats);
  pq__dict_init(&c->dict, c->pwidth);
  c->dict_on = !w->no_dict && c->vkind != V_BOOL;
}

static void col_free(col_t *c) {
  fl_free(c->idx);
  fl_free(c->def);
  fl_free(c->rep);
  fl_free(c->didx);
  fl_free(c->scratch);
  fl_free(c->spans);
  fl_free(c->dict_seen);
  fl_free(c->pages);
  fl_buf_free(&c->plain);
  fl_buf_free(&c->chunk);
  fl_buf_free(&c->hdrs);
  fl_buf_free(&c->pstat_buf);
  stats_free(&c->pstats);
  stats_free(&c->cstats);
  stats_free(&c->fstats);
  pq__dict_free(&c->dict);
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return p;
  size_t n = *cap ? *cap : 256;
  while (n < need) n *= 2;
  *cap = n;
  return fl_realloc(p, n * elem);
}

static inline void reserve_levels(col_t *c, size_t extra) {
  size_t need = c->nlev + extra;
  if (need <= c->lev_cap) return;
  size_t cap = c->lev_cap ? c->lev_cap : 256;
  while (cap < need) cap *= 2;
  if (c->leaf->max_def) c->def = fl_realloc(c->def, cap * sizeof *c->def);
  if (c->leaf->max_rep) c->rep = fl_realloc(c->rep, cap * sizeof *c->rep);
  c->lev_cap = cap;
}

static inline void push_level(col_t *c, uint32_t r, uint32_t d) {
  reserve_levels(c, 1);
  if (c->leaf->max_rep) c->rep[c->nlev] = r;
  if (c->leaf->max_def) c->def[c->nlev] = d;
  c->nlev++;
}

static inline void push_value(col_t *c, const ty_vec_t *v, uint32_t i) {
  if (c->nidx == c->idx_cap) c->idx = grow(c->idx, &c->idx_cap, c->nidx + 1, sizeof *c->idx);
  c->vec = v;
  c->idx[c->nidx++] = i;
}

/* Levels for every leaf under node when the node has no value. */
static void emit_absent(pq_writer_t *w, const pq__node_t *node, uint32_t d, uint32_t r) {
  for (uint32_t l = node->leaf_first; l < node->leaf_first + node->leaf_count; l++)
    push_level(&w->cols[l], r, d);
}

static void walk(pq_writer_t *w, const pq__node_t *node, const ty_vec_t *v, uint32_t i, uint32_t d,
                 uint32_t r) {
  if (ty_vec_is_null(v, i)) {
    if (!node->optional) {
      w->bad_null = true;
      w->bad_null_name = node->field->name;
    }
    emit_absent(w, node, d, r);
    return;
  }
  d = node->def;
  switch (node->kind) {
    case TY_STRUCT:
      for (uint32_t c = 0; c < node->nchildren; c++)
        walk(w, &node->children[c], v->children[c], i, d, r);
      return;
    case TY_LIST:
    case TY_MAP: {
      int32_t s = v->offsets[i], e = v->offsets[i + 1];
      if (s >= e) {
        emit_absent(w, node, d, r);
        return;
      }
      for (int32_t j = s; j < e; j++) {
        uint32_t rr = j == s ? r : node->rep;
        for (uint32_t c = 0; c < node->nchildren; c++)
          walk(w, &node->children[c], v->children[c], (uint32_t)j, node->rep_def, rr);
      }
      return;
    }
    default: {
      col_t *c = &w->cols[node->leaf_first];
      push_level(c, r, d);
      push_value(c, v, i);
    }
  }
}

/* Shreds rows[0..n) of top-level column vector v into its leaves. */
static void shred(pq_writer_t *w, const pq__node_t *node, const ty_vec_t *v, const uint32_t *rows,
                  uint32_t n) {
  if (ty_is_nested(v->type)) {
    for (uint32_t k = 0; k < n; k++) walk(w, node, v, rows[k], 0, 0);
    return;
  }
  col_t *c = &w->cols[node->leaf_first];
  c->vec = v;
  if (c->nidx + n > c->idx_cap) c->idx = grow(c->idx, &c->idx_cap, c->nidx + n, sizeof *c->idx);
  reserve_levels(c, n);
  uint32_t *idx = c->idx + c->nidx;
  if (!node->optional) {
    if (v->null_count)
      for (uint32_t k = 0; k < n; k++)
        if (ty_vec_is_null(v, rows[k])) {
          w->bad_null = true;
          w->bad_null_name = node->field->name;
        }
    memcpy(idx, rows, n * sizeof *idx);
    c->nidx += n;
    c->nlev += n;
    return;
  }
  uint32_t *def = c->def + c->nlev;
  if (!v->null_count) {
    for (uint32_t k = 0; k < n; k++) def[k] = 1;
    memcpy(idx, rows, n * sizeof *idx);
    c->nidx += n;
  } else {
    size_t m = 0;
    const uint8_t *valid = v->validity;
    for (uint32_t k = 0; k < n; k++) {
      uint32_t row = rows[k];
      uint32_t bit = (valid[row >> 3] >> (row & 7)) & 1;
      def[k] = bit;
      idx[m] = row;
      m += bit;
    }
    c->nidx += m;
  }
  c->nlev += n;
}

/* Re-encodes the open page's dictionary indexes as PLAIN values and drops the dictionary. */
/*
 * Byte-array values put into the dictionary skip the per-value statistics:
 * the page's bounds come from the distinct entries its indexes name, each
 * compared once. Call before the page's indexes are dropped or flushed.
 */
static void settle_dict_stats(col_t *c) {
  if (!c->dict_stats_pending) return;
  c->dict_stats_pending = false;
  const pq__dict_t *d = &c->dict;
  c->dict_seen = grow(c->dict_seen, &c->dict_seen_cap, d->n, 1);
  memset(c->dict_seen, 0, d->n);
  for (size_t k = 0; k < c->ndidx; k++) c->dict_seen[c->didx[k]] = 1;
  stats_t *s = &c->pstats;
  for (uint32_t e = 0; e < d->n; e++) {
    if (!c->dict_seen[e]) continue;
    const uint8_t *q = d->vals.data + d->offs[e];
    size_t len = fl_load_le32(q);
    q += 4;
    if (!s->has) {
      bound_set(s, false, q, len);
      bound_set(s, true, q, len);
      s->has = true;
      continue;
    }
    if (bytes_cmp(q, len, s->bmin.data, s->bmin.len) < 0) bound_set(s, false, q, len);
    else if (bytes_cmp(q, len, s->bmax.data, s->bmax.len) > 0) bound_set(s, true, q, len);
  }
}

static void page_to_plain(col_t *c) {
  settle_dict_stats(c);
  plain_reset(c);
  const pq__dict_t *d = &c->dict;
  if (c->pwidth) {
    fl_buf_reserve(&c->plain, c->ndidx * c->pwidth);
    for (size_t k = 0; k < c->ndidx; k++)
      fl_buf_append(&c->plain, d->vals.data + (size_t)c->didx[k] * c->pwidth, c->pwidth);
  } else {
    for (size_t k = 0; k < c->ndidx; k++) {
      const uint8_t *q = d->vals.data + d->offs[c->didx[k]];
      fl_buf_append(&c->plain, q, 4 + (size_t)fl_load_le32(q));
    }
  }
  c->ndidx = 0;
  c->dict_on = false;
  pq__dict_reset(&c->dict);
}

static int flush_page(pq_writer_t *w, col_t *c, fl_err_t *err);

/* Encodes the slice's values into the open page. */
static int encode_slice(pq_writer_t *w, col_t *c, fl_err_t *err) {
  size_t n = c->nidx;
  const ty_vec_t *v = c->vec;
  c->pstats.nulls += (int64_t)(c->nlev - c->slice_lev0) - (int64_t)n;
  c->slice_lev0 = c->nlev;
  if (!n) return FL_OK;
  const uint32_t *idx = c->idx;
  /* PLAIN int64, double and byte-array values get their statistics in
   * the loop that encodes them; dictionary byte arrays from the entries. */
  bool fused = !c->dict_on && (c->vkind == V_BYTES || (c->vkind == V_I64 && c->skind == S_I64) ||
                               (c->vkind == V_F64 && c->skind == S_F64));
  if (c->vkind == V_BYTES && c->dict_on)
    c->dict_stats_pending = true;
  else if (!fused)
    stats_update(c, &c->pstats, idx, n);
  c->page_values += (int64_t)n;
  c->nidx = 0;
  if (c->vkind == V_BOOL) {
    fl_buf_reserve(&c->plain, n);
    uint8_t *dst = c->plain.data + c->plain.len;
    for (size_t k = 0; k < n; k++) dst[k] = v->data[idx[k]];
    c->plain.len += n;
    c->page_plain_bytes += (int64_t)n;
    return FL_OK;
  }
  if (c->vkind == V_BYTES && fused) {
    const int32_t *off = v->offsets;
    const uint8_t *heap = v->heap;
    size_t bytes = 4 * n;
    for (size_t k = 0; k < n; k++) bytes += (size_t)(off[idx[k] + 1] - off[idx[k]]);
    c->page_plain_bytes += (int64_t)bytes;
    fl_buf_reserve(&c->plain, bytes);
    uint8_t *dst = c->plain.data + c->plain.len;
    stats_t *st = &c->pstats;
    for (size_t k = 0; k < n; k++) {
      uint32_t i = idx[k];
      uint32_t len = (uint32_t)(off[i + 1] - off[i]);
      const uint8_t *p = len ? heap + off[i] : (const uint8_t *)"";
      fl_store_le32(dst, len);
      if (len) memcpy(dst + 4, p, len);
      dst += 4 + len;
      bytes_stat(st, p, len);
    }
    c->plain.len += bytes;
  } else if (c->vkind == V_BYTES) {
    c->spans = grow(c->spans, &c->spans_cap, n, sizeof *c->spans);
    const int32_t *off = v->offsets;
    int64_t bytes = 0;
    for (size_t k = 0; k < n; k++) {
      uint32_t i = idx[k];
      c->spans[k].p = v->heap + off[i];
      c->spans[k].n = (uint32_t)(off[i + 1] - off[i]);
      bytes += 4 + c->spans[k].n;
    }
    c->page_plain_bytes += bytes;
    if (c->dict_on) {
      c->didx = grow(c->didx, &c->didx_cap, c->ndidx + n, sizeof *c->didx);
      pq__dict_put_spans(&c->dict, c->spans, n, c->didx + c->ndidx);
      c->ndidx += n;
    } else {
      fl_buf_reserve(&c->plain, (size_t)bytes);
      uint8_t *dst = c->plain.data + c->plain.len;
      for (size_t k = 0; k < n; k++) {
        fl_store_le32(dst, c->spans[k].n);
        if (c->spans[k].n) memcpy(dst + 4, c->spans[k].p, c->spans[k].n);
        dst += 4 + c->spans[k].n;
      }
      c->plain.len += (size_t)bytes;
    }
  } else {
    const uint32_t pw = c->pwidth;
    size_t bytes = n * pw;
    uint8_t *dst;
    if (c->dict_on) {
      c->scratch = grow(c->scratch, &c->scratch_cap, bytes, 1);
      dst = c->scratch;
    } else {
      fl_buf_reserve(&c->plain, bytes);
      dst = c->plain.data + c->plain.len;
    }
    switch (c->vkind) {
      case V_I32:
      case V_F32: {
        const uint32_t *s = (const uint32_t *)v->data;
        uint32_t *o = (uint32_t *)dst;
        for (size_t k = 0; k < n; k++) o[k] = s[idx[k]];
        break;
      }
      case V_I64:
      case V_F64: {
        const uint64_t *s = (const uint64_t *)v->data;
        uint64_t *o = (uint64_t *)dst;
        if (fused && c->vkind == V_I64) {
          stats_t *st = &c->pstats;
          int64_t mn = st->has ? st->min.i : (int64_t)s[idx[0]], mx = st->has ? st->max.i : mn;
          for (size_t k = 0; k < n; k++) {
            int64_t x = (int64_t)(o[k] = s[idx[k]]);
            mn = x < mn ? x : mn;
            mx = x > mx ? x : mx;
          }
          st->has = true;
          st->min.i = mn;
          st->max.i = mx;
        } else if (fused) {
          stats_t *st = &c->pstats;
          const double *d = (const double *)v->data;
          double mn = st->min.d, mx = st->max.d;
          bool has = st->has;
          for (size_t k = 0; k < n; k++) {
            o[k] = s[idx[k]];
            double x = d[idx[k]];
            if (x != x) {
              st->nans++;
              continue;
            }
            if (!has) {
              mn = mx = x;
              has = true;
            }
            mn = x < mn ? x : mn;
            mx = x > mx ? x : mx;
          }
          st->has = has;
          st->min.d = mn;
          st->max.d = mx;
        } else {
          for (size_t k = 0; k < n; k++) o[k] = s[idx[k]];
        }
        break;
      }
      case V_DEC32:
        for (size_t k = 0; k < n; k++) {
          int32_t x = (int32_t)ty_vec_get_i128(v, idx[k]);
          memcpy(dst + k * 4, &x, 4);
        }
        break;
      case V_DEC64:
        for (size_t k = 0; k < n; k++) {
          int64_t x = (int64_t)ty_vec_get_i128(v, idx[k]);
          memcpy(dst + k * 8, &x, 8);
        }
        break;
      case V_DECFL:
        for (size_t k = 0; k < n; k++) {
          fl_i128 x = ty_vec_get_i128(v, idx[k]);
          uint8_t *o = dst + k * pw;
          for (uint32_t b = 0; b < pw; b++) o[pw - 1 - b] = (uint8_t)(x >> (8 * b));
        }
        break;
      case V_FIXED:
        for (size_t k = 0; k < n; k++) memcpy(dst + k * pw, v->data + (size_t)idx[k] * pw, pw);
        break;
    }
    c->page_plain_bytes += (int64_t)bytes;
    if (c->dict_on) {
      c->didx = grow(c->didx, &c->didx_cap, c->ndidx + n, sizeof *c->didx);
      pq__dict_put_fixed(&c->dict, dst, n, c->didx + c->ndidx);
      c->ndidx += n;
    } else {
      c->plain.len += bytes;
    }
  }
  if (c->dict_on && c->dict.vals.len > w->dict_bytes) {
    /* The dictionary outgrew its page: PLAIN from here on in this chunk. */
    if (!c->dict_used) {
      page_to_plain(c);
    } else {
      int rc = flush_page(w, c, err);
      if (rc) return rc;
      c->dict_on = false;
    }
  }
  return FL_OK;
}

static int dict_index_width(const col_t *c) {
  int bw = pq__bit_width(c->dict.n ? c->dict.n - 1 : 0);
  return bw ? bw : 1;
}

static uint64_t page_estimate(const col_t *c) {
  uint64_t values = c->dict_on ? (uint64_t)c->ndidx * (uint64_t)(dict_index_width(c) + 1) / 8
                               : (uint64_t)(c->plain.len - c->head);
  return values + c->nlev / 4;
}

/* Appends the header of a page whose body is body[0..n) to dst; returns its length. */
static int write_page_header(pq_page_header_t *h, const uint8_t *body, size_t n, fl_buf_t *dst) {
  size_t at = dst->len;
  h->has_crc = true;
  h->crc = (int32_t)fl_crc32(0, body, n);
  h->compressed_page_size = (int32_t)n;
  pq_meta_write_page_header(h, dst);
  return (int)(dst->len - at);
}

/* Encodes, compresses and buffers the open page of c (nothing when empty). */
static int flush_page(pq_writer_t *w, col_t *c, fl_err_t *err) {
  if (!c->nlev) return FL_OK;
  const pq__leaf_t *l = c->leaf;
  settle_dict_stats(c);
  if (c->dict_on && !c->dict_used) {
    /* First page of the chunk: keep the dictionary only if it pays off. */
    size_t idx_bytes = (c->ndidx * (size_t)dict_index_width(c) + 7) / 8;
    if (c->dict.vals.len + idx_bytes >= (size_t)c->page_plain_bytes) page_to_plain(c);
  }
  fl_buf_t *pg = &w->page, *body = &c->chunk;
  fl_buf_clear(pg);
  int rep_w = pq__bit_width(l->max_rep), def_w = pq__bit_width(l->max_def);
  size_t rep_len = 0, def_len = 0;
  if (!w->v2) {
    if (l->max_rep) pq__rle_encode_prefixed(c->rep, c->nlev, rep_w, pg);
    if (l->max_def) pq__rle_encode_prefixed(c->def, c->nlev, def_w, pg);
  } else {
    if (l->max_rep) pq__rle_encode(c->rep, c->nlev, rep_w, pg);
    rep_len = pg->len;
    if (l->max_def) pq__rle_encode(c->def, c->nlev, def_w, pg);
    def_len = pg->len - rep_len;
  }
  size_t values_at = pg->len;
  bool dict = c->dict_on;
  /* The page's uncompressed bytes: levels and values in pg, except that
   * PLAIN values with no levels before them are compressed from where they
   * were encoded. */
  const uint8_t *raw = pg->data;
  size_t raw_len;
  if (dict) {
    int bw = dict_index_width(c);
    fl_buf_append_u8(pg, (uint8_t)bw);
    pq__rle_encode(c->didx, c->ndidx, bw, pg);
  } else if (c->vkind == V_BOOL) {
    pq__plain_bool(c->plain.data, c->plain.len, pg);
  }
  uint8_t *vals = c->plain.data + c->head;
  size_t vals_len = c->plain.len - c->head;
  if (dict || c->vkind == V_BOOL) {
    raw = pg->data;
    raw_len = pg->len;
  } else if (values_at <= c->head) {
    /* The levels go into the room before the values. */
    if (values_at) memcpy(vals - values_at, pg->data, values_at);
    raw = vals - values_at;
    raw_len = values_at + vals_len;
  } else {
    fl_buf_append(pg, vals, vals_len);
    raw = pg->data;
    raw_len = pg->len;
  }
  /* The body goes straight into the chunk's body buffer. */
  size_t body_at = body->len;
  int rc;
  if (!w->v2) {
    rc = pq_compress(w->codec, w->level, raw, raw_len, body, err);
  } else {
    fl_buf_append(body, raw, values_at);
    rc = pq_compress(w->codec, w->level, raw + values_at, raw_len - values_at, body, err);
  }
  if (rc) return rc;
  size_t body_len = body->len - body_at;
  if (raw_len > INT32_MAX || body_len > INT32_MAX)
    return fl_err_set(err, FL_ELIMIT, "%s: page of column %s over 2 GiB", w->path,
                      l->path[l->npath - 1]);

  pq_page_header_t h;
  memset(&h, 0, sizeof h);
  h.uncompressed_page_size = (int32_t)raw_len;
  pq_encoding_t enc = dict ? PQ_ENC_RLE_DICTIONARY : PQ_ENC_PLAIN;
  if (!w->v2) {
    h.type = PQ_PAGE_DATA;
    h.has_data_page_header = true;
    h.data_page_header.num_values = (int32_t)c->nlev;
    h.data_page_header.encoding = enc;
    h.data_page_header.definition_level_encoding = PQ_ENC_RLE;
    h.data_page_header.repetition_level_encoding = PQ_ENC_RLE;
  } else {
    h.type = PQ_PAGE_DATA_V2;
    h.has_data_page_header_v2 = true;
    pq_data_page_header_v2_t *d = &h.data_page_header_v2;
    d->num_values = (int32_t)c->nlev;
    d->num_nulls = (int32_t)(c->nlev - (size_t)c->page_values);
    d->num_rows = (int32_t)c->page_rows;
    d->encoding = enc;
    d->definition_levels_byte_length = (int32_t)def_len;
    d->repetition_levels_byte_length = (int32_t)rep_len;
    d->is_compressed = w->codec != PQ_CODEC_UNCOMPRESSED;
  }
  size_t hdr_at = c->hdrs.len;
  int hlen = write_page_header(&h, body->data + body_at, body_len, &c->hdrs);

  if (c->npages == c->pages_cap) {
    size_t cap = c->pages_cap;
    c->pages = grow(c->pages, &cap, c->npages + 1, sizeof *c->pages);
    c->pages_cap = (uint32_t)cap;
  }
  page_info_t *p = &c->pages[c->npages++];
  memset(p, 0, sizeof *p);
  p->offset = c->chunk_bytes;
  p->size = (int32_t)((size_t)hlen + body_len);
  p->hdr_off = (uint32_t)hdr_at;
  p->hdr_len = (uint32_t)hlen;
  p->body_off = body_at;
  c->chunk_bytes += p->size;
  p->first_row = c->next_row;
  p->nulls = (int64_t)c->nlev - c->page_values;
  p->null_page = c->page_values == 0;
  bounds_t b;
  encode_bounds(c, &c->pstats, &c->pstat_buf, &w->hdr, &b);
  p->has_minmax = b.has_min && b.has_max;
  p->min = c->pstats.min;
  p->max = c->pstats.max;
  p->min_off = b.min_off, p->min_len = b.min_len, p->max_off = b.max_off, p->max_len = b.max_len;

  c->c_uncomp += hlen + (int64_t)raw_len;
  c->c_values += (int64_t)c->nlev;
  stats_merge(c->skind, &c->cstats, &c->pstats);
  if (dict) {
    c->n_dict_pages++;
    c->dict_used = true;
  } else {
    c->n_plain_pages++;
  }
  c->next_row += c->page_rows;
  c->nlev = c->slice_lev0 = 0;
  c->ndidx = 0;
  plain_reset(c);
  c->page_rows = c->page_values = c->page_plain_bytes = 0;
  stats_clear(&c->pstats);
  return FL_OK;
}

/* ---- row groups ---- */

static int out_write(pq_writer_t *w, const void *p, size_t n, fl_err_t *err) {
  if (!n) return FL_OK;
  int rc = w->out->write(w->out, p, n, err);
  if (rc) return rc;
  w->pos += n;
  return FL_OK;
}

/* Writes the data pages of c's chunk, each header followed by its body
 * (headers and bodies are buffered apart, so bodies are compressed in
 * place and never copied). */
static int write_chunk_pages(pq_writer_t *w, col_t *c, fl_err_t *err) {
  int rc;
  for (uint32_t i = 0; i < c->npages; i++) {
    const page_info_t *p = &c->pages[i];
    if ((rc = out_write(w, c->hdrs.data + p->hdr_off, p->hdr_len, err))) return rc;
    if ((rc = out_write(w, c->chunk.data + p->body_off, (size_t)p->size - p->hdr_len, err)))
      return rc;
  }
  return FL_OK;
}

static pq_bytes_t arena_bytes(pq_writer_t *w, const uint8_t *p, size_t n) {
  pq_bytes_t b = {fl_arena_memdup(w->arena, n ? p : (const uint8_t *)"", n ? n : 1), n};
  return b;
}

static int page_bound_cmp(const col_t *c, const page_info_t *a, const page_info_t *b, bool max) {
  if (c->skind == S_BYTES) {
    const uint8_t *d = c->pstat_buf.data;
    return max ? bytes_cmp(d + a->max_off, a->max_len, d + b->max_off, b->max_len)
               : bytes_cmp(d + a->min_off, a->min_len, d + b->min_off, b->min_len);
  }
  return num_cmp(c->skind, max ? &a->max : &a->min, max ? &b->max : &b->min);
}

/* Serializes the chunk's column index (when every non-null page has bounds) and offset index. */
static void write_page_indexes(pq_writer_t *w, col_t *c, uint64_t data_off, pq_column_chunk_t *cc) {
  fl_arena_t *a = w->arena;
  uint32_t np = c->npages;
  bool ok = true;
  for (uint32_t i = 0; i < np; i++)
    if (!c->pages[i].null_page && !c->pages[i].has_minmax) ok = false;
  if (ok && np) {
    pq_column_index_t ci;
    memset(&ci, 0, sizeof ci);
    ci.npages = np;
    ci.null_pages = fl_arena_alloc(a, np * sizeof *ci.null_pages);
    ci.min_values = fl_arena_alloc(a, np * sizeof *ci.min_values);
    ci.max_values = fl_arena_alloc(a, np * sizeof *ci.max_values);
    ci.null_counts = fl_arena_alloc(a, np * sizeof *ci.null_counts);
    ci.has_null_counts = true;
    bool asc = true, desc = true;
    const page_info_t *prev = NULL;
    for (uint32_t i = 0; i < np; i++) {
      const page_info_t *p = &c->pages[i];
      ci.null_pages[i] = p->null_page;
      ci.null_counts[i] = p->nulls;
      if (p->null_page) {
        ci.min_values[i] = (pq_bytes_t){(const uint8_t *)"", 0};
        ci.max_values[i] = (pq_bytes_t){(const uint8_t *)"", 0};
        continue;
      }
      ci.min_values[i] = (pq_bytes_t){c->pstat_buf.data + p->min_off, p->min_len};
      ci.max_values[i] = (pq_bytes_t){c->pstat_buf.data + p->max_off, p->max_len};
      if (prev) {
        int cmin = page_bound_cmp(c, p, prev, false), cmax = page_bound_cmp(c, p, prev, true);
        if (cmin < 0 || cmax < 0) asc = false;
        if (cmin > 0 || cmax > 0) desc = false;
      }
      prev = p;
    }
    ci.boundary_order = asc ? PQ_ASCENDING : desc ? PQ_DESCENDING : PQ_UNORDERED;
    size_t at = w->ci_buf.len;
    pq_meta_write_column_index(&ci, &w->ci_buf);
    cc->has_column_index = true;
    cc->column_index_offset = (int64_t)at; /* relative until close */
    cc->column_index_length = (int32_t)(w->ci_buf.len - at);
  }
  pq_offset_index_t oi;
  memset(&oi, 0, sizeof oi);
  oi.npages = np;
  oi.page_locations = fl_arena_alloc(a, (np ? np : 1) * sizeof *oi.page_locations);
  for (uint32_t i = 0; i < np; i++) {
    oi.page_locations[i].offset = (int64_t)data_off + c->pages[i].offset;
    oi.page_locations[i].compressed_page_size = c->pages[i].size;
    oi.page_locations[i].first_row_index = c->pages[i].first_row;
  }
  size_t at = w->oi_buf.len;
  pq_meta_write_offset_index(&oi, &w->oi_buf);
  cc->has_offset_index = true;
  cc->offset_index_offset = (int64_t)at;
  cc->offset_index_length = (int32_t)(w->oi_buf.len - at);
}

static void fill_stats(pq_writer_t *w, col_t *c, pq_statistics_t *st) {
  memset(st, 0, sizeof *st);
  st->has_null_count = true;
  st->null_count = c->cstats.nulls;
  fl_buf_t enc, tmp;
  fl_buf_init(&enc);
  fl_buf_init(&tmp);
  bounds_t b;
  encode_bounds(c, &c->cstats, &enc, &tmp, &b);
  if (b.has_min) {
    st->has_min_value = st->has_is_min_value_exact = true;
    st->min_value = arena_bytes(w, enc.data + b.min_off, b.min_len);
    st->is_min_value_exact = b.min_exact;
  }
  if (b.has_max) {
    st->has_max_value = st->has_is_max_value_exact = true;
    st->max_value = arena_bytes(w, enc.data + b.max_off, b.max_len);
    st->is_max_value_exact = b.max_exact;
  }
  /* The deprecated fields, for readers that only know them: only where
   * their (signed) order agrees with the type's order. */
  if (b.has_min && b.has_max && c->skind != S_BYTES && c->vkind != V_DECFL) {
    st->has_min = st->has_max = true;
    st->min = st->min_value;
    st->max = st->max_value;
  }
  fl_buf_free(&enc);
  fl_buf_free(&tmp);
}

static int flush_row_group(pq_writer_t *w, fl_err_t *err) {
  uint32_t nl = w->sch.nleaves;
  int rc;
  for (uint32_t i = 0; i < nl; i++)
    if ((rc = flush_page(w, &w->cols[i], err))) return rc;
  if (w->nrgs == w->rgs_cap) {
    uint32_t cap = w->rgs_cap ? w->rgs_cap * 2 : 8;
    w->rgs = fl_realloc(w->rgs, cap * sizeof *w->rgs);
    w->rgs_cap = cap;
  }
  pq_row_group_t *rg = &w->rgs[w->nrgs];
  memset(rg, 0, sizeof *rg);
  rg->ncolumns = nl;
  rg->columns = fl_arena_zalloc(w->arena, (nl ? nl : 1) * sizeof *rg->columns);
  rg->num_rows = w->rg_rows;
  rg->has_file_offset = rg->has_total_compressed_size = true;
  rg->has_ordinal = w->nrgs <= INT16_MAX;
  rg->file_offset = (int64_t)w->pos;
  rg->ordinal = (int16_t)w->nrgs;
  for (uint32_t i = 0; i < nl; i++) {
    col_t *c = &w->cols[i];
    const pq__leaf_t *l = c->leaf;
    pq_column_chunk_t *cc = &rg->columns[i];
    pq_column_meta_t *m = &cc->meta_data;
    uint64_t start = w->pos;
    int64_t uncomp = c->c_uncomp;
    cc->has_meta_data = true;
    if (c->dict_used) {
      pq_page_header_t h;
      memset(&h, 0, sizeof h);
      h.type = PQ_PAGE_DICTIONARY;
      h.uncompressed_page_size = (int32_t)c->dict.vals.len;
      h.has_dictionary_page_header = true;
      h.dictionary_page_header.num_values = (int32_t)c->dict.n;
      h.dictionary_page_header.encoding = PQ_ENC_PLAIN;
      fl_buf_clear(&w->comp);
      rc = pq_compress(w->codec, w->level, c->dict.vals.data, c->dict.vals.len, &w->comp, err);
      if (rc) return rc;
      fl_buf_clear(&w->hdr);
      int hlen = write_page_header(&h, w->comp.data, w->comp.len, &w->hdr);
      uncomp += hlen + (int64_t)c->dict.vals.len;
      if ((rc = out_write(w, w->hdr.data, w->hdr.len, err))) return rc;
      if ((rc = out_write(w, w->comp.data, w->comp.len, err))) return rc;
      m->has_dictionary_page_offset = true;
      m->dictionary_page_offset = (int64_t)start;
    }
    uint64_t data_off = w->pos;
    if ((rc = write_chunk_pages(w, c, err))) return rc;
    cc->file_offset = (int64_t)start;
    m->type = l->ptype;
    pq_encoding_t encs[3];
    uint32_t ne = 0;
    if (c->dict_used) encs[ne++] = PQ_ENC_RLE_DICTIONARY;
    if (c->dict_used || c->n_plain_pages) encs[ne++] = PQ_ENC_PLAIN;
    encs[ne++] = PQ_ENC_RLE;
    m->nencodings = ne;
    m->encodings = fl_arena_memdup(w->arena, encs, sizeof encs);
    m->npath = l->npath;
    m->path_in_schema = l->path;
    m->codec = w->codec;
    m->num_values = c->c_values;
    m->total_uncompressed_size = uncomp;
    m->total_compressed_size = (int64_t)(w->pos - start);
    m->data_page_offset = (int64_t)data_off;
    m->has_statistics = true;
    fill_stats(w, c, &m->statistics);
    pq_page_encoding_stats_t es[3];
    uint32_t nes = 0;
    if (c->dict_used) es[nes++] = (pq_page_encoding_stats_t){PQ_PAGE_DICTIONARY, PQ_ENC_PLAIN, 1};
    pq_page_type_t dt = w->v2 ? PQ_PAGE_DATA_V2 : PQ_PAGE_DATA;
    if (c->n_dict_pages)
      es[nes++] = (pq_page_encoding_stats_t){dt, PQ_ENC_RLE_DICTIONARY, c->n_dict_pages};
    if (c->n_plain_pages)
      es[nes++] = (pq_page_encoding_stats_t){dt, PQ_ENC_PLAIN, c->n_plain_pages};
    m->nencoding_stats = nes;
    m->encoding_stats = fl_arena_memdup(w->arena, es, sizeof es);
    write_page_indexes(w, c, data_off, cc);
    rg->total_byte_size += uncomp;
    rg->total_compressed_size += m->total_compressed_size;

    stats_merge(c->skind, &c->fstats, &c->cstats);
    c->f_values += c->c_values;
    c->f_comp += m->total_compressed_size;
    fl_buf_clear(&c->chunk);
    fl_buf_clear(&c->hdrs);
    c->chunk_bytes = 0;
    fl_buf_clear(&c->pstat_buf);
    c->npages = 0;
    stats_clear(&c->cstats);
    pq__dict_reset(&c->dict);
    c->dict_on = !w->no_dict && c->vkind != V_BOOL;
    c->dict_used = false;
    c->n_dict_pages = c->n_plain_pages = 0;
    c->c_values = c->c_uncomp = c->next_row = 0;
  }
  w->nrgs++;
  w->total_rows += w->rg_rows;
  w->rg_rows = 0;
  return FL_OK;
}

static uint64_t row_group_estimate(const pq_writer_t *w) {
  uint64_t n = 0;
  for (uint32_t i = 0; i < w->sch.nleaves; i++) {
    const col_t *c = &w->cols[i];
    n += (uint64_t)c->chunk_bytes + c->dict.vals.len + page_estimate(c);
  }
  return n;
}

/* ---- the public interface ---- */

int pq_writer_open(io_fs_t *fs, const char *path, const ty_schema_t *schema,
                   const fmt_write_opts_t *opts, pq_writer_t **out, fl_err_t *err) {
  fmt_write_opts_t defaults = {0};
  if (!opts) opts = &defaults;
  pq_codec_t codec = PQ_CODEC_ZSTD;
  int rc;
  if (opts->compression && (rc = pq_codec_parse(opts->compression, &codec, err))) return rc;
  if (schema->root.nfields == 0)
    return fl_err_set(err, FL_EINVALID, "%s: a Parquet file needs at least one column", path);
  fl_arena_t *a = fl_arena_new(0);
  pq__schema_t sch;
  if ((rc = pq__schema_from_iceberg(a, schema, &sch, err))) {
    fl_arena_free(a);
    return fl_err_prefix(err, "%s: ", path);
  }
  io_writer_t *o;
  if ((rc = fs->create(fs, path, false, &o, err))) {
    fl_arena_free(a);
    return rc;
  }
  pq_writer_t *w = fl_calloc(1, sizeof *w);
  w->out = o;
  w->schema = schema;
  w->arena = a;
  w->path = fl_arena_strdup(a, path);
  w->sch = sch;
  w->codec = codec;
  w->level = opts->compression_level;
  w->page_bytes = opts->page_bytes ? opts->page_bytes : (1u << 20);
  w->rg_row_limit = opts->row_group_rows ? opts->row_group_rows : 1048576;
  w->rg_byte_limit = opts->row_group_bytes ? opts->row_group_bytes : (128u << 20);
  w->dict_bytes = opts->dict_page_bytes ? opts->dict_page_bytes : (1u << 20);
  w->page_row_limit = opts->page_rows ? opts->page_rows : PAGE_ROW_LIMIT;
  w->no_dict = opts->no_dictionary;
  w->v2 = opts->data_page_v2;
  w->cols = fl_calloc(sch.nleaves, sizeof *w->cols);
  for (uint32_t i = 0; i < sch.nleaves; i++) col_init(w, &w->cols[i], &sch.leaves[i]);
  w->slice_rows = fl_calloc(sch.ncols, sizeof *w->slice_rows);
  for (uint32_t i = 0; i < sch.ncols; i++) w->slice_rows[i] = 64;
  fl_buf_init(&w->ci_buf);
  fl_buf_init(&w->oi_buf);
  fl_buf_init(&w->page);
  fl_buf_init(&w->comp);
  fl_buf_init(&w->hdr);
  if ((rc = out_write(w, "PAR1", 4, err))) {
    pq_writer_abort(w);
    return rc;
  }
  *out = w;
  return FL_OK;
}

void pq_writer_add_kv(pq_writer_t *w, const char *key, const char *value) {
  if (w->nkv == w->kv_cap) {
    w->kv_cap = w->kv_cap ? w->kv_cap * 2 : 4;
    w->kv = fl_realloc(w->kv, w->kv_cap * sizeof *w->kv);
  }
  w->kv[w->nkv].key = fl_arena_strdup(w->arena, key);
  w->kv[w->nkv].value = value ? fl_arena_strdup(w->arena, value) : NULL;
  w->nkv++;
}

/* Writes rows[0..n) of the batch into the open row group, top-level column by column. */
static int write_rows(pq_writer_t *w, const ty_batch_t *b, const uint32_t *rows, uint32_t n,
                      fl_err_t *err) {
  for (uint32_t t = 0; t < w->sch.ncols; t++) {
    const pq__node_t *node = &w->sch.cols[t];
    const ty_vec_t *v = b->cols[t];
    uint32_t done = 0;
    while (done < n) {
      uint32_t s = n - done < w->slice_rows[t] ? n - done : w->slice_rows[t];
      shred(w, node, v, rows + done, s);
      if (w->bad_null)
        return fl_err_set(err, FL_EINVALID, "%s: required field '%s' has a null value", w->path,
                          w->bad_null_name);
      uint64_t grown = 0;
      for (uint32_t l = node->leaf_first; l < node->leaf_first + node->leaf_count; l++) {
        col_t *c = &w->cols[l];
        uint64_t before = page_estimate(c);
        /* The slice's rows belong to the open page before encoding, which
         * may flush it (when the dictionary overflows). */
        c->page_rows += s;
        int rc = encode_slice(w, c, err);
        if (rc) return rc;
        uint64_t est = page_estimate(c);
        if (est > before && est - before > grown) grown = est - before;
        if (est >= w->page_bytes || c->page_rows >= w->page_row_limit) {
          if ((rc = flush_page(w, c, err))) return rc;
        }
      }
      /* Aim for slices of at most an eighth of a page. */
      uint64_t per_row = grown / s + 1;
      uint64_t want = w->page_bytes / 8 / per_row;
      w->slice_rows[t] = want < 1 ? 1 : want > SLICE_MAX ? SLICE_MAX : (uint32_t)want;
      done += s;
    }
  }
  return FL_OK;
}

int pq_writer_write(pq_writer_t *w, const ty_batch_t *b, fl_err_t *err) {
  if (w->failed || w->closed)
    return fl_err_set(err, FL_EINVALID, "%s: the writer failed or is closed", w->path);
  if (b->ncols != w->sch.ncols)
    return fl_err_set(err, FL_EINVALID, "%s: batch has %u columns, the file %u", w->path, b->ncols,
                      w->sch.ncols);
  uint32_t n = ty_batch_live(b);
  const uint32_t *rows = b->sel;
  if (!rows) {
    if (w->ident_cap < n) {
      w->ident = fl_realloc(w->ident, n * sizeof *w->ident);
      for (uint32_t i = w->ident_cap; i < n; i++) w->ident[i] = i;
      w->ident_cap = n;
    }
    rows = w->ident;
  }
  uint32_t off = 0;
  while (off < n) {
    uint64_t room = w->rg_row_limit - (uint64_t)w->rg_rows;
    uint32_t take = n - off < room ? n - off : (uint32_t)room;
    int rc = write_rows(w, b, rows + off, take, err);
    if (!rc) {
      w->rg_rows += take;
      off += take;
      if ((uint64_t)w->rg_rows >= w->rg_row_limit || row_group_estimate(w) >= w->rg_byte_limit)
        rc = flush_row_group(w, err);
    }
    if (rc) {
      w->failed = true;
      return rc;
    }
  }
  return FL_OK;
}

static void fill_metrics(pq_writer_t *w) {
  uint32_t nl = w->sch.nleaves;
  w->col_metrics = fl_calloc(nl ? nl : 1, sizeof *w->col_metrics);
  w->splits = fl_calloc(w->nrgs ? w->nrgs : 1, sizeof *w->splits);
  for (uint32_t i = 0; i < w->nrgs; i++) w->splits[i] = w->rgs[i].file_offset;
  for (uint32_t i = 0; i < nl; i++) {
    col_t *c = &w->cols[i];
    pq_column_metrics_t *m = &w->col_metrics[i];
    const ty_type_t *t = c->leaf->type;
    m->field_id = c->leaf->field->id;
    m->type = t;
    m->compressed_bytes = c->f_comp;
    m->value_count = c->f_values;
    m->null_count = c->fstats.nulls;
    m->nan_count = (c->skind == S_F32 || c->skind == S_F64) ? c->fstats.nans : -1;
    m->has_bounds = c->fstats.has && c->leaf->max_rep == 0;
    if (!m->has_bounds) continue;
    ty_value_t *lo = &m->lower, *hi = &m->upper;
    lo->kind = hi->kind = t->kind;
    const stats_t *s = &c->fstats;
    switch (c->skind) {
      case S_BOOL: lo->u.b = s->min.i != 0, hi->u.b = s->max.i != 0; break;
      case S_I32: lo->u.i32 = (int32_t)s->min.i, hi->u.i32 = (int32_t)s->max.i; break;
      case S_I64: lo->u.i64 = s->min.i, hi->u.i64 = s->max.i; break;
      case S_F32:
        lo->u.f32 = s->min.d == 0 ? -0.0f : (float)s->min.d;
        hi->u.f32 = s->max.d == 0 ? 0.0f : (float)s->max.d;
        break;
      case S_F64:
        lo->u.f64 = s->min.d == 0 ? -0.0 : s->min.d;
        hi->u.f64 = s->max.d == 0 ? 0.0 : s->max.d;
        break;
      case S_I128: lo->u.i128 = s->min.q, hi->u.i128 = s->max.q; break;
      case S_BYTES:
        lo->u.bytes.p = s->bmin.data, lo->u.bytes.n = s->bmin.len;
        hi->u.bytes.p = s->bmax.data, hi->u.bytes.n = s->bmax.len;
        break;
    }
  }
  w->metrics.record_count = w->total_rows;
  w->metrics.file_size = (int64_t)w->pos;
  w->metrics.nsplit_offsets = w->nrgs;
  w->metrics.split_offsets = w->splits;
  w->metrics.ncolumns = nl;
  w->metrics.columns = w->col_metrics;
}

int pq_writer_close(pq_writer_t *w, fl_err_t *err) {
  int rc = FL_OK;
  if (w->failed || w->closed) {
    rc = fl_err_set(err, FL_EINVALID, "%s: the writer failed or is closed", w->path);
    goto fail;
  }
  if (w->rg_rows && (rc = flush_row_group(w, err))) goto fail;
  /* Page indexes: all column indexes, then all offset indexes. */
  uint64_t ci_base = w->pos;
  if ((rc = out_write(w, w->ci_buf.data, w->ci_buf.len, err))) goto fail;
  uint64_t oi_base = w->pos;
  if ((rc = out_write(w, w->oi_buf.data, w->oi_buf.len, err))) goto fail;
  for (uint32_t g = 0; g < w->nrgs; g++)
    for (uint32_t i = 0; i < w->rgs[g].ncolumns; i++) {
      pq_column_chunk_t *cc = &w->rgs[g].columns[i];
      if (cc->has_column_index) cc->column_index_offset += (int64_t)ci_base;
      if (cc->has_offset_index) cc->offset_index_offset += (int64_t)oi_base;
    }
  pq_file_meta_t fm;
  memset(&fm, 0, sizeof fm);
  fm.version = 2;
  fm.nschema = w->sch.nelems;
  fm.schema = w->sch.elems;
  fm.num_rows = w->total_rows;
  fm.nrow_groups = w->nrgs;
  fm.row_groups = w->rgs;
  fm.nkey_value = w->nkv;
  fm.key_value_metadata = w->kv;
  fm.created_by = "floe version " FLOE_VERSION;
  fm.ncolumn_orders = w->sch.nleaves;
  fl_buf_t foot;
  fl_buf_init(&foot);
  pq_meta_write_file(&fm, &foot);
  uint32_t flen = (uint32_t)foot.len;
  fl_buf_append_le32(&foot, flen);
  fl_buf_append(&foot, "PAR1", 4);
  rc = out_write(w, foot.data, foot.len, err);
  fl_buf_free(&foot);
  if (rc) goto fail;
  rc = w->out->commit(w->out, err);
  w->out = NULL;
  if (rc) goto fail;
  w->closed = true;
  fill_metrics(w);
  return FL_OK;
fail:
  w->failed = true;
  if (w->out) {
    w->out->abort(w->out);
    w->out = NULL;
  }
  return rc;
}

void pq_writer_free(pq_writer_t *w) {
  if (!w) return;
  if (w->out) w->out->abort(w->out);
  for (uint32_t i = 0; i < w->sch.nleaves; i++) col_free(&w->cols[i]);
  fl_free(w->cols);
  fl_free(w->slice_rows);
  fl_free(w->rgs);
  fl_free(w->ident);
  fl_free(w->kv);
  fl_free(w->col_metrics);
  fl_free(w->splits);
  fl_buf_free(&w->ci_buf);
  fl_buf_free(&w->oi_buf);
  fl_buf_free(&w->page);
  fl_buf_free(&w->comp);
  fl_buf_free(&w->hdr);
  fl_arena_free(w->arena);
  fl_free(w);
}

void pq_writer_abort(pq_writer_t *w) { pq_writer_free(w); }

const pq_row_group_t *pq__writer_row_groups(const pq_writer_t *w, uint32_t *n) {
  *n = w->nrgs;
  return w->rgs;
}

void pq_writer_size(const pq_writer_t *w, uint64_t *written, uint64_t *buffered) {
  *written = w->pos;
  *buffered = w->closed ? 0 : row_group_estimate(w);
}

const pq_file_metrics_t *pq_writer_metrics(const pq_writer_t *w) {
  return w->closed ? &w->metrics : NULL;
}
