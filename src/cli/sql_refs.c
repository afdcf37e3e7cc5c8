/*
 * sql_refs.c - branches and tags in `floe sql` (layer 12, cli): Spark's
 * ALTER TABLE t CREATE [OR REPLACE] | REPLACE BRANCH | TAG name
 * [AS OF VERSION n] [RETAIN n unit] [WITH SNAPSHOT RETENTION [n SNAPSHOTS]
 * [n unit]] and DROP BRANCH | TAG [IF EXISTS] name (Trino has none), over
 * ice_set_ref and ice_drop_ref; each is one metadata commit. Without AS OF
 * VERSION a ref points at main's head; a replace keeps the retention it
 * does not restate.
 */
#include <stdint.h>
#include <string.h>

#include "cli/sql_ddl_int.h"
#include "iceberg/ice_maint.h"

/* ---- branches and tags ---- */

static int64_t unit_ms(sql_retain_unit_t u) {
  return u == SQL_RETAIN_DAYS ? 86400000LL : u == SQL_RETAIN_HOURS ? 3600000LL : 60000LL;
}

int sql__alter_create_ref(ice_table_t *t, const sql_alter_t *al, fl_err_t *err) {
  const char *name = al->ref_name.name;
  ice_ref_t r = {.name = name,
                 .snapshot_id = -1,
                 .is_tag = al->ref == SQL_REF_TAG,
                 .max_ref_age_ms = -1,
                 .max_snapshot_age_ms = -1,
                 .min_snapshots_to_keep = -1};
  if (al->as_of_version) {
    const sql_expr_t *v = al->as_of_version;
    if (v->kind != SQL_E_INT || v->u.i.value < 0)
      return sql__errp(err, v->pos, FL_EINVALID, "AS OF VERSION takes a snapshot id");
    r.snapshot_id = v->u.i.value;
  }
  if (al->has_retain) {
    if (al->retain < 1)
      return sql__errp(err, al->pos, FL_EINVALID, "RETAIN needs a positive number");
    r.max_ref_age_ms = al->retain * unit_ms(al->retain_unit);
  }
  if (al->has_min_snapshots) {
    if (al->min_snapshots < 1 || al->min_snapshots > INT32_MAX)
      return sql__errp(err, al->pos, FL_EINVALID, "Min snapshots to keep must be at least 1");
    r.min_snapshots_to_keep = (int32_t)al->min_snapshots;
  }
  if (al->has_snapshot_age) {
    if (al->snapshot_age < 1)
      return sql__errp(err, al->pos, FL_EINVALID, "Max snapshot age must be positive");
    r.max_snapshot_age_ms = al->snapshot_age * unit_ms(al->snapshot_age_unit);
  }
  if (r.is_tag && !strcmp(name, "main"))
    return sql__errp(err, al->ref_name.pos, FL_EINVALID, "main is a branch, not a tag");
  const ice_ref_t *old = ice_meta_ref(t->meta, name);
  if (old && al->if_not_exists) return FL_OK;
  if (old && !al->or_replace && !al->replace_only)
    return sql__errp(err, al->ref_name.pos, FL_EEXISTS, "Ref %s already exists", name);
  if (!old && al->replace_only)
    return sql__errp(err, al->ref_name.pos, FL_ENOTFOUND, "%s does not exist: %s",
                     al->ref == SQL_REF_TAG ? "Tag" : "Branch", name);
  int rc = ice_set_ref(t, &r, al->or_replace, al->replace_only, err);
  return rc ? sql__errp_wrap(err, al->pos, rc) : FL_OK;
}

int sql__alter_drop_ref(ice_table_t *t, const sql_alter_t *al, fl_err_t *err) {
  const char *name = al->ref_name.name;
  const ice_ref_t *old = ice_meta_ref(t->meta, name);
  bool tag = al->ref == SQL_REF_TAG;
  if (!old || old->is_tag != tag) {
    if (!old && al->if_exists) return FL_OK;
    if (old)
      return sql__errp(err, al->ref_name.pos, FL_EINVALID, "Ref %s is a %s not a %s", name,
                       old->is_tag ? "tag" : "branch", tag ? "tag" : "branch");
    return sql__errp(err, al->ref_name.pos, FL_ENOTFOUND, "%s does not exist: %s",
                     tag ? "Tag" : "Branch", name);
  }
  int rc = ice_drop_ref(t, name, err);
  return rc ? sql__errp_wrap(err, al->pos, rc) : FL_OK;
}
