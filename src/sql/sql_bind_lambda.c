/*
 * sql_bind_lambda.c - binding the array functions that take a lambda
 * (layer 7, sql): transform(a, x -> f(x)), filter(a, x -> p(x)),
 * any_match, all_match, none_match and reduce (Trino's).
 *
 * The body is bound in a scope of the lambda's parameter followed by the
 * query's columns, so it may name both (x -> x + t.k). The columns it
 * names become the call's captured arguments (args[1..], ordinary
 * expressions the optimizer sees and renumbers), and the body reads them
 * as columns 1.. of a batch of the array's elements, which the executor
 * builds (exec/ex_lambda.c).
 */
#include <string.h>
#include <strings.h>

#include "sql/sql_bind_int.h"

typedef struct captures {
  uint32_t outer[SQL_MAX_ARGS]; /* the query column of each capture */
  uint32_t n;
} captures_t;

/* Renumbers the body's query columns (index >= base, the parameters
 * before) to captures, read as columns base + k. */
static int renumber(sql_binder_t *b, sql_bexpr_t *e, captures_t *c, uint32_t base, sql_pos_t pos) {
  if (!e) return FL_OK;
  if (e->kind == SQL_BX_OUTER || e->kind == SQL_BX_SUBQUERY || e->kind == SQL_BX_IN_QUERY)
    return sql__errf(b, e->pos, FL_EUNSUPPORTED,
                     "Subqueries and outer references inside a lambda are not supported");
  if (e->kind == SQL_BX_COL && e->col >= base) {
    uint32_t q = e->col - base, k = 0;
    while (k < c->n && c->outer[k] != q) k++;
    if (k == c->n) {
      if (c->n + 1 >= SQL_MAX_ARGS)
        return sql__errf(b, pos, FL_ELIMIT, "A lambda captures at most %d columns",
                         SQL_MAX_ARGS - 2);
      c->outer[c->n++] = q;
    }
    e->col = base + k;
  }
  for (uint32_t i = 0; i < e->nargs; i++) {
    int rc = renumber(b, e->args[i], c, base, pos);
    if (rc) return rc;
  }
  /* A nested lambda's body keeps its own numbering. */
  return FL_OK;
}

/* A scope of the parameters (names and types) followed by the query's. */
static sql_scope_t lambda_scope(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *lam,
                                const sql_dtype_t *types, uint32_t np) {
  const sql_scope_t *qs = cx->scope;
  uint32_t nq = qs ? qs->n : 0;
  sql_scope_t ls = {.n = nq + np};
  ls.cols = fl_arena_zalloc(b->a, (nq + np) * sizeof *ls.cols);
  for (uint32_t i = 0; i < np; i++) {
    const char *name = i < lam->u.lambda.params.n ? lam->u.lambda.params.items[i].name : "$unused";
    ls.cols[i] = (sql_scope_col_t){.name = name, .type = types[i]};
  }
  if (nq) memcpy(ls.cols + np, qs->cols, nq * sizeof *ls.cols);
  return ls;
}

/* reduce(a, s0, (s, x) -> f, s -> g): f folds the elements into the
 * state from s0, g makes the result. */
static int bind_reduce(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x, sql_bexpr_t *arr,
                       sql_bexpr_t **out) {
  const sql_call_t *c = &x->u.call;
  const sql_expr_t *in = c->args.items[2], *fin = c->args.items[3];
  if (fin->kind != SQL_E_LAMBDA || in->u.lambda.params.n != 2 || fin->u.lambda.params.n != 1)
    return sql__errf(b, x->pos, FL_EINVALID,
                     "reduce takes an array, a start value, a lambda (s, x) -> ... and a lambda "
                     "s -> ...");
  sql_bexpr_t *init;
  int rc = sql__bind_expr(b, cx, c->args.items[1], &init);
  if (rc) return rc;
  sql_dtype_t types[2] = {init->type, *arr->type.elem};
  sql_scope_t ls = lambda_scope(b, cx, in, types, 2);
  sql_ectx_t lx = {.scope = &ls, .clause = cx->clause, .quiet = cx->quiet};
  sql_bexpr_t *body, *body2;
  if ((rc = sql__bind_expr(b, &lx, in->u.lambda.body, &body))) return rc;
  /* The state keeps one type: the start value's, or the body's when the
   * start value coerces to it (reduce(a, 0, (s, x) -> s + x * 1.5, ...)). */
  if (!sql_dtype_equal(&body->type, &init->type)) {
    sql_dtype_t common;
    if (!b->o->resolver->common(b->o->resolver->ctx, &init->type, &body->type, &common) ||
        !sql_dtype_equal(&common, &body->type))
      return sql__errf(b, in->pos, FL_EINVALID,
                       "The lambda of reduce returns %s; the start value is %s",
                       sql_dtype_str(&body->type), sql_dtype_str(&init->type));
    if ((rc = sql__coerce(b, init, &body->type, &init))) return rc;
    types[0] = init->type;
    ls = lambda_scope(b, cx, in, types, 2);
    lx.scope = &ls;
    if ((rc = sql__bind_expr(b, &lx, in->u.lambda.body, &body))) return rc;
    if (!sql_dtype_equal(&body->type, &init->type) &&
        (rc = sql__coerce(b, body, &init->type, &body)))
      return rc;
  }
  sql_scope_t ls2 = lambda_scope(b, cx, fin, types, 2);
  sql_ectx_t lx2 = {.scope = &ls2, .clause = cx->clause, .quiet = cx->quiet};
  if ((rc = sql__bind_expr(b, &lx2, fin->u.lambda.body, &body2))) return rc;
  captures_t cap = {.n = 0};
  if ((rc = renumber(b, body, &cap, 2, in->pos)) || (rc = renumber(b, body2, &cap, 2, fin->pos)))
    return rc;
  sql_bexpr_t *e = fl_arena_zalloc(b->a, sizeof *e);
  e->kind = SQL_BX_CALL;
  e->pos = x->pos;
  e->fn = "reduce";
  e->body = body;
  e->body2 = body2;
  e->nargs = 2 + cap.n;
  e->args = fl_arena_zalloc(b->a, e->nargs * sizeof *e->args);
  e->args[0] = arr;
  e->args[1] = init;
  for (uint32_t k = 0; k < cap.n; k++)
    e->args[2 + k] = sql__col_ref(b, cap.outer[k], &cx->scope->cols[cap.outer[k]].type, x->pos);
  e->type = body2->type;
  *out = e;
  return FL_OK;
}

int sql__bind_lambda_call(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x,
                          const char *name, sql_bexpr_t **out) {
  const sql_call_t *c = &x->u.call;
  const sql_expr_t *lam = c->args.items[1];
  bool transform = !strcmp(name, "transform"), filter = !strcmp(name, "filter");
  bool match =
      !strcmp(name, "any_match") || !strcmp(name, "all_match") || !strcmp(name, "none_match");
  bool reduce = !strcmp(name, "reduce") && c->args.n == 4;
  if (!transform && !filter && !match && !reduce)
    return sql__errf(b, x->pos, FL_EUNSUPPORTED, "Function '%s' does not take a lambda", name);
  if (!reduce && (c->args.n != 2 || lam->u.lambda.params.n != 1))
    return sql__errf(b, lam->pos, FL_EINVALID, "%s takes a lambda of one parameter", name);
  sql_bexpr_t *arr;
  int rc = sql__bind_expr(b, cx, c->args.items[0], &arr);
  if (rc) return rc;
  if (arr->type.kind == SQL_DT_UNKNOWN) {
    sql_dtype_t *u = fl_arena_zalloc(b->a, sizeof *u);
    sql_dtype_t at = {.kind = SQL_DT_ARRAY, .elem = u};
    if ((rc = sql__coerce(b, arr, &at, &arr))) return rc;
  }
  if (arr->type.kind != SQL_DT_ARRAY || !arr->type.elem)
    return sql__errf(b, c->args.items[0]->pos, FL_EINVALID,
                     "Unexpected parameters (%s) for function %s: an array and a lambda",
                     sql_dtype_str(&arr->type), name);
  if (reduce) return bind_reduce(b, cx, x, arr, out);
  /* The scope: the parameter, then the query's columns. */
  const sql_scope_t *qs = cx->scope;
  sql_scope_t ls = lambda_scope(b, cx, lam, arr->type.elem, 1);
  sql_ectx_t lx = {.scope = &ls, .clause = cx->clause, .quiet = cx->quiet};
  sql_bexpr_t *body;
  if ((rc = sql__bind_expr(b, &lx, lam->u.lambda.body, &body))) return rc;
  if (filter || match) {
    if (body->type.kind != SQL_DT_BOOLEAN && body->type.kind != SQL_DT_UNKNOWN)
      return sql__errf(b, lam->pos, FL_EINVALID, "The lambda of %s must return a boolean, not %s",
                       name, sql_dtype_str(&body->type));
    sql_dtype_t bt = sql_dtype(SQL_DT_BOOLEAN);
    if ((rc = sql__coerce(b, body, &bt, &body))) return rc;
  }
  captures_t cap = {.n = 0};
  if ((rc = renumber(b, body, &cap, 1, lam->pos))) return rc;
  sql_bexpr_t *e = fl_arena_zalloc(b->a, sizeof *e);
  e->kind = SQL_BX_CALL;
  e->pos = x->pos;
  e->fn = fl_arena_strdup(b->a, name);
  e->body = body;
  e->nargs = 1 + cap.n;
  e->args = fl_arena_zalloc(b->a, e->nargs * sizeof *e->args);
  e->args[0] = arr;
  for (uint32_t k = 0; k < cap.n; k++)
    e->args[1 + k] = sql__col_ref(b, cap.outer[k], &qs->cols[cap.outer[k]].type, lam->pos);
  if (transform) {
    sql_dtype_t *el = fl_arena_zalloc(b->a, sizeof *el);
    *el = body->type;
    e->type = (sql_dtype_t){.kind = SQL_DT_ARRAY, .elem = el};
  } else if (filter) {
    e->type = arr->type;
  } else {
    e->type = sql_dtype(SQL_DT_BOOLEAN);
  }
  *out = e;
  return FL_OK;
}
