/*
 * sql_bind_nested.c - binding access into nested values (layer 7, sql):
 * row fields, written (r).f or, as Trino resolves a dotted name that no
 * column matches, r.f and t.r.f; and subscripts a[i] (arrays, from 1) and
 * m[k] (maps), which are the resolver's "[]" overloads. Field names match
 * case-insensitively, as column names do.
 */
#include <strings.h>

#include "sql/sql_bind_int.h"

/* Field `name` of the row value e. */
static int field_of(sql_binder_t *b, sql_bexpr_t *e, const sql_ident_t *name, sql_bexpr_t **out) {
  if (e->type.kind != SQL_DT_ROW)
    return sql__errf(b, name->pos, FL_EINVALID,
                     "Expression of type %s does not have a field named '%s'",
                     sql_dtype_str(&e->type), name->name);
  for (uint32_t i = 0; i < e->type.nfields; i++) {
    if (!e->type.fields[i].name || strcasecmp(e->type.fields[i].name, name->name) != 0) continue;
    sql_bexpr_t *f = fl_arena_zalloc(b->a, sizeof *f);
    f->kind = SQL_BX_FIELD;
    f->pos = name->pos;
    f->col = i;
    f->type = e->type.fields[i].type;
    f->nargs = 1;
    f->args = fl_arena_zalloc(b->a, sizeof *f->args);
    f->args[0] = e;
    *out = f;
    return FL_OK;
  }
  return sql__errf(b, name->pos, FL_EINVALID, "Column '%s' cannot be resolved", name->name);
}

int sql__bind_deref(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x, sql_bexpr_t **out) {
  sql_bexpr_t *base;
  int rc = sql__bind_expr(b, cx, x->u.deref.base, &base);
  if (rc) return rc;
  return field_of(b, base, &x->u.deref.field, out);
}

int sql__bind_row_path(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x,
                       sql_bexpr_t **out) {
  const sql_qname_t *q = &x->u.column;
  fl_err_t saved = *b->err;
  sql_ectx_t quiet = *cx;
  quiet.quiet = true;
  /* The longest prefix that names a column; the rest are its fields. */
  for (size_t k = q->n - 1; k >= 1; k--) {
    sql_expr_t col = {.kind = SQL_E_COLUMN, .pos = x->pos};
    col.u.column = (sql_qname_t){.parts = q->parts, .n = k};
    sql_bexpr_t *e;
    if (sql__bind_expr(b, &quiet, &col, &e) != FL_OK) continue;
    size_t i = k;
    for (; i < q->n; i++)
      if (field_of(b, e, &q->parts[i], &e) != FL_OK) break;
    if (i < q->n) continue;
    *b->err = saved;
    *out = e;
    return FL_OK;
  }
  *b->err = saved;
  return FL_ENOTFOUND;
}

int sql__bind_subscript(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x,
                        sql_bexpr_t **out) {
  sql_bexpr_t *args[2];
  int rc;
  if ((rc = sql__bind_expr(b, cx, x->u.subscript.base, &args[0])) ||
      (rc = sql__bind_expr(b, cx, x->u.subscript.index, &args[1])))
    return rc;
  if (args[0]->type.kind != SQL_DT_ARRAY && args[0]->type.kind != SQL_DT_MAP)
    return sql__errf(b, x->pos, FL_EINVALID, "Cannot use subscript on a value of type %s",
                     sql_dtype_str(&args[0]->type));
  return sql__call(b, "[]", x->pos, args, 2, out);
}

/* Binds the items of a constructor. */
static int bind_items(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x,
                      sql_bexpr_t ***out) {
  size_t n = x->u.row.items.n;
  sql_bexpr_t **args = fl_arena_zalloc(b->a, (n ? n : 1) * sizeof *args);
  for (size_t i = 0; i < n; i++) {
    int rc = sql__bind_expr(b, cx, x->u.row.items.items[i], &args[i]);
    if (rc) return rc;
  }
  *out = args;
  return FL_OK;
}

/* ARRAY[x, ...]: the elements take their common super type. Longer lists
 * than one call takes are built in pieces and concatenated. */
int sql__bind_array(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x, sql_bexpr_t **out) {
  sql_bexpr_t **args;
  int rc = bind_items(b, cx, x, &args);
  if (rc) return rc;
  size_t n = x->u.row.items.n;
  if (n == 0) return sql__call(b, "$array_empty", x->pos, NULL, 0, out);
  if (n <= SQL_MAX_ARGS) return sql__call(b, "array_constructor", x->pos, args, (uint32_t)n, out);
  /* The common element type first, so that every piece has it. */
  sql_dtype_t t = args[0]->type;
  for (size_t i = 1; i < n; i++)
    if (!b->o->resolver->common(b->o->resolver->ctx, &t, &args[i]->type, &t))
      return sql__errf(b, args[i]->pos, FL_EINVALID,
                       "All ARRAY elements must be the same type: %s, %s",
                       sql_dtype_str(&args[0]->type), sql_dtype_str(&args[i]->type));
  sql_bexpr_t *acc = NULL;
  for (size_t at = 0; at < n; at += SQL_MAX_ARGS) {
    uint32_t k = (uint32_t)(n - at < SQL_MAX_ARGS ? n - at : SQL_MAX_ARGS);
    for (uint32_t i = 0; i < k; i++)
      if ((rc = sql__coerce(b, args[at + i], &t, &args[at + i]))) return rc;
    sql_bexpr_t *piece;
    if ((rc = sql__call(b, "array_constructor", x->pos, args + at, k, &piece))) return rc;
    if (!acc) {
      acc = piece;
      continue;
    }
    sql_bexpr_t *two[2] = {acc, piece};
    if ((rc = sql__call(b, "concat", x->pos, two, 2, &acc))) return rc;
  }
  *out = acc;
  return FL_OK;
}

/* ROW(x, ...) and (x, y): a row of anonymous fields of the items' types. */
int sql__bind_row(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x, sql_bexpr_t **out) {
  sql_bexpr_t **args;
  int rc = bind_items(b, cx, x, &args);
  if (rc) return rc;
  size_t n = x->u.row.items.n;
  if (n > SQL_MAX_ARGS)
    return sql__errf(b, x->pos, FL_ELIMIT, "A row has at most %d fields", SQL_MAX_ARGS);
  sql_bexpr_t *e;
  if ((rc = sql__call(b, "$row", x->pos, args, (uint32_t)n, &e))) return rc;
  sql_dfield_t *f = fl_arena_zalloc(b->a, (n ? n : 1) * sizeof *f);
  for (size_t i = 0; i < n; i++) f[i].type = e->args[i]->type;
  e->type = (sql_dtype_t){.kind = SQL_DT_ROW, .fields = f, .nfields = (uint32_t)n};
  *out = e;
  return FL_OK;
}

static bool orderable(const sql_dtype_t *t) {
  switch (t->kind) {
    case SQL_DT_MAP:
    case SQL_DT_JSON: return false;
    case SQL_DT_ARRAY: return !t->elem || orderable(t->elem);
    case SQL_DT_ROW:
      for (uint32_t i = 0; i < t->nfields; i++)
        if (!orderable(&t->fields[i].type)) return false;
      return true;
    default: return true;
  }
}

int sql__check_orderable(sql_binder_t *b, sql_pos_t pos, const sql_dtype_t *t,
                         const char *clause) {
  if (orderable(t)) return FL_OK;
  return sql__errf(b, pos, FL_EINVALID, "Type %s is not orderable, and therefore cannot be used in %s",
                   sql_dtype_str(t), clause);
}
