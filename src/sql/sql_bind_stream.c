/*
 * sql_bind_stream.c - binding a streaming job's connector tables (layer 7,
 * sql). See sql_stream.h.
 *
 * Types are Flink's spellings as the parser normalizes them (STRING,
 * TIMESTAMP(3), TIMESTAMP_LTZ(3), DECIMAL(p,s), ARRAY<..>, MAP<..>,
 * ROW<..>); each becomes an Iceberg storage type (nested ones with field
 * ids of their own) and the SQL type the executor reads it as. Computed
 * columns are bound over the base columns only, as in Flink, where a
 * computed column cannot refer to another; the watermark expression sees
 * every column and must give a timestamp of the rowtime column's kind.
 */
#include <string.h>
#include <strings.h>

#include "sql/sql_bind_int.h"
#include "sql/sql_stream.h"

bool sql_is_stream_table(const sql_stmt_t *st) {
  if (st->kind != SQL_S_CREATE_TABLE) return false;
  const sql_prop_list_t *pl = &st->u.create_table.props;
  for (size_t i = 0; i < pl->n; i++)
    if (pl->items[i].key_is_string && strcmp(pl->items[i].key.name, "connector") == 0) return true;
  return false;
}

const char *sql_stream_option(const sql_stream_table_t *t, const char *key) {
  for (uint32_t i = t->nopts; i-- > 0;)
    if (strcmp(t->keys[i], key) == 0) return t->values[i];
  return NULL;
}

/* The storage type of a written type; nested ones get ids from *next_id. */
static int storage_type(sql_binder_t *b, const sql_type_t *t, int32_t *next_id,
                        const ty_type_t **out) {
  switch (t->kind) {
    case SQL_TY_ARRAY: {
      int32_t id = (*next_id)++;
      const ty_type_t *e;
      int rc = storage_type(b, t->elem, next_id, &e);
      if (rc) return rc;
      *out = ty_list_new(b->a, id, t->elem->not_null, e);
      return FL_OK;
    }
    case SQL_TY_MAP: {
      int32_t kid = (*next_id)++, vid = (*next_id)++;
      const ty_type_t *k, *v;
      int rc = storage_type(b, t->elem, next_id, &k);
      if (!rc) rc = storage_type(b, t->value, next_id, &v);
      if (rc) return rc;
      *out = ty_map_new(b->a, kid, k, vid, t->value->not_null, v);
      return FL_OK;
    }
    case SQL_TY_ROW: {
      ty_field_t *f = fl_arena_zalloc(b->a, (t->nfields ? t->nfields : 1) * sizeof *f);
      for (size_t i = 0; i < t->nfields; i++) {
        f[i].id = (*next_id)++;
        f[i].name =
            t->fields[i].name.name ? t->fields[i].name.name : fl_arena_sprintf(b->a, "f%zu", i);
        f[i].required = t->fields[i].type->not_null;
      }
      for (size_t i = 0; i < t->nfields; i++) {
        int rc = storage_type(b, t->fields[i].type, next_id, &f[i].type);
        if (rc) return rc;
      }
      *out = ty_struct_new(b->a, f, (uint32_t)t->nfields);
      return FL_OK;
    }
    default: return sql_bind_iceberg_type(b->a, t, out, b->err);
  }
}

static const char *string_value(sql_binder_t *b, const sql_property_t *pr, int *rc) {
  const sql_expr_t *v = pr->value;
  if (!v || v->kind != SQL_E_STRING) {
    *rc = sql__errf(b, v ? v->pos : pr->key.pos, FL_EINVALID,
                    "The value of option '%s' must be a quoted string", pr->key.name);
    return NULL;
  }
  return fl_arena_strndup(b->a, v->u.str.data, v->u.str.len);
}

static bool is_timestamp(sql_dkind_t k) { return k == SQL_DT_TIMESTAMP || k == SQL_DT_TIMESTAMPTZ; }

int sql_bind_stream_table(fl_arena_t *a, const sql_bind_opts_t *o, const sql_stmt_t *st,
                          sql_stream_table_t **out, fl_err_t *err) {
  sql_binder_t b = {.a = a, .o = o, .err = err};
  const __typeof__(st->u.create_table) *ct = &st->u.create_table;
  int rc;
  if (ct->name.n != 1)
    return sql__errf(&b, st->pos, FL_EINVALID,
                     "A connector table of a job has a one-part name (it is not a catalog table)");
  if (ct->as_query)
    return sql__errf(&b, st->pos, FL_EINVALID, "A connector table cannot be CREATE TABLE AS");
  if (ct->partitioned_by.n)
    return sql__errf(&b, ct->partitioned_by.items[0].pos, FL_EUNSUPPORTED,
                     "PARTITIONED BY is not supported for connector tables");
  sql_stream_table_t *t = fl_arena_zalloc(a, sizeof *t);
  t->name = ct->name.parts[0].name;
  t->pos = st->pos;
  t->rowtime_col = -1;
  uint32_t n = (uint32_t)ct->ncolumns;
  if (n == 0) return sql__errf(&b, st->pos, FL_EINVALID, "Table '%s' has no columns", t->name);
  t->ncols = n;
  t->cols = fl_arena_zalloc(a, n * sizeof *t->cols);
  t->base = fl_arena_zalloc(a, n * sizeof *t->base);
  ty_field_t *bf = fl_arena_zalloc(a, n * sizeof *bf);
  int32_t next_id = (int32_t)n + 1;
  for (uint32_t i = 0; i < n; i++) {
    const sql_column_def_t *c = &ct->columns[i];
    sql_stream_col_t *sc = &t->cols[i];
    for (uint32_t j = 0; j < i; j++)
      if (strcasecmp(t->cols[j].name, c->name.name) == 0)
        return sql__errf(&b, c->pos, FL_EINVALID, "Column '%s' is given twice", c->name.name);
    sc->name = c->name.name;
    sc->kind = c->kind;
    sc->pos = c->pos;
    sc->is_virtual = c->is_virtual;
    if (c->kind == SQL_COL_COMPUTED) continue;
    int32_t id = (int32_t)t->nbase + 1;
    if ((rc = storage_type(&b, c->type, &next_id, &sc->storage))) return rc;
    if (o->resolver->from_storage(o->resolver->ctx, sc->storage, &sc->type, err)) {
      fl_err_clear(err);
      sc->hidden = true;
      sc->type = sql_dtype(SQL_DT_UNKNOWN);
    }
    if (c->kind == SQL_COL_METADATA)
      sc->metadata_key = c->metadata_key ? fl_arena_strndup(a, c->metadata_key, c->metadata_key_len)
                                         : c->name.name;
    bf[t->nbase] =
        (ty_field_t){.id = id, .name = sc->name, .type = sc->storage, .required = c->not_null};
    t->base[t->nbase++] = i;
  }
  /* PRIMARY KEY columns are NOT NULL, as in Flink. */
  for (size_t i = 0; i < ct->primary_key.n; i++)
    for (uint32_t k = 0; k < t->nbase; k++)
      if (strcasecmp(bf[k].name, ct->primary_key.items[i].name) == 0) bf[k].required = true;
  t->base_schema = ty_schema_new(a, 0, bf, t->nbase);
  /* Computed columns over the base columns. */
  sql_scope_t base = {.n = t->nbase,
                      .cols = fl_arena_zalloc(a, (t->nbase + 1) * sizeof(sql_scope_col_t))};
  for (uint32_t k = 0; k < t->nbase; k++) {
    const sql_stream_col_t *sc = &t->cols[t->base[k]];
    base.cols[k] =
        (sql_scope_col_t){.qual = t->name, .name = sc->hidden ? "" : sc->name, .type = sc->type};
  }
  for (uint32_t i = 0; i < n; i++) {
    const sql_column_def_t *c = &ct->columns[i];
    if (c->kind != SQL_COL_COMPUTED) continue;
    sql_ectx_t cx = {.scope = &base, .clause = "a computed column"};
    if (sql__has_subquery(c->computed))
      return sql__errf(&b, c->computed->pos, FL_EINVALID,
                       "A computed column cannot hold a subquery");
    if ((rc = sql__bind_expr(&b, &cx, c->computed, &t->cols[i].computed))) return rc;
    t->cols[i].type = t->cols[i].computed->type;
  }
  /* The watermark over every column. */
  if (ct->watermark) {
    const sql_watermark_t *w = ct->watermark;
    int32_t col = -1;
    for (uint32_t i = 0; i < n; i++)
      if (strcasecmp(t->cols[i].name, w->column.name) == 0) col = (int32_t)i;
    if (col < 0)
      return sql__errf(&b, w->column.pos, FL_EINVALID,
                       "The rowtime column '%s' of the WATERMARK is not a column of '%s'",
                       w->column.name, t->name);
    if (!is_timestamp(t->cols[col].type.kind))
      return sql__errf(&b, w->column.pos, FL_EINVALID,
                       "The rowtime column '%s' must be TIMESTAMP(3) or TIMESTAMP_LTZ(3), not %s",
                       w->column.name, sql_dtype_str(&t->cols[col].type));
    sql_scope_t all = {.n = n, .cols = fl_arena_zalloc(a, n * sizeof(sql_scope_col_t))};
    for (uint32_t i = 0; i < n; i++)
      all.cols[i] = (sql_scope_col_t){.qual = t->name,
                                      .name = t->cols[i].hidden ? "" : t->cols[i].name,
                                      .type = t->cols[i].type};
    sql_ectx_t cx = {.scope = &all, .clause = "WATERMARK"};
    if ((rc = sql__bind_expr(&b, &cx, w->expr, &t->watermark))) return rc;
    if (!is_timestamp(t->watermark->type.kind))
      return sql__errf(&b, w->expr->pos, FL_EINVALID,
                       "The WATERMARK expression must give a timestamp, not %s",
                       sql_dtype_str(&t->watermark->type));
    if ((rc = sql__coerce(&b, t->watermark, &t->cols[col].type, &t->watermark))) return rc;
    t->rowtime_col = col;
  }
  /* Options. */
  const sql_prop_list_t *pl = &ct->props;
  t->keys = fl_arena_zalloc(a, (pl->n + 1) * sizeof *t->keys);
  t->values = fl_arena_zalloc(a, (pl->n + 1) * sizeof *t->values);
  t->opt_pos = fl_arena_zalloc(a, (pl->n + 1) * sizeof *t->opt_pos);
  for (size_t i = 0; i < pl->n; i++) {
    const sql_property_t *pr = &pl->items[i];
    if (!pr->key_is_string)
      return sql__errf(&b, pr->key.pos, FL_EINVALID,
                       "Option names of a connector table are quoted: '%s' = '...'", pr->key.name);
    rc = FL_OK;
    const char *v = string_value(&b, pr, &rc);
    if (rc) return rc;
    t->keys[t->nopts] = pr->key.name;
    t->values[t->nopts] = v;
    t->opt_pos[t->nopts++] = pr->key.pos;
  }
  if (ct->primary_key.n) {
    t->primary_key = fl_arena_zalloc(a, ct->primary_key.n * sizeof *t->primary_key);
    for (size_t i = 0; i < ct->primary_key.n; i++) {
      const sql_ident_t *k = &ct->primary_key.items[i];
      bool found = false;
      for (uint32_t j = 0; j < n; j++) found |= strcasecmp(t->cols[j].name, k->name) == 0;
      if (!found)
        return sql__errf(&b, k->pos, FL_EINVALID, "Primary key column '%s' does not exist",
                         k->name);
      t->primary_key[t->npk++] = k->name;
    }
  }
  *out = t;
  return FL_OK;
}

int sql__bind_stream_scan(sql_binder_t *b, const sql_rel_t *rel, sql_plan_t **out,
                          sql_scope_t *scope) {
  const char *name = rel->u.table.name.parts[0].name;
  const sql_stream_table_t *t = NULL;
  for (uint32_t i = 0; i < b->o->nstreams && !t; i++)
    if (strcasecmp(b->o->streams[i]->name, name) == 0) t = b->o->streams[i];
  if (!t) return FL_ENOTFOUND;
  if (rel->u.table.travel != SQL_TT_NONE)
    return sql__errf(b, rel->pos, FL_EINVALID,
                     "Time travel applies to catalog tables, not to the connector table '%s'",
                     t->name);
  sql_plan_t *p = sql_plan_new(b->a, SQL_P_SCAN, NULL);
  p->u.scan.stream = t;
  p->u.scan.ident = t->name;
  p->u.scan.snapshot_id = -1;
  p->u.scan.as_of_ms = -1;
  p->u.scan.limit = -1;
  p->cols = fl_arena_zalloc(b->a, t->ncols * sizeof *p->cols);
  p->u.scan.columns = fl_arena_zalloc(b->a, t->ncols * sizeof *p->u.scan.columns);
  for (uint32_t i = 0; i < t->ncols; i++) {
    if (t->cols[i].hidden) continue;
    p->cols[p->ncols] = (sql_col_t){.name = t->cols[i].name, .type = t->cols[i].type};
    p->u.scan.columns[p->ncols++] = t->cols[i].name;
  }
  const char *qual = rel->alias.name ? rel->alias.name : t->name;
  if (rel->alias.name && rel->alias_cols.n) {
    if (rel->alias_cols.n != p->ncols)
      return sql__errf(b, rel->pos, FL_EINVALID,
                       "Column alias list has %zu entries but '%s' has %u columns",
                       rel->alias_cols.n, qual, p->ncols);
    p = sql__project_all(b, p);
    for (uint32_t i = 0; i < p->ncols; i++) p->cols[i].name = rel->alias_cols.items[i].name;
  }
  sql__plan_scope(b, p, qual, scope);
  *out = p;
  return FL_OK;
}
