/*
 * test_glob.c - glob matching and expansion (io/fs_glob.c).
 */
#include <stdio.h>

#include "base/alloc.h"
#include "io/fs.h"
#include "test.h"

TEST(glob_match_patterns) {
  CHECK(io_glob_match("*.parquet", "a.parquet"));
  CHECK(!io_glob_match("*.parquet", "d/a.parquet"));
  CHECK(io_glob_match("d/*.parquet", "d/a.parquet"));
  CHECK(io_glob_match("d/?.csv", "d/a.csv"));
  CHECK(!io_glob_match("d/?.csv", "d/ab.csv"));
  CHECK(io_glob_match("d/[ab].csv", "d/b.csv"));
  CHECK(!io_glob_match("d/[!ab].csv", "d/b.csv"));
  CHECK(io_glob_match("d/[a-c]x", "d/cx"));
  CHECK(io_glob_match("d/**/*.json", "d/x.json"));
  CHECK(io_glob_match("d/**/*.json", "d/e/f/x.json"));
  CHECK(!io_glob_match("d/**/*.json", "e/x.json"));
  CHECK(io_glob_match("**", "a/b/c"));
  CHECK(io_glob_match("d/\\*", "d/*"));
  CHECK(!io_glob_match("d/\\*", "d/x"));
  CHECK(io_glob_match("d/[x", "d/[x"));
}

static void touch(const char *path) {
  FILE *f = fopen(path, "w");
  if (f) fclose(f);
}

TEST(glob_expands_sorted_across_directories) {
  char base[512], p[600];
  snprintf(base, sizeof base, "%s/globtree", t_tmpdir());
  fl_err_t err;
  fl_err_clear(&err);
  io_fs_t *fs = io_local_fs();
  snprintf(p, sizeof p, "%s/x/y", base);
  CHECK(fs->mkdirs(fs, p, &err) == 0);
  const char *files[] = {"b.pq", "a.pq", "x/c.pq", "x/y/d.pq", "x/y/e.txt"};
  for (size_t i = 0; i < 5; i++) {
    snprintf(p, sizeof p, "%s/%s", base, files[i]);
    touch(p);
  }
  io_entry_t *e;
  size_t n;
  snprintf(p, sizeof p, "%s/*.pq", base);
  CHECK(io_glob(fs, p, &e, &n, &err) == 0);
  CHECK(n == 2);
  CHECK(strstr(e[0].path, "/a.pq") && strstr(e[1].path, "/b.pq"));
  io_entries_free(e, n);
  snprintf(p, sizeof p, "%s/**/*.pq", base);
  CHECK(io_glob(fs, p, &e, &n, &err) == 0);
  CHECK(n == 4);
  io_entries_free(e, n);
  snprintf(p, sizeof p, "%s/nothing/*.pq", base);
  CHECK(io_glob(fs, p, &e, &n, &err) == 0);
  CHECK(n == 0);
  snprintf(p, sizeof p, "%s/a.pq", base);
  CHECK(io_glob(fs, p, &e, &n, &err) == 0);
  CHECK(n == 1);
  io_entries_free(e, n);
  snprintf(p, sizeof p, "%s/zz.pq", base);
  CHECK(io_glob(fs, p, &e, &n, &err) == 0);
  CHECK(n == 0);
}
