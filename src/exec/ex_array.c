/*
 * ex_array.c - arrays of any element type: the ARRAY[...] and ROW(...)
 * constructors and Trino's array functions (cardinality, element_at and
 * a[i], contains, array_position, array_remove, array_distinct,
 * array_sort, array_max/min, reverse, slice, concat and ||, flatten,
 * sequence, repeat, array_join, arrays_overlap, array_union,
 * array_intersect, array_except).
 *
 * Arrays are list vectors (types/vec.h): offsets[row] .. offsets[row + 1]
 * index the element vector children[0], which has its own validity.
 * Results of nested or any-element type are built by appending one row
 * after another (the "appender" below), so one kernel serves every
 * element type; elements are compared through ex__value_cmp
 * (ex_nested.c).
 */
#include "base/alloc.h"
#include "exec/ex_func_int.h"

static inline void elems(const ty_vec_t *a, uint32_t j, int32_t *b, int32_t *e) {
  *b = a->offsets[j];
  *e = a->offsets[j + 1];
}

/* ---- the appender: output rows written in order, by appending ---- */

typedef struct ap {
  ty_vec_t *out;
  uint8_t *todo; /* rows to compute, as ex__valid_all marked them */
  uint32_t nrows, next;
  bool all; /* every selected row (functions that see NULL arguments) */
} ap_t;

static void ap_begin(ap_t *a, ty_vec_t *out, bool all) {
  a->out = out;
  a->nrows = out->len;
  a->next = 0;
  a->all = all;
  size_t nb = ((size_t)out->len + 7) / 8;
  a->todo = fl_malloc(nb ? nb : 1);
  if (nb) memcpy(a->todo, out->validity, nb);
  ty_vec_reset(out);
  ty_vec_reserve(out, a->nrows ? a->nrows : 1);
}
/* Pads with NULL rows up to row i; whether row i is to be computed (else
 * it has been given a NULL). */
static bool ap_row(ap_t *a, uint32_t i) {
  while (a->next < i) {
    ty_vec_append_null(a->out);
    a->next++;
  }
  a->next = i + 1;
  if (a->all || ((a->todo[i >> 3] >> (i & 7)) & 1)) return true;
  ty_vec_append_null(a->out);
  return false;
}
static void ap_end(ap_t *a) {
  while (a->next < a->nrows) {
    ty_vec_append_null(a->out);
    a->next++;
  }
  fl_free(a->todo);
}

/* ---- constructors ---- */

static int array_ret(const ex_type_t *args, size_t n, ex_type_t *ret, fl_err_t *err) {
  (void)err;
  *ret = (ex_type_t){.kind = EX_ARRAY, .elem = n ? &args[0] : NULL};
  return FL_OK;
}

static const ex_type_t g_unknown = {.kind = EX_UNKNOWN};
static const ex_type_t g_bigint = {.kind = EX_BIGINT};
static const ex_type_t g_date = {.kind = EX_DATE};

static int empty_array_ret(const ex_type_t *args, size_t n, ex_type_t *ret, fl_err_t *err) {
  (void)args, (void)n, (void)err;
  *ret = (ex_type_t){.kind = EX_ARRAY, .elem = &g_unknown};
  return FL_OK;
}

/* ARRAY[x, y, ...]: the array is never NULL; its elements may be. */
static int k_array(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                   const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx, (void)err;
  ap_t a;
  ap_begin(&a, out, true);
  ty_vec_t *el = out->children[0];
  EX_ROWS(rows, i) {
    if (!ap_row(&a, i)) continue;
    for (uint32_t k = 0; k < call->r.nargs; k++) {
      if (call->r.args[k].kind == EX_UNKNOWN || ty_vec_is_null(args[k], i & ex__m(args[k])))
        ty_vec_append_null(el);
      else
        ty_vec_append_from(el, args[k], i & ex__m(args[k]));
    }
    ty_vec_append_list_end(out);
  }
  ap_end(&a);
  return FL_OK;
}

/* The binder gives a ROW(...) call its row type; this is a placeholder. */
static int row_ret(const ex_type_t *args, size_t n, ex_type_t *ret, fl_err_t *err) {
  (void)args, (void)n, (void)err;
  *ret = (ex_type_t){.kind = EX_ROW};
  return FL_OK;
}

static int k_row(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args, const ex_rows_t *rows,
                 ty_vec_t *out, fl_err_t *err) {
  (void)ctx;
  if (out->nchildren != call->r.nargs)
    return fl_err_set(err, FL_EINTERNAL, "row of %u fields built from %u values", out->nchildren,
                      call->r.nargs);
  ap_t a;
  ap_begin(&a, out, true);
  EX_ROWS(rows, i) {
    if (!ap_row(&a, i)) continue;
    for (uint32_t k = 0; k < call->r.nargs; k++) {
      if (call->r.args[k].kind == EX_UNKNOWN || ty_vec_is_null(args[k], i & ex__m(args[k])))
        ty_vec_append_null(out->children[k]);
      else
        ty_vec_append_from(out->children[k], args[k], i & ex__m(args[k]));
    }
    ty_vec_append_struct(out);
  }
  ap_end(&a);
  return FL_OK;
}

/* ---- element access ---- */

static int k_cardinality(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                         const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx, (void)call, (void)err;
  const uint32_t m = ex__m(args[0]);
  int64_t *o = TY_VEC_DATA(out, int64_t);
  EX_ROWS(rows, i) {
    int32_t b, e;
    elems(args[0], i & m, &b, &e);
    o[i] = e - b;
  }
  return FL_OK;
}

static int elem_ret(const ex_type_t *args, size_t n, ex_type_t *ret, fl_err_t *err) {
  (void)n, (void)err;
  *ret = args[0].elem ? *args[0].elem : g_unknown;
  return FL_OK;
}

/* element_at(a, i): NULL past either end; a[i]: an error there; both
 * count from the end for negative i in element_at, as Trino. */
enum { E_ELEMENT_AT, E_SUBSCRIPT };
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

static int k_element(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                     const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx;
  const bool subscript = call->r.fn->op == E_SUBSCRIPT;
  const uint32_t m = ex__m(args[0]), mi = ex__m(args[1]);
  const ty_vec_t *el = args[0]->children[0];
  ap_t a;
  ap_begin(&a, out, false);
  int rc = FL_OK;
  EX_ROWS(rows, i) {
    if (!ap_row(&a, i)) continue;
    int64_t at = -1;
    rc = element_index(subscript, args[0], i & m, TY_VEC_DATA(args[1], int64_t)[i & mi], &at, err);
    if (rc) break;
    if (at < 0 || call->r.ret.kind == EX_UNKNOWN)
      ty_vec_append_null(out);
    else
      ty_vec_append_from(out, el, (uint32_t)at);
  }
  ap_end(&a);
  return rc;
}

/* ---- searching ---- */

/* contains(a, x): true if found; NULL if not found and a NULL compared. */
static int k_contains(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                      const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx, (void)err;
  const uint32_t m = ex__m(args[0]), mx = ex__m(args[1]);
  const ty_vec_t *el = args[0]->children[0];
  const ex_type_t *et = &call->r.args[1];
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    int32_t b, e;
    elems(args[0], i & m, &b, &e);
    bool found = false, saw_null = false;
    for (int32_t k = b; k < e && !found; k++) {
      int c = ex__value_cmp(et, el, (uint32_t)k, args[1], i & mx, EX_CMP_EQUALITY);
      if (c == EX_CMP_NULL) saw_null = true;
      found = c == EX_CMP_EQ;
    }
    if (!found && saw_null)
      ex__set_null(out, i);
    else
      out->data[i] = found;
  }
  return FL_OK;
}

/* array_position(a, x): the 1-based position of the first element equal
 * to x, 0 when none. */
static int k_position(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                      const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx, (void)err;
  const uint32_t m = ex__m(args[0]), mx = ex__m(args[1]);
  const ty_vec_t *el = args[0]->children[0];
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    int32_t b, e;
    elems(args[0], i & m, &b, &e);
    int64_t pos = 0;
    for (int32_t k = b; k < e && !pos; k++)
      if (ex__value_cmp(&call->r.args[1], el, (uint32_t)k, args[1], i & mx, EX_CMP_EQUALITY) ==
          EX_CMP_EQ)
        pos = k - b + 1;
    TY_VEC_DATA(out, int64_t)[i] = pos;
  }
  return FL_OK;
}

static int same_ret(const ex_type_t *args, size_t n, ex_type_t *ret, fl_err_t *err) {
  (void)n, (void)err;
  *ret = args[0];
  return FL_OK;
}

/* array_remove(a, x): a without the elements equal to x. */
static int k_remove(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                    const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx, (void)err;
  const uint32_t m = ex__m(args[0]), mx = ex__m(args[1]);
  const ty_vec_t *el = args[0]->children[0];
  ap_t a;
  ap_begin(&a, out, false);
  EX_ROWS(rows, i) {
    if (!ap_row(&a, i)) continue;
    int32_t b, e;
    elems(args[0], i & m, &b, &e);
    for (int32_t k = b; k < e; k++)
      if (ex__value_cmp(&call->r.args[1], el, (uint32_t)k, args[1], i & mx, EX_CMP_EQUALITY) !=
          EX_CMP_EQ)
        ty_vec_append_from(out->children[0], el, (uint32_t)k);
    ty_vec_append_list_end(out);
  }
  ap_end(&a);
  return FL_OK;
}

/* Whether element k of el is distinct from every element of out's
 * child from index from on. */
static bool is_new(const ex_type_t *et, const ty_vec_t *dst, uint32_t from, const ty_vec_t *el,
                   uint32_t k) {
  for (uint32_t d = from; d < dst->len; d++)
    if (ex__value_cmp(et, dst, d, el, k, EX_CMP_DISTINCT) == EX_CMP_EQ) return false;
  return true;
}
static bool in_range(const ex_type_t *et, const ty_vec_t *el, int32_t b, int32_t e,
                     const ty_vec_t *x, uint32_t k) {
  for (int32_t d = b; d < e; d++)
    if (ex__value_cmp(et, el, (uint32_t)d, x, k, EX_CMP_DISTINCT) == EX_CMP_EQ) return true;
  return false;
}

/* array_distinct, array_union, array_intersect, array_except: the
 * distinct elements (NULL once) in first-seen order. */
enum { S_DISTINCT, S_UNION, S_INTERSECT, S_EXCEPT };
static int k_set(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args, const ex_rows_t *rows,
                 ty_vec_t *out, fl_err_t *err) {
  (void)ctx, (void)err;
  const int op = call->r.fn->op;
  const ex_type_t *et = call->r.ret.elem;
  const uint32_t m0 = ex__m(args[0]), m1 = op == S_DISTINCT ? 0 : ex__m(args[1]);
  const ty_vec_t *e0 = args[0]->children[0], *e1 = op == S_DISTINCT ? NULL : args[1]->children[0];
  ty_vec_t *dst = out->children[0];
  ap_t a;
  ap_begin(&a, out, false);
  EX_ROWS(rows, i) {
    if (!ap_row(&a, i)) continue;
    uint32_t from = dst->len;
    int32_t b0, x0, b1 = 0, x1 = 0;
    elems(args[0], i & m0, &b0, &x0);
    if (e1) elems(args[1], i & m1, &b1, &x1);
    for (int32_t k = b0; k < x0; k++) {
      if (op == S_INTERSECT && !in_range(et, e1, b1, x1, e0, (uint32_t)k)) continue;
      if (op == S_EXCEPT && in_range(et, e1, b1, x1, e0, (uint32_t)k)) continue;
      if (is_new(et, dst, from, e0, (uint32_t)k)) ty_vec_append_from(dst, e0, (uint32_t)k);
    }
    if (op == S_UNION)
      for (int32_t k = b1; k < x1; k++)
        if (is_new(et, dst, from, e1, (uint32_t)k)) ty_vec_append_from(dst, e1, (uint32_t)k);
    ty_vec_append_list_end(out);
  }
  ap_end(&a);
  return FL_OK;
}

/* arrays_overlap(a, b): true when an element is in both; NULL when not
 * and either holds a NULL. */
static int k_overlap(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                     const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx, (void)err;
  const ex_type_t *et = call->r.args[0].elem;
  const uint32_t m0 = ex__m(args[0]), m1 = ex__m(args[1]);
  const ty_vec_t *e0 = args[0]->children[0], *e1 = args[1]->children[0];
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    int32_t b0, x0, b1, x1;
    elems(args[0], i & m0, &b0, &x0);
    elems(args[1], i & m1, &b1, &x1);
    bool found = false, saw_null = false;
    for (int32_t k = b0; k < x0 && !found; k++)
      for (int32_t j = b1; j < x1 && !found; j++) {
        int c = ex__value_cmp(et, e0, (uint32_t)k, e1, (uint32_t)j, EX_CMP_EQUALITY);
        if (c == EX_CMP_NULL) saw_null = true;
        found = c == EX_CMP_EQ;
      }
    if (!found && saw_null)
      ex__set_null(out, i);
    else
      out->data[i] = found;
  }
  return FL_OK;
}

/* ---- ordering ---- */

/* Merge sort of element indexes by ex__value_cmp (distinct mode: a total
 * order with NULLs last), stable. */
static void sort_idx(const ex_type_t *et, const ty_vec_t *el, uint32_t *x, uint32_t *tmp,
                     uint32_t n) {
  if (n < 2) return;
  uint32_t h = n / 2;
  sort_idx(et, el, x, tmp, h);
  sort_idx(et, el, x + h, tmp, n - h);
  uint32_t i = 0, j = h, k = 0;
  while (i < h && j < n)
    tmp[k++] =
        ex__value_cmp(et, el, x[j], el, x[i], EX_CMP_DISTINCT) == EX_CMP_LT ? x[j++] : x[i++];
  while (i < h) tmp[k++] = x[i++];
  while (j < n) tmp[k++] = x[j++];
  memcpy(x, tmp, n * sizeof *x);
}

static int k_sort(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                  const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx, (void)err;
  const uint32_t m = ex__m(args[0]);
  const ty_vec_t *el = args[0]->children[0];
  const ex_type_t *et = call->r.ret.elem;
  uint32_t *idx = NULL, *tmp = NULL, cap = 0;
  ap_t a;
  ap_begin(&a, out, false);
  EX_ROWS(rows, i) {
    if (!ap_row(&a, i)) continue;
    int32_t b, e;
    elems(args[0], i & m, &b, &e);
    uint32_t n = (uint32_t)(e - b);
    if (n > cap) {
      cap = n;
      idx = fl_realloc(idx, cap * sizeof *idx);
      tmp = fl_realloc(tmp, cap * sizeof *tmp);
    }
    for (uint32_t k = 0; k < n; k++) idx[k] = (uint32_t)b + k;
    sort_idx(et, el, idx, tmp, n);
    for (uint32_t k = 0; k < n; k++) ty_vec_append_from(out->children[0], el, idx[k]);
    ty_vec_append_list_end(out);
  }
  ap_end(&a);
  fl_free(idx);
  fl_free(tmp);
  return FL_OK;
}

/* array_max, array_min: NULL when the array is empty or holds a NULL. */
enum { A_MAX, A_MIN };
static int k_minmax(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                    const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx, (void)err;
  const uint32_t m = ex__m(args[0]);
  const ty_vec_t *el = args[0]->children[0];
  const ex_type_t *et = &call->r.ret;
  const int want = call->r.fn->op == A_MAX ? EX_CMP_GT : EX_CMP_LT;
  ap_t a;
  ap_begin(&a, out, false);
  EX_ROWS(rows, i) {
    if (!ap_row(&a, i)) continue;
    int32_t b, e;
    elems(args[0], i & m, &b, &e);
    int32_t best = -1;
    for (int32_t k = b; k < e; k++) {
      if (ty_vec_is_null(el, (uint32_t)k)) {
        best = -1;
        break;
      }
      if (best < 0 ||
          ex__value_cmp(et, el, (uint32_t)k, el, (uint32_t)best, EX_CMP_DISTINCT) == want)
        best = k;
    }
    if (best < 0)
      ty_vec_append_null(out);
    else
      ty_vec_append_from(out, el, (uint32_t)best);
  }
  ap_end(&a);
  return FL_OK;
}

static int k_reverse(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                     const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx, (void)call, (void)err;
  const uint32_t m = ex__m(args[0]);
  const ty_vec_t *el = args[0]->children[0];
  ap_t a;
  ap_begin(&a, out, false);
  EX_ROWS(rows, i) {
    if (!ap_row(&a, i)) continue;
    int32_t b, e;
    elems(args[0], i & m, &b, &e);
    for (int32_t k = e - 1; k >= b; k--) ty_vec_append_from(out->children[0], el, (uint32_t)k);
    ty_vec_append_list_end(out);
  }
  ap_end(&a);
  return FL_OK;
}

/* slice(a, start, length): start from 1 (negative: from the end). */
static int k_slice(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                   const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx, (void)call;
  const uint32_t m = ex__m(args[0]), ms = ex__m(args[1]), ml = ex__m(args[2]);
  const ty_vec_t *el = args[0]->children[0];
  ap_t a;
  ap_begin(&a, out, false);
  int rc = FL_OK;
  EX_ROWS(rows, i) {
    if (!ap_row(&a, i)) continue;
    int32_t b, e;
    elems(args[0], i & m, &b, &e);
    int64_t len = e - b, start = TY_VEC_DATA(args[1], int64_t)[i & ms],
            n = TY_VEC_DATA(args[2], int64_t)[i & ml];
    if (start == 0) {
      rc = ex__err(err, "SQL array indices start at 1");
      ty_vec_append_null(out);
      break;
    }
    if (n < 0) {
      rc = ex__err(err, "length must be greater than or equal to 0");
      ty_vec_append_null(out);
      break;
    }
    int64_t from = start > 0 ? start - 1 : len + start;
    if (from >= 0 && from < len) {
      int64_t to = n > len - from ? len : from + n;
      for (int64_t k = from; k < to; k++)
        ty_vec_append_from(out->children[0], el, (uint32_t)(b + k));
    }
    ty_vec_append_list_end(out);
  }
  ap_end(&a);
  return rc;
}

/* concat(a, b, ...) and a || b over arrays of one element type. */
static int concat_ret(const ex_type_t *args, size_t n, ex_type_t *ret, fl_err_t *err) {
  const ex_type_t *e = NULL;
  for (size_t k = 0; k < n; k++) {
    const ex_type_t *x = args[k].elem;
    if (!x || x->kind == EX_UNKNOWN) continue;
    if (e && !ex_type_equal(e, x))
      return fl_err_set(err, FL_ENOTFOUND, "Cannot concatenate %s and %s", ex_type_str(&args[0]),
                        ex_type_str(&args[k]));
    e = x;
  }
  *ret = (ex_type_t){.kind = EX_ARRAY, .elem = e ? e : &g_unknown};
  return FL_OK;
}

static int k_concat(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                    const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx, (void)err;
  ap_t a;
  ap_begin(&a, out, false);
  EX_ROWS(rows, i) {
    if (!ap_row(&a, i)) continue;
    for (uint32_t k = 0; k < call->r.nargs; k++) {
      int32_t b, e;
      elems(args[k], i & ex__m(args[k]), &b, &e);
      for (int32_t x = b; x < e; x++)
        ty_vec_append_from(out->children[0], args[k]->children[0], (uint32_t)x);
    }
    ty_vec_append_list_end(out);
  }
  ap_end(&a);
  return FL_OK;
}

/* flatten(array(array(T))): the inner arrays one after the other (NULL
 * inner arrays add nothing). */
static int flatten_ret(const ex_type_t *args, size_t n, ex_type_t *ret, fl_err_t *err) {
  (void)n;
  if (!args[0].elem || args[0].elem->kind != EX_ARRAY)
    return fl_err_set(err, FL_ENOTFOUND, "flatten takes an array of arrays, not %s",
                      ex_type_str(&args[0]));
  *ret = *args[0].elem;
  return FL_OK;
}

static int k_flatten(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                     const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx, (void)call, (void)err;
  const uint32_t m = ex__m(args[0]);
  const ty_vec_t *inner = args[0]->children[0];
  ap_t a;
  ap_begin(&a, out, false);
  EX_ROWS(rows, i) {
    if (!ap_row(&a, i)) continue;
    int32_t b, e;
    elems(args[0], i & m, &b, &e);
    for (int32_t k = b; k < e; k++) {
      if (ty_vec_is_null(inner, (uint32_t)k)) continue;
      for (int32_t x = inner->offsets[k]; x < inner->offsets[k + 1]; x++)
        ty_vec_append_from(out->children[0], inner->children[0], (uint32_t)x);
    }
    ty_vec_append_list_end(out);
  }
  ap_end(&a);
  return FL_OK;
}

/* sequence(start, stop[, step]) of bigints, and of dates by days. */
static int seq_ret(const ex_type_t *args, size_t n, ex_type_t *ret, fl_err_t *err) {
  (void)n, (void)err;
  *ret = (ex_type_t){.kind = EX_ARRAY, .elem = args[0].kind == EX_DATE ? &g_date : &g_bigint};
  return FL_OK;
}

static int k_sequence(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                      const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx;
  const bool dates = call->r.args[0].kind == EX_DATE;
  const bool has_step = call->r.nargs == 3;
  ty_vec_t *el = out->children[0];
  ap_t a;
  ap_begin(&a, out, false);
  int rc = FL_OK;
  EX_ROWS(rows, i) {
    if (!ap_row(&a, i)) continue;
    int64_t lo, hi, step;
    if (dates) {
      lo = TY_VEC_DATA(args[0], int32_t)[i & ex__m(args[0])];
      hi = TY_VEC_DATA(args[1], int32_t)[i & ex__m(args[1])];
      /* A date step is an interval day to second in micros. */
      step = has_step ? TY_VEC_DATA(args[2], int64_t)[i & ex__m(args[2])] / FL_MICROS_PER_DAY
                      : (hi >= lo ? 1 : -1);
    } else {
      lo = TY_VEC_DATA(args[0], int64_t)[i & ex__m(args[0])];
      hi = TY_VEC_DATA(args[1], int64_t)[i & ex__m(args[1])];
      step = has_step ? TY_VEC_DATA(args[2], int64_t)[i & ex__m(args[2])] : (hi >= lo ? 1 : -1);
    }
    if (step == 0) {
      rc = ex__err(err, "step must not be zero");
    } else if ((step > 0 && lo > hi) || (step < 0 && lo < hi)) {
      rc = ex__err(err,
                   "sequence stop value should be greater than or equal to start value if "
                   "step is greater than zero otherwise stop should be less than or equal "
                   "to start");
    } else {
      uint64_t span = step > 0 ? (uint64_t)hi - (uint64_t)lo : (uint64_t)lo - (uint64_t)hi;
      uint64_t ustep = step > 0 ? (uint64_t)step : (uint64_t)0 - (uint64_t)step;
      if (span / ustep + 1 > 10000)
        rc = ex__err(err, "result of sequence function must not have more than 10000 entries");
    }
    if (rc) {
      ty_vec_append_null(out);
      break;
    }
    uint64_t count = (step > 0 ? (uint64_t)hi - (uint64_t)lo : (uint64_t)lo - (uint64_t)hi) /
                         (step > 0 ? (uint64_t)step : (uint64_t)0 - (uint64_t)step) +
                     1;
    for (uint64_t k = 0; k < count; k++) {
      int64_t v = (int64_t)((uint64_t)lo + k * (uint64_t)step);
      if (dates)
        ty_vec_append_i32(el, (int32_t)v);
      else
        ty_vec_append_i64(el, v);
    }
    ty_vec_append_list_end(out);
  }
  ap_end(&a);
  return rc;
}

/* repeat(x, n): an array of n copies of x (n up to 10000). */
static int repeat_ret(const ex_type_t *args, size_t n, ex_type_t *ret, fl_err_t *err) {
  (void)n, (void)err;
  *ret = (ex_type_t){.kind = EX_ARRAY, .elem = &args[0]};
  return FL_OK;
}

static int k_repeat(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                    const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx;
  const uint32_t mx = ex__m(args[0]), mn = ex__m(args[1]);
  ap_t a;
  ap_begin(&a, out, true);
  int rc = FL_OK;
  EX_ROWS(rows, i) {
    if (!ap_row(&a, i)) continue;
    if (ty_vec_is_null(args[1], i & mn)) {
      ty_vec_append_null(out);
      continue;
    }
    int64_t n = TY_VEC_DATA(args[1], int64_t)[i & mn];
    if (n < 0 || n > 10000) {
      rc = n < 0 ? ex__err(err,
                           "count argument of repeat function must be greater than or equal "
                           "to 0")
                 : ex__err(err,
                           "count argument of repeat function must be less than or equal "
                           "to 10000");
      ty_vec_append_null(out);
      break;
    }
    for (int64_t k = 0; k < n; k++) {
      if (call->r.args[0].kind == EX_UNKNOWN)
        ty_vec_append_null(out->children[0]);
      else
        ty_vec_append_from(out->children[0], args[0], i & mx);
    }
    ty_vec_append_list_end(out);
  }
  ap_end(&a);
  return rc;
}

/* array_join(a, sep[, null_replacement]): the elements' text (as CAST to
 * varchar) joined by sep; NULL elements skipped unless replaced. */
static int k_array_join(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                        const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)err;
  const uint32_t m = ex__m(args[0]), ms = ex__m(args[1]);
  const bool has_rep = call->r.nargs == 3;
  const uint32_t mr = has_rep ? ex__m(args[2]) : 0;
  const ty_vec_t *el = args[0]->children[0];
  const ex_type_t *et = call->r.args[0].elem;
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
      bool null = ty_vec_is_null(el, (uint32_t)k);
      if (null && !has_rep) continue;
      if (!first) fl_buf_append(&buf, sep, ns);
      if (null)
        fl_buf_append(&buf, rep, nr);
      else
        ex__format_value(ctx, et, el, (uint32_t)k, &buf);
      first = false;
    }
    ex__sw_put(&w, i, buf.data, buf.len);
  }
  fl_buf_free(&buf);
  return FL_OK;
}

static void reg1(const char *name, ex_type_t p0, ex_ret_fn ret_fn, ex_kernel_fn k, int op) {
  ex__reg(&(ex_func_t){
      .name = name, .nparams = 1, .params = {p0}, .ret_fn = ret_fn, .kernel = k, .op = op});
}

void ex__reg_array(void) {
  const ex_type_t V = EX_T(VARCHAR), B = EX_T(BIGINT), T = EX_T(ANY);
  const ex_type_t A = EX_T(ARRAY); /* no element type: any array */
  ex__reg(&(ex_func_t){.name = "array_constructor",
                       .nparams = 1,
                       .params = {T},
                       .ret_fn = array_ret,
                       .kernel = k_array,
                       .flags = EX_FN_VARIADIC | EX_FN_UNIFY | EX_FN_NULLS});
  ex__reg(&(ex_func_t){
      .name = "$array_empty", .nparams = 0, .ret_fn = empty_array_ret, .kernel = k_array});
  ex__reg(&(ex_func_t){.name = "$row",
                       .nparams = 1,
                       .params = {T},
                       .ret_fn = row_ret,
                       .kernel = k_row,
                       .flags = EX_FN_VARIADIC | EX_FN_NULLS});
  ex__reg(&(ex_func_t){
      .name = "cardinality", .nparams = 1, .params = {A}, .ret = B, .kernel = k_cardinality});
  ex__reg(&(ex_func_t){.name = "element_at",
                       .nparams = 2,
                       .params = {A, B},
                       .ret_fn = elem_ret,
                       .kernel = k_element,
                       .op = E_ELEMENT_AT});
  ex__reg(&(ex_func_t){.name = "[]",
                       .nparams = 2,
                       .params = {A, B},
                       .ret_fn = elem_ret,
                       .kernel = k_element,
                       .op = E_SUBSCRIPT});
  ex__reg(&(ex_func_t){.name = "contains",
                       .nparams = 2,
                       .params = {A, T},
                       .ret = EX_T(BOOLEAN),
                       .kernel = k_contains,
                       .flags = EX_FN_ELEM});
  ex__reg(&(ex_func_t){.name = "array_position",
                       .nparams = 2,
                       .params = {A, T},
                       .ret = B,
                       .kernel = k_position,
                       .flags = EX_FN_ELEM});
  ex__reg(&(ex_func_t){.name = "array_remove",
                       .nparams = 2,
                       .params = {A, T},
                       .ret_fn = same_ret,
                       .kernel = k_remove,
                       .flags = EX_FN_ELEM});
  reg1("array_distinct", A, same_ret, k_set, S_DISTINCT);
  reg1("array_sort", A, same_ret, k_sort, 0);
  reg1("array_max", A, elem_ret, k_minmax, A_MAX);
  reg1("array_min", A, elem_ret, k_minmax, A_MIN);
  reg1("reverse", A, same_ret, k_reverse, 0);
  reg1("flatten", A, flatten_ret, k_flatten, 0);
  static const char *const sets[] = {"array_union", "array_intersect", "array_except"};
  for (int s = 0; s < 3; s++)
    ex__reg(&(ex_func_t){.name = sets[s],
                         .nparams = 2,
                         .params = {A, A},
                         .ret_fn = concat_ret,
                         .kernel = k_set,
                         .op = S_UNION + s});
  ex__reg(&(ex_func_t){.name = "arrays_overlap",
                       .nparams = 2,
                       .params = {A, A},
                       .ret = EX_T(BOOLEAN),
                       .ret_fn = NULL,
                       .kernel = k_overlap});
  ex__reg(&(ex_func_t){
      .name = "slice", .nparams = 3, .params = {A, B, B}, .ret_fn = same_ret, .kernel = k_slice});
  ex__reg(&(ex_func_t){.name = "concat",
                       .nparams = 1,
                       .params = {A},
                       .ret_fn = concat_ret,
                       .kernel = k_concat,
                       .flags = EX_FN_VARIADIC});
  ex__reg(&(ex_func_t){
      .name = "||", .nparams = 2, .params = {A, A}, .ret_fn = concat_ret, .kernel = k_concat});
  ex__reg(&(ex_func_t){
      .name = "sequence", .nparams = 2, .params = {B, B}, .ret_fn = seq_ret, .kernel = k_sequence});
  ex__reg(&(ex_func_t){.name = "sequence",
                       .nparams = 3,
                       .params = {B, B, B},
                       .ret_fn = seq_ret,
                       .kernel = k_sequence});
  ex__reg(&(ex_func_t){.name = "sequence",
                       .nparams = 2,
                       .params = {EX_T(DATE), EX_T(DATE)},
                       .ret_fn = seq_ret,
                       .kernel = k_sequence});
  ex__reg(&(ex_func_t){.name = "sequence",
                       .nparams = 3,
                       .params = {EX_T(DATE), EX_T(DATE), EX_T(INTERVAL_DS)},
                       .ret_fn = seq_ret,
                       .kernel = k_sequence});
  ex__reg(&(ex_func_t){.name = "repeat",
                       .nparams = 2,
                       .params = {T, B},
                       .ret_fn = repeat_ret,
                       .kernel = k_repeat,
                       .flags = EX_FN_NULLS});
  ex__reg(&(ex_func_t){
      .name = "array_join", .nparams = 2, .params = {A, V}, .ret = V, .kernel = k_array_join});
  ex__reg(&(ex_func_t){
      .name = "array_join", .nparams = 3, .params = {A, V, V}, .ret = V, .kernel = k_array_join});
}
