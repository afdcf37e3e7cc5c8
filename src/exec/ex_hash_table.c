/*
 * ex_hash_table.c - hashing, probing and key comparison of the group hash
 * table.
 *
 * find_or_insert works in rounds over the rows still unresolved:
 *   1. Each row walks from its slot: an empty slot means the tuple is new
 *      (claim the slot, number the group, remember the row); a slot whose
 *      tag equals the row's tag is a candidate (remember row and group);
 *      any other slot is skipped.
 *   2. The keys of the new groups are appended to the key columns, one
 *      gather per column, so that later candidates of the same batch can be
 *      compared against them.
 *   3. The candidates are compared column by column; a row whose candidate
 *      matches is resolved, the others move one slot on and go to the next
 *      round.
 * Two rows of one batch with the same new tuple resolve in one round: the
 * first claims an empty slot, the second meets that slot as a candidate.
 * The slot array is grown before a batch so that it stays at most half
 * full (1/8 while small, see slots_for); growing re-inserts groups from
 * their stored hashes. One or two integer keys without NULLs take a
 * shorter path (probe_int) that compares keys in place instead of in
 * rounds.
 */
#include "exec/ex_hash_table.h"

#include <math.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "exec/ex_vec.h"

typedef struct slot {
  uint32_t gid1; /* group + 1; 0: empty */
  uint32_t tag;  /* high half of the hash */
} slot_t;

struct ex_ht {
  uint32_t nkeys;
  const ty_type_t **types;
  size_t *widths; /* per key: value width, 0 for variable or nested */
  ty_vec_t **keys;
  uint64_t *hashes; /* per group */
  uint32_t ngroups, hash_cap;
  slot_t *slots;
  uint64_t mask; /* slots - 1 */
  /* Scratch of the table's own lookups, sized to the largest batch. */
  ex_ht_scratch_t sc;
};

#define NULL_HASH 0x5bd1e9955bd1e995ULL
#define SEED 0x9e3779b97f4a7c15ULL

static inline uint64_t fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

static inline uint64_t combine(uint64_t h, uint64_t x) {
  return (((h << 23) | (h >> 41)) ^ x) * 0x9fb21c651e98df25ULL;
}

/* Floats hash by value: -0.0 as 0.0 and every NaN alike. */
static inline uint64_t canon_f64(double d) {
  if (d == 0) return 0;
  if (isnan(d)) return 0x7ff8000000000000ULL;
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}

static inline uint32_t row_at(const uint32_t *rows, uint32_t k) { return rows ? rows[k] : k; }

static uint64_t hash_row_nested(const ty_vec_t *v, uint32_t i);

/* Hash of one value of any type: the slow path for nested children. */
static uint64_t hash_value(const ty_vec_t *v, uint32_t i) {
  if (ty_vec_is_null(v, i)) return NULL_HASH;
  switch (v->type->kind) {
    case TY_BOOLEAN: return fmix64(v->data[i] + SEED);
    case TY_INT:
    case TY_DATE: return fmix64((uint64_t)(int64_t)TY_VEC_DATA(v, int32_t)[i] + SEED);
    case TY_FLOAT: return fmix64(canon_f64(TY_VEC_DATA(v, float)[i]) + SEED);
    case TY_DOUBLE: return fmix64(canon_f64(TY_VEC_DATA(v, double)[i]) + SEED);
    case TY_STRUCT:
    case TY_LIST:
    case TY_MAP: return hash_row_nested(v, i);
    case TY_STRING:
    case TY_BINARY:
    case TY_UUID:
    case TY_FIXED:
    case TY_DECIMAL: {
      size_t n;
      const uint8_t *p =
          v->type->kind == TY_DECIMAL ? v->data + (size_t)i * 16 : ty_vec_get_bytes(v, i, &n);
      if (v->type->kind == TY_DECIMAL) n = 16;
      return fl_xxhash64(p, n, SEED);
    }
    default: return fmix64((uint64_t)TY_VEC_DATA(v, int64_t)[i] + SEED);
  }
}

static uint64_t hash_row_nested(const ty_vec_t *v, uint32_t i) {
  uint64_t h = (uint64_t)v->type->kind * SEED;
  if (v->type->kind == TY_STRUCT) {
    for (uint32_t c = 0; c < v->nchildren; c++) h = combine(h, hash_value(v->children[c], i));
  } else {
    for (int32_t e = v->offsets[i]; e < v->offsets[i + 1]; e++)
      for (uint32_t c = 0; c < v->nchildren; c++)
        h = combine(h, hash_value(v->children[c], (uint32_t)e));
    h = combine(h, (uint64_t)(v->offsets[i + 1] - v->offsets[i]));
  }
  return fmix64(h);
}

#define HASH_LOOP(expr)                                                               \
  do {                                                                                \
    for (uint32_t k = 0; k < n; k++) {                                                \
      uint32_t r = row_at(rows, k);                                                   \
      uint64_t x = nulls && ty_vec_is_null(v, r) ? NULL_HASH : fmix64((expr) + SEED); \
      out[k] = first ? x : combine(out[k], x);                                        \
    }                                                                                 \
  } while (0)

/* Folds the hashes of column v into out (first: sets them). */
static void hash_column(const ty_vec_t *v, const uint32_t *rows, uint32_t n, bool first,
                        uint64_t *out) {
  bool nulls = v->null_count != 0;
  switch (v->type->kind) {
    case TY_BOOLEAN: HASH_LOOP((uint64_t)v->data[r]); break;
    case TY_INT:
    case TY_DATE: HASH_LOOP((uint64_t)(int64_t)TY_VEC_DATA(v, int32_t)[r]); break;
    case TY_FLOAT: HASH_LOOP(canon_f64(TY_VEC_DATA(v, float)[r])); break;
    case TY_DOUBLE: HASH_LOOP(canon_f64(TY_VEC_DATA(v, double)[r])); break;
    case TY_LONG:
    case TY_TIME:
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS: HASH_LOOP((uint64_t)TY_VEC_DATA(v, int64_t)[r]); break;
    case TY_DECIMAL:
    case TY_UUID: {
      const uint64_t *d = (const uint64_t *)v->data;
      HASH_LOOP(d[2 * r] ^ fmix64(d[2 * r + 1]));
      break;
    }
    default:
      /* Strings, binary, fixed and nested values. */
      for (uint32_t k = 0; k < n; k++) {
        uint64_t x = hash_value(v, row_at(rows, k));
        out[k] = first ? x : combine(out[k], x);
      }
  }
}

void ex_ht_hash(const ex_ht_t *ht, ty_vec_t *const *cols, const uint32_t *rows, uint32_t n,
                uint64_t *out) {
  if (ht->nkeys == 0) {
    for (uint32_t k = 0; k < n; k++) out[k] = SEED;
    return;
  }
  for (uint32_t c = 0; c < ht->nkeys; c++) hash_column(cols[c], rows, n, c == 0, out);
  /* One column's hashes are final mixes already (fmix64, xxhash); only a
   * combination of several needs mixing again. */
  if (ht->nkeys > 1)
    for (uint32_t k = 0; k < n; k++) out[k] = fmix64(out[k]);
}

static bool equal_nested(const ty_vec_t *a, uint32_t i, const ty_vec_t *b, uint32_t j);

static bool equal_value(const ty_vec_t *a, uint32_t i, const ty_vec_t *b, uint32_t j) {
  bool na = ty_vec_is_null(a, i), nb = ty_vec_is_null(b, j);
  if (na || nb) return na && nb;
  switch (a->type->kind) {
    case TY_FLOAT: {
      float x = TY_VEC_DATA(a, float)[i], y = TY_VEC_DATA(b, float)[j];
      return x == y || (isnan(x) && isnan(y));
    }
    case TY_DOUBLE: {
      double x = TY_VEC_DATA(a, double)[i], y = TY_VEC_DATA(b, double)[j];
      return x == y || (isnan(x) && isnan(y));
    }
    case TY_STRUCT:
    case TY_LIST:
    case TY_MAP: return equal_nested(a, i, b, j);
    case TY_STRING:
    case TY_BINARY:
    case TY_UUID:
    case TY_FIXED: {
      size_t n, m;
      const uint8_t *p = ty_vec_get_bytes(a, i, &n), *q = ty_vec_get_bytes(b, j, &m);
      return n == m && (n == 0 || memcmp(p, q, n) == 0);
    }
    default: {
      size_t w = ty_value_width(a->type);
      return memcmp(a->data + (size_t)i * w, b->data + (size_t)j * w, w) == 0;
    }
  }
}

static bool equal_nested(const ty_vec_t *a, uint32_t i, const ty_vec_t *b, uint32_t j) {
  if (a->type->kind == TY_STRUCT) {
    for (uint32_t c = 0; c < a->nchildren; c++)
      if (!equal_value(a->children[c], i, b->children[c], j)) return false;
    return true;
  }
  int32_t n = a->offsets[i + 1] - a->offsets[i];
  if (n != b->offsets[j + 1] - b->offsets[j]) return false;
  for (int32_t e = 0; e < n; e++)
    for (uint32_t c = 0; c < a->nchildren; c++)
      if (!equal_value(a->children[c], (uint32_t)(a->offsets[i] + e), b->children[c],
                       (uint32_t)(b->offsets[j] + e)))
        return false;
  return true;
}

/* match[x] &= (row rows[cand_k[x]] of v equals group cand_g[x] of keys). */
#define CMP_LOOP(T, eq)                                               \
  do {                                                                \
    const T *a = (const T *)v->data, *b = (const T *)keys->data;      \
    for (uint32_t x = 0; x < m; x++) {                                \
      if (!match[x]) continue;                                        \
      uint32_t r = row_at(rows, cand_k[x]), g = cand_g[x];            \
      if (nulls) {                                                    \
        bool na = ty_vec_is_null(v, r), nb = ty_vec_is_null(keys, g); \
        if (na || nb) {                                               \
          match[x] = na && nb;                                        \
          continue;                                                   \
        }                                                             \
      }                                                               \
      T va = a[r], vb = b[g];                                         \
      match[x] = (eq);                                                \
    }                                                                 \
  } while (0)

static void compare_column(const ty_vec_t *v, const ty_vec_t *keys, const uint32_t *rows,
                           const uint32_t *cand_k, const uint32_t *cand_g, uint32_t m,
                           uint8_t *match) {
  bool nulls = v->null_count != 0 || keys->null_count != 0;
  switch (v->type->kind) {
    case TY_BOOLEAN: CMP_LOOP(uint8_t, va == vb); break;
    case TY_INT:
    case TY_DATE: CMP_LOOP(int32_t, va == vb); break;
    case TY_FLOAT: CMP_LOOP(float, va == vb || (isnan(va) && isnan(vb))); break;
    case TY_DOUBLE: CMP_LOOP(double, va == vb || (isnan(va) && isnan(vb))); break;
    case TY_LONG:
    case TY_TIME:
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS: CMP_LOOP(int64_t, va == vb); break;
    case TY_STRING:
    case TY_BINARY: {
      for (uint32_t x = 0; x < m; x++) {
        if (!match[x]) continue;
        uint32_t r = row_at(rows, cand_k[x]), g = cand_g[x];
        if (nulls) {
          bool na = ty_vec_is_null(v, r), nb = ty_vec_is_null(keys, g);
          if (na || nb) {
            match[x] = na && nb;
            continue;
          }
        }
        int32_t la = v->offsets[r + 1] - v->offsets[r],
                lb = keys->offsets[g + 1] - keys->offsets[g];
        match[x] = la == lb && (la == 0 || memcmp(v->heap + v->offsets[r],
                                                  keys->heap + keys->offsets[g], (size_t)la) == 0);
      }
      break;
    }
    default:
      for (uint32_t x = 0; x < m; x++)
        if (match[x]) match[x] = equal_value(v, row_at(rows, cand_k[x]), keys, cand_g[x]);
  }
}

ex_ht_t *ex_ht_new(const ty_type_t *const *types, uint32_t nkeys) {
  ex_ht_t *ht = fl_calloc(1, sizeof *ht);
  ht->nkeys = nkeys;
  ht->types = fl_calloc(nkeys ? nkeys : 1, sizeof *ht->types);
  ht->keys = fl_calloc(nkeys ? nkeys : 1, sizeof *ht->keys);
  ht->widths = fl_calloc(nkeys ? nkeys : 1, sizeof *ht->widths);
  for (uint32_t c = 0; c < nkeys; c++) {
    ht->types[c] = types[c];
    ht->widths[c] = ty_is_nested(types[c]) ? 0 : ty_value_width(types[c]);
    ht->keys[c] = ty_vec_new(types[c], 64);
  }
  ht->mask = 63;
  ht->slots = fl_calloc(ht->mask + 1, sizeof *ht->slots);
  return ht;
}

void ex_ht_free(ex_ht_t *ht) {
  if (!ht) return;
  for (uint32_t c = 0; c < ht->nkeys; c++) ty_vec_free(ht->keys[c]);
  fl_free(ht->keys);
  fl_free(ht->types);
  fl_free(ht->widths);
  fl_free(ht->hashes);
  fl_free(ht->slots);
  ex_ht_scratch_free(&ht->sc);
  fl_free(ht);
}

void ex_ht_clear(ex_ht_t *ht) {
  for (uint32_t c = 0; c < ht->nkeys; c++) ty_vec_reset(ht->keys[c]);
  ht->ngroups = 0;
  memset(ht->slots, 0, (ht->mask + 1) * sizeof *ht->slots);
}

static void reserve_scratch(ex_ht_scratch_t *sc, uint32_t n) {
  if (n <= sc->cap) return;
  sc->cap = n;
  sc->h = fl_realloc(sc->h, n * sizeof *sc->h);
  sc->pending = fl_realloc(sc->pending, n * sizeof(uint32_t));
  sc->slot_of = fl_realloc(sc->slot_of, n * sizeof(uint32_t));
  sc->cand_k = fl_realloc(sc->cand_k, n * sizeof(uint32_t));
  sc->cand_g = fl_realloc(sc->cand_g, n * sizeof(uint32_t));
  sc->new_rows = fl_realloc(sc->new_rows, n * sizeof(uint32_t));
  sc->match = fl_realloc(sc->match, n);
}

void ex_ht_scratch_free(ex_ht_scratch_t *sc) {
  fl_free(sc->h);
  fl_free(sc->pending);
  fl_free(sc->slot_of);
  fl_free(sc->cand_k);
  fl_free(sc->cand_g);
  fl_free(sc->new_rows);
  fl_free(sc->match);
  memset(sc, 0, sizeof *sc);
}

/*
 * Slots a table of `groups` groups should have. A probe for an absent key
 * walks until an empty slot, and every step past an occupied one is a
 * branch the CPU cannot predict; at most 1/8 full, the walk seldom steps
 * on, which halves the cost of mostly missing lookups (a join probing a
 * small build side). The extra slots are spent up to 8 MiB of slots
 * (SPARSE_SLOTS), about what a core's share of the caches holds (TPC-H
 * Q9's partsupp table of 43,000 keys, probed by 6 million lineitem rows,
 * took 153 ms at 1/3 full and 117 ms at 1/8); bigger tables are at most
 * half full, where memory counts more.
 */
#define SPARSE_SLOTS (1u << 20)
static uint64_t slots_for(uint64_t groups) {
  uint64_t sparse = groups * 8 < SPARSE_SLOTS ? groups * 8 : SPARSE_SLOTS;
  return sparse > groups * 2 ? sparse : groups * 2;
}

/* Grows the slot array to slots_for(groups). */
static void reserve_groups(ex_ht_t *ht, uint64_t groups) {
  if (groups > ht->hash_cap) {
    uint32_t cap = ht->hash_cap ? ht->hash_cap : 64;
    while (cap < groups) cap *= 2;
    ht->hashes = fl_realloc(ht->hashes, (size_t)cap * sizeof *ht->hashes);
    ht->hash_cap = cap;
  }
  uint64_t want = slots_for(groups);
  if (want <= ht->mask + 1) return;
  uint64_t nslots = ht->mask + 1;
  while (want > nslots) nslots *= 2;
  fl_free(ht->slots);
  ht->slots = fl_zalloc_written(nslots, sizeof *ht->slots);
  ht->mask = nslots - 1;
  for (uint32_t g = 0; g < ht->ngroups; g++) {
    uint64_t h = ht->hashes[g], s = h & ht->mask;
    while (ht->slots[s].gid1) s = (s + 1) & ht->mask;
    ht->slots[s] = (slot_t){g + 1, (uint32_t)(h >> 32)};
  }
}

/* Whether a key of type t is an integer of 4 or 8 bytes compared by its
 * bits (integers, dates, times, timestamps; not floats, whose -0.0 and
 * NaNs need SQL's equality). */
static bool int_key_type(const ty_type_t *t) {
  switch (t->kind) {
    case TY_INT:
    case TY_DATE:
    case TY_LONG:
    case TY_TIME:
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS: return true;
    default: return false;
  }
}

/* Whether the lookup can take the integer-key path: one or two integer
 * keys and no NULL among the input or the stored keys (a stored NULL is
 * a zeroed value that must not equal 0). */
static bool int_key_path(const ex_ht_t *ht, ty_vec_t *const *cols) {
  if (ht->nkeys == 0 || ht->nkeys > 2) return false;
  for (uint32_t c = 0; c < ht->nkeys; c++)
    if (!int_key_type(ht->types[c]) || cols[c]->null_count || ht->keys[c]->null_count) return false;
  return true;
}

static inline __attribute__((always_inline)) uint64_t ld_key(const uint8_t *d, int w, uint32_t i) {
  if (w == 4) {
    uint32_t x;
    memcpy(&x, d + (size_t)i * 4, 4);
    return x;
  }
  uint64_t x;
  memcpy(&x, d + (size_t)i * 8, 8);
  return x;
}

static inline __attribute__((always_inline)) void st_key(uint8_t *d, int w, uint32_t i,
                                                         uint64_t x) {
  if (w == 4) {
    uint32_t y = (uint32_t)x;
    memcpy(d + (size_t)i * 4, &y, 4);
  } else {
    memcpy(d + (size_t)i * 8, &x, 8);
  }
}

/*
 * The lookup of one or two integer keys of widths w0, w1 (w1 0 for one
 * key), in three passes over the batch so that the cache misses of a
 * large table overlap: (1) prefetch every row's home slot; (2) walk each
 * row to its first slot that is empty or carries its tag, and prefetch
 * that group's keys; (3) compare the keys in place, walking on from that
 * slot only after a tag collision, and insert at an empty slot. The walk
 * of pass 3 starts where pass 2 stopped: slots before it held other tags
 * and still do (groups are never removed), and a slot that pass 2 found
 * empty may since hold a group an earlier row of this batch created,
 * which the walk then compares like any other.
 */
static inline __attribute__((always_inline)) uint32_t probe_int(
    ex_ht_t *ht, ex_ht_scratch_t *sc, ty_vec_t *const *cols, const uint32_t *rows, uint32_t n,
    const uint64_t *hashes, uint32_t *gids, bool insert, const int w0, const int w1) {
  const uint32_t nk = w1 ? 2 : 1;
  uint32_t g0 = ht->ngroups;
  if (insert)
    for (uint32_t c = 0; c < nk; c++) ty_vec_reserve(ht->keys[c], g0 + n);
  const uint8_t *in0 = cols[0]->data, *in1 = w1 ? cols[1]->data : NULL;
  uint8_t *k0 = ht->keys[0]->data, *k1 = w1 ? ht->keys[1]->data : NULL;
  slot_t *slots = ht->slots;
  const uint64_t mask = ht->mask;
  uint32_t *slot_of = sc->slot_of, *cand = sc->cand_g;
  for (uint32_t k = 0; k < n; k++) {
    slot_of[k] = (uint32_t)(hashes[k] & mask);
    __builtin_prefetch(&slots[slot_of[k]]);
  }
  for (uint32_t k = 0; k < n; k++) {
    uint64_t s = slot_of[k];
    uint32_t tag = (uint32_t)(hashes[k] >> 32);
    while (slots[s].gid1 && slots[s].tag != tag) s = (s + 1) & mask;
    slot_of[k] = (uint32_t)s;
    cand[k] = slots[s].gid1;
    if (cand[k]) {
      __builtin_prefetch(k0 + (size_t)(cand[k] - 1) * w0);
      if (w1) __builtin_prefetch(k1 + (size_t)(cand[k] - 1) * w1);
    }
  }
  for (uint32_t k = 0; k < n; k++) {
    if (!insert && !cand[k]) {
      gids[k] = EX_HT_MISSING;
      continue;
    }
    uint32_t r = row_at(rows, k);
    uint64_t x0 = ld_key(in0, w0, r), x1 = w1 ? ld_key(in1, w1, r) : 0;
    uint32_t tag = (uint32_t)(hashes[k] >> 32);
    uint64_t s = slot_of[k];
    for (;;) {
      slot_t *e = &slots[s];
      if (!e->gid1) {
        if (!insert) {
          gids[k] = EX_HT_MISSING;
          break;
        }
        uint32_t g = ht->ngroups++;
        e->gid1 = g + 1;
        e->tag = tag;
        ht->hashes[g] = hashes[k];
        st_key(k0, w0, g, x0);
        if (w1) st_key(k1, w1, g, x1);
        gids[k] = g;
        break;
      }
      uint32_t g = e->gid1 - 1;
      if (e->tag == tag && ld_key(k0, w0, g) == x0 && (!w1 || ld_key(k1, w1, g) == x1)) {
        gids[k] = g;
        break;
      }
      s = (s + 1) & mask;
    }
  }
  for (uint32_t c = 0; c < nk; c++) {
    ty_vec_t *kv = ht->keys[c];
    for (uint32_t g = g0; g < ht->ngroups; g++) kv->validity[g >> 3] |= (uint8_t)(1u << (g & 7));
    kv->len = ht->ngroups;
  }
  return ht->ngroups - g0;
}

/* probe_int with the key widths as constants, so each form compiles to
 * plain loads and compares. */
static uint32_t probe_int_any(ex_ht_t *ht, ex_ht_scratch_t *sc, ty_vec_t *const *cols,
                              const uint32_t *rows, uint32_t n, const uint64_t *hashes,
                              uint32_t *gids, bool insert) {
  int w0 = (int)ht->widths[0], w1 = ht->nkeys == 2 ? (int)ht->widths[1] : 0;
#define PROBE_INT_W(A, B) \
  if (w0 == A && w1 == B) return probe_int(ht, sc, cols, rows, n, hashes, gids, insert, A, B);
  PROBE_INT_W(4, 0)
  PROBE_INT_W(8, 0)
  PROBE_INT_W(4, 4)
  PROBE_INT_W(4, 8)
  PROBE_INT_W(8, 4)
  PROBE_INT_W(8, 8)
#undef PROBE_INT_W
  abort(); /* int_key_path admits only these widths */
}

/* Lookups write only sc (and, when inserting, the table). */
static uint32_t probe(ex_ht_t *ht, ex_ht_scratch_t *sc, ty_vec_t *const *cols, const uint32_t *rows,
                      uint32_t n, const uint64_t *hashes, uint32_t *gids, bool insert) {
  if (n == 0) return 0;
  reserve_scratch(sc, n);
  if (!hashes) {
    ex_ht_hash(ht, cols, rows, n, sc->h);
    hashes = sc->h;
  }
  if (insert) reserve_groups(ht, (uint64_t)ht->ngroups + n);
  if (int_key_path(ht, cols)) return probe_int_any(ht, sc, cols, rows, n, hashes, gids, insert);
  uint32_t *pending = sc->pending, *slot_of = sc->slot_of;
  uint32_t npending = n, created = 0;
  /* Touch every row's slot before probing: with large tables each probe
   * is a cache miss, and issuing them together overlaps their latency. */
  for (uint32_t k = 0; k < n; k++) {
    pending[k] = k;
    slot_of[k] = (uint32_t)(hashes[k] & ht->mask);
    __builtin_prefetch(&ht->slots[slot_of[k]]);
  }
  while (npending) {
    uint32_t ncand = 0, nnew = 0;
    for (uint32_t p = 0; p < npending; p++) {
      uint32_t k = pending[p];
      uint64_t s = slot_of[k];
      uint32_t tag = (uint32_t)(hashes[k] >> 32);
      for (;;) {
        slot_t *e = &ht->slots[s];
        if (!e->gid1) {
          if (!insert) {
            gids[k] = EX_HT_MISSING;
            break;
          }
          uint32_t g = ht->ngroups++;
          e->gid1 = g + 1;
          e->tag = tag;
          ht->hashes[g] = hashes[k];
          gids[k] = g;
          sc->new_rows[nnew++] = row_at(rows, k);
          created++;
          break;
        }
        if (e->tag == tag) {
          sc->cand_k[ncand] = k;
          sc->cand_g[ncand++] = e->gid1 - 1;
          for (uint32_t c = 0; c < ht->nkeys; c++)
            if (ht->widths[c])
              __builtin_prefetch(ht->keys[c]->data + (size_t)(e->gid1 - 1) * ht->widths[c]);
          slot_of[k] = (uint32_t)s;
          break;
        }
        s = (s + 1) & ht->mask;
      }
    }
    for (uint32_t c = 0; c < ht->nkeys && nnew; c++)
      ex_vec_gather(ht->keys[c], cols[c], sc->new_rows, nnew);
    memset(sc->match, 1, ncand);
    for (uint32_t c = 0; c < ht->nkeys && ncand; c++)
      compare_column(cols[c], ht->keys[c], rows, sc->cand_k, sc->cand_g, ncand, sc->match);
    npending = 0;
    for (uint32_t x = 0; x < ncand; x++) {
      uint32_t k = sc->cand_k[x];
      if (sc->match[x]) {
        gids[k] = sc->cand_g[x];
      } else {
        slot_of[k] = (uint32_t)((slot_of[k] + 1) & ht->mask);
        pending[npending++] = k;
      }
    }
  }
  return created;
}

uint32_t ex_ht_find_or_insert(ex_ht_t *ht, ty_vec_t *const *cols, const uint32_t *rows, uint32_t n,
                              const uint64_t *hashes, uint32_t *gids) {
  return probe(ht, &ht->sc, cols, rows, n, hashes, gids, true);
}

void ex_ht_find(ex_ht_t *ht, ty_vec_t *const *cols, const uint32_t *rows, uint32_t n,
                const uint64_t *hashes, uint32_t *gids) {
  probe(ht, &ht->sc, cols, rows, n, hashes, gids, false);
}

void ex_ht_find_shared(const ex_ht_t *ht, ex_ht_scratch_t *sc, ty_vec_t *const *cols,
                       const uint32_t *rows, uint32_t n, const uint64_t *hashes, uint32_t *gids) {
  /* Without inserting, probe() reads the table and writes only sc. */
  probe((ex_ht_t *)ht, sc, cols, rows, n, hashes, gids, false);
}

uint32_t ex_ht_groups(const ex_ht_t *ht) { return ht->ngroups; }
const ty_vec_t *ex_ht_keys(const ex_ht_t *ht, uint32_t c) { return ht->keys[c]; }
uint64_t ex_ht_group_hash(const ex_ht_t *ht, uint32_t g) { return ht->hashes[g]; }

size_t ex_ht_bytes(const ex_ht_t *ht) {
  size_t n = sizeof *ht + (ht->mask + 1) * sizeof(slot_t) + (size_t)ht->hash_cap * 8 +
             (size_t)ht->sc.cap * 29;
  for (uint32_t c = 0; c < ht->nkeys; c++) n += ex_vec_bytes(ht->keys[c]);
  return n;
}
