/*
 * st_runner.c - the job loop, checkpoints, commits and recovery (layer
 * 10, stream). See st_runner.h and docs/decisions/0008.
 *
 * States: set up (pipelines and scans built) -> recovering (commit the
 * newest complete checkpoint if a table lacks it, restore state, seek the
 * sources, delete files of unfinished checkpoints) -> running (poll, push;
 * checkpoint n = close the sinks' files, write state, pending manifests
 * and last the _metadata file; then commit n) -> stopping (a final
 * checkpoint and commit) -> done. Checkpoint n + 1 starts only after
 * checkpoint n is committed, so at most the newest complete checkpoint
 * can be uncommitted when the process dies.
 *
 * With several lanes (worker threads) each lane runs its own copies of
 * the pipelines; keyed operators get their rows through an exchange
 * (st_exchange.h), which a checkpoint drains into them first (see
 * loop_lanes).
 */
#include "stream/st_runner.h"

#include <assert.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/metrics_process.h"
#include "base/time.h"
#include "catalog/cat_tables.h"
#include "exec/ex_plan.h"
#include "stream/st_checkpoint.h"
#include "stream/st_commit.h"
#include "stream/st_exchange.h"
#include "stream/st_late_rows.h"
#include "stream/st_progress.h"
#include "stream/st_scan.h"
#include "stream/st_sink_iceberg.h"

#define EVENTS_METRIC "floe_job_events_read_total"

/* The default parallelism: one lane per online core, at most this many. */
#define DEFAULT_MAX_LANES 16

/* The series of one scan, and the source's cumulative counts already
 * added to them (the sources count in their own fields; the lane adds the
 * difference after each batch). */
typedef struct scan_stat {
  fl_counter_t *events, *skipped, *dead;
  uint64_t skipped_seen, dead_seen;
  _Atomic int64_t watermark_us; /* set by the scan's lane, read by the job's thread */
  _Atomic bool idle;            /* every partition of the scan idle; the same */
} scan_stat_t;

/* The job-wide series (st_runner.h). watermark is registered at the first
 * watermark, so that the progress line shows none before. */
typedef struct job_stats {
  fl_gauge_t *watermark;
  fl_gauge_t *chk_id, *chk_time, *chk_dur, *commit_id, *commit_time, *commit_dur, *state_bytes;
  fl_counter_t *chks, *commits;
} job_stats_t;

/* A table a sink writes: an INSERT's target or the dead-letter table. */
typedef struct sink_ref {
  const char *ns, *name;
  ice_table_t *table;
} sink_ref_t;

/* Lane `lane`'s copy of INSERT `ins`, as the planner's keyed-exchange
 * callback sees it. */
typedef struct keyed_arg {
  struct runner *r;
  uint32_t lane, ins;
} keyed_arg_t;

/* Scan `scan` pushes into query `q`. */
typedef struct feed {
  uint32_t q, scan;
} feed_t;

typedef struct runner {
  cat_catalog_t *cat;
  st_job_t *job;
  const st_run_opts_t *o;
  fl_metrics_t *reg;
  job_stats_t js;
  st_progress_t *progress;
  st_ckpt_store_t *store;
  uint32_t nlanes;     /* worker threads (--parallelism) */
  bool lanes_explicit; /* --parallelism or SET 'parallelism.default' */
  /* With keyed INSERTs on several lanes: the channels between the lanes,
   * the exchange of each INSERT (NULL: it runs row by row), the planner
   * callback's arguments, and the stream inputs that lanes > 0 never get
   * rows for (a generator is read by lane 0), finished at their start. */
  st_exchange_hub_t *hub;
  st_exchange_t **xins;
  keyed_arg_t *kargs;
  ex_stream_input_t *orphans;
  uint32_t *orphan_lane, norphans;
  feed_t *feeds;
  uint32_t nfeeds;
  const sql_stream_table_t **tables; /* per scan */
  st_scan_t **scans;
  scan_stat_t *scan_stat; /* per scan */
  uint32_t *scan_lane;    /* per scan: the lane that polls it */
  bool *ended;
  uint32_t nscans;
  fl_arena_t **lane_arena; /* lanes > 0: where their queries live */
  ex_query_t **queries;    /* lane l, INSERT i: queries[l * ninserts + i] */
  uint32_t nq;
  /* sinks[q] for query q, then with dead letters one dead-letter sink per
   * lane, then with a late-row table one late-row sink per lane */
  st_sink_t **sinks;
  sink_ref_t *targets;
  uint32_t nsinks;
  fl_counter_t **sink_rows; /* per sink: floe_job_rows_written_total{table} */
  uint64_t *sink_rows_seen; /* per sink: st_sink_rows already added */
  fl_counter_t **late_rows; /* per query: floe_job_late_rows_total{table} */
  uint64_t *late_rows_seen; /* per query: late rows of its window aggregations already added */
  int64_t lateness_us;      /* SET 'table.exec.emit.allow-lateness' */
  size_t state_limit;       /* SET 'floe.state.memory-limit'; 0: none */
  size_t max_record_bytes;  /* SET 'floe.max-record-bytes' */
  st_bad_policy_t bad;
  ice_table_t *dead_table; /* owned */
  const char *dead_ns, *dead_name;
  const ty_schema_t *dead_schema;
  st_late_rows_t *late; /* SET 'floe.late-rows.table'; its sinks from late_base, one per lane */
  uint32_t late_base;
  int64_t next_chk; /* the checkpoint the rows being written belong to */
  int64_t interval_ms;
  const char *fault;
  int64_t fault_at;
} runner_t;

static int64_t mono_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int64_t wall_ms(void) { return fl_now_micros() / 1000; }

/* ---- the test-only fault hook ---- */

static void fault_point(runner_t *r, const char *point, int64_t chk) {
  if (!r->fault || strcmp(r->fault, point) != 0) return;
  if (r->fault_at > 0 && r->fault_at != chk) return;
  fprintf(stderr, "floe run: FLOE_FAULT_POINT=%s: exiting at checkpoint %" PRId64 "\n", point, chk);
  _exit(86);
}

static void fault_setup(runner_t *r) {
  const char *f = getenv("FLOE_FAULT_POINT");
  if (!f || !*f) return;
  const char *at = strchr(f, '@');
  char *copy = fl_arena_strndup(r->job->a, f, at ? (size_t)(at - f) : strlen(f));
  r->fault = copy;
  r->fault_at = at ? strtoll(at + 1, NULL, 10) : 0;
}

/* ---- logging ---- */

static void format_ts(int64_t us, char *buf, size_t n) {
  if (us == INT64_MIN) {
    snprintf(buf, n, "-");
    return;
  }
  time_t s = (time_t)(us / 1000000);
  if (us < 0 && us % 1000000) s--;
  struct tm tm;
  gmtime_r(&s, &tm);
  int ms = (int)(((us % 1000000) + 1000000) % 1000000 / 1000);
  snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
           tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

/* One line of the job's log, its job id first. The progress line is
 * cleared before a line goes to the same terminal; the next tick redraws
 * it. */
static void job_log(runner_t *r, const char *msg, const fl_log_field_t *f, uint32_t n) {
  if (!r->o->log) return;
  fl_log_field_t all[16];
  assert(n < 16);
  all[0] = FL_LF_STR("job-id", r->o->job_id);
  memcpy(all + 1, f, n * sizeof *f);
  if (r->progress && r->o->log_on_stderr) {
    fputs("\r\033[K", stderr);
    fflush(stderr);
  }
  fl_log_write(r->o->log, FL_LOG_INFO, msg, all, n + 1);
}

#define JOB_LOG(r, msg, ...)                                 \
  job_log((r), (msg), (const fl_log_field_t[]){__VA_ARGS__}, \
          (uint32_t)(sizeof((const fl_log_field_t[]){__VA_ARGS__}) / sizeof(fl_log_field_t)))

/* ---- metrics ---- */

static int job_stats_register(runner_t *r, fl_err_t *err) {
  job_stats_t *j = &r->js;
  fl_metrics_t *m = r->reg;
  int rc;
  if ((rc = fl_metrics_process_register(m, err)) ||
      (rc = fl_metrics_gauge(m, ST_METRIC_CHECKPOINT_ID, "Id of the last completed checkpoint",
                             NULL, 0, &j->chk_id, err)) ||
      (rc = fl_metrics_gauge(m, ST_METRIC_CHECKPOINT_TIME,
                             "When the last checkpoint completed, seconds since the Unix epoch",
                             NULL, 0, &j->chk_time, err)) ||
      (rc = fl_metrics_gauge(m, "floe_job_last_checkpoint_duration_seconds",
                             "Time the last checkpoint took (files closed, state and metadata "
                             "written)",
                             NULL, 0, &j->chk_dur, err)) ||
      (rc = fl_metrics_gauge(m, ST_METRIC_COMMIT_CHECKPOINT_ID,
                             "Checkpoint id of the last catalog commit", NULL, 0, &j->commit_id,
                             err)) ||
      (rc = fl_metrics_gauge(m, ST_METRIC_COMMIT_TIME,
                             "When the last commit completed, seconds since the Unix epoch", NULL,
                             0, &j->commit_time, err)) ||
      (rc = fl_metrics_gauge(m, "floe_job_last_commit_duration_seconds",
                             "Time the last catalog commit took", NULL, 0, &j->commit_dur, err)) ||
      (rc = fl_metrics_gauge(m, "floe_job_state_bytes",
                             "Bytes of operator state in the last checkpoint", NULL, 0,
                             &j->state_bytes, err)) ||
      (rc = fl_metrics_counter(m, "floe_job_checkpoints_total", "Checkpoints completed", NULL, 0,
                               &j->chks, err)) ||
      (rc = fl_metrics_counter(m, "floe_job_commits_total", "Checkpoints committed to the catalog",
                               NULL, 0, &j->commits, err)))
    return rc;
  return FL_OK;
}

static int scan_stat_register(runner_t *r, const char *source, scan_stat_t *st, fl_err_t *err) {
  fl_label_t l = {"source", source};
  int rc;
  if ((rc = fl_metrics_counter(r->reg, EVENTS_METRIC, "Rows the job's sources handed out", &l, 1,
                               &st->events, err)) ||
      (rc = fl_metrics_counter(r->reg, "floe_job_bad_records_skipped_total",
                               "Records a source skipped (bad values, tombstones)", &l, 1,
                               &st->skipped, err)) ||
      (rc = fl_metrics_counter(r->reg, "floe_job_bad_records_dead_lettered_total",
                               "Records a source sent to the dead-letter table", &l, 1, &st->dead,
                               err)))
    return rc;
  atomic_init(&st->watermark_us, ST_NO_WATERMARK);
  atomic_init(&st->idle, false);
  return FL_OK;
}

/* Adds what sink i wrote since the last call: from the thread that owns
 * the sink (its lane's, or the job's with the lanes parked). */
static void count_sink(runner_t *r, uint32_t i) {
  uint64_t n = st_sink_rows(r->sinks[i]);
  if (n > r->sink_rows_seen[i]) fl_counter_add(r->sink_rows[i], n - r->sink_rows_seen[i]);
  r->sink_rows_seen[i] = n;
  if (i >= r->nq) return;
  ex_op_t *const *ops;
  uint32_t nw = ex_query_window_aggs(r->queries[i], &ops);
  uint64_t late = 0;
  for (uint32_t w = 0; w < nw; w++) late += ex_window_agg_stats(ops[w])->late_rows;
  if (late > r->late_rows_seen[i]) fl_counter_add(r->late_rows[i], late - r->late_rows_seen[i]);
  r->late_rows_seen[i] = late;
}

/* Late rows and spill runs of every window aggregation of the job since
 * it started (the job's thread, lanes parked). */
static void window_totals(runner_t *r, uint64_t *late, uint64_t *spills) {
  for (uint32_t q = 0; q < r->nq; q++) {
    ex_op_t *const *ops;
    uint32_t nw = ex_query_window_aggs(r->queries[q], &ops);
    for (uint32_t w = 0; w < nw; w++) {
      *late += ex_window_agg_stats(ops[w])->late_rows;
      *spills += ex_window_agg_stats(ops[w])->spills;
    }
  }
}

/* After a batch of scan i: its counters and watermark (the lane's thread). */
static void count_scan(runner_t *r, uint32_t i, uint32_t rows) {
  scan_stat_t *st = &r->scan_stat[i];
  const st_source_t *s = st_scan_source(r->scans[i]);
  fl_counter_add(st->events, rows);
  if (s->skipped > st->skipped_seen) fl_counter_add(st->skipped, s->skipped - st->skipped_seen);
  st->skipped_seen = s->skipped;
  if (s->dead_letters > st->dead_seen) fl_counter_add(st->dead, s->dead_letters - st->dead_seen);
  st->dead_seen = s->dead_letters;
  atomic_store_explicit(&st->watermark_us, st_scan_watermark(r->scans[i]), memory_order_relaxed);
  if (r->nlanes > 1) /* only job_watermark's view over several lanes needs it */
    atomic_store_explicit(&st->idle, st_scan_idle(r->scans[i], mono_ms()), memory_order_relaxed);
}

/* The job's watermark, the smallest of the scans' (the job's thread);
 * a lane's share of a topic without partitions has none and is left out. */
static int64_t job_watermark(runner_t *r) {
  int64_t wm = INT64_MAX, max = ST_NO_WATERMARK;
  for (uint32_t i = 0; i < r->nscans; i++) {
    if (r->nlanes > 1 && !st_scan_source(r->scans[i])->nslots) continue;
    int64_t w = atomic_load_explicit(&r->scan_stat[i].watermark_us, memory_order_relaxed);
    if (w > max) max = w;
    /* An idle lane's share does not hold the job back (st_watermark.h). */
    if (r->nlanes > 1 && atomic_load_explicit(&r->scan_stat[i].idle, memory_order_relaxed))
      continue;
    if (w < wm) wm = w;
  }
  return wm == INT64_MAX ? max : wm;
}

static void update_watermark(runner_t *r) {
  int64_t wm = job_watermark(r);
  if (wm == ST_NO_WATERMARK) return;
  if (!r->js.watermark) {
    fl_err_t e;
    fl_err_clear(&e);
    if (fl_metrics_gauge(r->reg, ST_METRIC_WATERMARK,
                         "The job's event-time watermark (the smallest over its sources), "
                         "seconds since the Unix epoch",
                         NULL, 0, &r->js.watermark, &e))
      return;
  }
  fl_gauge_set(r->js.watermark, (double)wm / 1e6);
}

static void tick(runner_t *r) { st_progress_tick(r->progress, fl_monotonic_ns()); }

/* ---- set-up ---- */

static int on_writer(void *arg, const char *uuid, const char *data_dir, fl_err_t *err) {
  runner_t *r = arg;
  return st_ckpt_note_writer(r->store, r->next_chk, uuid, data_dir, err);
}

static int scan_for(runner_t *r, const sql_stream_table_t *t, uint32_t lane, st_scan_t **out,
                    fl_err_t *err) {
  for (uint32_t i = 0; i < r->nscans; i++)
    if (r->tables[i] == t && r->scan_lane[i] == lane) {
      *out = r->scans[i];
      return FL_OK;
    }
  st_source_t *src;
  int rc = st_source_open(t, r->bad, &src, err);
  if (rc) return rc;
  src->lane = lane;
  src->nlanes = r->nlanes;
  src->metrics = r->reg;
  src->max_record_bytes = r->max_record_bytes;
  st_scan_t *s;
  if ((rc = st_scan_new(src, &s, err))) {
    st_source_free(src);
    return rc;
  }
  r->tables = fl_realloc(r->tables, (r->nscans + 1) * sizeof *r->tables);
  r->scans = fl_realloc(r->scans, (r->nscans + 1) * sizeof *r->scans);
  r->ended = fl_realloc(r->ended, (r->nscans + 1) * sizeof *r->ended);
  r->scan_lane = fl_realloc(r->scan_lane, (r->nscans + 1) * sizeof *r->scan_lane);
  r->scan_stat = fl_realloc(r->scan_stat, (r->nscans + 1) * sizeof *r->scan_stat);
  memset(&r->scan_stat[r->nscans], 0, sizeof *r->scan_stat);
  r->scan_lane[r->nscans] = lane;
  r->tables[r->nscans] = t;
  r->ended[r->nscans] = false;
  r->scans[r->nscans++] = s;
  *out = s;
  return scan_stat_register(r, t->name, &r->scan_stat[r->nscans - 1], err);
}

/* SET 'floe.bad-records' and, for dead letters, 'floe.dead-letter.table'
 * (created with ST_DEAD_LETTER_SCHEMA when it does not exist). */
static int bad_records(runner_t *r, fl_err_t *err) {
  const char *b = st_job_option(r->job, "floe.bad-records");
  if (!b || !strcmp(b, "fail")) return FL_OK;
  if (!strcmp(b, "skip")) {
    r->bad = ST_BAD_SKIP;
    return FL_OK;
  }
  if (strcmp(b, "dead-letter") != 0)
    return fl_err_set(err, FL_EINVALID,
                      "SET 'floe.bad-records' = '%s': expected 'fail', 'skip' or 'dead-letter'", b);
  r->bad = ST_BAD_DEAD_LETTER;
  const char *ident = st_job_option(r->job, "floe.dead-letter.table");
  if (!ident)
    return fl_err_set(err, FL_EINVALID,
                      "SET 'floe.bad-records' = 'dead-letter' needs SET 'floe.dead-letter.table' "
                      "= 'namespace.table'");
  char *ns, *name;
  int rc = cat_split_ident(ident, &ns, &name, err);
  if (rc) return rc;
  rc = cat_open_table(r->cat, io_local_fs(), ns, name, &r->dead_table, err);
  if (rc == FL_ENOTFOUND) {
    fl_err_clear(err);
    ty_schema_t *s;
    if (!(rc = ty_schema_parse(r->job->a, ST_DEAD_LETTER_SCHEMA, &s, err))) {
      cat_create_opts_t o = {.schema = s};
      rc = cat_create_table(r->cat, io_local_fs(), ns, name, &o, &r->dead_table, err);
    }
  }
  if (!rc) {
    const ty_schema_t *s = ice_meta_schema(r->dead_table->meta);
    static const char *const cols[] = {"source", "topic",   "partition",
                                       "offset", "payload", "error"};
    bool ok = s->root.nfields == 6;
    for (uint32_t i = 0; ok && i < 6; i++) ok = !strcmp(s->root.fields[i].name, cols[i]);
    if (!ok)
      rc = fl_err_set(err, FL_EINVALID, "dead-letter table %s must have the columns (%s)", ident,
                      ST_DEAD_LETTER_SCHEMA);
    r->dead_schema = s;
  }
  if (!rc) {
    r->dead_ns = fl_arena_strdup(r->job->a, ns);
    r->dead_name = fl_arena_strdup(r->job->a, name);
  }
  fl_free(ns);
  fl_free(name);
  return rc ? fl_err_prefix(err, "dead-letter table %s: ", ident) : FL_OK;
}

/* The job's SET statements for its windows and state: Flink's allowed
 * lateness (a window waits that long past its end before it fires, so the
 * append-only tables get each window once, complete) and floe's state
 * memory limit (beyond it window state spills to local disk). */
static int job_settings(runner_t *r, fl_err_t *err) {
  const char *lat = st_job_option(r->job, "table.exec.emit.allow-lateness");
  int64_t ms = 0;
  if (lat && !st_duration_parse(lat, &ms))
    return fl_err_set(err, FL_EINVALID,
                      "SET 'table.exec.emit.allow-lateness' = '%s': expected a duration such as "
                      "'10 s'",
                      lat);
  if (r->o->allowed_lateness_ms > 0) ms = r->o->allowed_lateness_ms;
  r->lateness_us = ms * 1000;
  const char *lim = st_job_option(r->job, "floe.state.memory-limit");
  uint64_t bytes = r->o->state_memory_limit;
  if (!bytes && lim && !st_size_parse(lim, &bytes))
    return fl_err_set(err, FL_EINVALID,
                      "SET 'floe.state.memory-limit' = '%s': expected a size such as '256mb'", lim);
  r->state_limit = (size_t)bytes;
  const char *mrb = st_job_option(r->job, "floe.max-record-bytes");
  bytes = ST_MAX_RECORD_BYTES;
  if (mrb && (!st_size_parse(mrb, &bytes) || bytes == 0))
    return fl_err_set(err, FL_EINVALID,
                      "SET 'floe.max-record-bytes' = '%s': expected a size such as '8mb'", mrb);
  r->max_record_bytes = (size_t)bytes;
  r->lanes_explicit = r->nlanes > 0;
  const char *par = st_job_option(r->job, "parallelism.default");
  if (!r->nlanes && par) {
    char *end = NULL;
    long n = strtol(par, &end, 10);
    if (*par < '0' || *par > '9' || *end || n < 1 || n > 64)
      return fl_err_set(err, FL_EINVALID,
                        "SET 'parallelism.default' = '%s': expected a number from 1 to 64", par);
    r->nlanes = (uint32_t)n;
    r->lanes_explicit = true;
  }
  return FL_OK;
}

/* The lanes of the newest checkpoint: its "parallelism", or for older
 * checkpoints its sinks per INSERT (and dead-letter sink); 0: none. */
static int checkpoint_lanes(runner_t *r, const json_t *meta) {
  json_t *p = json_object_get(meta, "parallelism");
  if (json_is_integer(p)) return (int)json_integer_value(p);
  const char *b = st_job_option(r->job, "floe.bad-records");
  size_t per = r->job->ninserts + (b && !strcmp(b, "dead-letter") ? 1 : 0);
  size_t n = json_array_size(json_object_get(meta, "sinks"));
  return per && n % per == 0 && n ? (int)(n / per) : 1;
}

/*
 * How many lanes run the job: --parallelism, else SET
 * 'parallelism.default', else the newest checkpoint's (a restart keeps its
 * lanes, whose state and sinks the checkpoint holds), else one per online
 * core (at most DEFAULT_MAX_LANES) when the job reads Kafka - no more than
 * the largest topic's partitions unless an INSERT is keyed - and one when
 * it only generates rows. Several lanes run INSERTs that go row by row
 * with at most one keyed operator (ex_plan_lanes_ok); for others an
 * explicit parallelism above 1 is an error and the default falls back to
 * one lane.
 */
static int choose_lanes(runner_t *r, fl_err_t *err) {
  st_job_t *j = r->job;
  if (!r->nlanes) {
    int64_t last = 0;
    int rc = st_ckpt_latest(r->store, &last, err);
    if (rc) return rc;
    if (last > 0) {
      json_t *meta;
      if ((rc = st_ckpt_read_meta(r->store, last, &meta, err))) return rc;
      r->nlanes = (uint32_t)checkpoint_lanes(r, meta);
      json_decref(meta);
    }
  }
  if (!r->nlanes) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    r->nlanes = n < 1 ? 1 : n > DEFAULT_MAX_LANES ? DEFAULT_MAX_LANES : (uint32_t)n;
    bool keyed = false;
    for (uint32_t i = 0; i < j->ninserts; i++) {
      bool k = false;
      ex_plan_lanes_ok(j->inserts[i].plan, &k);
      keyed |= k;
    }
    /* Lanes read partitions: a job of generators runs on one, and without
     * a keyed INSERT lanes beyond the largest topic's partitions would have
     * nothing to do (a broker that does not answer leaves one lane; the
     * job's start then reports it). */
    uint32_t most = 1;
    bool splits = false;
    for (uint32_t i = 0; i < j->ntables; i++) {
      st_source_t *src;
      uint32_t parts = 1;
      fl_err_t e;
      fl_err_clear(&e);
      if (st_source_open(j->tables[i], ST_BAD_FAIL, &src, &e)) continue;
      if (src->vt->partitions) {
        splits = true;
        if (!src->vt->partitions(src, &parts, &e) && parts > most) most = parts;
      }
      st_source_free(src);
    }
    if (!splits || (!keyed && most < r->nlanes)) r->nlanes = splits ? most : 1;
  }
  for (uint32_t i = 0; r->nlanes > 1 && i < j->ninserts; i++) {
    bool keyed;
    if (ex_plan_lanes_ok(j->inserts[i].plan, &keyed)) continue;
    if (!r->lanes_explicit) {
      r->nlanes = 1;
      break;
    }
    return fl_err_set(err, FL_EUNSUPPORTED,
                      "line %u, column %u: --parallelism above 1 runs INSERTs of filters, "
                      "projections and at most one window aggregation or GROUP BY with keys; "
                      "this one joins, sorts, aggregates twice or has a global aggregate (run it "
                      "with --parallelism 1)",
                      j->inserts[i].pos.line, j->inserts[i].pos.col);
  }
  return FL_OK;
}

/* The planner's callback for the keyed operator of lane l's copy of an
 * INSERT: the INSERT's exchange (made by lane 0's) feeds it. */
static int on_keyed(void *arg, const ty_schema_t *in, const uint32_t *hash_cols, uint32_t nhash,
                    ex_op_t *op, ex_op_t **front, fl_err_t *err) {
  keyed_arg_t *k = arg;
  runner_t *r = k->r;
  (void)err;
  if (!r->hub) r->hub = st_exchange_hub_new(r->nlanes);
  if (!r->xins[k->ins]) r->xins[k->ins] = st_exchange_new(r->hub, in, hash_cols, nhash);
  *front = st_exchange_attach(r->xins[k->ins], k->lane, op);
  return FL_OK;
}

static int setup(runner_t *r, fl_err_t *err) {
  st_job_t *j = r->job;
  uint32_t N = r->nlanes, ni = j->ninserts;
  int brc = bad_records(r, err);
  if (!brc) brc = st_late_rows_open(r->cat, j, &r->late, err);
  if (brc) return brc;
  r->nq = N * ni;
  r->late_base = r->nq + (r->dead_table ? N : 0);
  r->nsinks = r->late_base + (r->late ? N : 0);
  r->queries = fl_calloc(r->nq ? r->nq : 1, sizeof *r->queries);
  r->sinks = fl_calloc(r->nsinks ? r->nsinks : 1, sizeof *r->sinks);
  r->targets = fl_calloc(r->nsinks ? r->nsinks : 1, sizeof *r->targets);
  r->lane_arena = fl_calloc(N, sizeof *r->lane_arena);
  r->xins = fl_calloc(ni ? ni : 1, sizeof *r->xins);
  r->kargs = fl_calloc(r->nq ? r->nq : 1, sizeof *r->kargs);
  for (uint32_t l = 0; r->late && l < N; l++) {
    ice_table_t *lt = st_late_rows_table(r->late);
    r->targets[r->late_base + l] =
        (sink_ref_t){st_late_rows_ns(r->late), st_late_rows_name(r->late), lt};
    r->sinks[r->late_base + l] = st_sink_new(lt, st_late_rows_schema(r->late), on_writer, r);
  }
  for (uint32_t l = 0; l < N; l++) {
    fl_arena_t *qa = j->a;
    if (l > 0) qa = r->lane_arena[l] = fl_arena_new(0);
    for (uint32_t i = 0; i < ni; i++) {
      const st_insert_t *ins = &j->inserts[i];
      uint32_t q = l * ni + i;
      r->targets[q] = (sink_ref_t){ins->ns, ins->name, ins->table};
      r->sinks[q] = st_sink_new(ins->table, ice_meta_schema(ins->table->meta), on_writer, r);
      ex_query_opts_t qo = {.now_us = -1,
                            .threads = 1,
                            .sink = st_sink_op(r->sinks[q]),
                            .mem_limit = r->state_limit,
                            .window_allowed_lateness_us = r->lateness_us};
      bool keyed = false;
      if (N > 1 && ex_plan_lanes_ok(ins->plan, &keyed) && keyed) {
        r->kargs[q] = (keyed_arg_t){r, l, i};
        qo.keyed_exchange = on_keyed;
        qo.keyed_exchange_arg = &r->kargs[q];
      }
      if (r->late) {
        qo.window_late_fn = st_late_rows_fn;
        qo.window_late_arg =
            st_late_rows_bind(r->late, ins->plan, fl_arena_sprintf(qa, "%s.%s", ins->ns, ins->name),
                              st_sink_op(r->sinks[r->late_base + l]));
      }
      int rc = ex_query_new(qa, ins->plan, &qo, &r->queries[q], err);
      if (rc)
        return fl_err_prefix(err, "line %u, column %u: INSERT INTO %s.%s: ", ins->pos.line,
                             ins->pos.col, ins->ns, ins->name);
      for (uint32_t k = 0; k < ex_query_stream_inputs(r->queries[q]); k++) {
        ex_stream_input_t in;
        ex_query_stream_input(r->queries[q], k, &in);
        /* A generator cannot be split: lane 0 reads it, the other lanes'
         * copies of its scan get nothing. */
        const char *c = sql_stream_option(in.table, "connector");
        if (l > 0 && c && strcmp(c, "kafka") != 0) {
          if (r->xins[i]) {
            r->orphans = fl_realloc(r->orphans, (r->norphans + 1) * sizeof *r->orphans);
            r->orphan_lane = fl_realloc(r->orphan_lane, (r->norphans + 1) * sizeof *r->orphan_lane);
            r->orphan_lane[r->norphans] = l;
            r->orphans[r->norphans++] = in;
          }
          continue;
        }
        st_scan_t *s;
        if ((rc = scan_for(r, in.table, l, &s, err)) || (rc = st_scan_add_target(s, &in, err)))
          return rc;
        uint32_t si = 0;
        while (r->scans[si] != s) si++;
        r->feeds = fl_realloc(r->feeds, (r->nfeeds + 1) * sizeof *r->feeds);
        r->feeds[r->nfeeds++] = (feed_t){q, si};
      }
    }
  }
  if (r->dead_table) {
    for (uint32_t l = 0; l < N; l++) {
      r->targets[r->nq + l] = (sink_ref_t){r->dead_ns, r->dead_name, r->dead_table};
      r->sinks[r->nq + l] = st_sink_new(r->dead_table, r->dead_schema, on_writer, r);
    }
    for (uint32_t i = 0; i < r->nscans; i++) {
      st_source_t *s = st_scan_source(r->scans[i]);
      s->dead = ty_batch_new(r->dead_schema, TY_BATCH_ROWS);
    }
  }
  r->sink_rows = fl_calloc(r->nsinks ? r->nsinks : 1, sizeof *r->sink_rows);
  r->sink_rows_seen = fl_calloc(r->nsinks ? r->nsinks : 1, sizeof *r->sink_rows_seen);
  r->late_rows = fl_calloc(r->nq ? r->nq : 1, sizeof *r->late_rows);
  r->late_rows_seen = fl_calloc(r->nq ? r->nq : 1, sizeof *r->late_rows_seen);
  for (uint32_t i = 0; i < r->nsinks; i++) {
    char *ident = fl_arena_sprintf(j->a, "%s.%s", r->targets[i].ns, r->targets[i].name);
    fl_label_t l = {"table", ident};
    int rc = fl_metrics_counter(r->reg, "floe_job_rows_written_total",
                                "Rows the job's sinks wrote into a table (committed at the next "
                                "checkpoint)",
                                &l, 1, &r->sink_rows[i], err);
    if (!rc && i < r->nq)
      rc = fl_metrics_counter(r->reg, "floe_job_late_rows_total",
                              "Rows a window aggregation dropped because every window they belong "
                              "to had fired (beyond the allowed lateness)",
                              &l, 1, &r->late_rows[i], err);
    if (rc) return rc;
  }
  return FL_OK;
}

/* Rows the sources sent to the dead letters go to its lane's sink. */
static int drain_dead_letters(runner_t *r, st_source_t *s, fl_err_t *err) {
  if (!s->dead || !s->dead->nrows) return FL_OK;
  int rc = ex_op_push(st_sink_op(r->sinks[r->nq + s->lane]), s->dead, err);
  ty_batch_reset(s->dead);
  return rc;
}

/* ---- checkpoints and commits ---- */

static json_t *positions(runner_t *r) {
  json_t *p = json_object();
  for (uint32_t i = 0; i < r->nscans; i++) {
    st_source_t *s = st_scan_source(r->scans[i]);
    json_t *pos = s->vt->position(s);
    json_t *had = json_object_get(p, r->tables[i]->name);
    if (had) {
      /* Another lane's share of the table: one offsets map for all. */
      json_object_update(json_object_get(had, "offsets"), json_object_get(pos, "offsets"));
      json_decref(pos);
    } else {
      json_object_set_new(p, r->tables[i]->name, pos);
    }
  }
  return p;
}

static const char *table_ident(fl_arena_t *a, const sink_ref_t *ins) {
  return fl_arena_sprintf(a, "%s.%s", ins->ns, ins->name);
}

/*
 * Commits checkpoint id: files[i] of sink i, grouped by table (two INSERTs
 * into one table make one snapshot).
 */
static int commit(runner_t *r, int64_t id, const json_t *pos, ice_data_file_t **files,
                  size_t *nfiles, fl_arena_t *a, fl_err_t *err) {
  int64_t t0 = fl_monotonic_ns();
  st_commit_table_t *ct = fl_arena_zalloc(a, (r->nsinks ? r->nsinks : 1) * sizeof *ct);
  uint32_t nct = 0;
  for (uint32_t i = 0; i < r->nsinks; i++) {
    const sink_ref_t *ins = &r->targets[i];
    uint32_t k = 0;
    while (k < nct && !(strcmp(ct[k].ns, ins->ns) == 0 && strcmp(ct[k].name, ins->name) == 0)) k++;
    if (k == nct) ct[nct++] = (st_commit_table_t){.ns = ins->ns, .name = ins->name};
    if (!nfiles[i]) continue;
    ice_data_file_t *all = fl_arena_zalloc(a, (ct[k].nfiles + nfiles[i]) * sizeof *all);
    if (ct[k].nfiles) memcpy(all, ct[k].files, ct[k].nfiles * sizeof *all);
    memcpy(all + ct[k].nfiles, files[i], nfiles[i] * sizeof *all);
    ct[k].files = all;
    ct[k].nfiles += nfiles[i];
  }
  char *offsets = json_dumps(pos, JSON_COMPACT | JSON_SORT_KEYS);
  bool mid =
      r->fault && strcmp(r->fault, "mid-commit") == 0 && (r->fault_at <= 0 || r->fault_at == id);
  int rc =
      st_commit_checkpoint(r->cat, r->o->job_id, id, offsets ? offsets : "{}", ct, nct, mid, err);
  free(offsets);
  if (rc) return rc;
  json_t *tabs = json_array();
  uint64_t nf = 0;
  for (uint32_t k = 0; k < nct; k++) {
    nf += ct[k].nfiles;
    json_array_append_new(
        tabs,
        json_pack("{s:s,s:I,s:I}", "table", fl_arena_sprintf(a, "%s.%s", ct[k].ns, ct[k].name),
                  "snapshot-id", (json_int_t)ct[k].snapshot_id, "files", (json_int_t)ct[k].nfiles));
  }
  fl_gauge_set(r->js.commit_dur, (double)(fl_monotonic_ns() - t0) / 1e9);
  fl_gauge_set(r->js.commit_id, (double)id);
  fl_gauge_set(r->js.commit_time, (double)wall_ms() / 1e3);
  fl_counter_inc(r->js.commits);
  char *tabs_text = json_dumps(tabs, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(tabs);
  JOB_LOG(r, "commit", FL_LF_INT("checkpoint-id", id), FL_LF_UINT("files", nf),
          FL_LF_JSON("tables", tabs_text));
  free(tabs_text);
  return FL_OK;
}

/* After checkpoint id is committed: writer records and old folders go,
 * the sources tell their groups. */
static int after_commit(runner_t *r, int64_t id, const json_t *pos, fl_err_t *err) {
  int rc = st_ckpt_clean_writers(r->store, id, NULL, err);
  if (rc) return rc;
  st_ckpt_prune(r->store, id, r->o->keep_checkpoints > 0 ? r->o->keep_checkpoints : 3);
  for (uint32_t i = 0; i < r->nscans; i++) {
    st_source_t *s = st_scan_source(r->scans[i]);
    s->vt->committed(s, json_object_get(pos, r->tables[i]->name));
  }
  return FL_OK;
}

static int checkpoint(runner_t *r, fl_err_t *err) {
  int64_t id = r->next_chk, t0 = fl_monotonic_ns();
  fl_arena_t *a = fl_arena_new(0);
  int rc = st_ckpt_begin(r->store, id, err);
  ice_data_file_t **files = fl_arena_zalloc(a, (r->nsinks ? r->nsinks : 1) * sizeof *files);
  size_t *nfiles = fl_arena_zalloc(a, (r->nsinks ? r->nsinks : 1) * sizeof *nfiles);
  json_t *sinks = json_array();
  uint64_t records = 0, nf = 0;
  for (uint32_t i = 0; i < r->nsinks && !rc; i++) {
    const sink_ref_t *ins = &r->targets[i];
    rc = st_sink_take_files(r->sinks[i], a, &files[i], &nfiles[i], err);
    const char *name = NULL;
    if (!rc && nfiles[i]) {
      name = fl_arena_sprintf(a, "pending-%u.avro", i);
      rc = st_ckpt_write_files(r->store, id, name, ins->table, files[i], nfiles[i], err);
    }
    int64_t recs = 0;
    for (size_t k = 0; k < nfiles[i]; k++) recs += files[i][k].record_count;
    records += (uint64_t)recs;
    nf += nfiles[i];
    json_array_append_new(
        sinks,
        json_pack("{s:s,s:o,s:I,s:I,s:i}", "table", table_ident(a, ins), "manifest",
                  name ? json_string(name) : json_null(), "files", (json_int_t)nfiles[i], "records",
                  (json_int_t)recs, "spec-id", ice_meta_spec(ins->table->meta)->spec_id));
  }
  fl_buf_t state;
  fl_buf_init(&state);
  for (uint32_t i = 0; i < r->nq && !rc; i++) rc = ex_query_checkpoint(r->queries[i], &state, err);
  if (!rc) rc = st_ckpt_write_blob(r->store, id, "state.bin", state.data, state.len, err);
  size_t state_bytes = state.len;
  fl_buf_free(&state);
  json_t *pos = positions(r);
  if (!rc) {
    fault_point(r, "after-files-before-metadata", id);
    json_t *meta =
        json_pack("{s:s,s:I,s:I,s:I,s:O,s:O,s:s}", "job-id", r->o->job_id, "checkpoint-id",
                  (json_int_t)id, "timestamp-ms", (json_int_t)wall_ms(), "parallelism",
                  (json_int_t)r->nlanes, "sources", pos, "sinks", sinks, "state", "state.bin");
    rc = st_ckpt_write_meta(r->store, id, meta, err);
    json_decref(meta);
  }
  if (!rc) {
    fl_gauge_set(r->js.chk_dur, (double)(fl_monotonic_ns() - t0) / 1e9);
    fl_gauge_set(r->js.chk_id, (double)id);
    fl_gauge_set(r->js.chk_time, (double)wall_ms() / 1e3);
    fl_gauge_set(r->js.state_bytes, (double)state_bytes);
    fl_counter_inc(r->js.chks);
    char wm[64];
    format_ts(job_watermark(r), wm, sizeof wm);
    fl_metrics_snap_t snap;
    fl_metrics_snapshot(r->reg, &snap);
    double events = 0;
    fl_metrics_snap_sum(&snap, EVENTS_METRIC, &events);
    fl_metrics_snap_free(&snap);
    char *offsets = json_dumps(pos, JSON_COMPACT | JSON_PRESERVE_ORDER);
    uint64_t late = 0, spills = 0;
    window_totals(r, &late, &spills);
    JOB_LOG(r, "checkpoint", FL_LF_INT("checkpoint-id", id), FL_LF_UINT("events", events),
            FL_LF_UINT("files", nf), FL_LF_UINT("records", records), FL_LF_STR("watermark", wm),
            FL_LF_UINT("late-rows", late), FL_LF_UINT("state-spills", spills),
            FL_LF_UINT("state-bytes", state_bytes), FL_LF_JSON("offsets", offsets));
    free(offsets);
    fault_point(r, "after-checkpoint-before-commit", id);
    rc = commit(r, id, pos, files, nfiles, a, err);
  }
  if (!rc) rc = after_commit(r, id, pos, err);
  if (!rc) r->next_chk = id + 1;
  json_decref(pos);
  json_decref(sinks);
  fl_arena_free(a);
  return rc ? fl_err_prefix(err, "checkpoint %" PRId64 ": ", id) : FL_OK;
}

/* ---- recovery ---- */

static int recover(runner_t *r, fl_err_t *err) {
  int64_t last;
  int rc = st_ckpt_latest(r->store, &last, err);
  if (rc) return rc;
  json_t *meta = NULL, *sources = NULL;
  fl_arena_t *a = fl_arena_new(0);
  if (last > 0) {
    if ((rc = st_ckpt_read_meta(r->store, last, &meta, err))) goto out;
    int lanes = checkpoint_lanes(r, meta);
    if (lanes != (int)r->nlanes) {
      rc = fl_err_set(err, FL_EINVALID,
                      "checkpoint %" PRId64
                      " was taken with parallelism %d, the job now runs with %u: each worker "
                      "thread's sinks and keyed state are in it, so restart with --parallelism %d "
                      "(or run under another --job-id)",
                      last, lanes, r->nlanes, lanes);
      goto out;
    }
    json_t *sinks = json_object_get(meta, "sinks");
    if (json_array_size(sinks) != r->nsinks) {
      rc = fl_err_set(err, FL_EINVALID,
                      "checkpoint %" PRId64
                      " has %zu sinks but the job has %u INSERTs (the job "
                      "changed; run it under another --job-id)",
                      last, json_array_size(sinks), r->nsinks);
      goto out;
    }
    ice_data_file_t **files = fl_arena_zalloc(a, (r->nsinks ? r->nsinks : 1) * sizeof *files);
    size_t *nfiles = fl_arena_zalloc(a, (r->nsinks ? r->nsinks : 1) * sizeof *nfiles);
    for (uint32_t i = 0; i < r->nsinks && !rc; i++) {
      const sink_ref_t *ins = &r->targets[i];
      json_t *s = json_array_get(sinks, i);
      const char *tab = json_string_value(json_object_get(s, "table"));
      if (!tab || strcmp(tab, table_ident(a, ins)) != 0) {
        rc = fl_err_set(err, FL_EINVALID,
                        "checkpoint %" PRId64
                        " wrote sink %u into %s, the job now into %s.%s "
                        "(the job changed; run it under another --job-id)",
                        last, i, tab ? tab : "?", ins->ns, ins->name);
        break;
      }
      const char *mf = json_string_value(json_object_get(s, "manifest"));
      if (mf)
        rc = st_ckpt_read_files(r->store, last, mf, ins->table,
                                (int32_t)json_integer_value(json_object_get(s, "spec-id")), a,
                                &files[i], &nfiles[i], err);
    }
    sources = json_object_get(meta, "sources");
    /* The newest complete checkpoint may lack its commit (a crash between
     * the two): commit it now; tables that have it are left alone. */
    if (!rc) rc = commit(r, last, sources, files, nfiles, a, err);
    uint8_t *state = NULL;
    size_t len = 0;
    if (!rc) rc = st_ckpt_read_blob(r->store, last, "state.bin", &state, &len, err);
    if (!rc) {
      fl_rd_t rd;
      fl_rd_init(&rd, state, len, "checkpoint state");
      for (uint32_t i = 0; i < r->nq && !rc; i++) rc = ex_query_restore(r->queries[i], &rd, err);
    }
    fl_free(state);
    if (rc) goto out;
  } else {
    for (uint32_t i = 0; i < r->nsinks; i++) {
      int64_t c = st_committed_checkpoint(r->targets[i].table, r->o->job_id);
      if (c > 0) {
        rc = fl_err_set(err, FL_EINVALID,
                        "%s.%s holds commits of job %s up to checkpoint %" PRId64
                        " but no checkpoint of it is left under %s: starting over would add "
                        "its rows again (run under another --job-id)",
                        r->targets[i].ns, r->targets[i].name, r->o->job_id, c,
                        st_ckpt_job_dir(r->store));
        goto out;
      }
    }
  }
  /* Files of checkpoints after the last complete one were never committed. */
  uint64_t deleted = 0;
  if ((rc = st_ckpt_clean_writers(r->store, last, &deleted, err))) goto out;
  st_ckpt_prune(r->store, last, r->o->keep_checkpoints > 0 ? r->o->keep_checkpoints : 3);
  for (uint32_t i = 0; i < r->nscans && !rc; i++) {
    st_source_t *s = st_scan_source(r->scans[i]);
    const json_t *p = sources ? json_object_get(sources, r->tables[i]->name) : NULL;
    rc = s->vt->start(s, p, r->o->once, err);
    if (!rc) st_scan_started(r->scans[i], mono_ms());
  }
  if (!rc)
    JOB_LOG(r, "start", FL_LF_INT("restored-checkpoint", last),
            FL_LF_UINT("deleted-uncommitted-files", deleted), FL_LF_UINT("parallelism", r->nlanes));
  r->next_chk = last + 1;
out:
  json_decref(meta);
  fl_arena_free(a);
  return rc;
}

/* ---- the loop ---- */

/* What the sinks of one lane wrote since the last call (its thread). */
static void count_lane(runner_t *r, uint32_t lane) {
  uint32_t ni = r->job->ninserts;
  for (uint32_t i = 0; i < ni; i++) count_sink(r, lane * ni + i);
  if (r->dead_table) count_sink(r, r->nq + lane);
  if (r->late) count_sink(r, r->late_base + lane);
}

/* Polls every scan of one lane once; *all_ended: each of them is done. */
static int lane_step(runner_t *r, uint32_t lane, int slice, bool *all_ended, fl_err_t *err) {
  *all_ended = true;
  for (uint32_t i = 0; i < r->nscans; i++) {
    if (r->scan_lane[i] != lane || r->ended[i]) continue;
    uint32_t rows;
    bool end = false;
    int rc;
    if ((rc = st_scan_step(r->scans[i], slice, mono_ms(), &rows, &end, err)) ||
        (rc = drain_dead_letters(r, st_scan_source(r->scans[i]), err)))
      return rc;
    if (end) {
      if ((rc = st_scan_finish(r->scans[i], err))) return rc;
      r->ended[i] = true;
    } else {
      *all_ended = false;
    }
    count_scan(r, i, rows);
  }
  count_lane(r, lane);
  return FL_OK;
}

static int scans_of(const runner_t *r, uint32_t lane) {
  int n = 0;
  for (uint32_t i = 0; i < r->nscans; i++) n += r->scan_lane[i] == lane;
  return n;
}

static int loop_one(runner_t *r, fl_err_t *err) {
  int64_t last_chk = mono_ms();
  int n = scans_of(r, 0);
  int slice = n > 1 ? 100 / n : 100;
  if (slice < 5) slice = 5;
  int rc = FL_OK;
  for (;;) {
    bool stopping = r->o->stop && *r->o->stop;
    bool all_ended = true;
    if (!stopping && (rc = lane_step(r, 0, slice, &all_ended, err))) return rc;
    update_watermark(r);
    if (stopping || all_ended) break;
    if (mono_ms() - last_chk >= r->interval_ms) {
      if ((rc = checkpoint(r, err))) return rc;
      last_chk = mono_ms();
    }
    tick(r);
  }
  return FL_OK;
}

/* ---- several lanes ---- */

/* Tells each exchange of the lane whether the scans feeding that INSERT
 * on this lane are all idle (or have no partitions), so that the keyed
 * lanes do not wait for their watermark. */
static int lane_idle(runner_t *r, uint32_t lane, fl_err_t *err) {
  uint32_t ni = r->job->ninserts;
  int64_t now = mono_ms();
  for (uint32_t i = 0; i < ni; i++) {
    if (!r->xins[i]) continue;
    uint32_t q = lane * ni + i;
    bool idle = true, any = false;
    for (uint32_t f = 0; f < r->nfeeds; f++) {
      uint32_t s = r->feeds[f].scan;
      if (r->feeds[f].q != q || r->ended[s]) continue;
      any = true;
      idle &= st_scan_idle(r->scans[s], now);
    }
    int rc = any ? st_exchange_set_idle(r->xins[i], lane, idle, err) : FL_OK;
    if (rc) return rc;
  }
  return FL_OK;
}

/* Whether every exchange's target on the lane has been finished. */
static bool lane_targets_done(const runner_t *r, uint32_t lane) {
  for (uint32_t i = 0; i < r->job->ninserts; i++)
    if (r->xins[i] && !st_exchange_done(r->xins[i], lane)) return false;
  return true;
}

/* Delivers the rows other lanes sent this one into its keyed operators. */
static int lane_drain(runner_t *r, uint32_t lane, bool *did, fl_err_t *err) {
  int rc = st_exchange_hub_drain(r->hub, lane, did, err);
  if (*did) count_lane(r, lane);
  return rc;
}

/*
 * Several lanes (--parallelism N): lane l polls its scans on its own
 * thread (Kafka partitions p with p % N == l, generators on lane 0) and
 * pushes into its own copies of the pipelines and sinks; an INSERT with a
 * keyed operator sends each row to the lane owning its key through the
 * job's exchange hub (st_exchange.h), and each lane drains what the
 * others sent it into its copy of the keyed operator. This thread
 * coordinates: for a checkpoint it asks the lanes to pause, waits until
 * each has parked at a batch boundary (or finished) and, with exchanges,
 * until the parked lanes have drained every channel into the operators
 * (so that state and offsets agree), takes and commits the checkpoint
 * over every lane's sinks and sources, and lets them go on.
 *
 * A lane with exchanges is done when its scans ended and its keyed
 * operators got finish from every lane; until then it keeps draining,
 * also while parked, so that a lane waiting for room in a channel always
 * gets it.
 */
typedef struct lanes {
  runner_t *r;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool pause, quit;
  uint32_t parked; /* lanes waiting, plus lanes that have ended */
  uint32_t done;   /* lanes that have ended */
  int rc;          /* the first lane's error */
  fl_err_t err;
} lanes_t;

typedef struct lane_arg {
  lanes_t *ls;
  uint32_t lane;
} lane_arg_t;

static void wake_lanes(lanes_t *ls) {
  pthread_cond_broadcast(&ls->cv);
  for (uint32_t l = 0; ls->r->hub && l < ls->r->nlanes; l++) st_exchange_hub_wake(ls->r->hub, l);
}

/* Parks lane `lane` while the coordinator pauses (ls->mu held); with
 * exchanges it drains meanwhile. */
static int park(lanes_t *ls, uint32_t lane, fl_err_t *err) {
  runner_t *r = ls->r;
  int rc = FL_OK;
  ls->parked++;
  pthread_cond_broadcast(&ls->cv);
  while (ls->pause && !ls->quit && !rc) {
    if (!r->hub) {
      pthread_cond_wait(&ls->cv, &ls->mu);
      continue;
    }
    pthread_mutex_unlock(&ls->mu);
    uint64_t t = st_exchange_hub_ticket(r->hub, lane);
    bool did;
    rc = lane_drain(r, lane, &did, err);
    if (!rc && !did) st_exchange_hub_wait(r->hub, lane, t, 20);
    pthread_mutex_lock(&ls->mu);
  }
  ls->parked--;
  return rc;
}

static void *lane_main(void *arg) {
  lane_arg_t *la = arg;
  lanes_t *ls = la->ls;
  runner_t *r = ls->r;
  uint32_t lane = la->lane;
  int n = scans_of(r, lane);
  int slice = n > 1 ? 100 / n : 100;
  if (slice < 5) slice = 5;
  fl_err_t err;
  fl_err_clear(&err);
  int rc = FL_OK;
  bool ended = n == 0;
  /* This lane's copies of generator inputs get nothing: they end now. */
  for (uint32_t i = 0; i < r->norphans && !rc; i++)
    if (r->orphan_lane[i] == lane) rc = ex_op_finish(r->orphans[i].op, &err);
  while (!rc) {
    pthread_mutex_lock(&ls->mu);
    if (ls->pause) rc = park(ls, lane, &err);
    bool quit = ls->quit;
    pthread_mutex_unlock(&ls->mu);
    if (quit || rc) break;
    if (!r->hub) {
      if ((rc = lane_step(r, lane, slice, &ended, &err)) || ended) break;
      continue;
    }
    uint64_t t = st_exchange_hub_ticket(r->hub, lane);
    bool did = false;
    if (!ended) {
      /* Short polls: other lanes' rows wait in this lane's channels. */
      int wait = st_exchange_hub_pending(r->hub, lane) ? 0 : slice < 10 ? slice : 10;
      if ((rc = lane_step(r, lane, wait, &ended, &err)) || (rc = lane_idle(r, lane, &err))) break;
    }
    if ((rc = lane_drain(r, lane, &did, &err))) break;
    if (ended && lane_targets_done(r, lane)) break;
    if (ended && !did) st_exchange_hub_wait(r->hub, lane, t, 20);
  }
  pthread_mutex_lock(&ls->mu);
  if (rc && !ls->rc) {
    ls->rc = rc;
    ls->err = err;
  }
  if (rc && r->hub) st_exchange_hub_abort(r->hub);
  ls->parked++; /* for good */
  ls->done++;
  pthread_cond_broadcast(&ls->cv);
  pthread_mutex_unlock(&ls->mu);
  return NULL;
}

/* Pauses every lane at its next batch boundary and waits until it is and,
 * with exchanges, until no rows are in flight between lanes; quit: the
 * lanes then end. */
static void park_all(lanes_t *ls, bool quit) {
  runner_t *r = ls->r;
  pthread_mutex_lock(&ls->mu);
  ls->pause = true;
  wake_lanes(ls);
  while (ls->parked < r->nlanes) pthread_cond_wait(&ls->cv, &ls->mu);
  while (r->hub && !ls->rc && !st_exchange_hub_quiet(r->hub)) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 1000000;
    if (until.tv_nsec >= 1000000000) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&ls->cv, &ls->mu, &until);
  }
  if (quit) {
    ls->quit = true;
    wake_lanes(ls);
  }
  pthread_mutex_unlock(&ls->mu);
}

static void release_all(lanes_t *ls) {
  pthread_mutex_lock(&ls->mu);
  ls->pause = false;
  wake_lanes(ls);
  pthread_mutex_unlock(&ls->mu);
}

static int loop_lanes(runner_t *r, fl_err_t *err) {
  uint32_t N = r->nlanes;
  lanes_t ls = {.r = r};
  pthread_mutex_init(&ls.mu, NULL);
  pthread_cond_init(&ls.cv, NULL);
  fl_err_clear(&ls.err);
  lane_arg_t *args = fl_calloc(N, sizeof *args);
  pthread_t *th = fl_calloc(N, sizeof *th);
  for (uint32_t l = 0; l < N; l++) {
    args[l] = (lane_arg_t){&ls, l};
    pthread_create(&th[l], NULL, lane_main, &args[l]);
  }
  int64_t last_chk = mono_ms();
  int rc = FL_OK;
  for (;;) {
    usleep(10000);
    pthread_mutex_lock(&ls.mu);
    bool failed = ls.rc != 0, all_ended = ls.done == N;
    pthread_mutex_unlock(&ls.mu);
    bool stopping = r->o->stop && *r->o->stop;
    update_watermark(r);
    if (failed || stopping || all_ended) break;
    if (mono_ms() - last_chk >= r->interval_ms) {
      park_all(&ls, false);
      pthread_mutex_lock(&ls.mu);
      failed = ls.rc != 0;
      pthread_mutex_unlock(&ls.mu);
      if (!failed && (rc = checkpoint(r, err))) break;
      release_all(&ls);
      last_chk = mono_ms();
    }
    tick(r);
  }
  park_all(&ls, true);
  for (uint32_t l = 0; l < N; l++) pthread_join(th[l], NULL);
  update_watermark(r);
  if (!rc && ls.rc) {
    rc = ls.rc;
    *err = ls.err;
  }
  fl_free(args);
  fl_free(th);
  pthread_cond_destroy(&ls.cv);
  pthread_mutex_destroy(&ls.mu);
  return rc;
}

static int loop(runner_t *r, fl_err_t *err) {
  int rc = r->nlanes > 1 ? loop_lanes(r, err) : loop_one(r, err);
  if (rc) return rc;
  /* The final checkpoint and commit. */
  rc = checkpoint(r, err);
  st_progress_finish(r->progress, fl_monotonic_ns());
  r->progress = NULL;
  return rc;
}

int st_run(cat_catalog_t *cat, st_job_t *job, const st_run_opts_t *o, fl_err_t *err) {
  runner_t r = {.cat = cat, .job = job, .o = o, .reg = o->metrics, .nlanes = o->parallelism};
  fault_setup(&r);
  r.interval_ms = o->checkpoint_interval_ms;
  const char *iv = st_job_option(job, "execution.checkpointing.interval");
  if (r.interval_ms <= 0 && iv && !st_duration_parse(iv, &r.interval_ms))
    return fl_err_set(err, FL_EINVALID,
                      "SET 'execution.checkpointing.interval' = '%s': expected a duration such "
                      "as '10 s'",
                      iv);
  if (r.interval_ms <= 0) r.interval_ms = 10000;
  int rc = job_settings(&r, err);
  if (!rc) rc = job_stats_register(&r, err);
  if (!rc && o->progress)
    r.progress =
        st_progress_new(r.reg, stderr, true, &(st_progress_names_t){.events = EVENTS_METRIC});
  if (!rc) rc = st_job_check_blocking(job, o->once, err);
  if (!rc) rc = st_ckpt_open(o->warehouse, o->job_id, &r.store, err);
  if (!rc) rc = choose_lanes(&r, err);
  if (!rc) rc = setup(&r, err);
  if (!rc) rc = recover(&r, err);
  if (!rc) rc = loop(&r, err);
  st_progress_finish(r.progress, fl_monotonic_ns());
  for (uint32_t i = 0; i < r.nq; i++) ex_query_free(r.queries[i]);
  for (uint32_t l = 0; r.lane_arena && l < r.nlanes; l++) fl_arena_free(r.lane_arena[l]);
  fl_free(r.lane_arena);
  st_exchange_hub_free(r.hub);
  fl_free(r.xins);
  fl_free(r.kargs);
  fl_free(r.orphans);
  fl_free(r.orphan_lane);
  fl_free(r.feeds);
  fl_free(r.scan_lane);
  fl_free(r.scan_stat);
  fl_free(r.sink_rows);
  fl_free(r.sink_rows_seen);
  fl_free(r.late_rows);
  fl_free(r.late_rows_seen);
  for (uint32_t i = 0; i < r.nsinks; i++) st_sink_free(r.sinks[i]);
  for (uint32_t i = 0; i < r.nscans; i++) {
    ty_batch_free(st_scan_source(r.scans[i])->dead);
    st_scan_free(r.scans[i]);
  }
  ice_table_free(r.dead_table);
  st_late_rows_free(r.late);
  fl_free(r.targets);
  fl_free(r.queries);
  fl_free(r.sinks);
  fl_free(r.scans);
  fl_free(r.tables);
  fl_free(r.ended);
  st_ckpt_close(r.store);
  return rc;
}
