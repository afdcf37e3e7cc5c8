/*
 * alloc.h - the one allocation hook (layer 1, base).
 *
 * Small allocations abort the process on failure, as there is no useful
 * recovery from running out of a few bytes; large buffers whose size comes
 * from input use fl_try_malloc and turn failure into an FL_ENOMEM error.
 */
#ifndef FL_BASE_ALLOC_H
#define FL_BASE_ALLOC_H

#include <stddef.h>

void *fl_malloc(size_t n);
void *fl_calloc(size_t count, size_t size);
void *fl_realloc(void *p, size_t n);
char *fl_strdup(const char *s);
char *fl_strndup(const char *s, size_t n);
void fl_free(void *p);

/* Returns NULL on failure instead of aborting. */
void *fl_try_malloc(size_t n);
void *fl_try_realloc(void *p, size_t n);

#endif
