/*
 * ice_transform.h - Iceberg partition transforms (layer 5, iceberg).
 *
 * identity, bucket[N], truncate[W], year, month, day, hour and void, as the
 * Iceberg spec defines them: which source types each accepts, the type of
 * its result, its value on one source value (bucket through murmur3_x86_32
 * of the single-value hash form), and the human text of a result used in
 * partition folder names ("ts_day=2024-01-05"). Null maps to null; void
 * maps everything to null. Transforms floe does not know (written by a
 * newer engine) parse as ICE_T_UNKNOWN with their text kept, so metadata
 * that carries them round-trips; applying them is FL_EUNSUPPORTED.
 */
#ifndef FL_ICEBERG_ICE_TRANSFORM_H
#define FL_ICEBERG_ICE_TRANSFORM_H

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "types/type.h"
#include "types/value.h"

typedef enum ice_transform_kind {
  ICE_T_IDENTITY,
  ICE_T_BUCKET,
  ICE_T_TRUNCATE,
  ICE_T_YEAR,
  ICE_T_MONTH,
  ICE_T_DAY,
  ICE_T_HOUR,
  ICE_T_VOID,
  ICE_T_UNKNOWN,
} ice_transform_kind_t;

typedef struct ice_transform {
  ice_transform_kind_t kind;
  int32_t param;    /* bucket: N; truncate: W; else 0 */
  const char *text; /* ICE_T_UNKNOWN: the text as read (arena-owned); else NULL */
} ice_transform_t;

/*
 * Parses the metadata spelling: "identity", "bucket[16]", "truncate[4]",
 * "year", "month", "day", "hour", "void" (case-insensitive). Anything else
 * is ICE_T_UNKNOWN (text copied into a). Malformed parameters ("bucket[0]",
 * "bucket[x]") are FL_EPARSE.
 */
int ice_transform_parse(fl_arena_t *a, const char *text, ice_transform_t *out, fl_err_t *err);

/*
 * Parses the CLI / SQL spelling of a partition field: "ts", "day(ts)",
 * "bucket(16, id)", "bucket(id, 16)" (Trino's order), "truncate(4, name)",
 * "truncate(name, 4)", "year(ts)", "void(x)", also "identity(x)". Sets the
 * transform and *column (arena copy of the column name, may contain dots
 * for nested fields).
 */
int ice_transform_parse_call(fl_arena_t *a, const char *text, ice_transform_t *out,
                             const char **column, fl_err_t *err);

/* Appends the metadata spelling ("bucket[16]"). */
void ice_transform_format(const ice_transform_t *t, fl_buf_t *out);

/* Whether the transform accepts a source of type src (spec table). */
bool ice_transform_can_apply(const ice_transform_t *t, const ty_type_t *src);

/*
 * Result type: identity and truncate keep the source type, bucket gives
 * int, year/month/hour give int, day gives date, void keeps the source
 * type. NULL when the transform cannot apply to src. Unknown transforms
 * give string (as Java and PyIceberg type them), so partition tuples
 * written by newer engines still read.
 */
const ty_type_t *ice_transform_result_type(const ice_transform_t *t, const ty_type_t *src);

/*
 * Applies the transform to one value of type src. Truncated strings and
 * binaries point into the source value's bytes (no copy). Errors:
 * FL_EUNSUPPORTED for unknown transforms or source types it cannot apply to.
 */
int ice_transform_apply(const ice_transform_t *t, const ty_type_t *src, const ty_value_t *in,
                        ty_value_t *out, fl_err_t *err);

/* The 32-bit murmur3 hash of a non-null value in the spec's hash form
 * (ints, longs, dates, times and timestamps as 8-byte little-endian
 * longs; decimals as minimal big-endian two's complement; uuid big-endian;
 * strings UTF-8). float and double hash as doubles (8-byte LE of the
 * IEEE bits, -0 as 0, NaN canonical) as the spec's reference does. */
int32_t ice_bucket_hash(const ty_type_t *src, const ty_value_t *v);

/*
 * Human text of a transform result, as Java's Transform.toHumanString:
 * year "2024", month "2024-03", day "2024-03-05", hour "2024-03-05-13",
 * identity/truncate the value's text as Java prints it (times and
 * timestamps as LocalTime/LocalDateTime.toString: "22:31", "22:31:08.5" ->
 * "22:31:08.500", tz types with "Z"; binary and fixed in base64; decimals
 * as BigDecimal.toString), bucket the number, null "null". Months before
 * 1970 use floor division ("1969-12"), as PyIceberg does (Java prints
 * "1970-00" there). result_type is ice_transform_result_type's answer.
 */
void ice_transform_human(const ice_transform_t *t, const ty_type_t *result_type,
                         const ty_value_t *v, fl_buf_t *out);

/* Whether source order implies result order (identity, truncate, year,
 * month, day, hour): such transforms project range predicates. */
bool ice_transform_preserves_order(const ice_transform_t *t);

/* Two transforms are the same (kind and parameter, or same unknown text). */
bool ice_transform_equal(const ice_transform_t *a, const ice_transform_t *b);

/*
 * Whether values of `fine` determine values of `coarse` on the same
 * source, used to decide that data already partitioned by one spec needs
 * no split: identity determines everything, every transform determines
 * void, hour > day > month > year, bucket[N] determines bucket[M] when M
 * divides N; truncate only its own width; unknown transforms only
 * themselves.
 */
bool ice_transform_satisfies(const ice_transform_t *fine, const ice_transform_t *coarse);

/* The default partition field name for a transform of a source column,
 * as PyIceberg and Java's UpdatePartitionSpec (Spark's ALTER TABLE ADD
 * PARTITION FIELD) name them: "id" for identity, "id_bucket_16",
 * "name_trunc_4", "ts_year", "ts_month", "ts_day", "ts_hour", "x_null" for
 * void, "x_<text>" for unknown transforms. (Java's PartitionSpec.Builder
 * alone omits the parameter: "id_bucket", "name_trunc".) */
const char *ice_transform_field_name(fl_arena_t *a, const ice_transform_t *t, const char *source);

#endif
