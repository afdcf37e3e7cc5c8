/*
 * sql_stats.c - column statistics from Iceberg manifests for the join
 * order's estimates (layer 7, sql); see sql_stats.h.
 *
 * A scan is planned once per optimizer pass (manifests only, no data) and
 * the bounds and counts of all its columns are folded over its data files
 * at once: the least lower bound, the greatest upper bound, the sum of
 * non-null values. Files without metrics for a column make its range
 * unknown; delete files are ignored (they only remove rows, so the bounds
 * still hold).
 */
#include "sql/sql_stats.h"

#include <string.h>

#include "iceberg/ice_conv.h"
#include "iceberg/ice_scan.h"
#include "sql/sql_plan.h"

typedef struct scan_stats {
  const sql_plan_t *scan;
  sql_col_stats_t *cols; /* one per scan output column */
  struct scan_stats *next;
} scan_stats_t;

struct sql_stats {
  fl_arena_t *a;
  scan_stats_t *scans;
};

sql_stats_t *sql_stats_new(fl_arena_t *a) {
  sql_stats_t *st = fl_arena_zalloc(a, sizeof *st);
  st->a = a;
  return st;
}

static const sql_col_stats_t unknown = {.ndv = -1, .rows = -1};

/* Whether values of kind k are integers whose count between two bounds is
 * their difference plus one. */
static bool integer_like(ty_kind_t k) { return k == TY_INT || k == TY_LONG || k == TY_DATE; }

static bool bound(fl_arena_t *a, const ty_type_t *t, ice_bytes_t b, double *out) {
  if (!b.p) return false;
  ty_value_t v;
  fl_err_t err;
  fl_err_clear(&err);
  if (ice_value_from_bytes(a, t, b.p, b.n, "bound", &v, &err)) return false;
  *out = t->kind == TY_LONG ? (double)v.u.i64 : (double)v.u.i32;
  return true;
}

static const ice_col_metrics_t *metrics_of(const ice_data_file_t *f, int32_t id) {
  for (uint32_t i = 0; i < f->ncols; i++)
    if (f->cols[i].field_id == id) return &f->cols[i];
  return NULL;
}

/* Plans scan p and folds its files' metrics into one entry per column. */
static void load_scan(sql_stats_t *st, const sql_plan_t *p, sql_col_stats_t *cols) {
  for (uint32_t c = 0; c < p->ncols; c++) cols[c] = unknown;
  if (!p->u.scan.table || p->u.scan.meta || p->u.scan.files) return;
  ice_scan_opts_t o = {.snapshot_id = p->u.scan.snapshot_id,
                       .as_of_ms = -1,
                       .columns = p->u.scan.columns,
                       .ncolumns = p->ncols,
                       .case_sensitive = true,
                       .limit = -1};
  if (o.snapshot_id < 0 && p->u.scan.ref) o.ref = p->u.scan.ref;
  ice_scan_t *s;
  fl_err_t err;
  fl_err_clear(&err);
  if (ice_scan_plan(p->u.scan.table, &o, &s, &err)) return;
  const ty_schema_t *schema = ice_scan_schema(s);
  uint32_t ntasks;
  const ice_scan_task_t *tasks = ice_scan_tasks(s, &ntasks);
  double rows = 0;
  for (uint32_t t = 0; t < ntasks; t++) rows += (double)tasks[t].data->file.record_count;
  for (uint32_t c = 0; c < p->ncols && c < schema->root.nfields; c++) {
    const ty_field_t *fd = &schema->root.fields[c];
    bool ranged = integer_like(fd->type->kind), counted = true, have = false;
    double lo = 0, hi = 0, values = 0;
    for (uint32_t t = 0; t < ntasks && (ranged || counted); t++) {
      const ice_data_file_t *f = &tasks[t].data->file;
      const ice_col_metrics_t *m = metrics_of(f, fd->id);
      if (!m || m->value_count < 0)
        counted = false;
      else
        values += (double)(m->value_count - (m->null_count > 0 ? m->null_count : 0));
      double l, h;
      if (!ranged) continue;
      if (!m || !bound(st->a, fd->type, m->lower, &l) || !bound(st->a, fd->type, m->upper, &h)) {
        /* A file with no non-null value has no bounds and adds none. */
        if (!(m && m->value_count >= 0 && m->null_count == m->value_count)) ranged = false;
        continue;
      }
      if (!have || l < lo) lo = l;
      if (!have || h > hi) hi = h;
      have = true;
    }
    sql_col_stats_t *cs = &cols[c];
    cs->rows = rows;
    cs->ndv = counted ? values : rows;
    if (ranged && have) {
      cs->has_range = true;
      cs->lo = lo;
      cs->hi = hi;
      if (hi - lo + 1 < cs->ndv) cs->ndv = hi - lo + 1;
    }
    if (cs->ndv < 1) cs->ndv = 1;
  }
  ice_scan_free(s);
}

static bool plain_col(const sql_bexpr_t *e, uint32_t *col) {
  while (e->kind == SQL_BX_CAST) e = e->args[0];
  if (e->kind != SQL_BX_COL) return false;
  *col = e->col;
  return true;
}

sql_col_stats_t sql_stats_col(sql_stats_t *st, const sql_plan_t *p, uint32_t col) {
  for (;;) {
    if (col >= p->ncols) return unknown;
    switch (p->kind) {
      case SQL_P_FILTER:
      case SQL_P_SORT:
      case SQL_P_LIMIT: p = p->in; continue;
      case SQL_P_PROJECT:
        if (!plain_col(p->u.project.exprs[col], &col)) return unknown;
        p = p->in;
        continue;
      case SQL_P_JOIN: {
        uint32_t nl = p->u.join.nleft;
        if (col < nl) {
          p = p->inputs[0];
        } else if (p->u.join.type < SQL_JT_SEMI) {
          col -= nl;
          p = p->inputs[1];
        } else {
          return unknown;
        }
        continue;
      }
      case SQL_P_SCAN: {
        scan_stats_t *e = st->scans;
        while (e && e->scan != p) e = e->next;
        if (!e) {
          e = fl_arena_zalloc(st->a, sizeof *e);
          e->scan = p;
          e->cols = fl_arena_zalloc(st->a, (p->ncols ? p->ncols : 1) * sizeof *e->cols);
          load_scan(st, p, e->cols);
          e->next = st->scans;
          st->scans = e;
        }
        return e->cols[col];
      }
      default: return unknown;
    }
  }
}
