/*
 * row_change.c - one commit of deleted and added rows (layer 12, cli);
 * see row_change.h for the modes.
 *
 * The base scan is planned once (snapshot, filter, the table's columns
 * plus "$pos"); its tasks, sorted by data file path, index the deleted
 * positions, which arrive in any order and are sorted and deduplicated at
 * commit. States: COLLECTING (delete, delete_file, insert) -> COMMITTED |
 * FAILED; free deletes what an uncommitted change wrote (the data writer
 * of new and rewritten rows, the writers of position delete files, the
 * deletion vector files).
 */
#include "cli/row_change.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/strset.h"
#include "exec/ex_vec.h"
#include "iceberg/ice_commit.h"
#include "iceberg/ice_data_writer.h"
#include "iceberg/ice_dv.h"

typedef struct task_change {
  int64_t *pos;
  size_t n, cap;
  bool whole, all_deletes;
} task_change_t;

typedef struct path_ref {
  const char *path;
  uint32_t task;
} path_ref_t;

struct cli_rc {
  ice_table_t *t;
  const char *branch;
  cli_rc_mode_t mode;
  fl_arena_t *a;
  ice_scan_t *scan;
  const ice_scan_task_t *tasks;
  uint32_t ntasks;
  path_ref_t *by_path; /* the tasks sorted by data file path */
  task_change_t *changes;
  uint32_t last; /* the task of the previous delete (rows come grouped) */
  ice_dw_t *w;   /* new and rewritten rows */
  uint64_t inserted;
  ice_dw_t **del_writers; /* position delete files (v2 merge-on-read) */
  uint32_t ndel_writers;
  const char **dv_paths; /* deletion vector files written (v3) */
  uint32_t ndv;
  bool committed;
  ex_write_adapt_t adapt; /* new rows' varbinary values for fixed columns */
};

int cli_rc_mode(const ice_table_t *t, const char *property, cli_rc_mode_t *out, fl_err_t *err) {
  const char *v = ice_meta_property(t->meta, property);
  *out = CLI_RC_COPY_ON_WRITE;
  if (!v || strcasecmp(v, "copy-on-write") == 0) return FL_OK;
  if (strcasecmp(v, "merge-on-read") == 0) {
    *out = CLI_RC_MERGE_ON_READ;
    return FL_OK;
  }
  return fl_err_set(err, FL_EINVALID,
                    "table %s: property %s is '%s'; expected copy-on-write or merge-on-read",
                    t->ident, property, v);
}

static int cmp_path_ref(const void *x, const void *y) {
  return strcmp(((const path_ref_t *)x)->path, ((const path_ref_t *)y)->path);
}

int cli_rc_open(ice_table_t *t, const char *branch, int64_t snapshot_id, const ice_expr_t *filter,
                cli_rc_mode_t mode, cli_rc_t **out, fl_err_t *err) {
  cli_rc_t *rc = fl_calloc(1, sizeof *rc);
  rc->t = t;
  rc->branch = branch;
  rc->mode = mode;
  rc->a = fl_arena_new(0);
  *out = rc;
  const ty_schema_t *schema = ice_meta_schema(t->meta);
  uint32_t n = schema->root.nfields;
  const char **cols = fl_arena_alloc(rc->a, (n + 1) * sizeof *cols);
  for (uint32_t i = 0; i < n; i++) cols[i] = schema->root.fields[i].name;
  cols[n] = "$pos";
  ice_scan_opts_t so = {.snapshot_id = snapshot_id,
                        .as_of_ms = -1,
                        .limit = -1,
                        .case_sensitive = true,
                        .ref = snapshot_id < 0 ? branch : NULL,
                        .filter = filter,
                        .columns = cols,
                        .ncolumns = n + 1};
  int r = ice_scan_plan(t, &so, &rc->scan, err);
  if (r) return r;
  rc->tasks = ice_scan_tasks(rc->scan, &rc->ntasks);
  rc->by_path = fl_arena_alloc(rc->a, (rc->ntasks ? rc->ntasks : 1) * sizeof *rc->by_path);
  for (uint32_t i = 0; i < rc->ntasks; i++)
    rc->by_path[i] = (path_ref_t){.path = rc->tasks[i].data->file.path, .task = i};
  qsort(rc->by_path, rc->ntasks, sizeof *rc->by_path, cmp_path_ref);
  rc->changes = fl_arena_zalloc(rc->a, (rc->ntasks ? rc->ntasks : 1) * sizeof *rc->changes);
  const ice_sort_order_t *so_ = ice_meta_sort_order(t->meta);
  ice_dw_opts_t o = {.spec = ice_meta_spec(t->meta),
                     .props = t->meta->properties,
                     .nprops = t->meta->nproperties,
                     .sort_order_id = so_ ? so_->order_id : 0};
  return ice_dw_open(t->fs, t->meta->location, schema, &o, &rc->w, err);
}

ice_scan_t *cli_rc_scan(cli_rc_t *rc) { return rc->scan; }

int64_t cli_rc_base(const cli_rc_t *rc) {
  const ice_snapshot_t *s = rc->scan ? ice_scan_snapshot(rc->scan) : NULL;
  return s ? s->snapshot_id : -1;
}

static int path_cmp(const char *p, size_t n, const char *q) {
  int c = strncmp(p, q, n);
  if (c) return c;
  return q[n] ? -1 : 0;
}

int cli_rc_delete(cli_rc_t *rc, const char *path, size_t path_len, int64_t pos, fl_err_t *err) {
  uint32_t ti = rc->last;
  if (ti >= rc->ntasks || path_cmp(path, path_len, rc->tasks[ti].data->file.path) != 0) {
    uint32_t lo = 0, hi = rc->ntasks;
    while (lo < hi) {
      uint32_t mid = (lo + hi) / 2;
      int c = path_cmp(path, path_len, rc->by_path[mid].path);
      if (c == 0) {
        lo = mid;
        break;
      }
      if (c < 0)
        hi = mid;
      else
        lo = mid + 1;
    }
    if (lo >= rc->ntasks || path_cmp(path, path_len, rc->by_path[lo].path) != 0)
      return fl_err_set(err, FL_EINTERNAL, "table %s: row of %.*s is not in the planned files",
                        rc->t->ident, (int)path_len, path);
    ti = rc->last = rc->by_path[lo].task;
  }
  task_change_t *c = &rc->changes[ti];
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 256;
    c->pos = fl_realloc(c->pos, c->cap * sizeof *c->pos);
  }
  c->pos[c->n++] = pos;
  return FL_OK;
}

int cli_rc_delete_file(cli_rc_t *rc, uint32_t task, bool all_deletes, fl_err_t *err) {
  if (task >= rc->ntasks)
    return fl_err_set(err, FL_EINVALID, "table %s: no task %u", rc->t->ident, task);
  rc->changes[task].whole = true;
  rc->changes[task].all_deletes = all_deletes;
  return FL_OK;
}

int cli_rc_insert(cli_rc_t *rc, const ty_batch_t *b, fl_err_t *err) {
  ty_batch_t view;
  int r = ex_write_adapt(&rc->adapt, ice_meta_schema(rc->t->meta), b, &view, err);
  if (r) return r;
  rc->inserted += ty_batch_live(b);
  return ice_dw_write(rc->w, &view, err);
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return a < b ? -1 : a > b;
}

/* Sorts and deduplicates; false when there was a duplicate. */
static bool sort_unique(task_change_t *c) {
  if (c->n < 2) return true;
  qsort(c->pos, c->n, sizeof *c->pos, cmp_i64);
  size_t w = 1;
  for (size_t i = 1; i < c->n; i++)
    if (c->pos[i] != c->pos[w - 1]) c->pos[w++] = c->pos[i];
  bool unique = w == c->n;
  c->n = w;
  return unique;
}

/* Copy-on-write: the task's live rows but the deleted ones into rc->w. */
static int rewrite(cli_rc_t *rc, uint32_t ti, const task_change_t *c, fl_err_t *err) {
  int r = ice_scan_read_task(rc->scan, ti, err);
  if (r) return r;
  const ty_schema_t *schema = ice_meta_schema(rc->t->meta);
  uint32_t n = schema->root.nfields;
  uint32_t *keep = NULL, cap = 0;
  size_t j = 0;
  for (;;) {
    ty_batch_t *b;
    if ((r = ice_scan_next(rc->scan, &b, err)) || !b) break;
    uint32_t live = ty_batch_live(b);
    if (live > cap) {
      cap = b->nrows > live ? b->nrows : live;
      keep = fl_realloc(keep, cap * sizeof *keep);
    }
    const int64_t *pv = TY_VEC_DATA(b->cols[n], int64_t);
    uint32_t nk = 0;
    for (uint32_t k = 0; k < live; k++) {
      uint32_t row = b->sel ? b->sel[k] : k;
      int64_t p = pv[row];
      while (j < c->n && c->pos[j] < p) j++;
      if (j < c->n && c->pos[j] == p) continue;
      keep[nk++] = row;
    }
    if (!nk) continue;
    ty_batch_t view = *b;
    view.schema = schema;
    view.ncols = n;
    view.sel = keep;
    view.nsel = nk;
    if ((r = ice_dw_write(rc->w, &view, err))) break;
  }
  fl_free(keep);
  return r;
}

static bool is_dv(const ice_data_file_t *d) {
  return (d->format && strcasecmp(d->format, "PUFFIN") == 0) || d->content_offset >= 0;
}

/* Delete files of a task that only concern its data file. */
static bool file_scoped(const ice_manifest_entry_t *d, const char *path) {
  return d->file.content == ICE_CONTENT_POSITION_DELETES && d->file.referenced_data_file &&
         strcmp(d->file.referenced_data_file, path) == 0;
}

typedef struct list {
  void **v;
  uint32_t n, cap;
  fl_arena_t *a;
} list_t;

static void list_push(list_t *l, void *x) {
  if (l->n == l->cap) {
    uint32_t cap = l->cap ? 2 * l->cap : 32;
    void **bigger = fl_arena_alloc(l->a, cap * sizeof *bigger);
    if (l->n) memcpy(bigger, l->v, l->n * sizeof *bigger);
    l->v = bigger;
    l->cap = cap;
  }
  l->v[l->n++] = x;
}

/* Merge-on-read, v2: a position delete file for the task's data file. */
static int write_pos_deletes(cli_rc_t *rc, const ice_data_file_t *df, const task_change_t *c,
                             list_t *add, fl_err_t *err) {
  const ice_spec_t *spec = ice_meta_spec_by_id(rc->t->meta, df->spec_id);
  ice_dw_opts_t o = {.content = ICE_CONTENT_POSITION_DELETES,
                     .spec = spec,
                     .partition = df->npartition ? df->partition : NULL,
                     .props = rc->t->meta->properties,
                     .nprops = rc->t->meta->nproperties,
                     .sort_order_id = -1};
  ice_dw_t *w;
  int r = ice_dw_open(rc->t->fs, rc->t->meta->location, ice_meta_schema(rc->t->meta), &o, &w, err);
  if (r) return r;
  rc->del_writers = fl_realloc(rc->del_writers, (rc->ndel_writers + 1) * sizeof *rc->del_writers);
  rc->del_writers[rc->ndel_writers++] = w;
  for (size_t i = 0; i < c->n && !r; i++) r = ice_dw_delete_position(w, df->path, c->pos[i], err);
  ice_data_file_t *files;
  size_t nf;
  if (!r) r = ice_dw_close(w, rc->a, &files, &nf, err);
  for (size_t i = 0; !r && i < nf; i++) list_push(add, &files[i]);
  return r;
}

/* Merge-on-read, v3: the data file's deletion vector, old positions and
 * new; the deletes it replaces go. */
static int write_dv(cli_rc_t *rc, uint32_t ti, const task_change_t *c, list_t *add, list_t *remove,
                    fl_err_t *err) {
  const ice_scan_task_t *task = &rc->tasks[ti];
  const ice_data_file_t *df = &task->data->file;
  int64_t *old = NULL;
  size_t nold = 0;
  int r = ice_scan_task_positions(rc->scan, ti, &old, &nold, err);
  if (r) return r;
  int64_t *all = fl_malloc((nold + c->n + 1) * sizeof *all);
  size_t n = 0, i = 0, j = 0;
  while (i < nold || j < c->n) {
    int64_t x;
    if (j >= c->n || (i < nold && old[i] < c->pos[j]))
      x = old[i++];
    else if (i >= nold || c->pos[j] < old[i])
      x = c->pos[j++];
    else {
      x = old[i++];
      j++;
    }
    all[n++] = x;
  }
  fl_free(old);
  ice_data_file_t *dv = fl_arena_alloc(rc->a, sizeof *dv);
  r = ice_dv_write(rc->t, df, all, n, rc->a, dv, err);
  fl_free(all);
  if (r) return r;
  rc->dv_paths = fl_realloc(rc->dv_paths, (rc->ndv + 1) * sizeof *rc->dv_paths);
  rc->dv_paths[rc->ndv++] = dv->path;
  list_push(add, dv);
  for (uint32_t k = 0; k < task->ndeletes; k++)
    if (file_scoped(task->deletes[k], df->path) || is_dv(&task->deletes[k]->file))
      list_push(remove, (void *)task->deletes[k]->file.path);
  return FL_OK;
}

/* Whether the task's earlier position deletes and the new ones together
 * remove every row of its data file (which then goes whole). */
static int all_rows_gone(cli_rc_t *rc, uint32_t ti, const task_change_t *c, bool *out,
                         fl_err_t *err) {
  const ice_scan_task_t *task = &rc->tasks[ti];
  *out = false;
  int64_t *old = NULL;
  size_t nold = 0;
  int r = ice_scan_task_positions(rc->scan, ti, &old, &nold, err);
  if (r) return r;
  /* The new positions are live rows, so none is among the old ones. */
  *out = (int64_t)(nold + c->n) >= task->data->file.record_count;
  fl_free(old);
  return FL_OK;
}

int cli_rc_commit(cli_rc_t *rc, const ice_expr_t *conflict, const char *dup_msg, cli_rc_stats_t *st,
                  fl_err_t *err) {
  memset(st, 0, sizeof *st);
  list_t add = {.a = rc->a}, remove = {.a = rc->a};
  fl_strset_t removed;
  fl_strset_init(&removed);
  int r = FL_OK;
  bool v3 = rc->t->meta->format_version >= 3;
  for (uint32_t ti = 0; ti < rc->ntasks && !r; ti++) {
    task_change_t *c = &rc->changes[ti];
    if (!sort_unique(c) && dup_msg) r = fl_err_set(err, FL_EINVALID, "%s", dup_msg);
  }
  for (uint32_t ti = 0; ti < rc->ntasks && !r; ti++) {
    task_change_t *c = &rc->changes[ti];
    const ice_scan_task_t *task = &rc->tasks[ti];
    const ice_data_file_t *df = &task->data->file;
    if (!c->whole && c->n == 0) continue;
    st->deleted_rows += c->n;
    bool whole = c->whole || (int64_t)c->n >= df->record_count;
    if (!whole && task->ndeletes && (r = all_rows_gone(rc, ti, c, &whole, err))) break;
    if (!whole && rc->mode == CLI_RC_MERGE_ON_READ) {
      r = v3 ? write_dv(rc, ti, c, &add, &remove, err) : write_pos_deletes(rc, df, c, &add, err);
      continue;
    }
    if (!whole && (r = rewrite(rc, ti, c, err))) break;
    list_push(&remove, (void *)df->path);
    st->data_files_removed++;
    /* Deletes of a file that goes would dangle: those scoped to it go too. */
    for (uint32_t k = 0; k < task->ndeletes; k++)
      if (c->all_deletes || file_scoped(task->deletes[k], df->path))
        list_push(&remove, (void *)task->deletes[k]->file.path);
  }
  ice_data_file_t *files = NULL;
  size_t nfiles = 0;
  if (!r) r = ice_dw_close(rc->w, rc->a, &files, &nfiles, err);
  if (r) goto out;
  st->inserted_rows = rc->inserted;
  st->data_files_added = (uint32_t)nfiles;
  st->delete_files_added = add.n;
  uint32_t nadd = (uint32_t)nfiles + add.n;
  if (nadd == 0 && remove.n == 0) goto out;
  ice_data_file_t *all = fl_arena_alloc(rc->a, (nadd ? nadd : 1) * sizeof *all);
  if (nfiles) memcpy(all, files, nfiles * sizeof *all);
  for (uint32_t i = 0; i < add.n; i++) all[nfiles + i] = *(ice_data_file_t *)add.v[i];
  /* A delete file shared by several data files is removed once. */
  const char **rm = fl_arena_alloc(rc->a, (remove.n ? remove.n : 1) * sizeof *rm);
  uint32_t nrm = 0;
  for (uint32_t i = 0; i < remove.n; i++)
    if (fl_strset_add_str(&removed, remove.v[i])) rm[nrm++] = remove.v[i];
  ice_expr_t *always = conflict ? NULL : ice_expr_const(rc->a, true);
  ice_change_t ch = {/* Without delete files (copy-on-write, or only whole files going)
                      * an overwrite, which Java names "delete" when it only removes. */
                     .kind = add.n ? ICE_CHANGE_ROW_DELTA : ICE_CHANGE_OVERWRITE,
                     .branch = rc->branch,
                     .add = all,
                     .nadd = nadd,
                     .remove = rm,
                     .nremove = nrm,
                     .conflict_filter = conflict ? conflict : always,
                     .base_snapshot_id = cli_rc_base(rc)};
  ice_commit_result_t res = {0};
  r = ice_commit(rc->t, &ch, &res, err);
  if (r == FL_ECONFLICT && !err->retriable) {
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    fl_err_set(err, FL_ECONFLICT, "%s; nothing was changed, run the statement again", msg);
    err->retriable = true;
  }
  if (!r) {
    rc->committed = true;
    st->committed = true;
    st->snapshot_id = res.snapshot_id;
  }
out:
  fl_strset_free(&removed);
  return r;
}

void cli_rc_free(cli_rc_t *rc) {
  if (!rc) return;
  for (uint32_t i = 0; i < rc->ndel_writers; i++) {
    if (rc->committed)
      ice_dw_free(rc->del_writers[i]);
    else
      ice_dw_abort(rc->del_writers[i]);
  }
  if (rc->w) {
    if (rc->committed)
      ice_dw_free(rc->w);
    else
      ice_dw_abort(rc->w);
  }
  if (!rc->committed)
    for (uint32_t i = 0; i < rc->ndv; i++) {
      fl_err_t ignored;
      rc->t->fs->remove(rc->t->fs, ice_table_path(rc->t, rc->a, rc->dv_paths[i]), &ignored);
    }
  for (uint32_t i = 0; i < rc->ntasks; i++) fl_free(rc->changes[i].pos);
  fl_free(rc->del_writers);
  fl_free(rc->dv_paths);
  ice_scan_free(rc->scan);
  fl_arena_free(rc->a);
  ex_write_adapt_free(&rc->adapt);
  fl_free(rc);
}
