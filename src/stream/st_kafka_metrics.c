/*
 * st_kafka_metrics.c - per-partition counters and lag of a Kafka source
 * (layer 10, stream).
 *
 * Partitions are kept in a small array; messages of a poll arrive grouped
 * by partition, so the last match is tried first and a poll costs about
 * one lookup per partition plus two atomic adds per message.
 */
#include "stream/st_kafka_metrics.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

typedef struct part_metrics {
  char *topic;
  int32_t partition;
  fl_counter_t *records, *bytes;
  fl_gauge_t *lag, *position;
} part_metrics_t;

struct st_kafka_metrics {
  fl_metrics_t *reg;
  part_metrics_t *parts;
  uint32_t nparts, cap, last;
  fl_histogram_t *poll;
};

static int add_part(st_kafka_metrics_t *m, const char *topic, int32_t partition, fl_err_t *err) {
  char pbuf[16];
  snprintf(pbuf, sizeof pbuf, "%d", partition);
  fl_label_t l[] = {{"topic", topic}, {"partition", pbuf}};
  part_metrics_t p = {.partition = partition};
  int rc =
      fl_metrics_counter(m->reg, "floe_kafka_records_consumed_total",
                         "Kafka records consumed, per topic and partition.", l, 2, &p.records, err);
  if (!rc)
    rc = fl_metrics_counter(m->reg, "floe_kafka_bytes_consumed_total",
                            "Bytes of Kafka record keys and values consumed, per topic and "
                            "partition.",
                            l, 2, &p.bytes, err);
  if (!rc)
    rc = fl_metrics_gauge(m->reg, "floe_kafka_consumer_lag",
                          "Records not yet consumed: the partition's high watermark minus the "
                          "consumer's position.",
                          l, 2, &p.lag, err);
  if (!rc)
    rc = fl_metrics_gauge(m->reg, "floe_kafka_consumer_position",
                          "Offset of the next record the consumer hands out.", l, 2, &p.position,
                          err);
  if (rc) return rc;
  p.topic = fl_strdup(topic);
  if (m->nparts == m->cap) {
    m->cap = m->cap ? m->cap * 2 : 8;
    m->parts = fl_realloc(m->parts, m->cap * sizeof *m->parts);
  }
  m->parts[m->nparts++] = p;
  return FL_OK;
}

int st_kafka_metrics_new(fl_metrics_t *reg, const kf_consumer_t *c, st_kafka_metrics_t **out,
                         fl_err_t *err) {
  st_kafka_metrics_t *m = fl_calloc(1, sizeof *m);
  m->reg = reg;
  int rc = fl_metrics_histogram(reg, "floe_kafka_poll_duration_seconds",
                                "Time spent in one poll of the Kafka consumer in seconds.",
                                fl_metrics_latency_buckets, fl_metrics_latency_nbuckets, NULL, 0,
                                &m->poll, err);
  uint32_t n = kf_consumer_assigned_count(c);
  for (uint32_t i = 0; !rc && i < n; i++) {
    const char *topic;
    int32_t partition;
    int64_t next;
    bool paused;
    kf_consumer_assigned(c, i, &topic, &partition, &next, &paused);
    rc = add_part(m, topic, partition, err);
    if (!rc) fl_gauge_set(m->parts[m->nparts - 1].position, (double)next);
  }
  if (rc) {
    st_kafka_metrics_free(m);
    return rc;
  }
  *out = m;
  return FL_OK;
}

void st_kafka_metrics_free(st_kafka_metrics_t *m) {
  if (!m) return;
  for (uint32_t i = 0; i < m->nparts; i++) fl_free(m->parts[i].topic);
  fl_free(m->parts);
  fl_free(m);
}

static part_metrics_t *find(st_kafka_metrics_t *m, const char *topic, int32_t partition) {
  if (m->last < m->nparts) {
    part_metrics_t *p = &m->parts[m->last];
    if (p->partition == partition && strcmp(p->topic, topic) == 0) return p;
  }
  for (uint32_t i = 0; i < m->nparts; i++) {
    part_metrics_t *p = &m->parts[i];
    if (p->partition == partition && strcmp(p->topic, topic) == 0) {
      m->last = i;
      return p;
    }
  }
  if (add_part(m, topic, partition, NULL)) return NULL;
  m->last = m->nparts - 1;
  return &m->parts[m->last];
}

void st_kafka_metrics_poll(st_kafka_metrics_t *m, const kf_msgs_t *msgs, double poll_seconds) {
  fl_histogram_observe(m->poll, poll_seconds);
  uint32_t i = 0;
  while (i < msgs->n) {
    const kf_msg_t *first = &msgs->msgs[i];
    part_metrics_t *p = find(m, first->topic, first->partition);
    uint64_t n = 0, bytes = 0;
    for (; i < msgs->n && msgs->msgs[i].partition == first->partition &&
           (msgs->msgs[i].topic == first->topic || strcmp(msgs->msgs[i].topic, first->topic) == 0);
         i++) {
      n++;
      bytes += msgs->msgs[i].key_len + msgs->msgs[i].value_len;
    }
    if (!p) continue;
    fl_counter_add(p->records, n);
    fl_counter_add(p->bytes, bytes);
  }
}

int st_kafka_metrics_lag(st_kafka_metrics_t *m, kf_consumer_t *c, bool query, int timeout_ms,
                         fl_err_t *err) {
  int first_rc = FL_OK;
  for (uint32_t i = 0; i < m->nparts; i++) {
    part_metrics_t *p = &m->parts[i];
    int64_t pos, low = -1, high = -1;
    if (kf_consumer_position(c, p->topic, p->partition, &pos, NULL)) continue; /* unassigned */
    fl_gauge_set(p->position, (double)pos);
    int rc = kf_consumer_watermarks(c, p->topic, p->partition, query, timeout_ms, &low, &high,
                                    first_rc ? NULL : err);
    if (rc) {
      if (query && !first_rc) first_rc = rc;
      continue;
    }
    if (high < 0) continue;
    fl_gauge_set(p->lag, (double)(high > pos ? high - pos : 0));
  }
  return first_rc;
}

void st_kafka_metrics_set_high(st_kafka_metrics_t *m, kf_consumer_t *c, const char *topic,
                               int32_t partition, int64_t high) {
  for (uint32_t i = 0; i < m->nparts; i++) {
    part_metrics_t *p = &m->parts[i];
    int64_t pos;
    if (p->partition != partition || strcmp(p->topic, topic) != 0 ||
        kf_consumer_position(c, p->topic, p->partition, &pos, NULL))
      continue;
    fl_gauge_set(p->position, (double)pos);
    if (high >= 0) fl_gauge_set(p->lag, (double)(high > pos ? high - pos : 0));
  }
}

static uint64_t total(const st_kafka_metrics_t *m, bool bytes) {
  uint64_t t = 0;
  for (uint32_t i = 0; i < m->nparts; i++) {
    const fl_counter_t *c = bytes ? m->parts[i].bytes : m->parts[i].records;
    t += atomic_load_explicit(&((fl_counter_t *)c)->count, memory_order_relaxed);
  }
  return t;
}

uint64_t st_kafka_metrics_records(const st_kafka_metrics_t *m) { return total(m, false); }
uint64_t st_kafka_metrics_bytes(const st_kafka_metrics_t *m) { return total(m, true); }
