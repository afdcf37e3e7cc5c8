/*
 * test_hash_agg.c - the hash aggregation operator: GROUP BY results against
 * a brute-force grouping computed here, the same query with a memory
 * budget so small that it spills (and repartitions) giving identical rows,
 * grouping sets, global aggregates over no rows, FILTER, checkpoint and
 * restore, and errors.
 */
#include <dirent.h>
#include <math.h>
#include <stdatomic.h>

#include "base/pool.h"
#include "exec/ex_spill.h"
#include "exec/op_hash_agg.h"
#include "exec_test_util.h"
#include "test.h"
#include "types/gen.h"

#define NROWS 30000

typedef struct fixture {
  fl_arena_t *arena;
  ty_schema_t *schema;
  ty_batch_t **batches;
  uint32_t nbatches;
} fixture_t;

/* Columns: k1 int, k2 string, x long, s string, b boolean, f boolean,
 * d decimal(10,2); NULLs in every column; about `groups` (k1, k2) pairs. */
static void make_input(fixture_t *fx, uint32_t groups, uint64_t seed) {
  fx->arena = fl_arena_new(0);
  fl_err_t err;
  ty_schema_parse(fx->arena,
                  "k1 int, k2 string, x long, s string, b boolean, f boolean, d decimal(10,2)",
                  &fx->schema, &err);
  fx->nbatches = (NROWS + 999) / 1000;
  fx->batches = fl_calloc(fx->nbatches, sizeof *fx->batches);
  for (uint32_t bi = 0; bi < fx->nbatches; bi++) {
    ty_batch_t *b = ty_batch_new(fx->schema, 1000);
    for (uint32_t i = 0; i < 1000; i++) {
      uint64_t r = tu_rand(&seed);
      uint32_t g = (uint32_t)(r % groups);
      if (g % 50 == 7)
        ty_vec_append_null(b->cols[0]);
      else
        ty_vec_append_i32(b->cols[0], (int32_t)(g / 3));
      char s[32];
      int n = snprintf(s, sizeof s, "g%u", g % 3);
      if (g % 41 == 5)
        ty_vec_append_null(b->cols[1]);
      else
        ty_vec_append_bytes(b->cols[1], s, (size_t)n);
      uint64_t r2 = tu_rand(&seed);
      if (r2 % 9 == 0)
        ty_vec_append_null(b->cols[2]);
      else
        ty_vec_append_i64(b->cols[2], (int64_t)(r2 >> 10) % 1000000 - 400000);
      n = snprintf(s, sizeof s, "s%llu", (unsigned long long)((r2 >> 30) % 5000));
      if (r2 % 7 == 1)
        ty_vec_append_null(b->cols[3]);
      else
        ty_vec_append_bytes(b->cols[3], s, (size_t)n);
      if ((r2 >> 50) % 10 == 0)
        ty_vec_append_null(b->cols[4]);
      else
        ty_vec_append_bool(b->cols[4], (r2 >> 52) % 3 != 0);
      if ((r2 >> 40) % 11 == 0)
        ty_vec_append_null(b->cols[5]);
      else
        ty_vec_append_bool(b->cols[5], (r2 >> 41) & 1);
      if ((r2 >> 20) % 13 == 0)
        ty_vec_append_null(b->cols[6]);
      else
        ty_vec_append_i128(b->cols[6], (fl_i128)((int64_t)(r2 >> 12) % 99999999));
    }
    ty_batch_seal(b);
    /* Some batches arrive through a selection, as after a filter. */
    if (bi % 3 == 1) {
      uint32_t sel[1000], ns = 0;
      for (uint32_t i = 0; i < 1000; i++)
        if (i % 4 != 2) sel[ns++] = i;
      ty_batch_select(b, sel, ns);
    }
    fx->batches[bi] = b;
  }
}

static void free_input(fixture_t *fx) {
  for (uint32_t i = 0; i < fx->nbatches; i++) ty_batch_free(fx->batches[i]);
  fl_free(fx->batches);
  fl_arena_free(fx->arena);
}

typedef struct spec_in {
  const char *fn;
  int32_t col;
  bool distinct;
  int32_t filter;
} spec_in_t;

static const spec_in_t query_aggs[] = {
    {"count", -1, false, -1},   {"count", 2, false, -1},
    {"sum", 2, false, -1},      {"avg", 2, false, -1},
    {"min", 3, false, -1},      {"max", 3, false, -1},
    {"min", 2, false, -1},      {"count", 2, true, -1},
    {"sum", 6, false, -1},      {"approx_distinct", 3, false, -1},
    {"bool_and", 4, false, -1}, {"bool_or", 4, false, -1},
    {"sum", 2, false, 5},       {"array_agg", 2, false, 5},
    {"max", 6, false, -1},      {"avg", 6, false, -1},
    {"sum", 2, true, -1},       {"any_value", 1, false, -1},
};
#define NQUERY_AGGS (sizeof query_aggs / sizeof query_aggs[0])

/* Runs GROUP BY k1, k2 with the aggregates above; returns sorted rows. */
static char **run_query(fixture_t *fx, size_t budget, const uint64_t *sets, uint32_t nsets,
                        ex_hash_agg_stats_t *stats, fl_err_t *err, int *rc_out) {
  fl_arena_t *a = fl_arena_new(0);
  ex_mem_t mem;
  ex_mem_init(&mem, budget);
  char dir[600];
  snprintf(dir, sizeof dir, "%s/spill", t_tmpdir());
  ex_opctx_t ctx = {.mem = &mem, .spill_dir = dir};
  ex_agg_spec_t specs[NQUERY_AGGS];
  for (uint32_t i = 0; i < NQUERY_AGGS; i++) {
    const spec_in_t *q = &query_aggs[i];
    const ty_type_t *t = q->col >= 0 ? fx->schema->root.fields[q->col].type : NULL;
    int rc = ex_agg_bind(a, q->fn, t, q->distinct, NULL, 0, &specs[i].agg, err);
    if (rc) {
      *rc_out = rc;
      return NULL;
    }
    specs[i].arg_col = q->col;
    specs[i].filter_col = q->filter;
    specs[i].name = NULL;
  }
  uint32_t keys[2] = {0, 1};
  ex_hash_agg_opts_t o = {.in_schema = fx->schema,
                          .key_cols = keys,
                          .nkeys = 2,
                          .grouping_sets = sets,
                          .nsets = nsets,
                          .aggs = specs,
                          .naggs = NQUERY_AGGS};
  ex_op_t *op;
  ex_sink_t *sink = NULL;
  int rc = ex_hash_agg_new(&ctx, a, &o, NULL, &op, err);
  if (!rc) {
    sink = ex_sink_new(op->out_schema);
    op->next = &sink->op;
    for (uint32_t i = 0; i < fx->nbatches && !rc; i++) rc = ex_op_push(op, fx->batches[i], err);
    if (!rc) rc = ex_op_finish(op, err);
    if (stats) *stats = *ex_hash_agg_stats(op);
    ex_op_destroy(op);
  }
  *rc_out = rc;
  char **rows = NULL;
  if (!rc) {
    rows = tu_rows(sink, false);
    if (mem.used != 0) {
      fl_err_set(err, FL_EINTERNAL, "budget still holds %zu bytes", mem.used);
      *rc_out = FL_EINTERNAL;
    }
  }
  if (sink) ex_op_destroy(&sink->op);
  fl_arena_free(a);
  return rows;
}

static size_t nrows_of(char **rows) {
  size_t n = 0;
  while (rows[n]) n++;
  return n;
}

/* Brute force: per (k1, k2) key, count(*), count(x), sum(x), min(s), max(s). */
typedef struct ref_row {
  char key[64];
  int64_t cnt, cntx, sumx, sum_filtered, n_filtered;
  char mins[32], maxs[32];
  bool has_s;
} ref_row_t;

static int ref_cmp(const void *a, const void *b) {
  return strcmp(((const ref_row_t *)a)->key, ((const ref_row_t *)b)->key);
}

TEST(hash_agg_matches_brute_force) {
  fixture_t fx;
  make_input(&fx, 3000, 7);
  fl_err_t err;
  int rc;
  char **rows = run_query(&fx, 0, NULL, 0, NULL, &err, &rc);
  CHECK_OK(rc, &err);
  /* Reference rows built by linear grouping over a sorted key list. */
  ref_row_t *ref = fl_calloc(NROWS, sizeof *ref);
  uint32_t nref = 0;
  fl_buf_t b;
  fl_buf_init(&b);
  ref_row_t *all = fl_calloc(NROWS, sizeof *all);
  uint32_t nall = 0;
  for (uint32_t bi = 0; bi < fx.nbatches; bi++) {
    const ty_batch_t *bt = fx.batches[bi];
    for (uint32_t k = 0; k < ty_batch_live(bt); k++) {
      uint32_t r = bt->sel ? bt->sel[k] : k;
      fl_buf_clear(&b);
      tu_format(bt->cols[0], r, &b);
      fl_buf_append_str(&b, "|");
      tu_format(bt->cols[1], r, &b);
      fl_buf_append_u8(&b, 0);
      ref_row_t *x = &all[nall++];
      snprintf(x->key, sizeof x->key, "%s", (const char *)b.data);
      x->cnt = 1;
      x->cntx = ty_vec_is_valid(bt->cols[2], r);
      x->sumx = x->cntx ? TY_VEC_DATA(bt->cols[2], int64_t)[r] : 0;
      bool pass = ty_vec_is_valid(bt->cols[5], r) && bt->cols[5]->data[r];
      x->n_filtered = pass && x->cntx;
      x->sum_filtered = x->n_filtered ? x->sumx : 0;
      if (ty_vec_is_valid(bt->cols[3], r)) {
        size_t n;
        const uint8_t *p = ty_vec_get_bytes(bt->cols[3], r, &n);
        snprintf(x->mins, sizeof x->mins, "%.*s", (int)n, p);
        snprintf(x->maxs, sizeof x->maxs, "%.*s", (int)n, p);
        x->has_s = true;
      }
    }
  }
  qsort(all, nall, sizeof *all, ref_cmp);
  for (uint32_t i = 0; i < nall; i++) {
    if (nref && strcmp(ref[nref - 1].key, all[i].key) == 0) {
      ref_row_t *g = &ref[nref - 1];
      g->cnt++;
      g->cntx += all[i].cntx;
      g->sumx += all[i].sumx;
      g->n_filtered += all[i].n_filtered;
      g->sum_filtered += all[i].sum_filtered;
      if (all[i].has_s) {
        if (!g->has_s || strcmp(all[i].mins, g->mins) < 0)
          snprintf(g->mins, sizeof g->mins, "%s", all[i].mins);
        if (!g->has_s || strcmp(all[i].maxs, g->maxs) > 0)
          snprintf(g->maxs, sizeof g->maxs, "%s", all[i].maxs);
        g->has_s = true;
      }
    } else {
      ref[nref++] = all[i];
    }
  }
  size_t nout = nrows_of(rows);
  CHECK_EQ(nout, nref);
  CHECK(nref > 2000);
  /* Compare the first six columns of every output row to the reference. */
  char **expect = fl_calloc(nref + 1, sizeof *expect);
  for (uint32_t i = 0; i < nref; i++) {
    char line[256];
    char sum[32];
    if (ref[i].cntx)
      snprintf(sum, sizeof sum, "%lld", (long long)ref[i].sumx);
    else
      snprintf(sum, sizeof sum, "NULL");
    snprintf(line, sizeof line, "%s|%lld|%lld|%s|", ref[i].key, (long long)ref[i].cnt,
             (long long)ref[i].cntx, sum);
    expect[i] = fl_strdup(line);
  }
  qsort(expect, nref, sizeof *expect, tu_strcmp);
  char **got = fl_calloc(nout + 1, sizeof *got);
  for (size_t i = 0; i < nout; i++) {
    /* Keep key|key|count|countx|sum| (drop avg onwards). */
    const char *p = rows[i];
    int bars = 0;
    while (*p && bars < 5) bars += *p++ == '|';
    got[i] = fl_strndup(rows[i], (size_t)(p - rows[i]));
  }
  qsort(got, nout, sizeof *got, tu_strcmp);
  for (size_t i = 0; i < nout; i++) {
    if (strcmp(got[i], expect[i]) != 0)
      t_fail(__FILE__, __LINE__, "row %zu: %s != %s", i, got[i], expect[i]);
    CHECK_STR(got[i], expect[i]);
  }
  /* min(s), max(s) and sum(x) FILTER (WHERE f) (output column 14):
   * checked through a lookup of each reference row. */
  for (uint32_t i = 0; i < nref; i++) {
    char want[200];
    snprintf(want, sizeof want, "|%s|%s|", ref[i].has_s ? ref[i].mins : "NULL",
             ref[i].has_s ? ref[i].maxs : "NULL");
    bool found = false;
    size_t klen = strlen(ref[i].key);
    for (size_t j = 0; j < nout && !found; j++)
      if (strncmp(rows[j], ref[i].key, klen) == 0 && rows[j][klen] == '|') {
        const char *p = rows[j];
        int bars = 0;
        while (*p && bars < 5) bars += *p++ == '|';
        while (*p && *p != '|') p++; /* skip avg */
        found = strncmp(p, want, strlen(want)) == 0;
        if (!found) t_fail(__FILE__, __LINE__, "key %s: %s lacks %s", ref[i].key, rows[j], want);
        const char *q = rows[j];
        for (int col = 0; col < 14; col++) q = strchr(q, '|') + 1;
        char fs[32];
        if (ref[i].n_filtered)
          snprintf(fs, sizeof fs, "%lld|", (long long)ref[i].sum_filtered);
        else
          snprintf(fs, sizeof fs, "NULL|");
        if (strncmp(q, fs, strlen(fs)) != 0) {
          t_fail(__FILE__, __LINE__, "key %s: filtered sum in %s, want %s", ref[i].key, rows[j],
                 fs);
          found = false;
        }
        break;
      }
    CHECK(found);
  }
  tu_rows_free(expect);
  tu_rows_free(got);
  fl_buf_free(&b);
  fl_free(all);
  fl_free(ref);
  tu_rows_free(rows);
  free_input(&fx);
}

TEST(hash_agg_spill_gives_identical_results) {
  fixture_t fx;
  make_input(&fx, 20000, 11);
  fl_err_t err;
  int rc;
  ex_hash_agg_stats_t st_mem, st_spill;
  char **mem_rows = run_query(&fx, 0, NULL, 0, &st_mem, &err, &rc);
  CHECK_OK(rc, &err);
  CHECK_EQ(st_mem.spills, 0);
  char **spill_rows = run_query(&fx, 256 * 1024, NULL, 0, &st_spill, &err, &rc);
  CHECK_OK(rc, &err);
  printf("  spill run: %llu groups, %llu spills, %llu partial states written, deepest level %u\n",
         (unsigned long long)st_spill.groups_out, (unsigned long long)st_spill.spills,
         (unsigned long long)st_spill.spilled_groups, st_spill.max_level);
  CHECK(st_spill.spills > 1);
  CHECK(st_spill.max_level >= 1); /* partitions were split again */
  size_t n = nrows_of(mem_rows);
  CHECK_EQ(nrows_of(spill_rows), n);
  CHECK(n > 10000);
  for (size_t i = 0; i < n; i++) CHECK_STR(spill_rows[i], mem_rows[i]);
  /* The operator removed its spill directory. */
  char dir[600];
  snprintf(dir, sizeof dir, "%s/spill", t_tmpdir());
  DIR *dp = opendir(dir);
  CHECK(dp != NULL);
  int entries = 0;
  for (struct dirent *e; (e = readdir(dp));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) entries++;
  closedir(dp);
  CHECK_EQ(entries, 0);
  tu_rows_free(mem_rows);
  tu_rows_free(spill_rows);
  free_input(&fx);
}

TEST(hash_agg_grouping_sets) {
  fixture_t fx;
  make_input(&fx, 300, 3);
  fl_err_t err;
  int rc;
  /* GROUPING SETS ((k1, k2), (k1), ()) */
  uint64_t sets[3] = {3, 1, 0};
  char **rows = run_query(&fx, 0, sets, 3, NULL, &err, &rc);
  CHECK_OK(rc, &err);
  char **both = run_query(&fx, 0, NULL, 0, NULL, &err, &rc);
  CHECK_OK(rc, &err);
  size_t n = nrows_of(rows), nboth = nrows_of(both);
  size_t per_set[3] = {0};
  int64_t total_count[3] = {0};
  for (size_t i = 0; i < n; i++) {
    /* k1|k2|set|count(*)|... */
    char k1[32], k2[32];
    int set;
    long long cnt;
    CHECK(sscanf(rows[i], "%31[^|]|%31[^|]|%d|%lld|", k1, k2, &set, &cnt) == 4);
    CHECK(set >= 0 && set < 3);
    per_set[set]++;
    total_count[set] += cnt;
    if (set >= 1) CHECK_STR(k2, "NULL");
    if (set == 2) CHECK_STR(k1, "NULL");
  }
  CHECK_EQ(per_set[0], nboth);
  CHECK_EQ(per_set[2], 1);
  CHECK(per_set[1] > 50 && per_set[1] < nboth);
  uint64_t live = 0;
  for (uint32_t i = 0; i < fx.nbatches; i++) live += ty_batch_live(fx.batches[i]);
  for (int s = 0; s < 3; s++) CHECK_EQ(total_count[s], (int64_t)live);
  /* With spilling the grouping sets come out the same. */
  char **spilled = run_query(&fx, 128 * 1024, sets, 3, NULL, &err, &rc);
  CHECK_OK(rc, &err);
  CHECK_EQ(nrows_of(spilled), n);
  for (size_t i = 0; i < n; i++) CHECK_STR(spilled[i], rows[i]);
  tu_rows_free(spilled);
  tu_rows_free(both);
  tu_rows_free(rows);
  free_input(&fx);
}

static int run_global(const ty_schema_t *schema, ty_batch_t *input, ex_sink_t **sink_out,
                      fl_err_t *err) {
  static fl_arena_t *a;
  if (!a) a = fl_arena_new(0);
  ex_mem_t mem;
  ex_mem_init(&mem, 0);
  ex_opctx_t ctx = {.mem = &mem};
  ex_agg_spec_t specs[4];
  const char *names[4] = {"count", "sum", "max", "array_agg"};
  for (int i = 0; i < 4; i++) {
    int rc = ex_agg_bind(a, names[i], i == 0 ? NULL : schema->root.fields[0].type, false, NULL, 0,
                         &specs[i].agg, err);
    if (rc) return rc;
    specs[i].arg_col = i == 0 ? -1 : 0;
    specs[i].filter_col = -1;
    specs[i].name = NULL;
  }
  ex_hash_agg_opts_t o = {.in_schema = schema, .aggs = specs, .naggs = 4};
  ex_op_t *op;
  int rc = ex_hash_agg_new(&ctx, a, &o, NULL, &op, err);
  if (rc) return rc;
  ex_sink_t *sink = ex_sink_new(op->out_schema);
  op->next = &sink->op;
  if (input) rc = ex_op_push(op, input, err);
  if (!rc) rc = ex_op_finish(op, err);
  ex_op_destroy(op);
  *sink_out = sink;
  return rc;
}

TEST(hash_agg_global_aggregate) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s;
  fl_err_t err;
  CHECK_OK(ty_schema_parse(a, "x long", &s, &err), &err);
  ex_sink_t *sink;
  CHECK_OK(run_global(s, NULL, &sink, &err), &err);
  char **rows = tu_rows(sink, true);
  CHECK_EQ(sink->rows, 1);
  CHECK(sink->finished);
  CHECK_STR(rows[0], "0|NULL|NULL|NULL");
  tu_rows_free(rows);
  ex_op_destroy(&sink->op);

  ty_batch_t *b = ty_batch_new(s, 4);
  ty_vec_append_i64(b->cols[0], 5);
  ty_vec_append_null(b->cols[0]);
  ty_vec_append_i64(b->cols[0], -2);
  ty_batch_seal(b);
  CHECK_OK(run_global(s, b, &sink, &err), &err);
  rows = tu_rows(sink, true);
  CHECK_STR(rows[0], "3|3|5|[5, NULL, -2]");
  tu_rows_free(rows);
  ex_op_destroy(&sink->op);

  /* sum(bigint) overflow is an error, as in Trino. */
  ty_batch_reset(b);
  ty_vec_append_i64(b->cols[0], INT64_MAX);
  ty_vec_append_i64(b->cols[0], 1);
  ty_batch_seal(b);
  CHECK_ERR(run_global(s, b, &sink, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "overflow") != NULL);
  ex_op_destroy(&sink->op);
  ty_batch_free(b);
  fl_arena_free(a);
}

TEST(hash_agg_checkpoint_restore) {
  fixture_t fx;
  make_input(&fx, 500, 5);
  fl_err_t err;
  int rc;
  char **whole = run_query(&fx, 0, NULL, 0, NULL, &err, &rc);
  CHECK_OK(rc, &err);
  /* First half into one operator, checkpoint, restore into a new one,
   * second half there. */
  fl_arena_t *a = fl_arena_new(0);
  ex_mem_t mem;
  ex_mem_init(&mem, 0);
  ex_opctx_t ctx = {.mem = &mem};
  ex_agg_spec_t specs[NQUERY_AGGS];
  for (uint32_t i = 0; i < NQUERY_AGGS; i++) {
    const spec_in_t *q = &query_aggs[i];
    CHECK_OK(ex_agg_bind(a, q->fn, q->col >= 0 ? fx.schema->root.fields[q->col].type : NULL,
                         q->distinct, NULL, 0, &specs[i].agg, &err),
             &err);
    specs[i].arg_col = q->col;
    specs[i].filter_col = q->filter;
    specs[i].name = NULL;
  }
  uint32_t keys[2] = {0, 1};
  ex_hash_agg_opts_t o = {
      .in_schema = fx.schema, .key_cols = keys, .nkeys = 2, .aggs = specs, .naggs = NQUERY_AGGS};
  ex_op_t *op1, *op2;
  CHECK_OK(ex_hash_agg_new(&ctx, a, &o, NULL, &op1, &err), &err);
  uint32_t half = fx.nbatches / 2;
  for (uint32_t i = 0; i < half; i++) CHECK_OK(ex_op_push(op1, fx.batches[i], &err), &err);
  fl_buf_t chk;
  fl_buf_init(&chk);
  CHECK_OK(ex_op_checkpoint(op1, &chk, &err), &err);
  ex_op_destroy(op1);
  CHECK_OK(ex_hash_agg_new(&ctx, a, &o, NULL, &op2, &err), &err);
  ex_sink_t *sink = ex_sink_new(op2->out_schema);
  op2->next = &sink->op;
  fl_rd_t r;
  /* A cut-short checkpoint is refused with an error, not a crash. */
  fl_rd_init(&r, chk.data, chk.len / 2, "checkpoint");
  ex_op_t *bad;
  CHECK_OK(ex_hash_agg_new(&ctx, a, &o, NULL, &bad, &err), &err);
  CHECK_ERR(ex_op_restore(bad, &r, &err), FL_ECORRUPT);
  ex_op_destroy(bad);
  fl_rd_init(&r, chk.data, chk.len, "checkpoint");
  CHECK_OK(ex_op_restore(op2, &r, &err), &err);
  for (uint32_t i = half; i < fx.nbatches; i++)
    CHECK_OK(ex_op_push(op2, fx.batches[i], &err), &err);
  CHECK_OK(ex_op_finish(op2, &err), &err);
  char **rows = tu_rows(sink, false);
  size_t n = nrows_of(whole);
  CHECK_EQ(nrows_of(rows), n);
  for (size_t i = 0; i < n; i++) CHECK_STR(rows[i], whole[i]);
  tu_rows_free(rows);
  tu_rows_free(whole);
  fl_buf_free(&chk);
  ex_op_destroy(op2);
  ex_op_destroy(&sink->op);
  fl_arena_free(a);
  free_input(&fx);
}

TEST(hash_agg_bad_setup) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s;
  fl_err_t err;
  CHECK_OK(ty_schema_parse(a, "x long, f long", &s, &err), &err);
  ex_agg_t *agg;
  CHECK_ERR(ex_agg_bind(a, "median", s->root.fields[0].type, false, NULL, 0, &agg, &err),
            FL_ENOTFOUND);
  CHECK_ERR(ex_agg_bind(a, "sum", ty_primitive(TY_STRING), false, NULL, 0, &agg, &err),
            FL_EINVALID);
  CHECK_ERR(ex_agg_bind(a, "approx_percentile", s->root.fields[0].type, false, NULL, 0, &agg, &err),
            FL_EINVALID);
  CHECK_OK(ex_agg_bind(a, "sum", s->root.fields[0].type, false, NULL, 0, &agg, &err), &err);
  ex_agg_spec_t spec = {.agg = agg, .arg_col = 0, .filter_col = 1};
  ex_mem_t mem;
  ex_mem_init(&mem, 0);
  ex_opctx_t ctx = {.mem = &mem};
  ex_hash_agg_opts_t o = {.in_schema = s, .aggs = &spec, .naggs = 1};
  ex_op_t *op;
  CHECK_ERR(ex_hash_agg_new(&ctx, a, &o, NULL, &op, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "FILTER") != NULL);
  uint32_t key = 9;
  spec.filter_col = -1;
  o.key_cols = &key;
  o.nkeys = 1;
  CHECK_ERR(ex_hash_agg_new(&ctx, a, &o, NULL, &op, &err), FL_EINVALID);
  fl_arena_free(a);
}

/* Morsel-driven partial aggregation: pool workers each aggregate the
 * batches they claim into their own operator (one shared budget); the
 * partial states travel through checkpoint/restore into a final operator,
 * whose result must equal the single-threaded one. */
typedef struct par {
  fixture_t *fx;
  ex_op_t **ops; /* per worker */
  _Atomic int failed;
} par_t;

static void par_morsel(void *arg, uint64_t begin, uint64_t end, uint32_t worker) {
  par_t *p = arg;
  fl_err_t err;
  for (uint64_t i = begin; i < end; i++)
    if (ex_op_push(p->ops[worker], p->fx->batches[i], &err)) atomic_store(&p->failed, 1);
}

TEST(hash_agg_parallel_partial_aggregation) {
  fixture_t fx;
  make_input(&fx, 2000, 21);
  fl_err_t err;
  int rc;
  char **whole = run_query(&fx, 0, NULL, 0, NULL, &err, &rc);
  CHECK_OK(rc, &err);
  fl_pool_t *pool;
  CHECK_OK(fl_pool_new(3, &pool, &err), &err);
  uint32_t nw = fl_pool_threads(pool) + 1;
  fl_arena_t *a = fl_arena_new(0);
  ex_mem_t mem;
  ex_mem_init(&mem, 0);
  ex_opctx_t ctx = {.mem = &mem};
  ex_agg_spec_t specs[NQUERY_AGGS];
  for (uint32_t i = 0; i < NQUERY_AGGS; i++) {
    const spec_in_t *q = &query_aggs[i];
    CHECK_OK(ex_agg_bind(a, q->fn, q->col >= 0 ? fx.schema->root.fields[q->col].type : NULL,
                         q->distinct, NULL, 0, &specs[i].agg, &err),
             &err);
    specs[i].arg_col = q->col;
    specs[i].filter_col = q->filter;
    specs[i].name = NULL;
  }
  uint32_t keys[2] = {0, 1};
  ex_hash_agg_opts_t o = {
      .in_schema = fx.schema, .key_cols = keys, .nkeys = 2, .aggs = specs, .naggs = NQUERY_AGGS};
  /* Each worker binds its own aggregates: their heap counters are per
   * operator state, not shared across threads. */
  par_t p = {.fx = &fx, .ops = fl_calloc(nw, sizeof(ex_op_t *))};
  atomic_init(&p.failed, 0);
  for (uint32_t w = 0; w < nw; w++) {
    ex_agg_spec_t *ws = fl_arena_alloc(a, sizeof specs);
    for (uint32_t i = 0; i < NQUERY_AGGS; i++) {
      ws[i] = specs[i];
      const spec_in_t *q = &query_aggs[i];
      CHECK_OK(ex_agg_bind(a, q->fn, q->col >= 0 ? fx.schema->root.fields[q->col].type : NULL,
                           q->distinct, NULL, 0, &ws[i].agg, &err),
               &err);
    }
    ex_hash_agg_opts_t wo = o;
    wo.aggs = ws;
    CHECK_OK(ex_hash_agg_new(&ctx, a, &wo, NULL, &p.ops[w], &err), &err);
  }
  fl_pool_parallel_for(pool, fx.nbatches, 1, par_morsel, &p);
  CHECK_EQ(atomic_load(&p.failed), 0);
  ex_op_t *final;
  CHECK_OK(ex_hash_agg_new(&ctx, a, &o, NULL, &final, &err), &err);
  ex_sink_t *sink = ex_sink_new(final->out_schema);
  final->next = &sink->op;
  for (uint32_t w = 0; w < nw; w++) {
    fl_buf_t chk;
    fl_buf_init(&chk);
    CHECK_OK(ex_op_checkpoint(p.ops[w], &chk, &err), &err);
    fl_rd_t rd;
    fl_rd_init(&rd, chk.data, chk.len, "partial states");
    CHECK_OK(ex_op_restore(final, &rd, &err), &err);
    fl_buf_free(&chk);
    ex_op_destroy(p.ops[w]);
  }
  CHECK_OK(ex_op_finish(final, &err), &err);
  char **rows = tu_rows(sink, false);
  size_t n = nrows_of(whole);
  CHECK_EQ(nrows_of(rows), n);
  /* array_agg and any_value depend on arrival order, which differs across
   * workers: compare every other column (all but 15 and 19) exactly. */
  for (size_t i = 0; i < n; i++) {
    const char *x = whole[i], *y = rows[i];
    for (int c = 0; x && y; c++) {
      const char *xe = strchr(x, '|'), *ye = strchr(y, '|');
      size_t xl = xe ? (size_t)(xe - x) : strlen(x), yl = ye ? (size_t)(ye - y) : strlen(y);
      if (c != 15 && c != 19 && (xl != yl || strncmp(x, y, xl) != 0)) {
        t_fail(__FILE__, __LINE__, "column %d differs: %s vs %s", c, whole[i], rows[i]);
        break;
      }
      x = xe ? xe + 1 : NULL;
      y = ye ? ye + 1 : NULL;
    }
    CHECK(!x && !y);
  }
  tu_rows_free(rows);
  tu_rows_free(whole);
  ex_op_destroy(final);
  ex_op_destroy(&sink->op);
  fl_free(p.ops);
  fl_arena_free(a);
  fl_pool_free(pool);
  free_input(&fx);
}

/* Keys of nested and unusual types (list, struct, uuid, double with NaN and
 * signed zeros, timestamps) group and spill like any other. */
TEST(hash_agg_nested_and_odd_keys_spill) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *s;
  CHECK_OK(
      ty_schema_parse(
          a, "l list<int>, st struct<x: int, y: string>, u uuid, d double, ts timestamp, v long",
          &s, &err),
      &err);
  ty_gen_opts_t go = {
      .seed = 5, .null_fraction = 0.2, .edge_fraction = 0.2, .max_elements = 2, .max_string = 2};
  ty_gen_t *g = ty_gen_new(&go);
  ty_batch_t *batches[20];
  for (int i = 0; i < 20; i++) {
    batches[i] = ty_batch_new(s, 1000);
    ty_gen_fill(g, batches[i], 1000);
  }
  ty_gen_free(g);
  char **results[2];
  for (int run = 0; run < 2; run++) {
    ex_mem_t mem;
    ex_mem_init(&mem, run ? 64 * 1024 : 0);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/spill-nested", t_tmpdir());
    ex_opctx_t ctx = {.mem = &mem, .spill_dir = dir};
    ex_agg_spec_t spec[2] = {{.arg_col = -1, .filter_col = -1}, {.arg_col = 5, .filter_col = -1}};
    CHECK_OK(ex_agg_bind(a, "count", NULL, false, NULL, 0, &spec[0].agg, &err), &err);
    CHECK_OK(ex_agg_bind(a, "sum", ty_primitive(TY_LONG), false, NULL, 0, &spec[1].agg, &err),
             &err);
    uint32_t keys[5] = {0, 1, 2, 3, 4};
    ex_hash_agg_opts_t o = {.in_schema = s, .key_cols = keys, .nkeys = 5, .aggs = spec, .naggs = 2};
    ex_op_t *op;
    CHECK_OK(ex_hash_agg_new(&ctx, a, &o, NULL, &op, &err), &err);
    ex_sink_t *sink = ex_sink_new(op->out_schema);
    op->next = &sink->op;
    int rc = FL_OK;
    for (int i = 0; i < 20 && !rc; i++) rc = ex_op_push(op, batches[i], &err);
    if (!rc) rc = ex_op_finish(op, &err);
    CHECK_OK(rc, &err);
    if (run) CHECK(ex_hash_agg_stats(op)->spills > 0);
    results[run] = tu_rows(sink, false);
    /* Every input row is counted once. */
    int64_t total = 0;
    for (uint32_t bi = 0; bi < sink->nbatches; bi++)
      for (uint32_t i = 0; i < sink->batches[bi]->nrows; i++)
        total += TY_VEC_DATA(sink->batches[bi]->cols[5], int64_t)[i];
    CHECK_EQ(total, 20000);
    ex_op_destroy(op);
    ex_op_destroy(&sink->op);
  }
  size_t n = nrows_of(results[0]);
  CHECK(n > 1000);
  CHECK_EQ(nrows_of(results[1]), n);
  for (size_t i = 0; i < n; i++) CHECK_STR(results[1][i], results[0][i]);
  tu_rows_free(results[0]);
  tu_rows_free(results[1]);
  for (int i = 0; i < 20; i++) ty_batch_free(batches[i]);
  fl_arena_free(a);
}
