/*
 * sql_bind_expr.c - binding expressions (layer 7, sql).
 *
 * Each syntax node becomes a typed sql_bexpr_t: names resolve against the
 * scope (qualified or bare, case-insensitive), literals take Trino's types
 * (an integer literal is integer when it fits, else bigint; 1.5 is
 * decimal(2,1); 1e3 is double), operators and functions go to the
 * resolver, and the argument coercions it asks for become CAST nodes.
 * Above an aggregation (sql_ectx_t.agg) an expression that equals a GROUP
 * BY key becomes a reference to that key, an aggregate call becomes a
 * reference to its result, and any other column is an error, as in Trino.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/sql_bind_int.h"

int sql__errf(sql_binder_t *b, sql_pos_t pos, int code, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return fl_err_set(b->err, code, "line %u, column %u: %s", pos.line, pos.col, msg);
}

static sql_bexpr_t *bx_new(sql_binder_t *b, sql_bx_kind_t k, sql_pos_t pos, uint32_t nargs) {
  sql_bexpr_t *e = fl_arena_zalloc(b->a, sizeof *e);
  e->kind = k;
  e->pos = pos;
  e->nargs = nargs;
  if (nargs) e->args = fl_arena_zalloc(b->a, nargs * sizeof *e->args);
  return e;
}

sql_bexpr_t *sql__col_ref(sql_binder_t *b, uint32_t col, const sql_dtype_t *t, sql_pos_t pos) {
  sql_bexpr_t *e = bx_new(b, SQL_BX_COL, pos, 0);
  e->col = col;
  e->type = *t;
  return e;
}

sql_bexpr_t *sql__and(sql_binder_t *b, sql_bexpr_t *x, sql_bexpr_t *y) {
  sql_bexpr_t *e = bx_new(b, SQL_BX_AND, x->pos, 2);
  e->type = sql_dtype(SQL_DT_BOOLEAN);
  e->args[0] = x;
  e->args[1] = y;
  return e;
}

sql_bexpr_t *sql__coalesce2(sql_binder_t *b, sql_bexpr_t *x, sql_bexpr_t *y, const sql_dtype_t *t) {
  sql_bexpr_t *e = bx_new(b, SQL_BX_COALESCE, x->pos, 2);
  e->type = *t;
  e->args[0] = x;
  e->args[1] = y;
  return e;
}

bool sql__common(sql_binder_t *b, const sql_dtype_t *x, const sql_dtype_t *y, sql_dtype_t *out) {
  if (sql_dtype_equal(x, y)) {
    *out = *x;
    return true;
  }
  return b->o->resolver->common(b->o->resolver->ctx, x, y, out);
}

int sql__coerce(sql_binder_t *b, sql_bexpr_t *e, const sql_dtype_t *t, sql_bexpr_t **out) {
  if (sql_dtype_equal(&e->type, t)) {
    *out = e;
    return FL_OK;
  }
  int rc = b->o->resolver->cast(b->o->resolver->ctx, &e->type, t, b->err);
  if (rc) return fl_err_prefix(b->err, "line %u, column %u: ", e->pos.line, e->pos.col);
  sql_bexpr_t *c = bx_new(b, SQL_BX_CAST, e->pos, 1);
  c->args[0] = e;
  c->type = *t;
  *out = c;
  return FL_OK;
}

/* A call through the resolver with the coercions it asks for. */
static int bind_call(sql_binder_t *b, const char *name, sql_pos_t pos, sql_bexpr_t **args,
                     uint32_t n, sql_bexpr_t **out) {
  if (n > SQL_MAX_ARGS) return sql__errf(b, pos, FL_EINVALID, "Too many arguments for %s", name);
  sql_dtype_t types[SQL_MAX_ARGS];
  for (uint32_t i = 0; i < n; i++) types[i] = args[i]->type;
  sql_fn_sig_t sig;
  int rc = b->o->resolver->scalar(b->o->resolver->ctx, name, types, n, &sig, b->err);
  if (rc) {
    b->err->code = rc;
    return fl_err_prefix(b->err, "line %u, column %u: ", (pos).line, (pos).col);
  }
  sql_bexpr_t *e = bx_new(b, SQL_BX_CALL, pos, n);
  e->fn = fl_arena_strdup(b->a, name);
  e->impl = sig.impl;
  e->type = sig.ret;
  for (uint32_t i = 0; i < n; i++)
    if ((rc = sql__coerce(b, args[i], &sig.args[i], &e->args[i]))) return rc;
  *out = e;
  return FL_OK;
}

int sql__call(sql_binder_t *b, const char *name, sql_pos_t pos, sql_bexpr_t **args, uint32_t n,
              sql_bexpr_t **out) {
  return bind_call(b, name, pos, args, n, out);
}

sql_bexpr_t *sql__int_const(sql_binder_t *b, int64_t v, sql_pos_t pos) {
  sql_bexpr_t *e = bx_new(b, SQL_BX_CONST, pos, 0);
  e->type = sql_dtype(SQL_DT_INTEGER);
  e->c.i = v;
  return e;
}

static int call2(sql_binder_t *b, const char *name, sql_pos_t pos, sql_bexpr_t *x, sql_bexpr_t *y,
                 sql_bexpr_t **out) {
  sql_bexpr_t *args[2] = {x, y};
  return bind_call(b, name, pos, args, y ? 2 : 1, out);
}

static int bool_arg(sql_binder_t *b, sql_bexpr_t *e, const char *what, sql_bexpr_t **out) {
  if (e->type.kind == SQL_DT_BOOLEAN || e->type.kind == SQL_DT_UNKNOWN) {
    sql_dtype_t t = sql_dtype(SQL_DT_BOOLEAN);
    return sql__coerce(b, e, &t, out);
  }
  return sql__errf(b, e->pos, FL_EINVALID, "%s must evaluate to a boolean (actual: %s)", what,
                   sql_dtype_str(&e->type));
}

static int bind_logic(sql_binder_t *b, sql_bx_kind_t k, sql_pos_t pos, sql_bexpr_t *x,
                      sql_bexpr_t *y, sql_bexpr_t **out) {
  const char *what = k == SQL_BX_AND ? "AND operand" : "OR operand";
  sql_bexpr_t *e = bx_new(b, k, pos, 2);
  e->type = sql_dtype(SQL_DT_BOOLEAN);
  int rc;
  if ((rc = bool_arg(b, x, what, &e->args[0])) || (rc = bool_arg(b, y, what, &e->args[1])))
    return rc;
  *out = e;
  return FL_OK;
}

static sql_bexpr_t *const_new(sql_binder_t *b, sql_pos_t pos, sql_dkind_t k) {
  sql_bexpr_t *e = bx_new(b, SQL_BX_CONST, pos, 0);
  e->type = sql_dtype(k);
  return e;
}

static sql_bexpr_t *const_str(sql_binder_t *b, sql_pos_t pos, const char *s, size_t len) {
  sql_bexpr_t *e = const_new(b, pos, SQL_DT_VARCHAR);
  e->c.s = fl_arena_memdup(b->a, s, len + 1);
  ((char *)e->c.s)[len] = 0;
  e->c.len = len;
  return e;
}

/* An exact numeric literal: decimal(p, s) from its digits. */
static int bind_decimal_lit(sql_binder_t *b, const sql_expr_t *x, sql_bexpr_t **out) {
  const char *t = x->u.num.text;
  int digits = 0, scale = 0;
  bool frac = false, lead = true;
  for (const char *p = t; *p; p++) {
    if (*p == '.') {
      frac = true;
      continue;
    }
    if (*p < '0' || *p > '9') continue;
    if (frac) scale++;
    if (*p == '0' && lead && !frac) continue;
    lead = false;
    digits++;
  }
  if (!frac && digits == 0) digits = 1;
  int precision = digits < scale ? scale : digits;
  if (!frac) precision = digits;
  if (precision < 1) precision = 1;
  if (precision > 38)
    return sql__errf(b, x->pos, FL_EINVALID, "Decimal literal %s has more than 38 digits", t);
  sql_bexpr_t *s = const_str(b, x->pos, t, strlen(t));
  sql_dtype_t dt = {
      .kind = SQL_DT_DECIMAL, .precision = (uint8_t)precision, .scale = (uint8_t)scale};
  return sql__coerce(b, s, &dt, out);
}

/*
 * INTERVAL 'text' field [TO field]: day-to-second intervals in
 * microseconds, year-to-month ones in months, as the executor keeps them.
 * The text holds one number per field from the first to the last
 * ('1-6' YEAR TO MONTH, '2 03:04:05.5' DAY TO SECOND); seconds may have a
 * fraction.
 */
static int bind_interval(sql_binder_t *b, const sql_expr_t *x, sql_bexpr_t **out) {
  static const sql_field_t ym[] = {SQL_F_YEAR, SQL_F_MONTH};
  static const sql_field_t ds[] = {SQL_F_DAY, SQL_F_HOUR, SQL_F_MINUTE, SQL_F_SECOND};
  static const int64_t ym_unit[] = {12, 1};
  static const int64_t ds_unit[] = {86400000000LL, 3600000000LL, 60000000LL, 1000000LL};
  sql_field_t from = x->u.interval.from, to = x->u.interval.to ? x->u.interval.to : from;
  const sql_field_t *list = NULL;
  const int64_t *unit = NULL;
  int nf = 0, fi = -1, ti = -1;
  for (int pass = 0; pass < 2 && fi < 0; pass++) {
    list = pass ? ds : ym;
    unit = pass ? ds_unit : ym_unit;
    nf = pass ? 4 : 2;
    fi = ti = -1;
    for (int i = 0; i < nf; i++) {
      if (list[i] == from) fi = i;
      if (list[i] == to) ti = i;
    }
  }
  if (fi < 0 || ti < fi)
    return sql__errf(b, x->pos, FL_EUNSUPPORTED, "Interval field %s is not supported",
                     sql_field_name(from));
  const char *p = x->u.interval.data, *end = p + x->u.interval.len;
  bool neg = x->u.interval.negative;
  while (p < end && *p == ' ') p++;
  if (p < end && (*p == '-' || *p == '+')) {
    neg ^= *p == '-';
    p++;
  }
  int64_t total = 0;
  for (int i = fi; i <= ti; i++) {
    if (p >= end || *p < '0' || *p > '9') goto bad;
    int64_t v = 0;
    while (p < end && *p >= '0' && *p <= '9') {
      if (v > INT64_MAX / 10 - 10) goto bad;
      v = v * 10 + (*p++ - '0');
    }
    if (v > INT64_MAX / unit[i] / 2) goto bad;
    total += v * unit[i];
    if (i == ti && list == ds && list[i] == SQL_F_SECOND && p < end && *p == '.') {
      p++;
      int64_t frac = 0, scale = 100000;
      while (p < end && *p >= '0' && *p <= '9') {
        if (scale) frac += (*p - '0') * scale;
        scale /= 10;
        p++;
      }
      total += frac;
    }
    if (i < ti) {
      if (p >= end || (*p != '-' && *p != ' ' && *p != ':')) goto bad;
      p++;
    }
  }
  while (p < end && *p == ' ') p++;
  if (p != end) goto bad;
  sql_bexpr_t *e = bx_new(b, SQL_BX_CONST, x->pos, 0);
  e->type = sql_dtype(list == ym ? SQL_DT_INTERVAL_YM : SQL_DT_INTERVAL_DS);
  e->c.i = neg ? -total : total;
  if (list == ym && (e->c.i > INT32_MAX || e->c.i < INT32_MIN)) goto bad;
  *out = e;
  return FL_OK;
bad:
  return sql__errf(b, x->pos, FL_EINVALID, "Invalid INTERVAL %s value: '%.*s'",
                   sql_field_name(from), (int)x->u.interval.len, x->u.interval.data);
}

/* ---- names ---- */

static bool qual_matches(const char *qual, const sql_qname_t *q, size_t nparts) {
  if (!qual) return false;
  /* A qualifier may be written as t, ns.t or catalog.ns.t; the scope keeps
   * the table's name or alias, so compare the last qualifier part and, for
   * longer ones, the rest against the dotted form's tail. */
  size_t ql = strlen(qual);
  const char *last = q->parts[nparts - 1].name;
  const char *dot = strrchr(qual, '.');
  const char *qlast = dot ? dot + 1 : qual;
  if (strcasecmp(qlast, last) != 0) return false;
  if (nparts == 1) return true;
  (void)ql;
  if (!dot) return false;
  /* ns.t: the part before the dot must match too. */
  const char *ns = q->parts[nparts - 2].name;
  size_t nl = strlen(ns);
  return (size_t)(dot - qual) >= nl && strncasecmp(dot - nl, ns, nl) == 0 &&
         (dot - nl == qual || dot[-(long)nl - 1] == '.');
}

static int column_error(sql_binder_t *b, const sql_expr_t *x) {
  const sql_qname_t *q = &x->u.column;
  fl_buf_t full;
  fl_buf_init(&full);
  for (size_t i = 0; i < q->n; i++) {
    if (i) fl_buf_append(&full, ".", 1);
    fl_buf_append(&full, q->parts[i].name, strlen(q->parts[i].name));
  }
  fl_buf_append(&full, "", 1);
  int rc =
      sql__errf(b, x->pos, FL_EINVALID, "Column '%s' cannot be resolved", (const char *)full.data);
  fl_buf_free(&full);
  return rc;
}

/* A name the query does not have, in the enclosing queries (innermost
 * first): a correlated reference. Above an aggregation the outer column
 * must be one of its GROUP BY keys, whose output column it then names. */
static int bind_outer_column(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x,
                             sql_bexpr_t **out) {
  (void)cx;
  const sql_qname_t *q = &x->u.column;
  const char *name = q->parts[q->n - 1].name;
  uint32_t level = 1;
  for (sql_outer_t *o = b->outer; o; o = o->next, level++) {
    const sql_scope_t *sc = o->cx->agg ? o->cx->agg->pre : o->cx->scope;
    int found = -1;
    for (int pass = 0; pass < 2 && found < 0; pass++)
      for (uint32_t i = 0; sc && i < sc->n; i++) {
        if (sc->cols[i].outer != (pass == 1)) continue;
        if (strcasecmp(sc->cols[i].name, name) != 0) continue;
        if (q->n > 1 && !qual_matches(sc->cols[i].qual, q, q->n - 1)) continue;
        if (found >= 0) return sql__errf(b, x->pos, FL_EINVALID, "Column '%s' is ambiguous", name);
        found = (int)i;
      }
    if (found < 0) continue;
    uint32_t col = (uint32_t)found;
    if (o->cx->agg) {
      const sql_aggctx_t *ag = o->cx->agg;
      uint32_t k = 0;
      while (k < ag->nkeys &&
             !(ag->keys[k]->kind == SQL_BX_COL && ag->keys[k]->col == (uint32_t)found))
        k++;
      if (k == ag->nkeys)
        return sql__errf(b, x->pos, FL_EINVALID,
                         "'%s' must be an aggregate expression or appear in GROUP BY clause", name);
      col = k;
    }
    uint32_t l = 1;
    for (sql_outer_t *u = b->outer; l <= level; u = u->next, l++) u->used = true;
    sql_bexpr_t *e = bx_new(b, SQL_BX_OUTER, x->pos, 0);
    e->col = col;
    e->level = level;
    e->type = sc->cols[found].type;
    *out = e;
    return FL_OK;
  }
  return column_error(b, x);
}

static int bind_column(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x,
                       sql_bexpr_t **out) {
  const sql_qname_t *q = &x->u.column;
  const char *name = q->parts[q->n - 1].name;
  const sql_scope_t *sc = cx->agg ? cx->agg->pre : cx->scope;
  int found = -1;
  /* The query's own columns first, then those of an enclosing query. */
  for (int outer = 0; outer < 2 && found < 0; outer++)
    for (uint32_t i = 0; sc && i < sc->n; i++) {
      if (sc->cols[i].outer != (outer == 1)) continue;
      if (strcasecmp(sc->cols[i].name, name) != 0) continue;
      if (q->n > 1 && !qual_matches(sc->cols[i].qual, q, q->n - 1)) continue;
      if (found >= 0) return sql__errf(b, x->pos, FL_EINVALID, "Column '%s' is ambiguous", name);
      found = (int)i;
    }
  /* a.b where a is a row column (or t.a.b): field access. */
  if (found < 0 && q->n > 1 && sql__bind_row_path(b, cx, x, out) == FL_OK) return FL_OK;
  if (found < 0 && !b->hidden &&
      (strcmp(name, "$path") == 0 || strcmp(name, "$pos") == 0 || strcmp(name, "$partition") == 0 ||
       strcmp(name, "$file_modified_time") == 0))
    b->want_hidden = true; /* sql_bind_query binds again with the hidden columns */
  if (found < 0 && b->outer) return bind_outer_column(b, cx, x, out);
  if (found < 0) {
    fl_buf_t full;
    fl_buf_init(&full);
    for (size_t i = 0; i < q->n; i++) {
      if (i) fl_buf_append(&full, ".", 1);
      fl_buf_append(&full, q->parts[i].name, strlen(q->parts[i].name));
    }
    fl_buf_append(&full, "", 1);
    int rc = sql__errf(b, x->pos, FL_EINVALID, "Column '%s' cannot be resolved",
                       (const char *)full.data);
    fl_buf_free(&full);
    return rc;
  }
  if (cx->agg)
    return sql__errf(b, x->pos, FL_EINVALID,
                     "'%s' must be an aggregate expression or appear in GROUP BY clause", name);
  *out = sql__col_ref(b, (uint32_t)found, &sc->cols[found].type, x->pos);
  return FL_OK;
}

/* ---- aggregates ---- */

bool sql__has_agg(sql_binder_t *b, const sql_expr_t *e) {
  if (!e) return false;
  switch (e->kind) {
    case SQL_E_CALL: {
      const sql_call_t *c = &e->u.call;
      if (c->name.n == 1 && !c->over && !c->over_name.name &&
          b->o->resolver->is_aggregate(b->o->resolver->ctx, c->name.parts[0].name))
        return true;
      /* rank() OVER (ORDER BY sum(x)): the window is over the aggregation. */
      if (c->over) {
        for (size_t i = 0; i < c->over->partition_by.n; i++)
          if (sql__has_agg(b, c->over->partition_by.items[i])) return true;
        for (size_t i = 0; i < c->over->order_by.n; i++)
          if (sql__has_agg(b, c->over->order_by.items[i].expr)) return true;
      }
      for (size_t i = 0; i < c->args.n; i++)
        if (sql__has_agg(b, c->args.items[i])) return true;
      return false;
    }
    case SQL_E_UNARY: return sql__has_agg(b, e->u.unary.arg);
    case SQL_E_BINARY_OP: return sql__has_agg(b, e->u.bin.l) || sql__has_agg(b, e->u.bin.r);
    case SQL_E_IS_NULL: return sql__has_agg(b, e->u.is_null.arg);
    case SQL_E_IS_DISTINCT:
      return sql__has_agg(b, e->u.is_distinct.l) || sql__has_agg(b, e->u.is_distinct.r);
    case SQL_E_BETWEEN:
      return sql__has_agg(b, e->u.between.arg) || sql__has_agg(b, e->u.between.lo) ||
             sql__has_agg(b, e->u.between.hi);
    case SQL_E_IN_LIST:
      if (sql__has_agg(b, e->u.in_list.arg)) return true;
      for (size_t i = 0; i < e->u.in_list.list.n; i++)
        if (sql__has_agg(b, e->u.in_list.list.items[i])) return true;
      return false;
    case SQL_E_LIKE: return sql__has_agg(b, e->u.like.arg) || sql__has_agg(b, e->u.like.pattern);
    case SQL_E_CASE:
      if (sql__has_agg(b, e->u.case_.operand) || sql__has_agg(b, e->u.case_.else_)) return true;
      for (size_t i = 0; i < e->u.case_.nwhens; i++)
        if (sql__has_agg(b, e->u.case_.whens[i].when) || sql__has_agg(b, e->u.case_.whens[i].then))
          return true;
      return false;
    case SQL_E_CAST: return sql__has_agg(b, e->u.cast.arg);
    case SQL_E_EXTRACT: return sql__has_agg(b, e->u.extract.arg);
    default: return false;
  }
}

bool sql__has_subquery(const sql_expr_t *e) {
  if (!e) return false;
  switch (e->kind) {
    case SQL_E_SUBQUERY:
    case SQL_E_IN_QUERY:
    case SQL_E_EXISTS:
    case SQL_E_QUANTIFIED: return true;
    case SQL_E_CALL:
      for (size_t i = 0; i < e->u.call.args.n; i++)
        if (sql__has_subquery(e->u.call.args.items[i])) return true;
      return false;
    case SQL_E_UNARY: return sql__has_subquery(e->u.unary.arg);
    case SQL_E_BINARY_OP: return sql__has_subquery(e->u.bin.l) || sql__has_subquery(e->u.bin.r);
    case SQL_E_IS_NULL: return sql__has_subquery(e->u.is_null.arg);
    case SQL_E_IS_DISTINCT:
      return sql__has_subquery(e->u.is_distinct.l) || sql__has_subquery(e->u.is_distinct.r);
    case SQL_E_BETWEEN:
      return sql__has_subquery(e->u.between.arg) || sql__has_subquery(e->u.between.lo) ||
             sql__has_subquery(e->u.between.hi);
    case SQL_E_IN_LIST:
      if (sql__has_subquery(e->u.in_list.arg)) return true;
      for (size_t i = 0; i < e->u.in_list.list.n; i++)
        if (sql__has_subquery(e->u.in_list.list.items[i])) return true;
      return false;
    case SQL_E_LIKE:
      return sql__has_subquery(e->u.like.arg) || sql__has_subquery(e->u.like.pattern);
    case SQL_E_CASE:
      if (sql__has_subquery(e->u.case_.operand) || sql__has_subquery(e->u.case_.else_)) return true;
      for (size_t i = 0; i < e->u.case_.nwhens; i++)
        if (sql__has_subquery(e->u.case_.whens[i].when) ||
            sql__has_subquery(e->u.case_.whens[i].then))
          return true;
      return false;
    case SQL_E_CAST: return sql__has_subquery(e->u.cast.arg);
    case SQL_E_EXTRACT: return sql__has_subquery(e->u.extract.arg);
    default: return false;
  }
}

static uint32_t agg_proj_add(sql_binder_t *b, sql_aggctx_t *ag, sql_bexpr_t *e) {
  for (uint32_t i = 0; i < ag->nproj; i++)
    if (sql_bexpr_equal(ag->proj[i], e)) return i;
  if (ag->nproj == ag->proj_cap) {
    uint32_t cap = ag->proj_cap ? ag->proj_cap * 2 : 8;
    sql_bexpr_t **n = fl_arena_alloc(b->a, cap * sizeof *n);
    if (ag->nproj) memcpy(n, ag->proj, ag->nproj * sizeof *n);
    ag->proj = n;
    ag->proj_cap = cap;
  }
  ag->proj[ag->nproj] = e;
  return ag->nproj++;
}

static int bind_agg_call(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x,
                         const char *name, sql_bexpr_t **out) {
  const sql_call_t *c = &x->u.call;
  sql_aggctx_t *ag = cx->agg;
  if (!ag)
    return sql__errf(b, x->pos, FL_EINVALID,
                     "%s cannot contain aggregations, window functions or grouping operations",
                     cx->clause ? cx->clause : "This expression");
  if (c->over)
    return sql__errf(b, x->pos, FL_EUNSUPPORTED, "Window functions are not supported yet");
  if (c->order_by.n)
    return sql__errf(b, x->pos, FL_EUNSUPPORTED,
                     "ORDER BY inside an aggregate is not supported yet");
  /* Arguments are bound below the aggregation, where aggregates nest not. */
  sql_ectx_t in = {.scope = ag->pre, .clause = "Aggregate arguments", .quiet = cx->quiet};
  sql_bexpr_t *arg = NULL, *filt = NULL;
  double param = 0;
  uint32_t nparams = 0;
  int rc;
  if (c->star || (!strcmp(name, "count") && c->args.n == 0)) {
    if (c->distinct) return sql__errf(b, x->pos, FL_EINVALID, "count(DISTINCT *) is not valid");
  } else {
    if (c->args.n == 2) {
      /* A constant parameter after the argument: approx_percentile(x, 0.5),
       * approx_distinct(x, 0.01). */
      const sql_expr_t *px = c->args.items[1];
      if (px->kind == SQL_E_INT) {
        param = (double)px->u.i.value;
      } else if (px->kind == SQL_E_DECIMAL || px->kind == SQL_E_DOUBLE) {
        param = strtod(px->u.num.text, NULL);
      } else {
        return sql__errf(b, px->pos, FL_EUNSUPPORTED,
                         "The second argument of %s must be a numeric literal", name);
      }
      nparams = 1;
    } else if (c->args.n != 1) {
      return sql__errf(b, x->pos, FL_EUNSUPPORTED, "%s with %zu arguments is not supported yet",
                       name, c->args.n);
    }
    if ((rc = sql__bind_expr(b, &in, c->args.items[0], &arg))) return rc;
  }
  if (c->filter && (rc = sql__bind_cond(b, &in, c->filter, "FILTER", &filt))) return rc;
  sql_dtype_t ret;
  rc = b->o->resolver->aggregate(b->o->resolver->ctx, name, arg ? &arg->type : NULL, c->distinct,
                                 &param, nparams, &ret, b->err);
  if (rc) {
    b->err->code = rc;
    return fl_err_prefix(b->err, "line %u, column %u: ", (x->pos).line, (x->pos).col);
  }
  int32_t arg_col = arg ? (int32_t)agg_proj_add(b, ag, arg) : -1;
  int32_t filter_col = filt ? (int32_t)agg_proj_add(b, ag, filt) : -1;
  uint32_t j = 0;
  for (; j < ag->naggs; j++) {
    const sql_agg_call_t *o = &ag->aggs[j];
    if (!strcmp(o->name, name) && o->distinct == c->distinct && o->arg_col == arg_col &&
        o->filter_col == filter_col && o->nparams == nparams && o->param == param)
      break;
  }
  if (j == ag->naggs) {
    if (ag->naggs == ag->aggs_cap) {
      uint32_t cap = ag->aggs_cap ? ag->aggs_cap * 2 : 8;
      sql_agg_call_t *n = fl_arena_alloc(b->a, cap * sizeof *n);
      if (ag->naggs) memcpy(n, ag->aggs, ag->naggs * sizeof *n);
      ag->aggs = n;
      ag->aggs_cap = cap;
    }
    ag->aggs[ag->naggs++] = (sql_agg_call_t){.name = fl_arena_strdup(b->a, name),
                                             .distinct = c->distinct,
                                             .arg_col = arg_col,
                                             .filter_col = filter_col,
                                             .type = ret,
                                             .param = param,
                                             .nparams = nparams};
  }
  *out = sql__col_ref(b, ag->agg_base + j, &ret, x->pos);
  return FL_OK;
}

/* ---- calls ---- */

static int bind_args(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_list_t *l,
                     sql_bexpr_t **out) {
  for (size_t i = 0; i < l->n; i++) {
    int rc = sql__bind_expr(b, cx, l->items[i], &out[i]);
    if (rc) return rc;
  }
  return FL_OK;
}

/* Casts every expression to their common type (CASE results, COALESCE). */
static int unify(sql_binder_t *b, sql_bexpr_t **es, uint32_t n, sql_dtype_t *out) {
  sql_dtype_t t = sql_dtype(SQL_DT_UNKNOWN);
  for (uint32_t i = 0; i < n; i++) {
    sql_dtype_t u;
    if (!sql__common(b, &t, &es[i]->type, &u))
      return sql__errf(b, es[i]->pos, FL_EINVALID, "All values must be the same type: %s vs %s",
                       sql_dtype_str(&t), sql_dtype_str(&es[i]->type));
    t = u;
  }
  for (uint32_t i = 0; i < n; i++) {
    int rc = sql__coerce(b, es[i], &t, &es[i]);
    if (rc) return rc;
  }
  *out = t;
  return FL_OK;
}

/*
 * grouping(a, b, ...): a bit per argument, the first the highest, set when
 * that key is not grouped on in the row's grouping set. Each set's value
 * is a constant, so this is CASE $grouping_set WHEN i THEN mask_i END.
 */
static int bind_grouping(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x,
                         sql_bexpr_t **out) {
  const sql_call_t *c = &x->u.call;
  sql_aggctx_t *ag = cx->agg;
  if (!ag || !ag->nkeys)
    return sql__errf(b, x->pos, FL_EINVALID, "grouping() requires a GROUP BY clause");
  if (c->args.n < 1 || c->args.n > 62)
    return sql__errf(b, x->pos, FL_EINVALID, "grouping() takes 1 to 62 arguments");
  uint32_t keys[62];
  sql_ectx_t below = {.scope = ag->pre, .clause = "grouping() arguments"};
  for (size_t i = 0; i < c->args.n; i++) {
    sql_bexpr_t *e;
    int rc = sql__bind_expr(b, &below, c->args.items[i], &e);
    if (rc) return rc;
    uint32_t k = 0;
    while (k < ag->nkeys && !sql_bexpr_equal(ag->keys[k], e)) k++;
    if (k == ag->nkeys)
      return sql__errf(
          b, c->args.items[i]->pos, FL_EINVALID,
          "The arguments to GROUPING() must be expressions referenced by the GROUP BY");
    keys[i] = k;
  }
  sql_dtype_t it = sql_dtype(SQL_DT_INTEGER);
  uint32_t nsets = ag->nsets ? ag->nsets : 1;
  sql_bexpr_t *e = bx_new(b, SQL_BX_CASE, x->pos, 2 * nsets + 1);
  e->type = it;
  sql_dtype_t bt = sql_dtype(SQL_DT_BIGINT);
  for (uint32_t s = 0; s < nsets; s++) {
    uint64_t set = ag->nsets ? ag->sets[s] : ~0ull;
    int64_t mask = 0;
    for (size_t i = 0; i < c->args.n; i++) mask = (mask << 1) | ((set >> keys[i]) & 1 ? 0 : 1);
    sql_bexpr_t *cond;
    if (ag->nsets) {
      sql_bexpr_t *idx = const_new(b, x->pos, SQL_DT_BIGINT);
      idx->c.i = s;
      int rc = call2(b, "=", x->pos, sql__col_ref(b, ag->nkeys, &bt, x->pos), idx, &cond);
      if (rc) return rc;
    } else {
      cond = const_new(b, x->pos, SQL_DT_BOOLEAN);
      cond->c.b = true;
    }
    e->args[2 * s] = cond;
    sql_bexpr_t *m = const_new(b, x->pos, SQL_DT_INTEGER);
    m->c.i = mask;
    e->args[2 * s + 1] = m;
  }
  sql_bexpr_t *z = const_new(b, x->pos, SQL_DT_INTEGER);
  e->args[2 * nsets] = z;
  *out = e;
  return FL_OK;
}

static int bind_fcall(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x,
                      sql_bexpr_t **out) {
  const sql_call_t *c = &x->u.call;
  if (c->name.n != 1)
    return sql__errf(b, x->pos, FL_ENOTFOUND, "Function '%s' not registered",
                     c->name.parts[c->name.n - 1].name);
  char name[128];
  snprintf(name, sizeof name, "%s", c->name.parts[0].name);
  for (char *p = name; *p; p++)
    if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
  if (c->over || c->over_name.name) return sql__bind_window_call(b, cx, x, name, out);
  if (b->o->resolver->is_aggregate(b->o->resolver->ctx, name))
    return bind_agg_call(b, cx, x, name, out);
  if (!strcmp(name, "grouping")) return bind_grouping(b, cx, x, out);
  if (c->over)
    return sql__errf(b, x->pos, FL_EUNSUPPORTED, "Window functions are not supported yet");
  if (c->distinct || c->filter)
    return sql__errf(b, x->pos, FL_EINVALID,
                     "DISTINCT and FILTER are only valid with aggregates: %s", name);
  if (c->arg_names)
    return sql__errf(b, x->pos, FL_EINVALID, "Named arguments are not valid for %s", name);
  if (c->args.n > SQL_MAX_ARGS)
    return sql__errf(b, x->pos, FL_EINVALID, "Too many arguments for %s", name);
  if ((c->args.n == 2 && c->args.items[1]->kind == SQL_E_LAMBDA) ||
      (c->args.n == 4 && c->args.items[2]->kind == SQL_E_LAMBDA))
    return sql__bind_lambda_call(b, cx, x, name, out);
  sql_bexpr_t *args[SQL_MAX_ARGS];
  int rc = bind_args(b, cx, &c->args, args);
  if (rc) return rc;
  uint32_t n = (uint32_t)c->args.n;
  if (!strcmp(name, "coalesce")) {
    if (n < 1) return sql__errf(b, x->pos, FL_EINVALID, "coalesce needs at least one argument");
    sql_bexpr_t *e = bx_new(b, SQL_BX_COALESCE, x->pos, n);
    memcpy(e->args, args, n * sizeof *args);
    if ((rc = unify(b, e->args, n, &e->type))) return rc;
    *out = e;
    return FL_OK;
  }
  if (!strcmp(name, "if")) {
    if (n != 2 && n != 3) return sql__errf(b, x->pos, FL_EINVALID, "if takes 2 or 3 arguments");
    sql_bexpr_t *e = bx_new(b, SQL_BX_CASE, x->pos, 3);
    if ((rc = bool_arg(b, args[0], "IF condition", &e->args[0]))) return rc;
    e->args[1] = args[1];
    e->args[2] = n == 3 ? args[2] : const_new(b, x->pos, SQL_DT_UNKNOWN);
    if (n == 2) e->args[2]->c.null = true;
    sql_bexpr_t *vals[2] = {e->args[1], e->args[2]};
    if ((rc = unify(b, vals, 2, &e->type))) return rc;
    e->args[1] = vals[0];
    e->args[2] = vals[1];
    *out = e;
    return FL_OK;
  }
  return bind_call(b, name, x->pos, args, n, out);
}

static int bind_case(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x,
                     sql_bexpr_t **out) {
  size_t nw = x->u.case_.nwhens;
  sql_bexpr_t *e = bx_new(b, SQL_BX_CASE, x->pos, (uint32_t)(2 * nw + 1));
  sql_bexpr_t *operand = NULL;
  int rc;
  if (x->u.case_.operand && (rc = sql__bind_expr(b, cx, x->u.case_.operand, &operand))) return rc;
  sql_bexpr_t **vals = fl_arena_alloc(b->a, (nw + 1) * sizeof *vals);
  for (size_t i = 0; i < nw; i++) {
    sql_bexpr_t *w;
    if ((rc = sql__bind_expr(b, cx, x->u.case_.whens[i].when, &w))) return rc;
    if (operand) {
      if ((rc = call2(b, "=", x->u.case_.whens[i].when->pos, operand, w, &w))) return rc;
    }
    if ((rc = bool_arg(b, w, "CASE WHEN clause", &e->args[2 * i]))) return rc;
    if ((rc = sql__bind_expr(b, cx, x->u.case_.whens[i].then, &vals[i]))) return rc;
  }
  if (x->u.case_.else_) {
    if ((rc = sql__bind_expr(b, cx, x->u.case_.else_, &vals[nw]))) return rc;
  } else {
    vals[nw] = const_new(b, x->pos, SQL_DT_UNKNOWN);
    vals[nw]->c.null = true;
  }
  if ((rc = unify(b, vals, (uint32_t)nw + 1, &e->type))) return rc;
  for (size_t i = 0; i < nw; i++) e->args[2 * i + 1] = vals[i];
  e->args[2 * nw] = vals[nw];
  /* The evaluator marks branches in a byte per row: a CASE of many WHENs
   * becomes a chain, the rest of the WHENs in the ELSE of the first 200. */
  for (sql_bexpr_t *c = e; c->nargs > 2 * 200 + 1;) {
    sql_bexpr_t *rest = bx_new(b, SQL_BX_CASE, c->pos, 0);
    rest->type = c->type;
    rest->nargs = c->nargs - 400;
    rest->args = c->args + 400;
    c->nargs = 401;
    sql_bexpr_t **head = fl_arena_alloc(b->a, 401 * sizeof *head);
    memcpy(head, c->args, 400 * sizeof *head);
    head[400] = rest;
    c->args = head;
    c = rest;
  }
  *out = e;
  return FL_OK;
}

/* ---- types ---- */

int sql_bind_type(const sql_type_t *t, sql_dtype_t *out, fl_err_t *err) {
  return sql_bind_type_in(NULL, t, out, err);
}

int sql_bind_type_in(fl_arena_t *a, const sql_type_t *t, sql_dtype_t *out, fl_err_t *err) {
  static const sql_dkind_t map[SQL_TY_KIND_COUNT] = {
      [SQL_TY_BOOLEAN] = SQL_DT_BOOLEAN,     [SQL_TY_TINYINT] = SQL_DT_TINYINT,
      [SQL_TY_SMALLINT] = SQL_DT_SMALLINT,   [SQL_TY_INTEGER] = SQL_DT_INTEGER,
      [SQL_TY_BIGINT] = SQL_DT_BIGINT,       [SQL_TY_REAL] = SQL_DT_REAL,
      [SQL_TY_DOUBLE] = SQL_DT_DOUBLE,       [SQL_TY_DECIMAL] = SQL_DT_DECIMAL,
      [SQL_TY_VARCHAR] = SQL_DT_VARCHAR,     [SQL_TY_CHAR] = SQL_DT_VARCHAR,
      [SQL_TY_VARBINARY] = SQL_DT_VARBINARY, [SQL_TY_DATE] = SQL_DT_DATE,
      [SQL_TY_TIME] = SQL_DT_TIME,           [SQL_TY_TIMESTAMP] = SQL_DT_TIMESTAMP,
      [SQL_TY_UUID] = SQL_DT_UUID,           [SQL_TY_JSON] = SQL_DT_JSON,
      [SQL_TY_FIXED] = SQL_DT_VARBINARY,
  };
  *out = (sql_dtype_t){0};
  if (a && (t->kind == SQL_TY_ARRAY || t->kind == SQL_TY_MAP)) {
    sql_dtype_t *e = fl_arena_zalloc(a, sizeof *e);
    int rc = sql_bind_type_in(a, t->kind == SQL_TY_MAP ? t->value : t->elem, e, err);
    if (rc) return rc;
    out->kind = t->kind == SQL_TY_MAP ? SQL_DT_MAP : SQL_DT_ARRAY;
    out->elem = e;
    if (t->kind == SQL_TY_MAP) {
      sql_dtype_t *k = fl_arena_zalloc(a, sizeof *k);
      if ((rc = sql_bind_type_in(a, t->elem, k, err))) return rc;
      out->key = k;
    }
    return FL_OK;
  }
  if (a && t->kind == SQL_TY_ROW) {
    sql_dfield_t *f = fl_arena_zalloc(a, (t->nfields ? t->nfields : 1) * sizeof *f);
    for (size_t i = 0; i < t->nfields; i++) {
      f[i].name = t->fields[i].name.name;
      int rc = sql_bind_type_in(a, t->fields[i].type, &f[i].type, err);
      if (rc) return rc;
    }
    out->kind = SQL_DT_ROW;
    out->fields = f;
    out->nfields = (uint32_t)t->nfields;
    return FL_OK;
  }
  sql_dkind_t k = map[t->kind];
  if (k == SQL_DT_UNKNOWN)
    return fl_err_set(err, FL_EUNSUPPORTED, "line %u, column %u: Type %s is not supported yet",
                      t->pos.line, t->pos.col, sql_type_kind_name(t->kind));
  if (k == SQL_DT_TIMESTAMP && t->with_tz) k = SQL_DT_TIMESTAMPTZ;
  out->kind = k;
  /* timestamp(7..9) keeps nanoseconds; lower precisions are kept in micros. */
  if (k == SQL_DT_TIMESTAMP || k == SQL_DT_TIMESTAMPTZ) {
    if (t->nparams >= 1 && t->params[0] > 6) out->precision = 9;
  }
  if (k == SQL_DT_DECIMAL) {
    int64_t p = t->nparams >= 1 ? t->params[0] : 38, s = t->nparams >= 2 ? t->params[1] : 0;
    if (p < 1 || p > 38 || s < 0 || s > p)
      return fl_err_set(err, FL_EINVALID, "line %u, column %u: Invalid decimal precision or scale",
                        t->pos.line, t->pos.col);
    out->precision = (uint8_t)p;
    out->scale = (uint8_t)s;
  }
  return FL_OK;
}

/* ---- the dispatcher ---- */

static const char *const binop_fn[SQL_OP_COUNT] = {
    [SQL_OP_EQ] = "=",  [SQL_OP_NE] = "<>", [SQL_OP_LT] = "<",      [SQL_OP_LE] = "<=",
    [SQL_OP_GT] = ">",  [SQL_OP_GE] = ">=", [SQL_OP_CONCAT] = "||", [SQL_OP_ADD] = "+",
    [SQL_OP_SUB] = "-", [SQL_OP_MUL] = "*", [SQL_OP_DIV] = "/",     [SQL_OP_MOD] = "%",
};

static int negate(sql_binder_t *b, sql_pos_t pos, bool neg, sql_bexpr_t *e, sql_bexpr_t **out) {
  if (!neg) {
    *out = e;
    return FL_OK;
  }
  return call2(b, "not", pos, e, NULL, out);
}

/* Binds subquery q with the names of the query it is in (cx) and of
 * the queries around that visible; *corr tells whether it uses any. */
static int bind_sub(sql_binder_t *b, const sql_ectx_t *cx, const sql_query_t *q, sql_plan_t **out,
                    bool *corr) {
  sql_outer_t o = {.cx = cx, .next = b->outer};
  b->outer = &o;
  int rc = sql__bind_query(b, q, out);
  b->outer = o.next;
  *corr = o.used;
  return rc;
}

/* A subquery of one column (see bind_sub). */
static int bind_subquery(sql_binder_t *b, const sql_ectx_t *cx, const sql_query_t *q, sql_pos_t pos,
                         sql_plan_t **out, bool *corr) {
  int rc = bind_sub(b, cx, q, out, corr);
  if (rc) return rc;
  if ((*out)->ncols != 1)
    return sql__errf(b, pos, FL_EUNSUPPORTED,
                     "Multiple columns returned by subquery are not yet supported. Found %u",
                     (*out)->ncols);
  return FL_OK;
}

static int bind_node(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x, sql_bexpr_t **out);

/* A correlated subquery q as an APPLY node of the clause (cx->subq); the
 * expression is the placeholder column of its result. */
static int add_apply(sql_binder_t *b, const sql_ectx_t *cx, sql_pos_t pos, sql_apply_kind_t kind,
                     sql_plan_t *q, sql_bexpr_t *arg, const char *cmp, sql_bexpr_t **out) {
  if (!cx->subq)
    return sql__errf(b, pos, FL_EUNSUPPORTED,
                     kind == SQL_AK_SCALAR || kind == SQL_AK_EXISTS
                         ? "Correlated subqueries are not supported in %s"
                         : "Correlated or quantified subqueries are not supported in %s",
                     cx->clause ? cx->clause : "this place");
  sql_subq_t *sq = cx->subq;
  if (sq->n == sq->cap) {
    uint32_t cap = sq->cap ? sq->cap * 2 : 4;
    sql_plan_t **n = fl_arena_alloc(b->a, cap * sizeof *n);
    if (sq->n) memcpy(n, sq->applies, sq->n * sizeof *n);
    sq->applies = n;
    sq->cap = cap;
  }
  sql_plan_t *ap = fl_arena_zalloc(b->a, sizeof *ap);
  ap->kind = SQL_P_APPLY;
  ap->inputs = fl_arena_zalloc(b->a, 2 * sizeof *ap->inputs);
  ap->inputs[1] = q;
  ap->ninputs = 2;
  ap->u.apply.kind = kind;
  ap->u.apply.arg = arg;
  ap->u.apply.cmp = cmp;
  sq->applies[sq->n] = ap;
  sql_dtype_t t = kind == SQL_AK_SCALAR ? q->cols[0].type : sql_dtype(SQL_DT_BOOLEAN);
  *out = sql__col_ref(b, SQL_SUBQ_COL + sq->n++, &t, pos);
  return FL_OK;
}

/* Rewrites placeholder columns SQL_SUBQ_COL + k to base + k. */
static void fix_subq_cols(sql_bexpr_t *e, uint32_t base) {
  if (!e) return;
  if (e->kind == SQL_BX_COL && e->col >= SQL_SUBQ_COL && e->col < SQL_WIN_COL)
    e->col = base + (e->col - SQL_SUBQ_COL);
  for (uint32_t i = 0; i < e->nargs; i++) fix_subq_cols(e->args[i], base);
}

void sql__plan_applies(sql_binder_t *b, sql_subq_t *q, sql_plan_t **pp, sql_bexpr_t **exprs,
                       uint32_t n) {
  if (!q->n) return;
  sql_plan_t *p = *pp;
  uint32_t base = p->ncols;
  for (uint32_t k = 0; k < q->n; k++) {
    sql_plan_t *ap = q->applies[k];
    fix_subq_cols(ap->u.apply.arg, base);
    ap->inputs[0] = p;
    ap->in = p;
    ap->ncols = p->ncols + 1;
    ap->cols = fl_arena_zalloc(b->a, ap->ncols * sizeof *ap->cols);
    if (p->ncols) memcpy(ap->cols, p->cols, p->ncols * sizeof *ap->cols);
    sql_dtype_t t =
        ap->u.apply.kind == SQL_AK_SCALAR ? ap->inputs[1]->cols[0].type : sql_dtype(SQL_DT_BOOLEAN);
    ap->cols[p->ncols] = (sql_col_t){.name = fl_arena_sprintf(b->a, "$subquery%u", k), .type = t};
    p = ap;
  }
  for (uint32_t i = 0; i < n; i++) fix_subq_cols(exprs[i], base);
  q->n = 0;
  *pp = p;
}

/* Casts subquery p's one column to t (a projection). */
static int cast_sub_col(sql_binder_t *b, sql_plan_t **p, const sql_dtype_t *t) {
  if (sql_dtype_equal(t, &(*p)->cols[0].type)) return FL_OK;
  *p = sql__project_all(b, *p);
  int rc = sql__coerce(b, (*p)->u.project.exprs[0], t, &(*p)->u.project.exprs[0]);
  if (rc) return rc;
  (*p)->cols[0].type = *t;
  return FL_OK;
}

/* x op ANY | ALL (q): x and q's column coerced to their common type; IN
 * is = ANY. Correlated ones, and uncorrelated ones other than = ANY and
 * <> ALL (which run as IN lists), become APPLY nodes. */
static int bind_quantified(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x,
                           const sql_expr_t *arg, const sql_query_t *query, const char *cmp,
                           bool all, bool negated, sql_bexpr_t **out) {
  sql_plan_t *p;
  sql_bexpr_t *l;
  bool corr;
  int rc;
  if ((rc = sql__bind_expr(b, cx, arg, &l)) ||
      (rc = bind_subquery(b, cx, query, query->pos, &p, &corr)))
    return rc;
  sql_dtype_t t;
  if (!sql__common(b, &l->type, &p->cols[0].type, &t))
    return sql__errf(b, x->pos, FL_EINVALID,
                     "Value expression and result of subquery must be of the same type: %s vs %s",
                     sql_dtype_str(&l->type), sql_dtype_str(&p->cols[0].type));
  if ((rc = sql__coerce(b, l, &t, &l)) || (rc = cast_sub_col(b, &p, &t))) return rc;
  bool in_form = (!all && !strcmp(cmp, "=")) || (all && !strcmp(cmp, "<>"));
  sql_bexpr_t *e;
  if (!corr && in_form) {
    e = bx_new(b, SQL_BX_IN_QUERY, x->pos, 1);
    e->args[0] = l;
    e->plan = p;
    e->type = sql_dtype(SQL_DT_BOOLEAN);
    return negate(b, x->pos, negated != all, e, out);
  }
  /* The comparison must exist for these types. */
  sql_bexpr_t *probe;
  if ((rc = call2(b, cmp, x->pos, l, sql__col_ref(b, 0, &t, x->pos), &probe))) return rc;
  if ((rc = add_apply(b, cx, x->pos, all ? SQL_AK_ALL : SQL_AK_ANY, p, l, cmp, &e))) return rc;
  return negate(b, x->pos, negated, e, out);
}

/* EXISTS (q): correlated, an APPLY node; uncorrelated, the scalar
 * subquery SELECT count(*) > 0 FROM (q LIMIT 1), run once. */
static int bind_exists(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x,
                       sql_bexpr_t **out) {
  sql_plan_t *q;
  bool corr;
  int rc = bind_sub(b, cx, x->u.query, &q, &corr);
  if (rc) return rc;
  if (corr) return add_apply(b, cx, x->pos, SQL_AK_EXISTS, q, NULL, NULL, out);
  sql_plan_t *l = sql_plan_new(b->a, SQL_P_LIMIT, q);
  l->u.limit.limit = 1;
  l->cols = q->cols;
  l->ncols = q->ncols;
  sql_plan_t *pre = sql_plan_new(b->a, SQL_P_PROJECT, l);
  pre->u.project.exprs = fl_arena_zalloc(b->a, sizeof(sql_bexpr_t *));
  pre->cols = fl_arena_zalloc(b->a, sizeof *pre->cols);
  sql_plan_t *ag = sql_plan_new(b->a, SQL_P_AGGREGATE, pre);
  sql_dtype_t bt = sql_dtype(SQL_DT_BIGINT);
  ag->u.agg.naggs = 1;
  ag->u.agg.aggs = fl_arena_zalloc(b->a, sizeof *ag->u.agg.aggs);
  ag->u.agg.aggs[0] =
      (sql_agg_call_t){.name = "count", .arg_col = -1, .filter_col = -1, .type = bt};
  ag->u.agg.keys = fl_arena_zalloc(b->a, sizeof(uint32_t));
  ag->ncols = 1;
  ag->cols = fl_arena_zalloc(b->a, sizeof *ag->cols);
  ag->cols[0] = (sql_col_t){.name = "count", .type = bt};
  sql_bexpr_t *zero = const_new(b, x->pos, SQL_DT_BIGINT), *gt;
  if ((rc = call2(b, ">", x->pos, sql__col_ref(b, 0, &bt, x->pos), zero, &gt))) return rc;
  sql_plan_t *top = sql_plan_new(b->a, SQL_P_PROJECT, ag);
  top->ncols = 1;
  top->cols = fl_arena_zalloc(b->a, sizeof *top->cols);
  top->cols[0] = (sql_col_t){.name = "exists", .type = gt->type};
  top->u.project.exprs = fl_arena_zalloc(b->a, sizeof(sql_bexpr_t *));
  top->u.project.exprs[0] = gt;
  sql_bexpr_t *e = bx_new(b, SQL_BX_SUBQUERY, x->pos, 0);
  e->plan = top;
  e->type = gt->type;
  *out = e;
  return FL_OK;
}

static int bind_node(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x,
                     sql_bexpr_t **out) {
  int rc;
  sql_bexpr_t *l, *r;
  switch (x->kind) {
    case SQL_E_INT: {
      sql_bexpr_t *e = const_new(
          b, x->pos,
          x->u.i.value >= INT32_MIN && x->u.i.value <= INT32_MAX ? SQL_DT_INTEGER : SQL_DT_BIGINT);
      e->c.i = x->u.i.value;
      *out = e;
      return FL_OK;
    }
    case SQL_E_DECIMAL: return bind_decimal_lit(b, x, out);
    case SQL_E_DOUBLE: {
      sql_bexpr_t *e = const_new(b, x->pos, SQL_DT_DOUBLE);
      e->c.d = strtod(x->u.num.text, NULL);
      *out = e;
      return FL_OK;
    }
    case SQL_E_STRING: *out = const_str(b, x->pos, x->u.str.data, x->u.str.len); return FL_OK;
    case SQL_E_BINARY: {
      /* X'..': the bytes as a varchar constant under a CAST to varbinary. */
      sql_bexpr_t *s = const_str(b, x->pos, x->u.str.data, x->u.str.len);
      sql_dtype_t vb = sql_dtype(SQL_DT_VARBINARY);
      return sql__coerce(b, s, &vb, out);
    }
    case SQL_E_BOOL: {
      sql_bexpr_t *e = const_new(b, x->pos, SQL_DT_BOOLEAN);
      e->c.b = x->u.b;
      *out = e;
      return FL_OK;
    }
    case SQL_E_NULL: {
      sql_bexpr_t *e = const_new(b, x->pos, SQL_DT_UNKNOWN);
      e->c.null = true;
      *out = e;
      return FL_OK;
    }
    case SQL_E_TYPED: {
      sql_dtype_t t;
      if ((rc = sql_bind_type_in(b->a, x->u.typed.type, &t, b->err))) return rc;
      /* TIMESTAMP '... UTC' or '...+01:00' is a timestamp with time zone, as in Trino. */
      if (t.kind == SQL_DT_TIMESTAMP) {
        for (size_t i = 10; i < x->u.typed.len; i++) {
          char ch = x->u.typed.data[i];
          if (ch == '+' || ch == '-' || (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z')) {
            if (ch == 'T' && i == 10) continue;
            t.kind = SQL_DT_TIMESTAMPTZ;
            break;
          }
        }
      }
      /* TIMESTAMP '... .123456789' has the precision its digits need. */
      if (t.kind == SQL_DT_TIMESTAMP || t.kind == SQL_DT_TIMESTAMPTZ) {
        const char *d = x->u.typed.data;
        size_t n = x->u.typed.len, i = 0, digits = 0;
        while (i < n && d[i] != '.') i++;
        for (i++; i < n && d[i] >= '0' && d[i] <= '9'; i++) digits++;
        if (digits > 6) t.precision = 9;
      }
      sql_bexpr_t *s = const_str(b, x->pos, x->u.typed.data, x->u.typed.len);
      /* JSON '[1, 2]' is the parsed text (a CAST of a varchar to json
       * is a JSON string instead, as in Trino). */
      if (t.kind == SQL_DT_JSON) return call2(b, "json_parse", x->pos, s, NULL, out);
      if ((rc = sql__coerce(b, s, &t, out))) return rc;
      return FL_OK;
    }
    case SQL_E_COLUMN: return bind_column(b, cx, x, out);
    case SQL_E_INTERVAL: return bind_interval(b, x, out);
    case SQL_E_UNARY:
      if ((rc = sql__bind_expr(b, cx, x->u.unary.arg, &l))) return rc;
      if (x->u.unary.op == SQL_UN_PLUS) {
        *out = l;
        return FL_OK;
      }
      if (x->u.unary.op == SQL_UN_NOT) {
        if ((rc = bool_arg(b, l, "NOT operand", &l))) return rc;
        return call2(b, "not", x->pos, l, NULL, out);
      }
      return call2(b, "negate", x->pos, l, NULL, out);
    case SQL_E_BINARY_OP:
      if ((rc = sql__bind_expr(b, cx, x->u.bin.l, &l)) ||
          (rc = sql__bind_expr(b, cx, x->u.bin.r, &r)))
        return rc;
      if (x->u.bin.op == SQL_OP_AND) return bind_logic(b, SQL_BX_AND, x->pos, l, r, out);
      if (x->u.bin.op == SQL_OP_OR) return bind_logic(b, SQL_BX_OR, x->pos, l, r, out);
      return call2(b, binop_fn[x->u.bin.op], x->pos, l, r, out);
    case SQL_E_IS_NULL:
      if ((rc = sql__bind_expr(b, cx, x->u.is_null.arg, &l))) return rc;
      return call2(b, x->u.is_null.negated ? "is_not_null" : "is_null", x->pos, l, NULL, out);
    case SQL_E_IS_DISTINCT:
      if ((rc = sql__bind_expr(b, cx, x->u.is_distinct.l, &l)) ||
          (rc = sql__bind_expr(b, cx, x->u.is_distinct.r, &r)))
        return rc;
      return call2(b, x->u.is_distinct.negated ? "is_not_distinct_from" : "is_distinct_from",
                   x->pos, l, r, out);
    case SQL_E_BETWEEN: {
      sql_bexpr_t *args[3];
      if ((rc = sql__bind_expr(b, cx, x->u.between.arg, &args[0])) ||
          (rc = sql__bind_expr(b, cx, x->u.between.lo, &args[1])) ||
          (rc = sql__bind_expr(b, cx, x->u.between.hi, &args[2])))
        return rc;
      sql_bexpr_t *e;
      if ((rc = bind_call(b, "between", x->pos, args, 3, &e))) return rc;
      return negate(b, x->pos, x->u.between.negated, e, out);
    }
    case SQL_E_IN_LIST: {
      /* x IN (a, b) is x = a OR x = b under three-valued logic. */
      if ((rc = sql__bind_expr(b, cx, x->u.in_list.arg, &l))) return rc;
      sql_bexpr_t *acc = NULL;
      for (size_t i = 0; i < x->u.in_list.list.n; i++) {
        sql_bexpr_t *eq;
        if ((rc = sql__bind_expr(b, cx, x->u.in_list.list.items[i], &r)) ||
            (rc = call2(b, "=", x->u.in_list.list.items[i]->pos, l, r, &eq)))
          return rc;
        if (!acc)
          acc = eq;
        else if ((rc = bind_logic(b, SQL_BX_OR, x->pos, acc, eq, &acc)))
          return rc;
      }
      return negate(b, x->pos, x->u.in_list.negated, acc, out);
    }
    case SQL_E_LIKE: {
      sql_bexpr_t *args[3];
      uint32_t n = x->u.like.escape ? 3 : 2;
      if ((rc = sql__bind_expr(b, cx, x->u.like.arg, &args[0])) ||
          (rc = sql__bind_expr(b, cx, x->u.like.pattern, &args[1])) ||
          (n == 3 && (rc = sql__bind_expr(b, cx, x->u.like.escape, &args[2]))))
        return rc;
      sql_bexpr_t *e;
      if ((rc = bind_call(b, "like", x->pos, args, n, &e))) return rc;
      return negate(b, x->pos, x->u.like.negated, e, out);
    }
    case SQL_E_CASE: return bind_case(b, cx, x, out);
    case SQL_E_CAST: {
      sql_dtype_t t;
      if ((rc = sql_bind_type_in(b->a, x->u.cast.type, &t, b->err))) return rc;
      if ((rc = sql__bind_expr(b, cx, x->u.cast.arg, &l))) return rc;
      rc = b->o->resolver->cast(b->o->resolver->ctx, &l->type, &t, b->err);
      if (rc) {
        b->err->code = rc;
        return fl_err_prefix(b->err, "line %u, column %u: ", (x->pos).line, (x->pos).col);
      }
      sql_bexpr_t *e = bx_new(b, SQL_BX_CAST, x->pos, 1);
      e->args[0] = l;
      e->type = t;
      e->try_ = x->u.cast.try_;
      *out = e;
      return FL_OK;
    }
    case SQL_E_CALL: return bind_fcall(b, cx, x, out);
    case SQL_E_EXTRACT: {
      char fn[32];
      snprintf(fn, sizeof fn, "%s", sql_field_name(x->u.extract.field));
      for (char *p = fn; *p; p++)
        if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
      if ((rc = sql__bind_expr(b, cx, x->u.extract.arg, &l))) return rc;
      return call2(b, fn, x->pos, l, NULL, out);
    }
    case SQL_E_CURRENT: {
      const char *fn = x->u.current.which == SQL_KW_CURRENT_DATE        ? "current_date"
                       : x->u.current.which == SQL_KW_CURRENT_TIMESTAMP ? "current_timestamp"
                       : x->u.current.which == SQL_KW_LOCALTIMESTAMP    ? "localtimestamp"
                                                                        : NULL;
      if (!fn)
        return sql__errf(b, x->pos, FL_EUNSUPPORTED, "This CURRENT_ form is not supported yet");
      return bind_call(b, fn, x->pos, NULL, 0, out);
    }
    case SQL_E_SUBQUERY: {
      sql_plan_t *p;
      bool corr;
      if ((rc = bind_subquery(b, cx, x->u.query, x->pos, &p, &corr))) return rc;
      if (corr) return add_apply(b, cx, x->pos, SQL_AK_SCALAR, p, NULL, NULL, out);
      sql_bexpr_t *e = bx_new(b, SQL_BX_SUBQUERY, x->pos, 0);
      e->plan = p;
      e->type = p->cols[0].type;
      *out = e;
      return FL_OK;
    }
    case SQL_E_IN_QUERY:
      return bind_quantified(b, cx, x, x->u.in_query.arg, x->u.in_query.query, "=", false,
                             x->u.in_query.negated, out);
    case SQL_E_EXISTS: return bind_exists(b, cx, x, out);
    case SQL_E_QUANTIFIED: {
      const char *cmp = x->u.quant.op < SQL_OP_COUNT ? binop_fn[x->u.quant.op] : NULL;
      if (!cmp || x->u.quant.op > SQL_OP_GE || x->u.quant.op < SQL_OP_EQ)
        return sql__errf(b, x->pos, FL_EINVALID, "A quantified comparison needs a comparison");
      return bind_quantified(b, cx, x, x->u.quant.arg, x->u.quant.query, cmp,
                             x->u.quant.q == SQL_Q_ALL, false, out);
    }
    case SQL_E_ARRAY: return sql__bind_array(b, cx, x, out);
    case SQL_E_ROW: return sql__bind_row(b, cx, x, out);
    case SQL_E_DEREF: return sql__bind_deref(b, cx, x, out);
    case SQL_E_SUBSCRIPT: return sql__bind_subscript(b, cx, x, out);
    default:
      return sql__errf(b, x->pos, FL_EUNSUPPORTED, "%s expressions are not supported yet",
                       sql_expr_kind_name(x->kind));
  }
}

int sql__bind_expr(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *e, sql_bexpr_t **out) {
  if (++b->depth > 1000) {
    b->depth--;
    return sql__errf(b, e->pos, FL_ELIMIT, "Expression nested too deeply");
  }
  int rc;
  if (cx->agg) {
    /* Above an aggregation: an expression equal to a GROUP BY key is that
     * key. Try binding it below; failures only mean it is not one. */
    sql_ectx_t below = {.scope = cx->agg->pre, .clause = "GROUP BY", .quiet = true};
    fl_err_t saved = *b->err;
    sql_bexpr_t *t = NULL;
    bool is_lit = e->kind == SQL_E_INT || e->kind == SQL_E_STRING || e->kind == SQL_E_NULL ||
                  e->kind == SQL_E_BOOL || e->kind == SQL_E_DOUBLE;
    if (!is_lit && !sql__has_agg(b, e) && !sql__has_subquery(e) &&
        sql__bind_expr(b, &below, e, &t) == FL_OK) {
      for (uint32_t i = 0; i < cx->agg->nkeys; i++)
        if (sql_bexpr_equal(cx->agg->keys[i], t)) {
          *b->err = saved;
          b->depth--;
          *out = sql__col_ref(b, i, &t->type, e->pos);
          return FL_OK;
        }
    }
    *b->err = saved;
  }
  rc = bind_node(b, cx, e, out);
  b->depth--;
  return rc;
}

int sql__bind_cond(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *e, const char *clause,
                   sql_bexpr_t **out) {
  sql_bexpr_t *x;
  int rc = sql__bind_expr(b, cx, e, &x);
  if (rc) return rc;
  if (x->type.kind != SQL_DT_BOOLEAN && x->type.kind != SQL_DT_UNKNOWN)
    return sql__errf(b, e->pos, FL_EINVALID, "%s must evaluate to a boolean: actual type %s",
                     clause, sql_dtype_str(&x->type));
  sql_dtype_t t = sql_dtype(SQL_DT_BOOLEAN);
  return sql__coerce(b, x, &t, out);
}
