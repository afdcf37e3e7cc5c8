/*
 * kafka_consumer.c - explicit-partition consumer over librdkafka (layer 9,
 * kafka).
 *
 * State: a table of assigned partitions, each with the offset of the next
 * message to hand out (`next`) and a paused flag. librdkafka fetches ahead
 * into the consumer queue; a poll takes up to max messages off that queue
 * (rd_kafka_consume_batch_queue) and keeps them as views.
 * A message is handed out only when its partition is assigned and not
 * paused and its offset is at or past `next`; then `next` moves past it.
 * That filter is what makes positions exact across reconnects, seeks and
 * pauses: whatever librdkafka refetches below `next` is dropped, and a
 * resumed partition is sought back to `next`, so nothing prefetched while
 * paused is skipped.
 *
 * librdkafka needs a group.id for a consumer queue even with manual
 * assignment; without a configured one a private name is used and
 * commits are refused, since no one would read them.
 *
 * Refilling. librdkafka (before 2.1's fetch.queue.backoff.ms) stops
 * fetching a partition while the consumer queue holds queued.min.messages
 * or queued.max.messages.kbytes, and its broker thread looks again only
 * when something wakes it, at the latest after a second. A consumer that
 * drains the queue faster than that (floe decodes a million small
 * messages a second) would then sit idle for most of every second. So
 * when a poll finds the queue empty while a partition's cached high
 * watermark says the broker has more, that partition is sought to its
 * `next` offset: the seek is an operation for the broker thread, which
 * wakes and fetches at once. Nothing is lost or repeated: the queue is
 * empty, and the `next` filter drops whatever an earlier fetch still
 * brings. At most one such wake-up every WAKE_NS.
 */
#include "kafka/kafka_consumer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/time.h"
#include "kafka/kafka_int.h"

/* The shortest time between two wake-ups of the fetchers (see Refilling). */
#define WAKE_NS 2000000

typedef struct kf_part {
  char *topic;
  int32_t partition;
  int64_t next;
  bool paused;
} kf_part_t;

struct kf_consumer {
  rd_kafka_t *rk;
  rd_kafka_queue_t *queue;
  kf_part_t *parts;
  uint32_t nparts, cap;
  uint32_t last_hit; /* index of the last partition a message matched */
  bool has_group;
  int64_t last_wake_ns; /* the last wake-up of the fetchers (see Refilling) */
  pthread_mutex_t mu; /* guards the fields below: librdkafka threads write them */
  uint32_t transient;
  char last_transient[256];
  rd_kafka_resp_err_t fatal;
  char fatal_reason[256];
};

void kf_msgs_init(kf_msgs_t *m) { memset(m, 0, sizeof *m); }

void kf_msgs_clear(kf_msgs_t *m) {
  for (uint32_t i = 0; i < m->nrk; i++) rd_kafka_message_destroy(m->rk[i]);
  m->nrk = 0;
  m->n = 0;
}

void kf_msgs_free(kf_msgs_t *m) {
  kf_msgs_clear(m);
  fl_free(m->msgs);
  fl_free(m->rk);
  memset(m, 0, sizeof *m);
}

static void msgs_reserve(kf_msgs_t *m, uint32_t max) {
  if (m->cap >= max) return;
  m->msgs = fl_realloc(m->msgs, (size_t)max * sizeof *m->msgs);
  m->rk = fl_realloc(m->rk, (size_t)max * sizeof *m->rk);
  m->cap = max;
}

uint32_t kf_msg_header_count(const kf_msg_t *m) {
  rd_kafka_headers_t *h;
  if (rd_kafka_message_headers(m->rk_msg, &h) != RD_KAFKA_RESP_ERR_NO_ERROR) return 0;
  return (uint32_t)rd_kafka_header_cnt(h);
}

bool kf_msg_header(const kf_msg_t *m, uint32_t i, const char **name, const void **value,
                   size_t *len) {
  rd_kafka_headers_t *h;
  if (rd_kafka_message_headers(m->rk_msg, &h) != RD_KAFKA_RESP_ERR_NO_ERROR) return false;
  return rd_kafka_header_get_all(h, i, name, value, len) == RD_KAFKA_RESP_ERR_NO_ERROR;
}

/* Called on librdkafka's threads for client-level errors. */
static void on_error(rd_kafka_t *rk, int code, const char *reason, void *opaque) {
  (void)rk;
  kf_consumer_t *c = opaque;
  pthread_mutex_lock(&c->mu);
  if (code == RD_KAFKA_RESP_ERR__FATAL) {
    char buf[256];
    c->fatal = rd_kafka_fatal_error(c->rk, buf, sizeof buf);
    snprintf(c->fatal_reason, sizeof c->fatal_reason, "%s", buf);
  } else {
    c->transient++;
    snprintf(c->last_transient, sizeof c->last_transient, "%s", reason);
  }
  pthread_mutex_unlock(&c->mu);
}

int kf_consumer_open(const kf_config_t *cfg, kf_consumer_t **out, fl_err_t *err) {
  *out = NULL;
  kf_consumer_t *c = fl_calloc(1, sizeof *c);
  pthread_mutex_init(&c->mu, NULL);
  rd_kafka_conf_t *conf = kf__conf_dup(cfg);
  char buf[256], errstr[512];
  size_t n = sizeof buf;
  c->has_group = rd_kafka_conf_get(conf, "group.id", buf, &n) == RD_KAFKA_CONF_OK && buf[0];
  static const char *const fixed[][2] = {
      {"enable.auto.commit", "false"},
      {"enable.auto.offset.store", "false"},
      {"enable.partition.eof", "false"},
  };
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    rd_kafka_conf_set(conf, fixed[i][0], fixed[i][1], NULL, 0);
  if (!c->has_group) {
    snprintf(buf, sizeof buf, "floe-unnamed-%ld", (long)getpid());
    rd_kafka_conf_set(conf, "group.id", buf, NULL, 0);
  }
  /* An offset outside the log is an error unless the user chose a jump. */
  if (!cfg->offset_reset_set) rd_kafka_conf_set(conf, "auto.offset.reset", "error", NULL, 0);
  /* librdkafka prefetches 100,000 messages per partition by default: with
   * small events that is tens of MiB per partition held as messages, far
   * more than a consumer that takes batches of a thousand needs while the
   * next fetch is under way. */
  if (!cfg->queue_min_set) rd_kafka_conf_set(conf, "queued.min.messages", "30000", NULL, 0);
  rd_kafka_conf_set_error_cb(conf, on_error);
  rd_kafka_conf_set_opaque(conf, c);
  c->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr);
  if (!c->rk) {
    rd_kafka_conf_destroy(conf);
    pthread_mutex_destroy(&c->mu);
    fl_free(c);
    return fl_err_set(err, FL_EINVALID, "kafka consumer: %s", errstr);
  }
  c->queue = rd_kafka_queue_get_consumer(c->rk);
  *out = c;
  return FL_OK;
}

void kf_consumer_close(kf_consumer_t *c) {
  if (!c) return;
  rd_kafka_assign(c->rk, NULL);
  if (c->queue) rd_kafka_queue_destroy(c->queue);
  rd_kafka_consumer_close(c->rk);
  rd_kafka_destroy(c->rk);
  for (uint32_t i = 0; i < c->nparts; i++) fl_free(c->parts[i].topic);
  fl_free(c->parts);
  pthread_mutex_destroy(&c->mu);
  fl_free(c);
}

int kf_consumer_partitions(kf_consumer_t *c, const char *topic, int timeout_ms, int32_t *n,
                           fl_err_t *err) {
  rd_kafka_topic_t *rkt = rd_kafka_topic_new(c->rk, topic, NULL);
  const struct rd_kafka_metadata *md = NULL;
  rd_kafka_resp_err_t e = rd_kafka_metadata(c->rk, 0, rkt, &md, timeout_ms);
  rd_kafka_topic_destroy(rkt);
  if (e) return kf__err(err, e, "metadata of topic '%s'", topic);
  int rc = FL_OK;
  if (md->topic_cnt != 1)
    rc = fl_err_set(err, FL_ENOTFOUND, "topic '%s': not in the broker's metadata", topic);
  else if (md->topics[0].err)
    rc = kf__err(err, md->topics[0].err, "topic '%s'", topic);
  else
    *n = md->topics[0].partition_cnt;
  rd_kafka_metadata_destroy(md);
  return rc;
}

static kf_part_t *find_part(kf_consumer_t *c, const char *topic, int32_t partition) {
  if (c->last_hit < c->nparts) {
    kf_part_t *p = &c->parts[c->last_hit];
    if (p->partition == partition && strcmp(p->topic, topic) == 0) return p;
  }
  for (uint32_t i = 0; i < c->nparts; i++)
    if (c->parts[i].partition == partition && strcmp(c->parts[i].topic, topic) == 0) {
      c->last_hit = i;
      return &c->parts[i];
    }
  return NULL;
}

static const kf_part_t *find_part_const(const kf_consumer_t *c, const char *topic,
                                        int32_t partition) {
  for (uint32_t i = 0; i < c->nparts; i++)
    if (c->parts[i].partition == partition && strcmp(c->parts[i].topic, topic) == 0)
      return &c->parts[i];
  return NULL;
}

static int not_assigned(fl_err_t *err, const char *topic, int32_t partition) {
  return fl_err_set(err, FL_EINVALID, "partition %s[%d] is not assigned to this consumer", topic,
                    partition);
}

/* Turns a start position into the offset of the first message to read. */
int kf_consumer_resolve(kf_consumer_t *c, const char *topic, int32_t partition, kf_position_t pos,
                        int timeout_ms, int64_t *offset, fl_err_t *err) {
  int64_t low, high;
  rd_kafka_resp_err_t e;
  switch (pos.kind) {
    case KF_POS_OFFSET:
      if (pos.value < 0)
        return fl_err_set(err, FL_EINVALID, "partition %s[%d]: negative offset %lld", topic,
                          partition, (long long)pos.value);
      *offset = pos.value;
      return FL_OK;
    case KF_POS_EARLIEST:
    case KF_POS_LATEST:
      e = rd_kafka_query_watermark_offsets(c->rk, topic, partition, &low, &high, timeout_ms);
      if (e) return kf__err(err, e, "watermarks of %s[%d]", topic, partition);
      *offset = pos.kind == KF_POS_EARLIEST ? low : high;
      return FL_OK;
    case KF_POS_TIMESTAMP: {
      rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
      rd_kafka_topic_partition_list_add(l, topic, partition)->offset = pos.value;
      e = rd_kafka_offsets_for_times(c->rk, l, timeout_ms);
      if (!e) e = l->elems[0].err;
      int64_t off = l->elems[0].offset;
      rd_kafka_topic_partition_list_destroy(l);
      if (e)
        return kf__err(err, e, "offset for timestamp %lld in %s[%d]", (long long)pos.value, topic,
                       partition);
      if (off >= 0) {
        *offset = off;
        return FL_OK;
      }
      /* No message at or after the time: start at the end. */
      return kf_consumer_resolve(c, topic, partition, (kf_position_t){.kind = KF_POS_LATEST},
                                 timeout_ms, offset, err);
    }
    case KF_POS_GROUP: {
      if (!c->has_group)
        return fl_err_set(err, FL_EINVALID,
                          "partition %s[%d]: starting at group offsets needs a group.id", topic,
                          partition);
      int64_t off;
      int rc = kf_consumer_committed(c, topic, partition, timeout_ms, &off, err);
      if (rc) return rc;
      if (off >= 0) {
        *offset = off;
        return FL_OK;
      }
      if (pos.fallback == KF_POS_EARLIEST || pos.fallback == KF_POS_LATEST)
        return kf_consumer_resolve(c, topic, partition, (kf_position_t){.kind = pos.fallback},
                                   timeout_ms, offset, err);
      return fl_err_set(err, FL_ENOTFOUND, "partition %s[%d]: the group has no committed offset",
                        topic, partition);
    }
  }
  return fl_err_set(err, FL_EINVALID, "bad start position kind %d", (int)pos.kind);
}

/* Hands the whole table to librdkafka, each partition at `next`, and
 * pauses again those that were paused. */
static int apply_assignment(kf_consumer_t *c, fl_err_t *err) {
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new((int)c->nparts);
  for (uint32_t i = 0; i < c->nparts; i++)
    rd_kafka_topic_partition_list_add(l, c->parts[i].topic, c->parts[i].partition)->offset =
        c->parts[i].next;
  rd_kafka_resp_err_t e = rd_kafka_assign(c->rk, l);
  rd_kafka_topic_partition_list_destroy(l);
  if (e) return kf__err(err, e, "assigning partitions");
  rd_kafka_topic_partition_list_t *p = rd_kafka_topic_partition_list_new(1);
  for (uint32_t i = 0; i < c->nparts; i++)
    if (c->parts[i].paused)
      rd_kafka_topic_partition_list_add(p, c->parts[i].topic, c->parts[i].partition);
  if (p->cnt) rd_kafka_pause_partitions(c->rk, p);
  rd_kafka_topic_partition_list_destroy(p);
  return FL_OK;
}

int kf_consumer_assign(kf_consumer_t *c, const char *topic, const int32_t *partitions,
                       const kf_position_t *pos, uint32_t n, int timeout_ms, fl_err_t *err) {
  int64_t *offs = fl_malloc(((size_t)n + 1) * sizeof *offs);
  for (uint32_t i = 0; i < n; i++) {
    int rc = kf_consumer_resolve(c, topic, partitions[i], pos[i], timeout_ms, &offs[i], err);
    if (rc) {
      fl_free(offs);
      return rc;
    }
  }
  for (uint32_t i = 0; i < n; i++) {
    kf_part_t *p = find_part(c, topic, partitions[i]);
    if (!p) {
      if (c->nparts == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 8;
        c->parts = fl_realloc(c->parts, c->cap * sizeof *c->parts);
      }
      p = &c->parts[c->nparts++];
      p->topic = fl_strdup(topic);
      p->partition = partitions[i];
      p->paused = false;
    }
    p->next = offs[i];
  }
  fl_free(offs);
  return apply_assignment(c, err);
}

int kf_consumer_unassign(kf_consumer_t *c, const char *topic, int32_t partition, fl_err_t *err) {
  kf_part_t *p = find_part(c, topic, partition);
  if (!p) return not_assigned(err, topic, partition);
  fl_free(p->topic);
  *p = c->parts[--c->nparts];
  c->last_hit = 0;
  return apply_assignment(c, err);
}

/* Starts fetching one partition at `next` again. */
static int refetch(kf_consumer_t *c, kf_part_t *p, int timeout_ms, fl_err_t *err) {
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(l, p->topic, p->partition)->offset = p->next;
  rd_kafka_error_t *e = rd_kafka_seek_partitions(c->rk, l, timeout_ms);
  rd_kafka_resp_err_t pe = l->elems[0].err;
  rd_kafka_topic_partition_list_destroy(l);
  if (e) {
    rd_kafka_resp_err_t code = rd_kafka_error_code(e);
    rd_kafka_error_destroy(e);
    return kf__err(err, code, "seeking %s[%d] to %lld", p->topic, p->partition, (long long)p->next);
  }
  /* An asynchronous seek (timeout 0) reports itself as in progress. */
  if (pe && pe != RD_KAFKA_RESP_ERR__IN_PROGRESS)
    return kf__err(err, pe, "seeking %s[%d] to %lld", p->topic, p->partition, (long long)p->next);
  return FL_OK;
}

int kf_consumer_seek(kf_consumer_t *c, const char *topic, int32_t partition, kf_position_t pos,
                     int timeout_ms, fl_err_t *err) {
  kf_part_t *p = find_part(c, topic, partition);
  if (!p) return not_assigned(err, topic, partition);
  int64_t off;
  int rc = kf_consumer_resolve(c, topic, partition, pos, timeout_ms, &off, err);
  if (rc) return rc;
  p->next = off;
  return refetch(c, p, timeout_ms, err);
}

/* With the queue empty: wakes the fetch of every partition the broker has
 * more of (see Refilling). An error here is not the poll's: the fetch
 * goes on by itself a second later. */
static void wake_fetchers(kf_consumer_t *c) {
  int64_t now = fl_monotonic_ns();
  if (now - c->last_wake_ns < WAKE_NS) return;
  c->last_wake_ns = now;
  for (uint32_t i = 0; i < c->nparts; i++) {
    kf_part_t *p = &c->parts[i];
    int64_t low, high;
    if (p->paused || rd_kafka_get_watermark_offsets(c->rk, p->topic, p->partition, &low, &high) ||
        high <= p->next)
      continue;
    fl_err_t ignored;
    fl_err_clear(&ignored);
    (void)refetch(c, p, 0, &ignored);
  }
}

int kf_consumer_poll(kf_consumer_t *c, kf_msgs_t *out, uint32_t max, int timeout_ms,
                     fl_err_t *err) {
  kf_msgs_clear(out);
  if (max == 0) return FL_OK;
  pthread_mutex_lock(&c->mu);
  rd_kafka_resp_err_t fatal = c->fatal;
  pthread_mutex_unlock(&c->mu);
  if (fatal) return kf__err(err, fatal, "kafka consumer: fatal error: %s", c->fatal_reason);
  msgs_reserve(out, max);
  /* librdkafka's batch call waits for the whole batch or the timeout:
   * take what is queued, else wait for one message and take what came
   * with it, so a poll returns as soon as anything is there. */
  rd_kafka_message_t **rk = (rd_kafka_message_t **)out->rk;
  ssize_t got = rd_kafka_consume_batch_queue(c->queue, 0, rk, max);
  if (got == 0) wake_fetchers(c);
  if (got == 0 && timeout_ms != 0) {
    got = rd_kafka_consume_batch_queue(c->queue, timeout_ms, rk, 1);
    if (got == 1 && max > 1) {
      ssize_t more = rd_kafka_consume_batch_queue(c->queue, 0, rk + 1, max - 1);
      if (more > 0) got += more;
    }
  }
  rd_kafka_poll(c->rk, 0);
  if (got < 0) return kf__err(err, rd_kafka_last_error(), "polling the consumer queue");
  out->nrk = (uint32_t)got;
  int rc = FL_OK;
  for (uint32_t i = 0; i < out->nrk; i++) {
    rd_kafka_message_t *m = out->rk[i];
    const char *topic = m->rkt ? rd_kafka_topic_name(m->rkt) : "";
    if (m->err) {
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) continue;
      if (kf__retriable(m->err)) {
        pthread_mutex_lock(&c->mu);
        c->transient++;
        snprintf(c->last_transient, sizeof c->last_transient, "%s", rd_kafka_err2str(m->err));
        pthread_mutex_unlock(&c->mu);
        continue;
      }
      /* The first partition error is returned after the good messages. */
      if (rc == FL_OK) {
        char what[256];
        size_t plen = m->len < 200 ? m->len : 200;
        snprintf(what, sizeof what, "reading %s[%d] at offset %lld%s%.*s", topic, m->partition,
                 (long long)m->offset, plen ? ": " : "", (int)plen,
                 m->payload ? (const char *)m->payload : "");
        rc = kf__err(err, m->err, "%s", what);
      }
      continue;
    }
    kf_part_t *p = find_part(c, topic, m->partition);
    if (!p || p->paused || m->offset < p->next) continue;
    p->next = m->offset + 1;
    kf_msg_t *v = &out->msgs[out->n++];
    v->topic = topic;
    v->partition = m->partition;
    v->offset = m->offset;
    rd_kafka_timestamp_type_t tt;
    v->timestamp_ms = rd_kafka_message_timestamp(m, &tt);
    v->ts_type = tt == RD_KAFKA_TIMESTAMP_CREATE_TIME       ? KF_TS_CREATE
                 : tt == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? KF_TS_LOG_APPEND
                                                            : KF_TS_NONE;
    v->key = m->key;
    v->key_len = m->key ? m->key_len : 0;
    v->value = m->payload;
    v->value_len = m->payload ? m->len : 0;
    v->rk_msg = m;
  }
  return rc;
}

int kf_consumer_position(const kf_consumer_t *c, const char *topic, int32_t partition,
                         int64_t *offset, fl_err_t *err) {
  const kf_part_t *p = find_part_const(c, topic, partition);
  if (!p) return not_assigned(err, topic, partition);
  *offset = p->next;
  return FL_OK;
}

uint32_t kf_consumer_assigned_count(const kf_consumer_t *c) { return c->nparts; }

void kf_consumer_assigned(const kf_consumer_t *c, uint32_t i, const char **topic,
                          int32_t *partition, int64_t *next_offset, bool *paused) {
  const kf_part_t *p = &c->parts[i];
  if (topic) *topic = p->topic;
  if (partition) *partition = p->partition;
  if (next_offset) *next_offset = p->next;
  if (paused) *paused = p->paused;
}

static int pause_resume(kf_consumer_t *c, const char *topic, int32_t partition, bool pause,
                        fl_err_t *err) {
  kf_part_t *p = find_part(c, topic, partition);
  if (!p) return not_assigned(err, topic, partition);
  if (p->paused == pause) return FL_OK;
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(l, topic, partition);
  rd_kafka_resp_err_t e =
      pause ? rd_kafka_pause_partitions(c->rk, l) : rd_kafka_resume_partitions(c->rk, l);
  if (!e) e = l->elems[0].err;
  rd_kafka_topic_partition_list_destroy(l);
  if (e) return kf__err(err, e, "%s %s[%d]", pause ? "pausing" : "resuming", topic, partition);
  p->paused = pause;
  /* Messages dropped while paused are fetched again from `next`. */
  return pause ? FL_OK : refetch(c, p, 0, err);
}

int kf_consumer_pause(kf_consumer_t *c, const char *topic, int32_t partition, fl_err_t *err) {
  return pause_resume(c, topic, partition, true, err);
}

int kf_consumer_resume(kf_consumer_t *c, const char *topic, int32_t partition, fl_err_t *err) {
  return pause_resume(c, topic, partition, false, err);
}

int kf_consumer_watermarks(kf_consumer_t *c, const char *topic, int32_t partition, bool query,
                           int timeout_ms, int64_t *low, int64_t *high, fl_err_t *err) {
  rd_kafka_resp_err_t e =
      query ? rd_kafka_query_watermark_offsets(c->rk, topic, partition, low, high, timeout_ms)
            : rd_kafka_get_watermark_offsets(c->rk, topic, partition, low, high);
  if (e) return kf__err(err, e, "watermarks of %s[%d]", topic, partition);
  return FL_OK;
}

int kf_consumer_lag(kf_consumer_t *c, const char *topic, int32_t partition, int timeout_ms,
                    int64_t *lag, fl_err_t *err) {
  const kf_part_t *p = find_part(c, topic, partition);
  if (!p) return not_assigned(err, topic, partition);
  int64_t next = p->next, low, high;
  int rc = kf_consumer_watermarks(c, topic, partition, true, timeout_ms, &low, &high, err);
  if (rc) return rc;
  *lag = high > next ? high - next : 0;
  return FL_OK;
}

int kf_consumer_commit(kf_consumer_t *c, fl_err_t *err) {
  if (!c->has_group) return fl_err_set(err, FL_EINVALID, "committing offsets needs a group.id");
  if (c->nparts == 0) return FL_OK;
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new((int)c->nparts);
  for (uint32_t i = 0; i < c->nparts; i++)
    rd_kafka_topic_partition_list_add(l, c->parts[i].topic, c->parts[i].partition)->offset =
        c->parts[i].next;
  rd_kafka_resp_err_t e = rd_kafka_commit(c->rk, l, 0);
  for (int i = 0; !e && i < l->cnt; i++) e = l->elems[i].err;
  rd_kafka_topic_partition_list_destroy(l);
  if (e) return kf__err(err, e, "committing offsets");
  return FL_OK;
}

int kf_consumer_commit_offsets(kf_consumer_t *c, const char *topic, const int32_t *partitions,
                               const int64_t *offsets, uint32_t n, fl_err_t *err) {
  if (!c->has_group) return fl_err_set(err, FL_EINVALID, "committing offsets needs a group.id");
  if (n == 0) return FL_OK;
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new((int)n);
  for (uint32_t i = 0; i < n; i++)
    rd_kafka_topic_partition_list_add(l, topic, partitions[i])->offset = offsets[i];
  rd_kafka_resp_err_t e = rd_kafka_commit(c->rk, l, 0);
  for (int i = 0; !e && i < l->cnt; i++) e = l->elems[i].err;
  rd_kafka_topic_partition_list_destroy(l);
  if (e) return kf__err(err, e, "committing offsets");
  return FL_OK;
}

int kf_consumer_committed(kf_consumer_t *c, const char *topic, int32_t partition, int timeout_ms,
                          int64_t *offset, fl_err_t *err) {
  if (!c->has_group) return fl_err_set(err, FL_EINVALID, "committed offsets need a group.id");
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(l, topic, partition);
  rd_kafka_resp_err_t e = rd_kafka_committed(c->rk, l, timeout_ms);
  if (!e) e = l->elems[0].err;
  int64_t off = l->elems[0].offset;
  rd_kafka_topic_partition_list_destroy(l);
  if (e) return kf__err(err, e, "committed offset of %s[%d]", topic, partition);
  *offset = off >= 0 ? off : -1;
  return FL_OK;
}

uint32_t kf_consumer_take_transient_errors(kf_consumer_t *c, char *last, size_t size) {
  pthread_mutex_lock(&c->mu);
  uint32_t n = c->transient;
  if (last && size) snprintf(last, size, "%s", c->last_transient);
  c->transient = 0;
  pthread_mutex_unlock(&c->mu);
  return n;
}
