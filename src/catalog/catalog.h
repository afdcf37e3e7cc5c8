/*
 * catalog.h - the catalog: namespaces and the table pointer (layer 6).
 *
 * A catalog maps table identifiers (namespace + name) to the location of
 * their current metadata file and keeps namespace properties. floe's
 * embedded catalogs are SQL databases with exactly the tables and columns
 * of Iceberg's JDBC catalog, shared with PyIceberg's SqlCatalog and Java's
 * JdbcCatalog:
 *   iceberg_tables(catalog_name, table_namespace, table_name,
 *                  metadata_location, previous_metadata_location,
 *                  iceberg_type)
 *   iceberg_namespace_properties(catalog_name, namespace, property_key,
 *                                property_value)
 * A commit is a compare-and-swap of metadata_location; exactly one
 * updated row is success, anything else FL_ECONFLICT (retriable).
 *
 * Namespaces are dotted text ("a.b"); a namespace exists when it has a
 * property row or a table. Creating one without properties records
 * "exists" = "true", as the JDBC catalog does.
 *
 * Back ends: SQLite (a file, default <warehouse>/catalog.db) and
 * PostgreSQL (libpq), behind one table of functions.
 */
#ifndef FL_CATALOG_CATALOG_H
#define FL_CATALOG_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

typedef struct cat_catalog cat_catalog_t;

typedef struct cat_prop {
  char *key;
  char *value;
} cat_prop_t;

/* A list of malloc'd strings. */
typedef struct cat_names {
  size_t n;
  char **items;
} cat_names_t;

/*
 * Opens a catalog. uri NULL or "" or "sqlite:" opens (creating when
 * absent) <warehouse>/catalog.db; "sqlite:PATH" or "sqlite:///PATH" a
 * given file; "postgresql://user:pw@host:port/db" (also "postgres://")
 * a server. name is the catalog_name column value (NULL: "floe").
 * warehouse is kept for table locations: cat_warehouse().
 * The schema tables are created when missing (CREATE TABLE IF NOT EXISTS,
 * with the JDBC catalog's column types and primary keys).
 */
int cat_open(const char *uri, const char *warehouse, const char *name, cat_catalog_t **out,
             fl_err_t *err);
void cat_close(cat_catalog_t *c);
const char *cat_name(const cat_catalog_t *c);
/* The warehouse root as given (an absolute path or file:// URI). */
const char *cat_warehouse(const cat_catalog_t *c);

/* ---- namespaces ---- */
/* FL_EEXISTS when it exists. props may be NULL. */
int cat_ns_create(cat_catalog_t *c, const char *ns, const cat_prop_t *props, size_t nprops,
                  fl_err_t *err);
int cat_ns_exists(cat_catalog_t *c, const char *ns, bool *out, fl_err_t *err);
/* Namespaces directly under parent (NULL or "": top level), sorted. */
int cat_ns_list(cat_catalog_t *c, const char *parent, cat_names_t *out, fl_err_t *err);
/* Properties (without the "exists" marker), sorted by key; FL_ENOTFOUND when absent. */
int cat_ns_properties(cat_catalog_t *c, const char *ns, cat_prop_t **out, size_t *n,
                      fl_err_t *err);
/* Sets and removes properties in one transaction. */
int cat_ns_update(cat_catalog_t *c, const char *ns, const cat_prop_t *set, size_t nset,
                  const char *const *remove, size_t nremove, fl_err_t *err);
/* FL_EINVALID when it still holds tables or namespaces; FL_ENOTFOUND when absent. */
int cat_ns_drop(cat_catalog_t *c, const char *ns, fl_err_t *err);

/* ---- tables ---- */
/* Registers a table at a metadata location; FL_EEXISTS when taken, FL_ENOTFOUND
 * when the namespace does not exist. */
int cat_table_register(cat_catalog_t *c, const char *ns, const char *name,
                       const char *metadata_location, fl_err_t *err);
/* The current metadata location (malloc'd); FL_ENOTFOUND when absent. */
int cat_table_load(cat_catalog_t *c, const char *ns, const char *name, char **metadata_location,
                   fl_err_t *err);
/* Table names in a namespace, sorted. */
int cat_table_list(cat_catalog_t *c, const char *ns, cat_names_t *out, fl_err_t *err);
/* Removes the catalog entry (files are the caller's business). */
int cat_table_drop(cat_catalog_t *c, const char *ns, const char *name, fl_err_t *err);
/* FL_EEXISTS when the target is taken, FL_ENOTFOUND when the source is absent. */
int cat_table_rename(cat_catalog_t *c, const char *ns, const char *name, const char *new_ns,
                     const char *new_name, fl_err_t *err);
/*
 * The commit: sets metadata_location to new_location (and
 * previous_metadata_location to old) only if it still is old_location.
 * FL_ECONFLICT (retriable) when another writer got there first.
 */
int cat_table_swap(cat_catalog_t *c, const char *ns, const char *name, const char *old_location,
                   const char *new_location, fl_err_t *err);

/*
 * Several swaps in one database transaction: all succeed or none
 * (FL_ECONFLICT naming the first table that moved). For multi-table
 * commits of the streaming sink.
 */
typedef struct cat_swap {
  const char *ns, *name, *old_location, *new_location;
} cat_swap_t;
int cat_table_swap_many(cat_catalog_t *c, const cat_swap_t *swaps, size_t n, fl_err_t *err);

void cat_names_free(cat_names_t *n);
void cat_props_free(cat_prop_t *p, size_t n);

/* Splits "ns.sub.table" into namespace "ns.sub" and name "table" (malloc'd);
 * FL_EINVALID when there is no dot. */
int cat_split_ident(const char *ident, char **ns, char **name, fl_err_t *err);

#endif
