/*
 * metrics_process.h - metrics of the running process itself (layer 1,
 * base).
 *
 * Registers gauges and a counter read from /proc/self at every snapshot:
 *   floe_process_resident_memory_bytes, floe_process_virtual_memory_bytes,
 *   floe_process_cpu_seconds_total (user + system), floe_process_open_fds,
 *   floe_process_threads, floe_process_start_time_seconds.
 * On a system without /proc the values stay 0.
 */
#ifndef FL_BASE_METRICS_PROCESS_H
#define FL_BASE_METRICS_PROCESS_H

#include "base/error.h"
#include "base/metrics.h"

int fl_metrics_process_register(fl_metrics_t *r, fl_err_t *err);

#endif
