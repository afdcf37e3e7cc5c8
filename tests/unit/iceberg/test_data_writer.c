/*
 * test_data_writer.c - the Iceberg data-file writer: unpartitioned and
 * partitioned (identity, day, bucket, a nested struct source) writes,
 * partition values and paths, column metrics, file rolling, the fanout
 * bound, abort, position and equality delete files. Expected partition
 * values, paths and bounds are computed here from the input rows (calendar
 * math, murmur3, byte-wise minima, code-point truncation), not by the
 * writer's helpers; rows are read back with the Parquet reader.
 *
 * The writer needs the transform, spec, single-value and schema-JSON
 * modules; until they are in the tree this file only records a skip.
 */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/time.h"
#include "format/parquet/pq_reader.h"
#include "iceberg/ice_data_writer.h"
#include "io/fs.h"

#define DAY_US 86400000000LL

static const char *SCHEMA =
    "id long not null, name string, ts timestamp, price double, cat string, "
    "s struct<k: string, v: int>";
/* ids: id 1, name 2, ts 3, price 4, cat 5, s 6, s.k 7, s.v 8 */

typedef struct row {
  int64_t id;
  char name[64]; /* "" = null */
  int64_t ts;
  double price;
  bool price_null;
  const char *cat;
  bool s_null;
  char k[8];
  int32_t v;
} row_t;

static const char *CATS[] = {"a", "b", "c/d", "c d"};

static void make_row(uint32_t i, row_t *r) {
  memset(r, 0, sizeof *r);
  r->id = (int64_t)((i * 7919u) % 100003u) - 50000;
  if (i % 10 != 3) {
    /* Long names (over 16 code points, some with two-byte characters). */
    if (i % 4 == 0)
      snprintf(r->name, sizeof r->name, "n%05u-\xc3\xa9t\xc3\xa9-long-enough-to-truncate", i % 977);
    else
      snprintf(r->name, sizeof r->name, "m%04u", i % 1013);
  }
  r->ts = -2 * DAY_US + (int64_t)i * 5 * 3600000000LL + 17;
  r->price_null = i % 17 == 5;
  r->price = i % 13 == 4 ? NAN : (double)i * 0.5 - 100;
  r->cat = CATS[i % 4];
  r->s_null = i % 11 == 7;
  snprintf(r->k, sizeof r->k, "k%u", i % 3);
  r->v = (int32_t)i;
}

static void append_row(ty_batch_t *b, const row_t *r) {
  ty_vec_append_i64(b->cols[0], r->id);
  if (r->name[0])
    ty_vec_append_bytes(b->cols[1], r->name, strlen(r->name));
  else
    ty_vec_append_null(b->cols[1]);
  ty_vec_append_i64(b->cols[2], r->ts);
  if (r->price_null)
    ty_vec_append_null(b->cols[3]);
  else
    ty_vec_append_f64(b->cols[3], r->price);
  ty_vec_append_bytes(b->cols[4], r->cat, strlen(r->cat));
  ty_vec_t *s = b->cols[5];
  if (r->s_null) {
    ty_vec_append_null(s);
  } else {
    ty_vec_append_bytes(s->children[0], r->k, strlen(r->k));
    ty_vec_append_i32(s->children[1], r->v);
    ty_vec_append_struct(s);
  }
}

/* Writes rows [from, to) in batches of `per` rows. */
static int write_rows(ice_dw_t *w, const ty_schema_t *schema, uint32_t from, uint32_t to,
                      uint32_t per, fl_err_t *err) {
  ty_batch_t *b = ty_batch_new(schema, per);
  int rc = FL_OK;
  for (uint32_t i = from; i < to && !rc;) {
    ty_batch_reset(b);
    for (uint32_t k = 0; k < per && i < to; k++, i++) {
      row_t r;
      make_row(i, &r);
      append_row(b, &r);
    }
    ty_batch_seal(b);
    rc = ice_dw_write(w, b, err);
  }
  ty_batch_free(b);
  return rc;
}

static const char *scratch(const char *name) {
  static char buf[4][512];
  static int n;
  char *p = buf[n++ & 3];
  snprintf(p, 512, "%s/%s", t_tmpdir(), name);
  return p;
}

static int64_t file_bytes(const char *path) {
  struct stat st;
  if (strncmp(path, "file://", 7) == 0) path += 7;
  return stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

static bool file_exists(const char *path) { return file_bytes(path) >= 0; }

/* Files (not folders) under dir, recursively. */
static size_t count_files(const char *dir) {
  io_fs_t *fs = io_local_fs();
  io_entry_t *e;
  size_t n;
  fl_err_t err;
  if (fs->list(fs, dir, &e, &n, &err)) return 0;
  size_t c = 0;
  for (size_t i = 0; i < n; i++) c += !e[i].is_dir;
  io_entries_free(e, n);
  return c;
}

static int64_t le64(const ice_bytes_t *b) {
  if (!b->p || b->n != 8) return INT64_MIN;
  return (int64_t)fl_load_le64(b->p);
}

static bool bytes_eq(const ice_bytes_t *b, const char *s, size_t n) {
  return b->p && b->n == n && memcmp(b->p, s, n) == 0;
}

/* The first max code points of s (UTF-8). */
static size_t utf8_prefix(const char *s, size_t max) {
  size_t pos = 0, cp = 0, n = strlen(s);
  while (pos < n && cp < max) {
    pos++;
    while (pos < n && ((unsigned char)s[pos] & 0xC0) == 0x80) pos++;
    cp++;
  }
  return pos;
}

static const ice_col_metrics_t *col(const ice_data_file_t *f, int32_t id) {
  for (uint32_t i = 0; i < f->ncols; i++)
    if (f->cols[i].field_id == id) return &f->cols[i];
  return NULL;
}

static int32_t bucket_long(int64_t v, int n) {
  uint8_t b[8];
  fl_store_le64(b, (uint64_t)v);
  return (int32_t)((fl_murmur3_32(b, 8, 0) & 0x7FFFFFFF) % (uint32_t)n);
}

static ice_spec_t *make_spec(fl_arena_t *a) {
  ice_spec_t *s = fl_arena_zalloc(a, sizeof *s);
  s->spec_id = 3;
  s->nfields = 3;
  s->fields = fl_arena_zalloc(a, 3 * sizeof *s->fields);
  s->fields[0] = (ice_partition_field_t){3, 1000, "ts_day", {ICE_T_DAY, 0, NULL}};
  s->fields[1] = (ice_partition_field_t){1, 1001, "id_bucket_4", {ICE_T_BUCKET, 4, NULL}};
  s->fields[2] = (ice_partition_field_t){5, 1002, "cat", {ICE_T_IDENTITY, 0, NULL}};
  return s;
}

static void cat_escaped(const char *c, char *out) {
  if (strcmp(c, "c/d") == 0)
    strcpy(out, "c%2Fd");
  else if (strcmp(c, "c d") == 0)
    strcpy(out, "c+d");
  else
    strcpy(out, c);
}

/* Reads a data file back; calls fn on every row's (id, ts, cat). */
typedef struct readback {
  int64_t rows;
  int64_t id_sum;
  bool ok;
  int32_t day, bucket;
  const char *cat;
} readback_t;

static int read_back(const char *path, readback_t *rb, bool check_part, fl_err_t *err) {
  pq_reader_t *r;
  int rc = pq_reader_open(io_local_fs(), path, NULL, &r, err);
  if (rc) return rc;
  rb->ok = true;
  ty_batch_t *b;
  while (!(rc = pq_reader_next(r, &b, err)) && b) {
    for (uint32_t i = 0; i < b->nrows; i++) {
      int64_t id = TY_VEC_DATA(b->cols[0], int64_t)[i];
      int64_t ts = TY_VEC_DATA(b->cols[2], int64_t)[i];
      size_t n;
      const uint8_t *c = ty_vec_get_bytes(b->cols[4], i, &n);
      rb->rows++;
      rb->id_sum += id;
      if (check_part) {
        if ((int32_t)fl_floordiv(ts, DAY_US) != rb->day) rb->ok = false;
        if (bucket_long(id, 4) != rb->bucket) rb->ok = false;
        if (n != strlen(rb->cat) || memcmp(c, rb->cat, n) != 0) rb->ok = false;
      }
    }
  }
  pq_reader_close(r);
  return rc;
}

static const char *footer_value(const char *path, const char *key, fl_arena_t *a) {
  pq_reader_t *r;
  fl_err_t err;
  if (pq_reader_open(io_local_fs(), path, NULL, &r, &err)) return NULL;
  const pq_file_meta_t *m = pq_reader_file_meta(r);
  const char *v = NULL;
  for (uint32_t i = 0; i < m->nkey_value; i++)
    if (strcmp(m->key_value_metadata[i].key, key) == 0 && m->key_value_metadata[i].value)
      v = fl_arena_strdup(a, m->key_value_metadata[i].value);
  pq_reader_close(r);
  return v;
}

TEST(unpartitioned_metrics) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *schema;
  CHECK_OK(ty_schema_parse(a, SCHEMA, &schema, &err), &err);
  const char *loc = scratch("unpart");
  char uri[600];
  snprintf(uri, sizeof uri, "file://%s/", loc);
  ice_dw_opts_t o = {.task_id = 7, .sort_order_id = 0};
  ice_dw_t *w;
  CHECK_OK(ice_dw_open(io_local_fs(), uri, schema, &o, &w, &err), &err);
  const uint32_t N = 3000;
  CHECK_OK(write_rows(w, schema, 0, N, 1000, &err), &err);
  ice_data_file_t *files;
  size_t n;
  CHECK_OK(ice_dw_close(w, a, &files, &n, &err), &err);
  CHECK_EQ(n, 1);
  ice_data_file_t *f = &files[0];
  /* file:///.../unpart/data/00000-7-<uuid>-00001.parquet */
  char prefix[700];
  snprintf(prefix, sizeof prefix, "file://%s/data/00000-7-", loc);
  CHECK(strncmp(f->path, prefix, strlen(prefix)) == 0);
  const char *tail = f->path + strlen(prefix);
  CHECK_EQ(strlen(tail), 36 + strlen("-00001.parquet"));
  CHECK(strcmp(tail + 36, "-00001.parquet") == 0);
  CHECK(tail[8] == '-' && tail[13] == '-' && tail[14] == '4');
  CHECK_EQ(f->content, ICE_CONTENT_DATA);
  CHECK_STR(f->format, "PARQUET");
  CHECK_EQ(f->spec_id, 0);
  CHECK_EQ(f->npartition, 0);
  CHECK_EQ(f->record_count, N);
  CHECK_EQ(f->file_size, file_bytes(f->path));
  CHECK_EQ(f->sort_order_id, 0);
  CHECK(f->nsplit_offsets >= 1);
  CHECK_EQ(f->split_offsets[0], 4);

  /* Expected metrics from the rows. */
  int64_t id_min = INT64_MAX, id_max = INT64_MIN, ts_min = INT64_MAX, ts_max = INT64_MIN;
  int64_t name_nulls = 0, price_nulls = 0, price_nans = 0, s_nulls = 0;
  double p_min = INFINITY, p_max = -INFINITY;
  char name_min[64] = "", name_max[64] = "";
  bool have_name = false;
  for (uint32_t i = 0; i < N; i++) {
    row_t r;
    make_row(i, &r);
    if (r.id < id_min) id_min = r.id;
    if (r.id > id_max) id_max = r.id;
    if (r.ts < ts_min) ts_min = r.ts;
    if (r.ts > ts_max) ts_max = r.ts;
    if (!r.name[0]) {
      name_nulls++;
    } else {
      if (!have_name || strcmp(r.name, name_min) < 0) strcpy(name_min, r.name);
      if (!have_name || strcmp(r.name, name_max) > 0) strcpy(name_max, r.name);
      have_name = true;
    }
    if (r.price_null)
      price_nulls++;
    else if (isnan(r.price))
      price_nans++;
    else {
      if (r.price < p_min) p_min = r.price;
      if (r.price > p_max) p_max = r.price;
    }
    s_nulls += r.s_null;
  }
  CHECK_EQ(f->ncols, 7);
  for (uint32_t i = 1; i < f->ncols; i++) CHECK(f->cols[i - 1].field_id < f->cols[i].field_id);
  const ice_col_metrics_t *c = col(f, 1);
  CHECK(c);
  CHECK_EQ(c->value_count, N);
  CHECK_EQ(c->null_count, 0);
  CHECK_EQ(c->nan_count, -1);
  CHECK(c->column_size > 0);
  CHECK_EQ(le64(&c->lower), id_min);
  CHECK_EQ(le64(&c->upper), id_max);
  c = col(f, 3);
  CHECK_EQ(le64(&c->lower), ts_min);
  CHECK_EQ(le64(&c->upper), ts_max);
  /* Strings: truncated to 16 code points; the upper bound's last one + 1. */
  c = col(f, 2);
  CHECK_EQ(c->null_count, name_nulls);
  CHECK_EQ(c->value_count, N);
  size_t lp = utf8_prefix(name_min, 16), up = utf8_prefix(name_max, 16);
  CHECK(bytes_eq(&c->lower, name_min, lp));
  char want_up[64];
  memcpy(want_up, name_max, up);
  if (up < strlen(name_max)) want_up[up - 1]++; /* ASCII last code point here */
  CHECK(bytes_eq(&c->upper, want_up, up));
  CHECK(up == strlen(name_max) || memcmp(c->upper.p, name_max, up) > 0);
  c = col(f, 4);
  CHECK_EQ(c->null_count, price_nulls);
  CHECK_EQ(c->nan_count, price_nans);
  CHECK(price_nans > 0);
  double lo, hi;
  CHECK(c->lower.n == 8 && c->upper.n == 8);
  memcpy(&lo, c->lower.p, 8);
  memcpy(&hi, c->upper.p, 8);
  CHECK(lo == p_min && hi == p_max);
  c = col(f, 7); /* s.k: nulls where the struct is null */
  CHECK_EQ(c->null_count, s_nulls);
  CHECK(bytes_eq(&c->lower, "k0", 2) && bytes_eq(&c->upper, "k2", 2));
  c = col(f, 8);
  CHECK_EQ(c->null_count, s_nulls);
  CHECK(!col(f, 6)); /* structs have no metrics of their own */

  /* The rows and the footer. */
  readback_t rb = {0};
  CHECK_OK(read_back(f->path, &rb, false, &err), &err);
  CHECK_EQ(rb.rows, N);
  int64_t sum = 0;
  for (uint32_t i = 0; i < N; i++) {
    row_t r;
    make_row(i, &r);
    sum += r.id;
  }
  CHECK_EQ(rb.id_sum, sum);
  const char *js = footer_value(f->path, "iceberg.schema", a);
  CHECK(js && strstr(js, "\"fields\"") && strstr(js, "\"price\""));
  ice_dw_free(w);
  fl_arena_free(a);
}

TEST(partitioned_identity_day_bucket) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *schema;
  CHECK_OK(ty_schema_parse(a, SCHEMA, &schema, &err), &err);
  const char *loc = scratch("part");
  ice_spec_t *spec = make_spec(a);
  ice_dw_opts_t o = {.spec = spec, .task_id = 1};
  ice_dw_t *w;
  CHECK_OK(ice_dw_open(io_local_fs(), loc, schema, &o, &w, &err), &err);
  const uint32_t N = 2000;
  CHECK_OK(write_rows(w, schema, 0, N, 333, &err), &err);
  ice_data_file_t *files;
  size_t n;
  CHECK_OK(ice_dw_close(w, a, &files, &n, &err), &err);

  /* Distinct tuples of the input. */
  typedef struct tup {
    int32_t day, bucket;
    const char *cat;
    int64_t rows, seen;
  } tup_t;
  tup_t *tups = fl_calloc(N, sizeof *tups);
  size_t nt = 0;
  for (uint32_t i = 0; i < N; i++) {
    row_t r;
    make_row(i, &r);
    int32_t d = (int32_t)fl_floordiv(r.ts, DAY_US), bk = bucket_long(r.id, 4);
    size_t j = 0;
    while (j < nt && !(tups[j].day == d && tups[j].bucket == bk && strcmp(tups[j].cat, r.cat) == 0))
      j++;
    if (j == nt) tups[nt++] = (tup_t){d, bk, r.cat, 0, 0};
    tups[j].rows++;
  }
  /* More partitions than open files allowed: some get more than one file. */
  CHECK(nt > 64);
  CHECK(n >= nt);
  int64_t total = 0;
  bool all_ok = true;
  for (size_t i = 0; i < n; i++) {
    ice_data_file_t *f = &files[i];
    CHECK_EQ(f->spec_id, 3);
    CHECK_EQ(f->npartition, 3);
    CHECK(!f->partition[0].is_null && !f->partition[1].is_null && !f->partition[2].is_null);
    int32_t d = f->partition[0].u.i32, bk = f->partition[1].u.i32;
    char cat[16];
    snprintf(cat, sizeof cat, "%.*s", (int)f->partition[2].u.bytes.n,
             (const char *)f->partition[2].u.bytes.p);
    size_t j = 0;
    while (j < nt && !(tups[j].day == d && tups[j].bucket == bk && strcmp(tups[j].cat, cat) == 0))
      j++;
    CHECK(j < nt);
    tups[j].seen += f->record_count;
    /* The folder: <loc>/data/ts_day=YYYY-MM-DD/id_bucket_4=N/cat=<escaped>/ */
    int64_t y;
    unsigned mo, da;
    fl_civil_from_days(d, &y, &mo, &da);
    char esc[16], want[700];
    cat_escaped(cat, esc);
    snprintf(want, sizeof want, "%s/data/ts_day=%04lld-%02u-%02u/id_bucket_4=%d/cat=%s/00000-1-", loc,
             (long long)y, mo, da, bk, esc);
    if (strncmp(f->path, want, strlen(want)) != 0) {
      fprintf(stderr, "  path %s\n  want %s...\n", f->path, want);
      all_ok = false;
    }
    CHECK(file_exists(f->path));
    readback_t rb = {.day = d, .bucket = bk, .cat = cat};
    CHECK_OK(read_back(f->path, &rb, true, &err), &err);
    CHECK(rb.ok);
    CHECK_EQ(rb.rows, f->record_count);
    total += rb.rows;
    /* Bounds of the partition sources lie inside the partition. */
    const ice_col_metrics_t *c = col(f, 3);
    CHECK(fl_floordiv(le64(&c->lower), DAY_US) == d && fl_floordiv(le64(&c->upper), DAY_US) == d);
    c = col(f, 5);
    CHECK(bytes_eq(&c->lower, cat, strlen(cat)) && bytes_eq(&c->upper, cat, strlen(cat)));
  }
  CHECK(all_ok);
  CHECK_EQ(total, N);
  for (size_t j = 0; j < nt; j++) CHECK_EQ(tups[j].seen, tups[j].rows);
  /* Partition values were copied into a: the writer may go. */
  ice_dw_free(w);
  CHECK(files[0].partition[2].u.bytes.n >= 1);
  fl_free(tups);
  fl_arena_free(a);
}

TEST(nested_source_and_void) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *schema;
  CHECK_OK(ty_schema_parse(a, SCHEMA, &schema, &err), &err);
  ice_spec_t spec = {.spec_id = 1, .nfields = 2};
  ice_partition_field_t pf[2] = {
      {7, 1000, "s_k", {ICE_T_IDENTITY, 0, NULL}},
      {4, 1001, "price_null", {ICE_T_VOID, 0, NULL}},
  };
  spec.fields = pf;
  ice_dw_opts_t o = {.spec = &spec};
  ice_dw_t *w;
  const char *loc = scratch("nested");
  CHECK_OK(ice_dw_open(io_local_fs(), loc, schema, &o, &w, &err), &err);
  const uint32_t N = 500;
  CHECK_OK(write_rows(w, schema, 0, N, 100, &err), &err);
  ice_data_file_t *files;
  size_t n;
  CHECK_OK(ice_dw_close(w, a, &files, &n, &err), &err);
  /* k0, k1, k2 and null (rows whose struct is null). */
  CHECK_EQ(n, 4);
  int64_t nulls = 0, total = 0;
  for (uint32_t i = 0; i < N; i++) {
    row_t r;
    make_row(i, &r);
    nulls += r.s_null;
  }
  bool seen_null = false;
  for (size_t i = 0; i < n; i++) {
    CHECK(files[i].partition[1].is_null);
    total += files[i].record_count;
    if (files[i].partition[0].is_null) {
      seen_null = true;
      CHECK_EQ(files[i].record_count, nulls);
      CHECK(strstr(files[i].path, "/data/s_k=null/price_null=null/"));
    } else {
      char want[64];
      snprintf(want, sizeof want, "/data/s_k=%.*s/price_null=null/",
               (int)files[i].partition[0].u.bytes.n, (const char *)files[i].partition[0].u.bytes.p);
      CHECK(strstr(files[i].path, want));
    }
  }
  CHECK(seen_null);
  CHECK_EQ(total, N);
  ice_dw_free(w);

  /* A source inside a list is refused. */
  ty_schema_t *ls;
  CHECK_OK(ty_schema_parse(a, "id long, tags list<string>", &ls, &err), &err);
  ice_partition_field_t bad = {3, 1000, "tag", {ICE_T_IDENTITY, 0, NULL}};
  ice_spec_t bs = {.spec_id = 1, .nfields = 1, .fields = &bad};
  o.spec = &bs;
  CHECK_ERR(ice_dw_open(io_local_fs(), loc, ls, &o, &w, &err), FL_EINVALID);
  fl_arena_free(a);
}

TEST(rolling_at_target_size) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *schema;
  CHECK_OK(ty_schema_parse(a, SCHEMA, &schema, &err), &err);
  ice_kv_t props[] = {
      {"write.target-file-size-bytes", "30000"},
      {"write.parquet.row-group-size-bytes", "8000"},
      {"write.parquet.compression-codec", "snappy"},
  };
  ice_dw_opts_t o = {.props = props, .nprops = 3};
  ice_dw_t *w;
  const char *loc = scratch("roll");
  CHECK_OK(ice_dw_open(io_local_fs(), loc, schema, &o, &w, &err), &err);
  const uint32_t N = 20000;
  CHECK_OK(write_rows(w, schema, 0, N, 200, &err), &err);
  ice_data_file_t *files;
  size_t n;
  CHECK_OK(ice_dw_close(w, a, &files, &n, &err), &err);
  CHECK(n >= 4);
  int64_t total = 0, sum = 0, want_sum = 0;
  for (size_t i = 0; i < n; i++) {
    char suffix[32];
    snprintf(suffix, sizeof suffix, "-%05zu.parquet", i + 1);
    CHECK(strcmp(files[i].path + strlen(files[i].path) - strlen(suffix), suffix) == 0);
    CHECK_EQ(files[i].file_size, file_bytes(files[i].path));
    /* No file grows far past the target (one batch at most). */
    CHECK(files[i].file_size < 30000 * 2);
    if (i + 1 < n) CHECK(files[i].file_size > 30000 / 8);
    CHECK(files[i].nsplit_offsets >= 2);
    readback_t rb = {0};
    CHECK_OK(read_back(files[i].path, &rb, false, &err), &err);
    CHECK_EQ(rb.rows, files[i].record_count);
    total += rb.rows;
    sum += rb.id_sum;
  }
  for (uint32_t i = 0; i < N; i++) {
    row_t r;
    make_row(i, &r);
    want_sum += r.id;
  }
  CHECK_EQ(total, N);
  CHECK_EQ(sum, want_sum);
  ice_dw_free(w);
  fl_arena_free(a);
}

TEST(fanout_bound) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *schema;
  CHECK_OK(ty_schema_parse(a, SCHEMA, &schema, &err), &err);
  ice_partition_field_t pf = {5, 1000, "cat", {ICE_T_IDENTITY, 0, NULL}};
  ice_spec_t spec = {.spec_id = 1, .nfields = 1, .fields = &pf};
  ice_dw_opts_t o = {.spec = &spec, .max_open_files = 2};
  ice_dw_t *w;
  CHECK_OK(ice_dw_open(io_local_fs(), scratch("fanout"), schema, &o, &w, &err), &err);
  ty_batch_t *b = ty_batch_new(schema, 64);
  uint32_t max_open = 0;
  for (uint32_t i = 0; i < 400; i += 10) {
    ty_batch_reset(b);
    for (uint32_t k = i; k < i + 10; k++) {
      row_t r;
      make_row(k, &r);
      append_row(b, &r);
    }
    ty_batch_seal(b);
    CHECK_OK(ice_dw_write(w, b, &err), &err);
    if (ice_dw_open_files(w) > max_open) max_open = ice_dw_open_files(w);
  }
  ty_batch_free(b);
  CHECK(max_open <= 2 && max_open >= 1);
  ice_data_file_t *files;
  size_t n;
  CHECK_OK(ice_dw_close(w, a, &files, &n, &err), &err);
  CHECK(n > 4); /* four partitions, files closed early */
  int64_t total = 0;
  for (size_t i = 0; i < n; i++) total += files[i].record_count;
  CHECK_EQ(total, 400);
  CHECK_EQ(ice_dw_open_files(w), 0);
  ice_dw_free(w);
  fl_arena_free(a);
}

TEST(abort_removes_files) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *schema;
  CHECK_OK(ty_schema_parse(a, SCHEMA, &schema, &err), &err);
  ice_dw_opts_t o = {.spec = make_spec(a)};
  ice_dw_t *w;
  const char *loc = scratch("abort1");
  char data[600];
  snprintf(data, sizeof data, "%s/data", loc);
  /* Abort after close (a failed commit). */
  CHECK_OK(ice_dw_open(io_local_fs(), loc, schema, &o, &w, &err), &err);
  CHECK_OK(write_rows(w, schema, 0, 300, 100, &err), &err);
  ice_data_file_t *files;
  size_t n;
  CHECK_OK(ice_dw_close(w, a, &files, &n, &err), &err);
  CHECK(n > 1);
  CHECK_EQ(count_files(data), n);
  ice_dw_abort(w);
  CHECK_EQ(count_files(data), 0);
  for (size_t i = 0; i < n; i++) CHECK(!file_exists(files[i].path));
  /* Abort with files open and some already rolled. */
  ice_kv_t props[] = {{"write.target-file-size-bytes", "2000"}};
  o.props = props;
  o.nprops = 1;
  loc = scratch("abort2");
  snprintf(data, sizeof data, "%s/data", loc);
  CHECK_OK(ice_dw_open(io_local_fs(), loc, schema, &o, &w, &err), &err);
  CHECK_OK(write_rows(w, schema, 0, 3000, 500, &err), &err);
  CHECK(ice_dw_open_files(w) > 0);
  ice_dw_abort(w);
  CHECK_EQ(count_files(data), 0);
  fl_arena_free(a);
}

TEST(metrics_modes) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *schema;
  CHECK_OK(ty_schema_parse(a, SCHEMA, &schema, &err), &err);
  ice_kv_t props[] = {
      {"write.metadata.metrics.default", "counts"},
      {"write.metadata.metrics.column.name", "full"},
      {"write.metadata.metrics.column.s.k", "truncate(1)"},
      {"write.metadata.metrics.column.price", "none"},
  };
  ice_dw_opts_t o = {.props = props, .nprops = 4};
  ice_dw_t *w;
  CHECK_OK(ice_dw_open(io_local_fs(), scratch("modes"), schema, &o, &w, &err), &err);
  CHECK_OK(write_rows(w, schema, 0, 100, 100, &err), &err);
  ice_data_file_t *files;
  size_t n;
  CHECK_OK(ice_dw_close(w, a, &files, &n, &err), &err);
  CHECK_EQ(n, 1);
  const ice_data_file_t *f = &files[0];
  const ice_col_metrics_t *c = col(f, 1);
  CHECK(c && c->value_count == 100 && !c->lower.p && !c->upper.p);
  CHECK(!col(f, 4));
  c = col(f, 2);
  char mx[64] = "";
  for (uint32_t i = 0; i < 100; i++) {
    row_t r;
    make_row(i, &r);
    if (strcmp(r.name, mx) > 0) strcpy(mx, r.name);
  }
  CHECK(bytes_eq(&c->upper, mx, strlen(mx)) && strlen(mx) > 16);
  c = col(f, 7);
  CHECK(bytes_eq(&c->lower, "k", 1) && bytes_eq(&c->upper, "l", 1));
  ice_dw_free(w);
  ice_kv_t bad[] = {{"write.metadata.metrics.default", "truncate(x)"}};
  o.props = bad;
  o.nprops = 1;
  CHECK_ERR(ice_dw_open(io_local_fs(), scratch("modes"), schema, &o, &w, &err), FL_EINVALID);
  ice_kv_t bad2[] = {{"write.target-file-size-bytes", "-5"}};
  o.props = bad2;
  CHECK_ERR(ice_dw_open(io_local_fs(), scratch("modes"), schema, &o, &w, &err), FL_EINVALID);
  fl_arena_free(a);
}

TEST(position_deletes) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *schema;
  CHECK_OK(ty_schema_parse(a, SCHEMA, &schema, &err), &err);
  ice_spec_t *spec = make_spec(a);
  ty_value_t tuple[3] = {
      {.kind = TY_DATE, .u.i32 = 19000},
      {.kind = TY_INT, .u.i32 = 2},
      {.kind = TY_STRING, .u.bytes = {(const uint8_t *)"a", 1}},
  };
  ice_dw_opts_t o = {.content = ICE_CONTENT_POSITION_DELETES, .spec = spec, .partition = tuple};
  ice_dw_t *w;
  const char *loc = scratch("posdel");
  CHECK_OK(ice_dw_open(io_local_fs(), loc, schema, &o, &w, &err), &err);
  const ty_schema_t *ds = ice_dw_schema(w);
  CHECK_EQ(ds->root.nfields, 2);
  CHECK_EQ(ds->root.fields[0].id, 2147483546);
  CHECK_EQ(ds->root.fields[1].id, 2147483545);
  const char *p1 = "file:///warehouse/db/t/data/00000-0-aaaaaaaa-00001.parquet";
  const char *p2 = "file:///warehouse/db/t/data/00000-0-bbbbbbbb-00002.parquet";
  /* Unsorted input, half through batches, half one by one. */
  ty_batch_t *b = ty_batch_new(ds, 16);
  for (int i = 0; i < 50; i++) {
    const char *p = i % 2 ? p1 : p2;
    ty_vec_append_bytes(b->cols[0], p, strlen(p));
    ty_vec_append_i64(b->cols[1], (i * 37) % 101);
  }
  ty_batch_seal(b);
  CHECK_OK(ice_dw_write(w, b, &err), &err);
  ty_batch_free(b);
  for (int i = 0; i < 50; i++)
    CHECK_OK(ice_dw_delete_position(w, i % 2 ? p2 : p1, 1000 - i, &err), &err);
  ice_data_file_t *files;
  size_t n;
  CHECK_OK(ice_dw_close(w, a, &files, &n, &err), &err);
  CHECK_EQ(n, 1);
  const ice_data_file_t *f = &files[0];
  CHECK_EQ(f->content, ICE_CONTENT_POSITION_DELETES);
  CHECK_EQ(f->record_count, 100);
  CHECK_EQ(f->sort_order_id, -1);
  CHECK(!f->referenced_data_file);
  CHECK(strstr(f->path, "/data/ts_day=2022-01-08/id_bucket_4=2/cat=a/00000-0-"));
  CHECK(strstr(f->path, "-00001-deletes.parquet"));
  CHECK_EQ(f->npartition, 3);
  CHECK_EQ(f->partition[0].u.i32, 19000);
  /* Full bounds of file_path (longer than 16 characters). */
  const ice_col_metrics_t *c = col(f, 2147483546);
  CHECK(bytes_eq(&c->lower, p1, strlen(p1)) && bytes_eq(&c->upper, p2, strlen(p2)));
  /* Sorted by path, then pos. */
  pq_reader_t *r;
  CHECK_OK(pq_reader_open(io_local_fs(), f->path, NULL, &r, &err), &err);
  ty_batch_t *rb;
  char prev[128] = "";
  int64_t prev_pos = INT64_MIN, rows = 0;
  bool sorted = true;
  while (!pq_reader_next(r, &rb, &err) && rb) {
    for (uint32_t i = 0; i < rb->nrows; i++) {
      size_t ln;
      const uint8_t *s = ty_vec_get_bytes(rb->cols[0], i, &ln);
      char cur[128];
      snprintf(cur, sizeof cur, "%.*s", (int)ln, (const char *)s);
      int64_t pos = TY_VEC_DATA(rb->cols[1], int64_t)[i];
      int cmp = strcmp(prev, cur);
      if (cmp > 0 || (cmp == 0 && pos < prev_pos)) sorted = false;
      strcpy(prev, cur);
      prev_pos = pos;
      rows++;
    }
  }
  pq_reader_close(r);
  CHECK(sorted);
  CHECK_EQ(rows, 100);
  ice_dw_free(w);

  /* One referenced file, unpartitioned; a delete buffer cut into files. */
  ice_dw_opts_t o2 = {.content = ICE_CONTENT_POSITION_DELETES, .max_buffered_deletes = 30};
  CHECK_OK(ice_dw_open(io_local_fs(), loc, NULL, &o2, &w, &err), &err);
  for (int i = 0; i < 70; i++) CHECK_OK(ice_dw_delete_position(w, p1, 70 - i, &err), &err);
  CHECK_OK(ice_dw_close(w, a, &files, &n, &err), &err);
  CHECK_EQ(n, 3);
  CHECK_STR(files[0].referenced_data_file, p1);
  CHECK_EQ(files[0].record_count + files[1].record_count + files[2].record_count, 70);
  CHECK_EQ(files[0].npartition, 0);
  ice_dw_free(w);

  /* A partitioned spec without a tuple is refused. */
  o.partition = NULL;
  CHECK_ERR(ice_dw_open(io_local_fs(), loc, schema, &o, &w, &err), FL_EINVALID);
  fl_arena_free(a);
}

TEST(equality_deletes) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  ty_schema_t *schema;
  CHECK_OK(ty_schema_parse(a, SCHEMA, &schema, &err), &err);
  int32_t ids[] = {7, 1};
  ice_dw_opts_t o = {.content = ICE_CONTENT_EQUALITY_DELETES, .equality_ids = ids,
                     .nequality_ids = 2, .sort_order_id = 0};
  ice_dw_t *w;
  CHECK_OK(ice_dw_open(io_local_fs(), scratch("eqdel"), schema, &o, &w, &err), &err);
  const ty_schema_t *ds = ice_dw_schema(w);
  /* id long not null, s struct<k> */
  CHECK_EQ(ds->root.nfields, 2);
  CHECK_EQ(ds->root.fields[0].id, 1);
  CHECK_EQ(ds->root.fields[1].id, 6);
  CHECK_EQ(ds->root.fields[1].type->nfields, 1);
  CHECK_EQ(ds->root.fields[1].type->fields[0].id, 7);
  ty_batch_t *b = ty_batch_new(ds, 8);
  for (int i = 0; i < 5; i++) {
    ty_vec_append_i64(b->cols[0], 100 + i);
    ty_vec_append_bytes(b->cols[1]->children[0], "key", 3);
    ty_vec_append_struct(b->cols[1]);
  }
  ty_batch_seal(b);
  CHECK_OK(ice_dw_write(w, b, &err), &err);
  ty_batch_free(b);
  ice_data_file_t *files;
  size_t n;
  CHECK_OK(ice_dw_close(w, a, &files, &n, &err), &err);
  CHECK_EQ(n, 1);
  CHECK_EQ(files[0].content, ICE_CONTENT_EQUALITY_DELETES);
  CHECK_EQ(files[0].nequality_ids, 2);
  CHECK_EQ(files[0].equality_ids[0], 7);
  CHECK_EQ(files[0].equality_ids[1], 1);
  CHECK_EQ(files[0].record_count, 5);
  CHECK_EQ(files[0].sort_order_id, 0);
  CHECK_EQ(le64(&col(&files[0], 1)->lower), 100);
  CHECK_EQ(le64(&col(&files[0], 1)->upper), 104);
  CHECK(strstr(files[0].path, "-deletes.parquet"));
  const char *js = footer_value(files[0].path, "iceberg.schema", a);
  CHECK(js && !strstr(js, "price"));
  ice_dw_free(w);

  /* A list field or a missing id is refused. */
  int32_t bad[] = {99};
  o.equality_ids = bad;
  o.nequality_ids = 1;
  CHECK_ERR(ice_dw_open(io_local_fs(), scratch("eqdel"), schema, &o, &w, &err), FL_EINVALID);
  int32_t st[] = {6};
  o.equality_ids = st;
  CHECK_ERR(ice_dw_open(io_local_fs(), scratch("eqdel"), schema, &o, &w, &err), FL_EINVALID);
  fl_arena_free(a);
}
