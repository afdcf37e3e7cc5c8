/*
 * st_progress.c - the job progress line (layer 10, stream).
 *
 * Each redraw takes a registry snapshot, appends (time, events) to a ring
 * of samples and computes the rate from the oldest sample still inside
 * the 10-second window: a sliding average that follows changes within
 * seconds but does not jump with every batch. Ages are shown relative to
 * the wall clock, since checkpoint and commit times are wall-clock times.
 */
#include "stream/st_progress.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/time.h"

#define WINDOW_NS (10 * 1000000000LL)
#define REDRAW_NS (250 * 1000000LL)
#define NSAMPLES 64 /* more than the window holds at one sample per 250 ms */

typedef struct sample {
  int64_t t_ns;
  double events;
} sample_t;

struct st_progress {
  fl_metrics_t *reg;
  FILE *out;
  bool tty;
  st_progress_names_t names;
  sample_t ring[NSAMPLES];
  uint32_t head, count; /* ring[head] is the oldest */
  int64_t last_draw_ns;
  bool drawn;
};

st_progress_t *st_progress_new(fl_metrics_t *reg, FILE *out, bool tty,
                               const st_progress_names_t *names) {
  st_progress_t *p = fl_calloc(1, sizeof *p);
  p->reg = reg;
  p->out = out;
  p->tty = tty;
  if (names) p->names = *names;
  st_progress_names_t *n = &p->names;
  if (!n->events) n->events = "floe_kafka_records_consumed_total";
  if (!n->lag) n->lag = "floe_kafka_consumer_lag";
  if (!n->watermark) n->watermark = ST_METRIC_WATERMARK;
  if (!n->checkpoint_id) n->checkpoint_id = ST_METRIC_CHECKPOINT_ID;
  if (!n->checkpoint_time) n->checkpoint_time = ST_METRIC_CHECKPOINT_TIME;
  if (!n->commit_checkpoint_id) n->commit_checkpoint_id = ST_METRIC_COMMIT_CHECKPOINT_ID;
  if (!n->commit_time) n->commit_time = ST_METRIC_COMMIT_TIME;
  p->last_draw_ns = INT64_MIN;
  return p;
}

static void add_sample(st_progress_t *p, int64_t t_ns, double events) {
  if (p->count == NSAMPLES) {
    p->head = (p->head + 1) % NSAMPLES;
    p->count--;
  }
  p->ring[(p->head + p->count) % NSAMPLES] = (sample_t){t_ns, events};
  p->count++;
  /* Keep one sample at or before the window's start, so the rate covers
   * the whole window. */
  while (p->count > 2 && p->ring[(p->head + 1) % NSAMPLES].t_ns <= t_ns - WINDOW_NS) {
    p->head = (p->head + 1) % NSAMPLES;
    p->count--;
  }
}

static double rate(const st_progress_t *p) {
  if (p->count < 2) return 0;
  const sample_t *a = &p->ring[p->head], *b = &p->ring[(p->head + p->count - 1) % NSAMPLES];
  if (b->t_ns <= a->t_ns) return 0;
  return (b->events - a->events) / ((double)(b->t_ns - a->t_ns) / 1e9);
}

/* "3.1s", "4m05s", "2h10m" */
static void age_text(double secs, char *buf, size_t size) {
  if (secs < 0) secs = 0;
  if (secs < 60)
    snprintf(buf, size, "%.1fs", secs);
  else if (secs < 3600)
    snprintf(buf, size, "%dm%02ds", (int)(secs / 60), (int)fmod(secs, 60));
  else
    snprintf(buf, size, "%dh%02dm", (int)(secs / 3600), (int)fmod(secs / 60, 60));
}

static size_t append(char *buf, size_t size, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static size_t append(char *buf, size_t size, size_t len, const char *fmt, ...) {
  if (len >= size) return len;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf + len, size - len, fmt, ap);
  va_end(ap);
  if (n < 0) return len;
  return len + (size_t)n < size ? len + (size_t)n : size - 1;
}

size_t st_progress_format(st_progress_t *p, int64_t now_ns, double now_s, char *buf, size_t size) {
  if (size == 0) return 0;
  buf[0] = 0;
  fl_metrics_snap_t snap;
  fl_metrics_snapshot(p->reg, &snap);
  const st_progress_names_t *n = &p->names;
  double events = 0, v, t;
  fl_metrics_snap_sum(&snap, n->events, &events);
  add_sample(p, now_ns, events);
  size_t len = append(buf, size, 0, "events %.0f  %.0f/s", events, rate(p));
  if (fl_metrics_snap_max(&snap, n->lag, &v)) len = append(buf, size, len, "  lag %.0f", v);
  if (fl_metrics_snap_max(&snap, n->watermark, &v) && v > 0) {
    char ts[48];
    fl_format_timestamp((int64_t)(v * 1e6), 6, false, ts);
    ts[10] = ' ';
    ts[19] = 0; /* to the second */
    len = append(buf, size, len, "  wm %s", ts);
  }
  char age[24];
  if (fl_metrics_snap_max(&snap, n->checkpoint_id, &v) && v > 0) {
    len = append(buf, size, len, "  chk %.0f", v);
    if (fl_metrics_snap_max(&snap, n->checkpoint_time, &t) && t > 0) {
      age_text(now_s - t, age, sizeof age);
      len = append(buf, size, len, " %s ago", age);
    }
  }
  if (fl_metrics_snap_max(&snap, n->commit_checkpoint_id, &v) && v > 0) {
    len = append(buf, size, len, "  commit %.0f", v);
    if (fl_metrics_snap_max(&snap, n->commit_time, &t) && t > 0) {
      age_text(now_s - t, age, sizeof age);
      len = append(buf, size, len, " %s ago", age);
    }
  }
  fl_metrics_snap_free(&snap);
  return len;
}

static void draw(st_progress_t *p, int64_t now_ns) {
  char line[512];
  size_t len = st_progress_format(p, now_ns, (double)fl_now_micros() / 1e6, line, sizeof line);
  struct winsize ws;
  if (ioctl(fileno(p->out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 && len >= ws.ws_col)
    line[ws.ws_col - 1] = 0; /* one column spare: a full line would wrap on some terminals */
  fprintf(p->out, "\r%s\x1b[K", line);
  fflush(p->out);
  p->last_draw_ns = now_ns;
  p->drawn = true;
}

void st_progress_tick(st_progress_t *p, int64_t now_ns) {
  if (!p || !p->tty) return;
  if (p->last_draw_ns != INT64_MIN && now_ns - p->last_draw_ns < REDRAW_NS) return;
  draw(p, now_ns);
}

void st_progress_finish(st_progress_t *p, int64_t now_ns) {
  if (!p) return;
  if (p->tty) {
    draw(p, now_ns);
    fputc('\n', p->out);
    fflush(p->out);
  }
  fl_free(p);
}
