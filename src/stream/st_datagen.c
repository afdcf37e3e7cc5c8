/*
 * st_datagen.c - the datagen source (layer 10, stream).
 *
 * Set-up turns the options into one generator spec per column (random or
 * sequence, bounds, lengths, null rate), checking every option against
 * the column's type. Producing is per row: row n seeds one random stream
 * per column from (seed, n, column), so rows do not depend on batch
 * boundaries and a seek to n reproduces them. The rate limit is a
 * schedule: row p + k is due k / rate seconds after the source started
 * (or was sought to p), so bursts and pauses of the consumer do not
 * change the long-run rate.
 */
#include "stream/st_datagen.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/time.h"
#include "format/text_parse.h"
#include "stream/st_options.h"
#include "stream/st_rand.h"

typedef struct dg_col {
  const ty_field_t *field;
  bool sequence;
  bool has_min, has_max;
  int64_t imin, imax; /* integer kinds; sequence start and end */
  double dmin, dmax;  /* float, double */
  fl_i128 qmin, qmax; /* decimal (unscaled) */
  uint32_t length;
  bool var_len;
  int64_t max_past_ms;
  double null_rate;
  const char *start_text, *end_text, *min_text, *max_text;
  struct dg_col *kids; /* struct fields, list element, map key and value */
  uint32_t nkids;
} dg_col_t;

struct st_datagen {
  const ty_schema_t *schema;
  dg_col_t *cols;
  uint32_t ncols;
  uint64_t seed;
  double rate; /* rows per second; 0: unlimited */
  uint64_t total;
  uint64_t pos;
  uint64_t sched_pos;  /* position the schedule started at */
  int64_t sched_t0_ns; /* -1: not started */
  fl_buf_t scratch;    /* one generated string or binary value */
};

static int bad(fl_err_t *err, const char *key, const char *value, const char *why) {
  return fl_err_set(err, FL_EINVALID, "datagen option '%s' = '%s': %s", key, value, why);
}

static bool is_int_kind(ty_kind_t k) { return k == TY_INT || k == TY_LONG; }

/* Parses a decimal bound by the column's own text rules. */
static bool parse_decimal(const ty_type_t *t, const char *s, fl_i128 *out) {
  ty_vec_t *v = ty_vec_new(t, 1);
  const char *why = tp_append(v, s, strlen(s));
  bool ok = !why && v->len == 1 && !ty_vec_is_null(v, 0);
  if (ok) *out = ty_vec_get_i128(v, 0);
  ty_vec_free(v);
  return ok;
}

static int set_col_option(dg_col_t *c, const char *prop, const char *key, const char *value,
                          fl_err_t *err) {
  ty_kind_t k = c->field->type->kind;
  if (strcmp(prop, "kind") == 0) {
    if (strcmp(value, "sequence") == 0)
      c->sequence = true;
    else if (strcmp(value, "random") == 0)
      c->sequence = false;
    else
      return bad(err, key, value, "expected 'random' or 'sequence'");
  } else if (strcmp(prop, "min") == 0) {
    c->min_text = value;
  } else if (strcmp(prop, "max") == 0) {
    c->max_text = value;
  } else if (strcmp(prop, "start") == 0) {
    c->start_text = value;
  } else if (strcmp(prop, "end") == 0) {
    c->end_text = value;
  } else if (strcmp(prop, "length") == 0) {
    uint64_t n;
    if (!st_u64_parse(value, &n) || n > (1u << 20))
      return bad(err, key, value, "expected a length from 0 to 1048576");
    if (k != TY_STRING && k != TY_BINARY)
      return bad(err, key, value, "only string and binary columns have a length");
    c->length = (uint32_t)n;
  } else if (strcmp(prop, "var-len") == 0) {
    if (!st_bool_parse(value, &c->var_len)) return bad(err, key, value, "expected true or false");
  } else if (strcmp(prop, "max-past") == 0) {
    uint64_t n;
    if (!st_u64_parse(value, &n)) return bad(err, key, value, "expected milliseconds");
    c->max_past_ms = (int64_t)n;
  } else if (strcmp(prop, "null-rate") == 0) {
    double d;
    if (!tp_parse_double(value, strlen(value), &d) || !(d >= 0 && d <= 1))
      return bad(err, key, value, "expected a number from 0 to 1");
    c->null_rate = d;
  } else {
    return fl_err_set(err, FL_EINVALID, "unknown datagen option '%s'", key);
  }
  return FL_OK;
}

static void free_kids(dg_col_t *c) {
  for (uint32_t i = 0; i < c->nkids; i++) free_kids(&c->kids[i]);
  fl_free(c->kids);
}

static int64_t int_min(ty_kind_t k) { return k == TY_INT ? INT32_MIN : INT64_MIN; }
static int64_t int_max(ty_kind_t k) { return k == TY_INT ? INT32_MAX : INT64_MAX; }

/* Turns the texts of bounds into values once all options are in. */
static int finish_col(dg_col_t *c, fl_err_t *err) {
  const ty_type_t *t = c->field->type;
  const char *name = c->field->name;
  if (c->sequence) {
    if (!c->start_text || !c->end_text)
      return fl_err_set(err, FL_EINVALID,
                        "datagen field '%s': a sequence needs fields.%s.start and fields.%s.end",
                        name, name, name);
    if (!is_int_kind(t->kind) && t->kind != TY_STRING)
      return fl_err_set(
          err, FL_EUNSUPPORTED,
          "datagen field '%s': sequences are for int, long and string columns, not %s", name,
          ty_kind_name(t->kind));
    int64_t lo = t->kind == TY_STRING ? INT64_MIN : int_min(t->kind);
    int64_t hi = t->kind == TY_STRING ? INT64_MAX : int_max(t->kind);
    if (!tp_parse_i64(c->start_text, strlen(c->start_text), &c->imin) || c->imin < lo ||
        c->imin > hi)
      return fl_err_set(err, FL_EINVALID, "datagen field '%s': start '%s' is not a %s", name,
                        c->start_text, ty_kind_name(t->kind));
    if (!tp_parse_i64(c->end_text, strlen(c->end_text), &c->imax) || c->imax < lo || c->imax > hi)
      return fl_err_set(err, FL_EINVALID, "datagen field '%s': end '%s' is not a %s", name,
                        c->end_text, ty_kind_name(t->kind));
    if (c->imax < c->imin)
      return fl_err_set(err, FL_EINVALID, "datagen field '%s': end %lld is before start %lld", name,
                        (long long)c->imax, (long long)c->imin);
    return FL_OK;
  }
  if (c->start_text || c->end_text)
    return fl_err_set(err, FL_EINVALID, "datagen field '%s': start and end are for kind 'sequence'",
                      name);
  if (ty_is_nested(t)) {
    /* Nested values use default generators: short strings, 0-3 elements. */
    c->nkids = t->nfields;
    c->kids = fl_calloc(t->nfields ? t->nfields : 1, sizeof *c->kids);
    for (uint32_t i = 0; i < t->nfields; i++) {
      c->kids[i].field = &t->fields[i];
      c->kids[i].length = 8;
      int rc = finish_col(&c->kids[i], err);
      if (rc) return rc;
    }
  }
  bool numeric =
      is_int_kind(t->kind) || t->kind == TY_FLOAT || t->kind == TY_DOUBLE || t->kind == TY_DECIMAL;
  if ((c->min_text || c->max_text) && !numeric)
    return fl_err_set(err, FL_EINVALID,
                      "datagen field '%s': min and max are for numeric columns, not %s", name,
                      ty_kind_name(t->kind));
  if (is_int_kind(t->kind)) {
    c->imin = int_min(t->kind);
    c->imax = int_max(t->kind);
    if (c->min_text &&
        (!tp_parse_i64(c->min_text, strlen(c->min_text), &c->imin) || c->imin < int_min(t->kind)))
      return fl_err_set(err, FL_EINVALID, "datagen field '%s': min '%s' is not a %s", name,
                        c->min_text, ty_kind_name(t->kind));
    if (c->max_text &&
        (!tp_parse_i64(c->max_text, strlen(c->max_text), &c->imax) || c->imax > int_max(t->kind)))
      return fl_err_set(err, FL_EINVALID, "datagen field '%s': max '%s' is not a %s", name,
                        c->max_text, ty_kind_name(t->kind));
    if (c->imax < c->imin)
      return fl_err_set(err, FL_EINVALID, "datagen field '%s': max is below min", name);
  } else if (t->kind == TY_FLOAT || t->kind == TY_DOUBLE) {
    c->dmin = 0;
    c->dmax = 1;
    if (c->min_text &&
        (!tp_parse_double(c->min_text, strlen(c->min_text), &c->dmin) || !isfinite(c->dmin)))
      return fl_err_set(err, FL_EINVALID, "datagen field '%s': min '%s' is not a number", name,
                        c->min_text);
    if (c->max_text &&
        (!tp_parse_double(c->max_text, strlen(c->max_text), &c->dmax) || !isfinite(c->dmax)))
      return fl_err_set(err, FL_EINVALID, "datagen field '%s': max '%s' is not a number", name,
                        c->max_text);
    if (c->dmax < c->dmin)
      return fl_err_set(err, FL_EINVALID, "datagen field '%s': max is below min", name);
  } else if (t->kind == TY_DECIMAL) {
    fl_i128 lim = 1;
    for (int i = 0; i < t->precision; i++) lim *= 10;
    c->qmin = -(lim - 1);
    c->qmax = lim - 1;
    if (c->min_text && !parse_decimal(t, c->min_text, &c->qmin))
      return fl_err_set(err, FL_EINVALID, "datagen field '%s': min '%s' is not a decimal(%d,%d)",
                        name, c->min_text, t->precision, t->scale);
    if (c->max_text && !parse_decimal(t, c->max_text, &c->qmax))
      return fl_err_set(err, FL_EINVALID, "datagen field '%s': max '%s' is not a decimal(%d,%d)",
                        name, c->max_text, t->precision, t->scale);
    if (c->qmax < c->qmin)
      return fl_err_set(err, FL_EINVALID, "datagen field '%s': max is below min", name);
  }
  return FL_OK;
}

int st_datagen_open(const ty_schema_t *s, const st_option_t *opts, uint32_t nopts,
                    st_datagen_t **out, fl_err_t *err) {
  *out = NULL;
  st_datagen_t *g = fl_calloc(1, sizeof *g);
  g->schema = s;
  g->ncols = s->root.nfields;
  g->cols = fl_calloc(g->ncols ? g->ncols : 1, sizeof *g->cols);
  g->rate = 10000;
  g->total = UINT64_MAX;
  g->sched_t0_ns = -1;
  for (uint32_t i = 0; i < g->ncols; i++) {
    g->cols[i].field = &s->root.fields[i];
    g->cols[i].length = 100;
  }
  int rc = FL_OK;
  for (uint32_t i = 0; i < nopts && !rc; i++) {
    const char *key = opts[i].key, *value = opts[i].value;
    if (strcmp(key, "connector") == 0) continue;
    if (strcmp(key, "rows-per-second") == 0) {
      double r;
      if (strcmp(value, "unlimited") == 0)
        g->rate = 0;
      else if (tp_parse_double(value, strlen(value), &r) && r >= 0 && isfinite(r))
        g->rate = r;
      else
        rc = bad(err, key, value, "expected a number of rows, 0 or 'unlimited'");
    } else if (strcmp(key, "number-of-rows") == 0) {
      if (!st_u64_parse(value, &g->total)) rc = bad(err, key, value, "expected a number of rows");
    } else if (strcmp(key, "seed") == 0) {
      if (!st_u64_parse(value, &g->seed)) rc = bad(err, key, value, "expected a non-negative integer");
    } else if (strncmp(key, "fields.", 7) == 0) {
      const char *name = key + 7, *dot = strrchr(name, '.');
      if (!dot || dot == name) {
        rc = fl_err_set(err, FL_EINVALID,
                        "datagen option '%s': expected fields.<column>.<property>", key);
        break;
      }
      uint32_t j = 0;
      for (; j < g->ncols; j++)
        if (strlen(g->cols[j].field->name) == (size_t)(dot - name) &&
            memcmp(g->cols[j].field->name, name, (size_t)(dot - name)) == 0)
          break;
      if (j == g->ncols)
        rc = fl_err_set(err, FL_EINVALID, "datagen option '%s': the table has no column '%.*s'",
                        key, (int)(dot - name), name);
      else
        rc = set_col_option(&g->cols[j], dot + 1, key, value, err);
    } else {
      rc = fl_err_set(err, FL_EINVALID, "unknown datagen option '%s'", key);
    }
  }
  for (uint32_t i = 0; i < g->ncols && !rc; i++) {
    rc = finish_col(&g->cols[i], err);
    if (!rc && g->cols[i].sequence) {
      uint64_t n = (uint64_t)(g->cols[i].imax - g->cols[i].imin) + 1;
      if (n != 0 && n < g->total) g->total = n;
    }
  }
  if (rc) {
    st_datagen_free(g);
    return rc;
  }
  *out = g;
  return FL_OK;
}

void st_datagen_free(st_datagen_t *g) {
  if (!g) return;
  for (uint32_t i = 0; i < g->ncols; i++) free_kids(&g->cols[i]);
  fl_free(g->cols);
  fl_buf_free(&g->scratch);
  fl_free(g);
}

uint64_t st_datagen_position(const st_datagen_t *g) { return g->pos; }
uint64_t st_datagen_total(const st_datagen_t *g) { return g->total; }

void st_datagen_seek(st_datagen_t *g, uint64_t row) {
  g->pos = row;
  g->sched_t0_ns = -1;
}

static const char hex[] = "0123456789abcdef";

static void gen_value(const dg_col_t *c, uint64_t row, st_rand_t *r, int64_t now_us,
                      fl_buf_t *scratch, ty_vec_t *v) {
  const ty_type_t *t = c->field->type;
  if (c->null_rate > 0 && st_rand_double(r) < c->null_rate && !c->field->required) {
    ty_vec_append_null(v);
    return;
  }
  if (c->sequence) {
    int64_t x = c->imin + (int64_t)row;
    if (t->kind == TY_INT)
      ty_vec_append_i32(v, (int32_t)x);
    else if (t->kind == TY_LONG)
      ty_vec_append_i64(v, x);
    else {
      char buf[24];
      int n = snprintf(buf, sizeof buf, "%lld", (long long)x);
      ty_vec_append_bytes(v, buf, (size_t)n);
    }
    return;
  }
  int64_t past_us;
  switch (t->kind) {
    case TY_BOOLEAN: ty_vec_append_bool(v, st_rand_next(r) & 1); break;
    case TY_INT:
    case TY_LONG: {
      uint64_t span = (uint64_t)c->imax - (uint64_t)c->imin;
      uint64_t x = span == UINT64_MAX ? st_rand_next(r) : st_rand_below(r, span + 1);
      int64_t val = (int64_t)((uint64_t)c->imin + x);
      if (t->kind == TY_INT)
        ty_vec_append_i32(v, (int32_t)val);
      else
        ty_vec_append_i64(v, val);
      break;
    }
    case TY_FLOAT:
    case TY_DOUBLE: {
      double d = c->dmin + st_rand_double(r) * (c->dmax - c->dmin);
      if (t->kind == TY_FLOAT)
        ty_vec_append_f32(v, (float)d);
      else
        ty_vec_append_f64(v, d);
      break;
    }
    case TY_DECIMAL: {
      unsigned __int128 span = (unsigned __int128)(c->qmax - c->qmin) + 1;
      unsigned __int128 x = ((unsigned __int128)st_rand_next(r) << 64) | st_rand_next(r);
      ty_vec_append_i128(v, c->qmin + (fl_i128)(x % span));
      break;
    }
    case TY_DATE:
    case TY_TIME:
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS: {
      past_us =
          c->max_past_ms > 0 ? (int64_t)st_rand_below(r, (uint64_t)c->max_past_ms * 1000 + 1) : 0;
      int64_t us = now_us - past_us;
      if (t->kind == TY_DATE)
        ty_vec_append_i32(v, (int32_t)fl_floordiv(us, 86400000000LL));
      else if (t->kind == TY_TIME)
        ty_vec_append_i64(v, fl_floormod(us, 86400000000LL));
      else if (t->kind == TY_TIMESTAMP_NS || t->kind == TY_TIMESTAMPTZ_NS)
        ty_vec_append_i64(v, us * 1000);
      else
        ty_vec_append_i64(v, us);
      break;
    }
    case TY_STRING:
    case TY_BINARY: {
      uint32_t len =
          c->var_len && c->length ? 1 + (uint32_t)st_rand_below(r, c->length) : c->length;
      fl_buf_clear(scratch);
      fl_buf_reserve(scratch, len);
      uint8_t *dst = scratch->data;
      if (t->kind == TY_STRING) {
        for (uint32_t i = 0; i < len; i += 16) {
          uint64_t x = st_rand_next(r);
          for (uint32_t j = 0; j < 16 && i + j < len; j++, x >>= 4)
            dst[i + j] = (uint8_t)hex[x & 15];
        }
      } else {
        for (uint32_t i = 0; i < len; i += 8) {
          uint64_t x = st_rand_next(r);
          for (uint32_t j = 0; j < 8 && i + j < len; j++, x >>= 8) dst[i + j] = (uint8_t)x;
        }
      }
      ty_vec_append_bytes(v, dst, len);
      break;
    }
    case TY_UUID:
    case TY_FIXED: {
      size_t n = (size_t)t->length;
      fl_buf_clear(scratch);
      fl_buf_reserve(scratch, n + 16);
      uint8_t *p = scratch->data;
      for (size_t i = 0; i < n; i += 8) {
        uint64_t x = st_rand_next(r);
        for (size_t j = 0; j < 8 && i + j < n; j++, x >>= 8) p[i + j] = (uint8_t)x;
      }
      if (t->kind == TY_UUID && n == 16) {
        p[6] = (uint8_t)((p[6] & 0x0f) | 0x40); /* version 4 */
        p[8] = (uint8_t)((p[8] & 0x3f) | 0x80); /* RFC 4122 variant */
      }
      ty_vec_append_bytes(v, p, n);
      break;
    }
    case TY_STRUCT:
      for (uint32_t i = 0; i < c->nkids; i++)
        gen_value(&c->kids[i], row, r, now_us, scratch, v->children[i]);
      ty_vec_append_struct(v);
      break;
    case TY_LIST:
    case TY_MAP: {
      /* One map entry when the key type has too few values to stay unique. */
      bool narrow_key = t->kind == TY_MAP && t->fields[0].type->kind == TY_BOOLEAN;
      uint64_t n = narrow_key ? st_rand_below(r, 2) : st_rand_below(r, 4);
      for (uint64_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < c->nkids; k++)
          gen_value(&c->kids[k], row, r, now_us, scratch, v->children[k]);
      ty_vec_append_list_end(v);
      break;
    }
    default: ty_vec_append_null(v); break;
  }
}

static void sleep_ns(int64_t ns) {
  struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

int st_datagen_next(st_datagen_t *g, ty_batch_t *b, uint32_t max, int timeout_ms, uint32_t *rows,
                    bool *end, fl_err_t *err) {
  (void)err;
  *rows = 0;
  *end = g->pos >= g->total;
  if (*end) return FL_OK;
  uint32_t room = TY_BATCH_ROWS > b->nrows ? TY_BATCH_ROWS - b->nrows : 0;
  if (max == 0 || max > room) max = room;
  uint64_t want = g->total - g->pos < max ? g->total - g->pos : max;
  if (g->rate > 0) {
    int64_t now = fl_monotonic_ns();
    if (g->sched_t0_ns < 0) {
      g->sched_t0_ns = now;
      g->sched_pos = g->pos;
    }
    int64_t deadline = now + (int64_t)timeout_ms * 1000000;
    for (;;) {
      double elapsed = (double)(now - g->sched_t0_ns) / 1e9;
      uint64_t due = g->sched_pos + (uint64_t)floor(elapsed * g->rate) + 1;
      if (due > g->pos) {
        if (due - g->pos < want) want = due - g->pos;
        break;
      }
      int64_t next_due =
          g->sched_t0_ns + (int64_t)ceil((double)(g->pos - g->sched_pos) / g->rate * 1e9);
      if (now >= deadline) return FL_OK;
      int64_t wait = (next_due < deadline ? next_due : deadline) - now;
      sleep_ns(wait > 0 ? wait : 1000);
      now = fl_monotonic_ns();
    }
  }
  int64_t now_us = fl_now_micros();
  for (uint64_t k = 0; k < want; k++) {
    uint64_t row = g->pos + k;
    for (uint32_t j = 0; j < g->ncols; j++) {
      st_rand_t r = st_rand_for(g->seed, row, j + 1);
      gen_value(&g->cols[j], row, &r, now_us, &g->scratch, b->cols[j]);
    }
  }
  g->pos += want;
  b->nrows += (uint32_t)want;
  *rows = (uint32_t)want;
  *end = g->pos >= g->total;
  return FL_OK;
}
