/*
 * st_nexmark.c - Nexmark events from event numbers (layer 10, stream).
 *
 * See st_nexmark.h for the distributions. The id arithmetic works on
 * "base 0" ids: with proportions p (people), a (auctions) and t (total) per
 * epoch of t events, the latest person id at event n is
 * (n / t) * p + min(n % t, p - 1), and the latest auction id is found the
 * same way within the auction slots of the epoch (going back to the
 * previous epoch while the epoch's people are still being made). A random
 * reference to a person or an auction picks among the active ones up to a
 * few ids ahead of the latest, so a bid can name an auction that appears a
 * moment later, as in the reference generator.
 */
#include "stream/st_nexmark.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/time.h"
#include "stream/st_rand.h"

enum {
  FIRST_PERSON_ID = 1000,
  FIRST_AUCTION_ID = 1000,
  FIRST_CATEGORY_ID = 10,
  NUM_CATEGORIES = 5,
  ID_LEAD = 10,    /* ids ahead of the latest a reference may name */
  HOT_BLOCK = 100, /* a hot item is the first of the latest block of 100 */
  MIN_STRING = 3,
};

void st_nexmark_config_default(st_nexmark_config_t *c) {
  *c = (st_nexmark_config_t){
      .seed = 0,
      .base_time_ms = 1704067200000, /* 2024-01-01T00:00:00Z */
      .event_rate = 10000,
      .person_proportion = 1,
      .auction_proportion = 3,
      .bid_proportion = 46,
      .hot_auction_ratio = 2,
      .hot_sellers_ratio = 4,
      .hot_bidders_ratio = 4,
      .num_in_flight_auctions = 100,
      .num_active_people = 1000,
      .avg_person_bytes = 200,
      .avg_auction_bytes = 500,
      .avg_bid_bytes = 100,
  };
}

int st_nexmark_config_check(const st_nexmark_config_t *c, fl_err_t *err) {
  if (!c->person_proportion || !c->auction_proportion || !c->bid_proportion)
    return fl_err_set(err, FL_EINVALID,
                      "nexmark: the person, auction and bid proportions must be at least 1");
  if (!c->event_rate)
    return fl_err_set(err, FL_EINVALID, "nexmark: the event rate must be at least 1");
  if (!c->hot_auction_ratio || !c->hot_sellers_ratio || !c->hot_bidders_ratio)
    return fl_err_set(err, FL_EINVALID, "nexmark: hot ratios must be at least 1");
  if (!c->num_in_flight_auctions || !c->num_active_people)
    return fl_err_set(err, FL_EINVALID,
                      "nexmark: in-flight auctions and active people must be at least 1");
  return FL_OK;
}

static uint64_t total(const st_nexmark_config_t *c) {
  return (uint64_t)c->person_proportion + c->auction_proportion + c->bid_proportion;
}

st_nx_kind_t st_nexmark_kind(const st_nexmark_config_t *c, uint64_t n) {
  uint64_t off = n % total(c);
  if (off < c->person_proportion) return ST_NX_PERSON;
  if (off < (uint64_t)c->person_proportion + c->auction_proportion) return ST_NX_AUCTION;
  return ST_NX_BID;
}

int64_t st_nexmark_timestamp(const st_nexmark_config_t *c, uint64_t n) {
  /* 1e6 / rate microseconds per event, in exact integer arithmetic. */
  return c->base_time_ms + (int64_t)(((unsigned __int128)n * 1000u) / c->event_rate);
}

static int64_t last_person(const st_nexmark_config_t *c, uint64_t n) {
  uint64_t t = total(c), epoch = n / t, off = n % t;
  if (off >= c->person_proportion) off = c->person_proportion - 1;
  return (int64_t)(epoch * c->person_proportion + off);
}

static int64_t last_auction(const st_nexmark_config_t *c, uint64_t n) {
  uint64_t t = total(c);
  int64_t epoch = (int64_t)(n / t), off = (int64_t)(n % t);
  if (off < (int64_t)c->person_proportion) {
    epoch--;
    off = c->auction_proportion - 1;
  } else if (off >= (int64_t)(c->person_proportion + c->auction_proportion)) {
    off = c->auction_proportion - 1;
  } else {
    off -= c->person_proportion;
  }
  return epoch * (int64_t)c->auction_proportion + off;
}

static int64_t next_person(const st_nexmark_config_t *c, uint64_t n, st_rand_t *r) {
  int64_t people = last_person(c, n) + 1;
  int64_t active = people < (int64_t)c->num_active_people ? people : c->num_active_people;
  return people - active + (int64_t)st_rand_below(r, (uint64_t)active + ID_LEAD);
}

static int64_t next_auction(const st_nexmark_config_t *c, uint64_t n, st_rand_t *r) {
  int64_t maxa = last_auction(c, n);
  int64_t mina = maxa - (int64_t)c->num_in_flight_auctions;
  if (mina < 0) mina = 0;
  if (maxa < 0) maxa = 0;
  return mina + (int64_t)st_rand_below(r, (uint64_t)(maxa - mina + 1 + ID_LEAD));
}

static int64_t next_price(st_rand_t *r) {
  return (int64_t)llround(pow(10.0, st_rand_double(r) * 6.0) * 100.0);
}

/* Lower-case letters with an occasional space, MIN_STRING..max-1 long,
 * trimmed. */
static void next_string(st_rand_t *r, uint32_t max, char *out, size_t size) {
  uint32_t len = MIN_STRING + (uint32_t)st_rand_below(r, max - MIN_STRING);
  if (len >= size) len = (uint32_t)size - 1;
  for (uint32_t i = 0; i < len; i++)
    out[i] = st_rand_below(r, 13) == 0 ? ' ' : (char)('a' + st_rand_below(r, 26));
  uint32_t b = 0, e = len;
  while (b < e && out[b] == ' ') b++;
  while (e > b && out[e - 1] == ' ') e--;
  memmove(out, out + b, e - b);
  out[e - b] = 0;
}

/* Padding so that the record's size averages avg: (avg - current) +- 20%. */
static void next_extra(st_rand_t *r, size_t current, uint32_t avg, char *out, size_t size) {
  out[0] = 0;
  if (current > avg) return;
  int64_t want = (int64_t)(avg - current);
  int64_t delta = llround((double)want * 0.2);
  int64_t len = want - delta + (delta ? (int64_t)st_rand_below(r, (uint64_t)(2 * delta)) : 0);
  if (len >= (int64_t)size) len = (int64_t)size - 1;
  /* 13 letters from each 64-bit draw (26^13 < 2^64). */
  for (int64_t i = 0; i < len; i += 13) {
    uint64_t x = st_rand_next(r);
    for (int64_t j = i; j < i + 13 && j < len; j++, x /= 26) out[j] = (char)('a' + x % 26);
  }
  out[len] = 0;
}

static const char *const states[] = {"AZ", "CA", "ID", "OR", "WA", "WY"};
static const char *const cities[] = {"Phoenix",  "Los Angeles", "San Francisco", "Boise",
                                     "Portland", "Bend",        "Redmond",       "Seattle",
                                     "Kent",     "Cheyenne"};
static const char *const first_names[] = {"Peter", "Paul",  "Luke",  "John",   "Saul",  "Vicky",
                                          "Kate",  "Julie", "Sarah", "Deiter", "Walter"};
static const char *const last_names[] = {"Shultz", "Abrams", "Spencer", "White", "Bartels",
                                         "Walton", "Smith",  "Jones",   "Noris"};
static const char *const channels[] = {"Google", "Facebook", "Baidu", "Apple"};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void gen_person(const st_nexmark_config_t *c, uint64_t n, st_rand_t *r, int64_t ts,
                       st_nx_person_t *p) {
  p->id = last_person(c, n) + FIRST_PERSON_ID;
  snprintf(p->name, sizeof p->name, "%s %s", first_names[st_rand_below(r, NELEM(first_names))],
           last_names[st_rand_below(r, NELEM(last_names))]);
  char user[8], host[8];
  next_string(r, 7, user, sizeof user);
  next_string(r, 5, host, sizeof host);
  snprintf(p->email, sizeof p->email, "%s@%s.com", user, host);
  snprintf(p->credit_card, sizeof p->credit_card, "%04u %04u %04u %04u",
           (unsigned)st_rand_below(r, 10000), (unsigned)st_rand_below(r, 10000),
           (unsigned)st_rand_below(r, 10000), (unsigned)st_rand_below(r, 10000));
  snprintf(p->city, sizeof p->city, "%s", cities[st_rand_below(r, NELEM(cities))]);
  snprintf(p->state, sizeof p->state, "%s", states[st_rand_below(r, NELEM(states))]);
  p->date_time_ms = ts;
  size_t cur = 8 + strlen(p->name) + strlen(p->email) + strlen(p->credit_card) + strlen(p->city) +
               strlen(p->state);
  next_extra(r, cur, c->avg_person_bytes, p->extra, sizeof p->extra);
}

static void gen_auction(const st_nexmark_config_t *c, uint64_t n, st_rand_t *r, int64_t ts,
                        st_nx_auction_t *a) {
  a->id = last_auction(c, n) + FIRST_AUCTION_ID;
  int64_t seller;
  if (st_rand_below(r, c->hot_sellers_ratio) > 0)
    seller = (last_person(c, n) / HOT_BLOCK) * HOT_BLOCK;
  else
    seller = next_person(c, n, r);
  a->seller = seller + FIRST_PERSON_ID;
  a->category = FIRST_CATEGORY_ID + (int64_t)st_rand_below(r, NUM_CATEGORIES);
  a->initial_bid = next_price(r);
  /* Lasts on average as long as it takes to open num_in_flight more. */
  uint64_t ahead = ((uint64_t)c->num_in_flight_auctions * total(c)) / c->auction_proportion;
  int64_t horizon = st_nexmark_timestamp(c, n + ahead) - ts;
  uint64_t span = horizon * 2 > 1 ? (uint64_t)(horizon * 2) : 1;
  a->expires_ms = ts + 1 + (int64_t)st_rand_below(r, span);
  next_string(r, 20, a->item_name, sizeof a->item_name);
  next_string(r, 100, a->description, sizeof a->description);
  a->reserve = a->initial_bid + next_price(r);
  a->date_time_ms = ts;
  size_t cur = 8 + strlen(a->item_name) + strlen(a->description) + 8 + 8 + 8 + 8 + 8;
  next_extra(r, cur, c->avg_auction_bytes, a->extra, sizeof a->extra);
}

static void gen_bid(const st_nexmark_config_t *c, uint64_t n, st_rand_t *r, int64_t ts,
                    st_nx_bid_t *b) {
  int64_t auction;
  if (st_rand_below(r, c->hot_auction_ratio) > 0)
    auction = (last_auction(c, n) / HOT_BLOCK) * HOT_BLOCK;
  else
    auction = next_auction(c, n, r);
  if (auction < 0) auction = 0;
  b->auction = auction + FIRST_AUCTION_ID;
  int64_t bidder;
  if (st_rand_below(r, c->hot_bidders_ratio) > 0)
    bidder = (last_person(c, n) / HOT_BLOCK) * HOT_BLOCK + 1; /* not the hot seller */
  else
    bidder = next_person(c, n, r);
  b->bidder = bidder + FIRST_PERSON_ID;
  b->price = next_price(r);
  if (st_rand_below(r, 10) > 0) {
    uint64_t ch = st_rand_below(r, NELEM(channels));
    snprintf(b->channel, sizeof b->channel, "%s", channels[ch]);
    snprintf(b->url, sizeof b->url, "https://www.nexmark.com/%s/item.htm?query=1", channels[ch]);
  } else {
    uint64_t ch = st_rand_below(r, 10000);
    char p1[8], p2[8];
    next_string(r, 5, p1, sizeof p1);
    next_string(r, 5, p2, sizeof p2);
    snprintf(b->channel, sizeof b->channel, "channel-%u", (unsigned)ch);
    snprintf(b->url, sizeof b->url, "https://www.nexmark.com/%s/%s/item.htm?query=1&channel_id=%u",
             p1, p2, (unsigned)ch);
  }
  b->date_time_ms = ts;
  next_extra(r, 32, c->avg_bid_bytes, b->extra, sizeof b->extra);
}

void st_nexmark_event(const st_nexmark_config_t *c, uint64_t n, st_nx_event_t *ev) {
  st_rand_t r = st_rand_for(c->seed, n, 0x4E45584D41524Bull /* "NEXMARK" */);
  ev->number = n;
  ev->kind = st_nexmark_kind(c, n);
  ev->timestamp_ms = st_nexmark_timestamp(c, n);
  switch (ev->kind) {
    case ST_NX_PERSON: gen_person(c, n, &r, ev->timestamp_ms, &ev->u.person); break;
    case ST_NX_AUCTION: gen_auction(c, n, &r, ev->timestamp_ms, &ev->u.auction); break;
    case ST_NX_BID: gen_bid(c, n, &r, ev->timestamp_ms, &ev->u.bid); break;
  }
}

/* ---- JSON ---- */

/* Plain appends: printf-style formatting would cost more than making the
 * event. */
static void put_digits(fl_buf_t *out, uint64_t v, int width) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v || n < width);
  char rev[24];
  for (int i = 0; i < n; i++) rev[i] = tmp[n - 1 - i];
  fl_buf_append(out, rev, (size_t)n);
}

static void put_name(fl_buf_t *out, const char *name) {
  fl_buf_append_u8(out, '"');
  fl_buf_append_str(out, name);
  fl_buf_append(out, "\":", 2);
}

/* "YYYY-MM-DD HH:MM:SS.mmm" in UTC (Flink's SQL timestamp text). */
static void json_time(fl_buf_t *out, const char *name, int64_t ms) {
  put_name(out, name);
  int64_t days = fl_floordiv(ms, 86400000), rem = fl_floormod(ms, 86400000);
  int64_t y;
  unsigned mo, d;
  fl_civil_from_days(days, &y, &mo, &d);
  fl_buf_append_u8(out, '"');
  if (y < 0) fl_buf_append_u8(out, '-');
  put_digits(out, (uint64_t)(y < 0 ? -y : y), 4);
  fl_buf_append_u8(out, '-');
  put_digits(out, mo, 2);
  fl_buf_append_u8(out, '-');
  put_digits(out, d, 2);
  fl_buf_append_u8(out, ' ');
  put_digits(out, (uint64_t)(rem / 3600000), 2);
  fl_buf_append_u8(out, ':');
  put_digits(out, (uint64_t)(rem / 60000 % 60), 2);
  fl_buf_append_u8(out, ':');
  put_digits(out, (uint64_t)(rem / 1000 % 60), 2);
  fl_buf_append_u8(out, '.');
  put_digits(out, (uint64_t)(rem % 1000), 3);
  fl_buf_append_u8(out, '"');
}

/* Generated strings hold only letters, digits, spaces and url characters:
 * none needs escaping. */
static void json_str(fl_buf_t *out, const char *name, const char *v) {
  put_name(out, name);
  fl_buf_append_u8(out, '"');
  fl_buf_append_str(out, v);
  fl_buf_append_u8(out, '"');
}

static void json_i64(fl_buf_t *out, const char *name, int64_t v) {
  put_name(out, name);
  if (v < 0) fl_buf_append_u8(out, '-');
  put_digits(out, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, 1);
}

static void json_record(const st_nx_event_t *ev, fl_buf_t *out) {
  fl_buf_append_str(out, "{");
  switch (ev->kind) {
    case ST_NX_PERSON: {
      const st_nx_person_t *p = &ev->u.person;
      json_i64(out, "id", p->id), fl_buf_append_str(out, ",");
      json_str(out, "name", p->name), fl_buf_append_str(out, ",");
      json_str(out, "emailAddress", p->email), fl_buf_append_str(out, ",");
      json_str(out, "creditCard", p->credit_card), fl_buf_append_str(out, ",");
      json_str(out, "city", p->city), fl_buf_append_str(out, ",");
      json_str(out, "state", p->state), fl_buf_append_str(out, ",");
      json_time(out, "dateTime", p->date_time_ms), fl_buf_append_str(out, ",");
      json_str(out, "extra", p->extra);
      break;
    }
    case ST_NX_AUCTION: {
      const st_nx_auction_t *a = &ev->u.auction;
      json_i64(out, "id", a->id), fl_buf_append_str(out, ",");
      json_str(out, "itemName", a->item_name), fl_buf_append_str(out, ",");
      json_str(out, "description", a->description), fl_buf_append_str(out, ",");
      json_i64(out, "initialBid", a->initial_bid), fl_buf_append_str(out, ",");
      json_i64(out, "reserve", a->reserve), fl_buf_append_str(out, ",");
      json_time(out, "dateTime", a->date_time_ms), fl_buf_append_str(out, ",");
      json_time(out, "expires", a->expires_ms), fl_buf_append_str(out, ",");
      json_i64(out, "seller", a->seller), fl_buf_append_str(out, ",");
      json_i64(out, "category", a->category), fl_buf_append_str(out, ",");
      json_str(out, "extra", a->extra);
      break;
    }
    case ST_NX_BID: {
      const st_nx_bid_t *b = &ev->u.bid;
      json_i64(out, "auction", b->auction), fl_buf_append_str(out, ",");
      json_i64(out, "bidder", b->bidder), fl_buf_append_str(out, ",");
      json_i64(out, "price", b->price), fl_buf_append_str(out, ",");
      json_str(out, "channel", b->channel), fl_buf_append_str(out, ",");
      json_str(out, "url", b->url), fl_buf_append_str(out, ",");
      json_time(out, "dateTime", b->date_time_ms), fl_buf_append_str(out, ",");
      json_str(out, "extra", b->extra);
      break;
    }
  }
  fl_buf_append_str(out, "}");
}

void st_nexmark_json(const st_nx_event_t *ev, bool flat, fl_buf_t *out) {
  if (flat) {
    json_record(ev, out);
    return;
  }
  static const char *const names[] = {"person", "auction", "bid"};
  fl_buf_printf(out, "{\"event_type\":%d", (int)ev->kind);
  for (int k = 0; k < 3; k++) {
    fl_buf_printf(out, ",\"%s\":", names[k]);
    if ((int)ev->kind == k)
      json_record(ev, out);
    else
      fl_buf_append_str(out, "null");
  }
  fl_buf_append_str(out, "}");
}

/* ---- batches ---- */

const ty_schema_t *st_nexmark_schema(st_nx_kind_t kind, fl_arena_t *a) {
  static const char *const text[] = {
      "id long not null, name string, emailAddress string, creditCard string, city string, "
      "state string, dateTime timestamp, extra string",
      "id long not null, itemName string, description string, initialBid long, reserve long, "
      "dateTime timestamp, expires timestamp, seller long, category long, extra string",
      "auction long, bidder long, price long, channel string, url string, dateTime timestamp, "
      "extra string",
  };
  ty_schema_t *s = NULL;
  fl_err_t err;
  int rc = ty_schema_parse(a, text[kind], &s, &err);
  (void)rc;
  return s;
}

static void put_str(ty_vec_t *v, const char *s) { ty_vec_append_bytes(v, s, strlen(s)); }

void st_nexmark_append(const st_nx_event_t *ev, ty_batch_t *b) {
  ty_vec_t **c = b->cols;
  switch (ev->kind) {
    case ST_NX_PERSON: {
      const st_nx_person_t *p = &ev->u.person;
      ty_vec_append_i64(c[0], p->id);
      put_str(c[1], p->name);
      put_str(c[2], p->email);
      put_str(c[3], p->credit_card);
      put_str(c[4], p->city);
      put_str(c[5], p->state);
      ty_vec_append_i64(c[6], p->date_time_ms * 1000);
      put_str(c[7], p->extra);
      break;
    }
    case ST_NX_AUCTION: {
      const st_nx_auction_t *a = &ev->u.auction;
      ty_vec_append_i64(c[0], a->id);
      put_str(c[1], a->item_name);
      put_str(c[2], a->description);
      ty_vec_append_i64(c[3], a->initial_bid);
      ty_vec_append_i64(c[4], a->reserve);
      ty_vec_append_i64(c[5], a->date_time_ms * 1000);
      ty_vec_append_i64(c[6], a->expires_ms * 1000);
      ty_vec_append_i64(c[7], a->seller);
      ty_vec_append_i64(c[8], a->category);
      put_str(c[9], a->extra);
      break;
    }
    case ST_NX_BID: {
      const st_nx_bid_t *d = &ev->u.bid;
      ty_vec_append_i64(c[0], d->auction);
      ty_vec_append_i64(c[1], d->bidder);
      ty_vec_append_i64(c[2], d->price);
      put_str(c[3], d->channel);
      put_str(c[4], d->url);
      ty_vec_append_i64(c[5], d->date_time_ms * 1000);
      put_str(c[6], d->extra);
      break;
    }
  }
  b->nrows++;
}

uint32_t st_nexmark_fill(const st_nexmark_config_t *c, st_nx_kind_t kind, uint64_t *next,
                         uint64_t end, ty_batch_t *b) {
  uint32_t added = 0;
  st_nx_event_t ev;
  uint64_t n = *next;
  while (n < end && b->nrows < TY_BATCH_ROWS) {
    if (st_nexmark_kind(c, n) == kind) {
      st_nexmark_event(c, n, &ev);
      st_nexmark_append(&ev, b);
      added++;
    }
    n++;
  }
  *next = n;
  return added;
}
