/*
 * st_kafka_decode.h - Kafka messages to rows of a table (layer 10,
 * stream).
 *
 * A Kafka table's columns are either read from the message value (JSON,
 * format 'json'; one CSV record, format 'csv'; the bytes, format 'raw')
 * or are metadata of the message, as Flink's
 * `METADATA FROM 'offset'` columns:
 *   topic         string
 *   partition     int
 *   offset        long
 *   timestamp     timestamp or timestamptz (Flink: TIMESTAMP_LTZ(3))
 *   timestamp-type string: NoTimestampType, CreateTime or LogAppendTime
 *   headers       map<string, binary>
 * Value columns are decoded straight into the table batch's vectors (no
 * intermediate rows). A message whose value is null (a tombstone) gives
 * no row, as in Flink's JSON format. A value that is not one JSON object
 * of the schema is an error naming the topic, partition and offset, or is
 * skipped and counted with ignore_parse_errors ('json.ignore-parse-errors').
 */
#ifndef FL_STREAM_KAFKA_DECODE_H
#define FL_STREAM_KAFKA_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "format/csv/csv.h"
#include "kafka/kafka_consumer.h"
#include "types/type.h"
#include "types/vec.h"

typedef enum st_kafka_meta {
  ST_META_NONE = 0, /* a column of the value */
  ST_META_TOPIC,
  ST_META_PARTITION,
  ST_META_OFFSET,
  ST_META_TIMESTAMP,
  ST_META_TIMESTAMP_TYPE,
  ST_META_HEADERS,
  ST_META_KEY_FIELD, /* a column of the message key ('key.fields') */
} st_kafka_meta_t;

/* The metadata key Flink uses ("offset", "timestamp-type", ...) to a kind;
 * false when it is not one. */
bool st_kafka_meta_parse(const char *key, st_kafka_meta_t *out);

typedef struct st_kafka_decoder st_kafka_decoder_t;

/* meta[i] for each column of table (NULL: all from the value); checks
 * metadata column types. table must outlive the decoder. */
int st_kafka_decoder_new(const ty_schema_t *table, const st_kafka_meta_t *meta,
                         bool ignore_parse_errors, st_kafka_decoder_t **out, fl_err_t *err);
void st_kafka_decoder_free(st_kafka_decoder_t *d);

/*
 * Appends rows for msgs->msgs[*next ...] to b (a batch of the table) until
 * the batch is full or the messages end; *next moves past the messages
 * used. Each message is at most one row.
 */
int st_kafka_decode(st_kafka_decoder_t *d, const kf_msgs_t *msgs, uint32_t *next, ty_batch_t *b,
                    fl_err_t *err);
/* Flink's 'raw' format: the one value column (string or binary) gets the
 * message value as it is, and a null value (a tombstone) a NULL.
 * FL_EINVALID unless the table has exactly one such value column. */
int st_kafka_decoder_set_raw(st_kafka_decoder_t *d, fl_err_t *err);

/* Flink's 'csv' format: each value is one CSV record of the value columns
 * in declared order (csv.h). FL_EINVALID / FL_EUNSUPPORTED for a bad
 * dialect or a column type CSV cannot hold. */
int st_kafka_decoder_set_csv(st_kafka_decoder_t *d, const csv_dialect_t *dialect, fl_err_t *err);
/* Flink's 'json.fail-on-missing-field': a member absent from a JSON value
 * is an error (by default it reads as null). A NOT NULL column that would
 * be null is an error either way. */
void st_kafka_decoder_set_fail_on_missing(st_kafka_decoder_t *d, bool fail);
/* A value longer than max_bytes is an error naming its size, found before
 * it is decoded (0: no limit). */
void st_kafka_decoder_set_max_bytes(st_kafka_decoder_t *d, size_t max_bytes);

/*
 * Flink's 'key.format' with 'key.fields': the ST_META_KEY_FIELD columns,
 * in declared order, are decoded from the message key in format 'json',
 * 'csv' (with dialect) or 'raw' (one column); with prefix (Flink's
 * 'key.fields-prefix') a JSON key's members are named without it. A null
 * key gives NULL
 * there; a key that does not decode fails the message as a bad value
 * does.
 */
int st_kafka_decoder_set_key_format(st_kafka_decoder_t *d, const char *format,
                                    const csv_dialect_t *dialect, const char *prefix,
                                    fl_err_t *err);

/* Messages skipped: bad values (with ignore_parse_errors) and tombstones. */
uint64_t st_kafka_decoder_skipped(const st_kafka_decoder_t *d);

#endif
