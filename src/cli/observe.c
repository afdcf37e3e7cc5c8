/*
 * observe.c - the observability flags of long-running commands (layer 12,
 * cli). See observe.h.
 */
#include "cli/observe.h"

#include <stdio.h>
#include <string.h>

#include "base/metrics_process.h"
#include "format/text_parse.h"
#include "server/srv_metrics.h"

int cli_observe_open(cli_observe_t *w, const cli_args_t *a, bool log_default_stderr,
                     fl_err_t *err) {
  memset(w, 0, sizeof *w);
  const char *lf = cli_args_get(a, "log-file"), *ll = cli_args_get(a, "log-level");
  fl_log_level_t level = FL_LOG_INFO;
  if (ll && !fl_log_level_parse(ll, &level))
    return fl_err_set(err, FL_EINVALID, "--log-level '%s': expected debug, info, warn or error",
                      ll);
  if (!lf && log_default_stderr) lf = "-";
  if (lf && fl_log_open(lf, level, &w->log, err)) return err->code;
  w->log_on_stderr = lf && !strcmp(lf, "-");
  w->reg = fl_metrics_new();
  const char *port = cli_args_get(a, "metrics-port");
  if (!port) {
    if (cli_args_get(a, "metrics-bind"))
      return fl_err_set(err, FL_EINVALID, "--metrics-bind needs --metrics-port");
    return FL_OK;
  }
  int64_t p;
  if (!tp_parse_i64(port, strlen(port), &p) || p < 0 || p > 65535)
    return fl_err_set(err, FL_EINVALID, "--metrics-port '%s': expected a port from 0 to 65535",
                      port);
  if (fl_metrics_process_register(w->reg, err)) return err->code;
  srv_http_opts_t o = {.bind = cli_args_get(a, "metrics-bind"), .port = (uint16_t)p};
  if (srv_metrics_start(w->reg, &o, &w->http, err)) return fl_err_prefix(err, "--metrics-port: ");
  /* On stderr too, so that a caller of --metrics-port 0 learns the port. */
  fprintf(stderr, "metrics: http://%s/metrics\n", srv_http_address(w->http));
  fflush(stderr);
  FL_LOG(w->log, FL_LOG_INFO, "metrics server listening",
         FL_LF_STR("address", srv_http_address(w->http)),
         FL_LF_INT("port", srv_http_port(w->http)));
  return FL_OK;
}

void cli_observe_close(cli_observe_t *w) {
  srv_http_stop(w->http);
  w->http = NULL;
  fl_metrics_free(w->reg);
  w->reg = NULL;
  fl_log_close(w->log);
  w->log = NULL;
}
