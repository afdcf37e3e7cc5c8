/*
 * op_exchange.c - gather, fanout and repartition: where the lanes of a
 * parallel pipeline meet and split (layer 8, exec). See op_exchange.h.
 *
 * Gather. A mutex serializes the producers, so the operator behind it is
 * driven by one thread at a time as the operator interface requires; the
 * finish count is atomic so the last producer, whichever it is, passes
 * finish() on. States: OPEN (producers left), FINISHED.
 *
 * Fanout. Stateless: batches from its one producer go to lane 0 in
 * arrival order (so a sort's output keeps its order), finish() goes to
 * every lane.
 *
 * Repartition. Each lane groups the live rows of a batch by target with
 * ex_partition.h (the group hash table's hash of the key columns, so equal
 * keys meet whatever their lane; the part taken from bits that neither
 * place a key in the target aggregation's table nor pick its spill
 * partition) and pushes each part as a selection over the batch's own
 * columns (no copy) to its target under the target's mutex. When the last
 * lane has finished, the P targets are
 * finished as P pool tasks (each target's output goes its own way), then
 * the extra lanes. States: OPEN, DRAINING (finishing targets), FINISHED.
 */
#include "exec/op_exchange.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "base/alloc.h"
#include "exec/ex_partition.h"

/* ---- gather ---- */

typedef struct gather {
  ex_op_t op;
  pthread_mutex_t lock;
  uint32_t ninputs;
  _Atomic uint32_t finished;
} gather_t;

static int gather_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  gather_t *g = (gather_t *)op;
  pthread_mutex_lock(&g->lock);
  int rc = ex_op_emit(op, b, err);
  pthread_mutex_unlock(&g->lock);
  return rc;
}

static int gather_watermark(ex_op_t *op, int64_t ts, fl_err_t *err) {
  gather_t *g = (gather_t *)op;
  pthread_mutex_lock(&g->lock);
  int rc = ex_op_forward_watermark(op, ts, err);
  pthread_mutex_unlock(&g->lock);
  return rc;
}

static int gather_finish(ex_op_t *op, fl_err_t *err) {
  gather_t *g = (gather_t *)op;
  uint32_t n = atomic_fetch_add(&g->finished, 1) + 1;
  if (n > g->ninputs) return fl_err_set(err, FL_EINTERNAL, "gather: finished %u times", n);
  if (n < g->ninputs) return FL_OK;
  /* Every producer is done: no lock needed, but take it so the consumer
   * sees their pushes ordered before the finish. */
  pthread_mutex_lock(&g->lock);
  int rc = ex_op_forward_finish(op, err);
  pthread_mutex_unlock(&g->lock);
  return rc;
}

static int no_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) {
  return fl_err_set(err, FL_EUNSUPPORTED, "%s: parallel pipelines do not checkpoint", op->vt->name);
}
static int no_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  return fl_err_set(err, FL_EUNSUPPORTED, "%s: parallel pipelines do not checkpoint", op->vt->name);
}

static void gather_destroy(ex_op_t *op) {
  gather_t *g = (gather_t *)op;
  pthread_mutex_destroy(&g->lock);
  fl_free(g);
}

static const ex_op_vt_t gather_vt = {
    .name = "gather",
    .push = gather_push,
    .watermark = gather_watermark,
    .finish = gather_finish,
    .checkpoint = no_checkpoint,
    .restore = no_restore,
    .destroy = gather_destroy,
};

ex_op_t *ex_gather_new(const ty_schema_t *schema, uint32_t ninputs, ex_op_t *next) {
  gather_t *g = fl_calloc(1, sizeof *g);
  g->op.vt = &gather_vt;
  g->op.next = next;
  g->op.out_schema = schema;
  g->ninputs = ninputs;
  pthread_mutex_init(&g->lock, NULL);
  return &g->op;
}

/* ---- fanout ---- */

typedef struct fanout {
  ex_op_t op;
  ex_op_t **lanes;
  uint32_t n;
  bool finished;
} fanout_t;

static int fanout_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  fanout_t *f = (fanout_t *)op;
  return ex_op_push(f->lanes[0], b, err);
}

static int fanout_watermark(ex_op_t *op, int64_t ts, fl_err_t *err) {
  fanout_t *f = (fanout_t *)op;
  for (uint32_t i = 0; i < f->n; i++) {
    int rc = ex_op_watermark(f->lanes[i], ts, err);
    if (rc) return rc;
  }
  return FL_OK;
}

static int fanout_finish(ex_op_t *op, fl_err_t *err) {
  fanout_t *f = (fanout_t *)op;
  if (f->finished) return fl_err_set(err, FL_EINTERNAL, "fanout: finished twice");
  f->finished = true;
  for (uint32_t i = 0; i < f->n; i++) {
    int rc = ex_op_finish(f->lanes[i], err);
    if (rc) return rc;
  }
  return FL_OK;
}

static void fanout_destroy(ex_op_t *op) {
  fanout_t *f = (fanout_t *)op;
  fl_free(f->lanes);
  fl_free(f);
}

static const ex_op_vt_t fanout_vt = {
    .name = "fanout",
    .push = fanout_push,
    .watermark = fanout_watermark,
    .finish = fanout_finish,
    .checkpoint = no_checkpoint,
    .restore = no_restore,
    .destroy = fanout_destroy,
};

ex_op_t *ex_fanout_new(const ty_schema_t *schema, ex_op_t *const *lanes, uint32_t n) {
  fanout_t *f = fl_calloc(1, sizeof *f);
  f->op.vt = &fanout_vt;
  f->op.out_schema = schema;
  f->lanes = fl_malloc(n * sizeof *f->lanes);
  memcpy(f->lanes, lanes, n * sizeof *f->lanes);
  f->op.next = lanes[0];
  f->n = n;
  return &f->op;
}

/* ---- repartition ---- */

typedef struct rp_lane {
  ex_op_t op;
  ex_repartition_t *r;
  ex_partitioner_t *parts; /* the rows of a batch by target */
  uint8_t *sent;
  ty_batch_t view;
  bool finished;
} rp_lane_t;

typedef struct rp_target {
  pthread_mutex_t lock;
  ex_op_t *op;
  int rc;
  fl_err_t err;
} rp_target_t;

struct ex_repartition {
  const ty_schema_t *schema;
  uint32_t *key_cols, nkeys;
  const ty_type_t **ktypes;
  rp_target_t *targets;
  uint32_t ntargets;
  ex_op_t **also;
  uint32_t nalso;
  rp_lane_t *lanes;
  uint32_t nlanes;
  _Atomic uint32_t finished;
  fl_pool_t *pool;
};

static int rp_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  rp_lane_t *l = (rp_lane_t *)op;
  ex_repartition_t *r = l->r;
  uint32_t n = ty_batch_live(b);
  if (!n) return FL_OK;
  if (r->ntargets == 1 || r->nkeys == 0) {
    rp_target_t *t = &r->targets[0];
    pthread_mutex_lock(&t->lock);
    int rc = ex_op_push(t->op, b, err);
    pthread_mutex_unlock(&t->lock);
    return rc;
  }
  ex_partitioner_split(l->parts, b);
  uint32_t P = r->ntargets;
  /* Try the targets whose lock is free first, so lanes rarely wait. */
  uint32_t done = 0, start = (uint32_t)(l - r->lanes) % P;
  uint8_t *sent = l->sent;
  memset(sent, 0, P);
  for (bool blocking = false; done < P; blocking = true) {
    for (uint32_t i = 0; i < P; i++) {
      uint32_t p = (start + i) % P;
      if (sent[p]) continue;
      uint32_t cnt;
      uint32_t *rows = ex_partitioner_part(l->parts, p, &cnt);
      if (!cnt) {
        sent[p] = true;
        done++;
        continue;
      }
      rp_target_t *t = &r->targets[p];
      if (blocking)
        pthread_mutex_lock(&t->lock);
      else if (pthread_mutex_trylock(&t->lock))
        continue;
      l->view = (ty_batch_t){.schema = b->schema,
                             .ncols = b->ncols,
                             .cols = b->cols,
                             .nrows = b->nrows,
                             .sel = rows,
                             .nsel = cnt};
      int rc = ex_op_push(t->op, &l->view, err);
      pthread_mutex_unlock(&t->lock);
      if (rc) return rc;
      sent[p] = true;
      done++;
    }
  }
  return FL_OK;
}

static void finish_target(void *arg, uint32_t worker) {
  (void)worker;
  rp_target_t *t = arg;
  fl_err_clear(&t->err);
  t->rc = ex_op_finish(t->op, &t->err);
}

static int rp_finish(ex_op_t *op, fl_err_t *err) {
  rp_lane_t *l = (rp_lane_t *)op;
  ex_repartition_t *r = l->r;
  if (l->finished) return fl_err_set(err, FL_EINTERNAL, "repartition: lane finished twice");
  l->finished = true;
  if (atomic_fetch_add(&r->finished, 1) + 1 < r->nlanes) return FL_OK;
  /* The last lane: every target has all its rows. */
  if (r->pool && r->ntargets > 1) {
    fl_taskgroup_t g;
    fl_taskgroup_init(&g, r->pool);
    for (uint32_t p = 0; p < r->ntargets; p++) fl_pool_submit(&g, finish_target, &r->targets[p]);
    fl_taskgroup_wait(&g);
  } else {
    for (uint32_t p = 0; p < r->ntargets; p++) finish_target(&r->targets[p], 0);
  }
  for (uint32_t p = 0; p < r->ntargets; p++)
    if (r->targets[p].rc) {
      *err = r->targets[p].err;
      return r->targets[p].rc;
    }
  for (uint32_t i = 0; i < r->nalso; i++) {
    int rc = ex_op_finish(r->also[i], err);
    if (rc) return rc;
  }
  return FL_OK;
}

static int rp_watermark(ex_op_t *op, int64_t ts, fl_err_t *err) { return FL_OK; }
static void rp_destroy(ex_op_t *op) {}

static const ex_op_vt_t rp_vt = {
    .name = "repartition",
    .push = rp_push,
    .watermark = rp_watermark,
    .finish = rp_finish,
    .checkpoint = no_checkpoint,
    .restore = no_restore,
    .destroy = rp_destroy,
};

ex_repartition_t *ex_repartition_new(const ty_schema_t *schema, const uint32_t *key_cols,
                                     uint32_t nkeys, ex_op_t *const *targets, uint32_t ntargets,
                                     ex_op_t *const *also, uint32_t nalso, uint32_t nlanes,
                                     fl_pool_t *pool) {
  ex_repartition_t *r = fl_calloc(1, sizeof *r);
  r->schema = schema;
  r->nkeys = nkeys;
  r->key_cols = fl_malloc((nkeys ? nkeys : 1) * sizeof *r->key_cols);
  if (nkeys) memcpy(r->key_cols, key_cols, nkeys * sizeof *key_cols);
  r->ktypes = fl_calloc(nkeys ? nkeys : 1, sizeof *r->ktypes);
  for (uint32_t c = 0; c < nkeys; c++) r->ktypes[c] = schema->root.fields[key_cols[c]].type;
  r->ntargets = ntargets;
  r->targets = fl_calloc(ntargets, sizeof *r->targets);
  for (uint32_t p = 0; p < ntargets; p++) {
    pthread_mutex_init(&r->targets[p].lock, NULL);
    r->targets[p].op = targets[p];
  }
  r->nalso = nalso;
  r->also = fl_malloc((nalso ? nalso : 1) * sizeof *r->also);
  if (nalso) memcpy(r->also, also, nalso * sizeof *also);
  r->nlanes = nlanes;
  r->pool = pool;
  r->lanes = fl_calloc(nlanes, sizeof *r->lanes);
  uint32_t P = ntargets < 2 ? 2 : ntargets;
  for (uint32_t i = 0; i < nlanes; i++) {
    rp_lane_t *l = &r->lanes[i];
    l->op.vt = &rp_vt;
    l->op.out_schema = schema;
    l->r = r;
    l->parts = ex_partitioner_new(r->ktypes, key_cols, nkeys, P);
    l->sent = fl_malloc(P);
  }
  return r;
}

ex_op_t *ex_repartition_lane(ex_repartition_t *r, uint32_t lane) { return &r->lanes[lane].op; }

void ex_repartition_free(ex_repartition_t *r) {
  if (!r) return;
  for (uint32_t i = 0; i < r->nlanes; i++) {
    rp_lane_t *l = &r->lanes[i];
    ex_partitioner_free(l->parts);
    fl_free(l->sent);
  }
  for (uint32_t p = 0; p < r->ntargets; p++) pthread_mutex_destroy(&r->targets[p].lock);
  fl_free(r->lanes);
  fl_free(r->targets);
  fl_free(r->also);
  fl_free(r->key_cols);
  fl_free(r->ktypes);
  fl_free(r);
}
