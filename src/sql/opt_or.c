/*
 * opt_or.c - common conjuncts out of OR (layer 7, sql).
 *
 * `(a AND b) OR (a AND c)` becomes `a AND (b OR c)`, and `a OR (a AND b)`
 * becomes `a`, for every OR in a filter predicate or a join condition
 * (Trino's ExtractCommonPredicatesExpressionRewriter). Both are laws of
 * three-valued logic too (AND and OR distribute over each other, and
 * absorb), so NULLs keep their meaning. What this buys is a join key: in
 * TPC-H Q19 the only equality between the two tables sits inside each of
 * three OR branches, and only once it is factored out can the join
 * planner (opt_join.c) make it a hash join key instead of a nested loop
 * over the cross product. Factored conjuncts that read one table also
 * reach that table's scan as pruning filters.
 *
 * A conjunct counts as common when a structurally equal one
 * (sql_bexpr_equal, or an equality with its operands swapped) is in
 * every branch. Conjuncts that call a
 * non-deterministic function (random) are never common: each branch's
 * call is its own draw. The rule runs after constant folding and before
 * join planning.
 */
#include <string.h>

#include "sql/sql_bind.h"

typedef struct terms {
  sql_bexpr_t **v;
  uint32_t n, cap;
} terms_t;

static void add(fl_arena_t *a, terms_t *t, sql_bexpr_t *e) {
  if (t->n == t->cap) {
    uint32_t cap = t->cap ? t->cap * 2 : 8;
    sql_bexpr_t **v = fl_arena_zalloc(a, cap * sizeof *v);
    if (t->n) memcpy(v, t->v, t->n * sizeof *v);
    t->v = v;
    t->cap = cap;
  }
  t->v[t->n++] = e;
}

static void flatten(fl_arena_t *a, sql_bexpr_t *e, sql_bx_kind_t kind, terms_t *out) {
  if (e->kind == kind) {
    for (uint32_t i = 0; i < e->nargs; i++) flatten(a, e->args[i], kind, out);
    return;
  }
  add(a, out, e);
}

static sql_bexpr_t *node(fl_arena_t *a, sql_bx_kind_t kind, const sql_bexpr_t *like,
                         sql_bexpr_t **v, uint32_t n) {
  if (n == 1) return v[0];
  sql_bexpr_t *e = fl_arena_zalloc(a, sizeof *e);
  e->kind = kind;
  e->type = sql_dtype(SQL_DT_BOOLEAN);
  e->pos = like->pos;
  e->nargs = n;
  e->args = fl_arena_memdup(a, v, n * sizeof *v);
  return e;
}

bool sql_bexpr_deterministic(const sql_resolver_t *r, const sql_bexpr_t *e) {
  /* Without the resolver's answer every call counts as non-deterministic. */
  if (e->kind == SQL_BX_CALL &&
      (!r || !r->nondeterministic || r->nondeterministic(r->ctx, e->impl)))
    return false;
  if (e->kind == SQL_BX_SUBQUERY || e->kind == SQL_BX_IN_QUERY) return false;
  for (uint32_t i = 0; i < e->nargs; i++)
    if (!sql_bexpr_deterministic(r, e->args[i])) return false;
  return true;
}

/* Equal, or equalities with their operands swapped (`p.k = l.k` in one
 * branch, `l.k = p.k` in another). */
static bool same(const sql_bexpr_t *x, const sql_bexpr_t *y) {
  if (sql_bexpr_equal(x, y)) return true;
  if (x->kind != SQL_BX_CALL || y->kind != SQL_BX_CALL || x->nargs != 2 || y->nargs != 2 ||
      !x->fn || !y->fn || strcmp(x->fn, "=") || strcmp(y->fn, "="))
    return false;
  return sql_bexpr_equal(x->args[0], y->args[1]) && sql_bexpr_equal(x->args[1], y->args[0]);
}

/* The index in t of a term equal to e that is not yet taken, or -1. */
static int find(const terms_t *t, const bool *taken, const sql_bexpr_t *e) {
  for (uint32_t i = 0; i < t->n; i++)
    if (!taken[i] && same(t->v[i], e)) return (int)i;
  return -1;
}

static sql_bexpr_t *factor(fl_arena_t *a, const sql_resolver_t *r, sql_bexpr_t *e);

/* An OR node (its arguments already rewritten) with common conjuncts out. */
static sql_bexpr_t *factor_or(fl_arena_t *a, const sql_resolver_t *r, sql_bexpr_t *e) {
  terms_t branches = {0};
  flatten(a, e, SQL_BX_OR, &branches);
  uint32_t nb = branches.n;
  terms_t *conj = fl_arena_zalloc(a, nb * sizeof *conj);
  bool **taken = fl_arena_zalloc(a, nb * sizeof *taken);
  for (uint32_t b = 0; b < nb; b++) {
    flatten(a, branches.v[b], SQL_BX_AND, &conj[b]);
    taken[b] = fl_arena_zalloc(a, conj[b].n ? conj[b].n : 1);
  }
  terms_t common = {0};
  int *at = fl_arena_zalloc(a, nb * sizeof *at);
  for (uint32_t i = 0; i < conj[0].n; i++) {
    sql_bexpr_t *c = conj[0].v[i];
    if (taken[0][i] || !sql_bexpr_deterministic(r, c)) continue;
    bool everywhere = true;
    at[0] = (int)i;
    for (uint32_t b = 1; b < nb && everywhere; b++)
      everywhere = (at[b] = find(&conj[b], taken[b], c)) >= 0;
    if (!everywhere) continue;
    for (uint32_t b = 0; b < nb; b++) taken[b][at[b]] = true;
    add(a, &common, c);
  }
  if (!common.n) return e;
  /* What each branch has beyond the common part; a branch with nothing
   * left is TRUE, and so is the whole OR (absorption). */
  terms_t rest = {0};
  bool absorbed = false;
  for (uint32_t b = 0; b < nb && !absorbed; b++) {
    terms_t left = {0};
    for (uint32_t i = 0; i < conj[b].n; i++)
      if (!taken[b][i]) add(a, &left, conj[b].v[i]);
    if (!left.n)
      absorbed = true;
    else
      add(a, &rest, node(a, SQL_BX_AND, e, left.v, left.n));
  }
  if (!absorbed) add(a, &common, node(a, SQL_BX_OR, e, rest.v, rest.n));
  return node(a, SQL_BX_AND, e, common.v, common.n);
}

static sql_bexpr_t *factor(fl_arena_t *a, const sql_resolver_t *r, sql_bexpr_t *e) {
  if (!e || (e->kind != SQL_BX_AND && e->kind != SQL_BX_OR)) return e;
  /* Nodes may be shared between expressions: copy, never edit. */
  sql_bexpr_t *c = fl_arena_memdup(a, e, sizeof *e);
  c->args = fl_arena_alloc(a, e->nargs * sizeof *c->args);
  for (uint32_t i = 0; i < e->nargs; i++) c->args[i] = factor(a, r, e->args[i]);
  return c->kind == SQL_BX_OR ? factor_or(a, r, c) : c;
}

static void walk(fl_arena_t *a, const sql_resolver_t *r, sql_plan_t *p) {
  for (uint32_t i = 0; i < p->ninputs; i++) walk(a, r, p->inputs[i]);
  if (p->kind == SQL_P_FILTER) p->u.filter.pred = factor(a, r, p->u.filter.pred);
  if (p->kind == SQL_P_JOIN && !p->u.join.split) p->u.join.cond = factor(a, r, p->u.join.cond);
}

int sql_opt_or(fl_arena_t *a, const struct sql_resolver *r, sql_plan_t *p, fl_err_t *err) {
  (void)err;
  walk(a, r, p);
  return FL_OK;
}
