/*
 * st_datagen.h - the `datagen` connector: rows of a table's schema made up
 * on the fly, as Flink's datagen source makes them (layer 10, stream).
 *
 * Options (Flink's names):
 *   'rows-per-second'   rate limit (default 10000); '0' or 'unlimited' for
 *                       as fast as possible
 *   'number-of-rows'    total rows; unset: unbounded (unless a sequence
 *                       field bounds it)
 *   'fields.<f>.kind'   'random' (default) or 'sequence'
 *   'fields.<f>.min' / '.max'       random numbers: inclusive bounds (type
 *                       range by default; [0, 1) for float and double)
 *   'fields.<f>.length' random strings and binaries: length (default 100)
 *   'fields.<f>.var-len' 'true': random length in [1, length]
 *   'fields.<f>.max-past' random date/time/timestamps: at most this many
 *                       milliseconds before now (default 0: now)
 *   'fields.<f>.start' / '.end'     sequences: first and last value; the
 *                       source ends after the shortest sequence
 *   'fields.<f>.null-rate' share of nulls (default 0)
 *   'seed'              floe's addition: the random seed (default 0)
 * 'connector' is accepted and ignored; any other option is an error that
 * names it. Random strings are lower-case hex, as Flink's. Nested columns
 * (list, map, struct) get 0 to 3 elements of default random values
 * (8-character strings); the options apply to top-level columns.
 *
 * Row n's values depend only on (seed, n) - and the clock for fields
 * relative to now - so a source restored at a checkpointed position goes
 * on with exactly the rows it would have produced.
 */
#ifndef FL_STREAM_DATAGEN_H
#define FL_STREAM_DATAGEN_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "stream/st_options.h"
#include "types/type.h"
#include "types/vec.h"

typedef struct st_datagen st_datagen_t;

/* Checks the options against schema s (which must outlive the source). */
int st_datagen_open(const ty_schema_t *s, const st_option_t *opts, uint32_t nopts,
                    st_datagen_t **out, fl_err_t *err);
void st_datagen_free(st_datagen_t *g);

/*
 * Appends up to max rows to b (a batch of the schema; TY_BATCH_ROWS when
 * max is 0), no more than the rate allows: waits up to timeout_ms for the
 * first row that is due. *end is set when a bounded source has produced
 * all of its rows. Returns the rows appended through *rows.
 */
int st_datagen_next(st_datagen_t *g, ty_batch_t *b, uint32_t max, int timeout_ms, uint32_t *rows,
                    bool *end, fl_err_t *err);

/* The number of the next row (rows produced so far), which a checkpoint
 * records; st_datagen_seek continues from such a number. */
uint64_t st_datagen_position(const st_datagen_t *g);
void st_datagen_seek(st_datagen_t *g, uint64_t row);
/* Total rows of a bounded source, or UINT64_MAX. */
uint64_t st_datagen_total(const st_datagen_t *g);

#endif
