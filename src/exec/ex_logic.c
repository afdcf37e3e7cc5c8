/*
 * ex_logic.c - AND, OR, NOT and IS [NOT] NULL with SQL's three-valued
 * logic: FALSE AND NULL is FALSE, TRUE OR NULL is TRUE, otherwise a NULL
 * operand makes the result NULL.
 *
 * The evaluator short-circuits AND/OR across batches with selection
 * vectors (evaluate the right side only for rows where the left is not
 * already decisive); these kernels are the per-row truth tables that
 * combine the two sides.
 */
#include "exec/ex_func_int.h"

enum { OP_AND, OP_OR };

static int k_andor(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                   const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  /* For AND the decisive value is false, for OR true. */
  const uint8_t decisive = call->r.fn->op == OP_OR;
  uint8_t *o = out->data;
  size_t n = call->r.nargs;
  uint32_t m[EX_MAX_ARGS];
  for (size_t a = 0; a < n; a++) m[a] = ex__m(args[a]);
  EX_ROWS(rows, i) {
    bool any_null = false, hit = false;
    for (size_t a = 0; a < n && !hit; a++) {
      uint32_t j = i & m[a];
      if (!ex__valid(args[a], j) || call->r.args[a].kind == EX_UNKNOWN)
        any_null = true;
      else if (args[a]->data[j] == decisive)
        hit = true;
    }
    if (hit) {
      o[i] = decisive;
      ex__set_valid(out, i);
    } else if (!any_null) {
      o[i] = !decisive;
      ex__set_valid(out, i);
    }
  }
  return FL_OK;
}

static int k_not(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args, const ex_rows_t *rows,
                 ty_vec_t *out, fl_err_t *err) {
  const uint8_t *a = args[0]->data;
  const uint32_t ma = ex__m(args[0]);
  EX_ROWS(rows, i) out->data[i] = !a[i & ma];
  return FL_OK;
}

static int k_is_null(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                     const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const uint8_t want_null = call->r.fn->op == 0;
  const uint32_t ma = ex__m(args[0]);
  EX_ROWS(rows, i) {
    out->data[i] = (uint8_t)(!ex__valid(args[0], i & ma) == want_null);
    ex__set_valid(out, i);
  }
  return FL_OK;
}

void ex__reg_logic(void) {
  ex__reg(&(ex_func_t){.name = "and",
                       .nparams = 2,
                       .params = {EX_T(BOOLEAN), EX_T(BOOLEAN)},
                       .ret = EX_T(BOOLEAN),
                       .kernel = k_andor,
                       .flags = EX_FN_NULLS | EX_FN_VARIADIC,
                       .op = OP_AND});
  ex__reg(&(ex_func_t){.name = "or",
                       .nparams = 2,
                       .params = {EX_T(BOOLEAN), EX_T(BOOLEAN)},
                       .ret = EX_T(BOOLEAN),
                       .kernel = k_andor,
                       .flags = EX_FN_NULLS | EX_FN_VARIADIC,
                       .op = OP_OR});
  ex__reg(&(ex_func_t){.name = "not",
                       .nparams = 1,
                       .params = {EX_T(BOOLEAN)},
                       .ret = EX_T(BOOLEAN),
                       .kernel = k_not});
  ex__reg(&(ex_func_t){.name = "is_null",
                       .nparams = 1,
                       .params = {EX_T(ANY)},
                       .ret = EX_T(BOOLEAN),
                       .kernel = k_is_null,
                       .flags = EX_FN_NULLS,
                       .op = 0});
  ex__reg(&(ex_func_t){.name = "is_not_null",
                       .nparams = 1,
                       .params = {EX_T(ANY)},
                       .ret = EX_T(BOOLEAN),
                       .kernel = k_is_null,
                       .flags = EX_FN_NULLS,
                       .op = 1});
}
