/*
 * test_parallel.c - the pieces of parallel pipelines driven by real pool
 * threads: lanes gathered into one operator (each batch once, one
 * finish), two-phase aggregation (a PARTIAL operator per lane
 * repartitioned into FINAL ones that finish in parallel) against a
 * single COMPLETE operator, with a budget small enough that partials
 * flush early and finals spill, grouping sets and global aggregates over
 * no rows; and hash joins probed by several lanes over one shared build
 * side against the brute-force reference, every join type, in memory and
 * spilled, plus a stress run of many lanes over a table of hot keys.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "base/pool.h"
#include "exec/op_exchange.h"
#include "exec/op_hash_agg.h"
#include "exec/op_hash_join.h"
#include "join_test_util.h"
#include "test.h"

/* ---- driving lanes from pool threads ---- */

typedef struct drive {
  ty_batch_t *const *batches;
  uint32_t nbatches, nlanes;
  ex_op_t **lanes;
  pthread_mutex_t lock;
  int rc;
  fl_err_t err;
} drive_t;

typedef struct drive_lane {
  drive_t *d;
  uint32_t lane;
} drive_lane_t;

/* Lane w pushes batches w, w + N, ... then finishes its lane. */
static void drive_task(void *arg, uint32_t worker) {
  (void)worker;
  drive_lane_t *dl = arg;
  drive_t *d = dl->d;
  fl_err_t e;
  fl_err_clear(&e);
  int rc = FL_OK;
  for (uint32_t i = dl->lane; i < d->nbatches && !rc; i += d->nlanes)
    rc = ex_op_push(d->lanes[dl->lane], d->batches[i], &e);
  if (!rc) rc = ex_op_finish(d->lanes[dl->lane], &e);
  if (rc) {
    pthread_mutex_lock(&d->lock);
    if (!d->rc) {
      d->rc = rc;
      d->err = e;
    }
    pthread_mutex_unlock(&d->lock);
  }
}

static int drive_lanes(fl_pool_t *pool, ty_batch_t *const *batches, uint32_t nbatches,
                       ex_op_t **lanes, uint32_t nlanes, fl_err_t *err) {
  drive_t d = {.batches = batches, .nbatches = nbatches, .nlanes = nlanes, .lanes = lanes};
  pthread_mutex_init(&d.lock, NULL);
  drive_lane_t dl[64];
  fl_taskgroup_t g;
  fl_taskgroup_init(&g, pool);
  for (uint32_t w = 0; w < nlanes; w++) {
    dl[w] = (drive_lane_t){.d = &d, .lane = w};
    fl_pool_submit(&g, drive_task, &dl[w]);
  }
  fl_taskgroup_wait(&g);
  pthread_mutex_destroy(&d.lock);
  if (d.rc) *err = d.err;
  return d.rc;
}

/* The rows of several sinks together, sorted. */
static char **rows_of(ex_sink_t **sinks, uint32_t n) {
  size_t total = 0, k = 0;
  char ***parts = fl_calloc(n, sizeof *parts);
  for (uint32_t i = 0; i < n; i++) {
    parts[i] = tu_rows(sinks[i], false);
    total += sinks[i]->rows;
  }
  char **all = fl_calloc(total + 1, sizeof *all);
  for (uint32_t i = 0; i < n; i++) {
    for (size_t j = 0; parts[i][j]; j++) all[k++] = parts[i][j];
    fl_free(parts[i]);
  }
  fl_free(parts);
  qsort(all, k, sizeof *all, tu_strcmp);
  return all;
}

/* ---- gather ---- */

TEST(parallel_gather_counts_every_batch_once) {
  fl_arena_t *a = fl_arena_new(0);
  jt_side_t S;
  jt_side_gen(&S, a, &(jt_gen_t){.rows = 40000, .domain = 500, .null_pct = 5, .seed = 3});
  fl_pool_t *pool;
  fl_err_t err;
  CHECK_OK(fl_pool_new(3, &pool, &err), &err);
  ex_sink_t *sink = ex_sink_new(S.schema);
  ex_op_t *g = ex_gather_new(S.schema, 4, &sink->op);
  ex_op_t *lanes[4] = {g, g, g, g};
  CHECK_OK(drive_lanes(pool, S.batches, S.nbatches, lanes, 4, &err), &err);
  CHECK(sink->finished);
  CHECK_EQ(sink->rows, S.nrows);
  /* A fifth finish is a programming error, reported, not ignored. */
  CHECK_ERR(ex_op_finish(g, &err), FL_EINTERNAL);
  ex_op_destroy(g);
  ex_op_destroy(&sink->op);
  fl_pool_free(pool);
  jt_side_free(&S);
  fl_arena_free(a);
}

/* ---- two-phase aggregation ---- */

typedef struct agg_in {
  const char *fn;
  int32_t col;
  bool distinct;
} agg_in_t;

static const agg_in_t aggs_in[] = {{"count", -1, false}, {"count", 2, false}, {"sum", 2, false},
                                   {"min", 3, false},    {"max", 3, false},   {"count", 2, true},
                                   {"avg", 2, false},    {"max", 1, false}};
#define NAGGS (sizeof aggs_in / sizeof aggs_in[0])

static int bind_all(fl_arena_t *a, const ty_schema_t *s, ex_agg_spec_t *specs, fl_err_t *err) {
  for (uint32_t i = 0; i < NAGGS; i++) {
    const ty_type_t *t = aggs_in[i].col >= 0 ? s->root.fields[aggs_in[i].col].type : NULL;
    int rc = ex_agg_bind(a, aggs_in[i].fn, t, aggs_in[i].distinct, NULL, 0, &specs[i].agg, err);
    if (rc) return rc;
    specs[i].arg_col = aggs_in[i].col;
    specs[i].filter_col = -1;
  }
  return FL_OK;
}

typedef struct agg_case {
  uint32_t nkeys; /* keys k1 (, k2) */
  const uint64_t *sets;
  uint32_t nsets;
  size_t budget;
  uint32_t lanes;
} agg_case_t;

/* GROUP BY over S as one COMPLETE operator (lanes 0) or as `lanes`
 * partials repartitioned into finals; sorted rows. */
static char **run_agg(const jt_side_t *S, const agg_case_t *c, uint32_t lanes, fl_pool_t *pool,
                      uint64_t *flushes, fl_err_t *err, int *rc_out) {
  fl_arena_t *a = fl_arena_new(0);
  ex_mem_t mem;
  ex_mem_init(&mem, c->budget);
  char dir[600];
  snprintf(dir, sizeof dir, "%s/spill", t_tmpdir());
  ex_opctx_t ctx = {.mem = &mem, .spill_dir = dir};
  uint32_t keys[3] = {0, 1, 2};
  ex_agg_spec_t specs[NAGGS];
  ex_hash_agg_opts_t o = {.in_schema = S->schema,
                          .key_cols = keys,
                          .nkeys = c->nkeys,
                          .grouping_sets = c->sets,
                          .nsets = c->nsets,
                          .aggs = specs,
                          .naggs = NAGGS};
  char **rows = NULL;
  int rc = bind_all(a, S->schema, specs, err);
  ex_op_t *ops[32] = {0}, *finals[32] = {0};
  ex_sink_t *sinks[32] = {0};
  ex_repartition_t *r = NULL;
  uint32_t N = lanes ? lanes : 1, P = 0;
  if (!rc && !lanes) {
    rc = ex_hash_agg_new(&ctx, a, &o, NULL, &ops[0], err);
    if (!rc) {
      sinks[0] = ex_sink_new(ops[0]->out_schema);
      ops[0]->next = &sinks[0]->op;
      for (uint32_t i = 0; i < S->nbatches && !rc; i++) rc = ex_op_push(ops[0], S->batches[i], err);
      if (!rc) rc = ex_op_finish(ops[0], err);
    }
  } else if (!rc) {
    o.phase = EX_AGG_PARTIAL;
    for (uint32_t w = 0; w < N && !rc; w++) {
      ex_agg_spec_t *sp = fl_arena_zalloc(a, sizeof specs);
      if (!(rc = bind_all(a, S->schema, sp, err))) {
        o.aggs = sp;
        rc = ex_hash_agg_new(&ctx, a, &o, NULL, &ops[w], err);
      }
    }
    uint32_t ntk = c->nkeys + (c->nsets ? 1 : 0);
    P = ntk ? N : 1;
    ex_hash_agg_opts_t f = o;
    f.phase = EX_AGG_FINAL;
    if (!rc) f.in_schema = ops[0]->out_schema;
    for (uint32_t p = 0; p < N && !rc; p++) {
      ex_agg_spec_t *sp = fl_arena_zalloc(a, sizeof specs);
      if (!(rc = bind_all(a, S->schema, sp, err))) {
        f.aggs = sp;
        if (p < P) rc = ex_hash_agg_new(&ctx, a, &f, NULL, &finals[p], err);
      }
      /* Lanes beyond the finals only see finish(). */
      if (!rc) sinks[p] = ex_sink_new(p < P ? finals[p]->out_schema : S->schema);
      if (!rc && p < P) finals[p]->next = &sinks[p]->op;
    }
    if (!rc) {
      ex_op_t *also[32];
      for (uint32_t p = P; p < N; p++) also[p - P] = &sinks[p]->op;
      r = ex_repartition_new(ops[0]->out_schema, keys, ntk, finals, P, also, N - P, N, pool);
      /* Keys of the partial output are its first columns. */
      for (uint32_t w = 0; w < N; w++) ops[w]->next = ex_repartition_lane(r, w);
      rc = drive_lanes(pool, S->batches, S->nbatches, ops, N, err);
    }
  }
  for (uint32_t p = 0; p < N && !rc; p++)
    if (!sinks[p]->finished) rc = fl_err_set(err, FL_EINTERNAL, "sink %u not finished", p);
  if (!rc) rows = rows_of(sinks, N);
  if (flushes && lanes && !rc) {
    *flushes = 0;
    for (uint32_t w = 0; w < N; w++) *flushes += ex_hash_agg_stats(ops[w])->groups_out;
  }
  for (uint32_t w = 0; w < N; w++) {
    ex_op_destroy(ops[w]);
    ex_op_destroy(finals[w]);
    if (sinks[w]) ex_op_destroy(&sinks[w]->op);
  }
  ex_repartition_free(r);
  if (!rc && mem.used != 0) rc = fl_err_set(err, FL_EINTERNAL, "budget holds %zu", mem.used);
  fl_arena_free(a);
  *rc_out = rc;
  if (rc && rows) {
    tu_rows_free(rows);
    rows = NULL;
  }
  return rows;
}

static bool check_agg(const jt_side_t *S, const agg_case_t *c, fl_pool_t *pool) {
  fl_err_t err;
  int rc;
  agg_case_t whole = *c;
  whole.budget = 0;
  char **want = run_agg(S, &whole, 0, pool, NULL, &err, &rc);
  if (rc) {
    t_fail(__FILE__, __LINE__, "single operator: %s", err.msg);
    return false;
  }
  uint64_t partial_rows = 0;
  char **got = run_agg(S, c, c->lanes, pool, &partial_rows, &err, &rc);
  if (rc) {
    t_fail(__FILE__, __LINE__, "%u lanes: %s", c->lanes, err.msg);
    tu_rows_free(want);
    return false;
  }
  char msg[512];
  bool ok = jt_same(got, want, msg, sizeof msg);
  if (!ok)
    t_fail(__FILE__, __LINE__, "%u keys, %u sets, budget %zu, %u lanes: %s", c->nkeys, c->nsets,
           c->budget, c->lanes, msg);
  tu_rows_free(got);
  tu_rows_free(want);
  return ok;
}

TEST(parallel_agg_matches_single_operator) {
  fl_arena_t *a = fl_arena_new(0);
  jt_side_t S, E;
  jt_side_gen(&S, a, &(jt_gen_t){.rows = 30000, .domain = 8000, .null_pct = 4, .seed = 11});
  jt_side_gen(&E, a, &(jt_gen_t){.rows = 0, .domain = 1, .seed = 1});
  fl_pool_t *pool;
  fl_err_t err;
  CHECK_OK(fl_pool_new(3, &pool, &err), &err);
  static const uint64_t sets[] = {3, 1, 0};
  const agg_case_t cases[] = {
      {.nkeys = 2, .lanes = 4},
      {.nkeys = 1, .lanes = 3},
      {.nkeys = 0, .lanes = 4},
      {.nkeys = 2, .sets = sets, .nsets = 3, .lanes = 4},
      /* A budget that makes partials flush early and finals spill. */
      {.nkeys = 2, .budget = 256 << 10, .lanes = 4},
      {.nkeys = 2, .sets = sets, .nsets = 3, .budget = 256 << 10, .lanes = 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) CHECK(check_agg(&S, &cases[i], pool));
  /* Over no rows: the global aggregate and the empty set still give one
   * row each, exactly once whatever the number of finals. */
  CHECK(check_agg(&E, &(agg_case_t){.nkeys = 0, .lanes = 4}, pool));
  CHECK(check_agg(&E, &(agg_case_t){.nkeys = 2, .sets = sets, .nsets = 3, .lanes = 4}, pool));
  /* With the small budget the partials hand on more rows than there are
   * groups: they flushed instead of spilling. */
  int rc;
  uint64_t partial_rows = 0;
  char **rows = run_agg(&S, &(agg_case_t){.nkeys = 2, .budget = 256 << 10, .lanes = 4}, 4, pool,
                        &partial_rows, &err, &rc);
  CHECK_OK(rc, &err);
  size_t groups = 0;
  while (rows[groups]) groups++;
  CHECK(partial_rows > groups);
  tu_rows_free(rows);
  fl_pool_free(pool);
  jt_side_free(&S);
  jt_side_free(&E);
  fl_arena_free(a);
}

/* ---- hash join with probe lanes ---- */

typedef struct join_run {
  uint32_t lanes;
  size_t budget;
  ex_hash_join_stats_t stats;
} join_run_t;

static char **run_lanes_join(const jt_side_t *P, const jt_side_t *B, const ex_join_spec_t *sp,
                             jt_filter_state_t *fstates, const uint32_t *keys, uint32_t nkeys,
                             join_run_t *jr, fl_pool_t *pool, fl_err_t *err, int *rc_out) {
  fl_arena_t *a = fl_arena_new(0);
  ex_mem_t mem;
  ex_mem_init(&mem, jr->budget);
  char dir[600];
  snprintf(dir, sizeof dir, "%s/spill", t_tmpdir());
  ex_opctx_t ctx = {.mem = &mem, .spill_dir = dir};
  ex_hash_join_opts_t o = {.join = *sp, .probe_keys = keys, .build_keys = keys, .nkeys = nkeys};
  uint32_t N = jr->lanes;
  ex_op_t *op = NULL, *lanes[64] = {0};
  ex_sink_t *sinks[64] = {0};
  char **rows = NULL;
  int rc = ex_hash_join_new(&ctx, a, &o, NULL, &op, err);
  if (!rc) {
    sinks[0] = ex_sink_new(op->out_schema);
    op->next = &sinks[0]->op;
    lanes[0] = op;
    for (uint32_t w = 1; w < N && !rc; w++) {
      sinks[w] = ex_sink_new(op->out_schema);
      rc = ex_hash_join_probe_lane(op, a, sp->filter ? jt_filter : NULL,
                                   sp->filter ? &fstates[w] : NULL, &sinks[w]->op, &lanes[w], err);
    }
  }
  ex_op_t *g = NULL;
  if (!rc) {
    /* The build side gathered from N lanes too. */
    g = ex_gather_new(sp->build_schema, N, ex_hash_join_build_side(op));
    ex_op_t *bl[64];
    for (uint32_t w = 0; w < N; w++) bl[w] = g;
    rc = drive_lanes(pool, B->batches, B->nbatches, bl, N, err);
  }
  if (!rc) rc = drive_lanes(pool, P->batches, P->nbatches, lanes, N, err);
  for (uint32_t w = 0; w < N && !rc; w++)
    if (!sinks[w]->finished) rc = fl_err_set(err, FL_EINTERNAL, "lane %u not finished", w);
  if (!rc) {
    rows = rows_of(sinks, N);
    jr->stats = *ex_hash_join_stats(op);
  }
  ex_op_destroy(g);
  ex_op_destroy(op);
  for (uint32_t w = 0; w < N; w++)
    if (sinks[w]) ex_op_destroy(&sinks[w]->op);
  if (!rc && mem.used) rc = fl_err_set(err, FL_EINTERNAL, "budget holds %zu", mem.used);
  fl_arena_free(a);
  *rc_out = rc;
  return rows;
}

static bool check_lanes_join(const jt_side_t *P, const jt_side_t *B, ex_join_type_t t, bool filter,
                             uint32_t nkeys, join_run_t *jr, fl_pool_t *pool) {
  jt_filter_state_t fs[64] = {0};
  ex_join_spec_t sp = jt_spec(P, B, t, filter, &fs[0]);
  static const uint32_t keys[2] = {0, 1};
  fl_err_t err;
  int rc;
  char **got = run_lanes_join(P, B, &sp, fs, keys, nkeys, jr, pool, &err, &rc);
  if (rc) {
    t_fail(__FILE__, __LINE__, "%s join, %u lanes: %s", ex_join_type_name(t), jr->lanes, err.msg);
    return false;
  }
  char **want = jt_reference(P, B, &sp, keys, keys, nkeys);
  char msg[512];
  bool ok = jt_same(got, want, msg, sizeof msg);
  if (!ok)
    t_fail(__FILE__, __LINE__, "%s join%s, %u lanes, budget %zu: %s", ex_join_type_name(t),
           filter ? " with residual" : "", jr->lanes, jr->budget, msg);
  tu_rows_free(got);
  tu_rows_free(want);
  return ok;
}

TEST(parallel_join_lanes_match_reference) {
  fl_arena_t *a = fl_arena_new(0);
  jt_side_t P, B;
  jt_side_gen(&P, a,
              &(jt_gen_t){.rows = 4000, .domain = 600, .null_pct = 5, .hot_pct = 3, .seed = 5});
  jt_side_gen(&B, a,
              &(jt_gen_t){.rows = 2000, .domain = 400, .null_pct = 5, .hot_pct = 2, .seed = 6});
  fl_pool_t *pool;
  fl_err_t err;
  CHECK_OK(fl_pool_new(3, &pool, &err), &err);
  static const ex_join_type_t types[] = {EX_JOIN_INNER,      EX_JOIN_LEFT,      EX_JOIN_RIGHT,
                                         EX_JOIN_FULL,       EX_JOIN_SEMI,      EX_JOIN_ANTI,
                                         EX_JOIN_RIGHT_SEMI, EX_JOIN_RIGHT_ANTI};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    for (int f = 0; f < 2; f++) {
      join_run_t jr = {.lanes = 4};
      CHECK(check_lanes_join(&P, &B, types[i], f, 1 + (i % 2), &jr, pool));
      CHECK_EQ(jr.stats.probe_rows, P.nrows);
      CHECK_EQ(jr.stats.partitions, 0);
      /* Spilled: probe lanes partition under the join's lock. */
      jr = (join_run_t){.lanes = 3, .budget = 64 << 10};
      CHECK(check_lanes_join(&P, &B, types[i], f, 1, &jr, pool));
      CHECK(jr.stats.partitions > 0);
    }
  join_run_t jr = {.lanes = 4};
  CHECK(check_lanes_join(&P, &B, EX_JOIN_NULL_AWARE_ANTI, false, 1, &jr, pool));
  fl_pool_free(pool);
  jt_side_free(&P);
  jt_side_free(&B);
  fl_arena_free(a);
}

/* Many lanes on few cores over a build side of few, heavily duplicated
 * keys: every lane walks the same long chains of the one shared table. */
TEST(parallel_join_stress_shared_table) {
  fl_arena_t *a = fl_arena_new(0);
  jt_side_t P, B;
  jt_side_gen(&P, a, &(jt_gen_t){.rows = 12000, .domain = 40, .hot_pct = 10, .seed = 21});
  jt_side_gen(&B, a, &(jt_gen_t){.rows = 600, .domain = 40, .hot_pct = 10, .seed = 22});
  fl_pool_t *pool;
  fl_err_t err;
  CHECK_OK(fl_pool_new(7, &pool, &err), &err);
  for (int round = 0; round < 3; round++) {
    join_run_t jr = {.lanes = 16};
    CHECK(check_lanes_join(&P, &B, round == 1 ? EX_JOIN_FULL : EX_JOIN_INNER, round == 2, 1, &jr,
                           pool));
    CHECK_EQ(jr.stats.probe_rows, P.nrows);
  }
  fl_pool_free(pool);
  jt_side_free(&P);
  jt_side_free(&B);
  fl_arena_free(a);
}
