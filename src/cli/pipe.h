/*
 * pipe.h - moving all batches from a reader to a writer (layer 12, cli).
 */
#ifndef FL_CLI_PIPE_H
#define FL_CLI_PIPE_H

#include "format/format.h"

/*
 * Copies every batch of r into w, closing w on success and aborting it on
 * failure; *rows gets the number of rows copied. r stays open.
 */
int cli_pipe(fmt_reader_t *r, fmt_writer_t *w, uint64_t *rows, fl_err_t *err);

#endif
