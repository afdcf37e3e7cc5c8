/*
 * test_maint.c - table maintenance: snapshot expiry (by age, by count,
 * per-branch retention, ref age, tags and branches keeping their files,
 * dry run) and orphan file removal (age threshold, hidden files, dry run,
 * file:// locations). Tables are built for real: Parquet data files from
 * the data writer, snapshots from ice_commit, over a committer that keeps
 * the current metadata location in memory. Expected survivors are derived
 * from what each snapshot listed before the expiry, and every check of a
 * deletion looks at the disk.
 *
 * Needs the metadata, manifest and schema-JSON modules; until they are in
 * the tree this file only records a skip.
 */
#include "test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

#include <jansson.h>

#include "base/alloc.h"
#include "iceberg/ice_commit.h"
#include "iceberg/ice_data_writer.h"
#include "iceberg/ice_maint.h"
#include "iceberg/ice_maint_int.h"
#include "io/fs.h"

/* ---- a committer over a variable ---- */

typedef struct mem_catalog {
  char loc[1024];
  int swaps;
} mem_catalog_t;

static int mem_current(void *ctx, char **out, fl_err_t *err) {
  (void)err;
  *out = fl_strdup(((mem_catalog_t *)ctx)->loc);
  return FL_OK;
}

static int mem_swap(void *ctx, const char *old, const char *new_loc, fl_err_t *err) {
  mem_catalog_t *c = ctx;
  if (!old || strcmp(old, c->loc) != 0)
    return fl_err_set_retriable(err, FL_ECONFLICT, "catalog holds %s, not %s", c->loc,
                                old ? old : "(none)");
  snprintf(c->loc, sizeof c->loc, "%s", new_loc);
  c->swaps++;
  return FL_OK;
}

/* ---- fixture ---- */

typedef struct fx {
  fl_arena_t *a;
  mem_catalog_t cat;
  ice_table_t *t;
  char dir[600];      /* local path of the table location */
  const char *prefix; /* "" or "file://" in front of dir */
  int next_row;
} fx_t;

static const char *strip_uri(const char *p) {
  return strncmp(p, "file://", 7) == 0 ? p + 7 : p;
}

static bool exists(const char *path) {
  struct stat st;
  return stat(strip_uri(path), &st) == 0;
}

static int fx_open(fx_t *f, const char *name, bool uri, const ice_kv_t *props, uint32_t nprops,
                   fl_err_t *err) {
  memset(f, 0, sizeof *f);
  f->a = fl_arena_new(0);
  f->prefix = uri ? "file://" : "";
  snprintf(f->dir, sizeof f->dir, "%s/%s", t_tmpdir(), name);
  const char *location = fl_arena_sprintf(f->a, "%s%s", f->prefix, f->dir);
  ty_schema_t *schema;
  int rc = ty_schema_parse(f->a, "id long not null, v string", &schema, err);
  if (rc) return rc;
  ice_meta_t *m;
  rc = ice_meta_new(schema, NULL, NULL, location, props, nprops, &m, err);
  if (rc) return rc;
  char *path = ice_metadata_file_name(f->a, location, NULL);
  io_fs_t *fs = io_local_fs();
  rc = fs->mkdirs(fs, fl_arena_sprintf(f->a, "%s/metadata", f->dir), err);
  if (!rc) rc = ice_meta_write(fs, path, m, err);
  ice_meta_free(m);
  if (rc) return rc;
  snprintf(f->cat.loc, sizeof f->cat.loc, "%s", path);
  ice_committer_t c = {.ctx = &f->cat, .current = mem_current, .swap = mem_swap};
  return ice_table_load(fs, "db.maint", path, &c, &f->t, err);
}

static void fx_close(fx_t *f) {
  ice_table_free(f->t);
  fl_arena_free(f->a);
}

/* Writes n rows as one data file (path into *path, in f->a). */
static int write_file(fx_t *f, int n, ice_data_file_t *out, fl_err_t *err) {
  const ty_schema_t *schema = ice_meta_schema(f->t->meta);
  ice_dw_t *w;
  int rc = ice_dw_open(f->t->fs, f->t->meta->location, schema, NULL, &w, err);
  if (rc) return rc;
  ty_batch_t *b = ty_batch_new(schema, (uint32_t)n);
  for (int i = 0; i < n; i++) {
    char v[32];
    int id = f->next_row++;
    snprintf(v, sizeof v, "row-%d", id);
    ty_vec_append_i64(b->cols[0], id);
    ty_vec_append_bytes(b->cols[1], v, strlen(v));
  }
  ty_batch_seal(b);
  rc = ice_dw_write(w, b, err);
  ty_batch_free(b);
  ice_data_file_t *files = NULL;
  size_t nf = 0;
  if (!rc) rc = ice_dw_close(w, f->a, &files, &nf, err);
  if (rc) {
    ice_dw_abort(w);
    return rc;
  }
  ice_dw_free(w);
  if (nf != 1) return fl_err_set(err, FL_EINTERNAL, "expected one data file, got %zu", nf);
  *out = files[0];
  return FL_OK;
}

/* Appends one file of n rows to branch (NULL: main); its path and the new
 * snapshot id come back. */
static int append(fx_t *f, const char *branch, int n, const char **path, int64_t *snap,
                  fl_err_t *err) {
  ice_data_file_t df;
  int rc = write_file(f, n, &df, err);
  if (rc) return rc;
  ice_change_t c = {.kind = ICE_CHANGE_APPEND, .branch = branch, .add = &df, .nadd = 1,
                    .base_snapshot_id = -1};
  ice_commit_result_t res;
  rc = ice_commit(f->t, &c, &res, err);
  if (rc) return rc;
  if (path) *path = df.path;
  if (snap) *snap = res.snapshot_id;
  return FL_OK;
}

/* Replaces the file `old` on main by a new one of n rows. */
static int overwrite(fx_t *f, const char *old, int n, const char **path, int64_t *snap,
                     fl_err_t *err) {
  ice_data_file_t df;
  int rc = write_file(f, n, &df, err);
  if (rc) return rc;
  const char *remove[1] = {old};
  ice_change_t c = {.kind = ICE_CHANGE_OVERWRITE, .add = &df, .nadd = 1, .remove = remove,
                    .nremove = 1, .base_snapshot_id = -1};
  ice_commit_result_t res;
  rc = ice_commit(f->t, &c, &res, err);
  if (rc) return rc;
  if (path) *path = df.path;
  if (snap) *snap = res.snapshot_id;
  return FL_OK;
}

static bool has_snapshot(const fx_t *f, int64_t id) { return ice_meta_snapshot(f->t->meta, id); }

static int64_t ts_of(const fx_t *f, int64_t id) {
  const ice_snapshot_t *s = ice_meta_snapshot(f->t->meta, id);
  return s ? s->timestamp_ms : -1;
}

/* What every snapshot of the table lists: manifest lists, manifests and
 * live files, each as (snapshot, path, kind). */
enum { K_LIST, K_MANIFEST, K_DATA, K_DELETES };
typedef struct ref_file {
  int64_t snap;
  const char *path;
  int kind;
} ref_file_t;

typedef struct census {
  ref_file_t *v;
  size_t n, cap;
} census_t;

static void census_add(fl_arena_t *a, census_t *c, int64_t snap, const char *path, int kind) {
  if (c->n == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 64;
    ref_file_t *bigger = fl_arena_alloc(a, c->cap * sizeof *bigger);
    if (c->n) memcpy(bigger, c->v, c->n * sizeof *bigger);
    c->v = bigger;
  }
  c->v[c->n++] = (ref_file_t){snap, fl_arena_strdup(a, strip_uri(path)), kind};
}

static int take_census(fx_t *f, census_t *c, fl_err_t *err) {
  memset(c, 0, sizeof *c);
  const ice_meta_t *m = f->t->meta;
  for (uint32_t i = 0; i < m->nsnapshots; i++) {
    const ice_snapshot_t *s = &m->snapshots[i];
    census_add(f->a, c, s->snapshot_id, s->manifest_list, K_LIST);
    ice_manifest_file_t *mfs;
    size_t nm;
    int rc = ice_snapshot_manifests(f->t, f->a, s, &mfs, &nm, err);
    if (rc) return rc;
    for (size_t j = 0; j < nm; j++) census_add(f->a, c, s->snapshot_id, mfs[j].path, K_MANIFEST);
    ice_manifest_entry_t *es;
    size_t ne;
    rc = ice_snapshot_entries(f->t, f->a, s, &es, &ne, err);
    if (rc) return rc;
    for (size_t j = 0; j < ne; j++)
      census_add(f->a, c, s->snapshot_id, es[j].file.path,
                 es[j].file.content == ICE_CONTENT_DATA ? K_DATA : K_DELETES);
  }
  return FL_OK;
}

/*
 * Checks the disk against a census taken before an expiry: a file some
 * remaining snapshot listed exists; a file only expired snapshots listed
 * is gone (exists when dry). Counts per kind what vanished into gone[4].
 */
static bool check_files(const fx_t *f, const census_t *c, bool dry, uint64_t gone[4],
                        char *why, size_t why_len) {
  memset(gone, 0, 4 * sizeof gone[0]);
  for (size_t i = 0; i < c->n; i++) {
    bool kept = false, seen_before = false;
    for (size_t j = 0; j < c->n; j++) {
      if (strcmp(c->v[j].path, c->v[i].path) != 0) continue;
      if (j < i) seen_before = true;
      if (has_snapshot(f, c->v[j].snap)) kept = true;
    }
    if (seen_before) continue;
    bool there = exists(c->v[i].path);
    if (kept || dry) {
      if (!there) {
        snprintf(why, why_len, "%s is missing", c->v[i].path);
        return false;
      }
    } else {
      if (there) {
        snprintf(why, why_len, "%s should have been deleted", c->v[i].path);
        return false;
      }
      gone[c->v[i].kind]++;
    }
  }
  return true;
}

/* Every remaining snapshot reads back completely (no dangling reference). */
static int scan_all(fx_t *f, fl_err_t *err) {
  const ice_meta_t *m = f->t->meta;
  for (uint32_t i = 0; i < m->nsnapshots; i++) {
    ice_manifest_entry_t *es;
    size_t ne;
    int rc = ice_snapshot_entries(f->t, f->a, &m->snapshots[i], &es, &ne, err);
    if (rc) return rc;
    for (size_t j = 0; j < ne; j++)
      if (!exists(es[j].file.path))
        return fl_err_set(err, FL_ENOTFOUND, "snapshot %" PRId64 " lists missing %s",
                          m->snapshots[i].snapshot_id, es[j].file.path);
  }
  return FL_OK;
}

static size_t count_files(const char *dir) {
  io_fs_t *fs = io_local_fs();
  io_entry_t *e;
  size_t n;
  fl_err_t err;
  if (fs->list(fs, dir, &e, &n, &err)) return 0;
  size_t c = 0;
  for (size_t i = 0; i < n; i++) c += !e[i].is_dir;
  io_entries_free(e, n);
  return c;
}

#define CHECK_FILES(f, c, dry, res)                                                  \
  do {                                                                               \
    uint64_t gone_[4];                                                               \
    char why_[1200];                                                                 \
    if (!check_files((f), (c), (dry), gone_, why_, sizeof why_)) {                   \
      t_fail(__FILE__, __LINE__, "%s", why_);                                        \
      return;                                                                        \
    }                                                                                \
    if (!(dry)) {                                                                    \
      CHECK_EQ((res)->manifest_lists_deleted, gone_[K_LIST]);                        \
      CHECK_EQ((res)->manifests_deleted, gone_[K_MANIFEST]);                         \
      CHECK_EQ((res)->data_files_deleted, gone_[K_DATA]);                            \
      CHECK_EQ((res)->delete_files_deleted, gone_[K_DELETES]);                       \
    }                                                                                \
  } while (0)

/* ---- expiry ---- */

TEST(expire_by_age) {
  fl_err_t err;
  fx_t f;
  CHECK_OK(fx_open(&f, "age", false, NULL, 0, &err), &err);
  const char *p[6];
  int64_t s[6];
  for (int i = 1; i <= 4; i++) CHECK_OK(append(&f, NULL, 10, &p[i], &s[i], &err), &err);
  /* s5 replaces s1's file: from s5 on, p[1] is no longer live. */
  CHECK_OK(overwrite(&f, p[1], 5, &p[5], &s[5], &err), &err);
  CHECK_EQ(f.t->meta->nsnapshots, 5);

  /* Everything older than s3 goes: s1 and s2. p[1] is still live in s3 and
   * s4, so it stays; only the two manifest lists can go. */
  census_t c;
  CHECK_OK(take_census(&f, &c, &err), &err);
  ice_expire_opts_t o = {.older_than_ms = ts_of(&f, s[3]), .retain_last = 1};
  ice_expire_result_t res;
  CHECK_OK(ice_expire_snapshots(f.t, &o, &res, &err), &err);
  CHECK_EQ(res.snapshots_expired, 2);
  CHECK_EQ(f.t->meta->nsnapshots, 3);
  CHECK(!has_snapshot(&f, s[1]) && !has_snapshot(&f, s[2]));
  CHECK(has_snapshot(&f, s[3]) && has_snapshot(&f, s[4]) && has_snapshot(&f, s[5]));
  CHECK_FILES(&f, &c, false, &res);
  CHECK(res.manifest_lists_deleted == 2);
  CHECK(exists(p[1]));
  CHECK_OK(scan_all(&f, &err), &err);

  /* The metadata really changed in the catalog, and reloads the same. */
  ice_table_t *again;
  CHECK_OK(ice_table_load(io_local_fs(), "again", f.cat.loc, NULL, &again, &err), &err);
  CHECK_EQ(again->meta->nsnapshots, 3);
  ice_table_free(again);

  /* Now older than s5: s3 and s4 go, and with them p[1] and the manifest
   * that held it as live. */
  CHECK_OK(take_census(&f, &c, &err), &err);
  o.older_than_ms = ts_of(&f, s[5]);
  CHECK_OK(ice_expire_snapshots(f.t, &o, &res, &err), &err);
  CHECK_EQ(res.snapshots_expired, 2);
  CHECK_EQ(f.t->meta->nsnapshots, 1);
  CHECK(has_snapshot(&f, s[5]));
  CHECK_FILES(&f, &c, false, &res);
  CHECK(!exists(p[1]));
  CHECK_EQ(res.data_files_deleted, 1);
  CHECK(res.manifests_deleted >= 1);
  for (int i = 2; i <= 5; i++) CHECK(exists(p[i]));
  CHECK_OK(scan_all(&f, &err), &err);

  /* Nothing left to expire: no new metadata version. */
  int swaps = f.cat.swaps;
  CHECK_OK(ice_expire_snapshots(f.t, &o, &res, &err), &err);
  CHECK_EQ(res.snapshots_expired, 0);
  CHECK_EQ(f.cat.swaps, swaps);
  fx_close(&f);
}

TEST(expire_by_count) {
  fl_err_t err;
  fx_t f;
  CHECK_OK(fx_open(&f, "count", false, NULL, 0, &err), &err);
  int64_t s[6];
  const char *p[6];
  for (int i = 1; i <= 5; i++) CHECK_OK(append(&f, NULL, 3, &p[i], &s[i], &err), &err);
  census_t c;
  CHECK_OK(take_census(&f, &c, &err), &err);
  /* Everything is old enough; the last two of main stay. */
  ice_expire_opts_t o = {.older_than_ms = ice__now_ms() + 1000, .retain_last = 2};
  ice_expire_result_t res;
  CHECK_OK(ice_expire_snapshots(f.t, &o, &res, &err), &err);
  CHECK_EQ(res.snapshots_expired, 3);
  CHECK_EQ(f.t->meta->nsnapshots, 2);
  CHECK(has_snapshot(&f, s[4]) && has_snapshot(&f, s[5]));
  CHECK_FILES(&f, &c, false, &res);
  /* Appends only: every data file is still live in s5. */
  CHECK_EQ(res.data_files_deleted, 0);
  CHECK_EQ(res.manifest_lists_deleted, 3);
  for (int i = 1; i <= 5; i++) CHECK(exists(p[i]));

  /* retain_last 0 is refused. */
  o.retain_last = 0;
  CHECK_ERR(ice_expire_snapshots(f.t, &o, &res, &err), FL_EINVALID);
  fx_close(&f);
}

/* Table properties decide when the caller does not. */
TEST(expire_table_properties) {
  fl_err_t err;
  fx_t f;
  ice_kv_t props[] = {{"history.expire.max-snapshot-age-ms", "0"},
                      {"history.expire.min-snapshots-to-keep", "3"}};
  CHECK_OK(fx_open(&f, "props", false, props, 2, &err), &err);
  int64_t s[6];
  for (int i = 1; i <= 5; i++) CHECK_OK(append(&f, NULL, 2, NULL, &s[i], &err), &err);
  ice_expire_opts_t o = {.older_than_ms = -1, .retain_last = -1};
  ice_expire_result_t res;
  CHECK_OK(ice_expire_snapshots(f.t, &o, &res, &err), &err);
  CHECK_EQ(res.snapshots_expired, 2);
  CHECK(has_snapshot(&f, s[3]) && has_snapshot(&f, s[4]) && has_snapshot(&f, s[5]));
  fx_close(&f);

  /* The default age (5 days) keeps today's snapshots whatever the count. */
  CHECK_OK(fx_open(&f, "props_default", false, NULL, 0, &err), &err);
  for (int i = 1; i <= 3; i++) CHECK_OK(append(&f, NULL, 2, NULL, NULL, &err), &err);
  CHECK_OK(ice_expire_snapshots(f.t, NULL, &res, &err), &err);
  CHECK_EQ(res.snapshots_expired, 0);
  CHECK_EQ(f.t->meta->nsnapshots, 3);
  fx_close(&f);
}

static int set_ref_retention(ice_meta_t *m, void *arg, fl_err_t *err) {
  ice_ref_t r = *(const ice_ref_t *)arg;
  const ice_ref_t *old = ice_meta_ref(m, r.name);
  if (!old) return fl_err_set(err, FL_ENOTFOUND, "no ref %s", r.name);
  r.snapshot_id = old->snapshot_id;
  r.is_tag = old->is_tag;
  return ice_meta_set_ref(m, &r, ice__now_ms(), err);
}

TEST(expire_keeps_refs) {
  fl_err_t err;
  fx_t f;
  CHECK_OK(fx_open(&f, "refs", false, NULL, 0, &err), &err);
  const char *p[7];
  int64_t s[7];
  CHECK_OK(append(&f, NULL, 4, &p[1], &s[1], &err), &err);
  CHECK_OK(ice_create_tag(f.t, "t1", s[1], false, &err), &err);
  CHECK_OK(append(&f, NULL, 4, &p[2], &s[2], &err), &err);
  CHECK_OK(ice_create_branch(f.t, "b", s[2], false, &err), &err);
  /* main: s1 - s2 - s3 (drops p1) - s5; branch b: s2 - s4. */
  CHECK_OK(overwrite(&f, p[1], 4, &p[3], &s[3], &err), &err);
  CHECK_OK(append(&f, "b", 4, &p[4], &s[4], &err), &err);
  CHECK_OK(append(&f, NULL, 4, &p[5], &s[5], &err), &err);
  CHECK_EQ(ice_meta_snapshot(f.t->meta, s[4])->parent_id, s[2]);

  ice_expire_opts_t o = {.older_than_ms = ice__now_ms() + 1000, .retain_last = 1};
  ice_expire_result_t res;
  census_t c;
  CHECK_OK(take_census(&f, &c, &err), &err);
  CHECK_OK(ice_expire_snapshots(f.t, &o, &res, &err), &err);
  /* Heads stay: s5 (main), s4 (b), s1 (tag t1). */
  CHECK_EQ(res.snapshots_expired, 2);
  CHECK(has_snapshot(&f, s[1]) && has_snapshot(&f, s[4]) && has_snapshot(&f, s[5]));
  CHECK(!has_snapshot(&f, s[2]) && !has_snapshot(&f, s[3]));
  CHECK_FILES(&f, &c, false, &res);
  for (int i = 1; i <= 5; i++) CHECK(exists(p[i]));
  CHECK_EQ(res.data_files_deleted, 0);
  CHECK_OK(scan_all(&f, &err), &err);

  /* Without the tag, s1 goes, but p1 is still live on branch b (s4 descends
   * from s2, which had it). */
  CHECK_OK(ice_drop_ref(f.t, "t1", &err), &err);
  CHECK_OK(take_census(&f, &c, &err), &err);
  CHECK_OK(ice_expire_snapshots(f.t, &o, &res, &err), &err);
  CHECK_EQ(res.snapshots_expired, 1);
  CHECK(!has_snapshot(&f, s[1]));
  CHECK_FILES(&f, &c, false, &res);
  CHECK(exists(p[1]));

  /* Without the branch, s4 goes, and p1 and p4 with it. */
  CHECK_OK(ice_drop_ref(f.t, "b", &err), &err);
  CHECK_OK(take_census(&f, &c, &err), &err);
  CHECK_OK(ice_expire_snapshots(f.t, &o, &res, &err), &err);
  CHECK_EQ(res.snapshots_expired, 1);
  CHECK_EQ(f.t->meta->nsnapshots, 1);
  CHECK_FILES(&f, &c, false, &res);
  CHECK(!exists(p[1]) && !exists(p[4]));
  CHECK(exists(p[2]) && exists(p[3]) && exists(p[5]));
  CHECK_EQ(res.data_files_deleted, 2);
  CHECK_OK(scan_all(&f, &err), &err);
  fx_close(&f);
}

TEST(expire_branch_retention_and_ref_age) {
  fl_err_t err;
  fx_t f;
  CHECK_OK(fx_open(&f, "branch_ret", false, NULL, 0, &err), &err);
  int64_t s[8];
  for (int i = 1; i <= 4; i++) CHECK_OK(append(&f, NULL, 2, NULL, &s[i], &err), &err);
  CHECK_OK(ice_create_branch(f.t, "audit", s[4], false, &err), &err);
  CHECK_OK(ice_create_tag(f.t, "old", s[1], false, &err), &err);
  for (int i = 5; i <= 6; i++) CHECK_OK(append(&f, NULL, 2, NULL, &s[i], &err), &err);
  /* audit keeps three snapshots of its own history whatever the caller says. */
  ice_ref_t r = {.name = "audit", .max_ref_age_ms = -1, .max_snapshot_age_ms = -1,
                 .min_snapshots_to_keep = 3};
  CHECK_OK(ice_commit_meta_edit(f.t, set_ref_retention, &r, &err), &err);
  /* The tag may be at most 1 ms old. */
  ice_ref_t tr = {.name = "old", .max_ref_age_ms = 1, .max_snapshot_age_ms = -1,
                  .min_snapshots_to_keep = -1};
  CHECK_OK(ice_commit_meta_edit(f.t, set_ref_retention, &tr, &err), &err);
  struct timespec ts = {0, 5 * 1000000L};
  nanosleep(&ts, NULL);

  ice_expire_opts_t o = {.older_than_ms = ice__now_ms() + 1000, .retain_last = 1};
  ice_expire_result_t res;
  CHECK_OK(ice_expire_snapshots(f.t, &o, &res, &err), &err);
  /* main: s6; audit: s4, s3, s2; the tag is gone and so is s1; s5 is only
   * in main's history below the one kept snapshot. */
  CHECK(!ice_meta_ref(f.t->meta, "old"));
  CHECK(ice_meta_ref(f.t->meta, "audit"));
  CHECK(ice_meta_ref(f.t->meta, "main"));
  CHECK_EQ(f.t->meta->nsnapshots, 4);
  CHECK(has_snapshot(&f, s[6]) && has_snapshot(&f, s[4]) && has_snapshot(&f, s[3]) &&
        has_snapshot(&f, s[2]));
  CHECK_EQ(res.snapshots_expired, 2);
  fx_close(&f);
}

static int set_prop(ice_meta_t *m, void *arg, fl_err_t *err) {
  const ice_kv_t *kv = arg;
  (void)err;
  ice_meta_set_property(m, kv->key, kv->value);
  return FL_OK;
}

TEST(expire_ref_age_property) {
  fl_err_t err;
  fx_t f;
  CHECK_OK(fx_open(&f, "ref_age", false, NULL, 0, &err), &err);
  int64_t s[4];
  const char *p[4];
  CHECK_OK(append(&f, NULL, 2, &p[1], &s[1], &err), &err);
  CHECK_OK(ice_create_branch(f.t, "stale", s[1], false, &err), &err);
  CHECK_OK(overwrite(&f, p[1], 2, &p[2], &s[2], &err), &err);
  ice_kv_t kv = {"history.expire.max-ref-age-ms", "1"};
  CHECK_OK(ice_commit_meta_edit(f.t, set_prop, &kv, &err), &err);
  struct timespec ts = {0, 5 * 1000000L};
  nanosleep(&ts, NULL);
  ice_expire_opts_t o = {.older_than_ms = ice__now_ms() + 1000, .retain_last = 1};
  ice_expire_result_t res;
  CHECK_OK(ice_expire_snapshots(f.t, &o, &res, &err), &err);
  CHECK(!ice_meta_ref(f.t->meta, "stale"));
  CHECK(ice_meta_ref(f.t->meta, "main"));
  CHECK_EQ(f.t->meta->nsnapshots, 1);
  CHECK(has_snapshot(&f, s[2]));
  CHECK(!exists(p[1]) && exists(p[2]));
  fx_close(&f);
}

TEST(expire_dry_run) {
  fl_err_t err;
  fx_t f;
  CHECK_OK(fx_open(&f, "dry", false, NULL, 0, &err), &err);
  const char *p[4];
  int64_t s[4];
  CHECK_OK(append(&f, NULL, 3, &p[1], &s[1], &err), &err);
  CHECK_OK(append(&f, NULL, 3, &p[2], &s[2], &err), &err);
  CHECK_OK(overwrite(&f, p[1], 3, &p[3], &s[3], &err), &err);
  census_t c;
  CHECK_OK(take_census(&f, &c, &err), &err);
  size_t before = count_files(f.dir);
  char loc[1024];
  snprintf(loc, sizeof loc, "%s", f.cat.loc);
  ice_expire_opts_t o = {.older_than_ms = ice__now_ms() + 1000, .retain_last = 1, .dry_run = true};
  ice_expire_result_t dry;
  CHECK_OK(ice_expire_snapshots(f.t, &o, &dry, &err), &err);
  CHECK_EQ(dry.snapshots_expired, 2);
  CHECK_EQ(dry.data_files_deleted, 1);
  CHECK_EQ(dry.manifest_lists_deleted, 2);
  CHECK_STR(f.cat.loc, loc);
  CHECK_EQ(f.t->meta->nsnapshots, 3);
  CHECK_EQ(count_files(f.dir), before);
  CHECK_FILES(&f, &c, true, &dry);

  /* The real run deletes exactly what the dry run announced. */
  o.dry_run = false;
  ice_expire_result_t res;
  CHECK_OK(ice_expire_snapshots(f.t, &o, &res, &err), &err);
  CHECK_EQ(res.snapshots_expired, dry.snapshots_expired);
  CHECK_EQ(res.data_files_deleted, dry.data_files_deleted);
  CHECK_EQ(res.manifests_deleted, dry.manifests_deleted);
  CHECK_EQ(res.manifest_lists_deleted, dry.manifest_lists_deleted);
  CHECK_FILES(&f, &c, false, &res);
  /* One more metadata file, minus what was deleted. */
  CHECK_EQ(count_files(f.dir), before + 1 - res.data_files_deleted - res.manifests_deleted -
                                   res.manifest_lists_deleted);
  fx_close(&f);
}

TEST(expire_gc_disabled) {
  fl_err_t err;
  fx_t f;
  ice_kv_t props[] = {{"gc.enabled", "false"}};
  CHECK_OK(fx_open(&f, "nogc", false, props, 1, &err), &err);
  CHECK_OK(append(&f, NULL, 2, NULL, NULL, &err), &err);
  CHECK_OK(append(&f, NULL, 2, NULL, NULL, &err), &err);
  ice_expire_opts_t o = {.older_than_ms = ice__now_ms() + 1000, .retain_last = 1};
  CHECK_ERR(ice_expire_snapshots(f.t, &o, NULL, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "GC is disabled"));
  CHECK_EQ(f.t->meta->nsnapshots, 2);
  CHECK_ERR(ice_remove_orphans(f.t, ice__now_ms(), true, NULL, NULL, NULL, &err), FL_EINVALID);
  fx_close(&f);
}

/* Writes a position delete file against data file `of`, rows 0 and 1. */
static int write_deletes(fx_t *f, const char *of, ice_data_file_t *out, fl_err_t *err) {
  ice_dw_opts_t o = {.content = ICE_CONTENT_POSITION_DELETES};
  ice_dw_t *w;
  int rc = ice_dw_open(f->t->fs, f->t->meta->location, ice_meta_schema(f->t->meta), &o, &w, err);
  if (rc) return rc;
  rc = ice_dw_delete_position(w, of, 0, err);
  if (!rc) rc = ice_dw_delete_position(w, of, 1, err);
  ice_data_file_t *files = NULL;
  size_t nf = 0;
  if (!rc) rc = ice_dw_close(w, f->a, &files, &nf, err);
  if (rc) {
    ice_dw_abort(w);
    return rc;
  }
  ice_dw_free(w);
  if (nf != 1) return fl_err_set(err, FL_EINTERNAL, "expected one delete file, got %zu", nf);
  *out = files[0];
  return FL_OK;
}

TEST(expire_delete_files) {
  fl_err_t err;
  fx_t f;
  CHECK_OK(fx_open(&f, "deletes", false, NULL, 0, &err), &err);
  const char *a_path;
  int64_t s1;
  CHECK_OK(append(&f, NULL, 10, &a_path, &s1, &err), &err);
  /* s2: position deletes on a; s3: a and its deletes compacted into a2. */
  ice_data_file_t d;
  CHECK_OK(write_deletes(&f, a_path, &d, &err), &err);
  ice_change_t rd = {.kind = ICE_CHANGE_ROW_DELTA, .add = &d, .nadd = 1, .base_snapshot_id = -1};
  ice_commit_result_t r2, r3;
  CHECK_OK(ice_commit(f.t, &rd, &r2, &err), &err);
  ice_data_file_t a2;
  CHECK_OK(write_file(&f, 8, &a2, &err), &err);
  const char *gone[2] = {a_path, d.path};
  ice_change_t rw = {.kind = ICE_CHANGE_REWRITE, .add = &a2, .nadd = 1, .remove = gone,
                     .nremove = 2, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(f.t, &rw, &r3, &err), &err);
  census_t c;
  CHECK_OK(take_census(&f, &c, &err), &err);
  ice_expire_opts_t o = {.older_than_ms = ice__now_ms() + 1000, .retain_last = 1};
  ice_expire_result_t res;
  CHECK_OK(ice_expire_snapshots(f.t, &o, &res, &err), &err);
  CHECK_EQ(res.snapshots_expired, 2);
  CHECK(has_snapshot(&f, r3.snapshot_id));
  CHECK_FILES(&f, &c, false, &res);
  CHECK_EQ(res.delete_files_deleted, 1);
  CHECK_EQ(res.data_files_deleted, 1);
  CHECK(!exists(d.path) && !exists(a_path) && exists(a2.path));
  CHECK_OK(scan_all(&f, &err), &err);
  fx_close(&f);
}

/* A stale table handle: the swap loses, the plan is made again on the new
 * head, and the snapshot the other writer added (and its files) stays. */
TEST(expire_after_lost_race) {
  fl_err_t err;
  fx_t f;
  CHECK_OK(fx_open(&f, "race", false, NULL, 0, &err), &err);
  const char *p1, *p2;
  int64_t s1, s2;
  CHECK_OK(append(&f, NULL, 3, &p1, &s1, &err), &err);
  CHECK_OK(overwrite(&f, p1, 3, &p2, &s2, &err), &err);
  ice_table_t *stale;
  ice_committer_t cm = {.ctx = &f.cat, .current = mem_current, .swap = mem_swap};
  CHECK_OK(ice_table_load(io_local_fs(), "db.maint", f.cat.loc, &cm, &stale, &err), &err);
  /* Another writer commits s3 replacing p2. */
  const char *p3;
  int64_t s3;
  CHECK_OK(overwrite(&f, p2, 3, &p3, &s3, &err), &err);
  int swaps = f.cat.swaps;
  ice_expire_opts_t o = {.older_than_ms = ice__now_ms() + 1000, .retain_last = 1};
  ice_expire_result_t res;
  CHECK_OK(ice_expire_snapshots(stale, &o, &res, &err), &err);
  CHECK_EQ(f.cat.swaps, swaps + 1);
  CHECK_EQ(stale->meta->nsnapshots, 1);
  CHECK(ice_meta_snapshot(stale->meta, s3));
  CHECK_EQ(res.snapshots_expired, 2);
  CHECK(!exists(p1) && !exists(p2) && exists(p3));
  CHECK_EQ(res.data_files_deleted, 2);
  ice_table_free(stale);
  fx_close(&f);
}

/* Metadata without refs (older writers): the current snapshot is main. */
TEST(expire_without_refs) {
  fl_err_t err;
  fx_t f;
  CHECK_OK(fx_open(&f, "norefs", false, NULL, 0, &err), &err);
  ice_expire_result_t res;
  /* An empty table has nothing to expire and commits nothing. */
  CHECK_OK(ice_expire_snapshots(f.t, NULL, &res, &err), &err);
  CHECK_EQ(res.snapshots_expired, 0);
  CHECK_EQ(f.cat.swaps, 0);
  int64_t s[4];
  for (int i = 1; i <= 3; i++) CHECK_OK(append(&f, NULL, 2, NULL, &s[i], &err), &err);
  f.t->meta->nrefs = 0; /* as parsed from a file without "refs" */
  CHECK_EQ(f.t->meta->current_snapshot_id, s[3]);
  ice_expire_opts_t o = {.older_than_ms = ice__now_ms() + 1000, .retain_last = 2, .dry_run = true};
  CHECK_OK(ice_expire_snapshots(f.t, &o, &res, &err), &err);
  CHECK_EQ(res.snapshots_expired, 1);
  CHECK_EQ(res.manifest_lists_deleted, 1);
  fx_close(&f);
}

/* Bad input: a malformed retention property is named; an unreadable manifest
 * list of a kept snapshot stops the cleanup (and orphan removal) before any
 * file is deleted. */
TEST(maint_bad_input) {
  fl_err_t err;
  fx_t f;
  ice_kv_t props[] = {{"history.expire.min-snapshots-to-keep", "many"}};
  CHECK_OK(fx_open(&f, "bad_prop", false, props, 1, &err), &err);
  CHECK_OK(append(&f, NULL, 2, NULL, NULL, &err), &err);
  CHECK_ERR(ice_expire_snapshots(f.t, NULL, NULL, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "history.expire.min-snapshots-to-keep"));
  fx_close(&f);

  CHECK_OK(fx_open(&f, "bad_list", false, NULL, 0, &err), &err);
  int64_t s[4];
  for (int i = 1; i <= 3; i++) CHECK_OK(append(&f, NULL, 2, NULL, &s[i], &err), &err);
  const char *lists[4];
  for (int i = 1; i <= 3; i++)
    lists[i] = fl_arena_strdup(f.a, ice_meta_snapshot(f.t->meta, s[i])->manifest_list);
  FILE *fp = fopen(strip_uri(lists[3]), "w");
  CHECK(fp);
  fputs("not avro", fp);
  fclose(fp);
  ice_expire_opts_t o = {.older_than_ms = ice__now_ms() + 1000, .retain_last = 1};
  ice_expire_result_t res;
  int rc = ice_expire_snapshots(f.t, &o, &res, &err);
  CHECK(rc != FL_OK);
  CHECK(strstr(err.msg, "deleting their files failed"));
  CHECK_EQ(res.snapshots_expired, 2);
  CHECK_EQ(f.t->meta->nsnapshots, 1);
  CHECK(exists(lists[1]) && exists(lists[2]));
  CHECK_EQ(res.manifest_lists_deleted + res.manifests_deleted + res.data_files_deleted, 0);
  ice_orphan_result_t orph;
  CHECK(ice_remove_orphans(f.t, INT64_MAX, false, NULL, NULL, &orph, &err) != FL_OK);
  CHECK(exists(lists[1]) && exists(lists[2]));
  CHECK_EQ(orph.orphans_deleted, 0);
  fx_close(&f);
}

static void make_file(const char *path, int64_t age_ms);

typedef struct stats_arg {
  int64_t snap;
  const char *path;
} stats_arg_t;

static int add_stats(ice_meta_t *m, void *arg, fl_err_t *err) {
  const stats_arg_t *a = arg;
  (void)err;
  json_t *arr = json_object_get(m->extra, "statistics");
  if (!arr) {
    arr = json_array();
    json_object_set_new(m->extra, "statistics", arr);
  }
  json_t *e = json_object();
  json_object_set_new(e, "snapshot-id", json_integer(a->snap));
  json_object_set_new(e, "statistics-path", json_string(a->path));
  json_object_set_new(e, "file-size-in-bytes", json_integer(6));
  json_object_set_new(e, "file-footer-size-in-bytes", json_integer(2));
  json_object_set_new(e, "blob-metadata", json_array());
  json_array_append_new(arr, e);
  return FL_OK;
}

/* Statistics files: reachable while their snapshot is, deleted with it. */
TEST(expire_statistics_files) {
  fl_err_t err;
  fx_t f;
  CHECK_OK(fx_open(&f, "stats", false, NULL, 0, &err), &err);
  int64_t s1, s2;
  CHECK_OK(append(&f, NULL, 2, NULL, &s1, &err), &err);
  CHECK_OK(append(&f, NULL, 2, NULL, &s2, &err), &err);
  char p1[800], p2[800];
  snprintf(p1, sizeof p1, "%s/metadata/s1.stats", f.dir);
  snprintf(p2, sizeof p2, "%s/metadata/s2.stats", f.dir);
  make_file(p1, 0);
  make_file(p2, 0);
  stats_arg_t a1 = {s1, p1}, a2 = {s2, p2};
  CHECK_OK(ice_commit_meta_edit(f.t, add_stats, &a1, &err), &err);
  CHECK_OK(ice_commit_meta_edit(f.t, add_stats, &a2, &err), &err);
  ice_orphan_result_t orph;
  CHECK_OK(ice_remove_orphans(f.t, INT64_MAX, true, NULL, NULL, &orph, &err), &err);
  CHECK_EQ(orph.orphans_deleted, 0);
  ice_expire_opts_t o = {.older_than_ms = ice__now_ms() + 1000, .retain_last = 1};
  CHECK_OK(ice_expire_snapshots(f.t, &o, NULL, &err), &err);
  CHECK(!exists(p1) && exists(p2));
  CHECK_EQ(json_array_size(json_object_get(f.t->meta->extra, "statistics")), 1);
  fx_close(&f);
}

/* ---- orphans ---- */

static void make_file(const char *path, int64_t age_ms) {
  FILE *fp = fopen(path, "w");
  if (!fp) return;
  fputs("orphan", fp);
  fclose(fp);
  struct timeval tv[2];
  gettimeofday(&tv[0], NULL);
  int64_t ms = (int64_t)tv[0].tv_sec * 1000 - age_ms;
  tv[0].tv_sec = ms / 1000;
  tv[0].tv_usec = 0;
  tv[1] = tv[0];
  utimes(path, tv);
}

/* Makes every file under dir look age_ms old. */
static void age_all(const char *dir, int64_t age_ms) {
  io_fs_t *fs = io_local_fs();
  io_entry_t *e;
  size_t n;
  fl_err_t err;
  if (fs->list(fs, dir, &e, &n, &err)) return;
  struct timeval tv[2];
  gettimeofday(&tv[0], NULL);
  int64_t ms = (int64_t)tv[0].tv_sec * 1000 - age_ms;
  tv[0].tv_sec = ms / 1000;
  tv[0].tv_usec = 0;
  tv[1] = tv[0];
  for (size_t i = 0; i < n; i++) utimes(e[i].path, tv);
  io_entries_free(e, n);
}

typedef struct seen {
  char paths[8][700];
  int n;
} seen_t;

static void note(const char *path, void *arg) {
  seen_t *s = arg;
  if (s->n < 8) snprintf(s->paths[s->n], sizeof s->paths[0], "%s", path);
  s->n++;
}

static bool noted(const seen_t *s, const char *path) {
  for (int i = 0; i < s->n && i < 8; i++)
    if (strcmp(s->paths[i], path) == 0) return true;
  return false;
}

TEST(remove_orphans) {
  fl_err_t err;
  fx_t f;
  /* A file:// location: metadata names files as URIs, the listing does not. */
  CHECK_OK(fx_open(&f, "orphans", true, NULL, 0, &err), &err);
  const char *p[4];
  CHECK_OK(append(&f, NULL, 3, &p[1], NULL, &err), &err);
  CHECK_OK(append(&f, NULL, 3, &p[2], NULL, &err), &err);
  CHECK_OK(overwrite(&f, p[1], 3, &p[3], NULL, &err), &err);
  CHECK(strncmp(p[1], "file://", 7) == 0);
  int64_t day = 86400000;
  age_all(f.dir, 2 * day);

  char old_data[800], new_data[800], old_meta[800], hidden_f[800], hidden_dir[800], part[800];
  snprintf(old_data, sizeof old_data, "%s/data/lost-write.parquet", f.dir);
  snprintf(new_data, sizeof new_data, "%s/data/in-flight.parquet", f.dir);
  snprintf(old_meta, sizeof old_meta, "%s/metadata/snap-1-1-lost.avro", f.dir);
  snprintf(hidden_f, sizeof hidden_f, "%s/data/.lost-write.parquet.crc", f.dir);
  char dirs[2][800];
  snprintf(dirs[0], sizeof dirs[0], "%s/_staging", f.dir);
  snprintf(dirs[1], sizeof dirs[1], "%s/data/_k=1", f.dir);
  mkdir(dirs[0], 0777);
  mkdir(dirs[1], 0777);
  snprintf(hidden_dir, sizeof hidden_dir, "%s/_staging/x.parquet", f.dir);
  snprintf(part, sizeof part, "%s/data/_k=1/y.parquet", f.dir);
  make_file(old_data, 2 * day);
  make_file(new_data, 0);
  make_file(old_meta, 2 * day);
  make_file(hidden_f, 2 * day);
  make_file(hidden_dir, 2 * day);
  make_file(part, 2 * day);

  /* Reachable: every file the metadata names, in local form. */
  const char **reach;
  size_t nreach;
  CHECK_OK(ice_reachable_files(f.t, f.a, &reach, &nreach, &err), &err);
  bool has_p1 = false, has_cur = false;
  for (size_t i = 0; i < nreach; i++) {
    CHECK(reach[i][0] == '/');
    has_p1 |= strcmp(reach[i], strip_uri(p[1])) == 0;
    has_cur |= strcmp(reach[i], strip_uri(f.cat.loc)) == 0;
  }
  CHECK(has_p1 && has_cur);

  size_t before = count_files(f.dir);
  int64_t threshold = ice__now_ms() - day;
  seen_t seen = {0};
  ice_orphan_result_t res;
  CHECK_OK(ice_remove_orphans(f.t, threshold, true, note, &seen, &res, &err), &err);
  CHECK_EQ(res.orphans_deleted, 3);
  CHECK_EQ(seen.n, 3);
  CHECK(noted(&seen, old_data) && noted(&seen, old_meta) && noted(&seen, part));
  CHECK_EQ(res.bytes_deleted, 3 * strlen("orphan"));
  CHECK_EQ(res.files_seen, before - 2); /* the two hidden ones are not looked at */
  CHECK_EQ(count_files(f.dir), before);

  seen.n = 0;
  CHECK_OK(ice_remove_orphans(f.t, threshold, false, note, &seen, &res, &err), &err);
  CHECK_EQ(res.orphans_deleted, 3);
  CHECK(!exists(old_data) && !exists(old_meta) && !exists(part));
  CHECK(exists(new_data) && exists(hidden_f) && exists(hidden_dir));
  CHECK_EQ(count_files(f.dir), before - 3);
  for (size_t i = 0; i < nreach; i++)
    if (!strstr(reach[i], "version-hint.text")) CHECK(exists(reach[i]));
  CHECK_OK(scan_all(&f, &err), &err);

  /* After an expiry the table still has no orphans of its own making. */
  ice_expire_opts_t o = {.older_than_ms = ice__now_ms() + 1000, .retain_last = 1};
  CHECK_OK(ice_expire_snapshots(f.t, &o, NULL, &err), &err);
  age_all(f.dir, 2 * day);
  CHECK_OK(ice_remove_orphans(f.t, threshold, false, NULL, NULL, &res, &err), &err);
  /* The metadata files of the old versions are still logged, so only the
   * in-flight file (now old) goes. */
  CHECK_EQ(res.orphans_deleted, 1);
  CHECK(!exists(new_data));
  CHECK_OK(scan_all(&f, &err), &err);
  fx_close(&f);
}

/* Tables Spark wrote (relative paths, Hadoop layout with .crc side files):
 * every file in their folders is reachable, so a dry run finds no orphan,
 * and the hidden .crc files are not even looked at. */
TEST(orphans_spark_tables) {
  static const char *const tables[] = {"partition_float", "partition_bigint",
                                       "partition_decimal_hugeint", "hive_partitioned_table",
                                       "iceberg_v1_deprecated/default/legacy_v1"};
  fl_err_t err;
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    char base[600], dir[800], hint_path[900], meta[1000];
    snprintf(base, sizeof base, "%s/iceberg-fixtures/duckdb-iceberg", t_testdata());
    snprintf(dir, sizeof dir, "%s/data/persistent/%s", base, tables[i]);
    snprintf(hint_path, sizeof hint_path, "%s/metadata/version-hint.text", dir);
    FILE *fp = fopen(hint_path, "r");
    CHECK(fp);
    int version = 0;
    CHECK(fscanf(fp, "%d", &version) == 1);
    fclose(fp);
    snprintf(meta, sizeof meta, "%s/metadata/v%d.metadata.json", dir, version);
    ice_table_t *t;
    CHECK_OK(ice_table_load(io_local_fs(), tables[i], meta, NULL, &t, &err), &err);
    t->base_dir = fl_strdup(base);
    /* Folder contents, hidden side files apart. */
    io_entry_t *e;
    size_t n, visible = 0;
    CHECK_OK(io_local_fs()->list(io_local_fs(), dir, &e, &n, &err), &err);
    for (size_t k = 0; k < n; k++) {
      const char *name = strrchr(e[k].path, '/');
      visible += name && name[1] != '.';
    }
    io_entries_free(e, n);
    seen_t seen = {0};
    ice_orphan_result_t res;
    CHECK_OK(ice_remove_orphans(t, INT64_MAX, true, note, &seen, &res, &err), &err);
    /* legacy_v1's metadata was rewritten to list its manifests inline: the
     * manifest list Spark wrote beside them is referenced no more. */
    int expect = strstr(tables[i], "legacy_v1") ? 1 : 0;
    if (seen.n != expect || (expect && !strstr(seen.paths[0], "/metadata/snap-")))
      t_fail(__FILE__, __LINE__, "%s: %d orphans (%s)", tables[i], seen.n,
             seen.n ? seen.paths[0] : "none");
    CHECK_EQ(res.orphans_deleted, expect);
    CHECK_EQ(res.files_seen, visible);
    CHECK(visible > 3);
    /* An expiry dry run over the read-only table plans without committing. */
    ice_expire_opts_t o = {.older_than_ms = INT64_MAX, .retain_last = 1, .dry_run = true};
    ice_expire_result_t xr;
    CHECK_OK(ice_expire_snapshots(t, &o, &xr, &err), &err);
    CHECK_EQ(xr.snapshots_expired, t->meta->nsnapshots - 1);
    ice_table_free(t);
  }
}

TEST(norm_path) {
  fl_arena_t *a = fl_arena_new(0);
  ice_table_t t = {.base_dir = (char *)"/base/dir"};
  CHECK_STR(ice__norm_path(&t, a, "file:///wh/t//data/./a.parquet"), "/wh/t/data/a.parquet");
  CHECK_STR(ice__norm_path(&t, a, "file:/wh/t/a"), "/wh/t/a");
  CHECK_STR(ice__norm_path(&t, a, "file://localhost/wh/t/a"), "/wh/t/a");
  CHECK_STR(ice__norm_path(&t, a, "/wh/t/"), "/wh/t");
  CHECK_STR(ice__norm_path(&t, a, "data/x.parquet"), "/base/dir/data/x.parquet");
  CHECK_STR(ice__norm_path(&t, a, "s3://b/k//x"), "s3://b/k//x");
  CHECK_STR(ice__clean_path(a, "../rel//dir/./f"), "../rel/dir/f");
  t.base_dir = (char *)"../rel";
  CHECK_STR(ice__norm_path(&t, a, "data/x"), "../rel/data/x");
  fl_arena_free(a);
}

/* ---- compaction ---- */

#include "iceberg/ice_scan.h"

/* Live rows of main (deletes applied); -1 on error. */
static int64_t count_rows(ice_table_t *t, fl_err_t *err) {
  ice_scan_opts_t so = {.snapshot_id = -1, .as_of_ms = -1, .limit = -1};
  ice_scan_t *s;
  if (ice_scan_plan(t, &so, &s, err)) return -1;
  int64_t n = 0;
  for (;;) {
    ty_batch_t *b;
    if (ice_scan_next(s, &b, err)) {
      n = -1;
      break;
    }
    if (!b) break;
    n += ty_batch_live(b);
  }
  ice_scan_free(s);
  return n;
}

static uint32_t live_files(fx_t *f, int content, fl_err_t *err) {
  ice_manifest_entry_t *es;
  size_t ne;
  const ice_snapshot_t *cur = ice_meta_current_snapshot(f->t->meta);
  if (!cur || ice_snapshot_entries(f->t, f->a, cur, &es, &ne, err)) return 0;
  uint32_t n = 0;
  for (size_t i = 0; i < ne; i++) n += (int)es[i].file.content == content;
  return n;
}

TEST(compact_small_files) {
  fl_err_t err;
  fx_t f;
  CHECK_OK(fx_open(&f, "compact", false, NULL, 0, &err), &err);
  const char *paths[4];
  for (int i = 0; i < 4; i++) CHECK_OK(append(&f, NULL, 5, &paths[i], NULL, &err), &err);
  ice_compact_opts_t o = {.file_size_threshold = 1 << 20};
  ice_compact_result_t r;
  CHECK_OK(ice_compact(f.t, &o, &r, &err), &err);
  CHECK_EQ(r.rewritten_data_files, 4);
  CHECK_EQ(r.added_data_files, 1);
  CHECK_EQ(r.removed_delete_files, 0);
  CHECK(r.snapshot_id > 0);
  const ice_snapshot_t *cur = ice_meta_current_snapshot(f.t->meta);
  CHECK_STR(ice_snapshot_operation(cur), "replace");
  CHECK_STR(ice_snapshot_summary(cur, "deleted-data-files"), "4");
  CHECK_STR(ice_snapshot_summary(cur, "added-records"), "20");
  CHECK_STR(ice_snapshot_summary(cur, "total-records"), "20");
  CHECK_EQ(live_files(&f, ICE_CONTENT_DATA, &err), 1);
  CHECK_EQ(count_rows(f.t, &err), 20);
  /* One file left: nothing to do, nothing committed. */
  uint32_t nsnap = f.t->meta->nsnapshots;
  CHECK_OK(ice_compact(f.t, &o, &r, &err), &err);
  CHECK_EQ(r.snapshot_id, -1);
  CHECK_EQ(r.rewritten_data_files, 0);
  CHECK_EQ(f.t->meta->nsnapshots, nsnap);
  /* Files at or above the threshold stay. */
  CHECK_OK(append(&f, NULL, 5, NULL, NULL, &err), &err);
  o.file_size_threshold = 1;
  CHECK_OK(ice_compact(f.t, &o, &r, &err), &err);
  CHECK_EQ(r.snapshot_id, -1);
  fx_close(&f);
}

/* A file with deletes is rewritten without the deleted rows, even alone,
 * and the delete file it alone needed goes. */
TEST(compact_applies_deletes) {
  fl_err_t err;
  fx_t f;
  CHECK_OK(fx_open(&f, "compact_del", false, NULL, 0, &err), &err);
  const char *a_path;
  CHECK_OK(append(&f, NULL, 10, &a_path, NULL, &err), &err);
  ice_data_file_t d;
  CHECK_OK(write_deletes(&f, a_path, &d, &err), &err);
  ice_change_t rd = {.kind = ICE_CHANGE_ROW_DELTA, .add = &d, .nadd = 1, .base_snapshot_id = -1};
  ice_commit_result_t cr;
  CHECK_OK(ice_commit(f.t, &rd, &cr, &err), &err);
  CHECK_EQ(count_rows(f.t, &err), 8);
  ice_compact_opts_t o = {.file_size_threshold = 1};
  ice_compact_result_t r;
  CHECK_OK(ice_compact(f.t, &o, &r, &err), &err);
  CHECK_EQ(r.rewritten_data_files, 1);
  CHECK_EQ(r.removed_delete_files, 1);
  CHECK_EQ(r.added_data_files, 1);
  CHECK_EQ(live_files(&f, ICE_CONTENT_POSITION_DELETES, &err), 0);
  CHECK_EQ(count_rows(f.t, &err), 8);
  const ice_snapshot_t *cur = ice_meta_current_snapshot(f.t->meta);
  CHECK_STR(ice_snapshot_summary(cur, "removed-position-delete-files"), "1");
  CHECK_STR(ice_snapshot_summary(cur, "total-position-deletes"), "0");
  fx_close(&f);
}

/* Another writer removes a file the compaction planned to replace: the
 * commit fails validation, nothing changes, and the files it wrote go. */
TEST(compact_conflicts_with_concurrent_removal) {
  fl_err_t err;
  fx_t f;
  CHECK_OK(fx_open(&f, "compact_race", false, NULL, 0, &err), &err);
  const char *p1, *p2;
  CHECK_OK(append(&f, NULL, 4, &p1, NULL, &err), &err);
  CHECK_OK(append(&f, NULL, 4, &p2, NULL, &err), &err);
  ice_table_t *stale;
  ice_committer_t cm = {.ctx = &f.cat, .current = mem_current, .swap = mem_swap};
  CHECK_OK(ice_table_load(io_local_fs(), "db.maint", f.cat.loc, &cm, &stale, &err), &err);
  CHECK_OK(overwrite(&f, p1, 2, NULL, NULL, &err), &err);
  size_t files_before = count_files(fl_arena_sprintf(f.a, "%s/data", f.dir));
  char *head = fl_strdup(f.cat.loc);
  ice_compact_opts_t o = {.file_size_threshold = 1 << 20};
  ice_compact_result_t r;
  int rc = ice_compact(stale, &o, &r, &err);
  CHECK_EQ(rc, FL_ECONFLICT);
  CHECK(strstr(err.msg, "db.maint") != NULL);
  CHECK_STR(f.cat.loc, head);
  CHECK_EQ(count_files(fl_arena_sprintf(f.a, "%s/data", f.dir)), files_before);
  CHECK_EQ(count_rows(f.t, &err), 6);
  fl_free(head);
  ice_table_free(stale);
  fx_close(&f);
}

/* A concurrent append does not conflict: the compaction lands on top of it
 * and the appended file stays live. */
TEST(compact_after_concurrent_append) {
  fl_err_t err;
  fx_t f;
  CHECK_OK(fx_open(&f, "compact_append", false, NULL, 0, &err), &err);
  for (int i = 0; i < 3; i++) CHECK_OK(append(&f, NULL, 3, NULL, NULL, &err), &err);
  ice_table_t *stale;
  ice_committer_t cm = {.ctx = &f.cat, .current = mem_current, .swap = mem_swap};
  CHECK_OK(ice_table_load(io_local_fs(), "db.maint", f.cat.loc, &cm, &stale, &err), &err);
  const char *late;
  CHECK_OK(append(&f, NULL, 5, &late, NULL, &err), &err);
  ice_compact_opts_t o = {.file_size_threshold = 1 << 20};
  ice_compact_result_t r;
  CHECK_OK(ice_compact(stale, &o, &r, &err), &err);
  CHECK_EQ(r.rewritten_data_files, 3);
  CHECK_EQ(count_rows(stale, &err), 14);
  CHECK(exists(late));
  ice_table_free(stale);
  fx_close(&f);
}

/* A filter selects whole partitions only. */
TEST(compact_filter_needs_partitions) {
  fl_err_t err;
  fx_t f;
  CHECK_OK(fx_open(&f, "compact_filter", false, NULL, 0, &err), &err);
  for (int i = 0; i < 2; i++) CHECK_OK(append(&f, NULL, 3, NULL, NULL, &err), &err);
  ice_expr_t *e;
  CHECK_OK(ice_expr_parse(f.a, "id > 1", &e, &err), &err);
  ice_compact_opts_t o = {.file_size_threshold = 1 << 20, .filter = e};
  ice_compact_result_t r;
  CHECK_EQ(ice_compact(f.t, &o, &r, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "must select whole partitions") != NULL);
  /* A filter no file can match selects nothing. */
  CHECK_OK(ice_expr_parse(f.a, "id > 1000", &e, &err), &err);
  o.filter = e;
  CHECK_OK(ice_compact(f.t, &o, &r, &err), &err);
  CHECK_EQ(r.snapshot_id, -1);
  fx_close(&f);
}
