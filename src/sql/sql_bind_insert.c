/*
 * sql_bind_insert.c - binding INSERT and CREATE TABLE (layer 7, sql).
 *
 * INSERT binds its query like any other, then matches the query's columns
 * to the target's (all columns in order, or the listed ones) and casts
 * each to the column's type with Trino's insert coercions: any implicit
 * coercion, plus the narrowing ones Trino allows for inserts (bigint into
 * integer, double into real, decimal rescaling), which fail at run time
 * on values out of range. Columns not listed get NULL.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "iceberg/ice_meta.h"
#include "sql/sql_bind_int.h"

static bool numeric(sql_dkind_t k) {
  return k == SQL_DT_TINYINT || k == SQL_DT_SMALLINT || k == SQL_DT_INTEGER || k == SQL_DT_BIGINT ||
         k == SQL_DT_REAL || k == SQL_DT_DOUBLE || k == SQL_DT_DECIMAL;
}

int sql__assign_cast(sql_binder_t *b, sql_bexpr_t *e, const sql_dtype_t *dt, sql_bexpr_t **out) {
  *out = e;
  if (sql_dtype_equal(&e->type, dt)) return FL_OK;
  const sql_resolver_t *r = b->o->resolver;
  sql_dtype_t common;
  bool implicit = r->common(r->ctx, &e->type, dt, &common) && sql_dtype_equal(&common, dt);
  fl_err_t ignored;
  if ((!implicit && !(numeric(e->type.kind) && numeric(dt->kind))) ||
      r->cast(r->ctx, &e->type, dt, &ignored))
    return FL_EINVALID;
  sql_bexpr_t *c = fl_arena_zalloc(b->a, sizeof *c);
  c->kind = SQL_BX_CAST;
  c->type = *dt;
  c->pos = e->pos;
  c->nargs = 1;
  c->args = fl_arena_alloc(b->a, sizeof *c->args);
  c->args[0] = e;
  *out = c;
  return FL_OK;
}

int sql_bind_insert(fl_arena_t *a, const sql_bind_opts_t *o, const sql_stmt_t *st,
                    sql_insert_t *out, fl_err_t *err) {
  sql_binder_t b = {.a = a, .o = o, .err = err};
  const char *ns, *name, *branch;
  ice_table_t *t;
  int rc = sql__open_table_ref(&b, &st->u.insert.table, st->pos, &t, &ns, &name, &branch);
  if (rc) return rc;
  sql_plan_t *q;
  if ((rc = sql__bind_top_query(&b, st->u.insert.query, &q))) return rc;
  const ty_schema_t *s = ice_meta_schema(t->meta);
  uint32_t n = s->root.nfields;
  const sql_ident_list_t *cols = &st->u.insert.columns;
  /* For each table column, the query column that fills it (-1: NULL). */
  int *src = fl_arena_alloc(a, (n ? n : 1) * sizeof *src);
  for (uint32_t i = 0; i < n; i++) src[i] = cols->n ? -1 : (int)i;
  uint32_t want = cols->n ? (uint32_t)cols->n : n;
  for (size_t k = 0; k < cols->n; k++) {
    uint32_t i = 0;
    while (i < n && strcasecmp(s->root.fields[i].name, cols->items[k].name) != 0) i++;
    if (i == n)
      return sql__errf(&b, cols->items[k].pos, FL_EINVALID, "Insert column name does not exist: %s",
                       cols->items[k].name);
    if (src[i] >= 0)
      return sql__errf(&b, cols->items[k].pos, FL_EINVALID,
                       "Insert column name is specified more than once: %s", cols->items[k].name);
    src[i] = (int)k;
  }
  if (q->ncols != want)
    return sql__errf(&b, st->u.insert.query->pos, FL_EINVALID,
                     "Insert query has %u columns, but the target needs %u", q->ncols, want);
  sql_plan_t *p = sql_plan_new(a, SQL_P_PROJECT, q);
  p->ncols = n;
  p->cols = fl_arena_zalloc(a, (n ? n : 1) * sizeof *p->cols);
  p->u.project.exprs = fl_arena_zalloc(a, (n ? n : 1) * sizeof *p->u.project.exprs);
  for (uint32_t i = 0; i < n; i++) {
    const ty_field_t *f = &s->root.fields[i];
    sql_dtype_t dt;
    if ((rc = o->resolver->from_storage(o->resolver->ctx, f->type, &dt, err)))
      return sql__errf(&b, st->pos, rc, "Column %s of %s.%s cannot be written from SQL yet",
                       f->name, ns, name);
    sql_bexpr_t *e;
    if (src[i] >= 0) {
      e = sql__col_ref(&b, (uint32_t)src[i], &q->cols[src[i]].type, st->u.insert.query->pos);
    } else {
      e = fl_arena_zalloc(a, sizeof *e);
      e->kind = SQL_BX_CONST;
      e->type = sql_dtype(SQL_DT_UNKNOWN);
      e->c.null = true;
      e->pos = st->pos;
    }
    if ((rc = sql__assign_cast(&b, e, &dt, &e)))
      return sql__errf(
          &b, st->u.insert.query->pos, FL_EINVALID,
          "Insert query has mismatched column types: table column %s is %s, query gives %s",
          f->name, sql_dtype_str(&dt), sql_dtype_str(&e->type));
    p->u.project.exprs[i] = e;
    p->cols[i] = (sql_col_t){.name = f->name, .type = dt};
  }
  *out = (sql_insert_t){.table = t, .ns = ns, .name = name, .branch = branch, .plan = p};
  return FL_OK;
}

/* Nested fields get provisional ids here; a new table's schema is
 * renumbered with fresh ids when its metadata is made. */
static int iceberg_dtype_n(sql_binder_t *b, const sql_dtype_t *dtp, sql_pos_t pos, int32_t *next,
                           const ty_type_t **out) {
  sql_dtype_t dt = *dtp;
  int rc;
  switch (dt.kind) {
    case SQL_DT_BOOLEAN: *out = ty_primitive(TY_BOOLEAN); return FL_OK;
    case SQL_DT_INTEGER: *out = ty_primitive(TY_INT); return FL_OK;
    case SQL_DT_BIGINT: *out = ty_primitive(TY_LONG); return FL_OK;
    case SQL_DT_REAL: *out = ty_primitive(TY_FLOAT); return FL_OK;
    case SQL_DT_DOUBLE: *out = ty_primitive(TY_DOUBLE); return FL_OK;
    case SQL_DT_DECIMAL: *out = ty_decimal(b->a, dt.precision, dt.scale); return FL_OK;
    case SQL_DT_VARCHAR: *out = ty_primitive(TY_STRING); return FL_OK;
    case SQL_DT_VARBINARY: *out = ty_primitive(TY_BINARY); return FL_OK;
    case SQL_DT_DATE: *out = ty_primitive(TY_DATE); return FL_OK;
    case SQL_DT_TIME: *out = ty_primitive(TY_TIME); return FL_OK;
    case SQL_DT_TIMESTAMP:
      *out = ty_primitive(dt.precision == 9 ? TY_TIMESTAMP_NS : TY_TIMESTAMP);
      return FL_OK;
    case SQL_DT_TIMESTAMPTZ:
      *out = ty_primitive(dt.precision == 9 ? TY_TIMESTAMPTZ_NS : TY_TIMESTAMPTZ);
      return FL_OK;
    case SQL_DT_UUID: *out = ty_primitive(TY_UUID); return FL_OK;
    case SQL_DT_ARRAY: {
      const ty_type_t *e;
      if (!dt.elem) break;
      int32_t id = (*next)++;
      if ((rc = iceberg_dtype_n(b, dt.elem, pos, next, &e))) return rc;
      *out = ty_list_new(b->a, id, false, e);
      return FL_OK;
    }
    case SQL_DT_MAP: {
      const ty_type_t *k, *v;
      if (!dt.elem || !dt.key) break;
      int32_t kid = (*next)++, vid = (*next)++;
      if ((rc = iceberg_dtype_n(b, dt.key, pos, next, &k)) ||
          (rc = iceberg_dtype_n(b, dt.elem, pos, next, &v)))
        return rc;
      *out = ty_map_new(b->a, kid, k, vid, false, v);
      return FL_OK;
    }
    case SQL_DT_ROW: {
      ty_field_t *f = fl_arena_zalloc(b->a, (dt.nfields ? dt.nfields : 1) * sizeof *f);
      for (uint32_t i = 0; i < dt.nfields; i++) {
        f[i].id = (*next)++;
        f[i].name = dt.fields[i].name ? dt.fields[i].name : fl_arena_sprintf(b->a, "field%u", i);
        if ((rc = iceberg_dtype_n(b, &dt.fields[i].type, pos, next, &f[i].type))) return rc;
      }
      *out = ty_struct_new(b->a, f, dt.nfields);
      return FL_OK;
    }
    default: break;
  }
  return sql__errf(b, pos, FL_EUNSUPPORTED, "Type not supported for Iceberg: %s",
                   sql_dtype_str(&dt));
}

static int iceberg_dtype(sql_binder_t *b, const sql_dtype_t *dtp, sql_pos_t pos,
                         const ty_type_t **out) {
  int32_t next = 100000;
  return iceberg_dtype_n(b, dtp, pos, &next, out);
}

static int iceberg_type(sql_binder_t *b, const sql_type_t *t, const ty_type_t **out) {
  /* fixed(L) is an Iceberg type SQL reads as varbinary. */
  if (t->kind == SQL_TY_FIXED) {
    if (t->nparams != 1 || t->params[0] < 1 || t->params[0] > INT32_MAX)
      return sql__errf(b, t->pos, FL_EINVALID, "fixed needs a length: fixed(L)");
    *out = ty_fixed(b->a, (int32_t)t->params[0]);
    return FL_OK;
  }
  sql_dtype_t dt;
  int rc = sql_bind_type_in(b->a, t, &dt, b->err);
  if (rc) return rc;
  return iceberg_dtype(b, &dt, t->pos, out);
}

int sql_bind_iceberg_type(fl_arena_t *a, const sql_type_t *t, const ty_type_t **out,
                          fl_err_t *err) {
  sql_binder_t b = {.a = a, .err = err};
  return iceberg_type(&b, t, out);
}

/* ARRAY['a', 'b'] (or one string) joined with ", ". */
static int string_list(sql_binder_t *b, const sql_property_t *p, const char **out) {
  const sql_expr_t *v = p->value;
  fl_buf_t buf;
  fl_buf_init(&buf);
  size_t n = v && v->kind == SQL_E_ARRAY ? v->u.row.items.n : 1;
  for (size_t i = 0; i < n; i++) {
    const sql_expr_t *x = v && v->kind == SQL_E_ARRAY ? v->u.row.items.items[i] : v;
    if (!x || x->kind != SQL_E_STRING) {
      fl_buf_free(&buf);
      return sql__errf(b, x ? x->pos : p->key.pos, FL_EINVALID,
                       "Table property '%s' takes an array of strings", p->key.name);
    }
    if (i) fl_buf_append_str(&buf, ", ");
    fl_buf_append(&buf, x->u.str.data, x->u.str.len);
  }
  fl_buf_append_u8(&buf, 0);
  *out = fl_arena_strdup(b->a, (const char *)buf.data);
  fl_buf_free(&buf);
  return FL_OK;
}

/* The first field of t (a column's type) that needs format v3, or NULL. */
static const char *v3_type(const ty_type_t *t) {
  if (t->kind == TY_TIMESTAMP_NS) return "timestamp_ns";
  if (t->kind == TY_TIMESTAMPTZ_NS) return "timestamptz_ns";
  for (uint32_t i = 0; ty_is_nested(t) && i < t->nfields; i++) {
    const char *k = v3_type(t->fields[i].type);
    if (k) return k;
  }
  return NULL;
}

/* Nanosecond timestamps exist from format v3 on (Iceberg's own check). */
static int check_version(sql_binder_t *b, const sql_stmt_t *st, const sql_create_table_t *ct) {
  int version = 2;
  for (uint32_t i = 0; i < ct->nprops; i++)
    if (!strcmp(ct->props[i].key, "format-version")) version = atoi(ct->props[i].value);
  if (version >= 3) return FL_OK;
  for (uint32_t i = 0; i < ct->schema->root.nfields; i++) {
    const char *k = v3_type(ct->schema->root.fields[i].type);
    if (k)
      return sql__errf(b, st->pos, FL_EINVALID,
                       "Invalid type in v%d schema: %s %s is not supported until v3 (WITH "
                       "(format_version = 3))",
                       version, ct->schema->root.fields[i].name, k);
  }
  return FL_OK;
}

static int table_props(sql_binder_t *b, const sql_stmt_t *st, sql_create_table_t *out) {
  const sql_prop_list_t *pl = &st->u.create_table.props;
  for (size_t i = 0; i < pl->n; i++) {
    const sql_property_t *p = &pl->items[i];
    const char *k = p->key.name;
    const sql_expr_t *v = p->value;
    int rc;
    if (p->key_is_string || !strcasecmp(k, "format_version")) {
      const char *val = NULL;
      if (v && v->kind == SQL_E_STRING)
        val = fl_arena_strndup(b->a, v->u.str.data, v->u.str.len);
      else if (v && v->kind == SQL_E_INT)
        val = fl_arena_sprintf(b->a, "%lld", (long long)v->u.i.value);
      else if (v && v->kind == SQL_E_BOOL)
        val = v->u.b ? "true" : "false";
      if (!val)
        return sql__errf(b, p->key.pos, FL_EINVALID, "Table property '%s' takes a string or number",
                         k);
      if (!p->key_is_string) {
        if (strcmp(val, "1") && strcmp(val, "2") && strcmp(val, "3"))
          return sql__errf(b, p->key.pos, FL_EINVALID, "format_version must be 1, 2 or 3, not %s",
                           val);
        k = "format-version";
      }
      ice_kv_t *kv = fl_arena_alloc(b->a, (out->nprops + 1) * sizeof *kv);
      if (out->nprops) memcpy(kv, out->props, out->nprops * sizeof *kv);
      kv[out->nprops++] = (ice_kv_t){.key = fl_arena_strdup(b->a, k), .value = val};
      out->props = kv;
    } else if (!strcasecmp(k, "partitioning")) {
      if ((rc = string_list(b, p, &out->partitioning))) return rc;
    } else if (!strcasecmp(k, "sorted_by")) {
      if ((rc = string_list(b, p, &out->sorted_by))) return rc;
    } else if (!strcasecmp(k, "location")) {
      if (!v || v->kind != SQL_E_STRING)
        return sql__errf(b, p->key.pos, FL_EINVALID, "Table property 'location' takes a string");
      out->location = fl_arena_strndup(b->a, v->u.str.data, v->u.str.len);
    } else if (!strcasecmp(k, "format")) {
      if (!v || v->kind != SQL_E_STRING || v->u.str.len != 7 ||
          strncasecmp(v->u.str.data, "parquet", 7))
        return sql__errf(b, p->key.pos, FL_EUNSUPPORTED, "floe writes Parquet data files only");
    } else {
      return sql__errf(b, p->key.pos, FL_EINVALID, "Table property '%s' does not exist", k);
    }
  }
  return FL_OK;
}

int sql_bind_create_table(fl_arena_t *a, const sql_bind_opts_t *o, const sql_stmt_t *st,
                          sql_create_table_t *out, fl_err_t *err) {
  sql_binder_t b = {.a = a, .o = o, .err = err};
  const sql_qname_t *q = &st->u.create_table.name;
  int rc;
  out->partitioning = out->sorted_by = out->location = NULL;
  out->props = NULL;
  out->nprops = 0;
  if ((rc = table_props(&b, st, out))) return rc;
  if ((rc = sql__table_name(&b, q, st->pos, &out->ns, &out->name))) return rc;
  out->plan = NULL;
  if (st->u.create_table.as_query) {
    /* CREATE TABLE AS: the columns are the query's (or the names given). */
    sql_plan_t *p;
    if ((rc = sql__bind_top_query(&b, st->u.create_table.as_query, &p))) return rc;
    const sql_ident_list_t *names = &st->u.create_table.as_columns;
    if (names->n && names->n != p->ncols)
      return sql__errf(&b, st->pos, FL_EINVALID,
                       "Column alias list has %zu entries but the query has %u columns", names->n,
                       p->ncols);
    ty_field_t *f = fl_arena_zalloc(a, (p->ncols ? p->ncols : 1) * sizeof *f);
    for (uint32_t i = 0; i < p->ncols; i++) {
      f[i].id = (int32_t)i + 1;
      f[i].name = names->n ? names->items[i].name : p->cols[i].name;
      for (uint32_t j = 0; j < i; j++)
        if (!strcasecmp(f[j].name, f[i].name))
          return sql__errf(&b, st->pos, FL_EINVALID, "Column name '%s' specified more than once",
                           f[i].name);
      if ((rc = iceberg_dtype(&b, &p->cols[i].type, st->u.create_table.as_query->pos, &f[i].type)))
        return rc;
      p->cols[i].name = f[i].name;
    }
    out->schema = ty_schema_new(a, 0, f, p->ncols);
    out->plan = st->u.create_table.with_no_data ? NULL : p;
    return check_version(&b, st, out);
  }
  size_t n = st->u.create_table.ncolumns;
  if (!n) return sql__errf(&b, st->pos, FL_EINVALID, "CREATE TABLE needs at least one column");
  ty_field_t *f = fl_arena_zalloc(a, n * sizeof *f);
  for (size_t i = 0; i < n; i++) {
    const sql_column_def_t *c = &st->u.create_table.columns[i];
    if (c->kind != SQL_COL_PHYSICAL || !c->type)
      return sql__errf(&b, c->pos, FL_EUNSUPPORTED,
                       "Computed and metadata columns are not supported for Iceberg tables");
    for (size_t j = 0; j < i; j++)
      if (!strcasecmp(f[j].name, c->name.name))
        return sql__errf(&b, c->pos, FL_EINVALID, "Column name '%s' specified more than once",
                         c->name.name);
    f[i].id = (int32_t)i + 1;
    f[i].name = c->name.name;
    f[i].required = c->not_null;
    if ((rc = iceberg_type(&b, c->type, &f[i].type))) return rc;
  }
  out->schema = ty_schema_new(a, 0, f, (uint32_t)n);
  return check_version(&b, st, out);
}
