/*
 * ex_hash_table.h - the vectorized group hash table of aggregation (and,
 * later, of hash joins) (layer 8, exec).
 *
 * The table maps a tuple of key values of any floe types to a dense group
 * number 0, 1, 2, ... in order of first appearance. NULL is a key value of
 * its own (all NULLs of a column are one group, as GROUP BY wants). Floating
 * point keys compare as SQL does: -0.0 equals 0.0 and every NaN equals every
 * other NaN.
 *
 * Keys live column-wise in vectors owned by the table, one row per group,
 * so the keys of groups g..g+n are emitted with one gather per column.
 * Lookup is open addressing with linear probing over a power-of-two array
 * of slots {group + 1, 32-bit hash tag}, kept at most half full (at most
 * 1/8 while the slots fit in 8 MiB). A whole
 * batch is hashed column by column first, then probed; candidate matches
 * are compared column by column with one loop per column type, so no
 * per-row function pointer or type switch runs except for nested keys.
 * See ex_hash_table.c for the probing rounds.
 */
#ifndef FL_EXEC_EX_HASH_TABLE_H
#define FL_EXEC_EX_HASH_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "types/vec.h"

typedef struct ex_ht ex_ht_t;

#define EX_HT_MISSING UINT32_MAX

/* A table for keys of these types (copied); nkeys may be 0 (one group). */
ex_ht_t *ex_ht_new(const ty_type_t *const *types, uint32_t nkeys);
void ex_ht_free(ex_ht_t *ht);
/* Forgets every group, keeping the memory of slots and key columns. */
void ex_ht_clear(ex_ht_t *ht);

/*
 * Hashes rows[0..n) (rows NULL: 0..n-1) of the key columns cols[0..nkeys)
 * into out[0..n). The same tuple always hashes alike, in any table of the
 * same key types.
 */
void ex_ht_hash(const ex_ht_t *ht, ty_vec_t *const *cols, const uint32_t *rows, uint32_t n,
                uint64_t *out);

/*
 * Looks up the key tuple of each of rows[0..n) and creates a group for each
 * tuple not yet present; gids[k] receives the group of rows[k]. hashes may
 * be NULL (then computed) or the output of ex_ht_hash for the same rows.
 * Returns the number of groups created.
 */
uint32_t ex_ht_find_or_insert(ex_ht_t *ht, ty_vec_t *const *cols, const uint32_t *rows, uint32_t n,
                              const uint64_t *hashes, uint32_t *gids);
/* Looks up without inserting: EX_HT_MISSING for absent tuples. */
void ex_ht_find(ex_ht_t *ht, ty_vec_t *const *cols, const uint32_t *rows, uint32_t n,
                const uint64_t *hashes, uint32_t *gids);

/* Scratch of one lookup thread (zero-initialise; free with
 * ex_ht_scratch_free). */
typedef struct ex_ht_scratch {
  uint32_t cap;
  uint64_t *h;
  uint32_t *pending, *slot_of, *cand_k, *cand_g, *new_rows;
  uint8_t *match;
} ex_ht_scratch_t;
void ex_ht_scratch_free(ex_ht_scratch_t *sc);
/* ex_ht_find with the caller's scratch: it only reads the table, so any
 * number of threads may look up one table at once while none inserts. */
void ex_ht_find_shared(const ex_ht_t *ht, ex_ht_scratch_t *sc, ty_vec_t *const *cols,
                       const uint32_t *rows, uint32_t n, const uint64_t *hashes, uint32_t *gids);

uint32_t ex_ht_groups(const ex_ht_t *ht);
/* Key column c: row g holds group g's value. */
const ty_vec_t *ex_ht_keys(const ex_ht_t *ht, uint32_t c);
/* The hash of group g. */
uint64_t ex_ht_group_hash(const ex_ht_t *ht, uint32_t g);
/* Heap bytes held (slots, hashes, key columns). */
size_t ex_ht_bytes(const ex_ht_t *ht);

#endif
