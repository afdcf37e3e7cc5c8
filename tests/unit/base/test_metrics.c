/*
 * test_metrics.c - the metrics registry and the Prometheus text format:
 * concurrent updates from several threads are exact; a series registers
 * once; names, labels and buckets are checked; the exposition escapes
 * label values and help, writes cumulative histogram buckets ending in
 * +Inf with _sum and _count, and orders families and series stably;
 * process metrics read /proc/self.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "base/metrics.h"
#include "base/metrics_process.h"
#include "base/metrics_text.h"
#include "test.h"

#define NTHREADS 4
#define PER_THREAD 200000

typedef struct hammer {
  fl_counter_t *shared, *own;
  fl_gauge_t *gauge;
  fl_histogram_t *hist;
  int idx;
} hammer_t;

static void *hammer_run(void *arg) {
  hammer_t *h = arg;
  for (int i = 0; i < PER_THREAD; i++) {
    fl_counter_inc(h->shared);
    fl_counter_add(h->own, 2);
    if (i % 4 == 0) {
      fl_gauge_add(h->gauge, 1.0);
      /* Values 0.5, 1.5, 2.5, 3.5 across threads, one per bucket. */
      fl_histogram_observe(h->hist, (double)h->idx + 0.5);
    }
  }
  return NULL;
}

TEST(metrics_concurrent_updates_are_exact) {
  fl_err_t err;
  fl_metrics_t *r = fl_metrics_new();
  fl_counter_t *shared;
  fl_gauge_t *gauge;
  fl_histogram_t *hist;
  const double bounds[] = {1, 2, 3};
  CHECK_OK(fl_metrics_counter(r, "floe_test_shared_total", "shared", NULL, 0, &shared, &err), &err);
  CHECK_OK(fl_metrics_gauge(r, "floe_test_gauge", "g", NULL, 0, &gauge, &err), &err);
  CHECK_OK(fl_metrics_histogram(r, "floe_test_seconds", "h", bounds, 3, NULL, 0, &hist, &err),
           &err);
  hammer_t h[NTHREADS];
  pthread_t th[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) {
    char v[8];
    snprintf(v, sizeof v, "%d", i);
    fl_label_t l[] = {{"thread", v}};
    h[i] = (hammer_t){.shared = shared, .gauge = gauge, .hist = hist, .idx = i};
    CHECK_OK(fl_metrics_counter(r, "floe_test_own_total", "own", l, 1, &h[i].own, &err), &err);
  }
  for (int i = 0; i < NTHREADS; i++) pthread_create(&th[i], NULL, hammer_run, &h[i]);
  /* Snapshots while the threads run: the histogram's count always equals
   * its +Inf bucket, and counters never go down. */
  double last = 0;
  for (int k = 0; k < 50; k++) {
    fl_metrics_snap_t s;
    fl_metrics_snapshot(r, &s);
    const fl_metric_family_snap_t *f = fl_metrics_snap_find(&s, "floe_test_seconds");
    CHECK(f && f->nseries == 1);
    CHECK_EQ(f->series[0].u.hist.count, f->series[0].u.hist.cumulative[3]);
    double v;
    CHECK(fl_metrics_snap_sum(&s, "floe_test_shared_total", &v));
    CHECK(v >= last);
    last = v;
    fl_metrics_snap_free(&s);
  }
  for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
  fl_metrics_snap_t s;
  fl_metrics_snapshot(r, &s);
  double v;
  CHECK(fl_metrics_snap_sum(&s, "floe_test_shared_total", &v));
  CHECK_EQ((long long)v, NTHREADS * PER_THREAD);
  CHECK(fl_metrics_snap_sum(&s, "floe_test_own_total", &v));
  CHECK_EQ((long long)v, 2LL * NTHREADS * PER_THREAD);
  CHECK(fl_metrics_snap_max(&s, "floe_test_own_total", &v));
  CHECK_EQ((long long)v, 2LL * PER_THREAD);
  CHECK(fl_metrics_snap_sum(&s, "floe_test_gauge", &v));
  CHECK_EQ((long long)v, NTHREADS * PER_THREAD / 4);
  const fl_metric_family_snap_t *f = fl_metrics_snap_find(&s, "floe_test_seconds");
  CHECK_EQ(f->series[0].u.hist.count, NTHREADS * PER_THREAD / 4);
  for (int b = 0; b < 4; b++) CHECK_EQ(f->series[0].u.hist.cumulative[b], (b + 1) * PER_THREAD / 4);
  /* 0.5 + 1.5 + 2.5 + 3.5 = 8 per round: exact in binary. */
  CHECK(f->series[0].u.hist.sum == 8.0 * PER_THREAD / 4);
  fl_metrics_snap_free(&s);
  fl_metrics_free(r);
}

TEST(metrics_register_once_and_checks) {
  fl_err_t err;
  fl_metrics_t *r = fl_metrics_new();
  fl_counter_t *a, *b, *c;
  fl_label_t l1[] = {{"topic", "t"}, {"partition", "0"}};
  fl_label_t l2[] = {{"topic", "t"}, {"partition", "1"}};
  CHECK_OK(fl_metrics_counter(r, "floe_x_total", "x", l1, 2, &a, &err), &err);
  CHECK_OK(fl_metrics_counter(r, "floe_x_total", "x", l1, 2, &b, &err), &err);
  CHECK(a == b);
  CHECK_OK(fl_metrics_counter(r, "floe_x_total", "x", l2, 2, &c, &err), &err);
  CHECK(a != c);
  fl_gauge_t *g;
  CHECK_ERR(fl_metrics_gauge(r, "floe_x_total", "x", l1, 2, &g, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "is a counter") != NULL);
  fl_label_t swapped[] = {{"partition", "0"}, {"topic", "t"}};
  CHECK_ERR(fl_metrics_counter(r, "floe_x_total", "x", swapped, 2, &a, &err), FL_EINVALID);
  CHECK_ERR(fl_metrics_counter(r, "floe_x_total", "x", l1, 1, &a, &err), FL_EINVALID);
  CHECK_ERR(fl_metrics_counter(r, "9bad", "x", NULL, 0, &a, &err), FL_EINVALID);
  CHECK_ERR(fl_metrics_counter(r, "floe-bad", "x", NULL, 0, &a, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "floe-bad") != NULL);
  CHECK_OK(fl_metrics_counter(r, "floe:ok_total", "x", NULL, 0, &a, &err), &err);
  fl_label_t badl[] = {{"__reserved", "v"}};
  CHECK_ERR(fl_metrics_counter(r, "floe_y_total", "y", badl, 1, &a, &err), FL_EINVALID);
  fl_label_t colon[] = {{"a:b", "v"}};
  CHECK_ERR(fl_metrics_counter(r, "floe_y_total", "y", colon, 1, &a, &err), FL_EINVALID);
  fl_label_t dup[] = {{"a", "1"}, {"a", "2"}};
  CHECK_ERR(fl_metrics_counter(r, "floe_y_total", "y", dup, 2, &a, &err), FL_EINVALID);
  fl_histogram_t *h;
  const double desc[] = {2, 1}, inf[] = {1, INFINITY}, ok[] = {1, 2}, other[] = {1, 3};
  CHECK_ERR(fl_metrics_histogram(r, "floe_h", "h", desc, 2, NULL, 0, &h, &err), FL_EINVALID);
  CHECK_ERR(fl_metrics_histogram(r, "floe_h", "h", inf, 2, NULL, 0, &h, &err), FL_EINVALID);
  CHECK_OK(fl_metrics_histogram(r, "floe_h", "h", ok, 2, NULL, 0, &h, &err), &err);
  CHECK_ERR(fl_metrics_histogram(r, "floe_h", "h", other, 2, NULL, 0, &h, &err), FL_EINVALID);
  CHECK_ERR(fl_metrics_counter_scaled(r, "floe_s_total", "s", 0, NULL, 0, &a, &err), FL_EINVALID);
  fl_metrics_free(r);
}

TEST(metrics_text_exposition) {
  fl_err_t err;
  fl_metrics_t *r = fl_metrics_new();
  fl_counter_t *c10, *c2, *cq;
  fl_gauge_t *g;
  fl_histogram_t *h;
  /* Registered out of order: the output sorts families by name and series
   * by label values, numbers as numbers. */
  fl_label_t p10[] = {{"topic", "t"}, {"partition", "10"}};
  fl_label_t p2[] = {{"topic", "t"}, {"partition", "2"}};
  fl_label_t q[] = {{"topic", "a\\b\"c\nd"}, {"partition", "0"}};
  CHECK_OK(fl_metrics_gauge(r, "floe_z_gauge", "Last.", NULL, 0, &g, &err), &err);
  CHECK_OK(
      fl_metrics_counter(r, "floe_a_total", "Help with \\ and\nnewline \"q\".", p10, 2, &c10, &err),
      &err);
  CHECK_OK(fl_metrics_counter(r, "floe_a_total", "", p2, 2, &c2, &err), &err);
  CHECK_OK(fl_metrics_counter(r, "floe_a_total", "", q, 2, &cq, &err), &err);
  const double bounds[] = {0.25, 0.5, 1};
  fl_label_t hl[] = {{"op", "scan"}};
  CHECK_OK(fl_metrics_histogram(r, "floe_m_seconds", "Latency.", bounds, 3, hl, 1, &h, &err), &err);
  fl_counter_t *empty;
  CHECK_OK(fl_metrics_counter(r, "floe_b_total", "Scaled.", NULL, 0, &empty, &err), &err);
  fl_counter_add(c10, 7);
  fl_counter_add(c2, 3);
  fl_counter_add(cq, 12345678901234ULL);
  fl_gauge_set(g, -0.25);
  fl_histogram_observe(h, 0.25); /* bounds are inclusive */
  fl_histogram_observe(h, 0.375);
  fl_histogram_observe(h, 0.375);
  fl_histogram_observe(h, 7);
  fl_metrics_snap_t s;
  fl_metrics_snapshot(r, &s);
  fl_buf_t b;
  fl_buf_init(&b);
  fl_metrics_text(&s, &b);
  fl_buf_append_u8(&b, 0);
  const char *want =
      "# HELP floe_a_total Help with \\\\ and\\nnewline \"q\".\n"
      "# TYPE floe_a_total counter\n"
      "floe_a_total{topic=\"a\\\\b\\\"c\\nd\",partition=\"0\"} 12345678901234\n"
      "floe_a_total{topic=\"t\",partition=\"2\"} 3\n"
      "floe_a_total{topic=\"t\",partition=\"10\"} 7\n"
      "# HELP floe_b_total Scaled.\n"
      "# TYPE floe_b_total counter\n"
      "floe_b_total 0\n"
      "# HELP floe_m_seconds Latency.\n"
      "# TYPE floe_m_seconds histogram\n"
      "floe_m_seconds_bucket{op=\"scan\",le=\"0.25\"} 1\n"
      "floe_m_seconds_bucket{op=\"scan\",le=\"0.5\"} 3\n"
      "floe_m_seconds_bucket{op=\"scan\",le=\"1\"} 3\n"
      "floe_m_seconds_bucket{op=\"scan\",le=\"+Inf\"} 4\n"
      "floe_m_seconds_sum{op=\"scan\"} 8\n"
      "floe_m_seconds_count{op=\"scan\"} 4\n"
      "# HELP floe_z_gauge Last.\n"
      "# TYPE floe_z_gauge gauge\n"
      "floe_z_gauge -0.25\n";
  CHECK_STR((const char *)b.data, want);
  /* The same registry renders the same bytes again. */
  fl_buf_t b2;
  fl_buf_init(&b2);
  fl_metrics_snap_t s2;
  fl_metrics_snapshot(r, &s2);
  fl_metrics_text(&s2, &b2);
  fl_buf_append_u8(&b2, 0);
  CHECK_STR((const char *)b2.data, want);
  fl_metrics_snap_free(&s2);
  fl_buf_free(&b2);
  fl_metrics_snap_free(&s);
  fl_buf_free(&b);
  fl_metrics_free(r);
}

TEST(metrics_text_values) {
  const struct {
    double v;
    const char *text;
  } cases[] = {{0, "0"},           {42, "42"},
               {0.1, "0.1"},       {1.0 / 3, "0.333333333333333315"},
               {1e21, "1e+21"},    {-2.5, "-2.5"},
               {INFINITY, "+Inf"}, {-INFINITY, "-Inf"},
               {NAN, "NaN"},       {9007199254740993.0, "9007199254740992"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fl_buf_t b;
    fl_buf_init(&b);
    fl_metrics_text_value(cases[i].v, &b);
    fl_buf_append_u8(&b, 0);
    /* 1/3 needs 17 digits to read back; accept what round-trips. */
    if (i == 3) {
      CHECK(strtod((const char *)b.data, NULL) == cases[i].v);
    } else {
      CHECK_STR((const char *)b.data, cases[i].text);
    }
    fl_buf_free(&b);
  }
}

TEST(metrics_scaled_counter_and_process) {
  fl_err_t err;
  fl_metrics_t *r = fl_metrics_new();
  fl_counter_t *c;
  CHECK_OK(fl_metrics_counter_scaled(r, "floe_t_seconds_total", "t", 1e-6, NULL, 0, &c, &err),
           &err);
  fl_counter_add(c, 1500000);
  CHECK_OK(fl_metrics_process_register(r, &err), &err);
  /* Burn a little CPU and memory so the values are above zero. */
  volatile double x = 0;
  for (int i = 0; i < 3000000; i++) x += i * 0.5;
  fl_metrics_snap_t s;
  fl_metrics_snapshot(r, &s);
  double v;
  CHECK(fl_metrics_snap_sum(&s, "floe_t_seconds_total", &v));
  CHECK(fabs(v - 1.5) < 1e-12);
  CHECK(fl_metrics_snap_sum(&s, "floe_process_resident_memory_bytes", &v));
  CHECK(v > 1024 * 1024);
  CHECK(fl_metrics_snap_sum(&s, "floe_process_virtual_memory_bytes", &v));
  CHECK(v > 1024 * 1024);
  CHECK(fl_metrics_snap_sum(&s, "floe_process_cpu_seconds_total", &v));
  CHECK(v >= 0 && v < 3600);
  CHECK(fl_metrics_snap_sum(&s, "floe_process_open_fds", &v));
  CHECK(v >= 3);
  CHECK(fl_metrics_snap_sum(&s, "floe_process_threads", &v));
  CHECK(v >= 1);
  CHECK(fl_metrics_snap_sum(&s, "floe_process_start_time_seconds", &v));
  double now = (double)time(NULL);
  CHECK(v > now - 3600 && v <= now + 1);
  CHECK(!fl_metrics_snap_sum(&s, "floe_absent", &v));
  fl_metrics_snap_free(&s);
  fl_metrics_free(r);
}
