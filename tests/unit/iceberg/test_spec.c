/*
 * test_spec.c - partition specs and sort orders: the CLI spellings and
 * their errors, partition field ids and names (Java's and PyIceberg's
 * rules), partition tuple types, compatibility, and partition paths
 * escaped as Java's URLEncoder escapes them.
 */
#include <stdlib.h>
#include <string.h>

#include "iceberg/ice_spec.h"
#include "test.h"

static const char *SCHEMA =
    "id long not null, ts timestamp, tz timestamptz, d date, name string, price decimal(10,2), "
    "x double, b binary, u uuid, p struct<q: int, r: string>";

static ty_schema_t *schema_of(fl_arena_t *a, const char *text) {
  ty_schema_t *s = NULL;
  fl_err_t err = {0};
  if (ty_schema_parse(a, text, &s, &err)) {
    fprintf(stderr, "schema: %s\n", err.msg);
    abort();
  }
  return s;
}

static const char *transform_text(fl_arena_t *a, const ice_transform_t *t) {
  fl_buf_t b;
  fl_buf_init(&b);
  ice_transform_format(t, &b);
  const char *s = fl_arena_strndup(a, (const char *)b.data, b.len);
  fl_buf_free(&b);
  return s;
}

/* "name:source_id:field_id:transform; ..." of a parsed spec, or "ERR code: msg". */
static const char *spec_desc(fl_arena_t *a, const ty_schema_t *s, const char *text, int32_t *last) {
  ice_spec_t *spec;
  fl_err_t err = {0};
  int rc = ice_spec_parse(a, text, s, 7, last, &spec, &err);
  if (rc) return fl_arena_sprintf(a, "ERR %s: %s", fl_code_name(rc), err.msg);
  const char *out = "";
  for (uint32_t i = 0; i < spec->nfields; i++) {
    const ice_partition_field_t *f = &spec->fields[i];
    out = fl_arena_sprintf(a, "%s%s%s:%d:%d:%s", out, i ? "; " : "", f->name, f->source_id,
                           f->field_id, transform_text(a, &f->transform));
  }
  return out;
}

static bool contains(const char *s, const char *part) { return s && strstr(s, part) != NULL; }

TEST(spec_parse_fields_and_ids) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s = schema_of(a, SCHEMA);
  int32_t last = 999;
  CHECK_STR(spec_desc(a, s, "day(ts), bucket(16, id), name", &last),
            "ts_day:2:1000:day; id_bucket_16:1:1001:bucket[16]; name:5:1002:identity");
  CHECK_EQ(last, 1002);
  /* New fields continue after the table's last partition id. */
  CHECK_STR(spec_desc(a, s, "truncate(4, name), year(d), month(tz), hour(ts)", &last),
            "name_trunc_4:5:1003:truncate[4]; d_year:4:1004:year; tz_month:3:1005:month; "
            "ts_hour:2:1006:hour");
  CHECK_EQ(last, 1006);
  /* Below 1000 (a fresh table, or 0 from old metadata) starts at 1000. */
  last = 0;
  CHECK_STR(spec_desc(a, s, "identity(id)", &last), "id:1:1000:identity");
  /* Both argument orders, case, spaces, nested columns. */
  last = 999;
  CHECK_STR(spec_desc(a, s, " BUCKET( id , 8 ) ,Truncate(name, 2), p.q , void(x)", &last),
            "id_bucket_8:1:1000:bucket[8]; name_trunc_2:5:1001:truncate[2]; p.q:11:1002:identity; "
            "x_null:7:1003:void");
  /* Two transforms of one column are fine. */
  last = 999;
  CHECK_STR(spec_desc(a, s, "day(ts), bucket(4, ts)", &last),
            "ts_day:2:1000:day; ts_bucket_4:2:1001:bucket[4]");
  /* The empty list is the unpartitioned spec. */
  last = 999;
  CHECK_STR(spec_desc(a, s, "", &last), "");
  CHECK_STR(spec_desc(a, s, "   ", &last), "");
  CHECK_EQ(last, 999);
  fl_arena_free(a);
}

TEST(spec_parse_errors) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s = schema_of(a, SCHEMA);
  int32_t last = 1010;
  const char *m;
  m = spec_desc(a, s, "day(nope)", &last);
  CHECK(contains(m, "ERR NOTFOUND") && contains(m, "no column named nope"));
  m = spec_desc(a, s, "day(id)", &last);
  CHECK(contains(m, "ERR INVALID") && contains(m, "day cannot apply to column id of type long"));
  m = spec_desc(a, s, "bucket(4, x)", &last);
  CHECK(contains(m, "bucket[4] cannot apply to column x of type double"));
  m = spec_desc(a, s, "truncate(4, ts)", &last);
  CHECK(contains(m, "cannot apply to column ts"));
  m = spec_desc(a, s, "p", &last);
  CHECK(contains(m, "cannot apply to column p"));
  m = spec_desc(a, s, "bucket(0, id)", &last);
  CHECK(contains(m, "ERR PARSE"));
  m = spec_desc(a, s, "id, id", &last);
  CHECK(contains(m, "listed twice"));
  m = spec_desc(a, s, "bucket(4, id), bucket(id, 4)", &last);
  CHECK(contains(m, "listed twice"));
  m = spec_desc(a, s, "id,,name", &last);
  CHECK(contains(m, "empty item at byte 3"));
  m = spec_desc(a, s, "id,", &last);
  CHECK(contains(m, "empty item"));
  m = spec_desc(a, s, "bucket(4, id", &last);
  CHECK(contains(m, "unbalanced"));
  m = spec_desc(a, s, "frob(id)", &last);
  CHECK(contains(m, "ERR"));
  /* Failures leave the last partition id alone. */
  CHECK_EQ(last, 1010);
  /* A partition name may not shadow another column. */
  ty_schema_t *s2 = schema_of(a, "ts timestamp, ts_day date");
  m = spec_desc(a, s2, "day(ts)", &last);
  CHECK(contains(m, "partition field name ts_day is a column of the schema"));
  CHECK_STR(spec_desc(a, s2, "ts_day", &last), "ts_day:2:1011:identity");
  fl_arena_free(a);
}

TEST(spec_partition_type) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s = schema_of(a, SCHEMA);
  ice_spec_t *spec;
  fl_err_t err = {0};
  int32_t last = 999;
  CHECK_OK(ice_spec_parse(a,
                          "day(ts), bucket(16, id), name, truncate(4, price), month(d), year(tz), "
                          "hour(ts), void(x), truncate(3, b), bucket(2, u)",
                          s, 3, &last, &spec, &err),
           &err);
  CHECK_EQ(spec->spec_id, 3);
  const ty_type_t *pt;
  CHECK_OK(ice_spec_partition_type(a, spec, s, &pt, &err), &err);
  CHECK_EQ(pt->kind, TY_STRUCT);
  CHECK_EQ(pt->nfields, 10);
  const ty_kind_t want[] = {TY_DATE, TY_INT, TY_STRING, TY_DECIMAL, TY_INT,
                            TY_INT,  TY_INT, TY_DOUBLE, TY_BINARY,  TY_INT};
  for (uint32_t i = 0; i < pt->nfields; i++) {
    CHECK_EQ(pt->fields[i].type->kind, want[i]);
    CHECK_EQ(pt->fields[i].id, 1000 + (int)i);
    CHECK_STR(pt->fields[i].name, spec->fields[i].name);
    CHECK(!pt->fields[i].required);
  }
  CHECK_EQ(pt->fields[3].type->precision, 10);
  CHECK_EQ(pt->fields[3].type->scale, 2);
  CHECK(!ice_spec_is_unpartitioned(spec));
  /* A dropped source column: void still types (as int), others fail. */
  ty_schema_t *dropped = schema_of(a, "id long not null");
  ice_spec_t vs = {.spec_id = 1, .nfields = 1,
                   .fields = &(ice_partition_field_t){.source_id = 9, .field_id = 1000,
                                                      .name = "x_null",
                                                      .transform = {.kind = ICE_T_VOID}}};
  CHECK_OK(ice_spec_partition_type(a, &vs, dropped, &pt, &err), &err);
  CHECK_EQ(pt->fields[0].type->kind, TY_INT);
  CHECK(ice_spec_is_unpartitioned(&vs));
  vs.fields[0].transform.kind = ICE_T_DAY;
  CHECK_ERR(ice_spec_partition_type(a, &vs, dropped, &pt, &err), FL_EINVALID);
  CHECK(contains(err.msg, "source column id 9"));
  /* A transform that no longer applies (type changed) fails by name. */
  vs.fields[0].source_id = 1;
  CHECK_ERR(ice_spec_partition_type(a, &vs, dropped, &pt, &err), FL_EINVALID);
  CHECK(contains(err.msg, "x_null") && contains(err.msg, "cannot apply"));
  /* Unknown transforms type as string. */
  vs.fields[0].transform = (ice_transform_t){.kind = ICE_T_UNKNOWN, .text = "zorder"};
  CHECK_OK(ice_spec_partition_type(a, &vs, dropped, &pt, &err), &err);
  CHECK_EQ(pt->fields[0].type->kind, TY_STRING);
  /* The empty spec types as an empty struct. */
  ice_spec_t empty = {0};
  CHECK(ice_spec_is_unpartitioned(&empty));
  CHECK_OK(ice_spec_partition_type(a, &empty, s, &pt, &err), &err);
  CHECK_EQ(pt->nfields, 0);
  fl_arena_free(a);
}

TEST(spec_compatible) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s = schema_of(a, SCHEMA);
  ice_spec_t *x, *y, *z, *w;
  fl_err_t err = {0};
  int32_t last = 999;
  CHECK_OK(ice_spec_parse(a, "day(ts), bucket(16, id)", s, 0, &last, &x, &err), &err);
  CHECK_OK(ice_spec_parse(a, "day(ts), bucket(id, 16)", s, 1, &last, &y, &err), &err);
  CHECK_OK(ice_spec_parse(a, "day(ts), bucket(8, id)", s, 2, &last, &z, &err), &err);
  CHECK_OK(ice_spec_parse(a, "bucket(16, id), day(ts)", s, 3, &last, &w, &err), &err);
  CHECK(ice_spec_compatible(x, y)); /* same fields, other ids */
  CHECK(x->fields[0].field_id != y->fields[0].field_id);
  CHECK(!ice_spec_compatible(x, z));
  CHECK(!ice_spec_compatible(x, w)); /* order matters */
  ice_spec_t one = {.nfields = 1, .fields = x->fields};
  CHECK(!ice_spec_compatible(x, &one));
  fl_arena_free(a);
}

static const char *order_desc(fl_arena_t *a, const ty_schema_t *s, const char *text) {
  ice_sort_order_t *o;
  fl_err_t err = {0};
  int rc = ice_sort_order_parse(a, text, s, 1, &o, &err);
  if (rc) return fl_arena_sprintf(a, "ERR %s: %s", fl_code_name(rc), err.msg);
  const char *out = "";
  for (uint32_t i = 0; i < o->nfields; i++) {
    const ice_sort_field_t *f = &o->fields[i];
    out = fl_arena_sprintf(a, "%s%s%s(%d) %s %s", out, i ? ", " : "", transform_text(a, &f->transform),
                           f->source_id, f->descending ? "desc" : "asc",
                           f->nulls_first ? "nulls-first" : "nulls-last");
  }
  return out;
}

TEST(sort_order_parse) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s = schema_of(a, SCHEMA);
  CHECK_STR(order_desc(a, s, "id, ts DESC NULLS LAST, bucket(4, name)"),
            "identity(1) asc nulls-first, identity(2) desc nulls-last, bucket[4](5) asc nulls-first");
  /* Iceberg's defaults: ascending nulls first, descending nulls last. */
  CHECK_STR(order_desc(a, s, "id desc"), "identity(1) desc nulls-last");
  CHECK_STR(order_desc(a, s, "id asc"), "identity(1) asc nulls-first");
  CHECK_STR(order_desc(a, s, "id nulls last"), "identity(1) asc nulls-last");
  CHECK_STR(order_desc(a, s, "id DESC nulls FIRST"), "identity(1) desc nulls-first");
  CHECK_STR(order_desc(a, s, "day(ts) desc, truncate(2, name)"),
            "day(2) desc nulls-last, truncate[2](5) asc nulls-first");
  CHECK_STR(order_desc(a, s, "p.q"), "identity(11) asc nulls-first");
  CHECK_STR(order_desc(a, s, ""), "");
  const char *m;
  m = order_desc(a, s, "id first");
  CHECK(contains(m, "ERR PARSE") && contains(m, "NULLS FIRST"));
  m = order_desc(a, s, "id last");
  CHECK(contains(m, "NULLS LAST"));
  m = order_desc(a, s, "nope desc");
  CHECK(contains(m, "no column named nope"));
  m = order_desc(a, s, "day(id)");
  CHECK(contains(m, "cannot apply"));
  m = order_desc(a, s, "id,,ts");
  CHECK(contains(m, "empty item"));
  fl_arena_free(a);
}

TEST(partition_path) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s = schema_of(a, "ts timestamp, id long, name string, \"a b/c\" int, u uuid");
  ice_spec_t *spec;
  fl_err_t err = {0};
  int32_t last = 999;
  CHECK_OK(ice_spec_parse(a, "day(ts), bucket(16, id), name, \"a b/c\", month(ts), hour(ts)", s, 0,
                          &last, &spec, &err),
           &err);
  const ty_type_t *pt;
  CHECK_OK(ice_spec_partition_type(a, spec, s, &pt, &err), &err);
  ty_value_t v[6] = {{.kind = TY_DATE, .u.i32 = 19727},
                     {.kind = TY_INT, .u.i32 = 3},
                     {.kind = TY_STRING, .u.bytes = {(const uint8_t *)"a b/c=d\xc3\xa9*", 10}},
                     {.kind = TY_INT, .is_null = true},
                     {.kind = TY_INT, .u.i32 = -1},
                     {.kind = TY_INT, .u.i32 = 13}};
  fl_buf_t b;
  fl_buf_init(&b);
  ice_spec_partition_path(spec, pt, v, &b);
  fl_buf_append_u8(&b, 0);
  CHECK_STR((const char *)b.data,
            "ts_day=2024-01-05/id_bucket_16=3/name=a+b%2Fc%3Dd%C3%A9*/a+b%2Fc=null/"
            "ts_month=1969-12/ts_hour=1970-01-01-13");
  fl_buf_free(&b);
  fl_arena_free(a);
}
