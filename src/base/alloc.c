/*
 * alloc.c - allocation hook that aborts on failure of small requests.
 */
#include "base/alloc.h"

#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t n) {
  fprintf(stderr, "floe: out of memory allocating %zu bytes\n", n);
  abort();
}

void fl_alloc_tune(void) {
  /* Requests below 16 MiB come from the heap (glibc's default, 128 KiB
   * growing with what was freed, maps and unmaps the fetch buffers), and
   * up to 32 MiB of free heap is kept before the top is given back. */
  mallopt(M_MMAP_THRESHOLD, 16 << 20);
  mallopt(M_TRIM_THRESHOLD, 32 << 20);
}

void *fl_malloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) oom(n);
  return p;
}

void *fl_calloc(size_t count, size_t size) {
  void *p = calloc(count ? count : 1, size ? size : 1);
  if (!p) oom(count * size);
  return p;
}

void *fl_zalloc_written(size_t count, size_t size) {
  if (count && size > SIZE_MAX / count) oom(SIZE_MAX);
  size_t n = count * size;
  void *p = fl_malloc(n);
  memset(p, 0, n);
  return p;
}

void *fl_realloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) oom(n);
  return q;
}

char *fl_strdup(const char *s) { return fl_strndup(s, strlen(s)); }

char *fl_strndup(const char *s, size_t n) {
  char *p = fl_malloc(n + 1);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

void fl_free(void *p) { free(p); }

void *fl_try_malloc(size_t n) { return malloc(n ? n : 1); }

void *fl_try_realloc(void *p, size_t n) { return realloc(p, n ? n : 1); }
