/*
 * op_scan.c - the Iceberg table scan as a pipeline source (layer 8, exec).
 *
 * Algorithm: the scan was planned by the physical planner through
 * ice_scan_plan (snapshot, pruning filter, projected columns, limit);
 * run() pulls each batch from ice_scan_next and pushes it to the
 * consumer, stopping early when the pipeline's stop flag is raised, then
 * finishes the consumer. Batches are the scan's own and valid only during
 * the push, as the operator interface requires.
 *
 * States: READING (tasks left), DONE. Morsel-parallel reading will split
 * the planned tasks across workers (ice_scan_tasks + ice_scan_read_task).
 */
#include "base/alloc.h"
#include "exec/op_basic.h"

typedef struct scan_src {
  ex_source_t src;
  ice_scan_t *scan;
  ex_progress_t *progress; /* NULL: none */
} scan_src_t;

static int scan_run(ex_source_t *s, fl_err_t *err) {
  scan_src_t *sc = (scan_src_t *)s;
  for (;;) {
    if (s->stop && *s->stop) break;
    ty_batch_t *b;
    int rc = ice_scan_next(sc->scan, &b, err);
    if (rc) return rc;
    if (!b) break;
    if (!ty_batch_live(b)) continue;
    if (sc->progress) ex_progress_add(&sc->progress->rows, ty_batch_live(b));
    if ((rc = ex_op_push(s->next, b, err))) return rc;
  }
  return ex_op_finish(s->next, err);
}

static void scan_destroy(ex_source_t *s) {
  scan_src_t *sc = (scan_src_t *)s;
  ice_scan_free(sc->scan);
  fl_free(sc);
}

const ice_scan_stats_t *ex_scan_source_stats(const ex_source_t *s) {
  if (s->run != scan_run) return NULL;
  return ice_scan_stats(((const scan_src_t *)s)->scan);
}

void ex_scan_source_set_progress(ex_source_t *s, ex_progress_t *progress) {
  if (s->run == scan_run) ((scan_src_t *)s)->progress = progress;
}

ex_source_t *ex_scan_source_new(ice_scan_t *scan, ex_op_t *next, const bool *stop) {
  scan_src_t *sc = fl_calloc(1, sizeof *sc);
  sc->src.run = scan_run;
  sc->src.destroy = scan_destroy;
  sc->src.next = next;
  sc->src.stop = stop;
  sc->scan = scan;
  return &sc->src;
}
