/*
 * test_json_record.c - js_decode_record: exactly one JSON object per
 * buffer, errors for empty text, a second object or trailing text, and no
 * partial row left behind.
 */
#include "base/arena.h"
#include "format/json/json_decoder.h"
#include "test.h"

TEST(json_record_one_object) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s;
  fl_err_t err;
  CHECK_OK(ty_schema_parse(a, "id long, name string", &s, &err), &err);
  js_decoder_t *d = js_decoder_new(s, NULL);
  ty_batch_t *b = ty_batch_new(s, 8);
  const char *one = " {\"id\": 1, \"name\": \"x\"}\n";
  CHECK_OK(js_decode_record(d, one, strlen(one), b, &err), &err);
  CHECK_EQ(b->nrows, 1);
  const char *two = "{\"id\": 2}{\"id\": 3}";
  CHECK_ERR(js_decode_record(d, two, strlen(two), b, &err), FL_EPARSE);
  CHECK_EQ(b->nrows, 1);
  CHECK_EQ(b->cols[0]->len, 1);
  CHECK_ERR(js_decode_record(d, "  \n", 3, b, &err), FL_EPARSE);
  CHECK(strstr(err.msg, "empty") != NULL);
  const char *trail = "{\"id\": 4} x";
  CHECK_ERR(js_decode_record(d, trail, strlen(trail), b, &err), FL_EPARSE);
  CHECK_EQ(b->nrows, 1);
  const char *bad = "{\"id\": \"four\"}";
  CHECK_ERR(js_decode_record(d, bad, strlen(bad), b, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "line 1") != NULL);
  CHECK_EQ(b->nrows, 1);
  CHECK_OK(js_decode_record(d, "{\"id\": 5}", 9, b, &err), &err);
  CHECK_EQ(b->nrows, 2);
  CHECK_EQ(TY_VEC_DATA(b->cols[0], int64_t)[1], 5);
  CHECK(ty_vec_is_null(b->cols[1], 1));
  ty_batch_free(b);
  js_decoder_free(d);
  fl_arena_free(a);
}

TEST(json_record_full_batch) {
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s;
  fl_err_t err;
  CHECK_OK(ty_schema_parse(a, "id long", &s, &err), &err);
  js_decoder_t *d = js_decoder_new(s, NULL);
  ty_batch_t *b = ty_batch_new(s, TY_BATCH_ROWS);
  for (int i = 0; i < TY_BATCH_ROWS - 1; i++)
    CHECK_OK(js_decode_record(d, "{\"id\":1}", 8, b, &err), &err);
  /* Room for one: a second object must still be refused. */
  const char *two = "{\"id\": 2}{\"id\": 3}";
  CHECK_ERR(js_decode_record(d, two, strlen(two), b, &err), FL_EPARSE);
  CHECK_EQ(b->nrows, TY_BATCH_ROWS - 1);
  CHECK_OK(js_decode_record(d, "{\"id\":1}", 8, b, &err), &err);
  CHECK_ERR(js_decode_record(d, "{\"id\":1}", 8, b, &err), FL_ELIMIT);
  ty_batch_free(b);
  js_decoder_free(d);
  fl_arena_free(a);
}

#define FAIL(...)                           \
  do {                                      \
    t_fail(__FILE__, __LINE__, __VA_ARGS__); \
    return;                                 \
  } while (0)

/* Row 0 of a and b hold the same values (null, integer or bytes). */
static bool same_row(const ty_batch_t *a, const ty_batch_t *b) {
  if (a->nrows != 1 || b->nrows != 1 || a->ncols != b->ncols) return false;
  for (uint32_t c = 0; c < a->ncols; c++) {
    const ty_vec_t *x = a->cols[c], *y = b->cols[c];
    if (x->len != 1 || y->len != 1 || ty_vec_is_null(x, 0) != ty_vec_is_null(y, 0)) return false;
    if (ty_vec_is_null(x, 0)) continue;
    switch (x->type->kind) {
      case TY_INT:
        if (TY_VEC_DATA(x, int32_t)[0] != TY_VEC_DATA(y, int32_t)[0]) return false;
        break;
      case TY_STRING: {
        size_t n, m;
        const uint8_t *p = ty_vec_get_bytes(x, 0, &n), *q = ty_vec_get_bytes(y, 0, &m);
        if (n != m || memcmp(p, q, n) != 0) return false;
        break;
      }
      default:
        if (TY_VEC_DATA(x, int64_t)[0] != TY_VEC_DATA(y, int64_t)[0]) return false;
    }
  }
  return true;
}

/*
 * The flat path (js_decode_flat, taken first by js_decode_record) takes
 * the compact objects it should, and for every input, valid or not,
 * js_decode_record gives what the general decoder gives: the same error
 * code or the same row.
 */
TEST(json_record_flat_path_agrees_with_the_decoder) {
  static const struct {
    const char *text;
    bool flat; /* the flat path takes it */
  } cases[] = {
      {"{\"id\":1,\"n\":2,\"name\":\"ab\",\"ts\":\"2024-01-01 00:00:00.001\",\"opt\":7}", true},
      {"{\"id\":-5,\"n\":-2147483648,\"name\":\"\",\"ts\":\"2024-01-01T10:00:00\",\"opt\":null}", true},
      {"{\"id\":1,\"n\":2,\"name\":\"h\xc3\xa9llo\"}", true},
      {"{\"id\":0}", true},
      {"{\"id\":1,\"n\":2147483648}", false},
      {"{\"id\":01}", false},
      {"{\"id\":-01}", false},
      {"{\"id\":1.5}", false},
      {"{\"id\":1e3}", false},
      {"{\"id\":-}", false},
      {"{\"id\":1,\"n\":2,\"name\":\"a\\\"b\"}", false},
      {"{\"id\":1,\"name\":\"\xff\"}", false},
      {"{\"id\":1,\"n\":2,\"name\":\"\xe2\x82\"}", false},
      {"{\"id\":null}", false},
      {"{\"opt\":3,\"id\":1}", false},
      {"{ \"id\": 1 }", false},
      {"{\"id\":1,\"id\":2}", false},
      {"{\"id\":1,\"extra\":5}", false},
      {"{\"id\":1,\"n\":2,\"name\":\"x\",\"ts\":\"garbage\"}", false},
      {"{\"id\":123456789012345678901}", false},
      {"{\"id\":9223372036854775807}", false},
      {"{\"id\":1,\"n\":2,\"name\":\"x\",\"ts\":\"2024-01-01 00:00:00\",\"opt\":5,}", false},
      {"{\"id\":1,\"opt\":nul}", false},
      {"{\"id\":1,\"n\":2,\"name\":\"x\",\"ts\":\"2024-01-01 00:00:00\",\"opt\":nullx}", false},
      {"{\"id\":true}", false},
      {"{\"id\":1,\"n\":2,\"name\":\"x\"", false},
      {"{\"id\":1,\"n\":2,\"name\":\"x\",\"ts\":[1]}", false},
      {"{\"id\":1}  \n", true},
      {"{\"id\":1} x", false},
      {"{}", false},
  };
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s;
  fl_err_t err, err2;
  CHECK_OK(ty_schema_parse(a, "id long not null, n int, name string, ts timestamp, opt long", &s,
                           &err),
           &err);
  for (int strict = 0; strict < 2; strict++) {
    js_decode_opts_t o = {.case_insensitive = true, .fail_on_missing = strict == 1};
    js_decoder_t *fast = js_decoder_new(s, &o), *probe = js_decoder_new(s, &o);
    js_decoder_t *general = js_decoder_new(s, &o);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      const char *t = cases[i].text;
      size_t n = strlen(t);
      ty_batch_t *b1 = ty_batch_new(s, 8), *b2 = ty_batch_new(s, 8), *b3 = ty_batch_new(s, 8);
      /* The flat path alone: taken where expected (missing fields are an
       * error with fail_on_missing, so it declines those), never a partial row. */
      bool missing = strstr(t, "\"opt\"") == NULL;
      bool took = js_decode_flat(probe, t, n, b3);
      if (took != (cases[i].flat && !(strict && missing)))
        FAIL("case %zu (%s), fail_on_missing %d: flat path %s", i, t, strict,
             took ? "taken" : "declined");
      for (uint32_t c = 0; c < b3->ncols; c++) CHECK_EQ(b3->cols[c]->len, took ? 1u : 0u);
      /* The record API against the general decoder over the same text. */
      fl_err_clear(&err);
      fl_err_clear(&err2);
      int rc1 = js_decode_record(fast, t, n, b1, &err);
      int rc2 = js_decode(general, t, n, b2, &err2);
      if (rc2 == FL_OK && b2->nrows != 1) rc2 = FL_EPARSE; /* not one object */
      if (rc1 != rc2)
        FAIL("case %zu (%s): record %d (%s), general %d (%s)", i, t, rc1, err.msg, rc2, err2.msg);
      if (rc1 == FL_OK && !same_row(b1, b2)) FAIL("case %zu (%s): rows differ", i, t);
      if (rc1 != FL_OK) CHECK_EQ(b1->nrows, 0);
      ty_batch_free(b1);
      ty_batch_free(b2);
      ty_batch_free(b3);
    }
    js_decoder_free(fast);
    js_decoder_free(probe);
    js_decoder_free(general);
  }
  fl_arena_free(a);
}
