/*
 * ex_partition.c - rows grouped by key hash into parts (layer 8, exec).
 * See ex_partition.h.
 *
 * A counting sort: hash the key columns of the live rows in one call,
 * turn each hash into its part, count the rows of each part, and place
 * the row indexes part after part. Two passes over the rows and no
 * allocation once the buffers have grown to the largest batch.
 */
#include "exec/ex_partition.h"

#include <string.h>

#include "base/alloc.h"
#include "exec/ex_hash_table.h"

struct ex_partitioner {
  ex_ht_t *hasher; /* only for ex_ht_hash over the key types */
  uint32_t *key_cols, nkeys, nparts;
  ty_vec_t **kcols;
  uint32_t *rows, *bucket, *count, *end, cap;
  uint64_t *hashes;
};

ex_partitioner_t *ex_partitioner_new(const ty_type_t *const *key_types, const uint32_t *key_cols,
                                     uint32_t nkeys, uint32_t nparts) {
  ex_partitioner_t *p = fl_calloc(1, sizeof *p);
  p->nkeys = nkeys;
  p->nparts = nparts ? nparts : 1;
  p->key_cols = fl_calloc(nkeys ? nkeys : 1, sizeof *p->key_cols);
  if (nkeys) memcpy(p->key_cols, key_cols, nkeys * sizeof *key_cols);
  p->kcols = fl_calloc(nkeys ? nkeys : 1, sizeof *p->kcols);
  if (nkeys) p->hasher = ex_ht_new(key_types, nkeys);
  p->count = fl_calloc(p->nparts, sizeof *p->count);
  p->end = fl_calloc(p->nparts, sizeof *p->end);
  return p;
}

void ex_partitioner_free(ex_partitioner_t *p) {
  if (!p) return;
  ex_ht_free(p->hasher);
  fl_free(p->key_cols);
  fl_free(p->kcols);
  fl_free(p->rows);
  fl_free(p->bucket);
  fl_free(p->count);
  fl_free(p->end);
  fl_free(p->hashes);
  fl_free(p);
}

uint32_t ex_partitioner_split(ex_partitioner_t *p, const ty_batch_t *b) {
  uint32_t n = ty_batch_live(b), P = p->nparts;
  if (n > p->cap) {
    p->cap = n > TY_BATCH_ROWS ? n : TY_BATCH_ROWS;
    p->rows = fl_realloc(p->rows, p->cap * sizeof *p->rows);
    p->bucket = fl_realloc(p->bucket, p->cap * sizeof *p->bucket);
    p->hashes = fl_realloc(p->hashes, p->cap * sizeof *p->hashes);
  }
  memset(p->count, 0, P * sizeof *p->count);
  uint32_t *out = p->nkeys && P > 1 ? p->rows : p->bucket;
  for (uint32_t k = 0; k < n; k++) out[k] = b->sel ? b->sel[k] : k;
  if (!p->nkeys || P == 1) {
    /* One part: the live rows as they are. */
    p->count[0] = n;
    p->end[0] = n;
    for (uint32_t i = 1; i < P; i++) p->end[i] = n;
    return n;
  }
  for (uint32_t c = 0; c < p->nkeys; c++) p->kcols[c] = b->cols[p->key_cols[c]];
  ex_ht_hash(p->hasher, p->kcols, p->rows, n, p->hashes);
  for (uint32_t k = 0; k < n; k++) {
    uint32_t d = ex_partition_of(p->hashes[k], P);
    p->hashes[k] = d;
    p->count[d]++;
  }
  uint32_t sum = 0;
  for (uint32_t d = 0; d < P; d++) {
    p->end[d] = sum;
    sum += p->count[d];
  }
  for (uint32_t k = 0; k < n; k++) p->bucket[p->end[p->hashes[k]]++] = p->rows[k];
  return n;
}

uint32_t *ex_partitioner_part(const ex_partitioner_t *p, uint32_t i, uint32_t *n) {
  *n = p->count[i];
  return p->bucket + p->end[i] - p->count[i];
}
