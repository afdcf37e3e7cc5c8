/*
 * ex_partition.h - the live rows of a batch grouped by the hash of their
 * key columns into P parts (layer 8, exec).
 *
 * What every hand-off of rows by key does first: the parallel
 * repartition of a query (op_exchange.h) and the keyed exchange between
 * the threads of a streaming job (stream/st_exchange.h). Equal keys get
 * the same part whatever batch, thread or process they come from, since
 * the hash is the group hash table's (ex_ht_hash) and the part a pure
 * function of it. The rows are not copied: a part is a list of row
 * indexes into the batch's own columns, ready to be a selection vector.
 */
#ifndef FL_EXEC_PARTITION_H
#define FL_EXEC_PARTITION_H

#include <stdint.h>

#include "types/type.h"
#include "types/vec.h"

typedef struct ex_partitioner ex_partitioner_t;

/* A partitioner of batches whose key columns are key_cols (of the types
 * key_types) into nparts parts; with nkeys 0 every row goes to part 0.
 * Owned by one thread at a time. */
ex_partitioner_t *ex_partitioner_new(const ty_type_t *const *key_types, const uint32_t *key_cols,
                                     uint32_t nkeys, uint32_t nparts);
void ex_partitioner_free(ex_partitioner_t *p);

/* Groups the live rows of b (its selection, if any) by part; returns
 * their number. The parts stay valid until the next split. */
uint32_t ex_partitioner_split(ex_partitioner_t *p, const ty_batch_t *b);

/* Part i of the last split: *n row indexes into the batch's columns, in
 * the batch's order; the partitioner owns them (a selection vector for
 * a view of the batch). */
uint32_t *ex_partitioner_part(const ex_partitioner_t *p, uint32_t i, uint32_t *n);

/* The part of a key whose ex_ht_hash is h. The hash's high half picks it:
 * the low bits place the key in the receiving side's hash table and the
 * top four choose its spill partition, so a part's keys must not agree on
 * either (they would crowd a fraction of the slots or of the partitions). */
static inline uint32_t ex_partition_of(uint64_t h, uint32_t nparts) {
  return (uint32_t)((h >> 32) % nparts);
}

#endif
