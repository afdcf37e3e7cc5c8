/*
 * test_hash_table.c - the group hash table against a brute-force grouping
 * of the same rows: multi-column keys of several types with NULLs,
 * floating point equality, selections, lookups without insert, and growth.
 */
#include <math.h>

#include "exec/ex_hash_table.h"
#include "exec/ex_vec.h"
#include "exec_test_util.h"
#include "test.h"

/* A text form of a row's key under SQL equality (-0 = 0, NaN = NaN). */
static char *key_text(ty_vec_t *const *cols, uint32_t ncols, uint32_t r) {
  fl_buf_t b;
  fl_buf_init(&b);
  for (uint32_t c = 0; c < ncols; c++) {
    const ty_vec_t *v = cols[c];
    if (ty_vec_is_null(v, r))
      fl_buf_append_str(&b, "N");
    else if (v->type->kind == TY_DOUBLE) {
      double d = TY_VEC_DATA(v, double)[r];
      if (d == 0) d = 0;
      if (isnan(d))
        fl_buf_append_str(&b, "nan");
      else
        fl_buf_printf(&b, "%a", d);
    } else
      tu_format(v, r, &b);
    fl_buf_append_u8(&b, 0x1f);
  }
  fl_buf_append_u8(&b, 0);
  return (char *)fl_buf_steal(&b, NULL);
}

typedef struct pair {
  char *key;
  uint32_t gid;
} pair_t;

static int pair_cmp(const void *a, const void *b) {
  return strcmp(((const pair_t *)a)->key, ((const pair_t *)b)->key);
}

TEST(hash_table_matches_brute_force) {
  const ty_type_t *types[3] = {ty_primitive(TY_LONG), ty_primitive(TY_STRING),
                               ty_primitive(TY_DOUBLE)};
  ex_ht_t *ht = ex_ht_new(types, 3);
  ty_vec_t *cols[3];
  for (int c = 0; c < 3; c++) cols[c] = ty_vec_new(types[c], TY_BATCH_ROWS);
  uint64_t seed = 42;
  const uint32_t nbatches = 30;
  pair_t *pairs = fl_calloc(nbatches * TY_BATCH_ROWS, sizeof *pairs);
  uint32_t npairs = 0, gids[TY_BATCH_ROWS], sel[TY_BATCH_ROWS];
  const double dvals[] = {0.0, -0.0, NAN, -NAN, 1.5, 2.25};
  for (uint32_t bi = 0; bi < nbatches; bi++) {
    for (int c = 0; c < 3; c++) ty_vec_reset(cols[c]);
    for (uint32_t i = 0; i < TY_BATCH_ROWS; i++) {
      uint64_t x = tu_rand(&seed);
      if (x % 13 == 0)
        ty_vec_append_null(cols[0]);
      else
        ty_vec_append_i64(cols[0], (int64_t)(x >> 8) % 500 - 250);
      char s[16];
      int n = snprintf(s, sizeof s, "k%u", (unsigned)((x >> 20) % 7));
      if ((x >> 40) % 11 == 0)
        ty_vec_append_null(cols[1]);
      else
        ty_vec_append_bytes(cols[1], s, (size_t)n);
      if ((x >> 50) % 17 == 0)
        ty_vec_append_null(cols[2]);
      else
        ty_vec_append_f64(cols[2], dvals[(x >> 30) % 6]);
    }
    /* Every other batch probes through a selection of every third row. */
    uint32_t n = 0;
    const uint32_t *rows = NULL;
    if (bi % 2) {
      for (uint32_t i = 0; i < TY_BATCH_ROWS; i += 3) sel[n++] = i;
      rows = sel;
    } else
      n = TY_BATCH_ROWS;
    ex_ht_find_or_insert(ht, cols, rows, n, NULL, gids);
    for (uint32_t k = 0; k < n; k++) {
      uint32_t r = rows ? rows[k] : k;
      pairs[npairs].key = key_text(cols, 3, r);
      pairs[npairs++].gid = gids[k];
      /* The stored key of the group equals the row's key. */
      ty_vec_t *kc[3] = {(ty_vec_t *)ex_ht_keys(ht, 0), (ty_vec_t *)ex_ht_keys(ht, 1),
                         (ty_vec_t *)ex_ht_keys(ht, 2)};
      char *stored = key_text(kc, 3, gids[k]);
      bool same = strcmp(stored, pairs[npairs - 1].key) == 0;
      fl_free(stored);
      CHECK(same);
    }
  }
  qsort(pairs, npairs, sizeof *pairs, pair_cmp);
  uint32_t distinct = 0;
  uint8_t *seen = fl_calloc(ex_ht_groups(ht), 1);
  for (uint32_t i = 0; i < npairs; i++) {
    if (i == 0 || strcmp(pairs[i].key, pairs[i - 1].key) != 0) {
      distinct++;
      CHECK(!seen[pairs[i].gid]); /* one group per distinct key */
      seen[pairs[i].gid] = 1;
    } else {
      CHECK_EQ(pairs[i].gid, pairs[i - 1].gid);
    }
  }
  CHECK_EQ(distinct, ex_ht_groups(ht));
  CHECK(distinct > 5000); /* many groups: the table grew several times */

  /* Lookups without insert: present keys find their group, absent miss. */
  for (int c = 0; c < 3; c++) ty_vec_reset(cols[c]);
  ty_vec_append_i64(cols[0], 100000);
  ty_vec_append_bytes(cols[1], "zz", 2);
  ty_vec_append_f64(cols[2], 1.5);
  ex_ht_find(ht, cols, NULL, 1, NULL, gids);
  CHECK_EQ(gids[0], EX_HT_MISSING);
  CHECK_EQ(ex_ht_groups(ht), distinct);

  for (uint32_t i = 0; i < npairs; i++) fl_free(pairs[i].key);
  fl_free(pairs);
  fl_free(seen);
  for (int c = 0; c < 3; c++) ty_vec_free(cols[c]);
  ex_ht_free(ht);
}

TEST(hash_table_float_and_null_equality) {
  const ty_type_t *types[1] = {ty_primitive(TY_DOUBLE)};
  ex_ht_t *ht = ex_ht_new(types, 1);
  ty_vec_t *v = ty_vec_new(types[0], 8);
  ty_vec_append_f64(v, 0.0);
  ty_vec_append_f64(v, -0.0);
  ty_vec_append_f64(v, NAN);
  ty_vec_append_f64(v, -NAN);
  ty_vec_append_null(v);
  ty_vec_append_null(v);
  ty_vec_append_f64(v, 1.0);
  uint32_t g[7];
  ex_ht_find_or_insert(ht, &v, NULL, 7, NULL, g);
  CHECK_EQ(g[0], g[1]);
  CHECK_EQ(g[2], g[3]);
  CHECK_EQ(g[4], g[5]);
  CHECK(g[0] != g[2] && g[0] != g[4] && g[2] != g[4] && g[6] != g[0]);
  CHECK_EQ(ex_ht_groups(ht), 4);
  ex_ht_clear(ht);
  CHECK_EQ(ex_ht_groups(ht), 0);
  ex_ht_find(ht, &v, NULL, 7, NULL, g);
  CHECK_EQ(g[6], EX_HT_MISSING);
  ty_vec_free(v);
  ex_ht_free(ht);
}

TEST(hash_table_no_keys_is_one_group) {
  ex_ht_t *ht = ex_ht_new(NULL, 0);
  uint32_t g[100];
  ex_ht_find_or_insert(ht, NULL, NULL, 100, NULL, g);
  for (int i = 0; i < 100; i++) CHECK_EQ(g[i], 0);
  CHECK_EQ(ex_ht_groups(ht), 1);
  ex_ht_free(ht);
}

TEST(hash_table_nested_keys) {
  fl_arena_t *a = fl_arena_new(0);
  const ty_type_t *lt = ty_list_new(a, 1, false, ty_primitive(TY_INT));
  ex_ht_t *ht = ex_ht_new(&lt, 1);
  ty_vec_t *v = ty_vec_new(lt, 8);
  int lists[4][3] = {{1, 2, 0}, {1, 2, 0}, {2, 1, 0}, {1, 2, 3}};
  int lens[4] = {2, 2, 2, 3};
  for (int r = 0; r < 4; r++) {
    for (int e = 0; e < lens[r]; e++) ty_vec_append_i32(v->children[0], lists[r][e]);
    ty_vec_append_list_end(v);
  }
  ty_vec_append_null(v);
  uint32_t g[5];
  ex_ht_find_or_insert(ht, &v, NULL, 5, NULL, g);
  CHECK_EQ(g[0], g[1]);
  CHECK(g[0] != g[2] && g[0] != g[3] && g[2] != g[3] && g[4] != g[0]);
  CHECK_EQ(ex_ht_groups(ht), 4);
  ty_vec_free(v);
  ex_ht_free(ht);
  fl_arena_free(a);
}
