/*
 * ice_table.c - a loaded Iceberg table: its metadata, the committer that
 * swaps in new versions, metadata file naming, path resolution, the commit
 * retry policy and snapshot ancestry (layer 5, iceberg).
 *
 * A commit writes the next NNNNN-<uuid>.metadata.json exclusively, then asks
 * the catalog to swap its pointer from the old file to the new one. Whatever
 * fails after the write (a lost race, a catalog error) deletes the file
 * again, so a failed commit leaves nothing behind.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "base/alloc.h"
#include "base/time.h"
#include "iceberg/ice_int.h"
#include "iceberg/ice_table.h"

int ice_table_load(io_fs_t *fs, const char *ident, const char *metadata_location,
                   const ice_committer_t *committer, ice_table_t **out, fl_err_t *err) {
  ice_meta_t *m = NULL;
  int rc = ice_meta_read(fs, metadata_location, &m, err);
  if (rc) return fl_err_prefix(err, "loading table %s: ", ident ? ident : metadata_location);
  ice_table_t *t = fl_calloc(1, sizeof *t);
  t->fs = fs;
  t->ident = fl_strdup(ident ? ident : metadata_location);
  t->metadata_location = fl_strdup(metadata_location);
  t->meta = m;
  if (committer) t->committer = *committer;
  *out = t;
  return FL_OK;
}

int ice_table_refresh(ice_table_t *t, fl_err_t *err) {
  char *loc = NULL;
  if (t->committer.current) {
    int rc = t->committer.current(t->committer.ctx, &loc, err);
    if (rc) return fl_err_prefix(err, "refreshing table %s: ", t->ident);
  } else {
    loc = fl_strdup(t->metadata_location);
  }
  ice_meta_t *m = NULL;
  int rc = ice_meta_read(t->fs, loc, &m, err);
  if (rc) {
    fl_free(loc);
    return fl_err_prefix(err, "refreshing table %s: ", t->ident);
  }
  ice_meta_free(t->meta);
  t->meta = m;
  fl_free(t->metadata_location);
  t->metadata_location = loc;
  return FL_OK;
}

void ice_table_free(ice_table_t *t) {
  if (!t) return;
  if (t->committer.release) t->committer.release(t->committer.ctx);
  ice_meta_free(t->meta);
  ice__list_cache_free(t->list_cache);
  fl_free(t->ident);
  fl_free(t->metadata_location);
  fl_free(t->base_dir);
  fl_free(t);
}

/* True for "s3://...", "file:/...", "file:///..." (a scheme before any '/'). */
static bool has_scheme(const char *p) {
  const char *c = p;
  while ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
         *c == '+' || *c == '-' || *c == '.')
    c++;
  return c > p && *c == ':';
}

const char *ice_table_path(const ice_table_t *t, fl_arena_t *a, const char *path) {
  if (!path || path[0] == '/' || has_scheme(path) || !t->base_dir || !t->base_dir[0]) return path;
  size_t bl = strlen(t->base_dir);
  bool slash = t->base_dir[bl - 1] == '/';
  return fl_arena_sprintf(a, "%s%s%s", t->base_dir, slash ? "" : "/", path);
}

/* The version number a metadata file name starts with ("00012-..." or
 * "v12.metadata.json"), -1 when it has none. */
static long parse_version(const char *prev) {
  const char *base = strrchr(prev, '/');
  base = base ? base + 1 : prev;
  const char *p = base;
  if (*p == 'v') p++;
  if (*p < '0' || *p > '9') return -1;
  long v = 0;
  while (*p >= '0' && *p <= '9') {
    if (v > 100000000L) return -1;
    v = v * 10 + (*p - '0');
    p++;
  }
  if (base[0] == 'v' ? *p != '.' : *p != '-') return -1;
  return v;
}

char *ice_metadata_file_name(fl_arena_t *a, const char *location, const char *prev) {
  long next = prev ? parse_version(prev) + 1 : 0;
  char uuid[37];
  ice_new_uuid(uuid);
  size_t n = strlen(location);
  while (n > 1 && location[n - 1] == '/') n--;
  return fl_arena_sprintf(a, "%.*s/metadata/%05ld-%s.metadata.json", (int)n, location, next, uuid);
}

int ice_table_commit_meta(ice_table_t *t, ice_meta_t *m, fl_err_t *err) {
  if (!t->committer.swap) {
    ice_meta_free(m);
    return fl_err_set(err, FL_EUNSUPPORTED, "table %s is read-only (no catalog to commit to)",
                      t->ident);
  }
  int64_t now_ms = fl_now_micros() / 1000;
  const char *prev = t->metadata_location;
  if (prev && t->meta) {
    /* Metadata timestamps must not go backwards even when clocks differ. */
    if (now_ms < t->meta->last_updated_ms) now_ms = t->meta->last_updated_ms;
    ice_meta_log_previous(m, prev, t->meta->last_updated_ms, now_ms);
  } else {
    m->last_updated_ms = now_ms;
  }
  fl_arena_t *a = fl_arena_new(0);
  char *path = ice_metadata_file_name(a, m->location, prev);
  char *dir = fl_arena_strndup(a, path, (size_t)(strrchr(path, '/') - path));
  int rc = FL_OK;
  if (t->fs->mkdirs) {
    rc = t->fs->mkdirs(t->fs, ice_table_path(t, a, dir), err);
    if (rc) goto out;
  }
  /* Kept with m (the next t->meta), so the next commit's clone has it. */
  ice_meta_render_snapshots(m);
  rc = ice_meta_write(t->fs, ice_table_path(t, a, path), m, err);
  if (rc == FL_EEXISTS) {
    /* Another writer took this version number: a lost race, not our file. */
    rc = fl_err_set_retriable(err, FL_ECONFLICT, "table %s: metadata file %s already exists",
                              t->ident, path);
    goto out;
  }
  if (rc) goto out;
  rc = t->committer.swap(t->committer.ctx, prev, path, err);
  if (rc) {
    fl_err_t ignored;
    t->fs->remove(t->fs, ice_table_path(t, a, path), &ignored);
    goto out;
  }
  ice_meta_free(t->meta);
  t->meta = m;
  fl_free(t->metadata_location);
  t->metadata_location = fl_strdup(path);
  m = NULL;
out:
  if (m) ice_meta_free(m); /* ours in every case (NULL once it became t->meta) */
  fl_arena_free(a);
  return rc;
}

ice_retry_t ice_table_retry(const ice_table_t *t) {
  ice_retry_t r = {4, 100, 60000, 1800000};
  if (!t || !t->meta) return r;
  int64_t v;
  v = ice_meta_property_int(t->meta, "commit.retry.num-retries", r.num_retries);
  r.num_retries = v < 0 ? 0 : v > 1000 ? 1000 : (int)v;
  v = ice_meta_property_int(t->meta, "commit.retry.min-wait-ms", r.min_wait_ms);
  r.min_wait_ms = v < 0 ? 0 : v > 3600000 ? 3600000 : (int)v;
  v = ice_meta_property_int(t->meta, "commit.retry.max-wait-ms", r.max_wait_ms);
  r.max_wait_ms = v < 0 ? 0 : v > 3600000 ? 3600000 : (int)v;
  v = ice_meta_property_int(t->meta, "commit.retry.total-timeout-ms", r.total_timeout_ms);
  r.total_timeout_ms = v < 0 ? 0 : v > 86400000 ? 86400000 : (int)v;
  if (r.max_wait_ms < r.min_wait_ms) r.max_wait_ms = r.min_wait_ms;
  return r;
}

void ice_retry_sleep(const ice_retry_t *r, int attempt) {
  /* min * 2^(attempt-1), capped at max, plus up to 10% jitter (as Java's Tasks). */
  double delay = r->min_wait_ms;
  for (int i = 1; i < attempt && delay < r->max_wait_ms; i++) delay *= 2;
  if (delay > r->max_wait_ms) delay = r->max_wait_ms;
  uint32_t rnd = 0;
  if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd) rnd = (uint32_t)clock();
  delay += delay * 0.1 * ((double)rnd / 4294967296.0);
  int64_t ms = (int64_t)delay;
  if (ms <= 0) return;
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

void ice_table_ancestors(const ice_meta_t *m, int64_t snapshot_id, ice_ancestor_fn fn, void *arg) {
  /* At most nsnapshots steps: a corrupt parent cycle cannot loop forever. */
  for (uint32_t steps = 0; snapshot_id >= 0 && steps <= m->nsnapshots; steps++) {
    const ice_snapshot_t *s = ice_meta_snapshot(m, snapshot_id);
    if (!s || !fn(s, arg)) return;
    snapshot_id = s->parent_id;
  }
}

typedef struct find_ancestor {
  int64_t id;
  bool found;
} find_ancestor_t;

static bool find_ancestor_fn(const ice_snapshot_t *s, void *arg) {
  find_ancestor_t *f = arg;
  if (s->snapshot_id == f->id) {
    f->found = true;
    return false;
  }
  return true;
}

bool ice_is_ancestor(const ice_meta_t *m, int64_t snapshot_id, int64_t ancestor_id) {
  find_ancestor_t f = {ancestor_id, false};
  ice_table_ancestors(m, snapshot_id, find_ancestor_fn, &f);
  return f.found;
}
