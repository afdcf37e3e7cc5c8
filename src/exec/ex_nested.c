/*
 * ex_nested.c - comparing values of any type one pair at a time: the
 * kernel of =, <>, <, IS DISTINCT FROM over arrays, maps and rows, and of
 * the array and map functions that look for, sort or deduplicate
 * elements (layer 8, exec).
 *
 * The outcome is one of less, equal, greater, unordered (a NaN) and
 * indeterminate (a NULL inside decided it). Three modes, as Trino:
 *   equality  arrays and rows are equal when every pair of elements is;
 *             one pair known to differ decides (ARRAY[1, NULL] = ARRAY[2,
 *             NULL] is false), else a NULL pair makes it indeterminate;
 *             maps compare their entries by key, in any order.
 *   order     lexicographic: the first pair that is not equal decides,
 *             then the shorter array is less; a NULL there is
 *             indeterminate. Maps are not orderable (the binder refuses).
 *   distinct  as equality, but NULL equals NULL and NaN equals NaN, and
 *             a total order (NULLs last) for sorting and deduplicating.
 */
#include <math.h>

#include "exec/ex_func_int.h"

static inline int bytes_cmp(const uint8_t *a, size_t na, const uint8_t *b, size_t nb) {
  size_t n = na < nb ? na : nb;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return c < 0 ? EX_CMP_LT : EX_CMP_GT;
  return na < nb ? EX_CMP_LT : na > nb ? EX_CMP_GT : EX_CMP_EQ;
}

#define ORDER3(x, y) ((x) < (y) ? EX_CMP_LT : (x) > (y) ? EX_CMP_GT : EX_CMP_EQ)

static int float_cmp(double x, double y, int mode) {
  if (x < y) return EX_CMP_LT;
  if (x > y) return EX_CMP_GT;
  if (x == y) return EX_CMP_EQ;
  if (mode != EX_CMP_DISTINCT) return EX_CMP_UN;
  return isnan(x) && isnan(y) ? EX_CMP_EQ : isnan(x) ? EX_CMP_GT : EX_CMP_LT;
}

/* Both present, a scalar storage kind. */
static int leaf_cmp(const ex_type_t *t, const ty_vec_t *a, uint32_t i, const ty_vec_t *b,
                    uint32_t j, int mode) {
  switch (a->type->kind) {
    case TY_BOOLEAN: return ORDER3(a->data[i], b->data[j]);
    case TY_INT:
    case TY_DATE: return ORDER3(TY_VEC_DATA(a, int32_t)[i], TY_VEC_DATA(b, int32_t)[j]);
    case TY_LONG:
    case TY_TIME:
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS: return ORDER3(TY_VEC_DATA(a, int64_t)[i], TY_VEC_DATA(b, int64_t)[j]);
    case TY_FLOAT: return float_cmp(TY_VEC_DATA(a, float)[i], TY_VEC_DATA(b, float)[j], mode);
    case TY_DOUBLE: return float_cmp(TY_VEC_DATA(a, double)[i], TY_VEC_DATA(b, double)[j], mode);
    case TY_DECIMAL: {
      int c = ex__dec_cmp(ty_vec_get_i128(a, i), t->scale, ty_vec_get_i128(b, j), t->scale);
      return c < 0 ? EX_CMP_LT : c > 0 ? EX_CMP_GT : EX_CMP_EQ;
    }
    default: {
      size_t na, nb;
      const uint8_t *pa = ty_vec_get_bytes(a, i, &na), *pb = ty_vec_get_bytes(b, j, &nb);
      return bytes_cmp(pa, na, pb, nb);
    }
  }
}

/* Folds one element outcome c into a running comparison; returns true
 * when the comparison is decided (*res set). */
static bool fold(int c, int mode, bool *saw_null, int *res) {
  if (c == EX_CMP_EQ) return false;
  if (c == EX_CMP_NULL) {
    *saw_null = true;
    if (mode == EX_CMP_ORDER) {
      *res = EX_CMP_NULL;
      return true;
    }
    return false;
  }
  *res = c;
  return true;
}

static int map_cmp(const ex_type_t *t, const ty_vec_t *a, uint32_t i, const ty_vec_t *b, uint32_t j,
                   int mode) {
  int32_t ab = a->offsets[i], ae = a->offsets[i + 1], bb = b->offsets[j], be = b->offsets[j + 1];
  if (ae - ab != be - bb) return ae - ab < be - bb ? EX_CMP_LT : EX_CMP_GT;
  const ty_vec_t *ak = a->children[0], *av = a->children[1], *bk = b->children[0],
                 *bv = b->children[1];
  bool saw_null = false;
  for (int32_t x = ab; x < ae; x++) {
    int32_t at = -1;
    for (int32_t y = bb; y < be && at < 0; y++)
      if (ex__value_cmp(t->key, ak, (uint32_t)x, bk, (uint32_t)y, EX_CMP_DISTINCT) == EX_CMP_EQ)
        at = y;
    if (at < 0) return EX_CMP_GT;
    int res, c = ex__value_cmp(t->elem, av, (uint32_t)x, bv, (uint32_t)at, mode);
    if (fold(c, mode, &saw_null, &res)) return res;
  }
  return saw_null ? EX_CMP_NULL : EX_CMP_EQ;
}

int ex__value_cmp(const ex_type_t *t, const ty_vec_t *a, uint32_t i, const ty_vec_t *b, uint32_t j,
                  int mode) {
  bool na = ty_vec_is_null(a, i), nb = ty_vec_is_null(b, j);
  if (na || nb) {
    if (mode != EX_CMP_DISTINCT) return EX_CMP_NULL;
    return na && nb ? EX_CMP_EQ : na ? EX_CMP_GT : EX_CMP_LT;
  }
  bool saw_null = false;
  int res;
  switch (a->type->kind) {
    case TY_STRUCT:
      for (uint32_t f = 0; f < a->nchildren && f < t->nfields; f++) {
        int c = ex__value_cmp(&t->fields[f].type, a->children[f], i, b->children[f], j, mode);
        if (fold(c, mode, &saw_null, &res)) return res;
      }
      return saw_null ? EX_CMP_NULL : EX_CMP_EQ;
    case TY_LIST: {
      int32_t ab = a->offsets[i], ae = a->offsets[i + 1], bb = b->offsets[j],
              be = b->offsets[j + 1];
      int32_t la = ae - ab, lb = be - bb;
      /* Arrays of different lengths are never equal. */
      if (mode == EX_CMP_EQUALITY && la != lb) return la < lb ? EX_CMP_LT : EX_CMP_GT;
      for (int32_t k = 0; k < la && k < lb; k++) {
        int c = ex__value_cmp(t->elem, a->children[0], (uint32_t)(ab + k), b->children[0],
                              (uint32_t)(bb + k), mode);
        if (fold(c, mode, &saw_null, &res)) return res;
      }
      if (saw_null) return EX_CMP_NULL;
      return ORDER3(la, lb);
    }
    case TY_MAP: return map_cmp(t, a, i, b, j, mode);
    default: return leaf_cmp(t, a, i, b, j, mode);
  }
}

void ex__compare_nested(const ex_type_t *t, const ty_vec_t *va, const ty_vec_t *vb,
                        const ex_rows_t *rows, int mode, uint8_t *cmp) {
  const uint32_t ma = ex__m(va), mb = ex__m(vb);
  EX_ROWS(rows, i) {
    uint32_t x = i & ma, y = i & mb;
    /* Top-level NULLs are the caller's (validity); only nested ones count. */
    if (ty_vec_is_null(va, x) || ty_vec_is_null(vb, y)) {
      cmp[i] = EX_CMP_EQ;
      continue;
    }
    cmp[i] = (uint8_t)ex__value_cmp(t, va, x, vb, y, mode);
  }
}
