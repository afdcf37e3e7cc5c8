/*
 * pq_schema_read.c - maps a Parquet schema onto an Iceberg schema (layer 4,
 * format/parquet).
 *
 * The footer lists schema elements depth first; they are first rebuilt
 * into a tree, then turned into pq_node_t: structs, lists and maps with
 * their leaves, each carrying the definition and repetition levels the
 * assembler needs. Lists follow the LogicalTypes spec including its
 * backward-compatibility rules (two-level lists whose repeated group has
 * several fields or is named "array" or "<list>_tuple", repeated fields
 * without a LIST annotation as required lists of required elements);
 * maps accept MAP and MAP_KEY_VALUE, and a map without a value field
 * reads as a list of its keys.
 *
 * Unsigned 64-bit integers become long; a value above INT64_MAX fails the
 * read with FL_EUNSUPPORTED rather than wrapping (decimal(20,0) would be
 * exact but surprises every engine that reads the data back as long).
 */
#include <string.h>

#include "format/parquet/pq_int.h"

#define PQ_MAX_SCHEMA_DEPTH 64

typedef struct rnode rnode_t;
struct rnode {
  const pq_schema_element_t *el;
  uint32_t n;
  rnode_t *kids;
};

typedef struct bld {
  fl_arena_t *a;
  fl_err_t *err;
  const pq_file_meta_t *m;
  uint32_t next_el;
  pq_node_t **leaves;
  uint32_t nleaves, cap_leaves;
} bld_t;

static int raw_tree(bld_t *b, rnode_t *out, int depth) {
  if (depth > PQ_MAX_SCHEMA_DEPTH)
    return fl_err_set(b->err, FL_ECORRUPT, "parquet schema nests deeper than %d levels",
                      PQ_MAX_SCHEMA_DEPTH);
  if (b->next_el >= b->m->nschema)
    return fl_err_set(b->err, FL_ECORRUPT, "parquet schema: num_children exceeds the elements");
  const pq_schema_element_t *el = &b->m->schema[b->next_el++];
  out->el = el;
  out->n = 0;
  out->kids = NULL;
  bool group = el->has_num_children && (el->num_children > 0 || !el->has_type);
  if (depth == 0) group = true;
  if (!group) {
    if (!el->has_type)
      return fl_err_set(b->err, FL_ECORRUPT, "parquet schema: column '%s' has no type", el->name);
    return FL_OK;
  }
  uint32_t n = el->has_num_children ? (uint32_t)el->num_children : 0;
  if (n > b->m->nschema - b->next_el)
    return fl_err_set(b->err, FL_ECORRUPT, "parquet schema: '%s' claims %u children, %u elements remain",
                      el->name, n, b->m->nschema - b->next_el);
  out->n = n;
  out->kids = fl_arena_zalloc(b->a, (n ? n : 1) * sizeof *out->kids);
  for (uint32_t i = 0; i < n; i++) {
    int rc = raw_tree(b, &out->kids[i], depth + 1);
    if (rc) return rc;
  }
  return FL_OK;
}

static bool is_group(const rnode_t *r) { return r->kids != NULL; }

static pq_node_t *node_new(bld_t *b, pq_node_kind_t kind, const rnode_t *r, int16_t def,
                           int16_t ctx_def, int16_t ctx_rep) {
  pq_node_t *n = fl_arena_zalloc(b->a, sizeof *n);
  n->kind = kind;
  n->el = r->el;
  n->field.id = r->el->has_field_id ? r->el->field_id : -1;
  n->field.name = r->el->name;
  n->field.required = true;
  n->def = def;
  n->ctx_def = ctx_def;
  n->ctx_rep = ctx_rep;
  n->leaf = -1;
  n->first_leaf = -1;
  return n;
}

static int field_node(bld_t *b, const rnode_t *r, int16_t ctx_def, int16_t ctx_rep, int16_t pdef,
                      int16_t prep, const char *path, pq_node_t **out);

static int set_children(bld_t *b, pq_node_t *n, uint32_t count) {
  n->nchildren = count;
  n->children = fl_arena_zalloc(b->a, (count ? count : 1) * sizeof *n->children);
  return FL_OK;
}

static int leaf_type(bld_t *b, pq_node_t *n) {
  const pq_schema_element_t *el = n->el;
  const pq_logical_type_t *lt = el->has_logical_type ? &el->logical_type : NULL;
  pq_type_t pt = el->type;
  n->ptype = pt;
  n->type_length = el->type_length;
  n->conv = PQ_CV_COPY;
  const ty_type_t *t = NULL;
  int lk = lt ? (int)lt->kind : PQ_LT_NONE;
  int ct = el->has_converted_type ? (int)el->converted_type : -1;
  if (pt == PQ_FIXED_LEN_BYTE_ARRAY && (el->type_length <= 0 || el->type_length > (1 << 20)))
    return fl_err_set(b->err, FL_ECORRUPT, "column '%s': FIXED_LEN_BYTE_ARRAY of length %d", n->path,
                      el->type_length);

  /* Decimal first: it applies to four physical types. */
  if (lk == PQ_LT_DECIMAL || (lk == PQ_LT_NONE && ct == PQ_CT_DECIMAL)) {
    int prec = lk == PQ_LT_DECIMAL ? lt->decimal_precision : el->precision;
    int scale = lk == PQ_LT_DECIMAL ? lt->decimal_scale : el->scale;
    if (prec < 1 || prec > 38 || scale < 0 || scale > prec)
      return fl_err_set(b->err, FL_EUNSUPPORTED, "column '%s': decimal(%d,%d) is outside decimal(38)",
                        n->path, prec, scale);
    t = ty_decimal(b->a, prec, scale);
    switch (pt) {
      case PQ_INT32: n->conv = PQ_CV_I32_DEC; break;
      case PQ_INT64: n->conv = PQ_CV_I64_DEC; break;
      case PQ_FIXED_LEN_BYTE_ARRAY:
        if (el->type_length > 16)
          return fl_err_set(b->err, FL_EUNSUPPORTED, "column '%s': decimal in %d bytes", n->path,
                            el->type_length);
        n->conv = PQ_CV_BE_DEC;
        break;
      case PQ_BYTE_ARRAY: n->conv = PQ_CV_BE_DEC; break;
      default:
        return fl_err_set(b->err, FL_ECORRUPT, "column '%s': decimal on %s", n->path,
                          pq_type_name(pt));
    }
    n->field.type = t;
    return FL_OK;
  }
  switch (pt) {
    case PQ_BOOLEAN: t = ty_primitive(TY_BOOLEAN); break;
    case PQ_INT32:
      t = ty_primitive(TY_INT);
      if (lk == PQ_LT_DATE || (lk == PQ_LT_NONE && ct == PQ_CT_DATE)) {
        t = ty_primitive(TY_DATE);
      } else if ((lk == PQ_LT_TIME && lt->unit == PQ_MILLIS) ||
                 (lk == PQ_LT_NONE && ct == PQ_CT_TIME_MILLIS)) {
        t = ty_primitive(TY_TIME);
        n->conv = PQ_CV_I32_X1000;
      } else if ((lk == PQ_LT_INTEGER && !lt->int_is_signed && lt->int_bit_width == 32) ||
                 (lk == PQ_LT_NONE && ct == PQ_CT_UINT_32)) {
        t = ty_primitive(TY_LONG);
        n->conv = PQ_CV_U32;
      }
      break;
    case PQ_INT64:
      t = ty_primitive(TY_LONG);
      if (lk == PQ_LT_TIMESTAMP) {
        bool utc = lt->is_adjusted_to_utc;
        if (lt->unit == PQ_NANOS) {
          t = ty_primitive(utc ? TY_TIMESTAMPTZ_NS : TY_TIMESTAMP_NS);
        } else {
          t = ty_primitive(utc ? TY_TIMESTAMPTZ : TY_TIMESTAMP);
          if (lt->unit == PQ_MILLIS) n->conv = PQ_CV_I64_X1000;
        }
      } else if (lk == PQ_LT_NONE && (ct == PQ_CT_TIMESTAMP_MILLIS || ct == PQ_CT_TIMESTAMP_MICROS)) {
        t = ty_primitive(TY_TIMESTAMPTZ);
        if (ct == PQ_CT_TIMESTAMP_MILLIS) n->conv = PQ_CV_I64_X1000;
      } else if (lk == PQ_LT_TIME || (lk == PQ_LT_NONE && ct == PQ_CT_TIME_MICROS)) {
        t = ty_primitive(TY_TIME);
        if (lk == PQ_LT_TIME && lt->unit == PQ_NANOS) n->conv = PQ_CV_I64_D1000;
        if (lk == PQ_LT_TIME && lt->unit == PQ_MILLIS) n->conv = PQ_CV_I64_X1000;
      } else if ((lk == PQ_LT_INTEGER && !lt->int_is_signed) ||
                 (lk == PQ_LT_NONE && ct == PQ_CT_UINT_64)) {
        n->conv = PQ_CV_U64;
      }
      break;
    case PQ_INT96:
      t = ty_primitive(TY_TIMESTAMPTZ);
      n->conv = PQ_CV_INT96;
      break;
    case PQ_FLOAT: t = ty_primitive(TY_FLOAT); break;
    case PQ_DOUBLE: t = ty_primitive(TY_DOUBLE); break;
    case PQ_BYTE_ARRAY:
      n->conv = PQ_CV_BYTES;
      if (lk == PQ_LT_STRING || lk == PQ_LT_ENUM || lk == PQ_LT_JSON ||
          (lk == PQ_LT_NONE && (ct == PQ_CT_UTF8 || ct == PQ_CT_ENUM || ct == PQ_CT_JSON)))
        t = ty_primitive(TY_STRING);
      else
        t = ty_primitive(TY_BINARY);
      break;
    case PQ_FIXED_LEN_BYTE_ARRAY:
      if (lk == PQ_LT_UUID && el->type_length == 16) {
        t = ty_primitive(TY_UUID);
      } else if (lk == PQ_LT_FLOAT16 && el->type_length == 2) {
        t = ty_primitive(TY_FLOAT);
        n->conv = PQ_CV_F16;
      } else {
        t = ty_fixed(b->a, el->type_length);
      }
      break;
  }
  if (!t) return fl_err_set(b->err, FL_ECORRUPT, "column '%s': unknown physical type", n->path);
  n->field.type = t;
  return FL_OK;
}

/* Builds the node for element r whose own levels are (def, rep): the
 * repetition of r itself has already been accounted for by the caller. */
static int build(bld_t *b, const rnode_t *r, int16_t ctx_def, int16_t ctx_rep, int16_t def,
                 int16_t rep, const char *path, pq_node_t **out) {
  const pq_schema_element_t *el = r->el;
  int rc;
  if (!is_group(r)) {
    pq_node_t *n = node_new(b, PQ_NODE_LEAF, r, def, ctx_def, ctx_rep);
    n->max_def = def;
    n->max_rep = rep;
    n->path = path;
    n->leaf = (int32_t)b->nleaves;
    n->first_leaf = n->leaf;
    if ((rc = leaf_type(b, n))) return rc;
    if (b->nleaves == b->cap_leaves) {
      uint32_t cap = b->cap_leaves ? b->cap_leaves * 2 : 16;
      pq_node_t **nl = fl_arena_alloc(b->a, cap * sizeof *nl);
      if (b->nleaves) memcpy(nl, b->leaves, b->nleaves * sizeof *nl);
      b->leaves = nl;
      b->cap_leaves = cap;
    }
    b->leaves[b->nleaves++] = n;
    *out = n;
    return FL_OK;
  }
  int lk = el->has_logical_type ? (int)el->logical_type.kind : PQ_LT_NONE;
  int ct = el->has_converted_type ? (int)el->converted_type : -1;
  bool is_list = lk == PQ_LT_LIST || (lk == PQ_LT_NONE && ct == PQ_CT_LIST);
  bool is_map = lk == PQ_LT_MAP || (lk == PQ_LT_NONE && (ct == PQ_CT_MAP || ct == PQ_CT_MAP_KEY_VALUE));
  if ((is_list || is_map) && r->n == 1 && r->kids[0].el->repetition == PQ_REPEATED) {
    const rnode_t *c = &r->kids[0];
    int16_t cdef = (int16_t)(def + 1), crep = (int16_t)(rep + 1);
    const char *cpath = fl_arena_sprintf(b->a, "%s.%s", path, c->el->name);
    if (is_map && is_group(c) && (c->n == 2 || c->n == 1)) {
      pq_node_t *k, *v = NULL;
      const char *kpath = fl_arena_sprintf(b->a, "%s.%s", cpath, c->kids[0].el->name);
      if ((rc = field_node(b, &c->kids[0], cdef, crep, cdef, crep, kpath, &k))) return rc;
      if (c->n == 1) {
        /* A map without values: the list of its keys. */
        pq_node_t *n = node_new(b, PQ_NODE_LIST, r, def, ctx_def, ctx_rep);
        set_children(b, n, 1);
        k->field.name = "element";
        n->children[0] = k;
        n->first_leaf = k->first_leaf;
        *out = n;
        return FL_OK;
      }
      const char *vpath = fl_arena_sprintf(b->a, "%s.%s", cpath, c->kids[1].el->name);
      if ((rc = field_node(b, &c->kids[1], cdef, crep, cdef, crep, vpath, &v))) return rc;
      if (k->kind != PQ_NODE_LEAF && k->kind != PQ_NODE_STRUCT)
        return fl_err_set(b->err, FL_EUNSUPPORTED, "column '%s': map key is a list or map", path);
      pq_node_t *n = node_new(b, PQ_NODE_MAP, r, def, ctx_def, ctx_rep);
      set_children(b, n, 2);
      k->field.name = "key";
      k->field.required = true;
      v->field.name = "value";
      n->children[0] = k;
      n->children[1] = v;
      n->first_leaf = k->first_leaf;
      *out = n;
      return FL_OK;
    }
    if (is_list) {
      pq_node_t *e;
      bool two_level = !is_group(c) || c->n > 1 || strcmp(c->el->name, "array") == 0 ||
                       (strlen(c->el->name) == strlen(el->name) + 6 &&
                        strncmp(c->el->name, el->name, strlen(el->name)) == 0 &&
                        strcmp(c->el->name + strlen(el->name), "_tuple") == 0);
      if (two_level) {
        if ((rc = build(b, c, cdef, crep, cdef, crep, cpath, &e))) return rc;
        e->field.required = true;
      } else {
        const char *epath = fl_arena_sprintf(b->a, "%s.%s", cpath, c->kids[0].el->name);
        if ((rc = field_node(b, &c->kids[0], cdef, crep, cdef, crep, epath, &e))) return rc;
      }
      pq_node_t *n = node_new(b, PQ_NODE_LIST, r, def, ctx_def, ctx_rep);
      set_children(b, n, 1);
      e->field.name = "element";
      n->children[0] = e;
      n->first_leaf = e->first_leaf;
      *out = n;
      return FL_OK;
    }
  }
  /* A plain group: a struct. */
  if (r->n == 0)
    return fl_err_set(b->err, FL_EUNSUPPORTED, "column '%s': empty group", path);
  pq_node_t *n = node_new(b, PQ_NODE_STRUCT, r, def, ctx_def, ctx_rep);
  set_children(b, n, r->n);
  for (uint32_t i = 0; i < r->n; i++) {
    const char *kpath = path[0] ? fl_arena_sprintf(b->a, "%s.%s", path, r->kids[i].el->name)
                                : r->kids[i].el->name;
    if ((rc = field_node(b, &r->kids[i], ctx_def, ctx_rep, def, rep, kpath, &n->children[i])))
      return rc;
  }
  n->first_leaf = n->children[0]->first_leaf;
  *out = n;
  return FL_OK;
}

/* A field in a group: applies r's own repetition to the parent's levels. */
static int field_node(bld_t *b, const rnode_t *r, int16_t ctx_def, int16_t ctx_rep, int16_t pdef,
                      int16_t prep, const char *path, pq_node_t **out) {
  pq_repetition_t rp = r->el->has_repetition ? r->el->repetition : PQ_REQUIRED;
  int16_t def = (int16_t)(pdef + (rp != PQ_REQUIRED));
  int16_t rep = (int16_t)(prep + (rp == PQ_REPEATED));
  int rc;
  if (rp == PQ_REPEATED) {
    /* Repeated without a LIST around it: a required list of required elements. */
    pq_node_t *e;
    if ((rc = build(b, r, def, rep, def, rep, path, &e))) return rc;
    e->field.required = true;
    e->field.id = -1;
    e->field.name = "element";
    pq_node_t *n = node_new(b, PQ_NODE_LIST, r, pdef, ctx_def, ctx_rep);
    set_children(b, n, 1);
    n->children[0] = e;
    n->first_leaf = e->first_leaf;
    n->field.required = true;
    *out = n;
    return FL_OK;
  }
  if ((rc = build(b, r, ctx_def, ctx_rep, def, rep, path, out))) return rc;
  (*out)->field.required = rp == PQ_REQUIRED;
  return FL_OK;
}

static void max_id(const pq_node_t *n, int32_t *m) {
  for (uint32_t i = 0; i < n->nchildren; i++) {
    if (n->children[i]->field.id > *m) *m = n->children[i]->field.id;
    max_id(n->children[i], m);
  }
}

static void fresh_ids(pq_node_t *n, int32_t *next) {
  for (uint32_t i = 0; i < n->nchildren; i++)
    if (n->children[i]->field.id < 0) n->children[i]->field.id = (*next)++;
  for (uint32_t i = 0; i < n->nchildren; i++) fresh_ids(n->children[i], next);
}

static void finish_types(bld_t *b, pq_node_t *n) {
  for (uint32_t i = 0; i < n->nchildren; i++) finish_types(b, n->children[i]);
  switch (n->kind) {
    case PQ_NODE_LEAF: return;
    case PQ_NODE_STRUCT: {
      ty_field_t *f = fl_arena_alloc(b->a, (n->nchildren ? n->nchildren : 1) * sizeof *f);
      for (uint32_t i = 0; i < n->nchildren; i++) f[i] = n->children[i]->field;
      n->field.type = ty_struct_new(b->a, f, n->nchildren);
      return;
    }
    case PQ_NODE_LIST: {
      const pq_node_t *e = n->children[0];
      n->field.type = ty_list_new(b->a, e->field.id, e->field.required, e->field.type);
      return;
    }
    case PQ_NODE_MAP: {
      const pq_node_t *k = n->children[0], *v = n->children[1];
      n->field.type = ty_map_new(b->a, k->field.id, k->field.type, v->field.id, v->field.required,
                                 v->field.type);
      return;
    }
  }
}

int pq__schema_from_file(fl_arena_t *a, const pq_file_meta_t *m, pq_schema_t **out, fl_err_t *err) {
  bld_t b = {.a = a, .err = err, .m = m};
  rnode_t root;
  int rc = raw_tree(&b, &root, 0);
  if (rc) return rc;
  if (b.next_el != m->nschema)
    return fl_err_set(err, FL_ECORRUPT, "parquet schema: %u elements, the tree uses %u", m->nschema,
                      b.next_el);
  pq_schema_t *s = fl_arena_zalloc(a, sizeof *s);
  s->root.kind = PQ_NODE_STRUCT;
  s->root.el = root.el;
  s->root.first_leaf = -1;
  s->root.nchildren = root.n;
  s->root.children = fl_arena_zalloc(a, (root.n ? root.n : 1) * sizeof *s->root.children);
  for (uint32_t i = 0; i < root.n; i++) {
    rc = field_node(&b, &root.kids[i], 0, 0, 0, 0, root.kids[i].el->name, &s->root.children[i]);
    if (rc) return rc;
  }
  int32_t next = 0;
  max_id(&s->root, &next);
  next++;
  fresh_ids(&s->root, &next);
  finish_types(&b, &s->root);
  ty_field_t *f = fl_arena_alloc(a, (root.n ? root.n : 1) * sizeof *f);
  for (uint32_t i = 0; i < root.n; i++) f[i] = s->root.children[i]->field;
  s->schema = ty_schema_new(a, 0, f, root.n);
  s->nleaves = b.nleaves;
  s->leaves = b.leaves;
  *out = s;
  return FL_OK;
}

static bool id_listed(int32_t id, const int32_t *ids, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (ids[i] == id) return true;
  return false;
}

bool pq__node_has_id(const pq_node_t *n, int32_t id) {
  if (n->field.id == id) return true;
  for (uint32_t i = 0; i < n->nchildren; i++)
    if (pq__node_has_id(n->children[i], id)) return true;
  return false;
}

/* Rebuilds the type of a copied node from its (final) children. */
static void own_type(fl_arena_t *a, pq_node_t *n) {
  uint32_t nc = n->nchildren;
  pq_node_t **kids = n->children;
  switch (n->kind) {
    case PQ_NODE_STRUCT: {
      ty_field_t *f = fl_arena_alloc(a, (nc ? nc : 1) * sizeof *f);
      for (uint32_t i = 0; i < nc; i++) f[i] = kids[i]->field;
      n->field.type = ty_struct_new(a, f, nc);
      break;
    }
    case PQ_NODE_LIST:
      n->field.type = ty_list_new(a, kids[0]->field.id, kids[0]->field.required, kids[0]->field.type);
      break;
    case PQ_NODE_MAP:
      n->field.type = ty_map_new(a, kids[0]->field.id, kids[0]->field.type, kids[1]->field.id,
                                 kids[1]->field.required, kids[1]->field.type);
      break;
    case PQ_NODE_LEAF: break;
  }
}

const pq_node_t *pq__node_prune(fl_arena_t *a, const pq_node_t *n, const int32_t *ids, uint32_t nids) {
  if (id_listed(n->field.id, ids, nids)) return n;
  if (n->kind == PQ_NODE_LEAF) return NULL;
  pq_node_t *c = fl_arena_memdup(a, n, sizeof *n);
  c->children = fl_arena_zalloc(a, (n->nchildren ? n->nchildren : 1) * sizeof *c->children);
  uint32_t k = 0;
  if (n->kind == PQ_NODE_STRUCT) {
    for (uint32_t i = 0; i < n->nchildren; i++) {
      const pq_node_t *p = pq__node_prune(a, n->children[i], ids, nids);
      if (p) c->children[k++] = (pq_node_t *)p;
    }
    if (k == 0) return NULL;
  } else if (n->kind == PQ_NODE_LIST) {
    const pq_node_t *p = pq__node_prune(a, n->children[0], ids, nids);
    if (!p) return NULL;
    c->children[k++] = (pq_node_t *)p;
  } else {
    /* Maps keep their whole key and prune the value. */
    const pq_node_t *pk = pq__node_prune(a, n->children[0], ids, nids);
    const pq_node_t *pv = pq__node_prune(a, n->children[1], ids, nids);
    if (!pk && !pv) return NULL;
    c->children[k++] = n->children[0];
    c->children[k++] = (pq_node_t *)(pv ? pv : n->children[1]);
  }
  c->nchildren = k;
  c->first_leaf = c->children[0]->first_leaf;
  own_type(a, c);
  return c;
}
