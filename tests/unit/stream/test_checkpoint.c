/*
 * test_checkpoint.c - the checkpoint store (metadata written last and
 * atomically, incomplete checkpoints ignored, pending files as a manifest
 * that reads back with their metrics, writer records and the deletion of
 * uncommitted files, pruning), the exactly-once commit (a checkpoint
 * committed twice adds nothing the second time; two tables in one
 * transaction) and the per-partition watermark.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "catalog/cat_tables.h"
#include "iceberg/ice_data_writer.h"
#include "io/fs.h"
#include "stream/st_checkpoint.h"
#include "stream/st_commit.h"
#include "stream/st_watermark.h"
#include "test.h"

static void wh_path(char *buf, size_t n, const char *name) {
  snprintf(buf, n, "%s/%s", t_tmpdir(), name);
}

static bool exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

TEST(checkpoint_latest_needs_metadata) {
  char wh[512];
  wh_path(wh, sizeof wh, "ck1");
  fl_err_t err;
  fl_err_clear(&err);
  st_ckpt_store_t *s;
  CHECK_OK(st_ckpt_open(wh, "job-a", &s, &err), &err);
  int64_t id = -1;
  CHECK_OK(st_ckpt_latest(s, &id, &err), &err);
  CHECK_EQ(id, 0);
  json_t *m = json_pack("{s:s,s:i}", "job-id", "job-a", "checkpoint-id", 1);
  for (int64_t i = 1; i <= 5; i++) {
    CHECK_OK(st_ckpt_begin(s, i, &err), &err);
    CHECK_OK(st_ckpt_write_blob(s, i, "state.bin", "xyz", 3, &err), &err);
    /* checkpoint 5 never gets its metadata file: it does not exist */
    if (i < 5) CHECK_OK(st_ckpt_write_meta(s, i, m, &err), &err);
  }
  json_decref(m);
  CHECK_OK(st_ckpt_latest(s, &id, &err), &err);
  CHECK_EQ(id, 4);
  json_t *back;
  CHECK_OK(st_ckpt_read_meta(s, 4, &back, &err), &err);
  CHECK_STR(json_string_value(json_object_get(back, "job-id")), "job-a");
  json_decref(back);
  uint8_t *data;
  size_t len;
  CHECK_OK(st_ckpt_read_blob(s, 3, "state.bin", &data, &len, &err), &err);
  CHECK_EQ(len, 3);
  fl_free(data);
  /* Keep the newest 2 up to 4; 5 (incomplete) goes too. */
  st_ckpt_prune(s, 4, 2);
  char p[1024];
  for (int i = 1; i <= 5; i++) {
    snprintf(p, sizeof p, "%s/chk-%d", st_ckpt_job_dir(s), i);
    CHECK_EQ(exists(p), i == 3 || i == 4);
  }
  CHECK_ERR(st_ckpt_read_meta(s, 9, &back, &err), FL_ENOTFOUND);
  st_ckpt_close(s);
  CHECK_ERR(st_ckpt_open(wh, "../x", &s, &err), FL_EINVALID);
  CHECK_ERR(st_ckpt_open("s3://b/wh", "j", &s, &err), FL_EUNSUPPORTED);
}

TEST(checkpoint_writer_records_delete_only_uncommitted_files) {
  char wh[512], data[600], p[1024];
  wh_path(wh, sizeof wh, "ck2");
  snprintf(data, sizeof data, "%s/db/t/data/part=1", wh);
  fl_err_t err;
  fl_err_clear(&err);
  st_ckpt_store_t *s;
  CHECK_OK(st_ckpt_open(wh, "j", &s, &err), &err);
  CHECK_OK(io_local_fs()->mkdirs(io_local_fs(), data, &err), &err);
  const char *names[] = {"00000-2-aaaa-00001.parquet", "00000-2-aaaa-00002.parquet",
                         "00000-1-bbbb-00001.parquet", "00000-3-cccc-00001.parquet"};
  for (int i = 0; i < 4; i++) {
    snprintf(p, sizeof p, "%s/%s", data, names[i]);
    CHECK_OK(io_write_all(io_local_fs(), p, "x", 1, &err), &err);
  }
  char dir[600];
  snprintf(dir, sizeof dir, "file://%s/db/t/data", wh);
  CHECK_OK(st_ckpt_note_writer(s, 1, "bbbb", dir, &err), &err);
  CHECK_OK(st_ckpt_note_writer(s, 2, "aaaa", dir, &err), &err);
  uint64_t deleted = 0;
  CHECK_OK(st_ckpt_clean_writers(s, 1, &deleted, &err), &err);
  CHECK_EQ(deleted, 2);
  for (int i = 0; i < 4; i++) {
    snprintf(p, sizeof p, "%s/%s", data, names[i]);
    CHECK_EQ(exists(p), i >= 2); /* aaaa's files went; bbbb's are committed; cccc unknown */
  }
  /* The records are gone: a second clean deletes nothing. */
  CHECK_OK(st_ckpt_clean_writers(s, 0, &deleted, &err), &err);
  CHECK_EQ(deleted, 0);
  st_ckpt_close(s);
}

/* A table db.<name> (id long) in a catalog under wh, and one data file of n rows. */
static int make_table(cat_catalog_t *c, fl_arena_t *a, const char *name, int64_t n, ice_table_t **t,
                      ice_data_file_t **files, size_t *nfiles, fl_err_t *err) {
  ty_schema_t *s;
  int rc = ty_schema_parse(a, "id long", &s, err);
  cat_create_opts_t o = {.schema = s};
  if (!rc) rc = cat_create_table(c, io_local_fs(), "db", name, &o, t, err);
  if (rc) return rc;
  const ty_schema_t *ts = ice_meta_schema((*t)->meta);
  ice_dw_t *w;
  if ((rc = ice_dw_open((*t)->fs, (*t)->meta->location, ts, NULL, &w, err))) return rc;
  ty_batch_t *b = ty_batch_new(ts, (uint32_t)n);
  for (int64_t i = 0; i < n; i++) ty_vec_append_i64(b->cols[0], i);
  ty_batch_seal(b);
  rc = ice_dw_write(w, b, err);
  ty_batch_free(b);
  if (!rc) rc = ice_dw_close(w, a, files, nfiles, err);
  ice_dw_free(w);
  return rc;
}

static int64_t snapshots(const ice_table_t *t) { return (int64_t)t->meta->nsnapshots; }

TEST(checkpoint_commit_is_exactly_once_across_tables) {
  char wh[512];
  wh_path(wh, sizeof wh, "ck3");
  fl_err_t err;
  fl_err_clear(&err);
  cat_catalog_t *c;
  CHECK_OK(cat_open(NULL, wh, NULL, &c, &err), &err);
  CHECK_OK(cat_ns_create(c, "db", NULL, 0, &err), &err);
  fl_arena_t *a = fl_arena_new(0);
  ice_table_t *t1 = NULL, *t2 = NULL;
  ice_data_file_t *f1, *f2;
  size_t n1, n2;
  int rc = make_table(c, a, "one", 10, &t1, &f1, &n1, &err);
  if (!rc) rc = make_table(c, a, "two", 20, &t2, &f2, &n2, &err);
  CHECK_OK(rc, &err);
  /* The pending files survive the manifest round trip with their metrics. */
  st_ckpt_store_t *s;
  CHECK_OK(st_ckpt_open(wh, "jx", &s, &err), &err);
  CHECK_OK(st_ckpt_begin(s, 1, &err), &err);
  CHECK_OK(st_ckpt_write_files(s, 1, "pending-0.avro", t1, f1, n1, &err), &err);
  ice_data_file_t *back;
  size_t nback;
  CHECK_OK(st_ckpt_read_files(s, 1, "pending-0.avro", t1, 0, a, &back, &nback, &err), &err);
  CHECK_EQ(nback, n1);
  CHECK_STR(back[0].path, f1[0].path);
  CHECK_EQ(back[0].record_count, 10);
  CHECK_EQ(back[0].file_size, f1[0].file_size);
  CHECK_EQ(back[0].ncols, f1[0].ncols);
  st_ckpt_close(s);

  CHECK_EQ(st_committed_checkpoint(t1, "jx"), 0);
  st_commit_table_t ct[2] = {{.ns = "db", .name = "one", .files = back, .nfiles = nback},
                             {.ns = "db", .name = "two", .files = f2, .nfiles = n2}};
  CHECK_OK(st_commit_checkpoint(c, "jx", 1, "{\"s\":1}", ct, 2, false, &err), &err);
  CHECK(ct[0].snapshot_id > 0 && ct[1].snapshot_id > 0);
  CHECK_OK(ice_table_refresh(t1, &err), &err);
  CHECK_OK(ice_table_refresh(t2, &err), &err);
  CHECK_EQ(snapshots(t1), 1);
  CHECK_EQ(snapshots(t2), 1);
  CHECK_EQ(st_committed_checkpoint(t1, "jx"), 1);
  CHECK_EQ(st_committed_checkpoint(t2, "jx"), 1);
  CHECK_EQ(st_committed_checkpoint(t2, "other-job"), 0);
  /* Again (a recovery that finds the commit done): nothing is added. */
  CHECK_OK(st_commit_checkpoint(c, "jx", 1, "{\"s\":1}", ct, 2, false, &err), &err);
  CHECK_EQ(ct[0].snapshot_id, -1);
  CHECK_OK(ice_table_refresh(t1, &err), &err);
  CHECK_EQ(snapshots(t1), 1);
  const ice_snapshot_t *snap = ice_meta_current_snapshot(t1->meta);
  bool has_offsets = false;
  for (uint32_t i = 0; i < snap->nsummary; i++)
    has_offsets |= !strcmp(snap->summary[i].key, "floe.offsets") &&
                   !strcmp(snap->summary[i].value, "{\"s\":1}");
  CHECK(has_offsets);
  ice_table_free(t1);
  ice_table_free(t2);
  fl_arena_free(a);
  cat_close(c);
}

TEST(watermark_min_over_partitions_idle_ones_skipped) {
  st_watermark_t w;
  st_watermark_init(&w, 3, 1000, 0);
  st_watermark_observe(&w, 0, 100, 10);
  st_watermark_observe(&w, 1, 50, 10);
  CHECK(!st_watermark_advance(&w, 20)); /* slot 2 has nothing yet and is not idle */
  CHECK_EQ(w.current_us, ST_NO_WATERMARK);
  st_watermark_observe(&w, 2, 70, 30);
  CHECK(st_watermark_advance(&w, 40));
  CHECK_EQ(w.current_us, 50);
  st_watermark_observe(&w, 0, 90, 500); /* lower than before: the max stays 100 */
  st_watermark_observe(&w, 1, 200, 1500);
  st_watermark_observe(&w, 0, 300, 1500);
  CHECK(st_watermark_advance(&w, 1500)); /* slot 2 idle since 30: skipped */
  CHECK_EQ(w.current_us, 200);
  st_watermark_observe(&w, 2, 80, 1600); /* active again, behind: never backwards */
  CHECK(!st_watermark_advance(&w, 1600));
  CHECK_EQ(w.current_us, 200);
  /* Every slot idle (all caught up): the furthest one counts. */
  CHECK(st_watermark_advance(&w, 5000));
  CHECK_EQ(w.current_us, 300);
  st_watermark_free(&w);
  /* A slot that never had a row and one that went quiet: both idle. */
  st_watermark_init(&w, 2, 1000, 0);
  st_watermark_observe(&w, 0, 100, 10);
  CHECK(!st_watermark_advance(&w, 500));
  CHECK(st_watermark_advance(&w, 1200));
  CHECK_EQ(w.current_us, 100);
  st_watermark_free(&w);
  /* Without an idle timeout an empty partition holds the watermark back. */
  st_watermark_init(&w, 2, 0, 0);
  st_watermark_observe(&w, 0, 100, 10);
  CHECK(!st_watermark_advance(&w, 100000));
  st_watermark_free(&w);
}
