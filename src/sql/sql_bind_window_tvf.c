/*
 * sql_bind_window_tvf.c - Flink's windowing table-valued functions in
 * FROM (layer 7, sql):
 *
 *   TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), size [, offset]))
 *   TABLE(HOP(TABLE t, DESCRIPTOR(ts), slide, size [, offset]))
 *   TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), step, size [, offset]))
 *   TABLE(SESSION(TABLE t [PARTITION BY k], DESCRIPTOR(ts), gap))
 *
 * positionally or with Flink's argument names (DATA, TIMECOL, SIZE,
 * SLIDE, STEP, GAP, OFFSET). The data is a table, a view or a WITH name
 * (a subquery in TABLE(...) is taken too); the time column must be a
 * timestamp or timestamp with time zone (Flink's TIMESTAMP and
 * TIMESTAMP_LTZ); lengths are constant day-to-second intervals. The node
 * is a WINDOW_TVF over the data's plan whose columns are the data's plus
 * window_start, window_end and window_time. A GROUP BY window_start,
 * window_end above it becomes a window aggregation (opt_window_agg.c).
 */
#include <string.h>
#include <strings.h>

#include "sql/sql_bind_int.h"

typedef struct wdesc {
  const char *name;
  sql_wtvf_kind_t kind;
  const char *params[3]; /* the interval parameters in positional order */
  uint32_t nrequired;    /* of them */
} wdesc_t;

static const wdesc_t descs[] = {
    {"tumble", SQL_WT_TUMBLE, {"size", "offset"}, 1},
    {"hop", SQL_WT_HOP, {"slide", "size", "offset"}, 2},
    {"cumulate", SQL_WT_CUMULATE, {"step", "size", "offset"}, 2},
    {"session", SQL_WT_SESSION, {"gap"}, 1},
};

static const wdesc_t *find_desc(const sql_rel_t *rel) {
  const sql_qname_t *q = &rel->u.func.name;
  if (q->n != 1) return NULL;
  for (size_t i = 0; i < sizeof descs / sizeof descs[0]; i++)
    if (strcasecmp(q->parts[0].name, descs[i].name) == 0) return &descs[i];
  return NULL;
}

bool sql__is_window_tvf(const sql_rel_t *rel) { return find_desc(rel) != NULL; }

/* A constant day-to-second interval in microseconds. */
static int interval_arg(sql_binder_t *b, const wdesc_t *d, const char *param,
                        const sql_table_arg_t *a, int64_t *out) {
  if (a->kind != SQL_TARG_EXPR)
    return sql__errf(b, a->pos, FL_EINVALID, "%s: %s must be an interval", d->name, param);
  sql_scope_t none = {0};
  sql_ectx_t cx = {.scope = &none, .clause = "window table function"};
  sql_bexpr_t *e;
  int rc = sql__bind_expr(b, &cx, a->expr, &e);
  if (rc) return rc;
  if (e->type.kind == SQL_DT_INTERVAL_YM)
    return sql__errf(b, a->pos, FL_EINVALID,
                     "%s: %s must be a day-time interval (SECOND, MINUTE, HOUR, DAY), not a "
                     "year-month interval",
                     d->name, param);
  if (e->kind != SQL_BX_CONST || e->type.kind != SQL_DT_INTERVAL_DS || e->c.null)
    return sql__errf(b, a->pos, FL_EINVALID, "%s: %s must be a constant interval, not %s", d->name,
                     param, sql_dtype_str(&e->type));
  *out = e->c.i;
  return FL_OK;
}

static int find_scope_col(const sql_scope_t *sc, const char *name) {
  int found = -1;
  for (uint32_t i = 0; i < sc->n; i++) {
    if (sc->cols[i].hidden || strcasecmp(sc->cols[i].name, name) != 0) continue;
    if (found >= 0) return -2;
    found = (int)i;
  }
  return found;
}

int sql__bind_window_tvf(sql_binder_t *b, const sql_rel_t *rel, sql_plan_t **out,
                         sql_scope_t *scope) {
  const wdesc_t *d = find_desc(rel);
  const char *fname = d->name;
  uint32_t nparams = 0;
  while (nparams < 3 && d->params[nparams]) nparams++;
  /* Arguments by role: data, timecol, then the interval parameters. */
  const sql_table_arg_t *data = NULL, *timecol = NULL, *params[3] = {0};
  bool named = false, positional = false;
  uint32_t npos = 0;
  for (size_t i = 0; i < rel->u.func.nargs; i++) {
    const sql_table_arg_t *a = &rel->u.func.args[i];
    const sql_table_arg_t **slot = NULL;
    if (a->name.name) {
      named = true;
      const char *n = a->name.name;
      if (strcasecmp(n, "data") == 0) slot = &data;
      if (strcasecmp(n, "timecol") == 0) slot = &timecol;
      for (uint32_t k = 0; k < nparams; k++)
        if (strcasecmp(n, d->params[k]) == 0) slot = &params[k];
      if (!slot) return sql__errf(b, a->pos, FL_EINVALID, "%s has no argument named %s", fname, n);
    } else {
      positional = true;
      if (npos == 0) slot = &data;
      if (npos == 1) slot = &timecol;
      if (npos >= 2 && npos - 2 < nparams) slot = &params[npos - 2];
      if (!slot)
        return sql__errf(b, a->pos, FL_EINVALID, "Too many arguments for %s (at most %u)", fname,
                         2 + nparams);
      npos++;
    }
    if (named && positional)
      return sql__errf(b, a->pos, FL_EINVALID, "%s: named and positional arguments cannot be mixed",
                       fname);
    if (*slot)
      return sql__errf(b, a->pos, FL_EINVALID, "%s: argument %s given twice", fname, a->name.name);
    *slot = a;
  }
  if (named && positional)
    return sql__errf(b, rel->pos, FL_EINVALID, "%s: named and positional arguments cannot be mixed",
                     fname);
  if (!data || data->kind != SQL_TARG_TABLE)
    return sql__errf(b, data ? data->pos : rel->pos, FL_EINVALID,
                     "%s needs the table to window as its first argument: TABLE name", fname);
  if (!timecol || timecol->kind != SQL_TARG_DESCRIPTOR || timecol->columns.n != 1)
    return sql__errf(b, timecol ? timecol->pos : rel->pos, FL_EINVALID,
                     "%s needs the time column as DESCRIPTOR(column)", fname);
  for (uint32_t k = 0; k < d->nrequired; k++)
    if (!params[k])
      return sql__errf(b, rel->pos, FL_EINVALID, "%s needs its %s argument (an interval)", fname,
                       d->params[k]);
  if (data->partition_by.n && d->kind != SQL_WT_SESSION)
    return sql__errf(b, data->pos, FL_EINVALID, "%s does not take PARTITION BY", fname);

  sql_plan_t *in;
  sql_scope_t is = {0};
  int rc = sql__bind_from(b, data->table, &in, &is);
  if (rc) return rc;

  const sql_ident_t *tc = &timecol->columns.items[0];
  int t = find_scope_col(&is, tc->name);
  if (t == -1)
    return sql__errf(b, tc->pos, FL_EINVALID, "Column '%s' cannot be resolved", tc->name);
  if (t == -2) return sql__errf(b, tc->pos, FL_EINVALID, "Column '%s' is ambiguous", tc->name);
  sql_dtype_t tt = is.cols[t].type;
  if (tt.kind != SQL_DT_TIMESTAMP && tt.kind != SQL_DT_TIMESTAMPTZ)
    return sql__errf(b, tc->pos, FL_EINVALID,
                     "The window function %s requires the timecol to be TIMESTAMP or "
                     "TIMESTAMP_LTZ, but '%s' is %s",
                     fname, tc->name, sql_dtype_str(&tt));

  sql_plan_t *p = sql_plan_new(b->a, SQL_P_WINDOW_TVF, in);
  p->u.wtvf.kind = d->kind;
  p->u.wtvf.time_col = (uint32_t)t;
  p->u.wtvf.pos = rel->pos;
  int64_t v[3] = {0};
  for (uint32_t k = 0; k < nparams; k++) {
    if (!params[k]) continue;
    if ((rc = interval_arg(b, d, d->params[k], params[k], &v[k]))) return rc;
    bool is_offset = strcmp(d->params[k], "offset") == 0;
    if (!is_offset && v[k] <= 0)
      return sql__errf(b, params[k]->pos, FL_EINVALID, "%s: %s must be a positive interval", fname,
                       d->params[k]);
  }
  switch (d->kind) {
    case SQL_WT_TUMBLE:
      p->u.wtvf.size_us = v[0];
      p->u.wtvf.offset_us = v[1];
      break;
    case SQL_WT_HOP:
    case SQL_WT_CUMULATE:
      p->u.wtvf.slide_us = v[0];
      p->u.wtvf.size_us = v[1];
      p->u.wtvf.offset_us = v[2];
      if (d->kind == SQL_WT_CUMULATE && v[1] % v[0])
        return sql__errf(b, params[1]->pos, FL_EINVALID,
                         "CUMULATE table function based aggregate requires maxSize must be an "
                         "integral multiple of step, but got maxSize %lld ms and step %lld ms",
                         (long long)(v[1] / 1000), (long long)(v[0] / 1000));
      /* Each row is copied once per window: keep that bounded (the
       * executor's EX_WINDOW_MAX_PER_ROW). */
      if (v[1] / v[0] > 100000)
        return sql__errf(b, params[0]->pos, FL_EINVALID,
                         "%s puts each row in %lld windows (at most 100000): the %s is too "
                         "small for the size",
                         fname, (long long)(v[1] / v[0]), d->params[0]);
      break;
    case SQL_WT_SESSION: p->u.wtvf.gap_us = v[0]; break;
  }
  if (data->partition_by.n) {
    uint32_t n = (uint32_t)data->partition_by.n;
    p->u.wtvf.partition = fl_arena_zalloc(b->a, n * sizeof *p->u.wtvf.partition);
    p->u.wtvf.npartition = n;
    sql_ectx_t cx = {.scope = &is, .clause = "PARTITION BY"};
    for (uint32_t k = 0; k < n; k++) {
      sql_bexpr_t *e;
      const sql_expr_t *x = data->partition_by.items[k];
      if ((rc = sql__bind_expr(b, &cx, x, &e))) return rc;
      if (e->kind != SQL_BX_COL)
        return sql__errf(b, x->pos, FL_EINVALID, "SESSION: PARTITION BY takes column names");
      p->u.wtvf.partition[k] = e->col;
    }
  }

  uint32_t m = in->ncols;
  p->ncols = m + 3;
  p->cols = fl_arena_zalloc(b->a, p->ncols * sizeof *p->cols);
  if (m) memcpy(p->cols, in->cols, m * sizeof *p->cols);
  static const char *const names[] = {"window_start", "window_end", "window_time"};
  for (uint32_t i = 0; i < 3; i++) p->cols[m + i] = (sql_col_t){.name = names[i], .type = tt};

  /* The scope: the data's columns (under the alias when one is given),
   * then the window columns. */
  const char *qual = rel->alias.name;
  scope->n = is.n + 3;
  scope->cols = fl_arena_zalloc(b->a, scope->n * sizeof *scope->cols);
  for (uint32_t i = 0; i < is.n; i++) {
    scope->cols[i] = is.cols[i];
    if (qual) scope->cols[i].qual = qual;
  }
  for (uint32_t i = 0; i < 3; i++)
    scope->cols[is.n + i] = (sql_scope_col_t){.qual = qual, .name = names[i], .type = tt};
  if (is.n != m)
    return sql__errf(b, rel->pos, FL_EINTERNAL, "%s: scope and plan of the data differ", fname);
  if (rel->alias_cols.n)
    return sql__errf(b, rel->pos, FL_EUNSUPPORTED,
                     "%s: column aliases of a window table function are not supported", fname);
  *out = p;
  return FL_OK;
}
