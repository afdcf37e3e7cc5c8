/*
 * ex_arith.c - the arithmetic operators + - * / % and unary minus over
 * every numeric type, with Trino's semantics:
 *   integers   overflow of the SQL type is an error naming the operation
 *              ("integer addition overflow: 2147483647 + 1"); division by
 *              zero is an error; / truncates toward zero; % has the sign of
 *              the dividend. tinyint, smallint and integer are computed in
 *              64 bits and checked against their own range.
 *   real/double  IEEE 754: x / 0 is +-Infinity or NaN, no errors.
 *   decimal    result precision and scale by Trino's rules (see ret_*),
 *              exact 128-bit arithmetic, HALF_UP rounding of quotients,
 *              "Decimal overflow" beyond the result precision; + - * of
 *              operands that fit in 64 bits take a branch-free fast loop
 *              (dec_fast) that falls back to the exact one on any misfit.
 */
#include <math.h>
#include <stdio.h>

#include "exec/ex_func_int.h"

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_NEG };
static const char *const g_op_word[] = {"addition", "subtraction", "multiplication",
                                        "division", "modulus",     "negation"};
static const char *const g_op_sym[] = {"+", "-", "*", "/", "%", "-"};

static int overflow(fl_err_t *err, ex_tkind_t k, int op, int64_t a, int64_t b) {
  if (op == OP_NEG)
    return ex__err(err, "%s negation overflow: %lld", ex_tkind_name(k), (long long)a);
  return ex__err(err, "%s %s overflow: %lld %s %lld", ex_tkind_name(k), g_op_word[op], (long long)a,
                 g_op_sym[op], (long long)b);
}

/* int32-stored integers (tinyint, smallint, integer), computed in 64 bits. */
static int k_int32(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                   const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  ex_tkind_t k = call->r.ret.kind;
  int op = call->r.fn->op;
  const int64_t lo = ex_type_int_min(k), hi = ex_type_int_max(k);
  const int32_t *a = TY_VEC_DATA(args[0], int32_t);
  const uint32_t ma = ex__m(args[0]);
  int32_t *o = TY_VEC_DATA(out, int32_t);
  if (op == OP_NEG) {
    EX_ROWS(rows, i) {
      if (!ex__valid(out, i)) continue;
      int64_t r = -(int64_t)a[i & ma];
      if (r > hi) return overflow(err, k, op, a[i & ma], 0);
      o[i] = (int32_t)r;
    }
    return FL_OK;
  }
  const int32_t *b = TY_VEC_DATA(args[1], int32_t);
  const uint32_t mb = ex__m(args[1]);
#define INT32_LOOP(EXPR, CHECK_ZERO)                                   \
  EX_ROWS(rows, i) {                                                   \
    if (!ex__valid(out, i)) continue;                                  \
    int64_t x = a[i & ma], y = b[i & mb];                              \
    if (CHECK_ZERO && y == 0) return ex__err(err, "Division by zero"); \
    int64_t r = (EXPR);                                                \
    if (r < lo || r > hi) return overflow(err, k, op, x, y);           \
    o[i] = (int32_t)r;                                                 \
  }
  switch (op) {
    case OP_ADD: INT32_LOOP(x + y, 0); break;
    case OP_SUB: INT32_LOOP(x - y, 0); break;
    case OP_MUL: INT32_LOOP(x * y, 0); break;
    case OP_DIV: INT32_LOOP(x / y, 1); break;
    case OP_MOD: INT32_LOOP(x % y, 1); break;
  }
#undef INT32_LOOP
  return FL_OK;
}

static int k_int64(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                   const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  int op = call->r.fn->op;
  const int64_t *a = TY_VEC_DATA(args[0], int64_t);
  const uint32_t ma = ex__m(args[0]);
  int64_t *o = TY_VEC_DATA(out, int64_t);
  if (op == OP_NEG) {
    EX_ROWS(rows, i) {
      if (!ex__valid(out, i)) continue;
      if (a[i & ma] == INT64_MIN) return overflow(err, EX_BIGINT, op, a[i & ma], 0);
      o[i] = -a[i & ma];
    }
    return FL_OK;
  }
  const int64_t *b = TY_VEC_DATA(args[1], int64_t);
  const uint32_t mb = ex__m(args[1]);
#define INT64_LOOP(BODY)                     \
  EX_ROWS(rows, i) {                         \
    if (!ex__valid(out, i)) continue;        \
    int64_t x = a[i & ma], y = b[i & mb], r; \
    BODY;                                    \
    o[i] = r;                                \
  }
  switch (op) {
    case OP_ADD:
      INT64_LOOP(if (__builtin_add_overflow(x, y, &r)) return overflow(err, EX_BIGINT, op, x, y));
      break;
    case OP_SUB:
      INT64_LOOP(if (__builtin_sub_overflow(x, y, &r)) return overflow(err, EX_BIGINT, op, x, y));
      break;
    case OP_MUL:
      INT64_LOOP(if (__builtin_mul_overflow(x, y, &r)) return overflow(err, EX_BIGINT, op, x, y));
      break;
    case OP_DIV:
      INT64_LOOP(if (y == 0) return ex__err(err, "Division by zero");
                 if (x == INT64_MIN && y == -1) return overflow(err, EX_BIGINT, op, x, y);
                 r = x / y);
      break;
    case OP_MOD:
      INT64_LOOP(if (y == 0) return ex__err(err, "Division by zero"); r = y == -1 ? 0 : x % y);
      break;
  }
#undef INT64_LOOP
  return FL_OK;
}

#define FLOAT_KERNEL(NAME, T, MOD)                                             \
  static int NAME(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args, \
                  const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {       \
    int op = call->r.fn->op;                                                   \
    const T *a = TY_VEC_DATA(args[0], T);                                      \
    const uint32_t ma = ex__m(args[0]);                                        \
    T *o = TY_VEC_DATA(out, T);                                                \
    if (op == OP_NEG) {                                                        \
      EX_ROWS(rows, i) o[i] = -a[i & ma];                                      \
      return FL_OK;                                                            \
    }                                                                          \
    const T *b = TY_VEC_DATA(args[1], T);                                      \
    const uint32_t mb = ex__m(args[1]);                                        \
    switch (op) {                                                              \
      case OP_ADD: EX_ROWS(rows, i) o[i] = a[i & ma] + b[i & mb]; break;       \
      case OP_SUB: EX_ROWS(rows, i) o[i] = a[i & ma] - b[i & mb]; break;       \
      case OP_MUL: EX_ROWS(rows, i) o[i] = a[i & ma] * b[i & mb]; break;       \
      case OP_DIV: EX_ROWS(rows, i) o[i] = a[i & ma] / b[i & mb]; break;       \
      case OP_MOD: EX_ROWS(rows, i) o[i] = MOD(a[i & ma], b[i & mb]); break;   \
    }                                                                          \
    return FL_OK;                                                              \
  }
FLOAT_KERNEL(k_real, float, fmodf)
FLOAT_KERNEL(k_double, double, fmod)
#undef FLOAT_KERNEL

static int dec_overflow(fl_err_t *err, int op, fl_i128 a, int sa, fl_i128 b, int sb) {
  char x[48], y[48];
  ex__dec_format(a, sa, x, sizeof x);
  ex__dec_format(b, sb, y, sizeof y);
  if (op == OP_NEG) return ex__err(err, "Decimal overflow: -%s", x);
  return ex__err(err, "Decimal overflow: %s %s %s", x, g_op_sym[op], y);
}

/* Whether a 128-bit value fits in 64 bits. */
static inline bool fits64(fl_i128 x) { return (fl_i128)(int64_t)x == x; }

/*
 * The fast form of + - * for decimals whose operands fit in 64 bits, as
 * nearly all do (precision 18 or less): the operands are multiplied as
 * 64-bit integers into an exact 128-bit product, which cannot overflow,
 * and each row adds one bound check; there is no per-row switch and no
 * 128-bit overflow test. Rows are computed whether or not they fit and
 * the misfits are only counted: when any row misfits (an operand beyond
 * 64 bits or a result beyond the result precision) it returns false and
 * the exact loop redoes the batch, so it reports the same error at the
 * same row. Only for operands without nulls.
 */
static bool dec_fast(int op, const ty_vec_t *va, const ty_vec_t *vb, int sa, int sb, int s,
                     fl_i128 lim, const ex_rows_t *rows, fl_i128 *o) {
  if (va->null_count || vb->null_count) return false;
  const fl_i128 *a = TY_VEC_DATA(va, fl_i128), *b = TY_VEC_DATA(vb, fl_i128);
  const uint32_t ma = ex__m(va), mb = ex__m(vb);
  int64_t fa = 1, fb = 1;
  if (op == OP_ADD || op == OP_SUB) {
    /* Factors below 10^18 keep |x * fa| under 2^123: the sum cannot wrap. */
    if (s - sa > 18 || s - sb > 18) return false;
    fa = (int64_t)ex__pow10[s - sa];
    fb = (int64_t)ex__pow10[s - sb];
  } else if (op != OP_MUL) {
    return false;
  }
  const int64_t sgn = op == OP_SUB ? -1 : 1;
  uint32_t bad = 0;
#define DEC_ROW(i)                                                           \
  do {                                                                       \
    fl_i128 x = a[(i) & ma], y = b[(i) & mb], r;                             \
    bad |= !fits64(x) | !fits64(y);                                          \
    if (op == OP_MUL)                                                        \
      r = (fl_i128)(int64_t)x * (int64_t)y;                                  \
    else                                                                     \
      r = (fl_i128)(int64_t)x * fa + (fl_i128)(int64_t)y * (fb * sgn);       \
    bad |= (r > lim) | (r < -lim);                                           \
    o[i] = r;                                                                \
  } while (0)
  if (!rows->sel) {
    for (uint32_t i = 0; i < rows->n; i++) DEC_ROW(i);
  } else {
    EX_ROWS(rows, i) DEC_ROW(i);
  }
#undef DEC_ROW
  return !bad;
}

static int k_decimal(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                     const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  int op = call->r.fn->op;
  const ex_type_t *ta = &call->r.args[0], *tr = &call->r.ret;
  const fl_i128 lim = ex__pow10[tr->precision] - 1;
  const int sa = ta->scale, s = tr->scale;
  const uint32_t ma = ex__m(args[0]);
  fl_i128 *o = TY_VEC_DATA(out, fl_i128);
  if (op == OP_NEG) {
    const fl_i128 lim_neg = ex__pow10[tr->precision] - 1;
    EX_ROWS(rows, i) {
      if (!ex__valid(out, i)) continue;
      fl_i128 x = ty_vec_get_i128(args[0], i & ma);
      if (ex__dec_abs(x) > lim_neg) return dec_overflow(err, op, x, sa, 0, 0);
      o[i] = -x;
    }
    return FL_OK;
  }
  const int sb = call->r.args[1].scale;
  const uint32_t mb = ex__m(args[1]);
  if (dec_fast(op, args[0], args[1], sa, sb, s, lim, rows, o)) return FL_OK;
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    fl_i128 x = ty_vec_get_i128(args[0], i & ma), y = ty_vec_get_i128(args[1], i & mb), r, xs, ys;
    switch (op) {
      case OP_ADD:
      case OP_SUB:
        if (!ex__dec_upscale(x, s - sa, &xs) || !ex__dec_upscale(y, s - sb, &ys))
          return dec_overflow(err, op, x, sa, y, sb);
        /* Two 38-digit values can sum past 2^127, so check the 128-bit sum too. */
        if (op == OP_ADD ? __builtin_add_overflow(xs, ys, &r) : __builtin_sub_overflow(xs, ys, &r))
          return dec_overflow(err, op, x, sa, y, sb);
        break;
      case OP_MUL:
        if (__builtin_mul_overflow(x, y, &r)) return dec_overflow(err, op, x, sa, y, sb);
        break;
      case OP_DIV:
        if (y == 0) return ex__err(err, "Division by zero");
        if (x == 0) {
          r = 0;
          break;
        }
        if (!ex__dec_div_round(x, s - sa + sb, y, &r)) return dec_overflow(err, op, x, sa, y, sb);
        break;
      default: /* OP_MOD */
        if (y == 0) return ex__err(err, "Division by zero");
        if (!ex__dec_upscale(x, s - sa, &xs) || !ex__dec_upscale(y, s - sb, &ys))
          return dec_overflow(err, op, x, sa, y, sb);
        r = xs % ys;
        break;
    }
    if (ex__dec_abs(r) > lim) return dec_overflow(err, op, x, sa, y, sb);
    o[i] = r;
  }
  return FL_OK;
}

/* Trino's decimal result types. */
static int ret_dec_add(const ex_type_t *a, size_t n, ex_type_t *r, fl_err_t *err) {
  int s = a[0].scale > a[1].scale ? a[0].scale : a[1].scale;
  int i0 = a[0].precision - a[0].scale, i1 = a[1].precision - a[1].scale;
  int p = 1 + (i0 > i1 ? i0 : i1) + s;
  *r = ex_type_decimal(p > 38 ? 38 : p, s);
  return FL_OK;
}
static int ret_dec_mul(const ex_type_t *a, size_t n, ex_type_t *r, fl_err_t *err) {
  int p = a[0].precision + a[1].precision, s = a[0].scale + a[1].scale;
  if (s > 38)
    return fl_err_set(err, FL_EINVALID, "DECIMAL scale must be in range [0, 38]: %d (%s * %s)", s,
                      ex_type_str(&a[0]), ex_type_str(&a[1]));
  *r = ex_type_decimal(p > 38 ? 38 : p, s);
  return FL_OK;
}
static int ret_dec_div(const ex_type_t *a, size_t n, ex_type_t *r, fl_err_t *err) {
  int s1 = a[0].scale, s2 = a[1].scale;
  int p = a[0].precision + s2 + (s2 > s1 ? s2 - s1 : 0);
  *r = ex_type_decimal(p > 38 ? 38 : p, s1 > s2 ? s1 : s2);
  return FL_OK;
}
static int ret_dec_mod(const ex_type_t *a, size_t n, ex_type_t *r, fl_err_t *err) {
  int s = a[0].scale > a[1].scale ? a[0].scale : a[1].scale;
  int i0 = a[0].precision - a[0].scale, i1 = a[1].precision - a[1].scale;
  int p = (i0 < i1 ? i0 : i1) + s;
  if (p < 1) p = 1;
  *r = ex_type_decimal(p > 38 ? 38 : p, s);
  return FL_OK;
}
static int ret_same(const ex_type_t *a, size_t n, ex_type_t *r, fl_err_t *err) {
  *r = a[0];
  return FL_OK;
}

void ex__reg_arith(void) {
  static const ex_tkind_t ints[] = {EX_TINYINT, EX_SMALLINT, EX_INTEGER, EX_BIGINT};
  static const char *const names[] = {"+", "-", "*", "/", "%", "mod"};
  static const ex_ret_fn dec_ret[] = {ret_dec_add, ret_dec_add, ret_dec_mul, ret_dec_div,
                                      ret_dec_mod};
  for (int f = 0; f < 6; f++) {
    const int op = f == 5 ? OP_MOD : f;
    const char *name = names[f];
    for (int t = 0; t < 4; t++) {
      ex_type_t ty = ex_type(ints[t]);
      ex__reg(&(ex_func_t){.name = name,
                           .nparams = 2,
                           .params = {ty, ty},
                           .ret = ty,
                           .kernel = ints[t] == EX_BIGINT ? k_int64 : k_int32,
                           .op = op});
    }
    ex__reg(&(ex_func_t){.name = name,
                         .nparams = 2,
                         .params = {EX_DEC_ANY, EX_DEC_ANY},
                         .ret_fn = dec_ret[op],
                         .kernel = k_decimal,
                         .op = op});
    ex__reg(&(ex_func_t){.name = name,
                         .nparams = 2,
                         .params = {EX_T(REAL), EX_T(REAL)},
                         .ret = EX_T(REAL),
                         .kernel = k_real,
                         .op = op});
    ex__reg(&(ex_func_t){.name = name,
                         .nparams = 2,
                         .params = {EX_T(DOUBLE), EX_T(DOUBLE)},
                         .ret = EX_T(DOUBLE),
                         .kernel = k_double,
                         .op = op});
  }
  for (int t = 0; t < 4; t++) {
    ex_type_t ty = ex_type(ints[t]);
    ex__reg(&(ex_func_t){.name = "negate",
                         .nparams = 1,
                         .params = {ty},
                         .ret = ty,
                         .kernel = ints[t] == EX_BIGINT ? k_int64 : k_int32,
                         .op = OP_NEG});
  }
  ex__reg(&(ex_func_t){.name = "negate",
                       .nparams = 1,
                       .params = {EX_DEC_ANY},
                       .ret_fn = ret_same,
                       .kernel = k_decimal,
                       .op = OP_NEG});
  ex__reg(&(ex_func_t){.name = "negate",
                       .nparams = 1,
                       .params = {EX_T(REAL)},
                       .ret = EX_T(REAL),
                       .kernel = k_real,
                       .op = OP_NEG});
  ex__reg(&(ex_func_t){.name = "negate",
                       .nparams = 1,
                       .params = {EX_T(DOUBLE)},
                       .ret = EX_T(DOUBLE),
                       .kernel = k_double,
                       .op = OP_NEG});
}
