/*
 * formats.c - the list of formats built into floe. Each format adds its
 * fmt_impl_t here.
 */
#include "format/format.h"

extern const fmt_impl_t pq_fmt_impl, av_fmt_impl, js_fmt_impl, csv_fmt_impl;

const fmt_impl_t *const fmt_impls[] = {
    &pq_fmt_impl,
    &av_fmt_impl,
    &js_fmt_impl,
    &csv_fmt_impl,
    0,
};
