/*
 * table_cmds.h - the subcommands of `floe table` (layer 12, cli, private).
 *
 * Each gets the arguments after its own name with the catalog open and
 * returns the exit status (errors already printed).
 */
#ifndef FL_CLI_TABLE_CMDS_H
#define FL_CLI_TABLE_CMDS_H

#include "catalog/catalog.h"
#include "cli/cli.h"
#include "iceberg/ice_table.h"

typedef int (*cli_table_fn)(cat_catalog_t *c, int argc, char **argv);

int cli_table_create(cat_catalog_t *c, int argc, char **argv);
int cli_table_list(cat_catalog_t *c, int argc, char **argv);
int cli_table_describe(cat_catalog_t *c, int argc, char **argv);
int cli_table_drop(cat_catalog_t *c, int argc, char **argv);
int cli_table_rename(cat_catalog_t *c, int argc, char **argv);
int cli_table_register(cat_catalog_t *c, int argc, char **argv);
int cli_table_append(cat_catalog_t *c, int argc, char **argv);
int cli_table_delete(cat_catalog_t *c, int argc, char **argv);
int cli_table_upsert(cat_catalog_t *c, int argc, char **argv);
int cli_table_evolve(cat_catalog_t *c, int argc, char **argv);
int cli_table_scan(cat_catalog_t *c, int argc, char **argv);
int cli_table_snapshots(cat_catalog_t *c, int argc, char **argv);
int cli_table_history(cat_catalog_t *c, int argc, char **argv);
int cli_table_files(cat_catalog_t *c, int argc, char **argv);
int cli_table_manifests(cat_catalog_t *c, int argc, char **argv);
int cli_table_partitions(cat_catalog_t *c, int argc, char **argv);
int cli_table_refs(cat_catalog_t *c, int argc, char **argv);
int cli_table_rollback(cat_catalog_t *c, int argc, char **argv);
int cli_table_set_current(cat_catalog_t *c, int argc, char **argv);
int cli_table_cherry_pick(cat_catalog_t *c, int argc, char **argv);
int cli_table_branch(cat_catalog_t *c, int argc, char **argv);
int cli_table_tag(cat_catalog_t *c, int argc, char **argv);
int cli_table_fast_forward(cat_catalog_t *c, int argc, char **argv);
int cli_table_expire(cat_catalog_t *c, int argc, char **argv);
int cli_table_remove_orphans(cat_catalog_t *c, int argc, char **argv);

extern const cli_command_t cli_cmd_table;

/* Usage error for `floe table SUB`. */
int cli_table_usage(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
