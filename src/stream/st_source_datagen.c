/*
 * st_source_datagen.c - the datagen connector as a job source (layer 10,
 * stream): rows of the table's physical columns from st_datagen.h, one
 * partition slot, the position the next row number.
 *
 * Row n depends only on (seed, n), so a source started at a checkpoint's
 * row number produces exactly the rows that followed it before.
 */
#include <string.h>

#include "base/alloc.h"
#include "stream/st_datagen.h"
#include "stream/st_source.h"

typedef struct dg_source {
  st_source_t s;
  st_datagen_t *g;
  st_option_t *opts;
  uint32_t nopts;
  bool bounded, ended;
} dg_source_t;

static int dg_start(st_source_t *s, const json_t *pos, bool bounded, fl_err_t *err) {
  dg_source_t *d = (dg_source_t *)s;
  if (bounded && st_datagen_total(d->g) == UINT64_MAX) {
    fl_err_set(err, FL_EINVALID,
               "an unbounded datagen source cannot run with --once (set 'number-of-rows')");
    return st_source_option_error(s->table, "connector", err);
  }
  d->bounded = bounded;
  if (pos) {
    json_t *row = json_object_get(pos, "row");
    if (!json_is_integer(row) || json_integer_value(row) < 0)
      return fl_err_set(err, FL_ECORRUPT, "checkpointed datagen position of %s has no row",
                        s->table->name);
    st_datagen_seek(d->g, (uint64_t)json_integer_value(row));
  }
  return FL_OK;
}

static int dg_poll(st_source_t *s, ty_batch_t *b, uint32_t *part, int timeout_ms, bool *end,
                   fl_err_t *err) {
  dg_source_t *d = (dg_source_t *)s;
  *end = false;
  if (d->ended) {
    *end = true;
    return FL_OK;
  }
  uint32_t before = b->nrows, rows = 0;
  bool done = false;
  int rc = st_datagen_next(d->g, b, 0, timeout_ms, &rows, &done, err);
  if (rc) return st_source_option_error(s->table, NULL, err);
  for (uint32_t r = before; r < b->nrows; r++) part[r] = 0;
  if (done) {
    d->ended = true;
    *end = true;
  }
  return FL_OK;
}

static json_t *dg_position(st_source_t *s) {
  dg_source_t *d = (dg_source_t *)s;
  return json_pack("{s:s,s:I}", "kind", "datagen", "row", (json_int_t)st_datagen_position(d->g));
}

static void dg_committed(st_source_t *s, const json_t *pos) {
  (void)s;
  (void)pos;
}

static void dg_free(st_source_t *s) {
  dg_source_t *d = (dg_source_t *)s;
  st_datagen_free(d->g);
  fl_free(d->opts);
  fl_free(d);
}

static const st_source_vt_t dg_vt = {
    .connector = "datagen",
    .start = dg_start,
    .poll = dg_poll,
    .position = dg_position,
    .committed = dg_committed,
    .free = dg_free,
};

int st_source_datagen_open(const sql_stream_table_t *t, st_bad_policy_t policy, st_source_t **out,
                           fl_err_t *err) {
  (void)policy; /* generated rows are never bad */
  for (uint32_t i = 0; i < t->ncols; i++)
    if (t->cols[i].kind == SQL_COL_METADATA) {
      fl_err_set(err, FL_EINVALID, "column %s: datagen has no metadata columns", t->cols[i].name);
      return st_source_option_error(t, NULL, err);
    }
  dg_source_t *d = fl_calloc(1, sizeof *d);
  d->s.vt = &dg_vt;
  d->s.table = t;
  d->s.nslots = 1;
  d->opts = fl_calloc(t->nopts + 1, sizeof *d->opts);
  const char *bad = NULL;
  for (uint32_t i = 0; i < t->nopts; i++) {
    if (strcmp(t->keys[i], "scan.watermark.idle-timeout") == 0) continue; /* one slot: moot */
    d->opts[d->nopts++] = (st_option_t){t->keys[i], t->values[i]};
  }
  int rc = st_datagen_open(t->base_schema, d->opts, d->nopts, &d->g, err);
  if (rc) {
    /* The datagen error names the option; point at it. */
    for (uint32_t i = 0; i < t->nopts && !bad; i++)
      if (strstr(err->msg, t->keys[i]) && strcmp(t->keys[i], "connector") != 0) bad = t->keys[i];
    dg_free(&d->s);
    return st_source_option_error(t, bad, err);
  }
  *out = &d->s;
  return FL_OK;
}
