/*
 * sql_plan.c - helpers over bound expressions and logical plans (layer 7,
 * sql): equality, formatting for EXPLAIN and messages, node construction.
 */
#include "sql/sql_plan.h"

#include <stdio.h>
#include <string.h>

static const char *const dkind_names[] = {
#define SQL__DKIND_NAME(name, text) text,
    SQL_DTYPE_MAP(SQL__DKIND_NAME)
#undef SQL__DKIND_NAME
};

bool sql_dtype_equal(const sql_dtype_t *a, const sql_dtype_t *b) {
  if (a->kind != b->kind) return false;
  if (a->kind == SQL_DT_DECIMAL) return a->precision == b->precision && a->scale == b->scale;
  if (a->kind == SQL_DT_ARRAY) return a->elem && b->elem && sql_dtype_equal(a->elem, b->elem);
  if (a->kind == SQL_DT_MAP)
    return a->elem && b->elem && a->key && b->key && sql_dtype_equal(a->key, b->key) &&
           sql_dtype_equal(a->elem, b->elem);
  if (a->kind == SQL_DT_ROW) {
    if (a->nfields != b->nfields) return false;
    for (uint32_t i = 0; i < a->nfields; i++)
      if (strcmp(a->fields[i].name, b->fields[i].name) != 0 ||
          !sql_dtype_equal(&a->fields[i].type, &b->fields[i].type))
        return false;
    return true;
  }
  if (a->kind == SQL_DT_TIMESTAMPTZ)
    return (a->precision ? a->precision : 6) == (b->precision ? b->precision : 6);
  return true;
}

void sql_dtype_format(const sql_dtype_t *t, fl_buf_t *out) {
  char tmp[64];
  if (t->kind == SQL_DT_DECIMAL) {
    int n = snprintf(tmp, sizeof tmp, "decimal(%u,%u)", t->precision, t->scale);
    fl_buf_append(out, tmp, (size_t)n);
    return;
  }
  if (t->kind == SQL_DT_ARRAY && t->elem) {
    fl_buf_append(out, "array(", 6);
    sql_dtype_format(t->elem, out);
    fl_buf_append(out, ")", 1);
    return;
  }
  if (t->kind == SQL_DT_MAP && t->key && t->elem) {
    fl_buf_append(out, "map(", 4);
    sql_dtype_format(t->key, out);
    fl_buf_append(out, ", ", 2);
    sql_dtype_format(t->elem, out);
    fl_buf_append(out, ")", 1);
    return;
  }
  if (t->kind == SQL_DT_ROW) {
    fl_buf_append(out, "row(", 4);
    for (uint32_t i = 0; i < t->nfields; i++) {
      if (i) fl_buf_append(out, ", ", 2);
      fl_buf_append(out, t->fields[i].name, strlen(t->fields[i].name));
      fl_buf_append(out, " ", 1);
      sql_dtype_format(&t->fields[i].type, out);
    }
    fl_buf_append(out, ")", 1);
    return;
  }
  if (t->kind == SQL_DT_TIMESTAMPTZ && t->precision == 3) {
    fl_buf_append(out, "timestamp(3) with time zone", 27);
    return;
  }
  const char *s = t->kind < SQL_DT_COUNT ? dkind_names[t->kind] : "?";
  fl_buf_append(out, s, strlen(s));
}

const char *sql_dtype_str(const sql_dtype_t *t) {
  static _Thread_local char bufs[2][512];
  static _Thread_local int which;
  char *dst = bufs[which ^= 1];
  fl_buf_t b;
  fl_buf_init(&b);
  sql_dtype_format(t, &b);
  snprintf(dst, 512, "%.*s", (int)b.len, (const char *)b.data);
  fl_buf_free(&b);
  return dst;
}

bool sql_bexpr_equal(const sql_bexpr_t *a, const sql_bexpr_t *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || !sql_dtype_equal(&a->type, &b->type) ||
      a->nargs != b->nargs)
    return false;
  switch (a->kind) {
    case SQL_BX_COL:
    case SQL_BX_FIELD:
      if (a->col != b->col) return false;
      break;
    case SQL_BX_OUTER:
      if (a->col != b->col || a->level != b->level) return false;
      break;
    case SQL_BX_CONST:
      if (a->c.null != b->c.null || a->c.b != b->c.b || a->c.i != b->c.i ||
          (a->c.d != b->c.d && !(a->c.d != a->c.d && b->c.d != b->c.d)) || a->c.len != b->c.len ||
          (a->c.len && memcmp(a->c.s, b->c.s, a->c.len) != 0))
        return false;
      break;
    case SQL_BX_CALL:
      if (a->impl != b->impl || strcmp(a->fn, b->fn) != 0) return false;
      break;
    case SQL_BX_CAST:
      if (a->try_ != b->try_) return false;
      break;
    case SQL_BX_SUBQUERY:
    case SQL_BX_IN_QUERY:
      if (a->plan != b->plan) return false;
      break;
    default: break;
  }
  for (uint32_t i = 0; i < a->nargs; i++)
    if (!sql_bexpr_equal(a->args[i], b->args[i])) return false;
  return true;
}

bool sql_bexpr_is_const(const sql_bexpr_t *e) {
  if (e->kind == SQL_BX_COL || e->kind == SQL_BX_OUTER) return false;
  for (uint32_t i = 0; i < e->nargs; i++)
    if (!sql_bexpr_is_const(e->args[i])) return false;
  return true;
}

static void put(fl_buf_t *o, const char *s) { fl_buf_append(o, s, strlen(s)); }

void sql_bexpr_format(const sql_bexpr_t *e, fl_buf_t *o) {
  char tmp[64];
  switch (e->kind) {
    case SQL_BX_COL:
      snprintf(tmp, sizeof tmp, "$%u", e->col);
      put(o, tmp);
      return;
    case SQL_BX_OUTER:
      snprintf(tmp, sizeof tmp, "outer%u.$%u", e->level, e->col);
      put(o, tmp);
      return;
    case SQL_BX_CONST:
      if (e->c.null)
        put(o, "NULL");
      else if (e->type.kind == SQL_DT_BOOLEAN)
        put(o, e->c.b ? "true" : "false");
      else if (e->type.kind == SQL_DT_DOUBLE) {
        snprintf(tmp, sizeof tmp, "%.17g", e->c.d);
        put(o, tmp);
        if (!strpbrk(tmp, ".eni")) put(o, ".0"); /* a double, not an integer */
      } else if (e->type.kind == SQL_DT_VARCHAR) {
        put(o, "'");
        fl_buf_append(o, e->c.s, e->c.len);
        put(o, "'");
      } else {
        snprintf(tmp, sizeof tmp, "%lld", (long long)e->c.i);
        put(o, tmp);
      }
      return;
    case SQL_BX_CAST:
      put(o, e->try_ ? "TRY_CAST(" : "CAST(");
      sql_bexpr_format(e->args[0], o);
      put(o, " AS ");
      sql_dtype_format(&e->type, o);
      put(o, ")");
      return;
    case SQL_BX_FIELD:
      sql_bexpr_format(e->args[0], o);
      put(o, ".");
      put(o, e->args[0]->type.kind == SQL_DT_ROW && e->col < e->args[0]->type.nfields
                 ? e->args[0]->type.fields[e->col].name
                 : "?");
      return;
    default: break;
  }
  const char *name = e->kind == SQL_BX_CALL       ? e->fn
                     : e->kind == SQL_BX_AND      ? "and"
                     : e->kind == SQL_BX_OR       ? "or"
                     : e->kind == SQL_BX_CASE     ? "case"
                     : e->kind == SQL_BX_SUBQUERY ? "subquery"
                     : e->kind == SQL_BX_IN_QUERY ? "in_subquery"
                                                  : "coalesce";
  put(o, name);
  put(o, "(");
  for (uint32_t i = 0; i < e->nargs; i++) {
    if (i) put(o, ", ");
    sql_bexpr_format(e->args[i], o);
  }
  put(o, ")");
}

const char *sql_plan_kind_name(sql_plan_kind_t k) {
  static const char *const names[] = {
#define SQL__PLAN_NAME(name) #name,
      SQL_PLAN_KINDS(SQL__PLAN_NAME)
#undef SQL__PLAN_NAME
  };
  return k < SQL_P_KIND_COUNT ? names[k] : "?";
}

const char *sql_join_type_name(sql_join_type_t t) {
  static const char *const names[] = {"INNER", "LEFT", "RIGHT",          "FULL",
                                      "SEMI",  "ANTI", "NULL_AWARE_ANTI"};
  return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

sql_plan_t *sql_plan_new(fl_arena_t *a, sql_plan_kind_t kind, sql_plan_t *in) {
  sql_plan_t *p = fl_arena_zalloc(a, sizeof *p);
  p->kind = kind;
  p->in = in;
  if (in) {
    p->inputs = fl_arena_zalloc(a, sizeof *p->inputs);
    p->inputs[0] = in;
    p->ninputs = 1;
  }
  return p;
}

sql_plan_t *sql_plan_project(fl_arena_t *a, sql_plan_t *in, sql_bexpr_t *const *exprs,
                             const char *const *names, uint32_t n) {
  sql_plan_t *p = sql_plan_new(a, SQL_P_PROJECT, in);
  p->ncols = n;
  p->cols = fl_arena_zalloc(a, (n ? n : 1) * sizeof *p->cols);
  p->u.project.exprs = fl_arena_zalloc(a, (n ? n : 1) * sizeof *p->u.project.exprs);
  for (uint32_t i = 0; i < n; i++) {
    p->u.project.exprs[i] = exprs[i];
    p->cols[i] = (sql_col_t){.name = names[i], .type = exprs[i]->type};
  }
  return p;
}

void sql_named_exprs_add(fl_arena_t *a, sql_named_exprs_t *l, sql_bexpr_t *e, const char *name) {
  if (l->n == l->cap) {
    uint32_t cap = l->cap ? l->cap * 2 : 16;
    sql_bexpr_t **ne = fl_arena_alloc(a, cap * sizeof *ne);
    const char **nn = fl_arena_alloc(a, cap * sizeof *nn);
    if (l->n) {
      memcpy(ne, l->e, l->n * sizeof *ne);
      memcpy(nn, l->names, l->n * sizeof *nn);
    }
    l->e = ne;
    l->names = nn;
    l->cap = cap;
  }
  l->e[l->n] = e;
  l->names[l->n++] = name;
}

static void format_bound(const sql_win_bound_t *b, fl_buf_t *o) {
  char tmp[64];
  switch (b->kind) {
    case SQL_BOUND_UNBOUNDED_PRECEDING: put(o, "UNBOUNDED PRECEDING"); return;
    case SQL_BOUND_CURRENT_ROW: put(o, "CURRENT ROW"); return;
    case SQL_BOUND_UNBOUNDED_FOLLOWING: put(o, "UNBOUNDED FOLLOWING"); return;
    default: break;
  }
  if (b->offset_f != 0)
    snprintf(tmp, sizeof tmp, "%g", b->offset_f);
  else
    snprintf(tmp, sizeof tmp, "%lld", (long long)b->offset);
  put(o, tmp);
  put(o, b->kind == SQL_BOUND_PRECEDING ? " PRECEDING" : " FOLLOWING");
}

/* "partition=[$0] order=[$1 ASC NULLS LAST] frame=ROWS ... fns=[rank(), sum($2)]" */
static void format_window(const sql_plan_t *p, fl_buf_t *o) {
  char tmp[160];
  put(o, " partition=[");
  for (uint32_t i = 0; i < p->u.window.npartition; i++) {
    snprintf(tmp, sizeof tmp, "%s$%u", i ? ", " : "", p->u.window.partition[i]);
    put(o, tmp);
  }
  put(o, "] order=[");
  for (uint32_t i = 0; i < p->u.window.norder; i++) {
    const sql_sort_key_t *k = &p->u.window.order[i];
    snprintf(tmp, sizeof tmp, "%s$%u %s NULLS %s", i ? ", " : "", k->col, k->desc ? "DESC" : "ASC",
             k->nulls_first ? "FIRST" : "LAST");
    put(o, tmp);
  }
  put(o, "]");
  const sql_win_frame_t *f = p->u.window.frame;
  if (f) {
    static const char *const units[] = {"ROWS", "RANGE", "GROUPS"};
    put(o, " frame=");
    put(o, units[f->unit]);
    put(o, " BETWEEN ");
    format_bound(&f->start, o);
    put(o, " AND ");
    format_bound(&f->end, o);
  }
  put(o, " fns=[");
  for (uint32_t i = 0; i < p->u.window.nfns; i++) {
    const sql_win_call_t *c = &p->u.window.fns[i];
    int32_t arg = c->is_agg ? c->agg.arg_col : c->arg_col;
    if (arg >= 0)
      snprintf(tmp, sizeof tmp, "%s%s($%d)", i ? ", " : "", c->name, arg);
    else
      snprintf(tmp, sizeof tmp, "%s%s(%s)", i ? ", " : "", c->name, c->is_agg ? "*" : "");
    put(o, tmp);
  }
  put(o, "]");
}

static void format_node(const sql_plan_t *p, int depth, fl_buf_t *o) {
  char tmp[160];
  for (int i = 0; i < depth; i++) put(o, "  ");
  put(o, sql_plan_kind_name(p->kind));
  switch (p->kind) {
    case SQL_P_SCAN:
      put(o, " ");
      put(o, p->u.scan.ident);
      put(o, " [");
      for (uint32_t i = 0; i < p->ncols; i++) {
        if (i) put(o, ", ");
        put(o, p->u.scan.columns[i]);
      }
      put(o, "]");
      if (p->u.scan.snapshot_id >= 0) {
        snprintf(tmp, sizeof tmp, " snapshot=%lld", (long long)p->u.scan.snapshot_id);
        put(o, tmp);
      }
      if (p->u.scan.filter) {
        put(o, " filter=(");
        ice_expr_format(p->u.scan.filter, o);
        put(o, ")");
      }
      if (p->u.scan.limit >= 0) {
        snprintf(tmp, sizeof tmp, " limit=%lld", (long long)p->u.scan.limit);
        put(o, tmp);
      }
      break;
    case SQL_P_VALUES:
      snprintf(tmp, sizeof tmp, " %u rows", p->u.values.nrows);
      put(o, tmp);
      break;
    case SQL_P_FILTER:
      put(o, " ");
      sql_bexpr_format(p->u.filter.pred, o);
      break;
    case SQL_P_PROJECT:
      put(o, " [");
      for (uint32_t i = 0; i < p->ncols; i++) {
        if (i) put(o, ", ");
        put(o, p->cols[i].name);
        put(o, " := ");
        sql_bexpr_format(p->u.project.exprs[i], o);
      }
      put(o, "]");
      break;
    case SQL_P_AGGREGATE:
      if (p->u.agg.streaming) put(o, " streaming");
      put(o, " keys=[");
      for (uint32_t i = 0; i < p->u.agg.nkeys; i++) {
        snprintf(tmp, sizeof tmp, "%s$%u", i ? ", " : "", p->u.agg.keys[i]);
        put(o, tmp);
      }
      put(o, "] aggs=[");
      for (uint32_t i = 0; i < p->u.agg.naggs; i++) {
        const sql_agg_call_t *g = &p->u.agg.aggs[i];
        if (g->arg_col < 0)
          snprintf(tmp, sizeof tmp, "%s%s(*)", i ? ", " : "", g->name);
        else
          snprintf(tmp, sizeof tmp, "%s%s(%s$%d)", i ? ", " : "", g->name,
                   g->distinct ? "DISTINCT " : "", g->arg_col);
        put(o, tmp);
      }
      put(o, "]");
      break;
    case SQL_P_SORT:
      put(o, " [");
      for (uint32_t i = 0; i < p->u.sort.nkeys; i++) {
        const sql_sort_key_t *k = &p->u.sort.keys[i];
        snprintf(tmp, sizeof tmp, "%s$%u %s NULLS %s", i ? ", " : "", k->col,
                 k->desc ? "DESC" : "ASC", k->nulls_first ? "FIRST" : "LAST");
        put(o, tmp);
      }
      put(o, "]");
      break;
    case SQL_P_LIMIT:
      snprintf(tmp, sizeof tmp, " limit=%lld offset=%lld", (long long)p->u.limit.limit,
               (long long)p->u.limit.offset);
      put(o, tmp);
      break;
    case SQL_P_WINDOW: format_window(p, o); break;
    case SQL_P_WINDOW_TVF:
    case SQL_P_WINDOW_AGG: {
      static const char *const kinds[] = {"TUMBLE", "HOP", "CUMULATE", "SESSION"};
      const int64_t *v[] = {&p->u.wtvf.size_us, &p->u.wtvf.slide_us, &p->u.wtvf.offset_us,
                            &p->u.wtvf.gap_us};
      static const char *const vn[] = {"size", "slide", "offset", "gap"};
      snprintf(tmp, sizeof tmp, " %s time=$%u", kinds[p->u.wtvf.kind], p->u.wtvf.time_col);
      put(o, tmp);
      for (int i = 0; i < 4; i++)
        if (*v[i]) {
          snprintf(tmp, sizeof tmp, " %s=%lldms", vn[i], (long long)(*v[i] / 1000));
          put(o, tmp);
        }
      for (uint32_t i = 0; i < p->u.wtvf.npartition; i++) {
        snprintf(tmp, sizeof tmp, "%s$%u", i ? ", " : " partition=[", p->u.wtvf.partition[i]);
        put(o, tmp);
      }
      if (p->u.wtvf.npartition) put(o, "]");
      if (p->kind == SQL_P_WINDOW_TVF) break;
      put(o, " keys=[");
      for (uint32_t i = 0; i < p->u.wtvf.nkeys; i++) {
        snprintf(tmp, sizeof tmp, "%s$%u", i ? ", " : "", p->u.wtvf.keys[i]);
        put(o, tmp);
      }
      put(o, "] aggs=[");
      for (uint32_t i = 0; i < p->u.wtvf.naggs; i++) {
        const sql_agg_call_t *g = &p->u.wtvf.aggs[i];
        if (g->arg_col < 0)
          snprintf(tmp, sizeof tmp, "%s%s(*)", i ? ", " : "", g->name);
        else
          snprintf(tmp, sizeof tmp, "%s%s(%s$%d)", i ? ", " : "", g->name,
                   g->distinct ? "DISTINCT " : "", g->arg_col);
        put(o, tmp);
      }
      put(o, "]");
      break;
    }
    case SQL_P_UNNEST:
      put(o, " [");
      for (uint32_t i = 0; i < p->u.unnest.nexprs; i++) {
        if (i) put(o, ", ");
        sql_bexpr_format(p->u.unnest.exprs[i], o);
      }
      put(o, "]");
      if (p->u.unnest.ordinality) put(o, " with ordinality");
      if (p->u.unnest.outer) put(o, " outer");
      break;
    case SQL_P_APPLY: {
      static const char *const kinds[] = {"SCALAR", "EXISTS", "ANY", "ALL", "LATERAL"};
      put(o, " ");
      put(o, kinds[p->u.apply.kind]);
      if (p->u.apply.arg) {
        put(o, " ");
        sql_bexpr_format(p->u.apply.arg, o);
        put(o, " ");
        put(o, p->u.apply.cmp);
      }
      break;
    }
    case SQL_P_JOIN:
      put(o, " ");
      put(o, sql_join_type_name(p->u.join.type));
      if (p->u.join.nkeys) {
        put(o, " keys=[");
        for (uint32_t i = 0; i < p->u.join.nkeys; i++) {
          snprintf(tmp, sizeof tmp, "%sL$%u = R$%u", i ? ", " : "", p->u.join.lkeys[i],
                   p->u.join.rkeys[i]);
          put(o, tmp);
        }
        put(o, "]");
      }
      if (p->u.join.cond && !p->u.join.split) {
        put(o, " on=");
        sql_bexpr_format(p->u.join.cond, o);
      }
      if (p->u.join.residual) {
        put(o, " residual=");
        sql_bexpr_format(p->u.join.residual, o);
      }
      if (p->u.join.build_left) put(o, " build=left");
      if (p->u.join.est > 0) {
        char est[40];
        snprintf(est, sizeof est, " est=%lld", (long long)p->u.join.est);
        put(o, est);
      }
      break;
    default: break;
  }
  put(o, "\n");
  for (uint32_t i = 0; i < p->ninputs; i++) format_node(p->inputs[i], depth + 1, o);
}

void sql_plan_format(const sql_plan_t *p, fl_buf_t *out) { format_node(p, 0, out); }
