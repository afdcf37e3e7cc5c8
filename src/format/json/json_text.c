/*
 * json_text.c - values to JSON text (see json_text.h for the mapping).
 */
#include "format/json/json_text.h"

#include <math.h>

#include "types/value.h"

void js_append_string(fl_buf_t *out, const uint8_t *p, size_t n) {
  static const char hex[] = "0123456789abcdef";
  fl_buf_reserve(out, n + 2);
  fl_buf_append_u8(out, '"');
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t c = p[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    fl_buf_append(out, p + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': fl_buf_append(out, "\\\"", 2); break;
      case '\\': fl_buf_append(out, "\\\\", 2); break;
      case '\n': fl_buf_append(out, "\\n", 2); break;
      case '\r': fl_buf_append(out, "\\r", 2); break;
      case '\t': fl_buf_append(out, "\\t", 2); break;
      case '\b': fl_buf_append(out, "\\b", 2); break;
      case '\f': fl_buf_append(out, "\\f", 2); break;
      default: {
        char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        fl_buf_append(out, e, 6);
      }
    }
  }
  fl_buf_append(out, p + run, n - run);
  fl_buf_append_u8(out, '"');
}

static void append_quoted_text(fl_buf_t *out, const ty_type_t *t, const ty_value_t *x) {
  fl_buf_append_u8(out, '"');
  ty_value_format(t, x, out);
  fl_buf_append_u8(out, '"');
}

void js_append_value(fl_buf_t *out, const ty_vec_t *v, uint32_t i) {
  const ty_type_t *t = v->type;
  if (ty_vec_is_null(v, i)) {
    fl_buf_append(out, "null", 4);
    return;
  }
  switch (t->kind) {
    case TY_STRUCT:
      fl_buf_append_u8(out, '{');
      for (uint32_t c = 0; c < t->nfields; c++) {
        if (c) fl_buf_append_u8(out, ',');
        js_append_string(out, (const uint8_t *)t->fields[c].name, strlen(t->fields[c].name));
        fl_buf_append_u8(out, ':');
        js_append_value(out, v->children[c], i);
      }
      fl_buf_append_u8(out, '}');
      return;
    case TY_LIST:
      fl_buf_append_u8(out, '[');
      for (int32_t e = v->offsets[i]; e < v->offsets[i + 1]; e++) {
        if (e > v->offsets[i]) fl_buf_append_u8(out, ',');
        js_append_value(out, v->children[0], (uint32_t)e);
      }
      fl_buf_append_u8(out, ']');
      return;
    case TY_MAP: {
      bool as_object = t->fields[0].type->kind == TY_STRING;
      fl_buf_append_u8(out, as_object ? '{' : '[');
      for (int32_t e = v->offsets[i]; e < v->offsets[i + 1]; e++) {
        if (e > v->offsets[i]) fl_buf_append_u8(out, ',');
        if (as_object) {
          js_append_value(out, v->children[0], (uint32_t)e);
          fl_buf_append_u8(out, ':');
          js_append_value(out, v->children[1], (uint32_t)e);
        } else {
          fl_buf_append_str(out, "{\"key\":");
          js_append_value(out, v->children[0], (uint32_t)e);
          fl_buf_append_str(out, ",\"value\":");
          js_append_value(out, v->children[1], (uint32_t)e);
          fl_buf_append_u8(out, '}');
        }
      }
      fl_buf_append_u8(out, as_object ? '}' : ']');
      return;
    }
    default: break;
  }
  ty_value_t x = ty_value_from_vec(v, i);
  switch (t->kind) {
    case TY_BOOLEAN:
    case TY_INT:
    case TY_LONG: ty_value_format(t, &x, out); return;
    case TY_FLOAT:
    case TY_DOUBLE: {
      double d = t->kind == TY_FLOAT ? (double)x.u.f32 : x.u.f64;
      if (isnan(d) || isinf(d))
        append_quoted_text(out, t, &x);
      else
        ty_value_format(t, &x, out);
      return;
    }
    case TY_STRING: js_append_string(out, x.u.bytes.p, x.u.bytes.n); return;
    default: append_quoted_text(out, t, &x); return;
  }
}

void js_append_row(fl_buf_t *out, const ty_batch_t *b, uint32_t row) {
  fl_buf_append_u8(out, '{');
  for (uint32_t c = 0; c < b->ncols; c++) {
    const ty_field_t *f = &b->schema->root.fields[c];
    if (c) fl_buf_append_u8(out, ',');
    js_append_string(out, (const uint8_t *)f->name, strlen(f->name));
    fl_buf_append_u8(out, ':');
    js_append_value(out, b->cols[c], row);
  }
  fl_buf_append_u8(out, '}');
}
