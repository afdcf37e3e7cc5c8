/*
 * st_checkpoint.h - the files of a job's checkpoints (layer 10, stream).
 *
 * Layout under <warehouse>/_floe/jobs/<job-id>/:
 *   chk-<n>/state.bin       operator state of every query (ex_query_checkpoint)
 *   chk-<n>/pending-<i>.avro the data files sink i wrote since checkpoint
 *                           n-1, as an Iceberg manifest (ADDED entries with
 *                           their metrics and partition values): the
 *                           pending commit of checkpoint n for that table
 *   chk-<n>/_metadata       JSON, written last (temporary file, fsync,
 *                           rename): job id, checkpoint id, time, source
 *                           positions, the sinks with their tables and
 *                           pending manifests. A checkpoint exists when
 *                           and only when this file does.
 *   writers/<n>-<uuid>      one per data writer opened for checkpoint n,
 *                           holding the writer's data folder: how recovery
 *                           finds the files of a checkpoint that never
 *                           completed (names carry the writer's uuid)
 * Only local warehouses (paths or file:// URIs) hold checkpoints for now.
 */
#ifndef FL_STREAM_CHECKPOINT_H
#define FL_STREAM_CHECKPOINT_H

#include <jansson.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "iceberg/ice_manifest.h"
#include "iceberg/ice_table.h"

typedef struct st_ckpt_store st_ckpt_store_t;

/* Opens (creating the folders of) the store of job_id under warehouse. */
int st_ckpt_open(const char *warehouse, const char *job_id, st_ckpt_store_t **out, fl_err_t *err);
void st_ckpt_close(st_ckpt_store_t *s);
const char *st_ckpt_job_dir(const st_ckpt_store_t *s);

/* The newest checkpoint whose _metadata exists (0: none). */
int st_ckpt_latest(st_ckpt_store_t *s, int64_t *id, fl_err_t *err);

/* chk-<id>/ (created). */
int st_ckpt_begin(st_ckpt_store_t *s, int64_t id, fl_err_t *err);
/* Writes / reads chk-<id>/<name> whole. */
int st_ckpt_write_blob(st_ckpt_store_t *s, int64_t id, const char *name, const void *data,
                       size_t len, fl_err_t *err);
int st_ckpt_read_blob(st_ckpt_store_t *s, int64_t id, const char *name, uint8_t **data, size_t *len,
                      fl_err_t *err);
/* The pending files of a sink as chk-<id>/<name>, a manifest of table t's
 * current schema and spec; read back in a. */
int st_ckpt_write_files(st_ckpt_store_t *s, int64_t id, const char *name, const ice_table_t *t,
                        const ice_data_file_t *files, size_t n, fl_err_t *err);
int st_ckpt_read_files(st_ckpt_store_t *s, int64_t id, const char *name, const ice_table_t *t,
                       int32_t spec_id, fl_arena_t *a, ice_data_file_t **files, size_t *n,
                       fl_err_t *err);
/* The _metadata file: written last and atomically; read back (new ref). */
int st_ckpt_write_meta(st_ckpt_store_t *s, int64_t id, const json_t *meta, fl_err_t *err);
int st_ckpt_read_meta(st_ckpt_store_t *s, int64_t id, json_t **out, fl_err_t *err);

/* Records a data writer opened for checkpoint id (before it writes). */
int st_ckpt_note_writer(st_ckpt_store_t *s, int64_t id, const char *uuid, const char *data_dir,
                        fl_err_t *err);
/* Writers of checkpoints after `complete`: deletes their data files and
 * records; records of checkpoints up to it are dropped (their files are
 * committed). *deleted counts the files removed. */
int st_ckpt_clean_writers(st_ckpt_store_t *s, int64_t complete, uint64_t *deleted, fl_err_t *err);
/* Removes checkpoint folders older than the newest `keep` up to id, and
 * any folder after id (incomplete ones). */
void st_ckpt_prune(st_ckpt_store_t *s, int64_t id, int keep);

#endif
