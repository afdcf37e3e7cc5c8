/*
 * cat_sqlite.c - the SQLite driver of the SQL catalog (layer 6).
 *
 * The database keeps SQLite's default rollback journal, as PyIceberg's
 * SqlCatalog (through SQLAlchemy) leaves it. Concurrent writers from
 * several processes wait for each other through a busy timeout, and
 * multi-statement changes start with BEGIN IMMEDIATE so that a
 * transaction never has to upgrade a read lock (which SQLite refuses
 * without waiting). Single statements (the swap) take their locks in one
 * step and wait the same way. A database still locked after the timeout
 * is a retriable FL_EIO.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "catalog/cat_sql_int.h"

#define CAT_SQLITE_BUSY_MS 30000

struct cat_stmt {
  cat_catalog_t *c;
  sqlite3_stmt *st;
  bool done;
};

/*
 * The busy handler: polls every 0.2 to 2 ms (a random pause, so that
 * waiting writers do not move in step) until CAT_SQLITE_BUSY_MS have
 * passed. SQLite's own handler backs off to 100 ms pauses, which lets a
 * process committing in a loop take the lock again and again while the
 * others sleep through every short gap between its transactions.
 */
static long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int sq_busy(void *arg, int attempt) {
  cat_catalog_t *c = arg;
  long long now = now_ms();
  if (attempt == 0) c->busy_start_ms = now;
  if (now - c->busy_start_ms >= CAT_SQLITE_BUSY_MS) return 0;
  struct timespec pause = {0, (200 + rand_r(&c->busy_seed) % 1800) * 1000L};
  nanosleep(&pause, NULL);
  return 1;
}

static int sq_fail(cat_catalog_t *c, int rc, const char *what, fl_err_t *err) {
  sqlite3 *db = c->db;
  const char *msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  int prim = rc & 0xff;
  if (prim == SQLITE_BUSY || prim == SQLITE_LOCKED)
    return fl_err_set_retriable(err, FL_EIO, "%s: %s: database is locked by another writer (%s)",
                                c->where, what, msg);
  if (rc == SQLITE_CONSTRAINT_PRIMARYKEY || rc == SQLITE_CONSTRAINT_UNIQUE)
    return fl_err_set(err, FL_EEXISTS, "%s: %s: %s", c->where, what, msg);
  return fl_err_set(err, FL_EIO, "%s: %s: %s", c->where, what, msg);
}

static int sq_prepare(cat_catalog_t *c, const char *sql, cat_stmt_t **out, fl_err_t *err) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(c->db, sql, -1, &st, NULL);
  if (rc != SQLITE_OK) return sq_fail(c, rc, "preparing a statement", err);
  cat_stmt_t *s = fl_calloc(1, sizeof *s);
  s->c = c;
  s->st = st;
  *out = s;
  return FL_OK;
}

static int sq_bind_text(cat_stmt_t *s, int idx, const char *v, fl_err_t *err) {
  int rc = v ? sqlite3_bind_text(s->st, idx, v, -1, SQLITE_TRANSIENT)
             : sqlite3_bind_null(s->st, idx);
  if (rc != SQLITE_OK) return sq_fail(s->c, rc, "binding a parameter", err);
  return FL_OK;
}

static int sq_step(cat_stmt_t *s, bool *row, fl_err_t *err) {
  *row = false;
  if (s->done) return FL_OK;
  int rc = sqlite3_step(s->st);
  if (rc == SQLITE_ROW) {
    *row = true;
    return FL_OK;
  }
  s->done = true;
  if (rc == SQLITE_DONE) return FL_OK;
  /* sqlite3_step's code is generic with the legacy interface; the
   * extended code is kept on the connection. */
  return sq_fail(s->c, sqlite3_extended_errcode(s->c->db), "running a statement", err);
}

static const char *sq_column_text(cat_stmt_t *s, int col) {
  return (const char *)sqlite3_column_text(s->st, col);
}

static long sq_changes(cat_stmt_t *s) { return sqlite3_changes(s->c->db); }

static void sq_finalize(cat_stmt_t *s) {
  if (!s) return;
  sqlite3_finalize(s->st);
  fl_free(s);
}

static int sq_exec(cat_catalog_t *c, const char *sql, fl_err_t *err) {
  int rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);
  char what[64];
  if (rc != SQLITE_OK)
    return sq_fail(c, sqlite3_extended_errcode(c->db), cat__sql_what(sql, what, sizeof what), err);
  return FL_OK;
}

static void sq_close(cat_catalog_t *c) {
  if (c->db) sqlite3_close(c->db);
  c->db = NULL;
}

const cat_drv_t cat__sqlite_drv = {
    .name = "sqlite",
    .begin_sql = "BEGIN IMMEDIATE",
    .prepare = sq_prepare,
    .bind_text = sq_bind_text,
    .step = sq_step,
    .column_text = sq_column_text,
    .changes = sq_changes,
    .finalize = sq_finalize,
    .exec = sq_exec,
    .close = sq_close,
};

int cat__sqlite_open(cat_catalog_t *c, const char *path, fl_err_t *err) {
  c->where = cat__sprintf("sqlite catalog %s", path);
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
  if (rc != SQLITE_OK) {
    int r = fl_err_set(err, FL_EIO, "%s: cannot open: %s", c->where,
                       db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    return r;
  }
  sqlite3_extended_result_codes(db, 1);
  c->busy_seed = (unsigned)getpid() ^ (unsigned)now_ms();
  sqlite3_busy_handler(db, sq_busy, c);
  c->db = db;
  c->drv = &cat__sqlite_drv;
  return FL_OK;
}
