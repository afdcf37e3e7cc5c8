/*
 * ex_join_int.h - the parts the hash join and the nested loop join share
 * (private to exec): the store that holds build rows, and the output
 * stage that turns (probe row, build row) pairs into joined batches,
 * applying the residual condition and recording which rows matched.
 */
#ifndef FL_EXEC_EX_JOIN_INT_H
#define FL_EXEC_EX_JOIN_INT_H

#include <stdbool.h>

#include "base/arena.h"
#include "exec/ex_join.h"
#include "exec/ex_operator.h"

#define EX_JOIN_NONE UINT32_MAX

/*
 * Build rows, copied into chunks of TY_BATCH_ROWS rows of the build
 * schema, numbered 0, 1, 2, ... in arrival order: row r is row
 * r % TY_BATCH_ROWS of chunk r / TY_BATCH_ROWS.
 */
typedef struct ex__join_store {
  const ty_schema_t *schema;
  ty_batch_t **chunks;
  uint32_t nchunks, cap;
  uint32_t nrows;
  size_t full_bytes; /* footprint of every chunk but the last (they are full) */
  /* Gather scratch. */
  const ty_vec_t **srcs;
  uint32_t *idx;
} ex__join_store_t;

void ex__join_store_init(ex__join_store_t *s, const ty_schema_t *schema);
/* Frees every chunk (the memory goes back, not just the rows). */
void ex__join_store_clear(ex__join_store_t *s);
void ex__join_store_free(ex__join_store_t *s);
/* Appends the live rows of b; returns the number of the first. Fails with
 * FL_ELIMIT beyond 2^32 - 2 rows. */
int ex__join_store_append(ex__join_store_t *s, const ty_batch_t *b, uint32_t *first, fl_err_t *err);
/* Appends rows ids[0..n) of column c to dst. */
void ex__join_store_gather(ex__join_store_t *s, uint32_t c, const uint32_t *ids, uint32_t n,
                           ty_vec_t *dst);
size_t ex__join_store_bytes(const ex__join_store_t *s);
static inline ty_batch_t *ex__join_store_chunk(const ex__join_store_t *s, uint32_t row) {
  return s->chunks[row / TY_BATCH_ROWS];
}

/* The output stage of one join operator. */
typedef struct ex__join_out {
  ex_op_t *op; /* emits to op->next */
  ex_join_spec_t spec;
  const ty_schema_t *out;  /* output columns */
  const ty_schema_t *comb; /* probe columns then build columns: the residual's input */
  ty_batch_t *ob, *cb;
  ty_batch_t view; /* output columns as a view of cb, with a selection */
  uint32_t *sel;
  uint64_t rows_out;
} ex__join_out_t;

/* Checks the spec (column indexes, output columns for the type) and
 * builds the schemas in arena; `what` names the operator in errors. */
int ex__join_out_init(ex__join_out_t *o, ex_op_t *op, fl_arena_t *arena, const ex_join_spec_t *spec,
                      const char *what, fl_err_t *err);
void ex__join_out_free(ex__join_out_t *o);

/*
 * Takes n candidate pairs: probe row prow[x] of pb (a row number of the
 * batch, selection already applied), numbered pk[x] within the caller's
 * probe rows, with build row bid[x] of st. Applies the residual; for each
 * pair that passes sets pmatched[pk[x]] and, when bmatched is not NULL,
 * bmatched[bid[x]]; and for INNER, LEFT, RIGHT and FULL emits the joined
 * rows. n is at most TY_BATCH_ROWS.
 */
int ex__join_pairs(ex__join_out_t *o, const ty_batch_t *pb, const uint32_t *prow,
                   const uint32_t *pk, ex__join_store_t *st, const uint32_t *bid, uint32_t n,
                   uint8_t *pmatched, uint8_t *bmatched, fl_err_t *err);
/* Emits probe rows rows[0..n) of pb, with NULL build columns if any. */
int ex__join_emit_probe(ex__join_out_t *o, const ty_batch_t *pb, const uint32_t *rows, uint32_t n,
                        fl_err_t *err);
/*
 * After the pairs of probe rows rows[0..n) of pb: emits those without a
 * pair NULL-extended (LEFT, FULL) or alone (ANTI, NULL_AWARE_ANTI), or
 * those with one (SEMI). For NOT IN, rows NULL in drop_nulls (the probe
 * key column, when the build side is not empty) are left out. scratch
 * has room for n rows.
 */
int ex__join_probe_done(ex__join_out_t *o, const ty_batch_t *pb, const uint32_t *rows, uint32_t n,
                        const uint8_t *pmatched, const ty_vec_t *drop_nulls, uint32_t *scratch,
                        fl_err_t *err);
/* Emits every build row of st whose bmatched entry is `want`, probe
 * columns NULL: 0 for RIGHT, FULL and RIGHT_ANTI, 1 for RIGHT_SEMI. */
int ex__join_emit_build(ex__join_out_t *o, ex__join_store_t *st, const uint8_t *bmatched,
                        uint8_t want, fl_err_t *err);

/* Marks build row r as matched. Probe lanes of one join mark rows of the
 * shared array at once; every writer stores 1 and nobody reads it before
 * all lanes have finished, so a relaxed atomic store is all it takes. */
static inline void ex__join_mark(uint8_t *bmatched, uint32_t r) {
  __atomic_store_n(&bmatched[r], 1, __ATOMIC_RELAXED);
}
static inline bool ex__join_marked(const uint8_t *bmatched, uint32_t r) {
  return __atomic_load_n(&bmatched[r], __ATOMIC_RELAXED) != 0;
}

#endif
