/*
 * ex_window_frame.c - frame bounds of window functions: for every row of a
 * partition, the half-open row range [start, end) its frame covers under
 * ROWS, RANGE or GROUPS with UNBOUNDED / n PRECEDING / CURRENT ROW /
 * n FOLLOWING bounds.
 *
 * ROWS counts rows and GROUPS counts peer groups from the current one.
 * RANGE CURRENT ROW is the edge of the current peer group; RANGE n
 * PRECEDING / FOLLOWING compares ORDER BY key values: the frame starts at
 * the first row whose key is not before (key - n) in the sort direction,
 * and ends after the last row whose key is not after (key + n). Because
 * the partition is sorted, each bound is a binary search over the rows
 * with non-NULL keys. A row whose key is NULL has its NULL peer group as
 * offset bounds, and NULL keys are never within an offset of a value (the
 * SQL standard's rule, which Trino follows). Targets beyond the key
 * type's range saturate instead of overflowing.
 */
#include <math.h>

#include "exec/ex_window_int.h"

static uint32_t clamp_i64(int64_t x, uint32_t n) {
  if (x < 0) return 0;
  if (x > (int64_t)n) return n;
  return (uint32_t)x;
}

/* ROWS: i - offset or i + offset (+1 for an end bound). */
static uint32_t rows_bound(const ex_frame_bound_t *b, uint32_t i, uint32_t n, bool is_end) {
  int64_t off = b->offset > (int64_t)n + 1 ? (int64_t)n + 1 : b->offset;
  int64_t extra = is_end ? 1 : 0;
  switch (b->kind) {
    case EX_BOUND_UNBOUNDED_PRECEDING: return 0;
    case EX_BOUND_PRECEDING: return clamp_i64((int64_t)i - off + extra, n);
    case EX_BOUND_CURRENT_ROW: return clamp_i64((int64_t)i + extra, n);
    case EX_BOUND_FOLLOWING: return clamp_i64((int64_t)i + off + extra, n);
    default: return n;
  }
}

/* GROUPS: the start (start bound) or end (end bound) of the peer group
 * offset groups away. */
static uint32_t groups_bound(const ex_frame_bound_t *b, const ex_win_part_t *p, uint32_t i,
                             bool is_end) {
  int64_t g = p->peer[i], ng = p->ngroups;
  int64_t off = b->offset > ng + 1 ? ng + 1 : b->offset;
  switch (b->kind) {
    case EX_BOUND_UNBOUNDED_PRECEDING: return 0;
    case EX_BOUND_PRECEDING: g -= off; break;
    case EX_BOUND_FOLLOWING: g += off; break;
    case EX_BOUND_CURRENT_ROW: break;
    default: return p->n;
  }
  if (is_end) g++;
  if (g < 0) return 0;
  if (g > ng) return p->n;
  return p->group_start[g];
}

/* A RANGE target: the key value shifted by the offset, or beyond every
 * value on one side (lo: before all rows, hi: after all rows). */
typedef struct target {
  int sat; /* -1 before everything, +1 after everything, 0 value below */
  int64_t i;
  fl_i128 d;
  double f;
} target_t;

typedef enum key_class { KEY_INT, KEY_DEC, KEY_FLOAT } key_class_t;

static key_class_t key_class(const ty_type_t *t) {
  if (t->kind == TY_DECIMAL) return KEY_DEC;
  if (t->kind == TY_FLOAT || t->kind == TY_DOUBLE) return KEY_FLOAT;
  return KEY_INT;
}

static int64_t key_i(const ty_vec_t *v, uint32_t r) {
  if (ty_value_width(v->type) == 4) return TY_VEC_DATA(v, int32_t)[r];
  return TY_VEC_DATA(v, int64_t)[r];
}
static double key_f(const ty_vec_t *v, uint32_t r) {
  if (v->type->kind == TY_FLOAT) return TY_VEC_DATA(v, float)[r];
  return TY_VEC_DATA(v, double)[r];
}

/* The target of bound b for the row with key row r: "toward preceding"
 * is down for ASC and up for DESC. */
static target_t range_target(const ex_frame_bound_t *b, const ty_vec_t *v, uint32_t r, bool desc) {
  target_t t = {0};
  bool up = (b->kind == EX_BOUND_FOLLOWING) != desc;
  /* Saturation in sort terms: moving toward preceding past the type's
   * range lands before every row. */
  int sat = b->kind == EX_BOUND_FOLLOWING ? 1 : -1;
  switch (key_class(v->type)) {
    case KEY_INT: {
      int64_t x = key_i(v, r);
      if (up ? __builtin_add_overflow(x, b->offset, &t.i) : __builtin_sub_overflow(x, b->offset, &t.i))
        t.sat = sat;
      break;
    }
    case KEY_DEC: {
      fl_i128 x = ty_vec_get_i128(v, r);
      if (up ? __builtin_add_overflow(x, (fl_i128)b->offset, &t.d)
             : __builtin_sub_overflow(x, (fl_i128)b->offset, &t.d))
        t.sat = sat;
      break;
    }
    case KEY_FLOAT: {
      double x = key_f(v, r);
      t.f = up ? x + b->offset_f : x - b->offset_f;
      break;
    }
  }
  return t;
}

/* Sign of row r's key against the target in sort order. NaN sorts after
 * every number, as in ex_sortkey. */
static int cmp_target(const ty_vec_t *v, uint32_t r, const target_t *t, bool desc) {
  if (t->sat) return -t->sat;
  int c;
  switch (key_class(v->type)) {
    case KEY_INT: {
      int64_t x = key_i(v, r);
      c = (x > t->i) - (x < t->i);
      break;
    }
    case KEY_DEC: {
      fl_i128 x = ty_vec_get_i128(v, r);
      c = (x > t->d) - (x < t->d);
      break;
    }
    default: {
      double x = key_f(v, r);
      bool xn = isnan(x), tn = isnan(t->f);
      if (xn || tn)
        c = xn - tn;
      else
        c = (x > t->f) - (x < t->f);
    }
  }
  return desc ? -c : c;
}

/* First row in [lo, hi) whose key compares > target (strict) or >= it. */
static uint32_t search(const ty_vec_t *v, uint32_t lo, uint32_t hi, const target_t *t, bool desc,
                       bool strict) {
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    int c = cmp_target(v, mid, t, desc);
    if (strict ? c <= 0 : c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static uint32_t range_bound(const ex_frame_bound_t *b, const ex_win_part_t *p, uint32_t i,
                            bool is_end, const ty_vec_t *v, const ex_sort_key_t *key,
                            uint32_t nn_lo, uint32_t nn_hi) {
  uint32_t g = p->peer[i];
  switch (b->kind) {
    case EX_BOUND_UNBOUNDED_PRECEDING: return 0;
    case EX_BOUND_UNBOUNDED_FOLLOWING: return p->n;
    case EX_BOUND_CURRENT_ROW: return is_end ? p->group_start[g + 1] : p->group_start[g];
    default: break;
  }
  if (ty_vec_is_null(v, i)) return is_end ? p->group_start[g + 1] : p->group_start[g];
  target_t t = range_target(b, v, i, key->desc);
  return search(v, nn_lo, nn_hi, &t, key->desc, is_end);
}

void ex__win_frame_bounds(const ex_window_frame_t *f, const ex_win_part_t *p, int32_t key_col,
                          const ex_sort_key_t *key, uint32_t *fstart, uint32_t *fend) {
  uint32_t n = p->n;
  if (f->unit == EX_FRAME_ROWS) {
    for (uint32_t i = 0; i < n; i++) {
      fstart[i] = rows_bound(&f->start, i, n, false);
      fend[i] = rows_bound(&f->end, i, n, true);
    }
    return;
  }
  if (f->unit == EX_FRAME_GROUPS) {
    for (uint32_t i = 0; i < n; i++) {
      fstart[i] = groups_bound(&f->start, p, i, false);
      fend[i] = groups_bound(&f->end, p, i, true);
    }
    return;
  }
  const ty_vec_t *v = key_col >= 0 ? p->rows->cols[key_col] : NULL;
  uint32_t nn_lo = 0, nn_hi = n;
  if (v && v->null_count) {
    /* NULL keys sit at one end of the partition, as the sort put them. */
    if (key->nulls_first)
      while (nn_lo < n && ty_vec_is_null(v, nn_lo)) nn_lo++;
    else
      while (nn_hi > 0 && ty_vec_is_null(v, nn_hi - 1)) nn_hi--;
  }
  for (uint32_t i = 0; i < n; i++) {
    fstart[i] = range_bound(&f->start, p, i, false, v, key, nn_lo, nn_hi);
    fend[i] = range_bound(&f->end, p, i, true, v, key, nn_lo, nn_hi);
  }
}

static const char *bound_name(ex_bound_kind_t k) {
  static const char *const names[] = {"UNBOUNDED PRECEDING", "PRECEDING", "CURRENT ROW",
                                      "FOLLOWING", "UNBOUNDED FOLLOWING"};
  return names[k];
}

static bool has_offset(const ex_frame_bound_t *b) {
  return b->kind == EX_BOUND_PRECEDING || b->kind == EX_BOUND_FOLLOWING;
}

int ex__win_frame_check(const ex_window_frame_t *f, const ty_schema_t *in,
                        const ex_sort_key_t *order, uint32_t norder, fl_err_t *err) {
  if (f->start.kind == EX_BOUND_UNBOUNDED_FOLLOWING)
    return fl_err_set(err, FL_EINVALID, "window frame start cannot be UNBOUNDED FOLLOWING");
  if (f->end.kind == EX_BOUND_UNBOUNDED_PRECEDING)
    return fl_err_set(err, FL_EINVALID, "window frame end cannot be UNBOUNDED PRECEDING");
  /* A frame may not start after where it could end (Trino's checks). */
  if ((f->start.kind == EX_BOUND_CURRENT_ROW && f->end.kind == EX_BOUND_PRECEDING) ||
      (f->start.kind == EX_BOUND_FOLLOWING &&
       (f->end.kind == EX_BOUND_PRECEDING || f->end.kind == EX_BOUND_CURRENT_ROW)))
    return fl_err_set(err, FL_EINVALID, "window frame starting from %s cannot end with %s",
                      bound_name(f->start.kind), bound_name(f->end.kind));
  const ex_frame_bound_t *bs[2] = {&f->start, &f->end};
  for (int k = 0; k < 2; k++) {
    const ex_frame_bound_t *b = bs[k];
    if (!has_offset(b)) continue;
    if (b->offset < 0 || b->offset_f < 0 || isnan(b->offset_f))
      return fl_err_set(err, FL_EINVALID, "window frame %s offset must not be negative (%s)",
                        k ? "end" : "start", bound_name(b->kind));
    if (f->unit == EX_FRAME_GROUPS && norder == 0)
      return fl_err_set(err, FL_EINVALID, "window frame of type GROUPS %s requires ORDER BY",
                        bound_name(b->kind));
    if (f->unit != EX_FRAME_RANGE) continue;
    if (norder != 1)
      return fl_err_set(err, FL_EINVALID,
                        "window frame of type RANGE %s requires exactly one ORDER BY key, got %u",
                        bound_name(b->kind), norder);
    const ty_type_t *t = in->root.fields[order[0].col].type;
    switch (t->kind) {
      case TY_INT:
      case TY_LONG:
      case TY_FLOAT:
      case TY_DOUBLE:
      case TY_DECIMAL:
      case TY_DATE:
      case TY_TIMESTAMP:
      case TY_TIMESTAMPTZ:
      case TY_TIMESTAMP_NS:
      case TY_TIMESTAMPTZ_NS: break;
      default:
        return fl_err_set(err, FL_EINVALID,
                          "window frame of type RANGE %s needs a numeric, date or timestamp "
                          "ORDER BY key, not %s",
                          bound_name(b->kind), ty_kind_name(t->kind));
    }
  }
  return FL_OK;
}
