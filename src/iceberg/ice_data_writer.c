/*
 * ice_data_writer.c - the fanout writer of Iceberg data and delete files
 * (layer 5, iceberg).
 *
 * Algorithm. Each batch is split by partition: for every live row the
 * partition tuple is computed (source value found by walking the column's
 * struct path, transformed) and encoded as a key (per field a null flag,
 * then the value's single-value binary form with its length), and the key
 * is looked up in an open-addressing table of partitions. Consecutive rows
 * with the same key skip the lookup. Each partition collects the batch's
 * row indexes and then writes them as a selection of the original batch
 * into its open Parquet file (no copy of the rows). After each batch the
 * files that reached the target size are finished, and while the open
 * files exceed the count or memory bound the one holding the most
 * buffered bytes is finished.
 *
 * Position deletes are buffered as (interned path, pos) pairs and sorted
 * before they are written, so every position delete file is sorted by
 * path then pos as the spec requires.
 *
 * States of a partition: no open file (pw NULL) or one open file. States
 * of the writer: open, failed (only abort remains), closed (the result
 * list is out; abort still deletes the files).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "format/parquet/pq_writer.h"
#include "iceberg/ice_conv.h"
#include "iceberg/ice_data_writer.h"
#include "iceberg/ice_schema_json.h"

#define DEFAULT_TARGET_BYTES (512ull << 20)
#define DEFAULT_MAX_OPEN 64
#define DEFAULT_MAX_BUFFERED (256ull << 20)
#define DEFAULT_MAX_DELETES 1000000
#define DEFAULT_TRUNCATE 16
#define DEFAULT_MAX_INFERRED 100
#define MAX_PATH_DEPTH 32
#define ROLL_CHECK_ROWS 256

typedef enum { M_NONE, M_COUNTS, M_TRUNCATE, M_FULL } mode_kind_t;

typedef struct mode {
  mode_kind_t kind;
  int len; /* M_TRUNCATE */
} metrics_mode_t;

/* A leaf column of the file schema with its metrics mode. */
typedef struct leaf_mode {
  int32_t field_id;
  metrics_mode_t mode;
} leaf_mode_t;

/* Where a spec field's source value sits: child indexes from the batch's
 * columns down through structs. depth 0: the source is absent (void). */
typedef struct src_path {
  uint32_t depth;
  uint32_t idx[MAX_PATH_DEPTH];
  const ty_type_t *type;
  const ty_type_t *result_type;
} src_path_t;

typedef struct part {
  uint8_t *key;
  size_t key_len;
  uint64_t hash;
  ty_value_t *values; /* bytes in the writer's arena */
  char *dir;          /* "<data>/<partition path>/" */
  pq_writer_t *pw;    /* open file or NULL */
  char *path;         /* its path */
  uint32_t *rows;     /* rows of the current batch */
  uint32_t nrows, rows_cap;
  struct part *next_touched;
  bool touched;
} part_t;

typedef struct pos_del {
  const char *path;
  size_t n;
  int64_t pos;
} pos_del_t;

struct ice_dw {
  io_fs_t *fs;
  fl_arena_t *arena; /* the writer's lifetime: schema copies, tuples, finished files */
  const ty_schema_t *table_schema;
  const ty_schema_t *schema; /* the file schema */
  char *schema_json;
  ice_content_t content;
  const ice_spec_t *spec;
  bool partitioned; /* rows are split by computed tuples */
  const ty_type_t *partition_type;
  src_path_t *src;    /* per spec field */
  uint32_t nfields;   /* spec fields (0 without a spec) */
  int32_t spec_id;
  int32_t *equality_ids;
  uint32_t nequality_ids;
  int32_t sort_order_id;
  char *data_dir; /* without trailing '/' */
  char uuid[37];
  int32_t partition_id;
  int64_t task_id;
  uint32_t counter;
  fmt_write_opts_t wopts;
  char *codec;
  uint64_t target_bytes;
  uint32_t max_open;
  uint64_t max_buffered;
  uint32_t max_deletes;
  leaf_mode_t *modes;
  uint32_t nmodes;
  /* partitions */
  part_t **parts; /* hash table */
  uint32_t parts_cap, nparts;
  part_t *single; /* unpartitioned data and delete files */
  uint32_t nopen;
  fl_buf_t key, prev_key;
  part_t *prev_part;
  /* position deletes */
  pos_del_t *dels;
  size_t ndels, dels_cap;
  const char **paths; /* interned path set */
  size_t *path_lens;
  uint32_t paths_cap, npaths;
  ty_batch_t *del_batch;
  /* finished files */
  ice_data_file_t *files;
  size_t nfiles, files_cap;
  uint32_t ident[ROLL_CHECK_ROWS];
  bool failed;
};

/* ---- properties ---- */

static const char *prop(const ice_kv_t *kv, uint32_t n, const char *key) {
  for (uint32_t i = 0; i < n; i++)
    if (kv[i].key && strcmp(kv[i].key, key) == 0) return kv[i].value;
  return NULL;
}

static int prop_u64(const ice_kv_t *kv, uint32_t n, const char *key, uint64_t def, uint64_t min,
                    uint64_t *out, fl_err_t *err) {
  const char *v = prop(kv, n, key);
  if (!v) {
    *out = def;
    return FL_OK;
  }
  char *end;
  unsigned long long x = strtoull(v, &end, 10);
  if (end == v || *end || v[0] == '-' || x < min)
    return fl_err_set(err, FL_EINVALID, "table property %s: '%s' is not a number of at least %llu",
                      key, v, (unsigned long long)min);
  *out = x;
  return FL_OK;
}

static int parse_mode(const char *key, const char *v, metrics_mode_t *out, fl_err_t *err) {
  if (strcasecmp(v, "none") == 0) {
    out->kind = M_NONE;
  } else if (strcasecmp(v, "counts") == 0) {
    out->kind = M_COUNTS;
  } else if (strcasecmp(v, "full") == 0) {
    out->kind = M_FULL;
  } else if (strncasecmp(v, "truncate(", 9) == 0) {
    char *end;
    long n = strtol(v + 9, &end, 10);
    if (end == v + 9 || strcmp(end, ")") != 0 || n <= 0 || n > 1000000)
      return fl_err_set(err, FL_EINVALID, "table property %s: bad truncate length in '%s'", key, v);
    out->kind = M_TRUNCATE;
    out->len = (int)n;
  } else {
    return fl_err_set(err, FL_EINVALID,
                      "table property %s: '%s' is not none, counts, truncate(N) or full", key, v);
  }
  return FL_OK;
}

/* Walks the file schema's leaves in order, giving each its metrics mode. */
typedef struct mode_ctx {
  ice_dw_t *w;
  const ice_kv_t *props;
  uint32_t nprops;
  metrics_mode_t def;
  bool def_explicit;
  uint64_t max_inferred;
  fl_buf_t name;
  int rc;
  fl_err_t *err;
} mode_ctx_t;

static void add_leaf_modes(mode_ctx_t *c, const ty_type_t *t) {
  for (uint32_t i = 0; i < t->nfields && !c->rc; i++) {
    const ty_field_t *f = &t->fields[i];
    size_t keep = c->name.len;
    if (keep) fl_buf_append_u8(&c->name, '.');
    fl_buf_append_str(&c->name, f->name);
    if (ty_is_nested(f->type)) {
      add_leaf_modes(c, f->type);
    } else {
      ice_dw_t *w = c->w;
      metrics_mode_t m = c->def;
      if (!c->def_explicit && w->nmodes >= c->max_inferred) m.kind = M_NONE;
      if (w->content == ICE_CONTENT_POSITION_DELETES) m.kind = M_FULL;
      fl_buf_t key;
      fl_buf_init(&key);
      fl_buf_printf(&key, "write.metadata.metrics.column.%.*s%c", (int)c->name.len,
                    (const char *)c->name.data, 0);
      const char *v = prop(c->props, c->nprops, (const char *)key.data);
      if (v && w->content != ICE_CONTENT_POSITION_DELETES)
        c->rc = parse_mode((const char *)key.data, v, &m, c->err);
      fl_buf_free(&key);
      w->modes = fl_realloc(w->modes, (w->nmodes + 1) * sizeof *w->modes);
      w->modes[w->nmodes++] = (leaf_mode_t){f->id, m};
    }
    c->name.len = keep;
  }
}

static int setup_modes(ice_dw_t *w, const ice_kv_t *props, uint32_t nprops, fl_err_t *err) {
  mode_ctx_t c = {.w = w, .props = props, .nprops = nprops, .err = err};
  c.def = (metrics_mode_t){M_TRUNCATE, DEFAULT_TRUNCATE};
  const char *key = "write.metadata.metrics.default";
  const char *v = prop(props, nprops, key);
  if (v) {
    int rc = parse_mode(key, v, &c.def, err);
    if (rc) return rc;
    c.def_explicit = true;
  }
  int rc = prop_u64(props, nprops, "write.metadata.metrics.max-inferred-column-defaults",
                    DEFAULT_MAX_INFERRED, 0, &c.max_inferred, err);
  if (rc) return rc;
  fl_buf_init(&c.name);
  add_leaf_modes(&c, &w->schema->root);
  fl_buf_free(&c.name);
  return c.rc;
}

static const metrics_mode_t *leaf_mode(const ice_dw_t *w, int32_t field_id) {
  for (uint32_t i = 0; i < w->nmodes; i++)
    if (w->modes[i].field_id == field_id) return &w->modes[i].mode;
  return NULL;
}

static int setup_parquet(ice_dw_t *w, const ice_kv_t *props, uint32_t nprops, fl_err_t *err) {
  int rc;
  uint64_t x;
  const char *codec = prop(props, nprops, "write.parquet.compression-codec");
  if (!codec) codec = "zstd";
  if (strcasecmp(codec, "lz4") == 0) codec = "lz4_raw";
  if (strcasecmp(codec, "zstd") && strcasecmp(codec, "snappy") && strcasecmp(codec, "gzip") &&
      strcasecmp(codec, "lz4_raw") && strcasecmp(codec, "uncompressed") &&
      strcasecmp(codec, "none"))
    return fl_err_set(err, FL_EUNSUPPORTED,
                      "table property write.parquet.compression-codec: '%s' is not supported "
                      "(zstd, snappy, gzip, lz4, uncompressed)",
                      codec);
  w->codec = fl_arena_strdup(w->arena, codec);
  w->wopts.compression = w->codec;
  const char *lv = prop(props, nprops, "write.parquet.compression-level");
  if (lv) {
    char *end;
    long l = strtol(lv, &end, 10);
    if (end == lv || *end || l < -131072 || l > 22)
      return fl_err_set(err, FL_EINVALID,
                        "table property write.parquet.compression-level: '%s' is not a level", lv);
    w->wopts.compression_level = (int)l;
  }
  if ((rc = prop_u64(props, nprops, "write.parquet.row-group-size-bytes", 128ull << 20, 1, &x, err)))
    return rc;
  w->wopts.row_group_bytes = x;
  if ((rc = prop_u64(props, nprops, "write.parquet.page-size-bytes", 1ull << 20, 1, &x, err)))
    return rc;
  w->wopts.page_bytes = x;
  if ((rc = prop_u64(props, nprops, "write.parquet.dict-size-bytes", 2ull << 20, 1, &x, err)))
    return rc;
  w->wopts.dict_page_bytes = x;
  if ((rc = prop_u64(props, nprops, "write.parquet.page-row-limit", 20000, 1, &x, err))) return rc;
  w->wopts.page_rows = x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
  if ((rc = prop_u64(props, nprops, "write.target-file-size-bytes", DEFAULT_TARGET_BYTES, 1,
                     &w->target_bytes, err)))
    return rc;
  return FL_OK;
}

/* ---- schemas ---- */

static bool id_in(const int32_t *ids, uint32_t n, int32_t id) {
  for (uint32_t i = 0; i < n; i++)
    if (ids[i] == id) return true;
  return false;
}

/* The struct t projected on ids: selected primitives, and structs keeping
 * their selected descendants. Sets *found for each id met. */
static const ty_type_t *project(fl_arena_t *a, const ty_type_t *t, const int32_t *ids, uint32_t n,
                                uint32_t *found, int *rc, fl_err_t *err) {
  ty_field_t *out = fl_arena_zalloc(a, (t->nfields ? t->nfields : 1) * sizeof *out);
  uint32_t k = 0;
  for (uint32_t i = 0; i < t->nfields && !*rc; i++) {
    const ty_field_t *f = &t->fields[i];
    if (id_in(ids, n, f->id)) {
      if (ty_is_nested(f->type)) {
        *rc = fl_err_set(err, FL_EINVALID, "equality field %d (%s) is not a primitive column",
                         f->id, f->name);
        return NULL;
      }
      out[k++] = *f;
      (*found)++;
    } else if (f->type->kind == TY_STRUCT) {
      const ty_type_t *sub = project(a, f->type, ids, n, found, rc, err);
      if (sub && sub->nfields) {
        out[k] = *f;
        out[k++].type = sub;
      }
    }
  }
  return ty_struct_new(a, out, k);
}

static int setup_schema(ice_dw_t *w, const ty_schema_t *schema, fl_err_t *err) {
  fl_arena_t *a = w->arena;
  if (w->content == ICE_CONTENT_POSITION_DELETES) {
    ty_field_t f[2] = {
        {.id = ICE_DELETE_FILE_PATH_ID, .name = "file_path", .required = true,
         .type = ty_primitive(TY_STRING)},
        {.id = ICE_DELETE_POS_ID, .name = "pos", .required = true, .type = ty_primitive(TY_LONG)},
    };
    w->schema = ty_schema_new(a, 0, f, 2);
    return FL_OK;
  }
  if (!schema) return fl_err_set(err, FL_EINVALID, "data writer: no table schema");
  if (w->content == ICE_CONTENT_DATA) {
    w->schema = schema;
    return FL_OK;
  }
  if (w->nequality_ids == 0)
    return fl_err_set(err, FL_EINVALID, "equality delete writer: no equality field ids");
  for (uint32_t i = 0; i < w->nequality_ids; i++) {
    const ty_field_t *f = ty_schema_find_id(schema, w->equality_ids[i]);
    if (!f)
      return fl_err_set(err, FL_EINVALID, "equality field id %d is not in the schema",
                        w->equality_ids[i]);
    for (uint32_t j = 0; j < i; j++)
      if (w->equality_ids[j] == w->equality_ids[i])
        return fl_err_set(err, FL_EINVALID, "equality field id %d is given twice",
                          w->equality_ids[i]);
  }
  uint32_t found = 0;
  int rc = FL_OK;
  const ty_type_t *root = project(a, &schema->root, w->equality_ids, w->nequality_ids, &found,
                                  &rc, err);
  if (rc) return rc;
  if (found != w->nequality_ids)
    return fl_err_set(err, FL_EINVALID,
                      "equality field ids must name primitive columns outside lists and maps");
  ty_schema_t *s = ty_schema_new(a, schema->schema_id, root->fields, root->nfields);
  w->schema = s;
  return FL_OK;
}

/* Finds field id in struct t, recording the child indexes on the way. */
static bool find_path(const ty_type_t *t, int32_t id, src_path_t *p, uint32_t depth) {
  if (depth >= MAX_PATH_DEPTH) return false;
  for (uint32_t i = 0; i < t->nfields; i++) {
    const ty_field_t *f = &t->fields[i];
    p->idx[depth] = i;
    if (f->id == id) {
      p->depth = depth + 1;
      p->type = f->type;
      return true;
    }
    if (f->type->kind == TY_STRUCT && find_path(f->type, id, p, depth + 1)) return true;
  }
  return false;
}

static int setup_sources(ice_dw_t *w, fl_err_t *err) {
  const ice_spec_t *s = w->spec;
  w->src = fl_arena_zalloc(w->arena, (s->nfields ? s->nfields : 1) * sizeof *w->src);
  for (uint32_t i = 0; i < s->nfields; i++) {
    const ice_partition_field_t *pf = &s->fields[i];
    src_path_t *p = &w->src[i];
    if (pf->transform.kind == ICE_T_VOID) continue; /* always null, source may be gone */
    if (!find_path(&w->schema->root, pf->source_id, p, 0)) {
      const ty_field_t *f = ty_schema_find_id(w->schema, pf->source_id);
      return fl_err_set(err, FL_EINVALID,
                        f ? "partition field %s: source column %d is inside a list or map"
                          : "partition field %s: source column %d is not in the schema",
                        pf->name, pf->source_id);
    }
    if (ty_is_nested(p->type) || !ice_transform_can_apply(&pf->transform, p->type)) {
      fl_buf_t t;
      fl_buf_init(&t);
      ice_transform_format(&pf->transform, &t);
      fl_buf_append_u8(&t, 0);
      int rc = fl_err_set(err, FL_EINVALID, "partition field %s: %s does not apply to %s",
                          pf->name, (const char *)t.data, ty_kind_name(p->type->kind));
      fl_buf_free(&t);
      return rc;
    }
    p->result_type = ice_transform_result_type(&pf->transform, p->type);
  }
  return FL_OK;
}

/* ---- partitions ---- */

static ty_value_t copy_value(fl_arena_t *a, const ty_value_t *v) {
  ty_value_t x = *v;
  if (!v->is_null && (v->kind == TY_STRING || v->kind == TY_BINARY || v->kind == TY_UUID ||
                      v->kind == TY_FIXED))
    x.u.bytes.p = v->u.bytes.n ? fl_arena_memdup(a, v->u.bytes.p, v->u.bytes.n)
                               : (const uint8_t *)"";
  return x;
}

static void encode_key(fl_buf_t *key, const ty_type_t *t, const ty_value_t *v) {
  if (v->is_null) {
    fl_buf_append_u8(key, 0);
    return;
  }
  fl_buf_append_u8(key, 1);
  uint8_t tmp[16];
  size_t n;
  const void *p = tmp;
  switch (t->kind) {
    case TY_BOOLEAN: tmp[0] = v->u.b; n = 1; break;
    case TY_INT:
    case TY_DATE: memcpy(tmp, &v->u.i32, 4), n = 4; break;
    case TY_FLOAT: memcpy(tmp, &v->u.f32, 4), n = 4; break;
    case TY_DOUBLE: memcpy(tmp, &v->u.f64, 8), n = 8; break;
    case TY_DECIMAL: memcpy(tmp, &v->u.i128, 16), n = 16; break;
    case TY_STRING:
    case TY_BINARY:
    case TY_UUID:
    case TY_FIXED: p = v->u.bytes.p, n = v->u.bytes.n; break;
    default: memcpy(tmp, &v->u.i64, 8), n = 8; break;
  }
  fl_buf_append_uvarint(key, n);
  fl_buf_append(key, p, n);
}

/* A new partition for the tuple values (copied) with key (copied). */
static part_t *part_new(ice_dw_t *w, const uint8_t *key, size_t key_len, uint64_t hash,
                        const ty_value_t *values) {
  part_t *p = fl_arena_zalloc(w->arena, sizeof *p);
  p->key = key_len ? fl_arena_memdup(w->arena, key, key_len) : NULL;
  p->key_len = key_len;
  p->hash = hash;
  p->values = fl_arena_zalloc(w->arena, (w->nfields ? w->nfields : 1) * sizeof *p->values);
  for (uint32_t i = 0; i < w->nfields; i++) {
    if (values)
      p->values[i] = copy_value(w->arena, &values[i]);
    else
      p->values[i] = (ty_value_t){
          .kind = w->partition_type ? w->partition_type->fields[i].type->kind : TY_INT,
          .is_null = true};
  }
  fl_buf_t dir;
  fl_buf_init(&dir);
  fl_buf_append_str(&dir, w->data_dir);
  fl_buf_append_u8(&dir, '/');
  if (w->spec && w->nfields && values && !ice_spec_is_unpartitioned(w->spec)) {
    ice_spec_partition_path(w->spec, w->partition_type, p->values, &dir);
    fl_buf_append_u8(&dir, '/');
  }
  fl_buf_append_u8(&dir, 0);
  p->dir = fl_arena_strdup(w->arena, (const char *)dir.data);
  fl_buf_free(&dir);
  return p;
}

static void parts_grow(ice_dw_t *w) {
  uint32_t cap = w->parts_cap ? w->parts_cap * 2 : 64;
  part_t **t = fl_calloc(cap, sizeof *t);
  for (uint32_t i = 0; i < w->parts_cap; i++) {
    part_t *p = w->parts[i];
    if (!p) continue;
    uint32_t j = (uint32_t)p->hash & (cap - 1);
    while (t[j]) j = (j + 1) & (cap - 1);
    t[j] = p;
  }
  fl_free(w->parts);
  w->parts = t;
  w->parts_cap = cap;
}

/* The partition of the key in w->key (values are its tuple), created when new. */
static part_t *part_lookup(ice_dw_t *w, const ty_value_t *values) {
  const uint8_t *key = w->key.data;
  size_t n = w->key.len;
  uint64_t h = fl_xxhash64(key, n, 0);
  if ((w->nparts + 1) * 4 > w->parts_cap * 3) parts_grow(w);
  uint32_t j = (uint32_t)h & (w->parts_cap - 1);
  while (w->parts[j]) {
    part_t *p = w->parts[j];
    if (p->hash == h && p->key_len == n && memcmp(p->key, key, n) == 0) return p;
    j = (j + 1) & (w->parts_cap - 1);
  }
  part_t *p = part_new(w, key, n, h, values);
  w->parts[j] = p;
  w->nparts++;
  return p;
}

/* ---- files ---- */

static ice_bytes_t bytes_of(ice_dw_t *w, const ty_type_t *t, const ty_value_t *v, fl_buf_t *tmp,
                            fl_err_t *err, int *rc) {
  ice_bytes_t b = {0};
  fl_buf_clear(tmp);
  if ((*rc = ice_value_to_bytes(t, v, tmp, err))) return b;
  b.p = tmp->len ? fl_arena_memdup(w->arena, tmp->data, tmp->len) : (const uint8_t *)"";
  b.n = tmp->len;
  return b;
}

static int cmp_col(const void *a, const void *b) {
  const ice_col_metrics_t *x = a, *y = b;
  return x->field_id < y->field_id ? -1 : x->field_id > y->field_id;
}

static bool is_truncatable(const ty_type_t *t) {
  return t->kind == TY_STRING || t->kind == TY_BINARY || t->kind == TY_FIXED;
}

/* Turns a closed Parquet writer's metrics into the next ice_data_file_t. */
static int record_file(ice_dw_t *w, part_t *p, const pq_file_metrics_t *m, fl_err_t *err) {
  if (w->nfiles == w->files_cap) {
    w->files_cap = w->files_cap ? w->files_cap * 2 : 16;
    w->files = fl_realloc(w->files, w->files_cap * sizeof *w->files);
  }
  ice_data_file_t *f = &w->files[w->nfiles];
  memset(f, 0, sizeof *f);
  f->content = w->content;
  f->path = p->path;
  f->format = "PARQUET";
  f->spec_id = w->spec_id;
  f->npartition = w->nfields;
  f->partition = p->values;
  f->record_count = m->record_count;
  f->file_size = m->file_size;
  f->sort_order_id = w->content == ICE_CONTENT_POSITION_DELETES ? -1 : w->sort_order_id;
  f->first_row_id = -1;
  f->content_offset = f->content_size = -1;
  if (w->nequality_ids && w->content == ICE_CONTENT_EQUALITY_DELETES) {
    f->nequality_ids = w->nequality_ids;
    f->equality_ids = w->equality_ids;
  }
  f->nsplit_offsets = m->nsplit_offsets;
  if (m->nsplit_offsets)
    f->split_offsets =
        fl_arena_memdup(w->arena, m->split_offsets, m->nsplit_offsets * sizeof(int64_t));
  f->cols = fl_arena_zalloc(w->arena, (m->ncolumns ? m->ncolumns : 1) * sizeof *f->cols);
  fl_buf_t tmp;
  fl_buf_init(&tmp);
  fl_arena_t *scratch = fl_arena_new(0);
  int rc = FL_OK;
  for (uint32_t i = 0; i < m->ncolumns && !rc; i++) {
    const pq_column_metrics_t *c = &m->columns[i];
    const metrics_mode_t *mode = leaf_mode(w, c->field_id);
    if (!mode || mode->kind == M_NONE) continue;
    ice_col_metrics_t *o = &f->cols[f->ncols++];
    o->field_id = c->field_id;
    o->column_size = c->compressed_bytes;
    o->value_count = c->value_count;
    o->null_count = c->null_count;
    o->nan_count = (c->type->kind == TY_FLOAT || c->type->kind == TY_DOUBLE) ? c->nan_count : -1;
    if (mode->kind == M_COUNTS || !c->has_bounds) continue;
    ty_value_t lo = c->lower, hi = c->upper;
    lo.is_null = hi.is_null = false;
    bool have_hi = true;
    if (mode->kind == M_TRUNCATE && is_truncatable(c->type)) {
      ty_value_t tl, th;
      ice_truncate_lower(scratch, c->type, &lo, mode->len, &tl);
      have_hi = ice_truncate_upper(scratch, c->type, &hi, mode->len, &th);
      lo = tl;
      hi = th;
    }
    o->lower = bytes_of(w, c->type, &lo, &tmp, err, &rc);
    if (!rc && have_hi) o->upper = bytes_of(w, c->type, &hi, &tmp, err, &rc);
  }
  fl_arena_free(scratch);
  fl_buf_free(&tmp);
  if (rc) return fl_err_prefix(err, "%s: ", p->path);
  qsort(f->cols, f->ncols, sizeof *f->cols, cmp_col);
  w->nfiles++;
  return FL_OK;
}

static int file_open(ice_dw_t *w, part_t *p, fl_err_t *err) {
  w->counter++;
  p->path = fl_arena_sprintf(w->arena, "%s%05d-%lld-%s-%05u%s.parquet", p->dir, w->partition_id,
                             (long long)w->task_id, w->uuid, w->counter,
                             w->content == ICE_CONTENT_DATA ? "" : "-deletes");
  int rc = pq_writer_open(w->fs, p->path, w->schema, &w->wopts, &p->pw, err);
  if (rc) return rc;
  pq_writer_add_kv(p->pw, "iceberg.schema", w->schema_json);
  w->nopen++;
  return FL_OK;
}

/* Finishes the partition's open file and records it. */
static int file_close(ice_dw_t *w, part_t *p, const char *ref_file, fl_err_t *err) {
  pq_writer_t *pw = p->pw;
  p->pw = NULL;
  w->nopen--;
  int rc = pq_writer_close(pw, err);
  if (!rc) {
    rc = record_file(w, p, pq_writer_metrics(pw), err);
    if (!rc && ref_file) w->files[w->nfiles - 1].referenced_data_file = ref_file;
    if (rc) w->fs->remove(w->fs, p->path, NULL);
  }
  pq_writer_free(pw);
  return rc;
}

static uint64_t buffered(const part_t *p) {
  uint64_t written, buf;
  pq_writer_size(p->pw, &written, &buf);
  return buf;
}

/* Every partition with an open file, for the memory bound. */
static part_t *largest_open(ice_dw_t *w, uint64_t *total) {
  part_t *best = NULL;
  uint64_t best_n = 0;
  *total = 0;
  if (w->single && w->single->pw) {
    *total = buffered(w->single);
    return w->single;
  }
  for (uint32_t i = 0; i < w->parts_cap; i++) {
    part_t *p = w->parts[i];
    if (!p || !p->pw) continue;
    uint64_t n = buffered(p);
    *total += n;
    if (!best || n > best_n) best = p, best_n = n;
  }
  return best;
}

/*
 * Writes rows of b (its indexes in rows; NULL: rows 0..n) into p's file,
 * in slices of ROLL_CHECK_ROWS so that the file rolls near the target size
 * and the Parquet writer cuts row groups near theirs.
 */
static int part_write(ice_dw_t *w, part_t *p, const ty_batch_t *b, const uint32_t *rows,
                      uint32_t n, fl_err_t *err) {
  int rc;
  for (uint32_t off = 0; off < n;) {
    if (!p->pw) {
      while (w->nopen >= w->max_open) {
        uint64_t total;
        part_t *big = largest_open(w, &total);
        if (!big) break;
        if ((rc = file_close(w, big, NULL, err))) return rc;
      }
      if ((rc = file_open(w, p, err))) return rc;
    }
    uint32_t take = n - off < ROLL_CHECK_ROWS ? n - off : ROLL_CHECK_ROWS;
    ty_batch_t view = *b;
    if (rows) {
      view.sel = (uint32_t *)rows + off;
    } else {
      for (uint32_t i = 0; i < take; i++) w->ident[i] = off + i;
      view.sel = w->ident;
    }
    view.nsel = take;
    if ((rc = pq_writer_write(p->pw, &view, err))) return rc;
    off += take;
    uint64_t written, buf;
    pq_writer_size(p->pw, &written, &buf);
    if (written + buf >= w->target_bytes && (rc = file_close(w, p, NULL, err))) return rc;
  }
  return FL_OK;
}

static int enforce_memory(ice_dw_t *w, fl_err_t *err) {
  for (;;) {
    uint64_t total;
    part_t *big = largest_open(w, &total);
    if (!big || total <= w->max_buffered) return FL_OK;
    int rc = file_close(w, big, NULL, err);
    if (rc) return rc;
  }
}

/* ---- partitioned data ---- */

/* The value of spec field f at row i (NULL when a parent struct is null). */
static ty_value_t source_value(const ty_batch_t *b, const src_path_t *s, uint32_t i) {
  const ty_vec_t *v = b->cols[s->idx[0]];
  for (uint32_t d = 1; d < s->depth; d++) {
    if (ty_vec_is_null(v, i)) return (ty_value_t){.kind = s->type->kind, .is_null = true};
    v = v->children[s->idx[d]];
  }
  return ty_value_from_vec(v, i);
}

static void touch(part_t *p, part_t **touched, uint32_t row) {
  if (!p->touched) {
    p->touched = true;
    p->nrows = 0;
    p->next_touched = *touched;
    *touched = p;
  }
  if (p->nrows == p->rows_cap) {
    p->rows_cap = p->rows_cap ? p->rows_cap * 2 : 64;
    p->rows = fl_realloc(p->rows, p->rows_cap * sizeof *p->rows);
  }
  p->rows[p->nrows++] = row;
}

static int write_partitioned(ice_dw_t *w, const ty_batch_t *b, fl_err_t *err) {
  uint32_t n = ty_batch_live(b);
  ty_value_t vals[64];
  ty_value_t *values = w->nfields <= 64 ? vals : fl_malloc(w->nfields * sizeof *values);
  part_t *touched = NULL;
  int rc = FL_OK;
  for (uint32_t k = 0; k < n && !rc; k++) {
    uint32_t row = b->sel ? b->sel[k] : k;
    fl_buf_clear(&w->key);
    for (uint32_t f = 0; f < w->nfields; f++) {
      const ice_partition_field_t *pf = &w->spec->fields[f];
      const src_path_t *s = &w->src[f];
      if (pf->transform.kind == ICE_T_VOID || s->depth == 0) {
        values[f] = (ty_value_t){.kind = s->result_type ? s->result_type->kind : TY_INT,
                                 .is_null = true};
      } else {
        ty_value_t in = source_value(b, s, row);
        if ((rc = ice_transform_apply(&pf->transform, s->type, &in, &values[f], err))) {
          fl_err_prefix(err, "partition field %s: ", pf->name);
          break;
        }
      }
      encode_key(&w->key, s->result_type ? s->result_type : s->type, &values[f]);
    }
    if (rc) break;
    part_t *p;
    if (w->prev_part && w->key.len == w->prev_key.len &&
        memcmp(w->key.data, w->prev_key.data, w->key.len) == 0) {
      p = w->prev_part;
    } else {
      p = part_lookup(w, values);
      w->prev_part = p;
      fl_buf_clear(&w->prev_key);
      fl_buf_append(&w->prev_key, w->key.data, w->key.len);
    }
    touch(p, &touched, row);
  }
  if (values != vals) fl_free(values);
  for (part_t *p = touched; p; p = p->next_touched) {
    p->touched = false;
    if (!rc) rc = part_write(w, p, b, p->rows, p->nrows, err);
  }
  return rc;
}

/* ---- position deletes ---- */

static const char *intern_path(ice_dw_t *w, const uint8_t *s, size_t n) {
  if ((w->npaths + 1) * 2 > w->paths_cap) {
    uint32_t cap = w->paths_cap ? w->paths_cap * 2 : 64;
    const char **t = fl_calloc(cap, sizeof *t);
    size_t *l = fl_calloc(cap, sizeof *l);
    for (uint32_t i = 0; i < w->paths_cap; i++) {
      if (!w->paths[i]) continue;
      uint32_t j = (uint32_t)fl_xxhash64(w->paths[i], w->path_lens[i], 0) & (cap - 1);
      while (t[j]) j = (j + 1) & (cap - 1);
      t[j] = w->paths[i];
      l[j] = w->path_lens[i];
    }
    fl_free(w->paths);
    fl_free(w->path_lens);
    w->paths = t;
    w->path_lens = l;
    w->paths_cap = cap;
  }
  uint32_t j = (uint32_t)fl_xxhash64(s, n, 0) & (w->paths_cap - 1);
  while (w->paths[j]) {
    if (w->path_lens[j] == n && memcmp(w->paths[j], s, n) == 0) return w->paths[j];
    j = (j + 1) & (w->paths_cap - 1);
  }
  char *c = fl_arena_strndup(w->arena, (const char *)s, n);
  w->paths[j] = c;
  w->path_lens[j] = n;
  w->npaths++;
  return c;
}

static int cmp_del(const void *a, const void *b) {
  const pos_del_t *x = a, *y = b;
  size_t n = x->n < y->n ? x->n : y->n;
  int c = x->path == y->path ? 0 : memcmp(x->path, y->path, n);
  if (c) return c;
  if (x->n != y->n) return x->n < y->n ? -1 : 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Sorts the buffered deletes and writes them, rolling files at the target size. */
static int flush_deletes(ice_dw_t *w, fl_err_t *err) {
  if (!w->ndels) return FL_OK;
  qsort(w->dels, w->ndels, sizeof *w->dels, cmp_del);
  part_t *p = w->single;
  if (!w->del_batch) w->del_batch = ty_batch_new(w->schema, TY_BATCH_ROWS);
  ty_batch_t *b = w->del_batch;
  int rc = FL_OK;
  size_t i = 0;
  const char *first = NULL; /* the one data file the open file references, if one */
  bool one = true;
  while (i < w->ndels && !rc) {
    ty_batch_reset(b);
    if (!p->pw) {
      if ((rc = file_open(w, p, err))) break;
      first = w->dels[i].path;
      one = true;
    }
    size_t end = i + TY_BATCH_ROWS < w->ndels ? i + TY_BATCH_ROWS : w->ndels;
    for (; i < end; i++) {
      ty_vec_append_bytes(b->cols[0], w->dels[i].path, w->dels[i].n);
      ty_vec_append_i64(b->cols[1], w->dels[i].pos);
      if (w->dels[i].path != first) one = false;
    }
    ty_batch_seal(b);
    if ((rc = pq_writer_write(p->pw, b, err))) break;
    uint64_t written, buf;
    pq_writer_size(p->pw, &written, &buf);
    if (written + buf >= w->target_bytes || i == w->ndels)
      rc = file_close(w, p, one ? first : NULL, err);
  }
  w->ndels = 0;
  return rc;
}

static int add_delete(ice_dw_t *w, const uint8_t *path, size_t n, int64_t pos, fl_err_t *err) {
  if (w->ndels == w->dels_cap) {
    w->dels_cap = w->dels_cap ? w->dels_cap * 2 : 1024;
    w->dels = fl_realloc(w->dels, w->dels_cap * sizeof *w->dels);
  }
  w->dels[w->ndels++] = (pos_del_t){intern_path(w, path, n), n, pos};
  if (w->ndels >= w->max_deletes) return flush_deletes(w, err);
  return FL_OK;
}

static int write_deletes(ice_dw_t *w, const ty_batch_t *b, fl_err_t *err) {
  if (b->ncols != 2 || b->cols[0]->type->kind != TY_STRING || b->cols[1]->type->kind != TY_LONG)
    return fl_err_set(err, FL_EINVALID,
                      "position deletes: batches must be (file_path string, pos long)");
  uint32_t n = ty_batch_live(b);
  for (uint32_t k = 0; k < n; k++) {
    uint32_t row = b->sel ? b->sel[k] : k;
    const ty_vec_t *pv = b->cols[0], *ov = b->cols[1];
    if (ty_vec_is_null(pv, row) || ty_vec_is_null(ov, row))
      return fl_err_set(err, FL_EINVALID, "position deletes: a null file_path or pos");
    size_t len;
    const uint8_t *s = ty_vec_get_bytes(pv, row, &len);
    int rc = add_delete(w, s, len, TY_VEC_DATA(ov, int64_t)[row], err);
    if (rc) return rc;
  }
  return FL_OK;
}

/* ---- the public interface ---- */

static char *data_dir(fl_arena_t *a, const char *location, const ice_kv_t *props, uint32_t n) {
  const char *dp = prop(props, n, "write.data.path");
  if (dp && *dp) {
    size_t l = strlen(dp);
    while (l > 1 && dp[l - 1] == '/') l--;
    return fl_arena_strndup(a, dp, l);
  }
  size_t l = strlen(location);
  while (l > 1 && location[l - 1] == '/') l--;
  return fl_arena_sprintf(a, "%.*s/data", (int)l, location);
}

int ice_dw_open(io_fs_t *fs, const char *location, const ty_schema_t *schema,
                const ice_dw_opts_t *opts, ice_dw_t **out, fl_err_t *err) {
  ice_dw_opts_t defaults = {0};
  if (!opts) opts = &defaults;
  if (!location || !*location) return fl_err_set(err, FL_EINVALID, "data writer: no location");
  if (opts->content != ICE_CONTENT_DATA && opts->content != ICE_CONTENT_POSITION_DELETES &&
      opts->content != ICE_CONTENT_EQUALITY_DELETES)
    return fl_err_set(err, FL_EINVALID, "data writer: unknown content %d", (int)opts->content);
  ice_dw_t *w = fl_calloc(1, sizeof *w);
  w->fs = fs;
  w->arena = fl_arena_new(0);
  w->table_schema = schema;
  w->content = opts->content;
  w->spec = opts->spec;
  w->spec_id = opts->spec ? opts->spec->spec_id : 0;
  w->nfields = opts->spec ? opts->spec->nfields : 0;
  w->sort_order_id = opts->sort_order_id;
  w->partition_id = opts->partition_id;
  w->task_id = opts->task_id;
  w->max_open = opts->max_open_files ? opts->max_open_files : DEFAULT_MAX_OPEN;
  w->max_buffered = opts->max_buffered_bytes ? opts->max_buffered_bytes : DEFAULT_MAX_BUFFERED;
  w->max_deletes = opts->max_buffered_deletes ? opts->max_buffered_deletes : DEFAULT_MAX_DELETES;
  fl_buf_init(&w->key);
  fl_buf_init(&w->prev_key);
  ice_new_uuid(w->uuid);
  w->data_dir = data_dir(w->arena, location, opts->props, opts->nprops);
  if (opts->nequality_ids) {
    w->nequality_ids = opts->nequality_ids;
    w->equality_ids =
        fl_arena_memdup(w->arena, opts->equality_ids, opts->nequality_ids * sizeof(int32_t));
  }
  int rc;
  if ((rc = setup_schema(w, schema, err))) goto fail;
  if ((rc = setup_parquet(w, opts->props, opts->nprops, err))) goto fail;
  if ((rc = setup_modes(w, opts->props, opts->nprops, err))) goto fail;
  fl_buf_t js;
  fl_buf_init(&js);
  ice_schema_to_text(w->schema, &js);
  fl_buf_append_u8(&js, 0);
  w->schema_json = fl_arena_strdup(w->arena, (const char *)js.data);
  fl_buf_free(&js);
  bool partitioned_spec = w->spec && w->nfields && !ice_spec_is_unpartitioned(w->spec);
  if (w->spec && w->nfields &&
      (rc = ice_spec_partition_type(w->arena, w->spec, schema ? schema : w->schema,
                                    &w->partition_type, err)))
    goto fail;
  if (w->content == ICE_CONTENT_DATA && partitioned_spec) {
    if ((rc = setup_sources(w, err))) goto fail;
    w->partitioned = true;
  } else {
    if (w->content != ICE_CONTENT_DATA && partitioned_spec && !opts->partition) {
      rc = fl_err_set(err, FL_EINVALID,
                      "delete writer: spec %d is partitioned but no partition tuple was given",
                      w->spec_id);
      goto fail;
    }
    w->single = part_new(w, NULL, 0, 0, partitioned_spec ? opts->partition : NULL);
  }
  *out = w;
  return FL_OK;
fail:
  ice_dw_abort(w);
  return rc;
}

const ty_schema_t *ice_dw_schema(const ice_dw_t *w) { return w->schema; }

uint32_t ice_dw_open_files(const ice_dw_t *w) { return w->nopen; }

const char *ice_dw_uuid(const ice_dw_t *w) { return w->uuid; }
const char *ice_dw_data_dir(const ice_dw_t *w) { return w->data_dir; }

int ice_dw_write(ice_dw_t *w, const ty_batch_t *b, fl_err_t *err) {
  if (w->failed) return fl_err_set(err, FL_EINVALID, "data writer: failed earlier");
  if (ty_batch_live(b) == 0) return FL_OK;
  int rc;
  if (w->content == ICE_CONTENT_POSITION_DELETES) {
    rc = write_deletes(w, b, err);
  } else if (b->ncols != w->schema->root.nfields) {
    rc = fl_err_set(err, FL_EINVALID, "data writer: batch has %u columns, the file schema %u",
                    b->ncols, w->schema->root.nfields);
  } else if (w->partitioned) {
    rc = write_partitioned(w, b, err);
  } else {
    uint32_t n = ty_batch_live(b);
    rc = part_write(w, w->single, b, b->sel, n, err);
  }
  if (!rc) rc = enforce_memory(w, err);
  if (rc) w->failed = true;
  return rc;
}

int ice_dw_delete_position(ice_dw_t *w, const char *path, int64_t pos, fl_err_t *err) {
  if (w->failed) return fl_err_set(err, FL_EINVALID, "data writer: failed earlier");
  if (w->content != ICE_CONTENT_POSITION_DELETES)
    return fl_err_set(err, FL_EINVALID, "data writer: not a position delete writer");
  int rc = add_delete(w, (const uint8_t *)path, strlen(path), pos, err);
  if (rc) w->failed = true;
  return rc;
}

/* Deep copy of a finished file into a. */
static void copy_file(fl_arena_t *a, const ice_data_file_t *s, ice_data_file_t *d) {
  *d = *s;
  d->path = fl_arena_strdup(a, s->path);
  d->format = "PARQUET";
  d->partition = fl_arena_zalloc(a, (s->npartition ? s->npartition : 1) * sizeof *d->partition);
  for (uint32_t i = 0; i < s->npartition; i++) d->partition[i] = copy_value(a, &s->partition[i]);
  if (!s->npartition) d->partition = NULL;
  d->cols = fl_arena_memdup(a, s->cols, (s->ncols ? s->ncols : 1) * sizeof *s->cols);
  for (uint32_t i = 0; i < s->ncols; i++) {
    ice_col_metrics_t *c = &d->cols[i];
    if (c->lower.p) c->lower.p = fl_arena_memdup(a, c->lower.p, c->lower.n ? c->lower.n : 1);
    if (c->upper.p) c->upper.p = fl_arena_memdup(a, c->upper.p, c->upper.n ? c->upper.n : 1);
  }
  if (s->nsplit_offsets)
    d->split_offsets = fl_arena_memdup(a, s->split_offsets, s->nsplit_offsets * sizeof(int64_t));
  if (s->nequality_ids)
    d->equality_ids = fl_arena_memdup(a, s->equality_ids, s->nequality_ids * sizeof(int32_t));
  if (s->referenced_data_file) d->referenced_data_file = fl_arena_strdup(a, s->referenced_data_file);
}

int ice_dw_close(ice_dw_t *w, fl_arena_t *a, ice_data_file_t **files, size_t *n, fl_err_t *err) {
  if (w->failed) return fl_err_set(err, FL_EINVALID, "data writer: failed earlier");
  int rc = FL_OK;
  if (w->content == ICE_CONTENT_POSITION_DELETES) rc = flush_deletes(w, err);
  if (!rc && w->single && w->single->pw) rc = file_close(w, w->single, NULL, err);
  for (uint32_t i = 0; i < w->parts_cap && !rc; i++)
    if (w->parts[i] && w->parts[i]->pw) rc = file_close(w, w->parts[i], NULL, err);
  if (rc) {
    w->failed = true;
    return rc;
  }
  ice_data_file_t *out = fl_arena_zalloc(a, (w->nfiles ? w->nfiles : 1) * sizeof *out);
  for (size_t i = 0; i < w->nfiles; i++) copy_file(a, &w->files[i], &out[i]);
  *files = out;
  *n = w->nfiles;
  return FL_OK;
}

static void free_parts(ice_dw_t *w, bool abort_open) {
  part_t *all[1] = {w->single};
  for (uint32_t i = 0; i < 1; i++)
    if (all[i]) {
      if (all[i]->pw && abort_open) pq_writer_abort(all[i]->pw);
      fl_free(all[i]->rows);
    }
  for (uint32_t i = 0; i < w->parts_cap; i++) {
    part_t *p = w->parts[i];
    if (!p) continue;
    if (p->pw && abort_open) pq_writer_abort(p->pw);
    fl_free(p->rows);
  }
}

static void dw_free(ice_dw_t *w, bool abort_open) {
  free_parts(w, abort_open);
  fl_free(w->parts);
  fl_free(w->modes);
  fl_free(w->dels);
  fl_free(w->paths);
  fl_free(w->path_lens);
  fl_free(w->files);
  ty_batch_free(w->del_batch);
  fl_buf_free(&w->key);
  fl_buf_free(&w->prev_key);
  fl_arena_free(w->arena);
  fl_free(w);
}

void ice_dw_free(ice_dw_t *w) {
  if (!w) return;
  /* Files still open were never finished: they are discarded. */
  dw_free(w, true);
}

void ice_dw_abort(ice_dw_t *w) {
  if (!w) return;
  for (size_t i = 0; i < w->nfiles; i++) w->fs->remove(w->fs, w->files[i].path, NULL);
  dw_free(w, true);
}
