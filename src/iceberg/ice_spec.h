/*
 * ice_spec.h - partition specs and sort orders (layer 5, iceberg).
 *
 * A partition spec lists fields, each a transform of one source column
 * (by field id) with its own partition field id (1000 and up, unique
 * across all specs of a table) and name. The partition tuple of a data
 * file is a struct with one value per spec field, typed by
 * ice_transform_result_type. A sort order lists transforms of source
 * columns with direction and null order; order 0 is "unsorted".
 */
#ifndef FL_ICEBERG_ICE_SPEC_H
#define FL_ICEBERG_ICE_SPEC_H

#include "iceberg/ice_transform.h"
#include "types/type.h"

typedef struct ice_partition_field {
  int32_t source_id;
  int32_t field_id;
  const char *name;
  ice_transform_t transform;
} ice_partition_field_t;

typedef struct ice_spec {
  int32_t spec_id;
  uint32_t nfields;
  ice_partition_field_t *fields;
} ice_spec_t;

typedef struct ice_sort_field {
  int32_t source_id;
  ice_transform_t transform;
  bool descending;
  bool nulls_first;
} ice_sort_field_t;

typedef struct ice_sort_order {
  int32_t order_id;
  uint32_t nfields;
  ice_sort_field_t *fields;
} ice_sort_order_t;

/* A spec with every field void (or none) partitions nothing. */
bool ice_spec_is_unpartitioned(const ice_spec_t *s);

/*
 * The struct type of the spec's partition tuples over schema (field ids =
 * partition field ids, all optional, names = partition field names).
 * Source columns missing from the schema (dropped later) get the type the
 * transform gives on... nothing: FL_EINVALID unless the transform is void
 * (then the field is an optional int, as Java does).
 */
int ice_spec_partition_type(fl_arena_t *a, const ice_spec_t *s, const ty_schema_t *schema,
                            const ty_type_t **out, fl_err_t *err);

/* Specs are compatible when their fields have equal source ids and
 * transforms in order (names and field ids may differ). */
bool ice_spec_compatible(const ice_spec_t *a, const ice_spec_t *b);

/*
 * Parses the CLI list "day(ts), bucket(16, id), name" against schema into
 * a spec with the given id; new partition field ids start at
 * *last_partition_id + 1 (which is advanced). Errors name the unknown
 * column or the transform that does not apply to its type.
 */
int ice_spec_parse(fl_arena_t *a, const char *text, const ty_schema_t *schema, int32_t spec_id,
                   int32_t *last_partition_id, ice_spec_t **out, fl_err_t *err);

/* Parses "id, ts DESC NULLS LAST, bucket(4, x)" into a sort order. */
int ice_sort_order_parse(fl_arena_t *a, const char *text, const ty_schema_t *schema,
                         int32_t order_id, ice_sort_order_t **out, fl_err_t *err);

/*
 * Appends the partition path of a tuple: "ts_day=2024-01-05/id_bucket_16=3"
 * with names and human values (ice_transform_human) URL-escaped as Java's
 * URLEncoder does (letters, digits and ".-*_" kept, space as '+', other
 * bytes %XX). values has one entry per spec field.
 */
void ice_spec_partition_path(const ice_spec_t *s, const ty_type_t *partition_type,
                             const ty_value_t *values, fl_buf_t *out);

#endif
