/*
 * ice_bench.c - the floe side of bench/iceberg_bench.py: Iceberg table
 * operations timed in-process, as PyIceberg's are on the other side.
 *
 *   ice_bench append   --warehouse W --table NS.T --file F.parquet
 *   ice_bench commits  --warehouse W --table NS.T --n N --rows R [--day-files]
 *   ice_bench files    --warehouse W --table NS.T --n N --rows R
 *   ice_bench plan     --warehouse W --table NS.T [--filter EXPR] [--repeat K]
 *   ice_bench scan     --warehouse W --table NS.T [--filter EXPR]
 *                      (seconds: load, plan and read; read_seconds: plan and read)
 *   ice_bench parquet  --warehouse W --table NS.T   (bare Parquet reads of its data files)
 *   ice_bench scanpair --warehouse W --table NS.T [--repeat K]
 *                      (a full scan and the bare reads, in K pairs in one process)
 *
 * Each prints one JSON object on standard output: seconds and counts (and
 * per-commit latencies and CPU seconds for commits). The table must exist.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/time.h"
#include "catalog/cat_tables.h"
#include "format/format.h"
#include "format/parquet/pq_reader.h"
#include "iceberg/ice_commit.h"
#include "iceberg/ice_data_writer.h"
#include "iceberg/ice_scan.h"

typedef struct opts {
  const char *cmd, *warehouse, *table, *file, *filter;
  int n, rows, repeat;
} opts_t;

static int die(const char *what, const fl_err_t *err) {
  fprintf(stderr, "ice_bench: %s: %s\n", what, err ? err->msg : "");
  return 1;
}

static double now_s(void) { return (double)fl_monotonic_ns() / 1e9; }

/* CPU seconds of this process (user and system): on a shared machine the
 * part of a latency that other processes cannot stretch. */
static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Peak RSS of this process image in KiB (VmHWM: getrusage's maxrss would
 * include the parent's before exec). */
static long peak_rss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kb = -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "VmHWM:", 6) == 0) kb = strtol(line + 6, NULL, 10);
  fclose(f);
  return kb;
}

/* Every result line ends with the peak RSS. */
#define PRINT_END() printf(", \"self_peak_rss_kb\": %ld}\n", peak_rss_kb())

static int open_table(const opts_t *o, cat_catalog_t **c, ice_table_t **t, fl_err_t *err) {
  int rc = cat_open(NULL, o->warehouse, NULL, c, err);
  if (rc) return rc;
  char *ns, *name;
  rc = cat_split_ident(o->table, &ns, &name, err);
  if (rc) return rc;
  rc = cat_open_table(*c, io_local_fs(), ns, name, t, err);
  fl_free(ns);
  fl_free(name);
  return rc;
}

static ice_dw_opts_t dw_opts(const ice_meta_t *m) {
  return (ice_dw_opts_t){.spec = ice_meta_spec(m), .props = m->properties,
                         .nprops = m->nproperties, .sort_order_id = 0};
}

static int commit_files(ice_table_t *t, ice_dw_t *w, fl_arena_t *a, size_t *nfiles,
                        fl_err_t *err) {
  ice_data_file_t *files;
  size_t n;
  int rc = ice_dw_close(w, a, &files, &n, err);
  if (rc == FL_OK) {
    ice_change_t ch = {.kind = ICE_CHANGE_APPEND, .add = files, .nadd = (uint32_t)n,
                       .base_snapshot_id = -1};
    rc = ice_commit(t, &ch, NULL, err);
  }
  if (rc) ice_dw_abort(w);
  else ice_dw_free(w);
  if (nfiles) *nfiles = n;
  return rc;
}

/* One append of a whole Parquet file (read, partition, write, commit). */
static int cmd_append(const opts_t *o) {
  fl_err_t err;
  fl_err_clear(&err);
  cat_catalog_t *c;
  ice_table_t *t;
  double t0 = now_s();
  if (open_table(o, &c, &t, &err)) return die("open", &err);
  const ty_schema_t *schema = ice_meta_schema(t->meta);
  fmt_read_opts_t ro = {.schema = schema};
  fmt_reader_t *r;
  if (fmt_open_reader(io_local_fs(), o->file, &ro, &r, &err)) return die(o->file, &err);
  ice_dw_opts_t dwo = dw_opts(t->meta);
  ice_dw_t *w;
  if (ice_dw_open(t->fs, t->meta->location, schema, &dwo, &w, &err)) return die("writer", &err);
  uint64_t rows = 0;
  for (;;) {
    ty_batch_t *b;
    if (r->next(r, &b, &err)) return die("read", &err);
    if (!b) break;
    b->schema = schema;
    rows += ty_batch_live(b);
    if (ice_dw_write(w, b, &err)) return die("write", &err);
  }
  r->close(r);
  fl_arena_t *a = fl_arena_new(0);
  size_t nfiles;
  if (commit_files(t, w, a, &nfiles, &err)) return die("commit", &err);
  double t1 = now_s();
  printf("{\"seconds\": %.6f, \"rows\": %" PRIu64 ", \"files\": %zu", t1 - t0, rows, nfiles);
  PRINT_END();
  fl_arena_free(a);
  ice_table_free(t);
  cat_close(c);
  return 0;
}

/* A batch of generated rows for the schema (id long, ts timestamptz, name
 * string, value double): ids from start, ts on day `day` of 2026-11. */
static void fill(ty_batch_t *b, int64_t start, int rows, int day) {
  ty_batch_reset(b);
  for (int i = 0; i < rows; i++) {
    int64_t id = start + i;
    ty_vec_append_i64(b->cols[0], id);
    ty_vec_append_i64(b->cols[1], (1793491200LL + day * 86400LL + (id % 86400)) * 1000000LL);
    char name[32];
    int n = snprintf(name, sizeof name, "user-%" PRId64, id % 1000);
    ty_vec_append_bytes(b->cols[2], name, (size_t)n);
    ty_vec_append_f64(b->cols[3], (double)(id % 997) / 7.0);
  }
  ty_batch_seal(b);
}

/* N successive small appends; each latency is write + commit. */
static int cmd_commits(const opts_t *o, bool report) {
  fl_err_t err;
  fl_err_clear(&err);
  cat_catalog_t *c;
  ice_table_t *t;
  if (open_table(o, &c, &t, &err)) return die("open", &err);
  const ty_schema_t *schema = ice_meta_schema(t->meta);
  ty_batch_t *b = ty_batch_new(schema, (uint32_t)o->rows);
  double *lat = fl_calloc((size_t)o->n, sizeof *lat);
  double *cpu = fl_calloc((size_t)o->n, sizeof *cpu);
  double t0 = now_s();
  for (int k = 0; k < o->n; k++) {
    double s = now_s(), c0 = cpu_s();
    fill(b, (int64_t)k * o->rows, o->rows, k % 28);
    ice_dw_opts_t dwo = dw_opts(t->meta);
    ice_dw_t *w;
    if (ice_dw_open(t->fs, t->meta->location, ice_meta_schema(t->meta), &dwo, &w, &err))
      return die("writer", &err);
    if (ice_dw_write(w, b, &err)) return die("write", &err);
    fl_arena_t *a = fl_arena_new(0);
    if (commit_files(t, w, a, NULL, &err)) return die("commit", &err);
    fl_arena_free(a);
    lat[k] = now_s() - s;
    cpu[k] = cpu_s() - c0;
  }
  double total = now_s() - t0;
  if (report) {
    printf("{\"seconds\": %.6f, \"commits\": %d, \"latencies\": [", total, o->n);
    for (int k = 0; k < o->n; k++) printf("%s%.6f", k ? ", " : "", lat[k]);
    printf("], \"cpu\": [");
    for (int k = 0; k < o->n; k++) printf("%s%.6f", k ? ", " : "", cpu[k]);
    printf("]");
    PRINT_END();
  } else {
    printf("{\"seconds\": %.6f, \"commits\": %d", total, o->n);
    PRINT_END();
  }
  fl_free(lat);
  fl_free(cpu);
  ty_batch_free(b);
  ice_table_free(t);
  cat_close(c);
  return 0;
}

/* Plans the scan repeat times; the median time and the task count. */
static int plan_once(ice_table_t *t, const opts_t *o, fl_arena_t *a, double *secs,
                     uint32_t *ntasks, ice_scan_t **keep, fl_err_t *err) {
  ice_scan_opts_t so = {.snapshot_id = -1, .as_of_ms = -1, .limit = -1, .case_sensitive = true};
  if (o->filter) {
    ice_expr_t *e;
    int rc = ice_expr_parse(a, o->filter, &e, err);
    if (rc) return rc;
    so.filter = e;
  }
  double s = now_s();
  ice_scan_t *sc;
  int rc = ice_scan_plan(t, &so, &sc, err);
  if (rc) return rc;
  *secs = now_s() - s;
  ice_scan_tasks(sc, ntasks);
  if (keep) *keep = sc;
  else ice_scan_free(sc);
  return FL_OK;
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

static int cmd_plan(const opts_t *o) {
  fl_err_t err;
  fl_err_clear(&err);
  cat_catalog_t *c;
  ice_table_t *t;
  if (open_table(o, &c, &t, &err)) return die("open", &err);
  fl_arena_t *a = fl_arena_new(0);
  int rep = o->repeat > 0 ? o->repeat : 5;
  double *s = fl_calloc((size_t)rep, sizeof *s);
  uint32_t ntasks = 0;
  for (int i = 0; i < rep; i++)
    if (plan_once(t, o, a, &s[i], &ntasks, NULL, &err)) return die("plan", &err);
  qsort(s, (size_t)rep, sizeof *s, cmp_double);
  printf("{\"seconds\": %.6f, \"tasks\": %u", s[rep / 2], ntasks);
  PRINT_END();
  fl_free(s);
  fl_arena_free(a);
  ice_table_free(t);
  cat_close(c);
  return 0;
}

static int cmd_scan(const opts_t *o) {
  fl_err_t err;
  fl_err_clear(&err);
  cat_catalog_t *c;
  ice_table_t *t;
  double t0 = now_s();
  if (open_table(o, &c, &t, &err)) return die("open", &err);
  fl_arena_t *a = fl_arena_new(0);
  double plan;
  uint32_t ntasks;
  ice_scan_t *sc;
  double t_plan = now_s();
  if (plan_once(t, o, a, &plan, &ntasks, &sc, &err)) return die("plan", &err);
  uint64_t rows = 0;
  for (;;) {
    ty_batch_t *b;
    if (ice_scan_next(sc, &b, &err)) return die("scan", &err);
    if (!b) break;
    rows += ty_batch_live(b);
  }
  double t_end = now_s();
  const ice_scan_stats_t *st = ice_scan_stats(sc);
  printf("{\"seconds\": %.6f, \"read_seconds\": %.6f, \"plan_seconds\": %.6f, \"rows\": %" PRIu64
         ", \"tasks\": %u, \"files_skipped\": %" PRIu64 ", \"bytes_read\": %" PRIu64,
         t_end - t0, t_end - t_plan, plan, rows, ntasks, st->files_skipped_partition + st->files_skipped_metrics,
         st->bytes_read);
  PRINT_END();
  ice_scan_free(sc);
  fl_arena_free(a);
  ice_table_free(t);
  cat_close(c);
  return 0;
}

/* Reads every data file of es[0..n) with the bare Parquet reader, one
 * after another; the rows read. */
static int bare_read(ice_table_t *t, fl_arena_t *a, const ice_manifest_entry_t *es, size_t n,
                     uint64_t *rows, fl_err_t *err) {
  *rows = 0;
  for (size_t i = 0; i < n; i++) {
    pq_reader_t *r;
    const char *p = ice_table_path(t, a, es[i].file.path);
    if (strncmp(p, "file://", 7) == 0) p += 7;
    int rc = pq_reader_open(io_local_fs(), p, NULL, &r, err);
    if (rc) return rc;
    for (;;) {
      ty_batch_t *b;
      if ((rc = pq_reader_next(r, &b, err))) break;
      if (!b) break;
      *rows += ty_batch_live(b);
    }
    pq_reader_close(r);
    if (rc) return rc;
  }
  return FL_OK;
}

/* A full scan, planning included; the rows read. */
static int floe_read(ice_table_t *t, uint64_t *rows, fl_err_t *err) {
  ice_scan_opts_t so = {.snapshot_id = -1, .as_of_ms = -1, .limit = -1, .case_sensitive = true};
  ice_scan_t *sc;
  int rc = ice_scan_plan(t, &so, &sc, err);
  if (rc) return rc;
  *rows = 0;
  for (;;) {
    ty_batch_t *b;
    if ((rc = ice_scan_next(sc, &b, err)) || !b) break;
    *rows += ty_batch_live(b);
  }
  ice_scan_free(sc);
  return rc;
}

/*
 * The full scan and the bare reads of the same files, in pairs within one
 * process (the order alternating), repeat times: each pair runs under the
 * same machine load, so the median of the per-pair ratios (of wall and of
 * CPU time) is steadier than separate runs on a shared machine.
 */
static int cmd_scanpair(const opts_t *o) {
  fl_err_t err;
  fl_err_clear(&err);
  cat_catalog_t *c;
  ice_table_t *t;
  if (open_table(o, &c, &t, &err)) return die("open", &err);
  fl_arena_t *a = fl_arena_new(0);
  ice_manifest_entry_t *es = NULL;
  size_t n = 0;
  const ice_snapshot_t *cur = ice_meta_current_snapshot(t->meta);
  if (cur && ice_snapshot_entries(t, a, cur, &es, &n, &err)) return die("entries", &err);
  int rep = o->repeat > 0 ? o->repeat : 5;
  double *fs = fl_calloc((size_t)rep, sizeof *fs), *bs = fl_calloc((size_t)rep, sizeof *bs);
  double *ratio = fl_calloc((size_t)rep, sizeof *ratio);
  double *fc = fl_calloc((size_t)rep, sizeof *fc), *bc = fl_calloc((size_t)rep, sizeof *bc);
  double *cratio = fl_calloc((size_t)rep, sizeof *cratio);
  uint64_t frows = 0, brows = 0;
  for (int i = 0; i < rep; i++) {
    for (int k = 0; k < 2; k++) {
      bool floe_turn = (k == 0) == (i % 2 == 0);
      double s = now_s(), c0 = cpu_s();
      if (floe_turn) {
        if (floe_read(t, &frows, &err)) return die("scan", &err);
        fs[i] = now_s() - s;
        fc[i] = cpu_s() - c0;
      } else {
        if (bare_read(t, a, es, n, &brows, &err)) return die("parquet", &err);
        bs[i] = now_s() - s;
        bc[i] = cpu_s() - c0;
      }
    }
    ratio[i] = bs[i] / fs[i];
    cratio[i] = bc[i] / fc[i];
  }
  printf("{\"rows\": %" PRIu64 ", \"bare_rows\": %" PRIu64 ", \"floe_seconds\": [", frows, brows);
  for (int i = 0; i < rep; i++) printf("%s%.6f", i ? ", " : "", fs[i]);
  printf("], \"bare_seconds\": [");
  for (int i = 0; i < rep; i++) printf("%s%.6f", i ? ", " : "", bs[i]);
  printf("], \"floe_cpu\": [");
  for (int i = 0; i < rep; i++) printf("%s%.6f", i ? ", " : "", fc[i]);
  printf("], \"bare_cpu\": [");
  for (int i = 0; i < rep; i++) printf("%s%.6f", i ? ", " : "", bc[i]);
  qsort(ratio, (size_t)rep, sizeof *ratio, cmp_double);
  qsort(cratio, (size_t)rep, sizeof *cratio, cmp_double);
  printf("], \"median_ratio\": %.4f, \"median_cpu_ratio\": %.4f", ratio[rep / 2], cratio[rep / 2]);
  PRINT_END();
  fl_free(fc);
  fl_free(bc);
  fl_free(cratio);
  fl_free(fs);
  fl_free(bs);
  fl_free(ratio);
  fl_arena_free(a);
  ice_table_free(t);
  cat_close(c);
  return 0;
}

/* The same data files read with the bare Parquet reader, one after another. */
static int cmd_parquet(const opts_t *o) {
  fl_err_t err;
  fl_err_clear(&err);
  cat_catalog_t *c;
  ice_table_t *t;
  if (open_table(o, &c, &t, &err)) return die("open", &err);
  fl_arena_t *a = fl_arena_new(0);
  ice_manifest_entry_t *es = NULL;
  size_t n = 0;
  const ice_snapshot_t *cur = ice_meta_current_snapshot(t->meta);
  if (cur && ice_snapshot_entries(t, a, cur, &es, &n, &err)) return die("entries", &err);
  double t0 = now_s();
  uint64_t rows = 0;
  if (bare_read(t, a, es, n, &rows, &err)) return die("parquet", &err);
  printf("{\"seconds\": %.6f, \"rows\": %" PRIu64 ", \"files\": %zu", now_s() - t0, rows, n);
  PRINT_END();
  fl_arena_free(a);
  ice_table_free(t);
  cat_close(c);
  return 0;
}

int main(int argc, char **argv) {
  opts_t o = {.n = 1, .rows = 100, .repeat = 5};
  if (argc < 2) {
    fprintf(stderr, "usage: ice_bench append|commits|files|plan|scan|parquet|scanpair --warehouse W "
                    "--table NS.T [...]\n");
    return 2;
  }
  o.cmd = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    const char *k = argv[i], *v = argv[i + 1];
    if (!strcmp(k, "--warehouse")) o.warehouse = v;
    else if (!strcmp(k, "--table")) o.table = v;
    else if (!strcmp(k, "--file")) o.file = v;
    else if (!strcmp(k, "--filter")) o.filter = v;
    else if (!strcmp(k, "--n")) o.n = atoi(v);
    else if (!strcmp(k, "--rows")) o.rows = atoi(v);
    else if (!strcmp(k, "--repeat")) o.repeat = atoi(v);
    else {
      fprintf(stderr, "ice_bench: unknown option %s\n", k);
      return 2;
    }
  }
  if (!o.warehouse || !o.table || o.n < 1 || o.rows < 1) {
    fprintf(stderr, "ice_bench: --warehouse and --table are required\n");
    return 2;
  }
  if (!strcmp(o.cmd, "append")) return o.file ? cmd_append(&o) : 2;
  if (!strcmp(o.cmd, "commits")) return cmd_commits(&o, true);
  if (!strcmp(o.cmd, "files")) return cmd_commits(&o, false);
  if (!strcmp(o.cmd, "plan")) return cmd_plan(&o);
  if (!strcmp(o.cmd, "scan")) return cmd_scan(&o);
  if (!strcmp(o.cmd, "parquet")) return cmd_parquet(&o);
  if (!strcmp(o.cmd, "scanpair")) return cmd_scanpair(&o);
  fprintf(stderr, "ice_bench: unknown command %s\n", o.cmd);
  return 2;
}
