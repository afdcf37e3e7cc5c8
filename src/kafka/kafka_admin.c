/*
 * kafka_admin.c - creating and deleting topics through Kafka's admin API
 * (layer 9, kafka), for the tests, the demo and `floe kafka`.
 *
 * Each call makes a short-lived client, sends one CreateTopics or
 * DeleteTopics request and waits for its result event.
 */
#include <string.h>

#include "kafka/kafka_int.h"
#include "kafka/kafka_producer.h"

typedef struct admin_call {
  rd_kafka_t *rk;
  rd_kafka_queue_t *q;
} admin_call_t;

static int admin_open(const kf_config_t *cfg, admin_call_t *a, fl_err_t *err) {
  char errstr[512];
  rd_kafka_conf_t *conf = kf__conf_dup(cfg);
  a->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (!a->rk) {
    rd_kafka_conf_destroy(conf);
    return fl_err_set(err, FL_EINVALID, "kafka admin client: %s", errstr);
  }
  a->q = rd_kafka_queue_new(a->rk);
  return FL_OK;
}

static void admin_close(admin_call_t *a) {
  rd_kafka_queue_destroy(a->q);
  rd_kafka_destroy(a->rk);
}

/* Waits for the result event of the one request sent on a->q. */
static rd_kafka_event_t *admin_wait(admin_call_t *a, int timeout_ms) {
  return rd_kafka_queue_poll(a->q, timeout_ms + 1000);
}

static int topic_result(const rd_kafka_topic_result_t **res, size_t n, const char *what,
                        const char *topic, fl_err_t *err) {
  if (n != 1) return fl_err_set(err, FL_EINTERNAL, "%s '%s': %zu results", what, topic, n);
  rd_kafka_resp_err_t e = rd_kafka_topic_result_error(res[0]);
  if (!e) return FL_OK;
  const char *msg = rd_kafka_topic_result_error_string(res[0]);
  int rc = kf__err(err, e, "%s '%s'", what, topic);
  if (msg && *msg) fl_err_prefix(err, "%s: ", msg);
  return rc;
}

int kf_create_topic(const kf_config_t *cfg, const char *topic, int32_t partitions,
                    int16_t replication, int timeout_ms, fl_err_t *err) {
  admin_call_t a;
  int rc = admin_open(cfg, &a, err);
  if (rc) return rc;
  char errstr[512];
  rd_kafka_NewTopic_t *nt =
      rd_kafka_NewTopic_new(topic, partitions, replication, errstr, sizeof errstr);
  if (!nt) {
    admin_close(&a);
    return fl_err_set(err, FL_EINVALID, "creating topic '%s': %s", topic, errstr);
  }
  rd_kafka_AdminOptions_t *opt = rd_kafka_AdminOptions_new(a.rk, RD_KAFKA_ADMIN_OP_CREATETOPICS);
  rd_kafka_AdminOptions_set_operation_timeout(opt, timeout_ms, NULL, 0);
  rd_kafka_AdminOptions_set_request_timeout(opt, timeout_ms, NULL, 0);
  rd_kafka_CreateTopics(a.rk, &nt, 1, opt, a.q);
  rd_kafka_event_t *ev = admin_wait(&a, timeout_ms);
  if (!ev) {
    rc = fl_err_set_retriable(err, FL_EIO, "creating topic '%s': no answer in %d ms", topic,
                              timeout_ms);
  } else if (rd_kafka_event_error(ev)) {
    rc = kf__err(err, rd_kafka_event_error(ev), "creating topic '%s'", topic);
  } else {
    size_t n;
    const rd_kafka_topic_result_t **res =
        rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n);
    rc = topic_result(res, n, "creating topic", topic, err);
  }
  if (ev) rd_kafka_event_destroy(ev);
  rd_kafka_AdminOptions_destroy(opt);
  rd_kafka_NewTopic_destroy(nt);
  admin_close(&a);
  return rc;
}

int kf_delete_topic(const kf_config_t *cfg, const char *topic, int timeout_ms, fl_err_t *err) {
  admin_call_t a;
  int rc = admin_open(cfg, &a, err);
  if (rc) return rc;
  rd_kafka_DeleteTopic_t *dt = rd_kafka_DeleteTopic_new(topic);
  rd_kafka_AdminOptions_t *opt = rd_kafka_AdminOptions_new(a.rk, RD_KAFKA_ADMIN_OP_DELETETOPICS);
  rd_kafka_AdminOptions_set_operation_timeout(opt, timeout_ms, NULL, 0);
  rd_kafka_AdminOptions_set_request_timeout(opt, timeout_ms, NULL, 0);
  rd_kafka_DeleteTopics(a.rk, &dt, 1, opt, a.q);
  rd_kafka_event_t *ev = admin_wait(&a, timeout_ms);
  if (!ev) {
    rc = fl_err_set_retriable(err, FL_EIO, "deleting topic '%s': no answer in %d ms", topic,
                              timeout_ms);
  } else if (rd_kafka_event_error(ev)) {
    rc = kf__err(err, rd_kafka_event_error(ev), "deleting topic '%s'", topic);
  } else {
    size_t n;
    const rd_kafka_topic_result_t **res =
        rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(ev), &n);
    rc = topic_result(res, n, "deleting topic", topic, err);
  }
  if (ev) rd_kafka_event_destroy(ev);
  rd_kafka_AdminOptions_destroy(opt);
  rd_kafka_DeleteTopic_destroy(dt);
  admin_close(&a);
  return rc;
}
