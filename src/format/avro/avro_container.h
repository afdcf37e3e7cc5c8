/*
 * avro_container.h - Avro object container files (layer 4, format/avro).
 *
 * A container file is the magic "Obj\x01", a header metadata map (bytes
 * values: avro.schema, avro.codec and any user keys such as Iceberg's
 * "schema", "partition-spec", "format-version", "content"), a 16-byte sync
 * marker, then data blocks: a record count, the compressed size, the
 * compressed records and the sync marker again.
 *
 * The reader streams block by block through io_reader_t read_at, holding
 * one block at a time; every count and size is checked against the file
 * and the decompressed bytes, so a hostile file gives FL_ECORRUPT naming
 * the file and byte offset. The writer buffers records into a block and
 * compresses it when it reaches the target size.
 */
#ifndef FL_FORMAT_AVRO_CONTAINER_H
#define FL_FORMAT_AVRO_CONTAINER_H

#include "base/arena.h"
#include "base/buf.h"
#include "format/avro/avro_binary.h"
#include "format/avro/avro_schema.h"
#include "io/fs.h"

typedef enum av_codec { AV_CODEC_NULL, AV_CODEC_DEFLATE, AV_CODEC_SNAPPY, AV_CODEC_ZSTD } av_codec_t;

/* "null", "deflate", "snappy", "zstandard" (also accepts "zstd",
 * "uncompressed", "none"); FL_EUNSUPPORTED for anything else. */
int av_codec_from_name(const char *name, av_codec_t *out, fl_err_t *err);
/* The name written into avro.codec ("zstandard" for zstd). */
const char *av_codec_name(av_codec_t c);

typedef struct av_meta {
  const char *key;
  const uint8_t *value;
  size_t len;
} av_meta_t;

/* ---- reading ---- */

typedef struct av_reader {
  const char *path;
  uint64_t file_size;
  const av_schema_t *schema;
  av_codec_t codec;
  uint32_t nmeta;
  av_meta_t *meta; /* every header entry, avro.* included */
  uint8_t sync[16];
  uint64_t data_offset; /* where the first block starts */
  fl_arena_t *arena;    /* holds schema and metadata */
  /* Block state (private). */
  io_reader_t *in;
  uint64_t pos;
  uint8_t *raw;
  size_t raw_cap;
  uint8_t *plain;
  size_t plain_cap;
  uint64_t blocks_read;
} av_reader_t;

/*
 * Reads the header of a container file. The reader borrows `in` (the
 * caller closes it after av_reader_close).
 */
int av_reader_open(io_reader_t *in, av_reader_t **out, fl_err_t *err);
void av_reader_close(av_reader_t *r);

/* A header value by key (NULL when absent); *len gets its length. */
const uint8_t *av_reader_meta(const av_reader_t *r, const char *key, size_t *len);

/*
 * Reads and decompresses the next block: *data (valid until the next call)
 * holds *count records in *len bytes; *data is NULL at the end of the file.
 * *offset (may be NULL) receives the block's file offset, for messages.
 */
int av_reader_next_block(av_reader_t *r, const uint8_t **data, size_t *len, uint64_t *count,
                         uint64_t *offset, fl_err_t *err);

/* Walks the block headers only (no decompression): total records and
 * blocks. Independent of av_reader_next_block's position. */
int av_reader_scan(av_reader_t *r, uint64_t *records, uint64_t *blocks, fl_err_t *err);

/* ---- writing ---- */

typedef struct av_writer_opts {
  av_codec_t codec;
  int level;             /* codec level, 0: default */
  size_t block_bytes;    /* uncompressed bytes per block before flushing; 0: 64 KiB */
  const av_meta_t *meta; /* user metadata (keys must not start with "avro.") */
  size_t nmeta;
} av_writer_opts_t;

typedef struct av_writer av_writer_t;

/*
 * Starts a container file on `out` (which the writer then owns: finish
 * commits it, abort discards it) and writes the header.
 */
int av_writer_open(io_writer_t *out, const av_schema_t *schema, const av_writer_opts_t *opts,
                   av_writer_t **w, fl_err_t *err);
/* The buffer to encode the next record into; call av_writer_record_done
 * after each record. */
fl_buf_t *av_writer_buf(av_writer_t *w);
int av_writer_record_done(av_writer_t *w, fl_err_t *err);
/* Encodes and appends one generic value. */
int av_writer_write_value(av_writer_t *w, const av_value_t *v, fl_err_t *err);
/* Writes the pending records as a block. */
int av_writer_flush(av_writer_t *w, fl_err_t *err);
/* Flushes, publishes the file and frees the writer (also on failure). */
int av_writer_finish(av_writer_t *w, fl_err_t *err);
/* Discards the file and frees the writer. */
void av_writer_abort(av_writer_t *w);
/* Records written so far. */
uint64_t av_writer_count(const av_writer_t *w);

/* Codec primitives (avro_codec.c). Decompression refuses output larger
 * than max_out bytes. */
int av__compress(av_codec_t c, int level, const uint8_t *in, size_t n, fl_buf_t *out,
                 fl_err_t *err);
int av__decompress(av_codec_t c, const uint8_t *in, size_t n, size_t max_out, uint8_t **buf,
                   size_t *cap, size_t *out_len, fl_err_t *err);

#endif
