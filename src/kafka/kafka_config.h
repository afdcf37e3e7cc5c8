/*
 * kafka_config.h - client settings for floe's Kafka consumer and producer
 * (layer 9, kafka).
 *
 * A kf_config_t is a set of librdkafka settings checked as they are set,
 * so that a bad name or value is reported where it was written. Flink SQL
 * tables pass Kafka client settings as 'properties.<name>' options naming
 * the Java client's settings; kf_config_set_flink maps those names to
 * librdkafka's (most are the same; a few are spelled differently, some
 * exist only in Java and are ignored or refused, see kafka_config.c).
 *
 * The table's start position options ('scan.startup.mode' and friends)
 * are parsed here too, into per-partition kf_position_t values the
 * consumer understands.
 */
#ifndef FL_KAFKA_CONFIG_H
#define FL_KAFKA_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct kf_config kf_config_t;

/* An empty configuration (librdkafka's defaults). */
kf_config_t *kf_config_new(void);
kf_config_t *kf_config_dup(const kf_config_t *c);
void kf_config_free(kf_config_t *c);

/* Sets a librdkafka setting by its own name; FL_EINVALID names the key
 * and says why librdkafka refused it. */
int kf_config_set(kf_config_t *c, const char *key, const char *value, fl_err_t *err);
/* Copies the current value of a setting (set or librdkafka's default)
 * into buf; false when the name is unknown or buf too small. */
bool kf_config_get(const kf_config_t *c, const char *key, char *buf, size_t size);

/*
 * Sets one Flink connector option: 'properties.<java-name>' is mapped to
 * librdkafka (fetch.max.wait.ms -> fetch.wait.max.ms, sasl.jaas.config of
 * the PLAIN or SCRAM login modules -> sasl.username/sasl.password, ...);
 * Java-only settings without an effect here (key.deserializer,
 * max.poll.records, ...) are accepted and ignored (*ignored set);
 * JKS key stores are refused with a hint to use PEM files. Options that do
 * not start with 'properties.' are FL_EINVALID.
 */
int kf_config_set_flink(kf_config_t *c, const char *option, const char *value, bool *ignored,
                        fl_err_t *err);

/* Where a partition starts to be read. */
typedef enum kf_pos_kind {
  KF_POS_OFFSET,    /* value: the offset of the first message to read */
  KF_POS_EARLIEST,  /* the log start offset (low watermark) */
  KF_POS_LATEST,    /* the end of the log (high watermark): only new messages */
  KF_POS_TIMESTAMP, /* value: the first message with timestamp >= value ms */
  KF_POS_GROUP,     /* the offset committed by the consumer's group.id */
} kf_pos_kind_t;

typedef struct kf_position {
  kf_pos_kind_t kind;
  int64_t value;
  /* GROUP only: where to start when the group has no committed offset
   * (EARLIEST or LATEST); KF_POS_GROUP itself means "fail". */
  kf_pos_kind_t fallback;
} kf_position_t;

/*
 * Flink's start-up options of a Kafka table:
 *   mode: 'earliest-offset' | 'latest-offset' | 'group-offsets' |
 *         'timestamp' | 'specific-offsets' (NULL: group-offsets, Flink's
 *         default, falling back to earliest)
 *   timestamp_millis: 'scan.startup.timestamp-millis' (mode timestamp)
 *   specific: 'scan.startup.specific-offsets', e.g.
 *         'partition:0,offset:42;partition:1,offset:300' (mode
 *         specific-offsets; partitions not listed start at group offsets)
 * Fills pos[0, npartitions) for partitions 0..npartitions-1.
 */
int kf_startup_parse(const char *mode, const char *timestamp_millis, const char *specific,
                     uint32_t npartitions, kf_position_t *pos, fl_err_t *err);

#endif
