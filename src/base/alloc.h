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
/* Zeroed like fl_calloc, but by writing: for tables that are read before
 * they are written (hash slots). Fresh pages from calloc are the shared
 * zero page until written, so reading then writing costs two faults a
 * page and, with other threads running, a TLB flush on every core. */
void *fl_zalloc_written(size_t count, size_t size);
char *fl_strdup(const char *s);
char *fl_strndup(const char *s, size_t n);
void fl_free(void *p);

/*
 * Sets the C library's allocator up for a process that allocates and frees
 * buffers of a few MiB over and over (the Kafka client's fetch and
 * decompression buffers, Parquet pages): such buffers stay in the heap
 * for reuse instead of going back to the kernel at every free, which would
 * fault their pages in again on the next use (about 1.6 us a page on a
 * VM). Call once at start, before threads.
 */
void fl_alloc_tune(void);

/* Returns NULL on failure instead of aborting. */
void *fl_try_malloc(size_t n);
void *fl_try_realloc(void *p, size_t n);

#endif
