/*
 * sql_bind_meta.c - binding Iceberg metadata tables (layer 7, sql):
 * "t$snapshots", ns."t$files", cat.ns."t$partitions" name the metadata
 * table of the kind after the last '$' of table t (sql_meta.h). The
 * binder opens t and yields a scan node marked with the kind whose
 * columns are the metadata table's, which the executor's metadata scan
 * fills. Time travel picks the snapshot that $files, $manifests,
 * $partitions and $entries describe; the table-wide kinds refuse it.
 */
#include <string.h>

#include "sql/sql_bind_int.h"
#include "sql/sql_meta.h"

int sql__bind_meta_table(sql_binder_t *b, const sql_rel_t *rel, sql_plan_t **out,
                         sql_scope_t *scope) {
  const sql_qname_t *q = &rel->u.table.name;
  const char *full = q->parts[q->n - 1].name;
  const char *dollar = strrchr(full, '$');
  sql_meta_kind_t kind = sql_meta_kind(dollar + 1);
  const char *ns, *ignored;
  int rc = sql__table_name(b, q, rel->pos, &ns, &ignored);
  if (rc) return rc;
  if (kind == SQL_META_NONE || dollar == full)
    return sql__errf(b, rel->pos, FL_ENOTFOUND, "Table '%s.%s' does not exist", ns, full);
  /* Open the table the name is about: the same name without "$kind". */
  sql_qname_t base = {.n = q->n};
  base.parts = fl_arena_zalloc(b->a, q->n * sizeof *base.parts);
  memcpy(base.parts, q->parts, q->n * sizeof *base.parts);
  base.parts[q->n - 1].name = fl_arena_strndup(b->a, full, (size_t)(dollar - full));
  ice_table_t *t;
  const char *name;
  if ((rc = sql__open_table(b, &base, rel->pos, &t, &ns, &name))) return rc;
  sql_plan_t *p = sql_plan_new(b->a, SQL_P_SCAN, NULL);
  p->u.scan.table = t;
  p->u.scan.ident = fl_arena_sprintf(b->a, "%s.%s$%s", ns, name, sql_meta_name(kind));
  p->u.scan.meta = kind;
  p->u.scan.snapshot_id = -1;
  p->u.scan.as_of_ms = -1;
  p->u.scan.limit = -1;
  if (rel->u.table.travel != SQL_TT_NONE) {
    if (!sql_meta_versioned(kind))
      return sql__errf(b, rel->pos, FL_EINVALID,
                       "Time travel does not apply to the metadata table '%s': it describes "
                       "the whole table",
                       p->u.scan.ident);
    int32_t schema_id = -1;
    if ((rc = sql__travel(b, rel, t, &p->u.scan.snapshot_id, &p->u.scan.ref, &schema_id)))
      return rc;
  }
  sql_meta_layout_t l;
  if ((rc = sql_meta_layout(b->a, kind, t, b->o->resolver, &l, b->err)))
    return sql__errf(b, rel->pos, rc, "%s", b->err->msg);
  p->cols = l.cols;
  p->ncols = l.ncols;
  p->u.scan.columns = fl_arena_zalloc(b->a, (l.ncols ? l.ncols : 1) * sizeof *p->u.scan.columns);
  for (uint32_t i = 0; i < l.ncols; i++) p->u.scan.columns[i] = l.cols[i].name;
  const char *qual = rel->alias.name ? rel->alias.name : p->u.scan.ident;
  if (rel->alias.name && rel->alias_cols.n) {
    if (rel->alias_cols.n != l.ncols)
      return sql__errf(b, rel->pos, FL_EINVALID,
                       "Column alias list has %zu entries but '%s' has %u columns",
                       rel->alias_cols.n, qual, l.ncols);
    p = sql__project_all(b, p);
    for (uint32_t i = 0; i < l.ncols; i++) p->cols[i].name = rel->alias_cols.items[i].name;
  }
  sql__plan_scope(b, p, qual, scope);
  *out = p;
  return FL_OK;
}
