/*
 * test_schema_json.c - Iceberg schemas and types as JSON: every primitive
 * spelling, nested types with their ids, docs and defaults, identifier
 * fields, and the errors malformed or unsupported schemas give.
 */
#include <stdlib.h>
#include <string.h>

#include "iceberg/ice_meta_int.h"
#include "iceberg/ice_schema_json.h"
#include "test.h"

static int parse_schema(fl_arena_t *a, const char *text, ty_schema_t **out, fl_err_t *err) {
  return ice_schema_from_text(a, text, strlen(text), "test schema", out, err);
}

/* The JSON text of a type, compact (caller frees). */
static char *type_text(const ty_type_t *t) {
  json_t *j = ice_type_to_json(t);
  char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
  json_decref(j);
  return s;
}

static int parse_type_text(fl_arena_t *a, const char *text, const ty_type_t **out, fl_err_t *err) {
  json_error_t je;
  json_t *j = json_loads(text, JSON_DECODE_ANY, &je);
  if (!j) return fl_err_set(err, FL_EPARSE, "bad test JSON %s", text);
  int rc = ice_type_from_json(a, j, "test type", out, err);
  json_decref(j);
  return rc;
}

TEST(primitive_spellings_round_trip) {
  static const struct {
    const char *in, *out;
    ty_kind_t kind;
  } cases[] = {
      {"\"boolean\"", "\"boolean\"", TY_BOOLEAN},
      {"\"int\"", "\"int\"", TY_INT},
      {"\"long\"", "\"long\"", TY_LONG},
      {"\"float\"", "\"float\"", TY_FLOAT},
      {"\"double\"", "\"double\"", TY_DOUBLE},
      {"\"date\"", "\"date\"", TY_DATE},
      {"\"time\"", "\"time\"", TY_TIME},
      {"\"timestamp\"", "\"timestamp\"", TY_TIMESTAMP},
      {"\"timestamptz\"", "\"timestamptz\"", TY_TIMESTAMPTZ},
      {"\"timestamp_ns\"", "\"timestamp_ns\"", TY_TIMESTAMP_NS},
      {"\"timestamptz_ns\"", "\"timestamptz_ns\"", TY_TIMESTAMPTZ_NS},
      {"\"string\"", "\"string\"", TY_STRING},
      {"\"uuid\"", "\"uuid\"", TY_UUID},
      {"\"binary\"", "\"binary\"", TY_BINARY},
      {"\"Long\"", "\"long\"", TY_LONG},
      {"\"decimal(9,2)\"", "\"decimal(9, 2)\"", TY_DECIMAL},
      {"\"decimal( 38 , 0 )\"", "\"decimal(38, 0)\"", TY_DECIMAL},
      {"\"fixed[16]\"", "\"fixed[16]\"", TY_FIXED},
      {"\"fixed[ 3 ]\"", "\"fixed[3]\"", TY_FIXED},
  };
  fl_arena_t *a = fl_arena_new(0);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    fl_err_t err = {0};
    const ty_type_t *t;
    CHECK_OK(parse_type_text(a, cases[i].in, &t, &err), &err);
    CHECK_EQ(t->kind, cases[i].kind);
    char *s = type_text(t);
    CHECK_STR(s, cases[i].out);
    free(s);
  }
  fl_err_t err = {0};
  const ty_type_t *t;
  CHECK_OK(parse_type_text(a, "\"decimal(10,3)\"", &t, &err), &err);
  CHECK_EQ(t->precision, 10);
  CHECK_EQ(t->scale, 3);
  CHECK_OK(parse_type_text(a, "\"fixed[7]\"", &t, &err), &err);
  CHECK_EQ(t->length, 7);
  fl_arena_free(a);
}

TEST(malformed_and_unknown_types) {
  fl_arena_t *a = fl_arena_new(0);
  static const char *corrupt[] = {"\"decimal(39,2)\"",
                                  "\"decimal(5,6)\"",
                                  "\"decimal(0,0)\"",
                                  "\"decimal(9)\"",
                                  "\"decimal(9,2\"",
                                  "\"fixed[0]\"",
                                  "\"fixed[x]\"",
                                  "\"fixed[4]x\"",
                                  "7",
                                  "{\"type\": \"list\", \"element-id\": 1, \"element\": \"int\"}",
                                  "{\"type\": \"map\", \"key-id\": 1, \"key\": \"int\", "
                                  "\"value-id\": 2, \"value\": \"int\"}"};
  for (size_t i = 0; i < sizeof corrupt / sizeof *corrupt; i++) {
    fl_err_t err = {0};
    const ty_type_t *t;
    CHECK_ERR(parse_type_text(a, corrupt[i], &t, &err), FL_ECORRUPT);
  }
  static const char *unknown[] = {"\"unknown\"", "\"variant\"", "\"geometry\"",
                                  "{\"type\": \"variant\"}"};
  for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++) {
    fl_err_t err = {0};
    const ty_type_t *t;
    CHECK_ERR(parse_type_text(a, unknown[i], &t, &err), FL_EUNSUPPORTED);
  }
  /* A field of an unknown type is named in the message. */
  fl_err_t err = {0};
  ty_schema_t *s;
  CHECK_ERR(parse_schema(a,
                         "{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":"
                         "true,\"type\":\"int\"},{\"id\":2,\"name\":\"v\",\"required\":false,"
                         "\"type\":\"variant\"}]}",
                         &s, &err),
            FL_EUNSUPPORTED);
  CHECK(strstr(err.msg, "'v'") && strstr(err.msg, "variant") && strstr(err.msg, "fields[1]"));
  fl_arena_free(a);
}

static const char *nested_schema =
    "{\"type\":\"struct\",\"schema-id\":3,\"identifier-field-ids\":[1,7],\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\",\"doc\":\"the key\"},"
    "{\"id\":2,\"name\":\"tags\",\"required\":false,\"type\":{\"type\":\"list\","
    "\"element-id\":4,\"element\":\"string\",\"element-required\":true}},"
    "{\"id\":3,\"name\":\"attrs\",\"required\":false,\"type\":{\"type\":\"map\",\"key-id\":5,"
    "\"key\":\"string\",\"value-id\":6,\"value\":{\"type\":\"struct\",\"fields\":[{\"id\":9,"
    "\"name\":\"n\",\"required\":false,\"type\":\"decimal(9, 2)\",\"initial-default\":\"14.20\","
    "\"write-default\":\"0.00\"}]},\"value-required\":false}},"
    "{\"id\":8,\"name\":\"point\",\"required\":true,\"type\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":7,\"name\":\"x\",\"required\":true,\"type\":\"double\"},"
    "{\"id\":10,\"name\":\"when\",\"required\":false,\"type\":\"timestamptz\","
    "\"initial-default\":\"2017-11-16T22:31:08.000001+00:00\"}]},\"initial-default\":{}},"
    "{\"id\":11,\"name\":\"flag\",\"required\":false,\"type\":\"boolean\",\"write-default\":true},"
    "{\"id\":12,\"name\":\"h\",\"required\":false,\"type\":\"fixed[2]\",\"initial-default\":"
    "\"0aff\"}"
    "]}";

TEST(nested_schema_with_ids_docs_and_defaults) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ty_schema_t *s;
  CHECK_OK(parse_schema(a, nested_schema, &s, &err), &err);
  CHECK_EQ(s->schema_id, 3);
  CHECK_EQ(s->root.nfields, 6);
  CHECK_EQ(s->nidentifiers, 2);
  CHECK_EQ(s->identifier_ids[0], 1);
  CHECK_EQ(s->identifier_ids[1], 7);
  const ty_field_t *id = &s->root.fields[0];
  CHECK_STR(id->doc, "the key");
  CHECK(id->required);
  const ty_field_t *tags = &s->root.fields[1];
  CHECK_EQ(tags->type->kind, TY_LIST);
  CHECK_EQ(tags->type->fields[0].id, 4);
  CHECK(tags->type->fields[0].required);
  const ty_field_t *attrs = &s->root.fields[2];
  CHECK_EQ(attrs->type->kind, TY_MAP);
  CHECK_EQ(attrs->type->fields[0].id, 5);
  CHECK_EQ(attrs->type->fields[1].id, 6);
  CHECK(!attrs->type->fields[1].required);
  const ty_field_t *n = ty_schema_find_id(s, 9);
  CHECK(n && n->initial_default && n->write_default);
  CHECK(n->initial_default->u.i128 == 1420);
  CHECK(n->write_default->u.i128 == 0);
  const ty_field_t *point = ty_schema_find_id(s, 8);
  CHECK(point->initial_default && point->initial_default->kind == TY_STRUCT);
  const ty_field_t *when = ty_schema_find_id(s, 10);
  CHECK_EQ(when->initial_default->u.i64, 1510871468000001LL);
  CHECK(ty_schema_find_id(s, 11)->write_default->u.b);
  const ty_value_t *h = ty_schema_find_id(s, 12)->initial_default;
  CHECK_EQ(h->u.bytes.n, 2);
  CHECK_EQ(h->u.bytes.p[1], 0xff);

  /* Written and read back: equal in everything, and the same text. */
  fl_buf_t b1, b2;
  fl_buf_init(&b1);
  fl_buf_init(&b2);
  ice_schema_to_text(s, &b1);
  ty_schema_t *s2;
  CHECK_OK(ice_schema_from_text(a, (const char *)b1.data, b1.len, "again", &s2, &err), &err);
  CHECK(ice__schema_same(s, s2));
  CHECK_EQ(s2->schema_id, 3);
  ice_schema_to_text(s2, &b2);
  CHECK_EQ(b1.len, b2.len);
  CHECK_MEM(b1.data, b2.data, b1.len);
  CHECK(strstr((const char *)b1.data, "\"initial-default\":\"14.20\""));
  CHECK(strstr((const char *)b1.data, "\"element-required\":true"));
  /* A copy in another arena is the same schema. */
  fl_arena_t *a2 = fl_arena_new(0);
  ty_schema_t *c = ice__schema_copy(a2, s);
  fl_arena_free(a);
  fl_buf_t b3;
  fl_buf_init(&b3);
  ice_schema_to_text(c, &b3);
  CHECK_EQ(b3.len, b2.len);
  CHECK_MEM(b3.data, b2.data, b2.len);
  fl_buf_free(&b1);
  fl_buf_free(&b2);
  fl_buf_free(&b3);
  fl_arena_free(a2);
}

TEST(schema_differences_are_seen) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ty_schema_t *x, *y;
  const char *base =
      "{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,"
      "\"type\":\"int\"%s}]}";
  char t1[256], t2[256];
  snprintf(t1, sizeof t1, base, "");
  snprintf(t2, sizeof t2, base, ",\"doc\":\"d\"");
  CHECK_OK(parse_schema(a, t1, &x, &err), &err);
  CHECK_OK(parse_schema(a, t2, &y, &err), &err);
  CHECK(ice__schema_same(x, x));
  CHECK(!ice__schema_same(x, y));
  snprintf(t2, sizeof t2, base, ",\"initial-default\":3");
  CHECK_OK(parse_schema(a, t2, &y, &err), &err);
  CHECK(!ice__schema_same(x, y));
  CHECK_EQ(ty_schema_find_id(y, 1)->initial_default->u.i32, 3);
  fl_arena_free(a);
}

TEST(bad_schemas_are_rejected) {
  static const struct {
    const char *text;
    int code;
    const char *needle;
  } cases[] = {
      {"{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":"
       "\"int\"},{\"id\":1,\"name\":\"b\",\"required\":true,\"type\":\"int\"}]}",
       FL_ECORRUPT, "id 1"},
      {"{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"a\",\"type\":\"int\"}]}", FL_ECORRUPT,
       "fields[0].required"},
      {"{\"type\":\"struct\",\"fields\":[{\"id\":\"1\",\"name\":\"a\",\"required\":true,\"type\":"
       "\"int\"}]}",
       FL_ECORRUPT, "fields[0].id"},
      {"{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":7,\"required\":true,\"type\":\"int\"}]"
       "}",
       FL_ECORRUPT, "fields[0].name"},
      {"{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true}]}",
       FL_ECORRUPT, "fields[0].type"},
      {"{\"type\":\"struct\",\"fields\":{}}", FL_ECORRUPT, "fields"},
      {"{\"type\":\"list\",\"fields\":[]}", FL_ECORRUPT, "struct"},
      {"[]", FL_ECORRUPT, "schema object"},
      {"{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":"
       "\"int\",\"initial-default\":\"x\"}]}",
       FL_ECORRUPT, "initial-default"},
      {"{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":false,\"type\":"
       "{\"type\":\"list\",\"element-id\":2,\"element\":\"int\",\"element-required\":false},"
       "\"initial-default\":[1]}]}",
       FL_EUNSUPPORTED, "list"},
      {"{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":false,\"type\":"
       "{\"type\":\"struct\",\"fields\":[]},\"initial-default\":{\"1\":2}}]}",
       FL_ECORRUPT, "{}"},
      /* identifier fields: optional, nested in a list, absent, a struct */
      {"{\"type\":\"struct\",\"identifier-field-ids\":[1],\"fields\":[{\"id\":1,\"name\":\"a\","
       "\"required\":false,\"type\":\"int\"}]}",
       FL_ECORRUPT, "optional"},
      {"{\"type\":\"struct\",\"identifier-field-ids\":[3],\"fields\":[{\"id\":1,\"name\":\"a\","
       "\"required\":true,\"type\":{\"type\":\"list\",\"element-id\":3,\"element\":\"int\","
       "\"element-required\":true}}]}",
       FL_ECORRUPT, "3"},
      {"{\"type\":\"struct\",\"identifier-field-ids\":[9],\"fields\":[{\"id\":1,\"name\":\"a\","
       "\"required\":true,\"type\":\"int\"}]}",
       FL_ECORRUPT, "9"},
      {"{\"type\":\"struct\",\"identifier-field-ids\":[1],\"fields\":[{\"id\":1,\"name\":\"a\","
       "\"required\":true,\"type\":{\"type\":\"struct\",\"fields\":[]}}]}",
       FL_ECORRUPT, "primitive"},
      {"{\"type\":\"struct\",\"identifier-field-ids\":[2],\"fields\":[{\"id\":1,\"name\":\"a\","
       "\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":[{\"id\":2,\"name\":\"b\","
       "\"required\":true,\"type\":\"int\"}]}}]}",
       FL_ECORRUPT, "optional"},
      {"{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":tr", FL_ECORRUPT,
       "invalid JSON"},
  };
  fl_arena_t *a = fl_arena_new(0);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    fl_err_t err = {0};
    ty_schema_t *s;
    int rc = parse_schema(a, cases[i].text, &s, &err);
    if (rc != cases[i].code || !strstr(err.msg, cases[i].needle))
      t_fail(__FILE__, __LINE__, "case %zu: got %s \"%s\"", i, fl_code_name(rc), err.msg);
  }
  /* Identifier fields inside required structs are fine. */
  fl_err_t err = {0};
  ty_schema_t *s;
  CHECK_OK(parse_schema(a,
                        "{\"type\":\"struct\",\"identifier-field-ids\":[2],\"fields\":[{\"id\":1,"
                        "\"name\":\"a\",\"required\":true,\"type\":{\"type\":\"struct\",\"fields\":"
                        "[{\"id\":2,\"name\":\"b\",\"required\":true,\"type\":\"int\"}]}}]}",
                        &s, &err),
           &err);
  fl_arena_free(a);
}

TEST(every_prefix_of_a_schema_fails_cleanly) {
  fl_arena_t *a = fl_arena_new(0);
  size_t n = strlen(nested_schema);
  for (size_t i = 0; i < n; i++) {
    fl_err_t err = {0};
    ty_schema_t *s;
    int rc = ice_schema_from_text(a, nested_schema, i, "prefix", &s, &err);
    CHECK(rc == FL_ECORRUPT);
  }
  fl_arena_free(a);
}
