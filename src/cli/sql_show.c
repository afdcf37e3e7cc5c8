/*
 * sql_show.c - SHOW SCHEMAS, SHOW TABLES, SHOW COLUMNS and DESCRIBE in
 * `floe sql` (layer 12, cli): the catalog's contents as result rows, with
 * Trino's column names ("Schema", "Table", "Column", "Type", "Extra",
 * "Comment") and its type names.
 */
#include <string.h>

#include "catalog/cat_tables.h"
#include "cli/sql_exec.h"
#include "iceberg/ice_meta.h"
#include "io/fs.h"
#include "sql/sql_bind.h"
#include "sql/sql_meta.h"

int sql__exec_show(const sql_session_t *s, fl_arena_t *a, const sql_bind_opts_t *o,
                   const sql_stmt_t *st, sql_result_t *res, fl_err_t *err);

/* SQL LIKE with % and _ (no escape), case-sensitive as in Trino. */
static bool like(const char *s, const char *p) {
  if (!*p) return !*s;
  if (*p == '%') {
    for (;; s++) {
      if (like(s, p + 1)) return true;
      if (!*s) return false;
    }
  }
  if (!*s) return false;
  return (*p == '_' || *p == *s) && like(s + 1, p + 1);
}

static void result_init(fl_arena_t *a, sql_result_t *res, const char *const *names, uint32_t nc,
                        size_t cap) {
  res->ncols = nc;
  res->names = fl_arena_zalloc(a, nc * sizeof *res->names);
  res->types = fl_arena_zalloc(a, nc * sizeof *res->types);
  res->numeric = fl_arena_zalloc(a, nc * sizeof *res->numeric);
  for (uint32_t i = 0; i < nc; i++) {
    res->names[i] = names[i];
    res->types[i] = "varchar";
  }
  res->cells = fl_arena_zalloc(a, (cap ? cap : 1) * nc * sizeof *res->cells);
}

static void names_to_rows(fl_arena_t *a, const cat_names_t *n, const char *pattern,
                          sql_result_t *res) {
  for (size_t i = 0; i < n->n; i++)
    if (!pattern || like(n->items[i], pattern))
      res->cells[res->nrows++] = fl_arena_strdup(a, n->items[i]);
}

int sql__exec_show(const sql_session_t *s, fl_arena_t *a, const sql_bind_opts_t *o,
                   const sql_stmt_t *st, sql_result_t *res, fl_err_t *err) {
  if (!s->catalog) return fl_err_set(err, FL_EUNSUPPORTED, "no catalog");
  const char *dflt = o->default_ns ? o->default_ns : "default";
  int rc;
  if (st->kind == SQL_S_SHOW &&
      (st->u.show.kind == SQL_SHOW_SCHEMAS || st->u.show.kind == SQL_SHOW_TABLES)) {
    const char *pattern =
        st->u.show.like ? fl_arena_strndup(a, st->u.show.like, st->u.show.like_len) : NULL;
    cat_names_t n = {0};
    bool schemas = st->u.show.kind == SQL_SHOW_SCHEMAS;
    const sql_qname_t *from = &st->u.show.from;
    const char *ns = from->n ? from->parts[from->n - 1].name : dflt;
    rc = schemas ? cat_ns_list(s->catalog, NULL, &n, err) : cat_table_list(s->catalog, ns, &n, err);
    if (rc) return rc;
    const char *col = schemas ? "Schema" : "Table";
    result_init(a, res, &col, 1, n.n);
    names_to_rows(a, &n, pattern, res);
    cat_names_free(&n);
    return FL_OK;
  }
  const sql_qname_t *q = st->kind == SQL_S_DESCRIBE ? &st->u.drop.name : &st->u.show.from;
  if (q->n == 0 || q->n > 3)
    return fl_err_set(err, FL_EINVALID, "line %u, column %u: expected a table name", st->pos.line,
                      st->pos.col);
  const char *name = q->parts[q->n - 1].name;
  const char *ns = q->n >= 2 ? q->parts[q->n - 2].name : dflt;
  /* "t$files": the metadata table's columns. */
  const char *dollar = strrchr(name, '$');
  sql_meta_kind_t kind = dollar ? sql_meta_kind(dollar + 1) : SQL_META_NONE;
  const char *base = kind ? fl_arena_strndup(a, name, (size_t)(dollar - name)) : name;
  ice_table_t *t;
  rc =
      dollar && !kind ? FL_ENOTFOUND : cat_open_table(s->catalog, io_local_fs(), ns, base, &t, err);
  if (rc == FL_ENOTFOUND)
    return fl_err_set(err, rc, "line %u, column %u: Table '%s.%s' does not exist",
                      q->parts[0].pos.line, q->parts[0].pos.col, ns, name);
  if (rc) return rc;
  if (kind) {
    sql_meta_layout_t l;
    rc = sql_meta_layout(a, kind, t, o->resolver, &l, err);
    if (rc) {
      ice_table_free(t);
      return rc;
    }
    static const char *const mcols[] = {"Column", "Type", "Extra", "Comment"};
    result_init(a, res, mcols, 4, l.ncols);
    for (uint32_t i = 0; i < l.ncols; i++) {
      const char **row = &res->cells[res->nrows++ * 4];
      fl_buf_t b;
      fl_buf_init(&b);
      sql_dtype_format(&l.cols[i].type, &b);
      row[0] = fl_arena_strdup(a, l.cols[i].name);
      row[1] = fl_arena_strndup(a, (const char *)b.data, b.len);
      row[2] = "";
      row[3] = NULL;
      fl_buf_free(&b);
    }
    /* The layout's names point into the table's metadata. */
    ice_table_free(t);
    return FL_OK;
  }
  const ty_schema_t *sc = ice_meta_schema(t->meta);
  static const char *const cols[] = {"Column", "Type", "Extra", "Comment"};
  result_init(a, res, cols, 4, sc->root.nfields);
  for (uint32_t i = 0; i < sc->root.nfields; i++) {
    const ty_field_t *f = &sc->root.fields[i];
    sql_dtype_t dt;
    fl_err_t e2;
    fl_err_clear(&e2);
    const char **row = &res->cells[res->nrows++ * 4];
    row[0] = fl_arena_strdup(a, f->name);
    if (o->resolver->from_storage(o->resolver->ctx, f->type, &dt, &e2) == FL_OK) {
      /* Nested types can be longer than sql_dtype_str's buffer. */
      fl_buf_t b;
      fl_buf_init(&b);
      sql_dtype_format(&dt, &b);
      row[1] = fl_arena_strndup(a, (const char *)b.data, b.len);
      fl_buf_free(&b);
    } else {
      fl_buf_t b;
      fl_buf_init(&b);
      ty_type_format(f->type, &b);
      row[1] =
          fl_arena_sprintf(a, "%.*s (not readable from SQL yet)", (int)b.len, (const char *)b.data);
      fl_buf_free(&b);
    }
    row[2] = f->required ? "not null" : "";
    row[3] = f->doc ? fl_arena_strdup(a, f->doc) : NULL;
  }
  ice_table_free(t);
  return FL_OK;
}
