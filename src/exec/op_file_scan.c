/*
 * op_file_scan.c - the scan of a table function's files (read_parquet,
 * read_csv, read_json) as a pipeline source (layer 8, exec).
 *
 * Algorithm: the binder has listed the files and unified their schemas
 * (sql/sql_bind_files.c). run() opens one file at a time through the
 * format layer, behind a file-system wrapper that counts the bytes read
 * into the query's progress counters:
 *
 *   - Parquet: a first open reads the footer, the wanted columns are
 *     found in the file's schema by name (ignoring case), and the
 *     pushed-down filter's conjuncts over columns the file has are bound
 *     to the file's own schema and turned into the reader's AND-terms, so
 *     row groups whose statistics rule them out are skipped (conjuncts
 *     that do not bind prune nothing). The second open reads the columns.
 *   - CSV and JSON: the reader decodes with the unified schema cut down to
 *     the wanted columns (header names and JSON members are matched by
 *     name, so unread columns are skipped by the decoder; a CSV file
 *     without a header gets the whole schema, as it matches by position).
 *
 * Each raw batch becomes an output batch of the wanted columns: a file
 * column already in the output's storage type is passed on as it is (no
 * copy), an int or float column of a file where other files have long or
 * double is widened into a scratch vector, a column the file lacks is a
 * vector of NULLs, the filename column holds the file's path and a Hive
 * partition column the value of the file's key=value folder. Before a
 * file is opened, the filter's conjuncts over partition keys are
 * evaluated on its folder values, and a file they rule out is skipped.
 * The scan stops after `limit` rows or when the pipeline's stop flag
 * rises.
 *
 * States: BETWEEN FILES (no reader open), IN A FILE (reader open, batches
 * flowing), DONE (every file read, the limit reached or stopped; the
 * consumer has been finished).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/time.h"
#include "exec/ex_vec.h"
#include "exec/op_basic.h"
#include "format/parquet/pq_reader.h"

/* ---- a file system that counts what it reads ---- */

typedef struct file_src file_src_t;

typedef struct count_reader {
  io_reader_t r;
  io_reader_t *base;
  file_src_t *src;
} count_reader_t;

typedef struct count_fs {
  io_fs_t fs;
  io_fs_t *base;
  file_src_t *src;
} count_fs_t;

typedef enum out_kind {
  OUT_PASS,
  OUT_WIDEN,
  OUT_NULL,
  OUT_FILENAME,
  OUT_HIVE,
  OUT_ADAPT /* fixed(L) somewhere in it, read as varbinary (ex_vec_adapt) */
} out_kind_t;

typedef struct out_col {
  out_kind_t kind;
  uint32_t src; /* raw batch column (PASS, WIDEN); key (HIVE) */
  ty_vec_t *scratch;
} out_col_t;

struct file_src {
  ex_source_t src;
  const sql_files_t *files;
  const char *const *columns;
  uint32_t ncols;
  const ty_schema_t *out_schema;
  const ice_expr_t *filter;
  int64_t limit;
  ex_progress_t *progress;
  count_fs_t cfs;
  /* Partition pruning: the filter's conjuncts over partition keys, bound
   * to hive_schema (the keys' columns), and a one-row batch of a file's
   * partition values; NULL: none. */
  fl_arena_t *ca;
  const ty_schema_t *hive_schema;
  ice_expr_t *hive_filter;
  ty_batch_t *hive_row;
  uint64_t files_pruned;
  /* The file being read. */
  uint32_t cur;
  fl_arena_t *fa;
  uint64_t cur_bytes, cur_size;
  out_col_t *oc;
  ty_batch_t out;
  /* EXPLAIN ANALYZE. */
  uint64_t files_read, row_groups_read, row_groups_skipped, rows_read, bytes_read;
};

static void credit(file_src_t *s, uint64_t n) {
  s->bytes_read += n;
  if (!s->progress) return;
  ex_progress_add(&s->progress->bytes, n);
  /* Work of the current file counts up to its size. */
  uint64_t before = s->cur_bytes < s->cur_size ? s->cur_bytes : s->cur_size;
  s->cur_bytes += n;
  uint64_t after = s->cur_bytes < s->cur_size ? s->cur_bytes : s->cur_size;
  if (after > before) ex_progress_add(&s->progress->work_done, after - before);
}

static int cr_read_at(io_reader_t *r, uint64_t off, void *buf, size_t n, fl_err_t *err) {
  count_reader_t *c = (count_reader_t *)r;
  int rc = c->base->read_at(c->base, off, buf, n, err);
  if (!rc) credit(c->src, n);
  return rc;
}

static void cr_close(io_reader_t *r) {
  count_reader_t *c = (count_reader_t *)r;
  c->base->close(c->base);
  fl_free(c);
}

static int cfs_open_read(io_fs_t *fs, const char *path, io_reader_t **out, fl_err_t *err) {
  count_fs_t *c = (count_fs_t *)fs;
  io_reader_t *base;
  int rc = c->base->open_read(c->base, path, &base, err);
  if (rc) return rc;
  count_reader_t *r = fl_calloc(1, sizeof *r);
  r->base = base;
  r->src = c->src;
  r->r.path = base->path;
  r->r.size = base->size;
  r->r.read_at = cr_read_at;
  r->r.close = cr_close;
  *out = &r->r;
  return FL_OK;
}

static int cfs_create(io_fs_t *fs, const char *path, bool exclusive, io_writer_t **out,
                      fl_err_t *err) {
  count_fs_t *c = (count_fs_t *)fs;
  return c->base->create(c->base, path, exclusive, out, err);
}
static int cfs_remove(io_fs_t *fs, const char *path, fl_err_t *err) {
  count_fs_t *c = (count_fs_t *)fs;
  return c->base->remove(c->base, path, err);
}
static int cfs_exists(io_fs_t *fs, const char *path, bool *out, fl_err_t *err) {
  count_fs_t *c = (count_fs_t *)fs;
  return c->base->exists(c->base, path, out, err);
}
static int cfs_list(io_fs_t *fs, const char *prefix, io_entry_t **out, size_t *n, fl_err_t *err) {
  count_fs_t *c = (count_fs_t *)fs;
  return c->base->list(c->base, prefix, out, n, err);
}
static int cfs_mkdirs(io_fs_t *fs, const char *path, fl_err_t *err) {
  count_fs_t *c = (count_fs_t *)fs;
  return c->base->mkdirs(c->base, path, err);
}

/* ---- per file ---- */

static int find_name(const ty_schema_t *s, const char *name) {
  for (uint32_t i = 0; i < s->root.nfields; i++)
    if (!strcasecmp(s->root.fields[i].name, name)) return (int)i;
  return -1;
}

static bool same_layout(const ty_type_t *a, const ty_type_t *b) {
  if (a->kind != b->kind || a->nfields != b->nfields) return false;
  if (a->kind == TY_DECIMAL) return a->precision == b->precision && a->scale == b->scale;
  if (a->kind == TY_FIXED) return a->length == b->length;
  for (uint32_t i = 0; i < a->nfields; i++)
    if (!same_layout(a->fields[i].type, b->fields[i].type)) return false;
  return true;
}

/* Where each output column comes from in batches of schema raw. */
static int map_columns(file_src_t *s, const char *path, const ty_schema_t *raw, fl_err_t *err) {
  for (uint32_t j = 0; j < s->ncols; j++) {
    out_col_t *o = &s->oc[j];
    const ty_type_t *want = s->out_schema->root.fields[j].type;
    if (s->files->filename && !strcmp(s->columns[j], SQL_FILES_FILENAME)) {
      o->kind = OUT_FILENAME;
      continue;
    }
    int k = find_name(raw, s->columns[j]);
    if (k < 0) {
      o->kind = OUT_NULL;
      for (uint32_t h = 0; h < s->files->nhive; h++)
        if (!strcasecmp(s->files->hive_keys[h], s->columns[j])) {
          o->kind = OUT_HIVE;
          o->src = h;
        }
      continue;
    }
    const ty_type_t *have = raw->root.fields[k].type;
    o->src = (uint32_t)k;
    if (same_layout(have, want)) {
      o->kind = OUT_PASS;
      continue;
    }
    if ((have->kind == TY_INT && want->kind == TY_LONG) ||
        (have->kind == TY_FLOAT && want->kind == TY_DOUBLE)) {
      o->kind = OUT_WIDEN;
      continue;
    }
    if (ex_type_has_fixed(have)) {
      o->kind = OUT_ADAPT;
      continue;
    }
    return fl_err_set(err, FL_EINVALID,
                      "%s: column '%s' has a type that differs from the other files", path,
                      s->columns[j]);
  }
  return FL_OK;
}

/* The conjuncts of e over columns of schema fsch, ANDed (or NULL). */
static ice_expr_t *file_conjuncts(fl_arena_t *a, const ice_expr_t *e, const ty_schema_t *fsch) {
  if (e->kind == ICE_E_AND) {
    ice_expr_t *l = file_conjuncts(a, e->left, fsch), *r = file_conjuncts(a, e->right, fsch);
    return l && r ? ice_expr_and(a, l, r) : l ? l : r;
  }
  if (e->kind == ICE_E_PRED && e->column && find_name(fsch, e->column) >= 0)
    return fl_arena_memdup(a, e, sizeof *e);
  return NULL;
}

/* Opens file i: a fmt_reader over the counting file system. */
static int open_file(file_src_t *s, uint32_t i, fmt_reader_t **out, pq_reader_t **pq,
                     fl_err_t *err) {
  const sql_files_t *f = s->files;
  const char *path = f->paths[i];
  io_fs_t *fs = &s->cfs.fs;
  int rc;
  *out = NULL;
  *pq = NULL;
  if (f->kind == FMT_PARQUET) {
    pq_reader_t *probe;
    int32_t none = 0;
    pq_read_opts_t po = {.field_ids = &none, .nfield_ids = 0};
    if ((rc = pq_reader_open(fs, path, &po, &probe, err))) return rc;
    const ty_schema_t *fsch = pq_reader_file_schema(probe);
    int32_t *ids = fl_arena_zalloc(s->fa, (s->ncols ? s->ncols : 1) * sizeof *ids);
    uint32_t nids = 0;
    for (uint32_t j = 0; j < s->ncols; j++) {
      int k = find_name(fsch, s->columns[j]);
      if (k < 0) continue;
      bool dup = false;
      for (uint32_t m = 0; m < nids; m++) dup |= ids[m] == fsch->root.fields[k].id;
      if (!dup) ids[nids++] = fsch->root.fields[k].id;
    }
    pq_read_opts_t ro = {.field_ids = ids, .nfield_ids = nids};
    ice_expr_t *mine = s->filter ? file_conjuncts(s->fa, s->filter, fsch) : NULL;
    if (mine) {
      ice_expr_t *bound;
      fl_err_t ignored;
      fl_err_clear(&ignored);
      if (ice_expr_bind(s->fa, mine, fsch, false, &bound, &ignored) == FL_OK) {
        pq_pred_term_t *terms = NULL;
        uint32_t nt = 0;
        ice_expr_pq_terms(s->fa, bound, &terms, &nt);
        ro.pred = terms;
        ro.npred = nt;
      }
    }
    pq_reader_close(probe);
    return pq_reader_open(fs, path, &ro, pq, err);
  }
  fmt_read_opts_t o = f->read;
  /* The files' own columns: the schema without the partition keys. */
  const ty_schema_t *full = f->schema;
  if (f->nhive)
    full = ty_schema_new(s->fa, 0, f->schema->root.fields, f->schema->root.nfields - f->nhive);
  if (f->kind == FMT_CSV && o.csv_no_header) {
    o.schema = full;
  } else {
    ty_field_t *fs_ = fl_arena_zalloc(s->fa, (s->ncols ? s->ncols : 1) * sizeof *fs_);
    uint32_t n = 0;
    for (uint32_t j = 0; j < s->ncols; j++) {
      int k = find_name(full, s->columns[j]);
      if (k < 0) continue;
      bool dup = false;
      for (uint32_t m = 0; m < n; m++) dup |= !strcasecmp(fs_[m].name, full->root.fields[k].name);
      if (!dup) fs_[n++] = full->root.fields[k];
    }
    if (n == 0) fs_[n++] = full->root.fields[0]; /* batches must carry their row count */
    o.schema = ty_schema_new(s->fa, 0, fs_, n);
  }
  return fmt_open_reader(fs, path, &o, out, err);
}

static void widen(ty_vec_t *dst, const ty_vec_t *src, uint32_t n) {
  ty_vec_reset(dst);
  ty_vec_reserve(dst, n);
  for (uint32_t r = 0; r < n; r++) {
    if (ty_vec_is_null(src, r)) {
      ty_vec_append_null(dst);
      continue;
    }
    if (src->type->kind == TY_INT)
      ty_vec_append_i64(dst, TY_VEC_DATA(src, int32_t)[r]);
    else
      ty_vec_append_f64(dst, TY_VEC_DATA(src, float)[r]);
  }
}

/* Appends a partition value (text; NULL: null) to v in v's type. */
static void append_hive(ty_vec_t *v, const char *text) {
  if (!text) {
    ty_vec_append_null(v);
    return;
  }
  switch (v->type->kind) {
    case TY_LONG: ty_vec_append_i64(v, strtoll(text, NULL, 10)); return;
    case TY_DATE: {
      int32_t days;
      if (fl_parse_date(text, strlen(text), &days))
        ty_vec_append_i32(v, days);
      else
        ty_vec_append_null(v);
      return;
    }
    default: ty_vec_append_bytes(v, text, strlen(text)); return;
  }
}

/* n copies of a partition value. */
static void fill_hive(ty_vec_t *v, const char *text, uint32_t n) {
  ty_vec_reset(v);
  ty_vec_reserve(v, n);
  for (uint32_t r = 0; r < n; r++) append_hive(v, text);
}

/* The conjuncts of e whose column is a partition key, ANDed (or NULL). */
static ice_expr_t *hive_conjuncts(fl_arena_t *a, const ice_expr_t *e, const sql_files_t *f) {
  if (e->kind == ICE_E_AND) {
    ice_expr_t *l = hive_conjuncts(a, e->left, f), *r = hive_conjuncts(a, e->right, f);
    return l && r ? ice_expr_and(a, l, r) : l ? l : r;
  }
  if (e->kind != ICE_E_PRED || !e->column) return NULL;
  for (uint32_t h = 0; h < f->nhive; h++)
    if (!strcasecmp(f->hive_keys[h], e->column)) return fl_arena_memdup(a, e, sizeof *e);
  return NULL;
}

/* Sets up partition pruning when the filter speaks of partition keys. */
static void setup_hive_pruning(file_src_t *s) {
  const sql_files_t *f = s->files;
  if (!s->filter || !f->nhive) return;
  ice_expr_t *x = hive_conjuncts(s->ca, s->filter, f);
  if (!x) return;
  ty_field_t *fs = fl_arena_zalloc(s->ca, f->nhive * sizeof *fs);
  for (uint32_t h = 0; h < f->nhive; h++) {
    int k = find_name(f->schema, f->hive_keys[h]);
    if (k < 0) return;
    fs[h] = f->schema->root.fields[k];
    fs[h].id = (int32_t)h + 1;
  }
  s->hive_schema = ty_schema_new(s->ca, 0, fs, f->nhive);
  fl_err_t ignored;
  fl_err_clear(&ignored);
  if (ice_expr_bind(s->ca, x, s->hive_schema, false, &s->hive_filter, &ignored)) {
    s->hive_filter = NULL;
    return;
  }
  s->hive_row = ty_batch_new(s->hive_schema, 1);
}

/* Whether file i's partition values may satisfy the filter. */
static bool hive_might_match(file_src_t *s, uint32_t i) {
  if (!s->hive_filter) return true;
  const sql_files_t *f = s->files;
  ty_batch_reset(s->hive_row);
  for (uint32_t h = 0; h < f->nhive; h++)
    append_hive(s->hive_row->cols[h], f->hive_values[(size_t)i * f->nhive + h]);
  ty_batch_seal(s->hive_row);
  uint32_t sel[1], n = 0;
  fl_err_t ignored;
  fl_err_clear(&ignored);
  if (ice_expr_eval_batch(s->hive_filter, s->hive_schema, s->hive_row, sel, &n, &ignored))
    return true;
  return n > 0;
}

/* Builds s->out from a raw batch of the current file. */
static void assemble(file_src_t *s, const ty_batch_t *raw, const char *path) {
  uint32_t n = raw->nrows;
  for (uint32_t j = 0; j < s->ncols; j++) {
    out_col_t *o = &s->oc[j];
    switch (o->kind) {
      case OUT_PASS: s->out.cols[j] = raw->cols[o->src]; break;
      case OUT_WIDEN:
        widen(o->scratch, raw->cols[o->src], n);
        s->out.cols[j] = o->scratch;
        break;
      case OUT_ADAPT: {
        /* fixed to varbinary cannot fail (only the other way checks). */
        fl_err_t ignored;
        ex_vec_adapt(o->scratch, raw->cols[o->src], &ignored);
        s->out.cols[j] = o->scratch;
        break;
      }
      case OUT_NULL:
        ty_vec_reset(o->scratch);
        ty_vec_reserve(o->scratch, n);
        for (uint32_t r = 0; r < n; r++) ty_vec_append_null(o->scratch);
        s->out.cols[j] = o->scratch;
        break;
      case OUT_HIVE:
        fill_hive(o->scratch, s->files->hive_values[(size_t)s->cur * s->files->nhive + o->src], n);
        s->out.cols[j] = o->scratch;
        break;
      case OUT_FILENAME: {
        ty_vec_reset(o->scratch);
        ty_vec_reserve(o->scratch, n);
        size_t len = strlen(path);
        ty_vec_reserve_heap(o->scratch, len * n);
        for (uint32_t r = 0; r < n; r++) ty_vec_append_bytes(o->scratch, path, len);
        s->out.cols[j] = o->scratch;
        break;
      }
    }
  }
  s->out.nrows = n;
  s->out.sel = raw->sel;
  s->out.nsel = raw->nsel;
}

/* Errors of reading a file: the position of the table function's call
 * first (where the statement's caret goes), then the function and the
 * file, then the reader's message (which may give a line and column of
 * the file itself). */
static int name_file(const file_src_t *s, int rc, const char *path, fl_err_t *err) {
  if (!rc) return rc;
  if (strstr(err->msg, path))
    fl_err_prefix(err, "line %u, column %u: %s: ", s->files->pos.line, s->files->pos.col,
                  s->files->func);
  else
    fl_err_prefix(err, "line %u, column %u: %s: %s: ", s->files->pos.line, s->files->pos.col,
                  s->files->func, path);
  return rc;
}

static int read_file(file_src_t *s, uint32_t i, uint64_t *rows_out, bool *limit_hit,
                     fl_err_t *err) {
  const char *path = s->files->paths[i];
  s->cur = i;
  if (!hive_might_match(s, i)) {
    s->files_pruned++;
    if (s->progress) {
      ex_progress_add(&s->progress->files_done, 1);
      ex_progress_add(&s->progress->work_done, s->files->sizes[i]);
    }
    return FL_OK;
  }
  fl_arena_reset(s->fa);
  s->cur_bytes = 0;
  s->cur_size = s->files->sizes[i];
  fmt_reader_t *fr;
  pq_reader_t *pq;
  int rc = open_file(s, i, &fr, &pq, err);
  if (rc) return name_file(s, rc, path, err);
  const ty_schema_t *raw_schema = pq ? pq_reader_schema(pq) : fr->schema;
  if ((rc = map_columns(s, path, raw_schema, err))) goto done;
  for (;;) {
    if (s->src.stop && *s->src.stop) break;
    ty_batch_t *b;
    rc = pq ? pq_reader_next(pq, &b, err) : fr->next(fr, &b, err);
    if (rc) {
      name_file(s, rc, path, err);
      break;
    }
    if (!b) break;
    uint32_t live = ty_batch_live(b);
    s->rows_read += b->nrows;
    if (s->progress) ex_progress_add(&s->progress->rows, live);
    if (!live) continue;
    assemble(s, b, path);
    if ((rc = ex_op_push(s->src.next, &s->out, err))) break;
    *rows_out += live;
    if (s->limit >= 0 && *rows_out >= (uint64_t)s->limit) {
      *limit_hit = true;
      break;
    }
  }
done:
  if (pq) {
    const pq_read_stats_t *st = pq_reader_stats(pq);
    s->row_groups_read += st->row_groups_read;
    s->row_groups_skipped += st->row_groups_skipped;
    pq_reader_close(pq);
  }
  if (fr) fr->close(fr);
  s->files_read++;
  if (s->progress) {
    ex_progress_add(&s->progress->files_done, 1);
    if (s->cur_bytes < s->cur_size)
      ex_progress_add(&s->progress->work_done, s->cur_size - s->cur_bytes);
  }
  return rc;
}

static int file_run(ex_source_t *src, fl_err_t *err) {
  file_src_t *s = (file_src_t *)src;
  uint64_t rows = 0;
  bool limit_hit = false;
  for (uint32_t i = 0; i < s->files->npaths && !limit_hit; i++) {
    if (src->stop && *src->stop) break;
    int rc = read_file(s, i, &rows, &limit_hit, err);
    if (rc) return rc;
  }
  return ex_op_finish(src->next, err);
}

static void file_destroy(ex_source_t *src) {
  file_src_t *s = (file_src_t *)src;
  for (uint32_t j = 0; j < s->ncols; j++) ty_vec_free(s->oc[j].scratch);
  fl_free(s->oc);
  fl_free(s->out.cols);
  fl_arena_free(s->fa);
  ty_batch_free(s->hive_row);
  fl_arena_free(s->ca);
  fl_free(s);
}

bool ex_file_scan_source_format_stats(const ex_source_t *src, uint32_t index, fl_buf_t *out) {
  if (src->run != file_run) return false;
  const file_src_t *s = (const file_src_t *)src;
  fl_buf_printf(out, "scan %u: %s files %llu of %u", index, s->files->func,
                (unsigned long long)s->files_read, s->files->npaths);
  if (s->files->nhive)
    fl_buf_printf(out, " (skipped %llu by partition)", (unsigned long long)s->files_pruned);
  if (s->files->kind == FMT_PARQUET)
    fl_buf_printf(out, ", row groups read %llu (skipped %llu)",
                  (unsigned long long)s->row_groups_read,
                  (unsigned long long)s->row_groups_skipped);
  fl_buf_printf(out, ", rows read %llu, bytes read %llu\n", (unsigned long long)s->rows_read,
                (unsigned long long)s->bytes_read);
  return true;
}

int ex_file_scan_source_new(const sql_files_t *files, const char *const *columns, uint32_t ncols,
                            const ty_schema_t *out_schema, const ice_expr_t *filter, int64_t limit,
                            ex_progress_t *progress, ex_op_t *next, const bool *stop,
                            ex_source_t **out, fl_err_t *err) {
  if (out_schema->root.nfields != ncols)
    return fl_err_set(err, FL_EINTERNAL, "file scan of %s: %u columns but a schema of %u",
                      files->func, ncols, out_schema->root.nfields);
  file_src_t *s = fl_calloc(1, sizeof *s);
  s->src.run = file_run;
  s->src.destroy = file_destroy;
  s->src.next = next;
  s->src.stop = stop;
  s->files = files;
  s->columns = columns;
  s->ncols = ncols;
  s->out_schema = out_schema;
  s->filter = filter;
  s->limit = limit;
  s->progress = progress;
  s->fa = fl_arena_new(0);
  s->ca = fl_arena_new(0);
  setup_hive_pruning(s);
  io_fs_t *base = files->fs ? files->fs : io_local_fs();
  s->cfs = (count_fs_t){.fs = {.name = base->name,
                               .open_read = cfs_open_read,
                               .create = cfs_create,
                               .remove = cfs_remove,
                               .exists = cfs_exists,
                               .list = cfs_list,
                               .mkdirs = cfs_mkdirs},
                        .base = base,
                        .src = s};
  s->oc = fl_calloc(ncols ? ncols : 1, sizeof *s->oc);
  for (uint32_t j = 0; j < ncols; j++)
    s->oc[j].scratch = ty_vec_new(out_schema->root.fields[j].type, TY_BATCH_ROWS);
  s->out.schema = out_schema;
  s->out.ncols = ncols;
  s->out.cols = fl_calloc(ncols ? ncols : 1, sizeof *s->out.cols);
  if (progress) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < files->npaths; i++) total += files->sizes[i];
    ex_progress_add(&progress->files_total, files->npaths);
    ex_progress_add(&progress->work_total, total);
  }
  *out = &s->src;
  return FL_OK;
}
