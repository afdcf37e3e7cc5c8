/*
 * sql_dml.c - the statements of `floe sql` that change the catalog
 * (layer 12, cli): CREATE SCHEMA, CREATE TABLE, DROP TABLE and INSERT INTO
 * ... VALUES | SELECT. INSERT runs its query through the executor, writes
 * the rows with the Iceberg data writer (partitioned by the table's spec,
 * Parquet files of its properties) and commits them as one append
 * snapshot; a failed write or commit deletes the files it wrote.
 */
#include <stdio.h>
#include <string.h>

#include "catalog/cat_tables.h"
#include "cli/sql_exec.h"
#include "exec/ex_plan.h"
#include "exec/ex_vec.h"
#include "iceberg/ice_commit.h"
#include "iceberg/ice_data_writer.h"
#include "iceberg/ice_spec.h"
#include "io/fs.h"
#include "sql/sql_bind.h"

int sql__exec_insert(const sql_session_t *s, fl_arena_t *a, const sql_bind_opts_t *o,
                     const sql_stmt_t *st, int64_t *rows, fl_err_t *err);
int sql__exec_ddl(const sql_session_t *s, fl_arena_t *a, const sql_bind_opts_t *o,
                  const sql_stmt_t *st, fl_err_t *err);

static int pos_err(fl_err_t *err, const sql_stmt_t *st, int code, const char *what) {
  return fl_err_set(err, code, "line %u, column %u: %s", st->pos.line, st->pos.col, what);
}

/* Runs plan p (columns in table order and of its types) and appends its
 * rows to t in one commit. */
static int write_rows(const sql_session_t *s, fl_arena_t *a, ice_table_t *t, const char *branch,
                      sql_plan_t *p, int64_t *rows, fl_err_t *err) {
  sql_resolver_t r;
  ex_sql_resolver(&r, a);
  int rc = sql_optimize(a, &r, &p, err);
  if (rc) return rc;
  ex_query_opts_t qo = {
      .mem_limit = s->mem_limit, .now_us = -1, .progress = s->progress, .threads = s->threads};
  ex_query_t *q;
  if ((rc = ex_query_new(a, p, &qo, &q, err))) return rc;
  if ((rc = ex_query_run(q, err))) {
    ex_query_free(q);
    return rc;
  }
  const ice_meta_t *m = t->meta;
  const ty_schema_t *schema = ice_meta_schema(m);
  const ice_sort_order_t *so = ice_meta_sort_order(m);
  ice_dw_opts_t dwo = {.content = ICE_CONTENT_DATA,
                       .spec = ice_meta_spec(m),
                       .props = m->properties,
                       .nprops = m->nproperties,
                       .sort_order_id = so ? so->order_id : 0};
  ice_dw_t *w = NULL;
  const ex_sink_t *sink = ex_query_sink(q);
  *rows = (int64_t)sink->rows;
  if (sink->rows == 0) {
    ex_query_free(q);
    return FL_OK; /* Trino commits nothing for an empty insert either */
  }
  rc = ice_dw_open(t->fs, m->location, schema, &dwo, &w, err);
  ex_write_adapt_t adapt = {0};
  for (uint32_t i = 0; !rc && i < sink->nbatches; i++) {
    /* The sink's columns are the table's, in order and of its types: the
     * same vectors under the table schema (field ids), varbinary values
     * of fixed(L) columns copied into that layout. */
    ty_batch_t view;
    rc = ex_write_adapt(&adapt, schema, sink->batches[i], &view, err);
    if (!rc) rc = ice_dw_write(w, &view, err);
  }
  ex_write_adapt_free(&adapt);
  ex_query_free(q);
  ice_data_file_t *files = NULL;
  size_t nfiles = 0;
  if (!rc) rc = ice_dw_close(w, a, &files, &nfiles, err);
  if (!rc) {
    ice_change_t ch = {.kind = ICE_CHANGE_APPEND,
                       .branch = branch,
                       .add = files,
                       .nadd = (uint32_t)nfiles,
                       .base_snapshot_id = -1};
    ice_commit_result_t res = {0};
    rc = ice_commit(t, &ch, &res, err);
  }
  /* abort deletes what was written and frees the writer. */
  if (rc)
    ice_dw_abort(w);
  else
    ice_dw_free(w);
  return rc;
}

int sql__exec_insert(const sql_session_t *s, fl_arena_t *a, const sql_bind_opts_t *o,
                     const sql_stmt_t *st, int64_t *rows, fl_err_t *err) {
  if (st->u.insert.overwrite)
    return pos_err(err, st, FL_EUNSUPPORTED, "INSERT OVERWRITE is not supported yet");
  sql_insert_t ins;
  int rc = sql_bind_insert(a, o, st, &ins, err);
  if (rc) return rc;
  if ((rc = write_rows(s, a, ins.table, ins.branch, ins.plan, rows, err)))
    return fl_err_prefix(err, "INSERT INTO %s.%s: ", ins.ns, ins.name);
  return FL_OK;
}

static void table_cleanup(void *t) { ice_table_free(t); }

static void split_ns(fl_arena_t *a, const sql_qname_t *q, const char **ns) {
  fl_buf_t b;
  fl_buf_init(&b);
  for (size_t i = 0; i < q->n; i++) {
    if (i) fl_buf_append_u8(&b, '.');
    fl_buf_append_str(&b, q->parts[i].name);
  }
  fl_buf_append_u8(&b, 0);
  *ns = fl_arena_strdup(a, (const char *)b.data);
  fl_buf_free(&b);
}

int sql__exec_ddl(const sql_session_t *s, fl_arena_t *a, const sql_bind_opts_t *o,
                  const sql_stmt_t *st, fl_err_t *err) {
  if (!s->catalog) return pos_err(err, st, FL_EUNSUPPORTED, "no catalog");
  int rc;
  switch (st->kind) {
    case SQL_S_CREATE_SCHEMA: {
      const char *ns;
      split_ns(a, &st->u.create_schema.name, &ns);
      bool exists = false;
      if ((rc = cat_ns_exists(s->catalog, ns, &exists, err))) return rc;
      if (exists) {
        if (st->u.create_schema.if_not_exists) return FL_OK;
        return fl_err_set(err, FL_EEXISTS, "line %u, column %u: Schema '%s' already exists",
                          st->pos.line, st->pos.col, ns);
      }
      return cat_ns_create(s->catalog, ns, NULL, 0, err);
    }
    case SQL_S_CREATE_TABLE: {
      sql_create_table_t ct;
      if ((rc = sql_bind_create_table(a, o, st, &ct, err))) return rc;
      cat_create_opts_t co = {
          .schema = ct.schema, .location = ct.location, .props = ct.props, .nprops = ct.nprops};
      ice_spec_t *spec = NULL;
      ice_sort_order_t *sort = NULL;
      int32_t last = 999;
      if (ct.partitioning &&
          (rc = ice_spec_parse(a, ct.partitioning, ct.schema, 0, &last, &spec, err)))
        return fl_err_prefix(err, "line %u, column %u: partitioning: ", st->pos.line, st->pos.col);
      if (ct.sorted_by && (rc = ice_sort_order_parse(a, ct.sorted_by, ct.schema, 1, &sort, err)))
        return fl_err_prefix(err, "line %u, column %u: sorted_by: ", st->pos.line, st->pos.col);
      co.spec = spec;
      co.sort = sort;
      ice_table_t *t = NULL;
      rc = cat_create_table(s->catalog, io_local_fs(), ct.ns, ct.name, &co, &t, err);
      if (!rc && t) fl_arena_on_reset(a, table_cleanup, t);
      if (!rc && ct.plan) {
        /* The query's rows; on failure the new table goes again, so that
         * CREATE TABLE AS either happens whole or not at all. */
        int64_t rows;
        if ((rc = write_rows(s, a, t, NULL, ct.plan, &rows, err))) {
          fl_err_t e2;
          fl_err_clear(&e2);
          cat_drop_table(s->catalog, io_local_fs(), ct.ns, ct.name, true, NULL, &e2);
          return fl_err_prefix(err, "CREATE TABLE %s.%s AS: ", ct.ns, ct.name);
        }
      }
      if (rc == FL_EEXISTS && st->u.create_table.if_not_exists) {
        fl_err_clear(err);
        return FL_OK;
      }
      if (rc == FL_EEXISTS)
        return fl_err_set(err, rc, "line %u, column %u: Table '%s.%s' already exists", st->pos.line,
                          st->pos.col, ct.ns, ct.name);
      if (rc == FL_ENOTFOUND)
        return fl_err_set(err, rc, "line %u, column %u: Schema '%s' does not exist", st->pos.line,
                          st->pos.col, ct.ns);
      return rc;
    }
    case SQL_S_DROP_TABLE: {
      const sql_qname_t *q = &st->u.drop.name;
      const char *name = q->parts[q->n - 1].name;
      const char *ns =
          q->n >= 2 ? q->parts[q->n - 2].name : (o->default_ns ? o->default_ns : "default");
      rc = cat_drop_table(s->catalog, io_local_fs(), ns, name, true, NULL, err);
      if (rc == FL_ENOTFOUND && st->u.drop.if_exists) {
        fl_err_clear(err);
        return FL_OK;
      }
      if (rc == FL_ENOTFOUND)
        return fl_err_set(err, rc, "line %u, column %u: Table '%s.%s' does not exist", st->pos.line,
                          st->pos.col, ns, name);
      return rc;
    }
    default: return pos_err(err, st, FL_EUNSUPPORTED, "statement not supported yet");
  }
}
