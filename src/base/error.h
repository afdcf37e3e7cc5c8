/*
 * error.h - floe's error convention (layer 1, base).
 *
 * Functions that can fail return an int code (0 = FL_OK) and fill an
 * fl_err_t with a message that names what failed and where, plus a
 * retriable flag that tells a caller whether trying again may succeed
 * (a commit conflict, S3 throttling) or never will (a corrupt file).
 * The code list, names and messages come from one X-macro table.
 */
#ifndef FL_BASE_ERROR_H
#define FL_BASE_ERROR_H

#include <stdarg.h>
#include <stdbool.h>

#define FL_ERRNO_MAP(X)                                   \
  X(OK, "ok")                                             \
  X(NOMEM, "out of memory")                               \
  X(IO, "i/o error")                                      \
  X(NOTFOUND, "not found")                                \
  X(EXISTS, "already exists")                             \
  X(INVALID, "invalid argument")                          \
  X(PARSE, "parse error")                                 \
  X(CORRUPT, "corrupt data")                              \
  X(UNSUPPORTED, "unsupported")                           \
  X(LIMIT, "limit exceeded")                              \
  X(CONFLICT, "conflict")                                 \
  X(INTERNAL, "internal error")

typedef enum {
#define FL__ERR_ENUM(name, msg) FL_E##name,
  FL_ERRNO_MAP(FL__ERR_ENUM)
#undef FL__ERR_ENUM
  FL_E_COUNT
} fl_code_t;

#define FL_OK FL_EOK

typedef struct fl_err {
  int code;       /* an fl_code_t; 0 when no error was recorded */
  bool retriable; /* trying the same operation again may succeed */
  char msg[768];  /* human text: what and where */
} fl_err_t;

/* The short name ("CORRUPT") and generic message of a code. */
const char *fl_code_name(int code);
const char *fl_code_message(int code);

/* Clears an error object to FL_OK. */
void fl_err_clear(fl_err_t *err);

/*
 * Records an error and returns its code, so callers write
 * `return fl_err_set(err, FL_ECORRUPT, "page header at %zu", off);`.
 * err may be NULL (the code is still returned).
 */
int fl_err_set(fl_err_t *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int fl_err_setv(fl_err_t *err, int code, const char *fmt, va_list ap);

/* Same, marking the error as retriable. */
int fl_err_set_retriable(fl_err_t *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Prepends context ("reading x.parquet: ") to an already recorded message
 * and returns the recorded code, for adding the file name on the way up.
 */
int fl_err_prefix(fl_err_t *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
