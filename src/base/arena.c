/*
 * arena.c - chunked bump allocator with cleanup callbacks.
 *
 * Chunks form a singly linked list, newest first. Requests larger than a
 * quarter of the chunk size get a chunk of their own so that they do not
 * waste the tail of the current one. Reset keeps the oldest chunk (the one
 * created with the arena's nominal size) so that a per-batch arena reaches
 * a steady state without calling malloc at all.
 */
#include "base/arena.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

typedef struct chunk {
  struct chunk *next;
  size_t size; /* usable bytes after the header */
  size_t used;
} chunk_t;

typedef struct cleanup {
  struct cleanup *next;
  fl_arena_cleanup_fn fn;
  void *arg;
} cleanup_t;

struct fl_arena {
  chunk_t *head;
  size_t chunk_bytes;
  size_t used_total;
  cleanup_t *cleanups;
};

#define ARENA_ALIGN 16
#define HDR_SIZE ((sizeof(chunk_t) + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1))

static chunk_t *chunk_new(size_t size) {
  chunk_t *c = fl_malloc(HDR_SIZE + size);
  c->next = NULL;
  c->size = size;
  c->used = 0;
  return c;
}

fl_arena_t *fl_arena_new(size_t chunk_bytes) {
  fl_arena_t *a = fl_calloc(1, sizeof *a);
  a->chunk_bytes = chunk_bytes ? chunk_bytes : 64 * 1024;
  a->head = chunk_new(a->chunk_bytes);
  return a;
}

static void run_cleanups(fl_arena_t *a) {
  while (a->cleanups) {
    cleanup_t *c = a->cleanups;
    a->cleanups = c->next;
    c->fn(c->arg);
  }
}

void fl_arena_free(fl_arena_t *a) {
  if (!a) return;
  run_cleanups(a);
  chunk_t *c = a->head;
  while (c) {
    chunk_t *n = c->next;
    fl_free(c);
    c = n;
  }
  fl_free(a);
}

void fl_arena_reset(fl_arena_t *a) {
  run_cleanups(a);
  chunk_t *c = a->head;
  while (c->next) {
    chunk_t *n = c->next;
    fl_free(c);
    c = n;
  }
  c->used = 0;
  a->head = c;
  a->used_total = 0;
}

void *fl_arena_alloc(fl_arena_t *a, size_t n) {
  size_t need = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  if (need == 0) need = ARENA_ALIGN;
  chunk_t *c = a->head;
  if (c->size - c->used < need) {
    if (need > a->chunk_bytes / 4) {
      /* A big request gets its own chunk behind the current one. */
      chunk_t *big = chunk_new(need);
      big->used = need;
      big->next = c->next;
      c->next = big;
      a->used_total += need;
      return (uint8_t *)big + HDR_SIZE;
    }
    chunk_t *fresh = chunk_new(a->chunk_bytes);
    fresh->next = c;
    a->head = c = fresh;
  }
  void *p = (uint8_t *)c + HDR_SIZE + c->used;
  c->used += need;
  a->used_total += need;
  return p;
}

void *fl_arena_zalloc(fl_arena_t *a, size_t n) {
  void *p = fl_arena_alloc(a, n);
  memset(p, 0, n);
  return p;
}

void *fl_arena_memdup(fl_arena_t *a, const void *p, size_t n) {
  void *q = fl_arena_alloc(a, n);
  if (n) memcpy(q, p, n);
  return q;
}

char *fl_arena_strndup(fl_arena_t *a, const char *s, size_t n) {
  char *q = fl_arena_alloc(a, n + 1);
  memcpy(q, s, n);
  q[n] = '\0';
  return q;
}

char *fl_arena_strdup(fl_arena_t *a, const char *s) {
  return fl_arena_strndup(a, s, strlen(s));
}

char *fl_arena_vsprintf(fl_arena_t *a, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) n = 0;
  char *s = fl_arena_alloc(a, (size_t)n + 1);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  return s;
}

char *fl_arena_sprintf(fl_arena_t *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = fl_arena_vsprintf(a, fmt, ap);
  va_end(ap);
  return s;
}

void fl_arena_on_reset(fl_arena_t *a, fl_arena_cleanup_fn fn, void *arg) {
  cleanup_t *c = fl_arena_alloc(a, sizeof *c);
  c->fn = fn;
  c->arg = arg;
  c->next = a->cleanups;
  a->cleanups = c;
}

size_t fl_arena_used(const fl_arena_t *a) { return a->used_total; }
