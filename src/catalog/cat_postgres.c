/*
 * cat_postgres.c - the PostgreSQL driver of the SQL catalog (layer 6).
 *
 * Every statement goes through PQexecParams with its values as text
 * parameters; the SQL text itself is one of cat_sql.c's constants with
 * its '?' placeholders renumbered to $1, $2, .... Unique violations
 * (SQLSTATE 23505) are FL_EEXISTS; serialization failures and deadlocks
 * (40001, 40P01) are retriable and ask cat_sql.c to run the transaction
 * again (transactions are SERIALIZABLE). Messages name the host, port and
 * database, never the password.
 */
#include <libpq-fe.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "catalog/cat_sql_int.h"

#define PG_MAX_PARAMS 16

struct cat_stmt {
  cat_catalog_t *c;
  char *sql;
  int nparams;
  char *params[PG_MAX_PARAMS];
  PGresult *res;
  int row; /* next row to return */
  bool ran;
};

static int pg_fail(cat_catalog_t *c, PGresult *res, const char *what, fl_err_t *err) {
  const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
  const char *msg = res ? PQresultErrorMessage(res) : PQerrorMessage(c->db);
  if (!msg || !*msg) msg = PQerrorMessage(c->db);
  size_t n = strlen(msg);
  while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) n--;
  if (state && !strcmp(state, "23505"))
    return fl_err_set(err, FL_EEXISTS, "%s: %s: %.*s", c->where, what, (int)n, msg);
  if (state && (!strcmp(state, "40001") || !strcmp(state, "40P01"))) {
    c->tx_retry = true;
    return fl_err_set_retriable(err, FL_EIO, "%s: %s: %.*s", c->where, what, (int)n, msg);
  }
  if (state && !strncmp(state, "22", 2))
    return fl_err_set(err, FL_EINVALID, "%s: %s: %.*s", c->where, what, (int)n, msg);
  if (PQstatus(c->db) != CONNECTION_OK)
    return fl_err_set_retriable(err, FL_EIO, "%s: %s: connection lost: %.*s", c->where, what,
                                (int)n, msg);
  return fl_err_set(err, FL_EIO, "%s: %s: %.*s", c->where, what, (int)n, msg);
}

static int pg_prepare(cat_catalog_t *c, const char *sql, cat_stmt_t **out, fl_err_t *err) {
  fl_buf_t b;
  fl_buf_init(&b);
  int n = 0;
  for (const char *p = sql; *p; p++) {
    if (*p == '?') {
      fl_buf_printf(&b, "$%d", ++n);
    } else {
      fl_buf_append(&b, p, 1);
    }
  }
  fl_buf_append_u8(&b, 0);
  if (n > PG_MAX_PARAMS) {
    fl_buf_free(&b);
    return fl_err_set(err, FL_EINTERNAL, "%s: statement with %d parameters", c->where, n);
  }
  cat_stmt_t *s = fl_calloc(1, sizeof *s);
  s->c = c;
  s->sql = (char *)fl_buf_steal(&b, NULL);
  s->nparams = n;
  *out = s;
  return FL_OK;
}

static int pg_bind_text(cat_stmt_t *s, int idx, const char *v, fl_err_t *err) {
  if (idx < 1 || idx > s->nparams)
    return fl_err_set(err, FL_EINTERNAL, "%s: parameter %d out of range", s->c->where, idx);
  fl_free(s->params[idx - 1]);
  s->params[idx - 1] = v ? fl_strdup(v) : NULL;
  return FL_OK;
}

static int pg_step(cat_stmt_t *s, bool *row, fl_err_t *err) {
  *row = false;
  if (!s->ran) {
    s->ran = true;
    s->res = PQexecParams(s->c->db, s->sql, s->nparams, NULL, (const char *const *)s->params,
                          NULL, NULL, 0);
    ExecStatusType st = s->res ? PQresultStatus(s->res) : PGRES_FATAL_ERROR;
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK)
      return pg_fail(s->c, s->res, "running a statement", err);
  }
  if (s->res && PQresultStatus(s->res) == PGRES_TUPLES_OK && s->row < PQntuples(s->res)) {
    s->row++;
    *row = true;
  }
  return FL_OK;
}

static const char *pg_column_text(cat_stmt_t *s, int col) {
  int r = s->row - 1;
  if (!s->res || r < 0 || col >= PQnfields(s->res) || PQgetisnull(s->res, r, col)) return NULL;
  return PQgetvalue(s->res, r, col);
}

static long pg_changes(cat_stmt_t *s) {
  const char *t = s->res ? PQcmdTuples(s->res) : "";
  return *t ? atol(t) : 0;
}

static void pg_finalize(cat_stmt_t *s) {
  if (!s) return;
  if (s->res) PQclear(s->res);
  for (int i = 0; i < s->nparams; i++) fl_free(s->params[i]);
  fl_free(s->sql);
  fl_free(s);
}

static int pg_exec(cat_catalog_t *c, const char *sql, fl_err_t *err) {
  PGresult *res = PQexecParams(c->db, sql, 0, NULL, NULL, NULL, NULL, 0);
  ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
  int rc = FL_OK;
  char what[64];
  if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK)
    rc = pg_fail(c, res, cat__sql_what(sql, what, sizeof what), err);
  if (res) PQclear(res);
  return rc;
}

static void pg_close(cat_catalog_t *c) {
  if (c->db) PQfinish(c->db);
  c->db = NULL;
}

const cat_drv_t cat__pg_drv = {
    .name = "postgresql",
    .begin_sql = "BEGIN ISOLATION LEVEL SERIALIZABLE",
    .prepare = pg_prepare,
    .bind_text = pg_bind_text,
    .step = pg_step,
    .column_text = pg_column_text,
    .changes = pg_changes,
    .finalize = pg_finalize,
    .exec = pg_exec,
    .close = pg_close,
};

/* CREATE TABLE IF NOT EXISTS reports a NOTICE when the table exists. */
static void pg_quiet(void *arg, const char *message) {}

int cat__pg_open(cat_catalog_t *c, const char *conninfo, fl_err_t *err) {
  /* The URI comes last so that its own connect_timeout wins; without one
   * an unreachable host fails after 10 s instead of the system's minutes. */
  const char *const keys[] = {"connect_timeout", "fallback_application_name", "dbname", NULL};
  const char *const values[] = {"10", "floe", conninfo, NULL};
  PGconn *conn = PQconnectdbParams(keys, values, 1);
  if (!conn) return fl_err_set(err, FL_ENOMEM, "postgresql catalog: cannot allocate a connection");
  const char *host = PQhost(conn), *port = PQport(conn), *db = PQdb(conn);
  c->where = cat__sprintf("postgresql catalog at host %s port %s database %s",
                          host && *host ? host : "(default)", port && *port ? port : "5432",
                          db && *db ? db : "(default)");
  if (PQstatus(conn) != CONNECTION_OK) {
    /* libpq's report on one line: its lines ("connection to server at
     * ... failed: Connection refused", "Is the server running ...?")
     * joined, with any occurrence of the password masked. */
    const char *msg = PQerrorMessage(conn), *pass = PQpass(conn);
    size_t plen = pass ? strlen(pass) : 0;
    fl_buf_t b;
    fl_buf_init(&b);
    bool space = false;
    for (const char *p = msg; *p;) {
      if (plen && strncmp(p, pass, plen) == 0) {
        fl_buf_append_str(&b, "***");
        p += plen;
        space = false;
        continue;
      }
      if (*p == '\n' || *p == '\t' || *p == ' ') {
        space = b.len > 0;
        p++;
        continue;
      }
      if (space) fl_buf_append_u8(&b, ' ');
      space = false;
      fl_buf_append_u8(&b, (uint8_t)*p++);
    }
    fl_buf_append_u8(&b, 0);
    int r = fl_err_set_retriable(err, FL_EIO, "%s: cannot connect: %s", c->where,
                                 (const char *)b.data);
    fl_buf_free(&b);
    PQfinish(conn);
    return r;
  }
  PQsetNoticeProcessor(conn, pg_quiet, NULL);
  c->db = conn;
  c->drv = &cat__pg_drv;
  return FL_OK;
}
