/*
 * test_kafka_decode.c - Kafka messages to table rows: JSON values into
 * value columns, metadata columns (topic, partition, offset, timestamp,
 * headers), tombstones skipped, bad values as errors naming the message
 * or skipped with ignore_parse_errors. Messages come from librdkafka's
 * mock cluster, so headers and timestamps are real message fields.
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <stdlib.h>

#include "base/arena.h"
#include "kafka/kafka_consumer.h"
#include "kafka/kafka_producer.h"
#include "stream/st_kafka_decode.h"
#include "test.h"

static const char *const values[] = {
    "{\"id\": 1, \"name\": \"a\"}",
    NULL,
    "{\"id\": 2, \"name\": \"b\", \"other\": [1]}",
    "not json",
    "{\"id\": 3}",
};
#define NVALUES 5

/* Produces the values above to a mock topic and polls them back. */
static int fetch(rd_kafka_mock_cluster_t *mc, kf_msgs_t *ms, kf_consumer_t **cout, fl_err_t *err) {
  kf_config_t *cfg = kf_config_new();
  kf_config_set(cfg, "bootstrap.servers", rd_kafka_mock_cluster_bootstraps(mc), err);
  kf_config_set(cfg, "log_level", "0", err);
  kf_producer_t *p;
  int rc = kf_producer_open(cfg, &p, err);
  for (int i = 0; !rc && i < NVALUES; i++) {
    kf_header_t h = {"trace", "t1", 2};
    kf_record_t r = {.topic = "events",
                     .partition = 0,
                     .value = values[i],
                     .value_len = values[i] ? strlen(values[i]) : 0,
                     .timestamp_ms = 1700000000000LL + i,
                     .headers = &h,
                     .nheaders = 1};
    rc = kf_producer_send(p, &r, err);
  }
  if (!rc) rc = kf_producer_flush(p, 10000, err);
  kf_producer_close(p);
  kf_consumer_t *c = NULL;
  if (!rc) rc = kf_consumer_open(cfg, &c, err);
  int32_t p0 = 0;
  kf_position_t at = {.kind = KF_POS_OFFSET, .value = 0};
  if (!rc) rc = kf_consumer_assign(c, "events", &p0, &at, 1, 5000, err);
  for (int i = 0; !rc && i < 100 && ms->n < NVALUES; i++)
    rc = kf_consumer_poll(c, ms, NVALUES, 50, err);
  kf_config_free(cfg);
  *cout = c;
  if (!rc && ms->n != NVALUES) rc = fl_err_set(err, FL_EIO, "polled %u messages", ms->n);
  return rc;
}

TEST(kafka_decode_values_and_metadata) {
  char errstr[256];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "log_level", "0", NULL, 0);
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  rd_kafka_mock_cluster_t *mc = rd_kafka_mock_cluster_new(rk, 1);
  rd_kafka_mock_topic_create(mc, "events", 1, 1);
  fl_err_t err;
  kf_msgs_t ms;
  kf_msgs_init(&ms);
  kf_consumer_t *c = NULL;
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s;
  int rc = fetch(mc, &ms, &c, &err);
  if (rc) t_fail(__FILE__, __LINE__, "fetch: %s", err.msg);
  if (!rc && ty_schema_parse(a,
                             "id long, part int, name string, off long, ts timestamptz, "
                             "topic string, hdrs map<string, binary>",
                             &s, &err))
    rc = 1;
  if (!rc) {
    st_kafka_meta_t meta[] = {ST_META_NONE,      ST_META_PARTITION, ST_META_NONE,   ST_META_OFFSET,
                              ST_META_TIMESTAMP, ST_META_TOPIC,     ST_META_HEADERS};
    st_kafka_decoder_t *d;
    CHECK_OK(st_kafka_decoder_new(s, meta, false, &d, &err), &err);
    ty_batch_t *b = ty_batch_new(s, 8);
    uint32_t next = 0;
    /* Strict: stops at "not json" (offset 3), naming it. */
    CHECK_ERR(st_kafka_decode(d, &ms, &next, b, &err), FL_EPARSE);
    CHECK(strstr(err.msg, "events[0] offset 3") != NULL);
    CHECK_EQ(next, 3);
    CHECK_EQ(b->nrows, 2); /* the tombstone gave no row */
    CHECK_EQ(st_kafka_decoder_skipped(d), 1);
    CHECK_EQ(TY_VEC_DATA(b->cols[0], int64_t)[1], 2);
    CHECK_EQ(TY_VEC_DATA(b->cols[3], int64_t)[1], 2); /* offset */
    CHECK_EQ(TY_VEC_DATA(b->cols[4], int64_t)[1], (1700000000000LL + 2) * 1000);
    CHECK_EQ(TY_VEC_DATA(b->cols[1], int32_t)[0], 0);
    size_t n;
    const uint8_t *p = ty_vec_get_bytes(b->cols[5], 0, &n);
    CHECK_EQ(n, 6);
    CHECK_MEM(p, "events", 6);
    ty_vec_t *h = b->cols[6];
    CHECK_EQ(h->offsets[1] - h->offsets[0], 1);
    p = ty_vec_get_bytes(h->children[0], 0, &n);
    CHECK_MEM(p, "trace", 5);
    p = ty_vec_get_bytes(h->children[1], 0, &n);
    CHECK_EQ(n, 2);
    CHECK_MEM(p, "t1", 2);
    st_kafka_decoder_free(d);
    /* Lenient: the bad value is skipped, the rest decoded. */
    CHECK_OK(st_kafka_decoder_new(s, meta, true, &d, &err), &err);
    ty_batch_reset(b);
    next = 0;
    CHECK_OK(st_kafka_decode(d, &ms, &next, b, &err), &err);
    CHECK_EQ(next, NVALUES);
    CHECK_EQ(b->nrows, 3);
    CHECK_EQ(st_kafka_decoder_skipped(d), 2);
    CHECK_EQ(TY_VEC_DATA(b->cols[0], int64_t)[2], 3);
    CHECK(ty_vec_is_null(b->cols[2], 2));
    CHECK_EQ(TY_VEC_DATA(b->cols[3], int64_t)[2], 4);
    st_kafka_decoder_free(d);
    ty_batch_free(b);
    /* A metadata column of the wrong type is refused. */
    ty_schema_t *s2;
    CHECK_OK(ty_schema_parse(a, "off string", &s2, &err), &err);
    st_kafka_meta_t m2[] = {ST_META_OFFSET};
    CHECK_ERR(st_kafka_decoder_new(s2, m2, false, &d, &err), FL_EINVALID);
    CHECK(strstr(err.msg, "long") != NULL);
    st_kafka_meta_t parsed;
    CHECK(st_kafka_meta_parse("timestamp-type", &parsed));
    CHECK_EQ(parsed, ST_META_TIMESTAMP_TYPE);
    CHECK(!st_kafka_meta_parse("leader", &parsed));
  }
  kf_msgs_free(&ms);
  kf_consumer_close(c);
  fl_arena_free(a);
  rd_kafka_mock_cluster_destroy(mc);
  rd_kafka_destroy(rk);
}
