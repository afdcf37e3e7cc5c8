/*
 * op_window_agg.c - windowed aggregation over TUMBLE, HOP, CUMULATE and
 * SESSION windows, in batch (finish) and streaming (watermark) mode.
 *
 * Algorithm. Every input row is assigned its windows from its event time
 * (ex_window_assign.h; SESSION windows below) and aggregated into the
 * states of its (window, keys) group. Two hash tables of ex_hash_table.h
 * do the lookups a batch at a time: the window table maps (start, end)
 * to a dense window number, and the group table maps (window number,
 * keys..., grouping set) to a dense group number whose aggregate states
 * sit row-wise in one array, `stride` bytes per group, exactly as in
 * hash aggregation (op_hash_agg.c), and are folded by the kernels of
 * ex_agg.h with one update call per batch and aggregate. A row in several
 * windows (HOP, CUMULATE) is looked up once per window: pass j of a batch
 * takes every row's j-th window, so the key columns are never copied.
 * Each window keeps its groups in a list in order of creation.
 *
 * Firing. Windows wait in a binary heap ordered by (end, start, number).
 * A watermark W fires, in that order, every window whose window_time
 * (end - 1 ms) plus the allowed lateness is at most W, as Flink does:
 * its groups are finalized and emitted as window_start, window_end,
 * window_time, keys, aggregates; their states are destroyed and the
 * window forgotten; then the watermark is passed on. finish() fires every
 * window that is left. A row whose windows have all fired is late: it is
 * counted (stats.late_rows) and handed to the late-row callback; a row
 * with a NULL time belongs to no window and is dropped, as in Flink.
 * Fired groups leave dead entries in the group table; when they
 * outnumber the live ones the tables are rebuilt from the live windows
 * and groups (states are moved, not copied), so state stays proportional
 * to the open windows.
 *
 * SESSION windows. Sessions are kept per partition (the TVF's PARTITION
 * BY columns, looked up in a third hash table) as a list of disjoint
 * intervals [first row, last row + gap]. Rows are assigned in order: a
 * row at t covers [t, t + gap]; if that meets no session of its partition
 * it opens one; otherwise the sessions it meets (one, or several that it
 * bridges) become one, the one starting first absorbing the others, whose
 * groups move into it (a group of equal keys combines its states). A
 * session is a window of the group table like any other; its heap entry
 * is renewed whenever its bounds change and stale entries are skipped.
 * A row is late when [t, t + gap] would fire at the current watermark.
 *
 * Spilling. After each batch the operator
 * reserves its footprint against the query budget. When that is refused,
 * every live group is written, in window order (end, start), to a new
 * run file (ex_spill.h) as start, end, keys and one binary column of
 * serialized states; the group table is emptied, the windows stay
 * registered and are marked spilled. Runs are sorted the way windows
 * fire, so each run is read once, front to back: when a spilled window
 * fires, the rows of that window at the head of every run are merged into
 * the group table (new groups take the deserialized states, existing ones
 * combine) and the window is emitted. At most one window's groups (and
 * one batch of others) are back in memory at a time, and the results are
 * exactly those of an in-memory run. When MAX_RUNS runs exist, their
 * unread rows are merged into one run (a k-way merge in firing order), so
 * the open files stay few whatever the number of spills. SESSION groups
 * spill the same way, each run row naming its session; since sessions
 * keep merging, a run row belongs to the root of its session's
 * merged_into chain (merged sessions stay registered while runs exist),
 * and firing splits the runs by root (fire_sessions_spilled).
 *
 * States.
 *   RUNNING    consuming batches and watermarks.
 *   FINISHED   every window emitted and finish() passed on; pushes are
 *              an error.
 *
 * Checkpoint format (little-endian), written by checkpoint() and read by
 * restore() into a freshly constructed operator with the same options:
 *   u32 'WAGG' | u32 version 1 | u32 window kind
 *   i64 watermark | u64 rows_in | u64 late_rows | u64 windows_out
 *   | u64 groups_out | u32 open windows N
 *   N x (i64 start, i64 end, u8 spilled)      in firing order
 *   SESSION: u32 chunks, encoded batches of the N sessions' partition keys
 *   u32 chunks, encoded batches of groups: window ordinal (bigint, into
 *     the N above), keys, grouping set, serialized states (binary), each
 *     window's groups in their list order
 *   (u8 1, encoded batch)* u8 0: the spilled rows not yet read back, in
 *     the run layout (start, end, keys, set, states) and firing order
 * A restored operator continues exactly as the one that wrote it would
 * have. Spilled runs are first merged into one, whose rows are copied
 * into the checkpoint and become one run of the restored operator.
 * SESSION windows with spilled groups refuse to checkpoint
 * (FL_EUNSUPPORTED): their runs name sessions by number.
 */
#define _GNU_SOURCE /* qsort_r */
#include "exec/op_window_agg.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "exec/ex_hash_table.h"
#include "exec/ex_spill.h"
#include "exec/ex_vec.h"

#define NONE UINT32_MAX
#define MIN_SPILL_GROUPS 64
#define MAX_RUNS 16 /* open run files before they are merged into one */
#define COMPACT_MIN_DEAD 4096
#define CHECKPOINT_MAGIC 0x47474157u /* "WAGG" */

typedef struct win {
  int64_t start, end;
  uint32_t head, tail, ngroups; /* the window's groups, in creation order */
  uint32_t part;                /* SESSION: its partition */
  uint32_t next_in_part;        /* SESSION: the partition's next open session */
  uint32_t merged_into;         /* SESSION: itself, or the session that absorbed it */
  bool alive, spilled;          /* spilled: groups of it (or of sessions it absorbed) are in runs */
  bool firing;                  /* SESSION: due in the current fire() */
} win_t;

typedef struct heap_ent {
  int64_t end, start;
  uint32_t wid;
} heap_ent_t;

typedef struct run {
  ex_spill_file_t *f;
  ty_batch_t *cur;
  uint32_t pos;
  bool eof;
} run_t;

typedef struct wagg {
  ex_op_t op;
  ex_opctx_t *ctx;
  ex_window_spec_t spec;
  bool session, finished;
  const ty_schema_t *in;
  uint32_t time_col, nkeys, nsets, naggs, npart, ntk;
  uint32_t *key_cols, *part_cols;
  uint64_t *sets;
  ex_agg_spec_t *aggs;
  size_t *offsets;
  size_t stride;
  int64_t lateness, wm;
  ex_window_late_fn late_fn;
  void *late_arg;
  /* Windows and sessions. */
  win_t *wins;
  uint32_t nwins, wins_cap, nalive;
  ex_ht_t *wht; /* (start, end) -> window number */
  ex_ht_t *pht; /* SESSION: partition keys -> partition */
  const ty_type_t **ptypes;
  uint32_t *part_head, part_cap;
  heap_ent_t *heap;
  uint32_t nheap, heap_cap;
  /* Groups. */
  ex_ht_t *ght;
  const ty_type_t **gtypes; /* window number, keys, grouping set */
  uint8_t *states;
  uint32_t states_cap, ninit;
  uint32_t *g_next;
  uint8_t *g_alive;
  uint32_t nlive, ndead;
  /* Per batch scratch, indexed by batch row. */
  ty_vec_t *wid_vec, *ws_vec, *we_vec, *set_vec, **null_cols, **probe, **mv;
  uint32_t *rows, *prow, *gids, *frows, *fgids, *row_wid, *vr, scap;
  uint8_t *has_win; /* per row: 0 no window, 1 only fired ones (late), 2 assigned */
  uint8_t *tmp_state, *emit_states;
  uint32_t *found, found_cap;
  /* Output, spill and checkpoint batches. */
  ty_batch_t *out_batch, *spill_batch, *ckpt_batch, *part_batch;
  const ty_schema_t *spill_schema, *ckpt_schema, *part_schema;
  fl_buf_t sbuf;
  ex_spill_dir_t *dir;
  run_t *runs;
  uint32_t nruns;
  size_t reserved;
  ex_window_agg_stats_t stats;
} wagg_t;

/* ---- small pieces ---- */

static bool fires(const wagg_t *w, int64_t end) {
  return w->wm != INT64_MIN && EX_WINDOW_TIME_US(end) + w->lateness <= w->wm;
}

static bool heap_less(const heap_ent_t *a, const heap_ent_t *b) {
  if (a->end != b->end) return a->end < b->end;
  if (a->start != b->start) return a->start < b->start;
  return a->wid < b->wid;
}

static void heap_push(wagg_t *w, uint32_t wid) {
  if (w->nheap == w->heap_cap) {
    w->heap_cap = w->heap_cap ? w->heap_cap * 2 : 64;
    w->heap = fl_realloc(w->heap, w->heap_cap * sizeof *w->heap);
  }
  heap_ent_t e = {.end = w->wins[wid].end, .start = w->wins[wid].start, .wid = wid};
  uint32_t i = w->nheap++;
  while (i) {
    uint32_t p = (i - 1) / 2;
    if (!heap_less(&e, &w->heap[p])) break;
    w->heap[i] = w->heap[p];
    i = p;
  }
  w->heap[i] = e;
}

static heap_ent_t heap_pop(wagg_t *w) {
  heap_ent_t top = w->heap[0], last = w->heap[--w->nheap];
  uint32_t i = 0;
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= w->nheap) break;
    if (c + 1 < w->nheap && heap_less(&w->heap[c + 1], &w->heap[c])) c++;
    if (!heap_less(&w->heap[c], &last)) break;
    w->heap[i] = w->heap[c];
    i = c;
  }
  if (w->nheap) w->heap[i] = last;
  return top;
}

static uint32_t new_window(wagg_t *w, int64_t start, int64_t end, uint32_t part) {
  if (w->nwins == w->wins_cap) {
    w->wins_cap = w->wins_cap ? w->wins_cap * 2 : 64;
    w->wins = fl_realloc(w->wins, w->wins_cap * sizeof *w->wins);
  }
  uint32_t wid = w->nwins++;
  w->wins[wid] = (win_t){.start = start,
                         .end = end,
                         .head = NONE,
                         .tail = NONE,
                         .part = part,
                         .next_in_part = NONE,
                         .merged_into = wid,
                         .alive = true};
  if (w->session) {
    w->wins[wid].next_in_part = w->part_head[part];
    w->part_head[part] = wid;
  }
  w->nalive++;
  heap_push(w, wid);
  return wid;
}

/* A bigint vector of n rows, all valid, for values set by row index. */
static int64_t *fill_long(ty_vec_t *v, uint32_t n) {
  ty_vec_reset(v);
  ty_vec_reserve(v, n ? n : 1);
  memset(v->validity, 0xff, (n + 7) / 8);
  v->len = n;
  v->null_count = 0;
  return (int64_t *)v->data;
}

static void reserve_scratch(wagg_t *w, uint32_t n) {
  if (n <= w->scap) return;
  w->scap = n;
  uint32_t **arrs[] = {&w->rows, &w->prow, &w->gids, &w->frows, &w->fgids, &w->row_wid, &w->vr};
  for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++)
    *arrs[i] = fl_realloc(*arrs[i], n * sizeof(uint32_t));
  w->has_win = fl_realloc(w->has_win, n);
  for (uint32_t c = 0; c < w->nkeys; c++) {
    ty_vec_reset(w->null_cols[c]);
    ex_vec_append_nulls(w->null_cols[c], n);
  }
}

static void init_states(wagg_t *w, uint32_t groups) {
  if (groups > w->states_cap) {
    uint32_t cap = w->states_cap ? w->states_cap : 64;
    while (cap < groups) cap *= 2;
    w->states = fl_realloc(w->states, (size_t)cap * w->stride);
    w->g_next = fl_realloc(w->g_next, cap * sizeof *w->g_next);
    w->g_alive = fl_realloc(w->g_alive, cap);
    w->states_cap = cap;
  }
  for (uint32_t g = w->ninit; g < groups; g++) {
    for (uint32_t i = 0; i < w->naggs; i++)
      w->aggs[i].agg->fn->init(w->aggs[i].agg, w->states + (size_t)g * w->stride + w->offsets[i]);
    w->g_alive[g] = 0;
    w->g_next[g] = NONE;
  }
  if (groups > w->ninit) w->ninit = groups;
}

static void destroy_state(wagg_t *w, uint8_t *st) {
  for (uint32_t i = 0; i < w->naggs; i++) {
    ex_agg_t *a = w->aggs[i].agg;
    if (a->fn->destroy) a->fn->destroy(a, st + w->offsets[i]);
  }
}

/* Destroys the states of every live group and forgets all groups. */
static void drop_groups(wagg_t *w) {
  for (uint32_t g = 0; g < w->ninit; g++)
    if (w->g_alive[g]) destroy_state(w, w->states + (size_t)g * w->stride);
  w->ninit = 0;
  w->nlive = w->ndead = 0;
  ex_ht_free(w->ght);
  w->ght = ex_ht_new(w->gtypes, w->ntk);
  fl_free(w->states);
  fl_free(w->g_next);
  fl_free(w->g_alive);
  w->states = NULL;
  w->g_next = NULL;
  w->g_alive = NULL;
  w->states_cap = 0;
  for (uint32_t i = 0; i < w->nwins; i++) {
    w->wins[i].head = w->wins[i].tail = NONE;
    w->wins[i].ngroups = 0;
  }
}

/* Makes groups created by a lookup live and appends each to the list of
 * its window (wid[rows[k]] of the probe). */
static void link_new(wagg_t *w, const uint32_t *rows, const uint32_t *gids, uint32_t n,
                     uint32_t before, const int64_t *wid) {
  for (uint32_t k = 0; k < n; k++) {
    uint32_t g = gids[k];
    if (g < before || w->g_alive[g]) continue;
    w->g_alive[g] = 1;
    w->nlive++;
    win_t *x = &w->wins[wid[rows ? rows[k] : k]];
    if (x->tail == NONE)
      x->head = g;
    else
      w->g_next[x->tail] = g;
    x->tail = g;
    x->ngroups++;
  }
}

static int update_aggs(wagg_t *w, const ty_batch_t *b, const uint32_t *rows, const uint32_t *gids,
                       uint32_t n, fl_err_t *err) {
  for (uint32_t i = 0; i < w->naggs; i++) {
    const ex_agg_spec_t *s = &w->aggs[i];
    const uint32_t *r = rows, *g = gids;
    uint32_t m = n;
    if (s->filter_col >= 0) {
      const ty_vec_t *f = b->cols[s->filter_col];
      m = 0;
      for (uint32_t k = 0; k < n; k++)
        if (ty_vec_is_valid(f, rows[k]) && f->data[rows[k]]) {
          w->frows[m] = rows[k];
          w->fgids[m++] = gids[k];
        }
      r = w->frows;
      g = w->fgids;
    }
    if (!m) continue;
    const ty_vec_t *arg = s->arg_col >= 0 ? b->cols[s->arg_col] : NULL;
    int rc = s->agg->fn->update(s->agg, w->states + w->offsets[i], w->stride, g, arg, r, m, err);
    if (rc) return fl_err_prefix(err, "%s: ", s->agg->name);
  }
  return FL_OK;
}

/* Aggregates rows[0..n) of b into the windows wid_vec holds for them,
 * once per grouping set. */
static int aggregate_rows(wagg_t *w, const ty_batch_t *b, const uint32_t *rows, uint32_t n,
                          fl_err_t *err) {
  uint32_t nsets = w->nsets ? w->nsets : 1;
  w->probe[0] = w->wid_vec;
  for (uint32_t s = 0; s < nsets; s++) {
    for (uint32_t c = 0; c < w->nkeys; c++) {
      bool in = w->nsets == 0 || (w->sets[s] >> c) & 1;
      w->probe[1 + c] = in ? b->cols[w->key_cols[c]] : w->null_cols[c];
    }
    if (w->nsets) {
      int64_t *d = fill_long(w->set_vec, b->nrows);
      for (uint32_t k = 0; k < b->nrows; k++) d[k] = s;
      w->probe[1 + w->nkeys] = w->set_vec;
    }
    uint32_t before = ex_ht_groups(w->ght);
    ex_ht_find_or_insert(w->ght, w->probe, rows, n, NULL, w->gids);
    init_states(w, ex_ht_groups(w->ght));
    link_new(w, rows, w->gids, n, before, (const int64_t *)w->wid_vec->data);
    int rc = update_aggs(w, b, rows, w->gids, n, err);
    if (rc) return rc;
  }
  return FL_OK;
}

/* ---- sessions ---- */

/* Moves the groups of session `from` into session `to`. */
static int merge_session(wagg_t *w, uint32_t to, uint32_t from, fl_err_t *err) {
  win_t *src = &w->wins[from];
  uint32_t g = src->head;
  uint32_t list[TY_BATCH_ROWS];
  while (g != NONE) {
    uint32_t n = 0;
    while (g != NONE && n < TY_BATCH_ROWS) {
      list[n++] = g;
      g = w->g_next[g];
    }
    /* The keys are copied out first: inserting may move the table's own
     * key columns. */
    int64_t *wid = fill_long(w->mv[0], n);
    for (uint32_t k = 0; k < n; k++) wid[k] = to;
    for (uint32_t c = 1; c < w->ntk; c++) {
      ty_vec_reset(w->mv[c]);
      ex_vec_gather(w->mv[c], ex_ht_keys(w->ght, c), list, n);
    }
    uint32_t before = ex_ht_groups(w->ght);
    ex_ht_find_or_insert(w->ght, w->mv, NULL, n, NULL, w->gids);
    init_states(w, ex_ht_groups(w->ght));
    for (uint32_t k = 0; k < n; k++) {
      uint32_t ng = w->gids[k];
      uint8_t *dst = w->states + (size_t)ng * w->stride;
      uint8_t *old = w->states + (size_t)list[k] * w->stride;
      if (ng >= before && !w->g_alive[ng]) {
        destroy_state(w, dst);
        memcpy(dst, old, w->stride);
      } else {
        for (uint32_t i = 0; i < w->naggs; i++) {
          ex_agg_t *a = w->aggs[i].agg;
          int rc = a->fn->combine(a, dst + w->offsets[i], old + w->offsets[i], err);
          if (rc) return fl_err_prefix(err, "%s: ", a->name);
        }
        destroy_state(w, old);
      }
      w->g_alive[list[k]] = 0;
      w->nlive--;
      w->ndead++;
    }
    link_new(w, NULL, w->gids, n, before, wid);
  }
  /* Unlink `from` from its partition's list. */
  uint32_t *pp = &w->part_head[src->part];
  while (*pp != from) pp = &w->wins[*pp].next_in_part;
  *pp = src->next_in_part;
  src->alive = false;
  src->merged_into = to;
  if (src->spilled) w->wins[to].spilled = true;
  src->head = src->tail = NONE;
  src->ngroups = 0;
  w->nalive--;
  return FL_OK;
}

/* Assigns rows vr[0..nv) (non-NULL times) to sessions, merging as they
 * bridge gaps; prow gets the rows that are not late, wid_vec their
 * sessions. */
static int assign_sessions(wagg_t *w, const ty_batch_t *b, uint32_t nv, uint32_t *m,
                           fl_err_t *err) {
  const int64_t *t = (const int64_t *)b->cols[w->time_col]->data;
  ty_vec_t *pcols[64];
  for (uint32_t c = 0; c < w->npart; c++) pcols[c] = b->cols[w->part_cols[c]];
  uint32_t before = ex_ht_groups(w->pht);
  ex_ht_find_or_insert(w->pht, pcols, w->vr, nv, NULL, w->gids);
  uint32_t nparts = ex_ht_groups(w->pht);
  if (nparts > w->part_cap) {
    uint32_t cap = w->part_cap ? w->part_cap : 64;
    while (cap < nparts) cap *= 2;
    w->part_head = fl_realloc(w->part_head, cap * sizeof *w->part_head);
    w->part_cap = cap;
  }
  for (uint32_t p = before; p < nparts; p++) w->part_head[p] = NONE;
  int64_t *wid = fill_long(w->wid_vec, b->nrows);
  *m = 0;
  for (uint32_t k = 0; k < nv; k++) {
    uint32_t r = w->vr[k], part = w->gids[k];
    int64_t lo = t[r], hi;
    if (__builtin_add_overflow(lo, w->spec.gap_us, &hi)) continue;
    if (fires(w, hi)) {
      w->has_win[r] = 1;
      continue;
    }
    uint32_t nf = 0, best = NONE;
    for (uint32_t s = w->part_head[part]; s != NONE; s = w->wins[s].next_in_part) {
      const win_t *x = &w->wins[s];
      if (x->start > hi || x->end < lo) continue;
      if (nf == w->found_cap) {
        w->found_cap = w->found_cap ? w->found_cap * 2 : 8;
        w->found = fl_realloc(w->found, w->found_cap * sizeof *w->found);
      }
      w->found[nf++] = s;
      if (best == NONE || x->start < w->wins[best].start) best = s;
    }
    uint32_t sid;
    if (!nf) {
      sid = new_window(w, lo, hi, part);
    } else {
      sid = best;
      int64_t s0 = w->wins[sid].start, e0 = w->wins[sid].end;
      int64_t s1 = lo < s0 ? lo : s0, e1 = hi > e0 ? hi : e0;
      for (uint32_t i = 0; i < nf; i++) {
        if (w->found[i] == sid) continue;
        if (w->wins[w->found[i]].end > e1) e1 = w->wins[w->found[i]].end;
        int rc = merge_session(w, sid, w->found[i], err);
        if (rc) return rc;
      }
      if (s1 != s0 || e1 != e0) {
        w->wins[sid].start = s1;
        w->wins[sid].end = e1;
        heap_push(w, sid);
      }
    }
    w->row_wid[r] = sid;
    w->has_win[r] = 2;
    w->prow[(*m)++] = r;
  }
  /* Rows assigned before a later row merged their session follow it. */
  for (uint32_t k = 0; k < *m; k++) {
    uint32_t r = w->prow[k], s = w->row_wid[r];
    while (w->wins[s].merged_into != s) s = w->wins[s].merged_into;
    wid[r] = s;
  }
  return FL_OK;
}

/* ---- TUMBLE, HOP, CUMULATE ---- */

static int assign_windows(wagg_t *w, const ty_batch_t *b, uint32_t nv, fl_err_t *err) {
  const int64_t *t = (const int64_t *)b->cols[w->time_col]->data;
  int64_t *ws = fill_long(w->ws_vec, b->nrows), *we = fill_long(w->we_vec, b->nrows);
  uint32_t maxj = ex_window_max_per_row(&w->spec);
  ty_vec_t *wcols[2] = {w->ws_vec, w->we_vec};
  for (uint32_t j = 0; j < maxj; j++) {
    uint32_t m = 0;
    bool any = false;
    for (uint32_t k = 0; k < nv; k++) {
      uint32_t r = w->vr[k];
      int64_t s, e;
      if (!ex_window_nth(&w->spec, t[r], j, &s, &e)) continue;
      any = true;
      if (fires(w, e)) {
        if (!w->has_win[r]) w->has_win[r] = 1;
        continue;
      }
      ws[r] = s;
      we[r] = e;
      w->has_win[r] = 2;
      w->prow[m++] = r;
    }
    if (!any) break;
    if (!m) continue;
    ex_ht_find_or_insert(w->wht, wcols, w->prow, m, NULL, w->gids);
    int64_t *wid = fill_long(w->wid_vec, b->nrows);
    for (uint32_t k = 0; k < m; k++) {
      uint32_t r = w->prow[k];
      if (w->gids[k] == w->nwins) new_window(w, ws[r], we[r], 0);
      wid[r] = w->gids[k];
    }
    int rc = aggregate_rows(w, b, w->prow, m, err);
    if (rc) return rc;
  }
  return FL_OK;
}

/* ---- walking the groups of windows ---- */

/* Calls fn with the groups of windows order[0..nw) in that order and in
 * each window's list order, at most TY_BATCH_ROWS at a time; ord[k] is
 * the index into order of group gids[k]'s window. */
typedef int (*chunk_fn)(wagg_t *w, const uint32_t *order, const uint32_t *gids, const uint32_t *ord,
                        uint32_t n, void *arg, fl_err_t *err);

static int walk_groups(wagg_t *w, const uint32_t *order, uint32_t nw, chunk_fn fn, void *arg,
                       fl_err_t *err) {
  uint32_t *gids = fl_malloc(TY_BATCH_ROWS * sizeof *gids);
  uint32_t *ord = fl_malloc(TY_BATCH_ROWS * sizeof *ord);
  uint32_t n = 0;
  int rc = FL_OK;
  for (uint32_t i = 0; i < nw && !rc; i++)
    for (uint32_t g = w->wins[order[i]].head; g != NONE && !rc; g = w->g_next[g]) {
      gids[n] = g;
      ord[n++] = i;
      if (n == TY_BATCH_ROWS) {
        rc = fn(w, order, gids, ord, n, arg, err);
        n = 0;
      }
    }
  if (!rc && n) rc = fn(w, order, gids, ord, n, arg, err);
  fl_free(gids);
  fl_free(ord);
  return rc;
}

static int cmp_wid(const void *a, const void *b, void *arg) {
  const win_t *wins = arg;
  const win_t *x = &wins[*(const uint32_t *)a], *y = &wins[*(const uint32_t *)b];
  if (x->end != y->end) return x->end < y->end ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
  return i < j ? -1 : i > j;
}

/* The open windows in firing order; free with fl_free. */
static uint32_t *open_windows(wagg_t *w, uint32_t *n) {
  uint32_t *order = fl_malloc((w->nalive ? w->nalive : 1) * sizeof *order);
  uint32_t k = 0;
  for (uint32_t i = 0; i < w->nwins; i++)
    if (w->wins[i].alive) order[k++] = i;
  qsort_r(order, k, sizeof *order, cmp_wid, w->wins);
  *n = k;
  return order;
}

/* Serialized states of groups gids[0..n) into the binary column blob. */
static void serialize_states(wagg_t *w, const uint32_t *gids, uint32_t n, ty_vec_t *blob) {
  for (uint32_t k = 0; k < n; k++) {
    fl_buf_clear(&w->sbuf);
    const uint8_t *st = w->states + (size_t)gids[k] * w->stride;
    for (uint32_t i = 0; i < w->naggs; i++)
      w->aggs[i].agg->fn->serialize(w->aggs[i].agg, st + w->offsets[i], &w->sbuf);
    ty_vec_append_bytes(blob, w->sbuf.data, w->sbuf.len);
  }
}

/* ---- emitting ---- */

static int emit_chunk(wagg_t *w, const uint32_t *order, const uint32_t *gids, const uint32_t *ord,
                      uint32_t n, void *arg, fl_err_t *err) {
  (void)arg;
  ty_batch_t *ob = w->out_batch;
  ty_batch_reset(ob);
  for (uint32_t k = 0; k < n; k++) {
    const win_t *x = &w->wins[order[ord[k]]];
    ty_vec_append_i64(ob->cols[0], x->start);
    ty_vec_append_i64(ob->cols[1], x->end);
    ty_vec_append_i64(ob->cols[2], EX_WINDOW_TIME_US(x->end));
  }
  for (uint32_t c = 1; c < w->ntk; c++)
    ex_vec_gather(ob->cols[2 + c], ex_ht_keys(w->ght, c), gids, n);
  for (uint32_t k = 0; k < n; k++)
    memcpy(w->emit_states + (size_t)k * w->stride, w->states + (size_t)gids[k] * w->stride,
           w->stride);
  int rc = FL_OK;
  for (uint32_t i = 0; i < w->naggs && !rc; i++) {
    ex_agg_t *a = w->aggs[i].agg;
    rc = a->fn->finalize(a, w->emit_states + w->offsets[i], w->stride, n, ob->cols[2 + w->ntk + i],
                         err);
    if (rc) fl_err_prefix(err, "%s: ", a->name);
  }
  for (uint32_t k = 0; k < n; k++) {
    destroy_state(w, w->emit_states + (size_t)k * w->stride);
    w->g_alive[gids[k]] = 0;
  }
  w->nlive -= n;
  w->ndead += n;
  if (rc) return rc;
  ty_batch_seal(ob);
  w->stats.groups_out += n;
  return ex_op_emit(&w->op, ob, err);
}

static int merge_runs(wagg_t *w, uint32_t wid, fl_err_t *err);
static int compact(wagg_t *w);

/* Emits windows order[0..n) and forgets them. */
static int emit_windows(wagg_t *w, const uint32_t *order, uint32_t n, fl_err_t *err) {
  int rc = walk_groups(w, order, n, emit_chunk, NULL, err);
  for (uint32_t i = 0; i < n; i++) {
    win_t *x = &w->wins[order[i]];
    x->alive = false;
    x->head = x->tail = NONE;
    x->ngroups = 0;
    w->nalive--;
    w->stats.windows_out++;
  }
  return rc;
}

/* Fires the windows due at the watermark (all of them when all is set),
 * in (end, start) order, at most about one batch of groups held back. */
static int fire_sessions_spilled(wagg_t *w, bool all, fl_err_t *err);

static int fire(wagg_t *w, bool all, fl_err_t *err) {
  if (w->session && w->nruns) return fire_sessions_spilled(w, all, err);
  uint32_t *pend = NULL, np = 0, cap = 0, groups = 0;
  int rc = FL_OK;
  while (w->nheap && !rc) {
    heap_ent_t top = w->heap[0];
    if (!all && !fires(w, top.end)) break;
    heap_pop(w);
    win_t *x = &w->wins[top.wid];
    if (!x->alive || x->start != top.start || x->end != top.end) continue;
    if (x->spilled && (rc = merge_runs(w, top.wid, err))) break;
    if (np == cap) {
      cap = cap ? cap * 2 : 64;
      pend = fl_realloc(pend, cap * sizeof *pend);
    }
    pend[np++] = top.wid;
    groups += x->ngroups;
    if (groups >= TY_BATCH_ROWS || x->spilled) {
      rc = emit_windows(w, pend, np, err);
      np = groups = 0;
    }
  }
  if (!rc && np) rc = emit_windows(w, pend, np, err);
  fl_free(pend);
  if (!rc && w->ndead > w->nlive && w->ndead >= COMPACT_MIN_DEAD && !(w->session && w->nruns))
    rc = compact(w);
  return rc;
}

/* ---- compaction ---- */

static int move_chunk(wagg_t *w, const uint32_t *order, const uint32_t *gids, const uint32_t *ord,
                      uint32_t n, void *arg, fl_err_t *err) {
  (void)order;
  (void)err;
  wagg_t *nw = arg; /* the new tables, built in a scratch operator */
  int64_t *wid = fill_long(w->mv[0], n);
  for (uint32_t k = 0; k < n; k++) wid[k] = ord[k];
  for (uint32_t c = 1; c < w->ntk; c++) {
    ty_vec_reset(w->mv[c]);
    ex_vec_gather(w->mv[c], ex_ht_keys(w->ght, c), gids, n);
  }
  uint32_t before = ex_ht_groups(nw->ght);
  ex_ht_find_or_insert(nw->ght, w->mv, NULL, n, NULL, w->gids);
  init_states(nw, ex_ht_groups(nw->ght));
  for (uint32_t k = 0; k < n; k++) {
    uint8_t *dst = nw->states + (size_t)w->gids[k] * w->stride;
    destroy_state(w, dst);
    memcpy(dst, w->states + (size_t)gids[k] * w->stride, w->stride);
    w->g_alive[gids[k]] = 0;
  }
  link_new(nw, NULL, w->gids, n, before, wid);
  return FL_OK;
}

/*
 * Rebuilds the window, partition and group tables from the open windows
 * (renumbered in firing order) and their live groups (moved in list
 * order), dropping what fired or merged away.
 */
static int compact(wagg_t *w) {
  uint32_t nw;
  uint32_t *order = open_windows(w, &nw);
  /* move_chunk looks up whole chunks of groups into w->gids; the scratch
   * must hold one before t copies its pointers (a realloc later would
   * leave t's stale). */
  reserve_scratch(w, TY_BATCH_ROWS);
  wagg_t t = *w; /* the new structures; shares the options */
  t.wins = fl_malloc((nw ? nw : 1) * sizeof *t.wins);
  t.wins_cap = nw ? nw : 1;
  t.nwins = 0;
  t.nalive = 0;
  t.nheap = 0;
  t.heap = NULL;
  t.heap_cap = 0;
  t.ght = ex_ht_new(w->gtypes, w->ntk);
  t.states = NULL;
  t.g_next = NULL;
  t.g_alive = NULL;
  t.states_cap = t.ninit = t.nlive = t.ndead = 0;
  if (w->session) {
    t.pht = ex_ht_new(w->ptypes, w->npart);
    t.part_head = NULL;
    t.part_cap = 0;
    uint32_t *pl = fl_malloc((nw ? nw : 1) * sizeof *pl);
    for (uint32_t i = 0; i < nw; i++) pl[i] = w->wins[order[i]].part;
    ty_vec_t **pk = fl_calloc(w->npart ? w->npart : 1, sizeof *pk);
    for (uint32_t c = 0; c < w->npart; c++) {
      pk[c] = ty_vec_new(w->ptypes[c], nw ? nw : 1);
      ex_vec_gather(pk[c], ex_ht_keys(w->pht, c), pl, nw);
    }
    uint32_t *np = fl_malloc((nw ? nw : 1) * sizeof *np);
    for (uint32_t i0 = 0; i0 < nw; i0 += TY_BATCH_ROWS) {
      uint32_t n = nw - i0 < TY_BATCH_ROWS ? nw - i0 : TY_BATCH_ROWS;
      uint32_t rows[TY_BATCH_ROWS];
      for (uint32_t k = 0; k < n; k++) rows[k] = i0 + k;
      ex_ht_find_or_insert(t.pht, pk, rows, n, NULL, np + i0);
    }
    uint32_t nparts = ex_ht_groups(t.pht);
    t.part_cap = nparts ? nparts : 1;
    t.part_head = fl_malloc(t.part_cap * sizeof *t.part_head);
    for (uint32_t p = 0; p < nparts; p++) t.part_head[p] = NONE;
    for (uint32_t i = 0; i < nw; i++) {
      const win_t *x = &w->wins[order[i]];
      new_window(&t, x->start, x->end, np[i]);
    }
    for (uint32_t c = 0; c < w->npart; c++) ty_vec_free(pk[c]);
    fl_free(pk);
    fl_free(np);
    fl_free(pl);
  } else {
    t.wht = ex_ht_new((const ty_type_t *const[]){ty_primitive(TY_LONG), ty_primitive(TY_LONG)}, 2);
    ty_vec_t *cols[2] = {ty_vec_new(ty_primitive(TY_LONG), 64),
                         ty_vec_new(ty_primitive(TY_LONG), 64)};
    uint32_t one = 0, g;
    for (uint32_t i = 0; i < nw; i++) {
      const win_t *x = &w->wins[order[i]];
      ty_vec_reset(cols[0]);
      ty_vec_reset(cols[1]);
      ty_vec_append_i64(cols[0], x->start);
      ty_vec_append_i64(cols[1], x->end);
      ex_ht_find_or_insert(t.wht, cols, &one, 1, NULL, &g);
      new_window(&t, x->start, x->end, 0);
      t.wins[i].spilled = x->spilled;
    }
    ty_vec_free(cols[0]);
    ty_vec_free(cols[1]);
  }
  walk_groups(w, order, nw, move_chunk, &t, NULL);
  fl_free(order);
  /* Every live group has moved; the old tables hold nothing to destroy. */
  ex_ht_free(w->ght);
  fl_free(w->states);
  fl_free(w->g_next);
  fl_free(w->g_alive);
  fl_free(w->wins);
  fl_free(w->heap);
  if (w->session) {
    ex_ht_free(w->pht);
    fl_free(w->part_head);
  } else {
    ex_ht_free(w->wht);
  }
  *w = t;
  w->stats.compactions++;
  return FL_OK;
}

/* ---- spilling ---- */

static size_t footprint(wagg_t *w) {
  int64_t heap = 0;
  for (uint32_t i = 0; i < w->naggs; i++) heap += w->aggs[i].agg->heap_bytes;
  size_t n = ex_ht_bytes(w->ght) + (size_t)w->states_cap * (w->stride + 5) +
             (size_t)w->wins_cap * sizeof(win_t) + (size_t)w->heap_cap * sizeof(heap_ent_t) +
             (size_t)(heap > 0 ? heap : 0);
  if (w->wht) n += ex_ht_bytes(w->wht);
  if (w->pht) n += ex_ht_bytes(w->pht) + (size_t)w->part_cap * sizeof(uint32_t);
  return n;
}

static int spill_chunk(wagg_t *w, const uint32_t *order, const uint32_t *gids, const uint32_t *ord,
                       uint32_t n, void *arg, fl_err_t *err) {
  ex_spill_file_t *f = arg;
  ty_batch_t *sb = w->spill_batch;
  ty_batch_reset(sb);
  for (uint32_t k = 0; k < n; k++) {
    win_t *x = &w->wins[order[ord[k]]];
    x->spilled = true;
    /* SESSION bounds change as sessions merge: its runs name the session. */
    ty_vec_append_i64(sb->cols[0], w->session ? order[ord[k]] : x->start);
    ty_vec_append_i64(sb->cols[1], w->session ? 0 : x->end);
  }
  for (uint32_t c = 1; c < w->ntk; c++)
    ex_vec_gather(sb->cols[1 + c], ex_ht_keys(w->ght, c), gids, n);
  serialize_states(w, gids, n, sb->cols[1 + w->ntk]);
  ty_batch_seal(sb);
  return ex_spill_write(f, sb, err);
}

/* Writes every live group to a new run, in firing order, and empties the
 * group table. */
static int spill_run(wagg_t *w, fl_err_t *err) {
  int rc;
  if (!w->dir && (rc = ex_spill_dir_open(w->ctx->spill_dir, &w->dir, err))) return rc;
  ex_spill_file_t *f;
  if ((rc = ex_spill_create(w->dir, &f, err))) return rc;
  uint32_t nw;
  uint32_t *order = open_windows(w, &nw);
  rc = walk_groups(w, order, nw, spill_chunk, f, err);
  fl_free(order);
  if (!rc) rc = ex_spill_seal(f, err);
  if (rc) {
    ex_spill_free(f);
    return rc;
  }
  ex_spill_rewind(f);
  w->runs = fl_realloc(w->runs, (w->nruns + 1) * sizeof *w->runs);
  w->runs[w->nruns++] = (run_t){.f = f, .cur = ty_batch_new(w->spill_schema, TY_BATCH_ROWS)};
  drop_groups(w);
  w->stats.spills++;
  return FL_OK;
}

/* Merges rows [from, to) of a run's batch, all of window wid, into the
 * group table. */
static uint32_t session_root(const wagg_t *w, uint32_t s) {
  while (w->wins[s].merged_into != s) s = w->wins[s].merged_into;
  return s;
}

/* Merges rows [from, to) of a run's batch into the group table, all of
 * window wid, or (SESSION runs, by_root) each of its session's root. */
static int merge_spilled(wagg_t *w, const ty_batch_t *sb, uint32_t from, uint32_t to, uint32_t wid,
                         bool by_root, fl_err_t *err) {
  uint32_t n = to - from;
  reserve_scratch(w, sb->nrows);
  int64_t *wv = fill_long(w->wid_vec, sb->nrows);
  const int64_t *sid = (const int64_t *)sb->cols[0]->data;
  for (uint32_t k = 0; k < n; k++) {
    w->prow[k] = from + k;
    wv[from + k] = by_root ? session_root(w, (uint32_t)sid[from + k]) : wid;
  }
  w->probe[0] = w->wid_vec;
  for (uint32_t c = 1; c < w->ntk; c++) w->probe[c] = sb->cols[1 + c];
  uint32_t before = ex_ht_groups(w->ght);
  ex_ht_find_or_insert(w->ght, w->probe, w->prow, n, NULL, w->gids);
  init_states(w, ex_ht_groups(w->ght));
  const ty_vec_t *blob = sb->cols[1 + w->ntk];
  for (uint32_t k = 0; k < n; k++) {
    uint32_t g = w->gids[k];
    bool fresh = g >= before && !w->g_alive[g];
    size_t len;
    const uint8_t *p = ty_vec_get_bytes(blob, from + k, &len);
    fl_rd_t r;
    fl_rd_init(&r, p, len, "spilled window state");
    uint8_t *st = w->states + (size_t)g * w->stride;
    for (uint32_t i = 0; i < w->naggs; i++) {
      ex_agg_t *a = w->aggs[i].agg;
      int rc;
      if (fresh) {
        rc = a->fn->deserialize(a, st + w->offsets[i], &r, err);
      } else {
        uint8_t *tmp = w->tmp_state + w->offsets[i];
        a->fn->init(a, tmp);
        rc = a->fn->deserialize(a, tmp, &r, err);
        if (!rc) rc = a->fn->combine(a, st + w->offsets[i], tmp, err);
        if (a->fn->destroy) a->fn->destroy(a, tmp);
      }
      if (rc) return fl_err_prefix(err, "%s: ", a->name);
    }
    if (fl_rd_left(&r))
      return fl_err_set(err, FL_ECORRUPT, "spilled window state has %zu bytes left over",
                        fl_rd_left(&r));
    if (fresh) link_new(w, NULL, &g, 1, before, &wv[from + k]);
  }
  return FL_OK;
}

/* Makes the run's next row current; *has is false at its end. */
static int run_head(run_t *u, bool *has, fl_err_t *err) {
  while (u->pos == u->cur->nrows && !u->eof) {
    int rc = ex_spill_read(u->f, u->cur, &u->eof, err);
    if (rc) return rc;
    if (!u->eof) u->pos = 0;
  }
  *has = u->pos < u->cur->nrows;
  return FL_OK;
}

static int merge_runs(wagg_t *w, uint32_t wid, fl_err_t *err) {
  const win_t *x = &w->wins[wid];
  for (uint32_t i = 0; i < w->nruns; i++) {
    run_t *u = &w->runs[i];
    for (;;) {
      bool has;
      int rc0 = run_head(u, &has, err);
      if (rc0) return rc0;
      if (!has) break;
      const int64_t *s = (const int64_t *)u->cur->cols[0]->data;
      const int64_t *e = (const int64_t *)u->cur->cols[1]->data;
      uint32_t p = u->pos;
      if (e[p] > x->end || (e[p] == x->end && s[p] > x->start)) break;
      if (e[p] != x->end || s[p] != x->start)
        return fl_err_set(err, FL_EINTERNAL, "window spill run out of order in %s",
                          ex_spill_path(u->f));
      uint32_t k = p;
      while (k < u->cur->nrows && e[k] == x->end && s[k] == x->start) k++;
      int rc = merge_spilled(w, u->cur, p, k, wid, false, err);
      if (rc) return rc;
      u->pos = k;
    }
  }
  /* The window's groups must be in memory to be emitted. */
  size_t now = footprint(w);
  if (now > w->reserved) {
    ex_mem_force(w->ctx->mem, now - w->reserved);
    w->reserved = now;
  }
  return FL_OK;
}

/*
 * Merges the unread rows of every run into one run, keeping the firing
 * order, so that the number of open files stays bounded whatever the
 * number of spills. Rows of one window from several runs become adjacent
 * and are combined when the window fires, as before.
 */
static int merge_all_runs(wagg_t *w, fl_err_t *err) {
  ex_spill_file_t *f;
  int rc = ex_spill_create(w->dir, &f, err);
  if (rc) return rc;
  ty_batch_t *ob = w->spill_batch;
  ty_batch_reset(ob);
  uint32_t rows[TY_BATCH_ROWS];
  for (;;) {
    run_t *best = NULL;
    int64_t be = 0, bs = 0;
    for (uint32_t i = 0; i < w->nruns && !rc; i++) {
      run_t *u = &w->runs[i];
      bool has;
      if ((rc = run_head(u, &has, err)) || !has) continue;
      int64_t s = ((const int64_t *)u->cur->cols[0]->data)[u->pos];
      int64_t e = ((const int64_t *)u->cur->cols[1]->data)[u->pos];
      if (!best || e < be || (e == be && s < bs)) {
        best = u;
        be = e;
        bs = s;
      }
    }
    if (rc || !best) break;
    const int64_t *s = (const int64_t *)best->cur->cols[0]->data;
    const int64_t *e = (const int64_t *)best->cur->cols[1]->data;
    uint32_t n = 0;
    while (best->pos + n < best->cur->nrows && s[best->pos + n] == bs && e[best->pos + n] == be) {
      rows[n] = best->pos + n;
      n++;
    }
    if (ob->cols[0]->len + n > TY_BATCH_ROWS) {
      ty_batch_seal(ob);
      if ((rc = ex_spill_write(f, ob, err))) break;
      ty_batch_reset(ob);
    }
    for (uint32_t c = 0; c < ob->ncols; c++)
      ex_vec_gather(ob->cols[c], best->cur->cols[c], rows, n);
    best->pos += n;
  }
  if (!rc && ob->cols[0]->len) {
    ty_batch_seal(ob);
    rc = ex_spill_write(f, ob, err);
  }
  if (!rc) rc = ex_spill_seal(f, err);
  if (rc) {
    ex_spill_free(f);
    return rc;
  }
  ex_spill_rewind(f);
  for (uint32_t i = 0; i < w->nruns; i++) {
    ex_spill_free(w->runs[i].f);
    ty_batch_free(w->runs[i].cur);
  }
  w->runs[0] = (run_t){.f = f, .cur = ty_batch_new(w->spill_schema, TY_BATCH_ROWS)};
  w->nruns = 1;
  w->stats.run_merges++;
  return FL_OK;
}

/*
 * Firing SESSION windows while runs exist. A run names each group's
 * session as it was when spilled; sessions merged since then are found
 * through merged_into (dead sessions stay registered while runs exist).
 * The due sessions are collected first; one pass over the runs sends the
 * rows of due sessions to 16 partition files by their root session and
 * keeps the others as the one remaining run; then each partition is
 * merged into the group table and its due sessions emitted, so about a
 * sixteenth of the spilled due state is in memory at a time. Due
 * sessions without spilled groups are emitted first, in firing order.
 */
/* The partition (of 16) of a root session. */
static uint32_t part_of(uint32_t sid) { return (sid * 0x9E3779B1u) >> 28; }

static int fire_sessions_spilled(wagg_t *w, bool all, fl_err_t *err) {
  uint32_t *due = NULL, nd = 0, cap = 0;
  int rc = FL_OK;
  while (w->nheap) {
    heap_ent_t top = w->heap[0];
    if (!all && !fires(w, top.end)) break;
    heap_pop(w);
    win_t *x = &w->wins[top.wid];
    if (!x->alive || x->start != top.start || x->end != top.end || x->firing) continue;
    if (nd == cap) {
      cap = cap ? cap * 2 : 64;
      due = fl_realloc(due, cap * sizeof *due);
    }
    x->firing = true;
    due[nd++] = top.wid;
  }
  uint32_t *plain = fl_malloc((nd ? nd : 1) * sizeof *plain), np = 0;
  for (uint32_t i = 0; i < nd; i++)
    if (!w->wins[due[i]].spilled) plain[np++] = due[i];
  if (np) rc = emit_windows(w, plain, np, err);
  bool any_spilled = np < nd;
  ex_spill_file_t *parts[16] = {0}, *rest = NULL;
  ty_batch_t *rb = any_spilled ? ty_batch_new(w->spill_schema, TY_BATCH_ROWS) : NULL;
  uint32_t *dest = fl_malloc(TY_BATCH_ROWS * sizeof *dest), *rows = fl_malloc(TY_BATCH_ROWS * 4);
  /* Split the runs: rows of due roots by partition, the others to rest. */
  for (uint32_t i = 0; i < w->nruns && any_spilled && !rc; i++) {
    ex_spill_file_t *f = w->runs[i].f;
    bool eof = false;
    ex_spill_rewind(f);
    while (!rc && !(rc = ex_spill_read(f, rb, &eof, err)) && !eof) {
      const int64_t *sid = (const int64_t *)rb->cols[0]->data;
      for (uint32_t k = 0; k < rb->nrows; k++) {
        uint32_t r = session_root(w, (uint32_t)sid[k]);
        dest[k] = w->wins[r].firing ? part_of(r) : 16;
      }
      for (uint32_t p = 0; p <= 16 && !rc; p++) {
        uint32_t n = 0;
        for (uint32_t k = 0; k < rb->nrows; k++)
          if (dest[k] == p) rows[n++] = k;
        if (!n) continue;
        ex_spill_file_t **to = p < 16 ? &parts[p] : &rest;
        if (!*to && (rc = ex_spill_create(w->dir, to, err))) break;
        ty_batch_reset(w->spill_batch);
        for (uint32_t c = 0; c < rb->ncols; c++)
          ex_vec_gather(w->spill_batch->cols[c], rb->cols[c], rows, n);
        ty_batch_seal(w->spill_batch);
        rc = ex_spill_write(*to, w->spill_batch, err);
      }
    }
  }
  if (any_spilled && !rc) {
    for (uint32_t i = 0; i < w->nruns; i++) {
      ex_spill_free(w->runs[i].f);
      ty_batch_free(w->runs[i].cur);
    }
    w->nruns = 0;
    if (rest && !(rc = ex_spill_seal(rest, err))) {
      ex_spill_rewind(rest);
      w->runs[0] = (run_t){.f = rest, .cur = ty_batch_new(w->spill_schema, TY_BATCH_ROWS)};
      w->nruns = 1;
      rest = NULL;
    }
  }
  /* Each partition: merge its rows, emit its due spilled sessions. */
  for (uint32_t p = 0; p < 16 && any_spilled && !rc; p++) {
    if (parts[p] && !(rc = ex_spill_seal(parts[p], err))) {
      bool eof = false;
      ex_spill_rewind(parts[p]);
      while (!rc && !(rc = ex_spill_read(parts[p], rb, &eof, err)) && !eof)
        rc = merge_spilled(w, rb, 0, rb->nrows, 0, true, err);
    }
    size_t now = footprint(w);
    if (!rc && now > w->reserved) {
      ex_mem_force(w->ctx->mem, now - w->reserved);
      w->reserved = now;
    }
    np = 0;
    for (uint32_t i = 0; i < nd && !rc; i++) {
      uint32_t r = due[i];
      if (w->wins[r].spilled && part_of(r) == p) plain[np++] = r;
    }
    if (!rc && np) rc = emit_windows(w, plain, np, err);
  }
  for (uint32_t p = 0; p < 16; p++) ex_spill_free(parts[p]);
  ex_spill_free(rest);
  for (uint32_t i = 0; i < nd; i++) w->wins[due[i]].firing = false;
  ty_batch_free(rb);
  fl_free(dest);
  fl_free(rows);
  fl_free(plain);
  fl_free(due);
  return rc;
}

/* Reserves the footprint; spills the groups when the budget refuses. */
static int account(wagg_t *w, fl_err_t *err) {
  size_t now = footprint(w);
  if (now <= w->reserved) {
    ex_mem_release(w->ctx->mem, w->reserved - now);
    w->reserved = now;
    return FL_OK;
  }
  if (ex_mem_reserve(w->ctx->mem, now - w->reserved)) {
    w->reserved = now;
    return FL_OK;
  }
  if (w->nlive >= MIN_SPILL_GROUPS) {
    int rc = spill_run(w, err);
    if (!rc && w->nruns >= MAX_RUNS) rc = merge_all_runs(w, err);
    if (rc) return rc;
    now = footprint(w);
  }
  ex_mem_release(w->ctx->mem, w->reserved);
  ex_mem_force(w->ctx->mem, now);
  w->reserved = now;
  return FL_OK;
}

/* ---- the operator ---- */

static int wagg_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  wagg_t *w = (wagg_t *)op;
  if (w->finished) return fl_err_set(err, FL_EINTERNAL, "window aggregation: batch after finish");
  uint32_t n = ty_batch_live(b);
  if (!n) return FL_OK;
  reserve_scratch(w, b->nrows);
  const ty_vec_t *tv = b->cols[w->time_col];
  uint32_t nv = 0;
  for (uint32_t k = 0; k < n; k++) {
    uint32_t r = b->sel ? b->sel[k] : k;
    w->has_win[r] = 0;
    if (ty_vec_is_valid(tv, r)) w->vr[nv++] = r;
  }
  w->stats.rows_in += n;
  int rc;
  if (w->session) {
    uint32_t m;
    if ((rc = assign_sessions(w, b, nv, &m, err)) || (rc = aggregate_rows(w, b, w->prow, m, err)))
      return rc;
  } else if ((rc = assign_windows(w, b, nv, err))) {
    return rc;
  }
  uint32_t nlate = 0;
  for (uint32_t k = 0; k < nv; k++)
    if (w->has_win[w->vr[k]] == 1) w->rows[nlate++] = w->vr[k];
  w->stats.late_rows += nlate;
  if (nlate && w->late_fn && (rc = w->late_fn(w->late_arg, b, w->time_col, w->rows, nlate, err)))
    return rc;
  w->stats.open_windows = w->nalive;
  return account(w, err);
}

static int wagg_watermark(ex_op_t *op, int64_t ts_us, fl_err_t *err) {
  wagg_t *w = (wagg_t *)op;
  if (ts_us > w->wm) {
    w->wm = ts_us;
    int rc = fire(w, false, err);
    if (rc) return rc;
    w->stats.open_windows = w->nalive;
    if ((rc = account(w, err))) return rc;
  }
  return ex_op_forward_watermark(op, ts_us, err);
}

static int wagg_finish(ex_op_t *op, fl_err_t *err) {
  wagg_t *w = (wagg_t *)op;
  if (w->finished) return fl_err_set(err, FL_EINTERNAL, "window aggregation: finished twice");
  int rc = fire(w, true, err);
  if (rc) return rc;
  w->finished = true;
  w->stats.open_windows = 0;
  ex_mem_release(w->ctx->mem, w->reserved);
  w->reserved = 0;
  return ex_op_forward_finish(op, err);
}

/* ---- checkpoints ---- */

static int ckpt_chunk(wagg_t *w, const uint32_t *order, const uint32_t *gids, const uint32_t *ord,
                      uint32_t n, void *arg, fl_err_t *err) {
  (void)order;
  (void)err;
  fl_buf_t *out = arg;
  ty_batch_t *cb = w->ckpt_batch;
  ty_batch_reset(cb);
  for (uint32_t k = 0; k < n; k++) ty_vec_append_i64(cb->cols[0], ord[k]);
  for (uint32_t c = 1; c < w->ntk; c++) ex_vec_gather(cb->cols[c], ex_ht_keys(w->ght, c), gids, n);
  serialize_states(w, gids, n, cb->cols[w->ntk]);
  ty_batch_seal(cb);
  ex_batch_encode(cb, out);
  return FL_OK;
}

static int count_chunk(wagg_t *w, const uint32_t *order, const uint32_t *gids, const uint32_t *ord,
                       uint32_t n, void *arg, fl_err_t *err) {
  (void)w, (void)order, (void)gids, (void)ord, (void)n, (void)err;
  (*(uint32_t *)arg)++;
  return FL_OK;
}

static int wagg_checkpoint(ex_op_t *op, fl_buf_t *out, fl_err_t *err) {
  wagg_t *w = (wagg_t *)op;
  /* Spilled rows not yet read go into the checkpoint from one merged run. */
  int rc0;
  if (w->session && w->nruns)
    return fl_err_set(err, FL_EUNSUPPORTED,
                      "window aggregation: cannot checkpoint spilled SESSION windows (raise the "
                      "memory budget)");
  if (w->nruns && (rc0 = merge_all_runs(w, err))) return rc0;
  uint32_t nw;
  uint32_t *order = open_windows(w, &nw);
  fl_buf_append_le32(out, CHECKPOINT_MAGIC);
  fl_buf_append_le32(out, 1);
  fl_buf_append_le32(out, (uint32_t)w->spec.kind);
  fl_buf_append_le64(out, (uint64_t)w->wm);
  fl_buf_append_le64(out, w->stats.rows_in);
  fl_buf_append_le64(out, w->stats.late_rows);
  fl_buf_append_le64(out, w->stats.windows_out);
  fl_buf_append_le64(out, w->stats.groups_out);
  fl_buf_append_le32(out, nw);
  for (uint32_t i = 0; i < nw; i++) {
    fl_buf_append_le64(out, (uint64_t)w->wins[order[i]].start);
    fl_buf_append_le64(out, (uint64_t)w->wins[order[i]].end);
    fl_buf_append_u8(out, w->wins[order[i]].spilled);
  }
  if (w->session) {
    fl_buf_append_le32(out, (nw + TY_BATCH_ROWS - 1) / TY_BATCH_ROWS);
    uint32_t rows[TY_BATCH_ROWS];
    for (uint32_t i0 = 0; i0 < nw; i0 += TY_BATCH_ROWS) {
      uint32_t n = nw - i0 < TY_BATCH_ROWS ? nw - i0 : TY_BATCH_ROWS;
      for (uint32_t k = 0; k < n; k++) rows[k] = w->wins[order[i0 + k]].part;
      ty_batch_t *pb = w->part_batch;
      ty_batch_reset(pb);
      for (uint32_t c = 0; c < w->npart; c++)
        ex_vec_gather(pb->cols[c], ex_ht_keys(w->pht, c), rows, n);
      /* A batch without columns still needs its row count. */
      pb->nrows = n;
      if (w->npart) ty_batch_seal(pb);
      fl_buf_append_le32(out, n);
      ex_batch_encode(pb, out);
    }
  }
  uint32_t nchunks = 0;
  walk_groups(w, order, nw, count_chunk, &nchunks, err);
  fl_buf_append_le32(out, nchunks);
  int rc = walk_groups(w, order, nw, ckpt_chunk, out, err);
  fl_free(order);
  if (!rc && w->nruns) {
    run_t *u = &w->runs[0];
    bool eof = false;
    ex_spill_rewind(u->f);
    while (!rc) {
      if ((rc = ex_spill_read(u->f, w->spill_batch, &eof, err)) || eof) break;
      fl_buf_append_u8(out, 1);
      ex_batch_encode(w->spill_batch, out);
    }
    ex_spill_rewind(u->f);
    ty_batch_reset(u->cur);
    u->cur->nrows = 0;
    u->pos = 0;
    u->eof = false;
  }
  fl_buf_append_u8(out, 0);
  return rc;
}

static int wagg_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  wagg_t *w = (wagg_t *)op;
  if (w->nwins || w->stats.rows_in)
    return fl_err_set(err, FL_EINVALID, "window aggregation: restore needs a fresh operator");
  uint32_t magic, version, kind, nw, nchunks;
  uint64_t wm;
  int rc;
  if ((rc = fl_rd_le32(r, &magic, err)) || (rc = fl_rd_le32(r, &version, err)) ||
      (rc = fl_rd_le32(r, &kind, err)))
    goto bad;
  if (magic != CHECKPOINT_MAGIC || version != 1)
    return fl_err_set(err, FL_ECORRUPT, "%s: not a window aggregation checkpoint", r->what);
  if (kind != (uint32_t)w->spec.kind)
    return fl_err_set(err, FL_EINVALID,
                      "%s: the checkpoint is of another kind of window than the operator", r->what);
  if ((rc = fl_rd_le64(r, &wm, err)) || (rc = fl_rd_le64(r, &w->stats.rows_in, err)) ||
      (rc = fl_rd_le64(r, &w->stats.late_rows, err)) ||
      (rc = fl_rd_le64(r, &w->stats.windows_out, err)) ||
      (rc = fl_rd_le64(r, &w->stats.groups_out, err)) || (rc = fl_rd_le32(r, &nw, err)))
    goto bad;
  w->wm = (int64_t)wm;
  if (nw > fl_rd_left(r) / 17)
    return fl_err_set(err, FL_ECORRUPT, "%s: %u windows do not fit the checkpoint", r->what, nw);
  int64_t *se = fl_malloc(((size_t)nw * 2 + 1) * sizeof *se);
  uint32_t *wids = fl_malloc(((size_t)nw + 1) * sizeof *wids);
  uint8_t *spilled = fl_calloc((size_t)nw + 1, 1);
  for (uint32_t i = 0; i < nw && !rc; i++) {
    uint64_t v0, v1;
    if (!(rc = fl_rd_le64(r, &v0, err)) && !(rc = fl_rd_le64(r, &v1, err)))
      rc = fl_rd_u8(r, &spilled[i], err);
    se[2 * i] = (int64_t)v0;
    se[2 * i + 1] = (int64_t)v1;
  }
  uint32_t *parts = fl_calloc((size_t)nw + 1, sizeof *parts);
  if (!rc && w->session) {
    uint32_t pchunks, done = 0;
    if (!(rc = fl_rd_le32(r, &pchunks, err)))
      for (uint32_t c = 0; c < pchunks && !rc; c++) {
        uint32_t n;
        if ((rc = fl_rd_le32(r, &n, err))) break;
        ty_batch_t *pb = w->part_batch;
        if ((rc = ex_batch_decode(r, pb, err))) break;
        if (n > TY_BATCH_ROWS || done + n > nw || (w->npart && pb->nrows != n)) {
          rc = fl_err_set(err, FL_ECORRUPT, "%s: bad session partition keys", r->what);
          break;
        }
        uint32_t rows[TY_BATCH_ROWS];
        for (uint32_t k = 0; k < n; k++) rows[k] = k;
        ex_ht_find_or_insert(w->pht, pb->cols, rows, n, NULL, parts + done);
        done += n;
      }
    if (!rc && done != nw) rc = fl_err_set(err, FL_ECORRUPT, "%s: session keys missing", r->what);
    uint32_t np = ex_ht_groups(w->pht);
    w->part_cap = np ? np : 1;
    w->part_head = fl_realloc(w->part_head, w->part_cap * sizeof *w->part_head);
    for (uint32_t p = 0; p < np; p++) w->part_head[p] = NONE;
  }
  for (uint32_t i = 0; i < nw && !rc; i++) {
    if (!w->session) {
      ty_vec_t *cols[2] = {w->ws_vec, w->we_vec};
      fill_long(w->ws_vec, 1)[0] = se[2 * i];
      fill_long(w->we_vec, 1)[0] = se[2 * i + 1];
      uint32_t one = 0, g;
      ex_ht_find_or_insert(w->wht, cols, &one, 1, NULL, &g);
      if (g != w->nwins) {
        rc = fl_err_set(err, FL_ECORRUPT, "%s: window listed twice", r->what);
        break;
      }
    }
    wids[i] = new_window(w, se[2 * i], se[2 * i + 1], parts[i]);
    w->wins[wids[i]].spilled = spilled[i] != 0;
  }
  fl_free(spilled);
  fl_free(se);
  fl_free(parts);
  if (!rc) rc = fl_rd_le32(r, &nchunks, err);
  for (uint32_t c = 0; c < nchunks && !rc; c++) {
    ty_batch_t *cb = w->ckpt_batch;
    if ((rc = ex_batch_decode(r, cb, err))) break;
    uint32_t n = cb->nrows;
    reserve_scratch(w, n);
    int64_t *wv = fill_long(w->wid_vec, n);
    const int64_t *ordv = (const int64_t *)cb->cols[0]->data;
    for (uint32_t k = 0; k < n && !rc; k++) {
      if (ordv[k] < 0 || (uint64_t)ordv[k] >= nw)
        rc = fl_err_set(err, FL_ECORRUPT, "%s: group of window %lld of %u", r->what,
                        (long long)ordv[k], nw);
      else
        wv[k] = wids[ordv[k]];
    }
    if (rc) break;
    /* The checkpoint batch is the spill layout with the window number in
     * column 0: merge it as a run's rows, one window at a time. */
    w->probe[0] = w->wid_vec;
    for (uint32_t i = 1; i < w->ntk; i++) w->probe[i] = cb->cols[i];
    uint32_t before = ex_ht_groups(w->ght);
    ex_ht_find_or_insert(w->ght, w->probe, NULL, n, NULL, w->gids);
    init_states(w, ex_ht_groups(w->ght));
    const ty_vec_t *blob = cb->cols[w->ntk];
    for (uint32_t k = 0; k < n && !rc; k++) {
      uint32_t g = w->gids[k];
      if (g < before || w->g_alive[g]) {
        rc = fl_err_set(err, FL_ECORRUPT, "%s: group listed twice", r->what);
        break;
      }
      size_t len;
      const uint8_t *p = ty_vec_get_bytes(blob, k, &len);
      fl_rd_t sr;
      fl_rd_init(&sr, p, len, r->what);
      for (uint32_t i = 0; i < w->naggs && !rc; i++) {
        ex_agg_t *a = w->aggs[i].agg;
        rc = a->fn->deserialize(a, w->states + (size_t)g * w->stride + w->offsets[i], &sr, err);
      }
      if (!rc && fl_rd_left(&sr))
        rc = fl_err_set(err, FL_ECORRUPT, "%s: aggregate state has bytes left over", r->what);
      if (!rc) link_new(w, NULL, &g, 1, before, &wv[k]);
    }
  }
  fl_free(wids);
  /* Spilled rows become one run again. */
  ex_spill_file_t *f = NULL;
  for (;;) {
    uint8_t more;
    if (rc || (rc = fl_rd_u8(r, &more, err)) || !more) break;
    if ((rc = ex_batch_decode(r, w->spill_batch, err))) break;
    if (!f && !w->dir && (rc = ex_spill_dir_open(w->ctx->spill_dir, &w->dir, err))) break;
    if (!f && (rc = ex_spill_create(w->dir, &f, err))) break;
    rc = ex_spill_write(f, w->spill_batch, err);
  }
  if (f && !rc) rc = ex_spill_seal(f, err);
  if (f && rc) ex_spill_free(f);
  if (f && !rc) {
    ex_spill_rewind(f);
    w->runs = fl_realloc(w->runs, (w->nruns + 1) * sizeof *w->runs);
    w->runs[w->nruns++] = (run_t){.f = f, .cur = ty_batch_new(w->spill_schema, TY_BATCH_ROWS)};
  }
  if (rc) goto bad;
  w->stats.open_windows = w->nalive;
  return account(w, err);
bad:
  return fl_err_prefix(err, "window aggregation checkpoint: ");
}

static void wagg_destroy(ex_op_t *op) {
  wagg_t *w = (wagg_t *)op;
  for (uint32_t g = 0; g < w->ninit; g++)
    if (w->g_alive[g]) destroy_state(w, w->states + (size_t)g * w->stride);
  ex_mem_release(w->ctx->mem, w->reserved);
  for (uint32_t i = 0; i < w->nruns; i++) {
    ex_spill_free(w->runs[i].f);
    ty_batch_free(w->runs[i].cur);
  }
  fl_free(w->runs);
  ex_spill_dir_close(w->dir);
  ex_ht_free(w->ght);
  ex_ht_free(w->wht);
  ex_ht_free(w->pht);
  for (uint32_t c = 0; c < w->nkeys; c++) ty_vec_free(w->null_cols[c]);
  for (uint32_t c = 0; c < w->ntk; c++) ty_vec_free(w->mv[c]);
  ty_vec_free(w->wid_vec);
  ty_vec_free(w->ws_vec);
  ty_vec_free(w->we_vec);
  ty_vec_free(w->set_vec);
  ty_batch_free(w->out_batch);
  ty_batch_free(w->spill_batch);
  ty_batch_free(w->ckpt_batch);
  ty_batch_free(w->part_batch);
  fl_buf_free(&w->sbuf);
  void *ptrs[] = {w->null_cols, w->probe,  w->mv,        w->rows,       w->prow,    w->gids,
                  w->frows,     w->fgids,  w->row_wid,   w->vr,         w->has_win, w->found,
                  w->wins,      w->heap,   w->part_head, w->states,     w->g_next,  w->g_alive,
                  w->offsets,   w->gtypes, w->ptypes,    w->emit_states};
  for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) fl_free(ptrs[i]);
  free(w->tmp_state);
  fl_free(w);
}

static const ex_op_vt_t wagg_vt = {
    .name = "window_agg",
    .push = wagg_push,
    .watermark = wagg_watermark,
    .finish = wagg_finish,
    .checkpoint = wagg_checkpoint,
    .restore = wagg_restore,
    .destroy = wagg_destroy,
};

static bool is_time(const ty_type_t *t) {
  return t->kind == TY_TIMESTAMP || t->kind == TY_TIMESTAMPTZ;
}

int ex_window_agg_new(ex_opctx_t *ctx, fl_arena_t *arena, const ex_window_agg_opts_t *o,
                      ex_op_t *next, ex_op_t **out, fl_err_t *err) {
  const ty_schema_t *in = o->in_schema;
  uint32_t ncols = in->root.nfields;
  char msg[256];
  if (!ex_window_spec_check(&o->spec, msg, sizeof msg))
    return fl_err_set(err, FL_EINVALID, "window aggregation: %s", msg);
  if (o->time_col >= ncols || !is_time(in->root.fields[o->time_col].type))
    return fl_err_set(err, FL_EINVALID,
                      "window aggregation: time column %u is not a timestamp column", o->time_col);
  if (o->nkeys > 62 || o->npartition > 64)
    return fl_err_set(err, FL_ELIMIT, "window aggregation: too many keys");
  for (uint32_t c = 0; c < o->nkeys; c++)
    if (o->key_cols[c] >= ncols)
      return fl_err_set(err, FL_EINVALID, "window aggregation: key column %u of %u", o->key_cols[c],
                        ncols);
  for (uint32_t c = 0; c < o->npartition; c++)
    if (o->partition_cols[c] >= ncols)
      return fl_err_set(err, FL_EINVALID, "window aggregation: partition column %u of %u",
                        o->partition_cols[c], ncols);
  if (o->npartition && o->spec.kind != EX_WINDOW_SESSION)
    return fl_err_set(err, FL_EINVALID, "window aggregation: only SESSION windows take partitions");
  for (uint32_t s = 0; s < o->nsets; s++)
    if (o->grouping_sets[s] >> o->nkeys)
      return fl_err_set(err, FL_EINVALID,
                        "window aggregation: grouping set %u names a key beyond %u", s, o->nkeys);
  for (uint32_t i = 0; i < o->naggs; i++) {
    const ex_agg_spec_t *s = &o->aggs[i];
    if (s->arg_col >= (int32_t)ncols || (s->arg_col < 0 && s->agg->arg))
      return fl_err_set(err, FL_EINVALID, "window aggregation: %s has no argument column",
                        s->agg->name);
    if (s->filter_col >= (int32_t)ncols ||
        (s->filter_col >= 0 && in->root.fields[s->filter_col].type->kind != TY_BOOLEAN))
      return fl_err_set(err, FL_EINVALID, "window aggregation: FILTER of %s must be boolean",
                        s->agg->name);
  }
  wagg_t *w = fl_calloc(1, sizeof *w);
  w->op.vt = &wagg_vt;
  w->op.next = next;
  w->ctx = ctx;
  w->spec = o->spec;
  w->session = o->spec.kind == EX_WINDOW_SESSION;
  w->in = in;
  w->time_col = o->time_col;
  w->nkeys = o->nkeys;
  w->nsets = o->nsets;
  w->naggs = o->naggs;
  w->npart = o->npartition;
  w->ntk = 1 + o->nkeys + (o->nsets ? 1 : 0);
  w->lateness = o->allowed_lateness_us > 0 ? o->allowed_lateness_us : 0;
  w->wm = INT64_MIN;
  w->late_fn = o->late_fn;
  w->late_arg = o->late_arg;
  w->key_cols = fl_arena_memdup(arena, o->nkeys ? o->key_cols : (const uint32_t[]){0},
                                (o->nkeys ? o->nkeys : 1) * sizeof(uint32_t));
  w->part_cols = fl_arena_memdup(arena, o->npartition ? o->partition_cols : (const uint32_t[]){0},
                                 (o->npartition ? o->npartition : 1) * sizeof(uint32_t));
  w->sets = fl_arena_memdup(arena, o->nsets ? o->grouping_sets : (const uint64_t[]){0},
                            (o->nsets ? o->nsets : 1) * sizeof(uint64_t));
  w->aggs = fl_arena_memdup(arena, o->naggs ? o->aggs : (const ex_agg_spec_t[]){{0}},
                            (o->naggs ? o->naggs : 1) * sizeof *o->aggs);
  w->offsets = fl_calloc(o->naggs ? o->naggs : 1, sizeof *w->offsets);
  size_t off = 0, align = 8;
  for (uint32_t i = 0; i < o->naggs; i++) {
    const ex_agg_fn_t *fn = o->aggs[i].agg->fn;
    off = ex_agg_align(off, fn->state_align);
    w->offsets[i] = off;
    off += fn->state_size;
    if (fn->state_align > align) align = fn->state_align;
  }
  w->stride = ex_agg_align(off ? off : 1, align);
  w->tmp_state = aligned_alloc(16, ex_agg_align(w->stride, 16));
  w->emit_states = fl_malloc((size_t)TY_BATCH_ROWS * w->stride);

  /* Group table keys: window number, keys, grouping set. */
  const ty_type_t *tt = in->root.fields[o->time_col].type;
  w->gtypes = fl_calloc(w->ntk, sizeof *w->gtypes);
  w->gtypes[0] = ty_primitive(TY_LONG);
  for (uint32_t c = 0; c < o->nkeys; c++) w->gtypes[1 + c] = in->root.fields[o->key_cols[c]].type;
  if (o->nsets) w->gtypes[1 + o->nkeys] = ty_primitive(TY_LONG);
  w->ght = ex_ht_new(w->gtypes, w->ntk);
  w->ptypes = fl_calloc(o->npartition ? o->npartition : 1, sizeof *w->ptypes);
  for (uint32_t c = 0; c < o->npartition; c++)
    w->ptypes[c] = in->root.fields[o->partition_cols[c]].type;
  if (w->session)
    w->pht = ex_ht_new(w->ptypes, w->npart);
  else
    w->wht = ex_ht_new((const ty_type_t *const[]){ty_primitive(TY_LONG), ty_primitive(TY_LONG)}, 2);

  /* Output: window_start, window_end, window_time, keys, set, aggregates. */
  uint32_t nout = 3 + (w->ntk - 1) + o->naggs;
  ty_field_t *f = fl_arena_zalloc(arena, nout * sizeof *f);
  static const char *const wnames[] = {"window_start", "window_end", "window_time"};
  for (int i = 0; i < 3; i++) f[i] = (ty_field_t){.name = wnames[i], .type = tt};
  for (uint32_t c = 0; c < o->nkeys; c++) {
    f[3 + c] = in->root.fields[o->key_cols[c]];
    f[3 + c].required = false;
  }
  if (o->nsets)
    f[3 + o->nkeys] =
        (ty_field_t){.name = "$grouping_set", .required = true, .type = ty_primitive(TY_LONG)};
  for (uint32_t i = 0; i < o->naggs; i++)
    f[2 + w->ntk + i] =
        (ty_field_t){.name = o->aggs[i].name ? o->aggs[i].name : o->aggs[i].agg->name,
                     .type = o->aggs[i].agg->out};
  for (uint32_t i = 0; i < nout; i++) f[i].id = (int32_t)i + 1;
  w->op.out_schema = ty_schema_new(arena, 0, f, nout);

  /* Spill rows: start, end, keys, set, states; checkpoint rows: window
   * ordinal, keys, set, states; session partition keys. */
  uint32_t nsp = 2 + (w->ntk - 1) + 1;
  ty_field_t *sf = fl_arena_zalloc(arena, nsp * sizeof *sf);
  sf[0] = (ty_field_t){.name = "window_start", .type = ty_primitive(TY_LONG)};
  sf[1] = (ty_field_t){.name = "window_end", .type = ty_primitive(TY_LONG)};
  for (uint32_t c = 1; c < w->ntk; c++)
    sf[1 + c] =
        (ty_field_t){.name = c <= o->nkeys ? f[2 + c].name : "$grouping_set", .type = w->gtypes[c]};
  sf[nsp - 1] = (ty_field_t){.name = "states", .type = ty_primitive(TY_BINARY)};
  for (uint32_t i = 0; i < nsp; i++) sf[i].id = (int32_t)i + 1;
  w->spill_schema = ty_schema_new(arena, 0, sf, nsp);
  w->ckpt_schema = ty_schema_new(arena, 0, sf + 1, nsp - 1);
  ty_field_t *pf = fl_arena_zalloc(arena, (o->npartition ? o->npartition : 1) * sizeof *pf);
  for (uint32_t c = 0; c < o->npartition; c++) {
    pf[c] = in->root.fields[o->partition_cols[c]];
    pf[c].id = (int32_t)c + 1;
    pf[c].required = false;
  }
  w->part_schema = ty_schema_new(arena, 0, pf, o->npartition);
  w->out_batch = ty_batch_new(w->op.out_schema, TY_BATCH_ROWS);
  w->spill_batch = ty_batch_new(w->spill_schema, TY_BATCH_ROWS);
  w->ckpt_batch = ty_batch_new(w->ckpt_schema, TY_BATCH_ROWS);
  w->part_batch = ty_batch_new(w->part_schema, TY_BATCH_ROWS);

  w->wid_vec = ty_vec_new(ty_primitive(TY_LONG), TY_BATCH_ROWS);
  w->ws_vec = ty_vec_new(ty_primitive(TY_LONG), TY_BATCH_ROWS);
  w->we_vec = ty_vec_new(ty_primitive(TY_LONG), TY_BATCH_ROWS);
  w->set_vec = ty_vec_new(ty_primitive(TY_LONG), TY_BATCH_ROWS);
  w->null_cols = fl_calloc(o->nkeys ? o->nkeys : 1, sizeof *w->null_cols);
  for (uint32_t c = 0; c < o->nkeys; c++)
    w->null_cols[c] = ty_vec_new(w->gtypes[1 + c], TY_BATCH_ROWS);
  w->probe = fl_calloc(w->ntk, sizeof *w->probe);
  w->mv = fl_calloc(w->ntk, sizeof *w->mv);
  for (uint32_t c = 0; c < w->ntk; c++) w->mv[c] = ty_vec_new(w->gtypes[c], TY_BATCH_ROWS);
  fl_buf_init(&w->sbuf);
  *out = &w->op;
  return FL_OK;
}

const ex_window_agg_stats_t *ex_window_agg_stats(const ex_op_t *op) {
  return &((const wagg_t *)op)->stats;
}
