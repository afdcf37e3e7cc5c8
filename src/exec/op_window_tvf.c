/*
 * op_window_tvf.c - window assignment as a streaming operator: Flink's
 * TUMBLE, HOP and CUMULATE table functions in FROM without a window
 * aggregation above them.
 *
 * Algorithm. Stateless. For each input batch, pass j (0 up to the most
 * windows a row can have, ex_window_max_per_row) collects the live rows
 * that have a j-th window, gathers their columns into the output batch
 * and appends the window's start, end and window_time. So a TUMBLE row
 * comes out once, a HOP row size / slide times, a CUMULATE row once per
 * cumulative window that holds it. Watermarks, finish and checkpoints
 * pass through: there is no state to write.
 */
#include "exec/op_window_tvf.h"

#include "base/alloc.h"
#include "exec/ex_vec.h"

typedef struct wtvf {
  ex_op_t op;
  ex_window_spec_t spec;
  uint32_t time_col, ncols;
  ty_batch_t *out;
  uint32_t rows[TY_BATCH_ROWS];
  int64_t start[TY_BATCH_ROWS], end[TY_BATCH_ROWS];
} wtvf_t;

static int tvf_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  wtvf_t *t = (wtvf_t *)op;
  uint32_t n = ty_batch_live(b);
  const ty_vec_t *tv = b->cols[t->time_col];
  const int64_t *ts = (const int64_t *)tv->data;
  uint32_t maxj = ex_window_max_per_row(&t->spec);
  for (uint32_t j = 0; j < maxj; j++) {
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
      uint32_t r = b->sel ? b->sel[k] : k;
      if (ty_vec_is_null(tv, r) || !ex_window_nth(&t->spec, ts[r], j, &t->start[m], &t->end[m]))
        continue;
      t->rows[m++] = r;
    }
    if (!m) break;
    ty_batch_t *o = t->out;
    ty_batch_reset(o);
    for (uint32_t c = 0; c < t->ncols; c++) ex_vec_gather(o->cols[c], b->cols[c], t->rows, m);
    for (uint32_t k = 0; k < m; k++) {
      ty_vec_append_i64(o->cols[t->ncols], t->start[k]);
      ty_vec_append_i64(o->cols[t->ncols + 1], t->end[k]);
      ty_vec_append_i64(o->cols[t->ncols + 2], EX_WINDOW_TIME_US(t->end[k]));
    }
    ty_batch_seal(o);
    int rc = ex_op_emit(op, o, err);
    if (rc) return rc;
  }
  return FL_OK;
}

static int tvf_watermark(ex_op_t *op, int64_t ts, fl_err_t *err) {
  return ex_op_forward_watermark(op, ts, err);
}
static int tvf_finish(ex_op_t *op, fl_err_t *err) { return ex_op_forward_finish(op, err); }
static int tvf_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) {
  (void)op, (void)w, (void)err;
  return FL_OK;
}
static int tvf_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  (void)op, (void)r, (void)err;
  return FL_OK;
}
static void tvf_destroy(ex_op_t *op) {
  wtvf_t *t = (wtvf_t *)op;
  ty_batch_free(t->out);
  fl_free(t);
}

static const ex_op_vt_t tvf_vt = {.name = "window_tvf",
                                  .push = tvf_push,
                                  .watermark = tvf_watermark,
                                  .finish = tvf_finish,
                                  .checkpoint = tvf_checkpoint,
                                  .restore = tvf_restore,
                                  .destroy = tvf_destroy};

int ex_window_tvf_new(fl_arena_t *arena, const ty_schema_t *in, const ex_window_spec_t *spec,
                      uint32_t time_col, ex_op_t *next, ex_op_t **out, fl_err_t *err) {
  char msg[256];
  uint32_t n = in->root.nfields;
  if (spec->kind == EX_WINDOW_SESSION)
    return fl_err_set(err, FL_EUNSUPPORTED, "window TVF: SESSION windows need an aggregation");
  if (!ex_window_spec_check(spec, msg, sizeof msg))
    return fl_err_set(err, FL_EINVALID, "window TVF: %s", msg);
  const ty_type_t *tt = time_col < n ? in->root.fields[time_col].type : NULL;
  if (!tt || (tt->kind != TY_TIMESTAMP && tt->kind != TY_TIMESTAMPTZ))
    return fl_err_set(err, FL_EINVALID, "window TVF: column %u is not a timestamp", time_col);
  ty_field_t *f = fl_arena_zalloc(arena, (n + 3) * sizeof *f);
  for (uint32_t i = 0; i < n; i++) f[i] = in->root.fields[i];
  static const char *const names[] = {"window_start", "window_end", "window_time"};
  for (uint32_t i = 0; i < 3; i++)
    f[n + i] = (ty_field_t){.id = (int32_t)(n + i + 1), .name = names[i], .type = tt};
  wtvf_t *t = fl_calloc(1, sizeof *t);
  t->op.vt = &tvf_vt;
  t->op.next = next;
  t->op.out_schema = ty_schema_new(arena, 0, f, n + 3);
  t->spec = *spec;
  t->time_col = time_col;
  t->ncols = n;
  t->out = ty_batch_new(t->op.out_schema, TY_BATCH_ROWS);
  *out = &t->op;
  return FL_OK;
}
