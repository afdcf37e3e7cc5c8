/*
 * strset.c - the byte-string set of strset.h (layer 1, base).
 */
#include "base/strset.h"

#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"

void fl_strset_init(fl_strset_t *s) {
  s->arena = fl_arena_new(0);
  s->n = 0;
  s->cap = 16;
  s->slots = fl_calloc(s->cap, sizeof *s->slots);
}

void fl_strset_free(fl_strset_t *s) {
  fl_arena_free(s->arena);
  fl_free(s->slots);
  memset(s, 0, sizeof *s);
}

static size_t find(const fl_strset_t *s, uint64_t h, const void *key, size_t len) {
  size_t mask = s->cap - 1;
  size_t i = (size_t)h & mask;
  while (s->slots[i].key) {
    if (s->slots[i].hash == h && s->slots[i].len == len && memcmp(s->slots[i].key, key, len) == 0)
      return i;
    i = (i + 1) & mask;
  }
  return i;
}

static void grow(fl_strset_t *s) {
  struct fl_strset_slot *old = s->slots;
  size_t old_cap = s->cap;
  s->cap *= 2;
  s->slots = fl_calloc(s->cap, sizeof *s->slots);
  for (size_t i = 0; i < old_cap; i++) {
    if (!old[i].key) continue;
    size_t j = (size_t)old[i].hash & (s->cap - 1);
    while (s->slots[j].key) j = (j + 1) & (s->cap - 1);
    s->slots[j] = old[i];
  }
  fl_free(old);
}

bool fl_strset_add(fl_strset_t *s, const void *key, size_t len) {
  uint64_t h = fl_xxhash64(key, len, 0);
  size_t i = find(s, h, key, len);
  if (s->slots[i].key) return false;
  char *copy = fl_arena_alloc(s->arena, len + 1);
  memcpy(copy, key, len);
  copy[len] = '\0';
  s->slots[i] = (struct fl_strset_slot){.hash = h, .key = copy, .len = len};
  if (++s->n * 4 > s->cap * 3) grow(s);
  return true;
}

bool fl_strset_has(const fl_strset_t *s, const void *key, size_t len) {
  if (!s->slots) return false;
  uint64_t h = fl_xxhash64(key, len, 0);
  return s->slots[find(s, h, key, len)].key != NULL;
}
