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
