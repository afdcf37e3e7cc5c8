/*
 * avro_codec.c - the block codecs of Avro container files: null, deflate
 * (raw RFC 1951 data; zlib-wrapped data is accepted on read), snappy (raw
 * snappy followed by the big-endian CRC-32 of the uncompressed bytes,
 * verified on read) and zstandard (one zstd frame).
 */
#include <snappy-c.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>
#include <zstd.h>

#include "base/alloc.h"
#include "format/avro/avro_container.h"

int av_codec_from_name(const char *name, av_codec_t *out, fl_err_t *err) {
  if (!name || !strcasecmp(name, "null") || !strcasecmp(name, "none") ||
      !strcasecmp(name, "uncompressed") || !*name)
    *out = AV_CODEC_NULL;
  else if (!strcasecmp(name, "deflate"))
    *out = AV_CODEC_DEFLATE;
  else if (!strcasecmp(name, "snappy"))
    *out = AV_CODEC_SNAPPY;
  else if (!strcasecmp(name, "zstandard") || !strcasecmp(name, "zstd"))
    *out = AV_CODEC_ZSTD;
  else
    return fl_err_set(err, FL_EUNSUPPORTED,
                      "avro codec \"%s\" is not supported (null, deflate, snappy, zstandard)", name);
  return FL_OK;
}

const char *av_codec_name(av_codec_t c) {
  switch (c) {
    case AV_CODEC_DEFLATE: return "deflate";
    case AV_CODEC_SNAPPY: return "snappy";
    case AV_CODEC_ZSTD: return "zstandard";
    default: return "null";
  }
}

int av__compress(av_codec_t c, int level, const uint8_t *in, size_t n, fl_buf_t *out,
                 fl_err_t *err) {
  switch (c) {
    case AV_CODEC_NULL: fl_buf_append(out, in, n); return FL_OK;
    case AV_CODEC_DEFLATE: {
      z_stream z;
      memset(&z, 0, sizeof z);
      if (deflateInit2(&z, level > 0 ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8,
                       Z_DEFAULT_STRATEGY) != Z_OK)
        return fl_err_set(err, FL_EINTERNAL, "deflate: cannot initialise");
      size_t bound = deflateBound(&z, (uLong)n);
      fl_buf_reserve(out, bound);
      z.next_in = (Bytef *)in;
      z.avail_in = (uInt)n;
      z.next_out = out->data + out->len;
      z.avail_out = (uInt)bound;
      int zr = deflate(&z, Z_FINISH);
      size_t made = bound - z.avail_out;
      deflateEnd(&z);
      if (zr != Z_STREAM_END) return fl_err_set(err, FL_EINTERNAL, "deflate failed (%d)", zr);
      out->len += made;
      return FL_OK;
    }
    case AV_CODEC_SNAPPY: {
      size_t bound = snappy_max_compressed_length(n);
      fl_buf_reserve(out, bound + 4);
      size_t made = bound;
      if (snappy_compress((const char *)in, n, (char *)out->data + out->len, &made) != SNAPPY_OK)
        return fl_err_set(err, FL_EINTERNAL, "snappy compression failed");
      out->len += made;
      uint32_t crc = (uint32_t)crc32(0, in, (uInt)n);
      uint8_t be[4] = {(uint8_t)(crc >> 24), (uint8_t)(crc >> 16), (uint8_t)(crc >> 8), (uint8_t)crc};
      fl_buf_append(out, be, 4);
      return FL_OK;
    }
    case AV_CODEC_ZSTD: {
      size_t bound = ZSTD_compressBound(n);
      fl_buf_reserve(out, bound);
      size_t made = ZSTD_compress(out->data + out->len, bound, in, n, level ? level : 3);
      if (ZSTD_isError(made))
        return fl_err_set(err, FL_EINTERNAL, "zstd compression failed: %s", ZSTD_getErrorName(made));
      out->len += made;
      return FL_OK;
    }
  }
  return fl_err_set(err, FL_EINTERNAL, "unknown avro codec");
}

/* Makes *buf hold at least want bytes. */
static int ensure(uint8_t **buf, size_t *cap, size_t want, fl_err_t *err) {
  if (*cap >= want) return FL_OK;
  size_t c = *cap ? *cap : 65536;
  while (c < want) c *= 2;
  uint8_t *p = fl_try_realloc(*buf, c);
  if (!p) return fl_err_set(err, FL_ENOMEM, "cannot allocate %zu bytes for an avro block", c);
  *buf = p;
  *cap = c;
  return FL_OK;
}

static int inflate_into(const uint8_t *in, size_t n, int wbits, size_t max_out, uint8_t **buf,
                        size_t *cap, size_t *out_len, fl_err_t *err) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, wbits) != Z_OK) return fl_err_set(err, FL_EINTERNAL, "inflate: cannot initialise");
  z.next_in = (Bytef *)in;
  z.avail_in = (uInt)n;
  size_t len = 0;
  int rc = FL_OK;
  for (;;) {
    size_t want = len + (n > 65536 ? n : 65536);
    if (want > max_out) want = max_out + 1;
    rc = ensure(buf, cap, want, err);
    if (rc) break;
    z.next_out = *buf + len;
    size_t room = *cap - len;
    if (room > UINT32_MAX) room = UINT32_MAX;
    z.avail_out = (uInt)room;
    int zr = inflate(&z, Z_NO_FLUSH);
    len = (size_t)(z.next_out - *buf);
    if (zr == Z_STREAM_END) break;
    if (len > max_out) {
      rc = fl_err_set(err, FL_ECORRUPT, "deflate block expands beyond %zu bytes", max_out);
      break;
    }
    if (zr == Z_BUF_ERROR && z.avail_out != 0) {
      rc = fl_err_set(err, FL_ECORRUPT, "deflate data is truncated");
      break;
    }
    if (zr != Z_OK && zr != Z_BUF_ERROR) {
      rc = fl_err_set(err, FL_ECORRUPT, "deflate data is invalid (%s)", z.msg ? z.msg : "error");
      break;
    }
  }
  inflateEnd(&z);
  if (!rc && len > max_out) rc = fl_err_set(err, FL_ECORRUPT, "deflate block expands beyond %zu bytes", max_out);
  if (!rc) *out_len = len;
  return rc;
}

int av__decompress(av_codec_t c, const uint8_t *in, size_t n, size_t max_out, uint8_t **buf,
                   size_t *cap, size_t *out_len, fl_err_t *err) {
  switch (c) {
    case AV_CODEC_NULL: {
      int rc = ensure(buf, cap, n ? n : 1, err);
      if (rc) return rc;
      if (n) memcpy(*buf, in, n);
      *out_len = n;
      return FL_OK;
    }
    case AV_CODEC_DEFLATE: {
      int rc = inflate_into(in, n, -15, max_out, buf, cap, out_len, err);
      /* Some writers wrap the deflate data in a zlib header. */
      if (rc == FL_ECORRUPT && n >= 2 && (in[0] & 0x0f) == 8 && ((in[0] << 8) | in[1]) % 31 == 0) {
        fl_err_t e2 = {0};
        if (inflate_into(in, n, 15, max_out, buf, cap, out_len, &e2) == FL_OK) return FL_OK;
      }
      return rc;
    }
    case AV_CODEC_SNAPPY: {
      if (n < 4) return fl_err_set(err, FL_ECORRUPT, "snappy block shorter than its checksum");
      size_t plain;
      if (snappy_uncompressed_length((const char *)in, n - 4, &plain) != SNAPPY_OK)
        return fl_err_set(err, FL_ECORRUPT, "snappy block has an invalid header");
      if (plain > max_out)
        return fl_err_set(err, FL_ECORRUPT, "snappy block claims %zu bytes, more than %zu", plain, max_out);
      int rc = ensure(buf, cap, plain ? plain : 1, err);
      if (rc) return rc;
      size_t got = *cap;
      if (snappy_uncompress((const char *)in, n - 4, (char *)*buf, &got) != SNAPPY_OK || got != plain)
        return fl_err_set(err, FL_ECORRUPT, "snappy block is invalid");
      uint32_t want = ((uint32_t)in[n - 4] << 24) | ((uint32_t)in[n - 3] << 16) |
                      ((uint32_t)in[n - 2] << 8) | in[n - 1];
      uint32_t crc = (uint32_t)crc32(0, *buf, (uInt)got);
      if (crc != want)
        return fl_err_set(err, FL_ECORRUPT, "snappy block checksum mismatch (%08x, expected %08x)", crc, want);
      *out_len = got;
      return FL_OK;
    }
    case AV_CODEC_ZSTD: {
      ZSTD_DStream *ds = ZSTD_createDStream();
      if (!ds) return fl_err_set(err, FL_ENOMEM, "zstd: cannot create a stream");
      ZSTD_initDStream(ds);
      ZSTD_inBuffer ib = {in, n, 0};
      size_t len = 0;
      int rc = FL_OK;
      for (;;) {
        size_t want = len + (n * 4 > 65536 ? n * 4 : 65536);
        if (want > max_out + 1) want = max_out + 1;
        rc = ensure(buf, cap, want, err);
        if (rc) break;
        ZSTD_outBuffer ob = {*buf, *cap, len};
        size_t zr = ZSTD_decompressStream(ds, &ob, &ib);
        len = ob.pos;
        if (ZSTD_isError(zr)) {
          rc = fl_err_set(err, FL_ECORRUPT, "zstd data is invalid: %s", ZSTD_getErrorName(zr));
          break;
        }
        if (len > max_out) {
          rc = fl_err_set(err, FL_ECORRUPT, "zstd block expands beyond %zu bytes", max_out);
          break;
        }
        if (zr == 0 && ib.pos == ib.size) break;
        if (ib.pos == ib.size && ob.pos < ob.size) {
          rc = fl_err_set(err, FL_ECORRUPT, "zstd data is truncated");
          break;
        }
      }
      ZSTD_freeDStream(ds);
      if (!rc) *out_len = len;
      return rc;
    }
  }
  return fl_err_set(err, FL_EINTERNAL, "unknown avro codec");
}
