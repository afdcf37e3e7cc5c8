/*
 * st_job.h - a streaming job: the SQL file `floe run` executes (layer 10,
 * stream).
 *
 * A job is a script in Flink SQL's spellings:
 *   SET 'key' = 'value';                   job options (pipeline.name,
 *                                          execution.checkpointing.interval, ...)
 *   CREATE [TEMPORARY] TABLE src (...) WITH ('connector' = 'kafka' | 'datagen' |
 *                                          'nexmark', ...);
 *                                          connector tables, job-scoped
 *   INSERT INTO ns.table SELECT ...;        into an Iceberg table of the catalog
 *   EXECUTE STATEMENT SET BEGIN INSERT ...; INSERT ...; END;
 * st_job_parse parses it with the one SQL parser, binds the connector
 * tables (sql_stream.h) and every INSERT with the binder (the connector
 * tables visible by name, the targets looked up in the catalog) and
 * optimizes the plans. Errors name the line and column of the offending
 * text. Everything lives in the arena given.
 */
#ifndef FL_STREAM_JOB_H
#define FL_STREAM_JOB_H

#include "catalog/catalog.h"
#include "sql/sql_bind.h"
#include "sql/sql_stream.h"
#include "stream/st_options.h"

typedef struct st_insert {
  const char *ns, *name; /* the target table */
  ice_table_t *table;    /* opened by the binder (freed with the arena) */
  sql_plan_t *plan;      /* optimized; columns are the table's */
  sql_pos_t pos;
} st_insert_t;

typedef struct st_job {
  fl_arena_t *a;
  const char *path;  /* the file, for messages */
  st_option_t *sets; /* SET 'key' = 'value', in order */
  uint32_t nsets;
  sql_stream_table_t **tables;
  uint32_t ntables;
  st_insert_t *inserts;
  uint32_t ninserts;
  sql_resolver_t resolver;
} st_job_t;

int st_job_parse(fl_arena_t *a, const char *path, const char *text, size_t len, cat_catalog_t *cat,
                 st_job_t **out, fl_err_t *err);
/*
 * Refuses an INSERT whose result would only come at the end of an input
 * that never ends: a GROUP BY or DISTINCT without a window, an ORDER BY, a
 * window function (OVER), or the build side of a join (and either side of
 * a RIGHT or FULL join) over a connector table that is not bounded
 * (st_source_bounded) - unless once (--once bounds every source). Flink
 * would emit an updating stream there, which an append-only Iceberg table
 * cannot take. The error names the INSERT's line and column, the operator
 * and the table, and what to do instead.
 */
int st_job_check_blocking(const st_job_t *j, bool once, fl_err_t *err);
/* The value of a SET option (the last one), or NULL. */
const char *st_job_option(const st_job_t *j, const char *key);

#endif
