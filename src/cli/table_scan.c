/*
 * table_scan.c - `floe table scan`: rows of a table at a snapshot, pruned
 * and filtered (layer 12, cli).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "cli/args.h"
#include "cli/rows_out.h"
#include "cli/session.h"
#include "cli/table_cmds.h"
#include "iceberg/ice_scan.h"

int cli_table_scan(cat_catalog_t *c, int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {
      {"snapshot", true}, {"as-of", true},  {"ref", true},    {"filter", true},
      {"columns", true},  {"limit", true},  {"format", true}, {"stats", false},
      {"case-insensitive", false}, {0, false}};
  cli_args_t a;
  if (cli_args_parse("table scan", argc, argv, specs, &a)) return 2;
  if (a.npos != 1) return cli_table_usage("scan", "expected one NAME");
  ice_scan_opts_t so = {.snapshot_id = -1, .as_of_ms = -1, .limit = -1, .case_sensitive = true};
  so.case_sensitive = !cli_args_flag(&a, "case-insensitive");
  int given = 0;
  const char *v;
  if ((v = cli_args_get(&a, "snapshot"))) {
    char *end;
    so.snapshot_id = strtoll(v, &end, 10);
    if (*v == '\0' || *end != '\0' || so.snapshot_id < 0)
      return cli_table_usage("scan", "--snapshot needs a snapshot id, got '%s'", v);
    given++;
  }
  if ((v = cli_args_get(&a, "as-of"))) {
    if (!cli_parse_time_ms(v, false, &so.as_of_ms))
      return cli_table_usage("scan", "--as-of needs a time, got '%s'", v);
    given++;
  }
  if ((v = cli_args_get(&a, "ref"))) {
    so.ref = v;
    given++;
  }
  if (given > 1) return cli_table_usage("scan", "give one of --snapshot, --as-of and --ref");
  if ((v = cli_args_get(&a, "limit"))) {
    char *end;
    so.limit = strtoll(v, &end, 10);
    if (*v == '\0' || *end != '\0' || so.limit < 0)
      return cli_table_usage("scan", "--limit needs a number, got '%s'", v);
  }
  cli_fmt_t fmt = CLI_FMT_TABLE;
  if ((v = cli_args_get(&a, "format")) && !cli_fmt_parse(v, &fmt))
    return cli_table_usage("scan", "unknown --format %s (table, csv, jsonl)", v);

  fl_arena_t *ar = fl_arena_new(0);
  fl_err_t err;
  fl_err_clear(&err);
  int status = 1;
  ice_table_t *t = NULL;
  ice_scan_t *s = NULL;
  cli_out_t *o = NULL;
  if ((v = cli_args_get(&a, "columns"))) {
    char *list = fl_arena_strdup(ar, v);
    const char **cols = fl_arena_alloc(ar, (strlen(v) + 1) * sizeof *cols);
    uint32_t n = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
      while (*tok == ' ') tok++;
      char *e = tok + strlen(tok);
      while (e > tok && e[-1] == ' ') *--e = '\0';
      if (*tok) cols[n++] = tok;
    }
    if (n == 0) {
      fl_arena_free(ar);
      return cli_table_usage("scan", "--columns needs column names");
    }
    so.columns = cols;
    so.ncolumns = n;
  }
  if ((v = cli_args_get(&a, "filter"))) {
    ice_expr_t *e;
    if (ice_expr_parse(ar, v, &e, &err)) {
      fl_err_prefix(&err, "--filter: ");
      goto fail;
    }
    so.filter = e;
  }
  if (cli_session_table("table scan", c, a.pos[0], &t)) goto out;
  if (ice_scan_plan(t, &so, &s, &err)) goto fail;
  const ty_schema_t *schema = ice_scan_schema(s);
  const char **names = fl_arena_alloc(ar, (schema->root.nfields + 1) * sizeof *names);
  for (uint32_t i = 0; i < schema->root.nfields; i++) names[i] = schema->root.fields[i].name;
  o = cli_out_new(fmt, stdout, names, schema->root.nfields);
  for (;;) {
    ty_batch_t *b;
    if (ice_scan_next(s, &b, &err)) goto fail;
    if (!b) break;
    cli_out_batch(o, b);
  }
  bool ok = cli_out_finish(o);
  o = NULL;
  if (!ok) {
    fl_err_set(&err, FL_EIO, "writing to standard output failed");
    goto fail;
  }
  if (cli_args_flag(&a, "stats")) {
    const ice_scan_stats_t *st = ice_scan_stats(s);
    fprintf(stderr,
            "manifests %" PRIu64 " (skipped %" PRIu64 "), data files %" PRIu64
            " (skipped %" PRIu64 " by partition, %" PRIu64 " by metrics), delete files %" PRIu64
            ", row groups read %" PRIu64 " (skipped %" PRIu64 "), rows read %" PRIu64
            ", deleted %" PRIu64 ", filtered %" PRIu64 ", out %" PRIu64 "\n",
            st->manifests_total, st->manifests_skipped, st->files_total,
            st->files_skipped_partition, st->files_skipped_metrics, st->delete_files,
            st->row_groups_read, st->row_groups_skipped, st->rows_read, st->rows_deleted,
            st->rows_filtered, st->rows_out);
  }
  status = 0;
  goto out;
fail:
  cli_fail("table scan", "%s", err.msg);
out:
  if (o) cli_out_finish(o);
  ice_scan_free(s);
  ice_table_free(t);
  fl_arena_free(ar);
  return status;
}
