/*
 * func_tool.c - a test-only driver of floe's scalar function library
 * (exec/ex_func.h, exec/ex_cast.h) for the differential tests against
 * DuckDB: reads one JSON request per line on stdin and answers one JSON
 * object per line on stdout.
 *
 * Request:
 *   {"fn": "substr", "types": ["varchar", "bigint"], "rows": [["hello", 2], [null, 1]],
 *    "zone": "America/New_York", "now_us": 0}
 * fn is a registered function or operator name, or "cast:<type>" /
 * "try_cast:<type>". Row cells are JSON booleans and numbers for boolean,
 * integer and floating types (or "NaN", "Infinity", "-Infinity"), and
 * strings in Trino's text form for every other type (decimals "1.25",
 * dates "2024-01-02", timestamps "2024-01-02 03:04:05.123456", varbinary
 * as hex), which the tool casts from varchar; intervals are JSON integers
 * (micros or months), arrays JSON lists of strings. null is NULL.
 *
 * Answer: {"type": "bigint", "results": [{"v": "3"}, {"v": null}, {"error": "..."}]}
 * with every value as Trino's CAST(... AS varchar) text (arrays as JSON
 * lists of such texts). All rows are evaluated as one batch; when the
 * batch fails, each row is evaluated alone so that errors land on their
 * rows. Or {"error": "message"} for a request that cannot be served.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "exec/ex_cast.h"
#include "exec/ex_func.h"

static int unhex(const char *s, uint8_t *out, size_t *n) {
  size_t len = strlen(s);
  if (len % 2) return -1;
  for (size_t i = 0; i < len / 2; i++) {
    unsigned x;
    if (sscanf(s + 2 * i, "%2x", &x) != 1) return -1;
    out[i] = (uint8_t)x;
  }
  *n = len / 2;
  return 0;
}

/* Builds a vector of type t from column c of the rows. */
static int build_column(ex_ctx_t *ctx, const ex_type_t *t, json_t *rows, size_t c, ty_vec_t **out,
                        fl_err_t *err) {
  size_t n = json_array_size(rows);
  const ty_type_t *st = ex_type_storage(t, ctx->arena);
  ty_vec_t *v = ty_vec_new(st, (uint32_t)(n ? n : 1));
  bool via_text = !(t->kind == EX_BOOLEAN || ex_type_is_integral(t->kind) || t->kind == EX_REAL ||
                    t->kind == EX_DOUBLE || t->kind == EX_VARCHAR || t->kind == EX_UNKNOWN ||
                    t->kind == EX_INTERVAL_DS || t->kind == EX_INTERVAL_YM ||
                    t->kind == EX_VARBINARY || t->kind == EX_ARRAY);
  ty_vec_t *text = via_text ? ty_vec_new(ty_primitive(TY_STRING), (uint32_t)(n ? n : 1)) : NULL;
  for (size_t r = 0; r < n; r++) {
    json_t *cell = json_array_get(json_array_get(rows, r), c);
    ty_vec_t *dst = via_text ? text : v;
    if (!cell || json_is_null(cell) || t->kind == EX_UNKNOWN) {
      ty_vec_append_null(dst);
      continue;
    }
    if (via_text) {
      if (!json_is_string(cell)) goto bad;
      ty_vec_append_bytes(text, json_string_value(cell), json_string_length(cell));
      continue;
    }
    switch (t->kind) {
      case EX_BOOLEAN:
        if (!json_is_boolean(cell)) goto bad;
        ty_vec_append_bool(v, json_is_true(cell));
        break;
      case EX_TINYINT:
      case EX_SMALLINT:
      case EX_INTEGER:
      case EX_INTERVAL_YM:
        if (!json_is_integer(cell)) goto bad;
        ty_vec_append_i32(v, (int32_t)json_integer_value(cell));
        break;
      case EX_BIGINT:
      case EX_INTERVAL_DS:
        if (!json_is_integer(cell)) goto bad;
        ty_vec_append_i64(v, (int64_t)json_integer_value(cell));
        break;
      case EX_REAL:
      case EX_DOUBLE: {
        double d;
        if (json_is_string(cell)) {
          const char *s = json_string_value(cell);
          d = !strcmp(s, "NaN")         ? NAN
              : !strcmp(s, "Infinity")  ? INFINITY
              : !strcmp(s, "-Infinity") ? -INFINITY
                                        : strtod(s, NULL);
        } else if (json_is_number(cell)) {
          d = json_number_value(cell);
        } else {
          goto bad;
        }
        if (t->kind == EX_REAL)
          ty_vec_append_f32(v, (float)d);
        else
          ty_vec_append_f64(v, d);
        break;
      }
      case EX_VARCHAR:
        if (!json_is_string(cell)) goto bad;
        ty_vec_append_bytes(v, json_string_value(cell), json_string_length(cell));
        break;
      case EX_ARRAY: {
        /* A JSON list of strings and nulls. */
        if (!json_is_array(cell)) goto bad;
        for (size_t e = 0; e < json_array_size(cell); e++) {
          json_t *x = json_array_get(cell, e);
          if (json_is_null(x))
            ty_vec_append_null(v->children[0]);
          else if (json_is_string(x))
            ty_vec_append_bytes(v->children[0], json_string_value(x), json_string_length(x));
          else
            goto bad;
        }
        ty_vec_append_list_end(v);
        break;
      }
      case EX_VARBINARY: {
        if (!json_is_string(cell)) goto bad;
        size_t len = json_string_length(cell), bn;
        uint8_t *b = fl_malloc(len / 2 + 1);
        if (unhex(json_string_value(cell), b, &bn)) {
          fl_free(b);
          goto bad;
        }
        ty_vec_append_bytes(v, b, bn);
        fl_free(b);
        break;
      }
      default: goto bad;
    }
    continue;
  bad:
    ty_vec_free(v);
    ty_vec_free(text);
    return fl_err_set(err, FL_EINVALID, "row %zu column %zu: bad cell for %s", r, c,
                      ex_type_str(t));
  }
  if (via_text) {
    ex_rows_t rows_all = {.nrows = (uint32_t)n, .n = (uint32_t)n};
    ex_type_t vt = ex_type(EX_VARCHAR);
    int rc = ex_cast_eval(ctx, &vt, t, false, text, &rows_all, v, err);
    ty_vec_free(text);
    if (rc) {
      ty_vec_free(v);
      return fl_err_prefix(err, "column %zu: ", c);
    }
  }
  *out = v;
  return FL_OK;
}

static json_t *value_json(ex_ctx_t *ctx, const ex_type_t *t, const ty_vec_t *v, uint32_t i) {
  if (ty_vec_is_null(v, i)) return json_null();
  if (t->kind == EX_ARRAY) {
    json_t *a = json_array();
    const ty_vec_t *c = v->children[0];
    for (int32_t e = v->offsets[i]; e < v->offsets[i + 1]; e++) {
      if (ty_vec_is_null(c, (uint32_t)e))
        json_array_append_new(a, json_null());
      else {
        size_t n;
        const uint8_t *p = ty_vec_get_bytes(c, (uint32_t)e, &n);
        json_array_append_new(a, json_stringn((const char *)p, n));
      }
    }
    return a;
  }
  if (t->kind == EX_VARBINARY) {
    size_t n;
    const uint8_t *p = ty_vec_get_bytes(v, i, &n);
    char *s = fl_malloc(n * 2 + 1);
    for (size_t k = 0; k < n; k++) snprintf(s + 2 * k, 3, "%02x", p[k]);
    s[2 * n] = 0;
    json_t *j = json_string(s);
    fl_free(s);
    return j;
  }
  /* Everything else as Trino's varchar text, through the library's cast. */
  ty_vec_t *one = ty_vec_new(v->type, 1);
  ty_vec_append_from(one, v, i);
  ty_vec_t *text = ty_vec_new(ty_primitive(TY_STRING), 1);
  ex_rows_t r = {.nrows = 1, .n = 1};
  ex_type_t vt = ex_type(EX_VARCHAR);
  fl_err_t err;
  json_t *j;
  if (ex_cast_eval(ctx, t, &vt, false, one, &r, text, &err) != FL_OK) {
    j = json_pack("s", err.msg);
  } else {
    size_t n;
    const uint8_t *p = ty_vec_get_bytes(text, 0, &n);
    j = json_stringn((const char *)p, n);
  }
  ty_vec_free(one);
  ty_vec_free(text);
  return j;
}

/* Evaluates fn over cols for the given rows into *out. */
static int run(ex_ctx_t *ctx, const char *fn, const ex_type_t *types, ty_vec_t **cols, size_t nargs,
               const ex_rows_t *rows, ty_vec_t **out, ex_type_t *rt, fl_err_t *err) {
  bool is_try = strncmp(fn, "try_cast:", 9) == 0;
  if (is_try || strncmp(fn, "cast:", 5) == 0) {
    if (nargs != 1) return fl_err_set(err, FL_EINVALID, "cast takes one argument");
    int rc = ex_type_parse(fn + (is_try ? 9 : 5), rt, err);
    if (rc) return rc;
    if ((rc = ex_cast_check(&types[0], rt, err))) return rc;
    *out = ty_vec_new(ex_type_storage(rt, ctx->arena), rows->nrows);
    return ex_cast_eval(ctx, &types[0], rt, is_try, cols[0], rows, *out, err);
  }
  return ex_func_eval(ctx, fn, types, (const ty_vec_t *const *)cols, nargs, rows, out, rt, err);
}

static json_t *serve(json_t *req) {
  fl_err_t err;
  fl_err_clear(&err);
  const char *fn = json_string_value(json_object_get(req, "fn"));
  json_t *jtypes = json_object_get(req, "types"), *rows = json_object_get(req, "rows");
  if (!fn || !json_is_array(jtypes) || !json_is_array(rows))
    return json_pack("{s:s}", "error", "request needs fn, types and rows");
  size_t nargs = json_array_size(jtypes), n = json_array_size(rows);
  if (nargs > EX_MAX_ARGS) return json_pack("{s:s}", "error", "too many arguments");
  fl_arena_t *arena = fl_arena_new(0);
  ex_ctx_t ctx;
  const fl_tz_t *zone = NULL;
  const char *zname = json_string_value(json_object_get(req, "zone"));
  if (zname && fl_tz_get(zname, strlen(zname), &zone, &err) != FL_OK) {
    fl_arena_free(arena);
    return json_pack("{s:s}", "error", err.msg);
  }
  json_t *jnow = json_object_get(req, "now_us");
  ex_ctx_init(&ctx, arena, zone, jnow ? json_integer_value(jnow) : -1);
  ex_type_t types[EX_MAX_ARGS];
  ty_vec_t *cols[EX_MAX_ARGS] = {0};
  json_t *answer = NULL;
  for (size_t a = 0; a < nargs; a++) {
    const char *ts = json_string_value(json_array_get(jtypes, a));
    if (!ts || ex_type_parse(ts, &types[a], &err) ||
        build_column(&ctx, &types[a], rows, a, &cols[a], &err)) {
      answer = json_pack("{s:s}", "error", err.msg);
      goto done;
    }
  }
  ex_rows_t all = {.nrows = (uint32_t)n, .n = (uint32_t)n};
  ty_vec_t *out = NULL;
  ex_type_t rt;
  json_t *results = json_array();
  int rc = run(&ctx, fn, types, cols, nargs, &all, &out, &rt, &err);
  if (rc == FL_OK) {
    for (uint32_t i = 0; i < n; i++)
      json_array_append_new(results, json_pack("{s:o}", "v", value_json(&ctx, &rt, out, i)));
  } else if (!out) {
    json_decref(results);
    answer = json_pack("{s:s}", "error", err.msg);
    goto done;
  } else {
    /* One row at a time, through a selection of that row only. */
    for (uint32_t i = 0; i < n; i++) {
      ty_vec_free(out);
      out = NULL;
      fl_err_clear(&err);
      ex_rows_t one = {.nrows = (uint32_t)n, .sel = &i, .n = 1};
      if (run(&ctx, fn, types, cols, nargs, &one, &out, &rt, &err) == FL_OK)
        json_array_append_new(results, json_pack("{s:o}", "v", value_json(&ctx, &rt, out, i)));
      else
        json_array_append_new(results, json_pack("{s:s}", "error", err.msg));
    }
  }
  ty_vec_free(out);
  answer = json_pack("{s:s,s:o}", "type", ex_type_str(&rt), "results", results);
done:
  for (size_t a = 0; a < nargs; a++) ty_vec_free(cols[a]);
  fl_arena_free(arena);
  return answer;
}

int main(void) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, stdin)) > 0) {
    json_error_t jerr;
    json_t *req = json_loadb(line, (size_t)len, 0, &jerr);
    json_t *ans = req ? serve(req) : json_pack("{s:s}", "error", jerr.text);
    char *s = json_dumps(ans, JSON_COMPACT);
    puts(s);
    fflush(stdout);
    free(s);
    json_decref(ans);
    json_decref(req);
  }
  free(line);
  return 0;
}
