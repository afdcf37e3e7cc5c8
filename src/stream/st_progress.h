/*
 * st_progress.h - the progress line of a running job on a terminal (layer
 * 10, stream).
 *
 * Reads the metrics registry, not the job: one line redrawn in place
 * ("\r", the line, clear to end of line), cut to the terminal's width so
 * it never wraps:
 *
 *   events 120000  10012/s  lag 0  wm 2024-01-01 00:01:05  chk 12 3.1s ago  commit 11 4.0s ago
 *
 * events is the sum of a counter over its series, the rate is over a
 * sliding window of the last 10 seconds, lag the maximum of a gauge over
 * partitions; the watermark, checkpoint and commit parts show only when
 * their gauges are registered. When the output is not a terminal nothing
 * is drawn.
 */
#ifndef FL_STREAM_ST_PROGRESS_H
#define FL_STREAM_ST_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/metrics.h"

/* The gauges the job runtime sets for the progress line (and scrapes):
 * times in seconds since the Unix epoch. */
#define ST_METRIC_WATERMARK "floe_job_watermark_seconds"
#define ST_METRIC_CHECKPOINT_ID "floe_job_last_checkpoint_id"
#define ST_METRIC_CHECKPOINT_TIME "floe_job_last_checkpoint_time_seconds"
#define ST_METRIC_COMMIT_CHECKPOINT_ID "floe_job_last_commit_checkpoint_id"
#define ST_METRIC_COMMIT_TIME "floe_job_last_commit_time_seconds"

/* Which metrics the line shows; NULL fields take the defaults
 * (floe_kafka_records_consumed_total, floe_kafka_consumer_lag and the
 * ST_METRIC_* gauges). */
typedef struct st_progress_names {
  const char *events, *lag, *watermark, *checkpoint_id, *checkpoint_time, *commit_checkpoint_id,
      *commit_time;
} st_progress_names_t;

typedef struct st_progress st_progress_t;

/* A renderer of reg onto out; tty says whether out is a terminal (pass
 * isatty(fileno(out))); names may be NULL. */
st_progress_t *st_progress_new(fl_metrics_t *reg, FILE *out, bool tty,
                               const st_progress_names_t *names);
/* Redraws the line when at least 250 ms passed since the last redraw. */
void st_progress_tick(st_progress_t *p, int64_t now_ns);
/* Draws the final state and ends the line (so later output starts on a
 * fresh line); frees. NULL is fine. */
void st_progress_finish(st_progress_t *p, int64_t now_ns);

/*
 * Adds a sample of the registry at now_ns (monotonic) to the rate window
 * and formats the line for wall-clock time now_s into buf (NUL-terminated,
 * at most size - 1 bytes); returns its length. What tick draws.
 */
size_t st_progress_format(st_progress_t *p, int64_t now_ns, double now_s, char *buf, size_t size);

#endif
