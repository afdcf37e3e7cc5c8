/*
 * json_decoder.h - JSON text to column vectors under a schema, and schema
 * inference from sample rows (layer 4, format/json).
 *
 * The decoder reads a run of top-level JSON objects separated by
 * whitespace (JSON lines, one Kafka message, or a chunk of a file) and
 * appends one row per object straight into the batch's vectors: there is
 * no tree per row and no allocation per value once the vectors have grown.
 *
 * Matching: object members are matched to fields by exact name (or ASCII
 * case-insensitively with opts.case_insensitive) through a hash table per
 * struct level, trying the field after the previous match first. Unknown
 * members are skipped whatever their nesting; missing and null members
 * become nulls, or an error when the field is required; a member given
 * twice is an error.
 *
 * Values: every type reads from floe's canonical JSON form (json_text.h)
 * and from these alternatives:
 *   - any primitive from a JSON string holding its text form, per
 *     text_parse.h (numbers as strings, "true"/"false" for booleans,
 *     "NaN"/"Infinity" for floats);
 *   - decimals from JSON numbers (exact: digits past the scale must be 0);
 *   - date from an integer (days since 1970-01-01), time from an integer
 *     (microseconds since midnight), timestamps from an integer count
 *     since the epoch in the column's unit (micros, or nanos for *_ns);
 *   - string columns take any JSON value: non-strings keep their JSON text;
 *   - maps from an object (keys parsed as the key type's text) or from an
 *     array of {"key": k, "value": v} objects.
 * Strings: all JSON escapes, \uXXXX surrogate pairs to UTF-8; lone
 * surrogates and invalid UTF-8 are rejected (FL_EPARSE). Integers are
 * range-checked per type; doubles are correctly rounded.
 *
 * Errors are FL_EPARSE (malformed JSON) or FL_EINVALID (valid JSON that
 * does not fit the schema) and read
 *   "line 12, column 40: field 'user.tags[2]': expected a number".
 * Lines count from 1 over all text passed since the decoder was made (or
 * js_decoder_set_line); columns are bytes from 1. Nesting deeper than
 * opts.max_depth (default 64) is an error.
 */
#ifndef FL_FORMAT_JSON_DECODER_H
#define FL_FORMAT_JSON_DECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "types/type.h"
#include "types/vec.h"

typedef struct js_decode_opts {
  bool case_insensitive; /* match member names ignoring ASCII case */
  uint32_t max_depth;    /* nesting limit; 0 = 64 */
  /* a member missing from its object is an error even for an optional
   * field (Flink's 'json.fail-on-missing-field'); a null member is not */
  bool fail_on_missing;
} js_decode_opts_t;

typedef struct js_decoder js_decoder_t;

/* Makes a decoder for batches of schema s (which must outlive it); opts
 * may be NULL. */
js_decoder_t *js_decoder_new(const ty_schema_t *s, const js_decode_opts_t *opts);
void js_decoder_free(js_decoder_t *d);

/*
 * Appends one row to b (a batch of the decoder's schema) per object in
 * p[0,n). Stops early, at a row boundary, when b holds TY_BATCH_ROWS rows:
 * js_decoder_consumed then tells how many bytes were used, and the caller
 * continues with p + consumed after emptying the batch. On error the rows
 * before the bad one stay in b, the bad one is removed.
 */
int js_decode(js_decoder_t *d, const char *p, size_t n, ty_batch_t *b, fl_err_t *err);
/* Bytes of p the last js_decode / js_decode_chunk call used. */
size_t js_decoder_consumed(const js_decoder_t *d);

/*
 * As js_decode, for text that continues (more = true): a row cut off by
 * the end of p is left unconsumed (*consumed stops before it) instead of
 * being an error, so the caller can pass it again with more text after it.
 */
int js_decode_chunk(js_decoder_t *d, const char *p, size_t n, bool more, ty_batch_t *b,
                    size_t *consumed, fl_err_t *err);

/*
 * Appends exactly one row from p[0,n), which must hold one JSON object
 * (whitespace around it is fine): the value of one Kafka message, one
 * HTTP body. Empty text, anything but an object, or text after the object
 * is FL_EPARSE and leaves b as it was; so does a full batch (FL_ELIMIT).
 * Positions in errors count from the start of p (line 1).
 */
int js_decode_record(js_decoder_t *d, const char *p, size_t n, ty_batch_t *b, fl_err_t *err);

/*
 * js_decode_record's fast path: appends the row and returns true when
 * p[0,n) is one compact object whose members come in the order of the
 * objects before it and hold integers, plain strings or null; false
 * leaves b as it was (js_decode_record then decodes it in full).
 */
bool js_decode_flat(js_decoder_t *d, const char *p, size_t n, ty_batch_t *b);

/* Sets the line number the next text starts on (1 restarts counting). */
void js_decoder_set_line(js_decoder_t *d, uint64_t line);

/*
 * Infers a schema from the first max_rows objects of p[0,n) (0: all):
 * columns in first-seen order; booleans -> boolean, integers -> long (double
 * when one is beyond long's range), any fraction or exponent -> double, strings -> string, or date / timestamp /
 * timestamptz when every sampled string of the field parses as one (an
 * offset or Z makes timestamptz), objects -> struct (members merged over
 * rows), arrays -> list of the merged element type, only nulls -> string;
 * conflicting kinds (a number and a string, an object and an array) ->
 * string, which reads any JSON value as its text. All fields are optional;
 * field ids are assigned as Iceberg assigns fresh ids. The schema lives in a.
 */
int js_infer_schema(const char *p, size_t n, uint32_t max_rows, fl_arena_t *a, ty_schema_t **out,
                    fl_err_t *err);

#endif
