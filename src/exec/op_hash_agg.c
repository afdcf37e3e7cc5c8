/*
 * op_hash_agg.c - hash aggregation.
 *
 * Algorithm. Every input batch is aggregated into one group hash table
 * (ex_hash_table.h): the batch's key columns are looked up as a whole,
 * giving a group number per live row, and each aggregate folds its
 * argument column into the states of those groups with one call per
 * batch. States sit row-wise in one array, `stride` bytes per group, the
 * aggregates' states side by side. FILTER (WHERE c) narrows the row list
 * an aggregate sees to the rows where c is true.
 *
 * Grouping sets run the same table once per set: the key columns outside
 * the set are replaced by a NULL column and a constant column holding the
 * set's index is added as the last key, so the groups of different sets
 * never meet. Without keys (a global aggregate) the table has no key
 * columns and every row lands in group 0; a global aggregate over no rows
 * still produces its one row (count 0, others NULL), and so does every
 * empty grouping set, as SQL requires.
 *
 * Spilling. After each batch the operator reserves its footprint (table,
 * states, and heap held by states) against the query budget. When the
 * reservation fails, the whole table is written out as partial states:
 * each group goes, by 4 bits of its key hash, to one of 16 partition files
 * as a row of its keys plus one binary column with the serialized states
 * of all aggregates. The table is then emptied and aggregation continues.
 * At the end of input, if anything was spilled, the table is spilled once
 * more and each partition is merged on its own: its rows are looked up in
 * a fresh table, new groups take their deserialized states, existing ones
 * combine. A partition that itself outgrows the budget is split again by
 * the next 4 hash bits into 16 sub-partitions (recursive repartitioning),
 * down to EX_HASH_AGG_MAX_LEVEL levels, below which the budget is ignored
 * rather than failing (only a pathological key distribution gets there).
 * Every group's states are combined exactly once per spilled fragment, so
 * the results equal those of an in-memory run.
 *
 * Two phases (parallel aggregation, see op_hash_agg.h). A PARTIAL operator
 * runs the same table but emits each group as its keys and serialized
 * states, and where COMPLETE would spill it emits its table downstream
 * and empties it: partial results need not be unique per key. A FINAL
 * operator merges such rows exactly as it merges a spilled partition
 * (merge_batch), so it spills, repartitions and finalizes like COMPLETE.
 * Every PARTIAL operator emits the groups of empty grouping sets (the
 * global aggregate's one group) even over no rows, and FINAL operators
 * never add them: so with P finals the group arrives at exactly one, and
 * exists even when no lane saw a row.
 *
 * States.
 *   BUILDING   consuming input; the table holds the groups since the last
 *              spill (every group when nothing spilled).
 *   MERGING    end of input after spilling: partitions are read back and
 *              merged one at a time, each emitted when complete.
 *   FINISHED   every group emitted and finish() passed downstream; further
 *              pushes are an error.
 * checkpoint() in BUILDING without spill files writes the table (keys and
 * serialized states); restore() merges such a checkpoint into the table.
 */
#include "exec/op_hash_agg.h"

#include <stdlib.h>

#include "base/alloc.h"
#include "exec/ex_hash_table.h"
#include "exec/ex_spill.h"
#include "exec/ex_vec.h"

#define EX_HASH_AGG_FANOUT 16
#define EX_HASH_AGG_MAX_LEVEL 8
#define EX_HASH_AGG_MIN_SPILL 64

enum { ST_BUILDING, ST_MERGING, ST_FINISHED };

typedef struct hash_agg {
  ex_op_t op;
  ex_opctx_t *ctx;
  int state;
  ex_agg_phase_t phase;
  const ty_schema_t *in;
  uint32_t nkeys, nsets, naggs, ntable_keys;
  uint32_t *key_cols;
  uint64_t *sets;
  ex_agg_spec_t *aggs;
  size_t *offsets; /* per aggregate, within a group's states */
  bool *dup;       /* per aggregate: shares an earlier one's state */
  size_t stride;
  ex_ht_t *ht;
  const ty_type_t **ktypes; /* table key types */
  uint8_t *states;
  uint32_t states_cap; /* groups */
  uint32_t ninit;      /* groups whose states are initialised */
  size_t reserved;     /* bytes reserved against the budget */
  /* Per batch scratch. */
  ty_vec_t **null_cols; /* per key: an all-NULL column */
  ty_vec_t *set_col;    /* the grouping set index column */
  ty_vec_t **probe_cols;
  uint32_t *rows, *gids, *frows, *fgids, scratch_cap;
  uint8_t *tmp_state;
  /* Few groups: packed small keys to their groups (NULL: not used). */
  struct key_cache *kc;
  uint32_t *miss_rows, *miss_k, *miss_gids, *srows, *sgids;
  /* Spilling. */
  const ty_schema_t *spill_schema; /* table keys + "states" binary */
  ty_batch_t *spill_batch;
  ex_spill_dir_t *dir;
  ex_spill_file_t *parts[EX_HASH_AGG_FANOUT]; /* level-0 partitions */
  bool spilled;
  uint64_t rows_seen;
  fl_buf_t sbuf;
  ty_batch_t *out_batch;
  ex_hash_agg_stats_t stats;
} hash_agg_t;

static size_t footprint(hash_agg_t *h) {
  int64_t heap = 0;
  for (uint32_t i = 0; i < h->naggs; i++) heap += h->aggs[i].agg->heap_bytes;
  return ex_ht_bytes(h->ht) + (size_t)h->states_cap * h->stride + (size_t)(heap > 0 ? heap : 0);
}

static void release_all(hash_agg_t *h) {
  ex_mem_release(h->ctx->mem, h->reserved);
  h->reserved = 0;
}

/* Makes room for the states of `groups` groups and initialises new ones. */
static void init_states(hash_agg_t *h, uint32_t groups) {
  if (groups > h->states_cap) {
    uint32_t cap = h->states_cap ? h->states_cap : 64;
    while (cap < groups) cap *= 2;
    h->states = fl_realloc(h->states, (size_t)cap * h->stride);
    h->states_cap = cap;
  }
  for (uint32_t g = h->ninit; g < groups; g++)
    for (uint32_t i = 0; i < h->naggs; i++)
      h->aggs[i].agg->fn->init(h->aggs[i].agg, h->states + (size_t)g * h->stride + h->offsets[i]);
  if (groups > h->ninit) h->ninit = groups;
}

static void destroy_states(hash_agg_t *h) {
  for (uint32_t i = 0; i < h->naggs; i++) {
    ex_agg_t *a = h->aggs[i].agg;
    if (!a->fn->destroy) continue;
    for (uint32_t g = 0; g < h->ninit; g++)
      a->fn->destroy(a, h->states + (size_t)g * h->stride + h->offsets[i]);
  }
  h->ninit = 0;
}

/*
 * The few-groups path. Most GROUP BYs with few groups have small keys
 * (flags, dates, short codes): a row whose key columns are all non-null
 * and fixed-width integers or strings of at most 15 bytes is packed into
 * 16 bytes (integers as they are, a string as its length byte and its
 * bytes; the layout depends only on the column types, so equal packings
 * mean equal keys) and looked up in a small direct cache of the groups
 * seen so far. Only the rows it misses go to the hash table, whose group
 * numbers the cache then remembers, so the groups and their numbers are
 * exactly the table's. The cache is emptied whenever the table is, and
 * switched off for good once the table holds more groups than it keeps.
 */
#define KC_SLOTS 1024 /* power of two */
#define KC_MAX_GROUPS 256

typedef struct key_cache {
  uint64_t k0[KC_SLOTS], k1[KC_SLOTS];
  uint32_t gid[KC_SLOTS];
  uint8_t used[KC_SLOTS];
  bool off;
} key_cache_t;

static bool kc_type_ok(const ty_type_t *t) {
  switch (t->kind) {
    case TY_BOOLEAN:
    case TY_INT:
    case TY_DATE:
    case TY_LONG:
    case TY_TIME:
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS:
    case TY_STRING:
    case TY_BINARY: return true;
    default: return false;
  }
}

/* Packs row r's key into k[0..1]; false when it does not fit. The key is
 * built in a 128-bit register: bytes stored and reloaded as words would
 * stall every row on store forwarding. */
static inline __attribute__((always_inline)) bool kc_pack(const hash_agg_t *h,
                                                          ty_vec_t *const *cols, uint32_t r,
                                                          uint64_t k[2]) {
  unsigned __int128 key = 0;
  uint32_t at = 0;
  for (uint32_t c = 0; c < h->nkeys; c++) {
    const ty_vec_t *v = cols[c];
    if (v->null_count && ty_vec_is_null(v, r)) return false;
    unsigned __int128 x;
    uint32_t w;
    if (v->offsets) {
      int32_t b = v->offsets[r], n = v->offsets[r + 1] - b;
      if (n > 15) return false;
      w = (uint32_t)n + 1;
      x = (unsigned)n;
      for (int32_t j = 0; j < n; j++) x |= (unsigned __int128)v->heap[b + j] << (8 * (j + 1));
    } else {
      w = (uint32_t)ty_value_width(v->type);
      switch (w) {
        case 1: x = v->data[r]; break;
        case 4: x = ((const uint32_t *)v->data)[r]; break;
        default: {
          uint64_t q;
          memcpy(&q, v->data + (size_t)r * 8, 8);
          x = q;
        }
      }
    }
    if (at + w > 16) return false;
    key |= x << (8 * at);
    at += w;
  }
  k[0] = (uint64_t)key;
  k[1] = (uint64_t)(key >> 64);
  return true;
}

static inline uint32_t kc_slot(const uint64_t k[2]) {
  uint64_t x = (k[0] ^ (k[1] * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
  return (uint32_t)(x >> 40) & (KC_SLOTS - 1);
}

static void kc_clear(hash_agg_t *h) {
  if (h->kc) memset(h->kc->used, 0, sizeof h->kc->used);
}

static void kc_put(key_cache_t *kc, const uint64_t k[2], uint32_t gid) {
  for (uint32_t s = kc_slot(k), p = 0; p < KC_SLOTS; p++, s = (s + 1) & (KC_SLOTS - 1)) {
    if (kc->used[s] && (kc->k0[s] != k[0] || kc->k1[s] != k[1])) continue;
    kc->used[s] = 1;
    kc->k0[s] = k[0];
    kc->k1[s] = k[1];
    kc->gid[s] = gid;
    return;
  }
}

/* gids of rows[0..n) through the cache, the misses through the table. */
static void kc_find_or_insert(hash_agg_t *h, uint32_t n) {
  key_cache_t *kc = h->kc;
  ty_vec_t *const *cols = h->probe_cols;
  uint32_t m = 0;
  for (uint32_t k = 0; k < n; k++) {
    uint32_t r = h->rows[k];
    uint64_t key[2];
    if (kc_pack(h, cols, r, key)) {
      uint32_t s = kc_slot(key);
      while (kc->used[s]) {
        if (kc->k0[s] == key[0] && kc->k1[s] == key[1]) break;
        s = (s + 1) & (KC_SLOTS - 1);
      }
      if (kc->used[s]) {
        h->gids[k] = kc->gid[s];
        continue;
      }
    }
    h->miss_rows[m] = r;
    h->miss_k[m++] = k;
  }
  if (!m) return;
  ex_ht_find_or_insert(h->ht, cols, h->miss_rows, m, NULL, h->miss_gids);
  for (uint32_t j = 0; j < m; j++) h->gids[h->miss_k[j]] = h->miss_gids[j];
  if (ex_ht_groups(h->ht) > KC_MAX_GROUPS) {
    kc->off = true;
    return;
  }
  for (uint32_t j = 0; j < m; j++) {
    uint64_t key[2];
    if (kc_pack(h, cols, h->miss_rows[j], key)) kc_put(kc, key, h->miss_gids[j]);
  }
}

static void reserve_scratch(hash_agg_t *h, uint32_t n) {
  if (n <= h->scratch_cap) return;
  h->scratch_cap = n;
  h->miss_rows = fl_realloc(h->miss_rows, n * sizeof *h->miss_rows);
  h->miss_k = fl_realloc(h->miss_k, n * sizeof *h->miss_k);
  h->miss_gids = fl_realloc(h->miss_gids, n * sizeof *h->miss_gids);
  h->srows = fl_realloc(h->srows, n * sizeof *h->srows);
  h->sgids = fl_realloc(h->sgids, n * sizeof *h->sgids);
  h->rows = fl_realloc(h->rows, n * sizeof *h->rows);
  h->gids = fl_realloc(h->gids, n * sizeof *h->gids);
  h->frows = fl_realloc(h->frows, n * sizeof *h->frows);
  h->fgids = fl_realloc(h->fgids, n * sizeof *h->fgids);
  for (uint32_t c = 0; c < h->nkeys; c++) {
    ty_vec_reset(h->null_cols[c]);
    ex_vec_append_nulls(h->null_cols[c], n);
  }
}

/* Folds rows[0..n) of batch b into groups gids[0..n). */
/*
 * With few groups (the key cache on, so at most KC_MAX_GROUPS), the rows
 * are ordered by group with a stable counting sort before the aggregates
 * run: each group's rows then come in one run, in their arrival order, so
 * an update can keep a group's state in registers along the run (sum,
 * count) and every order-sensitive aggregate sees the same order as
 * without the sort.
 */
static void sort_by_group(hash_agg_t *h, const uint32_t *rows, const uint32_t *gids, uint32_t n) {
  uint32_t at[KC_MAX_GROUPS + 2] = {0};
  uint32_t ng = ex_ht_groups(h->ht);
  for (uint32_t k = 0; k < n; k++) at[gids[k] + 1]++;
  for (uint32_t g = 1; g <= ng; g++) at[g] += at[g - 1];
  for (uint32_t k = 0; k < n; k++) {
    uint32_t j = at[gids[k]]++;
    h->srows[j] = rows[k];
    h->sgids[j] = gids[k];
  }
}

static int update_aggs(hash_agg_t *h, const ty_batch_t *b, const uint32_t *rows,
                       const uint32_t *gids, uint32_t n, fl_err_t *err) {
  if (h->kc && !h->kc->off && ex_ht_groups(h->ht) <= KC_MAX_GROUPS && n >= 64) {
    sort_by_group(h, rows, gids, n);
    rows = h->srows;
    gids = h->sgids;
  }
  /* The states of a batch's groups are scattered over a large array; fetch
   * them all before the first aggregate walks them. */
  if (h->ninit > 4096)
    for (uint32_t k = 0; k < n; k++) __builtin_prefetch(h->states + (size_t)gids[k] * h->stride, 1);
  for (uint32_t i = 0; i < h->naggs; i++) {
    const ex_agg_spec_t *s = &h->aggs[i];
    if (h->dup[i]) continue;
    const uint32_t *r = rows, *g = gids;
    uint32_t m = n;
    if (s->filter_col >= 0) {
      const ty_vec_t *f = b->cols[s->filter_col];
      m = 0;
      for (uint32_t k = 0; k < n; k++)
        if (ty_vec_is_valid(f, rows[k]) && f->data[rows[k]]) {
          h->frows[m] = rows[k];
          h->fgids[m++] = gids[k];
        }
      r = h->frows;
      g = h->fgids;
    }
    if (!m) continue;
    const ty_vec_t *arg = s->arg_col >= 0 ? b->cols[s->arg_col] : NULL;
    int rc = s->agg->fn->update(s->agg, h->states + h->offsets[i], h->stride, g, arg, r, m, err);
    if (rc) return fl_err_prefix(err, "%s: ", s->agg->name);
  }
  return FL_OK;
}

/* Points probe_cols at the table keys of grouping set `set` (or all keys). */
static void set_probe_cols(hash_agg_t *h, const ty_batch_t *b, uint32_t set, uint32_t n) {
  for (uint32_t c = 0; c < h->nkeys; c++) {
    bool in = h->nsets == 0 || (h->sets[set] >> c) & 1;
    h->probe_cols[c] = in ? b->cols[h->key_cols[c]] : h->null_cols[c];
  }
  if (h->nsets) {
    ty_vec_reset(h->set_col);
    for (uint32_t k = 0; k < n; k++) ty_vec_append_i64(h->set_col, set);
    h->probe_cols[h->nkeys] = h->set_col;
  }
}

static int spill_table(hash_agg_t *h, ex_spill_file_t **files, uint32_t level, fl_err_t *err);
static int emit_partial(hash_agg_t *h, fl_err_t *err);
static int merge_batch(hash_agg_t *h, const ty_batch_t *sb, fl_err_t *err);

/* Reserves the current footprint; spills the table when that fails. */
static int account(hash_agg_t *h, ex_spill_file_t **files, uint32_t level, bool *spilled,
                   fl_err_t *err) {
  size_t now = footprint(h);
  if (now <= h->reserved) {
    ex_mem_release(h->ctx->mem, h->reserved - now);
    h->reserved = now;
    return FL_OK;
  }
  if (ex_mem_reserve(h->ctx->mem, now - h->reserved)) {
    h->reserved = now;
    return FL_OK;
  }
  /* A global aggregate has one group: there is nothing to partition. A
   * table of few groups is not split either, so that a budget below the
   * table's fixed overhead cannot split partitions without end. */
  if (h->ntable_keys == 0 || level >= EX_HASH_AGG_MAX_LEVEL ||
      ex_ht_groups(h->ht) < EX_HASH_AGG_MIN_SPILL) {
    ex_mem_force(h->ctx->mem, now - h->reserved);
    h->reserved = now;
    return FL_OK;
  }
  int rc;
  if (h->phase == EX_AGG_PARTIAL) {
    /* Partial states need not be complete: hand them on instead. */
    if ((rc = emit_partial(h, err))) return rc;
    now = footprint(h);
    ex_mem_release(h->ctx->mem, h->reserved);
    ex_mem_force(h->ctx->mem, now);
    h->reserved = now;
    return FL_OK;
  }
  rc = spill_table(h, files, level, err);
  if (rc) return rc;
  if (spilled) *spilled = true;
  now = footprint(h);
  ex_mem_release(h->ctx->mem, h->reserved);
  ex_mem_force(h->ctx->mem, now);
  h->reserved = now;
  return FL_OK;
}

static int agg_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  hash_agg_t *h = (hash_agg_t *)op;
  if (h->state != ST_BUILDING)
    return fl_err_set(err, FL_EINTERNAL, "hash aggregation: batch pushed after finish");
  uint32_t n = ty_batch_live(b);
  if (!n) return FL_OK;
  if (h->phase == EX_AGG_FINAL) {
    /* Partial states: merged like a spilled partition. */
    const ty_batch_t *in = b;
    if (b->sel) {
      ty_batch_reset(h->spill_batch);
      for (uint32_t c = 0; c <= h->ntable_keys; c++)
        ex_vec_gather(h->spill_batch->cols[c], b->cols[c], b->sel, n);
      ty_batch_seal(h->spill_batch);
      in = h->spill_batch;
    }
    h->rows_seen += n;
    h->stats.rows_in += n;
    int rc = merge_batch(h, in, err);
    if (rc) return rc;
    bool spilled = false;
    rc = account(h, h->parts, 0, &spilled, err);
    if (spilled) h->spilled = true;
    return rc;
  }
  /* Rows of the selection index the whole batch, and so do the NULL
   * columns standing in for keys outside a grouping set. */
  reserve_scratch(h, b->nrows);
  for (uint32_t k = 0; k < n; k++) h->rows[k] = b->sel ? b->sel[k] : k;
  h->rows_seen += n;
  h->stats.rows_in += n;
  uint32_t nsets = h->nsets ? h->nsets : 1;
  for (uint32_t s = 0; s < nsets; s++) {
    set_probe_cols(h, b, s, b->nrows);
    if (h->kc && !h->kc->off)
      kc_find_or_insert(h, n);
    else
      ex_ht_find_or_insert(h->ht, h->probe_cols, h->rows, n, NULL, h->gids);
    init_states(h, ex_ht_groups(h->ht));
    int rc = update_aggs(h, b, h->rows, h->gids, n, err);
    if (rc) return rc;
  }
  bool spilled = false;
  int rc = account(h, h->parts, 0, &spilled, err);
  if (spilled) h->spilled = true;
  return rc;
}

/* Writes every group of the table to files[partition] and empties it. */
static int spill_table(hash_agg_t *h, ex_spill_file_t **files, uint32_t level, fl_err_t *err) {
  int rc;
  if (!h->dir && (rc = ex_spill_dir_open(h->ctx->spill_dir, &h->dir, err))) return rc;
  uint32_t ngroups = ex_ht_groups(h->ht);
  uint32_t shift = 60 - 4 * level;
  uint32_t *part_rows[EX_HASH_AGG_FANOUT];
  uint32_t part_n[EX_HASH_AGG_FANOUT];
  for (int p = 0; p < EX_HASH_AGG_FANOUT; p++)
    part_rows[p] = fl_malloc(TY_BATCH_ROWS * sizeof(uint32_t));
  rc = FL_OK;
  for (uint32_t g0 = 0; g0 < ngroups && !rc; g0 += TY_BATCH_ROWS) {
    uint32_t end = ngroups - g0 < TY_BATCH_ROWS ? ngroups : g0 + TY_BATCH_ROWS;
    memset(part_n, 0, sizeof part_n);
    for (uint32_t g = g0; g < end; g++) {
      uint32_t p = (uint32_t)(ex_ht_group_hash(h->ht, g) >> shift) & (EX_HASH_AGG_FANOUT - 1);
      part_rows[p][part_n[p]++] = g;
    }
    for (uint32_t p = 0; p < EX_HASH_AGG_FANOUT && !rc; p++) {
      if (!part_n[p]) continue;
      if (!files[p] && (rc = ex_spill_create(h->dir, &files[p], err))) break;
      ty_batch_t *sb = h->spill_batch;
      ty_batch_reset(sb);
      for (uint32_t c = 0; c < h->ntable_keys; c++)
        ex_vec_gather(sb->cols[c], ex_ht_keys(h->ht, c), part_rows[p], part_n[p]);
      ty_vec_t *blob = sb->cols[h->ntable_keys];
      for (uint32_t k = 0; k < part_n[p]; k++) {
        fl_buf_clear(&h->sbuf);
        const uint8_t *st = h->states + (size_t)part_rows[p][k] * h->stride;
        for (uint32_t i = 0; i < h->naggs; i++)
          h->aggs[i].agg->fn->serialize(h->aggs[i].agg, st + h->offsets[i], &h->sbuf);
        ty_vec_append_bytes(blob, h->sbuf.data, h->sbuf.len);
      }
      ty_batch_seal(sb);
      rc = ex_spill_write(files[p], sb, err);
    }
  }
  for (int p = 0; p < EX_HASH_AGG_FANOUT; p++) fl_free(part_rows[p]);
  if (rc) return rc;
  h->stats.spills++;
  h->stats.spilled_groups += ngroups;
  if (level > h->stats.max_level) h->stats.max_level = level;
  /* Give the memory back, not just the groups: the budget is the point. */
  destroy_states(h);
  fl_free(h->states);
  h->states = NULL;
  h->states_cap = 0;
  ex_ht_free(h->ht);
  h->ht = ex_ht_new(h->ktypes, h->ntable_keys);
  kc_clear(h);
  return FL_OK;
}

/* Merges a batch of spilled (or checkpointed) groups into the table. */
static int merge_batch(hash_agg_t *h, const ty_batch_t *sb, fl_err_t *err) {
  uint32_t n = sb->nrows;
  reserve_scratch(h, n);
  uint32_t before = ex_ht_groups(h->ht);
  ex_ht_find_or_insert(h->ht, sb->cols, NULL, n, NULL, h->gids);
  init_states(h, ex_ht_groups(h->ht));
  const ty_vec_t *blob = sb->cols[h->ntable_keys];
  for (uint32_t k = 0; k < n; k++) {
    size_t len;
    const uint8_t *p = ty_vec_get_bytes(blob, k, &len);
    fl_rd_t r;
    fl_rd_init(&r, p, len, "spilled aggregate state");
    uint8_t *st = h->states + (size_t)h->gids[k] * h->stride;
    /* Keys are unique within one spilled batch, so a group created by this
     * batch takes its state directly. */
    bool fresh = h->gids[k] >= before;
    for (uint32_t i = 0; i < h->naggs; i++) {
      ex_agg_t *a = h->aggs[i].agg;
      int rc;
      if (fresh) {
        rc = a->fn->deserialize(a, st + h->offsets[i], &r, err);
      } else {
        uint8_t *tmp = h->tmp_state + h->offsets[i];
        a->fn->init(a, tmp);
        rc = a->fn->deserialize(a, tmp, &r, err);
        if (!rc && !h->dup[i]) rc = a->fn->combine(a, st + h->offsets[i], tmp, err);
        if (a->fn->destroy) a->fn->destroy(a, tmp);
      }
      if (rc) return fl_err_prefix(err, "%s: ", a->name);
    }
    if (fl_rd_left(&r))
      return fl_err_set(err, FL_ECORRUPT,
                        "spilled aggregate state of row %u has %zu bytes left over", k,
                        fl_rd_left(&r));
  }
  return FL_OK;
}

/* PARTIAL: emits every group as keys plus serialized states, then
 * empties the table and gives its memory back. */
static int emit_partial(hash_agg_t *h, fl_err_t *err) {
  uint32_t ngroups = ex_ht_groups(h->ht);
  ty_batch_t *sb = h->spill_batch;
  uint32_t *rows = fl_malloc(TY_BATCH_ROWS * sizeof *rows);
  int rc = FL_OK;
  for (uint32_t g0 = 0; g0 < ngroups && !rc; g0 += TY_BATCH_ROWS) {
    uint32_t n = ngroups - g0 < TY_BATCH_ROWS ? ngroups - g0 : TY_BATCH_ROWS;
    ty_batch_reset(sb);
    for (uint32_t k = 0; k < n; k++) rows[k] = g0 + k;
    for (uint32_t c = 0; c < h->ntable_keys; c++)
      ex_vec_gather(sb->cols[c], ex_ht_keys(h->ht, c), rows, n);
    for (uint32_t k = 0; k < n; k++) {
      fl_buf_clear(&h->sbuf);
      const uint8_t *st = h->states + (size_t)(g0 + k) * h->stride;
      for (uint32_t i = 0; i < h->naggs; i++)
        h->aggs[i].agg->fn->serialize(h->aggs[i].agg, st + h->offsets[i], &h->sbuf);
      ty_vec_append_bytes(sb->cols[h->ntable_keys], h->sbuf.data, h->sbuf.len);
    }
    ty_batch_seal(sb);
    h->stats.groups_out += n;
    rc = ex_op_emit(&h->op, sb, err);
  }
  fl_free(rows);
  destroy_states(h);
  fl_free(h->states);
  h->states = NULL;
  h->states_cap = 0;
  ex_ht_free(h->ht);
  h->ht = ex_ht_new(h->ktypes, h->ntable_keys);
  kc_clear(h);
  return rc;
}

/* Emits every group of the table, then empties it. */
static int emit_table(hash_agg_t *h, fl_err_t *err) {
  uint32_t ngroups = ex_ht_groups(h->ht);
  ty_batch_t *ob = h->out_batch;
  uint32_t *rows = fl_malloc(TY_BATCH_ROWS * sizeof *rows);
  int rc = FL_OK;
  for (uint32_t g0 = 0; g0 < ngroups && !rc; g0 += TY_BATCH_ROWS) {
    uint32_t n = ngroups - g0 < TY_BATCH_ROWS ? ngroups - g0 : TY_BATCH_ROWS;
    ty_batch_reset(ob);
    for (uint32_t k = 0; k < n; k++) rows[k] = g0 + k;
    for (uint32_t c = 0; c < h->ntable_keys; c++)
      ex_vec_gather(ob->cols[c], ex_ht_keys(h->ht, c), rows, n);
    for (uint32_t i = 0; i < h->naggs && !rc; i++) {
      ex_agg_t *a = h->aggs[i].agg;
      rc = a->fn->finalize(a, h->states + (size_t)g0 * h->stride + h->offsets[i], h->stride, n,
                           ob->cols[h->ntable_keys + i], err);
      if (rc) fl_err_prefix(err, "%s: ", a->name);
    }
    if (rc) break;
    ty_batch_seal(ob);
    h->stats.groups_out += n;
    rc = ex_op_emit(&h->op, ob, err);
  }
  fl_free(rows);
  destroy_states(h);
  ex_ht_clear(h->ht);
  kc_clear(h);
  return rc;
}

/* Merges one partition file (deleting it), splitting it again if needed. */
static int merge_partition(hash_agg_t *h, ex_spill_file_t *f, uint32_t level, fl_err_t *err) {
  ex_spill_file_t *sub[EX_HASH_AGG_FANOUT] = {0};
  bool split = false, eof = false;
  int rc = FL_OK;
  ex_spill_rewind(f);
  while (!rc) {
    rc = ex_spill_read(f, h->spill_batch, &eof, err);
    if (rc || eof) break;
    rc = merge_batch(h, h->spill_batch, err);
    if (!rc) rc = account(h, sub, level, &split, err);
  }
  ex_spill_free(f);
  if (!rc && split) {
    rc = spill_table(h, sub, level, err);
    for (int p = 0; p < EX_HASH_AGG_FANOUT && !rc; p++)
      if (sub[p] && !(rc = ex_spill_seal(sub[p], err))) {
        ex_spill_file_t *s = sub[p];
        sub[p] = NULL;
        rc = merge_partition(h, s, level + 1, err);
      }
  } else if (!rc) {
    rc = emit_table(h, err);
  }
  for (int p = 0; p < EX_HASH_AGG_FANOUT; p++) ex_spill_free(sub[p]);
  if (!rc) rc = account(h, NULL, EX_HASH_AGG_MAX_LEVEL, NULL, err);
  return rc;
}

/* The one row of a global aggregate or empty grouping set over no input. */
static void add_empty_set_groups(hash_agg_t *h) {
  if (h->rows_seen) return;
  uint32_t nsets = h->nsets ? h->nsets : 1;
  ty_batch_t none = {0};
  reserve_scratch(h, 1);
  h->rows[0] = 0;
  for (uint32_t s = 0; s < nsets; s++) {
    bool empty = h->nsets ? h->sets[s] == 0 : h->nkeys == 0;
    if (!empty) continue;
    set_probe_cols(h, &none, s, 1);
    ex_ht_find_or_insert(h->ht, h->probe_cols, h->rows, 1, NULL, h->gids);
    init_states(h, ex_ht_groups(h->ht));
  }
}

static int agg_finish(ex_op_t *op, fl_err_t *err) {
  hash_agg_t *h = (hash_agg_t *)op;
  if (h->state != ST_BUILDING)
    return fl_err_set(err, FL_EINTERNAL, "hash aggregation: finished twice");
  int rc;
  if (h->phase == EX_AGG_PARTIAL) {
    add_empty_set_groups(h);
    rc = emit_partial(h, err);
  } else if (!h->spilled) {
    if (h->phase == EX_AGG_COMPLETE) add_empty_set_groups(h);
    rc = emit_table(h, err);
  } else {
    h->state = ST_MERGING;
    rc = spill_table(h, h->parts, 0, err);
    for (int p = 0; p < EX_HASH_AGG_FANOUT && !rc; p++)
      if (h->parts[p] && !(rc = ex_spill_seal(h->parts[p], err))) {
        ex_spill_file_t *f = h->parts[p];
        h->parts[p] = NULL;
        rc = merge_partition(h, f, 1, err);
      }
  }
  if (rc) return rc;
  h->state = ST_FINISHED;
  release_all(h);
  return ex_op_forward_finish(op, err);
}

static int agg_watermark(ex_op_t *op, int64_t ts_us, fl_err_t *err) {
  return ex_op_forward_watermark(op, ts_us, err);
}

#define CHECKPOINT_MAGIC 0x47474148u /* "HAGG" */

static int agg_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) {
  hash_agg_t *h = (hash_agg_t *)op;
  if (h->spilled)
    return fl_err_set(
        err, FL_EUNSUPPORTED,
        "hash aggregation: cannot checkpoint after spilling (raise the memory budget)");
  uint32_t ngroups = ex_ht_groups(h->ht);
  fl_buf_append_le32(w, CHECKPOINT_MAGIC);
  fl_buf_append_le64(w, h->rows_seen);
  fl_buf_append_le32(w, (ngroups + TY_BATCH_ROWS - 1) / TY_BATCH_ROWS);
  ty_batch_t *sb = h->spill_batch;
  for (uint32_t g0 = 0; g0 < ngroups; g0 += TY_BATCH_ROWS) {
    uint32_t n = ngroups - g0 < TY_BATCH_ROWS ? ngroups - g0 : TY_BATCH_ROWS;
    ty_batch_reset(sb);
    reserve_scratch(h, n);
    for (uint32_t k = 0; k < n; k++) h->rows[k] = g0 + k;
    for (uint32_t c = 0; c < h->ntable_keys; c++)
      ex_vec_gather(sb->cols[c], ex_ht_keys(h->ht, c), h->rows, n);
    for (uint32_t k = 0; k < n; k++) {
      fl_buf_clear(&h->sbuf);
      const uint8_t *st = h->states + (size_t)(g0 + k) * h->stride;
      for (uint32_t i = 0; i < h->naggs; i++)
        h->aggs[i].agg->fn->serialize(h->aggs[i].agg, st + h->offsets[i], &h->sbuf);
      ty_vec_append_bytes(sb->cols[h->ntable_keys], h->sbuf.data, h->sbuf.len);
    }
    ty_batch_seal(sb);
    ex_batch_encode(sb, w);
  }
  return FL_OK;
}

static int agg_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  hash_agg_t *h = (hash_agg_t *)op;
  uint32_t magic, nchunks;
  uint64_t seen;
  int rc;
  if ((rc = fl_rd_le32(r, &magic, err)) || (rc = fl_rd_le64(r, &seen, err)) ||
      (rc = fl_rd_le32(r, &nchunks, err)))
    return fl_err_prefix(err, "hash aggregation checkpoint: ");
  if (magic != CHECKPOINT_MAGIC)
    return fl_err_set(err, FL_ECORRUPT, "%s: not a hash aggregation checkpoint", r->what);
  h->rows_seen += seen;
  for (uint32_t i = 0; i < nchunks; i++) {
    if ((rc = ex_batch_decode(r, h->spill_batch, err)) ||
        (rc = merge_batch(h, h->spill_batch, err)))
      return fl_err_prefix(err, "hash aggregation checkpoint: ");
  }
  bool spilled = false;
  rc = account(h, h->parts, 0, &spilled, err);
  if (spilled) h->spilled = true;
  return rc;
}

static void agg_destroy(ex_op_t *op) {
  hash_agg_t *h = (hash_agg_t *)op;
  destroy_states(h);
  release_all(h);
  for (int p = 0; p < EX_HASH_AGG_FANOUT; p++) ex_spill_free(h->parts[p]);
  ex_spill_dir_close(h->dir);
  ex_ht_free(h->ht);
  for (uint32_t c = 0; c < h->nkeys; c++) ty_vec_free(h->null_cols[c]);
  ty_vec_free(h->set_col);
  ty_batch_free(h->spill_batch);
  ty_batch_free(h->out_batch);
  fl_buf_free(&h->sbuf);
  fl_free(h->null_cols);
  fl_free(h->probe_cols);
  fl_free(h->states);
  fl_free(h->tmp_state);
  fl_free(h->rows);
  fl_free(h->gids);
  fl_free(h->frows);
  fl_free(h->fgids);
  fl_free(h->miss_rows);
  fl_free(h->miss_k);
  fl_free(h->miss_gids);
  fl_free(h->srows);
  fl_free(h->sgids);
  fl_free(h->kc);
  fl_free(h->offsets);
  fl_free(h->dup);
  fl_free(h->ktypes);
  fl_free(h);
}

static const ex_op_vt_t hash_agg_vt = {
    .name = "hash_agg",
    .push = agg_push,
    .watermark = agg_watermark,
    .finish = agg_finish,
    .checkpoint = agg_checkpoint,
    .restore = agg_restore,
    .destroy = agg_destroy,
};

/*
 * An earlier aggregate whose state would always equal that of aggregate i
 * (sum(x) and avg(x): the same update over the same argument and FILTER),
 * or -1. Such aggregates share one state, updated and combined once;
 * each still finalizes, serializes and deserializes it as its own (the
 * bytes are the same), so the spill and partial formats do not change.
 * Only for states that hold no heap.
 */
static int32_t same_state(const ex_agg_spec_t *aggs, uint32_t i) {
  const ex_agg_spec_t *s = &aggs[i];
  const ex_agg_t *a = s->agg;
  if (a->distinct || a->fn->destroy || !a->arg) return -1;
  for (uint32_t j = 0; j < i; j++) {
    const ex_agg_spec_t *t = &aggs[j];
    const ex_agg_t *b = t->agg;
    if (b->distinct || b->fn->destroy || !b->arg) continue;
    if (a->fn->update == b->fn->update && a->fn->combine == b->fn->combine &&
        a->fn->init == b->fn->init && a->fn->state_size == b->fn->state_size &&
        s->arg_col == t->arg_col && s->filter_col == t->filter_col &&
        ty_type_equal(a->arg, b->arg) && a->variant == b->variant && a->param == b->param &&
        a->inner == NULL && b->inner == NULL)
      return (int32_t)j;
  }
  return -1;
}

int ex_hash_agg_new(ex_opctx_t *ctx, fl_arena_t *arena, const ex_hash_agg_opts_t *o, ex_op_t *next,
                    ex_op_t **out, fl_err_t *err) {
  const ty_schema_t *in = o->in_schema;
  uint32_t ncols = in->root.nfields;
  if (o->nkeys > 63)
    return fl_err_set(err, FL_ELIMIT, "hash aggregation: %u grouping keys (at most 63)", o->nkeys);
  for (uint32_t c = 0; c < o->nkeys; c++)
    if (o->key_cols[c] >= ncols)
      return fl_err_set(err, FL_EINVALID, "hash aggregation: key column %u of %u", o->key_cols[c],
                        ncols);
  for (uint32_t s = 0; s < o->nsets; s++)
    if (o->nkeys < 64 && (o->grouping_sets[s] >> o->nkeys))
      return fl_err_set(err, FL_EINVALID, "hash aggregation: grouping set %u names a key beyond %u",
                        s, o->nkeys);
  if (o->phase == EX_AGG_FINAL) {
    uint32_t ntk = o->nkeys + (o->nsets ? 1 : 0);
    for (uint32_t c = 0; c < o->nkeys; c++)
      if (o->key_cols[c] != c)
        return fl_err_set(err, FL_EINVALID, "hash aggregation: final keys are columns 0..%u",
                          o->nkeys);
    if (ncols != ntk + 1 || in->root.fields[ntk].type->kind != TY_BINARY)
      return fl_err_set(err, FL_EINVALID,
                        "hash aggregation: final input is %u keys and a binary states column", ntk);
  }
  for (uint32_t i = 0; i < o->naggs && o->phase != EX_AGG_FINAL; i++) {
    const ex_agg_spec_t *s = &o->aggs[i];
    if (s->arg_col >= (int32_t)ncols || (s->arg_col < 0 && s->agg->arg))
      return fl_err_set(err, FL_EINVALID, "hash aggregation: %s has no argument column",
                        s->agg->name);
    if (s->arg_col >= 0 && !ty_type_equal(in->root.fields[s->arg_col].type, s->agg->arg) &&
        in->root.fields[s->arg_col].type->kind != s->agg->arg->kind)
      return fl_err_set(err, FL_EINVALID,
                        "hash aggregation: %s was bound to %s but column %d is %s", s->agg->name,
                        ty_kind_name(s->agg->arg->kind), s->arg_col,
                        ty_kind_name(in->root.fields[s->arg_col].type->kind));
    if (s->filter_col >= (int32_t)ncols ||
        (s->filter_col >= 0 && in->root.fields[s->filter_col].type->kind != TY_BOOLEAN))
      return fl_err_set(err, FL_EINVALID, "hash aggregation: FILTER of %s must be a boolean column",
                        s->agg->name);
  }
  hash_agg_t *h = fl_calloc(1, sizeof *h);
  h->op.vt = &hash_agg_vt;
  h->op.next = next;
  h->ctx = ctx;
  h->phase = o->phase;
  h->in = in;
  h->nkeys = o->nkeys;
  h->nsets = o->nsets;
  h->naggs = o->naggs;
  h->ntable_keys = o->nkeys + (o->nsets ? 1 : 0);
  h->key_cols = fl_arena_zalloc(arena, (o->nkeys ? o->nkeys : 1) * sizeof *h->key_cols);
  if (o->nkeys) memcpy(h->key_cols, o->key_cols, o->nkeys * sizeof *h->key_cols);
  h->sets = fl_arena_zalloc(arena, (o->nsets ? o->nsets : 1) * sizeof *h->sets);
  if (o->nsets) memcpy(h->sets, o->grouping_sets, o->nsets * sizeof *h->sets);
  h->aggs = fl_arena_memdup(arena, o->aggs, (o->naggs ? o->naggs : 1) * sizeof *o->aggs);
  h->offsets = fl_calloc(o->naggs ? o->naggs : 1, sizeof *h->offsets);
  size_t off = 0, align = 8;
  h->dup = fl_calloc(o->naggs ? o->naggs : 1, sizeof *h->dup);
  for (uint32_t i = 0; i < o->naggs; i++) {
    const ex_agg_fn_t *fn = o->aggs[i].agg->fn;
    int32_t j = same_state(o->aggs, i);
    if (j >= 0) {
      h->offsets[i] = h->offsets[j];
      h->dup[i] = true;
      continue;
    }
    off = ex_agg_align(off, fn->state_align);
    h->offsets[i] = off;
    off += fn->state_size;
    if (fn->state_align > align) align = fn->state_align;
  }
  h->stride = ex_agg_align(off ? off : 1, align);
  h->tmp_state = aligned_alloc(16, ex_agg_align(h->stride, 16));

  /* Table keys, then the output schema and the spill schema. */
  uint32_t nout = h->ntable_keys + o->naggs;
  ty_field_t *fields = fl_arena_zalloc(arena, (nout + 1) * sizeof *fields);
  const ty_type_t **ktypes = fl_calloc(h->ntable_keys ? h->ntable_keys : 1, sizeof *ktypes);
  for (uint32_t c = 0; c < o->nkeys; c++) {
    fields[c] = in->root.fields[o->key_cols[c]];
    fields[c].id = (int32_t)c + 1;
    fields[c].required = false;
    ktypes[c] = fields[c].type;
  }
  if (o->nsets) {
    fields[o->nkeys] = (ty_field_t){.id = (int32_t)o->nkeys + 1,
                                    .name = "$grouping_set",
                                    .required = true,
                                    .type = ty_primitive(TY_LONG)};
    ktypes[o->nkeys] = fields[o->nkeys].type;
  }
  for (uint32_t i = 0; i < o->naggs; i++) {
    const ex_agg_spec_t *s = &o->aggs[i];
    fields[h->ntable_keys + i] = (ty_field_t){.id = (int32_t)(h->ntable_keys + i + 1),
                                              .name = s->name ? s->name : s->agg->name,
                                              .type = s->agg->out};
  }
  h->op.out_schema = ty_schema_new(arena, 0, fields, nout);
  ty_field_t *sf = fl_arena_zalloc(arena, (h->ntable_keys + 1) * sizeof *sf);
  memcpy(sf, fields, h->ntable_keys * sizeof *sf);
  sf[h->ntable_keys] = (ty_field_t){
      .id = (int32_t)h->ntable_keys + 1, .name = "states", .type = ty_primitive(TY_BINARY)};
  h->spill_schema = ty_schema_new(arena, 0, sf, h->ntable_keys + 1);
  if (o->phase == EX_AGG_PARTIAL) h->op.out_schema = h->spill_schema;
  h->spill_batch = ty_batch_new(h->spill_schema, TY_BATCH_ROWS);
  h->out_batch = ty_batch_new(h->op.out_schema, TY_BATCH_ROWS);
  h->ht = ex_ht_new(ktypes, h->ntable_keys);
  h->ktypes = ktypes;
  bool small_keys = o->nkeys > 0 && !o->nsets && o->phase != EX_AGG_FINAL;
  for (uint32_t c = 0; c < o->nkeys && small_keys; c++) small_keys = kc_type_ok(ktypes[c]);
  if (small_keys) h->kc = fl_calloc(1, sizeof *h->kc);
  h->null_cols = fl_calloc(o->nkeys ? o->nkeys : 1, sizeof *h->null_cols);
  for (uint32_t c = 0; c < o->nkeys; c++)
    h->null_cols[c] = ty_vec_new(fields[c].type, TY_BATCH_ROWS);
  h->set_col = ty_vec_new(ty_primitive(TY_LONG), TY_BATCH_ROWS);
  h->probe_cols = fl_calloc(h->ntable_keys + 1, sizeof *h->probe_cols);
  fl_buf_init(&h->sbuf);
  *out = &h->op;
  return FL_OK;
}

const ex_hash_agg_stats_t *ex_hash_agg_stats(const ex_op_t *op) {
  return &((const hash_agg_t *)op)->stats;
}
