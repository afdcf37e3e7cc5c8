/*
 * sql_plan.h - bound expressions and the logical plan (layer 7, sql).
 *
 * The binder turns a syntax tree into this form: every name resolved to an
 * input column index, every expression typed, every implicit coercion an
 * explicit CAST node, every function call carrying the overload the
 * function resolver chose. The optimizer rules (opt_*.c) rewrite plans in
 * place; the executor's physical planner (exec/ex_plan.c) turns a plan
 * into operators. Nothing here depends on the executor: types are SQL
 * types (sql_dtype_t, the same list and order as exec's ex_tkind_t) and
 * functions are opaque handles the resolver hands out.
 *
 * Plans and expressions live in the arena of the statement.
 */
#ifndef FL_SQL_SQL_PLAN_H
#define FL_SQL_SQL_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "format/format.h"
#include "iceberg/ice_expr.h"
#include "iceberg/ice_table.h"
#include "sql/sql_ast.h"
#include "sql/sql_lex.h"

/* SQL types, in the order of exec's EX_TYPE_MAP (checked there). */
#define SQL_DTYPE_MAP(X)                     \
  X(UNKNOWN, "unknown")                      \
  X(BOOLEAN, "boolean")                      \
  X(TINYINT, "tinyint")                      \
  X(SMALLINT, "smallint")                    \
  X(INTEGER, "integer")                      \
  X(BIGINT, "bigint")                        \
  X(REAL, "real")                            \
  X(DOUBLE, "double")                        \
  X(DECIMAL, "decimal")                      \
  X(VARCHAR, "varchar")                      \
  X(VARBINARY, "varbinary")                  \
  X(DATE, "date")                            \
  X(TIME, "time")                            \
  X(TIMESTAMP, "timestamp")                  \
  X(TIMESTAMPTZ, "timestamp with time zone") \
  X(INTERVAL_DS, "interval day to second")   \
  X(INTERVAL_YM, "interval year to month")   \
  X(UUID, "uuid")                            \
  X(ARRAY, "array")                          \
  X(MAP, "map")                              \
  X(ROW, "row")                              \
  X(JSON, "json")

typedef enum sql_dkind {
#define SQL__DKIND_ENUM(name, text) SQL_DT_##name,
  SQL_DTYPE_MAP(SQL__DKIND_ENUM)
#undef SQL__DKIND_ENUM
      SQL_DT_COUNT
} sql_dkind_t;

struct sql_dfield;
typedef struct sql_dtype {
  sql_dkind_t kind;
  /* decimal: precision and scale; timestamp with time zone: precision is
   * the fractional digits shown (3 or 6; 0 means 6) */
  uint8_t precision, scale;
  const struct sql_dtype *elem;    /* array element; map value */
  const struct sql_dtype *key;     /* map key */
  const struct sql_dfield *fields; /* row fields */
  uint32_t nfields;
} sql_dtype_t;

/* A named field of a row type. */
typedef struct sql_dfield {
  const char *name;
  sql_dtype_t type;
} sql_dfield_t;

static inline sql_dtype_t sql_dtype(sql_dkind_t k) { return (sql_dtype_t){.kind = k}; }
bool sql_dtype_equal(const sql_dtype_t *a, const sql_dtype_t *b);
/* Trino's spelling: "decimal(10,2)", "array(varchar)", "map(integer, bigint)",
 * "row(a integer, b varchar)". */
void sql_dtype_format(const sql_dtype_t *t, fl_buf_t *out);
/* The same into a per-thread buffer, for messages (valid until the next call). */
const char *sql_dtype_str(const sql_dtype_t *t);

/* ---- bound expressions ---- */

typedef enum sql_bx_kind {
  SQL_BX_COL,      /* input column `col` */
  SQL_BX_CONST,    /* a literal */
  SQL_BX_CALL,     /* scalar function: fn, impl, args */
  SQL_BX_CAST,     /* args[0] to type; try_ for TRY_CAST */
  SQL_BX_AND,      /* args[0..n), lazily left to right */
  SQL_BX_OR,       /* args[0..n), lazily left to right */
  SQL_BX_CASE,     /* args: when0, then0, when1, then1, ..., else */
  SQL_BX_COALESCE, /* args[0..n), lazily */
  SQL_BX_SUBQUERY, /* an uncorrelated scalar subquery: plan (one column) */
  SQL_BX_IN_QUERY, /* args[0] IN (plan): an uncorrelated subquery of one column */
  SQL_BX_FIELD,    /* field `col` of the row args[0] */
  SQL_BX_OUTER,    /* column `col` of the query `level` subqueries out (a correlated reference) */
} sql_bx_kind_t;

/* A literal's value. Decimal, date and other literals are a VARCHAR
 * constant under a CAST, so only these kinds occur: unknown (NULL),
 * boolean, integer, bigint, double, varchar. */
typedef struct sql_const {
  bool null;
  bool b;
  int64_t i;
  double d;
  const char *s;
  size_t len;
} sql_const_t;

typedef struct sql_bexpr sql_bexpr_t;
struct sql_bexpr {
  sql_bx_kind_t kind;
  sql_dtype_t type;
  sql_pos_t pos;
  uint32_t col;          /* COL, OUTER; FIELD: the field's index */
  uint32_t level;        /* OUTER: 1 is the immediately enclosing query */
  sql_const_t c;         /* CONST */
  const char *fn;        /* CALL: the function's name */
  const void *impl;      /* CALL: the resolver's handle of the overload */
  bool try_;             /* CAST */
  struct sql_plan *plan; /* SUBQUERY, IN_QUERY */
  sql_bexpr_t **args;
  uint32_t nargs;
  /* CALL of a lambda function (transform, filter, any_match, all_match,
   * none_match; impl NULL): args[0] is the array, args[1..] the values
   * the lambda captures; body reads its parameter as column 0 and
   * capture k as column 1 + k. */
  sql_bexpr_t *body;
  /* reduce(a, s0, (s, x) -> body, s -> body2): args[1] is s0, args[2..]
   * the captures; both bodies read s as column 0, x as column 1 and
   * capture k as column 2 + k. */
  sql_bexpr_t *body2;
};

/* Structural equality (same columns, constants, calls). */
bool sql_bexpr_equal(const sql_bexpr_t *a, const sql_bexpr_t *b);
/* Whether e reads no input column. */
bool sql_bexpr_is_const(const sql_bexpr_t *e);
/* Appends a readable form: "($0 + 1)", "CAST($1 AS bigint)". */
void sql_bexpr_format(const sql_bexpr_t *e, fl_buf_t *out);

/* ---- the logical plan ---- */

#define SQL_PLAN_KINDS(X) \
  X(SCAN)                 \
  X(VALUES)               \
  X(FILTER)               \
  X(PROJECT)              \
  X(AGGREGATE)            \
  X(SORT)                 \
  X(LIMIT)                \
  X(UNION)                \
  X(JOIN)                 \
  X(WINDOW)               \
  X(APPLY)                \
  X(UNNEST)               \
  X(WINDOW_TVF)           \
  X(WINDOW_AGG)

typedef enum sql_plan_kind {
#define SQL__PLAN_ENUM(name) SQL_P_##name,
  SQL_PLAN_KINDS(SQL__PLAN_ENUM)
#undef SQL__PLAN_ENUM
      SQL_P_KIND_COUNT
} sql_plan_kind_t;

typedef struct sql_col {
  const char *name;
  sql_dtype_t type;
} sql_col_t;

typedef struct sql_agg_call {
  const char *name; /* lower case: "sum", "count" */
  bool distinct;
  int32_t arg_col;    /* input column; -1 for count(*) */
  int32_t filter_col; /* boolean input column of FILTER (WHERE); -1: none */
  sql_dtype_t type;   /* result */
  double param;       /* constant parameter (approx_percentile(x, 0.5)) */
  uint32_t nparams;   /* 0 or 1 */
} sql_agg_call_t;

/* Join types of SQL_P_JOIN, left input first (the order of exec's
 * ex_join_type_t). */
typedef enum sql_join_type {
  SQL_JT_INNER,
  SQL_JT_LEFT,
  SQL_JT_RIGHT,
  SQL_JT_FULL,
  SQL_JT_SEMI,
  SQL_JT_ANTI,
  SQL_JT_NULL_AWARE_ANTI,
} sql_join_type_t;
const char *sql_join_type_name(sql_join_type_t t);

/* What an APPLY node computes per row of its left input from its
 * correlated subquery (inputs[1]). */
typedef enum sql_apply_kind {
  SQL_AK_SCALAR, /* the one value (NULL for no row; more rows are an error) */
  SQL_AK_EXISTS, /* whether there is a row */
  SQL_AK_ANY,    /* arg cmp ANY (subquery); IN is = ANY */
  SQL_AK_ALL,    /* arg cmp ALL (subquery) */
  SQL_AK_LATERAL /* the rows themselves (an inner join with the left row) */
} sql_apply_kind_t;

typedef struct sql_sort_key {
  uint32_t col;
  bool desc;
  bool nulls_first;
} sql_sort_key_t;

/* A frame of a window specification. Offsets are constants: a row or
 * peer group count (ROWS, GROUPS) or, for RANGE, a distance in the ORDER
 * BY key's unit (`offset`, unscaled for decimals, days for dates) or
 * `offset_f` for real and double keys. */
typedef enum sql_win_unit { SQL_WU_ROWS, SQL_WU_RANGE, SQL_WU_GROUPS } sql_win_unit_t;
typedef struct sql_win_bound {
  sql_bound_kind_t kind; /* the syntax tree's kinds */
  int64_t offset;
  double offset_f;
} sql_win_bound_t;
typedef struct sql_win_frame {
  sql_win_unit_t unit;
  sql_win_bound_t start, end;
} sql_win_frame_t;

/* One window function of a WINDOW node; columns are the node's input. */
typedef struct sql_win_call {
  const char *name;    /* lower case: "rank", "lag", "sum" */
  bool is_agg;         /* an aggregate over the frame: agg says which */
  sql_agg_call_t agg;  /* is_agg: name, arg_col (-1 for count(*)), type */
  int32_t arg_col;     /* value functions; -1: none */
  int64_t param;       /* ntile buckets, lag/lead offset, nth_value n */
  int32_t default_col; /* lag/lead default; -1: NULL */
  bool ignore_nulls;
  sql_dtype_t type; /* result */
} sql_win_call_t;

/*
 * The files a table function reads (read_parquet, read_csv, read_json;
 * sql_bind_files.c): a SCAN with `files` set and no table. The schema is
 * the union of the files' columns (storage types, ids 1..n, names unique
 * ignoring case); the scan's `columns` name the ones read, and
 * SQL_FILES_FILENAME the extra column holding each row's file path.
 */
#define SQL_FILES_FILENAME "filename"
typedef struct sql_files {
  const char *func; /* "read_parquet": for messages and EXPLAIN */
  sql_pos_t pos;    /* of the call, for errors while reading */
  io_fs_t *fs;      /* where the files are */
  fmt_kind_t kind;  /* FMT_PARQUET, FMT_CSV, FMT_JSONL */
  const char **paths;
  uint64_t *sizes; /* bytes of each file */
  uint32_t npaths;
  const ty_schema_t *schema;
  bool union_by_name; /* files may lack columns (read as NULL) */
  bool filename;      /* the filename column exists */
  /* Hive partitioning: keys of `key=value` folders in every path, sorted
   * by name; their columns follow the files' own in the schema (a key the
   * files have as a column is not one). hive_values[i * nhive + k] is
   * file i's value of key k (URL-decoded; NULL for Hive's
   * __HIVE_DEFAULT_PARTITION__). */
  uint32_t nhive;
  const char **hive_keys;
  const char **hive_values;
  fmt_read_opts_t read; /* CSV and JSON: delimiter, header, layout, sample rows */
  int64_t est_rows;     /* Parquet: rows in the footers; -1: unknown */
} sql_files_t;

/* Flink's window table functions (the order of exec's ex_wkind_t). */
typedef enum sql_wtvf_kind { SQL_WT_TUMBLE, SQL_WT_HOP, SQL_WT_CUMULATE, SQL_WT_SESSION } sql_wtvf_kind_t;

typedef struct sql_plan sql_plan_t;
struct sql_plan {
  sql_plan_kind_t kind;
  sql_plan_t *in; /* the input (UNION: inputs) */
  sql_plan_t **inputs;
  uint32_t ninputs;
  sql_col_t *cols; /* output columns */
  uint32_t ncols;
  union {
    struct {
      ice_table_t *table;  /* owned by the statement's arena (cleanup) */
      const char *ident;   /* "ns.name" as resolved */
      int64_t snapshot_id; /* -1: see ref / as_of_ms / current */
      const char *ref;
      int64_t as_of_ms;
      const char **columns; /* table column names read, in output order */
      ice_expr_t *filter;   /* pushed-down filter for pruning; NULL: none */
      int64_t limit;        /* rows the scan may stop after; -1: none */
      /* sql_meta_kind_t (sql_meta.h): the metadata table "t$<kind>" of the
       * table (columns, snapshot as above; no filter, no limit); 0: none */
      int meta;
      const sql_files_t *files; /* a table function's files (table NULL); NULL: a table */
      /* A streaming job's connector table (sql_stream.h; table NULL): the
       * job runtime pushes its batches into the operators above. */
      const struct sql_stream_table *stream;
    } scan;
    struct {
      sql_bexpr_t **cells; /* nrows * ncols constant expressions */
      uint32_t nrows;
    } values;
    struct {
      sql_bexpr_t *pred;
    } filter;
    struct {
      sql_bexpr_t **exprs; /* ncols */
    } project;
    struct {
      uint32_t *keys; /* input columns grouped on (output first) */
      uint32_t nkeys;
      sql_agg_call_t *aggs; /* output after the keys (and $grouping_set) */
      uint32_t naggs;
      uint64_t *sets; /* grouping sets as masks over keys; NULL: plain GROUP BY */
      uint32_t nsets;
      bool streaming; /* the input arrives grouped on the keys (opt_stream_agg.c) */
    } agg;
    struct {
      sql_sort_key_t *keys;
      uint32_t nkeys;
    } sort;
    struct {
      /* JOIN: inputs[0] is the left input, inputs[1] the right. The
       * output is the first nleft columns of the left input, then (not
       * for SEMI and the ANTI types) the first nright of the right one;
       * the optimizer may append key columns to the inputs beyond those.
       * cond, as bound, reads left input columns then right input
       * columns (right column j is left->ncols + j); the optimizer
       * splits it into equi-keys lkeys[i] = rkeys[i] (input columns of
       * equal types) and the residual, which reads the inputs like cond.
       * NULL cond and no keys: a cross join. */
      sql_join_type_t type;
      sql_bexpr_t *cond;
      uint32_t *lkeys, *rkeys;
      uint32_t nkeys;
      sql_bexpr_t *residual;
      bool split;      /* cond has been split into keys and residual */
      bool build_left; /* the left input is the smaller one: build the hash table on it */
      uint32_t nleft, nright;
      int64_t est; /* estimated output rows (join ordering); 0: unknown */
    } join;
    struct {
      int64_t limit;  /* -1: none */
      int64_t offset; /* 0: none */
    } limit;
    struct {
      /* Output: the input columns, then one column per function. */
      uint32_t *partition; /* input columns */
      uint32_t npartition;
      sql_sort_key_t *order;
      uint32_t norder;
      sql_win_frame_t *frame; /* NULL: Trino's default frame */
      sql_win_call_t *fns;
      uint32_t nfns;
    } window;
    struct {
      /* UNNEST: per input row, one row per element of the arrays exprs
       * (over the input) side by side, shorter ones padded with NULL; an
       * array that is NULL or empty gives no elements. Output: the input
       * columns, one column per array, then the 1-based ordinality
       * (bigint) when asked for. */
      sql_bexpr_t **exprs;
      uint32_t nexprs;
      bool ordinality;
      bool outer; /* a row without elements still gives one, elements and
                     ordinality NULL (LEFT JOIN UNNEST ... ON TRUE) */
    } unnest;
    struct {
      /* APPLY: inputs[0] is the outer input, inputs[1] the subquery,
       * whose SQL_BX_OUTER references of level 1 name the outer input's
       * columns. Output: the outer columns, then one result column
       * (LATERAL: the subquery's columns). The binder makes these; the
       * decorrelation rule (opt_decorrelate.c) replaces every one by
       * joins and aggregations before the other rules run. */
      sql_apply_kind_t kind;
      sql_bexpr_t *arg; /* ANY, ALL: the left operand, over the outer input;
                           LATERAL with left: the ON condition, over the output */
      bool left;        /* LATERAL: LEFT JOIN LATERAL, unmatched rows NULL-extended */
      const char *cmp;  /* ANY, ALL: "=", "<", ... */
    } apply;
    struct {
      /* WINDOW_TVF (sql_bind_window_tvf.c): the input's columns, then
       * window_start, window_end, window_time (the time column's type).
       * WINDOW_AGG (opt_window_agg.c): a GROUP BY window_start,
       * window_end [, keys] over such a function, with the window
       * assigned by the aggregation itself from its input's time column:
       * output window_start, window_end, window_time, the keys,
       * "$grouping_set" when there are sets, the aggregates. */
      sql_wtvf_kind_t kind;
      int64_t size_us, slide_us, offset_us, gap_us; /* slide: HOP slide, CUMULATE step */
      uint32_t time_col;                            /* input column */
      uint32_t *partition;                          /* SESSION PARTITION BY: input columns */
      uint32_t npartition;
      sql_pos_t pos; /* of the call, for errors found later */
      uint32_t *keys; /* WINDOW_AGG: input columns grouped on besides the window */
      uint32_t nkeys;
      sql_agg_call_t *aggs;
      uint32_t naggs;
      uint64_t *sets; /* masks over keys; NULL: plain GROUP BY */
      uint32_t nsets;
    } wtvf;
  } u;
};

const char *sql_plan_kind_name(sql_plan_kind_t k);
sql_plan_t *sql_plan_new(fl_arena_t *a, sql_plan_kind_t kind, sql_plan_t *in);
/* A projection of in onto n named expressions (the arrays are copied). */
sql_plan_t *sql_plan_project(fl_arena_t *a, sql_plan_t *in, sql_bexpr_t *const *exprs,
                             const char *const *names, uint32_t n);
/* A growable list of named expressions: a projection being built. */
typedef struct sql_named_exprs {
  sql_bexpr_t **e;
  const char **names;
  uint32_t n, cap;
} sql_named_exprs_t;
void sql_named_exprs_add(fl_arena_t *a, sql_named_exprs_t *l, sql_bexpr_t *e, const char *name);
/* Appends an indented tree, one node a line (EXPLAIN). */
void sql_plan_format(const sql_plan_t *p, fl_buf_t *out);

/* Optimizer rules (one per opt_*.c file) and the driver that runs them in
 * order: constant folding (through the resolver's evaluator; skipped when
 * r is NULL), common conjuncts out of OR (also skipped without r), join planning (WHERE conjuncts
 * into joins and below them, equi-keys and residuals, build side by row counts), predicate pushdown
 * into the scan, projection pruning, limit pushdown. Each rule rewrites the plan in place and keeps
 * its meaning; folding may replace the root, so the driver returns it in *p. */
struct sql_resolver;
int sql_opt_decorrelate(fl_arena_t *a, const struct sql_resolver *r, sql_plan_t **p, fl_err_t *err);
int sql_opt_join(fl_arena_t *a, const struct sql_resolver *r, sql_plan_t **p, fl_err_t *err);
int sql_opt_fold(fl_arena_t *a, const struct sql_resolver *r, sql_plan_t **p, fl_err_t *err);
int sql_opt_or(fl_arena_t *a, const struct sql_resolver *r, sql_plan_t *p, fl_err_t *err);
int sql_opt_pushdown(fl_arena_t *a, sql_plan_t *p, fl_err_t *err);
int sql_opt_prune(fl_arena_t *a, sql_plan_t *p, fl_err_t *err);
int sql_opt_limit(fl_arena_t *a, sql_plan_t *p, fl_err_t *err);
int sql_opt_stream_agg(fl_arena_t *a, sql_plan_t *p, fl_err_t *err);
int sql_opt_distinct_agg(fl_arena_t *a, sql_plan_t *p, fl_err_t *err);
int sql_opt_window_agg(fl_arena_t *a, sql_plan_t **p, fl_err_t *err);
int sql_optimize(fl_arena_t *a, const struct sql_resolver *r, sql_plan_t **p, fl_err_t *err);

#endif
