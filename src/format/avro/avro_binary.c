/*
 * avro_binary.c - encode and decode generic Avro values (see
 * avro_binary.h). Integers are zigzag varints; floats and doubles
 * little-endian IEEE; bytes and strings a long length then the bytes;
 * arrays and maps a sequence of blocks (count, and when the count is
 * negative its absolute value followed by the block's byte size) ending
 * with a zero count; unions the branch index as a long, then the value.
 */
#include "format/avro/avro_binary.h"

#include <string.h>

#define MAX_DEPTH 64
/* Items per block allowed when an item may encode to zero bytes. */
#define MAX_ZERO_BYTE_ITEMS (1u << 20)

static av_value_t *new_value(fl_arena_t *a, av_type_t t) {
  av_value_t *v = fl_arena_zalloc(a, sizeof *v);
  v->type = t;
  v->branch = -1;
  return v;
}

av_value_t *av_value_null(fl_arena_t *a) { return new_value(a, AV_NULL); }
av_value_t *av_value_bool(fl_arena_t *a, bool b) {
  av_value_t *v = new_value(a, AV_BOOLEAN);
  v->u.b = b;
  return v;
}
av_value_t *av_value_int(fl_arena_t *a, int32_t x) {
  av_value_t *v = new_value(a, AV_INT);
  v->u.i = x;
  return v;
}
av_value_t *av_value_long(fl_arena_t *a, int64_t x) {
  av_value_t *v = new_value(a, AV_LONG);
  v->u.l = x;
  return v;
}
av_value_t *av_value_float(fl_arena_t *a, float x) {
  av_value_t *v = new_value(a, AV_FLOAT);
  v->u.f = x;
  return v;
}
av_value_t *av_value_double(fl_arena_t *a, double x) {
  av_value_t *v = new_value(a, AV_DOUBLE);
  v->u.d = x;
  return v;
}
av_value_t *av_value_bytes(fl_arena_t *a, const void *p, size_t n) {
  av_value_t *v = new_value(a, AV_BYTES);
  v->u.bytes.p = n ? fl_arena_memdup(a, p, n) : (const uint8_t *)"";
  v->u.bytes.n = n;
  return v;
}
av_value_t *av_value_stringn(fl_arena_t *a, const void *p, size_t n) {
  av_value_t *v = av_value_bytes(a, p, n);
  v->type = AV_STRING;
  return v;
}
av_value_t *av_value_string(fl_arena_t *a, const char *s) { return av_value_stringn(a, s, strlen(s)); }
av_value_t *av_value_fixed(fl_arena_t *a, const av_schema_t *fixed, const void *p) {
  av_value_t *v = av_value_bytes(a, p, (size_t)fixed->size);
  v->type = AV_FIXED;
  v->schema = fixed;
  return v;
}
av_value_t *av_value_enum(fl_arena_t *a, const av_schema_t *en, int32_t symbol) {
  av_value_t *v = new_value(a, AV_ENUM);
  v->schema = en;
  v->u.i = symbol;
  return v;
}
av_value_t *av_value_record(fl_arena_t *a, const av_schema_t *rec) {
  av_value_t *v = new_value(a, AV_RECORD);
  v->schema = rec;
  v->u.record.n = rec->nfields;
  v->u.record.fields = fl_arena_zalloc(a, sizeof(av_value_t *) * (rec->nfields ? rec->nfields : 1));
  for (uint32_t i = 0; i < rec->nfields; i++) v->u.record.fields[i] = av_value_null(a);
  return v;
}
av_value_t *av_value_array(fl_arena_t *a, uint32_t cap) {
  av_value_t *v = new_value(a, AV_ARRAY);
  (void)cap;
  return v;
}
av_value_t *av_value_map(fl_arena_t *a, uint32_t cap) {
  av_value_t *v = new_value(a, AV_MAP);
  (void)cap;
  return v;
}

/* Arena arrays grow by doubling at powers of two. */
static void *grow(fl_arena_t *a, void *old, uint32_t n, size_t elem) {
  if (n && (n & (n - 1))) return old;
  size_t cap = n ? (size_t)n * 2 : 4;
  void *p = fl_arena_alloc(a, cap * elem);
  if (n) memcpy(p, old, n * elem);
  return p;
}

void av_array_append(fl_arena_t *a, av_value_t *arr, av_value_t *item) {
  uint32_t n = arr->u.array.n;
  if (n < 4 && arr->u.array.items) {
    /* within the first chunk of 4 */
  } else {
    arr->u.array.items = grow(a, arr->u.array.items, n, sizeof(av_value_t *));
  }
  arr->u.array.items[n] = item;
  arr->u.array.n = n + 1;
}

void av_map_put(fl_arena_t *a, av_value_t *map, const char *key, av_value_t *v) {
  uint32_t n = map->u.map.n;
  if (!(n < 4 && map->u.map.keys)) {
    map->u.map.keys = grow(a, map->u.map.keys, n, sizeof(char *));
    map->u.map.key_lens = grow(a, map->u.map.key_lens, n, sizeof(size_t));
    map->u.map.values = grow(a, map->u.map.values, n, sizeof(av_value_t *));
  }
  map->u.map.keys[n] = fl_arena_strdup(a, key);
  map->u.map.key_lens[n] = strlen(key);
  map->u.map.values[n] = v;
  map->u.map.n = n + 1;
}

int av_record_set(av_value_t *rec, const char *field, av_value_t *v, fl_err_t *err) {
  int i = rec->type == AV_RECORD ? av_record_field_index(rec->schema, field) : -1;
  if (i < 0)
    return fl_err_set(err, FL_EINVALID, "avro record %s has no field %s",
                      rec->schema && rec->schema->fullname ? rec->schema->fullname : "?", field);
  rec->u.record.fields[i] = v;
  return FL_OK;
}

const av_value_t *av_record_get(const av_value_t *rec, const char *field) {
  if (!rec || rec->type != AV_RECORD) return NULL;
  int i = av_record_field_index(rec->schema, field);
  return i < 0 ? NULL : rec->u.record.fields[i];
}

/* ---- encoding ---- */

static bool named(av_type_t t) { return t == AV_RECORD || t == AV_ENUM || t == AV_FIXED; }

static bool fits(const av_schema_t *s, const av_value_t *v) {
  if (s->type != v->type) return false;
  if (named(s->type) && v->schema && v->schema != s)
    return v->schema->fullname && s->fullname && !strcmp(v->schema->fullname, s->fullname);
  return true;
}

static int enc(const av_schema_t *s, const av_value_t *v, fl_buf_t *out, int depth, fl_err_t *err);

static int enc_bad(const av_schema_t *s, const av_value_t *v, fl_err_t *err) {
  return fl_err_set(err, FL_EINVALID, "avro encode: a %s value does not fit schema type %s%s%s",
                    av_type_name(v->type), av_type_name(s->type), s->fullname ? " " : "",
                    s->fullname ? s->fullname : "");
}

static int enc(const av_schema_t *s, const av_value_t *v, fl_buf_t *out, int depth, fl_err_t *err) {
  if (depth > MAX_DEPTH) return fl_err_set(err, FL_EINVALID, "avro encode: value nests too deeply");
  if (s->type == AV_UNION) {
    int pick = -1;
    if (v->branch >= 0 && (uint32_t)v->branch < s->nbranches && fits(s->branches[v->branch], v))
      pick = v->branch;
    for (uint32_t i = 0; pick < 0 && i < s->nbranches; i++)
      if (fits(s->branches[i], v)) pick = (int)i;
    if (pick < 0) return enc_bad(s, v, err);
    fl_buf_append_zvarint(out, pick);
    return enc(s->branches[pick], v, out, depth + 1, err);
  }
  if (!fits(s, v)) return enc_bad(s, v, err);
  switch (s->type) {
    case AV_NULL: return FL_OK;
    case AV_BOOLEAN: fl_buf_append_u8(out, v->u.b ? 1 : 0); return FL_OK;
    case AV_INT:
    case AV_ENUM:
      if (s->type == AV_ENUM && (v->u.i < 0 || (uint32_t)v->u.i >= s->nsymbols))
        return fl_err_set(err, FL_EINVALID, "avro encode: enum %s has no symbol %d", s->fullname,
                          v->u.i);
      fl_buf_append_zvarint(out, v->u.i);
      return FL_OK;
    case AV_LONG: fl_buf_append_zvarint(out, v->u.l); return FL_OK;
    case AV_FLOAT: {
      uint32_t b;
      memcpy(&b, &v->u.f, 4);
      fl_buf_append_le32(out, b);
      return FL_OK;
    }
    case AV_DOUBLE: {
      uint64_t b;
      memcpy(&b, &v->u.d, 8);
      fl_buf_append_le64(out, b);
      return FL_OK;
    }
    case AV_BYTES:
    case AV_STRING:
      fl_buf_append_zvarint(out, (int64_t)v->u.bytes.n);
      fl_buf_append(out, v->u.bytes.p, v->u.bytes.n);
      return FL_OK;
    case AV_FIXED:
      if (v->u.bytes.n != (size_t)s->size)
        return fl_err_set(err, FL_EINVALID, "avro encode: fixed %s needs %d bytes, got %zu",
                          s->fullname, s->size, v->u.bytes.n);
      fl_buf_append(out, v->u.bytes.p, v->u.bytes.n);
      return FL_OK;
    case AV_RECORD:
      for (uint32_t i = 0; i < s->nfields; i++) {
        const av_value_t *f = i < v->u.record.n ? v->u.record.fields[i] : NULL;
        if (!f) return fl_err_set(err, FL_EINVALID, "avro encode: field %s is missing", s->fields[i].name);
        int rc = enc(s->fields[i].type, f, out, depth + 1, err);
        if (rc) return fl_err_prefix(err, "field %s: ", s->fields[i].name);
      }
      return FL_OK;
    case AV_ARRAY:
      if (v->u.array.n) {
        fl_buf_append_zvarint(out, v->u.array.n);
        for (uint32_t i = 0; i < v->u.array.n; i++) {
          int rc = enc(s->items, v->u.array.items[i], out, depth + 1, err);
          if (rc) return rc;
        }
      }
      fl_buf_append_u8(out, 0);
      return FL_OK;
    case AV_MAP:
      if (v->u.map.n) {
        fl_buf_append_zvarint(out, v->u.map.n);
        for (uint32_t i = 0; i < v->u.map.n; i++) {
          fl_buf_append_zvarint(out, (int64_t)v->u.map.key_lens[i]);
          fl_buf_append(out, v->u.map.keys[i], v->u.map.key_lens[i]);
          int rc = enc(s->items, v->u.map.values[i], out, depth + 1, err);
          if (rc) return rc;
        }
      }
      fl_buf_append_u8(out, 0);
      return FL_OK;
    default: return enc_bad(s, v, err);
  }
}

int av_encode(const av_schema_t *s, const av_value_t *v, fl_buf_t *out, fl_err_t *err) {
  return enc(s, v, out, 0, err);
}

/* ---- decoding ---- */

static int corrupt(fl_rd_t *r, fl_err_t *err, const char *what) {
  return fl_err_set(err, FL_ECORRUPT, "%s: %s at byte %zu", r->what, what, r->pos);
}

int av__read_long(fl_rd_t *r, int64_t *out, fl_err_t *err) { return fl_rd_zvarint(r, out, err); }

int av__read_int(fl_rd_t *r, int32_t *out, fl_err_t *err) {
  int64_t v;
  size_t at = r->pos;
  int rc = fl_rd_zvarint(r, &v, err);
  if (rc) return rc;
  if (v < INT32_MIN || v > INT32_MAX) {
    r->pos = at;
    return corrupt(r, err, "int out of range");
  }
  *out = (int32_t)v;
  return FL_OK;
}

int av__read_bytes(fl_rd_t *r, const uint8_t **p, size_t *n, fl_err_t *err) {
  int64_t len;
  size_t at = r->pos;
  int rc = fl_rd_zvarint(r, &len, err);
  if (rc) return rc;
  if (len < 0 || (uint64_t)len > fl_rd_left(r)) {
    r->pos = at;
    return corrupt(r, err, "byte length beyond the data");
  }
  *n = (size_t)len;
  return fl_rd_bytes(r, (size_t)len, p, err);
}

int av__read_block_count(fl_rd_t *r, size_t min_item_bytes, uint64_t *count, fl_err_t *err) {
  int64_t c;
  size_t at = r->pos;
  int rc = fl_rd_zvarint(r, &c, err);
  if (rc) return rc;
  if (c < 0) {
    if (c == INT64_MIN) {
      r->pos = at;
      return corrupt(r, err, "block count out of range");
    }
    c = -c;
    int64_t size;
    rc = fl_rd_zvarint(r, &size, err);
    if (rc) return rc;
    if (size < 0 || (uint64_t)size > fl_rd_left(r)) {
      r->pos = at;
      return corrupt(r, err, "block byte size beyond the data");
    }
  }
  uint64_t limit = min_item_bytes ? fl_rd_left(r) / min_item_bytes : MAX_ZERO_BYTE_ITEMS;
  if ((uint64_t)c > limit) {
    r->pos = at;
    return corrupt(r, err, "block count larger than the data can hold");
  }
  *count = (uint64_t)c;
  return FL_OK;
}

static int dec(fl_arena_t *a, const av_schema_t *s, fl_rd_t *r, int depth, av_value_t **out,
               fl_err_t *err) {
  if (depth > MAX_DEPTH) return corrupt(r, err, "value nests too deeply");
  int rc = FL_OK;
  int32_t branch = -1;
  if (s->type == AV_UNION) {
    int64_t b;
    size_t at = r->pos;
    rc = fl_rd_zvarint(r, &b, err);
    if (rc) return rc;
    if (b < 0 || (uint64_t)b >= s->nbranches) {
      r->pos = at;
      return corrupt(r, err, "union branch out of range");
    }
    branch = (int32_t)b;
    s = s->branches[b];
    if (s->type == AV_UNION) return corrupt(r, err, "nested union");
  }
  av_value_t *v = new_value(a, s->type);
  v->schema = s;
  v->branch = branch;
  switch (s->type) {
    case AV_NULL: break;
    case AV_BOOLEAN: {
      uint8_t b;
      rc = fl_rd_u8(r, &b, err);
      if (rc) return rc;
      if (b > 1) {
        r->pos--;
        return corrupt(r, err, "boolean not 0 or 1");
      }
      v->u.b = b;
      break;
    }
    case AV_INT: rc = av__read_int(r, &v->u.i, err); break;
    case AV_ENUM:
      rc = av__read_int(r, &v->u.i, err);
      if (!rc && (v->u.i < 0 || (uint32_t)v->u.i >= s->nsymbols))
        return corrupt(r, err, "enum index out of range");
      break;
    case AV_LONG: rc = av__read_long(r, &v->u.l, err); break;
    case AV_FLOAT: {
      uint32_t b;
      rc = fl_rd_le32(r, &b, err);
      memcpy(&v->u.f, &b, 4);
      break;
    }
    case AV_DOUBLE: {
      uint64_t b;
      rc = fl_rd_le64(r, &b, err);
      memcpy(&v->u.d, &b, 8);
      break;
    }
    case AV_BYTES:
    case AV_STRING: rc = av__read_bytes(r, &v->u.bytes.p, &v->u.bytes.n, err); break;
    case AV_FIXED:
      v->u.bytes.n = (size_t)s->size;
      rc = fl_rd_bytes(r, (size_t)s->size, &v->u.bytes.p, err);
      break;
    case AV_RECORD:
      v->u.record.n = s->nfields;
      v->u.record.fields = fl_arena_alloc(a, sizeof(av_value_t *) * (s->nfields ? s->nfields : 1));
      for (uint32_t i = 0; i < s->nfields && !rc; i++)
        rc = dec(a, s->fields[i].type, r, depth + 1, &v->u.record.fields[i], err);
      break;
    case AV_ARRAY:
    case AV_MAP: {
      bool is_map = s->type == AV_MAP;
      size_t min = av_schema_min_bytes(s->items) + (is_map ? 1 : 0);
      for (;;) {
        uint64_t count;
        rc = av__read_block_count(r, min, &count, err);
        if (rc) return rc;
        if (!count) break;
        uint32_t have = is_map ? v->u.map.n : v->u.array.n;
        if (count > (uint64_t)(UINT32_MAX / 2) - have || (!min && have + count > MAX_ZERO_BYTE_ITEMS))
          return corrupt(r, err, "too many items");
        uint32_t total = have + (uint32_t)count;
        if (is_map) {
          const char **k = fl_arena_alloc(a, sizeof(char *) * total);
          size_t *kl = fl_arena_alloc(a, sizeof(size_t) * total);
          av_value_t **vals = fl_arena_alloc(a, sizeof(av_value_t *) * total);
          if (have) {
            memcpy(k, v->u.map.keys, sizeof(char *) * have);
            memcpy(kl, v->u.map.key_lens, sizeof(size_t) * have);
            memcpy(vals, v->u.map.values, sizeof(av_value_t *) * have);
          }
          v->u.map.keys = k;
          v->u.map.key_lens = kl;
          v->u.map.values = vals;
          for (uint32_t i = have; i < total; i++) {
            const uint8_t *kp;
            size_t kn;
            rc = av__read_bytes(r, &kp, &kn, err);
            if (rc) return rc;
            k[i] = fl_arena_strndup(a, (const char *)kp, kn);
            kl[i] = kn;
            rc = dec(a, s->items, r, depth + 1, &vals[i], err);
            if (rc) return rc;
            v->u.map.n = i + 1;
          }
        } else {
          av_value_t **items = fl_arena_alloc(a, sizeof(av_value_t *) * total);
          if (have) memcpy(items, v->u.array.items, sizeof(av_value_t *) * have);
          v->u.array.items = items;
          for (uint32_t i = have; i < total; i++) {
            rc = dec(a, s->items, r, depth + 1, &items[i], err);
            if (rc) return rc;
            v->u.array.n = i + 1;
          }
        }
      }
      break;
    }
    default: return corrupt(r, err, "unexpected schema type");
  }
  if (rc) return rc;
  *out = v;
  return FL_OK;
}

int av_decode(fl_arena_t *a, const av_schema_t *s, fl_rd_t *r, av_value_t **out, fl_err_t *err) {
  return dec(a, s, r, 0, out, err);
}

static int skip(const av_schema_t *s, fl_rd_t *r, int depth, fl_err_t *err) {
  if (depth > MAX_DEPTH) return corrupt(r, err, "value nests too deeply");
  int64_t x;
  int rc;
  switch (s->type) {
    case AV_NULL: return FL_OK;
    case AV_BOOLEAN: return fl_rd_skip(r, 1, err);
    case AV_INT:
    case AV_LONG:
    case AV_ENUM: return fl_rd_zvarint(r, &x, err);
    case AV_FLOAT: return fl_rd_skip(r, 4, err);
    case AV_DOUBLE: return fl_rd_skip(r, 8, err);
    case AV_FIXED: return fl_rd_skip(r, (size_t)s->size, err);
    case AV_BYTES:
    case AV_STRING: {
      const uint8_t *p;
      size_t n;
      return av__read_bytes(r, &p, &n, err);
    }
    case AV_UNION: {
      size_t at = r->pos;
      rc = fl_rd_zvarint(r, &x, err);
      if (rc) return rc;
      if (x < 0 || (uint64_t)x >= s->nbranches) {
        r->pos = at;
        return corrupt(r, err, "union branch out of range");
      }
      return skip(s->branches[x], r, depth + 1, err);
    }
    case AV_RECORD:
      for (uint32_t i = 0; i < s->nfields; i++) {
        rc = skip(s->fields[i].type, r, depth + 1, err);
        if (rc) return rc;
      }
      return FL_OK;
    case AV_ARRAY:
    case AV_MAP: {
      bool is_map = s->type == AV_MAP;
      size_t min = av_schema_min_bytes(s->items) + (is_map ? 1 : 0);
      uint64_t total = 0;
      for (;;) {
        int64_t c;
        size_t at = r->pos;
        rc = fl_rd_zvarint(r, &c, err);
        if (rc) return rc;
        if (c == 0) return FL_OK;
        if (c < 0) {
          int64_t size;
          rc = fl_rd_zvarint(r, &size, err);
          if (rc) return rc;
          if (c == INT64_MIN || size < 0 || (uint64_t)size > fl_rd_left(r)) {
            r->pos = at;
            return corrupt(r, err, "block byte size beyond the data");
          }
          r->pos += (size_t)size;
          continue;
        }
        uint64_t limit = min ? fl_rd_left(r) / min : MAX_ZERO_BYTE_ITEMS;
        total += (uint64_t)c;
        if ((uint64_t)c > limit || (!min && total > MAX_ZERO_BYTE_ITEMS)) {
          r->pos = at;
          return corrupt(r, err, "block count larger than the data can hold");
        }
        for (int64_t i = 0; i < c; i++) {
          if (is_map) {
            const uint8_t *p;
            size_t n;
            rc = av__read_bytes(r, &p, &n, err);
            if (rc) return rc;
          }
          rc = skip(s->items, r, depth + 1, err);
          if (rc) return rc;
        }
      }
    }
    default: return corrupt(r, err, "unexpected schema type");
  }
}

int av_skip(const av_schema_t *s, fl_rd_t *r, fl_err_t *err) { return skip(s, r, 0, err); }
