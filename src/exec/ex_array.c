/*
 * ex_array.c - the functions over array(varchar) that make split() and
 * regexp_extract_all() usable: cardinality, element_at, the subscript
 * operator a[i], contains, array_join.
 *
 * Arrays are list vectors (types/vec.h): offsets[row] .. offsets[row + 1]
 * index the element vector children[0], which has its own validity.
 */
#include "exec/ex_func_int.h"

static inline void elems(const ty_vec_t *a, uint32_t j, int32_t *b, int32_t *e) {
  *b = a->offsets[j];
  *e = a->offsets[j + 1];
}

static int k_cardinality(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                         const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const uint32_t m = ex__m(args[0]);
  int64_t *o = TY_VEC_DATA(out, int64_t);
  EX_ROWS(rows, i) {
    int32_t b, e;
    elems(args[0], i & m, &b, &e);
    o[i] = e - b;
  }
  return FL_OK;
}

/* element_at(a, i): NULL past either end; a[i]: an error there; both
 * count from the end for negative i in element_at, as Trino. The result
 * has the element type (strings and fixed-width elements). */
enum { E_ELEMENT_AT, E_SUBSCRIPT };
static int element_ret(const ex_type_t *args, size_t n, ex_type_t *ret, fl_err_t *err) {
  (void)n;
  const ex_type_t *e = args[0].elem;
  if (e && (e->kind == EX_ARRAY || e->kind == EX_MAP))
    return fl_err_set(err, FL_EUNSUPPORTED, "Subscripts of arrays of %s are not supported yet",
                      ex_type_str(e));
  *ret = e ? *e : EX_T(VARCHAR);
  return FL_OK;
}
/* The element a[idx] stands for (-1: NULL), or an error for a[i] out of
 * range. */
static int element_index(bool subscript, const ty_vec_t *a, uint32_t row, int64_t idx, int64_t *at,
                         fl_err_t *err) {
  int32_t b, e;
  elems(a, row, &b, &e);
  int64_t len = e - b;
  if (subscript) {
    if (idx < 1) return ex__err(err, "Array subscript is out of bounds: %lld", (long long)idx);
    if (idx > len)
      return ex__err(err, "Array subscript must be less than or equal to array length: %lld > %lld",
                     (long long)idx, (long long)len);
    *at = b + idx - 1;
    return FL_OK;
  }
  if (idx == 0) return ex__err(err, "SQL array indices start at 1");
  int64_t k = idx > 0 ? idx - 1 : len + idx;
  *at = k < 0 || k >= len ? -1 : b + k;
  return FL_OK;
}

/* a[i] of an array of rows: the result's fields are filled row by row, a
 * NULL row (not selected, NULL input, no such element) with NULL fields. */
static int element_rows(const ty_vec_t *const *args, bool subscript, ty_vec_t *out, fl_err_t *err) {
  const uint32_t m = ex__m(args[0]), mi = ex__m(args[1]);
  const ty_vec_t *el = args[0]->children[0];
  for (uint32_t f = 0; f < out->nchildren; f++) ty_vec_reset(out->children[f]);
  for (uint32_t i = 0; i < out->len; i++) {
    int64_t at = -1;
    if (ex__valid(out, i)) {
      int rc =
          element_index(subscript, args[0], i & m, TY_VEC_DATA(args[1], int64_t)[i & mi], &at, err);
      if (rc) return rc;
      if (at >= 0 && ty_vec_is_null(el, (uint32_t)at)) at = -1;
      if (at < 0) ex__set_null(out, i);
    }
    for (uint32_t f = 0; f < out->nchildren; f++) {
      if (at >= 0)
        ty_vec_append_from(out->children[f], el->children[f], (uint32_t)at);
      else
        ty_vec_append_null(out->children[f]);
    }
  }
  return FL_OK;
}

static int k_element(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                     const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const bool subscript = call->r.fn->op == E_SUBSCRIPT;
  if (out->type->kind == TY_STRUCT) return element_rows(args, subscript, out, err);
  const uint32_t m = ex__m(args[0]), mi = ex__m(args[1]);
  const ty_vec_t *el = args[0]->children[0];
  ex_sw_t w = {0};
  if (out->offsets) ex__sw_init(&w, out);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    int64_t at;
    int rc =
        element_index(subscript, args[0], i & m, TY_VEC_DATA(args[1], int64_t)[i & mi], &at, err);
    if (rc) return rc;
    uint32_t k = (uint32_t)at;
    if (at < 0 || ty_vec_is_null(el, k)) {
      ex__set_null(out, i);
      continue;
    }
    if (!out->offsets) {
      size_t width = ty_value_width(out->type);
      memcpy(out->data + (size_t)i * width, el->data + (size_t)k * width, width);
      continue;
    }
    size_t n;
    const uint8_t *p = ty_vec_get_bytes(el, k, &n);
    ex__sw_put(&w, i, p, n);
  }
  return FL_OK;
}

/* contains(a, x): true if found; NULL if not found and a holds a NULL. */
static int k_contains(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                      const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const uint32_t m = ex__m(args[0]), mx = ex__m(args[1]);
  const ty_vec_t *el = args[0]->children[0];
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    int32_t b, e;
    elems(args[0], i & m, &b, &e);
    size_t nx;
    const uint8_t *x = ex__str(args[1], i & mx, &nx);
    bool found = false, saw_null = false;
    for (int32_t k = b; k < e && !found; k++) {
      if (ty_vec_is_null(el, (uint32_t)k)) {
        saw_null = true;
        continue;
      }
      size_t n;
      const uint8_t *p = ty_vec_get_bytes(el, (uint32_t)k, &n);
      found = n == nx && (n == 0 || memcmp(p, x, n) == 0);
    }
    if (!found && saw_null)
      ex__set_null(out, i);
    else
      out->data[i] = found;
  }
  return FL_OK;
}

/* array_join(a, sep[, null_replacement]): NULL elements are skipped
 * unless a replacement is given. */
static int k_array_join(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                        const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const uint32_t m = ex__m(args[0]), ms = ex__m(args[1]);
  const bool has_rep = call->r.nargs == 3;
  const uint32_t mr = has_rep ? ex__m(args[2]) : 0;
  const ty_vec_t *el = args[0]->children[0];
  ex_sw_t w = {0};
  ex__sw_init(&w, out);
  fl_buf_t buf;
  fl_buf_init(&buf);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    int32_t b, e;
    elems(args[0], i & m, &b, &e);
    size_t ns, nr = 0;
    const uint8_t *sep = ex__str(args[1], i & ms, &ns);
    const uint8_t *rep = has_rep ? ex__str(args[2], i & mr, &nr) : NULL;
    fl_buf_clear(&buf);
    bool first = true;
    for (int32_t k = b; k < e; k++) {
      const uint8_t *p = rep;
      size_t n = nr;
      if (ty_vec_is_null(el, (uint32_t)k)) {
        if (!has_rep) continue;
      } else {
        p = ty_vec_get_bytes(el, (uint32_t)k, &n);
      }
      if (!first) fl_buf_append(&buf, sep, ns);
      fl_buf_append(&buf, p, n);
      first = false;
    }
    ex__sw_put(&w, i, buf.data, buf.len);
  }
  fl_buf_free(&buf);
  return FL_OK;
}

void ex__reg_array(void) {
  const ex_type_t A = ex_type_array_varchar(), V = EX_T(VARCHAR), B = EX_T(BIGINT);
  const ex_type_t ANY_ARRAY = EX_T(ARRAY); /* no element type: any array */
  ex__reg(&(ex_func_t){.name = "cardinality",
                       .nparams = 1,
                       .params = {ANY_ARRAY},
                       .ret = B,
                       .kernel = k_cardinality});
  ex__reg(&(ex_func_t){.name = "element_at",
                       .nparams = 2,
                       .params = {ANY_ARRAY, B},
                       .ret_fn = element_ret,
                       .kernel = k_element,
                       .op = E_ELEMENT_AT});
  ex__reg(&(ex_func_t){.name = "[]",
                       .nparams = 2,
                       .params = {ANY_ARRAY, B},
                       .ret_fn = element_ret,
                       .kernel = k_element,
                       .op = E_SUBSCRIPT});
  ex__reg(&(ex_func_t){.name = "contains",
                       .nparams = 2,
                       .params = {A, V},
                       .ret = EX_T(BOOLEAN),
                       .kernel = k_contains});
  ex__reg(&(ex_func_t){
      .name = "array_join", .nparams = 2, .params = {A, V}, .ret = V, .kernel = k_array_join});
  ex__reg(&(ex_func_t){
      .name = "array_join", .nparams = 3, .params = {A, V, V}, .ret = V, .kernel = k_array_join});
}
