/*
 * json_infer.c - schema inference from sample JSON objects (see
 * js_infer_schema in json_decoder.h for the rules).
 *
 * Each sampled value is folded into a tree of inference nodes that record
 * which JSON kinds a field has held, the AND of the text classes of its
 * strings, its members in first-seen order (objects) and its merged
 * element (arrays). The tree lives in a scratch arena; the resulting types
 * are built in the caller's arena.
 */
#include "format/json/json_decoder.h"

#include "base/alloc.h"
#include "format/json/json_int.h"
#include "format/text_parse.h"

enum { IK_NULL = 1, IK_BOOL = 2, IK_INT = 4, IK_FLOAT = 8, IK_STRING = 16, IK_OBJECT = 32, IK_ARRAY = 64 };

typedef struct inode inode_t;
struct inode {
  unsigned kinds;
  unsigned classes; /* AND of tp_classify over the strings */
  uint32_t nf, capf, hint;
  char **names;
  inode_t **fields;
  inode_t *elem;
};

typedef struct infer {
  fl_arena_t *tmp;
  js_lex_t lx;
  fl_buf_t scratch;
} infer_t;

static inode_t *member(infer_t *in, inode_t *nd, const char *k, size_t n) {
  for (uint32_t t = 0; t < nd->nf; t++) {
    uint32_t i = (nd->hint + t) % nd->nf;
    if (strlen(nd->names[i]) == n && memcmp(nd->names[i], k, n) == 0) {
      nd->hint = i + 1;
      return nd->fields[i];
    }
  }
  if (nd->nf == nd->capf) {
    uint32_t cap = nd->capf ? nd->capf * 2 : 8;
    char **names = fl_arena_alloc(in->tmp, cap * sizeof *names);
    inode_t **fields = fl_arena_alloc(in->tmp, cap * sizeof *fields);
    if (nd->nf) {
      memcpy(names, nd->names, nd->nf * sizeof *names);
      memcpy(fields, nd->fields, nd->nf * sizeof *fields);
    }
    nd->names = names;
    nd->fields = fields;
    nd->capf = cap;
  }
  nd->names[nd->nf] = fl_arena_strndup(in->tmp, k, n);
  nd->fields[nd->nf] = fl_arena_zalloc(in->tmp, sizeof(inode_t));
  nd->hint = nd->nf + 1;
  return nd->fields[nd->nf++];
}

static int text(infer_t *in, const char **s, size_t *n) {
  bool esc;
  int rc = js__scan_string(&in->lx, s, n, &esc);
  if (rc || !esc) return rc;
  fl_buf_clear(&in->scratch);
  fl_buf_reserve(&in->scratch, *n);
  size_t outn;
  rc = js__unescape(&in->lx, *s, *n, in->scratch.data, &outn);
  *s = (const char *)in->scratch.data;
  *n = outn;
  return rc;
}

static int infer_value(infer_t *in, inode_t *nd, uint32_t depth);

static int infer_container(infer_t *in, inode_t *nd, uint32_t depth, bool object) {
  js_lex_t *l = &in->lx;
  char close = object ? '}' : ']';
  const char *what = object ? "an object" : "an array";
  if (depth > l->max_depth) return js__fail(l, FL_EPARSE, l->p, "nesting deeper than %u levels", l->max_depth);
  nd->kinds |= object ? IK_OBJECT : IK_ARRAY;
  l->p++;
  js__ws(l);
  if (l->p >= l->end) return js__fail_eof(l, what);
  if (*l->p == close) {
    l->p++;
    return FL_OK;
  }
  for (;;) {
    int rc;
    inode_t *child;
    if (object) {
      js__ws(l);
      if (l->p >= l->end) return js__fail_eof(l, what);
      if (*l->p != '"') return js__fail(l, FL_EPARSE, l->p, "expected a member name in quotes");
      const char *k;
      size_t kn;
      if ((rc = text(in, &k, &kn))) return rc;
      child = member(in, nd, k, kn);
      js__ws(l);
      if (l->p >= l->end) return js__fail_eof(l, what);
      if (*l->p != ':') return js__fail(l, FL_EPARSE, l->p, "expected ':' after a member name");
      l->p++;
    } else {
      if (!nd->elem) nd->elem = fl_arena_zalloc(in->tmp, sizeof(inode_t));
      child = nd->elem;
    }
    if ((rc = infer_value(in, child, depth + 1))) return rc;
    js__ws(l);
    if (l->p >= l->end) return js__fail_eof(l, what);
    if (*l->p == ',') {
      l->p++;
      continue;
    }
    if (*l->p == close) {
      l->p++;
      return FL_OK;
    }
    return js__fail(l, FL_EPARSE, l->p, "expected ',' or '%c' in %s", close, what);
  }
}

static int infer_value(infer_t *in, inode_t *nd, uint32_t depth) {
  js_lex_t *l = &in->lx;
  js__ws(l);
  if (l->p >= l->end) return js__fail_eof(l, "a value");
  const char *s;
  size_t n;
  bool is_int;
  int rc;
  switch (*l->p) {
    case 'n': nd->kinds |= IK_NULL; return js__literal(l, "null", 4);
    case 't': nd->kinds |= IK_BOOL; return js__literal(l, "true", 4);
    case 'f': nd->kinds |= IK_BOOL; return js__literal(l, "false", 5);
    case '{': return infer_container(in, nd, depth, true);
    case '[': return infer_container(in, nd, depth, false);
    case '"': {
      if ((rc = text(in, &s, &n))) return rc;
      unsigned c = tp_classify(s, n) & (TP_DATE | TP_TIMESTAMP | TP_TIMESTAMPTZ);
      nd->classes = (nd->kinds & IK_STRING) ? (nd->classes & c) : c;
      nd->kinds |= IK_STRING;
      return FL_OK;
    }
    default:
      if ((rc = js__scan_number(l, &s, &n, &is_int, NULL))) return rc;
      if (is_int) {
        int64_t x;
        nd->kinds |= tp_parse_i64(s, n, &x) ? IK_INT : IK_FLOAT;
      } else {
        nd->kinds |= IK_FLOAT;
      }
      return FL_OK;
  }
}

/* Builds the type of an inference node (ids assigned afterwards). */
static const ty_type_t *to_type(fl_arena_t *a, const inode_t *nd) {
  unsigned k = nd->kinds & ~(unsigned)IK_NULL;
  switch (k) {
    case IK_BOOL: return ty_primitive(TY_BOOLEAN);
    case IK_INT: return ty_primitive(TY_LONG);
    case IK_FLOAT:
    case IK_INT | IK_FLOAT: return ty_primitive(TY_DOUBLE);
    case IK_STRING:
      if (nd->classes & TP_DATE) return ty_primitive(TY_DATE);
      if (nd->classes & TP_TIMESTAMP) return ty_primitive(TY_TIMESTAMP);
      if (nd->classes & TP_TIMESTAMPTZ) return ty_primitive(TY_TIMESTAMPTZ);
      return ty_primitive(TY_STRING);
    case IK_OBJECT: {
      if (!nd->nf) return ty_primitive(TY_STRING);
      ty_type_t *t = fl_arena_zalloc(a, sizeof *t);
      t->kind = TY_STRUCT;
      t->nfields = nd->nf;
      t->fields = fl_arena_zalloc(a, nd->nf * sizeof *t->fields);
      for (uint32_t i = 0; i < nd->nf; i++) {
        t->fields[i].name = fl_arena_strdup(a, nd->names[i]);
        t->fields[i].type = to_type(a, nd->fields[i]);
      }
      return t;
    }
    case IK_ARRAY: {
      ty_type_t *t = fl_arena_zalloc(a, sizeof *t);
      t->kind = TY_LIST;
      t->nfields = 1;
      t->fields = fl_arena_zalloc(a, sizeof *t->fields);
      t->fields[0].name = "element";
      t->fields[0].type = nd->elem ? to_type(a, nd->elem) : ty_primitive(TY_STRING);
      return t;
    }
    default: return ty_primitive(TY_STRING);
  }
}

/* Iceberg's fresh-id order: a struct's own fields, then each one's type. */
static void assign_ids(ty_type_t *t, int32_t *next) {
  if (!ty_is_nested(t)) return;
  for (uint32_t i = 0; i < t->nfields; i++) t->fields[i].id = (*next)++;
  for (uint32_t i = 0; i < t->nfields; i++) assign_ids((ty_type_t *)t->fields[i].type, next);
}

int js__infer(const char *p, size_t n, uint32_t max_rows, bool more, fl_arena_t *a,
              ty_schema_t **out, uint32_t *rows_out, fl_err_t *err) {
  infer_t in = {.tmp = fl_arena_new(0)};
  fl_buf_init(&in.scratch);
  js_lex_t *l = &in.lx;
  l->base = l->p = p;
  l->end = p + n;
  l->line = 1;
  l->max_depth = 64;
  inode_t root = {0};
  uint32_t rows = 0;
  int rc = FL_OK;
  for (;;) {
    js__ws(l);
    if (l->p >= l->end || (max_rows && rows >= max_rows)) break;
    const char *row = l->p;
    uint64_t line0 = l->line;
    ptrdiff_t off0 = l->line_off;
    if (*l->p != '{') {
      rc = js__fail(l, FL_EPARSE, l->p, "expected a JSON object at the start of a row");
    } else {
      /* A row cut off by the end of a chunk may have added members
       * already; they are real members of a real row, so they stay. */
      rc = infer_container(&in, &root, 1, true);
    }
    if (rc) {
      if (l->eof && more) rc = FL_OK;
      else {
        js__eof_at_row(l, row, line0, off0);
        js__report(l, NULL, err);
      }
      break;
    }
    rows++;
  }
  if (!rc) {
    const ty_type_t *t = root.nf ? to_type(a, &root) : NULL;
    ty_schema_t *s = ty_schema_new(a, 0, t ? t->fields : NULL, t ? t->nfields : 0);
    int32_t next = 1;
    assign_ids(&s->root, &next);
    *out = s;
    if (rows_out) *rows_out = rows;
  }
  fl_buf_free(&in.scratch);
  fl_arena_free(in.tmp);
  return rc;
}

int js_infer_schema(const char *p, size_t n, uint32_t max_rows, fl_arena_t *a, ty_schema_t **out,
                    fl_err_t *err) {
  return js__infer(p, n, max_rows, false, a, out, NULL, err);
}
