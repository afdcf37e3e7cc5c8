/*
 * fs_util.c - whole-file helpers over any io_fs_t back end.
 */
#include "base/alloc.h"
#include "io/fs.h"

int io_read_all(io_fs_t *fs, const char *path, size_t max_bytes, uint8_t **out, size_t *len,
                fl_err_t *err) {
  io_reader_t *r;
  int rc = fs->open_read(fs, path, &r, err);
  if (rc) return rc;
  if (r->size > max_bytes) {
    rc = fl_err_set(err, FL_ELIMIT, "%s: %llu bytes is more than the %zu allowed", path,
                    (unsigned long long)r->size, max_bytes);
    r->close(r);
    return rc;
  }
  uint8_t *buf = fl_try_malloc((size_t)r->size);
  if (!buf) {
    r->close(r);
    return fl_err_set(err, FL_ENOMEM, "%s: cannot allocate %llu bytes", path, (unsigned long long)r->size);
  }
  rc = r->read_at(r, 0, buf, (size_t)r->size, err);
  *len = (size_t)r->size;
  r->close(r);
  if (rc) {
    fl_free(buf);
    return rc;
  }
  *out = buf;
  return FL_OK;
}

int io_write_all(io_fs_t *fs, const char *path, const void *data, size_t len, fl_err_t *err) {
  io_writer_t *w;
  int rc = fs->create(fs, path, false, &w, err);
  if (rc) return rc;
  rc = w->write(w, data, len, err);
  if (rc) {
    w->abort(w);
    return rc;
  }
  return w->commit(w, err);
}

void io_entries_free(io_entry_t *e, size_t n) {
  for (size_t i = 0; i < n; i++) fl_free(e[i].path);
  fl_free(e);
}
