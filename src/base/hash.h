/*
 * hash.h - hash functions with fixed, documented output (layer 1, base).
 *
 * murmur3_x86_32 is what Iceberg's bucket transform is defined on; crc32 is
 * the checksum of Parquet pages; xxhash64 serves Parquet bloom filters and
 * floe's hash tables.
 */
#ifndef FL_BASE_HASH_H
#define FL_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

uint32_t fl_murmur3_32(const void *data, size_t len, uint32_t seed);
uint64_t fl_xxhash64(const void *data, size_t len, uint64_t seed);
/* CRC-32 (IEEE, as zlib and Parquet page checksums). */
uint32_t fl_crc32(uint32_t crc, const void *data, size_t len);

#endif
