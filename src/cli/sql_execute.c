/*
 * sql_execute.c - ALTER TABLE t EXECUTE procedure(...) (layer 12, cli).
 *
 * Trino's Iceberg table procedures:
 *
 *   optimize[(file_size_threshold => '100MB')] [WHERE partition predicate]
 *       bin-pack compaction (ice_compact): files under the threshold and
 *       files with deletes, rewritten into files of the target size with
 *       their deletes applied, one "replace" snapshot;
 *   expire_snapshots(retention_threshold => '7d' [, retain_last => n])
 *       snapshots older than the threshold go (ice_expire_snapshots);
 *   remove_orphan_files(retention_threshold => '7d')
 *       files under the table location that no metadata reaches and that
 *       are older than the threshold go (ice_remove_orphans);
 *   rollback_to_snapshot(snapshot_id => n)
 *       main back to an ancestor snapshot.
 *
 * The two retention thresholds must be at least the minimum retention, 7d
 * unless the session says otherwise (SET SESSION
 * iceberg.expire_snapshots_min_retention = '1d'), with Trino's error text.
 * Each returns Trino's output: rows of (metric_name, metric_value).
 */
#include <stdio.h>
#include <string.h>

#include "base/time.h"
#include "cli/sql_ddl_int.h"
#include "iceberg/ice_expr.h"
#include "iceberg/ice_maint.h"

#define DEFAULT_RETENTION "7d"

/* The retention threshold argument, checked against the minimum retention. */
static int retention(const sql_session_t *s, fl_arena_t *a, const sql_expr_t *arg, sql_pos_t pos,
                     const char *session_name, const char *config_name, double *ms, fl_err_t *err) {
  const char *text = DEFAULT_RETENTION;
  int rc;
  if (arg && (rc = sql__arg_string(arg, "retention_threshold", a, &text, err))) return rc;
  char canon[48], min_canon[48];
  if (!sql__parse_duration(text, strlen(text), ms, canon, sizeof canon))
    return sql__errp(err, arg ? arg->pos : pos, FL_EINVALID,
                     "retention_threshold: '%s' is not a duration (7d, 12h, 30m)", text);
  const char *min_text = sql__session_prop(s, session_name);
  double min_ms;
  if (!min_text) min_text = DEFAULT_RETENTION;
  if (!sql__parse_duration(min_text, strlen(min_text), &min_ms, min_canon, sizeof min_canon))
    return sql__errp(err, pos, FL_EINVALID, "session property %s: '%s' is not a duration",
                     session_name, min_text);
  if (*ms < min_ms)
    return sql__errp(err, arg ? arg->pos : pos, FL_EINVALID,
                     "Retention specified (%s) is shorter than the minimum retention configured in "
                     "the system (%s). Minimum retention can be changed with %s configuration "
                     "property or iceberg.%s session property",
                     canon, min_canon, config_name, session_name);
  return FL_OK;
}

static int optimize(fl_arena_t *a, const char *text, size_t len, const sql_stmt_t *st,
                    ice_table_t *t, const sql_expr_t *const *args, sql_result_t *res,
                    fl_err_t *err) {
  const sql_alter_t *al = &st->u.alter_table.alter;
  int64_t threshold = 100LL << 20;
  int rc;
  if (args[0]) {
    const char *v;
    if ((rc = sql__arg_string(args[0], "file_size_threshold", a, &v, err))) return rc;
    if (!sql__parse_data_size(v, strlen(v), &threshold) || threshold <= 0)
      return sql__errp(err, args[0]->pos, FL_EINVALID,
                       "file_size_threshold: '%s' is not a positive data size (128MB, 1GB)", v);
  }
  ice_expr_t *filter = NULL;
  if (al->where) {
    /* The WHERE clause ends the statement: its text is Iceberg's filter syntax. */
    uint32_t from = al->where->pos.off, to = st->end;
    if (to > len || from >= to) return sql__errp(err, al->where->pos, FL_EINVALID, "bad WHERE");
    const char *w = fl_arena_strndup(a, text + from, to - from);
    if ((rc = ice_expr_parse(a, w, &filter, err)))
      return sql__errp(err, al->where->pos, FL_EUNSUPPORTED,
                       "optimize accepts a WHERE of comparisons, IN, IS NULL, AND, OR and NOT on "
                       "partition columns: %.400s",
                       err->msg);
  }
  ice_compact_opts_t o = {.file_size_threshold = threshold, .filter = filter};
  ice_compact_result_t r;
  if ((rc = ice_compact(t, &o, &r, err))) return sql__errp_wrap(err, al->pos, rc);
  static const char *const names[] = {"rewritten_data_files_count", "removed_delete_files_count",
                                      "added_data_files_count"};
  uint64_t v[] = {r.rewritten_data_files, r.removed_delete_files, r.added_data_files};
  sql__result_metrics(a, res, names, v, 3);
  return FL_OK;
}

static int expire(sql_session_t *s, fl_arena_t *a, const sql_stmt_t *st, ice_table_t *t,
                  const sql_expr_t *const *args, sql_result_t *res, fl_err_t *err) {
  const sql_alter_t *al = &st->u.alter_table.alter;
  double ms;
  int rc = retention(s, a, args[0], al->pos, "expire_snapshots_min_retention",
                     "iceberg.expire-snapshots.min-retention", &ms, err);
  if (rc) return rc;
  ice_expire_opts_t o = {.older_than_ms = fl_now_micros() / 1000 - (int64_t)ms, .retain_last = -1};
  if (args[1]) {
    int64_t n;
    if ((rc = sql__arg_int(args[1], "retain_last", &n, err))) return rc;
    if (n < 1 || n > INT32_MAX)
      return sql__errp(err, args[1]->pos, FL_EINVALID, "retain_last must be at least 1");
    o.retain_last = (int32_t)n;
  }
  ice_expire_result_t r;
  if ((rc = ice_expire_snapshots(t, &o, &r, err))) return sql__errp_wrap(err, al->pos, rc);
  static const char *const names[] = {"deleted_data_files_count",
                                      "deleted_position_delete_files_count",
                                      "deleted_equality_delete_files_count",
                                      "deleted_manifest_files_count",
                                      "deleted_manifest_lists_count",
                                      "deleted_statistics_files_count"};
  uint64_t v[] = {r.data_files_deleted,      r.delete_files_deleted - r.eq_delete_files_deleted,
                  r.eq_delete_files_deleted, r.manifests_deleted,
                  r.manifest_lists_deleted,  r.statistics_files_deleted};
  sql__result_metrics(a, res, names, v, 6);
  return FL_OK;
}

static int remove_orphans(sql_session_t *s, fl_arena_t *a, const sql_stmt_t *st, ice_table_t *t,
                          const sql_expr_t *const *args, sql_result_t *res, fl_err_t *err) {
  const sql_alter_t *al = &st->u.alter_table.alter;
  double ms;
  int rc = retention(s, a, args[0], al->pos, "remove_orphan_files_min_retention",
                     "iceberg.remove-orphan-files.min-retention", &ms, err);
  if (rc) return rc;
  ice_orphan_result_t r;
  int64_t older = fl_now_micros() / 1000 - (int64_t)ms;
  if ((rc = ice_remove_orphans(t, older, false, NULL, NULL, &r, err)))
    return sql__errp_wrap(err, al->pos, rc);
  static const char *const names[] = {"processed_manifests_count", "active_files_count",
                                      "scanned_files_count", "deleted_files_count",
                                      "deleted_bytes"};
  uint64_t v[] = {r.manifests_read, r.reachable_files, r.files_seen, r.orphans_deleted,
                  r.bytes_deleted};
  sql__result_metrics(a, res, names, v, 5);
  return FL_OK;
}

int sql__exec_table_procedure(sql_session_t *s, fl_arena_t *a, const char *text, size_t len,
                              const sql_stmt_t *st, ice_table_t *t, sql_result_t *res,
                              fl_err_t *err) {
  const sql_alter_t *al = &st->u.alter_table.alter;
  const sql_call_t *c = al->procedure;
  const sql_qname_t *q = &c->name;
  const char *name = q->parts[q->n - 1].name;
  static const char *const opt_params[] = {"file_size_threshold"};
  static const char *const exp_params[] = {"retention_threshold", "retain_last"};
  static const char *const orph_params[] = {"retention_threshold"};
  static const char *const rb_params[] = {"snapshot_id"};
  const char *const *params;
  size_t np;
  int which;
  if (q->n == 1 && !strcmp(name, "optimize")) {
    params = opt_params, np = 1, which = 0;
  } else if (q->n == 1 && !strcmp(name, "expire_snapshots")) {
    params = exp_params, np = 2, which = 1;
  } else if (q->n == 1 && !strcmp(name, "remove_orphan_files")) {
    params = orph_params, np = 1, which = 2;
  } else if (q->n == 1 && !strcmp(name, "rollback_to_snapshot")) {
    params = rb_params, np = 1, which = 3;
  } else {
    return sql__errp(err, q->parts[0].pos, FL_ENOTFOUND, "Table procedure not registered: %s",
                     name);
  }
  if (al->where && which != 0)
    return sql__errp(err, al->where->pos, FL_EINVALID, "WHERE not supported for procedure %s",
                     name);
  const sql_expr_t *args[2] = {0};
  int rc = sql__bind_args(c, al->pos, params, np, args, NULL, err);
  if (rc) return rc;
  if (which == 0) return optimize(a, text, len, st, t, args, res, err);
  if (which == 1) return expire(s, a, st, t, args, res, err);
  if (which == 3) {
    int64_t id;
    if (!args[0])
      return sql__errp(err, al->pos, FL_EINVALID,
                       "Required procedure argument 'snapshot_id' is missing");
    if ((rc = sql__arg_int(args[0], "snapshot_id", &id, err))) return rc;
    if ((rc = ice_rollback_to_snapshot(t, id, err))) return sql__errp_wrap(err, al->pos, rc);
    return FL_OK;
  }
  return remove_orphans(s, a, st, t, args, res, err);
}
