/*
 * opt_decorrelate.c - decorrelation of subqueries (layer 7, sql): every
 * APPLY node the binder made for a correlated subquery (or a quantified
 * comparison) becomes joins and aggregations, before the other rules run.
 *
 * Two strategies, as in Trino's rules and in "Unnesting Arbitrary
 * Queries" (Neumann, Kemper):
 *
 * 1. A scalar aggregation whose correlation is equalities in its WHERE,
 *    `(SELECT f(x) FROM s WHERE s.k = t.k AND local)`, is computed once
 *    per key and joined: `t LEFT JOIN (SELECT k, f(x) FROM s WHERE local
 *    GROUP BY k) ON t.k = k`. The aggregates whose value over no rows is
 *    not NULL (count, approx_distinct) are coalesced with 0 - the COUNT
 *    bug - before HAVING and the select list are evaluated over them.
 *
 * 2. Everything else goes through the dependent join. The outer input L
 *    gets a unique row number (D = L + rowid, a row_number() window), and
 *    the subquery Q is rewritten bottom-up into a plan over D whose rows
 *    are each row of D with the rows of Q for it, plus a boolean marker:
 *    a D row with no Q rows still appears, with marker not TRUE (as a
 *    LEFT join leaves it). The rules, for R(P) = the rewrite of P:
 *      P uncorrelated          D LEFT JOIN (P, TRUE) ON TRUE
 *      Filter(p, X uncorr.)    D LEFT JOIN (X, TRUE) ON p     (p's outer
 *                              references become D's columns: join keys)
 *      Filter(p, X)            R(X) with marker := marker AND p
 *      Project(e, X)           R(X) projected, D's columns kept in front
 *      Aggregate(keys, X)      grouped by D's columns and the keys, each
 *                              aggregate filtered by the marker; without
 *                              keys each D row gets exactly one row (so
 *                              count over no rows is 0); with keys the
 *                              marker is count(*) FILTER (marker) > 0
 *      Sort(X)                 R(X) (order is meaningless without LIMIT)
 *      Unnest(a, X)            an outer UNNEST over R(X): a D row whose
 *                              arrays are empty keeps a row, marker false
 *      Limit(n, [Sort] X)      row_number() over (PARTITION BY rowid
 *                              ORDER BY marker DESC, keys) <= n
 *      Join(A, B)              R(A) LEFT JOIN B ON marker AND cond, or,
 *                              B correlated, LEFT JOIN R(B) on the row id
 *                              too (SEMI and ANTI: R(A) numbered, LEFT
 *                              joined, the partners counted per number)
 *    LATERAL keeps the rows whose marker is TRUE (LEFT JOIN LATERAL ... ON
 *    cond: those where cond holds too, or one row of NULLs; a window over
 *    the row id counts them).
 *    Finally the rows of each D row are collapsed by an aggregation on
 *    D's columns: a scalar subquery counts its rows ($scalar_subquery
 *    fails beyond one, "Scalar sub-query has returned multiple rows") and
 *    takes the value; EXISTS counts rows; x op ANY / ALL counts the rows
 *    where the comparison is TRUE and FALSE, which gives three-valued
 *    logic exactly (NOT IN included). The collapse is left out where each
 *    D row has one row already (a scalar aggregation).
 *
 * An uncorrelated quantified comparison other than = ANY and <> ALL
 * joins its input with one row of count(*), count(y), min(y), max(y).
 *
 * Outer references: SQL_BX_OUTER of level 1 names L's columns. Before a
 * subquery is rewritten its references are lowered by one level, so
 * level 0 means "this APPLY's L" and deeper nesting (a subquery inside a
 * subquery naming the outermost query) works bottom-up: the inner APPLY
 * is rewritten first, its level-2 references become level 1 of the
 * middle query, which the outer APPLY then rewrites.
 *
 * Shapes outside these rules (a correlated window, union or VALUES, a
 * RIGHT or FULL join inside the subquery) fail with Trino's message
 * "Given correlated subquery is not supported".
 */
#include <stdio.h>
#include <string.h>

#include "sql/sql_bind.h"

typedef struct dc {
  fl_arena_t *a;
  const sql_resolver_t *r;
  fl_err_t *err;
} dc_t;

static int unsupported(dc_t *c) {
  return fl_err_set(c->err, FL_EUNSUPPORTED, "Given correlated subquery is not supported");
}

/* ---- expressions ---- */

static sql_bexpr_t *bx(dc_t *c, sql_bx_kind_t k, uint32_t nargs, sql_dtype_t t) {
  sql_bexpr_t *e = fl_arena_zalloc(c->a, sizeof *e);
  e->kind = k;
  e->type = t;
  e->nargs = nargs;
  if (nargs) e->args = fl_arena_zalloc(c->a, nargs * sizeof *e->args);
  return e;
}

static sql_bexpr_t *colref(dc_t *c, uint32_t i, sql_dtype_t t) {
  sql_bexpr_t *e = bx(c, SQL_BX_COL, 0, t);
  e->col = i;
  return e;
}

static sql_bexpr_t *col_of(dc_t *c, const sql_plan_t *p, uint32_t i) {
  return colref(c, i, p->cols[i].type);
}

static sql_bexpr_t *bool_const(dc_t *c, bool v) {
  sql_bexpr_t *e = bx(c, SQL_BX_CONST, 0, sql_dtype(SQL_DT_BOOLEAN));
  e->c.b = v;
  return e;
}

static sql_bexpr_t *bigint_const(dc_t *c, int64_t v) {
  sql_bexpr_t *e = bx(c, SQL_BX_CONST, 0, sql_dtype(SQL_DT_BIGINT));
  e->c.i = v;
  return e;
}

static sql_bexpr_t *null_of(dc_t *c, sql_dtype_t t) {
  sql_bexpr_t *n = bx(c, SQL_BX_CONST, 0, sql_dtype(SQL_DT_UNKNOWN));
  n->c.null = true;
  if (t.kind == SQL_DT_UNKNOWN) return n;
  sql_bexpr_t *e = bx(c, SQL_BX_CAST, 1, t);
  e->args[0] = n;
  return e;
}

static sql_bexpr_t *and2(dc_t *c, sql_bexpr_t *x, sql_bexpr_t *y) {
  if (!x) return y;
  if (!y) return x;
  sql_bexpr_t *e = bx(c, SQL_BX_AND, 2, sql_dtype(SQL_DT_BOOLEAN));
  e->args[0] = x;
  e->args[1] = y;
  return e;
}

/* name(args) through the resolver, casting the arguments as it asks. */
static int call(dc_t *c, const char *name, sql_bexpr_t **args, uint32_t n, sql_bexpr_t **out) {
  sql_dtype_t types[SQL_MAX_ARGS];
  for (uint32_t i = 0; i < n; i++) types[i] = args[i]->type;
  sql_fn_sig_t sig;
  int rc = c->r->scalar(c->r->ctx, name, types, n, &sig, c->err);
  if (rc) return rc;
  sql_bexpr_t *e = bx(c, SQL_BX_CALL, n, sig.ret);
  e->fn = name;
  e->impl = sig.impl;
  for (uint32_t i = 0; i < n; i++) {
    e->args[i] = args[i];
    if (!sql_dtype_equal(&args[i]->type, &sig.args[i]) && args[i]->type.kind != SQL_DT_UNKNOWN) {
      sql_bexpr_t *k = bx(c, SQL_BX_CAST, 1, sig.args[i]);
      k->args[0] = args[i];
      e->args[i] = k;
    }
  }
  *out = e;
  return FL_OK;
}

static int call2(dc_t *c, const char *name, sql_bexpr_t *x, sql_bexpr_t *y, sql_bexpr_t **out) {
  sql_bexpr_t *args[2] = {x, y};
  return call(c, name, args, y ? 2 : 1, out);
}

/* CASE WHEN w0 THEN t0 ... ELSE els END (all of type t). */
static sql_bexpr_t *case_of(dc_t *c, sql_bexpr_t **wt, uint32_t nwhen, sql_bexpr_t *els,
                            sql_dtype_t t) {
  sql_bexpr_t *e = bx(c, SQL_BX_CASE, 2 * nwhen + 1, t);
  for (uint32_t i = 0; i < 2 * nwhen; i++) e->args[i] = wt[i];
  e->args[2 * nwhen] = els;
  return e;
}

/* A copy of e for a new input: column j becomes j + lo_shift below split
 * and j - split + hi_shift from it; a level-0 outer reference (this
 * APPLY's outer input) becomes column outer_base + col. With lower set,
 * outer references go one level in instead (level 1 becomes 0). */
typedef struct rw {
  uint32_t split, lo_shift, hi_shift, outer_base;
  bool lower;
} rw_t;

static sql_bexpr_t *rewrite(dc_t *c, const sql_bexpr_t *e, const rw_t *m) {
  if (!e) return NULL;
  sql_bexpr_t *x = fl_arena_alloc(c->a, sizeof *x);
  *x = *e;
  if (e->kind == SQL_BX_COL && !m->lower)
    x->col = e->col < m->split ? e->col + m->lo_shift : e->col - m->split + m->hi_shift;
  if (e->kind == SQL_BX_OUTER) {
    if (m->lower) {
      x->level = e->level - 1;
    } else if (e->level == 0) {
      x->kind = SQL_BX_COL;
      x->col = m->outer_base + e->col;
    }
  }
  if (e->nargs) {
    x->args = fl_arena_alloc(c->a, e->nargs * sizeof *x->args);
    for (uint32_t i = 0; i < e->nargs; i++) x->args[i] = rewrite(c, e->args[i], m);
  }
  return x;
}

static sql_bexpr_t *shifted(dc_t *c, const sql_bexpr_t *e, uint32_t shift) {
  rw_t m = {.split = UINT32_MAX, .lo_shift = shift};
  return rewrite(c, e, &m);
}

static bool expr_corr(const sql_bexpr_t *e) {
  if (!e) return false;
  if (e->kind == SQL_BX_OUTER && e->level == 0) return true;
  for (uint32_t i = 0; i < e->nargs; i++)
    if (expr_corr(e->args[i])) return true;
  return false;
}

static bool expr_outer(const sql_bexpr_t *e) {
  if (!e) return false;
  if (e->kind == SQL_BX_OUTER) return true;
  for (uint32_t i = 0; i < e->nargs; i++)
    if (expr_outer(e->args[i])) return true;
  return false;
}

static bool expr_cols(const sql_bexpr_t *e) {
  if (!e) return false;
  if (e->kind == SQL_BX_COL) return true;
  for (uint32_t i = 0; i < e->nargs; i++)
    if (expr_cols(e->args[i])) return true;
  return false;
}

/* Whether a node itself (not its inputs) reads this APPLY's outer input. */
static bool node_corr(const sql_plan_t *p) {
  switch (p->kind) {
    case SQL_P_FILTER: return expr_corr(p->u.filter.pred);
    case SQL_P_PROJECT:
      for (uint32_t i = 0; i < p->ncols; i++)
        if (expr_corr(p->u.project.exprs[i])) return true;
      return false;
    case SQL_P_JOIN: return expr_corr(p->u.join.cond) || expr_corr(p->u.join.residual);
    case SQL_P_VALUES:
      for (uint32_t i = 0; i < p->u.values.nrows * p->ncols; i++)
        if (expr_corr(p->u.values.cells[i])) return true;
      return false;
    case SQL_P_APPLY: return expr_corr(p->u.apply.arg);
    case SQL_P_UNNEST:
      for (uint32_t i = 0; i < p->u.unnest.nexprs; i++)
        if (expr_corr(p->u.unnest.exprs[i])) return true;
      return false;
    default: return false;
  }
}

static bool plan_corr(const sql_plan_t *p) {
  if (node_corr(p)) return true;
  for (uint32_t i = 0; i < p->ninputs; i++)
    if (plan_corr(p->inputs[i])) return true;
  return false;
}

/* Lowers the outer references of every expression of the subtree. */
static void lower_plan(dc_t *c, sql_plan_t *p) {
  rw_t m = {.lower = true};
  switch (p->kind) {
    case SQL_P_FILTER: p->u.filter.pred = rewrite(c, p->u.filter.pred, &m); break;
    case SQL_P_PROJECT: {
      sql_bexpr_t **e = fl_arena_alloc(c->a, (p->ncols ? p->ncols : 1) * sizeof *e);
      for (uint32_t i = 0; i < p->ncols; i++) e[i] = rewrite(c, p->u.project.exprs[i], &m);
      p->u.project.exprs = e;
      break;
    }
    case SQL_P_JOIN:
      p->u.join.cond = rewrite(c, p->u.join.cond, &m);
      p->u.join.residual = rewrite(c, p->u.join.residual, &m);
      break;
    case SQL_P_VALUES: {
      uint32_t n = p->u.values.nrows * p->ncols;
      sql_bexpr_t **e = fl_arena_alloc(c->a, (n ? n : 1) * sizeof *e);
      for (uint32_t i = 0; i < n; i++) e[i] = rewrite(c, p->u.values.cells[i], &m);
      p->u.values.cells = e;
      break;
    }
    case SQL_P_APPLY: p->u.apply.arg = rewrite(c, p->u.apply.arg, &m); break;
    case SQL_P_UNNEST: {
      uint32_t n = p->u.unnest.nexprs;
      sql_bexpr_t **e = fl_arena_alloc(c->a, n * sizeof *e);
      for (uint32_t i = 0; i < n; i++) e[i] = rewrite(c, p->u.unnest.exprs[i], &m);
      p->u.unnest.exprs = e;
      break;
    }
    default: break;
  }
  for (uint32_t i = 0; i < p->ninputs; i++) lower_plan(c, p->inputs[i]);
}

/* ---- plan nodes ---- */

/* A projection builder: columns copied from the input, then new ones. */
typedef sql_named_exprs_t pb_t;

static void pb_copy(dc_t *c, pb_t *b, const sql_plan_t *in, uint32_t from, uint32_t n) {
  for (uint32_t i = from; i < from + n; i++)
    sql_named_exprs_add(c->a, b, col_of(c, in, i), in->cols[i].name);
}

static sql_plan_t *pb_plan(dc_t *c, pb_t *b, sql_plan_t *in) {
  return sql_plan_project(c->a, in, b->e, b->names, b->n);
}

static sql_plan_t *join(dc_t *c, sql_plan_t *l, sql_plan_t *r, sql_join_type_t type,
                        sql_bexpr_t *cond) {
  sql_plan_t *j = sql_plan_new(c->a, SQL_P_JOIN, l);
  j->inputs = fl_arena_zalloc(c->a, 2 * sizeof *j->inputs);
  j->inputs[0] = l;
  j->inputs[1] = r;
  j->ninputs = 2;
  j->u.join.type = type;
  j->u.join.cond = cond;
  j->u.join.nleft = l->ncols;
  j->u.join.nright = type >= SQL_JT_SEMI ? 0 : r->ncols;
  j->ncols = j->u.join.nleft + j->u.join.nright;
  j->cols = fl_arena_zalloc(c->a, (j->ncols ? j->ncols : 1) * sizeof *j->cols);
  if (l->ncols) memcpy(j->cols, l->cols, l->ncols * sizeof *j->cols);
  if (j->u.join.nright) memcpy(j->cols + l->ncols, r->cols, r->ncols * sizeof *j->cols);
  return j;
}

/* X with a constant TRUE marker column appended. */
static sql_plan_t *with_marker(dc_t *c, sql_plan_t *x) {
  pb_t b = {0};
  pb_copy(c, &b, x, 0, x->ncols);
  sql_named_exprs_add(c->a, &b, bool_const(c, true), "$marker");
  return pb_plan(c, &b, x);
}

static sql_agg_call_t agg_call(const char *name, int32_t arg, int32_t filter, sql_dtype_t t) {
  return (sql_agg_call_t){.name = name, .arg_col = arg, .filter_col = filter, .type = t};
}

/* Aggregate over in grouped on its first nkeys columns. */
static sql_plan_t *aggregate(dc_t *c, sql_plan_t *in, const uint32_t *keys, uint32_t nkeys,
                             sql_agg_call_t *aggs, uint32_t naggs) {
  sql_plan_t *a = sql_plan_new(c->a, SQL_P_AGGREGATE, in);
  a->u.agg.keys = fl_arena_zalloc(c->a, (nkeys ? nkeys : 1) * sizeof(uint32_t));
  if (nkeys) memcpy(a->u.agg.keys, keys, nkeys * sizeof(uint32_t));
  a->u.agg.nkeys = nkeys;
  a->u.agg.aggs = aggs;
  a->u.agg.naggs = naggs;
  a->ncols = nkeys + naggs;
  a->cols = fl_arena_zalloc(c->a, (a->ncols ? a->ncols : 1) * sizeof *a->cols);
  for (uint32_t i = 0; i < nkeys; i++) a->cols[i] = in->cols[keys[i]];
  for (uint32_t j = 0; j < naggs; j++)
    a->cols[nkeys + j] = (sql_col_t){.name = aggs[j].name, .type = aggs[j].type};
  return a;
}

static uint32_t *iota(dc_t *c, uint32_t n) {
  uint32_t *k = fl_arena_zalloc(c->a, (n ? n : 1) * sizeof *k);
  for (uint32_t i = 0; i < n; i++) k[i] = i;
  return k;
}

/* D: L with its row number appended. */
static sql_plan_t *with_rowid(dc_t *c, sql_plan_t *l) {
  sql_plan_t *w = sql_plan_new(c->a, SQL_P_WINDOW, l);
  w->u.window.fns = fl_arena_zalloc(c->a, sizeof *w->u.window.fns);
  w->u.window.fns[0] = (sql_win_call_t){
      .name = "row_number", .arg_col = -1, .default_col = -1, .type = sql_dtype(SQL_DT_BIGINT)};
  w->u.window.nfns = 1;
  w->ncols = l->ncols + 1;
  w->cols = fl_arena_zalloc(c->a, w->ncols * sizeof *w->cols);
  if (l->ncols) memcpy(w->cols, l->cols, l->ncols * sizeof *w->cols);
  w->cols[l->ncols] = (sql_col_t){.name = "$rowid", .type = sql_dtype(SQL_DT_BIGINT)};
  return w;
}

/* ---- the dependent join ---- */

/*
 * R(Q) over D (d columns): [D][Q's columns][marker]. *one: each D row has
 * exactly one row (its marker still says whether Q had it).
 */
static int dl(dc_t *c, sql_plan_t *D, sql_plan_t *q, sql_plan_t **out, bool *one) {
  uint32_t d = D->ncols;
  int rc;
  *one = false;
  if (!plan_corr(q)) {
    *out = join(c, D, with_marker(c, q), SQL_JT_LEFT, bool_const(c, true));
    return FL_OK;
  }
  sql_plan_t *x = q->in;
  switch (q->kind) {
    case SQL_P_FILTER: {
      if (!plan_corr(x)) {
        *out = join(c, D, with_marker(c, x), SQL_JT_LEFT, shifted(c, q->u.filter.pred, d));
        return FL_OK;
      }
      sql_plan_t *r0;
      if ((rc = dl(c, D, x, &r0, one))) return rc;
      uint32_t mk = d + x->ncols;
      pb_t b = {0};
      pb_copy(c, &b, r0, 0, mk);
      sql_named_exprs_add(c->a, &b, and2(c, col_of(c, r0, mk), shifted(c, q->u.filter.pred, d)),
                          "$marker");
      *out = pb_plan(c, &b, r0);
      return FL_OK;
    }
    case SQL_P_PROJECT: {
      sql_plan_t *r0;
      if ((rc = dl(c, D, x, &r0, one))) return rc;
      pb_t b = {0};
      pb_copy(c, &b, r0, 0, d);
      for (uint32_t i = 0; i < q->ncols; i++)
        sql_named_exprs_add(c->a, &b, shifted(c, q->u.project.exprs[i], d), q->cols[i].name);
      sql_named_exprs_add(c->a, &b, col_of(c, r0, d + x->ncols), "$marker");
      *out = pb_plan(c, &b, r0);
      return FL_OK;
    }
    case SQL_P_SORT: return dl(c, D, x, out, one);
    case SQL_P_AGGREGATE: {
      if (q->u.agg.nsets) return unsupported(c);
      sql_plan_t *r0;
      bool one0;
      if ((rc = dl(c, D, x, &r0, &one0))) return rc;
      uint32_t nx = x->ncols, mk = d + nx, nk = q->u.agg.nkeys, na = q->u.agg.naggs;
      /* The aggregates see only rows whose marker is TRUE. */
      pb_t b = {0};
      pb_copy(c, &b, r0, 0, mk + 1);
      sql_agg_call_t *aggs = fl_arena_zalloc(c->a, (na + 1) * sizeof *aggs);
      for (uint32_t j = 0; j < na; j++) {
        const sql_agg_call_t *g = &q->u.agg.aggs[j];
        sql_bexpr_t *f = col_of(c, r0, mk);
        if (g->filter_col >= 0) f = and2(c, f, col_of(c, r0, d + (uint32_t)g->filter_col));
        aggs[j] = *g;
        aggs[j].arg_col = g->arg_col >= 0 ? (int32_t)d + g->arg_col : -1;
        aggs[j].filter_col = (int32_t)b.n;
        sql_named_exprs_add(c->a, &b, f, "$filter");
      }
      sql_plan_t *pm = pb_plan(c, &b, r0);
      uint32_t *keys = fl_arena_zalloc(c->a, (d + nk) * sizeof *keys);
      for (uint32_t i = 0; i < d; i++) keys[i] = i;
      for (uint32_t i = 0; i < nk; i++) keys[d + i] = d + q->u.agg.keys[i];
      if (nk) aggs[na] = agg_call("count", -1, (int32_t)mk, sql_dtype(SQL_DT_BIGINT));
      sql_plan_t *a = aggregate(c, pm, keys, d + nk, aggs, na + (nk ? 1 : 0));
      pb_t o = {0};
      pb_copy(c, &o, a, 0, d + nk + na);
      if (!nk) {
        sql_named_exprs_add(c->a, &o, bool_const(c, true), "$marker");
        *one = true;
      } else {
        sql_bexpr_t *gt;
        if ((rc = call2(c, ">", col_of(c, a, d + nk + na), bigint_const(c, 0), &gt))) return rc;
        sql_named_exprs_add(c->a, &o, gt, "$marker");
      }
      *out = pb_plan(c, &o, a);
      return FL_OK;
    }
    case SQL_P_LIMIT: {
      const sql_sort_key_t *sk = NULL;
      uint32_t nsk = 0;
      if (x->kind == SQL_P_SORT) {
        sk = x->u.sort.keys;
        nsk = x->u.sort.nkeys;
        x = x->in;
      }
      sql_plan_t *r0;
      bool one0;
      if ((rc = dl(c, D, x, &r0, &one0))) return rc;
      uint32_t mk = d + x->ncols;
      sql_plan_t *w = sql_plan_new(c->a, SQL_P_WINDOW, r0);
      w->u.window.partition = fl_arena_zalloc(c->a, sizeof(uint32_t));
      w->u.window.partition[0] = d - 1; /* the row id */
      w->u.window.npartition = 1;
      w->u.window.order = fl_arena_zalloc(c->a, (nsk + 1) * sizeof *w->u.window.order);
      w->u.window.order[0] = (sql_sort_key_t){.col = mk, .desc = true};
      for (uint32_t i = 0; i < nsk; i++) {
        w->u.window.order[1 + i] = sk[i];
        w->u.window.order[1 + i].col = d + sk[i].col;
      }
      w->u.window.norder = nsk + 1;
      w->u.window.fns = fl_arena_zalloc(c->a, sizeof *w->u.window.fns);
      w->u.window.fns[0] = (sql_win_call_t){
          .name = "row_number", .arg_col = -1, .default_col = -1, .type = sql_dtype(SQL_DT_BIGINT)};
      w->u.window.nfns = 1;
      w->ncols = r0->ncols + 1;
      w->cols = fl_arena_zalloc(c->a, w->ncols * sizeof *w->cols);
      memcpy(w->cols, r0->cols, r0->ncols * sizeof *w->cols);
      w->cols[r0->ncols] = (sql_col_t){.name = "$rn", .type = sql_dtype(SQL_DT_BIGINT)};
      sql_bexpr_t *rn = col_of(c, w, r0->ncols), *keep = col_of(c, w, mk), *t;
      if (q->u.limit.offset > 0) {
        if ((rc = call2(c, ">", rn, bigint_const(c, q->u.limit.offset), &t))) return rc;
        keep = and2(c, keep, t);
      }
      if (q->u.limit.limit >= 0) {
        if ((rc = call2(c, "<=", rn, bigint_const(c, q->u.limit.offset + q->u.limit.limit), &t)))
          return rc;
        keep = and2(c, keep, t);
      }
      pb_t b = {0};
      pb_copy(c, &b, w, 0, mk);
      sql_named_exprs_add(c->a, &b, keep, "$marker");
      *out = pb_plan(c, &b, w);
      return FL_OK;
    }
    case SQL_P_UNNEST: {
      /* An outer UNNEST over R(X): a D row whose arrays are empty keeps
       * one row, its marker then false (the ordinality is NULL). */
      if (q->u.unnest.outer) return unsupported(c);
      sql_plan_t *r0;
      bool one0;
      if ((rc = dl(c, D, x, &r0, &one0))) return rc;
      uint32_t nx = x->ncols, mk = d + nx, ne = q->u.unnest.nexprs;
      sql_plan_t *u = sql_plan_new(c->a, SQL_P_UNNEST, r0);
      u->u.unnest.nexprs = ne;
      u->u.unnest.exprs = fl_arena_alloc(c->a, ne * sizeof *u->u.unnest.exprs);
      for (uint32_t i = 0; i < ne; i++) u->u.unnest.exprs[i] = shifted(c, q->u.unnest.exprs[i], d);
      u->u.unnest.ordinality = true;
      u->u.unnest.outer = true;
      u->ncols = r0->ncols + ne + 1;
      u->cols = fl_arena_zalloc(c->a, u->ncols * sizeof *u->cols);
      memcpy(u->cols, r0->cols, r0->ncols * sizeof *u->cols);
      for (uint32_t i = 0; i <= ne; i++)
        u->cols[r0->ncols + i] = q->cols[nx + i < q->ncols ? nx + i : nx];
      u->cols[r0->ncols + ne] =
          (sql_col_t){.name = "$ordinality", .type = sql_dtype(SQL_DT_BIGINT)};
      sql_bexpr_t *has;
      if ((rc = call2(c, "is_not_null", col_of(c, u, r0->ncols + ne), NULL, &has))) return rc;
      pb_t b = {0};
      pb_copy(c, &b, u, 0, mk);
      pb_copy(c, &b, u, r0->ncols, ne + (q->u.unnest.ordinality ? 1 : 0));
      sql_named_exprs_add(c->a, &b, and2(c, col_of(c, u, mk), has), "$marker");
      *out = pb_plan(c, &b, u);
      return FL_OK;
    }
    case SQL_P_JOIN: {
      sql_join_type_t jt = q->u.join.type;
      sql_plan_t *A = q->inputs[0], *B = q->inputs[1];
      if (jt == SQL_JT_NULL_AWARE_ANTI || jt == SQL_JT_RIGHT || jt == SQL_JT_FULL)
        return unsupported(c);
      sql_plan_t *r0;
      bool one0;
      if ((rc = dl(c, D, A, &r0, &one0))) return rc;
      uint32_t na = A->ncols, nb = B->ncols, ma = d + na;
      /* The right side: B with a marker, or R(B) matched on the row id. */
      sql_plan_t *rb;
      uint32_t boff = 0, mb = nb;
      bool rcorr = plan_corr(B);
      if (rcorr) {
        if ((rc = dl(c, D, B, &rb, &one0))) return rc;
        boff = d;
        mb = d + nb;
      } else {
        rb = with_marker(c, B);
      }
      bool semi = jt == SQL_JT_SEMI || jt == SQL_JT_ANTI;
      /* SEMI and ANTI: whether each row of R(A) has a partner in B, so
       * R(A) is numbered, LEFT joined, and the partners counted per number. */
      sql_plan_t *left = semi ? with_rowid(c, r0) : r0;
      uint32_t lw = left->ncols;
      rw_t m = {.split = na, .lo_shift = d, .hi_shift = lw + boff};
      sql_bexpr_t *cond = rewrite(c, q->u.join.cond, &m);
      if (rcorr) {
        sql_bexpr_t *eq;
        if ((rc = call2(c, "=", col_of(c, left, d - 1), colref(c, lw + d - 1, rb->cols[d - 1].type),
                        &eq)))
          return rc;
        cond = and2(c, and2(c, eq, colref(c, lw + mb, rb->cols[mb].type)), cond);
      }
      if (!semi) cond = and2(c, col_of(c, r0, ma), cond);
      sql_plan_t *j = join(c, left, rb, SQL_JT_LEFT, cond ? cond : bool_const(c, true));
      if (semi) {
        sql_agg_call_t *aggs = fl_arena_zalloc(c->a, sizeof *aggs);
        aggs[0] = agg_call("count", -1, (int32_t)(lw + mb), sql_dtype(SQL_DT_BIGINT));
        sql_plan_t *a = aggregate(c, j, iota(c, lw), lw, aggs, 1);
        sql_bexpr_t *has;
        if ((rc = call2(c, jt == SQL_JT_SEMI ? ">" : "=", col_of(c, a, lw), bigint_const(c, 0),
                        &has)))
          return rc;
        pb_t b = {0};
        pb_copy(c, &b, a, 0, ma);
        sql_named_exprs_add(c->a, &b, and2(c, col_of(c, a, ma), has), "$marker");
        *out = pb_plan(c, &b, a);
        return FL_OK;
      }
      pb_t b = {0};
      pb_copy(c, &b, j, 0, d);
      pb_copy(c, &b, j, d, q->u.join.nleft);
      pb_copy(c, &b, j, lw + boff, q->u.join.nright);
      sql_named_exprs_add(c->a, &b, col_of(c, j, jt == SQL_JT_INNER ? lw + mb : ma), "$marker");
      *out = pb_plan(c, &b, j);
      return FL_OK;
    }
    default: return unsupported(c);
  }
}

/* Project(L's n columns, res) over p. */
static sql_plan_t *finish(dc_t *c, const sql_plan_t *ap, sql_plan_t *p, sql_bexpr_t *res) {
  uint32_t n = ap->ncols - 1;
  sql_bexpr_t **e = fl_arena_zalloc(c->a, (n + 1) * sizeof *e);
  const char **names = fl_arena_zalloc(c->a, (n + 1) * sizeof *names);
  for (uint32_t i = 0; i < n; i++) {
    e[i] = col_of(c, p, i);
    names[i] = ap->cols[i].name;
  }
  e[n] = res;
  names[n] = ap->cols[n].name;
  sql_plan_t *pr = sql_plan_project(c->a, p, e, names, n + 1);
  pr->cols[n].type = ap->cols[n].type;
  return pr;
}

/* ---- strategy 1: equality-correlated scalar aggregation ---- */

static void conjuncts(sql_bexpr_t *e, sql_bexpr_t **v, uint32_t *n, uint32_t cap) {
  if (e->kind == SQL_BX_AND) {
    for (uint32_t i = 0; i < e->nargs; i++) conjuncts(e->args[i], v, n, cap);
    return;
  }
  if (*n < cap) v[(*n)++] = e;
}

static uint32_t count_conj(const sql_bexpr_t *e) {
  if (e->kind != SQL_BX_AND) return 1;
  uint32_t n = 0;
  for (uint32_t i = 0; i < e->nargs; i++) n += count_conj(e->args[i]);
  return n;
}

/* Whether side o reads only the outer input and side i only the subquery. */
static bool eq_sides(const sql_bexpr_t *o, const sql_bexpr_t *i) {
  return expr_corr(o) && !expr_cols(o) && !expr_outer(i);
}

static int scalar_agg_join(dc_t *c, sql_plan_t *ap, sql_plan_t *q, sql_plan_t **out, bool *done) {
  *done = false;
  sql_plan_t *top = NULL, *having = NULL, *a = q;
  if (a->kind == SQL_P_PROJECT) {
    top = a;
    a = a->in;
  }
  if (a->kind == SQL_P_FILTER) {
    having = a;
    a = a->in;
  }
  if (a->kind != SQL_P_AGGREGATE || a->u.agg.nkeys || a->u.agg.nsets) return FL_OK;
  sql_plan_t *args = a->in, *f = args->kind == SQL_P_PROJECT ? args->in : NULL;
  if (!f || f->kind != SQL_P_FILTER || plan_corr(f->in) || node_corr(args) ||
      (top && node_corr(top)) || (having && node_corr(having)))
    return FL_OK;
  uint32_t cap = count_conj(f->u.filter.pred), n = 0, neq = 0;
  sql_bexpr_t **v = fl_arena_zalloc(c->a, cap * sizeof *v);
  conjuncts(f->u.filter.pred, v, &n, cap);
  sql_bexpr_t *local = NULL;
  sql_bexpr_t **outer_side = fl_arena_zalloc(c->a, n * sizeof *outer_side);
  sql_bexpr_t **inner_side = fl_arena_zalloc(c->a, n * sizeof *inner_side);
  sql_bexpr_t **eqs = fl_arena_zalloc(c->a, n * sizeof *eqs);
  bool *outer_first = fl_arena_zalloc(c->a, n * sizeof *outer_first);
  for (uint32_t i = 0; i < n; i++) {
    sql_bexpr_t *e = v[i];
    if (!expr_corr(e)) {
      local = and2(c, local, e);
      continue;
    }
    if (e->kind != SQL_BX_CALL || strcmp(e->fn, "=") != 0 || e->nargs != 2) return FL_OK;
    if (eq_sides(e->args[0], e->args[1])) {
      outer_side[neq] = e->args[0];
      inner_side[neq] = e->args[1];
      outer_first[neq] = true;
    } else if (eq_sides(e->args[1], e->args[0])) {
      outer_side[neq] = e->args[1];
      inner_side[neq] = e->args[0];
    } else {
      return FL_OK;
    }
    eqs[neq++] = e;
  }
  if (!neq) return FL_OK;
  sql_plan_t *x = f->in;
  if (local) {
    sql_plan_t *lf = sql_plan_new(c->a, SQL_P_FILTER, x);
    lf->u.filter.pred = local;
    lf->cols = x->cols;
    lf->ncols = x->ncols;
    x = lf;
  }
  /* The aggregate's arguments, then the correlation keys. */
  pb_t b = {0};
  for (uint32_t i = 0; i < args->ncols; i++)
    sql_named_exprs_add(c->a, &b, args->u.project.exprs[i], args->cols[i].name);
  uint32_t *keys = fl_arena_zalloc(c->a, neq * sizeof *keys);
  for (uint32_t i = 0; i < neq; i++) {
    keys[i] = b.n;
    sql_named_exprs_add(c->a, &b, inner_side[i], fl_arena_sprintf(c->a, "$corr%u", i));
  }
  sql_plan_t *pa = pb_plan(c, &b, x);
  uint32_t na = a->u.agg.naggs;
  sql_plan_t *agg = aggregate(c, pa, keys, neq, a->u.agg.aggs, na);
  sql_plan_t *l = ap->inputs[0];
  uint32_t nl = l->ncols;
  sql_bexpr_t *cond = NULL;
  for (uint32_t i = 0; i < neq; i++) {
    rw_t m = {.split = UINT32_MAX};
    sql_bexpr_t *eq = fl_arena_alloc(c->a, sizeof *eq);
    *eq = *eqs[i];
    eq->args = fl_arena_alloc(c->a, 2 * sizeof *eq->args);
    sql_bexpr_t *o = rewrite(c, outer_side[i], &m), *k = col_of(c, agg, i);
    k->col = nl + i;
    eq->args[0] = outer_first[i] ? o : k;
    eq->args[1] = outer_first[i] ? k : o;
    cond = and2(c, cond, eq);
  }
  sql_plan_t *j = join(c, l, agg, SQL_JT_LEFT, cond);
  /* L's columns, then each aggregate as over no rows where none matched. */
  pb_t o = {0};
  pb_copy(c, &o, j, 0, nl);
  for (uint32_t i = 0; i < na; i++) {
    sql_bexpr_t *v2 = col_of(c, j, nl + neq + i);
    const char *fn = a->u.agg.aggs[i].name;
    if (!strcmp(fn, "count") || !strcmp(fn, "approx_distinct")) {
      sql_bexpr_t *co = bx(c, SQL_BX_COALESCE, 2, v2->type);
      co->args[0] = v2;
      co->args[1] = bigint_const(c, 0);
      v2 = co;
    }
    sql_named_exprs_add(c->a, &o, v2, a->cols[i].name);
  }
  sql_plan_t *pc = pb_plan(c, &o, j);
  sql_bexpr_t *res = top ? shifted(c, top->u.project.exprs[0], nl) : col_of(c, pc, nl);
  if (having) {
    sql_bexpr_t *wt[2] = {shifted(c, having->u.filter.pred, nl), res};
    res = case_of(c, wt, 1, null_of(c, res->type), res->type);
  }
  *out = finish(c, ap, pc, res);
  *done = true;
  return FL_OK;
}

/* ---- uncorrelated quantified comparisons ---- */

static int quantified_uncorr(dc_t *c, sql_plan_t *ap, sql_plan_t *q, sql_plan_t **out) {
  const char *cmp = ap->u.apply.cmp;
  bool all = ap->u.apply.kind == SQL_AK_ALL;
  sql_dtype_t bt = sql_dtype(SQL_DT_BIGINT), yt = q->cols[0].type;
  sql_agg_call_t *aggs = fl_arena_zalloc(c->a, 4 * sizeof *aggs);
  aggs[0] = agg_call("count", -1, -1, bt);
  aggs[1] = agg_call("count", 0, -1, bt);
  aggs[2] = agg_call("min", 0, -1, yt);
  aggs[3] = agg_call("max", 0, -1, yt);
  sql_plan_t *qa = aggregate(c, q, NULL, 0, aggs, 4);
  sql_plan_t *l = ap->inputs[0];
  uint32_t n = l->ncols;
  sql_plan_t *j = join(c, l, qa, SQL_JT_INNER, NULL);
  sql_bexpr_t *x = ap->u.apply.arg, *na = col_of(c, j, n), *nn = col_of(c, j, n + 1),
              *mn = col_of(c, j, n + 2), *mx = col_of(c, j, n + 3);
  bool lt = cmp[0] == '<' && cmp[1] != '>';
  sql_bexpr_t *e, *t;
  int rc;
  if (!strcmp(cmp, "=")) { /* = ALL */
    sql_bexpr_t *t2;
    if ((rc = call2(c, "=", x, mn, &t)) || (rc = call2(c, "=", mn, mx, &t2))) return rc;
    e = and2(c, t, t2);
  } else if (!strcmp(cmp, "<>")) { /* <> ANY */
    sql_bexpr_t *t2;
    if ((rc = call2(c, "<>", x, mn, &t)) || (rc = call2(c, "<>", x, mx, &t2))) return rc;
    e = bx(c, SQL_BX_OR, 2, sql_dtype(SQL_DT_BOOLEAN));
    e->args[0] = t;
    e->args[1] = t2;
  } else if ((rc = call2(c, cmp, x, (lt != all) ? mx : mn, &e))) {
    return rc;
  }
  sql_bexpr_t *empty, *notnull_all, *not_e, *xnull;
  if ((rc = call2(c, "=", na, bigint_const(c, 0), &empty)) ||
      (rc = call2(c, "=", nn, na, &notnull_all)) || (rc = call2(c, "not", e, NULL, &not_e)) ||
      (rc = call2(c, "is_null", x, NULL, &xnull)))
    return rc;
  sql_bexpr_t *res;
  sql_dtype_t b = sql_dtype(SQL_DT_BOOLEAN);
  if (all) {
    sql_bexpr_t *wt[] = {empty, bool_const(c, true),  xnull,       null_of(c, b),
                         not_e, bool_const(c, false), notnull_all, bool_const(c, true)};
    res = case_of(c, wt, 4, null_of(c, b), b);
  } else {
    sql_bexpr_t *wt[] = {empty,
                         bool_const(c, false),
                         e,
                         bool_const(c, true),
                         and2(c, not_e, notnull_all),
                         bool_const(c, false)};
    res = case_of(c, wt, 3, null_of(c, b), b);
  }
  *out = finish(c, ap, j, res);
  return FL_OK;
}

/*
 * LEFT JOIN LATERAL (q) ON cond over R = R(q): a row of q matches when its
 * marker and cond are TRUE; per outer row (partition on the row id) a
 * window counts the matches and numbers the rows, matches first, and the
 * matches remain, or for an outer row without any its first row, with
 * q's columns NULL.
 */
static int left_lateral(dc_t *c, const sql_plan_t *ap, const sql_plan_t *q, sql_plan_t *r,
                        uint32_t d, sql_plan_t **out) {
  uint32_t n = d - 1, m = q->ncols, mk = d + m;
  int rc;
  rw_t map = {.split = n, .lo_shift = 0, .hi_shift = d};
  sql_bexpr_t *match = col_of(c, r, mk);
  if (ap->u.apply.arg) match = and2(c, match, rewrite(c, ap->u.apply.arg, &map));
  pb_t b = {0};
  pb_copy(c, &b, r, 0, mk);
  sql_bexpr_t *wt[2] = {match, bigint_const(c, 1)};
  sql_named_exprs_add(c->a, &b, case_of(c, wt, 1, bigint_const(c, 0), sql_dtype(SQL_DT_BIGINT)),
                      "$match");
  sql_plan_t *pm = pb_plan(c, &b, r);
  sql_dtype_t bt = sql_dtype(SQL_DT_BIGINT);
  sql_plan_t *w = sql_plan_new(c->a, SQL_P_WINDOW, pm);
  w->u.window.partition = fl_arena_zalloc(c->a, sizeof(uint32_t));
  w->u.window.partition[0] = d - 1;
  w->u.window.npartition = 1;
  w->u.window.order = fl_arena_zalloc(c->a, sizeof *w->u.window.order);
  w->u.window.order[0] = (sql_sort_key_t){.col = mk, .desc = true};
  w->u.window.norder = 1;
  /* The whole partition for the count: ROWS UNBOUNDED both ways. */
  w->u.window.frame = fl_arena_zalloc(c->a, sizeof *w->u.window.frame);
  *w->u.window.frame = (sql_win_frame_t){.unit = SQL_WU_ROWS,
                                         .start = {.kind = SQL_BOUND_UNBOUNDED_PRECEDING},
                                         .end = {.kind = SQL_BOUND_UNBOUNDED_FOLLOWING}};
  w->u.window.nfns = 2;
  w->u.window.fns = fl_arena_zalloc(c->a, 2 * sizeof *w->u.window.fns);
  w->u.window.fns[0] =
      (sql_win_call_t){.name = "sum",
                       .is_agg = true,
                       .agg = {.name = "sum", .arg_col = (int32_t)mk, .filter_col = -1, .type = bt},
                       .arg_col = -1,
                       .default_col = -1,
                       .type = bt};
  w->u.window.fns[1] =
      (sql_win_call_t){.name = "row_number", .arg_col = -1, .default_col = -1, .type = bt};
  w->ncols = pm->ncols + 2;
  w->cols = fl_arena_zalloc(c->a, w->ncols * sizeof *w->cols);
  memcpy(w->cols, pm->cols, pm->ncols * sizeof *w->cols);
  w->cols[pm->ncols] = (sql_col_t){.name = "$matches", .type = bt};
  w->cols[pm->ncols + 1] = (sql_col_t){.name = "$rn", .type = bt};
  sql_bexpr_t *is_match, *none, *first, *keep;
  if ((rc = call2(c, "=", col_of(c, w, mk), bigint_const(c, 1), &is_match)) ||
      (rc = call2(c, "=", col_of(c, w, pm->ncols), bigint_const(c, 0), &none)) ||
      (rc = call2(c, "=", col_of(c, w, pm->ncols + 1), bigint_const(c, 1), &first)))
    return rc;
  keep = bx(c, SQL_BX_OR, 2, sql_dtype(SQL_DT_BOOLEAN));
  keep->args[0] = is_match;
  keep->args[1] = and2(c, none, first);
  sql_plan_t *f = sql_plan_new(c->a, SQL_P_FILTER, w);
  f->u.filter.pred = keep;
  f->cols = w->cols;
  f->ncols = w->ncols;
  pb_t o = {0};
  pb_copy(c, &o, f, 0, n);
  for (uint32_t i = 0; i < m; i++) {
    sql_bexpr_t *v = col_of(c, f, d + i), *t[2] = {is_match, v};
    sql_named_exprs_add(c->a, &o, case_of(c, t, 1, null_of(c, v->type), v->type),
                        ap->cols[n + i].name);
  }
  *out = pb_plan(c, &o, f);
  return FL_OK;
}

/* ---- the APPLY node ---- */

static int rewrite_apply(dc_t *c, sql_plan_t *ap, sql_plan_t **out) {
  sql_plan_t *q = ap->inputs[1];
  lower_plan(c, q);
  int rc;
  bool corr = plan_corr(q);
  if (!corr && (ap->u.apply.kind == SQL_AK_ANY || ap->u.apply.kind == SQL_AK_ALL))
    return quantified_uncorr(c, ap, q, out);
  if (ap->u.apply.kind == SQL_AK_LATERAL && !ap->u.apply.left) {
    /* LATERAL (SELECT e FROM x WHERE p): an inner join on p, projected
     * (e may name the outer columns, which come first in the join). */
    sql_plan_t *top = q->kind == SQL_P_PROJECT ? q : NULL, *f = top ? q->in : q;
    if (f->kind == SQL_P_FILTER && !plan_corr(f->in)) {
      sql_plan_t *l = ap->inputs[0];
      uint32_t n = l->ncols;
      sql_plan_t *j = join(c, l, f->in, SQL_JT_INNER, shifted(c, f->u.filter.pred, n));
      if (!top) {
        *out = j;
        return FL_OK;
      }
      pb_t b = {0};
      pb_copy(c, &b, j, 0, n);
      for (uint32_t i = 0; i < top->ncols; i++)
        sql_named_exprs_add(c->a, &b, shifted(c, top->u.project.exprs[i], n), top->cols[i].name);
      *out = pb_plan(c, &b, j);
      return FL_OK;
    }
  }
  if (ap->u.apply.kind == SQL_AK_SCALAR) {
    bool done;
    if ((rc = scalar_agg_join(c, ap, q, out, &done)) || done) return rc;
  }
  sql_plan_t *D = with_rowid(c, ap->inputs[0]), *r;
  uint32_t d = D->ncols;
  bool one;
  if ((rc = dl(c, D, q, &r, &one))) return rc;
  sql_bexpr_t *v = col_of(c, r, d), *mk = col_of(c, r, d + q->ncols), *res;
  sql_dtype_t bt = sql_dtype(SQL_DT_BIGINT), boolt = sql_dtype(SQL_DT_BOOLEAN);
  uint32_t *keys = iota(c, d);
  switch (ap->u.apply.kind) {
    case SQL_AK_SCALAR: {
      if (one) {
        sql_bexpr_t *wt[2] = {mk, v};
        *out = finish(c, ap, r, case_of(c, wt, 1, null_of(c, v->type), v->type));
        return FL_OK;
      }
      sql_agg_call_t *aggs = fl_arena_zalloc(c->a, 2 * sizeof *aggs);
      aggs[0] = agg_call("count", -1, (int32_t)(d + q->ncols), bt);
      aggs[1] = agg_call("any_value", (int32_t)d, (int32_t)(d + q->ncols), v->type);
      sql_plan_t *a = aggregate(c, r, keys, d, aggs, 2);
      if ((rc = call2(c, "$scalar_subquery", col_of(c, a, d), col_of(c, a, d + 1), &res)))
        return rc;
      *out = finish(c, ap, a, res);
      return FL_OK;
    }
    case SQL_AK_EXISTS: {
      if (one) {
        sql_bexpr_t *wt[2] = {mk, bool_const(c, true)};
        *out = finish(c, ap, r, case_of(c, wt, 1, bool_const(c, false), boolt));
        return FL_OK;
      }
      sql_agg_call_t *aggs = fl_arena_zalloc(c->a, sizeof *aggs);
      aggs[0] = agg_call("count", -1, (int32_t)(d + q->ncols), bt);
      sql_plan_t *a = aggregate(c, r, keys, d, aggs, 1);
      if ((rc = call2(c, ">", col_of(c, a, d), bigint_const(c, 0), &res))) return rc;
      *out = finish(c, ap, a, res);
      return FL_OK;
    }
    case SQL_AK_ANY:
    case SQL_AK_ALL: {
      sql_bexpr_t *cmp, *ncmp;
      if ((rc = call2(c, ap->u.apply.cmp, shifted(c, ap->u.apply.arg, 0), v, &cmp)) ||
          (rc = call2(c, "not", cmp, NULL, &ncmp)))
        return rc;
      pb_t b = {0};
      pb_copy(c, &b, r, 0, d);
      sql_named_exprs_add(c->a, &b, and2(c, mk, cmp), "$true");
      sql_named_exprs_add(c->a, &b, and2(c, col_of(c, r, d + q->ncols), ncmp), "$false");
      sql_named_exprs_add(c->a, &b, col_of(c, r, d + q->ncols), "$marker");
      sql_plan_t *pm = pb_plan(c, &b, r);
      sql_agg_call_t *aggs = fl_arena_zalloc(c->a, 3 * sizeof *aggs);
      for (uint32_t i = 0; i < 3; i++) aggs[i] = agg_call("count", -1, (int32_t)(d + i), bt);
      sql_plan_t *a = aggregate(c, pm, keys, d, aggs, 3);
      sql_bexpr_t *nt = col_of(c, a, d), *nf = col_of(c, a, d + 1), *na = col_of(c, a, d + 2);
      sql_bexpr_t *w1, *w2;
      bool all = ap->u.apply.kind == SQL_AK_ALL;
      if ((rc = call2(c, ">", all ? nf : nt, bigint_const(c, 0), &w1)) ||
          (rc = call2(c, "=", all ? nt : nf, na, &w2)))
        return rc;
      sql_bexpr_t *wt[4] = {w1, bool_const(c, !all), w2, bool_const(c, all)};
      *out = finish(c, ap, a, case_of(c, wt, 2, null_of(c, boolt), boolt));
      return FL_OK;
    }
    case SQL_AK_LATERAL: {
      if (ap->u.apply.left) return left_lateral(c, ap, q, r, d, out);
      sql_plan_t *f = sql_plan_new(c->a, SQL_P_FILTER, r);
      f->u.filter.pred = mk;
      f->cols = r->cols;
      f->ncols = r->ncols;
      pb_t b = {0};
      pb_copy(c, &b, f, 0, d - 1);
      pb_copy(c, &b, f, d, q->ncols);
      sql_plan_t *p = pb_plan(c, &b, f);
      for (uint32_t i = 0; i < p->ncols; i++) p->cols[i].name = ap->cols[i].name;
      *out = p;
      return FL_OK;
    }
  }
  return unsupported(c);
}

static int walk(dc_t *c, sql_plan_t **pp);

/* The plans of uncorrelated subqueries inside e (which may hold
 * correlated ones of their own). */
static int walk_expr(dc_t *c, sql_bexpr_t *e) {
  if (!e) return FL_OK;
  int rc;
  if ((e->kind == SQL_BX_SUBQUERY || e->kind == SQL_BX_IN_QUERY) && (rc = walk(c, &e->plan)))
    return rc;
  for (uint32_t i = 0; i < e->nargs; i++)
    if ((rc = walk_expr(c, e->args[i]))) return rc;
  return FL_OK;
}

static int walk_node_exprs(dc_t *c, sql_plan_t *p) {
  int rc = FL_OK;
  switch (p->kind) {
    case SQL_P_FILTER: return walk_expr(c, p->u.filter.pred);
    case SQL_P_PROJECT:
      for (uint32_t i = 0; i < p->ncols && !rc; i++) rc = walk_expr(c, p->u.project.exprs[i]);
      return rc;
    case SQL_P_JOIN: return walk_expr(c, p->u.join.cond);
    case SQL_P_VALUES:
      for (uint32_t i = 0; i < p->u.values.nrows * p->ncols && !rc; i++)
        rc = walk_expr(c, p->u.values.cells[i]);
      return rc;
    case SQL_P_APPLY: return walk_expr(c, p->u.apply.arg);
    default: return FL_OK;
  }
}

static int walk(dc_t *c, sql_plan_t **pp) {
  sql_plan_t *p = *pp;
  int rc;
  if ((rc = walk_node_exprs(c, p))) return rc;
  for (uint32_t i = 0; i < p->ninputs; i++)
    if ((rc = walk(c, &p->inputs[i]))) return rc;
  if (p->ninputs) p->in = p->inputs[0];
  if (p->kind != SQL_P_APPLY) return FL_OK;
  return rewrite_apply(c, p, pp);
}

static bool expr_has_apply(const sql_bexpr_t *e);

static bool has_apply(const sql_plan_t *p) {
  if (p->kind == SQL_P_APPLY) return true;
  switch (p->kind) {
    case SQL_P_FILTER:
      if (expr_has_apply(p->u.filter.pred)) return true;
      break;
    case SQL_P_PROJECT:
      for (uint32_t i = 0; i < p->ncols; i++)
        if (expr_has_apply(p->u.project.exprs[i])) return true;
      break;
    case SQL_P_JOIN:
      if (expr_has_apply(p->u.join.cond)) return true;
      break;
    default: break;
  }
  for (uint32_t i = 0; i < p->ninputs; i++)
    if (has_apply(p->inputs[i])) return true;
  return false;
}

static bool expr_has_apply(const sql_bexpr_t *e) {
  if (!e) return false;
  if ((e->kind == SQL_BX_SUBQUERY || e->kind == SQL_BX_IN_QUERY) && has_apply(e->plan)) return true;
  for (uint32_t i = 0; i < e->nargs; i++)
    if (expr_has_apply(e->args[i])) return true;
  return false;
}

int sql_opt_decorrelate(fl_arena_t *a, const sql_resolver_t *r, sql_plan_t **p, fl_err_t *err) {
  if (!has_apply(*p)) return FL_OK;
  if (!r) return fl_err_set(err, FL_EUNSUPPORTED, "Given correlated subquery is not supported");
  dc_t c = {.a = a, .r = r, .err = err};
  return walk(&c, p);
}
