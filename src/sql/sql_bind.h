/*
 * sql_bind.h - the binder: syntax tree to logical plan (layer 7, sql).
 *
 * Binding resolves table names through the catalog, column names through
 * the scopes of the FROM clause (qualified or not, case-insensitive as in
 * Trino), types every expression, chooses function overloads and inserts
 * the implicit coercions they need, and arranges SELECT, WHERE, GROUP BY,
 * HAVING, DISTINCT, ORDER BY, LIMIT/OFFSET, UNION and CTEs into a plan
 * (sql_plan.h).
 *
 * Functions and aggregates belong to the executor, a layer above; the
 * binder reaches them only through the sql_resolver_t it is given, a table
 * of function pointers the executor fills (exec/ex_resolver.c).
 *
 * Errors are FL_EINVALID (or FL_ENOTFOUND / FL_EUNSUPPORTED) with a message
 * that starts "line L, column C: " at the offending node, so the caret
 * helper of sql_parse.h can point at it.
 */
#ifndef FL_SQL_SQL_BIND_H
#define FL_SQL_SQL_BIND_H

#include "catalog/catalog.h"
#include "io/fs.h"
#include "sql/sql_ast.h"
#include "sql/sql_plan.h"

#define SQL_MAX_ARGS 32

/* A scalar overload as the resolver chose it. */
typedef struct sql_fn_sig {
  const void *impl;               /* the resolver's handle */
  sql_dtype_t args[SQL_MAX_ARGS]; /* what each argument is cast to */
  sql_dtype_t ret;
} sql_fn_sig_t;

typedef struct sql_resolver {
  void *ctx;
  /* Resolves name(args) (name lower case; operators are "+", "=", "||");
   * FL_ENOTFOUND with a message naming the argument types when none fits. */
  int (*scalar)(void *ctx, const char *name, const sql_dtype_t *args, size_t n, sql_fn_sig_t *out,
                fl_err_t *err);
  /* Whether name is an aggregate function. */
  bool (*is_aggregate)(void *ctx, const char *name);
  /* The result type of aggregate name over arg (NULL for count(*)) with
   * constant parameters (approx_percentile's percentile). */
  int (*aggregate)(void *ctx, const char *name, const sql_dtype_t *arg, bool distinct,
                   const double *params, uint32_t nparams, sql_dtype_t *ret, fl_err_t *err);
  /* Whether CAST(from AS to) exists. */
  int (*cast)(void *ctx, const sql_dtype_t *from, const sql_dtype_t *to, fl_err_t *err);
  /* Trino's common super type; false when there is none. */
  bool (*common)(void *ctx, const sql_dtype_t *a, const sql_dtype_t *b, sql_dtype_t *out);
  /*
   * Evaluates a constant expression (no column references) for constant
   * folding. The value comes back as a literal of e's type, or with
   * *as_text set as its varchar text (decimal, date, timestamp: the
   * optimizer puts a CAST over it). Fails, and nothing is folded, when the
   * evaluation fails (1/0 must fail only if a row reaches it) or the
   * expression is not deterministic.
   */
  int (*fold)(void *ctx, const sql_bexpr_t *e, sql_const_t *out, bool *as_text, fl_err_t *err);
  /* Whether the scalar overload impl (sql_fn_sig_t.impl) may give another
   * value each time it is called with the same arguments (random). */
  bool (*nondeterministic)(void *ctx, const void *impl);
  /* The SQL type of an Iceberg column type; fails for types SQL does not
   * cover yet. */
  int (*from_storage)(void *ctx, const ty_type_t *t, sql_dtype_t *out, fl_err_t *err);
} sql_resolver_t;

/* Whether e gives the same value whenever its inputs are the same: no call
 * the resolver calls non-deterministic (every call, without r or its
 * answer), no subquery. */
bool sql_bexpr_deterministic(const sql_resolver_t *r, const sql_bexpr_t *e);

typedef struct sql_bind_opts {
  const sql_resolver_t *resolver;
  cat_catalog_t *catalog; /* NULL: no tables, only VALUES */
  io_fs_t *fs;
  const char *default_ns; /* namespace of one-part table names; NULL: "default" */
  const char *text;       /* the statement's text, for messages; may be NULL */
  /* A streaming job's connector tables (sql_stream.h), visible under
   * their one-part names before the catalog's; NULL: none. */
  struct sql_stream_table *const *streams;
  uint32_t nstreams;
} sql_bind_opts_t;

/*
 * Binds a query into a logical plan in arena a. Tables it opens are freed
 * with the arena. Output column names are the aliases, the column names,
 * or "_colN" as Trino names them.
 */
int sql_bind_query(fl_arena_t *a, const sql_bind_opts_t *o, const sql_query_t *q, sql_plan_t **out,
                   fl_err_t *err);

/*
 * INSERT INTO t [(columns)] query: the query's plan with one output column
 * per table column in table order, each cast to the column's type
 * (columns not listed are NULL). The table is freed with the arena.
 */
typedef struct sql_insert {
  ice_table_t *table;
  const char *ns, *name;
  const char *branch; /* INSERT INTO t.branch_b (Spark): "b"; NULL: main */
  sql_plan_t *plan;
} sql_insert_t;
int sql_bind_insert(fl_arena_t *a, const sql_bind_opts_t *o, const sql_stmt_t *st,
                    sql_insert_t *out, fl_err_t *err);

/*
 * CREATE TABLE ns.t (columns): the Iceberg schema (ids 1..n; the catalog
 * renumbers), with NOT NULL columns required. Types map as Trino's Iceberg
 * connector does: integer int, bigint long, real float, varchar string,
 * varbinary binary, timestamp(6) timestamp, with time zone timestamptz.
 * CREATE TABLE AS takes the query's column names and types.
 */
typedef struct sql_create_table {
  const char *ns, *name;
  ty_schema_t *schema;
  sql_plan_t *plan; /* CREATE TABLE AS: the rows to insert (NULL: none, WITH NO DATA) */
  /* WITH (partitioning = ARRAY['day(ts)', 'bucket(16, id)'], sorted_by =
   * ARRAY['id DESC'], location = '...'), as Trino's Iceberg connector
   * spells them: the lists joined with ", " for the spec and sort order
   * parsers; NULL when not given. format = 'PARQUET' is accepted. */
  const char *partitioning, *sorted_by, *location;
  /* Iceberg table properties: format_version = 3 (Trino's) becomes
   * format-version, and quoted keys ('write.delete.mode' =
   * 'merge-on-read', as Spark writes TBLPROPERTIES) are kept as given. */
  ice_kv_t *props;
  uint32_t nprops;
} sql_create_table_t;
int sql_bind_create_table(fl_arena_t *a, const sql_bind_opts_t *o, const sql_stmt_t *st,
                          sql_create_table_t *out, fl_err_t *err);

/*
 * DELETE, UPDATE and MERGE (sql_bind_dml.c): one query whose rows name
 * the target rows acted on and the rows to write. Column 0 is the target
 * row's data file ("$path", NULL in MERGE for a source row without a
 * match), column 1 its position ("$pos"); then per clause its condition
 * (cond_col) and, for UPDATE and INSERT, the new row (ncols columns from
 * values_col, in table order and of the table's types). DELETE and UPDATE
 * have one clause that applies to every row of the query. The table
 * (freed with the arena) holds the snapshot the query reads
 * (snapshot_id, -1 for an empty table), the base of the commit. TRUNCATE
 * TABLE only opens the table (plan NULL, no clauses).
 */
typedef struct sql_dml_clause {
  sql_merge_action_t action;
  bool matched;        /* WHEN MATCHED (DELETE, UPDATE) or NOT MATCHED (INSERT) */
  int32_t cond_col;    /* boolean column of AND cond; -1: none */
  uint32_t values_col; /* UPDATE, INSERT: the first column of the new row */
  sql_pos_t pos;
} sql_dml_clause_t;
typedef struct sql_dml {
  ice_table_t *table;
  const char *ns, *name;
  int64_t snapshot_id;
  sql_plan_t *plan;
  sql_dml_clause_t *clauses;
  uint32_t nclauses;
  uint32_t ncols; /* table columns */
} sql_dml_t;
int sql_bind_dml(fl_arena_t *a, const sql_bind_opts_t *o, const sql_stmt_t *st, sql_dml_t *out,
                 fl_err_t *err);
/* The Iceberg type of a written primitive type, as CREATE TABLE maps it
 * (errors "line L, column C: Type not supported for Iceberg: ..."). */
int sql_bind_iceberg_type(fl_arena_t *a, const sql_type_t *t, const ty_type_t **out, fl_err_t *err);

/* Converts a written type (CAST target) to a SQL type. */
int sql_bind_type(const sql_type_t *t, sql_dtype_t *out, fl_err_t *err);
/* The same for every type, array(T), map(K, V) and row(...) included
 * (their parts allocated in a). */
int sql_bind_type_in(fl_arena_t *a, const sql_type_t *t, sql_dtype_t *out, fl_err_t *err);

#endif
