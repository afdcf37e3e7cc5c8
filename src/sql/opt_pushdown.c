/*
 * opt_pushdown.c - predicate pushdown into the Iceberg scan (layer 7, sql).
 *
 * For a Filter directly over a Scan, every conjunct of the predicate that
 * Iceberg's filter language can say exactly - a column compared with a
 * constant (=, <>, <, <=, >, >=), IS [NOT] NULL, and ANDs of those - is
 * converted into an ice_expr and given to the scan, which uses it to skip
 * manifests, data files, row groups and pages (ice_scan.h). Only types
 * whose comparison is the same in both (integers, varchar, date, boolean)
 * are pushed, and timestamps written in UTC; the full predicate stays in
 * the Filter above, so pushdown
 * only ever saves reading.
 */
#include <string.h>

#include "base/time.h"
#include "sql/sql_plan.h"

static bool pushable_type(sql_dkind_t k) {
  return k == SQL_DT_INTEGER || k == SQL_DT_BIGINT || k == SQL_DT_VARCHAR || k == SQL_DT_DATE ||
         k == SQL_DT_BOOLEAN || k == SQL_DT_TIMESTAMP || k == SQL_DT_TIMESTAMPTZ;
}

/* A timestamp literal's text ("2024-01-02 03:04:05.000000", with " UTC"
 * for a timestamp with time zone) as Iceberg's ISO form; false when it is
 * in another zone or does not parse. */
static bool timestamp_literal(fl_arena_t *a, const char *s, size_t n, bool tz, ice_literal_t *out) {
  if (tz) {
    if (n < 4 || memcmp(s + n - 4, " UTC", 4) != 0) return false;
    n -= 4;
  }
  int64_t us;
  bool has_zone;
  if (!fl_parse_timestamp(s, n, 6, &us, &has_zone) || has_zone) return false;
  char buf[64];
  fl_format_timestamp(us, 6, tz, buf);
  out->kind = ICE_LIT_TIMESTAMP;
  out->text = fl_arena_strdup(a, buf);
  return true;
}

/* The literal text of a constant (or a CAST of a varchar constant to a
 * date), or false. */
static bool literal(fl_arena_t *a, const sql_bexpr_t *e, sql_dkind_t col_kind, ice_literal_t *out) {
  if (e->kind == SQL_BX_CAST && e->type.kind == col_kind &&
      (col_kind == SQL_DT_TIMESTAMP || col_kind == SQL_DT_TIMESTAMPTZ) &&
      e->args[0]->kind == SQL_BX_CONST && e->args[0]->type.kind == SQL_DT_VARCHAR &&
      !e->args[0]->c.null)
    return timestamp_literal(a, e->args[0]->c.s, e->args[0]->c.len, col_kind == SQL_DT_TIMESTAMPTZ,
                             out);
  if (e->kind == SQL_BX_CAST && e->type.kind == SQL_DT_DATE && col_kind == SQL_DT_DATE &&
      e->args[0]->kind == SQL_BX_CONST && e->args[0]->type.kind == SQL_DT_VARCHAR &&
      !e->args[0]->c.null) {
    out->kind = ICE_LIT_DATE;
    out->text = e->args[0]->c.s;
    return true;
  }
  /* An integer literal widened to the column's bigint. */
  if (e->kind == SQL_BX_CAST && !e->try_ && e->type.kind == col_kind && col_kind == SQL_DT_BIGINT &&
      e->args[0]->kind == SQL_BX_CONST && e->args[0]->type.kind == SQL_DT_INTEGER)
    e = e->args[0];
  else if (e->kind != SQL_BX_CONST || e->type.kind != col_kind)
    return false;
  if (e->c.null) return false;
  switch (col_kind) {
    case SQL_DT_INTEGER:
    case SQL_DT_BIGINT:
      if (e->type.kind != SQL_DT_INTEGER && e->type.kind != SQL_DT_BIGINT) return false;
      out->kind = ICE_LIT_INT;
      out->text = fl_arena_sprintf(a, "%lld", (long long)e->c.i);
      return true;
    case SQL_DT_VARCHAR:
      if (memchr(e->c.s, 0, e->c.len)) return false;
      out->kind = ICE_LIT_STRING;
      out->text = e->c.s;
      return true;
    case SQL_DT_BOOLEAN:
      out->kind = ICE_LIT_BOOL;
      out->text = e->c.b ? "true" : "false";
      return true;
    default: return false;
  }
}

static ice_expr_t *pred(fl_arena_t *a, ice_op_t op, const char *column, const ice_literal_t *lit) {
  ice_expr_t *x = fl_arena_zalloc(a, sizeof *x);
  x->kind = ICE_E_PRED;
  x->op = op;
  x->column = column;
  if (lit) {
    x->nlits = 1;
    x->lits = fl_arena_memdup(a, lit, sizeof *lit);
  }
  return x;
}

/* The table column a scan column reads; NULL for the hidden "$path",
 * "$pos", "$partition" and "$file_modified_time", which no file's metrics
 * describe. */
static const char *table_column(const sql_plan_t *scan, uint32_t col) {
  const char *c = scan->u.scan.columns[col];
  return strcmp(c, "$path") == 0 || strcmp(c, "$pos") == 0 || strcmp(c, "$partition") == 0 ||
                 strcmp(c, "$file_modified_time") == 0
             ? NULL
             : c;
}

/* Converts one conjunct, or returns NULL. */
static ice_expr_t *convert(fl_arena_t *a, const sql_plan_t *scan, const sql_bexpr_t *e) {
  if (e->kind == SQL_BX_AND) {
    ice_expr_t *acc = NULL;
    for (uint32_t i = 0; i < e->nargs; i++) {
      ice_expr_t *c = convert(a, scan, e->args[i]);
      if (c) acc = acc ? ice_expr_and(a, acc, c) : c;
    }
    return acc;
  }
  if (e->kind != SQL_BX_CALL) return NULL;
  static const struct {
    const char *fn, *flipped;
    ice_op_t op, flip_op;
  } ops[] = {
      {"=", "=", ICE_OP_EQ, ICE_OP_EQ}, {"<>", "<>", ICE_OP_NE, ICE_OP_NE},
      {"<", ">", ICE_OP_LT, ICE_OP_GT}, {"<=", ">=", ICE_OP_LE, ICE_OP_GE},
      {">", "<", ICE_OP_GT, ICE_OP_LT}, {">=", "<=", ICE_OP_GE, ICE_OP_LE},
  };
  if (e->nargs == 1 && e->args[0]->kind == SQL_BX_COL &&
      (!strcmp(e->fn, "is_null") || !strcmp(e->fn, "is_not_null"))) {
    const char *col = table_column(scan, e->args[0]->col);
    if (!col) return NULL;
    return pred(a, !strcmp(e->fn, "is_null") ? ICE_OP_IS_NULL : ICE_OP_NOT_NULL, col, NULL);
  }
  if (e->nargs != 2) return NULL;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    if (strcmp(e->fn, ops[i].fn) != 0) continue;
    const sql_bexpr_t *l = e->args[0], *r = e->args[1];
    ice_op_t op = ops[i].op;
    if (l->kind != SQL_BX_COL) {
      const sql_bexpr_t *t = l;
      l = r;
      r = t;
      op = ops[i].flip_op;
    }
    if (l->kind != SQL_BX_COL || !pushable_type(l->type.kind) || !table_column(scan, l->col))
      return NULL;
    ice_literal_t lit;
    if (!literal(a, r, l->type.kind, &lit)) return NULL;
    return pred(a, op, table_column(scan, l->col), &lit);
  }
  return NULL;
}

int sql_opt_pushdown(fl_arena_t *a, sql_plan_t *p, fl_err_t *err) {
  for (uint32_t i = 0; i < p->ninputs; i++) {
    int rc = sql_opt_pushdown(a, p->inputs[i], err);
    if (rc) return rc;
  }
  /* Metadata tables are built whole in memory: nothing to prune. */
  /* Streams have no files to prune either. */
  if (p->kind != SQL_P_FILTER || p->in->kind != SQL_P_SCAN || p->in->u.scan.meta ||
      p->in->u.scan.stream)
    return FL_OK;
  ice_expr_t *x = convert(a, p->in, p->u.filter.pred);
  if (x) p->in->u.scan.filter = p->in->u.scan.filter ? ice_expr_and(a, p->in->u.scan.filter, x) : x;
  return FL_OK;
}
