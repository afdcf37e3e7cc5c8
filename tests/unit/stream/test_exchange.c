/*
 * test_exchange.c - the exchange between a job's lanes (st_exchange.h):
 * rows placed by key hash (every row once, every key on one lane, the
 * rows of one source lane in order, a selection honoured, no keys: all on
 * lane 0), watermarks as the minimum over the lanes that are neither idle
 * nor finished and after the rows before them, finish after every lane's,
 * and real threads pushing into full channels (back-pressure while each
 * lane drains its own) with every row arriving exactly once.
 */
#include <pthread.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "stream/st_exchange.h"
#include "stream/st_watermark.h"
#include "test.h"

#define MAX_EVENTS 200000

/* What a lane's target received, in order: rows as (k, v), watermarks as
 * (-1, ts), finish as (-2, 0). */
typedef struct rec {
  ex_op_t op;
  int64_t (*ev)[2];
  uint32_t nev;
  uint32_t rows, finishes;
} rec_t;

static int rec_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  (void)err;
  rec_t *r = (rec_t *)op;
  uint32_t n = ty_batch_live(b);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t row = b->sel ? b->sel[i] : i;
    if (r->nev < MAX_EVENTS) {
      r->ev[r->nev][0] = ((const int64_t *)b->cols[0]->data)[row];
      r->ev[r->nev++][1] = ((const int64_t *)b->cols[1]->data)[row];
    }
    r->rows++;
  }
  return FL_OK;
}

static int rec_watermark(ex_op_t *op, int64_t ts, fl_err_t *err) {
  (void)err;
  rec_t *r = (rec_t *)op;
  r->ev[r->nev][0] = -1;
  r->ev[r->nev++][1] = ts;
  return FL_OK;
}

static int rec_finish(ex_op_t *op, fl_err_t *err) {
  (void)err;
  rec_t *r = (rec_t *)op;
  r->ev[r->nev][0] = -2;
  r->ev[r->nev++][1] = 0;
  r->finishes++;
  return FL_OK;
}

static const ex_op_vt_t rec_vt = {
    .name = "rec", .push = rec_push, .watermark = rec_watermark, .finish = rec_finish};

static void rec_init(rec_t *r) {
  memset(r, 0, sizeof *r);
  r->op.vt = &rec_vt;
  r->ev = fl_calloc(MAX_EVENTS + 16, sizeof *r->ev);
}

/* A batch of rows (k, v) = (keys[i], first + i). */
static ty_batch_t *batch(const ty_schema_t *s, const int64_t *keys, uint32_t n, int64_t first) {
  ty_batch_t *b = ty_batch_new(s, n ? n : 1);
  for (uint32_t i = 0; i < n; i++) {
    ty_vec_append_i64(b->cols[0], keys[i]);
    ty_vec_append_i64(b->cols[1], first + (int64_t)i);
  }
  b->nrows = n;
  return b;
}

static const ty_schema_t *kv_schema(fl_arena_t *a) {
  ty_schema_t *s;
  fl_err_t err;
  ty_schema_parse(a, "k long, v long", &s, &err);
  return s;
}

static int drain_all(st_exchange_hub_t *h, uint32_t n, fl_err_t *err) {
  for (uint32_t l = 0; l < n; l++) {
    bool did;
    int rc = st_exchange_hub_drain(h, l, &did, err);
    if (rc) return rc;
  }
  return FL_OK;
}

TEST(exchange_places_rows_by_key_once_and_in_order) {
  fl_arena_t *a = fl_arena_new(0);
  const ty_schema_t *s = kv_schema(a);
  enum { N = 3, ROWS = 300 };
  st_exchange_hub_t *h = st_exchange_hub_new(N);
  uint32_t key = 0;
  st_exchange_t *x = st_exchange_new(h, s, &key, 1);
  rec_t rec[N];
  ex_op_t *snd[N];
  for (uint32_t l = 0; l < N; l++) {
    rec_init(&rec[l]);
    snd[l] = st_exchange_attach(x, l, &rec[l].op);
  }
  fl_err_t err;
  fl_err_clear(&err);
  /* Source lane l sends v = l * 100000 + i for key i % 17, two batches
   * each, the second through a selection of its even rows. */
  int64_t keys[ROWS];
  for (uint32_t i = 0; i < ROWS; i++) keys[i] = i % 17;
  uint32_t sent = 0;
  for (uint32_t l = 0; l < N; l++) {
    ty_batch_t *b = batch(s, keys, ROWS, (int64_t)l * 100000);
    CHECK_OK(ex_op_push(snd[l], b, &err), &err);
    sent += ROWS;
    uint32_t even[ROWS / 2];
    for (uint32_t i = 0; i < ROWS / 2; i++) even[i] = 2 * i;
    ty_batch_free(b);
    b = batch(s, keys, ROWS, (int64_t)l * 100000 + ROWS);
    ty_batch_select(b, even, ROWS / 2);
    CHECK_OK(ex_op_push(snd[l], b, &err), &err);
    sent += ROWS / 2;
    ty_batch_free(b);
  }
  CHECK(!st_exchange_hub_quiet(h));
  CHECK(st_exchange_hub_pending(h, 0) || st_exchange_hub_pending(h, 1));
  CHECK_OK(drain_all(h, N, &err), &err);
  CHECK(st_exchange_hub_quiet(h));
  int owner[17];
  for (int k = 0; k < 17; k++) owner[k] = -1;
  uint32_t got = 0, lanes_with_rows = 0;
  for (uint32_t l = 0; l < N; l++) {
    int64_t last[N];
    for (uint32_t s2 = 0; s2 < N; s2++) last[s2] = -1;
    lanes_with_rows += rec[l].rows > 0;
    for (uint32_t e = 0; e < rec[l].nev; e++) {
      int64_t k = rec[l].ev[e][0], v = rec[l].ev[e][1];
      CHECK(k >= 0 && k < 17);
      /* Every key on one lane. */
      CHECK(owner[k] == -1 || owner[k] == (int)l);
      owner[k] = (int)l;
      /* Rows of one source lane in the order it sent them. */
      uint32_t src = (uint32_t)(v / 100000);
      CHECK(v > last[src]);
      last[src] = v;
      /* The second batch sent only its even rows. */
      int64_t i = v % 100000;
      CHECK(i < ROWS || (i - ROWS) % 2 == 0);
      CHECK_EQ(keys[i % ROWS], k);
    }
    got += rec[l].rows;
  }
  CHECK_EQ(got, sent);
  CHECK_EQ(lanes_with_rows, N);
  for (uint32_t l = 0; l < N; l++) fl_free(rec[l].ev);
  st_exchange_hub_free(h);
  fl_arena_free(a);
}

TEST(exchange_without_keys_sends_everything_to_lane_0) {
  fl_arena_t *a = fl_arena_new(0);
  const ty_schema_t *s = kv_schema(a);
  st_exchange_hub_t *h = st_exchange_hub_new(2);
  st_exchange_t *x = st_exchange_new(h, s, NULL, 0);
  rec_t rec[2];
  ex_op_t *snd[2];
  for (uint32_t l = 0; l < 2; l++) {
    rec_init(&rec[l]);
    snd[l] = st_exchange_attach(x, l, &rec[l].op);
  }
  fl_err_t err;
  fl_err_clear(&err);
  int64_t keys[50];
  for (int i = 0; i < 50; i++) keys[i] = i;
  for (uint32_t l = 0; l < 2; l++) {
    ty_batch_t *b = batch(s, keys, 50, l * 1000);
    CHECK_OK(ex_op_push(snd[l], b, &err), &err);
    ty_batch_free(b);
  }
  CHECK_OK(drain_all(h, 2, &err), &err);
  CHECK_EQ(rec[0].rows, 100);
  CHECK_EQ(rec[1].rows, 0);
  for (uint32_t l = 0; l < 2; l++) fl_free(rec[l].ev);
  st_exchange_hub_free(h);
  fl_arena_free(a);
}

/* The watermarks lane l's target got, in order. */
static uint32_t wms(const rec_t *r, int64_t *out) {
  uint32_t n = 0;
  for (uint32_t e = 0; e < r->nev; e++)
    if (r->ev[e][0] == -1) out[n++] = r->ev[e][1];
  return n;
}

TEST(exchange_watermark_is_the_minimum_over_active_lanes) {
  fl_arena_t *a = fl_arena_new(0);
  const ty_schema_t *s = kv_schema(a);
  st_exchange_hub_t *h = st_exchange_hub_new(2);
  uint32_t key = 0;
  st_exchange_t *x = st_exchange_new(h, s, &key, 1);
  rec_t rec[2];
  ex_op_t *snd[2];
  for (uint32_t l = 0; l < 2; l++) {
    rec_init(&rec[l]);
    snd[l] = st_exchange_attach(x, l, &rec[l].op);
  }
  fl_err_t err;
  fl_err_clear(&err);
  int64_t w[16];
  /* Lane 1 has sent no watermark yet: nothing moves. */
  CHECK_OK(ex_op_watermark(snd[0], 100, &err), &err);
  CHECK_OK(drain_all(h, 2, &err), &err);
  CHECK_EQ(wms(&rec[0], w) + wms(&rec[1], w), 0);
  /* Rows of lane 1 go before its watermark, on every lane. */
  int64_t keys[40];
  for (int i = 0; i < 40; i++) keys[i] = i;
  ty_batch_t *b = batch(s, keys, 40, 500);
  CHECK_OK(ex_op_push(snd[1], b, &err), &err);
  ty_batch_free(b);
  CHECK_OK(ex_op_watermark(snd[1], 50, &err), &err);
  CHECK_OK(drain_all(h, 2, &err), &err);
  for (uint32_t l = 0; l < 2; l++) {
    CHECK_EQ(wms(&rec[l], w), 1);
    CHECK_EQ(w[0], 50);
    CHECK(rec[l].rows > 0);
    CHECK_EQ(rec[l].ev[rec[l].nev - 1][0], -1); /* after all of its rows */
  }
  CHECK_OK(ex_op_watermark(snd[1], 200, &err), &err);
  CHECK_OK(drain_all(h, 2, &err), &err);
  CHECK_EQ(wms(&rec[1], w), 2);
  CHECK_EQ(w[1], 100);
  /* Lane 0 idle: lane 1's watermark alone counts. */
  CHECK_OK(st_exchange_set_idle(x, 0, true, &err), &err);
  CHECK_OK(drain_all(h, 2, &err), &err);
  CHECK_EQ(wms(&rec[1], w), 3);
  CHECK_EQ(w[2], 200);
  /* Active again with an older watermark: it never goes back. */
  CHECK_OK(st_exchange_set_idle(x, 0, false, &err), &err);
  CHECK_OK(ex_op_watermark(snd[0], 150, &err), &err);
  CHECK_OK(drain_all(h, 2, &err), &err);
  CHECK_EQ(wms(&rec[0], w), 3);
  CHECK_EQ(w[2], 200);
  CHECK_OK(ex_op_watermark(snd[0], 300, &err), &err);
  CHECK_OK(drain_all(h, 2, &err), &err);
  CHECK_EQ(wms(&rec[0], w), 3); /* lane 1 holds it at 200 */
  /* Both idle (caught up): none holds it back, the furthest counts. */
  CHECK_OK(st_exchange_set_idle(x, 0, true, &err), &err);
  CHECK_OK(drain_all(h, 2, &err), &err);
  CHECK_EQ(wms(&rec[0], w), 3);
  CHECK_OK(st_exchange_set_idle(x, 1, true, &err), &err);
  CHECK_OK(drain_all(h, 2, &err), &err);
  CHECK_EQ(wms(&rec[0], w), 4);
  CHECK_EQ(w[3], 300);
  /* Lane 1 finishes: lane 0's 300 counts; the finish waits for lane 0. */
  CHECK_OK(ex_op_finish(snd[1], &err), &err);
  CHECK_OK(drain_all(h, 2, &err), &err);
  CHECK_EQ(wms(&rec[0], w), 4);
  CHECK_EQ(w[3], 300);
  CHECK_EQ(rec[0].finishes + rec[1].finishes, 0);
  CHECK(!st_exchange_done(x, 0) && !st_exchange_done(x, 1));
  CHECK_OK(ex_op_finish(snd[0], &err), &err);
  CHECK_OK(drain_all(h, 2, &err), &err);
  for (uint32_t l = 0; l < 2; l++) {
    CHECK_EQ(rec[l].finishes, 1);
    CHECK(st_exchange_done(x, l));
  }
  CHECK(ex_op_finish(snd[0], &err) != FL_OK);
  for (uint32_t l = 0; l < 2; l++) fl_free(rec[l].ev);
  st_exchange_hub_free(h);
  fl_arena_free(a);
}

/* ---- threads ---- */

enum { TN = 3, TBATCHES = 150, TROWS = 700, TKEYS = 1000 };

typedef struct tlane {
  st_exchange_hub_t *h;
  st_exchange_t *x;
  ex_op_t *snd;
  rec_t rec;
  const ty_schema_t *s;
  uint32_t lane;
  int rc;
} tlane_t;

static void *tlane_main(void *arg) {
  tlane_t *t = arg;
  fl_err_t err;
  fl_err_clear(&err);
  int64_t keys[TROWS];
  ty_batch_t *b = ty_batch_new(t->s, TROWS);
  for (uint32_t i = 0; i < TBATCHES && !t->rc; i++) {
    ty_batch_reset(b);
    for (uint32_t r = 0; r < TROWS; r++) {
      keys[r] = (int64_t)((i * 7919u + r * 31u + t->lane) % TKEYS);
      ty_vec_append_i64(b->cols[0], keys[r]);
      ty_vec_append_i64(b->cols[1], (int64_t)t->lane * 10000000 + i * TROWS + r);
    }
    b->nrows = TROWS;
    t->rc = ex_op_push(t->snd, b, &err);
    if (!t->rc) t->rc = ex_op_watermark(t->snd, i, &err);
  }
  ty_batch_free(b);
  if (!t->rc) t->rc = ex_op_finish(t->snd, &err);
  while (!t->rc && !st_exchange_done(t->x, t->lane)) {
    uint64_t tk = st_exchange_hub_ticket(t->h, t->lane);
    bool did;
    t->rc = st_exchange_hub_drain(t->h, t->lane, &did, &err);
    if (!did) st_exchange_hub_wait(t->h, t->lane, tk, 10);
  }
  return NULL;
}

TEST(exchange_threads_under_back_pressure_deliver_every_row_once) {
  fl_arena_t *a = fl_arena_new(0);
  const ty_schema_t *s = kv_schema(a);
  st_exchange_hub_t *h = st_exchange_hub_new(TN);
  uint32_t key = 0;
  st_exchange_t *x = st_exchange_new(h, s, &key, 1);
  tlane_t t[TN];
  for (uint32_t l = 0; l < TN; l++) {
    t[l] = (tlane_t){.h = h, .x = x, .s = s, .lane = l};
    rec_init(&t[l].rec);
    t[l].snd = st_exchange_attach(x, l, &t[l].rec.op);
  }
  pthread_t th[TN];
  for (uint32_t l = 0; l < TN; l++) pthread_create(&th[l], NULL, tlane_main, &t[l]);
  for (uint32_t l = 0; l < TN; l++) pthread_join(th[l], NULL);
  uint64_t rows = 0;
  int owner[TKEYS];
  for (int k = 0; k < TKEYS; k++) owner[k] = -1;
  for (uint32_t l = 0; l < TN; l++) {
    CHECK_EQ(t[l].rc, 0);
    CHECK_EQ(t[l].rec.finishes, 1);
    rows += t[l].rec.rows;
    int64_t last[TN] = {-1, -1, -1}, last_wm = -1;
    for (uint32_t e = 0; e < t[l].rec.nev; e++) {
      int64_t k = t[l].rec.ev[e][0], v = t[l].rec.ev[e][1];
      if (k == -1) {
        CHECK(v > last_wm); /* watermarks only grow */
        last_wm = v;
        continue;
      }
      if (k == -2) continue;
      CHECK(owner[k] == -1 || owner[k] == (int)l);
      owner[k] = (int)l;
      uint32_t src = (uint32_t)(v / 10000000);
      CHECK(v > last[src]);
      last[src] = v;
      /* A row of batch i comes after watermark i - 1 of its lane only if
       * every lane had sent it: the watermark forwarded is at most i. */
      CHECK(last_wm < (v % 10000000) / TROWS);
    }
    CHECK_EQ(last_wm, TBATCHES - 1);
  }
  CHECK_EQ(rows, (uint64_t)TN * TBATCHES * TROWS);
  CHECK(st_exchange_hub_quiet(h));
  for (uint32_t l = 0; l < TN; l++) fl_free(t[l].rec.ev);
  st_exchange_hub_free(h);
  fl_arena_free(a);
}
