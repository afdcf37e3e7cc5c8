/*
 * op_join_filter.c - the join key filter (op_join_filter.h).
 *
 * Algorithm. Each batch's live rows are looked up as a whole in the
 * join's table (ex_ht_find_shared with the filter's own scratch, so lanes
 * never share lookup state) and the rows found are passed on as a
 * selection over the same batch: nothing is copied. A row with a NULL or
 * NaN key is never in the table (the join does not insert such rows), so
 * it is dropped, as the join itself would drop it.
 *
 * States: one. Until the table exists (never, for a spilled join) rows
 * pass unchanged.
 */
#include "exec/op_join_filter.h"

#include <string.h>

#include "base/alloc.h"
#include "exec/ex_hash_table.h"
#include "exec/op_hash_join.h"

typedef struct join_filter {
  ex_op_t op;
  const ex_op_t *join;
  uint32_t *cols, ncols;
  ty_vec_t **kcols;
  ex_ht_scratch_t sc;
  uint32_t *rows, *gids, *sel, cap;
  uint64_t dropped;
} join_filter_t;

static int jf_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  join_filter_t *f = (join_filter_t *)op;
  uint32_t n = ty_batch_live(b);
  if (!n) return FL_OK;
  const ex_ht_t *ht = ex_hash_join_table(f->join);
  if (!ht) return ex_op_emit(op, b, err);
  if (n > f->cap) {
    f->cap = n < TY_BATCH_ROWS ? TY_BATCH_ROWS : n;
    f->rows = fl_realloc(f->rows, f->cap * sizeof *f->rows);
    f->gids = fl_realloc(f->gids, f->cap * sizeof *f->gids);
    f->sel = fl_realloc(f->sel, f->cap * sizeof *f->sel);
  }
  for (uint32_t k = 0; k < n; k++) f->rows[k] = b->sel ? b->sel[k] : k;
  for (uint32_t c = 0; c < f->ncols; c++) f->kcols[c] = b->cols[f->cols[c]];
  ex_ht_find_shared(ht, &f->sc, f->kcols, f->rows, n, NULL, f->gids);
  uint32_t m = 0;
  for (uint32_t k = 0; k < n; k++)
    if (f->gids[k] != EX_HT_MISSING) f->sel[m++] = f->rows[k];
  f->dropped += n - m;
  if (!m) return FL_OK;
  ty_batch_t out = *b;
  out.sel = f->sel;
  out.nsel = m;
  out.sel_cap = f->cap;
  return ex_op_emit(op, &out, err);
}

static int jf_watermark(ex_op_t *op, int64_t ts, fl_err_t *err) {
  return ex_op_forward_watermark(op, ts, err);
}
static int jf_finish(ex_op_t *op, fl_err_t *err) { return ex_op_forward_finish(op, err); }
static int jf_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) { return FL_OK; }
static int jf_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) { return FL_OK; }

static void jf_destroy(ex_op_t *op) {
  join_filter_t *f = (join_filter_t *)op;
  ex_ht_scratch_free(&f->sc);
  fl_free(f->cols);
  fl_free(f->kcols);
  fl_free(f->rows);
  fl_free(f->gids);
  fl_free(f->sel);
  fl_free(f);
}

static const ex_op_vt_t jf_vt = {
    .name = "join_filter",
    .push = jf_push,
    .watermark = jf_watermark,
    .finish = jf_finish,
    .checkpoint = jf_checkpoint,
    .restore = jf_restore,
    .destroy = jf_destroy,
};

int ex_join_filter_new(const ex_op_t *join, const ty_schema_t *in, const uint32_t *cols,
                       uint32_t ncols, ex_op_t *next, ex_op_t **out, fl_err_t *err) {
  if (!ncols) return fl_err_set(err, FL_EINVALID, "join filter: no key columns");
  for (uint32_t c = 0; c < ncols; c++)
    if (cols[c] >= in->root.nfields)
      return fl_err_set(err, FL_EINVALID, "join filter: key column %u of %u", cols[c],
                        in->root.nfields);
  join_filter_t *f = fl_calloc(1, sizeof *f);
  f->op.vt = &jf_vt;
  f->op.next = next;
  f->op.out_schema = in;
  f->join = join;
  f->ncols = ncols;
  f->cols = fl_malloc(ncols * sizeof *f->cols);
  memcpy(f->cols, cols, ncols * sizeof *f->cols);
  f->kcols = fl_calloc(ncols, sizeof *f->kcols);
  *out = &f->op;
  return FL_OK;
}

uint64_t ex_join_filter_dropped(const ex_op_t *op) { return ((const join_filter_t *)op)->dropped; }
