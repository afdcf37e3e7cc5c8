/*
 * sql_progress.h - the progress line of `floe sql` (layer 12, cli).
 *
 * While a statement runs, a timer thread reads the query's progress
 * counters (exec/ex_progress.h) every 100 ms; once the statement has run
 * longer than the delay (1 s), it draws one line on the terminal, redrawn
 * in place: elapsed time, rows and bytes read, files done of the total and
 * the percentage when the scans know their total. Stopping erases the
 * line, so results and errors print on a clean terminal.
 */
#ifndef FL_CLI_SQL_PROGRESS_H
#define FL_CLI_SQL_PROGRESS_H

#include <stdio.h>

#include "exec/ex_progress.h"

typedef struct cli_progress cli_progress_t;

/* Starts drawing p's progress on tty (a terminal) after delay_ms. */
cli_progress_t *cli_progress_start(ex_progress_t *p, FILE *tty, unsigned delay_ms);
/* Stops the thread and erases the line if it was drawn; NULL is ignored. */
void cli_progress_stop(cli_progress_t *pr);
/* Formats one progress line (no terminal codes) into buf. */
void cli_progress_format(const ex_progress_t *p, double elapsed_s, char *buf, size_t cap);

#endif
