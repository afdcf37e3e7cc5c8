/*
 * kafka_producer.c - a producer over librdkafka (layer 9, kafka).
 *
 * Sending is rd_kafka_producev with copied key, value and headers; the
 * delivery report callback (served by rd_kafka_poll on the sending thread)
 * counts acknowledgements and keeps the first failure, which the next send
 * or flush returns. When librdkafka's queue is full a send polls for
 * delivery reports and tries again, which bounds memory to the queue.
 */
#include "kafka/kafka_producer.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "kafka/kafka_int.h"

struct kf_producer {
  rd_kafka_t *rk;
  uint64_t delivered;
  rd_kafka_resp_err_t first_err;
  char first_err_where[256];
};

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
  (void)rk;
  kf_producer_t *p = opaque;
  if (!m->err) {
    p->delivered++;
  } else if (!p->first_err) {
    p->first_err = m->err;
    snprintf(p->first_err_where, sizeof p->first_err_where, "delivering to %s[%d]",
             rd_kafka_topic_name(m->rkt), m->partition);
  }
}

int kf_producer_open(const kf_config_t *cfg, kf_producer_t **out, fl_err_t *err) {
  *out = NULL;
  kf_producer_t *p = fl_calloc(1, sizeof *p);
  rd_kafka_conf_t *conf = kf__conf_dup(cfg);
  char buf[64], errstr[512];
  size_t n = sizeof buf;
  /* Java's partitioner unless one was chosen; idempotence on by default. */
  if (rd_kafka_conf_get(conf, "partitioner", buf, &n) == RD_KAFKA_CONF_OK &&
      strcmp(buf, "consistent_random") == 0)
    rd_kafka_conf_set(conf, "partitioner", "murmur2_random", NULL, 0);
  if (!cfg->idempotence_set) rd_kafka_conf_set(conf, "enable.idempotence", "true", NULL, 0);
  rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
  rd_kafka_conf_set_opaque(conf, p);
  p->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (!p->rk) {
    rd_kafka_conf_destroy(conf);
    fl_free(p);
    return fl_err_set(err, FL_EINVALID, "kafka producer: %s", errstr);
  }
  *out = p;
  return FL_OK;
}

void kf_producer_close(kf_producer_t *p) {
  if (!p) return;
  rd_kafka_flush(p->rk, 30000);
  rd_kafka_destroy(p->rk);
  fl_free(p);
}

static int take_error(kf_producer_t *p, fl_err_t *err) {
  if (!p->first_err) return FL_OK;
  rd_kafka_resp_err_t e = p->first_err;
  p->first_err = 0;
  return kf__err(err, e, "%s", p->first_err_where);
}

int kf_producer_send(kf_producer_t *p, const kf_record_t *r, fl_err_t *err) {
  rd_kafka_headers_t *hdrs = NULL;
  if (r->nheaders) {
    hdrs = rd_kafka_headers_new(r->nheaders);
    for (uint32_t i = 0; i < r->nheaders; i++)
      rd_kafka_header_add(hdrs, r->headers[i].name, -1, r->headers[i].value,
                          r->headers[i].value ? (ssize_t)r->headers[i].len : 0);
  }
  for (;;) {
    rd_kafka_resp_err_t e = rd_kafka_producev(
        p->rk, RD_KAFKA_V_TOPIC(r->topic),
        RD_KAFKA_V_PARTITION(r->partition < 0 ? RD_KAFKA_PARTITION_UA : r->partition),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(r->key, r->key ? r->key_len : 0),
        RD_KAFKA_V_VALUE((void *)r->value, r->value ? r->value_len : 0),
        RD_KAFKA_V_TIMESTAMP(r->timestamp_ms), RD_KAFKA_V_HEADERS(hdrs), RD_KAFKA_V_END);
    if (e == RD_KAFKA_RESP_ERR_NO_ERROR) break; /* librdkafka owns hdrs now */
    if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      rd_kafka_poll(p->rk, 50);
      continue;
    }
    if (hdrs) rd_kafka_headers_destroy(hdrs);
    return kf__err(err, e, "producing to %s[%d]", r->topic, r->partition);
  }
  rd_kafka_poll(p->rk, 0);
  return take_error(p, err);
}

int kf_producer_flush(kf_producer_t *p, int timeout_ms, fl_err_t *err) {
  rd_kafka_resp_err_t e = rd_kafka_flush(p->rk, timeout_ms);
  int rc = take_error(p, err);
  if (rc) return rc;
  if (e == RD_KAFKA_RESP_ERR__TIMED_OUT)
    return fl_err_set_retriable(err, FL_EIO,
                                "kafka producer: %d messages still in flight after %d ms",
                                rd_kafka_outq_len(p->rk), timeout_ms);
  if (e) return kf__err(err, e, "flushing the producer");
  return FL_OK;
}

uint64_t kf_producer_delivered(const kf_producer_t *p) { return p->delivered; }
