/*
 * cat_tables.h - Iceberg tables kept in a catalog (layer 6, catalog).
 *
 * Joins the catalog's pointer (catalog.h) to the Iceberg table (layer 5):
 * creating a table writes its first metadata file and registers it;
 * opening one loads the current metadata with a committer whose swap is
 * the catalog's compare-and-swap, so every commit of ice_commit.h goes
 * through the catalog; dropping with purge deletes every file the table's
 * metadata reaches, as Java's CatalogUtil.dropTableData does.
 *
 * Default table locations follow Java's JdbcCatalog: the namespace's
 * "location" property when set, else <warehouse>/<ns level>/.../<name>.
 */
#ifndef FL_CATALOG_CAT_TABLES_H
#define FL_CATALOG_CAT_TABLES_H

#include "catalog/catalog.h"
#include "iceberg/ice_meta.h"
#include "iceberg/ice_table.h"
#include "io/fs.h"

typedef struct cat_create_opts {
  const ty_schema_t *schema;
  const ice_spec_t *spec;       /* NULL: unpartitioned */
  const ice_sort_order_t *sort; /* NULL: unsorted */
  const ice_kv_t *props;
  uint32_t nprops;
  const char *location; /* NULL: the default location */
} cat_create_opts_t;

/* The default location of a new table (malloc'd). */
int cat_default_location(cat_catalog_t *c, const char *ns, const char *name, char **out,
                         fl_err_t *err);

/* Creates a table; FL_EEXISTS when the name is taken, FL_ENOTFOUND when the
 * namespace is missing. *out may be NULL when the caller needs no handle. */
int cat_create_table(cat_catalog_t *c, io_fs_t *fs, const char *ns, const char *name,
                     const cat_create_opts_t *o, ice_table_t **out, fl_err_t *err);

/* Opens a table for reading and committing; FL_ENOTFOUND when absent. */
int cat_open_table(cat_catalog_t *c, io_fs_t *fs, const char *ns, const char *name,
                   ice_table_t **out, fl_err_t *err);

/* Registers an existing metadata file (checked to be readable first). */
int cat_register_table(cat_catalog_t *c, io_fs_t *fs, const char *ns, const char *name,
                       const char *metadata_location, fl_err_t *err);

/* Removes the catalog entry; with purge also every file the metadata
 * reaches (*deleted counts them; may be NULL). */
int cat_drop_table(cat_catalog_t *c, io_fs_t *fs, const char *ns, const char *name, bool purge,
                   size_t *deleted, fl_err_t *err);

#endif
