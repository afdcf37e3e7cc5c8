/*
 * sql_call.c - CALL system.procedure(...) (layer 12, cli).
 *
 * Trino's Iceberg procedures, with its (schema, table) arguments:
 *   rollback_to_snapshot(schema_name, table_name, snapshot_id)
 *   register_table(schema_name, table_name, table_location [, metadata_file_name])
 *   unregister_table(schema_name, table_name)
 * and Spark's, which name the table as one 'ns.t' argument and return
 * Spark's output rows:
 *   rollback_to_snapshot(table, snapshot_id)        previous/current_snapshot_id
 *   rollback_to_timestamp(table, timestamp)         previous/current_snapshot_id
 *   set_current_snapshot(table, snapshot_id | ref)  previous/current_snapshot_id
 *   cherrypick_snapshot(table, snapshot_id)         source/current_snapshot_id
 *   fast_forward(table, branch, to)                 branch_updated, previous_ref, updated_ref
 *   expire_snapshots(table [, older_than] [, retain_last])   the deleted file counts
 *   remove_orphan_files(table [, older_than] [, dry_run])    orphan_file_location rows
 *   register_table(table, metadata_file)
 * Arguments are positional or named (name => value). The procedure name
 * may be qualified by a catalog: iceberg.system.x.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/time.h"
#include "catalog/cat_tables.h"
#include "cli/session.h"
#include "cli/sql_ddl_int.h"
#include "iceberg/ice_maint.h"
#include "io/fs.h"

typedef struct call {
  sql_session_t *s;
  fl_arena_t *a;
  const sql_stmt_t *st;
  const sql_call_t *c;
  const char *name;
  sql_result_t *res;
  fl_err_t *err;
} call_t;

static int missing(call_t *k, const char *param) {
  return sql__errp(k->err, k->st->pos, FL_EINVALID, "Required procedure argument '%s' is missing",
                   param);
}

/* Opens the table named by schema/table strings, or one 'ns.t' string. */
static int open_named(call_t *k, const char *ns, const char *name, sql_pos_t pos, ice_table_t **t) {
  sql_ident_t parts[2] = {{ns, false, pos}, {name, false, pos}};
  sql_qname_t q = {ns ? parts : parts + 1, ns ? 2 : 1};
  return sql__ddl_open(k->s, k->a, &q, t, k->err);
}

static int open_dotted(call_t *k, const sql_expr_t *arg, ice_table_t **t) {
  const char *text;
  int rc = sql__arg_string(arg, "table", k->a, &text, k->err);
  if (rc) return rc;
  char *copy = fl_arena_strdup(k->a, text);
  /* catalog.ns.t or ns.t or t: the last two parts count. */
  char *dot = strrchr(copy, '.');
  if (!dot) return open_named(k, NULL, copy, arg->pos, t);
  *dot = 0;
  char *ns = strrchr(copy, '.');
  return open_named(k, ns ? ns + 1 : copy, dot + 1, arg->pos, t);
}

static int snapshot_id(call_t *k, const sql_expr_t *e, const char *param, int64_t *out) {
  int rc = sql__arg_int(e, param, out, k->err);
  if (!rc && *out < 0) return sql__errp(k->err, e->pos, FL_EINVALID, "Invalid snapshot id");
  return rc;
}

/* A timestamp argument: TIMESTAMP '...' (UTC), a string, or epoch milliseconds. */
static int time_arg(call_t *k, const sql_expr_t *e, const char *param, int64_t *ms) {
  const char *text = NULL;
  if (e->kind == SQL_E_TYPED && e->u.typed.type->kind == SQL_TY_TIMESTAMP)
    text = fl_arena_strndup(k->a, e->u.typed.data, e->u.typed.len);
  else if (e->kind == SQL_E_STRING)
    text = fl_arena_strndup(k->a, e->u.str.data, e->u.str.len);
  else if (e->kind == SQL_E_INT)
    text = e->u.i.text;
  if (!text || !cli_parse_time_ms(text, false, ms))
    return sql__errp(k->err, e->pos, FL_EINVALID, "Argument '%s' must be a timestamp", param);
  return FL_OK;
}

static void snapshot_pair(call_t *k, const char *first, int64_t a, int64_t b) {
  const char *names[] = {first, "current_snapshot_id"};
  static const char *const types[] = {"bigint", "bigint"};
  sql__result_init(k->a, k->res, names, types, 2, 1);
  k->res->cells[0] = a >= 0 ? fl_arena_sprintf(k->a, "%" PRId64, a) : NULL;
  k->res->cells[1] = b >= 0 ? fl_arena_sprintf(k->a, "%" PRId64, b) : NULL;
  k->res->nrows = 1;
}

static int wrap(call_t *k, int rc) { return rc ? sql__errp_wrap(k->err, k->st->pos, rc) : FL_OK; }

/* Whether the call names its table Spark's way: a 'table' argument. */
static bool spark_form(const sql_call_t *c, size_t trino_min) {
  for (size_t i = 0; c->arg_names && i < c->args.n; i++)
    if (c->arg_names[i].name && !strcmp(c->arg_names[i].name, "table")) return true;
  if (c->arg_names && c->args.n && c->arg_names[0].name) return false;
  return c->args.n < trino_min;
}

static int rollback(call_t *k) {
  ice_table_t *t;
  const sql_expr_t *v[3] = {0};
  int64_t id;
  int rc;
  if (spark_form(k->c, 3)) {
    static const char *const p[] = {"table", "snapshot_id"};
    if ((rc = sql__bind_args(k->c, k->st->pos, p, 2, v, NULL, k->err))) return rc;
    if (!v[0]) return missing(k, "table");
    if (!v[1]) return missing(k, "snapshot_id");
    if ((rc = snapshot_id(k, v[1], "snapshot_id", &id)) || (rc = open_dotted(k, v[0], &t)))
      return rc;
    int64_t prev = t->meta->current_snapshot_id;
    if ((rc = wrap(k, ice_rollback_to_snapshot(t, id, k->err)))) return rc;
    snapshot_pair(k, "previous_snapshot_id", prev, t->meta->current_snapshot_id);
    return FL_OK;
  }
  static const char *const p[] = {"schema_name", "table_name", "snapshot_id"};
  if ((rc = sql__bind_args(k->c, k->st->pos, p, 3, v, NULL, k->err))) return rc;
  for (int i = 0; i < 3; i++)
    if (!v[i]) return missing(k, p[i]);
  const char *ns, *name;
  if ((rc = sql__arg_string(v[0], p[0], k->a, &ns, k->err)) ||
      (rc = sql__arg_string(v[1], p[1], k->a, &name, k->err)) ||
      (rc = snapshot_id(k, v[2], p[2], &id)) || (rc = open_named(k, ns, name, v[0]->pos, &t)))
    return rc;
  return wrap(k, ice_rollback_to_snapshot(t, id, k->err));
}

static int rollback_to_timestamp(call_t *k) {
  static const char *const p[] = {"table", "timestamp"};
  const sql_expr_t *v[2] = {0};
  int rc = sql__bind_args(k->c, k->st->pos, p, 2, v, NULL, k->err);
  if (rc) return rc;
  if (!v[0]) return missing(k, "table");
  if (!v[1]) return missing(k, "timestamp");
  ice_table_t *t;
  int64_t ms;
  if ((rc = time_arg(k, v[1], "timestamp", &ms)) || (rc = open_dotted(k, v[0], &t))) return rc;
  int64_t prev = t->meta->current_snapshot_id;
  if ((rc = wrap(k, ice_rollback_to_time(t, ms, k->err)))) return rc;
  snapshot_pair(k, "previous_snapshot_id", prev, t->meta->current_snapshot_id);
  return FL_OK;
}

static int set_current(call_t *k, bool cherry) {
  static const char *const p[] = {"table", "snapshot_id", "ref"};
  const sql_expr_t *v[3] = {0};
  int rc = sql__bind_args(k->c, k->st->pos, p, cherry ? 2 : 3, v, NULL, k->err);
  if (rc) return rc;
  if (!v[0]) return missing(k, "table");
  if (!cherry && !!v[1] == !!v[2])
    return sql__errp(k->err, k->st->pos, FL_EINVALID,
                     "Either snapshot_id or ref must be provided, not both");
  if (cherry && !v[1]) return missing(k, "snapshot_id");
  ice_table_t *t;
  if ((rc = open_dotted(k, v[0], &t))) return rc;
  int64_t id = -1;
  if (v[1] && (rc = snapshot_id(k, v[1], "snapshot_id", &id))) return rc;
  if (v[2]) {
    const char *ref;
    if ((rc = sql__arg_string(v[2], "ref", k->a, &ref, k->err))) return rc;
    const ice_ref_t *r = ice_meta_ref(t->meta, ref);
    if (!r) return sql__errp(k->err, v[2]->pos, FL_ENOTFOUND, "Ref does not exist: %s", ref);
    id = r->snapshot_id;
  }
  int64_t prev = t->meta->current_snapshot_id;
  if (cherry) {
    if ((rc = wrap(k, ice_cherry_pick(t, id, k->err)))) return rc;
    snapshot_pair(k, "source_snapshot_id", id, t->meta->current_snapshot_id);
  } else {
    if ((rc = wrap(k, ice_set_current_snapshot(t, id, k->err)))) return rc;
    snapshot_pair(k, "previous_snapshot_id", prev, t->meta->current_snapshot_id);
  }
  return FL_OK;
}

static int fast_forward(call_t *k) {
  static const char *const p[] = {"table", "branch", "to"};
  const sql_expr_t *v[3] = {0};
  int rc = sql__bind_args(k->c, k->st->pos, p, 3, v, NULL, k->err);
  if (rc) return rc;
  for (int i = 0; i < 3; i++)
    if (!v[i]) return missing(k, p[i]);
  const char *branch, *to;
  ice_table_t *t;
  if ((rc = sql__arg_string(v[1], "branch", k->a, &branch, k->err)) ||
      (rc = sql__arg_string(v[2], "to", k->a, &to, k->err)) || (rc = open_dotted(k, v[0], &t)))
    return rc;
  const ice_ref_t *r = ice_meta_ref(t->meta, branch);
  int64_t prev = r ? r->snapshot_id : -1;
  if ((rc = wrap(k, ice_fast_forward(t, branch, to, k->err)))) return rc;
  r = ice_meta_ref(t->meta, branch);
  static const char *const names[] = {"branch_updated", "previous_ref", "updated_ref"};
  static const char *const types[] = {"varchar", "bigint", "bigint"};
  sql__result_init(k->a, k->res, names, types, 3, 1);
  k->res->cells[0] = branch;
  k->res->cells[1] = prev >= 0 ? fl_arena_sprintf(k->a, "%" PRId64, prev) : NULL;
  k->res->cells[2] = r ? fl_arena_sprintf(k->a, "%" PRId64, r->snapshot_id) : NULL;
  k->res->nrows = 1;
  return FL_OK;
}

static int expire(call_t *k) {
  static const char *const p[] = {"table", "older_than", "retain_last"};
  const sql_expr_t *v[3] = {0};
  int rc = sql__bind_args(k->c, k->st->pos, p, 3, v, NULL, k->err);
  if (rc) return rc;
  if (!v[0]) return missing(k, "table");
  ice_expire_opts_t o = {.older_than_ms = -1, .retain_last = -1};
  if (v[1] && (rc = time_arg(k, v[1], "older_than", &o.older_than_ms))) return rc;
  if (v[2]) {
    int64_t n;
    if ((rc = sql__arg_int(v[2], "retain_last", &n, k->err))) return rc;
    if (n < 1 || n > INT32_MAX)
      return sql__errp(k->err, v[2]->pos, FL_EINVALID, "retain_last must be at least 1");
    o.retain_last = (int32_t)n;
  }
  ice_table_t *t;
  if ((rc = open_dotted(k, v[0], &t))) return rc;
  ice_expire_result_t r;
  if ((rc = wrap(k, ice_expire_snapshots(t, &o, &r, k->err)))) return rc;
  static const char *const names[] = {"deleted_data_files_count",
                                      "deleted_position_delete_files_count",
                                      "deleted_equality_delete_files_count",
                                      "deleted_manifest_files_count",
                                      "deleted_manifest_lists_count",
                                      "deleted_statistics_files_count"};
  static const char *const types[] = {"bigint", "bigint", "bigint", "bigint", "bigint", "bigint"};
  uint64_t vals[] = {r.data_files_deleted,      r.delete_files_deleted - r.eq_delete_files_deleted,
                     r.eq_delete_files_deleted, r.manifests_deleted,
                     r.manifest_lists_deleted,  r.statistics_files_deleted};
  sql__result_init(k->a, k->res, names, types, 6, 1);
  for (int i = 0; i < 6; i++)
    k->res->cells[i] = fl_arena_sprintf(k->a, "%llu", (unsigned long long)vals[i]);
  k->res->nrows = 1;
  return FL_OK;
}

typedef struct orphan_rows {
  fl_arena_t *a;
  const char **paths;
  size_t n, cap;
} orphan_rows_t;

static void collect_orphan(const char *path, void *arg) {
  orphan_rows_t *o = arg;
  if (o->n == o->cap) {
    o->cap = o->cap ? o->cap * 2 : 16;
    const char **bigger = fl_arena_alloc(o->a, o->cap * sizeof *bigger);
    if (o->n) memcpy(bigger, o->paths, o->n * sizeof *bigger);
    o->paths = bigger;
  }
  o->paths[o->n++] = fl_arena_strdup(o->a, path);
}

static int remove_orphans(call_t *k) {
  static const char *const p[] = {"table", "older_than", "dry_run"};
  const sql_expr_t *v[3] = {0};
  int rc = sql__bind_args(k->c, k->st->pos, p, 3, v, NULL, k->err);
  if (rc) return rc;
  if (!v[0]) return missing(k, "table");
  int64_t now = fl_now_micros() / 1000, older;
  older = now - 3LL * 86400000; /* Spark's default: three days */
  if (v[1]) {
    if ((rc = time_arg(k, v[1], "older_than", &older))) return rc;
    if (older > now - 86400000LL)
      return sql__errp(k->err, v[1]->pos, FL_EINVALID,
                       "Cannot remove orphan files with an interval less than 24 hours. Executing "
                       "this procedure with a short interval may corrupt the table if other "
                       "operations are happening at the same time");
  }
  bool dry = false;
  if (v[2]) {
    if (v[2]->kind != SQL_E_BOOL)
      return sql__errp(k->err, v[2]->pos, FL_EINVALID, "Argument 'dry_run' must be a boolean");
    dry = v[2]->u.b;
  }
  ice_table_t *t;
  if ((rc = open_dotted(k, v[0], &t))) return rc;
  orphan_rows_t rows = {.a = k->a};
  ice_orphan_result_t r;
  if ((rc = wrap(k, ice_remove_orphans(t, older, dry, collect_orphan, &rows, &r, k->err))))
    return rc;
  static const char *const names[] = {"orphan_file_location"};
  static const char *const types[] = {"varchar"};
  sql__result_init(k->a, k->res, names, types, 1, rows.n);
  for (size_t i = 0; i < rows.n; i++) k->res->cells[i] = rows.paths[i];
  k->res->nrows = rows.n;
  return FL_OK;
}

/* The newest metadata file under location/metadata (highest version). */
static int latest_metadata(call_t *k, const char *location, sql_pos_t pos, const char **out) {
  io_fs_t *fs = io_local_fs();
  io_entry_t *es = NULL;
  size_t n = 0;
  const char *dir = fl_arena_sprintf(k->a, "%s/metadata", location);
  if (!strncmp(dir, "file://", 7)) dir += 7;
  int rc = fs->list(fs, dir, &es, &n, k->err);
  if (rc) return sql__errp_wrap(k->err, pos, rc);
  const char *best = NULL;
  long best_v = -1;
  for (size_t i = 0; i < n; i++) {
    const char *p = es[i].path;
    size_t len = strlen(p);
    if (es[i].is_dir || len < 14 || strcmp(p + len - 14, ".metadata.json") != 0) continue;
    const char *base = strrchr(p, '/');
    base = base ? base + 1 : p;
    /* NNNNN-uuid.metadata.json or vN.metadata.json */
    long v = strtol(base + (base[0] == 'v'), NULL, 10);
    if (v > best_v) {
      best_v = v;
      best = fl_arena_strdup(k->a, p);
    }
  }
  io_entries_free(es, n);
  if (!best) return sql__errp(k->err, pos, FL_ENOTFOUND, "No metadata file found under %s", dir);
  *out = best;
  return FL_OK;
}

static int register_table(call_t *k) {
  const sql_expr_t *v[4] = {0};
  int rc;
  const char *ns, *name, *metadata;
  if (spark_form(k->c, 3)) {
    static const char *const p[] = {"table", "metadata_file"};
    if ((rc = sql__bind_args(k->c, k->st->pos, p, 2, v, NULL, k->err))) return rc;
    if (!v[0]) return missing(k, "table");
    if (!v[1]) return missing(k, "metadata_file");
    const char *text;
    if ((rc = sql__arg_string(v[0], "table", k->a, &text, k->err)) ||
        (rc = sql__arg_string(v[1], "metadata_file", k->a, &metadata, k->err)))
      return rc;
    char *copy = fl_arena_strdup(k->a, text), *dot = strrchr(copy, '.');
    if (dot) {
      *dot = 0;
      char *nsdot = strrchr(copy, '.');
      ns = nsdot ? nsdot + 1 : copy;
      name = dot + 1;
    } else {
      ns = k->s->default_ns ? k->s->default_ns : "default";
      name = copy;
    }
  } else {
    static const char *const p[] = {"schema_name", "table_name", "table_location",
                                    "metadata_file_name"};
    if ((rc = sql__bind_args(k->c, k->st->pos, p, 4, v, NULL, k->err))) return rc;
    for (int i = 0; i < 3; i++)
      if (!v[i]) return missing(k, p[i]);
    const char *location, *file = NULL;
    if ((rc = sql__arg_string(v[0], p[0], k->a, &ns, k->err)) ||
        (rc = sql__arg_string(v[1], p[1], k->a, &name, k->err)) ||
        (rc = sql__arg_string(v[2], p[2], k->a, &location, k->err)) ||
        (v[3] && (rc = sql__arg_string(v[3], p[3], k->a, &file, k->err))))
      return rc;
    if (file && strchr(file, '/'))
      return sql__errp(k->err, v[3]->pos, FL_EINVALID, "Invalid metadata file name: %s", file);
    if (file)
      metadata = fl_arena_sprintf(k->a, "%s/metadata/%s", location, file);
    else if ((rc = latest_metadata(k, location, v[2]->pos, &metadata)))
      return rc;
  }
  rc = cat_register_table(k->s->catalog, io_local_fs(), ns, name, metadata, k->err);
  if (rc == FL_EEXISTS)
    return sql__errp(k->err, k->st->pos, rc, "Table '%s.%s' already exists", ns, name);
  if (rc == FL_ENOTFOUND) {
    bool exists = true;
    fl_err_t e2;
    if (cat_ns_exists(k->s->catalog, ns, &exists, &e2) == FL_OK && !exists)
      return sql__errp(k->err, k->st->pos, rc, "Schema '%s' does not exist", ns);
  }
  return wrap(k, rc);
}

static int unregister_table(call_t *k) {
  static const char *const p[] = {"schema_name", "table_name"};
  const sql_expr_t *v[2] = {0};
  int rc = sql__bind_args(k->c, k->st->pos, p, 2, v, NULL, k->err);
  if (rc) return rc;
  for (int i = 0; i < 2; i++)
    if (!v[i]) return missing(k, p[i]);
  const char *ns, *name;
  if ((rc = sql__arg_string(v[0], p[0], k->a, &ns, k->err)) ||
      (rc = sql__arg_string(v[1], p[1], k->a, &name, k->err)))
    return rc;
  rc = cat_table_drop(k->s->catalog, ns, name, k->err);
  if (rc == FL_ENOTFOUND)
    return sql__errp(k->err, v[0]->pos, rc, "Table '%s.%s' not found", ns, name);
  return wrap(k, rc);
}

int sql__exec_call(sql_session_t *s, fl_arena_t *a, const sql_stmt_t *st, sql_result_t *res,
                   fl_err_t *err) {
  const sql_call_t *c = st->u.call;
  const sql_qname_t *q = &c->name;
  call_t k = {s, a, st, c, q->parts[q->n - 1].name, res, err};
  if (!s->catalog) return sql__errp(err, st->pos, FL_EUNSUPPORTED, "no catalog");
  if (q->n < 2 || q->n > 3 || strcmp(q->parts[q->n - 2].name, "system") != 0)
    return sql__errp(err, q->parts[0].pos, FL_ENOTFOUND, "Procedure not registered: %s",
                     q->parts[q->n - 1].name);
  static const struct {
    const char *name;
    int (*fn)(call_t *);
  } procs[] = {
      {"rollback_to_snapshot", rollback},      {"rollback_to_timestamp", rollback_to_timestamp},
      {"fast_forward", fast_forward},          {"expire_snapshots", expire},
      {"remove_orphan_files", remove_orphans}, {"register_table", register_table},
      {"unregister_table", unregister_table},
  };
  if (!strcmp(k.name, "set_current_snapshot")) return set_current(&k, false);
  if (!strcmp(k.name, "cherrypick_snapshot")) return set_current(&k, true);
  for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++)
    if (!strcmp(procs[i].name, k.name)) return procs[i].fn(&k);
  return sql__errp(err, q->parts[0].pos, FL_ENOTFOUND, "Procedure not registered: system.%s",
                   k.name);
}
