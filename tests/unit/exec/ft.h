/*
 * ft.h - helpers shared by the function library's unit tests: evaluate a
 * function over rows written as text and read the results back as text.
 *
 * ft_eval("+", "bigint;bigint", 2, (const char *[]){"1", "2", "3", NULL}, NULL, 0)
 * evaluates 1 + 2 and 3 + NULL as one batch and returns "3|NULL". Cells are
 * Trino text forms cast from varchar (NULL pointer = SQL NULL); types are
 * separated by ';'. ft_eval_ex can pass a selection and mark columns as
 * constants (one-row vectors); rows outside the selection, whose slots a
 * kernel leaves unspecified, read "-". An error returns "ERR:<message>". fn may
 * be "cast:<type>" or "try_cast:<type>".
 */
#ifndef FLOE_TEST_FT_H
#define FLOE_TEST_FT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/tz.h"
#include "exec/ex_cast.h"
#include "exec/ex_func.h"

static const fl_tz_t *ft_zone; /* session zone for the next evaluations (NULL: UTC) */
static int64_t ft_now_us = 1767225600000000LL; /* 2026-01-01T00:00:00Z */
static char ft_result[8192];

static inline int ft__parse_types(const char *spec, ex_type_t *types, fl_err_t *err) {
  int n = 0;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", spec);
  if (!buf[0]) return 0;
  for (char *tok = strtok(buf, ";"); tok; tok = strtok(NULL, ";")) {
    if (ex_type_parse(tok, &types[n], err) != FL_OK) return -1;
    n++;
  }
  return n;
}

/* Column c of the rows (nrows rows of ncols cells) as a vector of type t. */
static inline int ft__column(ex_ctx_t *ctx, const ex_type_t *t, int nrows, int ncols, int c,
                             const char *const *cells, ty_vec_t **out, fl_err_t *err) {
  ty_vec_t *text = ty_vec_new(ty_primitive(TY_STRING), (uint32_t)nrows);
  for (int r = 0; r < nrows; r++) {
    const char *s = cells[r * ncols + c];
    if (s)
      ty_vec_append_bytes(text, s, strlen(s));
    else
      ty_vec_append_null(text);
  }
  ex_type_t vt = ex_type(EX_VARCHAR);
  ty_vec_t *v = ty_vec_new(ex_type_storage(t, ctx->arena), (uint32_t)nrows);
  ex_rows_t all = {.nrows = (uint32_t)nrows, .n = (uint32_t)nrows};
  int rc = FL_OK;
  if (t->kind == EX_UNKNOWN)
    for (int r = 0; r < nrows; r++) ty_vec_append_null(v);
  else
    rc = ex_cast_eval(ctx, &vt, t, false, text, &all, v, err);
  ty_vec_free(text);
  if (rc) {
    ty_vec_free(v);
    return rc;
  }
  *out = v;
  return FL_OK;
}

static inline void ft__text(ex_ctx_t *ctx, const ex_type_t *t, const ty_vec_t *v, uint32_t i,
                            char *dst, size_t cap) {
  if (ty_vec_is_null(v, i)) {
    snprintf(dst, cap, "NULL");
    return;
  }
  if (t->kind == EX_ARRAY) {
    size_t at = 0;
    at += (size_t)snprintf(dst + at, cap - at, "[");
    const ty_vec_t *c = v->children[0];
    for (int32_t e = v->offsets[i]; e < v->offsets[i + 1] && at < cap; e++) {
      size_t n;
      const uint8_t *p = ty_vec_get_bytes(c, (uint32_t)e, &n);
      if (ty_vec_is_null(c, (uint32_t)e))
        at += (size_t)snprintf(dst + at, cap - at, "%sNULL", e > v->offsets[i] ? "," : "");
      else
        at += (size_t)snprintf(dst + at, cap - at, "%s%.*s", e > v->offsets[i] ? "," : "", (int)n,
                               (const char *)p);
    }
    if (at < cap) snprintf(dst + at, cap - at, "]");
    return;
  }
  ty_vec_t *one = ty_vec_new(v->type, 1);
  ty_vec_append_from(one, v, i);
  ty_vec_t *text = ty_vec_new(ty_primitive(TY_STRING), 1);
  ex_rows_t r = {.nrows = 1, .n = 1};
  ex_type_t vt = ex_type(EX_VARCHAR);
  fl_err_t err;
  if (t->kind == EX_VARBINARY) {
    size_t n;
    const uint8_t *p = ty_vec_get_bytes(one, 0, &n);
    size_t at = 0;
    for (size_t k = 0; k < n && at + 3 < cap; k++)
      at += (size_t)snprintf(dst + at, cap - at, "%02x", p[k]);
    dst[at] = 0;
  } else if (ex_cast_eval(ctx, t, &vt, false, one, &r, text, &err) == FL_OK) {
    size_t n;
    const uint8_t *p = ty_vec_get_bytes(text, 0, &n);
    snprintf(dst, cap, "%.*s", (int)n, (const char *)p);
  } else {
    snprintf(dst, cap, "FMT:%s", err.msg);
  }
  ty_vec_free(one);
  ty_vec_free(text);
}

/*
 * The general form: const_cols is a bit mask of columns given as one row
 * (cells[c] for those) that act as constants for all nrows rows.
 */
static inline const char *ft_eval_ex(const char *fn, const char *types_spec, int nrows,
                                     const char *const *cells, const uint32_t *sel, uint32_t nsel,
                                     unsigned const_cols, ex_type_t *ret) {
  fl_err_t err;
  fl_err_clear(&err);
  ex_type_t types[EX_MAX_ARGS];
  fl_arena_t *arena = fl_arena_new(0);
  ex_ctx_t ctx;
  ex_ctx_init(&ctx, arena, ft_zone, ft_now_us);
  ty_vec_t *cols[EX_MAX_ARGS] = {0}, *out = NULL;
  int n = ft__parse_types(types_spec, types, &err);
  ex_type_t rt = ex_type(EX_UNKNOWN);
  int rc = n < 0 ? -1 : FL_OK;
  for (int c = 0; c < n && rc == FL_OK; c++) {
    bool k = (const_cols >> c) & 1;
    /* A constant column takes its one cell from the first row. */
    rc = ft__column(&ctx, &types[c], k ? 1 : nrows, n, c, cells, &cols[c], &err);
  }
  ex_rows_t rows = {.nrows = (uint32_t)nrows, .sel = sel, .n = sel ? nsel : (uint32_t)nrows};
  if (rc == FL_OK) {
    bool is_try = strncmp(fn, "try_cast:", 9) == 0;
    if (is_try || strncmp(fn, "cast:", 5) == 0) {
      rc = ex_type_parse(fn + (is_try ? 9 : 5), &rt, &err);
      if (rc == FL_OK) rc = ex_cast_check(&types[0], &rt, &err);
      if (rc == FL_OK) {
        out = ty_vec_new(ex_type_storage(&rt, arena), (uint32_t)nrows);
        rc = ex_cast_eval(&ctx, &types[0], &rt, is_try, cols[0], &rows, out, &err);
      }
    } else {
      rc = ex_func_eval(&ctx, fn, types, (const ty_vec_t *const *)cols, (size_t)n, &rows, &out, &rt,
                        &err);
    }
  }
  if (rc != FL_OK) {
    snprintf(ft_result, sizeof ft_result, "ERR:%s", err.msg);
  } else {
    size_t at = 0;
    ft_result[0] = 0;
    for (int r = 0; r < nrows && at < sizeof ft_result - 1; r++) {
      char cell[1024];
      bool live = !sel;
      for (uint32_t k = 0; k < nsel && !live; k++) live = sel[k] == (uint32_t)r;
      if (live)
        ft__text(&ctx, &rt, out, (uint32_t)r, cell, sizeof cell);
      else
        snprintf(cell, sizeof cell, "-"); /* outside the selection: unspecified */
      at += (size_t)snprintf(ft_result + at, sizeof ft_result - at, "%s%s", r ? "|" : "", cell);
    }
    if (out->len != (uint32_t)nrows) snprintf(ft_result, sizeof ft_result, "BADLEN:%u", out->len);
  }
  if (ret) *ret = rt;
  ty_vec_free(out);
  for (int c = 0; c < n; c++) ty_vec_free(cols[c]);
  fl_arena_free(arena);
  return ft_result;
}

static inline const char *ft_eval(const char *fn, const char *types, int nrows,
                                  const char *const *cells) {
  return ft_eval_ex(fn, types, nrows, cells, NULL, 0, 0, NULL);
}

/* One row: ft1("+", "bigint;bigint", "1", "2"). */
#define FT1(fn, types, ...) ft_eval((fn), (types), 1, (const char *const[]){__VA_ARGS__})
#define FTN(fn, types, nrows, ...) \
  ft_eval((fn), (types), (nrows), (const char *const[]){__VA_ARGS__})

/* The resolved result type of fn(types), as text, or "ERR:...". */
static inline const char *ft_resolve(const char *fn, const char *types_spec) {
  fl_err_t err;
  ex_type_t types[EX_MAX_ARGS];
  int n = ft__parse_types(types_spec, types, &err);
  ex_resolved_t r;
  if (n < 0 || ex_func_resolve(fn, types, (size_t)n, &r, &err) != FL_OK) {
    snprintf(ft_result, sizeof ft_result, "ERR:%s", err.msg);
    return ft_result;
  }
  size_t at = (size_t)snprintf(ft_result, sizeof ft_result, "%s", ex_type_str(&r.ret));
  at += (size_t)snprintf(ft_result + at, sizeof ft_result - at, " <-");
  for (int i = 0; i < n; i++)
    at += (size_t)snprintf(ft_result + at, sizeof ft_result - at, " %s", ex_type_str(&r.args[i]));
  return ft_result;
}

#endif
