/*
 * join_test_util.h - what the join tests share: random tables with NULLs,
 * NaNs, duplicates and a hot key, a brute-force nested-loop join over
 * them computed row by row (the reference), a residual condition usable
 * by both, and running a join operator into a sink.
 */
#ifndef FLOE_JOIN_TEST_UTIL_H
#define FLOE_JOIN_TEST_UTIL_H

#include <math.h>
#include <stdio.h>

#include "exec/ex_join.h"
#include "exec_test_util.h"

/* Columns of both sides: k1 int, k2 string, v long, d double. */
#define JT_SCHEMA "k1 int, k2 string, v long, d double"
#define JT_NCOLS 4

typedef struct jt_side {
  ty_schema_t *schema;
  ty_batch_t **batches;
  uint32_t nbatches;
  /* Every live row, flattened: batch and row number. */
  const ty_batch_t **rb;
  uint32_t *rr;
  uint32_t nrows;
} jt_side_t;

typedef struct jt_gen {
  uint32_t rows;
  uint32_t domain;   /* distinct k1 values: rows / domain duplicates each */
  uint32_t null_pct; /* NULL keys */
  uint32_t hot_pct;  /* rows with k1 = 7 (skew) */
  uint64_t seed;
} jt_gen_t;

static inline void jt_side_gen(jt_side_t *s, fl_arena_t *a, const jt_gen_t *g) {
  fl_err_t err;
  memset(s, 0, sizeof *s);
  ty_schema_parse(a, JT_SCHEMA, &s->schema, &err);
  uint64_t seed = g->seed;
  uint32_t left = g->rows, cap = 8;
  s->batches = fl_calloc(cap, sizeof *s->batches);
  s->rb = fl_calloc(g->rows + 1, sizeof *s->rb);
  s->rr = fl_calloc(g->rows + 1, sizeof *s->rr);
  while (left) {
    /* Batch sizes from 1 to 2048, some with a selection as after a filter. */
    uint64_t r0 = tu_rand(&seed);
    uint32_t n = r0 % 4 == 0 ? 1 + (uint32_t)(r0 >> 8) % 16 : 1 + (uint32_t)(r0 >> 8) % 2048;
    if (n > left) n = left;
    ty_batch_t *b = ty_batch_new(s->schema, n);
    for (uint32_t i = 0; i < n; i++) {
      uint64_t r = tu_rand(&seed), r2 = tu_rand(&seed);
      if (r % 100 < g->null_pct)
        ty_vec_append_null(b->cols[0]);
      else if ((r >> 8) % 100 < g->hot_pct)
        ty_vec_append_i32(b->cols[0], 7);
      else
        ty_vec_append_i32(b->cols[0], (int32_t)((r >> 16) % g->domain));
      if ((r >> 32) % 200 < g->null_pct) {
        ty_vec_append_null(b->cols[1]);
      } else {
        char t[16];
        int len = snprintf(t, sizeof t, "s%u", (unsigned)((r >> 40) % 3));
        ty_vec_append_bytes(b->cols[1], t, (size_t)len);
      }
      if (r2 % 10 == 0)
        ty_vec_append_null(b->cols[2]);
      else
        ty_vec_append_i64(b->cols[2], (int64_t)((r2 >> 8) % 100));
      uint32_t dk = (uint32_t)(r2 >> 20) % 100;
      if (dk < g->null_pct / 2)
        ty_vec_append_null(b->cols[3]);
      else if (dk < 8)
        ty_vec_append_f64(b->cols[3], NAN);
      else if (dk < 12)
        ty_vec_append_f64(b->cols[3], -0.0);
      else
        ty_vec_append_f64(b->cols[3], (double)((r2 >> 32) % g->domain));
    }
    ty_batch_seal(b);
    if ((r0 >> 40) % 3 == 1 && n > 4) {
      uint32_t *sel = fl_malloc(n * sizeof *sel), ns = 0;
      for (uint32_t i = 0; i < n; i++)
        if ((i * 7 + (uint32_t)(r0 >> 50)) % 5 != 0) sel[ns++] = i;
      ty_batch_select(b, sel, ns);
      fl_free(sel);
    }
    if (s->nbatches == cap) s->batches = fl_realloc(s->batches, (cap *= 2) * sizeof *s->batches);
    s->batches[s->nbatches++] = b;
    uint32_t live = ty_batch_live(b);
    s->rb = fl_realloc(s->rb, (s->nrows + live + 1) * sizeof *s->rb);
    s->rr = fl_realloc(s->rr, (s->nrows + live + 1) * sizeof *s->rr);
    for (uint32_t k = 0; k < live; k++) {
      s->rb[s->nrows] = b;
      s->rr[s->nrows++] = b->sel ? b->sel[k] : k;
    }
    left -= n;
  }
}

static inline void jt_side_free(jt_side_t *s) {
  for (uint32_t i = 0; i < s->nbatches; i++) ty_batch_free(s->batches[i]);
  fl_free(s->batches);
  fl_free(s->rb);
  fl_free(s->rr);
}

/* A residual as the tests write it: over probe columns pc (row i) and
 * build columns bc (row j). */
typedef bool (*jt_pred_fn)(ty_vec_t *const *pc, uint32_t i, ty_vec_t *const *bc, uint32_t j);

/* The default residual: p.v and b.v both non-NULL and
 * (p.v + b.v) % 3 != 0. */
static inline bool jt_pred(ty_vec_t *const *pc, uint32_t i, ty_vec_t *const *bc, uint32_t j) {
  const ty_vec_t *pv = pc[2], *bv = bc[2];
  if (ty_vec_is_null(pv, i) || ty_vec_is_null(bv, j)) return false;
  return (TY_VEC_DATA(pv, int64_t)[i] + TY_VEC_DATA(bv, int64_t)[j]) % 3 != 0;
}

/* The residual as the join calls it (pred NULL: jt_pred); counts its
 * calls and the largest batch it saw. */
typedef struct jt_filter_state {
  jt_pred_fn pred;
  uint64_t calls;
  uint32_t max_rows;
} jt_filter_state_t;

static inline int jt_filter(void *arg, const ty_batch_t *pairs, uint32_t *sel, uint32_t *nsel,
                            fl_err_t *err) {
  jt_filter_state_t *st = arg;
  jt_pred_fn pred = st->pred ? st->pred : jt_pred;
  st->calls++;
  if (pairs->nrows > st->max_rows) st->max_rows = pairs->nrows;
  if (pairs->sel) return fl_err_set(err, FL_EINTERNAL, "pairs batch has a selection");
  if (pairs->ncols != 2 * JT_NCOLS)
    return fl_err_set(err, FL_EINTERNAL, "pairs batch has %u columns", pairs->ncols);
  uint32_t m = 0;
  for (uint32_t i = 0; i < pairs->nrows; i++)
    if (pred(pairs->cols, i, pairs->cols + JT_NCOLS, i)) sel[m++] = i;
  *nsel = m;
  return FL_OK;
}

/* SQL `=` on one key value: never true for NULL or NaN. */
static inline bool jt_key_eq(const ty_vec_t *a, uint32_t i, const ty_vec_t *b, uint32_t j) {
  if (ty_vec_is_null(a, i) || ty_vec_is_null(b, j)) return false;
  switch (a->type->kind) {
    case TY_BOOLEAN: return a->data[i] == b->data[j];
    case TY_INT:
    case TY_DATE: return TY_VEC_DATA(a, int32_t)[i] == TY_VEC_DATA(b, int32_t)[j];
    case TY_LONG:
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ: return TY_VEC_DATA(a, int64_t)[i] == TY_VEC_DATA(b, int64_t)[j];
    case TY_FLOAT: return TY_VEC_DATA(a, float)[i] == TY_VEC_DATA(b, float)[j];
    case TY_DOUBLE: return TY_VEC_DATA(a, double)[i] == TY_VEC_DATA(b, double)[j];
    case TY_DECIMAL: return ty_vec_get_i128(a, i) == ty_vec_get_i128(b, j);
    case TY_UUID:
    case TY_BINARY:
    case TY_STRING: {
      size_t n, m;
      const uint8_t *p = ty_vec_get_bytes(a, i, &n), *q = ty_vec_get_bytes(b, j, &m);
      return n == m && memcmp(p, q, n) == 0;
    }
    default: return false;
  }
}

typedef struct jt_rows {
  char **rows;
  size_t n, cap;
} jt_rows_t;

static inline void jt_add(jt_rows_t *o, const jt_side_t *P, int64_t p, const jt_side_t *B,
                          int64_t b, const ex_join_spec_t *sp, fl_buf_t *buf) {
  fl_buf_clear(buf);
  for (uint32_t c = 0; c < sp->nprobe_out + sp->nbuild_out; c++) {
    if (c) fl_buf_append_str(buf, "|");
    bool probe = c < sp->nprobe_out;
    int64_t row = probe ? p : b;
    if (row < 0) {
      fl_buf_append_str(buf, "NULL");
      continue;
    }
    const jt_side_t *s = probe ? P : B;
    uint32_t col = probe ? sp->probe_out[c] : sp->build_out[c - sp->nprobe_out];
    tu_format(s->rb[row]->cols[col], s->rr[row], buf);
  }
  fl_buf_append_u8(buf, 0);
  if (o->n + 1 >= o->cap)
    o->rows = fl_realloc(o->rows, (o->cap = o->cap * 2 + 64) * sizeof *o->rows);
  o->rows[o->n++] = fl_strdup((const char *)buf->data);
  o->rows[o->n] = NULL;
}

/*
 * The brute-force join: every probe row against every build row. nkeys 0
 * is a cross join (every pair qualifies before the residual).
 */
static inline char **jt_reference(const jt_side_t *P, const jt_side_t *B, const ex_join_spec_t *sp,
                                  const uint32_t *pkeys, const uint32_t *bkeys, uint32_t nkeys) {
  jt_rows_t o = {0};
  fl_buf_t buf;
  fl_buf_init(&buf);
  uint8_t *bm = fl_calloc(B->nrows + 1, 1);
  const jt_filter_state_t *fs = sp->filter_arg;
  jt_pred_fn pred = fs && fs->pred ? fs->pred : jt_pred;
  bool build_null = false;
  for (uint32_t b = 0; b < B->nrows && nkeys; b++)
    if (ty_vec_is_null(B->rb[b]->cols[bkeys[0]], B->rr[b])) build_null = true;
  for (uint32_t p = 0; p < P->nrows; p++) {
    bool matched = false;
    for (uint32_t b = 0; b < B->nrows; b++) {
      bool eq = true;
      for (uint32_t c = 0; c < nkeys && eq; c++)
        eq = jt_key_eq(P->rb[p]->cols[pkeys[c]], P->rr[p], B->rb[b]->cols[bkeys[c]], B->rr[b]);
      if (!eq) continue;
      if (sp->filter && !pred(P->rb[p]->cols, P->rr[p], B->rb[b]->cols, B->rr[b])) continue;
      matched = true;
      bm[b] = 1;
      if (sp->type <= EX_JOIN_FULL) jt_add(&o, P, p, B, b, sp, &buf);
    }
    switch (sp->type) {
      case EX_JOIN_LEFT:
      case EX_JOIN_FULL:
        if (!matched) jt_add(&o, P, p, B, -1, sp, &buf);
        break;
      case EX_JOIN_SEMI:
        if (matched) jt_add(&o, P, p, B, -1, sp, &buf);
        break;
      case EX_JOIN_ANTI:
        if (!matched) jt_add(&o, P, p, B, -1, sp, &buf);
        break;
      case EX_JOIN_NULL_AWARE_ANTI: {
        bool pnull = ty_vec_is_null(P->rb[p]->cols[pkeys[0]], P->rr[p]);
        if (B->nrows == 0 || (!build_null && !pnull && !matched)) jt_add(&o, P, p, B, -1, sp, &buf);
        break;
      }
      default: break;
    }
  }
  if (sp->type == EX_JOIN_RIGHT || sp->type == EX_JOIN_FULL || sp->type == EX_JOIN_RIGHT_ANTI)
    for (uint32_t b = 0; b < B->nrows; b++)
      if (!bm[b]) jt_add(&o, P, -1, B, b, sp, &buf);
  if (sp->type == EX_JOIN_RIGHT_SEMI)
    for (uint32_t b = 0; b < B->nrows; b++)
      if (bm[b]) jt_add(&o, P, -1, B, b, sp, &buf);
  fl_free(bm);
  fl_buf_free(&buf);
  if (!o.rows) o.rows = fl_calloc(1, sizeof *o.rows);
  qsort(o.rows, o.n, sizeof *o.rows, tu_strcmp);
  return o.rows;
}

/* Compares two NULL-terminated sorted row lists; reports the first
 * difference into msg. */
static inline bool jt_same(char **a, char **b, char *msg, size_t msglen) {
  size_t i = 0;
  for (; a[i] && b[i]; i++)
    if (strcmp(a[i], b[i]) != 0) {
      snprintf(msg, msglen, "row %zu: got \"%s\", expected \"%s\"", i, a[i], b[i]);
      return false;
    }
  if (a[i] || b[i]) {
    size_t na = i, nb = i;
    while (a[na]) na++;
    while (b[nb]) nb++;
    snprintf(msg, msglen, "%zu rows, expected %zu (first extra: \"%s\")", na, nb,
             a[i] ? a[i] : b[i]);
    return false;
  }
  return true;
}

/* Largest batch the sink received. */
static inline uint32_t jt_max_batch(const ex_sink_t *s) {
  uint32_t m = 0;
  for (uint32_t i = 0; i < s->nbatches; i++)
    if (s->batches[i]->nrows > m) m = s->batches[i]->nrows;
  return m;
}

static const uint32_t jt_all_cols[JT_NCOLS] = {0, 1, 2, 3};
static const uint32_t jt_build_out[3] = {2, 3, 1};

/* The spec the tests use: every probe column, build columns v, d, k2
 * (RIGHT_SEMI and RIGHT_ANTI: the build columns alone). */
static inline ex_join_spec_t jt_spec(const jt_side_t *P, const jt_side_t *B, ex_join_type_t t,
                                     bool filter, jt_filter_state_t *fs) {
  bool probe_only = t == EX_JOIN_SEMI || t == EX_JOIN_ANTI || t == EX_JOIN_NULL_AWARE_ANTI;
  return (ex_join_spec_t){.type = t,
                          .probe_schema = P->schema,
                          .build_schema = B->schema,
                          .probe_out = jt_all_cols,
                          .nprobe_out = t >= EX_JOIN_RIGHT_SEMI ? 0 : JT_NCOLS,
                          .build_out = jt_build_out,
                          .nbuild_out = probe_only ? 0 : 3,
                          .filter = filter ? jt_filter : NULL,
                          .filter_arg = fs};
}

#endif
