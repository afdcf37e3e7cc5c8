/*
 * ice_expr_metrics.c - deciding from statistics whether a file or a
 * manifest can hold matching rows (layer 5, iceberg).
 *
 * Three evaluators over NOT-free bound trees (NOT is pushed down first),
 * each answering per predicate and combining with AND and OR:
 *   - inclusive metrics (Java's InclusiveMetricsEvaluator): false only
 *     when a data file's value, null and NaN counts and lower/upper
 *     bounds prove that no row matches;
 *   - strict metrics (StrictMetricsEvaluator): true only when they prove
 *     that every row matches;
 *   - manifest summaries (ManifestEvaluator): false only when the
 *     partition summaries of a manifest prove that none of its files
 *     holds a matching partition value.
 * They agree with the row semantics of ice_expr_eval.c: a comparison
 * with null is unknown (so a null row never matches, not even !=), NaN
 * satisfies no comparison but != and NOT IN. Bounds cover the non-null,
 * non-NaN values; a bound that is itself NaN (older writers) proves
 * nothing. String bounds may be truncated: a lower bound is then a
 * prefix of the true minimum and an upper bound above the true maximum,
 * which every rule below tolerates. An absent count proves nothing; for
 * float and double columns an absent NaN count means NaN may be present.
 */
#include <string.h>

#include "iceberg/ice_conv.h"
#include "iceberg/ice_expr_int.h"

typedef struct stats {
  bool have_vc, have_nc, have_nanc;
  int64_t vc, nc, nanc;
  bool have_lo, have_hi;
  ty_value_t lo, hi;
} stats_t;

static bool is_float(const ty_type_t *t) {
  return t && (t->kind == TY_FLOAT || t->kind == TY_DOUBLE);
}

/* Decodes one bound; false when absent, undecodable, or NaN. */
static bool decode(fl_arena_t *a, const ty_type_t *t, ice_bytes_t b, ty_value_t *out) {
  if (!b.p || !t || ty_is_nested(t)) return false;
  fl_err_t err = {0};
  if (ice_value_from_bytes(a, t, b.p, b.n, "bound", out, &err)) return false;
  out->is_null = false;
  return !ice__val_is_nan(out);
}

static void col_stats(fl_arena_t *a, const ice_data_file_t *f, const ice_expr_t *p, stats_t *s) {
  memset(s, 0, sizeof *s);
  for (uint32_t i = 0; i < f->ncols; i++) {
    const ice_col_metrics_t *m = &f->cols[i];
    if (m->field_id != p->field_id) continue;
    s->have_vc = m->value_count >= 0;
    s->vc = m->value_count;
    s->have_nc = m->null_count >= 0;
    s->nc = m->null_count;
    s->have_nanc = m->nan_count >= 0;
    s->nanc = m->nan_count;
    s->have_lo = decode(a, p->type, m->lower, &s->lo);
    s->have_hi = decode(a, p->type, m->upper, &s->hi);
    break;
  }
  if (!is_float(p->type)) {
    /* Columns that cannot hold NaN hold none. */
    s->have_nanc = true;
    s->nanc = 0;
  }
}

static bool all_null(const stats_t *s) { return s->have_vc && s->have_nc && s->vc == s->nc; }
static bool all_nan(const stats_t *s) { return s->have_vc && s->have_nanc && s->vc == s->nanc; }
/* No row holds an ordinary (non-null, non-NaN) value. */
static bool no_ordinary(const stats_t *s) {
  return s->have_vc && s->have_nc && s->have_nanc && s->vc - s->nc - s->nanc <= 0;
}
static bool no_null(const stats_t *s) { return s->have_nc && s->nc == 0; }
static bool no_nan(const stats_t *s) { return s->have_nanc && s->nanc == 0; }

/* Compares the first n bytes of a byte value (or all of it if shorter) with prefix. */
static int prefix_cmp(const ty_value_t *v, const ty_value_t *prefix) {
  size_t n = prefix->u.bytes.n, m = v->u.bytes.n < n ? v->u.bytes.n : n;
  int c = m ? memcmp(v->u.bytes.p, prefix->u.bytes.p, m) : 0;
  if (c) return c;
  return m < n ? -1 : 0;
}

static bool pred_might(fl_arena_t *a, const ice_expr_t *p, const ice_data_file_t *f) {
  stats_t s;
  col_stats(a, f, p, &s);
  const ty_value_t *v = p->values;
  switch (p->op) {
    case ICE_OP_IS_NULL: return !(s.have_nc && s.nc == 0);
    case ICE_OP_NOT_NULL: return !all_null(&s);
    case ICE_OP_IS_NAN: return !(s.have_nanc && s.nanc == 0) && !all_null(&s);
    case ICE_OP_NOT_NAN: return !all_nan(&s) && !all_null(&s) && !no_ordinary(&s);
    default: break;
  }
  if (all_null(&s)) return false;
  switch (p->op) {
    case ICE_OP_NE: return true;
    case ICE_OP_NOT_IN: return true;
    case ICE_OP_NOT_STARTS_WITH:
      /* Every value carries the prefix when both bounds do. */
      if (!s.have_lo || !s.have_hi) return true;
      return !(prefix_cmp(&s.lo, &v[0]) == 0 && prefix_cmp(&s.hi, &v[0]) == 0);
    default: break;
  }
  if (no_ordinary(&s) || all_nan(&s)) return false;
  switch (p->op) {
    case ICE_OP_LT: return !(s.have_lo && ice__val_cmp(&s.lo, &v[0]) >= 0);
    case ICE_OP_LE: return !(s.have_lo && ice__val_cmp(&s.lo, &v[0]) > 0);
    case ICE_OP_GT: return !(s.have_hi && ice__val_cmp(&s.hi, &v[0]) <= 0);
    case ICE_OP_GE: return !(s.have_hi && ice__val_cmp(&s.hi, &v[0]) < 0);
    case ICE_OP_EQ:
      if (s.have_lo && ice__val_cmp(&s.lo, &v[0]) > 0) return false;
      if (s.have_hi && ice__val_cmp(&s.hi, &v[0]) < 0) return false;
      return true;
    case ICE_OP_IN:
      for (uint32_t i = 0; i < p->nlits; i++) {
        if (s.have_lo && ice__val_cmp(&s.lo, &v[i]) > 0) continue;
        if (s.have_hi && ice__val_cmp(&s.hi, &v[i]) < 0) continue;
        return true;
      }
      return false;
    case ICE_OP_STARTS_WITH:
      if (s.have_lo && prefix_cmp(&s.lo, &v[0]) > 0) return false;
      if (s.have_hi && prefix_cmp(&s.hi, &v[0]) < 0) return false;
      return true;
    default: return true;
  }
}

static bool pred_must(fl_arena_t *a, const ice_expr_t *p, const ice_data_file_t *f) {
  stats_t s;
  col_stats(a, f, p, &s);
  const ty_value_t *v = p->values;
  switch (p->op) {
    case ICE_OP_IS_NULL: return all_null(&s);
    case ICE_OP_NOT_NULL: return no_null(&s);
    case ICE_OP_IS_NAN: return all_nan(&s);
    case ICE_OP_NOT_NAN: return no_nan(&s) && no_null(&s);
    default: break;
  }
  if (!no_null(&s)) return false;
  /* != and NOT IN hold for NaN rows; the rest fail on them. */
  if (p->op == ICE_OP_NE || p->op == ICE_OP_NOT_IN) {
    if (all_nan(&s)) return true;
    if (!s.have_lo || !s.have_hi) return false;
    for (uint32_t i = 0; i < (p->op == ICE_OP_NE ? 1u : p->nlits); i++)
      if (ice__val_cmp(&s.lo, &v[i]) <= 0 && ice__val_cmp(&s.hi, &v[i]) >= 0) return false;
    return true;
  }
  if (!no_nan(&s)) return false;
  switch (p->op) {
    case ICE_OP_LT: return s.have_hi && ice__val_cmp(&s.hi, &v[0]) < 0;
    case ICE_OP_LE: return s.have_hi && ice__val_cmp(&s.hi, &v[0]) <= 0;
    case ICE_OP_GT: return s.have_lo && ice__val_cmp(&s.lo, &v[0]) > 0;
    case ICE_OP_GE: return s.have_lo && ice__val_cmp(&s.lo, &v[0]) >= 0;
    case ICE_OP_EQ:
    case ICE_OP_IN:
      if (!s.have_lo || !s.have_hi || ice__val_cmp(&s.lo, &s.hi) != 0) return false;
      for (uint32_t i = 0; i < (p->op == ICE_OP_EQ ? 1u : p->nlits); i++)
        if (ice__val_cmp(&s.lo, &v[i]) == 0) return true;
      return false;
    case ICE_OP_STARTS_WITH:
      return s.have_lo && s.have_hi && prefix_cmp(&s.lo, &v[0]) == 0 &&
             prefix_cmp(&s.hi, &v[0]) == 0;
    case ICE_OP_NOT_STARTS_WITH:
      return (s.have_lo && prefix_cmp(&s.lo, &v[0]) > 0) ||
             (s.have_hi && prefix_cmp(&s.hi, &v[0]) < 0);
    default: return false;
  }
}

typedef bool (*pred_fn)(fl_arena_t *a, const ice_expr_t *p, const void *ctx);

static bool walk(fl_arena_t *a, const ice_expr_t *e, pred_fn fn, const void *ctx) {
  switch (e->kind) {
    case ICE_E_TRUE: return true;
    case ICE_E_FALSE: return false;
    case ICE_E_AND: return walk(a, e->left, fn, ctx) && walk(a, e->right, fn, ctx);
    case ICE_E_OR: return walk(a, e->left, fn, ctx) || walk(a, e->right, fn, ctx);
    case ICE_E_PRED: return fn(a, e, ctx);
    case ICE_E_NOT: break; /* pushed down before the walk */
  }
  return true;
}

static bool might_fn(fl_arena_t *a, const ice_expr_t *p, const void *ctx) {
  return pred_might(a, p, ctx);
}
static bool must_fn(fl_arena_t *a, const ice_expr_t *p, const void *ctx) {
  return pred_must(a, p, ctx);
}

static bool run(const ice_expr_t *e, pred_fn fn, const void *ctx) {
  fl_arena_t *a = fl_arena_new(4096);
  bool r = walk(a, ice_expr_rewrite_not(a, e), fn, ctx);
  fl_arena_free(a);
  return r;
}

bool ice_metrics_might_match(const ice_expr_t *e, const ty_schema_t *schema,
                             const ice_data_file_t *f) {
  (void)schema;
  if (f->record_count == 0) return false;
  return run(e, might_fn, f);
}

bool ice_metrics_must_match(const ice_expr_t *e, const ty_schema_t *schema,
                            const ice_data_file_t *f) {
  (void)schema;
  if (f->record_count == 0) return true;
  return run(e, must_fn, f);
}

/* ---- manifest partition summaries ---- */

typedef struct summary_ctx {
  const ty_type_t *pt;
  const ice_manifest_file_t *mf;
} summary_ctx_t;

static bool summary_might(fl_arena_t *a, const ice_expr_t *p, const void *ctx) {
  const summary_ctx_t *c = ctx;
  uint32_t i = 0;
  while (i < c->pt->nfields && c->pt->fields[i].id != p->field_id) i++;
  if (i == c->pt->nfields || !c->mf->partitions || i >= c->mf->npartitions) return true;
  const ice_field_summary_t *fs = &c->mf->partitions[i];
  const ty_type_t *t = c->pt->fields[i].type;
  /* The summary as column statistics: counts are only known to be zero or not. */
  stats_t s;
  memset(&s, 0, sizeof s);
  s.have_lo = decode(a, t, fs->lower, &s.lo);
  s.have_hi = decode(a, t, fs->upper, &s.hi);
  bool may_nan = is_float(t) && fs->contains_nan != 0;
  bool no_values = !fs->lower.p && !fs->upper.p && !may_nan; /* only nulls, or empty */
  const ty_value_t *v = p->values;
  switch (p->op) {
    case ICE_OP_IS_NULL: return fs->contains_null;
    case ICE_OP_NOT_NULL: return !no_values;
    case ICE_OP_IS_NAN: return may_nan;
    case ICE_OP_NOT_NAN: return fs->lower.p || fs->upper.p; /* an ordinary value */
    case ICE_OP_NE:
    case ICE_OP_NOT_IN: return !no_values;
    case ICE_OP_NOT_STARTS_WITH:
      if (no_values) return false;
      if (!s.have_lo || !s.have_hi) return true;
      return !(prefix_cmp(&s.lo, &v[0]) == 0 && prefix_cmp(&s.hi, &v[0]) == 0);
    default: break;
  }
  /* Comparisons need an ordinary value: none without bounds. */
  if (!fs->lower.p && !fs->upper.p) return false;
  stats_t *q = &s;
  switch (p->op) {
    case ICE_OP_LT: return !(q->have_lo && ice__val_cmp(&q->lo, &v[0]) >= 0);
    case ICE_OP_LE: return !(q->have_lo && ice__val_cmp(&q->lo, &v[0]) > 0);
    case ICE_OP_GT: return !(q->have_hi && ice__val_cmp(&q->hi, &v[0]) <= 0);
    case ICE_OP_GE: return !(q->have_hi && ice__val_cmp(&q->hi, &v[0]) < 0);
    case ICE_OP_EQ:
    case ICE_OP_IN:
      for (uint32_t k = 0; k < (p->op == ICE_OP_EQ ? 1u : p->nlits); k++) {
        if (q->have_lo && ice__val_cmp(&q->lo, &v[k]) > 0) continue;
        if (q->have_hi && ice__val_cmp(&q->hi, &v[k]) < 0) continue;
        return true;
      }
      return false;
    case ICE_OP_STARTS_WITH:
      if (q->have_lo && prefix_cmp(&q->lo, &v[0]) > 0) return false;
      if (q->have_hi && prefix_cmp(&q->hi, &v[0]) < 0) return false;
      return true;
    default: return true;
  }
}

bool ice_manifest_might_match(const ice_expr_t *projected, const ty_type_t *partition_type,
                              const ice_manifest_file_t *mf) {
  if (!partition_type) return projected->kind != ICE_E_FALSE;
  summary_ctx_t c = {.pt = partition_type, .mf = mf};
  return run(projected, summary_might, &c);
}
