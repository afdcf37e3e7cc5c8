/*
 * ex_progress.h - how far a running query has got (layer 8, exec).
 *
 * The scans of a query add to one of these counters as they read; another
 * thread (the command line's progress line) reads them at any time. The
 * fields are relaxed atomics: each is exact by itself, and a reader may
 * see one a little ahead of another, which is all a progress display
 * needs. Work is counted in bytes of the files the scans will read, so
 * work_done / work_total is the fraction done when work_total is not 0.
 */
#ifndef FL_EXEC_EX_PROGRESS_H
#define FL_EXEC_EX_PROGRESS_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct ex_progress {
  _Atomic uint64_t rows;        /* rows the scans have produced */
  _Atomic uint64_t bytes;       /* bytes read from files */
  _Atomic uint64_t files_done;  /* files the file scans have finished */
  _Atomic uint64_t files_total; /* files the file scans will read */
  _Atomic uint64_t work_done;   /* bytes of work done (finished files count whole) */
  _Atomic uint64_t work_total;  /* bytes of work planned; 0: unknown */
} ex_progress_t;

static inline void ex_progress_add(_Atomic uint64_t *c, uint64_t n) {
  atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}
static inline uint64_t ex_progress_get(_Atomic uint64_t *c) {
  return atomic_load_explicit(c, memory_order_relaxed);
}

#endif
