/*
 * strset.h - a set of byte strings (layer 1, base).
 *
 * Open addressing with xxhash64 and linear probing. Keys are copied into
 * the set's own arena, so the set never points at caller memory. Used for
 * the file paths of a commit and of table maintenance, and for delete keys.
 */
#ifndef FL_BASE_STRSET_H
#define FL_BASE_STRSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"

typedef struct fl_strset {
  fl_arena_t *arena;
  size_t n, cap; /* cap is a power of two */
  struct fl_strset_slot {
    uint64_t hash;
    const char *key; /* NULL: empty */
    size_t len;
  } *slots;
} fl_strset_t;

void fl_strset_init(fl_strset_t *s);
void fl_strset_free(fl_strset_t *s);
/* Adds a key; returns true when it was not there yet. */
bool fl_strset_add(fl_strset_t *s, const void *key, size_t len);
bool fl_strset_has(const fl_strset_t *s, const void *key, size_t len);
static inline bool fl_strset_add_str(fl_strset_t *s, const char *k) {
  return fl_strset_add(s, k, __builtin_strlen(k));
}
static inline bool fl_strset_has_str(const fl_strset_t *s, const char *k) {
  return fl_strset_has(s, k, __builtin_strlen(k));
}

#endif
