/*
 * op_nested_loop_join.c - the nested loop join.
 *
 * Algorithm. The build side is pushed to a second operator the join owns
 * (ex_nl_join_build_side), exactly as for the hash join, and copied into
 * the build store (ex_join_int.h). Each probe batch is then paired with
 * every build row: for each live probe row in turn, the build rows in
 * order, written into pair arrays of at most 2048 that the shared output
 * stage (ex_join.c) filters with the residual condition and emits before
 * the loop resumes, so a probe batch times a large build side never needs
 * more than one batch of pairs. Without a condition every pair is a row
 * of the output (a cross join). The output stage marks which probe rows
 * of the batch and which build rows had a pair that passed; after the
 * batch, LEFT and FULL emit the probe rows without one NULL-extended,
 * SEMI the rows with one, ANTI the rows without; a SEMI or ANTI probe
 * row stops pairing at its first match. After the last probe batch, RIGHT
 * and FULL emit the build rows never marked.
 *
 * Memory. The build rows are reserved against the query budget as they
 * arrive; a build side that does not fit fails with FL_ELIMIT naming the
 * sizes. The cost is probe rows times build rows, so the planner uses
 * this join only where no equality is available, and with the smaller
 * side as the build side.
 *
 * States.
 *   BUILDING   taking build batches
 *   PROBING    build side finished; probe batches are joined as they come
 *   FINISHED   unmatched build rows emitted and finish() passed downstream
 * A probe batch in BUILDING and a build batch after it are errors.
 * Checkpoints are not supported.
 */
#include "exec/op_nested_loop_join.h"

#include "base/alloc.h"
#include "exec/ex_join_int.h"

enum { ST_BUILDING, ST_PROBING, ST_FINISHED };

typedef struct nl_join nl_join_t;

typedef struct nl_build_side {
  ex_op_t op;
  nl_join_t *j;
} nl_build_side_t;

struct nl_join {
  ex_op_t op; /* the probe side */
  nl_build_side_t build;
  ex_ctx_t *ctx;
  int state;
  ex_join_type_t type;
  ex__join_out_t out;
  ex__join_store_t store;
  uint8_t *bmatched; /* per build row, RIGHT and FULL */
  uint32_t bmatched_cap;
  size_t reserved;
  uint32_t scratch_cap;
  uint32_t *rows, *emit_rows;
  uint8_t *pmatched;
  uint32_t *prow, *pk, *bid; /* TY_BATCH_ROWS pairs */
  ex_nl_join_stats_t stats;
};

static bool probe_only(ex_join_type_t t) { return t == EX_JOIN_SEMI || t == EX_JOIN_ANTI; }
static bool build_outer(ex_join_type_t t) { return t == EX_JOIN_RIGHT || t == EX_JOIN_FULL; }

static int nl_build_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  nl_join_t *j = ((nl_build_side_t *)op)->j;
  if (j->state != ST_BUILDING)
    return fl_err_set(err, FL_EINTERNAL,
                      "nested loop join: build batch after the build side finished");
  uint32_t first, n = ty_batch_live(b);
  if (!n) return FL_OK;
  int rc = ex__join_store_append(&j->store, b, &first, err);
  if (rc) return rc;
  j->stats.build_rows += n;
  size_t now = ex__join_store_bytes(&j->store) + j->store.nrows;
  if (now > j->reserved) {
    if (!ex_mem_reserve(j->ctx->mem, now - j->reserved))
      return fl_err_set(err, FL_ELIMIT,
                        "nested loop join: the build side (%u rows, %zu bytes) exceeds the "
                        "memory budget of %zu bytes",
                        j->store.nrows, now, j->ctx->mem->limit);
    j->reserved = now;
  }
  return FL_OK;
}

static int nl_build_finish(ex_op_t *op, fl_err_t *err) {
  nl_join_t *j = ((nl_build_side_t *)op)->j;
  if (j->state != ST_BUILDING)
    return fl_err_set(err, FL_EINTERNAL, "nested loop join: build side finished twice");
  if (build_outer(j->type)) j->bmatched = fl_calloc(j->store.nrows + 1, 1);
  j->state = ST_PROBING;
  return FL_OK;
}

static int nl_build_watermark(ex_op_t *op, int64_t ts_us, fl_err_t *err) { return FL_OK; }

static int nl_no_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) {
  return fl_err_set(err, FL_EUNSUPPORTED, "nested loop join: checkpoints are not supported");
}
static int nl_no_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  return fl_err_set(err, FL_EUNSUPPORTED, "nested loop join: checkpoints are not supported");
}

static void nl_build_destroy(ex_op_t *op) {}

static const ex_op_vt_t nl_build_vt = {
    .name = "nested_loop_join_build",
    .push = nl_build_push,
    .watermark = nl_build_watermark,
    .finish = nl_build_finish,
    .checkpoint = nl_no_checkpoint,
    .restore = nl_no_restore,
    .destroy = nl_build_destroy,
};

static int nl_probe_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  nl_join_t *j = (nl_join_t *)op;
  if (j->state != ST_PROBING)
    return fl_err_set(err, FL_EINTERNAL, "nested loop join: probe batch %s",
                      j->state == ST_BUILDING ? "before the build side finished" : "after finish");
  uint32_t n = ty_batch_live(b);
  if (!n) return FL_OK;
  j->stats.probe_rows += n;
  uint32_t need = b->nrows > n ? b->nrows : n;
  if (need > j->scratch_cap) {
    j->scratch_cap = need;
    j->rows = fl_realloc(j->rows, need * sizeof *j->rows);
    j->emit_rows = fl_realloc(j->emit_rows, need * sizeof *j->emit_rows);
    j->pmatched = fl_realloc(j->pmatched, need);
  }
  for (uint32_t k = 0; k < n; k++) j->rows[k] = b->sel ? b->sel[k] : k;
  memset(j->pmatched, 0, n);
  uint32_t nb = j->store.nrows;
  bool only = probe_only(j->type);
  int rc = FL_OK;
  if (only && !j->out.spec.filter) {
    /* Without a condition every build row pairs with every probe row. */
    memset(j->pmatched, nb > 0, n);
  } else if (nb) {
    uint32_t np = 0;
    for (uint32_t k = 0; k < n; k++) {
      for (uint32_t r = 0; r < nb; r++) {
        if (only && j->pmatched[k]) break;
        j->prow[np] = j->rows[k];
        j->pk[np] = k;
        j->bid[np++] = r;
        if (np == TY_BATCH_ROWS) {
          j->stats.pairs += np;
          rc = ex__join_pairs(&j->out, b, j->prow, j->pk, &j->store, j->bid, np, j->pmatched,
                              j->bmatched, err);
          if (rc) return rc;
          np = 0;
        }
      }
    }
    j->stats.pairs += np;
    rc = ex__join_pairs(&j->out, b, j->prow, j->pk, &j->store, j->bid, np, j->pmatched, j->bmatched,
                        err);
    if (rc) return rc;
  }
  return ex__join_probe_done(&j->out, b, j->rows, n, j->pmatched, NULL, j->emit_rows, err);
}

static int nl_probe_finish(ex_op_t *op, fl_err_t *err) {
  nl_join_t *j = (nl_join_t *)op;
  if (j->state != ST_PROBING)
    return fl_err_set(err, FL_EINTERNAL, "nested loop join: finish %s",
                      j->state == ST_BUILDING ? "before the build side finished" : "twice");
  int rc = FL_OK;
  if (build_outer(j->type))
    rc = ex__join_emit_unmatched_build(&j->out, &j->store, j->bmatched, err);
  if (rc) return rc;
  ex__join_store_clear(&j->store);
  ex_mem_release(j->ctx->mem, j->reserved);
  j->reserved = 0;
  j->state = ST_FINISHED;
  j->stats.rows_out = j->out.rows_out;
  return ex_op_forward_finish(op, err);
}

static int nl_probe_watermark(ex_op_t *op, int64_t ts_us, fl_err_t *err) {
  return ex_op_forward_watermark(op, ts_us, err);
}

static void nl_destroy(ex_op_t *op) {
  nl_join_t *j = (nl_join_t *)op;
  ex__join_store_free(&j->store);
  ex_mem_release(j->ctx->mem, j->reserved);
  ex__join_out_free(&j->out);
  fl_free(j->bmatched);
  fl_free(j->rows);
  fl_free(j->emit_rows);
  fl_free(j->pmatched);
  fl_free(j->prow);
  fl_free(j->pk);
  fl_free(j->bid);
  fl_free(j);
}

static const ex_op_vt_t nl_probe_vt = {
    .name = "nested_loop_join",
    .push = nl_probe_push,
    .watermark = nl_probe_watermark,
    .finish = nl_probe_finish,
    .checkpoint = nl_no_checkpoint,
    .restore = nl_no_restore,
    .destroy = nl_destroy,
};

int ex_nl_join_new(ex_ctx_t *ctx, fl_arena_t *arena, const ex_join_spec_t *spec, ex_op_t *next,
                   ex_op_t **out, fl_err_t *err) {
  if (spec->type == EX_JOIN_NULL_AWARE_ANTI)
    return fl_err_set(err, FL_EUNSUPPORTED,
                      "nested loop join: NOT IN needs a key column (use the hash join)");
  nl_join_t *j = fl_calloc(1, sizeof *j);
  int rc = ex__join_out_init(&j->out, &j->op, arena, spec, "nested loop join", err);
  if (rc) {
    fl_free(j);
    return rc;
  }
  j->op.vt = &nl_probe_vt;
  j->op.next = next;
  j->build.op.vt = &nl_build_vt;
  j->build.op.out_schema = j->op.out_schema;
  j->build.j = j;
  j->ctx = ctx;
  j->type = spec->type;
  ex__join_store_init(&j->store, spec->build_schema);
  j->prow = fl_malloc(TY_BATCH_ROWS * sizeof *j->prow);
  j->pk = fl_malloc(TY_BATCH_ROWS * sizeof *j->pk);
  j->bid = fl_malloc(TY_BATCH_ROWS * sizeof *j->bid);
  *out = &j->op;
  return FL_OK;
}

ex_op_t *ex_nl_join_build_side(ex_op_t *join) { return &((nl_join_t *)join)->build.op; }

const ex_nl_join_stats_t *ex_nl_join_stats(const ex_op_t *join) {
  nl_join_t *j = (nl_join_t *)join;
  j->stats.rows_out = j->out.rows_out;
  return &j->stats;
}
