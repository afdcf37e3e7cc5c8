/*
 * ex_compare.c - comparison operators = <> < <= > >=, BETWEEN and
 * IS [NOT] DISTINCT FROM over every scalar type.
 *
 * Each storage layout has one loop that computes a comparison outcome
 * (less, equal, greater, unordered) per row; a small table maps the
 * outcome to the operator's answer, so there is one loop per layout, not
 * per operator; fixed-width layouts (and string equality with a constant)
 * also have one direct loop per operator (cmp_fast). Strings and binaries
 * compare as unsigned bytes (UTF-8 byte order is code point order); decimals of different scales compare
 * exactly; doubles follow IEEE 754 (NaN is unordered: NaN = NaN is false,
 * NaN <> NaN true) except for IS DISTINCT FROM, where NaN is not distinct
 * from NaN and -0.0 equals 0.0, as in Trino.
 */
#include <math.h>

#include "exec/ex_func_int.h"

enum { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_DISTINCT, OP_NOT_DISTINCT };
enum { C_LT, C_EQ, C_GT, C_UN };

static const uint8_t g_answer[6][4] = {
    [OP_EQ] = {0, 1, 0, 0}, [OP_NE] = {1, 0, 1, 1}, [OP_LT] = {1, 0, 0, 0},
    [OP_LE] = {1, 1, 0, 0}, [OP_GT] = {0, 0, 1, 0}, [OP_GE] = {0, 1, 1, 0},
};

static inline int cmp_bytes(const uint8_t *a, size_t na, const uint8_t *b, size_t nb) {
  size_t n = na < nb ? na : nb;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return c < 0 ? C_LT : C_GT;
  return na < nb ? C_LT : na > nb ? C_GT : C_EQ;
}

/*
 * Fills cmp[i] for every selected row, NULL rows included (their slots
 * are zeroed; callers mask them with validity). distinct: NaN equals NaN.
 */
void ex__compare_rows(const ex_type_t *ta, const ex_type_t *tb, const ty_vec_t *va,
                      const ty_vec_t *vb, const ex_rows_t *rows, bool distinct, uint8_t *cmp) {
  const uint32_t ma = ex__m(va), mb = ex__m(vb);
#define NUM_LOOP(T)                                           \
  do {                                                        \
    const T *a = TY_VEC_DATA(va, T), *b = TY_VEC_DATA(vb, T); \
    EX_ROWS(rows, i) {                                        \
      T x = a[i & ma], y = b[i & mb];                         \
      cmp[i] = (uint8_t)(x < y ? C_LT : x > y ? C_GT : C_EQ); \
    }                                                         \
  } while (0)
#define FLT_LOOP(T)                                                                        \
  do {                                                                                     \
    const T *a = TY_VEC_DATA(va, T), *b = TY_VEC_DATA(vb, T);                              \
    EX_ROWS(rows, i) {                                                                     \
      T x = a[i & ma], y = b[i & mb];                                                      \
      uint8_t c = (uint8_t)(x < y ? C_LT : x > y ? C_GT : x == y ? C_EQ : C_UN);           \
      if (c == C_UN && distinct) c = isnan(x) && isnan(y) ? C_EQ : isnan(x) ? C_GT : C_LT; \
      cmp[i] = c;                                                                          \
    }                                                                                      \
  } while (0)
  switch (va->type->kind) {
    case TY_BOOLEAN: NUM_LOOP(uint8_t); break;
    case TY_INT:
    case TY_DATE: NUM_LOOP(int32_t); break;
    case TY_LONG:
    case TY_TIME:
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS: NUM_LOOP(int64_t); break;
    case TY_FLOAT: FLT_LOOP(float); break;
    case TY_DOUBLE: FLT_LOOP(double); break;
    case TY_DECIMAL: {
      int sa = ta->scale, sb = tb->scale;
      EX_ROWS(rows, i) {
        int c = ex__dec_cmp(ty_vec_get_i128(va, i & ma), sa, ty_vec_get_i128(vb, i & mb), sb);
        cmp[i] = (uint8_t)(c < 0 ? C_LT : c > 0 ? C_GT : C_EQ);
      }
      break;
    }
    default: {
      EX_ROWS(rows, i) {
        size_t na, nb;
        const uint8_t *a = ex__str(va, i & ma, &na), *b = ex__str(vb, i & mb, &nb);
        cmp[i] = (uint8_t)cmp_bytes(a, na, b, nb);
      }
    }
  }
#undef NUM_LOOP
#undef FLT_LOOP
}

/* Arrays, maps and rows (ex_nested.c): = and <> compare every element,
 * the orderings lexicographically; a NULL inside that decides gives NULL. */
static int compare_nested(ex_call_t *call, const ty_vec_t *const *args, const ex_rows_t *rows,
                          ty_vec_t *out) {
  uint8_t *o = out->data;
  int op = call->r.fn->op;
  ex__compare_nested(&call->r.args[0], args[0], args[1], rows,
                     op == OP_EQ || op == OP_NE ? EX_CMP_EQUALITY : EX_CMP_ORDER, o);
  const uint8_t *ans = g_answer[op];
  EX_ROWS(rows, i) {
    if (o[i] == EX_CMP_NULL) {
      o[i] = 0;
      ex__set_null(out, i);
    } else {
      o[i] = ans[o[i]];
    }
  }
  return FL_OK;
}

/*
 * The answers of operator op (OP_EQ..OP_GE) straight into o[i] for the
 * fixed-width layouts, without the outcome table: one loop per operator
 * that the compiler can vectorize, a constant operand held in a register.
 * C's comparison operators give IEEE 754's answers (NaN unordered), and
 * decimals of different scales are compared at one scale when the
 * constant side rescales exactly. Returns false for what it does not
 * cover (strings, scales it cannot align), which the general loop takes.
 */
static bool cmp_fast(int op, const ex_type_t *ta, const ex_type_t *tb, const ty_vec_t *va,
                     const ty_vec_t *vb, const ex_rows_t *rows, uint8_t *o) {
  static const int flipped[] = {[OP_EQ] = OP_EQ, [OP_NE] = OP_NE, [OP_LT] = OP_GT,
                                [OP_LE] = OP_GE, [OP_GT] = OP_LT, [OP_GE] = OP_LE};
  if (va->len == 1 && vb->len != 1) {
    /* The constant goes right: a < b is b > a. */
    const ex_type_t *tt = ta;
    const ty_vec_t *tv = va;
    ta = tb;
    tb = tt;
    va = vb;
    vb = tv;
    op = flipped[op];
  }
  const uint32_t ma = ex__m(va), mb = ex__m(vb);
  const uint32_t n = rows->n;
  const bool dense = !rows->sel && ma && !mb;
#define CMP_APPLY(T, A, B, OPR)                                 \
  do {                                                          \
    if (dense) {                                                \
      const T y = (B)[0];                                       \
      for (uint32_t i = 0; i < n; i++) o[i] = (A)[i] OPR y;     \
    } else {                                                    \
      EX_ROWS(rows, i) o[i] = (A)[i & ma] OPR(B)[i & mb];       \
    }                                                           \
  } while (0)
#define CMP_OPS(T, A, B)                          \
  do {                                            \
    switch (op) {                                 \
      case OP_EQ: CMP_APPLY(T, A, B, ==); break;  \
      case OP_NE: CMP_APPLY(T, A, B, !=); break;  \
      case OP_LT: CMP_APPLY(T, A, B, <); break;   \
      case OP_LE: CMP_APPLY(T, A, B, <=); break;  \
      case OP_GT: CMP_APPLY(T, A, B, >); break;   \
      default: CMP_APPLY(T, A, B, >=); break;     \
    }                                             \
  } while (0)
  if (va->type->kind != vb->type->kind) return false;
  if ((va->type->kind == TY_STRING || va->type->kind == TY_BINARY) && !mb && ma &&
      (op == OP_EQ || op == OP_NE)) {
    /* Equality with a constant string: lengths first, bytes only then. */
    size_t cn;
    const uint8_t *cp = ty_vec_get_bytes(vb, 0, &cn);
    const int32_t *off = va->offsets;
    const uint8_t *heap = va->heap;
    const uint8_t ne = op == OP_NE;
    EX_ROWS(rows, i) {
      size_t l = (size_t)(off[i + 1] - off[i]);
      o[i] = (uint8_t)((l == cn && (cn == 0 || memcmp(heap + off[i], cp, cn) == 0)) ^ ne);
    }
    return true;
  }
  switch (va->type->kind) {
    case TY_BOOLEAN: CMP_OPS(uint8_t, va->data, vb->data); return true;
    case TY_INT:
    case TY_DATE:
      CMP_OPS(int32_t, TY_VEC_DATA(va, int32_t), TY_VEC_DATA(vb, int32_t));
      return true;
    case TY_LONG:
    case TY_TIME:
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
      CMP_OPS(int64_t, TY_VEC_DATA(va, int64_t), TY_VEC_DATA(vb, int64_t));
      return true;
    case TY_FLOAT: CMP_OPS(float, TY_VEC_DATA(va, float), TY_VEC_DATA(vb, float)); return true;
    case TY_DOUBLE: CMP_OPS(double, TY_VEC_DATA(va, double), TY_VEC_DATA(vb, double)); return true;
    case TY_DECIMAL: {
      const fl_i128 *a = TY_VEC_DATA(va, fl_i128), *b = TY_VEC_DATA(vb, fl_i128);
      fl_i128 c;
      if (ta->scale != tb->scale) {
        /* Only a constant at the smaller scale, raised exactly. */
        if (mb || tb->scale > ta->scale) return false;
        if (__builtin_mul_overflow(ty_vec_get_i128(vb, 0), ex__pow10[ta->scale - tb->scale], &c))
          return false;
        b = &c;
      }
      CMP_OPS(fl_i128, a, b);
      return true;
    }
    default: return false;
  }
#undef CMP_OPS
#undef CMP_APPLY
}

static int k_compare(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                     const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  if (call->r.args[0].kind == EX_UNKNOWN) return FL_OK; /* all null */
  if (ty_is_nested(args[0]->type)) return compare_nested(call, args, rows, out);
  uint8_t *o = out->data;
  if (cmp_fast(call->r.fn->op, &call->r.args[0], &call->r.args[1], args[0], args[1], rows, o))
    return FL_OK;
  ex__compare_rows(&call->r.args[0], &call->r.args[1], args[0], args[1], rows, false, o);
  const uint8_t *ans = g_answer[call->r.fn->op];
  EX_ROWS(rows, i) o[i] = ans[o[i]];
  return FL_OK;
}

static int k_distinct(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                      const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  uint8_t *o = out->data;
  bool want_distinct = call->r.fn->op == OP_DISTINCT;
  if (call->r.args[0].kind != EX_UNKNOWN && ty_is_nested(args[0]->type))
    ex__compare_nested(&call->r.args[0], args[0], args[1], rows, EX_CMP_DISTINCT, o);
  else if (call->r.args[0].kind != EX_UNKNOWN)
    ex__compare_rows(&call->r.args[0], &call->r.args[1], args[0], args[1], rows, true, o);
  const uint32_t ma = ex__m(args[0]), mb = ex__m(args[1]);
  EX_ROWS(rows, i) {
    bool na = !ex__valid(args[0], i & ma), nb = !ex__valid(args[1], i & mb);
    bool distinct = (na || nb) ? na != nb : o[i] != C_EQ;
    o[i] = distinct == want_distinct;
    ex__set_valid(out, i);
  }
  return FL_OK;
}

/* x BETWEEN lo AND hi: lo <= x AND x <= hi, one pass. */
static int k_between(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                     const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  if (call->r.args[0].kind == EX_UNKNOWN) return FL_OK;
  uint8_t *o = out->data;
  uint8_t *hi = ex__scratch(call, rows->nrows, 0);
  if (ty_is_nested(args[0]->type)) {
    ex__compare_nested(&call->r.args[0], args[1], args[0], rows, EX_CMP_ORDER, o);
    ex__compare_nested(&call->r.args[0], args[0], args[2], rows, EX_CMP_ORDER, hi);
    EX_ROWS(rows, i) {
      if (o[i] == EX_CMP_NULL || hi[i] == EX_CMP_NULL) {
        o[i] = 0;
        ex__set_null(out, i);
      } else {
        o[i] = g_answer[OP_LE][o[i]] && g_answer[OP_LE][hi[i]];
      }
    }
    return FL_OK;
  }
  const ex_type_t *t = call->r.args;
  if (cmp_fast(OP_GE, &t[0], &t[1], args[0], args[1], rows, o) &&
      cmp_fast(OP_LE, &t[0], &t[2], args[0], args[2], rows, hi)) {
    EX_ROWS(rows, i) o[i] &= hi[i];
    return FL_OK;
  }
  ex__compare_rows(&call->r.args[1], &call->r.args[0], args[1], args[0], rows, false, o);
  ex__compare_rows(&call->r.args[0], &call->r.args[2], args[0], args[2], rows, false, hi);
  EX_ROWS(rows, i) o[i] = g_answer[OP_LE][o[i]] && g_answer[OP_LE][hi[i]];
  return FL_OK;
}

void ex__reg_compare(void) {
  static const char *const names[] = {"=", "<>", "<", "<=", ">", ">="};
  const uint32_t fl = EX_FN_UNIFY | EX_FN_KEEP_DEC | EX_FN_ORDERABLE;
  /* = and <> (and IS DISTINCT FROM) take maps too; orderings do not. */
  for (int op = OP_EQ; op <= OP_GE; op++)
    ex__reg(&(ex_func_t){.name = names[op],
                         .nparams = 2,
                         .params = {EX_T(ANY), EX_T(ANY)},
                         .ret = EX_T(BOOLEAN),
                         .kernel = k_compare,
                         .flags = fl | (op <= OP_NE ? EX_FN_COMPARABLE : 0),
                         .op = op});
  ex__reg(&(ex_func_t){.name = "!=",
                       .nparams = 2,
                       .params = {EX_T(ANY), EX_T(ANY)},
                       .ret = EX_T(BOOLEAN),
                       .kernel = k_compare,
                       .flags = fl | EX_FN_COMPARABLE,
                       .op = OP_NE});
  ex__reg(&(ex_func_t){.name = "is_distinct_from",
                       .nparams = 2,
                       .params = {EX_T(ANY), EX_T(ANY)},
                       .ret = EX_T(BOOLEAN),
                       .kernel = k_distinct,
                       .flags = fl | EX_FN_NULLS | EX_FN_COMPARABLE,
                       .op = OP_DISTINCT});
  ex__reg(&(ex_func_t){.name = "is_not_distinct_from",
                       .nparams = 2,
                       .params = {EX_T(ANY), EX_T(ANY)},
                       .ret = EX_T(BOOLEAN),
                       .kernel = k_distinct,
                       .flags = fl | EX_FN_NULLS | EX_FN_COMPARABLE,
                       .op = OP_NOT_DISTINCT});
  ex__reg(&(ex_func_t){.name = "between",
                       .nparams = 3,
                       .params = {EX_T(ANY), EX_T(ANY), EX_T(ANY)},
                       .ret = EX_T(BOOLEAN),
                       .kernel = k_between,
                       .flags = fl});
}
