/*
 * table_meta.c - the metadata listings of a table: snapshots, history,
 * files, manifests, partitions, refs (layer 12, cli). Their columns follow
 * the Iceberg metadata tables of Spark and Trino ("t$snapshots", ...).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/time.h"
#include "cli/args.h"
#include "cli/rows_out.h"
#include "cli/session.h"
#include "cli/table_cmds.h"
#include "format/json/json_text.h"
#include "iceberg/ice_commit.h"

typedef int (*listing_fn)(ice_table_t *t, cli_fmt_t fmt, fl_arena_t *a, fl_err_t *err);

static int run_listing(const char *sub, cat_catalog_t *c, int argc, char **argv, listing_fn fn) {
  static const cli_opt_spec_t specs[] = {{"format", true}, {0, false}};
  char cmd[64];
  snprintf(cmd, sizeof cmd, "table %s", sub);
  cli_args_t a;
  if (cli_args_parse(cmd, argc, argv, specs, &a)) return 2;
  if (a.npos != 1) return cli_table_usage(sub, "expected one NAME");
  cli_fmt_t fmt = CLI_FMT_TABLE;
  const char *f = cli_args_get(&a, "format");
  if (f && !cli_fmt_parse(f, &fmt)) return cli_table_usage(sub, "unknown --format %s", f);
  ice_table_t *t;
  if (cli_session_table(cmd, c, a.pos[0], &t)) return 1;
  fl_arena_t *ar = fl_arena_new(0);
  fl_err_t err;
  fl_err_clear(&err);
  int status = fn(t, fmt, ar, &err) ? cli_fail(cmd, "%s", err.msg) : 0;
  fl_arena_free(ar);
  ice_table_free(t);
  return status;
}

static void cell_time(cli_out_t *o, int64_t ms) {
  char buf[48];
  fl_format_timestamp(ms * 1000, 6, true, buf);
  cli_out_cell(o, buf, false);
}

static void cell_id(cli_out_t *o, int64_t id) {
  if (id < 0) cli_out_cell(o, NULL, false);
  else cli_out_cell_i64(o, id);
}

static int finish(cli_out_t *o, fl_err_t *err) {
  if (cli_out_finish(o)) return FL_OK;
  return fl_err_set(err, FL_EIO, "writing to standard output failed");
}

/* ---- snapshots ---- */

static int list_snapshots(ice_table_t *t, cli_fmt_t fmt, fl_arena_t *a, fl_err_t *err) {
  const char *cols[] = {"committed_at", "snapshot_id", "parent_id", "operation", "manifest_list",
                        "summary"};
  cli_out_t *o = cli_out_new(fmt, stdout, cols, 6);
  const ice_meta_t *m = t->meta;
  fl_buf_t b;
  fl_buf_init(&b);
  for (uint32_t i = 0; i < m->nsnapshots; i++) {
    const ice_snapshot_t *s = &m->snapshots[i];
    cell_time(o, s->timestamp_ms);
    cli_out_cell_i64(o, s->snapshot_id);
    cell_id(o, s->parent_id);
    cli_out_cell(o, ice_snapshot_operation(s), false);
    cli_out_cell(o, s->manifest_list, false);
    fl_buf_clear(&b);
    fl_buf_append_u8(&b, '{');
    for (uint32_t k = 0; k < s->nsummary; k++) {
      if (strcmp(s->summary[k].key, "operation") == 0) continue;
      if (b.len > 1) fl_buf_append_u8(&b, ',');
      js_append_string(&b, (const uint8_t *)s->summary[k].key, strlen(s->summary[k].key));
      fl_buf_append_u8(&b, ':');
      js_append_string(&b, (const uint8_t *)s->summary[k].value, strlen(s->summary[k].value));
    }
    fl_buf_append_str(&b, "}");
    fl_buf_append_u8(&b, '\0');
    cli_out_cell(o, (const char *)b.data, true);
    cli_out_end_row(o);
  }
  fl_buf_free(&b);
  (void)a;
  return finish(o, err);
}

int cli_table_snapshots(cat_catalog_t *c, int argc, char **argv) {
  return run_listing("snapshots", c, argc, argv, list_snapshots);
}

/* ---- history ---- */

typedef struct ancestor_set {
  int64_t *ids;
  size_t n, cap;
} ancestor_set_t;

static bool add_ancestor(const ice_snapshot_t *s, void *arg) {
  ancestor_set_t *as = arg;
  if (as->n == as->cap) {
    as->cap = as->cap ? as->cap * 2 : 64;
    as->ids = fl_realloc(as->ids, as->cap * sizeof *as->ids);
  }
  as->ids[as->n++] = s->snapshot_id;
  return true;
}

static int list_history(ice_table_t *t, cli_fmt_t fmt, fl_arena_t *a, fl_err_t *err) {
  const char *cols[] = {"made_current_at", "snapshot_id", "parent_id", "is_current_ancestor"};
  cli_out_t *o = cli_out_new(fmt, stdout, cols, 4);
  const ice_meta_t *m = t->meta;
  ancestor_set_t as = {0};
  if (m->current_snapshot_id >= 0) ice_table_ancestors(m, m->current_snapshot_id, add_ancestor, &as);
  for (uint32_t i = 0; i < m->nsnapshot_log; i++) {
    const ice_snapshot_log_entry_t *e = &m->snapshot_log[i];
    const ice_snapshot_t *s = ice_meta_snapshot(m, e->snapshot_id);
    bool anc = false;
    for (size_t k = 0; k < as.n; k++) anc |= as.ids[k] == e->snapshot_id;
    cell_time(o, e->timestamp_ms);
    cli_out_cell_i64(o, e->snapshot_id);
    cell_id(o, s ? s->parent_id : -1);
    cli_out_cell(o, anc ? "true" : "false", true);
    cli_out_end_row(o);
  }
  fl_free(as.ids);
  (void)a;
  return finish(o, err);
}

int cli_table_history(cat_catalog_t *c, int argc, char **argv) {
  return run_listing("history", c, argc, argv, list_history);
}

/* ---- files ---- */

static const char *partition_text(const ice_table_t *t, fl_arena_t *a, int32_t spec_id,
                                  const ty_value_t *values, uint32_t n) {
  const ice_spec_t *spec = ice_meta_spec_by_id(t->meta, spec_id);
  if (!spec || spec->nfields == 0 || n == 0) return "";
  const ty_type_t *pt;
  fl_err_t ignored;
  if (ice_spec_partition_type(a, spec, ice_meta_schema(t->meta), &pt, &ignored)) return "?";
  fl_buf_t b;
  fl_buf_init(&b);
  ice_spec_partition_path(spec, pt, values, &b);
  const char *out = fl_arena_strndup(a, (const char *)b.data, b.len);
  fl_buf_free(&b);
  return out;
}

static const char *content_name(int c) {
  return c == ICE_CONTENT_DATA ? "data" : c == ICE_CONTENT_POSITION_DELETES ? "position_deletes"
                                                                           : "equality_deletes";
}

static int list_files(ice_table_t *t, cli_fmt_t fmt, fl_arena_t *a, fl_err_t *err) {
  const char *cols[] = {"content", "file_path", "file_format", "spec_id", "partition",
                        "record_count", "file_size_in_bytes", "sequence_number"};
  const ice_snapshot_t *cur = ice_meta_current_snapshot(t->meta);
  ice_manifest_entry_t *es = NULL;
  size_t n = 0;
  if (cur) {
    int rc = ice_snapshot_entries(t, a, cur, &es, &n, err);
    if (rc) return rc;
  }
  cli_out_t *o = cli_out_new(fmt, stdout, cols, 8);
  for (size_t i = 0; i < n; i++) {
    const ice_data_file_t *f = &es[i].file;
    cli_out_cell(o, content_name(f->content), false);
    cli_out_cell(o, f->path, false);
    cli_out_cell(o, f->format, false);
    cli_out_cell_i64(o, f->spec_id);
    cli_out_cell(o, partition_text(t, a, f->spec_id, f->partition, f->npartition), false);
    cli_out_cell_i64(o, f->record_count);
    cli_out_cell_i64(o, f->file_size);
    cli_out_cell_i64(o, es[i].sequence_number);
    cli_out_end_row(o);
  }
  return finish(o, err);
}

int cli_table_files(cat_catalog_t *c, int argc, char **argv) {
  return run_listing("files", c, argc, argv, list_files);
}

/* ---- manifests ---- */

static int list_manifests(ice_table_t *t, cli_fmt_t fmt, fl_arena_t *a, fl_err_t *err) {
  const char *cols[] = {"content", "path", "length", "partition_spec_id", "added_snapshot_id",
                        "sequence_number", "added_data_files_count",
                        "existing_data_files_count", "deleted_data_files_count",
                        "added_rows_count", "existing_rows_count", "deleted_rows_count"};
  const ice_snapshot_t *cur = ice_meta_current_snapshot(t->meta);
  ice_manifest_file_t *mfs = NULL;
  size_t n = 0;
  if (cur) {
    int rc = ice_snapshot_manifests(t, a, cur, &mfs, &n, err);
    if (rc) return rc;
  }
  cli_out_t *o = cli_out_new(fmt, stdout, cols, 12);
  for (size_t i = 0; i < n; i++) {
    const ice_manifest_file_t *m = &mfs[i];
    cli_out_cell(o, m->content ? "deletes" : "data", false);
    cli_out_cell(o, m->path, false);
    cli_out_cell_i64(o, m->length);
    cli_out_cell_i64(o, m->spec_id);
    cell_id(o, m->added_snapshot_id);
    cli_out_cell_i64(o, m->sequence_number);
    cli_out_cell_i64(o, m->added_files);
    cli_out_cell_i64(o, m->existing_files);
    cli_out_cell_i64(o, m->deleted_files);
    cli_out_cell_i64(o, m->added_rows);
    cli_out_cell_i64(o, m->existing_rows);
    cli_out_cell_i64(o, m->deleted_rows);
    cli_out_end_row(o);
  }
  return finish(o, err);
}

int cli_table_manifests(cat_catalog_t *c, int argc, char **argv) {
  return run_listing("manifests", c, argc, argv, list_manifests);
}

/* ---- partitions ---- */

typedef struct part_row {
  const char *partition;
  int32_t spec_id;
  int64_t records, files, bytes, pos_deletes, eq_deletes, delete_files;
} part_row_t;

static int list_partitions(ice_table_t *t, cli_fmt_t fmt, fl_arena_t *a, fl_err_t *err) {
  const char *cols[] = {"partition",           "spec_id",
                        "record_count",        "file_count",
                        "total_data_file_size_in_bytes", "position_delete_record_count",
                        "equality_delete_record_count",  "delete_file_count"};
  const ice_snapshot_t *cur = ice_meta_current_snapshot(t->meta);
  ice_manifest_entry_t *es = NULL;
  size_t n = 0;
  if (cur) {
    int rc = ice_snapshot_entries(t, a, cur, &es, &n, err);
    if (rc) return rc;
  }
  part_row_t *rows = fl_arena_zalloc(a, (n ? n : 1) * sizeof *rows);
  size_t nrows = 0;
  for (size_t i = 0; i < n; i++) {
    const ice_data_file_t *f = &es[i].file;
    const char *p = partition_text(t, a, f->spec_id, f->partition, f->npartition);
    part_row_t *r = NULL;
    for (size_t k = 0; k < nrows && !r; k++)
      if (rows[k].spec_id == f->spec_id && strcmp(rows[k].partition, p) == 0) r = &rows[k];
    if (!r) {
      r = &rows[nrows++];
      r->partition = p;
      r->spec_id = f->spec_id;
    }
    if (f->content == ICE_CONTENT_DATA) {
      r->records += f->record_count;
      r->files++;
      r->bytes += f->file_size;
    } else {
      r->delete_files++;
      if (f->content == ICE_CONTENT_POSITION_DELETES) r->pos_deletes += f->record_count;
      else r->eq_deletes += f->record_count;
    }
  }
  cli_out_t *o = cli_out_new(fmt, stdout, cols, 8);
  for (size_t k = 0; k < nrows; k++) {
    cli_out_cell(o, rows[k].partition, false);
    cli_out_cell_i64(o, rows[k].spec_id);
    cli_out_cell_i64(o, rows[k].records);
    cli_out_cell_i64(o, rows[k].files);
    cli_out_cell_i64(o, rows[k].bytes);
    cli_out_cell_i64(o, rows[k].pos_deletes);
    cli_out_cell_i64(o, rows[k].eq_deletes);
    cli_out_cell_i64(o, rows[k].delete_files);
    cli_out_end_row(o);
  }
  return finish(o, err);
}

int cli_table_partitions(cat_catalog_t *c, int argc, char **argv) {
  return run_listing("partitions", c, argc, argv, list_partitions);
}

/* ---- refs ---- */

static void cell_opt(cli_out_t *o, int64_t v) {
  if (v < 0) cli_out_cell(o, NULL, false);
  else cli_out_cell_i64(o, v);
}

static int list_refs(ice_table_t *t, cli_fmt_t fmt, fl_arena_t *a, fl_err_t *err) {
  const char *cols[] = {"name", "type", "snapshot_id", "max_reference_age_in_ms",
                        "min_snapshots_to_keep", "max_snapshot_age_in_ms"};
  cli_out_t *o = cli_out_new(fmt, stdout, cols, 6);
  const ice_meta_t *m = t->meta;
  bool has_main = false;
  for (uint32_t i = 0; i < m->nrefs; i++) has_main |= strcmp(m->refs[i].name, "main") == 0;
  if (!has_main && m->current_snapshot_id >= 0) {
    /* v1 tables and old writers keep main only as current-snapshot-id. */
    cli_out_cell(o, "main", false);
    cli_out_cell(o, "BRANCH", false);
    cli_out_cell_i64(o, m->current_snapshot_id);
    cli_out_end_row(o);
  }
  for (uint32_t i = 0; i < m->nrefs; i++) {
    const ice_ref_t *r = &m->refs[i];
    cli_out_cell(o, r->name, false);
    cli_out_cell(o, r->is_tag ? "TAG" : "BRANCH", false);
    cli_out_cell_i64(o, r->snapshot_id);
    cell_opt(o, r->max_ref_age_ms);
    cell_opt(o, r->min_snapshots_to_keep);
    cell_opt(o, r->max_snapshot_age_ms);
    cli_out_end_row(o);
  }
  (void)a;
  return finish(o, err);
}

int cli_table_refs(cat_catalog_t *c, int argc, char **argv) {
  return run_listing("refs", c, argc, argv, list_refs);
}
