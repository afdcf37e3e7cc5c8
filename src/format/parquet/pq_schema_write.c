/*
 * pq_schema_write.c - Iceberg schema to Parquet schema (layer 4,
 * format/parquet, writer side).
 *
 * Each Iceberg field becomes one SchemaElement carrying its field id, with
 * the physical, logical and converted types Iceberg's Parquet mapping
 * prescribes; lists become the 3-level form
 *   <name> (LIST) { repeated group list { <element> } }
 * and maps
 *   <name> (MAP) { repeated group key_value { required key; value } }.
 * The same walk builds the tree the writer shreds values with
 * (definition and repetition levels per node) and the leaf columns.
 */
#include "format/parquet/pq_write_int.h"

#include "types/value.h"

int32_t pq__decimal_bytes(int precision) {
  fl_i128 max = ty_decimal_max(precision);
  int32_t n = 1;
  /* n bytes of two's complement hold magnitudes below 2^(8n-1). */
  while (n < 16 && (max >> (8 * n - 1)) != 0) n++;
  return n;
}

typedef struct build {
  fl_arena_t *a;
  pq_schema_element_t *elems;
  uint32_t nelems, elems_cap;
  pq__leaf_t *leaves;
  uint32_t nleaves, leaves_cap;
  const char *path[64];
  uint32_t depth;
  uint32_t top;
  fl_err_t *err;
} build_t;

static pq_schema_element_t *new_elem(build_t *b, const char *name) {
  if (b->nelems == b->elems_cap) {
    uint32_t cap = b->elems_cap ? b->elems_cap * 2 : 32;
    pq_schema_element_t *e = fl_arena_zalloc(b->a, cap * sizeof *e);
    if (b->nelems) memcpy(e, b->elems, b->nelems * sizeof *e);
    b->elems = e;
    b->elems_cap = cap;
  }
  pq_schema_element_t *e = &b->elems[b->nelems++];
  memset(e, 0, sizeof *e);
  e->name = name;
  return e;
}

static void set_primitive(pq_schema_element_t *e, const ty_type_t *t) {
  e->has_type = true;
  pq_logical_type_t *lt = &e->logical_type;
  switch (t->kind) {
    case TY_BOOLEAN: e->type = PQ_BOOLEAN; break;
    case TY_INT: e->type = PQ_INT32; break;
    case TY_LONG: e->type = PQ_INT64; break;
    case TY_FLOAT: e->type = PQ_FLOAT; break;
    case TY_DOUBLE: e->type = PQ_DOUBLE; break;
    case TY_DECIMAL:
      if (t->precision <= 9)
        e->type = PQ_INT32;
      else if (t->precision <= 18)
        e->type = PQ_INT64;
      else {
        e->type = PQ_FIXED_LEN_BYTE_ARRAY;
        e->has_type_length = true;
        e->type_length = pq__decimal_bytes(t->precision);
      }
      e->has_converted_type = e->has_scale = e->has_precision = e->has_logical_type = true;
      e->converted_type = PQ_CT_DECIMAL;
      e->scale = t->scale;
      e->precision = t->precision;
      lt->kind = PQ_LT_DECIMAL;
      lt->decimal_scale = t->scale;
      lt->decimal_precision = t->precision;
      break;
    case TY_DATE:
      e->type = PQ_INT32;
      e->has_converted_type = e->has_logical_type = true;
      e->converted_type = PQ_CT_DATE;
      lt->kind = PQ_LT_DATE;
      break;
    case TY_TIME:
      e->type = PQ_INT64;
      e->has_converted_type = e->has_logical_type = true;
      e->converted_type = PQ_CT_TIME_MICROS;
      lt->kind = PQ_LT_TIME;
      lt->unit = PQ_MICROS;
      lt->is_adjusted_to_utc = false;
      break;
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS: {
      bool ns = t->kind == TY_TIMESTAMP_NS || t->kind == TY_TIMESTAMPTZ_NS;
      e->type = PQ_INT64;
      e->has_logical_type = true;
      lt->kind = PQ_LT_TIMESTAMP;
      lt->unit = ns ? PQ_NANOS : PQ_MICROS;
      lt->is_adjusted_to_utc = t->kind == TY_TIMESTAMPTZ || t->kind == TY_TIMESTAMPTZ_NS;
      if (!ns) {
        /* As parquet-mr writes it, for readers that predate logical types. */
        e->has_converted_type = true;
        e->converted_type = PQ_CT_TIMESTAMP_MICROS;
      }
      break;
    }
    case TY_STRING:
      e->type = PQ_BYTE_ARRAY;
      e->has_converted_type = e->has_logical_type = true;
      e->converted_type = PQ_CT_UTF8;
      lt->kind = PQ_LT_STRING;
      break;
    case TY_UUID:
      e->type = PQ_FIXED_LEN_BYTE_ARRAY;
      e->has_type_length = true;
      e->type_length = 16;
      e->has_logical_type = true;
      lt->kind = PQ_LT_UUID;
      break;
    case TY_FIXED:
      e->type = PQ_FIXED_LEN_BYTE_ARRAY;
      e->has_type_length = true;
      e->type_length = t->length;
      break;
    case TY_BINARY: e->type = PQ_BYTE_ARRAY; break;
    default: break;
  }
}

static int add_field(build_t *b, const ty_field_t *f, const char *name, bool optional,
                     uint16_t def, uint16_t rep, pq__node_t *node);

/* Adds the group members (struct fields, list element, map key and value) under node. */
static int add_children(build_t *b, pq__node_t *node, uint16_t def, uint16_t rep) {
  const ty_type_t *t = node->field->type;
  node->nchildren = t->nfields;
  node->children = fl_arena_zalloc(b->a, (t->nfields ? t->nfields : 1) * sizeof *node->children);
  for (uint32_t i = 0; i < t->nfields; i++) {
    const ty_field_t *c = &t->fields[i];
    bool opt = !c->required;
    if (t->kind == TY_MAP && i == 0) opt = false; /* map keys are always required */
    int rc = add_field(b, c, c->name, opt, def, rep, &node->children[i]);
    if (rc) return rc;
  }
  return FL_OK;
}

static int add_field(build_t *b, const ty_field_t *f, const char *name, bool optional,
                     uint16_t def, uint16_t rep, pq__node_t *node) {
  if (b->depth >= 60)
    return fl_err_set(b->err, FL_ELIMIT,
                      "Parquet writer: schema nested deeper than 60 levels at '%s'", name);
  const ty_type_t *t = f->type;
  node->field = f;
  node->kind = t->kind;
  node->optional = optional;
  node->def = (uint16_t)(def + (optional ? 1 : 0));
  node->leaf_first = b->nleaves;
  pq_schema_element_t *e = new_elem(b, name);
  uint32_t ei = b->nelems - 1;
  e->has_repetition = true;
  e->repetition = optional ? PQ_OPTIONAL : PQ_REQUIRED;
  e->has_field_id = true;
  e->field_id = f->id;
  b->path[b->depth++] = name;
  int rc = FL_OK;
  switch (t->kind) {
    case TY_STRUCT:
      e->has_num_children = true;
      e->num_children = (int32_t)t->nfields;
      rc = add_children(b, node, node->def, rep);
      break;
    case TY_LIST:
    case TY_MAP: {
      bool is_list = t->kind == TY_LIST;
      e->has_num_children = true;
      e->num_children = 1;
      e->has_converted_type = e->has_logical_type = true;
      e->converted_type = is_list ? PQ_CT_LIST : PQ_CT_MAP;
      e->logical_type.kind = is_list ? PQ_LT_LIST : PQ_LT_MAP;
      const char *gname = is_list ? "list" : "key_value";
      pq_schema_element_t *g = new_elem(b, gname);
      g->has_repetition = true;
      g->repetition = PQ_REPEATED;
      g->has_num_children = true;
      g->num_children = (int32_t)t->nfields;
      node->rep_def = (uint16_t)(node->def + 1);
      node->rep = (uint16_t)(rep + 1);
      b->path[b->depth++] = gname;
      rc = add_children(b, node, node->rep_def, node->rep);
      b->depth--;
      break;
    }
    default: {
      set_primitive(e, t);
      if (b->nleaves == b->leaves_cap) {
        uint32_t cap = b->leaves_cap ? b->leaves_cap * 2 : 16;
        pq__leaf_t *l = fl_arena_zalloc(b->a, cap * sizeof *l);
        if (b->nleaves) memcpy(l, b->leaves, b->nleaves * sizeof *l);
        b->leaves = l;
        b->leaves_cap = cap;
      }
      pq__leaf_t *l = &b->leaves[b->nleaves++];
      l->field = f;
      l->type = t;
      l->ptype = e->type;
      l->type_length = e->type_length;
      l->max_def = node->def;
      l->max_rep = rep;
      l->npath = b->depth;
      l->path = fl_arena_alloc(b->a, b->depth * sizeof *l->path);
      memcpy(l->path, b->path, b->depth * sizeof *l->path);
      l->top = b->top;
      l->elem = (const pq_schema_element_t *)(uintptr_t)ei; /* fixed up once elems stop moving */
    }
  }
  b->depth--;
  node->leaf_count = b->nleaves - node->leaf_first;
  return rc;
}

int pq__schema_from_iceberg(fl_arena_t *a, const ty_schema_t *s, pq__schema_t *out, fl_err_t *err) {
  build_t b = {.a = a, .err = err};
  pq_schema_element_t *root = new_elem(&b, "schema");
  root->has_num_children = true;
  root->num_children = (int32_t)s->root.nfields;
  out->ncols = s->root.nfields;
  out->cols = fl_arena_zalloc(a, (s->root.nfields ? s->root.nfields : 1) * sizeof *out->cols);
  for (uint32_t i = 0; i < s->root.nfields; i++) {
    const ty_field_t *f = &s->root.fields[i];
    b.top = i;
    int rc = add_field(&b, f, f->name, !f->required, 0, 0, &out->cols[i]);
    if (rc) return rc;
  }
  for (uint32_t i = 0; i < b.nleaves; i++) b.leaves[i].elem = &b.elems[(uintptr_t)b.leaves[i].elem];
  out->nelems = b.nelems;
  out->elems = b.elems;
  out->nleaves = b.nleaves;
  out->leaves = b.leaves;
  return FL_OK;
}
