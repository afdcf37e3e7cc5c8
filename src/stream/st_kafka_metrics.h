/*
 * st_kafka_metrics.h - the metrics of a Kafka source, per partition (layer
 * 10, stream).
 *
 * One set of names for every Kafka reader in floe (`floe kafka consume`
 * and the sources of `floe run` jobs), so dashboards work for both:
 *   floe_kafka_records_consumed_total{topic,partition}   records handed out
 *   floe_kafka_bytes_consumed_total{topic,partition}     key + value bytes
 *   floe_kafka_consumer_position{topic,partition}        next offset to hand out
 *   floe_kafka_consumer_lag{topic,partition}             high watermark - position
 *   floe_kafka_poll_duration_seconds                     histogram of poll calls
 * Series are registered when the source is made (per assigned partition)
 * and updated with atomics only; the registry owns them.
 *
 * The owner of the consumer calls these from its thread; scrapes read the
 * registry from theirs.
 */
#ifndef FL_STREAM_ST_KAFKA_METRICS_H
#define FL_STREAM_ST_KAFKA_METRICS_H

#include "base/metrics.h"
#include "kafka/kafka_consumer.h"

typedef struct st_kafka_metrics st_kafka_metrics_t;

/* Registers the series of every partition assigned to c now. */
int st_kafka_metrics_new(fl_metrics_t *reg, const kf_consumer_t *c, st_kafka_metrics_t **out,
                         fl_err_t *err);
void st_kafka_metrics_free(st_kafka_metrics_t *m);

/* Counts the records and bytes of one poll's messages per partition and
 * observes the poll's duration. A partition assigned later is registered
 * on its first message. */
void st_kafka_metrics_poll(st_kafka_metrics_t *m, const kf_msgs_t *msgs, double poll_seconds);

/*
 * Sets position and lag of every partition: from the high watermarks last
 * seen in fetch responses, or asked of the broker when query is set
 * (within timeout_ms). A partition whose high watermark is not known yet
 * keeps its previous lag. Returns the first error of a query.
 */
int st_kafka_metrics_lag(st_kafka_metrics_t *m, kf_consumer_t *c, bool query, int timeout_ms,
                         fl_err_t *err);

/* Sets one assigned partition's lag from a high watermark the caller
 * already has (asked of the broker before the assignment, when no fetch
 * holds the connection). */
void st_kafka_metrics_set_high(st_kafka_metrics_t *m, kf_consumer_t *c, const char *topic,
                               int32_t partition, int64_t high);

/* Totals over the partitions, for summaries and logs. */
uint64_t st_kafka_metrics_records(const st_kafka_metrics_t *m);
uint64_t st_kafka_metrics_bytes(const st_kafka_metrics_t *m);

#endif
