/*
 * st_source.c - choosing a connector table's source (layer 10, stream).
 */
#include "stream/st_source.h"

#include <string.h>

static const struct {
  const char *name;
  int (*open)(const sql_stream_table_t *t, st_bad_policy_t bad, st_source_t **out, fl_err_t *err);
} connectors[] = {
    {"kafka", st_source_kafka_open},
    {"datagen", st_source_datagen_open},
    {"nexmark", st_source_nexmark_open},
};

int st_source_option_error(const sql_stream_table_t *t, const char *key, fl_err_t *err) {
  sql_pos_t pos = t->pos;
  for (uint32_t i = 0; key && i < t->nopts; i++)
    if (strcmp(t->keys[i], key) == 0) pos = t->opt_pos[i];
  return fl_err_prefix(err, "line %u, column %u: table %s: ", pos.line, pos.col, t->name);
}

int st_source_open(const sql_stream_table_t *t, st_bad_policy_t bad, st_source_t **out,
                   fl_err_t *err) {
  const char *c = sql_stream_option(t, "connector");
  for (size_t i = 0; c && i < sizeof connectors / sizeof connectors[0]; i++)
    if (strcmp(c, connectors[i].name) == 0) return connectors[i].open(t, bad, out, err);
  fl_err_set(err, FL_EUNSUPPORTED, "connector '%s' is not supported (kafka, datagen, nexmark)",
             c ? c : "");
  return st_source_option_error(t, "connector", err);
}

bool st_source_bounded(const sql_stream_table_t *t) {
  const char *c = sql_stream_option(t, "connector");
  if (!c) return false;
  if (!strcmp(c, "kafka")) {
    const char *m = sql_stream_option(t, "scan.bounded.mode");
    return m && strcmp(m, "unbounded") != 0;
  }
  if (!strcmp(c, "nexmark"))
    return sql_stream_option(t, "nexmark.events.num") ||
           sql_stream_option(t, "nexmark.event.num") || sql_stream_option(t, "number-of-rows");
  if (!strcmp(c, "datagen")) {
    if (sql_stream_option(t, "number-of-rows")) return true;
    /* A sequence field ends the source after its last value. */
    for (uint32_t i = 0; i < t->nopts; i++) {
      size_t n = strlen(t->keys[i]);
      if (!strncmp(t->keys[i], "fields.", 7) && n > 5 && !strcmp(t->keys[i] + n - 5, ".kind") &&
          !strcmp(t->values[i], "sequence"))
        return true;
    }
  }
  return false;
}

void st_source_free(st_source_t *s) {
  if (s) s->vt->free(s);
}
