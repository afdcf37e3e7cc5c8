/*
 * st_watermark.h - event-time watermarks of one source, per partition
 * (layer 10, stream).
 *
 * Each partition slot keeps the largest value of the table's WATERMARK
 * expression over its rows (Flink's bounded out-of-orderness: the
 * maximum event time minus the delay the expression subtracts). The
 * source's watermark is the minimum over its slots, so a slow partition
 * holds it back; a slot that has had no row for longer than the idle
 * timeout does not (Flink's 'scan.watermark.idle-timeout'), and neither
 * does one that never had a row once the timeout has passed since the
 * start. With every slot idle (all caught up with their input) none holds
 * it back: the watermark moves to the largest slot's, so the windows their
 * rows complete fire without waiting for new rows. It never goes
 * backwards.
 */
#ifndef FL_STREAM_WATERMARK_H
#define FL_STREAM_WATERMARK_H

#include <stdbool.h>
#include <stdint.h>

#define ST_NO_WATERMARK INT64_MIN

typedef struct st_watermark {
  uint32_t nslots;
  int64_t *max_us;         /* per slot: largest watermark value seen; ST_NO_WATERMARK: none */
  int64_t *active_ms;      /* per slot: monotonic ms of its last row */
  int64_t idle_timeout_ms; /* 0: slots never go idle */
  int64_t started_ms;
  int64_t current_us; /* the combined watermark; ST_NO_WATERMARK before the first */
} st_watermark_t;

void st_watermark_init(st_watermark_t *w, uint32_t nslots, int64_t idle_timeout_ms, int64_t now_ms);
void st_watermark_free(st_watermark_t *w);
/* A row of slot s whose watermark expression gave value_us. */
void st_watermark_observe(st_watermark_t *w, uint32_t slot, int64_t value_us, int64_t now_ms);
/* Whether no slot holds the watermark back now: there are none, or each
 * has been idle for the idle timeout. */
bool st_watermark_idle(const st_watermark_t *w, int64_t now_ms);
/* Recomputes the combined watermark; true when it advanced. */
bool st_watermark_advance(st_watermark_t *w, int64_t now_ms);

#endif
