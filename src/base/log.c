/*
 * log.c - JSON-lines structured log (layer 1, base).
 *
 * A line is built in a buffer of the calling thread and handed to the kernel with one write(2)
 * while the log's mutex is held, so concurrent lines come out whole and in some order. A partial
 * write (a full pipe, a signal) is continued under the same lock.
 */
#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/time.h"

struct fl_log {
  int fd;
  bool own_fd;
  fl_log_level_t level;
  pthread_mutex_t mu;
};

static const char *const level_names[] = {"debug", "info", "warn", "error"};

const char *fl_log_level_name(fl_log_level_t level) {
  return (unsigned)level < 4 ? level_names[level] : "info";
}

bool fl_log_level_parse(const char *s, fl_log_level_t *out) {
  if (!s) return false;
  for (int i = 0; i < 4; i++)
    if (strcmp(s, level_names[i]) == 0) return *out = (fl_log_level_t)i, true;
  if (strcmp(s, "warning") == 0) return *out = FL_LOG_WARN, true;
  return false;
}

int fl_log_open(const char *path, fl_log_level_t level, fl_log_t **out, fl_err_t *err) {
  int fd = STDERR_FILENO;
  bool own = false;
  if (path && strcmp(path, "-") != 0) {
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return fl_err_set(err, FL_EIO, "log file %s: %s", path, strerror(errno));
    own = true;
  }
  fl_log_t *l = fl_calloc(1, sizeof *l);
  l->fd = fd;
  l->own_fd = own;
  l->level = level;
  pthread_mutex_init(&l->mu, NULL);
  *out = l;
  return FL_OK;
}

void fl_log_close(fl_log_t *l) {
  if (!l) return;
  if (l->own_fd) close(l->fd);
  pthread_mutex_destroy(&l->mu);
  fl_free(l);
}

bool fl_log_enabled(const fl_log_t *l, fl_log_level_t level) { return l && level >= l->level; }

/* The length of the valid UTF-8 sequence at p (1 to 4), or 0. */
static size_t utf8_len(const unsigned char *p, size_t left) {
  unsigned char c = p[0];
  size_t n;
  uint32_t cp;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf)
    n = 2, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef)
    n = 3, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4)
    n = 4, cp = c & 0x07;
  else
    return 0;
  if (left < n) return 0;
  for (size_t i = 1; i < n; i++) {
    if ((p[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3f);
  }
  /* Overlong forms, surrogates and code points past U+10FFFF. */
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
      (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}

void fl_json_escape(const char *s, size_t len, fl_buf_t *out) {
  const unsigned char *p = (const unsigned char *)s;
  fl_buf_append_u8(out, '"');
  size_t i = 0;
  while (i < len) {
    unsigned char c = p[i];
    if (c == '"' || c == '\\') {
      fl_buf_append_u8(out, '\\');
      fl_buf_append_u8(out, c);
      i++;
    } else if (c < 0x20) {
      switch (c) {
        case '\n': fl_buf_append_str(out, "\\n"); break;
        case '\r': fl_buf_append_str(out, "\\r"); break;
        case '\t': fl_buf_append_str(out, "\\t"); break;
        default: fl_buf_printf(out, "\\u%04x", c);
      }
      i++;
    } else if (c < 0x80) {
      fl_buf_append_u8(out, c);
      i++;
    } else {
      size_t n = utf8_len(p + i, len - i);
      if (n == 0) {
        fl_buf_append_str(out, "\xef\xbf\xbd");
        i++;
      } else {
        fl_buf_append(out, p + i, n);
        i += n;
      }
    }
  }
  fl_buf_append_u8(out, '"');
}

static void put_key(const char *key, fl_buf_t *out) {
  fl_buf_append_u8(out, ',');
  fl_json_escape(key ? key : "", key ? strlen(key) : 0, out);
  fl_buf_append_u8(out, ':');
}

void fl_log_format(int64_t now_us, fl_log_level_t level, const char *msg,
                   const fl_log_field_t *fields, uint32_t n, fl_buf_t *out) {
  int64_t days = fl_floordiv(now_us, FL_MICROS_PER_DAY);
  int64_t us = now_us - days * FL_MICROS_PER_DAY;
  int64_t y;
  unsigned mo, d;
  fl_civil_from_days(days, &y, &mo, &d);
  int64_t ms = us / 1000;
  fl_buf_printf(out, "{\"ts\":\"%04lld-%02u-%02uT%02d:%02d:%02d.%03dZ\",\"level\":\"%s\",\"msg\":",
                (long long)y, mo, d, (int)(ms / 3600000), (int)(ms / 60000 % 60),
                (int)(ms / 1000 % 60), (int)(ms % 1000), fl_log_level_name(level));
  fl_json_escape(msg ? msg : "", msg ? strlen(msg) : 0, out);
  for (uint32_t i = 0; i < n; i++) {
    const fl_log_field_t *f = &fields[i];
    put_key(f->key, out);
    switch (f->kind) {
      case FL_LOGF_STR:
        if (f->v.s)
          fl_json_escape(f->v.s, strlen(f->v.s), out);
        else
          fl_buf_append_str(out, "null");
        break;
      case FL_LOGF_INT: fl_buf_printf(out, "%lld", (long long)f->v.i); break;
      case FL_LOGF_UINT: fl_buf_printf(out, "%llu", (unsigned long long)f->v.u); break;
      case FL_LOGF_DOUBLE:
        if (isfinite(f->v.d)) {
          /* The shortest of 15 to 17 digits that reads back exactly. */
          char s[40];
          for (int prec = 15; prec <= 17; prec++) {
            snprintf(s, sizeof s, "%.*g", prec, f->v.d);
            if (strtod(s, NULL) == f->v.d) break;
          }
          fl_buf_append_str(out, s);
        } else {
          fl_buf_append_str(out, "null");
        }
        break;
      case FL_LOGF_BOOL: fl_buf_append_str(out, f->v.b ? "true" : "false"); break;
      case FL_LOGF_JSON: fl_buf_append_str(out, f->v.s ? f->v.s : "null"); break;
    }
  }
  fl_buf_append_str(out, "}\n");
}

void fl_log_write(fl_log_t *l, fl_log_level_t level, const char *msg, const fl_log_field_t *fields,
                  uint32_t n) {
  if (!fl_log_enabled(l, level)) return;
  fl_buf_t b;
  fl_buf_init(&b);
  fl_log_format(fl_now_micros(), level, msg, fields, n, &b);
  pthread_mutex_lock(&l->mu);
  size_t off = 0;
  while (off < b.len) {
    ssize_t w = write(l->fd, b.data + off, b.len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break; /* a log that cannot be written is not worth failing for */
    off += (size_t)w;
  }
  pthread_mutex_unlock(&l->mu);
  fl_buf_free(&b);
}
