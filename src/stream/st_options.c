/*
 * st_options.c - looking up connector options (layer 10, stream).
 */
#include "stream/st_options.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "format/text_parse.h"

const char *st_option_get(const st_option_t *opts, uint32_t n, const char *key) {
  const char *v = NULL;
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(opts[i].key, key) == 0) v = opts[i].value;
  return v;
}

bool st_duration_parse(const char *s, int64_t *ms) {
  const char *p = s;
  while (isspace((unsigned char)*p)) p++;
  if (!isdigit((unsigned char)*p)) return false;
  int64_t v = 0;
  for (; isdigit((unsigned char)*p); p++) {
    if (v > INT64_MAX / 10 - 10) return false;
    v = v * 10 + (*p - '0');
  }
  while (isspace((unsigned char)*p)) p++;
  static const struct {
    const char *unit;
    int64_t ms;
  } units[] = {{"", 1},          {"ms", 1},          {"milli", 1},
               {"millis", 1},    {"millisecond", 1}, {"milliseconds", 1},
               {"s", 1000},      {"sec", 1000},      {"secs", 1000},
               {"second", 1000}, {"seconds", 1000},  {"min", 60000},
               {"mins", 60000},  {"minute", 60000},  {"minutes", 60000},
               {"h", 3600000},   {"hour", 3600000},  {"hours", 3600000},
               {"d", 86400000},  {"day", 86400000},  {"days", 86400000}};
  size_t n = strlen(p);
  while (n && isspace((unsigned char)p[n - 1])) n--;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (strlen(units[i].unit) == n && strncmp(units[i].unit, p, n) == 0) {
      if (v > INT64_MAX / units[i].ms) return false;
      *ms = v * units[i].ms;
      return true;
    }
  return false;
}

bool st_u64_parse(const char *s, uint64_t *out) {
  int64_t v;
  if (!tp_parse_i64(s, strlen(s), &v) || v < 0) return false;
  *out = (uint64_t)v;
  return true;
}

bool st_bool_parse(const char *s, bool *out) {
  if (strcmp(s, "true") != 0 && strcmp(s, "false") != 0) return false;
  *out = strcmp(s, "true") == 0;
  return true;
}

bool st_size_parse(const char *s, uint64_t *bytes) {
  const char *p = s;
  while (isspace((unsigned char)*p)) p++;
  if (!isdigit((unsigned char)*p)) return false;
  uint64_t v = 0;
  for (; isdigit((unsigned char)*p); p++) {
    if (v > UINT64_MAX / 10 - 10) return false;
    v = v * 10 + (uint64_t)(*p - '0');
  }
  while (isspace((unsigned char)*p)) p++;
  /* Flink's MemorySize spellings, any case: 64mb, 64 m, 1gb, 512kb, bytes. */
  static const struct {
    const char *unit;
    uint64_t mult;
  } units[] = {{"", 1},           {"b", 1},           {"bytes", 1},
               {"k", 1ULL << 10}, {"kb", 1ULL << 10}, {"kibibytes", 1ULL << 10},
               {"m", 1ULL << 20}, {"mb", 1ULL << 20}, {"mebibytes", 1ULL << 20},
               {"g", 1ULL << 30}, {"gb", 1ULL << 30}, {"gibibytes", 1ULL << 30},
               {"t", 1ULL << 40}, {"tb", 1ULL << 40}};
  size_t n = strlen(p);
  while (n && isspace((unsigned char)p[n - 1])) n--;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (strlen(units[i].unit) == n && strncasecmp(units[i].unit, p, n) == 0) {
      if (v > UINT64_MAX / units[i].mult) return false;
      *bytes = v * units[i].mult;
      return true;
    }
  return false;
}
