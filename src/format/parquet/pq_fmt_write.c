/*
 * pq_fmt_write.c - placeholder for the Parquet writer's format entry
 * point until the writer lands; the writer's file replaces this one.
 */
#include "format/format.h"

int pq_fmt_open_writer(io_fs_t *fs, const char *path, const ty_schema_t *schema,
                       const fmt_write_opts_t *opts, fmt_writer_t **out, fl_err_t *err);

int pq_fmt_open_writer(io_fs_t *fs, const char *path, const ty_schema_t *schema,
                       const fmt_write_opts_t *opts, fmt_writer_t **out, fl_err_t *err) {
  (void)fs;
  (void)schema;
  (void)opts;
  (void)out;
  return fl_err_set(err, FL_EUNSUPPORTED, "%s: writing parquet is not built in yet", path);
}
