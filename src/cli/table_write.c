/*
 * table_write.c - `floe table append` and `floe table upsert`: rows from
 * files into a table in one atomic commit (layer 12, cli).
 *
 * Input files are decoded under the table's schema: CSV and JSON lines
 * directly, Parquet and Avro by matching their columns to the table's by
 * name (widening int to long and float to double). The rows go through
 * the Iceberg data writer (hidden partitioning, target file size, full
 * metrics) and one commit adds every file; when anything fails before the
 * commit, the files written so far are deleted again, so an interrupted
 * command leaves the table at its previous snapshot.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/strset.h"
#include "cli/args.h"
#include "cli/session.h"
#include "cli/table_cmds.h"
#include "format/format.h"
#include "iceberg/ice_commit.h"
#include "iceberg/ice_data_writer.h"

/* ---- adapting a file's batches to the table schema ---- */

typedef struct adapter {
  const ty_schema_t *target;
  int *src_col;        /* per target column: source column, -1: missing (nulls) */
  ty_vec_t **owned;    /* per target column: converted / null vector (or NULL) */
  ty_vec_t **cols;
  ty_batch_t out;
} adapter_t;

static bool same_shape(const ty_type_t *a, const ty_type_t *b) {
  if (a->kind != b->kind) return false;
  if (a->kind == TY_DECIMAL) return a->precision == b->precision && a->scale == b->scale;
  if (a->kind == TY_FIXED) return a->length == b->length;
  if (a->nfields != b->nfields) return false;
  for (uint32_t i = 0; i < a->nfields; i++)
    if (!same_shape(a->fields[i].type, b->fields[i].type)) return false;
  return true;
}

static bool widens(const ty_type_t *from, const ty_type_t *to) {
  return (from->kind == TY_INT && to->kind == TY_LONG) ||
         (from->kind == TY_FLOAT && to->kind == TY_DOUBLE);
}

static int adapter_init(adapter_t *ad, const ty_schema_t *target, const ty_schema_t *src,
                        const char *file, fl_err_t *err) {
  memset(ad, 0, sizeof *ad);
  ad->target = target;
  uint32_t n = target->root.nfields;
  ad->src_col = fl_calloc(n ? n : 1, sizeof *ad->src_col);
  ad->owned = fl_calloc(n ? n : 1, sizeof *ad->owned);
  ad->cols = fl_calloc(n ? n : 1, sizeof *ad->cols);
  for (uint32_t i = 0; i < n; i++) {
    const ty_field_t *tf = &target->root.fields[i];
    int k = ty_schema_find_name(src, tf->name);
    ad->src_col[i] = k;
    if (k < 0) {
      if (tf->required)
        return fl_err_set(err, FL_EINVALID, "%s: has no column '%s', which the table requires",
                          file, tf->name);
      continue;
    }
    const ty_type_t *st = src->root.fields[k].type;
    if (!same_shape(st, tf->type) && !widens(st, tf->type)) {
      fl_buf_t a, b;
      fl_buf_init(&a);
      fl_buf_init(&b);
      ty_type_format(st, &a);
      ty_type_format(tf->type, &b);
      int rc = fl_err_set(err, FL_EINVALID, "%s: column '%s' is %.*s but the table has %.*s", file,
                          tf->name, (int)a.len, (const char *)a.data, (int)b.len,
                          (const char *)b.data);
      fl_buf_free(&a);
      fl_buf_free(&b);
      return rc;
    }
  }
  return FL_OK;
}

static const ty_batch_t *adapter_map(adapter_t *ad, const ty_batch_t *in) {
  uint32_t n = ad->target->root.nfields;
  for (uint32_t i = 0; i < n; i++) {
    const ty_field_t *tf = &ad->target->root.fields[i];
    int k = ad->src_col[i];
    const ty_vec_t *sv = k >= 0 ? in->cols[k] : NULL;
    if (sv && same_shape(sv->type, tf->type)) {
      ad->cols[i] = (ty_vec_t *)sv;
      continue;
    }
    if (!ad->owned[i]) ad->owned[i] = ty_vec_new(tf->type, in->nrows);
    ty_vec_t *v = ad->owned[i];
    ty_vec_reset(v);
    for (uint32_t r = 0; r < in->nrows; r++) {
      if (!sv || ty_vec_is_null(sv, r)) ty_vec_append_null(v);
      else if (sv->type->kind == TY_INT) ty_vec_append_i64(v, ((const int32_t *)sv->data)[r]);
      else ty_vec_append_f64(v, ((const float *)sv->data)[r]);
    }
    ad->cols[i] = v;
  }
  ad->out = (ty_batch_t){.schema = ad->target, .ncols = n, .cols = ad->cols,
                         .nrows = in->nrows, .sel = in->sel, .nsel = in->nsel};
  return &ad->out;
}

static void adapter_free(adapter_t *ad) {
  uint32_t n = ad->target ? ad->target->root.nfields : 0;
  for (uint32_t i = 0; i < n; i++)
    if (ad->owned[i]) ty_vec_free(ad->owned[i]);
  fl_free(ad->owned);
  fl_free(ad->src_col);
  fl_free(ad->cols);
}

/* Streams every row of a file into fn(batch of the table schema). */
typedef int (*batch_fn)(const ty_batch_t *b, void *arg, fl_err_t *err);

static int read_file(const ty_schema_t *schema, const char *path, batch_fn fn, void *arg,
                     uint64_t *rows, fl_err_t *err) {
  fmt_kind_t kind = fmt_kind_from_path(path);
  if (kind == FMT_UNKNOWN)
    return fl_err_set(err, FL_EINVALID, "%s: unknown file type (use .csv, .jsonl or .parquet)",
                      path);
  bool text = kind == FMT_CSV || kind == FMT_JSONL;
  fmt_read_opts_t ro = {.schema = text ? schema : NULL};
  fmt_reader_t *r;
  int rc = fmt_open_reader(io_local_fs(), path, &ro, &r, err);
  if (rc) return rc;
  adapter_t ad;
  memset(&ad, 0, sizeof ad);
  if (!text) rc = adapter_init(&ad, schema, r->schema, path, err);
  while (rc == FL_OK) {
    ty_batch_t *b;
    rc = r->next(r, &b, err);
    if (rc || !b) break;
    *rows += ty_batch_live(b);
    const ty_batch_t *tb = text ? b : adapter_map(&ad, b);
    if (text) b->schema = schema; /* decoded under it: same columns */
    rc = fn(tb, arg, err);
  }
  if (!text) adapter_free(&ad);
  r->close(r);
  return rc;
}

/* ---- append ---- */

static int dw_write(const ty_batch_t *b, void *arg, fl_err_t *err) {
  return ice_dw_write(arg, b, err);
}

static ice_dw_opts_t data_opts(const ice_meta_t *m) {
  const ice_sort_order_t *so = ice_meta_sort_order(m);
  return (ice_dw_opts_t){.content = ICE_CONTENT_DATA,
                         .spec = ice_meta_spec(m),
                         .props = m->properties,
                         .nprops = m->nproperties,
                         .sort_order_id = so ? so->order_id : 0};
}

static const char *write_opts_branch(const cli_args_t *a) { return cli_args_get(a, "branch"); }

int cli_table_append(cat_catalog_t *c, int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {{"branch", true}, {0, false}};
  cli_args_t a;
  if (cli_args_parse("table append", argc, argv, specs, &a)) return 2;
  if (a.npos < 2) return cli_table_usage("append", "expected NAME and at least one FILE");
  ice_table_t *t;
  if (cli_session_table("table append", c, a.pos[0], &t)) return 1;
  fl_err_t err;
  fl_err_clear(&err);
  fl_arena_t *ar = fl_arena_new(0);
  const ice_meta_t *m = t->meta;
  const ty_schema_t *schema = ice_meta_schema(m);
  ice_dw_opts_t o = data_opts(m);
  ice_dw_t *w = NULL;
  uint64_t rows = 0;
  int rc = ice_dw_open(t->fs, m->location, schema, &o, &w, &err);
  for (int i = 1; rc == FL_OK && i < a.npos; i++)
    rc = read_file(schema, a.pos[i], dw_write, w, &rows, &err);
  ice_data_file_t *files = NULL;
  size_t nfiles = 0;
  if (rc == FL_OK) rc = ice_dw_close(w, ar, &files, &nfiles, &err);
  ice_commit_result_t res = {0};
  if (rc == FL_OK) {
    ice_change_t ch = {.kind = ICE_CHANGE_APPEND, .branch = write_opts_branch(&a), .add = files,
                       .nadd = (uint32_t)nfiles, .base_snapshot_id = -1};
    rc = ice_commit(t, &ch, &res, &err);
  }
  int status = 0;
  if (rc) {
    if (w) ice_dw_abort(w);
    status = cli_fail("table append", "%s", err.msg);
  } else {
    ice_dw_free(w);
    printf("appended %" PRIu64 " rows in %zu files to %s: snapshot %" PRId64 "\n", rows, nfiles,
           t->ident, res.snapshot_id);
  }
  fl_arena_free(ar);
  ice_table_free(t);
  return status;
}

/* ---- upsert ---- */

/*
 * Equality deletes apply within a partition (or everywhere from an
 * unpartitioned spec), so an upsert writes, for each partition its new
 * rows fall in, one delete file of their identifier keys there; rows with
 * the same key in another partition would survive. As Flink's upsert
 * sink, floe therefore requires every partition source column to be an
 * identifier field, which puts all rows of a key in one partition.
 */
typedef struct upsert_state {
  ice_table_t *t;
  const ty_schema_t *schema;
  const ice_spec_t *spec;
  const ty_type_t *ptype;
  ice_dw_t *data;
  /* one equality-delete writer per partition */
  fl_strset_t part_keys;
  char **keys;
  ice_dw_t **deletes;
  size_t ndeletes, cap;
  int *id_col; /* per identifier field: its column in the table schema */
  fl_arena_t *a;
} upsert_state_t;

static int delete_writer_for(upsert_state_t *st, const ty_value_t *tuple, ice_dw_t **out,
                             fl_err_t *err) {
  fl_buf_t key;
  fl_buf_init(&key);
  if (st->spec && st->spec->nfields) ice_spec_partition_path(st->spec, st->ptype, tuple, &key);
  fl_buf_append_u8(&key, '\0');
  for (size_t i = 0; i < st->ndeletes; i++)
    if (strcmp(st->keys[i], (const char *)key.data) == 0) {
      fl_buf_free(&key);
      *out = st->deletes[i];
      return FL_OK;
    }
  const ty_schema_t *s = st->schema;
  const ice_sort_order_t *so = ice_meta_sort_order(st->t->meta);
  ice_dw_opts_t o = {.content = ICE_CONTENT_EQUALITY_DELETES,
                     .spec = st->spec,
                     .partition = st->spec && st->spec->nfields ? tuple : NULL,
                     .equality_ids = s->identifier_ids,
                     .nequality_ids = s->nidentifiers,
                     .props = st->t->meta->properties,
                     .nprops = st->t->meta->nproperties,
                     .sort_order_id = so ? so->order_id : 0,
                     .task_id = (int64_t)st->ndeletes + 1};
  ice_dw_t *w;
  int rc = ice_dw_open(st->t->fs, st->t->meta->location, s, &o, &w, err);
  if (rc) {
    fl_buf_free(&key);
    return rc;
  }
  if (st->ndeletes == st->cap) {
    st->cap = st->cap ? st->cap * 2 : 8;
    st->keys = fl_realloc(st->keys, st->cap * sizeof *st->keys);
    st->deletes = fl_realloc(st->deletes, st->cap * sizeof *st->deletes);
  }
  st->keys[st->ndeletes] = fl_strdup((const char *)key.data);
  st->deletes[st->ndeletes++] = w;
  fl_buf_free(&key);
  *out = w;
  return FL_OK;
}

/* The batch of one row's key columns for a delete writer. */
static int upsert_batch(const ty_batch_t *b, void *arg, fl_err_t *err) {
  upsert_state_t *st = arg;
  int rc = ice_dw_write(st->data, b, err);
  if (rc) return rc;
  uint32_t n = ty_batch_live(b);
  uint32_t nf = st->spec ? st->spec->nfields : 0;
  ty_value_t *tuple = fl_arena_alloc(st->a, (nf ? nf : 1) * sizeof *tuple);
  /* Group the batch's rows by partition, then hand each group to its writer
   * as a selection over the same batch. */
  uint32_t *rows = fl_malloc((n ? n : 1) * sizeof *rows);
  ice_dw_t **writer_of = fl_malloc((n ? n : 1) * sizeof *writer_of);
  for (uint32_t k = 0; k < n && rc == FL_OK; k++) {
    uint32_t r = b->sel ? b->sel[k] : k;
    for (uint32_t f = 0; f < nf && rc == FL_OK; f++) {
      const ice_partition_field_t *pf = &st->spec->fields[f];
      int col = ty_schema_find_name(st->schema, ty_schema_find_id(st->schema, pf->source_id)->name);
      const ty_vec_t *v = b->cols[col];
      ty_value_t in = ty_vec_is_null(v, r) ? (ty_value_t){.kind = v->type->kind, .is_null = true}
                                           : ty_value_from_vec(v, r);
      rc = ice_transform_apply(&pf->transform, v->type, &in, &tuple[f], err);
    }
    if (rc == FL_OK) rc = delete_writer_for(st, tuple, &writer_of[k], err);
  }
  for (size_t w = 0; w < st->ndeletes && rc == FL_OK; w++) {
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++)
      if (writer_of[k] == st->deletes[w]) rows[m++] = b->sel ? b->sel[k] : k;
    if (m == 0) continue;
    const ty_schema_t *ds = ice_dw_schema(st->deletes[w]);
    ty_vec_t **cols = fl_arena_alloc(st->a, ds->root.nfields * sizeof *cols);
    for (uint32_t i = 0; i < ds->root.nfields; i++)
      cols[i] = b->cols[ty_schema_find_name(st->schema, ds->root.fields[i].name)];
    ty_batch_t db = {.schema = ds, .ncols = ds->root.nfields, .cols = cols, .nrows = b->nrows,
                     .sel = rows, .nsel = m};
    rc = ice_dw_write(st->deletes[w], &db, err);
  }
  fl_free(rows);
  fl_free(writer_of);
  return rc;
}

int cli_table_upsert(cat_catalog_t *c, int argc, char **argv) {
  static const cli_opt_spec_t specs[] = {{"branch", true}, {0, false}};
  cli_args_t a;
  if (cli_args_parse("table upsert", argc, argv, specs, &a)) return 2;
  if (a.npos < 2) return cli_table_usage("upsert", "expected NAME and at least one FILE");
  ice_table_t *t;
  if (cli_session_table("table upsert", c, a.pos[0], &t)) return 1;
  fl_err_t err;
  fl_err_clear(&err);
  upsert_state_t st = {.t = t, .a = fl_arena_new(0)};
  st.schema = ice_meta_schema(t->meta);
  st.spec = ice_meta_spec(t->meta);
  int rc = FL_OK;
  if (st.schema->nidentifiers == 0)
    rc = fl_err_set(&err, FL_EINVALID,
                    "%s has no identifier fields (create it with --identifier COLS)", t->ident);
  for (uint32_t f = 0; rc == FL_OK && st.spec && f < st.spec->nfields; f++) {
    const ice_partition_field_t *pf = &st.spec->fields[f];
    bool is_id = false;
    for (uint32_t i = 0; i < st.schema->nidentifiers; i++)
      is_id |= st.schema->identifier_ids[i] == pf->source_id;
    const ty_field_t *src = ty_schema_find_id(st.schema, pf->source_id);
    if (!src || ty_schema_find_name(st.schema, src->name) < 0)
      rc = fl_err_set(&err, FL_EUNSUPPORTED, "%s: partition field %s has a nested source column",
                      t->ident, pf->name);
    else if (!is_id)
      rc = fl_err_set(&err, FL_EINVALID,
                      "%s: partition source column '%s' must be an identifier field for upserts "
                      "(rows of one key must stay in one partition)",
                      t->ident, src->name);
  }
  if (rc == FL_OK && st.spec && st.spec->nfields)
    rc = ice_spec_partition_type(st.a, st.spec, st.schema, &st.ptype, &err);
  ice_dw_opts_t o = data_opts(t->meta);
  if (rc == FL_OK) rc = ice_dw_open(t->fs, t->meta->location, st.schema, &o, &st.data, &err);
  uint64_t rows = 0;
  for (int i = 1; rc == FL_OK && i < a.npos; i++)
    rc = read_file(st.schema, a.pos[i], upsert_batch, &st, &rows, &err);
  /* Collect data and delete files. */
  ice_data_file_t *all = NULL;
  size_t nall = 0, cap = 0;
  for (size_t w = 0; rc == FL_OK && w <= st.ndeletes; w++) {
    ice_dw_t *dw = w == 0 ? st.data : st.deletes[w - 1];
    ice_data_file_t *fs_;
    size_t n;
    rc = ice_dw_close(dw, st.a, &fs_, &n, &err);
    if (rc) break;
    if (nall + n > cap) {
      cap = (nall + n) * 2;
      ice_data_file_t *bigger = fl_arena_alloc(st.a, cap * sizeof *bigger);
      if (nall) memcpy(bigger, all, nall * sizeof *bigger);
      all = bigger;
    }
    memcpy(all + nall, fs_, n * sizeof *fs_);
    nall += n;
  }
  ice_commit_result_t res = {0};
  if (rc == FL_OK) {
    ice_change_t ch = {.kind = ICE_CHANGE_ROW_DELTA, .branch = cli_args_get(&a, "branch"),
                       .add = all, .nadd = (uint32_t)nall, .base_snapshot_id = -1};
    rc = ice_commit(t, &ch, &res, &err);
  }
  int status = 0;
  if (rc) {
    if (st.data) ice_dw_abort(st.data);
    for (size_t w = 0; w < st.ndeletes; w++) ice_dw_abort(st.deletes[w]);
    status = cli_fail("table upsert", "%s", err.msg);
  } else {
    ice_dw_free(st.data);
    for (size_t w = 0; w < st.ndeletes; w++) ice_dw_free(st.deletes[w]);
    printf("upserted %" PRIu64 " rows into %s: snapshot %" PRId64 "\n", rows, t->ident,
           res.snapshot_id);
  }
  for (size_t w = 0; w < st.ndeletes; w++) fl_free(st.keys[w]);
  fl_free(st.keys);
  fl_free(st.deletes);
  fl_arena_free(st.a);
  ice_table_free(t);
  return status;
}
