/*
 * ice_conv.h - Iceberg's value serializations (layer 5, iceberg).
 *
 * Single-value binary form (the spec's appendix D), used for column
 * bounds in manifests and partition summaries in manifest lists:
 * boolean one byte, int/date 4-byte LE, long/time/timestamps 8-byte LE,
 * float/double IEEE LE, decimal the minimal big-endian two's complement
 * of the unscaled value, string UTF-8 bytes, uuid 16 big-endian bytes,
 * fixed/binary raw. Readers accept what older writers produced too
 * (a 4-byte int stored for a long column after promotion, 4-byte floats
 * for double columns).
 *
 * JSON single-value form (appendix D, "JSON single-value serialization"),
 * used for initial-default/write-default in schemas: booleans and numbers
 * as JSON literals, decimals as strings "14.20", dates "2017-11-16",
 * times "22:31:08.123456", timestamps "2017-11-16T22:31:08.123456" (tz
 * types with "+00:00"), strings as strings, uuid as text, fixed/binary as
 * hex strings.
 *
 * Bound truncation: string bounds truncated to a code-point count, binary
 * to a byte count; a truncated upper bound is incremented so that it
 * still bounds every value (or dropped when no such bound exists).
 */
#ifndef FL_ICEBERG_ICE_CONV_H
#define FL_ICEBERG_ICE_CONV_H

#include <jansson.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "types/type.h"
#include "types/value.h"

/* Appends the single-value binary form of a non-null primitive value. */
int ice_value_to_bytes(const ty_type_t *t, const ty_value_t *v, fl_buf_t *out, fl_err_t *err);

/*
 * Decodes a single-value binary form for type t. Byte values (string,
 * binary, fixed, uuid) are copied into a. FL_ECORRUPT when the length
 * does not fit the type (what names the field for the message).
 */
int ice_value_from_bytes(fl_arena_t *a, const ty_type_t *t, const uint8_t *p, size_t n,
                         const char *what, ty_value_t *out, fl_err_t *err);

/* JSON single-value form; *out is a new reference. */
int ice_value_to_json(const ty_type_t *t, const ty_value_t *v, json_t **out, fl_err_t *err);
int ice_value_from_json(fl_arena_t *a, const ty_type_t *t, const json_t *j, const char *what,
                        ty_value_t *out, fl_err_t *err);

/*
 * Truncated bounds for strings (max code points) and binary/fixed (max
 * bytes): the lower bound is the prefix; the upper bound is the prefix
 * with its last code point (byte) incremented, carrying left; returns
 * false for the upper bound when none exists (all 0xFF bytes / all
 * U+10FFFF). Values already short enough are returned unchanged. Result
 * bytes live in a.
 */
void ice_truncate_lower(fl_arena_t *a, const ty_type_t *t, const ty_value_t *v, int max_len,
                        ty_value_t *out);
bool ice_truncate_upper(fl_arena_t *a, const ty_type_t *t, const ty_value_t *v, int max_len,
                        ty_value_t *out);

#endif
