/*
 * ice_manifest_list.c - manifest lists (layer 5, iceberg).
 *
 * A manifest list is an Avro container of manifest_file records, one per
 * manifest of a snapshot, with the header keys snapshot-id,
 * parent-snapshot-id ("null" for none, as Java writes it),
 * sequence-number (v2 and later) and format-version. Writing assigns the
 * commit's sequence number to manifests new in it (sequence number -1);
 * reading finds fields by id, so Java's v1 names (added_data_files_count)
 * and PyIceberg's (added_files_count) read alike, and gives v1 lists
 * sequence numbers 0 and data content.
 */
#include <string.h>

#include "iceberg/ice_manifest_int.h"

static av_value_t *opt_long(fl_arena_t *a, int64_t v) {
  return v >= 0 ? av_value_long(a, v) : av_value_null(a);
}

static const av_schema_t *field_schema(const av_schema_t *rec, const char *name) {
  int i = av_record_field_index(rec, name);
  return i < 0 ? NULL : av_schema_nonnull(rec->fields[i].type);
}

static void set(av_value_t *rec, const char *name, av_value_t *v) {
  int i = av_record_field_index(rec->schema, name);
  if (i >= 0) rec->u.record.fields[i] = v;
}

static av_value_t *bytes_or_null(fl_arena_t *a, ice_bytes_t b) {
  return b.p ? av_value_bytes(a, b.p, b.n) : av_value_null(a);
}

static av_value_t *file_record(fl_arena_t *a, const av_schema_t *s, int fv, int64_t snapshot_id,
                               int64_t seq, int64_t first_row_id, const ice_manifest_file_t *m) {
  av_value_t *r = av_value_record(a, s);
  int64_t mseq = m->sequence_number >= 0 ? m->sequence_number : seq;
  int64_t mmin = m->min_sequence_number >= 0 ? m->min_sequence_number : mseq;
  if (mmin > mseq) mmin = mseq;
  int64_t added_by = m->added_snapshot_id >= 0 ? m->added_snapshot_id : snapshot_id;
  set(r, "manifest_path", av_value_string(a, m->path));
  set(r, "manifest_length", av_value_long(a, m->length));
  set(r, "partition_spec_id", av_value_int(a, m->spec_id));
  set(r, "content", av_value_int(a, m->content));
  set(r, "sequence_number", av_value_long(a, mseq));
  set(r, "min_sequence_number", av_value_long(a, mmin));
  set(r, "added_snapshot_id", av_value_long(a, added_by));
  static const char *const v1[] = {"added_data_files_count", "existing_data_files_count",
                                   "deleted_data_files_count"};
  static const char *const v2[] = {"added_files_count", "existing_files_count",
                                   "deleted_files_count"};
  int32_t files[3] = {m->added_files, m->existing_files, m->deleted_files};
  int64_t rows[3] = {m->added_rows, m->existing_rows, m->deleted_rows};
  static const char *const rn[] = {"added_rows_count", "existing_rows_count", "deleted_rows_count"};
  for (int k = 0; k < 3; k++) {
    /* v2 requires the counts; unknown ones (-1, from v1 lists) become 0 there. */
    int32_t fc = files[k] >= 0 ? files[k] : 0;
    int64_t rc = rows[k] >= 0 ? rows[k] : 0;
    if (fv == 1) {
      set(r, v1[k], files[k] >= 0 ? av_value_int(a, files[k]) : av_value_null(a));
      set(r, rn[k], opt_long(a, rows[k]));
    } else {
      set(r, v2[k], av_value_int(a, fc));
      set(r, rn[k], av_value_long(a, rc));
    }
  }
  /* Always a list, empty for an unpartitioned spec, as Java writes it:
   * Spark's manifests metadata table fails on a null one. */
  {
    const av_schema_t *arr = field_schema(s, "partitions");
    uint32_t np = m->partitions ? m->npartitions : 0;
    av_value_t *ps = av_value_array(a, np);
    for (uint32_t i = 0; i < np; i++) {
      const ice_field_summary_t *fs = &m->partitions[i];
      av_value_t *e = av_value_record(a, arr->items);
      set(e, "contains_null", av_value_bool(a, fs->contains_null));
      set(e, "contains_nan",
          fs->contains_nan >= 0 ? av_value_bool(a, fs->contains_nan != 0) : av_value_null(a));
      set(e, "lower_bound", bytes_or_null(a, fs->lower));
      set(e, "upper_bound", bytes_or_null(a, fs->upper));
      av_array_append(a, ps, e);
    }
    set(r, "partitions", ps);
  }
  set(r, "key_metadata", bytes_or_null(a, m->key_metadata));
  set(r, "first_row_id", opt_long(a, first_row_id));
  return r;
}

int ice_manifest_list_write(io_fs_t *fs, const char *path, int format_version, int64_t snapshot_id,
                            int64_t parent_id, int64_t seq, int64_t first_row_id,
                            const ice_manifest_file_t *files, size_t n, int64_t *assigned_rows,
                            const ice_avro_codec_t *codec, fl_err_t *err) {
  if (assigned_rows) *assigned_rows = 0;
  if (format_version < 1 || format_version > 3)
    return fl_err_set(err, FL_EUNSUPPORTED, "manifest list %s: format version %d", path,
                      format_version);
  bool lineage = format_version >= 3 && first_row_id >= 0;
  fl_arena_t *a = fl_arena_new(0);
  av_schema_t *s;
  int rc = av_schema_from_iceberg(a, ice__manifest_file_schema(a, format_version), "manifest_file",
                                  &s, err);
  if (rc) goto out;
  const char *kv[][2] = {
      {"snapshot-id", fl_arena_sprintf(a, "%lld", (long long)snapshot_id)},
      {"parent-snapshot-id",
       parent_id >= 0 ? fl_arena_sprintf(a, "%lld", (long long)parent_id) : "null"},
      {"sequence-number", fl_arena_sprintf(a, "%lld", (long long)seq)},
      {"first-row-id", fl_arena_sprintf(a, "%lld", (long long)first_row_id)},
      {"format-version", fl_arena_sprintf(a, "%d", format_version)},
  };
  av_meta_t meta[5];
  size_t nmeta = 0;
  for (size_t i = 0; i < 5; i++) {
    if (format_version == 1 && !strcmp(kv[i][0], "sequence-number")) continue;
    if (!lineage && !strcmp(kv[i][0], "first-row-id")) continue;
    meta[nmeta].key = kv[i][0];
    meta[nmeta].value = (const uint8_t *)kv[i][1];
    meta[nmeta].len = strlen(kv[i][1]);
    nmeta++;
  }
  io_writer_t *fw;
  rc = fs->create(fs, path, true, &fw, err);
  if (rc) goto out;
  av_writer_t *w;
  av_writer_opts_t o = {.codec = codec ? codec->codec : AV_CODEC_DEFLATE,
                        .level = codec ? codec->level : 0,
                        .meta = meta,
                        .nmeta = nmeta};
  rc = av_writer_open(fw, s, &o, &w, err);
  if (rc) goto out;
  fl_arena_t *scratch = fl_arena_new(0);
  int64_t next_row_id = first_row_id;
  for (size_t i = 0; i < n; i++) {
    fl_arena_reset(scratch);
    const ice_manifest_file_t *m = &files[i];
    int64_t mfirst = m->first_row_id;
    if (lineage && m->content == 0 && mfirst < 0) {
      mfirst = next_row_id;
      next_row_id += (m->added_rows > 0 ? m->added_rows : 0) +
                     (m->existing_rows > 0 ? m->existing_rows : 0);
    }
    if (!m->path) {
      rc = fl_err_set(err, FL_EINVALID, "manifest %zu has no path", i);
    } else if (format_version == 1 && m->content != 0) {
      rc = fl_err_set(err, FL_EINVALID, "delete manifest %s in a v1 list", m->path);
    } else {
      rc = av_writer_write_value(
          w, file_record(scratch, s, format_version, snapshot_id, seq, mfirst, m), err);
    }
    if (rc) break;
  }
  fl_arena_free(scratch);
  if (assigned_rows && lineage) *assigned_rows = next_row_id - first_row_id;
  if (rc)
    av_writer_abort(w);
  else
    rc = av_writer_finish(w, err);
out:
  if (rc) fl_err_prefix(err, "manifest list %s: ", path);
  fl_arena_free(a);
  return rc;
}

/* ---- reading ---- */

static bool get_long(ice__av_ids_t *ids, const av_value_t *rec, int32_t id, int64_t *out) {
  const av_value_t *v = ice__av_get(ids, rec, id);
  if (!v) return false;
  if (v->type == AV_LONG)
    *out = v->u.l;
  else if (v->type == AV_INT)
    *out = v->u.i;
  else
    return false;
  return true;
}

static int64_t opt(ice__av_ids_t *ids, const av_value_t *rec, int32_t id, int64_t dflt) {
  int64_t v;
  return get_long(ids, rec, id, &v) ? v : dflt;
}

static ice_bytes_t copy_bytes(fl_arena_t *a, const av_value_t *v) {
  ice_bytes_t b = {0};
  if (v && (v->type == AV_BYTES || v->type == AV_FIXED)) {
    b.p = fl_arena_memdup(a, v->u.bytes.n ? v->u.bytes.p : (const uint8_t *)"", v->u.bytes.n);
    b.n = v->u.bytes.n;
  }
  return b;
}

static int32_t clamp32(int64_t v) { return v < INT32_MIN || v > INT32_MAX ? -1 : (int32_t)v; }

static int read_file(fl_arena_t *a, ice__av_ids_t *ids, int fv, const av_value_t *rec,
                     ice_manifest_file_t *m, fl_err_t *err) {
  memset(m, 0, sizeof *m);
  const av_value_t *p = ice__av_get(ids, rec, 500);
  if (!p || p->type != AV_STRING) return fl_err_set(err, FL_ECORRUPT, "manifest_path missing");
  m->path = fl_arena_strndup(a, (const char *)p->u.bytes.p, p->u.bytes.n);
  int64_t l;
  if (!get_long(ids, rec, 501, &m->length))
    return fl_err_set(err, FL_ECORRUPT, "manifest_length missing");
  if (!get_long(ids, rec, 502, &l) || clamp32(l) < 0)
    return fl_err_set(err, FL_ECORRUPT, "partition_spec_id missing or invalid");
  m->spec_id = (int32_t)l;
  l = opt(ids, rec, 517, 0);
  if (l != 0 && l != 1) return fl_err_set(err, FL_ECORRUPT, "content %lld", (long long)l);
  m->content = (int32_t)l;
  if (fv >= 2) {
    if (!get_long(ids, rec, 515, &m->sequence_number))
      return fl_err_set(err, FL_ECORRUPT, "sequence_number missing");
    m->min_sequence_number = opt(ids, rec, 516, m->sequence_number);
  }
  m->added_snapshot_id = opt(ids, rec, 503, -1);
  m->added_files = clamp32(opt(ids, rec, 504, -1));
  m->existing_files = clamp32(opt(ids, rec, 505, -1));
  m->deleted_files = clamp32(opt(ids, rec, 506, -1));
  m->added_rows = opt(ids, rec, 512, -1);
  m->existing_rows = opt(ids, rec, 513, -1);
  m->deleted_rows = opt(ids, rec, 514, -1);
  const av_value_t *ps = ice__av_get(ids, rec, 507);
  if (ps) {
    if (ps->type != AV_ARRAY) return fl_err_set(err, FL_ECORRUPT, "partitions is not an array");
    m->npartitions = ps->u.array.n;
    m->partitions = fl_arena_zalloc(a, sizeof *m->partitions * (ps->u.array.n ? ps->u.array.n : 1));
    for (uint32_t i = 0; i < ps->u.array.n; i++) {
      const av_value_t *s = ps->u.array.items[i];
      ice_field_summary_t *fs = &m->partitions[i];
      if (!s || s->type != AV_RECORD)
        return fl_err_set(err, FL_ECORRUPT, "partitions[%u] is not a record", i);
      const av_value_t *cn = ice__av_get(ids, s, 509);
      fs->contains_null = cn && cn->type == AV_BOOLEAN && cn->u.b;
      const av_value_t *nan = ice__av_get(ids, s, 518);
      fs->contains_nan = nan && nan->type == AV_BOOLEAN ? (nan->u.b ? 1 : 0) : -1;
      fs->lower = copy_bytes(a, ice__av_get(ids, s, 510));
      fs->upper = copy_bytes(a, ice__av_get(ids, s, 511));
    }
  }
  m->key_metadata = copy_bytes(a, ice__av_get(ids, rec, 519));
  m->first_row_id = opt(ids, rec, 520, -1);
  return FL_OK;
}

int ice_manifest_list_read(io_fs_t *fs, fl_arena_t *a, const char *path, ice_manifest_file_t **out,
                           size_t *n, fl_err_t *err) {
  *out = NULL;
  *n = 0;
  io_reader_t *in = NULL;
  av_reader_t *r = NULL;
  fl_arena_t *scratch = NULL;
  ice_manifest_file_t *ms = NULL;
  size_t count = 0, cap = 0, index = 0;
  int rc = fs->open_read(fs, path, &in, err);
  if (rc) goto done;
  rc = av_reader_open(in, &r, err);
  if (rc) goto done;
  if (!r->schema || r->schema->type != AV_RECORD) {
    rc = fl_err_set(err, FL_ECORRUPT, "the file schema is not a record");
    goto done;
  }
  int fv = ice__av_format_version(r, ice__av_field_by_id(r->schema, 515) >= 0 ? 2 : 1);
  scratch = fl_arena_new(0);
  av_budget_t budget = {0};
  ice__av_ids_t ids = {.a = a};
  for (;;) {
    const uint8_t *data;
    size_t len;
    uint64_t recs, off;
    rc = av_reader_next_block(r, &data, &len, &recs, &off, err);
    if (rc || !data) break;
    av_budget_grant(&budget, len, recs);
    fl_rd_t rd;
    fl_rd_init(&rd, data, len, path);
    for (uint64_t k = 0; k < recs; k++, index++) {
      fl_arena_reset(scratch);
      av_value_t *v;
      rc = av_decode_budget(scratch, r->schema, &rd, &budget, &v, err);
      if (!rc && count == cap) {
        size_t nc = cap ? 2 * cap : 8;
        ice_manifest_file_t *bigger = fl_arena_alloc(a, nc * sizeof *bigger);
        if (count) memcpy(bigger, ms, count * sizeof *bigger);
        ms = bigger;
        cap = nc;
      }
      if (!rc) rc = read_file(a, &ids, fv, v, &ms[count], err);
      if (rc) {
        fl_err_prefix(err, "manifest_file %zu: ", index);
        goto done;
      }
      count++;
    }
    if (rd.pos != rd.len) {
      rc = fl_err_set(err, FL_ECORRUPT, "%zu bytes left over after the block at offset %llu",
                      rd.len - rd.pos, (unsigned long long)off);
      break;
    }
  }
done:
  if (rc) fl_err_prefix(err, "manifest list %s: ", path);
  fl_arena_free(scratch);
  if (r) av_reader_close(r);
  if (in) in->close(in);
  if (rc) return rc;
  *out = ms ? ms : fl_arena_zalloc(a, sizeof *ms);
  *n = count;
  return FL_OK;
}
