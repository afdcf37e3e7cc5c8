/*
 * ex_decimal.c - 128-bit decimal helpers: rescaling with HALF_UP rounding,
 * division through a 256-bit intermediate, comparison across scales.
 *
 * Decimals are unscaled 128-bit integers of at most 38 digits (Trino's
 * long decimal); every operation checks that its result stays within
 * 10^38 - 1 or the precision the caller then checks.
 */
#include "exec/ex_func_int.h"
#include "types/value.h"

const fl_i128 ex__pow10[39] = {
    (fl_i128)1ULL,
    (fl_i128)10ULL,
    (fl_i128)100ULL,
    (fl_i128)1000ULL,
    (fl_i128)10000ULL,
    (fl_i128)100000ULL,
    (fl_i128)1000000ULL,
    (fl_i128)10000000ULL,
    (fl_i128)100000000ULL,
    (fl_i128)1000000000ULL,
    (fl_i128)10000000000ULL,
    (fl_i128)100000000000ULL,
    (fl_i128)1000000000000ULL,
    (fl_i128)10000000000000ULL,
    (fl_i128)100000000000000ULL,
    (fl_i128)1000000000000000ULL,
    (fl_i128)10000000000000000ULL,
    (fl_i128)100000000000000000ULL,
    (fl_i128)1000000000000000000ULL,
    (fl_i128)10000000000000000000ULL,
    (fl_i128)10000000000000000000ULL * 10,
    (fl_i128)10000000000000000000ULL * 100,
    (fl_i128)10000000000000000000ULL * 1000,
    (fl_i128)10000000000000000000ULL * 10000,
    (fl_i128)10000000000000000000ULL * 100000,
    (fl_i128)10000000000000000000ULL * 1000000,
    (fl_i128)10000000000000000000ULL * 10000000,
    (fl_i128)10000000000000000000ULL * 100000000,
    (fl_i128)10000000000000000000ULL * 1000000000,
    (fl_i128)10000000000000000000ULL * 10000000000ULL,
    (fl_i128)10000000000000000000ULL * 100000000000ULL,
    (fl_i128)10000000000000000000ULL * 1000000000000ULL,
    (fl_i128)10000000000000000000ULL * 10000000000000ULL,
    (fl_i128)10000000000000000000ULL * 100000000000000ULL,
    (fl_i128)10000000000000000000ULL * 1000000000000000ULL,
    (fl_i128)10000000000000000000ULL * 10000000000000000ULL,
    (fl_i128)10000000000000000000ULL * 100000000000000000ULL,
    (fl_i128)10000000000000000000ULL * 1000000000000000000ULL,
    (fl_i128)10000000000000000000ULL * 10000000000000000000ULL,
};

bool ex__dec_upscale(fl_i128 x, int k, fl_i128 *out) {
  if (k <= 0) {
    *out = x;
    return true;
  }
  if (k > 38) return x == 0 ? (*out = 0, true) : false;
  fl_i128 r;
  if (__builtin_mul_overflow(x, ex__pow10[k], &r)) return false;
  if (ex__dec_abs(r) > ex__pow10[38] - 1) return false;
  *out = r;
  return true;
}

fl_i128 ex__dec_downscale(fl_i128 x, int k) {
  if (k <= 0) return x;
  if (k > 38) return 0;
  fl_i128 p = ex__pow10[k], q = x / p, r = x % p;
  if (ex__dec_abs(r) * 2 >= p) q += x < 0 ? -1 : 1;
  return q;
}

bool ex__dec_rescale(fl_i128 x, int s1, int s2, fl_i128 *out) {
  if (s2 >= s1) return ex__dec_upscale(x, s2 - s1, out);
  *out = ex__dec_downscale(x, s1 - s2);
  return true;
}

/* 256-bit unsigned as two 128-bit halves. */
typedef unsigned __int128 u128;
typedef struct u256 {
  u128 hi, lo;
} u256;

static u256 mul_128(u128 a, u128 b) {
  uint64_t a0 = (uint64_t)a, a1 = (uint64_t)(a >> 64), b0 = (uint64_t)b, b1 = (uint64_t)(b >> 64);
  u128 p00 = (u128)a0 * b0, p01 = (u128)a0 * b1, p10 = (u128)a1 * b0, p11 = (u128)a1 * b1;
  u128 mid = (p00 >> 64) + (uint64_t)p01 + (uint64_t)p10;
  u256 r;
  r.lo = (mid << 64) | (uint64_t)p00;
  r.hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
  return r;
}

/* n / d with remainder, d < 2^127, by shift and subtract. */
static u256 div_256(u256 n, u128 d, u128 *rem) {
  u256 q = {0, 0};
  u128 r = 0;
  for (int i = 255; i >= 0; i--) {
    u128 bit = i >= 128 ? (n.hi >> (i - 128)) & 1 : (n.lo >> i) & 1;
    r = (r << 1) | bit;
    if (r >= d) {
      r -= d;
      if (i >= 128)
        q.hi |= (u128)1 << (i - 128);
      else
        q.lo |= (u128)1 << i;
    }
  }
  *rem = r;
  return q;
}

/* n *= m in 256 bits (m < 2^127); false when the product needs more. */
static bool mul_256(u256 *n, u128 m) {
  u256 lo = mul_128(n->lo, m), hi = mul_128(n->hi, m);
  if (hi.hi != 0) return false;
  u128 top = lo.hi + hi.lo;
  if (top < lo.hi) return false;
  n->lo = lo.lo;
  n->hi = top;
  return true;
}

bool ex__dec_div_round(fl_i128 a, int k, fl_i128 b, fl_i128 *out) {
  bool neg = (a < 0) != (b < 0);
  u128 ua = (u128)ex__dec_abs(a), ub = (u128)ex__dec_abs(b);
  if (k < 0 || k > 76) return false;
  /* |a| * 10^k; when it does not fit in 256 bits the quotient, which must
   * stay below 10^38, would not either (|b| < 10^38, so it is > 2^256 / 10^38). */
  u256 n = mul_128(ua, (u128)ex__pow10[k > 38 ? 38 : k]);
  if (k > 38 && !mul_256(&n, (u128)ex__pow10[k - 38])) return false;
  u128 rem;
  u256 q = div_256(n, ub, &rem);
  if (q.hi != 0) return false;
  u128 mag = q.lo;
  if (rem >= ub - rem) mag += 1; /* 2 * rem >= ub, without overflow */
  if (mag > (u128)(ex__pow10[38] - 1)) return false;
  *out = neg ? -(fl_i128)mag : (fl_i128)mag;
  return true;
}

int ex__dec_cmp(fl_i128 a, int sa, fl_i128 b, int sb) {
  if (sa == sb) return a < b ? -1 : a > b;
  /* Integer parts first (they cannot overflow), then the fractions at the
   * larger scale, which stay below 10^38. */
  fl_i128 ia = a / ex__pow10[sa], ib = b / ex__pow10[sb];
  if (ia != ib) return ia < ib ? -1 : 1;
  fl_i128 fa = a % ex__pow10[sa], fb = b % ex__pow10[sb];
  int s = sa > sb ? sa : sb;
  fa *= ex__pow10[s - sa];
  fb *= ex__pow10[s - sb];
  return fa < fb ? -1 : fa > fb;
}

double ex__dec_to_double(fl_i128 x, int scale) {
  /* Exact for up to 15-16 digits; correctly rounded division otherwise. */
  return (double)x / (double)ex__pow10[scale];
}

size_t ex__dec_format(fl_i128 x, int scale, char *buf, size_t cap) {
  return ty_decimal_format(x, scale, buf, cap);
}
