/*
 * sql_exec.h - running SQL statements end to end (layer 12, cli): parse,
 * bind against the catalog, optimize, execute, and render every value as
 * Trino's text form (through the executor's casts to varchar). Shared by
 * `floe sql` and the sqllogictest runner.
 */
#ifndef FL_CLI_SQL_EXEC_H
#define FL_CLI_SQL_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "catalog/catalog.h"
#include "exec/ex_progress.h"
#include "sql/sql_ast.h"

/* A result held as text: cells row-major, NULL for SQL NULL. */
typedef struct sql_result {
  uint32_t ncols;
  const char **names;
  const char **types; /* Trino's type names */
  bool *numeric;      /* unquoted in JSON (numbers, booleans) */
  uint64_t nrows;
  const char **cells;
  const char *explain; /* EXPLAIN: the plan text, no rows */
} sql_result_t;

typedef struct sql_session {
  cat_catalog_t *catalog; /* NULL: VALUES only */
  const char *default_ns; /* NULL: "default" */
  size_t mem_limit;
  uint32_t threads; /* lanes per query (SET SESSION threads); 0: one per core */
  char ns_buf[256]; /* USE's namespace */
  /* Queries write their rows as a Parquet file at this path instead of
   * returning them as text (floe sql --format parquet); NULL: text. */
  const char *parquet_out;
  uint32_t parquet_results; /* queries written so far: only one may be */
  ex_progress_t *progress;  /* counters queries update as they read; NULL: none */
  /* SET SESSION [catalog.]name = value: Trino's session properties as text
   * (sql_set.c). */
  struct {
    char name[64];
    char value[64];
  } props[16];
  uint32_t nprops;
} sql_session_t;

/*
 * Runs one parsed statement (USE ns changes s->default_ns) (text is the whole script, for
 * messages); the result lives in arena a. Errors carry "line L, column C: " where the binder or
 * parser knows the place.
 */
int sql_exec_stmt(sql_session_t *s, fl_arena_t *a, const char *text, size_t len,
                  const sql_stmt_t *st, sql_result_t *res, fl_err_t *err);

/* Prints err as one line, then the source line and a caret when it has a
 * position. */
void sql_exec_print_error(const char *prog, const char *text, size_t len, const fl_err_t *err);

#endif
