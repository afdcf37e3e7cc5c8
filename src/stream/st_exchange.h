/*
 * st_exchange.h - rows handed between the lanes of a job by key (layer
 * 10, stream).
 *
 * A job with parallelism N runs N lanes (threads), each with its own copy
 * of every INSERT's pipeline. Lane l reads its share of the Kafka
 * partitions and runs the row-by-row part of a pipeline itself; a keyed
 * operator (a window aggregation, a GROUP BY) must see every row of a key
 * in one place, so an exchange sits in front of it: lane l's *sender*
 * (an ex_op_t) sends each row to the lane that owns its key, whose copy
 * of the keyed operator, the operators above it and its sink consume it.
 *
 * Between every two lanes s != k there is a channel: a bounded ring of
 * messages (rows, a watermark, idle or active, finish) that lane s writes
 * and lane k reads; rows of one source lane arrive in order, watermarks
 * after the rows that preceded them. Rows for the sender's own lane go
 * straight to its operator. The receiving lane's operator gets the
 * smallest watermark over the source lanes that are neither idle nor
 * finished, and finish once every source lane has finished.
 *
 * A hub holds the exchanges of a job and one wake-up bell per lane. A
 * lane must keep draining its channels (st_exchange_hub_drain) while it
 * polls its sources, while it waits for room in a full channel (the
 * sender drains its own lane meanwhile, so two lanes sending to each
 * other cannot deadlock), while it is paused for a checkpoint, and after
 * its sources ended until its operators are finished. The operators
 * behind an exchange must not feed another exchange.
 *
 * Threads: a lane's sender, its drain and its operators run on that
 * lane's thread only; st_exchange_hub_quiet and _abort from any thread.
 */
#ifndef FL_STREAM_EXCHANGE_H
#define FL_STREAM_EXCHANGE_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/ex_operator.h"

typedef struct st_exchange_hub st_exchange_hub_t;
typedef struct st_exchange st_exchange_t;

st_exchange_hub_t *st_exchange_hub_new(uint32_t nlanes);
/* Frees the hub and its exchanges (their senders included). */
void st_exchange_hub_free(st_exchange_hub_t *h);

/* A new exchange of rows of schema (owned by the caller, outliving the
 * hub) placed by the hash of key_cols (none: every row goes to lane 0). */
st_exchange_t *st_exchange_new(st_exchange_hub_t *h, const ty_schema_t *schema,
                               const uint32_t *key_cols, uint32_t nkeys);
/* Lane l's part: its received rows go to target; returns the sender its
 * pipeline pushes into (owned by the exchange). Once per lane. */
ex_op_t *st_exchange_attach(st_exchange_t *x, uint32_t lane, ex_op_t *target);
/* Lane l's sources for this exchange are idle (no rows for their idle
 * timeout, or no partitions at all): the receivers leave its watermark
 * out until it is active again. Sent only when the state changes. */
int st_exchange_set_idle(st_exchange_t *x, uint32_t lane, bool idle, fl_err_t *err);
/* Whether lane l's target has been finished (every source lane finished). */
bool st_exchange_done(const st_exchange_t *x, uint32_t lane);

/* Delivers what lane l's channels hold into its targets; *did: something
 * was delivered. Lane l's thread. */
int st_exchange_hub_drain(st_exchange_hub_t *h, uint32_t lane, bool *did, fl_err_t *err);
/* Whether lane l has messages waiting. */
bool st_exchange_hub_pending(const st_exchange_hub_t *h, uint32_t lane);
/* Lane l's bell count: take it before looking for work, then wait with
 * it, so that a ring in between is not missed. */
uint64_t st_exchange_hub_ticket(const st_exchange_hub_t *h, uint32_t lane);
/* Sleeps until lane l's bell has rung since ticket (a message for it,
 * room in a channel, st_exchange_hub_wake) or timeout_ms pass. */
void st_exchange_hub_wait(st_exchange_hub_t *h, uint32_t lane, uint64_t ticket, int timeout_ms);
void st_exchange_hub_wake(st_exchange_hub_t *h, uint32_t lane);
/* A lane failed: senders waiting for room, and later ones, fail too. */
void st_exchange_hub_abort(st_exchange_hub_t *h);
/* No message is in flight (every channel empty). With every lane paused
 * at a batch boundary and draining, this stays true: the operators hold
 * all state. */
bool st_exchange_hub_quiet(const st_exchange_hub_t *h);

#endif
