/*
 * fs.h - the file-system interface (layer 2, io).
 *
 * Everything above reads and writes files through this table of function
 * pointers so that the same Parquet, Avro and Iceberg code runs on a local
 * disk and (later) on S3. Readers use positioned reads (pread semantics) so
 * that files larger than memory are read piecewise; writers append and
 * either publish the file atomically on close or discard it on abort.
 */
#ifndef FL_IO_FS_H
#define FL_IO_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct io_fs io_fs_t;
typedef struct io_reader io_reader_t;
typedef struct io_writer io_writer_t;

struct io_reader {
  const char *path;
  uint64_t size;
  /* Reads exactly n bytes at offset into buf, or fails (short read = error). */
  int (*read_at)(io_reader_t *r, uint64_t offset, void *buf, size_t n, fl_err_t *err);
  void (*close)(io_reader_t *r);
};

struct io_writer {
  const char *path;
  uint64_t written;
  int (*write)(io_writer_t *w, const void *buf, size_t n, fl_err_t *err);
  /* Makes the file visible under its path; the writer is freed either way. */
  int (*commit)(io_writer_t *w, fl_err_t *err);
  /* Drops the partial file; the writer is freed. */
  void (*abort)(io_writer_t *w);
};

typedef struct io_entry {
  char *path;
  uint64_t size;
  int64_t mtime_ms;
  bool is_dir;
} io_entry_t;

struct io_fs {
  const char *name; /* "local", "s3" */
  int (*open_read)(io_fs_t *fs, const char *path, io_reader_t **out, fl_err_t *err);
  /* exclusive: fail with FL_EEXISTS if the path exists at commit time. */
  int (*create)(io_fs_t *fs, const char *path, bool exclusive, io_writer_t **out, fl_err_t *err);
  int (*remove)(io_fs_t *fs, const char *path, fl_err_t *err);
  int (*exists)(io_fs_t *fs, const char *path, bool *out, fl_err_t *err);
  /* Lists files under a prefix recursively; caller frees with io_entries_free. */
  int (*list)(io_fs_t *fs, const char *prefix, io_entry_t **out, size_t *n, fl_err_t *err);
  int (*mkdirs)(io_fs_t *fs, const char *path, fl_err_t *err);
};

/* The process-wide local POSIX file system. */
io_fs_t *io_local_fs(void);

/* Reads a whole file into a malloc'd buffer, refusing files over max_bytes. */
int io_read_all(io_fs_t *fs, const char *path, size_t max_bytes, uint8_t **out, size_t *len,
                fl_err_t *err);
/* Writes a whole file atomically. */
int io_write_all(io_fs_t *fs, const char *path, const void *data, size_t len, fl_err_t *err);

void io_entries_free(io_entry_t *e, size_t n);

/*
 * Glob patterns over a file system (fs_glob.c). `*` matches any run of
 * characters within one path component, `?` one character, `[abc]`,
 * `[a-z]` and `[!a-z]` (or `[^...]`) one character of a set, and `**` as a
 * whole component any number of components (none included); `\` quotes
 * the next character.
 */
/* Whether pattern has any of the special characters. */
bool io_glob_has_magic(const char *pattern);
/* Whether path matches pattern as a whole. */
bool io_glob_match(const char *pattern, const char *path);
/*
 * The files matching pattern, sorted by path (malloc'd; free with
 * io_entries_free). The listing starts at the longest leading directory
 * without special characters ("." when the first component has one, and
 * the results then carry no "./"). A pattern without special characters
 * yields itself when the file exists. No match is not an error: *n = 0.
 */
int io_glob(io_fs_t *fs, const char *pattern, io_entry_t **out, size_t *n, fl_err_t *err);

#endif
