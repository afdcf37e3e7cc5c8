/*
 * catalog_tool.c - a test-only driver of the SQL catalog (catalog.h) for
 * the interop tests, one catalog call per run:
 *
 *   catalog_tool [--name CATALOG] URI WAREHOUSE COMMAND ARGS...
 *     ns-create NS [KEY=VALUE]...      ns-list [PARENT]    ns-props NS
 *     ns-update NS [KEY=VALUE | -KEY]...                   ns-drop NS
 *     ns-exists NS
 *     register NS.TABLE LOCATION       load NS.TABLE       list NS
 *     drop NS.TABLE                    rename NS.TABLE NS.TABLE
 *     swap NS.TABLE OLD NEW
 *
 * Results go to stdout as JSON (lists as arrays, properties as an object,
 * a location as a string). A failure prints "CODE: message" (CODE as
 * fl_code_name gives it) on stderr and exits 1; a usage error exits 2.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "catalog/catalog.h"

static int usage(void) {
  fprintf(stderr,
          "usage: catalog_tool [--name CATALOG] URI WAREHOUSE COMMAND ARGS...\n"
          "commands: ns-create NS [K=V]..., ns-list [PARENT], ns-props NS, ns-exists NS,\n"
          "  ns-update NS [K=V | -K]..., ns-drop NS, register NS.T LOC, load NS.T,\n"
          "  list NS, drop NS.T, rename NS.T NS.T, swap NS.T OLD NEW\n");
  return 2;
}

static void print_json(json_t *j) {
  char *s = json_dumps(j, JSON_ENCODE_ANY | JSON_SORT_KEYS);
  printf("%s\n", s);
  free(s);
  json_decref(j);
}

static void print_names(const cat_names_t *n) {
  json_t *a = json_array();
  for (size_t i = 0; i < n->n; i++) json_array_append_new(a, json_string(n->items[i]));
  print_json(a);
}

/* Splits KEY=VALUE arguments into props (pointing into argv). */
static int parse_props(char **args, int n, cat_prop_t *props, int *nprops, const char **removes,
                       int *nremoves) {
  *nprops = 0;
  if (nremoves) *nremoves = 0;
  for (int i = 0; i < n; i++) {
    char *eq = strchr(args[i], '=');
    if (eq) {
      *eq = '\0';
      props[(*nprops)++] = (cat_prop_t){args[i], eq + 1};
    } else if (removes && args[i][0] == '-') {
      removes[(*nremoves)++] = args[i] + 1;
    } else {
      fprintf(stderr, "catalog_tool: '%s' is not KEY=VALUE\n", args[i]);
      return 2;
    }
  }
  return 0;
}

static int run(cat_catalog_t *c, const char *cmd, char **args, int n, fl_err_t *err) {
  int rc = FL_OK;
  char *ns = NULL, *name = NULL, *ns2 = NULL, *name2 = NULL;
  if (!strcmp(cmd, "ns-create") && n >= 1) {
    cat_prop_t *props = fl_calloc((size_t)n, sizeof *props);
    int np;
    if (parse_props(args + 1, n - 1, props, &np, NULL, NULL)) {
      fl_free(props);
      return -2;
    }
    rc = cat_ns_create(c, args[0], props, (size_t)np, err);
    fl_free(props);
  } else if (!strcmp(cmd, "ns-update") && n >= 1) {
    cat_prop_t *props = fl_calloc((size_t)n, sizeof *props);
    const char **removes = fl_calloc((size_t)n, sizeof *removes);
    int np, nr;
    if (parse_props(args + 1, n - 1, props, &np, removes, &nr)) {
      fl_free(props);
      fl_free(removes);
      return -2;
    }
    rc = cat_ns_update(c, args[0], props, (size_t)np, removes, (size_t)nr, err);
    fl_free(props);
    fl_free(removes);
  } else if (!strcmp(cmd, "ns-list") && n <= 1) {
    cat_names_t l;
    rc = cat_ns_list(c, n ? args[0] : NULL, &l, err);
    if (!rc) print_names(&l);
    cat_names_free(&l);
  } else if (!strcmp(cmd, "ns-props") && n == 1) {
    cat_prop_t *p;
    size_t np;
    rc = cat_ns_properties(c, args[0], &p, &np, err);
    if (!rc) {
      json_t *o = json_object();
      for (size_t i = 0; i < np; i++) json_object_set_new(o, p[i].key, json_string(p[i].value));
      print_json(o);
      cat_props_free(p, np);
    }
  } else if (!strcmp(cmd, "ns-exists") && n == 1) {
    bool ex;
    rc = cat_ns_exists(c, args[0], &ex, err);
    if (!rc) print_json(json_boolean(ex));
  } else if (!strcmp(cmd, "ns-drop") && n == 1) {
    rc = cat_ns_drop(c, args[0], err);
  } else if (!strcmp(cmd, "list") && n == 1) {
    cat_names_t l;
    rc = cat_table_list(c, args[0], &l, err);
    if (!rc) print_names(&l);
    cat_names_free(&l);
  } else if ((!strcmp(cmd, "register") && n == 2) || (!strcmp(cmd, "load") && n == 1) ||
             (!strcmp(cmd, "drop") && n == 1) || (!strcmp(cmd, "swap") && n == 3) ||
             (!strcmp(cmd, "rename") && n == 2)) {
    rc = cat_split_ident(args[0], &ns, &name, err);
    if (!rc && !strcmp(cmd, "register")) {
      rc = cat_table_register(c, ns, name, args[1], err);
    } else if (!rc && !strcmp(cmd, "load")) {
      char *loc;
      rc = cat_table_load(c, ns, name, &loc, err);
      if (!rc) print_json(json_string(loc));
      fl_free(loc);
    } else if (!rc && !strcmp(cmd, "drop")) {
      rc = cat_table_drop(c, ns, name, err);
    } else if (!rc && !strcmp(cmd, "swap")) {
      rc = cat_table_swap(c, ns, name, args[1], args[2], err);
    } else if (!rc) {
      rc = cat_split_ident(args[1], &ns2, &name2, err);
      if (!rc) rc = cat_table_rename(c, ns, name, ns2, name2, err);
    }
  } else {
    return -2;
  }
  fl_free(ns);
  fl_free(name);
  fl_free(ns2);
  fl_free(name2);
  return rc;
}

int main(int argc, char **argv) {
  const char *catname = NULL;
  int a = 1;
  if (a + 1 < argc && !strcmp(argv[a], "--name")) {
    catname = argv[a + 1];
    a += 2;
  }
  if (argc - a < 3) return usage();
  const char *uri = argv[a], *warehouse = argv[a + 1], *cmd = argv[a + 2];
  fl_err_t err;
  fl_err_clear(&err);
  cat_catalog_t *c;
  int rc = cat_open(uri, warehouse, catname, &c, &err);
  if (rc) {
    fprintf(stderr, "%s: %s\n", fl_code_name(rc), err.msg);
    return 1;
  }
  rc = run(c, cmd, argv + a + 3, argc - a - 3, &err);
  cat_close(c);
  if (rc == -2) return usage();
  if (rc) {
    fprintf(stderr, "%s: %s\n", fl_code_name(rc), err.msg);
    return 1;
  }
  return 0;
}
