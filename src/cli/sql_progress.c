/*
 * sql_progress.c - the progress line of `floe sql` (layer 12, cli). See
 * sql_progress.h. The thread waits on a condition variable with a 100 ms
 * timeout, so stopping it is immediate; the line is drawn with a carriage
 * return and "erase to end of line", cut to the terminal's width so that
 * it never wraps, and erased the same way.
 */
#include "cli/sql_progress.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "base/alloc.h"

struct cli_progress {
  ex_progress_t *p;
  FILE *tty;
  unsigned delay_ms;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool stop;
  bool drawn;
  struct timespec start;
};

static double since(const struct timespec *t0) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static void human_bytes(uint64_t n, char *buf, size_t cap) {
  static const char *units[] = {"B", "KB", "MB", "GB", "TB"};
  double x = (double)n;
  int u = 0;
  while (x >= 1000 && u < 4) {
    x /= 1000;
    u++;
  }
  if (u == 0)
    snprintf(buf, cap, "%llu B", (unsigned long long)n);
  else
    snprintf(buf, cap, "%.1f %s", x, units[u]);
}

void cli_progress_format(const ex_progress_t *cp, double elapsed_s, char *buf, size_t cap) {
  ex_progress_t *p = (ex_progress_t *)cp;
  uint64_t rows = ex_progress_get(&p->rows), bytes = ex_progress_get(&p->bytes);
  uint64_t fd = ex_progress_get(&p->files_done), ft = ex_progress_get(&p->files_total);
  uint64_t wd = ex_progress_get(&p->work_done), wt = ex_progress_get(&p->work_total);
  char b[32];
  human_bytes(bytes, b, sizeof b);
  int n = snprintf(buf, cap, "[%.1fs] %llu rows, %s read", elapsed_s, (unsigned long long)rows, b);
  if (n > 0 && (size_t)n < cap && ft)
    n += snprintf(buf + n, cap - (size_t)n, ", files %llu/%llu", (unsigned long long)fd,
                  (unsigned long long)ft);
  if (n > 0 && (size_t)n < cap && wt) {
    uint64_t pct = wd >= wt ? 100 : wd * 100 / wt;
    snprintf(buf + n, cap - (size_t)n, ", %llu%%", (unsigned long long)pct);
  }
}

static void *run(void *arg) {
  cli_progress_t *pr = arg;
  pthread_mutex_lock(&pr->mu);
  while (!pr->stop) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 100 * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&pr->cv, &pr->mu, &until);
    if (pr->stop) break;
    double t = since(&pr->start);
    if (t * 1000 < pr->delay_ms) continue;
    char line[256];
    cli_progress_format(pr->p, t, line, sizeof line);
    /* A line wider than the terminal would wrap, and erasing it would
     * leave its first part behind. */
    struct winsize ws;
    if (ioctl(fileno(pr->tty), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 &&
        strlen(line) >= ws.ws_col)
      line[ws.ws_col - 1] = 0;
    fprintf(pr->tty, "\r\033[K%s", line);
    fflush(pr->tty);
    pr->drawn = true;
  }
  pthread_mutex_unlock(&pr->mu);
  return NULL;
}

cli_progress_t *cli_progress_start(ex_progress_t *p, FILE *tty, unsigned delay_ms) {
  cli_progress_t *pr = fl_calloc(1, sizeof *pr);
  pr->p = p;
  pr->tty = tty;
  pr->delay_ms = delay_ms;
  pthread_mutex_init(&pr->mu, NULL);
  pthread_cond_init(&pr->cv, NULL);
  clock_gettime(CLOCK_MONOTONIC, &pr->start);
  if (pthread_create(&pr->thread, NULL, run, pr) != 0) {
    pthread_cond_destroy(&pr->cv);
    pthread_mutex_destroy(&pr->mu);
    fl_free(pr);
    return NULL;
  }
  return pr;
}

void cli_progress_stop(cli_progress_t *pr) {
  if (!pr) return;
  pthread_mutex_lock(&pr->mu);
  pr->stop = true;
  pthread_cond_signal(&pr->cv);
  pthread_mutex_unlock(&pr->mu);
  pthread_join(pr->thread, NULL);
  if (pr->drawn) {
    fputs("\r\033[K", pr->tty);
    fflush(pr->tty);
  }
  pthread_cond_destroy(&pr->cv);
  pthread_mutex_destroy(&pr->mu);
  fl_free(pr);
}
