/*
 * test_hash_join.c - the hash join against a brute-force nested-loop join
 * computed here: every join type over random tables with NULL and NaN
 * keys, duplicates and a hot key, one and two key columns (a string among
 * them), with and without a residual condition; empty sides; a budget so
 * small that the join spills and repartitions, giving identical rows;
 * NOT IN's NULL rules; output batch sizes; and set-up errors.
 */
#include "exec/ex_spill.h"
#include "exec/op_hash_join.h"
#include "join_test_util.h"
#include "test.h"

typedef struct run {
  ex_hash_join_stats_t stats;
  uint32_t max_batch;
  size_t mem_left;
} run_t;

/* Runs the join into a sink and returns its rows sorted (NULL on error). */
static char **run_join(const jt_side_t *P, const jt_side_t *B, const ex_join_spec_t *sp,
                       const uint32_t *pkeys, const uint32_t *bkeys, uint32_t nkeys, size_t budget,
                       run_t *run, int *rc_out, fl_err_t *err) {
  fl_arena_t *a = fl_arena_new(0);
  ex_mem_t mem;
  ex_mem_init(&mem, budget);
  char dir[600];
  snprintf(dir, sizeof dir, "%s/spill", t_tmpdir());
  ex_opctx_t ctx = {.mem = &mem, .spill_dir = dir};
  ex_hash_join_opts_t o = {.join = *sp, .probe_keys = pkeys, .build_keys = bkeys, .nkeys = nkeys};
  ex_op_t *op;
  ex_sink_t *sink = NULL;
  char **rows = NULL;
  int rc = ex_hash_join_new(&ctx, a, &o, NULL, &op, err);
  if (!rc) {
    sink = ex_sink_new(op->out_schema);
    op->next = &sink->op;
    ex_op_t *bop = ex_hash_join_build_side(op);
    for (uint32_t i = 0; i < B->nbatches && !rc; i++) rc = ex_op_push(bop, B->batches[i], err);
    if (!rc) rc = ex_op_finish(bop, err);
    for (uint32_t i = 0; i < P->nbatches && !rc; i++) rc = ex_op_push(op, P->batches[i], err);
    if (!rc) rc = ex_op_finish(op, err);
    if (!rc && !sink->finished) rc = fl_err_set(err, FL_EINTERNAL, "sink not finished");
    if (run) run->stats = *ex_hash_join_stats(op);
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

/* Checks one join against the reference; returns false on a difference. */
static bool check_join(const jt_side_t *P, const jt_side_t *B, ex_join_type_t t, bool filter,
                       const uint32_t *pkeys, const uint32_t *bkeys, uint32_t nkeys, size_t budget,
                       run_t *run) {
  jt_filter_state_t fs = {0};
  ex_join_spec_t sp = jt_spec(P, B, t, filter, &fs);
  fl_err_t err;
  int rc;
  run_t local;
  if (!run) run = &local;
  char **got = run_join(P, B, &sp, pkeys, bkeys, nkeys, budget, run, &rc, &err);
  if (rc) {
    t_fail(__FILE__, __LINE__, "%s join%s: %s: %s", ex_join_type_name(t),
           filter ? " with residual" : "", fl_code_name(rc), err.msg);
    return false;
  }
  char **want = jt_reference(P, B, &sp, pkeys, bkeys, nkeys);
  char msg[512];
  bool ok = jt_same(got, want, msg, sizeof msg);
  if (!ok)
    t_fail(__FILE__, __LINE__, "%s join%s, %u keys, budget %zu: %s", ex_join_type_name(t),
           filter ? " with residual" : "", nkeys, budget, msg);
  if (ok && run->max_batch > TY_BATCH_ROWS) {
    t_fail(__FILE__, __LINE__, "%s join: output batch of %u rows", ex_join_type_name(t),
           run->max_batch);
    ok = false;
  }
  if (ok && fs.max_rows > TY_BATCH_ROWS) {
    t_fail(__FILE__, __LINE__, "residual saw %u rows", fs.max_rows);
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

static const uint32_t key1[1] = {0};
static const uint32_t key2[2] = {0, 1};
static const uint32_t key_d[1] = {3};

/* Every join type with the keys given, with and without a residual. */
static bool check_all_types(const jt_side_t *P, const jt_side_t *B, const uint32_t *keys,
                            uint32_t nkeys, size_t budget) {
  for (int t = 0; t < EX_JOIN_TYPE_COUNT; t++)
    for (int f = 0; f < 2; f++) {
      if (t == EX_JOIN_NULL_AWARE_ANTI && (f || nkeys != 1)) continue;
      if (!check_join(P, B, (ex_join_type_t)t, f, keys, keys, nkeys, budget, NULL)) return false;
    }
  return true;
}

TEST(hash_join_matches_brute_force) {
  fl_arena_t *a = fl_arena_new(0);
  jt_side_t P, B;
  jt_side_gen(&P, a, &(jt_gen_t){.rows = 1200, .domain = 200, .null_pct = 6, .seed = 1});
  jt_side_gen(&B, a, &(jt_gen_t){.rows = 900, .domain = 250, .null_pct = 6, .seed = 2});
  bool ok = check_all_types(&P, &B, key1, 1, 0) && check_all_types(&P, &B, key2, 2, 0) &&
            check_all_types(&P, &B, key_d, 1, 0);
  jt_side_free(&P);
  jt_side_free(&B);
  fl_arena_free(a);
  CHECK(ok);
}

TEST(hash_join_skew_and_many_to_many) {
  /* 30% of each side on one key: about 360 x 270 = 97,000 pairs of that
   * key alone, expanded across many output batches. */
  fl_arena_t *a = fl_arena_new(0);
  jt_side_t P, B;
  jt_side_gen(&P, a,
              &(jt_gen_t){.rows = 1200, .domain = 50, .null_pct = 3, .hot_pct = 30, .seed = 3});
  jt_side_gen(&B, a,
              &(jt_gen_t){.rows = 900, .domain = 60, .null_pct = 3, .hot_pct = 30, .seed = 4});
  run_t run;
  bool ok = check_join(&P, &B, EX_JOIN_INNER, false, key1, key1, 1, 0, &run);
  if (ok && run.stats.rows_out < 60000) {
    t_fail(__FILE__, __LINE__, "only %" PRIu64 " rows out", run.stats.rows_out);
    ok = false;
  }
  if (ok && run.max_batch != TY_BATCH_ROWS) {
    t_fail(__FILE__, __LINE__, "largest output batch %u", run.max_batch);
    ok = false;
  }
  ok = ok && check_join(&P, &B, EX_JOIN_FULL, true, key1, key1, 1, 0, NULL) &&
       check_join(&P, &B, EX_JOIN_SEMI, true, key2, key2, 2, 0, NULL);
  jt_side_free(&P);
  jt_side_free(&B);
  fl_arena_free(a);
  CHECK(ok);
}

TEST(hash_join_empty_sides) {
  fl_arena_t *a = fl_arena_new(0);
  jt_side_t P, B, E;
  jt_side_gen(&P, a, &(jt_gen_t){.rows = 700, .domain = 100, .null_pct = 10, .seed = 5});
  jt_side_gen(&B, a, &(jt_gen_t){.rows = 500, .domain = 100, .null_pct = 10, .seed = 6});
  jt_side_gen(&E, a, &(jt_gen_t){.rows = 0, .domain = 1, .seed = 7});
  /* An empty batch pushed must change nothing either. */
  E.batches = fl_realloc(E.batches, sizeof *E.batches);
  E.batches[0] = ty_batch_new(E.schema, 1);
  ty_batch_seal(E.batches[0]);
  E.nbatches = 1;
  bool ok = check_all_types(&P, &E, key1, 1, 0) && check_all_types(&E, &B, key1, 1, 0) &&
            check_all_types(&E, &E, key2, 2, 0);
  jt_side_free(&P);
  jt_side_free(&B);
  jt_side_free(&E);
  fl_arena_free(a);
  CHECK(ok);
}

/* The join under `budget` gives the rows of the in-memory join. */
static bool check_spill(const jt_side_t *P, const jt_side_t *B, ex_join_type_t t, bool filter,
                        const uint32_t *keys, uint32_t nkeys, size_t budget, run_t *run) {
  jt_filter_state_t fs = {0};
  ex_join_spec_t sp = jt_spec(P, B, t, filter, &fs);
  fl_err_t err;
  int rc;
  char **mem = run_join(P, B, &sp, keys, keys, nkeys, 0, NULL, &rc, &err);
  if (rc) {
    t_fail(__FILE__, __LINE__, "%s in memory: %s", ex_join_type_name(t), err.msg);
    return false;
  }
  char **disk = run_join(P, B, &sp, keys, keys, nkeys, budget, run, &rc, &err);
  if (rc) {
    t_fail(__FILE__, __LINE__, "%s spilling: %s", ex_join_type_name(t), err.msg);
    tu_rows_free(mem);
    return false;
  }
  char msg[512];
  bool ok = jt_same(disk, mem, msg, sizeof msg);
  if (!ok)
    t_fail(__FILE__, __LINE__, "%s join%s spilled: %s", ex_join_type_name(t),
           filter ? " with residual" : "", msg);
  if (ok && run->mem_left) {
    t_fail(__FILE__, __LINE__, "budget still holds %zu bytes", run->mem_left);
    ok = false;
  }
  if (ok && (run->stats.partitions == 0 || run->stats.max_level < 1)) {
    t_fail(__FILE__, __LINE__, "%s: %" PRIu64 " partitions, max level %u", ex_join_type_name(t),
           run->stats.partitions, run->stats.max_level);
    ok = false;
  }
  tu_rows_free(mem);
  tu_rows_free(disk);
  return ok;
}

TEST(hash_join_spill_gives_identical_results) {
  fl_arena_t *a = fl_arena_new(0);
  jt_side_t P, B;
  jt_side_gen(&P, a,
              &(jt_gen_t){.rows = 5000, .domain = 4000, .null_pct = 5, .hot_pct = 2, .seed = 8});
  jt_side_gen(&B, a,
              &(jt_gen_t){.rows = 20000, .domain = 5000, .null_pct = 5, .hot_pct = 2, .seed = 9});
  bool ok = true;
  /* The budget holds about a thousand build rows: the build side spills
   * and its partitions are split again. */
  const size_t budget = 64 * 1024;
  for (int t = 0; t < EX_JOIN_TYPE_COUNT && ok; t++)
    for (int f = 0; f < 2 && ok; f++) {
      if (t == EX_JOIN_NULL_AWARE_ANTI && f) continue;
      bool two = t % 2 && t != EX_JOIN_NULL_AWARE_ANTI;
      run_t run;
      ok = check_spill(&P, &B, (ex_join_type_t)t, f, two ? key2 : key1, two ? 2 : 1, budget, &run);
    }
  jt_side_free(&P);
  jt_side_free(&B);
  /* And against the reference, on smaller sides. */
  jt_side_gen(&P, a, &(jt_gen_t){.rows = 1000, .domain = 1500, .null_pct = 5, .seed = 14});
  jt_side_gen(&B, a, &(jt_gen_t){.rows = 4000, .domain = 2000, .null_pct = 5, .seed = 15});
  ok = ok && check_join(&P, &B, EX_JOIN_FULL, true, key2, key2, 2, 32 * 1024, NULL) &&
       check_join(&P, &B, EX_JOIN_ANTI, true, key1, key1, 1, 32 * 1024, NULL);
  jt_side_free(&P);
  jt_side_free(&B);
  fl_arena_free(a);
  CHECK(ok);
}

TEST(hash_join_spill_hot_key) {
  /* Half of the build side has one key: no split can separate it, so the
   * join runs that partition over the budget rather than failing. */
  fl_arena_t *a = fl_arena_new(0);
  jt_side_t P, B;
  jt_side_gen(&P, a,
              &(jt_gen_t){.rows = 600, .domain = 2000, .null_pct = 5, .hot_pct = 3, .seed = 10});
  jt_side_gen(&B, a,
              &(jt_gen_t){.rows = 4000, .domain = 2000, .null_pct = 5, .hot_pct = 50, .seed = 11});
  run_t run;
  bool ok = check_join(&P, &B, EX_JOIN_LEFT, true, key1, key1, 1, 64 * 1024, &run) &&
            check_join(&P, &B, EX_JOIN_RIGHT, false, key1, key1, 1, 64 * 1024, &run);
  if (ok && run.stats.forced_partitions == 0) {
    t_fail(__FILE__, __LINE__, "the hot key's partition was not joined over the budget");
    ok = false;
  }
  jt_side_free(&P);
  jt_side_free(&B);
  fl_arena_free(a);
  CHECK(ok);
}

/* A one-column table of ints, NULL where the value is INT32_MIN. */
static void int_side(jt_side_t *s, fl_arena_t *a, const int32_t *v, uint32_t n) {
  jt_side_gen(s, a, &(jt_gen_t){.rows = 0, .domain = 1});
  ty_batch_t *b = ty_batch_new(s->schema, n ? n : 1);
  for (uint32_t i = 0; i < n; i++) {
    if (v[i] == INT32_MIN)
      ty_vec_append_null(b->cols[0]);
    else
      ty_vec_append_i32(b->cols[0], v[i]);
    ty_vec_append_null(b->cols[1]);
    ty_vec_append_i64(b->cols[2], i);
    ty_vec_append_f64(b->cols[3], 0);
  }
  ty_batch_seal(b);
  s->batches = fl_realloc(s->batches, sizeof *s->batches);
  s->batches[0] = b;
  s->nbatches = 1;
  s->rb = fl_realloc(s->rb, (n + 1) * sizeof *s->rb);
  s->rr = fl_realloc(s->rr, (n + 1) * sizeof *s->rr);
  for (uint32_t i = 0; i < n; i++) {
    s->rb[i] = b;
    s->rr[i] = i;
  }
  s->nrows = n;
}

/* SELECT k1 FROM p WHERE k1 NOT IN (SELECT k1 FROM b), as "1,3,NULL". */
static void not_in(const int32_t *p, uint32_t np, const int32_t *b, uint32_t nb, size_t budget,
                   char *out, size_t outlen, fl_err_t *err, int *rc) {
  fl_arena_t *a = fl_arena_new(0);
  jt_side_t P, B;
  int_side(&P, a, p, np);
  int_side(&B, a, b, nb);
  static const uint32_t k1[1] = {0};
  ex_join_spec_t sp = {.type = EX_JOIN_NULL_AWARE_ANTI,
                       .probe_schema = P.schema,
                       .build_schema = B.schema,
                       .probe_out = k1,
                       .nprobe_out = 1};
  char **rows = run_join(&P, &B, &sp, k1, k1, 1, budget, NULL, rc, err);
  out[0] = 0;
  if (rows) {
    size_t len = 0;
    for (size_t i = 0; rows[i]; i++)
      len += (size_t)snprintf(out + len, outlen - len, "%s%s", i ? "," : "", rows[i]);
    tu_rows_free(rows);
  }
  jt_side_free(&P);
  jt_side_free(&B);
  fl_arena_free(a);
}

TEST(hash_join_not_in_null_semantics) {
  const int32_t N = INT32_MIN;
  char got[256];
  fl_err_t err;
  int rc;
  int32_t p[] = {1, 2, 3, N, 4};
  /* A NULL among the subquery's values: NOT IN is never true. */
  int32_t b1[] = {2, N, 9};
  not_in(p, 5, b1, 3, 0, got, sizeof got, &err, &rc);
  CHECK_OK(rc, &err);
  CHECK_STR(got, "");
  /* No NULL: the NULL probe value gives NULL and is dropped. */
  int32_t b2[] = {2, 9, 2};
  not_in(p, 5, b2, 3, 0, got, sizeof got, &err, &rc);
  CHECK_OK(rc, &err);
  CHECK_STR(got, "1,3,4");
  /* An empty subquery: NOT IN is true for every row, NULL included. */
  not_in(p, 5, b2, 0, 0, got, sizeof got, &err, &rc);
  CHECK_OK(rc, &err);
  CHECK_STR(got, "1,2,3,4,NULL");
  /* Only NULLs in the subquery. */
  int32_t b3[] = {N};
  not_in(p, 5, b3, 1, 0, got, sizeof got, &err, &rc);
  CHECK_OK(rc, &err);
  CHECK_STR(got, "");
  /* NOT EXISTS (a plain ANTI join) keeps NULL keys: checked against the
   * reference in hash_join_matches_brute_force. Spilled NOT IN: the NULL
   * of a build side spread over partitions still empties the result. */
  int32_t big[4000];
  for (int i = 0; i < 4000; i++) big[i] = i * 2;
  big[3999] = N;
  int32_t probe[6] = {1, 2, 3, N, 7998, 7999};
  not_in(probe, 6, big, 4000, 32 * 1024, got, sizeof got, &err, &rc);
  CHECK_OK(rc, &err);
  CHECK_STR(got, "");
  big[3999] = 5;
  not_in(probe, 6, big, 4000, 32 * 1024, got, sizeof got, &err, &rc);
  CHECK_OK(rc, &err);
  CHECK_STR(got, "1,3,7998,7999");
}

TEST(hash_join_bad_setup) {
  fl_arena_t *a = fl_arena_new(0);
  jt_side_t P;
  jt_side_gen(&P, a, &(jt_gen_t){.rows = 10, .domain = 5, .seed = 12});
  ex_mem_t mem;
  ex_mem_init(&mem, 0);
  ex_opctx_t ctx = {.mem = &mem};
  ex_join_spec_t sp = jt_spec(&P, &P, EX_JOIN_INNER, false, NULL);
  fl_err_t err;
  ex_op_t *op;
  /* Keys of different types (int against string). */
  const uint32_t pk[1] = {0}, bk[1] = {1}, bad[1] = {9};
  ex_hash_join_opts_t o = {.join = sp, .probe_keys = pk, .build_keys = bk, .nkeys = 1};
  CHECK_ERR(ex_hash_join_new(&ctx, a, &o, NULL, &op, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "cast") != NULL);
  o.build_keys = bad;
  CHECK_ERR(ex_hash_join_new(&ctx, a, &o, NULL, &op, &err), FL_EINVALID);
  o.build_keys = pk;
  o.nkeys = 0;
  CHECK_ERR(ex_hash_join_new(&ctx, a, &o, NULL, &op, &err), FL_EINVALID);
  o.nkeys = 2;
  o.probe_keys = o.build_keys = key2;
  o.join.type = EX_JOIN_NULL_AWARE_ANTI;
  o.join.nbuild_out = 0;
  CHECK_ERR(ex_hash_join_new(&ctx, a, &o, NULL, &op, &err), FL_EUNSUPPORTED);
  o.join.type = EX_JOIN_SEMI;
  o.join.nbuild_out = 3;
  CHECK_ERR(ex_hash_join_new(&ctx, a, &o, NULL, &op, &err), FL_EINVALID);
  /* Probe before the build side finished, build after. */
  o.join.type = EX_JOIN_INNER;
  CHECK_OK(ex_hash_join_new(&ctx, a, &o, NULL, &op, &err), &err);
  CHECK_ERR(ex_op_push(op, P.batches[0], &err), FL_EINTERNAL);
  CHECK(strstr(err.msg, "before the build side finished") != NULL);
  CHECK_ERR(ex_op_finish(op, &err), FL_EINTERNAL);
  ex_op_t *bop = ex_hash_join_build_side(op);
  CHECK_OK(ex_op_push(bop, P.batches[0], &err), &err);
  CHECK_OK(ex_op_finish(bop, &err), &err);
  CHECK_ERR(ex_op_push(bop, P.batches[0], &err), FL_EINTERNAL);
  CHECK_OK(ex_op_push(op, P.batches[0], &err), &err);
  CHECK_OK(ex_op_finish(op, &err), &err);
  CHECK_ERR(ex_op_push(op, P.batches[0], &err), FL_EINTERNAL);
  ex_op_destroy(op);
  CHECK_EQ(mem.used, 0);
  jt_side_free(&P);
  fl_arena_free(a);
}

/* A residual that fails: the error reaches the caller with its message. */
static int failing_filter(void *arg, const ty_batch_t *pairs, uint32_t *sel, uint32_t *nsel,
                          fl_err_t *err) {
  return fl_err_set(err, FL_EINVALID, "Division by zero");
}

TEST(hash_join_residual_error) {
  fl_arena_t *a = fl_arena_new(0);
  jt_side_t P;
  jt_side_gen(&P, a, &(jt_gen_t){.rows = 50, .domain = 5, .seed = 13});
  ex_join_spec_t sp = jt_spec(&P, &P, EX_JOIN_LEFT, false, NULL);
  sp.filter = failing_filter;
  fl_err_t err;
  int rc;
  char **rows = run_join(&P, &P, &sp, key1, key1, 1, 0, NULL, &rc, &err);
  CHECK(rows == NULL);
  CHECK_ERR(rc, FL_EINVALID);
  CHECK(strstr(err.msg, "Division by zero") != NULL);
  jt_side_free(&P);
  fl_arena_free(a);
}

/* Builds a join with its own sink; *bop is its build side. */
static ex_op_t *ckpt_join(ex_opctx_t *ctx, fl_arena_t *a, const ex_hash_join_opts_t *o,
                          ex_sink_t **sink, fl_err_t *err) {
  ex_op_t *op;
  if (ex_hash_join_new(ctx, a, o, NULL, &op, err)) return NULL;
  *sink = ex_sink_new(op->out_schema);
  op->next = &(*sink)->op;
  return op;
}

/* The rows of two sinks together, sorted. */
static char **two_sinks(const ex_sink_t *x, const ex_sink_t *y) {
  char **a = tu_rows(x, false), **b = tu_rows(y, false);
  size_t na = 0, nb = 0;
  while (a[na]) na++;
  while (b[nb]) nb++;
  char **all = fl_calloc(na + nb + 1, sizeof *all);
  memcpy(all, a, na * sizeof *a);
  memcpy(all + na, b, nb * sizeof *b);
  fl_free(a);
  fl_free(b);
  qsort(all, na + nb, sizeof *all, tu_strcmp);
  return all;
}

TEST(hash_join_checkpoint_restore) {
  fl_arena_t *a = fl_arena_new(0);
  jt_side_t P, B;
  jt_side_gen(&P, a, &(jt_gen_t){.rows = 2000, .domain = 400, .null_pct = 5, .seed = 31});
  jt_side_gen(&B, a, &(jt_gen_t){.rows = 1500, .domain = 450, .null_pct = 5, .seed = 32});
  ex_mem_t mem;
  ex_mem_init(&mem, 0);
  ex_opctx_t ctx = {.mem = &mem};
  fl_err_t err;
  static const ex_join_type_t types[] = {EX_JOIN_FULL, EX_JOIN_RIGHT, EX_JOIN_LEFT, EX_JOIN_SEMI};
  for (uint32_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
    jt_filter_state_t fs = {0};
    ex_join_spec_t sp = jt_spec(&P, &B, types[ti], ti % 2 == 0, &fs);
    ex_hash_join_opts_t o = {.join = sp, .probe_keys = key2, .build_keys = key2, .nkeys = 2};
    int rc;
    char **want = run_join(&P, &B, &sp, key2, key2, 2, 0, NULL, &rc, &err);
    CHECK_OK(rc, &err);
    /* Checkpoint halfway through the build side, restore, finish the
     * build and half the probe side, checkpoint again, restore, finish. */
    ex_sink_t *s1 = NULL, *s2 = NULL, *s3 = NULL;
    ex_op_t *j1 = ckpt_join(&ctx, a, &o, &s1, &err);
    CHECK(j1 != NULL);
    for (uint32_t i = 0; i < B.nbatches / 2; i++)
      CHECK_OK(ex_op_push(ex_hash_join_build_side(j1), B.batches[i], &err), &err);
    fl_buf_t w1, w2;
    fl_buf_init(&w1);
    fl_buf_init(&w2);
    CHECK_OK(ex_op_checkpoint(ex_hash_join_build_side(j1), &w1, &err), &err);
    ex_op_destroy(j1);
    ex_op_destroy(&s1->op);
    ex_op_t *j2 = ckpt_join(&ctx, a, &o, &s2, &err);
    CHECK(j2 != NULL);
    fl_rd_t r;
    fl_rd_init(&r, w1.data, w1.len, "checkpoint 1");
    CHECK_OK(ex_op_restore(j2, &r, &err), &err);
    CHECK_EQ(fl_rd_left(&r), 0);
    for (uint32_t i = B.nbatches / 2; i < B.nbatches; i++)
      CHECK_OK(ex_op_push(ex_hash_join_build_side(j2), B.batches[i], &err), &err);
    CHECK_OK(ex_op_finish(ex_hash_join_build_side(j2), &err), &err);
    for (uint32_t i = 0; i < P.nbatches / 2; i++)
      CHECK_OK(ex_op_push(j2, P.batches[i], &err), &err);
    CHECK_OK(ex_op_checkpoint(j2, &w2, &err), &err);
    ex_op_destroy(j2);
    ex_op_t *j3 = ckpt_join(&ctx, a, &o, &s3, &err);
    CHECK(j3 != NULL);
    fl_rd_init(&r, w2.data, w2.len, "checkpoint 2");
    CHECK_OK(ex_op_restore(ex_hash_join_build_side(j3), &r, &err), &err);
    /* The restored join is past its build phase. */
    CHECK_ERR(ex_op_push(ex_hash_join_build_side(j3), B.batches[0], &err), FL_EINTERNAL);
    for (uint32_t i = P.nbatches / 2; i < P.nbatches; i++)
      CHECK_OK(ex_op_push(j3, P.batches[i], &err), &err);
    CHECK_OK(ex_op_finish(j3, &err), &err);
    ex_op_destroy(j3);
    char **got = two_sinks(s2, s3);
    char msg[512];
    bool same = jt_same(got, want, msg, sizeof msg);
    if (!same) t_fail(__FILE__, __LINE__, "%s: %s", ex_join_type_name(types[ti]), msg);
    tu_rows_free(got);
    tu_rows_free(want);
    ex_op_destroy(&s2->op);
    ex_op_destroy(&s3->op);
    /* A damaged checkpoint is refused with an error. */
    w2.data[0] ^= 1;
    ex_op_t *j4 = ckpt_join(&ctx, a, &o, &s3, &err);
    fl_rd_init(&r, w2.data, w2.len, "checkpoint 2");
    int bad = ex_op_restore(j4, &r, &err);
    ex_op_destroy(j4);
    ex_op_destroy(&s3->op);
    fl_buf_free(&w1);
    fl_buf_free(&w2);
    CHECK(same);
    CHECK_ERR(bad, FL_ECORRUPT);
  }
  CHECK_EQ(mem.used, 0);
  /* After spilling a join cannot checkpoint. */
  ex_mem_init(&mem, 32 * 1024);
  char dir[600];
  snprintf(dir, sizeof dir, "%s/spill", t_tmpdir());
  ctx.spill_dir = dir;
  ex_join_spec_t sp = jt_spec(&P, &B, EX_JOIN_INNER, false, NULL);
  ex_hash_join_opts_t o = {.join = sp, .probe_keys = key1, .build_keys = key1, .nkeys = 1};
  ex_sink_t *s = NULL;
  ex_op_t *j = ckpt_join(&ctx, a, &o, &s, &err);
  CHECK(j != NULL);
  for (uint32_t i = 0; i < B.nbatches; i++)
    CHECK_OK(ex_op_push(ex_hash_join_build_side(j), B.batches[i], &err), &err);
  fl_buf_t w;
  fl_buf_init(&w);
  CHECK_ERR(ex_op_checkpoint(j, &w, &err), FL_EUNSUPPORTED);
  fl_buf_free(&w);
  ex_op_destroy(j);
  ex_op_destroy(&s->op);
  CHECK_EQ(mem.used, 0);
  jt_side_free(&P);
  jt_side_free(&B);
  fl_arena_free(a);
}

/* Keys of more types: decimal, timestamp, boolean, uuid, real and date
 * columns, each with NULLs (and NaN for real), a few distinct values so
 * that tuples repeat. */
static void typed_side(jt_side_t *s, fl_arena_t *a, uint32_t rows, uint64_t seed) {
  fl_err_t err;
  memset(s, 0, sizeof *s);
  ty_schema_parse(a, "d decimal(12,2), t timestamp, b boolean, u uuid, f float, dt date",
                  &s->schema, &err);
  ty_batch_t *b = ty_batch_new(s->schema, rows);
  for (uint32_t i = 0; i < rows; i++) {
    uint64_t r = tu_rand(&seed);
    for (uint32_t c = 0; c < 6; c++) {
      uint32_t x = (uint32_t)(r >> (c * 9)) % 16;
      if (x == 0) {
        ty_vec_append_null(b->cols[c]);
        continue;
      }
      uint32_t v = x % 3;
      switch (c) {
        case 0: ty_vec_append_i128(b->cols[c], (fl_i128)v * 100000000000LL - 5); break;
        case 1: ty_vec_append_i64(b->cols[c], (int64_t)v * 86400000000LL); break;
        case 2: ty_vec_append_bool(b->cols[c], v & 1); break;
        case 3: {
          uint8_t u[16] = {0};
          u[15] = (uint8_t)v;
          ty_vec_append_bytes(b->cols[c], u, 16);
          break;
        }
        case 4:
          ty_vec_append_f32(b->cols[c], x == 1   ? NAN
                                        : v == 0 ? ((x & 1) ? -0.0f : 0.0f)
                                                 : (float)v);
          break;
        default: ty_vec_append_i32(b->cols[c], (int32_t)v + 19000); break;
      }
    }
  }
  ty_batch_seal(b);
  s->batches = fl_calloc(1, sizeof *s->batches);
  s->batches[0] = b;
  s->nbatches = 1;
  s->rb = fl_calloc(rows + 1, sizeof *s->rb);
  s->rr = fl_calloc(rows + 1, sizeof *s->rr);
  for (uint32_t i = 0; i < rows; i++) {
    s->rb[i] = b;
    s->rr[i] = i;
  }
  s->nrows = rows;
}

TEST(hash_join_keys_of_other_types) {
  fl_arena_t *a = fl_arena_new(0);
  jt_side_t P, B;
  typed_side(&P, a, 300, 41);
  typed_side(&B, a, 200, 42);
  static const uint32_t all[6] = {0, 1, 2, 3, 4, 5}, bout[2] = {4, 0};
  static const uint32_t keysets[][6] = {{0, 1, 2, 3, 4, 5}, {3}, {4}, {0, 5}};
  static const uint32_t nk[] = {6, 1, 1, 2};
  bool ok = true;
  for (uint32_t ks = 0; ks < 4 && ok; ks++)
    for (int t = 0; t < EX_JOIN_TYPE_COUNT && ok; t++) {
      if (t == EX_JOIN_NULL_AWARE_ANTI && nk[ks] != 1) continue;
      bool only = t >= EX_JOIN_SEMI && t < EX_JOIN_RIGHT_SEMI;
      bool build_only = t >= EX_JOIN_RIGHT_SEMI;
      ex_join_spec_t sp = {.type = (ex_join_type_t)t,
                           .probe_schema = P.schema,
                           .build_schema = B.schema,
                           .probe_out = all,
                           .nprobe_out = build_only ? 0 : 6,
                           .build_out = bout,
                           .nbuild_out = only ? 0 : 2};
      fl_err_t err;
      int rc;
      char **got = run_join(&P, &B, &sp, keysets[ks], keysets[ks], nk[ks], 0, NULL, &rc, &err);
      if (rc) {
        t_fail(__FILE__, __LINE__, "%s: %s", ex_join_type_name((ex_join_type_t)t), err.msg);
        ok = false;
        break;
      }
      char **want = jt_reference(&P, &B, &sp, keysets[ks], keysets[ks], nk[ks]);
      char msg[512];
      if (!jt_same(got, want, msg, sizeof msg)) {
        t_fail(__FILE__, __LINE__, "%s join on key set %u: %s",
               ex_join_type_name((ex_join_type_t)t), ks, msg);
        ok = false;
      }
      tu_rows_free(got);
      tu_rows_free(want);
    }
  jt_side_free(&P);
  jt_side_free(&B);
  fl_arena_free(a);
  CHECK(ok);
}
