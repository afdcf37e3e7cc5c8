/*
 * ice_dv.h - deletion vectors, the v3 form of position deletes (layer 5,
 * iceberg). Reading them is part of the scan (ice_scan_deletes.c); this
 * is the writing side (ice_dv_write.c).
 */
#ifndef FL_ICEBERG_ICE_DV_H
#define FL_ICEBERG_ICE_DV_H

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "iceberg/ice_manifest.h"
#include "iceberg/ice_table.h"

/* Appends the deletion-vector-v1 blob of positions pos[0..n) (sorted,
 * distinct, >= 0) to out. */
void ice_dv_encode(const int64_t *pos, size_t n, fl_buf_t *out);

/*
 * Writes a Puffin file holding the deletion vector of data file `data`
 * (positions sorted, distinct, >= 0) under the table's data location and
 * fills *out, the delete file entry to commit: position deletes in
 * format PUFFIN with the data file's spec and partition, record_count
 * the cardinality, referenced_data_file, content_offset and content_size
 * the blob's. Strings live in a. The caller deletes the file if the
 * commit fails.
 */
int ice_dv_write(const ice_table_t *t, const ice_data_file_t *data, const int64_t *pos, size_t n,
                 fl_arena_t *a, ice_data_file_t *out, fl_err_t *err);

#endif
