/*
 * metrics_process.c - process memory, CPU time, file descriptors and
 * threads from /proc/self, refreshed by a registry collector (layer 1,
 * base).
 *
 * CPU time is counted in clock ticks (utime + stime of /proc/self/stat)
 * with a scale of 1 / ticks-per-second, so the counter is exact and shows
 * seconds. Memory comes from /proc/self/statm in pages.
 */
#include "base/metrics_process.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/time.h"

typedef struct proc_metrics {
  fl_gauge_t *rss, *vsize, *fds, *threads, *start;
  fl_counter_t *cpu;
  long page_size;
} proc_metrics_t;

/* Fields of /proc/self/stat after the command name (which may hold spaces
 * and parentheses, so parsing starts after the last ')'). Field 3 (state)
 * is index 0 here. */
static int read_stat(unsigned long long *fields, int want) {
  char buf[2048];
  FILE *f = fopen("/proc/self/stat", "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char *p = strrchr(buf, ')');
  if (!p) return 0;
  p += 2;
  int got = 0;
  while (got < want && *p) {
    if (got == 0) { /* state is a letter */
      fields[got++] = 0;
      p = strchr(p, ' ');
      if (!p) break;
      p++;
      continue;
    }
    char *end;
    fields[got++] = strtoull(p, &end, 10);
    if (end == p) break;
    p = end;
    while (*p == ' ') p++;
  }
  return got;
}

static void collect(void *arg) {
  proc_metrics_t *m = arg;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f) {
    unsigned long long size = 0, resident = 0;
    if (fscanf(f, "%llu %llu", &size, &resident) == 2) {
      fl_gauge_set(m->vsize, (double)size * (double)m->page_size);
      fl_gauge_set(m->rss, (double)resident * (double)m->page_size);
    }
    fclose(f);
  }
  /* utime, stime are fields 14 and 15; num_threads field 20 (1-based). */
  unsigned long long st[18];
  if (read_stat(st, 18) == 18) {
    fl_counter_store(m->cpu, st[14 - 3] + st[15 - 3]);
    fl_gauge_set(m->threads, (double)st[20 - 3]);
  }
  DIR *d = opendir("/proc/self/fd");
  if (d) {
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
      if (e->d_name[0] != '.') n++;
    closedir(d);
    fl_gauge_set(m->fds, (double)(n > 0 ? n - 1 : 0)); /* without the directory's own fd */
  }
}

/* The process's start: boot time (/proc/stat btime) plus its start in
 * ticks after boot (field 22 of /proc/self/stat); now when unknown. */
static double start_time_seconds(long ticks) {
  double now = (double)fl_now_micros() / 1e6;
  unsigned long long st[20];
  FILE *f = fopen("/proc/stat", "r");
  if (!f || read_stat(st, 20) != 20) {
    if (f) fclose(f);
    return now;
  }
  char line[256];
  double btime = -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "btime ", 6) == 0) btime = strtod(line + 6, NULL);
  fclose(f);
  return btime > 0 ? btime + (double)st[22 - 3] / (double)ticks : now;
}

int fl_metrics_process_register(fl_metrics_t *r, fl_err_t *err) {
  long ticks = sysconf(_SC_CLK_TCK);
  if (ticks <= 0) ticks = 100;
  proc_metrics_t *m = fl_calloc(1, sizeof *m);
  m->page_size = sysconf(_SC_PAGESIZE);
  if (m->page_size <= 0) m->page_size = 4096;
  int rc =
      fl_metrics_gauge(r, "floe_process_resident_memory_bytes",
                       "Resident set size of the floe process in bytes.", NULL, 0, &m->rss, err);
  if (!rc)
    rc = fl_metrics_gauge(r, "floe_process_virtual_memory_bytes",
                          "Virtual memory size of the floe process in bytes.", NULL, 0, &m->vsize,
                          err);
  if (!rc)
    rc = fl_metrics_counter_scaled(r, "floe_process_cpu_seconds_total",
                                   "User and system CPU time spent by the floe process in seconds.",
                                   1.0 / (double)ticks, NULL, 0, &m->cpu, err);
  if (!rc)
    rc = fl_metrics_gauge(r, "floe_process_open_fds", "Open file descriptors of the floe process.",
                          NULL, 0, &m->fds, err);
  if (!rc)
    rc = fl_metrics_gauge(r, "floe_process_threads", "Threads of the floe process.", NULL, 0,
                          &m->threads, err);
  if (!rc)
    rc = fl_metrics_gauge(r, "floe_process_start_time_seconds",
                          "Start time of the floe process since the Unix epoch in seconds.", NULL,
                          0, &m->start, err);
  if (rc) {
    fl_free(m);
    return rc;
  }
  fl_gauge_set(m->start, start_time_seconds(ticks));
  fl_metrics_add_collector(r, collect, fl_free, m);
  return FL_OK;
}
