/*
 * value.h - single scalar values, their comparison, and text forms
 * (layer 3, types).
 *
 * A ty_value_t holds one primitive value in the same representation a
 * vector uses (decimals as 128-bit unscaled integers, temporal values as
 * counts since the epoch). Statistics, predicates and partition values are
 * made of these. Byte values point at memory the value does not own.
 */
#ifndef FL_TYPES_VALUE_H
#define FL_TYPES_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "types/type.h"
#include "types/vec.h"

typedef struct ty_value {
  ty_kind_t kind;
  bool is_null;
  union {
    bool b;
    int32_t i32;     /* int, date */
    int64_t i64;     /* long, time, timestamps */
    float f32;
    double f64;
    fl_i128 i128;    /* decimal, unscaled */
    struct {
      const uint8_t *p;
      size_t n;
    } bytes;         /* string, binary, uuid, fixed */
  } u;
} ty_value_t;

/* Reads row i of a primitive vector. */
ty_value_t ty_value_from_vec(const ty_vec_t *v, uint32_t i);

/*
 * Three-way comparison of two non-null values of one kind: ints and
 * timestamps numerically, floats with -0 < +0 and NaN greatest (Iceberg's
 * ordering), strings and binary as unsigned bytes.
 */
int ty_value_cmp(const ty_value_t *a, const ty_value_t *b);

/*
 * Appends the value as text: integers and floats in shortest round-trip
 * form, decimals with their scale, dates and timestamps ISO-8601 (UTC
 * with +00:00 for tz types), uuid in 8-4-4-4-12 form, binary and fixed as
 * hex. t gives scale and precision for decimals.
 */
void ty_value_format(const ty_type_t *t, const ty_value_t *v, fl_buf_t *out);

/* Decimal text: "-12.340" with the given scale. */
size_t ty_decimal_format(fl_i128 unscaled, int scale, char *buf, size_t cap);
/*
 * Parses "-12.34", "1e3" style decimal text into the unscaled value at the
 * given scale. Fails (false) when digits beyond the scale are not zero
 * (round-half-up is applied when round is set) or when precision is
 * exceeded.
 */
bool ty_decimal_parse(const char *s, size_t n, int precision, int scale, bool round,
                      fl_i128 *out);
/* Largest magnitude allowed at a precision: 10^p - 1. */
fl_i128 ty_decimal_max(int precision);

/* Shortest text that reads back as the same double / float. */
size_t ty_format_double(double d, char *buf);
size_t ty_format_float(float f, char *buf);

/* uuid: 16 bytes <-> canonical text. */
void ty_uuid_format(const uint8_t b[16], char out[37]);
bool ty_uuid_parse(const char *s, size_t n, uint8_t out[16]);

#endif
