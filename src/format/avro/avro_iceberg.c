/*
 * avro_iceberg.c - conversion between Iceberg and Avro schemas (see
 * avro_iceberg.h for the mapping).
 */
#include "format/avro/avro_iceberg.h"

#include <stdio.h>
#include <string.h>

#define MAX_DEPTH 64

/* ---- Iceberg -> Avro ---- */

typedef struct named_cache {
  av_schema_t *items[64];
  int n;
} named_cache_t;

typedef struct to_ctx {
  fl_arena_t *a;
  named_cache_t cache;
  fl_err_t *err;
} to_ctx_t;

static av_schema_t *cached(to_ctx_t *c, const char *name) {
  for (int i = 0; i < c->cache.n; i++)
    if (!strcmp(c->cache.items[i]->fullname, name)) return c->cache.items[i];
  return NULL;
}

static av_schema_t *remember(to_ctx_t *c, av_schema_t *s) {
  if (c->cache.n < 64) c->cache.items[c->cache.n++] = s;
  return s;
}

static av_schema_t *logical_prim(fl_arena_t *a, av_type_t t, const char *lt) {
  av_schema_t *s = av_schema_new(a, t);
  s->logical_name = lt;
  return s;
}

static int min_decimal_bytes(int precision) {
  /* Smallest n with 2^(8n-1) > 10^precision - 1. */
  for (int n = 1; n <= 16; n++) {
    double maxp = (8.0 * n - 1) * 0.30102999566398;
    if ((double)precision <= maxp + 1e-9) return n;
  }
  return 16;
}

static av_schema_t *optional_of(fl_arena_t *a, av_schema_t *t) {
  av_schema_t *u = av_schema_new(a, AV_UNION);
  u->nbranches = 2;
  u->branches = fl_arena_alloc(a, sizeof *u->branches * 2);
  u->branches[0] = av_schema_new(a, AV_NULL);
  u->branches[1] = t;
  return u;
}

static void id_attr(fl_arena_t *a, av_attr_t **attrs, uint32_t *n, const char *key, int32_t id,
                    bool is_field, void *target) {
  char buf[16];
  snprintf(buf, sizeof buf, "%d", id);
  if (is_field)
    av_field_add_attr(a, target, key, buf);
  else
    av_schema_add_attr(a, target, key, buf);
  (void)attrs;
  (void)n;
}

static int to_avro(to_ctx_t *c, const ty_type_t *t, int32_t id, const char *record_name,
                   int depth, av_schema_t **out);

static int record_of(to_ctx_t *c, const ty_type_t *t, const char *name, int depth, av_schema_t **out) {
  fl_arena_t *a = c->a;
  av_schema_t *r = av_schema_new(a, AV_RECORD);
  av_schema_set_name(a, r, name, NULL);
  r->nfields = t->nfields;
  r->fields = fl_arena_zalloc(a, sizeof *r->fields * (t->nfields ? t->nfields : 1));
  for (uint32_t i = 0; i < t->nfields; i++) {
    const ty_field_t *f = &t->fields[i];
    av_field_t *af = &r->fields[i];
    af->name = fl_arena_strdup(a, f->name);
    if (f->doc) af->doc = fl_arena_strdup(a, f->doc);
    av_schema_t *ft;
    int rc = to_avro(c, f->type, f->id, NULL, depth + 1, &ft);
    if (rc) return rc;
    if (!f->required) {
      ft = optional_of(a, ft);
      af->default_json = "null";
    }
    af->type = ft;
    id_attr(a, NULL, NULL, "field-id", f->id, true, af);
  }
  *out = r;
  return FL_OK;
}

static int to_avro(to_ctx_t *c, const ty_type_t *t, int32_t id, const char *record_name,
                   int depth, av_schema_t **out) {
  fl_arena_t *a = c->a;
  if (depth > MAX_DEPTH) return fl_err_set(c->err, FL_EUNSUPPORTED, "iceberg type nests too deeply");
  char name[64];
  switch (t->kind) {
    case TY_BOOLEAN: *out = av_schema_new(a, AV_BOOLEAN); return FL_OK;
    case TY_INT: *out = av_schema_new(a, AV_INT); return FL_OK;
    case TY_LONG: *out = av_schema_new(a, AV_LONG); return FL_OK;
    case TY_FLOAT: *out = av_schema_new(a, AV_FLOAT); return FL_OK;
    case TY_DOUBLE: *out = av_schema_new(a, AV_DOUBLE); return FL_OK;
    case TY_STRING: *out = av_schema_new(a, AV_STRING); return FL_OK;
    case TY_BINARY: *out = av_schema_new(a, AV_BYTES); return FL_OK;
    case TY_DATE:
      *out = logical_prim(a, AV_INT, "date");
      (*out)->logical = AV_LT_DATE;
      return FL_OK;
    case TY_TIME:
      *out = logical_prim(a, AV_LONG, "time-micros");
      (*out)->logical = AV_LT_TIME_MICROS;
      return FL_OK;
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS: {
      bool ns = t->kind == TY_TIMESTAMP_NS || t->kind == TY_TIMESTAMPTZ_NS;
      bool tz = t->kind == TY_TIMESTAMPTZ || t->kind == TY_TIMESTAMPTZ_NS;
      av_schema_t *s = logical_prim(a, AV_LONG, ns ? "timestamp-nanos" : "timestamp-micros");
      s->logical = ns ? AV_LT_TIMESTAMP_NANOS : AV_LT_TIMESTAMP_MICROS;
      av_schema_add_attr(a, s, "adjust-to-utc", tz ? "true" : "false");
      *out = s;
      return FL_OK;
    }
    case TY_DECIMAL: {
      snprintf(name, sizeof name, "decimal_%d_%d", t->precision, t->scale);
      av_schema_t *s = cached(c, name);
      if (!s) {
        s = av_schema_new(a, AV_FIXED);
        av_schema_set_name(a, s, name, NULL);
        s->size = min_decimal_bytes(t->precision);
        s->logical = AV_LT_DECIMAL;
        s->logical_name = "decimal";
        s->precision = t->precision;
        s->scale = t->scale;
        remember(c, s);
      }
      *out = s;
      return FL_OK;
    }
    case TY_UUID:
    case TY_FIXED: {
      bool uuid = t->kind == TY_UUID;
      if (uuid)
        snprintf(name, sizeof name, "uuid_fixed");
      else
        snprintf(name, sizeof name, "fixed_%d", t->length);
      av_schema_t *s = cached(c, name);
      if (!s) {
        s = av_schema_new(a, AV_FIXED);
        av_schema_set_name(a, s, name, NULL);
        s->size = uuid ? 16 : t->length;
        if (uuid) {
          s->logical = AV_LT_UUID;
          s->logical_name = "uuid";
        }
        remember(c, s);
      }
      *out = s;
      return FL_OK;
    }
    case TY_STRUCT: {
      char rn[32];
      if (!record_name) snprintf(rn, sizeof rn, "r%d", id);
      return record_of(c, t, record_name ? record_name : rn, depth, out);
    }
    case TY_LIST: {
      const ty_field_t *e = &t->fields[0];
      av_schema_t *it;
      int rc = to_avro(c, e->type, e->id, NULL, depth + 1, &it);
      if (rc) return rc;
      av_schema_t *s = av_schema_new(a, AV_ARRAY);
      s->items = e->required ? it : optional_of(a, it);
      id_attr(a, NULL, NULL, "element-id", e->id, false, s);
      *out = s;
      return FL_OK;
    }
    case TY_MAP: {
      const ty_field_t *k = &t->fields[0], *v = &t->fields[1];
      av_schema_t *ks, *vs;
      int rc = to_avro(c, k->type, k->id, NULL, depth + 1, &ks);
      if (!rc) rc = to_avro(c, v->type, v->id, NULL, depth + 1, &vs);
      if (rc) return rc;
      if (!v->required) vs = optional_of(a, vs);
      if (k->type->kind == TY_STRING) {
        av_schema_t *s = av_schema_new(a, AV_MAP);
        s->items = vs;
        id_attr(a, NULL, NULL, "key-id", k->id, false, s);
        id_attr(a, NULL, NULL, "value-id", v->id, false, s);
        *out = s;
        return FL_OK;
      }
      av_schema_t *r = av_schema_new(a, AV_RECORD);
      snprintf(name, sizeof name, "k%d_v%d", k->id, v->id);
      av_schema_set_name(a, r, name, NULL);
      r->nfields = 2;
      r->fields = fl_arena_zalloc(a, sizeof *r->fields * 2);
      r->fields[0].name = "key";
      r->fields[0].type = ks;
      id_attr(a, NULL, NULL, "field-id", k->id, true, &r->fields[0]);
      r->fields[1].name = "value";
      r->fields[1].type = vs;
      if (!v->required) r->fields[1].default_json = "null";
      id_attr(a, NULL, NULL, "field-id", v->id, true, &r->fields[1]);
      av_schema_t *s = av_schema_new(a, AV_ARRAY);
      s->items = r;
      s->logical = AV_LT_OTHER;
      s->logical_name = "map";
      *out = s;
      return FL_OK;
    }
    default: return fl_err_set(c->err, FL_EUNSUPPORTED, "iceberg type %s has no avro form", ty_kind_name(t->kind));
  }
}

int av_type_from_iceberg(fl_arena_t *a, const ty_type_t *t, bool required, const char *root_name,
                         av_schema_t **out, fl_err_t *err) {
  to_ctx_t c = {.a = a, .err = err};
  av_schema_t *s;
  int rc = to_avro(&c, t, 0, root_name ? root_name : "r0", 0, &s);
  if (rc) return rc;
  *out = required ? s : optional_of(a, s);
  return FL_OK;
}

int av_schema_from_iceberg(fl_arena_t *a, const ty_schema_t *s, const char *root_name,
                           av_schema_t **out, fl_err_t *err) {
  return av_type_from_iceberg(a, &s->root, true, root_name ? root_name : "table", out, err);
}

/* ---- Avro -> Iceberg ---- */

bool av_is_kv_array(const av_schema_t *s) {
  if (s->type != AV_ARRAY || !s->items || s->items->type != AV_RECORD) return false;
  const av_schema_t *r = s->items;
  if (r->nfields != 2 || strcmp(r->fields[0].name, "key") || strcmp(r->fields[1].name, "value"))
    return false;
  return s->logical_name && !strcmp(s->logical_name, "map");
}

bool av_is_union_struct(const av_schema_t *s) {
  if (s->type != AV_UNION) return false;
  uint32_t nonnull = 0;
  for (uint32_t i = 0; i < s->nbranches; i++) nonnull += s->branches[i]->type != AV_NULL;
  return nonnull > 1;
}

typedef struct from_ctx {
  fl_arena_t *a;
  int32_t next_id;
  fl_err_t *err;
  char path[256];
} from_ctx_t;

static void scan_ids(const av_schema_t *s, int depth, int32_t *max) {
  if (depth > MAX_DEPTH) return;
  static const char *const keys[] = {"element-id", "key-id", "value-id"};
  for (int k = 0; k < 3; k++) {
    int64_t v;
    if (av_attr_int(av_schema_attr(s, keys[k]), &v) && v > *max && v < INT32_MAX) *max = (int32_t)v;
  }
  switch (s->type) {
    case AV_RECORD:
      for (uint32_t i = 0; i < s->nfields; i++) {
        int64_t v;
        if (av_attr_int(av_field_attr(&s->fields[i], "field-id"), &v) && v > *max && v < INT32_MAX)
          *max = (int32_t)v;
        scan_ids(s->fields[i].type, depth + 1, max);
      }
      break;
    case AV_ARRAY:
    case AV_MAP: scan_ids(s->items, depth + 1, max); break;
    case AV_UNION:
      for (uint32_t i = 0; i < s->nbranches; i++) scan_ids(s->branches[i], depth + 1, max);
      break;
    default: break;
  }
}

static int32_t take_id(from_ctx_t *c, const char *json) {
  int64_t v;
  if (av_attr_int(json, &v) && v >= 0 && v < INT32_MAX) return (int32_t)v;
  return c->next_id++;
}

static int from_avro(from_ctx_t *c, const av_schema_t *s, int depth, const ty_type_t **out,
                     bool *required);

/* Unwraps ["null", T] (or [T] alone). */
static const av_schema_t *unwrap(const av_schema_t *s, bool *required) {
  uint32_t vb;
  *required = true;
  if (av_schema_is_option(s, &vb, NULL)) {
    *required = false;
    return s->branches[vb];
  }
  if (s->type == AV_UNION && s->nbranches == 1) return s->branches[0];
  return s;
}

static int unsupported(from_ctx_t *c, const char *what) {
  return fl_err_set(c->err, FL_EUNSUPPORTED, "avro type %s has no iceberg equivalent", what);
}

static int from_record(from_ctx_t *c, const av_schema_t *s, int depth, const ty_type_t **out) {
  ty_field_t *fs = fl_arena_zalloc(c->a, sizeof *fs * (s->nfields ? s->nfields : 1));
  /* Ids for this level first, then the nested ones, as Iceberg assigns. */
  for (uint32_t i = 0; i < s->nfields; i++) fs[i].id = take_id(c, av_field_attr(&s->fields[i], "field-id"));
  for (uint32_t i = 0; i < s->nfields; i++) {
    const av_field_t *f = &s->fields[i];
    fs[i].name = f->name;
    fs[i].doc = f->doc;
    int rc = from_avro(c, f->type, depth + 1, &fs[i].type, &fs[i].required);
    if (rc) return fl_err_prefix(c->err, "field %s: ", f->name);
  }
  *out = ty_struct_new(c->a, fs, s->nfields);
  return FL_OK;
}

static int from_avro(from_ctx_t *c, const av_schema_t *s, int depth, const ty_type_t **out,
                     bool *required) {
  if (depth > MAX_DEPTH)
    return fl_err_set(c->err, FL_EUNSUPPORTED, "avro schema nests too deeply (recursive types are not supported)");
  s = unwrap(s, required);
  switch (s->type) {
    case AV_NULL: return unsupported(c, "null");
    case AV_BOOLEAN: *out = ty_primitive(TY_BOOLEAN); return FL_OK;
    case AV_INT:
      *out = ty_primitive(s->logical == AV_LT_DATE ? TY_DATE
                          : s->logical == AV_LT_TIME_MILLIS ? TY_TIME
                                                            : TY_INT);
      return FL_OK;
    case AV_LONG: {
      ty_kind_t k = TY_LONG;
      const char *adj = av_schema_attr(s, "adjust-to-utc");
      bool tz = !adj || strcmp(adj, "false") != 0;
      switch (s->logical) {
        case AV_LT_TIME_MICROS: k = TY_TIME; break;
        case AV_LT_TIMESTAMP_MILLIS:
        case AV_LT_TIMESTAMP_MICROS: k = tz ? TY_TIMESTAMPTZ : TY_TIMESTAMP; break;
        case AV_LT_TIMESTAMP_NANOS: k = tz ? TY_TIMESTAMPTZ_NS : TY_TIMESTAMP_NS; break;
        case AV_LT_LOCAL_TIMESTAMP_MILLIS:
        case AV_LT_LOCAL_TIMESTAMP_MICROS: k = TY_TIMESTAMP; break;
        case AV_LT_LOCAL_TIMESTAMP_NANOS: k = TY_TIMESTAMP_NS; break;
        default: break;
      }
      *out = ty_primitive(k);
      return FL_OK;
    }
    case AV_FLOAT: *out = ty_primitive(TY_FLOAT); return FL_OK;
    case AV_DOUBLE: *out = ty_primitive(TY_DOUBLE); return FL_OK;
    case AV_BYTES:
    case AV_FIXED:
      if (s->logical == AV_LT_DECIMAL) {
        if (s->precision > 38) return unsupported(c, "decimal with precision over 38");
        *out = ty_decimal(c->a, s->precision, s->scale);
      } else if (s->logical == AV_LT_UUID) {
        *out = ty_primitive(TY_UUID);
      } else if (s->type == AV_FIXED) {
        if (s->size < 1) return unsupported(c, "fixed of size 0");
        *out = ty_fixed(c->a, s->size);
      } else {
        *out = ty_primitive(TY_BINARY);
      }
      return FL_OK;
    case AV_STRING:
      *out = ty_primitive(s->logical == AV_LT_UUID ? TY_UUID : TY_STRING);
      return FL_OK;
    case AV_ENUM: *out = ty_primitive(TY_STRING); return FL_OK;
    case AV_RECORD: return from_record(c, s, depth, out);
    case AV_ARRAY: {
      if (av_is_kv_array(s)) {
        const av_schema_t *r = s->items;
        int32_t kid = take_id(c, av_field_attr(&r->fields[0], "field-id"));
        int32_t vid = take_id(c, av_field_attr(&r->fields[1], "field-id"));
        const ty_type_t *kt, *vt;
        bool kreq, vreq;
        int rc = from_avro(c, r->fields[0].type, depth + 1, &kt, &kreq);
        if (!rc) rc = from_avro(c, r->fields[1].type, depth + 1, &vt, &vreq);
        if (rc) return rc;
        if (!kreq) return unsupported(c, "map with optional keys");
        *out = ty_map_new(c->a, kid, kt, vid, vreq, vt);
        return FL_OK;
      }
      int32_t eid = take_id(c, av_schema_attr(s, "element-id"));
      const ty_type_t *et;
      bool ereq;
      int rc = from_avro(c, s->items, depth + 1, &et, &ereq);
      if (rc) return rc;
      *out = ty_list_new(c->a, eid, ereq, et);
      return FL_OK;
    }
    case AV_MAP: {
      int32_t kid = take_id(c, av_schema_attr(s, "key-id"));
      int32_t vid = take_id(c, av_schema_attr(s, "value-id"));
      const ty_type_t *vt;
      bool vreq;
      int rc = from_avro(c, s->items, depth + 1, &vt, &vreq);
      if (rc) return rc;
      *out = ty_map_new(c->a, kid, ty_primitive(TY_STRING), vid, vreq, vt);
      return FL_OK;
    }
    case AV_UNION: {
      /* Several non-null branches: Iceberg's struct {tag, field0..N}. */
      uint32_t nonnull = 0;
      bool has_null = false;
      for (uint32_t i = 0; i < s->nbranches; i++) {
        if (s->branches[i]->type == AV_NULL)
          has_null = true;
        else
          nonnull++;
      }
      if (!nonnull) return unsupported(c, "union of only null");
      ty_field_t *fs = fl_arena_zalloc(c->a, sizeof *fs * (nonnull + 1));
      for (uint32_t i = 0; i <= nonnull; i++) fs[i].id = c->next_id++;
      fs[0].name = "tag";
      fs[0].required = true;
      fs[0].type = ty_primitive(TY_INT);
      uint32_t k = 1;
      for (uint32_t i = 0; i < s->nbranches; i++) {
        if (s->branches[i]->type == AV_NULL) continue;
        bool req;
        fs[k].name = fl_arena_sprintf(c->a, "field%u", k - 1);
        int rc = from_avro(c, s->branches[i], depth + 1, &fs[k].type, &req);
        if (rc) return rc;
        fs[k].required = false;
        k++;
      }
      *required = !has_null;
      *out = ty_struct_new(c->a, fs, nonnull + 1);
      return FL_OK;
    }
  }
  return unsupported(c, av_type_name(s->type));
}

int av_schema_to_iceberg(fl_arena_t *a, const av_schema_t *s, ty_schema_t **out, fl_err_t *err) {
  if (s->type != AV_RECORD)
    return fl_err_set(err, FL_EUNSUPPORTED, "avro schema: the top level is a %s, not a record",
                      av_type_name(s->type));
  int32_t max = 0;
  scan_ids(s, 0, &max);
  from_ctx_t c = {.a = a, .next_id = max + 1, .err = err};
  /* Top-level columns without ids take 1..n first, as Iceberg assigns. */
  const ty_type_t *root;
  int rc = from_record(&c, s, 0, &root);
  if (rc) return rc;
  *out = ty_schema_new(a, 0, root->fields, root->nfields);
  return FL_OK;
}
