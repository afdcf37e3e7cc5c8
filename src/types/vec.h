/*
 * vec.h - column vectors and batches (layer 3, types).
 *
 * A vector holds the values of one column (or one nested child) in the
 * layout its type implies:
 *   boolean           uint8_t per value (0 or 1)
 *   int, date         int32_t
 *   long, time, timestamps (micros or nanos)  int64_t
 *   float, double     float, double
 *   decimal           fl_i128, the unscaled value, whatever the precision
 *   uuid, fixed(L)    L bytes per value in data
 *   string, binary    offsets[len + 1] into one byte heap: no malloc per value
 *   struct            one child vector per field, each of the struct's length
 *   list              offsets[len + 1] into children[0] (the elements)
 *   map               offsets[len + 1] into children[0] (keys), children[1]
 *                     (values)
 * Validity is a bitmap (bit set = value present) that is always allocated;
 * null_count says whether it needs looking at. A null row still occupies
 * its slot (zeroed) and, for lists and maps, an empty range.
 *
 * Vectors own their buffers (heap memory reused across batches: reset keeps
 * capacity), so a reader fills the same batch over and over without
 * allocating. A vector is used by one thread at a time.
 */
#ifndef FL_TYPES_VEC_H
#define FL_TYPES_VEC_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "types/type.h"

#define TY_BATCH_ROWS 2048

typedef struct ty_vec ty_vec_t;
struct ty_vec {
  const ty_type_t *type;
  uint32_t len;        /* values in use */
  uint32_t cap;        /* values allocated */
  uint32_t null_count; /* nulls among the first len values */
  uint8_t *validity;   /* cap bits */
  uint8_t *data;       /* cap * width bytes for fixed-width types */
  int32_t *offsets;    /* cap + 1 entries for string, binary, list, map */
  uint8_t *heap;       /* string and binary bytes */
  size_t heap_len, heap_cap;
  uint32_t nchildren;
  ty_vec_t **children;
};

/* Creates an empty vector (and children) for type t with room for cap rows. */
ty_vec_t *ty_vec_new(const ty_type_t *t, uint32_t cap);
void ty_vec_free(ty_vec_t *v);
/* Empties the vector and its children, keeping their memory. */
void ty_vec_reset(ty_vec_t *v);
/* Makes room for `rows` values in total (not in addition). */
void ty_vec_reserve(ty_vec_t *v, uint32_t rows);
/* Makes room for `extra` more heap bytes. */
void ty_vec_reserve_heap(ty_vec_t *v, size_t extra);

static inline bool ty_vec_is_valid(const ty_vec_t *v, uint32_t i) {
  return (v->validity[i >> 3] >> (i & 7)) & 1;
}
static inline bool ty_vec_is_null(const ty_vec_t *v, uint32_t i) { return !ty_vec_is_valid(v, i); }

/* Typed views of data. */
#define TY_VEC_DATA(v, T) ((T *)(v)->data)

static inline void ty__vec_grow1(ty_vec_t *v) {
  if (v->len == v->cap) ty_vec_reserve(v, v->cap ? v->cap * 2 : 16);
}
static inline void ty__vec_mark(ty_vec_t *v, bool valid) {
  uint32_t i = v->len;
  if (valid)
    v->validity[i >> 3] |= (uint8_t)(1u << (i & 7));
  else {
    v->validity[i >> 3] &= (uint8_t)~(1u << (i & 7));
    v->null_count++;
  }
}

/* Appends one value. The vector's type must match the function. */
static inline void ty_vec_append_bool(ty_vec_t *v, bool x) {
  ty__vec_grow1(v);
  ty__vec_mark(v, true);
  v->data[v->len++] = x ? 1 : 0;
}
static inline void ty_vec_append_i32(ty_vec_t *v, int32_t x) {
  ty__vec_grow1(v);
  ty__vec_mark(v, true);
  ((int32_t *)v->data)[v->len++] = x;
}
static inline void ty_vec_append_i64(ty_vec_t *v, int64_t x) {
  ty__vec_grow1(v);
  ty__vec_mark(v, true);
  ((int64_t *)v->data)[v->len++] = x;
}
static inline void ty_vec_append_f32(ty_vec_t *v, float x) {
  ty__vec_grow1(v);
  ty__vec_mark(v, true);
  ((float *)v->data)[v->len++] = x;
}
static inline void ty_vec_append_f64(ty_vec_t *v, double x) {
  ty__vec_grow1(v);
  ty__vec_mark(v, true);
  ((double *)v->data)[v->len++] = x;
}
static inline void ty_vec_append_i128(ty_vec_t *v, fl_i128 x) {
  ty__vec_grow1(v);
  ty__vec_mark(v, true);
  memcpy(v->data + (size_t)v->len * 16, &x, 16);
  v->len++;
}
/* string/binary: copies n bytes into the heap; uuid/fixed: copies the
 * type's length (n must equal it). */
void ty_vec_append_bytes(ty_vec_t *v, const void *p, size_t n);
/* Appends a null (for struct: also a null into every child; list/map: an
 * empty range). */
void ty_vec_append_null(ty_vec_t *v);
/* Closes one list or map row whose elements were appended to the children
 * since the previous row. */
void ty_vec_append_list_end(ty_vec_t *v);
/* Closes one valid struct row whose children were each appended once. */
void ty_vec_append_struct(ty_vec_t *v);
/* Appends row i of src (same type) including nested data. */
void ty_vec_append_from(ty_vec_t *v, const ty_vec_t *src, uint32_t i);

/* Whether vectors of types a and b keep their values the same way (value
 * width, offsets, and children, recursively), so that their buffers can
 * be exchanged. */
bool ty_layout_equal(const ty_type_t *a, const ty_type_t *b);
/*
 * Exchanges the values of a and b - lengths, null counts, validity, data,
 * offsets and heap, and those of their children - in O(1) per vector; each
 * vector keeps its own type and child objects, so pointers to either stay
 * valid. Their types must be ty_layout_equal. This is how a reader's batch
 * is handed on without copying: the reader refills its vector with the
 * other's old buffers.
 */
void ty_vec_exchange(ty_vec_t *a, ty_vec_t *b);

static inline fl_i128 ty_vec_get_i128(const ty_vec_t *v, uint32_t i) {
  fl_i128 x;
  memcpy(&x, v->data + (size_t)i * 16, 16);
  return x;
}
/* Bytes of a string/binary/uuid/fixed value. */
static inline const uint8_t *ty_vec_get_bytes(const ty_vec_t *v, uint32_t i, size_t *n) {
  if (v->offsets && !ty_is_nested(v->type)) {
    *n = (size_t)(v->offsets[i + 1] - v->offsets[i]);
    /* A vector of only empty values may have no heap yet. */
    return v->heap ? v->heap + v->offsets[i] : (const uint8_t *)"";
  }
  *n = (size_t)v->type->length;
  return v->data + (size_t)i * (size_t)v->type->length;
}

/*
 * A batch: the columns of a schema, each a vector of nrows values, and an
 * optional selection vector listing the rows that are live (ascending), so
 * that a filter need not copy.
 */
typedef struct ty_batch {
  const ty_schema_t *schema; /* the columns' fields, in order */
  uint32_t ncols;
  ty_vec_t **cols;
  uint32_t nrows;
  uint32_t *sel; /* NULL: all nrows rows are live */
  uint32_t nsel;
  uint32_t sel_cap;
} ty_batch_t;

ty_batch_t *ty_batch_new(const ty_schema_t *schema, uint32_t cap);
void ty_batch_free(ty_batch_t *b);
void ty_batch_reset(ty_batch_t *b);
/* Sets nrows from the columns' length (all must agree). */
void ty_batch_seal(ty_batch_t *b);
/* Live rows: nsel when a selection is set, nrows otherwise. */
static inline uint32_t ty_batch_live(const ty_batch_t *b) { return b->sel ? b->nsel : b->nrows; }
/* Sets a selection of n rows (copied). */
void ty_batch_select(ty_batch_t *b, const uint32_t *rows, uint32_t n);

#endif
