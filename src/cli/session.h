/*
 * session.h - what every catalog command shares (layer 12, cli): the
 * global --warehouse and --catalog options, opening the catalog and a
 * table by its dotted name, and parsing times given on the command line.
 */
#ifndef FL_CLI_SESSION_H
#define FL_CLI_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "iceberg/ice_table.h"

/*
 * Takes --warehouse DIR and --catalog URI (also as --opt=value) out of
 * argv wherever they appear, before or after the command name; the
 * environment's FLOE_WAREHOUSE and FLOE_CATALOG are the defaults, then
 * ./warehouse and the SQLite catalog inside it. Returns the new argc, or
 * -1 after printing an error.
 */
int cli_session_take_options(int argc, char **argv);

/* Replaces the warehouse (the demo uses its own). */
void cli_session_set_warehouse(const char *dir);

/* The warehouse as a URI (file:///abs/path for local folders). */
const char *cli_session_warehouse(void);

/* Opens the catalog (creating the warehouse folder for the SQLite
 * default); prints the error for cmd and returns 1 on failure. */
int cli_session_catalog(const char *cmd, cat_catalog_t **out);

/* Opens "ns.name" for reading and committing; prints errors. */
int cli_session_table(const char *cmd, cat_catalog_t *c, const char *ident, ice_table_t **out);

/*
 * A point in time: epoch milliseconds ("1733222400000"), or an ISO
 * timestamp ("2026-12-01 10:00:00", UTC unless it has an offset). With
 * ago_ok also a duration before now ("7d", "12h", "30m", "45s", "500ms").
 */
bool cli_parse_time_ms(const char *s, bool ago_ok, int64_t *out);

#endif
