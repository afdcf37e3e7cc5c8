/*
 * st_options.c - looking up connector options (layer 10, stream).
 */
#include "stream/st_options.h"

#include <ctype.h>
#include <string.h>

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
  } units[] = {{"", 1},        {"ms", 1},         {"milli", 1},    {"millis", 1},
               {"millisecond", 1}, {"milliseconds", 1}, {"s", 1000},  {"sec", 1000},
               {"secs", 1000}, {"second", 1000},  {"seconds", 1000}, {"min", 60000},
               {"mins", 60000}, {"minute", 60000}, {"minutes", 60000}, {"h", 3600000},
               {"hour", 3600000}, {"hours", 3600000}, {"d", 86400000}, {"day", 86400000},
               {"days", 86400000}};
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
