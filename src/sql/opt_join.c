/*
 * opt_join.c - join planning (layer 7, sql).
 *
 * Top down over the plan:
 *  - A filter over a projection moves the conjuncts that read only plain
 *    (or cast) columns of it below it (subqueries in FROM, USING joins).
 *  - A filter over an INNER join (a comma list or CROSS JOIN with its
 *    WHERE clause included) moves its conjuncts into the join condition;
 *    over a LEFT join the conjuncts reading only the left side move below
 *    the join onto the left input (RIGHT: the right side). Conjuncts that
 *    read the null-supplying side stay above: there they see the NULLs
 *    the outer join adds.
 *  - The join condition is split into conjuncts. One reading only one
 *    side goes below the join onto that input, unless that input is the
 *    preserved side of an outer join (a LEFT join's ON condition on the
 *    left table does not drop left rows, it only fails to match). An
 *    equality between an expression of the left side and one of the
 *    right side becomes a key pair; expressions that are not plain
 *    columns are computed by a projection appended to the input (the
 *    binder has already cast both operands to their common type). The
 *    rest is the residual, evaluated over candidate pairs.
 *  - `x IN (subquery)` and `x NOT IN (subquery)` conjuncts of a filter
 *    become SEMI and NULL_AWARE_ANTI joins of the filter's input with the
 *    subquery, the filter's other conjuncts below them.
 *  - Inner joins of three or more relations are reordered by estimated
 *    cost (below), and the smaller input of every join, by the same
 *    estimates, becomes the build side.
 *
 * Estimates. A table's rows are its snapshot's total-records; a filter
 * keeps a share by the shape of each conjunct (an equality with a
 * constant 10%, an inequality 90%, a range 30%, anything else 50%, as System R assumed
 * without statistics). Manifests give no distinct counts, so an equi-join
 * of relations with r1 and r2 rows (before their filters) is assumed to
 * be a key / foreign-key join, whose key has min(r1, r2) distinct values:
 * |A join B| = |A| |B| / min(r1, r2) for the strongest key pair between
 * two relations; other join conditions keep 50%. The order is the
 * left-deep one of least total intermediate rows (C_out), found by
 * dynamic programming over subsets of relations, extending a prefix only
 * by a relation that a condition connects to it unless none is connected
 * (so no cross product where a join predicate exists). Outer, semi and
 * anti joins are never reordered across: only a tree of inner joins is
 * flattened.
 * The filters this pushes down land directly over scans, where the next
 * rule (opt_pushdown.c) turns them into pruning filters.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sql/sql_plan.h"

typedef struct conj_list {
  sql_bexpr_t **v;
  uint32_t n, cap;
} conj_list_t;

static void conj_add(fl_arena_t *a, conj_list_t *l, sql_bexpr_t *e) {
  if (l->n == l->cap) {
    uint32_t cap = l->cap ? l->cap * 2 : 8;
    sql_bexpr_t **v = fl_arena_zalloc(a, cap * sizeof *v);
    if (l->n) memcpy(v, l->v, l->n * sizeof *v);
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = e;
}

static void conjuncts(fl_arena_t *a, sql_bexpr_t *e, conj_list_t *out) {
  if (!e) return;
  if (e->kind == SQL_BX_AND) {
    for (uint32_t i = 0; i < e->nargs; i++) conjuncts(a, e->args[i], out);
    return;
  }
  conj_add(a, out, e);
}

static sql_bexpr_t *and_of(fl_arena_t *a, sql_bexpr_t *const *v, uint32_t n) {
  if (n == 0) return NULL;
  if (n == 1) return v[0];
  sql_bexpr_t *e = fl_arena_zalloc(a, sizeof *e);
  e->kind = SQL_BX_AND;
  e->type = sql_dtype(SQL_DT_BOOLEAN);
  e->pos = v[0]->pos;
  e->nargs = n;
  e->args = fl_arena_memdup(a, v, n * sizeof *v);
  return e;
}

/* Whether e reads a column below nl (*l) and one at or above it (*r). */
static void sides(const sql_bexpr_t *e, uint32_t nl, bool *l, bool *r) {
  if (e->kind == SQL_BX_COL) {
    if (e->col < nl)
      *l = true;
    else
      *r = true;
  }
  for (uint32_t i = 0; i < e->nargs; i++) sides(e->args[i], nl, l, r);
}

/* A copy of e with every column at or above from moved by delta. */
static sql_bexpr_t *shift(fl_arena_t *a, const sql_bexpr_t *e, uint32_t from, int64_t delta) {
  sql_bexpr_t *c = fl_arena_memdup(a, e, sizeof *e);
  if (e->kind == SQL_BX_COL && e->col >= from) c->col = (uint32_t)((int64_t)e->col + delta);
  if (e->nargs) {
    c->args = fl_arena_alloc(a, e->nargs * sizeof *c->args);
    for (uint32_t i = 0; i < e->nargs; i++) c->args[i] = shift(a, e->args[i], from, delta);
  }
  return c;
}

/* A copy of e with column c renumbered to map[c]. */
static sql_bexpr_t *remap_cols(fl_arena_t *a, const sql_bexpr_t *e, const uint32_t *map) {
  sql_bexpr_t *c = fl_arena_memdup(a, e, sizeof *e);
  if (e->kind == SQL_BX_COL) c->col = map[e->col];
  if (e->nargs) {
    c->args = fl_arena_alloc(a, e->nargs * sizeof *c->args);
    for (uint32_t i = 0; i < e->nargs; i++) c->args[i] = remap_cols(a, e->args[i], map);
  }
  return c;
}

/* Puts pred as a filter over *in (joined to a filter already there). */
static void push_filter(fl_arena_t *a, sql_plan_t **in, sql_bexpr_t *pred) {
  sql_plan_t *p = *in;
  if (p->kind == SQL_P_FILTER) {
    sql_bexpr_t *v[2] = {p->u.filter.pred, pred};
    p->u.filter.pred = and_of(a, v, 2);
    return;
  }
  sql_plan_t *f = sql_plan_new(a, SQL_P_FILTER, p);
  f->u.filter.pred = pred;
  f->cols = p->cols;
  f->ncols = p->ncols;
  *in = f;
}

/* Appends exprs (over p's columns) to p's output through a projection. */
static sql_plan_t *append_cols(fl_arena_t *a, sql_plan_t *p, sql_bexpr_t *const *exprs,
                               uint32_t n) {
  if (!n) return p;
  sql_plan_t *q = sql_plan_new(a, SQL_P_PROJECT, p);
  q->ncols = p->ncols + n;
  q->cols = fl_arena_zalloc(a, q->ncols * sizeof *q->cols);
  q->u.project.exprs = fl_arena_zalloc(a, q->ncols * sizeof(sql_bexpr_t *));
  for (uint32_t i = 0; i < p->ncols; i++) {
    sql_bexpr_t *c = fl_arena_zalloc(a, sizeof *c);
    c->kind = SQL_BX_COL;
    c->col = i;
    c->type = p->cols[i].type;
    q->cols[i] = p->cols[i];
    q->u.project.exprs[i] = c;
  }
  for (uint32_t k = 0; k < n; k++) {
    q->cols[p->ncols + k] =
        (sql_col_t){.name = fl_arena_sprintf(a, "$key%u", k), .type = exprs[k]->type};
    q->u.project.exprs[p->ncols + k] = exprs[k];
  }
  return q;
}

static bool is_equality(const sql_bexpr_t *e);

static bool is_const(const sql_bexpr_t *e) {
  while (e->kind == SQL_BX_CAST) e = e->args[0];
  return e->kind == SQL_BX_CONST;
}

/* The share of rows a conjunct keeps (without column statistics). */
static double conj_sel(const sql_bexpr_t *e) {
  if (e->kind == SQL_BX_AND) {
    double s = 1;
    for (uint32_t i = 0; i < e->nargs; i++) s *= conj_sel(e->args[i]);
    return s;
  }
  if (e->kind == SQL_BX_CALL && e->fn && e->nargs == 2) {
    bool c = is_const(e->args[0]) || is_const(e->args[1]);
    if (!strcmp(e->fn, "=")) return c ? 0.1 : 0.5;
    if (!strcmp(e->fn, "<>") || !strcmp(e->fn, "!=")) return c ? 0.9 : 0.5;
    if (!strcmp(e->fn, "<") || !strcmp(e->fn, "<=") || !strcmp(e->fn, ">") || !strcmp(e->fn, ">="))
      return c ? 0.3 : 0.5;
  }
  return 0.5;
}

static double pred_sel(const sql_bexpr_t *e) { return e ? conj_sel(e) : 1; }

/* Rows the plan yields when the metadata says so, else -1. */
static int64_t est_rows(const sql_plan_t *p) {
  switch (p->kind) {
    case SQL_P_SCAN: {
      if (p->u.scan.meta || p->u.scan.stream) return -1;
      if (p->u.scan.files) return p->u.scan.files->est_rows;
      const ice_meta_t *m = p->u.scan.table->meta;
      const ice_snapshot_t *s = NULL;
      if (p->u.scan.snapshot_id >= 0) {
        s = ice_meta_snapshot(m, p->u.scan.snapshot_id);
      } else if (p->u.scan.ref) {
        const ice_ref_t *r = ice_meta_ref(m, p->u.scan.ref);
        if (r) s = ice_meta_snapshot(m, r->snapshot_id);
      } else if (p->u.scan.as_of_ms < 0) {
        s = ice_meta_current_snapshot(m);
        if (!s) return 0;
      }
      if (!s) return -1;
      const char *v = ice_snapshot_summary(s, "total-records");
      if (!v || !*v) return -1;
      char *end;
      long long n = strtoll(v, &end, 10);
      return *end || n < 0 ? -1 : (int64_t)n;
    }
    case SQL_P_VALUES: return p->u.values.nrows;
    case SQL_P_FILTER: {
      int64_t n = est_rows(p->in);
      if (n <= 0) return n;
      double k = (double)n * pred_sel(p->u.filter.pred);
      return k < 1 ? 1 : (int64_t)k;
    }
    case SQL_P_PROJECT:
    case SQL_P_SORT: return est_rows(p->in);
    case SQL_P_AGGREGATE: return p->u.agg.nkeys == 0 && !p->u.agg.sets ? 1 : est_rows(p->in);
    case SQL_P_LIMIT: {
      int64_t n = est_rows(p->in);
      if (p->u.limit.limit >= 0 && (n < 0 || n > p->u.limit.limit)) n = p->u.limit.limit;
      return n;
    }
    case SQL_P_UNION: {
      int64_t sum = 0;
      for (uint32_t i = 0; i < p->ninputs; i++) {
        int64_t n = est_rows(p->inputs[i]);
        if (n < 0) return -1;
        sum += n;
      }
      return sum;
    }
    case SQL_P_JOIN: {
      if (p->u.join.est > 0) return p->u.join.est;
      /* Without key statistics: a semi or anti join keeps at most its
       * left side, a join on keys about its larger side (one side's keys
       * unique, the usual case), a cross join the product; a join on
       * other conditions is counted like one on keys. */
      int64_t l = est_rows(p->inputs[0]), r = est_rows(p->inputs[1]);
      if (p->u.join.type >= SQL_JT_SEMI) return l;
      if (l < 0 || r < 0) return -1;
      /* (Before its condition is split, a join lower in the plan may
       * still receive key conditions from above: count it as keyed.) */
      if (p->u.join.nkeys || !p->u.join.split || p->u.join.residual) return l > r ? l : r;
      return r && l > INT64_MAX / r ? INT64_MAX : l * r;
    }
    default: return -1;
  }
}

static bool is_equality(const sql_bexpr_t *e) {
  return e->kind == SQL_BX_CALL && e->nargs == 2 && e->fn && strcmp(e->fn, "=") == 0 &&
         sql_dtype_equal(&e->args[0]->type, &e->args[1]->type);
}

/* Splits the condition of join j into pushed filters, keys and residual. */
static void split(fl_arena_t *a, sql_plan_t *j) {
  sql_join_type_t t = j->u.join.type;
  uint32_t nl = j->inputs[0]->ncols;
  conj_list_t all = {0}, rest = {0}, lk = {0}, rk = {0};
  conjuncts(a, j->u.join.cond, &all);
  bool outer_or_inner = t <= SQL_JT_FULL;
  /* (NULL_AWARE_ANTI joins are made with their one key by semi_join and
   * never come here.) */
  for (uint32_t i = 0; i < all.n; i++) {
    sql_bexpr_t *c = all.v[i];
    bool l = false, r = false;
    sides(c, nl, &l, &r);
    if (outer_or_inner && l && !r && (t == SQL_JT_INNER || t == SQL_JT_RIGHT)) {
      push_filter(a, &j->inputs[0], c);
      continue;
    }
    if (r && !l && t != SQL_JT_RIGHT && t != SQL_JT_FULL) {
      push_filter(a, &j->inputs[1], shift(a, c, nl, -(int64_t)nl));
      continue;
    }
    if (l && r && is_equality(c)) {
      bool l0 = false, r0 = false, l1 = false, r1 = false;
      sides(c->args[0], nl, &l0, &r0);
      sides(c->args[1], nl, &l1, &r1);
      if (l0 && !r0 && r1 && !l1) {
        conj_add(a, &lk, c->args[0]);
        conj_add(a, &rk, shift(a, c->args[1], nl, -(int64_t)nl));
        continue;
      }
      if (r0 && !l0 && l1 && !r1) {
        conj_add(a, &lk, c->args[1]);
        conj_add(a, &rk, shift(a, c->args[0], nl, -(int64_t)nl));
        continue;
      }
    }
    conj_add(a, &rest, c);
  }
  uint32_t n = lk.n;
  j->u.join.nkeys = n;
  j->u.join.lkeys = fl_arena_zalloc(a, (n ? n : 1) * sizeof(uint32_t));
  j->u.join.rkeys = fl_arena_zalloc(a, (n ? n : 1) * sizeof(uint32_t));
  /* Keys that are plain columns are used as they are; others are
   * computed by a projection appended to the input. */
  for (int side = 0; side < 2; side++) {
    conj_list_t *ks = side ? &rk : &lk;
    uint32_t *out = side ? j->u.join.rkeys : j->u.join.lkeys;
    sql_plan_t *in = j->inputs[side];
    conj_list_t extra = {0};
    for (uint32_t k = 0; k < n; k++) {
      if (ks->v[k]->kind == SQL_BX_COL) {
        out[k] = ks->v[k]->col;
      } else {
        out[k] = in->ncols + extra.n;
        conj_add(a, &extra, ks->v[k]);
      }
    }
    j->inputs[side] = append_cols(a, in, extra.v, extra.n);
  }
  j->in = j->inputs[0];
  uint32_t added_left = j->inputs[0]->ncols - nl;
  sql_bexpr_t *res = and_of(a, rest.v, rest.n);
  j->u.join.residual = res && added_left ? shift(a, res, nl, added_left) : res;
  j->u.join.split = true;
  if (t <= SQL_JT_FULL) {
    int64_t ln = est_rows(j->inputs[0]), rn = est_rows(j->inputs[1]);
    j->u.join.build_left = ln >= 0 && rn >= 0 && ln < rn;
  }
  if (j->u.join.est <= 0) {
    int64_t e = est_rows(j);
    j->u.join.est = e > 0 ? e : 0;
  }
}

/* `x IN (q)` (SEMI) or `NOT x IN (q)` (NULL_AWARE_ANTI) of a filter
 * conjunct, as a join of the filter's input with q on x = q's column. */
static sql_plan_t *semi_join(fl_arena_t *a, sql_plan_t *left, const sql_bexpr_t *in,
                             sql_join_type_t type) {
  sql_plan_t *j = sql_plan_new(a, SQL_P_JOIN, left);
  j->inputs = fl_arena_zalloc(a, 2 * sizeof *j->inputs);
  j->ninputs = 2;
  j->u.join.type = type;
  j->u.join.nleft = left->ncols;
  j->ncols = left->ncols;
  j->cols = left->cols;
  j->u.join.nkeys = 1;
  j->u.join.lkeys = fl_arena_zalloc(a, sizeof(uint32_t));
  j->u.join.rkeys = fl_arena_zalloc(a, sizeof(uint32_t));
  sql_bexpr_t *x = in->args[0];
  if (x->kind == SQL_BX_COL) {
    j->u.join.lkeys[0] = x->col;
  } else {
    j->u.join.lkeys[0] = left->ncols;
    left = append_cols(a, left, &x, 1);
  }
  j->inputs[0] = j->in = left;
  j->inputs[1] = in->plan;
  j->u.join.split = true;
  return j;
}

/* The IN subquery of conjunct c, and whether it is negated; NULL: none. */
static const sql_bexpr_t *in_query(const sql_bexpr_t *c, bool *negated) {
  *negated = false;
  if (c->kind == SQL_BX_CALL && c->nargs == 1 && c->fn && !strcmp(c->fn, "not")) {
    *negated = true;
    c = c->args[0];
  }
  if (c->kind != SQL_BX_IN_QUERY || c->plan->ncols != 1) return NULL;
  return c;
}

/* Whether every column e reads is a plain column of the projection's
 * input, or a cast of one (so e can move below the projection with the
 * same meaning and about the same cost). */
static bool plain(const sql_bexpr_t *e) {
  return e->kind == SQL_BX_COL || (e->kind == SQL_BX_CAST && e->args[0]->kind == SQL_BX_COL);
}

static bool plain_through(const sql_bexpr_t *e, const sql_plan_t *proj) {
  if (e->kind == SQL_BX_COL && !plain(proj->u.project.exprs[e->col])) return false;
  for (uint32_t i = 0; i < e->nargs; i++)
    if (!plain_through(e->args[i], proj)) return false;
  return true;
}

/* A copy of e reading the projection's input instead of its output. */
static sql_bexpr_t *through(fl_arena_t *a, const sql_bexpr_t *e, const sql_plan_t *proj) {
  if (e->kind == SQL_BX_COL) return proj->u.project.exprs[e->col];
  sql_bexpr_t *c = fl_arena_memdup(a, e, sizeof *e);
  if (e->nargs) {
    c->args = fl_arena_alloc(a, e->nargs * sizeof *c->args);
    for (uint32_t i = 0; i < e->nargs; i++) c->args[i] = through(a, e->args[i], proj);
  }
  return c;
}

/* ---- cross join elimination ---- */

#define REORDER_MAX 16

typedef struct leaves {
  sql_plan_t *rel[REORDER_MAX];
  uint32_t base[REORDER_MAX]; /* first column in the tree's output */
  uint32_t n;
  bool overflow;
  conj_list_t conds; /* over the tree's output columns */
} leaves_t;

static bool is_inner_tree(const sql_plan_t *p) {
  return p->kind == SQL_P_JOIN && p->u.join.type == SQL_JT_INNER && !p->u.join.split;
}

static void flatten(fl_arena_t *a, sql_plan_t *p, uint32_t base, leaves_t *lv) {
  if (is_inner_tree(p)) {
    conj_list_t c = {0};
    conjuncts(a, p->u.join.cond, &c);
    for (uint32_t i = 0; i < c.n; i++)
      conj_add(a, &lv->conds, base ? shift(a, c.v[i], 0, base) : c.v[i]);
    flatten(a, p->inputs[0], base, lv);
    flatten(a, p->inputs[1], base + p->inputs[0]->ncols, lv);
    return;
  }
  if (lv->n == REORDER_MAX) {
    lv->overflow = true;
    return;
  }
  lv->rel[lv->n] = p;
  lv->base[lv->n++] = base;
}

/* Which leaves conjunct e reads, as a bit mask. */
static uint32_t leaf_mask(const sql_bexpr_t *e, const leaves_t *lv) {
  uint32_t m = 0;
  if (e->kind == SQL_BX_COL)
    for (uint32_t i = 0; i < lv->n; i++)
      if (e->col >= lv->base[i] && e->col < lv->base[i] + lv->rel[i]->ncols) m |= 1u << i;
  for (uint32_t i = 0; i < e->nargs; i++) m |= leaf_mask(e->args[i], lv);
  return m;
}

static sql_plan_t *cross(fl_arena_t *a, sql_plan_t *l, sql_plan_t *r) {
  sql_plan_t *j = sql_plan_new(a, SQL_P_JOIN, l);
  j->inputs = fl_arena_zalloc(a, 2 * sizeof *j->inputs);
  j->inputs[0] = l;
  j->inputs[1] = r;
  j->ninputs = 2;
  j->u.join.type = SQL_JT_INNER;
  j->u.join.nleft = l->ncols;
  j->u.join.nright = r->ncols;
  j->ncols = l->ncols + r->ncols;
  j->cols = fl_arena_zalloc(a, (j->ncols ? j->ncols : 1) * sizeof *j->cols);
  if (l->ncols) memcpy(j->cols, l->cols, l->ncols * sizeof *j->cols);
  if (r->ncols) memcpy(j->cols + l->ncols, r->cols, r->ncols * sizeof *j->cols);
  return j;
}

/* The column a side of an equality reads, through casts; NULL if not a
 * plain column. */
static const sql_bexpr_t *key_col(const sql_bexpr_t *e) {
  while (e->kind == SQL_BX_CAST) e = e->args[0];
  return e->kind == SQL_BX_COL ? e : NULL;
}

/*
 * A tree of inner joins of three or more relations (a comma list, JOIN
 * ... ON chains) is rebuilt left-deep in the order of least estimated
 * cost (see the top of this file), or, when some relation has no row
 * estimate, in an order where each relation joins one before it through
 * a condition when there is one, as Trino eliminates cross joins (the
 * first relation first; when none is connected, the next in written
 * order). The written order is kept when it is already the choice;
 * otherwise a projection restores the output columns' order. Each join
 * built carries its estimate. Returns the new root, or NULL for no change.
 */
static sql_plan_t *reorder(fl_arena_t *a, sql_plan_t *p) {
  leaves_t lv = {0};
  flatten(a, p, 0, &lv);
  if (lv.overflow || lv.n < 3) return NULL;
  uint32_t n = lv.n, full = (1u << n) - 1;
  uint32_t *masks = fl_arena_zalloc(a, (lv.conds.n ? lv.conds.n : 1) * sizeof *masks);
  for (uint32_t i = 0; i < lv.conds.n; i++) masks[i] = leaf_mask(lv.conds.v[i], &lv);
  /* Leaf estimates: rows before and after their own conditions. */
  double base[REORDER_MAX], card[REORDER_MAX];
  bool known = true;
  for (uint32_t i = 0; i < n; i++) {
    int64_t r = est_rows(lv.rel[i]);
    if (r < 0) known = false;
    base[i] = card[i] = r < 1 ? 1 : (double)r;
  }
  for (uint32_t c = 0; c < lv.conds.n; c++)
    for (uint32_t i = 0; i < n; i++)
      if (masks[c] == 1u << i) card[i] *= conj_sel(lv.conds.v[c]);
  for (uint32_t i = 0; i < n; i++)
    if (card[i] < 1) card[i] = 1;
  /* Pair selectivities: the strongest equi-key between two relations. */
  double sel[REORDER_MAX][REORDER_MAX];
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t j = 0; j < n; j++) sel[i][j] = 1;
  double *multi = fl_arena_zalloc(a, (lv.conds.n ? lv.conds.n : 1) * sizeof *multi);
  for (uint32_t c = 0; c < lv.conds.n; c++) {
    uint32_t m = masks[c];
    multi[c] = 1;
    if (!m || !(m & (m - 1))) continue; /* one relation (or none) */
    const sql_bexpr_t *e = lv.conds.v[c];
    uint32_t i = (uint32_t)__builtin_ctz(m), j = (uint32_t)(31 - __builtin_clz(m));
    if ((m & ~((1u << i) | (1u << j))) == 0 && is_equality(e) && key_col(e->args[0]) &&
        key_col(e->args[1])) {
      double s = 1.0 / (base[i] < base[j] ? base[i] : base[j]);
      if (s < sel[i][j]) sel[i][j] = sel[j][i] = s;
    } else {
      multi[c] = 0.5;
    }
  }
  uint32_t order[REORDER_MAX];
  double *est = fl_arena_zalloc(a, n * sizeof *est);
  if (known) {
    /* card(S) is the same whatever the order; cost(S) = least sum of
     * intermediate rows of a left-deep order of S. */
    size_t ns = (size_t)full + 1;
    double *scard = fl_arena_zalloc(a, ns * sizeof *scard);
    double *cost = fl_arena_zalloc(a, ns * sizeof *cost);
    int8_t *last = fl_arena_zalloc(a, ns);
    for (uint32_t S = 1; S <= full; S++) {
      double c = 1;
      for (uint32_t i = 0; i < n; i++) {
        if (!(S >> i & 1)) continue;
        c *= card[i];
        for (uint32_t j = i + 1; j < n; j++)
          if (S >> j & 1) c *= sel[i][j];
      }
      for (uint32_t k = 0; k < lv.conds.n; k++)
        if (multi[k] != 1 && (masks[k] & ~S) == 0) c *= multi[k];
      scard[S] = c < 1 ? 1 : c;
      cost[S] = -1;
      last[S] = -1;
      if (!(S & (S - 1))) {
        cost[S] = 0;
        last[S] = (int8_t)__builtin_ctz(S);
      }
    }
    for (uint32_t S = 1; S <= full; S++) {
      if (!(S & (S - 1))) continue;
      for (uint32_t i = 0; i < n; i++) {
        uint32_t R = S & ~(1u << i);
        if (!(S >> i & 1) || cost[R] < 0) continue;
        /* i must be connected to R, unless nothing outside R is. */
        bool conn = false, any = false;
        for (uint32_t k = 0; k < lv.conds.n; k++) {
          uint32_t m = masks[k];
          if (!(m & R) || !(m & ~R)) continue;
          if (!(m & ~(R | (1u << i)))) conn = true;
          if (__builtin_popcount(m & ~R) >= 1) any = true;
        }
        if (!conn && any) continue;
        double c = cost[R] + scard[S];
        if (cost[S] < 0 || c < cost[S] - 1e-9 * c) {
          cost[S] = c;
          last[S] = (int8_t)i;
        }
      }
    }
    if (cost[full] < 0) known = false;
    for (uint32_t S = full, k = n; known && k-- > 0;) {
      order[k] = (uint32_t)last[S];
      est[k] = scard[S];
      S &= ~(1u << order[k]);
    }
  }
  if (!known) {
    uint32_t used = 1;
    order[0] = 0;
    for (uint32_t k = 1; k < n; k++) {
      int pick = -1;
      for (uint32_t c = 0; c < n && pick < 0; c++) {
        if (used & (1u << c)) continue;
        for (uint32_t i = 0; i < lv.conds.n; i++) {
          uint32_t m = masks[i];
          if ((m & (1u << c)) && (m & used) && !(m & ~(used | (1u << c)))) {
            pick = (int)c;
            break;
          }
        }
      }
      if (pick < 0)
        for (uint32_t c = 0; c < n && pick < 0; c++)
          if (!(used & (1u << c))) pick = (int)c;
      order[k] = (uint32_t)pick;
      used |= 1u << pick;
      est[k] = 0;
    }
  }
  bool changed = false;
  for (uint32_t k = 0; k < n; k++) changed |= order[k] != k;
  if (!changed) {
    /* Same order: only record the estimates on the joins there are. */
    if (known) {
      sql_plan_t *j = p;
      for (uint32_t k = n - 1; k >= 1 && is_inner_tree(j); k--, j = j->inputs[0])
        if (j->inputs[1] == lv.rel[k])
          j->u.join.est = est[k] > (double)INT64_MAX ? INT64_MAX : (int64_t)est[k];
    }
    return NULL;
  }
  /* New position of each column of the tree's output. */
  uint32_t *pos = fl_arena_zalloc(a, (p->ncols ? p->ncols : 1) * sizeof *pos);
  sql_plan_t *j = lv.rel[order[0]];
  uint32_t at = 0;
  for (uint32_t k = 0; k < n; k++) {
    uint32_t l = order[k];
    for (uint32_t c = 0; c < lv.rel[l]->ncols; c++) pos[lv.base[l] + c] = at + c;
    at += lv.rel[l]->ncols;
    if (k) {
      j = cross(a, j, lv.rel[l]);
      if (known) j->u.join.est = est[k] > (double)INT64_MAX ? INT64_MAX : (int64_t)est[k];
    }
  }
  conj_list_t conds = {0};
  for (uint32_t i = 0; i < lv.conds.n; i++) conj_add(a, &conds, remap_cols(a, lv.conds.v[i], pos));
  j->u.join.cond = and_of(a, conds.v, conds.n);
  sql_plan_t *q = sql_plan_new(a, SQL_P_PROJECT, j);
  q->ncols = p->ncols;
  q->cols = p->cols;
  q->u.project.exprs = fl_arena_zalloc(a, (p->ncols ? p->ncols : 1) * sizeof(sql_bexpr_t *));
  for (uint32_t i = 0; i < p->ncols; i++) {
    sql_bexpr_t *c = fl_arena_zalloc(a, sizeof *c);
    c->kind = SQL_BX_COL;
    c->col = pos[i];
    c->type = p->cols[i].type;
    q->u.project.exprs[i] = c;
  }
  return q;
}

static void opt(fl_arena_t *a, sql_plan_t **pp) {
  sql_plan_t *p = *pp;
  if (p->kind == SQL_P_FILTER && p->in->kind == SQL_P_PROJECT) {
    /* Conjuncts over renamed columns (a subquery or WITH query in FROM,
     * JOIN ... USING) move below the projection, towards a join or scan. */
    sql_plan_t *proj = p->in;
    conj_list_t all = {0}, keep = {0}, down = {0};
    conjuncts(a, p->u.filter.pred, &all);
    for (uint32_t i = 0; i < all.n; i++) {
      if (plain_through(all.v[i], proj))
        conj_add(a, &down, through(a, all.v[i], proj));
      else
        conj_add(a, &keep, all.v[i]);
    }
    if (down.n) {
      push_filter(a, &proj->inputs[0], and_of(a, down.v, down.n));
      proj->in = proj->inputs[0];
      if (keep.n)
        p->u.filter.pred = and_of(a, keep.v, keep.n);
      else
        *pp = p = proj;
    }
  }
  if (p->kind == SQL_P_FILTER) {
    /* IN and NOT IN subqueries of WHERE become SEMI and null-aware ANTI
     * joins; in a WHERE conjunct FALSE and NULL both drop the row. */
    conj_list_t all = {0}, keep = {0}, ins = {0};
    conjuncts(a, p->u.filter.pred, &all);
    for (uint32_t i = 0; i < all.n; i++) {
      bool neg;
      conj_add(a, in_query(all.v[i], &neg) ? &ins : &keep, all.v[i]);
    }
    if (ins.n) {
      /* The other conjuncts filter below the joins: fewer probe rows, and
       * a filter directly over a scan prunes it. */
      if (keep.n)
        p->u.filter.pred = and_of(a, keep.v, keep.n);
      else
        p = p->in;
      for (uint32_t i = 0; i < ins.n; i++) {
        bool neg;
        const sql_bexpr_t *q = in_query(ins.v[i], &neg);
        p = semi_join(a, p, q, neg ? SQL_JT_NULL_AWARE_ANTI : SQL_JT_SEMI);
      }
      *pp = p;
    }
  }
  if (p->kind == SQL_P_FILTER && p->in->kind == SQL_P_JOIN && !p->in->u.join.split) {
    sql_plan_t *j = p->in;
    uint32_t nl = j->inputs[0]->ncols;
    conj_list_t all = {0}, keep = {0};
    conjuncts(a, p->u.filter.pred, &all);
    for (uint32_t i = 0; i < all.n; i++) {
      sql_bexpr_t *c = all.v[i];
      bool l = false, r = false;
      sides(c, nl, &l, &r);
      if (j->u.join.type == SQL_JT_INNER) {
        sql_bexpr_t *v[2] = {j->u.join.cond, c};
        j->u.join.cond = j->u.join.cond ? and_of(a, v, 2) : c;
      } else if (!r && l && j->u.join.type != SQL_JT_RIGHT && j->u.join.type != SQL_JT_FULL) {
        push_filter(a, &j->inputs[0], c);
        j->in = j->inputs[0];
      } else if (!l && r && j->u.join.type == SQL_JT_RIGHT) {
        push_filter(a, &j->inputs[1], shift(a, c, nl, -(int64_t)nl));
      } else {
        conj_add(a, &keep, c);
      }
    }
    if (keep.n)
      p->u.filter.pred = and_of(a, keep.v, keep.n);
    else
      *pp = p = j;
  }
  if (is_inner_tree(p)) {
    sql_plan_t *q = reorder(a, p);
    if (q) {
      *pp = q;
      p = q->in;
      q->inputs[0] = p;
    }
  }
  if (p->kind == SQL_P_JOIN && !p->u.join.split) split(a, p);
  for (uint32_t i = 0; i < p->ninputs; i++) opt(a, &p->inputs[i]);
  if (p->ninputs) p->in = p->inputs[0];
}

int sql_opt_join(fl_arena_t *a, sql_plan_t **p, fl_err_t *err) {
  (void)err;
  opt(a, p);
  return FL_OK;
}
