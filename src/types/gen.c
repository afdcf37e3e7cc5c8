/*
 * gen.c - random rows from xoshiro256** seeded by splitmix64.
 *
 * Values are drawn per type from realistic ranges with a small share of
 * edge values (type extremes, NaN, infinities, -0.0, empty strings, strings
 * that need escaping, multi-byte UTF-8), so that readers and writers meet
 * the cases that break them. Map keys are unique within a map.
 */
#include "types/gen.h"

#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "base/time.h"
#include "types/value.h"

struct ty_gen {
  uint64_t s[4];
  ty_gen_opts_t o;
  uint64_t row;
};

static uint64_t splitmix(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t ty_gen_next(ty_gen_t *g) {
  uint64_t *s = g->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

static double unit(ty_gen_t *g) { return (double)(ty_gen_next(g) >> 11) * 0x1.0p-53; }
static uint64_t below(ty_gen_t *g, uint64_t n) { return n ? ty_gen_next(g) % n : 0; }
static int64_t between(ty_gen_t *g, int64_t lo, int64_t hi) {
  return lo + (int64_t)below(g, (uint64_t)(hi - lo) + 1);
}
static bool edge(ty_gen_t *g) { return unit(g) < g->o.edge_fraction; }

ty_gen_t *ty_gen_new(const ty_gen_opts_t *opts) {
  ty_gen_t *g = fl_calloc(1, sizeof *g);
  g->o = *opts;
  if (g->o.null_fraction < 0) g->o.null_fraction = 0.1;
  if (g->o.edge_fraction < 0) g->o.edge_fraction = 0.02;
  if (!g->o.max_string) g->o.max_string = 40;
  if (!g->o.max_elements) g->o.max_elements = 4;
  uint64_t x = opts->seed;
  for (int i = 0; i < 4; i++) g->s[i] = splitmix(&x);
  return g;
}

void ty_gen_free(ty_gen_t *g) { fl_free(g); }

/* Days of 1900-01-01 and 2100-12-31, and of 0001-01-01 and 9999-12-31. */
#define DAY_1900 (-25567)
#define DAY_2100 (47846)
#define DAY_MIN (-719162)
#define DAY_MAX (2932896)

static int64_t gen_days(ty_gen_t *g) {
  if (edge(g)) {
    int64_t e[] = {DAY_MIN, DAY_MAX, 0, -1};
    return e[below(g, 4)];
  }
  return between(g, DAY_1900, DAY_2100);
}

static void gen_string(ty_gen_t *g, char *buf, size_t *n) {
  static const char *const pieces[] = {"\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac", "\xf0\x9f\x99\x82",
                                       "\"", "\\", "\n", "\t", "\x01", ",", " "};
  static const char alpha[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
  size_t len = 0;
  if (edge(g)) {
    *n = 0;
    if (below(g, 2)) {
      /* A string of only awkward characters. */
      for (int i = 0; i < 4; i++) {
        const char *p = pieces[below(g, 10)];
        size_t pl = strlen(p);
        memcpy(buf + len, p, pl);
        len += pl;
      }
    }
    *n = len;
    return;
  }
  size_t target = below(g, 4) == 0 ? (size_t)below(g, g->o.max_string + 1) : (size_t)between(g, 1, 12);
  while (len < target) {
    if (below(g, 50) == 0) {
      const char *p = pieces[below(g, 10)];
      size_t pl = strlen(p);
      memcpy(buf + len, p, pl);
      len += pl;
    } else {
      buf[len++] = alpha[below(g, sizeof alpha - 1)];
    }
  }
  *n = len;
}

static void gen_value(ty_gen_t *g, ty_vec_t *v, bool required);

static void gen_primitive(ty_gen_t *g, ty_vec_t *v) {
  const ty_type_t *t = v->type;
  switch (t->kind) {
    case TY_BOOLEAN: ty_vec_append_bool(v, below(g, 2)); return;
    case TY_INT:
      if (edge(g)) {
        int32_t e[] = {INT32_MIN, INT32_MAX, 0, -1};
        ty_vec_append_i32(v, e[below(g, 4)]);
      } else {
        ty_vec_append_i32(v, below(g, 2) ? (int32_t)between(g, -1000, 1000) : (int32_t)ty_gen_next(g));
      }
      return;
    case TY_LONG:
      if (edge(g)) {
        int64_t e[] = {INT64_MIN, INT64_MAX, 0, -1};
        ty_vec_append_i64(v, e[below(g, 4)]);
      } else {
        ty_vec_append_i64(v, below(g, 2) ? between(g, -100000, 100000) : (int64_t)ty_gen_next(g));
      }
      return;
    case TY_FLOAT:
    case TY_DOUBLE: {
      double d;
      if (edge(g)) {
        double e[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, 1e-300, -1e300};
        d = e[below(g, 7)];
        if (t->kind == TY_FLOAT && fabs(d) > 0 && fabs(d) < 1e-30) d = 1e-30;
        if (t->kind == TY_FLOAT && isfinite(d) && fabs(d) > 1e30) d = -1e30;
      } else {
        d = (unit(g) - 0.5) * pow(10.0, (double)between(g, -3, 8));
      }
      if (t->kind == TY_FLOAT)
        ty_vec_append_f32(v, (float)d);
      else
        ty_vec_append_f64(v, d);
      return;
    }
    case TY_DECIMAL: {
      fl_i128 max = ty_decimal_max(t->precision);
      fl_i128 x;
      if (edge(g)) {
        fl_i128 e[] = {max, -max, 0};
        x = e[below(g, 3)];
      } else {
        unsigned __int128 r = ((unsigned __int128)ty_gen_next(g) << 64) | ty_gen_next(g);
        /* Mostly small magnitudes, sometimes the full precision. */
        fl_i128 lim = below(g, 2) ? (max < 1000000 ? max : 1000000) : max;
        x = (fl_i128)(r % (unsigned __int128)(lim + 1));
        if (below(g, 2)) x = -x;
      }
      ty_vec_append_i128(v, x);
      return;
    }
    case TY_DATE: ty_vec_append_i32(v, (int32_t)gen_days(g)); return;
    case TY_TIME:
      ty_vec_append_i64(v, edge(g) ? (below(g, 2) ? 0 : FL_MICROS_PER_DAY - 1)
                                   : between(g, 0, FL_MICROS_PER_DAY - 1));
      return;
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ: {
      int64_t days = gen_days(g);
      ty_vec_append_i64(v, days * FL_MICROS_PER_DAY + between(g, 0, FL_MICROS_PER_DAY - 1));
      return;
    }
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS: {
      /* Nanosecond timestamps cover 1677..2262; stay inside 1700..2250. */
      int64_t days = edge(g) ? between(g, -98000, -97000) : between(g, DAY_1900, DAY_2100);
      ty_vec_append_i64(v, days * 86400000000000LL + between(g, 0, 86400000000000LL - 1));
      return;
    }
    case TY_STRING: {
      char buf[1024];
      size_t n;
      gen_string(g, buf, &n);
      ty_vec_append_bytes(v, buf, n);
      return;
    }
    case TY_UUID: {
      uint8_t u[16];
      uint64_t a = ty_gen_next(g), b = ty_gen_next(g);
      memcpy(u, &a, 8);
      memcpy(u + 8, &b, 8);
      u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);
      u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
      ty_vec_append_bytes(v, u, 16);
      return;
    }
    case TY_FIXED:
    case TY_BINARY: {
      uint8_t buf[256];
      size_t n = t->kind == TY_FIXED ? (size_t)t->length : (size_t)below(g, 33);
      if (n > sizeof buf) n = sizeof buf;
      for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)ty_gen_next(g);
      if (t->kind == TY_FIXED && (size_t)t->length > sizeof buf) {
        uint8_t *big = fl_calloc(1, (size_t)t->length);
        memcpy(big, buf, n);
        ty_vec_append_bytes(v, big, (size_t)t->length);
        fl_free(big);
      } else {
        ty_vec_append_bytes(v, buf, n);
      }
      return;
    }
    default: return;
  }
}

static bool key_is_duplicate(ty_vec_t *keys, uint32_t first) {
  uint32_t last = keys->len - 1;
  ty_value_t nk = ty_value_from_vec(keys, last);
  for (uint32_t i = first; i < last; i++) {
    ty_value_t k = ty_value_from_vec(keys, i);
    if (ty_value_cmp(&k, &nk) == 0) return true;
  }
  return false;
}

/* Removes the last value of a primitive vector (used to redraw a key). */
static void pop_last(ty_vec_t *v) {
  v->len--;
  if (v->offsets) v->heap_len = (size_t)v->offsets[v->len];
}

static void gen_value(ty_gen_t *g, ty_vec_t *v, bool required) {
  if (!required && unit(g) < g->o.null_fraction) {
    ty_vec_append_null(v);
    return;
  }
  const ty_type_t *t = v->type;
  switch (t->kind) {
    case TY_STRUCT:
      for (uint32_t i = 0; i < t->nfields; i++) gen_value(g, v->children[i], t->fields[i].required);
      ty_vec_append_struct(v);
      return;
    case TY_LIST: {
      uint32_t n = (uint32_t)below(g, g->o.max_elements + 1);
      for (uint32_t i = 0; i < n; i++) gen_value(g, v->children[0], t->fields[0].required);
      ty_vec_append_list_end(v);
      return;
    }
    case TY_MAP: {
      uint32_t n = (uint32_t)below(g, g->o.max_elements + 1);
      ty_vec_t *keys = v->children[0];
      uint32_t first = keys->len;
      uint32_t made = 0;
      for (uint32_t i = 0; i < n; i++) {
        bool ok = false;
        for (int attempt = 0; attempt < 8 && !ok; attempt++) {
          gen_value(g, keys, true);
          if (ty_is_nested(keys->type) || !key_is_duplicate(keys, first))
            ok = true;
          else
            pop_last(keys);
        }
        if (!ok) break;
        gen_value(g, v->children[1], t->fields[1].required);
        made++;
      }
      (void)made;
      ty_vec_append_list_end(v);
      return;
    }
    default: gen_primitive(g, v); return;
  }
}

void ty_gen_fill(ty_gen_t *g, ty_batch_t *b, uint32_t rows) {
  const ty_field_t *fields = b->schema->root.fields;
  for (uint32_t r = 0; r < rows; r++, g->row++) {
    for (uint32_t c = 0; c < b->ncols; c++) {
      if (g->o.sequence_column && fields[c].type->kind == TY_LONG &&
          strcmp(fields[c].name, g->o.sequence_column) == 0)
        ty_vec_append_i64(b->cols[c], (int64_t)g->row);
      else
        gen_value(g, b->cols[c], fields[c].required);
    }
  }
  ty_batch_seal(b);
}
