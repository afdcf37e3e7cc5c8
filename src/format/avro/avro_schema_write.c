/*
 * avro_schema_write.c - av_schema_t back to Avro schema JSON. Named types
 * are written in full at their first use and by name afterwards (relative
 * to the enclosing namespace when they share it); uninterpreted attributes
 * are written back from their stored JSON text.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "format/avro/avro_schema.h"


typedef struct wctx {
  const av_schema_t **seen;
  size_t nseen, cap;
} wctx_t;

static void set_attrs(json_t *o, const av_attr_t *attrs, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    json_t *v = json_loads(attrs[i].json, JSON_DECODE_ANY, NULL);
    json_object_set_new(o, attrs[i].key, v ? v : json_null());
  }
}

static json_t *aliases_json(const char **al, uint32_t n) {
  json_t *a = json_array();
  for (uint32_t i = 0; i < n; i++) json_array_append_new(a, json_string(al[i]));
  return a;
}

static void set_logical(json_t *o, const av_schema_t *s) {
  if (!s->logical_name) return;
  json_object_set_new(o, "logicalType", json_string(s->logical_name));
  if (s->logical == AV_LT_DECIMAL) {
    json_object_set_new(o, "precision", json_integer(s->precision));
    json_object_set_new(o, "scale", json_integer(s->scale));
  }
}

static json_t *write_node(wctx_t *w, const av_schema_t *s, const char *ns) {
  switch (s->type) {
    case AV_UNION: {
      json_t *a = json_array();
      for (uint32_t i = 0; i < s->nbranches; i++)
        json_array_append_new(a, write_node(w, s->branches[i], ns));
      return a;
    }
    case AV_ARRAY:
    case AV_MAP: {
      json_t *o = json_object();
      json_object_set_new(o, "type", json_string(s->type == AV_ARRAY ? "array" : "map"));
      json_object_set_new(o, s->type == AV_ARRAY ? "items" : "values", write_node(w, s->items, ns));
      set_logical(o, s);
      set_attrs(o, s->attrs, s->nattrs);
      return o;
    }
    case AV_RECORD:
    case AV_ENUM:
    case AV_FIXED: {
      for (size_t i = 0; i < w->nseen; i++)
        if (w->seen[i] == s)
          return json_string(!strcmp(s->nspace ? s->nspace : "", ns ? ns : "") ? s->name : s->fullname);
      if (w->nseen == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 16;
        w->seen = fl_realloc(w->seen, w->cap * sizeof *w->seen);
      }
      w->seen[w->nseen++] = s;
      json_t *o = json_object();
      json_object_set_new(o, "type", json_string(av_type_name(s->type)));
      json_object_set_new(o, "name", json_string(s->name));
      const char *own = s->nspace ? s->nspace : "";
      if (strcmp(own, ns ? ns : "")) json_object_set_new(o, "namespace", json_string(own));
      if (s->doc) json_object_set_new(o, "doc", json_string(s->doc));
      if (s->naliases) json_object_set_new(o, "aliases", aliases_json(s->aliases, s->naliases));
      if (s->type == AV_RECORD) {
        json_t *fs = json_array();
        for (uint32_t i = 0; i < s->nfields; i++) {
          const av_field_t *f = &s->fields[i];
          json_t *fo = json_object();
          json_object_set_new(fo, "name", json_string(f->name));
          json_object_set_new(fo, "type", write_node(w, f->type, own));
          if (f->doc) json_object_set_new(fo, "doc", json_string(f->doc));
          if (f->default_json) {
            json_t *d = json_loads(f->default_json, JSON_DECODE_ANY, NULL);
            json_object_set_new(fo, "default", d ? d : json_null());
          }
          if (f->order) json_object_set_new(fo, "order", json_string(f->order));
          if (f->naliases) json_object_set_new(fo, "aliases", aliases_json(f->aliases, f->naliases));
          set_attrs(fo, f->attrs, f->nattrs);
          json_array_append_new(fs, fo);
        }
        json_object_set_new(o, "fields", fs);
      } else if (s->type == AV_ENUM) {
        json_object_set_new(o, "symbols", aliases_json(s->symbols, s->nsymbols));
        if (s->enum_default) json_object_set_new(o, "default", json_string(s->enum_default));
      } else {
        json_object_set_new(o, "size", json_integer(s->size));
        set_logical(o, s);
      }
      set_attrs(o, s->attrs, s->nattrs);
      return o;
    }
    default:
      if (!s->logical_name && !s->nattrs) return json_string(av_type_name(s->type));
      json_t *o = json_object();
      json_object_set_new(o, "type", json_string(av_type_name(s->type)));
      set_logical(o, s);
      set_attrs(o, s->attrs, s->nattrs);
      return o;
  }
}

void av_schema_write(const av_schema_t *s, fl_buf_t *out) {
  wctx_t w = {0};
  json_t *j = write_node(&w, s, "");
  fl_free(w.seen);
  char *t = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(j);
  if (t) fl_buf_append_str(out, t);
  free(t);
}

char *av_schema_to_json(fl_arena_t *a, const av_schema_t *s) {
  fl_buf_t b;
  fl_buf_init(&b);
  av_schema_write(s, &b);
  char *r = fl_arena_strndup(a, (const char *)b.data, b.len);
  fl_buf_free(&b);
  return r;
}
