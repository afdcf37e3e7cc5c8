/*
 * pool.c - worker threads over one FIFO task queue guarded by a mutex.
 *
 * The queue is a growable ring of {fn, arg, group}. Workers sleep on
 * `work` when it is empty; finishing the last task of a group broadcasts
 * `done`, on which waiters sleep when there is nothing queued for them to
 * run. Tasks are coarse (a morsel loop per worker, not per morsel), so one
 * lock is not a bottleneck; morsels themselves are claimed with an atomic
 * counter outside the lock.
 */
#include "base/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <unistd.h>

#include "base/alloc.h"

typedef struct task {
  fl_task_fn fn;
  void *arg;
  fl_taskgroup_t *group;
} task_t;

typedef struct worker_arg {
  fl_pool_t *pool;
  uint32_t index;
} worker_arg_t;

struct fl_pool {
  pthread_mutex_t lock;
  pthread_cond_t work, done;
  task_t *ring;
  uint64_t head, count, cap; /* ring positions */
  bool stopping;
  uint32_t nthreads;
  pthread_t *threads;
  worker_arg_t *args;
};

/* Pops a task; the lock is held. */
static bool pop(fl_pool_t *p, task_t *t) {
  if (!p->count) return false;
  *t = p->ring[p->head];
  p->head = (p->head + 1) % p->cap;
  p->count--;
  return true;
}

/* Runs t without the lock, then accounts for it; returns with the lock. */
static void run(fl_pool_t *p, task_t *t, uint32_t worker) {
  pthread_mutex_unlock(&p->lock);
  t->fn(t->arg, worker);
  pthread_mutex_lock(&p->lock);
  if (--t->group->pending == 0) pthread_cond_broadcast(&p->done);
}

/* The pool and index of the pool thread running this code, if any, so that
 * a task waiting inside the pool keeps its own worker index. */
static _Thread_local const fl_pool_t *tls_pool;
static _Thread_local uint32_t tls_index;

static uint32_t self_index(const fl_pool_t *p) { return tls_pool == p ? tls_index : p->nthreads; }

static void *worker_main(void *arg) {
  worker_arg_t *w = arg;
  fl_pool_t *p = w->pool;
  tls_pool = p;
  tls_index = w->index;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    task_t t;
    if (pop(p, &t)) {
      run(p, &t, w->index);
      continue;
    }
    if (p->stopping) break;
    pthread_cond_wait(&p->work, &p->lock);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

int fl_pool_new(uint32_t nthreads, fl_pool_t **out, fl_err_t *err) {
  if (nthreads == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    nthreads = n > 0 ? (uint32_t)n : 1;
  }
  if (nthreads > 1024)
    return fl_err_set(err, FL_EINVALID, "thread pool: %u threads (at most 1024)", nthreads);
  fl_pool_t *p = fl_calloc(1, sizeof *p);
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->work, NULL);
  pthread_cond_init(&p->done, NULL);
  p->cap = 64;
  p->ring = fl_malloc(p->cap * sizeof *p->ring);
  p->threads = fl_calloc(nthreads, sizeof *p->threads);
  p->args = fl_calloc(nthreads, sizeof *p->args);
  for (uint32_t i = 0; i < nthreads; i++) {
    p->args[i] = (worker_arg_t){p, i};
    int rc = pthread_create(&p->threads[i], NULL, worker_main, &p->args[i]);
    if (rc) {
      p->nthreads = i;
      fl_pool_free(p);
      return fl_err_set(err, FL_EIO, "thread pool: starting thread %u of %u failed (error %d)", i,
                        nthreads, rc);
    }
    p->nthreads = i + 1;
  }
  *out = p;
  return FL_OK;
}

void fl_pool_free(fl_pool_t *p) {
  if (!p) return;
  pthread_mutex_lock(&p->lock);
  p->stopping = true;
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->lock);
  for (uint32_t i = 0; i < p->nthreads; i++) pthread_join(p->threads[i], NULL);
  pthread_mutex_destroy(&p->lock);
  pthread_cond_destroy(&p->work);
  pthread_cond_destroy(&p->done);
  fl_free(p->ring);
  fl_free(p->threads);
  fl_free(p->args);
  fl_free(p);
}

uint32_t fl_pool_threads(const fl_pool_t *p) { return p->nthreads; }

void fl_taskgroup_init(fl_taskgroup_t *g, fl_pool_t *p) {
  g->pool = p;
  g->pending = 0;
}

void fl_pool_submit(fl_taskgroup_t *g, fl_task_fn fn, void *arg) {
  fl_pool_t *p = g->pool;
  pthread_mutex_lock(&p->lock);
  if (p->count == p->cap) {
    /* Unroll the ring into a buffer twice as large. */
    task_t *ring = fl_malloc(2 * p->cap * sizeof *ring);
    for (uint64_t i = 0; i < p->count; i++) ring[i] = p->ring[(p->head + i) % p->cap];
    fl_free(p->ring);
    p->ring = ring;
    p->head = 0;
    p->cap *= 2;
  }
  p->ring[(p->head + p->count) % p->cap] = (task_t){fn, arg, g};
  p->count++;
  g->pending++;
  pthread_cond_signal(&p->work);
  pthread_mutex_unlock(&p->lock);
}

void fl_taskgroup_wait(fl_taskgroup_t *g) {
  fl_pool_t *p = g->pool;
  pthread_mutex_lock(&p->lock);
  while (g->pending) {
    task_t t;
    if (pop(p, &t))
      run(p, &t, self_index(p));
    else
      pthread_cond_wait(&p->done, &p->lock);
  }
  pthread_mutex_unlock(&p->lock);
}

typedef struct morsels {
  _Atomic uint64_t next;
  uint64_t n, morsel;
  fl_morsel_fn fn;
  void *arg;
} morsels_t;

static void morsel_loop(void *arg, uint32_t worker) {
  morsels_t *m = arg;
  for (;;) {
    uint64_t begin = atomic_fetch_add(&m->next, m->morsel);
    if (begin >= m->n) return;
    uint64_t end = m->n - begin < m->morsel ? m->n : begin + m->morsel;
    m->fn(m->arg, begin, end, worker);
  }
}

void fl_pool_parallel_for(fl_pool_t *p, uint64_t n, uint64_t morsel, fl_morsel_fn fn, void *arg) {
  morsels_t m = {.n = n, .morsel = morsel ? morsel : 1, .fn = fn, .arg = arg};
  atomic_init(&m.next, 0);
  fl_taskgroup_t g;
  fl_taskgroup_init(&g, p);
  uint64_t morsels = (n + m.morsel - 1) / m.morsel;
  /* No more helpers than morsels beyond the caller's own share. */
  uint64_t helpers = morsels > 1 ? morsels - 1 : 0;
  if (helpers > p->nthreads) helpers = p->nthreads;
  for (uint64_t i = 0; i < helpers; i++) fl_pool_submit(&g, morsel_loop, &m);
  morsel_loop(&m, self_index(p));
  fl_taskgroup_wait(&g);
}
