/*
 * ex_agg_array.c - array_agg(x): the values of a group, NULLs included, in
 * the order they arrived, as a list. The state owns a vector of the
 * element type, created at the group's first value; a group that saw no
 * rows gives NULL (as Trino's array_agg over no rows).
 */
#include "exec/ex_agg.h"
#include "exec/ex_spill.h"
#include "exec/ex_vec.h"

typedef struct arr_state {
  ty_vec_t *elems;
} arr_state_t;

static void arr_init(ex_agg_t *a, uint8_t *st) { ((arr_state_t *)st)->elems = NULL; }

static void arr_destroy(ex_agg_t *a, uint8_t *st) {
  arr_state_t *s = (arr_state_t *)st;
  if (s->elems) {
    a->heap_bytes -= (int64_t)ex_vec_bytes(s->elems);
    ty_vec_free(s->elems);
  }
  s->elems = NULL;
}

static ty_vec_t *elems_of(ex_agg_t *a, arr_state_t *s) {
  if (!s->elems) {
    s->elems = ty_vec_new(a->arg, 4);
    a->heap_bytes += (int64_t)ex_vec_bytes(s->elems);
  }
  return s->elems;
}

/* Appends rows of src to the state, keeping heap_bytes in step. */
static void arr_append(ex_agg_t *a, arr_state_t *s, const ty_vec_t *src, const uint32_t *rows,
                       uint32_t n) {
  ty_vec_t *v = elems_of(a, s);
  size_t before = ex_vec_bytes(v);
  ex_vec_gather(v, src, rows, n);
  a->heap_bytes += (int64_t)ex_vec_bytes(v) - (int64_t)before;
}

static int arr_update(ex_agg_t *a, uint8_t *states, size_t stride, const uint32_t *gids,
                      const ty_vec_t *arg, const uint32_t *rows, uint32_t n, fl_err_t *err) {
  /* Runs of rows of one group (common after sorting or with few groups)
   * go in one gather. */
  uint32_t k = 0;
  while (k < n) {
    uint32_t j = k + 1;
    while (j < n && gids[j] == gids[k]) j++;
    arr_append(a, (arr_state_t *)(states + (size_t)gids[k] * stride), arg, rows + k, j - k);
    k = j;
  }
  return FL_OK;
}

static int arr_combine(ex_agg_t *a, uint8_t *dst, const uint8_t *src, fl_err_t *err) {
  const arr_state_t *s = (const arr_state_t *)src;
  if (s->elems) arr_append(a, (arr_state_t *)dst, s->elems, NULL, s->elems->len);
  return FL_OK;
}

static int arr_finalize(ex_agg_t *a, const uint8_t *states, size_t stride, uint32_t n,
                        ty_vec_t *out, fl_err_t *err) {
  for (uint32_t g = 0; g < n; g++) {
    const arr_state_t *s = (const arr_state_t *)(states + (size_t)g * stride);
    if (!s->elems) {
      ty_vec_append_null(out);
      continue;
    }
    ex_vec_gather(out->children[0], s->elems, NULL, s->elems->len);
    ty_vec_append_list_end(out);
  }
  return FL_OK;
}

static void arr_serialize(ex_agg_t *a, const uint8_t *st, fl_buf_t *out) {
  const arr_state_t *s = (const arr_state_t *)st;
  fl_buf_append_u8(out, s->elems ? 1 : 0);
  if (s->elems) ex_vec_encode(s->elems, s->elems->len, out);
}

static int arr_deserialize(ex_agg_t *a, uint8_t *st, fl_rd_t *r, fl_err_t *err) {
  uint8_t has;
  int rc = fl_rd_u8(r, &has, err);
  if (rc || !has) return rc;
  ty_vec_t *tmp = ty_vec_new(a->arg, 4);
  rc = ex_vec_decode(r, tmp, err);
  if (!rc) arr_append(a, (arr_state_t *)st, tmp, NULL, tmp->len);
  ty_vec_free(tmp);
  return rc;
}

static const ex_agg_fn_t arr_fn = {
    .name = "array_agg",
    .state_size = sizeof(arr_state_t),
    .state_align = 8,
    .keeps_nulls = true,
    .init = arr_init,
    .update = arr_update,
    .combine = arr_combine,
    .finalize = arr_finalize,
    .serialize = arr_serialize,
    .deserialize = arr_deserialize,
    .destroy = arr_destroy,
};

int ex__agg_bind_array_agg(ex_agg_t *a, fl_err_t *err) {
  a->fn = &arr_fn;
  a->out = ty_list_new(a->arena, 0, false, a->arg);
  return FL_OK;
}
