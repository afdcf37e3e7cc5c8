/*
 * pq_codec_decompress.c - page decompression for the Parquet reader
 * (layer 4, format/parquet).
 *
 * Every codec inflates into a buffer of exactly the page's declared
 * uncompressed size and fails when the output does not fill it exactly,
 * so a hostile page can neither write past the buffer nor leave part of it
 * undefined. LZ4 (the deprecated codec 5) comes in two shapes: Hadoop's
 * framing (big-endian uncompressed and compressed lengths before each
 * block, possibly several blocks) and a bare LZ4 block that older
 * parquet-cpp wrote; the framing is tried first.
 */
#include <lz4.h>
#include <pthread.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "format/parquet/pq_codec.h"
#include "format/parquet/pq_int.h"

static uint32_t load_be32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static int gzip_inflate(const uint8_t *in, size_t n, uint8_t *out, size_t out_len, fl_err_t *err) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return fl_err_set(err, FL_EINTERNAL, "zlib init failed");
  zs.next_in = (Bytef *)in;
  zs.avail_in = (uInt)n;
  zs.next_out = out;
  zs.avail_out = (uInt)out_len;
  int rc = FL_OK;
  for (;;) {
    int z = inflate(&zs, Z_FINISH);
    if (z == Z_STREAM_END) {
      /* Concatenated members: continue with the next one if bytes remain. */
      if (zs.avail_in == 0) break;
      if (zs.avail_in < 2 || zs.next_in[0] != 0x1f || zs.next_in[1] != 0x8b) break;
      if (inflateReset(&zs) != Z_OK) {
        rc = fl_err_set(err, FL_ECORRUPT, "gzip: cannot reset for the next member");
        break;
      }
      continue;
    }
    if (z == Z_BUF_ERROR && zs.avail_out == 0) {
      rc = fl_err_set(err, FL_ECORRUPT, "gzip page inflates beyond its declared size %zu", out_len);
      break;
    }
    rc = fl_err_set(err, FL_ECORRUPT, "gzip page is corrupt (%s)", zs.msg ? zs.msg : "inflate error");
    break;
  }
  size_t produced = out_len - zs.avail_out;
  inflateEnd(&zs);
  if (rc) return rc;
  if (produced != out_len)
    return fl_err_set(err, FL_ECORRUPT, "gzip page inflates to %zu bytes, expected %zu", produced,
                      out_len);
  return FL_OK;
}

/* Hadoop-framed LZ4: returns FL_OK when the whole input parses as frames
 * that fill out exactly, FL_ECORRUPT otherwise (without setting err). */
static int lz4_hadoop(const uint8_t *in, size_t n, uint8_t *out, size_t out_len) {
  size_t ip = 0, op = 0;
  while (ip < n) {
    if (n - ip < 8) return FL_ECORRUPT;
    uint32_t dsize = load_be32(in + ip), csize = load_be32(in + ip + 4);
    ip += 8;
    if (csize > n - ip || dsize > out_len - op) return FL_ECORRUPT;
    size_t block_end = op + dsize;
    /* One uncompressed block may be split into several compressed chunks. */
    while (op < block_end) {
      if (csize > n - ip || csize > INT32_MAX) return FL_ECORRUPT;
      int got = LZ4_decompress_safe((const char *)in + ip, (char *)out + op, (int)csize,
                                    (int)(block_end - op));
      if (got < 0) return FL_ECORRUPT;
      op += (size_t)got;
      ip += csize;
      if (op < block_end) {
        if (n - ip < 4) return FL_ECORRUPT;
        csize = load_be32(in + ip);
        ip += 4;
      } else if (got == 0 && dsize != 0) {
        return FL_ECORRUPT;
      }
    }
  }
  return op == out_len ? FL_OK : FL_ECORRUPT;
}

/* The zstd context of this thread, made on first use and freed when the
 * thread exits (query worker threads come and go). */
static pthread_key_t g_dctx_key;
static pthread_once_t g_dctx_once = PTHREAD_ONCE_INIT;
static void free_dctx(void *p) { ZSTD_freeDCtx(p); }
static void make_dctx_key(void) { pthread_key_create(&g_dctx_key, free_dctx); }

static ZSTD_DCtx *thread_dctx(void) {
  static _Thread_local ZSTD_DCtx *dctx;
  if (dctx) return dctx;
  pthread_once(&g_dctx_once, make_dctx_key);
  if (!(dctx = ZSTD_createDCtx())) return NULL;
  pthread_setspecific(g_dctx_key, dctx);
  return dctx;
}

int pq_decompress(pq_codec_t codec, const uint8_t *in, size_t n, uint8_t *out, size_t out_len,
                  fl_err_t *err) {
  switch (codec) {
    case PQ_CODEC_UNCOMPRESSED:
      if (n != out_len)
        return fl_err_set(err, FL_ECORRUPT, "uncompressed page has %zu bytes, expected %zu", n,
                          out_len);
      if (n) memcpy(out, in, n);
      return FL_OK;
    case PQ_CODEC_SNAPPY: {
      size_t ulen;
      if (snappy_uncompressed_length((const char *)in, n, &ulen) != SNAPPY_OK)
        return fl_err_set(err, FL_ECORRUPT, "snappy page has a corrupt header");
      if (ulen != out_len)
        return fl_err_set(err, FL_ECORRUPT, "snappy page inflates to %zu bytes, expected %zu", ulen,
                          out_len);
      size_t got = out_len;
      if (out_len == 0) return FL_OK;
      if (snappy_uncompress((const char *)in, n, (char *)out, &got) != SNAPPY_OK || got != out_len)
        return fl_err_set(err, FL_ECORRUPT, "snappy page is corrupt");
      return FL_OK;
    }
    case PQ_CODEC_GZIP:
      if (n > UINT32_MAX || out_len > UINT32_MAX)
        return fl_err_set(err, FL_ELIMIT, "gzip page too large");
      return gzip_inflate(in, n, out, out_len, err);
    case PQ_CODEC_ZSTD: {
      /* One context per thread, reused: ZSTD_decompress builds and frees a
       * context (and its ~100 KiB of tables) on every page. */
      ZSTD_DCtx *dctx = thread_dctx();
      if (!dctx) return fl_err_set(err, FL_ENOMEM, "zstd: cannot create a decompression context");
      size_t got = ZSTD_decompressDCtx(dctx, out, out_len, in, n);
      if (ZSTD_isError(got))
        return fl_err_set(err, FL_ECORRUPT, "zstd page is corrupt (%s)", ZSTD_getErrorName(got));
      if (got != out_len)
        return fl_err_set(err, FL_ECORRUPT, "zstd page inflates to %zu bytes, expected %zu", got,
                          out_len);
      return FL_OK;
    }
    case PQ_CODEC_LZ4_RAW:
    case PQ_CODEC_LZ4: {
      if (n > INT32_MAX || out_len > INT32_MAX)
        return fl_err_set(err, FL_ELIMIT, "lz4 page too large");
      if (codec == PQ_CODEC_LZ4 && lz4_hadoop(in, n, out, out_len) == FL_OK) return FL_OK;
      if (out_len == 0 && n <= 1) return FL_OK;
      int got = LZ4_decompress_safe((const char *)in, (char *)out, (int)n, (int)out_len);
      if (got < 0)
        return fl_err_set(err, FL_ECORRUPT, "%s page is corrupt", pq_codec_name(codec));
      if ((size_t)got != out_len)
        return fl_err_set(err, FL_ECORRUPT, "%s page inflates to %d bytes, expected %zu",
                          pq_codec_name(codec), got, out_len);
      return FL_OK;
    }
    case PQ_CODEC_BROTLI:
    case PQ_CODEC_LZO:
      return fl_err_set(err, FL_EUNSUPPORTED, "compression codec %s is not supported",
                        pq_codec_name(codec));
  }
  return fl_err_set(err, FL_EUNSUPPORTED, "unknown compression codec %d", (int)codec);
}

int pq__decompress_check(pq_codec_t codec, const uint8_t *in, size_t n, size_t out_len,
                         fl_err_t *err) {
  /* The best ratio each codec can reach bounds what a page may claim, so
   * a hostile header cannot make the reader allocate gigabytes. */
  switch (codec) {
    case PQ_CODEC_UNCOMPRESSED:
      if (n != out_len)
        return fl_err_set(err, FL_ECORRUPT, "uncompressed page has %zu bytes, expected %zu", n,
                          out_len);
      return FL_OK;
    case PQ_CODEC_SNAPPY: {
      size_t ulen;
      if (out_len == 0 && n <= 1) return FL_OK;
      if (snappy_uncompressed_length((const char *)in, n, &ulen) != SNAPPY_OK || ulen != out_len)
        return fl_err_set(err, FL_ECORRUPT, "snappy page header does not declare %zu bytes", out_len);
      return FL_OK;
    }
    case PQ_CODEC_GZIP:
      if (out_len / 1100 > n + 64)
        return fl_err_set(err, FL_ECORRUPT, "gzip page claims %zu bytes from %zu", out_len, n);
      return FL_OK;
    case PQ_CODEC_LZ4:
    case PQ_CODEC_LZ4_RAW:
      if (out_len / 256 > n + 64)
        return fl_err_set(err, FL_ECORRUPT, "lz4 page claims %zu bytes from %zu", out_len, n);
      return FL_OK;
    case PQ_CODEC_ZSTD: {
      unsigned long long cs = ZSTD_getFrameContentSize(in, n);
      if (cs == ZSTD_CONTENTSIZE_ERROR)
        return fl_err_set(err, FL_ECORRUPT, "zstd page has no valid frame header");
      if (cs != ZSTD_CONTENTSIZE_UNKNOWN && cs > out_len)
        return fl_err_set(err, FL_ECORRUPT, "zstd frame declares %llu bytes, the page %zu", cs,
                          out_len);
      if (out_len / 40000 > n + 64)
        return fl_err_set(err, FL_ECORRUPT, "zstd page claims %zu bytes from %zu", out_len, n);
      return FL_OK;
    }
    case PQ_CODEC_BROTLI:
    case PQ_CODEC_LZO:
      return fl_err_set(err, FL_EUNSUPPORTED, "compression codec %s is not supported",
                        pq_codec_name(codec));
  }
  return fl_err_set(err, FL_EUNSUPPORTED, "unknown compression codec %d", (int)codec);
}
