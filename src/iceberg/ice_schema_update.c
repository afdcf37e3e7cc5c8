/*
 * ice_schema_update.c - schema evolution (layer 5, iceberg).
 *
 * Works the way Java's SchemaUpdate does, in two phases. Recording: each
 * operation is checked against the base schema and the operations before
 * it, and lands in one of four pending sets - deleted field ids, updated
 * fields (renamed, retyped, documented, nullability changed; added
 * columns live here too), added field ids per parent, and moves per
 * parent. Applying: the base schema is rebuilt bottom-up; in each struct,
 * deleted fields are left out, updated ones replaced, added ones appended
 * in order, then the moves run in order. Last come the checks on the
 * result: names unique within each struct, identifier fields valid.
 *
 * Names always resolve in the base schema (plus the names of columns
 * added earlier in the list for updates and moves), so the order of
 * renames and other operations on one column does not matter, as in the
 * reference.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "iceberg/ice_evolve_int.h"

/* ---- the field index ------------------------------------------------- */

typedef struct index_builder {
  fl_arena_t *a;
  ice_field_ref_t *refs;
  uint32_t n, cap;
} index_builder_t;

static const char *join(fl_arena_t *a, const char *prefix, const char *name) {
  return prefix ? fl_arena_sprintf(a, "%s.%s", prefix, name) : fl_arena_strdup(a, name);
}

static void index_add(index_builder_t *b, const ty_field_t *f, int32_t parent,
                      ice_field_role_t role, bool in_coll, const char *full, const char *shortn) {
  if (b->n == b->cap) {
    uint32_t cap = b->cap ? 2 * b->cap : 16;
    ice_field_ref_t *r = fl_arena_alloc(b->a, cap * sizeof *r);
    if (b->n) memcpy(r, b->refs, b->n * sizeof *r);
    b->refs = r;
    b->cap = cap;
  }
  b->refs[b->n++] = (ice_field_ref_t){.f = f,
                                      .parent = parent,
                                      .role = role,
                                      .in_collection = in_coll,
                                      .full = full,
                                      .shortn = shortn};
}

/* Indexes the children of t, the type of field owner (-1: the root) whose
 * names are full / shortn (NULL at the root). */
static void index_type(index_builder_t *b, const ty_type_t *t, int32_t owner, const char *full,
                       const char *shortn, bool in_coll) {
  if (t->kind == TY_STRUCT) {
    for (uint32_t i = 0; i < t->nfields; i++) {
      const ty_field_t *f = &t->fields[i];
      const char *ff = join(b->a, full, f->name), *fs = join(b->a, shortn, f->name);
      index_add(b, f, owner, ICE_ROLE_MEMBER, in_coll, ff, fs);
      index_type(b, f->type, f->id, ff, fs, in_coll);
    }
  } else if (t->kind == TY_LIST) {
    const ty_field_t *e = &t->fields[0];
    const char *ff = join(b->a, full, "element"), *fs = join(b->a, shortn, "element");
    index_add(b, e, owner, ICE_ROLE_ELEMENT, true, ff, fs);
    /* Fields below the element are also known without the "element" step. */
    index_type(b, e->type, e->id, ff, shortn, true);
  } else if (t->kind == TY_MAP) {
    const ty_field_t *k = &t->fields[0], *v = &t->fields[1];
    const char *kf = join(b->a, full, "key"), *ks = join(b->a, shortn, "key");
    const char *vf = join(b->a, full, "value"), *vs = join(b->a, shortn, "value");
    index_add(b, k, owner, ICE_ROLE_KEY, true, kf, ks);
    index_type(b, k->type, k->id, kf, ks, true);
    index_add(b, v, owner, ICE_ROLE_VALUE, true, vf, vs);
    index_type(b, v->type, v->id, vf, shortn, true);
  }
}

void ice__field_index(fl_arena_t *a, const ty_type_t *root, ice_field_index_t *out) {
  index_builder_t b = {.a = a};
  index_type(&b, root, -1, NULL, NULL, false);
  out->refs = b.refs;
  out->n = b.n;
}

static bool name_eq(const char *x, const char *y, bool ignore_case) {
  return ignore_case ? strcasecmp(x, y) == 0 : strcmp(x, y) == 0;
}

const ice_field_ref_t *ice__field_find(const ice_field_index_t *x, const char *name,
                                       bool ignore_case) {
  if (!name) return NULL;
  for (uint32_t i = 0; i < x->n; i++)
    if (name_eq(x->refs[i].full, name, ignore_case)) return &x->refs[i];
  for (uint32_t i = 0; i < x->n; i++)
    if (name_eq(x->refs[i].shortn, name, ignore_case)) return &x->refs[i];
  return NULL;
}

const ice_field_ref_t *ice__field_by_id(const ice_field_index_t *x, int32_t id) {
  for (uint32_t i = 0; i < x->n; i++)
    if (x->refs[i].f->id == id) return &x->refs[i];
  return NULL;
}

const char *ice__type_text(fl_arena_t *a, const ty_type_t *t) {
  fl_buf_t b;
  fl_buf_init(&b);
  ty_type_format(t, &b);
  const char *s = fl_arena_strndup(a, (const char *)b.data, b.len);
  fl_buf_free(&b);
  return s;
}

/* ---- pending changes ------------------------------------------------- */

typedef enum move_kind { MOVE_FIRST, MOVE_BEFORE, MOVE_AFTER } move_kind_t;

typedef struct move {
  int32_t parent; /* -1: top level */
  move_kind_t kind;
  int32_t id, ref;
  const char *name; /* for messages */
} move_t;

typedef struct added {
  const char *full; /* parent's full name + "." + name */
  int32_t id, parent;
  bool ignore_case;
} added_t;

typedef struct update {
  int32_t id;
  ty_field_t f; /* the field as it will be (its type is the new one for retypes) */
} update_t;

/* A growable array in the arena. */
#define VEC(T)    \
  struct {        \
    T *v;         \
    uint32_t n;   \
    uint32_t cap; \
  }

static void *vec_grow(fl_arena_t *a, void *v, uint32_t n, uint32_t *cap, size_t sz) {
  if (n < *cap) return v;
  uint32_t c = *cap ? 2 * *cap : 8;
  void *nv = fl_arena_alloc(a, c * sz);
  if (n) memcpy(nv, v, n * sz);
  *cap = c;
  return nv;
}
#define VEC_PUSH(a, vec, item)                                              \
  do {                                                                      \
    (vec).v = vec_grow((a), (vec).v, (vec).n, &(vec).cap, sizeof *(vec).v); \
    (vec).v[(vec).n++] = (item);                                            \
  } while (0)

typedef struct su {
  fl_arena_t *a;
  fl_err_t *err;
  const ty_schema_t *schema;
  ice_field_index_t idx;
  int format_version;
  int32_t last_id;
  VEC(int32_t) deletes;
  VEC(update_t) updates;
  VEC(added_t) adds; /* in order; also the added names */
  VEC(move_t) moves;
  bool ident_set; /* set-identifier given: names below replace the base's */
  const char *const *ident_names;
  uint32_t nident;
  bool ident_ignore_case;
} su_t;

static bool id_in(const int32_t *v, uint32_t n, int32_t id) {
  for (uint32_t i = 0; i < n; i++)
    if (v[i] == id) return true;
  return false;
}

static bool is_deleted(const su_t *s, int32_t id) { return id_in(s->deletes.v, s->deletes.n, id); }

static update_t *find_update(su_t *s, int32_t id) {
  for (uint32_t i = 0; i < s->updates.n; i++)
    if (s->updates.v[i].id == id) return &s->updates.v[i];
  return NULL;
}

static void put_update(su_t *s, const ty_field_t *f) {
  update_t *u = find_update(s, f->id);
  if (u) {
    u->f = *f;
    return;
  }
  update_t nu = {.id = f->id, .f = *f};
  VEC_PUSH(s->a, s->updates, nu);
}

static bool has_adds(const su_t *s, int32_t parent) {
  for (uint32_t i = 0; i < s->adds.n; i++)
    if (s->adds.v[i].parent == parent) return true;
  return false;
}

static const added_t *find_added(const su_t *s, const char *full, bool ignore_case) {
  for (uint32_t i = 0; i < s->adds.n; i++)
    if (name_eq(s->adds.v[i].full, full, ignore_case || s->adds.v[i].ignore_case))
      return &s->adds.v[i];
  return NULL;
}

static const ty_field_t *find_field(const su_t *s, const char *name, bool ignore_case) {
  const ice_field_ref_t *r = ice__field_find(&s->idx, name, ignore_case);
  return r ? r->f : NULL;
}

static const char *column_name(const su_t *s, int32_t id) {
  const ice_field_ref_t *r = ice__field_by_id(&s->idx, id);
  if (r) return r->full;
  for (uint32_t i = 0; i < s->adds.n; i++)
    if (s->adds.v[i].id == id) return s->adds.v[i].full;
  return "?";
}

/* The field an update applies to: the pending version of a base field or
 * of a column added earlier (Java's findForUpdate). */
static const ty_field_t *find_for_update(su_t *s, const char *name, bool ignore_case) {
  const ty_field_t *f = find_field(s, name, ignore_case);
  if (f) {
    update_t *u = find_update(s, f->id);
    return u ? &u->f : f;
  }
  const added_t *ad = find_added(s, name, ignore_case);
  if (ad) {
    update_t *u = find_update(s, ad->id);
    return u ? &u->f : NULL;
  }
  return NULL;
}

static int32_t find_for_move(su_t *s, const char *name, bool ignore_case) {
  const added_t *ad = find_added(s, name, ignore_case);
  if (ad) return ad->id;
  const ty_field_t *f = find_field(s, name, ignore_case);
  return f ? f->id : -1;
}

/* The parent of a field: a base field's or an added column's. */
static int32_t parent_of(const su_t *s, int32_t id, bool *found) {
  const ice_field_ref_t *r = ice__field_by_id(&s->idx, id);
  *found = true;
  if (r) return r->parent;
  for (uint32_t i = 0; i < s->adds.n; i++)
    if (s->adds.v[i].id == id) return s->adds.v[i].parent;
  *found = false;
  return -1;
}

/* ---- fresh ids for added types ----------------------------------------- */

static const ty_type_t *fresh_type(su_t *s, const ty_type_t *t) {
  if (!ty_is_nested(t)) {
    if (t->kind == TY_DECIMAL) return ty_decimal(s->a, t->precision, t->scale);
    if (t->kind == TY_FIXED) return ty_fixed(s->a, t->length);
    return ty_primitive(t->kind);
  }
  ty_type_t *c = fl_arena_memdup(s->a, t, sizeof *t);
  ty_field_t *fs = fl_arena_zalloc(s->a, (t->nfields ? t->nfields : 1) * sizeof *fs);
  /* A struct's (list's, map's) own fields first, then their types. */
  for (uint32_t i = 0; i < t->nfields; i++) {
    fs[i] = t->fields[i];
    fs[i].name = fl_arena_strdup(s->a, t->fields[i].name);
    if (t->fields[i].doc) fs[i].doc = fl_arena_strdup(s->a, t->fields[i].doc);
    fs[i].id = ++s->last_id;
  }
  for (uint32_t i = 0; i < t->nfields; i++) fs[i].type = fresh_type(s, t->fields[i].type);
  c->fields = fs;
  return c;
}

/* ---- recording -------------------------------------------------------- */

static const char *op_name_text(const ice_evolve_op_t *op) {
  return op->name ? op->name : "(null)";
}

static int add_column(su_t *s, const ice_evolve_op_t *op) {
  bool ic = op->ignore_case;
  if (!op->name || !op->name[0])
    return fl_err_set(s->err, FL_EINVALID, "Cannot add a column without a name");
  if (!op->type)
    return fl_err_set(s->err, FL_EINVALID, "Cannot add column %s: no type given", op->name);
  int32_t parent_id = -1;
  const char *full;
  if (op->parent) {
    const ty_field_t *pf = find_field(s, op->parent, ic);
    if (!pf) return fl_err_set(s->err, FL_ENOTFOUND, "Cannot find parent struct: %s", op->parent);
    if (is_deleted(s, pf->id))
      return fl_err_set(s->err, FL_EINVALID, "Cannot add to a column that will be deleted: %s",
                        op->parent);
    /* Fields are added to a map's value or a list's element. */
    if (pf->type->kind == TY_MAP)
      pf = &pf->type->fields[1];
    else if (pf->type->kind == TY_LIST)
      pf = &pf->type->fields[0];
    if (pf->type->kind != TY_STRUCT)
      return fl_err_set(s->err, FL_EINVALID, "Cannot add to non-struct column: %s: %s", op->parent,
                        ice__type_text(s->a, pf->type));
    parent_id = pf->id;
    if (is_deleted(s, parent_id))
      return fl_err_set(s->err, FL_EINVALID, "Cannot add to a column that will be deleted: %s",
                        op->parent);
    full = fl_arena_sprintf(s->a, "%s.%s", column_name(s, parent_id), op->name);
  } else {
    full = op->name;
  }
  const ty_field_t *cur = find_field(s, full, ic);
  if ((cur && !is_deleted(s, cur->id)) || find_added(s, full, ic))
    return fl_err_set(s->err, FL_EINVALID, "Cannot add column, name already exists: %s", full);
  if (op->required && !op->default_value)
    return fl_err_set(s->err, FL_EINVALID,
                      "Incompatible change: cannot add required column without a default value: %s",
                      full);
  if (op->default_value) {
    if (s->format_version < 3)
      return fl_err_set(s->err, FL_EINVALID,
                        "Invalid initial default for %s: non-null default is not supported until "
                        "v3 (table format version %d)",
                        full, s->format_version);
    if (ty_is_nested(op->type) || op->default_value->kind != op->type->kind ||
        op->default_value->is_null)
      return fl_err_set(s->err, FL_EINVALID, "Invalid default for %s: expected a non-null %s value",
                        full, ice__type_text(s->a, op->type));
  }
  ty_field_t f = {0};
  f.id = ++s->last_id;
  f.name = fl_arena_strdup(s->a, op->name);
  f.required = op->required;
  f.doc = op->doc ? fl_arena_strdup(s->a, op->doc) : NULL;
  f.type = fresh_type(s, op->type);
  if (op->default_value) {
    ty_value_t *v = fl_arena_memdup(s->a, op->default_value, sizeof *v);
    f.initial_default = v;
    f.write_default = v;
  }
  added_t ad = {
      .full = fl_arena_strdup(s->a, full), .id = f.id, .parent = parent_id, .ignore_case = ic};
  VEC_PUSH(s->a, s->adds, ad);
  put_update(s, &f);
  return FL_OK;
}

static int drop_column(su_t *s, const ice_evolve_op_t *op) {
  const ice_field_ref_t *r = ice__field_find(&s->idx, op->name, op->ignore_case);
  if (!r)
    return fl_err_set(s->err, FL_ENOTFOUND, "Cannot delete missing column: %s", op_name_text(op));
  if (r->role == ICE_ROLE_KEY)
    return fl_err_set(s->err, FL_EINVALID, "Cannot delete map keys: %s", r->full);
  if (r->role == ICE_ROLE_ELEMENT)
    return fl_err_set(s->err, FL_EINVALID, "Cannot delete element type from list: %s", r->full);
  if (r->role == ICE_ROLE_VALUE)
    return fl_err_set(s->err, FL_EINVALID, "Cannot delete value type from map: %s", r->full);
  const ty_type_t *t = r->f->type;
  int32_t inner = t->kind == TY_LIST ? t->fields[0].id : t->kind == TY_MAP ? t->fields[1].id : -2;
  if (has_adds(s, r->f->id) || has_adds(s, inner))
    return fl_err_set(s->err, FL_EINVALID, "Cannot delete a column that has additions: %s",
                      op->name);
  if (find_update(s, r->f->id))
    return fl_err_set(s->err, FL_EINVALID, "Cannot delete a column that has updates: %s", op->name);
  if (!is_deleted(s, r->f->id)) VEC_PUSH(s->a, s->deletes, r->f->id);
  return FL_OK;
}

static int rename_column(su_t *s, const ice_evolve_op_t *op) {
  const ice_field_ref_t *r = ice__field_find(&s->idx, op->name, op->ignore_case);
  if (!r)
    return fl_err_set(s->err, FL_ENOTFOUND, "Cannot rename missing column: %s", op_name_text(op));
  if (!op->new_name || !op->new_name[0])
    return fl_err_set(s->err, FL_EINVALID, "Cannot rename column %s to an empty name", r->full);
  if (r->role != ICE_ROLE_MEMBER)
    return fl_err_set(s->err, FL_EINVALID,
                      "Cannot rename %s: list elements and map keys and values have fixed names",
                      r->full);
  if (is_deleted(s, r->f->id))
    return fl_err_set(s->err, FL_EINVALID, "Cannot rename a column that will be deleted: %s",
                      r->full);
  update_t *u = find_update(s, r->f->id);
  ty_field_t f = u ? u->f : *r->f;
  f.name = fl_arena_strdup(s->a, op->new_name);
  put_update(s, &f);
  return FL_OK;
}

/* Java's TypeUtil.isPromotionAllowed. */
static bool promotion_allowed(const ty_type_t *from, const ty_type_t *to) {
  switch (from->kind) {
    case TY_INT: return to->kind == TY_LONG;
    case TY_FLOAT: return to->kind == TY_DOUBLE;
    case TY_DECIMAL:
      return to->kind == TY_DECIMAL && to->scale == from->scale && to->precision >= from->precision;
    default: return false;
  }
}

static int checked_update_target(su_t *s, const ice_evolve_op_t *op, const ty_field_t **out) {
  const ty_field_t *f = find_for_update(s, op->name, op->ignore_case);
  if (!f)
    return fl_err_set(s->err, FL_ENOTFOUND, "Cannot update missing column: %s", op_name_text(op));
  if (is_deleted(s, f->id))
    return fl_err_set(s->err, FL_EINVALID, "Cannot update a column that will be deleted: %s",
                      op->name);
  *out = f;
  return FL_OK;
}

static int update_column(su_t *s, const ice_evolve_op_t *op) {
  const ty_field_t *f;
  int rc = checked_update_target(s, op, &f);
  if (rc) return rc;
  if (!op->type)
    return fl_err_set(s->err, FL_EINVALID, "Cannot change column type: %s: no type given",
                      op->name);
  if (ty_is_nested(op->type))
    return fl_err_set(s->err, FL_EINVALID,
                      "Cannot change column type: %s: %s -> %s (only primitive types can be "
                      "promoted)",
                      op->name, ice__type_text(s->a, f->type), ice__type_text(s->a, op->type));
  if (ty_type_equal(f->type, op->type)) return FL_OK;
  if (!promotion_allowed(f->type, op->type))
    return fl_err_set(s->err, FL_EINVALID,
                      "Cannot change column type: %s: %s -> %s (allowed: int -> long, float -> "
                      "double, decimal(P,S) -> decimal(P2,S) with P2 >= P)",
                      op->name, ice__type_text(s->a, f->type), ice__type_text(s->a, op->type));
  ty_field_t nf = *f;
  nf.type = fresh_type(s, op->type);
  put_update(s, &nf);
  return FL_OK;
}

static int update_doc(su_t *s, const ice_evolve_op_t *op) {
  const ty_field_t *f;
  int rc = checked_update_target(s, op, &f);
  if (rc) return rc;
  if ((!f->doc && !op->doc) || (f->doc && op->doc && strcmp(f->doc, op->doc) == 0)) return FL_OK;
  ty_field_t nf = *f;
  nf.doc = op->doc ? fl_arena_strdup(s->a, op->doc) : NULL;
  put_update(s, &nf);
  return FL_OK;
}

static int update_requirement(su_t *s, const ice_evolve_op_t *op, bool optional) {
  const ty_field_t *f = find_for_update(s, op->name, op->ignore_case);
  if (!f)
    return fl_err_set(s->err, FL_ENOTFOUND, "Cannot update missing column: %s", op_name_text(op));
  if (f->required != optional) return FL_OK; /* already so */
  bool defaulted_add = find_added(s, op->name, op->ignore_case) && f->initial_default;
  if (!optional && !defaulted_add)
    return fl_err_set(s->err, FL_EINVALID,
                      "Cannot change column nullability: %s: optional -> required", op->name);
  if (is_deleted(s, f->id))
    return fl_err_set(s->err, FL_EINVALID, "Cannot update a column that will be deleted: %s",
                      op->name);
  const ice_field_ref_t *r = ice__field_by_id(&s->idx, f->id);
  if (r && r->role == ICE_ROLE_KEY)
    return fl_err_set(s->err, FL_EINVALID, "Cannot update map keys: %s", r->full);
  ty_field_t nf = *f;
  nf.required = !optional;
  put_update(s, &nf);
  return FL_OK;
}

static int move_column(su_t *s, const ice_evolve_op_t *op) {
  bool ic = op->ignore_case;
  int32_t id = find_for_move(s, op->name, ic);
  if (id < 0)
    return fl_err_set(s->err, FL_ENOTFOUND, "Cannot move missing column: %s", op_name_text(op));
  move_t mv = {.id = id, .ref = -1, .name = op->name};
  if (op->kind == ICE_EV_MOVE_FIRST) {
    mv.kind = MOVE_FIRST;
  } else {
    const char *rel = op->kind == ICE_EV_MOVE_BEFORE ? "before" : "after";
    mv.kind = op->kind == ICE_EV_MOVE_BEFORE ? MOVE_BEFORE : MOVE_AFTER;
    mv.ref = find_for_move(s, op->ref, ic);
    if (mv.ref < 0)
      return fl_err_set(s->err, FL_ENOTFOUND, "Cannot move %s %s missing column: %s", op->name, rel,
                        op->ref ? op->ref : "(null)");
    if (mv.ref == id)
      return fl_err_set(s->err, FL_EINVALID, "Cannot move %s %s itself", op->name, rel);
  }
  bool found;
  int32_t parent = parent_of(s, id, &found);
  if (parent >= 0) {
    const ice_field_ref_t *pr = ice__field_by_id(&s->idx, parent);
    if (!pr || pr->f->type->kind != TY_STRUCT)
      return fl_err_set(s->err, FL_EINVALID, "Cannot move fields in non-struct type: %s",
                        pr ? ice__type_text(s->a, pr->f->type) : "?");
  }
  if (mv.kind != MOVE_FIRST) {
    int32_t ref_parent = parent_of(s, mv.ref, &found);
    if (ref_parent != parent)
      return fl_err_set(s->err, FL_EINVALID, "Cannot move field %s to a different struct",
                        op->name);
  }
  mv.parent = parent;
  VEC_PUSH(s->a, s->moves, mv);
  return FL_OK;
}

static int record(su_t *s, const ice_evolve_op_t *op) {
  if (op->kind != ICE_EV_SET_IDENTIFIER && (!op->name || !op->name[0]))
    return fl_err_set(s->err, FL_EINVALID, "schema change %d: no column name given", (int)op->kind);
  if ((op->kind == ICE_EV_MOVE_BEFORE || op->kind == ICE_EV_MOVE_AFTER) && !op->ref)
    return fl_err_set(s->err, FL_EINVALID, "Cannot move %s: no column to move next to", op->name);
  for (uint32_t i = 0; op->kind == ICE_EV_SET_IDENTIFIER && i < op->nnames; i++)
    if (!op->names || !op->names[i])
      return fl_err_set(s->err, FL_EINVALID, "set-identifier: name %u is missing", i);
  switch (op->kind) {
    case ICE_EV_ADD_COLUMN: return add_column(s, op);
    case ICE_EV_DROP_COLUMN: return drop_column(s, op);
    case ICE_EV_RENAME_COLUMN: return rename_column(s, op);
    case ICE_EV_UPDATE_COLUMN: return update_column(s, op);
    case ICE_EV_UPDATE_DOC: return update_doc(s, op);
    case ICE_EV_MAKE_OPTIONAL: return update_requirement(s, op, true);
    case ICE_EV_MAKE_REQUIRED: return update_requirement(s, op, false);
    case ICE_EV_SET_IDENTIFIER:
      s->ident_set = true;
      s->ident_names = op->names;
      s->nident = op->nnames;
      s->ident_ignore_case = op->ignore_case;
      return FL_OK;
    case ICE_EV_MOVE_FIRST:
    case ICE_EV_MOVE_BEFORE:
    case ICE_EV_MOVE_AFTER: return move_column(s, op);
    default: return FL_OK;
  }
}

/* ---- applying --------------------------------------------------------- */

static const char *owner_name(const su_t *s, int32_t owner) {
  return owner < 0 ? "the table" : column_name(s, owner);
}

static int rebuild_type(su_t *s, const ty_type_t *t, int32_t owner, const ty_type_t **out);

/* The new version of base field f (not deleted): its update's name, doc,
 * nullability and type when retyped, else its rebuilt type. */
static int rebuild_field(su_t *s, const ty_field_t *f, ty_field_t *out) {
  update_t *u = find_update(s, f->id);
  *out = u ? u->f : *f;
  if (u && !ty_type_equal(u->f.type, f->type)) return FL_OK; /* a primitive promotion */
  return rebuild_type(s, f->type, f->id, &out->type);
}

static int apply_moves(su_t *s, int32_t owner, ty_field_t *fs, uint32_t n) {
  for (uint32_t m = 0; m < s->moves.n; m++) {
    const move_t *mv = &s->moves.v[m];
    if (mv->parent != owner) continue;
    int from = -1;
    for (uint32_t i = 0; i < n; i++)
      if (fs[i].id == mv->id) from = (int)i;
    if (from < 0)
      return fl_err_set(s->err, FL_EINVALID,
                        "Cannot move column %s: it is deleted in the same change", mv->name);
    ty_field_t moving = fs[from];
    memmove(&fs[from], &fs[from + 1], (n - (uint32_t)from - 1) * sizeof *fs);
    uint32_t at = 0;
    if (mv->kind != MOVE_FIRST) {
      int ref = -1;
      for (uint32_t i = 0; i + 1 < n; i++)
        if (fs[i].id == mv->ref) ref = (int)i;
      if (ref < 0)
        return fl_err_set(s->err, FL_EINVALID,
                          "Cannot move column %s next to %s: it is deleted in the same change",
                          mv->name, column_name(s, mv->ref));
      at = (uint32_t)ref + (mv->kind == MOVE_AFTER ? 1 : 0);
    }
    memmove(&fs[at + 1], &fs[at], (n - 1 - at) * sizeof *fs);
    fs[at] = moving;
  }
  return FL_OK;
}

static int rebuild_struct(su_t *s, const ty_type_t *t, int32_t owner, const ty_type_t **out) {
  uint32_t nadd = 0;
  for (uint32_t i = 0; i < s->adds.n; i++)
    if (s->adds.v[i].parent == owner) nadd++;
  uint32_t cap = t->nfields + nadd;
  ty_field_t *fs = fl_arena_zalloc(s->a, (cap ? cap : 1) * sizeof *fs);
  uint32_t n = 0;
  for (uint32_t i = 0; i < t->nfields; i++) {
    if (is_deleted(s, t->fields[i].id)) continue;
    int rc = rebuild_field(s, &t->fields[i], &fs[n]);
    if (rc) return rc;
    n++;
  }
  for (uint32_t i = 0; i < s->adds.n; i++) {
    if (s->adds.v[i].parent != owner) continue;
    fs[n++] = find_update(s, s->adds.v[i].id)->f;
  }
  int rc = apply_moves(s, owner, fs, n);
  if (rc) return rc;
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t k = i + 1; k < n; k++)
      if (strcmp(fs[i].name, fs[k].name) == 0)
        return fl_err_set(s->err, FL_EINVALID,
                          "Invalid schema: %s would have two columns named %s (ids %d and %d)",
                          owner_name(s, owner), fs[i].name, (int)fs[i].id, (int)fs[k].id);
  ty_type_t *c = fl_arena_zalloc(s->a, sizeof *c);
  c->kind = TY_STRUCT;
  c->nfields = n;
  c->fields = fs;
  *out = c;
  return FL_OK;
}

static int rebuild_type(su_t *s, const ty_type_t *t, int32_t owner, const ty_type_t **out) {
  if (t->kind == TY_STRUCT) return rebuild_struct(s, t, owner, out);
  if (t->kind == TY_LIST) {
    ty_field_t e;
    int rc = rebuild_field(s, &t->fields[0], &e);
    if (rc) return rc;
    *out = ty_list_new(s->a, e.id, e.required, e.type);
    return FL_OK;
  }
  if (t->kind == TY_MAP) {
    const ty_field_t *k = &t->fields[0];
    if (find_update(s, k->id) || has_adds(s, k->id))
      return fl_err_set(s->err, FL_EINVALID, "Cannot update map keys: %s", column_name(s, k->id));
    const ty_type_t *kt;
    int rc = rebuild_type(s, k->type, k->id, &kt);
    if (rc) return rc;
    if (!ty_type_equal(kt, k->type))
      return fl_err_set(s->err, FL_EINVALID, "Cannot alter map keys: %s", column_name(s, k->id));
    ty_field_t v;
    rc = rebuild_field(s, &t->fields[1], &v);
    if (rc) return rc;
    *out = ty_map_new(s->a, k->id, k->type, v.id, v.required, v.type);
    return FL_OK;
  }
  *out = t;
  return FL_OK;
}

/* Java's Schema.validateIdentifierField, on the new schema. */
static int validate_identifier(su_t *s, const ice_field_index_t *nx, int32_t id) {
  const ice_field_ref_t *r = ice__field_by_id(nx, id);
  if (!r)
    return fl_err_set(s->err, FL_EINVALID,
                      "Cannot add fieldId %d as an identifier field: field does not exist",
                      (int)id);
  const ty_field_t *f = r->f;
  if (ty_is_nested(f->type))
    return fl_err_set(s->err, FL_EINVALID,
                      "Cannot add field %s as an identifier field: not a primitive type field",
                      r->full);
  if (!f->required)
    return fl_err_set(s->err, FL_EINVALID,
                      "Cannot add field %s as an identifier field: not a required field", r->full);
  if (f->type->kind == TY_FLOAT || f->type->kind == TY_DOUBLE)
    return fl_err_set(s->err, FL_EINVALID,
                      "Cannot add field %s as an identifier field: must not be float or double "
                      "field",
                      r->full);
  for (int32_t p = r->parent; p >= 0;) {
    const ice_field_ref_t *pr = ice__field_by_id(nx, p);
    if (!pr) break;
    if (pr->f->type->kind != TY_STRUCT)
      return fl_err_set(s->err, FL_EINVALID,
                        "Cannot add field %s as an identifier field: must not be nested in %s (%s)",
                        r->full, pr->full, ice__type_text(s->a, pr->f->type));
    if (!pr->f->required)
      return fl_err_set(s->err, FL_EINVALID,
                        "Cannot add field %s as an identifier field: must not be nested in an "
                        "optional field %s",
                        r->full, pr->full);
    p = pr->parent;
  }
  return FL_OK;
}

/* The reference's check before applying: identifier fields (and their
 * parents) may not be deleted unless the identifier fields are reset. */
static int check_identifier_deletes(su_t *s, int32_t id) {
  const ice_field_ref_t *r = ice__field_by_id(&s->idx, id);
  if (!r) return FL_OK;
  if (is_deleted(s, id))
    return fl_err_set(s->err, FL_EINVALID,
                      "Cannot delete identifier field %s. To force deletion, also set the "
                      "identifier fields anew",
                      r->full);
  for (int32_t p = r->parent; p >= 0;) {
    if (is_deleted(s, p))
      return fl_err_set(s->err, FL_EINVALID,
                        "Cannot delete field %s as it will delete nested identifier field %s",
                        column_name(s, p), r->full);
    const ice_field_ref_t *pr = ice__field_by_id(&s->idx, p);
    p = pr ? pr->parent : -1;
  }
  return FL_OK;
}

static int apply_changes(su_t *s, ty_schema_t **out) {
  const ty_schema_t *base = s->schema;
  int rc;
  if (s->ident_set) {
    for (uint32_t i = 0; i < s->nident; i++) {
      const ty_field_t *f = find_field(s, s->ident_names[i], s->ident_ignore_case);
      if (f && (rc = check_identifier_deletes(s, f->id))) return rc;
    }
  } else {
    for (uint32_t i = 0; i < base->nidentifiers; i++)
      if ((rc = check_identifier_deletes(s, base->identifier_ids[i]))) return rc;
  }
  const ty_type_t *root;
  rc = rebuild_struct(s, &base->root, -1, &root);
  if (rc) return rc;
  ty_schema_t *ns = fl_arena_zalloc(s->a, sizeof *ns);
  ns->schema_id = base->schema_id;
  ns->root = *root;
  ice_field_index_t nx;
  ice__field_index(s->a, &ns->root, &nx);
  uint32_t cnt = s->ident_set ? s->nident : base->nidentifiers;
  int32_t *ids = fl_arena_zalloc(s->a, (cnt ? cnt : 1) * sizeof *ids);
  uint32_t n = 0;
  for (uint32_t i = 0; i < cnt; i++) {
    int32_t id;
    if (s->ident_set) {
      const ice_field_ref_t *r = ice__field_find(&nx, s->ident_names[i], s->ident_ignore_case);
      if (!r)
        return fl_err_set(s->err, FL_ENOTFOUND,
                          "Cannot add field %s as an identifier field: not found in current "
                          "schema or added columns",
                          s->ident_names[i]);
      id = r->f->id;
    } else {
      id = base->identifier_ids[i];
    }
    if (id_in(ids, n, id)) continue;
    if ((rc = validate_identifier(s, &nx, id))) return rc;
    ids[n++] = id;
  }
  ns->nidentifiers = n;
  ns->identifier_ids = ids;
  *out = ns;
  return FL_OK;
}

bool ice_evolve_is_schema_op(const ice_evolve_op_t *op) {
  return op->kind != ICE_EV_ADD_PARTITION && op->kind != ICE_EV_DROP_PARTITION &&
         op->kind != ICE_EV_RENAME_PARTITION;
}

int ice_schema_evolve(fl_arena_t *a, const ty_schema_t *base, int32_t last_column_id,
                      int format_version, const ice_evolve_op_t *ops, uint32_t n, ty_schema_t **out,
                      int32_t *new_last_id, fl_err_t *err) {
  su_t s = {.a = a,
            .err = err,
            .schema = base,
            .format_version = format_version,
            .last_id = last_column_id};
  int32_t highest = ty_schema_highest_id(base);
  if (s.last_id < highest) s.last_id = highest; /* never reuse an id */
  ice__field_index(a, &base->root, &s.idx);
  for (uint32_t i = 0; i < n; i++) {
    if (!ice_evolve_is_schema_op(&ops[i])) continue;
    int rc = record(&s, &ops[i]);
    if (rc) return rc;
  }
  int rc = apply_changes(&s, out);
  if (rc) return rc;
  if (new_last_id) *new_last_id = s.last_id;
  return FL_OK;
}
