/*
 * cmd_run.c - `floe run job.sql`: a streaming job (Flink SQL) from Kafka
 * or datagen into Iceberg tables, committed exactly once per checkpoint
 * (layer 12, cli). The job runtime is stream/st_runner.h; this file reads
 * the options, the job file and the catalog (the same --warehouse and
 * --catalog as `floe sql`), installs the SIGINT/SIGTERM handlers that
 * end the job after a final commit, and reports errors with the job
 * file's line, a caret, and exit status 1.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/buf.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/observe.h"
#include "cli/session.h"
#include "exec/ex_plan.h"
#include "sql/sql_parse.h"
#include "stream/st_job.h"
#include "stream/st_options.h"
#include "stream/st_runner.h"

extern const cli_command_t cli_cmd_run;

static volatile sig_atomic_t g_stop;

static void on_signal(int sig) {
  (void)sig;
  g_stop = 1;
}

static void report(const char *path, const char *text, size_t len, const fl_err_t *err) {
  fprintf(stderr, "floe run: %s: %s\n", path, err->msg);
  fl_buf_t caret;
  fl_buf_init(&caret);
  sql_error_caret(text, len, err, &caret);
  if (caret.len) fprintf(stderr, "%.*s", (int)caret.len, (const char *)caret.data);
  fl_buf_free(&caret);
}

/* The job id: --job-id, SET 'pipeline.name', or the file's base name. */
static const char *job_id_of(fl_arena_t *a, const char *given, const st_job_t *j,
                             const char *path) {
  if (given) return given;
  const char *name = st_job_option(j, "pipeline.name");
  if (name && *name) return name;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  return fl_arena_strndup(a, base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
}

static int run_job(int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {{"once", false},
                                         {"job-id", true},
                                         {"checkpoint-interval", true},
                                         {"parallelism", true},
                                         {"allowed-lateness", true},
                                         {"state-memory-limit", true},
                                         CLI_OBSERVE_SPECS,
                                         {0, false}};
  cli_args_t a;
  if (cli_args_parse("run", argc, argv, specs, &a)) return 2;
  if (a.npos != 1) return cli_usage_error(&cli_cmd_run, "expected one job file");
  const char *path = a.pos[0];
  int64_t interval = 0;
  const char *iv = cli_args_get(&a, "checkpoint-interval");
  if (iv && (!st_duration_parse(iv, &interval) || interval <= 0))
    return cli_usage_error(&cli_cmd_run, "--checkpoint-interval needs a duration such as 5s");
  const char *par = cli_args_get(&a, "parallelism");
  uint32_t lanes = 0; /* the runner's default (st_run_opts_t) */
  if (par) {
    char *end;
    long n = strtol(par, &end, 10);
    if (*par < '0' || *par > '9' || *end || n < 1 || n > 64)
      return cli_usage_error(&cli_cmd_run, "--parallelism needs a number from 1 to 64");
    lanes = (uint32_t)n;
  }
  int64_t lateness = 0;
  const char *lv = cli_args_get(&a, "allowed-lateness");
  if (lv && (!st_duration_parse(lv, &lateness) || lateness <= 0))
    return cli_usage_error(&cli_cmd_run, "--allowed-lateness needs a duration such as 10s");
  uint64_t state_limit = 0;
  const char *sv = cli_args_get(&a, "state-memory-limit");
  if (sv && (!st_size_parse(sv, &state_limit) || state_limit == 0))
    return cli_usage_error(&cli_cmd_run, "--state-memory-limit needs a size such as 256mb");
  uint8_t *text = NULL;
  size_t len = 0;
  fl_err_t err;
  fl_err_clear(&err);
  if (io_read_all(io_local_fs(), path, (size_t)64 << 20, &text, &len, &err))
    return cli_fail("run", "%s", err.msg);
  cat_catalog_t *cat = NULL;
  if (cli_session_catalog("run", &cat)) {
    fl_free(text);
    return 1;
  }
  /* The server is up before the job starts, so that a scrape sees its
   * recovery and first batches. */
  cli_observe_t obs;
  if (cli_observe_open(&obs, &a, true, &err)) {
    cli_observe_close(&obs);
    cat_close(cat);
    fl_free(text);
    return cli_fail("run", "%s", err.msg);
  }
  fl_arena_t *ar = fl_arena_new(0);
  st_job_t *job = NULL;
  int status = 0;
  if (st_job_parse(ar, path, (const char *)text, len, cat, &job, &err)) {
    report(path, (const char *)text, len, &err);
    status = 1;
  } else {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    st_run_opts_t o = {.job_id = job_id_of(ar, cli_args_get(&a, "job-id"), job, path),
                       .warehouse = cat_warehouse(cat),
                       .once = cli_args_flag(&a, "once"),
                       .parallelism = lanes,
                       .checkpoint_interval_ms = interval,
                       .allowed_lateness_ms = lateness,
                       .state_memory_limit = state_limit,
                       .log = obs.log,
                       .log_on_stderr = obs.log_on_stderr,
                       .metrics = obs.reg,
                       .progress = !cli_args_flag(&a, "no-progress") && isatty(STDERR_FILENO),
                       .stop = &g_stop};
    if (st_run(cat, job, &o, &err)) {
      uint32_t line, col;
      if (sql_error_pos(&err, &line, &col))
        report(path, (const char *)text, len, &err);
      else
        fprintf(stderr, "floe run: %s: %s\n", o.job_id, err.msg);
      status = 1;
    }
  }
  cli_observe_close(&obs);
  fl_arena_free(ar);
  cat_close(cat);
  fl_free(text);
  return status;
}

const cli_command_t cli_cmd_run = {
    .name = "run",
    .summary = "run a streaming job (Flink SQL) into Iceberg tables, exactly once",
    .usage =
        "usage: floe [--warehouse DIR] [--catalog URI] run JOB.sql [--once]\n"
        "           [--job-id ID] [--checkpoint-interval 10s] [--parallelism N]\n"
        "           [--allowed-lateness 0s] [--state-memory-limit SIZE]\n"
        "           [--metrics-port P [--metrics-bind ADDR]]\n"
        "           [--log-file FILE|- [--log-level L]] [--no-progress]\n\n"
        "Runs the job's INSERT INTO statements over its connector tables\n"
        "(CREATE TABLE ... WITH ('connector' = 'kafka' | 'datagen' | 'nexmark',\n"
        "...)) into Iceberg tables of the catalog. Every checkpoint interval (SET\n"
        "'execution.checkpointing.interval', default 10 s) the job records its\n"
        "source positions and state under <warehouse>/_floe/jobs/<job-id>/ and\n"
        "commits the rows written since the last one, all tables in one catalog\n"
        "transaction; a restarted job continues from its newest checkpoint with\n"
        "no row lost or repeated. SIGINT or SIGTERM ends the job after a final\n"
        "checkpoint and commit (exit status 0).\n\n"
        "--once reads what is there at start (Kafka: up to each partition's end\n"
        "offset then; datagen: number-of-rows) and exits after the final commit.\n"
        "A GROUP BY without a window, ORDER BY or join over a source that never\n"
        "ends is refused unless --once is given or the source is bounded.\n"
        "--job-id defaults to SET 'pipeline.name', else the file's base name.\n"
        "A JSON line per start, checkpoint and commit goes to standard error or\n"
        "--log-file; on a terminal a progress line shows events, events/s, the\n"
        "Kafka lag, the watermark and the last checkpoint and commit.\n"
        "--metrics-port serves the same figures as Prometheus metrics on\n"
        "/metrics (and /healthz); port 0 picks a free one, printed on stderr.\n"
        "--parallelism N runs the job on N worker threads: each reads its share\n"
        "of the Kafka partitions, and a window aggregation or GROUP BY gets its\n"
        "rows by key hash from every thread. Default: SET 'parallelism.default',\n"
        "else the newest checkpoint's, else one per core (at most 16, and at most\n"
        "the partitions for jobs without aggregation) for jobs that read Kafka,\n"
        "1 for generators; jobs that join, sort or aggregate twice run on 1.\n"
        "A restart needs the parallelism it was checkpointed with.\n"
        "--allowed-lateness (SET 'table.exec.emit.allow-lateness') makes each\n"
        "window wait that long past its end before it is written; rows later\n"
        "than that are dropped and counted (floe_job_late_rows_total).\n"
        "--state-memory-limit (SET 'floe.state.memory-limit') spills window\n"
        "state beyond it to local disk. See docs/streaming.md, docs/metrics.md.\n",
    .run = run_job,
};
