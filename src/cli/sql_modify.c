/*
 * sql_modify.c - the row-level statements of `floe sql` (layer 12, cli):
 * DELETE, UPDATE, MERGE and TRUNCATE TABLE.
 *
 * The binder turns DELETE, UPDATE and MERGE into one query
 * (sql_bind_dml.c) whose rows carry a target row's identity ("$path",
 * "$pos"; NULL for MERGE's source rows that matched none), each WHEN
 * clause's condition and new row. Running it, every row takes the first
 * clause that applies: WHEN MATCHED clauses to rows with a target row,
 * WHEN NOT MATCHED to those without, an AND condition only when true.
 * DELETE deletes the target row, UPDATE deletes it and adds the new row,
 * INSERT adds the new row; rows no clause takes are left alone. The
 * changes go through row_change.h in the mode of the table's
 * write.delete.mode, write.update.mode or write.merge.mode property, in
 * one commit based on the snapshot the query read. A target row that two
 * source rows would change is Trino's error, and nothing is committed.
 *
 * The statements report what Trino reports: the number of rows deleted,
 * updated, or (MERGE) inserted, updated and deleted together; TRUNCATE
 * reports nothing.
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "cli/row_change.h"
#include "cli/sql_exec.h"
#include "exec/ex_plan.h"
#include "sql/sql_bind.h"

int sql__exec_modify(const sql_session_t *s, fl_arena_t *a, const sql_bind_opts_t *o,
                     const sql_stmt_t *st, int64_t *rows, fl_err_t *err);
int sql__explain_modify(fl_arena_t *a, const sql_bind_opts_t *o, const sql_stmt_t *st,
                        const char **text, fl_err_t *err);

/* The target's scan: the leftmost scan of the table in the plan. */
static const sql_plan_t *target_scan(const sql_plan_t *p, const ice_table_t *t) {
  if (p->kind == SQL_P_SCAN && p->u.scan.table == t) return p;
  for (uint32_t i = 0; i < p->ninputs; i++) {
    const sql_plan_t *x = target_scan(p->inputs[i], t);
    if (x) return x;
  }
  return NULL;
}

static const char *mode_property(sql_stmt_kind_t k) {
  switch (k) {
    case SQL_S_UPDATE: return "write.update.mode";
    case SQL_S_MERGE: return "write.merge.mode";
    default: return "write.delete.mode";
  }
}

/* Whether boolean column c of b is true at row r. */
static bool is_true(const ty_batch_t *b, int32_t c, uint32_t r) {
  const ty_vec_t *v = b->cols[c];
  return !ty_vec_is_null(v, r) && v->data[r];
}

/* Applies the clauses to the query's rows. */
static int apply_rows(const sql_dml_t *d, const ex_sink_t *sink, cli_rc_t *rc, int64_t *affected,
                      fl_err_t *err) {
  int r = FL_OK;
  uint32_t nc = d->nclauses;
  uint32_t **sel = fl_calloc(nc, sizeof *sel);
  uint32_t *nsel = fl_calloc(nc, sizeof *nsel);
  for (uint32_t bi = 0; bi < sink->nbatches && !r; bi++) {
    const ty_batch_t *b = sink->batches[bi];
    uint32_t live = ty_batch_live(b);
    for (uint32_t k = 0; k < nc; k++) {
      sel[k] = fl_realloc(sel[k], (b->nrows ? b->nrows : 1) * sizeof **sel);
      nsel[k] = 0;
    }
    const ty_vec_t *pathv = b->cols[0], *posv = b->cols[1];
    for (uint32_t i = 0; i < live && !r; i++) {
      uint32_t row = b->sel ? b->sel[i] : i;
      bool matched = !ty_vec_is_null(pathv, row);
      uint32_t k = 0;
      for (; k < nc; k++) {
        const sql_dml_clause_t *c = &d->clauses[k];
        if (c->matched != matched) continue;
        if (c->cond_col >= 0 && !is_true(b, c->cond_col, row)) continue;
        break;
      }
      if (k == nc) continue;
      const sql_dml_clause_t *c = &d->clauses[k];
      (*affected)++;
      if (c->action != SQL_MERGE_INSERT) {
        size_t len;
        const uint8_t *p = ty_vec_get_bytes(pathv, row, &len);
        r = cli_rc_delete(rc, (const char *)p, len, TY_VEC_DATA(posv, int64_t)[row], err);
      }
      if (c->action != SQL_MERGE_DELETE) sel[k][nsel[k]++] = row;
    }
    for (uint32_t k = 0; k < nc && !r; k++) {
      if (!nsel[k]) continue;
      ty_batch_t view = *b;
      view.cols = b->cols + d->clauses[k].values_col;
      view.ncols = d->ncols;
      view.sel = sel[k];
      view.nsel = nsel[k];
      r = cli_rc_insert(rc, &view, err);
    }
  }
  for (uint32_t k = 0; k < nc; k++) fl_free(sel[k]);
  fl_free(sel);
  fl_free(nsel);
  return r;
}

static int run_dml(const sql_session_t *s, fl_arena_t *a, const sql_stmt_t *st, sql_dml_t *d,
                   int64_t *affected, fl_err_t *err) {
  ice_table_t *t = d->table;
  cli_rc_mode_t mode;
  int rc = cli_rc_mode(t, mode_property(st->kind), &mode, err);
  if (rc) return rc;
  sql_resolver_t r;
  ex_sql_resolver(&r, a);
  sql_plan_t *p = d->plan;
  if ((rc = sql_optimize(a, &r, &p, err))) return rc;
  const sql_plan_t *scan = target_scan(p, t);
  const ice_expr_t *filter = scan ? scan->u.scan.filter : NULL;
  ex_query_opts_t qo = {.mem_limit = s->mem_limit, .now_us = -1};
  ex_query_t *q;
  if ((rc = ex_query_new(a, p, &qo, &q, err))) return rc;
  if ((rc = ex_query_run(q, err))) {
    ex_query_free(q);
    return rc;
  }
  cli_rc_t *ch = NULL;
  rc = cli_rc_open(t, NULL, d->snapshot_id, filter, mode, &ch, err);
  if (!rc) rc = apply_rows(d, ex_query_sink(q), ch, affected, err);
  ex_query_free(q);
  ice_expr_t *conflict = NULL;
  if (!rc && filter) rc = ice_expr_bind(a, filter, ice_meta_schema(t->meta), true, &conflict, err);
  cli_rc_stats_t stats;
  if (!rc)
    rc = cli_rc_commit(ch, conflict,
                       st->kind == SQL_S_MERGE
                           ? "One MERGE target table row matched more than one source row"
                           : NULL,
                       &stats, err);
  cli_rc_free(ch);
  return rc;
}

static int run_truncate(sql_dml_t *d, fl_err_t *err) {
  cli_rc_t *ch = NULL;
  int rc = cli_rc_open(d->table, NULL, d->snapshot_id, NULL, CLI_RC_COPY_ON_WRITE, &ch, err);
  uint32_t n = 0;
  if (!rc) ice_scan_tasks(cli_rc_scan(ch), &n);
  for (uint32_t i = 0; !rc && i < n; i++) rc = cli_rc_delete_file(ch, i, true, err);
  cli_rc_stats_t stats;
  if (!rc) rc = cli_rc_commit(ch, NULL, NULL, &stats, err);
  cli_rc_free(ch);
  return rc;
}

int sql__exec_modify(const sql_session_t *s, fl_arena_t *a, const sql_bind_opts_t *o,
                     const sql_stmt_t *st, int64_t *rows, fl_err_t *err) {
  *rows = 0;
  sql_dml_t d;
  int rc = sql_bind_dml(a, o, st, &d, err);
  if (rc) return rc;
  if (st->kind == SQL_S_TRUNCATE)
    rc = run_truncate(&d, err);
  else
    rc = run_dml(s, a, st, &d, rows, err);
  if (rc) return fl_err_prefix(err, "%s %s.%s: ", sql_stmt_kind_name(st->kind), d.ns, d.name);
  return FL_OK;
}

/* EXPLAIN DELETE | UPDATE | MERGE: the write mode, then the plan of the
 * query that finds the rows. */
int sql__explain_modify(fl_arena_t *a, const sql_bind_opts_t *o, const sql_stmt_t *st,
                        const char **text, fl_err_t *err) {
  sql_dml_t d;
  int rc = sql_bind_dml(a, o, st, &d, err);
  if (rc) return rc;
  cli_rc_mode_t mode;
  if ((rc = cli_rc_mode(d.table, mode_property(st->kind), &mode, err))) return rc;
  sql_plan_t *p = d.plan;
  if ((rc = sql_optimize(a, o->resolver, &p, err))) return rc;
  fl_buf_t b;
  fl_buf_init(&b);
  fl_buf_printf(&b, "%s %s.%s (%s, format version %d)\n", sql_stmt_kind_name(st->kind), d.ns,
                d.name, mode == CLI_RC_MERGE_ON_READ ? "merge-on-read" : "copy-on-write",
                d.table->meta->format_version);
  sql_plan_format(p, &b);
  fl_buf_append_u8(&b, 0);
  *text = fl_arena_strdup(a, (const char *)b.data);
  fl_buf_free(&b);
  return FL_OK;
}
