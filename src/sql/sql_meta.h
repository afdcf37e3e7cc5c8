/*
 * sql_meta.h - Iceberg metadata tables ("t$snapshots", "t$files", ...)
 * as SQL relations (layer 7, sql).
 *
 * Trino's Iceberg connector exposes every table's metadata as tables whose
 * name is the table's followed by `$` and a kind. This module knows the
 * kinds and their columns, with Trino's names and types; the binder
 * resolves the names to a scan node marked with the kind
 * (sql_bind_meta.c) and the executor's metadata scan (exec/op_meta_scan.c)
 * fills the rows from the table's metadata, manifest lists and manifests.
 * Both take the columns from sql_meta_layout, so they always agree.
 */
#ifndef FL_SQL_SQL_META_H
#define FL_SQL_SQL_META_H

#include "iceberg/ice_table.h"
#include "sql/sql_bind.h"

#define SQL_META_KINDS(X)                                \
  X(SNAPSHOTS, "snapshots", false)                       \
  X(HISTORY, "history", false)                           \
  X(FILES, "files", true)                                \
  X(MANIFESTS, "manifests", true)                        \
  X(ALL_MANIFESTS, "all_manifests", false)               \
  X(PARTITIONS, "partitions", true)                      \
  X(REFS, "refs", false)                                 \
  X(PROPERTIES, "properties", false)                     \
  X(METADATA_LOG_ENTRIES, "metadata_log_entries", false) \
  X(ENTRIES, "entries", true)

typedef enum sql_meta_kind {
  SQL_META_NONE = 0,
#define SQL__META_ENUM(name, text, versioned) SQL_META_##name,
  SQL_META_KINDS(SQL__META_ENUM)
#undef SQL__META_ENUM
      SQL_META_COUNT
} sql_meta_kind_t;

/* The kind a name suffix (after `$`, case-insensitive) names; NONE if none. */
sql_meta_kind_t sql_meta_kind(const char *suffix);
const char *sql_meta_name(sql_meta_kind_t k);
/* Whether the kind describes one snapshot, so that FOR VERSION AS OF and
 * FOR TIMESTAMP AS OF choose which ($files, $manifests, $partitions,
 * $entries); the others describe the whole table. */
bool sql_meta_versioned(sql_meta_kind_t k);

/* A partition field of the table's partition row: the union of every
 * spec's fields by field id, in spec order, as Trino builds it. */
typedef struct sql_meta_part {
  int32_t field_id;
  const char *name;
  const ty_type_t *type; /* the transform's result type */
} sql_meta_part_t;

/* A column of the table described in readable_metrics or $partitions.data. */
typedef struct sql_meta_col {
  int32_t field_id;
  const char *name; /* dotted for nested fields ("device.os") */
  const ty_type_t *type;
} sql_meta_col_t;

typedef struct sql_meta_layout {
  sql_meta_kind_t kind;
  sql_col_t *cols; /* every column of the metadata table, in Trino's order */
  uint32_t ncols;
  sql_meta_part_t *parts; /* the partition row's fields (none: no partition column) */
  uint32_t nparts;
  sql_dtype_t part_type;   /* row(...) of parts */
  sql_meta_col_t *metrics; /* $partitions.data: top-level primitive columns that are not
                              identity partition sources of the default spec */
  uint32_t nmetrics;
  sql_meta_col_t *prims; /* readable_metrics: primitive columns, nested ones
                            included, sorted by name */
  uint32_t nprims;
} sql_meta_layout_t;

/* The layout of metadata table k of t, allocated in a. Column types of t
 * that SQL does not cover are left out of the partition row and the
 * metrics. */
int sql_meta_layout(fl_arena_t *a, sql_meta_kind_t k, const ice_table_t *t, const sql_resolver_t *r,
                    sql_meta_layout_t *out, fl_err_t *err);

#endif
