/*
 * st_late_rows.h - rows that window aggregations drop as late, into an
 * Iceberg table (layer 10, stream).
 *
 * SET 'floe.late-rows.table' = 'ns.table' names the table (created with
 * ST_LATE_ROWS_SCHEMA when missing). The job gives every query's window
 * aggregations st_late_rows_fn as their late-row callback
 * (ex_window_late_fn) with an argument made by st_late_rows_bind: the
 * callback turns the late rows into rows of the late-row table - the
 * connector tables the query reads, the INSERT's target, the row's event
 * time and the row as JSON - and pushes them into the lane's sink of that
 * table, whose files the job commits with every checkpoint like any other
 * sink's (all tables in one transaction: exactly once).
 */
#ifndef FL_STREAM_LATE_ROWS_H
#define FL_STREAM_LATE_ROWS_H

#include "catalog/catalog.h"
#include "exec/ex_operator.h"
#include "sql/sql_plan.h"
#include "stream/st_job.h"

/* The columns of a late-row table, in order. */
#define ST_LATE_ROWS_SCHEMA "source string, target string, event_time timestamp, row_json string"

typedef struct st_late_rows st_late_rows_t;

/* Opens (or creates) the table of SET 'floe.late-rows.table'; *out is
 * NULL when the job does not set it. */
int st_late_rows_open(cat_catalog_t *cat, const st_job_t *job, st_late_rows_t **out, fl_err_t *err);
void st_late_rows_free(st_late_rows_t *l);
ice_table_t *st_late_rows_table(const st_late_rows_t *l);
const ty_schema_t *st_late_rows_schema(const st_late_rows_t *l);
const char *st_late_rows_ns(const st_late_rows_t *l);
const char *st_late_rows_name(const st_late_rows_t *l);

/* The callback argument for the window aggregations of one query (plan,
 * writing into target) whose late rows go to sink (the lane's sink of the
 * late-row table). Lives as long as l. */
void *st_late_rows_bind(st_late_rows_t *l, const sql_plan_t *plan, const char *target,
                        ex_op_t *sink);
/* An ex_window_late_fn; arg from st_late_rows_bind. Runs on the thread
 * that pushes into the query. */
int st_late_rows_fn(void *arg, const ty_batch_t *b, uint32_t time_col, const uint32_t *rows,
                    uint32_t n, fl_err_t *err);

#endif
