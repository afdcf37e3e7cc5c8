/*
 * kafka_int.h - what the files of kafka/ share: the librdkafka handle of
 * a configuration and the mapping of librdkafka errors to fl_err_t
 * (private to kafka/).
 */
#ifndef FL_KAFKA_INT_H
#define FL_KAFKA_INT_H

#include <librdkafka/rdkafka.h>

#include "base/error.h"
#include "kafka/kafka_config.h"

struct kf_config {
  rd_kafka_conf_t *conf;
  bool offset_reset_set; /* auto.offset.reset was given (else the consumer uses "error") */
  bool idempotence_set;  /* enable.idempotence was given (else the producer turns it on) */
  bool queue_min_set;    /* queued.min.messages was given (else the consumer's is smaller) */
};

/* A copy of the configuration's librdkafka settings (the caller owns it). */
rd_kafka_conf_t *kf__conf_dup(const kf_config_t *c);

/*
 * Records a librdkafka error: transport, timeout, leader changes and the
 * like are retriable (a broker hiccup), the rest are not. The message is
 * "<what>: <librdkafka's text>".
 */
int kf__err(fl_err_t *err, rd_kafka_resp_err_t code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Whether librdkafka's code describes a passing condition. */
bool kf__retriable(rd_kafka_resp_err_t code);

#endif
