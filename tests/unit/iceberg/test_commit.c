/*
 * test_commit.c - snapshot-producing commits (ice_commit.h): append,
 * overwrite and delete by filter or path, row deltas with position and
 * equality deletes, rewrites, manifest merging and the conflict rules
 * after a lost race. Tables live in a scratch folder with real Parquet
 * data files written by ice_data_writer; the catalog is an in-memory
 * "current location" whose swap compares the old location with it, and a
 * hook lets a second writer commit between a writer's load and its swap.
 * Expected values (counts, sizes, sums of records) are computed here from
 * the files the test wrote, not taken from the commit code.
 */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/strset.h"
#include "iceberg/ice_commit.h"
#include "iceberg/ice_data_writer.h"
#include "iceberg/ice_int.h"
#include "iceberg/ice_manifest.h"
#include "iceberg/ice_meta.h"
#include "io/fs.h"
#include "test.h"
#include "types/vec.h"

/* ---- an in-memory catalog ---- */

typedef struct mem_cat mem_cat_t;
typedef void (*hook_fn)(mem_cat_t *mc);
struct mem_cat {
  char *current;
  int swaps, lost;
  hook_fn hook; /* runs once, inside the next swap, before the compare */
  void *hook_arg;
  int hook_times; /* how many swaps run the hook (0: none) */
};

static int mc_current(void *ctx, char **out, fl_err_t *err) {
  (void)err;
  mem_cat_t *mc = ctx;
  *out = fl_strdup(mc->current);
  return FL_OK;
}

static int mc_swap(void *ctx, const char *old, const char *new_loc, fl_err_t *err) {
  mem_cat_t *mc = ctx;
  if (mc->hook && mc->hook_times > 0) {
    mc->hook_times--;
    hook_fn h = mc->hook;
    h(mc);
  }
  mc->swaps++;
  if (!old || strcmp(old, mc->current) != 0) {
    mc->lost++;
    return fl_err_set_retriable(err, FL_ECONFLICT, "swap: %s is no longer current", old);
  }
  fl_free(mc->current);
  mc->current = fl_strdup(new_loc);
  return FL_OK;
}

static ice_committer_t mc_committer(mem_cat_t *mc) {
  return (ice_committer_t){.ctx = mc, .current = mc_current, .swap = mc_swap, .release = NULL};
}

/* ---- tables and files ---- */

static int table_seq;

/* A new table "id long not null, cat string" partitioned by identity(cat)
 * (or unpartitioned), with props, registered in mc and loaded. */
static ice_table_t *new_table(mem_cat_t *mc, bool partitioned, const ice_kv_t *props,
                              uint32_t nprops, fl_err_t *err) {
  fl_arena_t *a = fl_arena_new(0);
  ice_table_t *t = NULL;
  ty_schema_t *s;
  ice_spec_t *spec = NULL;
  ice_meta_t *m = NULL;
  int32_t last = 999;
  if (ty_schema_parse(a, "id long not null, cat string", &s, err)) goto out;
  if (partitioned && ice_spec_parse(a, "cat", s, 0, &last, &spec, err)) goto out;
  char *loc = fl_arena_sprintf(a, "%s/t%d", t_tmpdir(), ++table_seq);
  if (ice_meta_new(s, spec, NULL, loc, props, nprops, &m, err)) goto out;
  m->last_updated_ms = 1;
  char *path = ice_metadata_file_name(a, loc, NULL);
  io_fs_t *fs = io_local_fs();
  char *dir = fl_arena_strndup(a, path, (size_t)(strrchr(path, '/') - path));
  if (fs->mkdirs && fs->mkdirs(fs, dir, err)) goto out;
  if (ice_meta_write(fs, path, m, err)) goto out;
  fl_free(mc->current);
  mc->current = fl_strdup(path);
  ice_committer_t c = mc_committer(mc);
  if (ice_table_load(fs, "db.t", path, &c, &t, err)) t = NULL;
out:
  if (m) ice_meta_free(m);
  fl_arena_free(a);
  return t;
}

/* A second handle on the same table (another writer). */
static ice_table_t *open_again(mem_cat_t *mc, fl_err_t *err) {
  ice_committer_t c = mc_committer(mc);
  ice_table_t *t = NULL;
  if (ice_table_load(io_local_fs(), "db.t", mc->current, &c, &t, err)) return NULL;
  return t;
}

static ty_value_t str_value(const char *s) {
  ty_value_t v = {.kind = TY_STRING};
  v.u.bytes.p = (const uint8_t *)s;
  v.u.bytes.n = strlen(s);
  return v;
}

/* Writes rows id = from .. from+n-1 with cat as one Parquet data file. */
static ice_data_file_t *write_data(ice_table_t *t, fl_arena_t *a, const char *cat, int64_t from,
                                   uint32_t n, fl_err_t *err) {
  const ty_schema_t *schema = ice_meta_schema(t->meta);
  const ice_spec_t *spec = ice_meta_spec(t->meta);
  ice_dw_opts_t o = {.spec = spec->nfields ? spec : NULL, .sort_order_id = 0};
  ice_dw_t *w;
  if (ice_dw_open(t->fs, t->meta->location, schema, &o, &w, err)) return NULL;
  ty_batch_t *b = ty_batch_new(schema, n);
  for (uint32_t i = 0; i < n; i++) {
    ty_vec_append_i64(b->cols[0], from + i);
    ty_vec_append_bytes(b->cols[1], cat, strlen(cat));
  }
  ty_batch_seal(b);
  int rc = ice_dw_write(w, b, err);
  ty_batch_free(b);
  ice_data_file_t *files = NULL;
  size_t nf = 0;
  if (rc == FL_OK) rc = ice_dw_close(w, a, &files, &nf, err);
  if (rc || nf != 1) {
    if (rc == FL_OK) fl_err_set(err, FL_EINTERNAL, "expected one file, got %zu", nf);
    ice_dw_abort(w);
    return NULL;
  }
  ice_dw_free(w);
  return &files[0];
}

/* Position deletes of positions pos[0..n) in data file f. */
static ice_data_file_t *write_pos_deletes(ice_table_t *t, fl_arena_t *a, const ice_data_file_t *f,
                                          const int64_t *pos, uint32_t n, fl_err_t *err) {
  const ice_spec_t *spec = ice_meta_spec(t->meta);
  ice_dw_opts_t o = {.content = ICE_CONTENT_POSITION_DELETES,
                     .spec = spec->nfields ? spec : NULL,
                     .partition = spec->nfields ? f->partition : NULL};
  ice_dw_t *w;
  if (ice_dw_open(t->fs, t->meta->location, ice_meta_schema(t->meta), &o, &w, err)) return NULL;
  int rc = FL_OK;
  for (uint32_t i = 0; i < n && rc == FL_OK; i++)
    rc = ice_dw_delete_position(w, f->path, pos[i], err);
  ice_data_file_t *files = NULL;
  size_t nf = 0;
  if (rc == FL_OK) rc = ice_dw_close(w, a, &files, &nf, err);
  if (rc || nf != 1) {
    ice_dw_abort(w);
    return NULL;
  }
  ice_dw_free(w);
  return &files[0];
}

/* Equality deletes on id for the given ids, in partition cat. */
static ice_data_file_t *write_eq_deletes(ice_table_t *t, fl_arena_t *a, const char *cat,
                                         const int64_t *ids, uint32_t n, fl_err_t *err) {
  const ice_spec_t *spec = ice_meta_spec(t->meta);
  ty_value_t part = str_value(cat);
  int32_t eq[] = {1};
  ice_dw_opts_t o = {.content = ICE_CONTENT_EQUALITY_DELETES,
                     .spec = spec->nfields ? spec : NULL,
                     .partition = spec->nfields ? &part : NULL,
                     .equality_ids = eq,
                     .nequality_ids = 1};
  ice_dw_t *w;
  if (ice_dw_open(t->fs, t->meta->location, ice_meta_schema(t->meta), &o, &w, err)) return NULL;
  ty_batch_t *b = ty_batch_new(ice_dw_schema(w), n);
  for (uint32_t i = 0; i < n; i++) ty_vec_append_i64(b->cols[0], ids[i]);
  ty_batch_seal(b);
  int rc = ice_dw_write(w, b, err);
  ty_batch_free(b);
  ice_data_file_t *files = NULL;
  size_t nf = 0;
  if (rc == FL_OK) rc = ice_dw_close(w, a, &files, &nf, err);
  if (rc || nf != 1) {
    ice_dw_abort(w);
    return NULL;
  }
  ice_dw_free(w);
  return &files[0];
}

static ice_expr_t *filter(ice_table_t *t, fl_arena_t *a, const char *text, fl_err_t *err) {
  ice_expr_t *e, *b;
  if (ice_expr_parse(a, text, &e, err)) return NULL;
  if (ice_expr_bind(a, e, ice_meta_schema(t->meta), true, &b, err)) return NULL;
  return b;
}

static const ice_snapshot_t *head(const ice_table_t *t) {
  return ice_meta_current_snapshot(t->meta);
}

static const char *sum(const ice_snapshot_t *s, const char *key) {
  const char *v = ice_snapshot_summary(s, key);
  return v ? v : "(absent)";
}

static long long sum_int(const ice_snapshot_t *s, const char *key) {
  const char *v = ice_snapshot_summary(s, key);
  return v ? atoll(v) : -1;
}

/* Live entries of a snapshot; counts how many carry path. */
static int count_live(const ice_table_t *t, fl_arena_t *a, const ice_snapshot_t *s,
                      const char *path, size_t *total) {
  ice_manifest_entry_t *es;
  size_t n;
  fl_err_t err;
  if (ice_snapshot_entries(t, a, s, &es, &n, &err)) return -1;
  int c = 0;
  for (size_t i = 0; i < n; i++)
    if (!path || strcmp(es[i].file.path, path) == 0) c++;
  if (total) *total = n;
  return c;
}

static const ice_manifest_entry_t *find_live(const ice_table_t *t, fl_arena_t *a,
                                             const ice_snapshot_t *s, const char *path) {
  ice_manifest_entry_t *es;
  size_t n;
  fl_err_t err;
  if (ice_snapshot_entries(t, a, s, &es, &n, &err)) return NULL;
  for (size_t i = 0; i < n; i++)
    if (strcmp(es[i].file.path, path) == 0) return &es[i];
  return NULL;
}

/* Every entry (all statuses) of the manifests a snapshot lists. */
static int all_entries(const ice_table_t *t, fl_arena_t *a, const ice_snapshot_t *s,
                       ice_manifest_entry_t **out, size_t *n, ice_manifest_file_t **mfs,
                       size_t *nm) {
  fl_err_t err;
  if (ice_snapshot_manifests(t, a, s, mfs, nm, &err)) return -1;
  size_t cap = 256, len = 0;
  ice_manifest_entry_t *all = fl_arena_alloc(a, cap * sizeof *all);
  for (size_t i = 0; i < *nm; i++) {
    ice_manifest_entry_t *es;
    size_t ne;
    ice_manifest_file_t mf = (*mfs)[i];
    if (ice_manifest_read(t->fs, a, &mf, NULL, &es, &ne, &err)) return -1;
    for (size_t j = 0; j < ne && len < cap; j++) all[len++] = es[j];
  }
  *out = all;
  *n = len;
  return 0;
}

static int count_dir(const char *dir, const char *suffix) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t l = strlen(e->d_name), sl = strlen(suffix);
    if (l >= sl && strcmp(e->d_name + l - sl, suffix) == 0) n++;
  }
  closedir(d);
  return n;
}

static const char *meta_dir(const ice_table_t *t, fl_arena_t *a) {
  return fl_arena_sprintf(a, "%s/metadata", t->meta->location);
}

static const ice_kv_t FAST[] = {{"commit.retry.min-wait-ms", "0"},
                                {"commit.retry.max-wait-ms", "1"}};

/* ---- append ---- */

TEST(append_snapshot_fields_manifests_and_summary) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  mem_cat_t mc = {0};
  ice_table_t *t = new_table(&mc, true, FAST, 2, &err);
  CHECK_OK(t ? FL_OK : err.code, &err);
  ice_data_file_t *f1 = write_data(t, a, "a", 0, 10, &err);
  CHECK_OK(f1 ? FL_OK : err.code, &err);
  ice_data_file_t *f2 = write_data(t, a, "b", 10, 5, &err);
  CHECK_OK(f2 ? FL_OK : err.code, &err);
  ice_data_file_t adds[] = {*f1, *f2};
  ice_kv_t extra[] = {{"floe.job-id", "j1"}, {"operation", "delete"}, {"total-records", "999"}};
  ice_change_t c = {.kind = ICE_CHANGE_APPEND,
                    .add = adds,
                    .nadd = 2,
                    .base_snapshot_id = -1,
                    .summary = extra,
                    .nsummary = 3};
  ice_commit_result_t res;
  CHECK_OK(ice_commit(t, &c, &res, &err), &err);
  CHECK_EQ(res.attempts, 1);
  const ice_snapshot_t *s1 = head(t);
  CHECK(s1 != NULL);
  CHECK_EQ(s1->snapshot_id, res.snapshot_id);
  CHECK(s1->snapshot_id > 0);
  CHECK_EQ(s1->parent_id, -1);
  CHECK_EQ(s1->sequence_number, 1);
  CHECK_EQ(res.sequence_number, 1);
  CHECK_EQ(t->meta->last_sequence_number, 1);
  CHECK_EQ(s1->schema_id, t->meta->current_schema_id);
  CHECK(s1->manifest_list != NULL);
  CHECK(strstr(s1->manifest_list, "/metadata/snap-") != NULL);
  CHECK(strstr(s1->manifest_list, ".avro") != NULL);
  CHECK_STR(mc.current, t->metadata_location);

  /* Summary exactly as Java writes an append. */
  char buf[64];
  CHECK_STR(ice_snapshot_operation(s1), "append");
  CHECK_STR(sum(s1, "added-data-files"), "2");
  snprintf(buf, sizeof buf, "%lld", (long long)(f1->record_count + f2->record_count));
  CHECK_EQ(f1->record_count + f2->record_count, 15);
  CHECK_STR(sum(s1, "added-records"), buf);
  CHECK_STR(sum(s1, "total-records"), buf);
  snprintf(buf, sizeof buf, "%lld", (long long)(f1->file_size + f2->file_size));
  CHECK_STR(sum(s1, "added-files-size"), buf);
  CHECK_STR(sum(s1, "total-files-size"), buf);
  CHECK_STR(sum(s1, "changed-partition-count"), "2");
  CHECK_STR(sum(s1, "total-data-files"), "2");
  CHECK_STR(sum(s1, "total-delete-files"), "0");
  CHECK_STR(sum(s1, "total-position-deletes"), "0");
  CHECK_STR(sum(s1, "total-equality-deletes"), "0");
  CHECK_STR(sum(s1, "floe.job-id"), "j1");
  CHECK(ice_snapshot_summary(s1, "deleted-data-files") == NULL);
  CHECK(ice_snapshot_summary(s1, "deleted-records") == NULL);
  CHECK(ice_snapshot_summary(s1, "added-delete-files") == NULL);
  CHECK_STR(s1->summary[0].key, "operation");

  /* Manifests: ADDED entries that inherit the snapshot's sequence number. */
  ice_manifest_entry_t *all;
  size_t n, nm;
  ice_manifest_file_t *mfs;
  CHECK_EQ(all_entries(t, a, s1, &all, &n, &mfs, &nm), 0);
  CHECK_EQ(nm, 1);
  CHECK_EQ(mfs[0].sequence_number, 1);
  CHECK_EQ(mfs[0].min_sequence_number, 1);
  CHECK_EQ(mfs[0].added_snapshot_id, s1->snapshot_id);
  CHECK_EQ(mfs[0].added_files, 2);
  CHECK_EQ(mfs[0].content, 0);
  CHECK_EQ(n, 2);
  for (size_t i = 0; i < n; i++) {
    CHECK_EQ(all[i].status, ICE_STATUS_ADDED);
    CHECK_EQ(all[i].snapshot_id, s1->snapshot_id);
    CHECK_EQ(all[i].sequence_number, 1);
    CHECK_EQ(all[i].file_sequence_number, 1);
  }
  CHECK_EQ(count_live(t, a, s1, f1->path, NULL), 1);
  CHECK_EQ(count_live(t, a, s1, f2->path, NULL), 1);

  /* A second append: parent, sequence, totals, monotonic time. */
  ice_data_file_t *f3 = write_data(t, a, "a", 100, 7, &err);
  CHECK_OK(f3 ? FL_OK : err.code, &err);
  ice_change_t c2 = {.kind = ICE_CHANGE_APPEND, .add = f3, .nadd = 1, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &c2, &res, &err), &err);
  const ice_snapshot_t *s2 = head(t);
  s1 = ice_meta_snapshot(t->meta, s2->parent_id);
  CHECK(s1 != NULL);
  CHECK_EQ(s2->sequence_number, 2);
  CHECK(s2->timestamp_ms > s1->timestamp_ms);
  CHECK_STR(sum(s2, "added-data-files"), "1");
  CHECK_STR(sum(s2, "changed-partition-count"), "1");
  CHECK_EQ(sum_int(s2, "total-records"), 22);
  CHECK_EQ(sum_int(s2, "total-data-files"), 3);
  CHECK_EQ(sum_int(s2, "total-files-size"), f1->file_size + f2->file_size + f3->file_size);
  CHECK(ice_snapshot_summary(s2, "floe.job-id") == NULL);
  const ice_manifest_entry_t *e1 = find_live(t, a, s2, f1->path);
  const ice_manifest_entry_t *e3 = find_live(t, a, s2, f3->path);
  CHECK(e1 && e3);
  CHECK_EQ(e1->sequence_number, 1);
  CHECK_EQ(e3->sequence_number, 2);
  CHECK_EQ(e3->snapshot_id, s2->snapshot_id);
  size_t total;
  CHECK_EQ(count_live(t, a, s2, NULL, &total), 3);
  ice_table_free(t);
  fl_free(mc.current);
  fl_arena_free(a);
}

static int add_branch(ice_meta_t *m, void *arg, fl_err_t *err) {
  const char *const *names = arg;
  ice_ref_t r = {.name = names[0],
                 .snapshot_id = m->current_snapshot_id,
                 .is_tag = names[1] != NULL,
                 .max_ref_age_ms = -1,
                 .max_snapshot_age_ms = -1,
                 .min_snapshots_to_keep = -1};
  return ice_meta_set_ref(m, &r, 2, err);
}

TEST(append_to_branch_and_not_to_tag) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  mem_cat_t mc = {0};
  ice_table_t *t = new_table(&mc, false, FAST, 2, &err);
  CHECK_OK(t ? FL_OK : err.code, &err);
  ice_data_file_t *f1 = write_data(t, a, "a", 0, 4, &err);
  CHECK_OK(f1 ? FL_OK : err.code, &err);
  ice_change_t c = {.kind = ICE_CHANGE_APPEND, .add = f1, .nadd = 1, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &c, NULL, &err), &err);
  int64_t main1 = t->meta->current_snapshot_id;
  const char *br[] = {"dev", NULL};
  CHECK_OK(ice_commit_meta_edit(t, add_branch, (void *)br, &err), &err);
  const char *tag[] = {"v1", "tag"};
  CHECK_OK(ice_commit_meta_edit(t, add_branch, (void *)tag, &err), &err);

  ice_data_file_t *f2 = write_data(t, a, "a", 4, 3, &err);
  CHECK_OK(f2 ? FL_OK : err.code, &err);
  ice_change_t cb = {
      .kind = ICE_CHANGE_APPEND, .branch = "dev", .add = f2, .nadd = 1, .base_snapshot_id = -1};
  ice_commit_result_t res;
  CHECK_OK(ice_commit(t, &cb, &res, &err), &err);
  CHECK_EQ(t->meta->current_snapshot_id, main1); /* main did not move */
  const ice_ref_t *dev = ice_meta_ref(t->meta, "dev");
  CHECK(dev && dev->snapshot_id == res.snapshot_id);
  const ice_snapshot_t *sd = ice_meta_snapshot(t->meta, res.snapshot_id);
  CHECK_EQ(sd->parent_id, main1);
  CHECK_EQ(sd->sequence_number, 2);
  CHECK_EQ(sum_int(sd, "total-records"), 7);
  CHECK_EQ(count_live(t, a, sd, NULL, NULL), 2);
  CHECK_EQ(count_live(t, a, head(t), NULL, NULL), 1);
  /* The next commit replaces t->meta, so keep the id, not the pointer. */
  const int64_t dev_id = sd->snapshot_id;
  /* main's next commit takes last-sequence-number + 1, above dev's. */
  ice_data_file_t *f3 = write_data(t, a, "a", 9, 1, &err);
  CHECK_OK(f3 ? FL_OK : err.code, &err);
  ice_change_t cm = {.kind = ICE_CHANGE_APPEND, .add = f3, .nadd = 1, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &cm, &res, &err), &err);
  CHECK_EQ(res.sequence_number, 3);
  CHECK_EQ(head(t)->parent_id, main1);
  CHECK_EQ(ice_meta_ref(t->meta, "dev")->snapshot_id, dev_id);
  CHECK_EQ(sum_int(head(t), "total-records"), 5);

  ice_change_t ct = cb;
  ct.branch = "v1";
  CHECK_ERR(ice_commit(t, &ct, NULL, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "tag") != NULL);
  ct.branch = "nosuch";
  CHECK_ERR(ice_commit(t, &ct, NULL, &err), FL_ENOTFOUND);
  CHECK(strstr(err.msg, "nosuch") != NULL);
  ice_table_free(t);
  fl_free(mc.current);
  fl_arena_free(a);
}

/* ---- overwrite, delete, row delta, rewrite ---- */

/* A table with files a1 (cat a, ids 0..9), a2 (cat a, 10..19), b1 (cat b,
 * 20..29), committed in one append. */
typedef struct fixture {
  mem_cat_t mc;
  ice_table_t *t;
  ice_data_file_t *a1, *a2, *b1;
  int64_t s0;
} fixture_t;

static int fixture_init(fixture_t *fx, fl_arena_t *a, const ice_kv_t *props, uint32_t nprops,
                        fl_err_t *err) {
  memset(fx, 0, sizeof *fx);
  fx->t = new_table(&fx->mc, true, props, nprops, err);
  if (!fx->t) return err->code;
  fx->a1 = write_data(fx->t, a, "a", 0, 10, err);
  fx->a2 = fx->a1 ? write_data(fx->t, a, "a", 10, 10, err) : NULL;
  fx->b1 = fx->a2 ? write_data(fx->t, a, "b", 20, 10, err) : NULL;
  if (!fx->b1) return err->code;
  ice_data_file_t adds[] = {*fx->a1, *fx->a2, *fx->b1};
  ice_change_t c = {.kind = ICE_CHANGE_APPEND, .add = adds, .nadd = 3, .base_snapshot_id = -1};
  int rc = ice_commit(fx->t, &c, NULL, err);
  if (rc) return rc;
  fx->s0 = fx->t->meta->current_snapshot_id;
  return FL_OK;
}

static void fixture_free(fixture_t *fx) {
  ice_table_free(fx->t);
  fl_free(fx->mc.current);
}

static const ice_kv_t FAST_NOMERGE[] = {{"commit.retry.min-wait-ms", "0"},
                                        {"commit.retry.max-wait-ms", "1"},
                                        {"commit.manifest-merge.enabled", "false"}};

TEST(overwrite_by_path_rewrites_manifest_with_deleted_and_existing) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  fixture_t fx;
  CHECK_OK(fixture_init(&fx, a, FAST, 2, &err), &err);
  ice_table_t *t = fx.t;
  /* A later append so that the rewritten manifest is not the only one. */
  ice_data_file_t *b2 = write_data(t, a, "b", 30, 3, &err);
  CHECK_OK(b2 ? FL_OK : err.code, &err);
  ice_change_t ca = {.kind = ICE_CHANGE_APPEND, .add = b2, .nadd = 1, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &ca, NULL, &err), &err);

  ice_data_file_t *a3 = write_data(t, a, "a", 0, 20, &err);
  CHECK_OK(a3 ? FL_OK : err.code, &err);
  const char *rm[] = {fx.a1->path, fx.a2->path};
  ice_change_t c = {.kind = ICE_CHANGE_OVERWRITE,
                    .add = a3,
                    .nadd = 1,
                    .remove = rm,
                    .nremove = 2,
                    .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &c, NULL, &err), &err);
  const ice_snapshot_t *s = head(t);
  CHECK_EQ(s->sequence_number, 3);
  CHECK_STR(ice_snapshot_operation(s), "overwrite");
  CHECK_STR(sum(s, "added-data-files"), "1");
  CHECK_STR(sum(s, "deleted-data-files"), "2");
  CHECK_STR(sum(s, "added-records"), "20");
  CHECK_STR(sum(s, "deleted-records"), "20");
  CHECK_EQ(sum_int(s, "removed-files-size"), fx.a1->file_size + fx.a2->file_size);
  CHECK_EQ(sum_int(s, "added-files-size"), a3->file_size);
  CHECK_STR(sum(s, "changed-partition-count"), "1");
  CHECK_EQ(sum_int(s, "total-records"), 33);
  CHECK_EQ(sum_int(s, "total-data-files"), 3);
  CHECK_EQ(sum_int(s, "total-files-size"), a3->file_size + fx.b1->file_size + b2->file_size);

  ice_manifest_entry_t *all;
  size_t n, nm;
  ice_manifest_file_t *mfs;
  CHECK_EQ(all_entries(t, a, s, &all, &n, &mfs, &nm), 0);
  int deleted = 0, existing = 0, added = 0;
  for (size_t i = 0; i < n; i++) {
    const ice_manifest_entry_t *e = &all[i];
    if (e->status == ICE_STATUS_DELETED) {
      deleted++;
      CHECK(strcmp(e->file.path, fx.a1->path) == 0 || strcmp(e->file.path, fx.a2->path) == 0);
      CHECK_EQ(e->snapshot_id, s->snapshot_id);
      CHECK_EQ(e->sequence_number, 1); /* the data sequence number it had */
    } else if (e->status == ICE_STATUS_EXISTING) {
      existing++;
      if (strcmp(e->file.path, fx.b1->path) == 0) {
        CHECK_EQ(e->sequence_number, 1);
        CHECK_EQ(e->file_sequence_number, 1);
        CHECK_EQ(e->snapshot_id, fx.s0);
      }
    } else {
      added++;
    }
  }
  CHECK_EQ(deleted, 2);
  CHECK_EQ(existing, 1); /* b1 in the rewritten manifest */
  CHECK_EQ(added, 2);    /* b2 (untouched manifest) and a3 */
  CHECK_EQ(count_live(t, a, s, fx.a1->path, NULL), 0);
  CHECK_EQ(count_live(t, a, s, fx.b1->path, NULL), 1);
  const ice_manifest_entry_t *eb = find_live(t, a, s, b2->path);
  CHECK(eb && eb->sequence_number == 2);

  /* Removing a file that is not in the table fails and names it. */
  const char *bad[] = {"/nowhere/x.parquet"};
  ice_change_t cbad = {
      .kind = ICE_CHANGE_DELETE, .remove = bad, .nremove = 1, .base_snapshot_id = -1};
  CHECK_ERR(ice_commit(t, &cbad, NULL, &err), FL_ENOTFOUND);
  CHECK(strstr(err.msg, "/nowhere/x.parquet") != NULL);
  fixture_free(&fx);
  fl_arena_free(a);
}

TEST(delete_by_filter_and_by_path) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  fixture_t fx;
  CHECK_OK(fixture_init(&fx, a, FAST, 2, &err), &err);
  ice_table_t *t = fx.t;
  /* cat = 'b' covers b1 entirely (by partition). */
  ice_expr_t *f = filter(t, a, "cat = 'b'", &err);
  CHECK_OK(f ? FL_OK : err.code, &err);
  ice_change_t c = {.kind = ICE_CHANGE_DELETE, .filter = f, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &c, NULL, &err), &err);
  const ice_snapshot_t *s = head(t);
  CHECK_STR(ice_snapshot_operation(s), "delete");
  CHECK_STR(sum(s, "deleted-data-files"), "1");
  CHECK_STR(sum(s, "deleted-records"), "10");
  CHECK_STR(sum(s, "changed-partition-count"), "1");
  CHECK_EQ(sum_int(s, "total-records"), 20);
  CHECK_EQ(sum_int(s, "total-data-files"), 2);
  CHECK(ice_snapshot_summary(s, "added-data-files") == NULL);
  CHECK_EQ(count_live(t, a, s, fx.b1->path, NULL), 0);
  CHECK_EQ(count_live(t, a, s, NULL, NULL), 2);

  /* id >= 10 AND cat = 'a' covers a2 by its metrics (ids 10..19). */
  f = filter(t, a, "id >= 10 AND cat = 'a'", &err);
  CHECK_OK(f ? FL_OK : err.code, &err);
  c.filter = f;
  CHECK_OK(ice_commit(t, &c, NULL, &err), &err);
  s = head(t);
  CHECK_STR(sum(s, "deleted-data-files"), "1");
  CHECK_EQ(count_live(t, a, s, fx.a2->path, NULL), 0);
  CHECK_EQ(count_live(t, a, s, fx.a1->path, NULL), 1);

  /* id >= 5 matches only part of a1: the commit refuses. */
  int64_t before = t->meta->current_snapshot_id;
  f = filter(t, a, "id >= 5", &err);
  CHECK_OK(f ? FL_OK : err.code, &err);
  c.filter = f;
  CHECK_ERR(ice_commit(t, &c, NULL, &err), FL_EINVALID);
  CHECK(strstr(err.msg, fx.a1->path) != NULL);
  CHECK_EQ(t->meta->current_snapshot_id, before);

  /* A filter that matches nothing changes nothing but still commits. */
  f = filter(t, a, "id > 1000", &err);
  CHECK_OK(f ? FL_OK : err.code, &err);
  c.filter = f;
  CHECK_OK(ice_commit(t, &c, NULL, &err), &err);
  CHECK_EQ(count_live(t, a, head(t), fx.a1->path, NULL), 1);

  /* Remove by path. */
  const char *rm[] = {fx.a1->path};
  ice_change_t cp = {.kind = ICE_CHANGE_DELETE, .remove = rm, .nremove = 1, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &cp, NULL, &err), &err);
  s = head(t);
  CHECK_STR(ice_snapshot_operation(s), "delete");
  CHECK_EQ(sum_int(s, "total-records"), 0);
  CHECK_EQ(sum_int(s, "total-data-files"), 0);
  CHECK_EQ(sum_int(s, "total-files-size"), 0);
  CHECK_EQ(count_live(t, a, s, NULL, NULL), 0);
  fixture_free(&fx);
  fl_arena_free(a);
}

TEST(overwrite_by_filter_operation_names) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  fixture_t fx;
  CHECK_OK(fixture_init(&fx, a, FAST, 2, &err), &err);
  ice_table_t *t = fx.t;
  /* Overwrite with a filter and a new file: "overwrite". */
  ice_expr_t *f = filter(t, a, "cat = 'b'", &err);
  CHECK_OK(f ? FL_OK : err.code, &err);
  ice_data_file_t *b2 = write_data(t, a, "b", 50, 2, &err);
  CHECK_OK(b2 ? FL_OK : err.code, &err);
  ice_change_t c = {
      .kind = ICE_CHANGE_OVERWRITE, .filter = f, .add = b2, .nadd = 1, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &c, NULL, &err), &err);
  CHECK_STR(ice_snapshot_operation(head(t)), "overwrite");
  CHECK_STR(sum(head(t), "deleted-data-files"), "1");
  CHECK_STR(sum(head(t), "added-data-files"), "1");
  /* Overwrite that only adds: "append" (Java's BaseOverwriteFiles). */
  ice_data_file_t *b3 = write_data(t, a, "b", 60, 2, &err);
  CHECK_OK(b3 ? FL_OK : err.code, &err);
  ice_change_t c2 = {.kind = ICE_CHANGE_OVERWRITE, .add = b3, .nadd = 1, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &c2, NULL, &err), &err);
  CHECK_STR(ice_snapshot_operation(head(t)), "append");
  /* Overwrite that only removes: "delete". */
  const char *rm[] = {b3->path};
  ice_change_t c3 = {
      .kind = ICE_CHANGE_OVERWRITE, .remove = rm, .nremove = 1, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &c3, NULL, &err), &err);
  CHECK_STR(ice_snapshot_operation(head(t)), "delete");
  fixture_free(&fx);
  fl_arena_free(a);
}

TEST(row_delta_with_position_and_equality_deletes) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  fixture_t fx;
  CHECK_OK(fixture_init(&fx, a, FAST, 2, &err), &err);
  ice_table_t *t = fx.t;
  int64_t pos[] = {1, 3, 5};
  ice_data_file_t *pd = write_pos_deletes(t, a, fx.a1, pos, 3, &err);
  CHECK_OK(pd ? FL_OK : err.code, &err);
  CHECK(pd->referenced_data_file && strcmp(pd->referenced_data_file, fx.a1->path) == 0);
  int64_t ids[] = {21, 22};
  ice_data_file_t *ed = write_eq_deletes(t, a, "b", ids, 2, &err);
  CHECK_OK(ed ? FL_OK : err.code, &err);
  ice_data_file_t adds[] = {*pd, *ed};
  ice_change_t c = {.kind = ICE_CHANGE_ROW_DELTA, .add = adds, .nadd = 2, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &c, NULL, &err), &err);
  const ice_snapshot_t *s = head(t);
  CHECK_STR(ice_snapshot_operation(s), "delete"); /* only delete files: Java's BaseRowDelta */
  CHECK_STR(sum(s, "added-delete-files"), "2");
  CHECK_STR(sum(s, "added-position-delete-files"), "1");
  CHECK_STR(sum(s, "added-equality-delete-files"), "1");
  CHECK_STR(sum(s, "added-position-deletes"), "3");
  CHECK_STR(sum(s, "added-equality-deletes"), "2");
  CHECK_EQ(sum_int(s, "added-files-size"), pd->file_size + ed->file_size);
  CHECK_STR(sum(s, "changed-partition-count"), "2");
  CHECK_STR(sum(s, "total-delete-files"), "2");
  CHECK_STR(sum(s, "total-position-deletes"), "3");
  CHECK_STR(sum(s, "total-equality-deletes"), "2");
  CHECK_STR(sum(s, "total-records"), "30");
  CHECK_STR(sum(s, "total-data-files"), "3");
  CHECK(ice_snapshot_summary(s, "added-data-files") == NULL);

  ice_manifest_file_t *mfs;
  size_t nm;
  CHECK_OK(ice_snapshot_manifests(t, a, s, &mfs, &nm, &err), &err);
  int del_manifests = 0;
  for (size_t i = 0; i < nm; i++)
    if (mfs[i].content == 1) {
      del_manifests++;
      CHECK_EQ(mfs[i].sequence_number, 2);
      CHECK_EQ(mfs[i].added_files, 2);
    }
  CHECK_EQ(del_manifests, 1); /* position and equality deletes share a deletes manifest per spec */
  const ice_manifest_entry_t *ep = find_live(t, a, s, pd->path);
  const ice_manifest_entry_t *ee = find_live(t, a, s, ed->path);
  CHECK(ep && ee);
  CHECK_EQ(ep->file.content, ICE_CONTENT_POSITION_DELETES);
  CHECK_EQ(ee->file.content, ICE_CONTENT_EQUALITY_DELETES);
  CHECK_EQ(ep->sequence_number, 2);
  CHECK_EQ(ee->sequence_number, 2);
  CHECK_EQ(ee->file.nequality_ids, 1);

  /* A row delta with data and deletes is "overwrite"; data only "append". */
  int64_t pos2[] = {0};
  ice_data_file_t *pd2 = write_pos_deletes(t, a, fx.b1, pos2, 1, &err);
  CHECK_OK(pd2 ? FL_OK : err.code, &err);
  ice_data_file_t *b2 = write_data(t, a, "b", 20, 1, &err);
  CHECK_OK(b2 ? FL_OK : err.code, &err);
  ice_data_file_t adds2[] = {*pd2, *b2};
  ice_change_t c2 = {.kind = ICE_CHANGE_ROW_DELTA, .add = adds2, .nadd = 2, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &c2, NULL, &err), &err);
  CHECK_STR(ice_snapshot_operation(head(t)), "overwrite");
  CHECK_STR(sum(head(t), "total-delete-files"), "3");
  CHECK_STR(sum(head(t), "total-position-deletes"), "4");
  ice_data_file_t *b3 = write_data(t, a, "b", 90, 1, &err);
  CHECK_OK(b3 ? FL_OK : err.code, &err);
  ice_change_t c3 = {.kind = ICE_CHANGE_ROW_DELTA, .add = b3, .nadd = 1, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &c3, NULL, &err), &err);
  CHECK_STR(ice_snapshot_operation(head(t)), "append");
  fixture_free(&fx);
  fl_arena_free(a);
}

TEST(rewrite_replaces_files) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  fixture_t fx;
  CHECK_OK(fixture_init(&fx, a, FAST, 2, &err), &err);
  ice_table_t *t = fx.t;
  ice_data_file_t *a12 = write_data(t, a, "a", 0, 20, &err);
  CHECK_OK(a12 ? FL_OK : err.code, &err);
  const char *rm[] = {fx.a1->path, fx.a2->path};
  ice_change_t c = {.kind = ICE_CHANGE_REWRITE,
                    .add = a12,
                    .nadd = 1,
                    .remove = rm,
                    .nremove = 2,
                    .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &c, NULL, &err), &err);
  const ice_snapshot_t *s = head(t);
  CHECK_STR(ice_snapshot_operation(s), "replace");
  CHECK_STR(sum(s, "added-data-files"), "1");
  CHECK_STR(sum(s, "deleted-data-files"), "2");
  CHECK_STR(sum(s, "total-records"), "30");
  CHECK_STR(sum(s, "total-data-files"), "2");
  CHECK_EQ(count_live(t, a, s, NULL, NULL), 2);
  const ice_manifest_entry_t *eb = find_live(t, a, s, fx.b1->path);
  CHECK(eb && eb->sequence_number == 1 && eb->status == ICE_STATUS_EXISTING);
  fixture_free(&fx);
  fl_arena_free(a);
}

/* ---- manifest merging ---- */

static void append_n(ice_table_t *t, fl_arena_t *a, int n, size_t *max_manifests,
                     ice_data_file_t **files, fl_err_t *err, int *rc) {
  for (int i = 0; i < n && *rc == FL_OK; i++) {
    files[i] = write_data(t, a, i % 2 ? "a" : "b", i * 100, 2, err);
    if (!files[i]) {
      *rc = err->code;
      return;
    }
    ice_change_t c = {
        .kind = ICE_CHANGE_APPEND, .add = files[i], .nadd = 1, .base_snapshot_id = -1};
    *rc = ice_commit(t, &c, NULL, err);
    if (*rc) return;
    ice_manifest_file_t *mfs;
    size_t nm;
    *rc = ice_snapshot_manifests(t, a, head(t), &mfs, &nm, err);
    if (nm > *max_manifests) *max_manifests = nm;
  }
}

TEST(manifest_merging_bounds_the_count) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  mem_cat_t mc = {0};
  ice_kv_t props[] = {{"commit.manifest.min-count-to-merge", "3"}};
  ice_table_t *t = new_table(&mc, true, props, 1, &err);
  CHECK_OK(t ? FL_OK : err.code, &err);
  ice_data_file_t *files[12];
  size_t max_m = 0;
  int rc = FL_OK;
  append_n(t, a, 12, &max_m, files, &err, &rc);
  CHECK_OK(rc, &err);
  CHECK(max_m <= 3);
  const ice_snapshot_t *s = head(t);
  size_t total;
  CHECK_EQ(count_live(t, a, s, NULL, &total), 12);
  for (int i = 0; i < 12; i++) {
    CHECK_EQ(count_live(t, a, s, files[i]->path, NULL), 1);
    const ice_manifest_entry_t *e = find_live(t, a, s, files[i]->path);
    CHECK_EQ(e->sequence_number, i + 1); /* kept through merges */
  }
  CHECK_EQ(sum_int(s, "total-data-files"), 12);
  CHECK_EQ(sum_int(s, "total-records"), 24);
  /* Manifests replaced by a merge in the same commit are not left behind:
   * every manifest file in the folder is listed by some snapshot. */
  int on_disk = count_dir(meta_dir(t, a), ".avro");
  int referenced = 0;
  for (uint32_t i = 0; i < t->meta->nsnapshots; i++) {
    ice_manifest_file_t *mfs;
    size_t nm;
    CHECK_OK(ice_snapshot_manifests(t, a, &t->meta->snapshots[i], &mfs, &nm, &err), &err);
    referenced++; /* the list itself */
    (void)mfs;
  }
  fl_strset_t seen;
  fl_strset_init(&seen);
  for (uint32_t i = 0; i < t->meta->nsnapshots; i++) {
    ice_manifest_file_t *mfs;
    size_t nm;
    ice_snapshot_manifests(t, a, &t->meta->snapshots[i], &mfs, &nm, &err);
    for (size_t j = 0; j < nm; j++)
      if (fl_strset_add_str(&seen, mfs[j].path)) referenced++;
  }
  fl_strset_free(&seen);
  CHECK_EQ(on_disk, referenced);
  ice_table_free(t);
  fl_free(mc.current);

  /* Disabled: one manifest per append. */
  mem_cat_t mc2 = {0};
  ice_kv_t off[] = {{"commit.manifest.min-count-to-merge", "3"},
                    {"commit.manifest-merge.enabled", "false"}};
  t = new_table(&mc2, true, off, 2, &err);
  CHECK_OK(t ? FL_OK : err.code, &err);
  max_m = 0;
  append_n(t, a, 6, &max_m, files, &err, &rc);
  CHECK_OK(rc, &err);
  CHECK_EQ(max_m, 6);
  CHECK_EQ(count_live(t, a, head(t), NULL, NULL), 6);
  ice_table_free(t);
  fl_free(mc2.current);
  fl_arena_free(a);
}

/* ---- conflicts ---- */

/* The concurrent writer: commits its change on its own handle. */
typedef struct rival {
  ice_change_t change;
  int rc;
  fl_err_t err;
  int64_t snapshot_id;
} rival_t;

static void rival_commits(mem_cat_t *mc) {
  rival_t *r = mc->hook_arg;
  ice_table_t *t2 = open_again(mc, &r->err);
  if (!t2) {
    r->rc = r->err.code;
    return;
  }
  ice_commit_result_t res = {0};
  r->rc = ice_commit(t2, &r->change, &res, &r->err);
  r->snapshot_id = res.snapshot_id;
  ice_table_free(t2);
}

static void arm(mem_cat_t *mc, rival_t *r, int times) {
  mc->hook = rival_commits;
  mc->hook_arg = r;
  mc->hook_times = times;
}

TEST(concurrent_appends_both_land) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  fixture_t fx;
  CHECK_OK(fixture_init(&fx, a, FAST, 2, &err), &err);
  ice_table_t *t = fx.t;
  ice_data_file_t *mine = write_data(t, a, "a", 100, 4, &err);
  ice_data_file_t *theirs = write_data(t, a, "b", 200, 6, &err);
  CHECK(mine && theirs);
  rival_t r = {
      .change = {.kind = ICE_CHANGE_APPEND, .add = theirs, .nadd = 1, .base_snapshot_id = -1}};
  arm(&fx.mc, &r, 1);
  int files_before = count_dir(meta_dir(t, a), ".avro");
  int json_before = count_dir(meta_dir(t, a), ".metadata.json");
  ice_change_t c = {.kind = ICE_CHANGE_APPEND, .add = mine, .nadd = 1, .base_snapshot_id = -1};
  ice_commit_result_t res;
  CHECK_OK(ice_commit(t, &c, &res, &err), &err);
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(res.attempts, 2);
  const ice_snapshot_t *s = head(t);
  CHECK_EQ(s->parent_id, r.snapshot_id);
  CHECK_EQ(ice_meta_snapshot(t->meta, r.snapshot_id)->parent_id, fx.s0);
  CHECK_EQ(s->sequence_number, 3);
  CHECK_EQ(count_live(t, a, s, mine->path, NULL), 1);
  CHECK_EQ(count_live(t, a, s, theirs->path, NULL), 1);
  CHECK_EQ(count_live(t, a, s, NULL, NULL), 5);
  CHECK_EQ(sum_int(s, "total-records"), 40);
  CHECK_EQ(sum_int(s, "total-data-files"), 5);
  const ice_manifest_entry_t *e = find_live(t, a, s, mine->path);
  CHECK_EQ(e->sequence_number, 3);
  /* The failed attempt's manifest, list and metadata file are gone: two
   * commits landed, each with one manifest and one list. */
  CHECK_EQ(count_dir(meta_dir(t, a), ".avro"), files_before + 4);
  CHECK_EQ(count_dir(meta_dir(t, a), ".metadata.json"), json_before + 2);
  fixture_free(&fx);
  fl_arena_free(a);
}

TEST(overwrite_of_concurrently_deleted_file_fails) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  fixture_t fx;
  CHECK_OK(fixture_init(&fx, a, FAST, 2, &err), &err);
  ice_table_t *t = fx.t;
  const char *rm[] = {fx.a1->path};
  rival_t r = {
      .change = {.kind = ICE_CHANGE_DELETE, .remove = rm, .nremove = 1, .base_snapshot_id = -1}};
  arm(&fx.mc, &r, 1);
  int files_before = count_dir(meta_dir(t, a), ".avro");
  int json_before = count_dir(meta_dir(t, a), ".metadata.json");
  ice_data_file_t *a3 = write_data(t, a, "a", 0, 10, &err);
  CHECK(a3);
  ice_change_t c = {.kind = ICE_CHANGE_OVERWRITE,
                    .add = a3,
                    .nadd = 1,
                    .remove = rm,
                    .nremove = 1,
                    .base_snapshot_id = -1};
  CHECK_ERR(ice_commit(t, &c, NULL, &err), FL_ECONFLICT);
  CHECK(!err.retriable);
  CHECK(strstr(err.msg, fx.a1->path) != NULL);
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(t->meta->current_snapshot_id, r.snapshot_id);
  /* Only the rival's manifest, list and metadata remain. */
  CHECK_EQ(count_dir(meta_dir(t, a), ".avro"), files_before + 2);
  CHECK_EQ(count_dir(meta_dir(t, a), ".metadata.json"), json_before + 1);
  fixture_free(&fx);
  fl_arena_free(a);
}

TEST(overwrite_filter_conflicts_only_with_matching_appends) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  fixture_t fx;
  CHECK_OK(fixture_init(&fx, a, FAST_NOMERGE, 3, &err), &err);
  ice_table_t *t = fx.t;
  ice_expr_t *f = filter(t, a, "cat = 'b'", &err);
  CHECK(f);
  /* A concurrent append into partition b: its rows were not seen. */
  ice_data_file_t *b2 = write_data(t, a, "b", 500, 3, &err);
  CHECK(b2);
  rival_t r = {.change = {.kind = ICE_CHANGE_APPEND, .add = b2, .nadd = 1, .base_snapshot_id = -1}};
  arm(&fx.mc, &r, 1);
  ice_change_t c = {.kind = ICE_CHANGE_DELETE, .filter = f, .base_snapshot_id = -1};
  CHECK_ERR(ice_commit(t, &c, NULL, &err), FL_ECONFLICT);
  CHECK(!err.retriable);
  CHECK(strstr(err.msg, b2->path) != NULL);
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(count_live(t, a, head(t), fx.b1->path, NULL), 1);

  /* A concurrent append into partition a cannot match: the delete lands. */
  ice_data_file_t *a3 = write_data(t, a, "a", 600, 3, &err);
  CHECK(a3);
  rival_t r2 = {
      .change = {.kind = ICE_CHANGE_APPEND, .add = a3, .nadd = 1, .base_snapshot_id = -1}};
  arm(&fx.mc, &r2, 1);
  /* id < 100 on partition b: b2 (ids 500..) cannot match either. */
  ice_expr_t *f2 = filter(t, a, "cat = 'b' AND id < 100", &err);
  CHECK(f2);
  c.filter = f2;
  ice_commit_result_t res;
  CHECK_OK(ice_commit(t, &c, &res, &err), &err);
  CHECK_OK(r2.rc, &r2.err);
  CHECK_EQ(res.attempts, 2);
  const ice_snapshot_t *s = head(t);
  CHECK_EQ(s->parent_id, r2.snapshot_id);
  CHECK_EQ(count_live(t, a, s, fx.b1->path, NULL), 0);
  CHECK_EQ(count_live(t, a, s, b2->path, NULL), 1);
  CHECK_EQ(count_live(t, a, s, a3->path, NULL), 1);
  CHECK_EQ(sum_int(s, "total-data-files"), 4);
  fixture_free(&fx);
  fl_arena_free(a);
}

TEST(row_delta_conflicts) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  fixture_t fx;
  CHECK_OK(fixture_init(&fx, a, FAST, 2, &err), &err);
  ice_table_t *t = fx.t;
  int64_t pos[] = {2};
  ice_data_file_t *pd = write_pos_deletes(t, a, fx.a1, pos, 1, &err);
  CHECK(pd);
  /* The referenced data file is compacted away concurrently. */
  ice_data_file_t *a12 = write_data(t, a, "a", 0, 20, &err);
  CHECK(a12);
  const char *rm[] = {fx.a1->path, fx.a2->path};
  rival_t r = {.change = {.kind = ICE_CHANGE_REWRITE,
                          .add = a12,
                          .nadd = 1,
                          .remove = rm,
                          .nremove = 2,
                          .base_snapshot_id = -1}};
  arm(&fx.mc, &r, 1);
  ice_change_t c = {.kind = ICE_CHANGE_ROW_DELTA, .add = pd, .nadd = 1, .base_snapshot_id = -1};
  CHECK_ERR(ice_commit(t, &c, NULL, &err), FL_ECONFLICT);
  CHECK(!err.retriable);
  CHECK(strstr(err.msg, fx.a1->path) != NULL);
  CHECK_OK(r.rc, &r.err);

  /* A row delta whose data files are untouched survives a concurrent append
   * elsewhere, and one with a conflict filter fails on a matching append. */
  int64_t pos2[] = {0};
  ice_data_file_t *pdb = write_pos_deletes(t, a, fx.b1, pos2, 1, &err);
  CHECK(pdb);
  ice_data_file_t *a4 = write_data(t, a, "a", 700, 1, &err);
  CHECK(a4);
  rival_t r2 = {
      .change = {.kind = ICE_CHANGE_APPEND, .add = a4, .nadd = 1, .base_snapshot_id = -1}};
  arm(&fx.mc, &r2, 1);
  ice_expr_t *fb = filter(t, a, "cat = 'b'", &err);
  CHECK(fb);
  ice_change_t c2 = {.kind = ICE_CHANGE_ROW_DELTA,
                     .add = pdb,
                     .nadd = 1,
                     .conflict_filter = fb,
                     .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &c2, NULL, &err), &err);
  CHECK_OK(r2.rc, &r2.err);
  CHECK_EQ(count_live(t, a, head(t), pdb->path, NULL), 1);

  int64_t pos3[] = {1};
  ice_data_file_t *pdb2 = write_pos_deletes(t, a, fx.b1, pos3, 1, &err);
  CHECK(pdb2);
  ice_data_file_t *b5 = write_data(t, a, "b", 800, 1, &err);
  CHECK(b5);
  rival_t r3 = {
      .change = {.kind = ICE_CHANGE_APPEND, .add = b5, .nadd = 1, .base_snapshot_id = -1}};
  arm(&fx.mc, &r3, 1);
  c2.add = pdb2;
  CHECK_ERR(ice_commit(t, &c2, NULL, &err), FL_ECONFLICT);
  CHECK(strstr(err.msg, b5->path) != NULL);
  fixture_free(&fx);
  fl_arena_free(a);
}

TEST(rewrite_fails_on_concurrent_delete_file) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  fixture_t fx;
  CHECK_OK(fixture_init(&fx, a, FAST, 2, &err), &err);
  ice_table_t *t = fx.t;
  /* An equality delete for partition a lands while a is compacted. */
  int64_t ids[] = {3};
  ice_data_file_t *ed = write_eq_deletes(t, a, "a", ids, 1, &err);
  CHECK(ed);
  rival_t r = {
      .change = {.kind = ICE_CHANGE_ROW_DELTA, .add = ed, .nadd = 1, .base_snapshot_id = -1}};
  arm(&fx.mc, &r, 1);
  ice_data_file_t *a12 = write_data(t, a, "a", 0, 20, &err);
  CHECK(a12);
  const char *rm[] = {fx.a1->path, fx.a2->path};
  ice_change_t c = {.kind = ICE_CHANGE_REWRITE,
                    .add = a12,
                    .nadd = 1,
                    .remove = rm,
                    .nremove = 2,
                    .base_snapshot_id = -1};
  CHECK_ERR(ice_commit(t, &c, NULL, &err), FL_ECONFLICT);
  CHECK(!err.retriable);
  CHECK(strstr(err.msg, ed->path) != NULL);
  CHECK_OK(r.rc, &r.err);

  /* A delete file for partition b does not stop compacting partition a. */
  ice_data_file_t *edb = write_eq_deletes(t, a, "b", ids, 1, &err);
  CHECK(edb);
  rival_t r2 = {
      .change = {.kind = ICE_CHANGE_ROW_DELTA, .add = edb, .nadd = 1, .base_snapshot_id = -1}};
  arm(&fx.mc, &r2, 1);
  CHECK_OK(ice_commit(t, &c, NULL, &err), &err);
  CHECK_OK(r2.rc, &r2.err);
  CHECK_EQ(count_live(t, a, head(t), a12->path, NULL), 1);
  CHECK_EQ(count_live(t, a, head(t), fx.a1->path, NULL), 0);
  fixture_free(&fx);
  fl_arena_free(a);
}

/* A rival that always wins: every swap of ours loses. */
static void always_move(mem_cat_t *mc) {
  rival_t *r = mc->hook_arg;
  int keep = mc->hook_times;
  mc->hook_times = 0; /* the rival's own swap must not recurse */
  ice_table_t *t2 = open_again(mc, &r->err);
  if (t2) {
    r->rc = ice_commit_meta_edit(t2, add_branch, (void *)r->change.summary, &r->err);
    ice_table_free(t2);
  }
  mc->hook_times = keep;
}

TEST(retries_stop_after_num_retries) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ice_kv_t props[] = {{"commit.retry.min-wait-ms", "0"},
                      {"commit.retry.max-wait-ms", "1"},
                      {"commit.retry.num-retries", "2"}};
  fixture_t fx;
  CHECK_OK(fixture_init(&fx, a, props, 3, &err), &err);
  ice_table_t *t = fx.t;
  int files_before = count_dir(meta_dir(t, a), ".avro");
  int json_before = count_dir(meta_dir(t, a), ".metadata.json");
  const char *names[] = {"x", NULL};
  rival_t r = {.change = {.summary = (const ice_kv_t *)names}};
  fx.mc.hook = always_move;
  fx.mc.hook_arg = &r;
  fx.mc.hook_times = 100;
  ice_data_file_t *f = write_data(t, a, "a", 0, 1, &err);
  CHECK(f);
  ice_change_t c = {.kind = ICE_CHANGE_APPEND, .add = f, .nadd = 1, .base_snapshot_id = -1};
  int swaps_before = fx.mc.lost;
  CHECK_ERR(ice_commit(t, &c, NULL, &err), FL_ECONFLICT);
  CHECK(strstr(err.msg, "3 attempts") != NULL);
  CHECK_EQ(fx.mc.lost - swaps_before, 3);
  /* Nothing of ours is left: only the rival's metadata files were added. */
  CHECK_EQ(count_dir(meta_dir(t, a), ".avro"), files_before);
  CHECK_EQ(count_dir(meta_dir(t, a), ".metadata.json"), json_before + 3);
  fixture_free(&fx);
  fl_arena_free(a);
}

TEST(stale_base_is_validated_on_the_first_attempt) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  fixture_t fx;
  CHECK_OK(fixture_init(&fx, a, FAST, 2, &err), &err);
  ice_table_t *t = fx.t;
  /* A matching append lands before this writer even loads the table. */
  ice_data_file_t *b2 = write_data(t, a, "b", 500, 3, &err);
  CHECK(b2);
  ice_change_t ca = {.kind = ICE_CHANGE_APPEND, .add = b2, .nadd = 1, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &ca, NULL, &err), &err);
  ice_expr_t *f = filter(t, a, "cat = 'b'", &err);
  CHECK(f);
  ice_change_t c = {.kind = ICE_CHANGE_DELETE, .filter = f, .base_snapshot_id = fx.s0};
  int lost = fx.mc.lost;
  CHECK_ERR(ice_commit(t, &c, NULL, &err), FL_ECONFLICT);
  CHECK(strstr(err.msg, b2->path) != NULL);
  CHECK_EQ(fx.mc.lost, lost); /* refused before any swap */
  /* Based on the head it is fine. */
  c.base_snapshot_id = t->meta->current_snapshot_id;
  CHECK_OK(ice_commit(t, &c, NULL, &err), &err);
  CHECK_EQ(count_live(t, a, head(t), b2->path, NULL), 0);
  fixture_free(&fx);
  fl_arena_free(a);
}

/* Adds a snapshot like the current one whose summary has no totals (as
 * old writers left them). */
static int add_bare_snapshot(ice_meta_t *m, void *arg, fl_err_t *err) {
  const ice_snapshot_t *cur = ice_meta_current_snapshot(m);
  int64_t ahead_ms = arg ? *(const int64_t *)arg : 1;
  static ice_kv_t only_op[] = {{"operation", "append"}};
  ice_snapshot_t s = *cur;
  s.snapshot_id = cur->snapshot_id + 1;
  s.parent_id = cur->snapshot_id;
  s.sequence_number = m->last_sequence_number + 1;
  s.timestamp_ms = cur->timestamp_ms + ahead_ms;
  s.summary = only_op;
  s.nsummary = 1;
  int rc = ice_meta_add_snapshot(m, &s, err);
  if (rc) return rc;
  ice_ref_t r = {.name = "main",
                 .snapshot_id = s.snapshot_id,
                 .max_ref_age_ms = -1,
                 .max_snapshot_age_ms = -1,
                 .min_snapshots_to_keep = -1};
  return ice_meta_set_ref(m, &r, s.timestamp_ms, err);
}

TEST(totals_are_left_out_when_the_parent_has_none) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  fixture_t fx;
  CHECK_OK(fixture_init(&fx, a, FAST, 2, &err), &err);
  ice_table_t *t = fx.t;
  CHECK_OK(ice_commit_meta_edit(t, add_bare_snapshot, NULL, &err), &err);
  ice_data_file_t *f = write_data(t, a, "a", 0, 2, &err);
  CHECK(f);
  ice_change_t c = {.kind = ICE_CHANGE_APPEND, .add = f, .nadd = 1, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &c, NULL, &err), &err);
  const ice_snapshot_t *s = head(t);
  CHECK_STR(sum(s, "added-records"), "2");
  CHECK(ice_snapshot_summary(s, "total-records") == NULL);
  CHECK(ice_snapshot_summary(s, "total-data-files") == NULL);
  CHECK_EQ(count_live(t, a, s, NULL, NULL), 4);
  fixture_free(&fx);
  fl_arena_free(a);
}

TEST(merging_with_removals_keeps_every_file_once) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  mem_cat_t mc = {0};
  ice_kv_t props[] = {{"commit.manifest.min-count-to-merge", "2"}};
  ice_table_t *t = new_table(&mc, true, props, 1, &err);
  CHECK_OK(t ? FL_OK : err.code, &err);
  ice_data_file_t *files[6];
  size_t max_m = 0;
  int rc = FL_OK;
  append_n(t, a, 6, &max_m, files, &err, &rc);
  CHECK_OK(rc, &err);
  /* Replace files 1 and 4 by one new file, merging in the same commit. */
  ice_data_file_t *n1 = write_data(t, a, "a", 1000, 4, &err);
  CHECK(n1);
  const char *rm[] = {files[1]->path, files[4]->path};
  ice_change_t c = {.kind = ICE_CHANGE_OVERWRITE,
                    .add = n1,
                    .nadd = 1,
                    .remove = rm,
                    .nremove = 2,
                    .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &c, NULL, &err), &err);
  const ice_snapshot_t *s = head(t);
  ice_manifest_file_t *mfs;
  size_t nm;
  CHECK_OK(ice_snapshot_manifests(t, a, s, &mfs, &nm, &err), &err);
  CHECK_EQ(nm, 1);
  size_t total;
  CHECK_EQ(count_live(t, a, s, NULL, &total), 5);
  for (int i = 0; i < 6; i++)
    CHECK_EQ(count_live(t, a, s, files[i]->path, NULL), i == 1 || i == 4 ? 0 : 1);
  CHECK_EQ(count_live(t, a, s, n1->path, NULL), 1);
  CHECK_EQ(find_live(t, a, s, files[5]->path)->sequence_number, 6);
  CHECK_EQ(find_live(t, a, s, n1->path)->sequence_number, 7);
  /* The merged manifest records this commit's deletions. */
  ice_manifest_entry_t *all;
  size_t n;
  CHECK_EQ(all_entries(t, a, s, &all, &n, &mfs, &nm), 0);
  int deleted = 0;
  for (size_t i = 0; i < n; i++)
    if (all[i].status == ICE_STATUS_DELETED) {
      deleted++;
      CHECK_EQ(all[i].snapshot_id, s->snapshot_id);
    }
  CHECK_EQ(deleted, 2);
  CHECK_EQ(sum_int(s, "total-data-files"), 5);
  CHECK_EQ(sum_int(s, "total-records"), 12);
  ice_table_free(t);
  fl_free(mc.current);
  fl_arena_free(a);
}

TEST(rewrite_commutes_with_appends_and_failures_keep_data_files) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  fixture_t fx;
  CHECK_OK(fixture_init(&fx, a, FAST, 2, &err), &err);
  ice_table_t *t = fx.t;
  ice_data_file_t *b2 = write_data(t, a, "b", 900, 2, &err);
  CHECK(b2);
  rival_t r = {.change = {.kind = ICE_CHANGE_APPEND, .add = b2, .nadd = 1, .base_snapshot_id = -1}};
  arm(&fx.mc, &r, 1);
  ice_data_file_t *a12 = write_data(t, a, "a", 0, 20, &err);
  CHECK(a12);
  const char *rm[] = {fx.a1->path, fx.a2->path};
  ice_change_t c = {.kind = ICE_CHANGE_REWRITE,
                    .add = a12,
                    .nadd = 1,
                    .remove = rm,
                    .nremove = 2,
                    .base_snapshot_id = -1};
  ice_commit_result_t res;
  CHECK_OK(ice_commit(t, &c, &res, &err), &err);
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(res.attempts, 2);
  CHECK_EQ(count_live(t, a, head(t), b2->path, NULL), 1);
  CHECK_EQ(count_live(t, a, head(t), a12->path, NULL), 1);
  CHECK_EQ(sum_int(head(t), "total-records"), 32);

  /* A refused change leaves the caller's new data file on disk. */
  ice_data_file_t *x = write_data(t, a, "a", 0, 1, &err);
  CHECK(x);
  ice_change_t c2 = {.kind = ICE_CHANGE_OVERWRITE,
                     .add = x,
                     .nadd = 1,
                     .remove = rm,
                     .nremove = 1,
                     .base_snapshot_id = fx.s0};
  CHECK_ERR(ice_commit(t, &c2, NULL, &err), FL_ECONFLICT);
  struct stat sb;
  const char *xp = strncmp(x->path, "file://", 7) == 0 ? x->path + 7 : x->path;
  CHECK_EQ(stat(xp, &sb), 0);
  fixture_free(&fx);
  fl_arena_free(a);
}

TEST(delete_by_filter_on_unpartitioned_table) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  mem_cat_t mc = {0};
  ice_table_t *t = new_table(&mc, false, FAST, 2, &err);
  CHECK_OK(t ? FL_OK : err.code, &err);
  ice_data_file_t *f1 = write_data(t, a, "a", 0, 10, &err);
  ice_data_file_t *f2 = write_data(t, a, "b", 10, 10, &err);
  CHECK(f1 && f2);
  ice_data_file_t adds[] = {*f1, *f2};
  ice_change_t c = {.kind = ICE_CHANGE_APPEND, .add = adds, .nadd = 2, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &c, NULL, &err), &err);
  CHECK_STR(sum(head(t), "changed-partition-count"), "1");
  ice_expr_t *f = filter(t, a, "id < 10", &err);
  CHECK(f);
  ice_change_t d = {.kind = ICE_CHANGE_DELETE, .filter = f, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &d, NULL, &err), &err);
  CHECK_EQ(count_live(t, a, head(t), f1->path, NULL), 0);
  CHECK_EQ(count_live(t, a, head(t), f2->path, NULL), 1);
  CHECK_STR(sum(head(t), "deleted-records"), "10");
  f = filter(t, a, "id < 15", &err);
  CHECK(f);
  d.filter = f;
  CHECK_ERR(ice_commit(t, &d, NULL, &err), FL_EINVALID);
  f = filter(t, a, "cat = 'b'", &err);
  CHECK(f);
  d.filter = f;
  CHECK_OK(ice_commit(t, &d, NULL, &err), &err);
  CHECK_EQ(count_live(t, a, head(t), NULL, NULL), 0);
  ice_table_free(t);
  fl_free(mc.current);
  fl_arena_free(a);
}

TEST(snapshot_time_never_goes_back) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  fixture_t fx;
  CHECK_OK(fixture_init(&fx, a, FAST, 2, &err), &err);
  ice_table_t *t = fx.t;
  int64_t hour = 3600000; /* a writer whose clock ran an hour ahead */
  CHECK_OK(ice_commit_meta_edit(t, add_bare_snapshot, &hour, &err), &err);
  int64_t ahead = head(t)->timestamp_ms;
  ice_data_file_t *f = write_data(t, a, "a", 0, 1, &err);
  CHECK(f);
  ice_change_t c = {.kind = ICE_CHANGE_APPEND, .add = f, .nadd = 1, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &c, NULL, &err), &err);
  CHECK(head(t)->timestamp_ms > ahead);
  const ice_snapshot_log_entry_t *last = &t->meta->snapshot_log[t->meta->nsnapshot_log - 1];
  CHECK_EQ(last->snapshot_id, head(t)->snapshot_id);
  CHECK_EQ(last->timestamp_ms, head(t)->timestamp_ms);
  fixture_free(&fx);
  fl_arena_free(a);
}

TEST(delete_manifests_are_merged_apart_from_data) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ice_kv_t props[] = {{"commit.manifest.min-count-to-merge", "3"}};
  fixture_t fx;
  CHECK_OK(fixture_init(&fx, a, props, 1, &err), &err);
  ice_table_t *t = fx.t;
  ice_data_file_t *dels[8];
  for (int i = 0; i < 8; i++) {
    int64_t pos[] = {i};
    dels[i] = write_pos_deletes(t, a, i % 2 ? fx.a1 : fx.b1, pos, 1, &err);
    CHECK(dels[i]);
    ice_change_t c = {
        .kind = ICE_CHANGE_ROW_DELTA, .add = dels[i], .nadd = 1, .base_snapshot_id = -1};
    CHECK_OK(ice_commit(t, &c, NULL, &err), &err);
    ice_manifest_file_t *mfs;
    size_t nm;
    CHECK_OK(ice_snapshot_manifests(t, a, head(t), &mfs, &nm, &err), &err);
    size_t ndel = 0, ndata = 0;
    for (size_t k = 0; k < nm; k++) {
      if (mfs[k].content)
        ndel++;
      else
        ndata++;
    }
    CHECK(ndel <= 2);
    CHECK_EQ(ndata, 1);
  }
  const ice_snapshot_t *s = head(t);
  for (int i = 0; i < 8; i++) {
    CHECK_EQ(count_live(t, a, s, dels[i]->path, NULL), 1);
    const ice_manifest_entry_t *e = find_live(t, a, s, dels[i]->path);
    CHECK_EQ(e->sequence_number, i + 2); /* the fixture's append was 1 */
    CHECK_EQ(e->file.content, ICE_CONTENT_POSITION_DELETES);
  }
  CHECK_EQ(count_live(t, a, s, NULL, NULL), 11);
  CHECK_EQ(sum_int(s, "total-delete-files"), 8);
  CHECK_EQ(sum_int(s, "total-position-deletes"), 8);
  fixture_free(&fx);
  fl_arena_free(a);
}

/* ---- the manifest list a handle keeps after its commit ---- */

static bool bytes_same(ice_bytes_t x, ice_bytes_t y) {
  if (!x.p || !y.p) return !x.p && !y.p;
  return x.n == y.n && memcmp(x.p, y.p, x.n) == 0;
}

/* What differs between two manifest list entries, or NULL. */
static const char *mf_diff(const ice_manifest_file_t *x, const ice_manifest_file_t *y) {
  if (strcmp(x->path, y->path) != 0) return "path";
  if (x->length != y->length || x->spec_id != y->spec_id || x->content != y->content)
    return "length, spec or content";
  if (x->sequence_number != y->sequence_number || x->min_sequence_number != y->min_sequence_number)
    return "sequence numbers";
  if (x->added_snapshot_id != y->added_snapshot_id) return "added snapshot";
  if (x->added_files != y->added_files || x->existing_files != y->existing_files ||
      x->deleted_files != y->deleted_files || x->added_rows != y->added_rows ||
      x->existing_rows != y->existing_rows || x->deleted_rows != y->deleted_rows)
    return "counts";
  if (x->npartitions != y->npartitions || !x->partitions != !y->partitions) return "partitions";
  for (uint32_t i = 0; x->partitions && i < x->npartitions; i++) {
    const ice_field_summary_t *p = &x->partitions[i], *q = &y->partitions[i];
    if (p->contains_null != q->contains_null || p->contains_nan != q->contains_nan ||
        !bytes_same(p->lower, q->lower) || !bytes_same(p->upper, q->upper))
      return "partition summary";
  }
  if (!bytes_same(x->key_metadata, y->key_metadata) || x->first_row_id != y->first_row_id)
    return "key metadata or first row id";
  return NULL;
}

/* The head's list as the handle keeps it equals the file, entry by entry. */
static void check_kept_list(ice_table_t *t, fl_arena_t *a, int line) {
  fl_err_t err = {0};
  const ice_snapshot_t *s = head(t);
  if (!t->list_cache || strcmp(t->list_cache->list_path, s->manifest_list) != 0) {
    t_fail(__FILE__, line, "the handle does not keep the list it committed");
    return;
  }
  ice_manifest_file_t *kept, *disk;
  size_t nk, nd;
  if (ice__commit_base_manifests(t, a, s, &kept, &nk, &err) ||
      ice_snapshot_manifests(t, a, s, &disk, &nd, &err)) {
    t_fail(__FILE__, line, "%s", err.msg);
    return;
  }
  if (nk != nd) {
    t_fail(__FILE__, line, "kept %zu manifests, the file lists %zu", nk, nd);
    return;
  }
  for (size_t i = 0; i < nk; i++) {
    const char *d = mf_diff(&kept[i], &disk[i]);
    if (d) t_fail(__FILE__, line, "manifest %zu: %s differs from the file", i, d);
  }
}

TEST(kept_manifest_list_equals_the_file) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  mem_cat_t mc = {0};
  ice_kv_t props[] = {{"commit.manifest.min-count-to-merge", "3"}};
  ice_table_t *t = new_table(&mc, true, props, 1, &err);
  CHECK_OK(t ? FL_OK : err.code, &err);
  CHECK(t->list_cache == NULL);
  /* Appends in two partitions, through merges of three manifests. */
  ice_data_file_t *files[7];
  for (int i = 0; i < 7; i++) {
    files[i] = write_data(t, a, i % 2 ? "a" : "b", i * 10, 3, &err);
    CHECK_OK(files[i] ? FL_OK : err.code, &err);
    ice_change_t c = {
        .kind = ICE_CHANGE_APPEND, .add = files[i], .nadd = 1, .base_snapshot_id = -1};
    CHECK_OK(ice_commit(t, &c, NULL, &err), &err);
    check_kept_list(t, a, __LINE__);
  }
  /* Deletes (a delete manifest beside the data ones), then an overwrite
   * that rewrites a manifest with DELETED and EXISTING entries. */
  int64_t pos[] = {0, 2};
  ice_data_file_t *pd = write_pos_deletes(t, a, files[0], pos, 2, &err);
  CHECK_OK(pd ? FL_OK : err.code, &err);
  int64_t ids[] = {11};
  ice_data_file_t *ed = write_eq_deletes(t, a, "a", ids, 1, &err);
  CHECK_OK(ed ? FL_OK : err.code, &err);
  ice_data_file_t adds[] = {*pd, *ed};
  ice_change_t d = {.kind = ICE_CHANGE_ROW_DELTA, .add = adds, .nadd = 2, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &d, NULL, &err), &err);
  check_kept_list(t, a, __LINE__);
  ice_data_file_t *nf = write_data(t, a, "b", 500, 2, &err);
  CHECK_OK(nf ? FL_OK : err.code, &err);
  const char *gone[] = {files[2]->path};
  ice_change_t o = {.kind = ICE_CHANGE_OVERWRITE,
                    .add = nf,
                    .nadd = 1,
                    .remove = gone,
                    .nremove = 1,
                    .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &o, NULL, &err), &err);
  check_kept_list(t, a, __LINE__);
  /* Another writer commits: this handle's kept list is not the head's any
   * more, so its next commit reads the new head's list from the file. */
  ice_table_t *t2 = open_again(&mc, &err);
  CHECK_OK(t2 ? FL_OK : err.code, &err);
  ice_data_file_t *f2 = write_data(t2, a, "a", 900, 1, &err);
  CHECK_OK(f2 ? FL_OK : err.code, &err);
  ice_change_t c2 = {.kind = ICE_CHANGE_APPEND, .add = f2, .nadd = 1, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t2, &c2, NULL, &err), &err);
  ice_data_file_t *f3 = write_data(t, a, "b", 950, 1, &err);
  CHECK_OK(f3 ? FL_OK : err.code, &err);
  ice_change_t c3 = {.kind = ICE_CHANGE_APPEND, .add = f3, .nadd = 1, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &c3, NULL, &err), &err);
  check_kept_list(t, a, __LINE__);
  CHECK_EQ(count_live(t, a, head(t), f2->path, NULL), 1);
  CHECK_EQ(count_live(t, a, head(t), files[2]->path, NULL), 0);
  CHECK_EQ(sum_int(head(t), "total-data-files"), 9);
  ice_table_free(t2);
  ice_table_free(t);
  fl_free(mc.current);

  /* Unpartitioned: the manifests' partition summaries are empty lists. */
  mem_cat_t mc3 = {0};
  t = new_table(&mc3, false, NULL, 0, &err);
  CHECK_OK(t ? FL_OK : err.code, &err);
  for (int i = 0; i < 3; i++) {
    ice_data_file_t *f = write_data(t, a, "u", i * 10, 2, &err);
    CHECK_OK(f ? FL_OK : err.code, &err);
    ice_change_t c = {.kind = ICE_CHANGE_APPEND, .add = f, .nadd = 1, .base_snapshot_id = -1};
    CHECK_OK(ice_commit(t, &c, NULL, &err), &err);
    check_kept_list(t, a, __LINE__);
  }
  ice_table_free(t);
  fl_free(mc3.current);
  fl_arena_free(a);
}

/* ---- v3 row lineage ---- */

/* Checks that the live data files of the current snapshot hold disjoint
 * row id ranges below the table's next-row-id; *found gets the
 * first_row_id of path (-1: absent). */
static void check_ids(const ice_table_t *t, fl_arena_t *a, const char *path, int64_t *found) {
  ice_manifest_entry_t *es;
  size_t n;
  fl_err_t err;
  *found = -2;
  CHECK_OK(ice_snapshot_entries(t, a, head(t), &es, &n, &err), &err);
  *found = -1;
  for (size_t i = 0; i < n; i++) {
    const ice_data_file_t *f = &es[i].file;
    if (f->content != ICE_CONTENT_DATA) continue;
    CHECK(f->first_row_id >= 0);
    CHECK(f->first_row_id + f->record_count <= t->meta->next_row_id);
    for (size_t j = 0; j < i; j++) {
      const ice_data_file_t *g = &es[j].file;
      if (g->content != ICE_CONTENT_DATA) continue;
      CHECK(f->first_row_id + f->record_count <= g->first_row_id ||
            g->first_row_id + g->record_count <= f->first_row_id);
    }
    if (path && strcmp(f->path, path) == 0) *found = f->first_row_id;
  }
}

static int64_t check_row_ids(const ice_table_t *t, fl_arena_t *a, const char *path) {
  int64_t found;
  check_ids(t, a, path, &found);
  return found;
}

TEST(v3_commits_assign_row_ids_from_next_row_id) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  static const ice_kv_t V3[] = {{"commit.retry.min-wait-ms", "0"},
                                {"commit.retry.max-wait-ms", "1"},
                                {"format-version", "3"}};
  fixture_t fx;
  CHECK_OK(fixture_init(&fx, a, V3, 3, &err), &err);
  ice_table_t *t = fx.t;
  CHECK_EQ(t->meta->format_version, 3);
  const ice_snapshot_t *s0 = head(t);
  CHECK_EQ(s0->first_row_id, 0);
  CHECK_EQ(s0->added_rows, 30);
  CHECK_EQ(t->meta->next_row_id, 30);
  int64_t a2_id = check_row_ids(t, a, fx.a2->path);
  CHECK(a2_id >= 0);
  ice_manifest_file_t *mfs;
  size_t nm;
  CHECK_OK(ice_snapshot_manifests(t, a, s0, &mfs, &nm, &err), &err);
  CHECK_EQ(nm, 1);
  CHECK_EQ(mfs[0].first_row_id, 0);

  /* A rival commits first: the retry takes its ids after the rival's. */
  ice_data_file_t *mine = write_data(t, a, "a", 100, 4, &err);
  ice_data_file_t *theirs = write_data(t, a, "b", 200, 6, &err);
  CHECK(mine && theirs);
  rival_t r = {
      .change = {.kind = ICE_CHANGE_APPEND, .add = theirs, .nadd = 1, .base_snapshot_id = -1}};
  arm(&fx.mc, &r, 1);
  ice_change_t c = {.kind = ICE_CHANGE_APPEND, .add = mine, .nadd = 1, .base_snapshot_id = -1};
  ice_commit_result_t res;
  CHECK_OK(ice_commit(t, &c, &res, &err), &err);
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(res.attempts, 2);
  const ice_snapshot_t *rs = ice_meta_snapshot(t->meta, r.snapshot_id);
  CHECK_EQ(rs->first_row_id, 30);
  CHECK_EQ(rs->added_rows, 6);
  CHECK_EQ(head(t)->first_row_id, 36);
  CHECK_EQ(head(t)->added_rows, 4);
  CHECK_EQ(t->meta->next_row_id, 40);
  CHECK_EQ(check_row_ids(t, a, mine->path), 36);
  CHECK_EQ(check_row_ids(t, a, fx.a2->path), a2_id);

  /* A copy-on-write delete rewrites a1 and the manifest around a2: the
   * rewritten manifest's range covers its rows, a2 keeps its ids. */
  ice_data_file_t *rest = write_data(t, a, "a", 5, 5, &err);
  CHECK_OK(rest ? FL_OK : err.code, &err);
  const char *rm[] = {fx.a1->path};
  ice_change_t d = {.kind = ICE_CHANGE_OVERWRITE,
                    .remove = rm,
                    .nremove = 1,
                    .add = rest,
                    .nadd = 1,
                    .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &d, NULL, &err), &err);
  CHECK_EQ(head(t)->first_row_id, 40);
  /* The new file's manifest and the rewritten one (a2, b1 existing). */
  CHECK_EQ(head(t)->added_rows, 5 + 20);
  CHECK(check_row_ids(t, a, rest->path) >= 40);
  CHECK_EQ(t->meta->next_row_id, 40 + head(t)->added_rows);
  CHECK_EQ(check_row_ids(t, a, fx.a2->path), a2_id);

  /* What was written reads back the same. */
  ice_table_t *again = open_again(&fx.mc, &err);
  CHECK_OK(again ? FL_OK : err.code, &err);
  CHECK_EQ(again->meta->next_row_id, t->meta->next_row_id);
  CHECK_EQ(head(again)->first_row_id, 40);
  CHECK_EQ(head(again)->added_rows, head(t)->added_rows);
  ice_table_free(again);
  fixture_free(&fx);
  fl_arena_free(a);
}
