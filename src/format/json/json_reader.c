/*
 * json_reader.c - the JSON-lines fmt_reader_t: streams a file through the
 * decoder in large chunks read with io_reader_t read_at, never holding the
 * whole file. A row cut by the end of a chunk is carried to the front of
 * the buffer and completed by the next read; a row longer than the buffer
 * grows it (up to a limit). Without a given schema, the schema is inferred
 * from the first rows of the file.
 *
 * A file holding one JSON array of objects (FMT_JSON_ARRAY, or
 * FMT_JSON_AUTO when its first non-blank byte is '[') is read whole and
 * rewritten as JSON lines in memory, one object a line, so the same
 * decoder and inference serve it; its size is limited to MAX_ARRAY_BYTES.
 */
#include <string.h>

#include "base/alloc.h"
#include "format/format.h"
#include "format/json/json_decoder.h"
#include "format/json/json_int.h"
#include "io/window.h"

#define MAX_ROW_BYTES ((size_t)1 << 30)

#define MAX_ARRAY_BYTES ((size_t)1 << 30)

size_t js__reader_chunk_bytes = (size_t)4 << 20;

/* ---- a JSON array file as JSON lines in memory ---- */

typedef struct mem_reader {
  io_reader_t base;
  char *path;
  uint8_t *data;
} mem_reader_t;

static int mem_read_at(io_reader_t *r, uint64_t off, void *buf, size_t n, fl_err_t *err) {
  mem_reader_t *m = (mem_reader_t *)r;
  if (off > m->base.size || n > m->base.size - off)
    return fl_err_set(err, FL_EIO, "%s: read past the end", m->path);
  memcpy(buf, m->data + off, n);
  return FL_OK;
}

static void mem_close(io_reader_t *r) {
  mem_reader_t *m = (mem_reader_t *)r;
  fl_free(m->data);
  fl_free(m->path);
  fl_free(m);
}

static bool is_ws(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* The line and column of byte i of p, for messages. */
static void where(const uint8_t *p, size_t i, uint64_t *line, uint64_t *col) {
  *line = 1;
  size_t ls = 0;
  for (size_t k = 0; k < i; k++)
    if (p[k] == '\n') {
      (*line)++;
      ls = k + 1;
    }
  *col = i - ls + 1;
}

/* Rewrites "[{...}, {...}]" in place as "{...}\n{...}\n": every element
 * must be an object; newlines inside an object become spaces. */
static int array_to_lines(const char *path, const uint8_t *p, size_t n, uint8_t *q, size_t *out_len,
                          fl_err_t *err) {
  size_t i = 0, o = 0;
  uint64_t line, col;
  while (i < n && is_ws(p[i])) i++;
  if (i == n || p[i] != '[') {
    where(p, i, &line, &col);
    return fl_err_set(err, FL_ECORRUPT, "%s: line %llu, column %llu: expected a JSON array", path,
                      (unsigned long long)line, (unsigned long long)col);
  }
  i++;
  bool first = true;
  for (;;) {
    while (i < n && is_ws(p[i])) i++;
    if (i < n && p[i] == ']' && first) {
      i++;
      break;
    }
    if (i == n || p[i] != '{') {
      where(p, i, &line, &col);
      return fl_err_set(err, FL_ECORRUPT,
                        "%s: line %llu, column %llu: expected an object as array element", path,
                        (unsigned long long)line, (unsigned long long)col);
    }
    size_t start = i;
    int depth = 0;
    bool in_str = false;
    for (; i < n; i++) {
      uint8_t c = p[i];
      if (in_str) {
        if (c == '\\' && i + 1 < n) {
          q[o++] = c;
          c = p[++i];
        } else if (c == '"') {
          in_str = false;
        }
      } else if (c == '"') {
        in_str = true;
      } else if (c == '{' || c == '[') {
        depth++;
      } else if (c == '}' || c == ']') {
        depth--;
      } else if (c == '\n' || c == '\r') {
        c = ' ';
      }
      q[o++] = c;
      if (!in_str && depth == 0) {
        i++;
        break;
      }
    }
    if (depth != 0 || in_str) {
      where(p, start, &line, &col);
      return fl_err_set(err, FL_ECORRUPT,
                        "%s: line %llu, column %llu: the array element is cut off by the end of "
                        "the file",
                        path, (unsigned long long)line, (unsigned long long)col);
    }
    q[o++] = '\n';
    first = false;
    while (i < n && is_ws(p[i])) i++;
    if (i < n && p[i] == ',') {
      i++;
      continue;
    }
    if (i < n && p[i] == ']') {
      i++;
      break;
    }
    if (i == n)
      return fl_err_set(err, FL_ECORRUPT, "%s: the JSON array is cut off by the end of the file",
                        path);
    where(p, i, &line, &col);
    return fl_err_set(err, FL_ECORRUPT, "%s: line %llu, column %llu: expected ',' or ']'", path,
                      (unsigned long long)line, (unsigned long long)col);
  }
  while (i < n && is_ws(p[i])) i++;
  if (i < n) {
    where(p, i, &line, &col);
    return fl_err_set(err, FL_ECORRUPT, "%s: line %llu, column %llu: text after the JSON array",
                      path, (unsigned long long)line, (unsigned long long)col);
  }
  *out_len = o;
  return FL_OK;
}

/* Opens path as JSON lines: the file itself, or an array file rewritten. */
static int open_input(io_fs_t *fs, const char *path, const fmt_read_opts_t *opts, io_reader_t **out,
                      fl_err_t *err) {
  io_reader_t *in;
  int rc = fs->open_read(fs, path, &in, err);
  if (rc) return rc;
  bool array = opts->json_format == FMT_JSON_ARRAY;
  if (opts->json_format == FMT_JSON_AUTO) {
    uint8_t head[256];
    size_t n = in->size < sizeof head ? (size_t)in->size : sizeof head, k = 0;
    if (n && (rc = in->read_at(in, 0, head, n, err))) {
      in->close(in);
      return rc;
    }
    /* A byte-order mark, then blanks. */
    if (n >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF) k = 3;
    while (k < n && is_ws(head[k])) k++;
    array = k < n && head[k] == '[';
  }
  if (!array) {
    *out = in;
    return FL_OK;
  }
  if (in->size > MAX_ARRAY_BYTES) {
    rc = fl_err_set(err, FL_ELIMIT,
                    "%s: a JSON array file of %llu bytes is more than the %zu allowed", path,
                    (unsigned long long)in->size, MAX_ARRAY_BYTES);
    in->close(in);
    return rc;
  }
  size_t n = (size_t)in->size;
  uint8_t *data = fl_try_malloc(n ? n + 1 : 1);
  if (!data) {
    in->close(in);
    return fl_err_set(err, FL_ENOMEM, "%s: out of memory reading the file", path);
  }
  rc = n ? in->read_at(in, 0, data, n, err) : FL_OK;
  in->close(in);
  size_t skip = n >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF ? 3 : 0;
  size_t len = 0;
  uint8_t *lines = NULL;
  if (!rc) {
    lines = fl_try_malloc(n ? n : 1);
    if (!lines)
      rc = fl_err_set(err, FL_ENOMEM, "%s: out of memory reading the file", path);
    else
      rc = array_to_lines(path, data + skip, n - skip, lines, &len, err);
  }
  fl_free(data);
  data = lines;
  if (rc) {
    fl_free(data);
    return rc;
  }
  mem_reader_t *m = fl_calloc(1, sizeof *m);
  m->path = fl_strdup(path);
  m->data = data;
  m->base.path = m->path;
  m->base.size = len;
  m->base.read_at = mem_read_at;
  m->base.close = mem_close;
  *out = &m->base;
  return FL_OK;
}

typedef struct js_reader {
  fmt_reader_t base;
  io_window_t win;
  fl_arena_t *arena; /* the inferred schema */
  js_decoder_t *dec;
  ty_batch_t *batch;
  bool done;
} js_reader_t;

static int js_next(fmt_reader_t *fr, ty_batch_t **out, fl_err_t *err) {
  js_reader_t *r = (js_reader_t *)fr;
  *out = NULL;
  if (r->done) return FL_OK;
  ty_batch_reset(r->batch);
  for (;;) {
    size_t used;
    bool more = !io_window_at_eof(&r->win);
    int rc = js_decode_chunk(r->dec, r->win.buf + r->win.start, r->win.len - r->win.start, more,
                             r->batch, &used, err);
    r->win.start += used;
    if (rc) {
      r->done = true;
      return fl_err_prefix(err, "%s: ", r->win.in->path);
    }
    if (r->batch->nrows >= TY_BATCH_ROWS) break;
    if (!more) {
      r->done = true;
      break;
    }
    if ((rc = io_window_fill(&r->win, err))) {
      r->done = true;
      return rc;
    }
  }
  if (r->batch->nrows) *out = r->batch;
  return FL_OK;
}

static void js_close_reader(fmt_reader_t *fr) {
  js_reader_t *r = (js_reader_t *)fr;
  if (!r) return;
  ty_batch_free(r->batch);
  js_decoder_free(r->dec);
  io_window_free(&r->win);
  fl_arena_free(r->arena);
  fl_free(r);
}

int js_fmt_open_reader(io_fs_t *fs, const char *path, const fmt_read_opts_t *opts,
                       fmt_reader_t **out, fl_err_t *err) {
  io_reader_t *in;
  int rc = open_input(fs, path, opts, &in, err);
  if (rc) return rc;
  js_reader_t *r = fl_calloc(1, sizeof *r);
  r->arena = fl_arena_new(0);
  if ((rc = io_window_open(&r->win, in, js__reader_chunk_bytes, MAX_ROW_BYTES, err))) goto err;
  const ty_schema_t *schema = opts->schema;
  if (!schema) {
    uint32_t want = opts->infer_rows ? opts->infer_rows : 1000, rows = 0;
    ty_schema_t *s = NULL;
    /* Sample from the buffer, reading more while it holds fewer rows than
     * wanted and the file goes on (bounded by the row-size limit). */
    for (;;) {
      rc = js__infer(r->win.buf, r->win.len, want, !io_window_at_eof(&r->win), r->arena, &s, &rows,
                     err);
      if (rc) {
        fl_err_prefix(err, "%s: ", path);
        goto err;
      }
      if (rows >= want || io_window_at_eof(&r->win) || r->win.cap >= (size_t)64 << 20) break;
      if (r->win.len < r->win.cap) {
        if ((rc = io_window_fill(&r->win, err))) goto err;
        continue;
      }
      /* Full buffer, too few rows: grow it by reading on. */
      if ((rc = io_window_fill(&r->win, err))) goto err;
    }
    schema = s;
  }
  r->dec = js_decoder_new(schema, NULL);
  r->batch = ty_batch_new(schema, TY_BATCH_ROWS);
  r->base.schema = schema;
  r->base.next = js_next;
  r->base.close = js_close_reader;
  *out = &r->base;
  return FL_OK;
err:
  js_close_reader(&r->base);
  return rc;
}
