/*
 * ex_window_assign.h - Flink's window table functions as arithmetic:
 * which windows a row of a given event time belongs to (layer 8, exec).
 *
 * TUMBLE(size, offset) gives each time one window [start, start + size)
 * with start = t - floormod(t - offset, size). HOP(slide, size, offset)
 * gives the windows of length size starting every slide that contain t
 * (ceil(size / slide) of them at most). CUMULATE(step, size, offset)
 * gives, within the tumbling period of length size that contains t, the
 * windows [period start, period start + k * step) that contain t, for
 * k = 1 .. size / step. SESSION(gap) windows depend on the other rows and
 * are merged by the window aggregation (op_window_agg.c). Times and
 * lengths are microseconds; offsets may be negative.
 */
#ifndef FL_EXEC_EX_WINDOW_ASSIGN_H
#define FL_EXEC_EX_WINDOW_ASSIGN_H

#include <stdbool.h>
#include <stdint.h>

typedef enum ex_wkind {
  EX_WINDOW_TUMBLE,
  EX_WINDOW_HOP,
  EX_WINDOW_CUMULATE,
  EX_WINDOW_SESSION
} ex_wkind_t;

typedef struct ex_window_spec {
  ex_wkind_t kind;
  int64_t size_us;   /* TUMBLE, HOP; CUMULATE: the largest window */
  int64_t slide_us;  /* HOP: the slide; CUMULATE: the step */
  int64_t offset_us; /* TUMBLE, HOP, CUMULATE: shifts window starts */
  int64_t gap_us;    /* SESSION */
} ex_window_spec_t;

/* Flink's window_time: the last millisecond of a window (its rowtime). */
#define EX_WINDOW_TIME_US(end_us) ((end_us)-1000)

/* The most windows a HOP or CUMULATE row may be in (size / slide). */
#define EX_WINDOW_MAX_PER_ROW 100000

/* Whether the lengths are usable: positive, CUMULATE's size a multiple
 * of its step, at most EX_WINDOW_MAX_PER_ROW windows per row; false with a message in msg (msg_cap
 * bytes). */
bool ex_window_spec_check(const ex_window_spec_t *s, char *msg, uint32_t msg_cap);

/* The most windows one row belongs to (SESSION: 1). */
uint32_t ex_window_max_per_row(const ex_window_spec_t *s);

/* The j-th window (j < ex_window_max_per_row) of a row at time t, in
 * order of increasing end; false when the row has fewer than j + 1 (a
 * HOP slide longer than its size leaves gaps; times beyond +-2^61 us,
 * some 73,000 years from 1970, have none rather than overflowing). */
bool ex_window_nth(const ex_window_spec_t *s, int64_t t, uint32_t j, int64_t *start_us,
                   int64_t *end_us);

#endif
