/*
 * st_checkpoint.c - checkpoint folders, files and writer records (layer
 * 10, stream). See st_checkpoint.h for the layout.
 */
#define _XOPEN_SOURCE 700
#include "stream/st_checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "iceberg/ice_meta.h"
#include "iceberg/ice_spec.h"
#include "io/fs.h"

struct st_ckpt_store {
  char *dir;     /* <warehouse>/_floe/jobs/<job-id> */
  char *writers; /* dir/writers */
};

static int mkdir_p(const char *path, fl_err_t *err) {
  char *p = fl_strdup(path);
  for (char *q = p + 1; *q; q++) {
    if (*q != '/') continue;
    *q = 0;
    if (mkdir(p, 0777) != 0 && errno != EEXIST) {
      int e = errno;
      fl_free(p);
      return fl_err_set(err, FL_EIO, "creating %s: %s", path, strerror(e));
    }
    *q = '/';
  }
  int rc = FL_OK;
  if (mkdir(p, 0777) != 0 && errno != EEXIST)
    rc = fl_err_set(err, FL_EIO, "creating %s: %s", path, strerror(errno));
  fl_free(p);
  return rc;
}

int st_ckpt_open(const char *warehouse, const char *job_id, st_ckpt_store_t **out, fl_err_t *err) {
  const char *wh = warehouse;
  if (strncmp(wh, "file://", 7) == 0)
    wh += 7;
  else if (strstr(wh, "://"))
    return fl_err_set(err, FL_EUNSUPPORTED, "checkpoints need a local warehouse for now (got %s)",
                      warehouse);
  for (const char *c = job_id; *c; c++)
    if (!(*c == '-' || *c == '_' || *c == '.' || (*c >= '0' && *c <= '9') ||
          (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')) ||
        !strcmp(job_id, ".") || !strcmp(job_id, ".."))
      return fl_err_set(err, FL_EINVALID, "job id '%s': use letters, digits, '-', '_' and '.' only",
                        job_id);
  if (!*job_id) return fl_err_set(err, FL_EINVALID, "the job id is empty");
  st_ckpt_store_t *s = fl_calloc(1, sizeof *s);
  size_t n = strlen(wh) + strlen(job_id) + 32;
  s->dir = fl_malloc(n);
  snprintf(s->dir, n, "%s/_floe/jobs/%s", wh, job_id);
  s->writers = fl_malloc(n + 16);
  snprintf(s->writers, n + 16, "%s/writers", s->dir);
  int rc = mkdir_p(s->writers, err);
  if (rc) {
    st_ckpt_close(s);
    return rc;
  }
  *out = s;
  return FL_OK;
}

void st_ckpt_close(st_ckpt_store_t *s) {
  if (!s) return;
  fl_free(s->dir);
  fl_free(s->writers);
  fl_free(s);
}

const char *st_ckpt_job_dir(const st_ckpt_store_t *s) { return s->dir; }

static char *chk_path(const st_ckpt_store_t *s, int64_t id, const char *name) {
  size_t n = strlen(s->dir) + (name ? strlen(name) : 0) + 48;
  char *p = fl_malloc(n);
  if (name)
    snprintf(p, n, "%s/chk-%" PRId64 "/%s", s->dir, id, name);
  else
    snprintf(p, n, "%s/chk-%" PRId64, s->dir, id);
  return p;
}

static bool file_exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

/* The ids of the chk-<n> folders, unsorted. */
static int list_chk(const st_ckpt_store_t *s, int64_t **ids, size_t *n, fl_err_t *err) {
  *ids = NULL;
  *n = 0;
  DIR *d = opendir(s->dir);
  if (!d) return fl_err_set(err, FL_EIO, "reading %s: %s", s->dir, strerror(errno));
  size_t cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, "chk-", 4) != 0) continue;
    char *end;
    long long v = strtoll(e->d_name + 4, &end, 10);
    if (*end || v <= 0) continue;
    if (*n == cap) {
      cap = cap ? cap * 2 : 8;
      *ids = fl_realloc(*ids, cap * sizeof **ids);
    }
    (*ids)[(*n)++] = v;
  }
  closedir(d);
  return FL_OK;
}

int st_ckpt_latest(st_ckpt_store_t *s, int64_t *id, fl_err_t *err) {
  *id = 0;
  int64_t *ids;
  size_t n;
  int rc = list_chk(s, &ids, &n, err);
  if (rc) return rc;
  for (size_t i = 0; i < n; i++) {
    if (ids[i] <= *id) continue;
    char *p = chk_path(s, ids[i], "_metadata");
    if (file_exists(p)) *id = ids[i];
    fl_free(p);
  }
  fl_free(ids);
  return FL_OK;
}

int st_ckpt_begin(st_ckpt_store_t *s, int64_t id, fl_err_t *err) {
  char *p = chk_path(s, id, NULL);
  int rc = mkdir_p(p, err);
  fl_free(p);
  return rc;
}

int st_ckpt_write_blob(st_ckpt_store_t *s, int64_t id, const char *name, const void *data,
                       size_t len, fl_err_t *err) {
  char *p = chk_path(s, id, name);
  int rc = io_write_all(io_local_fs(), p, data, len, err);
  fl_free(p);
  return rc;
}

int st_ckpt_read_blob(st_ckpt_store_t *s, int64_t id, const char *name, uint8_t **data, size_t *len,
                      fl_err_t *err) {
  char *p = chk_path(s, id, name);
  int rc = io_read_all(io_local_fs(), p, (size_t)1 << 32, data, len, err);
  fl_free(p);
  return rc;
}

int st_ckpt_write_files(st_ckpt_store_t *s, int64_t id, const char *name, const ice_table_t *t,
                        const ice_data_file_t *files, size_t n, fl_err_t *err) {
  char *p = chk_path(s, id, name);
  const ice_meta_t *m = t->meta;
  ice_manifest_writer_t *w;
  int rc = ice_manifest_writer_open(io_local_fs(), p, m->format_version, ice_meta_schema(m),
                                    ice_meta_spec(m), 0, -1, NULL, &w, err);
  for (size_t i = 0; i < n && !rc; i++) {
    ice_manifest_entry_t e = {.status = ICE_STATUS_ADDED,
                              .snapshot_id = -1,
                              .sequence_number = -1,
                              .file_sequence_number = -1,
                              .file = files[i]};
    rc = ice_manifest_writer_add(w, &e, err);
  }
  if (rc) {
    if (w) ice_manifest_writer_abort(w);
  } else {
    fl_arena_t *a = fl_arena_new(0);
    ice_manifest_file_t mf;
    rc = ice_manifest_writer_close(w, a, &mf, err);
    fl_arena_free(a);
  }
  fl_free(p);
  return rc;
}

int st_ckpt_read_files(st_ckpt_store_t *s, int64_t id, const char *name, const ice_table_t *t,
                       int32_t spec_id, fl_arena_t *a, ice_data_file_t **files, size_t *n,
                       fl_err_t *err) {
  char *p = chk_path(s, id, name);
  const ice_meta_t *m = t->meta;
  const ice_spec_t *spec = ice_meta_spec_by_id(m, spec_id);
  const ty_type_t *ptype = NULL;
  int rc = FL_OK;
  if (!spec)
    rc = fl_err_set(err, FL_ECORRUPT, "%s: partition spec %d of the pending files is gone", p,
                    spec_id);
  if (!rc && spec->nfields) rc = ice_spec_partition_type(a, spec, ice_meta_schema(m), &ptype, err);
  ice_manifest_file_t mf = {.path = fl_arena_strdup(a, p),
                            .spec_id = spec_id,
                            .sequence_number = 0,
                            .min_sequence_number = 0,
                            .added_snapshot_id = -1,
                            .first_row_id = -1};
  io_reader_t *r;
  if (!rc && (rc = io_local_fs()->open_read(io_local_fs(), p, &r, err)) == FL_OK) {
    mf.length = (int64_t)r->size;
    r->close(r);
  }
  ice_manifest_entry_t *es = NULL;
  size_t ne = 0;
  if (!rc) rc = ice_manifest_read(io_local_fs(), a, &mf, ptype, &es, &ne, err);
  fl_free(p);
  if (rc) return rc;
  *files = fl_arena_zalloc(a, (ne ? ne : 1) * sizeof **files);
  for (size_t i = 0; i < ne; i++) (*files)[i] = es[i].file;
  *n = ne;
  return FL_OK;
}

int st_ckpt_write_meta(st_ckpt_store_t *s, int64_t id, const json_t *meta, fl_err_t *err) {
  char *text = json_dumps(meta, JSON_INDENT(2) | JSON_SORT_KEYS);
  if (!text) return fl_err_set(err, FL_EINTERNAL, "checkpoint %" PRId64 ": metadata JSON", id);
  /* io_write_all writes a temporary file, fsyncs it and renames it in. */
  char *p = chk_path(s, id, "_metadata");
  int rc = io_write_all(io_local_fs(), p, text, strlen(text), err);
  free(text);
  if (!rc) {
    /* The rename is durable once the folder is synced too. */
    char *d = chk_path(s, id, NULL);
    DIR *dir = opendir(d);
    if (dir) {
      fsync(dirfd(dir));
      closedir(dir);
    }
    fl_free(d);
  }
  fl_free(p);
  return rc;
}

int st_ckpt_read_meta(st_ckpt_store_t *s, int64_t id, json_t **out, fl_err_t *err) {
  uint8_t *data;
  size_t len;
  int rc = st_ckpt_read_blob(s, id, "_metadata", &data, &len, err);
  if (rc) return rc;
  json_error_t je;
  json_t *j = json_loadb((const char *)data, len, 0, &je);
  fl_free(data);
  if (!json_is_object(j)) {
    json_decref(j);
    return fl_err_set(err, FL_ECORRUPT, "checkpoint %" PRId64 " of %s: bad _metadata: %s", id,
                      s->dir, je.text);
  }
  *out = j;
  return FL_OK;
}

int st_ckpt_note_writer(st_ckpt_store_t *s, int64_t id, const char *uuid, const char *data_dir,
                        fl_err_t *err) {
  size_t n = strlen(s->writers) + strlen(uuid) + 32;
  char *p = fl_malloc(n);
  snprintf(p, n, "%s/%" PRId64 "-%s", s->writers, id, uuid);
  int rc = io_write_all(io_local_fs(), p, data_dir, strlen(data_dir), err);
  fl_free(p);
  return rc;
}

int st_ckpt_clean_writers(st_ckpt_store_t *s, int64_t complete, uint64_t *deleted, fl_err_t *err) {
  if (deleted) *deleted = 0;
  DIR *d = opendir(s->writers);
  if (!d) return fl_err_set(err, FL_EIO, "reading %s: %s", s->writers, strerror(errno));
  struct dirent *e;
  int rc = FL_OK;
  while (!rc && (e = readdir(d))) {
    char *end;
    long long id = strtoll(e->d_name, &end, 10);
    if (end == e->d_name || *end != '-') continue;
    const char *uuid = end + 1;
    size_t n = strlen(s->writers) + strlen(e->d_name) + 2;
    char *rec = fl_malloc(n);
    snprintf(rec, n, "%s/%s", s->writers, e->d_name);
    if (id > complete) {
      uint8_t *dir = NULL;
      size_t len = 0;
      rc = io_read_all(io_local_fs(), rec, 1 << 16, &dir, &len, err);
      if (!rc) {
        char *data_dir = fl_malloc(len + 1);
        memcpy(data_dir, dir, len);
        data_dir[len] = 0;
        io_fs_t *fs = io_local_fs();
        io_entry_t *files = NULL;
        size_t nf = 0;
        fl_err_t le;
        fl_err_clear(&le);
        /* A folder that was never made holds nothing to delete. */
        if (fs->list(fs, data_dir, &files, &nf, &le) == FL_OK) {
          for (size_t i = 0; i < nf; i++) {
            const char *base = strrchr(files[i].path, '/');
            base = base ? base + 1 : files[i].path;
            if (files[i].is_dir || !strstr(base, uuid)) continue;
            fl_err_t ignored;
            if (fs->remove(fs, files[i].path, &ignored) == FL_OK && deleted) (*deleted)++;
          }
          io_entries_free(files, nf);
        }
        fl_free(data_dir);
      }
      fl_free(dir);
    }
    if (!rc) unlink(rec);
    fl_free(rec);
  }
  closedir(d);
  return rc;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  remove(path);
  return 0;
}

void st_ckpt_prune(st_ckpt_store_t *s, int64_t id, int keep) {
  int64_t *ids;
  size_t n;
  fl_err_t ignored;
  if (list_chk(s, &ids, &n, &ignored)) return;
  for (size_t i = 0; i < n; i++) {
    if (ids[i] > id - keep && ids[i] <= id) continue;
    char *p = chk_path(s, ids[i], NULL);
    nftw(p, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    fl_free(p);
  }
  fl_free(ids);
}
