/*
 * ex_plan.c - the physical planner: logical plan to operator pipeline, and
 * running it (layer 8, exec). See ex_plan.h.
 *
 * Building goes top down: a node's operator is made with its consumer
 * already built, then its input is built with the node's operator as the
 * consumer. Every node's output schema is made from its logical columns
 * (storage types of their SQL types), so the operators agree on the
 * vectors they exchange.
 *
 * Parallel pipelines. A query runs with N lanes (the threads setting).
 * Building passes down not one consumer but one per lane, L[0..N): a
 * streaming operator (filter, projection, UNION ALL, a join's probe side)
 * is built once per lane, each copy with its own expression context, so
 * a source read by N workers runs N copies of its pipeline side by side.
 * Pipeline breakers take the lanes in as follows:
 *   aggregation  a PARTIAL hash aggregation per lane, repartitioned by
 *                key hash (op_exchange.h) into N FINAL aggregations that
 *                finish in parallel, final p emitting into lane p; a
 *                global aggregate has one final.
 *   join         the build side behind a gather (one shared table); the
 *                probe side is the join plus N - 1 probe lanes over it.
 *   top-N        a top-N per lane, gathered into a final top-N.
 *   sort, window, LIMIT, nested loop join: one shared operator behind a
 *                gather; its output goes to lane 0 through a fanout (so
 *                ORDER BY output keeps its order).
 * With N = 1 every exchange is left out and the operators are exactly
 * those of a single-threaded plan. ex_query_run runs the sources in the
 * order building registered them (a join's build side before its probe
 * side, UNION ALL inputs in order); each source that splits (a table
 * scan: one morsel per data file) is read by N workers that claim morsels
 * from a shared counter, each finishing its lane at the end.
 */
#include "exec/ex_plan.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "exec/ex_agg.h"
#include "exec/op_basic.h"
#include "exec/op_exchange.h"
#include "exec/op_hash_agg.h"
#include "exec/op_hash_join.h"
#include "exec/op_join_filter.h"
#include "exec/op_nested_loop_join.h"
#include "exec/op_sort.h"
#include "exec/op_stream_agg.h"
#include "exec/op_unnest.h"
#include "exec/op_window.h"
#include "exec/op_window_agg.h"
#include "exec/op_window_tvf.h"

/* A join key filter waiting for the probe-side node it goes above. */
typedef struct pending_filter {
  const sql_plan_t *node;
  const ex_op_t *join;
  uint32_t *cols, ncols;
  /* Set while the join's probe input is being built: a plan node shared
   * with another part of the plan gets the filter only here. */
  bool armed;
} pending_filter_t;

struct ex_query {
  fl_arena_t *a;
  pending_filter_t *jfilters;
  uint32_t njfilters;
  ex_ctx_t ectx;
  ex_mem_t mem;
  ex_opctx_t qctx;
  bool stop; /* set by LIMIT on any thread: __atomic accesses */
  ex_op_t **ops;
  uint32_t nops, ops_cap;
  ex_source_t **srcs;
  ex_op_t ***src_lanes; /* per source: its consumers, one per lane */
  uint32_t nsrcs, srcs_cap;
  /* Lanes: lane 0 uses ectx; lane w > 0 its own context and arena. */
  uint32_t nlanes;
  ex_ctx_t *lctx;
  fl_arena_t **larena;
  fl_pool_t *pool;
  ex_repartition_t **reparts;
  uint32_t nreparts;
  uint64_t run_us;
  /* EXPLAIN ANALYZE: a meter per plan node and lane. */
  bool analyze;
  struct node_stat **nodes;
  uint32_t nnodes, nodes_cap, depth;
  struct node_stat **src_stat; /* per source, with analyze */
  struct meter **pending;      /* second-phase meters awaiting their node */
  uint32_t npending;
  struct node_stat *phase2_dummy; /* what pending meters point at meanwhile */
  ex_sink_t *sink;
  ex_op_t *out; /* opts.sink, or &sink->op */
  ex_stream_input_t *inputs; /* streaming inputs (connector table scans) */
  uint32_t ninputs;
  const sql_plan_t *plan;
  ex_type_t *types;
  ex_progress_t *progress;
  /* The joins, for EXPLAIN ANALYZE: hash joins have nkeys > 0. */
  struct {
    ex_op_t *op;
    bool hash;
    ex_join_type_t type;
  } * joins;
  uint32_t njoins, joins_cap;
  ex_op_t **waggs; /* window aggregations */
  uint32_t nwaggs;
  int64_t lateness_us;
  ex_window_late_fn late_fn;
  void *late_arg;
  ex_keyed_exchange_fn keyed_exchange;
  void *keyed_exchange_arg;
};

/* ---- meters (EXPLAIN ANALYZE) ----
 *
 * A meter sits in front of an operator and counts the rows pushed into
 * it and the time spent in its push() and finish() calls. Calls nest (an
 * operator's push runs its consumers'), so each thread keeps the meter
 * it is inside: a meter's own time is its time minus that of the meters
 * called from within it. A node's numbers are its meters' summed over
 * lanes. A source's time is its lane tasks' minus their first meters'. */

typedef struct node_stat {
  const char *name;
  uint32_t depth;
  _Atomic uint64_t rows, ns, child_ns;
} node_stat_t;

typedef struct meter {
  ex_op_t op;
  ex_op_t *inner;
  node_stat_t *st;
  bool time_only; /* a second phase of the node: its rows are not input */
} meter_t;

static _Thread_local node_stat_t *t_current;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Runs a call as part of st's time. */
#define METERED(st, call)                              \
  do {                                                 \
    node_stat_t *prev_ = t_current;                    \
    t_current = (st);                                  \
    uint64_t t0_ = now_ns();                           \
    rc = (call);                                       \
    uint64_t d_ = now_ns() - t0_;                      \
    atomic_fetch_add(&(st)->ns, d_);                   \
    if (prev_) atomic_fetch_add(&prev_->child_ns, d_); \
    t_current = prev_;                                 \
  } while (0)

static int meter_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  meter_t *m = (meter_t *)op;
  int rc;
  if (!m->time_only) atomic_fetch_add(&m->st->rows, ty_batch_live(b));
  METERED(m->st, ex_op_push(m->inner, b, err));
  return rc;
}
static int meter_finish(ex_op_t *op, fl_err_t *err) {
  meter_t *m = (meter_t *)op;
  int rc;
  METERED(m->st, ex_op_finish(m->inner, err));
  return rc;
}
static int meter_watermark(ex_op_t *op, int64_t ts, fl_err_t *err) {
  return ex_op_watermark(((meter_t *)op)->inner, ts, err);
}
static int meter_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) {
  return ex_op_checkpoint(((meter_t *)op)->inner, w, err);
}
static int meter_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  return ex_op_restore(((meter_t *)op)->inner, r, err);
}
static void meter_destroy(ex_op_t *op) { fl_free(op); }

static const ex_op_vt_t meter_vt = {
    .name = "meter",
    .push = meter_push,
    .watermark = meter_watermark,
    .finish = meter_finish,
    .checkpoint = meter_checkpoint,
    .restore = meter_restore,
    .destroy = meter_destroy,
};

static void keep_op(ex_query_t *q, ex_op_t *op);

/* The statistics slot of plan node p (a new one per call). */
static node_stat_t *node_of(ex_query_t *q, const char *name) {
  if (!q->analyze) return NULL;
  if (q->nnodes == q->nodes_cap) {
    q->nodes_cap = q->nodes_cap ? q->nodes_cap * 2 : 16;
    q->nodes = fl_realloc(q->nodes, q->nodes_cap * sizeof *q->nodes);
  }
  /* Meters point at the slot: it never moves. */
  node_stat_t *st = fl_arena_zalloc(q->a, sizeof *st);
  st->name = name;
  st->depth = q->depth;
  q->nodes[q->nnodes++] = st;
  return st;
}

/* op behind a meter counting into st (op itself without EXPLAIN ANALYZE). */
static ex_op_t *metered(ex_query_t *q, node_stat_t *st, ex_op_t *op) {
  if (!st) return op;
  meter_t *m = fl_calloc(1, sizeof *m);
  m->op.vt = &meter_vt;
  m->op.out_schema = op->out_schema;
  m->op.next = op;
  m->inner = op;
  m->st = st;
  keep_op(q, &m->op);
  return &m->op;
}

/* A meter of a node's second phase (final aggregations, the final
 * top-N): built before the node's own stat exists, so it is patched in
 * when build_node makes the stat. */
static ex_op_t *metered_phase2(ex_query_t *q, ex_op_t *op) {
  if (!q->analyze) return op;
  if (!q->phase2_dummy) q->phase2_dummy = fl_arena_zalloc(q->a, sizeof *q->phase2_dummy);
  ex_op_t *m = metered(q, q->phase2_dummy, op);
  ((meter_t *)m)->time_only = true;
  q->pending = fl_realloc(q->pending, (q->npending + 1) * sizeof *q->pending);
  q->pending[q->npending++] = (meter_t *)m;
  return m;
}

static void keep_op(ex_query_t *q, ex_op_t *op) {
  if (q->nops == q->ops_cap) {
    q->ops_cap = q->ops_cap ? q->ops_cap * 2 : 8;
    q->ops = fl_realloc(q->ops, q->ops_cap * sizeof *q->ops);
  }
  q->ops[q->nops++] = op;
}

static void keep_src(ex_query_t *q, ex_source_t *s, ex_op_t **lanes) {
  if (q->nsrcs == q->srcs_cap) {
    q->srcs_cap = q->srcs_cap ? q->srcs_cap * 2 : 4;
    q->srcs = fl_realloc(q->srcs, q->srcs_cap * sizeof *q->srcs);
    q->src_lanes = fl_realloc(q->src_lanes, q->srcs_cap * sizeof *q->src_lanes);
    q->src_stat = fl_realloc(q->src_stat, q->srcs_cap * sizeof *q->src_stat);
  }
  q->src_lanes[q->nsrcs] = lanes;
  q->src_stat[q->nsrcs] = node_of(q, s->split ? "SCAN" : "SOURCE");
  q->srcs[q->nsrcs++] = s;
}

/* Lanes that all lead into one operator (a gather or a shared one). */
static ex_op_t **same_lanes(ex_query_t *q, ex_op_t *op) {
  ex_op_t **L = fl_arena_alloc(q->a, q->nlanes * sizeof *L);
  for (uint32_t w = 0; w < q->nlanes; w++) L[w] = op;
  return L;
}

static ex_op_t **new_lanes(ex_query_t *q) {
  return fl_arena_zalloc(q->a, q->nlanes * sizeof(ex_op_t *));
}

/* The lanes feeding shared operator op: op itself, or a gather. */
static ex_op_t **gathered(ex_query_t *q, const ty_schema_t *schema, ex_op_t *op) {
  if (q->nlanes == 1) return same_lanes(q, op);
  ex_op_t *g = ex_gather_new(schema, q->nlanes, op);
  keep_op(q, g);
  return same_lanes(q, g);
}

/* The one consumer of a shared operator whose output feeds lanes L. */
static ex_op_t *fanned(ex_query_t *q, const ty_schema_t *schema, ex_op_t **L) {
  if (q->nlanes == 1) return L[0];
  ex_op_t *f = ex_fanout_new(schema, L, q->nlanes);
  keep_op(q, f);
  return f;
}

static const ty_schema_t *schema_of(ex_query_t *q, const sql_plan_t *p) {
  ty_field_t *f = fl_arena_zalloc(q->a, (p->ncols ? p->ncols : 1) * sizeof *f);
  for (uint32_t i = 0; i < p->ncols; i++) {
    ex_type_t t = ex_type_of(&p->cols[i].type, q->a);
    f[i].id = (int32_t)i + 1;
    f[i].name = p->cols[i].name;
    f[i].type = ex_type_storage(&t, q->a);
  }
  return ty_schema_new(q->a, 0, f, p->ncols);
}

static int build(ex_query_t *q, const sql_plan_t *p, ex_op_t **L, fl_err_t *err);

/* Whether vectors of storage type a can stand where b is expected: the
 * same layout, whatever the nested fields' ids and names, except that
 * fixed(L) may stand where varbinary is expected (an adapt operator
 * copies those columns, op_adapt.c). */
static bool adaptable_layout(const ty_type_t *a, const ty_type_t *b) {
  if (a->kind == TY_FIXED && b->kind == TY_BINARY) return true;
  if (a->kind != b->kind || a->nfields != b->nfields) return false;
  if (a->kind == TY_DECIMAL) return a->precision == b->precision && a->scale == b->scale;
  if (a->kind == TY_FIXED) return a->length == b->length;
  for (uint32_t i = 0; i < a->nfields; i++)
    if (!adaptable_layout(a->fields[i].type, b->fields[i].type)) return false;
  return true;
}

/* Lanes behind adapt operators from the source schema in to the plan's
 * out, or L itself when no column needs one. */
static ex_op_t **adapted_lanes(ex_query_t *q, const ty_schema_t *in, const ty_schema_t *out,
                               ex_op_t **L) {
  bool any = false;
  for (uint32_t i = 0; i < in->root.nfields && !any; i++)
    any = ex_type_has_fixed(in->root.fields[i].type);
  if (!any) return L;
  ex_op_t **A = new_lanes(q);
  for (uint32_t l = 0; l < q->nlanes; l++) {
    A[l] = ex_adapt_new(in, out, L[l]);
    keep_op(q, A[l]);
  }
  return A;
}

static int build_scan(ex_query_t *q, const sql_plan_t *p, ex_op_t **L, fl_err_t *err) {
  if (p->u.scan.stream) {
    if (q->nlanes != 1)
      return fl_err_set(err, FL_EUNSUPPORTED, "a streaming query runs on one lane");
    q->inputs = fl_realloc(q->inputs, (q->ninputs + 1) * sizeof *q->inputs);
    q->inputs[q->ninputs++] = (ex_stream_input_t){.table = p->u.scan.stream,
                                                  .columns = p->u.scan.columns,
                                                  .ncols = p->ncols,
                                                  .schema = schema_of(q, p),
                                                  .op = L[0]};
    return FL_OK;
  }
  if (p->u.scan.meta) {
    ex_source_t *src;
    int rc = ex_meta_source_new(q->a, p, schema_of(q, p), L[0], &q->stop, &src, err);
    if (rc) return rc;
    keep_src(q, src, L);
    return FL_OK;
  }
  if (p->u.scan.files) {
    ex_source_t *fs;
    int rc = ex_file_scan_source_new(p->u.scan.files, p->u.scan.columns, p->ncols, schema_of(q, p),
                                     p->u.scan.filter, p->u.scan.limit, q->progress, L[0], &q->stop,
                                     &fs, err);
    if (rc) return rc;
    keep_src(q, fs, L);
    return FL_OK;
  }
  ice_scan_opts_t o = {.snapshot_id = p->u.scan.snapshot_id,
                       .ref = NULL,
                       .as_of_ms = -1,
                       .filter = p->u.scan.filter,
                       .columns = p->u.scan.columns,
                       .ncolumns = p->ncols,
                       .case_sensitive = true,
                       .limit = p->u.scan.limit,
                       /* The Filter above the scan keeps the whole predicate. */
                       .prune_only = true};
  if (o.snapshot_id < 0 && p->u.scan.ref) o.ref = p->u.scan.ref;
  ice_scan_t *s;
  int rc = ice_scan_plan(p->u.scan.table, &o, &s, err);
  if (rc) return fl_err_prefix(err, "scanning %s: ", p->u.scan.ident);
  /* The batches must have the column types the plan promised. */
  const ty_schema_t *ss = ice_scan_schema(s);
  const ty_schema_t *want = schema_of(q, p);
  if (ss->root.nfields != p->ncols) {
    ice_scan_free(s);
    return fl_err_set(err, FL_EINTERNAL, "scan of %s yields %u columns, expected %u",
                      p->u.scan.ident, ss->root.nfields, p->ncols);
  }
  for (uint32_t i = 0; i < p->ncols; i++)
    if (!adaptable_layout(ss->root.fields[i].type, want->root.fields[i].type)) {
      ice_scan_free(s);
      return fl_err_set(err, FL_EUNSUPPORTED, "column %s of %s has a type SQL cannot read yet",
                        p->cols[i].name, p->u.scan.ident);
    }
  L = adapted_lanes(q, ss, want, L);
  ex_source_t *src = ex_scan_source_new(s, L[0], &q->stop);
  ex_scan_source_set_progress(src, q->progress);
  keep_src(q, src, L);
  return FL_OK;
}

static uint32_t *iota(fl_arena_t *a, uint32_t n) {
  uint32_t *v = fl_arena_zalloc(a, (n ? n : 1) * sizeof *v);
  for (uint32_t i = 0; i < n; i++) v[i] = i;
  return v;
}

/* Binds the aggregates of node p over input schema in (each operator
 * gets its own: bound aggregates count their heap). */
static int bind_aggs(ex_query_t *q, const sql_plan_t *p, const ty_schema_t *in, ex_agg_spec_t **out,
                     fl_err_t *err) {
  ex_agg_spec_t *specs =
      fl_arena_zalloc(q->a, (p->u.agg.naggs ? p->u.agg.naggs : 1) * sizeof *specs);
  for (uint32_t j = 0; j < p->u.agg.naggs; j++) {
    const sql_agg_call_t *g = &p->u.agg.aggs[j];
    const ty_type_t *arg = g->arg_col >= 0 ? in->root.fields[g->arg_col].type : NULL;
    int rc =
        ex_agg_bind(q->a, g->name, arg, g->distinct, &g->param, g->nparams, &specs[j].agg, err);
    if (rc) return rc;
    specs[j].arg_col = g->arg_col;
    specs[j].filter_col = g->filter_col;
    specs[j].name = p->cols[p->ncols - p->u.agg.naggs + j].name;
  }
  *out = specs;
  return FL_OK;
}

/*
 * Aggregation. One lane: one COMPLETE operator. N lanes: a PARTIAL
 * operator per lane, repartitioned by the table keys into P FINAL ones
 * (P = N, or 1 without keys), final p feeding lane p; lanes P.. are
 * finished by the repartition after the finals. out gets the input lanes.
 */
static int build_agg(ex_query_t *q, const sql_plan_t *p, ex_op_t **L, ex_op_t ***out,
                     ex_op_t **shared, fl_err_t *err) {
  const ty_schema_t *in = schema_of(q, p->in);
  ex_agg_spec_t *specs;
  int rc = bind_aggs(q, p, in, &specs, err);
  if (rc) return rc;
  ex_hash_agg_opts_t o = {.in_schema = in,
                          .key_cols = p->u.agg.keys,
                          .nkeys = p->u.agg.nkeys,
                          .grouping_sets = p->u.agg.sets,
                          .nsets = p->u.agg.nsets,
                          .aggs = specs,
                          .naggs = p->u.agg.naggs};
  if (p->u.agg.streaming) {
    /* Sorted input arrives in order on one lane (a sort or window feeds
     * lane 0 only): one shared operator, gathered by the caller. */
    *out = NULL;
    return ex_stream_agg_new(&q->qctx, q->a, &o, fanned(q, schema_of(q, p), L), shared, err);
  }
  ex_op_t **in_lanes = new_lanes(q);
  uint32_t N = q->nlanes;
  if (N == 1) {
    if ((rc = ex_hash_agg_new(&q->qctx, q->a, &o, L[0], &in_lanes[0], err))) return rc;
    keep_op(q, in_lanes[0]);
    *out = in_lanes;
    return FL_OK;
  }
  /* Partials first: their output schema is the finals' input. */
  o.phase = EX_AGG_PARTIAL;
  for (uint32_t w = 0; w < N; w++) {
    if (w && (rc = bind_aggs(q, p, in, &specs, err))) return rc;
    o.aggs = specs;
    if ((rc = ex_hash_agg_new(&q->qctx, q->a, &o, NULL, &in_lanes[w], err))) return rc;
    keep_op(q, in_lanes[w]);
  }
  const ty_schema_t *partial = in_lanes[0]->out_schema;
  uint32_t ntk = p->u.agg.nkeys + (p->u.agg.nsets ? 1 : 0);
  uint32_t P = ntk ? N : 1;
  ex_op_t **finals = new_lanes(q);
  ex_hash_agg_opts_t f = o;
  f.phase = EX_AGG_FINAL;
  f.in_schema = partial;
  f.key_cols = iota(q->a, p->u.agg.nkeys);
  for (uint32_t i = 0; i < P; i++) {
    if ((rc = bind_aggs(q, p, in, &specs, err))) return rc;
    f.aggs = specs;
    if ((rc = ex_hash_agg_new(&q->qctx, q->a, &f, L[i], &finals[i], err))) return rc;
    keep_op(q, finals[i]);
  }
  /* The finals' time counts to the node (see build_node), not their rows. */
  for (uint32_t i = 0; i < P; i++) finals[i] = metered_phase2(q, finals[i]);
  ex_repartition_t *r =
      ex_repartition_new(partial, iota(q->a, ntk), ntk, finals, P, L + P, N - P, N, q->pool);
  q->reparts = fl_realloc(q->reparts, (q->nreparts + 1) * sizeof *q->reparts);
  q->reparts[q->nreparts++] = r;
  for (uint32_t w = 0; w < N; w++) in_lanes[w]->next = ex_repartition_lane(r, w);
  *out = in_lanes;
  return FL_OK;
}

_Static_assert((int)SQL_JT_INNER == (int)EX_JOIN_INNER && (int)SQL_JT_FULL == (int)EX_JOIN_FULL &&
                   (int)SQL_JT_SEMI == (int)EX_JOIN_SEMI &&
                   (int)SQL_JT_NULL_AWARE_ANTI == (int)EX_JOIN_NULL_AWARE_ANTI,
               "sql and exec join types in the same order");

/* The residual condition of a join: a compiled expression over the
 * candidate pairs (probe columns, then build columns). */
typedef struct residual {
  ex_ctx_t *ctx;
  ex_expr_t *x;
} residual_t;

static int residual_filter(void *arg, const ty_batch_t *pairs, uint32_t *sel, uint32_t *nsel,
                           fl_err_t *err) {
  residual_t *r = arg;
  *nsel = 0;
  if (!pairs->nrows) return FL_OK;
  ex_rows_t rows = {.nrows = pairs->nrows, .sel = NULL, .n = pairs->nrows};
  return ex_expr_select(r->ctx, r->x, pairs, &rows, sel, nsel, err);
}

/* A copy of e with column c renumbered to c < nl ? c + nr : c - nl (the
 * left input's columns after the right input's: a swapped join). */
static sql_bexpr_t *swap_cols(fl_arena_t *a, const sql_bexpr_t *e, uint32_t nl, uint32_t nr) {
  sql_bexpr_t *c = fl_arena_memdup(a, e, sizeof *e);
  if (e->kind == SQL_BX_COL) c->col = e->col < nl ? e->col + nr : e->col - nl;
  if (e->nargs) {
    c->args = fl_arena_alloc(a, e->nargs * sizeof *c->args);
    for (uint32_t i = 0; i < e->nargs; i++) c->args[i] = swap_cols(a, e->args[i], nl, nr);
  }
  return c;
}

/* The residual of a join compiled in lane context ctx, over the
 * probe-then-build columns; swapped when the left input is the build side. */
static int compile_residual(ex_query_t *q, ex_ctx_t *ctx, const sql_plan_t *p,
                            const ex_join_spec_t *spec, bool swap, residual_t **out,
                            fl_err_t *err) {
  const sql_plan_t *L = p->inputs[0], *R = p->inputs[1];
  const sql_bexpr_t *e = p->u.join.residual;
  if (swap) e = swap_cols(q->a, e, L->ncols, R->ncols);
  const ty_schema_t *ps = spec->probe_schema, *bs = spec->build_schema;
  uint32_t np = ps->root.nfields, nb = bs->root.nfields;
  ty_field_t *f = fl_arena_zalloc(q->a, (np + nb ? np + nb : 1) * sizeof *f);
  for (uint32_t i = 0; i < np; i++) f[i] = ps->root.fields[i];
  for (uint32_t i = 0; i < nb; i++) f[np + i] = bs->root.fields[i];
  for (uint32_t i = 0; i < np + nb; i++) f[i].id = (int32_t)i + 1;
  residual_t *r = fl_arena_zalloc(q->a, sizeof *r);
  r->ctx = ctx;
  int rc = ex_expr_compile_pred(ctx, e, ty_schema_new(q->a, 0, f, np + nb), &r->x, err);
  if (rc) return rc;
  *out = r;
  return FL_OK;
}

/*
 * Where a filter on hash join key columns cols[0..n) of plan `probe` (the
 * join's probe input) pays: follows them down through filters,
 * projections of plain columns and aggregations grouped on them, and
 * returns the node whose output the filter goes on, if the path passed an
 * aggregation (elsewhere the join's own probe costs the same). Below the
 * aggregation it stops at the first filter: that filter's own test is
 * cheaper than a hash lookup and often more selective (TPC-H Q15's date
 * range keeps 4% of lineitem, every supplier key of which is in the join's
 * table). cols is rewritten to that node's columns.
 */
static const sql_plan_t *join_filter_target(const sql_plan_t *p, uint32_t *cols, uint32_t n) {
  bool agg = false;
  for (;;) {
    if (p->kind == SQL_P_FILTER) {
      if (agg) return p;
      p = p->in;
    } else if (p->kind == SQL_P_PROJECT) {
      for (uint32_t k = 0; k < n; k++) {
        const sql_bexpr_t *e = p->u.project.exprs[cols[k]];
        if (e->kind != SQL_BX_COL) return agg ? p : NULL;
      }
      for (uint32_t k = 0; k < n; k++) cols[k] = p->u.project.exprs[cols[k]]->col;
      p = p->in;
    } else if (p->kind == SQL_P_AGGREGATE && !p->u.agg.sets) {
      for (uint32_t k = 0; k < n; k++)
        if (cols[k] >= p->u.agg.nkeys) return agg ? p : NULL;
      for (uint32_t k = 0; k < n; k++) cols[k] = p->u.agg.keys[cols[k]];
      agg = true;
      p = p->in;
    } else {
      return agg ? p : NULL;
    }
  }
}

/* Registers a join key filter for the probe side of hash join p (op),
 * when its type drops probe rows without a pair and a place pays. */
static void add_join_filter(ex_query_t *q, const sql_plan_t *p, const sql_plan_t *probe,
                            const ex_op_t *op, ex_join_type_t type, bool swap) {
  if (type != EX_JOIN_INNER && type != EX_JOIN_RIGHT && type != EX_JOIN_SEMI &&
      type != EX_JOIN_RIGHT_SEMI && type != EX_JOIN_RIGHT_ANTI)
    return;
  uint32_t n = p->u.join.nkeys;
  uint32_t *cols = fl_arena_zalloc(q->a, n * sizeof *cols);
  memcpy(cols, swap ? p->u.join.rkeys : p->u.join.lkeys, n * sizeof *cols);
  const sql_plan_t *node = join_filter_target(probe, cols, n);
  if (!node) return;
  q->jfilters = fl_realloc(q->jfilters, (q->njfilters + 1) * sizeof *q->jfilters);
  q->jfilters[q->njfilters++] = (pending_filter_t){node, op, cols, n, false};
}

/*
 * A join: the hash join when there are equi-keys, else the nested loop
 * join. The probe side is the left input unless the optimizer chose the
 * left one as the (smaller) build side; then the join type is mirrored
 * and a projection restores the left-then-right column order. The build
 * input is built first, so its sources run (to their finish) before the
 * probe side's. With several lanes the build side is gathered into the
 * one join; a hash join's probe side is the join plus a probe lane per
 * further lane, a nested loop join's is gathered too.
 */
static int build_join(ex_query_t *q, const sql_plan_t *p, ex_op_t **Lout, fl_err_t *err) {
  const sql_plan_t *L = p->inputs[0], *R = p->inputs[1];
  bool swap = p->u.join.build_left;
  const sql_plan_t *probe = swap ? R : L, *bld = swap ? L : R;
  uint32_t N = q->nlanes;
  int rc;
  ex_join_spec_t spec = {.type = (ex_join_type_t)p->u.join.type,
                         .probe_schema = schema_of(q, probe),
                         .build_schema = schema_of(q, bld)};
  uint32_t nl = p->u.join.nleft, nr = p->u.join.nright;
  bool semi = spec.type == EX_JOIN_SEMI || spec.type == EX_JOIN_ANTI;
  if (swap && semi) {
    /* The left rows are held and the subquery's probe them. */
    spec.type = spec.type == EX_JOIN_SEMI ? EX_JOIN_RIGHT_SEMI : EX_JOIN_RIGHT_ANTI;
    spec.nprobe_out = 0;
    spec.build_out = iota(q->a, nl);
    spec.nbuild_out = nl;
  } else if (swap) {
    if (spec.type == EX_JOIN_LEFT)
      spec.type = EX_JOIN_RIGHT;
    else if (spec.type == EX_JOIN_RIGHT)
      spec.type = EX_JOIN_LEFT;
    spec.probe_out = iota(q->a, nr);
    spec.nprobe_out = nr;
    spec.build_out = iota(q->a, nl);
    spec.nbuild_out = nl;
  } else {
    spec.probe_out = iota(q->a, nl);
    spec.nprobe_out = nl;
    spec.build_out = iota(q->a, nr);
    spec.nbuild_out = nr;
  }
  residual_t **res = fl_arena_zalloc(q->a, N * sizeof *res);
  if (p->u.join.residual) {
    for (uint32_t w = 0; w < N; w++)
      if ((rc = compile_residual(q, &q->lctx[w], p, &spec, swap, &res[w], err))) return rc;
    spec.filter = residual_filter;
    spec.filter_arg = res[0];
  }
  ex_op_t **next = Lout;
  if (swap && !semi) {
    /* The join yields right then left columns; put them back in order. */
    uint32_t n = nl + nr;
    ty_field_t *f = fl_arena_zalloc(q->a, (n ? n : 1) * sizeof *f);
    sql_bexpr_t **ex = fl_arena_zalloc(q->a, (n ? n : 1) * sizeof *ex);
    const ty_schema_t *want = schema_of(q, p);
    for (uint32_t i = 0; i < nr; i++) f[i] = want->root.fields[nl + i];
    for (uint32_t i = 0; i < nl; i++) f[nr + i] = want->root.fields[i];
    for (uint32_t i = 0; i < n; i++) {
      f[i].id = (int32_t)i + 1;
      ex[i] = fl_arena_zalloc(q->a, sizeof *ex[i]);
      ex[i]->kind = SQL_BX_COL;
      ex[i]->col = i < nl ? nr + i : i - nl;
      ex[i]->type = p->cols[i].type;
    }
    const ty_schema_t *in = ty_schema_new(q->a, 0, f, n);
    next = new_lanes(q);
    for (uint32_t w = 0; w < N; w++) {
      if ((rc = ex_project_new(&q->lctx[w], in, want, ex, n, Lout[w], &next[w], err))) return rc;
      keep_op(q, next[w]);
    }
  }
  ex_op_t *op, *build_side;
  ex_op_t **probe_lanes = new_lanes(q);
  if (p->u.join.nkeys) {
    ex_hash_join_opts_t o = {.join = spec,
                             .probe_keys = swap ? p->u.join.rkeys : p->u.join.lkeys,
                             .build_keys = swap ? p->u.join.lkeys : p->u.join.rkeys,
                             .nkeys = p->u.join.nkeys};
    if ((rc = ex_hash_join_new(&q->qctx, q->a, &o, next[0], &op, err))) return rc;
    build_side = ex_hash_join_build_side(op);
    probe_lanes[0] = op;
    for (uint32_t w = 1; w < N; w++)
      if ((rc = ex_hash_join_probe_lane(op, q->a, res[w] ? residual_filter : NULL, res[w], next[w],
                                        &probe_lanes[w], err))) {
        ex_op_destroy(op);
        return rc;
      }
  } else {
    if ((rc = ex_nl_join_new(&q->qctx, q->a, &spec, fanned(q, schema_of(q, p), next), &op, err)))
      return rc;
    build_side = ex_nl_join_build_side(op);
  }
  keep_op(q, op);
  if (p->u.join.nkeys) add_join_filter(q, p, probe, op, spec.type, swap);
  if (!p->u.join.nkeys) {
    ex_op_t **g = gathered(q, spec.probe_schema, op);
    for (uint32_t w = 0; w < N; w++) probe_lanes[w] = g[w];
  }
  if (q->njoins == q->joins_cap) {
    q->joins_cap = q->joins_cap ? q->joins_cap * 2 : 4;
    q->joins = fl_realloc(q->joins, q->joins_cap * sizeof *q->joins);
  }
  q->joins[q->njoins].op = op;
  q->joins[q->njoins].hash = p->u.join.nkeys > 0;
  q->joins[q->njoins].type = spec.type;
  q->njoins++;
  node_stat_t *pst = node_of(q, p->u.join.nkeys ? "JOIN (probe)" : "JOIN (nested loop probe)");
  for (uint32_t w = 0; w < N; w++) probe_lanes[w] = metered(q, pst, probe_lanes[w]);
  node_stat_t *bst = node_of(q, "JOIN (build)");
  if ((rc = build(q, bld, gathered(q, spec.build_schema, metered(q, bst, build_side)), err)))
    return rc;
  for (uint32_t i = 0; i < q->njfilters; i++)
    if (q->jfilters[i].join == op) q->jfilters[i].armed = true;
  rc = build(q, probe, probe_lanes, err);
  for (uint32_t i = 0; i < q->njfilters; i++)
    if (q->jfilters[i].join == op) q->jfilters[i].node = NULL;
  return rc;
}

static ex_sort_key_t *sort_keys(ex_query_t *q, const sql_plan_t *s) {
  ex_sort_key_t *k = fl_arena_zalloc(q->a, (s->u.sort.nkeys ? s->u.sort.nkeys : 1) * sizeof *k);
  for (uint32_t i = 0; i < s->u.sort.nkeys; i++)
    k[i] = (ex_sort_key_t){.col = s->u.sort.keys[i].col,
                           .desc = s->u.sort.keys[i].desc,
                           .nulls_first = s->u.sort.keys[i].nulls_first};
  return k;
}

/* Whether window node p's input arrives already ordered its way: a window
 * node below with the same PARTITION BY and ORDER BY emits its rows so. */
static bool window_presorted(const sql_plan_t *p) {
  const sql_plan_t *in = p->in;
  if (in->kind != SQL_P_WINDOW || in->u.window.npartition != p->u.window.npartition ||
      in->u.window.norder != p->u.window.norder)
    return false;
  for (uint32_t i = 0; i < p->u.window.npartition; i++)
    if (in->u.window.partition[i] != p->u.window.partition[i]) return false;
  for (uint32_t i = 0; i < p->u.window.norder; i++) {
    const sql_sort_key_t *x = &in->u.window.order[i], *y = &p->u.window.order[i];
    if (x->col != y->col || x->desc != y->desc || x->nulls_first != y->nulls_first) return false;
  }
  return true;
}

static int build_window(ex_query_t *q, const sql_plan_t *p, ex_op_t *next, ex_op_t **out,
                        fl_err_t *err) {
  static const struct {
    const char *name;
    ex_window_kind_t kind;
  } kinds[] = {{"row_number", EX_WIN_ROW_NUMBER},
               {"rank", EX_WIN_RANK},
               {"dense_rank", EX_WIN_DENSE_RANK},
               {"percent_rank", EX_WIN_PERCENT_RANK},
               {"cume_dist", EX_WIN_CUME_DIST},
               {"ntile", EX_WIN_NTILE},
               {"lag", EX_WIN_LAG},
               {"lead", EX_WIN_LEAD},
               {"first_value", EX_WIN_FIRST_VALUE},
               {"last_value", EX_WIN_LAST_VALUE},
               {"nth_value", EX_WIN_NTH_VALUE}};
  const ty_schema_t *in = schema_of(q, p->in);
  uint32_t nf = p->u.window.nfns;
  ex_window_fn_t *fns = fl_arena_zalloc(q->a, (nf ? nf : 1) * sizeof *fns);
  for (uint32_t j = 0; j < nf; j++) {
    const sql_win_call_t *c = &p->u.window.fns[j];
    ex_window_fn_t *f = &fns[j];
    f->name = p->cols[p->ncols - nf + j].name;
    f->param = c->param;
    f->default_col = c->default_col;
    f->ignore_nulls = c->ignore_nulls;
    f->arg_col = c->arg_col;
    if (c->is_agg) {
      f->kind = EX_WIN_AGG;
      f->arg_col = c->agg.arg_col;
      const ty_type_t *arg = c->agg.arg_col >= 0 ? in->root.fields[c->agg.arg_col].type : NULL;
      int rc =
          ex_agg_bind(q->a, c->agg.name, arg, false, &c->agg.param, c->agg.nparams, &f->agg, err);
      if (rc) return rc;
      continue;
    }
    size_t k = 0;
    while (k < sizeof kinds / sizeof kinds[0] && strcmp(kinds[k].name, c->name)) k++;
    if (k == sizeof kinds / sizeof kinds[0])
      return fl_err_set(err, FL_EINTERNAL, "no window function %s", c->name);
    f->kind = kinds[k].kind;
  }
  ex_sort_key_t *order =
      fl_arena_zalloc(q->a, (p->u.window.norder ? p->u.window.norder : 1) * sizeof *order);
  for (uint32_t i = 0; i < p->u.window.norder; i++)
    order[i] = (ex_sort_key_t){.col = p->u.window.order[i].col,
                               .desc = p->u.window.order[i].desc,
                               .nulls_first = p->u.window.order[i].nulls_first};
  ex_window_frame_t *frame = NULL;
  if (p->u.window.frame) {
    const sql_win_frame_t *f = p->u.window.frame;
    frame = fl_arena_zalloc(q->a, sizeof *frame);
    frame->unit = f->unit == SQL_WU_ROWS    ? EX_FRAME_ROWS
                  : f->unit == SQL_WU_RANGE ? EX_FRAME_RANGE
                                            : EX_FRAME_GROUPS;
    /* The syntax tree's bound kinds are in the operator's order. */
    frame->start = (ex_frame_bound_t){.kind = (ex_bound_kind_t)f->start.kind,
                                      .offset = f->start.offset,
                                      .offset_f = f->start.offset_f};
    frame->end = (ex_frame_bound_t){
        .kind = (ex_bound_kind_t)f->end.kind, .offset = f->end.offset, .offset_f = f->end.offset_f};
  }
  ex_window_opts_t o = {.in_schema = in,
                        .partition_cols = p->u.window.partition,
                        .npartition = p->u.window.npartition,
                        .order_keys = order,
                        .norder = p->u.window.norder,
                        .frame = frame,
                        .presorted = window_presorted(p),
                        .fns = fns,
                        .nfns = nf};
  return ex_window_new(&q->qctx, q->a, &o, next, out, err);
}

/* The window of a WINDOW_TVF or WINDOW_AGG node (the kinds are in the
 * same order). */
static ex_window_spec_t window_spec(const sql_plan_t *p) {
  return (ex_window_spec_t){.kind = (ex_wkind_t)p->u.wtvf.kind,
                            .size_us = p->u.wtvf.size_us,
                            .slide_us = p->u.wtvf.slide_us,
                            .offset_us = p->u.wtvf.offset_us,
                            .gap_us = p->u.wtvf.gap_us};
}

/* Window aggregation: one shared operator (behind a gather). */
static int build_window_agg(ex_query_t *q, const sql_plan_t *p, ex_op_t *next, ex_op_t **out,
                            fl_err_t *err) {
  const ty_schema_t *in = schema_of(q, p->in);
  uint32_t na = p->u.wtvf.naggs;
  ex_agg_spec_t *specs = fl_arena_zalloc(q->a, (na ? na : 1) * sizeof *specs);
  for (uint32_t j = 0; j < na; j++) {
    const sql_agg_call_t *g = &p->u.wtvf.aggs[j];
    const ty_type_t *arg = g->arg_col >= 0 ? in->root.fields[g->arg_col].type : NULL;
    int rc = ex_agg_bind(q->a, g->name, arg, g->distinct, &g->param, g->nparams, &specs[j].agg, err);
    if (rc) return rc;
    specs[j].arg_col = g->arg_col;
    specs[j].filter_col = g->filter_col;
    specs[j].name = p->cols[p->ncols - na + j].name;
  }
  ex_window_agg_opts_t o = {.in_schema = in,
                            .spec = window_spec(p),
                            .time_col = p->u.wtvf.time_col,
                            .partition_cols = p->u.wtvf.partition,
                            .npartition = p->u.wtvf.npartition,
                            .key_cols = p->u.wtvf.keys,
                            .nkeys = p->u.wtvf.nkeys,
                            .grouping_sets = p->u.wtvf.sets,
                            .nsets = p->u.wtvf.nsets,
                            .aggs = specs,
                            .naggs = na,
                            .allowed_lateness_us = q->lateness_us,
                            .late_fn = q->late_fn,
                            .late_arg = q->late_arg};
  int rc = ex_window_agg_new(&q->qctx, q->a, &o, next, out, err);
  if (rc) return rc;
  q->waggs = fl_realloc(q->waggs, (q->nwaggs + 1) * sizeof *q->waggs);
  q->waggs[q->nwaggs++] = *out;
  return FL_OK;
}

static int build_node(ex_query_t *q, const sql_plan_t *p, ex_op_t **L, fl_err_t *err);

/* Whether node p is an operator whose groups a key hash can split: a
 * window aggregation, or a hash aggregation without a global group (an
 * empty grouping set would make one row per copy). */
static bool keyed(const sql_plan_t *p) {
  if (p->kind == SQL_P_WINDOW_AGG) return true;
  if (p->kind != SQL_P_AGGREGATE || p->u.agg.streaming || !p->u.agg.nkeys) return false;
  for (uint32_t i = 0; i < p->u.agg.nsets; i++)
    if (!p->u.agg.sets[i]) return false;
  return true;
}

/* The input columns of keyed node p whose hash places a row: a session's
 * PARTITION BY columns (sessions merge across the other keys), else the
 * keys in every grouping set (a group never spans two copies). */
static uint32_t *hash_cols(fl_arena_t *a, const sql_plan_t *p, uint32_t *n) {
  const uint32_t *keys = p->kind == SQL_P_WINDOW_AGG ? p->u.wtvf.keys : p->u.agg.keys;
  uint32_t nkeys = p->kind == SQL_P_WINDOW_AGG ? p->u.wtvf.nkeys : p->u.agg.nkeys;
  const uint64_t *sets = p->kind == SQL_P_WINDOW_AGG ? p->u.wtvf.sets : p->u.agg.sets;
  uint32_t nsets = p->kind == SQL_P_WINDOW_AGG ? p->u.wtvf.nsets : p->u.agg.nsets;
  uint32_t *out = fl_arena_zalloc(
      a, (nkeys + 1 + (p->kind == SQL_P_WINDOW_AGG ? p->u.wtvf.npartition : 0)) * sizeof *out);
  *n = 0;
  if (p->kind == SQL_P_WINDOW_AGG && p->u.wtvf.kind == SQL_WT_SESSION) {
    for (uint32_t i = 0; i < p->u.wtvf.npartition; i++) out[(*n)++] = p->u.wtvf.partition[i];
    return out;
  }
  uint64_t all = ~(uint64_t)0;
  for (uint32_t i = 0; i < nsets; i++) all &= sets[i];
  for (uint32_t i = 0; i < nkeys; i++)
    if (i >= 64 || (all >> i & 1)) out[(*n)++] = keys[i];
  return out;
}

static bool lanes_ok(const sql_plan_t *p, uint32_t *nkeyed) {
  switch (p->kind) {
    case SQL_P_SCAN:
    case SQL_P_VALUES:
    case SQL_P_FILTER:
    case SQL_P_PROJECT:
    case SQL_P_UNION:
    case SQL_P_UNNEST:
    case SQL_P_WINDOW_TVF: break;
    default:
      if (!keyed(p)) return false;
      ++*nkeyed;
  }
  if (p->in && !p->ninputs && !lanes_ok(p->in, nkeyed)) return false;
  for (uint32_t i = 0; i < p->ninputs; i++)
    if (!lanes_ok(p->inputs[i], nkeyed)) return false;
  return *nkeyed <= 1;
}

bool ex_plan_lanes_ok(const sql_plan_t *p, bool *has_keyed) {
  uint32_t n = 0;
  bool ok = lanes_ok(p, &n);
  *has_keyed = n > 0;
  return ok;
}

static int build(ex_query_t *q, const sql_plan_t *p, ex_op_t **L, fl_err_t *err) {
  for (uint32_t i = 0; i < q->njfilters; i++) {
    pending_filter_t *f = &q->jfilters[i];
    if (f->node != p || !f->armed) continue;
    ex_op_t **fl = new_lanes(q);
    for (uint32_t w = 0; w < q->nlanes; w++) {
      int rc = ex_join_filter_new(f->join, schema_of(q, p), f->cols, f->ncols, L[w], &fl[w], err);
      if (rc) return rc;
      keep_op(q, fl[w]);
    }
    f->node = NULL;
    L = fl;
  }
  q->depth++;
  int rc = build_node(q, p, L, err);
  q->depth--;
  return rc;
}

static int build_node(ex_query_t *q, const sql_plan_t *p, ex_op_t **L, fl_err_t *err) {
  uint32_t N = q->nlanes;
  const char *name = sql_plan_kind_name(p->kind);
  ex_op_t **ops = NULL; /* the input's consumers, one per lane */
  ex_op_t *op = NULL;   /* or one shared operator (gathered below) */
  int rc = FL_OK;
  const sql_plan_t *in = p->in;
  switch (p->kind) {
    case SQL_P_SCAN: return build_scan(q, p, L, err);
    case SQL_P_VALUES: {
      ex_source_t *s;
      if ((rc = ex_values_source_new(&q->ectx, schema_of(q, p), p->u.values.cells,
                                     p->u.values.nrows, L[0], &q->stop, &s, err)))
        return rc;
      keep_src(q, s, L);
      return FL_OK;
    }
    case SQL_P_FILTER:
      ops = new_lanes(q);
      for (uint32_t w = 0; w < N && !rc; w++)
        if (!(rc = ex_filter_new(&q->lctx[w], schema_of(q, in), p->u.filter.pred, L[w], &ops[w],
                                 err)))
          keep_op(q, ops[w]);
      break;
    case SQL_P_PROJECT:
      ops = new_lanes(q);
      for (uint32_t w = 0; w < N && !rc; w++)
        if (!(rc = ex_project_new(&q->lctx[w], schema_of(q, in), schema_of(q, p),
                                  p->u.project.exprs, p->ncols, L[w], &ops[w], err)))
          keep_op(q, ops[w]);
      break;
    case SQL_P_AGGREGATE: rc = build_agg(q, p, L, &ops, &op, err); break;
    case SQL_P_WINDOW: rc = build_window(q, p, fanned(q, schema_of(q, p), L), &op, err); break;
    case SQL_P_SORT:
      rc = ex_sort_new(&q->qctx, schema_of(q, p), sort_keys(q, p), p->u.sort.nkeys,
                       fanned(q, schema_of(q, p), L), &op, err);
      break;
    case SQL_P_LIMIT:
      if (in->kind == SQL_P_SORT && p->u.limit.limit >= 0) {
        /* ORDER BY ... LIMIT: keep only the first rows while sorting; with
         * lanes, each keeps its first limit + offset and a final top-N
         * over their union applies the offset. */
        const ty_schema_t *sch = schema_of(q, in);
        uint64_t lim = (uint64_t)p->u.limit.limit, off = (uint64_t)p->u.limit.offset;
        name = "TOPN";
        rc = ex_topn_new(&q->qctx, sch, sort_keys(q, in), in->u.sort.nkeys, lim, off,
                         fanned(q, sch, L), &op, err);
        in = in->in;
        if (rc || N == 1) break;
        keep_op(q, op);
        ex_op_t **g = gathered(q, sch, metered_phase2(q, op));
        op = NULL;
        ops = new_lanes(q);
        for (uint32_t w = 0; w < N && !rc; w++)
          if (!(rc = ex_topn_new(&q->qctx, sch, sort_keys(q, p->in), p->in->u.sort.nkeys, lim + off,
                                 0, g[w], &ops[w], err)))
            keep_op(q, ops[w]);
      } else {
        op = ex_limit_new(schema_of(q, p), p->u.limit.limit, p->u.limit.offset, &q->stop,
                          fanned(q, schema_of(q, p), L));
        rc = FL_OK;
      }
      break;
    case SQL_P_UNION: {
      ops = new_lanes(q);
      node_stat_t *st = node_of(q, name);
      for (uint32_t w = 0; w < N; w++) {
        ops[w] = ex_union_new(schema_of(q, p), p->ninputs, L[w]);
        keep_op(q, ops[w]);
        ops[w] = metered(q, st, ops[w]);
      }
      for (uint32_t i = 0; i < p->ninputs; i++)
        if ((rc = build(q, p->inputs[i], ops, err))) return rc;
      return FL_OK;
    }
    case SQL_P_JOIN: return build_join(q, p, L, err);
    case SQL_P_WINDOW_TVF: {
      ex_window_spec_t ws = window_spec(p);
      ops = new_lanes(q);
      for (uint32_t w = 0; w < N && !rc; w++)
        if (!(rc = ex_window_tvf_new(q->a, schema_of(q, in), &ws, p->u.wtvf.time_col, L[w], &ops[w],
                                     err)))
          keep_op(q, ops[w]);
      break;
    }
    case SQL_P_WINDOW_AGG:
      rc = build_window_agg(q, p, fanned(q, schema_of(q, p), L), &op, err);
      break;
    case SQL_P_UNNEST:
      ops = new_lanes(q);
      for (uint32_t w = 0; w < N && !rc; w++)
        if (!(rc = ex_unnest_new(&q->lctx[w], schema_of(q, in), schema_of(q, p), p->u.unnest.exprs,
                                 p->u.unnest.nexprs, p->u.unnest.ordinality, p->u.unnest.outer,
                                 L[w], &ops[w], err)))
          keep_op(q, ops[w]);
      break;
    default:
      return fl_err_set(err, FL_EINTERNAL, "no operator for plan node %s",
                        sql_plan_kind_name(p->kind));
  }
  if (rc) return rc;
  node_stat_t *st = node_of(q, name);
  for (uint32_t i = 0; i < q->npending; i++) q->pending[i]->st = st;
  q->npending = 0;
  if (q->keyed_exchange && keyed(p)) {
    /* A streaming job's copy of the query on one of its lanes: rows reach
     * the keyed operator by key (the exchange owns the operator in front). */
    if (op) keep_op(q, op);
    uint32_t nh = 0, *hc = hash_cols(q->a, p, &nh);
    ex_op_t *front;
    if ((rc = q->keyed_exchange(q->keyed_exchange_arg, schema_of(q, in), hc, nh,
                                metered(q, st, op ? op : ops[0]), &front, err)))
      return rc;
    ops = same_lanes(q, front);
  } else if (op) {
    keep_op(q, op);
    ops = gathered(q, schema_of(q, in), metered(q, st, op));
  } else {
    for (uint32_t w = 0; w < N; w++) ops[w] = metered(q, st, ops[w]);
  }
  return build(q, in, ops, err);
}

int ex_query_new(fl_arena_t *a, const sql_plan_t *p, const ex_query_opts_t *o, ex_query_t **out,
                 fl_err_t *err) {
  ex_query_t *q = fl_calloc(1, sizeof *q);
  q->a = a;
  q->plan = p;
  q->progress = o ? o->progress : NULL;
  q->analyze = o && o->analyze;
  if (o) {
    q->lateness_us = o->window_allowed_lateness_us;
    q->late_fn = o->window_late_fn;
    q->late_arg = o->window_late_arg;
    q->keyed_exchange = o->keyed_exchange;
    q->keyed_exchange_arg = o->keyed_exchange_arg;
  }
  ex_ctx_init(&q->ectx, a, o ? o->zone : NULL, o ? o->now_us : -1);
  ex_mem_init(&q->mem, o ? o->mem_limit : 0);
  q->qctx = (ex_opctx_t){.mem = &q->mem, .spill_dir = o ? o->spill_dir : NULL};
  q->types = fl_arena_zalloc(a, (p->ncols ? p->ncols : 1) * sizeof *q->types);
  for (uint32_t i = 0; i < p->ncols; i++) q->types[i] = ex_type_of(&p->cols[i].type, a);
  q->sink = ex_sink_new(schema_of(q, p));
  q->out = o && o->sink ? o->sink : &q->sink->op;
  uint32_t n = o && o->threads ? o->threads : ex_default_threads();
  if (n > EX_MAX_THREADS) n = EX_MAX_THREADS;
  q->nlanes = n;
  q->lctx = fl_calloc(n, sizeof *q->lctx);
  q->larena = fl_calloc(n, sizeof *q->larena);
  q->ectx.subqs = ex_subq_cache_new(a, n);
  q->lctx[0] = q->ectx;
  for (uint32_t w = 1; w < n; w++) {
    q->larena[w] = fl_arena_new(0);
    ex_ctx_init(&q->lctx[w], q->larena[w], q->ectx.zone, q->ectx.now_us);
    q->lctx[w].random_state = q->ectx.random_state + w * 0x9e3779b97f4a7c15ULL;
    q->lctx[w].subqs = q->ectx.subqs;
  }
  int rc = FL_OK;
  if (n > 1) rc = fl_pool_new(n - 1, &q->pool, err);
  if (!rc) rc = build(q, p, gathered(q, q->sink->op.out_schema, q->out), err);
  if (rc) {
    ex_query_free(q);
    return rc;
  }
  *out = q;
  return FL_OK;
}

uint32_t ex_default_threads(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > EX_MAX_THREADS ? EX_MAX_THREADS : (uint32_t)n;
}

uint32_t ex_query_threads(const ex_query_t *q) { return q->nlanes; }

/* One parallel run of a source: the lanes' shared morsel counter and
 * the first error. */
typedef struct par_run {
  ex_query_t *q;
  ex_source_t *s;
  node_stat_t *st;
  ex_op_t **lanes;
  uint32_t nmorsels;
  _Atomic uint32_t next;
  _Atomic bool failed;
  pthread_mutex_t lock;
  int rc;
  fl_err_t err;
} par_run_t;

typedef struct par_lane {
  par_run_t *r;
  uint32_t lane;
} par_lane_t;

static void run_lane(void *arg, uint32_t worker) {
  (void)worker;
  par_lane_t *pl = arg;
  par_run_t *r = pl->r;
  fl_err_t e;
  fl_err_clear(&e);
  int rc = FL_OK;
  node_stat_t *prev = t_current;
  t_current = r->st;
  uint64_t t0 = r->st ? now_ns() : 0;
  while (!atomic_load(&r->failed) && !__atomic_load_n(&r->q->stop, __ATOMIC_RELAXED)) {
    uint32_t m = atomic_fetch_add(&r->next, 1);
    if (m >= r->nmorsels) break;
    if ((rc = r->s->run_morsel(r->s, pl->lane, m, r->lanes[pl->lane], &e))) break;
  }
  /* A lane finishes whether its morsels ran out or LIMIT stopped it. */
  if (!rc && !atomic_load(&r->failed)) rc = ex_op_finish(r->lanes[pl->lane], &e);
  if (r->st) {
    uint64_t d = now_ns() - t0;
    atomic_fetch_add(&r->st->ns, d);
    if (prev) atomic_fetch_add(&prev->child_ns, d);
  }
  t_current = prev;
  if (rc) {
    pthread_mutex_lock(&r->lock);
    if (!r->rc) {
      r->rc = rc;
      r->err = e;
    }
    pthread_mutex_unlock(&r->lock);
    atomic_store(&r->failed, true);
    __atomic_store_n(&r->q->stop, true, __ATOMIC_RELAXED);
  }
}

/* Runs source i: whole on this thread when it cannot split (then the
 * other lanes are finished empty), else by one task per lane. */
static int run_source(ex_query_t *q, uint32_t i, fl_err_t *err) {
  ex_source_t *s = q->srcs[i];
  ex_op_t **L = q->src_lanes[i];
  uint32_t N = q->nlanes;
  node_stat_t *st = q->src_stat[i];
  int rc;
  if (N == 1) {
    if (!st) return s->run(s, err);
    METERED(st, s->run(s, err));
    return rc;
  }
  uint32_t nm = 0;
  if (!s->split || !s->run_morsel || (rc = s->split(s, N, &nm, err)) != FL_OK) {
    if (s->split && s->run_morsel) return rc;
    if (st) {
      METERED(st, s->run(s, err));
    } else {
      rc = s->run(s, err);
    }
    if (rc) return rc;
    for (uint32_t w = 1; w < N; w++)
      if ((rc = ex_op_finish(L[w], err))) return rc;
    return FL_OK;
  }
  par_run_t r = {.q = q, .s = s, .st = st, .lanes = L, .nmorsels = nm};
  pthread_mutex_init(&r.lock, NULL);
  fl_err_clear(&r.err);
  par_lane_t *pl = fl_calloc(N, sizeof *pl);
  fl_taskgroup_t g;
  fl_taskgroup_init(&g, q->pool);
  for (uint32_t w = 0; w < N; w++) {
    pl[w] = (par_lane_t){.r = &r, .lane = w};
    fl_pool_submit(&g, run_lane, &pl[w]);
  }
  fl_taskgroup_wait(&g);
  fl_free(pl);
  pthread_mutex_destroy(&r.lock);
  if (r.rc) *err = r.err;
  return r.rc;
}

int ex_query_run(ex_query_t *q, fl_err_t *err) {
  /* Sources run one after the other (a join's build side first, UNION ALL
   * inputs in order), each on all lanes. */
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = FL_OK;
  for (uint32_t i = 0; i < q->nsrcs && !rc; i++) {
    __atomic_store_n(&q->stop, false, __ATOMIC_RELAXED);
    rc = run_source(q, i, err);
    /* A scan's "rows" are those it read out. */
    const ice_scan_stats_t *ss = q->src_stat[i] ? ex_scan_source_stats(q->srcs[i]) : NULL;
    if (ss) atomic_store(&q->src_stat[i]->rows, ss->rows_out);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  q->run_us = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000);
  return rc;
}

const ex_sink_t *ex_query_sink(const ex_query_t *q) { return q->sink; }
uint32_t ex_query_ncols(const ex_query_t *q) { return q->plan->ncols; }
const char *ex_query_col_name(const ex_query_t *q, uint32_t i) { return q->plan->cols[i].name; }
const ex_type_t *ex_query_col_type(const ex_query_t *q, uint32_t i) { return &q->types[i]; }
ex_ctx_t *ex_query_ctx(ex_query_t *q) { return &q->ectx; }

void ex_query_format_stats(const ex_query_t *q, fl_buf_t *out) {
  for (uint32_t i = 0; i < q->nsrcs; i++) {
    if (ex_file_scan_source_format_stats(q->srcs[i], i, out)) continue;
    const ice_scan_stats_t *s = ex_scan_source_stats(q->srcs[i]);
    if (!s) continue;
    fl_buf_printf(out,
                  "scan %u: manifests %llu (skipped %llu), data files %llu (skipped %llu by "
                  "partition, %llu by metrics), row groups read %llu (skipped %llu), rows read "
                  "%llu, rows out %llu\n",
                  i, (unsigned long long)s->manifests_total,
                  (unsigned long long)s->manifests_skipped, (unsigned long long)s->files_total,
                  (unsigned long long)s->files_skipped_partition,
                  (unsigned long long)s->files_skipped_metrics,
                  (unsigned long long)s->row_groups_read, (unsigned long long)s->row_groups_skipped,
                  (unsigned long long)s->rows_read, (unsigned long long)s->rows_out);
  }
  for (uint32_t i = 0; i < q->njoins; i++) {
    const char *t = ex_join_type_name(q->joins[i].type);
    if (q->joins[i].hash) {
      const ex_hash_join_stats_t *s = ex_hash_join_stats(q->joins[i].op);
      fl_buf_printf(out,
                    "join %u: hash %s, build rows %llu, probe rows %llu, rows out %llu, spilled "
                    "partitions %llu\n",
                    i, t, (unsigned long long)s->build_rows, (unsigned long long)s->probe_rows,
                    (unsigned long long)s->rows_out, (unsigned long long)s->partitions);
    } else {
      const ex_nl_join_stats_t *s = ex_nl_join_stats(q->joins[i].op);
      fl_buf_printf(out,
                    "join %u: nested loop %s, build rows %llu, probe rows %llu, pairs %llu, rows "
                    "out %llu, spilled blocks %llu\n",
                    i, t, (unsigned long long)s->build_rows, (unsigned long long)s->probe_rows,
                    (unsigned long long)s->pairs, (unsigned long long)s->rows_out,
                    (unsigned long long)s->blocks);
    }
  }
  for (uint32_t i = 0; i < q->nwaggs; i++) {
    const ex_window_agg_stats_t *s = ex_window_agg_stats(q->waggs[i]);
    fl_buf_printf(out,
                  "window aggregation %u: rows in %llu, late rows %llu, windows out %llu, rows out "
                  "%llu, spilled runs %llu\n",
                  i, (unsigned long long)s->rows_in, (unsigned long long)s->late_rows,
                  (unsigned long long)s->windows_out, (unsigned long long)s->groups_out,
                  (unsigned long long)s->spills);
  }
  fl_buf_printf(out, "rows: %llu\n", (unsigned long long)q->sink->rows);
  fl_buf_printf(out, "threads: %u\n", q->nlanes);
  if (q->nnodes) fl_buf_printf(out, "operators (rows in, own time; summed over threads):\n");
  for (uint32_t i = 0; i < q->nnodes; i++) {
    const node_stat_t *st = q->nodes[i];
    uint64_t ns = atomic_load(&st->ns), child = atomic_load(&st->child_ns);
    uint64_t self = ns > child ? ns - child : 0;
    fl_buf_printf(out, "%*s%s: rows %llu, %.3f ms\n", (int)(2 * st->depth), "", st->name,
                  (unsigned long long)atomic_load(&st->rows), (double)self / 1e6);
  }
}

void ex_query_free(ex_query_t *q) {
  if (!q) return;
  for (uint32_t i = 0; i < q->nsrcs; i++) q->srcs[i]->destroy(q->srcs[i]);
  for (uint32_t i = 0; i < q->nops; i++) ex_op_destroy(q->ops[i]);
  for (uint32_t i = 0; i < q->nreparts; i++) ex_repartition_free(q->reparts[i]);
  fl_free(q->reparts);
  fl_free(q->jfilters);
  if (q->sink) ex_op_destroy(&q->sink->op);
  fl_pool_free(q->pool);
  for (uint32_t w = 1; w < q->nlanes; w++) fl_arena_free(q->larena[w]);
  fl_free(q->larena);
  fl_free(q->lctx);
  fl_free(q->src_lanes);
  fl_free(q->src_stat);
  fl_free(q->pending);
  fl_free(q->nodes);
  fl_free(q->srcs);
  fl_free(q->ops);
  fl_free(q->joins);
  fl_free(q->inputs);
  fl_free(q->waggs);
  fl_free(q);
}

uint32_t ex_query_stream_inputs(const ex_query_t *q) { return q->ninputs; }

void ex_query_stream_input(const ex_query_t *q, uint32_t i, ex_stream_input_t *out) {
  *out = q->inputs[i];
}

int ex_query_checkpoint(ex_query_t *q, fl_buf_t *w, fl_err_t *err) {
  fl_buf_append_uvarint(w, q->nops);
  fl_buf_t one;
  fl_buf_init(&one);
  int rc = FL_OK;
  for (uint32_t i = 0; i < q->nops && !rc; i++) {
    fl_buf_clear(&one);
    rc = ex_op_checkpoint(q->ops[i], &one, err);
    if (rc) break;
    fl_buf_append_uvarint(w, one.len);
    fl_buf_append(w, one.data, one.len);
  }
  fl_buf_free(&one);
  return rc;
}

int ex_query_restore(ex_query_t *q, fl_rd_t *r, fl_err_t *err) {
  uint64_t n;
  int rc = fl_rd_uvarint(r, &n, err);
  if (rc) return rc;
  if (n != q->nops)
    return fl_err_set(err, FL_ECORRUPT,
                      "checkpointed state holds %llu operators, the query has %u (the job changed)",
                      (unsigned long long)n, q->nops);
  for (uint32_t i = 0; i < q->nops; i++) {
    uint64_t len;
    const uint8_t *p;
    if ((rc = fl_rd_uvarint(r, &len, err)) || (rc = fl_rd_bytes(r, (size_t)len, &p, err))) return rc;
    fl_rd_t one;
    fl_rd_init(&one, p, (size_t)len, "operator state");
    if ((rc = ex_op_restore(q->ops[i], &one, err))) return rc;
  }
  return FL_OK;
}

uint32_t ex_query_window_aggs(const ex_query_t *q, ex_op_t *const **ops) {
  *ops = q->waggs;
  return q->nwaggs;
}
