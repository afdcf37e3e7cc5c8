/*
 * test.h - the unit test harness: tests register themselves in a list at
 * start-up and the runner executes all of them, or those named on the
 * command line, printing "N passed, N failed" at the end.
 */
#ifndef FLOE_TEST_H
#define FLOE_TEST_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"

typedef void (*t_fn)(void);
void t_register(const char *name, t_fn fn);
/* Records a failure of the running test; the CHECK macros return after it. */
void t_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A scratch directory for this test executable (created, unique per run). */
const char *t_tmpdir(void);
/* The shared test data folder ($FLOE_TESTDATA or ../shared/testdata). */
const char *t_testdata(void);

#define TEST(name)                                                           \
  static void name(void);                                                    \
  __attribute__((constructor)) static void t_reg_##name(void) { t_register(#name, name); } \
  static void name(void)

#define CHECK(cond)                                        \
  do {                                                     \
    if (!(cond)) {                                         \
      t_fail(__FILE__, __LINE__, "check failed: %s", #cond); \
      return;                                              \
    }                                                      \
  } while (0)

#define CHECK_EQ(a, b)                                                                      \
  do {                                                                                      \
    long long t_a = (long long)(a), t_b = (long long)(b);                                   \
    if (t_a != t_b) {                                                                       \
      t_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, t_a, t_b);               \
      return;                                                                               \
    }                                                                                       \
  } while (0)

#define CHECK_STR(a, b)                                                                     \
  do {                                                                                      \
    const char *t_a = (a), *t_b = (b);                                                      \
    if (!t_a || !t_b || strcmp(t_a, t_b) != 0) {                                            \
      t_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b, t_a ? t_a : "(null)", \
             t_b ? t_b : "(null)");                                                         \
      return;                                                                               \
    }                                                                                       \
  } while (0)

#define CHECK_MEM(a, b, n)                                                   \
  do {                                                                       \
    if (memcmp((a), (b), (n)) != 0) {                                        \
      t_fail(__FILE__, __LINE__, "%s and %s differ in %zu bytes", #a, #b, (size_t)(n)); \
      return;                                                                \
    }                                                                        \
  } while (0)

/* Checks that rc is FL_OK, printing the error message otherwise. */
#define CHECK_OK(rc, err)                                                                  \
  do {                                                                                     \
    int t_rc = (rc);                                                                       \
    if (t_rc != FL_OK) {                                                                   \
      t_fail(__FILE__, __LINE__, "%s failed: %s: %s", #rc, fl_code_name(t_rc), (err)->msg); \
      return;                                                                              \
    }                                                                                      \
  } while (0)

/* Checks that rc is the error code `code`. */
#define CHECK_ERR(rc, code)                                                                 \
  do {                                                                                      \
    int t_rc = (rc);                                                                        \
    if (t_rc != (code)) {                                                                   \
      t_fail(__FILE__, __LINE__, "%s: expected %s, got %s", #rc, fl_code_name(code), fl_code_name(t_rc)); \
      return;                                                                               \
    }                                                                                       \
  } while (0)

#endif
