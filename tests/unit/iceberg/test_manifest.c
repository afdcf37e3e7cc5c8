/*
 * test_manifest.c - manifests and manifest lists: every field through a
 * write and read in v1, v2 and v3, sequence number, snapshot id and
 * first row id inheritance, partition summaries (nulls, NaN, bounds in
 * single-value binary form computed here by hand), the Avro schema and
 * header keys written, every manifest list and manifest of the fixtures
 * (Spark, PyIceberg, iceberg-rust), and hostile or truncated files.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "format/avro/avro_container.h"
#include "iceberg/ice_manifest.h"
#include "iceberg/ice_spec.h"
#include "io/fs.h"
#include "test.h"

static const char *tmp(const char *name) {
  static char buf[8][512];
  static int k;
  char *p = buf[k++ & 7];
  snprintf(p, 512, "%s/%s", t_tmpdir(), name);
  return p;
}

static ty_value_t v_int(int32_t x) {
  ty_value_t v = {.kind = TY_INT};
  v.u.i32 = x;
  return v;
}
static ty_value_t v_date(int32_t x) {
  ty_value_t v = {.kind = TY_DATE};
  v.u.i32 = x;
  return v;
}
static ty_value_t v_str(const char *s) {
  ty_value_t v = {.kind = TY_STRING};
  v.u.bytes.p = (const uint8_t *)s;
  v.u.bytes.n = strlen(s);
  return v;
}
static ty_value_t v_double(double d) {
  ty_value_t v = {.kind = TY_DOUBLE};
  v.u.f64 = d;
  return v;
}
static ty_value_t v_dec(fl_i128 u) {
  ty_value_t v = {.kind = TY_DECIMAL};
  v.u.i128 = u;
  return v;
}
static ty_value_t v_null(ty_kind_t k) {
  ty_value_t v = {.kind = k, .is_null = true};
  return v;
}

/* Schema ids: id 1, name 2, ts 3, price 4, amount 5. */
static const char *SCHEMA =
    "id long not null, name string, ts timestamp, price double, "
    "amount decimal(12,2)";

typedef struct fixture_env {
  fl_arena_t *a;
  ty_schema_t *schema;
  ice_spec_t *spec;
} env_t;

static int make_env(env_t *e, const char *spec_text, fl_err_t *err) {
  e->a = fl_arena_new(0);
  int rc = ty_schema_parse(e->a, SCHEMA, &e->schema, err);
  if (rc) return rc;
  int32_t last = 999;
  return ice_spec_parse(e->a, spec_text, e->schema, 0, &last, &e->spec, err);
}

static ice_col_metrics_t COLS[] = {
    {.field_id = 1,
     .column_size = 100,
     .value_count = 10,
     .null_count = 0,
     .nan_count = -1,
     .lower = {(const uint8_t *)"\x01\0\0\0\0\0\0\0", 8},
     .upper = {(const uint8_t *)"\x09\0\0\0\0\0\0\0", 8}},
    {.field_id = 2,
     .column_size = 55,
     .value_count = 10,
     .null_count = 2,
     .nan_count = -1,
     .lower = {(const uint8_t *)"aa", 2},
     .upper = {(const uint8_t *)"zz", 2}},
    {.field_id = 4,
     .column_size = -1,
     .value_count = 10,
     .null_count = 1,
     .nan_count = 3,
     .lower = {NULL, 0},
     .upper = {NULL, 0}},
};
static int64_t SPLITS[] = {4, 1000, 5000};
static int32_t EQ_IDS[] = {1, 2};

/* A data file with every field set (deletes when content != 0). */
static ice_data_file_t file_of(const char *path, ice_content_t content, ty_value_t *part,
                               uint32_t npart, int64_t rows) {
  ice_data_file_t f;
  memset(&f, 0, sizeof f);
  f.content = content;
  f.path = path;
  f.format = "PARQUET";
  f.npartition = npart;
  f.partition = part;
  f.record_count = rows;
  f.file_size = rows * 10 + 7;
  f.ncols = 3;
  f.cols = COLS;
  f.nsplit_offsets = 3;
  f.split_offsets = SPLITS;
  if (content == ICE_CONTENT_EQUALITY_DELETES) {
    f.nequality_ids = 2;
    f.equality_ids = EQ_IDS;
  }
  f.sort_order_id = content == ICE_CONTENT_DATA ? 0 : -1;
  f.key_metadata.p = (const uint8_t *)"KEY";
  f.key_metadata.n = 3;
  f.first_row_id = -1;
  f.content_offset = f.content_size = -1;
  return f;
}

static bool bytes_eq(ice_bytes_t b, const void *p, size_t n) {
  return b.p && b.n == n && memcmp(b.p, p, n) == 0;
}

static bool same_file(const ice_data_file_t *x, const ice_data_file_t *y) {
  if (x->content != y->content || strcmp(x->path, y->path) || strcmp(x->format, y->format) ||
      x->record_count != y->record_count || x->file_size != y->file_size ||
      x->npartition != y->npartition || x->ncols != y->ncols ||
      x->nsplit_offsets != y->nsplit_offsets || x->nequality_ids != y->nequality_ids ||
      x->sort_order_id != y->sort_order_id || x->key_metadata.n != y->key_metadata.n)
    return false;
  for (uint32_t i = 0; i < x->npartition; i++) {
    const ty_value_t *a = &x->partition[i], *b = &y->partition[i];
    if (a->is_null != b->is_null || a->kind != b->kind) return false;
    if (!a->is_null && ty_value_cmp(a, b) != 0) return false;
  }
  for (uint32_t i = 0; i < x->ncols; i++) {
    const ice_col_metrics_t *a = &x->cols[i], *b = &y->cols[i];
    if (a->field_id != b->field_id || a->column_size != b->column_size ||
        a->value_count != b->value_count || a->null_count != b->null_count ||
        a->nan_count != b->nan_count || a->lower.n != b->lower.n || a->upper.n != b->upper.n ||
        (a->lower.p == NULL) != (b->lower.p == NULL) ||
        (a->upper.p == NULL) != (b->upper.p == NULL))
      return false;
    if (a->lower.p && memcmp(a->lower.p, b->lower.p, a->lower.n)) return false;
    if (a->upper.p && memcmp(a->upper.p, b->upper.p, a->upper.n)) return false;
  }
  for (uint32_t i = 0; i < x->nsplit_offsets; i++)
    if (x->split_offsets[i] != y->split_offsets[i]) return false;
  for (uint32_t i = 0; i < x->nequality_ids; i++)
    if (x->equality_ids[i] != y->equality_ids[i]) return false;
  if (memcmp(x->key_metadata.p, y->key_metadata.p, x->key_metadata.n)) return false;
  if ((x->referenced_data_file == NULL) != (y->referenced_data_file == NULL)) return false;
  if (x->referenced_data_file && strcmp(x->referenced_data_file, y->referenced_data_file))
    return false;
  return x->content_offset == y->content_offset && x->content_size == y->content_size;
}

TEST(round_trip_v2_every_field_and_inheritance) {
  env_t e;
  fl_err_t err = {0};
  CHECK_OK(make_env(&e, "name, day(ts), amount", &err), &err);
  const char *mpath = tmp("v2-m0.avro");
  ice_manifest_writer_t *w;
  CHECK_OK(ice_manifest_writer_open(io_local_fs(), mpath, 2, e.schema, e.spec, 0, 777, NULL, &w, &err),
           &err);
  ty_value_t p0[3] = {v_str("bob"), v_date(19000), v_dec(-12345)};
  ty_value_t p1[3] = {v_str("alice"), v_null(TY_DATE), v_dec(99)};
  ty_value_t p2[3] = {v_str("carl"), v_date(18000), v_null(TY_DECIMAL)};
  ice_manifest_entry_t en[3];
  memset(en, 0, sizeof en);
  en[0].status = ICE_STATUS_ADDED;
  en[0].sequence_number = 99; /* ignored: inherited */
  en[0].file = file_of("file:///t/data/a.parquet", ICE_CONTENT_DATA, p0, 3, 10);
  en[1].status = ICE_STATUS_EXISTING;
  en[1].snapshot_id = 555;
  en[1].sequence_number = 3;
  en[1].file_sequence_number = 4;
  en[1].file = file_of("file:///t/data/b.parquet", ICE_CONTENT_DATA, p1, 3, 20);
  en[2].status = ICE_STATUS_DELETED;
  en[2].snapshot_id = 556;
  en[2].sequence_number = 5;
  en[2].file_sequence_number = 5;
  en[2].file = file_of("file:///t/data/c.parquet", ICE_CONTENT_DATA, p2, 3, 40);
  en[2].file.referenced_data_file = NULL;
  for (int i = 0; i < 3; i++) CHECK_OK(ice_manifest_writer_add(w, &en[i], &err), &err);
  ice_manifest_file_t mf;
  CHECK_OK(ice_manifest_writer_close(w, e.a, &mf, &err), &err);

  /* Counts and summaries from the entries above. */
  FILE *fp = fopen(mpath, "rb");
  CHECK(fp);
  fseek(fp, 0, SEEK_END);
  CHECK_EQ(mf.length, ftell(fp));
  fclose(fp);
  CHECK_STR(mf.path, mpath);
  CHECK_EQ(mf.spec_id, 0);
  CHECK_EQ(mf.content, 0);
  CHECK_EQ(mf.sequence_number, -1);
  CHECK_EQ(mf.min_sequence_number, 3);
  CHECK_EQ(mf.added_snapshot_id, 777);
  CHECK_EQ(mf.added_files, 1);
  CHECK_EQ(mf.existing_files, 1);
  CHECK_EQ(mf.deleted_files, 1);
  CHECK_EQ(mf.added_rows, 10);
  CHECK_EQ(mf.existing_rows, 20);
  CHECK_EQ(mf.deleted_rows, 40);
  CHECK_EQ(mf.npartitions, 3);
  CHECK(!mf.partitions[0].contains_null && mf.partitions[0].contains_nan == 0);
  CHECK(bytes_eq(mf.partitions[0].lower, "alice", 5));
  CHECK(bytes_eq(mf.partitions[0].upper, "carl", 4));
  CHECK(mf.partitions[1].contains_null);
  /* 18000 = 0x4650, 19000 = 0x4A38, little-endian int. */
  CHECK(bytes_eq(mf.partitions[1].lower, "\x50\x46\0\0", 4));
  CHECK(bytes_eq(mf.partitions[1].upper, "\x38\x4a\0\0", 4));
  /* -12345 = 0xCFC7 (minimal two's complement), 99 = 0x63. */
  CHECK(mf.partitions[2].contains_null);
  CHECK(bytes_eq(mf.partitions[2].lower, "\xcf\xc7", 2));
  CHECK(bytes_eq(mf.partitions[2].upper, "\x63", 1));

  /* The list assigns the commit's sequence number. */
  const char *lpath = tmp("snap-777.avro");
  CHECK_OK(ice_manifest_list_write(io_local_fs(), lpath, 2, 777, 555, 7, -1, &mf, 1, NULL, NULL, &err), &err);
  ice_manifest_file_t *ls;
  size_t nl;
  CHECK_OK(ice_manifest_list_read(io_local_fs(), e.a, lpath, &ls, &nl, &err), &err);
  CHECK_EQ(nl, 1);
  CHECK_STR(ls[0].path, mpath);
  CHECK_EQ(ls[0].length, mf.length);
  CHECK_EQ(ls[0].sequence_number, 7);
  CHECK_EQ(ls[0].min_sequence_number, 3);
  CHECK_EQ(ls[0].added_snapshot_id, 777);
  CHECK_EQ(ls[0].added_files, 1);
  CHECK_EQ(ls[0].existing_files, 1);
  CHECK_EQ(ls[0].deleted_files, 1);
  CHECK_EQ(ls[0].added_rows, 10);
  CHECK_EQ(ls[0].existing_rows, 20);
  CHECK_EQ(ls[0].deleted_rows, 40);
  CHECK_EQ(ls[0].first_row_id, -1);
  CHECK(!ls[0].key_metadata.p);
  CHECK_EQ(ls[0].npartitions, 3);
  for (int i = 0; i < 3; i++) {
    CHECK_EQ(ls[0].partitions[i].contains_null, mf.partitions[i].contains_null);
    CHECK_EQ(ls[0].partitions[i].contains_nan, 0);
    CHECK(bytes_eq(ls[0].partitions[i].lower, mf.partitions[i].lower.p, mf.partitions[i].lower.n));
    CHECK(bytes_eq(ls[0].partitions[i].upper, mf.partitions[i].upper.p, mf.partitions[i].upper.n));
  }

  const ty_type_t *pt;
  CHECK_OK(ice_spec_partition_type(e.a, e.spec, e.schema, &pt, &err), &err);
  for (int pass = 0; pass < 2; pass++) {
    ice_manifest_entry_t *got;
    size_t n;
    CHECK_OK(ice_manifest_read(io_local_fs(), e.a, &ls[0], pass ? NULL : pt, &got, &n, &err), &err);
    CHECK_EQ(n, 3);
    CHECK_EQ(got[0].status, ICE_STATUS_ADDED);
    CHECK_EQ(got[0].snapshot_id, 777);
    CHECK_EQ(got[0].sequence_number, 7);
    CHECK_EQ(got[0].file_sequence_number, 7);
    CHECK_EQ(got[1].status, ICE_STATUS_EXISTING);
    CHECK_EQ(got[1].snapshot_id, 555);
    CHECK_EQ(got[1].sequence_number, 3);
    CHECK_EQ(got[1].file_sequence_number, 4);
    CHECK_EQ(got[2].status, ICE_STATUS_DELETED);
    CHECK_EQ(got[2].snapshot_id, 556);
    CHECK_EQ(got[2].sequence_number, 5);
    for (int i = 0; i < 3; i++) {
      CHECK(same_file(&got[i].file, &en[i].file));
      CHECK_EQ(got[i].file.first_row_id, -1);
      CHECK_EQ(got[i].file.spec_id, 0);
    }
    const ice_col_metrics_t *c = ice_data_file_col(&got[0].file, 2);
    CHECK(c && c->null_count == 2 && bytes_eq(c->upper, "zz", 2));
    CHECK(!ice_data_file_col(&got[0].file, 3));
    CHECK_EQ(ice_data_file_col(&got[0].file, 4)->nan_count, 3);
    CHECK(!ice_data_file_col(&got[0].file, 4)->lower.p);
    CHECK_EQ(got[1].file.partition[0].u.bytes.n, 5);
    CHECK(got[1].file.partition[1].is_null);
    CHECK(got[0].file.partition[2].u.i128 == -12345);
  }
  fl_arena_free(e.a);
}

TEST(delete_manifest_v2_and_v3_fields) {
  env_t e;
  fl_err_t err = {0};
  CHECK_OK(make_env(&e, "", &err), &err);
  for (int fv = 2; fv <= 3; fv++) {
    const char *mpath = tmp(fv == 2 ? "del-v2.avro" : "del-v3.avro");
    ice_manifest_writer_t *w;
    CHECK_OK(ice_manifest_writer_open(io_local_fs(), mpath, fv, e.schema, e.spec, 1, 42, NULL, &w, &err),
             &err);
    ice_manifest_entry_t en[2];
    memset(en, 0, sizeof en);
    en[0].status = ICE_STATUS_ADDED;
    en[0].file = file_of("/t/eq.parquet", ICE_CONTENT_EQUALITY_DELETES, NULL, 0, 3);
    en[1].status = ICE_STATUS_ADDED;
    en[1].file = file_of("/t/dv.puffin", ICE_CONTENT_POSITION_DELETES, NULL, 0, 2);
    en[1].file.format = "PUFFIN";
    en[1].file.referenced_data_file = "/t/data/a.parquet";
    if (fv == 3) {
      en[1].file.content_offset = 4;
      en[1].file.content_size = 40;
    }
    /* A data file does not belong in a delete manifest. */
    ice_manifest_entry_t bad = en[0];
    bad.file.content = ICE_CONTENT_DATA;
    CHECK_ERR(ice_manifest_writer_add(w, &bad, &err), FL_EINVALID);
    CHECK(strstr(err.msg, mpath) && strstr(err.msg, "entry 0"));
    for (int i = 0; i < 2; i++) CHECK_OK(ice_manifest_writer_add(w, &en[i], &err), &err);
    ice_manifest_file_t mf;
    CHECK_OK(ice_manifest_writer_close(w, e.a, &mf, &err), &err);
    CHECK_EQ(mf.content, 1);
    CHECK_EQ(mf.npartitions, 0);
    CHECK_EQ(mf.added_rows, 5);
    CHECK_EQ(mf.min_sequence_number, -1);
    mf.sequence_number = 9;
    mf.min_sequence_number = 9;
    ice_manifest_entry_t *got;
    size_t n;
    CHECK_OK(ice_manifest_read(io_local_fs(), e.a, &mf, NULL, &got, &n, &err), &err);
    CHECK_EQ(n, 2);
    for (int i = 0; i < 2; i++) {
      CHECK(same_file(&got[i].file, &en[i].file));
      CHECK_EQ(got[i].sequence_number, 9);
      CHECK_EQ(got[i].snapshot_id, 42);
    }
    CHECK_EQ(got[0].file.nequality_ids, 2);
    CHECK_STR(got[1].file.referenced_data_file, "/t/data/a.parquet");
  }
  /* v1 has no delete manifests. */
  ice_manifest_writer_t *w;
  CHECK_ERR(ice_manifest_writer_open(io_local_fs(), tmp("del-v1.avro"), 1, e.schema, e.spec, 1, 1,NULL, 
                                     &w, &err),
            FL_EINVALID);
  fl_arena_free(e.a);
}

TEST(v3_first_row_id_inheritance) {
  env_t e;
  fl_err_t err = {0};
  CHECK_OK(make_env(&e, "bucket(4, id)", &err), &err);
  const char *mpath = tmp("v3-m0.avro");
  ice_manifest_writer_t *w;
  CHECK_OK(ice_manifest_writer_open(io_local_fs(), mpath, 3, e.schema, e.spec, 0, 5, NULL, &w, &err),
           &err);
  ty_value_t parts[3] = {v_int(0), v_int(3), v_int(1)};
  int64_t rows[3] = {10, 20, 30};
  for (int i = 0; i < 3; i++) {
    ice_manifest_entry_t en;
    memset(&en, 0, sizeof en);
    en.status = ICE_STATUS_ADDED;
    char *p = fl_arena_sprintf(e.a, "/t/%d.parquet", i);
    en.file = file_of(p, ICE_CONTENT_DATA, &parts[i], 1, rows[i]);
    if (i == 1) en.file.first_row_id = 500; /* explicit ids are kept */
    CHECK_OK(ice_manifest_writer_add(w, &en, &err), &err);
  }
  ice_manifest_file_t mf;
  CHECK_OK(ice_manifest_writer_close(w, e.a, &mf, &err), &err);
  CHECK(bytes_eq(mf.partitions[0].lower, "\0\0\0\0", 4));
  CHECK(bytes_eq(mf.partitions[0].upper, "\3\0\0\0", 4));
  mf.first_row_id = 1000;
  const char *lpath = tmp("snap-v3.avro");
  CHECK_OK(ice_manifest_list_write(io_local_fs(), lpath, 3, 5, -1, 1, -1, &mf, 1, NULL, NULL, &err), &err);
  ice_manifest_file_t *ls;
  size_t nl;
  CHECK_OK(ice_manifest_list_read(io_local_fs(), e.a, lpath, &ls, &nl, &err), &err);
  CHECK_EQ(nl, 1);
  CHECK_EQ(ls[0].first_row_id, 1000);
  CHECK_EQ(ls[0].sequence_number, 1);
  ice_manifest_entry_t *got;
  size_t n;
  CHECK_OK(ice_manifest_read(io_local_fs(), e.a, &ls[0], NULL, &got, &n, &err), &err);
  CHECK_EQ(n, 3);
  CHECK_EQ(got[0].file.first_row_id, 1000);
  CHECK_EQ(got[1].file.first_row_id, 500);
  CHECK_EQ(got[2].file.first_row_id, 1010);
  CHECK_EQ(got[2].file.partition[0].u.i32, 1);
  fl_arena_free(e.a);
}

TEST(v1_round_trip_sequence_numbers_zero) {
  env_t e;
  fl_err_t err = {0};
  CHECK_OK(make_env(&e, "id", &err), &err);
  const char *mpath = tmp("v1-m0.avro");
  ice_manifest_writer_t *w;
  CHECK_OK(ice_manifest_writer_open(io_local_fs(), mpath, 1, e.schema, e.spec, 0, 31, NULL, &w, &err),
           &err);
  ty_value_t p = {.kind = TY_LONG};
  p.u.i64 = -5;
  ice_manifest_entry_t en;
  memset(&en, 0, sizeof en);
  en.status = ICE_STATUS_ADDED;
  en.file = file_of("/t/v1.parquet", ICE_CONTENT_DATA, &p, 1, 8);
  CHECK_OK(ice_manifest_writer_add(w, &en, &err), &err);
  ice_manifest_file_t mf;
  CHECK_OK(ice_manifest_writer_close(w, e.a, &mf, &err), &err);
  const char *lpath = tmp("snap-v1.avro");
  CHECK_OK(ice_manifest_list_write(io_local_fs(), lpath, 1, 31, -1, 1, -1, &mf, 1, NULL, NULL, &err), &err);
  ice_manifest_file_t *ls;
  size_t nl;
  CHECK_OK(ice_manifest_list_read(io_local_fs(), e.a, lpath, &ls, &nl, &err), &err);
  CHECK_EQ(nl, 1);
  CHECK_EQ(ls[0].sequence_number, 0);
  CHECK_EQ(ls[0].added_files, 1);
  CHECK_EQ(ls[0].added_rows, 8);
  CHECK(bytes_eq(ls[0].partitions[0].lower, "\xfb\xff\xff\xff\xff\xff\xff\xff", 8));
  ice_manifest_entry_t *got;
  size_t n;
  ls[0].sequence_number = 12; /* v1 entries read 0 whatever the list says */
  CHECK_OK(ice_manifest_read(io_local_fs(), e.a, &ls[0], NULL, &got, &n, &err), &err);
  CHECK_EQ(n, 1);
  CHECK_EQ(got[0].snapshot_id, 31);
  CHECK_EQ(got[0].sequence_number, 0);
  CHECK_EQ(got[0].file_sequence_number, 0);
  CHECK_EQ(got[0].file.partition[0].u.i64, -5);
  en.file.nequality_ids = 0;
  CHECK(same_file(&got[0].file, &en.file));
  fl_arena_free(e.a);
}

TEST(partition_summary_nan_and_nulls) {
  env_t e;
  fl_err_t err = {0};
  CHECK_OK(make_env(&e, "price", &err), &err);
  ice_manifest_writer_t *w;
  CHECK_OK(
      ice_manifest_writer_open(io_local_fs(), tmp("nan.avro"), 2, e.schema, e.spec, 0, 1, NULL, &w, &err),
      &err);
  ty_value_t vals[4] = {v_double(NAN), v_double(2.5), v_null(TY_DOUBLE), v_double(-1.0)};
  for (int i = 0; i < 4; i++) {
    ice_manifest_entry_t en;
    memset(&en, 0, sizeof en);
    en.status = ICE_STATUS_ADDED;
    en.file = file_of("/t/x.parquet", ICE_CONTENT_DATA, &vals[i], 1, 1);
    CHECK_OK(ice_manifest_writer_add(w, &en, &err), &err);
  }
  ice_manifest_file_t mf;
  CHECK_OK(ice_manifest_writer_close(w, e.a, &mf, &err), &err);
  CHECK(mf.partitions[0].contains_null);
  CHECK_EQ(mf.partitions[0].contains_nan, 1);
  double lo, hi;
  CHECK(mf.partitions[0].lower.n == 8 && mf.partitions[0].upper.n == 8);
  memcpy(&lo, mf.partitions[0].lower.p, 8);
  memcpy(&hi, mf.partitions[0].upper.p, 8);
  CHECK(lo == -1.0 && hi == 2.5);

  /* An empty manifest: no bounds. */
  CHECK_OK(ice_manifest_writer_open(io_local_fs(), tmp("empty.avro"), 2, e.schema, e.spec, 0, 1, NULL, &w,
                                    &err),
           &err);
  CHECK_OK(ice_manifest_writer_close(w, e.a, &mf, &err), &err);
  CHECK(!mf.partitions[0].contains_null && mf.partitions[0].contains_nan == 0);
  CHECK(!mf.partitions[0].lower.p && !mf.partitions[0].upper.p);
  CHECK_EQ(mf.added_files + mf.existing_files + mf.deleted_files, 0);
  ice_manifest_entry_t *got;
  size_t n;
  mf.sequence_number = 1;
  CHECK_OK(ice_manifest_read(io_local_fs(), e.a, &mf, NULL, &got, &n, &err), &err);
  CHECK_EQ(n, 0);
  fl_arena_free(e.a);
}

static const char *meta_str(fl_arena_t *a, const av_reader_t *r, const char *key) {
  size_t n;
  const uint8_t *p = av_reader_meta(r, key, &n);
  return p ? fl_arena_strndup(a, (const char *)p, n) : NULL;
}

static const av_field_t *field_named(const av_schema_t *rec, const char *name) {
  int i = av_record_field_index(rec, name);
  return i < 0 ? NULL : &rec->fields[i];
}

TEST(written_schema_and_header_keys) {
  env_t e;
  fl_err_t err = {0};
  CHECK_OK(make_env(&e, "name, bucket(8, id)", &err), &err);
  const char *mpath = tmp("hdr.avro");
  ice_manifest_writer_t *w;
  CHECK_OK(ice_manifest_writer_open(io_local_fs(), mpath, 2, e.schema, e.spec, 0, 1, NULL, &w, &err),
           &err);
  ice_manifest_file_t mf;
  CHECK_OK(ice_manifest_writer_close(w, e.a, &mf, &err), &err);
  io_reader_t *in;
  CHECK_OK(io_local_fs()->open_read(io_local_fs(), mpath, &in, &err), &err);
  av_reader_t *r;
  CHECK_OK(av_reader_open(in, &r, &err), &err);
  CHECK_EQ(r->codec, AV_CODEC_DEFLATE);
  CHECK_STR(meta_str(e.a, r, "format-version"), "2");
  CHECK_STR(meta_str(e.a, r, "content"), "data");
  CHECK_STR(meta_str(e.a, r, "partition-spec-id"), "0");
  CHECK_STR(meta_str(e.a, r, "schema-id"), "0");
  const char *ps = meta_str(e.a, r, "partition-spec");
  CHECK(ps && strstr(ps, "\"transform\":\"bucket[8]\"") && strstr(ps, "\"field-id\":1001") &&
        strstr(ps, "\"source-id\":2"));
  const char *sj = meta_str(e.a, r, "schema");
  CHECK(sj && strstr(sj, "\"amount\"") && strstr(sj, "decimal(12, 2)"));
  const av_schema_t *s = r->schema;
  CHECK_STR(s->name, "manifest_entry");
  static const char *const top[][2] = {{"status", "0"},
                                       {"snapshot_id", "1"},
                                       {"sequence_number", "3"},
                                       {"file_sequence_number", "4"},
                                       {"data_file", "2"}};
  CHECK_EQ(s->nfields, 5);
  for (int i = 0; i < 5; i++) {
    CHECK_STR(s->fields[i].name, top[i][0]);
    CHECK_STR(av_field_attr(&s->fields[i], "field-id"), top[i][1]);
  }
  const av_schema_t *df = s->fields[4].type;
  CHECK_STR(df->name, "r2");
  static const char *const dff[][2] = {
      {"content", "134"},          {"file_path", "100"},           {"file_format", "101"},
      {"partition", "102"},        {"record_count", "103"},        {"file_size_in_bytes", "104"},
      {"column_sizes", "108"},     {"value_counts", "109"},        {"null_value_counts", "110"},
      {"nan_value_counts", "137"}, {"lower_bounds", "125"},        {"upper_bounds", "128"},
      {"key_metadata", "131"},     {"split_offsets", "132"},       {"equality_ids", "135"},
      {"sort_order_id", "140"},    {"referenced_data_file", "143"}};
  CHECK_EQ(df->nfields, 17);
  for (int i = 0; i < 17; i++) {
    CHECK_STR(df->fields[i].name, dff[i][0]);
    CHECK_STR(av_field_attr(&df->fields[i], "field-id"), dff[i][1]);
  }
  const av_schema_t *part = field_named(df, "partition")->type;
  CHECK_STR(part->name, "r102");
  CHECK_EQ(part->nfields, 2);
  CHECK_STR(part->fields[0].name, "name");
  CHECK_STR(av_field_attr(&part->fields[0], "field-id"), "1000");
  CHECK_STR(part->fields[1].name, "id_bucket_8");
  CHECK_STR(av_field_attr(&part->fields[1], "field-id"), "1001");
  const av_schema_t *cs = field_named(df, "column_sizes")->type;
  CHECK(cs->type == AV_UNION && cs->branches[0]->type == AV_NULL);
  CHECK_STR(cs->branches[1]->logical_name, "map");
  CHECK_STR(cs->branches[1]->items->name, "k117_v118");
  CHECK_STR(av_field_attr(&cs->branches[1]->items->fields[0], "field-id"), "117");
  CHECK_STR(av_field_attr(&cs->branches[1]->items->fields[1], "field-id"), "118");
  CHECK_STR(field_named(df, "upper_bounds")->type->branches[1]->items->name, "k129_v130");
  CHECK_STR(av_schema_attr(field_named(df, "split_offsets")->type->branches[1], "element-id"),
            "133");
  CHECK_STR(av_schema_attr(field_named(df, "equality_ids")->type->branches[1], "element-id"),
            "136");
  av_reader_close(r);
  in->close(in);

  /* The manifest list's header and schema. */
  const char *lpath = tmp("hdr-list.avro");
  mf.sequence_number = -1;
  CHECK_OK(ice_manifest_list_write(io_local_fs(), lpath, 2, 123, -1, 4, -1, &mf, 1, NULL, NULL, &err), &err);
  CHECK_OK(io_local_fs()->open_read(io_local_fs(), lpath, &in, &err), &err);
  CHECK_OK(av_reader_open(in, &r, &err), &err);
  CHECK_STR(meta_str(e.a, r, "snapshot-id"), "123");
  CHECK_STR(meta_str(e.a, r, "parent-snapshot-id"), "null");
  CHECK_STR(meta_str(e.a, r, "sequence-number"), "4");
  CHECK_STR(meta_str(e.a, r, "format-version"), "2");
  s = r->schema;
  CHECK_STR(s->name, "manifest_file");
  static const char *const lf[][2] = {
      {"manifest_path", "500"},        {"manifest_length", "501"},
      {"partition_spec_id", "502"},    {"content", "517"},
      {"sequence_number", "515"},      {"min_sequence_number", "516"},
      {"added_snapshot_id", "503"},    {"added_files_count", "504"},
      {"existing_files_count", "505"}, {"deleted_files_count", "506"},
      {"added_rows_count", "512"},     {"existing_rows_count", "513"},
      {"deleted_rows_count", "514"},   {"partitions", "507"},
      {"key_metadata", "519"}};
  CHECK_EQ(s->nfields, 15);
  for (int i = 0; i < 15; i++) {
    CHECK_STR(s->fields[i].name, lf[i][0]);
    CHECK_STR(av_field_attr(&s->fields[i], "field-id"), lf[i][1]);
  }
  const av_schema_t *pa = s->fields[13].type->branches[1];
  CHECK_STR(av_schema_attr(pa, "element-id"), "508");
  CHECK_STR(pa->items->name, "r508");
  CHECK_STR(pa->items->fields[1].name, "contains_nan");
  CHECK_STR(av_field_attr(&pa->items->fields[1], "field-id"), "518");
  av_reader_close(r);
  in->close(in);
  fl_arena_free(e.a);
}

/* ---- fixtures ---- */

static const char *fixture_root(void) {
  static char buf[1024];
  snprintf(buf, sizeof buf, "%s/iceberg-fixtures/duckdb-iceberg", t_testdata());
  return buf;
}

TEST(reads_spark_manifest_with_known_values) {
  /* Values read with fastavro (see test_avro.c): one manifest of two
   * ADDED entries, snapshot 1919487672997309926, sequence number 1. */
  fl_err_t err = {0};
  fl_arena_t *a = fl_arena_new(0);
  char lp[1200];
  snprintf(lp, sizeof lp,
           "%s/data/persistent/partition_bigint/metadata/"
           "snap-1919487672997309926-1-715c1cc2-5c99-4a8d-95b3-5b43e05ccc04.avro",
           fixture_root());
  ice_manifest_file_t *ls;
  size_t nl;
  CHECK_OK(ice_manifest_list_read(io_local_fs(), a, lp, &ls, &nl, &err), &err);
  CHECK_EQ(nl, 1);
  CHECK_EQ(ls[0].length, 7054);
  CHECK_EQ(ls[0].added_snapshot_id, 1919487672997309926LL);
  CHECK_EQ(ls[0].sequence_number, 1);
  CHECK_EQ(ls[0].npartitions, 1);
  CHECK(!ls[0].partitions[0].contains_null);
  CHECK(bytes_eq(ls[0].partitions[0].lower, "\0\0\0\0\0\0\0\x80", 8));
  CHECK(bytes_eq(ls[0].partitions[0].upper, "\xff\xff\xff\xff\xff\xff\xff\x7f", 8));
  ice_manifest_file_t mf = ls[0];
  mf.path = fl_arena_sprintf(a, "%s/%s", fixture_root(), ls[0].path);
  ice_manifest_entry_t *es;
  size_t n;
  CHECK_OK(ice_manifest_read(io_local_fs(), a, &mf, NULL, &es, &n, &err), &err);
  CHECK_EQ(n, 2);
  CHECK_EQ(es[0].status, ICE_STATUS_ADDED);
  CHECK_EQ(es[0].snapshot_id, 1919487672997309926LL);
  CHECK_EQ(es[0].sequence_number, 1);
  CHECK_EQ(es[0].file_sequence_number, 1);
  CHECK_EQ(es[0].file.record_count, 1);
  CHECK_EQ(es[0].file.file_size, 959);
  CHECK_EQ(es[1].file.file_size, 979);
  CHECK_EQ(es[0].file.npartition, 1);
  CHECK_EQ(es[0].file.partition[0].kind, TY_LONG);
  CHECK_EQ(es[0].file.partition[0].u.i64, INT64_MAX);
  CHECK_EQ(es[1].file.partition[0].u.i64, INT64_MIN);
  CHECK_EQ(ice_data_file_col(&es[0].file, 3)->column_size, 41);
  CHECK_EQ(ice_data_file_col(&es[1].file, 3)->column_size, 43);
  CHECK_STR(es[0].file.format, "PARQUET");
  fl_arena_free(a);
}

/* Reads a list and each of its manifests; checks the list's counts
 * against the entries. Returns the number of manifests read or -1. */
static int check_list(const char *path, const char *root) {
  fl_err_t err = {0};
  fl_arena_t *a = fl_arena_new(0);
  ice_manifest_file_t *ls;
  size_t nl;
  int rc = ice_manifest_list_read(io_local_fs(), a, path, &ls, &nl, &err);
  if (rc) {
    t_fail(__FILE__, __LINE__, "%s: %s", path, err.msg);
    fl_arena_free(a);
    return -1;
  }
  int read = 0;
  for (size_t i = 0; i < nl; i++) {
    ice_manifest_file_t mf = ls[i];
    if (!root) continue;
    mf.path = fl_arena_sprintf(a, "%s/%s", root, ls[i].path);
    FILE *fp = fopen(mf.path, "rb");
    if (!fp) continue; /* some fixtures ship only part of their history */
    fclose(fp);
    ice_manifest_entry_t *es;
    size_t n;
    rc = ice_manifest_read(io_local_fs(), a, &mf, NULL, &es, &n, &err);
    if (rc) {
      t_fail(__FILE__, __LINE__, "%s: %s", mf.path, err.msg);
      fl_arena_free(a);
      return -1;
    }
    int64_t files[3] = {0, 0, 0}, rows[3] = {0, 0, 0};
    for (size_t k = 0; k < n; k++) {
      files[es[k].status]++;
      rows[es[k].status] += es[k].file.record_count;
      bool data = es[k].file.content == ICE_CONTENT_DATA;
      if (data != (ls[i].content == 0) || es[k].file.spec_id != ls[i].spec_id ||
          es[k].sequence_number < 0 || es[k].sequence_number > ls[i].sequence_number ||
          (es[k].status == ICE_STATUS_ADDED && es[k].snapshot_id != ls[i].added_snapshot_id &&
           es[k].sequence_number != ls[i].sequence_number) ||
          es[k].file.npartition != ls[i].npartitions) {
        t_fail(__FILE__, __LINE__, "%s: entry %zu disagrees with its list entry", mf.path, k);
        fl_arena_free(a);
        return -1;
      }
    }
    if ((ls[i].added_files >= 0 && ls[i].added_files != files[1]) ||
        (ls[i].existing_files >= 0 && ls[i].existing_files != files[0]) ||
        (ls[i].deleted_files >= 0 && ls[i].deleted_files != files[2]) ||
        /* Totals only: one v1 fixture counts its existing rows as added. */
        (ls[i].added_rows >= 0 && ls[i].existing_rows >= 0 && ls[i].deleted_rows >= 0 &&
         ls[i].added_rows + ls[i].existing_rows + ls[i].deleted_rows !=
             rows[0] + rows[1] + rows[2])) {
      t_fail(__FILE__, __LINE__, "%s: counts differ from the list's", mf.path);
      fl_arena_free(a);
      return -1;
    }
    read++;
  }
  fl_arena_free(a);
  return read;
}

TEST(reads_every_fixture_list_and_manifest) {
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "find %s/data/persistent -path '*/metadata/snap-*.avro' | sort",
           fixture_root());
  FILE *fp = popen(cmd, "r");
  CHECK(fp);
  char line[1024];
  int lists = 0, manifests = 0;
  while (fgets(line, sizeof line, fp)) {
    line[strcspn(line, "\n")] = 0;
    int m = check_list(line, fixture_root());
    if (m < 0) {
      pclose(fp);
      return;
    }
    lists++;
    manifests += m;
  }
  pclose(fp);
  CHECK(lists >= 60);
  CHECK(manifests >= 60);

  /* iceberg-rust's lists (their manifests are not shipped). */
  char p[1200];
  for (int i = 1; i <= 2; i++) {
    snprintf(p, sizeof p,
             "%s/iceberg-fixtures/iceberg-rust/crates/iceberg/testdata/manifests_lists/"
             "manifest-list-v2-%d.avro",
             t_testdata(), i);
    CHECK(check_list(p, NULL) == 0);
  }
  fl_err_t err = {0};
  fl_arena_t *a = fl_arena_new(0);
  ice_manifest_file_t *ls;
  size_t nl;
  snprintf(p, sizeof p,
           "%s/iceberg-fixtures/iceberg-rust/crates/iceberg/testdata/manifests_lists/"
           "manifest-list-v2-1.avro",
           t_testdata());
  CHECK_OK(ice_manifest_list_read(io_local_fs(), a, p, &ls, &nl, &err), &err);
  CHECK(nl >= 1 && ls[0].path && ls[0].length > 0);
  /* The encrypted list has no readable schema: an error naming it. */
  snprintf(p, sizeof p,
           "%s/iceberg-fixtures/iceberg-rust/crates/iceberg/testdata/manifests_lists/"
           "manifest-list-v3-encrypted.avro",
           t_testdata());
  CHECK_ERR(ice_manifest_list_read(io_local_fs(), a, p, &ls, &nl, &err), FL_ECORRUPT);
  CHECK(strstr(err.msg, "manifest-list-v3-encrypted.avro"));
  fl_arena_free(a);
}

/* ---- hostile input ---- */

static int copy_prefix(const char *from, const char *to, long n, long flip_at) {
  FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
  if (!in || !out) return -1;
  int c;
  long i = 0;
  while ((c = fgetc(in)) != EOF && i < n) {
    if (i == flip_at) c ^= 0x5a;
    fputc(c, out);
    i++;
  }
  fclose(in);
  fclose(out);
  return 0;
}

TEST(truncated_and_corrupt_files_give_errors) {
  env_t e;
  fl_err_t err = {0};
  CHECK_OK(make_env(&e, "name, day(ts)", &err), &err);
  const char *mpath = tmp("good.avro");
  ice_manifest_writer_t *w;
  CHECK_OK(ice_manifest_writer_open(io_local_fs(), mpath, 2, e.schema, e.spec, 0, 9, NULL, &w, &err),
           &err);
  ty_value_t p[2] = {v_str("x"), v_date(1)};
  for (int i = 0; i < 20; i++) {
    ice_manifest_entry_t en;
    memset(&en, 0, sizeof en);
    en.status = ICE_STATUS_ADDED;
    en.file = file_of(fl_arena_sprintf(e.a, "/t/%d.parquet", i), ICE_CONTENT_DATA, p, 2, i + 1);
    CHECK_OK(ice_manifest_writer_add(w, &en, &err), &err);
  }
  ice_manifest_file_t mf;
  CHECK_OK(ice_manifest_writer_close(w, e.a, &mf, &err), &err);
  mf.sequence_number = 1;
  const char *lpath = tmp("good-list.avro");
  CHECK_OK(ice_manifest_list_write(io_local_fs(), lpath, 2, 9, -1, 1, -1, &mf, 1, NULL, NULL, &err), &err);

  const char *bad = tmp("bad.avro");
  ice_manifest_file_t bm = mf;
  bm.path = bad;
  int errors = 0;
  for (long cut = 0; cut < mf.length; cut += 1 + cut / 8) {
    CHECK(copy_prefix(mpath, bad, cut, -1) == 0);
    ice_manifest_entry_t *es;
    size_t n;
    int rc = ice_manifest_read(io_local_fs(), e.a, &bm, NULL, &es, &n, &err);
    CHECK(rc != FL_OK);
    CHECK(strstr(err.msg, "bad.avro"));
    ice_manifest_file_t *ls;
    size_t nl;
    CHECK(ice_manifest_list_read(io_local_fs(), e.a, bad, &ls, &nl, &err) != FL_OK);
    errors++;
  }
  CHECK(errors > 20);
  /* Flipped bytes anywhere: an error or a read, never a crash. */
  for (long at = 0; at < mf.length; at += 7) {
    CHECK(copy_prefix(mpath, bad, mf.length, at) == 0);
    ice_manifest_entry_t *es;
    size_t n;
    fl_arena_t *a = fl_arena_new(0);
    int rc = ice_manifest_read(io_local_fs(), a, &bm, NULL, &es, &n, &err);
    if (rc)
      CHECK(strstr(err.msg, "bad.avro"));
    else
      CHECK(n <= 20);
    fl_arena_free(a);
  }
  /* A manifest list is not a manifest, and the other way round. */
  ice_manifest_file_t lm = mf;
  lm.path = lpath;
  ice_manifest_entry_t *es;
  size_t n;
  CHECK_ERR(ice_manifest_read(io_local_fs(), e.a, &lm, NULL, &es, &n, &err), FL_ECORRUPT);
  CHECK(strstr(err.msg, "good-list.avro"));
  ice_manifest_file_t *ls;
  size_t nl;
  CHECK_ERR(ice_manifest_list_read(io_local_fs(), e.a, mpath, &ls, &nl, &err), FL_ECORRUPT);
  CHECK(strstr(err.msg, "good.avro") && strstr(err.msg, "manifest_file 0"));
  /* A missing file. */
  lm.path = tmp("nope.avro");
  CHECK(ice_manifest_read(io_local_fs(), e.a, &lm, NULL, &es, &n, &err) != FL_OK);
  CHECK(strstr(err.msg, "nope.avro"));
  fl_arena_free(e.a);
}

TEST(writer_rejects_bad_entries) {
  env_t e;
  fl_err_t err = {0};
  CHECK_OK(make_env(&e, "name", &err), &err);
  const char *mpath = tmp("rej.avro");
  ice_manifest_writer_t *w;
  CHECK_ERR(ice_manifest_writer_open(io_local_fs(), mpath, 4, e.schema, e.spec, 0, 1, NULL, &w, &err),
            FL_EUNSUPPORTED);
  CHECK_OK(ice_manifest_writer_open(io_local_fs(), mpath, 2, e.schema, e.spec, 0, 1, NULL, &w, &err),
           &err);
  ice_manifest_entry_t en;
  memset(&en, 0, sizeof en);
  en.status = ICE_STATUS_ADDED;
  en.file = file_of("/t/a.parquet", ICE_CONTENT_DATA, NULL, 0, 1);
  CHECK_ERR(ice_manifest_writer_add(w, &en, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "partition values") && strstr(err.msg, "/t/a.parquet"));
  ty_value_t wrong = v_int(3);
  en.file.npartition = 1;
  en.file.partition = &wrong;
  CHECK_ERR(ice_manifest_writer_add(w, &en, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "partition field name"));
  en.status = (ice_entry_status_t)7;
  CHECK_ERR(ice_manifest_writer_add(w, &en, &err), FL_EINVALID);
  ice_manifest_writer_abort(w);
  FILE *fp = fopen(mpath, "rb");
  CHECK(!fp); /* aborted: nothing published */
  fl_arena_free(e.a);
}

TEST(every_partition_type_round_trips) {
  /* Identity partitions of every primitive type, with and without the
   * spec's partition type (then taken from the file's r102). */
  fl_err_t err = {0};
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *schema;
  CHECK_OK(ty_schema_parse(a,
                           "b boolean, i int, l long, f float, d double, dec decimal(30,4), "
                           "dt date, t time, ts timestamp, tz timestamptz, s string, u uuid, "
                           "fx fixed(3), bin binary, tsn timestamp_ns",
                           &schema, &err),
           &err);
  ice_spec_t *spec;
  int32_t last = 999;
  CHECK_OK(ice_spec_parse(a, "b, i, l, f, d, dec, dt, t, ts, tz, s, u, fx, bin, tsn", schema, 0,
                          &last, &spec, &err),
           &err);
  const ty_type_t *pt;
  CHECK_OK(ice_spec_partition_type(a, spec, schema, &pt, &err), &err);
  CHECK_EQ(pt->nfields, 15);
  ty_value_t v[15];
  memset(v, 0, sizeof v);
  for (int i = 0; i < 15; i++) v[i].kind = pt->fields[i].type->kind;
  v[0].u.b = true;
  v[1].u.i32 = -123456;
  v[2].u.i64 = 1LL << 40;
  v[3].u.f32 = 1.5f;
  v[4].u.f64 = -2.25;
  v[5].u.i128 = -((fl_i128)1 << 80) - 7;
  v[6].u.i32 = -1;
  v[7].u.i64 = 81068000000LL;
  v[8].u.i64 = 1510871468000001LL;
  v[9].u.i64 = -1510871468000001LL;
  v[10].u.bytes.p = (const uint8_t *)"\xc3\xa9t\xc3\xa9";
  v[10].u.bytes.n = 5;
  static const uint8_t uuid[16] = {0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd,
                                   0xa4, 0x79, 0x3f, 0x34, 0x9c, 0xb7, 0x85, 0xe7};
  v[11].u.bytes.p = uuid;
  v[11].u.bytes.n = 16;
  v[12].u.bytes.p = (const uint8_t *)"\0\1\2";
  v[12].u.bytes.n = 3;
  v[13].u.bytes.p = (const uint8_t *)"\xff\0";
  v[13].u.bytes.n = 2;
  v[14].u.i64 = 1510871468000000001LL;
  const char *mpath = tmp("types.avro");
  ice_manifest_writer_t *w;
  CHECK_OK(ice_manifest_writer_open(io_local_fs(), mpath, 2, schema, spec, 0, 3, NULL, &w, &err), &err);
  ice_manifest_entry_t en;
  memset(&en, 0, sizeof en);
  en.status = ICE_STATUS_ADDED;
  en.file = file_of("/t/types.parquet", ICE_CONTENT_DATA, v, 15, 1);
  CHECK_OK(ice_manifest_writer_add(w, &en, &err), &err);
  ice_manifest_file_t mf;
  CHECK_OK(ice_manifest_writer_close(w, a, &mf, &err), &err);
  /* Summaries in single-value binary form: a few by hand. */
  CHECK(bytes_eq(mf.partitions[0].lower, "\x01", 1));
  CHECK(bytes_eq(mf.partitions[1].lower, "\xc0\x1d\xfe\xff", 4));
  CHECK(bytes_eq(mf.partitions[6].upper, "\xff\xff\xff\xff", 4));
  CHECK(bytes_eq(mf.partitions[10].lower, "\xc3\xa9t\xc3\xa9", 5));
  CHECK(bytes_eq(mf.partitions[11].lower, uuid, 16));
  CHECK(bytes_eq(mf.partitions[13].upper, "\xff\0", 2));
  /* -(2^80) - 7: minimal big-endian two's complement, 11 bytes. */
  CHECK(bytes_eq(mf.partitions[5].lower, "\xfe\xff\xff\xff\xff\xff\xff\xff\xff\xff\xf9", 11));
  mf.sequence_number = 1;
  for (int pass = 0; pass < 2; pass++) {
    ice_manifest_entry_t *got;
    size_t n;
    CHECK_OK(ice_manifest_read(io_local_fs(), a, &mf, pass ? NULL : pt, &got, &n, &err), &err);
    CHECK_EQ(n, 1);
    CHECK_EQ(got[0].file.npartition, 15);
    for (int i = 0; i < 15; i++) {
      const ty_value_t *g = &got[0].file.partition[i];
      if (g->is_null || g->kind != v[i].kind || ty_value_cmp(g, &v[i]) != 0) {
        t_fail(__FILE__, __LINE__, "partition field %s (pass %d) differs", pt->fields[i].name,
               pass);
        return;
      }
    }
  }
  fl_arena_free(a);
}

/* Writes n entries of a hand-made minimal manifest_entry schema with the
 * given statuses; without with_count the schema lacks record_count. */
static int write_custom(const char *path, const int32_t *status, int n, bool with_count,
                        fl_err_t *err) {
  fl_arena_t *a = fl_arena_new(0);
  char text[1024];
  snprintf(text, sizeof text,
           "{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":["
           "{\"name\":\"status\",\"type\":\"int\",\"field-id\":0},"
           "{\"name\":\"data_file\",\"field-id\":2,\"type\":{\"type\":\"record\",\"name\":\"r2\","
           "\"fields\":[{\"name\":\"file_path\",\"type\":\"string\",\"field-id\":100},"
           "{\"name\":\"file_format\",\"type\":\"string\",\"field-id\":101},"
           "{\"name\":\"partition\",\"field-id\":102,\"type\":{\"type\":\"record\",\"name\":"
           "\"r102\",\"fields\":[]}},%s"
           "{\"name\":\"file_size_in_bytes\",\"type\":\"long\",\"field-id\":104}]}}]}",
           with_count ? "{\"name\":\"record_count\",\"type\":\"long\",\"field-id\":103}," : "");
  av_schema_t *s;
  int rc = av_schema_parse(a, text, strlen(text), &s, err);
  io_writer_t *out;
  if (!rc) rc = io_local_fs()->create(io_local_fs(), path, false, &out, err);
  av_writer_t *w = NULL;
  av_writer_opts_t o = {.codec = AV_CODEC_NULL};
  if (!rc) rc = av_writer_open(out, s, &o, &w, err);
  for (int i = 0; !rc && i < n; i++) {
    av_value_t *rec = av_value_record(a, s);
    av_value_t *df = av_value_record(a, s->fields[1].type);
    av_record_set(rec, "status", av_value_int(a, status[i]), err);
    av_record_set(df, "file_path", av_value_string(a, "/t/x.parquet"), err);
    av_record_set(df, "file_format", av_value_string(a, "PARQUET"), err);
    av_record_set(df, "partition", av_value_record(a, df->schema->fields[2].type), err);
    if (with_count) av_record_set(df, "record_count", av_value_long(a, 5), err);
    av_record_set(df, "file_size_in_bytes", av_value_long(a, 50), err);
    av_record_set(rec, "data_file", df, err);
    rc = av_writer_write_value(w, rec, err);
  }
  if (w) {
    if (rc)
      av_writer_abort(w);
    else
      rc = av_writer_finish(w, err);
  }
  fl_arena_free(a);
  return rc;
}

TEST(minimal_and_invalid_entries) {
  fl_err_t err = {0};
  fl_arena_t *a = fl_arena_new(0);
  const char *p = tmp("custom.avro");
  int32_t st[3] = {1, 0, 7};
  /* A bare schema (no format-version key, no sequence numbers) reads as v1. */
  CHECK_OK(write_custom(p, st, 2, true, &err), &err);
  ice_manifest_file_t mf;
  memset(&mf, 0, sizeof mf);
  mf.path = p;
  mf.added_snapshot_id = 44;
  mf.sequence_number = 3;
  mf.first_row_id = -1;
  ice_manifest_entry_t *es;
  size_t n;
  CHECK_OK(ice_manifest_read(io_local_fs(), a, &mf, NULL, &es, &n, &err), &err);
  CHECK_EQ(n, 2);
  CHECK_EQ(es[1].status, ICE_STATUS_EXISTING);
  CHECK_EQ(es[0].snapshot_id, 44);
  CHECK_EQ(es[0].sequence_number, 0);
  CHECK_EQ(es[0].file.record_count, 5);
  CHECK_EQ(es[0].file.ncols, 0);
  CHECK_EQ(es[0].file.sort_order_id, -1);
  /* A status outside 0..2 names the entry. */
  CHECK_OK(write_custom(p, st, 3, true, &err), &err);
  CHECK_ERR(ice_manifest_read(io_local_fs(), a, &mf, NULL, &es, &n, &err), FL_ECORRUPT);
  CHECK(strstr(err.msg, "custom.avro") && strstr(err.msg, "entry 2") &&
        strstr(err.msg, "status 7"));
  /* A required field missing from the schema. */
  CHECK_OK(write_custom(p, st, 1, false, &err), &err);
  CHECK_ERR(ice_manifest_read(io_local_fs(), a, &mf, NULL, &es, &n, &err), FL_ECORRUPT);
  CHECK(strstr(err.msg, "entry 0") && strstr(err.msg, "record_count"));
  fl_arena_free(a);
}

TEST(v3_list_assigns_first_row_ids_to_new_data_manifests) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ice_manifest_file_t mf[4];
  memset(mf, 0, sizeof mf);
  for (int i = 0; i < 4; i++) {
    mf[i].path = fl_arena_sprintf(a, "/t/m%d.avro", i);
    mf[i].length = 100;
    mf[i].sequence_number = -1;
    mf[i].min_sequence_number = -1;
    mf[i].added_snapshot_id = -1;
    mf[i].first_row_id = -1;
  }
  mf[0].added_rows = 10, mf[0].existing_rows = 5;  /* new: 100 .. 114 */
  mf[1].content = 1, mf[1].added_rows = 7;         /* deletes: no ids */
  mf[2].first_row_id = 40, mf[2].added_rows = 3;   /* kept as it is */
  mf[3].added_rows = 7;                            /* new: 115 .. 121 */
  const char *lpath = tmp("snap-v3-assign.avro");
  int64_t assigned = -1;
  CHECK_OK(ice_manifest_list_write(io_local_fs(), lpath, 3, 8, 7, 2, 100, mf, 4, &assigned, NULL, &err),
           &err);
  CHECK_EQ(assigned, 22);
  CHECK_EQ(mf[0].first_row_id, -1); /* the input is left alone for retries */
  ice_manifest_file_t *ls;
  size_t nl;
  CHECK_OK(ice_manifest_list_read(io_local_fs(), a, lpath, &ls, &nl, &err), &err);
  CHECK_EQ(nl, 4);
  CHECK_EQ(ls[0].first_row_id, 100);
  CHECK_EQ(ls[1].first_row_id, -1);
  CHECK_EQ(ls[2].first_row_id, 40);
  CHECK_EQ(ls[3].first_row_id, 115);
  /* Unpartitioned manifests get an empty summary list, not null (Spark's
   * manifests table fails on null). */
  for (int i = 0; i < 4; i++) {
    CHECK(ls[i].partitions != NULL);
    CHECK_EQ(ls[i].npartitions, 0);
  }
  /* v2 lists carry no ids, whatever is asked. */
  lpath = tmp("snap-v2-assign.avro");
  CHECK_OK(ice_manifest_list_write(io_local_fs(), lpath, 2, 8, 7, 2, 100, mf, 4, &assigned, NULL, &err),
           &err);
  CHECK_EQ(assigned, 0);
  CHECK_OK(ice_manifest_list_read(io_local_fs(), a, lpath, &ls, &nl, &err), &err);
  CHECK_EQ(ls[0].first_row_id, -1);
  fl_arena_free(a);
}
