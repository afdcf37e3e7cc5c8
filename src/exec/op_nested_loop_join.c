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
 * Memory: a block nested loop join. The build rows are reserved against
 * the query budget as they arrive. When the budget refuses, the rows held
 * are written to a spill file and so is the rest of the build side; the
 * probe side is then written to a second file, and nothing is emitted
 * until the probe side finishes. Then the build file is read in blocks,
 * each as many rows as the budget allows (at least one batch), and the
 * whole probe file is streamed past each block. Which probe rows have a
 * pair is recorded for the whole probe side (one byte per row) and which
 * build rows have one for the block, so RIGHT and FULL emit a block's
 * unmatched rows after its pass, and LEFT, FULL, SEMI and ANTI emit their
 * probe rows in one last pass over the probe file. The result equals the
 * in-memory join's; the cost is one pass over the probe file per block.
 * The planner uses this join only where no equality is available, with
 * the smaller side as the build side.
 *
 * States.
 *   BUILDING   taking build batches, held or (`spilled`) written out
 *   PROBING    build side finished; probe batches are joined as they come,
 *              or written out when spilled
 *   FINISHED   blocks joined, unmatched rows emitted and finish() passed
 *              downstream
 * A probe batch in BUILDING and a build batch after it are errors.
 * Checkpoints are not supported.
 */
#include "exec/op_nested_loop_join.h"

#include "base/alloc.h"
#include "exec/ex_join_int.h"
#include "exec/ex_spill.h"
#include "exec/ex_vec.h"

enum { ST_BUILDING, ST_PROBING, ST_FINISHED };

typedef struct nl_join nl_join_t;

typedef struct nl_build_side {
  ex_op_t op;
  nl_join_t *j;
} nl_build_side_t;

struct nl_join {
  ex_op_t op; /* the probe side */
  nl_build_side_t build;
  ex_opctx_t *ctx;
  int state;
  ex_join_type_t type;
  ex__join_out_t out;
  ex__join_store_t store;
  uint8_t *bmatched; /* per build row (of the block), RIGHT and FULL */
  size_t reserved;
  uint32_t scratch_cap;
  uint32_t *rows, *emit_rows;
  uint8_t *pmatched;
  uint32_t *prow, *pk, *bid; /* TY_BATCH_ROWS pairs */
  /* Spilling. */
  bool spilled;
  ex_spill_dir_t *dir;
  ex_spill_file_t *bfile, *pfile;
  ty_batch_t *bstage, *pstage; /* compact copies of input batches */
  ex_nl_join_stats_t stats;
};

static bool probe_only(ex_join_type_t t) { return t == EX_JOIN_SEMI || t == EX_JOIN_ANTI; }
static bool build_outer(ex_join_type_t t) { return t == EX_JOIN_RIGHT || t == EX_JOIN_FULL; }

static void release(nl_join_t *j) {
  ex_mem_release(j->ctx->mem, j->reserved);
  j->reserved = 0;
}

/* Reserves the store's footprint; false when the budget refuses (then
 * nothing is held beyond what was). force holds it anyway. */
static bool reserve_store(nl_join_t *j, bool force) {
  size_t now = ex__join_store_bytes(&j->store) + j->store.nrows;
  if (now <= j->reserved) return true;
  if (!ex_mem_reserve(j->ctx->mem, now - j->reserved)) {
    if (!force) return false;
    ex_mem_force(j->ctx->mem, now - j->reserved);
  }
  j->reserved = now;
  return true;
}

/* Writes the live rows of b to f (created on first use). */
static int spill_batch(nl_join_t *j, ex_spill_file_t **f, ty_batch_t *stage, const ty_batch_t *b,
                       fl_err_t *err) {
  int rc;
  if (!j->dir && (rc = ex_spill_dir_open(j->ctx->spill_dir, &j->dir, err))) return rc;
  if (!*f && (rc = ex_spill_create(j->dir, f, err))) return rc;
  const ty_batch_t *w = b;
  if (b->sel) {
    ty_batch_reset(stage);
    ex_batch_append_live(stage, b);
    w = stage;
  }
  return ex_spill_write(*f, w, err);
}

static int nl_build_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  nl_join_t *j = ((nl_build_side_t *)op)->j;
  if (j->state != ST_BUILDING)
    return fl_err_set(err, FL_EINTERNAL,
                      "nested loop join: build batch after the build side finished");
  uint32_t first, n = ty_batch_live(b);
  if (!n) return FL_OK;
  j->stats.build_rows += n;
  if (j->spilled) return spill_batch(j, &j->bfile, j->bstage, b, err);
  int rc = ex__join_store_append(&j->store, b, &first, err);
  if (rc) return rc;
  if (reserve_store(j, false)) return FL_OK;
  j->spilled = true;
  for (uint32_t i = 0; i < j->store.nchunks && !rc; i++)
    rc = spill_batch(j, &j->bfile, j->bstage, j->store.chunks[i], err);
  ex__join_store_clear(&j->store);
  release(j);
  return rc;
}

static int nl_build_finish(ex_op_t *op, fl_err_t *err) {
  nl_join_t *j = ((nl_build_side_t *)op)->j;
  if (j->state != ST_BUILDING)
    return fl_err_set(err, FL_EINTERNAL, "nested loop join: build side finished twice");
  if (j->bfile) {
    int rc = ex_spill_seal(j->bfile, err);
    if (rc) return rc;
  }
  if (build_outer(j->type) && !j->spilled) j->bmatched = fl_calloc(j->store.nrows + 1, 1);
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

static void reserve_scratch(nl_join_t *j, uint32_t need) {
  if (need <= j->scratch_cap) return;
  j->scratch_cap = need;
  j->rows = fl_realloc(j->rows, need * sizeof *j->rows);
  j->emit_rows = fl_realloc(j->emit_rows, need * sizeof *j->emit_rows);
  j->pmatched = fl_realloc(j->pmatched, need);
}

/* rows[0..n) = the live rows of b. */
static uint32_t live_rows(nl_join_t *j, const ty_batch_t *b) {
  uint32_t n = ty_batch_live(b);
  reserve_scratch(j, b->nrows > n ? b->nrows : n);
  for (uint32_t k = 0; k < n; k++) j->rows[k] = b->sel ? b->sel[k] : k;
  return n;
}

/* Pairs probe rows rows[0..n) of b with every row of the store, setting
 * pmatched[k] for those that have a pair and emitting the pairs. */
static int pair_batch(nl_join_t *j, const ty_batch_t *b, const uint32_t *rows, uint32_t n,
                      uint8_t *pmatched, fl_err_t *err) {
  uint32_t nb = j->store.nrows;
  if (!nb) return FL_OK;
  bool only = probe_only(j->type);
  if (only && !j->out.spec.filter) {
    /* Without a condition every build row pairs with every probe row. */
    memset(pmatched, 1, n);
    return FL_OK;
  }
  uint32_t np = 0;
  int rc;
  for (uint32_t k = 0; k < n; k++) {
    for (uint32_t r = 0; r < nb; r++) {
      /* A SEMI or ANTI row needs one pair only. */
      if (only && pmatched[k]) break;
      j->prow[np] = rows[k];
      j->pk[np] = k;
      j->bid[np++] = r;
      if (np == TY_BATCH_ROWS) {
        j->stats.pairs += np;
        rc = ex__join_pairs(&j->out, b, j->prow, j->pk, &j->store, j->bid, np, pmatched,
                            j->bmatched, err);
        if (rc) return rc;
        np = 0;
      }
    }
  }
  j->stats.pairs += np;
  return ex__join_pairs(&j->out, b, j->prow, j->pk, &j->store, j->bid, np, pmatched, j->bmatched,
                        err);
}

static int nl_probe_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  nl_join_t *j = (nl_join_t *)op;
  if (j->state != ST_PROBING)
    return fl_err_set(err, FL_EINTERNAL, "nested loop join: probe batch %s",
                      j->state == ST_BUILDING ? "before the build side finished" : "after finish");
  uint32_t n = ty_batch_live(b);
  if (!n) return FL_OK;
  j->stats.probe_rows += n;
  if (j->spilled) return spill_batch(j, &j->pfile, j->pstage, b, err);
  live_rows(j, b);
  memset(j->pmatched, 0, n);
  int rc = pair_batch(j, b, j->rows, n, j->pmatched, err);
  if (rc) return rc;
  return ex__join_probe_done(&j->out, b, j->rows, n, j->pmatched, NULL, j->emit_rows, err);
}

/* Loads the next block of build rows from the build file into the store:
 * batches until the budget refuses (keeping the batch it refused). */
static int load_block(nl_join_t *j, ty_batch_t *rd, bool *eof, fl_err_t *err) {
  ex__join_store_clear(&j->store);
  release(j);
  int rc = FL_OK;
  while (!rc) {
    rc = ex_spill_read(j->bfile, rd, eof, err);
    if (rc || *eof) break;
    uint32_t first;
    if ((rc = ex__join_store_append(&j->store, rd, &first, err))) break;
    if (!reserve_store(j, false)) {
      reserve_store(j, true);
      break;
    }
  }
  return rc;
}

/* The block nested loop over the spilled sides (see the top). */
static int join_spilled(nl_join_t *j, fl_err_t *err) {
  int rc = FL_OK;
  if (j->pfile && (rc = ex_spill_seal(j->pfile, err))) return rc;
  if (!j->pfile && j->type != EX_JOIN_RIGHT && j->type != EX_JOIN_FULL) return FL_OK;
  uint64_t np = j->pfile ? ex_spill_rows(j->pfile) : 0;
  uint8_t *seen = fl_calloc(np + 1, 1);
  ty_batch_t *brd = ty_batch_new(j->out.spec.build_schema, TY_BATCH_ROWS);
  ty_batch_t *prd = ty_batch_new(j->out.spec.probe_schema, TY_BATCH_ROWS);
  bool beof = false, peof = false;
  ex_spill_rewind(j->bfile);
  while (!rc && !beof) {
    rc = load_block(j, brd, &beof, err);
    if (rc || !j->store.nrows) break;
    j->stats.blocks++;
    if (build_outer(j->type)) {
      fl_free(j->bmatched);
      j->bmatched = fl_calloc(j->store.nrows, 1);
    }
    uint64_t base = 0;
    if (j->pfile) ex_spill_rewind(j->pfile);
    peof = !j->pfile;
    while (!rc && !peof) {
      rc = ex_spill_read(j->pfile, prd, &peof, err);
      if (rc || peof) break;
      uint32_t n = live_rows(j, prd);
      rc = pair_batch(j, prd, j->rows, n, seen + base, err);
      base += n;
    }
    if (!rc && build_outer(j->type))
      rc = ex__join_emit_build(&j->out, &j->store, j->bmatched, 0, err);
  }
  /* The probe rows' verdicts are complete only after the last block. */
  if (!rc && j->pfile && j->type != EX_JOIN_INNER && j->type != EX_JOIN_RIGHT) {
    uint64_t base = 0;
    ex_spill_rewind(j->pfile);
    peof = false;
    while (!rc) {
      rc = ex_spill_read(j->pfile, prd, &peof, err);
      if (rc || peof) break;
      uint32_t n = live_rows(j, prd);
      rc = ex__join_probe_done(&j->out, prd, j->rows, n, seen + base, NULL, j->emit_rows, err);
      base += n;
    }
  }
  fl_free(seen);
  ty_batch_free(brd);
  ty_batch_free(prd);
  return rc;
}

static int nl_probe_finish(ex_op_t *op, fl_err_t *err) {
  nl_join_t *j = (nl_join_t *)op;
  if (j->state != ST_PROBING)
    return fl_err_set(err, FL_EINTERNAL, "nested loop join: finish %s",
                      j->state == ST_BUILDING ? "before the build side finished" : "twice");
  int rc = FL_OK;
  if (j->spilled)
    rc = j->bfile ? join_spilled(j, err) : FL_OK;
  else if (build_outer(j->type))
    rc = ex__join_emit_build(&j->out, &j->store, j->bmatched, 0, err);
  if (rc) return rc;
  ex__join_store_clear(&j->store);
  release(j);
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
  ex_spill_free(j->bfile);
  ex_spill_free(j->pfile);
  ex_spill_dir_close(j->dir);
  ty_batch_free(j->bstage);
  ty_batch_free(j->pstage);
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

int ex_nl_join_new(ex_opctx_t *ctx, fl_arena_t *arena, const ex_join_spec_t *spec, ex_op_t *next,
                   ex_op_t **out, fl_err_t *err) {
  if (spec->type == EX_JOIN_NULL_AWARE_ANTI)
    return fl_err_set(err, FL_EUNSUPPORTED,
                      "nested loop join: NOT IN needs a key column (use the hash join)");
  if (spec->type == EX_JOIN_RIGHT_SEMI || spec->type == EX_JOIN_RIGHT_ANTI)
    return fl_err_set(err, FL_EUNSUPPORTED, "nested loop join: %s joins need a key column",
                      ex_join_type_name(spec->type));
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
  j->bstage = ty_batch_new(spec->build_schema, TY_BATCH_ROWS);
  j->pstage = ty_batch_new(spec->probe_schema, TY_BATCH_ROWS);
  *out = &j->op;
  return FL_OK;
}

ex_op_t *ex_nl_join_build_side(ex_op_t *join) { return &((nl_join_t *)join)->build.op; }

const ex_nl_join_stats_t *ex_nl_join_stats(const ex_op_t *join) {
  nl_join_t *j = (nl_join_t *)join;
  j->stats.rows_out = j->out.rows_out;
  return &j->stats;
}
