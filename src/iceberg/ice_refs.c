/*
 * ice_refs.c - snapshot management: rollback, set-current, cherry-pick,
 * branches and tags, fast-forward (layer 5, iceberg).
 *
 * Each operation is one metadata commit through ice_commit_meta_edit; the
 * edit functions re-check their preconditions on whatever metadata they
 * are given, so a retry after a lost race fails cleanly when another
 * writer moved things underneath. Error texts follow the reference
 * implementation's ManageSnapshots messages.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/time.h"
#include "iceberg/ice_commit.h"
#include "iceberg/ice_maint.h"

static int64_t now_ms(void) { return fl_now_micros() / 1000; }

static int64_t main_head(const ice_meta_t *m) {
  const ice_ref_t *r = ice_meta_ref(m, "main");
  return r ? r->snapshot_id : m->current_snapshot_id;
}

/* Points main at id, keeping main's retention settings. */
static int set_main(ice_meta_t *m, int64_t id, fl_err_t *err) {
  const ice_ref_t *old = ice_meta_ref(m, "main");
  ice_ref_t r = {.name = "main",
                 .snapshot_id = id,
                 .is_tag = false,
                 .max_ref_age_ms = old ? old->max_ref_age_ms : -1,
                 .max_snapshot_age_ms = old ? old->max_snapshot_age_ms : -1,
                 .min_snapshots_to_keep = old ? old->min_snapshots_to_keep : -1};
  return ice_meta_set_ref(m, &r, now_ms(), err);
}

/* ---- rollback and set-current ---- */

typedef struct set_arg {
  int64_t id;
  bool require_ancestor;
} set_arg_t;

static int set_edit(ice_meta_t *m, void *arg, fl_err_t *err) {
  set_arg_t *a = arg;
  if (!ice_meta_snapshot(m, a->id))
    return fl_err_set(err, FL_ENOTFOUND, "Cannot roll back to unknown snapshot id: %" PRId64,
                      a->id);
  if (a->require_ancestor && !ice_is_ancestor(m, main_head(m), a->id))
    return fl_err_set(err, FL_EINVALID,
                      "Cannot roll back to snapshot, not an ancestor of the current state: %" PRId64,
                      a->id);
  return set_main(m, a->id, err);
}

static int set_main_commit(ice_table_t *t, int64_t id, bool require_ancestor, fl_err_t *err) {
  set_arg_t a = {id, require_ancestor};
  if (main_head(t->meta) == id && ice_meta_snapshot(t->meta, id)) return FL_OK; /* no change */
  return ice_commit_meta_edit(t, set_edit, &a, err);
}

int ice_rollback_to_snapshot(ice_table_t *t, int64_t snapshot_id, fl_err_t *err) {
  return set_main_commit(t, snapshot_id, true, err);
}

int ice_set_current_snapshot(ice_table_t *t, int64_t snapshot_id, fl_err_t *err) {
  return set_main_commit(t, snapshot_id, false, err);
}

typedef struct older_than {
  int64_t ts, best_ts, best_id;
} older_than_t;

static bool older_than_fn(const ice_snapshot_t *s, void *arg) {
  older_than_t *o = arg;
  if (s->timestamp_ms < o->ts && s->timestamp_ms > o->best_ts) {
    o->best_ts = s->timestamp_ms;
    o->best_id = s->snapshot_id;
  }
  return true;
}

int ice_rollback_to_time(ice_table_t *t, int64_t ts_ms, fl_err_t *err) {
  /* The latest ancestor of main strictly older than ts (Java's
   * findLatestAncestorOlderThan). */
  older_than_t o = {ts_ms, INT64_MIN, -1};
  ice_table_ancestors(t->meta, main_head(t->meta), older_than_fn, &o);
  if (o.best_id < 0)
    return fl_err_set(err, FL_ENOTFOUND, "Cannot roll back, no valid snapshot older than: %" PRId64,
                      ts_ms);
  return set_main_commit(t, o.best_id, true, err);
}

/* ---- cherry-pick ---- */

typedef struct picked {
  int64_t id;
  const char *wap_id;
  int64_t found_in; /* ancestor that already carries the pick, -1 none */
} picked_t;

static bool picked_fn(const ice_snapshot_t *s, void *arg) {
  picked_t *p = arg;
  const char *src = ice_snapshot_summary(s, "source-snapshot-id");
  if (src && strtoll(src, NULL, 10) == p->id) {
    p->found_in = s->snapshot_id;
    return false;
  }
  const char *pub = ice_snapshot_summary(s, "published-wap-id");
  if (p->wap_id && pub && strcmp(pub, p->wap_id) == 0) {
    p->found_in = s->snapshot_id;
    return false;
  }
  return true;
}

/* Java's validateNonAncestor / validateWapPublish on metadata m. */
static int check_pickable(const ice_meta_t *m, const ice_snapshot_t *s, fl_err_t *err) {
  int64_t head = main_head(m);
  if (ice_is_ancestor(m, head, s->snapshot_id))
    return fl_err_set(err, FL_EINVALID, "Cannot cherry-pick snapshot %" PRId64 ": already an ancestor",
                      s->snapshot_id);
  picked_t p = {s->snapshot_id, ice_snapshot_summary(s, "wap.id"), -1};
  ice_table_ancestors(m, head, picked_fn, &p);
  if (p.found_in >= 0) {
    if (p.wap_id && ice_snapshot_summary(ice_meta_snapshot(m, p.found_in), "published-wap-id"))
      return fl_err_set(err, FL_EINVALID,
                        "Duplicate request to cherry pick wap id that was published already: %s",
                        p.wap_id);
    return fl_err_set(err, FL_EINVALID,
                      "Cannot cherry-pick snapshot %" PRId64 ": already picked to create ancestor %" PRId64,
                      s->snapshot_id, p.found_in);
  }
  return FL_OK;
}

static bool is_fast_forward(const ice_meta_t *m, const ice_snapshot_t *s) {
  int64_t head = main_head(m);
  return head >= 0 ? s->parent_id == head : s->parent_id < 0;
}

typedef struct ff_pick {
  int64_t id;
} ff_pick_t;

static int ff_pick_edit(ice_meta_t *m, void *arg, fl_err_t *err) {
  ff_pick_t *a = arg;
  const ice_snapshot_t *s = ice_meta_snapshot(m, a->id);
  if (!s)
    return fl_err_set(err, FL_ENOTFOUND, "Cannot cherry-pick unknown snapshot ID: %" PRId64, a->id);
  int rc = check_pickable(m, s, err);
  if (rc) return rc;
  if (!is_fast_forward(m, s))
    return fl_err_set(err, FL_ECONFLICT,
                      "Cannot cherry-pick snapshot %" PRId64 ": main moved and it is no longer a fast-forward",
                      a->id);
  return set_main(m, a->id, err);
}

int ice_cherry_pick(ice_table_t *t, int64_t snapshot_id, fl_err_t *err) {
  const ice_meta_t *m = t->meta;
  const ice_snapshot_t *s = ice_meta_snapshot(m, snapshot_id);
  if (!s)
    return fl_err_set(err, FL_ENOTFOUND, "Cannot cherry-pick unknown snapshot ID: %" PRId64,
                      snapshot_id);
  int rc = check_pickable(m, s, err);
  if (rc) return rc;
  if (is_fast_forward(m, s)) {
    ff_pick_t a = {snapshot_id};
    return ice_commit_meta_edit(t, ff_pick_edit, &a, err);
  }
  const char *op = ice_snapshot_operation(s);
  if (strcmp(op, "append") != 0) {
    const char *rp = ice_snapshot_summary(s, "replace-partitions");
    if (strcmp(op, "overwrite") == 0 && rp && strcmp(rp, "true") == 0)
      return fl_err_set(err, FL_EUNSUPPORTED,
                        "Cannot cherry-pick snapshot %" PRId64
                        ": dynamic overwrites can only be picked as a fast-forward here",
                        snapshot_id);
    return fl_err_set(err, FL_EINVALID,
                      "Cannot cherry-pick snapshot %" PRId64 ": not append, dynamic overwrite, or fast-forward",
                      snapshot_id);
  }

  /* The data files the snapshot added: ADDED entries of its own manifests. */
  fl_arena_t *a = fl_arena_new(0);
  ice_manifest_file_t *mfs = NULL;
  size_t nmf = 0;
  rc = ice_snapshot_manifests(t, a, s, &mfs, &nmf, err);
  if (rc) goto out;
  size_t cap = 16, nadd = 0;
  ice_data_file_t *add = fl_arena_alloc(a, cap * sizeof *add);
  for (size_t i = 0; i < nmf; i++) {
    if (mfs[i].added_snapshot_id != snapshot_id || mfs[i].content != 0) continue;
    ice_manifest_file_t mf = mfs[i];
    mf.path = ice_table_path(t, a, mf.path);
    ice_manifest_entry_t *es = NULL;
    size_t ne = 0;
    rc = ice_manifest_read(t->fs, a, &mf, NULL, &es, &ne, err);
    if (rc) goto out;
    for (size_t j = 0; j < ne; j++) {
      if (es[j].status != ICE_STATUS_ADDED || es[j].snapshot_id != snapshot_id ||
          es[j].file.content != ICE_CONTENT_DATA)
        continue;
      if (nadd == cap) {
        ice_data_file_t *grown = fl_arena_alloc(a, cap * 2 * sizeof *grown);
        memcpy(grown, add, cap * sizeof *add);
        add = grown;
        cap *= 2;
      }
      add[nadd++] = es[j].file;
    }
  }
  if (nadd > UINT32_MAX) {
    rc = fl_err_set(err, FL_ELIMIT, "cherry-pick of %zu files", nadd);
    goto out;
  }
  ice_kv_t summary[2];
  uint32_t nsum = 0;
  summary[nsum++] = (ice_kv_t){"source-snapshot-id",
                               fl_arena_sprintf(a, "%" PRId64, snapshot_id)};
  const char *wap = ice_snapshot_summary(s, "wap.id");
  if (wap) summary[nsum++] = (ice_kv_t){"published-wap-id", wap};
  ice_change_t c = {.kind = ICE_CHANGE_APPEND,
                    .branch = NULL,
                    .add = add,
                    .nadd = (uint32_t)nadd,
                    .base_snapshot_id = -1,
                    .summary = summary,
                    .nsummary = nsum};
  ice_commit_result_t res;
  rc = ice_commit(t, &c, &res, err);
out:
  fl_arena_free(a);
  return rc;
}

/* ---- branches and tags ---- */

typedef struct ref_arg {
  const ice_ref_t *r; /* snapshot_id -1: main's head; retention -1: kept / unset */
  bool replace, must_exist;
} ref_arg_t;

static int ref_edit(ice_meta_t *m, void *arg, fl_err_t *err) {
  ref_arg_t *a = arg;
  const ice_ref_t *want = a->r;
  const char *kind = want->is_tag ? "tag" : "branch";
  int64_t id = want->snapshot_id >= 0 ? want->snapshot_id : main_head(m);
  const ice_ref_t *old = ice_meta_ref(m, want->name);
  if (!old && a->must_exist)
    return fl_err_set(err, FL_ENOTFOUND, "%s does not exist: %s",
                      want->is_tag ? "Tag" : "Branch", want->name);
  if (id < 0)
    return fl_err_set(err, FL_EINVALID, "Cannot create %s %s: the table has no snapshot", kind,
                      want->name);
  if (!ice_meta_snapshot(m, id))
    return fl_err_set(err, FL_ENOTFOUND, "Cannot set %s to unknown snapshot: %" PRId64, want->name,
                      id);
  if (old && !a->replace) return fl_err_set(err, FL_EEXISTS, "Ref %s already exists", want->name);
  if (old && old->is_tag != want->is_tag)
    return fl_err_set(err, FL_EINVALID, "Ref %s is a %s not a %s", want->name,
                      old->is_tag ? "tag" : "branch", kind);
  ice_ref_t r = {.name = want->name,
                 .snapshot_id = id,
                 .is_tag = want->is_tag,
                 .max_ref_age_ms = want->max_ref_age_ms >= 0 ? want->max_ref_age_ms
                                   : old                     ? old->max_ref_age_ms
                                                             : -1,
                 .max_snapshot_age_ms = want->max_snapshot_age_ms >= 0 ? want->max_snapshot_age_ms
                                        : old                          ? old->max_snapshot_age_ms
                                                                       : -1,
                 .min_snapshots_to_keep = want->min_snapshots_to_keep >= 0
                                              ? want->min_snapshots_to_keep
                                          : old ? old->min_snapshots_to_keep
                                                : -1};
  if (r.is_tag) r.max_snapshot_age_ms = r.min_snapshots_to_keep = -1;
  return ice_meta_set_ref(m, &r, now_ms(), err);
}

int ice_set_ref(ice_table_t *t, const ice_ref_t *r, bool replace, bool must_exist,
                fl_err_t *err) {
  if (!r->name || !r->name[0]) return fl_err_set(err, FL_EINVALID, "a ref needs a name");
  if (r->is_tag && strcmp(r->name, "main") == 0 && !ice_meta_ref(t->meta, "main"))
    return fl_err_set(err, FL_EINVALID, "main is a branch, not a tag");
  ref_arg_t a = {r, replace || must_exist, must_exist};
  return ice_commit_meta_edit(t, ref_edit, &a, err);
}

static int create_ref(ice_table_t *t, const char *name, int64_t id, bool is_tag, bool replace,
                      fl_err_t *err) {
  ice_ref_t r = {.name = name,
                 .snapshot_id = id,
                 .is_tag = is_tag,
                 .max_ref_age_ms = -1,
                 .max_snapshot_age_ms = -1,
                 .min_snapshots_to_keep = -1};
  return ice_set_ref(t, &r, replace, false, err);
}

int ice_create_branch(ice_table_t *t, const char *name, int64_t snapshot_id, bool replace,
                      fl_err_t *err) {
  return create_ref(t, name, snapshot_id, false, replace, err);
}

int ice_create_tag(ice_table_t *t, const char *name, int64_t snapshot_id, bool replace,
                   fl_err_t *err) {
  return create_ref(t, name, snapshot_id, true, replace, err);
}

static int drop_edit(ice_meta_t *m, void *arg, fl_err_t *err) {
  const char *name = arg;
  if (!ice_meta_ref(m, name)) return fl_err_set(err, FL_ENOTFOUND, "Ref does not exist: %s", name);
  return ice_meta_remove_ref(m, name, err);
}

int ice_drop_ref(ice_table_t *t, const char *name, fl_err_t *err) {
  if (!name || strcmp(name, "main") == 0)
    return fl_err_set(err, FL_EINVALID, "Cannot remove main branch");
  if (!ice_meta_ref(t->meta, name)) return fl_err_set(err, FL_ENOTFOUND, "Ref does not exist: %s", name);
  return ice_commit_meta_edit(t, drop_edit, (void *)name, err);
}

typedef struct ff_arg {
  const char *name, *to;
} ff_arg_t;

static int ff_edit(ice_meta_t *m, void *arg, fl_err_t *err) {
  ff_arg_t *a = arg;
  const ice_ref_t *from = ice_meta_ref(m, a->name);
  const ice_ref_t *to = ice_meta_ref(m, a->to);
  if (!from) return fl_err_set(err, FL_ENOTFOUND, "Branch to update does not exist: %s", a->name);
  if (!to) return fl_err_set(err, FL_ENOTFOUND, "Ref does not exist: %s", a->to);
  if (from->is_tag) return fl_err_set(err, FL_EINVALID, "Ref %s is a tag not a branch", a->name);
  if (!ice_is_ancestor(m, to->snapshot_id, from->snapshot_id))
    return fl_err_set(err, FL_EINVALID, "Cannot fast-forward: %s is not an ancestor of %s", a->name,
                      a->to);
  ice_ref_t r = *from;
  r.name = a->name;
  r.snapshot_id = to->snapshot_id;
  return ice_meta_set_ref(m, &r, now_ms(), err);
}

int ice_fast_forward(ice_table_t *t, const char *name, const char *to, fl_err_t *err) {
  ff_arg_t a = {name, to};
  return ice_commit_meta_edit(t, ff_edit, &a, err);
}
