/*
 * ice_scan_deletes.c - loading the delete files a scan task applies
 * (layer 5, iceberg).
 *
 * Position delete files hold (file_path, pos) rows sorted by path and
 * position; a data file needs only its own rows, so each delete file is
 * read with row groups pruned by file_path = the data file's path, and
 * the positions kept form one sorted, deduplicated array per data file.
 *
 * Equality delete files hold rows of the equality columns; every row is
 * a key that deletes the data rows equal to it on those columns, nulls
 * equal to nulls. Keys are converted to the scan schema's types first
 * (so an int column promoted to long compares by value) and encoded as
 * bytes: per column a presence byte, then the value (fixed-width values
 * raw, NaN canonical; strings and binary length-prefixed). A set is
 * loaded once per scan and dropped after the last task that applies it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "iceberg/ice_scan_int.h"

static bool is_puffin(const ice_data_file_t *d) {
  return (d->format && strcasecmp(d->format, "PUFFIN") == 0) || d->content_offset >= 0;
}

static const ty_schema_t *pos_schema(fl_arena_t *a) {
  ty_field_t f[2] = {
      {.id = ICE_POS_FILE_PATH_ID,
       .name = "file_path",
       .required = true,
       .type = ty_primitive(TY_STRING)},
      {.id = ICE_POS_POS_ID, .name = "pos", .required = true, .type = ty_primitive(TY_LONG)},
  };
  return ty_schema_new(a, 0, f, 2);
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return a < b ? -1 : a > b;
}

static int read_positions(ice_scan_t *s, const ice_manifest_entry_t *d, const char *data_path,
                          const ty_schema_t *ps, ty_batch_t *b, int64_t **v, size_t *n, size_t *cap,
                          fl_err_t *err) {
  fl_arena_t *a = fl_arena_new(0);
  const char *path = ice_table_path(s->t, a, d->file.path);
  int32_t top[2] = {ICE_POS_FILE_PATH_ID, ICE_POS_POS_ID};
  pq_pred_term_t term = {.field_id = ICE_POS_FILE_PATH_ID, .op = PQ_OP_EQ};
  term.value.kind = TY_STRING;
  term.value.u.bytes.p = (const uint8_t *)data_path;
  term.value.u.bytes.n = strlen(data_path);
  ice_file_read_t *f;
  int rc = ice__file_open(s, path, NULL, top, 2, &term, 1, &f, err);
  if (rc) goto out;
  size_t plen = strlen(data_path);
  uint32_t *rows = fl_malloc(TY_BATCH_ROWS * sizeof *rows);
  for (;;) {
    ty_batch_t *raw;
    int64_t first;
    if ((rc = ice__file_next(f, &raw, &first, err)) || !raw) break;
    for (uint32_t k = 0; k < raw->nrows; k++) rows[k] = k;
    ty_batch_reset(b);
    if ((rc = ice__file_convert(f, raw, rows, raw->nrows, b, err))) break;
    const ty_vec_t *pv = b->cols[0], *ov = b->cols[1];
    for (uint32_t k = 0; k < raw->nrows; k++) {
      if (ty_vec_is_null(pv, k) || ty_vec_is_null(ov, k)) continue;
      size_t len;
      const uint8_t *p = ty_vec_get_bytes(pv, k, &len);
      if (len != plen || memcmp(p, data_path, plen) != 0) continue;
      if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 1024;
        *v = fl_realloc(*v, *cap * sizeof **v);
      }
      (*v)[(*n)++] = TY_VEC_DATA(ov, int64_t)[k];
    }
  }
  fl_free(rows);
  s->stats.bytes_read += ice__file_stats(f)->bytes_read;
  ice__file_close(f);
out:
  if (rc) fl_err_prefix(err, "position delete file %s: ", d->file.path);
  fl_arena_free(a);
  return rc;
}

int ice__load_positions(ice_scan_t *s, const ice_scan_task_t *task, int64_t **out, size_t *n,
                        fl_err_t *err) {
  *out = NULL;
  *n = 0;
  size_t cap = 0;
  fl_arena_t *a = fl_arena_new(0);
  const ty_schema_t *ps = pos_schema(a);
  ty_batch_t *b = ty_batch_new(ps, TY_BATCH_ROWS);
  int rc = FL_OK;
  for (uint32_t i = 0; i < task->ndeletes && !rc; i++) {
    const ice_manifest_entry_t *d = task->deletes[i];
    if (d->file.content != ICE_CONTENT_POSITION_DELETES) continue;
    if (is_puffin(&d->file)) {
      rc = fl_err_set(err, FL_EUNSUPPORTED,
                      "deletion vector %s (Puffin) for data file %s: not supported yet",
                      d->file.path, task->data->file.path);
      break;
    }
    rc = read_positions(s, d, task->data->file.path, ps, b, out, n, &cap, err);
  }
  ty_batch_free(b);
  fl_arena_free(a);
  if (rc) {
    fl_free(*out);
    *out = NULL;
    *n = 0;
    return rc;
  }
  if (*n > 1) {
    qsort(*out, *n, sizeof **out, cmp_i64);
    size_t w = 1;
    for (size_t i = 1; i < *n; i++)
      if ((*out)[i] != (*out)[w - 1]) (*out)[w++] = (*out)[i];
    *n = w;
  }
  return FL_OK;
}

void ice__eq_key(const ty_vec_t *const *cols, uint32_t ncols, uint32_t r, fl_buf_t *key) {
  for (uint32_t c = 0; c < ncols; c++) {
    const ty_vec_t *v = cols[c];
    if (!v || ty_vec_is_null(v, r)) {
      fl_buf_append_u8(key, 0);
      continue;
    }
    fl_buf_append_u8(key, 1);
    switch (v->type->kind) {
      case TY_FLOAT: {
        float x = TY_VEC_DATA(v, float)[r];
        if (isnan(x)) x = NAN;
        fl_buf_append(key, &x, sizeof x);
        break;
      }
      case TY_DOUBLE: {
        double x = TY_VEC_DATA(v, double)[r];
        if (isnan(x)) x = NAN;
        fl_buf_append(key, &x, sizeof x);
        break;
      }
      case TY_STRING:
      case TY_BINARY: {
        size_t n;
        const uint8_t *p = ty_vec_get_bytes(v, r, &n);
        fl_buf_append_le32(key, (uint32_t)n);
        fl_buf_append(key, p, n);
        break;
      }
      default: {
        size_t w = ty_value_width(v->type);
        if (w) fl_buf_append(key, v->data + (size_t)r * w, w);
        break;
      }
    }
  }
}

int ice__load_eq_set(ice_scan_t *s, ice_eq_set_t *set, fl_err_t *err) {
  if (set->loaded) return FL_OK;
  const ice_data_file_t *d = &set->file->file;
  if (!d->format || strcasecmp(d->format, "PARQUET") != 0)
    return fl_err_set(err, FL_EUNSUPPORTED, "equality delete file %s is %s; only Parquet is read",
                      d->path, d->format ? d->format : "of no format");
  for (uint32_t i = 0; i < set->nids; i++) {
    const ty_field_t *f = ty_schema_find_id(s->schema, set->ids[i]);
    if (!f || ty_is_nested(f->type))
      return fl_err_set(err, FL_EUNSUPPORTED,
                        "equality delete file %s: equality field id %d is %s in schema %d", d->path,
                        (int)set->ids[i], f ? "not a primitive column" : "not a column",
                        (int)s->schema->schema_id);
  }
  fl_arena_t *a = fl_arena_new(0);
  const ty_type_t *kt = ice__prune_struct(a, &s->schema->root, set->ids, set->nids);
  const ty_schema_t *ks = ty_schema_new(a, s->schema->schema_id, kt->fields, kt->nfields);
  int32_t *top = fl_arena_alloc(a, (kt->nfields ? kt->nfields : 1) * sizeof *top);
  for (uint32_t i = 0; i < kt->nfields; i++) top[i] = kt->fields[i].id;
  ty_batch_t *b = ty_batch_new(ks, TY_BATCH_ROWS);
  const ty_vec_t **cols = fl_arena_alloc(a, set->nids * sizeof *cols);
  ice__find_cols(ks, b, set->ids, set->nids, cols);
  uint32_t *rows = fl_malloc(TY_BATCH_ROWS * sizeof *rows);
  fl_buf_t key;
  fl_buf_init(&key);
  fl_strset_init(&set->keys);
  set->loaded = true;
  ice_file_read_t *f = NULL;
  int rc =
      ice__file_open(s, ice_table_path(s->t, a, d->path), d, top, kt->nfields, NULL, 0, &f, err);
  while (!rc) {
    ty_batch_t *raw;
    int64_t first;
    if ((rc = ice__file_next(f, &raw, &first, err)) || !raw) break;
    for (uint32_t k = 0; k < raw->nrows; k++) rows[k] = k;
    ty_batch_reset(b);
    if ((rc = ice__file_convert(f, raw, rows, raw->nrows, b, err))) break;
    for (uint32_t k = 0; k < raw->nrows; k++) {
      fl_buf_clear(&key);
      ice__eq_key(cols, set->nids, k, &key);
      fl_strset_add(&set->keys, key.data, key.len);
    }
  }
  if (f) {
    s->stats.bytes_read += ice__file_stats(f)->bytes_read;
    ice__file_close(f);
  }
  fl_buf_free(&key);
  fl_free(rows);
  ty_batch_free(b);
  fl_arena_free(a);
  if (rc) return fl_err_prefix(err, "equality delete file %s: ", d->path);
  return FL_OK;
}
