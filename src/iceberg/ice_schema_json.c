/*
 * ice_schema_json.c - Iceberg schemas and types as JSON (layer 5, iceberg).
 *
 * The spec's JSON form (format/spec.md, "Schemas" in the JSON appendix):
 * primitive types are strings ("long", "decimal(9, 2)", "fixed[16]"),
 * nested types objects with their own field ids. Defaults use the JSON
 * single-value form of ice_conv.h; a struct default can only be {} (its
 * members' defaults live on the members), list and map defaults only null.
 * Also here: the checked JSON getters every metadata reader uses
 * (ice_meta_int.h) and the deep copy and comparison of schemas.
 */
#include "iceberg/ice_schema_json.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iceberg/ice_conv.h"
#include "iceberg/ice_meta_int.h"

/* ---- checked getters ---- */

int ice__jfail(fl_err_t *err, ice_jpath_t at, const char *key, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *path = at.path ? at.path : "";
  const char *dot = (*path && key) ? "." : "";
  if (!*path && !key)
    return fl_err_set(err, FL_ECORRUPT, "%s: %s", at.what ? at.what : "json", msg);
  return fl_err_set(err, FL_ECORRUPT, "%s: %s%s%s: %s", at.what ? at.what : "json", path, dot,
                    key ? key : "", msg);
}

const char *ice__jitem(fl_arena_t *a, ice_jpath_t at, const char *key, size_t i) {
  const char *path = at.path ? at.path : "";
  if (!key) return fl_arena_sprintf(a, "%s[%zu]", path, i);
  return fl_arena_sprintf(a, "%s%s%s[%zu]", path, *path ? "." : "", key, i);
}

static const json_t *jget(const json_t *obj, const char *key) {
  const json_t *v = json_object_get(obj, key);
  return json_is_null(v) ? NULL : v;
}

int ice__jint(const json_t *obj, const char *key, ice_jpath_t at, bool required, int64_t lo,
              int64_t hi, int64_t *out, bool *found, fl_err_t *err) {
  const json_t *v = jget(obj, key);
  if (found) *found = v != NULL;
  if (!v) return required ? ice__jfail(err, at, key, "missing required field") : FL_OK;
  if (!json_is_integer(v)) return ice__jfail(err, at, key, "expected an integer");
  json_int_t x = json_integer_value(v);
  if (x < lo || x > hi)
    return ice__jfail(err, at, key, "%lld is out of range [%lld, %lld]", (long long)x,
                      (long long)lo, (long long)hi);
  *out = x;
  return FL_OK;
}

int ice__jstr(fl_arena_t *a, const json_t *obj, const char *key, ice_jpath_t at, bool required,
              const char **out, fl_err_t *err) {
  const json_t *v = jget(obj, key);
  if (!v) return required ? ice__jfail(err, at, key, "missing required field") : FL_OK;
  if (!json_is_string(v)) return ice__jfail(err, at, key, "expected a string");
  *out = fl_arena_strndup(a, json_string_value(v), json_string_length(v));
  return FL_OK;
}

int ice__jbool(const json_t *obj, const char *key, ice_jpath_t at, bool required, bool *out,
               fl_err_t *err) {
  const json_t *v = jget(obj, key);
  if (!v) return required ? ice__jfail(err, at, key, "missing required field") : FL_OK;
  if (!json_is_boolean(v)) return ice__jfail(err, at, key, "expected true or false");
  *out = json_is_true(v);
  return FL_OK;
}

int ice__jarray(const json_t *obj, const char *key, ice_jpath_t at, bool required,
                const json_t **out, fl_err_t *err) {
  const json_t *v = jget(obj, key);
  *out = NULL;
  if (!v) return required ? ice__jfail(err, at, key, "missing required field") : FL_OK;
  if (!json_is_array(v)) return ice__jfail(err, at, key, "expected an array");
  *out = v;
  return FL_OK;
}

static void json_release(void *j) { json_decref(j); }

json_t *ice__arena_json(fl_arena_t *a, json_t *j) {
  if (!j) return NULL;
  fl_arena_on_reset(a, json_release, j);
  return j;
}

/* ---- types to JSON ---- */

static json_t *field_to_json(const ty_field_t *f);

static json_t *default_json(const ty_type_t *t, const ty_value_t *v) {
  if (!v || v->is_null) return NULL;
  if (t->kind == TY_STRUCT) return json_object();
  if (ty_is_nested(t)) return NULL;
  json_t *j = NULL;
  fl_err_t ignored;
  if (ice_value_to_json(t, v, &j, &ignored) != FL_OK) return NULL;
  return j;
}

json_t *ice_type_to_json(const ty_type_t *t) {
  char tmp[64];
  switch (t->kind) {
    case TY_DECIMAL:
      snprintf(tmp, sizeof tmp, "decimal(%u, %u)", t->precision, t->scale);
      return json_string(tmp);
    case TY_FIXED: snprintf(tmp, sizeof tmp, "fixed[%d]", t->length); return json_string(tmp);
    case TY_STRUCT: {
      json_t *o = json_object(), *fields = json_array();
      json_object_set_new(o, "type", json_string("struct"));
      for (uint32_t i = 0; i < t->nfields; i++)
        json_array_append_new(fields, field_to_json(&t->fields[i]));
      json_object_set_new(o, "fields", fields);
      return o;
    }
    case TY_LIST: {
      const ty_field_t *e = &t->fields[0];
      json_t *o = json_object();
      json_object_set_new(o, "type", json_string("list"));
      json_object_set_new(o, "element-id", json_integer(e->id));
      json_object_set_new(o, "element", ice_type_to_json(e->type));
      json_object_set_new(o, "element-required", json_boolean(e->required));
      return o;
    }
    case TY_MAP: {
      const ty_field_t *k = &t->fields[0], *v = &t->fields[1];
      json_t *o = json_object();
      json_object_set_new(o, "type", json_string("map"));
      json_object_set_new(o, "key-id", json_integer(k->id));
      json_object_set_new(o, "key", ice_type_to_json(k->type));
      json_object_set_new(o, "value-id", json_integer(v->id));
      json_object_set_new(o, "value", ice_type_to_json(v->type));
      json_object_set_new(o, "value-required", json_boolean(v->required));
      return o;
    }
    default: return json_string(ty_kind_name(t->kind));
  }
}

static json_t *field_to_json(const ty_field_t *f) {
  json_t *o = json_object();
  json_object_set_new(o, "id", json_integer(f->id));
  json_object_set_new(o, "name", json_string(f->name));
  json_object_set_new(o, "required", json_boolean(f->required));
  json_object_set_new(o, "type", ice_type_to_json(f->type));
  if (f->doc) json_object_set_new(o, "doc", json_string(f->doc));
  json_t *d = default_json(f->type, f->initial_default);
  if (d) json_object_set_new(o, "initial-default", d);
  d = default_json(f->type, f->write_default);
  if (d) json_object_set_new(o, "write-default", d);
  return o;
}

json_t *ice_schema_to_json(const ty_schema_t *s) {
  json_t *o = json_object();
  json_object_set_new(o, "type", json_string("struct"));
  json_object_set_new(o, "schema-id", json_integer(s->schema_id));
  if (s->nidentifiers) {
    json_t *ids = json_array();
    for (uint32_t i = 0; i < s->nidentifiers; i++)
      json_array_append_new(ids, json_integer(s->identifier_ids[i]));
    json_object_set_new(o, "identifier-field-ids", ids);
  }
  json_t *fields = json_array();
  for (uint32_t i = 0; i < s->root.nfields; i++)
    json_array_append_new(fields, field_to_json(&s->root.fields[i]));
  json_object_set_new(o, "fields", fields);
  return o;
}

void ice_schema_to_text(const ty_schema_t *s, fl_buf_t *out) {
  json_t *j = ice_schema_to_json(s);
  char *text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
  if (text) fl_buf_append_str(out, text);
  free(text);
  json_decref(j);
}

/* ---- JSON to types ---- */

typedef struct tparse {
  fl_arena_t *a;
  const char *what;
  fl_err_t *err;
  int32_t *ids; /* every field id seen, for the duplicate check */
  size_t nids, capids;
} tparse_t;

static void note_id(tparse_t *p, int32_t id) {
  if (p->nids == p->capids) {
    size_t cap = p->capids ? p->capids * 2 : 64;
    int32_t *n = fl_arena_alloc(p->a, cap * sizeof *n);
    if (p->nids) memcpy(n, p->ids, p->nids * sizeof *n);
    p->ids = n;
    p->capids = cap;
  }
  p->ids[p->nids++] = id;
}

static int parse_type(tparse_t *p, const json_t *j, const char *path, const ty_type_t **out);

static bool match_word(const char **s, const char *w) {
  size_t n = strlen(w);
  if (strncasecmp(*s, w, n) != 0) return false;
  *s += n;
  return true;
}

static bool read_num(const char **s, long *out) {
  while (isspace((unsigned char)**s)) (*s)++;
  if (!isdigit((unsigned char)**s)) return false;
  long v = 0;
  while (isdigit((unsigned char)**s)) {
    v = v * 10 + (**s - '0');
    if (v > INT32_MAX) return false;
    (*s)++;
  }
  while (isspace((unsigned char)**s)) (*s)++;
  *out = v;
  return true;
}

/* Parses a primitive type string; 1 when the name is not one floe knows. */
static int parse_primitive(fl_arena_t *a, const char *text, const ty_type_t **out) {
  const char *s = text;
  long x = 0, y = 0;
  if (match_word(&s, "decimal(")) {
    if (!read_num(&s, &x) || *s++ != ',' || !read_num(&s, &y) || *s++ != ')' || *s) return -1;
    if (x < 1 || x > 38 || y > x) return -1;
    *out = ty_decimal(a, (int)x, (int)y);
    return 0;
  }
  s = text;
  if (match_word(&s, "fixed[")) {
    if (!read_num(&s, &x) || *s++ != ']' || *s || x < 1) return -1;
    *out = ty_fixed(a, (int32_t)x);
    return 0;
  }
  for (int k = 0; k < TY_KIND_COUNT; k++) {
    if (k == TY_DECIMAL || k == TY_FIXED || k == TY_STRUCT || k == TY_LIST || k == TY_MAP) continue;
    if (strcasecmp(text, ty_kind_name((ty_kind_t)k)) == 0) {
      *out = ty_primitive((ty_kind_t)k);
      return 0;
    }
  }
  return 1;
}

static int parse_default(tparse_t *p, const json_t *o, const char *key, const ty_type_t *t,
                         ice_jpath_t at, const ty_value_t **out) {
  const json_t *v = json_object_get(o, key);
  *out = NULL;
  if (!v || json_is_null(v)) return FL_OK;
  ty_value_t *val = fl_arena_zalloc(p->a, sizeof *val);
  if (t->kind == TY_STRUCT) {
    if (!json_is_object(v) || json_object_size(v) != 0)
      return ice__jfail(p->err, at, key,
                        "a struct default must be {} (member defaults belong to the members)");
    val->kind = TY_STRUCT;
    *out = val;
    return FL_OK;
  }
  if (ty_is_nested(t))
    return fl_err_set(p->err, FL_EUNSUPPORTED, "%s: %s.%s: non-null %s defaults are not supported",
                      p->what, at.path, key, ty_kind_name(t->kind));
  const char *where = fl_arena_sprintf(p->a, "%s: %s.%s", p->what, at.path, key);
  int rc = ice_value_from_json(p->a, t, v, where, val, p->err);
  if (rc) {
    p->err->code = FL_ECORRUPT;
    return FL_ECORRUPT;
  }
  *out = val;
  return FL_OK;
}

static int parse_field(tparse_t *p, const json_t *o, const char *path, ty_field_t *f) {
  ice_jpath_t at = {p->what, path};
  if (!json_is_object(o)) return ice__jfail(p->err, at, NULL, "expected a field object");
  int64_t id = 0;
  int rc = ice__jint(o, "id", at, true, 0, INT32_MAX, &id, NULL, p->err);
  if (!rc) rc = ice__jstr(p->a, o, "name", at, true, &f->name, p->err);
  if (!rc) rc = ice__jbool(o, "required", at, true, &f->required, p->err);
  if (!rc) rc = ice__jstr(p->a, o, "doc", at, false, &f->doc, p->err);
  if (rc) return rc;
  f->id = (int32_t)id;
  note_id(p, f->id);
  const json_t *t = json_object_get(o, "type");
  if (!t) return ice__jfail(p->err, at, "type", "missing required field");
  const char *tpath = fl_arena_sprintf(p->a, "%s.type", path);
  const ty_type_t *ignored;
  if (json_is_string(t) && parse_primitive(p->a, json_string_value(t), &ignored) > 0)
    return fl_err_set(p->err, FL_EUNSUPPORTED,
                      "%s: %s: field '%s' (id %d): type '%s' is not supported", p->what, tpath,
                      f->name, f->id, json_string_value(t));
  rc = parse_type(p, t, tpath, &f->type);
  if (rc) return rc;
  rc = parse_default(p, o, "initial-default", f->type, at, &f->initial_default);
  if (!rc) rc = parse_default(p, o, "write-default", f->type, at, &f->write_default);
  return rc;
}

static int parse_struct(tparse_t *p, const json_t *j, const char *path, ty_field_t **fields,
                        uint32_t *n) {
  ice_jpath_t at = {p->what, path};
  const json_t *arr;
  int rc = ice__jarray(j, "fields", at, true, &arr, p->err);
  if (rc) return rc;
  size_t cnt = json_array_size(arr);
  ty_field_t *fs = fl_arena_zalloc(p->a, (cnt ? cnt : 1) * sizeof *fs);
  for (size_t i = 0; i < cnt; i++) {
    const char *fpath = ice__jitem(p->a, at, "fields", i);
    rc = parse_field(p, json_array_get(arr, i), fpath, &fs[i]);
    if (rc) return rc;
  }
  *fields = fs;
  *n = (uint32_t)cnt;
  return FL_OK;
}

static int parse_type(tparse_t *p, const json_t *j, const char *path, const ty_type_t **out) {
  ice_jpath_t at = {p->what, path};
  if (json_is_string(j)) {
    const char *name = json_string_value(j);
    int r = parse_primitive(p->a, name, out);
    if (r < 0) return ice__jfail(p->err, at, NULL, "malformed type '%s'", name);
    if (r > 0)
      return fl_err_set(p->err, FL_EUNSUPPORTED, "%s: %s: type '%s' is not supported", p->what,
                        path, name);
    return FL_OK;
  }
  if (!json_is_object(j)) return ice__jfail(p->err, at, NULL, "expected a type string or object");
  const char *kind = NULL;
  int rc = ice__jstr(p->a, j, "type", at, true, &kind, p->err);
  if (rc) return rc;
  if (strcmp(kind, "struct") == 0) {
    ty_field_t *fields;
    uint32_t n;
    rc = parse_struct(p, j, path, &fields, &n);
    if (rc) return rc;
    ty_type_t *t = fl_arena_zalloc(p->a, sizeof *t);
    t->kind = TY_STRUCT;
    t->nfields = n;
    t->fields = fields;
    *out = t;
    return FL_OK;
  }
  if (strcmp(kind, "list") == 0) {
    int64_t eid = 0;
    bool ereq = false;
    const ty_type_t *et = NULL;
    rc = ice__jint(j, "element-id", at, true, 0, INT32_MAX, &eid, NULL, p->err);
    if (!rc) rc = ice__jbool(j, "element-required", at, true, &ereq, p->err);
    if (rc) return rc;
    const json_t *e = json_object_get(j, "element");
    if (!e) return ice__jfail(p->err, at, "element", "missing required field");
    note_id(p, (int32_t)eid);
    rc = parse_type(p, e, fl_arena_sprintf(p->a, "%s.element", path), &et);
    if (rc) return rc;
    *out = ty_list_new(p->a, (int32_t)eid, ereq, et);
    return FL_OK;
  }
  if (strcmp(kind, "map") == 0) {
    int64_t kid = 0, vid = 0;
    bool vreq = false;
    const ty_type_t *kt = NULL, *vt = NULL;
    rc = ice__jint(j, "key-id", at, true, 0, INT32_MAX, &kid, NULL, p->err);
    if (!rc) rc = ice__jint(j, "value-id", at, true, 0, INT32_MAX, &vid, NULL, p->err);
    if (!rc) rc = ice__jbool(j, "value-required", at, true, &vreq, p->err);
    if (rc) return rc;
    const json_t *k = json_object_get(j, "key"), *v = json_object_get(j, "value");
    if (!k) return ice__jfail(p->err, at, "key", "missing required field");
    if (!v) return ice__jfail(p->err, at, "value", "missing required field");
    note_id(p, (int32_t)kid);
    note_id(p, (int32_t)vid);
    rc = parse_type(p, k, fl_arena_sprintf(p->a, "%s.key", path), &kt);
    if (!rc) rc = parse_type(p, v, fl_arena_sprintf(p->a, "%s.value", path), &vt);
    if (rc) return rc;
    *out = ty_map_new(p->a, (int32_t)kid, kt, (int32_t)vid, vreq, vt);
    return FL_OK;
  }
  return fl_err_set(p->err, FL_EUNSUPPORTED, "%s: %s%stype: nested type '%s' is not supported",
                    p->what, path, *path ? "." : "", kind);
}

static int cmp_i32(const void *x, const void *y) {
  int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
  return (a > b) - (a < b);
}

static int check_unique(tparse_t *p) {
  qsort(p->ids, p->nids, sizeof *p->ids, cmp_i32);
  for (size_t i = 1; i < p->nids; i++)
    if (p->ids[i] == p->ids[i - 1])
      return fl_err_set(p->err, FL_ECORRUPT, "%s: field id %d is used more than once", p->what,
                        p->ids[i]);
  return FL_OK;
}

int ice_type_from_json(fl_arena_t *a, const json_t *j, const char *what, const ty_type_t **out,
                       fl_err_t *err) {
  tparse_t p = {.a = a, .what = what ? what : "type", .err = err};
  int rc = parse_type(&p, j, "", out);
  if (!rc) rc = check_unique(&p);
  return rc;
}

/* Whether the field with id sits only under structs (not in a list or map)
 * and is a required primitive, as identifier fields must be. */
static bool identifier_ok(const ty_type_t *t, int32_t id, int *why) {
  for (uint32_t i = 0; i < t->nfields; i++) {
    const ty_field_t *f = &t->fields[i];
    if (f->id == id) {
      if (ty_is_nested(f->type))
        *why = 1;
      else if (!f->required)
        *why = 2;
      else
        *why = 0;
      return true;
    }
    if (f->type->kind == TY_STRUCT && identifier_ok(f->type, id, why)) {
      if (!*why && !f->required) *why = 2;
      return true;
    }
  }
  return false;
}

int ice_schema_from_json(fl_arena_t *a, const json_t *j, const char *what, ty_schema_t **out,
                         fl_err_t *err) {
  tparse_t p = {.a = a, .what = what ? what : "schema", .err = err};
  ice_jpath_t at = {p.what, ""};
  if (!json_is_object(j)) return ice__jfail(err, at, NULL, "expected a schema object");
  const char *kind = NULL;
  int rc = ice__jstr(a, j, "type", at, false, &kind, err);
  if (rc) return rc;
  if (kind && strcmp(kind, "struct") != 0)
    return ice__jfail(err, at, "type", "a schema must be a struct, not '%s'", kind);
  int64_t sid = 0;
  rc = ice__jint(j, "schema-id", at, false, 0, INT32_MAX, &sid, NULL, err);
  if (rc) return rc;
  ty_schema_t *s = fl_arena_zalloc(a, sizeof *s);
  s->schema_id = (int32_t)sid;
  s->root.kind = TY_STRUCT;
  rc = parse_struct(&p, j, "", &s->root.fields, &s->root.nfields);
  if (!rc) rc = check_unique(&p);
  if (rc) return rc;
  const json_t *ids;
  rc = ice__jarray(j, "identifier-field-ids", at, false, &ids, err);
  if (rc) return rc;
  if (ids && json_array_size(ids)) {
    size_t n = json_array_size(ids);
    s->identifier_ids = fl_arena_alloc(a, n * sizeof *s->identifier_ids);
    for (size_t i = 0; i < n; i++) {
      const json_t *v = json_array_get(ids, i);
      if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > INT32_MAX)
        return ice__jfail(err, at, fl_arena_sprintf(a, "identifier-field-ids[%zu]", i),
                          "expected a field id");
      int32_t id = (int32_t)json_integer_value(v);
      int why = 0;
      if (!identifier_ok(&s->root, id, &why))
        return ice__jfail(err, at, "identifier-field-ids",
                          "field id %d is not a column of the schema (or sits in a list or map)",
                          id);
      if (why == 1)
        return ice__jfail(err, at, "identifier-field-ids",
                          "field id %d is nested; identifier fields must be primitive", id);
      if (why == 2)
        return ice__jfail(err, at, "identifier-field-ids",
                          "field id %d is optional; identifier fields must be required", id);
      s->identifier_ids[s->nidentifiers++] = id;
    }
  }
  *out = s;
  return FL_OK;
}

int ice_schema_from_text(fl_arena_t *a, const char *text, size_t len, const char *what,
                         ty_schema_t **out, fl_err_t *err) {
  json_error_t je;
  json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
  if (!j)
    return fl_err_set(err, FL_ECORRUPT, "%s: invalid JSON at line %d column %d: %s",
                      what ? what : "schema", je.line, je.column, je.text);
  int rc = ice_schema_from_json(a, j, what, out, err);
  json_decref(j);
  return rc;
}

/* ---- copies and comparison ---- */

static const ty_value_t *value_copy(fl_arena_t *a, const ty_value_t *v) {
  if (!v) return NULL;
  ty_value_t *c = fl_arena_memdup(a, v, sizeof *v);
  if (!v->is_null &&
      (v->kind == TY_STRING || v->kind == TY_BINARY || v->kind == TY_UUID || v->kind == TY_FIXED))
    c->u.bytes.p =
        v->u.bytes.n ? fl_arena_memdup(a, v->u.bytes.p, v->u.bytes.n) : (const uint8_t *)"";
  return c;
}

static void fields_copy(fl_arena_t *a, ty_field_t *dst, const ty_field_t *src, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    dst[i] = src[i];
    dst[i].name = fl_arena_strdup(a, src[i].name);
    dst[i].doc = src[i].doc ? fl_arena_strdup(a, src[i].doc) : NULL;
    dst[i].type = ice__type_copy(a, src[i].type);
    dst[i].initial_default = value_copy(a, src[i].initial_default);
    dst[i].write_default = value_copy(a, src[i].write_default);
  }
}

const ty_type_t *ice__type_copy(fl_arena_t *a, const ty_type_t *t) {
  if (t->kind != TY_DECIMAL && t->kind != TY_FIXED && !ty_is_nested(t))
    return ty_primitive(t->kind);
  ty_type_t *c = fl_arena_memdup(a, t, sizeof *t);
  if (t->nfields) {
    ty_field_t *fs = fl_arena_zalloc(a, t->nfields * sizeof *fs);
    fields_copy(a, fs, t->fields, t->nfields);
    c->fields = fs;
  }
  return c;
}

ty_schema_t *ice__schema_copy(fl_arena_t *a, const ty_schema_t *s) {
  ty_schema_t *c = fl_arena_memdup(a, s, sizeof *s);
  if (s->root.nfields) {
    ty_field_t *fs = fl_arena_zalloc(a, s->root.nfields * sizeof *fs);
    fields_copy(a, fs, s->root.fields, s->root.nfields);
    c->root.fields = fs;
  }
  if (s->nidentifiers)
    c->identifier_ids = fl_arena_memdup(a, s->identifier_ids, s->nidentifiers * sizeof(int32_t));
  return c;
}

static bool str_same(const char *x, const char *y) {
  if (!x || !y) return x == y;
  return strcmp(x, y) == 0;
}

static bool value_same(const ty_value_t *x, const ty_value_t *y) {
  if (!x || !y) return x == y;
  if (x->kind != y->kind || x->is_null != y->is_null) return false;
  if (x->is_null || x->kind == TY_STRUCT || x->kind == TY_LIST || x->kind == TY_MAP) return true;
  return ty_value_cmp(x, y) == 0;
}

static bool type_same(const ty_type_t *x, const ty_type_t *y) {
  if (x->kind != y->kind || x->precision != y->precision || x->scale != y->scale ||
      x->length != y->length || x->nfields != y->nfields)
    return false;
  for (uint32_t i = 0; i < x->nfields; i++) {
    const ty_field_t *f = &x->fields[i], *g = &y->fields[i];
    if (f->id != g->id || f->required != g->required || !str_same(f->name, g->name) ||
        !str_same(f->doc, g->doc) || !value_same(f->initial_default, g->initial_default) ||
        !value_same(f->write_default, g->write_default) || !type_same(f->type, g->type))
      return false;
  }
  return true;
}

bool ice__schema_same(const ty_schema_t *a, const ty_schema_t *b) {
  if (a->nidentifiers != b->nidentifiers) return false;
  for (uint32_t i = 0; i < a->nidentifiers; i++) {
    bool found = false;
    for (uint32_t k = 0; k < b->nidentifiers && !found; k++)
      found = a->identifier_ids[i] == b->identifier_ids[k];
    if (!found) return false;
  }
  return type_same(&a->root, &b->root);
}
