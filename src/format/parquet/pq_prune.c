/*
 * pq_prune.c - decides from column statistics that a row group cannot
 * hold a row matching an AND-list of predicate terms (layer 4,
 * format/parquet).
 *
 * Only statistics whose order is known to be the value order are used:
 * min_value/max_value (the spec's type-defined order), and the deprecated
 * min/max for signed numeric columns only. Unsigned, INT96 and FLOAT16
 * columns, NaN bounds and columns under a repeated field never prune.
 */
#include <math.h>
#include <string.h>

#include "format/parquet/pq_int.h"

bool pq__stat_value(const pq_node_t *n, const uint8_t *p, size_t len, ty_value_t *v) {
  memset(v, 0, sizeof *v);
  v->kind = n->field.type->kind;
  switch (n->conv) {
    case PQ_CV_COPY:
      switch (n->ptype) {
        case PQ_BOOLEAN:
          if (len < 1) return false;
          v->u.b = p[0] != 0;
          return true;
        case PQ_INT32:
          if (len != 4) return false;
          v->u.i32 = (int32_t)fl_load_le32(p);
          return true;
        case PQ_INT64:
          if (len != 8) return false;
          v->u.i64 = (int64_t)fl_load_le64(p);
          return true;
        case PQ_FLOAT:
          if (len != 4) return false;
          memcpy(&v->u.f32, p, 4);
          return !isnan(v->u.f32);
        case PQ_DOUBLE:
          if (len != 8) return false;
          memcpy(&v->u.f64, p, 8);
          return !isnan(v->u.f64);
        case PQ_FIXED_LEN_BYTE_ARRAY:
          if (len != (size_t)n->type_length) return false;
          v->u.bytes.p = p;
          v->u.bytes.n = len;
          return true;
        default: return false;
      }
    case PQ_CV_BYTES:
      v->u.bytes.p = p;
      v->u.bytes.n = len;
      return true;
    case PQ_CV_I32_X1000:
      if (len != 4) return false;
      v->u.i64 = (int64_t)(int32_t)fl_load_le32(p) * 1000;
      return true;
    case PQ_CV_I64_X1000:
      if (len != 8) return false;
      v->u.i64 = (int64_t)fl_load_le64(p) * 1000;
      return true;
    case PQ_CV_I32_DEC:
      if (len != 4) return false;
      v->u.i128 = (int32_t)fl_load_le32(p);
      return true;
    case PQ_CV_I64_DEC:
      if (len != 8) return false;
      v->u.i128 = (int64_t)fl_load_le64(p);
      return true;
    case PQ_CV_BE_DEC: {
      if (len > 16) return false;
      fl_i128 x = len ? (int8_t)p[0] : 0;
      for (size_t i = 1; i < len; i++) x = (fl_i128)((unsigned __int128)x << 8) | p[i];
      v->u.i128 = x;
      return true;
    }
    default: return false;
  }
}

static const pq_node_t *find_leaf(const pq_node_t *n, int32_t id) {
  if (n->kind == PQ_NODE_LIST || n->kind == PQ_NODE_MAP) return NULL;
  for (uint32_t i = 0; i < n->nchildren; i++) {
    const pq_node_t *c = n->children[i];
    if (c->field.id == id) return c->kind == PQ_NODE_LEAF ? c : NULL;
    const pq_node_t *hit = find_leaf(c, id);
    if (hit) return hit;
  }
  return NULL;
}

static bool term_prunes(const pq_node_t *lf, const pq_row_group_t *rg, const pq_pred_term_t *t) {
  const pq_column_meta_t *md = &rg->columns[lf->leaf].meta_data;
  if (!md->has_statistics) return false;
  const pq_statistics_t *s = &md->statistics;
  int64_t nvals = md->num_values;
  if (t->op == PQ_OP_IS_NULL) return s->has_null_count && s->null_count == 0;
  bool all_null = s->has_null_count && s->null_count == nvals && nvals == rg->num_rows;
  if (t->op == PQ_OP_NOT_NULL) return all_null;
  if (all_null) return true; /* comparisons never hold on nulls */
  if (t->value.is_null || t->value.kind != lf->field.type->kind) return false;
  const pq_bytes_t *mn = NULL, *mx = NULL;
  if (s->has_min_value && s->has_max_value) {
    mn = &s->min_value;
    mx = &s->max_value;
  } else if (s->has_min && s->has_max && lf->conv == PQ_CV_COPY &&
             (lf->ptype == PQ_INT32 || lf->ptype == PQ_INT64 || lf->ptype == PQ_FLOAT ||
              lf->ptype == PQ_DOUBLE)) {
    mn = &s->min;
    mx = &s->max;
  } else {
    return false;
  }
  ty_value_t vmin, vmax;
  if (!pq__stat_value(lf, mn->p, mn->n, &vmin) || !pq__stat_value(lf, mx->p, mx->n, &vmax))
    return false;
  if ((t->value.kind == TY_FLOAT && isnan(t->value.u.f32)) ||
      (t->value.kind == TY_DOUBLE && isnan(t->value.u.f64)))
    return false;
  int cmin = ty_value_cmp(&t->value, &vmin), cmax = ty_value_cmp(&t->value, &vmax);
  switch (t->op) {
    case PQ_OP_EQ: return cmin < 0 || cmax > 0;
    case PQ_OP_LT: return cmin <= 0; /* every value >= v */
    case PQ_OP_LE: return cmin < 0;
    case PQ_OP_GT: return cmax >= 0; /* every value <= v */
    case PQ_OP_GE: return cmax > 0;
    default: return false;
  }
}

bool pq__prune_row_group(const pq_schema_t *s, const pq_row_group_t *rg, const pq_pred_term_t *t,
                         uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    const pq_node_t *lf = find_leaf(&s->root, t[i].field_id);
    if (!lf || lf->max_rep > 0) continue;
    if (term_prunes(lf, rg, &t[i])) return true;
  }
  return false;
}
