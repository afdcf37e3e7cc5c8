/*
 * test_nexmark.c - the Nexmark generator: the same seed gives the same
 * events, kinds follow the 1:3:46 proportions, ids and references stay in
 * the reference generator's ranges, the hot auction, bidder and seller
 * shares are what the ratios say, event time advances by 1/rate, and the
 * JSON form decodes into the same rows as the batch form.
 */
#include <math.h>
#include <stdlib.h>

#include "base/arena.h"
#include "format/json/json_decoder.h"
#include "stream/st_nexmark.h"
#include "test.h"

TEST(nexmark_deterministic_for_a_seed) {
  st_nexmark_config_t c;
  st_nexmark_config_default(&c);
  c.seed = 7;
  fl_buf_t a, b;
  fl_buf_init(&a);
  fl_buf_init(&b);
  st_nx_event_t ev;
  for (uint64_t n = 0; n < 2000; n++) {
    st_nexmark_event(&c, n, &ev);
    st_nexmark_json(&ev, false, &a);
  }
  /* Out of order and one by one: each event depends on its number only. */
  for (uint64_t n = 0; n < 2000; n++) {
    st_nexmark_event(&c, 1999 - n, &ev);
    st_nexmark_event(&c, n, &ev);
    st_nexmark_json(&ev, false, &b);
  }
  CHECK_EQ(a.len, b.len);
  CHECK_MEM(a.data, b.data, a.len);
  fl_buf_clear(&b);
  c.seed = 8;
  for (uint64_t n = 0; n < 2000; n++) {
    st_nexmark_event(&c, n, &ev);
    st_nexmark_json(&ev, false, &b);
  }
  CHECK(a.len != b.len || memcmp(a.data, b.data, a.len) != 0);
  fl_buf_free(&a);
  fl_buf_free(&b);
}

TEST(nexmark_distributions) {
  st_nexmark_config_t c;
  st_nexmark_config_default(&c);
  const uint64_t N = 100000;
  uint64_t kinds[3] = {0}, hot_bids = 0, hot_bidders = 0, hot_sellers = 0;
  int64_t max_person = 0, max_auction = 0;
  double log_price_sum = 0;
  uint64_t nprice = 0;
  st_nx_event_t ev;
  for (uint64_t n = 0; n < N; n++) {
    st_nexmark_event(&c, n, &ev);
    kinds[ev.kind]++;
    CHECK_EQ(ev.timestamp_ms, c.base_time_ms + (int64_t)(n / 10)); /* 10 000 events/s */
    if (ev.kind == ST_NX_PERSON) {
      CHECK(ev.u.person.id == 1000 + max_person || max_person == 0);
      max_person = ev.u.person.id - 1000 + 1;
      CHECK(strlen(ev.u.person.credit_card) == 19);
    } else if (ev.kind == ST_NX_AUCTION) {
      const st_nx_auction_t *a = &ev.u.auction;
      max_auction = a->id - 1000 + 1;
      CHECK(a->category >= 10 && a->category < 15);
      CHECK(a->reserve >= a->initial_bid);
      CHECK(a->expires_ms > a->date_time_ms);
      CHECK(a->seller >= 1000 && a->seller < 1000 + max_person + 10);
      if ((a->seller - 1000) % 100 == 0) hot_sellers++;
    } else {
      const st_nx_bid_t *b = &ev.u.bid;
      /* At most 100 auctions back and 10 ahead of the latest. */
      CHECK(b->auction >= 1000 && b->auction < 1000 + max_auction + 10);
      CHECK(b->auction >= 1000 + max_auction - 1 - 100 || (b->auction - 1000) % 100 == 0);
      CHECK(b->bidder >= 1000 && b->bidder < 1000 + max_person + 10);
      CHECK(b->price >= 100 && b->price <= 100000000);
      if ((b->auction - 1000) % 100 == 0) hot_bids++;
      if ((b->bidder - 1000) % 100 == 1) hot_bidders++;
      log_price_sum += log10((double)b->price / 100.0);
      nprice++;
      CHECK(strncmp(b->url, "https://www.nexmark.com/", 24) == 0);
    }
  }
  CHECK_EQ(kinds[ST_NX_PERSON], N / 50);
  CHECK_EQ(kinds[ST_NX_AUCTION], N / 50 * 3);
  CHECK_EQ(kinds[ST_NX_BID], N / 50 * 46);
  /* Hot shares: 1 - 1/ratio (plus the few random picks that land on a hot id). */
  double hb = (double)hot_bids / kinds[ST_NX_BID], hbd = (double)hot_bidders / kinds[ST_NX_BID];
  double hs = (double)hot_sellers / kinds[ST_NX_AUCTION];
  CHECK(hb > 0.48 && hb < 0.53);
  CHECK(hbd > 0.73 && hbd < 0.77);
  CHECK(hs > 0.72 && hs < 0.78);
  /* log10(price / 100) is uniform on [0, 6): mean 3. */
  double mean = log_price_sum / (double)nprice;
  CHECK(mean > 2.95 && mean < 3.05);
}

TEST(nexmark_json_matches_batches) {
  st_nexmark_config_t c;
  st_nexmark_config_default(&c);
  c.seed = 3;
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  for (int k = 0; k < 3; k++) {
    const ty_schema_t *s = st_nexmark_schema((st_nx_kind_t)k, a);
    CHECK(s != NULL);
    ty_batch_t *direct = ty_batch_new(s, 64), *decoded = ty_batch_new(s, 64);
    js_decoder_t *d = js_decoder_new(s, NULL);
    fl_buf_t j;
    fl_buf_init(&j);
    st_nx_event_t ev;
    uint64_t next = 0;
    uint32_t rows = st_nexmark_fill(&c, (st_nx_kind_t)k, &next, 500, direct);
    CHECK_EQ(next, 500);
    CHECK_EQ(rows, k == 0 ? 10 : k == 1 ? 30 : 460);
    for (uint64_t n = 0; n < 500; n++) {
      st_nexmark_event(&c, n, &ev);
      if ((int)ev.kind != k) continue;
      fl_buf_clear(&j);
      st_nexmark_json(&ev, true, &j);
      CHECK_OK(js_decode_record(d, (const char *)j.data, j.len, decoded, &err), &err);
    }
    CHECK_EQ(decoded->nrows, direct->nrows);
    for (uint32_t col = 0; col < s->root.nfields; col++) {
      ty_vec_t *x = direct->cols[col], *y = decoded->cols[col];
      for (uint32_t r = 0; r < direct->nrows; r++) {
        if (ty_is_varlen(x->type)) {
          size_t n1, n2;
          const uint8_t *p1 = ty_vec_get_bytes(x, r, &n1), *p2 = ty_vec_get_bytes(y, r, &n2);
          CHECK_EQ(n1, n2);
          CHECK_MEM(p1, p2, n1);
        } else {
          CHECK_EQ(TY_VEC_DATA(x, int64_t)[r], TY_VEC_DATA(y, int64_t)[r]);
        }
      }
    }
    /* The combined form names the kind. */
    st_nexmark_event(&c, k == 0 ? 0 : k == 1 ? 1 : 4, &ev);
    fl_buf_clear(&j);
    st_nexmark_json(&ev, false, &j);
    char want[32];
    snprintf(want, sizeof want, "{\"event_type\":%d,", k);
    CHECK(j.len > strlen(want) && memcmp(j.data, want, strlen(want)) == 0);
    fl_buf_free(&j);
    js_decoder_free(d);
    ty_batch_free(direct);
    ty_batch_free(decoded);
  }
  /* The first event's time prints in Flink's SQL form. */
  st_nx_event_t ev;
  st_nexmark_event(&c, 0, &ev);
  fl_buf_t j;
  fl_buf_init(&j);
  st_nexmark_json(&ev, true, &j);
  fl_buf_append_u8(&j, 0);
  CHECK(strstr((const char *)j.data, "\"dateTime\":\"2024-01-01 00:00:00.000\"") != NULL);
  fl_buf_free(&j);
  fl_arena_free(a);
}

TEST(nexmark_config_check) {
  st_nexmark_config_t c;
  st_nexmark_config_default(&c);
  fl_err_t err;
  CHECK_OK(st_nexmark_config_check(&c, &err), &err);
  c.bid_proportion = 0;
  CHECK_ERR(st_nexmark_config_check(&c, &err), FL_EINVALID);
  st_nexmark_config_default(&c);
  c.event_rate = 0;
  CHECK_ERR(st_nexmark_config_check(&c, &err), FL_EINVALID);
}
