/*
 * ex_expr.c - compiling and evaluating bound expressions (layer 8, exec).
 * See ex_expr.h for the contract; this file holds the node kinds' run-time
 * forms. Each node evaluates its arguments first (or lazily, for AND, OR,
 * CASE and COALESCE) and writes its own result vector; column references
 * hand out the batch's vector itself, constants their one-row vector.
 */
#include "exec/ex_expr.h"

#include <string.h>

#include "exec/ex_cast.h"
#include "exec/ex_cond.h"
#include "exec/ex_lambda.h"
#include "exec/ex_plan.h"

_Static_assert((int)EX_UNKNOWN == (int)SQL_DT_UNKNOWN && (int)EX_DECIMAL == (int)SQL_DT_DECIMAL &&
                   (int)EX_TIMESTAMPTZ == (int)SQL_DT_TIMESTAMPTZ &&
                   (int)EX_ARRAY == (int)SQL_DT_ARRAY && (int)EX_JSON == (int)SQL_DT_JSON,
               "sql_dkind_t and ex_tkind_t list the same types in the same order");

struct ex_expr {
  sql_bx_kind_t kind;
  ex_type_t type;
  const ty_type_t *storage;
  uint32_t col;
  bool is_const;
  ty_vec_t *out; /* result (nrows slots), or the constant */
  ex_call_t *call;
  ex_lambda_t *lambda; /* CALL of transform, filter, ... with a body */
  ex_call_t *logic;    /* AND / OR: the truth-table kernel */
  ex_type_t from;      /* CAST */
  bool try_;
  ex_expr_t **args;
  uint32_t nargs;
  const ty_vec_t **argv;
  /* IN (subquery): one one-row vector per value, "=" and the OR kernel */
  ty_vec_t **cands;
  uint32_t ncands;
  ex_call_t *eq;
  ty_vec_t *tmp, *acc2;
  /* lazy forms: selection scratch */
  uint32_t *rows_a, *rows_b, *rows_c;
  uint8_t *which;
  uint32_t cap;
  /* A common subexpression (ex_cse_t): its result is kept for the batch
   * of epoch memo_at and handed out again while *epoch stays there. */
  const uint64_t *epoch;
  uint64_t memo_at;
  const ty_vec_t *memo;
  /* AND: its conjuncts (nested ANDs flattened), cheapest first, for
   * ex_expr_select. */
  ex_expr_t **conj;
  uint32_t nconj;
};

struct ex_cse {
  const sql_bexpr_t **src;
  ex_expr_t **node;
  uint32_t n, cap;
  uint64_t epoch;
};

ex_cse_t *ex_cse_new(ex_ctx_t *ctx) { return fl_arena_zalloc(ctx->arena, sizeof(ex_cse_t)); }

void ex_cse_next_batch(ex_cse_t *cse) { cse->epoch++; }

ex_type_t ex_type_of(const sql_dtype_t *t, fl_arena_t *a) {
  ex_type_t r = {.kind = (ex_tkind_t)t->kind, .precision = t->precision, .scale = t->scale};
  if ((t->kind == SQL_DT_ARRAY || t->kind == SQL_DT_MAP) && t->elem) {
    ex_type_t *e = fl_arena_alloc(a, sizeof *e);
    *e = ex_type_of(t->elem, a);
    r.elem = e;
  }
  if (t->kind == SQL_DT_MAP && t->key) {
    ex_type_t *k = fl_arena_alloc(a, sizeof *k);
    *k = ex_type_of(t->key, a);
    r.key = k;
  }
  if (t->kind == SQL_DT_ROW) {
    ex_tfield_t *f = fl_arena_zalloc(a, (t->nfields ? t->nfields : 1) * sizeof *f);
    for (uint32_t i = 0; i < t->nfields; i++) {
      f[i].name = t->fields[i].name;
      f[i].type = ex_type_of(&t->fields[i].type, a);
    }
    r.fields = f;
    r.nfields = t->nfields;
  }
  return r;
}

sql_dtype_t ex_dtype_of(const ex_type_t *t, fl_arena_t *a) {
  sql_dtype_t r = {.kind = (sql_dkind_t)t->kind, .precision = t->precision, .scale = t->scale};
  if ((t->kind == EX_ARRAY || t->kind == EX_MAP) && t->elem) {
    sql_dtype_t *e = fl_arena_alloc(a, sizeof *e);
    *e = ex_dtype_of(t->elem, a);
    r.elem = e;
  }
  if (t->kind == EX_MAP && t->key) {
    sql_dtype_t *k = fl_arena_alloc(a, sizeof *k);
    *k = ex_dtype_of(t->key, a);
    r.key = k;
  }
  if (t->kind == EX_ROW) {
    sql_dfield_t *f = fl_arena_zalloc(a, (t->nfields ? t->nfields : 1) * sizeof *f);
    for (uint32_t i = 0; i < t->nfields; i++) {
      f[i].name = t->fields[i].name;
      f[i].type = ex_dtype_of(&t->fields[i].type, a);
    }
    r.fields = f;
    r.nfields = t->nfields;
  }
  return r;
}

static void vec_cleanup(void *v) { ty_vec_free(v); }

static ty_vec_t *vec_new(ex_ctx_t *ctx, const ty_type_t *t, uint32_t cap) {
  ty_vec_t *v = ty_vec_new(t, cap);
  fl_arena_on_reset(ctx->arena, vec_cleanup, v);
  return v;
}

ty_vec_t *ex_const_vec(ex_ctx_t *ctx, const sql_const_t *c, const ex_type_t *t, fl_err_t *err) {
  const ty_type_t *st = ex_type_storage(t, ctx->arena);
  ty_vec_t *v = vec_new(ctx, st, 1);
  if (c->null || t->kind == EX_UNKNOWN) {
    ty_vec_append_null(v);
    return v;
  }
  switch (t->kind) {
    case EX_BOOLEAN: ty_vec_append_bool(v, c->b); break;
    case EX_TINYINT:
    case EX_SMALLINT:
    case EX_INTEGER: ty_vec_append_i32(v, (int32_t)c->i); break;
    case EX_BIGINT:
    case EX_INTERVAL_DS: ty_vec_append_i64(v, c->i); break;
    case EX_INTERVAL_YM: ty_vec_append_i32(v, (int32_t)c->i); break;
    case EX_DOUBLE: ty_vec_append_f64(v, c->d); break;
    case EX_VARCHAR: ty_vec_append_bytes(v, c->s, c->len); break;
    default: fl_err_set(err, FL_EINTERNAL, "no literal of type %s", ex_type_str(t)); return NULL;
  }
  return v;
}

static void ensure_scratch(ex_ctx_t *ctx, ex_expr_t *x, uint32_t nrows) {
  if (nrows <= x->cap) return;
  uint32_t cap = nrows < TY_BATCH_ROWS ? TY_BATCH_ROWS : nrows;
  x->rows_a = fl_arena_alloc(ctx->arena, cap * sizeof(uint32_t));
  x->rows_b = fl_arena_alloc(ctx->arena, cap * sizeof(uint32_t));
  x->rows_c = fl_arena_alloc(ctx->arena, cap * sizeof(uint32_t));
  x->which = fl_arena_alloc(ctx->arena, cap);
  x->cap = cap;
}

static int compile(ex_ctx_t *ctx, const sql_bexpr_t *e, const ty_schema_t *in, ex_cse_t *cse,
                   ex_expr_t **out, fl_err_t *err);

static bool deterministic(const ex_expr_t *x) {
  if (x->call && (x->call->r.fn->flags & EX_FN_NONDET)) return false;
  for (uint32_t i = 0; i < x->nargs; i++)
    if (!deterministic(x->args[i])) return false;
  return true;
}

/* Evaluates a column-free expression once; on failure it stays as it is. */
static void fold(ex_ctx_t *ctx, ex_expr_t *x) {
  if (x->is_const || x->kind == SQL_BX_COL || !deterministic(x)) return;
  /* Children fold first, so a node folds when all its arguments did. */
  for (uint32_t i = 0; i < x->nargs; i++)
    if (!x->args[i]->is_const) return;
  ty_batch_t empty = {.nrows = 1};
  ex_rows_t rows = {.nrows = 1, .n = 1};
  const ty_vec_t *v;
  fl_err_t e2;
  fl_err_clear(&e2);
  if (ex_expr_eval(ctx, x, &empty, &rows, &v, &e2) != FL_OK) return;
  ty_vec_t *c = vec_new(ctx, x->storage, 1);
  ty_vec_append_from(c, v, 0);
  x->out = c;
  x->is_const = true;
  x->nargs = 0;
}

/* Runs an uncorrelated subquery to its end; *vals gets its one column. */
/*
 * A query with several lanes compiles each expression once per lane; the
 * values of an uncorrelated subquery are the same for all of them, so the
 * first compile runs it and the others take its vector (read-only from
 * then on). Keyed by the bound plan, which every lane's expression shares.
 */
struct ex_subq_cache {
  fl_arena_t *arena;
  uint32_t threads; /* the query's, which its subqueries run with too */
  const sql_plan_t **plans;
  ty_vec_t **vals;
  uint32_t n, cap;
};

ex_subq_cache_t *ex_subq_cache_new(fl_arena_t *a, uint32_t threads) {
  ex_subq_cache_t *c = fl_arena_zalloc(a, sizeof *c);
  c->arena = a;
  c->threads = threads;
  return c;
}

static ty_vec_t *subq_find(const ex_subq_cache_t *c, const sql_plan_t *plan,
                           const ty_type_t *storage) {
  for (uint32_t i = 0; c && i < c->n; i++)
    if (c->plans[i] == plan && ty_type_equal(c->vals[i]->type, storage)) return c->vals[i];
  return NULL;
}

static void subq_add(ex_subq_cache_t *c, const sql_plan_t *plan, ty_vec_t *v) {
  if (c->n == c->cap) {
    uint32_t cap = c->cap ? 2 * c->cap : 4;
    const sql_plan_t **plans = fl_arena_alloc(c->arena, cap * sizeof *plans);
    ty_vec_t **vals = fl_arena_alloc(c->arena, cap * sizeof *vals);
    if (c->n) {
      memcpy(plans, c->plans, c->n * sizeof *plans);
      memcpy(vals, c->vals, c->n * sizeof *vals);
    }
    c->plans = plans;
    c->vals = vals;
    c->cap = cap;
  }
  c->plans[c->n] = plan;
  c->vals[c->n++] = v;
}

static int run_subquery(ex_ctx_t *ctx, sql_plan_t *plan, const ty_type_t *storage, ty_vec_t **vals,
                        fl_err_t *err) {
  const sql_plan_t *key = plan;
  ty_vec_t *hit = subq_find(ctx->subqs, key, storage);
  if (hit) {
    *vals = hit;
    return FL_OK;
  }
  sql_resolver_t res;
  ex_sql_resolver(&res, ctx->arena);
  int rc = sql_optimize(ctx->arena, &res, &plan, err);
  if (rc) return rc;
  ex_query_opts_t o = {
      .zone = ctx->zone, .now_us = ctx->now_us, .threads = ctx->subqs ? ctx->subqs->threads : 0};
  ex_query_t *q;
  if ((rc = ex_query_new(ctx->arena, plan, &o, &q, err))) return rc;
  if ((rc = ex_query_run(q, err))) {
    ex_query_free(q);
    return rc;
  }
  const ex_sink_t *sink = ex_query_sink(q);
  ty_vec_t *v = vec_new(ctx, storage, sink->rows ? (uint32_t)sink->rows : 1);
  for (uint32_t i = 0; i < sink->nbatches; i++) {
    const ty_batch_t *b = sink->batches[i];
    for (uint32_t r = 0; r < b->nrows; r++) ty_vec_append_from(v, b->cols[0], r);
  }
  ex_query_free(q);
  if (ctx->subqs) subq_add(ctx->subqs, key, v);
  *vals = v;
  return FL_OK;
}

/* Whether the arguments of a node of this kind are evaluated on every row
 * of the node's rows (not lazily on some, as AND, OR, CASE, COALESCE do). */
static bool eager(sql_bx_kind_t k) {
  return k == SQL_BX_CALL || k == SQL_BX_CAST || k == SQL_BX_FIELD;
}

static int compile_node(ex_ctx_t *ctx, const sql_bexpr_t *e, const ty_schema_t *in, ex_cse_t *cse,
                        ex_expr_t **out, fl_err_t *err);

/*
 * With cse, a call or cast equal to one compiled before is that node
 * again, evaluated once per batch. Only nodes evaluated eagerly on the
 * whole batch take part: every evaluation of a shared node in a batch
 * then has the same rows, so the kept result is the right one.
 */
static int compile(ex_ctx_t *ctx, const sql_bexpr_t *e, const ty_schema_t *in, ex_cse_t *cse,
                   ex_expr_t **out, fl_err_t *err) {
  bool share = cse && (e->kind == SQL_BX_CALL || e->kind == SQL_BX_CAST);
  if (share)
    for (uint32_t i = 0; i < cse->n; i++)
      if (sql_bexpr_equal(cse->src[i], e)) {
        ex_expr_t *x = cse->node[i];
        x->epoch = &cse->epoch;
        *out = x;
        return FL_OK;
      }
  int rc = compile_node(ctx, e, in, cse, out, err);
  if (rc || !share || (*out)->is_const || !deterministic(*out)) return rc;
  if (cse->n == cse->cap) {
    uint32_t nc = cse->cap ? 2 * cse->cap : 8;
    const sql_bexpr_t **src = fl_arena_alloc(ctx->arena, nc * sizeof *src);
    ex_expr_t **node = fl_arena_alloc(ctx->arena, nc * sizeof *node);
    if (cse->n) {
      memcpy(src, cse->src, cse->n * sizeof *src);
      memcpy(node, cse->node, cse->n * sizeof *node);
    }
    cse->src = src;
    cse->node = node;
    cse->cap = nc;
  }
  cse->src[cse->n] = e;
  cse->node[cse->n++] = *out;
  return FL_OK;
}

static int compile_node(ex_ctx_t *ctx, const sql_bexpr_t *e, const ty_schema_t *in, ex_cse_t *cse,
                        ex_expr_t **out, fl_err_t *err) {
  ex_expr_t *x = fl_arena_zalloc(ctx->arena, sizeof *x);
  x->kind = e->kind;
  x->type = ex_type_of(&e->type, ctx->arena);
  x->storage = ex_type_storage(&x->type, ctx->arena);
  x->nargs = e->nargs;
  int rc;
  if (e->nargs) {
    x->args = fl_arena_zalloc(ctx->arena, e->nargs * sizeof *x->args);
    x->argv = fl_arena_zalloc(ctx->arena, e->nargs * sizeof *x->argv);
    for (uint32_t i = 0; i < e->nargs; i++)
      if ((rc = compile(ctx, e->args[i], in, eager(e->kind) ? cse : NULL, &x->args[i], err)))
        return rc;
  }
  switch (e->kind) {
    case SQL_BX_COL:
      if (!in || e->col >= in->root.nfields)
        return fl_err_set(err, FL_EINTERNAL, "column $%u outside the input", e->col);
      x->col = e->col;
      break;
    case SQL_BX_FIELD:
      if (x->args[0]->storage->kind != TY_STRUCT || e->col >= x->args[0]->storage->nfields)
        return fl_err_set(err, FL_EINTERNAL, "field %u of a value that has no such field", e->col);
      x->col = e->col;
      break;
    case SQL_BX_CONST:
      if (!(x->out = ex_const_vec(ctx, &e->c, &x->type, err))) return err->code;
      x->is_const = true;
      break;
    case SQL_BX_CALL: {
      if (e->body) {
        const ty_type_t **st = fl_arena_zalloc(ctx->arena, e->nargs * sizeof *st);
        for (uint32_t i = 0; i < e->nargs; i++) st[i] = x->args[i]->storage;
        if ((rc = ex__lambda_compile(ctx, e->fn, e->body, e->body2, st, e->nargs, &x->lambda, err)))
          return rc;
        x->out = vec_new(ctx, x->storage, TY_BATCH_ROWS);
        break;
      }
      ex_resolved_t r = {.fn = e->impl, .nargs = e->nargs, .ret = x->type};
      const ty_vec_t **consts = fl_arena_zalloc(ctx->arena, (e->nargs + 1) * sizeof *consts);
      for (uint32_t i = 0; i < e->nargs; i++) {
        r.args[i] = x->args[i]->type;
        consts[i] = x->args[i]->is_const ? x->args[i]->out : NULL;
      }
      if ((rc = ex_call_init(ctx, &r, consts, &x->call, err))) return rc;
      x->out = vec_new(ctx, x->storage, TY_BATCH_ROWS);
      break;
    }
    case SQL_BX_CAST:
      x->from = x->args[0]->type;
      x->try_ = e->try_;
      if ((rc = ex_cast_check(&x->from, &x->type, err))) return rc;
      x->out = vec_new(ctx, x->storage, TY_BATCH_ROWS);
      break;
    case SQL_BX_AND:
    case SQL_BX_OR: {
      ex_type_t bt[2] = {ex_type(EX_BOOLEAN), ex_type(EX_BOOLEAN)};
      ex_resolved_t r;
      if ((rc = ex_func_resolve(e->kind == SQL_BX_AND ? "and" : "or", bt, 2, &r, err)) ||
          (rc = ex_call_init(ctx, &r, NULL, &x->logic, err)))
        return rc;
      x->out = vec_new(ctx, x->storage, TY_BATCH_ROWS);
      /* Three or more operands fold pairwise: the running result and the
       * next one's go to alternate vectors (a kernel must not read the
       * vector it writes). */
      if (e->nargs > 2) x->acc2 = vec_new(ctx, x->storage, TY_BATCH_ROWS);
      break;
    }
    case SQL_BX_CASE:
    case SQL_BX_COALESCE:
      if ((e->kind == SQL_BX_CASE ? (e->nargs - 1) / 2 + 1 : e->nargs) > 254)
        return fl_err_set(err, FL_ELIMIT, "line %u, column %u: too many branches (at most 254)",
                          e->pos.line, e->pos.col);
      x->out = vec_new(ctx, x->storage, TY_BATCH_ROWS);
      break;
    case SQL_BX_SUBQUERY: {
      ty_vec_t *v;
      if ((rc = run_subquery(ctx, e->plan, x->storage, &v, err))) return rc;
      if (v->len > 1)
        return fl_err_set(err, FL_EINVALID,
                          "line %u, column %u: Scalar sub-query has returned multiple rows",
                          e->pos.line, e->pos.col);
      if (v->len == 0) ty_vec_append_null(v);
      x->out = v;
      x->is_const = true;
      break;
    }
    case SQL_BX_IN_QUERY: {
      ty_vec_t *v;
      const ex_type_t *at = &x->args[0]->type;
      if ((rc = run_subquery(ctx, e->plan, x->args[0]->storage, &v, err))) return rc;
      ex_type_t eqt[2] = {*at, *at}, bt[2] = {ex_type(EX_BOOLEAN), ex_type(EX_BOOLEAN)};
      ex_resolved_t r;
      if ((rc = ex_func_resolve("=", eqt, 2, &r, err)) ||
          (rc = ex_call_init(ctx, &r, NULL, &x->eq, err)) ||
          (rc = ex_func_resolve("or", bt, 2, &r, err)) ||
          (rc = ex_call_init(ctx, &r, NULL, &x->logic, err)))
        return rc;
      x->ncands = v->len;
      x->cands = fl_arena_zalloc(ctx->arena, (v->len ? v->len : 1) * sizeof *x->cands);
      for (uint32_t i = 0; i < v->len; i++) {
        x->cands[i] = vec_new(ctx, v->type, 1);
        ty_vec_append_from(x->cands[i], v, i);
      }
      x->out = vec_new(ctx, x->storage, TY_BATCH_ROWS);
      x->acc2 = vec_new(ctx, x->storage, TY_BATCH_ROWS);
      x->tmp = vec_new(ctx, x->storage, TY_BATCH_ROWS);
      break;
      case SQL_BX_OUTER:
        return fl_err_set(err, FL_EINTERNAL, "a correlated reference outside its subquery");
    }
  }
  fold(ctx, x);
  *out = x;
  return FL_OK;
}

/* A rough relative cost per row of evaluating x: fixed-width work is
 * cheap, strings and other functions dearer. */
static uint32_t cost(const ex_expr_t *x) {
  if (x->is_const || x->kind == SQL_BX_COL) return 0;
  uint32_t c = 1;
  if (x->storage->kind == TY_STRING || x->storage->kind == TY_BINARY) c += 3;
  for (uint32_t i = 0; i < x->nargs; i++) {
    const ex_expr_t *a = x->args[i];
    c += cost(a);
    if (a->kind == SQL_BX_COL && !ty_value_width(a->storage)) c += 3;
    if (a->kind == SQL_BX_COL) c += 1;
  }
  if (x->kind == SQL_BX_CALL && x->call && x->call->r.fn->kernel) {
    const char *n = x->call->r.fn->name;
    bool cmp = !strcmp(n, "=") || !strcmp(n, "<") || !strcmp(n, "<=") || !strcmp(n, ">") ||
               !strcmp(n, ">=") || !strcmp(n, "<>") || !strcmp(n, "between");
    if (!cmp) c += 4;
  }
  return c;
}

static void add_conjuncts(ex_ctx_t *ctx, ex_expr_t *x, ex_expr_t ***v, uint32_t *n, uint32_t *cap) {
  for (uint32_t i = 0; i < x->nargs; i++) {
    ex_expr_t *a = x->args[i];
    if (a->kind == SQL_BX_AND && !a->is_const && !a->epoch) {
      add_conjuncts(ctx, a, v, n, cap);
      continue;
    }
    if (*n == *cap) {
      uint32_t nc = *cap ? 2 * *cap : 8;
      ex_expr_t **w = fl_arena_alloc(ctx->arena, nc * sizeof *w);
      if (*n) memcpy(w, *v, *n * sizeof *w);
      *v = w;
      *cap = nc;
    }
    (*v)[(*n)++] = a;
  }
}

/* Orders the conjuncts of every AND below x for ex_expr_select. */
static void order_conjuncts(ex_ctx_t *ctx, ex_expr_t *x) {
  for (uint32_t i = 0; i < x->nargs; i++) order_conjuncts(ctx, x->args[i]);
  if (x->kind != SQL_BX_AND || x->is_const || x->conj) return;
  uint32_t n = 0, cap = 0;
  ex_expr_t **v = NULL;
  add_conjuncts(ctx, x, &v, &n, &cap);
  /* Insertion sort by cost, stable: equal costs keep the query's order. */
  for (uint32_t i = 1; i < n; i++) {
    ex_expr_t *t = v[i];
    uint32_t ct = cost(t), j = i;
    for (; j > 0 && cost(v[j - 1]) > ct; j--) v[j] = v[j - 1];
    v[j] = t;
  }
  x->conj = v;
  x->nconj = n;
}

int ex_expr_compile_pred(ex_ctx_t *ctx, const sql_bexpr_t *e, const ty_schema_t *in,
                         ex_expr_t **out, fl_err_t *err) {
  int rc = compile(ctx, e, in, NULL, out, err);
  if (rc == FL_OK) order_conjuncts(ctx, *out);
  return rc;
}

int ex_expr_compile(ex_ctx_t *ctx, const sql_bexpr_t *e, const ty_schema_t *in, ex_expr_t **out,
                    fl_err_t *err) {
  return compile(ctx, e, in, NULL, out, err);
}

int ex_expr_compile_cse(ex_ctx_t *ctx, const sql_bexpr_t *e, const ty_schema_t *in, ex_cse_t *cse,
                        ex_expr_t **out, fl_err_t *err) {
  return compile(ctx, e, in, cse, out, err);
}

const ex_type_t *ex_expr_type(const ex_expr_t *x) { return &x->type; }
const ty_type_t *ex_expr_storage(const ex_expr_t *x) { return x->storage; }
const ty_vec_t *ex_expr_const(const ex_expr_t *x) { return x->is_const ? x->out : NULL; }

/* AND / OR: the right side only where the left does not decide. */
static int eval_logic(ex_ctx_t *ctx, ex_expr_t *x, const ty_batch_t *b, const ex_rows_t *rows,
                      fl_err_t *err) {
  const uint8_t decisive = x->kind == SQL_BX_OR;
  ensure_scratch(ctx, x, rows->nrows);
  const ty_vec_t *acc;
  int rc = ex_expr_eval(ctx, x->args[0], b, rows, &acc, err);
  if (rc) return rc;
  for (uint32_t a = 1; a < x->nargs; a++) {
    uint32_t m = acc->len == 1 ? 0 : UINT32_MAX, n = 0;
    for (uint32_t k = 0; k < rows->n; k++) {
      uint32_t i = rows->sel ? rows->sel[k] : k;
      if (!(ty_vec_is_valid(acc, i & m) && acc->data[i & m] == decisive)) x->rows_a[n++] = i;
    }
    ex_rows_t rest = {.nrows = rows->nrows, .sel = x->rows_a, .n = n};
    const ty_vec_t *rv;
    if ((rc = ex_expr_eval(ctx, x->args[a], b, &rest, &rv, err))) return rc;
    const ty_vec_t *pair[2] = {acc, rv};
    ty_vec_t *dst = acc == x->out ? x->acc2 : x->out;
    if ((rc = ex_call_eval(ctx, x->logic, pair, rows, dst, err))) return rc;
    acc = dst;
  }
  if (acc != x->out) ty_vec_exchange(x->out, x->acc2);
  return FL_OK;
}

static int eval_case(ex_ctx_t *ctx, ex_expr_t *x, const ty_batch_t *b, const ex_rows_t *rows,
                     fl_err_t *err) {
  ensure_scratch(ctx, x, rows->nrows);
  uint32_t nw = (x->nargs - 1) / 2, nb = nw + 1;
  const ty_vec_t **br = x->argv;
  ex_cond_reset(x->which, rows->nrows);
  /* rows still undecided: starts as the input selection */
  uint32_t *cur = x->rows_a, *t = x->rows_b, *rest = x->rows_c;
  uint32_t ncur = rows->n;
  for (uint32_t k = 0; k < rows->n; k++) cur[k] = rows->sel ? rows->sel[k] : k;
  int rc;
  for (uint32_t w = 0; w < nw; w++) {
    ex_rows_t r = {.nrows = rows->nrows, .sel = cur, .n = ncur};
    const ty_vec_t *c;
    if ((rc = ex_expr_eval(ctx, x->args[2 * w], b, &r, &c, err))) return rc;
    uint32_t nt, nrest;
    ex_cond_split(c, &r, t, &nt, rest, &nrest);
    ex_rows_t tr = {.nrows = rows->nrows, .sel = t, .n = nt};
    if ((rc = ex_expr_eval(ctx, x->args[2 * w + 1], b, &tr, &br[w], err))) return rc;
    ex_cond_mark(x->which, t, nt, (uint8_t)w);
    uint32_t *tmp = cur;
    cur = rest;
    rest = tmp;
    ncur = nrest;
  }
  ex_rows_t er = {.nrows = rows->nrows, .sel = cur, .n = ncur};
  if ((rc = ex_expr_eval(ctx, x->args[x->nargs - 1], b, &er, &br[nw], err))) return rc;
  ex_cond_mark(x->which, cur, ncur, (uint8_t)nw);
  ex_cond_gather(x->out, br, nb, x->which, rows);
  return FL_OK;
}

static int eval_coalesce(ex_ctx_t *ctx, ex_expr_t *x, const ty_batch_t *b, const ex_rows_t *rows,
                         fl_err_t *err) {
  ensure_scratch(ctx, x, rows->nrows);
  ex_cond_reset(x->which, rows->nrows);
  uint32_t *cur = x->rows_a, *nulls = x->rows_b, *vals = x->rows_c;
  uint32_t ncur = rows->n;
  for (uint32_t k = 0; k < rows->n; k++) cur[k] = rows->sel ? rows->sel[k] : k;
  int rc;
  uint32_t a = 0;
  for (; a < x->nargs && ncur; a++) {
    ex_rows_t r = {.nrows = rows->nrows, .sel = cur, .n = ncur};
    if ((rc = ex_expr_eval(ctx, x->args[a], b, &r, &x->argv[a], err))) return rc;
    uint32_t nn, nv;
    ex_cond_split_null(x->argv[a], &r, nulls, &nn, vals, &nv);
    ex_cond_mark(x->which, vals, nv, (uint8_t)a);
    uint32_t *tmp = cur;
    cur = nulls;
    nulls = tmp;
    ncur = nn;
  }
  ex_cond_gather(x->out, x->argv, a, x->which, rows);
  return FL_OK;
}

/* x IN (values): OR over x = value, in three-valued logic; FALSE when
 * the subquery returned no rows. */
static int eval_in_query(ex_ctx_t *ctx, ex_expr_t *x, const ty_batch_t *b, const ex_rows_t *rows,
                         const ty_vec_t **res, fl_err_t *err) {
  const ty_vec_t *arg;
  int rc = ex_expr_eval(ctx, x->args[0], b, rows, &arg, err);
  if (rc) return rc;
  ty_vec_t *acc = x->out, *other = x->acc2;
  ty_vec_reset(acc);
  for (uint32_t i = 0; i < rows->nrows; i++) ty_vec_append_bool(acc, false);
  for (uint32_t j = 0; j < x->ncands; j++) {
    const ty_vec_t *eqa[2] = {arg, x->cands[j]};
    if ((rc = ex_call_eval(ctx, x->eq, eqa, rows, x->tmp, err))) return rc;
    const ty_vec_t *ora[2] = {acc, x->tmp};
    if ((rc = ex_call_eval(ctx, x->logic, ora, rows, other, err))) return rc;
    ty_vec_t *t = acc;
    acc = other;
    other = t;
  }
  *res = acc;
  return FL_OK;
}

static int eval_node(ex_ctx_t *ctx, ex_expr_t *x, const ty_batch_t *b, const ex_rows_t *rows,
                     const ty_vec_t **out, fl_err_t *err);

int ex_expr_eval(ex_ctx_t *ctx, ex_expr_t *x, const ty_batch_t *b, const ex_rows_t *rows,
                 const ty_vec_t **out, fl_err_t *err) {
  if (!x->epoch) return eval_node(ctx, x, b, rows, out, err);
  if (x->memo_at == *x->epoch) {
    *out = x->memo;
    return FL_OK;
  }
  int rc = eval_node(ctx, x, b, rows, out, err);
  if (rc) return rc;
  x->memo = *out;
  x->memo_at = *x->epoch;
  return FL_OK;
}

static int eval_node(ex_ctx_t *ctx, ex_expr_t *x, const ty_batch_t *b, const ex_rows_t *rows,
                     const ty_vec_t **out, fl_err_t *err) {
  if (x->is_const) {
    *out = x->out;
    return FL_OK;
  }
  int rc;
  switch (x->kind) {
    case SQL_BX_COL: *out = b->cols[x->col]; return FL_OK;
    case SQL_BX_CONST: *out = x->out; return FL_OK;
    case SQL_BX_OUTER:
      return fl_err_set(err, FL_EINTERNAL, "a correlated reference outside its subquery");
    case SQL_BX_CALL:
      for (uint32_t i = 0; i < x->nargs; i++)
        if ((rc = ex_expr_eval(ctx, x->args[i], b, rows, &x->argv[i], err))) return rc;
      if (x->lambda) {
        if ((rc = ex__lambda_eval(ctx, x->lambda, x->argv, rows, x->out, err))) return rc;
        break;
      }
      if ((rc = ex_call_eval(ctx, x->call, x->argv, rows, x->out, err))) return rc;
      break;
    case SQL_BX_CAST: {
      const ty_vec_t *in;
      if ((rc = ex_expr_eval(ctx, x->args[0], b, rows, &in, err))) return rc;
      if (in->len == 1 && rows->nrows != 1 && rows->n > 0) {
        /* A constant argument: cast its one value, broadcast by the caller. */
        ex_rows_t one = {.nrows = 1, .n = 1};
        if ((rc = ex_cast_eval(ctx, &x->from, &x->type, x->try_, in, &one, x->out, err))) return rc;
      } else if ((rc = ex_cast_eval(ctx, &x->from, &x->type, x->try_, in, rows, x->out, err))) {
        return rc;
      }
      break;
    }
    case SQL_BX_AND:
    case SQL_BX_OR:
      if ((rc = eval_logic(ctx, x, b, rows, err))) return rc;
      break;
    case SQL_BX_CASE:
      if ((rc = eval_case(ctx, x, b, rows, err))) return rc;
      break;
    case SQL_BX_COALESCE:
      if ((rc = eval_coalesce(ctx, x, b, rows, err))) return rc;
      break;
    case SQL_BX_SUBQUERY: *out = x->out; return FL_OK;
    case SQL_BX_IN_QUERY: return eval_in_query(ctx, x, b, rows, out, err);
    case SQL_BX_FIELD: {
      /* A row's fields are its child vectors, null wherever the row is. */
      const ty_vec_t *in;
      if ((rc = ex_expr_eval(ctx, x->args[0], b, rows, &in, err))) return rc;
      *out = in->children[x->col];
      return FL_OK;
    }
  }
  *out = x->out;
  return FL_OK;
}

int ex_expr_select(ex_ctx_t *ctx, ex_expr_t *x, const ty_batch_t *b, const ex_rows_t *rows,
                   uint32_t *sel, uint32_t *n, fl_err_t *err) {
  int rc;
  if (x->kind == SQL_BX_AND && !x->is_const) {
    /* TRUE only where every operand is TRUE: rows an operand does not
     * keep (FALSE or NULL) cannot come back, so later operands skip them. */
    ex_rows_t cur = *rows;
    uint32_t na = x->conj ? x->nconj : x->nargs;
    for (uint32_t a = 0; a < na; a++) {
      uint32_t m;
      ex_expr_t *arg = x->conj ? x->conj[a] : x->args[a];
      if ((rc = ex_expr_select(ctx, arg, b, &cur, sel, &m, err))) return rc;
      cur.sel = sel;
      cur.n = m;
      if (!m) break;
    }
    *n = cur.n;
    return FL_OK;
  }
  if (x->kind == SQL_BX_OR && !x->is_const) {
    /* TRUE where any operand is TRUE: each operand runs on the rows no
     * earlier one made TRUE, and the rows are marked, then collected in
     * their order. */
    ensure_scratch(ctx, x, rows->nrows);
    uint8_t *hit = x->which;
    for (uint32_t k = 0; k < rows->n; k++) hit[rows->sel ? rows->sel[k] : k] = 0;
    ex_rows_t rest = *rows;
    for (uint32_t a = 0; a < x->nargs && rest.n; a++) {
      uint32_t m;
      if ((rc = ex_expr_select(ctx, x->args[a], b, &rest, x->rows_c, &m, err))) return rc;
      if (!m) continue;
      for (uint32_t j = 0; j < m; j++) hit[x->rows_c[j]] = 1;
      uint32_t nr = 0;
      for (uint32_t k = 0; k < rest.n; k++) {
        uint32_t i = rest.sel ? rest.sel[k] : k;
        x->rows_b[nr] = i;
        nr += !hit[i];
      }
      rest.sel = x->rows_b;
      rest.n = nr;
    }
    uint32_t m = 0;
    for (uint32_t k = 0; k < rows->n; k++) {
      uint32_t i = rows->sel ? rows->sel[k] : k;
      sel[m] = i;
      m += hit[i];
    }
    *n = m;
    return FL_OK;
  }
  const ty_vec_t *v;
  if ((rc = ex_expr_eval(ctx, x, b, rows, &v, err))) return rc;
  uint32_t m = 0;
  if (v->len == 1 && rows->nrows != 1) {
    /* A constant: all rows or none. */
    if (ty_vec_is_valid(v, 0) && v->data[0])
      for (uint32_t k = 0; k < rows->n; k++) sel[m++] = rows->sel ? rows->sel[k] : k;
    *n = m;
    return FL_OK;
  }
  const uint8_t *d = v->data;
  if (v->null_count == 0) {
    if (rows->sel) {
      for (uint32_t k = 0; k < rows->n; k++) {
        uint32_t i = rows->sel[k];
        sel[m] = i;
        m += d[i] != 0;
      }
    } else {
      for (uint32_t i = 0; i < rows->n; i++) {
        sel[m] = i;
        m += d[i] != 0;
      }
    }
  } else {
    for (uint32_t k = 0; k < rows->n; k++) {
      uint32_t i = rows->sel ? rows->sel[k] : k;
      if (ty_vec_is_valid(v, i) && d[i]) sel[m++] = i;
    }
  }
  *n = m;
  return FL_OK;
}
