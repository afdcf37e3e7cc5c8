/*
 * test_stream_agg.c - the streaming aggregation operator: over input
 * grouped on its keys (groups spanning batches, whole batches inside one
 * group, selections, NULL keys, groups of one row), the same rows as hash
 * aggregation over the same input, emitted in input order and as groups
 * complete; bounded memory; errors.
 */
#include "exec/op_hash_agg.h"
#include "exec/op_stream_agg.h"
#include "exec_test_util.h"
#include "test.h"

typedef struct fixture {
  fl_arena_t *arena;
  ty_schema_t *schema;
  ty_batch_t **batches;
  uint32_t nbatches;
  uint32_t ngroups;
} fixture_t;

/* Columns: k int (grouped, NULL the last group), g string (a second key,
 * constant within k), x long (NULLs), f boolean. Group sizes vary from 1
 * to 5000 rows; batch sizes from 1 to 2048. */
static void make_input(fixture_t *fx, uint64_t seed) {
  fx->arena = fl_arena_new(0);
  fl_err_t err;
  ty_schema_parse(fx->arena, "k int, g string, x long, f boolean", &fx->schema, &err);
  uint32_t cap = 64;
  fx->batches = fl_calloc(cap, sizeof *fx->batches);
  fx->nbatches = 0;
  fx->ngroups = 0;
  ty_batch_t *b = NULL;
  uint32_t room = 0;
  for (int32_t k = 0; k <= 120; k++) {
    uint64_t r = tu_rand(&seed);
    uint32_t size = k == 120 ? 50 : k % 17 == 3 ? 5000 : k % 5 == 0 ? 1 : (uint32_t)(r % 300) + 1;
    fx->ngroups++;
    for (uint32_t i = 0; i < size; i++) {
      if (!room) {
        if (b) {
          ty_batch_seal(b);
          fx->batches[fx->nbatches++] = b;
        }
        if (fx->nbatches == cap) {
          cap *= 2;
          fx->batches = fl_realloc(fx->batches, cap * sizeof *fx->batches);
        }
        uint64_t r2 = tu_rand(&seed);
        room = r2 % 4 == 0 ? 2048 : (uint32_t)(r2 % 700) + 1;
        b = ty_batch_new(fx->schema, room);
      }
      room--;
      if (k == 120)
        ty_vec_append_null(b->cols[0]);
      else
        ty_vec_append_i32(b->cols[0], k * 3 - 50);
      char s[16];
      int n = snprintf(s, sizeof s, "g%d", k % 4);
      ty_vec_append_bytes(b->cols[1], s, (size_t)n);
      uint64_t r3 = tu_rand(&seed);
      if (r3 % 7 == 0)
        ty_vec_append_null(b->cols[2]);
      else
        ty_vec_append_i64(b->cols[2], (int64_t)(r3 >> 20) % 100000 - 30000);
      ty_vec_append_bool(b->cols[3], (r3 >> 8) & 1);
    }
  }
  ty_batch_seal(b);
  fx->batches[fx->nbatches++] = b;
  /* Some batches arrive through a selection, as after a filter. */
  for (uint32_t bi = 1; bi < fx->nbatches; bi += 3) {
    ty_batch_t *x = fx->batches[bi];
    uint32_t *sel = fl_calloc(x->nrows, sizeof *sel), ns = 0;
    for (uint32_t i = 0; i < x->nrows; i++)
      if (i % 5 != 1) sel[ns++] = i;
    if (ns) ty_batch_select(x, sel, ns);
    fl_free(sel);
  }
}

static void free_input(fixture_t *fx) {
  for (uint32_t i = 0; i < fx->nbatches; i++) ty_batch_free(fx->batches[i]);
  fl_free(fx->batches);
  fl_arena_free(fx->arena);
}

static const struct {
  const char *fn;
  int32_t col;
  bool distinct;
  int32_t filter;
} aggs_in[] = {
    {"count", -1, false, -1}, {"count", 2, false, -1},    {"sum", 2, false, -1},
    {"min", 2, false, -1},    {"max", 1, false, -1},      {"avg", 2, false, 3},
    {"count", 2, true, -1},   {"array_agg", 2, false, 3},
};
#define NAGGS (sizeof aggs_in / sizeof aggs_in[0])

/* GROUP BY k, g over the fixture with hash or streaming aggregation. */
static char **run(fixture_t *fx, bool streaming, bool keep_order, uint64_t *peak, fl_err_t *err,
                  int *rc_out, uint32_t *nbatches_out) {
  fl_arena_t *a = fl_arena_new(0);
  ex_mem_t mem;
  ex_mem_init(&mem, 0);
  ex_opctx_t ctx = {.mem = &mem};
  ex_agg_spec_t specs[NAGGS];
  for (uint32_t i = 0; i < NAGGS; i++) {
    const ty_type_t *t = aggs_in[i].col >= 0 ? fx->schema->root.fields[aggs_in[i].col].type : NULL;
    int rc = ex_agg_bind(a, aggs_in[i].fn, t, aggs_in[i].distinct, NULL, 0, &specs[i].agg, err);
    if (rc) {
      *rc_out = rc;
      fl_arena_free(a);
      return NULL;
    }
    specs[i].arg_col = aggs_in[i].col;
    specs[i].filter_col = aggs_in[i].filter;
    specs[i].name = NULL;
  }
  uint32_t keys[2] = {0, 1};
  ex_hash_agg_opts_t o = {
      .in_schema = fx->schema, .key_cols = keys, .nkeys = 2, .aggs = specs, .naggs = NAGGS};
  ex_op_t *op;
  ex_sink_t *sink = NULL;
  int rc = streaming ? ex_stream_agg_new(&ctx, a, &o, NULL, &op, err)
                     : ex_hash_agg_new(&ctx, a, &o, NULL, &op, err);
  if (!rc) {
    sink = ex_sink_new(op->out_schema);
    op->next = &sink->op;
    for (uint32_t i = 0; i < fx->nbatches && !rc; i++) rc = ex_op_push(op, fx->batches[i], err);
    if (!rc) rc = ex_op_finish(op, err);
    ex_op_destroy(op);
  }
  *rc_out = rc;
  char **rows = NULL;
  if (!rc) {
    rows = tu_rows(sink, keep_order);
    if (nbatches_out) *nbatches_out = sink->nbatches;
    if (mem.used != 0) {
      fl_err_set(err, FL_EINTERNAL, "budget still holds %zu bytes", mem.used);
      *rc_out = FL_EINTERNAL;
    }
  }
  if (peak) *peak = mem.peak;
  if (sink) ex_op_destroy(&sink->op);
  fl_arena_free(a);
  return rows;
}

TEST(stream_agg_matches_hash_agg) {
  fixture_t fx;
  make_input(&fx, 11);
  fl_err_t err;
  int rc;
  uint32_t nb = 0;
  char **hash = run(&fx, false, false, NULL, &err, &rc, NULL);
  CHECK_OK(rc, &err);
  char **stream = run(&fx, true, true, NULL, &err, &rc, &nb);
  CHECK_OK(rc, &err);
  size_t n = 0, ns = 0;
  while (hash[n]) n++;
  while (stream[ns]) ns++;
  /* Selections may drop a one-row group entirely. */
  CHECK(n + 5 > fx.ngroups && n <= fx.ngroups);
  CHECK_EQ(ns, n);
  /* Groups come out in input order: k ascending, the NULL group last. */
  CHECK(strncmp(stream[0], "-50|g0|", 7) == 0);
  CHECK(strncmp(stream[n - 1], "NULL|g0|", 8) == 0);
  CHECK(nb > 1);
  char **sorted = fl_calloc(n + 1, sizeof *sorted);
  for (size_t i = 0; i < n; i++) sorted[i] = stream[i];
  qsort(sorted, n, sizeof *sorted, tu_strcmp);
  for (size_t i = 0; i < n; i++) CHECK_STR(sorted[i], hash[i]);
  fl_free(sorted);
  tu_rows_free(hash);
  tu_rows_free(stream);
  free_input(&fx);
}

/* 100,000 groups of two rows each: k ascending, x long. */
static void make_many_groups(fixture_t *fx) {
  fx->arena = fl_arena_new(0);
  fl_err_t err;
  ty_schema_parse(fx->arena, "k int, g string, x long, f boolean", &fx->schema, &err);
  fx->nbatches = 100000 * 2 / 2000;
  fx->batches = fl_calloc(fx->nbatches, sizeof *fx->batches);
  fx->ngroups = 100000;
  for (uint32_t bi = 0; bi < fx->nbatches; bi++) {
    ty_batch_t *b = ty_batch_new(fx->schema, 2000);
    for (uint32_t i = 0; i < 2000; i++) {
      uint32_t row = bi * 2000 + i;
      ty_vec_append_i32(b->cols[0], (int32_t)(row / 2));
      ty_vec_append_bytes(b->cols[1], "g", 1);
      ty_vec_append_i64(b->cols[2], (int64_t)row);
      ty_vec_append_bool(b->cols[3], row & 1);
    }
    ty_batch_seal(b);
    fx->batches[bi] = b;
  }
}

TEST(stream_agg_memory_is_bounded) {
  /* The budget's peak does not grow with the number of groups: the
   * operator reserves one batch's worth of states, where hash aggregation
   * holds every group. */
  fixture_t fx;
  make_many_groups(&fx);
  fl_err_t err;
  int rc;
  uint64_t peak_stream = 0, peak_hash = 0;
  char **s = run(&fx, true, true, &peak_stream, &err, &rc, NULL);
  CHECK_OK(rc, &err);
  char **h = run(&fx, false, false, &peak_hash, &err, &rc, NULL);
  CHECK_OK(rc, &err);
  size_t n = 0;
  while (s[n]) n++;
  CHECK_EQ(n, 100000);
  CHECK(peak_stream > 0);
  CHECK(peak_stream < 2u << 20);
  CHECK(peak_hash > 4 * peak_stream);
  tu_rows_free(s);
  tu_rows_free(h);
  free_input(&fx);
}

TEST(stream_agg_empty_input_and_errors) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *schema;
  CHECK_OK(ty_schema_parse(a, "k int, x long", &schema, &err), &err);
  ex_mem_t mem;
  ex_mem_init(&mem, 0);
  ex_opctx_t ctx = {.mem = &mem};
  ex_agg_spec_t spec = {.arg_col = 1, .filter_col = -1};
  CHECK_OK(ex_agg_bind(a, "sum", schema->root.fields[1].type, false, NULL, 0, &spec.agg, &err),
           &err);
  uint32_t key = 0;
  ex_hash_agg_opts_t o = {
      .in_schema = schema, .key_cols = &key, .nkeys = 1, .aggs = &spec, .naggs = 1};
  ex_op_t *op;
  CHECK_OK(ex_stream_agg_new(&ctx, a, &o, NULL, &op, &err), &err);
  ex_sink_t *sink = ex_sink_new(op->out_schema);
  op->next = &sink->op;
  CHECK_OK(ex_op_finish(op, &err), &err);
  CHECK_EQ(sink->rows, 0);
  CHECK(sink->finished);
  fl_buf_t w;
  fl_buf_init(&w);
  CHECK_ERR(ex_op_checkpoint(op, &w, &err), FL_EUNSUPPORTED);
  fl_buf_free(&w);
  ex_op_destroy(op);
  ex_op_destroy(&sink->op);
  CHECK_EQ(mem.used, 0);
  /* No keys, a key beyond the input, grouping sets. */
  o.nkeys = 0;
  CHECK_ERR(ex_stream_agg_new(&ctx, a, &o, NULL, &op, &err), FL_EINVALID);
  key = 7;
  o.nkeys = 1;
  CHECK_ERR(ex_stream_agg_new(&ctx, a, &o, NULL, &op, &err), FL_EINVALID);
  key = 0;
  uint64_t set = 1;
  o.grouping_sets = &set;
  o.nsets = 1;
  CHECK_ERR(ex_stream_agg_new(&ctx, a, &o, NULL, &op, &err), FL_EINVALID);
  fl_arena_free(a);
}
