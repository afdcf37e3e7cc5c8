/*
 * cat_sql_int.h - the small SQL driver interface under the catalog
 * (layer 6, private).
 *
 * cat_sql.c writes every catalog statement once, with '?' placeholders
 * bound in order; a driver (cat_sqlite.c, cat_postgres.c) runs them. The
 * PostgreSQL driver renumbers the placeholders to $1, $2, ... and sends
 * the values as parameters, never inside the SQL text.
 *
 * Driver errors use these codes: FL_EEXISTS for a primary key violation,
 * FL_EIO with retriable set for a busy/locked database or a serialization
 * failure (which also sets c->tx_retry), FL_EIO otherwise.
 *
 * Multi-statement changes run in begin_sql transactions that the database
 * serializes: SQLite's BEGIN IMMEDIATE takes the write lock up front;
 * PostgreSQL's SERIALIZABLE level aborts one of two transactions that
 * would otherwise both pass their checks (two creators of one namespace,
 * a table registered into a namespace being dropped), and cat_sql.c runs
 * the aborted one again.
 */
#ifndef FL_CATALOG_CAT_SQL_INT_H
#define FL_CATALOG_CAT_SQL_INT_H

#include <stdbool.h>

#include "catalog/catalog.h"

typedef struct cat_stmt cat_stmt_t;

typedef struct cat_drv {
  const char *name; /* "sqlite" or "postgresql", for messages */
  const char *begin_sql; /* "BEGIN IMMEDIATE" or "BEGIN" */
  int (*prepare)(cat_catalog_t *c, const char *sql, cat_stmt_t **out, fl_err_t *err);
  /* Binds parameter idx (1-based) to text (NULL: SQL NULL); copies it. */
  int (*bind_text)(cat_stmt_t *s, int idx, const char *v, fl_err_t *err);
  /* Runs the statement on the first call; *row tells whether a row is
   * available for column_text, false at the end. */
  int (*step)(cat_stmt_t *s, bool *row, fl_err_t *err);
  /* Column col (0-based) of the current row; NULL for SQL NULL. Valid
   * until the next step or finalize. */
  const char *(*column_text)(cat_stmt_t *s, int col);
  /* Rows changed by the (finished) INSERT/UPDATE/DELETE. */
  long (*changes)(cat_stmt_t *s);
  void (*finalize)(cat_stmt_t *s);
  /* Runs parameterless SQL (schema, transaction control). */
  int (*exec)(cat_catalog_t *c, const char *sql, fl_err_t *err);
  void (*close)(cat_catalog_t *c);
} cat_drv_t;

struct cat_catalog {
  const cat_drv_t *drv;
  void *db; /* sqlite3 * or PGconn * */
  char *name;
  char *warehouse;
  char *where; /* "sqlite file X" / "postgresql host H port P database D" for messages */
  bool v1;     /* iceberg_tables has the iceberg_type column */
  /* SQLite driver: when the current wait for a lock began, and the seed
   * of its random pauses. */
  long long busy_start_ms;
  unsigned busy_seed;
  /* Set by a driver when the last failure was a serialization failure or
   * deadlock: the whole transaction may succeed when run again. */
  bool tx_retry;
  unsigned tx_seed; /* of the pauses between such attempts */
};

extern const cat_drv_t cat__sqlite_drv, cat__pg_drv;

/* Driver openers: fill c->db and c->where. */
int cat__sqlite_open(cat_catalog_t *c, const char *path, fl_err_t *err);
int cat__pg_open(cat_catalog_t *c, const char *conninfo, fl_err_t *err);

/* A malloc'd formatted string. */
char *cat__sprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A short name of a statement for messages: its text up to the first
 * parenthesis, at most n - 1 bytes ("CREATE TABLE IF NOT EXISTS x"). */
const char *cat__sql_what(const char *sql, char *buf, size_t n);

/* Creates the schema tables when missing and detects the iceberg_type column. */
int cat__schema_init(cat_catalog_t *c, fl_err_t *err);

#endif
