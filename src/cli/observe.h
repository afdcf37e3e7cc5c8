/*
 * observe.h - the observability flags of long-running commands (layer 12,
 * cli): --metrics-port, --metrics-bind, --log-file, --log-level and
 * --no-progress, shared by `floe kafka consume` and `floe run` so that
 * both parse and report them the same way (docs/metrics.md).
 */
#ifndef FL_CLI_OBSERVE_H
#define FL_CLI_OBSERVE_H

#include "base/log.h"
#include "base/metrics.h"
#include "cli/args.h"
#include "server/srv_http.h"

/* The option specs, for a command's cli_opt_spec_t list. */
#define CLI_OBSERVE_SPECS                                                                    \
  {"metrics-port", true}, {"metrics-bind", true}, {"log-file", true}, {"log-level", true}, { \
    "no-progress", false                                                                     \
  }

typedef struct cli_observe {
  fl_log_t *log; /* NULL: no structured log */
  bool log_on_stderr;
  fl_metrics_t *reg; /* always made */
  srv_http_t *http;  /* with --metrics-port */
} cli_observe_t;

/*
 * Opens the log (--log-file; without it stderr when log_default_stderr,
 * else none), makes the registry and, with --metrics-port, registers the
 * process metrics and starts /metrics and /healthz, printing the address
 * on stderr ("metrics: http://ADDR/metrics") and logging it. Bad flags are
 * FL_EINVALID naming the flag. Close with cli_observe_close, also after a
 * failure.
 */
int cli_observe_open(cli_observe_t *w, const cli_args_t *a, bool log_default_stderr, fl_err_t *err);
/* Stops the server (the port closes), frees the registry, closes the log. */
void cli_observe_close(cli_observe_t *w);

#endif
