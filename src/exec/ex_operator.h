/*
 * ex_operator.h - the push-based operator interface, the per-query memory
 * budget, and a sink that collects batches (layer 8, exec).
 *
 * An operator is a small table of function pointers set up once by its
 * constructor. Its producer calls push() with each input batch; the
 * operator pushes whatever output it has to its consumer (`next`). At the
 * end of a bounded input the producer calls finish(): a blocking operator
 * (aggregation, sort) emits then, and every operator passes finish() on to
 * its consumer after its last output. A streaming job instead sends
 * watermark() and, at checkpoint barriers, checkpoint()/restore(). Batch
 * queries and streaming jobs share these operators.
 *
 * The batch handed to push() belongs to the producer and is valid only
 * during the call: an operator that keeps rows copies them.
 *
 * Memory: every operator of a query reserves the bytes it holds against
 * one ex_mem_t budget. A reservation that would exceed the budget fails
 * and the operator spills (hash aggregation, sort) or reports FL_ELIMIT.
 * An operator is driven by one thread at a time; the budget may be shared
 * by operators on any number of threads.
 */
#ifndef FL_EXEC_EX_OPERATOR_H
#define FL_EXEC_EX_OPERATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"
#include "types/vec.h"

/* The memory budget of a query. limit 0 means unlimited. The counters are
 * atomic: operators on several worker threads may share one budget. */
typedef struct ex_mem {
  size_t limit;
  _Atomic size_t used;
  _Atomic size_t peak;
  _Atomic uint64_t failed; /* reservations refused so far (spill decisions) */
} ex_mem_t;

void ex_mem_init(ex_mem_t *m, size_t limit_bytes);
/* Adds n bytes to used when that stays within the limit; false (and no
 * change) otherwise. */
bool ex_mem_reserve(ex_mem_t *m, size_t n);
/* Adds n bytes whatever the limit: for memory an operator cannot avoid
 * holding (the batch it is working on). */
void ex_mem_force(ex_mem_t *m, size_t n);
void ex_mem_release(ex_mem_t *m, size_t n);

/*
 * What an operator needs from its query: the budget and where to spill.
 * spill_dir NULL means $TMPDIR, else /tmp; each spilling operator makes its
 * own private directory below it and removes it when destroyed.
 */
typedef struct ex_opctx {
  ex_mem_t *mem;
  const char *spill_dir;
} ex_opctx_t;

typedef struct ex_op ex_op_t;

typedef struct ex_op_vt {
  const char *name;
  /* Consumes one batch (its live rows: the selection when set). */
  int (*push)(ex_op_t *op, const ty_batch_t *b, fl_err_t *err);
  /* Event time has advanced to ts_us (microseconds since the epoch). */
  int (*watermark)(ex_op_t *op, int64_t ts_us, fl_err_t *err);
  /* End of a bounded input: emit what is held, then finish the consumer. */
  int (*finish)(ex_op_t *op, fl_err_t *err);
  /* Appends the operator's state; restore() reads the same bytes back
   * into a freshly constructed operator. */
  int (*checkpoint)(ex_op_t *op, fl_buf_t *w, fl_err_t *err);
  int (*restore)(ex_op_t *op, fl_rd_t *r, fl_err_t *err);
  /* Frees the operator (not its consumer). */
  void (*destroy)(ex_op_t *op);
} ex_op_vt_t;

/* The common head of every operator; concrete operators embed it first. */
struct ex_op {
  const ex_op_vt_t *vt;
  ex_op_t *next;                 /* consumer; NULL drops the output */
  const ty_schema_t *out_schema; /* columns of the batches pushed to next */
};

static inline int ex_op_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  return op->vt->push(op, b, err);
}
static inline int ex_op_finish(ex_op_t *op, fl_err_t *err) { return op->vt->finish(op, err); }
static inline int ex_op_watermark(ex_op_t *op, int64_t ts_us, fl_err_t *err) {
  return op->vt->watermark(op, ts_us, err);
}
static inline int ex_op_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) {
  return op->vt->checkpoint(op, w, err);
}
static inline int ex_op_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  return op->vt->restore(op, r, err);
}
static inline void ex_op_destroy(ex_op_t *op) {
  if (op) op->vt->destroy(op);
}

/* Helpers for operators: pass a batch, a watermark or finish downstream
 * (no-ops without a consumer). */
int ex_op_emit(ex_op_t *op, const ty_batch_t *b, fl_err_t *err);
int ex_op_forward_watermark(ex_op_t *op, int64_t ts_us, fl_err_t *err);
int ex_op_forward_finish(ex_op_t *op, fl_err_t *err);

/*
 * The sink: the end of a pipeline that keeps copies of every batch pushed
 * to it (selection applied), for tests and for `floe sql` output. Its
 * checkpoint writes nothing.
 */
typedef struct ex_sink {
  ex_op_t op;
  ty_batch_t **batches;
  uint32_t nbatches, cap;
  uint64_t rows;
  bool finished;
  int64_t watermark_us; /* last watermark seen, INT64_MIN before any */
} ex_sink_t;

ex_sink_t *ex_sink_new(const ty_schema_t *schema);
/* Row count and access to row i of column c across the collected batches. */
const ty_vec_t *ex_sink_row(const ex_sink_t *s, uint64_t row, uint32_t col, uint32_t *index);

#endif
