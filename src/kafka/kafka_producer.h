/*
 * kafka_producer.h - writing messages to Kafka (layer 9, kafka), for the
 * tests, the demo's data feeds, benchmarks and dead-letter topics.
 *
 * Messages are copied into librdkafka's queue and sent in the background;
 * kf_producer_flush waits until every queued message is acknowledged and
 * returns the first delivery failure. Keys are partitioned like the Java
 * client does (murmur2), so floe and Java producers put a key on the same
 * partition. The producer is idempotent by default (no duplicates when a
 * send is retried after a broker hiccup). One thread at a time.
 */
#ifndef FL_KAFKA_PRODUCER_H
#define FL_KAFKA_PRODUCER_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "kafka/kafka_config.h"

typedef struct kf_producer kf_producer_t;

typedef struct kf_header {
  const char *name;
  const void *value; /* NULL: a null header value */
  size_t len;
} kf_header_t;

typedef struct kf_record {
  const char *topic;
  int32_t partition; /* -1: chosen from the key (or spread when none) */
  const void *key;   /* NULL: no key */
  size_t key_len;
  const void *value; /* NULL: a tombstone */
  size_t value_len;
  int64_t timestamp_ms; /* 0: now */
  const kf_header_t *headers;
  uint32_t nheaders;
} kf_record_t;

int kf_producer_open(const kf_config_t *cfg, kf_producer_t **out, fl_err_t *err);
/* Flushes (up to 30 s) and frees; NULL is fine. */
void kf_producer_close(kf_producer_t *p);

/* Queues one message (copied); waits while librdkafka's queue is full.
 * Delivery failures of earlier messages are returned here as soon as
 * they are known. */
int kf_producer_send(kf_producer_t *p, const kf_record_t *r, fl_err_t *err);
/* Waits up to timeout_ms for all queued messages; FL_EIO (retriable) when
 * some are still in flight, or the first delivery error. */
int kf_producer_flush(kf_producer_t *p, int timeout_ms, fl_err_t *err);
/* Messages acknowledged by the broker so far. */
uint64_t kf_producer_delivered(const kf_producer_t *p);

/* Creates a topic (admin API); FL_EEXISTS when it is there already. */
int kf_create_topic(const kf_config_t *cfg, const char *topic, int32_t partitions,
                    int16_t replication, int timeout_ms, fl_err_t *err);
/* Deletes a topic; FL_ENOTFOUND when it does not exist. */
int kf_delete_topic(const kf_config_t *cfg, const char *topic, int timeout_ms, fl_err_t *err);

#endif
