/*
 * ex_operator.c - the memory budget, forwarding helpers and the collecting
 * sink.
 */
#include "exec/ex_operator.h"

#include <stdatomic.h>

#include "base/alloc.h"
#include "exec/ex_vec.h"

void ex_mem_init(ex_mem_t *m, size_t limit_bytes) {
  m->limit = limit_bytes;
  atomic_init(&m->used, 0);
  atomic_init(&m->peak, 0);
  atomic_init(&m->failed, 0);
}

static void note_peak(ex_mem_t *m, size_t used) {
  size_t peak = atomic_load(&m->peak);
  while (used > peak && !atomic_compare_exchange_weak(&m->peak, &peak, used)) {
  }
}

bool ex_mem_reserve(ex_mem_t *m, size_t n) {
  size_t used = atomic_load(&m->used);
  for (;;) {
    if (m->limit && (used + n > m->limit || used + n < used)) {
      atomic_fetch_add(&m->failed, 1);
      return false;
    }
    if (atomic_compare_exchange_weak(&m->used, &used, used + n)) break;
  }
  note_peak(m, used + n);
  return true;
}

void ex_mem_force(ex_mem_t *m, size_t n) { note_peak(m, atomic_fetch_add(&m->used, n) + n); }

void ex_mem_release(ex_mem_t *m, size_t n) {
  size_t used = atomic_load(&m->used);
  while (!atomic_compare_exchange_weak(&m->used, &used, n > used ? 0 : used - n)) {
  }
}

int ex_op_emit(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  if (!op->next || ty_batch_live(b) == 0) return FL_OK;
  return ex_op_push(op->next, b, err);
}

int ex_op_forward_watermark(ex_op_t *op, int64_t ts_us, fl_err_t *err) {
  return op->next ? ex_op_watermark(op->next, ts_us, err) : FL_OK;
}

int ex_op_forward_finish(ex_op_t *op, fl_err_t *err) {
  return op->next ? ex_op_finish(op->next, err) : FL_OK;
}

static int sink_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  ex_sink_t *s = (ex_sink_t *)op;
  if (s->finished) return fl_err_set(err, FL_EINTERNAL, "sink: batch pushed after finish");
  if (s->nbatches == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 8;
    s->batches = fl_realloc(s->batches, s->cap * sizeof *s->batches);
  }
  ty_batch_t *copy = ty_batch_new(op->out_schema, ty_batch_live(b));
  ex_batch_append_live(copy, b);
  s->batches[s->nbatches++] = copy;
  s->rows += copy->nrows;
  return FL_OK;
}

static int sink_watermark(ex_op_t *op, int64_t ts_us, fl_err_t *err) {
  ((ex_sink_t *)op)->watermark_us = ts_us;
  return FL_OK;
}

static int sink_finish(ex_op_t *op, fl_err_t *err) {
  ex_sink_t *s = (ex_sink_t *)op;
  if (s->finished) return fl_err_set(err, FL_EINTERNAL, "sink: finished twice");
  s->finished = true;
  return FL_OK;
}

static int sink_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) { return FL_OK; }
static int sink_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) { return FL_OK; }

static void sink_destroy(ex_op_t *op) {
  ex_sink_t *s = (ex_sink_t *)op;
  for (uint32_t i = 0; i < s->nbatches; i++) ty_batch_free(s->batches[i]);
  fl_free(s->batches);
  fl_free(s);
}

static const ex_op_vt_t sink_vt = {
    .name = "sink",
    .push = sink_push,
    .watermark = sink_watermark,
    .finish = sink_finish,
    .checkpoint = sink_checkpoint,
    .restore = sink_restore,
    .destroy = sink_destroy,
};

ex_sink_t *ex_sink_new(const ty_schema_t *schema) {
  ex_sink_t *s = fl_calloc(1, sizeof *s);
  s->op.vt = &sink_vt;
  s->op.out_schema = schema;
  s->watermark_us = INT64_MIN;
  return s;
}

const ty_vec_t *ex_sink_row(const ex_sink_t *s, uint64_t row, uint32_t col, uint32_t *index) {
  for (uint32_t i = 0; i < s->nbatches; i++) {
    if (row < s->batches[i]->nrows) {
      *index = (uint32_t)row;
      return s->batches[i]->cols[col];
    }
    row -= s->batches[i]->nrows;
  }
  return NULL;
}
