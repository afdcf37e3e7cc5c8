/*
 * test_scan.c - Iceberg scans (ice_scan.h) over tables written here with
 * floe's own data writer and commits: snapshot choice and its errors,
 * projection, filters with pruning, limit, position and equality deletes
 * with their sequence-number rules, and columns added later read as their
 * initial default.
 */
#include <stdlib.h>

#include "base/alloc.h"
#include "iceberg/ice_commit.h"
#include "iceberg/ice_data_writer.h"
#include "iceberg/ice_scan.h"
#include "test.h"

/* ---- a table in a temporary folder with an in-memory catalog ---- */

typedef struct mem_catalog {
  char *loc;
} mem_catalog_t;

static int mem_current(void *ctx, char **out, fl_err_t *err) {
  mem_catalog_t *c = ctx;
  *out = fl_strdup(c->loc);
  return FL_OK;
}

static int mem_swap(void *ctx, const char *old_loc, const char *new_loc, fl_err_t *err) {
  mem_catalog_t *c = ctx;
  if ((old_loc == NULL) != (c->loc == NULL) || (old_loc && strcmp(old_loc, c->loc) != 0))
    return fl_err_set_retriable(err, FL_ECONFLICT, "stale");
  fl_free(c->loc);
  c->loc = fl_strdup(new_loc);
  return FL_OK;
}

static void mem_release(void *ctx) {
  mem_catalog_t *c = ctx;
  fl_free(c->loc);
  fl_free(c);
}

static ice_table_t *new_table(const char *name, const char *schema_text, const char *spec_text,
                              fl_err_t *err) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *schema;
  ice_spec_t *spec = NULL;
  ice_table_t *t = NULL;
  if (ty_schema_parse(a, schema_text, &schema, err)) goto out;
  int32_t last = 999;
  if (spec_text && ice_spec_parse(a, spec_text, schema, 0, &last, &spec, err)) goto out;
  const char *loc = fl_arena_sprintf(a, "%s/%s", t_tmpdir(), name);
  ice_meta_t *m;
  if (ice_meta_new(schema, spec, NULL, loc, NULL, 0, &m, err)) goto out;
  t = fl_calloc(1, sizeof *t);
  t->fs = io_local_fs();
  t->ident = fl_strdup(name);
  mem_catalog_t *c = fl_calloc(1, sizeof *c);
  t->committer = (ice_committer_t){c, mem_current, mem_swap, mem_release};
  if (ice_table_commit_meta(t, m, err)) {
    ice_table_free(t);
    t = NULL;
  }
out:
  fl_arena_free(a);
  return t;
}

/* Rows (id, name, v): id = i, name = "n<i % 10>" (null when i % 13 == 0), v = i % 100. */
static void fill_rows(ty_batch_t *b, int64_t lo, int64_t hi) {
  ty_batch_reset(b);
  for (int64_t i = lo; i < hi; i++) {
    ty_vec_append_i64(b->cols[0], i);
    if (i % 13 == 0) {
      ty_vec_append_null(b->cols[1]);
    } else {
      char s[16];
      int n = snprintf(s, sizeof s, "n%d", (int)(i % 10));
      ty_vec_append_bytes(b->cols[1], s, (size_t)n);
    }
    ty_vec_append_i32(b->cols[2], (int32_t)(i % 100));
  }
  ty_batch_seal(b);
}

/* Writes files with the writer opts and returns them (in a). */
static int write_files(ice_table_t *t, const ice_dw_opts_t *o, fl_arena_t *a,
                       void (*fill)(ty_batch_t *, void *), void *arg, ice_data_file_t **files,
                       size_t *n, fl_err_t *err) {
  ice_dw_t *w;
  int rc = ice_dw_open(t->fs, t->meta->location, ice_meta_schema(t->meta), o, &w, err);
  if (rc) return rc;
  ty_batch_t *b = ty_batch_new(ice_dw_schema(w), TY_BATCH_ROWS);
  fill(b, arg);
  rc = ice_dw_write(w, b, err);
  if (!rc) rc = ice_dw_close(w, a, files, n, err);
  if (rc) ice_dw_abort(w);
  ice_dw_free(w);
  ty_batch_free(b);
  return rc;
}

typedef struct range {
  int64_t lo, hi;
} range_t;

static void fill_range(ty_batch_t *b, void *arg) {
  range_t *r = arg;
  fill_rows(b, r->lo, r->hi);
}

static int append_rows(ice_table_t *t, int64_t lo, int64_t hi, fl_err_t *err) {
  fl_arena_t *a = fl_arena_new(0);
  ice_data_file_t *files;
  size_t n;
  range_t r = {lo, hi};
  ice_dw_opts_t o = {.spec = ice_meta_spec(t->meta)};
  int rc = write_files(t, &o, a, fill_range, &r, &files, &n, err);
  if (!rc) {
    ice_change_t c = {
        .kind = ICE_CHANGE_APPEND, .add = files, .nadd = (uint32_t)n, .base_snapshot_id = -1};
    ice_commit_result_t res;
    rc = ice_commit(t, &c, &res, err);
  }
  fl_arena_free(a);
  return rc;
}

typedef struct scan_result {
  uint32_t rows;
  int64_t id_sum;
  bool *seen; /* by id, when ids < cap */
  uint32_t cap;
  ice_scan_stats_t stats;
} scan_result_t;

/* Scans with opts and sums the first column (a long id). */
static int run_scan(const ice_table_t *t, const ice_scan_opts_t *o, scan_result_t *r,
                    fl_err_t *err) {
  ice_scan_t *s;
  int rc = ice_scan_plan(t, o, &s, err);
  if (rc) return rc;
  r->rows = 0;
  r->id_sum = 0;
  if (r->seen) memset(r->seen, 0, r->cap);
  for (;;) {
    ty_batch_t *b;
    if ((rc = ice_scan_next(s, &b, err)) || !b) break;
    r->rows += ty_batch_live(b);
    if (b->ncols && b->cols[0]->type->kind == TY_LONG)
      for (uint32_t i = 0; i < b->nrows; i++) {
        int64_t id = TY_VEC_DATA(b->cols[0], int64_t)[i];
        r->id_sum += id;
        if (r->seen && id >= 0 && (uint64_t)id < r->cap) r->seen[id] = true;
      }
  }
  r->stats = *ice_scan_stats(s);
  ice_scan_free(s);
  return rc;
}

static ice_scan_opts_t opts_default(void) {
  return (ice_scan_opts_t){.snapshot_id = -1, .as_of_ms = -1, .case_sensitive = true, .limit = -1};
}

static int64_t sum_range(int64_t lo, int64_t hi) { return (lo + hi - 1) * (hi - lo) / 2; }

TEST(scan_empty_table_and_snapshots) {
  fl_err_t err;
  ice_table_t *t = new_table("snaps", "id long not null, name string, v int", NULL, &err);
  CHECK(t != NULL);
  ice_scan_opts_t o = opts_default();
  scan_result_t r = {0};
  CHECK_OK(run_scan(t, &o, &r, &err), &err);
  CHECK_EQ(r.rows, 0);
  CHECK_OK(append_rows(t, 0, 1000, &err), &err);
  int64_t first = t->meta->current_snapshot_id;
  CHECK_OK(append_rows(t, 1000, 1500, &err), &err);
  CHECK_OK(run_scan(t, &o, &r, &err), &err);
  CHECK_EQ(r.rows, 1500);
  CHECK_EQ(r.id_sum, sum_range(0, 1500));
  CHECK_EQ(r.stats.files_total, 2);
  o.snapshot_id = first;
  CHECK_OK(run_scan(t, &o, &r, &err), &err);
  CHECK_EQ(r.rows, 1000);
  o.snapshot_id = 42;
  CHECK(run_scan(t, &o, &r, &err) == FL_ENOTFOUND);
  CHECK(strstr(err.msg, "42") != NULL);
  o = opts_default();
  o.ref = "nope";
  CHECK(run_scan(t, &o, &r, &err) == FL_ENOTFOUND);
  CHECK(strstr(err.msg, "'nope'") != NULL);
  o = opts_default();
  o.as_of_ms = 1;
  CHECK(run_scan(t, &o, &r, &err) == FL_ENOTFOUND);
  o = opts_default();
  const char *bad[] = {"id", "missing"};
  o.columns = bad;
  o.ncolumns = 2;
  CHECK(run_scan(t, &o, &r, &err) == FL_EINVALID);
  CHECK(strstr(err.msg, "'missing'") != NULL);
  ice_table_free(t);
}

TEST(scan_filter_limit_projection) {
  fl_err_t err;
  fl_arena_t *a = fl_arena_new(0);
  ice_table_t *t =
      new_table("filter", "id long not null, name string, v int", "bucket(4, id)", &err);
  CHECK(t != NULL);
  CHECK_OK(append_rows(t, 0, 3000, &err), &err);
  ice_scan_opts_t o = opts_default();
  ice_expr_t *e;
  CHECK_OK(ice_expr_parse(a, "v < 10 AND name IS NOT NULL", &e, &err), &err);
  o.filter = e;
  scan_result_t r = {0};
  CHECK_OK(run_scan(t, &o, &r, &err), &err);
  uint32_t want = 0;
  int64_t sum = 0;
  for (int64_t i = 0; i < 3000; i++)
    if (i % 100 < 10 && i % 13 != 0) {
      want++;
      sum += i;
    }
  CHECK_EQ(r.rows, want);
  CHECK_EQ(r.id_sum, sum);
  CHECK_EQ(r.stats.rows_filtered + r.rows, r.stats.rows_read);
  /* An id equality reads one bucket's file only. */
  CHECK_OK(ice_expr_parse(a, "id = 1234", &e, &err), &err);
  o.filter = e;
  CHECK_OK(run_scan(t, &o, &r, &err), &err);
  CHECK_EQ(r.rows, 1);
  CHECK_EQ(r.id_sum, 1234);
  CHECK_EQ(r.stats.files_total, 4);
  CHECK(r.stats.files_skipped_partition + r.stats.files_skipped_metrics >= 3);
  /* Limit and projection. */
  o = opts_default();
  o.limit = 5;
  CHECK_OK(run_scan(t, &o, &r, &err), &err);
  CHECK_EQ(r.rows, 5);
  const char *cols[] = {"V"};
  o = opts_default();
  o.columns = cols;
  o.ncolumns = 1;
  o.case_sensitive = false;
  ice_scan_t *s;
  CHECK_OK(ice_scan_plan(t, &o, &s, &err), &err);
  const ty_schema_t *ps = ice_scan_schema(s);
  CHECK_EQ(ps->root.nfields, 1);
  CHECK_STR(ps->root.fields[0].name, "v");
  ty_batch_t *b;
  CHECK_OK(ice_scan_next(s, &b, &err), &err);
  CHECK(b != NULL && b->ncols == 1 && b->cols[0]->type->kind == TY_INT);
  ice_scan_free(s);
  ice_table_free(t);
  fl_arena_free(a);
}

/* Position deletes of every multiple of 7 in one data file. */
typedef struct pos_arg {
  const char *path;
  int64_t n;
} pos_arg_t;

static void fill_positions(ty_batch_t *b, void *arg) {
  pos_arg_t *p = arg;
  ty_batch_reset(b);
  for (int64_t i = 0; i < p->n; i += 7) {
    ty_vec_append_bytes(b->cols[0], p->path, strlen(p->path));
    ty_vec_append_i64(b->cols[1], i);
  }
  ty_batch_seal(b);
}

static void fill_eq_far(ty_batch_t *b, void *arg) {
  ty_batch_reset(b);
  ty_vec_append_bytes(b->cols[0], "zzz", 3); /* above every name of the data */
  ty_batch_seal(b);
}

static void fill_eq_names(ty_batch_t *b, void *arg) {
  ty_batch_reset(b);
  ty_vec_append_bytes(b->cols[0], "n3", 2);
  ty_vec_append_null(b->cols[0]); /* deletes rows whose name is null */
  ty_batch_seal(b);
}

TEST(scan_position_and_equality_deletes) {
  fl_err_t err;
  fl_arena_t *a = fl_arena_new(0);
  ice_table_t *t = new_table("deletes", "id long not null, name string, v int", NULL, &err);
  CHECK(t != NULL);
  CHECK_OK(append_rows(t, 0, 2000, &err), &err);
  uint32_t ntasks;
  ice_scan_opts_t o = opts_default();
  ice_scan_t *s;
  CHECK_OK(ice_scan_plan(t, &o, &s, &err), &err);
  const ice_scan_task_t *tasks = ice_scan_tasks(s, &ntasks);
  CHECK_EQ(ntasks, 1);
  char *data_path = fl_arena_strdup(a, tasks[0].data->file.path);
  ice_scan_free(s);

  /* Position deletes. */
  ice_data_file_t *files;
  size_t n;
  pos_arg_t pa = {data_path, 2000};
  ice_dw_opts_t po = {.content = ICE_CONTENT_POSITION_DELETES};
  CHECK_OK(write_files(t, &po, a, fill_positions, &pa, &files, &n, &err), &err);
  ice_change_t c = {
      .kind = ICE_CHANGE_ROW_DELTA, .add = files, .nadd = (uint32_t)n, .base_snapshot_id = -1};
  ice_commit_result_t res;
  CHECK_OK(ice_commit(t, &c, &res, &err), &err);
  /* Equality deletes on name: "n3" and null. */
  int32_t eq_ids[] = {2};
  ice_dw_opts_t eo = {
      .content = ICE_CONTENT_EQUALITY_DELETES, .equality_ids = eq_ids, .nequality_ids = 1};
  CHECK_OK(write_files(t, &eo, a, fill_eq_names, NULL, &files, &n, &err), &err);
  c.add = files;
  c.nadd = (uint32_t)n;
  CHECK_OK(ice_commit(t, &c, &res, &err), &err);
  /* An equality delete whose keys lie outside the data file's bounds is not paired. */
  CHECK_OK(write_files(t, &eo, a, fill_eq_far, NULL, &files, &n, &err), &err);
  c.add = files;
  c.nadd = (uint32_t)n;
  CHECK_OK(ice_commit(t, &c, &res, &err), &err);
  CHECK_OK(ice_scan_plan(t, &o, &s, &err), &err);
  tasks = ice_scan_tasks(s, &ntasks);
  CHECK_EQ(ntasks, 1);
  CHECK_EQ(tasks[0].ndeletes, 2);
  CHECK_EQ(ice_scan_stats(s)->delete_files, 3);
  ice_scan_free(s);
  /* Rows appended afterwards are not deleted by either. */
  CHECK_OK(append_rows(t, 2000, 2100, &err), &err);

  bool seen[2100];
  scan_result_t r = {.seen = seen, .cap = 2100};
  CHECK_OK(run_scan(t, &o, &r, &err), &err);
  uint32_t want = 0;
  for (int64_t i = 0; i < 2100; i++) {
    bool gone = i < 2000 && (i % 7 == 0 || i % 13 == 0 || i % 10 == 3);
    if (seen[i] == gone) {
      t_fail(__FILE__, __LINE__, "id %lld: seen %d, deleted %d", (long long)i, seen[i], gone);
      return;
    }
    want += !gone;
  }
  CHECK_EQ(r.rows, want);
  CHECK_EQ(r.stats.delete_files, 3);
  CHECK_EQ(r.stats.rows_deleted, 2000 - (want - 100));
  /* One task read alone: every live row of its file, the filter and limit set aside. */
  {
    ice_scan_opts_t fo = opts_default();
    ice_expr_t *fe;
    CHECK_OK(ice_expr_parse(a, "id < 5", &fe, &err), &err);
    fo.filter = fe;
    fo.limit = 1;
    CHECK_OK(ice_scan_plan(t, &fo, &s, &err), &err);
    tasks = ice_scan_tasks(s, &ntasks);
    uint32_t first = tasks[0].data->file.record_count == 2000 ? 0 : 1;
    CHECK_OK(ice_scan_read_task(s, first, &err), &err);
    uint32_t live = 0;
    for (;;) {
      ty_batch_t *b;
      CHECK_OK(ice_scan_next(s, &b, &err), &err);
      if (!b) break;
      live += b->nrows;
    }
    CHECK_EQ(live, want - 100);
    CHECK(ice_scan_read_task(s, ntasks, &err) == FL_EINVALID);
    ice_scan_free(s);
  }
  /* With a filter the deletes still apply. */
  ice_expr_t *e;
  CHECK_OK(ice_expr_parse(a, "id < 100", &e, &err), &err);
  o.filter = e;
  CHECK_OK(run_scan(t, &o, &r, &err), &err);
  uint32_t want100 = 0;
  for (int64_t i = 0; i < 100; i++) want100 += !(i % 7 == 0 || i % 13 == 0 || i % 10 == 3);
  CHECK_EQ(r.rows, want100);
  ice_table_free(t);
  fl_arena_free(a);
}

static int add_schema_edit(ice_meta_t *m, void *arg, fl_err_t *err) {
  int32_t id;
  return ice_meta_add_schema(m, arg, &id, err);
}

TEST(scan_schema_evolution) {
  fl_err_t err;
  fl_arena_t *a = fl_arena_new(0);
  ice_table_t *t = new_table("evolve", "id long not null, name string, v int", NULL, &err);
  CHECK(t != NULL);
  CHECK_OK(append_rows(t, 0, 500, &err), &err);
  int64_t before = t->meta->current_snapshot_id;
  /* v promoted to long, a column added with an initial default. */
  ty_schema_t *ns;
  CHECK_OK(ty_schema_parse(a, "id long not null, name string, v long, extra string", &ns, &err),
           &err);
  ty_value_t *dflt = fl_arena_zalloc(a, sizeof *dflt);
  dflt->kind = TY_STRING;
  dflt->u.bytes.p = (const uint8_t *)"dflt";
  dflt->u.bytes.n = 4;
  ns->root.fields[3].initial_default = dflt;
  CHECK_OK(ice_commit_meta_edit(t, add_schema_edit, ns, &err), &err);
  ice_scan_opts_t o = opts_default();
  ice_scan_t *s;
  CHECK_OK(ice_scan_plan(t, &o, &s, &err), &err);
  const ty_schema_t *sch = ice_scan_schema(s);
  CHECK_EQ(sch->root.nfields, 4);
  uint32_t rows = 0;
  for (;;) {
    ty_batch_t *b;
    CHECK_OK(ice_scan_next(s, &b, &err), &err);
    if (!b) break;
    CHECK(b->cols[2]->type->kind == TY_LONG && b->cols[3]->type->kind == TY_STRING);
    for (uint32_t i = 0; i < b->nrows; i++) {
      int64_t id = TY_VEC_DATA(b->cols[0], int64_t)[i];
      CHECK_EQ(TY_VEC_DATA(b->cols[2], int64_t)[i], id % 100);
      size_t n;
      const uint8_t *p = ty_vec_get_bytes(b->cols[3], i, &n);
      CHECK(!ty_vec_is_null(b->cols[3], i) && n == 4 && memcmp(p, "dflt", 4) == 0);
      rows++;
    }
  }
  ice_scan_free(s);
  CHECK_EQ(rows, 500);
  /* A filter on the new column sees the default; on the promoted one, longs. */
  ice_expr_t *e;
  CHECK_OK(ice_expr_parse(a, "extra = 'dflt' AND v >= 90", &e, &err), &err);
  o.filter = e;
  scan_result_t r = {0};
  CHECK_OK(run_scan(t, &o, &r, &err), &err);
  CHECK_EQ(r.rows, 50);
  /* The old snapshot reads with the schema it was written with. */
  o = opts_default();
  o.snapshot_id = before;
  CHECK_OK(ice_scan_plan(t, &o, &s, &err), &err);
  CHECK_EQ(ice_scan_schema(s)->root.nfields, 3);
  CHECK(ice_scan_schema(s)->root.fields[2].type->kind == TY_INT);
  ice_scan_free(s);
  ice_table_free(t);
  fl_arena_free(a);
}

TEST(scan_missing_data_file_names_it) {
  fl_err_t err;
  ice_table_t *t = new_table("missing", "id long not null, name string, v int", NULL, &err);
  CHECK(t != NULL);
  CHECK_OK(append_rows(t, 0, 10, &err), &err);
  ice_scan_opts_t o = opts_default();
  ice_scan_t *s;
  CHECK_OK(ice_scan_plan(t, &o, &s, &err), &err);
  uint32_t n;
  const ice_scan_task_t *tasks = ice_scan_tasks(s, &n);
  CHECK_EQ(n, 1);
  CHECK_OK(t->fs->remove(t->fs, tasks[0].data->file.path, &err), &err);
  ty_batch_t *b;
  CHECK(ice_scan_next(s, &b, &err) != FL_OK);
  CHECK(b == NULL);
  CHECK(strstr(err.msg, tasks[0].data->file.path) != NULL);
  /* The scan stays ended. */
  CHECK_OK(ice_scan_next(s, &b, &err), &err);
  CHECK(b == NULL);
  ice_scan_free(s);
  ice_table_free(t);
}

/* ---- whole batches handed over (ice__file_convert's exchange) beside copies ---- */

#define WIDE_SCHEMA \
  "id long not null, name string, v int, tags list<string>, pt struct<x: double, y: int>"
#define WIDE_ROWS 5000 /* three reader batches: 2048, 2048, 904 */

/* Row i of the wide table; each column has nulls and values of varying length. */
static void fill_wide(ty_batch_t *b, void *arg) {
  (void)arg;
  ty_batch_reset(b);
  char s[48];
  for (int64_t i = 0; i < WIDE_ROWS; i++) {
    ty_vec_append_i64(b->cols[0], i);
    if (i % 13 == 0) {
      ty_vec_append_null(b->cols[1]);
    } else {
      int n = snprintf(s, sizeof s, "n%d-%lld", (int)(i % 10), (long long)i);
      ty_vec_append_bytes(b->cols[1], s, (size_t)n);
    }
    ty_vec_append_i32(b->cols[2], (int32_t)(i % 100));
    if (i % 17 == 0) {
      ty_vec_append_null(b->cols[3]);
    } else {
      for (int k = 0; k < (int)(i % 4); k++) {
        int n = snprintf(s, sizeof s, "t%lld-%d", (long long)i, k);
        ty_vec_append_bytes(b->cols[3]->children[0], s, (size_t)n);
      }
      ty_vec_append_list_end(b->cols[3]);
    }
    if (i % 19 == 0) {
      ty_vec_append_null(b->cols[4]);
    } else {
      ty_vec_append_f64(b->cols[4]->children[0], (double)i / 2.0);
      if (i % 3 == 0)
        ty_vec_append_null(b->cols[4]->children[1]);
      else
        ty_vec_append_i32(b->cols[4]->children[1], (int32_t)i);
      ty_vec_append_struct(b->cols[4]);
    }
  }
  ty_batch_seal(b);
}

static const ty_vec_t *col_named(const ty_batch_t *b, const char *name) {
  for (uint32_t c = 0; c < b->ncols; c++)
    if (strcmp(b->schema->root.fields[c].name, name) == 0) return b->cols[c];
  return NULL;
}

static bool bytes_are(const ty_vec_t *v, uint32_t r, const char *want) {
  size_t n;
  const uint8_t *p = ty_vec_get_bytes(v, r, &n);
  return n == strlen(want) && memcmp(p, want, n) == 0;
}

/* Whether row r of b holds wide row id (for the columns b has); v_long:
 * v was promoted to long; extra: a column "extra" with default "dflt". */
static bool wide_row_ok(const ty_batch_t *b, uint32_t r, int64_t id, bool v_long, bool extra) {
  char s[48];
  const ty_vec_t *v;
  if ((v = col_named(b, "name"))) {
    if (ty_vec_is_null(v, r) != (id % 13 == 0)) return false;
    snprintf(s, sizeof s, "n%d-%lld", (int)(id % 10), (long long)id);
    if (id % 13 != 0 && !bytes_are(v, r, s)) return false;
  }
  if ((v = col_named(b, "v"))) {
    int64_t got = v_long ? TY_VEC_DATA(v, int64_t)[r] : TY_VEC_DATA(v, int32_t)[r];
    if (ty_vec_is_null(v, r) || got != id % 100) return false;
  }
  if ((v = col_named(b, "tags"))) {
    if (ty_vec_is_null(v, r) != (id % 17 == 0)) return false;
    int32_t lo = v->offsets[r], hi = v->offsets[r + 1];
    if (hi - lo != (id % 17 == 0 ? 0 : (int32_t)(id % 4))) return false;
    for (int32_t e = lo; e < hi; e++) {
      snprintf(s, sizeof s, "t%lld-%d", (long long)id, (int)(e - lo));
      if (!bytes_are(v->children[0], (uint32_t)e, s)) return false;
    }
  }
  if ((v = col_named(b, "pt"))) {
    if (ty_vec_is_null(v, r) != (id % 19 == 0)) return false;
    if (id % 19 != 0) {
      if (TY_VEC_DATA(v->children[0], double)[r] != (double)id / 2.0) return false;
      if (ty_vec_is_null(v->children[1], r) != (id % 3 == 0)) return false;
      if (id % 3 != 0 && TY_VEC_DATA(v->children[1], int32_t)[r] != (int32_t)id) return false;
    }
  }
  if (extra && (!(v = col_named(b, "extra")) || ty_vec_is_null(v, r) || !bytes_are(v, r, "dflt")))
    return false;
  return true;
}

/* Scans and checks every row against fill_wide; the ids seen go to seen. */
static int scan_wide(const ice_table_t *t, const ice_scan_opts_t *o, bool v_long, bool extra,
                     bool *seen, uint32_t *rows, uint32_t *bad, fl_err_t *err) {
  ice_scan_t *s;
  int rc = ice_scan_plan(t, o, &s, err);
  if (rc) return rc;
  memset(seen, 0, WIDE_ROWS);
  *rows = *bad = 0;
  for (;;) {
    ty_batch_t *b;
    if ((rc = ice_scan_next(s, &b, err)) || !b) break;
    const ty_vec_t *idv = col_named(b, "id");
    for (uint32_t r = 0; r < b->nrows && idv; r++) {
      int64_t id = TY_VEC_DATA(idv, int64_t)[r];
      if (id < 0 || id >= WIDE_ROWS || seen[id] || !wide_row_ok(b, r, id, v_long, extra))
        (*bad)++;
      else
        seen[id] = true;
      (*rows)++;
    }
  }
  ice_scan_free(s);
  return rc;
}

typedef struct pos_range {
  const char *path;
  int64_t lo, hi;
} pos_range_t;

static void fill_pos_range(ty_batch_t *b, void *arg) {
  pos_range_t *p = arg;
  ty_batch_reset(b);
  for (int64_t i = p->lo; i < p->hi; i++) {
    ty_vec_append_bytes(b->cols[0], p->path, strlen(p->path));
    ty_vec_append_i64(b->cols[1], i);
  }
  ty_batch_seal(b);
}

TEST(scan_handed_over_batches_match_copies) {
  fl_err_t err;
  fl_arena_t *a = fl_arena_new(0);
  ice_table_t *t = new_table("wide", WIDE_SCHEMA, NULL, &err);
  CHECK(t != NULL);
  ice_data_file_t *files;
  size_t n;
  ice_dw_opts_t wo = {.spec = ice_meta_spec(t->meta)};
  CHECK_OK(write_files(t, &wo, a, fill_wide, NULL, &files, &n, &err), &err);
  ice_change_t c = {
      .kind = ICE_CHANGE_APPEND, .add = files, .nadd = (uint32_t)n, .base_snapshot_id = -1};
  ice_commit_result_t res;
  CHECK_OK(ice_commit(t, &c, &res, &err), &err);
  const char *data_path = fl_arena_strdup(a, files[0].path);
  bool seen[WIDE_ROWS];
  uint32_t rows, bad;

  /* Every row, every column: all three batches handed over whole. */
  ice_scan_opts_t o = opts_default();
  CHECK_OK(scan_wide(t, &o, false, false, seen, &rows, &bad, &err), &err);
  CHECK_EQ(rows, WIDE_ROWS);
  CHECK_EQ(bad, 0);

  /* A projection in another order, without some columns. */
  const char *cols[] = {"pt", "id", "name"};
  o.columns = cols;
  o.ncolumns = 3;
  CHECK_OK(scan_wide(t, &o, false, false, seen, &rows, &bad, &err), &err);
  CHECK_EQ(rows, WIDE_ROWS);
  CHECK_EQ(bad, 0);

  /* A limit that cuts the second batch: its rows are copied. */
  o = opts_default();
  o.limit = 3000;
  CHECK_OK(scan_wide(t, &o, false, false, seen, &rows, &bad, &err), &err);
  CHECK_EQ(rows, 3000);
  CHECK_EQ(bad, 0);

  /* A filter every row passes: the key columns are copied out, the
   * output columns still handed over. */
  ice_expr_t *e;
  CHECK_OK(ice_expr_parse(a, "id >= 0 AND v < 100", &e, &err), &err);
  o = opts_default();
  o.filter = e;
  CHECK_OK(scan_wide(t, &o, false, false, seen, &rows, &bad, &err), &err);
  CHECK_EQ(rows, WIDE_ROWS);
  CHECK_EQ(bad, 0);

  /* Position deletes inside the first batch only: it is copied (rows
   * chosen), the other two handed over, alternating with the first. */
  pos_range_t pr = {data_path, 100, 200};
  ice_dw_opts_t po = {.content = ICE_CONTENT_POSITION_DELETES};
  CHECK_OK(write_files(t, &po, a, fill_pos_range, &pr, &files, &n, &err), &err);
  ice_change_t d = {
      .kind = ICE_CHANGE_ROW_DELTA, .add = files, .nadd = (uint32_t)n, .base_snapshot_id = -1};
  CHECK_OK(ice_commit(t, &d, &res, &err), &err);
  o = opts_default();
  CHECK_OK(scan_wide(t, &o, false, false, seen, &rows, &bad, &err), &err);
  CHECK_EQ(rows, WIDE_ROWS - 100);
  CHECK_EQ(bad, 0);
  for (int64_t i = 0; i < WIDE_ROWS; i++)
    if (seen[i] != (i < 100 || i >= 200)) {
      t_fail(__FILE__, __LINE__, "id %lld: seen %d", (long long)i, seen[i]);
      return;
    }

  /* An evolved schema: v promoted (converted), a column added (its
   * default filled), the rest handed over. */
  /* The table's fields with v's type and one more field: nested ids kept. */
  ty_schema_t *more;
  CHECK_OK(ty_schema_parse(a, "v long, extra string", &more, &err), &err);
  const ty_schema_t *cur = ice_meta_schema(t->meta);
  ty_field_t *fs = fl_arena_alloc(a, 6 * sizeof *fs);
  memcpy(fs, cur->root.fields, 5 * sizeof *fs);
  fs[2].type = more->root.fields[0].type;
  fs[5] = more->root.fields[1];
  fs[5].id = t->meta->last_column_id + 1;
  ty_value_t *dflt = fl_arena_zalloc(a, sizeof *dflt);
  dflt->kind = TY_STRING;
  dflt->u.bytes.p = (const uint8_t *)"dflt";
  dflt->u.bytes.n = 4;
  fs[5].initial_default = dflt;
  ty_schema_t *ns = ty_schema_new(a, cur->schema_id + 1, fs, 6);
  CHECK_OK(ice_commit_meta_edit(t, add_schema_edit, ns, &err), &err);
  o = opts_default();
  CHECK_OK(scan_wide(t, &o, true, true, seen, &rows, &bad, &err), &err);
  CHECK_EQ(rows, WIDE_ROWS - 100);
  CHECK_EQ(bad, 0);
  ice_table_free(t);
  fl_arena_free(a);
}
