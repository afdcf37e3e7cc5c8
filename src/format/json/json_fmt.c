/*
 * json_fmt.c - the JSON-lines format's entry in the format table.
 */
#include "format/format.h"

int js_fmt_open_reader(io_fs_t *fs, const char *path, const fmt_read_opts_t *opts,
                       fmt_reader_t **out, fl_err_t *err);
int js_fmt_open_writer(io_fs_t *fs, const char *path, const ty_schema_t *schema,
                       const fmt_write_opts_t *opts, fmt_writer_t **out, fl_err_t *err);

const fmt_impl_t js_fmt_impl = {
    .kind = FMT_JSONL,
    .open_reader = js_fmt_open_reader,
    .open_writer = js_fmt_open_writer,
    .inspect = NULL,
};
