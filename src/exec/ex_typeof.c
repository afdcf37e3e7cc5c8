/*
 * ex_typeof.c - typeof(x): the name of the argument's SQL type as Trino
 * spells it ("bigint", "map(varchar, varchar)"), for any value, NULL
 * included.
 */
#include "exec/ex_func_int.h"

static int k_typeof(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                    const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx;
  (void)args;
  (void)err;
  fl_buf_t name;
  fl_buf_init(&name);
  ex_type_format(&call->r.args[0], &name);
  ex_sw_t w = {0};
  ex__sw_init(&w, out);
  EX_ROWS(rows, i) {
    ex__set_valid(out, i);
    ex__sw_put(&w, i, name.data, name.len);
  }
  fl_buf_free(&name);
  return FL_OK;
}

void ex__reg_typeof(void) {
  ex__reg(&(ex_func_t){.name = "typeof",
                       .nparams = 1,
                       .params = {EX_T(ANY)},
                       .ret = EX_T(VARCHAR),
                       .kernel = k_typeof,
                       .flags = EX_FN_NULLS,
                       .doc = "the name of the argument's type"});
}
