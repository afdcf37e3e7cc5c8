/*
 * sql_bind_int.h - what the binder's files share (layer 7, sql): the binder
 * state, scopes of visible columns, the aggregation context, and the entry
 * points of each file (expressions, FROM, SELECT, queries and set
 * operations).
 */
#ifndef FL_SQL_SQL_BIND_INT_H
#define FL_SQL_SQL_BIND_INT_H

#include <stdarg.h>

#include "sql/sql_bind.h"

/* One visible column: the relation it comes from (alias or table name,
 * NULL for none) and its name. */
typedef struct sql_scope_col {
  const char *qual;
  const char *name;
  sql_dtype_t type;
  bool outer;  /* of the enclosing query (a correlated EXISTS): names of
                  the inner query hide it */
  bool hidden; /* a table's hidden column ("$path", "$pos", "$partition"): not in `*` */
} sql_scope_col_t;

typedef struct sql_scope {
  sql_scope_col_t *cols;
  uint32_t n;
} sql_scope_t;

/* The WITH names visible at a point, innermost first. */
typedef struct sql_cte_ent {
  const sql_cte_t *cte;
  struct sql_cte_ent *next;
} sql_cte_ent_t;

struct sql_ectx;

/* The queries enclosing a subquery being bound, innermost first: a name
 * the subquery does not have resolves in them (a correlated reference,
 * SQL_BX_OUTER of level 1, 2, ...). used: a name resolved there or
 * further out, so the subquery bound inside this entry is correlated. */
typedef struct sql_outer {
  const struct sql_ectx *cx;
  bool used;
  struct sql_outer *next;
} sql_outer_t;

typedef struct sql_binder {
  fl_arena_t *a;
  const sql_bind_opts_t *o;
  fl_err_t *err;
  sql_cte_ent_t *ctes;
  int depth;
  /* Tables carry the hidden columns "$path", "$pos" and "$partition"
   * (after their own); set when a query names one (want_hidden asks for a rebind) and
   * for the row-level statements, which need the row identity. */
  bool hidden, want_hidden;
  sql_outer_t *outer;
} sql_binder_t;

/*
 * Correlated subqueries of one clause. Each becomes an APPLY node (its
 * outer input not yet set) and binds to a placeholder column
 * SQL_SUBQ_COL + k until sql__plan_applies stacks the nodes over the
 * clause's input and knows the real columns.
 */
#define SQL_SUBQ_COL 0x20000000u
typedef struct sql_subq {
  sql_plan_t **applies;
  uint32_t n, cap;
} sql_subq_t;

/*
 * Aggregation of one SELECT. The plan below it is a projection of pre
 * (the FROM scope) into [group keys..., aggregate arguments and FILTER
 * conditions...]; above it, column i < nkeys is key i and nkeys + j is
 * aggregate j.
 */
typedef struct sql_aggctx {
  const sql_scope_t *pre;
  sql_bexpr_t **keys;
  uint32_t nkeys;
  sql_bexpr_t **proj; /* the projection below: keys first */
  uint32_t nproj, proj_cap;
  sql_agg_call_t *aggs;
  sql_bexpr_t **agg_args; /* for recognizing repeated calls; NULL for count(*) */
  sql_bexpr_t **agg_filters;
  uint32_t naggs, aggs_cap;
  /* Grouping sets (ROLLUP, CUBE, GROUPING SETS): bit masks over the keys;
   * with sets the aggregate's output has a "$grouping_set" column after
   * the keys, so aggregate j is column agg_base + j. */
  uint64_t *sets;
  uint32_t nsets;
  uint32_t agg_base;
} sql_aggctx_t;

/*
 * Window functions of one SELECT (sql_bind_window.c). Their arguments,
 * PARTITION BY and ORDER BY expressions are bound over the columns below
 * the windows (the FROM scope or the aggregation's output, B columns) and
 * become extra columns B + i of a projection under the WINDOW nodes. A
 * window call binds to a placeholder column SQL_WIN_COL + k until the
 * nodes are built and the calls' real columns known.
 */
#define SQL_WIN_COL 0x40000000u
typedef struct sql_winfn {
  sql_win_call_t call; /* columns: extra indices */
  uint32_t spec;
} sql_winfn_t;
typedef struct sql_winspec {
  uint32_t *partition; /* extra indices */
  uint32_t npartition;
  sql_sort_key_t *order; /* extra indices */
  uint32_t norder;
  sql_win_frame_t *frame;
} sql_winspec_t;
typedef struct sql_winctx {
  const sql_select_t *sel; /* its WINDOW clause */
  sql_bexpr_t **extra;
  uint32_t nextra, extra_cap;
  sql_winspec_t *specs;
  uint32_t nspecs, specs_cap;
  sql_winfn_t *fns;
  uint32_t nfns, fns_cap;
} sql_winctx_t;

/* Where an expression is bound. */
typedef struct sql_ectx {
  const sql_scope_t *scope; /* the columns names resolve to */
  sql_aggctx_t *agg;        /* non-NULL: above an aggregation (select list, HAVING, ORDER BY) */
  const char *clause;       /* "WHERE", "GROUP BY": where aggregates are refused */
  bool quiet;               /* trial binding: errors are expected and not reported */
  sql_winctx_t *win;        /* non-NULL: window functions allowed (select list, ORDER BY) */
  sql_subq_t *subq;         /* non-NULL: correlated subqueries allowed */
} sql_ectx_t;

/* Sets err to "line L, column C: <message>" and returns code. */
int sql__errf(sql_binder_t *b, sql_pos_t pos, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* sql_bind_expr.c */
int sql__bind_expr(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *e, sql_bexpr_t **out);
/* Wraps e in a CAST to t unless it already has that type. */
int sql__coerce(sql_binder_t *b, sql_bexpr_t *e, const sql_dtype_t *t, sql_bexpr_t **out);
/* Binds a condition and checks it is boolean (or NULL). */
int sql__bind_cond(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *e, const char *clause,
                   sql_bexpr_t **out);
sql_bexpr_t *sql__col_ref(sql_binder_t *b, uint32_t col, const sql_dtype_t *t, sql_pos_t pos);
/* A scalar call through the resolver, with the coercions it asks for. */
int sql__call(sql_binder_t *b, const char *name, sql_pos_t pos, sql_bexpr_t **args, uint32_t n,
              sql_bexpr_t **out);
/* x AND y (both boolean); coalesce(x, y) of type t. */
sql_bexpr_t *sql__and(sql_binder_t *b, sql_bexpr_t *x, sql_bexpr_t *y);
sql_bexpr_t *sql__coalesce2(sql_binder_t *b, sql_bexpr_t *x, sql_bexpr_t *y, const sql_dtype_t *t);
sql_bexpr_t *sql__int_const(sql_binder_t *b, int64_t v, sql_pos_t pos);
bool sql__common(sql_binder_t *b, const sql_dtype_t *x, const sql_dtype_t *y, sql_dtype_t *out);
/* Whether the tree contains a call of an aggregate function. */
bool sql__has_agg(sql_binder_t *b, const sql_expr_t *e);

/* Stacks the APPLY nodes of q over *p and rewrites their placeholder
 * columns in exprs[0..n) (and in the nodes' own arguments). */
void sql__plan_applies(sql_binder_t *b, sql_subq_t *q, sql_plan_t **p, sql_bexpr_t **exprs,
                       uint32_t n);
/* Whether the syntax tree contains a subquery. */
bool sql__has_subquery(const sql_expr_t *e);

/* sql_bind_window.c: a call with OVER (refused where cx->win is NULL). */
int sql__bind_window_call(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x,
                          const char *name, sql_bexpr_t **out);
/* Builds the projection and the WINDOW nodes over p (B columns) and
 * rewrites the placeholder columns of exprs[0..n) to the calls' columns. */
int sql__plan_windows(sql_binder_t *b, sql_winctx_t *w, sql_plan_t **p, sql_bexpr_t **exprs,
                      uint32_t n);

/* sql_bind_from.c: a relation (table, subquery, CTE) into a plan and the
 * scope of its columns. */
int sql__bind_from(sql_binder_t *b, const sql_rel_t *rel, sql_plan_t **out, sql_scope_t *scope);

/* The FROM list: comma-separated relations cross joined left to right. */
int sql__bind_from_list(sql_binder_t *b, sql_rel_t *const *rels, size_t n, sql_plan_t **out,
                        sql_scope_t *scope);
/* A join node of l and r (output: l's columns, then r's unless SEMI/ANTI). */
sql_plan_t *sql__join_new(sql_binder_t *b, sql_plan_t *l, sql_plan_t *r, sql_join_type_t type,
                          sql_bexpr_t *cond);

/* sql_bind_files.c: read_parquet(...), read_csv(...), read_json(...) in
 * FROM: a scan of the files. */
int sql__bind_table_function(sql_binder_t *b, const sql_rel_t *rel, sql_plan_t **out,
                             sql_scope_t *scope);
/* sql_bind_window_tvf.c: TUMBLE, HOP, CUMULATE and SESSION in FROM. */
bool sql__is_window_tvf(const sql_rel_t *rel);
int sql__bind_window_tvf(sql_binder_t *b, const sql_rel_t *rel, sql_plan_t **out,
                         sql_scope_t *scope);
/* The namespace and name a table name means (default namespace for one part). */
int sql__table_name(sql_binder_t *b, const sql_qname_t *q, sql_pos_t pos, const char **ns,
                    const char **name);
/* Opens a table of the catalog (freed with the arena). */
/* sql_bind_insert.c: e cast to a column of type dt with Trino's insert
 * coercions (implicit ones and numeric narrowing); FL_EINVALID, no
 * message set, when e's type cannot be assigned. */
int sql__assign_cast(sql_binder_t *b, sql_bexpr_t *e, const sql_dtype_t *dt, sql_bexpr_t **out);

int sql__open_table(sql_binder_t *b, const sql_qname_t *q, sql_pos_t pos, ice_table_t **out,
                    const char **ns, const char **name);

/* sql_bind_nested.c: row fields ((r).f, and r.f / t.r.f for a dotted
 * name no column matches: sql__bind_row_path fails quietly) and
 * subscripts (a[i], m[k]). */
int sql__bind_deref(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x, sql_bexpr_t **out);
int sql__bind_subscript(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x,
                        sql_bexpr_t **out);
int sql__bind_row_path(sql_binder_t *b, const sql_ectx_t *cx, const sql_expr_t *x,
                       sql_bexpr_t **out);

/* The snapshot (*snap, or the branch or tag *ref) a relation's time-travel
 * clause names in t; *schema_id the schema to bind (-1: current). */
int sql__travel(sql_binder_t *b, const sql_rel_t *rel, const ice_table_t *t, int64_t *snap,
                const char **ref, int32_t *schema_id);
/* sql_bind_meta.c: a metadata table, "t$snapshots" (rel's last name part
 * holds a '$'). */
int sql__bind_meta_table(sql_binder_t *b, const sql_rel_t *rel, sql_plan_t **out,
                         sql_scope_t *scope);

/* sql_bind_stream.c: a one-part name that is one of the job's connector
 * tables (o->streams): its scan. FL_ENOTFOUND, no message set, when the
 * name is not one. */
int sql__bind_stream_scan(sql_binder_t *b, const sql_rel_t *rel, sql_plan_t **out,
                          sql_scope_t *scope);

/* sql_bind_select.c: one SELECT with the query's ORDER BY (which may name
 * its input columns). */
int sql__bind_select(sql_binder_t *b, const sql_select_t *s, const sql_sort_list_t *order,
                     sql_plan_t **out);

/* sql_bind_query.c */
int sql__bind_query(sql_binder_t *b, const sql_query_t *q, sql_plan_t **out);
/* The same for a statement's own query: bound again with the hidden
 * columns when it names one. */
int sql__bind_top_query(sql_binder_t *b, const sql_query_t *q, sql_plan_t **out);
/* A plan's output columns as a scope under one qualifier. */
void sql__plan_scope(sql_binder_t *b, const sql_plan_t *p, const char *qual, sql_scope_t *out);
/* A projection of p's columns (identity) whose names can then change. */
sql_plan_t *sql__project_all(sql_binder_t *b, sql_plan_t *p);
/* ORDER BY over the output columns of p only (set operations, VALUES). */
int sql__bind_order_output(sql_binder_t *b, const sql_sort_list_t *order, sql_plan_t **p);
void sql__sort_key(const sql_sort_item_t *it, uint32_t col, sql_sort_key_t *k);

#endif
