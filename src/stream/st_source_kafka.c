/*
 * st_source_kafka.c - a Kafka topic as a job source (layer 10, stream).
 *
 * Every partition of the topic is assigned explicitly
 * (docs/decisions/0007): at the table's start-up positions
 * ('scan.startup.mode', kf_startup_parse) on a fresh start, or at the
 * offsets a checkpoint recorded. Each partition is one watermark slot.
 *
 * Messages are polled in batches and decoded one at a time into the
 * table batch (st_kafka_decode.h), so that each row's partition is known
 * and the source's position - per partition the offset after the last
 * message decoded, whether it gave a row or was skipped - moves exactly
 * with the rows handed out. Polled messages that do not fit into the
 * current batch wait for the next poll of the source; the consumer is
 * only polled again when they are used up.
 *
 * Bounded (--once, or Flink's 'scan.bounded.mode'): the end offset of
 * every partition is fixed at start (bounded_ends), and the source ends
 * when every position reached its end; messages beyond an end are not
 * handed out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/time.h"
#include "kafka/kafka_consumer.h"
#include "stream/st_kafka_decode.h"
#include "stream/st_kafka_metrics.h"
#include "stream/st_options.h"
#include "stream/st_source.h"

typedef struct kafka_source {
  st_source_t s;
  kf_config_t *cfg;
  kf_consumer_t *c;
  const char *topic;
  const char *mode, *ts_millis, *specific;
  /* 'scan.bounded.*': where the table ends (NULL or "unbounded": never) */
  const char *bmode, *bts_millis, *bspecific;
  bool has_group;
  st_kafka_decoder_t *dec;
  kf_msgs_t msgs;
  uint32_t next; /* first message of msgs not used yet */
  int32_t nparts;
  int64_t *pos;           /* per partition: next offset */
  int64_t *end;           /* bounded: end offset per partition; NULL: unbounded */
  bool *mine;             /* per partition: read by this source (its lane's share) */
  uint32_t *slot;         /* per partition: its watermark slot */
  st_kafka_metrics_t *km; /* with s.metrics: records, bytes, position, lag per partition */
} kafka_source_t;

static const char *const known[] = {
    "connector",
    "topic",
    "format",
    "value.format",
    "scan.startup.mode",
    "scan.startup.timestamp-millis",
    "scan.startup.specific-offsets",
    "scan.bounded.mode",
    "scan.bounded.timestamp-millis",
    "scan.bounded.specific-offsets",
    "scan.watermark.idle-timeout",
    "scan.topic-partition-discovery.interval",
    "json.ignore-parse-errors",
    "json.fail-on-missing-field",
    "json.timestamp-format.standard",
    "json.map-null-key.mode",
    "json.encode.decimal-as-plain-number",
    "csv.field-delimiter",
    "csv.quote-character",
    "csv.disable-quote-character",
    "csv.allow-comments",
    "csv.ignore-parse-errors",
    "csv.array-element-delimiter",
    "csv.escape-character",
    "csv.null-literal",
    "csv.write-bigdecimal-in-scientific-notation",
    "key.format",
    "key.fields",
    "key.fields-prefix",
    "value.fields-include",
};

static bool at_end(const kafka_source_t *k) {
  if (!k->end) return false;
  for (int32_t p = 0; p < k->nparts; p++)
    if (k->mine[p] && k->pos[p] < k->end[p]) return false;
  return true;
}

/*
 * Where each partition of this source ends, if it does: with --once at the
 * end of the log as it is now, with Flink's 'scan.bounded.mode' at the
 * position that mode names ('latest-offset': the end now, 'timestamp': the
 * first message at or after 'scan.bounded.timestamp-millis',
 * 'group-offsets': the group's committed offsets, 'specific-offsets': the
 * listed offsets, unlisted partitions at the group's), and with both at
 * the earlier of the two. A bounded table ends the job once every source
 * has ended, as a bounded Flink job finishes.
 */
static int bounded_ends(kafka_source_t *k, bool once, const int64_t *high, fl_err_t *err) {
  bool by_mode = k->bmode && strcmp(k->bmode, "unbounded") != 0;
  if (!once && !by_mode) return FL_OK;
  uint32_t n = (uint32_t)k->nparts;
  kf_position_t *stop = NULL;
  int rc = FL_OK;
  if (by_mode) {
    if (!strcmp(k->bmode, "earliest-offset")) {
      fl_err_set(err, FL_EINVALID,
                 "'earliest-offset' is not a bounded mode (unbounded, latest-offset, "
                 "group-offsets, timestamp, specific-offsets)");
      return st_source_option_error(k->s.table, "scan.bounded.mode", err);
    }
    stop = fl_calloc(n ? n : 1, sizeof *stop);
    rc = kf_startup_parse(k->bmode, k->bts_millis, k->bspecific, n, stop, err);
    if (rc) {
      fl_free(stop);
      return st_source_option_error(k->s.table, "scan.bounded.mode", err);
    }
  }
  k->end = fl_calloc(n ? n : 1, sizeof *k->end);
  for (uint32_t p = 0; p < n && !rc; p++) {
    if (!k->mine[p]) continue;
    int64_t at = INT64_MAX, end = once ? high[p] : INT64_MAX;
    if (stop && stop[p].kind == KF_POS_LATEST && high[p] >= 0)
      at = high[p]; /* asked a moment ago */
    else if (stop)
      rc = kf_consumer_resolve(k->c, k->topic, (int32_t)p, stop[p], 30000, &at, err);
    k->end[p] = at < end ? at : end;
  }
  fl_free(stop);
  return rc;
}

static int ks_start(st_source_t *s, const json_t *pos, bool bounded, fl_err_t *err) {
  kafka_source_t *k = (kafka_source_t *)s;
  st_kafka_decoder_set_max_bytes(k->dec, s->max_record_bytes);
  int rc = kf_consumer_open(k->cfg, &k->c, err);
  if (rc) return st_source_option_error(s->table, "properties.bootstrap.servers", err);
  if ((rc = kf_consumer_partitions(k->c, k->topic, 30000, &k->nparts, err)))
    return st_source_option_error(s->table, "topic", err);
  uint32_t n = (uint32_t)k->nparts;
  k->pos = fl_calloc(n, sizeof *k->pos);
  kf_position_t *start = fl_calloc(n, sizeof *start);
  int32_t *parts = fl_calloc(n ? n : 1, sizeof *parts);
  k->mine = fl_calloc(n ? n : 1, sizeof *k->mine);
  k->slot = fl_calloc(n ? n : 1, sizeof *k->slot);
  uint32_t nl = s->nlanes ? s->nlanes : 1, nmine = 0;
  for (uint32_t p = 0; p < n; p++) parts[p] = (int32_t)p;
  if (pos) {
    json_t *offs = json_object_get(pos, "offsets");
    for (uint32_t p = 0; p < n && !rc; p++) {
      char key[16];
      snprintf(key, sizeof key, "%u", p);
      json_t *o = json_object_get(offs, key);
      /* A partition added since the checkpoint starts at its beginning. */
      start[p] = json_is_integer(o)
                     ? (kf_position_t){.kind = KF_POS_OFFSET, .value = json_integer_value(o)}
                     : (kf_position_t){.kind = KF_POS_EARLIEST};
    }
  } else {
    const char *mode = k->mode;
    /* Flink's default is group-offsets; without a group that means nothing,
     * so floe falls back to the beginning. */
    if (!mode && !k->has_group) mode = "earliest-offset";
    rc = kf_startup_parse(mode, k->ts_millis, k->specific, n, start, err);
    if (rc) rc = st_source_option_error(s->table, "scan.startup.mode", err);
  }
  /* This lane's share, compacted for the assignment. */
  for (uint32_t p = 0; p < n; p++) {
    if (p % nl != s->lane) continue;
    k->mine[p] = true;
    k->slot[p] = nmine;
    parts[nmine] = (int32_t)p;
    start[nmine++] = start[p];
  }
  /* The high watermarks are asked of the broker before the assignment:
   * once fetches run, a request waits behind them on the connection (up to
   * fetch.wait.max.ms each). They end a --once run and give the first lag;
   * later the fetch responses keep the lag current at no cost. For the lag
   * alone a broker that cannot answer yet (a new topic's leader not
   * elected) is no error: the first fetch tells. */
  int64_t *high = fl_malloc((n ? n : 1) * sizeof *high);
  for (uint32_t p = 0; p < n && !rc; p++) {
    int64_t low;
    high[p] = -1;
    if (!k->mine[p] || (!bounded && !s->metrics)) continue;
    fl_err_t lag_err;
    fl_err_clear(&lag_err);
    rc = kf_consumer_watermarks(k->c, k->topic, (int32_t)p, true, bounded ? 30000 : 5000, &low,
                                &high[p], bounded ? err : &lag_err);
    if (!bounded) rc = FL_OK;
  }
  /* The ends too, for the same reason (a bounded mode's offsets: a
   * request per partition that would wait behind the fetches). */
  if (!rc) rc = bounded_ends(k, bounded, high, err);
  if (!rc && nmine) rc = kf_consumer_assign(k->c, k->topic, parts, start, nmine, 30000, err);
  for (uint32_t p = 0; p < n && !rc; p++)
    if (k->mine[p]) rc = kf_consumer_position(k->c, k->topic, (int32_t)p, &k->pos[p], err);
  fl_free(start);
  fl_free(parts);
  if (!rc && s->metrics && !(rc = st_kafka_metrics_new(s->metrics, k->c, &k->km, err)))
    for (uint32_t p = 0; p < n; p++)
      if (k->mine[p]) st_kafka_metrics_set_high(k->km, k->c, k->topic, (int32_t)p, high[p]);
  fl_free(high);
  if (rc) return fl_err_prefix(err, "table %s: ", s->table->name);
  s->nslots = nmine;
  return FL_OK;
}

/* A record that did not decode, as a row of the dead-letter batch. */
static void dead_letter(kafka_source_t *k, const kf_msg_t *m, const char *why) {
  ty_batch_t *d = k->s.dead;
  const char *name = k->s.table->name;
  ty_vec_append_bytes(d->cols[0], name, strlen(name));
  ty_vec_append_bytes(d->cols[1], m->topic, strlen(m->topic));
  ty_vec_append_i32(d->cols[2], m->partition);
  ty_vec_append_i64(d->cols[3], m->offset);
  /* An oversize value is not copied into the table either. */
  if (m->value && !(k->s.max_record_bytes && m->value_len > k->s.max_record_bytes))
    ty_vec_append_bytes(d->cols[4], m->value, m->value_len);
  else
    ty_vec_append_null(d->cols[4]);
  ty_vec_append_bytes(d->cols[5], why, strlen(why));
  d->nrows++;
  k->s.dead_letters++;
}

static int ks_poll(st_source_t *s, ty_batch_t *b, uint32_t *part, int timeout_ms, bool *end,
                   fl_err_t *err) {
  kafka_source_t *k = (kafka_source_t *)s;
  *end = false;
  if (k->next >= k->msgs.n) {
    if (at_end(k)) {
      *end = true;
      return FL_OK;
    }
    k->next = 0;
    int64_t t0 = fl_monotonic_ns();
    int rc = kf_consumer_poll(k->c, &k->msgs, TY_BATCH_ROWS, timeout_ms, err);
    if (rc) return fl_err_prefix(err, "table %s: ", s->table->name);
    if (k->km) {
      st_kafka_metrics_poll(k->km, &k->msgs, (double)(fl_monotonic_ns() - t0) / 1e9);
      st_kafka_metrics_lag(k->km, k->c, false, 0, NULL);
    }
  }
  while (k->next < k->msgs.n && b->nrows < TY_BATCH_ROWS) {
    const kf_msg_t *m = &k->msgs.msgs[k->next];
    int32_t p = m->partition;
    if (p < 0 || p >= k->nparts || !k->mine[p] || m->offset < k->pos[p] ||
        (k->end && m->offset >= k->end[p])) {
      k->next++; /* beyond the bounded end, or already handed out */
      continue;
    }
    /* The run of this partition's messages that follows (a fetch hands
     * them out together), decoded in one call. */
    uint32_t j = k->next + 1;
    for (int64_t off = m->offset; j < k->msgs.n; j++) {
      const kf_msg_t *x = &k->msgs.msgs[j];
      if (x->partition != p || x->offset <= off || (k->end && x->offset >= k->end[p])) break;
      off = x->offset;
    }
    kf_msgs_t run = {.msgs = (kf_msg_t *)m, .n = j - k->next, .cap = j - k->next};
    uint32_t used = 0, before = b->nrows;
    int rc = st_kafka_decode(k->dec, &run, &used, b, err);
    for (uint32_t r = before; r < b->nrows; r++) part[r] = k->slot[p];
    if (used) {
      k->pos[p] = run.msgs[used - 1].offset + 1;
      k->next += used;
    }
    if (rc) {
      const kf_msg_t *bad = &run.msgs[used]; /* decoding stopped at it */
      if (s->bad != ST_BAD_DEAD_LETTER || !s->dead)
        return st_source_option_error(s->table, "format", err);
      dead_letter(k, bad, err->msg);
      fl_err_clear(err);
      k->pos[p] = bad->offset + 1;
      k->next++;
      continue;
    }
    if (used < run.n) break; /* batch full */
  }
  s->skipped = st_kafka_decoder_skipped(k->dec);
  if (k->next >= k->msgs.n && at_end(k)) *end = true;
  return FL_OK;
}

static json_t *ks_position(st_source_t *s) {
  kafka_source_t *k = (kafka_source_t *)s;
  json_t *offs = json_object();
  for (int32_t p = 0; p < k->nparts; p++) {
    char key[16];
    snprintf(key, sizeof key, "%d", p);
    if (k->mine[p]) json_object_set_new(offs, key, json_integer(k->pos[p]));
  }
  return json_pack("{s:s,s:s,s:o}", "kind", "kafka", "topic", k->topic, "offsets", offs);
}

static void ks_committed(st_source_t *s, const json_t *pos) {
  kafka_source_t *k = (kafka_source_t *)s;
  if (!k->has_group || !k->c) return;
  fl_err_t e;
  fl_err_clear(&e);
  /* For monitoring only: the group shows the lag of what the Iceberg
   * commit covers (the checkpoint's offsets, not the consumer's). */
  json_t *offs = json_object_get(pos, "offsets");
  int32_t *parts = fl_calloc((size_t)k->nparts + 1, sizeof *parts);
  int64_t *next = fl_calloc((size_t)k->nparts + 1, sizeof *next);
  uint32_t n = 0;
  for (int32_t p = 0; p < k->nparts; p++) {
    char key[16];
    snprintf(key, sizeof key, "%d", p);
    json_t *o = json_object_get(offs, key);
    if (!k->mine[p] || !json_is_integer(o)) continue;
    parts[n] = p;
    next[n++] = json_integer_value(o);
  }
  int rc = kf_consumer_commit_offsets(k->c, k->topic, parts, next, n, &e);
  fl_free(parts);
  fl_free(next);
  if (rc)
    fprintf(stderr, "floe run: table %s: committing group offsets: %s\n", s->table->name, e.msg);
}

static void ks_free(st_source_t *s) {
  kafka_source_t *k = (kafka_source_t *)s;
  kf_msgs_free(&k->msgs);
  st_kafka_metrics_free(k->km);
  kf_consumer_close(k->c);
  kf_config_free(k->cfg);
  st_kafka_decoder_free(k->dec);
  fl_free(k->pos);
  fl_free(k->end);
  fl_free(k->mine);
  fl_free(k->slot);
  fl_free(k);
}

static int ks_partitions(st_source_t *s, uint32_t *n, fl_err_t *err) {
  kafka_source_t *k = (kafka_source_t *)s;
  kf_consumer_t *c;
  int32_t np = 0;
  int rc = kf_consumer_open(k->cfg, &c, err);
  if (rc) return rc;
  rc = kf_consumer_partitions(c, k->topic, 30000, &np, err);
  kf_consumer_close(c);
  *n = np > 0 ? (uint32_t)np : 1;
  return rc;
}

static const st_source_vt_t kafka_vt = {
    .connector = "kafka",
    .start = ks_start,
    .poll = ks_poll,
    .position = ks_position,
    .committed = ks_committed,
    .partitions = ks_partitions,
    .free = ks_free,
};

static int opt_error(const sql_stream_table_t *t, const char *key, fl_err_t *err, int code,
                     const char *msg) {
  fl_err_set(err, code, "option '%s': %s", key, msg);
  return st_source_option_error(t, key, err);
}

/* With 'value.format', Flink prefixes the format's options: 'value.csv.*',
 * 'value.json.*' read as 'csv.*', 'json.*'; the key's ('key.csv.*',
 * 'key.json.*') are read by key_options. */
static const char *format_key(const char *key) {
  if (!strncmp(key, "value.", 6) && (!strncmp(key + 6, "csv.", 4) || !strncmp(key + 6, "json.", 5)))
    return key + 6;
  if (!strncmp(key, "key.", 4) && (!strncmp(key + 4, "csv.", 4) || !strncmp(key + 4, "json.", 5)))
    return "key.format"; /* known; checked by key_options */
  return key;
}

/* One character, written as itself or as one of Flink's escapes ('\t'). */
static bool one_char(const char *v, char *out) {
  if (v[0] && !v[1]) {
    *out = v[0];
    return true;
  }
  if (v[0] == '\\' && (v[1] == 't' || v[1] == '\\') && !v[2]) {
    *out = v[1] == 't' ? '\t' : '\\';
    return true;
  }
  return false;
}

/* The csv.* options (of the key: key.csv.*) into a dialect; ignore:
 * 'csv.ignore-parse-errors'. */
static int csv_options(const sql_stream_table_t *t, bool of_key, csv_dialect_t *d, bool *ignore,
                       fl_err_t *err) {
  for (uint32_t i = 0; i < t->nopts; i++) {
    const char *key = t->keys[i], *v = t->values[i];
    if (of_key && strncmp(key, "key.", 4) != 0) continue;
    key = of_key ? key + 4 : format_key(key);
    if (strncmp(key, "csv.", 4) != 0) continue;
    bool ok = true;
    if (!strcmp(key, "csv.field-delimiter"))
      ok = one_char(v, &d->delimiter);
    else if (!strcmp(key, "csv.quote-character"))
      ok = one_char(v, &d->quote);
    else if (!strcmp(key, "csv.escape-character"))
      ok = one_char(v, &d->escape);
    else if (!strcmp(key, "csv.array-element-delimiter"))
      ok = one_char(v, &d->array_delimiter);
    else if (!strcmp(key, "csv.null-literal"))
      d->null_literal = v;
    else if (!strcmp(key, "csv.disable-quote-character"))
      ok = st_bool_parse(v, &d->no_quote);
    else if (!strcmp(key, "csv.allow-comments"))
      ok = st_bool_parse(v, &d->allow_comments);
    else if (!strcmp(key, "csv.ignore-parse-errors"))
      ok = st_bool_parse(v, ignore);
    if (!ok)
      return opt_error(t, t->keys[i], err, FL_EINVALID,
                       strstr(key, "character") || strstr(key, "delimiter")
                           ? "expected one character"
                           : "expected 'true' or 'false'");
  }
  return FL_OK;
}

/*
 * Flink's 'key.format' and 'key.fields' ('a;b'): with 'value.fields-include'
 * = 'EXCEPT_KEY' the key fields are decoded from the message key (meta[i] =
 * ST_META_KEY_FIELD) and the value holds the other physical columns. With
 * 'ALL' (Flink's default) the value holds every physical column and Flink
 * takes the key fields from it as well, so the key is not read at all.
 */
static int key_fields(const sql_stream_table_t *t, st_kafka_meta_t *meta, const char **format,
                      csv_dialect_t *dialect, fl_err_t *err) {
  const char *kf = sql_stream_option(t, "key.format"), *fields = sql_stream_option(t, "key.fields");
  const char *inc = sql_stream_option(t, "value.fields-include");
  if (inc && strcmp(inc, "ALL") && strcmp(inc, "EXCEPT_KEY"))
    return opt_error(t, "value.fields-include", err, FL_EINVALID, "expected 'ALL' or 'EXCEPT_KEY'");
  if (!kf && !fields) {
    if (inc && !strcmp(inc, "EXCEPT_KEY"))
      return opt_error(t, "value.fields-include", err, FL_EINVALID,
                       "'EXCEPT_KEY' needs 'key.format' and 'key.fields'");
    return FL_OK;
  }
  if (!kf || !fields || !*fields)
    return opt_error(t, kf ? "key.format" : "key.fields", err, FL_EINVALID,
                     "'key.format' and 'key.fields' go together");
  if (strcmp(kf, "json") && strcmp(kf, "csv") && strcmp(kf, "raw"))
    return opt_error(t, "key.format", err, FL_EUNSUPPORTED,
                     "the kafka source reads key format 'json', 'csv' or 'raw'");
  if (sql_stream_option(t, "format"))
    return opt_error(t, "format", err, FL_EINVALID,
                     "with 'key.format' the value's format is 'value.format' (as in Flink)");
  bool ignore = false;
  int rc = csv_options(t, true, dialect, &ignore, err);
  if (rc) return rc;
  const char *p = fields;
  while (*p) {
    const char *e = strchr(p, ';');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    int found = -1;
    for (uint32_t i = 0; i < t->nbase; i++) {
      const sql_stream_col_t *c = &t->cols[t->base[i]];
      if (c->kind != SQL_COL_METADATA && strlen(c->name) == n && !strncasecmp(c->name, p, n))
        found = (int)i;
    }
    if (found < 0) {
      fl_err_set(err, FL_EINVALID, "option 'key.fields': '%.*s' is not a physical column", (int)n,
                 p);
      return st_source_option_error(t, "key.fields", err);
    }
    if (inc && !strcmp(inc, "EXCEPT_KEY")) meta[found] = ST_META_KEY_FIELD;
    p += n + (e ? 1 : 0);
  }
  if (!inc || strcmp(inc, "EXCEPT_KEY")) return FL_OK;
  *format = kf;
  return FL_OK;
}

int st_source_kafka_open(const sql_stream_table_t *t, st_bad_policy_t bad, st_source_t **out,
                         fl_err_t *err) {
  kafka_source_t *k = fl_calloc(1, sizeof *k);
  k->s.vt = &kafka_vt;
  k->s.table = t;
  k->s.bad = bad;
  kf_msgs_init(&k->msgs);
  k->cfg = kf_config_new();
  int rc = FL_OK;
  bool ignore_errors = false, raw = false, csv = false, fail_missing = false;
  csv_dialect_t dialect = {0};
  for (uint32_t i = 0; i < t->nopts && !rc; i++) {
    const char *key = format_key(t->keys[i]), *v = t->values[i];
    if (strncmp(key, "properties.", 11) == 0) {
      if ((rc = kf_config_set_flink(k->cfg, key, v, NULL, err)))
        rc = st_source_option_error(t, key, err);
      if (strcmp(key, "properties.group.id") == 0) k->has_group = *v != 0;
      continue;
    }
    bool ok = false;
    for (size_t j = 0; j < sizeof known / sizeof known[0]; j++) ok |= strcmp(key, known[j]) == 0;
    if (!ok) {
      rc = opt_error(t, t->keys[i], err, FL_EINVALID, "unknown option of the kafka connector");
      break;
    }
    if (!strcmp(key, "topic"))
      k->topic = v;
    else if (!strcmp(key, "scan.startup.mode"))
      k->mode = v;
    else if (!strcmp(key, "scan.startup.timestamp-millis"))
      k->ts_millis = v;
    else if (!strcmp(key, "scan.startup.specific-offsets"))
      k->specific = v;
    else if (!strcmp(key, "scan.bounded.mode"))
      k->bmode = v;
    else if (!strcmp(key, "scan.bounded.timestamp-millis"))
      k->bts_millis = v;
    else if (!strcmp(key, "scan.bounded.specific-offsets"))
      k->bspecific = v;
    else if (!strcmp(key, "format") || !strcmp(key, "value.format")) {
      if (strcmp(v, "json") != 0 && strcmp(v, "raw") != 0 && strcmp(v, "csv") != 0)
        rc = opt_error(t, key, err, FL_EUNSUPPORTED,
                       "the kafka source reads format 'json', 'csv' or 'raw'");
      raw = !strcmp(v, "raw");
      csv = !strcmp(v, "csv");
    } else if (!strcmp(key, "json.ignore-parse-errors")) {
      bool x = false;
      if (!st_bool_parse(v, &x))
        rc = opt_error(t, t->keys[i], err, FL_EINVALID, "expected 'true' or 'false'");
      ignore_errors |= x;
    } else if (!strcmp(key, "json.fail-on-missing-field")) {
      if (!st_bool_parse(v, &fail_missing))
        rc = opt_error(t, t->keys[i], err, FL_EINVALID, "expected 'true' or 'false'");
    } else if (!strcmp(key, "scan.watermark.idle-timeout")) {
      if (!st_duration_parse(v, &k->s.idle_timeout_ms))
        rc = opt_error(t, key, err, FL_EINVALID, "expected a duration such as '5 s' or '500 ms'");
    }
  }
  bool csv_ignore = false;
  if (!rc) rc = csv_options(t, false, &dialect, &csv_ignore, err);
  if (csv) ignore_errors |= csv_ignore;
  char buf[1024];
  if (!rc && !k->topic) rc = opt_error(t, "topic", err, FL_EINVALID, "is required");
  if (!rc && strchr(k->topic, ';'))
    rc = opt_error(t, "topic", err, FL_EUNSUPPORTED, "one topic per table");
  if (!rc && (!kf_config_get(k->cfg, "bootstrap.servers", buf, sizeof buf) || !*buf))
    rc = opt_error(t, "properties.bootstrap.servers", err, FL_EINVALID, "is required");
  if (!rc && !sql_stream_option(t, "format") && !sql_stream_option(t, "value.format"))
    rc = opt_error(t, "format", err, FL_EINVALID, "is required ('json', 'csv' or 'raw')");
  if (!rc) {
    st_kafka_meta_t *meta = fl_calloc(t->nbase ? t->nbase : 1, sizeof *meta);
    const char *key_format = NULL;
    csv_dialect_t key_dialect = {0};
    if (!rc) rc = key_fields(t, meta, &key_format, &key_dialect, err);
    for (uint32_t i = 0; i < t->nbase && !rc; i++) {
      const sql_stream_col_t *c = &t->cols[t->base[i]];
      if (c->kind != SQL_COL_METADATA) continue;
      if (!st_kafka_meta_parse(c->metadata_key, &meta[i])) {
        fl_err_set(err, FL_EINVALID,
                   "column %s: unknown metadata key '%s' (topic, partition, offset, timestamp, "
                   "timestamp-type, headers)",
                   c->name, c->metadata_key);
        rc = fl_err_prefix(err, "line %u, column %u: ", c->pos.line, c->pos.col);
      }
    }
    if (ignore_errors && bad == ST_BAD_FAIL) k->s.bad = ST_BAD_SKIP;
    if (!rc &&
        (rc = st_kafka_decoder_new(t->base_schema, meta, k->s.bad == ST_BAD_SKIP, &k->dec, err)))
      rc = st_source_option_error(t, NULL, err);
    fl_free(meta);
    if (!rc && raw && (rc = st_kafka_decoder_set_raw(k->dec, err)))
      rc = st_source_option_error(t, "format", err);
    if (!rc && csv && (rc = st_kafka_decoder_set_csv(k->dec, &dialect, err)))
      rc = st_source_option_error(t, "format", err);
    if (!rc && fail_missing) st_kafka_decoder_set_fail_on_missing(k->dec, true);
    if (!rc && key_format &&
        (rc = st_kafka_decoder_set_key_format(k->dec, key_format, &key_dialect,
                                              sql_stream_option(t, "key.fields-prefix"), err)))
      rc = st_source_option_error(t, "key.format", err);
  }
  if (rc) {
    ks_free(&k->s);
    return rc;
  }
  *out = &k->s;
  return FL_OK;
}
