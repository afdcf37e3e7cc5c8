/*
 * pq_codec.h - page compression for Parquet (layer 4, format/parquet,
 * private).
 *
 * pq_compress appends the compressed form of a page to out;
 * pq_decompress inflates into a buffer of exactly the page's declared
 * uncompressed size and fails when the data does not fill it exactly
 * (a corrupt or hostile page never writes past out_len).
 */
#ifndef FL_FORMAT_PARQUET_PQ_CODEC_H
#define FL_FORMAT_PARQUET_PQ_CODEC_H

#include "format/parquet/pq_meta.h"

/* Parses "zstd", "snappy", "gzip", "lz4_raw", "uncompressed"/"none" (any case). */
int pq_codec_parse(const char *name, pq_codec_t *out, fl_err_t *err);

/* pq_codec_compress.c: codecs UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW.
 * level 0 is the codec's default. */
int pq_compress(pq_codec_t codec, int level, const uint8_t *in, size_t n, fl_buf_t *out,
                fl_err_t *err);

/* pq_codec_decompress.c: the above plus LZ4 (Hadoop framing, falling back
 * to raw LZ4 blocks as parquet-mr's older files need); GZIP accepts
 * concatenated members. */
int pq_decompress(pq_codec_t codec, const uint8_t *in, size_t n, uint8_t *out, size_t out_len,
                  fl_err_t *err);

#endif
