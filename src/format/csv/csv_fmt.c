/*
 * csv_fmt.c - the CSV format's entry in the format table.
 */
#include "format/csv/csv.h"

const fmt_impl_t csv_fmt_impl = {
    .kind = FMT_CSV,
    .open_reader = csv_fmt_open_reader,
    .open_writer = csv_fmt_open_writer,
    .inspect = NULL,
};
