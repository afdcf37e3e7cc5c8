/*
 * ex_window_fn_agg.c - aggregates over window frames, through the
 * aggregate interface of ex_agg.h (init/update/combine/finalize), so every
 * aggregate floe has works as a window function.
 *
 * Two evaluation strategies, chosen per partition from the frames:
 *
 *   running       every frame starts at the partition's first row (the
 *                 default frame, UNBOUNDED PRECEDING, and whole-partition
 *                 frames): one state grows as the frame end advances and
 *                 is finalized for each row; O(n) updates in all.
 *   segment tree  any other frame (sliding ROWS, RANGE or GROUPS frames):
 *                 a tree of partial states over blocks of F = 16 rows,
 *                 F^2 rows, ... built with update and combine. A frame
 *                 [s, e) is answered by combining, left to right, the
 *                 largest aligned blocks that fit, updating the at most
 *                 2F - 2 loose rows at the ends directly; that is
 *                 O(F log_F n) work per row whatever the frame width, so
 *                 min/max over a wide sliding frame is not O(n * w).
 *                 Visiting blocks in row order keeps order-sensitive
 *                 aggregates (array_agg) in frame order.
 *
 * In both, a row whose frame equals the previous row's (peers under
 * RANGE, for instance) finalizes the same state again instead of
 * recomputing it. The tree holds about n / 15 states; its heap (for
 * array_agg or approx_* states) is not counted against the budget.
 */
#include "base/alloc.h"
#include "exec/ex_window_int.h"

#define SEG_FANOUT 16
#define CHUNK 2048

typedef struct aggctx {
  ex_agg_t *a;
  const ty_vec_t *arg;
  size_t stride;
  uint32_t zeros[CHUNK]; /* group numbers: all rows go to state 0 */
  uint32_t rows[CHUNK];
} aggctx_t;

/* Folds rows [s, e) of the partition into st. */
static int update_range(aggctx_t *c, uint8_t *st, uint32_t s, uint32_t e, fl_err_t *err) {
  while (s < e) {
    uint32_t m = e - s < CHUNK ? e - s : CHUNK;
    for (uint32_t k = 0; k < m; k++) c->rows[k] = s + k;
    int rc = c->a->fn->update(c->a, st, c->stride, c->zeros, c->arg, c->rows, m, err);
    if (rc) return rc;
    s += m;
  }
  return FL_OK;
}

static void state_free(ex_agg_t *a, uint8_t *st) {
  if (a->fn->destroy) a->fn->destroy(a, st);
}

static int eval_running(aggctx_t *c, const ex_win_part_t *p, ty_vec_t *out, fl_err_t *err) {
  ex_agg_t *a = c->a;
  uint8_t *st = fl_calloc(1, c->stride);
  a->fn->init(a, st);
  uint32_t cur = 0;
  int rc = FL_OK;
  for (uint32_t i = 0; i < p->n && !rc; i++) {
    uint32_t e = p->fend[i];
    if (e > cur) {
      rc = update_range(c, st, cur, e, err);
      cur = e;
    }
    if (!rc) rc = a->fn->finalize(a, st, c->stride, 1, out, err);
  }
  state_free(a, st);
  fl_free(st);
  return rc;
}

typedef struct segtree {
  uint32_t nlevels;        /* levels 1..nlevels; level k blocks F^k rows */
  uint64_t size[16];       /* F^k */
  uint32_t count[16];      /* full blocks at level k */
  uint8_t *states[16];     /* count[k] states of stride bytes */
} segtree_t;

static int seg_build(aggctx_t *c, uint32_t n, segtree_t *t, fl_err_t *err) {
  ex_agg_t *a = c->a;
  memset(t, 0, sizeof *t);
  uint64_t size = SEG_FANOUT;
  for (uint32_t k = 1; k < 16 && size <= n; k++, size *= SEG_FANOUT) {
    t->nlevels = k;
    t->size[k] = size;
    t->count[k] = (uint32_t)(n / size);
    t->states[k] = fl_calloc(t->count[k], c->stride);
    for (uint32_t b = 0; b < t->count[k]; b++) a->fn->init(a, t->states[k] + (size_t)b * c->stride);
  }
  if (!t->nlevels) return FL_OK;
  /* Level 1 straight from the rows, one update call per chunk; the group
   * of row r is its block r / F. */
  uint32_t gids[CHUNK];
  uint32_t rows_end = t->count[1] * SEG_FANOUT;
  for (uint32_t s = 0; s < rows_end; s += CHUNK) {
    uint32_t m = rows_end - s < CHUNK ? rows_end - s : CHUNK;
    for (uint32_t k = 0; k < m; k++) {
      c->rows[k] = s + k;
      gids[k] = (s + k) / SEG_FANOUT;
    }
    int rc = a->fn->update(a, t->states[1], c->stride, gids, c->arg, c->rows, m, err);
    if (rc) return rc;
  }
  for (uint32_t k = 2; k <= t->nlevels; k++)
    for (uint32_t b = 0; b < t->count[k]; b++)
      for (uint32_t j = 0; j < SEG_FANOUT; j++) {
        int rc = a->fn->combine(a, t->states[k] + (size_t)b * c->stride,
                                t->states[k - 1] + ((size_t)b * SEG_FANOUT + j) * c->stride, err);
        if (rc) return rc;
      }
  return FL_OK;
}

static void seg_free(aggctx_t *c, segtree_t *t) {
  for (uint32_t k = 1; k <= t->nlevels; k++) {
    for (uint32_t b = 0; b < t->count[k]; b++) state_free(c->a, t->states[k] + (size_t)b * c->stride);
    fl_free(t->states[k]);
  }
}

/* Folds frame [s, e) into st, in row order. */
static int seg_query(aggctx_t *c, const segtree_t *t, uint8_t *st, uint32_t s, uint32_t e,
                     fl_err_t *err) {
  uint32_t i = s;
  while (i < e) {
    uint32_t k = 0;
    while (k < t->nlevels && i % t->size[k + 1] == 0 && (uint64_t)i + t->size[k + 1] <= e) k++;
    int rc;
    if (k == 0) {
      uint32_t j = (i / SEG_FANOUT + 1) * SEG_FANOUT;
      if (j > e) j = e;
      rc = update_range(c, st, i, j, err);
      i = j;
    } else {
      rc = c->a->fn->combine(c->a, st, t->states[k] + (size_t)(i / t->size[k]) * c->stride, err);
      i += (uint32_t)t->size[k];
    }
    if (rc) return rc;
  }
  return FL_OK;
}

static int eval_segtree(aggctx_t *c, const ex_win_part_t *p, ty_vec_t *out, fl_err_t *err) {
  ex_agg_t *a = c->a;
  segtree_t t;
  int rc = seg_build(c, p->n, &t, err);
  uint8_t *st = fl_calloc(1, c->stride);
  a->fn->init(a, st);
  uint32_t ps = 0, pe = 0; /* the frame st holds */
  for (uint32_t i = 0; i < p->n && !rc; i++) {
    uint32_t s = p->fstart[i], e = p->fend[i];
    if (e < s) e = s;
    if (s != ps || e != pe) {
      state_free(a, st);
      a->fn->init(a, st);
      rc = seg_query(c, &t, st, s, e, err);
      ps = s;
      pe = e;
    }
    if (!rc) rc = a->fn->finalize(a, st, c->stride, 1, out, err);
  }
  state_free(a, st);
  fl_free(st);
  seg_free(c, &t);
  return rc;
}

int ex__win_eval_agg(const ex_window_fn_t *fn, const ex_win_part_t *p, ty_vec_t *out,
                     fl_err_t *err) {
  aggctx_t *c = fl_calloc(1, sizeof *c);
  c->a = fn->agg;
  c->arg = fn->arg_col >= 0 ? p->rows->cols[fn->arg_col] : NULL;
  c->stride = ex_agg_align(fn->agg->fn->state_size ? fn->agg->fn->state_size : 1,
                           fn->agg->fn->state_align ? fn->agg->fn->state_align : 1);
  bool running = true;
  for (uint32_t i = 0; i < p->n && running; i++)
    running = p->fstart[i] == 0 && (i == 0 || p->fend[i] >= p->fend[i - 1]);
  int rc = running ? eval_running(c, p, out, err) : eval_segtree(c, p, out, err);
  fl_free(c);
  if (rc) fl_err_prefix(err, "window %s: ", fn->agg->name);
  return rc;
}
