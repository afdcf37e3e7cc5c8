/*
 * error.c - error objects and the code table (layer 1, base).
 */
#include "base/error.h"

#include <stdio.h>
#include <string.h>

static const char *const code_names[] = {
#define FL__ERR_NAME(name, msg) #name,
    FL_ERRNO_MAP(FL__ERR_NAME)
#undef FL__ERR_NAME
};

static const char *const code_messages[] = {
#define FL__ERR_MSG(name, msg) msg,
    FL_ERRNO_MAP(FL__ERR_MSG)
#undef FL__ERR_MSG
};

const char *fl_code_name(int code) {
  if (code < 0 || code >= FL_E_COUNT) return "UNKNOWN";
  return code_names[code];
}

const char *fl_code_message(int code) {
  if (code < 0 || code >= FL_E_COUNT) return "unknown error";
  return code_messages[code];
}

void fl_err_clear(fl_err_t *err) {
  if (!err) return;
  err->code = FL_OK;
  err->retriable = false;
  err->msg[0] = '\0';
}

int fl_err_setv(fl_err_t *err, int code, const char *fmt, va_list ap) {
  if (!err) return code;
  err->code = code;
  err->retriable = false;
  if (fmt)
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  else
    snprintf(err->msg, sizeof err->msg, "%s", fl_code_message(code));
  return code;
}

int fl_err_set(fl_err_t *err, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fl_err_setv(err, code, fmt, ap);
  va_end(ap);
  return code;
}

int fl_err_set_retriable(fl_err_t *err, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fl_err_setv(err, code, fmt, ap);
  va_end(ap);
  if (err) err->retriable = true;
  return code;
}

int fl_err_prefix(fl_err_t *err, const char *fmt, ...) {
  if (!err) return FL_EINTERNAL;
  char head[sizeof err->msg];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(head, sizeof head, fmt, ap);
  va_end(ap);
  if (n < 0) return err->code;
  char old[sizeof err->msg];
  memcpy(old, err->msg, sizeof old);
  size_t hn = (size_t)n < sizeof err->msg - 1 ? (size_t)n : sizeof err->msg - 1;
  memcpy(err->msg, head, hn);
  size_t on = strlen(old);
  if (on > sizeof err->msg - 1 - hn) on = sizeof err->msg - 1 - hn;
  memcpy(err->msg + hn, old, on);
  err->msg[hn + on] = '\0';
  return err->code;
}
