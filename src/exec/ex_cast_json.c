/*
 * ex_cast_json.c - CAST to and from json, as Trino: any value to its
 * JSON text (arrays as JSON arrays, maps as objects keyed by the keys'
 * text, rows as objects of their field names, or arrays when the fields
 * are anonymous; dates, timestamps and uuids as strings), and JSON text
 * to arrays, maps, rows and scalars (layer 8, exec).
 *
 * The text is parsed with jansson. A JSON scalar becomes a SQL scalar
 * through its text and the varchar cast (so CAST(JSON '"12"' AS integer)
 * and CAST(JSON '12' AS integer) both give 12, and a decimal keeps every
 * digit); JSON null is SQL NULL. A JSON value of the wrong shape fails
 * the row, naming the target type and what was found.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <strings.h>

#include "base/alloc.h"
#include "exec/ex_cast.h"
#include "exec/ex_func_int.h"
#include "types/value.h"

bool ex__json_castable_to(const ex_type_t *t) {
  switch (t->kind) {
    case EX_VARBINARY:
    case EX_INTERVAL_DS:
    case EX_INTERVAL_YM:
    case EX_ANY: return false;
    case EX_ARRAY: return t->elem && ex__json_castable_to(t->elem);
    case EX_MAP:
      return t->key && t->elem && ex__json_castable_to(t->key) && ex__json_castable_to(t->elem);
    case EX_ROW:
      for (uint32_t i = 0; i < t->nfields; i++)
        if (!ex__json_castable_to(&t->fields[i].type)) return false;
      return true;
    default: return true;
  }
}

bool ex__json_castable_from(const ex_type_t *t) {
  if (t->kind == EX_UNKNOWN) return false;
  return ex__json_castable_to(t);
}

static void put_json_string(fl_buf_t *out, const uint8_t *p, size_t n) {
  fl_buf_append_u8(out, '"');
  for (size_t i = 0; i < n; i++) {
    uint8_t ch = p[i];
    if (ch == '"' || ch == '\\') {
      fl_buf_append_u8(out, '\\');
      fl_buf_append_u8(out, ch);
    } else if (ch < 0x20) {
      fl_buf_printf(out, "\\u%04x", ch);
    } else {
      fl_buf_append_u8(out, ch);
    }
  }
  fl_buf_append_u8(out, '"');
}

/* Appends the JSON text of v[i] of type t. */
static void write_json(ex_ctx_t *ctx, const ex_type_t *t, const ty_vec_t *v, uint32_t i,
                       fl_buf_t *out) {
  if (ty_vec_is_null(v, i) || t->kind == EX_UNKNOWN) {
    fl_buf_append_str(out, "null");
    return;
  }
  char b[64];
  switch (t->kind) {
    case EX_BOOLEAN:
    case EX_TINYINT:
    case EX_SMALLINT:
    case EX_INTEGER:
    case EX_BIGINT:
    case EX_DECIMAL: ex__format_value(ctx, t, v, i, out); return;
    case EX_REAL:
    case EX_DOUBLE: {
      double d = t->kind == EX_REAL ? TY_VEC_DATA(v, float)[i] : TY_VEC_DATA(v, double)[i];
      if (!isfinite(d)) {
        fl_buf_append_str(out, isnan(d) ? "\"NaN\"" : d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        return;
      }
      size_t n = t->kind == EX_REAL ? ty_format_float((float)d, b) : ty_format_double(d, b);
      fl_buf_append(out, b, n);
      return;
    }
    case EX_JSON: {
      size_t n;
      const uint8_t *p = ty_vec_get_bytes(v, i, &n);
      fl_buf_append(out, p, n);
      return;
    }
    case EX_ARRAY: {
      fl_buf_append_u8(out, '[');
      for (int32_t e = v->offsets[i]; e < v->offsets[i + 1]; e++) {
        if (e > v->offsets[i]) fl_buf_append_u8(out, ',');
        write_json(ctx, t->elem, v->children[0], (uint32_t)e, out);
      }
      fl_buf_append_u8(out, ']');
      return;
    }
    case EX_MAP: {
      fl_buf_append_u8(out, '{');
      fl_buf_t key;
      fl_buf_init(&key);
      for (int32_t e = v->offsets[i]; e < v->offsets[i + 1]; e++) {
        if (e > v->offsets[i]) fl_buf_append_u8(out, ',');
        fl_buf_clear(&key);
        ex__format_value(ctx, t->key, v->children[0], (uint32_t)e, &key);
        put_json_string(out, key.data, key.len);
        fl_buf_append_u8(out, ':');
        write_json(ctx, t->elem, v->children[1], (uint32_t)e, out);
      }
      fl_buf_free(&key);
      fl_buf_append_u8(out, '}');
      return;
    }
    case EX_ROW: {
      bool named = t->nfields && t->fields[0].name;
      fl_buf_append_u8(out, named ? '{' : '[');
      for (uint32_t f = 0; f < t->nfields && f < v->nchildren; f++) {
        if (f) fl_buf_append_u8(out, ',');
        if (named) {
          const char *nm = t->fields[f].name ? t->fields[f].name : "";
          put_json_string(out, (const uint8_t *)nm, strlen(nm));
          fl_buf_append_u8(out, ':');
        }
        write_json(ctx, &t->fields[f].type, v->children[f], i, out);
      }
      fl_buf_append_u8(out, named ? '}' : ']');
      return;
    }
    default: {
      fl_buf_t s;
      fl_buf_init(&s);
      ex__format_value(ctx, t, v, i, &s);
      put_json_string(out, s.data, s.len);
      fl_buf_free(&s);
    }
  }
}

int ex__cast_to_json(ex_ctx_t *ctx, const ex_type_t *from, const ty_vec_t *in,
                     const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  (void)err;
  const uint32_t m = ex__m(in);
  ex_sw_t w = {0};
  ex__sw_init(&w, out);
  fl_buf_t b;
  fl_buf_init(&b);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    fl_buf_clear(&b);
    write_json(ctx, from, in, i & m, &b);
    ex__sw_put(&w, i, b.data, b.len);
  }
  fl_buf_free(&b);
  return FL_OK;
}

/* ---- from JSON ---- */

typedef struct jctx {
  ex_ctx_t *ctx;
  const ex_type_t *target; /* the whole cast's target, for messages */
  fl_err_t *err;
} jctx_t;

static const char *json_kind(const json_t *j) {
  switch (json_typeof(j)) {
    case JSON_OBJECT: return "object";
    case JSON_ARRAY: return "array";
    case JSON_STRING: return "string";
    case JSON_INTEGER:
    case JSON_REAL: return "number";
    case JSON_TRUE:
    case JSON_FALSE: return "boolean";
    default: return "null";
  }
}

static int shape_error(jctx_t *c, const char *want, const json_t *j) {
  return ex__err(c->err, "Cannot cast to %s. Expected a json %s, but got %s",
                 ex_type_str(c->target), want, json_kind(j));
}

/* Appends text as a value of scalar type t, through the varchar cast. */
static int append_text(jctx_t *c, const ex_type_t *t, const char *s, size_t n, ty_vec_t *dst) {
  ex_type_t vc = ex_type(EX_VARCHAR);
  if (t->kind == EX_VARCHAR || t->kind == EX_JSON) {
    ty_vec_append_bytes(dst, s, n);
    return FL_OK;
  }
  ty_vec_t *in = ty_vec_new(ty_primitive(TY_STRING), 1);
  ty_vec_append_bytes(in, s, n);
  ty_vec_t *one = ty_vec_new(dst->type, 1);
  ex_rows_t r = {.nrows = 1, .n = 1};
  int rc = ex_cast_eval(c->ctx, &vc, t, false, in, &r, one, c->err);
  if (!rc) ty_vec_append_from(dst, one, 0);
  ty_vec_free(in);
  ty_vec_free(one);
  if (rc)
    return ex__err(c->err, "Cannot cast to %s. Cannot cast '%.*s' to %s", ex_type_str(c->target),
                   (int)(n > 100 ? 100 : n), s, ex_type_str(t));
  return FL_OK;
}

static int fill(jctx_t *c, const ex_type_t *t, const json_t *j, ty_vec_t *dst);

static int fill_scalar(jctx_t *c, const ex_type_t *t, const json_t *j, ty_vec_t *dst) {
  char b[64];
  switch (json_typeof(j)) {
    case JSON_STRING: return append_text(c, t, json_string_value(j), json_string_length(j), dst);
    case JSON_INTEGER: {
      int n = snprintf(b, sizeof b, "%" JSON_INTEGER_FORMAT, json_integer_value(j));
      return append_text(c, t, b, (size_t)n, dst);
    }
    case JSON_REAL: {
      double d = json_real_value(j);
      /* Integer targets take whole numbers only. */
      if (ex_type_is_integral(t->kind) && d == floor(d) && fabs(d) < 9.3e18) {
        int n = snprintf(b, sizeof b, "%lld", (long long)d);
        return append_text(c, t, b, (size_t)n, dst);
      }
      size_t n = ty_format_double(d, b);
      return append_text(c, t, b, n, dst);
    }
    case JSON_TRUE:
    case JSON_FALSE:
      if (t->kind == EX_BOOLEAN) {
        ty_vec_append_bool(dst, json_is_true(j));
        return FL_OK;
      }
      if (ex_type_is_numeric(t->kind))
        return append_text(c, t, json_is_true(j) ? "1" : "0", 1, dst);
      return append_text(c, t, json_is_true(j) ? "true" : "false", json_is_true(j) ? 4 : 5, dst);
    default: return shape_error(c, "scalar", j);
  }
}

static int fill(jctx_t *c, const ex_type_t *t, const json_t *j, ty_vec_t *dst) {
  if (!j || json_is_null(j)) {
    ty_vec_append_null(dst);
    return FL_OK;
  }
  int rc;
  switch (t->kind) {
    case EX_JSON: {
      char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
      if (!s) return ex__err(c->err, "Cannot cast to %s", ex_type_str(c->target));
      ty_vec_append_bytes(dst, s, strlen(s));
      free(s);
      return FL_OK;
    }
    case EX_ARRAY: {
      if (!json_is_array(j)) return shape_error(c, "array", j);
      for (size_t k = 0; k < json_array_size(j); k++)
        if ((rc = fill(c, t->elem, json_array_get(j, k), dst->children[0]))) return rc;
      ty_vec_append_list_end(dst);
      return FL_OK;
    }
    case EX_MAP: {
      if (!json_is_object(j)) return shape_error(c, "object", j);
      const char *key;
      json_t *val;
      json_object_foreach((json_t *)j, key, val) {
        if ((rc = append_text(c, t->key, key, strlen(key), dst->children[0])) ||
            (rc = fill(c, t->elem, val, dst->children[1])))
          return rc;
      }
      ty_vec_append_list_end(dst);
      return FL_OK;
    }
    case EX_ROW: {
      if (json_is_array(j)) {
        if (json_array_size(j) != t->nfields)
          return ex__err(c->err, "Cannot cast to %s. Expected a json array of %u elements, got %zu",
                         ex_type_str(c->target), t->nfields, json_array_size(j));
        for (uint32_t f = 0; f < t->nfields; f++)
          if ((rc = fill(c, &t->fields[f].type, json_array_get(j, f), dst->children[f]))) return rc;
      } else if (json_is_object(j)) {
        for (uint32_t f = 0; f < t->nfields; f++) {
          const json_t *v = NULL;
          const char *key;
          json_t *val;
          json_object_foreach((json_t *)j, key, val) {
            if (t->fields[f].name && !strcasecmp(key, t->fields[f].name)) v = val;
          }
          if ((rc = fill(c, &t->fields[f].type, v, dst->children[f]))) return rc;
        }
      } else {
        return shape_error(c, "array or object", j);
      }
      ty_vec_append_struct(dst);
      return FL_OK;
    }
    default: return fill_scalar(c, t, j, dst);
  }
}

int ex__cast_from_json(ex_ctx_t *ctx, const ex_type_t *to, bool try_cast, const ty_vec_t *in,
                       const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const uint32_t m = ex__m(in);
  const uint32_t nrows = out->len;
  size_t nb = ((size_t)nrows + 7) / 8;
  uint8_t *todo = fl_malloc(nb ? nb : 1);
  if (nb) memcpy(todo, out->validity, nb);
  ty_vec_reset(out);
  ty_vec_reserve(out, nrows ? nrows : 1);
  jctx_t c = {.ctx = ctx, .target = to, .err = err};
  uint32_t next = 0;
  int rc = FL_OK;
  EX_ROWS(rows, i) {
    for (; next < i; next++) ty_vec_append_null(out);
    next = i + 1;
    if (!((todo[i >> 3] >> (i & 7)) & 1)) {
      ty_vec_append_null(out);
      continue;
    }
    size_t n;
    const uint8_t *p = ty_vec_get_bytes(in, i & m, &n);
    json_error_t je;
    json_t *j = json_loadb((const char *)p, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!j) {
      rc = ex__err(err, "Cannot cast to %s. Invalid JSON: %s", ex_type_str(to), je.text);
    } else {
      /* Appending a nested value may fail half way: a TRY_CAST must
       * leave no partial elements behind, so the row is built in a
       * one-row vector first. */
      ty_vec_t *one = ty_vec_new(out->type, 1);
      rc = fill(&c, to, j, one);
      json_decref(j);
      if (!rc) ty_vec_append_from(out, one, 0);
      ty_vec_free(one);
    }
    if (rc && try_cast) {
      fl_err_clear(err);
      rc = FL_OK;
      ty_vec_append_null(out);
      continue;
    }
    if (rc) break;
  }
  if (!rc)
    for (; next < nrows; next++) ty_vec_append_null(out);
  else
    while (out->len < nrows) ty_vec_append_null(out);
  fl_free(todo);
  return rc;
}
