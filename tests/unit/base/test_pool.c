/*
 * test_pool.c - the thread pool: every morsel of a parallel loop runs
 * exactly once and per-worker partial results add up; many small tasks all
 * run; a task that waits on a nested group does not deadlock a one-thread
 * pool; worker indexes stay in range; bad sizes are refused.
 */
#include <stdatomic.h>

#include "base/alloc.h"
#include "base/pool.h"
#include "test.h"

typedef struct loop_ctx {
  uint8_t *hits;
  uint64_t *partial; /* per worker */
  uint32_t nworkers;
  _Atomic int bad_worker;
} loop_ctx_t;

static void loop_body(void *arg, uint64_t begin, uint64_t end, uint32_t worker) {
  loop_ctx_t *c = arg;
  if (worker >= c->nworkers) {
    atomic_store(&c->bad_worker, 1);
    return;
  }
  for (uint64_t i = begin; i < end; i++) {
    c->hits[i]++;
    c->partial[worker] += i;
  }
}

TEST(pool_parallel_for_covers_each_index_once) {
  fl_err_t err;
  const uint32_t sizes[] = {1, 2, 4};
  for (int s = 0; s < 3; s++) {
    fl_pool_t *p;
    CHECK_OK(fl_pool_new(sizes[s], &p, &err), &err);
    CHECK_EQ(fl_pool_threads(p), sizes[s]);
    const uint64_t n = 1000003;
    loop_ctx_t c = {.hits = fl_calloc(n, 1), .nworkers = sizes[s] + 1};
    c.partial = fl_calloc(c.nworkers, sizeof *c.partial);
    atomic_init(&c.bad_worker, 0);
    fl_pool_parallel_for(p, n, 997, loop_body, &c);
    uint64_t total = 0;
    for (uint32_t w = 0; w < c.nworkers; w++) total += c.partial[w];
    CHECK_EQ(total, n * (n - 1) / 2);
    for (uint64_t i = 0; i < n; i++) CHECK_EQ(c.hits[i], 1);
    CHECK_EQ(atomic_load(&c.bad_worker), 0);
    /* An empty loop and a loop of one morsel. */
    fl_pool_parallel_for(p, 0, 10, loop_body, &c);
    fl_pool_parallel_for(p, 5, 0, loop_body, &c);
    for (uint64_t i = 0; i < 5; i++) CHECK_EQ(c.hits[i], 2);
    fl_free(c.hits);
    fl_free(c.partial);
    fl_pool_free(p);
  }
}

static _Atomic uint64_t counter;

static void add_task(void *arg, uint32_t worker) {
  atomic_fetch_add(&counter, (uint64_t)(uintptr_t)arg);
}

TEST(pool_runs_every_submitted_task) {
  fl_err_t err;
  fl_pool_t *p;
  CHECK_OK(fl_pool_new(3, &p, &err), &err);
  atomic_store(&counter, 0);
  fl_taskgroup_t g;
  fl_taskgroup_init(&g, p);
  for (uintptr_t i = 1; i <= 20000; i++) fl_pool_submit(&g, add_task, (void *)i);
  fl_taskgroup_wait(&g);
  CHECK_EQ(atomic_load(&counter), 20000ull * 20001 / 2);
  CHECK_EQ(g.pending, 0);
  fl_pool_free(p);
}

typedef struct nest {
  fl_pool_t *pool;
  _Atomic int inner_done;
} nest_t;

static void inner_task(void *arg, uint32_t worker) {
  atomic_fetch_add(&((nest_t *)arg)->inner_done, 1);
}

static void outer_task(void *arg, uint32_t worker) {
  nest_t *n = arg;
  fl_taskgroup_t g;
  fl_taskgroup_init(&g, n->pool);
  for (int i = 0; i < 10; i++) fl_pool_submit(&g, inner_task, n);
  fl_taskgroup_wait(&g); /* runs the inner tasks itself if need be */
}

TEST(pool_nested_wait_does_not_deadlock) {
  fl_err_t err;
  fl_pool_t *p;
  CHECK_OK(fl_pool_new(1, &p, &err), &err);
  nest_t n = {.pool = p};
  atomic_init(&n.inner_done, 0);
  fl_taskgroup_t g;
  fl_taskgroup_init(&g, p);
  for (int i = 0; i < 5; i++) fl_pool_submit(&g, outer_task, &n);
  fl_taskgroup_wait(&g);
  CHECK_EQ(atomic_load(&n.inner_done), 50);
  fl_pool_free(p);
}

TEST(pool_refuses_bad_sizes) {
  fl_err_t err;
  fl_pool_t *p;
  CHECK_ERR(fl_pool_new(5000, &p, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "5000") != NULL);
  CHECK_OK(fl_pool_new(0, &p, &err), &err);
  CHECK(fl_pool_threads(p) >= 1);
  fl_pool_free(p);
  fl_pool_free(NULL);
}
