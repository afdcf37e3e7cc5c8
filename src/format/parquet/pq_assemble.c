/*
 * pq_assemble.c - turns repetition and definition levels into nested
 * vectors (layer 4, format/parquet).
 *
 * Leaves are read first (pq_column_reader.c), each filling its own vector
 * with one slot per level entry at which its parent exists. A struct, list
 * or map then takes its shape from the levels of its first leaf in one
 * linear pass: an entry starts a new slot of node N when its repetition
 * level is at most N's context repetition and its definition level shows
 * N's container exists; the slot is non-null when the definition level
 * reaches N's own; for lists and maps, later entries repeating at the
 * element level add elements. Children are checked to agree in length, so
 * a file whose leaves disagree fails instead of producing bad offsets.
 */
#include "format/parquet/pq_int.h"

static inline void set_bit(uint8_t *bm, uint32_t i, bool on) {
  if (on)
    bm[i >> 3] |= (uint8_t)(1u << (i & 7));
  else
    bm[i >> 3] &= (uint8_t)~(1u << (i & 7));
}

int pq__assemble(const pq_node_t *n, ty_vec_t *v, pq_col_t *const *cols, uint32_t rows,
                 fl_err_t *err) {
  if (n->kind == PQ_NODE_LEAF) return FL_OK;
  for (uint32_t i = 0; i < n->nchildren; i++) {
    int rc = pq__assemble(n->children[i], v->children[i], cols, rows, err);
    if (rc) return rc;
  }
  const pq_col_t *lc = cols[n->first_leaf];
  const uint16_t *def, *rep;
  uint32_t ne;
  pq__col_levels(lc, &def, &rep, &ne);
  const char *name = n->field.name ? n->field.name : "?";
  if (n->kind == PQ_NODE_STRUCT) {
    uint32_t s = v->len;
    if (ne == 0 && rows && n->ctx_def == 0 && n->def == 0) {
      /* No levels at all: every row is a present struct. */
      ty_vec_reserve(v, s + rows);
      for (uint32_t i = 0; i < rows; i++) set_bit(v->validity, s + i, true);
      s += rows;
    } else {
      for (uint32_t e = 0; e < ne; e++) {
        if (rep[e] > n->ctx_rep || def[e] < n->ctx_def) continue;
        if (s == v->cap) ty_vec_reserve(v, s + 1);
        bool ok = def[e] >= n->def;
        set_bit(v->validity, s, ok);
        if (!ok) v->null_count++;
        s++;
      }
    }
    v->len = s;
    for (uint32_t i = 0; i < n->nchildren; i++)
      if (v->children[i]->len != s)
        return fl_err_set(err, FL_ECORRUPT, "field '%s': struct has %u rows, member %u has %u", name, s,
                          i, v->children[i]->len);
    return FL_OK;
  }
  /* List or map. */
  const pq_node_t *el = n->children[0];
  const int16_t ectx_def = el->ctx_def, ectx_rep = el->ctx_rep;
  uint32_t s = v->len;
  int32_t count = v->offsets[s];
  bool open = false;
  for (uint32_t e = 0; e < ne; e++) {
    if (rep[e] <= n->ctx_rep) {
      if (def[e] < n->ctx_def) continue;
      if (open) v->offsets[s] = count;
      if (s == v->cap) ty_vec_reserve(v, s + 1);
      bool ok = def[e] >= n->def;
      set_bit(v->validity, s, ok);
      if (!ok) v->null_count++;
      s++;
      open = true;
      if (def[e] >= ectx_def) count++;
    } else if (open && rep[e] <= ectx_rep && def[e] >= ectx_def) {
      count++;
    }
  }
  if (open) v->offsets[s] = count;
  v->len = s;
  for (uint32_t i = 0; i < n->nchildren; i++)
    if ((int64_t)v->children[i]->len != (int64_t)count)
      return fl_err_set(err, FL_ECORRUPT, "field '%s': list holds %d elements, child %u has %u", name,
                        count, i, v->children[i]->len);
  return FL_OK;
}
