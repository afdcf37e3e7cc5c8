/*
 * cmd_kafka.c - `floe kafka`: topics, producing and consuming messages,
 * offsets and lag, and feeding Nexmark events into topics (layer 12, cli).
 *
 * These drive the Kafka layer from the shell, for the demo, the tests and
 * the benchmarks. Messages print as JSON lines; consumed positions are
 * exact (explicit partition assignment, see kafka/kafka_consumer.h).
 */
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/metrics.h"
#include "base/time.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/observe.h"
#include "cli/rows_out.h"
#include "format/text_parse.h"
#include "kafka/kafka_config.h"
#include "kafka/kafka_consumer.h"
#include "kafka/kafka_producer.h"
#include "stream/st_kafka_decode.h"
#include "stream/st_kafka_metrics.h"
#include "stream/st_nexmark.h"
#include "stream/st_progress.h"

extern const cli_command_t cli_cmd_kafka;

#define KAFKA_COMMON_SPECS \
  {"brokers", true}, {"set", true}, { "timeout-ms", true }

/* Builds a configuration from --brokers and --set NAME=VALUE (Java client
 * names, as in Flink's 'properties.*'). */
static int make_config(const cli_args_t *a, kf_config_t **out) {
  fl_err_t err;
  fl_err_clear(&err);
  const char *brokers = cli_args_get(a, "brokers");
  if (!brokers) return cli_usage_error(&cli_cmd_kafka, "--brokers HOST:PORT is required");
  kf_config_t *c = kf_config_new();
  int rc = kf_config_set(c, "bootstrap.servers", brokers, &err);
  for (int i = 0; !rc && i < a->nopts; i++) {
    if (strcmp(a->names[i], "set") != 0) continue;
    const char *kv = a->values[i], *eq = strchr(kv, '=');
    if (!eq) {
      kf_config_free(c);
      return cli_usage_error(&cli_cmd_kafka, "--set needs NAME=VALUE, got '%s'", kv);
    }
    char key[256];
    snprintf(key, sizeof key, "properties.%.*s", (int)(eq - kv), kv);
    rc = kf_config_set_flink(c, key, eq + 1, NULL, &err);
  }
  if (rc) {
    kf_config_free(c);
    return cli_fail("kafka", "%s", err.msg);
  }
  *out = c;
  return 0;
}

/* Whether a --set NAME=VALUE option named this property. */
static bool set_by_user(const cli_args_t *a, const char *name) {
  size_t n = strlen(name);
  for (int i = 0; i < a->nopts; i++)
    if (!strcmp(a->names[i], "set") && !strncmp(a->values[i], name, n) && a->values[i][n] == '=')
      return true;
  return false;
}

static bool get_i64(const cli_args_t *a, const char *name, int64_t *out) {
  const char *v = cli_args_get(a, name);
  if (!v) return true;
  return tp_parse_i64(v, strlen(v), out);
}

static int timeout_of(const cli_args_t *a) {
  int64_t t = 30000;
  if (!get_i64(a, "timeout-ms", &t) || t < 0 || t > 3600000) t = 30000;
  return (int)t;
}

static const char *need_topic(const cli_args_t *a) {
  const char *t = cli_args_get(a, "topic");
  if (!t) cli_usage_error(&cli_cmd_kafka, "--topic is required");
  return t;
}

/* ---- create-topic, delete-topic ---- */

static int run_topic(int argc, char **argv, bool create) {
  static const cli_opt_spec_t specs[] = {KAFKA_COMMON_SPECS,       {"topic", true},
                                         {"partitions", true},     {"replication", true},
                                         {"if-not-exists", false}, {0, false}};
  cli_args_t a;
  if (cli_args_parse("kafka", argc, argv, specs, &a)) return 2;
  const char *topic = need_topic(&a);
  if (!topic) return 2;
  int64_t parts = 1, repl = 1;
  if (!get_i64(&a, "partitions", &parts) || parts < 1 || parts > 100000)
    return cli_usage_error(&cli_cmd_kafka, "--partitions needs a number from 1");
  if (!get_i64(&a, "replication", &repl) || repl < 1 || repl > 32)
    return cli_usage_error(&cli_cmd_kafka, "--replication needs a number from 1");
  kf_config_t *c;
  int st = make_config(&a, &c);
  if (st) return st;
  fl_err_t err;
  fl_err_clear(&err);
  int rc = create ? kf_create_topic(c, topic, (int32_t)parts, (int16_t)repl, timeout_of(&a), &err)
                  : kf_delete_topic(c, topic, timeout_of(&a), &err);
  kf_config_free(c);
  if (rc == FL_EEXISTS && create && cli_args_flag(&a, "if-not-exists")) return 0;
  if (rc) return cli_fail("kafka", "%s", err.msg);
  return 0;
}

/* ---- produce ---- */

/* Parses one --records line into r; strings point into the JSON object. */
static int record_from_json(json_t *o, const char *topic, kf_record_t *r, kf_header_t *hdrs,
                            uint32_t max_hdrs, char *why, size_t whysz) {
  memset(r, 0, sizeof *r);
  r->topic = topic;
  r->partition = -1;
  if (!json_is_object(o)) return snprintf(why, whysz, "expected a JSON object"), -1;
  json_t *k = json_object_get(o, "key"), *v = json_object_get(o, "value");
  json_t *p = json_object_get(o, "partition"), *t = json_object_get(o, "timestamp");
  json_t *h = json_object_get(o, "headers");
  if (k && !json_is_null(k)) {
    if (!json_is_string(k)) return snprintf(why, whysz, "\"key\" must be a string or null"), -1;
    r->key = json_string_value(k);
    r->key_len = json_string_length(k);
  }
  if (v && !json_is_null(v)) {
    if (json_is_string(v)) {
      r->value = json_string_value(v);
      r->value_len = json_string_length(v);
    } else {
      return snprintf(why, whysz, "\"value\" must be a string or null"), -1;
    }
  }
  if (p && !json_is_null(p)) {
    if (!json_is_integer(p) || json_integer_value(p) < 0)
      return snprintf(why, whysz, "\"partition\" must be a non-negative integer"), -1;
    r->partition = (int32_t)json_integer_value(p);
  }
  if (t && !json_is_null(t)) {
    if (!json_is_integer(t) || json_integer_value(t) <= 0)
      return snprintf(why, whysz, "\"timestamp\" must be milliseconds since the epoch"), -1;
    r->timestamp_ms = json_integer_value(t);
  }
  if (h && !json_is_null(h)) {
    if (!json_is_array(h))
      return snprintf(why, whysz, "\"headers\" must be an array of [name, value]"), -1;
    size_t i;
    json_t *e;
    json_array_foreach(h, i, e) {
      if (r->nheaders == max_hdrs)
        return snprintf(why, whysz, "more than %u headers", max_hdrs), -1;
      json_t *hn = json_array_get(e, 0), *hv = json_array_get(e, 1);
      if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_string(hn) ||
          !(json_is_string(hv) || json_is_null(hv)))
        return snprintf(why, whysz, "header %zu must be [\"name\", \"value\" or null]", i), -1;
      hdrs[r->nheaders].name = json_string_value(hn);
      hdrs[r->nheaders].value = json_is_null(hv) ? NULL : json_string_value(hv);
      hdrs[r->nheaders].len = json_is_null(hv) ? 0 : json_string_length(hv);
      r->nheaders++;
    }
    r->headers = hdrs;
  }
  return 0;
}

static int run_produce(int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {
      KAFKA_COMMON_SPECS, {"topic", true}, {"partition", true}, {"records", false}, {0, false}};
  cli_args_t a;
  if (cli_args_parse("kafka", argc, argv, specs, &a)) return 2;
  const char *topic = need_topic(&a);
  if (!topic) return 2;
  int64_t part = -1;
  if (!get_i64(&a, "partition", &part) || part < -1 || part > INT32_MAX)
    return cli_usage_error(&cli_cmd_kafka, "--partition needs a partition number");
  bool records = cli_args_flag(&a, "records");
  kf_config_t *c;
  int st = make_config(&a, &c);
  if (st) return st;
  fl_err_t err;
  fl_err_clear(&err);
  kf_producer_t *p;
  if (kf_producer_open(c, &p, &err)) {
    kf_config_free(c);
    return cli_fail("kafka", "%s", err.msg);
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  uint64_t lineno = 0, sent = 0;
  int status = 0;
  kf_header_t hdrs[64];
  while ((len = getline(&line, &cap, stdin)) >= 0) {
    lineno++;
    if (len > 0 && line[len - 1] == '\n') line[--len] = 0;
    kf_record_t r = {
        .topic = topic, .partition = (int32_t)part, .value = line, .value_len = (size_t)len};
    json_t *o = NULL;
    if (records) {
      json_error_t je;
      o = json_loadb(line, (size_t)len, JSON_ALLOW_NUL, &je);
      char why[256];
      if (!o) {
        status = cli_fail("kafka", "stdin line %llu: %s", (unsigned long long)lineno, je.text);
        break;
      }
      if (record_from_json(o, topic, &r, hdrs, 64, why, sizeof why)) {
        json_decref(o);
        status = cli_fail("kafka", "stdin line %llu: %s", (unsigned long long)lineno, why);
        break;
      }
      if (r.partition < 0) r.partition = (int32_t)part;
    }
    int rc = kf_producer_send(p, &r, &err);
    json_decref(o);
    if (rc) {
      status = cli_fail("kafka", "stdin line %llu: %s", (unsigned long long)lineno, err.msg);
      break;
    }
    sent++;
  }
  free(line);
  if (!status && kf_producer_flush(p, timeout_of(&a), &err))
    status = cli_fail("kafka", "%s", err.msg);
  if (!status) fprintf(stderr, "produced %llu messages to %s\n", (unsigned long long)sent, topic);
  kf_producer_close(p);
  kf_config_free(c);
  return status;
}

/* ---- consume ---- */

static json_t *json_bytes(const void *p, size_t n) {
  if (!p) return json_null();
  if (tp_utf8_valid_prefix(p, n) == n) return json_stringn(p, n);
  /* Not text: hex, marked so that it cannot be mistaken for a value. */
  fl_buf_t b;
  fl_buf_init(&b);
  fl_buf_append_str(&b, "hex:");
  for (size_t i = 0; i < n; i++) fl_buf_printf(&b, "%02x", ((const uint8_t *)p)[i]);
  json_t *s = json_stringn((const char *)b.data, b.len);
  fl_buf_free(&b);
  return s;
}

static void print_msg(const kf_msg_t *m) {
  static const char *const ts_names[] = {"none", "create", "log-append"};
  json_t *o = json_object();
  json_object_set_new(o, "topic", json_string(m->topic));
  json_object_set_new(o, "partition", json_integer(m->partition));
  json_object_set_new(o, "offset", json_integer(m->offset));
  json_object_set_new(o, "timestamp", json_integer(m->timestamp_ms));
  json_object_set_new(o, "timestamp_type", json_string(ts_names[m->ts_type]));
  json_object_set_new(o, "key", json_bytes(m->key, m->key_len));
  json_object_set_new(o, "value", json_bytes(m->value, m->value_len));
  json_t *h = json_array();
  uint32_t nh = kf_msg_header_count(m);
  for (uint32_t i = 0; i < nh; i++) {
    const char *name;
    const void *val;
    size_t len;
    if (!kf_msg_header(m, i, &name, &val, &len)) continue;
    json_t *pair = json_array();
    json_array_append_new(pair, json_string(name));
    json_array_append_new(pair, json_bytes(val, len));
    json_array_append_new(h, pair);
  }
  json_object_set_new(o, "headers", h);
  char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
  fputs(s, stdout);
  fputc('\n', stdout);
  free(s);
  json_decref(o);
}

/* consume --schema: message values decoded into rows of a table. */
typedef struct rows {
  fl_arena_t *arena;
  ty_schema_t *schema;
  st_kafka_decoder_t *dec;
  ty_batch_t *batch;
  cli_out_t *out;
} rows_t;

/* --metadata 'col:key,col:key' names the columns filled from message
 * metadata (keys as Flink's METADATA FROM: offset, partition, ...). */
static int rows_open(rows_t *r, const char *schema, const char *metadata, const char *format,
                     bool ignore_errors, fl_err_t *err) {
  cli_fmt_t fmt = CLI_FMT_JSONL;
  if (format && !cli_fmt_parse(format, &fmt))
    return fl_err_set(err, FL_EINVALID, "--format '%s': expected table, csv or jsonl", format);
  r->arena = fl_arena_new(0);
  if (ty_schema_parse(r->arena, schema, &r->schema, err)) return fl_err_prefix(err, "--schema: ");
  uint32_t n = r->schema->root.nfields;
  st_kafka_meta_t *meta = fl_arena_zalloc(r->arena, (n ? n : 1) * sizeof *meta);
  for (const char *s = metadata; s && *s;) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    const char *colon = memchr(s, ':', len);
    if (!colon)
      return fl_err_set(err, FL_EINVALID, "--metadata: '%.*s' is not COLUMN:KEY", (int)len, s);
    char *col = fl_arena_strndup(r->arena, s, (size_t)(colon - s));
    char *key = fl_arena_strndup(r->arena, colon + 1, len - (size_t)(colon - s) - 1);
    int idx = ty_schema_find_name(r->schema, col);
    if (idx < 0) return fl_err_set(err, FL_EINVALID, "--metadata: no column '%s' in --schema", col);
    if (!st_kafka_meta_parse(key, &meta[idx]))
      return fl_err_set(err, FL_EINVALID,
                        "--metadata: '%s' is not a metadata key (topic, partition, offset, "
                        "timestamp, timestamp-type, headers)",
                        key);
    s += len + (comma ? 1 : 0);
  }
  if (st_kafka_decoder_new(r->schema, meta, ignore_errors, &r->dec, err)) return err->code;
  r->batch = ty_batch_new(r->schema, TY_BATCH_ROWS);
  const char **names = fl_arena_zalloc(r->arena, (n ? n : 1) * sizeof *names);
  for (uint32_t i = 0; i < n; i++) names[i] = r->schema->root.fields[i].name;
  r->out = cli_out_new(fmt, stdout, names, n);
  return FL_OK;
}

static int rows_print(rows_t *r, const kf_msgs_t *msgs, fl_err_t *err) {
  uint32_t next = 0;
  while (next < msgs->n) {
    ty_batch_reset(r->batch);
    int rc = st_kafka_decode(r->dec, msgs, &next, r->batch, err);
    cli_out_batch(r->out, r->batch);
    if (rc) return rc;
  }
  return FL_OK;
}

static void rows_close(rows_t *r) {
  if (r->out) cli_out_finish(r->out);
  if (r->dec && st_kafka_decoder_skipped(r->dec))
    fprintf(stderr, "skipped %llu messages (null or not decodable)\n",
            (unsigned long long)st_kafka_decoder_skipped(r->dec));
  st_kafka_decoder_free(r->dec);
  ty_batch_free(r->batch);
  fl_arena_free(r->arena);
}

/* --from: earliest | latest | group | offset:N | timestamp:MS. */
static bool parse_from(const char *v, kf_position_t *pos) {
  *pos = (kf_position_t){.kind = KF_POS_EARLIEST};
  if (!v || strcmp(v, "earliest") == 0) return true;
  if (strcmp(v, "latest") == 0) return pos->kind = KF_POS_LATEST, true;
  if (strcmp(v, "group") == 0)
    return *pos = (kf_position_t){.kind = KF_POS_GROUP, .fallback = KF_POS_EARLIEST}, true;
  if (strncmp(v, "offset:", 7) == 0)
    return pos->kind = KF_POS_OFFSET,
           tp_parse_i64(v + 7, strlen(v + 7), &pos->value) && pos->value >= 0;
  if (strncmp(v, "timestamp:", 10) == 0)
    return pos->kind = KF_POS_TIMESTAMP, tp_parse_i64(v + 10, strlen(v + 10), &pos->value);
  return false;
}

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

/* consume's observability: the metrics registry and its HTTP endpoint
 * (--metrics-port, --metrics-bind), the structured log (--log-file,
 * --log-level) and the progress line on a terminal stderr. */
typedef struct watch {
  cli_observe_t obs;
  st_kafka_metrics_t *km;
  st_progress_t *progress;
} watch_t;

static void watch_close(watch_t *w) {
  st_progress_finish(w->progress, fl_monotonic_ns());
  st_kafka_metrics_free(w->km);
  cli_observe_close(&w->obs);
}

static int run_consume(int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {KAFKA_COMMON_SPECS,
                                         {"topic", true},
                                         {"partitions", true},
                                         {"from", true},
                                         {"group", true},
                                         {"count", true},
                                         {"idle-ms", true},
                                         {"until-end", false},
                                         {"commit", false},
                                         {"max-batch", true},
                                         {"startup-mode", true},
                                         {"specific-offsets", true},
                                         {"startup-timestamp", true},
                                         {"schema", true},
                                         {"metadata", true},
                                         {"format", true},
                                         {"ignore-parse-errors", false},
                                         {"summary", false},
                                         CLI_OBSERVE_SPECS,
                                         {0, false}};
  cli_args_t a;
  if (cli_args_parse("kafka", argc, argv, specs, &a)) return 2;
  const char *topic = need_topic(&a);
  if (!topic) return 2;
  int64_t count = -1, idle_ms = 10000, max_batch = 500;
  if (!get_i64(&a, "count", &count) || (cli_args_get(&a, "count") && count < 0))
    return cli_usage_error(&cli_cmd_kafka, "--count needs a number");
  if (!get_i64(&a, "idle-ms", &idle_ms) || idle_ms < 0)
    return cli_usage_error(&cli_cmd_kafka, "--idle-ms needs milliseconds");
  if (!get_i64(&a, "max-batch", &max_batch) || max_batch < 1 || max_batch > 100000)
    return cli_usage_error(&cli_cmd_kafka, "--max-batch needs a number from 1 to 100000");
  /* --summary: read without printing, then one line of totals; what
   * reading a topic costs by itself, below any job over it. */
  bool summary = cli_args_flag(&a, "summary");
  if (summary && cli_args_get(&a, "schema"))
    return cli_usage_error(&cli_cmd_kafka, "--summary prints no rows: leave out --schema");
  kf_position_t from;
  if (!parse_from(cli_args_get(&a, "from"), &from))
    return cli_usage_error(&cli_cmd_kafka,
                           "--from: expected earliest, latest, group, offset:N or timestamp:MS");
  kf_config_t *c;
  int st = make_config(&a, &c);
  if (st) return st;
  fl_err_t err;
  fl_err_clear(&err);
  const char *group = cli_args_get(&a, "group");
  if (group && kf_config_set(c, "group.id", group, &err)) {
    kf_config_free(c);
    return cli_fail("kafka", "%s", err.msg);
  }
  int status = 1;
  kf_consumer_t *k = NULL;
  int32_t nparts = 0;
  int32_t *parts = NULL;
  kf_position_t *pos = NULL;
  int64_t *ends = NULL;
  kf_msgs_t msgs;
  kf_msgs_init(&msgs);
  rows_t rows = {0};
  watch_t w = {0};
  const char *stop_reason = "count"; /* why the loop ended; an error overrides it */
  int timeout = timeout_of(&a);
  if (cli_observe_open(&w.obs, &a, false, &err)) goto fail;
  FL_LOG(w.obs.log, FL_LOG_INFO, "consumer starting", FL_LF_STR("topic", topic),
         FL_LF_STR("brokers", cli_args_get(&a, "brokers")), FL_LF_STR("group", group));
  if (kf_consumer_open(c, &k, &err)) goto fail;
  if (kf_consumer_partitions(k, topic, timeout, &nparts, &err)) goto fail;
  parts = calloc((size_t)nparts + 1, sizeof *parts);
  pos = calloc((size_t)nparts + 1, sizeof *pos);
  ends = calloc((size_t)nparts + 1, sizeof *ends);
  int32_t nsel = 0;
  const char *list = cli_args_get(&a, "partitions");
  if (list) {
    for (const char *s = list; *s;) {
      const char *comma = strchr(s, ',');
      size_t n = comma ? (size_t)(comma - s) : strlen(s);
      int64_t p;
      if (!tp_parse_i64(s, n, &p) || p < 0 || p >= nparts || nsel == nparts) {
        fl_err_set(&err, FL_EINVALID, "--partitions: '%.*s' is not a partition of %s (0..%d)",
                   (int)n, s, topic, nparts - 1);
        goto fail;
      }
      parts[nsel++] = (int32_t)p;
      s += n + (comma ? 1 : 0);
    }
  } else {
    for (int32_t i = 0; i < nparts; i++) parts[nsel++] = i;
  }
  const char *mode = cli_args_get(&a, "startup-mode");
  if (mode) {
    /* Flink's scan.startup.* options, for every partition of the topic. */
    kf_position_t *all = calloc((size_t)nparts + 1, sizeof *all);
    if (kf_startup_parse(mode, cli_args_get(&a, "startup-timestamp"),
                         cli_args_get(&a, "specific-offsets"), (uint32_t)nparts, all, &err)) {
      free(all);
      goto fail;
    }
    for (int32_t i = 0; i < nsel; i++) pos[i] = all[parts[i]];
    free(all);
  } else {
    for (int32_t i = 0; i < nsel; i++) pos[i] = from;
  }
  if (kf_consumer_assign(k, topic, parts, pos, (uint32_t)nsel, timeout, &err)) goto fail;
  for (int32_t i = 0; i < nsel; i++) {
    int64_t at = -1;
    kf_consumer_position(k, topic, parts[i], &at, NULL);
    FL_LOG(w.obs.log, FL_LOG_INFO, "partition assigned", FL_LF_STR("topic", topic),
           FL_LF_INT("partition", parts[i]), FL_LF_INT("offset", at));
  }
  if (st_kafka_metrics_new(w.obs.reg, k, &w.km, &err)) goto fail;
  /* Lag from the broker's watermarks now; later from fetch responses. */
  if (st_kafka_metrics_lag(w.km, k, true, timeout, &err)) goto fail;
  if (!cli_args_flag(&a, "no-progress") && !isatty(STDOUT_FILENO))
    w.progress = st_progress_new(w.obs.reg, stderr, isatty(STDERR_FILENO), NULL);
  if (cli_args_get(&a, "schema") &&
      rows_open(&rows, cli_args_get(&a, "schema"), cli_args_get(&a, "metadata"),
                cli_args_get(&a, "format"), cli_args_flag(&a, "ignore-parse-errors"), &err))
    goto fail;
  bool until_end = cli_args_flag(&a, "until-end");
  for (int32_t i = 0; until_end && i < nsel; i++) {
    int64_t low;
    if (kf_consumer_watermarks(k, topic, parts[i], true, timeout, &low, &ends[i], &err)) goto fail;
  }
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  int64_t got = 0, bytes = 0, idle_since = fl_monotonic_ns();
  while (!stop_requested && (count < 0 || got < count)) {
    if (until_end) {
      bool done = true;
      for (int32_t i = 0; i < nsel && done; i++) {
        int64_t p;
        kf_consumer_position(k, topic, parts[i], &p, &err);
        if (p < ends[i]) done = false;
      }
      if (done) {
        stop_reason = "end";
        break;
      }
    }
    uint32_t want = (uint32_t)max_batch;
    if (count >= 0 && count - got < want) want = (uint32_t)(count - got);
    int64_t poll_start = fl_monotonic_ns();
    if (kf_consumer_poll(k, &msgs, want, 200, &err)) goto fail;
    st_kafka_metrics_poll(w.km, &msgs, (double)(fl_monotonic_ns() - poll_start) / 1e9);
    st_kafka_metrics_lag(w.km, k, false, 0, NULL);
    st_progress_tick(w.progress, fl_monotonic_ns());
    if (rows.dec) {
      if (rows_print(&rows, &msgs, &err)) goto fail;
    } else if (summary) {
      for (uint32_t i = 0; i < msgs.n; i++) bytes += msgs.msgs[i].value_len;
    } else {
      for (uint32_t i = 0; i < msgs.n; i++) print_msg(&msgs.msgs[i]);
    }
    if (!summary) fflush(stdout);
    got += msgs.n;
    int64_t now = fl_monotonic_ns();
    if (msgs.n) {
      idle_since = now;
      if (cli_args_flag(&a, "commit") && kf_consumer_commit(k, &err)) goto fail;
    } else if (idle_ms > 0 && (now - idle_since) / 1000000 >= idle_ms) {
      if (count >= 0) {
        fl_err_set_retriable(&err, FL_EIO, "got %lld of %lld messages, then none for %lld ms",
                             (long long)got, (long long)count, (long long)idle_ms);
        goto fail;
      }
      stop_reason = "idle";
      break;
    }
  }
  if (stop_requested) stop_reason = "signal";
  if (summary)
    printf("{\"messages\":%lld,\"value_bytes\":%lld}\n", (long long)got, (long long)bytes);
  kf_msgs_clear(&msgs);
  if (cli_args_flag(&a, "commit") && group && kf_consumer_commit(k, &err)) goto fail;
  status = 0;
fail:
  if (status) cli_fail("kafka", "%s", err.msg);
  if (status) stop_reason = "error";
  if (status && w.obs.log)
    FL_LOG(w.obs.log, FL_LOG_ERROR, "consumer failed", FL_LF_STR("topic", topic),
           FL_LF_STR("error", err.msg));
  FL_LOG(w.obs.log, FL_LOG_INFO, "consumer stopped", FL_LF_STR("topic", topic),
         FL_LF_STR("reason", stop_reason),
         FL_LF_UINT("records", w.km ? st_kafka_metrics_records(w.km) : 0),
         FL_LF_UINT("bytes", w.km ? st_kafka_metrics_bytes(w.km) : 0));
  watch_close(&w);
  rows_close(&rows);
  kf_msgs_free(&msgs);
  kf_consumer_close(k);
  kf_config_free(c);
  free(parts);
  free(pos);
  free(ends);
  return status;
}

/* ---- offsets ---- */

static int run_offsets(int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {
      KAFKA_COMMON_SPECS, {"topic", true}, {"group", true}, {0, false}};
  cli_args_t a;
  if (cli_args_parse("kafka", argc, argv, specs, &a)) return 2;
  const char *topic = need_topic(&a);
  if (!topic) return 2;
  kf_config_t *c;
  int st = make_config(&a, &c);
  if (st) return st;
  fl_err_t err;
  fl_err_clear(&err);
  const char *group = cli_args_get(&a, "group");
  int status = 1, timeout = timeout_of(&a);
  kf_consumer_t *k = NULL;
  int32_t n;
  if (group && kf_config_set(c, "group.id", group, &err)) goto fail;
  if (kf_consumer_open(c, &k, &err)) goto fail;
  if (kf_consumer_partitions(k, topic, timeout, &n, &err)) goto fail;
  for (int32_t p = 0; p < n; p++) {
    int64_t low, high, committed = -1;
    if (kf_consumer_watermarks(k, topic, p, true, timeout, &low, &high, &err)) goto fail;
    if (group && kf_consumer_committed(k, topic, p, timeout, &committed, &err)) goto fail;
    printf("{\"partition\":%d,\"low\":%lld,\"high\":%lld", p, (long long)low, (long long)high);
    if (group)
      printf(",\"committed\":%lld,\"lag\":%lld", (long long)committed,
             (long long)(committed >= 0 ? high - committed : high - low));
    printf("}\n");
  }
  status = 0;
fail:
  if (status) cli_fail("kafka", "%s", err.msg);
  kf_consumer_close(k);
  kf_config_free(c);
  return status;
}

/* ---- produce-nexmark ---- */

static int run_produce_nexmark(int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {
      KAFKA_COMMON_SPECS, {"topic", true},     {"bids", true},        {"auctions", true},
      {"persons", true},  {"events", true},    {"first-event", true}, {"seed", true},
      {"rate", true},     {"base-time", true}, {"realtime", false},   {0, false}};
  cli_args_t a;
  if (cli_args_parse("kafka", argc, argv, specs, &a)) return 2;
  const char *combined = cli_args_get(&a, "topic");
  const char *kind_topic[3] = {cli_args_get(&a, "persons"), cli_args_get(&a, "auctions"),
                               cli_args_get(&a, "bids")};
  if (!combined && !kind_topic[0] && !kind_topic[1] && !kind_topic[2])
    return cli_usage_error(&cli_cmd_kafka,
                           "give --topic T (all events) and/or --bids, --auctions, --persons");
  st_nexmark_config_t nc;
  st_nexmark_config_default(&nc);
  int64_t events = 100000, first = 0, seed = 0, rate = nc.event_rate, base = nc.base_time_ms;
  if (!get_i64(&a, "events", &events) || events < 0)
    return cli_usage_error(&cli_cmd_kafka, "--events needs a number");
  if (!get_i64(&a, "first-event", &first) || first < 0)
    return cli_usage_error(&cli_cmd_kafka, "--first-event needs a number");
  if (!get_i64(&a, "seed", &seed) || seed < 0)
    return cli_usage_error(&cli_cmd_kafka, "--seed needs a non-negative number");
  if (!get_i64(&a, "rate", &rate) || rate < 1 || rate > UINT32_MAX)
    return cli_usage_error(&cli_cmd_kafka, "--rate needs events per second of event time");
  if (!get_i64(&a, "base-time", &base))
    return cli_usage_error(&cli_cmd_kafka, "--base-time needs milliseconds since the epoch");
  /* --realtime: events are sent when their event time comes, starting now
   * (unless --base-time says otherwise), as a live feed for a running job. */
  bool realtime = cli_args_flag(&a, "realtime");
  if (realtime && !cli_args_get(&a, "base-time")) base = fl_now_micros() / 1000;
  nc.seed = (uint64_t)seed;
  nc.event_rate = (uint32_t)rate;
  nc.base_time_ms = base;
  kf_config_t *c;
  int st = make_config(&a, &c);
  if (st) return st;
  fl_err_t err;
  fl_err_clear(&err);
  /* Throughput over latency: fuller batches, compressed; unless --set
   * says otherwise. */
  if (!set_by_user(&a, "linger.ms")) kf_config_set(c, "linger.ms", "20", NULL);
  if (!set_by_user(&a, "compression.type")) kf_config_set(c, "compression.type", "lz4", NULL);
  kf_producer_t *p;
  if (kf_producer_open(c, &p, &err)) {
    kf_config_free(c);
    return cli_fail("kafka", "%s", err.msg);
  }
  fl_buf_t flat, comb;
  fl_buf_init(&flat);
  fl_buf_init(&comb);
  st_nx_event_t ev;
  int status = 0;
  uint64_t per_kind[3] = {0, 0, 0};
  int64_t t0 = fl_monotonic_ns();
  for (uint64_t n = (uint64_t)first; n < (uint64_t)(first + events); n++) {
    st_nexmark_event(&nc, n, &ev);
    if (realtime) {
      int64_t wait_us = ev.timestamp_ms * 1000 - fl_now_micros();
      if (wait_us > 0) {
        struct timespec ts = {(time_t)(wait_us / 1000000), (long)(wait_us % 1000000) * 1000};
        nanosleep(&ts, NULL);
      }
    }
    char key[24];
    int64_t id = ev.kind == ST_NX_PERSON    ? ev.u.person.id
                 : ev.kind == ST_NX_AUCTION ? ev.u.auction.id
                                            : ev.u.bid.auction;
    int klen = snprintf(key, sizeof key, "%lld", (long long)id);
    kf_record_t r = {
        .partition = -1, .key = key, .key_len = (size_t)klen, .timestamp_ms = ev.timestamp_ms};
    if (combined) {
      fl_buf_clear(&comb);
      st_nexmark_json(&ev, false, &comb);
      r.topic = combined;
      r.value = comb.data;
      r.value_len = comb.len;
      if (kf_producer_send(p, &r, &err)) {
        status = 1;
        break;
      }
    }
    if (kind_topic[ev.kind]) {
      fl_buf_clear(&flat);
      st_nexmark_json(&ev, true, &flat);
      r.topic = kind_topic[ev.kind];
      r.value = flat.data;
      r.value_len = flat.len;
      if (kf_producer_send(p, &r, &err)) {
        status = 1;
        break;
      }
    }
    per_kind[ev.kind]++;
  }
  if (!status && kf_producer_flush(p, timeout_of(&a) * 4, &err)) status = 1;
  double secs = (double)(fl_monotonic_ns() - t0) / 1e9;
  if (status)
    cli_fail("kafka", "%s", err.msg);
  else
    fprintf(stderr,
            "produced %lld nexmark events (%llu persons, %llu auctions, %llu bids) in %.2f s\n",
            (long long)events, (unsigned long long)per_kind[0], (unsigned long long)per_kind[1],
            (unsigned long long)per_kind[2], secs);
  fl_buf_free(&flat);
  fl_buf_free(&comb);
  kf_producer_close(p);
  kf_config_free(c);
  return status;
}

static int run_kafka(int argc, char **argv) {
  if (argc < 1) return cli_usage_error(&cli_cmd_kafka, "expected a subcommand");
  const char *sub = argv[0];
  if (strcmp(sub, "create-topic") == 0) return run_topic(argc - 1, argv + 1, true);
  if (strcmp(sub, "delete-topic") == 0) return run_topic(argc - 1, argv + 1, false);
  if (strcmp(sub, "produce") == 0) return run_produce(argc - 1, argv + 1);
  if (strcmp(sub, "consume") == 0) return run_consume(argc - 1, argv + 1);
  if (strcmp(sub, "offsets") == 0) return run_offsets(argc - 1, argv + 1);
  if (strcmp(sub, "produce-nexmark") == 0) return run_produce_nexmark(argc - 1, argv + 1);
  return cli_usage_error(&cli_cmd_kafka, "unknown subcommand '%s'", sub);
}

const cli_command_t cli_cmd_kafka = {
    .name = "kafka",
    .summary = "create topics, produce and consume messages, feed Nexmark events",
    .usage =
        "usage: floe kafka SUBCOMMAND --brokers HOST:PORT [options]\n\n"
        "  create-topic --topic T [--partitions N] [--replication R] [--if-not-exists]\n"
        "  delete-topic --topic T\n"
        "  produce --topic T [--partition P] [--records]\n"
        "      one message per stdin line; with --records each line is a JSON object\n"
        "      {\"key\": s|null, \"value\": s|null, \"partition\": p, \"timestamp\": ms,\n"
        "       \"headers\": [[\"name\", \"value\"|null], ...]}\n"
        "  consume --topic T [--partitions 0,1] [--from "
        "earliest|latest|group|offset:N|timestamp:MS]\n"
        "      [--startup-mode M --specific-offsets 'partition:0,offset:42;...' "
        "--startup-timestamp MS]\n"
        "      [--group G] [--commit] [--count N] [--until-end] [--idle-ms MS] [--max-batch N]\n"
        "      prints each message as a JSON line (topic, partition, offset, timestamp, key,\n"
        "      value, headers); stops after N messages, at the end of the log (--until-end),\n"
        "      or after MS without messages (default 10000; with --count an error)\n"
        "      [--schema S [--metadata 'col:offset,col:timestamp,...'] [--format jsonl|csv|table]\n"
        "       [--ignore-parse-errors]]  decode JSON values into rows of schema S instead\n"
        "      [--summary]  print nothing per message, one line of totals at the end\n"
        "      [--metrics-port P [--metrics-bind ADDR]]  serve /metrics (Prometheus) and /healthz\n"
        "       on ADDR:P (default 127.0.0.1; port 0 picks a free one, printed on stderr)\n"
        "      [--log-file PATH|- [--log-level debug|info|warn|error]]  JSON-lines log\n"
        "      [--no-progress]  no progress line (drawn on a terminal stderr when stdout is not)\n"
        "  offsets --topic T [--group G]   low and high watermarks, committed offset and lag\n"
        "  produce-nexmark [--topic T] [--bids T] [--auctions T] [--persons T] [--events N]\n"
        "      [--first-event N] [--seed S] [--rate EVENTS_PER_S] [--base-time MS] [--realtime]\n"
        "      Nexmark events as JSON: --topic gets every event in the combined form\n"
        "      {\"event_type\": 0|1|2, \"person\", \"auction\", \"bid\"}, the others one kind "
        "each\n\n"
        "common options:\n"
        "  --brokers HOST:PORT   bootstrap servers\n"
        "  --set NAME=VALUE      a Kafka client setting (Java names, as Flink's properties.*)\n"
        "  --timeout-ms MS       broker request timeout (default 30000)\n",
    .run = run_kafka,
};
