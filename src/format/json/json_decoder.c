/*
 * json_decoder.c - JSON objects straight into column vectors (see
 * json_decoder.h for what is accepted).
 *
 * At creation the schema becomes a tree of nodes mirroring the types; a
 * struct node carries an open-addressing table from member name to field
 * index, a hint (the field after the last match, since producers emit
 * members in a fixed order; the first member of the previous object at
 * the start of an object) and a "seen" stamp per field, compared with a
 * per-object generation number so no clearing is needed between objects.
 * The hinted name is first compared with the input bytes in place (quote,
 * name, quote), which skips scanning and hashing the key when the
 * prediction holds.
 *
 * Decoding is recursive descent over the lexer in json_int.h; each value
 * is appended to the vector its node belongs to as soon as it is read.
 * When a row fails half way, every column is cut back to the rows before
 * it. The field path of an error is collected while the recursion unwinds,
 * so the happy path pays nothing for it.
 */
#include "format/json/json_decoder.h"

#include <stdio.h>

#include "base/alloc.h"
#include "base/time.h"
#include "format/json/json_int.h"
#include "format/text_parse.h"

typedef struct js_node js_node_t;
struct js_node {
  ty_kind_t kind;
  uint32_t nfields;
  js_node_t *kids; /* struct fields; list element; map key, value */
  const char **names;
  uint32_t *name_lens;
  bool *required;
  uint32_t *slots; /* field index + 1; 0 = empty */
  uint32_t mask;
  uint32_t *seen;
  uint32_t gen;
  uint32_t hint;
  uint32_t first;     /* the first member of the previous object */
  /* The spelling of each field's name that the hinted member is compared
   * with in place: the schema's name, or, when names match ignoring case,
   * the spelling the input last used (Nexmark's "dateTime" for the column
   * datetime), so that repeated objects take the in-place path. NULL: the
   * name has characters that need escaping and is always looked up. */
  const char **fast_names;
  uint32_t *fast_lens;
  char **spelling; /* ci: a buffer per field for the input's spelling */
};

#define MAX_SPELLING 64

#define MAX_PATH 80

typedef struct path_el {
  const char *name; /* NULL: an index */
  uint32_t len;
  int64_t index;
} path_el_t;

struct js_decoder {
  fl_arena_t *arena;
  const ty_schema_t *schema;
  js_node_t root;
  bool ci;
  bool fail_missing; /* a member absent from its object is an error */
  js_lex_t lx;
  uint64_t line;
  ptrdiff_t carry; /* start of the current line relative to the next text */
  fl_buf_t scratch;
  path_el_t path[MAX_PATH];
  uint32_t npath;
  size_t consumed;
};

static inline uint32_t lower(uint32_t c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

static uint32_t name_hash(const char *s, size_t n, bool ci) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) {
    uint32_t c = (unsigned char)s[i];
    h = (h ^ (ci ? lower(c) : c)) * 16777619u;
  }
  return h;
}

static bool name_eq(const char *a, const char *b, size_t n, bool ci) {
  if (!ci) return memcmp(a, b, n) == 0;
  for (size_t i = 0; i < n; i++)
    if (lower((unsigned char)a[i]) != lower((unsigned char)b[i])) return false;
  return true;
}

/* Whether text needs no escaping in JSON, so it reads the same in place. */
static bool plain_text(const char *c, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (c[i] == '"' || c[i] == '\\' || (unsigned char)c[i] < 0x20) return false;
  return true;
}

/* After a member named k matched field i ignoring case: its spelling
 * becomes the one compared in place, when it fits. */
static void remember_spelling(js_decoder_t *d, js_node_t *nd, uint32_t i, const char *k,
                              size_t n) {
  if (n > MAX_SPELLING || !plain_text(k, n)) return;
  if (!nd->spelling[i]) nd->spelling[i] = fl_arena_alloc(d->arena, MAX_SPELLING);
  memcpy(nd->spelling[i], k, n);
  nd->fast_names[i] = nd->spelling[i];
  nd->fast_lens[i] = (uint32_t)n;
}

static void build_node(js_decoder_t *d, js_node_t *nd, const ty_type_t *t) {
  memset(nd, 0, sizeof *nd);
  nd->kind = t->kind;
  if (!ty_is_nested(t)) return;
  uint32_t n = t->nfields;
  nd->nfields = n;
  nd->kids = fl_arena_zalloc(d->arena, (n ? n : 1) * sizeof *nd->kids);
  nd->names = fl_arena_zalloc(d->arena, (n ? n : 1) * sizeof *nd->names);
  nd->name_lens = fl_arena_zalloc(d->arena, (n ? n : 1) * sizeof *nd->name_lens);
  nd->required = fl_arena_zalloc(d->arena, (n ? n : 1) * sizeof *nd->required);
  nd->fast_names = fl_arena_zalloc(d->arena, (n ? n : 1) * sizeof *nd->fast_names);
  nd->fast_lens = fl_arena_zalloc(d->arena, (n ? n : 1) * sizeof *nd->fast_lens);
  nd->spelling = fl_arena_zalloc(d->arena, (n ? n : 1) * sizeof *nd->spelling);
  for (uint32_t i = 0; i < n; i++) {
    nd->names[i] = t->fields[i].name;
    nd->name_lens[i] = (uint32_t)strlen(t->fields[i].name);
    nd->required[i] = t->fields[i].required;
    if (plain_text(nd->names[i], nd->name_lens[i])) {
      nd->fast_names[i] = nd->names[i];
      nd->fast_lens[i] = nd->name_lens[i];
    }
    build_node(d, &nd->kids[i], t->fields[i].type);
  }
  if (t->kind != TY_STRUCT) return;
  uint32_t size = 4;
  while (size < 2 * n) size *= 2;
  nd->mask = size - 1;
  nd->slots = fl_arena_zalloc(d->arena, size * sizeof *nd->slots);
  nd->seen = fl_arena_zalloc(d->arena, (n ? n : 1) * sizeof *nd->seen);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t h = name_hash(nd->names[i], nd->name_lens[i], d->ci) & nd->mask;
    bool dup = false;
    while (nd->slots[h]) {
      uint32_t o = nd->slots[h] - 1;
      if (nd->name_lens[o] == nd->name_lens[i] &&
          name_eq(nd->names[o], nd->names[i], nd->name_lens[i], d->ci))
        dup = true;
      h = (h + 1) & nd->mask;
    }
    if (!dup) nd->slots[h] = i + 1;
  }
}

js_decoder_t *js_decoder_new(const ty_schema_t *s, const js_decode_opts_t *opts) {
  js_decoder_t *d = fl_calloc(1, sizeof *d);
  d->arena = fl_arena_new(0);
  d->schema = s;
  d->ci = opts && opts->case_insensitive;
  d->fail_missing = opts && opts->fail_on_missing;
  d->lx.max_depth = opts && opts->max_depth ? opts->max_depth : 64;
  if (d->lx.max_depth > MAX_PATH - 8) d->lx.max_depth = MAX_PATH - 8;
  d->line = 1;
  fl_buf_init(&d->scratch);
  build_node(d, &d->root, &s->root);
  return d;
}

void js_decoder_free(js_decoder_t *d) {
  if (!d) return;
  fl_arena_free(d->arena);
  fl_buf_free(&d->scratch);
  fl_free(d);
}

void js_decoder_set_line(js_decoder_t *d, uint64_t line) {
  d->line = line ? line : 1;
  d->carry = 0;
}

size_t js_decoder_consumed(const js_decoder_t *d) { return d->consumed; }

static void push_name(js_decoder_t *d, const char *name, uint32_t len) {
  if (d->npath < MAX_PATH) d->path[d->npath++] = (path_el_t){.name = name, .len = len};
}
static void push_index(js_decoder_t *d, int64_t i) {
  if (d->npath < MAX_PATH) d->path[d->npath++] = (path_el_t){.name = NULL, .index = i};
}

static int lookup(js_decoder_t *d, js_node_t *nd, const char *k, size_t n) {
  uint32_t h = nd->hint;
  if (h < nd->nfields && nd->name_lens[h] == n && name_eq(nd->names[h], k, n, d->ci)) return (int)h;
  h = name_hash(k, n, d->ci) & nd->mask;
  while (nd->slots[h]) {
    uint32_t i = nd->slots[h] - 1;
    if (nd->name_lens[i] == n && name_eq(nd->names[i], k, n, d->ci)) return (int)i;
    h = (h + 1) & nd->mask;
  }
  return -1;
}

static const char *found_what(char c) {
  switch (c) {
    case '{': return "an object";
    case '[': return "an array";
    case '"': return "a string";
    case 't':
    case 'f': return "a boolean";
    default: return (c == '-' || (c >= '0' && c <= '9')) ? "a number" : NULL;
  }
}

static const char *expected_what(ty_kind_t k) {
  switch (k) {
    case TY_BOOLEAN: return "true or false";
    case TY_INT:
    case TY_LONG: return "an integer";
    case TY_FLOAT:
    case TY_DOUBLE:
    case TY_DECIMAL: return "a number";
    case TY_DATE: return "a date string or a day number";
    case TY_TIME:
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS: return "an ISO-8601 string or an integer count";
    case TY_STRUCT: return "an object";
    case TY_LIST: return "an array";
    case TY_MAP: return "an object or an array of {\"key\", \"value\"} objects";
    default: return "a string";
  }
}

/* A value of the wrong JSON kind (or not JSON at all) at l->p. */
static int type_error(js_lex_t *l, ty_kind_t k) {
  const char *f = found_what(*l->p);
  if (!f)
    return js__fail(l, FL_EPARSE, l->p, "unexpected character '%c'",
                    *l->p >= 0x20 && *l->p < 0x7f ? *l->p : '?');
  return js__fail(l, FL_EINVALID, l->p, "expected %s, found %s", expected_what(k), f);
}

/* A string value's text: raw, or unescaped into the scratch buffer. */
static int string_text(js_decoder_t *d, const char **s, size_t *n) {
  bool esc;
  int rc = js__scan_string(&d->lx, s, n, &esc);
  if (rc || !esc) return rc;
  fl_buf_clear(&d->scratch);
  fl_buf_reserve(&d->scratch, *n);
  size_t outn;
  rc = js__unescape(&d->lx, *s, *n, d->scratch.data, &outn);
  *s = (const char *)d->scratch.data;
  *n = outn;
  return rc;
}

static int decode_value(js_decoder_t *d, js_node_t *nd, ty_vec_t *v, bool required, uint32_t depth);

static int bad_text(js_lex_t *l, const char *at, const char *why, const char *s, size_t n) {
  char shown[48];
  size_t k = n < 40 ? n : 40;
  for (size_t i = 0; i < k; i++) shown[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
  shown[k] = '\0';
  return js__fail(l, FL_EINVALID, at, "%s, found \"%s%s\"", why, shown, n > k ? "..." : "");
}

static int decode_string(js_decoder_t *d, ty_vec_t *v, uint32_t depth) {
  js_lex_t *l = &d->lx;
  const char *start = l->p;
  if (*start != '"') {
    /* Any other JSON value keeps its text. */
    int rc = js__skip_value(l, depth);
    if (rc) return rc;
    ty_vec_append_bytes(v, start, (size_t)(l->p - start));
    return FL_OK;
  }
  const char *s;
  size_t n;
  bool esc;
  int rc = js__scan_string(l, &s, &n, &esc);
  if (rc) return rc;
  if (!esc) {
    ty_vec_append_bytes(v, s, n);
    return FL_OK;
  }
  ty_vec_reserve_heap(v, n);
  size_t outn;
  rc = js__unescape(l, s, n, v->heap + v->heap_len, &outn);
  if (rc) return rc;
  ty__vec_grow1(v);
  ty__vec_mark(v, true);
  v->heap_len += outn;
  v->offsets[v->len + 1] = (int32_t)v->heap_len;
  v->len++;
  return FL_OK;
}

static int decode_primitive(js_decoder_t *d, js_node_t *nd, ty_vec_t *v) {
  js_lex_t *l = &d->lx;
  const char *start = l->p;
  char c = *start;
  const char *s;
  size_t n;
  int rc;
  if (c == '"') {
    if ((rc = string_text(d, &s, &n))) return rc;
    const char *why = tp_append(v, s, n);
    return why ? bad_text(l, start, why, s, n) : FL_OK;
  }
  if (c == 't' || c == 'f') {
    if ((rc = js__literal(l, c == 't' ? "true" : "false", c == 't' ? 4 : 5))) return rc;
    if (nd->kind != TY_BOOLEAN) {
      l->p = start;
      return type_error(l, nd->kind);
    }
    ty_vec_append_bool(v, c == 't');
    return FL_OK;
  }
  if (c != '-' && (c < '0' || c > '9')) return type_error(l, nd->kind);
  bool is_int;
  js_num_t num;
  if ((rc = js__scan_number(l, &s, &n, &is_int, &num))) return rc;
  int64_t x;
  double f;
  switch (nd->kind) {
    case TY_LONG:
      /* The scanner collected the digits already: up to 18 fit exactly. */
      if (is_int && num.ndigits <= 18) {
        ty_vec_append_i64(v, num.neg ? -(int64_t)num.mant : (int64_t)num.mant);
        return FL_OK;
      }
      break;
    case TY_DOUBLE:
      if (tp_double_fast(num.neg, num.mant, num.ndigits, num.exp10, &f)) {
        ty_vec_append_f64(v, f);
        return FL_OK;
      }
      break;
    case TY_INT:
    case TY_FLOAT:
    case TY_DECIMAL: break;
    case TY_DATE:
      if (!is_int || !tp_parse_i64(s, n, &x) || x < INT32_MIN || x > INT32_MAX)
        return bad_text(l, start, "expected a day number in the range of int", s, n);
      ty_vec_append_i32(v, (int32_t)x);
      return FL_OK;
    case TY_TIME:
      if (!is_int || !tp_parse_i64(s, n, &x) || x < 0 || x >= FL_MICROS_PER_DAY)
        return bad_text(l, start, "expected microseconds since midnight", s, n);
      ty_vec_append_i64(v, x);
      return FL_OK;
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS:
      if (!is_int || !tp_parse_i64(s, n, &x))
        return bad_text(l, start, "expected an integer count since the epoch", s, n);
      ty_vec_append_i64(v, x);
      return FL_OK;
    default: l->p = start; return type_error(l, nd->kind);
  }
  const char *why = tp_append(v, s, n);
  return why ? bad_text(l, start, why, s, n) : FL_OK;
}

static int expect_more(js_lex_t *l, char close, const char *what, bool *done) {
  js__ws(l);
  if (l->p >= l->end) return js__fail_eof(l, what);
  if (*l->p == ',') {
    l->p++;
    *done = false;
    return FL_OK;
  }
  if (*l->p == close) {
    l->p++;
    *done = true;
    return FL_OK;
  }
  return js__fail(l, FL_EPARSE, l->p, "expected ',' or '%c' in %s", close, what);
}

/* At '{' or '[': checks depth, steps in, and tells whether it is empty. */
static int open_container(js_lex_t *l, uint32_t depth, char close, const char *what, bool *empty) {
  if (depth > l->max_depth)
    return js__fail(l, FL_EPARSE, l->p, "nesting deeper than %u levels", l->max_depth);
  l->p++;
  js__ws(l);
  if (l->p >= l->end) return js__fail_eof(l, what);
  *empty = *l->p == close;
  if (*empty) l->p++;
  return FL_OK;
}

/* a[0..n) == b[0..n) with fixed-size loads for names of up to 16 bytes
 * (overlapping loads; both sides have n readable bytes). */
static inline bool short_eq(const char *a, const char *b, size_t n) {
  uint64_t x, y, u, w;
  if (n >= 8 && n <= 16) {
    memcpy(&x, a, 8), memcpy(&y, b, 8);
    memcpy(&u, a + n - 8, 8), memcpy(&w, b + n - 8, 8);
    return ((x ^ y) | (u ^ w)) == 0;
  }
  if (n >= 4 && n < 8) {
    uint32_t x4, y4, u4, w4;
    memcpy(&x4, a, 4), memcpy(&y4, b, 4);
    memcpy(&u4, a + n - 4, 4), memcpy(&w4, b + n - 4, 4);
    return ((x4 ^ y4) | (u4 ^ w4)) == 0;
  }
  if (n < 4) {
    for (size_t i = 0; i < n; i++)
      if (a[i] != b[i]) return false;
    return true;
  }
  return memcmp(a, b, n) == 0;
}

/* Reads a member name and the ':' after it; leaves p at the value. *idx
 * is the field when the hinted name matched in place, -2 when the caller
 * must look the name up. */
static int member_name(js_decoder_t *d, js_node_t *nd, const char **k, size_t *kn, int *idx) {
  js_lex_t *l = &d->lx;
  js__ws(l);
  if (l->p >= l->end) return js__fail_eof(l, "an object");
  if (*l->p != '"') return js__fail(l, FL_EPARSE, l->p, "expected a member name in quotes");
  *idx = -2;
  uint32_t h = nd ? nd->hint : UINT32_MAX;
  if (nd && h < nd->nfields && nd->fast_names[h]) {
    size_t len = nd->fast_lens[h];
    const char *p = l->p + 1;
    if ((size_t)(l->end - p) > len && p[len] == '"' && short_eq(p, nd->fast_names[h], len)) {
      *k = p;
      *kn = len;
      *idx = (int)h;
      l->p = p + len + 1;
    }
  }
  if (*idx == -2) {
    int rc = string_text(d, k, kn);
    if (rc) return rc;
  }
  js__ws(l);
  if (l->p >= l->end) return js__fail_eof(l, "an object");
  if (*l->p != ':') return js__fail(l, FL_EPARSE, l->p, "expected ':' after a member name");
  l->p++;
  return FL_OK;
}

/* A struct's members into kids (the field vectors); self, when not NULL,
 * gets the closed struct row. */
static int decode_object(js_decoder_t *d, js_node_t *nd, ty_vec_t **kids, ty_vec_t *self,
                         uint32_t depth) {
  js_lex_t *l = &d->lx;
  bool done;
  int rc = open_container(l, depth, '}', "an object", &done);
  if (rc) return rc;
  uint32_t gen = ++nd->gen;
  if (gen == 0) {
    memset(nd->seen, 0, nd->nfields * sizeof *nd->seen);
    gen = nd->gen = 1;
  }
  nd->hint = nd->first;
  bool first = true;
  while (!done) {
    const char *k;
    size_t kn;
    int idx;
    if ((rc = member_name(d, nd, &k, &kn, &idx))) return rc;
    if (idx == -2) {
      idx = nd->nfields ? lookup(d, nd, k, kn) : -1;
      if (idx >= 0 && d->ci) remember_spelling(d, nd, (uint32_t)idx, k, kn);
    }
    if (first && idx >= 0) nd->first = (uint32_t)idx;
    first = false;
    if (idx < 0) {
      if ((rc = js__skip_value(l, depth + 1))) return rc;
    } else {
      nd->hint = (uint32_t)idx + 1;
      if (nd->seen[idx] == gen) {
        js__fail(l, FL_EINVALID, l->p, "the member appears twice in one object");
        push_name(d, nd->names[idx], nd->name_lens[idx]);
        return FL_EINVALID;
      }
      nd->seen[idx] = gen;
      rc = decode_value(d, &nd->kids[idx], kids[idx], nd->required[idx], depth + 1);
      if (rc) {
        push_name(d, nd->names[idx], nd->name_lens[idx]);
        return rc;
      }
    }
    if ((rc = expect_more(l, '}', "an object", &done))) return rc;
  }
  for (uint32_t i = 0; i < nd->nfields; i++) {
    if (nd->seen[i] == gen) continue;
    if (nd->required[i] || d->fail_missing) {
      js__fail(l, FL_EINVALID, l->p - 1,
               nd->required[i] ? "required field missing" : "field missing");
      push_name(d, nd->names[i], nd->name_lens[i]);
      return FL_EINVALID;
    }
    ty_vec_append_null(kids[i]);
  }
  if (self) ty_vec_append_struct(self);
  return FL_OK;
}

static int decode_list(js_decoder_t *d, js_node_t *nd, ty_vec_t *v, uint32_t depth) {
  js_lex_t *l = &d->lx;
  bool done;
  int rc = open_container(l, depth, ']', "an array", &done);
  if (rc) return rc;
  for (int64_t i = 0; !done; i++) {
    rc = decode_value(d, &nd->kids[0], v->children[0], nd->required[0], depth + 1);
    if (rc) {
      push_index(d, i);
      return rc;
    }
    if ((rc = expect_more(l, ']', "an array", &done))) return rc;
  }
  ty_vec_append_list_end(v);
  return FL_OK;
}

static int decode_map_key(js_decoder_t *d, js_node_t *kn, ty_vec_t *kv, const char *at,
                          const char *s, size_t n) {
  if (kn->kind == TY_STRING) {
    ty_vec_append_bytes(kv, s, n);
    return FL_OK;
  }
  const char *why = tp_append(kv, s, n);
  return why ? bad_text(&d->lx, at, why, s, n) : FL_OK;
}

/* {"k": v, ...}: keys are the key type's text. */
static int decode_map_object(js_decoder_t *d, js_node_t *nd, ty_vec_t *v, uint32_t depth) {
  js_lex_t *l = &d->lx;
  bool done;
  int rc = open_container(l, depth, '}', "an object", &done);
  if (rc) return rc;
  for (int64_t i = 0; !done; i++) {
    const char *k;
    size_t kn;
    int idx;
    js__ws(l);
    const char *at = l->p;
    if ((rc = member_name(d, NULL, &k, &kn, &idx))) return rc;
    if ((rc = decode_map_key(d, &nd->kids[0], v->children[0], at, k, kn)) ||
        (rc = decode_value(d, &nd->kids[1], v->children[1], nd->required[1], depth + 1))) {
      push_index(d, i);
      return rc;
    }
    if ((rc = expect_more(l, '}', "an object", &done))) return rc;
  }
  ty_vec_append_list_end(v);
  return FL_OK;
}

/* [{"key": k, "value": v}, ...], the form for maps whose keys are not
 * strings. */
static int decode_map_array(js_decoder_t *d, js_node_t *nd, ty_vec_t *v, uint32_t depth) {
  js_lex_t *l = &d->lx;
  bool done;
  int rc = open_container(l, depth, ']', "an array", &done);
  if (rc) return rc;
  for (int64_t i = 0; !done; i++) {
    js__ws(l);
    if (l->p >= l->end) return js__fail_eof(l, "an array");
    if (*l->p != '{') {
      rc = js__fail(l, FL_EINVALID, l->p, "expected a {\"key\", \"value\"} object as a map entry");
      push_index(d, i);
      return rc;
    }
    bool edone, have_key = false, have_value = false;
    if ((rc = open_container(l, depth + 1, '}', "an object", &edone))) return rc;
    while (!edone) {
      const char *k;
      size_t kn;
      int idx;
      if ((rc = member_name(d, NULL, &k, &kn, &idx))) return rc;
      bool is_key = kn == 3 && memcmp(k, "key", 3) == 0;
      bool is_value = kn == 5 && memcmp(k, "value", 5) == 0;
      if ((is_key && have_key) || (is_value && have_value)) {
        rc = js__fail(l, FL_EINVALID, l->p, "map entry has two \"%s\" members",
                      is_key ? "key" : "value");
        push_index(d, i);
        return rc;
      }
      if (is_key) {
        have_key = true;
        rc = decode_value(d, &nd->kids[0], v->children[0], true, depth + 2);
      } else if (is_value) {
        have_value = true;
        rc = decode_value(d, &nd->kids[1], v->children[1], nd->required[1], depth + 2);
      } else {
        rc = js__skip_value(l, depth + 2);
      }
      if (rc) {
        push_index(d, i);
        return rc;
      }
      if ((rc = expect_more(l, '}', "an object", &edone))) return rc;
    }
    if (!have_key) {
      rc = js__fail(l, FL_EINVALID, l->p - 1, "map entry without a \"key\"");
      push_index(d, i);
      return rc;
    }
    if (!have_value) {
      if (nd->required[1]) {
        rc = js__fail(l, FL_EINVALID, l->p - 1, "map entry without a \"value\"");
        push_index(d, i);
        return rc;
      }
      ty_vec_append_null(v->children[1]);
    }
    if ((rc = expect_more(l, ']', "an array", &done))) return rc;
  }
  ty_vec_append_list_end(v);
  return FL_OK;
}

static int decode_value(js_decoder_t *d, js_node_t *nd, ty_vec_t *v, bool required,
                        uint32_t depth) {
  js_lex_t *l = &d->lx;
  js__ws(l);
  if (l->p >= l->end) return js__fail_eof(l, "a value");
  char c = *l->p;
  if (c == 'n') {
    const char *at = l->p;
    int rc = js__literal(l, "null", 4);
    if (rc) return rc;
    if (required) return js__fail(l, FL_EINVALID, at, "null for a required field");
    ty_vec_append_null(v);
    return FL_OK;
  }
  switch (nd->kind) {
    case TY_STRUCT:
      if (c != '{') return type_error(l, nd->kind);
      return decode_object(d, nd, v->children, v, depth);
    case TY_LIST:
      if (c != '[') return type_error(l, nd->kind);
      return decode_list(d, nd, v, depth);
    case TY_MAP:
      if (c == '{') return decode_map_object(d, nd, v, depth);
      if (c == '[') return decode_map_array(d, nd, v, depth);
      return type_error(l, nd->kind);
    case TY_STRING: return decode_string(d, v, depth);
    default: return decode_primitive(d, nd, v);
  }
}

/*
 * The flat path: a compact object ({"a":1,"b":"x"}, no whitespace) whose
 * members come in the order of the last objects (the hints) and hold
 * integers, strings without escapes or null, read with the cursor in a
 * register and no lexer state. It only takes what decode_object would
 * decode the same way; anything else (whitespace, another member order,
 * an escape, a fraction, a nested value, a value decode_object would
 * reject) undoes the row and returns false, and the general path decodes
 * the object (and words any error). Producers of events write exactly
 * this shape, so most messages never reach the lexer.
 */
bool js_decode_flat(js_decoder_t *d, const char *p, size_t n, ty_batch_t *b) {
  js_node_t *nd = &d->root;
  uint32_t nf = nd->nfields;
  if (nf == 0 || b->ncols != nf || n < 2 || p[0] != '{') return false;
  uint32_t rows0 = b->cols[0]->len;
  if (rows0 >= TY_BATCH_ROWS) return false;
  const char *q = p + 1, *end = p + n;
  uint32_t first = nd->first, i = first;
  for (;;) {
    if (i >= nf || !nd->fast_names[i]) goto undo;
    size_t len = nd->fast_lens[i];
    /* "name": and at least one byte of the value */
    if ((size_t)(end - q) < len + 4 || q[0] != '"' || q[len + 1] != '"' || q[len + 2] != ':' ||
        !short_eq(q + 1, nd->fast_names[i], len))
      goto undo;
    q += len + 3;
    ty_vec_t *v = b->cols[i];
    ty_kind_t kind = nd->kids[i].kind;
    char c = *q;
    if (c == '"') {
      if (kind == TY_STRUCT || kind == TY_LIST || kind == TY_MAP) goto undo;
      const char *s = q + 1, *e = js__plain_string_end(s, end);
      if (!e) goto undo;
      if (kind == TY_STRING)
        ty_vec_append_bytes(v, s, (size_t)(e - s));
      else if (tp_append(v, s, (size_t)(e - s)))
        goto undo;
      q = e + 1;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      if (kind != TY_LONG && kind != TY_INT) goto undo;
      bool neg = c == '-';
      const char *s = q + neg, *digits = s;
      uint64_t m = 0;
      for (unsigned dg; s < end && (dg = (unsigned)(*s - '0')) <= 9; s++) m = m * 10 + dg;
      size_t nd_digits = (size_t)(s - digits);
      /* 18 digits fit; JSON allows no leading zero; a fraction or an
       * exponent goes to the general path */
      if (nd_digits == 0 || nd_digits > 18 || (digits[0] == '0' && nd_digits > 1)) goto undo;
      int64_t x = neg ? -(int64_t)m : (int64_t)m;
      if (kind == TY_INT) {
        if (x < INT32_MIN || x > INT32_MAX) goto undo;
        ty_vec_append_i32(v, (int32_t)x);
      } else {
        ty_vec_append_i64(v, x);
      }
      q = s;
    } else if (c == 'n' && end - q >= 4 && memcmp(q, "null", 4) == 0 && !nd->required[i]) {
      ty_vec_append_null(v);
      q += 4;
    } else {
      goto undo;
    }
    i++;
    if (q >= end) goto undo;
    if (*q == ',') {
      q++;
      continue;
    }
    if (*q != '}') goto undo;
    q++;
    break;
  }
  for (; q < end; q++)
    if (*q != ' ' && *q != '\t' && *q != '\r' && *q != '\n') goto undo;
  /* The members were fields first..i-1; the others are missing. */
  for (uint32_t f = 0; f < nf; f++) {
    if (f >= first && f < i) continue;
    if (nd->required[f] || d->fail_missing) goto undo;
    ty_vec_append_null(b->cols[f]);
  }
  b->nrows = rows0 + 1;
  return true;
undo:
  for (uint32_t c = 0; c < b->ncols; c++) tp_vec_truncate(b->cols[c], rows0);
  return false;
}

static void format_path(js_decoder_t *d, char *out, size_t cap) {
  size_t o = 0;
  out[0] = '\0';
  for (uint32_t k = d->npath; k-- > 0 && o + 1 < cap;) {
    const path_el_t *e = &d->path[k];
    int w;
    if (e->name)
      w = snprintf(out + o, cap - o, "%s%.*s", o ? "." : "", (int)e->len, e->name);
    else
      w = snprintf(out + o, cap - o, "[%lld]", (long long)e->index);
    if (w < 0) break;
    o += (size_t)w;
    if (o >= cap) o = cap - 1;
  }
}

int js_decode_chunk(js_decoder_t *d, const char *p, size_t n, bool more, ty_batch_t *b,
                    size_t *consumed, fl_err_t *err) {
  js_lex_t *l = &d->lx;
  l->base = l->p = p;
  l->end = p + n;
  l->line = d->line;
  l->line_off = d->carry;
  l->ecode = 0;
  l->eof = false;
  uint32_t rows = b->ncols ? b->cols[0]->len : b->nrows;
  int rc = FL_OK;
  const char *stop = p;
  for (;;) {
    js__ws(l);
    stop = l->p;
    if (l->p >= l->end || rows >= TY_BATCH_ROWS) break;
    uint64_t line0 = l->line;
    ptrdiff_t off0 = l->line_off;
    d->npath = 0;
    if (*l->p != '{')
      rc = js__fail(l, FL_EPARSE, l->p, "expected a JSON object at the start of a row");
    else
      rc = decode_object(d, &d->root, b->cols, NULL, 1);
    if (rc) {
      for (uint32_t c = 0; c < b->ncols; c++) tp_vec_truncate(b->cols[c], rows);
      if (l->eof && more) {
        rc = FL_OK;
        l->line = line0;
        l->line_off = off0;
        break;
      }
      char path[512];
      format_path(d, path, sizeof path);
      js__eof_at_row(l, stop, line0, off0);
      js__report(l, path, err);
      l->line = line0;
      l->line_off = off0;
      break;
    }
    rows++;
  }
  d->consumed = (size_t)(stop - p);
  if (consumed) *consumed = d->consumed;
  d->line = l->line;
  d->carry = l->line_off - (ptrdiff_t)d->consumed;
  b->nrows = rows;
  return rc;
}

int js_decode(js_decoder_t *d, const char *p, size_t n, ty_batch_t *b, fl_err_t *err) {
  return js_decode_chunk(d, p, n, false, b, NULL, err);
}
