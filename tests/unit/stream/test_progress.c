/*
 * test_progress.c - the job progress line: events summed over partitions,
 * the rate over the sliding window, the largest lag, watermark,
 * checkpoint and commit with their ages; redrawn in place on a terminal
 * and nothing at all when the output is not one.
 */
#include <stdlib.h>

#include "base/metrics.h"
#include "stream/st_progress.h"
#include "test.h"

#define SEC 1000000000LL

TEST(progress_line_reads_the_registry) {
  fl_err_t err;
  fl_metrics_t *r = fl_metrics_new();
  fl_counter_t *c0, *c1;
  fl_gauge_t *l0, *l1;
  fl_label_t p0[] = {{"topic", "t"}, {"partition", "0"}},
             p1[] = {{"topic", "t"}, {"partition", "1"}};
  CHECK_OK(fl_metrics_counter(r, "floe_kafka_records_consumed_total", "", p0, 2, &c0, &err), &err);
  CHECK_OK(fl_metrics_counter(r, "floe_kafka_records_consumed_total", "", p1, 2, &c1, &err), &err);
  CHECK_OK(fl_metrics_gauge(r, "floe_kafka_consumer_lag", "", p0, 2, &l0, &err), &err);
  CHECK_OK(fl_metrics_gauge(r, "floe_kafka_consumer_lag", "", p1, 2, &l1, &err), &err);
  st_progress_t *p = st_progress_new(r, stderr, false, NULL);
  char line[256];
  st_progress_format(p, 100 * SEC, 1e9, line, sizeof line);
  CHECK_STR(line, "events 0  0/s  lag 0");
  fl_counter_add(c0, 600);
  fl_counter_add(c1, 400);
  fl_gauge_set(l0, 5);
  fl_gauge_set(l1, 17);
  st_progress_format(p, 101 * SEC, 1e9, line, sizeof line);
  CHECK_STR(line, "events 1000  1000/s  lag 17");
  /* 20 s later at a lower rate: the window forgets the first second. */
  for (int s = 2; s <= 21; s++) {
    fl_counter_add(c0, 100);
    st_progress_format(p, (100 + s) * SEC, 1e9, line, sizeof line);
  }
  CHECK_STR(line, "events 3000  100/s  lag 17");
  /* The job's gauges appear once registered. */
  fl_gauge_t *wm, *chk, *chk_t, *com, *com_t;
  CHECK_OK(fl_metrics_gauge(r, ST_METRIC_WATERMARK, "", NULL, 0, &wm, &err), &err);
  CHECK_OK(fl_metrics_gauge(r, ST_METRIC_CHECKPOINT_ID, "", NULL, 0, &chk, &err), &err);
  CHECK_OK(fl_metrics_gauge(r, ST_METRIC_CHECKPOINT_TIME, "", NULL, 0, &chk_t, &err), &err);
  CHECK_OK(fl_metrics_gauge(r, ST_METRIC_COMMIT_CHECKPOINT_ID, "", NULL, 0, &com, &err), &err);
  CHECK_OK(fl_metrics_gauge(r, ST_METRIC_COMMIT_TIME, "", NULL, 0, &com_t, &err), &err);
  fl_gauge_set(wm, 1704067265.5); /* 2024-01-01 00:01:05.5 */
  fl_gauge_set(chk, 12);
  fl_gauge_set(chk_t, 1704067300.0);
  fl_gauge_set(com, 11);
  fl_gauge_set(com_t, 1704067300.0 - 250);
  st_progress_format(p, 122 * SEC, 1704067303.25, line, sizeof line);
  CHECK_STR(line,
            "events 3000  90/s  lag 17  wm 2024-01-01 00:01:05  chk 12 3.2s ago  commit 11 "
            "4m13s ago");
  /* A short buffer cuts the line, NUL-terminated. */
  char small[10];
  CHECK_EQ(st_progress_format(p, 123 * SEC, 1704067303.25, small, sizeof small), 9);
  CHECK_STR(small, "events 30");
  st_progress_finish(p, 124 * SEC);
  fl_metrics_free(r);
}

TEST(progress_draws_only_on_a_terminal) {
  fl_metrics_t *r = fl_metrics_new();
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  st_progress_t *p = st_progress_new(r, f, false, NULL);
  st_progress_tick(p, 1 * SEC);
  st_progress_finish(p, 2 * SEC);
  fflush(f);
  CHECK_EQ(len, 0);
  p = st_progress_new(r, f, true, NULL);
  st_progress_tick(p, 10 * SEC);
  st_progress_tick(p, 10 * SEC + 100000000); /* within 250 ms: no redraw */
  st_progress_tick(p, 11 * SEC);
  st_progress_finish(p, 12 * SEC);
  fclose(f);
  CHECK_STR(buf, "\revents 0  0/s\x1b[K\revents 0  0/s\x1b[K\revents 0  0/s\x1b[K\n");
  free(buf);
  fl_metrics_free(r);
}
