/*
 * ex_map.c - maps of any key and value type: the constructors map(),
 * map(keys, values) and map_from_entries(entries), the subscript m[k]
 * (an error when the key is absent, as Trino), element_at(m, k) (NULL
 * then), cardinality, map_keys and map_values.
 *
 * Maps are map vectors (types/vec.h): offsets[row] .. offsets[row + 1]
 * index the key vector children[0] and the value vector children[1].
 * Keys are never NULL and never repeat within a map; a key is found by
 * comparing values (ex__value_cmp), the argument already coerced to the
 * key type by the resolver.
 */
#include "base/alloc.h"
#include "exec/ex_func_int.h"

enum { M_ELEMENT_AT, M_SUBSCRIPT };

static int map_value_ret(const ex_type_t *args, size_t n, ex_type_t *ret, fl_err_t *err) {
  (void)n;
  if (!args[0].key || !args[0].elem)
    return fl_err_set(err, FL_EINVALID, "map without key and value types");
  *ret = *args[0].elem;
  return FL_OK;
}

/* The entry of row r of map vector mv whose key equals k[ki], or -1. */
static int32_t find_key(const ex_type_t *kt, const ty_vec_t *mv, uint32_t r, const ty_vec_t *k,
                        uint32_t ki) {
  for (int32_t e = mv->offsets[r]; e < mv->offsets[r + 1]; e++)
    if (ex__value_cmp(kt, mv->children[0], (uint32_t)e, k, ki, EX_CMP_DISTINCT) == EX_CMP_EQ)
      return e;
  return -1;
}

/* Appender for results built row by row (see ex_array.c). */
static uint8_t *out_todo(ty_vec_t *out) {
  size_t nb = ((size_t)out->len + 7) / 8;
  uint8_t *t = fl_malloc(nb ? nb : 1);
  if (nb) memcpy(t, out->validity, nb);
  uint32_t n = out->len;
  ty_vec_reset(out);
  ty_vec_reserve(out, n ? n : 1);
  return t;
}
static inline bool todo_at(const uint8_t *t, uint32_t i) { return (t[i >> 3] >> (i & 7)) & 1; }

static int k_map_element(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                         const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const bool subscript = call->r.fn->op == M_SUBSCRIPT;
  const uint32_t m = ex__m(args[0]), mk = ex__m(args[1]);
  const ty_vec_t *vals = args[0]->children[1];
  const uint32_t nrows = out->len;
  uint8_t *todo = out_todo(out);
  int rc = FL_OK;
  uint32_t next = 0;
  EX_ROWS(rows, i) {
    for (; next < i; next++) ty_vec_append_null(out);
    next = i + 1;
    if (!todo_at(todo, i)) {
      ty_vec_append_null(out);
      continue;
    }
    int32_t at = find_key(&call->r.args[1], args[0], i & m, args[1], i & mk);
    if (at < 0 && subscript) {
      fl_buf_t shown;
      fl_buf_init(&shown);
      ex__format_value(ctx, &call->r.args[1], args[1], i & mk, &shown);
      rc = ex__err(err, "Key not present in map: %.*s", (int)shown.len, (const char *)shown.data);
      fl_buf_free(&shown);
      ty_vec_append_null(out);
      break;
    }
    if (at < 0 || call->r.ret.kind == EX_UNKNOWN)
      ty_vec_append_null(out);
    else
      ty_vec_append_from(out, vals, (uint32_t)at);
  }
  for (; next < nrows; next++) ty_vec_append_null(out);
  fl_free(todo);
  return rc;
}

static int k_map_cardinality(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                             const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx, (void)call, (void)err;
  const uint32_t m = ex__m(args[0]);
  EX_ROWS(rows, i) {
    TY_VEC_DATA(out, int64_t)[i] = args[0]->offsets[(i & m) + 1] - args[0]->offsets[i & m];
  }
  return FL_OK;
}

/* ---- constructors ---- */

static const ex_type_t g_unknown = {.kind = EX_UNKNOWN};

static int empty_map_ret(const ex_type_t *args, size_t n, ex_type_t *ret, fl_err_t *err) {
  (void)args, (void)n, (void)err;
  *ret = (ex_type_t){.kind = EX_MAP, .key = &g_unknown, .elem = &g_unknown};
  return FL_OK;
}

static int map_ret(const ex_type_t *args, size_t n, ex_type_t *ret, fl_err_t *err) {
  (void)n, (void)err;
  if (!args[0].elem || !args[1].elem)
    return fl_err_set(err, FL_EINVALID, "map() takes two arrays");
  if (!ex_type_comparable(args[0].elem))
    return fl_err_set(err, FL_ENOTFOUND, "map key type must be comparable: %s",
                      ex_type_str(args[0].elem));
  *ret = (ex_type_t){.kind = EX_MAP, .key = args[0].elem, .elem = args[1].elem};
  return FL_OK;
}

static int entries_ret(const ex_type_t *args, size_t n, ex_type_t *ret, fl_err_t *err) {
  (void)n;
  const ex_type_t *e = args[0].elem;
  if (!e || e->kind != EX_ROW || e->nfields != 2)
    return fl_err_set(err, FL_ENOTFOUND,
                      "map_from_entries takes an array of rows of two fields, not %s",
                      ex_type_str(&args[0]));
  *ret = (ex_type_t){.kind = EX_MAP, .key = &e->fields[0].type, .elem = &e->fields[1].type};
  return FL_OK;
}

/* Appends the entry (keys[k], vals[v]) to map row being built in out,
 * checking Trino's rules: no NULL key, no key twice. */
static int add_entry(ex_ctx_t *ctx, const ex_type_t *kt, ty_vec_t *out, uint32_t row_start,
                     const ty_vec_t *keys, uint32_t k, const ty_vec_t *vals, uint32_t v,
                     fl_err_t *err) {
  if (ty_vec_is_null(keys, k)) return ex__err(err, "map key cannot be null");
  ty_vec_t *ok = out->children[0];
  for (uint32_t d = row_start; d < ok->len; d++)
    if (ex__value_cmp(kt, ok, d, keys, k, EX_CMP_DISTINCT) == EX_CMP_EQ) {
      fl_buf_t shown;
      fl_buf_init(&shown);
      ex__format_value(ctx, kt, keys, k, &shown);
      int rc = ex__err(err, "Duplicate map keys (%.*s) are not allowed", (int)shown.len,
                       (const char *)shown.data);
      fl_buf_free(&shown);
      return rc;
    }
  ty_vec_append_from(ok, keys, k);
  if (vals)
    ty_vec_append_from(out->children[1], vals, v);
  else
    ty_vec_append_null(out->children[1]);
  return FL_OK;
}

enum { C_EMPTY, C_ARRAYS, C_ENTRIES };

static int k_map_new(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                     const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const int op = call->r.fn->op;
  const uint32_t nrows = out->len;
  uint8_t *todo = out_todo(out);
  const ex_type_t *kt = call->r.ret.key;
  int rc = FL_OK;
  uint32_t next = 0;
  EX_ROWS(rows, i) {
    for (; next < i; next++) ty_vec_append_null(out);
    next = i + 1;
    if (op != C_EMPTY && !todo_at(todo, i)) {
      ty_vec_append_null(out);
      continue;
    }
    uint32_t start = out->children[0]->len;
    if (op == C_ARRAYS) {
      const ty_vec_t *ka = args[0], *va = args[1];
      uint32_t rk = i & ex__m(ka), rv = i & ex__m(va);
      int32_t kb = ka->offsets[rk], ke = ka->offsets[rk + 1];
      int32_t vb = va->offsets[rv], ve = va->offsets[rv + 1];
      if (ke - kb != ve - vb) {
        rc = ex__err(err, "Key and value arrays must be the same length");
      } else {
        for (int32_t x = 0; x < ke - kb && !rc; x++)
          rc = add_entry(ctx, kt, out, start, ka->children[0], (uint32_t)(kb + x),
                         call->r.ret.elem->kind == EX_UNKNOWN ? NULL : va->children[0],
                         (uint32_t)(vb + x), err);
      }
    } else if (op == C_ENTRIES) {
      const ty_vec_t *ea = args[0], *rowv = ea->children[0];
      uint32_t r = i & ex__m(ea);
      for (int32_t x = ea->offsets[r]; x < ea->offsets[r + 1] && !rc; x++) {
        if (ty_vec_is_null(rowv, (uint32_t)x)) {
          rc = ex__err(err, "map entry cannot be null");
          break;
        }
        rc = add_entry(ctx, kt, out, start, rowv->children[0], (uint32_t)x, rowv->children[1],
                       (uint32_t)x, err);
      }
    }
    if (rc) {
      /* The failed row's entries stay in the children; the statement
       * fails, so the vector is not read. */
      ty_vec_append_null(out);
      break;
    }
    ty_vec_append_list_end(out);
  }
  for (; next < nrows; next++) ty_vec_append_null(out);
  fl_free(todo);
  return rc;
}

/* map_keys, map_values: the keys or values as an array. */
static int keys_ret(const ex_type_t *args, size_t n, ex_type_t *ret, fl_err_t *err) {
  (void)n, (void)err;
  *ret = (ex_type_t){.kind = EX_ARRAY, .elem = args[0].key};
  return FL_OK;
}
static int values_ret(const ex_type_t *args, size_t n, ex_type_t *ret, fl_err_t *err) {
  (void)n, (void)err;
  *ret = (ex_type_t){.kind = EX_ARRAY, .elem = args[0].elem};
  return FL_OK;
}

static int k_map_part(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                      const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx, (void)err;
  const ty_vec_t *part = args[0]->children[call->r.fn->op];
  const uint32_t m = ex__m(args[0]), nrows = out->len;
  uint8_t *todo = out_todo(out);
  uint32_t next = 0;
  EX_ROWS(rows, i) {
    for (; next < i; next++) ty_vec_append_null(out);
    next = i + 1;
    if (!todo_at(todo, i)) {
      ty_vec_append_null(out);
      continue;
    }
    for (int32_t e = args[0]->offsets[i & m]; e < args[0]->offsets[(i & m) + 1]; e++)
      ty_vec_append_from(out->children[0], part, (uint32_t)e);
    ty_vec_append_list_end(out);
  }
  for (; next < nrows; next++) ty_vec_append_null(out);
  fl_free(todo);
  return FL_OK;
}

void ex__reg_map(void) {
  const ex_type_t M = EX_T(MAP), T = EX_T(ANY), A = EX_T(ARRAY);
  ex__reg(&(ex_func_t){.name = "[]",
                       .nparams = 2,
                       .params = {M, T},
                       .ret_fn = map_value_ret,
                       .kernel = k_map_element,
                       .flags = EX_FN_ELEM,
                       .op = M_SUBSCRIPT});
  ex__reg(&(ex_func_t){.name = "element_at",
                       .nparams = 2,
                       .params = {M, T},
                       .ret_fn = map_value_ret,
                       .kernel = k_map_element,
                       .flags = EX_FN_ELEM,
                       .op = M_ELEMENT_AT});
  ex__reg(&(ex_func_t){.name = "cardinality",
                       .nparams = 1,
                       .params = {M},
                       .ret = EX_T(BIGINT),
                       .kernel = k_map_cardinality});
  ex__reg(&(ex_func_t){
      .name = "map", .nparams = 0, .ret_fn = empty_map_ret, .kernel = k_map_new, .op = C_EMPTY});
  ex__reg(&(ex_func_t){.name = "map",
                       .nparams = 2,
                       .params = {A, A},
                       .ret_fn = map_ret,
                       .kernel = k_map_new,
                       .op = C_ARRAYS});
  ex__reg(&(ex_func_t){.name = "map_from_entries",
                       .nparams = 1,
                       .params = {A},
                       .ret_fn = entries_ret,
                       .kernel = k_map_new,
                       .op = C_ENTRIES});
  ex__reg(&(ex_func_t){
      .name = "map_keys", .nparams = 1, .params = {M}, .ret_fn = keys_ret, .kernel = k_map_part});
  ex__reg(&(ex_func_t){.name = "map_values",
                       .nparams = 1,
                       .params = {M},
                       .ret_fn = values_ret,
                       .kernel = k_map_part,
                       .op = 1});
}
