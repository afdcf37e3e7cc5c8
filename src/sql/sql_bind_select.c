/*
 * sql_bind_select.c - binding one SELECT (layer 7, sql): FROM, WHERE,
 * GROUP BY (expressions and ordinals), aggregates, HAVING, the select
 * list with `*` and aliases, DISTINCT, and ORDER BY by output name,
 * ordinal or any expression over the input.
 *
 * The plan it builds, bottom up:
 *   relation -> Filter(WHERE)
 *     -> [Project(keys, aggregate arguments) -> Aggregate -> Filter(HAVING)]
 *     -> [Project(columns, window arguments and keys) -> Window...]
 *     -> Project(select list + hidden ORDER BY columns)
 *     -> [Aggregate(all columns): DISTINCT] -> [Sort] -> [Project: drop hidden]
 * Aggregates are collected while the select list, HAVING and ORDER BY are
 * bound (sql_bind_expr.c), so the aggregation is built after them.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sql/sql_bind_int.h"

static bool star_matches(const sql_scope_col_t *c, const sql_qname_t *q) {
  if (q->n == 0) return true;
  if (!c->qual) return false;
  const char *last = q->parts[q->n - 1].name;
  const char *dot = strrchr(c->qual, '.');
  return strcasecmp(dot ? dot + 1 : c->qual, last) == 0;
}

static int expand_star(sql_binder_t *b, const sql_select_item_t *it, const sql_scope_t *sc,
                       sql_aggctx_t *ag, sql_named_exprs_t *out) {
  uint32_t found = 0;
  for (uint32_t i = 0; i < sc->n; i++) {
    if (sc->cols[i].hidden || !star_matches(&sc->cols[i], &it->qualifier)) continue;
    found++;
    sql_bexpr_t *e = sql__col_ref(b, i, &sc->cols[i].type, it->pos);
    if (ag) {
      uint32_t k = 0;
      while (k < ag->nkeys && !sql_bexpr_equal(ag->keys[k], e)) k++;
      if (k == ag->nkeys)
        return sql__errf(b, it->pos, FL_EINVALID,
                         "'%s' must be an aggregate expression or appear in GROUP BY clause",
                         sc->cols[i].name);
      e = sql__col_ref(b, k, &sc->cols[i].type, it->pos);
    }
    sql_named_exprs_add(b->a, out, e, sc->cols[i].name);
  }
  if (!found && it->qualifier.n)
    return sql__errf(b, it->pos, FL_EINVALID, "Table '%s' not found",
                     it->qualifier.parts[it->qualifier.n - 1].name);
  if (!found)
    return sql__errf(b, it->pos, FL_EINVALID,
                     "SELECT * not allowed in queries without FROM clause");
  return FL_OK;
}

/* The index of key e among the keys (added when new). */
static int key_index(sql_binder_t *b, sql_aggctx_t *ag, sql_bexpr_t *e, uint32_t cap, sql_pos_t pos,
                     uint32_t *out) {
  for (uint32_t i = 0; i < ag->nkeys; i++)
    if (sql_bexpr_equal(ag->keys[i], e)) {
      *out = i;
      return FL_OK;
    }
  if (ag->nkeys >= 64 || ag->nkeys >= cap)
    return sql__errf(b, pos, FL_ELIMIT, "GROUP BY has more than 64 grouping expressions");
  ag->keys[ag->nkeys] = e;
  /* Keys take the first slots of the projection below the aggregate. */
  if (ag->nproj == ag->proj_cap) {
    uint32_t c2 = ag->proj_cap ? ag->proj_cap * 2 : 8;
    sql_bexpr_t **n = fl_arena_alloc(b->a, c2 * sizeof *n);
    if (ag->nproj) memcpy(n, ag->proj, ag->nproj * sizeof *n);
    ag->proj = n;
    ag->proj_cap = c2;
  }
  ag->proj[ag->nproj++] = e;
  *out = ag->nkeys++;
  return FL_OK;
}

static int bind_key(sql_binder_t *b, const sql_select_t *s, const sql_scope_t *sc, sql_aggctx_t *ag,
                    const sql_expr_t *x, uint32_t cap, uint32_t *out) {
  sql_ectx_t cx = {.scope = sc, .clause = "GROUP BY clause"};
  if (x->kind == SQL_E_INT) {
    int64_t k = x->u.i.value;
    if (k < 1 || (size_t)k > s->nitems)
      return sql__errf(b, x->pos, FL_EINVALID, "GROUP BY position %lld is not in select list",
                       (long long)k);
    const sql_select_item_t *it = &s->items[k - 1];
    if (it->kind != SQL_ITEM_EXPR)
      return sql__errf(b, x->pos, FL_EINVALID, "GROUP BY position %lld names a *", (long long)k);
    x = it->expr;
  }
  sql_bexpr_t *e;
  int rc = sql__bind_expr(b, &cx, x, &e);
  if (rc) return rc;
  return key_index(b, ag, e, cap, x->pos, out);
}

/* The key mask of an expression list. */
static int list_mask(sql_binder_t *b, const sql_select_t *s, const sql_scope_t *sc,
                     sql_aggctx_t *ag, const sql_expr_list_t *l, uint32_t cap, uint64_t *mask) {
  *mask = 0;
  for (size_t i = 0; i < l->n; i++) {
    uint32_t k;
    int rc = bind_key(b, s, sc, ag, l->items[i], cap, &k);
    if (rc) return rc;
    *mask |= 1ull << k;
  }
  return FL_OK;
}

/*
 * GROUP BY: each element gives a list of grouping sets (a plain
 * expression one set of one key; ROLLUP (a, b) {a,b}, {a}, {}; CUBE every
 * subset; GROUPING SETS its lists), and the query's sets are the cross
 * product of the elements' lists, as in Trino. Without ROLLUP, CUBE or
 * GROUPING SETS there is one set of all keys and no sets are recorded.
 */
static int group_keys(sql_binder_t *b, const sql_select_t *s, const sql_scope_t *sc,
                      sql_aggctx_t *ag) {
  uint32_t cap = 64;
  ag->keys = fl_arena_zalloc(b->a, cap * sizeof *ag->keys);
  uint64_t *sets = fl_arena_zalloc(b->a, sizeof *sets);
  uint32_t nsets = 1; /* the one empty set */
  bool any_sets = false;
  int rc;
  for (size_t g = 0; g < s->ngroup; g++) {
    const sql_group_elem_t *ge = &s->group_by[g];
    uint64_t *el = NULL;
    uint32_t nel = 0;
    switch (ge->kind) {
      case SQL_GROUP_EXPR: {
        uint32_t k;
        if ((rc = bind_key(b, s, sc, ag, ge->expr, cap, &k))) return rc;
        el = fl_arena_alloc(b->a, sizeof *el);
        el[nel++] = 1ull << k;
        break;
      }
      case SQL_GROUP_EMPTY:
        any_sets = true;
        el = fl_arena_zalloc(b->a, sizeof *el);
        nel = 1;
        break;
      case SQL_GROUP_ROLLUP:
      case SQL_GROUP_CUBE: {
        any_sets = true;
        size_t n = ge->list.n;
        if (n > 12) return sql__errf(b, ge->pos, FL_ELIMIT, "Too many columns in ROLLUP or CUBE");
        uint64_t bits[12];
        for (size_t i = 0; i < n; i++) {
          uint32_t k;
          if ((rc = bind_key(b, s, sc, ag, ge->list.items[i], cap, &k))) return rc;
          bits[i] = 1ull << k;
        }
        if (ge->kind == SQL_GROUP_ROLLUP) {
          el = fl_arena_zalloc(b->a, (n + 1) * sizeof *el);
          for (size_t len = n + 1; len-- > 0;) {
            uint64_t m = 0;
            for (size_t i = 0; i < len; i++) m |= bits[i];
            el[nel++] = m;
          }
        } else {
          el = fl_arena_zalloc(b->a, ((size_t)1 << n) * sizeof *el);
          for (uint64_t sub = ((uint64_t)1 << n); sub-- > 0;) {
            uint64_t m = 0;
            for (size_t i = 0; i < n; i++)
              if (sub & (1ull << i)) m |= bits[i];
            el[nel++] = m;
          }
        }
        break;
      }
      case SQL_GROUP_SETS:
        any_sets = true;
        el = fl_arena_zalloc(b->a, (ge->nsets ? ge->nsets : 1) * sizeof *el);
        for (size_t i = 0; i < ge->nsets; i++)
          if ((rc = list_mask(b, s, sc, ag, &ge->sets[i], cap, &el[nel++]))) return rc;
        break;
    }
    if ((uint64_t)nsets * nel > 4096)
      return sql__errf(b, ge->pos, FL_ELIMIT, "GROUP BY has more than 4096 grouping sets");
    uint64_t *next = fl_arena_zalloc(b->a, (size_t)nsets * nel * sizeof *next);
    uint32_t k = 0;
    for (uint32_t i = 0; i < nsets; i++)
      for (uint32_t j = 0; j < nel; j++) next[k++] = sets[i] | el[j];
    sets = next;
    nsets = k;
  }
  if (any_sets) {
    ag->sets = sets;
    ag->nsets = nsets;
  }
  ag->agg_base = ag->nkeys + (ag->nsets ? 1 : 0);
  return FL_OK;
}

static const char *item_name(sql_binder_t *b, const sql_select_item_t *it, uint32_t i) {
  if (it->alias.name) return it->alias.name;
  if (it->expr->kind == SQL_E_COLUMN)
    return it->expr->u.column.parts[it->expr->u.column.n - 1].name;
  return fl_arena_sprintf(b->a, "_col%u", i);
}

void sql__sort_key(const sql_sort_item_t *it, uint32_t col, sql_sort_key_t *k) {
  k->col = col;
  k->desc = it->dir == SQL_SORT_DESC;
  /* Trino puts NULLs last by default, ascending or descending. */
  k->nulls_first = it->nulls == SQL_NULLS_FIRST;
}

/* The output column ORDER BY item x names by alias, if any. */
static int order_by_name(sql_binder_t *b, const sql_expr_t *x, const sql_named_exprs_t *sel,
                         uint32_t nvis, int *col) {
  *col = -1;
  if (x->kind != SQL_E_COLUMN || x->u.column.n != 1) return FL_OK;
  const char *name = x->u.column.parts[0].name;
  for (uint32_t i = 0; i < nvis; i++) {
    if (strcasecmp(sel->names[i], name) != 0) continue;
    if (*col >= 0 && !sql_bexpr_equal(sel->e[*col], sel->e[i]))
      return sql__errf(b, x->pos, FL_EINVALID, "'%s' in ORDER BY is ambiguous", name);
    if (*col < 0) *col = (int)i;
  }
  return FL_OK;
}

/* The subquery of `[NOT] EXISTS (SELECT ... FROM ... [WHERE ...])`, a
 * form that becomes a SEMI (ANTI) join whose condition is the subquery's
 * WHERE, which may name the enclosing query's columns; NULL otherwise
 * (grouping, aggregates, LIMIT, set operations: then EXISTS is an
 * uncorrelated scalar subquery). */
static const sql_select_t *simple_select(sql_binder_t *b, const sql_query_t *q) {
  if (q->nctes || q->limit_kind != SQL_LIMIT_NONE || q->offset || q->body->kind != SQL_QB_SELECT)
    return NULL;
  const sql_select_t *s = &q->body->u.select;
  if (!s->nfrom || s->ngroup || s->having || sql__has_subquery(s->where)) return NULL;
  for (size_t i = 0; i < s->nitems; i++)
    if (s->items[i].kind == SQL_ITEM_EXPR && sql__has_agg(b, s->items[i].expr)) return NULL;
  return s;
}

static const sql_select_t *simple_exists(sql_binder_t *b, const sql_expr_t *x, bool *negated) {
  *negated = false;
  if (x->kind == SQL_E_UNARY && x->u.unary.op == SQL_UN_NOT) {
    *negated = true;
    x = x->u.unary.arg;
  }
  if (x->kind != SQL_E_EXISTS) return NULL;
  return simple_select(b, x->u.query);
}

/* `x IN (SELECT y FROM ... [WHERE ...])` of the same simple form: a SEMI
 * join on x = y and the WHERE, which may name the outer query's columns.
 * (NOT IN needs the null-aware ANTI join, which takes a single key and no
 * other condition: it stays an uncorrelated subquery.) */
static const sql_select_t *simple_in(sql_binder_t *b, const sql_expr_t *x) {
  if (x->kind != SQL_E_IN_QUERY || x->u.in_query.negated) return NULL;
  const sql_select_t *s = simple_select(b, x->u.in_query.query);
  if (!s || s->nitems != 1 || s->items[0].kind != SQL_ITEM_EXPR || s->distinct) return NULL;
  return s;
}

/* Filter(pred) over p, with the APPLY nodes of pred's correlated
 * subqueries between them and a projection back to p's columns. */
static sql_plan_t *filter_applied(sql_binder_t *b, sql_subq_t *sq, sql_plan_t *p,
                                  sql_bexpr_t *pred) {
  sql_plan_t *in = p;
  uint32_t n = p->ncols;
  bool applied = sq->n > 0;
  sql__plan_applies(b, sq, &p, &pred, 1);
  sql_plan_t *f = sql_plan_new(b->a, SQL_P_FILTER, p);
  f->u.filter.pred = pred;
  f->cols = p->cols;
  f->ncols = p->ncols;
  if (!applied) return f;
  sql_bexpr_t **e = fl_arena_zalloc(b->a, (n ? n : 1) * sizeof *e);
  const char **names = fl_arena_zalloc(b->a, (n ? n : 1) * sizeof *names);
  for (uint32_t i = 0; i < n; i++) {
    e[i] = sql__col_ref(b, i, &in->cols[i].type, (sql_pos_t){0});
    names[i] = in->cols[i].name;
  }
  return sql_plan_project(b->a, f, e, names, n);
}

static bool has_exists(const sql_expr_t *x) {
  if (x->kind == SQL_E_BINARY_OP && x->u.bin.op == SQL_OP_AND)
    return has_exists(x->u.bin.l) || has_exists(x->u.bin.r);
  if (x->kind == SQL_E_IN_QUERY && !x->u.in_query.negated) return true;
  if (x->kind == SQL_E_UNARY && x->u.unary.op == SQL_UN_NOT) x = x->u.unary.arg;
  return x->kind == SQL_E_EXISTS;
}

static void and_conjuncts(const sql_expr_t *x, const sql_expr_t **v, size_t *n, size_t cap) {
  if (x->kind == SQL_E_BINARY_OP && x->u.bin.op == SQL_OP_AND) {
    and_conjuncts(x->u.bin.l, v, n, cap);
    and_conjuncts(x->u.bin.r, v, n, cap);
    return;
  }
  if (*n < cap) v[(*n)++] = x;
}

static size_t count_conjuncts(const sql_expr_t *x) {
  if (x->kind == SQL_E_BINARY_OP && x->u.bin.op == SQL_OP_AND)
    return count_conjuncts(x->u.bin.l) + count_conjuncts(x->u.bin.r);
  return 1;
}

/* WHERE with [NOT] EXISTS or IN conjuncts: each simple one a SEMI (ANTI)
 * join of the FROM plan with the subquery's FROM on the subquery's WHERE
 * (and x = y for IN); the other conjuncts a filter over them. */
static int bind_where_exists(sql_binder_t *b, const sql_expr_t *where, const sql_scope_t *sc,
                             sql_subq_t *sq, sql_plan_t **p) {
  size_t n = count_conjuncts(where), k = 0;
  const sql_expr_t **v = fl_arena_zalloc(b->a, n * sizeof *v);
  and_conjuncts(where, v, &k, n);
  sql_bexpr_t *rest = NULL;
  int rc;
  for (size_t i = 0; i < k; i++) {
    bool neg;
    const sql_select_t *in = simple_in(b, v[i]);
    const sql_select_t *q = in ? in : simple_exists(b, v[i], &neg);
    if (in) neg = false;
    if (!q) {
      sql_ectx_t cx = {.scope = sc, .clause = "WHERE clause", .subq = sq};
      sql_bexpr_t *c;
      if ((rc = sql__bind_cond(b, &cx, v[i], "WHERE clause", &c))) return rc;
      rest = rest ? sql__and(b, rest, c) : c;
      continue;
    }
    sql_plan_t *r;
    sql_scope_t rs = {0};
    if ((rc = sql__bind_from_list(b, q->from, q->nfrom, &r, &rs))) return rc;
    sql_scope_t both = {.n = sc->n + rs.n};
    both.cols = fl_arena_zalloc(b->a, (both.n ? both.n : 1) * sizeof *both.cols);
    for (uint32_t j = 0; j < sc->n; j++) {
      both.cols[j] = sc->cols[j];
      both.cols[j].outer = true;
    }
    for (uint32_t j = 0; j < rs.n; j++) both.cols[sc->n + j] = rs.cols[j];
    sql_ectx_t cx = {.scope = &both, .clause = "WHERE clause"};
    /* The select list is not evaluated, but must be valid. */
    for (size_t j = 0; j < q->nitems; j++) {
      sql_bexpr_t *e;
      if (q->items[j].kind == SQL_ITEM_EXPR && (rc = sql__bind_expr(b, &cx, q->items[j].expr, &e)))
        return rc;
    }
    sql_bexpr_t *cond = NULL;
    if (q->where && (rc = sql__bind_cond(b, &cx, q->where, "WHERE clause", &cond))) return rc;
    if (in) {
      /* x = y, x over the outer columns (numbered as in both), y the
       * subquery's select item. */
      sql_bexpr_t *args[2], *eq;
      sql_ectx_t ox = {.scope = sc, .clause = "WHERE clause"};
      if ((rc = sql__bind_expr(b, &ox, v[i]->u.in_query.arg, &args[0])) ||
          (rc = sql__bind_expr(b, &cx, q->items[0].expr, &args[1])))
        return rc;
      sql_dtype_t t;
      if (!sql__common(b, &args[0]->type, &args[1]->type, &t))
        return sql__errf(
            b, v[i]->pos, FL_EINVALID,
            "Value expression and result of subquery must be of the same type: %s vs %s",
            sql_dtype_str(&args[0]->type), sql_dtype_str(&args[1]->type));
      if ((rc = sql__call(b, "=", v[i]->pos, args, 2, &eq))) return rc;
      cond = cond ? sql__and(b, eq, cond) : eq;
    }
    *p = sql__join_new(b, *p, r, neg ? SQL_JT_ANTI : SQL_JT_SEMI, cond);
  }
  if (rest) *p = filter_applied(b, sq, *p, rest);
  return FL_OK;
}

int sql__bind_select(sql_binder_t *b, const sql_select_t *s, const sql_sort_list_t *order,
                     sql_plan_t **out) {
  sql_plan_t *p;
  sql_scope_t sc = {0};
  int rc;
  if (s->nfrom == 0) {
    /* No FROM: one row of no columns. */
    p = sql_plan_new(b->a, SQL_P_VALUES, NULL);
    p->u.values.nrows = 1;
  } else {
    if ((rc = sql__bind_from_list(b, s->from, s->nfrom, &p, &sc))) return rc;
  }
  sql_subq_t wsq = {0};
  if (s->where && has_exists(s->where)) {
    if ((rc = bind_where_exists(b, s->where, &sc, &wsq, &p))) return rc;
  } else if (s->where) {
    sql_ectx_t cx = {.scope = &sc, .clause = "WHERE clause", .subq = &wsq};
    sql_bexpr_t *pred;
    if ((rc = sql__bind_cond(b, &cx, s->where, "WHERE clause", &pred))) return rc;
    p = filter_applied(b, &wsq, p, pred);
  }

  bool aggregating = s->ngroup > 0 || s->having;
  for (size_t i = 0; i < s->nitems && !aggregating; i++)
    aggregating = s->items[i].kind == SQL_ITEM_EXPR && sql__has_agg(b, s->items[i].expr);
  for (size_t i = 0; order && i < order->n && !aggregating; i++)
    aggregating = sql__has_agg(b, order->items[i].expr);

  sql_aggctx_t ag = {.pre = &sc};
  sql_ectx_t post = {.scope = &sc};
  if (aggregating) {
    if ((rc = group_keys(b, s, &sc, &ag))) return rc;
    post.agg = &ag;
    post.scope = NULL;
  }
  sql_winctx_t wc = {.sel = s};
  post.win = &wc;
  sql_subq_t psq = {0};
  post.subq = &psq;

  sql_named_exprs_t sel = {0};
  for (size_t i = 0; i < s->nitems; i++) {
    const sql_select_item_t *it = &s->items[i];
    if (it->kind == SQL_ITEM_STAR) {
      if ((rc = expand_star(b, it, &sc, aggregating ? &ag : NULL, &sel))) return rc;
      continue;
    }
    sql_bexpr_t *e;
    if ((rc = sql__bind_expr(b, &post, it->expr, &e))) return rc;
    sql_named_exprs_add(b->a, &sel, e, item_name(b, it, (uint32_t)i));
  }
  uint32_t nvis = sel.n;

  sql_bexpr_t *having = NULL;
  if (s->having) {
    sql_ectx_t hx = post;
    hx.clause = "HAVING clause";
    hx.win = NULL;
    if ((rc = sql__bind_cond(b, &hx, s->having, "HAVING clause", &having))) return rc;
  }

  /* ORDER BY: output names and ordinals first, then expressions. */
  uint32_t nkeys = order ? (uint32_t)order->n : 0;
  sql_sort_key_t *keys = fl_arena_zalloc(b->a, (nkeys ? nkeys : 1) * sizeof *keys);
  for (uint32_t k = 0; k < nkeys; k++) {
    const sql_sort_item_t *it = &order->items[k];
    const sql_expr_t *x = it->expr;
    int col = -1;
    if (x->kind == SQL_E_INT) {
      if (x->u.i.value < 1 || x->u.i.value > nvis)
        return sql__errf(b, x->pos, FL_EINVALID, "ORDER BY position %lld is not in select list",
                         (long long)x->u.i.value);
      col = (int)x->u.i.value - 1;
    } else {
      if ((rc = order_by_name(b, x, &sel, nvis, &col))) return rc;
      if (col < 0) {
        sql_ectx_t ox = post;
        ox.clause = "ORDER BY clause";
        sql_bexpr_t *e;
        if ((rc = sql__bind_expr(b, &ox, x, &e))) return rc;
        for (uint32_t i = 0; i < sel.n && col < 0; i++)
          if (sql_bexpr_equal(sel.e[i], e)) col = (int)i;
        if (col < 0) {
          if (s->distinct)
            return sql__errf(
                b, x->pos, FL_EINVALID,
                "For SELECT DISTINCT, ORDER BY expressions must appear in select list");
          col = (int)sel.n;
          sql_named_exprs_add(b->a, &sel, e, fl_arena_sprintf(b->a, "$order%u", k));
        }
      }
    }
    if ((rc = sql__check_orderable(b, x->pos, &sel.e[col]->type, "ORDER BY"))) return rc;
    sql__sort_key(it, (uint32_t)col, &keys[k]);
  }

  if (aggregating) {
    const char **names = fl_arena_zalloc(b->a, (ag.nproj ? ag.nproj : 1) * sizeof *names);
    for (uint32_t i = 0; i < ag.nproj; i++) names[i] = fl_arena_sprintf(b->a, "$g%u", i);
    p = sql_plan_project(b->a, p, ag.proj, names, ag.nproj);
    sql_plan_t *a = sql_plan_new(b->a, SQL_P_AGGREGATE, p);
    a->u.agg.nkeys = ag.nkeys;
    a->u.agg.keys = fl_arena_zalloc(b->a, (ag.nkeys ? ag.nkeys : 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < ag.nkeys; i++) a->u.agg.keys[i] = i;
    a->u.agg.aggs = ag.aggs;
    a->u.agg.naggs = ag.naggs;
    a->u.agg.sets = ag.sets;
    a->u.agg.nsets = ag.nsets;
    a->ncols = ag.agg_base + ag.naggs;
    a->cols = fl_arena_zalloc(b->a, (a->ncols ? a->ncols : 1) * sizeof *a->cols);
    for (uint32_t i = 0; i < ag.nkeys; i++) a->cols[i] = p->cols[i];
    if (ag.nsets)
      a->cols[ag.nkeys] = (sql_col_t){.name = "$grouping_set", .type = sql_dtype(SQL_DT_BIGINT)};
    for (uint32_t j = 0; j < ag.naggs; j++)
      a->cols[ag.agg_base + j] = (sql_col_t){.name = ag.aggs[j].name, .type = ag.aggs[j].type};
    p = a;
    sql_bexpr_t **fix = fl_arena_zalloc(b->a, (sel.n + 1 + wc.nextra) * sizeof *fix);
    memcpy(fix, sel.e, sel.n * sizeof *fix);
    if (wc.nextra) memcpy(fix + sel.n, wc.extra, wc.nextra * sizeof *fix);
    fix[sel.n + wc.nextra] = having;
    sql__plan_applies(b, &psq, &p, fix, sel.n + wc.nextra + (having ? 1 : 0));
    if (having) {
      sql_plan_t *f = sql_plan_new(b->a, SQL_P_FILTER, p);
      f->u.filter.pred = having;
      f->cols = p->cols;
      f->ncols = p->ncols;
      p = f;
    }
  }

  if (psq.n) {
    sql_bexpr_t **fix = fl_arena_zalloc(b->a, (sel.n + wc.nextra + 1) * sizeof *fix);
    memcpy(fix, sel.e, sel.n * sizeof *fix);
    if (wc.nextra) memcpy(fix + sel.n, wc.extra, wc.nextra * sizeof *fix);
    sql__plan_applies(b, &psq, &p, fix, sel.n + wc.nextra);
  }
  if ((rc = sql__plan_windows(b, &wc, &p, sel.e, sel.n))) return rc;
  p = sql_plan_project(b->a, p, sel.e, sel.names, sel.n);
  if (s->distinct) {
    sql_plan_t *d = sql_plan_new(b->a, SQL_P_AGGREGATE, p);
    d->u.agg.nkeys = p->ncols;
    d->u.agg.keys = fl_arena_zalloc(b->a, (p->ncols ? p->ncols : 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < p->ncols; i++) d->u.agg.keys[i] = i;
    d->cols = p->cols;
    d->ncols = p->ncols;
    p = d;
  }
  if (nkeys) {
    sql_plan_t *so = sql_plan_new(b->a, SQL_P_SORT, p);
    so->u.sort.keys = keys;
    so->u.sort.nkeys = nkeys;
    so->cols = p->cols;
    so->ncols = p->ncols;
    p = so;
  }
  if (sel.n > nvis) {
    sql_bexpr_t **e = fl_arena_zalloc(b->a, nvis * sizeof *e);
    for (uint32_t i = 0; i < nvis; i++) e[i] = sql__col_ref(b, i, &p->cols[i].type, (sql_pos_t){0});
    p = sql_plan_project(b->a, p, e, sel.names, nvis);
  }
  *out = p;
  return FL_OK;
}
