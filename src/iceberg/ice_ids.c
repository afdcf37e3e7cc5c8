/*
 * ice_ids.c - random snapshot ids and table uuids (layer 5, iceberg).
 *
 * Snapshot ids must be unique within a table and positive 63-bit numbers;
 * concurrent writers in other processes pick theirs independently, so they
 * come from the kernel's random source, not a seeded generator.
 */
#include <stdio.h>
#include <sys/random.h>

#include "iceberg/ice_meta.h"

static void random_bytes(void *p, size_t n) {
  uint8_t *b = p;
  while (n > 0) {
    ssize_t got = getrandom(b, n, 0);
    if (got <= 0) continue; /* EINTR; getrandom does not fail otherwise once seeded */
    b += got;
    n -= (size_t)got;
  }
}

int64_t ice_new_snapshot_id(void) {
  uint64_t v;
  do {
    random_bytes(&v, sizeof v);
    v &= 0x7fffffffffffffffULL;
  } while (v == 0);
  return (int64_t)v;
}

void ice_new_uuid(char out[37]) {
  uint8_t b[16];
  random_bytes(b, sizeof b);
  b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
  b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
  ty_uuid_format(b, out);
}
