/*
 * sql_ast_print.c - the canonical SQL text of syntax trees (layer 7, sql).
 *
 * Every operator application is wrapped in parentheses, joins and set
 * operations too, keywords are upper case, and optional words take one
 * spelling (JOIN for INNER JOIN, LEFT JOIN for LEFT OUTER JOIN, AS before
 * every alias). The output parses back to a tree with the same text, which
 * makes it a precise picture of a tree for tests. Each node kind has its
 * own printing routine, found through tables indexed by kind.
 */
#include <stdio.h>
#include <string.h>

#include "sql/sql_print.h"

typedef fl_buf_t pr_t;

static void out(pr_t *b, const char *s) { fl_buf_append_str(b, s); }
static void outc(pr_t *b, char c) { fl_buf_append_u8(b, (uint8_t)c); }

/* Names that read back differently unquoted: reserved words, and words the
   expression grammar treats specially when followed by '[' or '('. */
static bool needs_quotes(const char *name) {
  if (!name[0]) return true;
  if ((name[0] >= '0' && name[0] <= '9') || name[0] == '$') return true;
  for (const char *c = name; *c; c++) {
    unsigned char ch = (unsigned char)*c;
    if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '$' ||
          ch >= 0x80))
      return true;
  }
  sql_kw_t kw = sql_keyword_lookup(name, strlen(name));
  if (kw != SQL_KW_NONE && sql_keyword_reserved(kw)) return true;
  return strcmp(name, "array") == 0 || strcmp(name, "row") == 0;
}

static void ident(pr_t *b, const sql_ident_t *id) {
  if (!id->quoted && !needs_quotes(id->name)) {
    out(b, id->name);
    return;
  }
  outc(b, '"');
  for (const char *c = id->name; *c; c++) {
    if (*c == '"') outc(b, '"');
    outc(b, *c);
  }
  outc(b, '"');
}

/* Before '=>' any word reads back as a name, reserved ones included. */
static void arg_name(pr_t *b, const sql_ident_t *id) {
  sql_kw_t kw = sql_keyword_lookup(id->name, strlen(id->name));
  if (!id->quoted && kw != SQL_KW_NONE && sql_keyword_reserved(kw))
    out(b, id->name);
  else
    ident(b, id);
}

static void qname(pr_t *b, const sql_qname_t *q) {
  for (size_t i = 0; i < q->n; i++) {
    if (i) outc(b, '.');
    ident(b, &q->parts[i]);
  }
}

static void ident_list(pr_t *b, const sql_ident_list_t *l) {
  outc(b, '(');
  for (size_t i = 0; i < l->n; i++) {
    if (i) out(b, ", ");
    ident(b, &l->items[i]);
  }
  outc(b, ')');
}

static void string_lit(pr_t *b, const char *data, size_t len) {
  outc(b, '\'');
  for (size_t i = 0; i < len; i++) {
    if (data[i] == '\'') outc(b, '\'');
    outc(b, data[i]);
  }
  outc(b, '\'');
}

static void print_query(pr_t *b, const sql_query_t *q);
static void print_rel(pr_t *b, const sql_rel_t *r);
static void print_stmt(pr_t *b, const sql_stmt_t *s);

/* ---- types ---- */

void sql_print_type(const sql_type_t *t, fl_buf_t *b) {
  out(b, sql_type_kind_name(t->kind));
  switch (t->kind) {
    case SQL_TY_ARRAY:
      outc(b, '(');
      sql_print_type(t->elem, b);
      outc(b, ')');
      break;
    case SQL_TY_MAP:
      outc(b, '(');
      sql_print_type(t->elem, b);
      out(b, ", ");
      sql_print_type(t->value, b);
      outc(b, ')');
      break;
    case SQL_TY_ROW:
      outc(b, '(');
      for (size_t i = 0; i < t->nfields; i++) {
        if (i) out(b, ", ");
        if (t->fields[i].name.name) {
          ident(b, &t->fields[i].name);
          outc(b, ' ');
        }
        sql_print_type(t->fields[i].type, b);
        if (t->fields[i].type->not_null) out(b, " NOT NULL");
      }
      outc(b, ')');
      break;
    default:
      if (t->nparams == 1) fl_buf_printf(b, "(%lld)", (long long)t->params[0]);
      if (t->nparams == 2)
        fl_buf_printf(b, "(%lld, %lld)", (long long)t->params[0], (long long)t->params[1]);
      if (t->with_tz) out(b, " with time zone");
      break;
  }
}

/* ---- expressions ---- */

static void expr(pr_t *b, const sql_expr_t *e);

static void expr_list(pr_t *b, const sql_expr_list_t *l) {
  for (size_t i = 0; i < l->n; i++) {
    if (i) out(b, ", ");
    expr(b, l->items[i]);
  }
}

static void sort_list(pr_t *b, const sql_sort_list_t *l) {
  for (size_t i = 0; i < l->n; i++) {
    const sql_sort_item_t *it = &l->items[i];
    if (i) out(b, ", ");
    expr(b, it->expr);
    if (it->dir == SQL_SORT_ASC) out(b, " ASC");
    if (it->dir == SQL_SORT_DESC) out(b, " DESC");
    if (it->nulls == SQL_NULLS_FIRST) out(b, " NULLS FIRST");
    if (it->nulls == SQL_NULLS_LAST) out(b, " NULLS LAST");
  }
}

static void frame_bound(pr_t *b, const sql_frame_bound_t *f) {
  switch (f->kind) {
    case SQL_BOUND_UNBOUNDED_PRECEDING: out(b, "UNBOUNDED PRECEDING"); break;
    case SQL_BOUND_UNBOUNDED_FOLLOWING: out(b, "UNBOUNDED FOLLOWING"); break;
    case SQL_BOUND_CURRENT_ROW: out(b, "CURRENT ROW"); break;
    case SQL_BOUND_PRECEDING:
      expr(b, f->offset);
      out(b, " PRECEDING");
      break;
    case SQL_BOUND_FOLLOWING:
      expr(b, f->offset);
      out(b, " FOLLOWING");
      break;
  }
}

static void window_spec(pr_t *b, const sql_window_spec_t *w) {
  const char *sep = "";
  outc(b, '(');
  if (w->base.name) {
    ident(b, &w->base);
    sep = " ";
  }
  if (w->partition_by.n) {
    out(b, sep);
    out(b, "PARTITION BY ");
    expr_list(b, &w->partition_by);
    sep = " ";
  }
  if (w->order_by.n) {
    out(b, sep);
    out(b, "ORDER BY ");
    sort_list(b, &w->order_by);
    sep = " ";
  }
  if (w->frame != SQL_FRAME_NONE) {
    out(b, sep);
    out(b, w->frame == SQL_FRAME_ROWS    ? "ROWS "
           : w->frame == SQL_FRAME_RANGE ? "RANGE "
                                         : "GROUPS ");
    if (w->has_end) {
      out(b, "BETWEEN ");
      frame_bound(b, &w->start);
      out(b, " AND ");
      frame_bound(b, &w->end);
    } else {
      frame_bound(b, &w->start);
    }
  }
  outc(b, ')');
}

static void subquery(pr_t *b, const sql_query_t *q) {
  outc(b, '(');
  print_query(b, q);
  outc(b, ')');
}

static void e_int(pr_t *b, const sql_expr_t *e) { out(b, e->u.i.text); }
static void e_num(pr_t *b, const sql_expr_t *e) { out(b, e->u.num.text); }
static void e_string(pr_t *b, const sql_expr_t *e) { string_lit(b, e->u.str.data, e->u.str.len); }
static void e_binary(pr_t *b, const sql_expr_t *e) {
  out(b, "X'");
  for (size_t i = 0; i < e->u.str.len; i++)
    fl_buf_printf(b, "%02X", (unsigned char)e->u.str.data[i]);
  outc(b, '\'');
}
static void e_bool(pr_t *b, const sql_expr_t *e) { out(b, e->u.b ? "TRUE" : "FALSE"); }
static void e_null(pr_t *b, const sql_expr_t *e) { out(b, "NULL"); }
static void e_typed(pr_t *b, const sql_expr_t *e) {
  for (const char *c = sql_type_kind_name(e->u.typed.type->kind); *c; c++)
    outc(b, (char)(*c - 'a' + 'A'));
  outc(b, ' ');
  string_lit(b, e->u.typed.data, e->u.typed.len);
}
static void e_interval(pr_t *b, const sql_expr_t *e) {
  out(b, "INTERVAL ");
  if (e->u.interval.negative) outc(b, '-');
  string_lit(b, e->u.interval.data, e->u.interval.len);
  outc(b, ' ');
  out(b, sql_field_name(e->u.interval.from));
  if (e->u.interval.to != SQL_F_NONE) {
    out(b, " TO ");
    out(b, sql_field_name(e->u.interval.to));
  }
}
static void e_param(pr_t *b, const sql_expr_t *e) { outc(b, '?'); }
static void e_column(pr_t *b, const sql_expr_t *e) { qname(b, &e->u.column); }
static void e_deref(pr_t *b, const sql_expr_t *e) {
  /* (a.b).c: parentheses keep a field of a column apart from a longer name. */
  bool wrap = e->u.deref.base->kind == SQL_E_COLUMN;
  if (wrap) outc(b, '(');
  expr(b, e->u.deref.base);
  if (wrap) outc(b, ')');
  outc(b, '.');
  ident(b, &e->u.deref.field);
}
static void e_subscript(pr_t *b, const sql_expr_t *e) {
  expr(b, e->u.subscript.base);
  outc(b, '[');
  expr(b, e->u.subscript.index);
  outc(b, ']');
}
static void e_unary(pr_t *b, const sql_expr_t *e) {
  out(b, e->u.unary.op == SQL_UN_NOT ? "(NOT " : e->u.unary.op == SQL_UN_NEG ? "(-" : "(+");
  expr(b, e->u.unary.arg);
  outc(b, ')');
}
static void e_binop(pr_t *b, const sql_expr_t *e) {
  outc(b, '(');
  expr(b, e->u.bin.l);
  outc(b, ' ');
  out(b, sql_binop_text(e->u.bin.op));
  outc(b, ' ');
  expr(b, e->u.bin.r);
  outc(b, ')');
}
static void e_is_null(pr_t *b, const sql_expr_t *e) {
  outc(b, '(');
  expr(b, e->u.is_null.arg);
  out(b, e->u.is_null.negated ? " IS NOT NULL)" : " IS NULL)");
}
static void e_is_distinct(pr_t *b, const sql_expr_t *e) {
  outc(b, '(');
  expr(b, e->u.is_distinct.l);
  out(b, e->u.is_distinct.negated ? " IS NOT DISTINCT FROM " : " IS DISTINCT FROM ");
  expr(b, e->u.is_distinct.r);
  outc(b, ')');
}
static void e_between(pr_t *b, const sql_expr_t *e) {
  outc(b, '(');
  expr(b, e->u.between.arg);
  out(b, e->u.between.negated ? " NOT BETWEEN " : " BETWEEN ");
  expr(b, e->u.between.lo);
  out(b, " AND ");
  expr(b, e->u.between.hi);
  outc(b, ')');
}
static void e_in_list(pr_t *b, const sql_expr_t *e) {
  outc(b, '(');
  expr(b, e->u.in_list.arg);
  out(b, e->u.in_list.negated ? " NOT IN (" : " IN (");
  expr_list(b, &e->u.in_list.list);
  out(b, "))");
}
static void e_in_query(pr_t *b, const sql_expr_t *e) {
  outc(b, '(');
  expr(b, e->u.in_query.arg);
  out(b, e->u.in_query.negated ? " NOT IN " : " IN ");
  subquery(b, e->u.in_query.query);
  outc(b, ')');
}
static void e_like(pr_t *b, const sql_expr_t *e) {
  outc(b, '(');
  expr(b, e->u.like.arg);
  out(b, e->u.like.negated ? " NOT LIKE " : " LIKE ");
  expr(b, e->u.like.pattern);
  if (e->u.like.escape) {
    out(b, " ESCAPE ");
    expr(b, e->u.like.escape);
  }
  outc(b, ')');
}
static void e_exists(pr_t *b, const sql_expr_t *e) {
  out(b, "(EXISTS ");
  subquery(b, e->u.query);
  outc(b, ')');
}
static void e_subquery(pr_t *b, const sql_expr_t *e) { subquery(b, e->u.query); }
static void e_quantified(pr_t *b, const sql_expr_t *e) {
  static const char *const q[] = {"ANY", "SOME", "ALL"};
  outc(b, '(');
  expr(b, e->u.quant.arg);
  fl_buf_printf(b, " %s %s ", sql_binop_text(e->u.quant.op), q[e->u.quant.q]);
  subquery(b, e->u.quant.query);
  outc(b, ')');
}
static void e_case(pr_t *b, const sql_expr_t *e) {
  out(b, "CASE");
  if (e->u.case_.operand) {
    outc(b, ' ');
    expr(b, e->u.case_.operand);
  }
  for (size_t i = 0; i < e->u.case_.nwhens; i++) {
    out(b, " WHEN ");
    expr(b, e->u.case_.whens[i].when);
    out(b, " THEN ");
    expr(b, e->u.case_.whens[i].then);
  }
  if (e->u.case_.else_) {
    out(b, " ELSE ");
    expr(b, e->u.case_.else_);
  }
  out(b, " END");
}
static void e_cast(pr_t *b, const sql_expr_t *e) {
  out(b, e->u.cast.try_ ? "TRY_CAST(" : "CAST(");
  expr(b, e->u.cast.arg);
  out(b, " AS ");
  sql_print_type(e->u.cast.type, b);
  outc(b, ')');
}

static void call_args(pr_t *b, const sql_call_t *c) {
  outc(b, '(');
  if (c->star) out(b, "*");
  if (c->distinct) out(b, "DISTINCT ");
  for (size_t i = 0; i < c->args.n; i++) {
    if (i) out(b, ", ");
    if (c->arg_names && c->arg_names[i].name) {
      arg_name(b, &c->arg_names[i]);
      out(b, " => ");
    }
    expr(b, c->args.items[i]);
  }
  if (c->order_by.n) {
    out(b, " ORDER BY ");
    sort_list(b, &c->order_by);
  }
  outc(b, ')');
}

static void e_call(pr_t *b, const sql_expr_t *e) {
  const sql_call_t *c = &e->u.call;
  for (size_t i = 0; i < c->name.n; i++) { /* grouping(...) is a reserved word called */
    if (i) outc(b, '.');
    arg_name(b, &c->name.parts[i]);
  }
  call_args(b, c);
  if (c->nulls_treatment) out(b, c->nulls_treatment < 0 ? " IGNORE NULLS" : " RESPECT NULLS");
  if (c->filter) {
    out(b, " FILTER (WHERE ");
    expr(b, c->filter);
    outc(b, ')');
  }
  if (c->over) {
    out(b, " OVER ");
    window_spec(b, c->over);
  } else if (c->over_name.name) {
    out(b, " OVER ");
    ident(b, &c->over_name);
  }
}
static void e_extract(pr_t *b, const sql_expr_t *e) {
  fl_buf_printf(b, "EXTRACT(%s FROM ", sql_field_name(e->u.extract.field));
  expr(b, e->u.extract.arg);
  outc(b, ')');
}
static void e_at_tz(pr_t *b, const sql_expr_t *e) {
  outc(b, '(');
  expr(b, e->u.at_tz.arg);
  if (e->u.at_tz.zone) {
    out(b, " AT TIME ZONE ");
    expr(b, e->u.at_tz.zone);
  } else {
    out(b, " AT LOCAL");
  }
  outc(b, ')');
}
static void e_array(pr_t *b, const sql_expr_t *e) {
  out(b, "ARRAY[");
  expr_list(b, &e->u.row.items);
  outc(b, ']');
}
static void e_row(pr_t *b, const sql_expr_t *e) {
  out(b, e->u.row.implicit ? "(" : "ROW(");
  expr_list(b, &e->u.row.items);
  outc(b, ')');
}
static void e_lambda(pr_t *b, const sql_expr_t *e) {
  ident_list(b, &e->u.lambda.params);
  out(b, " -> ");
  expr(b, e->u.lambda.body);
}
static void e_current(pr_t *b, const sql_expr_t *e) {
  out(b, sql_keyword_name(e->u.current.which));
  if (e->u.current.precision >= 0) fl_buf_printf(b, "(%d)", e->u.current.precision);
}

static void (*const expr_printers[SQL_E_KIND_COUNT])(pr_t *, const sql_expr_t *) = {
    [SQL_E_INT] = e_int,
    [SQL_E_DECIMAL] = e_num,
    [SQL_E_DOUBLE] = e_num,
    [SQL_E_STRING] = e_string,
    [SQL_E_BINARY] = e_binary,
    [SQL_E_BOOL] = e_bool,
    [SQL_E_NULL] = e_null,
    [SQL_E_TYPED] = e_typed,
    [SQL_E_INTERVAL] = e_interval,
    [SQL_E_PARAM] = e_param,
    [SQL_E_COLUMN] = e_column,
    [SQL_E_DEREF] = e_deref,
    [SQL_E_SUBSCRIPT] = e_subscript,
    [SQL_E_UNARY] = e_unary,
    [SQL_E_BINARY_OP] = e_binop,
    [SQL_E_IS_NULL] = e_is_null,
    [SQL_E_IS_DISTINCT] = e_is_distinct,
    [SQL_E_BETWEEN] = e_between,
    [SQL_E_IN_LIST] = e_in_list,
    [SQL_E_IN_QUERY] = e_in_query,
    [SQL_E_LIKE] = e_like,
    [SQL_E_EXISTS] = e_exists,
    [SQL_E_SUBQUERY] = e_subquery,
    [SQL_E_QUANTIFIED] = e_quantified,
    [SQL_E_CASE] = e_case,
    [SQL_E_CAST] = e_cast,
    [SQL_E_CALL] = e_call,
    [SQL_E_EXTRACT] = e_extract,
    [SQL_E_AT_TIME_ZONE] = e_at_tz,
    [SQL_E_ARRAY] = e_array,
    [SQL_E_ROW] = e_row,
    [SQL_E_LAMBDA] = e_lambda,
    [SQL_E_CURRENT] = e_current,
};

static void expr(pr_t *b, const sql_expr_t *e) { expr_printers[e->kind](b, e); }

void sql_print_expr(const sql_expr_t *e, fl_buf_t *b) { expr(b, e); }

/* ---- relations ---- */

static void rel_alias(pr_t *b, const sql_rel_t *r) {
  if (!r->alias.name) return;
  out(b, " AS ");
  ident(b, &r->alias);
  if (r->alias_cols.n) {
    outc(b, ' ');
    ident_list(b, &r->alias_cols);
  }
}

static void r_table(pr_t *b, const sql_rel_t *r) {
  static const char *const travel[] = {"", " FOR VERSION AS OF ", " FOR TIMESTAMP AS OF ",
                                       " FOR SYSTEM_TIME AS OF "};
  qname(b, &r->u.table.name);
  if (r->u.table.travel != SQL_TT_NONE) {
    out(b, travel[r->u.table.travel]);
    expr(b, r->u.table.as_of);
  }
}
static void r_subquery(pr_t *b, const sql_rel_t *r) {
  if (r->u.subquery.lateral) out(b, "LATERAL ");
  subquery(b, r->u.subquery.query);
}
static void r_function(pr_t *b, const sql_rel_t *r) {
  out(b, "TABLE(");
  qname(b, &r->u.func.name);
  outc(b, '(');
  for (size_t i = 0; i < r->u.func.nargs; i++) {
    const sql_table_arg_t *a = &r->u.func.args[i];
    if (i) out(b, ", ");
    if (a->name.name) {
      arg_name(b, &a->name);
      out(b, " => ");
    }
    if (a->kind == SQL_TARG_EXPR) {
      expr(b, a->expr);
    } else if (a->kind == SQL_TARG_TABLE) {
      out(b, "TABLE ");
      print_rel(b, a->table);
      if (a->partition_by.n == 1) {
        out(b, " PARTITION BY ");
        expr(b, a->partition_by.items[0]);
      } else if (a->partition_by.n > 1) {
        out(b, " PARTITION BY (");
        expr_list(b, &a->partition_by);
        outc(b, ')');
      }
    } else {
      out(b, "DESCRIPTOR");
      ident_list(b, &a->columns);
    }
  }
  out(b, "))");
}
static void r_unnest(pr_t *b, const sql_rel_t *r) {
  out(b, "UNNEST(");
  expr_list(b, &r->u.unnest.args);
  outc(b, ')');
  if (r->u.unnest.with_ordinality) out(b, " WITH ORDINALITY");
}
static void r_join(pr_t *b, const sql_rel_t *r) {
  static const char *const kinds[] = {"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN"};
  outc(b, '(');
  print_rel(b, r->u.join.left);
  outc(b, ' ');
  if (r->u.join.natural) out(b, "NATURAL ");
  out(b, kinds[r->u.join.kind]);
  outc(b, ' ');
  print_rel(b, r->u.join.right);
  if (r->u.join.on) {
    out(b, " ON ");
    expr(b, r->u.join.on);
  } else if (r->u.join.using_.n) {
    out(b, " USING ");
    ident_list(b, &r->u.join.using_);
  }
  outc(b, ')');
}

static void (*const rel_printers[SQL_REL_KIND_COUNT])(pr_t *, const sql_rel_t *) = {
    [SQL_REL_TABLE] = r_table,   [SQL_REL_SUBQUERY] = r_subquery, [SQL_REL_FUNCTION] = r_function,
    [SQL_REL_UNNEST] = r_unnest, [SQL_REL_JOIN] = r_join,
};

static void print_rel(pr_t *b, const sql_rel_t *r) {
  rel_printers[r->kind](b, r);
  rel_alias(b, r);
}

/* ---- queries ---- */

static void print_body(pr_t *b, const sql_qbody_t *q);

static void group_elem(pr_t *b, const sql_group_elem_t *g) {
  switch (g->kind) {
    case SQL_GROUP_EXPR: expr(b, g->expr); break;
    case SQL_GROUP_EMPTY: out(b, "()"); break;
    case SQL_GROUP_ROLLUP:
    case SQL_GROUP_CUBE:
      out(b, g->kind == SQL_GROUP_ROLLUP ? "ROLLUP (" : "CUBE (");
      expr_list(b, &g->list);
      outc(b, ')');
      break;
    case SQL_GROUP_SETS:
      out(b, "GROUPING SETS (");
      for (size_t i = 0; i < g->nsets; i++) {
        if (i) out(b, ", ");
        outc(b, '(');
        expr_list(b, &g->sets[i]);
        outc(b, ')');
      }
      outc(b, ')');
      break;
  }
}

static void q_select(pr_t *b, const sql_qbody_t *q) {
  const sql_select_t *s = &q->u.select;
  out(b, s->distinct ? "SELECT DISTINCT " : "SELECT ");
  for (size_t i = 0; i < s->nitems; i++) {
    const sql_select_item_t *it = &s->items[i];
    if (i) out(b, ", ");
    if (it->kind == SQL_ITEM_STAR) {
      if (it->qualifier.n) {
        qname(b, &it->qualifier);
        outc(b, '.');
      }
      outc(b, '*');
      continue;
    }
    expr(b, it->expr);
    if (it->alias.name) {
      out(b, " AS ");
      ident(b, &it->alias);
    }
  }
  if (s->nfrom) {
    out(b, " FROM ");
    for (size_t i = 0; i < s->nfrom; i++) {
      if (i) out(b, ", ");
      print_rel(b, s->from[i]);
    }
  }
  if (s->where) {
    out(b, " WHERE ");
    expr(b, s->where);
  }
  if (s->ngroup) {
    out(b, s->group_distinct ? " GROUP BY DISTINCT " : " GROUP BY ");
    for (size_t i = 0; i < s->ngroup; i++) {
      if (i) out(b, ", ");
      group_elem(b, &s->group_by[i]);
    }
  }
  if (s->having) {
    out(b, " HAVING ");
    expr(b, s->having);
  }
  for (size_t i = 0; i < s->nwindows; i++) {
    out(b, i ? ", " : " WINDOW ");
    ident(b, &s->windows[i].name);
    out(b, " AS ");
    window_spec(b, &s->windows[i].spec);
  }
}

static void set_operand(pr_t *b, const sql_qbody_t *q) {
  if (q->kind == SQL_QB_PAREN) {
    print_body(b, q);
    return;
  }
  outc(b, '(');
  print_body(b, q);
  outc(b, ')');
}

static void q_setop(pr_t *b, const sql_qbody_t *q) {
  static const char *const ops[] = {" UNION ", " INTERSECT ", " EXCEPT "};
  set_operand(b, q->u.setop.l);
  out(b, ops[q->u.setop.op]);
  if (q->u.setop.all) out(b, "ALL ");
  if (q->u.setop.distinct) out(b, "DISTINCT ");
  set_operand(b, q->u.setop.r);
}
static void q_values(pr_t *b, const sql_qbody_t *q) {
  out(b, "VALUES ");
  expr_list(b, &q->u.values);
}
static void q_table(pr_t *b, const sql_qbody_t *q) {
  out(b, "TABLE ");
  qname(b, &q->u.table);
}
static void q_paren(pr_t *b, const sql_qbody_t *q) { subquery(b, q->u.paren); }

static void (*const body_printers[SQL_QB_KIND_COUNT])(pr_t *, const sql_qbody_t *) = {
    [SQL_QB_SELECT] = q_select, [SQL_QB_SETOP] = q_setop, [SQL_QB_VALUES] = q_values,
    [SQL_QB_TABLE] = q_table,   [SQL_QB_PAREN] = q_paren,
};

static void print_body(pr_t *b, const sql_qbody_t *q) { body_printers[q->kind](b, q); }

static void print_query(pr_t *b, const sql_query_t *q) {
  if (q->nctes) {
    out(b, q->recursive ? "WITH RECURSIVE " : "WITH ");
    for (size_t i = 0; i < q->nctes; i++) {
      if (i) out(b, ", ");
      ident(b, &q->ctes[i].name);
      if (q->ctes[i].columns.n) {
        outc(b, ' ');
        ident_list(b, &q->ctes[i].columns);
      }
      out(b, " AS ");
      subquery(b, q->ctes[i].query);
    }
    outc(b, ' ');
  }
  print_body(b, q->body);
  if (q->order_by.n) {
    out(b, " ORDER BY ");
    sort_list(b, &q->order_by);
  }
  if (q->offset) {
    out(b, " OFFSET ");
    expr(b, q->offset);
  }
  switch (q->limit_kind) {
    case SQL_LIMIT_NONE: break;
    case SQL_LIMIT_ALL: out(b, " LIMIT ALL"); break;
    case SQL_LIMIT_COUNT:
      out(b, " LIMIT ");
      expr(b, q->limit);
      break;
    case SQL_LIMIT_FETCH:
    case SQL_LIMIT_FETCH_TIES:
      out(b, " FETCH FIRST ");
      if (q->limit) {
        expr(b, q->limit);
        outc(b, ' ');
      }
      out(b, q->limit_kind == SQL_LIMIT_FETCH ? "ROWS ONLY" : "ROWS WITH TIES");
      break;
  }
}

void sql_print_query(const sql_query_t *q, fl_buf_t *b) { print_query(b, q); }

/* ---- statements ---- */

static void props(pr_t *b, const sql_prop_list_t *l) {
  for (size_t i = 0; i < l->n; i++) {
    const sql_property_t *p = &l->items[i];
    if (i) out(b, ", ");
    if (p->key_is_string)
      string_lit(b, p->key.name, strlen(p->key.name));
    else
      ident(b, &p->key);
    out(b, " = ");
    if (p->value)
      expr(b, p->value);
    else
      out(b, "DEFAULT");
  }
}

static void with_props(pr_t *b, const sql_prop_list_t *l) {
  if (!l->n) return;
  out(b, " WITH (");
  props(b, l);
  outc(b, ')');
}

static void comment(pr_t *b, const char *text, size_t len) {
  if (!text) return;
  out(b, " COMMENT ");
  string_lit(b, text, len);
}

static void column_def(pr_t *b, const sql_column_def_t *c) {
  ident(b, &c->name);
  if (c->kind == SQL_COL_COMPUTED) {
    out(b, " AS ");
    expr(b, c->computed);
  } else {
    outc(b, ' ');
    sql_print_type(c->type, b);
    if (c->kind == SQL_COL_METADATA) {
      out(b, " METADATA");
      if (c->metadata_key) {
        out(b, " FROM ");
        string_lit(b, c->metadata_key, c->metadata_key_len);
      }
      if (c->is_virtual) out(b, " VIRTUAL");
    }
  }
  if (c->not_null) out(b, " NOT NULL");
  comment(b, c->comment, c->comment_len);
  with_props(b, &c->props);
}

static void s_query(pr_t *b, const sql_stmt_t *s) { print_query(b, s->u.query); }
static void s_create_schema(pr_t *b, const sql_stmt_t *s) {
  out(b, "CREATE SCHEMA ");
  if (s->u.create_schema.if_not_exists) out(b, "IF NOT EXISTS ");
  qname(b, &s->u.create_schema.name);
  with_props(b, &s->u.create_schema.props);
}
static void s_drop(pr_t *b, const sql_stmt_t *s) {
  out(b, s->kind == SQL_S_DROP_SCHEMA  ? "DROP SCHEMA "
         : s->kind == SQL_S_DROP_TABLE ? "DROP TABLE "
                                       : "DROP VIEW ");
  if (s->u.drop.if_exists) out(b, "IF EXISTS ");
  qname(b, &s->u.drop.name);
  if (s->u.drop.cascade) out(b, " CASCADE");
  if (s->u.drop.restrict_) out(b, " RESTRICT");
}
static void s_create_table(pr_t *b, const sql_stmt_t *s) {
  const __typeof__(s->u.create_table) *t = &s->u.create_table;
  out(b, "CREATE ");
  if (t->or_replace) out(b, "OR REPLACE ");
  if (t->temporary) out(b, "TEMPORARY ");
  out(b, "TABLE ");
  if (t->if_not_exists) out(b, "IF NOT EXISTS ");
  qname(b, &t->name);
  if (t->ncolumns || t->watermark || t->primary_key.n) {
    out(b, " (");
    const char *sep = "";
    for (size_t i = 0; i < t->ncolumns; i++) {
      out(b, sep);
      column_def(b, &t->columns[i]);
      sep = ", ";
    }
    if (t->watermark) {
      out(b, sep);
      out(b, "WATERMARK FOR ");
      ident(b, &t->watermark->column);
      out(b, " AS ");
      expr(b, t->watermark->expr);
      sep = ", ";
    }
    if (t->primary_key.n) {
      out(b, sep);
      out(b, "PRIMARY KEY ");
      ident_list(b, &t->primary_key);
      if (t->pk_not_enforced) out(b, " NOT ENFORCED");
    }
    outc(b, ')');
  }
  if (t->as_columns.n) {
    outc(b, ' ');
    ident_list(b, &t->as_columns);
  }
  comment(b, t->comment, t->comment_len);
  if (t->partitioned_by.n) {
    out(b, " PARTITIONED BY ");
    ident_list(b, &t->partitioned_by);
  }
  with_props(b, &t->props);
  if (t->as_query) {
    out(b, " AS ");
    print_query(b, t->as_query);
    if (t->with_data_given) out(b, t->with_no_data ? " WITH NO DATA" : " WITH DATA");
  }
}

static void a_add_column(pr_t *b, const sql_alter_t *a) {
  out(b, "ADD COLUMN ");
  if (a->if_not_exists) out(b, "IF NOT EXISTS ");
  for (size_t i = 0; i + 1 < a->target.n; i++) {
    ident(b, &a->target.parts[i]);
    outc(b, '.');
  }
  column_def(b, &a->column);
  if (!a->has_move) return;
  if (a->move == SQL_MOVE_FIRST) out(b, " FIRST");
  if (a->move == SQL_MOVE_LAST) out(b, " LAST");
  if (a->move == SQL_MOVE_AFTER) {
    out(b, " AFTER ");
    qname(b, &a->move_ref);
  }
}
static void a_drop_column(pr_t *b, const sql_alter_t *a) {
  out(b, "DROP COLUMN ");
  if (a->if_exists) out(b, "IF EXISTS ");
  qname(b, &a->target);
}
static void a_rename_column(pr_t *b, const sql_alter_t *a) {
  out(b, "RENAME COLUMN ");
  if (a->if_exists) out(b, "IF EXISTS ");
  qname(b, &a->target);
  out(b, " TO ");
  ident(b, &a->new_name);
}
static void a_set_type(pr_t *b, const sql_alter_t *a) {
  out(b, "ALTER COLUMN ");
  qname(b, &a->target);
  out(b, " SET DATA TYPE ");
  sql_print_type(a->type, b);
}
static void a_drop_not_null(pr_t *b, const sql_alter_t *a) {
  out(b, "ALTER COLUMN ");
  qname(b, &a->target);
  out(b, " DROP NOT NULL");
}
static void a_rename_to(pr_t *b, const sql_alter_t *a) {
  out(b, "RENAME TO ");
  qname(b, &a->target);
}
static void a_set_properties(pr_t *b, const sql_alter_t *a) {
  out(b, "SET PROPERTIES ");
  props(b, &a->props);
}
static void a_execute(pr_t *b, const sql_alter_t *a) {
  out(b, "EXECUTE ");
  qname(b, &a->procedure->name);
  if (a->procedure->args.n) call_args(b, a->procedure);
  if (a->where) {
    out(b, " WHERE ");
    expr(b, a->where);
  }
}
static void a_create_ref(pr_t *b, const sql_alter_t *a) {
  static const char *const units[] = {"DAYS", "HOURS", "MINUTES"};
  out(b, a->replace_only ? "REPLACE " : a->or_replace ? "CREATE OR REPLACE " : "CREATE ");
  out(b, a->ref == SQL_REF_BRANCH ? "BRANCH " : "TAG ");
  if (a->if_not_exists) out(b, "IF NOT EXISTS ");
  ident(b, &a->ref_name);
  if (a->as_of_version) {
    out(b, " AS OF VERSION ");
    expr(b, a->as_of_version);
  }
  if (a->has_retain)
    fl_buf_printf(b, " RETAIN %lld %s", (long long)a->retain, units[a->retain_unit]);
  if (a->has_min_snapshots || a->has_snapshot_age) out(b, " WITH SNAPSHOT RETENTION");
  if (a->has_min_snapshots) fl_buf_printf(b, " %lld SNAPSHOTS", (long long)a->min_snapshots);
  if (a->has_snapshot_age)
    fl_buf_printf(b, " %lld %s", (long long)a->snapshot_age, units[a->snapshot_age_unit]);
}
static void a_drop_ref(pr_t *b, const sql_alter_t *a) {
  out(b, a->ref == SQL_REF_BRANCH ? "DROP BRANCH " : "DROP TAG ");
  if (a->if_exists) out(b, "IF EXISTS ");
  ident(b, &a->ref_name);
}

static void a_set_identifier(pr_t *b, const sql_alter_t *a) {
  out(b, a->drop_identifier ? "DROP IDENTIFIER FIELDS " : "SET IDENTIFIER FIELDS ");
  for (size_t i = 0; i < a->idents.n; i++) {
    if (i) out(b, ", ");
    ident(b, &a->idents.items[i]);
  }
}
static void part_name(pr_t *b, const sql_alter_t *a) {
  if (!a->part_name.name) return;
  out(b, " AS ");
  ident(b, &a->part_name);
}
static void a_add_partition_field(pr_t *b, const sql_alter_t *a) {
  out(b, "ADD PARTITION FIELD ");
  out(b, a->part_term);
  part_name(b, a);
}
static void a_drop_partition_field(pr_t *b, const sql_alter_t *a) {
  out(b, "DROP PARTITION FIELD ");
  out(b, a->part_old);
}
static void a_replace_partition_field(pr_t *b, const sql_alter_t *a) {
  out(b, "REPLACE PARTITION FIELD ");
  out(b, a->part_old);
  out(b, " WITH ");
  out(b, a->part_term);
  part_name(b, a);
}
static void a_move_column(pr_t *b, const sql_alter_t *a) {
  out(b, "ALTER COLUMN ");
  qname(b, &a->target);
  if (a->move == SQL_MOVE_FIRST) {
    out(b, " FIRST");
    return;
  }
  out(b, a->move == SQL_MOVE_AFTER ? " AFTER " : " BEFORE ");
  qname(b, &a->move_ref);
}
static void a_column_comment(pr_t *b, const sql_alter_t *a) {
  out(b, "ALTER COLUMN ");
  qname(b, &a->target);
  comment(b, a->column.comment, a->column.comment_len);
}

static void (*const alter_printers[SQL_ALTER_KIND_COUNT])(pr_t *, const sql_alter_t *) = {
    [SQL_ALTER_ADD_COLUMN] = a_add_column,         [SQL_ALTER_DROP_COLUMN] = a_drop_column,
    [SQL_ALTER_RENAME_COLUMN] = a_rename_column,   [SQL_ALTER_SET_TYPE] = a_set_type,
    [SQL_ALTER_DROP_NOT_NULL] = a_drop_not_null,   [SQL_ALTER_RENAME_TO] = a_rename_to,
    [SQL_ALTER_SET_PROPERTIES] = a_set_properties, [SQL_ALTER_EXECUTE] = a_execute,
    [SQL_ALTER_CREATE_REF] = a_create_ref,         [SQL_ALTER_DROP_REF] = a_drop_ref,
    [SQL_ALTER_SET_IDENTIFIER] = a_set_identifier,
    [SQL_ALTER_ADD_PARTITION_FIELD] = a_add_partition_field,
    [SQL_ALTER_DROP_PARTITION_FIELD] = a_drop_partition_field,
    [SQL_ALTER_REPLACE_PARTITION_FIELD] = a_replace_partition_field,
    [SQL_ALTER_MOVE_COLUMN] = a_move_column,
    [SQL_ALTER_COLUMN_COMMENT] = a_column_comment,
};

static void s_alter_table(pr_t *b, const sql_stmt_t *s) {
  out(b, "ALTER TABLE ");
  if (s->u.alter_table.if_exists) out(b, "IF EXISTS ");
  qname(b, &s->u.alter_table.name);
  outc(b, ' ');
  alter_printers[s->u.alter_table.alter.kind](b, &s->u.alter_table.alter);
}
static void s_create_view(pr_t *b, const sql_stmt_t *s) {
  out(b, "CREATE ");
  if (s->u.create_view.or_replace) out(b, "OR REPLACE ");
  if (s->u.create_view.temporary) out(b, "TEMPORARY ");
  out(b, "VIEW ");
  qname(b, &s->u.create_view.name);
  if (s->u.create_view.columns.n) {
    outc(b, ' ');
    ident_list(b, &s->u.create_view.columns);
  }
  comment(b, s->u.create_view.comment, s->u.create_view.comment_len);
  out(b, " AS ");
  print_query(b, s->u.create_view.query);
}
static void s_call(pr_t *b, const sql_stmt_t *s) {
  out(b, "CALL ");
  qname(b, &s->u.call->name);
  call_args(b, s->u.call);
}
static void s_insert(pr_t *b, const sql_stmt_t *s) {
  out(b, s->u.insert.overwrite ? "INSERT OVERWRITE " : "INSERT INTO ");
  qname(b, &s->u.insert.table);
  if (s->u.insert.columns.n) {
    outc(b, ' ');
    ident_list(b, &s->u.insert.columns);
  }
  outc(b, ' ');
  print_query(b, s->u.insert.query);
}
static void s_delete(pr_t *b, const sql_stmt_t *s) {
  out(b, "DELETE FROM ");
  qname(b, &s->u.delete_.table);
  if (s->u.delete_.alias.name) {
    out(b, " AS ");
    ident(b, &s->u.delete_.alias);
  }
  if (s->u.delete_.where) {
    out(b, " WHERE ");
    expr(b, s->u.delete_.where);
  }
}
static void assignments(pr_t *b, const sql_assignment_t *a, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (i) out(b, ", ");
    qname(b, &a[i].column);
    out(b, " = ");
    expr(b, a[i].value);
  }
}
static void s_update(pr_t *b, const sql_stmt_t *s) {
  out(b, "UPDATE ");
  qname(b, &s->u.update.table);
  out(b, " SET ");
  assignments(b, s->u.update.sets, s->u.update.nsets);
  if (s->u.update.where) {
    out(b, " WHERE ");
    expr(b, s->u.update.where);
  }
}
static void s_merge(pr_t *b, const sql_stmt_t *s) {
  out(b, "MERGE INTO ");
  qname(b, &s->u.merge.target);
  if (s->u.merge.alias.name) {
    out(b, " AS ");
    ident(b, &s->u.merge.alias);
  }
  out(b, " USING ");
  print_rel(b, s->u.merge.source);
  out(b, " ON ");
  expr(b, s->u.merge.on);
  for (size_t i = 0; i < s->u.merge.nclauses; i++) {
    const sql_merge_clause_t *c = &s->u.merge.clauses[i];
    out(b, c->matched ? " WHEN MATCHED" : " WHEN NOT MATCHED");
    if (c->cond) {
      out(b, " AND ");
      expr(b, c->cond);
    }
    out(b, " THEN ");
    if (c->action == SQL_MERGE_DELETE) {
      out(b, "DELETE");
    } else if (c->action == SQL_MERGE_UPDATE) {
      out(b, "UPDATE SET ");
      assignments(b, c->sets, c->nsets);
    } else {
      out(b, "INSERT ");
      if (c->columns.n) {
        ident_list(b, &c->columns);
        outc(b, ' ');
      }
      out(b, "VALUES (");
      expr_list(b, &c->values);
      outc(b, ')');
    }
  }
}
static void s_truncate(pr_t *b, const sql_stmt_t *s) {
  out(b, "TRUNCATE TABLE ");
  qname(b, &s->u.drop.name);
}
static void s_explain(pr_t *b, const sql_stmt_t *s) {
  out(b, "EXPLAIN ");
  if (s->u.explain.analyze) out(b, "ANALYZE ");
  if (s->u.explain.verbose) out(b, "VERBOSE ");
  print_stmt(b, s->u.explain.stmt);
}
static void s_show(pr_t *b, const sql_stmt_t *s) {
  static const char *const kinds[] = {
      "SHOW SCHEMAS",      "SHOW TABLES",   "SHOW COLUMNS FROM ", "SHOW CREATE TABLE ",
      "SHOW CREATE VIEW ", "SHOW CATALOGS", "SHOW FUNCTIONS"};
  out(b, kinds[s->u.show.kind]);
  if (s->u.show.from.n) {
    if (s->u.show.kind == SQL_SHOW_SCHEMAS || s->u.show.kind == SQL_SHOW_TABLES) out(b, " FROM ");
    qname(b, &s->u.show.from);
  }
  if (s->u.show.like) {
    out(b, " LIKE ");
    string_lit(b, s->u.show.like, s->u.show.like_len);
  }
}
static void s_describe(pr_t *b, const sql_stmt_t *s) {
  out(b, "DESCRIBE ");
  qname(b, &s->u.drop.name);
}
static void s_use(pr_t *b, const sql_stmt_t *s) {
  out(b, "USE ");
  qname(b, &s->u.drop.name);
}
static void set_key(pr_t *b, const sql_stmt_t *s) {
  if (s->u.set.key_string)
    string_lit(b, s->u.set.key_string, s->u.set.key_len);
  else
    for (size_t i = 0; i < s->u.set.key.n; i++) {
      if (i) outc(b, '.');
      arg_name(b, &s->u.set.key.parts[i]);
    }
}
static void s_set(pr_t *b, const sql_stmt_t *s) {
  out(b, s->u.set.session ? "SET SESSION" : "SET");
  if (!s->u.set.value) return;
  outc(b, ' ');
  set_key(b, s);
  out(b, " = ");
  expr(b, s->u.set.value);
}
static void s_reset(pr_t *b, const sql_stmt_t *s) {
  out(b, s->u.set.session ? "RESET SESSION" : "RESET");
  if (!s->u.set.key_string && !s->u.set.key.n) return;
  outc(b, ' ');
  set_key(b, s);
}
static void s_comment(pr_t *b, const sql_stmt_t *s) {
  out(b, s->u.comment.column ? "COMMENT ON COLUMN " : "COMMENT ON TABLE ");
  qname(b, &s->u.comment.name);
  out(b, " IS ");
  if (s->u.comment.text)
    string_lit(b, s->u.comment.text, s->u.comment.len);
  else
    out(b, "NULL");
}

static void s_statement_set(pr_t *b, const sql_stmt_t *s) {
  out(b, s->u.statement_set.begin_form ? "BEGIN STATEMENT SET; " : "EXECUTE STATEMENT SET BEGIN ");
  for (size_t i = 0; i < s->u.statement_set.n; i++) {
    print_stmt(b, s->u.statement_set.stmts[i]);
    out(b, "; ");
  }
  out(b, "END");
}

static void (*const stmt_printers[SQL_S_KIND_COUNT])(pr_t *, const sql_stmt_t *) = {
    [SQL_S_QUERY] = s_query,
    [SQL_S_CREATE_SCHEMA] = s_create_schema,
    [SQL_S_DROP_SCHEMA] = s_drop,
    [SQL_S_CREATE_TABLE] = s_create_table,
    [SQL_S_DROP_TABLE] = s_drop,
    [SQL_S_ALTER_TABLE] = s_alter_table,
    [SQL_S_CREATE_VIEW] = s_create_view,
    [SQL_S_DROP_VIEW] = s_drop,
    [SQL_S_CALL] = s_call,
    [SQL_S_INSERT] = s_insert,
    [SQL_S_DELETE] = s_delete,
    [SQL_S_UPDATE] = s_update,
    [SQL_S_MERGE] = s_merge,
    [SQL_S_TRUNCATE] = s_truncate,
    [SQL_S_EXPLAIN] = s_explain,
    [SQL_S_SHOW] = s_show,
    [SQL_S_DESCRIBE] = s_describe,
    [SQL_S_USE] = s_use,
    [SQL_S_SET] = s_set,
    [SQL_S_RESET] = s_reset,
    [SQL_S_STATEMENT_SET] = s_statement_set,
    [SQL_S_COMMENT] = s_comment,
};

static void print_stmt(pr_t *b, const sql_stmt_t *s) { stmt_printers[s->kind](b, s); }

void sql_print_stmt(const sql_stmt_t *s, fl_buf_t *b) { print_stmt(b, s); }

char *sql_stmt_text(fl_arena_t *a, const sql_stmt_t *s) {
  fl_buf_t b;
  fl_buf_init(&b);
  print_stmt(&b, s);
  char *text = fl_arena_strndup(a, b.len ? (const char *)b.data : "", b.len);
  fl_buf_free(&b);
  return text;
}
