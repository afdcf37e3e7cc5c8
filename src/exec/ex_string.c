/*
 * ex_string.c - Trino's string and binary functions over UTF-8 varchar:
 * concat / ||, length, lower, upper, substr/substring, trim/ltrim/rtrim,
 * lpad/rpad, replace, reverse, split, split_part, strpos/position,
 * starts_with, chr, codepoint, to_utf8/from_utf8, to_hex/from_hex, md5,
 * sha1, sha256, sha512.
 *
 * Positions and lengths count code points, not bytes. Case mapping covers
 * ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic (every mapping
 * there keeps the byte length); other scripts pass through unchanged.
 */
#define _GNU_SOURCE /* memmem */
#include <openssl/evp.h>
#include <string.h>

#include "exec/ex_func_int.h"

/* ---- UTF-8 ---- */

static inline bool is_cont(uint8_t b) { return (b & 0xC0) == 0x80; }

static int64_t utf8_len(const uint8_t *p, size_t n) {
  int64_t c = 0;
  for (size_t i = 0; i < n; i++) c += !is_cont(p[i]);
  return c;
}

/* Byte offset after k code points from the start (clamped to n). */
static size_t utf8_skip(const uint8_t *p, size_t n, int64_t k) {
  size_t i = 0;
  while (i < n && k > 0) {
    i++;
    while (i < n && is_cont(p[i])) i++;
    k--;
  }
  return i;
}

/* Decodes one code point at p[i], advancing i; invalid bytes give U+FFFD. */
static uint32_t utf8_next(const uint8_t *p, size_t n, size_t *i) {
  uint8_t b = p[*i];
  if (b < 0x80) {
    (*i)++;
    return b;
  }
  int len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 0;
  if (len == 0 || *i + (size_t)len > n) {
    (*i)++;
    return 0xFFFD;
  }
  uint32_t cp = b & (0x7F >> len);
  for (int k = 1; k < len; k++) {
    if (!is_cont(p[*i + k])) {
      (*i)++;
      return 0xFFFD;
    }
    cp = cp << 6 | (p[*i + k] & 0x3F);
  }
  *i += (size_t)len;
  return cp;
}

static size_t utf8_put(uint32_t cp, uint8_t *o) {
  if (cp < 0x80) {
    o[0] = (uint8_t)cp;
    return 1;
  }
  if (cp < 0x800) {
    o[0] = (uint8_t)(0xC0 | cp >> 6);
    o[1] = (uint8_t)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (uint8_t)(0xE0 | cp >> 12);
    o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    o[2] = (uint8_t)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (uint8_t)(0xF0 | cp >> 18);
  o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
  o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
  o[3] = (uint8_t)(0x80 | (cp & 0x3F));
  return 4;
}

static uint32_t to_lower(uint32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + 32 : c;
  if ((c >= 0xC0 && c <= 0xDE && c != 0xD7)) return c + 32;
  if (c >= 0x100 && c <= 0x17F) {
    if (c == 0x130 || c == 0x131 || c == 0x138 || c == 0x149 || c == 0x17F) return c;
    if (c == 0x178) return 0xFF;
    bool odd_upper = (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E);
    if (odd_upper) return (c & 1) ? c + 1 : c;
    return (c & 1) ? c : c + 1;
  }
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 32;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}

static uint32_t to_upper(uint32_t c) {
  if (c < 0x80) return c >= 'a' && c <= 'z' ? c - 32 : c;
  if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return c - 32;
  if (c == 0xFF) return 0x178;
  if (c >= 0x100 && c <= 0x17F) {
    if (c == 0x130 || c == 0x131 || c == 0x138 || c == 0x149 || c == 0x17F || c == 0x178) return c;
    bool odd_upper = (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E);
    if (odd_upper) return (c & 1) ? c : c - 1;
    return (c & 1) ? c - 1 : c;
  }
  if (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) return c - 32;
  if (c == 0x3C2) return 0x3A3; /* final sigma */
  if (c >= 0x430 && c <= 0x44F) return c - 32;
  if (c >= 0x450 && c <= 0x45F) return c - 80;
  return c;
}

/* ---- kernels ---- */

static int k_concat(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                    const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const size_t n = call->r.nargs;
  uint32_t m[EX_MAX_ARGS];
  for (size_t a = 0; a < n; a++) m[a] = ex__m(args[a]);
  ex_sw_t w = {0};
  ex__sw_init(&w, out);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    size_t total = 0, len;
    for (size_t a = 0; a < n; a++) {
      ex__str(args[a], i & m[a], &len);
      total += len;
    }
    uint8_t *d = ex__sw_reserve(&w, i, total);
    size_t at = 0;
    for (size_t a = 0; a < n; a++) {
      const uint8_t *p = ex__str(args[a], i & m[a], &len);
      if (len) memcpy(d + at, p, len);
      at += len;
    }
    ex__sw_commit(&w, i, total);
  }
  return FL_OK;
}

static int k_length(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                    const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const uint32_t m = ex__m(args[0]);
  int64_t *o = TY_VEC_DATA(out, int64_t);
  const bool bytes = call->r.args[0].kind == EX_VARBINARY;
  EX_ROWS(rows, i) {
    size_t n;
    const uint8_t *p = ex__str(args[0], i & m, &n);
    o[i] = bytes ? (int64_t)n : utf8_len(p, n);
  }
  return FL_OK;
}

enum { S_LOWER, S_UPPER, S_REVERSE };
static int k_map_chars(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                       const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const int op = call->r.fn->op;
  const uint32_t m = ex__m(args[0]);
  ex_sw_t w = {0};
  ex__sw_init(&w, out);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    size_t n;
    const uint8_t *p = ex__str(args[0], i & m, &n);
    uint8_t *d = ex__sw_reserve(&w, i, n * 2 + 4);
    size_t at = 0;
    if (op == S_REVERSE) {
      /* Code points in reverse order, each kept intact. */
      size_t end = n;
      while (end > 0) {
        size_t start = end - 1;
        while (start > 0 && is_cont(p[start])) start--;
        memcpy(d + at, p + start, end - start);
        at += end - start;
        end = start;
      }
    } else {
      for (size_t j = 0; j < n;) {
        if (p[j] < 0x80) {
          uint8_t c = p[j++];
          d[at++] = op == S_LOWER ? (c >= 'A' && c <= 'Z' ? c + 32 : c)
                                  : (c >= 'a' && c <= 'z' ? c - 32 : c);
          continue;
        }
        size_t s = j;
        uint32_t cp = utf8_next(p, n, &j);
        if (cp == 0xFFFD && j - s == 1) {
          d[at++] = p[s]; /* invalid byte: pass through */
          continue;
        }
        at += utf8_put(op == S_LOWER ? to_lower(cp) : to_upper(cp), d + at);
      }
    }
    ex__sw_commit(&w, i, at);
  }
  return FL_OK;
}

static int k_substr(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                    const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const uint32_t m = ex__m(args[0]), ms = ex__m(args[1]);
  const bool has_len = call->r.nargs == 3;
  const uint32_t ml = has_len ? ex__m(args[2]) : 0;
  const int64_t *sv = TY_VEC_DATA(args[1], int64_t);
  const int64_t *lv = has_len ? TY_VEC_DATA(args[2], int64_t) : NULL;
  ex_sw_t w = {0};
  ex__sw_init(&w, out);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    size_t n;
    const uint8_t *p = ex__str(args[0], i & m, &n);
    int64_t start = sv[i & ms], len = has_len ? lv[i & ml] : INT64_MAX;
    if (start == 0 || len <= 0) {
      ex__sw_put(&w, i, "", 0);
      continue;
    }
    /* Only a start counted from the end needs the length in code points;
     * from the front, skipping start - 1 of them tells whether it is past
     * the end (the skip reaches n). */
    if (start < 0) start = utf8_len(p, n) + start + 1;
    size_t b = start < 1 ? n : utf8_skip(p, n, start - 1);
    if (b >= n) {
      ex__sw_put(&w, i, "", 0);
      continue;
    }
    size_t e = b + utf8_skip(p + b, n - b, len);
    ex__sw_put(&w, i, p + b, e - b);
  }
  return FL_OK;
}

/* Java's Character.isWhitespace, which Trino's trim uses: no-break spaces are not whitespace. */
static bool is_ws(uint32_t c) {
  if (c < 0x80) return c == ' ' || (c >= 9 && c <= 13) || (c >= 0x1C && c <= 0x1F);
  return c == 0x1680 || (c >= 0x2000 && c <= 0x2006) || (c >= 0x2008 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x205F || c == 0x3000;
}

enum { T_BOTH, T_LEFT, T_RIGHT };
static int k_trim(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                  const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const int op = call->r.fn->op;
  const uint32_t m = ex__m(args[0]);
  const bool custom = call->r.nargs == 2;
  const uint32_t mc = custom ? ex__m(args[1]) : 0;
  ex_sw_t w = {0};
  ex__sw_init(&w, out);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    size_t n, nc = 0;
    const uint8_t *p = ex__str(args[0], i & m, &n);
    const uint8_t *cs = custom ? ex__str(args[1], i & mc, &nc) : NULL;
    size_t b = 0, e = n;
    if (op != T_RIGHT)
      while (b < e) {
        size_t j = b;
        uint32_t cp = utf8_next(p, e, &j);
        bool hit = false;
        if (custom) {
          for (size_t k = 0; k < nc && !hit;) hit = utf8_next(cs, nc, &k) == cp;
        } else {
          hit = is_ws(cp);
        }
        if (!hit) break;
        b = j;
      }
    if (op != T_LEFT)
      while (e > b) {
        size_t s = e - 1;
        while (s > b && is_cont(p[s])) s--;
        size_t j = s;
        uint32_t cp = utf8_next(p, e, &j);
        bool hit = false;
        if (custom) {
          for (size_t k = 0; k < nc && !hit;) hit = utf8_next(cs, nc, &k) == cp;
        } else {
          hit = is_ws(cp);
        }
        if (!hit) break;
        e = s;
      }
    ex__sw_put(&w, i, p + b, e - b);
  }
  return FL_OK;
}

static int k_pad(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args, const ex_rows_t *rows,
                 ty_vec_t *out, fl_err_t *err) {
  const bool left = call->r.fn->op == 0;
  const uint32_t m = ex__m(args[0]), ms = ex__m(args[1]), mp = ex__m(args[2]);
  const int64_t *sv = TY_VEC_DATA(args[1], int64_t);
  ex_sw_t w = {0};
  ex__sw_init(&w, out);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    size_t n, np;
    const uint8_t *p = ex__str(args[0], i & m, &n), *pad = ex__str(args[2], i & mp, &np);
    int64_t size = sv[i & ms];
    if (size < 0 || size > INT32_MAX)
      return ex__err(err, "Target length must be in the range [0..%d]: %lld", INT32_MAX,
                     (long long)size);
    if (np == 0) return ex__err(err, "Padding string must not be empty");
    int64_t cps = utf8_len(p, n);
    if (cps >= size) {
      ex__sw_put(&w, i, p, utf8_skip(p, n, size));
      continue;
    }
    int64_t need = size - cps, padcps = utf8_len(pad, np);
    if ((size_t)need * np / (size_t)(padcps ? padcps : 1) > (size_t)1 << 30)
      return ex__err(err, "Padded string too long: %lld characters", (long long)size);
    size_t cap = n + ((size_t)need / (size_t)padcps + 1) * np;
    uint8_t *d = ex__sw_reserve(&w, i, cap);
    size_t at = 0;
    if (!left) memcpy(d, p, n), at = n;
    for (int64_t done = 0; done < need;) {
      int64_t take = need - done < padcps ? need - done : padcps;
      size_t nb = utf8_skip(pad, np, take);
      memcpy(d + at, pad, nb);
      at += nb;
      done += take;
    }
    if (left) memcpy(d + at, p, n), at += n;
    ex__sw_commit(&w, i, at);
  }
  return FL_OK;
}

static const uint8_t *find(const uint8_t *h, size_t nh, const uint8_t *s, size_t ns) {
  if (ns == 0) return h;
  if (ns > nh) return NULL;
  return memmem(h, nh, s, ns);
}

static int k_replace(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                     const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const uint32_t m = ex__m(args[0]), ms = ex__m(args[1]);
  const bool has_r = call->r.nargs == 3;
  const uint32_t mr = has_r ? ex__m(args[2]) : 0;
  ex_sw_t w = {0};
  ex__sw_init(&w, out);
  fl_buf_t b;
  fl_buf_init(&b);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    size_t n, ns, nr = 0;
    const uint8_t *p = ex__str(args[0], i & m, &n), *s = ex__str(args[1], i & ms, &ns);
    const uint8_t *r = has_r ? ex__str(args[2], i & mr, &nr) : NULL;
    fl_buf_clear(&b);
    if (ns == 0) {
      /* Trino: the replacement goes before every character and at the end. */
      for (size_t j = 0; j < n;) {
        fl_buf_append(&b, r, nr);
        size_t k = j + 1;
        while (k < n && is_cont(p[k])) k++;
        fl_buf_append(&b, p + j, k - j);
        j = k;
      }
      fl_buf_append(&b, r, nr);
    } else {
      size_t at = 0;
      const uint8_t *hit;
      while ((hit = find(p + at, n - at, s, ns))) {
        fl_buf_append(&b, p + at, (size_t)(hit - (p + at)));
        fl_buf_append(&b, r, nr);
        at = (size_t)(hit - p) + ns;
      }
      fl_buf_append(&b, p + at, n - at);
    }
    ex__sw_put(&w, i, b.data, b.len);
  }
  fl_buf_free(&b);
  return FL_OK;
}

static int k_strpos(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                    const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const uint32_t m = ex__m(args[0]), ms = ex__m(args[1]);
  const bool has_inst = call->r.nargs == 3;
  const uint32_t mi = has_inst ? ex__m(args[2]) : 0;
  int64_t *o = TY_VEC_DATA(out, int64_t);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    size_t n, ns;
    const uint8_t *p = ex__str(args[0], i & m, &n), *s = ex__str(args[1], i & ms, &ns);
    int64_t inst = has_inst ? TY_VEC_DATA(args[2], int64_t)[i & mi] : 1;
    if (inst == 0) return ex__err(err, "'instance' must be a positive or negative number.");
    const uint8_t *hit = NULL;
    if (inst > 0) {
      size_t at = 0;
      for (int64_t k = 0; k < inst; k++) {
        hit = find(p + at, n - at, s, ns);
        if (!hit) break;
        at = (size_t)(hit - p) + (ns ? ns : 1);
      }
    } else {
      /* A negative instance counts occurrences from the end. */
      int64_t left = -inst;
      for (size_t end = n + 1; end-- > 0 && left > 0;) {
        if (end + ns > n || (ns && memcmp(p + end, s, ns) != 0) || (end < n && is_cont(p[end])))
          continue;
        if (--left == 0) hit = p + end;
      }
    }
    o[i] = hit ? utf8_len(p, (size_t)(hit - p)) + 1 : 0;
  }
  return FL_OK;
}

static int k_starts_with(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                         const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const uint32_t m = ex__m(args[0]), ms = ex__m(args[1]);
  const bool ends = call->r.fn->op == 1;
  EX_ROWS(rows, i) {
    size_t n, ns;
    const uint8_t *p = ex__str(args[0], i & m, &n), *s = ex__str(args[1], i & ms, &ns);
    out->data[i] = ns <= n && (ns == 0 || memcmp(ends ? p + n - ns : p, s, ns) == 0);
  }
  return FL_OK;
}

static int k_split(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                   const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const uint32_t m = ex__m(args[0]), md = ex__m(args[1]);
  const bool has_limit = call->r.nargs == 3;
  const uint32_t ml = has_limit ? ex__m(args[2]) : 0;
  ty_vec_t *ch = out->children[0];
  ty_vec_reset(ch);
  uint32_t next = 0;
  EX_ROWS(rows, i) {
    for (; next <= i; next++) out->offsets[next] = (int32_t)ch->len;
    next = i + 1;
    out->offsets[i + 1] = (int32_t)ch->len;
    if (!ex__valid(out, i)) continue;
    size_t n, nd;
    const uint8_t *p = ex__str(args[0], i & m, &n), *d = ex__str(args[1], i & md, &nd);
    int64_t limit = has_limit ? TY_VEC_DATA(args[2], int64_t)[i & ml] : INT64_MAX;
    if (nd == 0) return ex__err(err, "The delimiter may not be the empty string");
    if (limit <= 0) return ex__err(err, "Limit must be positive: %lld", (long long)limit);
    size_t at = 0;
    int64_t parts = 1;
    const uint8_t *hit;
    while (parts < limit && (hit = find(p + at, n - at, d, nd))) {
      ty_vec_append_bytes(ch, p + at, (size_t)(hit - (p + at)));
      at = (size_t)(hit - p) + nd;
      parts++;
    }
    ty_vec_append_bytes(ch, p + at, n - at);
    out->offsets[i + 1] = (int32_t)ch->len;
  }
  return FL_OK;
}

static int k_split_part(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                        const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const uint32_t m = ex__m(args[0]), md = ex__m(args[1]), mi = ex__m(args[2]);
  ex_sw_t w = {0};
  ex__sw_init(&w, out);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    size_t n, nd;
    const uint8_t *p = ex__str(args[0], i & m, &n), *d = ex__str(args[1], i & md, &nd);
    int64_t idx = TY_VEC_DATA(args[2], int64_t)[i & mi];
    if (idx <= 0) return ex__err(err, "Index must be greater than zero: %lld", (long long)idx);
    if (nd == 0) {
      /* An empty delimiter splits nothing: the string is part 1. */
      if (idx == 1)
        ex__sw_put(&w, i, p, n);
      else
        ex__set_null(out, i);
      continue;
    }
    size_t at = 0;
    const uint8_t *hit = NULL;
    int64_t k = 1;
    for (; k < idx; k++) {
      hit = find(p + at, n - at, d, nd);
      if (!hit) break;
      at = (size_t)(hit - p) + nd;
    }
    if (k < idx) {
      ex__set_null(out, i);
      continue;
    }
    hit = find(p + at, n - at, d, nd);
    size_t e = hit ? (size_t)(hit - p) : n;
    ex__sw_put(&w, i, p + at, e - at);
  }
  return FL_OK;
}

static int k_chr(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args, const ex_rows_t *rows,
                 ty_vec_t *out, fl_err_t *err) {
  const uint32_t m = ex__m(args[0]);
  ex_sw_t w = {0};
  ex__sw_init(&w, out);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    int64_t c = TY_VEC_DATA(args[0], int64_t)[i & m];
    if (c < 0 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
      return ex__err(err, "Not a valid Unicode code point: %lld", (long long)c);
    uint8_t b[4];
    ex__sw_put(&w, i, b, utf8_put((uint32_t)c, b));
  }
  return FL_OK;
}

static int k_codepoint(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                       const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const uint32_t m = ex__m(args[0]);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    size_t n, j = 0;
    const uint8_t *p = ex__str(args[0], i & m, &n);
    if (utf8_len(p, n) != 1) return ex__err(err, "Input string must be a single character string");
    TY_VEC_DATA(out, int32_t)[i] = (int32_t)utf8_next(p, n, &j);
  }
  return FL_OK;
}

/* to_utf8, from_utf8 (invalid sequences become U+FFFD), to_hex, from_hex. */
enum { B_TO_UTF8, B_FROM_UTF8, B_TO_HEX, B_FROM_HEX };
static int k_bytes(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                   const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const int op = call->r.fn->op;
  const uint32_t m = ex__m(args[0]);
  ex_sw_t w = {0};
  ex__sw_init(&w, out);
  static const char hex[] = "0123456789ABCDEF";
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    size_t n;
    const uint8_t *p = ex__str(args[0], i & m, &n);
    switch (op) {
      case B_TO_UTF8: ex__sw_put(&w, i, p, n); break;
      case B_FROM_UTF8: {
        uint8_t *d = ex__sw_reserve(&w, i, n * 3);
        size_t at = 0;
        for (size_t j = 0; j < n;) at += utf8_put(utf8_next(p, n, &j), d + at);
        ex__sw_commit(&w, i, at);
        break;
      }
      case B_TO_HEX: {
        uint8_t *d = ex__sw_reserve(&w, i, n * 2);
        for (size_t j = 0; j < n; j++)
          d[2 * j] = (uint8_t)hex[p[j] >> 4], d[2 * j + 1] = (uint8_t)hex[p[j] & 15];
        ex__sw_commit(&w, i, n * 2);
        break;
      }
      default: {
        if (n % 2) return ex__err(err, "invalid input length %zu for from_hex", n);
        uint8_t *d = ex__sw_reserve(&w, i, n / 2);
        for (size_t j = 0; j < n; j += 2) {
          int v[2];
          for (int k = 0; k < 2; k++) {
            uint8_t c = p[j + (size_t)k];
            v[k] = c >= '0' && c <= '9'   ? c - '0'
                   : c >= 'a' && c <= 'f' ? c - 'a' + 10
                   : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                          : -1;
            if (v[k] < 0) return ex__err(err, "invalid hex character: %c", c);
          }
          d[j / 2] = (uint8_t)(v[0] << 4 | v[1]);
        }
        ex__sw_commit(&w, i, n / 2);
      }
    }
  }
  return FL_OK;
}

static int k_digest(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                    const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const EVP_MD *md = call->r.fn->op == 0   ? EVP_md5()
                     : call->r.fn->op == 1 ? EVP_sha1()
                     : call->r.fn->op == 2 ? EVP_sha256()
                                           : EVP_sha512();
  const uint32_t m = ex__m(args[0]);
  ex_sw_t w = {0};
  ex__sw_init(&w, out);
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    size_t n;
    const uint8_t *p = ex__str(args[0], i & m, &n);
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int dn = 0;
    if (!EVP_Digest(p, n, d, &dn, md, NULL)) return fl_err_set(err, FL_EINTERNAL, "digest failed");
    ex__sw_put(&w, i, d, dn);
  }
  return FL_OK;
}

static void reg(const char *name, uint32_t np, ex_type_t a, ex_type_t b, ex_type_t c, ex_type_t ret,
                ex_kernel_fn k, int op) {
  ex__reg(&(ex_func_t){
      .name = name, .nparams = np, .params = {a, b, c}, .ret = ret, .kernel = k, .op = op});
}

void ex__reg_string(void) {
  const ex_type_t V = EX_T(VARCHAR), B = EX_T(BIGINT), VB = EX_T(VARBINARY), N = EX_T(UNKNOWN);
  ex__reg(&(ex_func_t){.name = "concat",
                       .nparams = 1,
                       .params = {V},
                       .ret = V,
                       .kernel = k_concat,
                       .flags = EX_FN_VARIADIC});
  ex__reg(&(ex_func_t){.name = "||", .nparams = 2, .params = {V, V}, .ret = V, .kernel = k_concat});
  ex__reg(&(ex_func_t){.name = "concat",
                       .nparams = 1,
                       .params = {VB},
                       .ret = VB,
                       .kernel = k_concat,
                       .flags = EX_FN_VARIADIC});
  ex__reg(
      &(ex_func_t){.name = "||", .nparams = 2, .params = {VB, VB}, .ret = VB, .kernel = k_concat});
  reg("length", 1, V, N, N, B, k_length, 0);
  reg("length", 1, VB, N, N, B, k_length, 0);
  reg("lower", 1, V, N, N, V, k_map_chars, S_LOWER);
  reg("upper", 1, V, N, N, V, k_map_chars, S_UPPER);
  reg("reverse", 1, V, N, N, V, k_map_chars, S_REVERSE);
  reg("substr", 2, V, B, N, V, k_substr, 0);
  reg("substr", 3, V, B, B, V, k_substr, 0);
  reg("substring", 2, V, B, N, V, k_substr, 0);
  reg("substring", 3, V, B, B, V, k_substr, 0);
  reg("trim", 1, V, N, N, V, k_trim, T_BOTH);
  reg("ltrim", 1, V, N, N, V, k_trim, T_LEFT);
  reg("rtrim", 1, V, N, N, V, k_trim, T_RIGHT);
  reg("trim", 2, V, V, N, V, k_trim, T_BOTH);
  reg("ltrim", 2, V, V, N, V, k_trim, T_LEFT);
  reg("rtrim", 2, V, V, N, V, k_trim, T_RIGHT);
  reg("lpad", 3, V, B, V, V, k_pad, 0);
  reg("rpad", 3, V, B, V, V, k_pad, 1);
  reg("replace", 2, V, V, N, V, k_replace, 0);
  reg("replace", 3, V, V, V, V, k_replace, 0);
  reg("strpos", 2, V, V, N, B, k_strpos, 0);
  reg("strpos", 3, V, V, B, B, k_strpos, 0);
  reg("position", 2, V, V, N, B, k_strpos, 0);
  reg("starts_with", 2, V, V, N, EX_T(BOOLEAN), k_starts_with, 0);
  reg("ends_with", 2, V, V, N, EX_T(BOOLEAN), k_starts_with, 1);
  ex_type_t AV = ex_type_array_varchar();
  reg("split", 2, V, V, N, AV, k_split, 0);
  reg("split", 3, V, V, B, AV, k_split, 0);
  reg("split_part", 3, V, V, B, V, k_split_part, 0);
  reg("chr", 1, B, N, N, V, k_chr, 0);
  reg("codepoint", 1, V, N, N, EX_T(INTEGER), k_codepoint, 0);
  reg("to_utf8", 1, V, N, N, VB, k_bytes, B_TO_UTF8);
  reg("from_utf8", 1, VB, N, N, V, k_bytes, B_FROM_UTF8);
  reg("to_hex", 1, VB, N, N, V, k_bytes, B_TO_HEX);
  reg("from_hex", 1, V, N, N, VB, k_bytes, B_FROM_HEX);
  reg("md5", 1, VB, N, N, VB, k_digest, 0);
  reg("sha1", 1, VB, N, N, VB, k_digest, 1);
  reg("sha256", 1, VB, N, N, VB, k_digest, 2);
  reg("sha512", 1, VB, N, N, VB, k_digest, 3);
}
