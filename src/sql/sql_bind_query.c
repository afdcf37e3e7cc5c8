/*
 * sql_bind_query.c - binding whole queries (layer 7, sql): WITH names,
 * the query body (SELECT, VALUES, TABLE t, parenthesized queries), the set
 * operations UNION, INTERSECT and EXCEPT ([ALL | DISTINCT]) with their
 * column type coercions, and the
 * query's ORDER BY, OFFSET and LIMIT; the entry point sql_bind_query.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sql/sql_bind_int.h"

void sql__plan_scope(sql_binder_t *b, const sql_plan_t *p, const char *qual, sql_scope_t *out) {
  out->n = p->ncols;
  out->cols = fl_arena_zalloc(b->a, (p->ncols ? p->ncols : 1) * sizeof *out->cols);
  for (uint32_t i = 0; i < p->ncols; i++)
    out->cols[i] =
        (sql_scope_col_t){.qual = qual, .name = p->cols[i].name, .type = p->cols[i].type};
}

sql_plan_t *sql__project_all(sql_binder_t *b, sql_plan_t *in) {
  sql_plan_t *p = sql_plan_new(b->a, SQL_P_PROJECT, in);
  p->ncols = in->ncols;
  p->cols = fl_arena_zalloc(b->a, (in->ncols ? in->ncols : 1) * sizeof *p->cols);
  p->u.project.exprs = fl_arena_zalloc(b->a, (in->ncols ? in->ncols : 1) * sizeof(sql_bexpr_t *));
  for (uint32_t i = 0; i < in->ncols; i++) {
    p->cols[i] = in->cols[i];
    p->u.project.exprs[i] = sql__col_ref(b, i, &in->cols[i].type, (sql_pos_t){0});
  }
  return p;
}

int sql__bind_order_output(sql_binder_t *b, const sql_sort_list_t *order, sql_plan_t **pp) {
  sql_plan_t *p = *pp;
  if (!order->n) return FL_OK;
  sql_scope_t sc;
  sql__plan_scope(b, p, NULL, &sc);
  sql_ectx_t cx = {.scope = &sc, .clause = "ORDER BY clause"};
  sql_sort_key_t *keys = fl_arena_zalloc(b->a, order->n * sizeof *keys);
  for (size_t k = 0; k < order->n; k++) {
    const sql_expr_t *x = order->items[k].expr;
    uint32_t col;
    if (x->kind == SQL_E_INT) {
      if (x->u.i.value < 1 || x->u.i.value > p->ncols)
        return sql__errf(b, x->pos, FL_EINVALID, "ORDER BY position %lld is not in select list",
                         (long long)x->u.i.value);
      col = (uint32_t)x->u.i.value - 1;
    } else {
      sql_bexpr_t *e;
      int rc = sql__bind_expr(b, &cx, x, &e);
      if (rc) return rc;
      if (e->kind != SQL_BX_COL)
        return sql__errf(b, x->pos, FL_EUNSUPPORTED,
                         "ORDER BY of a set operation or VALUES must name an output column");
      col = e->col;
    }
    int rc = sql__check_orderable(b, x->pos, &p->cols[col].type, "ORDER BY");
    if (rc) return rc;
    sql__sort_key(&order->items[k], col, &keys[k]);
  }
  sql_plan_t *s = sql_plan_new(b->a, SQL_P_SORT, p);
  s->u.sort.keys = keys;
  s->u.sort.nkeys = (uint32_t)order->n;
  s->cols = p->cols;
  s->ncols = p->ncols;
  *pp = s;
  return FL_OK;
}

static int bind_values(sql_binder_t *b, const sql_qbody_t *q, sql_plan_t **out) {
  const sql_expr_list_t *rows = &q->u.values;
  sql_scope_t empty = {0};
  sql_ectx_t cx = {.scope = &empty, .clause = "VALUES"};
  uint32_t ncols = 0;
  for (size_t r = 0; r < rows->n; r++) {
    const sql_expr_t *row = rows->items[r];
    uint32_t n = row->kind == SQL_E_ROW ? (uint32_t)row->u.row.items.n : 1;
    if (r == 0)
      ncols = n;
    else if (n != ncols)
      return sql__errf(b, row->pos, FL_EINVALID, "Values rows have mismatched sizes: %u vs %u",
                       ncols, n);
  }
  sql_plan_t *p = sql_plan_new(b->a, SQL_P_VALUES, NULL);
  p->u.values.nrows = (uint32_t)rows->n;
  p->ncols = ncols;
  p->cols = fl_arena_zalloc(b->a, (ncols ? ncols : 1) * sizeof *p->cols);
  sql_bexpr_t **cells =
      fl_arena_zalloc(b->a, (rows->n * ncols > 0 ? rows->n * ncols : 1) * sizeof *cells);
  for (size_t r = 0; r < rows->n; r++) {
    const sql_expr_t *row = rows->items[r];
    for (uint32_t c = 0; c < ncols; c++) {
      const sql_expr_t *x = row->kind == SQL_E_ROW ? row->u.row.items.items[c] : row;
      int rc = sql__bind_expr(b, &cx, x, &cells[r * ncols + c]);
      if (rc) return rc;
    }
  }
  for (uint32_t c = 0; c < ncols; c++) {
    sql_dtype_t t = sql_dtype(SQL_DT_UNKNOWN);
    for (size_t r = 0; r < rows->n; r++) {
      sql_bexpr_t *e = cells[r * ncols + c];
      if (!sql__common(b, &t, &e->type, &t))
        return sql__errf(b, e->pos, FL_EINVALID,
                         "Values in column %u have incompatible types: %s and %s", c + 1,
                         sql_dtype_str(&cells[c]->type), sql_dtype_str(&e->type));
    }
    for (size_t r = 0; r < rows->n; r++) {
      int rc = sql__coerce(b, cells[r * ncols + c], &t, &cells[r * ncols + c]);
      if (rc) return rc;
    }
    p->cols[c] = (sql_col_t){.name = fl_arena_sprintf(b->a, "_col%u", c), .type = t};
  }
  p->u.values.cells = cells;
  *out = p;
  return FL_OK;
}

static int bind_body(sql_binder_t *b, const sql_qbody_t *q, const sql_sort_list_t *order,
                     sql_plan_t **out);

/* Casts the columns of p to types (a projection when any differs). */
static int cast_columns(sql_binder_t *b, sql_plan_t **pp, const sql_dtype_t *types) {
  sql_plan_t *p = *pp;
  bool same = true;
  for (uint32_t i = 0; i < p->ncols && same; i++)
    same = sql_dtype_equal(&p->cols[i].type, &types[i]);
  if (same) return FL_OK;
  sql_plan_t *pr = sql__project_all(b, p);
  for (uint32_t i = 0; i < p->ncols; i++) {
    int rc = sql__coerce(b, pr->u.project.exprs[i], &types[i], &pr->u.project.exprs[i]);
    if (rc) return rc;
    pr->cols[i].type = types[i];
  }
  *pp = pr;
  return FL_OK;
}

/* Appends the marker columns ($l, $r) = (left, right) to p's columns. */
static sql_plan_t *mark_side(sql_binder_t *b, sql_plan_t *p, int left, sql_pos_t pos) {
  sql_plan_t *m = sql_plan_new(b->a, SQL_P_PROJECT, p);
  uint32_t n = p->ncols;
  m->ncols = n + 2;
  m->cols = fl_arena_zalloc(b->a, (n + 2) * sizeof *m->cols);
  m->u.project.exprs = fl_arena_zalloc(b->a, (n + 2) * sizeof(sql_bexpr_t *));
  for (uint32_t i = 0; i < n; i++) {
    m->cols[i] = p->cols[i];
    m->u.project.exprs[i] = sql__col_ref(b, i, &p->cols[i].type, pos);
  }
  m->u.project.exprs[n] = sql__int_const(b, left, pos);
  m->u.project.exprs[n + 1] = sql__int_const(b, !left, pos);
  m->cols[n] = (sql_col_t){.name = "$l", .type = sql_dtype(SQL_DT_INTEGER)};
  m->cols[n + 1] = (sql_col_t){.name = "$r", .type = sql_dtype(SQL_DT_INTEGER)};
  return m;
}

/*
 * INTERSECT and EXCEPT (distinct) as an aggregation: both sides tagged
 * with which side a row came from, grouped on all columns (NULLs equal,
 * as set operations want), and kept when the row occurs on both sides
 * (INTERSECT) or only on the left (EXCEPT).
 */
static int intersect_except(sql_binder_t *b, const sql_qbody_t *q, sql_plan_t *u,
                            sql_plan_t **out) {
  uint32_t n = u->ncols - 2;
  sql_plan_t *a = sql_plan_new(b->a, SQL_P_AGGREGATE, u);
  a->u.agg.nkeys = n;
  a->u.agg.keys = fl_arena_zalloc(b->a, (n ? n : 1) * sizeof(uint32_t));
  for (uint32_t i = 0; i < n; i++) a->u.agg.keys[i] = i;
  a->u.agg.naggs = 2;
  a->u.agg.aggs = fl_arena_zalloc(b->a, 2 * sizeof *a->u.agg.aggs);
  sql_dtype_t it = sql_dtype(SQL_DT_INTEGER);
  for (int k = 0; k < 2; k++)
    a->u.agg.aggs[k] =
        (sql_agg_call_t){.name = "max", .arg_col = (int32_t)(n + k), .filter_col = -1, .type = it};
  a->ncols = n + 2;
  a->cols = u->cols;
  sql_bexpr_t *args[2], *lhs, *rhs, *pred;
  int rc;
  args[0] = sql__col_ref(b, n, &it, q->pos);
  args[1] = sql__int_const(b, 1, q->pos);
  if ((rc = sql__call(b, "=", q->pos, args, 2, &lhs))) return rc;
  args[0] = sql__col_ref(b, n + 1, &it, q->pos);
  args[1] = sql__int_const(b, q->u.setop.op == SQL_SET_INTERSECT ? 1 : 0, q->pos);
  if ((rc = sql__call(b, "=", q->pos, args, 2, &rhs))) return rc;
  pred = fl_arena_zalloc(b->a, sizeof *pred);
  pred->kind = SQL_BX_AND;
  pred->type = sql_dtype(SQL_DT_BOOLEAN);
  pred->pos = q->pos;
  pred->nargs = 2;
  pred->args = fl_arena_alloc(b->a, 2 * sizeof *pred->args);
  pred->args[0] = lhs;
  pred->args[1] = rhs;
  sql_plan_t *f = sql_plan_new(b->a, SQL_P_FILTER, a);
  f->u.filter.pred = pred;
  f->cols = a->cols;
  f->ncols = a->ncols;
  sql_plan_t *p = sql_plan_new(b->a, SQL_P_PROJECT, f);
  p->ncols = n;
  p->cols = fl_arena_zalloc(b->a, (n ? n : 1) * sizeof *p->cols);
  p->u.project.exprs = fl_arena_zalloc(b->a, (n ? n : 1) * sizeof(sql_bexpr_t *));
  for (uint32_t i = 0; i < n; i++) {
    p->cols[i] = u->cols[i];
    p->u.project.exprs[i] = sql__col_ref(b, i, &u->cols[i].type, q->pos);
  }
  *out = p;
  return FL_OK;
}

/*
 * INTERSECT ALL and EXCEPT ALL (multisets): over the tagged union, a
 * window partitioned on all columns (NULLs equal) counts each side's
 * copies of the row (cl, cr) and numbers the copies (rn); the rows with
 * rn <= least(cl, cr) (INTERSECT) or rn <= cl - cr (EXCEPT) remain. The
 * copies of a row are equal, so which ones remain does not matter.
 */
static int intersect_except_all(sql_binder_t *b, const sql_qbody_t *q, sql_plan_t *u,
                                sql_plan_t **out) {
  uint32_t n = u->ncols - 2;
  sql_dtype_t bt = sql_dtype(SQL_DT_BIGINT);
  sql_plan_t *w = sql_plan_new(b->a, SQL_P_WINDOW, u);
  w->u.window.partition = fl_arena_zalloc(b->a, (n ? n : 1) * sizeof(uint32_t));
  for (uint32_t i = 0; i < n; i++) w->u.window.partition[i] = i;
  w->u.window.npartition = n;
  w->u.window.nfns = 3;
  w->u.window.fns = fl_arena_zalloc(b->a, 3 * sizeof *w->u.window.fns);
  for (uint32_t k = 0; k < 2; k++)
    w->u.window.fns[k] = (sql_win_call_t){
        .name = "sum",
        .is_agg = true,
        .agg = {.name = "sum", .arg_col = (int32_t)(n + k), .filter_col = -1, .type = bt},
        .arg_col = -1,
        .default_col = -1,
        .type = bt};
  w->u.window.fns[2] =
      (sql_win_call_t){.name = "row_number", .arg_col = -1, .default_col = -1, .type = bt};
  w->ncols = n + 5;
  w->cols = fl_arena_zalloc(b->a, w->ncols * sizeof *w->cols);
  memcpy(w->cols, u->cols, (n + 2) * sizeof *w->cols);
  w->cols[n + 2] = (sql_col_t){.name = "$cl", .type = bt};
  w->cols[n + 3] = (sql_col_t){.name = "$cr", .type = bt};
  w->cols[n + 4] = (sql_col_t){.name = "$rn", .type = bt};
  sql_bexpr_t *cl = sql__col_ref(b, n + 2, &bt, q->pos), *cr = sql__col_ref(b, n + 3, &bt, q->pos),
              *rn = sql__col_ref(b, n + 4, &bt, q->pos), *pred, *args[2];
  int rc;
  if (q->u.setop.op == SQL_SET_INTERSECT) {
    sql_bexpr_t *x, *y;
    args[0] = rn;
    args[1] = cl;
    if ((rc = sql__call(b, "<=", q->pos, args, 2, &x))) return rc;
    args[1] = cr;
    if ((rc = sql__call(b, "<=", q->pos, args, 2, &y))) return rc;
    pred = sql__and(b, x, y);
  } else {
    sql_bexpr_t *diff;
    args[0] = cl;
    args[1] = cr;
    if ((rc = sql__call(b, "-", q->pos, args, 2, &diff))) return rc;
    args[0] = rn;
    args[1] = diff;
    if ((rc = sql__call(b, "<=", q->pos, args, 2, &pred))) return rc;
  }
  sql_plan_t *f = sql_plan_new(b->a, SQL_P_FILTER, w);
  f->u.filter.pred = pred;
  f->cols = w->cols;
  f->ncols = w->ncols;
  sql_plan_t *p = sql_plan_new(b->a, SQL_P_PROJECT, f);
  p->ncols = n;
  p->cols = fl_arena_zalloc(b->a, (n ? n : 1) * sizeof *p->cols);
  p->u.project.exprs = fl_arena_zalloc(b->a, (n ? n : 1) * sizeof(sql_bexpr_t *));
  for (uint32_t i = 0; i < n; i++) {
    p->cols[i] = u->cols[i];
    p->u.project.exprs[i] = sql__col_ref(b, i, &u->cols[i].type, q->pos);
  }
  *out = p;
  return FL_OK;
}

static int bind_setop(sql_binder_t *b, const sql_qbody_t *q, sql_plan_t **out) {
  bool inter = q->u.setop.op != SQL_SET_UNION;
  const char *opname = q->u.setop.op == SQL_SET_UNION       ? "UNION"
                       : q->u.setop.op == SQL_SET_INTERSECT ? "INTERSECT"
                                                            : "EXCEPT";
  sql_plan_t *l, *r;
  int rc;
  if ((rc = bind_body(b, q->u.setop.l, NULL, &l)) || (rc = bind_body(b, q->u.setop.r, NULL, &r)))
    return rc;
  if (l->ncols != r->ncols)
    return sql__errf(b, q->u.setop.r->pos, FL_EINVALID,
                     "%s query has different number of fields: %u, %u", opname, l->ncols, r->ncols);
  sql_dtype_t *types = fl_arena_zalloc(b->a, (l->ncols ? l->ncols : 1) * sizeof *types);
  for (uint32_t i = 0; i < l->ncols; i++)
    if (!sql__common(b, &l->cols[i].type, &r->cols[i].type, &types[i]))
      return sql__errf(b, q->u.setop.r->pos, FL_EINVALID,
                       "column %u in %s query has incompatible types: %s, %s", i + 1, opname,
                       sql_dtype_str(&l->cols[i].type), sql_dtype_str(&r->cols[i].type));
  if ((rc = cast_columns(b, &l, types)) || (rc = cast_columns(b, &r, types))) return rc;
  if (inter) {
    l = mark_side(b, l, 1, q->pos);
    r = mark_side(b, r, 0, q->pos);
  }
  sql_plan_t *u = sql_plan_new(b->a, SQL_P_UNION, NULL);
  u->ninputs = 2;
  u->inputs = fl_arena_zalloc(b->a, 2 * sizeof *u->inputs);
  u->inputs[0] = l;
  u->inputs[1] = r;
  u->in = l;
  u->ncols = l->ncols;
  u->cols = fl_arena_zalloc(b->a, (l->ncols ? l->ncols : 1) * sizeof *u->cols);
  for (uint32_t i = 0; i < l->ncols; i++)
    u->cols[i] = (sql_col_t){.name = l->cols[i].name,
                             .type = inter && i >= l->ncols - 2 ? l->cols[i].type : types[i]};
  if (inter && q->u.setop.all) return intersect_except_all(b, q, u, out);
  if (inter) return intersect_except(b, q, u, out);
  if (!q->u.setop.all) {
    sql_plan_t *d = sql_plan_new(b->a, SQL_P_AGGREGATE, u);
    d->u.agg.nkeys = u->ncols;
    d->u.agg.keys = fl_arena_zalloc(b->a, (u->ncols ? u->ncols : 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < u->ncols; i++) d->u.agg.keys[i] = i;
    d->cols = u->cols;
    d->ncols = u->ncols;
    u = d;
  }
  *out = u;
  return FL_OK;
}

static int bind_body(sql_binder_t *b, const sql_qbody_t *q, const sql_sort_list_t *order,
                     sql_plan_t **out) {
  int rc;
  switch (q->kind) {
    case SQL_QB_SELECT: return sql__bind_select(b, &q->u.select, order, out);
    case SQL_QB_PAREN:
      if ((rc = sql__bind_query(b, q->u.paren, out))) return rc;
      break;
    case SQL_QB_VALUES:
      if ((rc = bind_values(b, q, out))) return rc;
      break;
    case SQL_QB_SETOP:
      if ((rc = bind_setop(b, q, out))) return rc;
      break;
    case SQL_QB_TABLE: {
      sql_rel_t rel = {.kind = SQL_REL_TABLE, .pos = q->pos};
      rel.u.table.name = q->u.table;
      sql_scope_t sc;
      if ((rc = sql__bind_from(b, &rel, out, &sc))) return rc;
      break;
    }
    default: return sql__errf(b, q->pos, FL_EUNSUPPORTED, "This query form is not supported yet");
  }
  if (order && order->n) return sql__bind_order_output(b, order, out);
  return FL_OK;
}

static int const_count(sql_binder_t *b, const sql_expr_t *x, const char *what, int64_t *out) {
  if (x->kind != SQL_E_INT || x->u.i.value < 0)
    return sql__errf(b, x->pos, FL_EINVALID, "%s must be a non-negative integer constant", what);
  *out = x->u.i.value;
  return FL_OK;
}

int sql__bind_query(sql_binder_t *b, const sql_query_t *q, sql_plan_t **out) {
  if (q->recursive)
    return sql__errf(b, q->pos, FL_EUNSUPPORTED, "WITH RECURSIVE is not supported yet");
  sql_cte_ent_t *saved = b->ctes;
  for (size_t i = 0; i < q->nctes; i++) {
    for (size_t j = 0; j < i; j++)
      if (!strcasecmp(q->ctes[i].name.name, q->ctes[j].name.name)) {
        b->ctes = saved;
        return sql__errf(b, q->ctes[i].name.pos, FL_EINVALID,
                         "WITH query name '%s' specified more than once", q->ctes[i].name.name);
      }
    sql_cte_ent_t *e = fl_arena_zalloc(b->a, sizeof *e);
    e->cte = &q->ctes[i];
    e->next = b->ctes;
    b->ctes = e;
  }
  sql_plan_t *p;
  int rc = bind_body(b, q->body, &q->order_by, &p);
  b->ctes = saved;
  if (rc) return rc;
  int64_t limit = -1, offset = 0;
  if (q->offset && (rc = const_count(b, q->offset, "OFFSET", &offset))) return rc;
  if (q->limit_kind == SQL_LIMIT_FETCH_TIES)
    return sql__errf(b, q->pos, FL_EUNSUPPORTED, "FETCH FIRST ... WITH TIES is not supported yet");
  if (q->limit_kind == SQL_LIMIT_COUNT || q->limit_kind == SQL_LIMIT_FETCH) {
    if (q->limit) {
      if ((rc = const_count(b, q->limit, "LIMIT", &limit))) return rc;
    } else {
      limit = 1; /* FETCH FIRST ROW ONLY */
    }
  }
  if (limit >= 0 || offset > 0) {
    sql_plan_t *l = sql_plan_new(b->a, SQL_P_LIMIT, p);
    l->u.limit.limit = limit;
    l->u.limit.offset = offset;
    l->cols = p->cols;
    l->ncols = p->ncols;
    p = l;
  }
  *out = p;
  return FL_OK;
}

int sql__bind_top_query(sql_binder_t *b, const sql_query_t *q, sql_plan_t **out) {
  sql_cte_ent_t *ctes = b->ctes;
  int depth = b->depth;
  int rc = sql__bind_query(b, q, out);
  if (rc && b->want_hidden && !b->hidden) {
    /* The query names a hidden column: only then do scans carry them.
     * The failed attempt may have left its WITH names and depth behind. */
    fl_err_clear(b->err);
    b->ctes = ctes;
    b->depth = depth;
    b->hidden = true;
    rc = sql__bind_query(b, q, out);
  }
  return rc;
}

int sql_bind_query(fl_arena_t *a, const sql_bind_opts_t *o, const sql_query_t *q, sql_plan_t **out,
                   fl_err_t *err) {
  sql_binder_t b = {.a = a, .o = o, .err = err};
  return sql__bind_top_query(&b, q, out);
}
