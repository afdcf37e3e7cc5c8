/*
 * table_manage.c - snapshot management and maintenance of a table:
 * rollback, set-current, cherry-pick, branch, tag, fast-forward, expire,
 * remove-orphans (layer 12).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/time.h"
#include "cli/args.h"
#include "cli/session.h"
#include "cli/table_cmds.h"
#include "iceberg/ice_maint.h"

static bool parse_id(const char *s, int64_t *out) {
  char *end;
  long long v = strtoll(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < 0) return false;
  *out = v;
  return true;
}

int cli_table_rollback(cat_catalog_t *c, int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {{"to-time", true}, {0, false}};
  cli_args_t a;
  if (cli_args_parse("table rollback", argc, argv, specs, &a)) return 2;
  const char *when = cli_args_get(&a, "to-time");
  int64_t id = -1, ts = -1;
  if (when ? a.npos != 1 : a.npos != 2)
    return cli_table_usage("rollback", "expected NAME SNAPSHOT_ID or NAME --to-time TIME");
  if (!when && !parse_id(a.pos[1], &id))
    return cli_table_usage("rollback", "'%s' is not a snapshot id", a.pos[1]);
  if (when && !cli_parse_time_ms(when, false, &ts))
    return cli_table_usage("rollback", "--to-time needs a time, got '%s'", when);
  ice_table_t *t;
  if (cli_session_table("table rollback", c, a.pos[0], &t)) return 1;
  fl_err_t err;
  fl_err_clear(&err);
  int rc = when ? ice_rollback_to_time(t, ts, &err) : ice_rollback_to_snapshot(t, id, &err);
  int status = 0;
  if (rc) status = cli_fail("table rollback", "%s", err.msg);
  else printf("%s is at snapshot %" PRId64 "\n", t->ident, t->meta->current_snapshot_id);
  ice_table_free(t);
  return status;
}

/* set-current and cherry-pick: NAME SNAPSHOT_ID, one ref operation each. */
static int snapshot_command(const char *cmd, int (*op)(ice_table_t *, int64_t, fl_err_t *),
                            cat_catalog_t *c, int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {{0, false}};
  const char *sub = cmd + strlen("table ");
  cli_args_t a;
  if (cli_args_parse(cmd, argc, argv, specs, &a)) return 2;
  int64_t id;
  if (a.npos != 2) return cli_table_usage(sub, "expected NAME SNAPSHOT_ID");
  if (!parse_id(a.pos[1], &id)) return cli_table_usage(sub, "'%s' is not a snapshot id", a.pos[1]);
  ice_table_t *t;
  if (cli_session_table(cmd, c, a.pos[0], &t)) return 1;
  fl_err_t err;
  fl_err_clear(&err);
  int status = 0;
  if (op(t, id, &err)) status = cli_fail(cmd, "%s", err.msg);
  else printf("%s is at snapshot %" PRId64 "\n", t->ident, t->meta->current_snapshot_id);
  ice_table_free(t);
  return status;
}

int cli_table_set_current(cat_catalog_t *c, int argc, char **argv) {
  return snapshot_command("table set-current", ice_set_current_snapshot, c, argc, argv);
}

int cli_table_cherry_pick(cat_catalog_t *c, int argc, char **argv) {
  return snapshot_command("table cherry-pick", ice_cherry_pick, c, argc, argv);
}

static int ref_command(const char *sub, bool tag, cat_catalog_t *c, int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {
      {"snapshot", true}, {"replace", false}, {"drop", false}, {0, false}};
  char cmd[32];
  snprintf(cmd, sizeof cmd, "table %s", sub);
  cli_args_t a;
  if (cli_args_parse(cmd, argc, argv, specs, &a)) return 2;
  if (a.npos != 2) return cli_table_usage(sub, "expected NAME and the %s's name", sub);
  int64_t id = -1;
  const char *s = cli_args_get(&a, "snapshot");
  if (s && !parse_id(s, &id)) return cli_table_usage(sub, "'%s' is not a snapshot id", s);
  ice_table_t *t;
  if (cli_session_table(cmd, c, a.pos[0], &t)) return 1;
  fl_err_t err;
  fl_err_clear(&err);
  int rc;
  bool drop = cli_args_flag(&a, "drop");
  if (drop) rc = ice_drop_ref(t, a.pos[1], &err);
  else if (tag) rc = ice_create_tag(t, a.pos[1], id, cli_args_flag(&a, "replace"), &err);
  else rc = ice_create_branch(t, a.pos[1], id, cli_args_flag(&a, "replace"), &err);
  int status = 0;
  if (rc) {
    status = cli_fail(cmd, "%s", err.msg);
  } else if (drop) {
    printf("dropped %s %s of %s\n", sub, a.pos[1], t->ident);
  } else {
    const ice_ref_t *r = ice_meta_ref(t->meta, a.pos[1]);
    printf("%s %s of %s is at snapshot %" PRId64 "\n", sub, a.pos[1], t->ident,
           r ? r->snapshot_id : -1);
  }
  ice_table_free(t);
  return status;
}

int cli_table_branch(cat_catalog_t *c, int argc, char **argv) {
  return ref_command("branch", false, c, argc, argv);
}

int cli_table_tag(cat_catalog_t *c, int argc, char **argv) {
  return ref_command("tag", true, c, argc, argv);
}

int cli_table_fast_forward(cat_catalog_t *c, int argc, char **argv) {
  cli_args_t a;
  if (cli_args_parse("table fast-forward", argc, argv, NULL, &a)) return 2;
  if (a.npos != 3) return cli_table_usage("fast-forward", "expected NAME BRANCH TO");
  ice_table_t *t;
  if (cli_session_table("table fast-forward", c, a.pos[0], &t)) return 1;
  fl_err_t err;
  fl_err_clear(&err);
  int status = 0;
  if (ice_fast_forward(t, a.pos[1], a.pos[2], &err)) {
    status = cli_fail("table fast-forward", "%s", err.msg);
  } else {
    const ice_ref_t *r = ice_meta_ref(t->meta, a.pos[1]);
    printf("branch %s of %s is at snapshot %" PRId64 "\n", a.pos[1], t->ident,
           r ? r->snapshot_id : t->meta->current_snapshot_id);
  }
  ice_table_free(t);
  return status;
}

int cli_table_expire(cat_catalog_t *c, int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {
      {"older-than", true}, {"retain-last", true}, {"dry-run", false}, {0, false}};
  cli_args_t a;
  if (cli_args_parse("table expire", argc, argv, specs, &a)) return 2;
  if (a.npos != 1) return cli_table_usage("expire", "expected one NAME");
  ice_expire_opts_t o = {.older_than_ms = -1, .retain_last = -1,
                         .dry_run = cli_args_flag(&a, "dry-run")};
  const char *v;
  if ((v = cli_args_get(&a, "older-than")) && !cli_parse_time_ms(v, true, &o.older_than_ms))
    return cli_table_usage("expire", "--older-than needs a time or a duration (7d), got '%s'", v);
  if ((v = cli_args_get(&a, "retain-last"))) {
    int64_t n;
    if (!parse_id(v, &n) || n < 1 || n > INT32_MAX)
      return cli_table_usage("expire", "--retain-last needs a count of at least 1, got '%s'", v);
    o.retain_last = (int32_t)n;
  }
  ice_table_t *t;
  if (cli_session_table("table expire", c, a.pos[0], &t)) return 1;
  fl_err_t err;
  fl_err_clear(&err);
  ice_expire_result_t r = {0};
  int status = 0;
  if (ice_expire_snapshots(t, &o, &r, &err))
    status = cli_fail("table expire", "%s", err.msg);
  else
    printf("%s %" PRIu64 " snapshots of %s; deleted %" PRIu64 " manifest lists, %" PRIu64
           " manifests, %" PRIu64 " data files, %" PRIu64 " delete files\n",
           o.dry_run ? "would expire" : "expired", r.snapshots_expired, t->ident,
           r.manifest_lists_deleted, r.manifests_deleted, r.data_files_deleted,
           r.delete_files_deleted);
  ice_table_free(t);
  return status;
}

static void print_path(const char *path, void *arg) {
  (void)arg;
  printf("%s\n", path);
}

int cli_table_remove_orphans(cat_catalog_t *c, int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {{"older-than", true}, {"dry-run", false}, {0, false}};
  cli_args_t a;
  if (cli_args_parse("table remove-orphans", argc, argv, specs, &a)) return 2;
  if (a.npos != 1) return cli_table_usage("remove-orphans", "expected one NAME");
  /* Java's default: files older than three days, so in-flight writes are safe. */
  int64_t older = fl_now_micros() / 1000 - 3LL * 86400000;
  const char *v = cli_args_get(&a, "older-than");
  if (v && !cli_parse_time_ms(v, true, &older))
    return cli_table_usage("remove-orphans", "--older-than needs a time or a duration, got '%s'",
                           v);
  ice_table_t *t;
  if (cli_session_table("table remove-orphans", c, a.pos[0], &t)) return 1;
  fl_err_t err;
  fl_err_clear(&err);
  ice_orphan_result_t r = {0};
  bool dry = cli_args_flag(&a, "dry-run");
  int status = 0;
  if (ice_remove_orphans(t, older, dry, print_path, NULL, &r, &err))
    status = cli_fail("table remove-orphans", "%s", err.msg);
  else
    fprintf(stderr, "%s: %" PRIu64 " files seen, %" PRIu64 " orphans %s (%" PRIu64 " bytes)\n",
            t->ident, r.files_seen, r.orphans_deleted, dry ? "found" : "deleted",
            r.bytes_deleted);
  ice_table_free(t);
  return status;
}
