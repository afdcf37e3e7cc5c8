/*
 * avro_schema.c - Avro schema JSON to av_schema_t and back.
 *
 * Parsing follows the Avro specification's naming rules: a name with dots
 * is a full name, otherwise it takes the explicit namespace or the
 * enclosing one; a string that is not a primitive type name refers to a
 * named type already defined (looked up in the current namespace first).
 * Attributes that are not part of the Avro specification are stored as
 * JSON text and written back unchanged.
 */
#include "format/avro/avro_schema.h"

#include <jansson.h>
#include <string.h>

#include "base/alloc.h"

#define MAX_DEPTH 64

typedef struct named {
  const char *fullname;
  av_schema_t *s;
  struct named *next;
} named_t;

typedef struct pctx {
  fl_arena_t *a;
  named_t *names;
  fl_err_t *err;
  char path[512];
} pctx_t;

static const char *const type_names[] = {"null",   "boolean", "int",    "long",  "float",
                                         "double", "bytes",   "string", "record", "enum",
                                         "array",  "map",     "union",  "fixed"};

const char *av_type_name(av_type_t t) { return t <= AV_FIXED ? type_names[t] : "?"; }

static int primitive_of(const char *s) {
  for (int i = AV_NULL; i <= AV_STRING; i++)
    if (!strcmp(s, type_names[i])) return i;
  return -1;
}

static const char *const logical_names[] = {
    NULL,           "decimal",          "uuid",           "date",
    "time-millis",  "time-micros",      "timestamp-millis", "timestamp-micros",
    "timestamp-nanos", "local-timestamp-millis", "local-timestamp-micros",
    "local-timestamp-nanos"};

av_schema_t *av_schema_new(fl_arena_t *a, av_type_t t) {
  av_schema_t *s = fl_arena_zalloc(a, sizeof *s);
  s->type = t;
  return s;
}

static void add_attr(fl_arena_t *a, av_attr_t **attrs, uint32_t *n, const char *key,
                     const char *json) {
  av_attr_t *na = fl_arena_alloc(a, sizeof *na * (*n + 1));
  if (*n) memcpy(na, *attrs, sizeof *na * *n);
  na[*n].key = fl_arena_strdup(a, key);
  na[*n].json = fl_arena_strdup(a, json);
  *attrs = na;
  (*n)++;
}

void av_schema_add_attr(fl_arena_t *a, av_schema_t *s, const char *key, const char *json) {
  add_attr(a, &s->attrs, &s->nattrs, key, json);
}

void av_field_add_attr(fl_arena_t *a, av_field_t *f, const char *key, const char *json) {
  add_attr(a, &f->attrs, &f->nattrs, key, json);
}

static const char *find_attr(const av_attr_t *attrs, uint32_t n, const char *key) {
  for (uint32_t i = 0; i < n; i++)
    if (!strcmp(attrs[i].key, key)) return attrs[i].json;
  return NULL;
}

const char *av_schema_attr(const av_schema_t *s, const char *key) {
  return find_attr(s->attrs, s->nattrs, key);
}

const char *av_field_attr(const av_field_t *f, const char *key) {
  return find_attr(f->attrs, f->nattrs, key);
}

bool av_attr_int(const char *json, int64_t *out) {
  if (!json) return false;
  const char *p = json;
  bool neg = false;
  if (*p == '-') {
    neg = true;
    p++;
  }
  if (*p < '0' || *p > '9') return false;
  int64_t v = 0;
  for (; *p >= '0' && *p <= '9'; p++) {
    if (v > (INT64_MAX - 9) / 10) return false;
    v = v * 10 + (*p - '0');
  }
  if (*p) return false;
  *out = neg ? -v : v;
  return true;
}

void av_schema_set_name(fl_arena_t *a, av_schema_t *s, const char *name, const char *nspace) {
  const char *dot = strrchr(name, '.');
  if (dot) {
    s->nspace = fl_arena_strndup(a, name, (size_t)(dot - name));
    s->name = fl_arena_strdup(a, dot + 1);
    s->fullname = fl_arena_strdup(a, name);
  } else {
    s->name = fl_arena_strdup(a, name);
    s->nspace = nspace && *nspace ? fl_arena_strdup(a, nspace) : NULL;
    s->fullname = s->nspace ? fl_arena_sprintf(a, "%s.%s", s->nspace, s->name) : s->name;
  }
}

int av_record_field_index(const av_schema_t *rec, const char *name) {
  if (!rec || rec->type != AV_RECORD) return -1;
  for (uint32_t i = 0; i < rec->nfields; i++)
    if (!strcmp(rec->fields[i].name, name)) return (int)i;
  return -1;
}

bool av_schema_is_option(const av_schema_t *s, uint32_t *value_branch, uint32_t *null_branch) {
  if (s->type != AV_UNION || s->nbranches != 2) return false;
  int nb = s->branches[0]->type == AV_NULL ? 0 : s->branches[1]->type == AV_NULL ? 1 : -1;
  if (nb < 0 || s->branches[1 - nb]->type == AV_NULL) return false;
  if (null_branch) *null_branch = (uint32_t)nb;
  if (value_branch) *value_branch = (uint32_t)(1 - nb);
  return true;
}

static size_t min_bytes(const av_schema_t *s, int depth) {
  if (depth > MAX_DEPTH) return 0;
  switch (s->type) {
    case AV_NULL: return 0;
    case AV_FLOAT: return 4;
    case AV_DOUBLE: return 8;
    case AV_FIXED: return (size_t)s->size;
    case AV_RECORD: {
      size_t n = 0;
      for (uint32_t i = 0; i < s->nfields; i++) n += min_bytes(s->fields[i].type, depth + 1);
      return n;
    }
    default: return 1;
  }
}

size_t av_schema_min_bytes(const av_schema_t *s) { return min_bytes(s, 0); }

/* ---- parsing ---- */

static int perr(pctx_t *c, const char *fmt, const char *arg) {
  char msg[256];
  snprintf(msg, sizeof msg, fmt, arg);
  return fl_err_set(c->err, FL_EPARSE, "avro schema at %s: %s", c->path[0] ? c->path : "(root)",
                    msg);
}

static size_t path_push(pctx_t *c, const char *fmt, const char *s, long i) {
  size_t old = strlen(c->path);
  char seg[160];
  if (s)
    snprintf(seg, sizeof seg, fmt, s);
  else
    snprintf(seg, sizeof seg, fmt, i);
  size_t n = strlen(seg);
  if (old == 0 && seg[0] == '.') memmove(seg, seg + 1, n--);
  if (old + n + 1 < sizeof c->path) memcpy(c->path + old, seg, n + 1);
  return old;
}

static void path_pop(pctx_t *c, size_t old) { c->path[old] = 0; }

static char *dump_json(fl_arena_t *a, const json_t *v) {
  char *t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_PRESERVE_ORDER);
  char *r = fl_arena_strdup(a, t ? t : "null");
  free(t);
  return r;
}

static bool valid_name(const char *s) {
  if (!*s) return false;
  for (const char *p = s; *p; p++) {
    char ch = *p;
    bool alpha = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_';
    if (!(alpha || (p != s && ch >= '0' && ch <= '9'))) return false;
  }
  return true;
}

static bool valid_fullname(const char *s) {
  char buf[512];
  size_t n = strlen(s);
  if (n == 0 || n >= sizeof buf) return false;
  memcpy(buf, s, n + 1);
  char *save = NULL;
  int parts = 0;
  if (buf[0] == '.' || buf[n - 1] == '.') return false;
  for (char *tok = strtok_r(buf, ".", &save); tok; tok = strtok_r(NULL, ".", &save), parts++)
    if (!valid_name(tok)) return false;
  return parts > 0 && !strstr(s, "..");
}

static av_schema_t *lookup(pctx_t *c, const char *name, const char *ns) {
  char full[600];
  if (!strchr(name, '.') && ns && *ns) {
    snprintf(full, sizeof full, "%s.%s", ns, name);
    for (named_t *n = c->names; n; n = n->next)
      if (!strcmp(n->fullname, full)) return n->s;
  }
  for (named_t *n = c->names; n; n = n->next)
    if (!strcmp(n->fullname, name)) return n->s;
  return NULL;
}

static int define(pctx_t *c, av_schema_t *s) {
  if (lookup(c, s->fullname, NULL)) return perr(c, "type %s is defined twice", s->fullname);
  named_t *n = fl_arena_alloc(c->a, sizeof *n);
  n->fullname = s->fullname;
  n->s = s;
  n->next = c->names;
  c->names = n;
  return FL_OK;
}

static int parse_node(pctx_t *c, json_t *j, const char *ns, int depth, av_schema_t **out);

static int parse_aliases(pctx_t *c, json_t *j, uint32_t *n, const char ***out) {
  if (!json_is_array(j)) return perr(c, "%s must be an array of strings", "aliases");
  size_t k = json_array_size(j);
  const char **v = fl_arena_alloc(c->a, sizeof *v * (k ? k : 1));
  for (size_t i = 0; i < k; i++) {
    json_t *e = json_array_get(j, i);
    if (!json_is_string(e)) return perr(c, "%s must be an array of strings", "aliases");
    v[i] = fl_arena_strdup(c->a, json_string_value(e));
  }
  *n = (uint32_t)k;
  *out = v;
  return FL_OK;
}

static bool is_key(const char *k, const char *const *list) {
  for (; *list; list++)
    if (!strcmp(k, *list)) return true;
  return false;
}

/* Copies every member of o not in `known` into attrs. */
static void keep_attrs(pctx_t *c, json_t *o, const char *const *known, av_attr_t **attrs,
                       uint32_t *n) {
  const char *k;
  json_t *v;
  json_object_foreach(o, k, v) {
    if (is_key(k, known)) continue;
    add_attr(c->a, attrs, n, k, dump_json(c->a, v));
  }
}

static int parse_record(pctx_t *c, json_t *j, av_schema_t *s, const char *ns, int depth) {
  json_t *fields = json_object_get(j, "fields");
  if (!json_is_array(fields)) return perr(c, "record %s needs a \"fields\" array", s->fullname);
  size_t n = json_array_size(fields);
  s->fields = fl_arena_zalloc(c->a, sizeof *s->fields * (n ? n : 1));
  s->nfields = 0;
  static const char *const known[] = {"name", "type", "doc", "default", "order", "aliases", NULL};
  for (size_t i = 0; i < n; i++) {
    json_t *fj = json_array_get(fields, i);
    size_t old = path_push(c, ".fields[%ld]", NULL, (long)i);
    av_field_t *f = &s->fields[i];
    json_t *nm = json_object_get(fj, "name");
    if (!json_is_object(fj) || !json_is_string(nm) || !valid_name(json_string_value(nm)))
      return perr(c, "%s", "a field needs a valid \"name\"");
    f->name = fl_arena_strdup(c->a, json_string_value(nm));
    for (size_t k = 0; k < i; k++)
      if (!strcmp(s->fields[k].name, f->name)) return perr(c, "field %s appears twice", f->name);
    json_t *d = json_object_get(fj, "doc");
    if (json_is_string(d)) f->doc = fl_arena_strdup(c->a, json_string_value(d));
    json_t *def = json_object_get(fj, "default");
    if (def) f->default_json = dump_json(c->a, def);
    json_t *ord = json_object_get(fj, "order");
    if (json_is_string(ord)) f->order = fl_arena_strdup(c->a, json_string_value(ord));
    json_t *al = json_object_get(fj, "aliases");
    if (al) {
      int rc = parse_aliases(c, al, &f->naliases, &f->aliases);
      if (rc) return rc;
    }
    keep_attrs(c, fj, known, &f->attrs, &f->nattrs);
    json_t *t = json_object_get(fj, "type");
    if (!t) return perr(c, "field %s has no \"type\"", f->name);
    size_t old2 = path_push(c, ".%s", f->name, 0);
    path_pop(c, old2);
    path_push(c, ".type", NULL, 0);
    int rc = parse_node(c, t, ns, depth + 1, &f->type);
    if (rc) return rc;
    path_pop(c, old);
    s->nfields++;
  }
  return FL_OK;
}

static int parse_logical(pctx_t *c, json_t *j, av_schema_t *s, const char ***known_extra) {
  static const char *const decimal_keys[] = {"precision", "scale", NULL};
  json_t *lt = json_object_get(j, "logicalType");
  *known_extra = NULL;
  if (!lt) return FL_OK;
  if (!json_is_string(lt)) return perr(c, "%s must be a string", "logicalType");
  const char *name = json_string_value(lt);
  s->logical_name = fl_arena_strdup(c->a, name);
  s->logical = AV_LT_OTHER;
  int k = 0;
  for (int i = 1; i < (int)(sizeof logical_names / sizeof *logical_names); i++)
    if (!strcmp(name, logical_names[i])) k = i;
  bool ok = false;
  switch (k) {
    case AV_LT_DECIMAL: {
      json_t *p = json_object_get(j, "precision"), *sc = json_object_get(j, "scale");
      if (!json_is_integer(p) || (sc && !json_is_integer(sc))) break;
      json_int_t pv = json_integer_value(p), sv = sc ? json_integer_value(sc) : 0;
      if (s->type != AV_BYTES && s->type != AV_FIXED) break;
      if (pv < 1 || sv < 0 || sv > pv) break;
      if (s->type == AV_FIXED) {
        /* Largest precision that fits in size bytes: floor(log10(2^(8n-1)-1)). */
        double maxp = (8.0 * s->size - 1) * 0.30102999566398;
        if ((double)pv > maxp + 1e-9) break;
      }
      s->precision = (int32_t)pv;
      s->scale = (int32_t)sv;
      *known_extra = (const char **)decimal_keys;
      ok = true;
      break;
    }
    case AV_LT_UUID: ok = s->type == AV_STRING || (s->type == AV_FIXED && s->size == 16); break;
    case AV_LT_DATE:
    case AV_LT_TIME_MILLIS: ok = s->type == AV_INT; break;
    case AV_LT_TIME_MICROS:
    case AV_LT_TIMESTAMP_MILLIS:
    case AV_LT_TIMESTAMP_MICROS:
    case AV_LT_TIMESTAMP_NANOS:
    case AV_LT_LOCAL_TIMESTAMP_MILLIS:
    case AV_LT_LOCAL_TIMESTAMP_MICROS:
    case AV_LT_LOCAL_TIMESTAMP_NANOS: ok = s->type == AV_LONG; break;
    default: break;
  }
  if (ok) s->logical = (av_logical_t)k;
  return FL_OK;
}

static int parse_object(pctx_t *c, json_t *j, const char *ns, int depth, av_schema_t **out) {
  json_t *tj = json_object_get(j, "type");
  if (!tj) return perr(c, "%s", "object has no \"type\"");
  if (!json_is_string(tj)) {
    /* {"type": {...}} or {"type": [...]} wraps another schema; extra
     * attributes on such a wrapper have no meaning in Avro. */
    return parse_node(c, tj, ns, depth + 1, out);
  }
  const char *tn = json_string_value(tj);
  int prim = primitive_of(tn);
  av_schema_t *s;
  static const char *const base_known[] = {"type", "logicalType", NULL};
  const char **extra = NULL;
  if (prim >= 0) {
    s = av_schema_new(c->a, (av_type_t)prim);
    int rc = parse_logical(c, j, s, &extra);
    if (rc) return rc;
    const char *known[8] = {"type", "logicalType", NULL};
    int kn = 2;
    for (int i = 0; extra && extra[i]; i++) known[kn++] = extra[i];
    known[kn] = NULL;
    keep_attrs(c, j, known, &s->attrs, &s->nattrs);
    *out = s;
    return FL_OK;
  }
  if (!strcmp(tn, "array") || !strcmp(tn, "map")) {
    bool arr = tn[0] == 'a';
    s = av_schema_new(c->a, arr ? AV_ARRAY : AV_MAP);
    const char *key = arr ? "items" : "values";
    json_t *it = json_object_get(j, key);
    if (!it) return perr(c, "missing \"%s\"", key);
    size_t old = path_push(c, arr ? ".items" : ".values", NULL, 0);
    int rc = parse_node(c, it, ns, depth + 1, &s->items);
    if (rc) return rc;
    path_pop(c, old);
    rc = parse_logical(c, j, s, &extra);
    if (rc) return rc;
    const char *known[] = {"type", "logicalType", key, NULL};
    keep_attrs(c, j, known, &s->attrs, &s->nattrs);
    *out = s;
    return FL_OK;
  }
  av_type_t t;
  if (!strcmp(tn, "record") || !strcmp(tn, "error"))
    t = AV_RECORD;
  else if (!strcmp(tn, "enum"))
    t = AV_ENUM;
  else if (!strcmp(tn, "fixed"))
    t = AV_FIXED;
  else {
    /* {"type": "SomeNamedType"} is a reference. */
    av_schema_t *r = lookup(c, tn, ns);
    if (!r) return perr(c, "unknown type \"%s\"", tn);
    *out = r;
    return FL_OK;
  }
  (void)base_known;
  s = av_schema_new(c->a, t);
  json_t *nm = json_object_get(j, "name");
  if (!json_is_string(nm) || !valid_fullname(json_string_value(nm)))
    return perr(c, "%s needs a valid \"name\"", tn);
  json_t *nsj = json_object_get(j, "namespace");
  const char *own_ns = ns;
  if (nsj) {
    if (!json_is_string(nsj) && !json_is_null(nsj)) return perr(c, "%s", "namespace must be a string");
    own_ns = json_is_string(nsj) ? json_string_value(nsj) : "";
  }
  av_schema_set_name(c->a, s, json_string_value(nm), own_ns);
  if (nsj && json_is_string(nsj) && !strchr(json_string_value(nm), '.') && !s->nspace)
    s->nspace = fl_arena_strdup(c->a, "");
  json_t *d = json_object_get(j, "doc");
  if (json_is_string(d)) s->doc = fl_arena_strdup(c->a, json_string_value(d));
  json_t *al = json_object_get(j, "aliases");
  if (al) {
    int rc = parse_aliases(c, al, &s->naliases, &s->aliases);
    if (rc) return rc;
  }
  int rc = define(c, s);
  if (rc) return rc;
  const char *inner_ns = s->nspace ? s->nspace : "";
  if (t == AV_RECORD) {
    rc = parse_record(c, j, s, inner_ns, depth);
    if (rc) return rc;
    static const char *const known[] = {"type", "name", "namespace", "doc", "aliases", "fields", NULL};
    keep_attrs(c, j, known, &s->attrs, &s->nattrs);
  } else if (t == AV_ENUM) {
    json_t *sy = json_object_get(j, "symbols");
    if (!json_is_array(sy)) return perr(c, "enum %s needs a \"symbols\" array", s->fullname);
    size_t n = json_array_size(sy);
    s->symbols = fl_arena_alloc(c->a, sizeof *s->symbols * (n ? n : 1));
    for (size_t i = 0; i < n; i++) {
      json_t *e = json_array_get(sy, i);
      if (!json_is_string(e) || !valid_name(json_string_value(e)))
        return perr(c, "enum %s has an invalid symbol", s->fullname);
      s->symbols[i] = fl_arena_strdup(c->a, json_string_value(e));
      for (size_t k = 0; k < i; k++)
        if (!strcmp(s->symbols[k], s->symbols[i]))
          return perr(c, "enum symbol %s appears twice", s->symbols[i]);
    }
    s->nsymbols = (uint32_t)n;
    json_t *def = json_object_get(j, "default");
    if (def) {
      if (!json_is_string(def)) return perr(c, "enum %s default must be a string", s->fullname);
      s->enum_default = fl_arena_strdup(c->a, json_string_value(def));
    }
    static const char *const known[] = {"type", "name", "namespace", "doc", "aliases", "symbols",
                                        "default", NULL};
    keep_attrs(c, j, known, &s->attrs, &s->nattrs);
  } else {
    json_t *sz = json_object_get(j, "size");
    if (!json_is_integer(sz) || json_integer_value(sz) < 0 || json_integer_value(sz) > INT32_MAX)
      return perr(c, "fixed %s needs a non-negative \"size\"", s->fullname);
    s->size = (int32_t)json_integer_value(sz);
    rc = parse_logical(c, j, s, &extra);
    if (rc) return rc;
    const char *known[12] = {"type", "name", "namespace", "doc", "aliases", "size", "logicalType", NULL};
    int kn = 7;
    for (int i = 0; extra && extra[i]; i++) known[kn++] = extra[i];
    known[kn] = NULL;
    keep_attrs(c, j, known, &s->attrs, &s->nattrs);
  }
  *out = s;
  return FL_OK;
}

static int parse_node(pctx_t *c, json_t *j, const char *ns, int depth, av_schema_t **out) {
  if (depth > MAX_DEPTH) return perr(c, "%s", "schema nests too deeply");
  if (json_is_string(j)) {
    const char *tn = json_string_value(j);
    int prim = primitive_of(tn);
    if (prim >= 0) {
      *out = av_schema_new(c->a, (av_type_t)prim);
      return FL_OK;
    }
    av_schema_t *r = lookup(c, tn, ns);
    if (!r) return perr(c, "unknown type \"%s\"", tn);
    *out = r;
    return FL_OK;
  }
  if (json_is_array(j)) {
    size_t n = json_array_size(j);
    av_schema_t *s = av_schema_new(c->a, AV_UNION);
    s->branches = fl_arena_alloc(c->a, sizeof *s->branches * (n ? n : 1));
    for (size_t i = 0; i < n; i++) {
      size_t old = path_push(c, "[%ld]", NULL, (long)i);
      int rc = parse_node(c, json_array_get(j, i), ns, depth + 1, &s->branches[i]);
      if (rc) return rc;
      av_schema_t *b = s->branches[i];
      if (b->type == AV_UNION) return perr(c, "%s", "a union may not directly contain a union");
      for (size_t k = 0; k < i; k++) {
        av_schema_t *o = s->branches[k];
        bool named = b->type == AV_RECORD || b->type == AV_ENUM || b->type == AV_FIXED;
        if (o->type == b->type && (!named || !strcmp(o->fullname, b->fullname)))
          return perr(c, "union has two branches of type %s", named ? b->fullname : av_type_name(b->type));
      }
      path_pop(c, old);
    }
    s->nbranches = (uint32_t)n;
    *out = s;
    return FL_OK;
  }
  if (json_is_object(j)) return parse_object(c, j, ns, depth, out);
  return perr(c, "%s", "expected a type name, an object or a union array");
}

int av_schema_parse(fl_arena_t *a, const char *text, size_t len, av_schema_t **out, fl_err_t *err) {
  json_error_t je;
  json_t *j = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
  if (!j)
    return fl_err_set(err, FL_EPARSE, "avro schema: invalid JSON at line %d column %d: %s", je.line,
                      je.column, je.text);
  pctx_t c = {.a = a, .err = err};
  int rc = parse_node(&c, j, "", 0, out);
  json_decref(j);
  return rc;
}

/* ---- writing ---- */

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
      json_object_set_new(o, "type", json_string(type_names[s->type]));
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
      if (!s->logical_name && !s->nattrs) return json_string(type_names[s->type]);
      json_t *o = json_object();
      json_object_set_new(o, "type", json_string(type_names[s->type]));
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
