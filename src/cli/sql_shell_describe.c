/*
 * sql_shell_describe.c - the shell's \dn, \d and \d NAME over a catalog
 * (layer 12, cli): schemas are Iceberg namespaces, tables are listed as
 * "schema.table", and a table is described from its current metadata
 * (columns with types and nullability, partition spec, sort order).
 */
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "catalog/cat_tables.h"
#include "cli/sql_shell.h"
#include "io/fs.h"

int cli_sql_describe_schemas(cat_catalog_t *c, FILE *out) {
  fl_err_t err = {0};
  cat_names_t todo;
  if (cat_ns_list(c, NULL, &todo, &err)) {
    fprintf(stderr, "\\dn: %s\n", err.msg);
    return 1;
  }
  /* Breadth first through nested namespaces; todo grows as it is read. */
  size_t cap = todo.n;
  for (size_t i = 0; i < todo.n; i++) {
    fprintf(out, "%s\n", todo.items[i]);
    cat_names_t sub;
    if (cat_ns_list(c, todo.items[i], &sub, &err)) continue;
    for (size_t k = 0; k < sub.n; k++) {
      if (todo.n == cap) {
        cap = cap ? cap * 2 : 8;
        todo.items = fl_realloc(todo.items, cap * sizeof *todo.items);
      }
      todo.items[todo.n++] = sub.items[k];
    }
    fl_free(sub.items);
  }
  cat_names_free(&todo);
  return 0;
}

static int list_one(cat_catalog_t *c, const char *ns, FILE *out) {
  fl_err_t err = {0};
  cat_names_t tables;
  if (cat_table_list(c, ns, &tables, &err)) {
    fprintf(stderr, "\\d: %s\n", err.msg);
    return 1;
  }
  for (size_t k = 0; k < tables.n; k++) fprintf(out, "%s.%s\n", ns, tables.items[k]);
  cat_names_free(&tables);
  return 0;
}

int cli_sql_describe_tables(cat_catalog_t *c, const char *schema, FILE *out) {
  if (schema) return list_one(c, schema, out);
  fl_err_t err = {0};
  cat_names_t todo;
  if (cat_ns_list(c, NULL, &todo, &err)) {
    fprintf(stderr, "\\d: %s\n", err.msg);
    return 1;
  }
  size_t cap = todo.n;
  int status = 0;
  for (size_t i = 0; i < todo.n; i++) {
    status |= list_one(c, todo.items[i], out);
    cat_names_t sub;
    if (cat_ns_list(c, todo.items[i], &sub, &err)) continue;
    for (size_t k = 0; k < sub.n; k++) {
      if (todo.n == cap) {
        cap = cap ? cap * 2 : 8;
        todo.items = fl_realloc(todo.items, cap * sizeof *todo.items);
      }
      todo.items[todo.n++] = sub.items[k];
    }
    fl_free(sub.items);
  }
  cat_names_free(&todo);
  return status;
}

static size_t name_width(const ty_type_t *st, int depth) {
  size_t w = 0;
  for (uint32_t i = 0; i < st->nfields; i++) {
    size_t n = strlen(st->fields[i].name) + (size_t)depth * 2;
    if (n > w) w = n;
    if (st->fields[i].type->kind == TY_STRUCT) {
      size_t sub = name_width(st->fields[i].type, depth + 1);
      if (sub > w) w = sub;
    }
  }
  return w;
}

static void print_columns(FILE *out, const ty_type_t *st, int depth, int width) {
  for (uint32_t i = 0; i < st->nfields; i++) {
    const ty_field_t *f = &st->fields[i];
    fl_buf_t t;
    fl_buf_init(&t);
    ty_type_format(f->type, &t);
    fprintf(out, "  %*s%-*s  %.*s%s%s%s\n", depth * 2, "", width - depth * 2, f->name, (int)t.len,
            (const char *)t.data, f->required ? " not null" : "", f->doc ? "  -- " : "",
            f->doc ? f->doc : "");
    fl_buf_free(&t);
    if (f->type->kind == TY_STRUCT) print_columns(out, f->type, depth + 1, width);
  }
}

int cli_sql_describe_table(cat_catalog_t *c, const char *name, FILE *out) {
  fl_err_t err = {0};
  char *ns = NULL, *tname = NULL;
  if (cat_split_ident(name, &ns, &tname, &err)) {
    fprintf(stderr, "\\d %s: %s\n", name, err.msg);
    return 1;
  }
  ice_table_t *t;
  int rc = cat_open_table(c, io_local_fs(), ns, tname, &t, &err);
  fl_free(ns);
  fl_free(tname);
  if (rc) {
    fprintf(stderr, "\\d %s: %s\n", name, err.msg);
    return 1;
  }
  const ice_meta_t *m = t->meta;
  const ty_schema_t *s = ice_meta_schema(m);
  fprintf(out, "table %s\n", t->ident);
  print_columns(out, &s->root, 0, (int)name_width(&s->root, 0));
  const ice_spec_t *spec = ice_meta_spec(m);
  fprintf(out, "partitioned by:");
  if (!spec || spec->nfields == 0) fprintf(out, " nothing");
  for (uint32_t i = 0; spec && i < spec->nfields; i++) {
    const ice_partition_field_t *pf = &spec->fields[i];
    const ty_field_t *src = ty_schema_find_id(s, pf->source_id);
    fl_buf_t tb;
    fl_buf_init(&tb);
    ice_transform_format(&pf->transform, &tb);
    fprintf(out, "%s %.*s(%s)", i ? "," : "", (int)tb.len, (const char *)tb.data,
            src ? src->name : "?");
    fl_buf_free(&tb);
  }
  fprintf(out, "\n");
  const ice_sort_order_t *so = ice_meta_sort_order(m);
  if (so && so->nfields) {
    fprintf(out, "sorted by:");
    for (uint32_t i = 0; i < so->nfields; i++) {
      const ice_sort_field_t *sf = &so->fields[i];
      const ty_field_t *src = ty_schema_find_id(s, sf->source_id);
      fl_buf_t tb;
      fl_buf_init(&tb);
      ice_transform_format(&sf->transform, &tb);
      fprintf(out, "%s %.*s(%s) %s nulls %s", i ? "," : "", (int)tb.len, (const char *)tb.data,
              src ? src->name : "?", sf->descending ? "desc" : "asc",
              sf->nulls_first ? "first" : "last");
      fl_buf_free(&tb);
    }
    fprintf(out, "\n");
  }
  ice_table_free(t);
  return 0;
}

/* ---- the shell's callbacks ---- */

static int cb_schemas(void *c) { return cli_sql_describe_schemas(c, stdout); }
static int cb_tables(void *c, const char *schema) {
  return cli_sql_describe_tables(c, schema, stdout);
}
static int cb_table(void *c, const char *name) { return cli_sql_describe_table(c, name, stdout); }
static bool cb_is_schema(void *c, const char *name) {
  fl_err_t err = {0};
  bool exists = false;
  return cat_ns_exists(c, name, &exists, &err) == FL_OK && exists;
}

void cli_sql_shell_use_catalog(cli_sql_shell_opts_t *o, cat_catalog_t *c) {
  o->describe_ctx = c;
  o->list_schemas = cb_schemas;
  o->list_tables = cb_tables;
  o->describe_table = cb_table;
  o->is_schema = cb_is_schema;
}
