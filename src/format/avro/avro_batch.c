/*
 * avro_batch.c - the batch path between Avro records and column vectors
 * (see avro_batch.h).
 *
 * A plan node holds one operation (read an int, a string, a record, ...)
 * for one Avro schema position paired with its Iceberg type. Nullable
 * positions (unions with a null branch) read the branch index first and
 * append a null when it names the null branch. Records list, for each
 * Avro field, the target column it fills (or -1 to skip the field), and
 * the target columns the file lacks, which get nulls.
 */
#include "format/avro/avro_batch.h"

#include <stdio.h>
#include <string.h>

#include "format/avro/avro_binary.h"
#include "format/avro/avro_iceberg.h"
#include "types/value.h"

#define MAX_DEPTH 64
#define MAX_ZERO_BYTE_ITEMS (1u << 20)

typedef enum op {
  OP_SKIP,
  OP_BOOL,
  OP_INT,
  OP_INT_TO_LONG,
  OP_INT_MUL, /* time-millis to micros */
  OP_LONG,
  OP_LONG_MUL, /* timestamp-millis to micros */
  OP_FLOAT,
  OP_FLOAT_TO_DOUBLE,
  OP_DOUBLE,
  OP_BYTES,
  OP_UUID_STRING,
  OP_ENUM,
  OP_FIXED,
  OP_DEC_BYTES,
  OP_DEC_FIXED,
  OP_RECORD,
  OP_LIST,
  OP_MAP,
  OP_KV_LIST,
  OP_UNION_STRUCT
} op_t;

struct av_plan {
  op_t op;
  const av_schema_t *full; /* the schema at this position, unions included */
  const av_schema_t *as;   /* the value's schema (the union for OP_UNION_STRUCT) */
  const ty_type_t *type;
  const char *name; /* for messages */
  bool is_union;    /* read a branch index first */
  int32_t null_branch, value_branch;
  int64_t mul;
  size_t min_item; /* arrays and maps: smallest encoded item */
  uint32_t nkids;
  av_plan_t *kids;
  int32_t *slot;     /* records: avro field -> target index, -1 to skip */
  uint32_t nmissing; /* records: target indices absent from the file */
  int32_t *missing;
  uint32_t ntargets;
  int32_t *branch_field; /* union structs: branch -> struct field index, -1 null */
};

static int build(fl_arena_t *a, const av_schema_t *s, const ty_type_t *t, const char *name,
                 int depth, av_plan_t *p, fl_err_t *err);

static int mismatch(const av_schema_t *s, const ty_type_t *t, const char *name, fl_err_t *err) {
  return fl_err_set(err, FL_EUNSUPPORTED, "avro field %s: cannot read avro %s%s%s as %s", name,
                    av_type_name(s->type), s->logical_name ? "/" : "",
                    s->logical_name ? s->logical_name : "", ty_kind_name(t->kind));
}

static int build_record(fl_arena_t *a, const av_schema_t *rec, const ty_field_t *fields,
                        uint32_t nfields, int depth, av_plan_t *p, fl_err_t *err) {
  p->op = OP_RECORD;
  p->nkids = rec->nfields;
  p->kids = fl_arena_zalloc(a, sizeof *p->kids * (rec->nfields ? rec->nfields : 1));
  p->slot = fl_arena_alloc(a, sizeof *p->slot * (rec->nfields ? rec->nfields : 1));
  p->ntargets = nfields;
  bool *found = fl_arena_zalloc(a, nfields ? nfields : 1);
  for (uint32_t i = 0; i < rec->nfields; i++) {
    const av_field_t *f = &rec->fields[i];
    int64_t id;
    bool has_id = av_attr_int(av_field_attr(f, "field-id"), &id);
    int match = -1;
    for (uint32_t k = 0; k < nfields && match < 0; k++) {
      if (found[k]) continue;
      if (has_id ? fields[k].id == id : !strcmp(fields[k].name, f->name)) match = (int)k;
    }
    p->slot[i] = match;
    av_plan_t *kid = &p->kids[i];
    if (match < 0) {
      kid->op = OP_SKIP;
      kid->full = f->type;
      kid->name = f->name;
      continue;
    }
    found[match] = true;
    int rc = build(a, f->type, fields[match].type, f->name, depth + 1, kid, err);
    if (rc) return rc;
  }
  p->missing = fl_arena_alloc(a, sizeof *p->missing * (nfields ? nfields : 1));
  for (uint32_t k = 0; k < nfields; k++)
    if (!found[k]) p->missing[p->nmissing++] = (int32_t)k;
  return FL_OK;
}

static int build(fl_arena_t *a, const av_schema_t *s, const ty_type_t *t, const char *name,
                 int depth, av_plan_t *p, fl_err_t *err) {
  if (depth > MAX_DEPTH) return fl_err_set(err, FL_EUNSUPPORTED, "avro schema nests too deeply");
  memset(p, 0, sizeof *p);
  p->full = s;
  p->type = t;
  p->name = name;
  p->null_branch = p->value_branch = -1;
  uint32_t vb, nb;
  if (av_schema_is_option(s, &vb, &nb)) {
    p->is_union = true;
    p->null_branch = (int32_t)nb;
    p->value_branch = (int32_t)vb;
    s = s->branches[vb];
  } else if (s->type == AV_UNION && s->nbranches == 1) {
    p->is_union = true;
    p->value_branch = 0;
    s = s->branches[0];
  }
  p->as = s;
  ty_kind_t k = t->kind;
  switch (s->type) {
    case AV_BOOLEAN:
      if (k != TY_BOOLEAN) break;
      p->op = OP_BOOL;
      return FL_OK;
    case AV_INT:
      if (k == TY_INT || k == TY_DATE)
        p->op = OP_INT;
      else if (k == TY_LONG)
        p->op = OP_INT_TO_LONG;
      else if (k == TY_TIME && s->logical == AV_LT_TIME_MILLIS) {
        p->op = OP_INT_MUL;
        p->mul = 1000;
      } else
        break;
      return FL_OK;
    case AV_LONG:
      if (k != TY_LONG && k != TY_TIME && k != TY_TIMESTAMP && k != TY_TIMESTAMPTZ &&
          k != TY_TIMESTAMP_NS && k != TY_TIMESTAMPTZ_NS)
        break;
      p->op = OP_LONG;
      if (s->logical == AV_LT_TIMESTAMP_MILLIS || s->logical == AV_LT_LOCAL_TIMESTAMP_MILLIS) {
        p->op = OP_LONG_MUL;
        p->mul = (k == TY_TIMESTAMP_NS || k == TY_TIMESTAMPTZ_NS) ? 1000000 : 1000;
      }
      return FL_OK;
    case AV_FLOAT:
      if (k == TY_FLOAT)
        p->op = OP_FLOAT;
      else if (k == TY_DOUBLE)
        p->op = OP_FLOAT_TO_DOUBLE;
      else
        break;
      return FL_OK;
    case AV_DOUBLE:
      if (k != TY_DOUBLE) break;
      p->op = OP_DOUBLE;
      return FL_OK;
    case AV_STRING:
      if (k == TY_STRING || k == TY_BINARY)
        p->op = OP_BYTES;
      else if (k == TY_UUID)
        p->op = OP_UUID_STRING;
      else
        break;
      return FL_OK;
    case AV_BYTES:
      if (k == TY_BINARY || k == TY_STRING)
        p->op = OP_BYTES;
      else if (k == TY_DECIMAL && s->logical == AV_LT_DECIMAL && s->scale == t->scale)
        p->op = OP_DEC_BYTES;
      else
        break;
      return FL_OK;
    case AV_ENUM:
      if (k != TY_STRING) break;
      p->op = OP_ENUM;
      return FL_OK;
    case AV_FIXED:
      if (k == TY_DECIMAL && s->logical == AV_LT_DECIMAL && s->scale == t->scale && s->size <= 16)
        p->op = OP_DEC_FIXED;
      else if (((k == TY_FIXED && t->length == s->size) || (k == TY_UUID && s->size == 16)) ||
               k == TY_BINARY)
        p->op = OP_FIXED;
      else
        break;
      return FL_OK;
    case AV_RECORD:
      if (k != TY_STRUCT) break;
      return build_record(a, s, t->fields, t->nfields, depth, p, err);
    case AV_ARRAY:
      if (k == TY_LIST) {
        p->op = OP_LIST;
        p->nkids = 1;
        p->kids = fl_arena_zalloc(a, sizeof *p->kids);
        p->min_item = av_schema_min_bytes(s->items);
        return build(a, s->items, t->fields[0].type, name, depth + 1, &p->kids[0], err);
      }
      if (k == TY_MAP && av_is_kv_array(s)) {
        const av_schema_t *r = s->items;
        p->op = OP_KV_LIST;
        p->nkids = 2;
        p->kids = fl_arena_zalloc(a, sizeof *p->kids * 2);
        p->min_item = av_schema_min_bytes(r);
        int rc = build(a, r->fields[0].type, t->fields[0].type, name, depth + 1, &p->kids[0], err);
        if (!rc) rc = build(a, r->fields[1].type, t->fields[1].type, name, depth + 1, &p->kids[1], err);
        return rc;
      }
      break;
    case AV_MAP: {
      if (k != TY_MAP || t->fields[0].type->kind != TY_STRING) break;
      p->op = OP_MAP;
      p->nkids = 2;
      p->kids = fl_arena_zalloc(a, sizeof *p->kids * 2);
      p->min_item = 1 + av_schema_min_bytes(s->items);
      static av_schema_t string_schema = {.type = AV_STRING};
      int rc = build(a, &string_schema, t->fields[0].type, name, depth + 1, &p->kids[0], err);
      if (!rc) rc = build(a, s->items, t->fields[1].type, name, depth + 1, &p->kids[1], err);
      return rc;
    }
    case AV_UNION: {
      if (k != TY_STRUCT || t->nfields < 1) break;
      p->op = OP_UNION_STRUCT;
      p->nkids = s->nbranches;
      p->kids = fl_arena_zalloc(a, sizeof *p->kids * (s->nbranches ? s->nbranches : 1));
      p->branch_field = fl_arena_alloc(a, sizeof *p->branch_field * (s->nbranches ? s->nbranches : 1));
      uint32_t f = 1;
      for (uint32_t i = 0; i < s->nbranches; i++) {
        if (s->branches[i]->type == AV_NULL) {
          p->branch_field[i] = -1;
          p->kids[i].op = OP_SKIP;
          p->kids[i].full = s->branches[i];
          continue;
        }
        if (f >= t->nfields) return mismatch(s, t, name, err);
        p->branch_field[i] = (int32_t)f;
        int rc = build(a, s->branches[i], t->fields[f].type, name, depth + 1, &p->kids[i], err);
        if (rc) return rc;
        f++;
      }
      if (f != t->nfields) return mismatch(s, t, name, err);
      return FL_OK;
    }
    default: break;
  }
  return mismatch(s, t, name, err);
}

int av_plan_build(fl_arena_t *a, const av_schema_t *record, const ty_schema_t *target,
                  av_plan_t **out, fl_err_t *err) {
  if (record->type != AV_RECORD)
    return fl_err_set(err, FL_EUNSUPPORTED, "avro schema: the top level is a %s, not a record",
                      av_type_name(record->type));
  av_plan_t *p = fl_arena_zalloc(a, sizeof *p);
  p->full = p->as = record;
  p->null_branch = p->value_branch = -1;
  p->name = record->fullname;
  int rc = build_record(a, record, target->root.fields, target->root.nfields, 0, p, err);
  if (rc) return rc;
  *out = p;
  return FL_OK;
}

/* ---- decoding ---- */

static int corrupt(fl_rd_t *r, const av_plan_t *p, const char *what, fl_err_t *err) {
  return fl_err_set(err, FL_ECORRUPT, "%s: %s in field %s at byte %zu", r->what, what,
                    p->name ? p->name : "?", r->pos);
}

static inline int rd_long(fl_rd_t *r, int64_t *out, fl_err_t *err) {
  /* Fast path for short varints. */
  if (r->len - r->pos >= 1 && !(r->p[r->pos] & 0x80)) {
    uint64_t u = r->p[r->pos++];
    *out = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
    return FL_OK;
  }
  return fl_rd_zvarint(r, out, err);
}

static int dec(const av_plan_t *p, fl_rd_t *r, ty_vec_t *v, int depth, fl_err_t *err);

static int dec_fields(const av_plan_t *p, fl_rd_t *r, ty_vec_t **cols, int depth, fl_err_t *err) {
  for (uint32_t i = 0; i < p->nkids; i++) {
    int32_t slot = p->slot[i];
    int rc = slot < 0 ? av_skip(p->kids[i].full, r, err) : dec(&p->kids[i], r, cols[slot], depth + 1, err);
    if (rc) return rc;
  }
  for (uint32_t m = 0; m < p->nmissing; m++) ty_vec_append_null(cols[p->missing[m]]);
  return FL_OK;
}

static int dec_decimal(const av_plan_t *p, fl_rd_t *r, const uint8_t *b, size_t n, ty_vec_t *v,
                       fl_err_t *err) {
  if (n > 16) {
    /* Longer than 16 bytes is fine only as sign extension. */
    uint8_t ext = (b[n - 16] & 0x80) ? 0xff : 0;
    for (size_t i = 0; i < n - 16; i++)
      if (b[i] != ext) return corrupt(r, p, "decimal wider than 128 bits", err);
    b += n - 16;
    n = 16;
  }
  fl_i128 x = n && (b[0] & 0x80) ? -1 : 0;
  for (size_t i = 0; i < n; i++) x = (fl_i128)(((unsigned __int128)x << 8) | b[i]);
  ty_vec_append_i128(v, x);
  return FL_OK;
}

static int dec(const av_plan_t *p, fl_rd_t *r, ty_vec_t *v, int depth, fl_err_t *err) {
  int64_t x;
  int rc;
  if (depth > MAX_DEPTH) return corrupt(r, p, "value nests too deeply", err);
  if (p->is_union) {
    size_t at = r->pos;
    rc = rd_long(r, &x, err);
    if (rc) return rc;
    if (x == p->null_branch) {
      ty_vec_append_null(v);
      return FL_OK;
    }
    if (x != p->value_branch) {
      r->pos = at;
      return corrupt(r, p, "union branch out of range", err);
    }
  }
  switch (p->op) {
    case OP_SKIP: return av_skip(p->as, r, err);
    case OP_BOOL: {
      if (r->pos >= r->len || r->p[r->pos] > 1) return corrupt(r, p, "invalid or missing boolean", err);
      ty_vec_append_bool(v, r->p[r->pos++]);
      return FL_OK;
    }
    case OP_INT:
    case OP_INT_TO_LONG:
    case OP_INT_MUL:
      rc = rd_long(r, &x, err);
      if (rc) return rc;
      if (x < INT32_MIN || x > INT32_MAX) return corrupt(r, p, "int out of range", err);
      if (p->op == OP_INT)
        ty_vec_append_i32(v, (int32_t)x);
      else
        ty_vec_append_i64(v, p->op == OP_INT_MUL ? x * p->mul : x);
      return FL_OK;
    case OP_LONG:
      rc = rd_long(r, &x, err);
      if (rc) return rc;
      ty_vec_append_i64(v, x);
      return FL_OK;
    case OP_LONG_MUL: {
      rc = rd_long(r, &x, err);
      if (rc) return rc;
      int64_t y;
      if (__builtin_mul_overflow(x, p->mul, &y)) return corrupt(r, p, "timestamp out of range", err);
      ty_vec_append_i64(v, y);
      return FL_OK;
    }
    case OP_FLOAT:
    case OP_FLOAT_TO_DOUBLE: {
      uint32_t b;
      rc = fl_rd_le32(r, &b, err);
      if (rc) return rc;
      float f;
      memcpy(&f, &b, 4);
      if (p->op == OP_FLOAT)
        ty_vec_append_f32(v, f);
      else
        ty_vec_append_f64(v, (double)f);
      return FL_OK;
    }
    case OP_DOUBLE: {
      uint64_t b;
      rc = fl_rd_le64(r, &b, err);
      if (rc) return rc;
      double d;
      memcpy(&d, &b, 8);
      ty_vec_append_f64(v, d);
      return FL_OK;
    }
    case OP_BYTES:
    case OP_UUID_STRING:
    case OP_DEC_BYTES: {
      const uint8_t *b;
      size_t n;
      rc = av__read_bytes(r, &b, &n, err);
      if (rc) return rc;
      if (p->op == OP_BYTES) {
        if (v->heap_len + n > (size_t)INT32_MAX / 2) return corrupt(r, p, "too many bytes for one batch", err);
        ty_vec_append_bytes(v, b, n);
      } else if (p->op == OP_DEC_BYTES) {
        return dec_decimal(p, r, b, n, v, err);
      } else {
        uint8_t u[16];
        if (!ty_uuid_parse((const char *)b, n, u)) return corrupt(r, p, "invalid uuid text", err);
        ty_vec_append_bytes(v, u, 16);
      }
      return FL_OK;
    }
    case OP_ENUM: {
      rc = rd_long(r, &x, err);
      if (rc) return rc;
      if (x < 0 || (uint64_t)x >= p->as->nsymbols) return corrupt(r, p, "enum index out of range", err);
      const char *sym = p->as->symbols[x];
      ty_vec_append_bytes(v, sym, strlen(sym));
      return FL_OK;
    }
    case OP_FIXED:
    case OP_DEC_FIXED: {
      const uint8_t *b;
      rc = fl_rd_bytes(r, (size_t)p->as->size, &b, err);
      if (rc) return rc;
      if (p->op == OP_DEC_FIXED) return dec_decimal(p, r, b, (size_t)p->as->size, v, err);
      if (v->offsets && v->heap_len + (size_t)p->as->size > (size_t)INT32_MAX / 2)
        return corrupt(r, p, "too many bytes for one batch", err);
      ty_vec_append_bytes(v, b, (size_t)p->as->size);
      return FL_OK;
    }
    case OP_RECORD:
      rc = dec_fields(p, r, v->children, depth, err);
      if (rc) return rc;
      ty_vec_append_struct(v);
      return FL_OK;
    case OP_LIST:
    case OP_MAP:
    case OP_KV_LIST: {
      uint64_t total = 0;
      for (;;) {
        uint64_t count;
        rc = av__read_block_count(r, p->min_item, &count, err);
        if (rc) return rc;
        if (!count) break;
        total += count;
        if (v->children[0]->len + total > (uint64_t)INT32_MAX / 2 ||
            (!p->min_item && total > MAX_ZERO_BYTE_ITEMS))
          return corrupt(r, p, "too many items", err);
        for (uint64_t i = 0; i < count; i++) {
          if (p->op == OP_LIST) {
            rc = dec(&p->kids[0], r, v->children[0], depth + 1, err);
          } else {
            rc = dec(&p->kids[0], r, v->children[0], depth + 1, err);
            if (!rc) rc = dec(&p->kids[1], r, v->children[1], depth + 1, err);
          }
          if (rc) return rc;
        }
      }
      ty_vec_append_list_end(v);
      return FL_OK;
    }
    case OP_UNION_STRUCT: {
      size_t at = r->pos;
      rc = rd_long(r, &x, err);
      if (rc) return rc;
      if (x < 0 || (uint64_t)x >= p->nkids) {
        r->pos = at;
        return corrupt(r, p, "union branch out of range", err);
      }
      int32_t f = p->branch_field[x];
      if (f < 0) {
        ty_vec_append_null(v);
        return FL_OK;
      }
      ty_vec_append_i32(v->children[0], f - 1);
      for (uint32_t c = 1; c < v->nchildren; c++) {
        if ((int32_t)c == f) {
          rc = dec(&p->kids[x], r, v->children[c], depth + 1, err);
          if (rc) return rc;
        } else {
          ty_vec_append_null(v->children[c]);
        }
      }
      ty_vec_append_struct(v);
      return FL_OK;
    }
  }
  return corrupt(r, p, "unknown plan step", err);
}

int av_plan_decode_row(const av_plan_t *p, fl_rd_t *r, ty_batch_t *b, fl_err_t *err) {
  return dec_fields(p, r, b->cols, 0, err);
}

/* ---- encoding ---- */

static int enc(const av_plan_t *p, const ty_vec_t *v, uint32_t i, fl_buf_t *out, int depth,
               fl_err_t *err);

static int enc_fields(const av_plan_t *p, ty_vec_t *const *cols, uint32_t i, fl_buf_t *out,
                      int depth, fl_err_t *err) {
  if (p->nmissing)
    return fl_err_set(err, FL_EINVALID, "avro encode: record %s lacks a column of the batch",
                      p->as->fullname);
  for (uint32_t k = 0; k < p->nkids; k++) {
    if (p->slot[k] < 0)
      return fl_err_set(err, FL_EINVALID, "avro encode: no batch column for field %s",
                        p->as->fields[k].name);
    int rc = enc(&p->kids[k], cols[p->slot[k]], i, out, depth + 1, err);
    if (rc) return rc;
  }
  return FL_OK;
}

static int enc(const av_plan_t *p, const ty_vec_t *v, uint32_t i, fl_buf_t *out, int depth,
               fl_err_t *err) {
  bool is_null = v->null_count && ty_vec_is_null(v, i);
  if (p->is_union) {
    if (is_null) {
      if (p->null_branch < 0)
        return fl_err_set(err, FL_EINVALID, "avro encode: null in required field %s", p->name);
      fl_buf_append_zvarint(out, p->null_branch);
      return FL_OK;
    }
    fl_buf_append_zvarint(out, p->value_branch);
  } else if (is_null) {
    return fl_err_set(err, FL_EINVALID, "avro encode: null in required field %s", p->name);
  }
  switch (p->op) {
    case OP_BOOL: fl_buf_append_u8(out, v->data[i] ? 1 : 0); return FL_OK;
    case OP_INT: fl_buf_append_zvarint(out, TY_VEC_DATA(v, int32_t)[i]); return FL_OK;
    case OP_LONG: fl_buf_append_zvarint(out, TY_VEC_DATA(v, int64_t)[i]); return FL_OK;
    case OP_FLOAT: {
      uint32_t b;
      memcpy(&b, v->data + (size_t)i * 4, 4);
      fl_buf_append_le32(out, b);
      return FL_OK;
    }
    case OP_DOUBLE: {
      uint64_t b;
      memcpy(&b, v->data + (size_t)i * 8, 8);
      fl_buf_append_le64(out, b);
      return FL_OK;
    }
    case OP_BYTES: {
      size_t n;
      const uint8_t *b = ty_vec_get_bytes(v, i, &n);
      fl_buf_append_zvarint(out, (int64_t)n);
      fl_buf_append(out, b, n);
      return FL_OK;
    }
    case OP_FIXED: {
      size_t n;
      const uint8_t *b = ty_vec_get_bytes(v, i, &n);
      if (n != (size_t)p->as->size)
        return fl_err_set(err, FL_EINVALID, "avro encode: field %s needs %d bytes, got %zu", p->name,
                          p->as->size, n);
      fl_buf_append(out, b, n);
      return FL_OK;
    }
    case OP_DEC_FIXED:
    case OP_DEC_BYTES: {
      fl_i128 x = ty_vec_get_i128(v, i), max = ty_decimal_max(p->type->precision);
      if (x > max || x < -max)
        return fl_err_set(err, FL_EINVALID, "avro encode: decimal in field %s exceeds precision %d",
                          p->name, p->type->precision);
      uint8_t be[16];
      for (int k = 0; k < 16; k++) be[15 - k] = (uint8_t)((unsigned __int128)x >> (8 * k));
      size_t n = p->op == OP_DEC_FIXED ? (size_t)p->as->size : 16;
      if (p->op == OP_DEC_BYTES) {
        /* Minimal two's complement. */
        size_t skip = 0;
        while (skip < 15 && ((be[skip] == 0 && !(be[skip + 1] & 0x80)) ||
                             (be[skip] == 0xff && (be[skip + 1] & 0x80))))
          skip++;
        n = 16 - skip;
        fl_buf_append_zvarint(out, (int64_t)n);
      }
      fl_buf_append(out, be + 16 - n, n);
      return FL_OK;
    }
    case OP_RECORD: return enc_fields(p, v->children, i, out, depth, err);
    case OP_LIST:
    case OP_MAP:
    case OP_KV_LIST: {
      int32_t b = v->offsets[i], e = v->offsets[i + 1];
      if (e > b) {
        fl_buf_append_zvarint(out, e - b);
        for (int32_t k = b; k < e; k++) {
          int rc = enc(&p->kids[0], v->children[0], (uint32_t)k, out, depth + 1, err);
          if (!rc && p->op != OP_LIST) rc = enc(&p->kids[1], v->children[1], (uint32_t)k, out, depth + 1, err);
          if (rc) return rc;
        }
      }
      fl_buf_append_u8(out, 0);
      return FL_OK;
    }
    default:
      return fl_err_set(err, FL_EUNSUPPORTED, "avro encode: field %s has a type floe only reads",
                        p->name);
  }
}

int av_plan_encode_row(const av_plan_t *p, const ty_batch_t *b, uint32_t row, fl_buf_t *out,
                       fl_err_t *err) {
  return enc_fields(p, b->cols, row, out, 0, err);
}
