/*
 * ex_sortkey.c - encoding ORDER BY columns into normalized keys, one
 * column at a time: a first pass adds each row's encoded length, a second
 * writes each row's bytes at its cursor. The type is looked at once per
 * column, not per row.
 */
#include "exec/ex_sortkey.h"

#include <math.h>

#include "base/alloc.h"

struct ex_sortkey {
  uint32_t nkeys;
  ex_sort_key_t *keys;
  const ty_type_t **types;
  /* Scratch cursors, one per row of the batch being encoded. */
  uint64_t *cur;
  uint32_t cur_cap;
};

/* Arrays and rows sort by their elements; maps do not sort. */
static bool orderable(const ty_type_t *t) {
  if (t->kind == TY_MAP) return false;
  for (uint32_t i = 0; ty_is_nested(t) && i < t->nfields; i++)
    if (!orderable(t->fields[i].type)) return false;
  return true;
}

int ex_sortkey_new(const ty_schema_t *schema, const ex_sort_key_t *keys, uint32_t nkeys,
                   ex_sortkey_t **out, fl_err_t *err) {
  for (uint32_t i = 0; i < nkeys; i++) {
    if (keys[i].col >= schema->root.nfields)
      return fl_err_set(err, FL_EINVALID, "sort key %u: column %u of %u", i, keys[i].col,
                        schema->root.nfields);
    const ty_type_t *t = schema->root.fields[keys[i].col].type;
    if (!orderable(t))
      return fl_err_set(err, FL_EUNSUPPORTED, "sort key %u: column %s of type %s is not orderable",
                        i, schema->root.fields[keys[i].col].name, ty_kind_name(t->kind));
  }
  ex_sortkey_t *k = fl_calloc(1, sizeof *k);
  k->nkeys = nkeys;
  k->keys = fl_malloc((nkeys ? nkeys : 1) * sizeof *k->keys);
  if (nkeys) memcpy(k->keys, keys, nkeys * sizeof *keys);
  k->types = fl_malloc((nkeys ? nkeys : 1) * sizeof *k->types);
  for (uint32_t i = 0; i < nkeys; i++) k->types[i] = schema->root.fields[keys[i].col].type;
  *out = k;
  return FL_OK;
}

void ex_sortkey_free(ex_sortkey_t *k) {
  if (!k) return;
  fl_free(k->keys);
  fl_free(k->types);
  fl_free(k->cur);
  fl_free(k);
}

static inline uint32_t row_at(const uint32_t *rows, uint32_t k) { return rows ? rows[k] : k; }

static inline uint32_t f32_bits(float f) {
  if (f == 0) f = 0;
  uint32_t u;
  if (isnan(f))
    u = 0x7fc00000u;
  else
    memcpy(&u, &f, 4);
  return (u & 0x80000000u) ? ~u : u ^ 0x80000000u;
}

static inline uint64_t f64_bits(double d) {
  if (d == 0) d = 0;
  uint64_t u;
  if (isnan(d))
    u = 0x7ff8000000000000ULL;
  else
    memcpy(&u, &d, 8);
  return (u & 0x8000000000000000ULL) ? ~u : u ^ 0x8000000000000000ULL;
}

static inline void put_be(uint8_t *p, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; i--) {
    p[i] = (uint8_t)v;
    v >>= 8;
  }
}

/* Encoded bytes of row r of v (value bytes only, marker excluded). */
static size_t value_len(const ty_vec_t *v, uint32_t r) {
  switch (v->type->kind) {
    case TY_STRING:
    case TY_BINARY: {
      size_t n;
      const uint8_t *p = ty_vec_get_bytes(v, r, &n);
      size_t z = 0;
      for (size_t i = 0; i < n; i++) z += p[i] == 0;
      return n + z + 2;
    }
    case TY_UUID:
    case TY_FIXED: return (size_t)v->type->length;
    default: return ty_value_width(v->type);
  }
}

/*
 * Arrays and rows: each element (field) as a marker, 1 for a value
 * followed by its bytes, 2 for a NULL (NULLs after values); an array
 * ends with 0, so a prefix sorts first. Scalars inside as at the top.
 */
static size_t nested_len(const ty_vec_t *v, uint32_t r) {
  if (!ty_is_nested(v->type)) return value_len(v, r);
  size_t n = 0;
  if (v->type->kind == TY_STRUCT) {
    for (uint32_t f = 0; f < v->nchildren; f++)
      n += 1 + (ty_vec_is_null(v->children[f], r) ? 0 : nested_len(v->children[f], r));
    return n;
  }
  for (int32_t e = v->offsets[r]; e < v->offsets[r + 1]; e++)
    n += 1 + (ty_vec_is_null(v->children[0], (uint32_t)e)
                  ? 0
                  : nested_len(v->children[0], (uint32_t)e));
  return n + 1;
}

static size_t scalar_put(uint8_t *p, const ty_vec_t *v, uint32_t r);

static size_t nested_put(uint8_t *p, const ty_vec_t *v, uint32_t r) {
  if (!ty_is_nested(v->type)) return scalar_put(p, v, r);
  uint8_t *q = p;
  if (v->type->kind == TY_STRUCT) {
    for (uint32_t f = 0; f < v->nchildren; f++) {
      if (ty_vec_is_null(v->children[f], r)) {
        *q++ = 2;
        continue;
      }
      *q++ = 1;
      q += nested_put(q, v->children[f], r);
    }
    return (size_t)(q - p);
  }
  for (int32_t e = v->offsets[r]; e < v->offsets[r + 1]; e++) {
    if (ty_vec_is_null(v->children[0], (uint32_t)e)) {
      *q++ = 2;
      continue;
    }
    *q++ = 1;
    q += nested_put(q, v->children[0], (uint32_t)e);
  }
  *q++ = 0;
  return (size_t)(q - p);
}

/* Bytes of scalar row r of v (see the header for the encoding). */
static size_t scalar_put(uint8_t *p, const ty_vec_t *v, uint32_t r) {
  size_t len;
  switch (v->type->kind) {
    case TY_BOOLEAN:
      *p = v->data[r] ? 1 : 0;
      len = 1;
      break;
    case TY_INT:
    case TY_DATE:
      put_be(p, (uint32_t)TY_VEC_DATA(v, int32_t)[r] ^ 0x80000000u, 4);
      len = 4;
      break;
    case TY_FLOAT:
      put_be(p, f32_bits(TY_VEC_DATA(v, float)[r]), 4);
      len = 4;
      break;
    case TY_DOUBLE:
      put_be(p, f64_bits(TY_VEC_DATA(v, double)[r]), 8);
      len = 8;
      break;
    case TY_DECIMAL: {
      unsigned __int128 u =
          (unsigned __int128)ty_vec_get_i128(v, r) ^ ((unsigned __int128)1 << 127);
      put_be(p, (uint64_t)(u >> 64), 8);
      put_be(p + 8, (uint64_t)u, 8);
      len = 16;
      break;
    }
    case TY_STRING:
    case TY_BINARY: {
      size_t sn;
      const uint8_t *s = ty_vec_get_bytes(v, r, &sn);
      uint8_t *q = p;
      for (size_t j = 0; j < sn; j++) {
        *q++ = s[j];
        if (!s[j]) *q++ = 0xff;
      }
      *q++ = 0;
      *q++ = 0;
      len = (size_t)(q - p);
      break;
    }
    case TY_UUID:
    case TY_FIXED: {
      size_t sn;
      const uint8_t *s = ty_vec_get_bytes(v, r, &sn);
      memcpy(p, s, sn);
      len = sn;
      break;
    }
    default:
      put_be(p, (uint64_t)TY_VEC_DATA(v, int64_t)[r] ^ 0x8000000000000000ULL, 8);
      len = 8;
  }
  return len;
}

void ex_sortkey_encode(const ex_sortkey_t *kc, const ty_batch_t *b, const uint32_t *rows,
                       uint32_t n, fl_buf_t *out, uint64_t *offsets) {
  ex_sortkey_t *k = (ex_sortkey_t *)kc; /* only the scratch cursors change */
  if (n > k->cur_cap) {
    k->cur = fl_realloc(k->cur, n * sizeof *k->cur);
    k->cur_cap = n;
  }
  /* Pass 1: lengths. */
  for (uint32_t i = 0; i < n; i++) k->cur[i] = 0;
  for (uint32_t c = 0; c < k->nkeys; c++) {
    const ty_vec_t *v = b->cols[k->keys[c].col];
    if (ty_is_nested(v->type)) {
      for (uint32_t i = 0; i < n; i++) {
        uint32_t r = row_at(rows, i);
        k->cur[i] += 1 + (ty_vec_is_null(v, r) ? 0 : nested_len(v, r));
      }
      continue;
    }
    bool var = ty_is_varlen(v->type);
    size_t w = var ? 0 : value_len(v, 0);
    for (uint32_t i = 0; i < n; i++) {
      uint32_t r = row_at(rows, i);
      k->cur[i] += 1 + (ty_vec_is_null(v, r) ? 0 : (var ? value_len(v, r) : w));
    }
  }
  uint64_t base = out->len, total = 0;
  for (uint32_t i = 0; i < n; i++) {
    offsets[i] = base + total;
    total += k->cur[i];
    k->cur[i] = offsets[i];
  }
  offsets[n] = base + total;
  fl_buf_reserve(out, total);
  uint8_t *d = out->data;
  /* Pass 2: bytes, column by column. */
  for (uint32_t c = 0; c < k->nkeys; c++) {
    const ty_vec_t *v = b->cols[k->keys[c].col];
    bool desc = k->keys[c].desc;
    uint8_t null_mark = k->keys[c].nulls_first ? 0 : 2;
    for (uint32_t i = 0; i < n; i++) {
      uint32_t r = row_at(rows, i);
      uint8_t *p = d + k->cur[i];
      if (ty_vec_is_null(v, r)) {
        *p = null_mark;
        k->cur[i]++;
        continue;
      }
      *p++ = 1;
      size_t len = ty_is_nested(v->type) ? nested_put(p, v, r) : scalar_put(p, v, r);
      if (desc)
        for (size_t j = 0; j < len; j++) p[j] = (uint8_t)~p[j];
      k->cur[i] += 1 + len;
    }
  }
  out->len += total;
}
