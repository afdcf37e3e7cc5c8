/*
 * ex_join.c - the build-row store and the output stage shared by the join
 * operators (ex_join_int.h).
 *
 * Pairs become output in one of two ways. Without a residual the output
 * columns are gathered straight from the probe batch and the build store.
 * With one, every probe and build column is gathered into the combined
 * batch the residual reads, and the output is a view of the combined
 * batch's output columns under the selection the residual returned, so
 * nothing is copied twice.
 */
#include "base/alloc.h"
#include "exec/ex_join_int.h"
#include "exec/ex_vec.h"

static const char *const join_type_names[EX_JOIN_TYPE_COUNT] = {
    "inner",           "left",       "right",     "full", "semi", "anti",
    "null-aware anti", "right semi", "right anti"};

const char *ex_join_type_name(ex_join_type_t t) {
  return (unsigned)t < EX_JOIN_TYPE_COUNT ? join_type_names[t] : "?";
}

void ex__join_store_init(ex__join_store_t *s, const ty_schema_t *schema) {
  memset(s, 0, sizeof *s);
  s->schema = schema;
  s->srcs = fl_malloc(TY_BATCH_ROWS * sizeof *s->srcs);
  s->idx = fl_malloc(TY_BATCH_ROWS * sizeof *s->idx);
}

void ex__join_store_clear(ex__join_store_t *s) {
  for (uint32_t i = 0; i < s->nchunks; i++) ty_batch_free(s->chunks[i]);
  fl_free(s->chunks);
  s->chunks = NULL;
  s->nchunks = s->cap = 0;
  s->nrows = 0;
  s->full_bytes = 0;
}

void ex__join_store_free(ex__join_store_t *s) {
  ex__join_store_clear(s);
  fl_free(s->srcs);
  fl_free(s->idx);
}

int ex__join_store_append(ex__join_store_t *s, const ty_batch_t *b, uint32_t *first,
                          fl_err_t *err) {
  uint32_t n = ty_batch_live(b);
  if ((uint64_t)s->nrows + n >= EX_JOIN_NONE)
    return fl_err_set(err, FL_ELIMIT, "join: more than %u build rows in memory", EX_JOIN_NONE - 1);
  *first = s->nrows;
  uint32_t done = 0;
  while (done < n) {
    if (s->nrows % TY_BATCH_ROWS == 0) {
      if (s->nchunks == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->chunks = fl_realloc(s->chunks, s->cap * sizeof *s->chunks);
      }
      /* Chunks start small and grow by doubling up to TY_BATCH_ROWS, so a
       * small build side (or partition) holds little. */
      if (s->nchunks) s->full_bytes += ex_batch_bytes(s->chunks[s->nchunks - 1]);
      s->chunks[s->nchunks++] = ty_batch_new(s->schema, 64);
    }
    ty_batch_t *c = s->chunks[s->nchunks - 1];
    uint32_t room = TY_BATCH_ROWS - s->nrows % TY_BATCH_ROWS;
    uint32_t m = n - done < room ? n - done : room;
    /* Rows of the batch: its selection, or a stretch of 0, 1, 2, ... */
    const uint32_t *rows = NULL;
    uint32_t *tmp = NULL;
    if (b->sel) {
      rows = b->sel + done;
    } else if (done) {
      tmp = fl_malloc(m * sizeof *tmp);
      for (uint32_t k = 0; k < m; k++) tmp[k] = done + k;
      rows = tmp;
    }
    for (uint32_t col = 0; col < c->ncols; col++)
      ex_vec_gather(c->cols[col], b->cols[col], rows, m);
    fl_free(tmp);
    if (c->ncols)
      ty_batch_seal(c);
    else
      c->nrows += m;
    s->nrows += m;
    done += m;
  }
  return FL_OK;
}

void ex__join_store_gather(ex__join_store_t *s, uint32_t c, const uint32_t *ids, uint32_t n,
                           ty_vec_t *dst) {
  for (uint32_t k0 = 0; k0 < n; k0 += TY_BATCH_ROWS) {
    uint32_t m = n - k0 < TY_BATCH_ROWS ? n - k0 : TY_BATCH_ROWS;
    for (uint32_t k = 0; k < m; k++) {
      uint32_t id = ids[k0 + k];
      s->srcs[k] = s->chunks[id / TY_BATCH_ROWS]->cols[c];
      s->idx[k] = id % TY_BATCH_ROWS;
    }
    ex_vec_gather_multi(dst, s->srcs, s->idx, m);
  }
}

size_t ex__join_store_bytes(const ex__join_store_t *s) {
  size_t n = (size_t)s->cap * sizeof *s->chunks + s->full_bytes;
  if (s->nchunks) n += ex_batch_bytes(s->chunks[s->nchunks - 1]);
  return n;
}

/* Fields of `in` at cols (all when cols is NULL), nullable when `outer`. */
static void copy_fields(ty_field_t *dst, const ty_schema_t *in, const uint32_t *cols, uint32_t n,
                        bool outer, uint32_t *pos) {
  for (uint32_t i = 0; i < n; i++) {
    ty_field_t f = in->root.fields[cols ? cols[i] : i];
    f.id = (int32_t)(*pos + 1);
    if (outer) f.required = false;
    dst[(*pos)++] = f;
  }
}

int ex__join_out_init(ex__join_out_t *o, ex_op_t *op, fl_arena_t *arena, const ex_join_spec_t *spec,
                      const char *what, fl_err_t *err) {
  memset(o, 0, sizeof *o);
  if ((unsigned)spec->type >= EX_JOIN_TYPE_COUNT)
    return fl_err_set(err, FL_EINVALID, "%s: unknown join type %d", what, (int)spec->type);
  if (!spec->probe_schema || !spec->build_schema)
    return fl_err_set(err, FL_EINVALID, "%s: probe and build schemas are required", what);
  uint32_t np = spec->probe_schema->root.nfields, nb = spec->build_schema->root.nfields;
  for (uint32_t i = 0; i < spec->nprobe_out; i++)
    if (spec->probe_out[i] >= np)
      return fl_err_set(err, FL_EINVALID, "%s: output probe column %u of %u", what,
                        spec->probe_out[i], np);
  for (uint32_t i = 0; i < spec->nbuild_out; i++)
    if (spec->build_out[i] >= nb)
      return fl_err_set(err, FL_EINVALID, "%s: output build column %u of %u", what,
                        spec->build_out[i], nb);
  bool probe_only = spec->type == EX_JOIN_SEMI || spec->type == EX_JOIN_ANTI ||
                    spec->type == EX_JOIN_NULL_AWARE_ANTI;
  if (probe_only && spec->nbuild_out)
    return fl_err_set(err, FL_EINVALID, "%s: a %s join outputs probe columns only", what,
                      ex_join_type_name(spec->type));
  bool build_only = spec->type == EX_JOIN_RIGHT_SEMI || spec->type == EX_JOIN_RIGHT_ANTI;
  if (build_only && spec->nprobe_out)
    return fl_err_set(err, FL_EINVALID, "%s: a %s join outputs build columns only", what,
                      ex_join_type_name(spec->type));
  o->op = op;
  o->spec = *spec;
  uint32_t nout = spec->nprobe_out + spec->nbuild_out;
  ty_field_t *f = fl_arena_zalloc(arena, (nout + np + nb + 1) * sizeof *f);
  uint32_t pos = 0;
  bool probe_outer = spec->type == EX_JOIN_RIGHT || spec->type == EX_JOIN_FULL;
  bool build_outer = spec->type == EX_JOIN_LEFT || spec->type == EX_JOIN_FULL;
  copy_fields(f, spec->probe_schema, spec->probe_out, spec->nprobe_out, probe_outer, &pos);
  copy_fields(f, spec->build_schema, spec->build_out, spec->nbuild_out, build_outer, &pos);
  o->out = ty_schema_new(arena, 0, f, nout);
  pos = 0;
  copy_fields(f, spec->probe_schema, NULL, np, probe_outer, &pos);
  copy_fields(f, spec->build_schema, NULL, nb, build_outer, &pos);
  o->comb = ty_schema_new(arena, 0, f, np + nb);
  o->ob = ty_batch_new(o->out, TY_BATCH_ROWS);
  o->sel = fl_malloc(TY_BATCH_ROWS * sizeof *o->sel);
  if (spec->filter) {
    o->cb = ty_batch_new(o->comb, TY_BATCH_ROWS);
    o->view.schema = o->out;
    o->view.ncols = nout;
    o->view.cols = fl_calloc(nout + 1, sizeof *o->view.cols);
    for (uint32_t i = 0; i < spec->nprobe_out; i++)
      o->view.cols[i] = o->cb->cols[spec->probe_out[i]];
    for (uint32_t i = 0; i < spec->nbuild_out; i++)
      o->view.cols[spec->nprobe_out + i] = o->cb->cols[np + spec->build_out[i]];
  }
  op->out_schema = o->out;
  return FL_OK;
}

void ex__join_out_free(ex__join_out_t *o) {
  ty_batch_free(o->ob);
  ty_batch_free(o->cb);
  fl_free(o->view.cols);
  fl_free(o->sel);
}

static int emit(ex__join_out_t *o, const ty_batch_t *b, fl_err_t *err) {
  o->rows_out += ty_batch_live(b);
  return ex_op_emit(o->op, b, err);
}

/* Seals the output batch; without columns its row count is set by hand. */
static void seal_out(ex__join_out_t *o, uint32_t n) {
  if (o->ob->ncols)
    ty_batch_seal(o->ob);
  else
    o->ob->nrows = n;
}

int ex__join_pairs(ex__join_out_t *o, const ty_batch_t *pb, const uint32_t *prow,
                   const uint32_t *pk, ex__join_store_t *st, const uint32_t *bid, uint32_t n,
                   uint8_t *pmatched, uint8_t *bmatched, fl_err_t *err) {
  if (!n) return FL_OK;
  const ex_join_spec_t *sp = &o->spec;
  bool emit_pairs = sp->type <= EX_JOIN_FULL;
  if (sp->filter) {
    ty_batch_t *cb = o->cb;
    ty_batch_reset(cb);
    uint32_t np = sp->probe_schema->root.nfields;
    for (uint32_t c = 0; c < np; c++) ex_vec_gather(cb->cols[c], pb->cols[c], prow, n);
    for (uint32_t c = np; c < cb->ncols; c++)
      ex__join_store_gather(st, c - np, bid, n, cb->cols[c]);
    if (cb->ncols)
      ty_batch_seal(cb);
    else
      cb->nrows = n;
    uint32_t nsel = 0;
    int rc = sp->filter(sp->filter_arg, cb, o->sel, &nsel, err);
    if (rc) return fl_err_prefix(err, "join condition: ");
    if (nsel > n)
      return fl_err_set(err, FL_EINTERNAL, "join condition selected %u of %u rows", nsel, n);
    for (uint32_t i = 0; i < nsel; i++) {
      uint32_t x = o->sel[i];
      if (x >= n || (i && x <= o->sel[i - 1]))
        return fl_err_set(err, FL_EINTERNAL, "join condition returned a bad selection");
      pmatched[pk[x]] = 1;
      if (bmatched) ex__join_mark(bmatched, bid[x]);
    }
    if (!emit_pairs || !nsel) return FL_OK;
    o->view.nrows = n;
    o->view.sel = o->sel;
    o->view.nsel = nsel;
    return emit(o, &o->view, err);
  }
  for (uint32_t x = 0; x < n; x++) {
    pmatched[pk[x]] = 1;
    if (bmatched) ex__join_mark(bmatched, bid[x]);
  }
  if (!emit_pairs) return FL_OK;
  ty_batch_t *ob = o->ob;
  ty_batch_reset(ob);
  for (uint32_t i = 0; i < sp->nprobe_out; i++)
    ex_vec_gather(ob->cols[i], pb->cols[sp->probe_out[i]], prow, n);
  for (uint32_t i = 0; i < sp->nbuild_out; i++)
    ex__join_store_gather(st, sp->build_out[i], bid, n, ob->cols[sp->nprobe_out + i]);
  seal_out(o, n);
  return emit(o, ob, err);
}

int ex__join_emit_probe(ex__join_out_t *o, const ty_batch_t *pb, const uint32_t *rows, uint32_t n,
                        fl_err_t *err) {
  const ex_join_spec_t *sp = &o->spec;
  for (uint32_t k0 = 0; k0 < n; k0 += TY_BATCH_ROWS) {
    uint32_t m = n - k0 < TY_BATCH_ROWS ? n - k0 : TY_BATCH_ROWS;
    ty_batch_t *ob = o->ob;
    ty_batch_reset(ob);
    for (uint32_t i = 0; i < sp->nprobe_out; i++)
      ex_vec_gather(ob->cols[i], pb->cols[sp->probe_out[i]], rows + k0, m);
    for (uint32_t i = 0; i < sp->nbuild_out; i++)
      ex_vec_append_nulls(ob->cols[sp->nprobe_out + i], m);
    seal_out(o, m);
    int rc = emit(o, ob, err);
    if (rc) return rc;
  }
  return FL_OK;
}

int ex__join_emit_build(ex__join_out_t *o, ex__join_store_t *st, const uint8_t *bmatched,
                        uint8_t want, fl_err_t *err) {
  const ex_join_spec_t *sp = &o->spec;
  uint32_t *ids = fl_malloc(TY_BATCH_ROWS * sizeof *ids);
  int rc = FL_OK;
  uint32_t r = 0;
  while (r < st->nrows && !rc) {
    uint32_t m = 0;
    for (; r < st->nrows && m < TY_BATCH_ROWS; r++)
      if (bmatched[r] == want) ids[m++] = r;
    if (!m) break;
    ty_batch_t *ob = o->ob;
    ty_batch_reset(ob);
    for (uint32_t i = 0; i < sp->nprobe_out; i++) ex_vec_append_nulls(ob->cols[i], m);
    for (uint32_t i = 0; i < sp->nbuild_out; i++)
      ex__join_store_gather(st, sp->build_out[i], ids, m, ob->cols[sp->nprobe_out + i]);
    seal_out(o, m);
    rc = emit(o, ob, err);
  }
  fl_free(ids);
  return rc;
}

int ex__join_probe_done(ex__join_out_t *o, const ty_batch_t *pb, const uint32_t *rows, uint32_t n,
                        const uint8_t *pmatched, const ty_vec_t *drop_nulls, uint32_t *scratch,
                        fl_err_t *err) {
  uint32_t ne = 0;
  switch (o->spec.type) {
    case EX_JOIN_LEFT:
    case EX_JOIN_FULL:
    case EX_JOIN_ANTI:
      for (uint32_t k = 0; k < n; k++)
        if (!pmatched[k]) scratch[ne++] = rows[k];
      break;
    case EX_JOIN_SEMI:
      for (uint32_t k = 0; k < n; k++)
        if (pmatched[k]) scratch[ne++] = rows[k];
      break;
    case EX_JOIN_NULL_AWARE_ANTI:
      for (uint32_t k = 0; k < n; k++)
        if (!pmatched[k] && !(drop_nulls && ty_vec_is_null(drop_nulls, rows[k])))
          scratch[ne++] = rows[k];
      break;
    default: break;
  }
  return ne ? ex__join_emit_probe(o, pb, scratch, ne, err) : FL_OK;
}
