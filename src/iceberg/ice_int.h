/*
 * ice_int.h - helpers shared inside the Iceberg layer (layer 5, private).
 */
#ifndef FL_ICEBERG_ICE_INT_H
#define FL_ICEBERG_ICE_INT_H

#include "iceberg/ice_commit.h"
#include "iceberg/ice_manifest.h"
#include "iceberg/ice_table.h"

/* Reads one manifest of the table with inheritance from mf (its path
 * resolved through ice_table_path, partitions typed by its spec). */
int ice__read_manifest(const ice_table_t *t, fl_arena_t *a, const ice_manifest_file_t *mf,
                       ice_manifest_entry_t **out, size_t *n, fl_err_t *err);

/* The folder metadata files go to: write.metadata.path or <location>/metadata. */
const char *ice__metadata_dir(const ice_meta_t *m, fl_arena_t *a);

/* Milliseconds since the epoch. */
int64_t ice__now_ms(void);

#endif
