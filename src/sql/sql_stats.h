/*
 * sql_stats.h - column statistics for the optimizer's estimates (layer 7,
 * sql).
 *
 * What the table metadata says about a column of a plan: the number of
 * distinct values it can have and, for integer-like columns, the range of
 * its values. Iceberg keeps no distinct counts in manifests, but every
 * data file lists its columns' lower and upper bounds and value and null
 * counts; a column of integers (int, long, date) between lo and hi has at
 * most hi - lo + 1 distinct values, and never more than its non-null rows.
 * That alone tells a key of 25 nations from a key of 150,000 customers.
 */
#ifndef FL_SQL_SQL_STATS_H
#define FL_SQL_SQL_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"

struct sql_plan;

typedef struct sql_col_stats {
  double ndv;     /* upper bound of distinct non-null values; < 0: unknown */
  bool has_range; /* lo and hi bound every value (integer-like columns) */
  double lo, hi;  /* as days for dates, the value for ints and longs */
  double rows;    /* rows of the table the column comes from; < 0: unknown */
} sql_col_stats_t;

/* One optimizer pass's cache of what it read from manifests (arena owned). */
typedef struct sql_stats sql_stats_t;

sql_stats_t *sql_stats_new(fl_arena_t *a);

/*
 * The statistics of output column col of p, followed through filters,
 * projections of plain columns (and casts), sorts, limits and joins down
 * to a table scan; unknown (ndv < 0) where that path ends elsewhere or the
 * manifests say nothing. The first question about a scan plans it (reads
 * its manifests, not its data); failures only make the answer unknown.
 */
sql_col_stats_t sql_stats_col(sql_stats_t *st, const struct sql_plan *p, uint32_t col);

#endif
