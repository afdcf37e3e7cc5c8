/*
 * pq_codec_compress.c - page compression for the Parquet writer (layer 4,
 * format/parquet): UNCOMPRESSED, SNAPPY (raw snappy), GZIP (zlib with gzip
 * framing), ZSTD (a frame with the content size) and LZ4_RAW (one LZ4
 * block), each appending to the output buffer.
 */
#include <lz4.h>
#include <pthread.h>
#include <snappy-c.h>
#include <strings.h>
#include <zlib.h>
#include <zstd.h>

#include "format/parquet/pq_codec.h"

enum { PQ_ZSTD_DEFAULT_LEVEL = 1 };

int pq_codec_parse(const char *name, pq_codec_t *out, fl_err_t *err) {
  static const struct {
    const char *name;
    pq_codec_t codec;
  } names[] = {
      {"uncompressed", PQ_CODEC_UNCOMPRESSED}, {"none", PQ_CODEC_UNCOMPRESSED},
      {"snappy", PQ_CODEC_SNAPPY},             {"gzip", PQ_CODEC_GZIP},
      {"zstd", PQ_CODEC_ZSTD},                 {"lz4_raw", PQ_CODEC_LZ4_RAW},
      {"lz4raw", PQ_CODEC_LZ4_RAW},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcasecmp(name, names[i].name) == 0) {
      *out = names[i].codec;
      return FL_OK;
    }
  return fl_err_set(err, FL_EINVALID,
                    "unknown Parquet compression '%s' (use zstd, snappy, gzip, lz4_raw or "
                    "uncompressed)",
                    name);
}

static int gzip_compress(int level, const uint8_t *in, size_t n, fl_buf_t *out, fl_err_t *err) {
  z_stream z;
  memset(&z, 0, sizeof z);
  /* windowBits 15 + 16 selects the gzip wrapper. */
  if (deflateInit2(&z, level ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    return fl_err_set(err, FL_EINTERNAL, "gzip: deflateInit2 failed");
  size_t bound = deflateBound(&z, (uLong)n) + 32;
  fl_buf_reserve(out, bound);
  z.next_in = (Bytef *)in;
  z.avail_in = (uInt)n;
  z.next_out = out->data + out->len;
  z.avail_out = (uInt)bound;
  int zr = deflate(&z, Z_FINISH);
  if (zr != Z_STREAM_END) {
    deflateEnd(&z);
    return fl_err_set(err, FL_EINTERNAL, "gzip: deflate failed (%d)", zr);
  }
  out->len += z.total_out;
  deflateEnd(&z);
  return FL_OK;
}

/* The zstd context of this thread, made on first use and freed when the
 * thread exits (query worker threads come and go). */
static pthread_key_t g_cctx_key;
static pthread_once_t g_cctx_once = PTHREAD_ONCE_INIT;
static void free_cctx(void *p) { ZSTD_freeCCtx(p); }
static void make_cctx_key(void) { pthread_key_create(&g_cctx_key, free_cctx); }

static ZSTD_CCtx *thread_cctx(void) {
  static _Thread_local ZSTD_CCtx *cctx;
  if (cctx) return cctx;
  pthread_once(&g_cctx_once, make_cctx_key);
  if (!(cctx = ZSTD_createCCtx())) return NULL;
  pthread_setspecific(g_cctx_key, cctx);
  return cctx;
}

int pq_compress(pq_codec_t codec, int level, const uint8_t *in, size_t n, fl_buf_t *out,
                fl_err_t *err) {
  switch (codec) {
    case PQ_CODEC_UNCOMPRESSED: fl_buf_append(out, in, n); return FL_OK;
    case PQ_CODEC_SNAPPY: {
      size_t cap = snappy_max_compressed_length(n);
      fl_buf_reserve(out, cap);
      if (snappy_compress((const char *)in, n, (char *)out->data + out->len, &cap) != SNAPPY_OK)
        return fl_err_set(err, FL_EINTERNAL, "snappy: compression of %zu bytes failed", n);
      out->len += cap;
      return FL_OK;
    }
    case PQ_CODEC_GZIP: return gzip_compress(level, in, n, out, err);
    case PQ_CODEC_ZSTD: {
      /* One context per thread, reused: creating one per page costs more
       * than compressing a small page. The default level is 1, Arrow's
       * (and so PyIceberg's): on pages of high-entropy text such as ids
       * and random strings level 3 compresses at a third of level 1's
       * speed for a ratio about 1.5% better, and a streaming writer spends
       * that CPU on every event. Tables that want more set
       * write.parquet.compression-level. */
      ZSTD_CCtx *cctx = thread_cctx();
      if (!cctx) return fl_err_set(err, FL_ENOMEM, "zstd: cannot create a compression context");
      size_t cap = ZSTD_compressBound(n);
      fl_buf_reserve(out, cap);
      int lv = level ? level : PQ_ZSTD_DEFAULT_LEVEL;
      size_t r = ZSTD_compressCCtx(cctx, out->data + out->len, cap, in, n, lv);
      if (ZSTD_isError(r)) return fl_err_set(err, FL_EINTERNAL, "zstd: %s", ZSTD_getErrorName(r));
      out->len += r;
      return FL_OK;
    }
    case PQ_CODEC_LZ4_RAW: {
      if (n > LZ4_MAX_INPUT_SIZE)
        return fl_err_set(err, FL_ELIMIT, "lz4: page of %zu bytes too large", n);
      int cap = LZ4_compressBound((int)n);
      fl_buf_reserve(out, (size_t)cap);
      int r = LZ4_compress_default((const char *)in, (char *)out->data + out->len, (int)n, cap);
      if (r <= 0 && n)
        return fl_err_set(err, FL_EINTERNAL, "lz4: compression of %zu bytes failed", n);
      out->len += (size_t)r;
      return FL_OK;
    }
    default:
      return fl_err_set(err, FL_EUNSUPPORTED, "Parquet writer: codec %d is not supported",
                        (int)codec);
  }
}
