/*
 * test_partition.c - the partitioner of keyed hand-offs: every live row
 * lands in exactly one part, in batch order, in the part its key's hash
 * names; equal keys (NULLs too) share a part across batches; selections
 * are honoured; without keys or with one part the rows stay together.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/ex_hash_table.h"
#include "exec/ex_partition.h"
#include "test.h"

static ty_batch_t *make_batch(fl_arena_t *a, uint32_t n, uint32_t seed) {
  ty_schema_t *s;
  fl_err_t err;
  if (ty_schema_parse(a, "v long, k string, j int", &s, &err)) return NULL;
  ty_batch_t *b = ty_batch_new(s, n);
  char key[16];
  for (uint32_t r = 0; r < n; r++) {
    ty_vec_append_i64(b->cols[0], (int64_t)r);
    if ((r + seed) % 11 == 0) {
      ty_vec_append_null(b->cols[1]);
    } else {
      int len = snprintf(key, sizeof key, "k%u", (r * 7 + seed) % 37);
      ty_vec_append_bytes(b->cols[1], key, (size_t)len);
    }
    ty_vec_append_i32(b->cols[2], (int32_t)((r + seed) % 5));
  }
  b->nrows = n;
  return b;
}

/* The part of row r by the definition: the hash of its keys. */
static uint32_t part_of(ty_batch_t *b, const uint32_t *kc, uint32_t nk, uint32_t r, uint32_t P) {
  const ty_type_t *kt[2] = {b->cols[kc[0]]->type, nk > 1 ? b->cols[kc[1]]->type : NULL};
  ex_ht_t *ht = ex_ht_new(kt, nk);
  ty_vec_t *cols[2] = {b->cols[kc[0]], nk > 1 ? b->cols[kc[1]] : NULL};
  uint64_t h;
  ex_ht_hash(ht, cols, &r, 1, &h);
  ex_ht_free(ht);
  return ex_partition_of(h, P);
}

TEST(partition_rows_by_key_hash) {
  fl_arena_t *a = fl_arena_new(0);
  const uint32_t kc[2] = {1, 2};
  for (uint32_t P = 1; P <= 5; P++) {
    ty_batch_t *b = make_batch(a, 300, P);
    const ty_type_t *kt[2] = {b->cols[1]->type, b->cols[2]->type};
    ex_partitioner_t *p = ex_partitioner_new(kt, kc, 2, P);
    /* Every third row selected. */
    uint32_t sel[100];
    for (uint32_t i = 0; i < 100; i++) sel[i] = i * 3;
    for (int with_sel = 0; with_sel < 2; with_sel++) {
      b->sel = with_sel ? sel : NULL;
      b->nsel = with_sel ? 100 : 0;
      uint32_t live = ex_partitioner_split(p, b);
      CHECK_EQ(live, with_sel ? 100u : 300u);
      uint8_t seen[300] = {0};
      uint32_t total = 0;
      for (uint32_t d = 0; d < P; d++) {
        uint32_t n;
        const uint32_t *rows = ex_partitioner_part(p, d, &n);
        for (uint32_t k = 0; k < n; k++) {
          CHECK(rows[k] < 300);
          CHECK(!seen[rows[k]]);
          seen[rows[k]] = 1;
          if (k) CHECK(rows[k] > rows[k - 1]);
          if (with_sel) CHECK_EQ(rows[k] % 3, 0u);
          CHECK_EQ(part_of(b, kc, 2, rows[k], P), d);
        }
        total += n;
      }
      CHECK_EQ(total, live);
    }
    b->sel = NULL;
    ex_partitioner_free(p);
    ty_batch_free(b);
  }
  fl_arena_free(a);
}

TEST(partition_equal_keys_meet) {
  fl_arena_t *a = fl_arena_new(0);
  const uint32_t kc[1] = {1};
  ty_batch_t *b1 = make_batch(a, 200, 1), *b2 = make_batch(a, 200, 2);
  const ty_type_t *kt[1] = {b1->cols[1]->type};
  ex_partitioner_t *p = ex_partitioner_new(kt, kc, 1, 3);
  /* Each key (its number; 39 for NULL) keeps its part over both batches. */
  int part[40];
  for (int i = 0; i < 40; i++) part[i] = -1;
  ty_batch_t *bs[2] = {b1, b2};
  for (int bi = 0; bi < 2; bi++) {
    ex_partitioner_split(p, bs[bi]);
    for (uint32_t d = 0; d < 3; d++) {
      uint32_t n;
      const uint32_t *rows = ex_partitioner_part(p, d, &n);
      for (uint32_t k = 0; k < n; k++) {
        const ty_vec_t *v = bs[bi]->cols[1];
        int id = 39; /* NULL */
        if (ty_vec_is_valid(v, rows[k])) {
          int32_t off = v->offsets[rows[k]], len = v->offsets[rows[k] + 1] - off;
          char t[8] = {0};
          memcpy(t, v->heap + off + 1, (size_t)(len - 1));
          id = atoi(t);
        }
        CHECK(id < 40);
        if (part[id] < 0) part[id] = (int)d;
        CHECK_EQ(part[id], (int)d);
      }
    }
  }
  ex_partitioner_free(p);
  ty_batch_free(b1);
  ty_batch_free(b2);
  fl_arena_free(a);
}

TEST(partition_without_keys_or_parts_keeps_rows_together) {
  fl_arena_t *a = fl_arena_new(0);
  ty_batch_t *b = make_batch(a, 50, 0);
  ex_partitioner_t *p = ex_partitioner_new(NULL, NULL, 0, 4);
  CHECK_EQ(ex_partitioner_split(p, b), 50u);
  uint32_t n;
  const uint32_t *rows = ex_partitioner_part(p, 0, &n);
  CHECK_EQ(n, 50u);
  for (uint32_t k = 0; k < n; k++) CHECK_EQ(rows[k], k);
  for (uint32_t d = 1; d < 4; d++) {
    ex_partitioner_part(p, d, &n);
    CHECK_EQ(n, 0u);
  }
  ex_partitioner_free(p);
  ty_batch_free(b);
  fl_arena_free(a);
}
