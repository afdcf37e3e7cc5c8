/*
 * sql_ast.h - the SQL syntax tree (layer 7, sql).
 *
 * What the parser produces and the binder will consume: statements, queries,
 * relations, expressions and types, all allocated from one fl_arena_t whose
 * lifetime is the statement's. Every node carries a kind tag and the source
 * position of its first token, so later stages can point at the text. Lists
 * are arrays with counts. Names are kept as written: unquoted identifiers
 * folded to lower case (as Trino does), quoted ones exact with a flag.
 */
#ifndef FL_SQL_AST_H
#define FL_SQL_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sql/sql_lex.h"

typedef struct sql_expr sql_expr_t;
typedef struct sql_query sql_query_t;
typedef struct sql_qbody sql_qbody_t;
typedef struct sql_rel sql_rel_t;
typedef struct sql_type sql_type_t;
typedef struct sql_stmt sql_stmt_t;

typedef struct sql_ident {
  const char *name; /* NUL-terminated; unquoted names folded to lower case */
  bool quoted;      /* written "quoted" (or `quoted`): case kept */
  sql_pos_t pos;
} sql_ident_t;

/* A dotted name: catalog.schema.table, system.proc, a.b.c. */
typedef struct sql_qname {
  sql_ident_t *parts;
  size_t n;
} sql_qname_t;

typedef struct sql_ident_list {
  sql_ident_t *items;
  size_t n;
} sql_ident_list_t;

typedef struct sql_expr_list {
  sql_expr_t **items;
  size_t n;
} sql_expr_list_t;

/* ---- types ---- */

#define SQL_TYPE_KINDS(X)   \
  X(BOOLEAN, "boolean")     \
  X(TINYINT, "tinyint")     \
  X(SMALLINT, "smallint")   \
  X(INTEGER, "integer")     \
  X(BIGINT, "bigint")       \
  X(REAL, "real")           \
  X(DOUBLE, "double")       \
  X(DECIMAL, "decimal")     \
  X(VARCHAR, "varchar")     \
  X(CHAR, "char")           \
  X(VARBINARY, "varbinary") \
  X(FIXED, "fixed")         \
  X(DATE, "date")           \
  X(TIME, "time")           \
  X(TIMESTAMP, "timestamp") \
  X(UUID, "uuid")           \
  X(JSON, "json")           \
  X(ARRAY, "array")         \
  X(MAP, "map")             \
  X(ROW, "row")

typedef enum sql_type_kind {
#define SQL__TYPE_ENUM(name, text) SQL_TY_##name,
  SQL_TYPE_KINDS(SQL__TYPE_ENUM)
#undef SQL__TYPE_ENUM
      SQL_TY_KIND_COUNT
} sql_type_kind_t;

typedef struct sql_row_field {
  sql_ident_t name; /* name.name is NULL for an anonymous field: row(integer) */
  sql_type_t *type;
} sql_row_field_t;

/*
 * A type as written, with spellings normalized: int -> integer, string ->
 * varchar, long -> bigint, binary/bytes -> varbinary, numeric -> decimal,
 * double precision -> double, float -> real, timestamptz and timestamp_ltz ->
 * timestamp with time zone.
 */
struct sql_type {
  sql_type_kind_t kind;
  sql_pos_t pos;
  int nparams;             /* numbers given in parentheses: 0, 1 or 2 */
  int64_t params[2];       /* decimal(p,s), varchar(n), char(n), fixed(L), time(p), timestamp(p) */
  bool with_tz;            /* time/timestamp ... with time zone */
  bool not_null;           /* Flink's INT NOT NULL inside ROW<...>; columns keep their own flag */
  sql_type_t *elem;        /* array element, map key */
  sql_type_t *value;       /* map value */
  sql_row_field_t *fields; /* row */
  size_t nfields;
};

/* ---- expressions ---- */

#define SQL_EXPR_KINDS(X)                                                 \
  X(INT)     /* integer literal that fits int64 */                        \
  X(DECIMAL) /* exact numeric literal: 1.5, or an integer beyond int64 */ \
  X(DOUBLE)  /* 1e3 */                                                    \
  X(STRING)                                                               \
  X(BINARY) /* X'..' */                                                   \
  X(BOOL)                                                                 \
  X(NULL)                                                                 \
  X(TYPED) /* DATE '...', TIMESTAMP '...', DECIMAL '...' */               \
  X(INTERVAL)                                                             \
  X(PARAM)     /* ? */                                                    \
  X(COLUMN)    /* a, t.a, cat.ns.t.a: resolved by the binder */           \
  X(DEREF)     /* (expr).field */                                         \
  X(SUBSCRIPT) /* a[i], m['k'] */                                         \
  X(UNARY)                                                                \
  X(BINARY_OP)                                                            \
  X(IS_NULL)                                                              \
  X(IS_DISTINCT)                                                          \
  X(BETWEEN)                                                              \
  X(IN_LIST)                                                              \
  X(IN_QUERY)                                                             \
  X(LIKE)                                                                 \
  X(EXISTS)                                                               \
  X(SUBQUERY)   /* scalar subquery */                                     \
  X(QUANTIFIED) /* x = ANY (query) */                                     \
  X(CASE)                                                                 \
  X(CAST)                                                                 \
  X(CALL)                                                                 \
  X(EXTRACT)                                                              \
  X(AT_TIME_ZONE)                                                         \
  X(ARRAY)   /* ARRAY[...] */                                             \
  X(ROW)     /* ROW(...) or (a, b) */                                     \
  X(LAMBDA)  /* (x, y) -> body, as a call argument */                     \
  X(CURRENT) /* CURRENT_DATE, CURRENT_TIMESTAMP(3), LOCALTIME ... */

typedef enum sql_expr_kind {
#define SQL__EXPR_ENUM(name) SQL_E_##name,
  SQL_EXPR_KINDS(SQL__EXPR_ENUM)
#undef SQL__EXPR_ENUM
      SQL_E_KIND_COUNT
} sql_expr_kind_t;

#define SQL_BINOPS(X) \
  X(OR, "OR")         \
  X(AND, "AND")       \
  X(EQ, "=")          \
  X(NE, "<>")         \
  X(LT, "<")          \
  X(LE, "<=")         \
  X(GT, ">")          \
  X(GE, ">=")         \
  X(CONCAT, "||")     \
  X(ADD, "+")         \
  X(SUB, "-")         \
  X(MUL, "*")         \
  X(DIV, "/")         \
  X(MOD, "%")

typedef enum sql_binop {
#define SQL__BINOP_ENUM(name, text) SQL_OP_##name,
  SQL_BINOPS(SQL__BINOP_ENUM)
#undef SQL__BINOP_ENUM
      SQL_OP_COUNT
} sql_binop_t;

typedef enum sql_unop { SQL_UN_NEG, SQL_UN_PLUS, SQL_UN_NOT } sql_unop_t;

typedef enum sql_quantifier { SQL_Q_ANY, SQL_Q_SOME, SQL_Q_ALL } sql_quantifier_t;

/* Interval and EXTRACT fields. */
#define SQL_FIELDS(X)                                                                       \
  X(YEAR)                                                                                   \
  X(QUARTER)                                                                                \
  X(MONTH)                                                                                  \
  X(WEEK) X(DAY) X(DAY_OF_WEEK) X(DOW) X(DAY_OF_YEAR) X(DOY) X(YEAR_OF_WEEK) X(YOW) X(HOUR) \
      X(MINUTE) X(SECOND) X(MILLISECOND) X(MICROSECOND) X(TIMEZONE_HOUR) X(TIMEZONE_MINUTE) \
          X(EPOCH)

typedef enum sql_field {
  SQL_F_NONE = 0,
#define SQL__FIELD_ENUM(name) SQL_F_##name,
  SQL_FIELDS(SQL__FIELD_ENUM)
#undef SQL__FIELD_ENUM
      SQL_F_COUNT
} sql_field_t;

typedef enum sql_sort_dir { SQL_SORT_DEFAULT, SQL_SORT_ASC, SQL_SORT_DESC } sql_sort_dir_t;
typedef enum sql_nulls { SQL_NULLS_DEFAULT, SQL_NULLS_FIRST, SQL_NULLS_LAST } sql_nulls_t;

typedef struct sql_sort_item {
  sql_expr_t *expr;
  sql_sort_dir_t dir;
  sql_nulls_t nulls;
} sql_sort_item_t;

typedef struct sql_sort_list {
  sql_sort_item_t *items;
  size_t n;
} sql_sort_list_t;

typedef enum sql_frame_unit {
  SQL_FRAME_NONE,
  SQL_FRAME_ROWS,
  SQL_FRAME_RANGE,
  SQL_FRAME_GROUPS
} sql_frame_unit_t;

typedef enum sql_bound_kind {
  SQL_BOUND_UNBOUNDED_PRECEDING,
  SQL_BOUND_PRECEDING,
  SQL_BOUND_CURRENT_ROW,
  SQL_BOUND_FOLLOWING,
  SQL_BOUND_UNBOUNDED_FOLLOWING,
} sql_bound_kind_t;

typedef struct sql_frame_bound {
  sql_bound_kind_t kind;
  sql_expr_t *offset; /* n PRECEDING / n FOLLOWING */
} sql_frame_bound_t;

/* OVER (...) or a WINDOW clause entry. */
typedef struct sql_window_spec {
  sql_ident_t base; /* an existing window name, name NULL if none */
  sql_expr_list_t partition_by;
  sql_sort_list_t order_by;
  sql_frame_unit_t frame;
  sql_frame_bound_t start;
  sql_frame_bound_t end;
  bool has_end; /* BETWEEN start AND end */
} sql_window_spec_t;

typedef struct sql_case_when {
  sql_expr_t *when;
  sql_expr_t *then;
} sql_case_when_t;

typedef struct sql_call {
  sql_qname_t name;
  sql_expr_list_t args;
  sql_ident_t *arg_names;   /* per argument, name NULL if positional; NULL if none named */
  bool distinct;            /* f(DISTINCT x) */
  bool star;                /* count(*) */
  sql_sort_list_t order_by; /* array_agg(x ORDER BY y) */
  sql_expr_t *filter;       /* FILTER (WHERE ...) */
  int nulls_treatment;      /* lag(x) IGNORE NULLS: -1; RESPECT NULLS: 1; not given: 0 */
  sql_window_spec_t *over;  /* OVER (...) */
  sql_ident_t over_name;    /* OVER w; name NULL if none */
} sql_call_t;

struct sql_expr {
  sql_expr_kind_t kind;
  sql_pos_t pos;
  union {
    struct {
      int64_t value;
      const char *text;
    } i; /* INT */
    struct {
      const char *text;
    } num; /* DECIMAL, DOUBLE */
    struct {
      const char *data;
      size_t len;
    } str;  /* STRING, BINARY (raw bytes) */
    bool b; /* BOOL */
    struct {
      sql_type_t *type;
      const char *data;
      size_t len;
    } typed; /* TYPED */
    struct {
      bool negative;
      const char *data;
      size_t len;
      sql_field_t from, to; /* to is SQL_F_NONE unless YEAR TO MONTH etc. */
    } interval;
    int param; /* PARAM: 0-based index in statement order */
    sql_qname_t column;
    struct {
      sql_expr_t *base;
      sql_ident_t field;
    } deref;
    struct {
      sql_expr_t *base, *index;
    } subscript;
    struct {
      sql_unop_t op;
      sql_expr_t *arg;
    } unary;
    struct {
      sql_binop_t op;
      sql_expr_t *l, *r;
    } bin;
    struct {
      sql_expr_t *arg;
      bool negated;
    } is_null;
    struct {
      sql_expr_t *l, *r;
      bool negated;
    } is_distinct;
    struct {
      sql_expr_t *arg, *lo, *hi;
      bool negated;
    } between;
    struct {
      sql_expr_t *arg;
      sql_expr_list_t list;
      bool negated;
    } in_list;
    struct {
      sql_expr_t *arg;
      sql_query_t *query;
      bool negated;
    } in_query;
    struct {
      sql_expr_t *arg, *pattern, *escape;
      bool negated;
    } like;
    sql_query_t *query; /* EXISTS, SUBQUERY */
    struct {
      sql_binop_t op;
      sql_quantifier_t q;
      sql_expr_t *arg;
      sql_query_t *query;
    } quant;
    struct {
      sql_expr_t *operand; /* simple CASE; NULL for searched */
      sql_case_when_t *whens;
      size_t nwhens;
      sql_expr_t *else_;
    } case_;
    struct {
      sql_expr_t *arg;
      sql_type_t *type;
      bool try_;
    } cast;
    sql_call_t call;
    struct {
      sql_field_t field;
      sql_expr_t *arg;
    } extract;
    struct {
      sql_expr_t *arg, *zone;
    } at_tz; /* zone NULL: AT LOCAL */
    struct {
      sql_expr_list_t items;
      bool implicit;
    } row; /* ARRAY, ROW; implicit: (a, b) */
    struct {
      sql_ident_list_t params;
      sql_expr_t *body;
    } lambda;
    struct {
      sql_kw_t which;
      int precision;
    } current; /* precision -1 if not given */
  } u;
};

/* ---- queries ---- */

typedef enum sql_join_kind {
  SQL_JOIN_INNER,
  SQL_JOIN_LEFT,
  SQL_JOIN_RIGHT,
  SQL_JOIN_FULL,
  SQL_JOIN_CROSS,
} sql_join_kind_t;

typedef enum sql_rel_kind {
  SQL_REL_TABLE,
  SQL_REL_SUBQUERY,
  SQL_REL_FUNCTION, /* table function: read_parquet(...), TABLE(TUMBLE(...)) */
  SQL_REL_UNNEST,
  SQL_REL_JOIN,
  SQL_REL_KIND_COUNT
} sql_rel_kind_t;

typedef enum sql_time_travel {
  SQL_TT_NONE,
  SQL_TT_VERSION,     /* FOR VERSION AS OF 123 | 'branch' */
  SQL_TT_TIMESTAMP,   /* FOR TIMESTAMP AS OF ... */
  SQL_TT_SYSTEM_TIME, /* Flink: FOR SYSTEM_TIME AS OF expr */
} sql_time_travel_t;

typedef enum sql_targ_kind { SQL_TARG_EXPR, SQL_TARG_TABLE, SQL_TARG_DESCRIPTOR } sql_targ_kind_t;

/* One argument of a table function. */
typedef struct sql_table_arg {
  sql_targ_kind_t kind;
  sql_ident_t name;             /* name => ...; name NULL if positional */
  sql_expr_t *expr;             /* SQL_TARG_EXPR */
  sql_rel_t *table;             /* SQL_TARG_TABLE: TABLE src, TABLE(src), TABLE(query) */
  sql_expr_list_t partition_by; /* TABLE src PARTITION BY k (Flink SESSION windows) */
  sql_ident_list_t columns;     /* SQL_TARG_DESCRIPTOR */
  sql_pos_t pos;
} sql_table_arg_t;

struct sql_rel {
  sql_rel_kind_t kind;
  sql_pos_t pos;
  sql_ident_t alias;           /* name NULL if none */
  sql_ident_list_t alias_cols; /* AS t (a, b) */
  union {
    struct {
      sql_qname_t name;
      sql_time_travel_t travel;
      sql_expr_t *as_of;
    } table;
    struct {
      sql_query_t *query;
      bool lateral;
    } subquery;
    struct {
      sql_qname_t name;
      sql_table_arg_t *args;
      size_t nargs;
    } func;
    struct {
      sql_expr_list_t args;
      bool with_ordinality;
    } unnest;
    struct {
      sql_join_kind_t kind;
      bool natural;
      sql_rel_t *left, *right;
      sql_expr_t *on;          /* NULL if USING, NATURAL or CROSS */
      sql_ident_list_t using_; /* USING (a, b) */
    } join;
  } u;
};

typedef enum sql_item_kind { SQL_ITEM_EXPR, SQL_ITEM_STAR } sql_item_kind_t;

typedef struct sql_select_item {
  sql_item_kind_t kind;
  sql_expr_t *expr;      /* SQL_ITEM_EXPR */
  sql_ident_t alias;     /* name NULL if none */
  sql_qname_t qualifier; /* SQL_ITEM_STAR: t.* (n = 0 for a bare *) */
  sql_pos_t pos;
} sql_select_item_t;

typedef enum sql_group_kind {
  SQL_GROUP_EXPR,
  SQL_GROUP_ROLLUP,
  SQL_GROUP_CUBE,
  SQL_GROUP_SETS,
  SQL_GROUP_EMPTY, /* () */
} sql_group_kind_t;

typedef struct sql_group_elem {
  sql_group_kind_t kind;
  sql_expr_t *expr;      /* SQL_GROUP_EXPR */
  sql_expr_list_t list;  /* ROLLUP, CUBE */
  sql_expr_list_t *sets; /* GROUPING SETS: each set a list (n = 0 for ()) */
  size_t nsets;
  sql_pos_t pos;
} sql_group_elem_t;

typedef struct sql_named_window {
  sql_ident_t name;
  sql_window_spec_t spec;
} sql_named_window_t;

typedef struct sql_select {
  bool distinct;
  sql_select_item_t *items;
  size_t nitems;
  sql_rel_t **from; /* comma-separated relations */
  size_t nfrom;
  sql_expr_t *where;
  bool group_distinct; /* GROUP BY DISTINCT ... */
  sql_group_elem_t *group_by;
  size_t ngroup;
  sql_expr_t *having;
  sql_named_window_t *windows;
  size_t nwindows;
} sql_select_t;

typedef enum sql_qbody_kind {
  SQL_QB_SELECT,
  SQL_QB_SETOP,
  SQL_QB_VALUES,
  SQL_QB_TABLE, /* TABLE t */
  SQL_QB_PAREN, /* ( query ) that has its own WITH, ORDER BY or LIMIT */
  SQL_QB_KIND_COUNT
} sql_qbody_kind_t;

typedef enum sql_setop { SQL_SET_UNION, SQL_SET_INTERSECT, SQL_SET_EXCEPT } sql_setop_t;

struct sql_qbody {
  sql_qbody_kind_t kind;
  sql_pos_t pos;
  union {
    sql_select_t select;
    struct {
      sql_setop_t op;
      bool all;      /* UNION ALL */
      bool distinct; /* UNION DISTINCT written out */
      sql_qbody_t *l, *r;
    } setop;
    sql_expr_list_t values; /* each row an expression, (a, b) an implicit ROW */
    sql_qname_t table;
    sql_query_t *paren;
  } u;
};

typedef struct sql_cte {
  sql_ident_t name;
  sql_ident_list_t columns;
  sql_query_t *query;
} sql_cte_t;

typedef enum sql_limit_kind {
  SQL_LIMIT_NONE,
  SQL_LIMIT_COUNT,      /* LIMIT n */
  SQL_LIMIT_ALL,        /* LIMIT ALL */
  SQL_LIMIT_FETCH,      /* FETCH FIRST n ROWS ONLY */
  SQL_LIMIT_FETCH_TIES, /* FETCH FIRST n ROWS WITH TIES */
} sql_limit_kind_t;

struct sql_query {
  sql_pos_t pos;
  bool recursive;
  sql_cte_t *ctes;
  size_t nctes;
  sql_qbody_t *body;
  sql_sort_list_t order_by;
  sql_expr_t *offset;
  sql_limit_kind_t limit_kind;
  sql_expr_t *limit; /* NULL for LIMIT ALL and FETCH FIRST ROW ONLY */
};

/* ---- statements ---- */

/* key = value in WITH (...), SET PROPERTIES, and Flink's WITH ('k' = 'v'). */
typedef struct sql_property {
  sql_ident_t key;
  bool key_is_string; /* 'connector' = 'kafka' */
  sql_expr_t *value;  /* NULL: = DEFAULT */
} sql_property_t;

typedef struct sql_prop_list {
  sql_property_t *items;
  size_t n;
} sql_prop_list_t;

typedef enum sql_col_kind {
  SQL_COL_PHYSICAL,
  SQL_COL_COMPUTED, /* c AS expr */
  SQL_COL_METADATA, /* c type METADATA [FROM 'key'] [VIRTUAL] */
} sql_col_kind_t;

typedef struct sql_column_def {
  sql_col_kind_t kind;
  sql_ident_t name;
  sql_type_t *type; /* NULL for computed columns */
  bool not_null;
  const char *comment; /* NULL if none */
  size_t comment_len;
  sql_expr_t *computed;     /* SQL_COL_COMPUTED */
  const char *metadata_key; /* METADATA FROM 'key'; NULL if none */
  size_t metadata_key_len;
  bool is_virtual;
  sql_prop_list_t props; /* Trino column WITH (...) */
  sql_pos_t pos;
} sql_column_def_t;

typedef struct sql_watermark {
  sql_ident_t column;
  sql_expr_t *expr;
  sql_pos_t pos;
} sql_watermark_t;

typedef enum sql_ref_kind { SQL_REF_BRANCH, SQL_REF_TAG } sql_ref_kind_t;

typedef enum sql_retain_unit {
  SQL_RETAIN_DAYS,
  SQL_RETAIN_HOURS,
  SQL_RETAIN_MINUTES
} sql_retain_unit_t;

typedef enum sql_alter_kind {
  SQL_ALTER_ADD_COLUMN,
  SQL_ALTER_DROP_COLUMN,
  SQL_ALTER_RENAME_COLUMN,
  SQL_ALTER_SET_TYPE,
  SQL_ALTER_DROP_NOT_NULL,
  SQL_ALTER_RENAME_TO,
  SQL_ALTER_SET_PROPERTIES, /* SET PROPERTIES, and SET PARTITIONING ARRAY[...] */
  SQL_ALTER_EXECUTE,
  SQL_ALTER_CREATE_REF,
  SQL_ALTER_DROP_REF,
  /* Spark's Iceberg extensions */
  SQL_ALTER_SET_IDENTIFIER,      /* SET | DROP IDENTIFIER FIELDS a, b */
  SQL_ALTER_ADD_PARTITION_FIELD, /* ADD PARTITION FIELD term [AS name] */
  SQL_ALTER_DROP_PARTITION_FIELD,
  SQL_ALTER_REPLACE_PARTITION_FIELD, /* REPLACE PARTITION FIELD old WITH term [AS name] */
  SQL_ALTER_MOVE_COLUMN,             /* ALTER COLUMN c FIRST | AFTER x | BEFORE x */
  SQL_ALTER_COLUMN_COMMENT,          /* ALTER COLUMN c COMMENT '...' */
  SQL_ALTER_KIND_COUNT
} sql_alter_kind_t;

typedef struct sql_alter {
  sql_alter_kind_t kind;
  sql_pos_t pos;           /* the action's first token */
  bool if_exists;          /* DROP COLUMN / RENAME COLUMN / DROP BRANCH IF EXISTS */
  bool if_not_exists;      /* ADD COLUMN / CREATE BRANCH IF NOT EXISTS */
  sql_column_def_t column; /* ADD COLUMN (column.name: the last part of target) */
  sql_qname_t target;      /* the column acted on (ADD COLUMN s.f: s.f); RENAME TO's new name */
  sql_ident_t new_name;    /* RENAME COLUMN a TO b */
  sql_type_t *type;        /* SET DATA TYPE */
  sql_prop_list_t props;   /* SET PROPERTIES */
  sql_call_t *procedure;   /* EXECUTE optimize(...): name and (named) arguments */
  sql_expr_t *where;       /* EXECUTE ... WHERE */
  sql_ref_kind_t ref;      /* CREATE/DROP BRANCH|TAG */
  sql_ident_t ref_name;
  bool or_replace;
  bool replace_only;         /* REPLACE BRANCH|TAG (Spark): the ref must exist */
  sql_expr_t *as_of_version; /* AS OF VERSION n */
  bool has_retain;
  int64_t retain;
  sql_retain_unit_t retain_unit;
  /* WITH SNAPSHOT RETENTION [n SNAPSHOTS] [n DAYS|HOURS|MINUTES] (branches) */
  bool has_min_snapshots, has_snapshot_age;
  int64_t min_snapshots;
  int64_t snapshot_age;
  sql_retain_unit_t snapshot_age_unit;
  sql_ident_list_t idents; /* IDENTIFIER FIELDS */
  bool drop_identifier;    /* DROP IDENTIFIER FIELDS */
  /* Partition fields as transform terms, "bucket(16, id)", "days(ts)", "id";
   * part_old may also be a partition field's name. */
  const char *part_term, *part_old;
  sql_pos_t part_pos, part_old_pos;
  sql_ident_t part_name; /* AS name; name NULL if none */
  /* ALTER COLUMN c FIRST | AFTER x | BEFORE x; ADD COLUMN ... FIRST | LAST | AFTER x
   * (has_move; LAST is the default place). */
  enum { SQL_MOVE_FIRST, SQL_MOVE_AFTER, SQL_MOVE_BEFORE, SQL_MOVE_LAST } move;
  bool has_move;
  sql_qname_t move_ref; /* AFTER x / BEFORE x */
} sql_alter_t;

typedef struct sql_assignment {
  sql_qname_t column;
  sql_expr_t *value;
} sql_assignment_t;

typedef enum sql_merge_action {
  SQL_MERGE_UPDATE,
  SQL_MERGE_DELETE,
  SQL_MERGE_INSERT
} sql_merge_action_t;

typedef struct sql_merge_clause {
  bool matched;
  sql_expr_t *cond; /* AND cond; NULL if none */
  sql_merge_action_t action;
  sql_assignment_t *sets; /* UPDATE SET */
  size_t nsets;
  sql_ident_list_t columns; /* INSERT (cols) */
  sql_expr_list_t values;   /* INSERT VALUES (...) */
  sql_pos_t pos;
} sql_merge_clause_t;

typedef enum sql_show_kind {
  SQL_SHOW_SCHEMAS,
  SQL_SHOW_TABLES,
  SQL_SHOW_COLUMNS,
  SQL_SHOW_CREATE_TABLE,
  SQL_SHOW_CREATE_VIEW,
  SQL_SHOW_CATALOGS,
  SQL_SHOW_FUNCTIONS,
} sql_show_kind_t;

#define SQL_STMT_KINDS(X) \
  X(QUERY)                \
  X(CREATE_SCHEMA)        \
  X(DROP_SCHEMA)          \
  X(CREATE_TABLE)         \
  X(DROP_TABLE)           \
  X(ALTER_TABLE)          \
  X(CREATE_VIEW)          \
  X(DROP_VIEW)            \
  X(CALL)                 \
  X(INSERT)               \
  X(DELETE)               \
  X(UPDATE)               \
  X(MERGE)                \
  X(TRUNCATE)             \
  X(EXPLAIN)              \
  X(SHOW)                 \
  X(DESCRIBE)             \
  X(USE)                  \
  X(SET)                  \
  X(RESET)                \
  X(STATEMENT_SET)        \
  X(COMMENT)

typedef enum sql_stmt_kind {
#define SQL__STMT_ENUM(name) SQL_S_##name,
  SQL_STMT_KINDS(SQL__STMT_ENUM)
#undef SQL__STMT_ENUM
      SQL_S_KIND_COUNT
} sql_stmt_kind_t;

struct sql_stmt {
  sql_stmt_kind_t kind;
  sql_pos_t pos; /* first token */
  uint32_t end;  /* byte offset just past the last token */
  int nparams;   /* number of ? parameters */
  union {
    sql_query_t *query; /* QUERY */
    struct {
      sql_qname_t name;
      bool if_not_exists;
      sql_prop_list_t props;
    } create_schema;
    struct {
      sql_qname_t name;
      bool if_exists;
      bool cascade, restrict_;
    } drop; /* DROP_SCHEMA, DROP_TABLE, DROP_VIEW, TRUNCATE, DESCRIBE, USE */
    struct {
      sql_qname_t name;
      bool if_not_exists, or_replace, temporary;
      sql_column_def_t *columns;
      size_t ncolumns;
      sql_watermark_t *watermark; /* NULL if none */
      sql_ident_list_t primary_key;
      bool pk_not_enforced;
      sql_ident_list_t partitioned_by; /* Flink PARTITIONED BY (a, b) */
      const char *comment;
      size_t comment_len;
      sql_prop_list_t props;
      sql_query_t *as_query;       /* CREATE TABLE ... AS query */
      sql_ident_list_t as_columns; /* CREATE TABLE t (a, b) AS ... */
      bool with_no_data;
      bool with_data_given; /* WITH [NO] DATA written out */
    } create_table;
    struct {
      sql_qname_t name;
      bool if_exists;
      sql_alter_t alter;
    } alter_table;
    struct {
      sql_qname_t name;
      bool or_replace, temporary;
      const char *comment;
      size_t comment_len;
      sql_ident_list_t columns;
      sql_query_t *query;
    } create_view;
    sql_call_t *call;
    struct {
      sql_qname_t table;
      sql_ident_list_t columns;
      sql_query_t *query;
      bool overwrite; /* Flink INSERT OVERWRITE */
    } insert;
    struct {
      sql_qname_t table;
      sql_ident_t alias;
      sql_expr_t *where;
    } delete_;
    struct {
      sql_qname_t table;
      sql_assignment_t *sets;
      size_t nsets;
      sql_expr_t *where;
    } update;
    struct {
      sql_qname_t target;
      sql_ident_t alias;
      sql_rel_t *source;
      sql_expr_t *on;
      sql_merge_clause_t *clauses;
      size_t nclauses;
    } merge;
    struct {
      bool analyze;
      bool verbose;
      sql_stmt_t *stmt;
    } explain;
    struct {
      sql_show_kind_t kind;
      sql_qname_t from; /* FROM x / the table of COLUMNS and CREATE TABLE; n = 0 if none */
      const char *like; /* LIKE 'pattern'; NULL if none */
      size_t like_len;
    } show;
    struct {
      bool session;           /* SET SESSION k = v */
      sql_qname_t key;        /* unquoted key (n = 0 if quoted or none) */
      const char *key_string; /* SET 'key' = ...; NULL if unquoted or none */
      size_t key_len;
      sql_expr_t *value; /* NULL for a bare SET (list all) */
    } set;               /* SET; RESET uses key / key_string */
    struct {
      sql_stmt_t **stmts;
      size_t n;
      bool begin_form; /* BEGIN STATEMENT SET; ... END vs EXECUTE STATEMENT SET BEGIN ... END */
    } statement_set;
    struct {
      bool column;      /* COMMENT ON COLUMN t.c (else TABLE t) */
      sql_qname_t name; /* the table, or the table's name and the column last */
      const char *text; /* IS '...'; NULL for IS NULL */
      size_t len;
    } comment;
  } u;
};

/* Names of the kinds, for messages and the printer. */
const char *sql_stmt_kind_name(sql_stmt_kind_t kind);
const char *sql_expr_kind_name(sql_expr_kind_t kind);
const char *sql_type_kind_name(sql_type_kind_t kind);
const char *sql_binop_text(sql_binop_t op);
const char *sql_field_name(sql_field_t f);
/* The field named by a word (any case), or SQL_F_NONE. */
sql_field_t sql_field_lookup(const char *s, size_t n);

#endif
