/*
 * ex_func_int.h - what the kernel files share: registration, the row
 * loop over a selection, broadcast of constant arguments, output
 * validity and the string writer (private to exec's function library).
 */
#ifndef FL_EXEC_EX_FUNC_INT_H
#define FL_EXEC_EX_FUNC_INT_H

#include <stdarg.h>
#include <string.h>

#include "base/alloc.h"
#include "base/time.h"
#include "exec/ex_func.h"

/* Registration: each area file adds its overloads at first use. */
void ex__reg(const ex_func_t *f);
void ex__reg_arith(void);
void ex__reg_compare(void);
void ex__reg_logic(void);
void ex__reg_math(void);
void ex__reg_string(void);
void ex__reg_like(void);
void ex__reg_regexp(void);
void ex__reg_datetime(void);
void ex__reg_date_format(void);
void ex__reg_cond(void);
void ex__reg_array(void);
void ex__reg_map(void);
void ex__reg_typeof(void);
void ex__reg_json(void);

/* Shorthand for signatures. */
#define EX_T(k) ((ex_type_t){.kind = EX_##k})
#define EX_DEC_ANY ((ex_type_t){.kind = EX_DECIMAL})

/* Loops i over the rows to compute. */
#define EX_ROWS(rows, i)          \
  for (uint32_t ex__k = 0, i = 0; \
       ex__k < (rows)->n && ((i = (rows)->sel ? (rows)->sel[ex__k] : ex__k), 1); ex__k++)

/* Index mask of an argument: a one-row vector is a constant for all rows. */
static inline uint32_t ex__m(const ty_vec_t *v) { return v->len == 1 ? 0 : UINT32_MAX; }

static inline bool ex__valid(const ty_vec_t *v, uint32_t i) {
  return (v->validity[i >> 3] >> (i & 7)) & 1;
}
static inline void ex__set_valid(ty_vec_t *v, uint32_t i) {
  v->validity[i >> 3] |= (uint8_t)(1u << (i & 7));
}
static inline void ex__set_null(ty_vec_t *v, uint32_t i) {
  v->validity[i >> 3] &= (uint8_t) ~(1u << (i & 7));
}

/* Empties out and sizes it to nrows null, zeroed slots. */
void ex__out_begin(ty_vec_t *out, uint32_t nrows);
/* Marks the selected rows valid where every argument is valid (every
 * row, selected or not, when no argument has a null). */
void ex__valid_all(ty_vec_t *out, const ty_vec_t *const *args, size_t nargs, const ex_rows_t *rows);
/* Fixes null_count and closes string and list offsets after a kernel. */
void ex__out_end(ty_vec_t *out);

/*
 * n bytes of working memory for one batch, reused by the call's next
 * batch (a long streaming query must not grow its arena per batch).
 * Two regions: which = 0 or 1.
 */
uint8_t *ex__scratch(ex_call_t *call, size_t n, int which);

/* Records a row error (FL_EINVALID) with a Trino-style message. */
int ex__err(fl_err_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends row i of v, of SQL type t, as Trino's CAST(... AS varchar) text. */
void ex__format_value(ex_ctx_t *ctx, const ex_type_t *t, const ty_vec_t *v, uint32_t i,
                      fl_buf_t *out);

/*
 * String writer: rows must be written in ascending order; rows skipped
 * (null or not selected) get empty ranges.
 */
typedef struct ex_sw {
  ty_vec_t *v;
  uint32_t next; /* first row whose start offset is not yet set */
} ex_sw_t;

static inline void ex__sw_init(ex_sw_t *w, ty_vec_t *v) {
  w->v = v;
  w->next = 0;
  v->heap_len = 0;
  v->offsets[0] = 0;
}
static inline void ex__sw_fill(ex_sw_t *w, uint32_t i) {
  int32_t at = (int32_t)w->v->heap_len;
  for (; w->next < i; w->next++) w->v->offsets[w->next + 1] = at;
}
/* Room for n bytes of row i; write them and then ex__sw_commit. */
static inline uint8_t *ex__sw_reserve(ex_sw_t *w, uint32_t i, size_t n) {
  ex__sw_fill(w, i);
  ty_vec_reserve_heap(w->v, n ? n : 1);
  return w->v->heap + w->v->heap_len;
}
static inline void ex__sw_commit(ex_sw_t *w, uint32_t i, size_t n) {
  w->v->heap_len += n;
  w->v->offsets[i + 1] = (int32_t)w->v->heap_len;
  w->next = i + 1;
}
static inline void ex__sw_put(ex_sw_t *w, uint32_t i, const void *p, size_t n) {
  uint8_t *d = ex__sw_reserve(w, i, n);
  if (n) memcpy(d, p, n);
  ex__sw_commit(w, i, n);
}

/* Bytes of row i of a string/binary vector (broadcast already applied). */
static inline const uint8_t *ex__str(const ty_vec_t *v, uint32_t i, size_t *n) {
  return ty_vec_get_bytes(v, i, n);
}

/*
 * Three-way comparison of two vectors over the selected rows into cmp[i]:
 * 0 less, 1 equal, 2 greater, 3 unordered (NaN; with distinct, NaN equals
 * NaN and sorts greatest).
 */
void ex__compare_rows(const ex_type_t *ta, const ex_type_t *tb, const ty_vec_t *va,
                      const ty_vec_t *vb, const ex_rows_t *rows, bool distinct, uint8_t *cmp);

/* ---- values of any type, one pair at a time (ex_nested.c) ---- */
enum { EX_CMP_LT, EX_CMP_EQ, EX_CMP_GT, EX_CMP_UN, EX_CMP_NULL };
enum { EX_CMP_EQUALITY, EX_CMP_ORDER, EX_CMP_DISTINCT };
/* Compares a[i] with b[j], both of SQL type t, in one of the modes
 * above; EX_CMP_NULL when a NULL decides (never in distinct mode). */
int ex__value_cmp(const ex_type_t *t, const ty_vec_t *a, uint32_t i, const ty_vec_t *b, uint32_t j,
                  int mode);
/* ex__compare_rows for arrays, maps and rows: cmp[i] of the selected rows
 * whose two values are present (the others EX_CMP_EQ, masked by the
 * caller's validity). */
void ex__compare_nested(const ex_type_t *t, const ty_vec_t *va, const ty_vec_t *vb,
                        const ex_rows_t *rows, int mode, uint8_t *cmp);

/* ---- CAST to and from json (ex_cast_json.c) ---- */
bool ex__json_castable_to(const ex_type_t *t);
bool ex__json_castable_from(const ex_type_t *t);
/* Kernels with ex_cast_eval's contract (out begun, its validity set). */
int ex__cast_to_json(ex_ctx_t *ctx, const ex_type_t *from, const ty_vec_t *in,
                     const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err);
int ex__cast_from_json(ex_ctx_t *ctx, const ex_type_t *to, bool try_cast, const ty_vec_t *in,
                       const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err);

/* ---- decimals (ex_decimal.c) ---- */
extern const fl_i128 ex__pow10[39];
/* x * 10^k, false on leaving 38 digits. */
bool ex__dec_upscale(fl_i128 x, int k, fl_i128 *out);
/* x / 10^k rounded half up (away from zero). */
fl_i128 ex__dec_downscale(fl_i128 x, int k);
/* Rescales from scale s1 to s2 (either way), false on overflow of 38 digits. */
bool ex__dec_rescale(fl_i128 x, int s1, int s2, fl_i128 *out);
/* a / b rounded half up, for |a| up to 10^38 * 10^38 given as a*10^k: computes
 * round(a * 10^k / b); false on a result beyond 38 digits. */
bool ex__dec_div_round(fl_i128 a, int k, fl_i128 b, fl_i128 *out);
/* Three-way compare of a (scale sa) and b (scale sb) without overflow. */
int ex__dec_cmp(fl_i128 a, int sa, fl_i128 b, int sb);
/* Decimal to double. */
double ex__dec_to_double(fl_i128 x, int scale);
/* |x|; the one value with no positive counterpart (only a damaged file
 * holds it) saturates, so the caller's range check reports overflow. */
#define EX_I128_MAX ((fl_i128)(((unsigned __int128)1 << 127) - 1))
static inline fl_i128 ex__dec_abs(fl_i128 x) {
  return x >= 0 ? x : x < -EX_I128_MAX ? EX_I128_MAX : -x;
}
/* Formats an unscaled decimal with its scale. */
size_t ex__dec_format(fl_i128 x, int scale, char *buf, size_t cap);

/* ---- calendar helpers that cannot overflow ---- */

/* Splits micros into a day number and the micros into that day (floor). */
static inline void ex__split_day(int64_t t, int64_t *days, int64_t *tod) {
  *days = t / FL_MICROS_PER_DAY;
  *tod = t % FL_MICROS_PER_DAY;
  if (*tod < 0) {
    *tod += FL_MICROS_PER_DAY;
    (*days)--;
  }
}

/* Calendar math on timestamps and dates works within about +-292,000
 * years of 1970, where a day number times micros per day and a year's
 * worth of truncation still fit in int64; values beyond (only a damaged
 * file has them) are row errors. */
#define EX_DATE_LIMIT 106751000
#define EX_TS_LIMIT ((int64_t)EX_DATE_LIMIT * FL_MICROS_PER_DAY)
int ex__temporal_guard(ex_tkind_t k, const ty_vec_t *v, uint32_t j, fl_err_t *err);

/* ---- time zones for timestamp with time zone values ---- */
static inline const fl_tz_t *ex__zone(ex_ctx_t *ctx, const ex_type_t *t) {
  return t->zone ? t->zone : ctx->zone ? ctx->zone : fl_tz_utc();
}
/* Local wall-clock micros of an instant in zone z, and back. Values so
 * close to the int64 limits that the shift would overflow stay as they
 * are (no such instant is a real date). */
static inline int64_t ex__floor_sec(int64_t us) {
  return us >= 0 ? us / 1000000 : -((-(us + 1)) / 1000000) - 1;
}
static inline int64_t ex__utc_to_local(const fl_tz_t *z, int64_t us) {
  int64_t r;
  if (__builtin_add_overflow(us, (int64_t)fl_tz_offset_at(z, ex__floor_sec(us)) * 1000000, &r))
    return us;
  return r;
}
/* The same shift for nanos (timestamp(9) with time zone): to_local from
 * the instant to wall-clock time, else back. */
static inline int64_t ex__ns_shift(const fl_tz_t *z, int64_t ns, bool to_local) {
  int64_t us = fl_floordiv(ns, 1000);
  int64_t off = to_local ? (int64_t)fl_tz_offset_at(z, ex__floor_sec(us))
                         : -(int64_t)fl_tz_offset_local(z, ex__floor_sec(us));
  int64_t r;
  if (__builtin_add_overflow(ns, off * 1000000000, &r)) return ns;
  return r;
}
static inline int64_t ex__local_to_utc(const fl_tz_t *z, int64_t us) {
  int64_t r;
  if (__builtin_sub_overflow(us, (int64_t)fl_tz_offset_local(z, ex__floor_sec(us)) * 1000000, &r))
    return us;
  return r;
}

#endif
