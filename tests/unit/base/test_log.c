/*
 * test_log.c - the JSON-lines log: the exact line for a given time and
 * fields (RFC 3339 UTC with milliseconds, escapes, invalid UTF-8, null,
 * non-finite numbers); the level threshold; many threads writing long
 * lines to one file give whole lines that each parse as JSON (checked with
 * jansson) and none is lost; an unopenable path names itself.
 */
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "base/log.h"
#include "test.h"

TEST(log_format_exact_line) {
  fl_buf_t b;
  fl_buf_init(&b);
  /* 2024-02-29T23:59:59.999 UTC, in microseconds (the .999999 rounds down). */
  int64_t us = 1709251199999999LL;
  const fl_log_field_t f[] = {FL_LF_STR("topic", "a\"b\\c\n\t\x01"),
                              FL_LF_INT("partition", -3),
                              FL_LF_UINT("records", 18446744073709551615ULL),
                              FL_LF_DBL("ratio", 0.1),
                              FL_LF_DBL("bad", NAN),
                              FL_LF_BOOL("ok", true),
                              FL_LF_STR("none", NULL),
                              FL_LF_STR("bytes", "caf\xc3\xa9 \xff\xc3"),
                              FL_LF_STR("surrogate", "\xed\xa0\x80")};
  fl_log_format(us, FL_LOG_WARN, "stopped \"now\"", f, sizeof f / sizeof f[0], &b);
  fl_buf_append_u8(&b, 0);
  CHECK_STR((const char *)b.data,
            "{\"ts\":\"2024-02-29T23:59:59.999Z\",\"level\":\"warn\",\"msg\":\"stopped "
            "\\\"now\\\"\",\"topic\":\"a\\\"b\\\\c\\n\\t\\u0001\",\"partition\":-3,"
            "\"records\":18446744073709551615,\"ratio\":0.1,\"bad\":null,\"ok\":true,\"none\":null,"
            "\"bytes\":\"caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd\",\"surrogate\":"
            "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"}\n");
  /* Before 1970 the calendar still holds (floor division). */
  fl_buf_clear(&b);
  fl_log_format(-1000, FL_LOG_DEBUG, "m", NULL, 0, &b);
  fl_buf_append_u8(&b, 0);
  CHECK_STR((const char *)b.data,
            "{\"ts\":\"1969-12-31T23:59:59.999Z\",\"level\":\"debug\",\"msg\":\"m\"}\n");
  /* JSON values go in as they are. */
  fl_buf_clear(&b);
  const fl_log_field_t j[] = {FL_LF_JSON("offsets", "{\"0\":[1,2]}"), FL_LF_JSON("none", NULL)};
  fl_log_format(0, FL_LOG_INFO, "c", j, 2, &b);
  fl_buf_append_u8(&b, 0);
  CHECK_STR((const char *)b.data,
            "{\"ts\":\"1970-01-01T00:00:00.000Z\",\"level\":\"info\",\"msg\":"
            "\"c\",\"offsets\":{\"0\":[1,2]},\"none\":null}\n");
  fl_buf_free(&b);
  fl_log_level_t l;
  CHECK(fl_log_level_parse("warning", &l) && l == FL_LOG_WARN);
  CHECK(fl_log_level_parse("error", &l) && l == FL_LOG_ERROR);
  CHECK(!fl_log_level_parse("loud", &l));
}

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = fl_malloc((size_t)n + 1);
  *len = fread(s, 1, (size_t)n, f);
  s[*len] = 0;
  fclose(f);
  return s;
}

TEST(log_level_threshold_and_open_error) {
  fl_err_t err;
  char path[600];
  snprintf(path, sizeof path, "%s/level.log", t_tmpdir());
  remove(path);
  fl_log_t *l;
  CHECK_OK(fl_log_open(path, FL_LOG_INFO, &l, &err), &err);
  CHECK(!fl_log_enabled(l, FL_LOG_DEBUG));
  CHECK(fl_log_enabled(l, FL_LOG_ERROR));
  FL_LOG(l, FL_LOG_DEBUG, "hidden", FL_LF_INT("n", 1));
  FL_LOG(l, FL_LOG_INFO, "shown", FL_LF_INT("n", 2));
  fl_log_write(l, FL_LOG_ERROR, "bad", NULL, 0);
  fl_log_close(l);
  /* Appends to an existing file. */
  CHECK_OK(fl_log_open(path, FL_LOG_DEBUG, &l, &err), &err);
  FL_LOG(l, FL_LOG_DEBUG, "again", FL_LF_STR("k", "v"));
  fl_log_close(l);
  fl_log_write(NULL, FL_LOG_ERROR, "no log", NULL, 0);
  size_t len;
  char *s = read_all(path, &len);
  CHECK(s != NULL);
  CHECK(strstr(s, "hidden") == NULL);
  int lines = 0;
  for (char *p = s; *p; p++) lines += *p == '\n';
  CHECK_EQ(lines, 3);
  CHECK(strstr(s, "\"level\":\"info\",\"msg\":\"shown\",\"n\":2}") != NULL);
  CHECK(strstr(s, "\"level\":\"error\",\"msg\":\"bad\"}") != NULL);
  CHECK(strstr(s, "\"msg\":\"again\",\"k\":\"v\"}") != NULL);
  fl_free(s);
  CHECK_ERR(fl_log_open("/nonexistent-dir/x/y.log", FL_LOG_INFO, &l, &err), FL_EIO);
  CHECK(strstr(err.msg, "/nonexistent-dir/x/y.log") != NULL);
}

#define LOG_THREADS 8
#define LOG_LINES 1500

typedef struct writer {
  fl_log_t *log;
  int id;
} writer_t;

static void *writer_run(void *arg) {
  writer_t *w = arg;
  /* Long values, so that a line is several kilobytes and a torn write
   * would show. */
  char pad[3000];
  memset(pad, 'a' + w->id, sizeof pad - 1);
  pad[sizeof pad - 1] = 0;
  for (int i = 0; i < LOG_LINES; i++)
    FL_LOG(w->log, FL_LOG_INFO, "tick", FL_LF_INT("thread", w->id), FL_LF_INT("seq", i),
           FL_LF_STR("pad", pad));
  return NULL;
}

TEST(log_concurrent_lines_stay_whole) {
  fl_err_t err;
  char path[600];
  snprintf(path, sizeof path, "%s/concurrent.log", t_tmpdir());
  remove(path);
  fl_log_t *l;
  CHECK_OK(fl_log_open(path, FL_LOG_INFO, &l, &err), &err);
  pthread_t th[LOG_THREADS];
  writer_t w[LOG_THREADS];
  for (int i = 0; i < LOG_THREADS; i++) {
    w[i] = (writer_t){l, i};
    pthread_create(&th[i], NULL, writer_run, &w[i]);
  }
  for (int i = 0; i < LOG_THREADS; i++) pthread_join(th[i], NULL);
  fl_log_close(l);
  size_t len;
  char *s = read_all(path, &len);
  CHECK(s != NULL);
  int next_seq[LOG_THREADS] = {0};
  int lines = 0;
  bool ok = true;
  for (char *p = s; *p && ok;) {
    char *nl = strchr(p, '\n');
    if (!nl) {
      ok = false;
      break;
    }
    json_error_t je;
    json_t *o = json_loadb(p, (size_t)(nl - p), 0, &je);
    if (!o) {
      t_fail(__FILE__, __LINE__, "line %d is not JSON: %s", lines + 1, je.text);
      ok = false;
      break;
    }
    const char *ts = json_string_value(json_object_get(o, "ts"));
    int id = (int)json_integer_value(json_object_get(o, "thread"));
    int seq = (int)json_integer_value(json_object_get(o, "seq"));
    const char *pad = json_string_value(json_object_get(o, "pad"));
    /* Lines of one thread come in its order; the padding is that thread's. */
    ok = ts && strlen(ts) == 24 && ts[10] == 'T' && ts[23] == 'Z' && id >= 0 && id < LOG_THREADS &&
         seq == next_seq[id] && pad && strlen(pad) == 2999 && pad[0] == 'a' + id &&
         pad[2998] == 'a' + id &&
         strcmp(json_string_value(json_object_get(o, "level")), "info") == 0;
    if (ok) next_seq[id]++;
    json_decref(o);
    lines++;
    p = nl + 1;
  }
  fl_free(s);
  CHECK(ok);
  CHECK_EQ(lines, LOG_THREADS * LOG_LINES);
  for (int i = 0; i < LOG_THREADS; i++) CHECK_EQ(next_seq[i], LOG_LINES);
}
