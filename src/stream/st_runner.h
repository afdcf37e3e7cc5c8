/*
 * st_runner.h - running a streaming job with exactly-once checkpoints
 * (layer 10, stream): what `floe run` does.
 *
 * The runner builds one operator pipeline per INSERT with the planner
 * (ex_plan.h), ending in an Iceberg sink (st_sink_iceberg.h), and one
 * scan per connector table the plans read (st_scan.h). It then recovers
 * (the newest complete checkpoint's pending commit made sure of, operator
 * state restored, sources sought to the recorded positions, files of
 * unfinished checkpoints deleted) and loops: poll the sources, push the
 * batches, and every checkpoint interval take a checkpoint at that batch
 * boundary and commit it (docs/decisions/0008-checkpoint-commit-protocol.md).
 * It stops when *stop is set (a final checkpoint and commit first), or
 * when every source is bounded and has ended (--once). With parallelism
 * N the pipelines, sinks and Kafka sources exist once per lane, each lane
 * polled by its own thread; an INSERT's keyed operator (a window
 * aggregation or GROUP BY) gets its rows from every lane by key hash
 * through an exchange (st_exchange.h). Checkpoints pause all lanes at a
 * batch boundary and drain the exchanges into the operators first.
 *
 * Test hook: the environment variable FLOE_FAULT_POINT makes the process
 * exit (status 86, no clean-up) at a chosen point of checkpoint N
 * (POINT@N; the first checkpoint without @N): after-files-before-metadata,
 * after-checkpoint-before-commit, mid-commit (new table metadata written,
 * catalog not swapped). Recovery tests use it; it has no other purpose.
 */
#ifndef FL_STREAM_RUNNER_H
#define FL_STREAM_RUNNER_H

#include <signal.h>
#include <stdbool.h>

#include "base/log.h"
#include "base/metrics.h"
#include "catalog/catalog.h"
#include "stream/st_job.h"

typedef struct st_run_opts {
  const char *job_id;    /* required */
  const char *warehouse; /* where _floe/jobs/<id> lives */
  bool once;             /* bounded: up to the end of the input as at start */
  /* Worker threads (lanes); 0: SET 'parallelism.default', else the newest
   * checkpoint's, else one per online core (at most 16; without a keyed
   * INSERT at most the largest topic's partitions) for a job that reads
   * Kafka and 1 for one that only generates rows. */
  uint32_t parallelism;
  int64_t checkpoint_interval_ms; /* 0: the job's execution.checkpointing.interval, else 10 s */
  int keep_checkpoints;           /* 0: 3 */
  int64_t allowed_lateness_ms;    /* 0: SET 'table.exec.emit.allow-lateness', else none */
  uint64_t state_memory_limit;    /* bytes; 0: SET 'floe.state.memory-limit', else none */
  fl_log_t *log;                  /* a line per start, checkpoint and commit; NULL: none */
  bool log_on_stderr;             /* log writes to stderr: the progress line is cleared first */
  fl_metrics_t *metrics;          /* where the job's series go (required; see below) */
  bool progress;                  /* the progress line (st_progress.h) on stderr */
  volatile sig_atomic_t *stop;    /* set by a signal handler: stop after a final commit */
} st_run_opts_t;

/*
 * The series a job registers in o->metrics (docs/metrics.md), updated per
 * batch with atomics, so a scrape or the progress line sees the same
 * figures:
 *   floe_job_events_read_total{source}              rows the source handed out
 *   floe_job_bad_records_skipped_total{source}      records skipped (bad values, tombstones)
 *   floe_job_bad_records_dead_lettered_total{source} records sent to the dead-letter table
 *   floe_job_rows_written_total{table}              rows the sinks wrote (committed or not)
 *   floe_job_watermark_seconds                      the smallest source watermark
 *   floe_job_last_checkpoint_id / _time_seconds / _duration_seconds
 *   floe_job_last_commit_checkpoint_id / _time_seconds / _duration_seconds
 *   floe_job_checkpoints_total, floe_job_commits_total
 *   floe_job_state_bytes                            operator state of the last checkpoint
 * and every Kafka source its floe_kafka_* series (st_kafka_metrics.h).
 */
int st_run(cat_catalog_t *cat, st_job_t *job, const st_run_opts_t *o, fl_err_t *err);

#endif
