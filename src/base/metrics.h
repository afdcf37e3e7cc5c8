/*
 * metrics.h - a registry of counters, gauges and histograms (layer 1,
 * base).
 *
 * Every layer that does work worth watching records it here: sources count
 * records and bytes per partition, operators count rows, the job runtime
 * sets its watermark and checkpoint gauges. The registry lives in base so
 * that all of them can; rendering (metrics_text.h) and serving over HTTP
 * (server/) read it from another thread.
 *
 * A metric family has a name, help text, a type and the names of its
 * labels; a series is one set of label values of a family. Series are
 * registered once (registering the same name and label values again
 * returns the same handle) and are then updated through their handle with
 * C11 atomics only: no lock and no allocation per update, so the hot path
 * of a source or an operator pays one atomic add. Series live until the
 * registry is freed; handles stay valid until then.
 *
 * Names follow Prometheus' conventions: a floe_ prefix, base units
 * (seconds, bytes) in the name, _total at the end of counters. The
 * registry checks the characters of names and label names and that a
 * family keeps one type, one label set and one bucket layout.
 *
 * Thread use: registration, snapshots and collectors take the registry's
 * mutex; updates through handles may come from any thread at any time.
 */
#ifndef FL_BASE_METRICS_H
#define FL_BASE_METRICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"

typedef struct fl_metrics fl_metrics_t;

typedef enum fl_metric_type {
  FL_METRIC_COUNTER,
  FL_METRIC_GAUGE,
  FL_METRIC_HISTOGRAM,
} fl_metric_type_t;

/* One label of a series; both strings are copied at registration. */
typedef struct fl_label {
  const char *name;
  const char *value;
} fl_label_t;

/* The most labels a series may have, and buckets a histogram may have. */
#define FL_METRIC_MAX_LABELS 8
#define FL_METRIC_MAX_BUCKETS 64

/*
 * Handles. The fields are public only so that the update functions can be
 * inline; read them through a snapshot.
 */
typedef struct fl_counter {
  _Atomic uint64_t count; /* in units of the family's scale */
} fl_counter_t;

typedef struct fl_gauge {
  _Atomic uint64_t bits; /* a double's bit pattern */
} fl_gauge_t;

typedef struct fl_histogram {
  const double *bounds; /* upper bounds, ascending, of all but the +Inf bucket */
  uint32_t nbounds;
  _Atomic uint64_t *buckets; /* nbounds + 1 counts, not cumulative */
  _Atomic uint64_t sum_bits; /* the sum of observations, a double's bits */
} fl_histogram_t;

fl_metrics_t *fl_metrics_new(void);
/* Frees the registry and every series; handles become invalid. NULL is fine. */
void fl_metrics_free(fl_metrics_t *r);

/*
 * Register (or find) a series. labels are n name/value pairs; the first
 * registration of a name fixes its help text, type and label names (in
 * order), and later ones must agree: a different type, label names or
 * bucket bounds is FL_EINVALID, as is a name that is not
 * [a-zA-Z_:][a-zA-Z0-9_:]* or a label name that is not [a-zA-Z_][a-zA-Z0-9_]*
 * (or starts with "__"). Label values may be any UTF-8 text.
 */
int fl_metrics_counter(fl_metrics_t *r, const char *name, const char *help,
                       const fl_label_t *labels, uint32_t n, fl_counter_t **out, fl_err_t *err);
/*
 * A counter counted in integer units of scale but shown as count * scale:
 * CPU time counted in microseconds with scale 1e-6 is shown in seconds
 * while increments stay exact integers.
 */
int fl_metrics_counter_scaled(fl_metrics_t *r, const char *name, const char *help, double scale,
                              const fl_label_t *labels, uint32_t n, fl_counter_t **out,
                              fl_err_t *err);
int fl_metrics_gauge(fl_metrics_t *r, const char *name, const char *help, const fl_label_t *labels,
                     uint32_t n, fl_gauge_t **out, fl_err_t *err);
/* bounds: the finite upper bounds of the buckets, strictly ascending (the
 * +Inf bucket is implied); copied. */
int fl_metrics_histogram(fl_metrics_t *r, const char *name, const char *help, const double *bounds,
                         uint32_t nbounds, const fl_label_t *labels, uint32_t n,
                         fl_histogram_t **out, fl_err_t *err);

/* Buckets for latencies in seconds, 100 us to 10 s (a 1-2.5-5 series). */
extern const double fl_metrics_latency_buckets[];
extern const uint32_t fl_metrics_latency_nbuckets;

/*
 * A collector runs under the registry's mutex at the start of every
 * snapshot, in the snapshotting thread, to refresh values that are read
 * rather than counted (process memory, CPU time). It must not register
 * series or snapshot. Collectors run in the order they were added;
 * free_arg (may be NULL) is called on arg when the registry is freed.
 */
typedef void (*fl_metrics_collect_fn)(void *arg);
void fl_metrics_add_collector(fl_metrics_t *r, fl_metrics_collect_fn fn, void (*free_arg)(void *),
                              void *arg);

/* ---- updates: any thread, lock-free, no allocation ---- */

static inline void fl_counter_add(fl_counter_t *c, uint64_t n) {
  atomic_fetch_add_explicit(&c->count, n, memory_order_relaxed);
}
static inline void fl_counter_inc(fl_counter_t *c) { fl_counter_add(c, 1); }
/* Mirrors a cumulative count kept elsewhere (e.g. by the kernel); it must
 * not go down. */
static inline void fl_counter_store(fl_counter_t *c, uint64_t n) {
  atomic_store_explicit(&c->count, n, memory_order_relaxed);
}

void fl_gauge_set(fl_gauge_t *g, double v);
void fl_gauge_add(fl_gauge_t *g, double v);
double fl_gauge_get(const fl_gauge_t *g);

/* Counts v in the first bucket whose bound is >= v (the +Inf bucket when
 * none; NaN counts there too) and adds it to the sum. */
void fl_histogram_observe(fl_histogram_t *h, double v);

/* ---- snapshots: a consistent-enough copy for rendering ---- */

typedef struct fl_metric_series_snap {
  const char *const *label_values; /* nlabels of them, then NULL; owned by the registry */
  union {
    double value; /* counters (scaled) and gauges */
    struct {
      uint64_t *cumulative; /* nbounds + 1 cumulative counts, the last one is +Inf */
      double sum;
      uint64_t count; /* equal to the +Inf bucket */
    } hist;
  } u;
} fl_metric_series_snap_t;

typedef struct fl_metric_family_snap {
  const char *name, *help;
  fl_metric_type_t type;
  const char *const *label_names;
  uint32_t nlabels;
  const double *bounds; /* histograms */
  uint32_t nbounds;
  fl_metric_series_snap_t *series; /* sorted by label values */
  uint32_t nseries;
} fl_metric_family_snap_t;

typedef struct fl_metrics_snap {
  fl_metric_family_snap_t *families; /* sorted by name */
  uint32_t nfamilies;
} fl_metrics_snap_t;

/*
 * Runs the collectors and copies every series' value. Families are sorted
 * by name and series by their label values (digit runs compared as
 * numbers, so partition 2 comes before 10), so the same registry renders
 * in the same order every time. The snapshot's strings belong to the
 * registry: free the snapshot before the registry.
 */
void fl_metrics_snapshot(fl_metrics_t *r, fl_metrics_snap_t *out);
void fl_metrics_snap_free(fl_metrics_snap_t *s);

/* A family of a snapshot by name, or NULL. */
const fl_metric_family_snap_t *fl_metrics_snap_find(const fl_metrics_snap_t *s, const char *name);
/* Over all series of a counter or gauge family: the sum and the maximum
 * value; false when the family is absent or has no series. */
bool fl_metrics_snap_sum(const fl_metrics_snap_t *s, const char *name, double *out);
bool fl_metrics_snap_max(const fl_metrics_snap_t *s, const char *name, double *out);

#endif
