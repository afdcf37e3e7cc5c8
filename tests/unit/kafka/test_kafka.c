/*
 * test_kafka.c - the Kafka layer against librdkafka's in-process mock
 * cluster: settings and Flink property mapping, start-up options, produce
 * and consume at exact offsets with keys, headers and timestamps, seeks,
 * pause and resume, watermarks and lag, group commits, and a broker that
 * goes down in the middle of consumption. (Unknown topics and timestamp
 * lookups need a real broker: tests/interop/test_kafka.py.)
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <stdlib.h>
#include <unistd.h>

#include "kafka/kafka_config.h"
#include "kafka/kafka_consumer.h"
#include "kafka/kafka_producer.h"
#include "test.h"

typedef struct mock {
  rd_kafka_t *rk; /* hosts the mock cluster */
  rd_kafka_mock_cluster_t *mc;
  kf_config_t *cfg;
} mock_t;

static void mock_open(mock_t *m, int brokers) {
  char errstr[256];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "log_level", "0", NULL, 0);
  m->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (!m->rk) abort();
  m->mc = rd_kafka_mock_cluster_new(m->rk, brokers);
  m->cfg = kf_config_new();
  fl_err_t err;
  if (kf_config_set(m->cfg, "bootstrap.servers", rd_kafka_mock_cluster_bootstraps(m->mc), &err))
    abort();
  kf_config_set(m->cfg, "log_level", "0", &err);
}

static void mock_close(mock_t *m) {
  kf_config_free(m->cfg);
  rd_kafka_mock_cluster_destroy(m->mc);
  rd_kafka_destroy(m->rk);
}

/* Produces n messages "v<i>" with key "k<i>" and timestamp base+i to a
 * partition, each with header "i" = decimal i. */
static int produce_n(kf_config_t *cfg, const char *topic, int32_t part, int from, int n,
                     int64_t base_ts, fl_err_t *err) {
  kf_producer_t *p;
  int rc = kf_producer_open(cfg, &p, err);
  if (rc) return rc;
  for (int i = from; i < from + n && !rc; i++) {
    char k[16], v[16], h[16];
    snprintf(k, sizeof k, "k%d", i);
    snprintf(v, sizeof v, "v%d", i);
    snprintf(h, sizeof h, "%d", i);
    kf_header_t hd[2] = {{"i", h, strlen(h)}, {"nul", NULL, 0}};
    kf_record_t r = {.topic = topic,
                     .partition = part,
                     .key = k,
                     .key_len = strlen(k),
                     .value = v,
                     .value_len = strlen(v),
                     .timestamp_ms = base_ts + i,
                     .headers = hd,
                     .nheaders = 2};
    rc = kf_producer_send(p, &r, err);
  }
  if (!rc) rc = kf_producer_flush(p, 10000, err);
  if (!rc && kf_producer_delivered(p) != (uint64_t)n)
    rc = fl_err_set(err, FL_EINTERNAL, "delivered %llu of %d",
                    (unsigned long long)kf_producer_delivered(p), n);
  kf_producer_close(p);
  return rc;
}

/* Polls until `want` messages arrived (or 10 s), recording values in
 * seen[offset] per partition 0 (counts) and checking order. */
static int consume_n(kf_consumer_t *c, int want, int *seen, int nseen, int64_t *last,
                     fl_err_t *err) {
  kf_msgs_t m;
  kf_msgs_init(&m);
  int got = 0, rounds = 0, rc = 0;
  while (got < want && rounds++ < 200 && !rc) {
    uint32_t room = want - got < 7 ? (uint32_t)(want - got) : 7;
    rc = kf_consumer_poll(c, &m, room, 50, err);
    for (uint32_t i = 0; i < m.n; i++) {
      const kf_msg_t *x = &m.msgs[i];
      char v[16];
      snprintf(v, sizeof v, "v%lld", (long long)x->offset);
      if (x->value_len != strlen(v) || memcmp(x->value, v, x->value_len) != 0)
        rc = fl_err_set(err, FL_ECORRUPT, "offset %lld has the wrong value", (long long)x->offset);
      if (x->offset >= 0 && x->offset < nseen) seen[x->offset]++;
      if (last && x->offset <= *last) rc = fl_err_set(err, FL_ECORRUPT, "offset went back");
      if (last) *last = x->offset;
      got++;
    }
  }
  kf_msgs_free(&m);
  if (!rc && got != want) rc = fl_err_set(err, FL_EIO, "got %d of %d messages", got, want);
  return rc;
}

TEST(kafka_config_settings) {
  fl_err_t err;
  kf_config_t *c = kf_config_new();
  CHECK_ERR(kf_config_set(c, "no.such.setting", "1", &err), FL_EINVALID);
  CHECK(strstr(err.msg, "no.such.setting") != NULL);
  bool ignored = true;
  CHECK_OK(kf_config_set_flink(c, "properties.fetch.max.wait.ms", "123", &ignored, &err), &err);
  CHECK(!ignored);
  char buf[64];
  CHECK(kf_config_get(c, "fetch.wait.max.ms", buf, sizeof buf));
  CHECK_STR(buf, "123");
  CHECK_OK(kf_config_set_flink(c, "properties.key.deserializer", "org.X", &ignored, &err), &err);
  CHECK(ignored);
  CHECK_ERR(kf_config_set_flink(c, "properties.ssl.truststore.location", "/x.jks", NULL, &err),
            FL_EUNSUPPORTED);
  CHECK(strstr(err.msg, "ssl.ca.location") != NULL);
  CHECK_ERR(kf_config_set_flink(c, "bootstrap.servers", "x", NULL, &err), FL_EINVALID);
  CHECK_OK(kf_config_set_flink(c, "properties.sasl.jaas.config",
                               "org.apache.kafka.common.security.plain.PlainLoginModule required "
                               "username=\"alice\" password='s3cret';",
                               NULL, &err),
           &err);
  CHECK(kf_config_get(c, "sasl.username", buf, sizeof buf));
  CHECK_STR(buf, "alice");
  CHECK_ERR(kf_config_set_flink(c, "properties.sasl.jaas.config", "Krb5LoginModule required;", NULL,
                                &err),
            FL_EUNSUPPORTED);
  CHECK_ERR(kf_config_set_flink(c, "properties.isolation.level", "sometimes", NULL, &err),
            FL_EINVALID);
  CHECK(strstr(err.msg, "properties.isolation.level") != NULL);
  kf_config_free(c);
}

TEST(kafka_startup_options) {
  fl_err_t err;
  kf_position_t pos[3];
  CHECK_OK(kf_startup_parse("specific-offsets", NULL, "partition:0,offset:42;partition:2,offset:7",
                            3, pos, &err),
           &err);
  CHECK_EQ(pos[0].kind, KF_POS_OFFSET);
  CHECK_EQ(pos[0].value, 42);
  CHECK_EQ(pos[1].kind, KF_POS_GROUP);
  CHECK_EQ(pos[2].value, 7);
  CHECK_OK(kf_startup_parse("timestamp", "1700000000000", NULL, 3, pos, &err), &err);
  CHECK_EQ(pos[1].kind, KF_POS_TIMESTAMP);
  CHECK_EQ(pos[1].value, 1700000000000LL);
  CHECK_OK(kf_startup_parse(NULL, NULL, NULL, 3, pos, &err), &err);
  CHECK_EQ(pos[0].kind, KF_POS_GROUP);
  CHECK_EQ(pos[0].fallback, KF_POS_EARLIEST);
  CHECK_OK(kf_startup_parse("latest-offset", NULL, NULL, 3, pos, &err), &err);
  CHECK_EQ(pos[2].kind, KF_POS_LATEST);
  CHECK_ERR(kf_startup_parse("timestamp", "soon", NULL, 3, pos, &err), FL_EINVALID);
  CHECK_ERR(kf_startup_parse("specific-offsets", NULL, "partition:5,offset:1", 3, pos, &err),
            FL_EINVALID);
  CHECK(strstr(err.msg, "partition 5") != NULL);
  CHECK_ERR(kf_startup_parse("specific-offsets", NULL, "p0=1", 3, pos, &err), FL_EINVALID);
  CHECK_ERR(kf_startup_parse("from-the-middle", NULL, NULL, 3, pos, &err), FL_EINVALID);
}

TEST(kafka_produce_consume_exact) {
  mock_t m;
  mock_open(&m, 1);
  fl_err_t err;
  rd_kafka_mock_topic_create(m.mc, "t", 2, 1);
  CHECK_OK(produce_n(m.cfg, "t", 0, 0, 50, 1700000000000LL, &err), &err);
  kf_consumer_t *c;
  CHECK_OK(kf_consumer_open(m.cfg, &c, &err), &err);
  int32_t nparts = 0;
  CHECK_OK(kf_consumer_partitions(c, "t", 5000, &nparts, &err), &err);
  CHECK_EQ(nparts, 2);
  int32_t p0 = 0;
  kf_position_t at = {.kind = KF_POS_OFFSET, .value = 17};
  CHECK_OK(kf_consumer_assign(c, "t", &p0, &at, 1, 5000, &err), &err);
  kf_msgs_t ms;
  kf_msgs_init(&ms);
  int got = 0;
  for (int r = 0; r < 200 && got < 33; r++) {
    CHECK_OK(kf_consumer_poll(c, &ms, 10, 50, &err), &err);
    for (uint32_t i = 0; i < ms.n; i++, got++) {
      const kf_msg_t *x = &ms.msgs[i];
      CHECK_EQ(x->offset, 17 + got);
      CHECK_EQ(x->partition, 0);
      CHECK_STR(x->topic, "t");
      char k[16];
      snprintf(k, sizeof k, "k%d", 17 + got);
      CHECK_EQ(x->key_len, strlen(k));
      CHECK_MEM(x->key, k, x->key_len);
      CHECK_EQ(x->timestamp_ms, 1700000000000LL + 17 + got);
      CHECK_EQ(x->ts_type, KF_TS_CREATE);
      CHECK_EQ(kf_msg_header_count(x), 2);
      const char *hn;
      const void *hv;
      size_t hl;
      CHECK(kf_msg_header(x, 0, &hn, &hv, &hl));
      CHECK_STR(hn, "i");
      char h[16];
      snprintf(h, sizeof h, "%d", 17 + got);
      CHECK_EQ(hl, strlen(h));
      CHECK_MEM(hv, h, hl);
      CHECK(kf_msg_header(x, 1, &hn, &hv, &hl));
      CHECK(hv == NULL);
    }
  }
  kf_msgs_free(&ms);
  CHECK_EQ(got, 33);
  int64_t pos, low, high, lag;
  CHECK_OK(kf_consumer_position(c, "t", 0, &pos, &err), &err);
  CHECK_EQ(pos, 50);
  CHECK_OK(kf_consumer_watermarks(c, "t", 0, true, 5000, &low, &high, &err), &err);
  CHECK_EQ(low, 0);
  CHECK_EQ(high, 50);
  CHECK_OK(kf_consumer_lag(c, "t", 0, 5000, &lag, &err), &err);
  CHECK_EQ(lag, 0);
  /* Seek back, then lag counts what is left. */
  CHECK_OK(
      kf_consumer_seek(c, "t", 0, (kf_position_t){.kind = KF_POS_OFFSET, .value = 45}, 5000, &err),
      &err);
  CHECK_OK(kf_consumer_lag(c, "t", 0, 5000, &lag, &err), &err);
  CHECK_EQ(lag, 5);
  int seen[50] = {0};
  CHECK_OK(consume_n(c, 5, seen, 50, NULL, &err), &err);
  for (int i = 45; i < 50; i++) CHECK_EQ(seen[i], 1);
  /* An unassigned partition is an error that names it. */
  CHECK_ERR(kf_consumer_position(c, "t", 1, &pos, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "t[1]") != NULL);
  kf_consumer_close(c);
  mock_close(&m);
}

TEST(kafka_earliest_latest_and_unknown_topic) {
  mock_t m;
  mock_open(&m, 1);
  fl_err_t err;
  rd_kafka_mock_topic_create(m.mc, "t", 1, 1);
  CHECK_OK(produce_n(m.cfg, "t", 0, 0, 10, 1700000000000LL, &err), &err);
  kf_consumer_t *c;
  CHECK_OK(kf_consumer_open(m.cfg, &c, &err), &err);
  int32_t p0 = 0, n;
  kf_position_t latest = {.kind = KF_POS_LATEST};
  CHECK_OK(kf_consumer_assign(c, "t", &p0, &latest, 1, 5000, &err), &err);
  int64_t pos;
  CHECK_OK(kf_consumer_position(c, "t", 0, &pos, &err), &err);
  CHECK_EQ(pos, 10);
  kf_position_t earliest = {.kind = KF_POS_EARLIEST};
  CHECK_OK(kf_consumer_assign(c, "t", &p0, &earliest, 1, 5000, &err), &err);
  CHECK_OK(kf_consumer_position(c, "t", 0, &pos, &err), &err);
  CHECK_EQ(pos, 0);
  int seen[10] = {0};
  CHECK_OK(consume_n(c, 10, seen, 10, NULL, &err), &err);
  CHECK_OK(kf_consumer_partitions(c, "t", 3000, &n, &err), &err);
  CHECK_EQ(n, 1);
  kf_position_t grp = {.kind = KF_POS_GROUP};
  CHECK_ERR(kf_consumer_assign(c, "t", &p0, &grp, 1, 5000, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "group.id") != NULL);
  CHECK_ERR(kf_consumer_commit(c, &err), FL_EINVALID);
  kf_consumer_close(c);
  mock_close(&m);
}

TEST(kafka_pause_resume_no_gap) {
  mock_t m;
  mock_open(&m, 1);
  fl_err_t err;
  rd_kafka_mock_topic_create(m.mc, "t", 1, 1);
  CHECK_OK(produce_n(m.cfg, "t", 0, 0, 200, 1700000000000LL, &err), &err);
  kf_consumer_t *c;
  CHECK_OK(kf_consumer_open(m.cfg, &c, &err), &err);
  int32_t p0 = 0;
  kf_position_t at0 = {.kind = KF_POS_OFFSET, .value = 0};
  CHECK_OK(kf_consumer_assign(c, "t", &p0, &at0, 1, 5000, &err), &err);
  int seen[200] = {0};
  int64_t last = -1;
  CHECK_OK(consume_n(c, 30, seen, 200, &last, &err), &err);
  CHECK_OK(kf_consumer_pause(c, "t", 0, &err), &err);
  CHECK_EQ(kf_consumer_assigned_count(c), 1);
  const char *at_topic;
  int32_t at_part;
  int64_t at_next;
  bool at_paused;
  kf_consumer_assigned(c, 0, &at_topic, &at_part, &at_next, &at_paused);
  CHECK_STR(at_topic, "t");
  CHECK_EQ(at_part, 0);
  CHECK_EQ(at_next, 30);
  CHECK(at_paused);
  kf_msgs_t ms;
  kf_msgs_init(&ms);
  for (int i = 0; i < 5; i++) {
    CHECK_OK(kf_consumer_poll(c, &ms, 100, 20, &err), &err);
    CHECK_EQ(ms.n, 0); /* nothing while paused, even what was prefetched */
  }
  kf_msgs_free(&ms);
  CHECK_OK(kf_consumer_resume(c, "t", 0, &err), &err);
  CHECK_OK(consume_n(c, 170, seen, 200, &last, &err), &err);
  for (int i = 0; i < 200; i++) CHECK_EQ(seen[i], 1);
  kf_consumer_close(c);
  mock_close(&m);
}

TEST(kafka_broker_down_no_loss_no_duplicates) {
  mock_t m;
  mock_open(&m, 1);
  fl_err_t err;
  rd_kafka_mock_topic_create(m.mc, "t", 1, 1);
  CHECK_OK(produce_n(m.cfg, "t", 0, 0, 300, 1700000000000LL, &err), &err);
  kf_consumer_t *c;
  kf_config_t *cc = kf_config_dup(m.cfg);
  /* Small fetches, so the outage falls in the middle of the log. */
  CHECK_OK(kf_config_set(cc, "message.max.bytes", "1000", &err), &err);
  CHECK_OK(kf_config_set(cc, "fetch.max.bytes", "1000", &err), &err);
  CHECK_OK(kf_config_set(cc, "max.partition.fetch.bytes", "500", &err), &err);
  CHECK_OK(kf_config_set(cc, "reconnect.backoff.ms", "10", &err), &err);
  CHECK_OK(kf_consumer_open(cc, &c, &err), &err);
  int32_t p0 = 0;
  kf_position_t at0 = {.kind = KF_POS_OFFSET, .value = 0};
  CHECK_OK(kf_consumer_assign(c, "t", &p0, &at0, 1, 5000, &err), &err);
  int seen[300] = {0};
  int64_t last = -1;
  CHECK_OK(consume_n(c, 40, seen, 300, &last, &err), &err);
  rd_kafka_mock_broker_set_down(m.mc, 1);
  kf_msgs_t ms;
  kf_msgs_init(&ms);
  int during = 0;
  for (int i = 0; i < 10; i++) {
    CHECK_OK(kf_consumer_poll(c, &ms, 50, 30, &err), &err); /* not an error: a hiccup */
    for (uint32_t j = 0; j < ms.n; j++) {
      CHECK(ms.msgs[j].offset > last);
      last = ms.msgs[j].offset;
      seen[last]++;
      during++;
    }
  }
  kf_msgs_free(&ms);
  rd_kafka_mock_broker_set_up(m.mc, 1);
  CHECK_OK(consume_n(c, 260 - during, seen, 300, &last, &err), &err);
  for (int i = 0; i < 300; i++) CHECK_EQ(seen[i], 1);
  kf_consumer_close(c);
  kf_config_free(cc);
  mock_close(&m);
}

TEST(kafka_group_commit) {
  mock_t m;
  mock_open(&m, 1);
  fl_err_t err;
  rd_kafka_mock_topic_create(m.mc, "t", 1, 1);
  CHECK_OK(produce_n(m.cfg, "t", 0, 0, 20, 1700000000000LL, &err), &err);
  kf_config_t *gc = kf_config_dup(m.cfg);
  CHECK_OK(kf_config_set(gc, "group.id", "monitor", &err), &err);
  kf_consumer_t *c;
  CHECK_OK(kf_consumer_open(gc, &c, &err), &err);
  int32_t p0 = 0;
  kf_position_t grp = {.kind = KF_POS_GROUP, .fallback = KF_POS_EARLIEST};
  CHECK_OK(kf_consumer_assign(c, "t", &p0, &grp, 1, 5000, &err), &err);
  int64_t pos, committed;
  CHECK_OK(kf_consumer_position(c, "t", 0, &pos, &err), &err);
  CHECK_EQ(pos, 0); /* no committed offset: the fallback */
  int seen[20] = {0};
  CHECK_OK(consume_n(c, 12, seen, 20, NULL, &err), &err);
  CHECK_OK(kf_consumer_commit(c, &err), &err);
  CHECK_OK(kf_consumer_committed(c, "t", 0, 5000, &committed, &err), &err);
  CHECK_EQ(committed, 12);
  kf_consumer_close(c);
  /* A new consumer of the group starts where the group left off. */
  CHECK_OK(kf_consumer_open(gc, &c, &err), &err);
  kf_position_t strict = {.kind = KF_POS_GROUP, .fallback = KF_POS_GROUP};
  CHECK_OK(kf_consumer_assign(c, "t", &p0, &strict, 1, 5000, &err), &err);
  CHECK_OK(kf_consumer_position(c, "t", 0, &pos, &err), &err);
  CHECK_EQ(pos, 12);
  kf_consumer_close(c);
  kf_config_free(gc);
  mock_close(&m);
}

TEST(kafka_produce_to_missing_partition_fails) {
  mock_t m;
  mock_open(&m, 1);
  fl_err_t err;
  rd_kafka_mock_topic_create(m.mc, "t", 1, 1);
  kf_config_t *pc = kf_config_dup(m.cfg);
  CHECK_OK(kf_config_set(pc, "message.timeout.ms", "2000", &err), &err);
  kf_producer_t *p;
  CHECK_OK(kf_producer_open(pc, &p, &err), &err);
  kf_record_t r = {.topic = "t", .partition = 5, .value = "x", .value_len = 1};
  int rc = kf_producer_send(p, &r, &err);
  if (rc == FL_OK) rc = kf_producer_flush(p, 5000, &err);
  CHECK(rc != FL_OK);
  kf_producer_close(p);
  kf_config_free(pc);
  mock_close(&m);
}

TEST(kafka_unreachable_broker_is_retriable) {
  fl_err_t err;
  kf_config_t *c = kf_config_new();
  /* A port nothing listens on: every request fails as a broker hiccup. */
  CHECK_OK(kf_config_set(c, "bootstrap.servers", "127.0.0.1:1", &err), &err);
  CHECK_OK(kf_config_set(c, "log_level", "0", &err), &err);
  kf_consumer_t *k;
  CHECK_OK(kf_consumer_open(c, &k, &err), &err);
  int32_t n;
  int rc = kf_consumer_partitions(k, "t", 500, &n, &err);
  CHECK(rc != FL_OK);
  CHECK(err.retriable);
  int64_t low, high;
  fl_err_clear(&err);
  CHECK(kf_consumer_watermarks(k, "t", 0, true, 500, &low, &high, &err) != FL_OK);
  CHECK(err.retriable);
  kf_consumer_close(k);
  /* Messages give up after a second, so closing does not wait long. */
  CHECK_OK(kf_config_set(c, "message.timeout.ms", "1000", &err), &err);
  kf_producer_t *p;
  CHECK_OK(kf_producer_open(c, &p, &err), &err);
  kf_record_t r = {.topic = "t", .partition = 0, .value = "x", .value_len = 1};
  CHECK_OK(kf_producer_send(p, &r, &err), &err);
  fl_err_clear(&err);
  CHECK_ERR(kf_producer_flush(p, 300, &err), FL_EIO);
  CHECK(err.retriable);
  CHECK(strstr(err.msg, "in flight") != NULL);
  kf_producer_close(p);
  kf_config_free(c);
}
