/*
 * op_window_tvf.h - the window table functions TUMBLE, HOP and CUMULATE
 * on their own: each row repeated once per window it belongs to, with
 * the window's columns (layer 8, exec). See op_window_tvf.c.
 */
#ifndef FL_EXEC_OP_WINDOW_TVF_H
#define FL_EXEC_OP_WINDOW_TVF_H

#include "base/arena.h"
#include "exec/ex_operator.h"
#include "exec/ex_window_assign.h"

/*
 * Output: the input columns, then window_start, window_end and
 * window_time (end - 1 ms), of the time column's type (timestamp or
 * timestamptz). Rows with a NULL time are dropped. SESSION windows need
 * the other rows and are not assigned here. The schema is allocated in
 * arena.
 */
int ex_window_tvf_new(fl_arena_t *arena, const ty_schema_t *in, const ex_window_spec_t *spec,
                      uint32_t time_col, ex_op_t *next, ex_op_t **out, fl_err_t *err);

#endif
