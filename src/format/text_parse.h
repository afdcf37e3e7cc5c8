/*
 * text_parse.h - values from text, shared by the JSON-lines and CSV readers
 * (layer 4, format).
 *
 * A CSV field and a JSON string hold a value in the same text forms: the
 * ones floe's canonical JSON form prints (json_text.h) plus a few natural
 * alternatives. tp_append parses one span as a value of a primitive type
 * and appends it to a vector; tp_classify tells which inferable types a
 * span could be, for schema inference. Both are allocation-free.
 *
 * Accepted text per type:
 *   boolean      true / false (also True, TRUE, False, FALSE)
 *   int, long    [+-]digits, range-checked; integral decimal or exponent
 *                forms ("3.0", "1e3") are accepted when exact
 *   float/double decimal and exponent forms, correctly rounded; NaN,
 *                Infinity, -Infinity (and nan, inf, -inf)
 *   decimal(p,s) decimal or exponent text; more fraction digits than the
 *                scale are rejected unless they are zeros (no silent rounding)
 *   date         YYYY-MM-DD
 *   time         HH:MM[:SS[.ffffff]]
 *   timestamp*   YYYY-MM-DD[(T| )HH:MM[:SS[.f]]][Z|+HH:MM]; an offset is
 *                applied (the stored value is UTC), none means UTC
 *   string       any valid UTF-8 (invalid UTF-8 is rejected)
 *   uuid         8-4-4-4-12 hex
 *   binary       hex digits (even count); fixed(L): exactly 2L hex digits
 */
#ifndef FL_FORMAT_TEXT_PARSE_H
#define FL_FORMAT_TEXT_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types/vec.h"

/*
 * Parses s[0,n) as a value of v's (primitive) type and appends it. Returns
 * NULL on success, or a static sentence saying what was expected
 * ("expected an integer") with nothing appended.
 */
const char *tp_append(ty_vec_t *v, const char *s, size_t n);

/* Number parsers behind tp_append; each consumes the whole span. */
bool tp_parse_i64(const char *s, size_t n, int64_t *out);
bool tp_parse_double(const char *s, size_t n, double *out);
/* The double nearest (-1)^neg * mant * 10^exp10 when mant holds all of its
 * ndigits significant digits and an exact fast path applies (the result is
 * then what strtod gives); false: parse the text with tp_parse_double. */
bool tp_double_fast(bool neg, uint64_t mant, int ndigits, int64_t exp10, double *out);
bool tp_parse_float(const char *s, size_t n, float *out);

/* Length of the valid UTF-8 prefix of p[0,n); n when all of it is valid. */
size_t tp_utf8_valid_prefix(const uint8_t *p, size_t n);
/* Length of the UTF-8 sequence at p (1 for ASCII), 0 when it is invalid
 * (overlong, surrogate, past U+10FFFF), -1 when end cuts it off. */
int tp_utf8_seq_len(const uint8_t *p, const uint8_t *end);

/* Inference classes: a bit set for each type the text parses as. */
enum {
  TP_BOOL = 1u << 0,
  TP_LONG = 1u << 1,
  TP_DOUBLE = 1u << 2,
  TP_DATE = 1u << 3,
  TP_TIMESTAMP = 1u << 4,   /* no offset (a bare date counts too) */
  TP_TIMESTAMPTZ = 1u << 5  /* with Z or an offset */
};
unsigned tp_classify(const char *s, size_t n);
/* The narrowest kind allowed by the AND of classes seen (TY_STRING when
 * none fits). */
ty_kind_t tp_class_kind(unsigned classes);

/*
 * Shrinks a vector (and its children) back to len values, as before a
 * partly decoded row; len must not exceed v->len.
 */
void tp_vec_truncate(ty_vec_t *v, uint32_t len);

#endif
