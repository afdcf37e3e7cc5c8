/*
 * srv_metrics.h - the metrics endpoint: GET /metrics in the Prometheus
 * text format and GET /healthz (layer 11, server).
 *
 * Each scrape takes a snapshot of the registry (running its collectors)
 * in the server's thread and renders it; the registry must outlive the
 * server.
 */
#ifndef FL_SERVER_SRV_METRICS_H
#define FL_SERVER_SRV_METRICS_H

#include "base/metrics.h"
#include "server/srv_http.h"

/* Starts serving reg on opts' address (127.0.0.1 by default); stop it
 * with srv_http_stop. */
int srv_metrics_start(fl_metrics_t *reg, const srv_http_opts_t *opts, srv_http_t **out,
                      fl_err_t *err);

#endif
