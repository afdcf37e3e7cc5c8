/*
 * test_csv.c - the CSV reader and writer: quoting edge cases, CRLF,
 * nulls, typed parsing, inference, errors with line and column, chunk
 * boundaries (tiny read sizes), and writer -> reader round trips.
 */
#include <stdlib.h>

#include "base/alloc.h"
#include "base/time.h"
#include "format/csv/csv.h"
#include "format/json/json_text.h"
#include "test.h"

/* Reads text as a CSV file (name decides the delimiter) and returns all
 * rows as canonical JSON lines, or "ERR <code> <msg>". */
static char *read_csv(const char *name, const char *text, const char *schema, bool no_header,
                      size_t chunk, fl_buf_t *schema_out) {
  static char result[16384];
  char path[512];
  snprintf(path, sizeof path, "%s/%s", t_tmpdir(), name);
  fl_err_t err;
  fl_buf_t out;
  fl_buf_init(&out);
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s = NULL;
  if (io_write_all(io_local_fs(), path, text, strlen(text), &err)) abort();
  if (schema && ty_schema_parse(a, schema, &s, &err)) abort();
  size_t saved = csv__reader_chunk_bytes;
  csv__reader_chunk_bytes = chunk;
  fmt_read_opts_t ro = {.schema = s, .csv_no_header = no_header};
  fmt_reader_t *r = NULL;
  int rc = fmt_open_reader(io_local_fs(), path, &ro, &r, &err);
  if (!rc) {
    if (schema_out) ty_schema_format(r->schema, schema_out);
    for (;;) {
      ty_batch_t *b;
      if ((rc = r->next(r, &b, &err)) || !b) break;
      for (uint32_t i = 0; i < b->nrows; i++) {
        js_append_row(&out, b, i);
        fl_buf_append_u8(&out, '\n');
      }
    }
    r->close(r);
  }
  csv__reader_chunk_bytes = saved;
  if (rc) {
    fl_buf_clear(&out);
    fl_buf_printf(&out, "ERR %s %s", fl_code_name(rc), err.msg);
  }
  size_t n = out.len < sizeof result - 1 ? out.len : sizeof result - 1;
  memcpy(result, out.data, n);
  result[n] = '\0';
  fl_buf_free(&out);
  fl_arena_free(a);
  return result;
}

TEST(csv_quoting_edge_cases) {
  const char *text =
      "id,s,t\r\n"
      "1,\"a,b\",plain\r\n"
      "2,\"say \"\"hi\"\"\",\"multi\nline\"\r\n"
      "3,,\"\"\r\n"
      "\n"
      "4,\"\",x\"y\n"
      "5,caf\xc3\xa9,\"\"\"\"";
  const char *want =
      "{\"id\":1,\"s\":\"a,b\",\"t\":\"plain\"}\n"
      "{\"id\":2,\"s\":\"say \\\"hi\\\"\",\"t\":\"multi\\nline\"}\n"
      "{\"id\":3,\"s\":null,\"t\":\"\"}\n"
      "{\"id\":4,\"s\":\"\",\"t\":\"x\\\"y\"}\n"
      "{\"id\":5,\"s\":\"caf\xc3\xa9\",\"t\":\"\\\"\"}\n";
  for (size_t chunk = 4; chunk <= 4096; chunk = chunk < 64 ? chunk + 1 : chunk * 4) {
    const char *got = read_csv("q.csv", text, "id long, s string, t string", false, chunk, NULL);
    CHECK_STR(got, want);
  }
  /* Inference gives the same values. */
  fl_buf_t sch;
  fl_buf_init(&sch);
  CHECK_STR(read_csv("q.csv", text, NULL, false, 7, &sch), want);
  CHECK(sch.len == strlen("id long, s string, t string") &&
        memcmp(sch.data, "id long, s string, t string", sch.len) == 0);
  fl_buf_free(&sch);
}

TEST(csv_types_and_inference) {
  const char *text =
      "b,l,d,dt,ts,tz,s,e\n"
      "true,1,1.5,2024-01-02,2024-01-02 03:04:05,2024-01-02T03:04:05Z,x,\n"
      "False,-9223372036854775808,1e3,1999-12-31,2024-01-02T03:04:05.5,2024-01-02T03:04:05+01:00,"
      "12,\n"
      ",,,,,,,\n";
  fl_buf_t sch;
  fl_buf_init(&sch);
  const char *got = read_csv("t.csv", text, NULL, false, 4096, &sch);
  fl_buf_append_u8(&sch, 0);
  CHECK_STR(
      (const char *)sch.data,
      "b boolean, l long, d double, dt date, ts timestamp, tz timestamptz, s string, e string");
  CHECK_STR(
      got,
      "{\"b\":true,\"l\":1,\"d\":1.5,\"dt\":\"2024-01-02\",\"ts\":\"2024-01-02T03:04:05.000000\","
      "\"tz\":\"2024-01-02T03:04:05.000000+00:00\",\"s\":\"x\",\"e\":null}\n"
      "{\"b\":false,\"l\":-9223372036854775808,\"d\":1000.0,\"dt\":\"1999-12-31\",\"ts\":\"2024-01-"
      "02T03:04:05.500000\","
      "\"tz\":\"2024-01-02T02:04:05.000000+00:00\",\"s\":\"12\",\"e\":null}\n"
      "{\"b\":null,\"l\":null,\"d\":null,\"dt\":null,\"ts\":null,\"tz\":null,\"s\":null,\"e\":null}"
      "\n");
  fl_buf_free(&sch);
}

TEST(csv_given_schema_by_name_and_position) {
  const char *text = "z,id,name\n9,1,ann\n8,2,bob\n";
  CHECK_STR(read_csv("n.csv", text, "name string, id int, missing double", false, 4096, NULL),
            "{\"name\":\"ann\",\"id\":1,\"missing\":null}\n{\"name\":\"bob\",\"id\":2,\"missing\":"
            "null}\n");
  CHECK_STR(read_csv("p.csv", "1,a\n2,b\n", "id long, s string", true, 4096, NULL),
            "{\"id\":1,\"s\":\"a\"}\n{\"id\":2,\"s\":\"b\"}\n");
  fl_buf_t sch;
  fl_buf_init(&sch);
  read_csv("p.csv", "1,a\n", NULL, true, 4096, &sch);
  CHECK(sch.len == strlen("f0 long, f1 string") &&
        memcmp(sch.data, "f0 long, f1 string", sch.len) == 0);
  fl_buf_free(&sch);
  /* Tab-separated by extension. */
  CHECK_STR(read_csv("x.tsv", "a\tb\n1,5\t\"q\"\n", NULL, false, 4096, NULL),
            "{\"a\":\"1,5\",\"b\":\"q\"}\n");
  /* Nested columns read their JSON text. */
  CHECK_STR(read_csv("j.csv", "id,l,m\n1,\"[1,null,3]\",\"{\"\"a\"\":{\"\"x\"\":2}}\"\n",
                     "id long, l list<int>, m map<string, struct<x: long>>", false, 4096, NULL),
            "{\"id\":1,\"l\":[1,null,3],\"m\":{\"a\":{\"x\":2}}}\n");
}

TEST(csv_errors_name_line_and_column) {
  const char *got =
      read_csv("e1.csv", "id,age\n1,2\n\"2\nx\",abc\n", "id string, age int", false, 4096, NULL);
  CHECK(strstr(got, "ERR INVALID"));
  CHECK(strstr(got, "e1.csv: line 4, column 4: field 'age': expected an integer, found \"abc\""));
  got = read_csv("e2.csv", "a,b\n1,\"open\n2,3\n", NULL, false, 4096, NULL);
  CHECK(strstr(got, "ERR PARSE"));
  CHECK(strstr(got, "line 2, column 3: unterminated quoted field"));
  got = read_csv("e3.csv", "a,b\n1,2,3\n", "a long, b long", false, 4096, NULL);
  CHECK(strstr(got, "line 2: expected 2 fields, found 3"));
  got = read_csv("e4.csv", "a,b\n1,\"x\"y\n", "a long, b string", false, 4096, NULL);
  CHECK(strstr(got, "line 2, column 6: unexpected character after a closing quote"));
  got = read_csv("e5.csv", "a,b\n\n1,2\n\n\n", "a long not null, b int", false, 4096, NULL);
  CHECK_STR(got, "{\"a\":1,\"b\":2}\n");
  got = read_csv("e5b.csv", "a\n1\n\n2\n", "a long", false, 4096, NULL);
  CHECK_STR(got, "{\"a\":1}\n{\"a\":null}\n{\"a\":2}\n");
  got = read_csv("e6.csv", "a,b\n,1\n", "a long not null, b int", false, 4096, NULL);
  CHECK(strstr(got, "line 2, column 1: field 'a': empty (null) value for a required field"));
  got = read_csv("e7.csv", "a\n\xff\n", "a string", false, 4096, NULL);
  CHECK(strstr(got, "invalid UTF-8"));
  got = read_csv("e8.csv", "b\n12\n", "a long not null", false, 4096, NULL);
  CHECK(strstr(got, "required column 'a' is not in the file"));
}

TEST(csv_many_rows_across_batches) {
  fl_buf_t t;
  fl_buf_init(&t);
  fl_buf_append_str(&t, "\xEF\xBB\xBFn,s\n");
  for (int i = 0; i < 5000; i++) fl_buf_printf(&t, "%d,\"v%d\"\r\n", i, i);
  fl_buf_append_u8(&t, 0);
  char path[512];
  snprintf(path, sizeof path, "%s/many.csv", t_tmpdir());
  fl_err_t err;
  CHECK_OK(io_write_all(io_local_fs(), path, t.data, t.len - 1, &err), &err);
  size_t saved = csv__reader_chunk_bytes;
  csv__reader_chunk_bytes = 1000;
  fmt_reader_t *r;
  CHECK_OK(fmt_open_reader(io_local_fs(), path, NULL, &r, &err), &err);
  CHECK_STR(r->schema->root.fields[0].name, "n");
  int64_t expect = 0;
  for (;;) {
    ty_batch_t *b;
    CHECK_OK(r->next(r, &b, &err), &err);
    if (!b) break;
    for (uint32_t i = 0; i < b->nrows; i++, expect++) {
      CHECK_EQ(TY_VEC_DATA(b->cols[0], int64_t)[i], expect);
      size_t n;
      const uint8_t *p = ty_vec_get_bytes(b->cols[1], i, &n);
      char want[32];
      int wn = snprintf(want, sizeof want, "v%lld", (long long)expect);
      CHECK_EQ(n, (size_t)wn);
      CHECK_MEM(p, want, n);
    }
  }
  CHECK_EQ(expect, 5000);
  r->close(r);
  csv__reader_chunk_bytes = saved;
  fl_buf_free(&t);
}

TEST(csv_round_trip_writer_reader) {
  const char *sch =
      "id long not null, s string, d double, m decimal(12,3), dt date, ts timestamptz, t time, "
      "u uuid, x binary, b boolean, l list<string>, st struct<a: int, b: string>";
  const char *rows =
      "id,s,d,m,dt,ts,t,u,x,b,l,st\n"
      "1,\"a,\"\"b\"\"\nc\",NaN,-1.250,1970-01-01,2024-05-06T07:08:09.123456+00:00,00:00:01,"
      "123e4567-e89b-12d3-a456-426614174000,cafe,true,\"[\"\"x\"\",null]\",\"{\"\"a\"\":1,"
      "\"\"b\"\":\"\",\"\"}\"\n"
      "2,\"\",-0.5,,,,,,,false,[],\n"
      "3,,,,,,,,,,,\n";
  const char *first = read_csv("rt_in.csv", rows, sch, false, 4096, NULL);
  CHECK(strncmp(first, "ERR", 3) != 0);
  char want[4096];
  snprintf(want, sizeof want, "%s", first);
  /* Write what was read and read it back: the same values. */
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s;
  fl_err_t err;
  CHECK_OK(ty_schema_parse(a, sch, &s, &err), &err);
  char in[512], outp[512];
  snprintf(in, sizeof in, "%s/rt_in.csv", t_tmpdir());
  snprintf(outp, sizeof outp, "%s/rt_out.csv", t_tmpdir());
  fmt_read_opts_t ro = {.schema = s};
  fmt_reader_t *r;
  CHECK_OK(fmt_open_reader(io_local_fs(), in, &ro, &r, &err), &err);
  fmt_writer_t *w;
  CHECK_OK(fmt_open_writer(io_local_fs(), outp, s, NULL, &w, &err), &err);
  for (;;) {
    ty_batch_t *b;
    CHECK_OK(r->next(r, &b, &err), &err);
    if (!b) break;
    CHECK_OK(w->write(w, b, &err), &err);
  }
  CHECK_OK(w->close(w, &err), &err);
  r->close(r);
  uint8_t *data;
  size_t len;
  CHECK_OK(io_read_all(io_local_fs(), outp, 1 << 20, &data, &len, &err), &err);
  char *text = fl_strndup((const char *)data, len);
  CHECK_STR(read_csv("rt_again.csv", text, sch, false, 5, NULL), want);
  CHECK(strstr(want, "\"s\":\"a,\\\"b\\\"\\nc\""));
  CHECK(strstr(want, "\"st\":{\"a\":1,\"b\":\",\"}"));
  fl_free(text);
  fl_free(data);
  fl_arena_free(a);
}

/* Decodes each record with one decoder and returns the rows as JSON lines;
 * a failing record prints "ERR <msg>" and a skipped one "-". */
static char *decode_records(const char *schema, const csv_dialect_t *d, const char *const *recs,
                            size_t n) {
  static char result[4096];
  fl_arena_t *a = fl_arena_new(0);
  ty_schema_t *s;
  fl_err_t err;
  if (ty_schema_parse(a, schema, &s, &err)) abort();
  csv_record_decoder_t *dec;
  fl_buf_t out;
  fl_buf_init(&out);
  if (csv_record_decoder_new(s, d, &dec, &err)) {
    fl_buf_printf(&out, "NEW %s", err.msg);
  } else {
    ty_batch_t *b = ty_batch_new(s, TY_BATCH_ROWS);
    for (size_t i = 0; i < n; i++) {
      bool app;
      uint32_t before = b->nrows;
      if (csv_record_decode(dec, recs[i], strlen(recs[i]), b, &app, &err)) {
        bool left = b->nrows != before;
        for (uint32_t c = 0; c < b->ncols; c++) left |= b->cols[c]->len != before;
        fl_buf_printf(&out, "ERR %s%s\n", err.msg, left ? " (a partial row is left)" : "");
      } else if (!app) {
        fl_buf_printf(&out, "-\n");
      } else {
        js_append_row(&out, b, b->nrows - 1);
        fl_buf_append_u8(&out, '\n');
      }
    }
    ty_batch_free(b);
    csv_record_decoder_free(dec);
  }
  size_t k = out.len < sizeof result - 1 ? out.len : sizeof result - 1;
  memcpy(result, out.data, k);
  result[k] = '\0';
  fl_buf_free(&out);
  fl_arena_free(a);
  return result;
}

TEST(csv_records_flink_options) {
  const char *sch = "id long, name string, price decimal(10,2), ts timestamp";
  const char *recs[] = {"1,ab,1.50,2024-01-02 03:04:05.678",
                        "2,\"x,\"\"y\"\"\",,2024-01-02\r\n",
                        "3,z,abc,2024-01-02",
                        "4,z",
                        "5,a,1,2024-01-01\n6,b,2,2024-01-01",
                        "7,,0,2024-01-01"};
  CHECK_STR(
      decode_records(sch, NULL, recs, 6),
      "{\"id\":1,\"name\":\"ab\",\"price\":\"1.50\",\"ts\":\"2024-01-02T03:04:05.678000\"}\n"
      "{\"id\":2,\"name\":\"x,\\\"y\\\"\",\"price\":null,\"ts\":\"2024-01-02T00:00:00.000000\"}\n"
      "ERR record: line 1, column 5: field 'price': expected a decimal number that fits the "
      "column's precision and "
      "scale, found \"abc\"\n"
      "ERR record: expected 4 fields, found 2\n"
      "ERR record: more than one CSV record (a line break at byte 17)\n"
      "{\"id\":7,\"name\":null,\"price\":\"0.00\",\"ts\":\"2024-01-01T00:00:00.000000\"}\n");
  /* Another delimiter, quote, escape, the null literal, comments. */
  csv_dialect_t d = {.delimiter = '|',
                     .quote = '\'',
                     .escape = '\\',
                     .allow_comments = true,
                     .null_literal = "NULL"};
  const char *r2[] = {"1|'a|b'|NULL|2024-01-01", "# a comment", "2|c\\|d|3|NULL",
                      "3|'it''s \\' ok'|4|2024-01-01"};
  CHECK_STR(decode_records(sch, &d, r2, 4),
            "{\"id\":1,\"name\":\"a|b\",\"price\":null,\"ts\":\"2024-01-01T00:00:00.000000\"}\n"
            "-\n"
            "{\"id\":2,\"name\":\"c|d\",\"price\":\"3.00\",\"ts\":null}\n"
            "{\"id\":3,\"name\":\"it's ' "
            "ok\",\"price\":\"4.00\",\"ts\":\"2024-01-01T00:00:00.000000\"}\n");
  /* Quoting disabled: a quote is a plain character. */
  csv_dialect_t nq = {.no_quote = true};
  const char *r3[] = {"1,\"a,b\",1,2024-01-01"};
  CHECK_STR(decode_records(sch, &nq, r3, 1), "ERR record: expected 4 fields, found 5\n");
  const char *r4[] = {"1,\"a\",1,2024-01-01"};
  CHECK_STR(decode_records(sch, &nq, r4, 1),
            "{\"id\":1,\"name\":\"\\\"a\\\"\",\"price\":\"1.00\",\"ts\":\"2024-01-01T00:00:00."
            "000000\"}\n");
  /* NOT NULL columns, arrays and rows with the element delimiter. */
  const char *r5[] = {"1,a;b;;c,7;x", ",a,1;y", "2,,", "3,a,1;y;z"};
  CHECK_STR(
      decode_records("id long not null, tags list<string>, r struct<n int, s string>", NULL, r5, 4),
      "{\"id\":1,\"tags\":[\"a\",\"b\",null,\"c\"],\"r\":{\"n\":7,\"s\":\"x\"}}\n"
      "ERR record: line 1, column 1: field 'id': null value for a NOT NULL column\n"
      "{\"id\":2,\"tags\":null,\"r\":null}\n"
      "ERR record: line 1, column 5: field 'r': more fields than the row type has, found "
      "\"1;y;z\"\n");
  CHECK(strstr(decode_records("m map<string, int>", NULL, r5, 0), "NEW csv: column 'm'"));
  csv_dialect_t same = {.delimiter = ';', .quote = ';'};
  CHECK(strstr(decode_records(sch, &same, r5, 0), "NEW csv: the field delimiter"));
}
