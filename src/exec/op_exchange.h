/*
 * op_exchange.h - the operators that join and split the lanes of a
 * parallel pipeline (layer 8, exec).
 *
 * A parallel pipeline runs N lanes: lane w is a chain of operators driven
 * by one thread at a time (the worker that claimed a morsel for lane w),
 * and every lane is finished exactly once. Where lanes meet a shared
 * operator they go through an exchange:
 *
 *   gather       N lanes into one operator: push under a mutex, finish
 *                after the N-th lane finished. In front of the blocking
 *                operators that hold one state (sort, window, LIMIT, the
 *                build side of a join).
 *   fanout       one producer into N lanes: batches go to lane 0 (order
 *                is kept), finish() finishes every lane. Behind a shared
 *                operator, so the lanes downstream each see one finish.
 *   repartition  N lanes into P targets by a hash of key columns: each
 *                lane splits its batches by hash and pushes each part to
 *                its target under that target's mutex; when the last lane
 *                finishes, the P targets are finished in parallel on the
 *                pool, and so emit on P threads at once (the final phase
 *                of a parallel aggregation, one target per partition).
 */
#ifndef FL_EXEC_OP_EXCHANGE_H
#define FL_EXEC_OP_EXCHANGE_H

#include "base/pool.h"
#include "exec/ex_operator.h"

/* Forwards the batches of ninputs concurrent producers to next, one at a
 * time; finishes next after ninputs finish() calls. */
ex_op_t *ex_gather_new(const ty_schema_t *schema, uint32_t ninputs, ex_op_t *next);

/* Pushes to lanes[0]; finish() finishes lanes[0..n). lanes is copied. */
ex_op_t *ex_fanout_new(const ty_schema_t *schema, ex_op_t *const *lanes, uint32_t n);

/*
 * The shared part of a repartition: P targets (each driven under its own
 * mutex), nlanes producing lanes, the key columns hashed (none: every row
 * goes to target 0), and `also` lanes finished after the targets (so that
 * P targets can feed N > P downstream lanes). pool NULL finishes the
 * targets on the calling thread. Free with ex_repartition_free after the
 * lanes (ex_repartition_lane) are destroyed.
 */
typedef struct ex_repartition ex_repartition_t;
ex_repartition_t *ex_repartition_new(const ty_schema_t *schema, const uint32_t *key_cols,
                                     uint32_t nkeys, ex_op_t *const *targets, uint32_t ntargets,
                                     ex_op_t *const *also, uint32_t nalso, uint32_t nlanes,
                                     fl_pool_t *pool);
/* The operator of one producing lane (owned by r). */
ex_op_t *ex_repartition_lane(ex_repartition_t *r, uint32_t lane);
void ex_repartition_free(ex_repartition_t *r);

#endif
