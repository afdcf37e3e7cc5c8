/*
 * sql_alter.c - ALTER TABLE in `floe sql` (layer 12, cli).
 *
 * Trino's Iceberg connector spellings, each one Iceberg metadata commit:
 *
 *   ADD COLUMN [IF NOT EXISTS] c type [COMMENT '...']   (s.f adds to row s)
 *   DROP COLUMN [IF EXISTS] c | RENAME COLUMN [IF EXISTS] a TO b
 *   ALTER COLUMN c SET DATA TYPE type | ALTER COLUMN c DROP NOT NULL
 *       - schema evolution through ice_evolve (Java's SchemaUpdate rules:
 *         new field ids, only int->bigint, real->double and wider decimal
 *         precision as type changes);
 *   RENAME TO t2 - the catalog entry;
 *   SET PROPERTIES k = v, ... (and SET PARTITIONING) - Trino's property
 *       names mapped to Iceberg's (partitioning becomes partition spec
 *       evolution: fields no longer listed are dropped, new ones added,
 *       kept ones keep their ids; sorted_by a new sort order;
 *       format_version an upgrade; format, object_store_layout_enabled,
 *       data_location, max_commit_retry, orc_bloom_filter_* table
 *       properties), quoted Iceberg property names ('write.delete.mode')
 *       set as they are, k = DEFAULT removing one; all in one commit;
 *   CREATE [OR REPLACE] | REPLACE BRANCH | TAG ... [AS OF VERSION n]
 *       [RETAIN n unit] [WITH SNAPSHOT RETENTION ...], DROP BRANCH | TAG
 *       - Spark's spellings (Trino has none) over ice_set_ref / ice_drop_ref;
 *   EXECUTE proc(...) - sql_execute.c;
 *   Spark's SET | DROP IDENTIFIER FIELDS, ADD | DROP | REPLACE PARTITION
 *       FIELD (a field named by its transform term or its name), ALTER
 *       COLUMN c FIRST | AFTER x | BEFORE x and ALTER COLUMN c COMMENT,
 *       and Trino's COMMENT ON TABLE | COLUMN (the table's "comment"
 *       property, a column's doc).
 *
 * Error texts follow Trino's (Column 'c' already exists, Cannot change
 * type from integer to varchar, ...); Iceberg's own messages pass through
 * with the statement's position.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/cat_tables.h"
#include "cli/sql_ddl_int.h"
#include "exec/ex_plan.h"
#include "iceberg/ice_commit.h"
#include "iceberg/ice_evolve.h"
#include "iceberg/ice_maint.h"
#include "iceberg/ice_spec.h"
#include "sql/sql_bind.h"

/* ---- columns ---- */

/* The field at path[0..n) (case-insensitive, through row columns), or NULL;
 * *parent gets the struct holding it. */
static const ty_field_t *find_path(const ty_schema_t *sc, const sql_qname_t *path, size_t n,
                                   const ty_type_t **parent) {
  const ty_type_t *st = &sc->root;
  const ty_field_t *f = NULL;
  for (size_t i = 0; i < n; i++) {
    if (!st || st->kind != TY_STRUCT) return NULL;
    f = NULL;
    for (uint32_t k = 0; k < st->nfields; k++)
      if (!strcasecmp(st->fields[k].name, path->parts[i].name)) f = &st->fields[k];
    if (!f) return NULL;
    if (parent) *parent = st;
    st = f->type;
  }
  return f;
}

/* The dotted name of path[0..n) as the schema spells it. */
static const char *schema_path(fl_arena_t *a, const ty_schema_t *sc, const sql_qname_t *path,
                               size_t n) {
  fl_buf_t b;
  fl_buf_init(&b);
  const ty_type_t *st = &sc->root;
  for (size_t i = 0; i < n; i++) {
    const ty_field_t *f = NULL;
    for (uint32_t k = 0; st && st->kind == TY_STRUCT && k < st->nfields; k++)
      if (!strcasecmp(st->fields[k].name, path->parts[i].name)) f = &st->fields[k];
    if (i) fl_buf_append_u8(&b, '.');
    fl_buf_append_str(&b, f ? f->name : path->parts[i].name);
    st = f ? f->type : NULL;
  }
  fl_buf_append_u8(&b, 0);
  const char *s = fl_arena_strdup(a, (const char *)b.data);
  fl_buf_free(&b);
  return s;
}

static const char *qname_text(fl_arena_t *a, const sql_qname_t *q) {
  fl_buf_t b;
  fl_buf_init(&b);
  for (size_t i = 0; i < q->n; i++) {
    if (i) fl_buf_append_u8(&b, '.');
    fl_buf_append_str(&b, q->parts[i].name);
  }
  fl_buf_append_u8(&b, 0);
  const char *s = fl_arena_strdup(a, (const char *)b.data);
  fl_buf_free(&b);
  return s;
}

/* The Iceberg type of a written type, rows, arrays and maps included
 * (their field ids are placeholders: evolution assigns fresh ones). */
static int iceberg_type(fl_arena_t *a, const sql_type_t *t, const ty_type_t **out, fl_err_t *err) {
  int rc;
  if (t->kind == SQL_TY_ROW) {
    ty_field_t *f = fl_arena_zalloc(a, (t->nfields ? t->nfields : 1) * sizeof *f);
    for (size_t i = 0; i < t->nfields; i++) {
      if (!t->fields[i].name.name)
        return sql__errp(err, t->pos, FL_EINVALID, "Row fields need names in an Iceberg table");
      f[i].id = (int32_t)i + 1;
      f[i].name = t->fields[i].name.name;
      f[i].required = t->fields[i].type->not_null;
      if ((rc = iceberg_type(a, t->fields[i].type, &f[i].type, err))) return rc;
    }
    *out = ty_struct_new(a, f, (uint32_t)t->nfields);
    return FL_OK;
  }
  if (t->kind == SQL_TY_ARRAY) {
    const ty_type_t *el;
    if ((rc = iceberg_type(a, t->elem, &el, err))) return rc;
    *out = ty_list_new(a, 1, false, el);
    return FL_OK;
  }
  if (t->kind == SQL_TY_MAP) {
    const ty_type_t *k, *v;
    if ((rc = iceberg_type(a, t->elem, &k, err)) || (rc = iceberg_type(a, t->value, &v, err)))
      return rc;
    *out = ty_map_new(a, 1, k, 2, false, v);
    return FL_OK;
  }
  rc = sql_bind_iceberg_type(a, t, out, err);
  return rc ? sql__errp_wrap(err, t->pos, rc) : FL_OK;
}

/* Trino's name of an Iceberg type (for messages). */
static const char *trino_type(fl_arena_t *a, const ty_type_t *t) {
  sql_resolver_t r;
  ex_sql_resolver(&r, a);
  sql_dtype_t dt;
  fl_err_t e;
  if (r.from_storage(r.ctx, t, &dt, &e) == FL_OK) return fl_arena_strdup(a, sql_dtype_str(&dt));
  fl_buf_t b;
  fl_buf_init(&b);
  ty_type_format(t, &b);
  const char *s = fl_arena_strndup(a, (const char *)b.data, b.len);
  fl_buf_free(&b);
  return s;
}

/* Iceberg's allowed primitive promotions (TypeUtil.isPromotionAllowed). */
static bool promotion_allowed(const ty_type_t *from, const ty_type_t *to) {
  if (from->kind == TY_INT && to->kind == TY_LONG) return true;
  if (from->kind == TY_FLOAT && to->kind == TY_DOUBLE) return true;
  if (from->kind == TY_DECIMAL && to->kind == TY_DECIMAL)
    return from->scale == to->scale && to->precision >= from->precision;
  return false;
}

static int evolve(ice_table_t *t, const sql_alter_t *al, ice_evolve_op_t *op, fl_err_t *err) {
  op->ignore_case = true;
  int rc = ice_evolve_apply(t, op, 1, err);
  return rc ? sql__errp_wrap(err, al->pos, rc) : FL_OK;
}

static int alter_column(fl_arena_t *a, ice_table_t *t, const sql_alter_t *al, fl_err_t *err) {
  const ty_schema_t *sc = ice_meta_schema(t->meta);
  const sql_qname_t *path = &al->target;
  const sql_pos_t pos = path->parts[0].pos;
  const char *shown = qname_text(a, path);
  ice_evolve_op_t op = {0};
  const ty_type_t *parent = NULL;
  const ty_field_t *f = find_path(sc, path, path->n, &parent);
  int rc;
  switch (al->kind) {
    case SQL_ALTER_ADD_COLUMN: {
      if (path->n > 1) {
        const ty_field_t *p = find_path(sc, path, path->n - 1, NULL);
        if (!p)
          return sql__errp(err, pos, FL_ENOTFOUND, "Column '%s' does not exist",
                           qname_text(a, &(sql_qname_t){path->parts, path->n - 1}));
        if (p->type->kind != TY_STRUCT)
          return sql__errp(err, pos, FL_EINVALID, "Column '%s' is not a row: cannot add '%s' to it",
                           p->name, shown);
        op.parent = schema_path(a, sc, path, path->n - 1);
      }
      if (f) {
        if (al->if_not_exists) return FL_OK;
        return sql__errp(err, pos, FL_EEXISTS, "Column '%s' already exists", shown);
      }
      if (al->column.not_null)
        return sql__errp(err, al->column.pos, FL_EUNSUPPORTED,
                         "This connector does not support adding not null columns");
      if (al->column.kind != SQL_COL_PHYSICAL || !al->column.type)
        return sql__errp(err, al->column.pos, FL_EUNSUPPORTED,
                         "Computed and metadata columns are not supported for Iceberg tables");
      op.kind = ICE_EV_ADD_COLUMN;
      op.name = al->column.name.name;
      if ((rc = iceberg_type(a, al->column.type, &op.type, err))) return rc;
      if (al->column.comment)
        op.doc = fl_arena_strndup(a, al->column.comment, al->column.comment_len);
      if (!al->has_move || al->move == SQL_MOVE_LAST) return evolve(t, al, &op, err);
      /* FIRST | AFTER x: the add and the move in one change (adds come first). */
      const char *full = op.parent ? fl_arena_sprintf(a, "%s.%s", op.parent, op.name) : op.name;
      ice_evolve_op_t ops[2] = {
          op,
          {.kind = al->move == SQL_MOVE_FIRST ? ICE_EV_MOVE_FIRST : ICE_EV_MOVE_AFTER,
           .name = full,
           .ignore_case = true}};
      ops[0].ignore_case = true;
      if (al->move == SQL_MOVE_AFTER) {
        sql_qname_t ref = al->move_ref;
        if (path->n > 1 && ref.n == 1) {
          /* AFTER g inside row s: the sibling s.g. */
          sql_ident_t *parts = fl_arena_zalloc(a, path->n * sizeof *parts);
          memcpy(parts, path->parts, (path->n - 1) * sizeof *parts);
          parts[path->n - 1] = ref.parts[0];
          ref = (sql_qname_t){parts, path->n};
        }
        if (!find_path(sc, &ref, ref.n, NULL))
          return sql__errp(err, al->move_ref.parts[0].pos, FL_ENOTFOUND,
                           "Column '%s' does not exist", qname_text(a, &al->move_ref));
        ops[1].ref = schema_path(a, sc, &ref, ref.n);
      }
      rc = ice_evolve_apply(t, ops, 2, err);
      return rc ? sql__errp_wrap(err, al->pos, rc) : FL_OK;
    }
    case SQL_ALTER_DROP_COLUMN:
      if (!f) {
        if (al->if_exists) return FL_OK;
        return sql__errp(err, pos, FL_ENOTFOUND, "Column '%s' does not exist", shown);
      }
      if (path->n == 1 && sc->root.nfields == 1)
        return sql__errp(err, pos, FL_EINVALID, "Cannot drop the only column in a table");
      op.kind = ICE_EV_DROP_COLUMN;
      op.name = schema_path(a, sc, path, path->n);
      return evolve(t, al, &op, err);
    case SQL_ALTER_RENAME_COLUMN:
      if (!f) {
        if (al->if_exists) return FL_OK;
        return sql__errp(err, pos, FL_ENOTFOUND, "Column '%s' does not exist", shown);
      }
      for (uint32_t k = 0; parent && k < parent->nfields; k++)
        if (&parent->fields[k] != f && !strcasecmp(parent->fields[k].name, al->new_name.name))
          return sql__errp(err, al->new_name.pos, FL_EEXISTS, "Column '%s' already exists",
                           al->new_name.name);
      if (!strcmp(f->name, al->new_name.name)) return FL_OK;
      op.kind = ICE_EV_RENAME_COLUMN;
      op.name = schema_path(a, sc, path, path->n);
      op.new_name = al->new_name.name;
      return evolve(t, al, &op, err);
    case SQL_ALTER_SET_TYPE: {
      if (!f) return sql__errp(err, pos, FL_ENOTFOUND, "Column '%s' does not exist", shown);
      const ty_type_t *to;
      if ((rc = iceberg_type(a, al->type, &to, err))) return rc;
      if (ty_type_equal(f->type, to)) return FL_OK;
      if (ty_is_nested(f->type) || ty_is_nested(to) || !promotion_allowed(f->type, to))
        return sql__errp(err, al->type->pos, FL_EUNSUPPORTED, "Cannot change type from %s to %s",
                         trino_type(a, f->type), trino_type(a, to));
      op.kind = ICE_EV_UPDATE_COLUMN;
      op.name = schema_path(a, sc, path, path->n);
      op.type = to;
      return evolve(t, al, &op, err);
    }
    case SQL_ALTER_DROP_NOT_NULL:
      if (!f) return sql__errp(err, pos, FL_ENOTFOUND, "Column '%s' does not exist", shown);
      if (!f->required) return FL_OK;
      op.kind = ICE_EV_MAKE_OPTIONAL;
      op.name = schema_path(a, sc, path, path->n);
      return evolve(t, al, &op, err);
    default: return sql__errp(err, al->pos, FL_EUNSUPPORTED, "unexpected ALTER TABLE action");
  }
}

/* ---- Spark's extensions: identifier fields, partition fields, moves, docs ---- */

static int set_identifier(fl_arena_t *a, ice_table_t *t, const sql_alter_t *al, fl_err_t *err) {
  const ty_schema_t *sc = ice_meta_schema(t->meta);
  const char **names = fl_arena_zalloc(a, (al->idents.n + sc->nidentifiers + 1) * sizeof *names);
  uint32_t n = 0;
  const char *verb = al->drop_identifier ? "drop" : "set";
  for (size_t i = 0; i < al->idents.n; i++) {
    const sql_ident_t *id = &al->idents.items[i];
    int idx = -1;
    for (uint32_t k = 0; k < sc->root.nfields; k++)
      if (!strcasecmp(sc->root.fields[k].name, id->name)) idx = (int)k;
    if (idx < 0)
      return sql__errp(err, id->pos, FL_ENOTFOUND,
                       "Cannot complete %s identifier fields operation: field %s not found", verb,
                       id->name);
    if (al->drop_identifier) {
      bool is_id = false;
      for (uint32_t k = 0; k < sc->nidentifiers; k++)
        is_id |= sc->identifier_ids[k] == sc->root.fields[idx].id;
      if (!is_id)
        return sql__errp(err, id->pos, FL_EINVALID,
                         "Cannot complete drop identifier fields operation: field %s is not an "
                         "identifier field",
                         id->name);
    }
    names[n++] = sc->root.fields[idx].name;
  }
  if (al->drop_identifier) {
    /* The current identifier fields without the listed ones. */
    uint32_t m = 0;
    const char **keep = fl_arena_zalloc(a, (sc->nidentifiers + 1) * sizeof *keep);
    for (uint32_t k = 0; k < sc->nidentifiers; k++) {
      const ty_field_t *f = ty_schema_find_id(sc, sc->identifier_ids[k]);
      bool dropped = false;
      for (uint32_t j = 0; f && j < n; j++) dropped |= !strcmp(names[j], f->name);
      if (f && !dropped) keep[m++] = f->name;
    }
    names = keep;
    n = m;
  }
  ice_evolve_op_t op = {.kind = ICE_EV_SET_IDENTIFIER, .names = names, .nnames = n};
  return evolve(t, al, &op, err);
}

/* The name of the default spec's field that `term` (a field name or a
 * transform term) denotes, or NULL. */
static const char *find_partition_field(fl_arena_t *a, const ice_meta_t *m, const char *term) {
  const ice_spec_t *cur = ice_meta_spec(m);
  for (uint32_t i = 0; cur && i < cur->nfields; i++)
    if (!strcasecmp(cur->fields[i].name, term)) return cur->fields[i].name;
  ice_spec_t *want;
  int32_t last = 999;
  fl_err_t ignored;
  if (ice_spec_parse(a, term, ice_meta_schema(m), 0, &last, &want, &ignored) || want->nfields != 1)
    return NULL;
  for (uint32_t i = 0; cur && i < cur->nfields; i++)
    if (cur->fields[i].source_id == want->fields[0].source_id &&
        ice_transform_equal(&cur->fields[i].transform, &want->fields[0].transform))
      return cur->fields[i].name;
  return NULL;
}

static int partition_field(fl_arena_t *a, ice_table_t *t, const sql_alter_t *al, fl_err_t *err) {
  ice_evolve_op_t ops[2] = {{0}};
  uint32_t n = 0;
  if (al->part_old) {
    const char *name = find_partition_field(a, t->meta, al->part_old);
    if (!name)
      return sql__errp(err, al->part_old_pos, FL_ENOTFOUND,
                       "Cannot find partition field to remove: %s", al->part_old);
    ops[n++] = (ice_evolve_op_t){.kind = ICE_EV_DROP_PARTITION, .name = name};
  }
  if (al->part_term)
    ops[n++] = (ice_evolve_op_t){
        .kind = ICE_EV_ADD_PARTITION, .term = al->part_term, .name = al->part_name.name};
  int rc = ice_evolve_apply(t, ops, n, err);
  return rc ? sql__errp_wrap(err, al->pos, rc) : FL_OK;
}

static int move_or_comment(fl_arena_t *a, ice_table_t *t, const sql_alter_t *al, fl_err_t *err) {
  const ty_schema_t *sc = ice_meta_schema(t->meta);
  const sql_qname_t *path = &al->target;
  if (!find_path(sc, path, path->n, NULL))
    return sql__errp(err, path->parts[0].pos, FL_ENOTFOUND, "Column '%s' does not exist",
                     qname_text(a, path));
  ice_evolve_op_t op = {.name = schema_path(a, sc, path, path->n)};
  if (al->kind == SQL_ALTER_COLUMN_COMMENT) {
    op.kind = ICE_EV_UPDATE_DOC;
    op.doc = fl_arena_strndup(a, al->column.comment, al->column.comment_len);
    return evolve(t, al, &op, err);
  }
  op.kind = al->move == SQL_MOVE_FIRST   ? ICE_EV_MOVE_FIRST
            : al->move == SQL_MOVE_AFTER ? ICE_EV_MOVE_AFTER
                                         : ICE_EV_MOVE_BEFORE;
  if (al->move != SQL_MOVE_FIRST) {
    const sql_qname_t *ref = &al->move_ref;
    if (!find_path(sc, ref, ref->n, NULL))
      return sql__errp(err, ref->parts[0].pos, FL_ENOTFOUND, "Column '%s' does not exist",
                       qname_text(a, ref));
    op.ref = schema_path(a, sc, ref, ref->n);
  }
  return evolve(t, al, &op, err);
}

static int comment_edit(ice_meta_t *m, void *arg, fl_err_t *err) {
  (void)err;
  const char *const *text = arg;
  ice_meta_set_property(m, "comment", *text);
  return FL_OK;
}

int sql__exec_comment(sql_session_t *s, fl_arena_t *a, const sql_stmt_t *st, fl_err_t *err) {
  const sql_qname_t *q = &st->u.comment.name;
  sql_qname_t table = {q->parts, st->u.comment.column ? q->n - 1 : q->n};
  if (!s->catalog) return sql__errp(err, st->pos, FL_EUNSUPPORTED, "no catalog");
  ice_table_t *t;
  int rc = sql__ddl_open(s, a, &table, &t, err);
  if (rc) return rc;
  const char *text =
      st->u.comment.text ? fl_arena_strndup(a, st->u.comment.text, st->u.comment.len) : NULL;
  if (!st->u.comment.column) {
    rc = ice_commit_meta_edit(t, comment_edit, &text, err);
    return rc ? sql__errp_wrap(err, st->pos, rc) : FL_OK;
  }
  const ty_schema_t *sc = ice_meta_schema(t->meta);
  sql_qname_t col = {q->parts + q->n - 1, 1};
  if (!find_path(sc, &col, 1, NULL))
    return sql__errp(err, col.parts[0].pos, FL_ENOTFOUND, "Column '%s' does not exist",
                     col.parts[0].name);
  ice_evolve_op_t op = {.kind = ICE_EV_UPDATE_DOC,
                        .ignore_case = true,
                        .name = schema_path(a, sc, &col, 1),
                        .doc = text};
  rc = ice_evolve_apply(t, &op, 1, err);
  return rc ? sql__errp_wrap(err, st->pos, rc) : FL_OK;
}

/* ---- SET PROPERTIES ---- */

/* What one SET PROPERTIES statement changes, applied to each commit attempt. */
typedef struct prop_change {
  fl_arena_t *a;
  const char *partitioning;    /* "day(ts), bucket(id, 16)"; "" unpartitions; NULL: unchanged */
  const char *sorted_by;       /* "" unsorted; NULL: unchanged */
  int format_version;          /* 0: unchanged */
  const char **keys, **values; /* values[i] NULL removes */
  size_t nprops;
} prop_change_t;

/* ARRAY['a', 'b'] as "a, b" (an empty array as ""). */
static int string_list(fl_arena_t *a, const sql_property_t *p, const char **out, fl_err_t *err) {
  const sql_expr_t *v = p->value;
  if (!v || v->kind != SQL_E_ARRAY)
    return sql__errp(err, v ? v->pos : p->key.pos, FL_EINVALID,
                     "Table property '%s' takes an array of strings", p->key.name);
  fl_buf_t buf;
  fl_buf_init(&buf);
  for (size_t i = 0; i < v->u.row.items.n; i++) {
    const sql_expr_t *x = v->u.row.items.items[i];
    if (x->kind != SQL_E_STRING) {
      fl_buf_free(&buf);
      return sql__errp(err, x->pos, FL_EINVALID, "Table property '%s' takes an array of strings",
                       p->key.name);
    }
    if (i) fl_buf_append_str(&buf, ", ");
    fl_buf_append(&buf, x->u.str.data, x->u.str.len);
  }
  fl_buf_append_u8(&buf, 0);
  *out = fl_arena_strdup(a, (const char *)buf.data);
  fl_buf_free(&buf);
  return FL_OK;
}

/* A literal as the text of an Iceberg property value. */
static int literal_text(fl_arena_t *a, const sql_property_t *p, const char **out, fl_err_t *err) {
  const sql_expr_t *v = p->value;
  bool neg = v->kind == SQL_E_UNARY && v->u.unary.op == SQL_UN_NEG;
  if (neg) v = v->u.unary.arg;
  switch (v->kind) {
    case SQL_E_STRING: *out = fl_arena_strndup(a, v->u.str.data, v->u.str.len); return FL_OK;
    case SQL_E_INT: *out = fl_arena_sprintf(a, "%s%s", neg ? "-" : "", v->u.i.text); return FL_OK;
    case SQL_E_DECIMAL:
    case SQL_E_DOUBLE:
      *out = fl_arena_sprintf(a, "%s%s", neg ? "-" : "", v->u.num.text);
      return FL_OK;
    case SQL_E_BOOL:
      if (neg) break;
      *out = v->u.b ? "true" : "false";
      return FL_OK;
    default: break;
  }
  return sql__errp(err, p->value->pos, FL_EINVALID,
                   "Table property '%s' takes a literal value (a string, number or boolean)",
                   p->key.name);
}

static void add_prop(prop_change_t *c, const char *k, const char *v) {
  for (size_t i = 0; i < c->nprops; i++)
    if (!strcmp(c->keys[i], k)) {
      c->values[i] = v;
      return;
    }
  c->keys[c->nprops] = k;
  c->values[c->nprops++] = v;
}

/* Trino's Iceberg table properties that are plain Iceberg properties. */
static const struct {
  const char *trino, *iceberg;
  bool boolean;
} mapped[] = {
    {"object_store_layout_enabled", "write.object-storage.enabled", true},
    {"data_location", "write.data.path", false},
    {"max_commit_retry", "commit.retry.num-retries", false},
    {"orc_bloom_filter_fpp", "write.orc.bloom.filter.fpp", false},
};

static int collect_props(fl_arena_t *a, const sql_prop_list_t *pl, prop_change_t *c,
                         fl_err_t *err) {
  c->keys = fl_arena_zalloc(a, (pl->n * 4 + 1) * sizeof *c->keys);
  c->values = fl_arena_zalloc(a, (pl->n * 4 + 1) * sizeof *c->values);
  int rc;
  for (size_t i = 0; i < pl->n; i++) {
    const sql_property_t *p = &pl->items[i];
    const char *k = p->key.name;
    for (size_t j = 0; j < i; j++)
      if (!strcmp(pl->items[j].key.name, k))
        return sql__errp(err, p->key.pos, FL_EINVALID, "Duplicate property: %s", k);
    if (p->key_is_string && strcmp(k, "format-version") != 0) {
      /* An Iceberg property by its own name. */
      const char *v = NULL;
      if (p->value && (rc = literal_text(a, p, &v, err))) return rc;
      add_prop(c, k, v);
      continue;
    }
    if (!strcmp(k, "partitioning")) {
      if (!p->value)
        c->partitioning = "";
      else if ((rc = string_list(a, p, &c->partitioning, err)))
        return rc;
    } else if (!strcmp(k, "sorted_by")) {
      if (!p->value)
        c->sorted_by = "";
      else if ((rc = string_list(a, p, &c->sorted_by, err)))
        return rc;
    } else if (!strcmp(k, "format_version") || !strcmp(k, "format-version")) {
      /* 'format-version' is Iceberg's reserved property for the same upgrade. */
      const sql_expr_t *v = p->value;
      if (v && v->kind == SQL_E_STRING && v->u.str.len == 1 && v->u.str.data[0] >= '1' &&
          v->u.str.data[0] <= '3') {
        c->format_version = v->u.str.data[0] - '0';
        continue;
      }
      if (!v || v->kind != SQL_E_INT || v->u.i.value < 1 || v->u.i.value > 3)
        return sql__errp(err, v ? v->pos : p->key.pos, FL_EINVALID,
                         "format_version must be 1, 2 or 3");
      c->format_version = (int)v->u.i.value;
    } else if (!strcmp(k, "format")) {
      const sql_expr_t *v = p->value;
      if (v && (v->kind != SQL_E_STRING || v->u.str.len != 7 ||
                strncasecmp(v->u.str.data, "parquet", 7)))
        return sql__errp(err, v->pos, FL_EUNSUPPORTED, "floe writes Parquet data files only");
      add_prop(c, "write.format.default", v ? "PARQUET" : NULL);
    } else if (!strcmp(k, "extra_properties")) {
      /* MAP(ARRAY['k', ...], ARRAY['v', ...]): Iceberg properties as they are. */
      const sql_expr_t *v = p->value;
      const sql_expr_t *ks = NULL, *vs = NULL;
      if (v && v->kind == SQL_E_CALL && v->u.call.name.n == 1 &&
          !strcmp(v->u.call.name.parts[0].name, "map") && v->u.call.args.n == 2) {
        ks = v->u.call.args.items[0];
        vs = v->u.call.args.items[1];
      }
      if (!ks || ks->kind != SQL_E_ARRAY || vs->kind != SQL_E_ARRAY ||
          ks->u.row.items.n != vs->u.row.items.n)
        return sql__errp(err, v ? v->pos : p->key.pos, FL_EINVALID,
                         "extra_properties takes MAP(ARRAY['key', ...], ARRAY['value', ...])");
      size_t n = ks->u.row.items.n;
      const char **nk = fl_arena_zalloc(a, (c->nprops + n + pl->n * 4 + 1) * sizeof *nk);
      const char **nv = fl_arena_zalloc(a, (c->nprops + n + pl->n * 4 + 1) * sizeof *nv);
      memcpy(nk, c->keys, c->nprops * sizeof *nk);
      memcpy(nv, c->values, c->nprops * sizeof *nv);
      c->keys = nk;
      c->values = nv;
      for (size_t j = 0; j < n; j++) {
        const sql_expr_t *ke = ks->u.row.items.items[j], *ve = vs->u.row.items.items[j];
        if (ke->kind != SQL_E_STRING || ve->kind != SQL_E_STRING)
          return sql__errp(err, ke->kind != SQL_E_STRING ? ke->pos : ve->pos, FL_EINVALID,
                           "extra_properties takes string keys and values");
        add_prop(c, fl_arena_strndup(a, ke->u.str.data, ke->u.str.len),
                 fl_arena_strndup(a, ve->u.str.data, ve->u.str.len));
      }
    } else if (!strcmp(k, "location")) {
      return sql__errp(err, p->key.pos, FL_EUNSUPPORTED,
                       "The following properties cannot be updated: location");
    } else if (!strcmp(k, "orc_bloom_filter_columns")) {
      const char *v = NULL;
      if (p->value && (rc = string_list(a, p, &v, err))) return rc;
      add_prop(c, "write.orc.bloom.filter.columns", v && *v ? v : NULL);
    } else if (!strcmp(k, "parquet_bloom_filter_columns")) {
      const char *v = "";
      if (p->value && (rc = string_list(a, p, &v, err))) return rc;
      /* One property per column; listing replaces the set (applied in the edit). */
      add_prop(c, "\x01parquet_bloom", v);
    } else {
      size_t m = 0;
      for (; m < sizeof mapped / sizeof mapped[0]; m++)
        if (!strcmp(k, mapped[m].trino)) break;
      if (m == sizeof mapped / sizeof mapped[0])
        return sql__errp(err, p->key.pos, FL_EINVALID, "Table property '%s' does not exist", k);
      const char *v = NULL;
      if (p->value) {
        if ((rc = literal_text(a, p, &v, err))) return rc;
        if (mapped[m].boolean && strcmp(v, "true") && strcmp(v, "false"))
          return sql__errp(err, p->value->pos, FL_EINVALID, "Table property '%s' takes a boolean",
                           k);
      }
      add_prop(c, mapped[m].iceberg, v);
    }
  }
  return FL_OK;
}

/*
 * Partition evolution from the wanted list: a field of the default spec
 * that the list no longer has (same source and transform) is removed, a
 * listed term the spec lacks is added (ids reused from older specs).
 */
static int partition_ops(fl_arena_t *a, const ice_meta_t *m, const char *want_text,
                         ice_evolve_op_t **ops, uint32_t *n, fl_err_t *err) {
  const ty_schema_t *sc = ice_meta_schema(m);
  const ice_spec_t *cur = ice_meta_spec(m);
  ice_spec_t *want = NULL;
  int32_t last = 999;
  int rc = FL_OK;
  if (*want_text && (rc = ice_spec_parse(a, want_text, sc, 0, &last, &want, err))) return rc;
  uint32_t ncur = cur ? cur->nfields : 0, nwant = want ? want->nfields : 0;
  *ops = fl_arena_zalloc(a, (ncur + nwant + 1) * sizeof **ops);
  *n = 0;
  for (uint32_t i = 0; i < ncur; i++) {
    const ice_partition_field_t *pf = &cur->fields[i];
    if (pf->transform.kind == ICE_T_VOID) continue;
    bool kept = false;
    for (uint32_t j = 0; j < nwant && !kept; j++)
      kept = want->fields[j].source_id == pf->source_id &&
             ice_transform_equal(&want->fields[j].transform, &pf->transform);
    if (!kept) (*ops)[(*n)++] = (ice_evolve_op_t){.kind = ICE_EV_DROP_PARTITION, .name = pf->name};
  }
  /* The terms as written, one per wanted field. */
  char *copy = fl_arena_strdup(a, want_text);
  const char **terms = fl_arena_zalloc(a, (nwant + 1) * sizeof *terms);
  uint32_t nt = 0;
  int depth = 0;
  char *start = copy;
  for (char *p = copy;; p++) {
    if (*p == '(') depth++;
    if (*p == ')') depth--;
    if ((*p == ',' && depth == 0) || *p == 0) {
      bool end = *p == 0;
      *p = 0;
      if (nt < nwant) terms[nt++] = start;
      start = p + 1;
      if (end) break;
    }
  }
  for (uint32_t j = 0; j < nwant; j++) {
    bool have = false;
    for (uint32_t i = 0; i < ncur && !have; i++)
      have = cur->fields[i].source_id == want->fields[j].source_id &&
             ice_transform_equal(&cur->fields[i].transform, &want->fields[j].transform);
    if (!have && j < nt)
      (*ops)[(*n)++] = (ice_evolve_op_t){.kind = ICE_EV_ADD_PARTITION, .term = terms[j]};
  }
  return FL_OK;
}

static int props_edit(ice_meta_t *m, void *arg, fl_err_t *err) {
  prop_change_t *c = arg;
  int rc;
  if (c->format_version) {
    if (c->format_version < m->format_version)
      return fl_err_set(err, FL_EINVALID, "Cannot downgrade v%d table to v%d", m->format_version,
                        c->format_version);
    m->format_version = c->format_version;
  }
  if (c->partitioning) {
    ice_evolve_op_t *ops;
    uint32_t n;
    if ((rc = partition_ops(c->a, m, c->partitioning, &ops, &n, err))) return rc;
    if (n && (rc = ice_evolve_meta(m, ops, n, err))) return rc;
  }
  if (c->sorted_by) {
    ice_sort_order_t *so = NULL;
    if (*c->sorted_by) {
      if ((rc = ice_sort_order_parse(c->a, c->sorted_by, ice_meta_schema(m), 1, &so, err)))
        return rc;
    } else {
      so = fl_arena_zalloc(c->a, sizeof *so);
    }
    int32_t id;
    if ((rc = ice_meta_add_sort_order(m, so, &id, err))) return rc;
  }
  for (size_t i = 0; i < c->nprops; i++) {
    if (c->keys[i][0] != '\x01') {
      ice_meta_set_property(m, c->keys[i], c->values[i]);
      continue;
    }
    /* parquet_bloom_filter_columns: the listed columns, and no others. */
    static const char prefix[] = "write.parquet.bloom-filter-enabled.column.";
    for (uint32_t k = m->nproperties; k-- > 0;)
      if (!strncmp(m->properties[k].key, prefix, sizeof prefix - 1))
        ice_meta_set_property(m, m->properties[k].key, NULL);
    char *list = fl_arena_strdup(c->a, c->values[i]);
    for (char *tok = strtok(list, ", "); tok; tok = strtok(NULL, ", ")) {
      if (ty_schema_find_name(ice_meta_schema(m), tok) < 0)
        return fl_err_set(err, FL_ENOTFOUND, "parquet_bloom_filter_columns: no column '%s'", tok);
      ice_meta_set_property(m, fl_arena_sprintf(c->a, "%s%s", prefix, tok), "true");
    }
  }
  return FL_OK;
}

static int set_properties(fl_arena_t *a, ice_table_t *t, const sql_alter_t *al, fl_err_t *err) {
  prop_change_t c = {.a = a};
  int rc = collect_props(a, &al->props, &c, err);
  if (rc) return rc;
  if ((rc = ice_commit_meta_edit(t, props_edit, &c, err))) return sql__errp_wrap(err, al->pos, rc);
  return FL_OK;
}

/* ---- branches and tags ---- */

static int64_t unit_ms(sql_retain_unit_t u) {
  return u == SQL_RETAIN_DAYS ? 86400000LL : u == SQL_RETAIN_HOURS ? 3600000LL : 60000LL;
}

static int create_ref(ice_table_t *t, const sql_alter_t *al, fl_err_t *err) {
  const char *name = al->ref_name.name;
  ice_ref_t r = {.name = name,
                 .snapshot_id = -1,
                 .is_tag = al->ref == SQL_REF_TAG,
                 .max_ref_age_ms = -1,
                 .max_snapshot_age_ms = -1,
                 .min_snapshots_to_keep = -1};
  if (al->as_of_version) {
    const sql_expr_t *v = al->as_of_version;
    if (v->kind != SQL_E_INT || v->u.i.value < 0)
      return sql__errp(err, v->pos, FL_EINVALID, "AS OF VERSION takes a snapshot id");
    r.snapshot_id = v->u.i.value;
  }
  if (al->has_retain) {
    if (al->retain < 1)
      return sql__errp(err, al->pos, FL_EINVALID, "RETAIN needs a positive number");
    r.max_ref_age_ms = al->retain * unit_ms(al->retain_unit);
  }
  if (al->has_min_snapshots) {
    if (al->min_snapshots < 1 || al->min_snapshots > INT32_MAX)
      return sql__errp(err, al->pos, FL_EINVALID, "Min snapshots to keep must be at least 1");
    r.min_snapshots_to_keep = (int32_t)al->min_snapshots;
  }
  if (al->has_snapshot_age) {
    if (al->snapshot_age < 1)
      return sql__errp(err, al->pos, FL_EINVALID, "Max snapshot age must be positive");
    r.max_snapshot_age_ms = al->snapshot_age * unit_ms(al->snapshot_age_unit);
  }
  if (r.is_tag && !strcmp(name, "main"))
    return sql__errp(err, al->ref_name.pos, FL_EINVALID, "main is a branch, not a tag");
  const ice_ref_t *old = ice_meta_ref(t->meta, name);
  if (old && al->if_not_exists) return FL_OK;
  if (old && !al->or_replace && !al->replace_only)
    return sql__errp(err, al->ref_name.pos, FL_EEXISTS, "Ref %s already exists", name);
  if (!old && al->replace_only)
    return sql__errp(err, al->ref_name.pos, FL_ENOTFOUND, "%s does not exist: %s",
                     al->ref == SQL_REF_TAG ? "Tag" : "Branch", name);
  int rc = ice_set_ref(t, &r, al->or_replace, al->replace_only, err);
  return rc ? sql__errp_wrap(err, al->pos, rc) : FL_OK;
}

static int drop_ref(ice_table_t *t, const sql_alter_t *al, fl_err_t *err) {
  const char *name = al->ref_name.name;
  const ice_ref_t *old = ice_meta_ref(t->meta, name);
  bool tag = al->ref == SQL_REF_TAG;
  if (!old || old->is_tag != tag) {
    if (!old && al->if_exists) return FL_OK;
    if (old)
      return sql__errp(err, al->ref_name.pos, FL_EINVALID, "Ref %s is a %s not a %s", name,
                       old->is_tag ? "tag" : "branch", tag ? "tag" : "branch");
    return sql__errp(err, al->ref_name.pos, FL_ENOTFOUND, "%s does not exist: %s",
                     tag ? "Tag" : "Branch", name);
  }
  int rc = ice_drop_ref(t, name, err);
  return rc ? sql__errp_wrap(err, al->pos, rc) : FL_OK;
}

/* ---- the statement ---- */

static int rename_table(sql_session_t *s, const sql_stmt_t *st, fl_err_t *err) {
  const sql_alter_t *al = &st->u.alter_table.alter;
  const char *ns, *name, *ns2, *name2;
  sql__table_ident(s, &st->u.alter_table.name, &ns, &name);
  if (al->target.n > 3)
    return sql__errp(err, al->target.parts[0].pos, FL_EINVALID, "Too many dots in table name");
  sql__table_ident(s, &al->target, &ns2, &name2);
  int rc = cat_table_rename(s->catalog, ns, name, ns2, name2, err);
  if (rc == FL_EEXISTS)
    return sql__errp(err, al->target.parts[0].pos, rc, "Target table '%s.%s' already exists", ns2,
                     name2);
  if (rc == FL_ENOTFOUND) {
    bool exists = false;
    fl_err_t e2;
    if (cat_ns_exists(s->catalog, ns2, &exists, &e2) == FL_OK && !exists)
      return sql__errp(err, al->target.parts[0].pos, rc, "Schema '%s' does not exist", ns2);
    if (st->u.alter_table.if_exists) {
      fl_err_clear(err);
      return FL_OK;
    }
    return sql__errp(err, st->u.alter_table.name.parts[0].pos, rc, "Table '%s.%s' does not exist",
                     ns, name);
  }
  return rc ? sql__errp_wrap(err, al->pos, rc) : FL_OK;
}

int sql__exec_alter(sql_session_t *s, fl_arena_t *a, const char *text, size_t len,
                    const sql_stmt_t *st, sql_result_t *res, fl_err_t *err) {
  const sql_alter_t *al = &st->u.alter_table.alter;
  if (!s->catalog) return sql__errp(err, st->pos, FL_EUNSUPPORTED, "no catalog");
  if (al->kind == SQL_ALTER_RENAME_TO) return rename_table(s, st, err);
  ice_table_t *t;
  int rc = sql__ddl_open(s, a, &st->u.alter_table.name, &t, err);
  if (rc == FL_ENOTFOUND && st->u.alter_table.if_exists) {
    fl_err_clear(err);
    return FL_OK;
  }
  if (rc) return rc;
  switch (al->kind) {
    case SQL_ALTER_ADD_COLUMN:
    case SQL_ALTER_DROP_COLUMN:
    case SQL_ALTER_RENAME_COLUMN:
    case SQL_ALTER_SET_TYPE:
    case SQL_ALTER_DROP_NOT_NULL: return alter_column(a, t, al, err);
    case SQL_ALTER_SET_PROPERTIES: return set_properties(a, t, al, err);
    case SQL_ALTER_CREATE_REF: return create_ref(t, al, err);
    case SQL_ALTER_DROP_REF: return drop_ref(t, al, err);
    case SQL_ALTER_EXECUTE: return sql__exec_table_procedure(s, a, text, len, st, t, res, err);
    case SQL_ALTER_SET_IDENTIFIER: return set_identifier(a, t, al, err);
    case SQL_ALTER_ADD_PARTITION_FIELD:
    case SQL_ALTER_DROP_PARTITION_FIELD:
    case SQL_ALTER_REPLACE_PARTITION_FIELD: return partition_field(a, t, al, err);
    case SQL_ALTER_MOVE_COLUMN:
    case SQL_ALTER_COLUMN_COMMENT: return move_or_comment(a, t, al, err);
    default: return sql__errp(err, al->pos, FL_EUNSUPPORTED, "unexpected ALTER TABLE action");
  }
}
