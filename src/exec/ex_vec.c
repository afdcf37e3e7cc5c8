/*
 * ex_vec.c - gather, live-row copy and sizing of vectors.
 */
#include "exec/ex_vec.h"

#include "base/alloc.h"

static inline uint32_t row_at(const uint32_t *rows, uint32_t k) { return rows ? rows[k] : k; }

static void copy_validity(ty_vec_t *dst, const ty_vec_t *src, const uint32_t *rows, uint32_t n) {
  uint32_t base = dst->len;
  if (src->null_count == 0) {
    for (uint32_t k = 0; k < n; k++) {
      uint32_t i = base + k;
      dst->validity[i >> 3] |= (uint8_t)(1u << (i & 7));
    }
    return;
  }
  for (uint32_t k = 0; k < n; k++) {
    uint32_t i = base + k;
    if (ty_vec_is_valid(src, row_at(rows, k)))
      dst->validity[i >> 3] |= (uint8_t)(1u << (i & 7));
    else {
      dst->validity[i >> 3] &= (uint8_t) ~(1u << (i & 7));
      dst->null_count++;
    }
  }
}

#define GATHER_FIXED(T)                                   \
  do {                                                    \
    T *d = (T *)dst->data + dst->len;                     \
    const T *s = (const T *)src->data;                    \
    if (rows)                                             \
      for (uint32_t k = 0; k < n; k++) d[k] = s[rows[k]]; \
    else                                                  \
      memcpy(d, s, (size_t)n * sizeof(T));                \
  } while (0)

void ex_vec_gather(ty_vec_t *dst, const ty_vec_t *src, const uint32_t *rows, uint32_t n) {
  if (n == 0) return;
  const ty_type_t *t = dst->type;
  if (ty_is_nested(t)) {
    /* Nested values recurse through their children; rare in keys and sort
     * payloads, so the row-at-a-time copy is fine here. */
    for (uint32_t k = 0; k < n; k++) ty_vec_append_from(dst, src, row_at(rows, k));
    return;
  }
  ty_vec_reserve(dst, dst->len + n);
  copy_validity(dst, src, rows, n);
  switch (t->kind) {
    case TY_STRING:
    case TY_BINARY: {
      size_t bytes = 0;
      for (uint32_t k = 0; k < n; k++) {
        uint32_t r = row_at(rows, k);
        bytes += (size_t)(src->offsets[r + 1] - src->offsets[r]);
      }
      ty_vec_reserve_heap(dst, bytes);
      for (uint32_t k = 0; k < n; k++) {
        uint32_t r = row_at(rows, k);
        size_t len = (size_t)(src->offsets[r + 1] - src->offsets[r]);
        if (len) memcpy(dst->heap + dst->heap_len, src->heap + src->offsets[r], len);
        dst->heap_len += len;
        dst->offsets[dst->len + k + 1] = (int32_t)dst->heap_len;
      }
      break;
    }
    default: {
      size_t w = ty_value_width(t);
      switch (w) {
        case 1: GATHER_FIXED(uint8_t); break;
        case 4: GATHER_FIXED(uint32_t); break;
        case 8: GATHER_FIXED(uint64_t); break;
        default:
          for (uint32_t k = 0; k < n; k++)
            memcpy(dst->data + (size_t)(dst->len + k) * w, src->data + (size_t)row_at(rows, k) * w,
                   w);
      }
    }
  }
  dst->len += n;
}

#define GATHER_MULTI(T)                                                                \
  do {                                                                                 \
    T *d = (T *)dst->data + dst->len;                                                  \
    for (uint32_t k = 0; k < n; k++) {                                                 \
      if (k + 16 < n) __builtin_prefetch((const T *)srcs[k + 16]->data + idx[k + 16]); \
      d[k] = ((const T *)srcs[k]->data)[idx[k]];                                       \
    }                                                                                  \
  } while (0)

void ex_vec_gather_multi(ty_vec_t *dst, const ty_vec_t *const *srcs, const uint32_t *idx,
                         uint32_t n) {
  if (n == 0) return;
  const ty_type_t *t = dst->type;
  size_t w = ty_value_width(t);
  if (ty_is_nested(t) || ty_is_varlen(t) || (w != 1 && w != 4 && w != 8)) {
    for (uint32_t k = 0; k < n; k++) ty_vec_append_from(dst, srcs[k], idx[k]);
    return;
  }
  ty_vec_reserve(dst, dst->len + n);
  for (uint32_t k = 0; k < n; k++) {
    uint32_t i = dst->len + k;
    if (!srcs[k]->null_count || ty_vec_is_valid(srcs[k], idx[k]))
      dst->validity[i >> 3] |= (uint8_t)(1u << (i & 7));
    else {
      dst->validity[i >> 3] &= (uint8_t) ~(1u << (i & 7));
      dst->null_count++;
    }
  }
  switch (w) {
    case 1: GATHER_MULTI(uint8_t); break;
    case 4: GATHER_MULTI(uint32_t); break;
    default: GATHER_MULTI(uint64_t); break;
  }
  dst->len += n;
}

void ex_vec_append_nulls(ty_vec_t *dst, uint32_t n) {
  for (uint32_t k = 0; k < n; k++) ty_vec_append_null(dst);
}

void ex_batch_append_live(ty_batch_t *dst, const ty_batch_t *src) {
  for (uint32_t c = 0; c < dst->ncols; c++)
    ex_vec_gather(dst->cols[c], src->cols[c], src->sel, ty_batch_live(src));
  if (dst->ncols)
    ty_batch_seal(dst);
  else
    dst->nrows += ty_batch_live(src);
}

size_t ex_vec_bytes(const ty_vec_t *v) {
  size_t n = sizeof *v + (v->cap + 7) / 8 + (size_t)v->cap * ty_value_width(v->type) + v->heap_cap;
  if (v->offsets) n += ((size_t)v->cap + 1) * sizeof(int32_t);
  for (uint32_t i = 0; i < v->nchildren; i++) n += ex_vec_bytes(v->children[i]);
  return n;
}

size_t ex_batch_bytes(const ty_batch_t *b) {
  size_t n = sizeof *b + b->sel_cap * sizeof(uint32_t);
  for (uint32_t c = 0; c < b->ncols; c++) n += ex_vec_bytes(b->cols[c]);
  return n;
}

/* Checks that every binary value headed for a fixed(L) vector has L bytes. */
static int adapt_check(const ty_type_t *dt, const ty_vec_t *src, fl_err_t *err) {
  if (dt->kind == TY_FIXED && src->type->kind != TY_FIXED) {
    for (uint32_t i = 0; i < src->len; i++) {
      if (ty_vec_is_null(src, i)) continue;
      size_t n;
      ty_vec_get_bytes(src, i, &n);
      if (n != (size_t)dt->length)
        return fl_err_set(err, FL_EINVALID,
                          "A varbinary value of %zu bytes cannot be written to a fixed(%d) column",
                          n, dt->length);
    }
    return FL_OK;
  }
  if (!ty_is_nested(dt)) return FL_OK;
  for (uint32_t c = 0; c < dt->nfields && c < src->nchildren; c++) {
    int rc = adapt_check(dt->fields[c].type, src->children[c], err);
    if (rc) return rc;
  }
  return FL_OK;
}

int ex_vec_adapt(ty_vec_t *dst, const ty_vec_t *src, fl_err_t *err) {
  int rc = adapt_check(dst->type, src, err);
  if (rc) return rc;
  ty_vec_reset(dst);
  ty_vec_reserve(dst, src->len ? src->len : 1);
  /* ty_vec_append_from reads bytes through ty_vec_get_bytes, which knows
   * both layouts, and writes in dst's. */
  for (uint32_t i = 0; i < src->len; i++) ty_vec_append_from(dst, src, i);
  return FL_OK;
}

void ex_write_adapt_free(ex_write_adapt_t *w) {
  for (uint32_t c = 0; c < w->n; c++) ty_vec_free(w->owned[c]);
  fl_free(w->owned);
  fl_free(w->cols);
  *w = (ex_write_adapt_t){0};
}

int ex_write_adapt(ex_write_adapt_t *w, const ty_schema_t *schema, const ty_batch_t *b,
                   ty_batch_t *view, fl_err_t *err) {
  *view = *b;
  view->schema = schema;
  uint32_t n = b->ncols < schema->root.nfields ? b->ncols : schema->root.nfields;
  bool any = false;
  for (uint32_t c = 0; c < n && !any; c++)
    any = !ty_layout_equal(b->cols[c]->type, schema->root.fields[c].type);
  if (!any) return FL_OK;
  if (w->n < b->ncols) {
    w->owned = fl_realloc(w->owned, b->ncols * sizeof *w->owned);
    w->cols = fl_realloc(w->cols, b->ncols * sizeof *w->cols);
    for (uint32_t c = w->n; c < b->ncols; c++) w->owned[c] = NULL;
    w->n = b->ncols;
  }
  for (uint32_t c = 0; c < b->ncols; c++) {
    w->cols[c] = b->cols[c];
    if (c >= n || ty_layout_equal(b->cols[c]->type, schema->root.fields[c].type)) continue;
    if (w->owned[c] && w->owned[c]->type != schema->root.fields[c].type) {
      ty_vec_free(w->owned[c]);
      w->owned[c] = NULL;
    }
    if (!w->owned[c]) w->owned[c] = ty_vec_new(schema->root.fields[c].type, b->nrows);
    int rc = ex_vec_adapt(w->owned[c], b->cols[c], err);
    if (rc) return fl_err_prefix(err, "column %s: ", schema->root.fields[c].name);
    w->cols[c] = w->owned[c];
  }
  view->cols = w->cols;
  return FL_OK;
}
