/*
 * srv_metrics.c - /metrics and /healthz over the HTTP server (layer 11,
 * server).
 */
#include "server/srv_metrics.h"

#include "base/metrics_text.h"

static void metrics_handler(void *arg, srv_reply_t *reply) {
  fl_metrics_t *reg = arg;
  fl_metrics_snap_t snap;
  fl_metrics_snapshot(reg, &snap);
  fl_metrics_text(&snap, &reply->body);
  fl_metrics_snap_free(&snap);
  reply->content_type = FL_METRICS_TEXT_CONTENT_TYPE;
}

/* The process is up and its server thread answers; that is what health
 * means for a scrape target. */
static void healthz_handler(void *arg, srv_reply_t *reply) {
  (void)arg;
  fl_buf_append_str(&reply->body, "ok\n");
}

int srv_metrics_start(fl_metrics_t *reg, const srv_http_opts_t *opts, srv_http_t **out,
                      fl_err_t *err) {
  const srv_route_t routes[] = {{"/metrics", metrics_handler, reg},
                                {"/healthz", healthz_handler, NULL}};
  return srv_http_start(opts, routes, 2, out, err);
}
