/*
 * json_text.h - floe's JSON text form of values (layer 4, format/json).
 *
 * One row becomes one JSON object keyed by column name. Values follow
 * Iceberg's JSON single-value serialization where JSON has no native form:
 * decimals as strings ("12.30"), dates, times and timestamps as ISO-8601
 * strings (tz types with "+00:00"), uuid in canonical form, binary and
 * fixed as lower-case hex; NaN and infinities as the strings "NaN",
 * "Infinity", "-Infinity"; structs as objects, lists as arrays, maps with
 * string keys as objects and other maps as arrays of {"key","value"}.
 * The JSON-lines reader accepts all of these back.
 */
#ifndef FL_FORMAT_JSON_TEXT_H
#define FL_FORMAT_JSON_TEXT_H

#include "base/buf.h"
#include "types/vec.h"

/* Appends value i of v as JSON. */
void js_append_value(fl_buf_t *out, const ty_vec_t *v, uint32_t i);
/* Appends a JSON string literal with escapes. */
void js_append_string(fl_buf_t *out, const uint8_t *p, size_t n);
/* Appends row `row` of the batch as one JSON object (no newline). */
void js_append_row(fl_buf_t *out, const ty_batch_t *b, uint32_t row);

#endif
