/*
 * ice_expr.h - row filters over Iceberg tables (layer 5, iceberg).
 *
 * A small predicate language: comparisons (= != <> < <= > >=), IN and NOT
 * IN lists, IS [NOT] NULL, IS [NOT] NAN, STARTS WITH ('abc%' through
 * LIKE 'abc%'), AND, OR, NOT, parentheses, TRUE and FALSE, over column
 * names (dotted for nested struct fields, "double quoted" for odd names)
 * and literals (integers, decimals, floats, 'strings', TIMESTAMP '...',
 * DATE '...'). The SQL engine will produce the same bound trees.
 *
 * Expressions are parsed unbound (column names, literal text), then bound
 * to a schema: names resolve to field ids and literals convert to the
 * column's type (a string literal to a timestamp for a timestamp column,
 * an integer to a decimal for a decimal column), with an error naming the
 * column and the literal when they do not fit. A bound expression can
 * - filter the rows of a batch (SQL three-valued logic: unknown drops),
 * - decide from a data file's column metrics whether it might hold a
 *   matching row (inclusive) or whether all its rows match (strict),
 * - be projected through a partition spec onto partition values
 *   (inclusive and strict projections, per transform, as Iceberg's
 *   Projections do), and then be tested on a file's partition tuple or on
 *   a manifest's partition summaries,
 * - yield the AND-terms the Parquet reader uses for row-group and page
 *   pruning.
 */
#ifndef FL_ICEBERG_ICE_EXPR_H
#define FL_ICEBERG_ICE_EXPR_H

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "format/parquet/pq_reader.h"
#include "iceberg/ice_manifest.h"
#include "iceberg/ice_spec.h"
#include "types/type.h"
#include "types/value.h"
#include "types/vec.h"

typedef enum ice_expr_kind {
  ICE_E_TRUE,
  ICE_E_FALSE,
  ICE_E_AND,
  ICE_E_OR,
  ICE_E_NOT,
  ICE_E_PRED,
} ice_expr_kind_t;

typedef enum ice_op {
  ICE_OP_EQ,
  ICE_OP_NE,
  ICE_OP_LT,
  ICE_OP_LE,
  ICE_OP_GT,
  ICE_OP_GE,
  ICE_OP_IS_NULL,
  ICE_OP_NOT_NULL,
  ICE_OP_IS_NAN,
  ICE_OP_NOT_NAN,
  ICE_OP_IN,
  ICE_OP_NOT_IN,
  ICE_OP_STARTS_WITH,
  ICE_OP_NOT_STARTS_WITH,
} ice_op_t;

/* An unbound literal as written. */
typedef enum ice_lit_kind {
  ICE_LIT_INT,       /* digits, optional sign */
  ICE_LIT_NUMBER,    /* with '.' or exponent */
  ICE_LIT_STRING,    /* 'text' */
  ICE_LIT_BOOL,      /* true / false */
  ICE_LIT_TIMESTAMP, /* TIMESTAMP '...' */
  ICE_LIT_DATE,      /* DATE '...' */
} ice_lit_kind_t;

typedef struct ice_literal {
  ice_lit_kind_t kind;
  const char *text; /* as written, quotes removed */
} ice_literal_t;

typedef struct ice_expr ice_expr_t;
struct ice_expr {
  ice_expr_kind_t kind;
  ice_expr_t *left, *right; /* AND, OR: both; NOT: left */
  /* ICE_E_PRED: */
  ice_op_t op;
  const char *column; /* as written (unbound) */
  uint32_t nlits;
  ice_literal_t *lits; /* unbound literals */
  /* bound: */
  int32_t field_id;      /* 0 while unbound */
  const ty_type_t *type; /* the column's type */
  ty_value_t *values;    /* nlits values of the column's type (IN: sorted, deduplicated) */
};

/* Parses filter text; errors give the 1-based column of the bad token. */
int ice_expr_parse(fl_arena_t *a, const char *text, ice_expr_t **out, fl_err_t *err);

/* Binds to schema (a new tree in a). Unknown columns are FL_EINVALID
 * naming them; case_sensitive false matches names ignoring ASCII case. */
int ice_expr_bind(fl_arena_t *a, const ice_expr_t *e, const ty_schema_t *schema,
                  bool case_sensitive, ice_expr_t **out, fl_err_t *err);

/* Builders for bound trees (used by commits and the SQL engine). */
ice_expr_t *ice_expr_and(fl_arena_t *a, ice_expr_t *l, ice_expr_t *r);
ice_expr_t *ice_expr_or(fl_arena_t *a, ice_expr_t *l, ice_expr_t *r);
ice_expr_t *ice_expr_not(fl_arena_t *a, ice_expr_t *e);
ice_expr_t *ice_expr_const(fl_arena_t *a, bool value);
ice_expr_t *ice_expr_pred(fl_arena_t *a, ice_op_t op, int32_t field_id, const ty_type_t *type,
                          const ty_value_t *values, uint32_t nvalues);

/* Pushes NOT down to the predicates (NOT (a < 1) -> a >= 1, De Morgan). */
ice_expr_t *ice_expr_rewrite_not(fl_arena_t *a, const ice_expr_t *e);

/* Appends a readable form ("(id >= 10 AND ts < '2024-01-01T00:00:00')"). */
void ice_expr_format(const ice_expr_t *e, fl_buf_t *out);

/*
 * Evaluates a bound expression on the live rows of batch b, whose columns
 * are described by schema (fields found by id, nested through structs).
 * Writes the indices of matching rows (in order) to sel (capacity b->len)
 * and returns their count in *n. Respects an existing selection vector.
 */
int ice_expr_eval_batch(const ice_expr_t *e, const ty_schema_t *schema, const ty_batch_t *b,
                        uint32_t *sel, uint32_t *n, fl_err_t *err);

/*
 * Inclusive metrics evaluation: false only when the file's column metrics
 * (value/null/NaN counts, bounds) prove no row matches. schema gives the
 * column types for decoding bounds. "Matches" is ice_expr_eval_batch's
 * row semantics (a null never satisfies a comparison, not even !=; NaN
 * satisfies only != and NOT IN), so these answers can be sharper than
 * Java's where Java's row semantics differ; e is bound, NOT allowed.
 */
bool ice_metrics_might_match(const ice_expr_t *e, const ty_schema_t *schema,
                             const ice_data_file_t *f);
/* Strict metrics evaluation: true only when every row of the file matches. */
bool ice_metrics_must_match(const ice_expr_t *e, const ty_schema_t *schema,
                            const ice_data_file_t *f);

/*
 * Projects a bound row filter through a spec onto its partition fields:
 * the result is bound to partition field ids and types (partition_type =
 * ice_spec_partition_type). Inclusive: true for every partition that might
 * hold a matching row; strict: true only for partitions whose every row
 * matches. Temporal transforms get Java's adjustments around negative
 * values (for files written by Iceberg 0.10 and older).
 */
ice_expr_t *ice_expr_project_inclusive(fl_arena_t *a, const ice_expr_t *e, const ice_spec_t *spec,
                                       const ty_schema_t *schema, const ty_type_t *partition_type);
ice_expr_t *ice_expr_project_strict(fl_arena_t *a, const ice_expr_t *e, const ice_spec_t *spec,
                                    const ty_schema_t *schema, const ty_type_t *partition_type);

/* Evaluates a projected expression on a partition tuple (values in spec
 * field order, one per field of partition_type). Unknown counts as false:
 * a null partition value means every source value is null, which no
 * comparison matches. */
bool ice_partition_eval(const ice_expr_t *projected, const ty_type_t *partition_type,
                        const ty_value_t *values);

/* Whether a manifest's partition summaries allow a match of the projected
 * expression (false only when they prove none). */
bool ice_manifest_might_match(const ice_expr_t *projected, const ty_type_t *partition_type,
                              const ice_manifest_file_t *mf);

/*
 * The top-level AND-terms of e that the Parquet reader can prune with
 * (comparisons and null tests on primitive columns), in a.
 */
void ice_expr_pq_terms(fl_arena_t *a, const ice_expr_t *e, pq_pred_term_t **terms, uint32_t *n);

/* Field ids the expression references (deduplicated, in a). */
void ice_expr_field_ids(fl_arena_t *a, const ice_expr_t *e, int32_t **ids, uint32_t *n);

#endif
