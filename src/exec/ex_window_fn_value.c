/*
 * ex_window_fn_value.c - the value window functions: lag and lead (by
 * offset from the current row, ignoring the frame) and first_value,
 * last_value and nth_value (within the frame), each with RESPECT NULLS
 * (the default) or IGNORE NULLS.
 *
 * IGNORE NULLS uses two arrays built once per partition: the positions of
 * the non-NULL values in order, and for each row the number of non-NULL
 * values before it. "The k-th non-NULL value at or after row r" is then
 * one index into the positions, so every row costs O(1) whatever the
 * offset or frame size.
 */
#include "base/alloc.h"
#include "exec/ex_window_int.h"

typedef struct nonnull {
  uint32_t *pos;    /* positions of non-NULL values, ascending */
  uint32_t npos;
  uint32_t *before; /* before[r]: non-NULL values in rows [0, r), n + 1 entries */
} nonnull_t;

static void nonnull_build(const ty_vec_t *v, uint32_t n, nonnull_t *nn) {
  nn->pos = fl_malloc(((size_t)n + 1) * sizeof *nn->pos);
  nn->before = fl_malloc(((size_t)n + 1) * sizeof *nn->before);
  nn->npos = 0;
  for (uint32_t r = 0; r < n; r++) {
    nn->before[r] = nn->npos;
    if (ty_vec_is_valid(v, r)) nn->pos[nn->npos++] = r;
  }
  nn->before[n] = nn->npos;
}

static void nonnull_free(nonnull_t *nn) {
  fl_free(nn->pos);
  fl_free(nn->before);
}

/* The row lag/lead reads for row i, or -1 when it is outside the
 * partition (the default applies). */
static int64_t offset_row(const ex_window_fn_t *fn, const nonnull_t *nn, uint32_t i, uint32_t n) {
  int64_t off = fn->param;
  bool lag = fn->kind == EX_WIN_LAG;
  if (off == 0) return i;
  if (!nn) {
    int64_t j = lag ? (int64_t)i - off : (int64_t)i + off;
    return j >= 0 && j < (int64_t)n ? j : -1;
  }
  if (lag) {
    int64_t k = (int64_t)nn->before[i] - off;
    return k >= 0 ? (int64_t)nn->pos[k] : -1;
  }
  int64_t k = (int64_t)nn->before[i + 1] + off - 1;
  return k < (int64_t)nn->npos ? (int64_t)nn->pos[k] : -1;
}

/* The row first/last/nth_value reads for frame [s, e), or -1 (NULL). */
static int64_t frame_row(const ex_window_fn_t *fn, const nonnull_t *nn, uint32_t s, uint32_t e) {
  if (e <= s) return -1;
  int64_t k;
  switch (fn->kind) {
    case EX_WIN_FIRST_VALUE:
      if (!nn) return s;
      k = nn->before[s];
      return k < (int64_t)nn->npos && nn->pos[k] < e ? (int64_t)nn->pos[k] : -1;
    case EX_WIN_LAST_VALUE:
      if (!nn) return (int64_t)e - 1;
      k = (int64_t)nn->before[e] - 1;
      return k >= 0 && nn->pos[k] >= s ? (int64_t)nn->pos[k] : -1;
    default:
      if (!nn) return (int64_t)s + fn->param - 1 < (int64_t)e ? (int64_t)s + fn->param - 1 : -1;
      k = (int64_t)nn->before[s] + fn->param - 1;
      return k < (int64_t)nn->npos && nn->pos[k] < e ? (int64_t)nn->pos[k] : -1;
  }
}

int ex__win_eval_value(const ex_window_fn_t *fn, const ex_win_part_t *p, ty_vec_t *out,
                       fl_err_t *err) {
  (void)err;
  const ty_vec_t *x = p->rows->cols[fn->arg_col];
  const ty_vec_t *def = fn->default_col >= 0 ? p->rows->cols[fn->default_col] : NULL;
  nonnull_t nnb, *nn = NULL;
  if (fn->ignore_nulls) {
    nonnull_build(x, p->n, &nnb);
    nn = &nnb;
  }
  bool by_offset = fn->kind == EX_WIN_LAG || fn->kind == EX_WIN_LEAD;
  for (uint32_t i = 0; i < p->n; i++) {
    int64_t j = by_offset ? offset_row(fn, nn, i, p->n) : frame_row(fn, nn, p->fstart[i], p->fend[i]);
    if (j >= 0)
      ty_vec_append_from(out, x, (uint32_t)j);
    else if (by_offset && def)
      ty_vec_append_from(out, def, i);
    else
      ty_vec_append_null(out);
  }
  if (nn) nonnull_free(nn);
  return FL_OK;
}
