/*
 * kafka_config.c - librdkafka settings, Flink's 'properties.*' names and
 * the start-up options of a Kafka table (layer 9, kafka).
 *
 * Settings go straight into a rd_kafka_conf_t, so librdkafka validates each
 * name and value when it is set and the error points at the option that
 * was written. Flink passes 'properties.*' to the Java client; the names
 * below differ in librdkafka or do not exist there. Everything else is
 * passed through unchanged (bootstrap.servers, group.id, client.id,
 * security.protocol, sasl.mechanism, fetch.min.bytes, isolation.level,
 * acks, linger.ms, compression.type, ... are spelled the same).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "kafka/kafka_int.h"

kf_config_t *kf_config_new(void) {
  kf_config_t *c = fl_calloc(1, sizeof *c);
  c->conf = rd_kafka_conf_new();
  return c;
}

kf_config_t *kf_config_dup(const kf_config_t *c) {
  kf_config_t *d = fl_calloc(1, sizeof *d);
  d->conf = rd_kafka_conf_dup(c->conf);
  d->offset_reset_set = c->offset_reset_set;
  d->idempotence_set = c->idempotence_set;
  d->queue_min_set = c->queue_min_set;
  return d;
}

void kf_config_free(kf_config_t *c) {
  if (!c) return;
  rd_kafka_conf_destroy(c->conf);
  fl_free(c);
}

rd_kafka_conf_t *kf__conf_dup(const kf_config_t *c) { return rd_kafka_conf_dup(c->conf); }

/* Remembers settings whose floe default differs from librdkafka's. */
static void note_explicit(kf_config_t *c, const char *key) {
  if (strcmp(key, "auto.offset.reset") == 0) c->offset_reset_set = true;
  if (strcmp(key, "enable.idempotence") == 0) c->idempotence_set = true;
  if (strcmp(key, "queued.min.messages") == 0) c->queue_min_set = true;
}

int kf_config_set(kf_config_t *c, const char *key, const char *value, fl_err_t *err) {
  char errstr[512];
  if (rd_kafka_conf_set(c->conf, key, value, errstr, sizeof errstr) != RD_KAFKA_CONF_OK)
    return fl_err_set(err, FL_EINVALID, "kafka setting '%s': %s", key, errstr);
  note_explicit(c, key);
  return FL_OK;
}

bool kf_config_get(const kf_config_t *c, const char *key, char *buf, size_t size) {
  size_t n = size;
  return rd_kafka_conf_get(c->conf, key, buf, &n) == RD_KAFKA_CONF_OK;
}

/* Java client names spelled differently in librdkafka. */
static const struct {
  const char *java, *rdkafka;
} renamed[] = {
    {"fetch.max.wait.ms", "fetch.wait.max.ms"},
    {"receive.buffer.bytes", "socket.receive.buffer.bytes"},
    {"send.buffer.bytes", "socket.send.buffer.bytes"},
    {"max.in.flight.requests.per.connection", "max.in.flight"},
    {"delivery.timeout.ms", "message.timeout.ms"},
    {"max.request.size", "message.max.bytes"},
};

/* Java-only settings with no meaning for this client: accepted, ignored. */
static const char *const java_only[] = {
    "key.deserializer",
    "value.deserializer",
    "key.serializer",
    "value.serializer",
    "max.poll.records",
    "client.dns.lookup",
    "default.api.timeout.ms",
    "buffer.memory",
    "interceptor.classes",
    "metric.reporters",
    "flink.partition-discovery.interval-millis",
};

/* Settings that name Java key stores: librdkafka reads PEM files instead. */
static const struct {
  const char *java, *hint;
} refused[] = {
    {"ssl.truststore.location", "use properties.ssl.ca.location with a PEM file"},
    {"ssl.truststore.password", "use properties.ssl.ca.location with a PEM file"},
    {"ssl.truststore.type", "use properties.ssl.ca.location with a PEM file"},
    {"ssl.keystore.location",
     "use properties.ssl.certificate.location and properties.ssl.key.location (PEM)"},
    {"ssl.keystore.type",
     "use properties.ssl.certificate.location and properties.ssl.key.location (PEM)"},
    {"sasl.login.callback.handler.class", "no Java callback classes can run here"},
};

/* Finds name="value" (or name='value') in a JAAS line and copies value. */
static bool jaas_value(const char *jaas, const char *name, char *out, size_t size) {
  size_t nl = strlen(name);
  for (const char *p = jaas; (p = strstr(p, name)) != NULL; p += nl) {
    if (p > jaas && p[-1] != ' ' && p[-1] != '\t') continue;
    const char *q = p + nl;
    while (*q == ' ') q++;
    if (*q != '=') continue;
    q++;
    while (*q == ' ') q++;
    char quote = *q;
    if (quote != '"' && quote != '\'') continue;
    const char *end = strchr(q + 1, quote);
    if (!end || (size_t)(end - q - 1) >= size) return false;
    memcpy(out, q + 1, (size_t)(end - q - 1));
    out[end - q - 1] = 0;
    return true;
  }
  return false;
}

static int set_jaas(kf_config_t *c, const char *jaas, fl_err_t *err) {
  if (!strstr(jaas, "PlainLoginModule") && !strstr(jaas, "ScramLoginModule"))
    return fl_err_set(err, FL_EUNSUPPORTED,
                      "properties.sasl.jaas.config: only the PLAIN and SCRAM login modules can "
                      "be mapped (use properties.sasl.username and properties.sasl.password)");
  char user[256], pass[256];
  if (!jaas_value(jaas, "username", user, sizeof user) ||
      !jaas_value(jaas, "password", pass, sizeof pass))
    return fl_err_set(err, FL_EINVALID,
                      "properties.sasl.jaas.config: expected username=\"...\" and "
                      "password=\"...\"");
  int rc = kf_config_set(c, "sasl.username", user, err);
  if (!rc) rc = kf_config_set(c, "sasl.password", pass, err);
  return rc;
}

int kf_config_set_flink(kf_config_t *c, const char *option, const char *value, bool *ignored,
                        fl_err_t *err) {
  static const char prefix[] = "properties.";
  if (ignored) *ignored = false;
  if (strncmp(option, prefix, sizeof prefix - 1) != 0 || !option[sizeof prefix - 1])
    return fl_err_set(err, FL_EINVALID, "'%s' is not a 'properties.*' option", option);
  const char *key = option + sizeof prefix - 1;
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
    if (strcmp(key, refused[i].java) == 0)
      return fl_err_set(err, FL_EUNSUPPORTED, "'%s': Java key stores are not supported: %s", option,
                        refused[i].hint);
  for (size_t i = 0; i < sizeof java_only / sizeof java_only[0]; i++)
    if (strcmp(key, java_only[i]) == 0) {
      if (ignored) *ignored = true;
      return FL_OK;
    }
  if (strcmp(key, "sasl.jaas.config") == 0) return set_jaas(c, value, err);
  if (strcmp(key, "auto.offset.reset") == 0 && strcmp(value, "none") == 0) value = "error";
  if (strcmp(key, "ssl.endpoint.identification.algorithm") == 0 && !*value) value = "none";
  for (size_t i = 0; i < sizeof renamed / sizeof renamed[0]; i++)
    if (strcmp(key, renamed[i].java) == 0) {
      key = renamed[i].rdkafka;
      break;
    }
  char errstr[512];
  if (rd_kafka_conf_set(c->conf, key, value, errstr, sizeof errstr) != RD_KAFKA_CONF_OK)
    return fl_err_set(err, FL_EINVALID, "'%s': %s", option, errstr);
  note_explicit(c, key);
  return FL_OK;
}

/* Parses a decimal int64 filling all of s; false otherwise. */
static bool parse_i64(const char *s, size_t n, int64_t *out) {
  if (n == 0 || n > 19) return false;
  int64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    if (v > (INT64_MAX - (s[i] - '0')) / 10) return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

/* One "partition:P,offset:O" entry of s[0,n). */
static int parse_specific_entry(const char *s, size_t n, int64_t *part, int64_t *off,
                                fl_err_t *err) {
  static const char p1[] = "partition:", p2[] = ",offset:";
  const char *comma = memchr(s, ',', n);
  if (n < sizeof p1 - 1 || memcmp(s, p1, sizeof p1 - 1) != 0 || !comma ||
      (size_t)(s + n - comma) < sizeof p2 - 1 || memcmp(comma, p2, sizeof p2 - 1) != 0 ||
      !parse_i64(s + sizeof p1 - 1, (size_t)(comma - s - (sizeof p1 - 1)), part) ||
      !parse_i64(comma + sizeof p2 - 1, (size_t)(s + n - comma - (sizeof p2 - 1)), off))
    return fl_err_set(err, FL_EINVALID,
                      "scan.startup.specific-offsets: '%.*s' is not 'partition:P,offset:O'", (int)n,
                      s);
  return FL_OK;
}

int kf_startup_parse(const char *mode, const char *timestamp_millis, const char *specific,
                     uint32_t npartitions, kf_position_t *pos, fl_err_t *err) {
  kf_position_t all = {.kind = KF_POS_GROUP, .fallback = KF_POS_EARLIEST};
  if (!mode || strcmp(mode, "group-offsets") == 0) {
  } else if (strcmp(mode, "earliest-offset") == 0) {
    all.kind = KF_POS_EARLIEST;
  } else if (strcmp(mode, "latest-offset") == 0) {
    all.kind = KF_POS_LATEST;
  } else if (strcmp(mode, "timestamp") == 0) {
    if (!timestamp_millis || !parse_i64(timestamp_millis, strlen(timestamp_millis), &all.value))
      return fl_err_set(err, FL_EINVALID,
                        "scan.startup.mode 'timestamp' needs scan.startup.timestamp-millis as "
                        "milliseconds since the epoch (got %s%s%s)",
                        timestamp_millis ? "'" : "", timestamp_millis ? timestamp_millis : "none",
                        timestamp_millis ? "'" : "");
    all.kind = KF_POS_TIMESTAMP;
  } else if (strcmp(mode, "specific-offsets") == 0) {
    if (!specific || !*specific)
      return fl_err_set(err, FL_EINVALID,
                        "scan.startup.mode 'specific-offsets' needs scan.startup.specific-offsets");
  } else {
    return fl_err_set(err, FL_EINVALID,
                      "scan.startup.mode '%s': expected earliest-offset, latest-offset, "
                      "group-offsets, timestamp or specific-offsets",
                      mode);
  }
  for (uint32_t i = 0; i < npartitions; i++) pos[i] = all;
  if (mode && strcmp(mode, "specific-offsets") == 0) {
    const char *s = specific;
    while (*s) {
      const char *semi = strchr(s, ';');
      size_t n = semi ? (size_t)(semi - s) : strlen(s);
      int64_t part = 0, off = 0;
      if (n > 0) {
        if (parse_specific_entry(s, n, &part, &off, err)) return err ? err->code : FL_EINVALID;
        if (part >= npartitions)
          return fl_err_set(err, FL_EINVALID,
                            "scan.startup.specific-offsets: partition %lld does not exist (the "
                            "topic has %u)",
                            (long long)part, npartitions);
        pos[part] = (kf_position_t){.kind = KF_POS_OFFSET, .value = off};
      }
      s += n + (semi ? 1 : 0);
    }
  }
  return FL_OK;
}

bool kf__retriable(rd_kafka_resp_err_t code) {
  switch (code) {
    case RD_KAFKA_RESP_ERR__TRANSPORT:
    case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
    case RD_KAFKA_RESP_ERR__TIMED_OUT:
    case RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE:
    case RD_KAFKA_RESP_ERR__MSG_TIMED_OUT:
    case RD_KAFKA_RESP_ERR__QUEUE_FULL:
    case RD_KAFKA_RESP_ERR__WAIT_COORD:
    case RD_KAFKA_RESP_ERR__RESOLVE:
    case RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED:
    case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
    case RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION:
    case RD_KAFKA_RESP_ERR_BROKER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION:
    case RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_COORDINATOR:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case RD_KAFKA_RESP_ERR_FENCED_LEADER_EPOCH:
    case RD_KAFKA_RESP_ERR_UNKNOWN_LEADER_EPOCH:
    case RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR:
    case RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_THROTTLING_QUOTA_EXCEEDED: return true;
    default: return false;
  }
}

int kf__err(fl_err_t *err, rd_kafka_resp_err_t code, const char *fmt, ...) {
  char what[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  int fl;
  switch (code) {
    case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
    case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
    case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION: fl = FL_ENOTFOUND; break;
    case RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS: fl = FL_EEXISTS; break;
    case RD_KAFKA_RESP_ERR__INVALID_ARG:
    case RD_KAFKA_RESP_ERR_INVALID_PARTITIONS:
    case RD_KAFKA_RESP_ERR_INVALID_REPLICATION_FACTOR:
    case RD_KAFKA_RESP_ERR_INVALID_CONFIG:
    case RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION: fl = FL_EINVALID; break;
    case RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE:
    case RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET: fl = FL_ENOTFOUND; break;
    case RD_KAFKA_RESP_ERR_INVALID_MSG:
    case RD_KAFKA_RESP_ERR__BAD_MSG:
    case RD_KAFKA_RESP_ERR__BAD_COMPRESSION: fl = FL_ECORRUPT; break;
    case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE: fl = FL_ELIMIT; break;
    default: fl = FL_EIO;
  }
  if (kf__retriable(code))
    return fl_err_set_retriable(err, fl, "%s: %s", what, rd_kafka_err2str(code));
  return fl_err_set(err, fl, "%s: %s", what, rd_kafka_err2str(code));
}
