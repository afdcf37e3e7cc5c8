/*
 * floe_bench.c - the floe side of bench/parquet_bench.py: one measured phase
 * per process, so that the peak RSS the kernel reports (ru_maxrss) belongs
 * to that phase alone.
 *
 * Subcommands (each prints one JSON object on stdout):
 *   generate --rows N --out F      writes the benchmark dataset (untimed helper)
 *   write (--in F | --generate N) --out X.parquet [--compression C]
 *                                  loads the whole table into memory, then times
 *                                  only writing it through fmt_open_writer
 *   read --in F                    times reading every batch and checksumming
 *                                  every column, so no value can be skipped
 *   convert --in X.jsonl --out Y.parquet [--infer]
 *                                  times JSON lines -> Parquet (schema given, or
 *                                  inferred with --infer)
 *   decode --in X.jsonl [--infer]  times decoding JSON lines alone (checksummed)
 *
 * The dataset: "id long not null, value double, ts timestamptz, category
 * string, description string, price decimal(12,2), flag boolean". types/gen
 * draws every column; a post-pass here then replaces the two string columns
 * (keeping their nulls) with low-cardinality category names and 20-80
 * character descriptions, which the generic generator does not produce.
 * Only the public format interface (format/format.h) and types/gen.h are
 * used, so any format merged behind fmt_open_reader / fmt_open_writer is
 * measured without changes here.
 *
 * Exit status: 0 ok, 1 failure, 2 usage, 3 the format is not built in
 * (FL_EUNSUPPORTED), so the driver can report "not available" instead of a
 * failure.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/time.h"
#include "format/format.h"
#include "io/fs.h"
#include "types/gen.h"
#include "types/type.h"
#include "types/value.h"
#include "types/vec.h"

#define EXIT_UNSUPPORTED 3

static const char BENCH_SCHEMA[] =
    "id long not null, value double, ts timestamptz, category string, description string, "
    "price decimal(12,2), flag boolean";

/* ---- options --------------------------------------------------------------------------- */

typedef struct bench_opts {
  const char *in, *out, *compression;
  uint64_t compression_level; /* 0: the codec's default */
  uint64_t generate_rows; /* write: 0 = load --in */
  uint64_t rows;          /* generate */
  uint64_t seed;
  uint64_t row_group_rows;
  double null_fraction;
  bool infer;
} bench_opts_t;

static void usage(void) {
  fprintf(stderr,
          "usage: floe_bench generate --rows N --out FILE [--seed S] [--null-fraction F]\n"
          "       floe_bench write (--in FILE | --generate N) --out FILE.parquet\n"
          "                        [--compression zstd|snappy|...] [--row-group-rows N] [--seed S]\n"
          "       floe_bench read --in FILE\n"
          "       floe_bench convert --in FILE.jsonl --out FILE.parquet [--infer] [--compression C]\n"
          "       floe_bench decode --in FILE.jsonl [--infer]\n"
          "Each prints one JSON object: phase, rows, seconds, bytes_in, bytes_out, peak_rss_kb.\n");
}

static bool parse_u64(const char *s, uint64_t *out) {
  char *end;
  if (!s || !*s) return false;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end) return false;
  *out = v;
  return true;
}

static int parse_opts(int argc, char **argv, bench_opts_t *o) {
  memset(o, 0, sizeof *o);
  o->seed = 42;
  o->null_fraction = 0.05;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool ok = true;
    if (strcmp(a, "--infer") == 0) {
      o->infer = true;
      continue;
    }
    if (!v) {
      fprintf(stderr, "floe_bench: %s needs a value\n", a);
      return -1;
    }
    if (strcmp(a, "--in") == 0)
      o->in = v;
    else if (strcmp(a, "--out") == 0)
      o->out = v;
    else if (strcmp(a, "--compression") == 0)
      o->compression = v;
    else if (strcmp(a, "--compression-level") == 0)
      ok = parse_u64(v, &o->compression_level);
    else if (strcmp(a, "--generate") == 0)
      ok = parse_u64(v, &o->generate_rows);
    else if (strcmp(a, "--rows") == 0)
      ok = parse_u64(v, &o->rows);
    else if (strcmp(a, "--seed") == 0)
      ok = parse_u64(v, &o->seed);
    else if (strcmp(a, "--row-group-rows") == 0)
      ok = parse_u64(v, &o->row_group_rows);
    else if (strcmp(a, "--null-fraction") == 0) {
      char *end;
      o->null_fraction = strtod(v, &end);
      ok = !*end && o->null_fraction >= 0 && o->null_fraction <= 1;
    } else {
      fprintf(stderr, "floe_bench: unknown option %s\n", a);
      return -1;
    }
    if (!ok) {
      fprintf(stderr, "floe_bench: bad value for %s: %s\n", a, v);
      return -1;
    }
    i++;
  }
  return 0;
}

/* ---- measurement ----------------------------------------------------------------------- */

static long peak_rss_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* The resident set right now (not the peak), from /proc/self/statm. */
static long current_rss_kb(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long size = 0, resident = 0;
  if (!f) return -1;
  if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
  fclose(f);
  return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static uint64_t file_bytes(const char *path) {
  struct stat st;
  return path && stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static double process_cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The timed section: wall-clock time is what the driver compares; the
 * process's CPU time over the same section is reported beside it, since on
 * a shared machine it varies less than wall-clock time. */
static double g_cpu_start, g_cpu_elapsed;

static int64_t timer_start(void) {
  g_cpu_start = process_cpu_seconds();
  return fl_monotonic_ns();
}

static double seconds_since(int64_t t0_ns) {
  g_cpu_elapsed = process_cpu_seconds() - g_cpu_start;
  return (double)(fl_monotonic_ns() - t0_ns) / 1e9;
}

/* Reports a failed step; FL_EUNSUPPORTED becomes a clear "not built in" note. */
static int fail(const char *what, int rc, const fl_err_t *err) {
  if (rc == FL_EUNSUPPORTED) {
    fprintf(stderr, "floe_bench: %s: not available in this build of floe (%s): %s\n", what,
            fl_code_name(rc), err->msg);
    return EXIT_UNSUPPORTED;
  }
  fprintf(stderr, "floe_bench: %s: %s: %s\n", what, fl_code_name(rc), err->msg);
  return 1;
}

/* ---- checksum: touches every value of every column -------------------------------------- */

/*
 * Per column: non-null values, and a sum whose kind depends on the type
 * (integers and timestamps: wrapping 64-bit sum; decimals: exact 128-bit
 * sum of unscaled values; booleans: trues; strings and binary: total
 * bytes; floating point: a double sum). The integer parts are what
 * pyarrow's compute kernels give for the same file, so the driver can
 * compare them.
 */
typedef struct col_sum {
  uint64_t nonnull;
  uint64_t isum;  /* wrapping */
  fl_i128 dsum;   /* decimals */
  double fsum;    /* float, double */
  uint64_t bytes; /* string, binary, fixed, uuid */
} col_sum_t;

static void checksum_vec(col_sum_t *c, const ty_vec_t *v, const ty_batch_t *b) {
  uint32_t n = ty_batch_live(b);
  bool has_nulls = v->null_count > 0;
  for (uint32_t k = 0; k < n; k++) {
    uint32_t i = b->sel ? b->sel[k] : k;
    if (has_nulls && ty_vec_is_null(v, i)) continue;
    c->nonnull++;
    switch (v->type->kind) {
      case TY_BOOLEAN: c->isum += v->data[i]; break;
      case TY_INT:
      case TY_DATE: c->isum += (uint64_t)(int64_t)TY_VEC_DATA(v, int32_t)[i]; break;
      case TY_LONG:
      case TY_TIME:
      case TY_TIMESTAMP:
      case TY_TIMESTAMPTZ:
      case TY_TIMESTAMP_NS:
      case TY_TIMESTAMPTZ_NS: c->isum += (uint64_t)TY_VEC_DATA(v, int64_t)[i]; break;
      case TY_FLOAT: c->fsum += (double)TY_VEC_DATA(v, float)[i]; break;
      case TY_DOUBLE: c->fsum += TY_VEC_DATA(v, double)[i]; break;
      case TY_DECIMAL: c->dsum += ty_vec_get_i128(v, i); break;
      case TY_STRING:
      case TY_BINARY:
      case TY_UUID:
      case TY_FIXED: {
        size_t len;
        (void)ty_vec_get_bytes(v, i, &len);
        c->bytes += len;
        break;
      }
      default: break; /* nested columns: counted, not summed (not in this dataset) */
    }
  }
}

static void print_checksum(const ty_schema_t *s, const col_sum_t *sums) {
  printf(",\"checksum\":{");
  for (uint32_t c = 0; c < s->root.nfields; c++) {
    const ty_field_t *f = &s->root.fields[c];
    const col_sum_t *x = &sums[c];
    printf("%s\"%s\":{\"type\":\"%s\",\"nonnull\":%" PRIu64, c ? "," : "", f->name,
           ty_kind_name(f->type->kind), x->nonnull);
    switch (f->type->kind) {
      case TY_FLOAT:
      case TY_DOUBLE: printf(",\"fsum\":%.17g", x->fsum); break;
      case TY_DECIMAL: {
        char buf[64];
        ty_decimal_format(x->dsum, 0, buf, sizeof buf);
        printf(",\"dsum\":%s", buf);
        break;
      }
      case TY_STRING:
      case TY_BINARY:
      case TY_UUID:
      case TY_FIXED: printf(",\"bytes\":%" PRIu64, x->bytes); break;
      default: printf(",\"isum\":%" PRId64, (int64_t)x->isum); break;
    }
    printf("}");
  }
  printf("}");
}

/* ---- the dataset ------------------------------------------------------------------------ */

static const char *const CATEGORIES[] = {
    "apparel", "auto",     "baby",     "beauty",  "books",    "camera",  "crafts",   "digital",
    "fitness", "food",     "furnish",  "garden",  "grocery",  "health",  "hardware", "jewelry",
    "kitchen", "lighting", "luggage",  "media",   "music",    "office",  "outdoor",  "party",
    "pets",    "pharmacy", "plumbing", "shoes",   "software", "sports",  "toys",     "travel",
    "video",   "watches",  "wellness", "wine",    "tools",    "tickets", "storage",  "seasonal"};
#define NCATEGORIES (sizeof CATEGORIES / sizeof CATEGORIES[0])

static const char *const WORDS[] = {
    "order",   "shipped", "customer", "returned", "express", "standard", "gift",    "wrapped",
    "large",   "small",   "blue",     "red",      "green",   "black",    "white",   "premium",
    "basic",   "bundle",  "pack",     "of",       "with",    "and",      "for",     "the",
    "new",     "used",    "refurb",   "limited",  "edition", "classic",  "modern",  "steel",
    "cotton",  "wooden",  "glass",    "leather",  "plastic", "organic",  "fresh",   "frozen",
    "deluxe",  "compact", "portable", "wireless", "digital", "manual",   "indoor",  "outdoor",
    "kids",    "adult",   "unisex",   "summer",   "winter",  "spring",   "autumn",  "sale",
    "clearance", "backorder", "pickup", "delivery", "priority", "warehouse", "north", "south"};
#define NWORDS (sizeof WORDS / sizeof WORDS[0])

/* A 20..80 character description of random words and an occasional number. */
static size_t make_description(ty_gen_t *g, char *buf) {
  size_t target = 20 + (size_t)(ty_gen_next(g) % 61), len = 0;
  while (len < target) {
    if (len) buf[len++] = ' ';
    uint64_t r = ty_gen_next(g);
    if (r % 8 == 0)
      len += (size_t)sprintf(buf + len, "#%u", (unsigned)((r >> 8) % 100000));
    else {
      const char *w = WORDS[(r >> 8) % NWORDS];
      size_t wl = strlen(w);
      memcpy(buf + len, w, wl);
      len += wl;
    }
  }
  return target;
}

/* Replaces a string column's values, keeping which rows are null. */
static void refill_strings(ty_gen_t *g, ty_vec_t *v, bool category) {
  uint32_t n = v->len;
  uint8_t valid[TY_BATCH_ROWS];
  for (uint32_t i = 0; i < n; i++) valid[i] = ty_vec_is_valid(v, i);
  ty_vec_reset(v);
  char buf[128];
  for (uint32_t i = 0; i < n; i++) {
    if (!valid[i]) {
      ty_vec_append_null(v);
    } else if (category) {
      /* Skewed toward the first names, as real category columns are. */
      uint64_t r = ty_gen_next(g);
      uint64_t a = r % NCATEGORIES, b2 = (r >> 20) % NCATEGORIES;
      const char *c = CATEGORIES[a < b2 ? a : b2];
      ty_vec_append_bytes(v, c, strlen(c));
    } else {
      size_t len = make_description(g, buf);
      ty_vec_append_bytes(v, buf, len);
    }
  }
}

typedef struct dataset {
  fl_arena_t *arena;
  ty_schema_t *schema;
  ty_gen_t *gen;
  int cat_col, desc_col;
} dataset_t;

static int dataset_open(dataset_t *d, const bench_opts_t *o, fl_err_t *err) {
  memset(d, 0, sizeof *d);
  d->arena = fl_arena_new(0);
  int rc = ty_schema_parse(d->arena, BENCH_SCHEMA, &d->schema, err);
  if (rc) return rc;
  ty_gen_opts_t go = {.seed = o->seed, .null_fraction = o->null_fraction, .edge_fraction = 0,
                      .max_string = 8, .sequence_column = "id"};
  /* edge_fraction 0: the edge values (NaN, year 0001) are for format tests, not for timing. */
  d->gen = ty_gen_new(&go);
  d->cat_col = ty_schema_find_name(d->schema, "category");
  d->desc_col = ty_schema_find_name(d->schema, "description");
  return FL_OK;
}

/* Fills b (reset first) with the next n rows of the dataset. */
static void dataset_fill(dataset_t *d, ty_batch_t *b, uint32_t n) {
  ty_batch_reset(b);
  ty_gen_fill(d->gen, b, n);
  refill_strings(d->gen, b->cols[d->cat_col], true);
  refill_strings(d->gen, b->cols[d->desc_col], false);
  ty_batch_seal(b);
}

static void dataset_close(dataset_t *d) {
  ty_gen_free(d->gen);
  fl_arena_free(d->arena);
}

/* ---- phases ----------------------------------------------------------------------------- */

static void print_result(const char *phase, uint64_t rows, double secs, uint64_t bytes_in,
                         uint64_t bytes_out, long loaded_rss_kb) {
  printf("{\"phase\":\"%s\",\"rows\":%" PRIu64 ",\"seconds\":%.6f,\"cpu_seconds\":%.6f"
         ",\"bytes_in\":%" PRIu64 ",\"bytes_out\":%" PRIu64
         ",\"peak_rss_kb\":%ld,\"loaded_rss_kb\":%ld",
         phase, rows, secs, g_cpu_elapsed, bytes_in, bytes_out, peak_rss_kb(), loaded_rss_kb);
}

static void write_opts_from(const bench_opts_t *o, fmt_write_opts_t *wo) {
  memset(wo, 0, sizeof *wo);
  wo->compression = o->compression;
  wo->compression_level = (int)o->compression_level;
  wo->row_group_rows = o->row_group_rows;
}

/* Writes every batch to path; the only part of `write` that is timed. */
static int write_batches(const char *path, const ty_schema_t *s, ty_batch_t **batches, size_t nb,
                         const fmt_write_opts_t *wo, fl_err_t *err) {
  fmt_writer_t *w;
  int rc = fmt_open_writer(io_local_fs(), path, s, wo, &w, err);
  if (rc) return rc;
  for (size_t i = 0; i < nb; i++) {
    rc = w->write(w, batches[i], err);
    if (rc) {
      w->abort(w);
      return rc;
    }
  }
  return w->close(w, err);
}

static int cmd_generate(const bench_opts_t *o) {
  if (!o->out || !o->rows) {
    usage();
    return 2;
  }
  fl_err_t err;
  fl_err_clear(&err);
  dataset_t d;
  int rc = dataset_open(&d, o, &err);
  if (rc) return fail("schema", rc, &err);
  fmt_write_opts_t wo;
  write_opts_from(o, &wo);
  int64_t t0 = timer_start();
  ty_batch_t *b = ty_batch_new(d.schema, TY_BATCH_ROWS);
  fmt_writer_t *w = NULL;
  rc = fmt_open_writer(io_local_fs(), o->out, d.schema, &wo, &w, &err);
  for (uint64_t done = 0; !rc && done < o->rows;) {
    uint32_t n = o->rows - done < TY_BATCH_ROWS ? (uint32_t)(o->rows - done) : TY_BATCH_ROWS;
    dataset_fill(&d, b, n);
    rc = w->write(w, b, &err);
    if (rc) w->abort(w);
    done += n;
  }
  if (!rc) rc = w->close(w, &err);
  ty_batch_free(b);
  int status = 0;
  if (rc) {
    status = fail(o->out, rc, &err);
  } else {
    print_result("generate", o->rows, seconds_since(t0), 0, file_bytes(o->out), -1);
    printf("}\n");
  }
  dataset_close(&d);
  return status;
}

/* Copies the live rows of src into a new batch of the same schema. */
static ty_batch_t *copy_batch(const ty_batch_t *src) {
  uint32_t n = ty_batch_live(src);
  ty_batch_t *b = ty_batch_new(src->schema, n ? n : 1);
  for (uint32_t c = 0; c < src->ncols; c++)
    for (uint32_t k = 0; k < n; k++) ty_vec_append_from(b->cols[c], src->cols[c], src->sel ? src->sel[k] : k);
  ty_batch_seal(b);
  return b;
}

static int cmd_write(const bench_opts_t *o) {
  if (!o->out || (!o->in == !o->generate_rows)) {
    usage();
    return 2;
  }
  fl_err_t err;
  fl_err_clear(&err);
  ty_batch_t **batches = NULL;
  size_t nb = 0, cap = 0;
  uint64_t rows = 0;
  dataset_t d = {0};
  fmt_reader_t *r = NULL;
  const ty_schema_t *schema;
  int rc, status = 1;
  uint64_t bytes_in = 0;

  /* Load the whole table first; none of this is timed. */
  if (o->generate_rows) {
    rc = dataset_open(&d, o, &err);
    if (rc) return fail("schema", rc, &err);
    schema = d.schema;
    for (uint64_t done = 0; done < o->generate_rows;) {
      uint32_t n = o->generate_rows - done < TY_BATCH_ROWS ? (uint32_t)(o->generate_rows - done)
                                                            : TY_BATCH_ROWS;
      if (nb == cap) batches = fl_realloc(batches, (cap = cap ? cap * 2 : 1024) * sizeof *batches);
      batches[nb] = ty_batch_new(schema, n);
      dataset_fill(&d, batches[nb++], n);
      done += n;
    }
    rows = o->generate_rows;
  } else {
    /* The reader stays open until the end: the copies point at its schema. */
    rc = fmt_open_reader(io_local_fs(), o->in, NULL, &r, &err);
    if (rc) return fail(o->in, rc, &err);
    schema = r->schema;
    bytes_in = file_bytes(o->in);
    for (;;) {
      ty_batch_t *b;
      rc = r->next(r, &b, &err);
      if (rc) {
        status = fail(o->in, rc, &err);
        goto out;
      }
      if (!b) break;
      if (!ty_batch_live(b)) continue;
      if (nb == cap) batches = fl_realloc(batches, (cap = cap ? cap * 2 : 1024) * sizeof *batches);
      batches[nb++] = copy_batch(b);
      rows += ty_batch_live(b);
    }
  }

  long loaded = current_rss_kb();
  fmt_write_opts_t wo;
  write_opts_from(o, &wo);
  int64_t t0 = timer_start();
  rc = write_batches(o->out, schema, batches, nb, &wo, &err);
  double secs = seconds_since(t0);
  if (rc) {
    status = fail(o->out, rc, &err);
    goto out;
  }
  print_result("write", rows, secs, bytes_in, file_bytes(o->out), loaded);
  printf(",\"compression\":\"%s\"}\n", o->compression ? o->compression : "default");
  status = 0;
out:
  for (size_t i = 0; i < nb; i++) ty_batch_free(batches[i]);
  fl_free(batches);
  if (r) r->close(r);
  if (o->generate_rows) dataset_close(&d);
  return status;
}

/* Reads every batch of o->in (schema given unless --infer for text formats). */
static int read_all(const char *phase, const bench_opts_t *o, const ty_schema_t *schema) {
  fl_err_t err;
  fl_err_clear(&err);
  fmt_read_opts_t ro = {0};
  ro.schema = schema;
  long loaded = current_rss_kb();
  int64_t t0 = timer_start();
  fmt_reader_t *r;
  int rc = fmt_open_reader(io_local_fs(), o->in, &ro, &r, &err);
  if (rc) return fail(o->in, rc, &err);
  col_sum_t *sums = fl_calloc(r->schema->root.nfields ? r->schema->root.nfields : 1, sizeof *sums);
  uint64_t rows = 0;
  uint64_t batches = 0;
  for (;;) {
    ty_batch_t *b;
    rc = r->next(r, &b, &err);
    if (rc) break;
    if (!b) break;
    for (uint32_t c = 0; c < b->ncols; c++) checksum_vec(&sums[c], b->cols[c], b);
    rows += ty_batch_live(b);
    batches++;
  }
  double secs = seconds_since(t0);
  int status = 0;
  if (rc) {
    status = fail(o->in, rc, &err);
  } else {
    print_result(phase, rows, secs, file_bytes(o->in), 0, loaded);
    printf(",\"batches\":%" PRIu64, batches);
    print_checksum(r->schema, sums);
    printf("}\n");
  }
  fl_free(sums);
  r->close(r);
  return status;
}

static int cmd_read(const bench_opts_t *o) {
  if (!o->in) {
    usage();
    return 2;
  }
  return read_all("read", o, NULL);
}

static int with_bench_schema(const bench_opts_t *o, int (*fn)(const bench_opts_t *, const ty_schema_t *)) {
  if (o->infer) return fn(o, NULL);
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  fl_err_clear(&err);
  ty_schema_t *s;
  int rc = ty_schema_parse(a, BENCH_SCHEMA, &s, &err);
  int status = rc ? fail("schema", rc, &err) : fn(o, s);
  fl_arena_free(a);
  return status;
}

static int decode_with(const bench_opts_t *o, const ty_schema_t *s) {
  return read_all(o->infer ? "decode_infer" : "decode", o, s);
}

static int convert_with(const bench_opts_t *o, const ty_schema_t *s) {
  fl_err_t err;
  fl_err_clear(&err);
  fmt_read_opts_t ro = {0};
  ro.schema = s;
  fmt_write_opts_t wo;
  write_opts_from(o, &wo);
  io_fs_t *fs = io_local_fs();
  long loaded = current_rss_kb();
  int64_t t0 = timer_start();
  fmt_reader_t *r = NULL;
  fmt_writer_t *w = NULL;
  uint64_t rows = 0;
  int rc = fmt_open_reader(fs, o->in, &ro, &r, &err);
  if (rc) return fail(o->in, rc, &err);
  rc = fmt_open_writer(fs, o->out, r->schema, &wo, &w, &err);
  if (rc) {
    r->close(r);
    return fail(o->out, rc, &err);
  }
  for (;;) {
    ty_batch_t *b;
    rc = r->next(r, &b, &err);
    if (rc || !b) break;
    rc = w->write(w, b, &err);
    if (rc) break;
    rows += ty_batch_live(b);
  }
  if (rc)
    w->abort(w);
  else
    rc = w->close(w, &err);
  double secs = seconds_since(t0);
  int status = 0;
  if (rc) {
    status = fail(o->in, rc, &err);
  } else {
    print_result(o->infer ? "convert_infer" : "convert", rows, secs, file_bytes(o->in),
                 file_bytes(o->out), loaded);
    printf(",\"compression\":\"%s\"}\n", o->compression ? o->compression : "default");
  }
  r->close(r);
  return status;
}

static int cmd_decode(const bench_opts_t *o) {
  if (!o->in) {
    usage();
    return 2;
  }
  return with_bench_schema(o, decode_with);
}

static int cmd_convert(const bench_opts_t *o) {
  if (!o->in || !o->out) {
    usage();
    return 2;
  }
  return with_bench_schema(o, convert_with);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage();
    return 2;
  }
  bench_opts_t o;
  if (parse_opts(argc, argv, &o)) {
    usage();
    return 2;
  }
  static const struct {
    const char *name;
    int (*run)(const bench_opts_t *);
  } cmds[] = {{"generate", cmd_generate}, {"write", cmd_write},   {"read", cmd_read},
              {"convert", cmd_convert},   {"decode", cmd_decode}};
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
    if (strcmp(argv[1], cmds[i].name) == 0) {
      int rc = cmds[i].run(&o);
      fflush(stdout);
      return rc;
    }
  usage();
  return 2;
}
