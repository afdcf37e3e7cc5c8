/*
 * ice_scan_int.h - the state of one table scan, shared by ice_scan_plan.c
 * (snapshot choice, pruning, pairing deletes), ice_scan_read.c (reading
 * data files into batches) and ice_scan_deletes.c (loading delete files)
 * (layer 5, private).
 *
 * Planning fills the scan's arena with the chosen snapshot's schema, the
 * bound filter, the projection and the tasks; reading walks the tasks one
 * data file at a time with one Parquet reader open, and keeps loaded
 * equality delete sets only while a later task still needs them.
 */
#ifndef FL_ICEBERG_ICE_SCAN_INT_H
#define FL_ICEBERG_ICE_SCAN_INT_H

#include "base/strset.h"
#include "format/parquet/pq_reader.h"
#include "iceberg/ice_int.h"
#include "iceberg/ice_scan.h"

/* The reserved field ids of position delete files. */
#define ICE_POS_FILE_PATH_ID 2147483546
#define ICE_POS_POS_ID 2147483545

/* A loaded equality delete file: the keys of its rows over its equality
 * ids (values converted to the scan schema's types, ice__eq_key form). */
typedef struct ice_eq_set {
  const ice_manifest_entry_t *file;
  uint32_t nids;
  const int32_t *ids;
  fl_strset_t keys;
  bool loaded;
  uint32_t last_task; /* the last task that applies it: freed after it */
} ice_eq_set_t;

struct ice_scan {
  const ice_table_t *t;
  fl_arena_t *a; /* planning: schemas, filter, tasks, delete entries */
  const ice_snapshot_t *snap;
  const ty_schema_t *schema; /* the snapshot's (or current) schema */
  const ty_schema_t *proj;   /* what batches carry */
  /* The hidden "$path", "$pos" and "$partition" columns of proj; -1: none. */
  int32_t path_col, pos_col, partition_col;
  int32_t modified_col;      /* "$file_modified_time"; -1: none */
  ice_expr_t *filter;        /* bound to schema; NULL: all rows */
  bool prune_only;           /* filter prunes only, rows are not tested */
  int64_t limit;
  const char *name_mapping; /* schema.name-mapping.default, NULL: none */
  ice_scan_task_t *tasks;
  uint32_t ntasks;
  ice_scan_stats_t stats;

  /* Reading. */
  ice_eq_set_t *eq_sets; /* one per distinct equality delete file of the tasks */
  uint32_t neq_sets;
  uint32_t task_i;   /* next task to open */
  uint32_t task_end; /* one past the last task to read; 0: all (ice_scan_read_task) */
  bool done;
  struct ice_task_state *cur; /* the open task (ice_scan_read.c) */
  ty_batch_t *out;
  /* A fork (ice_scan_fork) shares its parent's planning and arena, which
   * it must not free; it owns only its reading state. */
  bool is_fork;
  /* Row groups [rg_begin, rg_end) of the next data file opened by a
   * task (rg_end 0: all); set by ice_scan_read_range. */
  uint32_t rg_begin, rg_end;
  bool rg_active; /* while open_task opens the data file itself */
};

/* ---- planning helpers (ice_scan_plan.c) ---- */

/* The pruned copy of struct type st keeping the fields whose ids (or whose
 * descendants' ids) are listed; a listed field keeps its whole subtree. */
const ty_type_t *ice__prune_struct(fl_arena_t *a, const ty_type_t *st, const int32_t *ids,
                                   uint32_t n);

/* ---- deletes (ice_scan_deletes.c) ---- */

/*
 * Reads the positions that the position delete files of task delete
 * from data file data_path (as written in the manifest), sorted and
 * deduplicated, into a malloc'd array.
 */
int ice__load_positions(ice_scan_t *s, const ice_scan_task_t *task, int64_t **out, size_t *n,
                        fl_err_t *err);
/* Loads (once) the key set of an equality delete file. */
int ice__load_eq_set(ice_scan_t *s, ice_eq_set_t *set, fl_err_t *err);
/* Appends the null-safe key of row r over the columns (one per id) to key. */
void ice__eq_key(const ty_vec_t *const *cols, uint32_t ncols, uint32_t r, fl_buf_t *key);

/* ---- reading (ice_scan_read.c) ---- */

/*
 * One open Parquet file of a scan: opened with the file's top-level
 * columns standing for the table columns top_ids (those it has), row
 * groups and pages pruned by pred (terms over table ids, translated to
 * the file's and dropped where the file's type differs). Raw batches come
 * in the file's types; ice__file_convert turns chosen rows into a batch
 * of any schema made of the scan schema's fields (missing columns null or
 * initial-default, promoted types widened). df (NULL: none) gives the
 * identity partition values that stand in for source columns the file
 * lacks.
 */
typedef struct ice_file_read ice_file_read_t;
int ice__file_open(ice_scan_t *s, const char *path, const ice_data_file_t *df,
                   const int32_t *top_ids, uint32_t ntop, const pq_pred_term_t *pred,
                   uint32_t npred, ice_file_read_t **out, fl_err_t *err);
/* The next raw batch (file schema; NULL at the end) and its first row's position. */
int ice__file_next(ice_file_read_t *f, ty_batch_t **raw, int64_t *first_pos, fl_err_t *err);
/*
 * Appends rows[0..n) of the raw batch (ascending), converted, to dst (its
 * schema's columns). With take, raw is not read again before the next
 * ice__file_next: columns that need no conversion may then be moved out of
 * it into an empty dst instead of copied, when every raw row is wanted.
 */
int ice__file_convert(ice_file_read_t *f, ty_batch_t *raw, const uint32_t *rows, uint32_t n,
                      bool take, ty_batch_t *dst, fl_err_t *err);
const pq_read_stats_t *ice__file_stats(const ice_file_read_t *f);
void ice__file_close(ice_file_read_t *f);

/* The columns of b (schema sch) for the given ids, found through structs
 * (NULL where an id is not found or sits under a list or map). */
void ice__find_cols(const ty_schema_t *sch, const ty_batch_t *b, const int32_t *ids, uint32_t n,
                    const ty_vec_t **out);

#endif
