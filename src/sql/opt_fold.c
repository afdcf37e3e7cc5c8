/*
 * opt_fold.c - constant folding (layer 7, sql).
 *
 * Every subexpression that reads no column, calls nothing
 * non-deterministic and runs no subquery is evaluated once, through the
 * resolver's evaluator (the executor's own kernels, so folding can never
 * disagree with execution), and replaced by its value. An evaluation that
 * fails (1 / 0) leaves the expression as it is, to fail only if a row
 * reaches it. Then, with constants in place:
 *   AND(FALSE, x) -> FALSE, AND(TRUE, x) and AND(x, TRUE) -> x,
 *   OR(TRUE, x) -> TRUE, OR(FALSE, x) and OR(x, FALSE) -> x;
 *   a Filter whose predicate is TRUE goes away;
 *   a Filter whose predicate is FALSE or NULL becomes an empty VALUES, so
 *   the scan below it is never read.
 * Folding runs before pushdown, so `id > 1 + 1` reaches the scan as
 * `id > 2`.
 */
#include <string.h>

#include "sql/sql_bind.h"

/* A literal, or a literal's text under a CAST (how folded decimals and
 * dates are written). */
static bool is_value(const sql_bexpr_t *e) {
  if (e->kind == SQL_BX_CONST) return true;
  return e->kind == SQL_BX_CAST && e->args[0]->kind == SQL_BX_CONST &&
         e->args[0]->type.kind == SQL_DT_VARCHAR;
}

static bool foldable_here(const sql_bexpr_t *e) {
  switch (e->kind) {
    case SQL_BX_COL:
    case SQL_BX_CONST:
    case SQL_BX_SUBQUERY:
    case SQL_BX_IN_QUERY: return false;
    case SQL_BX_CALL:
      /* current_date, now(): the executor evaluates those once per query. */
      if (e->nargs == 0) return false;
      break;
    default: break;
  }
  for (uint32_t i = 0; i < e->nargs; i++)
    if (!is_value(e->args[i])) return false;
  return true;
}

static bool is_bool(const sql_bexpr_t *e, bool v) {
  return e->kind == SQL_BX_CONST && e->type.kind == SQL_DT_BOOLEAN && !e->c.null && e->c.b == v;
}

static sql_bexpr_t *fold_expr(fl_arena_t *a, const sql_resolver_t *r, sql_bexpr_t *e) {
  if (e->nargs) {
    sql_bexpr_t **args = NULL;
    for (uint32_t i = 0; i < e->nargs; i++) {
      sql_bexpr_t *f = fold_expr(a, r, e->args[i]);
      if (f != e->args[i]) {
        if (!args) {
          args = fl_arena_alloc(a, e->nargs * sizeof *args);
          memcpy(args, e->args, e->nargs * sizeof *args);
        }
        args[i] = f;
      }
    }
    if (args) {
      /* Nodes may be shared between expressions: copy, never edit. */
      sql_bexpr_t *c = fl_arena_memdup(a, e, sizeof *e);
      c->args = args;
      e = c;
    }
  }
  if ((e->kind == SQL_BX_AND || e->kind == SQL_BX_OR) && e->nargs == 2) {
    bool decisive = e->kind == SQL_BX_OR;
    if (is_bool(e->args[0], decisive)) return e->args[0];
    if (is_bool(e->args[0], !decisive)) return e->args[1];
    if (is_bool(e->args[1], !decisive)) return e->args[0];
  }
  if (!foldable_here(e)) return e;
  sql_const_t c;
  bool as_text = false;
  fl_err_t err;
  fl_err_clear(&err);
  if (r->fold(r->ctx, e, &c, &as_text, &err) != FL_OK) return e;
  sql_bexpr_t *k = fl_arena_zalloc(a, sizeof *k);
  k->kind = SQL_BX_CONST;
  k->pos = e->pos;
  k->c = c;
  k->type = as_text ? sql_dtype(SQL_DT_VARCHAR) : e->type;
  if (!as_text) return k;
  sql_bexpr_t *cast = fl_arena_zalloc(a, sizeof *cast);
  cast->kind = SQL_BX_CAST;
  cast->pos = e->pos;
  cast->type = e->type;
  cast->nargs = 1;
  cast->args = fl_arena_alloc(a, sizeof *cast->args);
  cast->args[0] = k;
  return cast;
}

static sql_plan_t *fold_plan(fl_arena_t *a, const sql_resolver_t *r, sql_plan_t *p) {
  for (uint32_t i = 0; i < p->ninputs; i++) p->inputs[i] = fold_plan(a, r, p->inputs[i]);
  if (p->ninputs) p->in = p->inputs[0];
  switch (p->kind) {
    case SQL_P_PROJECT:
      for (uint32_t i = 0; i < p->ncols; i++)
        p->u.project.exprs[i] = fold_expr(a, r, p->u.project.exprs[i]);
      break;
    case SQL_P_FILTER: {
      sql_bexpr_t *pred = fold_expr(a, r, p->u.filter.pred);
      p->u.filter.pred = pred;
      if (is_bool(pred, true)) return p->in;
      if (pred->kind == SQL_BX_CONST && (pred->c.null || !pred->c.b)) {
        sql_plan_t *v = sql_plan_new(a, SQL_P_VALUES, NULL);
        v->cols = p->cols;
        v->ncols = p->ncols;
        v->u.values.nrows = 0;
        return v;
      }
      break;
    }
    default: break;
  }
  return p;
}

int sql_opt_fold(fl_arena_t *a, const struct sql_resolver *r, sql_plan_t **p, fl_err_t *err) {
  if (!r->fold) return FL_OK;
  *p = fold_plan(a, r, *p);
  return FL_OK;
}
