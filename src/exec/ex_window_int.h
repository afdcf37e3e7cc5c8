/*
 * ex_window_int.h - what the window operator (op_window.c) shares with its
 * frame computation (ex_window_frame.c) and its function families
 * (ex_window_fn_*.c): one buffered partition and the per-row facts about
 * it (layer 8, exec, private).
 */
#ifndef FL_EXEC_EX_WINDOW_INT_H
#define FL_EXEC_EX_WINDOW_INT_H

#include "exec/op_window.h"

/*
 * One partition, rows [0, n) in window order. Peer groups (rows equal on
 * the ORDER BY keys, or the whole partition without ORDER BY) are
 * numbered from 0: row i is in group peer[i], and group g is rows
 * [group_start[g], group_start[g + 1]). The frame of row i is
 * [fstart[i], fend[i]); it is empty when fend[i] <= fstart[i]. fstart and
 * fend are NULL when no function needs frames.
 */
typedef struct ex_win_part {
  const ty_batch_t *rows;
  uint32_t n;
  const uint32_t *peer;
  const uint32_t *group_start;
  uint32_t ngroups;
  const uint32_t *fstart, *fend;
} ex_win_part_t;

/* Computes fstart/fend (n entries each) of every row for the frame.
 * key_col and key are the ORDER BY key (RANGE with an offset only). */
void ex__win_frame_bounds(const ex_window_frame_t *f, const ex_win_part_t *p, int32_t key_col,
                          const ex_sort_key_t *key, uint32_t *fstart, uint32_t *fend);

/* Checks a frame against the ORDER BY keys (types, bound order, offsets). */
int ex__win_frame_check(const ex_window_frame_t *f, const ty_schema_t *in,
                        const ex_sort_key_t *order, uint32_t norder, fl_err_t *err);

/*
 * A function family: appends the result of every row of the partition
 * (n values) to out. The families install themselves per kind; the
 * operator calls through the table, without a switch over kinds.
 */
typedef int (*ex_win_eval_fn)(const ex_window_fn_t *fn, const ex_win_part_t *p, ty_vec_t *out,
                              fl_err_t *err);
typedef struct ex_win_family {
  ex_win_eval_fn eval;
  bool uses_frame;
  const char *name;
} ex_win_family_t;

extern const ex_win_family_t ex__win_families[EX_WIN_KIND_COUNT];

int ex__win_eval_rank(const ex_window_fn_t *fn, const ex_win_part_t *p, ty_vec_t *out,
                      fl_err_t *err);
int ex__win_eval_value(const ex_window_fn_t *fn, const ex_win_part_t *p, ty_vec_t *out,
                       fl_err_t *err);
int ex__win_eval_agg(const ex_window_fn_t *fn, const ex_win_part_t *p, ty_vec_t *out,
                     fl_err_t *err);

#endif
