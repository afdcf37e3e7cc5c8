/*
 * ice_expire.c - snapshot expiry and the deletion of the files only the
 * expired snapshots reached (layer 5, iceberg).
 *
 * Which snapshots stay follows the reference implementation's
 * RemoveSnapshots:
 *   1. Refs: main always stays. Any other ref stays while its head is at
 *      most max-ref-age-ms old (the ref's own setting, else the table's
 *      history.expire.max-ref-age-ms, else forever); a ref whose snapshot
 *      is gone is dropped.
 *   2. Every kept ref keeps its head.
 *   3. A kept branch keeps the ancestors of its head while fewer than
 *      min-snapshots-to-keep are kept or the ancestor is not older than
 *      the branch's cut-off. The branch's own min-snapshots-to-keep and
 *      max-snapshot-age-ms win; otherwise the caller's retain_last /
 *      older_than; otherwise history.expire.min-snapshots-to-keep (1) and
 *      now - history.expire.max-snapshot-age-ms (5 days).
 *   4. Snapshots in no kept ref's history (neither a branch ancestor nor
 *      a tag head) stay while they are not older than the default cut-off.
 * Everything else is removed in one metadata commit (ice_commit_meta_edit;
 * the plan is recomputed on the new head after a lost race).
 *
 * Then the files (ReachableFileCleanup): the manifest lists and manifests
 * of the removed snapshots that no kept snapshot lists are candidates, as
 * are the live files of those manifests; the live entries of every kept
 * manifest are subtracted, and what remains is deleted - files first,
 * then manifests, then manifest lists, so a crash midway leaves nothing
 * dangling that a later run could not find again. Reading a kept
 * snapshot's manifests must succeed (else nothing is deleted); an expired
 * snapshot's unreadable list or manifest is skipped.
 *
 * Statistics files (Puffin) of removed snapshots go too, unless a kept
 * statistics entry names the same file.
 *
 * A table with gc.enabled=false may share files with other tables:
 * expiry refuses to run on it, as the reference implementation does.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "iceberg/ice_maint_int.h"

#define DEFAULT_MAX_SNAPSHOT_AGE_MS 432000000LL /* 5 days */
#define DEFAULT_MIN_SNAPSHOTS 1

typedef struct id_index {
  int64_t id;
  uint32_t idx;
} id_index_t;

static int cmp_id_index(const void *x, const void *y) {
  int64_t a = ((const id_index_t *)x)->id, b = ((const id_index_t *)y)->id;
  return a < b ? -1 : a > b;
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return a < b ? -1 : a > b;
}

/* The plan of one expiry on one version of the metadata. */
typedef struct plan {
  fl_arena_t *a; /* the whole expiry */
  int64_t now_ms;
  const ice_expire_opts_t *o;
  /* Filled by make_plan: */
  id_index_t *ids; /* sorted, for lookups */
  bool *keep;      /* per snapshot index */
  int64_t *remove_ids;
  uint32_t nremove;
  const char **remove_refs;
  uint32_t nremove_refs;
  ice_snapshot_t *expired; /* copies of the removed snapshots */
  const char **stats;      /* statistics files of the removed snapshots */
  uint32_t nstats;
} plan_t;

static int64_t index_of(const plan_t *p, uint32_t n, int64_t id) {
  id_index_t key = {id, 0};
  const id_index_t *f = bsearch(&key, p->ids, n, sizeof *p->ids, cmp_id_index);
  return f ? (int64_t)f->idx : -1;
}

static int64_t prop_int(const ice_meta_t *m, const char *key, int64_t dflt, fl_err_t *err,
                        int *rc) {
  const char *v = ice_meta_property(m, key);
  if (!v) return dflt;
  char *end;
  long long x = strtoll(v, &end, 10);
  if (end == v || *end || x < 0) {
    *rc = fl_err_set(err, FL_EINVALID, "table property %s: '%s' is not a non-negative integer",
                     key, v);
    return dflt;
  }
  return x;
}

static ice_snapshot_t copy_snapshot(fl_arena_t *a, const ice_snapshot_t *s) {
  ice_snapshot_t c = *s;
  c.manifest_list = s->manifest_list ? fl_arena_strdup(a, s->manifest_list) : NULL;
  c.manifests_v1 = NULL;
  if (s->nmanifests_v1) {
    c.manifests_v1 = fl_arena_alloc(a, s->nmanifests_v1 * sizeof *c.manifests_v1);
    for (uint32_t i = 0; i < s->nmanifests_v1; i++)
      c.manifests_v1[i] = fl_arena_strdup(a, s->manifests_v1[i]);
  }
  c.nsummary = 0; /* not needed for file cleanup */
  c.summary = NULL;
  c.json = NULL;
  return c;
}

/* Marks a branch's ancestors as kept (step 3) and, in referenced, every
 * ancestor (for step 4). */
static void keep_branch(plan_t *p, const ice_meta_t *m, int64_t head, int64_t older_than,
                        int64_t min_keep, bool *referenced) {
  int64_t kept = 0;
  bool keeping = true;
  int64_t id = head;
  for (uint32_t steps = 0; id >= 0 && steps <= m->nsnapshots; steps++) {
    int64_t i = index_of(p, m->nsnapshots, id);
    if (i < 0) break;
    const ice_snapshot_t *s = &m->snapshots[i];
    referenced[i] = true;
    if (keeping && (kept < min_keep || s->timestamp_ms >= older_than)) {
      p->keep[i] = true;
      kept++;
    } else {
      keeping = false;
    }
    id = s->parent_id;
  }
}

static int make_plan(plan_t *p, const ice_meta_t *m, fl_err_t *err) {
  int rc = FL_OK;
  const ice_expire_opts_t *o = p->o;
  int64_t max_age = prop_int(m, "history.expire.max-snapshot-age-ms", DEFAULT_MAX_SNAPSHOT_AGE_MS,
                             err, &rc);
  int64_t min_keep = prop_int(m, "history.expire.min-snapshots-to-keep", DEFAULT_MIN_SNAPSHOTS,
                              err, &rc);
  int64_t max_ref_age = prop_int(m, "history.expire.max-ref-age-ms", INT64_MAX, err, &rc);
  if (rc) return rc;
  int64_t older_than = o->older_than_ms >= 0 ? o->older_than_ms : p->now_ms - max_age;
  if (o->retain_last >= 0) min_keep = o->retain_last;

  uint32_t n = m->nsnapshots;
  p->nremove = p->nremove_refs = 0;
  p->ids = fl_arena_alloc(p->a, (n ? n : 1) * sizeof *p->ids);
  for (uint32_t i = 0; i < n; i++) p->ids[i] = (id_index_t){m->snapshots[i].snapshot_id, i};
  qsort(p->ids, n, sizeof *p->ids, cmp_id_index);
  p->keep = fl_arena_zalloc(p->a, (n ? n : 1) * sizeof *p->keep);
  bool *referenced = fl_arena_zalloc(p->a, (n ? n : 1) * sizeof *referenced);
  p->remove_refs = fl_arena_alloc(p->a, (m->nrefs ? m->nrefs : 1) * sizeof *p->remove_refs);

  /* Tables without refs (v1 metadata) still have main: the current snapshot. */
  if (!ice_meta_ref(m, "main") && m->current_snapshot_id >= 0 &&
      index_of(p, n, m->current_snapshot_id) >= 0)
    keep_branch(p, m, m->current_snapshot_id, older_than, min_keep, referenced);

  for (uint32_t r = 0; r < m->nrefs; r++) {
    const ice_ref_t *ref = &m->refs[r];
    int64_t i = index_of(p, n, ref->snapshot_id);
    bool is_main = strcmp(ref->name, "main") == 0;
    if (i < 0) {
      if (is_main) continue; /* a corrupt main: leave it to the metadata layer */
      p->remove_refs[p->nremove_refs++] = fl_arena_strdup(p->a, ref->name);
      continue;
    }
    if (!is_main) {
      int64_t ref_max_age = ref->max_ref_age_ms >= 0 ? ref->max_ref_age_ms : max_ref_age;
      int64_t age = p->now_ms - m->snapshots[i].timestamp_ms;
      if (age > ref_max_age) {
        p->remove_refs[p->nremove_refs++] = fl_arena_strdup(p->a, ref->name);
        continue;
      }
    }
    p->keep[i] = true;
    if (ref->is_tag) {
      referenced[i] = true;
      continue;
    }
    int64_t b_older = ref->max_snapshot_age_ms >= 0 ? p->now_ms - ref->max_snapshot_age_ms
                                                    : older_than;
    int64_t b_min = ref->min_snapshots_to_keep >= 0 ? ref->min_snapshots_to_keep : min_keep;
    keep_branch(p, m, ref->snapshot_id, b_older, b_min, referenced);
  }
  for (uint32_t i = 0; i < n; i++)
    if (!referenced[i] && m->snapshots[i].timestamp_ms >= older_than) p->keep[i] = true;

  p->remove_ids = fl_arena_alloc(p->a, (n ? n : 1) * sizeof *p->remove_ids);
  p->expired = fl_arena_alloc(p->a, (n ? n : 1) * sizeof *p->expired);
  for (uint32_t i = 0; i < n; i++) {
    if (p->keep[i]) continue;
    p->expired[p->nremove] = copy_snapshot(p->a, &m->snapshots[i]);
    p->remove_ids[p->nremove++] = m->snapshots[i].snapshot_id;
  }
  qsort(p->remove_ids, p->nremove, sizeof *p->remove_ids, cmp_i64);
  return FL_OK;
}

/* remove_ids is sorted by make_plan. */
static bool removed_id(const plan_t *p, int64_t id) {
  return p->nremove && bsearch(&id, p->remove_ids, p->nremove, sizeof id, cmp_i64);
}

/* The statistics and partition-statistics files of metadata m (kept as raw
 * JSON); with p, only those of snapshots the plan removes. */
static void each_stats_file(const ice_meta_t *m, const plan_t *p,
                            void (*fn)(const char *path, void *arg), void *arg) {
  if (!m->extra || !json_is_object(m->extra)) return;
  static const char *const keys[] = {"statistics", "partition-statistics"};
  for (size_t k = 0; k < 2; k++) {
    json_t *arr = json_object_get(m->extra, keys[k]);
    if (!json_is_array(arr)) continue;
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
      const char *path = json_string_value(json_object_get(e, "statistics-path"));
      json_t *sid = json_object_get(e, "snapshot-id");
      if (!path) continue;
      if (p && !(json_is_integer(sid) && removed_id(p, json_integer_value(sid)))) continue;
      fn(path, arg);
    }
  }
}

static void note_stats(const char *path, void *arg) {
  plan_t *p = arg;
  const char **bigger = fl_arena_alloc(p->a, (p->nstats + 1) * sizeof *bigger);
  if (p->nstats) memcpy(bigger, p->stats, p->nstats * sizeof *bigger);
  bigger[p->nstats++] = fl_arena_strdup(p->a, path);
  p->stats = bigger;
}

static int expire_edit(ice_meta_t *m, void *arg, fl_err_t *err) {
  plan_t *p = arg;
  int rc = make_plan(p, m, err);
  if (rc) return rc;
  p->nstats = 0;
  each_stats_file(m, p, note_stats, p);
  for (uint32_t i = 0; i < p->nremove_refs; i++) {
    rc = ice_meta_remove_ref(m, p->remove_refs[i], err);
    if (rc) return rc;
  }
  if (p->nremove) ice_meta_remove_snapshots(m, p->remove_ids, p->nremove);
  return FL_OK;
}

/* ---- file cleanup ---- */

typedef struct sweep {
  const ice_table_t *t;
  const ice_reach_t *kept;
  bool dry_run;
  bool check_files; /* kept.data_files / delete_files are filled */
  const fl_strset_t *eq; /* equality delete files among those swept */
  uint64_t count, eq_count;
  int rc;
  fl_err_t *err;
} sweep_t;

static void sweep_one(sweep_t *s, const char *path, const fl_strset_t *kept_set) {
  if (fl_strset_has_str(kept_set, path)) return;
  if (!s->dry_run) {
    fl_err_t e;
    int rc = s->t->fs->remove(s->t->fs, path, &e);
    if (rc) {
      /* Keep going (the reference implementation does too); report the first. */
      if (!s->rc) {
        s->rc = rc;
        *s->err = e;
      }
      return;
    }
  }
  s->count++;
  if (s->eq && fl_strset_has_str(s->eq, path)) s->eq_count++;
}

static void sweep_data(const char *path, void *arg) {
  sweep_t *s = arg;
  if (fl_strset_has_str(&s->kept->delete_files, path)) return;
  sweep_one(s, path, &s->kept->data_files);
}
static void sweep_deletes(const char *path, void *arg) {
  sweep_t *s = arg;
  if (fl_strset_has_str(&s->kept->data_files, path)) return;
  sweep_one(s, path, &s->kept->delete_files);
}
static void sweep_manifest(const char *path, void *arg) {
  sweep_t *s = arg;
  sweep_one(s, path, &s->kept->manifests);
}
static void sweep_list(const char *path, void *arg) {
  sweep_t *s = arg;
  sweep_one(s, path, &s->kept->lists);
}

typedef struct stats_ctx {
  const ice_table_t *t;
  fl_arena_t *a;
  fl_strset_t kept;
} stats_ctx_t;

static void keep_stats(const char *path, void *arg) {
  stats_ctx_t *sc = arg;
  fl_strset_add_str(&sc->kept, ice__norm_path(sc->t, sc->a, path));
}

/*
 * Deletes (or counts) the files the expired snapshots reached and no kept
 * snapshot of m does. Snapshots of m whose ids are in the plan's removal
 * list do not count as kept (a dry run plans on metadata it does not
 * change).
 */
static int clean_files(const ice_table_t *t, const ice_meta_t *m, const plan_t *p, bool dry_run,
                       ice_expire_result_t *res, fl_err_t *err) {
  fl_arena_t *a = fl_arena_new(0);
  ice_reach_t kept, gone;
  ice__reach_init(&kept, false, true);
  ice__reach_init(&gone, false, false);
  ice_manifest_file_t *kept_mfs = NULL, *gone_mfs = NULL;
  size_t nkept = 0, kept_cap = 0, ngone = 0, gone_cap = 0;
  int rc = FL_OK;

  for (uint32_t i = 0; i < m->nsnapshots && !rc; i++)
    if (!removed_id(p, m->snapshots[i].snapshot_id))
      rc = ice__reach_snapshot(t, a, &kept, &m->snapshots[i], &kept_mfs, &nkept, &kept_cap, err);
  if (rc) goto out;
  /* The manifests of expired snapshots that no kept snapshot lists. */
  for (uint32_t i = 0; i < p->nremove; i++) {
    ice_manifest_file_t *mfs = NULL;
    size_t n = 0, cap = 0;
    rc = ice__reach_snapshot(t, a, &gone, &p->expired[i], &mfs, &n, &cap, err);
    if (rc) goto out;
    for (size_t j = 0; j < n; j++) {
      if (fl_strset_has_str(&kept.manifests, ice__norm_path(t, a, mfs[j].path))) continue;
      if (ngone == gone_cap) {
        gone_cap = gone_cap ? gone_cap * 2 : 32;
        ice_manifest_file_t *bigger = fl_arena_alloc(a, gone_cap * sizeof *bigger);
        if (ngone) memcpy(bigger, gone_mfs, ngone * sizeof *bigger);
        gone_mfs = bigger;
      }
      gone_mfs[ngone++] = mfs[j];
    }
  }
  /* gone.manifests also holds the kept ones some expired snapshot listed;
   * rebuild it from the candidates alone. */
  fl_strset_free(&gone.manifests);
  fl_strset_init(&gone.manifests);
  for (size_t j = 0; j < ngone; j++)
    fl_strset_add_str(&gone.manifests, ice__norm_path(t, a, gone_mfs[j].path));

  rc = ice__reach_entries(t, &gone, gone_mfs, ngone, err);
  if (rc) goto out;
  if (gone.data_files.n || gone.delete_files.n) {
    rc = ice__reach_entries(t, &kept, kept_mfs, nkept, err);
    if (rc) goto out;
  }

  sweep_t s = {.t = t, .kept = &kept, .dry_run = dry_run, .err = err};
  ice__strset_each(&gone.data_files, sweep_data, &s);
  res->data_files_deleted += s.count;
  s.count = 0;
  s.eq = &gone.eq_deletes;
  ice__strset_each(&gone.delete_files, sweep_deletes, &s);
  res->delete_files_deleted += s.count;
  res->eq_delete_files_deleted += s.eq_count;
  s.eq = NULL;
  s.count = 0;
  ice__strset_each(&gone.manifests, sweep_manifest, &s);
  res->manifests_deleted += s.count;
  s.count = 0;
  ice__strset_each(&gone.lists, sweep_list, &s);
  res->manifest_lists_deleted += s.count;
  /* Statistics files of expired snapshots that no kept entry names. */
  if (!dry_run && p->nstats) {
    stats_ctx_t sc = {.t = t, .a = a};
    fl_strset_init(&sc.kept);
    each_stats_file(m, NULL, keep_stats, &sc);
    for (uint32_t i = 0; i < p->nstats; i++) {
      const char *path = ice__norm_path(t, a, p->stats[i]);
      if (fl_strset_has_str(&sc.kept, path)) continue;
      fl_err_t ignored;
      if (t->fs->remove(t->fs, path, &ignored) == FL_OK) res->statistics_files_deleted++;
    }
    fl_strset_free(&sc.kept);
  }
  rc = s.rc;
out:
  ice__reach_free(&kept);
  ice__reach_free(&gone);
  fl_arena_free(a);
  return rc;
}

int ice_expire_snapshots(ice_table_t *t, const ice_expire_opts_t *o, ice_expire_result_t *res,
                         fl_err_t *err) {
  ice_expire_opts_t dflt = {.older_than_ms = -1, .retain_last = -1, .dry_run = false};
  if (!o) o = &dflt;
  ice_expire_result_t ignored;
  if (!res) res = &ignored;
  memset(res, 0, sizeof *res);
  if (o->retain_last == 0 || o->retain_last < -1)
    return fl_err_set(err, FL_EINVALID,
                      "%s: number of snapshots to retain must be at least 1, cannot be: %d",
                      t->ident, o->retain_last);
  if (!ice__gc_enabled(t->meta))
    return fl_err_set(err, FL_EINVALID,
                      "%s: cannot expire snapshots: GC is disabled (deleting files may corrupt "
                      "other tables)",
                      t->ident);
  plan_t p = {.a = fl_arena_new(0), .now_ms = ice__now_ms(), .o = o};
  int rc = make_plan(&p, t->meta, err);
  if (rc) goto out;
  if (o->dry_run) {
    res->snapshots_expired = p.nremove;
    if (p.nremove) rc = clean_files(t, t->meta, &p, true, res, err);
    goto out;
  }
  if (!p.nremove && !p.nremove_refs) goto out; /* nothing to commit */
  rc = ice_commit_meta_edit(t, expire_edit, &p, err);
  if (rc) goto out;
  res->snapshots_expired = p.nremove;
  if (p.nremove) {
    rc = clean_files(t, t->meta, &p, false, res, err);
    if (rc)
      fl_err_prefix(err, "%s: %" PRIu32 " snapshots expired, but deleting their files failed: ",
                    t->ident, p.nremove);
  }
out:
  fl_arena_free(p.a);
  return rc;
}
