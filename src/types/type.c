/*
 * type.c - type constructors, equality, lookup, and the column-list syntax
 * used by `--schema` and the SQL layer's type names.
 */
#include "types/type.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>

static const char *const kind_names[] = {
#define TY__KIND_NAME(name, text) text,
    TY_KIND_MAP(TY__KIND_NAME)
#undef TY__KIND_NAME
};

const char *ty_kind_name(ty_kind_t k) {
  if ((unsigned)k >= TY_KIND_COUNT) return "?";
  return kind_names[k];
}

static const ty_type_t primitives[TY_KIND_COUNT] = {
    [TY_BOOLEAN] = {.kind = TY_BOOLEAN},
    [TY_INT] = {.kind = TY_INT},
    [TY_LONG] = {.kind = TY_LONG},
    [TY_FLOAT] = {.kind = TY_FLOAT},
    [TY_DOUBLE] = {.kind = TY_DOUBLE},
    [TY_DECIMAL] = {.kind = TY_DECIMAL, .precision = 38, .scale = 0},
    [TY_DATE] = {.kind = TY_DATE},
    [TY_TIME] = {.kind = TY_TIME},
    [TY_TIMESTAMP] = {.kind = TY_TIMESTAMP},
    [TY_TIMESTAMPTZ] = {.kind = TY_TIMESTAMPTZ},
    [TY_TIMESTAMP_NS] = {.kind = TY_TIMESTAMP_NS},
    [TY_TIMESTAMPTZ_NS] = {.kind = TY_TIMESTAMPTZ_NS},
    [TY_STRING] = {.kind = TY_STRING},
    [TY_UUID] = {.kind = TY_UUID, .length = 16},
    [TY_FIXED] = {.kind = TY_FIXED, .length = 1},
    [TY_BINARY] = {.kind = TY_BINARY},
};

const ty_type_t *ty_primitive(ty_kind_t k) {
  if ((unsigned)k >= TY_KIND_COUNT || k == TY_STRUCT || k == TY_LIST || k == TY_MAP) return NULL;
  return &primitives[k];
}

const ty_type_t *ty_decimal(fl_arena_t *a, int precision, int scale) {
  ty_type_t *t = fl_arena_zalloc(a, sizeof *t);
  t->kind = TY_DECIMAL;
  t->precision = (uint8_t)precision;
  t->scale = (uint8_t)scale;
  return t;
}

const ty_type_t *ty_fixed(fl_arena_t *a, int32_t length) {
  ty_type_t *t = fl_arena_zalloc(a, sizeof *t);
  t->kind = TY_FIXED;
  t->length = length;
  return t;
}

size_t ty_value_width(const ty_type_t *t) {
  switch (t->kind) {
    case TY_BOOLEAN: return 1;
    case TY_INT:
    case TY_DATE:
    case TY_FLOAT: return 4;
    case TY_LONG:
    case TY_DOUBLE:
    case TY_TIME:
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS: return 8;
    case TY_DECIMAL: return 16;
    case TY_UUID: return 16;
    case TY_FIXED: return (size_t)t->length;
    default: return 0;
  }
}

bool ty_type_equal(const ty_type_t *a, const ty_type_t *b) {
  if (a == b) return true;
  if (a->kind != b->kind) return false;
  if (a->kind == TY_DECIMAL) return a->precision == b->precision && a->scale == b->scale;
  if (a->kind == TY_FIXED) return a->length == b->length;
  if (!ty_is_nested(a)) return true;
  if (a->nfields != b->nfields) return false;
  for (uint32_t i = 0; i < a->nfields; i++) {
    const ty_field_t *fa = &a->fields[i], *fb = &b->fields[i];
    if (fa->id != fb->id || fa->required != fb->required || strcmp(fa->name, fb->name) != 0 ||
        !ty_type_equal(fa->type, fb->type))
      return false;
  }
  return true;
}

static const ty_field_t *find_in(const ty_type_t *t, int32_t id) {
  if (!ty_is_nested(t)) return NULL;
  for (uint32_t i = 0; i < t->nfields; i++) {
    if (t->fields[i].id == id) return &t->fields[i];
    const ty_field_t *f = find_in(t->fields[i].type, id);
    if (f) return f;
  }
  return NULL;
}

const ty_field_t *ty_schema_find_id(const ty_schema_t *s, int32_t id) { return find_in(&s->root, id); }

int ty_schema_find_name(const ty_schema_t *s, const char *name) {
  for (uint32_t i = 0; i < s->root.nfields; i++)
    if (strcmp(s->root.fields[i].name, name) == 0) return (int)i;
  return -1;
}

static int32_t highest_in(const ty_type_t *t) {
  int32_t m = 0;
  if (!ty_is_nested(t)) return 0;
  for (uint32_t i = 0; i < t->nfields; i++) {
    if (t->fields[i].id > m) m = t->fields[i].id;
    int32_t c = highest_in(t->fields[i].type);
    if (c > m) m = c;
  }
  return m;
}

int32_t ty_schema_highest_id(const ty_schema_t *s) { return highest_in(&s->root); }

ty_schema_t *ty_schema_new(fl_arena_t *a, int32_t schema_id, const ty_field_t *fields,
                           uint32_t nfields) {
  ty_schema_t *s = fl_arena_zalloc(a, sizeof *s);
  s->schema_id = schema_id;
  s->root.kind = TY_STRUCT;
  s->root.nfields = nfields;
  s->root.fields = fl_arena_memdup(a, fields, nfields * sizeof *fields);
  return s;
}

const ty_type_t *ty_struct_new(fl_arena_t *a, const ty_field_t *fields, uint32_t nfields) {
  ty_type_t *t = fl_arena_zalloc(a, sizeof *t);
  t->kind = TY_STRUCT;
  t->nfields = nfields;
  t->fields = fl_arena_memdup(a, fields, nfields * sizeof *fields);
  return t;
}

const ty_type_t *ty_list_new(fl_arena_t *a, int32_t element_id, bool element_required,
                             const ty_type_t *element) {
  ty_type_t *t = fl_arena_zalloc(a, sizeof *t);
  t->kind = TY_LIST;
  t->nfields = 1;
  t->fields = fl_arena_zalloc(a, sizeof(ty_field_t));
  t->fields[0] = (ty_field_t){.id = element_id, .name = "element", .required = element_required,
                              .type = element};
  return t;
}

const ty_type_t *ty_map_new(fl_arena_t *a, int32_t key_id, const ty_type_t *key,
                            int32_t value_id, bool value_required, const ty_type_t *value) {
  ty_type_t *t = fl_arena_zalloc(a, sizeof *t);
  t->kind = TY_MAP;
  t->nfields = 2;
  t->fields = fl_arena_zalloc(a, 2 * sizeof(ty_field_t));
  t->fields[0] = (ty_field_t){.id = key_id, .name = "key", .required = true, .type = key};
  t->fields[1] = (ty_field_t){.id = value_id, .name = "value", .required = value_required,
                              .type = value};
  return t;
}

/* ---- the column-list parser -------------------------------------------- */

typedef struct parser {
  fl_arena_t *a;
  const char *text;
  size_t pos;
  fl_err_t *err;
} parser_t;

static void skip_ws(parser_t *p) {
  while (p->text[p->pos] && isspace((unsigned char)p->text[p->pos])) p->pos++;
}

static int fail(parser_t *p, const char *what) {
  return fl_err_set(p->err, FL_EPARSE, "schema: %s at position %zu near '%.20s'", what, p->pos + 1,
                    p->text + p->pos);
}

static bool eat(parser_t *p, char c) {
  skip_ws(p);
  if (p->text[p->pos] == c) {
    p->pos++;
    return true;
  }
  return false;
}

/* Reads an identifier or a quoted name ("x y" or `x y`; inside, a doubled
 * quote stands for one, as in SQL). */
static int ident(parser_t *p, const char **out) {
  skip_ws(p);
  const char *s = p->text + p->pos;
  if (*s == '"' || *s == '`') {
    char q = *s;
    fl_buf_t name;
    fl_buf_init(&name);
    const char *c = s + 1;
    for (;; c++) {
      if (*c == '\0') {
        fl_buf_free(&name);
        return fail(p, "unterminated quoted name");
      }
      if (*c == q) {
        if (c[1] != q) break;
        c++;
      }
      fl_buf_append_u8(&name, (uint8_t)*c);
    }
    *out = fl_arena_strndup(p->a, name.len ? (const char *)name.data : "", name.len);
    fl_buf_free(&name);
    p->pos += (size_t)(c - s) + 1;
    return FL_OK;
  }
  size_t n = 0;
  while (s[n] && (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '.' || s[n] == '$')) n++;
  if (n == 0) return fail(p, "expected a name");
  *out = fl_arena_strndup(p->a, s, n);
  p->pos += n;
  return FL_OK;
}

static bool keyword(parser_t *p, const char *kw) {
  skip_ws(p);
  size_t n = strlen(kw);
  if (strncasecmp(p->text + p->pos, kw, n) == 0 &&
      !isalnum((unsigned char)p->text[p->pos + n]) && p->text[p->pos + n] != '_') {
    p->pos += n;
    return true;
  }
  return false;
}

static int integer(parser_t *p, long *out) {
  skip_ws(p);
  char *end;
  long v = strtol(p->text + p->pos, &end, 10);
  if (end == p->text + p->pos) return fail(p, "expected a number");
  p->pos = (size_t)(end - p->text);
  *out = v;
  return FL_OK;
}

/* Parses an optional NOT NULL / NULL suffix; default is optional. */
static bool nullability(parser_t *p) {
  if (keyword(p, "not")) {
    if (!keyword(p, "null")) return false;
    return true;
  }
  keyword(p, "null");
  return false;
}

static int parse_type(parser_t *p, const ty_type_t **out);

static int parse_field_list(parser_t *p, char close, ty_field_t **fields, uint32_t *n,
                            bool colon) {
  uint32_t cap = 8, len = 0;
  ty_field_t *fs = fl_arena_alloc(p->a, cap * sizeof *fs);
  for (;;) {
    ty_field_t f = {0};
    int rc = ident(p, &f.name);
    if (rc) return rc;
    if (colon) eat(p, ':');
    rc = parse_type(p, &f.type);
    if (rc) return rc;
    size_t save = p->pos;
    if (keyword(p, "not")) {
      if (!keyword(p, "null")) {
        p->pos = save;
        return fail(p, "expected NULL after NOT");
      }
      f.required = true;
    } else {
      keyword(p, "null");
    }
    if (keyword(p, "comment")) {
      skip_ws(p);
      char q = p->text[p->pos];
      if (q != '\'' && q != '"') return fail(p, "expected a quoted comment");
      const char *s = p->text + p->pos + 1, *e = strchr(s, q);
      if (!e) return fail(p, "unterminated comment");
      f.doc = fl_arena_strndup(p->a, s, (size_t)(e - s));
      p->pos = (size_t)(e - p->text) + 1;
    }
    for (uint32_t i = 0; i < len; i++)
      if (strcmp(fs[i].name, f.name) == 0) return fail(p, "duplicate column name");
    if (len == cap) {
      ty_field_t *bigger = fl_arena_alloc(p->a, 2 * cap * sizeof *fs);
      memcpy(bigger, fs, len * sizeof *fs);
      fs = bigger;
      cap *= 2;
    }
    fs[len++] = f;
    if (eat(p, ',')) continue;
    skip_ws(p);
    if (close ? eat(p, close) : p->text[p->pos] == '\0') break;
    return fail(p, close ? "expected ',' or '>'" : "expected ',' or end of schema");
  }
  *fields = fs;
  *n = len;
  return FL_OK;
}

static const struct {
  const char *name;
  ty_kind_t kind;
} type_names[] = {
    {"boolean", TY_BOOLEAN},
    {"bool", TY_BOOLEAN},
    {"int", TY_INT},
    {"integer", TY_INT},
    {"long", TY_LONG},
    {"bigint", TY_LONG},
    {"float", TY_FLOAT},
    {"real", TY_FLOAT},
    {"double", TY_DOUBLE},
    {"date", TY_DATE},
    {"time", TY_TIME},
    {"timestamptz_ns", TY_TIMESTAMPTZ_NS},
    {"timestamp_ns", TY_TIMESTAMP_NS},
    {"timestamptz", TY_TIMESTAMPTZ},
    {"timestamp", TY_TIMESTAMP},
    {"string", TY_STRING},
    {"varchar", TY_STRING},
    {"uuid", TY_UUID},
    {"binary", TY_BINARY},
    {"varbinary", TY_BINARY},
};

static int parse_type(parser_t *p, const ty_type_t **out) {
  skip_ws(p);
  if (keyword(p, "decimal") || keyword(p, "numeric")) {
    long prec = 38, scale = 0;
    if (eat(p, '(')) {
      int rc = integer(p, &prec);
      if (rc) return rc;
      if (eat(p, ',')) {
        rc = integer(p, &scale);
        if (rc) return rc;
      }
      if (!eat(p, ')')) return fail(p, "expected ')'");
    }
    if (prec < 1 || prec > 38) return fail(p, "decimal precision must be 1..38");
    if (scale < 0 || scale > prec) return fail(p, "decimal scale must be 0..precision");
    *out = ty_decimal(p->a, (int)prec, (int)scale);
    return FL_OK;
  }
  if (keyword(p, "fixed")) {
    long len;
    char close;
    if (eat(p, '('))
      close = ')';
    else if (eat(p, '['))
      close = ']';
    else
      return fail(p, "expected fixed(length)");
    int rc = integer(p, &len);
    if (rc) return rc;
    if (!eat(p, close)) return fail(p, "expected closing bracket");
    if (len < 1 || len > (1 << 24)) return fail(p, "fixed length out of range");
    *out = ty_fixed(p->a, (int32_t)len);
    return FL_OK;
  }
  if (keyword(p, "list") || keyword(p, "array")) {
    if (!eat(p, '<')) return fail(p, "expected '<'");
    const ty_type_t *elem;
    int rc = parse_type(p, &elem);
    if (rc) return rc;
    bool req = nullability(p);
    if (!eat(p, '>')) return fail(p, "expected '>'");
    *out = ty_list_new(p->a, 0, req, elem);
    return FL_OK;
  }
  if (keyword(p, "map")) {
    if (!eat(p, '<')) return fail(p, "expected '<'");
    const ty_type_t *k, *v;
    int rc = parse_type(p, &k);
    if (rc) return rc;
    if (ty_is_nested(k) && k->kind != TY_STRUCT) return fail(p, "map key must not be a list or map");
    nullability(p);
    if (!eat(p, ',')) return fail(p, "expected ','");
    rc = parse_type(p, &v);
    if (rc) return rc;
    bool req = nullability(p);
    if (!eat(p, '>')) return fail(p, "expected '>'");
    *out = ty_map_new(p->a, 0, k, 0, req, v);
    return FL_OK;
  }
  if (keyword(p, "struct") || keyword(p, "row")) {
    if (!eat(p, '<')) return fail(p, "expected '<'");
    ty_field_t *fields;
    uint32_t n;
    int rc = parse_field_list(p, '>', &fields, &n, true);
    if (rc) return rc;
    *out = ty_struct_new(p->a, fields, n);
    return FL_OK;
  }
  for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++) {
    if (keyword(p, type_names[i].name)) {
      *out = ty_primitive(type_names[i].kind);
      return FL_OK;
    }
  }
  return fail(p, "unknown type");
}

/* Assigns ids the way Iceberg assigns fresh ids: a struct's own fields
 * first, then each field's nested type in order. */
static void assign_ids(ty_type_t *t, int32_t *next) {
  if (!ty_is_nested(t)) return;
  for (uint32_t i = 0; i < t->nfields; i++) t->fields[i].id = (*next)++;
  for (uint32_t i = 0; i < t->nfields; i++) assign_ids((ty_type_t *)t->fields[i].type, next);
}

int ty_schema_parse(fl_arena_t *a, const char *text, ty_schema_t **out, fl_err_t *err) {
  parser_t p = {.a = a, .text = text, .pos = 0, .err = err};
  skip_ws(&p);
  if (!text[p.pos]) return fail(&p, "empty column list");
  ty_field_t *fields;
  uint32_t n;
  int rc = parse_field_list(&p, 0, &fields, &n, false);
  if (rc) return rc;
  ty_schema_t *s = ty_schema_new(a, 0, fields, n);
  int32_t next = 1;
  assign_ids(&s->root, &next);
  *out = s;
  return FL_OK;
}

int ty_type_parse(fl_arena_t *a, const char *text, int32_t *next_id, const ty_type_t **out,
                  fl_err_t *err) {
  parser_t p = {.a = a, .text = text, .pos = 0, .err = err};
  const ty_type_t *t;
  int rc = parse_type(&p, &t);
  if (rc) return rc;
  skip_ws(&p);
  if (text[p.pos]) return fail(&p, "unexpected text after type");
  assign_ids((ty_type_t *)t, next_id);
  *out = t;
  return FL_OK;
}

static void format_fields(const ty_type_t *t, fl_buf_t *out, bool colon);

void ty_type_format(const ty_type_t *t, fl_buf_t *out) {
  switch (t->kind) {
    case TY_DECIMAL: fl_buf_printf(out, "decimal(%u,%u)", t->precision, t->scale); break;
    case TY_FIXED: fl_buf_printf(out, "fixed(%d)", t->length); break;
    case TY_LIST:
      fl_buf_append_str(out, "list<");
      ty_type_format(t->fields[0].type, out);
      if (t->fields[0].required) fl_buf_append_str(out, " not null");
      fl_buf_append_str(out, ">");
      break;
    case TY_MAP:
      fl_buf_append_str(out, "map<");
      ty_type_format(t->fields[0].type, out);
      fl_buf_append_str(out, ", ");
      ty_type_format(t->fields[1].type, out);
      if (t->fields[1].required) fl_buf_append_str(out, " not null");
      fl_buf_append_str(out, ">");
      break;
    case TY_STRUCT:
      fl_buf_append_str(out, "struct<");
      format_fields(t, out, true);
      fl_buf_append_str(out, ">");
      break;
    default: fl_buf_append_str(out, ty_kind_name(t->kind));
  }
}

static bool plain_name(const char *s) {
  if (!*s || isdigit((unsigned char)*s)) return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return false;
  return true;
}

static void format_fields(const ty_type_t *t, fl_buf_t *out, bool colon) {
  for (uint32_t i = 0; i < t->nfields; i++) {
    const ty_field_t *f = &t->fields[i];
    if (i) fl_buf_append_str(out, ", ");
    if (plain_name(f->name))
      fl_buf_append_str(out, f->name);
    else {
      fl_buf_append_u8(out, '"');
      for (const char *c = f->name; *c; c++) {
        if (*c == '"') fl_buf_append_u8(out, '"');
        fl_buf_append_u8(out, (uint8_t)*c);
      }
      fl_buf_append_u8(out, '"');
    }
    fl_buf_append_str(out, colon ? ": " : " ");
    ty_type_format(f->type, out);
    if (f->required) fl_buf_append_str(out, " not null");
  }
}

void ty_schema_format(const ty_schema_t *s, fl_buf_t *out) { format_fields(&s->root, out, false); }
