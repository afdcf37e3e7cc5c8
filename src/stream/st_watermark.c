/*
 * st_watermark.c - per-partition watermarks combined as their minimum
 * (layer 10, stream). See st_watermark.h.
 */
#include "stream/st_watermark.h"

#include "base/alloc.h"

void st_watermark_init(st_watermark_t *w, uint32_t nslots, int64_t idle_timeout_ms,
                       int64_t now_ms) {
  w->nslots = nslots;
  w->max_us = fl_calloc(nslots ? nslots : 1, sizeof *w->max_us);
  w->active_ms = fl_calloc(nslots ? nslots : 1, sizeof *w->active_ms);
  for (uint32_t i = 0; i < nslots; i++) {
    w->max_us[i] = ST_NO_WATERMARK;
    w->active_ms[i] = now_ms;
  }
  w->idle_timeout_ms = idle_timeout_ms;
  w->started_ms = now_ms;
  w->current_us = ST_NO_WATERMARK;
}

void st_watermark_free(st_watermark_t *w) {
  fl_free(w->max_us);
  fl_free(w->active_ms);
  w->max_us = NULL;
  w->active_ms = NULL;
}

void st_watermark_observe(st_watermark_t *w, uint32_t slot, int64_t value_us, int64_t now_ms) {
  if (slot >= w->nslots) return;
  if (value_us > w->max_us[slot]) w->max_us[slot] = value_us;
  w->active_ms[slot] = now_ms;
}

bool st_watermark_idle(const st_watermark_t *w, int64_t now_ms) {
  if (!w->nslots) return true;
  if (w->idle_timeout_ms <= 0) return false;
  for (uint32_t i = 0; i < w->nslots; i++)
    if (now_ms - w->active_ms[i] <= w->idle_timeout_ms) return false;
  return true;
}

bool st_watermark_advance(st_watermark_t *w, int64_t now_ms) {
  int64_t min = INT64_MAX, max_idle = ST_NO_WATERMARK;
  bool any = false;
  for (uint32_t i = 0; i < w->nslots; i++) {
    bool idle = w->idle_timeout_ms > 0 && now_ms - w->active_ms[i] > w->idle_timeout_ms;
    if (idle) {
      if (w->max_us[i] > max_idle) max_idle = w->max_us[i];
      continue;
    }
    any = true;
    if (w->max_us[i] < min) min = w->max_us[i];
  }
  /* Every partition idle (typically: all caught up with their input): none
   * holds the watermark back, so it moves to the furthest of them, and the
   * windows all of their rows complete can fire. */
  if (!any) min = max_idle;
  if (min == ST_NO_WATERMARK || min == INT64_MAX || min <= w->current_us) return false;
  w->current_us = min;
  return true;
}
