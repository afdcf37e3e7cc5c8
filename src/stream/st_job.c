/*
 * st_job.c - parsing and binding a streaming job's SQL (layer 10,
 * stream). See st_job.h.
 *
 * Statements are taken in order: a connector table is visible to the
 * statements after it, as in Flink's SQL client. The plans may read only
 * connector tables (a catalog table as a lookup source is not supported
 * in jobs yet).
 */
#include "stream/st_job.h"

#include <string.h>
#include <strings.h>

#include "exec/ex_plan.h"
#include "io/fs.h"
#include "sql/sql_parse.h"
#include "stream/st_source.h"

static int pos_err(fl_err_t *err, sql_pos_t pos, int code, const char *msg) {
  return fl_err_set(err, code, "line %u, column %u: %s", pos.line, pos.col, msg);
}

/* Whether the plan reads anything but connector tables (the first such
 * scan in *where). */
static bool reads_catalog(const sql_plan_t *p, const char **what) {
  if (p->kind == SQL_P_SCAN && !p->u.scan.stream) {
    *what = p->u.scan.ident;
    return true;
  }
  if (p->in && reads_catalog(p->in, what)) return true;
  for (uint32_t i = 0; i < p->ninputs; i++)
    if (p->inputs[i] != p->in && reads_catalog(p->inputs[i], what)) return true;
  return false;
}

static bool reads_stream(const sql_plan_t *p) {
  if (p->kind == SQL_P_SCAN) return p->u.scan.stream != NULL;
  if (p->in && reads_stream(p->in)) return true;
  for (uint32_t i = 0; i < p->ninputs; i++)
    if (reads_stream(p->inputs[i])) return true;
  return false;
}

static int add_insert(st_job_t *j, cat_catalog_t *cat, const char *text, const sql_stmt_t *st,
                      uint32_t *cap, fl_err_t *err) {
  if (st->u.insert.overwrite)
    return pos_err(err, st->pos, FL_EUNSUPPORTED, "INSERT OVERWRITE is not supported in jobs");
  sql_bind_opts_t o = {.resolver = &j->resolver,
                       .catalog = cat,
                       .fs = io_local_fs(),
                       .default_ns = st_job_option(j, "table.default-namespace"),
                       .text = text,
                       .streams = j->tables,
                       .nstreams = j->ntables};
  sql_insert_t ins;
  int rc = sql_bind_insert(j->a, &o, st, &ins, err);
  if (rc) return rc;
  if ((rc = sql_optimize(j->a, &j->resolver, &ins.plan, err))) return rc;
  const char *what;
  if (reads_catalog(ins.plan, &what)) {
    fl_err_set(err, FL_EUNSUPPORTED,
               "INSERT INTO %s.%s reads the catalog table %s: jobs read connector tables only",
               ins.ns, ins.name, what);
    return fl_err_prefix(err, "line %u, column %u: ", st->pos.line, st->pos.col);
  }
  if (!reads_stream(ins.plan))
    return pos_err(err, st->pos, FL_EINVALID,
                   "the INSERT reads no connector table (use floe sql for batch inserts)");
  if (j->ninserts == *cap) {
    *cap = *cap ? *cap * 2 : 4;
    st_insert_t *bigger = fl_arena_zalloc(j->a, *cap * sizeof *bigger);
    if (j->ninserts) memcpy(bigger, j->inserts, j->ninserts * sizeof *bigger);
    j->inserts = bigger;
  }
  j->inserts[j->ninserts++] = (st_insert_t){
      .ns = ins.ns, .name = ins.name, .table = ins.table, .plan = ins.plan, .pos = st->pos};
  return FL_OK;
}

static int add_set(st_job_t *j, const sql_stmt_t *st, uint32_t *cap, fl_err_t *err) {
  if (!st->u.set.value) return pos_err(err, st->pos, FL_EINVALID, "SET needs 'key' = 'value'");
  const char *key;
  if (st->u.set.key_string) {
    key = fl_arena_strndup(j->a, st->u.set.key_string, st->u.set.key_len);
  } else {
    fl_buf_t b;
    fl_buf_init(&b);
    for (size_t i = 0; i < st->u.set.key.n; i++) {
      if (i) fl_buf_append_u8(&b, '.');
      fl_buf_append_str(&b, st->u.set.key.parts[i].name);
    }
    key = fl_arena_strndup(j->a, (const char *)b.data, b.len);
    fl_buf_free(&b);
  }
  const sql_expr_t *v = st->u.set.value;
  const char *value;
  if (v->kind == SQL_E_STRING)
    value = fl_arena_strndup(j->a, v->u.str.data, v->u.str.len);
  else if (v->kind == SQL_E_INT)
    value = v->u.i.text ? v->u.i.text : fl_arena_sprintf(j->a, "%lld", (long long)v->u.i.value);
  else if (v->kind == SQL_E_BOOL)
    value = v->u.b ? "true" : "false";
  else
    return pos_err(err, v->pos, FL_EINVALID, "SET takes a quoted value: SET 'key' = 'value'");
  if (j->nsets == *cap) {
    *cap = *cap ? *cap * 2 : 8;
    st_option_t *bigger = fl_arena_zalloc(j->a, *cap * sizeof *bigger);
    if (j->nsets) memcpy(bigger, j->sets, j->nsets * sizeof *bigger);
    j->sets = bigger;
  }
  j->sets[j->nsets++] = (st_option_t){key, value};
  return FL_OK;
}

const char *st_job_option(const st_job_t *j, const char *key) {
  return st_option_get(j->sets, j->nsets, key);
}

int st_job_parse(fl_arena_t *a, const char *path, const char *text, size_t len, cat_catalog_t *cat,
                 st_job_t **out, fl_err_t *err) {
  st_job_t *j = fl_arena_zalloc(a, sizeof *j);
  j->a = a;
  j->path = path;
  ex_sql_resolver(&j->resolver, a);
  sql_stmt_t **stmts;
  size_t n;
  int rc = sql_parse_script(a, text, len, &stmts, &n, err);
  if (rc) return rc;
  uint32_t set_cap = 0, ins_cap = 0, tab_cap = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    const sql_stmt_t *st = stmts[i];
    switch (st->kind) {
      case SQL_S_SET: rc = add_set(j, st, &set_cap, err); break;
      case SQL_S_CREATE_TABLE: {
        if (!sql_is_stream_table(st)) {
          rc = pos_err(err, st->pos, FL_EINVALID,
                       "a job creates connector tables only (WITH ('connector' = 'kafka' | "
                       "'datagen', ...)); create Iceberg tables with floe sql");
          break;
        }
        sql_bind_opts_t o = {.resolver = &j->resolver, .fs = io_local_fs(), .text = text};
        sql_stream_table_t *t;
        if ((rc = sql_bind_stream_table(a, &o, st, &t, err))) break;
        for (uint32_t k = 0; k < j->ntables; k++)
          if (strcasecmp(j->tables[k]->name, t->name) == 0)
            rc = pos_err(err, st->pos, FL_EEXISTS, "the job already has a table of this name");
        if (rc) break;
        if (j->ntables == tab_cap) {
          tab_cap = tab_cap ? tab_cap * 2 : 4;
          sql_stream_table_t **bigger = fl_arena_zalloc(a, tab_cap * sizeof *bigger);
          if (j->ntables) memcpy(bigger, j->tables, j->ntables * sizeof *bigger);
          j->tables = bigger;
        }
        j->tables[j->ntables++] = t;
        break;
      }
      case SQL_S_INSERT: rc = add_insert(j, cat, text, st, &ins_cap, err); break;
      case SQL_S_STATEMENT_SET:
        for (size_t k = 0; k < st->u.statement_set.n && !rc; k++)
          rc = add_insert(j, cat, text, st->u.statement_set.stmts[k], &ins_cap, err);
        break;
      default:
        rc = pos_err(err, st->pos, FL_EUNSUPPORTED,
                     "a job holds SET, CREATE TABLE ... WITH ('connector' = ...) and INSERT INTO "
                     "statements only");
    }
  }
  if (!rc && j->ninserts == 0)
    rc = fl_err_set(err, FL_EINVALID, "the job has no INSERT INTO statement: nothing to run");
  if (rc) return rc;
  *out = j;
  return FL_OK;
}

/* The first connector table under p that does not end by itself, or NULL. */
static const sql_stream_table_t *unbounded_input(const sql_plan_t *p) {
  if (p->kind == SQL_P_SCAN)
    return p->u.scan.stream && !st_source_bounded(p->u.scan.stream) ? p->u.scan.stream : NULL;
  const sql_stream_table_t *t = p->in ? unbounded_input(p->in) : NULL;
  for (uint32_t i = 0; !t && i < p->ninputs; i++) t = unbounded_input(p->inputs[i]);
  return t;
}

/* The first operator of p that waits for the end of an unbounded input:
 * its description in *what and the table in *table. */
static bool blocking(const sql_plan_t *p, const char **what, const sql_stream_table_t **table) {
  const sql_stream_table_t *t = NULL;
  switch (p->kind) {
    case SQL_P_AGGREGATE:
      *what = "a GROUP BY or DISTINCT without a window";
      t = unbounded_input(p->in);
      break;
    case SQL_P_SORT:
      *what = "an ORDER BY";
      t = unbounded_input(p->in);
      break;
    case SQL_P_WINDOW:
      *what = "a window function (OVER)";
      t = unbounded_input(p->in);
      break;
    case SQL_P_JOIN: {
      sql_join_type_t jt = p->u.join.type;
      if (jt == SQL_JT_RIGHT || jt == SQL_JT_FULL) {
        *what = "a RIGHT or FULL OUTER JOIN";
        t = unbounded_input(p->inputs[0]);
        if (!t) t = unbounded_input(p->inputs[1]);
      } else {
        *what = "a join (its build side is read to the end first)";
        t = unbounded_input(p->inputs[p->u.join.build_left ? 0 : 1]);
      }
      break;
    }
    default: break;
  }
  if (t) {
    *table = t;
    return true;
  }
  if (p->in && blocking(p->in, what, table)) return true;
  for (uint32_t i = 0; i < p->ninputs; i++)
    if (blocking(p->inputs[i], what, table)) return true;
  return false;
}

int st_job_check_blocking(const st_job_t *j, bool once, fl_err_t *err) {
  if (once) return FL_OK;
  for (uint32_t i = 0; i < j->ninserts; i++) {
    const st_insert_t *ins = &j->inserts[i];
    const char *what = NULL;
    const sql_stream_table_t *t = NULL;
    if (!blocking(ins->plan, &what, &t)) continue;
    return fl_err_set(
        err, FL_EUNSUPPORTED,
        "line %u, column %u: INSERT INTO %s.%s: %s over the unbounded table %s would emit "
        "nothing until the job stops (its result would be an updating stream, which an "
        "append-only Iceberg table cannot take): aggregate per window with a window TVF "
        "(TABLE(TUMBLE(TABLE %s, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) ... GROUP BY "
        "window_start, window_end, ...), make the source bounded ('scan.bounded.mode', "
        "'number-of-rows'), or run the job with --once",
        ins->pos.line, ins->pos.col, ins->ns, ins->name, what, t->name, t->name);
  }
  return FL_OK;
}
