/*
 * ex_json.c - functions over json values: json_format(j) (the JSON text
 * as varchar) and json_extract_scalar(j, path) (the scalar at a simple
 * JSONPath as varchar: NULL when the path does not lead to a string,
 * number or boolean, as Trino).
 *
 * Paths are "$" followed by ".name" or "["name"]" steps and "[n]" array
 * indexes; each row's text is parsed with jansson.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "exec/ex_func_int.h"

static int k_json_format(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                         const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx;
  (void)call;
  (void)err;
  const uint32_t m = ex__m(args[0]);
  ex_sw_t w = {0};
  ex__sw_init(&w, out);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    size_t n;
    const uint8_t *p = ex__str(args[0], i & m, &n);
    ex__sw_put(&w, i, p, n);
  }
  return FL_OK;
}

/* Follows path (after "$") from j; NULL when a step does not apply. */
static json_t *walk(json_t *j, const char *p, size_t n) {
  size_t i = 0;
  char key[256];
  while (i < n && j) {
    size_t k = 0;
    if (p[i] == '.') {
      for (i++; i < n && p[i] != '.' && p[i] != '['; i++)
        if (k < sizeof key - 1) key[k++] = p[i];
      key[k] = 0;
      j = json_is_object(j) ? json_object_get(j, key) : NULL;
    } else if (p[i] == '[' && i + 1 < n && p[i + 1] == '"') {
      for (i += 2; i < n && p[i] != '"'; i++)
        if (k < sizeof key - 1) key[k++] = p[i];
      key[k] = 0;
      i += 2; /* closing quote and bracket */
      j = json_is_object(j) ? json_object_get(j, key) : NULL;
    } else if (p[i] == '[') {
      long idx = strtol(p + i + 1, NULL, 10);
      while (i < n && p[i] != ']') i++;
      i++;
      j = json_is_array(j) && idx >= 0 ? json_array_get(j, (size_t)idx) : NULL;
    } else {
      return NULL;
    }
  }
  return j;
}

static int k_json_extract_scalar(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                                 const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx;
  (void)call;
  const uint32_t m = ex__m(args[0]), mp = ex__m(args[1]);
  ex_sw_t w = {0};
  ex__sw_init(&w, out);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    size_t n, pn;
    const uint8_t *text = ex__str(args[0], i & m, &n);
    const char *path = (const char *)ex__str(args[1], i & mp, &pn);
    if (pn == 0 || path[0] != '$') return ex__err(err, "Invalid JSON path: '%.*s'", (int)pn, path);
    json_error_t je;
    json_t *root = json_loadb((const char *)text, n, JSON_DECODE_ANY, &je);
    json_t *v = root ? walk(root, path + 1, pn - 1) : NULL;
    char buf[64];
    const char *s = NULL;
    size_t sn = 0;
    if (json_is_string(v)) {
      s = json_string_value(v);
      sn = json_string_length(v);
    } else if (json_is_integer(v)) {
      sn = (size_t)snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
      s = buf;
    } else if (json_is_real(v)) {
      char *d = json_dumps(v, JSON_ENCODE_ANY);
      sn = (size_t)snprintf(buf, sizeof buf, "%s", d ? d : "");
      free(d);
      s = buf;
    } else if (json_is_boolean(v)) {
      s = json_is_true(v) ? "true" : "false";
      sn = strlen(s);
    }
    if (s)
      ex__sw_put(&w, i, s, sn);
    else
      ex__set_null(out, i);
    if (root) json_decref(root);
  }
  return FL_OK;
}

/* json_parse(s): the JSON text, checked and in compact form. */
static int k_json_parse(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                        const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)ctx, (void)call;
  const uint32_t m = ex__m(args[0]);
  ex_sw_t w = {0};
  ex__sw_init(&w, out);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    size_t n;
    const uint8_t *p = ex__str(args[0], i & m, &n);
    json_error_t je;
    json_t *j = json_loadb((const char *)p, n, JSON_DECODE_ANY, &je);
    if (!j)
      return ex__err(err, "Cannot convert value to JSON: '%.*s'", (int)(n > 100 ? 100 : n),
                     (const char *)p);
    char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
    json_decref(j);
    if (!s) return ex__err(err, "Cannot convert value to JSON");
    ex__sw_put(&w, i, s, strlen(s));
    free(s);
  }
  return FL_OK;
}

void ex__reg_json(void) {
  const ex_type_t J = EX_T(JSON), V = EX_T(VARCHAR);
  ex__reg(&(ex_func_t){
      .name = "json_parse", .nparams = 1, .params = {V}, .ret = J, .kernel = k_json_parse});
  ex__reg(&(ex_func_t){
      .name = "json_format", .nparams = 1, .params = {J}, .ret = V, .kernel = k_json_format});
  ex__reg(&(ex_func_t){.name = "json_extract_scalar",
                       .nparams = 2,
                       .params = {J, V},
                       .ret = V,
                       .kernel = k_json_extract_scalar});
}
