/*
 * av_fmt.c - the Avro format behind floe's reader/writer interface
 * (format.h): batches in and out of container files, and `floe inspect`.
 *
 * The writer's default codec is deflate, the codec Iceberg writes Avro
 * files with by default ("write.avro.compression-codec" = gzip) and the one
 * every Avro implementation reads.
 */
#include <jansson.h>
#include <string.h>

#include "base/alloc.h"
#include "format/avro/avro_batch.h"
#include "format/avro/avro_container.h"
#include "format/avro/avro_iceberg.h"
#include "format/avro/avro.h"
#include "format/format.h"

/* ---- reader ---- */

typedef struct av_fmt_reader {
  fmt_reader_t base;
  io_reader_t *in;
  av_reader_t *ar;
  fl_arena_t *arena;
  av_plan_t *plan;
  ty_batch_t *batch;
  fl_rd_t rd;          /* the current block */
  uint64_t blk_left;   /* records left in it */
  uint64_t blk_offset; /* its file offset */
  uint64_t blk_record; /* index of the next record in it */
  bool in_block;
  bool done;
} av_fmt_reader_t;

static int fr_next(fmt_reader_t *fr, ty_batch_t **out, fl_err_t *err) {
  av_fmt_reader_t *r = (av_fmt_reader_t *)fr;
  *out = NULL;
  ty_batch_reset(r->batch);
  uint32_t rows = 0;
  while (rows < TY_BATCH_ROWS && !r->done) {
    if (!r->blk_left) {
      if (r->in_block && r->rd.pos != r->rd.len)
        return fl_err_set(err, FL_ECORRUPT, "%s: block at byte %llu has %zu bytes after its %llu records",
                          r->ar->path, (unsigned long long)r->blk_offset, r->rd.len - r->rd.pos,
                          (unsigned long long)r->blk_record);
      const uint8_t *data;
      size_t len;
      uint64_t count;
      int rc = av_reader_next_block(r->ar, &data, &len, &count, &r->blk_offset, err);
      if (rc) return rc;
      if (!data) {
        r->done = true;
        break;
      }
      fl_rd_init(&r->rd, data, len, r->ar->path);
      r->blk_left = count;
      r->blk_record = 0;
      r->in_block = true;
    }
    int rc = av_plan_decode_row(r->plan, &r->rd, r->batch, err);
    if (rc)
      return fl_err_prefix(err, "block at byte %llu, record %llu: ", (unsigned long long)r->blk_offset,
                           (unsigned long long)r->blk_record);
    r->blk_left--;
    r->blk_record++;
    rows++;
  }
  if (!rows) return FL_OK;
  ty_batch_seal(r->batch);
  *out = r->batch;
  return FL_OK;
}

static void fr_close(fmt_reader_t *fr) {
  av_fmt_reader_t *r = (av_fmt_reader_t *)fr;
  if (!r) return;
  ty_batch_free(r->batch);
  av_reader_close(r->ar);
  if (r->in) r->in->close(r->in);
  fl_arena_free(r->arena);
  fl_free(r);
}

/*
 * Opens an Avro container file as a batch reader. The batches' schema is
 * opts->schema when given (columns matched by field id, else by name) or
 * the file's own schema converted to Iceberg types.
 */
int av_fmt_open_reader(io_fs_t *fs, const char *path, const fmt_read_opts_t *opts,
                       fmt_reader_t **out, fl_err_t *err) {
  av_fmt_reader_t *r = fl_calloc(1, sizeof *r);
  r->arena = fl_arena_new(0);
  int rc = fs->open_read(fs, path, &r->in, err);
  if (rc) goto err;
  rc = av_reader_open(r->in, &r->ar, err);
  if (rc) goto err;
  const ty_schema_t *schema = opts ? opts->schema : NULL;
  if (!schema) {
    ty_schema_t *s;
    rc = av_schema_to_iceberg(r->arena, r->ar->schema, &s, err);
    if (rc) {
      fl_err_prefix(err, "%s: ", path);
      goto err;
    }
    schema = s;
  }
  rc = av_plan_build(r->arena, r->ar->schema, schema, &r->plan, err);
  if (rc) {
    fl_err_prefix(err, "%s: ", path);
    goto err;
  }
  r->batch = ty_batch_new(schema, TY_BATCH_ROWS);
  r->base.schema = schema;
  r->base.next = fr_next;
  r->base.close = fr_close;
  *out = &r->base;
  return FL_OK;
err:
  fr_close(&r->base);
  return rc;
}

/* ---- writer ---- */

typedef struct av_fmt_writer {
  fmt_writer_t base;
  av_writer_t *w;
  fl_arena_t *arena;
  av_plan_t *plan;
} av_fmt_writer_t;

static int fw_write(fmt_writer_t *fw, const ty_batch_t *b, fl_err_t *err) {
  av_fmt_writer_t *w = (av_fmt_writer_t *)fw;
  uint32_t n = ty_batch_live(b);
  for (uint32_t k = 0; k < n; k++) {
    uint32_t row = b->sel ? b->sel[k] : k;
    fl_buf_t *buf = av_writer_buf(w->w);
    size_t mark = buf->len;
    int rc = av_plan_encode_row(w->plan, b, row, buf, err);
    if (rc) {
      buf->len = mark;
      return rc;
    }
    rc = av_writer_record_done(w->w, err);
    if (rc) return rc;
  }
  return FL_OK;
}

static int fw_close(fmt_writer_t *fw, fl_err_t *err) {
  av_fmt_writer_t *w = (av_fmt_writer_t *)fw;
  int rc = av_writer_finish(w->w, err);
  fl_arena_free(w->arena);
  fl_free(w);
  return rc;
}

static void fw_abort(fmt_writer_t *fw) {
  av_fmt_writer_t *w = (av_fmt_writer_t *)fw;
  av_writer_abort(w->w);
  fl_arena_free(w->arena);
  fl_free(w);
}

/*
 * Opens a batch writer for an Avro container file of the Iceberg schema
 * (converted as Iceberg's AvroSchemaUtil does, top record "table").
 * opts->compression: null, deflate (default), snappy, zstd.
 */
int av_fmt_open_writer(io_fs_t *fs, const char *path, const ty_schema_t *schema,
                       const fmt_write_opts_t *opts, fmt_writer_t **out, fl_err_t *err) {
  av_writer_opts_t wo = {0};
  int rc = av_codec_from_name(opts && opts->compression ? opts->compression : "deflate", &wo.codec, err);
  if (rc) return rc;
  wo.level = opts ? opts->compression_level : 0;
  av_fmt_writer_t *w = fl_calloc(1, sizeof *w);
  w->arena = fl_arena_new(0);
  av_schema_t *as;
  rc = av_schema_from_iceberg(w->arena, schema, "table", &as, err);
  if (!rc) rc = av_plan_build(w->arena, as, schema, &w->plan, err);
  if (rc) {
    fl_arena_free(w->arena);
    fl_free(w);
    return rc;
  }
  io_writer_t *o;
  rc = fs->create(fs, path, false, &o, err);
  if (!rc) rc = av_writer_open(o, as, &wo, &w->w, err);
  if (rc) {
    fl_arena_free(w->arena);
    fl_free(w);
    return rc;
  }
  w->base.write = fw_write;
  w->base.close = fw_close;
  w->base.abort = fw_abort;
  *out = &w->base;
  return FL_OK;
}

/* ---- inspect ---- */

static bool printable(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] < 0x20 && p[i] != '\n' && p[i] != '\t' && p[i] != '\r') return false;
  return true;
}

static json_t *meta_json(const av_meta_t *m) {
  if (printable(m->value, m->len)) {
    json_t *s = json_stringn((const char *)m->value, m->len);
    if (s) return s;
  }
  static const char hex[] = "0123456789abcdef";
  char *h = fl_malloc(m->len * 2 + 1);
  for (size_t i = 0; i < m->len; i++) {
    h[2 * i] = hex[m->value[i] >> 4];
    h[2 * i + 1] = hex[m->value[i] & 15];
  }
  h[m->len * 2] = 0;
  json_t *s = json_string(h);
  fl_free(h);
  return s;
}

/* Prints schema, codec, metadata, record and block counts of an Avro file. */
int av_fmt_inspect(io_fs_t *fs, const char *path, bool json, FILE *out, fl_err_t *err) {
  io_reader_t *in;
  int rc = fs->open_read(fs, path, &in, err);
  if (rc) return rc;
  av_reader_t *r;
  rc = av_reader_open(in, &r, err);
  if (rc) {
    in->close(in);
    return rc;
  }
  uint64_t records, blocks;
  rc = av_reader_scan(r, &records, &blocks, err);
  if (rc) goto done;
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *ts = NULL;
  fl_err_t terr = {0};
  fl_buf_t tb;
  fl_buf_init(&tb);
  if (av_schema_to_iceberg(a, r->schema, &ts, &terr) == FL_OK) ty_schema_format(ts, &tb);
  fl_buf_append_u8(&tb, 0);
  char *schema_json = av_schema_to_json(a, r->schema);
  if (json) {
    json_t *o = json_object();
    json_object_set_new(o, "format", json_string("avro"));
    json_object_set_new(o, "path", json_string(path));
    json_object_set_new(o, "file_size", json_integer((json_int_t)r->file_size));
    json_object_set_new(o, "codec", json_string(av_codec_name(r->codec)));
    json_object_set_new(o, "records", json_integer((json_int_t)records));
    json_object_set_new(o, "blocks", json_integer((json_int_t)blocks));
    json_t *sj = json_loads(schema_json, JSON_DECODE_ANY, NULL);
    json_object_set_new(o, "schema", sj ? sj : json_null());
    json_object_set_new(o, "iceberg_schema", ts ? json_string((const char *)tb.data) : json_null());
    json_t *m = json_object();
    for (uint32_t i = 0; i < r->nmeta; i++)
      if (strcmp(r->meta[i].key, "avro.schema")) json_object_set_new(m, r->meta[i].key, meta_json(&r->meta[i]));
    json_object_set_new(o, "metadata", m);
    char *t = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fprintf(out, "%s\n", t ? t : "{}");
    free(t);
    json_decref(o);
  } else {
    fprintf(out, "file:     %s (%llu bytes)\n", path, (unsigned long long)r->file_size);
    fprintf(out, "format:   avro\ncodec:    %s\n", av_codec_name(r->codec));
    fprintf(out, "records:  %llu\nblocks:   %llu\n", (unsigned long long)records,
            (unsigned long long)blocks);
    fprintf(out, "schema:   %s\n", schema_json);
    if (ts) fprintf(out, "iceberg:  %s\n", (const char *)tb.data);
    fprintf(out, "metadata:\n");
    for (uint32_t i = 0; i < r->nmeta; i++) {
      if (!strcmp(r->meta[i].key, "avro.schema")) continue;
      json_t *v = meta_json(&r->meta[i]);
      fprintf(out, "  %s: %s\n", r->meta[i].key, json_string_value(v));
      json_decref(v);
    }
  }
  fl_buf_free(&tb);
  fl_arena_free(a);
done:
  av_reader_close(r);
  in->close(in);
  return rc;
}

const fmt_impl_t av_fmt_impl = {
    .kind = FMT_AVRO,
    .open_reader = av_fmt_open_reader,
    .open_writer = av_fmt_open_writer,
    .inspect = av_fmt_inspect,
};
