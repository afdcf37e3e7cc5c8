/*
 * cmd_table.c - `floe table SUBCOMMAND`: Iceberg tables in the catalog
 * (layer 12, cli). The dispatcher, and the subcommands that manage the
 * catalog entry: create, list, describe, drop, rename, register.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/buf.h"
#include "catalog/cat_tables.h"
#include "cli/args.h"
#include "cli/rows_out.h"
#include "cli/session.h"
#include "cli/table_cmds.h"
#include "iceberg/ice_spec.h"

int cli_table_usage(const char *sub, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "floe table %s: ", sub);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, " (see 'floe help table')\n");
  return 2;
}

/* ---- create ---- */

int cli_table_create(cat_catalog_t *c, int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {{"schema", true},   {"partition", true},
                                         {"sort", true},     {"property", true},
                                         {"location", true}, {"identifier", true},
                                         {"if-not-exists", false}, {0, false}};
  cli_args_t a;
  if (cli_args_parse("table create", argc, argv, specs, &a)) return 2;
  if (a.npos != 1) return cli_table_usage("create", "expected one NAME");
  const char *schema_text = cli_args_get(&a, "schema");
  if (!schema_text) return cli_table_usage("create", "--schema is required");
  fl_arena_t *ar = fl_arena_new(0);
  fl_err_t err;
  fl_err_clear(&err);
  int status = 1;
  char *ns = NULL, *name = NULL;
  ty_schema_t *schema;
  ice_spec_t *spec = NULL;
  ice_sort_order_t *sort = NULL;
  if (cat_split_ident(a.pos[0], &ns, &name, &err)) goto fail;
  if (ty_schema_parse(ar, schema_text, &schema, &err)) {
    fl_err_prefix(&err, "--schema: ");
    goto fail;
  }
  const char *ident = cli_args_get(&a, "identifier");
  if (ident) {
    /* Identifier fields: required primitive columns, by name. */
    int32_t *ids = fl_arena_alloc(ar, (schema->root.nfields + 1) * sizeof *ids);
    uint32_t nids = 0;
    char *list = fl_arena_strdup(ar, ident);
    for (char *tok = strtok(list, ", "); tok; tok = strtok(NULL, ", ")) {
      int idx = ty_schema_find_name(schema, tok);
      if (idx < 0) {
        fl_err_set(&err, FL_EINVALID, "--identifier: no column '%s'", tok);
        goto fail;
      }
      ty_field_t *fld = &schema->root.fields[idx];
      if (ty_is_nested(fld->type) || fld->type->kind == TY_FLOAT || fld->type->kind == TY_DOUBLE) {
        fl_err_set(&err, FL_EINVALID, "--identifier: column '%s' of type %s cannot identify rows",
                   tok, ty_kind_name(fld->type->kind));
        goto fail;
      }
      fld->required = true; /* identifier fields are required, as Iceberg demands */
      if (nids > schema->root.nfields) break;
      ids[nids++] = fld->id;
    }
    schema->identifier_ids = ids;
    schema->nidentifiers = nids;
  }
  const char *part = cli_args_get(&a, "partition");
  if (part && *part) {
    int32_t last = 999;
    if (ice_spec_parse(ar, part, schema, 0, &last, &spec, &err)) {
      fl_err_prefix(&err, "--partition: ");
      goto fail;
    }
  }
  const char *sort_text = cli_args_get(&a, "sort");
  if (sort_text && *sort_text) {
    if (ice_sort_order_parse(ar, sort_text, schema, 1, &sort, &err)) {
      fl_err_prefix(&err, "--sort: ");
      goto fail;
    }
  }
  ice_kv_t *props = fl_arena_alloc(ar, ((size_t)a.nopts + 1) * sizeof *props);
  uint32_t nprops = 0;
  for (int i = 0; i < a.nopts; i++) {
    if (strcmp(a.names[i], "property") != 0) continue;
    const char *eq = strchr(a.values[i], '=');
    if (!eq || eq == a.values[i]) {
      fl_err_set(&err, FL_EINVALID, "--property needs KEY=VALUE, got '%s'", a.values[i]);
      goto fail;
    }
    props[nprops].key = fl_arena_strndup(ar, a.values[i], (size_t)(eq - a.values[i]));
    props[nprops].value = eq + 1;
    nprops++;
  }
  cat_create_opts_t o = {.schema = schema, .spec = spec, .sort = sort, .props = props,
                         .nprops = nprops, .location = cli_args_get(&a, "location")};
  int rc = cat_create_table(c, io_local_fs(), ns, name, &o, NULL, &err);
  if (rc == FL_EEXISTS && cli_args_flag(&a, "if-not-exists")) {
    status = 0;
    goto out;
  }
  if (rc) goto fail;
  printf("created table %s.%s\n", ns, name);
  status = 0;
  goto out;
fail:
  cli_fail("table create", "%s", err.msg);
out:
  fl_free(ns);
  fl_free(name);
  fl_arena_free(ar);
  return status;
}

/* ---- list ---- */

int cli_table_list(cat_catalog_t *c, int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {{"format", true}, {0, false}};
  cli_args_t a;
  if (cli_args_parse("table list", argc, argv, specs, &a)) return 2;
  cli_fmt_t fmt = CLI_FMT_TABLE;
  const char *f = cli_args_get(&a, "format");
  if (f && !cli_fmt_parse(f, &fmt)) return cli_table_usage("list", "unknown --format %s", f);
  fl_err_t err;
  fl_err_clear(&err);
  /* One namespace, or every namespace (recursively) when none is named. */
  cat_names_t todo = {0};
  if (a.npos == 1) {
    todo.items = fl_calloc(1, sizeof *todo.items);
    todo.items[0] = fl_strdup(a.pos[0]);
    todo.n = 1;
  } else if (a.npos > 1) {
    return cli_table_usage("list", "expected at most one NAMESPACE");
  }
  const char *cols[] = {"namespace", "table"};
  cli_out_t *o = cli_out_new(fmt, stdout, cols, 2);
  int status = 0;
  size_t cap = todo.n;
  if (a.npos == 0) {
    cat_names_t top;
    if (cat_ns_list(c, NULL, &top, &err)) {
      cli_out_finish(o);
      return cli_fail("table list", "%s", err.msg);
    }
    todo = top;
    cap = top.n;
  }
  for (size_t i = 0; i < todo.n && status == 0; i++) {
    cat_names_t tables;
    if (cat_table_list(c, todo.items[i], &tables, &err)) {
      status = cli_fail("table list", "%s", err.msg);
      break;
    }
    for (size_t k = 0; k < tables.n; k++) {
      cli_out_cell(o, todo.items[i], false);
      cli_out_cell(o, tables.items[k], false);
      cli_out_end_row(o);
    }
    cat_names_free(&tables);
    if (a.npos == 0) {
      cat_names_t sub;
      if (cat_ns_list(c, todo.items[i], &sub, &err) == FL_OK) {
        for (size_t k = 0; k < sub.n; k++) {
          if (todo.n == cap) {
            cap = cap ? cap * 2 : 8;
            todo.items = fl_realloc(todo.items, cap * sizeof *todo.items);
          }
          todo.items[todo.n++] = sub.items[k];
        }
        fl_free(sub.items);
      }
    }
  }
  if (!cli_out_finish(o) && status == 0) status = cli_fail("table list", "writing failed");
  cat_names_free(&todo);
  return status;
}

/* ---- describe ---- */

static void describe_fields(FILE *fp, const ty_type_t *st, int depth) {
  for (uint32_t i = 0; i < st->nfields; i++) {
    const ty_field_t *f = &st->fields[i];
    fl_buf_t t;
    fl_buf_init(&t);
    ty_type_format(f->type, &t);
    fprintf(fp, "  %*s%-4d %s %.*s%s%s%s\n", depth * 2, "", f->id, f->name, (int)t.len,
            (const char *)t.data, f->required ? " not null" : "", f->doc ? "  -- " : "",
            f->doc ? f->doc : "");
    fl_buf_free(&t);
    if (f->type->kind == TY_STRUCT) describe_fields(fp, f->type, depth + 1);
  }
}

int cli_table_describe(cat_catalog_t *c, int argc, char **argv) {
  cli_args_t a;
  if (cli_args_parse("table describe", argc, argv, NULL, &a)) return 2;
  if (a.npos != 1) return cli_table_usage("describe", "expected one NAME");
  ice_table_t *t;
  if (cli_session_table("table describe", c, a.pos[0], &t)) return 1;
  const ice_meta_t *m = t->meta;
  printf("table        %s\n", t->ident);
  printf("location     %s\n", m->location);
  printf("metadata     %s\n", t->metadata_location);
  printf("format       v%d\n", m->format_version);
  printf("uuid         %s\n", m->table_uuid);
  const ice_snapshot_t *cur = ice_meta_current_snapshot(m);
  if (cur)
    printf("snapshot     %" PRId64 " (%s, sequence %" PRId64 ")\n", cur->snapshot_id,
           ice_snapshot_operation(cur), cur->sequence_number);
  else
    printf("snapshot     none (empty table)\n");
  const ty_schema_t *s = ice_meta_schema(m);
  printf("schema %d:\n", s->schema_id);
  describe_fields(stdout, &s->root, 0);
  if (s->nidentifiers) {
    printf("identifier  ");
    for (uint32_t i = 0; i < s->nidentifiers; i++) {
      const ty_field_t *f = ty_schema_find_id(s, s->identifier_ids[i]);
      printf(" %s", f ? f->name : "?");
    }
    printf("\n");
  }
  const ice_spec_t *spec = ice_meta_spec(m);
  printf("partition spec %d:", spec ? spec->spec_id : 0);
  if (!spec || spec->nfields == 0) printf(" unpartitioned");
  printf("\n");
  for (uint32_t i = 0; spec && i < spec->nfields; i++) {
    const ice_partition_field_t *pf = &spec->fields[i];
    const ty_field_t *src = ty_schema_find_id(s, pf->source_id);
    fl_buf_t tb;
    fl_buf_init(&tb);
    ice_transform_format(&pf->transform, &tb);
    printf("  %-4d %s = %.*s(%s)\n", pf->field_id, pf->name, (int)tb.len, (const char *)tb.data,
           src ? src->name : "?");
    fl_buf_free(&tb);
  }
  const ice_sort_order_t *so = ice_meta_sort_order(m);
  if (so && so->nfields) {
    printf("sort order %d:\n", so->order_id);
    for (uint32_t i = 0; i < so->nfields; i++) {
      const ice_sort_field_t *sf = &so->fields[i];
      const ty_field_t *src = ty_schema_find_id(s, sf->source_id);
      fl_buf_t tb;
      fl_buf_init(&tb);
      ice_transform_format(&sf->transform, &tb);
      printf("  %.*s(%s) %s NULLS %s\n", (int)tb.len, (const char *)tb.data, src ? src->name : "?",
             sf->descending ? "DESC" : "ASC", sf->nulls_first ? "FIRST" : "LAST");
      fl_buf_free(&tb);
    }
  }
  if (m->nproperties) {
    printf("properties:\n");
    for (uint32_t i = 0; i < m->nproperties; i++)
      printf("  %s = %s\n", m->properties[i].key, m->properties[i].value);
  }
  ice_table_free(t);
  return fflush(stdout) == 0 ? 0 : 1;
}

/* ---- drop, rename, register ---- */

int cli_table_drop(cat_catalog_t *c, int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {{"purge", false}, {"if-exists", false}, {0, false}};
  cli_args_t a;
  if (cli_args_parse("table drop", argc, argv, specs, &a)) return 2;
  if (a.npos != 1) return cli_table_usage("drop", "expected one NAME");
  fl_err_t err;
  fl_err_clear(&err);
  char *ns = NULL, *name = NULL;
  if (cat_split_ident(a.pos[0], &ns, &name, &err)) return cli_fail("table drop", "%s", err.msg);
  size_t deleted = 0;
  bool purge = cli_args_flag(&a, "purge");
  int rc = cat_drop_table(c, io_local_fs(), ns, name, purge, &deleted, &err);
  int status = 0;
  if (rc == FL_ENOTFOUND && cli_args_flag(&a, "if-exists")) rc = FL_OK;
  else if (rc) status = cli_fail("table drop", "%s", err.msg);
  else if (purge) printf("dropped table %s.%s and deleted %zu files\n", ns, name, deleted);
  else printf("dropped table %s.%s (files kept)\n", ns, name);
  fl_free(ns);
  fl_free(name);
  return status;
}

int cli_table_rename(cat_catalog_t *c, int argc, char **argv) {
  cli_args_t a;
  if (cli_args_parse("table rename", argc, argv, NULL, &a)) return 2;
  if (a.npos != 2) return cli_table_usage("rename", "expected OLD and NEW");
  fl_err_t err;
  fl_err_clear(&err);
  char *ns = NULL, *name = NULL, *ns2 = NULL, *name2 = NULL;
  int status = 0;
  if (cat_split_ident(a.pos[0], &ns, &name, &err) ||
      cat_split_ident(a.pos[1], &ns2, &name2, &err) ||
      cat_table_rename(c, ns, name, ns2, name2, &err))
    status = cli_fail("table rename", "%s", err.msg);
  else
    printf("renamed %s to %s\n", a.pos[0], a.pos[1]);
  fl_free(ns);
  fl_free(name);
  fl_free(ns2);
  fl_free(name2);
  return status;
}

int cli_table_register(cat_catalog_t *c, int argc, char **argv) {
  cli_args_t a;
  if (cli_args_parse("table register", argc, argv, NULL, &a)) return 2;
  if (a.npos != 2) return cli_table_usage("register", "expected NAME and METADATA_FILE");
  fl_err_t err;
  fl_err_clear(&err);
  char *ns = NULL, *name = NULL;
  int status = 0;
  if (cat_split_ident(a.pos[0], &ns, &name, &err) ||
      cat_register_table(c, io_local_fs(), ns, name, a.pos[1], &err))
    status = cli_fail("table register", "%s", err.msg);
  else
    printf("registered %s at %s\n", a.pos[0], a.pos[1]);
  fl_free(ns);
  fl_free(name);
  return status;
}

/* ---- dispatch ---- */

static const struct {
  const char *name;
  cli_table_fn fn;
} subs[] = {
    {"create", cli_table_create},       {"list", cli_table_list},
    {"describe", cli_table_describe},   {"drop", cli_table_drop},
    {"rename", cli_table_rename},       {"register", cli_table_register},
    {"append", cli_table_append},       {"delete", cli_table_delete},
    {"upsert", cli_table_upsert},       {"evolve", cli_table_evolve},
    {"scan", cli_table_scan},
    {"snapshots", cli_table_snapshots}, {"history", cli_table_history},
    {"files", cli_table_files},         {"manifests", cli_table_manifests},
    {"partitions", cli_table_partitions}, {"refs", cli_table_refs},
    {"rollback", cli_table_rollback},   {"branch", cli_table_branch},
    {"tag", cli_table_tag},             {"fast-forward", cli_table_fast_forward},
    {"set-current", cli_table_set_current}, {"cherry-pick", cli_table_cherry_pick},
    {"expire", cli_table_expire},       {"remove-orphans", cli_table_remove_orphans},
};

static int run_table(int argc, char **argv) {
  if (argc < 1) return cli_usage_error(&cli_cmd_table, "expected a subcommand");
  for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
    if (strcmp(subs[i].name, argv[0]) != 0) continue;
    cat_catalog_t *c;
    if (cli_session_catalog("table", &c)) return 1;
    int status = subs[i].fn(c, argc - 1, argv + 1);
    cat_close(c);
    return status;
  }
  return cli_usage_error(&cli_cmd_table, "unknown subcommand '%s'", argv[0]);
}

const cli_command_t cli_cmd_table = {
    .name = "table",
    .summary = "create, write, scan and manage Iceberg tables",
    .usage =
        "usage: floe [--warehouse DIR] [--catalog URI] table SUBCOMMAND NAME ...\n\n"
        "NAME is namespace.table (the namespace must exist: floe ns create).\n\n"
        "  create NAME --schema 'id long not null, ts timestamptz, ...'\n"
        "         [--partition 'day(ts), bucket(16, id)'] [--sort 'id DESC']\n"
        "         [--identifier id] [--property K=V]... [--location DIR] [--if-not-exists]\n"
        "  list [NAMESPACE]          tables (of every namespace when none is named)\n"
        "  describe NAME             schema, partition spec, sort order, properties\n"
        "  drop NAME [--purge] [--if-exists]   --purge also deletes the table's files\n"
        "  rename OLD NEW\n"
        "  register NAME METADATA_FILE         adopt a table written elsewhere\n\n"
        "  append NAME FILE...       CSV, JSON lines or Parquet files, one commit\n"
        "  delete NAME --filter EXPR rows matching EXPR (whole files dropped, others\n"
        "                            rewritten)\n"
        "  upsert NAME FILE          replace rows with equal identifier fields\n"
        "                            (equality deletes) and add the file's rows\n"
        "      writes take [--branch B]\n\n"
        "  evolve NAME CHANGE...     schema and partition changes in one commit:\n"
        "      add-column 'c string' | add-column 'point.z double' | drop-column c\n"
        "      rename-column a b | update-column c long | update-doc c 'text'\n"
        "      make-optional c | set-identifier a,b | move-column c first|after x|before x\n"
        "      add-partition 'hour(ts)' [NAME] | drop-partition NAME | rename-partition A B\n\n"
        "  scan NAME [--snapshot ID | --as-of TIME | --ref NAME] [--filter EXPR]\n"
        "       [--columns a,b] [--limit N] [--format table|csv|jsonl] [--stats]\n\n"
        "  snapshots|history|files|manifests|partitions|refs NAME [--format F]\n\n"
        "  rollback NAME SNAPSHOT_ID | rollback NAME --to-time TIME\n"
        "  set-current NAME SNAPSHOT_ID        main to any snapshot (also a non-ancestor)\n"
        "  cherry-pick NAME SNAPSHOT_ID        apply an append (or a fast-forward) to main\n"
        "  branch NAME BRANCH [--snapshot ID] [--replace] [--drop]\n"
        "  tag NAME TAG [--snapshot ID] [--replace] [--drop]\n"
        "  fast-forward NAME BRANCH TO\n"
        "  expire NAME [--older-than TIME] [--retain-last N] [--dry-run]\n"
        "  remove-orphans NAME [--older-than TIME] [--dry-run]\n\n"
        "EXPR: comparisons (= != <> < <= > >=), IN (...), NOT IN, IS [NOT] NULL,\n"
        "IS NAN, AND, OR, NOT, parentheses; literals 1, 2.5, 'text', DATE '2024-01-01',\n"
        "TIMESTAMP '2024-01-01 10:00:00'.\n"
        "TIME: epoch milliseconds, an ISO timestamp (UTC unless it has an offset), or for\n"
        "--older-than a duration such as 7d, 12h, 30m.\n",
    .run = run_table,
};
