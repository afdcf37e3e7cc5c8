/*
 * formats.c - the list of formats built into floe. Each format adds its
 * fmt_impl_t here.
 */
#include "format/format.h"

extern const fmt_impl_t js_fmt_impl;

/* Parquet, writer side only until the reader joins it in one fmt_impl_t. */
int pq_fmt_open_writer(io_fs_t *fs, const char *path, const ty_schema_t *schema,
                       const fmt_write_opts_t *opts, fmt_writer_t **out, fl_err_t *err);
static const fmt_impl_t pq_fmt_write_impl = {
    .kind = FMT_PARQUET,
    .open_writer = pq_fmt_open_writer,
};

const fmt_impl_t *const fmt_impls[] = {
    &js_fmt_impl,
    &pq_fmt_write_impl,
    0,
};
