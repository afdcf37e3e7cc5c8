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
 * polled by its own thread; checkpoints pause all lanes at a batch
 * boundary.
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
#include <stdatomic.h>
#include <stdio.h>

#include "catalog/catalog.h"
#include "stream/st_job.h"

/* Counters of a running job, for the progress line and metrics. Written
 * by the job's thread, readable from any thread. */
typedef struct st_metrics {
  _Atomic uint64_t events;       /* rows read from the sources */
  _Atomic uint64_t rows_written; /* rows the sinks wrote */
  _Atomic uint64_t skipped;      /* records the sources skipped */
  _Atomic int64_t watermark_us;  /* smallest source watermark; INT64_MIN: none */
  _Atomic int64_t checkpoint_id; /* last completed checkpoint; 0: none */
  _Atomic int64_t checkpoint_ms; /* when (epoch ms) */
  _Atomic int64_t committed_id;  /* last committed checkpoint */
  _Atomic int64_t committed_ms;
  _Atomic uint64_t files_committed;
} st_metrics_t;

typedef struct st_run_opts {
  const char *job_id;             /* required */
  const char *warehouse;          /* where _floe/jobs/<id> lives */
  bool once;                      /* bounded: up to the end of the input as at start */
  uint32_t parallelism;           /* worker threads (lanes); 0: 1 */
  int64_t checkpoint_interval_ms; /* 0: the job's execution.checkpointing.interval, else 10 s */
  int keep_checkpoints;           /* 0: 3 */
  FILE *log;                      /* JSON lines per checkpoint and commit; NULL: none */
  bool progress;                  /* a one-line progress on stderr */
  volatile sig_atomic_t *stop;    /* set by a signal handler: stop after a final commit */
} st_run_opts_t;

void st_metrics_init(st_metrics_t *m);
int st_run(cat_catalog_t *cat, st_job_t *job, const st_run_opts_t *o, st_metrics_t *m,
           fl_err_t *err);

#endif
