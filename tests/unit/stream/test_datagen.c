/*
 * test_datagen.c - the datagen connector: sequences bound the source,
 * random values stay within min/max and lengths, null rates, seeks
 * reproduce rows, the rate limit holds, and bad options are errors that
 * name the option.
 */
#include "base/arena.h"
#include "base/time.h"
#include "stream/st_datagen.h"
#include "test.h"

typedef struct fx {
  fl_arena_t *a;
  ty_schema_t *s;
  ty_batch_t *b;
  st_datagen_t *g;
  fl_err_t err;
} fx_t;

static int fx_open(fx_t *f, const char *schema, const st_option_t *o, uint32_t n) {
  memset(f, 0, sizeof *f);
  f->a = fl_arena_new(0);
  if (ty_schema_parse(f->a, schema, &f->s, &f->err)) return f->err.code;
  f->b = ty_batch_new(f->s, TY_BATCH_ROWS);
  return st_datagen_open(f->s, o, n, &f->g, &f->err);
}

static void fx_close(fx_t *f) {
  st_datagen_free(f->g);
  ty_batch_free(f->b);
  fl_arena_free(f->a);
}

TEST(datagen_sequence_and_bounds) {
  st_option_t o[] = {
      {"connector", "datagen"}, {"rows-per-second", "unlimited"}, {"fields.id.kind", "sequence"},
      {"fields.id.start", "5"}, {"fields.id.end", "3004"},        {"fields.v.min", "-3"},
      {"fields.v.max", "3"},    {"fields.s.length", "12"},        {"fields.d.min", "1.50"},
      {"fields.d.max", "2.25"}, {"fields.x.min", "10"},           {"fields.x.max", "20"}};
  fx_t f;
  CHECK_OK(fx_open(&f, "id long not null, v int, s string, d decimal(5,2), x double, b boolean", o,
                   sizeof o / sizeof o[0]),
           &f.err);
  CHECK_EQ(st_datagen_total(f.g), 3000);
  uint64_t total = 0;
  bool end = false;
  int64_t expect = 5;
  while (!end) {
    ty_batch_reset(f.b);
    uint32_t rows;
    CHECK_OK(st_datagen_next(f.g, f.b, 0, 1000, &rows, &end, &f.err), &f.err);
    CHECK_EQ(f.b->nrows, rows);
    for (uint32_t r = 0; r < rows; r++) {
      CHECK_EQ(TY_VEC_DATA(f.b->cols[0], int64_t)[r], expect++);
      int32_t v = TY_VEC_DATA(f.b->cols[1], int32_t)[r];
      CHECK(v >= -3 && v <= 3);
      size_t n;
      const uint8_t *p = ty_vec_get_bytes(f.b->cols[2], r, &n);
      CHECK_EQ(n, 12);
      for (size_t i = 0; i < n; i++)
        CHECK((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f'));
      fl_i128 d = ty_vec_get_i128(f.b->cols[3], r);
      CHECK(d >= 150 && d <= 225);
      double x = TY_VEC_DATA(f.b->cols[4], double)[r];
      CHECK(x >= 10 && x <= 20);
    }
    total += rows;
  }
  CHECK_EQ(total, 3000);
  CHECK_EQ(st_datagen_position(f.g), 3000);
  fx_close(&f);
}

TEST(datagen_seek_reproduces_rows) {
  st_option_t o[] = {
      {"rows-per-second", "0"},     {"number-of-rows", "500"}, {"seed", "42"},
      {"fields.s.var-len", "true"}, {"fields.s.length", "30"}, {"fields.n.null-rate", "0.5"}};
  fx_t f;
  CHECK_OK(fx_open(&f, "a long, s string, n int, u uuid", o, sizeof o / sizeof o[0]), &f.err);
  uint32_t rows;
  bool end;
  CHECK_OK(st_datagen_next(f.g, f.b, 300, 0, &rows, &end, &f.err), &f.err);
  CHECK_EQ(rows, 300);
  CHECK(!end);
  CHECK(f.b->cols[2]->null_count > 100 && f.b->cols[2]->null_count < 200);
  int64_t a250 = TY_VEC_DATA(f.b->cols[0], int64_t)[250];
  size_t n1;
  const uint8_t *s250 = ty_vec_get_bytes(f.b->cols[1], 250, &n1);
  char keep[64];
  memcpy(keep, s250, n1);
  CHECK(n1 >= 1 && n1 <= 30);
  ty_batch_t *b2 = ty_batch_new(f.s, 16);
  st_datagen_seek(f.g, 250);
  CHECK_OK(st_datagen_next(f.g, b2, 1, 0, &rows, &end, &f.err), &f.err);
  CHECK_EQ(rows, 1);
  CHECK_EQ(TY_VEC_DATA(b2->cols[0], int64_t)[0], a250);
  size_t n2;
  const uint8_t *s2 = ty_vec_get_bytes(b2->cols[1], 0, &n2);
  CHECK_EQ(n1, n2);
  CHECK_MEM(keep, s2, n1);
  st_datagen_seek(f.g, 500);
  CHECK_OK(st_datagen_next(f.g, b2, 0, 0, &rows, &end, &f.err), &f.err);
  CHECK(end);
  CHECK_EQ(rows, 0);
  ty_batch_free(b2);
  fx_close(&f);
}

TEST(datagen_rate_limit) {
  st_option_t o[] = {{"rows-per-second", "400"}, {"number-of-rows", "120"}};
  fx_t f;
  CHECK_OK(fx_open(&f, "a int", o, 2), &f.err);
  int64_t t0 = fl_monotonic_ns();
  uint64_t total = 0;
  bool end = false;
  while (!end) {
    uint32_t rows;
    ty_batch_reset(f.b);
    CHECK_OK(st_datagen_next(f.g, f.b, 0, 50, &rows, &end, &f.err), &f.err);
    total += rows;
  }
  double secs = (double)(fl_monotonic_ns() - t0) / 1e9;
  CHECK_EQ(total, 120);
  /* 120 rows at 400/s: the last is due after ~0.3 s. */
  CHECK(secs >= 0.28);
  CHECK(secs < 3.0);
  fx_close(&f);
}

TEST(datagen_timestamps_within_max_past) {
  st_option_t o[] = {
      {"rows-per-second", "0"}, {"number-of-rows", "100"}, {"fields.ts.max-past", "60000"}};
  fx_t f;
  CHECK_OK(fx_open(&f, "ts timestamptz, d date", o, 3), &f.err);
  int64_t now = fl_now_micros();
  uint32_t rows;
  bool end;
  CHECK_OK(st_datagen_next(f.g, f.b, 0, 0, &rows, &end, &f.err), &f.err);
  CHECK_EQ(rows, 100);
  for (uint32_t r = 0; r < rows; r++) {
    int64_t ts = TY_VEC_DATA(f.b->cols[0], int64_t)[r];
    CHECK(ts <= now + 5000000 && ts >= now - 60000000 - 5000000);
  }
  fx_close(&f);
}

TEST(datagen_nested_columns) {
  st_option_t o[] = {{"rows-per-second", "0"}, {"number-of-rows", "200"}};
  fx_t f;
  CHECK_OK(fx_open(&f, "l list<int>, m map<string, long>, s struct<x: double, y: string>", o, 2),
           &f.err);
  uint32_t rows;
  bool end;
  CHECK_OK(st_datagen_next(f.g, f.b, 0, 0, &rows, &end, &f.err), &f.err);
  CHECK_EQ(rows, 200);
  CHECK(end);
  ty_vec_t *l = f.b->cols[0], *m = f.b->cols[1], *s = f.b->cols[2];
  CHECK_EQ(l->len, 200);
  CHECK_EQ(m->len, 200);
  CHECK_EQ(s->len, 200);
  uint32_t elems = 0;
  for (uint32_t r = 0; r < 200; r++) {
    int32_t n = l->offsets[r + 1] - l->offsets[r];
    CHECK(n >= 0 && n <= 3);
    elems += (uint32_t)n;
    /* Map keys of one row are distinct. */
    for (int32_t i = m->offsets[r]; i < m->offsets[r + 1]; i++)
      for (int32_t j = i + 1; j < m->offsets[r + 1]; j++) {
        size_t n1, n2;
        const uint8_t *k1 = ty_vec_get_bytes(m->children[0], (uint32_t)i, &n1);
        const uint8_t *k2 = ty_vec_get_bytes(m->children[0], (uint32_t)j, &n2);
        CHECK(n1 != n2 || memcmp(k1, k2, n1) != 0);
      }
    double x = TY_VEC_DATA(s->children[0], double)[r];
    CHECK(x >= 0 && x < 1);
    size_t n2;
    ty_vec_get_bytes(s->children[1], r, &n2);
    CHECK_EQ(n2, 8);
  }
  CHECK_EQ(l->children[0]->len, elems);
  CHECK(elems > 150 && elems < 450); /* 1.5 per row on average */
  fx_close(&f);
}

TEST(datagen_bad_options) {
  static const struct {
    const char *schema, *key, *value, *needle;
  } cases[] = {
      {"a int", "fields.b.kind", "random", "no column 'b'"},
      {"a int", "fields.a.kind", "shuffled", "fields.a.kind"},
      {"a int", "fields.a.length", "5", "length"},
      {"a int", "rows-per-second", "fast", "rows-per-second"},
      {"a int", "fields.a.min", "1e99", "min"},
      {"a int", "fields.a.kind", "sequence", "start"},
      {"a string", "fields.a.min", "1", "numeric"},
      {"a int", "scan.mode", "x", "scan.mode"},
      {"a list<int>", "fields.a.min", "1", "numeric"},
      {"a int", "fields.a.null-rate", "2", "null-rate"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    st_option_t o[] = {{cases[i].key, cases[i].value}};
    fx_t f;
    int rc = fx_open(&f, cases[i].schema, o, 1);
    if (rc == FL_OK) t_fail(__FILE__, __LINE__, "case %zu accepted", i);
    if (!strstr(f.err.msg, cases[i].needle))
      t_fail(__FILE__, __LINE__, "case %zu: '%s' lacks '%s'", i, f.err.msg, cases[i].needle);
    fx_close(&f);
  }
  st_option_t seq[] = {
      {"fields.a.kind", "sequence"}, {"fields.a.start", "9"}, {"fields.a.end", "3"}};
  fx_t f;
  CHECK_ERR(fx_open(&f, "a int", seq, 3), FL_EINVALID);
  CHECK(strstr(f.err.msg, "before start") != NULL);
  fx_close(&f);
}
