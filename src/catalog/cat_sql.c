/*
 * cat_sql.c - the catalog's logic, written once as SQL over the driver
 * interface of cat_sql_int.h (layer 6).
 *
 * The statements follow Iceberg's JDBC catalog (Java JdbcCatalog/JdbcUtil)
 * and PyIceberg's SqlCatalog so that all three share one database:
 *  - a namespace exists when a property row names it or a table lives in
 *    it, or when a namespace below it exists ("a" exists once "a.b" does);
 *  - a namespace created without properties gets "exists" = "true";
 *  - listing the children of "a" truncates every deeper namespace found
 *    in either table to one more level ("a.b" for "a.b.c");
 *  - rows with iceberg_type other than 'TABLE' (views) are not tables;
 *    NULL counts as a table (rows written by V0 schema clients);
 *  - a commit is one UPDATE ... WHERE metadata_location = old; one row
 *    changed is success.
 * LIKE is only a coarse filter (it folds ASCII case in SQLite): every
 * prefix match is checked again here byte for byte. Sorting is done here
 * too, so that both back ends give the same order whatever their collation.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "catalog/cat_sql_int.h"

#define NS_MAX 255
#define KEY_MAX 255
#define VALUE_MAX 1000

char *cat__sprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = fl_malloc((size_t)(n < 0 ? 0 : n) + 1);
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

const char *cat__sql_what(const char *sql, char *buf, size_t n) {
  size_t len = strcspn(sql, "(");
  while (len > 0 && sql[len - 1] == ' ') len--;
  if (len >= n) len = n - 1;
  memcpy(buf, sql, len);
  buf[len] = '\0';
  return buf;
}

/* ---- small statement helpers ---- */

/* The iceberg_type condition of table lookups ("" on V0 schemas). */
static const char *tf(const cat_catalog_t *c) {
  return c->v1 ? " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)" : "";
}

/* Prepares sql (a constant, with "%s" standing for the type filter when
 * filtered) and binds n text parameters. */
static int q_start(cat_catalog_t *c, const char *sql, bool filtered, const char *const *p, int n,
                   cat_stmt_t **out, fl_err_t *err) {
  char buf[1024];
  if (filtered) {
    snprintf(buf, sizeof buf, sql, tf(c));
    sql = buf;
  }
  cat_stmt_t *s = NULL;
  int rc = c->drv->prepare(c, sql, &s, err);
  if (rc) return rc;
  for (int i = 0; i < n; i++) {
    rc = c->drv->bind_text(s, i + 1, p[i], err);
    if (rc) {
      c->drv->finalize(s);
      return rc;
    }
  }
  *out = s;
  return FL_OK;
}

/* Runs a statement without result rows; *changes may be NULL. */
static int q_exec(cat_catalog_t *c, const char *sql, bool filtered, const char *const *p, int n,
                  long *changes, fl_err_t *err) {
  cat_stmt_t *s;
  int rc = q_start(c, sql, filtered, p, n, &s, err);
  if (rc) return rc;
  bool row;
  rc = c->drv->step(s, &row, err);
  if (!rc && changes) *changes = c->drv->changes(s);
  c->drv->finalize(s);
  return rc;
}

/* Appends the first column of every row (NULLs skipped) to out. */
static int q_strings(cat_catalog_t *c, const char *sql, bool filtered, const char *const *p,
                     int n, cat_names_t *out, fl_err_t *err) {
  cat_stmt_t *s;
  int rc = q_start(c, sql, filtered, p, n, &s, err);
  if (rc) return rc;
  size_t cap = out->n;
  for (;;) {
    bool row;
    rc = c->drv->step(s, &row, err);
    if (rc || !row) break;
    const char *v = c->drv->column_text(s, 0);
    if (!v) continue;
    if (out->n == cap) {
      cap = cap ? cap * 2 : 8;
      out->items = fl_realloc(out->items, cap * sizeof *out->items);
    }
    out->items[out->n++] = fl_strdup(v);
  }
  c->drv->finalize(s);
  return rc;
}

static int tx_begin(cat_catalog_t *c, fl_err_t *err) { return c->drv->exec(c, c->drv->begin_sql, err); }

static void tx_rollback(cat_catalog_t *c) {
  fl_err_t ignore;
  fl_err_clear(&ignore);
  c->drv->exec(c, "ROLLBACK", &ignore);
}

/* Commits, or rolls back when that fails (a busy SQLite commit). */
static int tx_commit(cat_catalog_t *c, fl_err_t *err) {
  int rc = c->drv->exec(c, "COMMIT", err);
  if (rc) tx_rollback(c);
  return rc;
}

/* Ends a transaction with rc: commits on success, else rolls back. */
static int tx_end(cat_catalog_t *c, int rc, fl_err_t *err) {
  if (rc) {
    tx_rollback(c);
    return rc;
  }
  return tx_commit(c, err);
}

#define TX_ATTEMPTS 20

typedef int (*tx_body_t)(cat_catalog_t *c, void *arg, fl_err_t *err);

/*
 * Runs body in one transaction and commits it. When the database
 * refused the transaction for a concurrent one (a PostgreSQL
 * serialization failure or deadlock, flagged by the driver in
 * c->tx_retry) the whole transaction runs again, after a short random
 * pause, up to TX_ATTEMPTS times: its checks then see what the other
 * writer did. Any other failure is returned as it is.
 */
static int tx_run(cat_catalog_t *c, tx_body_t body, void *arg, fl_err_t *err) {
  int rc = FL_OK;
  for (int attempt = 0; attempt < TX_ATTEMPTS; attempt++) {
    if (attempt > 0) {
      int cap_us = 1000 << (attempt < 8 ? attempt : 8);
      struct timespec pause = {0, (long)(rand_r(&c->tx_seed) % cap_us) * 1000L};
      nanosleep(&pause, NULL);
    }
    c->tx_retry = false;
    rc = tx_begin(c, err);
    if (!rc) rc = tx_end(c, body(c, arg, err), err);
    if (!rc || !c->tx_retry) return rc;
  }
  if (err) fl_err_prefix(err, "gave up after %d attempts: ", TX_ATTEMPTS);
  return rc;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts and removes duplicates. */
static void names_sort_unique(cat_names_t *n) {
  if (n->n < 2) return;
  qsort(n->items, n->n, sizeof *n->items, cmp_str);
  size_t w = 1;
  for (size_t i = 1; i < n->n; i++) {
    if (strcmp(n->items[i], n->items[w - 1]) == 0)
      fl_free(n->items[i]);
    else
      n->items[w++] = n->items[i];
  }
  n->n = w;
}

/* ---- argument checks ---- */

/* Characters of UTF-8 text (PostgreSQL's VARCHAR(n) counts characters). */
static size_t utf8_chars(const char *s) {
  size_t n = 0;
  for (; *s; s++)
    if (((unsigned char)*s & 0xC0) != 0x80) n++;
  return n;
}

static int check_text(const char *what, const char *s, size_t max, fl_err_t *err) {
  if (!s || !*s) return fl_err_set(err, FL_EINVALID, "%s is empty", what);
  if (utf8_chars(s) > max)
    return fl_err_set(err, FL_EINVALID, "%s is longer than %zu characters", what, max);
  return FL_OK;
}

static int check_ns(const char *ns, fl_err_t *err) {
  int rc = check_text("namespace name", ns, NS_MAX, err);
  if (rc) return rc;
  size_t n = strlen(ns);
  if (ns[0] == '.' || ns[n - 1] == '.' || strstr(ns, ".."))
    return fl_err_set(err, FL_EINVALID, "namespace '%s' has an empty level", ns);
  return FL_OK;
}

static int check_table(const char *ns, const char *name, fl_err_t *err) {
  int rc = check_ns(ns, err);
  if (!rc) rc = check_text("table name", name, NS_MAX, err);
  return rc;
}

/* The LIKE pattern of everything below ns: "ns." with !, _ and % escaped. */
static char *below_pattern(const char *ns) {
  fl_buf_t b;
  fl_buf_init(&b);
  for (const char *p = ns; *p; p++) {
    if (*p == '!' || *p == '_' || *p == '%') fl_buf_append_u8(&b, '!');
    fl_buf_append_u8(&b, (uint8_t)*p);
  }
  fl_buf_append_str(&b, ".%");
  fl_buf_append_u8(&b, 0);
  return (char *)fl_buf_steal(&b, NULL);
}

/* True when s is ns or lies below it. */
static bool at_or_below(const char *s, const char *ns) {
  size_t n = strlen(ns);
  return strncmp(s, ns, n) == 0 && (s[n] == '\0' || s[n] == '.');
}

static const char *SQL_NS_ALL =
    "SELECT table_namespace FROM iceberg_tables WHERE catalog_name = ? AND "
    "(table_namespace = ? OR table_namespace LIKE ? ESCAPE '!') "
    "UNION SELECT namespace FROM iceberg_namespace_properties WHERE catalog_name = ? AND "
    "(namespace = ? OR namespace LIKE ? ESCAPE '!')";

/* Every namespace value at or below ns, from both tables (unsorted). */
static int ns_at_or_below(cat_catalog_t *c, const char *ns, cat_names_t *out, fl_err_t *err) {
  char *pat = below_pattern(ns);
  const char *p[] = {c->name, ns, pat, c->name, ns, pat};
  cat_names_t all = {0};
  int rc = q_strings(c, SQL_NS_ALL, false, p, 6, &all, err);
  fl_free(pat);
  if (rc) {
    cat_names_free(&all);
    return rc;
  }
  size_t w = 0;
  for (size_t i = 0; i < all.n; i++) {
    if (at_or_below(all.items[i], ns))
      all.items[w++] = all.items[i];
    else
      fl_free(all.items[i]);
  }
  all.n = w;
  *out = all;
  return FL_OK;
}

static int ns_exists(cat_catalog_t *c, const char *ns, bool *out, fl_err_t *err) {
  cat_names_t found = {0};
  int rc = ns_at_or_below(c, ns, &found, err);
  *out = !rc && found.n > 0;
  cat_names_free(&found);
  return rc;
}

static int ns_require(cat_catalog_t *c, const char *ns, fl_err_t *err) {
  bool ex;
  int rc = ns_exists(c, ns, &ex, err);
  if (rc) return rc;
  if (!ex) return fl_err_set(err, FL_ENOTFOUND, "namespace '%s' does not exist", ns);
  return FL_OK;
}

/* ---- schema ---- */

static const char *SQL_CREATE_TABLES =
    "CREATE TABLE IF NOT EXISTS iceberg_tables ("
    "catalog_name VARCHAR(255) NOT NULL, "
    "table_namespace VARCHAR(255) NOT NULL, "
    "table_name VARCHAR(255) NOT NULL, "
    "metadata_location VARCHAR(1000), "
    "previous_metadata_location VARCHAR(1000), "
    "iceberg_type VARCHAR(5), "
    "PRIMARY KEY (catalog_name, table_namespace, table_name))";

static const char *SQL_CREATE_PROPS =
    "CREATE TABLE IF NOT EXISTS iceberg_namespace_properties ("
    "catalog_name VARCHAR(255) NOT NULL, "
    "namespace VARCHAR(255) NOT NULL, "
    "property_key VARCHAR(255) NOT NULL, "
    "property_value VARCHAR(1000), "
    "PRIMARY KEY (catalog_name, namespace, property_key))";

int cat__schema_init(cat_catalog_t *c, fl_err_t *err) {
  int rc = FL_OK;
  /* Two PostgreSQL sessions creating the same table at once can collide
   * on the system catalogs (a unique violation); the second try sees the
   * table. */
  for (int attempt = 0; attempt < 5; attempt++) {
    rc = c->drv->exec(c, SQL_CREATE_TABLES, err);
    if (!rc) rc = c->drv->exec(c, SQL_CREATE_PROPS, err);
    if (!rc || (err && !err->retriable && rc != FL_EEXISTS)) break;
  }
  if (rc) return fl_err_prefix(err, "creating the catalog tables: ");
  /* The V1 schema has iceberg_type; V0 databases (older clients) do not,
   * and are used as they are. */
  fl_err_t probe;
  fl_err_clear(&probe);
  cat_stmt_t *s = NULL;
  c->v1 = false;
  if (c->drv->prepare(c, "SELECT iceberg_type FROM iceberg_tables WHERE 1 = 0", &s, &probe) ==
      FL_OK) {
    bool row;
    c->v1 = c->drv->step(s, &row, &probe) == FL_OK;
    c->drv->finalize(s);
  }
  return FL_OK;
}

/* ---- namespaces ---- */

static const char *SQL_PROP_INSERT =
    "INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, "
    "property_value) VALUES (?, ?, ?, ?)";
static const char *SQL_PROP_DELETE =
    "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ? AND "
    "property_key = ?";

static int check_props(const cat_prop_t *props, size_t n, fl_err_t *err) {
  for (size_t i = 0; i < n; i++) {
    int rc = check_text("property key", props[i].key, KEY_MAX, err);
    if (rc) return rc;
    if (!props[i].value) return fl_err_set(err, FL_EINVALID, "property '%s' has no value", props[i].key);
    if (utf8_chars(props[i].value) > VALUE_MAX)
      return fl_err_set(err, FL_EINVALID, "value of property '%s' is longer than %d characters",
                        props[i].key, VALUE_MAX);
  }
  return FL_OK;
}

typedef struct ns_create_arg {
  const char *ns;
  const cat_prop_t *props;
  size_t nprops;
} ns_create_arg_t;

static int ns_create_tx(cat_catalog_t *c, void *arg, fl_err_t *err) {
  const ns_create_arg_t *a = arg;
  bool ex;
  int rc = ns_exists(c, a->ns, &ex, err);
  if (!rc && ex) rc = fl_err_set(err, FL_EEXISTS, "namespace '%s' already exists", a->ns);
  for (size_t i = 0; !rc && i < a->nprops; i++) {
    /* The last value of a repeated key wins. */
    bool later = false;
    for (size_t j = i + 1; j < a->nprops && !later; j++)
      later = strcmp(a->props[i].key, a->props[j].key) == 0;
    if (later) continue;
    const char *p[] = {c->name, a->ns, a->props[i].key, a->props[i].value};
    rc = q_exec(c, SQL_PROP_INSERT, false, p, 4, NULL, err);
  }
  return rc;
}

int cat_ns_create(cat_catalog_t *c, const char *ns, const cat_prop_t *props, size_t nprops,
                  fl_err_t *err) {
  int rc = check_ns(ns, err);
  if (!rc) rc = check_props(props, nprops, err);
  if (rc) return rc;
  static const cat_prop_t marker = {"exists", "true"};
  if (nprops == 0) {
    props = &marker;
    nprops = 1;
  }
  ns_create_arg_t a = {ns, props, nprops};
  rc = tx_run(c, ns_create_tx, &a, err);
  /* A concurrent creator's row: a primary key violation. */
  if (rc == FL_EEXISTS && err && !strstr(err->msg, "already exists"))
    rc = fl_err_set(err, FL_EEXISTS, "namespace '%s' already exists", ns);
  return rc;
}

int cat_ns_exists(cat_catalog_t *c, const char *ns, bool *out, fl_err_t *err) {
  int rc = check_ns(ns, err);
  if (rc) return rc;
  return ns_exists(c, ns, out, err);
}

static const char *SQL_NS_LIST_ALL =
    "SELECT table_namespace FROM iceberg_tables WHERE catalog_name = ? "
    "UNION SELECT namespace FROM iceberg_namespace_properties WHERE catalog_name = ?";

int cat_ns_list(cat_catalog_t *c, const char *parent, cat_names_t *out, fl_err_t *err) {
  out->n = 0;
  out->items = NULL;
  bool top = !parent || !*parent;
  cat_names_t all = {0};
  int rc;
  if (top) {
    const char *p[] = {c->name, c->name};
    rc = q_strings(c, SQL_NS_LIST_ALL, false, p, 2, &all, err);
  } else {
    rc = check_ns(parent, err);
    if (!rc) rc = ns_at_or_below(c, parent, &all, err);
    if (!rc && all.n == 0)
      rc = fl_err_set(err, FL_ENOTFOUND, "namespace '%s' does not exist", parent);
  }
  if (rc) {
    cat_names_free(&all);
    return rc;
  }
  size_t plen = top ? 0 : strlen(parent) + 1;
  size_t w = 0;
  for (size_t i = 0; i < all.n; i++) {
    char *s = all.items[i];
    if (strlen(s) <= plen || (!top && (strncmp(s, parent, plen - 1) || s[plen - 1] != '.'))) {
      fl_free(s);
      continue;
    }
    char *dot = strchr(s + plen, '.');
    if (dot) *dot = '\0';
    all.items[w++] = s;
  }
  all.n = w;
  if (w == 0) cat_names_free(&all);
  names_sort_unique(&all);
  *out = all;
  return FL_OK;
}

static int cmp_prop(const void *a, const void *b) {
  return strcmp(((const cat_prop_t *)a)->key, ((const cat_prop_t *)b)->key);
}

int cat_ns_properties(cat_catalog_t *c, const char *ns, cat_prop_t **out, size_t *n,
                      fl_err_t *err) {
  *out = NULL;
  *n = 0;
  int rc = check_ns(ns, err);
  if (!rc) rc = ns_require(c, ns, err);
  if (rc) return rc;
  const char *p[] = {c->name, ns};
  cat_stmt_t *s;
  rc = q_start(c,
               "SELECT property_key, property_value FROM iceberg_namespace_properties "
               "WHERE catalog_name = ? AND namespace = ?",
               false, p, 2, &s, err);
  if (rc) return rc;
  cat_prop_t *props = NULL;
  size_t cnt = 0, cap = 0;
  for (;;) {
    bool row;
    rc = c->drv->step(s, &row, err);
    if (rc || !row) break;
    const char *k = c->drv->column_text(s, 0), *v = c->drv->column_text(s, 1);
    if (!k || !strcmp(k, "exists")) continue;
    if (cnt == cap) {
      cap = cap ? cap * 2 : 8;
      props = fl_realloc(props, cap * sizeof *props);
    }
    props[cnt].key = fl_strdup(k);
    props[cnt].value = fl_strdup(v ? v : "");
    cnt++;
  }
  c->drv->finalize(s);
  if (rc) {
    cat_props_free(props, cnt);
    return rc;
  }
  if (cnt > 1) qsort(props, cnt, sizeof *props, cmp_prop);
  *out = props;
  *n = cnt;
  return FL_OK;
}

typedef struct ns_update_arg {
  const char *ns;
  const cat_prop_t *set;
  size_t nset;
  const char *const *remove;
  size_t nremove;
} ns_update_arg_t;

static int ns_update_tx(cat_catalog_t *c, void *arg, fl_err_t *err) {
  const ns_update_arg_t *a = arg;
  const char *ns = a->ns;
  int rc = ns_require(c, ns, err);
  for (size_t i = 0; !rc && i < a->nremove; i++) {
    const char *p[] = {c->name, ns, a->remove[i]};
    rc = q_exec(c, SQL_PROP_DELETE, false, p, 3, NULL, err);
  }
  for (size_t i = 0; !rc && i < a->nset; i++) {
    const char *dp[] = {c->name, ns, a->set[i].key};
    rc = q_exec(c, SQL_PROP_DELETE, false, dp, 3, NULL, err);
    const char *p[] = {c->name, ns, a->set[i].key, a->set[i].value};
    if (!rc) rc = q_exec(c, SQL_PROP_INSERT, false, p, 4, NULL, err);
  }
  if (!rc && a->nremove > 0) {
    /* Removing the last property must not make the namespace vanish. */
    cat_names_t left = {0};
    const char *p[] = {c->name, ns};
    rc = q_strings(c,
                   "SELECT property_key FROM iceberg_namespace_properties WHERE catalog_name = ? "
                   "AND namespace = ?",
                   false, p, 2, &left, err);
    size_t nleft = left.n;
    cat_names_free(&left);
    if (!rc && nleft == 0) {
      const char *ip[] = {c->name, ns, "exists", "true"};
      rc = q_exec(c, SQL_PROP_INSERT, false, ip, 4, NULL, err);
    }
  }
  return rc;
}

int cat_ns_update(cat_catalog_t *c, const char *ns, const cat_prop_t *set, size_t nset,
                  const char *const *remove, size_t nremove, fl_err_t *err) {
  int rc = check_ns(ns, err);
  if (!rc) rc = check_props(set, nset, err);
  for (size_t i = 0; !rc && i < nremove; i++) rc = check_text("property key", remove[i], KEY_MAX, err);
  if (rc) return rc;
  ns_update_arg_t a = {ns, set, nset, remove, nremove};
  return tx_run(c, ns_update_tx, &a, err);
}

static int ns_drop_tx(cat_catalog_t *c, void *arg, fl_err_t *err) {
  const char *ns = arg;
  cat_names_t found = {0};
  int rc = ns_at_or_below(c, ns, &found, err);
  if (!rc && found.n == 0) rc = fl_err_set(err, FL_ENOTFOUND, "namespace '%s' does not exist", ns);
  if (!rc) {
    cat_names_t tables = {0};
    const char *p[] = {c->name, ns};
    rc = q_strings(c,
                   "SELECT table_name FROM iceberg_tables WHERE catalog_name = ? AND "
                   "table_namespace = ?",
                   false, p, 2, &tables, err);
    if (!rc && tables.n > 0)
      rc = fl_err_set(err, FL_EINVALID, "namespace '%s' is not empty: it holds %zu table%s", ns,
                      tables.n, tables.n == 1 ? "" : "s");
    cat_names_free(&tables);
  }
  for (size_t i = 0; !rc && i < found.n; i++)
    if (strcmp(found.items[i], ns) != 0)
      rc = fl_err_set(err, FL_EINVALID, "namespace '%s' is not empty: it holds namespace '%s'", ns,
                      found.items[i]);
  cat_names_free(&found);
  if (!rc) {
    const char *p[] = {c->name, ns};
    rc = q_exec(c,
                "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ?",
                false, p, 2, NULL, err);
  }
  return rc;
}

int cat_ns_drop(cat_catalog_t *c, const char *ns, fl_err_t *err) {
  int rc = check_ns(ns, err);
  if (rc) return rc;
  return tx_run(c, ns_drop_tx, (void *)ns, err);
}

/* ---- tables ---- */

typedef struct table_arg {
  const char *ns, *name, *metadata_location; /* register */
  const char *new_ns, *new_name;             /* rename */
} table_arg_t;

static int table_register_tx(cat_catalog_t *c, void *arg, fl_err_t *err) {
  const table_arg_t *a = arg;
  int rc = ns_require(c, a->ns, err);
  if (rc) return rc;
  const char *p[] = {c->name, a->ns, a->name, a->metadata_location};
  if (c->v1)
    return q_exec(c,
                  "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                  "metadata_location, previous_metadata_location, iceberg_type) "
                  "VALUES (?, ?, ?, ?, NULL, 'TABLE')",
                  false, p, 4, NULL, err);
  return q_exec(c,
                "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                "metadata_location, previous_metadata_location) VALUES (?, ?, ?, ?, NULL)",
                false, p, 4, NULL, err);
}

int cat_table_register(cat_catalog_t *c, const char *ns, const char *name,
                       const char *metadata_location, fl_err_t *err) {
  int rc = check_table(ns, name, err);
  if (!rc) rc = check_text("metadata location", metadata_location, VALUE_MAX, err);
  if (rc) return rc;
  table_arg_t a = {ns, name, metadata_location, NULL, NULL};
  rc = tx_run(c, table_register_tx, &a, err);
  if (rc == FL_EEXISTS)
    rc = fl_err_set(err, FL_EEXISTS, "table '%s.%s' already exists", ns, name);
  return rc;
}

static int table_load(cat_catalog_t *c, const char *ns, const char *name, char **loc,
                      fl_err_t *err) {
  *loc = NULL;
  const char *p[] = {c->name, ns, name};
  cat_stmt_t *s;
  int rc = q_start(c,
                   "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ? AND "
                   "table_namespace = ? AND table_name = ?%s",
                   true, p, 3, &s, err);
  if (rc) return rc;
  bool row;
  rc = c->drv->step(s, &row, err);
  if (!rc && !row) rc = fl_err_set(err, FL_ENOTFOUND, "table '%s.%s' does not exist", ns, name);
  if (!rc) {
    const char *v = c->drv->column_text(s, 0);
    if (!v || !*v)
      rc = fl_err_set(err, FL_ECORRUPT, "table '%s.%s' has no metadata location in the catalog",
                      ns, name);
    else
      *loc = fl_strdup(v);
  }
  c->drv->finalize(s);
  return rc;
}

int cat_table_load(cat_catalog_t *c, const char *ns, const char *name, char **metadata_location,
                   fl_err_t *err) {
  *metadata_location = NULL;
  int rc = check_table(ns, name, err);
  if (rc) return rc;
  return table_load(c, ns, name, metadata_location, err);
}

int cat_table_list(cat_catalog_t *c, const char *ns, cat_names_t *out, fl_err_t *err) {
  out->n = 0;
  out->items = NULL;
  int rc = check_ns(ns, err);
  if (!rc) rc = ns_require(c, ns, err);
  if (rc) return rc;
  const char *p[] = {c->name, ns};
  rc = q_strings(c,
                 "SELECT table_name FROM iceberg_tables WHERE catalog_name = ? AND "
                 "table_namespace = ?%s",
                 true, p, 2, out, err);
  if (rc) {
    cat_names_free(out);
    return rc;
  }
  names_sort_unique(out);
  return FL_OK;
}

int cat_table_drop(cat_catalog_t *c, const char *ns, const char *name, fl_err_t *err) {
  int rc = check_table(ns, name, err);
  if (rc) return rc;
  const char *p[] = {c->name, ns, name};
  long changed = 0;
  rc = q_exec(c,
              "DELETE FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND "
              "table_name = ?%s",
              true, p, 3, &changed, err);
  if (!rc && changed == 0)
    rc = fl_err_set(err, FL_ENOTFOUND, "table '%s.%s' does not exist", ns, name);
  return rc;
}

static int table_rename_tx(cat_catalog_t *c, void *arg, fl_err_t *err) {
  const table_arg_t *a = arg;
  int rc = ns_require(c, a->new_ns, err);
  if (rc) return rc;
  long changed = 0;
  const char *p[] = {a->new_ns, a->new_name, c->name, a->ns, a->name};
  rc = q_exec(c,
              "UPDATE iceberg_tables SET table_namespace = ?, table_name = ? WHERE "
              "catalog_name = ? AND table_namespace = ? AND table_name = ?%s",
              true, p, 5, &changed, err);
  if (rc == FL_EEXISTS)
    return fl_err_set(err, FL_EEXISTS, "table '%s.%s' already exists", a->new_ns, a->new_name);
  if (!rc && changed == 0)
    return fl_err_set(err, FL_ENOTFOUND, "table '%s.%s' does not exist", a->ns, a->name);
  return rc;
}

int cat_table_rename(cat_catalog_t *c, const char *ns, const char *name, const char *new_ns,
                     const char *new_name, fl_err_t *err) {
  int rc = check_table(ns, name, err);
  if (!rc) rc = check_table(new_ns, new_name, err);
  if (rc) return rc;
  table_arg_t a = {ns, name, NULL, new_ns, new_name};
  return tx_run(c, table_rename_tx, &a, err);
}

static const char *SQL_SWAP =
    "UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ? WHERE "
    "catalog_name = ? AND table_namespace = ? AND table_name = ? AND metadata_location = ?%s";

static int check_swap(const cat_swap_t *s, fl_err_t *err) {
  int rc = check_table(s->ns, s->name, err);
  if (!rc) rc = check_text("old metadata location", s->old_location, VALUE_MAX, err);
  if (!rc) rc = check_text("new metadata location", s->new_location, VALUE_MAX, err);
  return rc;
}

/* The error of a swap that changed no row: the table is gone or moved. */
static int swap_lost(cat_catalog_t *c, const cat_swap_t *s, fl_err_t *err) {
  char *now = NULL;
  fl_err_t e2;
  fl_err_clear(&e2);
  int rc = table_load(c, s->ns, s->name, &now, &e2);
  if (rc == FL_ENOTFOUND)
    return fl_err_set(err, FL_ENOTFOUND, "table '%s.%s' does not exist", s->ns, s->name);
  int r = fl_err_set_retriable(err, FL_ECONFLICT,
                               "table '%s.%s' was changed by another writer: its metadata is "
                               "now %s, not %s",
                               s->ns, s->name, now ? now : "(unknown)", s->old_location);
  fl_free(now);
  return r;
}

int cat_table_swap(cat_catalog_t *c, const char *ns, const char *name, const char *old_location,
                   const char *new_location, fl_err_t *err) {
  cat_swap_t s = {ns, name, old_location, new_location};
  int rc = check_swap(&s, err);
  if (rc) return rc;
  const char *p[] = {new_location, old_location, c->name, ns, name, old_location};
  long changed = 0;
  rc = q_exec(c, SQL_SWAP, true, p, 6, &changed, err);
  if (rc) return rc;
  if (changed != 1) return swap_lost(c, &s, err);
  return FL_OK;
}

static int cmp_swap(const void *a, const void *b) {
  const cat_swap_t *x = *(const cat_swap_t *const *)a, *y = *(const cat_swap_t *const *)b;
  int r = strcmp(x->ns, y->ns);
  return r ? r : strcmp(x->name, y->name);
}

typedef struct swap_many_arg {
  const cat_swap_t **order; /* sorted by namespace and name */
  size_t n;
  const cat_swap_t *lost;   /* the first swap that found its table moved */
} swap_many_arg_t;

static int swap_many_tx(cat_catalog_t *c, void *arg, fl_err_t *err) {
  swap_many_arg_t *a = arg;
  a->lost = NULL;
  for (size_t i = 0; i < a->n; i++) {
    const cat_swap_t *s = a->order[i];
    const char *p[] = {s->new_location, s->old_location, c->name, s->ns, s->name, s->old_location};
    long changed = 0;
    int rc = q_exec(c, SQL_SWAP, true, p, 6, &changed, err);
    if (rc) return rc;
    if (changed != 1) {
      a->lost = s;
      return FL_ECONFLICT;
    }
  }
  return FL_OK;
}

int cat_table_swap_many(cat_catalog_t *c, const cat_swap_t *swaps, size_t n, fl_err_t *err) {
  for (size_t i = 0; i < n; i++) {
    int rc = check_swap(&swaps[i], err);
    if (rc) return rc;
  }
  if (n == 0) return FL_OK;
  /* One lock order for all writers keeps PostgreSQL from deadlocking. */
  const cat_swap_t **order = fl_malloc(n * sizeof *order);
  for (size_t i = 0; i < n; i++) order[i] = &swaps[i];
  qsort(order, n, sizeof *order, cmp_swap);
  int rc = FL_OK;
  for (size_t i = 1; i < n; i++)
    if (cmp_swap(&order[i - 1], &order[i]) == 0) {
      rc = fl_err_set(err, FL_EINVALID, "table '%s.%s' appears twice in one commit", order[i]->ns,
                      order[i]->name);
      break;
    }
  if (!rc) {
    swap_many_arg_t a = {order, n, NULL};
    rc = tx_run(c, swap_many_tx, &a, err);
    /* Rolled back: tell which table moved (or vanished). */
    if (rc == FL_ECONFLICT && a.lost) rc = swap_lost(c, a.lost, err);
  }
  fl_free(order);
  return rc;
}
