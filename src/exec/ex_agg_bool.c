/*
 * ex_agg_bool.c - bool_and (alias every) and bool_or over boolean values.
 * The state is {seen, value}; NULLs are ignored, no values give NULL.
 */
#include "exec/ex_agg.h"

enum { B_AND, B_OR };

static void b_init(ex_agg_t *a, uint8_t *st) {
  st[0] = 0;
  st[1] = a->variant == B_AND ? 1 : 0;
}

static int b_update(ex_agg_t *a, uint8_t *states, size_t stride, const uint32_t *gids,
                    const ty_vec_t *arg, const uint32_t *rows, uint32_t n, fl_err_t *err) {
  const uint8_t *d = arg->data;
  if (a->variant == B_AND)
    EX_AGG_EACH_ROW({
      st[0] = 1;
      st[1] &= d[r] != 0;
    });
  else
    EX_AGG_EACH_ROW({
      st[0] = 1;
      st[1] |= d[r] != 0;
    });
  return FL_OK;
}

static int b_combine(ex_agg_t *a, uint8_t *dst, const uint8_t *src, fl_err_t *err) {
  if (!src[0]) return FL_OK;
  dst[1] = a->variant == B_AND ? (dst[1] & src[1]) : (dst[1] | src[1]);
  dst[0] = 1;
  return FL_OK;
}

static int b_finalize(ex_agg_t *a, const uint8_t *states, size_t stride, uint32_t n, ty_vec_t *out,
                      fl_err_t *err) {
  for (uint32_t g = 0; g < n; g++) {
    const uint8_t *st = states + (size_t)g * stride;
    if (st[0])
      ty_vec_append_bool(out, st[1]);
    else
      ty_vec_append_null(out);
  }
  return FL_OK;
}

static void b_serialize(ex_agg_t *a, const uint8_t *st, fl_buf_t *out) {
  fl_buf_append(out, st, 2);
}

static int b_deserialize(ex_agg_t *a, uint8_t *st, fl_rd_t *r, fl_err_t *err) {
  const uint8_t *p;
  int rc = fl_rd_bytes(r, 2, &p, err);
  if (rc) return rc;
  if (p[0] > 1 || p[1] > 1)
    return fl_err_set(err, FL_ECORRUPT, "%s: bad boolean aggregate state at byte %zu", r->what,
                      r->pos);
  memcpy(st, p, 2);
  return FL_OK;
}

static const ex_agg_fn_t bool_fn = {
    .name = "bool",
    .state_size = 2,
    .state_align = 1,
    .init = b_init,
    .update = b_update,
    .combine = b_combine,
    .finalize = b_finalize,
    .serialize = b_serialize,
    .deserialize = b_deserialize,
};

static int bind_bool(ex_agg_t *a, uint32_t v, fl_err_t *err) {
  if (a->arg->kind != TY_BOOLEAN)
    return fl_err_set(err, FL_EINVALID, "%s(%s) is not defined: the argument must be boolean",
                      a->name, ty_kind_name(a->arg->kind));
  a->fn = &bool_fn;
  a->variant = v;
  a->out = a->arg;
  return FL_OK;
}

int ex__agg_bind_bool_and(ex_agg_t *a, fl_err_t *err) { return bind_bool(a, B_AND, err); }
int ex__agg_bind_bool_or(ex_agg_t *a, fl_err_t *err) { return bind_bool(a, B_OR, err); }
