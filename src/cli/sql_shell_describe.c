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

/* Every namespace, nested ones after their parents (breadth first). */
static int all_schemas(cat_catalog_t *c, cat_names_t *out, fl_err_t *err) {
  if (cat_ns_list(c, NULL, out, err)) return err->code;
  size_t cap = out->n;
  for (size_t i = 0; i < out->n; i++) {
    cat_names_t sub;
    if (cat_ns_list(c, out->items[i], &sub, err)) {
      cat_names_free(out);
      return err->code;
    }
    for (size_t k = 0; k < sub.n; k++) {
      if (out->n == cap) {
        cap = cap ? cap * 2 : 8;
        out->items = fl_realloc(out->items, cap * sizeof *out->items);
      }
      out->items[out->n++] = sub.items[k];
    }
    fl_free(sub.items);
  }
  return FL_OK;
}

int cli_sql_describe_schemas(cat_catalog_t *c, FILE *out) {
  fl_err_t err = {0};
  cat_names_t all;
  if (all_schemas(c, &all, &err)) {
    fprintf(stderr, "\\dn: %s\n", err.msg);
    return 1;
  }
  for (size_t i = 0; i < all.n; i++) fprintf(out, "%s\n", all.items[i]);
  cat_names_free(&all);
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
  cat_names_t all;
  if (all_schemas(c, &all, &err)) {
    fprintf(stderr, "\\d: %s\n", err.msg);
    return 1;
  }
  int status = 0;
  for (size_t i = 0; i < all.n; i++) status |= list_one(c, all.items[i], out);
  cat_names_free(&all);
  return status;
}

/*
 * A table named without its schema: the one schema that holds it. Returns
 * "schema.name" (malloc'd), or NULL after saying why not.
 */
static char *qualify(cat_catalog_t *c, const char *name) {
  fl_err_t err = {0};
  cat_names_t all;
  if (all_schemas(c, &all, &err)) {
    fprintf(stderr, "\\d %s: %s\n", name, err.msg);
    return NULL;
  }
  char *found = NULL;
  size_t matches = 0;
  fl_buf_t where;
  fl_buf_init(&where);
  for (size_t i = 0; i < all.n; i++) {
    cat_names_t tables;
    if (cat_table_list(c, all.items[i], &tables, &err)) continue;
    for (size_t k = 0; k < tables.n; k++) {
      if (strcmp(tables.items[k], name) != 0) continue;
      fl_buf_printf(&where, "%s%s.%s", matches ? ", " : "", all.items[i], name);
      if (!found) {
        size_t n = strlen(all.items[i]) + strlen(name) + 2;
        found = fl_malloc(n);
        snprintf(found, n, "%s.%s", all.items[i], name);
      }
      matches++;
    }
    cat_names_free(&tables);
  }
  cat_names_free(&all);
  if (matches == 0) fprintf(stderr, "\\d %s: no table or schema of that name\n", name);
  if (matches > 1) {
    fprintf(stderr, "\\d %s: several schemas hold it (%.*s); name one\n", name, (int)where.len,
            (const char *)where.data);
    fl_free(found);
    found = NULL;
  }
  fl_buf_free(&where);
  return found;
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
  char *qualified = NULL;
  if (!strchr(name, '.')) {
    qualified = qualify(c, name);
    if (!qualified) return 1;
    name = qualified;
  }
  char *ns = NULL, *tname = NULL;
  if (cat_split_ident(name, &ns, &tname, &err)) {
    fprintf(stderr, "\\d %s: %s\n", name, err.msg);
    fl_free(qualified);
    return 1;
  }
  ice_table_t *t;
  int rc = cat_open_table(c, io_local_fs(), ns, tname, &t, &err);
  fl_free(ns);
  fl_free(tname);
  if (rc) {
    fprintf(stderr, "\\d %s: %s\n", name, err.msg);
    fl_free(qualified);
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
  fl_free(qualified);
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
