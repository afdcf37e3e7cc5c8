/*
 * st_sink_iceberg.h - the end of a job's INSERT: rows into Parquet data
 * files of an Iceberg table, handed over per checkpoint (layer 10,
 * stream).
 *
 * The sink is an operator (ex_operator.h) whose input columns are the
 * table's, in order and of its types (the INSERT's bound plan). It writes
 * them with the table's data writer (ice_data_writer.h: the partition
 * spec, target file size and Parquet properties of the table). Between
 * two checkpoints one writer is open (an epoch); at a checkpoint the sink
 * closes it and returns the files - the pending commit of that
 * checkpoint - and the next row opens a new writer. Before a writer
 * writes anything, the sink calls the on_writer hook with its uuid and
 * data folder, so that the job can find its files again if the
 * checkpoint never completes. Watermarks and finish end here.
 */
#ifndef FL_STREAM_SINK_ICEBERG_H
#define FL_STREAM_SINK_ICEBERG_H

#include "exec/ex_operator.h"
#include "iceberg/ice_manifest.h"
#include "iceberg/ice_table.h"

typedef struct st_sink st_sink_t;

/* Called when a writer opens: return non-zero to fail the write. */
typedef int (*st_sink_writer_fn)(void *arg, const char *uuid, const char *data_dir, fl_err_t *err);

/* A sink for table t (kept, not owned) whose input has schema in (the
 * table's columns). */
st_sink_t *st_sink_new(ice_table_t *t, const ty_schema_t *in, st_sink_writer_fn on_writer,
                       void *arg);
ex_op_t *st_sink_op(st_sink_t *s);
/* Closes the open writer and returns its files (in a; *n may be 0). */
int st_sink_take_files(st_sink_t *s, fl_arena_t *a, ice_data_file_t **files, size_t *n,
                       fl_err_t *err);
/* Rows written since the sink was made. */
uint64_t st_sink_rows(const st_sink_t *s);
void st_sink_free(st_sink_t *s);

#endif
