/*
 * st_rand.h - small deterministic random streams for the generators of
 * stream/ (private to stream/).
 *
 * Each generated record draws from its own stream seeded by (seed, record
 * number, salt), so a record's content depends on nothing but its number:
 * a source restored at row n continues exactly where it stopped, and
 * parallel generators need no coordination.
 */
#ifndef FL_STREAM_RAND_H
#define FL_STREAM_RAND_H

#include <stdint.h>

typedef struct st_rand {
  uint64_t s;
} st_rand_t;

/* splitmix64: a good 64-bit mix, cheap to seed anywhere. */
static inline uint64_t st_rand_next(st_rand_t *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static inline st_rand_t st_rand_for(uint64_t seed, uint64_t record, uint64_t salt) {
  st_rand_t r = {seed ^ (record * 0xD1B54A32D192ED03ull) ^ (salt * 0x8CB92BA72F3D8DD7ull)};
  st_rand_next(&r);
  return r;
}

/* Uniform in [0, n); n > 0. */
static inline uint64_t st_rand_below(st_rand_t *r, uint64_t n) {
  return (uint64_t)(((unsigned __int128)st_rand_next(r) * n) >> 64);
}

/* Uniform in [0, 1). */
static inline double st_rand_double(st_rand_t *r) {
  return (double)(st_rand_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
