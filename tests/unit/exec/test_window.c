/*
 * test_window.c - the window operator against a brute-force reference
 * computed here row by row: find the row's partition and position, decide
 * for every other row of the partition whether it is in the frame straight
 * from the frame's definition, and compute each function directly
 * (aggregates by feeding the frame's rows to a fresh aggregate state).
 * Random data with NULLs, ties and many partitions; every function; ROWS,
 * RANGE (int and double keys, ASC and DESC, NULLS FIRST and LAST) and
 * GROUPS frames; presorted input; empty input; one huge partition under a
 * tiny budget; and the errors of bad specifications.
 */
#include <math.h>

#include "exec/ex_vec.h"
#include "exec/op_window.h"
#include "exec_test_util.h"
#include "test.h"

/* Columns: p int (partition, ~30 values, NULLs), o int (order key, ties,
 * NULLs), d double (order key, NULLs), x long (argument, NULLs),
 * s string (argument, NULLs), b boolean (argument, NULLs), seq long. */
enum { C_P, C_O, C_D, C_X, C_S, C_B, C_SEQ, NCOLS };

typedef struct wfix {
  fl_arena_t *arena;
  ty_schema_t *schema;
  ty_batch_t **batches;
  uint32_t nbatches;
  uint32_t nrows;
  ty_batch_t *all; /* every row, in input order (row r has seq r) */
  uint32_t *arrival; /* arrival[r]: when row r is pushed (selections reorder) */
} wfix_t;

static void make_input(wfix_t *fx, uint32_t nrows, uint32_t nparts, uint64_t seed) {
  fl_err_t err;
  fx->arena = fl_arena_new(0);
  ty_schema_parse(fx->arena, "p int, o int, d double, x long, s string, b boolean, seq long",
                  &fx->schema, &err);
  fx->all = ty_batch_new(fx->schema, nrows ? nrows : 1);
  for (uint32_t i = 0; i < nrows; i++) {
    uint64_t r = tu_rand(&seed);
    ty_vec_t **c = fx->all->cols;
    if (nparts > 1 && r % 17 == 0)
      ty_vec_append_null(c[C_P]);
    else
      ty_vec_append_i32(c[C_P], nparts ? (int32_t)((r >> 8) % nparts) : 0);
    if ((r >> 16) % 11 == 0)
      ty_vec_append_null(c[C_O]);
    else
      ty_vec_append_i32(c[C_O], (int32_t)((r >> 20) % 25) - 5);
    if ((r >> 28) % 13 == 0)
      ty_vec_append_null(c[C_D]);
    else
      ty_vec_append_f64(c[C_D], (double)((r >> 32) % 40) * 0.25);
    if ((r >> 40) % 5 == 0)
      ty_vec_append_null(c[C_X]);
    else
      ty_vec_append_i64(c[C_X], (int64_t)((r >> 44) % 101) - 50);
    if ((r >> 52) % 7 == 0)
      ty_vec_append_null(c[C_S]);
    else {
      char s[4] = {(char)('a' + (r >> 55) % 5), (char)('a' + (r >> 58) % 3)};
      ty_vec_append_bytes(c[C_S], s, 1 + (r >> 61) % 2);
    }
    if ((r >> 3) % 9 == 0)
      ty_vec_append_null(c[C_B]);
    else
      ty_vec_append_bool(c[C_B], (r >> 5) % 4 != 0);
    ty_vec_append_i64(c[C_SEQ], i);
  }
  ty_batch_seal(fx->all);
  /* Batches of varying size; every third one selects half its rows (and
   * the unselected rows are pushed again in a batch of their own). */
  fx->nrows = nrows;
  fx->arrival = fl_malloc(((size_t)nrows + 1) * sizeof *fx->arrival);
  fx->batches = fl_calloc(2 * (size_t)nrows + 4, sizeof *fx->batches);
  fx->nbatches = 0;
  uint32_t at = 0;
  while (at < nrows) {
    uint32_t m = 1 + (uint32_t)(tu_rand(&seed) % 700);
    if (m > nrows - at) m = nrows - at;
    uint32_t *rows = fl_malloc(m * sizeof *rows);
    for (uint32_t k = 0; k < m; k++) rows[k] = at + k;
    bool split = fx->nbatches % 3 == 2 && m > 1;
    ty_batch_t *b = ty_batch_new(fx->schema, m);
    for (uint32_t c = 0; c < NCOLS; c++) ex_vec_gather(b->cols[c], fx->all->cols[c], rows, m);
    ty_batch_seal(b);
    if (split) {
      for (uint32_t k = 0; k < m; k++)
        fx->arrival[at + k] = k % 2 ? at + (m + 1) / 2 + k / 2 : at + k / 2;
      uint32_t *even = fl_malloc(m * sizeof *even), *odd = fl_malloc(m * sizeof *odd);
      uint32_t ne = 0, no = 0;
      for (uint32_t k = 0; k < m; k++) {
        if (k % 2)
          odd[no++] = k;
        else
          even[ne++] = k;
      }
      ty_batch_select(b, even, ne);
      ty_batch_t *b2 = ty_batch_new(fx->schema, m);
      for (uint32_t c = 0; c < NCOLS; c++) ex_vec_gather(b2->cols[c], b->cols[c], odd, no);
      ty_batch_seal(b2);
      fx->batches[fx->nbatches++] = b;
      fx->batches[fx->nbatches++] = b2;
      fl_free(even);
      fl_free(odd);
    } else {
      for (uint32_t k = 0; k < m; k++) fx->arrival[at + k] = at + k;
      fx->batches[fx->nbatches++] = b;
    }
    fl_free(rows);
    at += m;
  }
}

static void free_input(wfix_t *fx) {
  for (uint32_t i = 0; i < fx->nbatches; i++) ty_batch_free(fx->batches[i]);
  fl_free(fx->batches);
  ty_batch_free(fx->all);
  fl_free(fx->arrival);
  fl_arena_free(fx->arena);
}

/* ---- the reference ---- */

typedef struct spec {
  const uint32_t *pcols;
  uint32_t np;
  const ex_sort_key_t *okeys;
  uint32_t no;
  const ex_window_frame_t *frame; /* NULL: default */
} spec_t;

static const wfix_t *R;
static const spec_t *RS;

static int val_cmp(const ty_vec_t *v, uint32_t i, uint32_t j) {
  switch (v->type->kind) {
    case TY_STRING: {
      size_t na, nb;
      const uint8_t *a = ty_vec_get_bytes(v, i, &na), *b = ty_vec_get_bytes(v, j, &nb);
      int c = memcmp(a, b, na < nb ? na : nb);
      if (c) return c < 0 ? -1 : 1;
      return (na > nb) - (na < nb);
    }
    case TY_INT: {
      int32_t a = TY_VEC_DATA(v, int32_t)[i], b = TY_VEC_DATA(v, int32_t)[j];
      return (a > b) - (a < b);
    }
    case TY_DOUBLE: {
      double a = TY_VEC_DATA(v, double)[i], b = TY_VEC_DATA(v, double)[j];
      return (a > b) - (a < b);
    }
    default: {
      int64_t a = TY_VEC_DATA(v, int64_t)[i], b = TY_VEC_DATA(v, int64_t)[j];
      return (a > b) - (a < b);
    }
  }
}

/* Compares rows under one key, NULL placement independent of direction. */
static int key_cmp(const ex_sort_key_t *k, uint32_t i, uint32_t j) {
  const ty_vec_t *v = R->all->cols[k->col];
  bool ni = ty_vec_is_null(v, i), nj = ty_vec_is_null(v, j);
  if (ni || nj) return ni && nj ? 0 : (ni ? 1 : -1) * (k->nulls_first ? -1 : 1);
  int c = val_cmp(v, i, j);
  return k->desc ? -c : c;
}

static int part_cmp(uint32_t i, uint32_t j) {
  for (uint32_t k = 0; k < RS->np; k++) {
    ex_sort_key_t key = {.col = RS->pcols[k]};
    int c = key_cmp(&key, i, j);
    if (c) return c;
  }
  return 0;
}

static int order_cmp(uint32_t i, uint32_t j) {
  for (uint32_t k = 0; k < RS->no; k++) {
    int c = key_cmp(&RS->okeys[k], i, j);
    if (c) return c;
  }
  return 0;
}

static int full_cmp(const void *a, const void *b) {
  uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
  int c = part_cmp(i, j);
  if (!c) c = order_cmp(i, j);
  /* Peers keep their arrival order: the sort is stable. */
  if (!c) c = (R->arrival[i] > R->arrival[j]) - (R->arrival[i] < R->arrival[j]);
  return c;
}

/* Row j's key value minus row i's in sort direction (RANGE), as double. */
static double key_dist(uint32_t i, uint32_t j) {
  const ex_sort_key_t *k = &RS->okeys[0];
  const ty_vec_t *v = R->all->cols[k->col];
  double a = v->type->kind == TY_DOUBLE ? TY_VEC_DATA(v, double)[i] : TY_VEC_DATA(v, int32_t)[i];
  double b = v->type->kind == TY_DOUBLE ? TY_VEC_DATA(v, double)[j] : TY_VEC_DATA(v, int32_t)[j];
  return k->desc ? a - b : b - a;
}

static double bound_off(const ex_frame_bound_t *b) {
  const ty_vec_t *v = R->all->cols[RS->okeys ? RS->okeys[0].col : 0];
  return v->type->kind == TY_DOUBLE ? b->offset_f : (double)b->offset;
}

/* Is the row at position j in the frame of the row at position i (both
 * positions in the sorted partition `ord`)? grp: peer group per position. */
static bool in_frame(const ex_window_frame_t *f, const uint32_t *ord, const uint32_t *grp,
                     uint32_t i, uint32_t j) {
  const ex_frame_bound_t *bs[2] = {&f->start, &f->end};
  for (int e = 0; e < 2; e++) {
    const ex_frame_bound_t *b = bs[e];
    int64_t d; /* signed distance of j from i in the unit */
    bool ok;
    if (b->kind == EX_BOUND_UNBOUNDED_PRECEDING || b->kind == EX_BOUND_UNBOUNDED_FOLLOWING)
      continue;
    if (f->unit == EX_FRAME_ROWS) {
      d = (int64_t)j - (int64_t)i;
    } else if (f->unit == EX_FRAME_GROUPS || b->kind == EX_BOUND_CURRENT_ROW) {
      d = (int64_t)grp[j] - (int64_t)grp[i];
    } else {
      /* RANGE with an offset: NULL current keys bound at their peers;
       * NULL keys of other rows sit at the end the sort put them. */
      const ex_sort_key_t *k = &RS->okeys[0];
      const ty_vec_t *v = R->all->cols[k->col];
      bool ni = ty_vec_is_null(v, ord[i]), nj = ty_vec_is_null(v, ord[j]);
      if (ni) {
        d = (int64_t)grp[j] - (int64_t)grp[i];
        ok = e == 0 ? d >= 0 : d <= 0;
        if (!ok) return false;
        continue;
      }
      double lim = b->kind == EX_BOUND_PRECEDING ? -bound_off(b) : bound_off(b);
      if (nj) {
        /* A NULL is beyond every value on its side. */
        bool after = !k->nulls_first;
        ok = e == 0 ? after : !after;
      } else {
        double dist = key_dist(ord[i], ord[j]);
        ok = e == 0 ? dist >= lim : dist <= lim;
      }
      if (!ok) return false;
      continue;
    }
    int64_t off = b->kind == EX_BOUND_CURRENT_ROW ? 0 : b->offset;
    int64_t lim = b->kind == EX_BOUND_PRECEDING ? -off : off;
    ok = e == 0 ? d >= lim : d <= lim;
    if (!ok) return false;
  }
  return true;
}

/* Formats the value a function gives as text (doubles to 9 digits). */
static void fmt_cell(const ty_vec_t *v, uint32_t i, fl_buf_t *out) {
  if (!ty_vec_is_null(v, i) && v->type->kind == TY_DOUBLE) {
    char s[64];
    snprintf(s, sizeof s, "%.9g", TY_VEC_DATA(v, double)[i]);
    fl_buf_append_str(out, s);
    return;
  }
  tu_format(v, i, out);
}

static void fmt_row(const ty_vec_t *v, int64_t row, fl_buf_t *out) {
  if (row < 0)
    fl_buf_append_str(out, "NULL");
  else
    fmt_cell(v, (uint32_t)row, out);
}

/* The expected text of function fn for the row at position i of the
 * partition ord[0..n). */
static void ref_value(const ex_window_fn_t *fn, const uint32_t *ord, const uint32_t *grp,
                      uint32_t n, uint32_t i, const bool *inf, fl_buf_t *out) {
  char s[64];
  uint32_t before = 0, upto = 0;
  if (fn->kind == EX_WIN_RANK || fn->kind == EX_WIN_PERCENT_RANK || fn->kind == EX_WIN_CUME_DIST)
    for (uint32_t j = 0; j < n; j++) {
      int c = order_cmp(ord[j], ord[i]);
      before += c < 0;
      upto += c <= 0;
    }
  const ty_vec_t *x = fn->arg_col >= 0 ? R->all->cols[fn->arg_col] : NULL;
  switch (fn->kind) {
    case EX_WIN_ROW_NUMBER: snprintf(s, sizeof s, "%u", i + 1); break;
    case EX_WIN_RANK: snprintf(s, sizeof s, "%u", before + 1); break;
    case EX_WIN_DENSE_RANK: snprintf(s, sizeof s, "%u", grp[i] + 1); break;
    case EX_WIN_PERCENT_RANK:
      snprintf(s, sizeof s, "%.9g", n > 1 ? (double)before / (n - 1) : 0.0);
      break;
    case EX_WIN_CUME_DIST: snprintf(s, sizeof s, "%.9g", (double)upto / n); break;
    case EX_WIN_NTILE: {
      /* Buckets of n / k rows, the first n % k one row larger. */
      uint32_t b = 0, start = 0;
      for (;;) {
        uint32_t size = (uint32_t)(n / fn->param + ((int64_t)b < (int64_t)(n % fn->param)));
        if (i < start + size) break;
        start += size;
        b++;
      }
      snprintf(s, sizeof s, "%u", b + 1);
      break;
    }
    case EX_WIN_LAG:
    case EX_WIN_LEAD: {
      int step = fn->kind == EX_WIN_LAG ? -1 : 1;
      int64_t j = i, left = fn->param;
      while (left > 0) {
        j += step;
        if (j < 0 || j >= n) break;
        if (!fn->ignore_nulls || ty_vec_is_valid(x, ord[j])) left--;
      }
      if (j >= 0 && j < n)
        fmt_row(x, ord[j], out);
      else if (fn->default_col >= 0)
        fmt_row(R->all->cols[fn->default_col], ord[i], out);
      else
        fl_buf_append_str(out, "NULL");
      return;
    }
    case EX_WIN_FIRST_VALUE:
    case EX_WIN_LAST_VALUE:
    case EX_WIN_NTH_VALUE: {
      int64_t found = -1, seen = 0;
      for (uint32_t j = 0; j < n; j++) {
        if (!inf[j]) continue;
        if (fn->ignore_nulls && ty_vec_is_null(x, ord[j])) continue;
        seen++;
        if (fn->kind == EX_WIN_LAST_VALUE) found = ord[j];
        if (fn->kind == EX_WIN_FIRST_VALUE && seen == 1) found = ord[j];
        if (fn->kind == EX_WIN_NTH_VALUE && seen == fn->param) found = ord[j];
      }
      fmt_row(x, found, out);
      return;
    }
    default: {
      ex_agg_t *a = fn->agg;
      uint8_t *st = fl_calloc(1, a->fn->state_size + 16);
      a->fn->init(a, st);
      uint32_t *rows = fl_malloc((n + 1) * sizeof *rows), *gids = fl_calloc(n + 1, sizeof *gids);
      uint32_t m = 0;
      for (uint32_t j = 0; j < n; j++)
        if (inf[j]) rows[m++] = ord[j];
      if (strcmp(a->name, "approx_percentile") == 0) {
        /* Approximate: any value whose rank in the frame is within 0.1
         * of the median's is accepted ("~lo:hi"). */
        int64_t *v = fl_malloc((m + 1) * sizeof *v);
        uint32_t nv = 0;
        for (uint32_t k = 0; k < m; k++)
          if (ty_vec_is_valid(x, rows[k])) v[nv++] = TY_VEC_DATA(x, int64_t)[rows[k]];
        for (uint32_t k = 1; k < nv; k++)
          for (uint32_t l = k; l > 0 && v[l - 1] > v[l]; l--) {
            int64_t t = v[l];
            v[l] = v[l - 1];
            v[l - 1] = t;
          }
        if (nv == 0)
          fl_buf_append_str(out, "NULL");
        else {
          snprintf(s, sizeof s, "~%lld:%lld", (long long)v[(uint32_t)floor(0.4 * (nv - 1))],
                   (long long)v[(uint32_t)ceil(0.6 * (nv - 1))]);
          fl_buf_append_str(out, s);
        }
        fl_free(v);
        if (a->fn->destroy) a->fn->destroy(a, st);
        fl_free(st);
        fl_free(rows);
        fl_free(gids);
        return;
      }
      fl_err_t err;
      int rc = a->fn->update(a, st, a->fn->state_size, gids, x, rows, m, &err);
      ty_vec_t *res = ty_vec_new(a->out, 1);
      if (!rc) rc = a->fn->finalize(a, st, a->fn->state_size, 1, res, &err);
      if (rc)
        fl_buf_append_str(out, "ERROR");
      else
        fmt_cell(res, 0, out);
      ty_vec_free(res);
      if (a->fn->destroy) a->fn->destroy(a, st);
      fl_free(st);
      fl_free(rows);
      fl_free(gids);
      return;
    }
  }
  fl_buf_append_str(out, s);
}

/* Expected output text per input row (indexed by seq). */
static char **reference(const wfix_t *fx, const spec_t *sp, const ex_window_fn_t *fns,
                        uint32_t nfns) {
  R = fx;
  RS = sp;
  uint32_t n = fx->nrows;
  uint32_t *ord = fl_malloc((n + 1) * sizeof *ord), *grp = fl_malloc((n + 1) * sizeof *grp);
  for (uint32_t i = 0; i < n; i++) ord[i] = i;
  qsort(ord, n, sizeof *ord, full_cmp);
  char **exp = fl_calloc(n + 1, sizeof *exp);
  bool *inf = fl_malloc(n + 1);
  const ex_window_frame_t deflt = {.unit = EX_FRAME_RANGE,
                                   .start = {.kind = EX_BOUND_UNBOUNDED_PRECEDING},
                                   .end = {.kind = EX_BOUND_CURRENT_ROW}};
  const ex_window_frame_t *f = sp->frame ? sp->frame : &deflt;
  fl_buf_t b;
  fl_buf_init(&b);
  for (uint32_t s = 0; s < n;) {
    uint32_t e = s + 1;
    while (e < n && part_cmp(ord[s], ord[e]) == 0) e++;
    uint32_t pn = e - s;
    for (uint32_t j = 0; j < pn; j++)
      grp[s + j] = j == 0 ? 0 : grp[s + j - 1] + (order_cmp(ord[s + j - 1], ord[s + j]) != 0);
    for (uint32_t i = 0; i < pn; i++) {
      /* The frame of row i: every row of the partition, decided alone. */
      for (uint32_t j = 0; j < pn; j++) inf[j] = in_frame(f, ord + s, grp + s, i, j);
      fl_buf_clear(&b);
      char pos[32];
      snprintf(pos, sizeof pos, "#%u", i);
      fl_buf_append_str(&b, pos);
      for (uint32_t fi = 0; fi < nfns; fi++) {
        fl_buf_append_str(&b, "|");
        ref_value(&fns[fi], ord + s, grp + s, pn, i, inf, &b);
      }
      fl_buf_append_u8(&b, 0);
      exp[ord[s + i]] = fl_strdup((const char *)b.data);
    }
    s = e;
  }
  fl_buf_free(&b);
  fl_free(inf);
  fl_free(ord);
  fl_free(grp);
  return exp;
}

/* Do two rows of "|"-separated cells match? Numbers may differ in the
 * last digits: a segment tree combines partial states (Chan's variance
 * merge, sums in another order) where the reference adds row by row. */
static bool rows_match(const char *a, const char *b) {
  while (*a || *b) {
    size_t na = strcspn(a, "|"), nb = strcspn(b, "|");
    if (na != nb || memcmp(a, b, na) != 0) {
      char ca[128], cb[128], *ea, *eb;
      if (na >= sizeof ca || nb >= sizeof cb) return false;
      memcpy(ca, a, na);
      ca[na] = 0;
      memcpy(cb, b, nb);
      cb[nb] = 0;
      long long lo, hi, got;
      if (cb[0] == '~' && sscanf(cb, "~%lld:%lld", &lo, &hi) == 2) {
        if (sscanf(ca, "%lld", &got) != 1 || got < lo || got > hi) return false;
        a += na + (a[na] == '|');
        b += nb + (b[nb] == '|');
        continue;
      }
      double x = strtod(ca, &ea), y = strtod(cb, &eb);
      if (ea == ca || eb == cb || *ea || *eb) return false;
      double scale = fmax(1.0, fmax(fabs(x), fabs(y)));
      if (!(fabs(x - y) <= 1e-7 * scale)) return false;
    }
    a += na + (a[na] == '|');
    b += nb + (b[nb] == '|');
  }
  return true;
}

/* ---- running the operator ---- */

typedef struct run {
  ex_sink_t *sink;
  ex_window_stats_t stats;
  size_t peak;
} run_t;

static int run_window(const wfix_t *fx, const spec_t *sp, const ex_window_fn_t *fns, uint32_t nfns,
                      bool presorted, size_t budget, run_t *out, fl_err_t *err) {
  ex_mem_t mem;
  ex_mem_init(&mem, budget);
  ex_opctx_t ctx = {.mem = &mem, .spill_dir = t_tmpdir()};
  ex_window_opts_t o = {.in_schema = fx->schema,
                        .partition_cols = sp->pcols,
                        .npartition = sp->np,
                        .order_keys = sp->okeys,
                        .norder = sp->no,
                        .frame = sp->frame,
                        .presorted = presorted,
                        .fns = fns,
                        .nfns = nfns};
  ex_op_t *w;
  ex_sink_t *sink = NULL;
  int rc = FL_OK;
  /* The output schema is known only after construction: build once to
   * learn it, then again with the sink attached. */
  rc = ex_window_new(&ctx, fx->arena, &o, NULL, &w, err);
  if (rc) return rc;
  sink = ex_sink_new(w->out_schema);
  ex_op_destroy(w);
  rc = ex_window_new(&ctx, fx->arena, &o, &sink->op, &w, err);
  if (rc) {
    ex_op_destroy(&sink->op);
    return rc;
  }
  if (presorted) {
    /* Feed the rows in window order, in batches of 500. */
    R = fx;
    RS = sp;
    uint32_t *ord = fl_malloc((fx->nrows + 1) * sizeof *ord);
    for (uint32_t i = 0; i < fx->nrows; i++) ord[i] = i;
    qsort(ord, fx->nrows, sizeof *ord, full_cmp);
    ty_batch_t *b = ty_batch_new(fx->schema, 500);
    for (uint32_t s = 0; s < fx->nrows && !rc; s += 500) {
      uint32_t m = fx->nrows - s < 500 ? fx->nrows - s : 500;
      ty_batch_reset(b);
      for (uint32_t c = 0; c < NCOLS; c++) ex_vec_gather(b->cols[c], fx->all->cols[c], ord + s, m);
      ty_batch_seal(b);
      rc = ex_op_push(w, b, err);
    }
    ty_batch_free(b);
    fl_free(ord);
  } else {
    for (uint32_t i = 0; i < fx->nbatches && !rc; i++) rc = ex_op_push(w, fx->batches[i], err);
  }
  if (!rc) rc = ex_op_finish(w, err);
  if (!rc) out->stats = *ex_window_stats(w);
  ex_op_destroy(w);
  out->sink = sink;
  out->peak = mem.peak;
  if (rc) ex_op_destroy(&sink->op);
  return rc;
}

/* Compares the operator's output with the reference row by row: the
 * input columns must come back unchanged, the row's position in its
 * partition must match the window order (partition rows contiguous and
 * sorted), and every function's value must match. */
static ex_window_stats_t last_stats;

static bool check_against_reference(const wfix_t *fx, const spec_t *sp, const ex_window_fn_t *fns,
                                    uint32_t nfns, bool presorted, size_t budget) {
  fl_err_t err;
  run_t run;
  int rc = run_window(fx, sp, fns, nfns, presorted, budget, &run, &err);
  last_stats = run.stats;
  if (rc) {
    t_fail(__FILE__, __LINE__, "window failed: %s", err.msg);
    return false;
  }
  char **exp = reference(fx, sp, fns, nfns);
  bool ok = run.sink->finished && run.sink->rows == fx->nrows;
  if (!ok) t_fail(__FILE__, __LINE__, "rows %llu of %u", (unsigned long long)run.sink->rows, fx->nrows);
  fl_buf_t b;
  fl_buf_init(&b);
  uint8_t *seen = fl_calloc(fx->nrows + 1, 1);
  uint64_t prev_seq = UINT64_MAX;
  uint32_t pos = 0;
  R = fx;
  RS = sp;
  for (uint32_t bi = 0; ok && bi < run.sink->nbatches; bi++) {
    const ty_batch_t *ob = run.sink->batches[bi];
    for (uint32_t r = 0; ok && r < ob->nrows; r++) {
      uint64_t seq = (uint64_t)TY_VEC_DATA(ob->cols[C_SEQ], int64_t)[r];
      if (seq >= fx->nrows || seen[seq]) {
        t_fail(__FILE__, __LINE__, "bad or repeated seq %llu", (unsigned long long)seq);
        ok = false;
        break;
      }
      seen[seq] = 1;
      /* Window order: a new partition restarts the position. */
      if (prev_seq != UINT64_MAX && part_cmp((uint32_t)prev_seq, (uint32_t)seq) == 0) {
        if (order_cmp((uint32_t)prev_seq, (uint32_t)seq) > 0) {
          t_fail(__FILE__, __LINE__, "rows out of window order at seq %llu", (unsigned long long)seq);
          ok = false;
          break;
        }
        pos++;
      } else {
        pos = 0;
      }
      prev_seq = seq;
      fl_buf_clear(&b);
      char ps[32];
      snprintf(ps, sizeof ps, "#%u", pos);
      fl_buf_append_str(&b, ps);
      for (uint32_t f = 0; f < nfns; f++) {
        fl_buf_append_str(&b, "|");
        fmt_cell(ob->cols[NCOLS + f], r, &b);
      }
      for (uint32_t c = 0; c < NCOLS; c++) {
        fl_buf_t x, y;
        fl_buf_init(&x);
        fl_buf_init(&y);
        tu_format(ob->cols[c], r, &x);
        tu_format(fx->all->cols[c], (uint32_t)seq, &y);
        bool same = x.len == y.len && memcmp(x.data, y.data, x.len) == 0;
        fl_buf_free(&x);
        fl_buf_free(&y);
        if (!same) {
          t_fail(__FILE__, __LINE__, "input column %u changed at seq %llu", c,
                 (unsigned long long)seq);
          ok = false;
        }
      }
      fl_buf_append_u8(&b, 0);
      if (ok && !rows_match((const char *)b.data, exp[seq])) {
        t_fail(__FILE__, __LINE__, "seq %llu: got %s, expected %s", (unsigned long long)seq,
               (const char *)b.data, exp[seq]);
        ok = false;
      }
    }
  }
  fl_buf_free(&b);
  fl_free(seen);
  for (uint32_t i = 0; i < fx->nrows; i++) fl_free(exp[i]);
  fl_free(exp);
  ex_op_destroy(&run.sink->op);
  return ok;
}

/* ---- the function lists ---- */

static ex_agg_t *bind(const wfix_t *fx, const char *name, int32_t col, bool distinct) {
  fl_err_t err;
  ex_agg_t *a = NULL;
  const ty_type_t *t = col >= 0 ? fx->schema->root.fields[col].type : NULL;
  double median = 0.5;
  bool pct = strcmp(name, "approx_percentile") == 0;
  if (ex_agg_bind(fx->arena, name, t, distinct, pct ? &median : NULL, pct, &a, &err) != FL_OK)
    return NULL;
  return a;
}

#define AGG(nm, col) \
  {.kind = EX_WIN_AGG, .arg_col = (col), .default_col = -1, .agg = bind(fx, nm, col, false)}

/* Every framed function: value functions and aggregates. */
static uint32_t framed_fns(const wfix_t *fx, ex_window_fn_t *f) {
  ex_window_fn_t list[] = {
      {.kind = EX_WIN_FIRST_VALUE, .arg_col = C_X, .default_col = -1},
      {.kind = EX_WIN_FIRST_VALUE, .arg_col = C_X, .default_col = -1, .ignore_nulls = true},
      {.kind = EX_WIN_LAST_VALUE, .arg_col = C_S, .default_col = -1},
      {.kind = EX_WIN_LAST_VALUE, .arg_col = C_S, .default_col = -1, .ignore_nulls = true},
      {.kind = EX_WIN_NTH_VALUE, .arg_col = C_X, .param = 3, .default_col = -1},
      {.kind = EX_WIN_NTH_VALUE, .arg_col = C_X, .param = 2, .default_col = -1, .ignore_nulls = true},
      AGG("count", -1),
      AGG("count", C_X),
      AGG("sum", C_X),
      AGG("avg", C_X),
      AGG("min", C_X),
      AGG("max", C_X),
      AGG("min", C_S),
      AGG("max", C_S),
      AGG("stddev", C_X),
      AGG("var_pop", C_X),
      AGG("bool_and", C_B),
      AGG("bool_or", C_B),
      AGG("array_agg", C_X),
      AGG("approx_distinct", C_X),
      AGG("approx_percentile", C_X),
      {.kind = EX_WIN_AGG, .arg_col = C_X, .default_col = -1, .agg = bind(fx, "count", C_X, true)},
  };
  uint32_t n = sizeof list / sizeof list[0];
  memcpy(f, list, sizeof list);
  return n;
}

static uint32_t all_fns(const wfix_t *fx, ex_window_fn_t *f) {
  ex_window_fn_t list[] = {
      {.kind = EX_WIN_ROW_NUMBER, .default_col = -1},
      {.kind = EX_WIN_RANK, .default_col = -1},
      {.kind = EX_WIN_DENSE_RANK, .default_col = -1},
      {.kind = EX_WIN_PERCENT_RANK, .default_col = -1},
      {.kind = EX_WIN_CUME_DIST, .default_col = -1},
      {.kind = EX_WIN_NTILE, .param = 4, .default_col = -1},
      {.kind = EX_WIN_NTILE, .param = 1000, .default_col = -1},
      {.kind = EX_WIN_LAG, .arg_col = C_X, .param = 1, .default_col = -1},
      {.kind = EX_WIN_LAG, .arg_col = C_X, .param = 3, .default_col = C_SEQ - 3},
      {.kind = EX_WIN_LAG, .arg_col = C_X, .param = 2, .default_col = -1, .ignore_nulls = true},
      {.kind = EX_WIN_LEAD, .arg_col = C_S, .param = 1, .default_col = -1},
      {.kind = EX_WIN_LEAD, .arg_col = C_X, .param = 0, .default_col = -1},
      {.kind = EX_WIN_LEAD, .arg_col = C_X, .param = 2, .default_col = C_X, .ignore_nulls = true},
  };
  uint32_t n = sizeof list / sizeof list[0];
  memcpy(f, list, sizeof list);
  return n + framed_fns(fx, f + n);
}

static const uint32_t part_p[] = {C_P};

static void check_frame(const ex_window_frame_t *fr, const ex_sort_key_t *okeys, uint32_t no,
                        uint32_t nrows, uint32_t nparts) {
  wfix_t fx;
  make_input(&fx, nrows, nparts, 42 + nrows + nparts);
  ex_window_fn_t fns[64];
  uint32_t n = all_fns(&fx, fns);
  for (uint32_t i = 0; i < n; i++) CHECK(fns[i].kind != EX_WIN_AGG || fns[i].agg);
  spec_t sp = {.pcols = part_p, .np = nparts ? 1 : 0, .okeys = okeys, .no = no, .frame = fr};
  bool ok = check_against_reference(&fx, &sp, fns, n, false, 0);
  if (ok) ok = check_against_reference(&fx, &sp, fns, n, true, 0);
  free_input(&fx);
  CHECK(ok);
}

static const ex_sort_key_t by_o[] = {{.col = C_O}};
static const ex_sort_key_t by_o_desc_nf[] = {{.col = C_O, .desc = true, .nulls_first = true}};
static const ex_sort_key_t by_d[] = {{.col = C_D}};
static const ex_sort_key_t by_d_desc[] = {{.col = C_D, .desc = true}};
static const ex_sort_key_t by_o_s[] = {{.col = C_O}, {.col = C_S, .desc = true}};

#define BOUND(k, n) {.kind = EX_BOUND_##k, .offset = (n), .offset_f = (double)(n)}

TEST(window_default_frame) { check_frame(NULL, by_o, 1, 2500, 30); }

/* Many partitions under a budget so small that the sort spills and
 * partitions spill their rows: still the reference's results. */
TEST(window_spilled_partitions) {
  wfix_t fx;
  make_input(&fx, 6000, 8, 99);
  ex_window_fn_t fns[64];
  uint32_t n = all_fns(&fx, fns);
  ex_window_frame_t f = {EX_FRAME_ROWS, BOUND(PRECEDING, 20), BOUND(FOLLOWING, 7)};
  spec_t sp = {.pcols = part_p, .np = 1, .okeys = by_o_s, .no = 2, .frame = &f};
  bool ok = check_against_reference(&fx, &sp, fns, n, false, 16 << 10);
  free_input(&fx);
  CHECK(ok);
  CHECK(last_stats.sort_runs > 1);
  CHECK(last_stats.spilled_partitions > 1);
}

TEST(window_default_frame_two_keys) { check_frame(NULL, by_o_s, 2, 2000, 20); }

TEST(window_no_order_by) { check_frame(NULL, NULL, 0, 2000, 10); }

/* Functions that read no column, without PARTITION BY or ORDER BY: the
 * rows pass in arrival order and nothing is buffered but the payload. */
TEST(window_no_eval_columns) {
  wfix_t fxs, *fx = &fxs;
  make_input(fx, 3000, 0, 5);
  ex_window_fn_t fns[3] = {{.kind = EX_WIN_ROW_NUMBER, .default_col = -1},
                           {.kind = EX_WIN_NTILE, .param = 7, .default_col = -1},
                           AGG("count", -1)};
  spec_t sp = {0};
  bool ok = check_against_reference(fx, &sp, fns, 3, false, 8 << 10);
  free_input(fx);
  CHECK(ok);
  CHECK_EQ(last_stats.spilled_partitions, 1);
}

TEST(window_no_partition) { check_frame(NULL, by_o, 1, 1000, 0); }

TEST(window_rows_sliding) {
  ex_window_frame_t f = {EX_FRAME_ROWS, BOUND(PRECEDING, 3), BOUND(FOLLOWING, 2)};
  check_frame(&f, by_o, 1, 2500, 30);
}

TEST(window_rows_wide) {
  /* Frames far wider than the segment tree's blocks. */
  ex_window_frame_t f = {EX_FRAME_ROWS, BOUND(PRECEDING, 300), BOUND(FOLLOWING, 41)};
  check_frame(&f, by_o_s, 2, 2000, 3);
}

TEST(window_rows_edges) {
  ex_window_frame_t a = {EX_FRAME_ROWS, BOUND(UNBOUNDED_PRECEDING, 0), BOUND(PRECEDING, 2)};
  check_frame(&a, by_o, 1, 2000, 30);
  ex_window_frame_t b = {EX_FRAME_ROWS, BOUND(CURRENT_ROW, 0), BOUND(UNBOUNDED_FOLLOWING, 0)};
  check_frame(&b, by_o, 1, 2000, 30);
  ex_window_frame_t c = {EX_FRAME_ROWS, BOUND(FOLLOWING, 1), BOUND(FOLLOWING, 5)};
  check_frame(&c, by_o, 1, 2000, 30);
  ex_window_frame_t d = {EX_FRAME_ROWS, BOUND(UNBOUNDED_PRECEDING, 0), BOUND(UNBOUNDED_FOLLOWING, 0)};
  check_frame(&d, by_o, 1, 2000, 30);
}

TEST(window_range_int) {
  ex_window_frame_t f = {EX_FRAME_RANGE, BOUND(PRECEDING, 2), BOUND(FOLLOWING, 3)};
  check_frame(&f, by_o, 1, 2000, 20);
  check_frame(&f, by_o_desc_nf, 1, 2000, 20);
  ex_window_frame_t g = {EX_FRAME_RANGE, BOUND(CURRENT_ROW, 0), BOUND(UNBOUNDED_FOLLOWING, 0)};
  check_frame(&g, by_o_desc_nf, 1, 2000, 20);
  ex_window_frame_t h = {EX_FRAME_RANGE, BOUND(FOLLOWING, 4), BOUND(UNBOUNDED_FOLLOWING, 0)};
  check_frame(&h, by_o, 1, 2000, 20);
  ex_window_frame_t i = {EX_FRAME_RANGE, BOUND(UNBOUNDED_PRECEDING, 0), BOUND(PRECEDING, 1)};
  check_frame(&i, by_o_desc_nf, 1, 2000, 20);
}

TEST(window_range_double) {
  ex_window_frame_t f = {EX_FRAME_RANGE, BOUND(PRECEDING, 0), BOUND(FOLLOWING, 0)};
  f.start.offset_f = 1.5;
  f.end.offset_f = 0.5;
  check_frame(&f, by_d, 1, 2000, 20);
  check_frame(&f, by_d_desc, 1, 2000, 20);
}

TEST(window_groups) {
  ex_window_frame_t f = {EX_FRAME_GROUPS, BOUND(PRECEDING, 1), BOUND(FOLLOWING, 2)};
  check_frame(&f, by_o, 1, 2000, 20);
  ex_window_frame_t g = {EX_FRAME_GROUPS, BOUND(FOLLOWING, 1), BOUND(UNBOUNDED_FOLLOWING, 0)};
  check_frame(&g, by_o_s, 2, 2000, 20);
}

TEST(window_empty_input) {
  wfix_t fx;
  make_input(&fx, 0, 5, 1);
  ex_window_fn_t fns[64];
  uint32_t n = all_fns(&fx, fns);
  spec_t sp = {.pcols = part_p, .np = 1, .okeys = by_o, .no = 1};
  fl_err_t err;
  run_t run;
  int rc = run_window(&fx, &sp, fns, n, false, 0, &run, &err);
  CHECK_OK(rc, &err);
  CHECK(run.sink->finished);
  CHECK_EQ(run.sink->rows, 0);
  CHECK_EQ(run.stats.partitions, 0);
  ex_op_destroy(&run.sink->op);
  free_input(&fx);
}

/* One partition of 60,000 rows under a 256 KiB budget: the sort spills
 * runs, and the result is identical to an unlimited run. */
TEST(window_huge_partition_tiny_budget) {
  wfix_t fxs, *fx = &fxs;
  make_input(fx, 60000, 1, 7);
  ex_window_fn_t fns[64];
  uint32_t n = 0;
  fns[n++] = (ex_window_fn_t){.kind = EX_WIN_ROW_NUMBER, .default_col = -1};
  fns[n++] = (ex_window_fn_t){.kind = EX_WIN_RANK, .default_col = -1};
  fns[n++] = (ex_window_fn_t){.kind = EX_WIN_LAG, .arg_col = C_X, .param = 5, .default_col = -1};
  fns[n++] = (ex_window_fn_t)AGG("sum", C_X);
  fns[n++] = (ex_window_fn_t)AGG("max", C_S);
  ex_window_frame_t f = {EX_FRAME_ROWS, BOUND(PRECEDING, 1000), BOUND(FOLLOWING, 1000)};
  spec_t sp = {.pcols = part_p, .np = 1, .okeys = by_o_s, .no = 2, .frame = &f};
  fl_err_t err;
  run_t big, small;
  int rc = run_window(fx, &sp, fns, n, false, 0, &big, &err);
  CHECK_OK(rc, &err);
  rc = run_window(fx, &sp, fns, n, false, 256 << 10, &small, &err);
  CHECK_OK(rc, &err);
  CHECK_EQ(small.stats.partitions, 1);
  CHECK_EQ(small.stats.max_partition_rows, 60000);
  CHECK(small.stats.sort_runs > 1);
  CHECK_EQ(big.stats.sort_runs, 0);
  /* The partition's rows went to disk; only the columns the functions
   * read stayed in memory. */
  CHECK_EQ(small.stats.spilled_partitions, 1);
  CHECK_EQ(big.stats.spilled_partitions, 0);
  CHECK_EQ(small.stats.spilled_rows, 60000);
  CHECK(small.peak < big.peak / 2);
  char **a = tu_rows(big.sink, true), **b = tu_rows(small.sink, true);
  bool same = true;
  uint64_t i = 0;
  for (; a[i] && b[i]; i++)
    if (strcmp(a[i], b[i]) != 0) same = false;
  same = same && !a[i] && !b[i] && i == 60000;
  tu_rows_free(a);
  tu_rows_free(b);
  ex_op_destroy(&big.sink->op);
  ex_op_destroy(&small.sink->op);
  free_input(fx);
  CHECK(same);
}

/* min/max over a sliding ROWS frame of 30,000 rows in a partition of
 * 200,000: checked against a monotonic-deque reference. An O(n * w)
 * evaluation would need 6e9 steps; the segment tree needs a few hundred
 * per row. */
TEST(window_sliding_minmax_wide_frame) {
  wfix_t fxs, *fx = &fxs;
  make_input(fx, 200000, 1, 11);
  ex_window_fn_t fns[2] = {AGG("min", C_X), AGG("max", C_X)};
  ex_window_frame_t f = {EX_FRAME_ROWS, BOUND(PRECEDING, 30000), BOUND(CURRENT_ROW, 0)};
  spec_t sp = {.pcols = NULL, .np = 0, .okeys = NULL, .no = 0, .frame = &f};
  fl_err_t err;
  run_t run;
  /* No ORDER BY and no PARTITION BY: the rows keep their arrival order. */
  int rc = run_window(fx, &sp, fns, 2, false, 0, &run, &err);
  CHECK_OK(rc, &err);
  CHECK_EQ(run.sink->rows, 200000);
  uint32_t n = 200000, *dq[2];
  int64_t *vals = fl_malloc(n * sizeof *vals);
  bool *valid = fl_malloc(n);
  uint32_t row = 0;
  for (uint32_t bi = 0; bi < fx->nbatches; bi++) {
    const ty_batch_t *b = fx->batches[bi];
    for (uint32_t k = 0; k < ty_batch_live(b); k++, row++) {
      uint32_t r = b->sel ? b->sel[k] : k;
      valid[row] = ty_vec_is_valid(b->cols[C_X], r);
      vals[row] = TY_VEC_DATA(b->cols[C_X], int64_t)[r];
    }
  }
  bool ok = row == n;
  for (int side = 0; side < 2 && ok; side++) {
    dq[side] = fl_malloc(n * sizeof(uint32_t));
    uint32_t head = 0, tail = 0;
    for (uint32_t i = 0; i < n && ok; i++) {
      if (valid[i]) {
        while (tail > head && (side ? vals[dq[side][tail - 1]] <= vals[i]
                                    : vals[dq[side][tail - 1]] >= vals[i]))
          tail--;
        dq[side][tail++] = i;
      }
      while (tail > head && dq[side][head] + 30000 < i) head++;
      /* Find output row i (batches are in order). */
      uint32_t bi = 0, at = i;
      while (at >= run.sink->batches[bi]->nrows) at -= run.sink->batches[bi++]->nrows;
      const ty_vec_t *v = run.sink->batches[bi]->cols[NCOLS + side];
      if (tail == head)
        ok = ty_vec_is_null(v, at);
      else
        ok = ty_vec_is_valid(v, at) && TY_VEC_DATA(v, int64_t)[at] == vals[dq[side][head]];
      if (!ok) t_fail(__FILE__, __LINE__, "%s differs at row %u", side ? "max" : "min", i);
    }
    fl_free(dq[side]);
  }
  fl_free(vals);
  fl_free(valid);
  ex_op_destroy(&run.sink->op);
  free_input(fx);
  CHECK(ok);
}

TEST(window_errors) {
  wfix_t fx;
  make_input(&fx, 10, 2, 3);
  ex_mem_t mem;
  ex_mem_init(&mem, 0);
  ex_opctx_t ctx = {.mem = &mem};
  fl_err_t err;
  ex_op_t *w = NULL;
  ex_window_fn_t rn = {.kind = EX_WIN_ROW_NUMBER, .default_col = -1};
  ex_window_frame_t r2 = {EX_FRAME_RANGE, BOUND(PRECEDING, 2), BOUND(CURRENT_ROW, 0)};
  ex_window_opts_t o = {.in_schema = fx.schema, .partition_cols = part_p, .npartition = 1,
                        .order_keys = by_o_s, .norder = 2, .frame = &r2, .fns = &rn, .nfns = 1};
  CHECK_ERR(ex_window_new(&ctx, fx.arena, &o, NULL, &w, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "exactly one ORDER BY key") != NULL);
  static const ex_sort_key_t by_s[] = {{.col = C_S}};
  o.order_keys = by_s;
  o.norder = 1;
  CHECK_ERR(ex_window_new(&ctx, fx.arena, &o, NULL, &w, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "string") != NULL);
  o.order_keys = by_o;
  r2.start.offset = -1;
  CHECK_ERR(ex_window_new(&ctx, fx.arena, &o, NULL, &w, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "negative") != NULL);
  ex_window_frame_t bad = {EX_FRAME_ROWS, BOUND(FOLLOWING, 1), BOUND(CURRENT_ROW, 0)};
  o.frame = &bad;
  CHECK_ERR(ex_window_new(&ctx, fx.arena, &o, NULL, &w, &err), FL_EINVALID);
  o.frame = NULL;
  ex_window_fn_t nt = {.kind = EX_WIN_NTILE, .param = 0, .default_col = -1};
  o.fns = &nt;
  CHECK_ERR(ex_window_new(&ctx, fx.arena, &o, NULL, &w, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "ntile") != NULL);
  ex_window_fn_t lag = {.kind = EX_WIN_LAG, .arg_col = C_X, .param = 1, .default_col = C_S};
  o.fns = &lag;
  CHECK_ERR(ex_window_new(&ctx, fx.arena, &o, NULL, &w, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "default") != NULL);
  ex_window_fn_t star = {.kind = EX_WIN_AGG, .arg_col = C_X, .default_col = -1,
                        .agg = bind(&fx, "count", -1, false)};
  o.fns = &star;
  CHECK_ERR(ex_window_new(&ctx, fx.arena, &o, NULL, &w, &err), FL_EINVALID);
  o.fns = &lag;
  lag.default_col = -1;
  CHECK_OK(ex_window_new(&ctx, fx.arena, &o, NULL, &w, &err), &err);
  ex_op_destroy(w);
  CHECK_EQ(mem.used, 0);
  free_input(&fx);
}

/* RANGE offsets on timestamp, decimal and bigint keys, worked by hand:
 * NULL keys frame their NULL peers, and offsets that overflow saturate. */
static void range_counts(const char *schema_text, void (*fill)(ty_batch_t *), int64_t off,
                         const int64_t *expect, uint32_t n) {
  fl_err_t err;
  fl_arena_t *arena = fl_arena_new(0);
  ty_schema_t *schema;
  CHECK_OK(ty_schema_parse(arena, schema_text, &schema, &err), &err);
  ty_batch_t *b = ty_batch_new(schema, 8);
  fill(b);
  ty_batch_seal(b);
  ex_mem_t mem;
  ex_mem_init(&mem, 0);
  ex_opctx_t ctx = {.mem = &mem};
  ex_agg_t *cnt;
  CHECK_OK(ex_agg_bind(arena, "count", NULL, false, NULL, 0, &cnt, &err), &err);
  ex_window_fn_t fn = {.kind = EX_WIN_AGG, .arg_col = -1, .default_col = -1, .agg = cnt};
  ex_sort_key_t key = {.col = 0};
  ex_window_frame_t f = {EX_FRAME_RANGE, BOUND(PRECEDING, off), BOUND(CURRENT_ROW, 0)};
  ex_window_opts_t o = {.in_schema = schema, .order_keys = &key, .norder = 1, .frame = &f,
                        .fns = &fn, .nfns = 1};
  ex_op_t *w;
  CHECK_OK(ex_window_new(&ctx, arena, &o, NULL, &w, &err), &err);
  ex_sink_t *sink = ex_sink_new(w->out_schema);
  w->next = &sink->op;
  CHECK_OK(ex_op_push(w, b, &err), &err);
  CHECK_OK(ex_op_finish(w, &err), &err);
  CHECK_EQ(sink->rows, n);
  const ty_batch_t *ob = sink->batches[0];
  for (uint32_t i = 0; i < n; i++) CHECK_EQ(TY_VEC_DATA(ob->cols[1], int64_t)[i], expect[i]);
  ex_op_destroy(w);
  ex_op_destroy(&sink->op);
  ty_batch_free(b);
  fl_arena_free(arena);
}

static void fill_ts(ty_batch_t *b) {
  ty_vec_append_i64(b->cols[0], 20);
  ty_vec_append_null(b->cols[0]);
  ty_vec_append_i64(b->cols[0], 0);
  ty_vec_append_i64(b->cols[0], 25);
  ty_vec_append_i64(b->cols[0], 10);
  ty_vec_append_null(b->cols[0]);
}

static void fill_dec(ty_batch_t *b) {
  ty_vec_append_i128(b->cols[0], 300);
  ty_vec_append_i128(b->cols[0], 100);
  ty_vec_append_i128(b->cols[0], 150);
  ty_vec_append_i128(b->cols[0], 200);
}

static void fill_long(ty_batch_t *b) {
  ty_vec_append_i64(b->cols[0], INT64_MAX);
  ty_vec_append_i64(b->cols[0], INT64_MIN);
  ty_vec_append_i64(b->cols[0], 0);
}

TEST(window_range_typed_keys) {
  /* Sorted: 0, 10, 20, 25, NULL, NULL; 10 PRECEDING AND CURRENT ROW. */
  static const int64_t ts[] = {1, 2, 2, 2, 2, 2};
  range_counts("t timestamp", fill_ts, 10, ts, 6);
  /* Sorted: 1.00, 1.50, 2.00, 3.00; 0.50 PRECEDING AND CURRENT ROW. */
  static const int64_t dec[] = {1, 2, 2, 1};
  range_counts("d decimal(9,2)", fill_dec, 50, dec, 4);
  /* Sorted: MIN, 0, MAX with INT64_MAX PRECEDING: MIN - MAX saturates
   * (wrapping would give an empty frame), 0 - MAX is just above MIN. */
  static const int64_t lg[] = {1, 1, 2};
  range_counts("l long", fill_long, INT64_MAX, lg, 3);
}
