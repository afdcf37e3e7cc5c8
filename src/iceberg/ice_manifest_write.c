/*
 * ice_manifest_write.c - writing manifests (layer 5, iceberg).
 *
 * A manifest is an Avro container of manifest_entry records whose schema
 * (ice_manifest_schema.c) embeds the spec's partition tuple as record
 * r102. The header carries what readers need without the table metadata:
 * the table schema as JSON ("schema", "schema-id"), the spec's fields
 * ("partition-spec", "partition-spec-id"), "format-version", "content"
 * (v2 and later) and, as Java writes it, the entry schema itself as
 * Iceberg JSON ("iceberg.schema").
 *
 * Entries are encoded one at a time from a scratch arena, so a writer
 * holds only the open block. While adding, the writer counts files and
 * rows per status and keeps, per partition field, whether a null or NaN
 * was seen and the smallest and largest value: the manifest list's
 * partition summaries, serialized at close.
 *
 * As Java does, ADDED entries carry the writer's snapshot id but null
 * sequence numbers (v2 and later), which readers take from the manifest
 * list entry; EXISTING and DELETED entries carry theirs.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "iceberg/ice_conv.h"
#include "iceberg/ice_manifest_int.h"
#include "iceberg/ice_meta.h"
#include "iceberg/ice_schema_json.h"

typedef struct part_summary {
  bool contains_null, contains_nan, have;
  ty_value_t lo, hi;
} part_summary_t;

struct ice_manifest_writer {
  fl_arena_t *a;       /* the writer's lifetime: schemas, summaries */
  fl_arena_t *scratch; /* one entry's values */
  const char *path;
  int fv;
  int32_t content;
  int64_t snapshot_id;
  int32_t spec_id;
  const ty_type_t *ptype;
  const av_schema_t *entry_s, *file_s, *part_s;
  av_writer_t *aw;
  uint64_t length;
  uint64_t nentries;
  int32_t added_files, existing_files, deleted_files;
  int64_t added_rows, existing_rows, deleted_rows;
  int64_t min_seq;
  part_summary_t *sums;
};

static const av_schema_t *field_schema(const av_schema_t *rec, const char *name) {
  int i = av_record_field_index(rec, name);
  return i < 0 ? NULL : av_schema_nonnull(rec->fields[i].type);
}

static char *json_text(json_t *j) {
  char *s = json_dumps(j, JSON_COMPACT);
  json_decref(j);
  return s;
}

int ice_manifest_codec(const ice_meta_t *m, ice_avro_codec_t *out, fl_err_t *err) {
  static const struct {
    const char *name;
    av_codec_t codec;
  } names[] = {{"gzip", AV_CODEC_DEFLATE},
               {"snappy", AV_CODEC_SNAPPY},
               {"zstd", AV_CODEC_ZSTD},
               {"uncompressed", AV_CODEC_NULL}};
  out->codec = AV_CODEC_DEFLATE;
  out->level = 0;
  const char *v = ice_meta_property(m, "write.avro.compression-codec");
  if (v) {
    size_t i = 0;
    while (i < sizeof names / sizeof names[0] && strcasecmp(v, names[i].name) != 0) i++;
    if (i == sizeof names / sizeof names[0])
      return fl_err_set(err, FL_EINVALID,
                        "table property write.avro.compression-codec: '%s' is not supported "
                        "(gzip, snappy, zstd, uncompressed)",
                        v);
    out->codec = names[i].codec;
  }
  const char *lv = ice_meta_property(m, "write.avro.compression-level");
  if (lv) {
    char *end;
    long level = strtol(lv, &end, 10);
    if (*lv == '\0' || *end != '\0' || level < 0 || level > 22)
      return fl_err_set(err, FL_EINVALID,
                        "table property write.avro.compression-level: '%s' is not a level", lv);
    out->level = (int)level;
  }
  return FL_OK;
}

int ice_manifest_writer_open(io_fs_t *fs, const char *path, int format_version,
                             const ty_schema_t *schema, const ice_spec_t *spec, int32_t content,
                             int64_t snapshot_id, const ice_avro_codec_t *codec,
                             ice_manifest_writer_t **out, fl_err_t *err) {
  *out = NULL;
  if (format_version < 1 || format_version > 3)
    return fl_err_set(err, FL_EUNSUPPORTED, "manifest %s: format version %d", path, format_version);
  if (content != 0 && content != 1)
    return fl_err_set(err, FL_EINVALID, "manifest %s: content %d (0 data, 1 deletes)", path,
                      (int)content);
  if (format_version == 1 && content != 0)
    return fl_err_set(err, FL_EINVALID, "manifest %s: format v1 has no delete manifests", path);
  fl_arena_t *a = fl_arena_new(0);
  ice_manifest_writer_t *w = fl_arena_zalloc(a, sizeof *w);
  w->a = a;
  w->path = fl_arena_strdup(a, path);
  w->fv = format_version;
  w->content = content;
  w->snapshot_id = snapshot_id;
  w->spec_id = spec->spec_id;
  w->min_seq = -1;
  int rc = ice_spec_partition_type(a, spec, schema, &w->ptype, err);
  if (rc) goto fail;
  const ty_schema_t *entry = ice__manifest_entry_schema(a, format_version, w->ptype);
  av_schema_t *es;
  rc = av_schema_from_iceberg(a, entry, "manifest_entry", &es, err);
  if (rc) goto fail;
  w->entry_s = es;
  w->file_s = field_schema(es, "data_file");
  w->part_s = field_schema(w->file_s, "partition");
  w->sums = fl_arena_zalloc(a, sizeof *w->sums * (spec->nfields ? spec->nfields : 1));

  fl_buf_t sj, ej;
  fl_buf_init(&sj);
  fl_buf_init(&ej);
  ice_schema_to_text(schema, &sj);
  ice_schema_to_text(entry, &ej);
  char *spec_json = json_text(ice_spec_fields_to_json(spec));
  const char *kv[][2] = {
      {"schema", fl_arena_strndup(a, (const char *)sj.data, sj.len)},
      {"schema-id", fl_arena_sprintf(a, "%d", (int)schema->schema_id)},
      {"partition-spec", fl_arena_strdup(a, spec_json ? spec_json : "[]")},
      {"partition-spec-id", fl_arena_sprintf(a, "%d", (int)spec->spec_id)},
      {"format-version", fl_arena_sprintf(a, "%d", format_version)},
      {"content", content ? "deletes" : "data"},
      {"iceberg.schema", fl_arena_strndup(a, (const char *)ej.data, ej.len)},
  };
  free(spec_json);
  fl_buf_free(&sj);
  fl_buf_free(&ej);
  av_meta_t meta[7];
  size_t nmeta = 0;
  for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) {
    if (format_version == 1 && !strcmp(kv[i][0], "content")) continue;
    meta[nmeta].key = kv[i][0];
    meta[nmeta].value = (const uint8_t *)kv[i][1];
    meta[nmeta].len = strlen(kv[i][1]);
    nmeta++;
  }
  io_writer_t *fw;
  rc = fs->create(fs, path, true, &fw, err);
  if (rc) goto fail;
  av_writer_opts_t o = {.codec = codec ? codec->codec : AV_CODEC_DEFLATE,
                        .level = codec ? codec->level : 0,
                        .meta = meta,
                        .nmeta = nmeta};
  rc = av_writer_open(ice__counting_writer(fw, &w->length), es, &o, &w->aw, err);
  if (rc) goto fail;
  w->scratch = fl_arena_new(0);
  *out = w;
  return FL_OK;
fail:
  fl_err_prefix(err, "manifest %s: ", path);
  fl_arena_free(a);
  return rc;
}

void ice_manifest_writer_abort(ice_manifest_writer_t *w) {
  if (!w) return;
  if (w->aw) av_writer_abort(w->aw);
  fl_arena_free(w->scratch);
  fl_arena_free(w->a);
}

/* ---- values ---- */

static av_value_t *opt_long(fl_arena_t *a, int64_t v) {
  return v >= 0 ? av_value_long(a, v) : av_value_null(a);
}

/* One partition value as the Avro value of its r102 field. */
static int partition_value(fl_arena_t *a, const ty_type_t *t, const av_schema_t *fs,
                           const ty_value_t *v, av_value_t **out, fl_err_t *err) {
  if (v->is_null) {
    *out = av_value_null(a);
    return FL_OK;
  }
  if (v->kind != t->kind)
    return fl_err_set(err, FL_EINVALID, "a %s value for a %s field", ty_kind_name(v->kind),
                      ty_kind_name(t->kind));
  switch (t->kind) {
    case TY_BOOLEAN: *out = av_value_bool(a, v->u.b); return FL_OK;
    case TY_INT:
    case TY_DATE: *out = av_value_int(a, v->u.i32); return FL_OK;
    case TY_LONG:
    case TY_TIME:
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS: *out = av_value_long(a, v->u.i64); return FL_OK;
    case TY_FLOAT: *out = av_value_float(a, v->u.f32); return FL_OK;
    case TY_DOUBLE: *out = av_value_double(a, v->u.f64); return FL_OK;
    case TY_STRING: *out = av_value_stringn(a, v->u.bytes.p, v->u.bytes.n); return FL_OK;
    case TY_BINARY: *out = av_value_bytes(a, v->u.bytes.p, v->u.bytes.n); return FL_OK;
    case TY_UUID:
    case TY_FIXED:
      if (fs->type != AV_FIXED || v->u.bytes.n != (size_t)fs->size)
        return fl_err_set(err, FL_EINVALID, "a value of %zu bytes for a %s field", v->u.bytes.n,
                          ty_kind_name(t->kind));
      *out = av_value_fixed(a, fs, v->u.bytes.p);
      return FL_OK;
    case TY_DECIMAL: {
      /* Big-endian two's complement, sign-extended to the fixed size. */
      uint8_t b[16];
      int size = fs->type == AV_FIXED ? fs->size : 16;
      if (size < 1 || size > 16) return fl_err_set(err, FL_EINTERNAL, "decimal of %d bytes", size);
      unsigned __int128 u = (unsigned __int128)v->u.i128;
      for (int i = size - 1; i >= 0; i--, u >>= 8) b[i] = (uint8_t)u;
      *out = fs->type == AV_FIXED ? av_value_fixed(a, fs, b) : av_value_bytes(a, b, (size_t)size);
      return FL_OK;
    }
    default: return fl_err_set(err, FL_EINVALID, "a %s partition field", ty_kind_name(t->kind));
  }
}

/* An array of {key, value} records for one metric; NULL entries skipped.
 * which: 0 column size, 1 value count, 2 null count, 3 nan count, 4 lower,
 * 5 upper. */
static av_value_t *metric_map(fl_arena_t *a, const av_schema_t *df, const char *name,
                              const ice_data_file_t *f, int which) {
  const av_schema_t *arr = field_schema(df, name);
  av_value_t *out = NULL;
  for (uint32_t i = 0; i < f->ncols; i++) {
    const ice_col_metrics_t *c = &f->cols[i];
    av_value_t *v = NULL;
    switch (which) {
      case 0: v = c->column_size >= 0 ? av_value_long(a, c->column_size) : NULL; break;
      case 1: v = c->value_count >= 0 ? av_value_long(a, c->value_count) : NULL; break;
      case 2: v = c->null_count >= 0 ? av_value_long(a, c->null_count) : NULL; break;
      case 3: v = c->nan_count >= 0 ? av_value_long(a, c->nan_count) : NULL; break;
      case 4: v = c->lower.p ? av_value_bytes(a, c->lower.p, c->lower.n) : NULL; break;
      default: v = c->upper.p ? av_value_bytes(a, c->upper.p, c->upper.n) : NULL; break;
    }
    if (!v) continue;
    if (!out) out = av_value_array(a, f->ncols);
    av_value_t *kv = av_value_record(a, arr->items);
    kv->u.record.fields[0] = av_value_int(a, c->field_id);
    kv->u.record.fields[1] = v;
    av_array_append(a, out, kv);
  }
  return out ? out : av_value_null(a);
}

static void set(av_value_t *rec, const char *name, av_value_t *v) {
  int i = av_record_field_index(rec->schema, name);
  if (i >= 0) rec->u.record.fields[i] = v;
}

static bool is_nan(const ty_value_t *v) {
  return (v->kind == TY_FLOAT && isnan(v->u.f32)) || (v->kind == TY_DOUBLE && isnan(v->u.f64));
}

static ty_value_t keep_value(fl_arena_t *a, const ty_value_t *v) {
  ty_value_t c = *v;
  if (v->kind == TY_STRING || v->kind == TY_BINARY || v->kind == TY_FIXED || v->kind == TY_UUID)
    c.u.bytes.p =
        fl_arena_memdup(a, v->u.bytes.p ? v->u.bytes.p : (const uint8_t *)"", v->u.bytes.n);
  return c;
}

static void summarize(ice_manifest_writer_t *w, const ice_data_file_t *f) {
  for (uint32_t i = 0; i < w->ptype->nfields; i++) {
    part_summary_t *s = &w->sums[i];
    const ty_value_t *v = &f->partition[i];
    if (v->is_null) {
      s->contains_null = true;
    } else if (is_nan(v)) {
      s->contains_nan = true;
    } else if (!s->have) {
      s->lo = keep_value(w->a, v);
      s->hi = s->lo;
      s->have = true;
    } else {
      if (ty_value_cmp(v, &s->lo) < 0) s->lo = keep_value(w->a, v);
      if (ty_value_cmp(v, &s->hi) > 0) s->hi = keep_value(w->a, v);
    }
  }
}

static int build_data_file(ice_manifest_writer_t *w, fl_arena_t *a, const ice_data_file_t *f,
                           av_value_t **out, fl_err_t *err) {
  if (!f->path || !f->format)
    return fl_err_set(err, FL_EINVALID, "data file without path or format");
  if ((int)f->content < 0 || f->content > 2)
    return fl_err_set(err, FL_EINVALID, "content %d", (int)f->content);
  if ((w->content == 0) != (f->content == ICE_CONTENT_DATA))
    return fl_err_set(err, FL_EINVALID, "a %s file in a %s manifest",
                      f->content == ICE_CONTENT_DATA ? "data" : "delete",
                      w->content ? "delete" : "data");
  if (f->npartition != w->ptype->nfields || (f->npartition && !f->partition))
    return fl_err_set(err, FL_EINVALID, "%u partition values for a spec of %u fields",
                      f->npartition, w->ptype->nfields);
  const av_schema_t *df = w->file_s;
  av_value_t *d = av_value_record(a, df);
  av_value_t *p = av_value_record(a, w->part_s);
  for (uint32_t i = 0; i < w->ptype->nfields; i++) {
    const ty_field_t *pf = &w->ptype->fields[i];
    int rc = partition_value(a, pf->type, av_schema_nonnull(w->part_s->fields[i].type),
                             &f->partition[i], &p->u.record.fields[i], err);
    if (rc) return fl_err_prefix(err, "partition field %s: ", pf->name);
  }
  set(d, "content", av_value_int(a, (int32_t)f->content));
  set(d, "file_path", av_value_string(a, f->path));
  set(d, "file_format", av_value_string(a, f->format));
  set(d, "partition", p);
  set(d, "record_count", av_value_long(a, f->record_count));
  set(d, "file_size_in_bytes", av_value_long(a, f->file_size));
  set(d, "block_size_in_bytes", av_value_long(a, 64 * 1024 * 1024));
  static const char *const maps[] = {"column_sizes",     "value_counts", "null_value_counts",
                                     "nan_value_counts", "lower_bounds", "upper_bounds"};
  for (int k = 0; k < 6; k++) set(d, maps[k], metric_map(a, df, maps[k], f, k));
  if (f->key_metadata.p)
    set(d, "key_metadata", av_value_bytes(a, f->key_metadata.p, f->key_metadata.n));
  if (f->nsplit_offsets) {
    av_value_t *arr = av_value_array(a, f->nsplit_offsets);
    for (uint32_t i = 0; i < f->nsplit_offsets; i++)
      av_array_append(a, arr, av_value_long(a, f->split_offsets[i]));
    set(d, "split_offsets", arr);
  }
  if (f->nequality_ids) {
    if (w->fv < 2) return fl_err_set(err, FL_EINVALID, "equality ids in a v1 manifest");
    av_value_t *arr = av_value_array(a, f->nequality_ids);
    for (uint32_t i = 0; i < f->nequality_ids; i++)
      av_array_append(a, arr, av_value_int(a, f->equality_ids[i]));
    set(d, "equality_ids", arr);
  }
  if (f->sort_order_id >= 0) set(d, "sort_order_id", av_value_int(a, f->sort_order_id));
  if (f->referenced_data_file)
    set(d, "referenced_data_file", av_value_string(a, f->referenced_data_file));
  if (w->fv >= 3) {
    set(d, "first_row_id", opt_long(a, f->first_row_id));
    set(d, "content_offset", opt_long(a, f->content_offset));
    set(d, "content_size_in_bytes", opt_long(a, f->content_size));
  }
  *out = d;
  return FL_OK;
}

int ice_manifest_writer_add(ice_manifest_writer_t *w, const ice_manifest_entry_t *e,
                            fl_err_t *err) {
  fl_arena_t *a = w->scratch;
  fl_arena_reset(a);
  int rc;
  if ((int)e->status < 0 || e->status > 2) {
    rc = fl_err_set(err, FL_EINVALID, "status %d", (int)e->status);
    goto fail;
  }
  bool added = e->status == ICE_STATUS_ADDED;
  av_value_t *df = NULL;
  rc = build_data_file(w, a, &e->file, &df, err);
  if (rc) goto fail;
  av_value_t *rec = av_value_record(a, w->entry_s);
  set(rec, "status", av_value_int(a, (int32_t)e->status));
  int64_t snap = added && w->snapshot_id >= 0 ? w->snapshot_id : e->snapshot_id;
  if (w->fv == 1 && snap < 0) {
    rc = fl_err_set(err, FL_EINVALID, "v1 entries need a snapshot id");
    goto fail;
  }
  set(rec, "snapshot_id", opt_long(a, snap));
  if (!added) {
    set(rec, "sequence_number", opt_long(a, e->sequence_number));
    set(rec, "file_sequence_number", opt_long(a, e->file_sequence_number));
  }
  set(rec, "data_file", df);
  rc = av_writer_write_value(w->aw, rec, err);
  if (rc) goto fail;

  int64_t rows = e->file.record_count;
  switch (e->status) {
    case ICE_STATUS_ADDED: w->added_files++, w->added_rows += rows; break;
    case ICE_STATUS_EXISTING: w->existing_files++, w->existing_rows += rows; break;
    default: w->deleted_files++, w->deleted_rows += rows; break;
  }
  if (!added && e->sequence_number >= 0 && (w->min_seq < 0 || e->sequence_number < w->min_seq))
    w->min_seq = e->sequence_number;
  summarize(w, &e->file);
  w->nentries++;
  return FL_OK;
fail:
  return fl_err_prefix(err, "manifest %s: entry %llu (%s): ", w->path,
                       (unsigned long long)w->nentries, e->file.path ? e->file.path : "?");
}

static ice_bytes_t bound_bytes(fl_arena_t *a, const ty_type_t *t, const ty_value_t *v) {
  fl_buf_t b;
  fl_buf_init(&b);
  ice_bytes_t out = {0};
  fl_err_t e = {0};
  if (ice_value_to_bytes(t, v, &b, &e) == FL_OK) {
    out.p = fl_arena_memdup(a, b.len ? b.data : (const uint8_t *)"", b.len);
    out.n = b.len;
  }
  fl_buf_free(&b);
  return out;
}

int ice_manifest_writer_close(ice_manifest_writer_t *w, fl_arena_t *a, ice_manifest_file_t *out,
                              fl_err_t *err) {
  memset(out, 0, sizeof *out);
  av_writer_t *aw = w->aw;
  w->aw = NULL;
  int rc = av_writer_finish(aw, err);
  if (rc) {
    fl_err_prefix(err, "manifest %s: ", w->path);
    ice_manifest_writer_abort(w);
    return rc;
  }
  out->path = fl_arena_strdup(a, w->path);
  out->length = (int64_t)w->length;
  out->spec_id = w->spec_id;
  out->content = w->content;
  out->sequence_number = -1;
  out->min_sequence_number = w->min_seq;
  out->added_snapshot_id = w->snapshot_id;
  out->added_files = w->added_files;
  out->existing_files = w->existing_files;
  out->deleted_files = w->deleted_files;
  out->added_rows = w->added_rows;
  out->existing_rows = w->existing_rows;
  out->deleted_rows = w->deleted_rows;
  out->first_row_id = -1;
  out->npartitions = w->ptype->nfields;
  if (out->npartitions) {
    out->partitions = fl_arena_zalloc(a, sizeof *out->partitions * out->npartitions);
    for (uint32_t i = 0; i < out->npartitions; i++) {
      const part_summary_t *s = &w->sums[i];
      ice_field_summary_t *fs = &out->partitions[i];
      const ty_type_t *t = w->ptype->fields[i].type;
      fs->contains_null = s->contains_null;
      fs->contains_nan = s->contains_nan ? 1 : 0;
      if (s->have) {
        fs->lower = bound_bytes(a, t, &s->lo);
        fs->upper = bound_bytes(a, t, &s->hi);
      }
    }
  }
  ice_manifest_writer_abort(w);
  return FL_OK;
}
