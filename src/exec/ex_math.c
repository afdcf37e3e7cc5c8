/*
 * ex_math.c - Trino's mathematical functions: abs, ceil/ceiling, floor,
 * round, truncate, sign, sqrt, cbrt, exp, ln, log2, log10, log, power/pow,
 * pi, e, infinity, nan, random/rand, greatest, least, is_nan, is_finite,
 * is_infinite (mod lives with the arithmetic operators).
 *
 * Rounding: round() on decimals is HALF_UP, on doubles half away from
 * zero (round(-2.5) = -3.0), on integers with a negative digit count to
 * tens, hundreds and so on. Integer kinds keep their type and check
 * overflow (abs(-128) on a tinyint is an error).
 */
#include <math.h>

#include "exec/ex_func_int.h"

enum {
  M_ABS,
  M_CEIL,
  M_FLOOR,
  M_ROUND,
  M_TRUNC,
  M_SIGN,
  M_SQRT,
  M_CBRT,
  M_EXP,
  M_LN,
  M_LOG2,
  M_LOG10,
  M_IS_NAN,
  M_IS_FINITE,
  M_IS_INF,
  M_DEGREES,
  M_RADIANS,
  M_SIN,
  M_COS,
  M_TAN,
  M_ASIN,
  M_ACOS,
  M_ATAN
};

static double round_half_away(double x) { return round(x); }

/* glibc's cbrt can be one ulp off (cbrt(-27) = -3.0000000000000004); one
 * Newton step gives the correctly rounded result Java's Math.cbrt has. */
static double cbrt_exact(double x) {
  double r = cbrt(x);
  if (r != 0 && isfinite(r)) r -= (r * r * r - x) / (3 * r * r);
  return r;
}

static double apply_f(int op, double x) {
  switch (op) {
    case M_ABS: return fabs(x);
    case M_CEIL: return ceil(x);
    case M_FLOOR: return floor(x);
    case M_ROUND: return round_half_away(x);
    case M_TRUNC: return trunc(x);
    case M_SIGN: return isnan(x) ? x : x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
    case M_SQRT: return sqrt(x);
    case M_CBRT: return cbrt_exact(x);
    case M_EXP: return exp(x);
    case M_LN: return log(x);
    case M_LOG2: return log2(x);
    case M_LOG10: return log10(x);
    case M_DEGREES: return x * (180.0 / M_PI);
    case M_RADIANS: return x * (M_PI / 180.0);
    case M_SIN: return sin(x);
    case M_COS: return cos(x);
    case M_TAN: return tan(x);
    case M_ASIN: return asin(x);
    case M_ACOS: return acos(x);
    default: return atan(x);
  }
}

/* Unary functions on double (and real, same loop on floats). */
static int k_unary_double(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                          const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const int op = call->r.fn->op;
  const uint32_t m = ex__m(args[0]);
  if (args[0]->type->kind == TY_FLOAT) {
    const float *a = TY_VEC_DATA(args[0], float);
    float *o = TY_VEC_DATA(out, float);
    EX_ROWS(rows, i) o[i] = (float)apply_f(op, a[i & m]);
    return FL_OK;
  }
  const double *a = TY_VEC_DATA(args[0], double);
  double *o = TY_VEC_DATA(out, double);
  /* One loop per function: the choice is made once per batch. */
#define UNARY_LOOP(OP, EXPR) \
  case OP:                   \
    EX_ROWS(rows, i) {       \
      double x = a[i & m];   \
      o[i] = (EXPR);         \
    }                        \
    break
  switch (op) {
    UNARY_LOOP(M_ABS, fabs(x));
    UNARY_LOOP(M_CEIL, ceil(x));
    UNARY_LOOP(M_FLOOR, floor(x));
    UNARY_LOOP(M_ROUND, round_half_away(x));
    UNARY_LOOP(M_TRUNC, trunc(x));
    UNARY_LOOP(M_SQRT, sqrt(x));
    UNARY_LOOP(M_CBRT, cbrt_exact(x));
    UNARY_LOOP(M_EXP, exp(x));
    UNARY_LOOP(M_LN, log(x));
    UNARY_LOOP(M_LOG2, log2(x));
    UNARY_LOOP(M_LOG10, log10(x));
    default: EX_ROWS(rows, i) o[i] = apply_f(op, a[i & m]);
  }
#undef UNARY_LOOP
  return FL_OK;
}

static int k_double_pred(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                         const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const int op = call->r.fn->op;
  const uint32_t m = ex__m(args[0]);
  const double *a = TY_VEC_DATA(args[0], double);
  switch (op) {
    case M_IS_NAN: EX_ROWS(rows, i) out->data[i] = isnan(a[i & m]) != 0; break;
    case M_IS_FINITE: EX_ROWS(rows, i) out->data[i] = isfinite(a[i & m]) != 0; break;
    default: EX_ROWS(rows, i) out->data[i] = isinf(a[i & m]) != 0;
  }
  return FL_OK;
}

/* Integer kinds: abs, sign, ceil, floor, round, truncate (identity). */
static int k_unary_int(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                       const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const int op = call->r.fn->op;
  const ex_tkind_t k = call->r.ret.kind;
  const int64_t lo = ex_type_int_min(k);
  const uint32_t m = ex__m(args[0]);
  bool wide = k == EX_BIGINT;
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    int64_t x = wide ? TY_VEC_DATA(args[0], int64_t)[i & m] : TY_VEC_DATA(args[0], int32_t)[i & m];
    int64_t r = x;
    if (op == M_ABS) {
      if (x == lo) return ex__err(err, "Value %lld is out of range for abs()", (long long)x);
      r = x < 0 ? -x : x;
    } else if (op == M_SIGN) {
      r = (x > 0) - (x < 0);
    }
    if (wide)
      TY_VEC_DATA(out, int64_t)[i] = r;
    else
      TY_VEC_DATA(out, int32_t)[i] = (int32_t)r;
  }
  return FL_OK;
}

/* Decimal: abs, sign, ceil, floor, round, truncate (to scale 0). */
static int k_unary_dec(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                       const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const int op = call->r.fn->op, s = call->r.args[0].scale;
  const uint32_t m = ex__m(args[0]);
  const fl_i128 p = ex__pow10[s];
  fl_i128 *o = TY_VEC_DATA(out, fl_i128);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    fl_i128 x = ty_vec_get_i128(args[0], i & m), q = x / p, r = x % p;
    switch (op) {
      case M_ABS: o[i] = ex__dec_abs(x); break;
      case M_SIGN: o[i] = (x > 0) - (x < 0); break;
      case M_CEIL: o[i] = q + (r > 0); break;
      case M_FLOOR: o[i] = q - (r < 0); break;
      case M_ROUND: o[i] = ex__dec_downscale(x, s); break;
      default: o[i] = q; break;
    }
  }
  return FL_OK;
}

static int ret_dec_int_part(const ex_type_t *a, size_t n, ex_type_t *r, fl_err_t *err) {
  int p = a[0].precision - a[0].scale + (a[0].scale > 0 ? 1 : 0);
  *r = ex_type_decimal(p < 1 ? 1 : p > 38 ? 38 : p, 0);
  return FL_OK;
}
static int ret_dec_trunc(const ex_type_t *a, size_t n, ex_type_t *r, fl_err_t *err) {
  int p = a[0].precision - a[0].scale;
  *r = ex_type_decimal(p < 1 ? 1 : p, 0);
  return FL_OK;
}
static int ret_dec_same(const ex_type_t *a, size_t n, ex_type_t *r, fl_err_t *err) {
  *r = a[0];
  return FL_OK;
}
static int ret_dec_sign(const ex_type_t *a, size_t n, ex_type_t *r, fl_err_t *err) {
  *r = ex_type_decimal(1, 0);
  return FL_OK;
}
static int ret_dec_round_d(const ex_type_t *a, size_t n, ex_type_t *r, fl_err_t *err) {
  int p = a[0].precision + 1;
  *r = ex_type_decimal(p > 38 ? 38 : p, a[0].scale);
  return FL_OK;
}

/* round(x, d) for every numeric kind. */
static int k_round_digits(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                          const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const ex_tkind_t k = call->r.ret.kind;
  const uint32_t m = ex__m(args[0]), md = ex__m(args[1]);
  const int64_t *dv = TY_VEC_DATA(args[1], int64_t);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    int64_t d = dv[i & md];
    if (k == EX_DOUBLE || k == EX_REAL) {
      double x =
          k == EX_REAL ? TY_VEC_DATA(args[0], float)[i & m] : TY_VEC_DATA(args[0], double)[i & m];
      double r = x;
      if (isfinite(x) && d < 309) {
        double f = pow(10.0, (double)(d < -308 ? -308 : d));
        double y = x * f;
        r = isfinite(y) ? round_half_away(y) / f : x;
        if (d < -308) r = 0;
      }
      if (k == EX_REAL)
        TY_VEC_DATA(out, float)[i] = (float)r;
      else
        TY_VEC_DATA(out, double)[i] = r;
    } else if (k == EX_DECIMAL) {
      const int s = call->r.args[0].scale;
      fl_i128 x = ty_vec_get_i128(args[0], i & m);
      fl_i128 r = x;
      if (d < s) {
        int drop = (int)(s - (d < -38 ? -38 : d));
        if (drop > 38) {
          r = 0;
        } else {
          fl_i128 q = ex__dec_downscale(x, drop);
          if (!ex__dec_upscale(q, drop, &r) ||
              ex__dec_abs(r) > ex__pow10[call->r.ret.precision] - 1)
            return ex__err(err, "Decimal overflow in round()");
        }
      }
      TY_VEC_DATA(out, fl_i128)[i] = r;
    } else {
      bool wide = k == EX_BIGINT;
      int64_t x =
          wide ? TY_VEC_DATA(args[0], int64_t)[i & m] : TY_VEC_DATA(args[0], int32_t)[i & m];
      int64_t r = x;
      if (d < 0) {
        if (d < -18) {
          r = 0;
        } else {
          int64_t f = 1;
          for (int64_t j = 0; j < -d; j++) f *= 10;
          int64_t q = x / f, rem = x % f;
          if ((rem < 0 ? -rem : rem) * 2 >= f) q += x < 0 ? -1 : 1;
          if (__builtin_mul_overflow(q, f, &r) || r < ex_type_int_min(k) || r > ex_type_int_max(k))
            return ex__err(err, "%s round overflow: round(%lld, %lld)", ex_tkind_name(k),
                           (long long)x, (long long)d);
        }
      }
      if (wide)
        TY_VEC_DATA(out, int64_t)[i] = r;
      else
        TY_VEC_DATA(out, int32_t)[i] = (int32_t)r;
    }
  }
  return FL_OK;
}

enum { B_POW, B_LOG, B_ATAN2 };
static int k_binary_double(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                           const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const double *a = TY_VEC_DATA(args[0], double), *b = TY_VEC_DATA(args[1], double);
  const uint32_t ma = ex__m(args[0]), mb = ex__m(args[1]);
  double *o = TY_VEC_DATA(out, double);
  switch (call->r.fn->op) {
    case B_POW: EX_ROWS(rows, i) o[i] = pow(a[i & ma], b[i & mb]); break;
    case B_LOG: EX_ROWS(rows, i) o[i] = log(b[i & mb]) / log(a[i & ma]); break;
    default: EX_ROWS(rows, i) o[i] = atan2(a[i & ma], b[i & mb]);
  }
  return FL_OK;
}

enum { C_PI, C_E, C_INF, C_NAN, C_RANDOM };
static int k_const_double(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                          const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  double *o = TY_VEC_DATA(out, double);
  switch (call->r.fn->op) {
    case C_PI: EX_ROWS(rows, i) o[i] = M_PI; break;
    case C_E: EX_ROWS(rows, i) o[i] = M_E; break;
    case C_INF: EX_ROWS(rows, i) o[i] = INFINITY; break;
    case C_NAN: EX_ROWS(rows, i) o[i] = NAN; break;
    default: {
      uint64_t s = ctx->random_state;
      EX_ROWS(rows, i) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17; /* xorshift64 */
        o[i] = (double)(s >> 11) * (1.0 / 9007199254740992.0);
      }
      ctx->random_state = s;
    }
  }
  return FL_OK;
}

static int k_random_n(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                      const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const uint32_t m = ex__m(args[0]);
  const bool wide = call->r.ret.kind == EX_BIGINT;
  uint64_t s = ctx->random_state;
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    int64_t n = wide ? TY_VEC_DATA(args[0], int64_t)[i & m] : TY_VEC_DATA(args[0], int32_t)[i & m];
    if (n <= 0) return ex__err(err, "bound must be positive: %lld", (long long)n);
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    int64_t r = (int64_t)(s % (uint64_t)n);
    if (wide)
      TY_VEC_DATA(out, int64_t)[i] = r;
    else
      TY_VEC_DATA(out, int32_t)[i] = (int32_t)r;
  }
  ctx->random_state = s;
  return FL_OK;
}

/* greatest/least over any orderable type; NULL if any argument is NULL,
 * and NaN is an error, as in Trino. */
static int k_greatest(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                      const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const bool want_max = call->r.fn->op == 1;
  const size_t n = call->r.nargs;
  const ex_type_t *t = &call->r.ret;
  uint32_t m[EX_MAX_ARGS];
  for (size_t a = 0; a < n; a++) m[a] = ex__m(args[a]);
  ex_sw_t w = {0};
  if (out->offsets) ex__sw_init(&w, out);
  size_t width = ty_value_width(out->type);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    size_t best = 0;
    for (size_t a = 0; a < n; a++) {
      uint32_t j = i & m[a], bj = i & m[best];
      int c;
      switch (out->type->kind) {
        case TY_BOOLEAN: c = (int)args[a]->data[j] - (int)args[best]->data[bj]; break;
        case TY_INT:
        case TY_DATE: {
          int32_t x = TY_VEC_DATA(args[a], int32_t)[j], y = TY_VEC_DATA(args[best], int32_t)[bj];
          c = (x > y) - (x < y);
          break;
        }
        case TY_FLOAT:
        case TY_DOUBLE: {
          double x = out->type->kind == TY_FLOAT ? TY_VEC_DATA(args[a], float)[j]
                                                 : TY_VEC_DATA(args[a], double)[j];
          double y = out->type->kind == TY_FLOAT ? TY_VEC_DATA(args[best], float)[bj]
                                                 : TY_VEC_DATA(args[best], double)[bj];
          if (isnan(x))
            return ex__err(err, "Invalid argument to %s(): NaN", want_max ? "greatest" : "least");
          c = (x > y) - (x < y);
          break;
        }
        case TY_DECIMAL:
          c = ex__dec_cmp(ty_vec_get_i128(args[a], j), t->scale, ty_vec_get_i128(args[best], bj),
                          t->scale);
          break;
        case TY_STRING:
        case TY_BINARY:
        case TY_UUID: {
          size_t nx, ny;
          const uint8_t *x = ty_vec_get_bytes(args[a], j, &nx),
                        *y = ty_vec_get_bytes(args[best], bj, &ny);
          size_t mn = nx < ny ? nx : ny;
          c = mn ? memcmp(x, y, mn) : 0;
          if (!c) c = (nx > ny) - (nx < ny);
          break;
        }
        default: {
          int64_t x = TY_VEC_DATA(args[a], int64_t)[j], y = TY_VEC_DATA(args[best], int64_t)[bj];
          c = (x > y) - (x < y);
        }
      }
      if (want_max ? c > 0 : c < 0) best = a;
    }
    uint32_t bj = i & m[best];
    if (out->offsets) {
      size_t len;
      const uint8_t *p = ty_vec_get_bytes(args[best], bj, &len);
      ex__sw_put(&w, i, p, len);
    } else {
      memcpy(out->data + (size_t)i * width, args[best]->data + (size_t)bj * width, width);
    }
  }
  return FL_OK;
}

static void reg1(const char *name, ex_type_t t, ex_type_t ret, ex_kernel_fn k, int op,
                 ex_ret_fn rf) {
  ex__reg(&(ex_func_t){
      .name = name, .nparams = 1, .params = {t}, .ret = ret, .ret_fn = rf, .kernel = k, .op = op});
}

void ex__reg_math(void) {
  static const ex_tkind_t ints[] = {EX_TINYINT, EX_SMALLINT, EX_INTEGER, EX_BIGINT};
  static const struct {
    const char *name;
    int op;
  } exact[] = {{"abs", M_ABS},     {"ceil", M_CEIL},      {"ceiling", M_CEIL}, {"floor", M_FLOOR},
               {"round", M_ROUND}, {"truncate", M_TRUNC}, {"sign", M_SIGN}};
  for (size_t f = 0; f < sizeof exact / sizeof exact[0]; f++) {
    for (int t = 0; t < 4; t++)
      reg1(exact[f].name, ex_type(ints[t]), ex_type(ints[t]), k_unary_int, exact[f].op, NULL);
    ex_ret_fn rf = exact[f].op == M_ABS     ? ret_dec_same
                   : exact[f].op == M_SIGN  ? ret_dec_sign
                   : exact[f].op == M_TRUNC ? ret_dec_trunc
                                            : ret_dec_int_part;
    reg1(exact[f].name, EX_DEC_ANY, ex_type(EX_UNKNOWN), k_unary_dec, exact[f].op, rf);
    reg1(exact[f].name, EX_T(REAL), EX_T(REAL), k_unary_double, exact[f].op, NULL);
    reg1(exact[f].name, EX_T(DOUBLE), EX_T(DOUBLE), k_unary_double, exact[f].op, NULL);
  }
  static const struct {
    const char *name;
    int op;
  } dbl[] = {{"sqrt", M_SQRT}, {"cbrt", M_CBRT},   {"exp", M_EXP},         {"ln", M_LN},
             {"log2", M_LOG2}, {"log10", M_LOG10}, {"degrees", M_DEGREES}, {"radians", M_RADIANS},
             {"sin", M_SIN},   {"cos", M_COS},     {"tan", M_TAN},         {"asin", M_ASIN},
             {"acos", M_ACOS}, {"atan", M_ATAN}};
  for (size_t f = 0; f < sizeof dbl / sizeof dbl[0]; f++)
    reg1(dbl[f].name, EX_T(DOUBLE), EX_T(DOUBLE), k_unary_double, dbl[f].op, NULL);
  reg1("is_nan", EX_T(DOUBLE), EX_T(BOOLEAN), k_double_pred, M_IS_NAN, NULL);
  reg1("is_finite", EX_T(DOUBLE), EX_T(BOOLEAN), k_double_pred, M_IS_FINITE, NULL);
  reg1("is_infinite", EX_T(DOUBLE), EX_T(BOOLEAN), k_double_pred, M_IS_INF, NULL);
  for (int t = 0; t < 4; t++)
    ex__reg(&(ex_func_t){.name = "round",
                         .nparams = 2,
                         .params = {ex_type(ints[t]), EX_T(BIGINT)},
                         .ret = ex_type(ints[t]),
                         .kernel = k_round_digits});
  ex__reg(&(ex_func_t){.name = "round",
                       .nparams = 2,
                       .params = {EX_DEC_ANY, EX_T(BIGINT)},
                       .ret_fn = ret_dec_round_d,
                       .kernel = k_round_digits});
  ex__reg(&(ex_func_t){.name = "round",
                       .nparams = 2,
                       .params = {EX_T(REAL), EX_T(BIGINT)},
                       .ret = EX_T(REAL),
                       .kernel = k_round_digits});
  ex__reg(&(ex_func_t){.name = "round",
                       .nparams = 2,
                       .params = {EX_T(DOUBLE), EX_T(BIGINT)},
                       .ret = EX_T(DOUBLE),
                       .kernel = k_round_digits});
  static const struct {
    const char *name;
    int op;
  } bin[] = {{"power", B_POW}, {"pow", B_POW}, {"log", B_LOG}, {"atan2", B_ATAN2}};
  for (size_t f = 0; f < 4; f++)
    ex__reg(&(ex_func_t){.name = bin[f].name,
                         .nparams = 2,
                         .params = {EX_T(DOUBLE), EX_T(DOUBLE)},
                         .ret = EX_T(DOUBLE),
                         .kernel = k_binary_double,
                         .op = bin[f].op});
  static const struct {
    const char *name;
    int op;
  } cst[] = {{"pi", C_PI},   {"e", C_E},           {"infinity", C_INF},
             {"nan", C_NAN}, {"random", C_RANDOM}, {"rand", C_RANDOM}};
  for (size_t f = 0; f < sizeof cst / sizeof cst[0]; f++)
    ex__reg(&(ex_func_t){.name = cst[f].name,
                         .nparams = 0,
                         .ret = EX_T(DOUBLE),
                         .kernel = k_const_double,
                         .op = cst[f].op,
                         .flags = cst[f].op == C_RANDOM ? EX_FN_NONDET : 0});
  for (int t = 0; t < 4; t++)
    for (int r = 0; r < 2; r++)
      ex__reg(&(ex_func_t){.name = r ? "rand" : "random",
                           .nparams = 1,
                           .params = {ex_type(ints[t])},
                           .ret = ex_type(ints[t]),
                           .kernel = k_random_n,
                           .flags = EX_FN_NONDET});
  const uint32_t vf = EX_FN_VARIADIC | EX_FN_UNIFY | EX_FN_ORDERABLE;
  ex__reg(&(ex_func_t){.name = "greatest",
                       .nparams = 1,
                       .params = {EX_T(ANY)},
                       .ret = EX_T(ANY),
                       .kernel = k_greatest,
                       .flags = vf,
                       .op = 1});
  ex__reg(&(ex_func_t){.name = "least",
                       .nparams = 1,
                       .params = {EX_T(ANY)},
                       .ret = EX_T(ANY),
                       .kernel = k_greatest,
                       .flags = vf,
                       .op = 0});
}
