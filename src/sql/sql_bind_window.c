/*
 * sql_bind_window.c - binding window function calls (layer 7, sql):
 * `f(...) OVER (...)`, `OVER w` with the SELECT's WINDOW clause, ranking
 * and value functions and aggregates over frames, with Trino's rules and
 * result types, and the plan they make.
 *
 * A SELECT's window calls are collected while its select list and ORDER
 * BY are bound (see sql_bind_int.h, sql_winctx_t). Calls with equal
 * specifications (PARTITION BY, ORDER BY, frame) share one WINDOW node;
 * the nodes are stacked over a projection that adds the calls' arguments
 * and keys to the columns below, after aggregation and HAVING and before
 * the select list's projection, DISTINCT, ORDER BY and LIMIT.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/sql_bind_int.h"

/* Where a call's argument or key comes from: a column below the windows
 * as it is (BASE_COL | column), or an extra column; both stay positive
 * as int32_t, as the calls' columns must. */
#define BASE_COL 0x20000000u

static uint32_t extra_add(sql_binder_t *b, sql_winctx_t *w, sql_bexpr_t *e) {
  if (e->kind == SQL_BX_COL && e->col < SQL_WIN_COL) return BASE_COL | e->col;
  for (uint32_t i = 0; i < w->nextra; i++)
    if (sql_bexpr_equal(w->extra[i], e)) return i;
  if (w->nextra == w->extra_cap) {
    uint32_t cap = w->extra_cap ? w->extra_cap * 2 : 8;
    sql_bexpr_t **n = fl_arena_alloc(b->a, cap * sizeof *n);
    if (w->nextra) memcpy(n, w->extra, w->nextra * sizeof *n);
    w->extra = n;
    w->extra_cap = cap;
  }
  w->extra[w->nextra] = e;
  return w->nextra++;
}

/* The window a call names: its OVER (...) on top of a named base, or a
 * WINDOW clause entry. Trino's rules: a referencing specification may not
 * repeat PARTITION BY, nor ORDER BY when the base has one, and the base
 * may have no frame. */
static int resolve_spec(sql_binder_t *b, const sql_winctx_t *w, const sql_call_t *c, sql_pos_t pos,
                        size_t limit, sql_window_spec_t *out) {
  const sql_ident_t *name = c->over ? &c->over->base : &c->over_name;
  if (!name->name) {
    *out = *c->over;
    return FL_OK;
  }
  /* A WINDOW entry may name only the entries before it (no cycles). */
  const sql_window_spec_t *base = NULL;
  size_t at = 0;
  for (size_t i = 0; w->sel && i < limit; i++) {
    const sql_named_window_t *nw = &w->sel->windows[i];
    if (strcasecmp(nw->name.name, name->name) != 0) continue;
    if (base)
      return sql__errf(b, nw->name.pos, FL_EINVALID, "WINDOW '%s' is already defined",
                       nw->name.name);
    base = &nw->spec;
    at = i;
  }
  if (!base)
    return sql__errf(b, name->pos.line ? name->pos : pos, FL_EINVALID,
                     "Cannot resolve WINDOW name %s", name->name);
  sql_window_spec_t r;
  if (base->base.name) {
    sql_call_t inner = {.over_name = base->base};
    if (base->partition_by.n || base->order_by.n || base->frame != SQL_FRAME_NONE) {
      /* WINDOW w2 AS (w1 ORDER BY ...): resolve w1 under w2's additions. */
      inner.over = (sql_window_spec_t *)base;
      inner.over_name = (sql_ident_t){0};
    }
    int rc = resolve_spec(b, w, &inner, pos, at, &r);
    if (rc) return rc;
  } else {
    r = *base;
  }
  if (!c->over) {
    *out = r;
    return FL_OK;
  }
  const sql_window_spec_t *s = c->over;
  if (s->partition_by.n)
    return sql__errf(b, pos, FL_EINVALID,
                     "WINDOW specification with named WINDOW reference "
                     "cannot specify PARTITION BY");
  if (s->order_by.n && r.order_by.n)
    return sql__errf(b, pos, FL_EINVALID,
                     "Cannot specify ORDER BY if referenced named WINDOW "
                     "specifies ORDER BY");
  if (r.frame != SQL_FRAME_NONE)
    return sql__errf(b, pos, FL_EINVALID,
                     "Cannot reference named WINDOW containing frame "
                     "specification");
  if (s->order_by.n) r.order_by = s->order_by;
  r.frame = s->frame;
  r.start = s->start;
  r.end = s->end;
  r.has_end = s->has_end;
  *out = r;
  return FL_OK;
}

/* A non-negative numeric literal (frame offsets, ntile, lag). */
static int const_number(sql_binder_t *b, const sql_expr_t *x, const char *what, bool integral,
                        double *out) {
  if (x->kind == SQL_E_INT) {
    *out = (double)x->u.i.value;
    return FL_OK;
  }
  if (!integral && (x->kind == SQL_E_DECIMAL || x->kind == SQL_E_DOUBLE)) {
    *out = strtod(x->u.num.text, NULL);
    return FL_OK;
  }
  return sql__errf(b, x->pos, FL_EUNSUPPORTED, "%s must be a non-negative %s literal", what,
                   integral ? "integer" : "numeric");
}

/* A RANGE offset over a timestamp key: a constant interval day to second,
 * in microseconds (the key's unit). */
static int interval_offset(sql_binder_t *b, const sql_expr_t *x, int64_t *out) {
  sql_scope_t none = {0};
  sql_ectx_t cx = {.scope = &none, .clause = "Window frame offset"};
  sql_bexpr_t *e;
  int rc = sql__bind_expr(b, &cx, x, &e);
  if (rc) return rc;
  if (e->type.kind != SQL_DT_INTERVAL_DS)
    return sql__errf(b, x->pos, FL_EINVALID,
                     "Window frame offset over a timestamp must be an interval day to second, "
                     "not %s",
                     sql_dtype_str(&e->type));
  sql_const_t c;
  bool as_text = false;
  fl_err_t ferr = {0};
  const sql_resolver_t *r = b->o->resolver;
  if (!r->fold || r->fold(r->ctx, e, &c, &as_text, &ferr) || as_text || c.null)
    return sql__errf(b, x->pos, FL_EINVALID, "Window frame offset must be a constant interval");
  if (c.i < 0)
    return sql__errf(b, x->pos, FL_EINVALID, "Window frame offset value must not be negative");
  *out = c.i;
  return FL_OK;
}

static int bind_bound(sql_binder_t *b, const sql_frame_bound_t *fb, sql_frame_unit_t unit,
                      const sql_dtype_t *key, sql_pos_t pos, sql_win_bound_t *out) {
  out->kind = fb->kind;
  if (fb->kind != SQL_BOUND_PRECEDING && fb->kind != SQL_BOUND_FOLLOWING) return FL_OK;
  if (unit == SQL_FRAME_RANGE && (key->kind == SQL_DT_TIMESTAMP || key->kind == SQL_DT_TIMESTAMPTZ))
    return interval_offset(b, fb->offset, &out->offset);
  double v = 0;
  bool integral = unit != SQL_FRAME_RANGE || key->kind != SQL_DT_DOUBLE;
  if (unit == SQL_FRAME_RANGE && (key->kind == SQL_DT_REAL || key->kind == SQL_DT_DECIMAL))
    integral = false;
  int rc = const_number(b, fb->offset, "Window frame offset", integral, &v);
  if (rc) return rc;
  if (unit == SQL_FRAME_RANGE) {
    switch (key->kind) {
      case SQL_DT_TINYINT:
      case SQL_DT_SMALLINT:
      case SQL_DT_INTEGER:
      case SQL_DT_BIGINT:
      case SQL_DT_DATE: out->offset = (int64_t)v; break;
      case SQL_DT_REAL:
      case SQL_DT_DOUBLE: out->offset_f = v; break;
      case SQL_DT_DECIMAL: out->offset = (int64_t)llround(v * pow(10, key->scale)); break;
      default:
        return sql__errf(b, fb->offset->pos, FL_EUNSUPPORTED,
                         "Window frame of type RANGE PRECEDING or FOLLOWING over %s is not "
                         "supported yet",
                         sql_dtype_str(key));
    }
  } else {
    out->offset = (int64_t)v;
  }
  (void)pos;
  return FL_OK;
}

static bool frame_equal(const sql_win_frame_t *x, const sql_win_frame_t *y) {
  if (!x || !y) return x == y;
  return x->unit == y->unit && x->start.kind == y->start.kind && x->end.kind == y->end.kind &&
         x->start.offset == y->start.offset && x->end.offset == y->end.offset &&
         x->start.offset_f == y->start.offset_f && x->end.offset_f == y->end.offset_f;
}

static bool spec_equal(const sql_winspec_t *x, const sql_winspec_t *y) {
  if (x->npartition != y->npartition || x->norder != y->norder) return false;
  if (x->npartition && memcmp(x->partition, y->partition, x->npartition * sizeof *x->partition))
    return false;
  for (uint32_t i = 0; i < x->norder; i++)
    if (x->order[i].col != y->order[i].col || x->order[i].desc != y->order[i].desc ||
        x->order[i].nulls_first != y->order[i].nulls_first)
      return false;
  return frame_equal(x->frame, y->frame);
}

static int bind_spec(sql_binder_t *b, const sql_ectx_t *in, sql_winctx_t *w,
                     const sql_window_spec_t *s, sql_pos_t pos, uint32_t *out) {
  sql_winspec_t sp = {0};
  int rc;
  sp.partition =
      fl_arena_zalloc(b->a, (s->partition_by.n ? s->partition_by.n : 1) * sizeof(uint32_t));
  for (size_t i = 0; i < s->partition_by.n; i++) {
    sql_bexpr_t *e;
    if ((rc = sql__bind_expr(b, in, s->partition_by.items[i], &e))) return rc;
    sp.partition[sp.npartition++] = extra_add(b, w, e);
  }
  sp.order = fl_arena_zalloc(b->a, (s->order_by.n ? s->order_by.n : 1) * sizeof *sp.order);
  const sql_dtype_t *key0 = NULL;
  for (size_t i = 0; i < s->order_by.n; i++) {
    sql_bexpr_t *e;
    if ((rc = sql__bind_expr(b, in, s->order_by.items[i].expr, &e))) return rc;
    if (!key0) key0 = &e->type;
    sql__sort_key(&s->order_by.items[i], extra_add(b, w, e), &sp.order[sp.norder++]);
  }
  if (s->frame != SQL_FRAME_NONE) {
    sql_win_frame_t *f = fl_arena_zalloc(b->a, sizeof *f);
    f->unit = s->frame == SQL_FRAME_ROWS    ? SQL_WU_ROWS
              : s->frame == SQL_FRAME_RANGE ? SQL_WU_RANGE
                                            : SQL_WU_GROUPS;
    sql_frame_bound_t end =
        s->has_end ? s->end : (sql_frame_bound_t){.kind = SQL_BOUND_CURRENT_ROW};
    bool offs = s->start.kind == SQL_BOUND_PRECEDING || s->start.kind == SQL_BOUND_FOLLOWING ||
                end.kind == SQL_BOUND_PRECEDING || end.kind == SQL_BOUND_FOLLOWING;
    if (s->start.kind == SQL_BOUND_UNBOUNDED_FOLLOWING)
      return sql__errf(b, pos, FL_EINVALID, "Window frame start cannot be UNBOUNDED FOLLOWING");
    if (end.kind == SQL_BOUND_UNBOUNDED_PRECEDING)
      return sql__errf(b, pos, FL_EINVALID, "Window frame end cannot be UNBOUNDED PRECEDING");
    if (end.kind < s->start.kind &&
        !(s->start.kind == SQL_BOUND_PRECEDING && end.kind == SQL_BOUND_PRECEDING))
      return sql__errf(b, pos, FL_EINVALID, "Window frame starting from %s cannot end with %s",
                       s->start.kind == SQL_BOUND_CURRENT_ROW ? "CURRENT ROW" : "FOLLOWING",
                       end.kind == SQL_BOUND_CURRENT_ROW ? "CURRENT ROW" : "PRECEDING");
    if (f->unit == SQL_WU_RANGE && offs && sp.norder != 1)
      return sql__errf(
          b, pos, FL_EINVALID,
          "Window frame of type RANGE PRECEDING or FOLLOWING requires single sort item "
          "in ORDER BY (actual: %u)",
          sp.norder);
    if (f->unit == SQL_WU_GROUPS && offs && sp.norder == 0)
      return sql__errf(b, pos, FL_EINVALID,
                       "Window frame of type GROUPS PRECEDING or FOLLOWING requires ORDER BY");
    sql_dtype_t none = sql_dtype(SQL_DT_BIGINT);
    if ((rc = bind_bound(b, &s->start, s->frame, key0 ? key0 : &none, pos, &f->start))) return rc;
    if ((rc = bind_bound(b, &end, s->frame, key0 ? key0 : &none, pos, &f->end))) return rc;
    sp.frame = f;
  }
  for (uint32_t i = 0; i < w->nspecs; i++)
    if (spec_equal(&w->specs[i], &sp)) {
      *out = i;
      return FL_OK;
    }
  if (w->nspecs == w->specs_cap) {
    uint32_t cap = w->specs_cap ? w->specs_cap * 2 : 4;
    sql_winspec_t *n = fl_arena_alloc(b->a, cap * sizeof *n);
    if (w->nspecs) memcpy(n, w->specs, w->nspecs * sizeof *n);
    w->specs = n;
    w->specs_cap = cap;
  }
  w->specs[w->nspecs] = sp;
  *out = w->nspecs++;
  return FL_OK;
}

typedef enum { F_RANK, F_DOUBLE, F_NTILE, F_SHIFT, F_VALUE, F_NTH } fkind_t;

static const struct {
  const char *name;
  fkind_t kind;
} fns[] = {
    {"row_number", F_RANK},     {"rank", F_RANK},        {"dense_rank", F_RANK},
    {"percent_rank", F_DOUBLE}, {"cume_dist", F_DOUBLE}, {"ntile", F_NTILE},
    {"lag", F_SHIFT},           {"lead", F_SHIFT},       {"first_value", F_VALUE},
    {"last_value", F_VALUE},    {"nth_value", F_NTH},
};

int sql__bind_window_call(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x,
                          const char *name, sql_bexpr_t **out) {
  const sql_call_t *c = &x->u.call;
  sql_winctx_t *w = cx->win;
  if (!w)
    return sql__errf(b, x->pos, FL_EINVALID,
                     "%s cannot contain aggregations, window functions or grouping operations",
                     cx->clause ? cx->clause : "This expression");
  /* Arguments and keys: the same columns, no nested window calls. */
  sql_ectx_t in = *cx;
  in.win = NULL;
  in.clause = "Window function arguments";
  int rc;
  sql_win_call_t call = {.name = fl_arena_strdup(b->a, name), .arg_col = -1, .default_col = -1};
  call.ignore_nulls = c->nulls_treatment < 0;
  bool is_agg = b->o->resolver->is_aggregate(b->o->resolver->ctx, name);
  if (c->distinct)
    return sql__errf(b, x->pos, FL_EUNSUPPORTED, "DISTINCT in window function %s is not supported",
                     name);
  if (c->filter)
    return sql__errf(b, x->pos, FL_EUNSUPPORTED, "FILTER in window function %s is not supported",
                     name);
  if (c->order_by.n)
    return sql__errf(b, x->pos, FL_EUNSUPPORTED,
                     "ORDER BY inside window function %s is not supported", name);
  if (is_agg) {
    if (c->nulls_treatment)
      return sql__errf(b, x->pos, FL_EINVALID, "IGNORE NULLS is not valid with aggregate %s", name);
    sql_bexpr_t *arg = NULL;
    double param = 0;
    uint32_t nparams = 0;
    if (!(c->star || (!strcmp(name, "count") && c->args.n == 0))) {
      if (c->args.n == 2) {
        /* approx_percentile(x, 0.5) OVER (...): a constant parameter. */
        if ((rc = const_number(b, c->args.items[1], "The second argument", false, &param)))
          return rc;
        nparams = 1;
      } else if (c->args.n != 1) {
        return sql__errf(b, x->pos, FL_EUNSUPPORTED,
                         "Window aggregate %s with %zu arguments is not supported yet", name,
                         c->args.n);
      }
      if ((rc = sql__bind_expr(b, &in, c->args.items[0], &arg))) return rc;
    }
    sql_dtype_t ret;
    rc = b->o->resolver->aggregate(b->o->resolver->ctx, name, arg ? &arg->type : NULL, false,
                                   &param, nparams, &ret, b->err);
    if (rc) {
      b->err->code = rc;
      return fl_err_prefix(b->err, "line %u, column %u: ", x->pos.line, x->pos.col);
    }
    call.is_agg = true;
    call.agg = (sql_agg_call_t){.name = call.name,
                                .arg_col = arg ? (int32_t)extra_add(b, w, arg) : -1,
                                .filter_col = -1,
                                .type = ret,
                                .param = param,
                                .nparams = nparams};
    call.type = ret;
  } else {
    size_t k = 0;
    while (k < sizeof fns / sizeof fns[0] && strcmp(fns[k].name, name)) k++;
    if (k == sizeof fns / sizeof fns[0])
      return sql__errf(b, x->pos, FL_ENOTFOUND, "Window function '%s' not registered", name);
    fkind_t fk = fns[k].kind;
    size_t n = c->args.n, lo = 0, hi = 0;
    switch (fk) {
      case F_RANK:
      case F_DOUBLE: break;
      case F_NTILE: lo = hi = 1; break;
      case F_SHIFT: lo = 1, hi = 3; break;
      case F_VALUE: lo = hi = 1; break;
      case F_NTH: lo = hi = 2; break;
    }
    if (n < lo || n > hi || c->star)
      return sql__errf(b, x->pos, FL_EINVALID, "Unexpected number of arguments for %s: %zu", name,
                       n);
    if (c->nulls_treatment && fk != F_SHIFT && fk != F_VALUE && fk != F_NTH)
      return sql__errf(b, x->pos, FL_EINVALID, "Cannot specify null treatment clause for %s", name);
    call.type = sql_dtype(fk == F_DOUBLE ? SQL_DT_DOUBLE : SQL_DT_BIGINT);
    if (fk == F_NTILE) {
      double v = 0;
      if ((rc = const_number(b, c->args.items[0], "The number of buckets of ntile", true, &v)))
        return rc;
      if (v < 1)
        return sql__errf(b, c->args.items[0]->pos, FL_EINVALID, "Buckets must be greater than 0");
      call.param = (int64_t)v;
    }
    if (fk == F_SHIFT || fk == F_VALUE || fk == F_NTH) {
      sql_bexpr_t *arg;
      if ((rc = sql__bind_expr(b, &in, c->args.items[0], &arg))) return rc;
      call.type = arg->type;
      call.arg_col = (int32_t)extra_add(b, w, arg);
      call.param = 1;
      if (n >= 2) {
        double v = 0;
        if ((rc = const_number(b, c->args.items[1],
                               fk == F_NTH ? "The position of nth_value" : "The offset of lag/lead",
                               true, &v)))
          return rc;
        if (fk == F_NTH && v < 1)
          return sql__errf(b, c->args.items[1]->pos, FL_EINVALID,
                           "Invalid offset for nth_value: must be greater than 0");
        call.param = (int64_t)v;
      }
      if (n == 3) {
        sql_bexpr_t *d;
        if ((rc = sql__bind_expr(b, &in, c->args.items[2], &d))) return rc;
        sql_dtype_t t = call.type;
        if (d->type.kind != SQL_DT_UNKNOWN && !sql_dtype_equal(&d->type, &t)) {
          if (!sql__common(b, &arg->type, &d->type, &t) || !sql_dtype_equal(&t, &arg->type))
            return sql__errf(b, c->args.items[2]->pos, FL_EINVALID,
                             "The default of %s must have the type of its argument (%s), not %s",
                             name, sql_dtype_str(&arg->type), sql_dtype_str(&d->type));
        }
        if ((rc = sql__coerce(b, d, &call.type, &d))) return rc;
        call.default_col = (int32_t)extra_add(b, w, d);
      }
    }
  }
  sql_window_spec_t spec;
  if ((rc = resolve_spec(b, w, c, x->pos, w->sel ? w->sel->nwindows : 0, &spec))) return rc;
  uint32_t si = 0;
  if ((rc = bind_spec(b, &in, w, &spec, x->pos, &si))) return rc;
  if (w->nfns == w->fns_cap) {
    uint32_t cap = w->fns_cap ? w->fns_cap * 2 : 8;
    sql_winfn_t *nf = fl_arena_alloc(b->a, cap * sizeof *nf);
    if (w->nfns) memcpy(nf, w->fns, w->nfns * sizeof *nf);
    w->fns = nf;
    w->fns_cap = cap;
  }
  w->fns[w->nfns] = (sql_winfn_t){.call = call, .spec = si};
  *out = sql__col_ref(b, SQL_WIN_COL + w->nfns++, &call.type, x->pos);
  return FL_OK;
}

static uint32_t input_col(uint32_t x, uint32_t base) {
  return x & BASE_COL ? x & ~BASE_COL : base + x;
}

static void remap(sql_bexpr_t *e, const uint32_t *cols) {
  if (!e) return;
  if (e->kind == SQL_BX_COL && e->col >= SQL_WIN_COL) e->col = cols[e->col - SQL_WIN_COL];
  for (uint32_t i = 0; i < e->nargs; i++) remap(e->args[i], cols);
}

int sql__plan_windows(sql_binder_t *b, sql_winctx_t *w, sql_plan_t **pp, sql_bexpr_t **exprs,
                      uint32_t n) {
  if (!w->nfns) return FL_OK;
  sql_plan_t *p = *pp;
  uint32_t base = p->ncols;
  /* The projection: the columns below, then the extra expressions (none
   * when every argument and key is a column already). */
  if (w->nextra) {
    sql_plan_t *pr = sql_plan_new(b->a, SQL_P_PROJECT, p);
    pr->ncols = base + w->nextra;
    pr->cols = fl_arena_zalloc(b->a, pr->ncols * sizeof *pr->cols);
    pr->u.project.exprs = fl_arena_zalloc(b->a, pr->ncols * sizeof(sql_bexpr_t *));
    for (uint32_t i = 0; i < base; i++) {
      pr->cols[i] = p->cols[i];
      pr->u.project.exprs[i] = sql__col_ref(b, i, &p->cols[i].type, (sql_pos_t){0});
    }
    for (uint32_t i = 0; i < w->nextra; i++) {
      pr->cols[base + i] =
          (sql_col_t){.name = fl_arena_sprintf(b->a, "$w%u", i), .type = w->extra[i]->type};
      pr->u.project.exprs[base + i] = w->extra[i];
    }
    p = pr;
  }
  uint32_t *cols = fl_arena_zalloc(b->a, w->nfns * sizeof *cols);
  /* One node per specification, in order of first use, except that
   * specifications differing only in their frame follow each other: the
   * later ones then take their input already sorted. */
  uint32_t *order = fl_arena_zalloc(b->a, w->nspecs * sizeof *order);
  bool *placed = fl_arena_zalloc(b->a, w->nspecs * sizeof *placed);
  uint32_t nordered = 0;
  for (uint32_t s = 0; s < w->nspecs; s++) {
    if (placed[s]) continue;
    for (uint32_t t = s; t < w->nspecs; t++) {
      if (placed[t]) continue;
      sql_winspec_t x = w->specs[s], y = w->specs[t];
      x.frame = y.frame = NULL;
      if (!spec_equal(&x, &y)) continue;
      placed[t] = true;
      order[nordered++] = t;
    }
  }
  for (uint32_t si = 0; si < w->nspecs; si++) {
    uint32_t s = order[si];
    const sql_winspec_t *sp = &w->specs[s];
    uint32_t nf = 0;
    for (uint32_t k = 0; k < w->nfns; k++) nf += w->fns[k].spec == s;
    sql_plan_t *wn = sql_plan_new(b->a, SQL_P_WINDOW, p);
    wn->u.window.npartition = sp->npartition;
    wn->u.window.partition =
        fl_arena_zalloc(b->a, (sp->npartition ? sp->npartition : 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < sp->npartition; i++)
      wn->u.window.partition[i] = input_col(sp->partition[i], base);
    wn->u.window.norder = sp->norder;
    wn->u.window.order =
        fl_arena_zalloc(b->a, (sp->norder ? sp->norder : 1) * sizeof(sql_sort_key_t));
    for (uint32_t i = 0; i < sp->norder; i++) {
      wn->u.window.order[i] = sp->order[i];
      wn->u.window.order[i].col = input_col(sp->order[i].col, base);
    }
    wn->u.window.frame = sp->frame;
    wn->u.window.fns = fl_arena_zalloc(b->a, nf * sizeof(sql_win_call_t));
    wn->ncols = p->ncols + nf;
    wn->cols = fl_arena_zalloc(b->a, wn->ncols * sizeof *wn->cols);
    memcpy(wn->cols, p->cols, p->ncols * sizeof *wn->cols);
    for (uint32_t k = 0; k < w->nfns; k++) {
      if (w->fns[k].spec != s) continue;
      sql_win_call_t c = w->fns[k].call;
      if (c.arg_col >= 0) c.arg_col = (int32_t)input_col((uint32_t)c.arg_col, base);
      if (c.default_col >= 0) c.default_col = (int32_t)input_col((uint32_t)c.default_col, base);
      if (c.is_agg && c.agg.arg_col >= 0)
        c.agg.arg_col = (int32_t)input_col((uint32_t)c.agg.arg_col, base);
      uint32_t j = wn->u.window.nfns++;
      wn->u.window.fns[j] = c;
      cols[k] = p->ncols + j;
      wn->cols[p->ncols + j] = (sql_col_t){.name = c.name, .type = c.type};
    }
    p = wn;
  }
  for (uint32_t i = 0; i < n; i++) remap(exprs[i], cols);
  *pp = p;
  return FL_OK;
}
