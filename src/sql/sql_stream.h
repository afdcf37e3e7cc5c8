/*
 * sql_stream.h - the connector tables of a streaming job (layer 7, sql).
 *
 * A job's CREATE [TEMPORARY] TABLE ... WITH ('connector' = 'kafka' |
 * 'datagen', ...) names a stream, not a catalog table: it lives as long as
 * the job and is never written to the catalog. sql_bind_stream_table turns
 * the statement into this description: physical columns (read from the
 * message or generated), metadata columns (Flink's METADATA [FROM 'key']
 * [VIRTUAL]), computed columns (c AS expr, bound over the physical and
 * metadata columns), the WATERMARK FOR column AS expr (bound over all
 * columns) and the WITH options as text.
 *
 * Queries name such a table like any other; the binder makes a SCAN whose
 * `stream` points at it (sql_plan.h), with all its columns in declared
 * order. The job runtime (stream/) fills those scans: it decodes the base
 * columns, evaluates the computed ones and the watermark with the
 * executor, and pushes batches into the operators above the scan.
 */
#ifndef FL_SQL_SQL_STREAM_H
#define FL_SQL_SQL_STREAM_H

#include "sql/sql_ast.h"
#include "sql/sql_bind.h"
#include "sql/sql_plan.h"
#include "types/type.h"

typedef struct sql_stream_col {
  const char *name;
  sql_col_kind_t kind; /* physical, computed or metadata */
  sql_dtype_t type;
  const ty_type_t *storage; /* physical and metadata columns; NULL for computed */
  const char *metadata_key; /* METADATA: FROM 'key', or the column's name */
  bool is_virtual;
  /* Its type is one SQL cannot read yet (a map): decoded, but not visible
   * to queries, as such columns of catalog tables are not. */
  bool hidden;
  sql_bexpr_t *computed; /* COMPUTED: over the base columns (base_schema order) */
  sql_pos_t pos;
} sql_stream_col_t;

typedef struct sql_stream_table {
  const char *name;
  sql_pos_t pos;
  sql_stream_col_t *cols; /* declared order: the scan's columns */
  uint32_t ncols;
  /* The physical and metadata columns, in declared order: what a source
   * fills. base[i] is the column index of base column i. */
  uint32_t *base;
  uint32_t nbase;
  const ty_schema_t *base_schema; /* ids 1..nbase */
  int32_t rowtime_col;            /* WATERMARK FOR column; -1: none */
  sql_bexpr_t *watermark;         /* over all columns (declared order) */
  /* WITH ('key' = 'value', ...) in order, and where each was written. */
  const char **keys, **values;
  sql_pos_t *opt_pos;
  uint32_t nopts;
  const char **primary_key; /* PRIMARY KEY (..) NOT ENFORCED */
  uint32_t npk;
} sql_stream_table_t;

/* Whether a CREATE TABLE statement is a connector table ('connector' in
 * its WITH options). */
bool sql_is_stream_table(const sql_stmt_t *st);

/*
 * Binds a connector table's CREATE TABLE (columns, types, computed and
 * metadata columns, watermark, options) in arena a. Computed columns may
 * use the tables already in o->streams for nothing; they see only this
 * table's base columns. Errors carry "line L, column C: ".
 */
int sql_bind_stream_table(fl_arena_t *a, const sql_bind_opts_t *o, const sql_stmt_t *st,
                          sql_stream_table_t **out, fl_err_t *err);

/* The value of option key (the last given), or NULL. */
const char *sql_stream_option(const sql_stream_table_t *t, const char *key);

#endif
