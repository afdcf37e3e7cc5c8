/*
 * ex_func_registry.c - the table of scalar function overloads, Trino's
 * overload resolution over it, and the call object that runs a kernel.
 *
 * The table is filled once (pthread_once) by the area files (arithmetic,
 * comparison, casts, math, strings, dates, conditionals); afterwards it is
 * read-only and shared by all threads.
 *
 * Resolution: for every overload of the name whose arity fits, each
 * argument's type must coerce implicitly to the parameter; the cost is the
 * sum of the coercion distances and the cheapest overload wins (the first
 * registered on a tie, so areas register the narrower overloads first).
 * Parameters of kind ANY are type variables: with EX_FN_UNIFY they all take
 * the common super type of their arguments; a parameter decimal(p,s) with
 * p = 0 accepts any decimal (and integers as decimal(3|5|10|19, 0)).
 */
#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <strings.h>

#include "base/time.h"
#include "exec/ex_cast.h"
#include "exec/ex_func_int.h"

static ex_func_t *g_funcs;
static size_t g_nfuncs, g_cap;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

void ex__reg(const ex_func_t *f) {
  if (g_nfuncs == g_cap) {
    g_cap = g_cap ? g_cap * 2 : 256;
    g_funcs = fl_realloc(g_funcs, g_cap * sizeof *g_funcs);
  }
  g_funcs[g_nfuncs++] = *f;
}

static void register_all(void) {
  ex__reg_arith();
  ex__reg_compare();
  ex__reg_logic();
  ex__reg_math();
  ex__reg_string();
  ex__reg_like();
  ex__reg_regexp();
  ex__reg_datetime();
  ex__reg_date_format();
  ex__reg_cond();
  ex__reg_array();
  ex__reg_map();
  ex__reg_typeof();
  ex__reg_json();
}

const ex_func_t *ex_func_list(size_t *n) {
  pthread_once(&g_once, register_all);
  *n = g_nfuncs;
  return g_funcs;
}

bool ex_func_exists(const char *name) {
  size_t n;
  const ex_func_t *fs = ex_func_list(&n);
  for (size_t i = 0; i < n; i++)
    if (strcasecmp(fs[i].name, name) == 0) return true;
  return false;
}

void ex_ctx_init(ex_ctx_t *ctx, fl_arena_t *arena, const fl_tz_t *zone, int64_t now_us) {
  ctx->arena = arena;
  ctx->now_us = now_us < 0 ? fl_now_micros() : now_us;
  ctx->zone = zone ? zone : fl_tz_utc();
  ctx->random_state = (uint64_t)ctx->now_us * 0x9E3779B97F4A7C15ULL | 1;
  ctx->subqs = NULL;
}

static ex_type_t int_as_decimal(const ex_type_t *t) {
  if (t->kind == EX_DECIMAL) return *t;
  if (t->kind == EX_UNKNOWN) return ex_type_decimal(1, 0);
  return ex_type_decimal(ex_type_int_digits(t->kind), 0);
}

/* Tries one overload; returns its cost or -1. */
static int try_overload(const ex_func_t *f, const ex_type_t *args, size_t n, ex_resolved_t *r) {
  if (f->flags & EX_FN_VARIADIC) {
    if (n < f->nparams) return -1;
  } else if (n != f->nparams) {
    return -1;
  }
  ex_type_t unified = ex_type(EX_UNKNOWN);
  if (f->flags & EX_FN_UNIFY) {
    for (size_t i = 0; i < n; i++) {
      const ex_type_t *p = &f->params[i < f->nparams ? i : f->nparams - 1];
      if (p->kind != EX_ANY) continue;
      if (!ex_type_common(&unified, &args[i], &unified)) return -1;
    }
    /* Every scalar type but json is orderable; arrays and rows are when
     * their elements are; maps are only comparable (= and <>). */
    if ((f->flags & EX_FN_ORDERABLE) &&
        !((f->flags & EX_FN_COMPARABLE) ? ex_type_comparable(&unified)
                                        : ex_type_orderable(&unified)))
      return -1;
  }
  int cost = 0;
  for (size_t i = 0; i < n; i++) {
    const ex_type_t *p = &f->params[i < f->nparams ? i : f->nparams - 1];
    const ex_type_t *a = &args[i];
    ex_type_t target;
    int c;
    if (p->kind == EX_ANY && (f->flags & EX_FN_ELEM) && i > 0) {
      /* contains(array(T), T) and the like: the element type. */
      if (args[0].kind == EX_ARRAY && args[0].elem)
        target = *args[0].elem;
      else if (args[0].kind == EX_MAP && args[0].key)
        target = *args[0].key;
      else
        return -1;
      if (target.kind == EX_UNKNOWN) target = *a;
      c = ex_type_coercion_cost(a, &target);
    } else if (p->kind == EX_ANY) {
      target = (f->flags & EX_FN_UNIFY) ? unified : *a;
      if ((f->flags & EX_FN_KEEP_DEC) && target.kind == EX_DECIMAL &&
          (a->kind == EX_DECIMAL || ex_type_is_integral(a->kind)))
        target = int_as_decimal(a);
      c = ex_type_coercion_cost(a, &target);
    } else if (p->kind == EX_DECIMAL && p->precision == 0) {
      if (a->kind != EX_DECIMAL && !ex_type_is_integral(a->kind) && a->kind != EX_UNKNOWN)
        return -1;
      target = int_as_decimal(a);
      c = ex_type_coercion_cost(a, &target);
    } else {
      target = *p;
      if (p->kind == EX_TIMESTAMPTZ && a->kind == EX_TIMESTAMPTZ) target.zone = a->zone;
      /* array without an element type: any array; else the same element type. */
      if (p->kind == EX_ARRAY && a->kind == EX_ARRAY &&
          (!p->elem || (a->elem && ex_type_equal(p->elem, a->elem))))
        target = *a;
      if (p->kind == EX_MAP && a->kind == EX_MAP) target = *a;
      c = ex_type_coercion_cost(a, &target);
    }
    if (c < 0) return -1;
    cost += c;
    r->args[i] = target;
  }
  r->fn = f;
  r->nargs = (uint32_t)n;
  if (f->ret_fn) return cost; /* computed by the caller, which has the error object */
  r->ret = f->ret.kind == EX_ANY ? unified : f->ret;
  /* A timestamp with time zone result shows in its argument's zone. */
  if (r->ret.kind == EX_TIMESTAMPTZ && !r->ret.zone)
    for (size_t i = 0; i < n; i++)
      if (r->args[i].kind == EX_TIMESTAMPTZ && r->args[i].zone) {
        r->ret.zone = r->args[i].zone;
        break;
      }
  return cost;
}

static void append_sig(fl_buf_t *b, const ex_func_t *f) {
  fl_buf_printf(b, "%s(", f->name);
  for (uint32_t i = 0; i < f->nparams; i++) {
    if (i) fl_buf_append_str(b, ", ");
    ex_type_format(&f->params[i], b);
  }
  if (f->flags & EX_FN_VARIADIC) fl_buf_append_str(b, "...");
  fl_buf_append_str(b, ")");
}

static bool is_operator(const char *name) {
  return !isalpha((unsigned char)name[0]) || !strcasecmp(name, "and") || !strcasecmp(name, "or") ||
         !strcasecmp(name, "not");
}

int ex_func_resolve(const char *name, const ex_type_t *args, size_t n, ex_resolved_t *out,
                    fl_err_t *err) {
  size_t nf;
  const ex_func_t *fs = ex_func_list(&nf);
  if (n > EX_MAX_ARGS)
    return fl_err_set(err, FL_EINVALID, "Too many arguments for function %s: %zu (at most %d)",
                      name, n, EX_MAX_ARGS);
  int best_cost = INT_MAX;
  bool named = false;
  ex_resolved_t cand;
  for (size_t i = 0; i < nf; i++) {
    if (strcasecmp(fs[i].name, name) != 0) continue;
    named = true;
    int c = try_overload(&fs[i], args, n, &cand);
    if (c >= 0 && c < best_cost) {
      best_cost = c;
      *out = cand;
    }
  }
  if (!named) return fl_err_set(err, FL_ENOTFOUND, "Function '%s' not registered", name);
  if (best_cost == INT_MAX) {
    fl_buf_t b;
    fl_buf_init(&b);
    if (is_operator(name) && n <= 2) {
      fl_buf_printf(&b, "Cannot apply operator: ");
      if (n == 2)
        fl_buf_printf(&b, "%s %s %s", ex_type_str(&args[0]), name, ex_type_str(&args[1]));
      else if (n == 1)
        fl_buf_printf(&b, "%s %s", name, ex_type_str(&args[0]));
    } else {
      fl_buf_append_str(&b, "Unexpected parameters (");
      for (size_t i = 0; i < n; i++) {
        if (i) fl_buf_append_str(&b, ", ");
        ex_type_format(&args[i], &b);
      }
      fl_buf_printf(&b, ") for function %s. Expected:", name);
      int shown = 0;
      for (size_t i = 0; i < nf && shown < 12; i++)
        if (strcasecmp(fs[i].name, name) == 0) {
          fl_buf_append_str(&b, shown++ ? ", " : " ");
          append_sig(&b, &fs[i]);
        }
    }
    int rc = fl_err_set(err, FL_ENOTFOUND, "%.*s", (int)b.len, (const char *)b.data);
    fl_buf_free(&b);
    return rc;
  }
  if (out->fn->ret_fn) return out->fn->ret_fn(out->args, out->nargs, &out->ret, err);
  return FL_OK;
}

static void call_free(void *arg) {
  ex_call_t *c = arg;
  fl_free(c->scratch);
  c->scratch = NULL;
  c->scratch_cap = 0;
}

uint8_t *ex__scratch(ex_call_t *call, size_t n, int which) {
  size_t half = n ? n : 1;
  if (call->scratch_cap < 2 * half) {
    call->scratch = fl_realloc(call->scratch, 2 * half);
    call->scratch_cap = 2 * half;
  }
  return call->scratch + (which ? call->scratch_cap / 2 : 0);
}

int ex_call_init(ex_ctx_t *ctx, const ex_resolved_t *r, const ty_vec_t *const *consts,
                 ex_call_t **out, fl_err_t *err) {
  ex_call_t *c = fl_arena_zalloc(ctx->arena, sizeof *c);
  fl_arena_on_reset(ctx->arena, call_free, c);
  c->r = *r;
  c->out_storage = ex_type_storage(&r->ret, ctx->arena);
  c->consts = consts;
  if (r->fn->init) {
    int rc = r->fn->init(ctx, c, err);
    if (rc) return rc;
  }
  c->consts = NULL;
  *out = c;
  return FL_OK;
}

int ex_call_eval(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args, const ex_rows_t *rows,
                 ty_vec_t *out, fl_err_t *err) {
  ex__out_begin(out, rows->nrows);
  if (!(call->r.fn->flags & EX_FN_NULLS)) ex__valid_all(out, args, call->r.nargs, rows);
  int rc = call->r.fn->kernel(ctx, call, args, rows, out, err);
  ex__out_end(out);
  return rc;
}

int ex_func_eval(ex_ctx_t *ctx, const char *name, const ex_type_t *types,
                 const ty_vec_t *const *args, size_t nargs, const ex_rows_t *rows, ty_vec_t **out,
                 ex_type_t *out_type, fl_err_t *err) {
  *out = NULL;
  ex_resolved_t r;
  int rc = ex_func_resolve(name, types, nargs, &r, err);
  if (rc) return rc;
  /* The implicit coercions a binder would insert as casts. */
  const ty_vec_t *use[EX_MAX_ARGS];
  ty_vec_t *owned[EX_MAX_ARGS] = {0};
  for (size_t i = 0; i < nargs && rc == FL_OK; i++) {
    use[i] = args[i];
    if (ex_type_equal(&r.args[i], &types[i]) || types[i].kind == EX_UNKNOWN) continue;
    ex_rows_t all = {.nrows = args[i]->len, .n = args[i]->len};
    owned[i] = ty_vec_new(ex_type_storage(&r.args[i], ctx->arena), args[i]->len);
    rc = ex_cast_eval(ctx, &types[i], &r.args[i], false, args[i], &all, owned[i], err);
    use[i] = owned[i];
  }
  if (rc == FL_OK) {
    const ty_vec_t *consts[EX_MAX_ARGS];
    for (size_t i = 0; i < nargs; i++) consts[i] = use[i]->len == 1 ? use[i] : NULL;
    ex_call_t *call;
    rc = ex_call_init(ctx, &r, consts, &call, err);
    if (rc == FL_OK) {
      *out = ty_vec_new(call->out_storage, rows->nrows);
      if (out_type) *out_type = call->r.ret;
      rc = ex_call_eval(ctx, call, use, rows, *out, err);
    }
  }
  for (size_t i = 0; i < nargs; i++) ty_vec_free(owned[i]);
  return rc;
}

/* ---- output helpers ---- */

void ex__out_begin(ty_vec_t *out, uint32_t nrows) {
  ty_vec_reset(out);
  ty_vec_reserve(out, nrows ? nrows : 1);
  out->len = nrows;
  memset(out->validity, 0, ((size_t)nrows + 7) / 8);
  size_t w = ty_value_width(out->type);
  if (w) memset(out->data, 0, (size_t)nrows * w);
  if (out->offsets) memset(out->offsets, 0, ((size_t)nrows + 1) * sizeof(int32_t));
}

void ex__valid_all(ty_vec_t *out, const ty_vec_t *const *args, size_t nargs,
                   const ex_rows_t *rows) {
  bool any_null = false;
  for (size_t a = 0; a < nargs; a++)
    if (args[a]->null_count) any_null = true;
  if (!any_null) {
    /* Rows outside the selection are not looked at; marking them valid
     * too keeps the result free of nulls, so later kernels take their
     * null-free paths. */
    memset(out->validity, 0xff, ((size_t)rows->nrows + 7) / 8);
    return;
  }
  uint32_t m[EX_MAX_ARGS];
  for (size_t a = 0; a < nargs; a++) m[a] = ex__m(args[a]);
  EX_ROWS(rows, i) {
    bool ok = true;
    for (size_t a = 0; a < nargs && ok; a++) ok = ex__valid(args[a], i & m[a]);
    if (ok) ex__set_valid(out, i);
  }
}

void ex__out_end(ty_vec_t *out) {
  uint32_t n = out->len, valid = 0;
  /* Bits past len in the last byte must not count. */
  if (n & 7) out->validity[n >> 3] &= (uint8_t)((1u << (n & 7)) - 1);
  uint32_t nb = n / 8 + ((n & 7) != 0), b = 0;
  for (; b + 8 <= nb; b += 8) {
    uint64_t w;
    memcpy(&w, out->validity + b, 8);
    valid += (uint32_t)__builtin_popcountll(w);
  }
  for (; b < nb; b++) valid += (uint32_t)__builtin_popcount(out->validity[b]);
  out->null_count = n - valid;
  if (out->offsets) {
    int32_t end = out->type->kind == TY_LIST || out->type->kind == TY_MAP
                      ? (int32_t)out->children[0]->len
                      : (int32_t)out->heap_len;
    /* Rows after the last one written keep empty ranges at the end. */
    uint32_t last = n;
    while (last > 0 && out->offsets[last] == 0) last--;
    for (uint32_t i = last + 1; i <= n; i++) out->offsets[i] = end;
    for (uint32_t i = 0; i < n; i++)
      if (out->offsets[i + 1] < out->offsets[i]) out->offsets[i + 1] = out->offsets[i];
  }
}

int ex__err(fl_err_t *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = fl_err_setv(err, FL_EINVALID, fmt, ap);
  va_end(ap);
  return rc;
}
