/*
 * test_evolve.c - schema and partition evolution: every operation, every
 * rule the reference implementation enforces (with the error it gives),
 * id assignment and reuse, the command-line parser, and commits through
 * an in-memory committer, including a lost race that re-applies the
 * change on the new head.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "iceberg/ice_evolve.h"
#include "iceberg/ice_evolve_int.h"
#include "io/fs.h"
#include "test.h"

#define NWORDS(...) ((int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *)))
#define WORDS(...) \
  NWORDS(__VA_ARGS__), (const char *const[]) { __VA_ARGS__ }

#define CHECK_MSG(err, text)                                                        \
  do {                                                                              \
    if (!strstr((err).msg, (text))) {                                               \
      t_fail(__FILE__, __LINE__, "message \"%s\" lacks \"%s\"", (err).msg, (text)); \
      return;                                                                       \
    }                                                                               \
  } while (0)

static ty_schema_t *schema_of(fl_arena_t *a, const char *text) {
  ty_schema_t *s = NULL;
  fl_err_t err = {0};
  if (ty_schema_parse(a, text, &s, &err)) {
    fprintf(stderr, "bad test schema %s: %s\n", text, err.msg);
    abort();
  }
  return s;
}

/* Parses the words and applies them to base (last column id = highest). */
static int evolve(fl_arena_t *a, const ty_schema_t *base, int fv, int n, const char *const *words,
                  ty_schema_t **out, int32_t *last, fl_err_t *err) {
  ice_evolve_op_t *ops;
  uint32_t nops;
  int rc = ice_evolve_parse(a, n, words, &ops, &nops, err);
  if (rc) return rc;
  int32_t l;
  return ice_schema_evolve(a, base, ty_schema_highest_id(base), fv, ops, nops, out,
                           last ? last : &l, err);
}

/* "name type, ..." as ty_schema_format writes it. */
static const char *text_of(fl_arena_t *a, const ty_schema_t *s) {
  fl_buf_t b;
  fl_buf_init(&b);
  ty_schema_format(s, &b);
  const char *r = fl_arena_strndup(a, (const char *)b.data, b.len);
  fl_buf_free(&b);
  return r;
}

/* "id=1 point=3 point.x=4 ..." for every field, in index order. */
static const char *ids_of(fl_arena_t *a, const ty_schema_t *s) {
  ice_field_index_t x;
  ice__field_index(a, &s->root, &x);
  const char *r = "";
  for (uint32_t i = 0; i < x.n; i++)
    r = fl_arena_sprintf(a, "%s%s%s=%d", r, i ? " " : "", x.refs[i].full, (int)x.refs[i].f->id);
  return r;
}

static const char *idents_of(fl_arena_t *a, const ty_schema_t *s) {
  const char *r = "";
  for (uint32_t i = 0; i < s->nidentifiers; i++)
    r = fl_arena_sprintf(a, "%s%s%d", r, i ? "," : "", (int)s->identifier_ids[i]);
  return r;
}

/* ---- add column ------------------------------------------------------- */

TEST(add_column_top_level_gets_next_id) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ty_schema_t *base = schema_of(a, "id long not null, data string"), *s;
  int32_t last;
  CHECK_OK(
      evolve(a, base, 2, WORDS("add-column", "c string", "add-column", "d int comment 'the d'"), &s,
             &last, &err),
      &err);
  CHECK_STR(text_of(a, s), "id long not null, data string, c string, d int");
  CHECK_STR(ids_of(a, s), "id=1 data=2 c=3 d=4");
  CHECK_EQ(last, 4);
  CHECK_STR(s->root.fields[3].doc, "the d");
  CHECK(!s->root.fields[2].required);
  /* Unquoted definitions spread over several words read the same. */
  CHECK_OK(
      evolve(a, base, 2, WORDS("add-column", "c", "string", "drop-column", "data"), &s, NULL, &err),
      &err);
  CHECK_STR(text_of(a, s), "id long not null, c string");
  fl_arena_free(a);
}

TEST(add_column_nested_type_gets_fresh_ids_struct_fields_first) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ty_schema_t *base = schema_of(a, "id long not null, data string"), *s;
  int32_t last;
  CHECK_OK(evolve(a, base, 2,
                  WORDS("add-column", "p struct<x: double, y: list<int>, z: map<string, long>>",
                        "add-column", "q int"),
                  &s, &last, &err),
           &err);
  /* p first, then its fields, then the list element, then map key and value; q after. */
  CHECK_STR(ids_of(a, s),
            "id=1 data=2 p=3 p.x=4 p.y=5 p.y.element=7 p.z=6 p.z.key=8 "
            "p.z.value=9 q=10");
  CHECK_EQ(last, 10);
  fl_arena_free(a);
}

TEST(add_column_into_struct_list_element_and_map_value) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ty_schema_t *base =
      schema_of(a,
                "id long, point struct<x: double, y: double>, locs list<struct<lat: double>>, "
                "m map<string, struct<v: int>>");
  ty_schema_t *s;
  /* v2: a required column with a default is refused. */
  CHECK_ERR(evolve(a, base, 2,
                   WORDS("add-column", "point.z double", "add-column",
                         "locs.alt double not null "
                         "default 0"),
                   &s, NULL, &err),
            FL_EINVALID);
  CHECK_MSG(err, "locs.element.alt");
  CHECK_MSG(err, "v3");
  CHECK_OK(evolve(a, base, 2,
                  WORDS("add-column", "point.z double", "add-column", "locs.alt double",
                        "add-column", "m.w string"),
                  &s, NULL, &err),
           &err);
  CHECK_STR(
      text_of(a, s),
      "id long, point struct<x: double, y: double, z: double>, "
      "locs list<struct<lat: double, alt: double>>, m map<string, struct<v: int, w: string>>");
  int32_t hi = ty_schema_highest_id(base);
  const ty_field_t *z = ty_schema_find_id(s, hi + 1), *alt = ty_schema_find_id(s, hi + 2),
                   *w = ty_schema_find_id(s, hi + 3);
  CHECK(z && alt && w);
  CHECK_STR(z->name, "z");
  CHECK_STR(alt->name, "alt");
  CHECK_STR(w->name, "w");
  fl_arena_free(a);
}

TEST(add_required_column_needs_default_and_v3) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ty_schema_t *base = schema_of(a, "id long not null"), *s;
  CHECK_ERR(evolve(a, base, 2, WORDS("add-column", "c string not null"), &s, NULL, &err),
            FL_EINVALID);
  CHECK_MSG(err, "cannot add required column without a default value: c");
  CHECK_ERR(evolve(a, base, 3, WORDS("add-column", "c string not null"), &s, NULL, &err),
            FL_EINVALID);
  CHECK_ERR(evolve(a, base, 2, WORDS("add-column", "c int not null default 7"), &s, NULL, &err),
            FL_EINVALID);
  CHECK_MSG(err, "not supported until v3");
  CHECK_OK(evolve(a, base, 3,
                  WORDS("add-column", "c int not null default 7 comment 'seven'", "add-column",
                        "d string default 'x y'"),
                  &s, NULL, &err),
           &err);
  const ty_field_t *c = &s->root.fields[1], *d = &s->root.fields[2];
  CHECK(c->required);
  CHECK(c->initial_default && c->write_default);
  CHECK_EQ(c->initial_default->u.i32, 7);
  CHECK_STR(c->doc, "seven");
  CHECK(!d->required);
  CHECK(d->initial_default && d->initial_default->u.bytes.n == 3);
  CHECK(memcmp(d->initial_default->u.bytes.p, "x y", 3) == 0);
  /* A default that does not fit the type. */
  CHECK(evolve(a, base, 3, WORDS("add-column", "e int default \"abc\""), &s, NULL, &err) != FL_OK);
  CHECK_MSG(err, "default");
  fl_arena_free(a);
}

TEST(add_column_errors) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ty_schema_t *base = schema_of(a, "id long, point struct<x: double>, tags list<string>"), *s;
  CHECK_ERR(evolve(a, base, 2, WORDS("add-column", "id int"), &s, NULL, &err), FL_EINVALID);
  CHECK_MSG(err, "name already exists: id");
  CHECK_ERR(evolve(a, base, 2, WORDS("add-column", "point.x int"), &s, NULL, &err), FL_EINVALID);
  CHECK_MSG(err, "name already exists: point.x");
  CHECK_ERR(
      evolve(a, base, 2, WORDS("add-column", "c int", "add-column", "c long"), &s, NULL, &err),
      FL_EINVALID);
  CHECK_ERR(evolve(a, base, 2, WORDS("add-column", "nope.x int"), &s, NULL, &err), FL_ENOTFOUND);
  CHECK_MSG(err, "Cannot find parent struct: nope");
  CHECK_ERR(evolve(a, base, 2, WORDS("add-column", "id.x int"), &s, NULL, &err), FL_EINVALID);
  CHECK_MSG(err, "Cannot add to non-struct column: id: long");
  CHECK_ERR(evolve(a, base, 2, WORDS("add-column", "tags.x int"), &s, NULL, &err), FL_EINVALID);
  CHECK_MSG(err, "non-struct column: tags");
  CHECK_ERR(evolve(a, base, 2, WORDS("drop-column", "point", "add-column", "point.y int"), &s, NULL,
                   &err),
            FL_EINVALID);
  CHECK_MSG(err, "Cannot add to a column that will be deleted: point");
  /* Dropping a column and adding one of the same name gives a new id. */
  CHECK_OK(
      evolve(a, base, 2, WORDS("drop-column", "id", "add-column", "id string"), &s, NULL, &err),
      &err);
  CHECK_STR(text_of(a, s), "point struct<x: double>, tags list<string>, id string");
  CHECK_EQ(s->root.fields[2].id, ty_schema_highest_id(base) + 1);
  /* A quoted name keeps its dot. */
  CHECK_OK(evolve(a, base, 2, WORDS("add-column", "\"a.b\" int"), &s, NULL, &err), &err);
  CHECK_STR(s->root.fields[3].name, "a.b");
  fl_arena_free(a);
}

/* ---- drop column ------------------------------------------------------ */

TEST(drop_column_rules) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ty_schema_t *base = schema_of(a,
                                "id long not null, p struct<x: double, y: double>, tags list<int>, "
                                "m map<string, int>, data string");
  ty_schema_t *s;
  CHECK_OK(evolve(a, base, 2, WORDS("drop-column", "data", "drop-column", "p.x"), &s, NULL, &err),
           &err);
  CHECK_STR(text_of(a, s),
            "id long not null, p struct<y: double>, tags list<int>, m map<string, int>");
  CHECK_ERR(evolve(a, base, 2, WORDS("drop-column", "nope"), &s, NULL, &err), FL_ENOTFOUND);
  CHECK_MSG(err, "Cannot delete missing column: nope");
  CHECK_ERR(evolve(a, base, 2, WORDS("drop-column", "m.key"), &s, NULL, &err), FL_EINVALID);
  CHECK_MSG(err, "Cannot delete map keys");
  CHECK_ERR(evolve(a, base, 2, WORDS("drop-column", "m.value"), &s, NULL, &err), FL_EINVALID);
  CHECK_ERR(evolve(a, base, 2, WORDS("drop-column", "tags.element"), &s, NULL, &err), FL_EINVALID);
  CHECK_MSG(err, "Cannot delete element type from list");
  CHECK_ERR(evolve(a, base, 2, WORDS("add-column", "p.z int", "drop-column", "p"), &s, NULL, &err),
            FL_EINVALID);
  CHECK_MSG(err, "Cannot delete a column that has additions: p");
  CHECK_ERR(evolve(a, base, 2, WORDS("rename-column", "data", "d", "drop-column", "data"), &s, NULL,
                   &err),
            FL_EINVALID);
  CHECK_MSG(err, "Cannot delete a column that has updates: data");
  /* The last column of a struct may go (the reference allows empty structs). */
  CHECK_OK(evolve(a, base, 2, WORDS("drop-column", "p.x", "drop-column", "p.y"), &s, NULL, &err),
           &err);
  CHECK_EQ(s->root.fields[1].type->nfields, 0);
  fl_arena_free(a);
}

TEST(drop_identifier_field_needs_new_identifiers) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ty_schema_t *base =
      schema_of(a, "id long not null, k struct<a: int not null> not null, v string");
  ty_schema_t *s1, *s;
  CHECK_OK(evolve(a, base, 2, WORDS("set-identifier", "id,k.a"), &s1, NULL, &err), &err);
  CHECK_STR(idents_of(a, s1), "1,4");
  CHECK_ERR(evolve(a, s1, 2, WORDS("drop-column", "id"), &s, NULL, &err), FL_EINVALID);
  CHECK_MSG(err, "Cannot delete identifier field id");
  CHECK_ERR(evolve(a, s1, 2, WORDS("drop-column", "k"), &s, NULL, &err), FL_EINVALID);
  CHECK_MSG(err, "Cannot delete field k as it will delete nested identifier field k.a");
  CHECK_OK(evolve(a, s1, 2, WORDS("drop-column", "id", "set-identifier", "k.a"), &s, NULL, &err),
           &err);
  CHECK_STR(idents_of(a, s), "4");
  /* Renaming an identifier column keeps it an identifier field. */
  CHECK_OK(evolve(a, s1, 2, WORDS("rename-column", "id", "key"), &s, NULL, &err), &err);
  CHECK_STR(idents_of(a, s), "1,4");
  CHECK_STR(s->root.fields[0].name, "key");
  fl_arena_free(a);
}

/* ---- rename ------------------------------------------------------------ */

TEST(rename_column_rules) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ty_schema_t *base = schema_of(a, "a int, b int, p struct<x: int, y: int>, l list<int>"), *s;
  CHECK_OK(evolve(a, base, 2, WORDS("rename-column", "a", "aa", "rename-column", "p.x", "xx"), &s,
                  NULL, &err),
           &err);
  CHECK_STR(text_of(a, s), "aa int, b int, p struct<xx: int, y: int>, l list<int>");
  CHECK_STR(ids_of(a, s), "aa=1 b=2 p=3 p.xx=5 p.y=6 l=4 l.element=7");
  /* Swapping two names in one change is fine; a collision is not. */
  CHECK_OK(evolve(a, base, 2, WORDS("rename-column", "a", "b", "rename-column", "b", "a"), &s, NULL,
                  &err),
           &err);
  CHECK_STR(text_of(a, s), "b int, a int, p struct<x: int, y: int>, l list<int>");
  CHECK_ERR(evolve(a, base, 2, WORDS("rename-column", "a", "b"), &s, NULL, &err), FL_EINVALID);
  CHECK_MSG(err, "two columns named b");
  CHECK_ERR(evolve(a, base, 2, WORDS("rename-column", "p.x", "y"), &s, NULL, &err), FL_EINVALID);
  CHECK_MSG(err, "p would have two columns named y");
  /* The same name in another struct is no collision. */
  CHECK_OK(evolve(a, base, 2, WORDS("rename-column", "p.x", "a"), &s, NULL, &err), &err);
  CHECK_ERR(evolve(a, base, 2, WORDS("rename-column", "zz", "q"), &s, NULL, &err), FL_ENOTFOUND);
  CHECK_MSG(err, "Cannot rename missing column: zz");
  CHECK_ERR(
      evolve(a, base, 2, WORDS("drop-column", "a", "rename-column", "a", "q"), &s, NULL, &err),
      FL_EINVALID);
  CHECK_MSG(err, "Cannot rename a column that will be deleted: a");
  CHECK_ERR(evolve(a, base, 2, WORDS("rename-column", "l.element", "e"), &s, NULL, &err),
            FL_EINVALID);
  /* Names resolve in the base schema: the old name still finds the column. */
  CHECK_OK(evolve(a, base, 2, WORDS("rename-column", "a", "n", "update-column", "a", "long"), &s,
                  NULL, &err),
           &err);
  CHECK_STR(text_of(a, s), "n long, b int, p struct<x: int, y: int>, l list<int>");
  fl_arena_free(a);
}

/* ---- update type ------------------------------------------------------- */

TEST(update_column_allowed_promotions_only) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ty_schema_t *base =
      schema_of(a,
                "i int not null, f float, d decimal(9,2), s string, l long, tags list<int>, "
                "m map<int, int>");
  ty_schema_t *s;
  CHECK_OK(evolve(a, base, 2,
                  WORDS("update-column", "i", "long", "update-column", "f", "double",
                        "update-column", "d", "decimal(18,2)", "update-column", "tags.element",
                        "long", "update-column", "m.value", "long", "update-column", "s", "string"),
                  &s, NULL, &err),
           &err);
  CHECK_STR(text_of(a, s),
            "i long not null, f double, d decimal(18,2), s string, l long, "
            "tags list<long>, m map<int, long>");
  CHECK_STR(ids_of(a, s), ids_of(a, base));
  static const char *const bad[][3] = {
      {"l", "long", "int"},
      {"d", "decimal(9,2)", "decimal(9,3)"},
      {"d", "decimal(9,2)", "decimal(8,2)"},
      {"s", "string", "long"},
      {"f", "float", "long"},
      {"i", "int", "string"},
      {"i", "int", "double"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    CHECK_ERR(evolve(a, base, 2, WORDS("update-column", bad[k][0], bad[k][2]), &s, NULL, &err),
              FL_EINVALID);
    CHECK_MSG(err, fl_arena_sprintf(a, "Cannot change column type: %s: %s -> %s", bad[k][0],
                                    bad[k][1], bad[k][2]));
  }
  CHECK_ERR(evolve(a, base, 2, WORDS("update-column", "m.key", "long"), &s, NULL, &err),
            FL_EINVALID);
  CHECK_MSG(err, "map keys");
  CHECK_ERR(evolve(a, base, 2, WORDS("update-column", "i", "struct<x: int>"), &s, NULL, &err),
            FL_EINVALID);
  CHECK_ERR(evolve(a, base, 2, WORDS("update-column", "q", "long"), &s, NULL, &err), FL_ENOTFOUND);
  CHECK_ERR(
      evolve(a, base, 2, WORDS("drop-column", "i", "update-column", "i", "long"), &s, NULL, &err),
      FL_EINVALID);
  CHECK_MSG(err, "Cannot update a column that will be deleted: i");
  /* A column added in the same change can be promoted. */
  CHECK_OK(evolve(a, base, 2, WORDS("add-column", "n int", "update-column", "n", "long"), &s, NULL,
                  &err),
           &err);
  CHECK_EQ(s->root.fields[7].type->kind, TY_LONG);
  fl_arena_free(a);
}

/* ---- nullability and docs ---------------------------------------------- */

TEST(make_optional_and_required) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ty_schema_t *base = schema_of(a, "id long not null, v string, l list<int not null>"), *s;
  CHECK_OK(evolve(a, base, 2,
                  WORDS("make-optional", "id", "make-optional", "v", "make-optional", "l.element"),
                  &s, NULL, &err),
           &err);
  CHECK_STR(text_of(a, s), "id long, v string, l list<int>");
  CHECK_ERR(evolve(a, base, 2, WORDS("make-required", "v"), &s, NULL, &err), FL_EINVALID);
  CHECK_MSG(err, "Cannot change column nullability: v: optional -> required");
  /* Already required: nothing to do. */
  CHECK_OK(evolve(a, base, 2, WORDS("make-required", "id"), &s, NULL, &err), &err);
  CHECK_ERR(evolve(a, base, 2, WORDS("make-optional", "q"), &s, NULL, &err), FL_ENOTFOUND);
  /* v3: a column added with a default may become required. */
  CHECK_OK(evolve(a, base, 3, WORDS("add-column", "c int default 1", "make-required", "c"), &s,
                  NULL, &err),
           &err);
  CHECK(s->root.fields[3].required);
  CHECK_ERR(evolve(a, base, 3, WORDS("add-column", "c int", "make-required", "c"), &s, NULL, &err),
            FL_EINVALID);
  fl_arena_free(a);
}

TEST(update_doc) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ty_schema_t *base = schema_of(a, "id long comment 'old', v string"), *s;
  CHECK_OK(evolve(a, base, 2, WORDS("update-doc", "v", "the value", "update-doc", "id", ""), &s,
                  NULL, &err),
           &err);
  CHECK_STR(s->root.fields[1].doc, "the value");
  CHECK(s->root.fields[0].doc == NULL);
  CHECK_ERR(evolve(a, base, 2, WORDS("update-doc", "x", "d"), &s, NULL, &err), FL_ENOTFOUND);
  fl_arena_free(a);
}

/* ---- identifier fields ------------------------------------------------- */

TEST(identifier_field_rules) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ty_schema_t *base = schema_of(
      a,
      "id long not null, o string, f double not null, st struct<a: int not null> not null, "
      "ost struct<b: int not null>, l list<struct<c: int not null> not null> not null, "
      "m map<int, int> not null, fl float not null");
  ty_schema_t *s;
  CHECK_OK(evolve(a, base, 2, WORDS("set-identifier", "id, st.a"), &s, NULL, &err), &err);
  CHECK_EQ(s->nidentifiers, 2);
  CHECK_EQ(s->identifier_ids[0], 1);
  CHECK_EQ(ty_schema_find_id(s, s->identifier_ids[1])->name[0], 'a');
  static const struct {
    const char *name, *msg;
  } bad[] = {
      {"o", "not a required field"},
      {"f", "must not be float or double"},
      {"fl", "must not be float or double"},
      {"st", "not a primitive type field"},
      {"ost.b", "must not be nested in an optional field ost"},
      {"l.element.c", "must not be nested in l"},
      {"m.key", "must not be nested in m"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    CHECK_ERR(evolve(a, base, 2, WORDS("set-identifier", bad[k].name), &s, NULL, &err),
              FL_EINVALID);
    CHECK_MSG(err, bad[k].msg);
    CHECK_MSG(err, bad[k].name);
  }
  CHECK_ERR(evolve(a, base, 2, WORDS("set-identifier", "nope"), &s, NULL, &err), FL_ENOTFOUND);
  CHECK_MSG(err, "Cannot add field nope as an identifier field: not found");
  /* Names resolve in the new schema: a renamed or added column counts. */
  CHECK_OK(evolve(a, base, 2, WORDS("rename-column", "id", "key", "set-identifier", "key"), &s,
                  NULL, &err),
           &err);
  CHECK_STR(idents_of(a, s), "1");
  CHECK_OK(evolve(a, base, 3,
                  WORDS("add-column", "k2 long not null default 0", "set-identifier", "id,k2"), &s,
                  NULL, &err),
           &err);
  CHECK_EQ(s->nidentifiers, 2);
  /* An optional column made required is not possible, so making one optional
   * removes it from the candidates. */
  ty_schema_t *s1;
  CHECK_OK(evolve(a, base, 2, WORDS("set-identifier", "id"), &s1, NULL, &err), &err);
  CHECK_ERR(evolve(a, s1, 2, WORDS("make-optional", "id"), &s, NULL, &err), FL_EINVALID);
  CHECK_MSG(err, "not a required field");
  /* Cleared with an empty list. */
  CHECK_OK(evolve(a, s1, 2, WORDS("set-identifier", ""), &s, NULL, &err), &err);
  CHECK_EQ(s->nidentifiers, 0);
  fl_arena_free(a);
}

/* ---- moves ------------------------------------------------------------- */

TEST(move_column_first_before_after) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ty_schema_t *base = schema_of(a, "a int, b int, c int, p struct<x: int, y: int, z: int>"), *s;
  CHECK_OK(evolve(a, base, 2, WORDS("move-column", "c", "first"), &s, NULL, &err), &err);
  CHECK_STR(text_of(a, s), "c int, a int, b int, p struct<x: int, y: int, z: int>");
  CHECK_OK(evolve(a, base, 2, WORDS("move-column", "a", "after", "c"), &s, NULL, &err), &err);
  CHECK_STR(text_of(a, s), "b int, c int, a int, p struct<x: int, y: int, z: int>");
  CHECK_OK(evolve(a, base, 2,
                  WORDS("move-column", "p", "before", "a", "move-column", "p.z", "before", "p.x"),
                  &s, NULL, &err),
           &err);
  CHECK_STR(text_of(a, s), "p struct<z: int, x: int, y: int>, a int, b int, c int");
  /* Moves run in order, after the adds; added columns can be moved. */
  CHECK_OK(evolve(a, base, 2,
                  WORDS("add-column", "n int", "move-column", "n", "after", "a", "move-column", "b",
                        "first"),
                  &s, NULL, &err),
           &err);
  CHECK_STR(text_of(a, s), "b int, a int, n int, c int, p struct<x: int, y: int, z: int>");
  CHECK_STR(ids_of(a, s), "b=2 a=1 n=8 c=3 p=4 p.x=5 p.y=6 p.z=7");
  CHECK_ERR(evolve(a, base, 2, WORDS("move-column", "p.x", "after", "a"), &s, NULL, &err),
            FL_EINVALID);
  CHECK_MSG(err, "Cannot move field p.x to a different struct");
  CHECK_ERR(evolve(a, base, 2, WORDS("move-column", "a", "before", "a"), &s, NULL, &err),
            FL_EINVALID);
  CHECK_MSG(err, "Cannot move a before itself");
  CHECK_ERR(evolve(a, base, 2, WORDS("move-column", "q", "first"), &s, NULL, &err), FL_ENOTFOUND);
  CHECK_MSG(err, "Cannot move missing column: q");
  CHECK_ERR(evolve(a, base, 2, WORDS("move-column", "a", "after", "q"), &s, NULL, &err),
            FL_ENOTFOUND);
  CHECK_MSG(err, "Cannot move a after missing column: q");
  CHECK_ERR(
      evolve(a, base, 2, WORDS("drop-column", "a", "move-column", "a", "first"), &s, NULL, &err),
      FL_EINVALID);
  fl_arena_free(a);
}

TEST(case_insensitive_resolution) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ty_schema_t *base = schema_of(a, "Id long not null, Point struct<X: double>"), *s;
  CHECK_ERR(evolve(a, base, 2, WORDS("drop-column", "id"), &s, NULL, &err), FL_ENOTFOUND);
  CHECK_OK(evolve(a, base, 2,
                  WORDS("--ignore-case", "drop-column", "id", "rename-column", "point.x", "y",
                        "add-column", "point.z int"),
                  &s, NULL, &err),
           &err);
  CHECK_STR(text_of(a, s), "Point struct<y: double, z: int>");
  CHECK_ERR(evolve(a, base, 2, WORDS("--ignore-case", "add-column", "ID int"), &s, NULL, &err),
            FL_EINVALID);
  fl_arena_free(a);
}

/* ---- the parser ------------------------------------------------------- */

TEST(parse_every_form) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ice_evolve_op_t *ops;
  uint32_t n;
  CHECK_OK(ice_evolve_parse(
               a,
               WORDS("add-column", "point.z double not null default 1.5 comment 'height'",
                     "drop-column", "c", "rename-column", "a", "b", "update-column", "c", "long",
                     "update-doc", "c", "doc", "make-optional", "c", "make-required", "d",
                     "set-identifier", "a, b", "move-column", "c", "first", "move-column", "c",
                     "after", "x", "move-column", "c", "before", "y", "add-partition", "hour(ts)",
                     "add-partition", "bucket(16, id)", "by_id", "drop-partition", "p",
                     "rename-partition", "o", "q", "--ignore-case", "drop-column", "Z"),
               &ops, &n, &err),
           &err);
  CHECK_EQ(n, 16);
  CHECK_EQ(ops[0].kind, ICE_EV_ADD_COLUMN);
  CHECK_STR(ops[0].parent, "point");
  CHECK_STR(ops[0].name, "z");
  CHECK_EQ(ops[0].type->kind, TY_DOUBLE);
  CHECK(ops[0].required);
  CHECK_STR(ops[0].doc, "height");
  CHECK(ops[0].default_value && ops[0].default_value->u.f64 == 1.5);
  CHECK_EQ(ops[1].kind, ICE_EV_DROP_COLUMN);
  CHECK_EQ(ops[2].kind, ICE_EV_RENAME_COLUMN);
  CHECK_STR(ops[2].new_name, "b");
  CHECK_EQ(ops[3].kind, ICE_EV_UPDATE_COLUMN);
  CHECK_EQ(ops[3].type->kind, TY_LONG);
  CHECK_EQ(ops[4].kind, ICE_EV_UPDATE_DOC);
  CHECK_STR(ops[4].doc, "doc");
  CHECK_EQ(ops[5].kind, ICE_EV_MAKE_OPTIONAL);
  CHECK_EQ(ops[6].kind, ICE_EV_MAKE_REQUIRED);
  CHECK_EQ(ops[7].kind, ICE_EV_SET_IDENTIFIER);
  CHECK_EQ(ops[7].nnames, 2);
  CHECK_STR(ops[7].names[1], "b");
  CHECK_EQ(ops[8].kind, ICE_EV_MOVE_FIRST);
  CHECK_EQ(ops[9].kind, ICE_EV_MOVE_AFTER);
  CHECK_STR(ops[9].ref, "x");
  CHECK_EQ(ops[10].kind, ICE_EV_MOVE_BEFORE);
  CHECK_STR(ops[10].ref, "y");
  CHECK_EQ(ops[11].kind, ICE_EV_ADD_PARTITION);
  CHECK_STR(ops[11].term, "hour(ts)");
  CHECK(ops[11].name == NULL);
  CHECK_STR(ops[12].name, "by_id");
  CHECK_EQ(ops[13].kind, ICE_EV_DROP_PARTITION);
  CHECK_EQ(ops[14].kind, ICE_EV_RENAME_PARTITION);
  CHECK_STR(ops[14].new_name, "q");
  CHECK(!ops[14].ignore_case);
  CHECK(ops[15].ignore_case);
  CHECK_STR(ops[15].name, "Z");
  CHECK(ice_evolve_is_schema_op(&ops[15]) && !ice_evolve_is_schema_op(&ops[12]));
  fl_arena_free(a);
}

TEST(parse_errors_name_the_argument) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ice_evolve_op_t *ops;
  uint32_t n;
  CHECK_ERR(ice_evolve_parse(a, WORDS("add-colum", "c int"), &ops, &n, &err), FL_EPARSE);
  CHECK_MSG(err, "unknown change 'add-colum'");
  CHECK_ERR(ice_evolve_parse(a, WORDS("drop-column"), &ops, &n, &err), FL_EPARSE);
  CHECK_MSG(err, "drop-column: expected a column name");
  CHECK_ERR(ice_evolve_parse(a, WORDS("rename-column", "a", "drop-column", "b"), &ops, &n, &err),
            FL_EPARSE);
  CHECK_MSG(err, "expected the new name");
  CHECK_ERR(ice_evolve_parse(a, WORDS("add-column", "c strin"), &ops, &n, &err), FL_EPARSE);
  CHECK_MSG(err, "add-column 'c strin'");
  CHECK_ERR(ice_evolve_parse(a, WORDS("add-column", "c int, d int"), &ops, &n, &err), FL_EPARSE);
  CHECK_ERR(ice_evolve_parse(a, WORDS("update-column", "c", "lon"), &ops, &n, &err), FL_EPARSE);
  CHECK_MSG(err, "update-column c 'lon'");
  CHECK_ERR(ice_evolve_parse(a, WORDS("move-column", "c", "last"), &ops, &n, &err), FL_EPARSE);
  CHECK_MSG(err, "not 'last'");
  CHECK_ERR(ice_evolve_parse(a, WORDS("move-column", "c", "after"), &ops, &n, &err), FL_EPARSE);
  CHECK_ERR(ice_evolve_parse(a, WORDS("add-column", "c int default"), &ops, &n, &err), FL_EPARSE);
  CHECK_ERR(ice_evolve_parse(a, WORDS("add-partition"), &ops, &n, &err), FL_EPARSE);
  CHECK_ERR(ice_evolve_parse(a, 0, NULL, &ops, &n, &err), FL_EPARSE);
  fl_arena_free(a);
}

/* ---- partition evolution ----------------------------------------------- */

static ice_meta_t *meta_of(const char *schema_text, const char *spec_text, int fv) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ty_schema_t *s = schema_of(a, schema_text);
  ice_spec_t *spec = NULL;
  if (spec_text) {
    int32_t last = 999;
    if (ice_spec_parse(a, spec_text, s, 0, &last, &spec, &err)) {
      fprintf(stderr, "bad test spec %s: %s\n", spec_text, err.msg);
      abort();
    }
  }
  char v[2] = {(char)('0' + fv), 0};
  ice_kv_t props[] = {{"format-version", v}};
  ice_meta_t *m = NULL;
  if (ice_meta_new(s, spec, NULL, "/tmp/evolve-test", props, 1, &m, &err)) {
    fprintf(stderr, "ice_meta_new: %s\n", err.msg);
    abort();
  }
  fl_arena_free(a);
  return m;
}

/* Applies the words to a clone of *mp (what one commit attempt does),
 * which replaces *mp on success. */
static int step_clone(ice_meta_t **mp, int n, const char *const *words, fl_err_t *err) {
  fl_arena_t *a = fl_arena_new(0);
  ice_evolve_op_t *ops;
  uint32_t nops;
  ice_meta_t *c = ice_meta_clone(*mp);
  int rc = ice_evolve_parse(a, n, words, &ops, &nops, err);
  if (!rc) rc = ice_evolve_meta(c, ops, nops, err);
  fl_arena_free(a);
  if (rc) {
    ice_meta_free(c);
    return rc;
  }
  ice_meta_free(*mp);
  *mp = c;
  return FL_OK;
}
#define step(m, ...) step_clone(&(m), __VA_ARGS__)

/* "1000:ts_day:day(2) ..." */
static const char *spec_str(fl_arena_t *a, const ice_spec_t *s) {
  const char *r = "";
  for (uint32_t i = 0; i < s->nfields; i++) {
    fl_buf_t b;
    fl_buf_init(&b);
    ice_transform_format(&s->fields[i].transform, &b);
    r = fl_arena_sprintf(a, "%s%s%d:%s:%.*s(%d)", r, i ? " " : "", (int)s->fields[i].field_id,
                         s->fields[i].name, (int)b.len, (const char *)b.data,
                         (int)s->fields[i].source_id);
    fl_buf_free(&b);
  }
  return r;
}

#define TS_SCHEMA "id long not null, ts timestamptz, name string, p struct<x: int>, tags list<int>"

TEST(add_partition_fields_with_default_and_given_names) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ice_meta_t *m = meta_of(TS_SCHEMA, NULL, 2);
  CHECK_OK(step(m,
                WORDS("add-partition", "hour(ts)", "add-partition", "bucket(16, id)",
                      "add-partition", "truncate(name, 4)", "by_name", "add-partition", "p.x"),
                &err),
           &err);
  const ice_spec_t *s = ice_meta_spec(m);
  CHECK_EQ(s->spec_id, 1);
  CHECK_EQ(m->default_spec_id, 1);
  CHECK_STR(spec_str(a, s),
            "1000:ts_hour:hour(2) 1001:id_bucket_16:bucket[16](1) 1002:by_name:truncate[4](3) "
            "1003:p.x:identity(6)");
  CHECK_EQ(m->last_partition_id, 1003);
  CHECK_EQ(m->nspecs, 2);
  ice_meta_free(m);
  fl_arena_free(a);
}

TEST(add_partition_errors) {
  fl_err_t err = {0};
  ice_meta_t *m = meta_of(TS_SCHEMA, "day(ts)", 2);
  static const struct {
    const char *w[6];
    int n, code;
    const char *msg;
  } cases[] = {
      {{"add-partition", "day(ts)"}, 2, FL_EINVALID, "Cannot add duplicate partition field"},
      {{"add-partition", "bucket(4, id)", "add-partition", "bucket(4, id)"},
       4,
       FL_EINVALID,
       "already added"},
      {{"add-partition", "hour(ts)", "add-partition", "month(ts)"},
       4,
       FL_EINVALID,
       "Cannot add redundant partition field"},
      {{"add-partition", "hour(id)"},
       2,
       FL_EINVALID,
       "Invalid source type long for transform: hour"},
      {{"add-partition", "bucket(4, nope)"}, 2, FL_ENOTFOUND, "nope"},
      {{"add-partition", "bucket(4, id)", "name"},
       3,
       FL_EINVALID,
       "Cannot create partition from name that exists in schema: name"},
      {{"add-partition", "name", "id"},
       3,
       FL_EINVALID,
       "identity partition sourced from different field"},
      {{"add-partition", "bucket(4, id)", "ts_day"},
       3,
       FL_EINVALID,
       "Cannot add duplicate partition field name: ts_day"},
      {{"add-partition", "bucket(4, id)", "b", "add-partition", "bucket(8, id)", "b"},
       6,
       FL_EINVALID,
       "Cannot add duplicate partition field: b"},
      {{"add-partition", "p"}, 2, FL_EINVALID, "non-primitive"},
      {{"add-partition", "tags.element"}, 2, FL_EINVALID, "inside a list or map"},
      {{"add-partition", "bucket(0, id)"}, 2, FL_EPARSE, ""},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    int rc = step(m, cases[k].n, cases[k].w, &err);
    if (rc != cases[k].code) {
      t_fail(__FILE__, __LINE__, "case %zu: got %s (%s)", k, fl_code_name(rc), err.msg);
      break;
    }
    CHECK_MSG(err, cases[k].msg);
  }
  /* Nothing changed. */
  CHECK_EQ(m->nspecs, 1);
  /* A day field in the spec does not stop an hour field in a later change
   * (only time transforms added together are redundant, as in the reference). */
  CHECK_OK(step(m, WORDS("add-partition", "hour(ts)"), &err), &err);
  CHECK_EQ(ice_meta_spec(m)->nfields, 2);
  ice_meta_free(m);
}

TEST(remove_partition_field_v2_drops_v1_voids) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ice_meta_t *m2 = meta_of(TS_SCHEMA, "day(ts), bucket(16, id)", 2);
  CHECK_OK(step(m2, WORDS("drop-partition", "ts_day"), &err), &err);
  CHECK_STR(spec_str(a, ice_meta_spec(m2)), "1001:id_bucket_16:bucket[16](1)");
  CHECK_EQ(ice_meta_spec(m2)->spec_id, 1);
  ice_meta_t *m1 = meta_of(TS_SCHEMA, "day(ts), bucket(16, id)", 1);
  CHECK_OK(step(m1, WORDS("drop-partition", "ts_day"), &err), &err);
  CHECK_STR(spec_str(a, ice_meta_spec(m1)), "1000:ts_day:void(2) 1001:id_bucket_16:bucket[16](1)");
  /* v1: a new field named like a void field renames the void one. */
  CHECK_OK(step(m1, WORDS("add-partition", "day(ts)"), &err), &err);
  CHECK_STR(spec_str(a, ice_meta_spec(m1)),
            "1000:ts_day_1000:void(2) 1001:id_bucket_16:bucket[16](1) 1002:ts_day:day(2)");
  CHECK_EQ(m1->last_partition_id, 1002);
  /* Errors. */
  CHECK_ERR(step(m2, WORDS("drop-partition", "nope"), &err), FL_ENOTFOUND);
  CHECK_MSG(err, "Cannot find partition field to remove: nope");
  CHECK_ERR(step(m2, WORDS("add-partition", "hour(ts)", "drop-partition", "ts_hour"), &err),
            FL_EINVALID);
  CHECK_MSG(err, "Cannot delete newly added field: ts_hour");
  CHECK_ERR(
      step(m2, WORDS("rename-partition", "id_bucket_16", "b", "drop-partition", "id_bucket_16"),
           &err),
      FL_EINVALID);
  CHECK_MSG(err, "Cannot rename and delete partition field: id_bucket_16");
  ice_meta_free(m1);
  ice_meta_free(m2);
  fl_arena_free(a);
}

TEST(rename_partition_field) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ice_meta_t *m = meta_of(TS_SCHEMA, "day(ts), bucket(16, id)", 2);
  CHECK_OK(step(m, WORDS("rename-partition", "ts_day", "day"), &err), &err);
  /* Same fields and ids, another name: a new spec. */
  CHECK_EQ(m->nspecs, 2);
  CHECK_EQ(m->default_spec_id, 1);
  CHECK_STR(spec_str(a, ice_meta_spec(m)), "1000:day:day(2) 1001:id_bucket_16:bucket[16](1)");
  CHECK_ERR(step(m, WORDS("rename-partition", "nope", "x"), &err), FL_ENOTFOUND);
  CHECK_MSG(err, "Cannot find partition field to rename: nope");
  CHECK_ERR(step(m, WORDS("rename-partition", "day", "id_bucket_16"), &err), FL_EINVALID);
  CHECK_MSG(err, "Cannot use partition name more than once: id_bucket_16");
  CHECK_ERR(step(m, WORDS("drop-partition", "day", "rename-partition", "day", "x"), &err),
            FL_EINVALID);
  CHECK_MSG(err, "Cannot delete and rename partition field: day");
  CHECK_ERR(step(m, WORDS("add-partition", "hour(ts)", "rename-partition", "ts_hour", "h"), &err),
            FL_EINVALID);
  CHECK_MSG(err, "Cannot rename newly added partition field: ts_hour");
  CHECK_ERR(step(m, WORDS("rename-partition", "day", "ts"), &err), FL_EINVALID);
  CHECK_MSG(err, "exists in schema: ts");
  /* Renaming back finds the first spec again. */
  CHECK_OK(step(m, WORDS("rename-partition", "day", "ts_day"), &err), &err);
  CHECK_EQ(m->default_spec_id, 0);
  CHECK_EQ(m->nspecs, 2);
  ice_meta_free(m);
  fl_arena_free(a);
}

TEST(partition_field_ids_are_reused_from_any_spec_in_v2) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ice_meta_t *m = meta_of(TS_SCHEMA, "day(ts)", 2);
  CHECK_OK(step(m, WORDS("drop-partition", "ts_day", "add-partition", "bucket(4, id)"), &err),
           &err);
  CHECK_STR(spec_str(a, ice_meta_spec(m)), "1001:id_bucket_4:bucket[4](1)");
  CHECK_EQ(ice_meta_spec(m)->spec_id, 1);
  CHECK_OK(step(m, WORDS("add-partition", "day(ts)"), &err), &err);
  /* day(ts) was field 1000 in spec 0: same id, same name. */
  CHECK_STR(spec_str(a, ice_meta_spec(m)), "1001:id_bucket_4:bucket[4](1) 1000:ts_day:day(2)");
  CHECK_EQ(ice_meta_spec(m)->spec_id, 2);
  CHECK_EQ(m->last_partition_id, 1001);
  /* Removed and added back in one change with a name: the field is kept, renamed. */
  CHECK_OK(step(m, WORDS("drop-partition", "ts_day", "add-partition", "day(ts)", "d"), &err), &err);
  CHECK_STR(spec_str(a, ice_meta_spec(m)), "1001:id_bucket_4:bucket[4](1) 1000:d:day(2)");
  CHECK_EQ(ice_meta_spec(m)->spec_id, 3);
  /* Back to a spec that exists: its id is reused, no spec added. */
  CHECK_OK(step(m, WORDS("drop-partition", "d"), &err), &err);
  CHECK_EQ(m->nspecs, 4);
  CHECK_EQ(m->default_spec_id, 1);
  /* A name no earlier field had: a new id. */
  CHECK_OK(step(m, WORDS("add-partition", "day(ts)", "dd"), &err), &err);
  CHECK_STR(spec_str(a, ice_meta_spec(m)), "1001:id_bucket_4:bucket[4](1) 1002:dd:day(2)");
  CHECK_EQ(m->last_partition_id, 1002);
  /* An earlier name picks that field. */
  CHECK_OK(step(m, WORDS("drop-partition", "dd", "add-partition", "day(ts)", "d"), &err), &err);
  CHECK_STR(spec_str(a, ice_meta_spec(m)), "1001:id_bucket_4:bucket[4](1) 1000:d:day(2)");
  CHECK_EQ(m->default_spec_id, 3);
  /* Removing and adding back without a name keeps the field as it is. */
  CHECK_OK(step(m, WORDS("drop-partition", "d", "add-partition", "day(ts)"), &err), &err);
  CHECK_STR(spec_str(a, ice_meta_spec(m)), "1001:id_bucket_4:bucket[4](1) 1000:d:day(2)");
  CHECK_EQ(m->default_spec_id, 3);
  ice_meta_free(m);

  /* v1: no reuse, ids count on. */
  m = meta_of(TS_SCHEMA, "day(ts), bucket(4, id)", 1);
  CHECK_OK(step(m, WORDS("drop-partition", "ts_day"), &err), &err);
  CHECK_OK(step(m, WORDS("add-partition", "day(ts)", "d2"), &err), &err);
  CHECK_STR(spec_str(a, ice_meta_spec(m)),
            "1000:ts_day:void(2) 1001:id_bucket_4:bucket[4](1) 1002:d2:day(2)");
  ice_meta_free(m);
  fl_arena_free(a);
}

TEST(spec_evolve_pure_function_reports_spec_id) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ice_meta_t *m = meta_of(TS_SCHEMA, "day(ts)", 2);
  ice_evolve_op_t ops[] = {{.kind = ICE_EV_ADD_PARTITION, .term = "bucket(8, id)", .name = "b"},
                           {.kind = ICE_EV_DROP_COLUMN, .name = "ts"}};
  ice_spec_t *s;
  CHECK_OK(ice_spec_evolve(a, m, NULL, ops, 2, &s, &err), &err);
  CHECK_EQ(s->spec_id, 1);
  CHECK_STR(spec_str(a, s), "1000:ts_day:day(2) 1001:b:bucket[8](1)");
  /* The metadata itself is untouched. */
  CHECK_EQ(m->nspecs, 1);
  ice_evolve_op_t same[] = {
      {.kind = ICE_EV_RENAME_PARTITION, .name = "ts_day", .new_name = "ts_day"}};
  CHECK_OK(ice_spec_evolve(a, m, NULL, same, 1, &s, &err), &err);
  CHECK_EQ(s->spec_id, 0);
  ice_meta_free(m);
  fl_arena_free(a);
}

/* ---- schema and spec together, checks on the result -------------------- */

TEST(drop_partition_source_column) {
  fl_err_t err = {0};
  ice_meta_t *m = meta_of(TS_SCHEMA, "day(ts), bucket(16, id)", 2);
  CHECK_ERR(step(m, WORDS("drop-column", "ts"), &err), FL_EINVALID);
  CHECK_MSG(err, "Cannot drop column ts");
  CHECK_MSG(err, "ts_day");
  CHECK_EQ(m->nschemas, 1);
  /* Dropping the partition field in the same change makes it possible. */
  CHECK_OK(step(m, WORDS("drop-column", "ts", "drop-partition", "ts_day"), &err), &err);
  CHECK_EQ(m->nschemas, 2);
  CHECK_EQ(m->current_schema_id, 1);
  CHECK(ty_schema_find_id(ice_meta_schema(m), 2) == NULL);
  /* Older specs may keep referring to the dropped column. */
  CHECK_EQ(ice_meta_spec_by_id(m, 0)->fields[0].source_id, 2);
  ice_meta_free(m);

  /* v1: the removed field stays as void, which needs no source. */
  m = meta_of(TS_SCHEMA, "day(ts)", 1);
  CHECK_OK(step(m, WORDS("drop-partition", "ts_day", "drop-column", "ts"), &err), &err);
  CHECK_EQ(ice_meta_spec(m)->fields[0].transform.kind, ICE_T_VOID);
  ice_meta_free(m);
}

TEST(drop_sort_order_source_column) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ice_meta_t *m = meta_of(TS_SCHEMA, NULL, 2);
  ice_sort_order_t *o;
  CHECK_OK(ice_sort_order_parse(a, "name desc", ice_meta_schema(m), 1, &o, &err), &err);
  CHECK_OK(ice_meta_add_sort_order(m, o, NULL, &err), &err);
  CHECK_ERR(step(m, WORDS("drop-column", "name"), &err), FL_EINVALID);
  CHECK_MSG(err, "Cannot drop column name: the default sort order");
  CHECK_OK(step(m, WORDS("drop-column", "id"), &err), &err);
  ice_meta_free(m);
  fl_arena_free(a);
}

TEST(add_column_and_partition_by_it_in_one_change) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ice_meta_t *m = meta_of("id long not null", NULL, 2);
  CHECK_OK(step(m,
                WORDS("add-partition", "day(ts)", "add-column", "ts timestamp", "add-column",
                      "region string", "add-partition", "region"),
                &err),
           &err);
  CHECK_EQ(m->last_column_id, 3);
  CHECK_EQ(m->current_schema_id, 1);
  CHECK_STR(spec_str(a, ice_meta_spec(m)), "1000:ts_day:day(2) 1001:region:identity(3)");
  /* Promoting a partition source keeps the spec valid. */
  ice_meta_t *m2 = meta_of("id int not null, v string", "bucket(8, id)", 2);
  CHECK_OK(step(m2, WORDS("update-column", "id", "long"), &err), &err);
  CHECK_EQ(ty_schema_find_id(ice_meta_schema(m2), 1)->type->kind, TY_LONG);
  /* A schema change that changes nothing finds the current schema. */
  CHECK_OK(step(m2, WORDS("make-optional", "v"), &err), &err);
  CHECK_EQ(m2->nschemas, 2);
  ice_meta_free(m2);
  ice_meta_free(m);
  fl_arena_free(a);
}

/* ---- commits ------------------------------------------------------------ */

/* A catalog of one table in memory: the current metadata location, and an
 * optional interference that commits another change first. */
typedef struct mem_catalog {
  char *current;
  int swaps;
  /* Run once, inside the next swap: another writer commits these words. */
  int interfere_n;
  const char *const *interfere;
  io_fs_t *fs;
  int interfere_rc;
} mem_catalog_t;

static int mem_current(void *ctx, char **out, fl_err_t *err) {
  (void)err;
  *out = fl_strdup(((mem_catalog_t *)ctx)->current);
  return FL_OK;
}

static int mem_swap(void *ctx, const char *old, const char *new_loc, fl_err_t *err);

static ice_committer_t mem_committer(mem_catalog_t *c) {
  return (ice_committer_t){.ctx = c, .current = mem_current, .swap = mem_swap};
}

static int mem_swap(void *ctx, const char *old, const char *new_loc, fl_err_t *err) {
  mem_catalog_t *c = ctx;
  if (c->interfere_n) {
    int n = c->interfere_n;
    c->interfere_n = 0;
    ice_committer_t cm = mem_committer(c);
    ice_table_t *other;
    fl_err_t e2 = {0};
    c->interfere_rc = ice_table_load(c->fs, "other", c->current, &cm, &other, &e2);
    if (!c->interfere_rc) {
      fl_arena_t *a = fl_arena_new(0);
      ice_evolve_op_t *ops;
      uint32_t nops;
      c->interfere_rc = ice_evolve_parse(a, n, c->interfere, &ops, &nops, &e2);
      if (!c->interfere_rc) c->interfere_rc = ice_evolve_apply(other, ops, nops, &e2);
      fl_arena_free(a);
      ice_table_free(other);
    }
  }
  if (strcmp(old, c->current) != 0)
    return fl_err_set_retriable(err, FL_ECONFLICT, "%s is no longer current", old);
  fl_free(c->current);
  c->current = fl_strdup(new_loc);
  c->swaps++;
  return FL_OK;
}

/* Writes v0 metadata for a new table under the test folder. */
static char *new_table(io_fs_t *fs, const char *name, const char *schema_text, const char *spec) {
  ice_meta_t *m = meta_of(schema_text, spec, 2);
  fl_arena_t *a = fl_arena_new(0);
  const char *loc = fl_arena_sprintf(a, "%s/%s", t_tmpdir(), name);
  m->location = fl_arena_strdup(m->arena, loc);
  ice_meta_set_property(m, "commit.retry.min-wait-ms", "1");
  ice_meta_set_property(m, "commit.retry.max-wait-ms", "5");
  fl_err_t err = {0};
  char *path = ice_metadata_file_name(a, loc, NULL);
  fs->mkdirs(fs, fl_arena_sprintf(a, "%s/metadata", loc), &err);
  if (ice_meta_write(fs, path, m, &err)) {
    fprintf(stderr, "writing %s: %s\n", path, err.msg);
    abort();
  }
  char *r = fl_strdup(path);
  ice_meta_free(m);
  fl_arena_free(a);
  return r;
}

static int apply_words(ice_table_t *t, int n, const char *const *words, fl_err_t *err) {
  fl_arena_t *a = fl_arena_new(0);
  ice_evolve_op_t *ops;
  uint32_t nops;
  int rc = ice_evolve_parse(a, n, words, &ops, &nops, err);
  if (!rc) rc = ice_evolve_apply(t, ops, nops, err);
  fl_arena_free(a);
  return rc;
}

TEST(commit_schema_and_spec_change_in_one_metadata_file) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  io_fs_t *fs = io_local_fs();
  mem_catalog_t cat = {.fs = fs};
  cat.current = new_table(fs, "commit1", "id long not null, ts timestamptz", NULL);
  ice_committer_t cm = mem_committer(&cat);
  ice_table_t *t;
  CHECK_OK(ice_table_load(fs, "db.commit1", cat.current, &cm, &t, &err), &err);
  CHECK_OK(apply_words(t,
                       WORDS("add-column", "region string", "set-identifier", "id", "add-partition",
                             "day(ts)", "add-partition", "region"),
                       &err),
           &err);
  CHECK_EQ(cat.swaps, 1);
  CHECK_STR(t->metadata_location, cat.current);
  CHECK(strstr(cat.current, "/metadata/00001-") != NULL);
  /* What was written reads back the same. */
  ice_meta_t *m;
  CHECK_OK(ice_meta_read(fs, cat.current, &m, &err), &err);
  CHECK_EQ(m->current_schema_id, 1);
  CHECK_EQ(m->last_column_id, 3);
  CHECK_STR(text_of(a, ice_meta_schema(m)), "id long not null, ts timestamptz, region string");
  CHECK_STR(idents_of(a, ice_meta_schema(m)), "1");
  CHECK_EQ(m->default_spec_id, 1);
  CHECK_STR(spec_str(a, ice_meta_spec(m)), "1000:ts_day:day(2) 1001:region:identity(3)");
  CHECK_EQ(m->last_partition_id, 1001);
  CHECK_EQ(m->nmetadata_log, 1);
  ice_meta_free(m);
  /* A failing change commits nothing. */
  CHECK_ERR(apply_words(t, WORDS("drop-column", "ts"), &err), FL_EINVALID);
  CHECK_MSG(err, "db.commit1: ");
  CHECK_MSG(err, "Cannot drop column ts");
  CHECK_EQ(cat.swaps, 1);
  /* Read-only tables refuse. */
  ice_table_t *ro;
  CHECK_OK(ice_table_load(fs, "ro", cat.current, NULL, &ro, &err), &err);
  CHECK_ERR(apply_words(ro, WORDS("drop-column", "region"), &err), FL_EINVALID);
  CHECK_MSG(err, "read-only");
  ice_table_free(ro);
  ice_table_free(t);
  fl_free(cat.current);
  fl_arena_free(a);
}

TEST(commit_after_lost_race_reapplies_on_new_head) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  io_fs_t *fs = io_local_fs();
  mem_catalog_t cat = {.fs = fs};
  cat.current = new_table(fs, "race1", "id long not null, v string", NULL);
  ice_committer_t cm = mem_committer(&cat);
  ice_table_t *t;
  CHECK_OK(ice_table_load(fs, "db.race1", cat.current, &cm, &t, &err), &err);
  /* Another writer adds a column (id 3) while we add ours. */
  cat.interfere =
      (const char *const[]){"add-column", "other int", "add-partition", "bucket(4, id)"};
  cat.interfere_n = 4;
  CHECK_OK(apply_words(t, WORDS("add-column", "mine string", "add-partition", "v"), &err), &err);
  CHECK_EQ(cat.interfere_rc, FL_OK);
  CHECK_EQ(cat.swaps, 2);
  const ice_meta_t *m = t->meta;
  /* Ours was re-applied on top: the next free ids. */
  CHECK_STR(text_of(a, ice_meta_schema(m)), "id long not null, v string, other int, mine string");
  CHECK_STR(ids_of(a, ice_meta_schema(m)), "id=1 v=2 other=3 mine=4");
  CHECK_STR(spec_str(a, ice_meta_spec(m)), "1000:id_bucket_4:bucket[4](1) 1001:v:identity(2)");
  CHECK_EQ(m->nschemas, 3);
  CHECK(strstr(cat.current, "/metadata/00002-") != NULL);

  /* The other writer drops the column we rename: re-validation fails. */
  cat.interfere = (const char *const[]){"drop-column", "mine"};
  cat.interfere_n = 2;
  CHECK_ERR(apply_words(t, WORDS("rename-column", "mine", "yours"), &err), FL_ENOTFOUND);
  CHECK_MSG(err, "Cannot rename missing column: mine");
  CHECK_EQ(cat.interfere_rc, FL_OK);
  CHECK_EQ(cat.swaps, 3);
  CHECK(ty_schema_find_id(ice_meta_schema(t->meta), 4) == NULL);
  ice_table_free(t);
  fl_free(cat.current);
  fl_arena_free(a);
}

TEST(column_names_may_not_take_partition_field_names) {
  fl_err_t err = {0};
  ice_meta_t *m = meta_of(TS_SCHEMA, "day(ts), name", 2);
  CHECK_ERR(step(m, WORDS("add-column", "ts_day date"), &err), FL_EINVALID);
  CHECK_MSG(err, "Cannot name column ts_day like partition field 1000: ts_day: day(2) of spec 0");
  CHECK_ERR(step(m, WORDS("rename-column", "id", "ts_day"), &err), FL_EINVALID);
  /* The identity field may keep its source's name; an old spec still counts. */
  CHECK_OK(step(m, WORDS("rename-partition", "ts_day", "day"), &err), &err);
  CHECK_ERR(step(m, WORDS("rename-column", "id", "ts_day"), &err), FL_EINVALID);
  CHECK_OK(step(m, WORDS("rename-column", "id", "key"), &err), &err);
  ice_meta_free(m);
}

TEST(operations_without_names_are_refused) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  ty_schema_t *base = schema_of(a, "a int, b int"), *s;
  int32_t last;
  static const ice_evolve_op_t bad[] = {
      {.kind = ICE_EV_DROP_COLUMN},
      {.kind = ICE_EV_MOVE_AFTER, .name = "a"},
      {.kind = ICE_EV_MOVE_FIRST, .name = ""},
      {.kind = ICE_EV_RENAME_COLUMN, .name = "a"},
      {.kind = ICE_EV_ADD_COLUMN, .name = "c"},
      {.kind = ICE_EV_UPDATE_COLUMN, .name = "a"},
      {.kind = ICE_EV_SET_IDENTIFIER, .nnames = 1},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
    CHECK_ERR(ice_schema_evolve(a, base, 2, 2, &bad[k], 1, &s, &last, &err), FL_EINVALID);
  ice_meta_t *m = meta_of(TS_SCHEMA, "day(ts)", 2);
  static const ice_evolve_op_t badp[] = {
      {.kind = ICE_EV_ADD_PARTITION},
      {.kind = ICE_EV_DROP_PARTITION},
      {.kind = ICE_EV_RENAME_PARTITION, .name = "ts_day"},
      {.kind = ICE_EV_RENAME_PARTITION, .new_name = "x"},
  };
  ice_spec_t *spec;
  for (size_t k = 0; k < sizeof badp / sizeof badp[0]; k++)
    CHECK_ERR(ice_spec_evolve(a, m, NULL, &badp[k], 1, &spec, &err), FL_EINVALID);
  ice_meta_free(m);
  fl_arena_free(a);
}

TEST(name_mapping_follows_the_schema) {
  fl_err_t err = {0};
  ice_meta_t *m = meta_of("id long not null, v string, p struct<x: int>", NULL, 2);
  ice_meta_set_property(m, "schema.name-mapping.default",
                        "[{\"field-id\":1,\"names\":[\"id\",\"ID\"]},{\"field-id\":2,\"names\":"
                        "[\"v\"]},{\"field-id\":3,\"names\":[\"p\"],\"fields\":[{\"field-id\":4,"
                        "\"names\":[\"x\"]}]}]");
  CHECK_OK(step(m,
                WORDS("rename-column", "id", "key", "drop-column", "v", "add-column", "v long",
                      "add-column", "p.y list<int>", "rename-column", "p.x", "xx"),
                &err),
           &err);
  CHECK_STR(ice_meta_property(m, "schema.name-mapping.default"),
            "[{\"field-id\":1,\"names\":[\"id\",\"ID\",\"key\"]},{\"field-id\":3,\"names\":[\"p\"],"
            "\"fields\":[{\"field-id\":4,\"names\":[\"x\",\"xx\"]},{\"field-id\":6,\"names\":"
            "[\"y\"],\"fields\":[{\"field-id\":7,\"names\":[\"element\"]}]}]},"
            "{\"field-id\":5,\"names\":[\"v\"]}]");
  /* A mapping that does not parse is left as it is. */
  ice_meta_set_property(m, "schema.name-mapping.default", "not json");
  CHECK_OK(step(m, WORDS("add-column", "z int"), &err), &err);
  CHECK_STR(ice_meta_property(m, "schema.name-mapping.default"), "not json");
  ice_meta_free(m);
}
