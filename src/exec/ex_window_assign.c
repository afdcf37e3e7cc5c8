/*
 * ex_window_assign.c - window assignment of TUMBLE, HOP and CUMULATE
 * (layer 8, exec). See ex_window_assign.h. Start times use a floor
 * modulo, so times before 1970 and negative offsets land in the same
 * grid as Flink's TimeWindow.getWindowStartWithOffset gives.
 */
#include "exec/ex_window_assign.h"

#include <stdio.h>

static int64_t floormod(int64_t a, int64_t m) {
  int64_t r = a % m;
  return r < 0 ? r + m : r;
}

/* The start of the grid cell of length len (shifted by offset) holding t. */
static int64_t cell_start(int64_t t, int64_t offset, int64_t len) {
  return t - floormod(t - floormod(offset, len), len);
}

bool ex_window_spec_check(const ex_window_spec_t *s, char *msg, uint32_t msg_cap) {
  switch (s->kind) {
    case EX_WINDOW_TUMBLE:
      if (s->size_us > 0) return true;
      snprintf(msg, msg_cap, "TUMBLE window size must be positive");
      return false;
    case EX_WINDOW_HOP:
      if (s->size_us <= 0 || s->slide_us <= 0) {
        snprintf(msg, msg_cap, "HOP window size and slide must be positive");
        return false;
      }
      if (s->size_us / s->slide_us >= EX_WINDOW_MAX_PER_ROW) {
        snprintf(msg, msg_cap, "HOP puts each row in %lld windows (at most %d)",
                 (long long)(s->size_us / s->slide_us), EX_WINDOW_MAX_PER_ROW);
        return false;
      }
      return true;
    case EX_WINDOW_CUMULATE:
      if (s->size_us <= 0 || s->slide_us <= 0) {
        snprintf(msg, msg_cap, "CUMULATE window step and size must be positive");
        return false;
      }
      if (s->size_us % s->slide_us) {
        snprintf(msg, msg_cap,
                 "CUMULATE table function based aggregate requires maxSize must be an integral "
                 "multiple of step, but got maxSize %lld ms and step %lld ms",
                 (long long)(s->size_us / 1000), (long long)(s->slide_us / 1000));
        return false;
      }
      if (s->size_us / s->slide_us > EX_WINDOW_MAX_PER_ROW) {
        snprintf(msg, msg_cap, "CUMULATE puts each row in %lld windows (at most %d)",
                 (long long)(s->size_us / s->slide_us), EX_WINDOW_MAX_PER_ROW);
        return false;
      }
      return true;
    case EX_WINDOW_SESSION:
      if (s->gap_us > 0) return true;
      snprintf(msg, msg_cap, "SESSION window gap must be positive");
      return false;
  }
  snprintf(msg, msg_cap, "unknown window kind");
  return false;
}

uint32_t ex_window_max_per_row(const ex_window_spec_t *s) {
  switch (s->kind) {
    case EX_WINDOW_HOP: return (uint32_t)((s->size_us + s->slide_us - 1) / s->slide_us);
    case EX_WINDOW_CUMULATE: return (uint32_t)(s->size_us / s->slide_us);
    default: return 1;
  }
}

/* Times within this distance of the int64 range would overflow window
 * bounds; such rows get no window. */
#define EX_WINDOW_SAFE_US (INT64_MAX / 4)

bool ex_window_nth(const ex_window_spec_t *s, int64_t t, uint32_t j, int64_t *start_us,
                   int64_t *end_us) {
  if (t > EX_WINDOW_SAFE_US || t < -EX_WINDOW_SAFE_US || s->size_us > EX_WINDOW_SAFE_US ||
      s->offset_us > EX_WINDOW_SAFE_US || s->offset_us < -EX_WINDOW_SAFE_US)
    return false;
  switch (s->kind) {
    case EX_WINDOW_TUMBLE: {
      if (j) return false;
      *start_us = cell_start(t, s->offset_us, s->size_us);
      *end_us = *start_us + s->size_us;
      return true;
    }
    case EX_WINDOW_HOP: {
      /* The latest window holding t starts in t's slide cell; earlier
       * ones start a slide apart, as long as they still reach past t.
       * Counting from the earliest gives increasing ends. */
      int64_t last = cell_start(t, s->offset_us, s->slide_us);
      int64_t reach = s->size_us - (t - last);
      uint32_t n = reach > 0 ? (uint32_t)((reach + s->slide_us - 1) / s->slide_us) : 0;
      if (j >= n) return false;
      *start_us = last - (int64_t)(n - 1 - j) * s->slide_us;
      *end_us = *start_us + s->size_us;
      return true;
    }
    case EX_WINDOW_CUMULATE: {
      int64_t period = cell_start(t, s->offset_us, s->size_us);
      int64_t k = (t - period) / s->slide_us + 1 + j;
      if (k > s->size_us / s->slide_us) return false;
      *start_us = period;
      *end_us = period + k * s->slide_us;
      return true;
    }
    case EX_WINDOW_SESSION: break;
  }
  return false;
}
