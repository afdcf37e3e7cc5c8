/*
 * metrics.c - the metrics registry: families, series, lock-free updates and
 * snapshots (layer 1, base).
 *
 * Families and series are heap objects that never move once registered,
 * so a handle is a plain pointer into a series and an update is one atomic
 * operation on it. The registry's mutex guards only the lists (registration,
 * snapshots, collectors). Doubles (gauges, histogram sums) are kept as bit
 * patterns in 64-bit atomics and added with a compare-and-swap loop.
 *
 * A histogram's buckets are counted non-cumulatively by observe (one
 * atomic add in one bucket); the snapshot sums them into Prometheus'
 * cumulative form and takes the +Inf bucket as the count, so a scrape
 * always sees count == +Inf bucket even while observations race with it.
 */
#include "base/metrics.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

typedef struct series {
  char **label_values;
  union {
    fl_counter_t counter;
    fl_gauge_t gauge;
    fl_histogram_t hist;
  } u;
} series_t;

typedef struct family {
  char *name, *help;
  fl_metric_type_t type;
  char **label_names;
  uint32_t nlabels;
  double *bounds;
  uint32_t nbounds;
  double scale; /* counters: shown value = count * scale */
  series_t **series;
  uint32_t nseries, cap;
} family_t;

typedef struct collector {
  fl_metrics_collect_fn fn;
  void (*free_arg)(void *);
  void *arg;
} collector_t;

struct fl_metrics {
  pthread_mutex_t mu;
  family_t **families;
  uint32_t nfamilies, cap;
  collector_t *collectors;
  uint32_t ncollectors;
};

const double fl_metrics_latency_buckets[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                             0.01,   0.025,   0.05,   0.1,   0.25,   0.5,
                                             1,      2.5,     5,      10};
const uint32_t fl_metrics_latency_nbuckets =
    sizeof fl_metrics_latency_buckets / sizeof fl_metrics_latency_buckets[0];

static uint64_t dbits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}
static double bitsd(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

fl_metrics_t *fl_metrics_new(void) {
  fl_metrics_t *r = fl_calloc(1, sizeof *r);
  pthread_mutex_init(&r->mu, NULL);
  return r;
}

static void series_free(series_t *s, const family_t *f) {
  for (uint32_t i = 0; i < f->nlabels; i++) fl_free(s->label_values[i]);
  fl_free(s->label_values);
  if (f->type == FL_METRIC_HISTOGRAM) fl_free((void *)s->u.hist.buckets);
  fl_free(s);
}

static void family_free(family_t *f) {
  for (uint32_t i = 0; i < f->nseries; i++) series_free(f->series[i], f);
  fl_free(f->series);
  for (uint32_t i = 0; i < f->nlabels; i++) fl_free(f->label_names[i]);
  fl_free(f->label_names);
  fl_free(f->bounds);
  fl_free(f->name);
  fl_free(f->help);
  fl_free(f);
}

void fl_metrics_free(fl_metrics_t *r) {
  if (!r) return;
  for (uint32_t i = 0; i < r->ncollectors; i++)
    if (r->collectors[i].free_arg) r->collectors[i].free_arg(r->collectors[i].arg);
  for (uint32_t i = 0; i < r->nfamilies; i++) family_free(r->families[i]);
  fl_free(r->families);
  fl_free(r->collectors);
  pthread_mutex_destroy(&r->mu);
  fl_free(r);
}

static bool name_ok(const char *s, bool colon) {
  if (!s || !*s) return false;
  for (const char *p = s; *p; p++) {
    char c = *p;
    bool alpha =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
    if (!alpha && !(p > s && c >= '0' && c <= '9')) return false;
  }
  return true;
}

static int check_new(const char *name, const fl_label_t *labels, uint32_t n, const double *bounds,
                     uint32_t nbounds, fl_err_t *err) {
  if (!name_ok(name, true))
    return fl_err_set(err, FL_EINVALID, "metric name '%s' is not [a-zA-Z_:][a-zA-Z0-9_:]*",
                      name ? name : "");
  if (n > FL_METRIC_MAX_LABELS)
    return fl_err_set(err, FL_EINVALID, "metric %s: %u labels, at most %d", name, n,
                      FL_METRIC_MAX_LABELS);
  for (uint32_t i = 0; i < n; i++) {
    const char *l = labels[i].name;
    if (!name_ok(l, false) || strncmp(l, "__", 2) == 0)
      return fl_err_set(err, FL_EINVALID,
                        "metric %s: label name '%s' is not [a-zA-Z_][a-zA-Z0-9_]* (without a "
                        "leading __)",
                        name, l ? l : "");
    if (!labels[i].value)
      return fl_err_set(err, FL_EINVALID, "metric %s: label %s has no value", name, l);
    for (uint32_t j = 0; j < i; j++)
      if (strcmp(labels[j].name, l) == 0)
        return fl_err_set(err, FL_EINVALID, "metric %s: label %s given twice", name, l);
  }
  if (nbounds > FL_METRIC_MAX_BUCKETS)
    return fl_err_set(err, FL_EINVALID, "histogram %s: %u buckets, at most %d", name, nbounds,
                      FL_METRIC_MAX_BUCKETS);
  for (uint32_t i = 0; i < nbounds; i++) {
    if (!isfinite(bounds[i]) || (i > 0 && !(bounds[i] > bounds[i - 1])))
      return fl_err_set(err, FL_EINVALID,
                        "histogram %s: bucket bounds must be finite and strictly ascending "
                        "(bound %u)",
                        name, i);
  }
  return FL_OK;
}

static const char *type_name(fl_metric_type_t t) {
  return t == FL_METRIC_COUNTER ? "counter" : t == FL_METRIC_GAUGE ? "gauge" : "histogram";
}

/* Finds the family of name or makes it; checks that a found one agrees. */
static int get_family(fl_metrics_t *r, const char *name, const char *help, fl_metric_type_t type,
                      double scale, const fl_label_t *labels, uint32_t n, const double *bounds,
                      uint32_t nbounds, family_t **out, fl_err_t *err) {
  for (uint32_t i = 0; i < r->nfamilies; i++) {
    family_t *f = r->families[i];
    if (strcmp(f->name, name) != 0) continue;
    if (f->type != type)
      return fl_err_set(err, FL_EINVALID, "metric %s is a %s, not a %s", name, type_name(f->type),
                        type_name(type));
    bool same = f->nlabels == n;
    for (uint32_t j = 0; same && j < n; j++) same = strcmp(f->label_names[j], labels[j].name) == 0;
    if (!same)
      return fl_err_set(err, FL_EINVALID,
                        "metric %s: every series needs the same label names in the same order",
                        name);
    same = f->nbounds == nbounds && f->scale == scale;
    for (uint32_t j = 0; same && j < nbounds; j++) same = f->bounds[j] == bounds[j];
    if (!same)
      return fl_err_set(err, FL_EINVALID, "metric %s: registered before with other %s", name,
                        type == FL_METRIC_HISTOGRAM ? "buckets" : "scale");
    *out = f;
    return FL_OK;
  }
  family_t *f = fl_calloc(1, sizeof *f);
  f->name = fl_strdup(name);
  f->help = fl_strdup(help ? help : "");
  f->type = type;
  f->scale = scale;
  f->nlabels = n;
  f->label_names = fl_calloc(n ? n : 1, sizeof *f->label_names);
  for (uint32_t j = 0; j < n; j++) f->label_names[j] = fl_strdup(labels[j].name);
  f->nbounds = nbounds;
  f->bounds = fl_calloc(nbounds ? nbounds : 1, sizeof *f->bounds);
  if (nbounds) memcpy(f->bounds, bounds, nbounds * sizeof *bounds);
  if (r->nfamilies == r->cap) {
    r->cap = r->cap ? r->cap * 2 : 16;
    r->families = fl_realloc(r->families, r->cap * sizeof *r->families);
  }
  r->families[r->nfamilies++] = f;
  *out = f;
  return FL_OK;
}

static series_t *get_series(family_t *f, const fl_label_t *labels) {
  for (uint32_t i = 0; i < f->nseries; i++) {
    series_t *s = f->series[i];
    bool same = true;
    for (uint32_t j = 0; same && j < f->nlabels; j++)
      same = strcmp(s->label_values[j], labels[j].value) == 0;
    if (same) return s;
  }
  series_t *s = fl_calloc(1, sizeof *s);
  /* NULL-terminated, so that the snapshot's sort needs no label count. */
  s->label_values = fl_calloc(f->nlabels + 1, sizeof *s->label_values);
  for (uint32_t j = 0; j < f->nlabels; j++) s->label_values[j] = fl_strdup(labels[j].value);
  switch (f->type) {
    case FL_METRIC_COUNTER: atomic_init(&s->u.counter.count, 0); break;
    case FL_METRIC_GAUGE: atomic_init(&s->u.gauge.bits, dbits(0.0)); break;
    case FL_METRIC_HISTOGRAM:
      s->u.hist.bounds = f->bounds;
      s->u.hist.nbounds = f->nbounds;
      s->u.hist.buckets = fl_calloc(f->nbounds + 1, sizeof *s->u.hist.buckets);
      for (uint32_t j = 0; j <= f->nbounds; j++) atomic_init(&s->u.hist.buckets[j], 0);
      atomic_init(&s->u.hist.sum_bits, dbits(0.0));
      break;
  }
  if (f->nseries == f->cap) {
    f->cap = f->cap ? f->cap * 2 : 8;
    f->series = fl_realloc(f->series, f->cap * sizeof *f->series);
  }
  f->series[f->nseries++] = s;
  return s;
}

static int reg(fl_metrics_t *r, const char *name, const char *help, fl_metric_type_t type,
               double scale, const double *bounds, uint32_t nbounds, const fl_label_t *labels,
               uint32_t n, series_t **out, fl_err_t *err) {
  int rc = check_new(name, labels, n, bounds, nbounds, err);
  if (rc) return rc;
  if (!(scale > 0) || !isfinite(scale))
    return fl_err_set(err, FL_EINVALID, "metric %s: scale must be positive", name);
  pthread_mutex_lock(&r->mu);
  family_t *f;
  rc = get_family(r, name, help, type, scale, labels, n, bounds, nbounds, &f, err);
  if (!rc) *out = get_series(f, labels);
  pthread_mutex_unlock(&r->mu);
  return rc;
}

int fl_metrics_counter(fl_metrics_t *r, const char *name, const char *help,
                       const fl_label_t *labels, uint32_t n, fl_counter_t **out, fl_err_t *err) {
  return fl_metrics_counter_scaled(r, name, help, 1.0, labels, n, out, err);
}

int fl_metrics_counter_scaled(fl_metrics_t *r, const char *name, const char *help, double scale,
                              const fl_label_t *labels, uint32_t n, fl_counter_t **out,
                              fl_err_t *err) {
  series_t *s = NULL;
  int rc = reg(r, name, help, FL_METRIC_COUNTER, scale, NULL, 0, labels, n, &s, err);
  if (!rc) *out = &s->u.counter;
  return rc;
}

int fl_metrics_gauge(fl_metrics_t *r, const char *name, const char *help, const fl_label_t *labels,
                     uint32_t n, fl_gauge_t **out, fl_err_t *err) {
  series_t *s = NULL;
  int rc = reg(r, name, help, FL_METRIC_GAUGE, 1.0, NULL, 0, labels, n, &s, err);
  if (!rc) *out = &s->u.gauge;
  return rc;
}

int fl_metrics_histogram(fl_metrics_t *r, const char *name, const char *help, const double *bounds,
                         uint32_t nbounds, const fl_label_t *labels, uint32_t n,
                         fl_histogram_t **out, fl_err_t *err) {
  series_t *s = NULL;
  int rc = reg(r, name, help, FL_METRIC_HISTOGRAM, 1.0, bounds, nbounds, labels, n, &s, err);
  if (!rc) *out = &s->u.hist;
  return rc;
}

void fl_metrics_add_collector(fl_metrics_t *r, fl_metrics_collect_fn fn, void (*free_arg)(void *),
                              void *arg) {
  pthread_mutex_lock(&r->mu);
  r->collectors = fl_realloc(r->collectors, (r->ncollectors + 1) * sizeof *r->collectors);
  r->collectors[r->ncollectors++] = (collector_t){fn, free_arg, arg};
  pthread_mutex_unlock(&r->mu);
}

/* ---- updates ---- */

void fl_gauge_set(fl_gauge_t *g, double v) {
  atomic_store_explicit(&g->bits, dbits(v), memory_order_relaxed);
}

static void add_double(_Atomic uint64_t *bits, double v) {
  uint64_t old = atomic_load_explicit(bits, memory_order_relaxed);
  while (!atomic_compare_exchange_weak_explicit(bits, &old, dbits(bitsd(old) + v),
                                                memory_order_relaxed, memory_order_relaxed)) {
  }
}

void fl_gauge_add(fl_gauge_t *g, double v) { add_double(&g->bits, v); }

double fl_gauge_get(const fl_gauge_t *g) {
  return bitsd(atomic_load_explicit(&((fl_gauge_t *)g)->bits, memory_order_relaxed));
}

void fl_histogram_observe(fl_histogram_t *h, double v) {
  /* Binary search for the first bound >= v; NaN fails every comparison
   * and lands in +Inf. */
  uint32_t lo = 0, hi = h->nbounds;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (v <= h->bounds[mid])
      hi = mid;
    else if (v > h->bounds[mid])
      lo = mid + 1;
    else
      lo = hi = h->nbounds;
  }
  atomic_fetch_add_explicit(&h->buckets[lo], 1, memory_order_relaxed);
  add_double(&h->sum_bits, v);
}

/* ---- snapshots ---- */

/* Compares strings with runs of digits taken as numbers ("2" < "10"). */
static int natural_cmp(const char *a, const char *b) {
  while (*a && *b) {
    if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
      while (*a == '0') a++;
      while (*b == '0') b++;
      size_t la = 0, lb = 0;
      while (a[la] >= '0' && a[la] <= '9') la++;
      while (b[lb] >= '0' && b[lb] <= '9') lb++;
      if (la != lb) return la < lb ? -1 : 1;
      int c = memcmp(a, b, la);
      if (c) return c;
      a += la;
      b += lb;
      continue;
    }
    if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
    a++;
    b++;
  }
  return *a ? 1 : *b ? -1 : 0;
}

static int cmp_series(const void *x, const void *y) {
  const fl_metric_series_snap_t *a = x, *b = y;
  for (uint32_t i = 0; a->label_values[i]; i++) {
    int c = natural_cmp(a->label_values[i], b->label_values[i]);
    if (c) return c;
  }
  return 0;
}

static int cmp_family(const void *x, const void *y) {
  const fl_metric_family_snap_t *a = x, *b = y;
  return strcmp(a->name, b->name);
}

void fl_metrics_snapshot(fl_metrics_t *r, fl_metrics_snap_t *out) {
  pthread_mutex_lock(&r->mu);
  for (uint32_t i = 0; i < r->ncollectors; i++) r->collectors[i].fn(r->collectors[i].arg);
  out->nfamilies = r->nfamilies;
  out->families = fl_calloc(r->nfamilies ? r->nfamilies : 1, sizeof *out->families);
  for (uint32_t i = 0; i < r->nfamilies; i++) {
    const family_t *f = r->families[i];
    fl_metric_family_snap_t *fs = &out->families[i];
    fs->name = f->name;
    fs->help = f->help;
    fs->type = f->type;
    fs->label_names = (const char *const *)f->label_names;
    fs->nlabels = f->nlabels;
    fs->bounds = f->bounds;
    fs->nbounds = f->nbounds;
    fs->nseries = f->nseries;
    fs->series = fl_calloc(f->nseries ? f->nseries : 1, sizeof *fs->series);
    for (uint32_t j = 0; j < f->nseries; j++) {
      series_t *s = f->series[j];
      fl_metric_series_snap_t *ss = &fs->series[j];
      ss->label_values = (const char *const *)s->label_values;
      switch (f->type) {
        case FL_METRIC_COUNTER:
          ss->u.value =
              (double)atomic_load_explicit(&s->u.counter.count, memory_order_relaxed) * f->scale;
          break;
        case FL_METRIC_GAUGE: ss->u.value = fl_gauge_get(&s->u.gauge); break;
        case FL_METRIC_HISTOGRAM: {
          uint64_t *cum = fl_calloc(f->nbounds + 1, sizeof *cum), total = 0;
          for (uint32_t b = 0; b <= f->nbounds; b++) {
            total += atomic_load_explicit(&s->u.hist.buckets[b], memory_order_relaxed);
            cum[b] = total;
          }
          ss->u.hist.cumulative = cum;
          ss->u.hist.count = total;
          ss->u.hist.sum = bitsd(atomic_load_explicit(&s->u.hist.sum_bits, memory_order_relaxed));
          break;
        }
      }
    }
    qsort(fs->series, fs->nseries, sizeof *fs->series, cmp_series);
  }
  pthread_mutex_unlock(&r->mu);
  qsort(out->families, out->nfamilies, sizeof *out->families, cmp_family);
}

void fl_metrics_snap_free(fl_metrics_snap_t *s) {
  if (!s || !s->families) return;
  for (uint32_t i = 0; i < s->nfamilies; i++) {
    fl_metric_family_snap_t *f = &s->families[i];
    if (f->type == FL_METRIC_HISTOGRAM)
      for (uint32_t j = 0; j < f->nseries; j++) fl_free(f->series[j].u.hist.cumulative);
    fl_free(f->series);
  }
  fl_free(s->families);
  s->families = NULL;
  s->nfamilies = 0;
}

const fl_metric_family_snap_t *fl_metrics_snap_find(const fl_metrics_snap_t *s, const char *name) {
  for (uint32_t i = 0; i < s->nfamilies; i++)
    if (strcmp(s->families[i].name, name) == 0) return &s->families[i];
  return NULL;
}

static bool fold(const fl_metrics_snap_t *s, const char *name, bool max, double *out) {
  const fl_metric_family_snap_t *f = fl_metrics_snap_find(s, name);
  if (!f || f->type == FL_METRIC_HISTOGRAM || f->nseries == 0) return false;
  double acc = max ? -INFINITY : 0;
  for (uint32_t i = 0; i < f->nseries; i++) {
    double v = f->series[i].u.value;
    acc = max ? (v > acc ? v : acc) : acc + v;
  }
  *out = acc;
  return true;
}

bool fl_metrics_snap_sum(const fl_metrics_snap_t *s, const char *name, double *out) {
  return fold(s, name, false, out);
}

bool fl_metrics_snap_max(const fl_metrics_snap_t *s, const char *name, double *out) {
  return fold(s, name, true, out);
}
