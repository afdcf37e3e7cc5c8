/*
 * pq_meta_read.c - decodes Parquet's Thrift compact-protocol structures
 * (footer, page headers, column and offset indexes) into the C structs of
 * pq_meta.h (layer 4, format/parquet).
 *
 * The input is untrusted: every varint, length and list size is checked
 * against the bytes that remain, nesting is limited to TR_MAX_DEPTH, and
 * unknown fields (of any type, including nested structs, lists, maps and
 * unions) are skipped so that files from newer writers still read. Strings
 * and binaries are copied into the arena, so the decoded structures do not
 * point into the input buffer.
 */
#include <inttypes.h>
#include <string.h>

#include "format/parquet/pq_meta.h"
#include "format/parquet/pq_thrift.h"

#define TR_MAX_DEPTH 64


typedef struct tr {
  const uint8_t *p;
  size_t n, pos;
  int depth;
  fl_arena_t *a;
  fl_err_t *err;
  const char *what;
} tr_t;

static int tr_fail(tr_t *t, const char *why) {
  fl_err_set(t->err, FL_ECORRUPT, "%s: %s at byte %zu", t->what, why, t->pos);
  return FL_ECORRUPT;
}

static int tr_byte(tr_t *t, uint8_t *out) {
  if (t->pos >= t->n) return tr_fail(t, "unexpected end");
  *out = t->p[t->pos++];
  return FL_OK;
}

static int tr_uvarint(tr_t *t, uint64_t *out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (t->pos >= t->n) return tr_fail(t, "truncated varint");
    uint8_t b = t->p[t->pos++];
    if (shift == 63 && (b & 0x7e)) return tr_fail(t, "varint overflows 64 bits");
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return FL_OK;
    }
  }
  return tr_fail(t, "varint too long");
}

static int tr_zz64(tr_t *t, int64_t *out) {
  uint64_t u = 0;
  int rc = tr_uvarint(t, &u);
  if (rc) return rc;
  *out = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
  return FL_OK;
}

static int tr_zz32(tr_t *t, int32_t *out) {
  int64_t v = 0;
  int rc = tr_zz64(t, &v);
  if (rc) return rc;
  if (v < INT32_MIN || v > INT32_MAX) return tr_fail(t, "i32 out of range");
  *out = (int32_t)v;
  return FL_OK;
}

/* Reads an integer field value of type ft (byte, i16, i32, i64) as i64. */
static int tr_int(tr_t *t, int ft, int64_t *out) {
  if (ft == CT_BYTE) {
    uint8_t b = 0;
    int rc = tr_byte(t, &b);
    *out = (int8_t)b;
    return rc;
  }
  if (ft == CT_I16 || ft == CT_I32 || ft == CT_I64) return tr_zz64(t, out);
  return tr_fail(t, "expected an integer");
}

static int tr_binary(tr_t *t, const uint8_t **p, size_t *n) {
  uint64_t len = 0;
  int rc = tr_uvarint(t, &len);
  if (rc) return rc;
  if (len > t->n - t->pos) return tr_fail(t, "binary length past the end");
  *p = t->p + t->pos;
  *n = (size_t)len;
  t->pos += (size_t)len;
  return FL_OK;
}

static int tr_string(tr_t *t, const char **out) {
  const uint8_t *p = NULL;
  size_t n = 0;
  int rc = tr_binary(t, &p, &n);
  if (rc) return rc;
  *out = fl_arena_strndup(t->a, (const char *)p, n);
  return FL_OK;
}

static int tr_bytes(tr_t *t, pq_bytes_t *out) {
  const uint8_t *p = NULL;
  size_t n = 0;
  int rc = tr_binary(t, &p, &n);
  if (rc) return rc;
  out->p = n ? fl_arena_memdup(t->a, p, n) : (const uint8_t *)"";
  out->n = n;
  return FL_OK;
}

/*
 * Reads a field header. *ft gets the type (CT_STOP at the end of the
 * struct), *fid the id, resolved against *last (the previous id).
 */
static int tr_field(tr_t *t, int *ft, int16_t *fid, int16_t *last) {
  uint8_t b = 0;
  int rc = tr_byte(t, &b);
  if (rc) return rc;
  *ft = b & 0x0f;
  if (*ft == CT_STOP) return FL_OK;
  int delta = b >> 4;
  if (delta) {
    int id = *last + delta;
    if (id > INT16_MAX) return tr_fail(t, "field id overflow");
    *fid = (int16_t)id;
  } else {
    int32_t id = 0;
    rc = tr_zz32(t, &id);
    if (rc) return rc;
    if (id < INT16_MIN || id > INT16_MAX) return tr_fail(t, "field id out of range");
    *fid = (int16_t)id;
  }
  if (*ft > CT_STRUCT) return tr_fail(t, "unknown field type");
  *last = *fid;
  return FL_OK;
}

/* Reads a list/set header; the size is checked against the bytes left
 * (every element takes at least one byte, except in lists of nothing). */
static int tr_list(tr_t *t, int *et, uint32_t *count) {
  uint8_t b = 0;
  int rc = tr_byte(t, &b);
  if (rc) return rc;
  uint64_t n = b >> 4;
  *et = b & 0x0f;
  if (n == 15) {
    rc = tr_uvarint(t, &n);
    if (rc) return rc;
  }
  if (*et == CT_STOP || *et > CT_STRUCT) {
    if (n == 0) return FL_OK;
    return tr_fail(t, "bad list element type");
  }
  if (n > t->n - t->pos) return tr_fail(t, "list size exceeds remaining bytes");
  *count = (uint32_t)n;
  return FL_OK;
}

static int tr_skip(tr_t *t, int ft);

static int tr_skip_struct(tr_t *t) {
  if (++t->depth > TR_MAX_DEPTH) return tr_fail(t, "nesting too deep");
  int16_t last = 0, fid;
  for (;;) {
    int ft;
    int rc = tr_field(t, &ft, &fid, &last);
    if (rc) return rc;
    if (ft == CT_STOP) break;
    rc = tr_skip(t, ft);
    if (rc) return rc;
  }
  t->depth--;
  return FL_OK;
}

static int tr_skip(tr_t *t, int ft) {
  uint64_t u = 0;
  switch (ft) {
    case CT_TRUE:
    case CT_FALSE: return FL_OK; /* value is in the field header */
    case CT_BYTE: {
      uint8_t b = 0;
      return tr_byte(t, &b);
    }
    case CT_I16:
    case CT_I32:
    case CT_I64: return tr_uvarint(t, &u);
    case CT_DOUBLE:
      if (t->n - t->pos < 8) return tr_fail(t, "truncated double");
      t->pos += 8;
      return FL_OK;
    case CT_BINARY: {
      const uint8_t *p = NULL;
      size_t n = 0;
      return tr_binary(t, &p, &n);
    }
    case CT_LIST:
    case CT_SET: {
      int et = 0;
      uint32_t n = 0;
      int rc = tr_list(t, &et, &n);
      if (rc) return rc;
      if (++t->depth > TR_MAX_DEPTH) return tr_fail(t, "nesting too deep");
      for (uint32_t i = 0; i < n; i++) {
        if (et == CT_TRUE || et == CT_FALSE) {
          uint8_t b = 0;
          rc = tr_byte(t, &b);
        } else {
          rc = tr_skip(t, et);
        }
        if (rc) return rc;
      }
      t->depth--;
      return FL_OK;
    }
    case CT_MAP: {
      int rc = tr_uvarint(t, &u);
      if (rc) return rc;
      if (u == 0) return FL_OK;
      if (u > (t->n - t->pos) / 2) return tr_fail(t, "map size exceeds remaining bytes");
      uint8_t kv = 0;
      rc = tr_byte(t, &kv);
      if (rc) return rc;
      int kt = kv >> 4, vt = kv & 0x0f;
      if (kt == CT_STOP || kt > CT_STRUCT || vt == CT_STOP || vt > CT_STRUCT)
        return tr_fail(t, "bad map element type");
      if (++t->depth > TR_MAX_DEPTH) return tr_fail(t, "nesting too deep");
      for (uint64_t i = 0; i < u; i++) {
        for (int k = 0; k < 2; k++) {
          int et = k ? vt : kt;
          if (et == CT_TRUE || et == CT_FALSE) {
            uint8_t b = 0;
            rc = tr_byte(t, &b);
          } else {
            rc = tr_skip(t, et);
          }
          if (rc) return rc;
        }
      }
      t->depth--;
      return FL_OK;
    }
    case CT_STRUCT: return tr_skip_struct(t);
    default: return tr_fail(t, "unknown type");
  }
}

/* Helpers for struct decoders: each decoder loops over fields, handles the
 * ones it knows when their type matches, and skips the rest. */
#define TR_BEGIN(t)                                              \
  if (++(t)->depth > TR_MAX_DEPTH) return tr_fail(t, "nesting too deep"); \
  int16_t tr_last_ = 0, fid = 0;                                 \
  int ft = 0, rc = 0;                                            \
  for (;;) {                                                     \
    rc = tr_field(t, &ft, &fid, &tr_last_);                      \
    if (rc) return rc;                                           \
    if (ft == CT_STOP) break;

#define TR_END(t)         \
  if (rc) return rc;      \
  }                       \
  (t)->depth--;

static bool is_int(int ft) { return ft == CT_BYTE || ft == CT_I16 || ft == CT_I32 || ft == CT_I64; }
static bool is_bool(int ft) { return ft == CT_TRUE || ft == CT_FALSE; }

static int rd_i32(tr_t *t, int ft, int32_t *out) {
  int64_t v = 0;
  int rc = tr_int(t, ft, &v);
  if (rc) return rc;
  if (v < INT32_MIN || v > INT32_MAX) return tr_fail(t, "i32 out of range");
  *out = (int32_t)v;
  return FL_OK;
}

static int rd_enum(tr_t *t, int ft, int lo, int hi, int *out) {
  int32_t v = 0;
  int rc = rd_i32(t, ft, &v);
  if (rc) return rc;
  if (v < lo || v > hi) return tr_fail(t, "enum value out of range");
  *out = v;
  return FL_OK;
}

/* ---- structures ---- */

static int rd_statistics(tr_t *t, pq_statistics_t *s) {
  memset(s, 0, sizeof *s);
  TR_BEGIN(t)
  if (fid == 1 && ft == CT_BINARY) {
    s->has_max = true;
    rc = tr_bytes(t, &s->max);
  } else if (fid == 2 && ft == CT_BINARY) {
    s->has_min = true;
    rc = tr_bytes(t, &s->min);
  } else if (fid == 3 && is_int(ft)) {
    s->has_null_count = true;
    rc = tr_int(t, ft, &s->null_count);
  } else if (fid == 4 && is_int(ft)) {
    s->has_distinct_count = true;
    rc = tr_int(t, ft, &s->distinct_count);
  } else if (fid == 5 && ft == CT_BINARY) {
    s->has_max_value = true;
    rc = tr_bytes(t, &s->max_value);
  } else if (fid == 6 && ft == CT_BINARY) {
    s->has_min_value = true;
    rc = tr_bytes(t, &s->min_value);
  } else if (fid == 7 && is_bool(ft)) {
    s->has_is_max_value_exact = true;
    s->is_max_value_exact = ft == CT_TRUE;
  } else if (fid == 8 && is_bool(ft)) {
    s->has_is_min_value_exact = true;
    s->is_min_value_exact = ft == CT_TRUE;
  } else {
    rc = tr_skip(t, ft);
  }
  TR_END(t)
  return FL_OK;
}

/* TimeUnit union: returns the member id as the unit. */
static int rd_time_unit(tr_t *t, pq_time_unit_t *unit) {
  TR_BEGIN(t)
  if (fid >= 1 && fid <= 3 && ft == CT_STRUCT) *unit = (pq_time_unit_t)fid;
  rc = tr_skip(t, ft);
  TR_END(t)
  return FL_OK;
}

static int rd_time_like(tr_t *t, pq_logical_type_t *lt) {
  TR_BEGIN(t)
  if (fid == 1 && is_bool(ft))
    lt->is_adjusted_to_utc = ft == CT_TRUE;
  else if (fid == 2 && ft == CT_STRUCT)
    rc = rd_time_unit(t, &lt->unit);
  else
    rc = tr_skip(t, ft);
  TR_END(t)
  return FL_OK;
}

static int rd_decimal_type(tr_t *t, pq_logical_type_t *lt) {
  TR_BEGIN(t)
  if (fid == 1 && is_int(ft))
    rc = rd_i32(t, ft, &lt->decimal_scale);
  else if (fid == 2 && is_int(ft))
    rc = rd_i32(t, ft, &lt->decimal_precision);
  else
    rc = tr_skip(t, ft);
  TR_END(t)
  return FL_OK;
}

static int rd_int_type(tr_t *t, pq_logical_type_t *lt) {
  TR_BEGIN(t)
  if (fid == 1 && is_int(ft)) {
    int64_t v = 0;
    rc = tr_int(t, ft, &v);
    if (!rc && v != 8 && v != 16 && v != 32 && v != 64) rc = tr_fail(t, "bad integer bit width");
    lt->int_bit_width = (int8_t)v;
  } else if (fid == 2 && is_bool(ft)) {
    lt->int_is_signed = ft == CT_TRUE;
  } else {
    rc = tr_skip(t, ft);
  }
  TR_END(t)
  return FL_OK;
}

static int rd_logical_type(tr_t *t, pq_logical_type_t *lt) {
  memset(lt, 0, sizeof *lt);
  TR_BEGIN(t)
  if (ft != CT_STRUCT) {
    rc = tr_skip(t, ft);
  } else {
    switch (fid) {
      case PQ_LT_DECIMAL:
        lt->kind = PQ_LT_DECIMAL;
        rc = rd_decimal_type(t, lt);
        break;
      case PQ_LT_TIME:
      case PQ_LT_TIMESTAMP:
        lt->kind = (pq_logical_kind_t)fid;
        rc = rd_time_like(t, lt);
        break;
      case PQ_LT_INTEGER:
        lt->kind = PQ_LT_INTEGER;
        rc = rd_int_type(t, lt);
        break;
      case PQ_LT_STRING:
      case PQ_LT_MAP:
      case PQ_LT_LIST:
      case PQ_LT_ENUM:
      case PQ_LT_DATE:
      case PQ_LT_UNKNOWN:
      case PQ_LT_JSON:
      case PQ_LT_BSON:
      case PQ_LT_UUID:
      case PQ_LT_FLOAT16:
      case PQ_LT_VARIANT:
      case PQ_LT_GEOMETRY:
      case PQ_LT_GEOGRAPHY:
        lt->kind = (pq_logical_kind_t)fid;
        rc = tr_skip(t, ft);
        break;
      default:
        /* A logical type newer than this reader: leave kind NONE so the
         * column reads as its physical type. */
        lt->kind = PQ_LT_NONE;
        rc = tr_skip(t, ft);
        break;
    }
  }
  TR_END(t)
  return FL_OK;
}

static int rd_schema_element(tr_t *t, pq_schema_element_t *e) {
  memset(e, 0, sizeof *e);
  e->name = "";
  int v = 0;
  TR_BEGIN(t)
  if (fid == 1 && is_int(ft)) {
    e->has_type = true;
    rc = rd_enum(t, ft, 0, 7, &v);
    e->type = (pq_type_t)v;
  } else if (fid == 2 && is_int(ft)) {
    e->has_type_length = true;
    rc = rd_i32(t, ft, &e->type_length);
  } else if (fid == 3 && is_int(ft)) {
    e->has_repetition = true;
    rc = rd_enum(t, ft, 0, 2, &v);
    e->repetition = (pq_repetition_t)v;
  } else if (fid == 4 && ft == CT_BINARY) {
    rc = tr_string(t, &e->name);
  } else if (fid == 5 && is_int(ft)) {
    e->has_num_children = true;
    rc = rd_i32(t, ft, &e->num_children);
    if (!rc && e->num_children < 0) rc = tr_fail(t, "negative num_children");
  } else if (fid == 6 && is_int(ft)) {
    int32_t ct = -1;
    rc = rd_i32(t, ft, &ct);
    /* Unknown converted types are ignored rather than rejected. */
    if (!rc && ct >= 0 && ct <= PQ_CT_INTERVAL) {
      e->has_converted_type = true;
      e->converted_type = (pq_converted_type_t)ct;
    }
  } else if (fid == 7 && is_int(ft)) {
    e->has_scale = true;
    rc = rd_i32(t, ft, &e->scale);
  } else if (fid == 8 && is_int(ft)) {
    e->has_precision = true;
    rc = rd_i32(t, ft, &e->precision);
  } else if (fid == 9 && is_int(ft)) {
    e->has_field_id = true;
    rc = rd_i32(t, ft, &e->field_id);
  } else if (fid == 10 && ft == CT_STRUCT) {
    rc = rd_logical_type(t, &e->logical_type);
    e->has_logical_type = e->logical_type.kind != PQ_LT_NONE;
  } else {
    rc = tr_skip(t, ft);
  }
  TR_END(t)
  return FL_OK;
}

static int rd_data_page_header(tr_t *t, pq_data_page_header_t *h) {
  memset(h, 0, sizeof *h);
  int v = 0;
  TR_BEGIN(t)
  if (fid == 1 && is_int(ft)) {
    rc = rd_i32(t, ft, &h->num_values);
  } else if (fid >= 2 && fid <= 4 && is_int(ft)) {
    rc = rd_enum(t, ft, 0, 9, &v);
    if (fid == 2) h->encoding = (pq_encoding_t)v;
    if (fid == 3) h->definition_level_encoding = (pq_encoding_t)v;
    if (fid == 4) h->repetition_level_encoding = (pq_encoding_t)v;
  } else if (fid == 5 && ft == CT_STRUCT) {
    h->has_statistics = true;
    rc = rd_statistics(t, &h->statistics);
  } else {
    rc = tr_skip(t, ft);
  }
  TR_END(t)
  return FL_OK;
}

static int rd_dict_page_header(tr_t *t, pq_dictionary_page_header_t *h) {
  memset(h, 0, sizeof *h);
  int v = 0;
  TR_BEGIN(t)
  if (fid == 1 && is_int(ft)) {
    rc = rd_i32(t, ft, &h->num_values);
  } else if (fid == 2 && is_int(ft)) {
    rc = rd_enum(t, ft, 0, 9, &v);
    h->encoding = (pq_encoding_t)v;
  } else if (fid == 3 && is_bool(ft)) {
    h->has_is_sorted = true;
    h->is_sorted = ft == CT_TRUE;
  } else {
    rc = tr_skip(t, ft);
  }
  TR_END(t)
  return FL_OK;
}

static int rd_data_page_header_v2(tr_t *t, pq_data_page_header_v2_t *h) {
  memset(h, 0, sizeof *h);
  h->is_compressed = true;
  int v = 0;
  TR_BEGIN(t)
  if (fid == 1 && is_int(ft)) {
    rc = rd_i32(t, ft, &h->num_values);
  } else if (fid == 2 && is_int(ft)) {
    rc = rd_i32(t, ft, &h->num_nulls);
  } else if (fid == 3 && is_int(ft)) {
    rc = rd_i32(t, ft, &h->num_rows);
  } else if (fid == 4 && is_int(ft)) {
    rc = rd_enum(t, ft, 0, 9, &v);
    h->encoding = (pq_encoding_t)v;
  } else if (fid == 5 && is_int(ft)) {
    rc = rd_i32(t, ft, &h->definition_levels_byte_length);
  } else if (fid == 6 && is_int(ft)) {
    rc = rd_i32(t, ft, &h->repetition_levels_byte_length);
  } else if (fid == 7 && is_bool(ft)) {
    h->is_compressed = ft == CT_TRUE;
  } else if (fid == 8 && ft == CT_STRUCT) {
    h->has_statistics = true;
    rc = rd_statistics(t, &h->statistics);
  } else {
    rc = tr_skip(t, ft);
  }
  TR_END(t)
  return FL_OK;
}

static int rd_page_header(tr_t *t, pq_page_header_t *h) {
  memset(h, 0, sizeof *h);
  int v = 0;
  bool has_type = false, has_usize = false, has_csize = false;
  TR_BEGIN(t)
  if (fid == 1 && is_int(ft)) {
    rc = rd_enum(t, ft, 0, 3, &v);
    h->type = (pq_page_type_t)v;
    has_type = true;
  } else if (fid == 2 && is_int(ft)) {
    rc = rd_i32(t, ft, &h->uncompressed_page_size);
    has_usize = true;
  } else if (fid == 3 && is_int(ft)) {
    rc = rd_i32(t, ft, &h->compressed_page_size);
    has_csize = true;
  } else if (fid == 4 && is_int(ft)) {
    h->has_crc = true;
    int64_t c = 0;
    rc = tr_int(t, ft, &c);
    h->crc = (int32_t)(uint32_t)c;
  } else if (fid == 5 && ft == CT_STRUCT) {
    h->has_data_page_header = true;
    rc = rd_data_page_header(t, &h->data_page_header);
  } else if (fid == 7 && ft == CT_STRUCT) {
    h->has_dictionary_page_header = true;
    rc = rd_dict_page_header(t, &h->dictionary_page_header);
  } else if (fid == 8 && ft == CT_STRUCT) {
    h->has_data_page_header_v2 = true;
    rc = rd_data_page_header_v2(t, &h->data_page_header_v2);
  } else {
    rc = tr_skip(t, ft);
  }
  TR_END(t)
  if (!has_type || !has_usize || !has_csize) return tr_fail(t, "page header misses a required field");
  if (h->uncompressed_page_size < 0 || h->compressed_page_size < 0)
    return tr_fail(t, "negative page size");
  return FL_OK;
}

static int rd_key_value(tr_t *t, pq_key_value_t *kv) {
  kv->key = "";
  kv->value = NULL;
  TR_BEGIN(t)
  if (fid == 1 && ft == CT_BINARY)
    rc = tr_string(t, &kv->key);
  else if (fid == 2 && ft == CT_BINARY)
    rc = tr_string(t, &kv->value);
  else
    rc = tr_skip(t, ft);
  TR_END(t)
  return FL_OK;
}

static int rd_key_values(tr_t *t, uint32_t *n, pq_key_value_t **out) {
  int et = 0;
  uint32_t cnt = 0;
  int rc = tr_list(t, &et, &cnt);
  if (rc) return rc;
  if (cnt && et != CT_STRUCT) return tr_fail(t, "key_value_metadata is not a list of structs");
  *out = fl_arena_zalloc(t->a, (cnt ? cnt : 1) * sizeof **out);
  for (uint32_t i = 0; i < cnt; i++)
    if ((rc = rd_key_value(t, &(*out)[i]))) return rc;
  *n = cnt;
  return FL_OK;
}

static int rd_page_encoding_stats(tr_t *t, pq_page_encoding_stats_t *s) {
  int v = 0;
  TR_BEGIN(t)
  if (fid == 1 && is_int(ft)) {
    rc = rd_enum(t, ft, 0, 3, &v);
    s->page_type = (pq_page_type_t)v;
  } else if (fid == 2 && is_int(ft)) {
    rc = rd_enum(t, ft, 0, 9, &v);
    s->encoding = (pq_encoding_t)v;
  } else if (fid == 3 && is_int(ft)) {
    rc = rd_i32(t, ft, &s->count);
  } else {
    rc = tr_skip(t, ft);
  }
  TR_END(t)
  return FL_OK;
}

static int rd_column_meta(tr_t *t, pq_column_meta_t *m) {
  memset(m, 0, sizeof *m);
  int v = 0, et = 0;
  uint32_t cnt;
  TR_BEGIN(t)
  if (fid == 1 && is_int(ft)) {
    rc = rd_enum(t, ft, 0, 7, &v);
    m->type = (pq_type_t)v;
  } else if (fid == 2 && ft == CT_LIST) {
    cnt = 0;
    if ((rc = tr_list(t, &et, &cnt))) return rc;
    if (cnt && !is_int(et)) return tr_fail(t, "encodings is not a list of integers");
    m->encodings = fl_arena_zalloc(t->a, (cnt ? cnt : 1) * sizeof *m->encodings);
    for (uint32_t i = 0; i < cnt && !rc; i++) {
      int32_t e = 0;
      rc = rd_i32(t, et, &e);
      m->encodings[i] = (pq_encoding_t)e;
    }
    m->nencodings = cnt;
  } else if (fid == 3 && ft == CT_LIST) {
    cnt = 0;
    if ((rc = tr_list(t, &et, &cnt))) return rc;
    if (cnt && et != CT_BINARY) return tr_fail(t, "path_in_schema is not a list of strings");
    m->path_in_schema = fl_arena_zalloc(t->a, (cnt ? cnt : 1) * sizeof *m->path_in_schema);
    for (uint32_t i = 0; i < cnt && !rc; i++) rc = tr_string(t, &m->path_in_schema[i]);
    m->npath = cnt;
  } else if (fid == 4 && is_int(ft)) {
    rc = rd_enum(t, ft, 0, 7, &v);
    m->codec = (pq_codec_t)v;
  } else if (fid == 5 && is_int(ft)) {
    rc = tr_int(t, ft, &m->num_values);
  } else if (fid == 6 && is_int(ft)) {
    rc = tr_int(t, ft, &m->total_uncompressed_size);
  } else if (fid == 7 && is_int(ft)) {
    rc = tr_int(t, ft, &m->total_compressed_size);
  } else if (fid == 8 && ft == CT_LIST) {
    rc = rd_key_values(t, &m->nkey_value, &m->key_value_metadata);
  } else if (fid == 9 && is_int(ft)) {
    rc = tr_int(t, ft, &m->data_page_offset);
  } else if (fid == 10 && is_int(ft)) {
    m->has_index_page_offset = true;
    rc = tr_int(t, ft, &m->index_page_offset);
  } else if (fid == 11 && is_int(ft)) {
    m->has_dictionary_page_offset = true;
    rc = tr_int(t, ft, &m->dictionary_page_offset);
  } else if (fid == 12 && ft == CT_STRUCT) {
    m->has_statistics = true;
    rc = rd_statistics(t, &m->statistics);
  } else if (fid == 13 && ft == CT_LIST) {
    cnt = 0;
    if ((rc = tr_list(t, &et, &cnt))) return rc;
    if (cnt && et != CT_STRUCT) return tr_fail(t, "encoding_stats is not a list of structs");
    m->encoding_stats = fl_arena_zalloc(t->a, (cnt ? cnt : 1) * sizeof *m->encoding_stats);
    for (uint32_t i = 0; i < cnt && !rc; i++) rc = rd_page_encoding_stats(t, &m->encoding_stats[i]);
    m->nencoding_stats = cnt;
  } else if (fid == 14 && is_int(ft)) {
    m->has_bloom_filter_offset = true;
    rc = tr_int(t, ft, &m->bloom_filter_offset);
  } else if (fid == 15 && is_int(ft)) {
    m->has_bloom_filter_length = true;
    rc = rd_i32(t, ft, &m->bloom_filter_length);
  } else {
    rc = tr_skip(t, ft);
  }
  TR_END(t)
  return FL_OK;
}

static int rd_column_chunk(tr_t *t, pq_column_chunk_t *c) {
  memset(c, 0, sizeof *c);
  TR_BEGIN(t)
  if (fid == 1 && ft == CT_BINARY) {
    rc = tr_string(t, &c->file_path);
  } else if (fid == 2 && is_int(ft)) {
    rc = tr_int(t, ft, &c->file_offset);
  } else if (fid == 3 && ft == CT_STRUCT) {
    c->has_meta_data = true;
    rc = rd_column_meta(t, &c->meta_data);
  } else if (fid == 4 && is_int(ft)) {
    c->has_offset_index = true;
    rc = tr_int(t, ft, &c->offset_index_offset);
  } else if (fid == 5 && is_int(ft)) {
    rc = rd_i32(t, ft, &c->offset_index_length);
  } else if (fid == 6 && is_int(ft)) {
    c->has_column_index = true;
    rc = tr_int(t, ft, &c->column_index_offset);
  } else if (fid == 7 && is_int(ft)) {
    rc = rd_i32(t, ft, &c->column_index_length);
  } else if (fid == 8 || fid == 9) {
    c->is_encrypted = true;
    rc = tr_skip(t, ft);
  } else {
    rc = tr_skip(t, ft);
  }
  TR_END(t)
  return FL_OK;
}

static int rd_sorting_column(tr_t *t, pq_sorting_column_t *s) {
  TR_BEGIN(t)
  if (fid == 1 && is_int(ft))
    rc = rd_i32(t, ft, &s->column_idx);
  else if (fid == 2 && is_bool(ft))
    s->descending = ft == CT_TRUE;
  else if (fid == 3 && is_bool(ft))
    s->nulls_first = ft == CT_TRUE;
  else
    rc = tr_skip(t, ft);
  TR_END(t)
  return FL_OK;
}

static int rd_row_group(tr_t *t, pq_row_group_t *g) {
  memset(g, 0, sizeof *g);
  int et = 0;
  uint32_t cnt;
  TR_BEGIN(t)
  if (fid == 1 && ft == CT_LIST) {
    cnt = 0;
    if ((rc = tr_list(t, &et, &cnt))) return rc;
    if (cnt && et != CT_STRUCT) return tr_fail(t, "columns is not a list of structs");
    g->columns = fl_arena_zalloc(t->a, (cnt ? cnt : 1) * sizeof *g->columns);
    for (uint32_t i = 0; i < cnt && !rc; i++) rc = rd_column_chunk(t, &g->columns[i]);
    g->ncolumns = cnt;
  } else if (fid == 2 && is_int(ft)) {
    rc = tr_int(t, ft, &g->total_byte_size);
  } else if (fid == 3 && is_int(ft)) {
    rc = tr_int(t, ft, &g->num_rows);
  } else if (fid == 4 && ft == CT_LIST) {
    cnt = 0;
    if ((rc = tr_list(t, &et, &cnt))) return rc;
    if (cnt && et != CT_STRUCT) return tr_fail(t, "sorting_columns is not a list of structs");
    g->sorting_columns = fl_arena_zalloc(t->a, (cnt ? cnt : 1) * sizeof *g->sorting_columns);
    for (uint32_t i = 0; i < cnt && !rc; i++) rc = rd_sorting_column(t, &g->sorting_columns[i]);
    g->nsorting_columns = cnt;
  } else if (fid == 5 && is_int(ft)) {
    g->has_file_offset = true;
    rc = tr_int(t, ft, &g->file_offset);
  } else if (fid == 6 && is_int(ft)) {
    g->has_total_compressed_size = true;
    rc = tr_int(t, ft, &g->total_compressed_size);
  } else if (fid == 7 && is_int(ft)) {
    int64_t o = 0;
    g->has_ordinal = true;
    rc = tr_int(t, ft, &o);
    g->ordinal = (int16_t)o;
  } else {
    rc = tr_skip(t, ft);
  }
  TR_END(t)
  if (g->num_rows < 0) return tr_fail(t, "negative num_rows in row group");
  return FL_OK;
}

static int rd_file_meta(tr_t *t, pq_file_meta_t *m) {
  memset(m, 0, sizeof *m);
  int et = 0;
  uint32_t cnt;
  bool has_schema = false;
  TR_BEGIN(t)
  if (fid == 1 && is_int(ft)) {
    rc = rd_i32(t, ft, &m->version);
  } else if (fid == 2 && ft == CT_LIST) {
    cnt = 0;
    if ((rc = tr_list(t, &et, &cnt))) return rc;
    if (cnt && et != CT_STRUCT) return tr_fail(t, "schema is not a list of structs");
    m->schema = fl_arena_zalloc(t->a, (cnt ? cnt : 1) * sizeof *m->schema);
    for (uint32_t i = 0; i < cnt && !rc; i++) rc = rd_schema_element(t, &m->schema[i]);
    m->nschema = cnt;
    has_schema = true;
  } else if (fid == 3 && is_int(ft)) {
    rc = tr_int(t, ft, &m->num_rows);
  } else if (fid == 4 && ft == CT_LIST) {
    cnt = 0;
    if ((rc = tr_list(t, &et, &cnt))) return rc;
    if (cnt && et != CT_STRUCT) return tr_fail(t, "row_groups is not a list of structs");
    m->row_groups = fl_arena_zalloc(t->a, (cnt ? cnt : 1) * sizeof *m->row_groups);
    for (uint32_t i = 0; i < cnt && !rc; i++) rc = rd_row_group(t, &m->row_groups[i]);
    m->nrow_groups = cnt;
  } else if (fid == 5 && ft == CT_LIST) {
    rc = rd_key_values(t, &m->nkey_value, &m->key_value_metadata);
  } else if (fid == 6 && ft == CT_BINARY) {
    rc = tr_string(t, &m->created_by);
  } else if (fid == 7 && ft == CT_LIST) {
    cnt = 0;
    if ((rc = tr_list(t, &et, &cnt))) return rc;
    for (uint32_t i = 0; i < cnt && !rc; i++) rc = tr_skip(t, et);
    m->ncolumn_orders = cnt;
  } else if (fid == 8) {
    m->has_encryption_algorithm = true;
    rc = tr_skip(t, ft);
  } else {
    rc = tr_skip(t, ft);
  }
  TR_END(t)
  if (!has_schema || m->nschema == 0) return tr_fail(t, "file metadata has no schema");
  if (m->num_rows < 0) return tr_fail(t, "negative num_rows");
  return FL_OK;
}

static int rd_page_location(tr_t *t, pq_page_location_t *l) {
  TR_BEGIN(t)
  if (fid == 1 && is_int(ft))
    rc = tr_int(t, ft, &l->offset);
  else if (fid == 2 && is_int(ft))
    rc = rd_i32(t, ft, &l->compressed_page_size);
  else if (fid == 3 && is_int(ft))
    rc = tr_int(t, ft, &l->first_row_index);
  else
    rc = tr_skip(t, ft);
  TR_END(t)
  return FL_OK;
}

static int rd_i64_list(tr_t *t, uint32_t *n, int64_t **out) {
  int et = 0;
  uint32_t cnt = 0;
  int rc = tr_list(t, &et, &cnt);
  if (rc) return rc;
  if (cnt && !is_int(et)) return tr_fail(t, "expected a list of integers");
  *out = fl_arena_zalloc(t->a, (cnt ? cnt : 1) * sizeof **out);
  for (uint32_t i = 0; i < cnt; i++)
    if ((rc = tr_int(t, et, &(*out)[i]))) return rc;
  *n = cnt;
  return FL_OK;
}

static int rd_offset_index(tr_t *t, pq_offset_index_t *oi) {
  memset(oi, 0, sizeof *oi);
  int et = 0;
  uint32_t cnt;
  TR_BEGIN(t)
  if (fid == 1 && ft == CT_LIST) {
    cnt = 0;
    if ((rc = tr_list(t, &et, &cnt))) return rc;
    if (cnt && et != CT_STRUCT) return tr_fail(t, "page_locations is not a list of structs");
    oi->page_locations = fl_arena_zalloc(t->a, (cnt ? cnt : 1) * sizeof *oi->page_locations);
    for (uint32_t i = 0; i < cnt && !rc; i++) rc = rd_page_location(t, &oi->page_locations[i]);
    oi->npages = cnt;
  } else if (fid == 2 && ft == CT_LIST) {
    rc = rd_i64_list(t, &oi->nunencoded, &oi->unencoded_byte_array_data_bytes);
  } else {
    rc = tr_skip(t, ft);
  }
  TR_END(t)
  return FL_OK;
}

static int rd_column_index(tr_t *t, pq_column_index_t *ci) {
  memset(ci, 0, sizeof *ci);
  int et = 0, v = 0;
  uint32_t cnt, nnull = 0, nmin = 0, nmax = 0;
  TR_BEGIN(t)
  if (fid == 1 && ft == CT_LIST) {
    cnt = 0;
    if ((rc = tr_list(t, &et, &cnt))) return rc;
    if (cnt && !is_bool(et)) return tr_fail(t, "null_pages is not a list of booleans");
    ci->null_pages = fl_arena_zalloc(t->a, (cnt ? cnt : 1) * sizeof *ci->null_pages);
    for (uint32_t i = 0; i < cnt && !rc; i++) {
      uint8_t b = 0;
      rc = tr_byte(t, &b);
      ci->null_pages[i] = b == CT_TRUE;
    }
    nnull = cnt;
  } else if ((fid == 2 || fid == 3) && ft == CT_LIST) {
    cnt = 0;
    if ((rc = tr_list(t, &et, &cnt))) return rc;
    if (cnt && et != CT_BINARY) return tr_fail(t, "min/max values is not a list of binaries");
    pq_bytes_t *vals = fl_arena_zalloc(t->a, (cnt ? cnt : 1) * sizeof *vals);
    for (uint32_t i = 0; i < cnt && !rc; i++) rc = tr_bytes(t, &vals[i]);
    if (fid == 2) {
      ci->min_values = vals;
      nmin = cnt;
    } else {
      ci->max_values = vals;
      nmax = cnt;
    }
  } else if (fid == 4 && is_int(ft)) {
    rc = rd_enum(t, ft, 0, 2, &v);
    ci->boundary_order = (pq_boundary_order_t)v;
  } else if (fid == 5 && ft == CT_LIST) {
    uint32_t n = 0;
    rc = rd_i64_list(t, &n, &ci->null_counts);
    ci->has_null_counts = true;
    if (!rc && n != nnull && nnull) rc = tr_fail(t, "null_counts size differs from null_pages");
  } else {
    rc = tr_skip(t, ft);
  }
  TR_END(t)
  if (nnull != nmin || nnull != nmax) return tr_fail(t, "column index lists differ in size");
  ci->npages = nnull;
  return FL_OK;
}

/* ---- entry points ---- */

int pq_meta_read_file(fl_arena_t *a, const uint8_t *p, size_t n, pq_file_meta_t *out,
                      fl_err_t *err) {
  tr_t t = {.p = p, .n = n, .a = a, .err = err, .what = "parquet footer"};
  return rd_file_meta(&t, out);
}

int pq_meta_read_page_header(fl_arena_t *a, const uint8_t *p, size_t n, pq_page_header_t *out,
                             size_t *used, fl_err_t *err) {
  tr_t t = {.p = p, .n = n, .a = a, .err = err, .what = "page header"};
  int rc = rd_page_header(&t, out);
  if (rc) return rc;
  if (used) *used = t.pos;
  return FL_OK;
}

int pq_meta_read_column_index(fl_arena_t *a, const uint8_t *p, size_t n, pq_column_index_t *out,
                              fl_err_t *err) {
  tr_t t = {.p = p, .n = n, .a = a, .err = err, .what = "column index"};
  return rd_column_index(&t, out);
}

int pq_meta_read_offset_index(fl_arena_t *a, const uint8_t *p, size_t n, pq_offset_index_t *out,
                              fl_err_t *err) {
  tr_t t = {.p = p, .n = n, .a = a, .err = err, .what = "offset index"};
  return rd_offset_index(&t, out);
}

const char *pq_encoding_name(pq_encoding_t e) {
  switch (e) {
    case PQ_ENC_PLAIN: return "PLAIN";
    case PQ_ENC_PLAIN_DICTIONARY: return "PLAIN_DICTIONARY";
    case PQ_ENC_RLE: return "RLE";
    case PQ_ENC_BIT_PACKED: return "BIT_PACKED";
    case PQ_ENC_DELTA_BINARY_PACKED: return "DELTA_BINARY_PACKED";
    case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY: return "DELTA_LENGTH_BYTE_ARRAY";
    case PQ_ENC_DELTA_BYTE_ARRAY: return "DELTA_BYTE_ARRAY";
    case PQ_ENC_RLE_DICTIONARY: return "RLE_DICTIONARY";
    case PQ_ENC_BYTE_STREAM_SPLIT: return "BYTE_STREAM_SPLIT";
  }
  return "UNKNOWN_ENCODING";
}

const char *pq_codec_name(pq_codec_t c) {
  switch (c) {
    case PQ_CODEC_UNCOMPRESSED: return "UNCOMPRESSED";
    case PQ_CODEC_SNAPPY: return "SNAPPY";
    case PQ_CODEC_GZIP: return "GZIP";
    case PQ_CODEC_LZO: return "LZO";
    case PQ_CODEC_BROTLI: return "BROTLI";
    case PQ_CODEC_LZ4: return "LZ4";
    case PQ_CODEC_ZSTD: return "ZSTD";
    case PQ_CODEC_LZ4_RAW: return "LZ4_RAW";
  }
  return "UNKNOWN_CODEC";
}

const char *pq_type_name(pq_type_t t) {
  switch (t) {
    case PQ_BOOLEAN: return "BOOLEAN";
    case PQ_INT32: return "INT32";
    case PQ_INT64: return "INT64";
    case PQ_INT96: return "INT96";
    case PQ_FLOAT: return "FLOAT";
    case PQ_DOUBLE: return "DOUBLE";
    case PQ_BYTE_ARRAY: return "BYTE_ARRAY";
    case PQ_FIXED_LEN_BYTE_ARRAY: return "FIXED_LEN_BYTE_ARRAY";
  }
  return "UNKNOWN_TYPE";
}
