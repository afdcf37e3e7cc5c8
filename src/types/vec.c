/*
 * vec.c - column vector memory management and the appends that are not
 * inline.
 */
#include "types/vec.h"

#include <assert.h>
#include <stdlib.h>

#include "base/alloc.h"

static bool has_offsets(const ty_type_t *t) {
  return t->kind == TY_STRING || t->kind == TY_BINARY || t->kind == TY_LIST || t->kind == TY_MAP;
}

ty_vec_t *ty_vec_new(const ty_type_t *t, uint32_t cap) {
  ty_vec_t *v = fl_calloc(1, sizeof *v);
  v->type = t;
  if (ty_is_nested(t)) {
    v->nchildren = t->nfields;
    v->children = fl_calloc(t->nfields, sizeof *v->children);
    /* List and map children usually hold several values per row. */
    uint32_t ccap = t->kind == TY_STRUCT ? cap : cap * 2;
    for (uint32_t i = 0; i < t->nfields; i++) v->children[i] = ty_vec_new(t->fields[i].type, ccap);
  }
  if (has_offsets(t)) {
    v->offsets = fl_malloc(sizeof(int32_t));
    v->offsets[0] = 0;
  }
  ty_vec_reserve(v, cap ? cap : 16);
  return v;
}

void ty_vec_free(ty_vec_t *v) {
  if (!v) return;
  for (uint32_t i = 0; i < v->nchildren; i++) ty_vec_free(v->children[i]);
  fl_free(v->children);
  fl_free(v->validity);
  fl_free(v->data);
  fl_free(v->offsets);
  fl_free(v->heap);
  fl_free(v);
}

void ty_vec_reset(ty_vec_t *v) {
  v->len = 0;
  v->null_count = 0;
  v->heap_len = 0;
  if (v->offsets) v->offsets[0] = 0;
  for (uint32_t i = 0; i < v->nchildren; i++) ty_vec_reset(v->children[i]);
}

bool ty_layout_equal(const ty_type_t *a, const ty_type_t *b) {
  if (ty_value_width(a) != ty_value_width(b) || has_offsets(a) != has_offsets(b) ||
      ty_is_nested(a) != ty_is_nested(b))
    return false;
  if (!ty_is_nested(a)) return true;
  if (a->kind != b->kind || a->nfields != b->nfields) return false;
  for (uint32_t i = 0; i < a->nfields; i++)
    if (!ty_layout_equal(a->fields[i].type, b->fields[i].type)) return false;
  return true;
}

void ty_vec_exchange(ty_vec_t *a, ty_vec_t *b) {
  assert(a->nchildren == b->nchildren);
  ty_vec_t t = *a;
  a->len = b->len;
  a->cap = b->cap;
  a->null_count = b->null_count;
  a->validity = b->validity;
  a->data = b->data;
  a->offsets = b->offsets;
  a->heap = b->heap;
  a->heap_len = b->heap_len;
  a->heap_cap = b->heap_cap;
  b->len = t.len;
  b->cap = t.cap;
  b->null_count = t.null_count;
  b->validity = t.validity;
  b->data = t.data;
  b->offsets = t.offsets;
  b->heap = t.heap;
  b->heap_len = t.heap_len;
  b->heap_cap = t.heap_cap;
  for (uint32_t i = 0; i < a->nchildren; i++) ty_vec_exchange(a->children[i], b->children[i]);
}

void ty_vec_reserve(ty_vec_t *v, uint32_t rows) {
  if (rows <= v->cap) return;
  uint32_t cap = v->cap ? v->cap : 16;
  while (cap < rows) cap *= 2;
  size_t old_bytes = (v->cap + 7) / 8, new_bytes = (cap + 7) / 8;
  v->validity = fl_realloc(v->validity, new_bytes);
  memset(v->validity + old_bytes, 0, new_bytes - old_bytes);
  size_t w = ty_value_width(v->type);
  if (w) v->data = fl_realloc(v->data, (size_t)cap * w);
  if (v->offsets) v->offsets = fl_realloc(v->offsets, ((size_t)cap + 1) * sizeof(int32_t));
  v->cap = cap;
}

void ty_vec_reserve_heap(ty_vec_t *v, size_t extra) {
  if (v->heap_cap - v->heap_len >= extra) return;
  size_t cap = v->heap_cap ? v->heap_cap : 4096;
  while (cap - v->heap_len < extra) cap *= 2;
  if (cap > INT32_MAX) abort(); /* offsets are 32-bit; batches stay far below */
  v->heap = fl_realloc(v->heap, cap);
  v->heap_cap = cap;
}

void ty_vec_append_bytes(ty_vec_t *v, const void *p, size_t n) {
  /* p may point into v's own buffers (appending a row of v to v): grow
   * first and re-point it, since growing moves them. */
  const uint8_t *src = p;
  if (v->len == v->cap) {
    const uint8_t *old = v->data;
    bool inside = old && src >= old && src < old + (size_t)v->cap * ty_value_width(v->type);
    ty__vec_grow1(v);
    if (inside) src = v->data + (src - old);
  }
  if (v->offsets && v->heap_cap - v->heap_len < n) {
    const uint8_t *old = v->heap;
    bool inside = old && src >= old && src < old + v->heap_cap;
    ty_vec_reserve_heap(v, n);
    if (inside) src = v->heap + (src - old);
  }
  p = src;
  ty__vec_mark(v, true);
  if (v->offsets) {
    if (n) memcpy(v->heap + v->heap_len, p, n);
    v->heap_len += n;
    v->offsets[v->len + 1] = (int32_t)v->heap_len;
  } else {
    size_t w = (size_t)v->type->length;
    uint8_t *dst = v->data + (size_t)v->len * w;
    if (n >= w) {
      memcpy(dst, p, w);
    } else {
      memcpy(dst, p, n);
      memset(dst + n, 0, w - n);
    }
  }
  v->len++;
}

void ty_vec_append_null(ty_vec_t *v) {
  ty__vec_grow1(v);
  ty__vec_mark(v, false);
  size_t w = ty_value_width(v->type);
  if (w) memset(v->data + (size_t)v->len * w, 0, w);
  switch (v->type->kind) {
    case TY_STRING:
    case TY_BINARY: v->offsets[v->len + 1] = (int32_t)v->heap_len; break;
    case TY_LIST:
    case TY_MAP: v->offsets[v->len + 1] = (int32_t)v->children[0]->len; break;
    case TY_STRUCT:
      for (uint32_t i = 0; i < v->nchildren; i++) ty_vec_append_null(v->children[i]);
      break;
    default: break;
  }
  v->len++;
}

void ty_vec_append_list_end(ty_vec_t *v) {
  ty__vec_grow1(v);
  ty__vec_mark(v, true);
  v->offsets[v->len + 1] = (int32_t)v->children[0]->len;
  v->len++;
}

void ty_vec_append_struct(ty_vec_t *v) {
  ty__vec_grow1(v);
  ty__vec_mark(v, true);
  v->len++;
}

void ty_vec_append_from(ty_vec_t *v, const ty_vec_t *src, uint32_t i) {
  if (ty_vec_is_null(src, i)) {
    ty_vec_append_null(v);
    return;
  }
  switch (v->type->kind) {
    case TY_STRING:
    case TY_BINARY:
    case TY_UUID:
    case TY_FIXED: {
      size_t n;
      const uint8_t *p = ty_vec_get_bytes(src, i, &n);
      ty_vec_append_bytes(v, p, n);
      return;
    }
    case TY_STRUCT:
      for (uint32_t c = 0; c < v->nchildren; c++) ty_vec_append_from(v->children[c], src->children[c], i);
      ty_vec_append_struct(v);
      return;
    case TY_LIST:
    case TY_MAP:
      for (int32_t e = src->offsets[i]; e < src->offsets[i + 1]; e++)
        for (uint32_t c = 0; c < v->nchildren; c++)
          ty_vec_append_from(v->children[c], src->children[c], (uint32_t)e);
      ty_vec_append_list_end(v);
      return;
    default: {
      size_t w = ty_value_width(v->type);
      ty__vec_grow1(v);
      ty__vec_mark(v, true);
      memcpy(v->data + (size_t)v->len * w, src->data + (size_t)i * w, w);
      v->len++;
    }
  }
}

ty_batch_t *ty_batch_new(const ty_schema_t *schema, uint32_t cap) {
  ty_batch_t *b = fl_calloc(1, sizeof *b);
  b->schema = schema;
  b->ncols = schema->root.nfields;
  b->cols = fl_calloc(b->ncols ? b->ncols : 1, sizeof *b->cols);
  for (uint32_t i = 0; i < b->ncols; i++) b->cols[i] = ty_vec_new(schema->root.fields[i].type, cap);
  return b;
}

void ty_batch_free(ty_batch_t *b) {
  if (!b) return;
  for (uint32_t i = 0; i < b->ncols; i++) ty_vec_free(b->cols[i]);
  fl_free(b->cols);
  fl_free(b->sel);
  fl_free(b);
}

void ty_batch_reset(ty_batch_t *b) {
  for (uint32_t i = 0; i < b->ncols; i++) ty_vec_reset(b->cols[i]);
  b->nrows = 0;
  if (b->sel) {
    fl_free(b->sel);
    b->sel = NULL;
    b->sel_cap = 0;
  }
  b->nsel = 0;
}

void ty_batch_seal(ty_batch_t *b) { b->nrows = b->ncols ? b->cols[0]->len : b->nrows; }

void ty_batch_select(ty_batch_t *b, const uint32_t *rows, uint32_t n) {
  if (b->sel_cap < n || !b->sel) {
    b->sel = fl_realloc(b->sel, (n ? n : 1) * sizeof(uint32_t));
    b->sel_cap = n;
  }
  if (n) memcpy(b->sel, rows, n * sizeof(uint32_t));
  b->nsel = n;
}
