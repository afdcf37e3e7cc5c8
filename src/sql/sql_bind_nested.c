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
    if (strcasecmp(e->type.fields[i].name, name->name) != 0) continue;
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
