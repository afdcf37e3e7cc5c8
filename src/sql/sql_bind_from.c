/*
 * sql_bind_from.c - binding the FROM clause (layer 7, sql): table names
 * to Iceberg tables of the catalog (one-part names in the default
 * namespace, two parts ns.table, three parts catalog.ns.table with the
 * catalog part ignored), WITH names to their queries, subqueries to their
 * plans, and time travel (FOR VERSION AS OF n | 'ref', FOR TIMESTAMP AS OF
 * ts) to the snapshot the scan reads, and joins (JOIN ... ON, USING,
 * CROSS JOIN, comma lists) to join nodes. Each relation yields a scope of
 * its columns under its alias or table name; a join's scope is its left
 * scope then its right one, except that USING merges each named column
 * pair into one unqualified column placed first, as in Trino.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/time.h"
#include "catalog/cat_tables.h"
#include "sql/sql_bind_int.h"

static void table_cleanup(void *arg) { ice_table_free(arg); }

/* The snapshot a time-travel clause names; *schema_id the schema to bind. */
int sql__travel(sql_binder_t *b, const sql_rel_t *rel, const ice_table_t *t, int64_t *snap,
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
  if (q->n == 1 && b->o->nstreams) {
    int rc = sql__bind_stream_scan(b, rel, out, scope);
    if (rc != FL_ENOTFOUND) return rc;
  }
  if (strchr(q->parts[q->n - 1].name, '$')) return sql__bind_meta_table(b, rel, out, scope);
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
      (rc = sql__travel(b, rel, t, &p->u.scan.snapshot_id, &p->u.scan.ref, &schema_id)))
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
  uint32_t nvisible = k;
  if (b->hidden) {
    /* Trino's hidden "$path" and "$partition" and the row position,
     * last so that pruning and `*` need not know them. */
    static const char *const hidden[] = {"$path", "$pos", "$partition"};
    sql_col_t *cols = fl_arena_zalloc(b->a, (k + 3) * sizeof *cols);
    const char **names = fl_arena_zalloc(b->a, (k + 3) * sizeof *names);
    if (k) {
      memcpy(cols, p->cols, k * sizeof *cols);
      memcpy(names, p->u.scan.columns, k * sizeof *names);
    }
    for (int h = 0; h < 3; h++) {
      sql_dkind_t kind = h == 1 ? SQL_DT_BIGINT : SQL_DT_VARCHAR;
      cols[k] = (sql_col_t){.name = hidden[h], .type = sql_dtype(kind)};
      names[k++] = hidden[h];
    }
    p->cols = cols;
    p->u.scan.columns = names;
  }
  p->ncols = k;
  const char *qual = rel->alias.name ? rel->alias.name : p->u.scan.ident;
  if (rel->alias.name && rel->alias_cols.n) {
    if (rel->alias_cols.n != nvisible)
      return sql__errf(b, rel->pos, FL_EINVALID,
                       "Column alias list has %zu entries but '%s' has %u columns",
                       rel->alias_cols.n, qual, nvisible);
    p = sql__project_all(b, p);
    for (uint32_t i = 0; i < nvisible; i++) p->cols[i].name = rel->alias_cols.items[i].name;
  }
  sql__plan_scope(b, p, qual, scope);
  for (uint32_t i = nvisible; i < scope->n; i++) scope->cols[i].hidden = true;
  *out = p;
  return FL_OK;
}

static sql_scope_t concat_scopes(sql_binder_t *b, const sql_scope_t *l, const sql_scope_t *r) {
  sql_scope_t s = {.n = l->n + r->n};
  s.cols = fl_arena_zalloc(b->a, (s.n ? s.n : 1) * sizeof *s.cols);
  if (l->n) memcpy(s.cols, l->cols, l->n * sizeof *s.cols);
  if (r->n) memcpy(s.cols + l->n, r->cols, r->n * sizeof *s.cols);
  return s;
}

sql_plan_t *sql__join_new(sql_binder_t *b, sql_plan_t *l, sql_plan_t *r, sql_join_type_t type,
                          sql_bexpr_t *cond) {
  sql_plan_t *j = sql_plan_new(b->a, SQL_P_JOIN, l);
  j->inputs = fl_arena_zalloc(b->a, 2 * sizeof *j->inputs);
  j->inputs[0] = l;
  j->inputs[1] = r;
  j->ninputs = 2;
  j->u.join.type = type;
  j->u.join.cond = cond;
  j->u.join.nleft = l->ncols;
  j->u.join.nright = type >= SQL_JT_SEMI ? 0 : r->ncols;
  j->ncols = j->u.join.nleft + j->u.join.nright;
  j->cols = fl_arena_zalloc(b->a, (j->ncols ? j->ncols : 1) * sizeof *j->cols);
  if (l->ncols) memcpy(j->cols, l->cols, l->ncols * sizeof *j->cols);
  if (j->u.join.nright) memcpy(j->cols + l->ncols, r->cols, r->ncols * sizeof *j->cols);
  return j;
}

/* The only column of scope sc named name (unqualified), or -1 (-2: several). */
static int find_col(const sql_scope_t *sc, const char *name) {
  int found = -1;
  for (uint32_t i = 0; i < sc->n; i++) {
    if (strcasecmp(sc->cols[i].name, name) != 0) continue;
    if (found >= 0) return -2;
    found = (int)i;
  }
  return found;
}

/* JOIN ... USING (cols): the equalities as the condition, then a
 * projection putting the merged columns first and the other columns of
 * both sides after them. */
static int bind_using(sql_binder_t *b, const sql_rel_t *rel, const sql_ident_list_t *u,
                      sql_plan_t *l, sql_plan_t *r, const sql_scope_t *ls, const sql_scope_t *rs,
                      sql_join_type_t type, sql_plan_t **out, sql_scope_t *scope) {
  uint32_t n = (uint32_t)u->n;
  int *li = fl_arena_zalloc(b->a, n * sizeof *li), *ri = fl_arena_zalloc(b->a, n * sizeof *ri);
  sql_bexpr_t *cond = NULL;
  int rc;
  for (uint32_t k = 0; k < n; k++) {
    const sql_ident_t *id = &u->items[k];
    for (uint32_t m = 0; m < k; m++)
      if (strcasecmp(u->items[m].name, id->name) == 0)
        return sql__errf(b, id->pos, FL_EINVALID, "Column '%s' appears multiple times in USING clause",
                         id->name);
    li[k] = find_col(ls, id->name);
    ri[k] = find_col(rs, id->name);
    if (li[k] == -1 || ri[k] == -1)
      return sql__errf(b, id->pos, FL_EINVALID, "Column '%s' is missing from %s side of join",
                       id->name, li[k] == -1 ? "left" : "right");
    if (li[k] < 0 || ri[k] < 0)
      return sql__errf(b, id->pos, FL_EINVALID, "Column '%s' is ambiguous", id->name);
    sql_bexpr_t *args[2] = {
        sql__col_ref(b, (uint32_t)li[k], &ls->cols[li[k]].type, id->pos),
        sql__col_ref(b, l->ncols + (uint32_t)ri[k], &rs->cols[ri[k]].type, id->pos)};
    sql_bexpr_t *eq;
    if ((rc = sql__call(b, "=", id->pos, args, 2, &eq))) return rc;
    cond = cond ? sql__and(b, cond, eq) : eq;
  }
  sql_plan_t *j = sql__join_new(b, l, r, type, cond);
  uint32_t nout = ls->n + rs->n - n;
  sql_plan_t *p = sql_plan_new(b->a, SQL_P_PROJECT, j);
  p->ncols = nout;
  p->cols = fl_arena_zalloc(b->a, (nout ? nout : 1) * sizeof *p->cols);
  p->u.project.exprs = fl_arena_zalloc(b->a, (nout ? nout : 1) * sizeof(sql_bexpr_t *));
  scope->n = nout;
  scope->cols = fl_arena_zalloc(b->a, (nout ? nout : 1) * sizeof *scope->cols);
  uint32_t o = 0;
  for (uint32_t k = 0; k < n; k++) {
    const sql_scope_col_t *lc = &ls->cols[li[k]], *rc_ = &rs->cols[ri[k]];
    sql_dtype_t t;
    if (!sql__common(b, &lc->type, &rc_->type, &t))
      return sql__errf(b, u->items[k].pos, FL_EINVALID,
                       "Column types of '%s' in USING clause do not match: %s and %s",
                       u->items[k].name, sql_dtype_str(&lc->type), sql_dtype_str(&rc_->type));
    sql_bexpr_t *x = sql__col_ref(b, (uint32_t)li[k], &lc->type, u->items[k].pos);
    sql_bexpr_t *y = sql__col_ref(b, l->ncols + (uint32_t)ri[k], &rc_->type, u->items[k].pos);
    if ((rc = sql__coerce(b, x, &t, &x)) || (rc = sql__coerce(b, y, &t, &y))) return rc;
    sql_bexpr_t *e = x;
    if (type == SQL_JT_RIGHT) e = y;
    if (type == SQL_JT_FULL) e = sql__coalesce2(b, x, y, &t);
    p->u.project.exprs[o] = e;
    p->cols[o] = (sql_col_t){.name = lc->name, .type = t};
    scope->cols[o] = (sql_scope_col_t){.qual = NULL, .name = lc->name, .type = t};
    o++;
  }
  for (uint32_t side = 0; side < 2; side++) {
    const sql_scope_t *sc = side ? rs : ls;
    const int *used = side ? ri : li;
    for (uint32_t i = 0; i < sc->n; i++) {
      bool merged = false;
      for (uint32_t k = 0; k < n && !merged; k++) merged = used[k] == (int)i;
      if (merged) continue;
      uint32_t col = side ? l->ncols + i : i;
      p->u.project.exprs[o] = sql__col_ref(b, col, &sc->cols[i].type, rel->pos);
      p->cols[o] = (sql_col_t){.name = sc->cols[i].name, .type = sc->cols[i].type};
      scope->cols[o] = sc->cols[i];
      o++;
    }
  }
  *out = p;
  return FL_OK;
}

/* NATURAL JOIN: USING the column names both sides have, in the left
 * side's order (none: a cross join, as in standard SQL). */
static void natural_columns(sql_binder_t *b, const sql_rel_t *rel, const sql_scope_t *ls,
                            const sql_scope_t *rs, sql_ident_list_t *u) {
  u->items = fl_arena_zalloc(b->a, (ls->n ? ls->n : 1) * sizeof *u->items);
  u->n = 0;
  for (uint32_t i = 0; i < ls->n; i++) {
    bool seen = false;
    for (size_t k = 0; k < u->n && !seen; k++)
      seen = strcasecmp(u->items[k].name, ls->cols[i].name) == 0;
    if (seen || find_col(rs, ls->cols[i].name) == -1) continue;
    u->items[u->n++] = (sql_ident_t){.name = ls->cols[i].name, .pos = rel->pos};
  }
}

static bool is_lateral(const sql_rel_t *rel);
static int bind_lateral(sql_binder_t *b, const sql_rel_t *rel, sql_plan_t **p, sql_scope_t *scope);

static int bind_join(sql_binder_t *b, const sql_rel_t *rel, sql_plan_t **out, sql_scope_t *scope) {
  sql_plan_t *l, *r;
  sql_scope_t ls = {0}, rs = {0};
  int rc;
  if ((rc = sql__bind_from(b, rel->u.join.left, &l, &ls))) return rc;
  if (is_lateral(rel->u.join.right)) {
    /* [CROSS | INNER] JOIN LATERAL (...) | UNNEST (...) [ON cond]: the
     * lateral combination, filtered by the condition. */
    bool is_unnest = rel->u.join.right->kind == SQL_REL_UNNEST;
    bool left = rel->u.join.kind == SQL_JOIN_LEFT;
    bool left_unnest = left && is_unnest && rel->u.join.on && rel->u.join.on->kind == SQL_E_BOOL &&
                       rel->u.join.on->u.b;
    if (rel->u.join.kind != SQL_JOIN_INNER && rel->u.join.kind != SQL_JOIN_CROSS && !left_unnest &&
        !(left && !is_unnest))
      return sql__errf(b, rel->pos, FL_EUNSUPPORTED,
                       "Only CROSS, INNER and LEFT joins with LATERAL, and CROSS, INNER and "
                       "LEFT JOIN ... ON TRUE with UNNEST are supported");
    if (rel->u.join.using_.n || rel->u.join.natural)
      return sql__errf(b, rel->pos, FL_EUNSUPPORTED, "LATERAL joins take ON, not USING");
    sql_plan_t *p = l;
    sql_scope_t sc = ls;
    if ((rc = bind_lateral(b, rel->u.join.right, &p, &sc))) return rc;
    if (left_unnest) {
      p->u.unnest.outer = true;
    } else if (left) {
      /* LEFT JOIN LATERAL (...) ON cond: the condition belongs to the join. */
      if (!rel->u.join.on)
        return sql__errf(b, rel->pos, FL_EINVALID, "Join needs an ON or USING clause");
      sql_ectx_t cx = {.scope = &sc, .clause = "JOIN clause"};
      sql_bexpr_t *cond;
      if ((rc = sql__bind_cond(b, &cx, rel->u.join.on, "JOIN clause", &cond))) return rc;
      if (p->kind == SQL_P_APPLY) {
        p->u.apply.left = true;
        p->u.apply.arg = cond;
      } else {
        p->u.join.type = SQL_JT_LEFT;
        p->u.join.cond = cond;
      }
    } else if (rel->u.join.on) {
      sql_ectx_t cx = {.scope = &sc, .clause = "JOIN clause"};
      sql_bexpr_t *cond;
      if ((rc = sql__bind_cond(b, &cx, rel->u.join.on, "JOIN clause", &cond))) return rc;
      sql_plan_t *f = sql_plan_new(b->a, SQL_P_FILTER, p);
      f->u.filter.pred = cond;
      f->cols = p->cols;
      f->ncols = p->ncols;
      p = f;
    }
    *out = p;
    *scope = sc;
    return FL_OK;
  }
  if ((rc = sql__bind_from(b, rel->u.join.right, &r, &rs))) return rc;
  static const sql_join_type_t types[] = {
      [SQL_JOIN_INNER] = SQL_JT_INNER, [SQL_JOIN_LEFT] = SQL_JT_LEFT,
      [SQL_JOIN_RIGHT] = SQL_JT_RIGHT, [SQL_JOIN_FULL] = SQL_JT_FULL,
      [SQL_JOIN_CROSS] = SQL_JT_INNER};
  sql_join_type_t type = types[rel->u.join.kind];
  if (rel->u.join.using_.n)
    return bind_using(b, rel, &rel->u.join.using_, l, r, &ls, &rs, type, out, scope);
  if (rel->u.join.natural) {
    sql_ident_list_t u;
    natural_columns(b, rel, &ls, &rs, &u);
    if (u.n) return bind_using(b, rel, &u, l, r, &ls, &rs, type, out, scope);
    *out = sql__join_new(b, l, r, type, NULL);
    *scope = concat_scopes(b, &ls, &rs);
    return FL_OK;
  }
  sql_scope_t both = concat_scopes(b, &ls, &rs);
  sql_bexpr_t *cond = NULL;
  if (rel->u.join.on) {
    sql_subq_t sq = {0};
    sql_ectx_t cx = {.scope = &both, .clause = "JOIN clause", .subq = &sq};
    if ((rc = sql__bind_cond(b, &cx, rel->u.join.on, "JOIN clause", &cond))) return rc;
    if (sq.n) {
      /* A correlated subquery in ON: the inner join as a filter over the
       * cross join with the subqueries applied (the optimizer moves the
       * conditions back into the join). */
      if (type != SQL_JT_INNER)
        return sql__errf(b, rel->u.join.on->pos, FL_EUNSUPPORTED,
                         "Correlated subqueries (and quantified comparisons other than = ANY "
                         "and <> ALL) in the ON clause of an outer join are not supported");
      sql_plan_t *p = sql__join_new(b, l, r, SQL_JT_INNER, NULL);
      uint32_t n = p->ncols;
      sql_plan_t *cj = p;
      sql__plan_applies(b, &sq, &p, &cond, 1);
      sql_plan_t *f = sql_plan_new(b->a, SQL_P_FILTER, p);
      f->u.filter.pred = cond;
      f->cols = p->cols;
      f->ncols = p->ncols;
      sql_plan_t *pr = sql_plan_new(b->a, SQL_P_PROJECT, f);
      pr->ncols = n;
      pr->cols = cj->cols;
      pr->u.project.exprs = fl_arena_zalloc(b->a, (n ? n : 1) * sizeof(sql_bexpr_t *));
      for (uint32_t i = 0; i < n; i++)
        pr->u.project.exprs[i] = sql__col_ref(b, i, &cj->cols[i].type, rel->pos);
      *out = pr;
      *scope = both;
      return FL_OK;
    }
  } else if (rel->u.join.kind != SQL_JOIN_CROSS) {
    return sql__errf(b, rel->pos, FL_EINVALID, "Join needs an ON or USING clause");
  }
  *out = sql__join_new(b, l, r, type, cond);
  *scope = both;
  return FL_OK;
}

static bool is_lateral(const sql_rel_t *rel) {
  return (rel->kind == SQL_REL_SUBQUERY && rel->u.subquery.lateral) || rel->kind == SQL_REL_UNNEST;
}

/*
 * UNNEST(a, ...) [WITH ORDINALITY] [AS u (x, ..., n)] after *p (whose
 * columns, in *scope, the arrays may name, as Trino's CROSS JOIN UNNEST
 * does): an UNNEST node over *p; *scope grows by its columns.
 */
static int bind_unnest(sql_binder_t *b, const sql_rel_t *rel, sql_plan_t **p, sql_scope_t *scope) {
  const sql_expr_list_t *args = &rel->u.unnest.args;
  uint32_t n = (uint32_t)args->n, nout = n + (rel->u.unnest.with_ordinality ? 1 : 0);
  if (!n) return sql__errf(b, rel->pos, FL_EINVALID, "UNNEST needs at least one argument");
  if (rel->alias_cols.n && rel->alias_cols.n != nout)
    return sql__errf(b, rel->pos, FL_EINVALID,
                     "Column alias list has %zu entries but the UNNEST has %u columns",
                     rel->alias_cols.n, nout);
  sql_ectx_t cx = {.scope = scope, .clause = "UNNEST"};
  sql_plan_t *in = *p;
  sql_plan_t *u = sql_plan_new(b->a, SQL_P_UNNEST, in);
  u->u.unnest.exprs = fl_arena_zalloc(b->a, n * sizeof *u->u.unnest.exprs);
  u->u.unnest.nexprs = n;
  u->u.unnest.ordinality = rel->u.unnest.with_ordinality;
  u->ncols = in->ncols + nout;
  u->cols = fl_arena_zalloc(b->a, u->ncols * sizeof *u->cols);
  if (in->ncols) memcpy(u->cols, in->cols, in->ncols * sizeof *u->cols);
  sql_scope_t us = {.n = nout};
  us.cols = fl_arena_zalloc(b->a, nout * sizeof *us.cols);
  for (uint32_t i = 0; i < nout; i++) {
    sql_dtype_t t = sql_dtype(SQL_DT_BIGINT);
    if (i < n) {
      sql_bexpr_t *e;
      int rc = sql__bind_expr(b, &cx, args->items[i], &e);
      if (rc) return rc;
      if (e->type.kind != SQL_DT_ARRAY || !e->type.elem)
        return sql__errf(b, args->items[i]->pos, FL_EINVALID, "Cannot unnest type: %s",
                         sql_dtype_str(&e->type));
      u->u.unnest.exprs[i] = e;
      t = *e->type.elem;
    }
    const char *name =
        rel->alias_cols.n ? rel->alias_cols.items[i].name : fl_arena_sprintf(b->a, "_col%u", i);
    u->cols[in->ncols + i] = (sql_col_t){.name = name, .type = t};
    us.cols[i] = (sql_scope_col_t){.qual = rel->alias.name, .name = name, .type = t};
  }
  *p = u;
  *scope = concat_scopes(b, scope, &us);
  return FL_OK;
}

/*
 * `left, LATERAL (query)`: the query sees left's columns. Correlated, it
 * is an APPLY node (the decorrelation rule makes it a join); otherwise a
 * cross join. *p is left before and the combination after; *scope grows
 * by the query's columns.
 */
static int bind_lateral(sql_binder_t *b, const sql_rel_t *rel, sql_plan_t **p, sql_scope_t *scope) {
  if (rel->kind == SQL_REL_UNNEST) return bind_unnest(b, rel, p, scope);
  sql_ectx_t cx = {.scope = scope, .clause = "LATERAL"};
  sql_outer_t o = {.cx = &cx, .next = b->outer};
  b->outer = &o;
  sql_plan_t *q;
  int rc = sql__bind_query(b, rel->u.subquery.query, &q);
  b->outer = o.next;
  if (rc) return rc;
  if (rel->alias_cols.n) {
    if (rel->alias_cols.n != q->ncols)
      return sql__errf(b, rel->pos, FL_EINVALID,
                       "Column alias list has %zu entries but the subquery has %u columns",
                       rel->alias_cols.n, q->ncols);
    q = sql__project_all(b, q);
    for (uint32_t i = 0; i < q->ncols; i++) q->cols[i].name = rel->alias_cols.items[i].name;
  }
  sql_scope_t qs;
  sql__plan_scope(b, q, rel->alias.name, &qs);
  sql_plan_t *l = *p;
  if (!o.used) {
    *p = sql__join_new(b, l, q, SQL_JT_INNER, NULL);
  } else {
    sql_plan_t *ap = sql__join_new(b, l, q, SQL_JT_INNER, NULL);
    ap->kind = SQL_P_APPLY;
    memset(&ap->u, 0, sizeof ap->u);
    ap->u.apply.kind = SQL_AK_LATERAL;
    *p = ap;
  }
  *scope = concat_scopes(b, scope, &qs);
  return FL_OK;
}

int sql__bind_from_list(sql_binder_t *b, sql_rel_t *const *rels, size_t n, sql_plan_t **out,
                        sql_scope_t *scope) {
  if (rels[0]->kind == SQL_REL_SUBQUERY && rels[0]->u.subquery.lateral)
    return sql__errf(b, rels[0]->pos, FL_EINVALID, "LATERAL needs a relation before it");
  int rc = sql__bind_from(b, rels[0], out, scope);
  for (size_t i = 1; i < n && !rc; i++) {
    if (is_lateral(rels[i])) {
      if ((rc = bind_lateral(b, rels[i], out, scope))) return rc;
      continue;
    }
    sql_plan_t *r;
    sql_scope_t rs = {0};
    if ((rc = sql__bind_from(b, rels[i], &r, &rs))) return rc;
    *out = sql__join_new(b, *out, r, SQL_JT_INNER, NULL);
    *scope = concat_scopes(b, scope, &rs);
  }
  return rc;
}

int sql__bind_from(sql_binder_t *b, const sql_rel_t *rel, sql_plan_t **out, sql_scope_t *scope) {
  switch (rel->kind) {
    case SQL_REL_TABLE: return bind_table(b, rel, out, scope);
    case SQL_REL_SUBQUERY: {
      if (rel->u.subquery.lateral)
        return sql__errf(b, rel->pos, FL_EINVALID, "LATERAL needs a relation before it");
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
    case SQL_REL_JOIN: return bind_join(b, rel, out, scope);
    case SQL_REL_FUNCTION:
      if (sql__is_window_tvf(rel)) return sql__bind_window_tvf(b, rel, out, scope);
      return sql__bind_table_function(b, rel, out, scope);
    case SQL_REL_UNNEST: {
      /* On its own: over one row of no columns. */
      sql_plan_t *one = sql_plan_new(b->a, SQL_P_VALUES, NULL);
      one->u.values.nrows = 1;
      *scope = (sql_scope_t){0};
      *out = one;
      return bind_unnest(b, rel, out, scope);
    }
    default:
      return sql__errf(b, rel->pos, FL_EUNSUPPORTED, "This kind of relation is not supported yet");
  }
}
