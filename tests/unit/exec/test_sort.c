/*
 * test_sort.c - ORDER BY and top-N against a brute-force stable sort done
 * here with per-type comparisons: multiple keys, ASC/DESC, NULLS
 * FIRST/LAST, doubles with NaN and signed zeros, strings with zero bytes,
 * stability, external sorting with many runs under a tiny budget, and
 * top-N with OFFSET.
 */
#include <math.h>

#include "exec/op_sort.h"
#include "exec_test_util.h"
#include "test.h"
#include "types/gen.h"

typedef struct sfix {
  fl_arena_t *arena;
  ty_schema_t *schema;
  ty_batch_t **batches;
  uint32_t nbatches;
  uint64_t nrows;
} sfix_t;

static const double special[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 1.5, -2.5, 1e300};

/* Columns: a int (few values, NULLs), b string (NULLs, zero bytes), c double
 * (NaN, signed zeros, infinities, NULLs), seq long = input position. */
static void make_sort_input(sfix_t *fx, uint32_t nbatches, uint64_t seed) {
  fl_err_t err;
  fx->arena = fl_arena_new(0);
  ty_schema_parse(fx->arena, "a int, b string, c double, seq long", &fx->schema, &err);
  fx->nbatches = nbatches;
  fx->batches = fl_calloc(nbatches, sizeof *fx->batches);
  fx->nrows = 0;
  for (uint32_t bi = 0; bi < nbatches; bi++) {
    ty_batch_t *b = ty_batch_new(fx->schema, 1000);
    for (uint32_t i = 0; i < 1000; i++) {
      uint64_t r = tu_rand(&seed);
      if (r % 10 == 0)
        ty_vec_append_null(b->cols[0]);
      else
        ty_vec_append_i32(b->cols[0], (int32_t)(r >> 8) % 7 - 3);
      char s[8];
      size_t n = (r >> 16) % 4;
      for (size_t j = 0; j < n; j++) s[j] = "ab\0"[(r >> (20 + 2 * j)) % 3];
      if ((r >> 32) % 9 == 0)
        ty_vec_append_null(b->cols[1]);
      else
        ty_vec_append_bytes(b->cols[1], s, n);
      if ((r >> 40) % 8 == 0)
        ty_vec_append_null(b->cols[2]);
      else
        ty_vec_append_f64(b->cols[2], special[(r >> 44) % 8]);
      ty_vec_append_i64(b->cols[3], (int64_t)(fx->nrows + i));
    }
    ty_batch_seal(b);
    fx->nrows += 1000;
    fx->batches[bi] = b;
  }
}

static void free_sort_input(sfix_t *fx) {
  for (uint32_t i = 0; i < fx->nbatches; i++) ty_batch_free(fx->batches[i]);
  fl_free(fx->batches);
  fl_arena_free(fx->arena);
}

/* The reference comparison of two rows under the keys. */
static const sfix_t *ref_fx;
static const ex_sort_key_t *ref_keys;
static uint32_t ref_nkeys;

static int ref_value_cmp(const ty_vec_t *v, uint32_t i, const ty_vec_t *w, uint32_t j,
                         const ex_sort_key_t *k) {
  bool ni = ty_vec_is_null(v, i), nj = ty_vec_is_null(w, j);
  if (ni || nj) {
    if (ni && nj) return 0;
    /* NULL placement does not depend on the direction. */
    return (ni ? 1 : -1) * (k->nulls_first ? -1 : 1);
  }
  int c;
  if (v->type->kind == TY_DOUBLE) {
    double x = TY_VEC_DATA(v, double)[i], y = TY_VEC_DATA(w, double)[j];
    if (isnan(x) || isnan(y))
      c = isnan(x) && isnan(y) ? 0 : (isnan(x) ? 1 : -1);
    else
      c = (x > y) - (x < y);
  } else {
    ty_value_t a = ty_value_from_vec(v, i), b = ty_value_from_vec(w, j);
    c = ty_value_cmp(&a, &b);
  }
  return k->desc ? -c : c;
}

static int ref_row_cmp(const void *pa, const void *pb) {
  uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
  const ty_batch_t *ba = ref_fx->batches[a / 1000], *bb = ref_fx->batches[b / 1000];
  for (uint32_t k = 0; k < ref_nkeys; k++) {
    uint32_t col = ref_keys[k].col;
    int c = ref_value_cmp(ba->cols[col], (uint32_t)(a % 1000), bb->cols[col], (uint32_t)(b % 1000),
                          &ref_keys[k]);
    if (c) return c;
  }
  return (a > b) - (a < b); /* stability: input order */
}

static uint64_t *reference_order(const sfix_t *fx, const ex_sort_key_t *keys, uint32_t nkeys) {
  uint64_t *idx = fl_malloc(fx->nrows * sizeof *idx);
  for (uint64_t i = 0; i < fx->nrows; i++) idx[i] = i;
  ref_fx = fx;
  ref_keys = keys;
  ref_nkeys = nkeys;
  qsort(idx, fx->nrows, sizeof *idx, ref_row_cmp);
  return idx;
}

/* Runs the sort (or top-N when limit >= 0); returns the seq column. */
static int64_t *run_sort(const sfix_t *fx, const ex_sort_key_t *keys, uint32_t nkeys, size_t budget,
                         int64_t limit, uint64_t offset, uint64_t *nout, ex_sort_stats_t *stats,
                         fl_err_t *err, int *rc_out) {
  ex_mem_t mem;
  ex_mem_init(&mem, budget);
  char dir[600];
  snprintf(dir, sizeof dir, "%s/sort-spill", t_tmpdir());
  ex_opctx_t ctx = {.mem = &mem, .spill_dir = dir};
  ex_op_t *op;
  int rc = limit >= 0
               ? ex_topn_new(&ctx, fx->schema, keys, nkeys, (uint64_t)limit, offset, NULL, &op, err)
               : ex_sort_new(&ctx, fx->schema, keys, nkeys, NULL, &op, err);
  if (rc) {
    *rc_out = rc;
    return NULL;
  }
  ex_sink_t *sink = ex_sink_new(fx->schema);
  op->next = &sink->op;
  for (uint32_t i = 0; i < fx->nbatches && !rc; i++) rc = ex_op_push(op, fx->batches[i], err);
  if (!rc) rc = ex_op_finish(op, err);
  if (stats && limit < 0) *stats = *ex_sort_stats(op);
  ex_op_destroy(op);
  int64_t *seq = NULL;
  if (!rc) {
    seq = fl_malloc((sink->rows + 1) * sizeof *seq);
    for (uint64_t r = 0; r < sink->rows; r++) {
      uint32_t i;
      const ty_vec_t *v = ex_sink_row(sink, r, fx->schema->root.nfields - 1, &i);
      seq[r] = TY_VEC_DATA(v, int64_t)[i];
    }
    *nout = sink->rows;
    if (mem.used) rc = fl_err_set(err, FL_EINTERNAL, "budget still holds %zu bytes", mem.used);
  }
  ex_op_destroy(&sink->op);
  *rc_out = rc;
  return seq;
}

static const ex_sort_key_t keysets[][3] = {
    {{0, false, false}, {1, true, true}, {2, false, false}},
    {{2, true, false}, {0, false, true}, {1, false, false}},
    {{1, false, false}, {0, true, false}, {0, false, false}},
};

TEST(sort_matches_reference_and_is_stable) {
  sfix_t fx;
  make_sort_input(&fx, 20, 99);
  fl_err_t err;
  int rc;
  for (int ks = 0; ks < 3; ks++) {
    uint64_t *want = reference_order(&fx, keysets[ks], ks == 2 ? 2 : 3);
    uint64_t n;
    int64_t *got = run_sort(&fx, keysets[ks], ks == 2 ? 2 : 3, 0, -1, 0, &n, NULL, &err, &rc);
    CHECK_OK(rc, &err);
    CHECK_EQ(n, fx.nrows);
    for (uint64_t i = 0; i < n; i++) {
      if (got[i] != (int64_t)want[i])
        t_fail(__FILE__, __LINE__, "keys %d row %llu: seq %lld, want %llu", ks,
               (unsigned long long)i, (long long)got[i], (unsigned long long)want[i]);
      CHECK_EQ(got[i], want[i]);
    }
    fl_free(got);
    fl_free(want);
  }
  free_sort_input(&fx);
}

TEST(sort_external_with_many_runs) {
  sfix_t fx;
  make_sort_input(&fx, 150, 5);
  fl_err_t err;
  int rc;
  uint64_t *want = reference_order(&fx, keysets[0], 3);
  uint64_t n;
  ex_sort_stats_t st;
  /* A budget below one batch: every batch becomes its own run. */
  int64_t *got = run_sort(&fx, keysets[0], 3, 16 * 1024, -1, 0, &n, &st, &err, &rc);
  CHECK_OK(rc, &err);
  printf("  external sort: %llu rows, %u runs, %u intermediate merges\n",
         (unsigned long long)st.rows, st.runs, st.merge_passes);
  CHECK(st.runs >= 100);
  CHECK(st.merge_passes >= 1);
  CHECK_EQ(n, fx.nrows);
  for (uint64_t i = 0; i < n; i++) CHECK_EQ(got[i], want[i]);
  fl_free(got);
  /* A budget that holds a few batches gives fewer, longer runs. */
  got = run_sort(&fx, keysets[0], 3, 600 * 1024, -1, 0, &n, &st, &err, &rc);
  CHECK_OK(rc, &err);
  CHECK(st.runs > 2 && st.runs < 100);
  for (uint64_t i = 0; i < n; i++) CHECK_EQ(got[i], want[i]);
  fl_free(got);
  fl_free(want);
  free_sort_input(&fx);
}

TEST(sort_null_ordering_defaults) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s;
  fl_err_t err;
  CHECK_OK(ty_schema_parse(a, "x int, seq long", &s, &err), &err);
  sfix_t fx = {.arena = NULL, .schema = s, .nbatches = 1};
  ty_batch_t *b = ty_batch_new(s, 4);
  ty_vec_append_i32(b->cols[0], 3);
  ty_vec_append_null(b->cols[0]);
  ty_vec_append_i32(b->cols[0], 1);
  ty_vec_append_i32(b->cols[0], -5);
  for (int i = 0; i < 4; i++) ty_vec_append_i64(b->cols[1], i);
  ty_batch_seal(b);
  fx.batches = &b;
  fx.nrows = 4;
  struct {
    ex_sort_key_t k;
    int64_t want[4];
  } cases[] = {
      {{0, false, false}, {3, 2, 0, 1}}, /* ASC: -5 1 3 NULL */
      {{0, true, false}, {0, 2, 3, 1}},  /* DESC: 3 1 -5 NULL (NULLS LAST, Trino's default) */
      {{0, false, true}, {1, 3, 2, 0}},  /* ASC NULLS FIRST */
      {{0, true, true}, {1, 0, 2, 3}},   /* DESC NULLS FIRST */
  };
  for (int c = 0; c < 4; c++) {
    uint64_t n;
    int rc;
    int64_t *got = run_sort(&fx, &cases[c].k, 1, 0, -1, 0, &n, NULL, &err, &rc);
    CHECK_OK(rc, &err);
    CHECK_EQ(n, 4);
    for (int i = 0; i < 4; i++) CHECK_EQ(got[i], cases[c].want[i]);
    fl_free(got);
  }
  ty_batch_free(b);
  fl_arena_free(a);
}

TEST(topn_matches_sort_prefix) {
  sfix_t fx;
  make_sort_input(&fx, 12, 17);
  fl_err_t err;
  int rc;
  uint64_t *want = reference_order(&fx, keysets[1], 3);
  const int64_t limits[] = {0, 1, 10, 777, 5000, 20000};
  const uint64_t offsets[] = {0, 3, 0, 100, 2500, 0};
  for (int t = 0; t < 6; t++) {
    uint64_t n;
    int64_t *got = run_sort(&fx, keysets[1], 3, 0, limits[t], offsets[t], &n, NULL, &err, &rc);
    CHECK_OK(rc, &err);
    uint64_t expect_n = fx.nrows > offsets[t] ? fx.nrows - offsets[t] : 0;
    if ((uint64_t)limits[t] < expect_n) expect_n = (uint64_t)limits[t];
    CHECK_EQ(n, expect_n);
    for (uint64_t i = 0; i < n; i++) CHECK_EQ(got[i], want[offsets[t] + i]);
    fl_free(got);
  }
  /* Keeping more rows than the budget holds is a clear error. */
  uint64_t n;
  int64_t *got = run_sort(&fx, keysets[1], 3, 8 * 1024, 5000, 0, &n, NULL, &err, &rc);
  CHECK(got == NULL);
  CHECK_EQ(rc, FL_ELIMIT);
  CHECK(strstr(err.msg, "memory budget") != NULL);
  fl_free(want);
  free_sort_input(&fx);
}

/* Lists and structs sort by their elements; maps (and what holds one)
 * do not sort. */
TEST(sort_refuses_map_keys) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s;
  fl_err_t err;
  CHECK_OK(ty_schema_parse(a, "m map<string, int>, l list<struct<x: map<int, int>>>, ok list<int>",
                           &s, &err),
           &err);
  ex_mem_t mem;
  ex_mem_init(&mem, 0);
  ex_opctx_t ctx = {.mem = &mem};
  ex_sort_key_t k = {0, false, false};
  ex_op_t *op;
  CHECK_ERR(ex_sort_new(&ctx, s, &k, 1, NULL, &op, &err), FL_EUNSUPPORTED);
  k.col = 1;
  CHECK_ERR(ex_sort_new(&ctx, s, &k, 1, NULL, &op, &err), FL_EUNSUPPORTED);
  k.col = 2;
  CHECK_OK(ex_sort_new(&ctx, s, &k, 1, NULL, &op, &err), &err);
  ex_op_destroy(op);
  k.col = 3;
  CHECK_ERR(ex_sort_new(&ctx, s, &k, 1, NULL, &op, &err), FL_EINVALID);
  fl_arena_free(a);
}

/* Pushes half the input, checkpoints, restores into a new operator, pushes
 * the rest there; the output must equal the reference order. */
static void checkpoint_round_trip(bool topn) {
  sfix_t fx;
  make_sort_input(&fx, 6, 23);
  fl_err_t err;
  uint64_t *want = reference_order(&fx, keysets[0], 3);
  ex_mem_t mem;
  ex_mem_init(&mem, 0);
  ex_opctx_t ctx = {.mem = &mem};
  ex_op_t *op1, *op2;
  const uint64_t limit = 1234, offset = 10;
  if (topn) {
    CHECK_OK(ex_topn_new(&ctx, fx.schema, keysets[0], 3, limit, offset, NULL, &op1, &err), &err);
    CHECK_OK(ex_topn_new(&ctx, fx.schema, keysets[0], 3, limit, offset, NULL, &op2, &err), &err);
  } else {
    CHECK_OK(ex_sort_new(&ctx, fx.schema, keysets[0], 3, NULL, &op1, &err), &err);
    CHECK_OK(ex_sort_new(&ctx, fx.schema, keysets[0], 3, NULL, &op2, &err), &err);
  }
  for (uint32_t i = 0; i < 3; i++) CHECK_OK(ex_op_push(op1, fx.batches[i], &err), &err);
  fl_buf_t chk;
  fl_buf_init(&chk);
  CHECK_OK(ex_op_checkpoint(op1, &chk, &err), &err);
  ex_op_destroy(op1);
  fl_rd_t rd;
  fl_rd_init(&rd, chk.data, chk.len, "checkpoint");
  CHECK_OK(ex_op_restore(op2, &rd, &err), &err);
  ex_sink_t *sink = ex_sink_new(fx.schema);
  op2->next = &sink->op;
  for (uint32_t i = 3; i < fx.nbatches; i++) CHECK_OK(ex_op_push(op2, fx.batches[i], &err), &err);
  CHECK_OK(ex_op_finish(op2, &err), &err);
  uint64_t from = topn ? offset : 0, n = topn ? limit : fx.nrows;
  CHECK_EQ(sink->rows, n);
  for (uint64_t r = 0; r < n; r++) {
    uint32_t i;
    const ty_vec_t *v = ex_sink_row(sink, r, 3, &i);
    CHECK_EQ(TY_VEC_DATA(v, int64_t)[i], want[from + r]);
  }
  ex_op_destroy(op2);
  ex_op_destroy(&sink->op);
  CHECK_EQ(mem.used, 0);
  fl_buf_free(&chk);
  fl_free(want);
  free_sort_input(&fx);
}

TEST(sort_checkpoint_restore) { checkpoint_round_trip(false); }
TEST(topn_checkpoint_restore) { checkpoint_round_trip(true); }

/* One key of every orderable type (generated with edge values), ASC and
 * DESC NULLS FIRST, against qsort with ty_value_cmp (signed zeros equal). */
static const ty_vec_t *cmp_col;
static bool cmp_desc;

static int typed_cmp(const void *pa, const void *pb) {
  uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
  bool na = ty_vec_is_null(cmp_col, a), nb = ty_vec_is_null(cmp_col, b);
  int c = 0;
  if (na || nb)
    c = na == nb ? 0 : (na ? -1 : 1); /* NULLS FIRST */
  else {
    ty_value_t x = ty_value_from_vec(cmp_col, a), y = ty_value_from_vec(cmp_col, b);
    bool zeros = (x.kind == TY_DOUBLE && x.u.f64 == 0 && y.u.f64 == 0) ||
                 (x.kind == TY_FLOAT && x.u.f32 == 0 && y.u.f32 == 0);
    c = zeros ? 0 : ty_value_cmp(&x, &y);
    if (cmp_desc) c = -c;
  }
  return c ? c : (a > b) - (a < b);
}

TEST(sort_every_key_type) {
  static const char *types[] = {"boolean",       "int",  "long",    "float",       "double",
                                "decimal(30,4)", "date", "time",    "timestamptz", "string",
                                "binary",        "uuid", "fixed(6)"};
  fl_err_t err;
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    fl_arena_t *a = fl_arena_new(0);
    char text[80];
    snprintf(text, sizeof text, "v %s, seq long", types[t]);
    ty_schema_t *s;
    CHECK_OK(ty_schema_parse(a, text, &s, &err), &err);
    ty_gen_opts_t go = {
        .seed = 40 + t, .null_fraction = 0.15, .edge_fraction = 0.1, .sequence_column = "seq"};
    ty_gen_t *g = ty_gen_new(&go);
    ty_batch_t *b = ty_batch_new(s, 2000);
    ty_gen_fill(g, b, 2000);
    ty_gen_free(g);
    for (int desc = 0; desc < 2; desc++) {
      uint32_t want[2000];
      for (uint32_t i = 0; i < 2000; i++) want[i] = i;
      cmp_col = b->cols[0];
      cmp_desc = desc;
      qsort(want, 2000, sizeof *want, typed_cmp);
      ex_mem_t mem;
      ex_mem_init(&mem, 0);
      ex_opctx_t ctx = {.mem = &mem};
      ex_sort_key_t k = {0, desc != 0, true};
      ex_op_t *op;
      CHECK_OK(ex_sort_new(&ctx, s, &k, 1, NULL, &op, &err), &err);
      ex_sink_t *sink = ex_sink_new(s);
      op->next = &sink->op;
      CHECK_OK(ex_op_push(op, b, &err), &err);
      CHECK_OK(ex_op_finish(op, &err), &err);
      CHECK_EQ(sink->rows, 2000);
      for (uint32_t r = 0; r < 2000; r++) {
        uint32_t i;
        const ty_vec_t *v = ex_sink_row(sink, r, 1, &i);
        int64_t seq = TY_VEC_DATA(v, int64_t)[i];
        if (seq != (int64_t)TY_VEC_DATA(b->cols[1], int64_t)[want[r]])
          t_fail(__FILE__, __LINE__, "%s %s row %u", types[t], desc ? "DESC" : "ASC", r);
        CHECK_EQ(seq, TY_VEC_DATA(b->cols[1], int64_t)[want[r]]);
      }
      ex_op_destroy(op);
      ex_op_destroy(&sink->op);
    }
    ty_batch_free(b);
    fl_arena_free(a);
  }
}
