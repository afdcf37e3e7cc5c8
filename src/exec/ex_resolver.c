/*
 * ex_resolver.c - the binder's function resolver over the executor's
 * function registry, casts and aggregates (layer 8, exec). The binder
 * (layer 7) sees only sql_resolver_t; this is where its questions are
 * answered by the one function library.
 */
#include <string.h>

#include "exec/ex_agg.h"
#include "exec/ex_cast.h"
#include "exec/ex_plan.h"

static int r_scalar(void *ctx, const char *name, const sql_dtype_t *args, size_t n,
                    sql_fn_sig_t *out, fl_err_t *err) {
  fl_arena_t *a = ctx;
  ex_type_t et[EX_MAX_ARGS] = {{0}};
  if (n > EX_MAX_ARGS) return fl_err_set(err, FL_EINVALID, "too many arguments for %s", name);
  for (size_t i = 0; i < n; i++) et[i] = ex_type_of(&args[i], a);
  ex_resolved_t r;
  int rc = ex_func_resolve(name, et, n, &r, err);
  if (rc) return rc;
  out->impl = r.fn;
  for (size_t i = 0; i < n; i++) out->args[i] = ex_dtype_of(&r.args[i], a);
  out->ret = ex_dtype_of(&r.ret, a);
  return FL_OK;
}

static const char *const agg_names[] = {
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "any_value",
    "arbitrary",
    "bool_and",
    "every",
    "bool_or",
    "stddev",
    "stddev_samp",
    "stddev_pop",
    "variance",
    "var_samp",
    "var_pop",
    "approx_distinct",
    "approx_percentile",
    "array_agg",
};

static bool r_is_aggregate(void *ctx, const char *name) {
  for (size_t i = 0; i < sizeof agg_names / sizeof agg_names[0]; i++)
    if (!strcmp(agg_names[i], name)) return true;
  return false;
}

static int r_aggregate(void *ctx, const char *name, const sql_dtype_t *arg, bool distinct,
                       const double *params, uint32_t nparams, sql_dtype_t *ret, fl_err_t *err) {
  fl_arena_t *a = ctx;
  ex_type_t at = arg ? ex_type_of(arg, a) : ex_type(EX_UNKNOWN);
  const ty_type_t *st = arg ? ex_type_storage(&at, a) : NULL;
  ex_agg_t *g;
  int rc = ex_agg_bind(a, name, st, distinct, params, nparams, &g, err);
  if (rc) return rc;
  /* Where the aggregate keeps its argument's storage (min, max,
   * arbitrary), the result keeps the argument's SQL type too. */
  if (arg && st && ty_type_equal(g->out, st)) {
    *ret = *arg;
    return FL_OK;
  }
  ex_type_t rt;
  if ((rc = ex_type_from_storage_in(g->out, a, &rt, err))) return rc;
  *ret = ex_dtype_of(&rt, a);
  return FL_OK;
}

static int r_cast(void *ctx, const sql_dtype_t *from, const sql_dtype_t *to, fl_err_t *err) {
  fl_arena_t *a = ctx;
  ex_type_t f = ex_type_of(from, a), t = ex_type_of(to, a);
  return ex_cast_check(&f, &t, err);
}

static bool r_common(void *ctx, const sql_dtype_t *x, const sql_dtype_t *y, sql_dtype_t *out) {
  fl_arena_t *a = ctx;
  ex_type_t ex = ex_type_of(x, a), ey = ex_type_of(y, a), eo;
  if (!ex_type_common(&ex, &ey, &eo)) return false;
  *out = ex_dtype_of(&eo, a);
  return true;
}

static int r_from_storage(void *ctx, const ty_type_t *t, sql_dtype_t *out, fl_err_t *err) {
  /* fixed(L) columns are varbinary; scans hand them on as such
   * (ex_vec_adapt). */
  ex_type_t et;
  int rc = ex_type_from_storage_in(t, ctx, &et, err);
  if (rc) return rc;
  *out = ex_dtype_of(&et, ctx);
  return FL_OK;
}

static int r_fold(void *ctx, const sql_bexpr_t *e, sql_const_t *out, bool *as_text, fl_err_t *err) {
  fl_arena_t *a = ctx;
  ex_ctx_t ec;
  ex_ctx_init(&ec, a, NULL, -1);
  ex_expr_t *x;
  int rc = ex_expr_compile(&ec, e, NULL, &x, err);
  if (rc) return rc;
  const ty_vec_t *v = ex_expr_const(x);
  if (!v) return fl_err_set(err, FL_EINVALID, "not a constant");
  memset(out, 0, sizeof *out);
  *as_text = false;
  if (ty_vec_is_null(v, 0)) {
    out->null = true;
    return FL_OK;
  }
  const ex_type_t *t = ex_expr_type(x);
  switch (t->kind) {
    case EX_BOOLEAN: out->b = v->data[0] != 0; return FL_OK;
    case EX_TINYINT:
    case EX_SMALLINT:
    case EX_INTEGER: out->i = TY_VEC_DATA(v, int32_t)[0]; return FL_OK;
    case EX_BIGINT:
    case EX_INTERVAL_DS: out->i = TY_VEC_DATA(v, int64_t)[0]; return FL_OK;
    case EX_INTERVAL_YM: out->i = TY_VEC_DATA(v, int32_t)[0]; return FL_OK;
    case EX_DOUBLE: out->d = TY_VEC_DATA(v, double)[0]; return FL_OK;
    default: break;
  }
  /* Other types travel as their text under a CAST. */
  const ty_vec_t *tv = v;
  if (t->kind != EX_VARCHAR) {
    ex_type_t vc = ex_type(EX_VARCHAR);
    ty_vec_t *txt = ty_vec_new(ex_type_storage(&vc, a), 1);
    ex_rows_t one = {.nrows = 1, .n = 1};
    rc = ex_cast_eval(&ec, t, &vc, false, v, &one, txt, err);
    if (rc || ty_vec_is_null(txt, 0)) {
      ty_vec_free(txt);
      return rc ? rc : fl_err_set(err, FL_EINVALID, "no text form");
    }
    size_t n;
    const uint8_t *p = ty_vec_get_bytes(txt, 0, &n);
    out->s = fl_arena_strndup(a, (const char *)p, n);
    out->len = n;
    ty_vec_free(txt);
    *as_text = true;
    return FL_OK;
  }
  size_t n;
  const uint8_t *p = ty_vec_get_bytes(tv, 0, &n);
  out->s = fl_arena_strndup(a, (const char *)p, n);
  out->len = n;
  return FL_OK;
}

static bool r_nondeterministic(void *ctx, const void *impl) {
  (void)ctx;
  return impl && (((const ex_func_t *)impl)->flags & EX_FN_NONDET);
}

void ex_sql_resolver(sql_resolver_t *r, fl_arena_t *a) {
  *r = (sql_resolver_t){.ctx = a,
                        .scalar = r_scalar,
                        .is_aggregate = r_is_aggregate,
                        .aggregate = r_aggregate,
                        .cast = r_cast,
                        .common = r_common,
                        .fold = r_fold,
                        .nondeterministic = r_nondeterministic,
                        .from_storage = r_from_storage};
}
