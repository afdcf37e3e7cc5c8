/*
 * st_nexmark.h - the Nexmark benchmark's event generator (layer 10,
 * stream).
 *
 * Nexmark models an online auction: people register, open auctions and
 * bid. The generator follows the reference generator of the Nexmark suite
 * (Apache Beam's, carried on by the Flink Nexmark benchmark) in its
 * distributions, so that the standard queries find the data shape they
 * expect:
 *   - event kinds by event number: of every 50 events 1 is a person, 3 are
 *     auctions, 46 are bids (configurable proportions);
 *   - ids start at 1000 (people, auctions) and 10 (categories, 5 of them);
 *   - hot items: a bid goes to a "hot" auction with probability 1 - 1/2,
 *     is placed by a hot bidder with probability 1 - 1/4, and an auction is
 *     opened by a hot seller with probability 1 - 1/4; hot means the first
 *     of the latest block of 100 auctions or people. Other bids and
 *     auctions choose among the 100 auctions in flight or the 1000 active
 *     people, plus 10 ids "ahead" (not yet created, as in the reference);
 *   - prices are 100 * 10^u for u uniform in [0, 6) (cents, log-uniform);
 *   - event time advances by 1e6 / rate microseconds per event from a base
 *     time (rate 10 000 events/s by default), so timestamps do not depend
 *     on how fast events are produced; an auction expires a random time
 *     within twice the time it takes to open 100 more auctions;
 *   - each record carries an "extra" string padding it to an average
 *     size (person 200, auction 500, bid 100 bytes).
 * Every event is a pure function of (configuration, seed, event number),
 * so a run is reproducible and can be split among generators.
 *
 * Bids also carry channel and url (as the Flink benchmark's bids do): 9
 * in 10 bids come from one of four well-known channels, the rest from
 * "channel-<n>".
 */
#ifndef FL_STREAM_NEXMARK_H
#define FL_STREAM_NEXMARK_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "types/type.h"
#include "types/vec.h"

typedef struct st_nexmark_config {
  uint64_t seed;
  int64_t base_time_ms; /* event time of event 0 */
  uint32_t event_rate;  /* events per second of event time (10000) */
  uint32_t person_proportion, auction_proportion, bid_proportion;   /* 1, 3, 46 */
  uint32_t hot_auction_ratio, hot_sellers_ratio, hot_bidders_ratio; /* 2, 4, 4 */
  uint32_t num_in_flight_auctions;                                  /* 100 */
  uint32_t num_active_people;                                       /* 1000 */
  uint32_t avg_person_bytes, avg_auction_bytes, avg_bid_bytes;      /* 200, 500, 100 */
} st_nexmark_config_t;

/* The reference defaults, seed 0 and base time 2024-01-01T00:00:00Z. */
void st_nexmark_config_default(st_nexmark_config_t *c);
/* Checks a configuration (non-zero proportions, rate, ratios). */
int st_nexmark_config_check(const st_nexmark_config_t *c, fl_err_t *err);

typedef enum st_nx_kind { ST_NX_PERSON = 0, ST_NX_AUCTION = 1, ST_NX_BID = 2 } st_nx_kind_t;

typedef struct st_nx_person {
  int64_t id;
  char name[32], email[32], credit_card[24], city[16], state[4];
  int64_t date_time_ms;
  char extra[512];
} st_nx_person_t;

typedef struct st_nx_auction {
  int64_t id;
  char item_name[24], description[104];
  int64_t initial_bid, reserve;
  int64_t date_time_ms, expires_ms;
  int64_t seller, category;
  char extra[512];
} st_nx_auction_t;

typedef struct st_nx_bid {
  int64_t auction, bidder, price;
  char channel[24], url[96];
  int64_t date_time_ms;
  char extra[512];
} st_nx_bid_t;

typedef struct st_nx_event {
  st_nx_kind_t kind;
  uint64_t number; /* event number from 0 */
  int64_t timestamp_ms;
  union {
    st_nx_person_t person;
    st_nx_auction_t auction;
    st_nx_bid_t bid;
  } u;
} st_nx_event_t;

/* The kind of event number n (no generation needed). */
st_nx_kind_t st_nexmark_kind(const st_nexmark_config_t *c, uint64_t n);
/* Event time of event number n, in ms. */
int64_t st_nexmark_timestamp(const st_nexmark_config_t *c, uint64_t n);
/* Generates event number n. */
void st_nexmark_event(const st_nexmark_config_t *c, uint64_t n, st_nx_event_t *ev);

/*
 * Appends the event as one JSON object. flat: the record alone
 * ({"auction":1000,"bidder":1001,...}); otherwise the Flink Nexmark
 * benchmark's combined form {"event_type":2,"person":null,"auction":null,
 * "bid":{...}}. Times are "YYYY-MM-DD HH:MM:SS.mmm" (Flink's SQL JSON
 * timestamp format, UTC).
 */
void st_nexmark_json(const st_nx_event_t *ev, bool flat, fl_buf_t *out);

/* The schema of one kind's records (Flink's Nexmark column names), in a. */
const ty_schema_t *st_nexmark_schema(st_nx_kind_t kind, fl_arena_t *a);
/* Appends the event as a row of b, a batch of st_nexmark_schema(ev->kind). */
void st_nexmark_append(const st_nx_event_t *ev, ty_batch_t *b);

/*
 * Fills b (a batch of kind's schema) with the events of that kind among
 * event numbers [*next, end), up to the batch's room (TY_BATCH_ROWS);
 * *next moves past the events used. Returns the rows appended.
 */
uint32_t st_nexmark_fill(const st_nexmark_config_t *c, st_nx_kind_t kind, uint64_t *next,
                         uint64_t end, ty_batch_t *b);

#endif
