/*
 * op_hash_join.c - the hash join.
 *
 * Algorithm. The join has two inputs. The build side is pushed to a
 * second operator the join owns (ex_hash_join_build_side), so both inputs
 * are ordinary producers of ex_operator.h; the pipeline driver runs the
 * build pipeline to its finish() before the probe pipeline starts, as in
 * DuckDB, where the build side is a sink and the probe side an operator.
 *
 * Build. Each build batch's live rows are copied into the build store
 * (ex_join_int.h: chunks of 2048 rows, each row numbered), and the key
 * tuples of the rows that can match are looked up in the group hash table
 * (ex_hash_table.h), which numbers each distinct tuple. Duplicates are
 * chained: head[group] is the latest row of that tuple and next[row] the
 * one before it, so many-to-many joins need two integers per row and no
 * per-key allocation. A row can match only when none of its keys is NULL
 * and none is a floating-point NaN (SQL's `=` is never true for them);
 * such rows stay in the store, unchained, because RIGHT and FULL joins
 * still emit them.
 *
 * Probe. A probe batch is looked up as a whole: the matchable rows are
 * hashed and found in one call, giving each row a cursor at the head of
 * its chain. Then the chains are walked row by row, producing (probe row,
 * build row) pairs into arrays of at most 2048; each full array is
 * handed to the output stage (ex_join.c) and emitted before the walk
 * resumes, so a key with a million matches costs 2048 pairs of memory,
 * not a million. The output stage applies the residual condition and
 * marks which probe rows (per batch) and build rows (for the whole build)
 * had a pair that passed. After the walk the probe rows without one are
 * emitted NULL-extended (LEFT, FULL), or the rows with one (SEMI) or
 * without one (ANTI) are emitted alone. SEMI and ANTI without a residual
 * skip the walk: finding the key is enough. After the last probe batch,
 * RIGHT and FULL emit the build rows never marked. A row whose every
 * candidate fails the residual is therefore still emitted NULL-extended,
 * which is what outer-join semantics demand of `ON a.k = b.k AND cond`.
 *
 * RIGHT_SEMI and RIGHT_ANTI are SEMI and ANTI with the roles swapped,
 * chosen when the rows to keep are the smaller input (EXISTS with a big
 * subquery): the probe side only marks the build rows it finds, and at
 * the end the marked (RIGHT_SEMI) or unmarked (RIGHT_ANTI) build rows
 * are emitted, as RIGHT emits its unmatched ones. Without a residual a
 * found chain is marked whole, and a chain whose head is marked is
 * skipped, so each build row is touched once however many probe rows
 * find it; with one, a marked build row is not tested again.
 *
 * NOT IN (NULL_AWARE_ANTI) follows three-valued logic: the build side
 * records whether it has a NULL key and how many rows it has; with a NULL
 * key no probe row is emitted, with an empty build side every probe row
 * is, and otherwise a NULL probe key is dropped and the rest is an ANTI
 * join.
 *
 * Spilling (grace hash join). After each build batch the join reserves
 * its footprint (store, table, chains) against the query budget. When
 * that is refused, every build row held is written to one of 16 partition
 * files chosen by 4 bits of its key hash, memory is given back, and the
 * rest of the build side goes straight to the partition files. Probe
 * batches are then partitioned the same way (same hash, same bits), so
 * rows that can match always meet in the same partition, and nothing is
 * emitted until the probe side finishes. Then each partition is joined on
 * its own: its build file is loaded into a fresh table and its probe file
 * streamed through it as above, RIGHT and FULL emitting the partition's
 * unmatched build rows at its end. A partition whose build rows still do
 * not fit is split again, build and probe file alike, by the next 4 hash
 * bits (recursive repartitioning), down to EX_HASH_JOIN_MAX_LEVEL levels.
 * Below that level, or when a split leaves all build rows in one
 * sub-partition (one hot key: no split can help), the partition is
 * joined over the budget instead of failing. Rows that cannot match (NULL
 * or NaN keys) land in whatever partition their hash picks and come out
 * unmatched there. Each probe row meets exactly the build rows of its
 * partition, which are all the rows that can match it, so the result is
 * that of an in-memory join (in another order).
 *
 * Parallel probing. ex_hash_join_probe_lane adds probe operators (lanes)
 * that share the join's build side: once it has finished, each lane
 * looks up the one table read-only (ex_ht_find_shared with its own
 * scratch), walks the shared chains and emits through its own output
 * stage to its own consumer, so N threads probe at once without locks.
 * Matched build rows (RIGHT, FULL, RIGHT_SEMI, RIGHT_ANTI) are marked in
 * one shared byte array with relaxed atomic stores: every writer stores 1
 * and the array is read only after every lane has finished. What cannot
 * be shared without a lock runs under the join's mutex: a spilled join
 * writes probe rows to shared partition files. Each lane, the join
 * included, finishes once; non-last lanes pass finish() on at once, and
 * the last one drains (unmatched build rows, spilled partitions) through
 * the join's own consumer, then finishes it.
 *
 * States.
 *   BUILDING        taking build batches; the table holds them all
 *                   (`spilled` false) or they go to partition files
 *   PROBING         the build side has finished; probe batches are joined
 *                   as they come, or partitioned when spilled
 *   DRAINING        finish() of the probe side: unmatched build rows, or
 *                   the spilled partitions one by one
 *   FINISHED        everything emitted and finish() passed downstream
 * A probe batch in BUILDING, a build batch after BUILDING and anything
 * after FINISHED are errors. checkpoint() in BUILDING or PROBING without
 * spill files writes the phase, the build rows and which of them matched;
 * restore() rebuilds the table from them (a lookup join in a streaming
 * job holds its build side this way). After spilling it is refused.
 */
#include "exec/op_hash_join.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>

#include "base/alloc.h"
#include "exec/ex_hash_table.h"
#include "exec/ex_join_int.h"
#include "exec/ex_spill.h"
#include "exec/ex_vec.h"

#define EX_HASH_JOIN_FANOUT 16
#define EX_HASH_JOIN_MAX_LEVEL 8
/* Build sides of fewer rows are never split: below this the table's fixed
 * overhead dominates and splitting would not bring it under the budget. */
#define EX_HASH_JOIN_MIN_SPLIT 256

enum { ST_BUILDING, ST_PROBING, ST_DRAINING, ST_FINISHED };

typedef struct hash_join hash_join_t;

typedef struct build_side {
  ex_op_t op;
  hash_join_t *j;
} build_side_t;

struct hash_join {
  ex_op_t op; /* the probe side */
  build_side_t build;
  ex_opctx_t *ctx;
  int state;
  bool spilled;
  ex_join_type_t type;
  uint32_t nkeys;
  uint32_t *probe_keys, *build_keys;
  const ty_type_t **ktypes;
  bool *key_float; /* per key: float or double, whose NaN never matches */
  ex__join_out_t out;
  /* The build rows being joined: all of them, or one partition's. */
  ex__join_store_t store;
  ex_ht_t *ht;
  uint32_t *head, head_cap; /* per group: latest build row */
  uint32_t *next, next_cap; /* per build row: previous row of its group */
  uint8_t *bmatched;        /* per build row: had a pair (RIGHT, FULL) */
  size_t reserved;
  /* NOT IN needs the whole build side's NULLs and size. */
  uint64_t build_total;
  bool build_null;
  /* Per batch scratch. */
  ty_vec_t **kcols;
  uint32_t scratch_cap;
  uint32_t *rows, *keep, *frows, *gids, *cursor, *emit_rows;
  uint8_t *pmatched;
  uint64_t *hashes;
  uint32_t *prow, *pk, *bid; /* TY_BATCH_ROWS pairs */
  /* Spilling. */
  ex_spill_dir_t *dir;
  ex_spill_file_t *bparts[EX_HASH_JOIN_FANOUT], *pparts[EX_HASH_JOIN_FANOUT];
  ty_batch_t *bread, *pread, *stage_b, *stage_p;
  ex_hash_join_stats_t stats, total; /* total: the join's and its lanes' */
  /* Parallel probing: a lane has `base`, the join it probes; the join
   * keeps its lanes and counts those (itself included) not finished. */
  hash_join_t *base;
  bool synced; /* a lane has taken the base's finished table */
  ex_ht_scratch_t hsc;
  hash_join_t **lanes;
  uint32_t nlanes;
  _Atomic uint32_t open_lanes;
  _Atomic bool built; /* the build side has finished (read by lanes) */
  pthread_mutex_t lock;
};

static bool probe_only(ex_join_type_t t) {
  return t == EX_JOIN_SEMI || t == EX_JOIN_ANTI || t == EX_JOIN_NULL_AWARE_ANTI;
}
/* Whether the join records which build rows matched (and emits by it at
 * the end). */
static bool build_outer(ex_join_type_t t) {
  return t == EX_JOIN_RIGHT || t == EX_JOIN_FULL || t == EX_JOIN_RIGHT_SEMI ||
         t == EX_JOIN_RIGHT_ANTI;
}
static bool build_only(ex_join_type_t t) {
  return t == EX_JOIN_RIGHT_SEMI || t == EX_JOIN_RIGHT_ANTI;
}
/* Emits the build rows the type keeps after the probe side: unmatched
 * ones, or for RIGHT_SEMI the matched ones. */
static int emit_build_rows(hash_join_t *j, fl_err_t *err) {
  return ex__join_emit_build(&j->out, &j->store, j->bmatched, j->type == EX_JOIN_RIGHT_SEMI, err);
}

static void reserve_scratch(hash_join_t *j, uint32_t n) {
  if (n <= j->scratch_cap) return;
  j->scratch_cap = n;
  j->rows = fl_realloc(j->rows, n * sizeof *j->rows);
  j->keep = fl_realloc(j->keep, n * sizeof *j->keep);
  j->frows = fl_realloc(j->frows, n * sizeof *j->frows);
  j->gids = fl_realloc(j->gids, n * sizeof *j->gids);
  j->cursor = fl_realloc(j->cursor, n * sizeof *j->cursor);
  j->emit_rows = fl_realloc(j->emit_rows, n * sizeof *j->emit_rows);
  j->pmatched = fl_realloc(j->pmatched, n);
  j->hashes = fl_realloc(j->hashes, n * sizeof *j->hashes);
}

/* rows[0..n) = the live rows of b. */
static uint32_t live_rows(hash_join_t *j, const ty_batch_t *b) {
  uint32_t n = ty_batch_live(b);
  reserve_scratch(j, b->nrows > n ? b->nrows : n);
  for (uint32_t k = 0; k < n; k++) j->rows[k] = b->sel ? b->sel[k] : k;
  return n;
}

static size_t footprint(const hash_join_t *j) {
  return ex__join_store_bytes(&j->store) + ex_ht_bytes(j->ht) + (size_t)j->head_cap * 4 +
         (size_t)j->next_cap * 5;
}

/* Reserves the current footprint. When the budget refuses and may_fail
 * is set, returns false and changes nothing; otherwise holds it anyway. */
static bool reserve_footprint(hash_join_t *j, bool may_fail) {
  size_t now = footprint(j);
  if (now <= j->reserved) {
    ex_mem_release(j->ctx->mem, j->reserved - now);
  } else if (!ex_mem_reserve(j->ctx->mem, now - j->reserved)) {
    if (may_fail) return false;
    ex_mem_force(j->ctx->mem, now - j->reserved);
  }
  j->reserved = now;
  return true;
}

/* Empties the table and gives its memory back. */
static void reset_table(hash_join_t *j) {
  ex__join_store_clear(&j->store);
  ex_ht_free(j->ht);
  j->ht = ex_ht_new(j->ktypes, j->nkeys);
  fl_free(j->head);
  fl_free(j->next);
  fl_free(j->bmatched);
  j->head = j->next = NULL;
  j->bmatched = NULL;
  j->head_cap = j->next_cap = 0;
  reserve_footprint(j, false);
}

/*
 * Writes to keep[0..m) the positions k (into rows[0..n)) of the rows whose
 * keys can match: no key NULL, no key NaN. Returns m.
 */
static uint32_t matchable(const hash_join_t *j, ty_vec_t *const *kcols, const uint32_t *rows,
                          uint32_t n, uint32_t *keep) {
  for (uint32_t k = 0; k < n; k++) keep[k] = k;
  uint32_t m = n;
  for (uint32_t c = 0; c < j->nkeys; c++) {
    const ty_vec_t *v = kcols[c];
    bool f = j->key_float[c];
    if (!v->null_count && !f) continue;
    uint32_t m2 = 0;
    for (uint32_t x = 0; x < m; x++) {
      uint32_t r = rows[keep[x]];
      if (ty_vec_is_null(v, r)) continue;
      if (f && (v->type->kind == TY_FLOAT ? isnan(TY_VEC_DATA(v, float)[r])
                                          : isnan(TY_VEC_DATA(v, double)[r])))
        continue;
      keep[m2++] = keep[x];
    }
    m = m2;
  }
  return m;
}

static void grow_u32(uint32_t **a, uint32_t *cap, uint32_t need, uint8_t **also) {
  if (need <= *cap) return;
  uint32_t c = *cap ? *cap : 1024;
  while (c < need) c *= 2;
  *a = fl_realloc(*a, (size_t)c * sizeof **a);
  if (also) *also = fl_realloc(*also, c);
  *cap = c;
}

/* Chains build rows [first, store.nrows) into the table. */
static void insert_rows(hash_join_t *j, uint32_t first) {
  ex__join_store_t *st = &j->store;
  grow_u32(&j->next, &j->next_cap, st->nrows, &j->bmatched);
  for (uint32_t id = first; id < st->nrows; id++) {
    j->next[id] = EX_JOIN_NONE;
    j->bmatched[id] = 0;
  }
  uint32_t id = first;
  while (id < st->nrows) {
    ty_batch_t *chunk = ex__join_store_chunk(st, id);
    uint32_t base = id - id % TY_BATCH_ROWS, lo = id % TY_BATCH_ROWS;
    uint32_t n = chunk->nrows - lo;
    reserve_scratch(j, TY_BATCH_ROWS);
    for (uint32_t k = 0; k < n; k++) j->rows[k] = lo + k;
    for (uint32_t c = 0; c < j->nkeys; c++) j->kcols[c] = chunk->cols[j->build_keys[c]];
    uint32_t m = matchable(j, j->kcols, j->rows, n, j->keep);
    for (uint32_t x = 0; x < m; x++) j->frows[x] = j->rows[j->keep[x]];
    ex_ht_find_or_insert(j->ht, j->kcols, j->frows, m, NULL, j->gids);
    uint32_t old = j->head_cap;
    grow_u32(&j->head, &j->head_cap, ex_ht_groups(j->ht), NULL);
    for (uint32_t g = old; g < j->head_cap; g++) j->head[g] = EX_JOIN_NONE;
    for (uint32_t x = 0; x < m; x++) {
      uint32_t r = base + j->frows[x], g = j->gids[x];
      j->next[r] = j->head[g];
      j->head[g] = r;
    }
    id += n;
  }
}

static int load_build(hash_join_t *j, const ty_batch_t *b, fl_err_t *err) {
  uint32_t first;
  int rc = ex__join_store_append(&j->store, b, &first, err);
  if (rc) return rc;
  insert_rows(j, first);
  return FL_OK;
}

static int ensure_dir(hash_join_t *j, fl_err_t *err) {
  return j->dir ? FL_OK : ex_spill_dir_open(j->ctx->spill_dir, &j->dir, err);
}

/* Writes b's live rows to files[p], p from bits of the hash of key columns
 * key_idx at `level`; stage is a batch of b's schema. */
static int partition_batch(hash_join_t *j, ex_spill_file_t **files, ty_batch_t *stage,
                           const ty_batch_t *b, const uint32_t *key_idx, uint32_t level,
                           fl_err_t *err) {
  uint32_t n = live_rows(j, b);
  if (!n) return FL_OK;
  int rc = ensure_dir(j, err);
  if (rc) return rc;
  for (uint32_t c = 0; c < j->nkeys; c++) j->kcols[c] = b->cols[key_idx[c]];
  ex_ht_hash(j->ht, j->kcols, j->rows, n, j->hashes);
  uint32_t shift = 60 - 4 * level, count[EX_HASH_JOIN_FANOUT] = {0}, at[EX_HASH_JOIN_FANOUT];
  for (uint32_t k = 0; k < n; k++) count[(j->hashes[k] >> shift) & (EX_HASH_JOIN_FANOUT - 1)]++;
  uint32_t sum = 0;
  for (uint32_t p = 0; p < EX_HASH_JOIN_FANOUT; p++) {
    at[p] = sum;
    sum += count[p];
  }
  for (uint32_t k = 0; k < n; k++)
    j->frows[at[(j->hashes[k] >> shift) & (EX_HASH_JOIN_FANOUT - 1)]++] = j->rows[k];
  for (uint32_t p = 0; p < EX_HASH_JOIN_FANOUT; p++) {
    if (!count[p]) continue;
    if (!files[p] && (rc = ex_spill_create(j->dir, &files[p], err))) return rc;
    ty_batch_reset(stage);
    const uint32_t *rows = j->frows + at[p] - count[p];
    for (uint32_t c = 0; c < stage->ncols; c++)
      ex_vec_gather(stage->cols[c], b->cols[c], rows, count[p]);
    ty_batch_seal(stage);
    if ((rc = ex_spill_write(files[p], stage, err))) return rc;
  }
  return FL_OK;
}

/* Moves every build row held to files (by the bits of `level`). */
static int spill_store(hash_join_t *j, ex_spill_file_t **files, uint32_t level, fl_err_t *err) {
  for (uint32_t i = 0; i < j->store.nchunks; i++) {
    int rc = partition_batch(j, files, j->stage_b, j->store.chunks[i], j->build_keys, level, err);
    if (rc) return rc;
  }
  reset_table(j);
  return FL_OK;
}

/* Joins one probe batch against the table, emitting as it goes. */
static int probe_batch(hash_join_t *j, const ty_batch_t *b, fl_err_t *err) {
  if (j->type == EX_JOIN_NULL_AWARE_ANTI && j->build_null) return FL_OK;
  uint32_t n = live_rows(j, b);
  if (!n) return FL_OK;
  for (uint32_t c = 0; c < j->nkeys; c++) j->kcols[c] = b->cols[j->probe_keys[c]];
  for (uint32_t k = 0; k < n; k++) j->cursor[k] = EX_JOIN_NONE;
  if (ex_ht_groups(j->ht)) {
    uint32_t m = matchable(j, j->kcols, j->rows, n, j->keep);
    for (uint32_t x = 0; x < m; x++) j->frows[x] = j->rows[j->keep[x]];
    ex_ht_find_shared(j->ht, &j->hsc, j->kcols, j->frows, m, NULL, j->gids);
    for (uint32_t x = 0; x < m; x++)
      if (j->gids[x] != EX_HT_MISSING) j->cursor[j->keep[x]] = j->head[j->gids[x]];
  }
  memset(j->pmatched, 0, n);
  int rc = FL_OK;
  bool only = probe_only(j->type);
  if (only && !j->out.spec.filter) {
    for (uint32_t k = 0; k < n; k++) j->pmatched[k] = j->cursor[k] != EX_JOIN_NONE;
  } else if (build_only(j->type) && !j->out.spec.filter) {
    /* Every row of a found chain matches. Chains are marked whole, so a
     * chain whose head is marked is done. */
    for (uint32_t k = 0; k < n; k++)
      for (uint32_t r = j->cursor[k]; r != EX_JOIN_NONE && !ex__join_marked(j->bmatched, r);
           r = j->next[r])
        ex__join_mark(j->bmatched, r);
    return FL_OK;
  } else {
    uint8_t *bm = build_outer(j->type) ? j->bmatched : NULL;
    uint32_t k = 0, np = 0;
    while (k < n) {
      uint32_t r = j->cursor[k];
      /* A SEMI or ANTI row already matched needs no more candidates. */
      if (r == EX_JOIN_NONE || (only && j->pmatched[k])) {
        k++;
        continue;
      }
      /* Nor does a build row of RIGHT_SEMI or RIGHT_ANTI. */
      if (build_only(j->type) && ex__join_marked(j->bmatched, r)) {
        j->cursor[k] = j->next[r];
        continue;
      }
      j->prow[np] = j->rows[k];
      j->pk[np] = k;
      j->bid[np++] = r;
      j->cursor[k] = j->next[r];
      if (np == TY_BATCH_ROWS) {
        rc =
            ex__join_pairs(&j->out, b, j->prow, j->pk, &j->store, j->bid, np, j->pmatched, bm, err);
        if (rc) return rc;
        np = 0;
      }
    }
    rc = ex__join_pairs(&j->out, b, j->prow, j->pk, &j->store, j->bid, np, j->pmatched, bm, err);
    if (rc) return rc;
  }
  /* x NOT IN (non-empty set without NULL) is NULL for a NULL x. */
  const ty_vec_t *drop_nulls =
      j->type == EX_JOIN_NULL_AWARE_ANTI && j->build_total > 0 ? j->kcols[0] : NULL;
  return ex__join_probe_done(&j->out, b, j->rows, n, j->pmatched, drop_nulls, j->emit_rows, err);
}

/* Joins one spilled partition (taking ownership of both files), splitting
 * it again when its build rows do not fit; `level` picks the hash bits of
 * such a split. */
static int join_partition(hash_join_t *j, ex_spill_file_t *bf, ex_spill_file_t *pf, uint32_t level,
                          bool force, fl_err_t *err) {
  int rc = FL_OK;
  bool eof = false, split = false, over = false;
  j->stats.partitions++;
  if (level - 1 > j->stats.max_level) j->stats.max_level = level - 1;
  bool may_split = !force && level < EX_HASH_JOIN_MAX_LEVEL;
  if (bf) {
    ex_spill_rewind(bf);
    while (!rc && !split) {
      rc = ex_spill_read(bf, j->bread, &eof, err);
      if (rc || eof) break;
      rc = load_build(j, j->bread, err);
      if (rc || reserve_footprint(j, true)) continue;
      if (may_split && j->store.nrows >= EX_HASH_JOIN_MIN_SPLIT) {
        split = true;
      } else {
        over = true;
        reserve_footprint(j, false);
      }
    }
  }
  if (!rc && !split) {
    if (over) j->stats.forced_partitions++;
    if (pf) {
      ex_spill_rewind(pf);
      while (!rc) {
        rc = ex_spill_read(pf, j->pread, &eof, err);
        if (rc || eof) break;
        rc = probe_batch(j, j->pread, err);
      }
    }
    if (!rc && build_outer(j->type)) rc = emit_build_rows(j, err);
    ex_spill_free(bf);
    ex_spill_free(pf);
    reset_table(j);
    return rc;
  }
  ex_spill_file_t *sb[EX_HASH_JOIN_FANOUT] = {0}, *sp[EX_HASH_JOIN_FANOUT] = {0};
  if (!rc) rc = spill_store(j, sb, level, err);
  while (!rc) {
    rc = ex_spill_read(bf, j->bread, &eof, err);
    if (rc || eof) break;
    rc = partition_batch(j, sb, j->stage_b, j->bread, j->build_keys, level, err);
  }
  if (pf && !rc) {
    ex_spill_rewind(pf);
    while (!rc) {
      rc = ex_spill_read(pf, j->pread, &eof, err);
      if (rc || eof) break;
      rc = partition_batch(j, sp, j->stage_p, j->pread, j->probe_keys, level, err);
    }
  }
  ex_spill_free(bf);
  ex_spill_free(pf);
  reset_table(j);
  uint32_t nonempty = 0;
  for (uint32_t p = 0; p < EX_HASH_JOIN_FANOUT; p++) nonempty += sb[p] != NULL;
  for (uint32_t p = 0; p < EX_HASH_JOIN_FANOUT && !rc; p++) {
    if (sb[p]) rc = ex_spill_seal(sb[p], err);
    if (!rc && sp[p]) rc = ex_spill_seal(sp[p], err);
  }
  for (uint32_t p = 0; p < EX_HASH_JOIN_FANOUT && !rc; p++) {
    if (!sb[p] && !sp[p]) continue;
    ex_spill_file_t *b = sb[p], *q = sp[p];
    sb[p] = sp[p] = NULL;
    rc = join_partition(j, b, q, level + 1, nonempty <= 1, err);
  }
  for (uint32_t p = 0; p < EX_HASH_JOIN_FANOUT; p++) {
    ex_spill_free(sb[p]);
    ex_spill_free(sp[p]);
  }
  return rc;
}

static void note_build_nulls(hash_join_t *j, const ty_batch_t *b) {
  uint32_t n = ty_batch_live(b);
  j->build_total += n;
  j->stats.build_rows += n;
  if (j->type != EX_JOIN_NULL_AWARE_ANTI || j->build_null) return;
  const ty_vec_t *v = b->cols[j->build_keys[0]];
  if (!v->null_count) return;
  for (uint32_t k = 0; k < n && !j->build_null; k++)
    if (ty_vec_is_null(v, b->sel ? b->sel[k] : k)) j->build_null = true;
}

static int build_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  hash_join_t *j = ((build_side_t *)op)->j;
  if (j->state != ST_BUILDING)
    return fl_err_set(err, FL_EINTERNAL, "hash join: build batch after the build side finished");
  if (!ty_batch_live(b)) return FL_OK;
  note_build_nulls(j, b);
  if (j->spilled) return partition_batch(j, j->bparts, j->stage_b, b, j->build_keys, 0, err);
  int rc = load_build(j, b, err);
  if (rc) return rc;
  if (reserve_footprint(j, j->store.nrows >= EX_HASH_JOIN_MIN_SPLIT)) return FL_OK;
  j->spilled = true;
  return spill_store(j, j->bparts, 0, err);
}

static int build_finish(ex_op_t *op, fl_err_t *err) {
  hash_join_t *j = ((build_side_t *)op)->j;
  if (j->state != ST_BUILDING)
    return fl_err_set(err, FL_EINTERNAL, "hash join: build side finished twice");
  for (uint32_t p = 0; p < EX_HASH_JOIN_FANOUT; p++)
    if (j->bparts[p]) {
      int rc = ex_spill_seal(j->bparts[p], err);
      if (rc) return rc;
    }
  j->state = ST_PROBING;
  atomic_store(&j->built, true);
  return FL_OK;
}

static int build_watermark(ex_op_t *op, int64_t ts_us, fl_err_t *err) { return FL_OK; }

#define CHECKPOINT_MAGIC 0x314e4a48u /* "HJN1" */

/* The state is the phase, NOT IN's two facts, the build rows (encoded as
 * spill blocks are) and, for RIGHT and FULL, which of them have matched;
 * the probe side holds nothing between batches. */
static int join_checkpoint(hash_join_t *j, fl_buf_t *w, fl_err_t *err) {
  if (j->spilled)
    return fl_err_set(err, FL_EUNSUPPORTED,
                      "hash join: cannot checkpoint after spilling (raise the memory budget)");
  if (j->state != ST_BUILDING && j->state != ST_PROBING)
    return fl_err_set(err, FL_EINTERNAL, "hash join: checkpoint after finish");
  fl_buf_append_le32(w, CHECKPOINT_MAGIC);
  fl_buf_append_u8(w, (uint8_t)j->state);
  fl_buf_append_u8(w, j->build_null);
  fl_buf_append_le64(w, j->build_total);
  fl_buf_append_le32(w, j->store.nchunks);
  for (uint32_t i = 0; i < j->store.nchunks; i++) ex_batch_encode(j->store.chunks[i], w);
  fl_buf_append_le32(w, j->store.nrows);
  if (build_outer(j->type) && j->store.nrows) fl_buf_append(w, j->bmatched, j->store.nrows);
  return FL_OK;
}

static int join_restore(hash_join_t *j, fl_rd_t *r, fl_err_t *err) {
  if (j->state != ST_BUILDING || j->store.nrows || j->spilled)
    return fl_err_set(err, FL_EINTERNAL, "hash join: restore into a join that has input");
  uint32_t magic, nchunks, nrows;
  uint8_t state, bnull;
  uint64_t total;
  int rc;
  if ((rc = fl_rd_le32(r, &magic, err)) || (rc = fl_rd_u8(r, &state, err)) ||
      (rc = fl_rd_u8(r, &bnull, err)) || (rc = fl_rd_le64(r, &total, err)) ||
      (rc = fl_rd_le32(r, &nchunks, err)))
    return fl_err_prefix(err, "hash join checkpoint: ");
  if (magic != CHECKPOINT_MAGIC || (state != ST_BUILDING && state != ST_PROBING) || bnull > 1)
    return fl_err_set(err, FL_ECORRUPT, "%s: not a hash join checkpoint", r->what);
  for (uint32_t i = 0; i < nchunks; i++) {
    if ((rc = ex_batch_decode(r, j->bread, err)))
      return fl_err_prefix(err, "hash join checkpoint, chunk %u: ", i);
    if ((rc = load_build(j, j->bread, err))) return rc;
  }
  if ((rc = fl_rd_le32(r, &nrows, err))) return fl_err_prefix(err, "hash join checkpoint: ");
  if (nrows != j->store.nrows || total < nrows)
    return fl_err_set(err, FL_ECORRUPT, "%s: %u build rows recorded, %u decoded", r->what, nrows,
                      j->store.nrows);
  if (build_outer(j->type) && nrows) {
    const uint8_t *m;
    if ((rc = fl_rd_bytes(r, nrows, &m, err))) return fl_err_prefix(err, "hash join checkpoint: ");
    memcpy(j->bmatched, m, nrows);
  }
  j->build_null = bnull;
  j->build_total = total;
  j->state = state;
  reserve_footprint(j, false);
  return FL_OK;
}

static int probe_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) {
  return join_checkpoint((hash_join_t *)op, w, err);
}
static int probe_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  return join_restore((hash_join_t *)op, r, err);
}
/* Both sides checkpoint the one join; a driver calls either. */
static int build_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) {
  return join_checkpoint(((build_side_t *)op)->j, w, err);
}
static int build_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  return join_restore(((build_side_t *)op)->j, r, err);
}

static void build_destroy(ex_op_t *op) {}

static const ex_op_vt_t build_vt = {
    .name = "hash_join_build",
    .push = build_push,
    .watermark = build_watermark,
    .finish = build_finish,
    .checkpoint = build_checkpoint,
    .restore = build_restore,
    .destroy = build_destroy,
};

static int probe_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  hash_join_t *j = (hash_join_t *)op;
  if (j->state != ST_PROBING)
    return fl_err_set(err, FL_EINTERNAL, "hash join: probe batch %s",
                      j->state == ST_BUILDING ? "before the build side finished" : "after finish");
  j->stats.probe_rows += ty_batch_live(b);
  /* With lanes, writes to the shared partition files take the lock
   * (matched build rows are marked with atomic stores). */
  bool lock = j->nlanes && j->spilled;
  if (lock) pthread_mutex_lock(&j->lock);
  int rc;
  if (!j->spilled)
    rc = probe_batch(j, b, err);
  else if (j->type == EX_JOIN_NULL_AWARE_ANTI && j->build_null)
    rc = FL_OK;
  else
    rc = partition_batch(j, j->pparts, j->stage_p, b, j->probe_keys, 0, err);
  if (lock) pthread_mutex_unlock(&j->lock);
  return rc;
}

/* The drain after the last probe batch of every lane. */
static int drain_finish(hash_join_t *j, fl_err_t *err);

static int probe_finish(ex_op_t *op, fl_err_t *err) {
  hash_join_t *j = (hash_join_t *)op;
  if (j->nlanes) {
    /* Lanes exist: the last of them (or the join) to finish drains. */
    if (j->state != ST_PROBING)
      return fl_err_set(err, FL_EINTERNAL, "hash join: finish %s",
                        j->state == ST_BUILDING ? "before the build side finished" : "twice");
    j->state = ST_DRAINING;
    if (atomic_fetch_sub(&j->open_lanes, 1) != 1) return FL_OK;
    return drain_finish(j, err);
  }
  return drain_finish(j, err);
}

static int drain_finish(hash_join_t *j, fl_err_t *err) {
  ex_op_t *op = &j->op;
  if (j->state != ST_PROBING && !(j->nlanes && j->state == ST_DRAINING))
    return fl_err_set(err, FL_EINTERNAL, "hash join: finish %s",
                      j->state == ST_BUILDING ? "before the build side finished" : "twice");
  j->state = ST_DRAINING;
  int rc = FL_OK;
  if (!j->spilled) {
    if (build_outer(j->type)) rc = emit_build_rows(j, err);
  } else {
    for (uint32_t p = 0; p < EX_HASH_JOIN_FANOUT && !rc; p++)
      if (j->pparts[p]) rc = ex_spill_seal(j->pparts[p], err);
    for (uint32_t p = 0; p < EX_HASH_JOIN_FANOUT && !rc; p++) {
      ex_spill_file_t *b = j->bparts[p], *q = j->pparts[p];
      j->bparts[p] = j->pparts[p] = NULL;
      /* Without build rows only the probe-preserving joins have output. */
      bool needed = b || (q && j->type != EX_JOIN_INNER && j->type != EX_JOIN_RIGHT &&
                          j->type != EX_JOIN_SEMI && !build_only(j->type));
      if (needed)
        rc = join_partition(j, b, q, 1, false, err);
      else
        ex_spill_free(q);
    }
  }
  if (rc) return rc;
  reset_table(j);
  j->state = ST_FINISHED;
  return ex_op_forward_finish(op, err);
}

static int probe_watermark(ex_op_t *op, int64_t ts_us, fl_err_t *err) {
  return ex_op_forward_watermark(op, ts_us, err);
}

static void free_scratch(hash_join_t *j) {
  fl_free(j->rows);
  fl_free(j->keep);
  fl_free(j->frows);
  fl_free(j->gids);
  fl_free(j->cursor);
  fl_free(j->emit_rows);
  fl_free(j->pmatched);
  fl_free(j->hashes);
  fl_free(j->prow);
  fl_free(j->pk);
  fl_free(j->bid);
  fl_free(j->kcols);
  ex_ht_scratch_free(&j->hsc);
}

static void join_destroy(ex_op_t *op) {
  hash_join_t *j = (hash_join_t *)op;
  for (uint32_t i = 0; i < j->nlanes; i++) {
    hash_join_t *l = j->lanes[i];
    ex__join_out_free(&l->out);
    fl_free(l->store.srcs);
    fl_free(l->store.idx);
    free_scratch(l);
    fl_free(l);
  }
  fl_free(j->lanes);
  pthread_mutex_destroy(&j->lock);
  for (uint32_t p = 0; p < EX_HASH_JOIN_FANOUT; p++) {
    ex_spill_free(j->bparts[p]);
    ex_spill_free(j->pparts[p]);
  }
  ex_spill_dir_close(j->dir);
  ex__join_store_free(&j->store);
  ex_ht_free(j->ht);
  ex_mem_release(j->ctx->mem, j->reserved);
  ex__join_out_free(&j->out);
  ty_batch_free(j->bread);
  ty_batch_free(j->pread);
  ty_batch_free(j->stage_b);
  ty_batch_free(j->stage_p);
  fl_free(j->head);
  fl_free(j->next);
  fl_free(j->bmatched);
  free_scratch(j);
  fl_free(j->ktypes);
  fl_free(j->key_float);
  fl_free(j->probe_keys);
  fl_free(j->build_keys);
  fl_free(j);
}

static const ex_op_vt_t probe_vt = {
    .name = "hash_join",
    .push = probe_push,
    .watermark = probe_watermark,
    .finish = probe_finish,
    .checkpoint = probe_checkpoint,
    .restore = probe_restore,
    .destroy = join_destroy,
};

int ex_hash_join_new(ex_opctx_t *ctx, fl_arena_t *arena, const ex_hash_join_opts_t *o,
                     ex_op_t *next, ex_op_t **out, fl_err_t *err) {
  const ex_join_spec_t *sp = &o->join;
  if (!sp->probe_schema || !sp->build_schema)
    return fl_err_set(err, FL_EINVALID, "hash join: probe and build schemas are required");
  if (o->nkeys == 0)
    return fl_err_set(err, FL_EINVALID,
                      "hash join: no key columns (a join without keys is a nested loop join)");
  uint32_t np = sp->probe_schema->root.nfields, nb = sp->build_schema->root.nfields;
  for (uint32_t c = 0; c < o->nkeys; c++) {
    if (o->probe_keys[c] >= np || o->build_keys[c] >= nb)
      return fl_err_set(err, FL_EINVALID,
                        "hash join: key %u names probe column %u of %u, build "
                        "column %u of %u",
                        c, o->probe_keys[c], np, o->build_keys[c], nb);
    const ty_field_t *pf = &sp->probe_schema->root.fields[o->probe_keys[c]];
    const ty_field_t *bf = &sp->build_schema->root.fields[o->build_keys[c]];
    if (!ty_type_equal(pf->type, bf->type))
      return fl_err_set(err, FL_EINVALID,
                        "hash join: key %u compares %s (%s) with %s (%s); cast both to one type", c,
                        pf->name, ty_kind_name(pf->type->kind), bf->name,
                        ty_kind_name(bf->type->kind));
  }
  if (sp->type == EX_JOIN_NULL_AWARE_ANTI && (o->nkeys != 1 || sp->filter))
    return fl_err_set(err, FL_EUNSUPPORTED,
                      "hash join: NOT IN takes one key column and no further condition");
  hash_join_t *j = fl_calloc(1, sizeof *j);
  int rc = ex__join_out_init(&j->out, &j->op, arena, sp, "hash join", err);
  if (rc) {
    fl_free(j);
    return rc;
  }
  j->op.vt = &probe_vt;
  j->op.next = next;
  j->build.op.vt = &build_vt;
  j->build.op.out_schema = j->op.out_schema;
  j->build.j = j;
  j->ctx = ctx;
  j->type = sp->type;
  j->nkeys = o->nkeys;
  j->probe_keys = fl_malloc(o->nkeys * sizeof *j->probe_keys);
  j->build_keys = fl_malloc(o->nkeys * sizeof *j->build_keys);
  memcpy(j->probe_keys, o->probe_keys, o->nkeys * sizeof *j->probe_keys);
  memcpy(j->build_keys, o->build_keys, o->nkeys * sizeof *j->build_keys);
  j->ktypes = fl_calloc(o->nkeys, sizeof *j->ktypes);
  j->key_float = fl_calloc(o->nkeys, sizeof *j->key_float);
  for (uint32_t c = 0; c < o->nkeys; c++) {
    j->ktypes[c] = sp->build_schema->root.fields[o->build_keys[c]].type;
    j->key_float[c] = j->ktypes[c]->kind == TY_FLOAT || j->ktypes[c]->kind == TY_DOUBLE;
  }
  j->kcols = fl_calloc(o->nkeys, sizeof *j->kcols);
  j->ht = ex_ht_new(j->ktypes, j->nkeys);
  ex__join_store_init(&j->store, sp->build_schema);
  j->prow = fl_malloc(TY_BATCH_ROWS * sizeof *j->prow);
  j->pk = fl_malloc(TY_BATCH_ROWS * sizeof *j->pk);
  j->bid = fl_malloc(TY_BATCH_ROWS * sizeof *j->bid);
  j->bread = ty_batch_new(sp->build_schema, TY_BATCH_ROWS);
  j->pread = ty_batch_new(sp->probe_schema, TY_BATCH_ROWS);
  j->stage_b = ty_batch_new(sp->build_schema, TY_BATCH_ROWS);
  j->stage_p = ty_batch_new(sp->probe_schema, TY_BATCH_ROWS);
  pthread_mutex_init(&j->lock, NULL);
  *out = &j->op;
  return FL_OK;
}

/* ---- probe lanes ---- */

/* Takes the base's finished build side (once, at the first batch). */
static void lane_sync(hash_join_t *l) {
  hash_join_t *j = l->base;
  if (l->synced) return;
  const ty_vec_t **srcs = l->store.srcs;
  uint32_t *idx = l->store.idx;
  l->store = j->store;
  l->store.srcs = srcs;
  l->store.idx = idx;
  l->ht = j->ht;
  l->head = j->head;
  l->next = j->next;
  l->bmatched = j->bmatched;
  l->build_total = j->build_total;
  l->build_null = j->build_null;
  l->spilled = j->spilled;
  l->synced = true;
}

static int lane_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  hash_join_t *l = (hash_join_t *)op, *j = l->base;
  if (!atomic_load(&j->built))
    return fl_err_set(err, FL_EINTERNAL, "hash join: probe batch before the build side finished");
  if (l->state != ST_PROBING)
    return fl_err_set(err, FL_EINTERNAL, "hash join: probe batch after finish");
  lane_sync(l);
  uint32_t n = ty_batch_live(b);
  l->stats.probe_rows += n;
  if (!l->spilled) return probe_batch(l, b, err);
  pthread_mutex_lock(&j->lock);
  int rc = (j->type == EX_JOIN_NULL_AWARE_ANTI && j->build_null)
               ? FL_OK
               : partition_batch(j, j->pparts, j->stage_p, b, j->probe_keys, 0, err);
  pthread_mutex_unlock(&j->lock);
  return rc;
}

static int lane_finish(ex_op_t *op, fl_err_t *err) {
  hash_join_t *l = (hash_join_t *)op, *j = l->base;
  if (l->state != ST_PROBING)
    return fl_err_set(err, FL_EINTERNAL, "hash join: lane finished twice");
  l->state = ST_FINISHED;
  int rc = ex_op_forward_finish(op, err);
  if (rc) return rc;
  if (atomic_fetch_sub(&j->open_lanes, 1) != 1) return FL_OK;
  return drain_finish(j, err);
}

static int lane_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) {
  return fl_err_set(err, FL_EUNSUPPORTED, "hash join: a parallel probe lane does not checkpoint");
}
static int lane_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  return fl_err_set(err, FL_EUNSUPPORTED, "hash join: a parallel probe lane does not checkpoint");
}
static void lane_destroy(ex_op_t *op) {}

static const ex_op_vt_t lane_vt = {
    .name = "hash_join_probe_lane",
    .push = lane_push,
    .watermark = probe_watermark,
    .finish = lane_finish,
    .checkpoint = lane_checkpoint,
    .restore = lane_restore,
    .destroy = lane_destroy,
};

int ex_hash_join_probe_lane(ex_op_t *join, fl_arena_t *arena, ex_join_filter_fn filter,
                            void *filter_arg, ex_op_t *next, ex_op_t **out, fl_err_t *err) {
  hash_join_t *j = (hash_join_t *)join;
  if (j->state != ST_BUILDING)
    return fl_err_set(err, FL_EINTERNAL, "hash join: lanes are added before the build side runs");
  ex_join_spec_t spec = j->out.spec;
  spec.filter = filter;
  spec.filter_arg = filter_arg;
  hash_join_t *l = fl_calloc(1, sizeof *l);
  int rc = ex__join_out_init(&l->out, &l->op, arena, &spec, "hash join", err);
  if (rc) {
    fl_free(l);
    return rc;
  }
  l->op.vt = &lane_vt;
  l->op.next = next;
  l->base = j;
  l->ctx = j->ctx;
  l->state = ST_PROBING;
  l->type = j->type;
  l->nkeys = j->nkeys;
  l->probe_keys = j->probe_keys;
  l->build_keys = j->build_keys;
  l->ktypes = j->ktypes;
  l->key_float = j->key_float;
  l->kcols = fl_calloc(j->nkeys, sizeof *l->kcols);
  l->store.srcs = fl_malloc(TY_BATCH_ROWS * sizeof *l->store.srcs);
  l->store.idx = fl_malloc(TY_BATCH_ROWS * sizeof *l->store.idx);
  l->prow = fl_malloc(TY_BATCH_ROWS * sizeof *l->prow);
  l->pk = fl_malloc(TY_BATCH_ROWS * sizeof *l->pk);
  l->bid = fl_malloc(TY_BATCH_ROWS * sizeof *l->bid);
  if (!j->nlanes) atomic_store(&j->open_lanes, 1);
  j->lanes = fl_realloc(j->lanes, (j->nlanes + 1) * sizeof *j->lanes);
  j->lanes[j->nlanes++] = l;
  atomic_fetch_add(&j->open_lanes, 1);
  *out = &l->op;
  return FL_OK;
}

ex_op_t *ex_hash_join_build_side(ex_op_t *join) { return &((hash_join_t *)join)->build.op; }

const ex_ht_t *ex_hash_join_table(const ex_op_t *join) {
  hash_join_t *j = (hash_join_t *)join;
  if (!atomic_load(&j->built) || j->spilled) return NULL;
  return j->ht;
}

const ex_hash_join_stats_t *ex_hash_join_stats(const ex_op_t *join) {
  hash_join_t *j = (hash_join_t *)join;
  j->stats.rows_out = j->out.rows_out;
  j->total = j->stats;
  for (uint32_t i = 0; i < j->nlanes; i++) {
    j->total.probe_rows += j->lanes[i]->stats.probe_rows;
    j->total.rows_out += j->lanes[i]->out.rows_out;
  }
  return &j->total;
}
