/*
 * sql_bind_dml.c - binding the row-level statements DELETE, UPDATE and
 * MERGE (layer 7, sql).
 *
 * Each becomes one query whose rows say what happens to which table row,
 * so that the binder, the optimizer and the executor do all the work of
 * finding them (subqueries in conditions, joins, casts):
 *
 *   DELETE FROM t WHERE c     SELECT t."$path", t."$pos" FROM t WHERE c
 *   UPDATE t SET a = e WHERE c
 *                             SELECT t."$path", t."$pos", <the new row> FROM t WHERE c
 *   MERGE INTO t USING s ON c WHEN ...
 *                             SELECT t."$path", t."$pos", <per clause: its
 *                             condition, then its new row> FROM t RIGHT JOIN s ON c
 *
 * "$path" and "$pos" are the scan's hidden row identity; in MERGE a NULL
 * "$path" marks a source row that matched no target row. New rows have
 * one column per table column in table order, cast to the column's type
 * with the insert coercions (unassigned columns keep their value in an
 * UPDATE and are NULL in an INSERT). The table is read at the snapshot the
 * returned handle holds, which the commit validates against.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "iceberg/ice_meta.h"
#include "sql/sql_bind_int.h"

typedef struct dml_builder {
  sql_binder_t *b;
  const sql_qname_t *qual; /* how the target's columns are qualified */
  sql_select_item_t *items;
  size_t nitems, cap;
} dml_builder_t;

static sql_expr_t *column_expr(fl_arena_t *a, const sql_qname_t *qual, const char *name,
                               sql_pos_t pos) {
  sql_expr_t *e = fl_arena_zalloc(a, sizeof *e);
  e->kind = SQL_E_COLUMN;
  e->pos = pos;
  sql_ident_t *parts = fl_arena_zalloc(a, (qual->n + 1) * sizeof *parts);
  for (size_t i = 0; i < qual->n; i++) parts[i] = qual->parts[i];
  parts[qual->n] = (sql_ident_t){.name = name, .quoted = true, .pos = pos};
  e->u.column = (sql_qname_t){.parts = parts, .n = qual->n + 1};
  return e;
}

static uint32_t add_item(dml_builder_t *d, sql_expr_t *e) {
  if (d->nitems == d->cap) {
    size_t cap = d->cap ? 2 * d->cap : 16;
    sql_select_item_t *bigger = fl_arena_zalloc(d->b->a, cap * sizeof *bigger);
    if (d->nitems) memcpy(bigger, d->items, d->nitems * sizeof *bigger);
    d->items = bigger;
    d->cap = cap;
  }
  d->items[d->nitems] = (sql_select_item_t){.kind = SQL_ITEM_EXPR, .expr = e, .pos = e->pos};
  return (uint32_t)d->nitems++;
}

static sql_expr_t *null_expr(fl_arena_t *a, sql_pos_t pos) {
  sql_expr_t *e = fl_arena_zalloc(a, sizeof *e);
  e->kind = SQL_E_NULL;
  e->pos = pos;
  return e;
}

/* The table column named by an assignment target or an INSERT column. */
static int find_column(sql_binder_t *b, const ty_schema_t *s, const char *name, sql_pos_t pos,
                       const char *what, uint32_t *out) {
  for (uint32_t i = 0; i < s->root.nfields; i++)
    if (strcasecmp(s->root.fields[i].name, name) == 0) {
      *out = i;
      return FL_OK;
    }
  return sql__errf(b, pos, FL_EINVALID, "%s column '%s' does not exist in the target table", what,
                   name);
}

/* Adds the items of one new row: values[i] for column i (NULL: keep
 * the target's value when keep, else NULL); returns the first item. */
static uint32_t add_row(dml_builder_t *d, const ty_schema_t *s, sql_expr_t **values, bool keep,
                        sql_pos_t pos) {
  uint32_t first = (uint32_t)d->nitems;
  for (uint32_t i = 0; i < s->root.nfields; i++) {
    sql_expr_t *e = values[i];
    if (!e)
      e = keep ? column_expr(d->b->a, d->qual, s->root.fields[i].name, pos)
               : null_expr(d->b->a, pos);
    add_item(d, e);
  }
  return first;
}

/* UPDATE SET and MERGE's UPDATE SET: the assigned expressions by column. */
static int assignments(sql_binder_t *b, const ty_schema_t *s, const sql_assignment_t *sets,
                       size_t n, const char *stmt, sql_expr_t **values) {
  for (size_t k = 0; k < n; k++) {
    const sql_qname_t *c = &sets[k].column;
    const sql_ident_t *last = &c->parts[c->n - 1];
    uint32_t i = 0;
    int rc = find_column(b, s, last->name, last->pos, stmt, &i);
    if (rc) return rc;
    if (values[i])
      return sql__errf(b, last->pos, FL_EINVALID, "Multiple assignments to column '%s'",
                       last->name);
    values[i] = sets[k].value;
  }
  return FL_OK;
}

static void pin_scans(sql_plan_t *p, const char *ident, ice_table_t *t, int64_t snapshot_id) {
  if (p->kind == SQL_P_SCAN && strcmp(p->u.scan.ident, ident) == 0 && p->u.scan.snapshot_id < 0 &&
      !p->u.scan.ref && p->u.scan.as_of_ms < 0) {
    p->u.scan.table = t;
    p->u.scan.snapshot_id = snapshot_id;
  }
  for (uint32_t i = 0; i < p->ninputs; i++) pin_scans(p->inputs[i], ident, t, snapshot_id);
}

int sql_bind_dml(fl_arena_t *a, const sql_bind_opts_t *o, const sql_stmt_t *st, sql_dml_t *out,
                 fl_err_t *err) {
  sql_binder_t b = {.a = a, .o = o, .err = err, .hidden = true};
  memset(out, 0, sizeof *out);
  const sql_qname_t *tname;
  const sql_ident_t *alias = NULL;
  switch (st->kind) {
    case SQL_S_DELETE:
      tname = &st->u.delete_.table;
      alias = &st->u.delete_.alias;
      break;
    case SQL_S_UPDATE: tname = &st->u.update.table; break;
    case SQL_S_MERGE:
      tname = &st->u.merge.target;
      alias = &st->u.merge.alias;
      break;
    case SQL_S_TRUNCATE: tname = &st->u.drop.name; break;
    default: return sql__errf(&b, st->pos, FL_EINVALID, "not a row-level statement");
  }
  ice_table_t *t;
  int rc = sql__open_table(&b, tname, tname->parts[0].pos, &t, &out->ns, &out->name);
  if (rc) return rc;
  out->table = t;
  const ice_snapshot_t *snap = ice_meta_current_snapshot(t->meta);
  out->snapshot_id = snap ? snap->snapshot_id : -1;
  const ty_schema_t *s = ice_meta_schema(t->meta);
  uint32_t n = s->root.nfields;
  out->ncols = n;
  if (st->kind == SQL_S_TRUNCATE) return FL_OK; /* no rows to find: every file goes */

  /* New rows need every column in SQL's types. */
  bool writes = st->kind == SQL_S_UPDATE;
  for (size_t k = 0; st->kind == SQL_S_MERGE && k < st->u.merge.nclauses; k++)
    writes |= st->u.merge.clauses[k].action != SQL_MERGE_DELETE;
  for (uint32_t i = 0; writes && i < n; i++) {
    sql_dtype_t dt;
    if (o->resolver->from_storage(o->resolver->ctx, s->root.fields[i].type, &dt, err))
      return sql__errf(&b, tname->parts[0].pos, FL_EUNSUPPORTED,
                       "Column %s of %s.%s cannot be written from SQL yet", s->root.fields[i].name,
                       out->ns, out->name);
  }
  fl_err_clear(err);

  sql_qname_t alias_q = {0};
  if (alias && alias->name) alias_q = (sql_qname_t){.parts = (sql_ident_t *)alias, .n = 1};
  dml_builder_t d = {.b = &b, .qual = alias_q.n ? &alias_q : tname};
  add_item(&d, column_expr(a, d.qual, "$path", st->pos));
  add_item(&d, column_expr(a, d.qual, "$pos", st->pos));

  sql_rel_t *target = fl_arena_zalloc(a, sizeof *target);
  target->kind = SQL_REL_TABLE;
  target->pos = st->pos;
  target->u.table.name = *tname;
  if (alias && alias->name) target->alias = *alias;
  sql_select_t sel = {.from = fl_arena_zalloc(a, sizeof(sql_rel_t *)), .nfrom = 1};
  sel.from[0] = target;

  size_t nclauses = st->kind == SQL_S_MERGE ? st->u.merge.nclauses : 1;
  out->clauses = fl_arena_zalloc(a, nclauses * sizeof *out->clauses);
  out->nclauses = (uint32_t)nclauses;
  /* Which items are new rows (cast to the table's types) and conditions. */
  const char *stmt = st->kind == SQL_S_UPDATE ? "UPDATE" : "MERGE";
  if (st->kind == SQL_S_DELETE) {
    sel.where = st->u.delete_.where;
    out->clauses[0] = (sql_dml_clause_t){
        .action = SQL_MERGE_DELETE, .matched = true, .cond_col = -1, .pos = st->pos};
  } else if (st->kind == SQL_S_UPDATE) {
    sel.where = st->u.update.where;
    sql_expr_t **values = fl_arena_zalloc(a, (n ? n : 1) * sizeof *values);
    if ((rc = assignments(&b, s, st->u.update.sets, st->u.update.nsets, stmt, values))) return rc;
    out->clauses[0] = (sql_dml_clause_t){
        .action = SQL_MERGE_UPDATE, .matched = true, .cond_col = -1, .pos = st->pos};
    out->clauses[0].values_col = add_row(&d, s, values, true, st->pos);
  } else {
    sql_rel_t *j = fl_arena_zalloc(a, sizeof *j);
    j->kind = SQL_REL_JOIN;
    j->pos = st->pos;
    j->u.join.kind = SQL_JOIN_RIGHT;
    j->u.join.left = target;
    j->u.join.right = st->u.merge.source;
    j->u.join.on = st->u.merge.on;
    sel.from[0] = j;
    for (size_t k = 0; k < nclauses; k++) {
      const sql_merge_clause_t *c = &st->u.merge.clauses[k];
      sql_dml_clause_t *oc = &out->clauses[k];
      *oc = (sql_dml_clause_t){
          .action = c->action, .matched = c->matched, .cond_col = -1, .pos = c->pos};
      if (c->matched && c->action == SQL_MERGE_INSERT)
        return sql__errf(&b, c->pos, FL_EINVALID, "WHEN MATCHED cannot INSERT");
      if (!c->matched && c->action != SQL_MERGE_INSERT)
        return sql__errf(&b, c->pos, FL_EINVALID, "WHEN NOT MATCHED can only INSERT");
      if (c->cond) oc->cond_col = (int32_t)add_item(&d, c->cond);
      sql_expr_t **values = fl_arena_zalloc(a, (n ? n : 1) * sizeof *values);
      if (c->action == SQL_MERGE_UPDATE) {
        if ((rc = assignments(&b, s, c->sets, c->nsets, stmt, values))) return rc;
        oc->values_col = add_row(&d, s, values, true, c->pos);
      } else if (c->action == SQL_MERGE_INSERT) {
        size_t nv = c->values.n, nc = c->columns.n ? c->columns.n : n;
        if (nv != nc)
          return sql__errf(&b, c->pos, FL_EINVALID,
                           "MERGE INSERT has %zu values but %zu target columns", nv, nc);
        for (size_t v = 0; v < nv; v++) {
          uint32_t i = (uint32_t)v;
          if (c->columns.n && (rc = find_column(&b, s, c->columns.items[v].name,
                                                c->columns.items[v].pos, "MERGE INSERT", &i)))
            return rc;
          if (values[i])
            return sql__errf(&b, c->columns.items[v].pos, FL_EINVALID,
                             "Insert column name is specified more than once: %s",
                             c->columns.items[v].name);
          values[i] = c->values.items[v];
        }
        oc->values_col = add_row(&d, s, values, false, c->pos);
      }
    }
  }
  sel.items = d.items;
  sel.nitems = d.nitems;
  sql_qbody_t body = {.kind = SQL_QB_SELECT, .pos = st->pos};
  body.u.select = sel;
  sql_query_t q = {.pos = st->pos, .body = &body};
  sql_plan_t *p;
  if ((rc = sql__bind_query(&b, &q, &p))) return rc;

  /* Conditions must be boolean; new rows take the table's types. */
  sql_plan_t *pr = sql__project_all(&b, p);
  for (uint32_t k = 0; k < out->nclauses; k++) {
    sql_dml_clause_t *c = &out->clauses[k];
    if (c->cond_col >= 0) {
      const sql_dtype_t *ct = &pr->cols[c->cond_col].type;
      if (ct->kind != SQL_DT_BOOLEAN && ct->kind != SQL_DT_UNKNOWN)
        return sql__errf(&b, d.items[c->cond_col].pos, FL_EINVALID,
                         "WHEN clause condition must evaluate to a boolean: actual type %s",
                         sql_dtype_str(ct));
    }
    if (c->action == SQL_MERGE_DELETE) continue;
    for (uint32_t i = 0; i < n; i++) {
      const ty_field_t *f = &s->root.fields[i];
      uint32_t col = c->values_col + i;
      sql_dtype_t dt;
      if ((rc = o->resolver->from_storage(o->resolver->ctx, f->type, &dt, err)))
        return sql__errf(&b, st->pos, rc, "Column %s of %s.%s cannot be written from SQL yet",
                         f->name, out->ns, out->name);
      sql_bexpr_t *e = pr->u.project.exprs[col];
      if (sql__assign_cast(&b, e, &dt, &e))
        return sql__errf(&b, d.items[col].pos, FL_EINVALID,
                         "%s: column %s is %s, the new value is %s",
                         c->action == SQL_MERGE_INSERT ? "MERGE INSERT has mismatched types"
                                                       : "UPDATE SET has mismatched types",
                         f->name, sql_dtype_str(&dt), sql_dtype_str(&pr->cols[col].type));
      pr->u.project.exprs[col] = e;
      pr->cols[col] = (sql_col_t){.name = f->name, .type = dt};
    }
  }
  pin_scans(pr, fl_arena_sprintf(a, "%s.%s", out->ns, out->name), t, out->snapshot_id);
  out->plan = pr;
  return FL_OK;
}
