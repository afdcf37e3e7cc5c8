/*
 * st_source.h - the sources of a streaming job: a connector table's rows
 * as batches, with positions a checkpoint records (layer 10, stream).
 *
 * A source fills batches of its table's base columns (physical and
 * metadata, sql_stream.h) and tags each row with the partition slot it
 * came from, so that watermarks can be kept per partition (Kafka: one slot
 * per partition of the topic; datagen: one). Its position is the point
 * after the last row it handed out - the next offset of every Kafka
 * partition, the next datagen row number - as a small JSON object; a
 * source started from such a position goes on with exactly the next row.
 *
 * Life cycle: st_source_open (options checked, nothing connected), start
 * (at the start-up positions or a checkpoint's), then poll until it ends
 * (bounded) or the job stops; free. One thread uses a source.
 */
#ifndef FL_STREAM_SOURCE_H
#define FL_STREAM_SOURCE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "base/metrics.h"
#include "sql/sql_stream.h"
#include "types/vec.h"

typedef struct st_source st_source_t;

/* What a source does with a record whose value does not decode
 * (SET 'floe.bad-records'; Flink's 'json.ignore-parse-errors' = 'true' is
 * skip): fail the job naming topic, partition and offset; skip it (counted);
 * or append it to the dead-letter batch, whose rows the job writes into
 * the dead-letter table with the same exactly-once commits. */
typedef enum st_bad_policy { ST_BAD_FAIL, ST_BAD_SKIP, ST_BAD_DEAD_LETTER } st_bad_policy_t;

/* The default of SET 'floe.max-record-bytes'. */
#define ST_MAX_RECORD_BYTES ((size_t)8 << 20)

/* The columns of a dead-letter table, in order. */
#define ST_DEAD_LETTER_SCHEMA \
  "source string, topic string, partition int, offset long, payload binary, error string"

typedef struct st_source_vt {
  const char *connector;
  /* Positions the source at pos (a checkpoint's, from position()) or, when
   * pos is NULL, at the table's start-up positions. bounded: the source
   * ends at the end of its input as it is now (Kafka: the end offsets of
   * every partition at start; datagen: number-of-rows, required). */
  int (*start)(st_source_t *s, const json_t *pos, bool bounded, fl_err_t *err);
  /* Appends rows to b (a batch of the table's base schema) until it is
   * full or nothing came within timeout_ms; part[r] gets the partition slot
   * of each row appended (room for TY_BATCH_ROWS). *end: a bounded source
   * has handed out everything. */
  int (*poll)(st_source_t *s, ty_batch_t *b, uint32_t *part, int timeout_ms, bool *end,
              fl_err_t *err);
  /* The position after the last row handed out (a new reference). */
  json_t *(*position)(st_source_t *s);
  /* A checkpoint with this position was committed: Kafka commits its
   * group's offsets for monitoring tools. Failures are only logged. */
  void (*committed)(st_source_t *s, const json_t *pos);
  /* Before start: into how many shares the source splits (Kafka: the
   * topic's partitions, asked of the broker); NULL: it does not split. */
  int (*partitions)(st_source_t *s, uint32_t *n, fl_err_t *err);
  void (*free)(st_source_t *s);
} st_source_vt_t;

struct st_source {
  const st_source_vt_t *vt;
  const sql_stream_table_t *table;
  uint32_t nslots;         /* partition slots (known after start) */
  int64_t idle_timeout_ms; /* 'scan.watermark.idle-timeout'; 0: never idle */
  uint64_t skipped;        /* records skipped (bad values with ignore-parse-errors, tombstones) */
  st_bad_policy_t bad;
  /* Worker threads (--parallelism): this source reads the share `lane` of
   * `nlanes` (Kafka: partitions p with p % nlanes == lane; position() and
   * committed() cover those only). Set before start; nlanes 0 means 1. */
  uint32_t lane, nlanes;
  /* ST_BAD_DEAD_LETTER: a batch of ST_DEAD_LETTER_SCHEMA the job sets up;
   * poll appends the records that failed, the job empties it. */
  ty_batch_t *dead;
  uint64_t dead_letters;
  /* SET 'floe.max-record-bytes': a Kafka value longer than this is a bad
   * record (its dead letter has a null payload); set before start, 0: no
   * limit. */
  size_t max_record_bytes;
  /* Where the source registers its own series at start (Kafka: per
   * partition, st_kafka_metrics.h); set before start, NULL: none. The
   * registry outlives the source. */
  fl_metrics_t *metrics;
};

/* Opens the source of connector table t ('connector' = 'kafka' |
 * 'datagen' | 'nexmark'); errors name the option and where it was written. */
int st_source_open(const sql_stream_table_t *t, st_bad_policy_t bad, st_source_t **out,
                   fl_err_t *err);
void st_source_free(st_source_t *s);
/* Whether t ends by its options alone (Kafka: a 'scan.bounded.mode' other
 * than unbounded; datagen: 'number-of-rows' or a sequence field; nexmark:
 * 'nexmark.events.num' or 'number-of-rows'), as opposed to only with
 * --once. */
bool st_source_bounded(const sql_stream_table_t *t);

/* Connectors (st_source_kafka.c, st_source_datagen.c, st_source_nexmark.c). */
int st_source_kafka_open(const sql_stream_table_t *t, st_bad_policy_t bad, st_source_t **out,
                         fl_err_t *err);
int st_source_datagen_open(const sql_stream_table_t *t, st_bad_policy_t bad, st_source_t **out,
                           fl_err_t *err);
int st_source_nexmark_open(const sql_stream_table_t *t, st_bad_policy_t bad, st_source_t **out,
                           fl_err_t *err);

/* "line L, column C: " of option key of t (or of the table), prefixed to err. */
int st_source_option_error(const sql_stream_table_t *t, const char *key, fl_err_t *err);

#endif
