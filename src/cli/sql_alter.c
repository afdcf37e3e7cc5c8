/*
 * sql_alter.c - ALTER TABLE in `floe sql` (layer 12, cli): the columns,
 * the table's name, and the dispatch of the other actions.
 *
 * Trino's spellings, each one Iceberg metadata commit:
 *
 *   ADD COLUMN [IF NOT EXISTS] c type [COMMENT '...'] [FIRST | LAST | AFTER x]
 *       (s.f adds to row s)
 *   DROP COLUMN [IF EXISTS] c | RENAME COLUMN [IF EXISTS] a TO b
 *   ALTER COLUMN c SET DATA TYPE type | ALTER COLUMN c DROP NOT NULL
 *       - schema evolution through ice_evolve (Java's SchemaUpdate rules:
 *         new field ids, only int->bigint, real->double and wider decimal
 *         precision as type changes);
 *   RENAME TO t2 - the catalog entry;
 *   COMMENT ON TABLE | COLUMN - the table's "comment" property, a column's doc;
 * and Spark's SET | DROP IDENTIFIER FIELDS, ALTER COLUMN c FIRST | AFTER x |
 * BEFORE x and ALTER COLUMN c COMMENT '...'. SET PROPERTIES and the
 * partition field statements are sql_alter_props.c, branches and tags
 * sql_refs.c, EXECUTE sql_execute.c.
 *
 * Error texts follow Trino's (Column 'c' already exists, Cannot change
 * type from integer to varchar, ...); Iceberg's own messages pass through
 * with the statement's position.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "catalog/cat_tables.h"
#include "cli/sql_ddl_int.h"
#include "exec/ex_plan.h"
#include "iceberg/ice_commit.h"
#include "iceberg/ice_evolve.h"
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
    case SQL_ALTER_SET_PROPERTIES: return sql__alter_properties(a, t, al, err);
    case SQL_ALTER_CREATE_REF: return sql__alter_create_ref(t, al, err);
    case SQL_ALTER_DROP_REF: return sql__alter_drop_ref(t, al, err);
    case SQL_ALTER_EXECUTE: return sql__exec_table_procedure(s, a, text, len, st, t, res, err);
    case SQL_ALTER_SET_IDENTIFIER: return set_identifier(a, t, al, err);
    case SQL_ALTER_ADD_PARTITION_FIELD:
    case SQL_ALTER_DROP_PARTITION_FIELD:
    case SQL_ALTER_REPLACE_PARTITION_FIELD: return sql__alter_partition_field(a, t, al, err);
    case SQL_ALTER_MOVE_COLUMN:
    case SQL_ALTER_COLUMN_COMMENT: return move_or_comment(a, t, al, err);
    default: return sql__errp(err, al->pos, FL_EUNSUPPORTED, "unexpected ALTER TABLE action");
  }
}
