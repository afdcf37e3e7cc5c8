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
 * Parallel reading: split() forks one reader per lane (ice_scan_fork:
 * same plan, own open file and statistics) and offers each row group of
 * each planned task (a data file with its deletes) as a morsel, as the
 * file's split_offsets list them (a file without them is one morsel; the
 * last morsel of a file reads to its end, so a short list loses nothing);
 * run_morsel reads morsel m through the lane's fork. The scan's pushed-down limit is a per-reader
 * bound then; the LIMIT operator above still cuts the result.
 *
 * States: READING (tasks left), DONE.
 */
#include "base/alloc.h"
#include "exec/op_basic.h"

typedef struct scan_src {
  ex_source_t src;
  ice_scan_t *scan;
  ex_progress_t *progress; /* NULL: none */
  ice_scan_t **forks; /* per lane, after split */
  uint32_t nforks;
  struct morsel {
    uint32_t task, rg_begin, rg_end; /* rg_end 0: to the file's end */
  } * morsels;
  uint32_t nmorsels;
  ice_scan_stats_t total;
} scan_src_t;

static int pump(ex_source_t *s, ice_scan_t *scan, ex_op_t *next, fl_err_t *err) {
  for (;;) {
    if (ex_source_stopped(s)) break;
    ty_batch_t *b;
    int rc = ice_scan_next(scan, &b, err);
    if (rc) return rc;
    if (!b) break;
    if (!ty_batch_live(b)) continue;
    scan_src_t *sc = (scan_src_t *)s;
    if (sc->progress) ex_progress_add(&sc->progress->rows, ty_batch_live(b));
    if ((rc = ex_op_push(next, b, err))) return rc;
  }
  return FL_OK;
}

static int scan_run(ex_source_t *s, fl_err_t *err) {
  scan_src_t *sc = (scan_src_t *)s;
  int rc = pump(s, sc->scan, s->next, err);
  if (rc) return rc;
  return ex_op_finish(s->next, err);
}

static int scan_split(ex_source_t *s, uint32_t nlanes, uint32_t *nmorsels, fl_err_t *err) {
  scan_src_t *sc = (scan_src_t *)s;
  uint32_t ntasks;
  ice_scan_tasks(sc->scan, &ntasks);
  if (!sc->forks) {
    sc->forks = fl_calloc(nlanes, sizeof *sc->forks);
    sc->nforks = nlanes;
    for (uint32_t i = 0; i < nlanes; i++) {
      int rc = ice_scan_fork(sc->scan, &sc->forks[i], err);
      if (rc) return rc;
    }
  }
  if (!sc->morsels) {
    const ice_scan_task_t *t = ice_scan_tasks(sc->scan, &ntasks);
    uint32_t n = 0;
    for (uint32_t i = 0; i < ntasks; i++) {
      uint32_t g = t[i].data->file.nsplit_offsets;
      n += g > 1 ? g : 1;
    }
    sc->morsels = fl_calloc(n ? n : 1, sizeof *sc->morsels);
    for (uint32_t i = 0; i < ntasks; i++) {
      uint32_t g = t[i].data->file.nsplit_offsets;
      if (g <= 1) {
        sc->morsels[sc->nmorsels++] = (struct morsel){i, 0, 0};
        continue;
      }
      for (uint32_t k = 0; k < g; k++)
        sc->morsels[sc->nmorsels++] = (struct morsel){i, k, k + 1 < g ? k + 1 : 0};
    }
  }
  *nmorsels = sc->nmorsels;
  return FL_OK;
}

static int scan_run_morsel(ex_source_t *s, uint32_t lane, uint32_t morsel, ex_op_t *next,
                           fl_err_t *err) {
  scan_src_t *sc = (scan_src_t *)s;
  if (lane >= sc->nforks)
    return fl_err_set(err, FL_EINTERNAL, "scan: lane %u of %u", lane, sc->nforks);
  if (morsel >= sc->nmorsels)
    return fl_err_set(err, FL_EINTERNAL, "scan: morsel %u of %u", morsel, sc->nmorsels);
  ice_scan_t *f = sc->forks[lane];
  const struct morsel *m = &sc->morsels[morsel];
  int rc = ice_scan_read_range(f, m->task, m->task + 1, m->rg_begin, m->rg_end, err);
  if (rc) return rc;
  return pump(s, f, next, err);
}

static void scan_destroy(ex_source_t *s) {
  scan_src_t *sc = (scan_src_t *)s;
  for (uint32_t i = 0; i < sc->nforks; i++) ice_scan_free(sc->forks[i]);
  fl_free(sc->forks);
  fl_free(sc->morsels);
  ice_scan_free(sc->scan);
  fl_free(sc);
}

const ice_scan_stats_t *ex_scan_source_stats(const ex_source_t *s) {
  if (s->run != scan_run) return NULL;
  scan_src_t *sc = (scan_src_t *)s;
  sc->total = *ice_scan_stats(sc->scan);
  ice_scan_stats_t *t = &sc->total;
  for (uint32_t i = 0; i < sc->nforks; i++) {
    const ice_scan_stats_t *f = ice_scan_stats(sc->forks[i]);
    t->row_groups_read += f->row_groups_read;
    t->row_groups_skipped += f->row_groups_skipped;
    t->pages_skipped += f->pages_skipped;
    t->rows_read += f->rows_read;
    t->rows_deleted += f->rows_deleted;
    t->rows_filtered += f->rows_filtered;
    t->rows_out += f->rows_out;
    t->bytes_read += f->bytes_read;
  }
  return t;
}

void ex_scan_source_set_progress(ex_source_t *s, ex_progress_t *progress) {
  if (s->run == scan_run) ((scan_src_t *)s)->progress = progress;
}

ex_source_t *ex_scan_source_new(ice_scan_t *scan, ex_op_t *next, const bool *stop) {
  scan_src_t *sc = fl_calloc(1, sizeof *sc);
  sc->src.run = scan_run;
  sc->src.destroy = scan_destroy;
  sc->src.split = scan_split;
  sc->src.run_morsel = scan_run_morsel;
  sc->src.next = next;
  sc->src.stop = stop;
  sc->scan = scan;
  return &sc->src;
}
