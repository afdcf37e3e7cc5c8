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
 *    estimates, becomes the build side; for SEMI and ANTI joins with keys
 *    too (the executor then holds the left rows and lets the subquery's
 *    rows probe them: RIGHT_SEMI, RIGHT_ANTI).
 *
 * Estimates. A table's rows are its snapshot's total-records; a filter
 * keeps a share by the shape of each conjunct (an equality with a
 * constant 10%, an inequality 90%, a range 30%, LIKE with a pattern 10%,
 * NOT x the rest of x, anything else 50%, as System R assumed without
 * statistics). Manifests give no distinct counts, but their column bounds
 * do bound them (sql_stats.h): an integer column between lo and hi has at
 * most hi - lo + 1 distinct values, and no column more than its table's
 * rows. A key pair a = b between relations with r1 and r2 rows is taken
 * as a key / foreign-key join on min(d(a), d(b)) distinct values, where
 * d(x) is that bound capped at its relation's rows: |A join B| = |A| |B|
 * / min(d(a), d(b)). With sparse keys (l_orderkey spans four times the
 * orders) the smaller bound is the key side's, so the estimate stays
 * the foreign-key side's rows; with a low-cardinality key (25 nations)
 * it is the many-to-many product it is. Equalities of plain columns form
 * equivalence classes whose implied members are added (a = b and b = c
 * give a = c, so an order may join a and c directly), and a relation set's
 * rows apply, per class, only the keys of a spanning forest of the set
 * (strongest first), so a cycle of one class counts once. Keys of several
 * classes between two relations (a composite key) keep at least 1 / the
 * smaller relation's rows, as if they were its key. Other join
 * conditions keep 50%. The order is the left-deep one of least total
 * intermediate rows (C_out), found by dynamic programming over subsets of
 * relations, extending a prefix only by a relation that a condition
 * connects to it unless none is connected (so no cross product where a
 * join predicate exists). Each condition is applied at the join that adds
 * the last relation it reads, and an equality already implied there is
 * dropped. Outer, semi and anti joins are never reordered across: only a
 * tree of inner joins is flattened.
 * The filters this pushes down land directly over scans, where the next
 * rule (opt_pushdown.c) turns them into pruning filters.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sql/sql_bind.h"
#include "sql/sql_plan.h"
#include "sql/sql_stats.h"

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

/* The branches of a tree of ORs. */
static void disjuncts(fl_arena_t *a, sql_bexpr_t *e, conj_list_t *out) {
  if (e->kind == SQL_BX_OR) {
    for (uint32_t i = 0; i < e->nargs; i++) disjuncts(a, e->args[i], out);
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

/* Puts pred as a filter over *in (joined to a filter already there);
 * below SEMI and ANTI joins, whose output is their left input's columns,
 * so that it still lands directly over a scan and prunes it. */
static void push_filter(fl_arena_t *a, sql_plan_t **in, sql_bexpr_t *pred) {
  sql_plan_t *p = *in;
  if (p->kind == SQL_P_JOIN && p->u.join.type >= SQL_JT_SEMI && p->u.join.split) {
    push_filter(a, &p->inputs[0], pred);
    p->in = p->inputs[0];
    return;
  }
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
  if (e->kind == SQL_BX_OR) {
    double none = 1;
    for (uint32_t i = 0; i < e->nargs; i++) none *= 1 - conj_sel(e->args[i]);
    return 1 - none;
  }
  if (e->kind == SQL_BX_CALL && e->fn && e->nargs == 1 && !strcmp(e->fn, "not"))
    return 1 - conj_sel(e->args[0]);
  if (e->kind == SQL_BX_CALL && e->fn && e->nargs >= 2 && !strcmp(e->fn, "like") &&
      is_const(e->args[1]))
    return 0.1; /* a pattern: as selective as an equality */
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
      /* Conditions pushed over a join that the reordering estimated are
       * its own join conditions on their way down: its estimate has them. */
      if (p->in->kind == SQL_P_JOIN && p->in->u.join.est > 0 && !p->in->u.join.split)
        return p->in->u.join.est;
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

/*
 * What an OR implies about one input: `(a1 AND b1) OR (a2 AND b2)`, where
 * a1 and a2 read only that input, implies `a1 OR a2` (TPC-H Q7's nation
 * pairs, Q19's brand and quantity ranges). only(e, arg) says whether a
 * conjunct reads only that input. NULL when some branch says nothing
 * about it, or (check) when a conjunct taken is not deterministic (the
 * copy would draw again). The OR itself stays where it was.
 */
static sql_bexpr_t *or_implied(fl_arena_t *a, const sql_resolver_t *r, bool check,
                               const sql_bexpr_t *e,
                               bool (*only)(const sql_bexpr_t *, const void *), const void *arg) {
  if (e->kind != SQL_BX_OR || e->nargs < 2) return NULL;
  conj_list_t branches = {0};
  disjuncts(a, (sql_bexpr_t *)e, &branches);
  sql_bexpr_t **br = fl_arena_zalloc(a, branches.n * sizeof *br);
  for (uint32_t b = 0; b < branches.n; b++) {
    conj_list_t all = {0}, mine = {0};
    conjuncts(a, branches.v[b], &all);
    for (uint32_t i = 0; i < all.n; i++)
      if (only(all.v[i], arg) && (!check || sql_bexpr_deterministic(r, all.v[i])))
        conj_add(a, &mine, all.v[i]);
    if (!mine.n) return NULL;
    br[b] = and_of(a, mine.v, mine.n);
  }
  sql_bexpr_t *o = fl_arena_memdup(a, e, sizeof *o);
  o->args = br;
  o->nargs = branches.n;
  return o;
}

typedef struct side_arg {
  uint32_t nl;
  bool right;
} side_arg_t;

static bool only_side(const sql_bexpr_t *e, const void *arg) {
  const side_arg_t *s = arg;
  bool l = false, r = false;
  sides(e, s->nl, &l, &r);
  return s->right ? r && !l : l && !r;
}

/* Builds the hash table on the smaller input: the left one when its
 * estimate is below the right one's (half of it for SEMI and ANTI). SEMI and ANTI joins may build
 * on the left too (the executor's RIGHT_SEMI and RIGHT_ANTI) when they have keys; NOT IN keeps its
 * subquery as the build side. */
static void choose_build(sql_plan_t *j) {
  sql_join_type_t t = j->u.join.type;
  if (t > SQL_JT_FULL && !((t == SQL_JT_SEMI || t == SQL_JT_ANTI) && j->u.join.nkeys)) return;
  int64_t ln = est_rows(j->inputs[0]), rn = est_rows(j->inputs[1]);
  /* A SEMI or ANTI join holds only the subquery's keys, its swapped form
   * whole left rows: swap only for a clearly smaller left side. */
  if (t >= SQL_JT_SEMI && ln >= 0 && ln <= INT64_MAX / 2) ln *= 2;
  j->u.join.build_left = ln >= 0 && rn >= 0 && ln < rn;
}

/* Splits the condition of join j into pushed filters, keys and residual. */
static void split(fl_arena_t *a, const sql_resolver_t *rs, sql_plan_t *j) {
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
    if (l && r && c->kind == SQL_BX_OR) {
      /* The filters an OR of both sides implies go below, as the
       * one-sided conjuncts above would. */
      side_arg_t sl = {nl, false}, sr = {nl, true};
      sql_bexpr_t *d;
      if (outer_or_inner && (t == SQL_JT_INNER || t == SQL_JT_RIGHT) &&
          (d = or_implied(a, rs, true, c, only_side, &sl)))
        push_filter(a, &j->inputs[0], d);
      if (t != SQL_JT_RIGHT && t != SQL_JT_FULL && (d = or_implied(a, rs, true, c, only_side, &sr)))
        push_filter(a, &j->inputs[1], shift(a, d, nl, -(int64_t)nl));
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
  choose_build(j);
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

/* Puts the SEMI join of `x IN (q)` (in) where x, a plain column, comes
 * from: down through filters and inner joins to the relation that has it
 * (TPC-H Q18: the orders among 57 keys, before they join customers and
 * line items, not the 6 million joined rows after). A SEMI join's output
 * is its left input's columns, so nothing above changes. Returns false
 * when x is not a plain column of a filter or inner join below p. */
static bool is_inner_tree(const sql_plan_t *p);

static bool place_semi(fl_arena_t *a, sql_plan_t *p, const sql_bexpr_t *in) {
  const sql_bexpr_t *x = in->args[0];
  if (x->kind != SQL_BX_COL) return false;
  uint32_t col = x->col, slot = 0;
  sql_plan_t *parent = NULL, *at = p;
  for (;;) {
    if (at->kind == SQL_P_FILTER) {
      parent = at;
      slot = 0;
    } else if (is_inner_tree(at) && col < at->u.join.nleft + at->u.join.nright) {
      parent = at;
      slot = col >= at->u.join.nleft;
      if (slot) col -= at->u.join.nleft;
    } else {
      break;
    }
    at = at->inputs[slot];
  }
  if (!parent || (parent->kind == SQL_P_FILTER && parent == p)) return false;
  sql_bexpr_t *c = fl_arena_memdup(a, in, sizeof *c);
  c->args = fl_arena_memdup(a, in->args, in->nargs * sizeof *c->args);
  c->args[0] = fl_arena_memdup(a, x, sizeof *x);
  c->args[0]->col = col;
  parent->inputs[slot] = semi_join(a, at, c, SQL_JT_SEMI);
  if (!slot) parent->in = parent->inputs[0];
  return true;
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

typedef struct leaf_arg {
  const leaves_t *lv;
  uint32_t mask;
} leaf_arg_t;

static bool only_leaf(const sql_bexpr_t *e, const void *arg) {
  const leaf_arg_t *la = arg;
  return leaf_mask(e, la->lv) == la->mask;
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

/* The distinct values of tree column col: the manifests' bound on its
 * column, at most its relation's rows (base). */
static double key_ndv(sql_stats_t *st, const leaves_t *lv, uint32_t col, const double *base) {
  for (uint32_t i = 0; i < lv->n; i++) {
    if (col < lv->base[i] || col >= lv->base[i] + lv->rel[i]->ncols) continue;
    sql_col_stats_t cs = sql_stats_col(st, lv->rel[i], col - lv->base[i]);
    return cs.ndv >= 1 && cs.ndv < base[i] ? cs.ndv : base[i];
  }
  return 1;
}

static uint32_t uf_find(uint32_t *up, uint32_t x) {
  while (up[x] != x) x = up[x] = up[up[x]];
  return x;
}

static int32_t leaf_of(const leaves_t *lv, uint32_t col) {
  for (uint32_t i = 0; i < lv->n; i++)
    if (col >= lv->base[i] && col < lv->base[i] + lv->rel[i]->ncols) return (int32_t)i;
  return -1;
}

/*
 * Adds the equalities that those of the tree imply: from a = b and b = c
 * (plain columns of one type, of different relations) follows a = c,
 * which an inner join may use as a key. Without it an order that joins a
 * and c first would look like a cross product (TPC-H Q5 equates customer
 * and nation only through supplier). Implied conditions are redundant
 * where their class is already joined; they only cost a key compare.
 */
static uint32_t *close_equalities(fl_arena_t *a, leaves_t *lv, uint32_t ncols) {
  uint32_t *up = fl_arena_zalloc(a, (ncols ? ncols : 1) * sizeof *up);
  for (uint32_t c = 0; c < ncols; c++) up[c] = c;
  uint32_t norig = lv->conds.n;
  bool any = false;
  for (uint32_t k = 0; k < norig; k++) {
    const sql_bexpr_t *e = lv->conds.v[k];
    if (!is_equality(e) || e->args[0]->kind != SQL_BX_COL || e->args[1]->kind != SQL_BX_COL)
      continue;
    uint32_t x = e->args[0]->col, y = e->args[1]->col;
    if (x >= ncols || y >= ncols || leaf_of(lv, x) == leaf_of(lv, y)) continue;
    uint32_t rx = uf_find(up, x), ry = uf_find(up, y);
    if (rx != ry) up[rx] = ry;
    any = true;
  }
  if (!any) return up;
  for (uint32_t x = 0; x < ncols; x++)
    for (uint32_t y = x + 1; y < ncols; y++) {
      if (uf_find(up, x) != uf_find(up, y) || leaf_of(lv, x) == leaf_of(lv, y)) continue;
      const sql_bexpr_t *tmpl = NULL;
      bool direct = false;
      for (uint32_t k = 0; k < norig && !direct; k++) {
        const sql_bexpr_t *e = lv->conds.v[k];
        if (!is_equality(e) || e->args[0]->kind != SQL_BX_COL || e->args[1]->kind != SQL_BX_COL)
          continue;
        uint32_t u = e->args[0]->col, v = e->args[1]->col;
        if ((u == x && v == y) || (u == y && v == x)) direct = true;
        if (u == x || v == x) tmpl = e;
      }
      if (direct || !tmpl) continue;
      const sql_bexpr_t *tx = tmpl->args[tmpl->args[0]->col == x ? 0 : 1];
      const sql_bexpr_t *ty = NULL;
      for (uint32_t k = 0; k < norig && !ty; k++) {
        const sql_bexpr_t *e = lv->conds.v[k];
        if (!is_equality(e) || e->args[0]->kind != SQL_BX_COL || e->args[1]->kind != SQL_BX_COL)
          continue;
        if (e->args[0]->col == y) ty = e->args[0];
        if (e->args[1]->col == y) ty = e->args[1];
      }
      if (!ty || !sql_dtype_equal(&tx->type, &ty->type)) continue;
      sql_bexpr_t *d = fl_arena_memdup(a, tmpl, sizeof *d);
      d->args = fl_arena_alloc(a, 2 * sizeof *d->args);
      d->args[0] = fl_arena_memdup(a, tx, sizeof *tx);
      d->args[1] = fl_arena_memdup(a, ty, sizeof *ty);
      conj_add(a, &lv->conds, d);
    }
  return up;
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
static sql_plan_t *reorder(fl_arena_t *a, sql_stats_t *st, sql_plan_t *p) {
  leaves_t lv = {0};
  flatten(a, p, 0, &lv);
  if (lv.overflow || lv.n < 3) return NULL;
  uint32_t n = lv.n, full = (1u << n) - 1;
  uint32_t *eqclass = close_equalities(a, &lv, p->ncols);
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
      if (masks[c] == 1u << i) {
        card[i] *= conj_sel(lv.conds.v[c]);
      } else if (masks[c] >> i & 1) {
        /* What an OR over several relations implies about this one (the
         * join's split pushes it down later). */
        leaf_arg_t la = {&lv, 1u << i};
        sql_bexpr_t *d = or_implied(a, NULL, false, lv.conds.v[c], only_leaf, &la);
        if (d) card[i] *= conj_sel(d);
      }
  for (uint32_t i = 0; i < n; i++)
    if (card[i] < 1) card[i] = 1;
  /* Equi-keys between two relations, strongest first, each with its
   * equivalence class (a key of casts is a class of its own). */
  uint32_t nedges = 0;
  uint8_t *ei = fl_arena_zalloc(a, lv.conds.n + 1), *ej = fl_arena_zalloc(a, lv.conds.n + 1);
  uint32_t *ecls = fl_arena_zalloc(a, (lv.conds.n + 1) * sizeof *ecls);
  double *esel = fl_arena_zalloc(a, (lv.conds.n + 1) * sizeof *esel);
  uint32_t *clsid = fl_arena_zalloc(a, (p->ncols + lv.conds.n + 1) * sizeof *clsid);
  uint32_t ncls = 0;
  double *multi = fl_arena_zalloc(a, (lv.conds.n ? lv.conds.n : 1) * sizeof *multi);
  for (uint32_t c = 0; c < lv.conds.n; c++) {
    uint32_t m = masks[c];
    multi[c] = 1;
    if (!m || !(m & (m - 1))) continue; /* one relation (or none) */
    const sql_bexpr_t *e = lv.conds.v[c];
    uint32_t i = (uint32_t)__builtin_ctz(m), j = (uint32_t)(31 - __builtin_clz(m));
    if ((m & ~((1u << i) | (1u << j))) == 0 && is_equality(e) && key_col(e->args[0]) &&
        key_col(e->args[1])) {
      double d0 = key_ndv(st, &lv, key_col(e->args[0])->col, base);
      double d1 = key_ndv(st, &lv, key_col(e->args[1])->col, base);
      double sv = 1.0 / (d0 < d1 ? d0 : d1);
      uint32_t raw = e->args[0]->kind == SQL_BX_COL && e->args[1]->kind == SQL_BX_COL
                         ? uf_find(eqclass, e->args[0]->col)
                         : p->ncols + c;
      if (!clsid[raw]) clsid[raw] = ++ncls;
      uint32_t k = nedges++;
      while (k && esel[k - 1] > sv) {
        ei[k] = ei[k - 1];
        ej[k] = ej[k - 1];
        ecls[k] = ecls[k - 1];
        esel[k] = esel[k - 1];
        k--;
      }
      ei[k] = (uint8_t)i;
      ej[k] = (uint8_t)j;
      ecls[k] = clsid[raw] - 1;
      esel[k] = sv;
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
    /* card(S): the rows of S's relations times, per equivalence class of
     * keys, the keys of a spanning forest of S (Kruskal, strongest
     * first), so that a = b, b = c and the implied a = c count as two
     * conditions, not three. Keys of several classes between the same
     * two relations (a composite key) keep at least 1 / the smaller
     * relation's rows, as if they were that relation's key. */
    uint8_t *comp = fl_arena_zalloc(a, (ncls ? ncls : 1) * REORDER_MAX);
    double pf[REORDER_MAX][REORDER_MAX];
    for (uint32_t S = 1; S <= full; S++) {
      double c = 1;
      for (uint32_t i = 0; i < n; i++) {
        if (S >> i & 1) c *= card[i];
        for (uint32_t j = 0; j < n; j++) pf[i][j] = 1;
        for (uint32_t k = 0; k < ncls; k++) comp[k * REORDER_MAX + i] = (uint8_t)i;
      }
      for (uint32_t k = 0; k < nedges; k++) {
        uint32_t i = ei[k], j = ej[k];
        uint8_t *cp = comp + ecls[k] * REORDER_MAX;
        if (!(S >> i & 1) || !(S >> j & 1) || cp[i] == cp[j]) continue;
        pf[i][j] *= esel[k];
        uint8_t from = cp[j], to = cp[i];
        for (uint32_t x = 0; x < n; x++)
          if (cp[x] == from) cp[x] = to;
      }
      for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++) {
          if (i == j || pf[i][j] >= 1) continue;
          double floor = 1.0 / (base[i] < base[j] ? base[i] : base[j]);
          c *= pf[i][j] < floor ? floor : pf[i][j];
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
  /* Each condition is applied at the join that adds the last relation it
   * reads. An equality of columns already equal there (through the
   * conditions applied below it or beside it) is dropped: the implied
   * ones added above, or a written a = c beside a = b and b = c. */
  uint32_t rank[REORDER_MAX];
  for (uint32_t k = 0; k < n; k++) rank[order[k]] = k;
  uint32_t *same = fl_arena_zalloc(a, (p->ncols ? p->ncols : 1) * sizeof *same);
  for (uint32_t c = 0; c < p->ncols; c++) same[c] = c;
  conj_list_t conds = {0};
  for (uint32_t k = 0; k < n; k++)
    for (uint32_t i = 0; i < lv.conds.n; i++) {
      uint32_t m = masks[i], top = 0;
      for (uint32_t l = 0; l < n; l++)
        if (m >> l & 1 && rank[l] > top) top = rank[l];
      if (top != k) continue;
      const sql_bexpr_t *e = lv.conds.v[i];
      if (is_equality(e) && e->args[0]->kind == SQL_BX_COL && e->args[1]->kind == SQL_BX_COL &&
          e->args[0]->col < p->ncols && e->args[1]->col < p->ncols) {
        uint32_t rx = uf_find(same, e->args[0]->col), ry = uf_find(same, e->args[1]->col);
        if (rx == ry) continue;
        same[rx] = ry;
      }
      conj_add(a, &conds, remap_cols(a, e, pos));
    }
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

static void opt(fl_arena_t *a, const sql_resolver_t *rs, sql_stats_t *st, sql_plan_t **pp) {
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
        if (!neg && place_semi(a, p, q)) continue;
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
    sql_plan_t *q = reorder(a, st, p);
    if (q) {
      *pp = q;
      p = q->in;
      q->inputs[0] = p;
    }
  }
  if (p->kind == SQL_P_JOIN && !p->u.join.split) split(a, rs, p);
  for (uint32_t i = 0; i < p->ninputs; i++) opt(a, rs, st, &p->inputs[i]);
  if (p->ninputs) p->in = p->inputs[0];
  /* A SEMI or ANTI join's inputs are estimated best once they are
   * planned themselves (their filters pushed, their joins ordered). */
  if (p->kind == SQL_P_JOIN && (p->u.join.type == SQL_JT_SEMI || p->u.join.type == SQL_JT_ANTI))
    choose_build(p);
}

int sql_opt_join(fl_arena_t *a, const sql_resolver_t *r, sql_plan_t **p, fl_err_t *err) {
  (void)err;
  opt(a, r, sql_stats_new(a), p);
  return FL_OK;
}
