/*
 * st_late_rows.c - late rows of window aggregations into an Iceberg table
 * (layer 10, stream). See st_late_rows.h.
 *
 * Each bound query has a small batch of the late-row table's schema: the
 * callback appends one row per late row (its event time from the window's
 * time column, its columns as a JSON object named as the window
 * aggregation's input names them) and pushes the batch into the lane's
 * sink at once, so nothing is held between pushes and a checkpoint, taken
 * at a batch boundary, finds every late row already in the sink.
 */
#include "stream/st_late_rows.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "catalog/cat_tables.h"
#include "format/json/json_text.h"
#include "io/fs.h"

typedef struct late_query {
  st_late_rows_t *l;
  const char *source, *target;
  ex_op_t *sink;
  const char **names; /* per input column of the window aggregation; NULL: a repeat */
  uint32_t nnames;
  ty_batch_t *batch;
  fl_buf_t json;
} late_query_t;

struct st_late_rows {
  fl_arena_t *a;
  ice_table_t *table;
  const ty_schema_t *schema;
  const char *ns, *name;
  late_query_t **queries;
  uint32_t nqueries;
};

int st_late_rows_open(cat_catalog_t *cat, const st_job_t *job, st_late_rows_t **out,
                      fl_err_t *err) {
  *out = NULL;
  const char *ident = st_job_option(job, "floe.late-rows.table");
  if (!ident) return FL_OK;
  char *ns, *name;
  int rc = cat_split_ident(ident, &ns, &name, err);
  if (rc) return fl_err_prefix(err, "SET 'floe.late-rows.table' = '%s': ", ident);
  st_late_rows_t *l = fl_calloc(1, sizeof *l);
  l->a = fl_arena_new(0);
  rc = cat_open_table(cat, io_local_fs(), ns, name, &l->table, err);
  if (rc == FL_ENOTFOUND) {
    fl_err_clear(err);
    ty_schema_t *s;
    if (!(rc = ty_schema_parse(l->a, ST_LATE_ROWS_SCHEMA, &s, err))) {
      cat_create_opts_t o = {.schema = s};
      rc = cat_create_table(cat, io_local_fs(), ns, name, &o, &l->table, err);
    }
  }
  if (!rc) {
    const ty_schema_t *s = ice_meta_schema(l->table->meta);
    static const char *const cols[] = {"source", "target", "event_time", "row_json"};
    static const ty_kind_t kinds[] = {TY_STRING, TY_STRING, TY_TIMESTAMP, TY_STRING};
    bool ok = s->root.nfields == 4;
    for (uint32_t i = 0; ok && i < 4; i++)
      ok = !strcmp(s->root.fields[i].name, cols[i]) && s->root.fields[i].type->kind == kinds[i];
    if (!ok)
      rc = fl_err_set(err, FL_EINVALID, "the late-row table must have the columns (%s)",
                      ST_LATE_ROWS_SCHEMA);
    l->schema = s;
    l->ns = fl_arena_strdup(l->a, ns);
    l->name = fl_arena_strdup(l->a, name);
  }
  fl_free(ns);
  fl_free(name);
  if (rc) {
    st_late_rows_free(l);
    return fl_err_prefix(err, "late-row table %s: ", ident);
  }
  *out = l;
  return FL_OK;
}

void st_late_rows_free(st_late_rows_t *l) {
  if (!l) return;
  for (uint32_t i = 0; i < l->nqueries; i++) {
    ty_batch_free(l->queries[i]->batch);
    fl_buf_free(&l->queries[i]->json);
    fl_free(l->queries[i]);
  }
  fl_free(l->queries);
  ice_table_free(l->table);
  fl_arena_free(l->a);
  fl_free(l);
}

ice_table_t *st_late_rows_table(const st_late_rows_t *l) { return l->table; }
const ty_schema_t *st_late_rows_schema(const st_late_rows_t *l) { return l->schema; }
const char *st_late_rows_ns(const st_late_rows_t *l) { return l->ns; }
const char *st_late_rows_name(const st_late_rows_t *l) { return l->name; }

/* The connector tables under p, each once, comma separated. */
static void sources_of(const sql_plan_t *p, fl_buf_t *out) {
  if (p->kind == SQL_P_SCAN && p->u.scan.stream) {
    const char *n = p->u.scan.stream->name;
    size_t k = strlen(n);
    const char *s = (const char *)out->data, *end = s + out->len;
    for (const char *q = s; q < end;) {
      const char *c = memchr(q, ',', (size_t)(end - q));
      if (!c) c = end;
      if ((size_t)(c - q) == k && !memcmp(q, n, k)) return;
      q = c + 1;
    }
    if (out->len) fl_buf_append_u8(out, ',');
    fl_buf_append(out, n, k);
    return;
  }
  if (p->in) sources_of(p->in, out);
  for (uint32_t i = 0; i < p->ninputs; i++) sources_of(p->inputs[i], out);
}

/* The name column c of p's output has in the connector table it is read
 * from unchanged (through projections, filters and the window TVF), or
 * NULL when it is computed. */
static const char *source_name(const sql_plan_t *p, uint32_t c) {
  switch (p->kind) {
    case SQL_P_SCAN: return p->u.scan.stream && c < p->ncols ? p->cols[c].name : NULL;
    case SQL_P_FILTER: return source_name(p->in, c);
    case SQL_P_WINDOW_TVF: return c < p->in->ncols ? source_name(p->in, c) : NULL;
    case SQL_P_PROJECT: {
      const sql_bexpr_t *e = p->u.project.exprs[c];
      return e->kind == SQL_BX_COL ? source_name(p->in, e->col) : NULL;
    }
    default: return NULL;
  }
}

static const sql_plan_t *first_window_agg(const sql_plan_t *p) {
  if (p->kind == SQL_P_WINDOW_AGG) return p;
  const sql_plan_t *w = p->in ? first_window_agg(p->in) : NULL;
  for (uint32_t i = 0; !w && i < p->ninputs; i++) w = first_window_agg(p->inputs[i]);
  return w;
}

/* Names for the JSON of a late row: the source table's column names where
 * the window aggregation's input columns are plain columns of it (its own
 * names are the planner's, "$g2"), each once. */
static void input_names(late_query_t *q, const sql_plan_t *plan) {
  const sql_plan_t *w = first_window_agg(plan);
  if (!w) return;
  const sql_plan_t *in = w->in;
  q->nnames = in->ncols;
  q->names = fl_arena_zalloc(q->l->a, (in->ncols ? in->ncols : 1) * sizeof *q->names);
  for (uint32_t c = 0; c < in->ncols; c++) {
    const char *n = source_name(in, c);
    if (!n) n = in->cols[c].name;
    for (uint32_t k = 0; n && k < c; k++)
      if (q->names[k] && !strcmp(q->names[k], n)) n = NULL;
    q->names[c] = n;
  }
}

void *st_late_rows_bind(st_late_rows_t *l, const sql_plan_t *plan, const char *target,
                        ex_op_t *sink) {
  late_query_t *q = fl_calloc(1, sizeof *q);
  q->l = l;
  fl_buf_t names;
  fl_buf_init(&names);
  sources_of(plan, &names);
  q->source = fl_arena_strndup(l->a, names.len ? (const char *)names.data : "", names.len);
  fl_buf_free(&names);
  q->target = fl_arena_strdup(l->a, target);
  q->sink = sink;
  input_names(q, plan);
  q->batch = ty_batch_new(l->schema, TY_BATCH_ROWS);
  fl_buf_init(&q->json);
  l->queries = fl_realloc(l->queries, (l->nqueries + 1) * sizeof *l->queries);
  l->queries[l->nqueries++] = q;
  return q;
}

/* Row r of b as a JSON object: columns named as input_names found, else
 * as the batch's schema names them, else by position. */
static void row_json(const late_query_t *q, const ty_batch_t *b, uint32_t r, fl_buf_t *out) {
  bool ours = q->nnames == b->ncols;
  bool named = b->schema && b->schema->root.nfields == b->ncols;
  fl_buf_clear(out);
  fl_buf_append_u8(out, '{');
  bool first = true;
  for (uint32_t c = 0; c < b->ncols; c++) {
    if (ours && !q->names[c]) continue; /* a repeat of a column already there */
    if (!first) fl_buf_append_u8(out, ',');
    first = false;
    char pos[16];
    const char *n = ours ? q->names[c] : named ? b->schema->root.fields[c].name : pos;
    if (!ours && !named) snprintf(pos, sizeof pos, "$%u", c);
    js_append_string(out, (const uint8_t *)n, strlen(n));
    fl_buf_append_u8(out, ':');
    js_append_value(out, b->cols[c], r);
  }
  fl_buf_append_u8(out, '}');
}

int st_late_rows_fn(void *arg, const ty_batch_t *b, uint32_t time_col, const uint32_t *rows,
                    uint32_t n, fl_err_t *err) {
  late_query_t *q = arg;
  ty_batch_t *o = q->batch;
  const ty_vec_t *tv = b->cols[time_col];
  for (uint32_t i = 0; i < n; i++) {
    uint32_t r = rows[i];
    ty_vec_append_bytes(o->cols[0], q->source, strlen(q->source));
    ty_vec_append_bytes(o->cols[1], q->target, strlen(q->target));
    if (ty_vec_is_valid(tv, r))
      ty_vec_append_i64(o->cols[2], ((const int64_t *)tv->data)[r]);
    else
      ty_vec_append_null(o->cols[2]);
    row_json(q, b, r, &q->json);
    ty_vec_append_bytes(o->cols[3], q->json.data, q->json.len);
    o->nrows++;
    if (o->nrows == TY_BATCH_ROWS || i + 1 == n) {
      int rc = ex_op_push(q->sink, o, err);
      ty_batch_reset(o);
      if (rc) return fl_err_prefix(err, "late rows: ");
    }
  }
  return FL_OK;
}
