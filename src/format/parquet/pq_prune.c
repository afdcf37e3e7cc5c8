/*
 * pq_prune.c - decides from column statistics that a row group cannot
 * hold a row matching an AND-list of predicate terms (layer 4,
 * format/parquet).
 *
 * Only statistics whose order is known to be the value order are used:
 * min_value/max_value (the spec's type-defined order), and the deprecated
 * min/max for signed numeric columns only. Unsigned, INT96 and FLOAT16
 * columns, NaN bounds and columns under a repeated field never prune.
 *
 * Within a row group that is read, the column index of each predicate
 * column rules out pages, and the offset index turns those pages into row
 * ranges; the reader then reads only the rows left in every column.
 */
#include <math.h>
#include <string.h>

#include "base/alloc.h"
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

/* The spec asks readers to widen a zero bound: a min of +0 may hide -0
 * values and a max of -0 may hide +0 ones. */
static void widen_zero(ty_value_t *mn, ty_value_t *mx) {
  if (mn->kind == TY_FLOAT && mn->u.f32 == 0) mn->u.f32 = -0.0f;
  if (mx->kind == TY_FLOAT && mx->u.f32 == 0) mx->u.f32 = 0.0f;
  if (mn->kind == TY_DOUBLE && mn->u.f64 == 0) mn->u.f64 = -0.0;
  if (mx->kind == TY_DOUBLE && mx->u.f64 == 0) mx->u.f64 = 0.0;
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
  widen_zero(&vmin, &vmax);
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

/* Whether page i of a column index may hold a row matching term t. */
static bool page_may_match(const pq_node_t *lf, const pq_column_index_t *ci, uint32_t i,
                           const pq_pred_term_t *t) {
  bool all_null = ci->null_pages[i];
  if (t->op == PQ_OP_IS_NULL)
    return all_null || !ci->has_null_counts || ci->null_counts[i] != 0;
  if (t->op == PQ_OP_NOT_NULL) return !all_null;
  if (all_null) return false;
  if (t->value.is_null || t->value.kind != lf->field.type->kind) return true;
  if ((t->value.kind == TY_FLOAT && isnan(t->value.u.f32)) ||
      (t->value.kind == TY_DOUBLE && isnan(t->value.u.f64)))
    return true;
  ty_value_t vmin, vmax;
  if (!pq__stat_value(lf, ci->min_values[i].p, ci->min_values[i].n, &vmin) ||
      !pq__stat_value(lf, ci->max_values[i].p, ci->max_values[i].n, &vmax))
    return true;
  widen_zero(&vmin, &vmax);
  int cmin = ty_value_cmp(&t->value, &vmin), cmax = ty_value_cmp(&t->value, &vmax);
  switch (t->op) {
    case PQ_OP_EQ: return !(cmin < 0 || cmax > 0);
    case PQ_OP_LT: return !(cmin <= 0);
    case PQ_OP_LE: return !(cmin < 0);
    case PQ_OP_GT: return !(cmax >= 0);
    case PQ_OP_GE: return !(cmax > 0);
    default: return true;
  }
}

/* Reads and decodes a column's indexes; false when absent or unusable. */
static bool read_indexes(io_reader_t *io, fl_arena_t *a, const pq_column_chunk_t *cc,
                         int64_t rg_rows, pq_column_index_t *ci, pq_offset_index_t *oi) {
  if (!cc->has_column_index || !cc->has_offset_index) return false;
  if (cc->column_index_length <= 0 || cc->offset_index_length <= 0) return false;
  if (cc->column_index_offset < 0 || cc->offset_index_offset < 0) return false;
  if ((uint64_t)cc->column_index_offset + (uint64_t)cc->column_index_length > io->size ||
      (uint64_t)cc->offset_index_offset + (uint64_t)cc->offset_index_length > io->size)
    return false;
  fl_err_t err;
  uint8_t *cb = fl_arena_alloc(a, (size_t)cc->column_index_length);
  uint8_t *ob = fl_arena_alloc(a, (size_t)cc->offset_index_length);
  if (io->read_at(io, (uint64_t)cc->column_index_offset, cb, (size_t)cc->column_index_length, &err) ||
      io->read_at(io, (uint64_t)cc->offset_index_offset, ob, (size_t)cc->offset_index_length, &err))
    return false;
  if (pq_meta_read_column_index(a, cb, (size_t)cc->column_index_length, ci, &err) ||
      pq_meta_read_offset_index(a, ob, (size_t)cc->offset_index_length, oi, &err))
    return false;
  if (ci->npages != oi->npages || oi->npages == 0) return false;
  int64_t prev = 0;
  for (uint32_t i = 0; i < oi->npages; i++) {
    int64_t f = oi->page_locations[i].first_row_index;
    if (f < prev || f > rg_rows || (i == 0 && f != 0)) return false;
    prev = f;
  }
  return true;
}

int pq__prune_pages(io_reader_t *io, const pq_schema_t *s, const pq_row_group_t *rg,
                    const pq_pred_term_t *t, uint32_t n, int64_t **ranges, uint32_t *nranges) {
  /* keep[] marks, per page boundary segment, whether rows may match. The
   * segments are the union of all indexed columns' page boundaries. */
  int64_t rows = rg->num_rows;
  uint32_t cap = 16, nr = 1;
  int64_t *rg_ranges = fl_malloc(cap * 2 * sizeof(int64_t));
  rg_ranges[0] = 0;
  rg_ranges[1] = rows;
  fl_arena_t *a = fl_arena_new(0);
  for (uint32_t k = 0; k < n; k++) {
    const pq_node_t *lf = find_leaf(&s->root, t[k].field_id);
    if (!lf || lf->max_rep > 0) continue;
    pq_column_index_t ci;
    pq_offset_index_t oi;
    if (!read_indexes(io, a, &rg->columns[lf->leaf], rows, &ci, &oi)) continue;
    /* Subtract each non-matching page's rows from the kept ranges. */
    for (uint32_t p = 0; p < oi.npages; p++) {
      if (page_may_match(lf, &ci, p, &t[k])) continue;
      int64_t lo = oi.page_locations[p].first_row_index;
      int64_t hi = p + 1 < oi.npages ? oi.page_locations[p + 1].first_row_index : rows;
      if (lo >= hi) continue;
      uint32_t out = 0;
      int64_t *nrg = fl_malloc((nr + 1) * 2 * sizeof(int64_t));
      for (uint32_t q = 0; q < nr; q++) {
        int64_t a0 = rg_ranges[2 * q], a1 = rg_ranges[2 * q + 1];
        if (a1 <= lo || a0 >= hi) {
          nrg[2 * out] = a0;
          nrg[2 * out + 1] = a1;
          out++;
          continue;
        }
        if (a0 < lo) {
          nrg[2 * out] = a0;
          nrg[2 * out + 1] = lo;
          out++;
        }
        if (a1 > hi) {
          nrg[2 * out] = hi;
          nrg[2 * out + 1] = a1;
          out++;
        }
      }
      fl_free(rg_ranges);
      rg_ranges = nrg;
      nr = out;
    }
  }
  fl_arena_free(a);
  *ranges = rg_ranges;
  *nranges = nr;
  return FL_OK;
}
