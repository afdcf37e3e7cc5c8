/*
 * test_catalog.c - the SQL catalog (catalog.h) on SQLite and PostgreSQL.
 *
 * Every behaviour test runs once per back end: "sqlite_<name>" on a fresh
 * database file under the test's scratch directory, and "pg_<name>" on the
 * server named by $FLOE_TEST_PG_URI (those are registered only when it is
 * set; scripts/pg-test-server.sh starts one). The PostgreSQL tests share
 * one database, so each uses a catalog name of its own.
 *
 * Rows are also read back through the driver interface (cat_sql_int.h),
 * so the tests check the JDBC catalog's columns themselves, not only what
 * the catalog API reports. The concurrency tests fork writers that race
 * on one table and then check that the successful swaps form one chain.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "catalog/cat_sql_int.h"
#include "catalog/catalog.h"
#include "test.h"

/* ---- back ends ---- */

typedef struct be {
  bool pg;
  char uri[1024];
  char name[128]; /* the catalog_name of this test */
} be_t;

static void be_init(be_t *be, bool pg, const char *test) {
  memset(be, 0, sizeof *be);
  be->pg = pg;
  if (pg) {
    snprintf(be->uri, sizeof be->uri, "%s", getenv("FLOE_TEST_PG_URI"));
    snprintf(be->name, sizeof be->name, "t_%s_%d", test, (int)getpid());
  } else {
    snprintf(be->uri, sizeof be->uri, "sqlite:%s/%s.db", t_tmpdir(), test);
    snprintf(be->name, sizeof be->name, "floe");
  }
}

static int be_open(const be_t *be, cat_catalog_t **c, fl_err_t *err) {
  return cat_open(be->uri, t_tmpdir(), be->name, c, err);
}

/* ---- raw rows through the driver ---- */

/* Runs sql with text parameters; the first column of the first row goes
 * to *out (malloc'd, NULL for SQL NULL or no row) and *rows counts rows. */
static int raw_query(cat_catalog_t *c, const char *sql, const char *const *p, int n, char **out,
                     int *rows, fl_err_t *err) {
  if (out) *out = NULL;
  if (rows) *rows = 0;
  cat_stmt_t *s;
  int rc = c->drv->prepare(c, sql, &s, err);
  if (rc) return rc;
  for (int i = 0; !rc && i < n; i++) rc = c->drv->bind_text(s, i + 1, p[i], err);
  for (int r = 0; !rc; r++) {
    bool row;
    rc = c->drv->step(s, &row, err);
    if (rc || !row) break;
    if (rows) (*rows)++;
    const char *v = c->drv->column_text(s, 0);
    if (r == 0 && out && v) *out = fl_strdup(v);
  }
  c->drv->finalize(s);
  return rc;
}

/* previous_metadata_location of a table row (NULL when SQL NULL). */
static int raw_previous(cat_catalog_t *c, const char *ns, const char *name, char **out,
                        fl_err_t *err) {
  const char *p[] = {cat_name(c), ns, name};
  int rows;
  int rc = raw_query(c,
                     "SELECT previous_metadata_location FROM iceberg_tables WHERE "
                     "catalog_name = ? AND table_namespace = ? AND table_name = ?",
                     p, 3, out, &rows, err);
  if (!rc && rows != 1) rc = fl_err_set(err, FL_ENOTFOUND, "%d rows for %s.%s", rows, ns, name);
  return rc;
}

/* The value of one namespace property row (NULL when there is none). */
static int raw_prop(cat_catalog_t *c, const char *ns, const char *key, char **out, fl_err_t *err) {
  const char *p[] = {cat_name(c), ns, key};
  return raw_query(c,
                   "SELECT property_value FROM iceberg_namespace_properties WHERE "
                   "catalog_name = ? AND namespace = ? AND property_key = ?",
                   p, 3, out, NULL, err);
}

static bool names_eq(const cat_names_t *n, const char *const *want, size_t nwant) {
  if (n->n != nwant) return false;
  for (size_t i = 0; i < nwant; i++)
    if (strcmp(n->items[i], want[i]) != 0) return false;
  return true;
}

static void names_print(const char *what, const cat_names_t *n) {
  fprintf(stderr, "  %s:", what);
  for (size_t i = 0; i < n->n; i++) fprintf(stderr, " [%s]", n->items[i]);
  fprintf(stderr, "\n");
}

#define CHECK_NAMES(names, ...)                                                  \
  do {                                                                           \
    static const char *const t_want[] = {__VA_ARGS__};                           \
    if (!names_eq(&(names), t_want, sizeof t_want / sizeof *t_want)) {           \
      names_print(#names, &(names));                                             \
      t_fail(__FILE__, __LINE__, "%s is not {%s}", #names, #__VA_ARGS__);        \
      return;                                                                    \
    }                                                                            \
  } while (0)

#define CHECK_EMPTY(names)                                  \
  do {                                                      \
    if ((names).n != 0) {                                   \
      names_print(#names, &(names));                        \
      t_fail(__FILE__, __LINE__, "%s is not empty", #names); \
      return;                                               \
    }                                                       \
    cat_names_free(&(names));                               \
  } while (0)

#define CHECK_HAS(msg, part)                                                        \
  do {                                                                              \
    if (!strstr((msg), (part))) {                                                   \
      t_fail(__FILE__, __LINE__, "message \"%s\" does not mention \"%s\"", (msg), (part)); \
      return;                                                                       \
    }                                                                               \
  } while (0)

/* ---- namespaces ---- */

static void t_ns_create(const be_t *be) {
  fl_err_t err;
  cat_catalog_t *c;
  CHECK_OK(be_open(be, &c, &err), &err);
  CHECK_STR(cat_name(c), be->name);
  bool ex = true;
  CHECK_OK(cat_ns_exists(c, "db", &ex, &err), &err);
  CHECK(!ex);
  CHECK_OK(cat_ns_create(c, "db", NULL, 0, &err), &err);
  CHECK_OK(cat_ns_exists(c, "db", &ex, &err), &err);
  CHECK(ex);
  /* Without properties the JDBC catalog's marker row is written, and
   * not reported as a property. */
  char *v;
  CHECK_OK(raw_prop(c, "db", "exists", &v, &err), &err);
  CHECK_STR(v, "true");
  fl_free(v);
  cat_prop_t *props;
  size_t n;
  CHECK_OK(cat_ns_properties(c, "db", &props, &n, &err), &err);
  CHECK_EQ(n, 0);
  cat_props_free(props, n);
  CHECK_ERR(cat_ns_create(c, "db", NULL, 0, &err), FL_EEXISTS);
  CHECK_HAS(err.msg, "'db' already exists");

  /* With properties: no marker; sorted by key; the last of a repeated key wins. */
  cat_prop_t in[] = {{"owner", "ann"}, {"comment", "x"}, {"location", "file:///w/s"},
                     {"comment", "sales data"}};
  CHECK_OK(cat_ns_create(c, "sales", in, 4, &err), &err);
  CHECK_OK(raw_prop(c, "sales", "exists", &v, &err), &err);
  CHECK(v == NULL);
  CHECK_OK(cat_ns_properties(c, "sales", &props, &n, &err), &err);
  CHECK_EQ(n, 3);
  CHECK_STR(props[0].key, "comment");
  CHECK_STR(props[0].value, "sales data");
  CHECK_STR(props[1].key, "location");
  CHECK_STR(props[1].value, "file:///w/s");
  CHECK_STR(props[2].key, "owner");
  CHECK_STR(props[2].value, "ann");
  cat_props_free(props, n);

  /* Bad arguments are refused before anything is written. */
  CHECK_ERR(cat_ns_create(c, "", NULL, 0, &err), FL_EINVALID);
  CHECK_ERR(cat_ns_create(c, "a..b", NULL, 0, &err), FL_EINVALID);
  CHECK_HAS(err.msg, "empty level");
  CHECK_ERR(cat_ns_create(c, ".a", NULL, 0, &err), FL_EINVALID);
  CHECK_ERR(cat_ns_create(c, "a.", NULL, 0, &err), FL_EINVALID);
  cat_prop_t nokey = {"", "v"}, noval = {"k", NULL};
  CHECK_ERR(cat_ns_create(c, "bad", &nokey, 1, &err), FL_EINVALID);
  CHECK_ERR(cat_ns_create(c, "bad", &noval, 1, &err), FL_EINVALID);
  char big[1002];
  memset(big, 'v', 1001);
  big[1001] = 0;
  cat_prop_t bigval = {"k", big};
  CHECK_ERR(cat_ns_create(c, "bad", &bigval, 1, &err), FL_EINVALID);
  CHECK_HAS(err.msg, "longer than 1000");
  big[1000] = 0;
  CHECK_OK(cat_ns_create(c, "big", &bigval, 1, &err), &err);
  CHECK_OK(cat_ns_exists(c, "bad", &ex, &err), &err);
  CHECK(!ex);
  CHECK_ERR(cat_ns_properties(c, "nope", &props, &n, &err), FL_ENOTFOUND);
  CHECK_HAS(err.msg, "'nope' does not exist");
  cat_close(c);
}

static void t_ns_nested(const be_t *be) {
  fl_err_t err;
  cat_catalog_t *c;
  CHECK_OK(be_open(be, &c, &err), &err);
  CHECK_OK(cat_ns_create(c, "a.b.c", NULL, 0, &err), &err);
  /* Parents exist through their children, as in the JDBC catalog. */
  bool ex;
  CHECK_OK(cat_ns_exists(c, "a", &ex, &err), &err);
  CHECK(ex);
  CHECK_OK(cat_ns_exists(c, "a.b", &ex, &err), &err);
  CHECK(ex);
  CHECK_OK(cat_ns_exists(c, "a.b.c.d", &ex, &err), &err);
  CHECK(!ex);
  CHECK_ERR(cat_ns_exists(c, "a.b.", &ex, &err), FL_EINVALID);
  CHECK_ERR(cat_ns_create(c, "a", NULL, 0, &err), FL_EEXISTS);
  /* Look-alikes that a careless LIKE would take for children of a or a_b:
   * a sibling sharing a prefix, LIKE wildcards, other letter case. */
  const char *others[] = {"ab", "ab.c", "a_b.x", "axb.y", "a%.z", "A.up", "b"};
  for (size_t i = 0; i < sizeof others / sizeof *others; i++)
    CHECK_OK(cat_ns_create(c, others[i], NULL, 0, &err), &err);
  CHECK_OK(cat_ns_create(c, "a.e", NULL, 0, &err), &err);

  cat_names_t l;
  CHECK_OK(cat_ns_list(c, NULL, &l, &err), &err);
  CHECK_NAMES(l, "A", "a", "a%", "a_b", "ab", "axb", "b");
  cat_names_free(&l);
  CHECK_OK(cat_ns_list(c, "", &l, &err), &err);
  CHECK_EQ(l.n, 7);
  cat_names_free(&l);
  CHECK_OK(cat_ns_list(c, "a", &l, &err), &err);
  CHECK_NAMES(l, "a.b", "a.e");
  cat_names_free(&l);
  CHECK_OK(cat_ns_list(c, "a.b", &l, &err), &err);
  CHECK_NAMES(l, "a.b.c");
  cat_names_free(&l);
  CHECK_OK(cat_ns_list(c, "a.b.c", &l, &err), &err);
  CHECK_EMPTY(l);
  CHECK_OK(cat_ns_list(c, "a_b", &l, &err), &err);
  CHECK_NAMES(l, "a_b.x");
  cat_names_free(&l);
  CHECK_OK(cat_ns_list(c, "a%", &l, &err), &err);
  CHECK_NAMES(l, "a%.z");
  cat_names_free(&l);
  CHECK_OK(cat_ns_list(c, "A", &l, &err), &err);
  CHECK_NAMES(l, "A.up");
  cat_names_free(&l);
  CHECK_ERR(cat_ns_list(c, "zz", &l, &err), FL_ENOTFOUND);
  CHECK_HAS(err.msg, "'zz' does not exist");
  CHECK_ERR(cat_ns_list(c, "a..b", &l, &err), FL_EINVALID);
  CHECK_OK(cat_ns_exists(c, "a!b", &ex, &err), &err);
  CHECK(!ex);

  /* A table's namespace counts as a namespace, and its parents too. */
  CHECK_OK(cat_table_register(c, "a.b.c", "t", "file:///m/t.json", &err), &err);
  CHECK_OK(cat_ns_list(c, "a.b", &l, &err), &err);
  CHECK_NAMES(l, "a.b.c");
  cat_names_free(&l);
  cat_close(c);
}

static void t_ns_update(const be_t *be) {
  fl_err_t err;
  cat_catalog_t *c;
  CHECK_OK(be_open(be, &c, &err), &err);
  cat_prop_t in[] = {{"k1", "v1"}, {"k2", "v2"}};
  CHECK_OK(cat_ns_create(c, "n", in, 2, &err), &err);
  cat_prop_t set[] = {{"k2", "v2b"}, {"k3", ""}};
  const char *rm[] = {"k1", "never-there"};
  CHECK_OK(cat_ns_update(c, "n", set, 2, rm, 2, &err), &err);
  cat_prop_t *p;
  size_t n;
  CHECK_OK(cat_ns_properties(c, "n", &p, &n, &err), &err);
  CHECK_EQ(n, 2);
  CHECK_STR(p[0].key, "k2");
  CHECK_STR(p[0].value, "v2b");
  CHECK_STR(p[1].key, "k3");
  CHECK_STR(p[1].value, "");
  cat_props_free(p, n);
  /* Removing every property keeps the namespace, through the marker. */
  const char *rm_all[] = {"k2", "k3"};
  CHECK_OK(cat_ns_update(c, "n", NULL, 0, rm_all, 2, &err), &err);
  bool ex;
  CHECK_OK(cat_ns_exists(c, "n", &ex, &err), &err);
  CHECK(ex);
  CHECK_OK(cat_ns_properties(c, "n", &p, &n, &err), &err);
  CHECK_EQ(n, 0);
  cat_props_free(p, n);
  char *v;
  CHECK_OK(raw_prop(c, "n", "exists", &v, &err), &err);
  CHECK_STR(v, "true");
  fl_free(v);
  CHECK_ERR(cat_ns_update(c, "missing", set, 1, NULL, 0, &err), FL_ENOTFOUND);
  CHECK_OK(cat_ns_exists(c, "missing", &ex, &err), &err);
  CHECK(!ex);
  /* A failing update changes nothing. */
  cat_prop_t bad[] = {{"ok", "1"}, {"", "2"}};
  CHECK_ERR(cat_ns_update(c, "n", bad, 2, NULL, 0, &err), FL_EINVALID);
  CHECK_OK(raw_prop(c, "n", "ok", &v, &err), &err);
  CHECK(v == NULL);
  cat_close(c);
}

static void t_ns_drop(const be_t *be) {
  fl_err_t err;
  cat_catalog_t *c;
  CHECK_OK(be_open(be, &c, &err), &err);
  CHECK_OK(cat_ns_create(c, "p", NULL, 0, &err), &err);
  CHECK_OK(cat_ns_create(c, "p.q", NULL, 0, &err), &err);
  CHECK_ERR(cat_ns_drop(c, "p", &err), FL_EINVALID);
  CHECK_HAS(err.msg, "namespace 'p.q'");
  CHECK_OK(cat_table_register(c, "p.q", "t", "file:///m/1.json", &err), &err);
  CHECK_ERR(cat_ns_drop(c, "p.q", &err), FL_EINVALID);
  CHECK_HAS(err.msg, "1 table");
  bool ex;
  CHECK_OK(cat_ns_exists(c, "p.q", &ex, &err), &err);
  CHECK(ex);
  CHECK_OK(cat_table_drop(c, "p.q", "t", &err), &err);
  CHECK_OK(cat_ns_drop(c, "p.q", &err), &err);
  CHECK_OK(cat_ns_exists(c, "p.q", &ex, &err), &err);
  CHECK(!ex);
  CHECK_OK(cat_ns_drop(c, "p", &err), &err);
  CHECK_OK(cat_ns_exists(c, "p", &ex, &err), &err);
  CHECK(!ex);
  CHECK_ERR(cat_ns_drop(c, "p", &err), FL_ENOTFOUND);
  CHECK_HAS(err.msg, "'p' does not exist");
  /* A view row (iceberg_type VIEW) is no table but still keeps the
   * namespace from being dropped. */
  CHECK_OK(cat_ns_create(c, "v", NULL, 0, &err), &err);
  const char *vp[] = {cat_name(c), "v", "a_view", "file:///m/v.json"};
  CHECK_OK(raw_query(c,
                     "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                     "metadata_location, iceberg_type) VALUES (?, ?, ?, ?, 'VIEW')",
                     vp, 4, NULL, NULL, &err),
           &err);
  cat_names_t l;
  CHECK_OK(cat_table_list(c, "v", &l, &err), &err);
  CHECK_EMPTY(l);
  char *loc;
  CHECK_ERR(cat_table_load(c, "v", "a_view", &loc, &err), FL_ENOTFOUND);
  CHECK_ERR(cat_table_drop(c, "v", "a_view", &err), FL_ENOTFOUND);
  CHECK_ERR(cat_ns_drop(c, "v", &err), FL_EINVALID);
  cat_close(c);
}

/* ---- tables ---- */

static void t_table_basic(const be_t *be) {
  fl_err_t err;
  cat_catalog_t *c;
  CHECK_OK(be_open(be, &c, &err), &err);
  CHECK_ERR(cat_table_register(c, "db", "t", "file:///m/t1.json", &err), FL_ENOTFOUND);
  CHECK_HAS(err.msg, "namespace 'db' does not exist");
  CHECK_OK(cat_ns_create(c, "db", NULL, 0, &err), &err);
  CHECK_OK(cat_table_register(c, "db", "t", "file:///m/t1.json", &err), &err);
  CHECK_OK(cat_table_register(c, "db", "b", "file:///m/b1.json", &err), &err);
  CHECK_OK(cat_table_register(c, "db", "a", "file:///m/a1.json", &err), &err);
  CHECK_ERR(cat_table_register(c, "db", "t", "file:///m/other.json", &err), FL_EEXISTS);
  CHECK_HAS(err.msg, "'db.t' already exists");
  char *loc;
  CHECK_OK(cat_table_load(c, "db", "t", &loc, &err), &err);
  CHECK_STR(loc, "file:///m/t1.json");
  fl_free(loc);
  char *prev = (char *)"x";
  CHECK_OK(raw_previous(c, "db", "t", &prev, &err), &err);
  CHECK(prev == NULL);
  /* The V1 schema's row type is written. */
  const char *tp[] = {cat_name(c), "db", "t"};
  char *type;
  CHECK_OK(raw_query(c,
                     "SELECT iceberg_type FROM iceberg_tables WHERE catalog_name = ? AND "
                     "table_namespace = ? AND table_name = ?",
                     tp, 3, &type, NULL, &err),
           &err);
  CHECK_STR(type, "TABLE");
  fl_free(type);
  /* A row without type (an older client's) is a table. */
  const char *np[] = {cat_name(c), "db", "old", "file:///m/old.json"};
  CHECK_OK(raw_query(c,
                     "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                     "metadata_location) VALUES (?, ?, ?, ?)",
                     np, 4, NULL, NULL, &err),
           &err);
  cat_names_t l;
  CHECK_OK(cat_table_list(c, "db", &l, &err), &err);
  CHECK_NAMES(l, "a", "b", "old", "t");
  cat_names_free(&l);
  CHECK_OK(cat_table_load(c, "db", "old", &loc, &err), &err);
  CHECK_STR(loc, "file:///m/old.json");
  fl_free(loc);
  CHECK_ERR(cat_table_list(c, "nope", &l, &err), FL_ENOTFOUND);
  CHECK_ERR(cat_table_load(c, "db", "zz", &loc, &err), FL_ENOTFOUND);
  CHECK_HAS(err.msg, "'db.zz' does not exist");
  CHECK(loc == NULL);
  CHECK_ERR(cat_table_load(c, "db", "", &loc, &err), FL_EINVALID);
  CHECK_ERR(cat_table_register(c, "db", "e", "", &err), FL_EINVALID);
  /* Tables of a child namespace are not the parent's. */
  CHECK_OK(cat_ns_create(c, "db.sub", NULL, 0, &err), &err);
  CHECK_OK(cat_table_register(c, "db.sub", "deep", "file:///m/d.json", &err), &err);
  CHECK_OK(cat_table_list(c, "db", &l, &err), &err);
  CHECK_EQ(l.n, 4);
  cat_names_free(&l);
  CHECK_OK(cat_table_drop(c, "db", "t", &err), &err);
  CHECK_ERR(cat_table_load(c, "db", "t", &loc, &err), FL_ENOTFOUND);
  CHECK_ERR(cat_table_drop(c, "db", "t", &err), FL_ENOTFOUND);
  CHECK_HAS(err.msg, "'db.t' does not exist");
  /* A dropped name can be registered again. */
  CHECK_OK(cat_table_register(c, "db", "t", "file:///m/t9.json", &err), &err);
  cat_close(c);

  /* Everything is in the database: a new connection sees it. */
  CHECK_OK(be_open(be, &c, &err), &err);
  CHECK_OK(cat_table_load(c, "db", "t", &loc, &err), &err);
  CHECK_STR(loc, "file:///m/t9.json");
  fl_free(loc);
  CHECK_OK(cat_table_list(c, "db.sub", &l, &err), &err);
  CHECK_NAMES(l, "deep");
  cat_names_free(&l);
  cat_close(c);
}

static void t_table_rename(const be_t *be) {
  fl_err_t err;
  cat_catalog_t *c;
  CHECK_OK(be_open(be, &c, &err), &err);
  CHECK_OK(cat_ns_create(c, "x", NULL, 0, &err), &err);
  CHECK_OK(cat_ns_create(c, "y", NULL, 0, &err), &err);
  CHECK_OK(cat_table_register(c, "x", "t", "file:///m/t.json", &err), &err);
  CHECK_OK(cat_table_register(c, "x", "u", "file:///m/u.json", &err), &err);
  CHECK_OK(cat_table_rename(c, "x", "t", "y", "t2", &err), &err);
  char *loc;
  CHECK_ERR(cat_table_load(c, "x", "t", &loc, &err), FL_ENOTFOUND);
  CHECK_OK(cat_table_load(c, "y", "t2", &loc, &err), &err);
  CHECK_STR(loc, "file:///m/t.json");
  fl_free(loc);
  /* Onto a taken name: refused, both unchanged. */
  CHECK_ERR(cat_table_rename(c, "y", "t2", "x", "u", &err), FL_EEXISTS);
  CHECK_HAS(err.msg, "'x.u' already exists");
  CHECK_OK(cat_table_load(c, "x", "u", &loc, &err), &err);
  CHECK_STR(loc, "file:///m/u.json");
  fl_free(loc);
  CHECK_OK(cat_table_load(c, "y", "t2", &loc, &err), &err);
  fl_free(loc);
  CHECK_ERR(cat_table_rename(c, "x", "gone", "y", "g", &err), FL_ENOTFOUND);
  CHECK_HAS(err.msg, "'x.gone' does not exist");
  CHECK_ERR(cat_table_rename(c, "x", "u", "nowhere", "u", &err), FL_ENOTFOUND);
  CHECK_HAS(err.msg, "'nowhere'");
  CHECK_OK(cat_table_load(c, "x", "u", &loc, &err), &err);
  fl_free(loc);
  /* The renamed table keeps committing. */
  CHECK_OK(cat_table_swap(c, "y", "t2", "file:///m/t.json", "file:///m/t-2.json", &err), &err);
  cat_names_t l;
  CHECK_OK(cat_table_list(c, "y", &l, &err), &err);
  CHECK_NAMES(l, "t2");
  cat_names_free(&l);
  cat_close(c);
}

static void t_swap(const be_t *be) {
  fl_err_t err;
  cat_catalog_t *c;
  CHECK_OK(be_open(be, &c, &err), &err);
  CHECK_OK(cat_ns_create(c, "db", NULL, 0, &err), &err);
  CHECK_OK(cat_table_register(c, "db", "t", "s3://b/m/00000.json", &err), &err);
  CHECK_OK(cat_table_swap(c, "db", "t", "s3://b/m/00000.json", "s3://b/m/00001.json", &err),
           &err);
  char *loc, *prev;
  CHECK_OK(cat_table_load(c, "db", "t", &loc, &err), &err);
  CHECK_STR(loc, "s3://b/m/00001.json");
  fl_free(loc);
  CHECK_OK(raw_previous(c, "db", "t", &prev, &err), &err);
  CHECK_STR(prev, "s3://b/m/00000.json");
  fl_free(prev);
  /* A stale old location: a retriable conflict naming the current one. */
  fl_err_clear(&err);
  CHECK_ERR(cat_table_swap(c, "db", "t", "s3://b/m/00000.json", "s3://b/m/00002.json", &err),
            FL_ECONFLICT);
  CHECK(err.retriable);
  CHECK_HAS(err.msg, "now s3://b/m/00001.json");
  CHECK_HAS(err.msg, "'db.t'");
  CHECK_OK(cat_table_load(c, "db", "t", &loc, &err), &err);
  CHECK_STR(loc, "s3://b/m/00001.json");
  fl_free(loc);
  CHECK_OK(raw_previous(c, "db", "t", &prev, &err), &err);
  CHECK_STR(prev, "s3://b/m/00000.json");
  fl_free(prev);
  CHECK_OK(cat_table_swap(c, "db", "t", "s3://b/m/00001.json", "s3://b/m/00002.json", &err),
           &err);
  CHECK_OK(raw_previous(c, "db", "t", &prev, &err), &err);
  CHECK_STR(prev, "s3://b/m/00001.json");
  fl_free(prev);
  /* Same location twice is allowed (a no-op commit). */
  CHECK_OK(cat_table_swap(c, "db", "t", "s3://b/m/00002.json", "s3://b/m/00002.json", &err),
           &err);
  fl_err_clear(&err);
  CHECK_ERR(cat_table_swap(c, "db", "gone", "a", "b", &err), FL_ENOTFOUND);
  CHECK(!err.retriable);
  CHECK_ERR(cat_table_swap(c, "db", "t", "", "b", &err), FL_EINVALID);
  CHECK_ERR(cat_table_swap(c, "db", "t", "s3://b/m/00002.json", "", &err), FL_EINVALID);
  /* A view of the same shape is not swapped as a table. */
  const char *vp[] = {cat_name(c), "db", "v", "file:///v1.json"};
  CHECK_OK(raw_query(c,
                     "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                     "metadata_location, iceberg_type) VALUES (?, ?, ?, ?, 'VIEW')",
                     vp, 4, NULL, NULL, &err),
           &err);
  CHECK_ERR(cat_table_swap(c, "db", "v", "file:///v1.json", "file:///v2.json", &err),
            FL_ENOTFOUND);
  cat_close(c);
}

static void t_swap_many(const be_t *be) {
  fl_err_t err;
  cat_catalog_t *c;
  CHECK_OK(be_open(be, &c, &err), &err);
  CHECK_OK(cat_ns_create(c, "s", NULL, 0, &err), &err);
  CHECK_OK(cat_table_register(c, "s", "t1", "m/t1-0", &err), &err);
  CHECK_OK(cat_table_register(c, "s", "t2", "m/t2-0", &err), &err);
  CHECK_OK(cat_table_register(c, "s", "t3", "m/t3-0", &err), &err);
  CHECK_OK(cat_table_swap_many(c, NULL, 0, &err), &err);
  /* Given in reverse order of the lock order. */
  cat_swap_t ok[] = {{"s", "t2", "m/t2-0", "m/t2-1"}, {"s", "t1", "m/t1-0", "m/t1-1"}};
  CHECK_OK(cat_table_swap_many(c, ok, 2, &err), &err);
  char *loc, *prev;
  CHECK_OK(cat_table_load(c, "s", "t1", &loc, &err), &err);
  CHECK_STR(loc, "m/t1-1");
  fl_free(loc);
  CHECK_OK(cat_table_load(c, "s", "t2", &loc, &err), &err);
  CHECK_STR(loc, "m/t2-1");
  fl_free(loc);
  CHECK_OK(raw_previous(c, "s", "t2", &prev, &err), &err);
  CHECK_STR(prev, "m/t2-0");
  fl_free(prev);
  /* One stale entry: nothing moves, and the error names the table. */
  cat_swap_t stale[] = {{"s", "t1", "m/t1-1", "m/t1-2"},
                        {"s", "t2", "m/t2-0", "m/t2-2"},
                        {"s", "t3", "m/t3-0", "m/t3-1"}};
  fl_err_clear(&err);
  CHECK_ERR(cat_table_swap_many(c, stale, 3, &err), FL_ECONFLICT);
  CHECK(err.retriable);
  CHECK_HAS(err.msg, "'s.t2'");
  CHECK_HAS(err.msg, "now m/t2-1");
  const char *tabs[] = {"t1", "t2", "t3"}, *want[] = {"m/t1-1", "m/t2-1", "m/t3-0"};
  for (int i = 0; i < 3; i++) {
    CHECK_OK(cat_table_load(c, "s", tabs[i], &loc, &err), &err);
    CHECK_STR(loc, want[i]);
    fl_free(loc);
  }
  CHECK_OK(raw_previous(c, "s", "t1", &prev, &err), &err);
  CHECK_STR(prev, "m/t1-0");
  fl_free(prev);
  /* A missing table: nothing moves either. */
  cat_swap_t missing[] = {{"s", "t1", "m/t1-1", "m/t1-3"}, {"s", "zz", "a", "b"}};
  CHECK_ERR(cat_table_swap_many(c, missing, 2, &err), FL_ENOTFOUND);
  CHECK_HAS(err.msg, "'s.zz'");
  CHECK_OK(cat_table_load(c, "s", "t1", &loc, &err), &err);
  CHECK_STR(loc, "m/t1-1");
  fl_free(loc);
  /* The same table twice in one commit is a caller mistake. */
  cat_swap_t twice[] = {{"s", "t3", "m/t3-0", "m/t3-1"}, {"s", "t3", "m/t3-1", "m/t3-2"}};
  CHECK_ERR(cat_table_swap_many(c, twice, 2, &err), FL_EINVALID);
  CHECK_HAS(err.msg, "twice");
  CHECK_OK(cat_table_load(c, "s", "t3", &loc, &err), &err);
  CHECK_STR(loc, "m/t3-0");
  fl_free(loc);
  /* The catalog is usable after all these rollbacks. */
  cat_swap_t all[] = {{"s", "t1", "m/t1-1", "m/t1-2"},
                      {"s", "t2", "m/t2-1", "m/t2-2"},
                      {"s", "t3", "m/t3-0", "m/t3-1"}};
  CHECK_OK(cat_table_swap_many(c, all, 3, &err), &err);
  for (int i = 0; i < 3; i++) {
    CHECK_OK(cat_table_load(c, "s", tabs[i], &loc, &err), &err);
    CHECK_STR(loc, all[i].new_location);
    fl_free(loc);
  }
  cat_close(c);
}

static void t_odd_names(const be_t *be) {
  fl_err_t err;
  cat_catalog_t *c;
  CHECK_OK(be_open(be, &c, &err), &err);
  static const char *const ns[] = {"it's", "\"quoted\"", "back\\slash", "pct%_!", "naïve.日本語",
                                   "semi;colon", "sp ace", "tab\tx", "?q?"};
  static const char *const tn[] = {"'; DROP TABLE iceberg_tables; --", "é", "emoji 🧊", "$1",
                                   "a.b"};
  size_t nns = sizeof ns / sizeof *ns, ntn = sizeof tn / sizeof *tn;
  for (size_t i = 0; i < nns; i++) {
    cat_prop_t p = {"k'ey\"", (char *)ns[i]};
    CHECK_OK(cat_ns_create(c, ns[i], &p, 1, &err), &err);
    for (size_t j = 0; j < ntn; j++) {
      char loc[256];
      snprintf(loc, sizeof loc, "file:///w/%s/%s/v1.metadata.json", ns[i], tn[j]);
      CHECK_OK(cat_table_register(c, ns[i], tn[j], loc, &err), &err);
    }
  }
  for (size_t i = 0; i < nns; i++) {
    bool ex;
    CHECK_OK(cat_ns_exists(c, ns[i], &ex, &err), &err);
    CHECK(ex);
    cat_prop_t *p;
    size_t n;
    CHECK_OK(cat_ns_properties(c, ns[i], &p, &n, &err), &err);
    CHECK_EQ(n, 1);
    CHECK_STR(p[0].key, "k'ey\"");
    CHECK_STR(p[0].value, ns[i]);
    cat_props_free(p, n);
    cat_names_t l;
    CHECK_OK(cat_table_list(c, ns[i], &l, &err), &err);
    CHECK_EQ(l.n, ntn);
    cat_names_free(&l);
    for (size_t j = 0; j < ntn; j++) {
      char want[256], *loc;
      snprintf(want, sizeof want, "file:///w/%s/%s/v1.metadata.json", ns[i], tn[j]);
      CHECK_OK(cat_table_load(c, ns[i], tn[j], &loc, &err), &err);
      CHECK_STR(loc, want);
      fl_free(loc);
    }
  }
  cat_names_t l;
  CHECK_OK(cat_ns_list(c, "naïve", &l, &err), &err);
  CHECK_NAMES(l, "naïve.日本語");
  cat_names_free(&l);
  CHECK_OK(cat_ns_list(c, NULL, &l, &err), &err);
  CHECK_EQ(l.n, nns);
  cat_names_free(&l);
  /* Lengths count characters, as PostgreSQL's VARCHAR(255) does. */
  char name[255 * 2 + 1];
  for (int i = 0; i < 255; i++) memcpy(name + 2 * i, "é", 2);
  name[510] = 0;
  CHECK_OK(cat_table_register(c, "it's", name, "file:///long", &err), &err);
  char *loc;
  CHECK_OK(cat_table_load(c, "it's", name, &loc, &err), &err);
  CHECK_STR(loc, "file:///long");
  fl_free(loc);
  char longer[257];
  memset(longer, 'n', 256);
  longer[256] = 0;
  CHECK_ERR(cat_table_register(c, "it's", longer, "file:///long", &err), FL_EINVALID);
  CHECK_HAS(err.msg, "longer than 255");
  CHECK_ERR(cat_ns_create(c, longer, NULL, 0, &err), FL_EINVALID);
  /* The schema tables are intact after the "DROP TABLE" name. */
  CHECK_OK(cat_table_drop(c, "it's", tn[0], &err), &err);
  CHECK_OK(cat_table_list(c, "it's", &l, &err), &err);
  CHECK_EQ(l.n, ntn);
  cat_names_free(&l);
  cat_close(c);
}

static void t_catalog_names(const be_t *be) {
  fl_err_t err;
  be_t other = *be;
  snprintf(other.name, sizeof other.name, "%.100s_other", be->name);
  cat_catalog_t *c, *d;
  CHECK_OK(be_open(be, &c, &err), &err);
  CHECK_OK(be_open(&other, &d, &err), &err);
  CHECK_OK(cat_ns_create(c, "shared", NULL, 0, &err), &err);
  CHECK_OK(cat_table_register(c, "shared", "t", "file:///c.json", &err), &err);
  bool ex;
  CHECK_OK(cat_ns_exists(d, "shared", &ex, &err), &err);
  CHECK(!ex);
  /* The same names are free in the other catalog. */
  CHECK_OK(cat_ns_create(d, "shared", NULL, 0, &err), &err);
  CHECK_OK(cat_table_register(d, "shared", "t", "file:///d.json", &err), &err);
  CHECK_OK(cat_table_swap(d, "shared", "t", "file:///d.json", "file:///d2.json", &err), &err);
  char *loc;
  CHECK_OK(cat_table_load(c, "shared", "t", &loc, &err), &err);
  CHECK_STR(loc, "file:///c.json");
  fl_free(loc);
  CHECK_OK(cat_table_drop(d, "shared", "t", &err), &err);
  CHECK_OK(cat_ns_drop(d, "shared", &err), &err);
  CHECK_OK(cat_ns_exists(c, "shared", &ex, &err), &err);
  CHECK(ex);
  cat_names_t l;
  CHECK_OK(cat_ns_list(d, NULL, &l, &err), &err);
  CHECK_EMPTY(l);
  cat_close(d);
  cat_close(c);
}

/* ---- concurrent writers ---- */

#define RACE_WRITERS 2

/* Waits for the go byte, then commits `swaps` times to tables tabs[0..ntab)
 * of namespace "race" (all at once through swap_many when ntab > 1),
 * reloading after each conflict. Writes "old new" per successful commit of
 * tabs[0] to out. Returns the process exit status. */
static int race_writer(const be_t *be, int id, int swaps, const char *const *tabs, int ntab,
                       int go_fd, const char *out) {
  char go;
  if (read(go_fd, &go, 1) != 1) return 10;
  fl_err_t err;
  cat_catalog_t *c;
  if (be_open(be, &c, &err)) {
    fprintf(stderr, "writer %d: open: %s\n", id, err.msg);
    return 11;
  }
  FILE *f = fopen(out, "w");
  if (!f) return 12;
  int done = 0, conflicts = 0, status = 0;
  unsigned seed = (unsigned)getpid();
  while (done < swaps) {
    if (conflicts > 1000 * swaps) {
      fprintf(stderr, "writer %d: no progress after %d conflicts\n", id, conflicts);
      status = 13;
      break;
    }
    char *cur[4] = {0};
    cat_swap_t sw[4];
    char next[4][64];
    int rc = FL_OK;
    for (int i = 0; i < ntab && !rc; i++) {
      rc = cat_table_load(c, "race", tabs[i], &cur[i], &err);
      snprintf(next[i], sizeof next[i], "mem://%s/w%d-%d", tabs[i], id, done);
      sw[i] = (cat_swap_t){"race", tabs[i], cur[i], next[i]};
    }
    /* A real commit writes its metadata file here: the other writer
     * gets a chance to move the table meanwhile. */
    usleep((useconds_t)(rand_r(&seed) % 2000));
    if (!rc)
      rc = ntab == 1 ? cat_table_swap(c, "race", tabs[0], cur[0], next[0], &err)
                     : cat_table_swap_many(c, sw, (size_t)ntab, &err);
    if (!rc) {
      fprintf(f, "%s %s\n", cur[0], next[0]);
      done++;
    } else if (rc == FL_ECONFLICT && err.retriable) {
      conflicts++;
    } else {
      fprintf(stderr, "writer %d: %s: %s\n", id, fl_code_name(rc), err.msg);
      status = 14;
    }
    for (int i = 0; i < ntab; i++) fl_free(cur[i]);
    if (status) break;
  }
  fclose(f);
  cat_close(c);
  if (getenv("FLOE_TEST_VERBOSE"))
    fprintf(stderr, "writer %d: %d commits, %d conflicts\n", id, done, conflicts);
  return status;
}

/* Runs RACE_WRITERS forked writers of `swaps` commits each on fresh tables
 * and checks the result: exactly the expected number of successes, each
 * from the location the previous one left, ending at the catalog's
 * current location with previous_metadata_location the one before. */
static void race(const be_t *be, int swaps, const char *const *tabs, int ntab) {
  fl_err_t err;
  cat_catalog_t *c;
  CHECK_OK(be_open(be, &c, &err), &err);
  CHECK_OK(cat_ns_create(c, "race", NULL, 0, &err), &err);
  for (int i = 0; i < ntab; i++) {
    char loc[64];
    snprintf(loc, sizeof loc, "mem://%s/start", tabs[i]);
    CHECK_OK(cat_table_register(c, "race", tabs[i], loc, &err), &err);
  }
  cat_close(c);

  int go[2];
  CHECK(pipe(go) == 0);
  char outs[RACE_WRITERS][700];
  pid_t pids[RACE_WRITERS];
  fflush(NULL);
  for (int w = 0; w < RACE_WRITERS; w++) {
    snprintf(outs[w], sizeof outs[w], "%s/%s-%d-w%d.txt", t_tmpdir(), tabs[0], ntab, w);
    pids[w] = fork();
    CHECK(pids[w] >= 0);
    if (pids[w] == 0) {
      close(go[1]);
      _exit(race_writer(be, w, swaps, tabs, ntab, go[0], outs[w]));
    }
  }
  close(go[0]);
  char bytes[RACE_WRITERS] = {0};
  CHECK(write(go[1], bytes, RACE_WRITERS) == RACE_WRITERS);
  close(go[1]);
  int failed = 0;
  for (int w = 0; w < RACE_WRITERS; w++) {
    int st;
    CHECK(waitpid(pids[w], &st, 0) == pids[w]);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) failed++;
  }
  CHECK_EQ(failed, 0);

  /* Collect every success as a link old -> new. */
  int total = RACE_WRITERS * swaps;
  char(*olds)[64] = fl_calloc((size_t)total, 64), (*news)[64] = fl_calloc((size_t)total, 64);
  int nlinks = 0;
  for (int w = 0; w < RACE_WRITERS; w++) {
    FILE *f = fopen(outs[w], "r");
    CHECK(f != NULL);
    char a[64], b[64];
    while (fscanf(f, "%63s %63s", a, b) == 2) {
      CHECK(nlinks < total);
      snprintf(olds[nlinks], 64, "%s", a);
      snprintf(news[nlinks], 64, "%s", b);
      nlinks++;
    }
    fclose(f);
  }
  CHECK_EQ(nlinks, total);
  /* Walk the chain from the start: every location is left exactly once. */
  char cur[64];
  snprintf(cur, sizeof cur, "mem://%s/start", tabs[0]);
  char last_old[64] = "";
  int handovers = 0;
  for (int step = 0; step < total; step++) {
    int found = -1, count = 0;
    for (int i = 0; i < nlinks; i++)
      if (!strcmp(olds[i], cur)) {
        found = i;
        count++;
      }
    if (count != 1) {
      t_fail(__FILE__, __LINE__, "location %s was committed from %d times", cur, count);
      return;
    }
    snprintf(last_old, sizeof last_old, "%s", cur);
    if (step > 0 && strncmp(strrchr(cur, '/'), strrchr(news[found], '/'), 3) != 0) handovers++;
    snprintf(cur, sizeof cur, "%s", news[found]);
  }
  if (getenv("FLOE_TEST_VERBOSE") || handovers < 2)
    fprintf(stderr, "  race on %s: the chain changed writers %d times%s\n", tabs[0], handovers,
            handovers < 2 ? " (the writers hardly overlapped: a weak test run)" : "");
  fl_free(olds);
  fl_free(news);

  CHECK_OK(be_open(be, &c, &err), &err);
  char *loc, *prev;
  CHECK_OK(cat_table_load(c, "race", tabs[0], &loc, &err), &err);
  CHECK_STR(loc, cur);
  fl_free(loc);
  CHECK_OK(raw_previous(c, "race", tabs[0], &prev, &err), &err);
  CHECK_STR(prev, last_old);
  fl_free(prev);
  /* Multi-table commits moved every table together: all end at the same
   * writer's same step. */
  const char *step = strrchr(cur, '/');
  for (int i = 1; i < ntab; i++) {
    CHECK_OK(cat_table_load(c, "race", tabs[i], &loc, &err), &err);
    char want[64];
    snprintf(want, sizeof want, "mem://%s%s", tabs[i], step);
    CHECK_STR(loc, want);
    fl_free(loc);
  }
  cat_close(c);
}

static int race_swaps(void) {
  const char *s = getenv("FLOE_TEST_RACE_SWAPS");
  int n = s ? atoi(s) : 0;
  return n > 0 ? n : 100;
}

static void t_race_swap(const be_t *be) {
  static const char *const tabs[] = {"single"};
  race(be, race_swaps(), tabs, 1);
}

static void t_race_swap_many(const be_t *be) {
  static const char *const tabs[] = {"m1", "m2", "m3"};
  race(be, race_swaps() / 2 + 1, tabs, 3);
}

/* Both writers try to create the same namespaces: each is created once. */
static void t_race_ns_create(const be_t *be) {
  enum { NNS = 30 };
  fflush(NULL);
  int go[2];
  CHECK(pipe(go) == 0);
  int res[2];
  CHECK(pipe(res) == 0);
  pid_t pids[RACE_WRITERS];
  for (int w = 0; w < RACE_WRITERS; w++) {
    pids[w] = fork();
    CHECK(pids[w] >= 0);
    if (pids[w] == 0) {
      close(go[1]);
      close(res[0]);
      char b;
      if (read(go[0], &b, 1) != 1) _exit(10);
      fl_err_t err;
      cat_catalog_t *c;
      if (be_open(be, &c, &err)) {
        fprintf(stderr, "writer %d: open: %s\n", w, err.msg);
        _exit(11);
      }
      char created = 0;
      for (int i = 0; i < NNS; i++) {
        char ns[32];
        snprintf(ns, sizeof ns, "c%02d", i);
        int rc = cat_ns_create(c, ns, NULL, 0, &err);
        if (rc == FL_OK) {
          created++;
        } else if (rc != FL_EEXISTS) {
          fprintf(stderr, "writer %d: %s: %s\n", w, fl_code_name(rc), err.msg);
          _exit(12);
        }
      }
      cat_close(c);
      _exit(write(res[1], &created, 1) == 1 ? 0 : 13);
    }
  }
  close(go[0]);
  close(res[1]);
  char bytes[RACE_WRITERS] = {0};
  CHECK(write(go[1], bytes, RACE_WRITERS) == RACE_WRITERS);
  close(go[1]);
  int failed = 0, created = 0;
  for (int w = 0; w < RACE_WRITERS; w++) {
    int st;
    CHECK(waitpid(pids[w], &st, 0) == pids[w]);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) failed++;
  }
  char b;
  while (read(res[0], &b, 1) == 1) created += b;
  close(res[0]);
  CHECK_EQ(failed, 0);
  CHECK_EQ(created, NNS);
  fl_err_t err;
  cat_catalog_t *c;
  CHECK_OK(be_open(be, &c, &err), &err);
  cat_names_t l;
  CHECK_OK(cat_ns_list(c, NULL, &l, &err), &err);
  CHECK_EQ(l.n, NNS);
  cat_names_free(&l);
  cat_close(c);
}

/* Two writers that meet step by step: at each step writer 0 registers a
 * table into namespace d<step> while writer 1 drops that namespace.
 * Whatever the order, exactly one of them may succeed: a drop that wins
 * leaves nowhere to register, a registration that wins makes the
 * namespace non-empty. */
static int drop_vs_register(cat_catalog_t *c, int who, int step, fl_err_t *err) {
  char ns[32];
  snprintf(ns, sizeof ns, "d%03d", step);
  if (who == 0) return cat_table_register(c, ns, "t", "file:///m/t.json", err);
  return cat_ns_drop(c, ns, err);
}

static void t_race_drop_register(const be_t *be) {
  enum { STEPS = 40 };
  fl_err_t err;
  cat_catalog_t *c;
  CHECK_OK(be_open(be, &c, &err), &err);
  for (int i = 0; i < STEPS; i++) {
    char ns[32];
    snprintf(ns, sizeof ns, "d%03d", i);
    CHECK_OK(cat_ns_create(c, ns, NULL, 0, &err), &err);
  }
  cat_close(c);
  int go[2][2], done[2][2];
  pid_t pids[2];
  fflush(NULL);
  for (int w = 0; w < 2; w++) CHECK(pipe(go[w]) == 0 && pipe(done[w]) == 0);
  for (int w = 0; w < 2; w++) {
    pids[w] = fork();
    CHECK(pids[w] >= 0);
    if (pids[w] == 0) {
      /* Only this writer's ends stay open, so that each sees the end of
       * its go pipe when the parent closes it. */
      for (int o = 0; o < 2; o++) {
        close(go[o][1]);
        close(done[o][0]);
        if (o != w) {
          close(go[o][0]);
          close(done[o][1]);
        }
      }
      cat_catalog_t *wc;
      fl_err_t e;
      if (be_open(be, &wc, &e)) _exit(10);
      char b;
      for (int i = 0; read(go[w][0], &b, 1) == 1; i++) {
        int rc = drop_vs_register(wc, w, i, &e);
        char r = rc == FL_OK ? 1 : (rc == FL_ENOTFOUND || rc == FL_EINVALID) ? 0 : 2;
        if (r == 2) fprintf(stderr, "writer %d: %s: %s\n", w, fl_code_name(rc), e.msg);
        if (write(done[w][1], &r, 1) != 1) _exit(11);
      }
      cat_close(wc);
      _exit(0);
    }
  }
  for (int w = 0; w < 2; w++) {
    close(go[w][0]);
    close(done[w][1]);
  }
  int both = 0, neither = 0, errors = 0, drops = 0;
  for (int i = 0; i < STEPS; i++) {
    char r[2] = {0, 0};
    for (int w = 0; w < 2; w++) CHECK(write(go[w][1], "g", 1) == 1);
    for (int w = 0; w < 2; w++) CHECK(read(done[w][0], &r[w], 1) == 1);
    if (r[0] == 2 || r[1] == 2) errors++;
    else if (r[0] && r[1]) both++;
    else if (!r[0] && !r[1]) neither++;
    drops += r[1] == 1;
  }
  for (int w = 0; w < 2; w++) {
    close(go[w][1]);
    close(done[w][0]);
  }
  for (int w = 0; w < 2; w++) {
    int st;
    CHECK(waitpid(pids[w], &st, 0) == pids[w]);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  CHECK_EQ(errors, 0);
  CHECK_EQ(both, 0);
  CHECK_EQ(neither, 0);
  /* The catalog agrees: a namespace is left exactly where the table won. */
  CHECK_OK(be_open(be, &c, &err), &err);
  cat_names_t l;
  CHECK_OK(cat_ns_list(c, NULL, &l, &err), &err);
  CHECK_EQ(l.n, STEPS - drops);
  for (size_t i = 0; i < l.n; i++) {
    char *loc;
    CHECK_OK(cat_table_load(c, l.items[i], "t", &loc, &err), &err);
    fl_free(loc);
  }
  cat_names_free(&l);
  cat_close(c);
  if (getenv("FLOE_TEST_VERBOSE"))
    fprintf(stderr, "  drop won %d of %d steps\n", drops, STEPS);
}

/* ---- registration: each behaviour on each back end ---- */

#define CAT_TESTS(X) \
  X(ns_create)       \
  X(ns_nested)       \
  X(ns_update)       \
  X(ns_drop)         \
  X(table_basic)     \
  X(table_rename)    \
  X(swap)            \
  X(swap_many)       \
  X(odd_names)       \
  X(catalog_names)   \
  X(race_swap)       \
  X(race_swap_many)  \
  X(race_ns_create)   \
  X(race_drop_register)

#define CAT_WRAP(name)                   \
  static void sqlite_##name(void) {      \
    be_t be;                             \
    be_init(&be, false, #name);          \
    t_##name(&be);                       \
  }                                      \
  static void pg_##name(void) {          \
    be_t be;                             \
    be_init(&be, true, #name);           \
    t_##name(&be);                       \
  }
CAT_TESTS(CAT_WRAP)

__attribute__((constructor)) static void register_catalog_tests(void) {
  const char *pg = getenv("FLOE_TEST_PG_URI");
  bool with_pg = pg && *pg;
#define CAT_REG(name)                                   \
  t_register("sqlite_" #name, sqlite_##name);           \
  if (with_pg) t_register("pg_" #name, pg_##name);
  CAT_TESTS(CAT_REG)
#undef CAT_REG
  if (!with_pg)
    fprintf(stderr, "test_catalog: FLOE_TEST_PG_URI is not set: PostgreSQL tests not run\n");
}

/* ---- back-end independent ---- */

TEST(split_ident) {
  fl_err_t err;
  char *ns, *name;
  CHECK_OK(cat_split_ident("a.b.t", &ns, &name, &err), &err);
  CHECK_STR(ns, "a.b");
  CHECK_STR(name, "t");
  fl_free(ns);
  fl_free(name);
  CHECK_ERR(cat_split_ident("t", &ns, &name, &err), FL_EINVALID);
  CHECK_HAS(err.msg, "'t' needs a namespace");
  CHECK_ERR(cat_split_ident(".t", &ns, &name, &err), FL_EINVALID);
  CHECK_ERR(cat_split_ident("a.", &ns, &name, &err), FL_EINVALID);
}

/* The URI forms that open the same SQLite file. */
TEST(sqlite_uri_forms) {
  fl_err_t err;
  char wh[600];
  snprintf(wh, sizeof wh, "%s/wh", t_tmpdir());
  cat_catalog_t *c;
  /* The default: <warehouse>/catalog.db, the warehouse created. */
  CHECK_OK(cat_open(NULL, wh, NULL, &c, &err), &err);
  CHECK_STR(cat_name(c), "floe");
  CHECK_STR(cat_warehouse(c), wh);
  CHECK_OK(cat_ns_create(c, "here", NULL, 0, &err), &err);
  cat_close(c);
  char file_wh[700];
  snprintf(file_wh, sizeof file_wh, "file://%s", wh);
  const char *forms[] = {"", "sqlite:", NULL, NULL};
  char f1[700], f2[700];
  snprintf(f1, sizeof f1, "sqlite:%s/catalog.db", wh);
  snprintf(f2, sizeof f2, "sqlite:///%s/catalog.db", wh);
  forms[2] = f1;
  forms[3] = f2;
  for (int i = 0; i < 4; i++) {
    CHECK_OK(cat_open(forms[i], i == 1 ? file_wh : wh, "floe", &c, &err), &err);
    bool ex;
    CHECK_OK(cat_ns_exists(c, "here", &ex, &err), &err);
    if (!ex) t_fail(__FILE__, __LINE__, "URI '%s' opened another database", forms[i]);
    cat_close(c);
  }
  /* sqlite:///rel is relative to the working directory, as in SQLAlchemy. */
  char cwd[600];
  CHECK(getcwd(cwd, sizeof cwd) != NULL);
  CHECK(chdir(wh) == 0);
  int rc = cat_open("sqlite:///catalog.db", NULL, NULL, &c, &err);
  CHECK(chdir(cwd) == 0);
  CHECK_OK(rc, &err);
  bool ex;
  CHECK_OK(cat_ns_exists(c, "here", &ex, &err), &err);
  CHECK(ex);
  cat_close(c);
}

/* Bad URIs and unusable databases give errors that say what is wrong. */
TEST(hostile_uris) {
  fl_err_t err;
  cat_catalog_t *c = (cat_catalog_t *)&err;
  CHECK_ERR(cat_open("mysql://h/db", "/tmp", NULL, &c, &err), FL_EINVALID);
  CHECK(c == NULL);
  CHECK_HAS(err.msg, "unsupported scheme 'mysql'");
  CHECK_ERR(cat_open("just-a-word", "/tmp", NULL, &c, &err), FL_EINVALID);
  CHECK_HAS(err.msg, "unsupported scheme");
  CHECK_ERR(cat_open("sqlite://host/x.db", "/tmp", NULL, &c, &err), FL_EINVALID);
  CHECK_HAS(err.msg, "no host");
  CHECK_ERR(cat_open("", NULL, NULL, &c, &err), FL_EINVALID);
  CHECK_HAS(err.msg, "warehouse");
  CHECK_ERR(cat_open("postgresql+psycopg2:nothing", NULL, NULL, &c, &err), FL_EINVALID);
  CHECK_HAS(err.msg, "catalog URI");

  char path[700];
  snprintf(path, sizeof path, "sqlite:%s/no/such/dir/c.db", t_tmpdir());
  CHECK_ERR(cat_open(path, NULL, NULL, &c, &err), FL_EIO);
  CHECK_HAS(err.msg, "no/such/dir/c.db");
  CHECK_HAS(err.msg, "cannot open");
  /* A file that is not a database. */
  char junk[600];
  snprintf(junk, sizeof junk, "%s/junk.db", t_tmpdir());
  FILE *f = fopen(junk, "w");
  CHECK(f != NULL);
  for (int i = 0; i < 200; i++) fputs("this is not an SQLite database at all\n", f);
  fclose(f);
  snprintf(path, sizeof path, "sqlite:%s", junk);
  CHECK_ERR(cat_open(path, NULL, NULL, &c, &err), FL_EIO);
  CHECK_HAS(err.msg, "junk.db");
  CHECK_HAS(err.msg, "not a database");
  if (strlen(err.msg) > 300) t_fail(__FILE__, __LINE__, "message too long: %s", err.msg);
  /* A directory. */
  snprintf(path, sizeof path, "sqlite:%s", t_tmpdir());
  CHECK_ERR(cat_open(path, NULL, NULL, &c, &err), FL_EIO);
  /* A read-only database: opening works, writing says why it fails. */
  if (geteuid() != 0) {
    char ro[600];
    snprintf(ro, sizeof ro, "%s/ro.db", t_tmpdir());
    snprintf(path, sizeof path, "sqlite:%s", ro);
    CHECK_OK(cat_open(path, NULL, NULL, &c, &err), &err);
    cat_close(c);
    CHECK(chmod(ro, 0444) == 0);
    CHECK_OK(cat_open(path, NULL, NULL, &c, &err), &err);
    CHECK_ERR(cat_ns_create(c, "x", NULL, 0, &err), FL_EIO);
    CHECK_HAS(err.msg, "readonly");
    cat_close(c);
  }

  /* PostgreSQL: nobody listens on port 1; the password is never shown. */
  fl_err_clear(&err);
  CHECK_ERR(cat_open("postgresql://u:s3cr3t@127.0.0.1:1/db", NULL, NULL, &c, &err), FL_EIO);
  CHECK(err.retriable);
  CHECK_HAS(err.msg, "host 127.0.0.1 port 1 database db");
  CHECK_HAS(err.msg, "cannot connect");
  CHECK_HAS(err.msg, "Connection refused");
  CHECK(!strchr(err.msg, '\n'));
  CHECK(!strstr(err.msg, "s3cr3t"));
  CHECK_ERR(cat_open("postgresql+psycopg2://u:s3cr3t@127.0.0.1:1/db", NULL, NULL, &c, &err),
            FL_EIO);
  CHECK(!strstr(err.msg, "s3cr3t"));
  CHECK_ERR(cat_open("postgresql://u:s3cr3t@127.0.0.1:1/db?bogus_option=1", NULL, NULL, &c, &err),
            FL_EIO);
  CHECK_HAS(err.msg, "bogus_option");
  CHECK(!strstr(err.msg, "s3cr3t"));
  CHECK_ERR(cat_open("postgresql://%zz@127.0.0.1/db", NULL, NULL, &c, &err), FL_EIO);
  CHECK_HAS(err.msg, "percent");
  CHECK_ERR(cat_open("postgres://[::1/db", NULL, NULL, &c, &err), FL_EIO);
  CHECK(c == NULL);
}

/* A database made by an older client without the iceberg_type column
 * (the JDBC catalog's V0 schema) is used as it is. */
TEST(sqlite_v0_schema) {
  fl_err_t err;
  char path[700];
  snprintf(path, sizeof path, "sqlite:%s/v0.db", t_tmpdir());
  cat_catalog_t *c;
  CHECK_OK(cat_open(path, NULL, NULL, &c, &err), &err);
  /* Replace the fresh schema by the V0 one. */
  CHECK_OK(c->drv->exec(c, "DROP TABLE iceberg_tables", &err), &err);
  CHECK_OK(c->drv->exec(c,
                        "CREATE TABLE iceberg_tables (catalog_name VARCHAR(255) NOT NULL, "
                        "table_namespace VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT "
                        "NULL, metadata_location VARCHAR(1000), previous_metadata_location "
                        "VARCHAR(1000), PRIMARY KEY (catalog_name, table_namespace, table_name))",
                        &err),
           &err);
  cat_close(c);
  CHECK_OK(cat_open(path, NULL, NULL, &c, &err), &err);
  CHECK(!c->v1);
  CHECK_OK(cat_ns_create(c, "db", NULL, 0, &err), &err);
  CHECK_OK(cat_table_register(c, "db", "t", "m0", &err), &err);
  CHECK_OK(cat_table_swap(c, "db", "t", "m0", "m1", &err), &err);
  cat_names_t l;
  CHECK_OK(cat_table_list(c, "db", &l, &err), &err);
  CHECK_NAMES(l, "t");
  cat_names_free(&l);
  CHECK_OK(cat_table_rename(c, "db", "t", "db", "u", &err), &err);
  char *loc;
  CHECK_OK(cat_table_load(c, "db", "u", &loc, &err), &err);
  CHECK_STR(loc, "m1");
  fl_free(loc);
  CHECK_OK(cat_table_drop(c, "db", "u", &err), &err);
  cat_close(c);
}

/* While another connection holds the write lock, a writer waits for it
 * instead of failing. */
TEST(sqlite_waits_for_lock) {
  fl_err_t err;
  char path[700];
  snprintf(path, sizeof path, "sqlite:%s/lock.db", t_tmpdir());
  cat_catalog_t *c;
  CHECK_OK(cat_open(path, NULL, NULL, &c, &err), &err);
  CHECK_OK(cat_ns_create(c, "db", NULL, 0, &err), &err);
  CHECK_OK(cat_table_register(c, "db", "t", "m0", &err), &err);
  cat_close(c);
  int ready[2];
  CHECK(pipe(ready) == 0);
  fflush(NULL);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    close(ready[0]);
    cat_catalog_t *h;
    fl_err_t e;
    if (cat_open(path, NULL, NULL, &h, &e)) _exit(10);
    if (h->drv->exec(h, "BEGIN EXCLUSIVE", &e)) _exit(11);
    if (write(ready[1], "x", 1) != 1) _exit(12);
    usleep(700 * 1000);
    if (h->drv->exec(h, "COMMIT", &e)) _exit(13);
    cat_close(h);
    _exit(0);
  }
  close(ready[1]);
  char b;
  CHECK(read(ready[0], &b, 1) == 1);
  close(ready[0]);
  CHECK_OK(cat_open(path, NULL, NULL, &c, &err), &err);
  CHECK_OK(cat_table_swap(c, "db", "t", "m0", "m1", &err), &err);
  CHECK_OK(cat_ns_create(c, "other", NULL, 0, &err), &err);
  int st;
  CHECK(waitpid(pid, &st, 0) == pid);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  char *loc;
  CHECK_OK(cat_table_load(c, "db", "t", &loc, &err), &err);
  CHECK_STR(loc, "m1");
  fl_free(loc);
  cat_close(c);
}
