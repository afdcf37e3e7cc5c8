/*
 * test_gen.c - the random data generator is deterministic and covers
 * nulls, nesting and unique map keys.
 */
#include "format/json/json_text.h"
#include "test.h"
#include "types/gen.h"
#include "types/value.h"

static void dump(const ty_schema_t *s, uint64_t seed, fl_buf_t *out) {
  ty_gen_opts_t o = {.seed = seed, .null_fraction = 0.2, .edge_fraction = 0.1};
  ty_gen_t *g = ty_gen_new(&o);
  ty_batch_t *b = ty_batch_new(s, 16);
  ty_gen_fill(g, b, 3000);
  for (uint32_t r = 0; r < b->nrows; r++) js_append_row(out, b, r);
  ty_batch_free(b);
  ty_gen_free(g);
}

TEST(gen_is_deterministic_per_seed) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *s;
  CHECK_OK(ty_schema_parse(a, "a long not null, b string, c list<double>, d map<int, string>, "
                              "e struct<x: decimal(38,4), y: timestamp_ns>",
                           &s, &err),
           &err);
  fl_buf_t x, y, z;
  fl_buf_init(&x);
  fl_buf_init(&y);
  fl_buf_init(&z);
  dump(s, 7, &x);
  dump(s, 7, &y);
  dump(s, 8, &z);
  CHECK(x.len == y.len && memcmp(x.data, y.data, x.len) == 0);
  CHECK(x.len != z.len || memcmp(x.data, z.data, x.len) != 0);
  fl_buf_free(&x);
  fl_buf_free(&y);
  fl_buf_free(&z);
  fl_arena_free(a);
}

TEST(gen_map_keys_unique_and_required_never_null) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *s;
  CHECK_OK(ty_schema_parse(a, "k int not null, m map<boolean, int>", &s, &err), &err);
  ty_gen_opts_t o = {.seed = 1, .null_fraction = 0.5, .edge_fraction = 0.5};
  ty_gen_t *g = ty_gen_new(&o);
  ty_batch_t *b = ty_batch_new(s, 16);
  ty_gen_fill(g, b, 2000);
  CHECK_EQ(b->cols[0]->null_count, 0);
  CHECK(b->cols[1]->null_count > 800 && b->cols[1]->null_count < 1200);
  ty_vec_t *m = b->cols[1];
  for (uint32_t r = 0; r < b->nrows; r++) {
    int32_t lo = m->offsets[r], hi = m->offsets[r + 1];
    CHECK(hi - lo <= 2); /* only two distinct boolean keys exist */
    if (hi - lo == 2) CHECK(m->children[0]->data[lo] != m->children[0]->data[lo + 1]);
  }
  ty_batch_free(b);
  ty_gen_free(g);
  fl_arena_free(a);
}
