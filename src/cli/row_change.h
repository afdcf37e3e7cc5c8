/*
 * row_change.h - deleting and adding rows of one Iceberg table in one
 * commit (layer 12, cli): what DELETE, UPDATE, MERGE, TRUNCATE of `floe
 * sql` and `floe table delete` share.
 *
 * A change is computed against one snapshot (its base): the caller names
 * the rows that go by data file path and position (as the scan's hidden
 * "$path" and "$pos" give them), whole data files that go, and new rows.
 * Committing applies the table's write mode:
 *   copy-on-write  - every data file that loses rows is rewritten without
 *                    them (its other deletes applied) and replaced; a
 *                    file that loses every row just goes. One overwrite.
 *   merge-on-read  - v2 tables get a position delete file per data file
 *                    that loses rows; v3 tables a deletion vector per data
 *                    file, merged with the positions its earlier deletes
 *                    removed, replacing them; a file whose every row
 *                    is then deleted goes whole instead. One row delta
 *                    (an overwrite when no delete file is written).
 * New rows are written as new data files under the current spec either
 * way. The commit is validated against writers that committed since the
 * base with the conflict filter (ice_commit.h): a conflict fails with
 * FL_ECONFLICT and a message saying to retry the statement; no file the
 * change wrote stays behind.
 */
#ifndef FL_CLI_ROW_CHANGE_H
#define FL_CLI_ROW_CHANGE_H

#include "iceberg/ice_expr.h"
#include "iceberg/ice_scan.h"
#include "iceberg/ice_table.h"
#include "types/vec.h"

typedef enum cli_rc_mode { CLI_RC_COPY_ON_WRITE, CLI_RC_MERGE_ON_READ } cli_rc_mode_t;

/* The mode table property `property` (write.delete.mode, write.update.mode,
 * write.merge.mode) asks for; copy-on-write when unset, as Iceberg's
 * default; FL_EINVALID naming the property for other values. */
int cli_rc_mode(const ice_table_t *t, const char *property, cli_rc_mode_t *out, fl_err_t *err);

typedef struct cli_rc cli_rc_t;

typedef struct cli_rc_stats {
  uint64_t deleted_rows; /* positions deleted (whole files not counted) */
  uint64_t inserted_rows;
  uint32_t data_files_removed, data_files_added, delete_files_added;
  bool committed; /* false: nothing changed, nothing committed */
  int64_t snapshot_id;
} cli_rc_stats_t;

/*
 * Starts a change of t against snapshot_id (-1: the head of branch, NULL
 * meaning main). filter (unbound; NULL: all rows) limits the data files
 * the change may touch: the scan of the base is planned with it, and its
 * tasks are the files rows can be deleted from.
 */
int cli_rc_open(ice_table_t *t, const char *branch, int64_t snapshot_id, const ice_expr_t *filter,
                cli_rc_mode_t mode, cli_rc_t **out, fl_err_t *err);
/* The base scan: tasks, and reading with the table's columns then "$pos". */
ice_scan_t *cli_rc_scan(cli_rc_t *rc);
/* The base snapshot's id (-1: empty table). */
int64_t cli_rc_base(const cli_rc_t *rc);

/* Deletes the row at pos of data file path (as the manifest names it). */
int cli_rc_delete(cli_rc_t *rc, const char *path, size_t path_len, int64_t pos, fl_err_t *err);
/* Deletes every row of task `task`'s data file; with all_deletes also
 * every delete file of the task (only when each file they apply to goes
 * too, as in TRUNCATE). */
int cli_rc_delete_file(cli_rc_t *rc, uint32_t task, bool all_deletes, fl_err_t *err);
/* Adds the live rows of b (the table's current schema, in order). */
int cli_rc_insert(cli_rc_t *rc, const ty_batch_t *b, fl_err_t *err);

/*
 * Writes the delete files and rewritten files the mode needs and commits
 * (nothing when nothing changed). conflict is bound to the current schema
 * (NULL: any data file added since the base conflicts). With dup_msg set,
 * a row deleted twice fails with dup_msg (MERGE's one target row matched
 * by several source rows) before anything is committed.
 */
int cli_rc_commit(cli_rc_t *rc, const ice_expr_t *conflict, const char *dup_msg,
                  cli_rc_stats_t *stats, fl_err_t *err);
/* Frees the change; files written for an uncommitted change are deleted. */
void cli_rc_free(cli_rc_t *rc);

#endif
