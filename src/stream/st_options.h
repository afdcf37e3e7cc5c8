/*
 * st_options.h - the WITH ('key' = 'value', ...) options of a streaming
 * table, as connectors receive them (layer 10, stream).
 */
#ifndef FL_STREAM_OPTIONS_H
#define FL_STREAM_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct st_option {
  const char *key;
  const char *value;
} st_option_t;

/* The value of key (the last one given), or NULL. */
const char *st_option_get(const st_option_t *opts, uint32_t n, const char *key);

/* A duration as Flink writes one: "500 ms", "5s", "5 s", "1 min", "2 h",
 * "1 d", or a bare number of milliseconds; false when malformed. */
bool st_duration_parse(const char *s, int64_t *ms);
/* A non-negative integer written in decimal digits ("0" to
 * 9223372036854775807); false otherwise. */
bool st_u64_parse(const char *s, uint64_t *out);
/* 'true' or 'false', as Flink's boolean options are written; false when
 * neither. */
bool st_bool_parse(const char *s, bool *out);
/* A memory size as Flink spells it ('64mb', '1 gb', '512kb', '1048576');
 * false if it is not one. */
bool st_size_parse(const char *s, uint64_t *bytes);

#endif
