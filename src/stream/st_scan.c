/*
 * st_scan.c - a connector table's rows, computed columns and watermark,
 * pushed into the job's queries (layer 10, stream). See st_scan.h.
 *
 * States: built (targets being added) -> started (polling) -> ended
 * (bounded input done, finish sent) or stopped by the job.
 */
#include "stream/st_scan.h"

#include <string.h>
#include <strings.h>

#include "base/alloc.h"

typedef struct target {
  ex_op_t *op;
  uint32_t *cols; /* table column of each of the scan's columns */
  uint32_t ncols;
  const ty_schema_t *schema;
  ty_vec_t **view;
} target_t;

struct st_scan {
  const sql_stream_table_t *t;
  st_source_t *src;
  fl_arena_t *a;
  ex_ctx_t ctx;
  ty_batch_t *base;
  uint32_t *part;
  ex_expr_t **computed; /* per table column; NULL for base ones */
  ty_vec_t **owned;     /* per table column: a constant computed value spread to every row */
  ty_vec_t **full;      /* per table column: the vector of this batch */
  const ty_schema_t *full_schema;
  ex_expr_t *wm;
  st_watermark_t wmk;
  target_t *targets;
  uint32_t ntargets;
};

int st_scan_new(st_source_t *src, st_scan_t **out, fl_err_t *err) {
  const sql_stream_table_t *t = src->table;
  st_scan_t *s = fl_calloc(1, sizeof *s);
  s->t = t;
  s->src = src;
  s->a = fl_arena_new(0);
  ex_ctx_init(&s->ctx, s->a, NULL, -1);
  s->base = ty_batch_new(t->base_schema, TY_BATCH_ROWS);
  s->part = fl_calloc(TY_BATCH_ROWS, sizeof *s->part);
  s->computed = fl_calloc(t->ncols, sizeof *s->computed);
  s->owned = fl_calloc(t->ncols, sizeof *s->owned);
  s->full = fl_calloc(t->ncols, sizeof *s->full);
  ty_field_t *f = fl_arena_zalloc(s->a, t->ncols * sizeof *f);
  int rc = FL_OK;
  for (uint32_t i = 0, k = 0; i < t->ncols && !rc; i++) {
    const sql_stream_col_t *c = &t->cols[i];
    f[i] = (ty_field_t){.id = (int32_t)i + 1, .name = c->name};
    if (c->kind != SQL_COL_COMPUTED) {
      f[i].type = t->base_schema->root.fields[k++].type;
      continue;
    }
    rc = ex_expr_compile(&s->ctx, c->computed, t->base_schema, &s->computed[i], err);
    if (rc)
      rc = fl_err_prefix(err, "line %u, column %u: computed column %s: ", c->pos.line, c->pos.col,
                         c->name);
    else
      f[i].type = ex_expr_storage(s->computed[i]);
  }
  if (!rc) {
    s->full_schema = ty_schema_new(s->a, 0, f, t->ncols);
    if (t->watermark && (rc = ex_expr_compile(&s->ctx, t->watermark, s->full_schema, &s->wm, err)))
      rc = fl_err_prefix(err, "table %s: WATERMARK: ", t->name);
  }
  if (rc) {
    st_scan_free(s);
    return rc;
  }
  *out = s;
  return FL_OK;
}

void st_scan_free(st_scan_t *s) {
  if (!s) return;
  st_source_free(s->src);
  for (uint32_t i = 0; i < s->t->ncols; i++)
    if (s->owned[i]) ty_vec_free(s->owned[i]);
  for (uint32_t i = 0; i < s->ntargets; i++) {
    fl_free(s->targets[i].cols);
    fl_free(s->targets[i].view);
  }
  fl_free(s->targets);
  fl_free(s->owned);
  fl_free(s->full);
  fl_free(s->computed);
  fl_free(s->part);
  ty_batch_free(s->base);
  st_watermark_free(&s->wmk);
  fl_arena_free(s->a);
  fl_free(s);
}

st_source_t *st_scan_source(st_scan_t *s) { return s->src; }

int st_scan_add_target(st_scan_t *s, const ex_stream_input_t *in, fl_err_t *err) {
  target_t tg = {.op = in->op, .ncols = in->ncols, .schema = in->schema};
  tg.cols = fl_calloc(in->ncols ? in->ncols : 1, sizeof *tg.cols);
  tg.view = fl_calloc(in->ncols ? in->ncols : 1, sizeof *tg.view);
  for (uint32_t j = 0; j < in->ncols; j++) {
    uint32_t i = 0;
    while (i < s->t->ncols && strcasecmp(s->t->cols[i].name, in->columns[j]) != 0) i++;
    if (i == s->t->ncols ||
        !ty_layout_equal(s->full_schema->root.fields[i].type, in->schema->root.fields[j].type)) {
      fl_free(tg.cols);
      fl_free(tg.view);
      return fl_err_set(err, FL_EINTERNAL, "table %s: the plan reads column %s of another type",
                        s->t->name, in->columns[j]);
    }
    tg.cols[j] = i;
  }
  s->targets = fl_realloc(s->targets, (s->ntargets + 1) * sizeof *s->targets);
  s->targets[s->ntargets++] = tg;
  return FL_OK;
}

void st_scan_started(st_scan_t *s, int64_t now_ms) {
  st_watermark_free(&s->wmk);
  st_watermark_init(&s->wmk, s->src->nslots, s->src->idle_timeout_ms, now_ms);
}

int64_t st_scan_watermark(const st_scan_t *s) { return s->wmk.current_us; }

bool st_scan_idle(const st_scan_t *s, int64_t now_ms) {
  /* Without a WATERMARK no row marks its partition active. */
  if (!s->wm && s->src->nslots) return false;
  return st_watermark_idle(&s->wmk, now_ms);
}

/* The computed column i over the batch's n rows, spread out when the
 * expression is a constant. */
static int eval_computed(st_scan_t *s, uint32_t i, ty_batch_t *full, fl_err_t *err) {
  uint32_t n = s->base->nrows;
  ex_rows_t rows = {.nrows = n, .n = n};
  const ty_vec_t *v;
  int rc = ex_expr_eval(&s->ctx, s->computed[i], full, &rows, &v, err);
  if (rc) return rc;
  if (v->len == 1 && n != 1) {
    if (!s->owned[i]) s->owned[i] = ty_vec_new(v->type, n);
    ty_vec_reset(s->owned[i]);
    for (uint32_t r = 0; r < n; r++) ty_vec_append_from(s->owned[i], v, 0);
    v = s->owned[i];
  }
  s->full[i] = (ty_vec_t *)v;
  return FL_OK;
}

int st_scan_step(st_scan_t *s, int timeout_ms, int64_t now_ms, uint32_t *rows, bool *end,
                 fl_err_t *err) {
  *rows = 0;
  ty_batch_reset(s->base);
  int rc = s->src->vt->poll(s->src, s->base, s->part, timeout_ms, end, err);
  if (rc) return rc;
  uint32_t n = s->base->nrows;
  if (n) {
    const sql_stream_table_t *t = s->t;
    for (uint32_t k = 0; k < t->nbase; k++) s->full[t->base[k]] = s->base->cols[k];
    /* Computed columns read the base columns: evaluate them over the base batch. */
    for (uint32_t i = 0; i < t->ncols; i++)
      if (s->computed[i] && (rc = eval_computed(s, i, s->base, err)))
        return fl_err_prefix(err, "table %s, column %s: ", t->name, t->cols[i].name);
    ty_batch_t full = {.schema = s->full_schema, .ncols = t->ncols, .cols = s->full, .nrows = n};
    if (s->wm) {
      ex_rows_t all = {.nrows = n, .n = n};
      const ty_vec_t *w;
      if ((rc = ex_expr_eval(&s->ctx, s->wm, &full, &all, &w, err)))
        return fl_err_prefix(err, "table %s: WATERMARK: ", t->name);
      uint32_t m = w->len == 1 ? 0 : UINT32_MAX;
      for (uint32_t r = 0; r < n; r++)
        if (ty_vec_is_valid(w, r & m))
          st_watermark_observe(&s->wmk, s->part[r], ((const int64_t *)w->data)[r & m], now_ms);
    }
    for (uint32_t i = 0; i < s->ntargets; i++) {
      target_t *tg = &s->targets[i];
      for (uint32_t j = 0; j < tg->ncols; j++) tg->view[j] = s->full[tg->cols[j]];
      ty_batch_t b = {.schema = tg->schema, .ncols = tg->ncols, .cols = tg->view, .nrows = n};
      if ((rc = ex_op_push(tg->op, &b, err))) return rc;
    }
    *rows = n;
  }
  /* Also without rows: idle partitions may stop holding the watermark back. */
  if (s->wm && st_watermark_advance(&s->wmk, now_ms))
    for (uint32_t i = 0; i < s->ntargets; i++)
      if ((rc = ex_op_watermark(s->targets[i].op, s->wmk.current_us, err))) return rc;
  return FL_OK;
}

int st_scan_finish(st_scan_t *s, fl_err_t *err) {
  for (uint32_t i = 0; i < s->ntargets; i++) {
    int rc = ex_op_finish(s->targets[i].op, err);
    if (rc) return rc;
  }
  return FL_OK;
}
