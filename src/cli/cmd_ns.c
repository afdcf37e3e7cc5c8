/*
 * cmd_ns.c - `floe ns create|list|describe|drop|set`: namespaces of the
 * catalog (layer 12, cli).
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "catalog/catalog.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/rows_out.h"
#include "cli/session.h"

extern const cli_command_t cli_cmd_ns;

/* "k=v" into a property (pointing into the argument). */
static bool split_prop(const char *kv, cat_prop_t *p) {
  const char *eq = strchr(kv, '=');
  if (!eq || eq == kv) return false;
  p->key = fl_strndup(kv, (size_t)(eq - kv));
  p->value = fl_strdup(eq + 1);
  return true;
}

static int collect_props(const cli_args_t *a, cat_prop_t **out, size_t *n) {
  *out = fl_calloc((size_t)a->nopts + 1, sizeof **out);
  *n = 0;
  for (int i = 0; i < a->nopts; i++) {
    if (strcmp(a->names[i], "property") != 0) continue;
    if (!split_prop(a->values[i], &(*out)[*n])) {
      cat_props_free(*out, *n);
      return cli_usage_error(&cli_cmd_ns, "--property needs KEY=VALUE, got '%s'", a->values[i]);
    }
    (*n)++;
  }
  return 0;
}

static int run_ns(int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {
      {"property", true}, {"remove", true}, {"format", true}, {0, false}};
  cli_args_t a;
  if (cli_args_parse("ns", argc, argv, specs, &a)) return 2;
  if (a.npos < 1) return cli_usage_error(&cli_cmd_ns, "expected a subcommand");
  const char *sub = a.pos[0];
  cli_fmt_t fmt = CLI_FMT_TABLE;
  const char *f = cli_args_get(&a, "format");
  if (f && !cli_fmt_parse(f, &fmt)) return cli_usage_error(&cli_cmd_ns, "unknown --format %s", f);
  bool needs_name = strcmp(sub, "list") != 0;
  if (needs_name && a.npos != 2) return cli_usage_error(&cli_cmd_ns, "ns %s needs one NAME", sub);
  if (!needs_name && a.npos > 2) return cli_usage_error(&cli_cmd_ns, "ns list takes at most one parent");

  cat_catalog_t *c;
  if (cli_session_catalog("ns", &c)) return 1;
  fl_err_t err;
  fl_err_clear(&err);
  int status = 0;
  if (strcmp(sub, "create") == 0 || strcmp(sub, "set") == 0) {
    cat_prop_t *props;
    size_t n;
    status = collect_props(&a, &props, &n);
    if (status == 0) {
      int rc;
      if (strcmp(sub, "create") == 0) {
        rc = cat_ns_create(c, a.pos[1], props, n, &err);
      } else {
        const char *rm[CLI_MAX_ARGS];
        size_t nrm = 0;
        for (int i = 0; i < a.nopts; i++)
          if (strcmp(a.names[i], "remove") == 0) rm[nrm++] = a.values[i];
        rc = cat_ns_update(c, a.pos[1], props, n, rm, nrm, &err);
      }
      if (rc) status = cli_fail("ns", "%s", err.msg);
      else if (strcmp(sub, "create") == 0) printf("created namespace %s\n", a.pos[1]);
      cat_props_free(props, n);
    }
  } else if (strcmp(sub, "list") == 0) {
    cat_names_t names;
    if (cat_ns_list(c, a.npos == 2 ? a.pos[1] : NULL, &names, &err)) {
      status = cli_fail("ns", "%s", err.msg);
    } else {
      const char *cols[] = {"namespace"};
      cli_out_t *o = cli_out_new(fmt, stdout, cols, 1);
      for (size_t i = 0; i < names.n; i++) {
        cli_out_cell(o, names.items[i], false);
        cli_out_end_row(o);
      }
      if (!cli_out_finish(o)) status = cli_fail("ns", "writing to standard output failed");
      cat_names_free(&names);
    }
  } else if (strcmp(sub, "describe") == 0) {
    cat_prop_t *props;
    size_t n;
    if (cat_ns_properties(c, a.pos[1], &props, &n, &err)) {
      status = cli_fail("ns", "%s", err.msg);
    } else {
      const char *cols[] = {"property", "value"};
      cli_out_t *o = cli_out_new(fmt, stdout, cols, 2);
      for (size_t i = 0; i < n; i++) {
        cli_out_cell(o, props[i].key, false);
        cli_out_cell(o, props[i].value, false);
        cli_out_end_row(o);
      }
      if (!cli_out_finish(o)) status = cli_fail("ns", "writing to standard output failed");
      cat_props_free(props, n);
    }
  } else if (strcmp(sub, "drop") == 0) {
    if (cat_ns_drop(c, a.pos[1], &err)) status = cli_fail("ns", "%s", err.msg);
    else printf("dropped namespace %s\n", a.pos[1]);
  } else {
    status = cli_usage_error(&cli_cmd_ns, "unknown subcommand '%s'", sub);
  }
  cat_close(c);
  return status;
}

const cli_command_t cli_cmd_ns = {
    .name = "ns",
    .summary = "create, list, describe and drop namespaces",
    .usage = "usage: floe [--warehouse DIR] [--catalog URI] ns SUBCOMMAND ...\n\n"
             "  ns create NAME [--property K=V]...   a namespace (nested: a.b)\n"
             "  ns list [PARENT]                     namespaces under PARENT (top level)\n"
             "  ns describe NAME                     its properties\n"
             "  ns set NAME [--property K=V]... [--remove K]...\n"
             "  ns drop NAME                         only when it holds nothing\n\n"
             "  --format table|csv|jsonl             output of list and describe\n\n"
             "The catalog is the SQLite database <warehouse>/catalog.db unless --catalog\n"
             "names another (sqlite:PATH or postgresql://user:pw@host:port/db);\n"
             "FLOE_WAREHOUSE and FLOE_CATALOG set the defaults.\n",
    .run = run_ns,
};
