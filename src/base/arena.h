/*
 * arena.h - region allocator with named lifetimes (layer 1, base).
 *
 * A query, a commit, a checkpoint or a batch allocates from an arena whose
 * lifetime matches it and frees everything in one reset. Cleanup callbacks
 * registered on the arena run (newest first) at reset and at free, for
 * resources that are not memory (open files, reference counts).
 * An arena is not thread-safe: one thread owns it at a time.
 */
#ifndef FL_BASE_ARENA_H
#define FL_BASE_ARENA_H

#include <stdarg.h>
#include <stddef.h>

typedef struct fl_arena fl_arena_t;
typedef void (*fl_arena_cleanup_fn)(void *arg);

/* Creates an arena whose chunks are at least chunk_bytes (0: 64 KiB). */
fl_arena_t *fl_arena_new(size_t chunk_bytes);

/* Runs cleanups and releases all memory, the arena included. NULL is ok. */
void fl_arena_free(fl_arena_t *a);

/* Runs cleanups and forgets all allocations, keeping the first chunk. */
void fl_arena_reset(fl_arena_t *a);

/* 16-byte aligned memory that lives until the next reset; aborts on OOM. */
void *fl_arena_alloc(fl_arena_t *a, size_t n);
void *fl_arena_zalloc(fl_arena_t *a, size_t n);
void *fl_arena_memdup(fl_arena_t *a, const void *p, size_t n);
char *fl_arena_strdup(fl_arena_t *a, const char *s);
char *fl_arena_strndup(fl_arena_t *a, const char *s, size_t n);
char *fl_arena_sprintf(fl_arena_t *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
char *fl_arena_vsprintf(fl_arena_t *a, const char *fmt, va_list ap);

/* Registers fn(arg) to run at the next reset or free. */
void fl_arena_on_reset(fl_arena_t *a, fl_arena_cleanup_fn fn, void *arg);

/* Bytes handed out since the last reset (for memory accounting). */
size_t fl_arena_used(const fl_arena_t *a);

#endif
