/*
 * st_options.c - looking up connector options (layer 10, stream).
 */
#include "stream/st_options.h"

#include <string.h>

const char *st_option_get(const st_option_t *opts, uint32_t n, const char *key) {
  const char *v = NULL;
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(opts[i].key, key) == 0) v = opts[i].value;
  return v;
}
