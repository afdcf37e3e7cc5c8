/*
 * ex_plan.c - the physical planner: logical plan to operator pipeline, and
 * running it (layer 8, exec). See ex_plan.h.
 *
 * Building goes top down: a node's operator is made with its consumer
 * already built, then its input is built with the node's operator as the
 * consumer. Every node's output schema is made from its logical columns
 * (storage types of their SQL types), so the operators agree on the
 * vectors they exchange.
 */
#include "exec/ex_plan.h"

#include <string.h>

#include "base/alloc.h"
#include "exec/ex_agg.h"
#include "exec/op_basic.h"
#include "exec/op_hash_agg.h"
#include "exec/op_hash_join.h"
#include "exec/op_nested_loop_join.h"
#include "exec/op_sort.h"
#include "exec/op_stream_agg.h"
#include "exec/op_unnest.h"
#include "exec/op_window.h"

struct ex_query {
  fl_arena_t *a;
  ex_ctx_t ectx;
  ex_mem_t mem;
  ex_opctx_t qctx;
  bool stop;
  ex_op_t **ops;
  uint32_t nops, ops_cap;
  ex_source_t **srcs;
  uint32_t nsrcs, srcs_cap;
  ex_sink_t *sink;
  const sql_plan_t *plan;
  ex_type_t *types;
  ex_progress_t *progress;
  /* The joins, for EXPLAIN ANALYZE: hash joins have nkeys > 0. */
  struct {
    ex_op_t *op;
    bool hash;
    ex_join_type_t type;
  } *joins;
  uint32_t njoins, joins_cap;
};

static void keep_op(ex_query_t *q, ex_op_t *op) {
  if (q->nops == q->ops_cap) {
    q->ops_cap = q->ops_cap ? q->ops_cap * 2 : 8;
    q->ops = fl_realloc(q->ops, q->ops_cap * sizeof *q->ops);
  }
  q->ops[q->nops++] = op;
}

static void keep_src(ex_query_t *q, ex_source_t *s) {
  if (q->nsrcs == q->srcs_cap) {
    q->srcs_cap = q->srcs_cap ? q->srcs_cap * 2 : 4;
    q->srcs = fl_realloc(q->srcs, q->srcs_cap * sizeof *q->srcs);
  }
  q->srcs[q->nsrcs++] = s;
}

static const ty_schema_t *schema_of(ex_query_t *q, const sql_plan_t *p) {
  ty_field_t *f = fl_arena_zalloc(q->a, (p->ncols ? p->ncols : 1) * sizeof *f);
  for (uint32_t i = 0; i < p->ncols; i++) {
    ex_type_t t = ex_type_of(&p->cols[i].type, q->a);
    f[i].id = (int32_t)i + 1;
    f[i].name = p->cols[i].name;
    f[i].type = ex_type_storage(&t, q->a);
  }
  return ty_schema_new(q->a, 0, f, p->ncols);
}

static int build(ex_query_t *q, const sql_plan_t *p, ex_op_t *next, fl_err_t *err);

/* Whether vectors of storage type a can stand where b is expected: the
 * same layout, whatever the nested fields' ids and names. */
static bool same_layout(const ty_type_t *a, const ty_type_t *b) {
  if (a->kind != b->kind || a->nfields != b->nfields) return false;
  if (a->kind == TY_DECIMAL) return a->precision == b->precision && a->scale == b->scale;
  if (a->kind == TY_FIXED) return a->length == b->length;
  for (uint32_t i = 0; i < a->nfields; i++)
    if (!same_layout(a->fields[i].type, b->fields[i].type)) return false;
  return true;
}

static int build_scan(ex_query_t *q, const sql_plan_t *p, ex_op_t *next, fl_err_t *err) {
  if (p->u.scan.meta) {
    ex_source_t *src;
    int rc = ex_meta_source_new(q->a, p, schema_of(q, p), next, &q->stop, &src, err);
    if (rc) return rc;
    keep_src(q, src);
    return FL_OK;
  }
  if (p->u.scan.files) {
    ex_source_t *fs;
    int rc = ex_file_scan_source_new(p->u.scan.files, p->u.scan.columns, p->ncols, schema_of(q, p),
                                     p->u.scan.filter, p->u.scan.limit, q->progress, next, &q->stop,
                                     &fs, err);
    if (rc) return rc;
    keep_src(q, fs);
    return FL_OK;
  }
  ice_scan_opts_t o = {.snapshot_id = p->u.scan.snapshot_id,
                       .ref = NULL,
                       .as_of_ms = -1,
                       .filter = p->u.scan.filter,
                       .columns = p->u.scan.columns,
                       .ncolumns = p->ncols,
                       .case_sensitive = true,
                       .limit = p->u.scan.limit};
  if (o.snapshot_id < 0 && p->u.scan.ref) o.ref = p->u.scan.ref;
  ice_scan_t *s;
  int rc = ice_scan_plan(p->u.scan.table, &o, &s, err);
  if (rc) return fl_err_prefix(err, "scanning %s: ", p->u.scan.ident);
  /* The batches must have the column types the plan promised. */
  const ty_schema_t *ss = ice_scan_schema(s);
  const ty_schema_t *want = schema_of(q, p);
  if (ss->root.nfields != p->ncols) {
    ice_scan_free(s);
    return fl_err_set(err, FL_EINTERNAL, "scan of %s yields %u columns, expected %u",
                      p->u.scan.ident, ss->root.nfields, p->ncols);
  }
  for (uint32_t i = 0; i < p->ncols; i++)
    if (!same_layout(ss->root.fields[i].type, want->root.fields[i].type)) {
      ice_scan_free(s);
      return fl_err_set(err, FL_EUNSUPPORTED, "column %s of %s has a type SQL cannot read yet",
                        p->cols[i].name, p->u.scan.ident);
    }
  ex_source_t *src = ex_scan_source_new(s, next, &q->stop);
  ex_scan_source_set_progress(src, q->progress);
  keep_src(q, src);
  return FL_OK;
}

static int build_agg(ex_query_t *q, const sql_plan_t *p, ex_op_t *next, ex_op_t **out,
                     fl_err_t *err) {
  const ty_schema_t *in = schema_of(q, p->in);
  ex_agg_spec_t *specs =
      fl_arena_zalloc(q->a, (p->u.agg.naggs ? p->u.agg.naggs : 1) * sizeof *specs);
  for (uint32_t j = 0; j < p->u.agg.naggs; j++) {
    const sql_agg_call_t *g = &p->u.agg.aggs[j];
    const ty_type_t *arg = g->arg_col >= 0 ? in->root.fields[g->arg_col].type : NULL;
    int rc =
        ex_agg_bind(q->a, g->name, arg, g->distinct, &g->param, g->nparams, &specs[j].agg, err);
    if (rc) return rc;
    specs[j].arg_col = g->arg_col;
    specs[j].filter_col = g->filter_col;
    specs[j].name = p->cols[p->ncols - p->u.agg.naggs + j].name;
  }
  ex_hash_agg_opts_t o = {.in_schema = in,
                          .key_cols = p->u.agg.keys,
                          .nkeys = p->u.agg.nkeys,
                          .grouping_sets = p->u.agg.sets,
                          .nsets = p->u.agg.nsets,
                          .aggs = specs,
                          .naggs = p->u.agg.naggs};
  if (p->u.agg.streaming) return ex_stream_agg_new(&q->qctx, q->a, &o, next, out, err);
  return ex_hash_agg_new(&q->qctx, q->a, &o, next, out, err);
}

_Static_assert((int)SQL_JT_INNER == (int)EX_JOIN_INNER && (int)SQL_JT_FULL == (int)EX_JOIN_FULL &&
                   (int)SQL_JT_SEMI == (int)EX_JOIN_SEMI &&
                   (int)SQL_JT_NULL_AWARE_ANTI == (int)EX_JOIN_NULL_AWARE_ANTI,
               "sql and exec join types in the same order");

/* The residual condition of a join: a compiled expression over the
 * candidate pairs (probe columns, then build columns). */
typedef struct residual {
  ex_ctx_t *ctx;
  ex_expr_t *x;
} residual_t;

static int residual_filter(void *arg, const ty_batch_t *pairs, uint32_t *sel, uint32_t *nsel,
                           fl_err_t *err) {
  residual_t *r = arg;
  *nsel = 0;
  if (!pairs->nrows) return FL_OK;
  ex_rows_t rows = {.nrows = pairs->nrows, .sel = NULL, .n = pairs->nrows};
  const ty_vec_t *v;
  int rc = ex_expr_eval(r->ctx, r->x, pairs, &rows, &v, err);
  if (rc) return rc;
  uint32_t m = v->len == 1 ? 0 : UINT32_MAX, n = 0;
  for (uint32_t i = 0; i < pairs->nrows; i++)
    if (ty_vec_is_valid(v, i & m) && v->data[i & m]) sel[n++] = i;
  *nsel = n;
  return FL_OK;
}

/* A copy of e with column c renumbered to c < nl ? c + nr : c - nl (the
 * left input's columns after the right input's: a swapped join). */
static sql_bexpr_t *swap_cols(fl_arena_t *a, const sql_bexpr_t *e, uint32_t nl, uint32_t nr) {
  sql_bexpr_t *c = fl_arena_memdup(a, e, sizeof *e);
  if (e->kind == SQL_BX_COL) c->col = e->col < nl ? e->col + nr : e->col - nl;
  if (e->nargs) {
    c->args = fl_arena_alloc(a, e->nargs * sizeof *c->args);
    for (uint32_t i = 0; i < e->nargs; i++) c->args[i] = swap_cols(a, e->args[i], nl, nr);
  }
  return c;
}

static uint32_t *iota(fl_arena_t *a, uint32_t n) {
  uint32_t *v = fl_arena_zalloc(a, (n ? n : 1) * sizeof *v);
  for (uint32_t i = 0; i < n; i++) v[i] = i;
  return v;
}

/*
 * A join: the hash join when there are equi-keys, else the nested loop
 * join. The probe side is the left input unless the optimizer chose the
 * left one as the (smaller) build side; then the join type is mirrored
 * and a projection restores the left-then-right column order. The build
 * input is built first, so its sources run (to their finish) before the
 * probe side's.
 */
static int build_join(ex_query_t *q, const sql_plan_t *p, ex_op_t *next, fl_err_t *err) {
  const sql_plan_t *L = p->inputs[0], *R = p->inputs[1];
  bool swap = p->u.join.build_left;
  const sql_plan_t *probe = swap ? R : L, *bld = swap ? L : R;
  int rc;
  ex_join_spec_t spec = {.type = (ex_join_type_t)p->u.join.type,
                         .probe_schema = schema_of(q, probe),
                         .build_schema = schema_of(q, bld)};
  uint32_t nl = p->u.join.nleft, nr = p->u.join.nright;
  if (swap) {
    if (spec.type == EX_JOIN_LEFT)
      spec.type = EX_JOIN_RIGHT;
    else if (spec.type == EX_JOIN_RIGHT)
      spec.type = EX_JOIN_LEFT;
    spec.probe_out = iota(q->a, nr);
    spec.nprobe_out = nr;
    spec.build_out = iota(q->a, nl);
    spec.nbuild_out = nl;
  } else {
    spec.probe_out = iota(q->a, nl);
    spec.nprobe_out = nl;
    spec.build_out = iota(q->a, nr);
    spec.nbuild_out = nr;
  }
  if (p->u.join.residual) {
    const sql_bexpr_t *e = p->u.join.residual;
    if (swap) e = swap_cols(q->a, e, L->ncols, R->ncols);
    const ty_schema_t *ps = spec.probe_schema, *bs = spec.build_schema;
    uint32_t np = ps->root.nfields, nb = bs->root.nfields;
    ty_field_t *f = fl_arena_zalloc(q->a, (np + nb ? np + nb : 1) * sizeof *f);
    for (uint32_t i = 0; i < np; i++) f[i] = ps->root.fields[i];
    for (uint32_t i = 0; i < nb; i++) f[np + i] = bs->root.fields[i];
    for (uint32_t i = 0; i < np + nb; i++) f[i].id = (int32_t)i + 1;
    residual_t *r = fl_arena_zalloc(q->a, sizeof *r);
    r->ctx = &q->ectx;
    if ((rc = ex_expr_compile(&q->ectx, e, ty_schema_new(q->a, 0, f, np + nb), &r->x, err)))
      return rc;
    spec.filter = residual_filter;
    spec.filter_arg = r;
  }
  if (swap) {
    /* The join yields right then left columns; put them back in order. */
    uint32_t n = nl + nr;
    ty_field_t *f = fl_arena_zalloc(q->a, (n ? n : 1) * sizeof *f);
    sql_bexpr_t **ex = fl_arena_zalloc(q->a, (n ? n : 1) * sizeof *ex);
    const ty_schema_t *want = schema_of(q, p);
    for (uint32_t i = 0; i < nr; i++) f[i] = want->root.fields[nl + i];
    for (uint32_t i = 0; i < nl; i++) f[nr + i] = want->root.fields[i];
    for (uint32_t i = 0; i < n; i++) {
      f[i].id = (int32_t)i + 1;
      ex[i] = fl_arena_zalloc(q->a, sizeof *ex[i]);
      ex[i]->kind = SQL_BX_COL;
      ex[i]->col = i < nl ? nr + i : i - nl;
      ex[i]->type = p->cols[i].type;
    }
    ex_op_t *proj;
    if ((rc = ex_project_new(&q->ectx, ty_schema_new(q->a, 0, f, n), want, ex, n, next, &proj,
                             err)))
      return rc;
    keep_op(q, proj);
    next = proj;
  }
  ex_op_t *op, *build_side;
  if (p->u.join.nkeys) {
    ex_hash_join_opts_t o = {.join = spec,
                             .probe_keys = swap ? p->u.join.rkeys : p->u.join.lkeys,
                             .build_keys = swap ? p->u.join.lkeys : p->u.join.rkeys,
                             .nkeys = p->u.join.nkeys};
    if ((rc = ex_hash_join_new(&q->qctx, q->a, &o, next, &op, err))) return rc;
    build_side = ex_hash_join_build_side(op);
  } else {
    if ((rc = ex_nl_join_new(&q->qctx, q->a, &spec, next, &op, err))) return rc;
    build_side = ex_nl_join_build_side(op);
  }
  keep_op(q, op);
  if (q->njoins == q->joins_cap) {
    q->joins_cap = q->joins_cap ? q->joins_cap * 2 : 4;
    q->joins = fl_realloc(q->joins, q->joins_cap * sizeof *q->joins);
  }
  q->joins[q->njoins].op = op;
  q->joins[q->njoins].hash = p->u.join.nkeys > 0;
  q->joins[q->njoins].type = spec.type;
  q->njoins++;
  if ((rc = build(q, bld, build_side, err))) return rc;
  return build(q, probe, op, err);
}

static ex_sort_key_t *sort_keys(ex_query_t *q, const sql_plan_t *s) {
  ex_sort_key_t *k = fl_arena_zalloc(q->a, (s->u.sort.nkeys ? s->u.sort.nkeys : 1) * sizeof *k);
  for (uint32_t i = 0; i < s->u.sort.nkeys; i++)
    k[i] = (ex_sort_key_t){.col = s->u.sort.keys[i].col,
                           .desc = s->u.sort.keys[i].desc,
                           .nulls_first = s->u.sort.keys[i].nulls_first};
  return k;
}

/* Whether window node p's input arrives already ordered its way: a window
 * node below with the same PARTITION BY and ORDER BY emits its rows so. */
static bool window_presorted(const sql_plan_t *p) {
  const sql_plan_t *in = p->in;
  if (in->kind != SQL_P_WINDOW || in->u.window.npartition != p->u.window.npartition ||
      in->u.window.norder != p->u.window.norder)
    return false;
  for (uint32_t i = 0; i < p->u.window.npartition; i++)
    if (in->u.window.partition[i] != p->u.window.partition[i]) return false;
  for (uint32_t i = 0; i < p->u.window.norder; i++) {
    const sql_sort_key_t *x = &in->u.window.order[i], *y = &p->u.window.order[i];
    if (x->col != y->col || x->desc != y->desc || x->nulls_first != y->nulls_first) return false;
  }
  return true;
}

static int build_window(ex_query_t *q, const sql_plan_t *p, ex_op_t *next, ex_op_t **out,
                        fl_err_t *err) {
  static const struct {
    const char *name;
    ex_window_kind_t kind;
  } kinds[] = {{"row_number", EX_WIN_ROW_NUMBER},
               {"rank", EX_WIN_RANK},
               {"dense_rank", EX_WIN_DENSE_RANK},
               {"percent_rank", EX_WIN_PERCENT_RANK},
               {"cume_dist", EX_WIN_CUME_DIST},
               {"ntile", EX_WIN_NTILE},
               {"lag", EX_WIN_LAG},
               {"lead", EX_WIN_LEAD},
               {"first_value", EX_WIN_FIRST_VALUE},
               {"last_value", EX_WIN_LAST_VALUE},
               {"nth_value", EX_WIN_NTH_VALUE}};
  const ty_schema_t *in = schema_of(q, p->in);
  uint32_t nf = p->u.window.nfns;
  ex_window_fn_t *fns = fl_arena_zalloc(q->a, (nf ? nf : 1) * sizeof *fns);
  for (uint32_t j = 0; j < nf; j++) {
    const sql_win_call_t *c = &p->u.window.fns[j];
    ex_window_fn_t *f = &fns[j];
    f->name = p->cols[p->ncols - nf + j].name;
    f->param = c->param;
    f->default_col = c->default_col;
    f->ignore_nulls = c->ignore_nulls;
    f->arg_col = c->arg_col;
    if (c->is_agg) {
      f->kind = EX_WIN_AGG;
      f->arg_col = c->agg.arg_col;
      const ty_type_t *arg = c->agg.arg_col >= 0 ? in->root.fields[c->agg.arg_col].type : NULL;
      int rc =
          ex_agg_bind(q->a, c->agg.name, arg, false, &c->agg.param, c->agg.nparams, &f->agg, err);
      if (rc) return rc;
      continue;
    }
    size_t k = 0;
    while (k < sizeof kinds / sizeof kinds[0] && strcmp(kinds[k].name, c->name)) k++;
    if (k == sizeof kinds / sizeof kinds[0])
      return fl_err_set(err, FL_EINTERNAL, "no window function %s", c->name);
    f->kind = kinds[k].kind;
  }
  ex_sort_key_t *order =
      fl_arena_zalloc(q->a, (p->u.window.norder ? p->u.window.norder : 1) * sizeof *order);
  for (uint32_t i = 0; i < p->u.window.norder; i++)
    order[i] = (ex_sort_key_t){.col = p->u.window.order[i].col,
                               .desc = p->u.window.order[i].desc,
                               .nulls_first = p->u.window.order[i].nulls_first};
  ex_window_frame_t *frame = NULL;
  if (p->u.window.frame) {
    const sql_win_frame_t *f = p->u.window.frame;
    frame = fl_arena_zalloc(q->a, sizeof *frame);
    frame->unit = f->unit == SQL_WU_ROWS    ? EX_FRAME_ROWS
                  : f->unit == SQL_WU_RANGE ? EX_FRAME_RANGE
                                            : EX_FRAME_GROUPS;
    /* The syntax tree's bound kinds are in the operator's order. */
    frame->start = (ex_frame_bound_t){.kind = (ex_bound_kind_t)f->start.kind,
                                      .offset = f->start.offset,
                                      .offset_f = f->start.offset_f};
    frame->end = (ex_frame_bound_t){
        .kind = (ex_bound_kind_t)f->end.kind, .offset = f->end.offset, .offset_f = f->end.offset_f};
  }
  ex_window_opts_t o = {.in_schema = in,
                        .partition_cols = p->u.window.partition,
                        .npartition = p->u.window.npartition,
                        .order_keys = order,
                        .norder = p->u.window.norder,
                        .frame = frame,
                        .presorted = window_presorted(p),
                        .fns = fns,
                        .nfns = nf};
  return ex_window_new(&q->qctx, q->a, &o, next, out, err);
}

static int build(ex_query_t *q, const sql_plan_t *p, ex_op_t *next, fl_err_t *err) {
  ex_op_t *op = NULL;
  int rc;
  const sql_plan_t *in = p->in;
  switch (p->kind) {
    case SQL_P_SCAN: return build_scan(q, p, next, err);
    case SQL_P_VALUES: {
      ex_source_t *s;
      if ((rc = ex_values_source_new(&q->ectx, schema_of(q, p), p->u.values.cells,
                                     p->u.values.nrows, next, &q->stop, &s, err)))
        return rc;
      keep_src(q, s);
      return FL_OK;
    }
    case SQL_P_FILTER:
      rc = ex_filter_new(&q->ectx, schema_of(q, in), p->u.filter.pred, next, &op, err);
      break;
    case SQL_P_PROJECT:
      rc = ex_project_new(&q->ectx, schema_of(q, in), schema_of(q, p), p->u.project.exprs, p->ncols,
                          next, &op, err);
      break;
    case SQL_P_AGGREGATE: rc = build_agg(q, p, next, &op, err); break;
    case SQL_P_WINDOW: rc = build_window(q, p, next, &op, err); break;
    case SQL_P_SORT:
      rc = ex_sort_new(&q->qctx, schema_of(q, p), sort_keys(q, p), p->u.sort.nkeys, next, &op, err);
      break;
    case SQL_P_LIMIT:
      if (in->kind == SQL_P_SORT && p->u.limit.limit >= 0) {
        /* ORDER BY ... LIMIT: keep only the first rows while sorting. */
        rc = ex_topn_new(&q->qctx, schema_of(q, in), sort_keys(q, in), in->u.sort.nkeys,
                         (uint64_t)p->u.limit.limit, (uint64_t)p->u.limit.offset, next, &op, err);
        in = in->in;
      } else {
        op = ex_limit_new(schema_of(q, p), p->u.limit.limit, p->u.limit.offset, &q->stop, next);
        rc = FL_OK;
      }
      break;
    case SQL_P_UNION:
      op = ex_union_new(schema_of(q, p), p->ninputs, next);
      keep_op(q, op);
      for (uint32_t i = 0; i < p->ninputs; i++)
        if ((rc = build(q, p->inputs[i], op, err))) return rc;
      return FL_OK;
    case SQL_P_JOIN: return build_join(q, p, next, err);
    case SQL_P_UNNEST:
      rc = ex_unnest_new(&q->ectx, schema_of(q, in), schema_of(q, p), p->u.unnest.exprs,
                         p->u.unnest.nexprs, p->u.unnest.ordinality, p->u.unnest.outer, next, &op,
                         err);
      break;
    default:
      return fl_err_set(err, FL_EINTERNAL, "no operator for plan node %s",
                        sql_plan_kind_name(p->kind));
  }
  if (rc) return rc;
  keep_op(q, op);
  return build(q, in, op, err);
}

int ex_query_new(fl_arena_t *a, const sql_plan_t *p, const ex_query_opts_t *o, ex_query_t **out,
                 fl_err_t *err) {
  ex_query_t *q = fl_calloc(1, sizeof *q);
  q->a = a;
  q->plan = p;
  q->progress = o ? o->progress : NULL;
  ex_ctx_init(&q->ectx, a, o ? o->zone : NULL, o ? o->now_us : -1);
  ex_mem_init(&q->mem, o ? o->mem_limit : 0);
  q->qctx = (ex_opctx_t){.mem = &q->mem, .spill_dir = o ? o->spill_dir : NULL};
  q->types = fl_arena_zalloc(a, (p->ncols ? p->ncols : 1) * sizeof *q->types);
  for (uint32_t i = 0; i < p->ncols; i++) q->types[i] = ex_type_of(&p->cols[i].type, a);
  q->sink = ex_sink_new(schema_of(q, p));
  int rc = build(q, p, &q->sink->op, err);
  if (rc) {
    ex_query_free(q);
    return rc;
  }
  *out = q;
  return FL_OK;
}

int ex_query_run(ex_query_t *q, fl_err_t *err) {
  /* Sources run one after the other (UNION ALL inputs in order). */
  for (uint32_t i = 0; i < q->nsrcs; i++) {
    q->stop = false;
    int rc = q->srcs[i]->run(q->srcs[i], err);
    if (rc) return rc;
  }
  return FL_OK;
}

const ex_sink_t *ex_query_sink(const ex_query_t *q) { return q->sink; }
uint32_t ex_query_ncols(const ex_query_t *q) { return q->plan->ncols; }
const char *ex_query_col_name(const ex_query_t *q, uint32_t i) { return q->plan->cols[i].name; }
const ex_type_t *ex_query_col_type(const ex_query_t *q, uint32_t i) { return &q->types[i]; }
ex_ctx_t *ex_query_ctx(ex_query_t *q) { return &q->ectx; }

void ex_query_format_stats(const ex_query_t *q, fl_buf_t *out) {
  for (uint32_t i = 0; i < q->nsrcs; i++) {
    if (ex_file_scan_source_format_stats(q->srcs[i], i, out)) continue;
    const ice_scan_stats_t *s = ex_scan_source_stats(q->srcs[i]);
    if (!s) continue;
    fl_buf_printf(out,
                  "scan %u: manifests %llu (skipped %llu), data files %llu (skipped %llu by "
                  "partition, %llu by metrics), row groups read %llu (skipped %llu), rows read "
                  "%llu, rows out %llu\n",
                  i, (unsigned long long)s->manifests_total,
                  (unsigned long long)s->manifests_skipped, (unsigned long long)s->files_total,
                  (unsigned long long)s->files_skipped_partition,
                  (unsigned long long)s->files_skipped_metrics,
                  (unsigned long long)s->row_groups_read, (unsigned long long)s->row_groups_skipped,
                  (unsigned long long)s->rows_read, (unsigned long long)s->rows_out);
  }
  for (uint32_t i = 0; i < q->njoins; i++) {
    const char *t = ex_join_type_name(q->joins[i].type);
    if (q->joins[i].hash) {
      const ex_hash_join_stats_t *s = ex_hash_join_stats(q->joins[i].op);
      fl_buf_printf(out,
                    "join %u: hash %s, build rows %llu, probe rows %llu, rows out %llu, spilled "
                    "partitions %llu\n",
                    i, t, (unsigned long long)s->build_rows, (unsigned long long)s->probe_rows,
                    (unsigned long long)s->rows_out, (unsigned long long)s->partitions);
    } else {
      const ex_nl_join_stats_t *s = ex_nl_join_stats(q->joins[i].op);
      fl_buf_printf(out,
                    "join %u: nested loop %s, build rows %llu, probe rows %llu, pairs %llu, rows "
                    "out %llu, spilled blocks %llu\n",
                    i, t, (unsigned long long)s->build_rows, (unsigned long long)s->probe_rows,
                    (unsigned long long)s->pairs, (unsigned long long)s->rows_out,
                    (unsigned long long)s->blocks);
    }
  }
  fl_buf_printf(out, "rows: %llu\n", (unsigned long long)q->sink->rows);
}

void ex_query_free(ex_query_t *q) {
  if (!q) return;
  for (uint32_t i = 0; i < q->nsrcs; i++) q->srcs[i]->destroy(q->srcs[i]);
  for (uint32_t i = 0; i < q->nops; i++) ex_op_destroy(q->ops[i]);
  if (q->sink) ex_op_destroy(&q->sink->op);
  fl_free(q->srcs);
  fl_free(q->ops);
  fl_free(q->joins);
  fl_free(q);
}
