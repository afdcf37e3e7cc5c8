/*
 * test_main.c - runner for the registered unit tests.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"

#define MAX_TESTS 1024

static struct {
  const char *name;
  t_fn fn;
} tests[MAX_TESTS];
static int ntests;
static int current_failed;
static char tmpdir[512];

void t_register(const char *name, t_fn fn) {
  if (ntests == MAX_TESTS) {
    fprintf(stderr, "too many tests\n");
    exit(2);
  }
  tests[ntests].name = name;
  tests[ntests].fn = fn;
  ntests++;
}

void t_fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "  %s:%d: ", file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  current_failed = 1;
}

const char *t_tmpdir(void) {
  if (!tmpdir[0]) {
    const char *base = getenv("FLOE_TMP");
    if (!base) base = "/tmp";
    mkdir(base, 0777);
    snprintf(tmpdir, sizeof tmpdir, "%s/unit-%d", base, (int)getpid());
    if (mkdir(tmpdir, 0777) != 0 && errno != EEXIST) {
      fprintf(stderr, "cannot create %s\n", tmpdir);
      exit(2);
    }
  }
  return tmpdir;
}

const char *t_testdata(void) {
  const char *d = getenv("FLOE_TESTDATA");
  return d ? d : "../shared/testdata";
}

int main(int argc, char **argv) {
  int passed = 0, failed = 0;
  for (int i = 0; i < ntests; i++) {
    if (argc > 1) {
      bool wanted = false;
      for (int a = 1; a < argc; a++)
        if (strcmp(argv[a], tests[i].name) == 0) wanted = true;
      if (!wanted) continue;
    }
    current_failed = 0;
    tests[i].fn();
    printf("%s %s\n", current_failed ? "FAIL" : "ok  ", tests[i].name);
    if (current_failed)
      failed++;
    else
      passed++;
  }
  if (tmpdir[0] && failed == 0) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : (passed ? 0 : 1);
}
