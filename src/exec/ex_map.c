/*
 * ex_map.c - functions over maps: the subscript m[k] (an error when the
 * key is absent, as Trino), element_at(m, k) (NULL then) and
 * cardinality(m).
 *
 * Maps are map vectors (types/vec.h): offsets[row] .. offsets[row + 1]
 * index the key vector children[0] and the value vector children[1].
 * Keys are integers or strings here (the metadata tables' maps); an
 * integer key matches an integer index of any width.
 */
#include "exec/ex_func_int.h"

enum { M_ELEMENT_AT, M_SUBSCRIPT };

static bool int_kind(ex_tkind_t k) { return ex_type_is_integral(k); }

static int map_value_ret(const ex_type_t *args, size_t n, ex_type_t *ret, fl_err_t *err) {
  const ex_type_t *m = &args[0];
  (void)n;
  if (!m->key || !m->elem) return fl_err_set(err, FL_EINVALID, "map without key and value types");
  bool ok = (int_kind(m->key->kind) && int_kind(args[1].kind)) ||
            (m->key->kind == EX_VARCHAR && args[1].kind == EX_VARCHAR) ||
            args[1].kind == EX_UNKNOWN;
  if (!ok)
    return fl_err_set(err, FL_ENOTFOUND, "Cannot use %s as a key of %s", ex_type_str(&args[1]),
                      ex_type_str(m));
  if (m->elem->kind == EX_ARRAY || m->elem->kind == EX_MAP || m->elem->kind == EX_ROW)
    return fl_err_set(err, FL_EUNSUPPORTED, "Subscripts of maps of %s are not supported yet",
                      ex_type_str(m->elem));
  *ret = *m->elem;
  return FL_OK;
}

static int64_t int_at(const ty_vec_t *v, uint32_t i) {
  return v->type->kind == TY_INT ? TY_VEC_DATA(v, int32_t)[i] : TY_VEC_DATA(v, int64_t)[i];
}

static int k_map_element(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                         const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx;
  const bool subscript = call->r.fn->op == M_SUBSCRIPT;
  const uint32_t m = ex__m(args[0]), mk = ex__m(args[1]);
  const ty_vec_t *keys = args[0]->children[0], *vals = args[0]->children[1];
  const bool str_keys = keys->type->kind == TY_STRING;
  const bool str_vals = out->offsets != NULL;
  const size_t width = str_vals ? 0 : ty_value_width(out->type);
  ex_sw_t w = {0};
  if (str_vals) ex__sw_init(&w, out);
  fl_buf_t shown;
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    uint32_t r = i & m, ki = i & mk;
    int32_t b = args[0]->offsets[r], e = args[0]->offsets[r + 1], at = -1;
    for (int32_t k = b; k < e && at < 0; k++) {
      if (str_keys) {
        size_t n1, n2;
        const uint8_t *p1 = ty_vec_get_bytes(keys, (uint32_t)k, &n1);
        const uint8_t *p2 = ex__str(args[1], ki, &n2);
        if (n1 == n2 && (n1 == 0 || memcmp(p1, p2, n1) == 0)) at = k;
      } else if (int_at(keys, (uint32_t)k) == int_at(args[1], ki)) {
        at = k;
      }
    }
    if (at < 0) {
      if (subscript) {
        fl_buf_init(&shown);
        ex__format_value(ctx, &call->r.args[1], args[1], ki, &shown);
        int rc =
            ex__err(err, "Key not present in map: %.*s", (int)shown.len, (const char *)shown.data);
        fl_buf_free(&shown);
        return rc;
      }
      ex__set_null(out, i);
      continue;
    }
    if (ty_vec_is_null(vals, (uint32_t)at)) {
      ex__set_null(out, i);
      continue;
    }
    if (str_vals) {
      size_t n;
      const uint8_t *p = ty_vec_get_bytes(vals, (uint32_t)at, &n);
      ex__sw_put(&w, i, p, n);
    } else {
      memcpy(out->data + (size_t)i * width, vals->data + (size_t)at * width, width);
    }
  }
  return FL_OK;
}

static int k_map_cardinality(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                             const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx;
  (void)call;
  (void)err;
  const uint32_t m = ex__m(args[0]);
  EX_ROWS(rows, i) {
    TY_VEC_DATA(out, int64_t)[i] = args[0]->offsets[(i & m) + 1] - args[0]->offsets[i & m];
  }
  return FL_OK;
}

void ex__reg_map(void) {
  const ex_type_t M = EX_T(MAP), T = EX_T(ANY);
  ex__reg(&(ex_func_t){.name = "[]",
                       .nparams = 2,
                       .params = {M, T},
                       .ret_fn = map_value_ret,
                       .kernel = k_map_element,
                       .op = M_SUBSCRIPT});
  ex__reg(&(ex_func_t){.name = "element_at",
                       .nparams = 2,
                       .params = {M, T},
                       .ret_fn = map_value_ret,
                       .kernel = k_map_element,
                       .op = M_ELEMENT_AT});
  ex__reg(&(ex_func_t){.name = "cardinality",
                       .nparams = 1,
                       .params = {M},
                       .ret = EX_T(BIGINT),
                       .kernel = k_map_cardinality});
}
