/*
 * avro_container.c - reading and writing Avro object container files (see
 * avro_container.h for the layout and the guarantees).
 */
#include "format/avro/avro_container.h"

#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/time.h"

/* The header (schema and metadata) may not exceed this. */
#define MAX_HEADER_BYTES (64u << 20)
/* A block decompresses to at most this many bytes. */
#define MAX_BLOCK_BYTES ((size_t)256 << 20)
/* Records per block allowed when a record may encode to zero bytes. */
#define MAX_ZERO_BYTE_RECORDS (1u << 20)

static const uint8_t MAGIC[4] = {'O', 'b', 'j', 1};

/* ---- reading ---- */

static int parse_header(av_reader_t *r, const uint8_t *buf, size_t n, fl_err_t *err) {
  fl_rd_t rd;
  fl_rd_init(&rd, buf, n, r->path);
  const uint8_t *m;
  int rc = fl_rd_bytes(&rd, 4, &m, err);
  if (rc) return rc;
  if (memcmp(m, MAGIC, 4))
    return fl_err_set(err, FL_ECORRUPT, "%s: not an Avro container file (bad magic at byte 0)", r->path);
  uint32_t cap = 0;
  r->nmeta = 0;
  for (;;) {
    uint64_t count;
    rc = av__read_block_count(&rd, 2, &count, err);
    if (rc) return rc;
    if (!count) break;
    if (count > 1000000 - r->nmeta)
      return fl_err_set(err, FL_ECORRUPT, "%s: too many header entries at byte %zu", r->path, rd.pos);
    if (r->nmeta + count > cap) {
      uint32_t nc = (uint32_t)(r->nmeta + count);
      av_meta_t *nm = fl_arena_alloc(r->arena, sizeof *nm * nc);
      if (r->nmeta) memcpy(nm, r->meta, sizeof *nm * r->nmeta);
      r->meta = nm;
      cap = nc;
    }
    for (uint64_t i = 0; i < count; i++) {
      const uint8_t *k, *v;
      size_t kn, vn;
      rc = av__read_bytes(&rd, &k, &kn, err);
      if (rc) return rc;
      rc = av__read_bytes(&rd, &v, &vn, err);
      if (rc) return rc;
      av_meta_t *e = &r->meta[r->nmeta++];
      e->key = fl_arena_strndup(r->arena, (const char *)k, kn);
      uint8_t *vc = fl_arena_alloc(r->arena, vn + 1);
      memcpy(vc, v, vn);
      vc[vn] = 0;
      e->value = vc;
      e->len = vn;
    }
  }
  const uint8_t *sync;
  rc = fl_rd_bytes(&rd, 16, &sync, err);
  if (rc) return rc;
  memcpy(r->sync, sync, 16);
  r->data_offset = rd.pos;
  return FL_OK;
}

const uint8_t *av_reader_meta(const av_reader_t *r, const char *key, size_t *len) {
  for (uint32_t i = 0; i < r->nmeta; i++)
    if (!strcmp(r->meta[i].key, key)) {
      if (len) *len = r->meta[i].len;
      return r->meta[i].value;
    }
  return NULL;
}

int av_reader_open(io_reader_t *in, av_reader_t **out, fl_err_t *err) {
  av_reader_t *r = fl_calloc(1, sizeof *r);
  r->arena = fl_arena_new(0);
  r->in = in;
  r->path = fl_arena_strdup(r->arena, in->path ? in->path : "avro file");
  r->file_size = in->size;
  uint8_t *buf = NULL;
  size_t want = 65536;
  int rc;
  for (;;) {
    size_t n = want < r->file_size ? want : (size_t)r->file_size;
    uint8_t *nb = fl_try_realloc(buf, n ? n : 1);
    if (!nb) {
      rc = fl_err_set(err, FL_ENOMEM, "%s: cannot allocate the header buffer", r->path);
      goto err;
    }
    buf = nb;
    rc = n ? in->read_at(in, 0, buf, n, err) : FL_OK;
    if (rc) goto err;
    fl_err_t e2 = {0};
    rc = parse_header(r, buf, n, &e2);
    if (rc == FL_OK) break;
    /* A truncated header may just need a larger read. */
    if (rc == FL_ECORRUPT && n < r->file_size && want < MAX_HEADER_BYTES && strstr(e2.msg, "truncated")) {
      want *= 4;
      continue;
    }
    if (err) *err = e2;
    if (rc == FL_ECORRUPT && strstr(e2.msg, "truncated"))
      fl_err_set(err, FL_ECORRUPT, "%s: header truncated at byte %zu", r->path, n);
    goto err;
  }
  fl_free(buf);
  buf = NULL;
  size_t slen;
  const uint8_t *sj = av_reader_meta(r, "avro.schema", &slen);
  if (!sj) {
    rc = fl_err_set(err, FL_ECORRUPT, "%s: header has no avro.schema", r->path);
    goto err;
  }
  av_schema_t *s;
  rc = av_schema_parse(r->arena, (const char *)sj, slen, &s, err);
  if (rc) {
    fl_err_prefix(err, "%s: ", r->path);
    rc = FL_ECORRUPT;
    if (err) err->code = FL_ECORRUPT;
    goto err;
  }
  r->schema = s;
  size_t clen;
  const uint8_t *cj = av_reader_meta(r, "avro.codec", &clen);
  rc = av_codec_from_name(cj ? (const char *)cj : "null", &r->codec, err);
  if (rc) {
    fl_err_prefix(err, "%s: ", r->path);
    goto err;
  }
  r->pos = r->data_offset;
  *out = r;
  return FL_OK;
err:
  fl_free(buf);
  av_reader_close(r);
  return rc;
}

void av_reader_close(av_reader_t *r) {
  if (!r) return;
  fl_free(r->raw);
  fl_free(r->plain);
  fl_arena_free(r->arena);
  fl_free(r);
}

static int grow_buf(uint8_t **buf, size_t *cap, size_t want, const char *path, fl_err_t *err) {
  if (*cap >= want) return FL_OK;
  size_t c = *cap ? *cap : 65536;
  while (c < want) c *= 2;
  uint8_t *p = fl_try_realloc(*buf, c);
  if (!p) return fl_err_set(err, FL_ENOMEM, "%s: cannot allocate %zu bytes for a block", path, c);
  *buf = p;
  *cap = c;
  return FL_OK;
}

int av_reader_next_block(av_reader_t *r, const uint8_t **data, size_t *len, uint64_t *count,
                         uint64_t *offset, fl_err_t *err) {
  for (;;) {
    *data = NULL;
    *len = 0;
    *count = 0;
    if (r->pos >= r->file_size) return FL_OK;
    uint64_t at = r->pos;
    if (offset) *offset = at;
    uint8_t hdr[20];
    size_t hn = r->file_size - at < sizeof hdr ? (size_t)(r->file_size - at) : sizeof hdr;
    int rc = r->in->read_at(r->in, at, hdr, hn, err);
    if (rc) return rc;
    fl_rd_t rd;
    fl_rd_init(&rd, hdr, hn, r->path);
    int64_t cnt, size;
    fl_err_t e2 = {0};
    if (fl_rd_zvarint(&rd, &cnt, &e2) || fl_rd_zvarint(&rd, &size, &e2))
      return fl_err_set(err, FL_ECORRUPT, "%s: truncated block header at byte %llu", r->path,
                        (unsigned long long)at);
    uint64_t left = r->file_size - at - rd.pos;
    if (cnt < 0)
      return fl_err_set(err, FL_ECORRUPT, "%s: negative record count in block at byte %llu", r->path,
                        (unsigned long long)at);
    if (size < 0 || (uint64_t)size > left || left - (uint64_t)size < 16)
      return fl_err_set(err, FL_ECORRUPT,
                        "%s: block at byte %llu claims %lld bytes but only %llu remain", r->path,
                        (unsigned long long)at, (long long)size, (unsigned long long)(left > 16 ? left - 16 : 0));
    size_t n = (size_t)size;
    rc = grow_buf(&r->raw, &r->raw_cap, n + 16, r->path, err);
    if (rc) return rc;
    rc = r->in->read_at(r->in, at + rd.pos, r->raw, n + 16, err);
    if (rc) return rc;
    if (memcmp(r->raw + n, r->sync, 16))
      return fl_err_set(err, FL_ECORRUPT, "%s: sync marker mismatch after block at byte %llu",
                        r->path, (unsigned long long)at);
    r->pos = at + rd.pos + n + 16;
    r->blocks_read++;
    size_t plain_len;
    size_t max_out = MAX_BLOCK_BYTES;
    rc = av__decompress(r->codec, r->raw, n, max_out, &r->plain, &r->plain_cap, &plain_len, err);
    if (rc)
      return fl_err_prefix(err, "%s: block at byte %llu: ", r->path, (unsigned long long)at);
    size_t min = av_schema_min_bytes(r->schema);
    uint64_t limit = min ? plain_len / min : MAX_ZERO_BYTE_RECORDS;
    if ((uint64_t)cnt > limit)
      return fl_err_set(err, FL_ECORRUPT,
                        "%s: block at byte %llu claims %lld records in %zu bytes", r->path,
                        (unsigned long long)at, (long long)cnt, plain_len);
    if (cnt == 0) continue;
    *data = r->plain;
    *len = plain_len;
    *count = (uint64_t)cnt;
    return FL_OK;
  }
}

int av_reader_scan(av_reader_t *r, uint64_t *records, uint64_t *blocks, fl_err_t *err) {
  *records = *blocks = 0;
  uint64_t pos = r->data_offset;
  while (pos < r->file_size) {
    uint8_t hdr[20];
    size_t hn = r->file_size - pos < sizeof hdr ? (size_t)(r->file_size - pos) : sizeof hdr;
    int rc = r->in->read_at(r->in, pos, hdr, hn, err);
    if (rc) return rc;
    fl_rd_t rd;
    fl_rd_init(&rd, hdr, hn, r->path);
    int64_t cnt, size;
    fl_err_t e2 = {0};
    if (fl_rd_zvarint(&rd, &cnt, &e2) || fl_rd_zvarint(&rd, &size, &e2))
      return fl_err_set(err, FL_ECORRUPT, "%s: truncated block header at byte %llu", r->path,
                        (unsigned long long)pos);
    uint64_t left = r->file_size - pos - rd.pos;
    if (cnt < 0 || size < 0 || (uint64_t)size > left || left - (uint64_t)size < 16)
      return fl_err_set(err, FL_ECORRUPT, "%s: invalid block header at byte %llu", r->path,
                        (unsigned long long)pos);
    uint8_t sync[16];
    rc = r->in->read_at(r->in, pos + rd.pos + (uint64_t)size, sync, 16, err);
    if (rc) return rc;
    if (memcmp(sync, r->sync, 16))
      return fl_err_set(err, FL_ECORRUPT, "%s: sync marker mismatch after block at byte %llu",
                        r->path, (unsigned long long)pos);
    *records += (uint64_t)cnt;
    (*blocks)++;
    pos += rd.pos + (uint64_t)size + 16;
  }
  return FL_OK;
}

/* ---- writing ---- */

struct av_writer {
  io_writer_t *out;
  const av_schema_t *schema;
  av_codec_t codec;
  int level;
  size_t block_bytes;
  uint8_t sync[16];
  fl_buf_t block; /* uncompressed records of the pending block */
  uint64_t block_count;
  fl_buf_t scratch;
  uint64_t total;
};

static void make_sync(uint8_t sync[16]) {
  if (getentropy(sync, 16) == 0) return;
  static uint64_t counter;
  uint64_t seed[3] = {(uint64_t)fl_now_micros(), (uint64_t)fl_monotonic_ns(), ++counter};
  uint64_t a = fl_xxhash64(seed, sizeof seed, 1), b = fl_xxhash64(seed, sizeof seed, 2);
  memcpy(sync, &a, 8);
  memcpy(sync + 8, &b, 8);
}

static void put_bytes(fl_buf_t *b, const void *p, size_t n) {
  fl_buf_append_zvarint(b, (int64_t)n);
  fl_buf_append(b, p, n);
}

int av_writer_open(io_writer_t *out, const av_schema_t *schema, const av_writer_opts_t *opts,
                   av_writer_t **wp, fl_err_t *err) {
  av_writer_opts_t def = {0};
  if (!opts) opts = &def;
  for (size_t i = 0; i < opts->nmeta; i++)
    if (!strncmp(opts->meta[i].key, "avro.", 5)) {
      out->abort(out);
      return fl_err_set(err, FL_EINVALID, "avro metadata key %s is reserved", opts->meta[i].key);
    }
  av_writer_t *w = fl_calloc(1, sizeof *w);
  w->out = out;
  w->schema = schema;
  w->codec = opts->codec;
  w->level = opts->level;
  w->block_bytes = opts->block_bytes ? opts->block_bytes : 65536;
  make_sync(w->sync);
  fl_buf_init(&w->block);
  fl_buf_init(&w->scratch);
  fl_buf_t *h = &w->scratch;
  fl_buf_append(h, MAGIC, 4);
  fl_buf_append_zvarint(h, (int64_t)(2 + opts->nmeta));
  fl_buf_t sj;
  fl_buf_init(&sj);
  av_schema_write(schema, &sj);
  put_bytes(h, "avro.schema", 11);
  put_bytes(h, sj.data, sj.len);
  fl_buf_free(&sj);
  const char *cn = av_codec_name(w->codec);
  put_bytes(h, "avro.codec", 10);
  put_bytes(h, cn, strlen(cn));
  for (size_t i = 0; i < opts->nmeta; i++) {
    put_bytes(h, opts->meta[i].key, strlen(opts->meta[i].key));
    put_bytes(h, opts->meta[i].value, opts->meta[i].len);
  }
  fl_buf_append_u8(h, 0);
  fl_buf_append(h, w->sync, 16);
  int rc = out->write(out, h->data, h->len, err);
  fl_buf_clear(h);
  if (rc) {
    av_writer_abort(w);
    return rc;
  }
  *wp = w;
  return FL_OK;
}

fl_buf_t *av_writer_buf(av_writer_t *w) { return &w->block; }

uint64_t av_writer_count(const av_writer_t *w) { return w->total; }

int av_writer_flush(av_writer_t *w, fl_err_t *err) {
  if (!w->block_count) return FL_OK;
  fl_buf_t *h = &w->scratch;
  fl_buf_clear(h);
  /* Room for the two varints in front of the compressed bytes. */
  uint8_t pre[20];
  fl_buf_t tmp;
  fl_buf_init(&tmp);
  int rc = av__compress(w->codec, w->level, w->block.data, w->block.len, &tmp, err);
  if (rc) {
    fl_buf_free(&tmp);
    return rc;
  }
  fl_buf_append_zvarint(h, (int64_t)w->block_count);
  fl_buf_append_zvarint(h, (int64_t)tmp.len);
  (void)pre;
  rc = w->out->write(w->out, h->data, h->len, err);
  if (!rc) rc = w->out->write(w->out, tmp.data, tmp.len, err);
  if (!rc) rc = w->out->write(w->out, w->sync, 16, err);
  fl_buf_free(&tmp);
  fl_buf_clear(&w->block);
  w->block_count = 0;
  return rc;
}

int av_writer_record_done(av_writer_t *w, fl_err_t *err) {
  w->block_count++;
  w->total++;
  if (w->block.len >= w->block_bytes) return av_writer_flush(w, err);
  return FL_OK;
}

int av_writer_write_value(av_writer_t *w, const av_value_t *v, fl_err_t *err) {
  size_t mark = w->block.len;
  int rc = av_encode(w->schema, v, &w->block, err);
  if (rc) {
    w->block.len = mark;
    return rc;
  }
  return av_writer_record_done(w, err);
}

int av_writer_finish(av_writer_t *w, fl_err_t *err) {
  int rc = av_writer_flush(w, err);
  if (rc) {
    av_writer_abort(w);
    return rc;
  }
  rc = w->out->commit(w->out, err);
  fl_buf_free(&w->block);
  fl_buf_free(&w->scratch);
  fl_free(w);
  return rc;
}

void av_writer_abort(av_writer_t *w) {
  if (!w) return;
  w->out->abort(w->out);
  fl_buf_free(&w->block);
  fl_buf_free(&w->scratch);
  fl_free(w);
}
