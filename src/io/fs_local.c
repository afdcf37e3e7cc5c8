/*
 * fs_local.c - the POSIX back end of the file-system interface.
 *
 * Writes go to "<path>.tmp-<pid>-<n>" and are renamed into place on commit
 * (or linked, for exclusive creates, so that an existing file is never
 * replaced), after an fsync, so a crash leaves either the old state or the
 * complete new file. While a file is written, every WRITEBACK_BYTES are
 * handed to the kernel's write-back at once (sync_file_range, which does
 * not wait), so the disk writes the first part of a large file while the
 * rest is still being produced and the fsync at commit waits only for the
 * tail; it also keeps a large file from piling up as dirty pages.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "io/fs.h"

typedef struct local_reader {
  io_reader_t base;
  int fd;
  char *path;
} local_reader_t;

typedef struct local_writer {
  io_writer_t base;
  int fd;
  bool exclusive;
  uint64_t flushed; /* bytes before this offset were handed to write-back */
  char *path;
  char *tmp;
} local_writer_t;

#define WRITEBACK_BYTES ((uint64_t)8 << 20)

/* Iceberg metadata names local files as URIs ("file:///wh/t/x.avro",
 * Java's "file:/wh/t/x.avro"); the POSIX calls want the path part. */
static const char *local_path(const char *p) {
  if (strncmp(p, "file://", 7) == 0) return p + 7;
  if (strncmp(p, "file:", 5) == 0) return p + 5;
  return p;
}

static int errno_error(fl_err_t *err, const char *op, const char *path) {
  int e = errno;
  int code = e == ENOENT ? FL_ENOTFOUND : e == EEXIST ? FL_EEXISTS : FL_EIO;
  return fl_err_set(err, code, "%s %s: %s", op, path, strerror(e));
}

static int local_read_at(io_reader_t *r, uint64_t offset, void *buf, size_t n, fl_err_t *err) {
  local_reader_t *lr = (local_reader_t *)r;
  if (offset > r->size || n > r->size - offset)
    return fl_err_set(err, FL_ECORRUPT, "%s: read of %zu bytes at offset %llu is past the end (%llu bytes)",
                      lr->path, n, (unsigned long long)offset, (unsigned long long)r->size);
  uint8_t *p = buf;
  while (n > 0) {
    ssize_t got = pread(lr->fd, p, n, (off_t)offset);
    if (got < 0) {
      if (errno == EINTR) continue;
      return errno_error(err, "reading", lr->path);
    }
    if (got == 0) return fl_err_set(err, FL_EIO, "reading %s: unexpected end of file", lr->path);
    p += got;
    n -= (size_t)got;
    offset += (uint64_t)got;
  }
  return FL_OK;
}

static void local_reader_close(io_reader_t *r) {
  local_reader_t *lr = (local_reader_t *)r;
  if (!lr) return;
  close(lr->fd);
  fl_free(lr->path);
  fl_free(lr);
}

static int local_open_read(io_fs_t *fs, const char *path, io_reader_t **out, fl_err_t *err) {
  path = local_path(path);
  (void)fs;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_error(err, "opening", path);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return errno_error(err, "stat", path);
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    return fl_err_set(err, FL_EINVALID, "opening %s: is a directory", path);
  }
  local_reader_t *lr = fl_calloc(1, sizeof *lr);
  lr->fd = fd;
  lr->path = fl_strdup(path);
  lr->base.path = lr->path;
  lr->base.size = (uint64_t)st.st_size;
  lr->base.read_at = local_read_at;
  lr->base.close = local_reader_close;
  *out = &lr->base;
  return FL_OK;
}

static int local_write(io_writer_t *w, const void *buf, size_t n, fl_err_t *err) {
  local_writer_t *lw = (local_writer_t *)w;
  const uint8_t *p = buf;
  while (n > 0) {
    ssize_t put = write(lw->fd, p, n);
    if (put < 0) {
      if (errno == EINTR) continue;
      return errno_error(err, "writing", lw->path);
    }
    p += put;
    n -= (size_t)put;
    w->written += (uint64_t)put;
  }
#ifdef SYNC_FILE_RANGE_WRITE
  /* Only a hint: a failure here shows again, and is reported, at the fsync. */
  if (w->written - lw->flushed >= WRITEBACK_BYTES) {
    (void)sync_file_range(lw->fd, (off_t)lw->flushed, (off_t)(w->written - lw->flushed),
                          SYNC_FILE_RANGE_WRITE);
    lw->flushed = w->written;
  }
#endif
  return FL_OK;
}

static void writer_free(local_writer_t *lw) {
  fl_free(lw->path);
  fl_free(lw->tmp);
  fl_free(lw);
}

static int local_commit(io_writer_t *w, fl_err_t *err) {
  local_writer_t *lw = (local_writer_t *)w;
  int rc = FL_OK;
  if (fsync(lw->fd) != 0) rc = errno_error(err, "syncing", lw->path);
  if (close(lw->fd) != 0 && !rc) rc = errno_error(err, "closing", lw->path);
  if (!rc) {
    if (lw->exclusive) {
      if (link(lw->tmp, lw->path) != 0) rc = errno_error(err, "creating", lw->path);
      unlink(lw->tmp);
    } else if (rename(lw->tmp, lw->path) != 0) {
      rc = errno_error(err, "renaming into", lw->path);
      unlink(lw->tmp);
    }
  } else {
    unlink(lw->tmp);
  }
  writer_free(lw);
  return rc;
}

static void local_abort(io_writer_t *w) {
  local_writer_t *lw = (local_writer_t *)w;
  if (!lw) return;
  close(lw->fd);
  unlink(lw->tmp);
  writer_free(lw);
}

static int local_mkdirs(io_fs_t *fs, const char *path, fl_err_t *err) {
  path = local_path(path);
  (void)fs;
  /* Usually the folder or its parent exists already: one call, not one
   * per path component. */
  if (mkdir(path, 0777) == 0 || errno == EEXIST) return FL_OK;
  char *p = fl_strdup(path);
  for (char *s = p + 1; *s; s++) {
    if (*s != '/') continue;
    *s = '\0';
    if (mkdir(p, 0777) != 0 && errno != EEXIST) {
      int rc = errno_error(err, "creating directory", p);
      fl_free(p);
      return rc;
    }
    *s = '/';
  }
  int rc = FL_OK;
  if (mkdir(p, 0777) != 0 && errno != EEXIST) rc = errno_error(err, "creating directory", p);
  fl_free(p);
  return rc;
}

static int local_create(io_fs_t *fs, const char *path, bool exclusive, io_writer_t **out,
                        fl_err_t *err) {
  path = local_path(path);
  static atomic_uint counter;
  size_t n = strlen(path) + 48;
  char *tmp = fl_malloc(n);
  snprintf(tmp, n, "%s.tmp-%d-%u", path, (int)getpid(), atomic_fetch_add(&counter, 1));
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  const char *slash = strrchr(path, '/');
  if (fd < 0 && errno == ENOENT && slash && slash != path) {
    /* The folder is missing: made on the first file written into it. */
    char *dir = fl_strndup(path, (size_t)(slash - path));
    int rc = local_mkdirs(fs, dir, err);
    fl_free(dir);
    if (rc) {
      fl_free(tmp);
      return rc;
    }
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  }
  if (fd < 0) {
    int rc = errno_error(err, "creating", tmp);
    fl_free(tmp);
    return rc;
  }
  local_writer_t *lw = fl_calloc(1, sizeof *lw);
  lw->fd = fd;
  lw->exclusive = exclusive;
  lw->path = fl_strdup(path);
  lw->tmp = tmp;
  lw->base.path = lw->path;
  lw->base.write = local_write;
  lw->base.commit = local_commit;
  lw->base.abort = local_abort;
  *out = &lw->base;
  return FL_OK;
}

static int local_remove(io_fs_t *fs, const char *path, fl_err_t *err) {
  path = local_path(path);
  (void)fs;
  if (unlink(path) != 0 && errno != ENOENT) return errno_error(err, "deleting", path);
  return FL_OK;
}

static int local_exists(io_fs_t *fs, const char *path, bool *out, fl_err_t *err) {
  path = local_path(path);
  (void)fs;
  (void)err;
  struct stat st;
  *out = stat(path, &st) == 0;
  return FL_OK;
}

typedef struct entry_list {
  io_entry_t *v;
  size_t n, cap;
} entry_list_t;

static int walk(const char *dir, entry_list_t *l, fl_err_t *err) {
  DIR *d = opendir(dir);
  if (!d) return errno == ENOENT ? FL_OK : errno_error(err, "listing", dir);
  struct dirent *de;
  int rc = FL_OK;
  while ((de = readdir(d)) != NULL) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
    size_t n = strlen(dir) + strlen(de->d_name) + 2;
    char *p = fl_malloc(n);
    snprintf(p, n, "%s/%s", dir, de->d_name);
    struct stat st;
    if (stat(p, &st) != 0) {
      fl_free(p);
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      rc = walk(p, l, err);
      fl_free(p);
      if (rc) break;
      continue;
    }
    if (l->n == l->cap) {
      l->cap = l->cap ? l->cap * 2 : 64;
      l->v = fl_realloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = (io_entry_t){.path = p,
                                .size = (uint64_t)st.st_size,
                                .mtime_ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000,
                                .is_dir = false};
  }
  closedir(d);
  return rc;
}

static int local_list(io_fs_t *fs, const char *prefix, io_entry_t **out, size_t *n, fl_err_t *err) {
  prefix = local_path(prefix);
  (void)fs;
  entry_list_t l = {0};
  int rc = walk(prefix, &l, err);
  if (rc) {
    io_entries_free(l.v, l.n);
    return rc;
  }
  *out = l.v;
  *n = l.n;
  return FL_OK;
}

static io_fs_t local_fs = {
    .name = "local",
    .open_read = local_open_read,
    .create = local_create,
    .remove = local_remove,
    .exists = local_exists,
    .list = local_list,
    .mkdirs = local_mkdirs,
};

io_fs_t *io_local_fs(void) { return &local_fs; }
