/*
 * st_scan.h - a connector table read into the queries of a job (layer 10,
 * stream).
 *
 * A scan owns one source and turns what it polls into the table's rows:
 * the base columns as the source decoded them, the computed columns
 * evaluated by the SQL expression engine, and the WATERMARK expression's
 * value per row, which feeds the per-partition watermark (st_watermark.h).
 * Every SCAN of the table in the job's plans is a target: each batch is
 * pushed to all of them (a statement set reads a source once and fans it
 * out), as a view of the columns that scan reads, without a copy. When
 * the watermark advances it is sent to every target after the batch.
 */
#ifndef FL_STREAM_SCAN_H
#define FL_STREAM_SCAN_H

#include "exec/ex_plan.h"
#include "stream/st_source.h"
#include "stream/st_watermark.h"

typedef struct st_scan st_scan_t;

/* Takes ownership of src (not yet started). */
int st_scan_new(st_source_t *src, st_scan_t **out, fl_err_t *err);
void st_scan_free(st_scan_t *s);
/* Adds a plan's scan of the table as a target. */
int st_scan_add_target(st_scan_t *s, const ex_stream_input_t *in, fl_err_t *err);
st_source_t *st_scan_source(st_scan_t *s);
/* After the source started: sets up the watermark slots. */
void st_scan_started(st_scan_t *s, int64_t now_ms);

/* Polls once (waiting up to timeout_ms) and pushes what came; *rows gets
 * the rows pushed, *end whether a bounded source is done. */
int st_scan_step(st_scan_t *s, int timeout_ms, int64_t now_ms, uint32_t *rows, bool *end,
                 fl_err_t *err);
/* The end of a bounded input: finish flows down every target. */
int st_scan_finish(st_scan_t *s, fl_err_t *err);
/* Whether none of the source's partitions holds the watermark back now
 * (st_watermark_idle; after st_scan_started). */
bool st_scan_idle(const st_scan_t *s, int64_t now_ms);
/* The current combined watermark (ST_NO_WATERMARK: none yet). */
int64_t st_scan_watermark(const st_scan_t *s);

#endif
