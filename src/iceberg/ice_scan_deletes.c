/*
 * ice_scan_deletes.c - loading the delete files a scan task applies
 * (layer 5, iceberg).
 *
 * Position delete files hold (file_path, pos) rows sorted by path and
 * position; a data file needs only its own rows, so each delete file is
 * read with row groups pruned by file_path = the data file's path, and
 * the positions kept form one sorted, deduplicated array per data file.
 *
 * Deletion vectors (v3) are blobs inside Puffin files at the offset and
 * size the manifest gives: a big-endian length, the magic D1 D3 39 64, a
 * 64-bit Roaring bitmap of deleted positions in the portable layout (a
 * count of 32-bit bitmaps, each a key of the high bits and a standard
 * 32-bit Roaring bitmap of array, bitmap and run containers) and a
 * big-endian CRC-32 of magic and bitmap. Every count and length is
 * checked against the blob before use.
 *
 * Equality delete files hold rows of the equality columns; every row is
 * a key that deletes the data rows equal to it on those columns, nulls
 * equal to nulls. Keys are converted to the scan schema's types first
 * (so an int column promoted to long compares by value) and encoded as
 * bytes: per column a presence byte, then the value (fixed-width values
 * raw, NaN canonical; strings and binary length-prefixed). A set is
 * loaded once per scan and dropped after the last task that applies it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/hash.h"
#include "iceberg/ice_scan_int.h"

static bool is_puffin(const ice_data_file_t *d) {
  return (d->format && strcasecmp(d->format, "PUFFIN") == 0) || d->content_offset >= 0;
}

static const ty_schema_t *pos_schema(fl_arena_t *a) {
  ty_field_t f[2] = {
      {.id = ICE_POS_FILE_PATH_ID,
       .name = "file_path",
       .required = true,
       .type = ty_primitive(TY_STRING)},
      {.id = ICE_POS_POS_ID, .name = "pos", .required = true, .type = ty_primitive(TY_LONG)},
  };
  return ty_schema_new(a, 0, f, 2);
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return a < b ? -1 : a > b;
}

/* ---- deletion vectors ---- */

#define DV_MAX_BYTES (1u << 30)

typedef struct pos_vec {
  int64_t *v;
  size_t n, cap;
  int64_t limit; /* the data file's rows; -1: unknown */
} pos_vec_t;

/* Positions at or past the data file's row count delete nothing and are
 * dropped, so a hostile bitmap cannot make the array outgrow the file. */
static void pos_push(pos_vec_t *p, int64_t x) {
  if (p->limit >= 0 && x >= p->limit) return;
  if (p->n == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 1024;
    p->v = fl_realloc(p->v, p->cap * sizeof *p->v);
  }
  p->v[p->n++] = x;
}

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* Decodes one 32-bit Roaring bitmap at b[*at..n) with high bits hi. */
static int roaring32(const uint8_t *b, size_t n, size_t *at, uint64_t hi, pos_vec_t *out,
                     const char *what, fl_err_t *err) {
  size_t p = *at;
#define NEED(k)                                                                                    \
  do {                                                                                             \
    if ((k) > n - p)                                                                               \
      return fl_err_set(err, FL_ECORRUPT, "deletion vector %s: bitmap truncated at %zu", what, p); \
  } while (0)
  NEED(4);
  uint32_t cookie = fl_load_le32(b + p);
  p += 4;
  uint32_t nc;
  const uint8_t *runs = NULL;
  bool offsets;
  if ((cookie & 0xFFFF) == 12347) {
    nc = (cookie >> 16) + 1;
    NEED((nc + 7) / 8);
    runs = b + p;
    p += (nc + 7) / 8;
    offsets = nc >= 4;
  } else if (cookie == 12346) {
    NEED(4);
    nc = fl_load_le32(b + p);
    p += 4;
    offsets = true;
  } else {
    return fl_err_set(err, FL_ECORRUPT, "deletion vector %s: unknown Roaring cookie %u", what,
                      cookie);
  }
  if (nc > 65536)
    return fl_err_set(err, FL_ECORRUPT, "deletion vector %s: %u containers", what, nc);
  NEED((size_t)nc * 4);
  const uint8_t *desc = b + p;
  p += (size_t)nc * 4;
  if (offsets) {
    NEED((size_t)nc * 4);
    p += (size_t)nc * 4;
  }
  for (uint32_t i = 0; i < nc; i++) {
    uint64_t base = hi << 32 | (uint64_t)le16(desc + 4 * i) << 16;
    uint32_t card = (uint32_t)le16(desc + 4 * i + 2) + 1;
    if (runs && (runs[i / 8] >> (i % 8) & 1)) {
      NEED(2);
      uint32_t nr = le16(b + p);
      p += 2;
      NEED((size_t)nr * 4);
      for (uint32_t r = 0; r < nr; r++) {
        uint32_t start = le16(b + p + 4 * r), len = (uint32_t)le16(b + p + 4 * r + 2) + 1;
        if (start + len > 65536)
          return fl_err_set(err, FL_ECORRUPT, "deletion vector %s: run past its container", what);
        for (uint32_t v = 0;
             v < len && (out->limit < 0 || (int64_t)(base + start + v) < out->limit); v++)
          pos_push(out, (int64_t)(base + start + v));
      }
      p += (size_t)nr * 4;
    } else if (card > 4096) {
      NEED(8192);
      for (uint32_t w = 0; w < 1024; w++) {
        uint64_t word = fl_load_le64(b + p + 8 * w);
        while (word) {
          int bit = __builtin_ctzll(word);
          pos_push(out, (int64_t)(base + w * 64u + (uint32_t)bit));
          word &= word - 1;
        }
      }
      p += 8192;
    } else {
      NEED((size_t)card * 2);
      for (uint32_t k = 0; k < card; k++) pos_push(out, (int64_t)(base + le16(b + p + 2 * k)));
      p += (size_t)card * 2;
    }
  }
#undef NEED
  *at = p;
  return FL_OK;
}

static int parse_dv(const uint8_t *b, size_t n, pos_vec_t *out, const char *what, fl_err_t *err) {
  if (n < 12 || be32(b) != n - 8 || memcmp(b + 4, "\xD1\xD3\x39\x64", 4) != 0)
    return fl_err_set(err, FL_ECORRUPT,
                      "deletion vector %s: not a deletion-vector-v1 blob (%zu bytes)", what, n);
  uint32_t crc = fl_crc32(0, b + 4, n - 8);
  if (crc != be32(b + n - 4))
    return fl_err_set(err, FL_ECORRUPT, "deletion vector %s: CRC mismatch", what);
  const uint8_t *v = b + 8;
  size_t vn = n - 12, at = 8;
  if (vn < 8) return fl_err_set(err, FL_ECORRUPT, "deletion vector %s: truncated", what);
  uint64_t nb = fl_load_le64(v);
  if (nb > vn / 8)
    return fl_err_set(err, FL_ECORRUPT, "deletion vector %s: %llu bitmaps", what,
                      (unsigned long long)nb);
  for (uint64_t i = 0; i < nb; i++) {
    if (vn - at < 4) return fl_err_set(err, FL_ECORRUPT, "deletion vector %s: truncated", what);
    uint32_t key = fl_load_le32(v + at);
    at += 4;
    if (key > INT32_MAX)
      return fl_err_set(err, FL_ECORRUPT, "deletion vector %s: key %u", what, key);
    int rc = roaring32(v, vn, &at, key, out, what, err);
    if (rc) return rc;
  }
  return FL_OK;
}

static int read_dv(ice_scan_t *s, const ice_data_file_t *d, pos_vec_t *out, fl_err_t *err) {
  if (d->content_offset < 0 || d->content_size < 12 || d->content_size > DV_MAX_BYTES)
    return fl_err_set(err, FL_ECORRUPT,
                      "deletion vector %s: content offset %lld and size %lld are not usable",
                      d->path, (long long)d->content_offset, (long long)d->content_size);
  fl_arena_t *a = fl_arena_new(0);
  const char *path = ice_table_path(s->t, a, d->path);
  io_reader_t *in;
  int rc = s->t->fs->open_read(s->t->fs, path, &in, err);
  uint8_t *buf = NULL;
  if (rc) goto out;
  if ((uint64_t)d->content_offset > in->size ||
      (uint64_t)d->content_size > in->size - (uint64_t)d->content_offset) {
    rc = fl_err_set(
        err, FL_ECORRUPT, "deletion vector %s: blob at %lld+%lld lies outside %llu bytes", d->path,
        (long long)d->content_offset, (long long)d->content_size, (unsigned long long)in->size);
  } else {
    buf = fl_try_malloc((size_t)d->content_size);
    if (!buf)
      rc = fl_err_set(err, FL_ENOMEM, "deletion vector %s: %lld bytes", d->path,
                      (long long)d->content_size);
    if (!rc) rc = in->read_at(in, (uint64_t)d->content_offset, buf, (size_t)d->content_size, err);
    if (!rc) {
      s->stats.bytes_read += (uint64_t)d->content_size;
      rc = parse_dv(buf, (size_t)d->content_size, out, d->path, err);
    }
  }
  in->close(in);
out:
  fl_free(buf);
  fl_arena_free(a);
  return rc;
}

static int read_positions(ice_scan_t *s, const ice_manifest_entry_t *d, const char *data_path,
                          const ty_schema_t *ps, ty_batch_t *b, int64_t **v, size_t *n, size_t *cap,
                          fl_err_t *err) {
  fl_arena_t *a = fl_arena_new(0);
  const char *path = ice_table_path(s->t, a, d->file.path);
  int32_t top[2] = {ICE_POS_FILE_PATH_ID, ICE_POS_POS_ID};
  pq_pred_term_t term = {.field_id = ICE_POS_FILE_PATH_ID, .op = PQ_OP_EQ};
  term.value.kind = TY_STRING;
  term.value.u.bytes.p = (const uint8_t *)data_path;
  term.value.u.bytes.n = strlen(data_path);
  ice_file_read_t *f;
  int rc = ice__file_open(s, path, NULL, top, 2, &term, 1, &f, err);
  if (rc) goto out;
  size_t plen = strlen(data_path);
  uint32_t *rows = fl_malloc(TY_BATCH_ROWS * sizeof *rows);
  for (;;) {
    ty_batch_t *raw;
    int64_t first;
    if ((rc = ice__file_next(f, &raw, &first, err)) || !raw) break;
    for (uint32_t k = 0; k < raw->nrows; k++) rows[k] = k;
    ty_batch_reset(b);
    if ((rc = ice__file_convert(f, raw, rows, raw->nrows, true, b, err))) break;
    const ty_vec_t *pv = b->cols[0], *ov = b->cols[1];
    for (uint32_t k = 0; k < raw->nrows; k++) {
      if (ty_vec_is_null(pv, k) || ty_vec_is_null(ov, k)) continue;
      size_t len;
      const uint8_t *p = ty_vec_get_bytes(pv, k, &len);
      if (len != plen || memcmp(p, data_path, plen) != 0) continue;
      if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 1024;
        *v = fl_realloc(*v, *cap * sizeof **v);
      }
      (*v)[(*n)++] = TY_VEC_DATA(ov, int64_t)[k];
    }
  }
  fl_free(rows);
  s->stats.bytes_read += ice__file_stats(f)->bytes_read;
  ice__file_close(f);
out:
  if (rc) fl_err_prefix(err, "position delete file %s: ", d->file.path);
  fl_arena_free(a);
  return rc;
}

int ice__load_positions(ice_scan_t *s, const ice_scan_task_t *task, int64_t **out, size_t *n,
                        fl_err_t *err) {
  *out = NULL;
  *n = 0;
  size_t cap = 0;
  fl_arena_t *a = fl_arena_new(0);
  const ty_schema_t *ps = pos_schema(a);
  ty_batch_t *b = ty_batch_new(ps, TY_BATCH_ROWS);
  int rc = FL_OK;
  for (uint32_t i = 0; i < task->ndeletes && !rc; i++) {
    const ice_manifest_entry_t *d = task->deletes[i];
    if (d->file.content != ICE_CONTENT_POSITION_DELETES) continue;
    if (is_puffin(&d->file)) {
      pos_vec_t pv = {*out, *n, cap, task->data->file.record_count};
      rc = read_dv(s, &d->file, &pv, err);
      *out = pv.v;
      *n = pv.n;
      cap = pv.cap;
      continue;
    }
    rc = read_positions(s, d, task->data->file.path, ps, b, out, n, &cap, err);
  }
  ty_batch_free(b);
  fl_arena_free(a);
  if (rc) {
    fl_free(*out);
    *out = NULL;
    *n = 0;
    return rc;
  }
  if (*n > 1) {
    qsort(*out, *n, sizeof **out, cmp_i64);
    size_t w = 1;
    for (size_t i = 1; i < *n; i++)
      if ((*out)[i] != (*out)[w - 1]) (*out)[w++] = (*out)[i];
    *n = w;
  }
  return FL_OK;
}

void ice__eq_key(const ty_vec_t *const *cols, uint32_t ncols, uint32_t r, fl_buf_t *key) {
  for (uint32_t c = 0; c < ncols; c++) {
    const ty_vec_t *v = cols[c];
    if (!v || ty_vec_is_null(v, r)) {
      fl_buf_append_u8(key, 0);
      continue;
    }
    fl_buf_append_u8(key, 1);
    switch (v->type->kind) {
      case TY_FLOAT: {
        float x = TY_VEC_DATA(v, float)[r];
        if (isnan(x)) x = NAN;
        fl_buf_append(key, &x, sizeof x);
        break;
      }
      case TY_DOUBLE: {
        double x = TY_VEC_DATA(v, double)[r];
        if (isnan(x)) x = NAN;
        fl_buf_append(key, &x, sizeof x);
        break;
      }
      case TY_STRING:
      case TY_BINARY: {
        size_t n;
        const uint8_t *p = ty_vec_get_bytes(v, r, &n);
        fl_buf_append_le32(key, (uint32_t)n);
        fl_buf_append(key, p, n);
        break;
      }
      default: {
        size_t w = ty_value_width(v->type);
        if (w) fl_buf_append(key, v->data + (size_t)r * w, w);
        break;
      }
    }
  }
}

int ice__load_eq_set(ice_scan_t *s, ice_eq_set_t *set, fl_err_t *err) {
  if (set->loaded) return FL_OK;
  const ice_data_file_t *d = &set->file->file;
  if (!d->format || strcasecmp(d->format, "PARQUET") != 0)
    return fl_err_set(err, FL_EUNSUPPORTED, "equality delete file %s is %s; only Parquet is read",
                      d->path, d->format ? d->format : "of no format");
  for (uint32_t i = 0; i < set->nids; i++) {
    const ty_field_t *f = ty_schema_find_id(s->schema, set->ids[i]);
    if (!f || ty_is_nested(f->type))
      return fl_err_set(err, FL_EUNSUPPORTED,
                        "equality delete file %s: equality field id %d is %s in schema %d", d->path,
                        (int)set->ids[i], f ? "not a primitive column" : "not a column",
                        (int)s->schema->schema_id);
  }
  fl_arena_t *a = fl_arena_new(0);
  const ty_type_t *kt = ice__prune_struct(a, &s->schema->root, set->ids, set->nids);
  const ty_schema_t *ks = ty_schema_new(a, s->schema->schema_id, kt->fields, kt->nfields);
  int32_t *top = fl_arena_alloc(a, (kt->nfields ? kt->nfields : 1) * sizeof *top);
  for (uint32_t i = 0; i < kt->nfields; i++) top[i] = kt->fields[i].id;
  ty_batch_t *b = ty_batch_new(ks, TY_BATCH_ROWS);
  const ty_vec_t **cols = fl_arena_alloc(a, set->nids * sizeof *cols);
  ice__find_cols(ks, b, set->ids, set->nids, cols);
  uint32_t *rows = fl_malloc(TY_BATCH_ROWS * sizeof *rows);
  fl_buf_t key;
  fl_buf_init(&key);
  fl_strset_init(&set->keys);
  set->loaded = true;
  ice_file_read_t *f = NULL;
  int rc =
      ice__file_open(s, ice_table_path(s->t, a, d->path), d, top, kt->nfields, NULL, 0, &f, err);
  while (!rc) {
    ty_batch_t *raw;
    int64_t first;
    if ((rc = ice__file_next(f, &raw, &first, err)) || !raw) break;
    for (uint32_t k = 0; k < raw->nrows; k++) rows[k] = k;
    ty_batch_reset(b);
    if ((rc = ice__file_convert(f, raw, rows, raw->nrows, true, b, err))) break;
    for (uint32_t k = 0; k < raw->nrows; k++) {
      fl_buf_clear(&key);
      ice__eq_key(cols, set->nids, k, &key);
      fl_strset_add(&set->keys, key.data, key.len);
    }
  }
  if (f) {
    s->stats.bytes_read += ice__file_stats(f)->bytes_read;
    ice__file_close(f);
  }
  fl_buf_free(&key);
  fl_free(rows);
  ty_batch_free(b);
  fl_arena_free(a);
  if (rc) return fl_err_prefix(err, "equality delete file %s: ", d->path);
  return FL_OK;
}
