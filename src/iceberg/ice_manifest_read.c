/*
 * ice_manifest_read.c - reading manifests written by anyone (layer 5,
 * iceberg).
 *
 * Fields are found by field id, never by name or position, so manifests
 * of every writer and version read alike: v1 (no content, no sequence
 * numbers: all 0), v2, v3 (first_row_id, deletion vector offsets). The
 * partition tuple is matched to the spec's partition type by field id as
 * well; a field the file lacks reads as null.
 *
 * Inheritance (the spec's "Sequence Number Inheritance" and "First Row ID
 * Inheritance"): a null snapshot_id takes the manifest's
 * added_snapshot_id, null sequence numbers the manifest's sequence
 * number, and in v3 a null first_row_id of a data file the manifest's
 * first_row_id plus the rows of the earlier such files.
 *
 * Records are decoded one at a time into a scratch arena (their bytes
 * point into the current block); what the entries keep is copied into
 * the caller's arena.
 */
#include <stdlib.h>
#include <string.h>

#include "format/avro/avro_iceberg.h"
#include "iceberg/ice_conv.h"
#include "iceberg/ice_manifest_int.h"

typedef struct rd_ctx {
  fl_arena_t *a;
  const ice_manifest_file_t *mf;
  int fv;
  const ty_type_t *ptype;
  const av_schema_t *part_s; /* r102 as the file has it */
  int *part_idx;             /* per ptype field: index in part_s or -1 */
  int64_t next_row_id;
  ice__av_ids_t ids;
} rd_ctx_t;

static int bad(fl_err_t *err, const char *fmt, const char *what) {
  return fl_err_set(err, FL_ECORRUPT, fmt, what);
}

static bool av_long(const av_value_t *v, int64_t *out) {
  if (!v) return false;
  if (v->type == AV_LONG)
    *out = v->u.l;
  else if (v->type == AV_INT)
    *out = v->u.i;
  else
    return false;
  return true;
}

static int req_long(rd_ctx_t *c, const av_value_t *rec, int32_t id, const char *name, int64_t *out,
                    fl_err_t *err) {
  if (!av_long(ice__av_get(&c->ids, rec, id), out))
    return bad(err, "%s missing or not a number", name);
  return FL_OK;
}

static int64_t opt_long(rd_ctx_t *c, const av_value_t *rec, int32_t id, int64_t dflt) {
  int64_t v;
  return av_long(ice__av_get(&c->ids, rec, id), &v) ? v : dflt;
}

static const char *str_of(fl_arena_t *a, const av_value_t *v) {
  if (!v || (v->type != AV_STRING && v->type != AV_BYTES)) return NULL;
  return fl_arena_strndup(a, (const char *)v->u.bytes.p, v->u.bytes.n);
}

static ice_bytes_t bytes_of(fl_arena_t *a, const av_value_t *v) {
  ice_bytes_t b = {0};
  if (v && (v->type == AV_BYTES || v->type == AV_FIXED || v->type == AV_STRING)) {
    b.p = fl_arena_memdup(a, v->u.bytes.n ? v->u.bytes.p : (const uint8_t *)"", v->u.bytes.n);
    b.n = v->u.bytes.n;
  }
  return b;
}

/* An Avro partition value as a value of Iceberg type t. */
static int partition_value(fl_arena_t *a, const ty_type_t *t, const av_value_t *v, const char *name,
                           ty_value_t *out, fl_err_t *err) {
  memset(out, 0, sizeof *out);
  out->kind = t->kind;
  if (!v || v->type == AV_NULL) {
    out->is_null = true;
    return FL_OK;
  }
  int64_t l;
  switch (t->kind) {
    case TY_BOOLEAN:
      if (v->type != AV_BOOLEAN) break;
      out->u.b = v->u.b;
      return FL_OK;
    case TY_INT:
    case TY_DATE:
      if (v->type != AV_INT) break;
      out->u.i32 = v->u.i;
      return FL_OK;
    case TY_LONG:
    case TY_TIME:
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS:
      if (!av_long(v, &l)) break;
      out->u.i64 = l;
      return FL_OK;
    case TY_FLOAT:
      if (v->type != AV_FLOAT) break;
      out->u.f32 = v->u.f;
      return FL_OK;
    case TY_DOUBLE:
      if (v->type == AV_DOUBLE)
        out->u.f64 = v->u.d;
      else if (v->type == AV_FLOAT)
        out->u.f64 = v->u.f;
      else
        break;
      return FL_OK;
    case TY_STRING:
      if (v->type != AV_STRING && v->type != AV_BYTES) break;
      return ice_value_from_bytes(a, t, v->u.bytes.p, v->u.bytes.n, name, out, err);
    case TY_UUID:
      if (v->type == AV_STRING) {
        uint8_t u[16];
        if (!ty_uuid_parse((const char *)v->u.bytes.p, v->u.bytes.n, u)) break;
        return ice_value_from_bytes(a, t, u, 16, name, out, err);
      }
      /* fallthrough */
    case TY_FIXED:
    case TY_BINARY:
    case TY_DECIMAL:
      if (v->type != AV_FIXED && v->type != AV_BYTES) break;
      return ice_value_from_bytes(a, t, v->u.bytes.p, v->u.bytes.n, name, out, err);
    default: break;
  }
  return fl_err_set(err, FL_ECORRUPT, "partition field %s: an Avro %s for a %s field", name,
                    av_type_name(v->type), ty_kind_name(t->kind));
}

/* Merges one metric map (array of {key, value}) into the column list. */
static int merge_metric(rd_ctx_t *c, const av_value_t *df, int32_t id, const char *name, int which,
                        ice_col_metrics_t **cols, uint32_t *n, uint32_t *cap, fl_err_t *err) {
  const av_value_t *m = ice__av_get(&c->ids, df, id);
  if (!m) return FL_OK;
  if (m->type != AV_ARRAY) return bad(err, "%s is not an array of key/value records", name);
  for (uint32_t i = 0; i < m->u.array.n; i++) {
    const av_value_t *kv = m->u.array.items[i];
    if (!kv || kv->type != AV_RECORD || kv->u.record.n < 2 ||
        kv->u.record.fields[0]->type != AV_INT)
      return bad(err, "%s holds an entry that is not a {key: int, value} record", name);
    int32_t key = kv->u.record.fields[0]->u.i;
    const av_value_t *val = kv->u.record.fields[1];
    uint32_t j = 0;
    while (j < *n && (*cols)[j].field_id != key) j++;
    if (j == *n) {
      if (*n == *cap) {
        uint32_t nc = *cap ? 2 * *cap : 8;
        ice_col_metrics_t *bigger = fl_arena_alloc(c->a, nc * sizeof *bigger);
        if (*n) memcpy(bigger, *cols, *n * sizeof *bigger);
        *cols = bigger;
        *cap = nc;
      }
      ice_col_metrics_t *cm = &(*cols)[(*n)++];
      memset(cm, 0, sizeof *cm);
      cm->field_id = key;
      cm->column_size = cm->value_count = cm->null_count = cm->nan_count = -1;
    }
    ice_col_metrics_t *cm = &(*cols)[j];
    int64_t l;
    if (which < 4) {
      if (!av_long(val, &l)) {
        if (val && val->type == AV_NULL) continue;
        return bad(err, "%s holds a value that is not a number", name);
      }
      if (which == 0)
        cm->column_size = l;
      else if (which == 1)
        cm->value_count = l;
      else if (which == 2)
        cm->null_count = l;
      else
        cm->nan_count = l;
    } else {
      if (!val || (val->type != AV_BYTES && val->type != AV_NULL))
        return bad(err, "%s holds a value that is not bytes", name);
      if (val->type == AV_NULL) continue;
      ice_bytes_t b = bytes_of(c->a, val);
      if (which == 4)
        cm->lower = b;
      else
        cm->upper = b;
    }
  }
  return FL_OK;
}

static int cmp_cols(const void *x, const void *y) {
  const ice_col_metrics_t *a = x, *b = y;
  return (a->field_id > b->field_id) - (a->field_id < b->field_id);
}

static int read_data_file(rd_ctx_t *c, const av_value_t *df, ice_data_file_t *f, fl_err_t *err) {
  fl_arena_t *a = c->a;
  memset(f, 0, sizeof *f);
  int64_t l;
  l = opt_long(c, df, 134, 0);
  if (l < 0 || l > 2) return fl_err_set(err, FL_ECORRUPT, "content %lld", (long long)l);
  f->content = (ice_content_t)l;
  f->path = str_of(a, ice__av_get(&c->ids, df, 100));
  if (!f->path) return bad(err, "%s missing", "file_path");
  f->format = str_of(a, ice__av_get(&c->ids, df, 101));
  if (!f->format) return bad(err, "%s missing", "file_format");
  f->spec_id = c->mf->spec_id;
  int rc = req_long(c, df, 103, "record_count", &f->record_count, err);
  if (!rc) rc = req_long(c, df, 104, "file_size_in_bytes", &f->file_size, err);
  if (rc) return rc;

  const av_value_t *p = ice__av_get(&c->ids, df, 102);
  if (p && p->type != AV_RECORD) return bad(err, "%s is not a record", "partition");
  f->npartition = c->ptype->nfields;
  f->partition = fl_arena_zalloc(a, sizeof *f->partition * (f->npartition ? f->npartition : 1));
  for (uint32_t i = 0; i < f->npartition; i++) {
    const ty_field_t *pf = &c->ptype->fields[i];
    const av_value_t *v = NULL;
    if (p && c->part_idx[i] >= 0 && (uint32_t)c->part_idx[i] < p->u.record.n)
      v = p->u.record.fields[c->part_idx[i]];
    rc = partition_value(a, pf->type, v, pf->name, &f->partition[i], err);
    if (rc) return rc;
  }

  uint32_t cap = 0;
  static const struct {
    int32_t id;
    const char *name;
  } maps[] = {{108, "column_sizes"},     {109, "value_counts"}, {110, "null_value_counts"},
              {137, "nan_value_counts"}, {125, "lower_bounds"}, {128, "upper_bounds"}};
  for (int k = 0; k < 6; k++) {
    rc = merge_metric(c, df, maps[k].id, maps[k].name, k, &f->cols, &f->ncols, &cap, err);
    if (rc) return rc;
  }
  if (f->ncols > 1) qsort(f->cols, f->ncols, sizeof *f->cols, cmp_cols);

  f->key_metadata = bytes_of(a, ice__av_get(&c->ids, df, 131));
  const av_value_t *so = ice__av_get(&c->ids, df, 132);
  if (so) {
    if (so->type != AV_ARRAY) return bad(err, "%s is not an array", "split_offsets");
    f->nsplit_offsets = so->u.array.n;
    f->split_offsets = fl_arena_alloc(a, sizeof(int64_t) * (so->u.array.n ? so->u.array.n : 1));
    for (uint32_t i = 0; i < so->u.array.n; i++)
      if (!av_long(so->u.array.items[i], &f->split_offsets[i]))
        return bad(err, "%s holds a value that is not a number", "split_offsets");
  }
  const av_value_t *eq = ice__av_get(&c->ids, df, 135);
  if (eq) {
    if (eq->type != AV_ARRAY) return bad(err, "%s is not an array", "equality_ids");
    f->nequality_ids = eq->u.array.n;
    f->equality_ids = fl_arena_alloc(a, sizeof(int32_t) * (eq->u.array.n ? eq->u.array.n : 1));
    for (uint32_t i = 0; i < eq->u.array.n; i++) {
      if (!av_long(eq->u.array.items[i], &l) || l < INT32_MIN || l > INT32_MAX)
        return bad(err, "%s holds a value that is not a field id", "equality_ids");
      f->equality_ids[i] = (int32_t)l;
    }
  }
  l = opt_long(c, df, 140, -1);
  f->sort_order_id = l >= INT32_MIN && l <= INT32_MAX ? (int32_t)l : -1;
  f->referenced_data_file = str_of(a, ice__av_get(&c->ids, df, 143));
  f->first_row_id = opt_long(c, df, 142, -1);
  f->content_offset = opt_long(c, df, 144, -1);
  f->content_size = opt_long(c, df, 145, -1);
  return FL_OK;
}

static int read_entry(rd_ctx_t *c, const av_value_t *rec, ice_manifest_entry_t *e, fl_err_t *err) {
  memset(e, 0, sizeof *e);
  int64_t st = 0;
  int rc = req_long(c, rec, 0, "status", &st, err);
  if (rc) return rc;
  if (st < 0 || st > 2) return fl_err_set(err, FL_ECORRUPT, "status %lld", (long long)st);
  e->status = (ice_entry_status_t)st;
  e->snapshot_id = opt_long(c, rec, 1, c->mf->added_snapshot_id);
  if (c->fv < 2) {
    e->sequence_number = e->file_sequence_number = 0;
  } else {
    e->sequence_number = opt_long(c, rec, 3, c->mf->sequence_number);
    e->file_sequence_number = opt_long(c, rec, 4, c->mf->sequence_number);
  }
  const av_value_t *df = ice__av_get(&c->ids, rec, 2);
  if (!df || df->type != AV_RECORD) return bad(err, "%s missing", "data_file");
  rc = read_data_file(c, df, &e->file, err);
  if (rc) return rc;
  if (c->fv >= 3 && e->file.content == ICE_CONTENT_DATA && e->file.first_row_id < 0 &&
      c->next_row_id >= 0) {
    e->file.first_row_id = c->next_row_id;
    c->next_row_id += e->file.record_count;
  }
  return FL_OK;
}

/* Sets up the partition mapping from the file's r102 record. */
static int setup_partition(rd_ctx_t *c, const av_schema_t *entry_s, const ty_type_t *ptype,
                           fl_err_t *err) {
  int di = ice__av_field_by_id(entry_s, 2);
  const av_schema_t *df = di >= 0 ? av_schema_nonnull(entry_s->fields[di].type) : NULL;
  if (!df || df->type != AV_RECORD) return bad(err, "%s", "the schema has no data_file record");
  int pi = ice__av_field_by_id(df, 102);
  const av_schema_t *ps = pi >= 0 ? av_schema_nonnull(df->fields[pi].type) : NULL;
  if (ps && ps->type != AV_RECORD) return bad(err, "%s", "the partition field is not a record");
  c->part_s = ps;
  if (!ptype) {
    if (!ps || ps->nfields == 0) {
      ptype = ty_struct_new(c->a, NULL, 0);
    } else {
      ty_schema_t *ts;
      int rc = av_schema_to_iceberg(c->a, ps, &ts, err);
      if (rc) return fl_err_prefix(err, "partition schema: ");
      ptype = ty_struct_new(c->a, ts->root.fields, ts->root.nfields);
    }
  }
  c->ptype = ptype;
  c->part_idx = fl_arena_alloc(c->a, sizeof(int) * (ptype->nfields ? ptype->nfields : 1));
  for (uint32_t i = 0; i < ptype->nfields; i++)
    c->part_idx[i] = ps ? ice__av_field_by_id(ps, ptype->fields[i].id) : -1;
  return FL_OK;
}

int ice_manifest_read(io_fs_t *fs, fl_arena_t *a, const ice_manifest_file_t *mf,
                      const ty_type_t *partition_type, ice_manifest_entry_t **out, size_t *n,
                      fl_err_t *err) {
  *out = NULL;
  *n = 0;
  io_reader_t *in = NULL;
  av_reader_t *r = NULL;
  fl_arena_t *scratch = NULL;
  size_t count = 0, cap = 0, index = 0;
  ice_manifest_entry_t *es = NULL;
  int rc = fs->open_read(fs, mf->path, &in, err);
  if (rc) goto done;
  rc = av_reader_open(in, &r, err);
  if (rc) goto done;
  if (!r->schema || r->schema->type != AV_RECORD) {
    rc = bad(err, "%s", "the file schema is not a record");
    goto done;
  }
  rd_ctx_t c = {.a = a, .mf = mf, .next_row_id = mf->first_row_id, .ids = {.a = a}};
  /* Without the key, a sequence_number field tells v2 from v1. */
  c.fv = ice__av_format_version(r, ice__av_field_by_id(r->schema, 3) >= 0 ? 2 : 1);
  rc = setup_partition(&c, r->schema, partition_type, err);
  if (rc) goto done;
  scratch = fl_arena_new(0);
  av_budget_t budget = {0};
  for (;;) {
    const uint8_t *data;
    size_t len;
    uint64_t recs, off;
    rc = av_reader_next_block(r, &data, &len, &recs, &off, err);
    if (rc || !data) break;
    av_budget_grant(&budget, len, recs);
    fl_rd_t rd;
    fl_rd_init(&rd, data, len, mf->path);
    for (uint64_t k = 0; k < recs; k++, index++) {
      fl_arena_reset(scratch);
      av_value_t *v;
      rc = av_decode_budget(scratch, r->schema, &rd, &budget, &v, err);
      if (rc) goto entry_fail;
      if (count == cap) {
        size_t nc = cap ? 2 * cap : 16;
        ice_manifest_entry_t *bigger = fl_arena_alloc(a, nc * sizeof *bigger);
        if (count) memcpy(bigger, es, count * sizeof *bigger);
        es = bigger;
        cap = nc;
      }
      rc = read_entry(&c, v, &es[count], err);
      if (rc) goto entry_fail;
      count++;
    }
    if (rd.pos != rd.len) {
      rc = fl_err_set(err, FL_ECORRUPT, "%zu bytes left over after the block at offset %llu",
                      rd.len - rd.pos, (unsigned long long)off);
      break;
    }
  }
  goto done;
entry_fail:
  fl_err_prefix(err, "entry %zu: ", index);
done:
  if (rc) fl_err_prefix(err, "manifest %s: ", mf->path);
  fl_arena_free(scratch);
  if (r) av_reader_close(r);
  if (in) in->close(in);
  if (rc) return rc;
  *out = es ? es : fl_arena_zalloc(a, sizeof *es);
  *n = count;
  return FL_OK;
}

const ice_col_metrics_t *ice_data_file_col(const ice_data_file_t *f, int32_t field_id) {
  size_t lo = 0, hi = f->ncols;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (f->cols[mid].field_id < field_id)
      lo = mid + 1;
    else if (f->cols[mid].field_id > field_id)
      hi = mid;
    else
      return &f->cols[mid];
  }
  return NULL;
}
