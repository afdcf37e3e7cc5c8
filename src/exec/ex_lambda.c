/*
 * ex_lambda.c - evaluating the array functions that take a lambda:
 * transform, filter, any_match, all_match, none_match and reduce
 * (layer 8, exec).
 *
 * The body was compiled against a batch whose column 0 is the lambda's
 * parameter and whose columns 1.. are the values it captures. For each
 * input batch, that batch is the arrays' element vector (every element of
 * the selected rows at once) beside the captured values repeated for each
 * element of their row, so the body runs vectorized over all elements in
 * one evaluation; the results are then cut back into rows. A constant
 * array argument is first repeated for each row. reduce runs its body
 * once per element position instead, over the rows that have an element
 * there, with the state of every row as a column.
 */
#include "exec/ex_lambda.h"

#include "base/alloc.h"
#include "exec/ex_func_int.h"
#include "exec/ex_vec.h"

enum { L_TRANSFORM, L_FILTER, L_ANY, L_ALL, L_NONE, L_REDUCE };

struct ex_lambda {
  int fn;
  ex_expr_t *body, *body2;       /* body2: reduce's output lambda */
  const ty_schema_t *schema;     /* the element batch's columns */
  ty_vec_t *state, *next, *elem; /* reduce: per row */
  ty_batch_t batch;
  ty_vec_t **cols;  /* columns 1..: captured values per element */
  ty_vec_t *arr;    /* a constant array repeated for each row */
  uint32_t *row_of; /* per element: its row */
  uint32_t *sel;    /* the elements of the selected rows */
  uint32_t cap;
};

static void lambda_free(void *p) {
  ex_lambda_t *l = p;
  for (uint32_t c = 1; l->fn != L_REDUCE && c < l->batch.ncols; c++) ty_vec_free(l->cols[c]);
  ty_vec_free(l->arr);
  ty_vec_free(l->state);
  ty_vec_free(l->next);
  ty_vec_free(l->elem);
  fl_free(l->row_of);
  fl_free(l->sel);
}

static int reduce_compile(ex_ctx_t *ctx, ex_lambda_t *l, const sql_bexpr_t *body,
                          const sql_bexpr_t *body2, const ty_type_t *const *st, uint32_t nargs,
                          fl_err_t *err) {
  /* Columns: the state, the element, the captures. */
  ty_field_t *f = fl_arena_zalloc(ctx->arena, nargs * sizeof *f);
  f[0] = (ty_field_t){.id = 1, .name = "$state", .type = st[1]};
  f[1] = (ty_field_t){.id = 2, .name = "$elem", .type = st[0]->fields[0].type};
  for (uint32_t k = 2; k < nargs; k++)
    f[k] = (ty_field_t){
        .id = (int32_t)k + 1, .name = fl_arena_sprintf(ctx->arena, "$cap%u", k), .type = st[k]};
  l->schema = ty_schema_new(ctx->arena, 0, f, nargs);
  int rc;
  if ((rc = ex_expr_compile(ctx, body, l->schema, &l->body, err)) ||
      (rc = ex_expr_compile(ctx, body2, l->schema, &l->body2, err)))
    return rc;
  l->cols = fl_arena_zalloc(ctx->arena, nargs * sizeof *l->cols);
  l->state = ty_vec_new(st[1], TY_BATCH_ROWS);
  l->next = ty_vec_new(st[1], TY_BATCH_ROWS);
  l->elem = ty_vec_new(st[0]->fields[0].type, TY_BATCH_ROWS);
  l->batch = (ty_batch_t){.schema = l->schema, .ncols = nargs, .cols = l->cols};
  return FL_OK;
}

/* reduce: the state of every row at once, one element position at a
 * time (the rows with an element there), then the output lambda. */
static int reduce_eval(ex_ctx_t *ctx, ex_lambda_t *l, const ty_vec_t *const *argv,
                       const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  const ty_vec_t *arr = argv[0], *init = argv[1];
  const uint32_t ma = ex__m(arr), mi = ex__m(init), n = rows->nrows;
  if (n + 1 > l->cap) {
    l->cap = n + 1;
    l->row_of = fl_realloc(l->row_of, l->cap * sizeof *l->row_of);
    l->sel = fl_realloc(l->sel, l->cap * sizeof *l->sel);
  }
  ty_vec_reset(l->state);
  ty_vec_reserve(l->state, n ? n : 1);
  int32_t longest = 0;
  uint32_t nlive = 0;
  for (uint32_t i = 0, k = 0; i < n; i++) {
    bool sel = rows->sel ? (k < rows->n && rows->sel[k] == i) : true;
    if (sel) k++;
    if (sel && !ty_vec_is_null(arr, i & ma)) {
      ty_vec_append_from(l->state, init, i & mi);
      l->row_of[nlive++] = i;
      int32_t len = arr->offsets[(i & ma) + 1] - arr->offsets[i & ma];
      if (len > longest) longest = len;
    } else {
      ty_vec_append_null(l->state);
    }
  }
  for (uint32_t c = 2; c < l->batch.ncols; c++) l->cols[c] = (ty_vec_t *)argv[c];
  l->batch.nrows = n;
  const ty_vec_t *el = arr->children[0];
  int rc = FL_OK;
  for (int32_t pos = 0; pos < longest && !rc; pos++) {
    ty_vec_reset(l->elem);
    uint32_t ns = 0;
    for (uint32_t i = 0, k = 0; i < n; i++) {
      bool on = k < nlive && l->row_of[k] == i;
      if (on) k++;
      int32_t b = on ? arr->offsets[i & ma] : 0, e = on ? arr->offsets[(i & ma) + 1] : 0;
      if (on && pos < e - b) {
        ty_vec_append_from(l->elem, el, (uint32_t)(b + pos));
        l->sel[ns++] = i;
      } else {
        ty_vec_append_null(l->elem);
      }
    }
    l->cols[0] = l->state;
    l->cols[1] = l->elem;
    ex_rows_t step = {.nrows = n, .sel = l->sel, .n = ns};
    const ty_vec_t *res;
    if ((rc = ex_expr_eval(ctx, l->body, &l->batch, &step, &res, err))) break;
    const uint32_t mr = ex__m(res);
    ty_vec_reset(l->next);
    for (uint32_t i = 0, k = 0; i < n; i++) {
      if (k < ns && l->sel[k] == i) {
        ty_vec_append_from(l->next, res, i & mr);
        k++;
      } else {
        ty_vec_append_from(l->next, l->state, i);
      }
    }
    ty_vec_t *t = l->state;
    l->state = l->next;
    l->next = t;
  }
  if (!rc) {
    l->cols[0] = l->state;
    ty_vec_reset(l->elem);
    for (uint32_t i = 0; i < n; i++) ty_vec_append_null(l->elem);
    l->cols[1] = l->elem;
    memcpy(l->sel, l->row_of, nlive * sizeof *l->sel);
    ex_rows_t live = {.nrows = n, .sel = l->sel, .n = nlive};
    const ty_vec_t *res;
    if (!(rc = ex_expr_eval(ctx, l->body2, &l->batch, &live, &res, err))) {
      const uint32_t mr = ex__m(res);
      ty_vec_reset(out);
      ty_vec_reserve(out, n ? n : 1);
      for (uint32_t i = 0, k = 0; i < n; i++) {
        if (k < nlive && l->row_of[k] == i) {
          ty_vec_append_from(out, res, i & mr);
          k++;
        } else {
          ty_vec_append_null(out);
        }
      }
    }
  }
  for (uint32_t c = 0; c < l->batch.ncols; c++) l->cols[c] = NULL;
  return rc;
}

int ex__lambda_compile(ex_ctx_t *ctx, const char *name, const sql_bexpr_t *body,
                       const sql_bexpr_t *body2, const ty_type_t *const *arg_storage,
                       uint32_t nargs, ex_lambda_t **out, fl_err_t *err) {
  ex_lambda_t *l = fl_arena_zalloc(ctx->arena, sizeof *l);
  l->fn = !strcmp(name, "transform")   ? L_TRANSFORM
          : !strcmp(name, "filter")    ? L_FILTER
          : !strcmp(name, "any_match") ? L_ANY
          : !strcmp(name, "all_match") ? L_ALL
          : !strcmp(name, "reduce")    ? L_REDUCE
                                       : L_NONE;
  if (arg_storage[0]->kind != TY_LIST)
    return fl_err_set(err, FL_EINTERNAL, "%s of a value that is not an array", name);
  if (l->fn == L_REDUCE) {
    int rc = reduce_compile(ctx, l, body, body2, arg_storage, nargs, err);
    if (rc) return rc;
    fl_arena_on_reset(ctx->arena, lambda_free, l);
    *out = l;
    return FL_OK;
  }
  ty_field_t *f = fl_arena_zalloc(ctx->arena, nargs * sizeof *f);
  f[0] = (ty_field_t){.id = 1, .name = "$elem", .type = arg_storage[0]->fields[0].type};
  for (uint32_t k = 1; k < nargs; k++)
    f[k] = (ty_field_t){.id = (int32_t)k + 1,
                        .name = fl_arena_sprintf(ctx->arena, "$cap%u", k),
                        .type = arg_storage[k]};
  l->schema = ty_schema_new(ctx->arena, 0, f, nargs);
  int rc = ex_expr_compile(ctx, body, l->schema, &l->body, err);
  if (rc) return rc;
  l->cols = fl_arena_zalloc(ctx->arena, nargs * sizeof *l->cols);
  for (uint32_t k = 1; k < nargs; k++) l->cols[k] = ty_vec_new(arg_storage[k], TY_BATCH_ROWS);
  l->batch = (ty_batch_t){.schema = l->schema, .ncols = nargs, .cols = l->cols};
  fl_arena_on_reset(ctx->arena, lambda_free, l);
  *out = l;
  return FL_OK;
}

int ex__lambda_eval(ex_ctx_t *ctx, ex_lambda_t *l, const ty_vec_t *const *argv,
                    const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err) {
  if (l->fn == L_REDUCE) return reduce_eval(ctx, l, argv, rows, out, err);
  const ty_vec_t *arr = argv[0];
  if (arr->len == 1 && rows->nrows > 1) {
    /* A constant array: one copy per row, so elements know their row. */
    if (!l->arr) l->arr = ty_vec_new(arr->type, rows->nrows);
    ty_vec_reset(l->arr);
    for (uint32_t i = 0; i < rows->nrows; i++) ty_vec_append_from(l->arr, arr, 0);
    arr = l->arr;
  }
  const ty_vec_t *el = arr->children[0];
  uint32_t nel = el->len;
  if (nel + 1 > l->cap) {
    l->cap = nel + 1;
    l->row_of = fl_realloc(l->row_of, l->cap * sizeof *l->row_of);
    l->sel = fl_realloc(l->sel, l->cap * sizeof *l->sel);
  }
  for (uint32_t e = 0; e < nel; e++) l->row_of[e] = 0;
  uint32_t ns = 0;
  EX_ROWS(rows, i) {
    if (ty_vec_is_null(arr, i)) continue;
    for (int32_t e = arr->offsets[i]; e < arr->offsets[i + 1]; e++) {
      l->row_of[e] = i;
      l->sel[ns++] = (uint32_t)e;
    }
  }
  /* The element batch: the elements, and each capture per element. */
  l->cols[0] = (ty_vec_t *)el;
  for (uint32_t c = 1; c < l->batch.ncols; c++) {
    ty_vec_reset(l->cols[c]);
    const ty_vec_t *src = argv[c];
    if (src->len == 1) {
      for (uint32_t e = 0; e < nel; e++) ty_vec_append_from(l->cols[c], src, 0);
    } else {
      ex_vec_gather(l->cols[c], src, l->row_of, nel);
    }
  }
  l->batch.nrows = nel;
  ex_rows_t er = {.nrows = nel, .sel = l->sel, .n = ns};
  const ty_vec_t *res = NULL;
  int rc = ex_expr_eval(ctx, l->body, &l->batch, &er, &res, err);
  l->cols[0] = NULL;
  if (rc) return rc;
  const uint32_t mr = res->len == 1 ? 0 : UINT32_MAX;
  /* Cut the results back into rows. */
  ty_vec_reset(out);
  ty_vec_reserve(out, rows->nrows ? rows->nrows : 1);
  uint32_t next = 0;
  EX_ROWS(rows, i) {
    for (; next < i; next++) ty_vec_append_null(out);
    next = i + 1;
    if (ty_vec_is_null(arr, i)) {
      ty_vec_append_null(out);
      continue;
    }
    int32_t b = arr->offsets[i], e = arr->offsets[i + 1];
    if (l->fn == L_TRANSFORM || l->fn == L_FILTER) {
      for (int32_t k = b; k < e; k++) {
        if (l->fn == L_TRANSFORM) {
          ty_vec_append_from(out->children[0], res, (uint32_t)k & mr);
        } else if (!ty_vec_is_null(res, (uint32_t)k & mr) && res->data[(uint32_t)k & mr]) {
          ty_vec_append_from(out->children[0], el, (uint32_t)k);
        }
      }
      ty_vec_append_list_end(out);
      continue;
    }
    /* any_match: true if one is true, else NULL if one is NULL, else
     * false; all_match and none_match the same way around. */
    bool want = l->fn != L_ALL, hit = false, saw_null = false;
    for (int32_t k = b; k < e && !hit; k++) {
      uint32_t j = (uint32_t)k & mr;
      if (ty_vec_is_null(res, j))
        saw_null = true;
      else if ((res->data[j] != 0) == want)
        hit = true;
    }
    if (!hit && saw_null)
      ty_vec_append_null(out);
    else
      ty_vec_append_bool(out, l->fn == L_ANY ? hit : !hit);
  }
  for (; next < rows->nrows; next++) ty_vec_append_null(out);
  return FL_OK;
}
