/*
 * log.h - the structured log: one JSON object per line (layer 1, base).
 *
 * Each line is {"ts": "2026-01-02T03:04:05.678Z", "level": "info",
 * "msg": "...", <fields>...}: the time in RFC 3339 UTC with milliseconds,
 * the level, the message and typed key/value fields in the order given.
 * Strings are escaped as JSON (bytes that are not UTF-8 become U+FFFD);
 * non-finite doubles are written as null.
 *
 * A log writes to stderr or appends to a file, dropping lines below its
 * level. Any thread may log; each line is formatted privately and written
 * with one write(2) under the log's mutex, so lines never interleave, not
 * even with another process appending to the same file (O_APPEND).
 */
#ifndef FL_BASE_LOG_H
#define FL_BASE_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

typedef enum fl_log_level {
  FL_LOG_DEBUG,
  FL_LOG_INFO,
  FL_LOG_WARN,
  FL_LOG_ERROR,
} fl_log_level_t;

typedef enum fl_log_kind {
  FL_LOGF_STR,
  FL_LOGF_INT,
  FL_LOGF_UINT,
  FL_LOGF_DOUBLE,
  FL_LOGF_BOOL,
  FL_LOGF_JSON, /* a JSON text written as it is */
} fl_log_kind_t;

typedef struct fl_log_field {
  const char *key;
  fl_log_kind_t kind;
  union {
    const char *s; /* STR and JSON; NULL is written as null */
    int64_t i;
    uint64_t u;
    double d;
    bool b;
  } v;
} fl_log_field_t;

/* Field constructors, for FL_LOG_FIELDS lists. */
#define FL_LF_STR(k, x) ((fl_log_field_t){.key = (k), .kind = FL_LOGF_STR, .v.s = (x)})
#define FL_LF_INT(k, x) ((fl_log_field_t){.key = (k), .kind = FL_LOGF_INT, .v.i = (int64_t)(x)})
#define FL_LF_UINT(k, x) ((fl_log_field_t){.key = (k), .kind = FL_LOGF_UINT, .v.u = (uint64_t)(x)})
#define FL_LF_DBL(k, x) ((fl_log_field_t){.key = (k), .kind = FL_LOGF_DOUBLE, .v.d = (double)(x)})
#define FL_LF_BOOL(k, x) ((fl_log_field_t){.key = (k), .kind = FL_LOGF_BOOL, .v.b = (x)})
/* x must be one valid JSON value (an object of offsets, an array): the
 * caller made it with a JSON encoder; it is not checked. */
#define FL_LF_JSON(k, x) ((fl_log_field_t){.key = (k), .kind = FL_LOGF_JSON, .v.s = (x)})

typedef struct fl_log fl_log_t;

/*
 * Opens a log: path NULL or "-" writes to stderr, else the file is created
 * or appended to. FL_EIO names the path when it cannot be opened.
 */
int fl_log_open(const char *path, fl_log_level_t level, fl_log_t **out, fl_err_t *err);
/* Closes the file (not stderr) and frees the log; NULL is fine. */
void fl_log_close(fl_log_t *l);

/* Whether a line of this level would be written (l may be NULL: false). */
bool fl_log_enabled(const fl_log_t *l, fl_log_level_t level);

/* Writes one line; l may be NULL (nothing is written). */
void fl_log_write(fl_log_t *l, fl_log_level_t level, const char *msg, const fl_log_field_t *fields,
                  uint32_t n);

/* fl_log_write with a literal list of fields:
 * FL_LOG(l, FL_LOG_INFO, "assigned", FL_LF_STR("topic", t), FL_LF_INT("partition", p)). */
#define FL_LOG(l, level, msg, ...)                                         \
  fl_log_write((l), (level), (msg), (const fl_log_field_t[]){__VA_ARGS__}, \
               (uint32_t)(sizeof((const fl_log_field_t[]){__VA_ARGS__}) / sizeof(fl_log_field_t)))

/* "debug", "info", "warn", "error"; parse accepts those (and "warning"). */
const char *fl_log_level_name(fl_log_level_t level);
bool fl_log_level_parse(const char *s, fl_log_level_t *out);

/*
 * Formats one line (with the newline) into out without writing it, at the
 * given time in microseconds since the epoch: what fl_log_write writes.
 */
void fl_log_format(int64_t now_us, fl_log_level_t level, const char *msg,
                   const fl_log_field_t *fields, uint32_t n, fl_buf_t *out);

/* Appends s as a JSON string (quoted, escaped, invalid UTF-8 as U+FFFD). */
void fl_json_escape(const char *s, size_t len, fl_buf_t *out);

#endif
