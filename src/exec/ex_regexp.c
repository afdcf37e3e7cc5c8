/*
 * ex_regexp.c - regexp_like, regexp_extract, regexp_extract_all,
 * regexp_replace, regexp_count and regexp_position over PCRE2 (UTF-8 mode).
 *
 * A constant pattern compiles once at call set-up (with PCRE2's JIT when
 * available); a varying one compiles per row, reusing the last compilation
 * while the text repeats. Replacement strings use Trino's (Java's) syntax:
 * $n and ${name} insert groups, a backslash escapes the next character.
 * After an empty match the scan moves on by one code point, as Java does.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "exec/ex_func_int.h"

typedef struct rx {
  pcre2_code *code;
  pcre2_match_data *md;
  uint32_t ngroups;
  uint8_t *src;
  size_t nsrc;
  bool constant;
} rx_t;

static void rx_release(rx_t *r) {
  if (r->md) pcre2_match_data_free(r->md);
  if (r->code) pcre2_code_free(r->code);
  r->md = NULL;
  r->code = NULL;
}

static void rx_free(void *arg) {
  rx_t *r = arg;
  rx_release(r);
  fl_free(r->src);
}

static int rx_compile(rx_t *r, const uint8_t *p, size_t n, fl_err_t *err) {
  rx_release(r);
  int ec;
  PCRE2_SIZE eo;
  r->code = pcre2_compile(p, n, PCRE2_UTF | PCRE2_UCP, &ec, &eo, NULL);
  if (!r->code) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(ec, msg, sizeof msg);
    return ex__err(err, "Invalid regular expression '%.*s': %s at offset %zu",
                   (int)(n > 200 ? 200 : n), (const char *)p, (const char *)msg, (size_t)eo);
  }
  pcre2_jit_compile(r->code, PCRE2_JIT_COMPLETE); /* falls back to the interpreter */
  r->md = pcre2_match_data_create_from_pattern(r->code, NULL);
  pcre2_pattern_info(r->code, PCRE2_INFO_CAPTURECOUNT, &r->ngroups);
  r->src = fl_realloc(r->src, n ? n : 1);
  if (n) memcpy(r->src, p, n);
  r->nsrc = n;
  return FL_OK;
}

static int rx_init(ex_ctx_t *ctx, ex_call_t *call, fl_err_t *err) {
  rx_t *r = fl_arena_zalloc(ctx->arena, sizeof *r);
  fl_arena_on_reset(ctx->arena, rx_free, r);
  call->state = r;
  const ty_vec_t *pv = call->consts ? call->consts[1] : NULL;
  if (!pv || ty_vec_is_null(pv, 0)) return FL_OK;
  size_t n;
  const uint8_t *p = ex__str(pv, 0, &n);
  int rc = rx_compile(r, p, n, err);
  if (rc) return rc;
  r->constant = true;
  return FL_OK;
}

/* The compiled pattern for row i. */
static int rx_for_row(rx_t *r, const ty_vec_t *pv, uint32_t j, fl_err_t *err) {
  if (r->constant) return FL_OK;
  size_t n;
  const uint8_t *p = ex__str(pv, j, &n);
  if (r->code && r->nsrc == n && (n == 0 || memcmp(r->src, p, n) == 0)) return FL_OK;
  return rx_compile(r, p, n, err);
}

/* Next match at or after `at`; 1 found, 0 none, <0 error recorded. */
static int rx_match(rx_t *r, const uint8_t *s, size_t n, size_t at, fl_err_t *err) {
  int rc = pcre2_match(r->code, s, n, at, 0, r->md, NULL);
  if (rc == PCRE2_ERROR_NOMATCH) return 0;
  if (rc < 0) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(rc, msg, sizeof msg);
    ex__err(err, "regular expression match failed: %s", (const char *)msg);
    return -1;
  }
  return 1;
}

static size_t after_empty(const uint8_t *s, size_t n, size_t at) {
  at++;
  while (at < n && (s[at] & 0xC0) == 0x80) at++;
  return at;
}

enum { R_LIKE, R_EXTRACT, R_REPLACE, R_COUNT, R_POSITION };

static int k_regexp(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                    const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  rx_t *r = call->state;
  const int op = call->r.fn->op;
  const uint32_t m = ex__m(args[0]), mp = ex__m(args[1]);
  const bool third = call->r.nargs == 3;
  const uint32_t m3 = third ? ex__m(args[2]) : 0;
  ex_sw_t w = {0};
  if (out->offsets) ex__sw_init(&w, out);
  fl_buf_t b;
  fl_buf_init(&b);
  int rc = FL_OK;
  EX_ROWS(rows, i) {
    if (!ex__valid(out, i)) continue;
    if ((rc = rx_for_row(r, args[1], i & mp, err))) break;
    size_t n;
    const uint8_t *s = ex__str(args[0], i & m, &n);
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r->md);
    if (op == R_LIKE) {
      int f = rx_match(r, s, n, 0, err);
      if (f < 0) {
        rc = FL_EINVALID;
        break;
      }
      out->data[i] = (uint8_t)f;
    } else if (op == R_EXTRACT) {
      int64_t g = third ? TY_VEC_DATA(args[2], int64_t)[i & m3] : 0;
      if (g < 0 || g > (int64_t)r->ngroups) {
        rc = ex__err(err, "Pattern has %u groups. Cannot access group %lld", r->ngroups,
                     (long long)g);
        break;
      }
      int f = rx_match(r, s, n, 0, err);
      if (f < 0) {
        rc = FL_EINVALID;
        break;
      }
      if (!f || ov[2 * g] == PCRE2_UNSET) {
        ex__set_null(out, i);
        continue;
      }
      ex__sw_put(&w, i, s + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
    } else if (op == R_COUNT || op == R_POSITION) {
      int64_t count = 0, pos = -1;
      size_t at = 0;
      for (;;) {
        int f = at <= n ? rx_match(r, s, n, at, err) : 0;
        if (f < 0) {
          rc = FL_EINVALID;
          break;
        }
        if (!f) break;
        count++;
        if (op == R_POSITION) {
          /* Code point position of the first match, 1-based. */
          int64_t cp = 0;
          for (size_t k = 0; k < ov[0]; k++) cp += (s[k] & 0xC0) != 0x80;
          pos = cp + 1;
          break;
        }
        at = ov[1] > ov[0] ? ov[1] : after_empty(s, n, ov[1]);
      }
      if (rc) break;
      TY_VEC_DATA(out, int64_t)[i] = op == R_COUNT ? count : pos;
    } else { /* R_REPLACE */
      size_t nr = 0;
      const uint8_t *rep = third ? ex__str(args[2], i & m3, &nr) : NULL;
      fl_buf_clear(&b);
      size_t at = 0, copied = 0;
      while (at <= n) {
        int f = rx_match(r, s, n, at, err);
        if (f < 0) {
          rc = FL_EINVALID;
          break;
        }
        if (!f) break;
        fl_buf_append(&b, s + copied, ov[0] - copied);
        for (size_t k = 0; k < nr; k++) {
          uint8_t c = rep[k];
          if (c == '\\' && k + 1 < nr) {
            fl_buf_append_u8(&b, rep[++k]);
          } else if (c == '$' && k + 1 < nr && rep[k + 1] >= '0' && rep[k + 1] <= '9') {
            /* Java takes as many digits as still name an existing group. */
            uint32_t g = (uint32_t)(rep[++k] - '0');
            while (k + 1 < nr && rep[k + 1] >= '0' && rep[k + 1] <= '9' &&
                   g * 10 + (uint32_t)(rep[k + 1] - '0') <= r->ngroups)
              g = g * 10 + (uint32_t)(rep[++k] - '0');
            if (g > r->ngroups) {
              rc = ex__err(
                  err, "Illegal group reference: group index is %u but the pattern has %u groups",
                  g, r->ngroups);
              break;
            }
            if (ov[2 * g] != PCRE2_UNSET)
              fl_buf_append(&b, s + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
          } else if (c == '$' && k + 1 < nr && rep[k + 1] == '{') {
            size_t e = k + 2;
            while (e < nr && rep[e] != '}') e++;
            char name[64];
            size_t ln = e - k - 2;
            if (e == nr || ln == 0 || ln >= sizeof name) {
              rc = ex__err(err, "Illegal named group reference in replacement");
              break;
            }
            memcpy(name, rep + k + 2, ln);
            name[ln] = '\0';
            int g = pcre2_substring_number_from_name(r->code, (PCRE2_SPTR)name);
            if (g < 0) {
              rc = ex__err(err, "No group with name {%s}", name);
              break;
            }
            if (ov[2 * g] != PCRE2_UNSET)
              fl_buf_append(&b, s + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
            k = e;
          } else if (c == '$') {
            rc = ex__err(err, "Illegal group reference in replacement");
            break;
          } else {
            fl_buf_append_u8(&b, c);
          }
        }
        if (rc) break;
        copied = ov[1];
        if (ov[1] > ov[0]) {
          at = ov[1];
        } else {
          if (ov[1] >= n) break;
          at = after_empty(s, n, ov[1]);
        }
      }
      if (rc) break;
      fl_buf_append(&b, s + copied, n - copied);
      ex__sw_put(&w, i, b.data, b.len);
    }
  }
  fl_buf_free(&b);
  return rc;
}

static int k_extract_all(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                         const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  rx_t *r = call->state;
  const uint32_t m = ex__m(args[0]), mp = ex__m(args[1]);
  const bool third = call->r.nargs == 3;
  const uint32_t m3 = third ? ex__m(args[2]) : 0;
  ty_vec_t *ch = out->children[0];
  ty_vec_reset(ch);
  uint32_t next = 0;
  EX_ROWS(rows, i) {
    for (; next <= i; next++) out->offsets[next] = (int32_t)ch->len;
    next = i + 1;
    out->offsets[i + 1] = (int32_t)ch->len;
    if (!ex__valid(out, i)) continue;
    int rc = rx_for_row(r, args[1], i & mp, err);
    if (rc) return rc;
    int64_t g = third ? TY_VEC_DATA(args[2], int64_t)[i & m3] : 0;
    if (g < 0 || g > (int64_t)r->ngroups)
      return ex__err(err, "Pattern has %u groups. Cannot access group %lld", r->ngroups,
                     (long long)g);
    size_t n, at = 0;
    const uint8_t *s = ex__str(args[0], i & m, &n);
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r->md);
    while (at <= n) {
      int f = rx_match(r, s, n, at, err);
      if (f < 0) return FL_EINVALID;
      if (!f) break;
      if (ov[2 * g] == PCRE2_UNSET)
        ty_vec_append_null(ch);
      else
        ty_vec_append_bytes(ch, s + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
      if (ov[1] > ov[0])
        at = ov[1];
      else if (ov[1] >= n)
        break;
      else
        at = after_empty(s, n, ov[1]);
    }
    out->offsets[i + 1] = (int32_t)ch->len;
  }
  return FL_OK;
}

void ex__reg_regexp(void) {
  const ex_type_t V = EX_T(VARCHAR), B = EX_T(BIGINT);
  struct {
    const char *name;
    uint32_t np;
    ex_type_t third, ret;
    int op;
    ex_kernel_fn k;
  } fs[] = {
      {"regexp_like", 2, V, EX_T(BOOLEAN), R_LIKE, k_regexp},
      {"regexp_extract", 2, V, V, R_EXTRACT, k_regexp},
      {"regexp_extract", 3, B, V, R_EXTRACT, k_regexp},
      {"regexp_replace", 2, V, V, R_REPLACE, k_regexp},
      {"regexp_replace", 3, V, V, R_REPLACE, k_regexp},
      {"regexp_count", 2, V, B, R_COUNT, k_regexp},
      {"regexp_position", 2, V, B, R_POSITION, k_regexp},
      {"regexp_extract_all", 2, V, ex_type_array_varchar(), R_EXTRACT, k_extract_all},
      {"regexp_extract_all", 3, B, ex_type_array_varchar(), R_EXTRACT, k_extract_all},
  };
  for (size_t f = 0; f < sizeof fs / sizeof fs[0]; f++)
    ex__reg(&(ex_func_t){.name = fs[f].name,
                         .nparams = fs[f].np,
                         .params = {V, V, fs[f].third},
                         .ret = fs[f].ret,
                         .kernel = fs[f].k,
                         .init = rx_init,
                         .op = fs[f].op});
}
