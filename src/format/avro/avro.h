/*
 * avro.h - the Avro format's entry points for the rest of floe (layer 4,
 * format/avro). The building blocks have their own headers:
 * avro_schema.h, avro_binary.h, avro_container.h, avro_iceberg.h,
 * avro_batch.h.
 */
#ifndef FL_FORMAT_AVRO_H
#define FL_FORMAT_AVRO_H

#include <stdio.h>

#include "format/format.h"

int av_fmt_open_reader(io_fs_t *fs, const char *path, const fmt_read_opts_t *opts,
                       fmt_reader_t **out, fl_err_t *err);
int av_fmt_open_writer(io_fs_t *fs, const char *path, const ty_schema_t *schema,
                       const fmt_write_opts_t *opts, fmt_writer_t **out, fl_err_t *err);
int av_fmt_inspect(io_fs_t *fs, const char *path, bool json, FILE *out, fl_err_t *err);

#endif
