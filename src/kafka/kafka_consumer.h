/*
 * kafka_consumer.h - reading Kafka partitions at exact offsets (layer 9,
 * kafka).
 *
 * The consumer is assigned explicit partitions: there is no group
 * membership and no rebalancing, because exactly-once processing needs the
 * job, not the broker, to decide which offsets were read (they are saved
 * with each checkpoint and sought to on restart). A group.id is only used
 * to commit offsets so that monitoring tools can show the lag.
 *
 * Every start position (offset, earliest, latest, timestamp, group) is
 * resolved to a concrete offset when the partition is assigned, and the
 * consumer tracks per partition the offset of the next message it hands
 * out. That position is what a checkpoint records; messages below it
 * (a refetch after a reconnect) are dropped, so a broker restart causes
 * neither loss nor duplicates.
 *
 * Messages are polled in batches and returned as views into librdkafka's
 * buffers, without a copy or an allocation per message; the views stay
 * valid until the next poll or kf_msgs_clear. One thread uses a consumer
 * at a time.
 */
#ifndef FL_KAFKA_CONSUMER_H
#define FL_KAFKA_CONSUMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "kafka/kafka_config.h"

typedef struct kf_consumer kf_consumer_t;

/* Message timestamp kinds, as in the RecordBatch attributes. */
typedef enum kf_ts_type {
  KF_TS_NONE,       /* no timestamp (very old message format) */
  KF_TS_CREATE,     /* set by the producer */
  KF_TS_LOG_APPEND, /* set by the broker */
} kf_ts_type_t;

typedef struct kf_msg {
  const char *topic;
  int32_t partition;
  int64_t offset;
  int64_t timestamp_ms; /* -1 when ts_type is KF_TS_NONE */
  kf_ts_type_t ts_type;
  const void *key; /* NULL for a null key */
  size_t key_len;
  const void *value; /* NULL for a null value (a tombstone) */
  size_t value_len;
  void *rk_msg; /* the librdkafka message, for the header accessors */
} kf_msg_t;

/* A batch of polled messages; reuse one across polls. */
typedef struct kf_msgs {
  kf_msg_t *msgs;
  uint32_t n, cap;
  void **rk; /* librdkafka messages, released by clear */
  uint32_t nrk;
} kf_msgs_t;

void kf_msgs_init(kf_msgs_t *m);
/* Releases the messages of the last poll (views become invalid). */
void kf_msgs_clear(kf_msgs_t *m);
void kf_msgs_free(kf_msgs_t *m);

/* Headers of a message, in order: count, and the i-th (value NULL for a
 * null header value). */
uint32_t kf_msg_header_count(const kf_msg_t *m);
bool kf_msg_header(const kf_msg_t *m, uint32_t i, const char **name, const void **value,
                   size_t *len);

/*
 * Opens a consumer from cfg (bootstrap.servers at least). Offsets are
 * never committed automatically; auto.offset.reset defaults to "error", so
 * that reading a position that retention has removed is an error instead
 * of a silent jump (set it to earliest/latest to jump).
 */
int kf_consumer_open(const kf_config_t *cfg, kf_consumer_t **out, fl_err_t *err);
/* Closes the consumer (without committing) and frees it; NULL is fine. */
void kf_consumer_close(kf_consumer_t *c);

/* The number of partitions of topic (FL_ENOTFOUND when it does not exist). */
int kf_consumer_partitions(kf_consumer_t *c, const char *topic, int timeout_ms, int32_t *n,
                           fl_err_t *err);

/*
 * Adds partitions of topic to the assignment, each starting at pos[i]
 * (resolved to an offset now, asking the broker for timestamps, watermarks
 * and committed offsets, within timeout_ms). Assigning a partition that is
 * already assigned moves it to the new position.
 */
int kf_consumer_assign(kf_consumer_t *c, const char *topic, const int32_t *partitions,
                       const kf_position_t *pos, uint32_t n, int timeout_ms, fl_err_t *err);
/* Removes one partition from the assignment. */
int kf_consumer_unassign(kf_consumer_t *c, const char *topic, int32_t partition, fl_err_t *err);
/* Moves an assigned partition to a new position. */
int kf_consumer_seek(kf_consumer_t *c, const char *topic, int32_t partition, kf_position_t pos,
                     int timeout_ms, fl_err_t *err);

/*
 * Waits up to timeout_ms for messages and puts up to max of them into out
 * (cleared first), in partition order as fetched. Returns FL_OK with
 * out->n == 0 on timeout. Broker outages are not errors here: librdkafka
 * reconnects and the poll just returns fewer messages; a partition error
 * (offset out of range, topic deleted, authorization) is returned, with
 * out holding the messages before it.
 */
int kf_consumer_poll(kf_consumer_t *c, kf_msgs_t *out, uint32_t max, int timeout_ms, fl_err_t *err);

/* The offset of the next message the consumer hands out for a partition. */
int kf_consumer_position(const kf_consumer_t *c, const char *topic, int32_t partition,
                         int64_t *offset, fl_err_t *err);

/* The assignment, for a checkpoint: the number of assigned partitions,
 * and the i-th with its position and paused state (in assignment order;
 * topic is valid until the partition is unassigned). */
uint32_t kf_consumer_assigned_count(const kf_consumer_t *c);
void kf_consumer_assigned(const kf_consumer_t *c, uint32_t i, const char **topic,
                          int32_t *partition, int64_t *next_offset, bool *paused);

/* Stops and restarts fetching a partition; a resumed partition continues
 * at its position, nothing is skipped or repeated. */
int kf_consumer_pause(kf_consumer_t *c, const char *topic, int32_t partition, fl_err_t *err);
int kf_consumer_resume(kf_consumer_t *c, const char *topic, int32_t partition, fl_err_t *err);

/*
 * Low and high watermarks (log start offset, offset after the last
 * message) of a partition: asked of the broker when query is set, else as
 * last seen in fetch responses (-1 when not known yet).
 */
int kf_consumer_watermarks(kf_consumer_t *c, const char *topic, int32_t partition, bool query,
                           int timeout_ms, int64_t *low, int64_t *high, fl_err_t *err);
/* Messages not yet handed out: high watermark (queried) - position. */
int kf_consumer_lag(kf_consumer_t *c, const char *topic, int32_t partition, int timeout_ms,
                    int64_t *lag, fl_err_t *err);

/* Commits every assigned partition's position to the consumer's group.id
 * (synchronously); FL_EINVALID without a group.id. */
int kf_consumer_commit(kf_consumer_t *c, fl_err_t *err);
/* Commits the given next offsets of partitions of topic to the group
 * (synchronously): a streaming job commits what its last Iceberg commit
 * covers, which may be behind the consumer's positions. */
int kf_consumer_commit_offsets(kf_consumer_t *c, const char *topic, const int32_t *partitions,
                               const int64_t *offsets, uint32_t n, fl_err_t *err);
/* The offset committed by the group for a partition (-1 when none). */
int kf_consumer_committed(kf_consumer_t *c, const char *topic, int32_t partition, int timeout_ms,
                          int64_t *offset, fl_err_t *err);

/* Broker-level errors seen since the last call (reconnects, all brokers
 * down), for logs and metrics; resets the count. */
uint32_t kf_consumer_take_transient_errors(kf_consumer_t *c, char *last, size_t size);

#endif
