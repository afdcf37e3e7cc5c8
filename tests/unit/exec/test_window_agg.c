/*
 * test_window_agg.c - the window aggregation operator driven directly:
 * TUMBLE, HOP, CUMULATE and SESSION windows over out-of-order rows in
 * batches interleaved with watermarks, checked row by row against a
 * brute-force reference; late rows counted and handed to the callback;
 * checkpoints at random points restored into a new operator give the
 * uninterrupted output in the same order; a small memory budget makes
 * the operator spill and gives the same rows; the window TVF operator.
 */
#include <stdlib.h>

#include "exec/op_window_agg.h"
#include "exec/op_window_tvf.h"
#include "exec_test_util.h"
#include "test.h"

#define MIN_US 60000000LL
#define BASE_US 1586937600000000LL /* 2020-04-15 08:00:00 UTC */

typedef struct row {
  int64_t t;
  bool t_null;
  int32_t k;
  bool k_null;
  int64_t x;
  bool x_null;
} row_t;

typedef struct input {
  row_t *rows;
  uint32_t n;
  int64_t delay_us; /* rows are at most this much out of order */
} input_t;

/* n rows a few seconds apart over keys 0..nkeys-1 (and NULL), times
 * shuffled by up to delay, some NULL times and values. */
static void make_rows(input_t *in, uint32_t n, uint32_t nkeys, int64_t delay_us, uint64_t seed) {
  in->rows = fl_calloc(n, sizeof *in->rows);
  in->n = n;
  in->delay_us = delay_us;
  for (uint32_t i = 0; i < n; i++) {
    row_t *r = &in->rows[i];
    uint64_t z = tu_rand(&seed);
    r->t = BASE_US + (int64_t)i * 3000000 - (delay_us ? (int64_t)(z % (uint64_t)delay_us) : 0);
    r->t_null = z % 97 == 5;
    r->k = (int32_t)((z >> 8) % nkeys);
    r->k_null = (z >> 20) % 23 == 0;
    r->x = (int64_t)((z >> 24) % 1000) - 200;
    r->x_null = (z >> 40) % 11 == 0;
  }
}

static ty_batch_t *make_batch(const ty_schema_t *s, const row_t *rows, uint32_t n) {
  ty_batch_t *b = ty_batch_new(s, n ? n : 1);
  for (uint32_t i = 0; i < n; i++) {
    const row_t *r = &rows[i];
    if (r->t_null)
      ty_vec_append_null(b->cols[0]);
    else
      ty_vec_append_i64(b->cols[0], r->t);
    if (r->k_null)
      ty_vec_append_null(b->cols[1]);
    else
      ty_vec_append_i32(b->cols[1], r->k);
    if (r->x_null)
      ty_vec_append_null(b->cols[2]);
    else
      ty_vec_append_i64(b->cols[2], r->x);
  }
  ty_batch_seal(b);
  return b;
}

typedef struct rig {
  fl_arena_t *a;
  ty_schema_t *schema;
  ex_mem_t mem;
  ex_opctx_t ctx;
  ex_agg_spec_t specs[4];
  ex_window_agg_opts_t o;
  uint32_t key;
  uint64_t late_cb_rows;
} rig_t;

static int late_cb(void *arg, const ty_batch_t *b, uint32_t time_col, const uint32_t *rows,
                   uint32_t n, fl_err_t *err) {
  (void)b, (void)rows, (void)err;
  for (uint32_t i = 0; i < n; i++)
    if (time_col != 0 || !ty_vec_is_valid(b->cols[time_col], rows[i])) abort();
  ((rig_t *)arg)->late_cb_rows += n;
  return FL_OK;
}

/* Aggregates: count(*), sum(x), min(x), count(DISTINCT x); key k. */
static void rig_init(rig_t *g, ex_window_spec_t spec, size_t mem_limit, bool partition) {
  memset(g, 0, sizeof *g);
  fl_err_t err;
  g->a = fl_arena_new(0);
  ty_schema_parse(g->a, "ts timestamp, k int, x long", &g->schema, &err);
  ex_mem_init(&g->mem, mem_limit);
  g->ctx = (ex_opctx_t){.mem = &g->mem, .spill_dir = t_tmpdir()};
  const ty_type_t *lt = ty_primitive(TY_LONG);
  ex_agg_bind(g->a, "count", NULL, false, NULL, 0, &g->specs[0].agg, &err);
  ex_agg_bind(g->a, "sum", lt, false, NULL, 0, &g->specs[1].agg, &err);
  ex_agg_bind(g->a, "min", lt, false, NULL, 0, &g->specs[2].agg, &err);
  ex_agg_bind(g->a, "count", lt, true, NULL, 0, &g->specs[3].agg, &err);
  g->specs[0].arg_col = -1;
  for (int i = 1; i < 4; i++) g->specs[i].arg_col = 2;
  for (int i = 0; i < 4; i++) g->specs[i].filter_col = -1;
  g->key = 1;
  g->o = (ex_window_agg_opts_t){.in_schema = g->schema,
                                .spec = spec,
                                .time_col = 0,
                                .key_cols = &g->key,
                                .nkeys = 1,
                                .partition_cols = &g->key,
                                .npartition = partition ? 1 : 0,
                                .aggs = g->specs,
                                .naggs = 4,
                                .late_fn = late_cb,
                                .late_arg = g};
}

/* Rebinds the aggregates: each operator needs its own (heap counters). */
static void rig_rebind(rig_t *g) {
  fl_err_t err;
  const ty_type_t *lt = ty_primitive(TY_LONG);
  ex_agg_bind(g->a, "count", NULL, false, NULL, 0, &g->specs[0].agg, &err);
  ex_agg_bind(g->a, "sum", lt, false, NULL, 0, &g->specs[1].agg, &err);
  ex_agg_bind(g->a, "min", lt, false, NULL, 0, &g->specs[2].agg, &err);
  ex_agg_bind(g->a, "count", lt, true, NULL, 0, &g->specs[3].agg, &err);
}

/* ---- the reference ---- */

typedef struct ref_group {
  int64_t ws, we;
  int32_t k;
  bool k_null;
  int64_t count, sum, min;
  bool any;
  int64_t *vals;
  uint32_t nvals;
} ref_group_t;

typedef struct ref {
  ref_group_t *g;
  uint32_t n, cap;
} ref_t;

static void ref_add(ref_t *rf, int64_t ws, int64_t we, const row_t *r) {
  ref_group_t *g = NULL;
  for (uint32_t i = 0; i < rf->n && !g; i++) {
    ref_group_t *c = &rf->g[i];
    if (c->ws == ws && c->we == we && c->k_null == r->k_null && (r->k_null || c->k == r->k)) g = c;
  }
  if (!g) {
    if (rf->n == rf->cap) {
      rf->cap = rf->cap ? rf->cap * 2 : 64;
      rf->g = fl_realloc(rf->g, rf->cap * sizeof *rf->g);
    }
    g = &rf->g[rf->n++];
    *g = (ref_group_t){.ws = ws, .we = we, .k = r->k, .k_null = r->k_null};
    g->vals = fl_calloc(4096, sizeof *g->vals);
  }
  g->count++;
  if (r->x_null) return;
  g->sum += r->x;
  if (!g->any || r->x < g->min) g->min = r->x;
  g->any = true;
  bool seen = false;
  for (uint32_t i = 0; i < g->nvals && !seen; i++) seen = g->vals[i] == r->x;
  if (!seen && g->nvals < 4096) g->vals[g->nvals++] = r->x;
}

/* Windows of a row by brute force: every candidate start near t. */
static void ref_windows(ref_t *rf, const ex_window_spec_t *s, const row_t *r) {
  if (r->t_null) return;
  if (s->kind == EX_WINDOW_TUMBLE || s->kind == EX_WINDOW_HOP) {
    int64_t step = s->kind == EX_WINDOW_TUMBLE ? s->size_us : s->slide_us;
    for (int64_t ws = s->offset_us + ((r->t - s->offset_us) / step - 200) * step; ws <= r->t;
         ws += step)
      if (ws <= r->t && r->t < ws + s->size_us) ref_add(rf, ws, ws + s->size_us, r);
  } else {
    for (int64_t ps = s->offset_us + ((r->t - s->offset_us) / s->size_us - 2) * s->size_us;
         ps <= r->t; ps += s->size_us)
      for (int64_t we = ps + s->slide_us; we <= ps + s->size_us; we += s->slide_us)
        if (ps <= r->t && r->t < we && r->t < ps + s->size_us) ref_add(rf, ps, we, r);
  }
}

static int cmp_row(const void *a, const void *b) {
  const row_t *x = a, *y = b;
  if (x->k_null != y->k_null) return x->k_null ? 1 : -1;
  if (!x->k_null && x->k != y->k) return x->k < y->k ? -1 : 1;
  return x->t < y->t ? -1 : x->t > y->t;
}

/* Sessions per key by brute force: sorted times split where the gap
 * exceeds the gap (rows exactly gap apart merge, as in Flink). */
static int cmp_time(const void *a, const void *b) {
  const row_t *x = a, *y = b;
  return x->t < y->t ? -1 : x->t > y->t;
}

/* global: sessions over all rows (no PARTITION BY), keys within them. */
static void ref_sessions(ref_t *rf, const ex_window_spec_t *s, const input_t *in, bool global) {
  row_t *v = fl_calloc(in->n, sizeof *v);
  uint32_t n = 0;
  for (uint32_t i = 0; i < in->n; i++)
    if (!in->rows[i].t_null) v[n++] = in->rows[i];
  qsort(v, n, sizeof *v, global ? cmp_time : cmp_row);
  for (uint32_t i = 0; i < n;) {
    uint32_t j = i + 1;
    while (j < n && (global || (v[j].k_null == v[i].k_null && (v[i].k_null || v[j].k == v[i].k))) &&
           v[j].t - v[j - 1].t <= s->gap_us)
      j++;
    for (uint32_t k = i; k < j; k++) ref_add(rf, v[i].t, v[j - 1].t + s->gap_us, &v[k]);
    i = j;
  }
  fl_free(v);
}

static char **ref_rows(ref_t *rf) {
  char **rows = fl_calloc(rf->n + 1, sizeof *rows);
  for (uint32_t i = 0; i < rf->n; i++) {
    ref_group_t *g = &rf->g[i];
    char buf[256], k[16], sum[32], min[32];
    snprintf(k, sizeof k, g->k_null ? "NULL" : "%d", g->k);
    snprintf(sum, sizeof sum, g->any ? "%lld" : "NULL", (long long)g->sum);
    snprintf(min, sizeof min, g->any ? "%lld" : "NULL", (long long)g->min);
    snprintf(buf, sizeof buf, "%lld|%lld|%lld|%s|%lld|%s|%s|%u", (long long)g->ws, (long long)g->we,
             (long long)(g->we - 1000), k, (long long)g->count, sum, min, g->nvals);
    rows[i] = fl_strdup(buf);
    fl_free(g->vals);
  }
  qsort(rows, rf->n, sizeof *rows, tu_strcmp);
  fl_free(rf->g);
  return rows;
}

/* The sink's rows with times as raw microseconds. */
static char **sink_rows(const ex_sink_t *s, bool keep_order) {
  char **rows = fl_calloc(s->rows + 1, sizeof *rows);
  uint64_t r = 0;
  fl_buf_t b;
  fl_buf_init(&b);
  for (uint32_t bi = 0; bi < s->nbatches; bi++) {
    const ty_batch_t *bt = s->batches[bi];
    for (uint32_t i = 0; i < bt->nrows; i++) {
      fl_buf_clear(&b);
      for (uint32_t c = 0; c < bt->ncols; c++) {
        if (c) fl_buf_append_str(&b, "|");
        if (c < 3)
          fl_buf_printf(&b, "%lld", (long long)((const int64_t *)bt->cols[c]->data)[i]);
        else
          tu_format(bt->cols[c], i, &b);
      }
      fl_buf_append_u8(&b, 0);
      rows[r++] = fl_strdup((const char *)b.data);
    }
  }
  fl_buf_free(&b);
  if (!keep_order) qsort(rows, r, sizeof *rows, tu_strcmp);
  return rows;
}

static bool same_rows(char **x, char **y) {
  size_t i = 0;
  for (; x[i] && y[i]; i++)
    if (strcmp(x[i], y[i]) != 0) {
      fprintf(stderr, "row %zu: %s vs %s\n", i, x[i], y[i]);
      return false;
    }
  if (x[i] || y[i]) fprintf(stderr, "row counts differ at %zu\n", i);
  return !x[i] && !y[i];
}

/*
 * Runs the input in batches of 1..700 rows, a watermark after each
 * (max time seen - delay - 1 ms, so no row is late) when streaming; with
 * ckpt_every, checkpoints after that many batches into a new operator.
 * Returns the emitted rows.
 */
static char **run(rig_t *g, const input_t *in, bool streaming, uint32_t ckpt_every, uint64_t seed,
                  bool keep_order, ex_window_agg_stats_t *stats) {
  fl_err_t err;
  ex_op_t *op;
  rig_rebind(g);
  if (ex_window_agg_new(&g->ctx, g->a, &g->o, NULL, &op, &err)) {
    t_fail(__FILE__, __LINE__, "new: %s", err.msg);
    return fl_calloc(1, sizeof(char *));
  }
  ex_sink_t *sink = ex_sink_new(op->out_schema);
  op->next = &sink->op;
  int64_t maxt = INT64_MIN;
  uint32_t nb = 0;
  for (uint32_t i = 0; i < in->n;) {
    uint32_t len = (uint32_t)(tu_rand(&seed) % 700) + 1;
    if (len > in->n - i) len = in->n - i;
    ty_batch_t *b = make_batch(g->schema, in->rows + i, len);
    for (uint32_t k = 0; k < len; k++)
      if (!in->rows[i + k].t_null && in->rows[i + k].t > maxt) maxt = in->rows[i + k].t;
    if (ex_op_push(op, b, &err)) t_fail(__FILE__, __LINE__, "push: %s", err.msg);
    ty_batch_free(b);
    i += len;
    if (streaming && maxt != INT64_MIN && ex_op_watermark(op, maxt - in->delay_us - 1000, &err))
      t_fail(__FILE__, __LINE__, "watermark: %s", err.msg);
    if (ckpt_every && ++nb % ckpt_every == 0) {
      fl_buf_t w;
      fl_buf_init(&w);
      if (ex_op_checkpoint(op, &w, &err)) t_fail(__FILE__, __LINE__, "checkpoint: %s", err.msg);
      ex_op_destroy(op);
      rig_rebind(g);
      if (ex_window_agg_new(&g->ctx, g->a, &g->o, &sink->op, &op, &err))
        t_fail(__FILE__, __LINE__, "new: %s", err.msg);
      fl_rd_t r;
      fl_rd_init(&r, w.data, w.len, "checkpoint");
      if (ex_op_restore(op, &r, &err)) t_fail(__FILE__, __LINE__, "restore: %s", err.msg);
      if (fl_rd_left(&r)) t_fail(__FILE__, __LINE__, "checkpoint bytes left over");
      fl_buf_free(&w);
    }
  }
  if (ex_op_finish(op, &err)) t_fail(__FILE__, __LINE__, "finish: %s", err.msg);
  if (stats) *stats = *ex_window_agg_stats(op);
  char **rows = sink_rows(sink, keep_order);
  ex_op_destroy(op);
  ex_op_destroy(&sink->op);
  return rows;
}

static const ex_window_spec_t specs[] = {
    {.kind = EX_WINDOW_TUMBLE, .size_us = 10 * MIN_US},
    {.kind = EX_WINDOW_TUMBLE, .size_us = 7 * MIN_US, .offset_us = -2 * MIN_US},
    {.kind = EX_WINDOW_HOP, .size_us = 10 * MIN_US, .slide_us = 2 * MIN_US},
    {.kind = EX_WINDOW_HOP, .size_us = 6 * MIN_US, .slide_us = 4 * MIN_US, .offset_us = MIN_US},
    {.kind = EX_WINDOW_CUMULATE, .size_us = 12 * MIN_US, .slide_us = 3 * MIN_US},
    {.kind = EX_WINDOW_SESSION, .gap_us = 2 * MIN_US},
};

static char **reference(const ex_window_spec_t *s, const input_t *in) {
  ref_t rf = {0};
  if (s->kind == EX_WINDOW_SESSION)
    ref_sessions(&rf, s, in, false);
  else
    for (uint32_t i = 0; i < in->n; i++) ref_windows(&rf, s, &in->rows[i]);
  return ref_rows(&rf);
}

TEST(window_agg_matches_reference) {
  for (size_t si = 0; si < sizeof specs / sizeof specs[0]; si++) {
    input_t in;
    bool session = specs[si].kind == EX_WINDOW_SESSION;
    /* Sessions: sparse keys so that gaps occur. */
    make_rows(&in, 3000, session ? 40 : 7, 5 * MIN_US, 11 + si);
    if (session)
      for (uint32_t i = 0; i < in.n; i++)
        if (i % 300 < 40) in.rows[i].k = 1;
    char **want = reference(&specs[si], &in);
    for (int streaming = 0; streaming < 2; streaming++) {
      rig_t g;
      rig_init(&g, specs[si], 0, session);
      ex_window_agg_stats_t st;
      char **got = run(&g, &in, streaming, 0, 5 + si, false, &st);
      if (!same_rows(got, want)) t_fail(__FILE__, __LINE__, "spec %zu streaming %d", si, streaming);
      CHECK_EQ(st.late_rows, 0);
      CHECK_EQ(g.mem.used, 0);
      tu_rows_free(got);
      fl_arena_free(g.a);
    }
    tu_rows_free(want);
    fl_free(in.rows);
  }
}

TEST(window_agg_checkpoint_restore) {
  for (size_t si = 0; si < sizeof specs / sizeof specs[0]; si++) {
    input_t in;
    bool session = specs[si].kind == EX_WINDOW_SESSION;
    make_rows(&in, 2500, session ? 30 : 5, 4 * MIN_US, 70 + si);
    rig_t g;
    rig_init(&g, specs[si], 0, session);
    char **base = run(&g, &in, true, 0, 9, true, NULL);
    for (uint32_t every = 1; every <= 5; every += 2) {
      char **got = run(&g, &in, true, every, 9, true, NULL);
      if (!same_rows(got, base)) t_fail(__FILE__, __LINE__, "spec %zu every %u", si, every);
      tu_rows_free(got);
    }
    tu_rows_free(base);
    CHECK_EQ(g.mem.used, 0);
    fl_arena_free(g.a);
    fl_free(in.rows);
  }
}

/* Many small windows and sessions: fired state is compacted away while
 * the stream runs, and results and checkpoints are unaffected. */
TEST(window_agg_compaction) {
  static const ex_window_spec_t cs[] = {
      {.kind = EX_WINDOW_TUMBLE, .size_us = MIN_US},
      {.kind = EX_WINDOW_HOP, .size_us = 2 * MIN_US, .slide_us = MIN_US},
      {.kind = EX_WINDOW_SESSION, .gap_us = 2 * MIN_US},
  };
  for (size_t si = 0; si < 3; si++) {
    input_t in;
    bool session = cs[si].kind == EX_WINDOW_SESSION;
    make_rows(&in, 24000, 400, MIN_US, 90 + si);
    char **want = reference(&cs[si], &in);
    rig_t g;
    rig_init(&g, cs[si], 0, session);
    ex_window_agg_stats_t st;
    char **got = run(&g, &in, true, 0, 4, false, &st);
    if (!same_rows(got, want)) t_fail(__FILE__, __LINE__, "spec %zu", si);
    CHECK(st.compactions > 0);
    tu_rows_free(got);
    char **base = run(&g, &in, true, 0, 4, true, NULL);
    got = run(&g, &in, true, 7, 4, true, NULL);
    if (!same_rows(got, base)) t_fail(__FILE__, __LINE__, "checkpoints, spec %zu", si);
    tu_rows_free(got);
    tu_rows_free(base);
    tu_rows_free(want);
    CHECK_EQ(g.mem.used, 0);
    fl_arena_free(g.a);
    fl_free(in.rows);
  }
}

TEST(window_agg_spill) {
  for (size_t si = 0; si < 5; si++) {
    input_t in;
    make_rows(&in, 20000, 3000, 0, 30 + si);
    /* Batch mode over shuffled times: every window open until finish. */
    uint64_t seed = 77;
    for (uint32_t i = in.n; i > 1; i--) {
      uint32_t j = (uint32_t)(tu_rand(&seed) % i);
      row_t t = in.rows[i - 1];
      in.rows[i - 1] = in.rows[j];
      in.rows[j] = t;
    }
    rig_t g;
    rig_init(&g, specs[si], 0, false);
    char **base = run(&g, &in, false, 0, 3, false, NULL);
    fl_arena_free(g.a);
    rig_init(&g, specs[si], 256 << 10, false);
    ex_window_agg_stats_t st;
    char **got = run(&g, &in, false, 0, 3, false, &st);
    if (!same_rows(got, base)) t_fail(__FILE__, __LINE__, "spec %zu", si);
    CHECK(st.spills > 0);
    CHECK(st.run_merges > 0);
    CHECK_EQ(g.mem.used, 0);
    tu_rows_free(got);
    tu_rows_free(base);
    fl_arena_free(g.a);
    fl_free(in.rows);
  }
}

/* Streaming under a tiny budget: runs are written while windows fire,
 * read partly, and merged; the rows are still the reference's. */
TEST(window_agg_spill_streaming) {
  for (size_t si = 0; si < 5; si++) {
    input_t in;
    make_rows(&in, 20000, 3000, 20 * MIN_US, 50 + si);
    char **want = reference(&specs[si], &in);
    rig_t g;
    rig_init(&g, specs[si], 16 << 10, false);
    ex_window_agg_stats_t st;
    char **got = run(&g, &in, true, 0, 8, false, &st);
    if (!same_rows(got, want)) t_fail(__FILE__, __LINE__, "spec %zu", si);
    CHECK(st.spills > 0);
    CHECK_EQ(st.late_rows, 0);
    CHECK_EQ(g.mem.used, 0);
    tu_rows_free(got);
    /* Checkpoints with spilled runs restore into the same output. */
    char **base = run(&g, &in, true, 0, 8, true, NULL);
    got = run(&g, &in, true, 3, 8, true, NULL);
    if (!same_rows(got, base)) t_fail(__FILE__, __LINE__, "checkpoints, spec %zu", si);
    tu_rows_free(got);
    tu_rows_free(base);
    tu_rows_free(want);
    fl_arena_free(g.a);
    fl_free(in.rows);
  }
}

/* Sessions under a tiny budget: groups spill while sessions keep
 * merging; batch and streaming give the reference's rows. */
TEST(window_agg_spill_sessions) {
  ex_window_spec_t ses = {.kind = EX_WINDOW_SESSION, .gap_us = 2 * MIN_US};
  for (int v = 0; v < 4; v++) {
    bool streaming = v & 1, global = v & 2;
    input_t in;
    /* Partitioned: 60 keys about 3 minutes apart, shuffled by up to 10,
     * so sessions keep merging. Global: bursts of 500 rows 20 minutes
     * apart, hundreds of keys per session, pieces merging late. */
    make_rows(&in, 12000, global ? 600 : 60, (global ? 5 : 10) * MIN_US, 61 + v);
    if (global)
      for (uint32_t i = 0; i < in.n; i++) in.rows[i].t += (int64_t)(i / 500) * 20 * MIN_US;
    ref_t rf = {0};
    ref_sessions(&rf, &ses, &in, global);
    char **want = ref_rows(&rf);
    rig_t g;
    rig_init(&g, ses, 16 << 10, !global);
    ex_window_agg_stats_t st;
    char **got = run(&g, &in, streaming, 0, 8, false, &st);
    if (!same_rows(got, want)) t_fail(__FILE__, __LINE__, "variant %d", v);
    CHECK(st.spills > 0);
    CHECK_EQ(st.late_rows, 0);
    CHECK_EQ(g.mem.used, 0);
    tu_rows_free(got);
    tu_rows_free(want);
    fl_arena_free(g.a);
    fl_free(in.rows);
  }
}

TEST(window_agg_late_rows) {
  rig_t g;
  rig_init(&g, specs[0], 0, false);
  fl_err_t err;
  ex_op_t *op;
  CHECK_OK(ex_window_agg_new(&g.ctx, g.a, &g.o, NULL, &op, &err), &err);
  ex_sink_t *sink = ex_sink_new(op->out_schema);
  op->next = &sink->op;
  row_t r[3] = {{.t = BASE_US + MIN_US, .k = 1, .x = 5},
                {.t = BASE_US + 12 * MIN_US, .k = 1, .x = 6},
                {.t = BASE_US + 3 * MIN_US, .k = 2, .x = 7}};
  ty_batch_t *b = make_batch(g.schema, r, 2);
  CHECK_OK(ex_op_push(op, b, &err), &err);
  ty_batch_free(b);
  /* window_time of [08:00, 08:10) is 08:09:59.999: one microsecond short
   * does not fire it, reaching it does. */
  CHECK_OK(ex_op_watermark(op, BASE_US + 10 * MIN_US - 1001, &err), &err);
  CHECK_EQ(sink->rows, 0);
  CHECK_EQ(sink->watermark_us, BASE_US + 10 * MIN_US - 1001);
  CHECK_OK(ex_op_watermark(op, BASE_US + 10 * MIN_US - 1000, &err), &err);
  CHECK_EQ(sink->rows, 1);
  CHECK_EQ(ex_window_agg_stats(op)->open_windows, 1);
  b = make_batch(g.schema, r + 2, 1);
  CHECK_OK(ex_op_push(op, b, &err), &err);
  ty_batch_free(b);
  CHECK_EQ(ex_window_agg_stats(op)->late_rows, 1);
  CHECK_EQ(g.late_cb_rows, 1);
  CHECK_OK(ex_op_finish(op, &err), &err);
  CHECK_EQ(sink->rows, 2);
  CHECK(sink->finished);
  char **rows = sink_rows(sink, true);
  CHECK(strstr(rows[0], "|1|1|5|5|1") != NULL);
  CHECK(strstr(rows[1], "|1|1|6|6|1") != NULL);
  tu_rows_free(rows);
  ex_op_destroy(op);
  ex_op_destroy(&sink->op);

  /* Allowed lateness delays firing: the same row is then on time. */
  g.o.allowed_lateness_us = MIN_US;
  rig_rebind(&g);
  CHECK_OK(ex_window_agg_new(&g.ctx, g.a, &g.o, NULL, &op, &err), &err);
  sink = ex_sink_new(op->out_schema);
  op->next = &sink->op;
  b = make_batch(g.schema, r, 2);
  CHECK_OK(ex_op_push(op, b, &err), &err);
  ty_batch_free(b);
  CHECK_OK(ex_op_watermark(op, BASE_US + 10 * MIN_US, &err), &err);
  CHECK_EQ(sink->rows, 0);
  b = make_batch(g.schema, r + 2, 1);
  CHECK_OK(ex_op_push(op, b, &err), &err);
  ty_batch_free(b);
  CHECK_EQ(ex_window_agg_stats(op)->late_rows, 0);
  CHECK_OK(ex_op_watermark(op, BASE_US + 11 * MIN_US - 1000, &err), &err);
  CHECK_EQ(sink->rows, 2);
  ex_op_destroy(op);
  ex_op_destroy(&sink->op);

  /* A HOP slide beyond its size leaves rows in no window: not late. */
  ex_window_agg_opts_t saved = g.o;
  g.o.spec = (ex_window_spec_t){.kind = EX_WINDOW_HOP, .size_us = MIN_US, .slide_us = 10 * MIN_US};
  g.o.allowed_lateness_us = 0;
  rig_rebind(&g);
  CHECK_OK(ex_window_agg_new(&g.ctx, g.a, &g.o, NULL, &op, &err), &err);
  sink = ex_sink_new(op->out_schema);
  op->next = &sink->op;
  b = make_batch(g.schema, r, 3);
  CHECK_OK(ex_op_push(op, b, &err), &err);
  ty_batch_free(b);
  CHECK_OK(ex_op_finish(op, &err), &err);
  CHECK_EQ(sink->rows, 0);
  CHECK_EQ(ex_window_agg_stats(op)->late_rows, 0);
  ex_op_destroy(op);
  ex_op_destroy(&sink->op);
  g.o = saved;
  /* Extreme times get no window instead of overflowing. */
  rig_rebind(&g);
  CHECK_OK(ex_window_agg_new(&g.ctx, g.a, &g.o, NULL, &op, &err), &err);
  row_t far[2] = {{.t = INT64_MAX - 5, .k = 1}, {.t = INT64_MIN + 5, .k = 1}};
  b = make_batch(g.schema, far, 2);
  CHECK_OK(ex_op_push(op, b, &err), &err);
  ty_batch_free(b);
  CHECK_OK(ex_op_finish(op, &err), &err);
  CHECK_EQ(ex_window_agg_stats(op)->windows_out, 0);
  ex_op_destroy(op);

  /* A corrupt checkpoint is an error, not a crash. */
  rig_rebind(&g);
  CHECK_OK(ex_window_agg_new(&g.ctx, g.a, &g.o, NULL, &op, &err), &err);
  uint8_t junk[12] = {1, 2, 3};
  fl_rd_t rd;
  fl_rd_init(&rd, junk, sizeof junk, "junk");
  CHECK_ERR(ex_op_restore(op, &rd, &err), FL_ECORRUPT);
  ex_op_destroy(op);
  CHECK_EQ(g.mem.used, 0);
  fl_arena_free(g.a);
}

TEST(window_tvf_rows) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *s;
  ty_schema_parse(a, "ts timestamp, k int, x long", &s, &err);
  ex_window_spec_t hop = {.kind = EX_WINDOW_HOP, .size_us = 10 * MIN_US, .slide_us = 5 * MIN_US};
  ex_op_t *op;
  CHECK_OK(ex_window_tvf_new(a, s, &hop, 0, NULL, &op, &err), &err);
  ex_sink_t *sink = ex_sink_new(op->out_schema);
  op->next = &sink->op;
  row_t r[2] = {{.t = BASE_US + 7 * MIN_US, .k = 1, .x = 5}, {.t_null = true, .k = 2}};
  ty_batch_t *b = make_batch(s, r, 2);
  CHECK_OK(ex_op_push(op, b, &err), &err);
  ty_batch_free(b);
  CHECK_OK(ex_op_finish(op, &err), &err);
  CHECK_EQ(sink->rows, 2);
  char **rows = tu_rows(sink, true);
  CHECK(strstr(rows[0], "08:00:00") != NULL && strstr(rows[0], "08:10:00") != NULL);
  CHECK(strstr(rows[1], "08:05:00") != NULL && strstr(rows[1], "08:15:00") != NULL);
  tu_rows_free(rows);
  ex_op_destroy(op);
  ex_op_destroy(&sink->op);
  ex_window_spec_t ses = {.kind = EX_WINDOW_SESSION, .gap_us = MIN_US};
  CHECK_ERR(ex_window_tvf_new(a, s, &ses, 0, NULL, &op, &err), FL_EUNSUPPORTED);
  CHECK_ERR(ex_window_tvf_new(a, s, &hop, 1, NULL, &op, &err), FL_EINVALID);
  fl_arena_free(a);
}
