/*
 * ex_window_fn_rank.c - the ranking window functions: row_number, rank,
 * dense_rank, percent_rank, cume_dist and ntile. They ignore the frame and
 * read only row positions and peer groups, so each is one loop.
 */
#include "exec/ex_window_int.h"

int ex__win_eval_rank(const ex_window_fn_t *fn, const ex_win_part_t *p, ty_vec_t *out,
                      fl_err_t *err) {
  (void)err;
  uint32_t n = p->n;
  ty_vec_reserve(out, out->len + n);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t g = p->peer[i];
    switch (fn->kind) {
      case EX_WIN_ROW_NUMBER: ty_vec_append_i64(out, (int64_t)i + 1); break;
      case EX_WIN_RANK: ty_vec_append_i64(out, (int64_t)p->group_start[g] + 1); break;
      case EX_WIN_DENSE_RANK: ty_vec_append_i64(out, (int64_t)g + 1); break;
      case EX_WIN_PERCENT_RANK:
        ty_vec_append_f64(out, n == 1 ? 0.0 : (double)p->group_start[g] / (double)(n - 1));
        break;
      case EX_WIN_CUME_DIST:
        ty_vec_append_f64(out, (double)p->group_start[g + 1] / (double)n);
        break;
      default: {
        /* ntile as Trino: the first (n % buckets) buckets get one row more. */
        int64_t buckets = fn->param, per = n / buckets, extra = n % buckets, b;
        if ((int64_t)i < extra * (per + 1))
          b = (int64_t)i / (per + 1) + 1;
        else
          b = ((int64_t)i - extra) / per + 1;
        ty_vec_append_i64(out, b);
      }
    }
  }
  return FL_OK;
}
