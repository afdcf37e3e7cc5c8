/*
 * test_fs.c - the local file system back end and the read window.
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "io/fs.h"
#include "io/window.h"
#include "test.h"

static void path_in_tmp(char *buf, size_t n, const char *name) {
  snprintf(buf, n, "%s/%s", t_tmpdir(), name);
}

TEST(create_is_invisible_until_commit) {
  io_fs_t *fs = io_local_fs();
  fl_err_t err;
  char path[600];
  path_in_tmp(path, sizeof path, "a/b/c.bin");
  io_writer_t *w;
  CHECK_OK(fs->create(fs, path, false, &w, &err), &err);
  CHECK_OK(w->write(w, "hello", 5, &err), &err);
  bool exists = true;
  CHECK_OK(fs->exists(fs, path, &exists, &err), &err);
  CHECK(!exists);
  CHECK_OK(w->commit(w, &err), &err);
  CHECK_OK(fs->exists(fs, path, &exists, &err), &err);
  CHECK(exists);
  uint8_t *data;
  size_t len;
  CHECK_OK(io_read_all(fs, path, 100, &data, &len, &err), &err);
  CHECK(len == 5 && memcmp(data, "hello", 5) == 0);
  fl_free(data);
  CHECK_ERR(io_read_all(fs, path, 4, &data, &len, &err), FL_ELIMIT);
  /* An aborted writer leaves the old file and no temporary behind. */
  CHECK_OK(fs->create(fs, path, false, &w, &err), &err);
  CHECK_OK(w->write(w, "XX", 2, &err), &err);
  w->abort(w);
  char dir[600];
  path_in_tmp(dir, sizeof dir, "a");
  io_entry_t *entries;
  size_t n;
  CHECK_OK(fs->list(fs, dir, &entries, &n, &err), &err);
  CHECK_EQ(n, 1);
  CHECK_EQ(entries[0].size, 5);
  io_entries_free(entries, n);
}

TEST(exclusive_create_never_replaces) {
  io_fs_t *fs = io_local_fs();
  fl_err_t err;
  char path[600];
  path_in_tmp(path, sizeof path, "excl.txt");
  CHECK_OK(io_write_all(fs, path, "one", 3, &err), &err);
  io_writer_t *w;
  CHECK_OK(fs->create(fs, path, true, &w, &err), &err);
  CHECK_OK(w->write(w, "two", 3, &err), &err);
  CHECK_ERR(w->commit(w, &err), FL_EEXISTS);
  uint8_t *data;
  size_t len;
  CHECK_OK(io_read_all(fs, path, 100, &data, &len, &err), &err);
  CHECK(len == 3 && memcmp(data, "one", 3) == 0);
  fl_free(data);
}

/* A file larger than the writer's write-back step (8 MiB), written in
 * pieces that straddle it, and replacing an older file, comes back whole. */
TEST(large_file_written_in_pieces_reads_back_whole) {
  io_fs_t *fs = io_local_fs();
  fl_err_t err;
  char path[600];
  path_in_tmp(path, sizeof path, "large.bin");
  CHECK_OK(io_write_all(fs, path, "old", 3, &err), &err);
  const size_t total = (size_t)19 << 20, piece = 100003;
  uint8_t *src = fl_malloc(total);
  uint32_t x = 2463534242u;
  for (size_t i = 0; i < total; i++) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    src[i] = (uint8_t)x;
  }
  io_writer_t *w;
  CHECK_OK(fs->create(fs, path, false, &w, &err), &err);
  for (size_t at = 0; at < total; at += piece)
    CHECK_OK(w->write(w, src + at, total - at < piece ? total - at : piece, &err), &err);
  CHECK_EQ(w->written, total);
  CHECK_OK(w->commit(w, &err), &err);
  uint8_t *data;
  size_t len;
  CHECK_OK(io_read_all(fs, path, total, &data, &len, &err), &err);
  CHECK_EQ(len, total);
  CHECK(memcmp(data, src, total) == 0);
  fl_free(data);
  fl_free(src);
}

TEST(reads_past_the_end_and_missing_files_fail) {
  io_fs_t *fs = io_local_fs();
  fl_err_t err;
  char path[600];
  path_in_tmp(path, sizeof path, "short.txt");
  CHECK_OK(io_write_all(fs, path, "abc", 3, &err), &err);
  io_reader_t *r;
  CHECK_OK(fs->open_read(fs, path, &r, &err), &err);
  char buf[8];
  CHECK_OK(r->read_at(r, 1, buf, 2, &err), &err);
  CHECK(memcmp(buf, "bc", 2) == 0);
  CHECK_ERR(r->read_at(r, 2, buf, 2, &err), FL_ECORRUPT);
  CHECK(strstr(err.msg, "short.txt") != NULL);
  r->close(r);
  path_in_tmp(path, sizeof path, "missing.txt");
  CHECK_ERR(fs->open_read(fs, path, &r, &err), FL_ENOTFOUND);
  CHECK(strstr(err.msg, "missing.txt") != NULL);
}

TEST(window_slides_grows_and_stops_at_its_limit) {
  io_fs_t *fs = io_local_fs();
  fl_err_t err;
  char path[600];
  path_in_tmp(path, sizeof path, "rows.txt");
  char text[200];
  for (int i = 0; i < 200; i++) text[i] = (char)('a' + i % 26);
  CHECK_OK(io_write_all(fs, path, text, sizeof text, &err), &err);
  io_reader_t *r;
  CHECK_OK(fs->open_read(fs, path, &r, &err), &err);
  io_window_t w;
  CHECK_OK(io_window_open(&w, r, 16, 64, &err), &err);
  CHECK_EQ(w.len, 16);
  w.start = 10; /* consume 10 bytes: the rest slides to the front */
  CHECK_OK(io_window_fill(&w, &err), &err);
  CHECK_EQ(w.start, 0);
  CHECK_EQ(w.len, 16);
  CHECK(w.buf[0] == text[10]);
  /* A full window of one unfinished row doubles up to the limit. */
  CHECK_OK(io_window_fill(&w, &err), &err);
  CHECK_EQ(w.cap, 32);
  CHECK_EQ(w.len, 32);
  CHECK_OK(io_window_fill(&w, &err), &err);
  CHECK_EQ(w.cap, 64);
  CHECK_EQ(w.len, 64);
  CHECK(memcmp(w.buf, text + 10, 64) == 0);
  CHECK_ERR(io_window_fill(&w, &err), FL_ELIMIT);
  CHECK(strstr(err.msg, "row at byte 10") != NULL);
  CHECK(!io_window_at_eof(&w));
  io_window_free(&w);
}
