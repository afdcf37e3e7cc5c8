/*
 * test_nested_loop_join.c - the nested loop join against the brute-force
 * join of join_test_util.h: cross joins, non-equi conditions (a band
 * condition and an arithmetic one) with every join type it takes over
 * tables with NULLs, empty sides, output batch sizes, the memory limit and
 * set-up errors; spilling to blocks under a tiny budget.
 */
#include "exec/op_nested_loop_join.h"
#include "join_test_util.h"
#include "test.h"

typedef struct nl_run {
  ex_nl_join_stats_t stats;
  uint32_t max_batch;
  size_t mem_left;
} nl_run_t;

static char **run_nl(const jt_side_t *P, const jt_side_t *B, const ex_join_spec_t *sp,
                     size_t budget, nl_run_t *run, int *rc_out, fl_err_t *err) {
  fl_arena_t *a = fl_arena_new(0);
  ex_mem_t mem;
  ex_mem_init(&mem, budget);
  char dir[600];
  snprintf(dir, sizeof dir, "%s/spill", t_tmpdir());
  ex_opctx_t ctx = {.mem = &mem, .spill_dir = dir};
  ex_op_t *op;
  ex_sink_t *sink = NULL;
  char **rows = NULL;
  int rc = ex_nl_join_new(&ctx, a, sp, NULL, &op, err);
  if (!rc) {
    sink = ex_sink_new(op->out_schema);
    op->next = &sink->op;
    ex_op_t *bop = ex_nl_join_build_side(op);
    for (uint32_t i = 0; i < B->nbatches && !rc; i++) rc = ex_op_push(bop, B->batches[i], err);
    if (!rc) rc = ex_op_finish(bop, err);
    for (uint32_t i = 0; i < P->nbatches && !rc; i++) rc = ex_op_push(op, P->batches[i], err);
    if (!rc) rc = ex_op_finish(op, err);
    if (!rc && !sink->finished) rc = fl_err_set(err, FL_EINTERNAL, "sink not finished");
    if (run) run->stats = *ex_nl_join_stats(op);
    ex_op_destroy(op);
  }
  if (!rc) {
    rows = tu_rows(sink, false);
    if (run) {
      run->max_batch = jt_max_batch(sink);
      run->mem_left = mem.used;
    }
  }
  if (sink) ex_op_destroy(&sink->op);
  fl_arena_free(a);
  *rc_out = rc;
  return rows;
}

/* p.k1 BETWEEN b.k1 - 2 AND b.k1 + 2 (NULL when either is NULL). */
static bool band(ty_vec_t *const *pc, uint32_t i, ty_vec_t *const *bc, uint32_t j) {
  if (ty_vec_is_null(pc[0], i) || ty_vec_is_null(bc[0], j)) return false;
  int32_t p = TY_VEC_DATA(pc[0], int32_t)[i], b = TY_VEC_DATA(bc[0], int32_t)[j];
  return p >= b - 2 && p <= b + 2;
}

static bool check_nl_budget(const jt_side_t *P, const jt_side_t *B, ex_join_type_t t,
                            jt_pred_fn pred, bool filter, size_t budget, nl_run_t *run) {
  jt_filter_state_t fs = {.pred = pred};
  ex_join_spec_t sp = jt_spec(P, B, t, filter, &fs);
  fl_err_t err;
  int rc;
  nl_run_t local;
  if (!run) run = &local;
  char **got = run_nl(P, B, &sp, budget, run, &rc, &err);
  if (rc) {
    t_fail(__FILE__, __LINE__, "%s: %s: %s", ex_join_type_name(t), fl_code_name(rc), err.msg);
    return false;
  }
  char **want = jt_reference(P, B, &sp, NULL, NULL, 0);
  char msg[512];
  bool ok = jt_same(got, want, msg, sizeof msg);
  if (!ok)
    t_fail(__FILE__, __LINE__, "%s join%s: %s", ex_join_type_name(t),
           filter ? (pred == band ? " on a band" : " on v") : " without condition", msg);
  if (ok && (run->max_batch > TY_BATCH_ROWS || fs.max_rows > TY_BATCH_ROWS)) {
    t_fail(__FILE__, __LINE__, "batch of %u rows, residual saw %u", run->max_batch, fs.max_rows);
    ok = false;
  }
  if (ok && run->mem_left) {
    t_fail(__FILE__, __LINE__, "budget still holds %zu bytes", run->mem_left);
    ok = false;
  }
  tu_rows_free(got);
  tu_rows_free(want);
  return ok;
}

static bool check_nl(const jt_side_t *P, const jt_side_t *B, ex_join_type_t t, jt_pred_fn pred,
                     bool filter, nl_run_t *run) {
  return check_nl_budget(P, B, t, pred, filter, 0, run);
}

static bool check_all(const jt_side_t *P, const jt_side_t *B) {
  for (int t = 0; t < EX_JOIN_NULL_AWARE_ANTI; t++) {
    if (!check_nl(P, B, (ex_join_type_t)t, NULL, false, NULL) ||
        !check_nl(P, B, (ex_join_type_t)t, NULL, true, NULL) ||
        !check_nl(P, B, (ex_join_type_t)t, band, true, NULL))
      return false;
  }
  return true;
}

TEST(nl_join_matches_brute_force) {
  fl_arena_t *a = fl_arena_new(0);
  jt_side_t P, B;
  jt_side_gen(&P, a, &(jt_gen_t){.rows = 250, .domain = 200, .null_pct = 8, .seed = 21});
  jt_side_gen(&B, a, &(jt_gen_t){.rows = 180, .domain = 200, .null_pct = 8, .seed = 22});
  bool ok = check_all(&P, &B);
  jt_side_free(&P);
  jt_side_free(&B);
  fl_arena_free(a);
  CHECK(ok);
}

TEST(nl_join_cross_join_batches) {
  /* About 1500 x 60 rows (fewer: some batches arrive through a
   * selection), in full batches. */
  fl_arena_t *a = fl_arena_new(0);
  jt_side_t P, B;
  jt_side_gen(&P, a, &(jt_gen_t){.rows = 1500, .domain = 50, .null_pct = 5, .seed = 23});
  jt_side_gen(&B, a, &(jt_gen_t){.rows = 60, .domain = 50, .null_pct = 5, .seed = 24});
  nl_run_t run;
  bool ok = check_nl(&P, &B, EX_JOIN_INNER, NULL, false, &run);
  if (ok && (run.stats.rows_out != (uint64_t)P.nrows * B.nrows || run.max_batch != TY_BATCH_ROWS)) {
    t_fail(__FILE__, __LINE__, "%" PRIu64 " rows, largest batch %u", run.stats.rows_out,
           run.max_batch);
    ok = false;
  }
  jt_side_free(&P);
  jt_side_free(&B);
  fl_arena_free(a);
  CHECK(ok);
}

TEST(nl_join_empty_sides) {
  fl_arena_t *a = fl_arena_new(0);
  jt_side_t P, E;
  jt_side_gen(&P, a, &(jt_gen_t){.rows = 120, .domain = 40, .null_pct = 10, .seed = 25});
  jt_side_gen(&E, a, &(jt_gen_t){.rows = 0, .domain = 1, .seed = 26});
  bool ok = check_all(&P, &E) && check_all(&E, &P) && check_all(&E, &E);
  jt_side_free(&P);
  jt_side_free(&E);
  fl_arena_free(a);
  CHECK(ok);
}

TEST(nl_join_spill_gives_identical_results) {
  /* A budget of a few hundred build rows: the build side is joined in
   * blocks, the probe side streamed past each from its spill file. */
  fl_arena_t *a = fl_arena_new(0);
  jt_side_t P, B;
  jt_side_gen(&P, a, &(jt_gen_t){.rows = 100, .domain = 300, .null_pct = 8, .seed = 29});
  jt_side_gen(&B, a, &(jt_gen_t){.rows = 1500, .domain = 300, .null_pct = 8, .seed = 30});
  bool ok = true;
  for (int t = 0; t < EX_JOIN_NULL_AWARE_ANTI && ok; t++) {
    nl_run_t run;
    ok = check_nl_budget(&P, &B, (ex_join_type_t)t, band, true, 12 * 1024, &run) &&
         check_nl_budget(&P, &B, (ex_join_type_t)t, NULL, true, 12 * 1024, &run);
    if (ok && run.stats.blocks < 3) {
      t_fail(__FILE__, __LINE__, "%s: %" PRIu64 " blocks", ex_join_type_name((ex_join_type_t)t),
             run.stats.blocks);
      ok = false;
    }
  }
  jt_side_free(&P);
  jt_side_free(&B);
  /* An empty probe side with a spilled build side. */
  jt_side_gen(&P, a, &(jt_gen_t){.rows = 0, .domain = 1, .seed = 31});
  jt_side_gen(&B, a, &(jt_gen_t){.rows = 1500, .domain = 300, .null_pct = 8, .seed = 32});
  for (int t = 0; t < EX_JOIN_NULL_AWARE_ANTI && ok; t++)
    ok = check_nl_budget(&P, &B, (ex_join_type_t)t, band, true, 12 * 1024, NULL);
  jt_side_free(&P);
  jt_side_free(&B);
  fl_arena_free(a);
  CHECK(ok);
}

TEST(nl_join_errors) {
  fl_arena_t *a = fl_arena_new(0);
  jt_side_t P, B;
  jt_side_gen(&P, a, &(jt_gen_t){.rows = 50, .domain = 10, .seed = 27});
  jt_side_gen(&B, a, &(jt_gen_t){.rows = 200, .domain = 10, .seed = 28});
  ex_join_spec_t sp = jt_spec(&P, &B, EX_JOIN_INNER, false, NULL);
  fl_err_t err;
  ex_mem_t mem;
  ex_mem_init(&mem, 0);
  ex_opctx_t ctx = {.mem = &mem};
  ex_op_t *op;
  sp.type = EX_JOIN_NULL_AWARE_ANTI;
  sp.nbuild_out = 0;
  CHECK_ERR(ex_nl_join_new(&ctx, a, &sp, NULL, &op, &err), FL_EUNSUPPORTED);
  sp.type = EX_JOIN_ANTI;
  sp.nbuild_out = 3;
  CHECK_ERR(ex_nl_join_new(&ctx, a, &sp, NULL, &op, &err), FL_EINVALID);
  sp.type = EX_JOIN_LEFT;
  CHECK_OK(ex_nl_join_new(&ctx, a, &sp, NULL, &op, &err), &err);
  CHECK_ERR(ex_op_push(op, P.batches[0], &err), FL_EINTERNAL);
  ex_op_t *bop = ex_nl_join_build_side(op);
  CHECK_OK(ex_op_push(bop, B.batches[0], &err), &err);
  CHECK_OK(ex_op_finish(bop, &err), &err);
  CHECK_ERR(ex_op_finish(bop, &err), FL_EINTERNAL);
  CHECK_OK(ex_op_push(op, P.batches[0], &err), &err);
  CHECK_OK(ex_op_finish(op, &err), &err);
  CHECK_ERR(ex_op_finish(op, &err), FL_EINTERNAL);
  ex_op_destroy(op);
  CHECK_EQ(mem.used, 0);
  jt_side_free(&P);
  jt_side_free(&B);
  fl_arena_free(a);
}
