/*
 * ex_cond.c - the selection helpers behind lazy CASE/IF/COALESCE (see
 * ex_cond.h for how the evaluator drives them) and the eager kernels
 * coalesce, if and nullif for callers whose arguments are all computed.
 */
#include "exec/ex_cond.h"

#include "exec/ex_func_int.h"

void ex_cond_split(const ty_vec_t *cond, const ex_rows_t *rows, uint32_t *t, uint32_t *nt,
                   uint32_t *rest, uint32_t *nrest) {
  const uint32_t m = ex__m(cond);
  uint32_t a = 0, b = 0;
  EX_ROWS(rows, i) {
    bool yes = ex__valid(cond, i & m) && cond->data[i & m];
    if (yes)
      t[a++] = i;
    else
      rest[b++] = i;
  }
  *nt = a;
  *nrest = b;
}

void ex_cond_split_null(const ty_vec_t *v, const ex_rows_t *rows, uint32_t *nulls, uint32_t *nnulls,
                        uint32_t *vals, uint32_t *nvals) {
  const uint32_t m = ex__m(v);
  uint32_t a = 0, b = 0;
  EX_ROWS(rows, i) {
    if (ex__valid(v, i & m))
      vals[b++] = i;
    else
      nulls[a++] = i;
  }
  *nnulls = a;
  *nvals = b;
}

void ex_cond_mark(uint8_t *which, const uint32_t *sel, uint32_t n, uint8_t branch) {
  for (uint32_t k = 0; k < n; k++) which[sel[k]] = branch;
}

void ex_cond_reset(uint8_t *which, uint32_t nrows) { memset(which, EX_COND_NULL, nrows); }

void ex_cond_gather(ty_vec_t *out, const ty_vec_t *const *branches, uint32_t nbranches,
                    const uint8_t *which, const ex_rows_t *rows) {
  ex__out_begin(out, rows->nrows);
  uint32_t m[256];
  for (uint32_t b = 0; b < nbranches; b++) m[b] = ex__m(branches[b]);
  const size_t w = ty_value_width(out->type);
  const bool var = out->offsets && !ty_is_nested(out->type);
  const bool nested = ty_is_nested(out->type);
  ex_sw_t sw = {0};
  if (var) ex__sw_init(&sw, out);
  if (nested) {
    /* Lists (array(varchar)): rebuild by appending rows in order. */
    ty_vec_reset(out);
    uint32_t next = 0;
    EX_ROWS(rows, i) {
      for (; next < i; next++) ty_vec_append_null(out);
      uint8_t b = which[i];
      if (b == EX_COND_NULL || b >= nbranches)
        ty_vec_append_null(out);
      else
        ty_vec_append_from(out, branches[b], i & m[b]);
      next = i + 1;
    }
    for (; next < rows->nrows; next++) ty_vec_append_null(out);
    return;
  }
  EX_ROWS(rows, i) {
    uint8_t b = which[i];
    if (b == EX_COND_NULL || b >= nbranches) continue;
    const ty_vec_t *src = branches[b];
    uint32_t j = i & m[b];
    if (!ex__valid(src, j)) continue;
    ex__set_valid(out, i);
    if (var) {
      size_t n;
      const uint8_t *p = ty_vec_get_bytes(src, j, &n);
      ex__sw_put(&sw, i, p, n);
    } else {
      memcpy(out->data + (size_t)i * w, src->data + (size_t)j * w, w);
    }
  }
  ex__out_end(out);
}

/* coalesce(a, b, ...): the first non-null argument, all computed. */
static int k_coalesce(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                      const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const uint32_t n = call->r.nargs;
  uint8_t *which = ex__scratch(call, rows->nrows, 0);
  ex_cond_reset(which, rows->nrows);
  uint32_t m[EX_MAX_ARGS];
  for (uint32_t a = 0; a < n; a++) m[a] = ex__m(args[a]);
  EX_ROWS(rows, i) {
    for (uint32_t a = 0; a < n; a++)
      if (call->r.args[a].kind != EX_UNKNOWN && ex__valid(args[a], i & m[a])) {
        which[i] = (uint8_t)a;
        break;
      }
  }
  ex_cond_gather(out, args, n, which, rows);
  return FL_OK;
}

/* if(c, a[, b]) with both branches computed. */
static int k_if(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args, const ex_rows_t *rows,
                ty_vec_t *out, fl_err_t *err) {
  uint8_t *which = ex__scratch(call, rows->nrows, 0);
  const uint32_t mc = ex__m(args[0]);
  const bool has_else = call->r.nargs == 3;
  EX_ROWS(rows, i) {
    bool yes = ex__valid(args[0], i & mc) && args[0]->data[i & mc];
    which[i] = yes ? 0 : has_else ? 1 : EX_COND_NULL;
  }
  if (call->r.args[1].kind == EX_UNKNOWN || (has_else && call->r.args[2].kind == EX_UNKNOWN)) {
    /* A NULL literal branch: its rows stay null. */
    EX_ROWS(rows, i) {
      if (which[i] != EX_COND_NULL && call->r.args[1 + which[i]].kind == EX_UNKNOWN)
        which[i] = EX_COND_NULL;
    }
  }
  ex_cond_gather(out, args + 1, has_else ? 2 : 1, which, rows);
  return FL_OK;
}

/* nullif(a, b): NULL where a = b, else a. */
static int k_nullif(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                    const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  uint8_t *which = ex__scratch(call, rows->nrows, 0);
  uint8_t *cmp = ex__scratch(call, rows->nrows, 1);
  if (call->r.args[0].kind == EX_UNKNOWN) {
    ex__out_begin(out, rows->nrows);
    ex__out_end(out);
    return FL_OK;
  }
  if (call->r.args[1].kind != EX_UNKNOWN)
    ex__compare_rows(&call->r.args[0], &call->r.args[1], args[0], args[1], rows, false, cmp);
  const uint32_t mb = ex__m(args[1]);
  EX_ROWS(rows, i) {
    bool eq = call->r.args[1].kind != EX_UNKNOWN && ex__valid(args[1], i & mb) && cmp[i] == 1;
    which[i] = eq ? EX_COND_NULL : 0;
  }
  ex_cond_gather(out, args, 1, which, rows);
  return FL_OK;
}

/* $scalar_subquery(n, v): v, where n (the rows a correlated scalar
 * subquery returned for the row) is at most 1; more is Trino's error. */
static int k_scalar_subquery(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                             const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  uint8_t *which = ex__scratch(call, rows->nrows, 0);
  const uint32_t mc = ex__m(args[0]);
  const int64_t *n = (const int64_t *)args[0]->data;
  EX_ROWS(rows, i) {
    if (ex__valid(args[0], i & mc) && n[i & mc] > 1)
      return ex__err(err, "Scalar sub-query has returned multiple rows");
    which[i] = call->r.args[1].kind == EX_UNKNOWN ? EX_COND_NULL : 0;
  }
  ex_cond_gather(out, args + 1, 1, which, rows);
  return FL_OK;
}

static int ret_second(const ex_type_t *a, size_t n, ex_type_t *r, fl_err_t *err) {
  *r = a[1];
  return FL_OK;
}

static int ret_first(const ex_type_t *a, size_t n, ex_type_t *r, fl_err_t *err) {
  *r = a[0];
  return FL_OK;
}

void ex__reg_cond(void) {
  ex__reg(&(ex_func_t){.name = "coalesce",
                       .nparams = 1,
                       .params = {EX_T(ANY)},
                       .ret = EX_T(ANY),
                       .kernel = k_coalesce,
                       .flags = EX_FN_VARIADIC | EX_FN_UNIFY | EX_FN_NULLS});
  ex__reg(&(ex_func_t){.name = "if",
                       .nparams = 2,
                       .params = {EX_T(BOOLEAN), EX_T(ANY)},
                       .ret = EX_T(ANY),
                       .kernel = k_if,
                       .flags = EX_FN_UNIFY | EX_FN_NULLS});
  ex__reg(&(ex_func_t){.name = "if",
                       .nparams = 3,
                       .params = {EX_T(BOOLEAN), EX_T(ANY), EX_T(ANY)},
                       .ret = EX_T(ANY),
                       .kernel = k_if,
                       .flags = EX_FN_UNIFY | EX_FN_NULLS});
  ex__reg(&(ex_func_t){.name = "$scalar_subquery",
                       .nparams = 2,
                       .params = {EX_T(BIGINT), EX_T(ANY)},
                       .ret_fn = ret_second,
                       .kernel = k_scalar_subquery,
                       .flags = EX_FN_NULLS | EX_FN_KEEP_DEC});
  /* nullif's result is the first argument's type; both unify for the comparison. */
  ex__reg(&(ex_func_t){.name = "nullif",
                       .nparams = 2,
                       .params = {EX_T(ANY), EX_T(ANY)},
                       .ret_fn = ret_first,
                       .kernel = k_nullif,
                       .flags = EX_FN_UNIFY | EX_FN_KEEP_DEC | EX_FN_NULLS});
}
