/*
 * sql_shell.h - the interactive shell of `floe sql` (layer 12, cli).
 *
 * Reads SQL from a terminal with libedit line editing and history, gathers
 * lines until the parser's splitter (sql_split_script) sees a statement end
 * with ';' outside strings and comments (a statement set runs to its END ;),
 * and hands each complete statement to the caller's execute callback. Lines
 * starting with '\' at the main prompt, and `help`, `quit`, `exit`, are shell
 * commands (sql_shell_cmds.c). The module knows nothing about executing SQL:
 * `floe sql` passes its executor and the catalog describers below.
 *
 * All functions run on the calling thread; the shell owns SIGINT while
 * cli_sql_shell_run runs and restores the previous handler on return.
 */
#ifndef FL_CLI_SQL_SHELL_H
#define FL_CLI_SQL_SHELL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/arena.h"
#include "base/error.h"
#include "catalog/catalog.h"
#include "sql/sql_parse.h"

/* Settings the shell commands change and the caller's executor reads. */
typedef struct cli_sql_shell_settings {
  char format[32]; /* output format named by \format ("table" unless set) */
  bool timing;     /* \timing: the shell prints the time of each statement */
} cli_sql_shell_settings_t;

typedef struct cli_sql_shell_opts {
  void *ctx; /* passed to execute */
  /*
   * Runs one complete statement sql[0..len) (no trailing ';') and prints its
   * result or its error. line and column are where the statement starts in
   * the text entered since the last main prompt (1-based), so an error
   * position inside the statement can be shifted to what the user typed.
   * The return value is the statement's status (0 ok); the shell goes on
   * with the next statement either way.
   */
  int (*execute)(void *ctx, const char *sql, size_t len, int line, int column);

  /* Describe commands; each prints to stdout and errors to stderr and
   * returns 0 or 1. NULL makes the command report it is unavailable. */
  void *describe_ctx;
  int (*list_schemas)(void *describe_ctx);                     /* \dn */
  int (*list_tables)(void *describe_ctx, const char *schema);  /* \d, \d SCHEMA (NULL: all) */
  int (*describe_table)(void *describe_ctx, const char *name); /* \d NAME */
  bool (*is_schema)(void *describe_ctx, const char *name);     /* \d NAME names a schema */

  cli_sql_shell_settings_t *settings; /* may be NULL: \format and \timing still work locally */
  const char *const *formats;         /* NULL-terminated names \format accepts; NULL: any */
  const char *history_path;           /* NULL: cli_sql_shell_history_path() */
} cli_sql_shell_opts_t;

/* Whether stdin is a terminal, i.e. whether `floe sql` should run the shell
 * rather than read a script from stdin. */
bool cli_sql_shell_is_interactive(void);

/*
 * Runs the shell until Ctrl-D, `quit`, `exit` or \q. Ctrl-C drops the input
 * gathered so far and shows a fresh prompt. Without a terminal on stdin it
 * uses no libedit, prompts or history: it reads lines as they come, with the
 * same splitting and commands, and runs a last statement that lacks its ';'
 * at end of input. Returns 0, or 1 when the terminal could not be set up or
 * opts has no execute callback (after printing why).
 */
int cli_sql_shell_run(const cli_sql_shell_opts_t *opts);

/*
 * Whether Ctrl-C was pressed since the running statement started: an
 * executor polls it between batches to stop a long statement. The shell
 * then skips the rest of what was typed with it. Any thread may call it.
 */
bool cli_sql_shell_interrupted(void);

/* The history file: $FLOE_HISTORY when set (empty turns history off), else
 * $HOME/.floe_history; NULL when neither applies. malloc'd. */
char *cli_sql_shell_history_path(void);

/* ---- statement completeness (sql_shell_input.c) ---- */

/*
 * Finds the complete statements in text[from..len): those whose ';' has
 * been typed (a statement set counts once its END is followed by ';').
 * Pieces starting before `from` are skipped, so a caller that already ran
 * them keeps its whole input for positions. *out (arena a) gets *n pieces
 * with offsets and positions into text; *rest is where the unfinished
 * remainder starts, or len when nothing but blanks, comments and ';' is
 * left. *incomplete is true when more input is needed (an open statement,
 * string, quoted name or comment). Returns FL_OK, or FL_EPARSE for a
 * lexical error that no further input can fix.
 */
int cli_sql_shell_split(fl_arena_t *a, const char *text, size_t len, size_t from, sql_piece_t **out,
                        size_t *n, size_t *rest, bool *incomplete, fl_err_t *err);

/* ---- describers over a catalog (sql_shell_describe.c) ---- */

/* Fills the describe callbacks of o to print from catalog c (borrowed). */
void cli_sql_shell_use_catalog(cli_sql_shell_opts_t *o, cat_catalog_t *c);

int cli_sql_describe_schemas(cat_catalog_t *c, FILE *out);
/* Tables of schema (NULL: every schema, recursively) as "schema.table" lines. */
int cli_sql_describe_tables(cat_catalog_t *c, const char *schema, FILE *out);
/* Columns (name, type, nullability), partitioning and sort order of "ns.name". */
int cli_sql_describe_table(cat_catalog_t *c, const char *name, FILE *out);

#endif
