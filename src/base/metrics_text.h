/*
 * metrics_text.h - the Prometheus text exposition format, version 0.0.4
 * (layer 1, base).
 *
 * Renders a registry snapshot as what a Prometheus server scrapes from
 * /metrics: per family a # HELP and a # TYPE line, then one sample per
 * series (histograms as cumulative _bucket samples with an le label ending
 * in +Inf, then _sum and _count). Label values escape backslash, double
 * quote and newline; help text escapes backslash and newline. Families
 * come sorted by name and series by label values, so output is stable.
 */
#ifndef FL_BASE_METRICS_TEXT_H
#define FL_BASE_METRICS_TEXT_H

#include <stddef.h>

#include "base/buf.h"
#include "base/metrics.h"

/* The Content-Type of the format. */
#define FL_METRICS_TEXT_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Appends the exposition of every family with at least one series. */
void fl_metrics_text(const fl_metrics_snap_t *s, fl_buf_t *out);

/* Appends a sample value as the format writes it: the shortest decimal
 * that reads back as v, or +Inf, -Inf, NaN. */
void fl_metrics_text_value(double v, fl_buf_t *out);

#endif
