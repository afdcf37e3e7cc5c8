/*
 * pool.h - a fixed pool of worker threads, task groups, and a morsel
 * dispatcher for parallel loops (layer 1, base).
 *
 * Morsel-driven parallelism (Leis et al., "Morsel-Driven Parallelism",
 * SIGMOD 2014): work is cut into small ranges (morsels) that idle workers
 * claim one at a time from a shared counter, so fast workers take more and
 * no static partitioning can leave one worker with the long tail. The
 * thread that starts a parallel loop works on it too.
 *
 * Tasks run on some pool thread in no particular order. A task group
 * counts its unfinished tasks; waiting on a group runs queued tasks on the
 * waiting thread meanwhile, so a task may itself submit to and wait on a
 * group without deadlocking the pool, even with one worker.
 *
 * @locality every function may be called from any thread, including from
 * inside a task; fl_pool_free only from outside the pool, after every
 * group has been waited on.
 */
#ifndef FL_BASE_POOL_H
#define FL_BASE_POOL_H

#include <stdint.h>

#include "base/error.h"

typedef struct fl_pool fl_pool_t;

/* A task: arg is the submitter's, worker identifies the thread running it:
 * 0 .. fl_pool_threads() - 1 for pool threads, fl_pool_threads() for a
 * thread outside the pool (waiting, or running its share of a parallel
 * loop). Per-worker state indexed this way assumes one outside thread
 * drives the pool at a time. */
typedef void (*fl_task_fn)(void *arg, uint32_t worker);

typedef struct fl_taskgroup {
  fl_pool_t *pool;
  uint64_t pending; /* unfinished tasks; changed under the pool's lock */
} fl_taskgroup_t;

/* Starts nthreads workers (0: one per online CPU). At most 1024. */
int fl_pool_new(uint32_t nthreads, fl_pool_t **out, fl_err_t *err);
/* Stops and joins the workers; tasks still queued run first. NULL is ok. */
void fl_pool_free(fl_pool_t *p);
uint32_t fl_pool_threads(const fl_pool_t *p);

void fl_taskgroup_init(fl_taskgroup_t *g, fl_pool_t *p);
/* Queues fn(arg) as part of group g. */
void fl_pool_submit(fl_taskgroup_t *g, fl_task_fn fn, void *arg);
/* Returns when every task of g has finished, running queued tasks of any
 * group on this thread while it waits. */
void fl_taskgroup_wait(fl_taskgroup_t *g);

/*
 * Calls fn(arg, begin, end, worker) over [0, n) cut into morsels of
 * `morsel` items (0: 1), on every pool thread and the calling one, and
 * returns when all are done. Each index is covered exactly once; per-
 * worker state indexed by `worker` needs fl_pool_threads(p) + 1 slots.
 */
typedef void (*fl_morsel_fn)(void *arg, uint64_t begin, uint64_t end, uint32_t worker);
void fl_pool_parallel_for(fl_pool_t *p, uint64_t n, uint64_t morsel, fl_morsel_fn fn, void *arg);

#endif
