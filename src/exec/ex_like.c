/*
 * ex_like.c - SQL LIKE with an optional ESCAPE character.
 *
 * A pattern compiles to a list of steps: a literal byte run, '_' (exactly
 * one code point) or '%' (any run of code points). A constant pattern is
 * compiled once when the call is set up; a pattern that varies per row is
 * compiled per row, reusing the previous compilation while the pattern
 * text repeats. Matching is the classic wildcard walk that backtracks
 * only to the most recent '%', so it is linear for the common shapes;
 * patterns that are one literal with '%' at either end become memcmp and
 * memmem, and patterns of literals and '%' only are a memmem per literal.
 */
#define _GNU_SOURCE /* memmem */
#include <string.h>

#include "exec/ex_func_int.h"

enum { L_LIT, L_ONE, L_ANY };
typedef struct like_step {
  uint8_t kind;
  uint32_t off, len; /* L_LIT: bytes in lit */
} like_step_t;

typedef struct like_pat {
  like_step_t *steps;
  uint32_t nsteps, cap;
  uint8_t *lit;
  size_t nlit, litcap;
  enum { SHAPE_GENERAL, SHAPE_EQ, SHAPE_PREFIX, SHAPE_SUFFIX, SHAPE_CONTAINS, SHAPE_LITS } shape;
  /* The source the compilation came from, to reuse it for equal patterns. */
  uint8_t *src;
  size_t nsrc, srccap;
  int esc; /* -1: none */
  bool valid;
} like_pat_t;

static void add_step(like_pat_t *p, uint8_t kind, const uint8_t *b, size_t n) {
  if (kind == L_ANY && p->nsteps && p->steps[p->nsteps - 1].kind == L_ANY) return;
  if (kind == L_LIT && p->nsteps && p->steps[p->nsteps - 1].kind == L_LIT) {
    /* Extend the previous literal. */
  } else {
    if (p->nsteps == p->cap) {
      p->cap = p->cap ? p->cap * 2 : 8;
      p->steps = fl_realloc(p->steps, p->cap * sizeof *p->steps);
    }
    p->steps[p->nsteps++] = (like_step_t){.kind = kind, .off = (uint32_t)p->nlit, .len = 0};
  }
  if (kind == L_LIT) {
    if (p->litcap - p->nlit < n) {
      p->litcap = (p->litcap + n) * 2;
      p->lit = fl_realloc(p->lit, p->litcap);
    }
    memcpy(p->lit + p->nlit, b, n);
    p->nlit += n;
    p->steps[p->nsteps - 1].len += (uint32_t)n;
  }
}

static int like_compile(like_pat_t *p, const uint8_t *s, size_t n, int esc, fl_err_t *err) {
  p->nsteps = 0;
  p->nlit = 0;
  p->valid = false;
  for (size_t i = 0; i < n; i++) {
    uint8_t c = s[i];
    if (esc >= 0 && c == (uint8_t)esc) {
      if (i + 1 == n || (s[i + 1] != '%' && s[i + 1] != '_' && s[i + 1] != (uint8_t)esc))
        return ex__err(err,
                       "Escape character must be followed by '%%', '_' or the escape character");
      add_step(p, L_LIT, s + ++i, 1);
    } else if (c == '%') {
      add_step(p, L_ANY, NULL, 0);
    } else if (c == '_') {
      add_step(p, L_ONE, NULL, 0);
    } else {
      add_step(p, L_LIT, s + i, 1);
    }
  }
  p->shape = SHAPE_GENERAL;
  const like_step_t *st = p->steps;
  if (p->nsteps == 1 && st[0].kind == L_LIT) p->shape = SHAPE_EQ;
  if (p->nsteps == 2 && st[0].kind == L_LIT && st[1].kind == L_ANY) p->shape = SHAPE_PREFIX;
  if (p->nsteps == 2 && st[0].kind == L_ANY && st[1].kind == L_LIT) p->shape = SHAPE_SUFFIX;
  if (p->nsteps == 3 && st[0].kind == L_ANY && st[1].kind == L_LIT && st[2].kind == L_ANY)
    p->shape = SHAPE_CONTAINS;
  if (p->shape == SHAPE_GENERAL) {
    bool lits = true;
    for (uint32_t i = 0; i < p->nsteps; i++) lits &= st[i].kind != L_ONE;
    if (lits) p->shape = SHAPE_LITS;
  }
  if (p->srccap < n) {
    p->srccap = n * 2;
    p->src = fl_realloc(p->src, p->srccap);
  }
  if (n) memcpy(p->src, s, n);
  p->nsrc = n;
  p->esc = esc;
  p->valid = true;
  return FL_OK;
}

static inline size_t next_cp(const uint8_t *s, size_t n, size_t j) {
  j++;
  while (j < n && (s[j] & 0xC0) == 0x80) j++;
  return j;
}

/*
 * Literals and '%' only ('%special%requests%'): a trailing literal is
 * anchored at the end, a leading one at the start, and each literal after
 * a '%' is taken at its leftmost occurrence after the previous match
 * (found with memmem), which is a match whenever any is. Linear.
 */
static bool like_lits(const like_pat_t *p, const uint8_t *s, size_t n) {
  const like_step_t *st = p->steps;
  uint32_t last = p->nsteps;
  size_t end = n, j = 0;
  if (last && st[last - 1].kind == L_LIT) {
    size_t l = st[last - 1].len;
    if (n < l || memcmp(s + n - l, p->lit + st[last - 1].off, l) != 0) return false;
    end = n - l;
    last--;
  }
  bool after_any = false;
  for (uint32_t i = 0; i < last; i++) {
    const like_step_t *x = &st[i];
    if (x->kind == L_ANY) {
      after_any = true;
      continue;
    }
    if (after_any) {
      const uint8_t *f = x->len ? memmem(s + j, end - j, p->lit + x->off, x->len) : s + j;
      if (!f) return false;
      j = (size_t)(f - s) + x->len;
    } else {
      if (end - j < x->len || memcmp(s + j, p->lit + x->off, x->len) != 0) return false;
      j += x->len;
    }
    after_any = false;
  }
  return after_any ? j <= end : j == end;
}

static bool like_match(const like_pat_t *p, const uint8_t *s, size_t n) {
  const like_step_t *st = p->steps;
  switch (p->shape) {
    case SHAPE_EQ: return n == st[0].len && memcmp(s, p->lit, n) == 0;
    case SHAPE_PREFIX: return n >= st[0].len && memcmp(s, p->lit, st[0].len) == 0;
    case SHAPE_SUFFIX: return n >= st[1].len && memcmp(s + n - st[1].len, p->lit, st[1].len) == 0;
    case SHAPE_CONTAINS:
      return st[1].len == 0 || (n >= st[1].len && memmem(s, n, p->lit, st[1].len));
    case SHAPE_LITS: return like_lits(p, s, n);
    default: break;
  }
  uint32_t i = 0, star = UINT32_MAX;
  size_t j = 0, star_j = 0;
  while (i < p->nsteps || j < n) {
    if (i < p->nsteps) {
      const like_step_t *x = &st[i];
      if (x->kind == L_ANY) {
        star = i++;
        star_j = j;
        continue;
      }
      if (x->kind == L_ONE && j < n) {
        j = next_cp(s, n, j);
        i++;
        continue;
      }
      if (x->kind == L_LIT && n - j >= x->len && memcmp(s + j, p->lit + x->off, x->len) == 0) {
        j += x->len;
        i++;
        continue;
      }
    }
    if (star != UINT32_MAX && star_j < n) {
      star_j = next_cp(s, n, star_j);
      j = star_j;
      i = star + 1;
      continue;
    }
    return false;
  }
  return true;
}

static void like_free(void *arg) {
  like_pat_t *p = arg;
  fl_free(p->steps);
  fl_free(p->lit);
  fl_free(p->src);
}

typedef struct like_state {
  like_pat_t pat;
  bool constant;
} like_state_t;

static int escape_of(const ty_vec_t *v, uint32_t j, int *esc, fl_err_t *err) {
  size_t n;
  const uint8_t *e = ex__str(v, j, &n);
  if (n != 1) return ex__err(err, "Escape string must be a single character");
  *esc = e[0];
  return FL_OK;
}

static int like_init(ex_ctx_t *ctx, ex_call_t *call, fl_err_t *err) {
  like_state_t *st = fl_arena_zalloc(ctx->arena, sizeof *st);
  fl_arena_on_reset(ctx->arena, like_free, &st->pat);
  call->state = st;
  const ty_vec_t *pv = call->consts ? call->consts[1] : NULL;
  const ty_vec_t *ev = call->consts && call->r.nargs == 3 ? call->consts[2] : NULL;
  if (!pv || (call->r.nargs == 3 && !ev)) return FL_OK;
  if (ty_vec_is_null(pv, 0) || (ev && ty_vec_is_null(ev, 0))) return FL_OK;
  int esc = -1;
  if (ev && escape_of(ev, 0, &esc, err)) return err->code;
  size_t n;
  const uint8_t *s = ex__str(pv, 0, &n);
  int rc = like_compile(&st->pat, s, n, esc, err);
  if (rc) return rc;
  st->constant = true;
  return FL_OK;
}

static int k_like(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                  const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  like_state_t *st = call->state;
  const uint32_t m = ex__m(args[0]), mp = ex__m(args[1]);
  const bool has_esc = call->r.nargs == 3;
  const uint32_t me = has_esc ? ex__m(args[2]) : 0;
  if (st->constant) {
    EX_ROWS(rows, i) {
      size_t n;
      const uint8_t *s = ex__str(args[0], i & m, &n);
      out->data[i] = like_match(&st->pat, s, n);
    }
    return FL_OK;
  }
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    int esc = -1;
    if (has_esc && escape_of(args[2], i & me, &esc, err)) return err->code;
    size_t np, n;
    const uint8_t *p = ex__str(args[1], i & mp, &np);
    if (!st->pat.valid || st->pat.esc != esc || st->pat.nsrc != np ||
        (np && memcmp(st->pat.src, p, np))) {
      int rc = like_compile(&st->pat, p, np, esc, err);
      if (rc) return rc;
    }
    const uint8_t *s = ex__str(args[0], i & m, &n);
    out->data[i] = like_match(&st->pat, s, n);
  }
  return FL_OK;
}

void ex__reg_like(void) {
  const ex_type_t V = EX_T(VARCHAR);
  ex__reg(&(ex_func_t){.name = "like",
                       .nparams = 2,
                       .params = {V, V},
                       .ret = EX_T(BOOLEAN),
                       .kernel = k_like,
                       .init = like_init});
  ex__reg(&(ex_func_t){.name = "like",
                       .nparams = 3,
                       .params = {V, V, V},
                       .ret = EX_T(BOOLEAN),
                       .kernel = k_like,
                       .init = like_init});
}
