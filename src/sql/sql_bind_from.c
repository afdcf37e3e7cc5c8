/*
 * sql_bind_from.c - binding the FROM clause (layer 7, sql): table names
 * to Iceberg tables of the catalog (one-part names in the default
 * namespace, two parts ns.table, three parts catalog.ns.table with the
 * catalog part ignored), WITH names to their queries, subqueries to their
 * plans, and time travel (FOR VERSION AS OF n | 'ref', FOR TIMESTAMP AS OF
 * ts) to the snapshot the scan reads. Each relation yields a scope of its
 * columns under its alias or table name.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/time.h"
#include "catalog/cat_tables.h"
#include "sql/sql_bind_int.h"

static void table_cleanup(void *arg) { ice_table_free(arg); }

/* The snapshot a time-travel clause names; *schema_id the schema to bind. */
static int travel(sql_binder_t *b, const sql_rel_t *rel, const ice_table_t *t, int64_t *snap,
                  const char **ref, int32_t *schema_id) {
  const sql_expr_t *x = rel->u.table.as_of;
  const ice_meta_t *m = t->meta;
  if (rel->u.table.travel == SQL_TT_VERSION) {
    if (x->kind == SQL_E_INT) {
      const ice_snapshot_t *s = ice_meta_snapshot(m, x->u.i.value);
      if (!s)
        return sql__errf(b, x->pos, FL_ENOTFOUND, "Iceberg snapshot ID does not exist: %lld",
                         (long long)x->u.i.value);
      *snap = s->snapshot_id;
      *schema_id = s->schema_id;
      return FL_OK;
    }
    if (x->kind == SQL_E_STRING) {
      char *name = fl_arena_strndup(b->a, x->u.str.data, x->u.str.len);
      const ice_ref_t *r = ice_meta_ref(m, name);
      if (!r)
        return sql__errf(b, x->pos, FL_ENOTFOUND, "Cannot find snapshot with reference name: %s",
                         name);
      *ref = name;
      *snap = r->snapshot_id;
      return FL_OK;
    }
    return sql__errf(b, x->pos, FL_EINVALID,
                     "FOR VERSION AS OF takes a snapshot id or a branch or tag name");
  }
  if (rel->u.table.travel == SQL_TT_TIMESTAMP) {
    const char *s;
    size_t n;
    if (x->kind == SQL_E_TYPED && x->u.typed.type->kind == SQL_TY_TIMESTAMP) {
      s = x->u.typed.data;
      n = x->u.typed.len;
    } else if (x->kind == SQL_E_STRING) {
      s = x->u.str.data;
      n = x->u.str.len;
    } else {
      return sql__errf(b, x->pos, FL_EINVALID, "FOR TIMESTAMP AS OF takes a timestamp literal");
    }
    int64_t us;
    bool has_zone;
    if (!fl_parse_timestamp(s, n, 6, &us, &has_zone))
      return sql__errf(b, x->pos, FL_EINVALID, "Invalid timestamp '%.*s'", (int)n, s);
    const ice_snapshot_t *sn = ice_meta_snapshot_as_of(m, fl_floordiv(us, 1000));
    if (!sn)
      return sql__errf(b, x->pos, FL_ENOTFOUND, "No version history table %s at or before %.*s",
                       t->ident, (int)n, s);
    *snap = sn->snapshot_id;
    *schema_id = sn->schema_id;
    return FL_OK;
  }
  return sql__errf(b, rel->pos, FL_EUNSUPPORTED, "This kind of time travel is not supported");
}

int sql__table_name(sql_binder_t *b, const sql_qname_t *q, sql_pos_t pos, const char **ns,
                    const char **name) {
  if (q->n > 3) return sql__errf(b, pos, FL_EINVALID, "Too many dots in table name");
  *name = q->parts[q->n - 1].name;
  *ns = q->n >= 2 ? q->parts[q->n - 2].name : (b->o->default_ns ? b->o->default_ns : "default");
  return FL_OK;
}

int sql__open_table(sql_binder_t *b, const sql_qname_t *q, sql_pos_t pos, ice_table_t **out,
                    const char **ns, const char **name) {
  if (!b->o->catalog)
    return sql__errf(b, pos, FL_ENOTFOUND, "Table '%s' does not exist (no catalog)",
                     q->parts[q->n - 1].name);
  int rc = sql__table_name(b, q, pos, ns, name);
  if (rc) return rc;
  ice_table_t *t = NULL;
  fl_err_t e2;
  fl_err_clear(&e2);
  rc = cat_open_table(b->o->catalog, b->o->fs, *ns, *name, &t, &e2);
  if (rc == FL_ENOTFOUND)
    return sql__errf(b, pos, FL_ENOTFOUND, "Table '%s.%s' does not exist", *ns, *name);
  if (rc) return sql__errf(b, pos, rc, "Cannot open table '%s.%s': %s", *ns, *name, e2.msg);
  fl_arena_on_reset(b->a, table_cleanup, t);
  *out = t;
  return FL_OK;
}

static int bind_table(sql_binder_t *b, const sql_rel_t *rel, sql_plan_t **out, sql_scope_t *scope) {
  const sql_qname_t *q = &rel->u.table.name;
  /* A one-part name may be a WITH query. */
  if (q->n == 1) {
    for (sql_cte_ent_t *c = b->ctes; c; c = c->next) {
      if (strcasecmp(c->cte->name.name, q->parts[0].name) != 0) continue;
      if (rel->u.table.travel != SQL_TT_NONE)
        return sql__errf(b, rel->pos, FL_EINVALID,
                         "Time travel applies to tables, not to WITH queries");
      /* Bind the query where it was defined: only earlier WITH names are visible. */
      sql_cte_ent_t *saved = b->ctes;
      b->ctes = c->next;
      sql_plan_t *p;
      int rc = sql__bind_query(b, c->cte->query, &p);
      b->ctes = saved;
      if (rc) return rc;
      if (c->cte->columns.n) {
        if (c->cte->columns.n != p->ncols)
          return sql__errf(b, c->cte->name.pos, FL_EINVALID,
                           "WITH query %s has %zu column aliases but %u columns", c->cte->name.name,
                           c->cte->columns.n, p->ncols);
        p = sql__project_all(b, p);
        for (uint32_t i = 0; i < p->ncols; i++) p->cols[i].name = c->cte->columns.items[i].name;
      }
      const char *qual = rel->alias.name ? rel->alias.name : c->cte->name.name;
      sql__plan_scope(b, p, qual, scope);
      *out = p;
      return FL_OK;
    }
  }
  const char *ns, *name;
  ice_table_t *t;
  int rc = sql__open_table(b, q, rel->pos, &t, &ns, &name);
  if (rc) return rc;
  sql_plan_t *p = sql_plan_new(b->a, SQL_P_SCAN, NULL);
  p->u.scan.table = t;
  p->u.scan.ident = fl_arena_sprintf(b->a, "%s.%s", ns, name);
  p->u.scan.snapshot_id = -1;
  p->u.scan.as_of_ms = -1;
  p->u.scan.limit = -1;
  int32_t schema_id = -1;
  if (rel->u.table.travel != SQL_TT_NONE &&
      (rc = travel(b, rel, t, &p->u.scan.snapshot_id, &p->u.scan.ref, &schema_id)))
    return rc;
  const ty_schema_t *s = schema_id >= 0 ? ice_meta_schema_by_id(t->meta, schema_id) : NULL;
  if (!s) s = ice_meta_schema(t->meta);
  uint32_t n = s->root.nfields;
  p->cols = fl_arena_zalloc(b->a, (n ? n : 1) * sizeof *p->cols);
  p->u.scan.columns = fl_arena_zalloc(b->a, (n ? n : 1) * sizeof *p->u.scan.columns);
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    const ty_field_t *f = &s->root.fields[i];
    sql_dtype_t dt;
    /* Columns whose types SQL does not cover yet are left out of the
     * scope (and of `*`) rather than failing the whole table. */
    if (b->o->resolver->from_storage(b->o->resolver->ctx, f->type, &dt, b->err)) continue;
    p->cols[k] = (sql_col_t){.name = f->name, .type = dt};
    p->u.scan.columns[k] = f->name;
    k++;
  }
  fl_err_clear(b->err);
  p->ncols = k;
  const char *qual = rel->alias.name ? rel->alias.name : p->u.scan.ident;
  if (rel->alias.name && rel->alias_cols.n) {
    if (rel->alias_cols.n != k)
      return sql__errf(b, rel->pos, FL_EINVALID,
                       "Column alias list has %zu entries but '%s' has %u columns",
                       rel->alias_cols.n, qual, k);
    p = sql__project_all(b, p);
    for (uint32_t i = 0; i < k; i++) p->cols[i].name = rel->alias_cols.items[i].name;
  }
  sql__plan_scope(b, p, qual, scope);
  *out = p;
  return FL_OK;
}

int sql__bind_from(sql_binder_t *b, const sql_rel_t *rel, sql_plan_t **out, sql_scope_t *scope) {
  switch (rel->kind) {
    case SQL_REL_TABLE: return bind_table(b, rel, out, scope);
    case SQL_REL_SUBQUERY: {
      if (rel->u.subquery.lateral)
        return sql__errf(b, rel->pos, FL_EUNSUPPORTED, "LATERAL is not supported yet");
      sql_plan_t *p;
      int rc = sql__bind_query(b, rel->u.subquery.query, &p);
      if (rc) return rc;
      if (rel->alias_cols.n) {
        if (rel->alias_cols.n != p->ncols)
          return sql__errf(b, rel->pos, FL_EINVALID,
                           "Column alias list has %zu entries but the subquery has %u columns",
                           rel->alias_cols.n, p->ncols);
        p = sql__project_all(b, p);
        for (uint32_t i = 0; i < p->ncols; i++) p->cols[i].name = rel->alias_cols.items[i].name;
      }
      sql__plan_scope(b, p, rel->alias.name, scope);
      *out = p;
      return FL_OK;
    }
    case SQL_REL_JOIN:
      return sql__errf(b, rel->pos, FL_EUNSUPPORTED, "Joins are not supported yet");
    default:
      return sql__errf(b, rel->pos, FL_EUNSUPPORTED, "This kind of relation is not supported yet");
  }
}
