/*
 * slt_runner.c - the sqllogictest runner for floe's SQL engine.
 *
 * Runs every tests/sql/ **.test file (or the files and folders named on the
 * command line), each against a fresh temporary warehouse, in the format
 * DuckDB uses:
 *
 *   statement ok | statement error      a statement, up to a blank line;
 *   <sql>                               for error, an optional "----" line
 *   [----                               and a text the message must contain
 *   expected message part]
 *
 *   query <types> [nosort|rowsort]      types: one letter per column,
 *   <sql>                               I integral, R real/double/decimal,
 *   ----                                B boolean, T anything else;
 *   expected rows, tab-separated        NULL for SQL NULL, (empty) for ''
 *
 * and two directives of floe's own for setting tables up:
 *
 *   exec table create default.t --schema 'id long, s string'
 *                                       runs a floe command against the
 *                                       test's warehouse
 *   file data.csv                       writes the lines up to a blank
 *   id,s                                line to __TEST_DIR__/data.csv
 *   1,a                                 (NAME may hold subfolders: d/x.csv)
 *
 * __TEST_DIR__ in SQL and commands is the test's temporary folder. Every
 * failing record prints file:line and what differed; the exit status is
 * 1 when any record failed.
 *
 * `--threads N` (before the paths) runs every query with N threads (0, the
 * default: one per core); SET SESSION threads = N in a file changes it
 * for the rest of that file. __THREADS__ in expected rows stands for the
 * number in effect, so EXPLAIN ANALYZE output compares under any setting;
 * __ANY__ matches any text (timings).
 * ctest runs the whole suite with 1 and with 4 threads: every file must
 * give the same results either way.
 */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/buf.h"
#include "cli/cli.h"
#include "cli/session.h"
#include "cli/sql_exec.h"
#include "exec/ex_plan.h"
#include "sql/sql_parse.h"

typedef struct strvec {
  char **v;
  size_t n;
} strvec_t;

static uint32_t g_threads; /* --threads; 0: one per core */

typedef struct run {
  uint32_t threads; /* SET SESSION threads, else g_threads */
  const char *path;
  char dir[512];
  int failures;
  int records;
  sql_session_t session; /* one per file: USE and SET SESSION carry over */
} run_t;

static char *replace_dir(const run_t *r, const char *s) {
  fl_buf_t b;
  fl_buf_init(&b);
  const char *tag = "__TEST_DIR__";
  size_t tl = strlen(tag);
  for (const char *p = s; *p;) {
    if (!strncmp(p, tag, tl)) {
      fl_buf_append_str(&b, r->dir);
      p += tl;
    } else {
      fl_buf_append_u8(&b, (uint8_t)*p++);
    }
  }
  fl_buf_append_u8(&b, 0);
  char *out = fl_strdup((const char *)b.data);
  fl_buf_free(&b);
  return out;
}

static void fail(run_t *r, int line, const char *fmt, const char *a, const char *b) {
  fprintf(stderr, "%s:%d: ", r->path, line);
  fprintf(stderr, fmt, a, b);
  fputc('\n', stderr);
  r->failures++;
}

/* Splits a command line on blanks, with '...' and "..." quoting. */
static int split_words(char *s, char **argv, int max) {
  int n = 0;
  char *w = s;
  while (*s && n < max - 1) {
    while (*s == ' ' || *s == '\t') s++;
    if (!*s) break;
    argv[n++] = w;
    while (*s && *s != ' ' && *s != '\t') {
      if (*s == '\'' || *s == '"') {
        char q = *s++;
        while (*s && *s != q) *w++ = *s++;
        if (*s) s++;
      } else {
        *w++ = *s++;
      }
    }
    if (*s) s++;
    *w++ = 0;
  }
  argv[n] = NULL;
  return n;
}

static int run_exec(run_t *r, int line, const char *cmd) {
  char *c = replace_dir(r, cmd);
  char *argv[64];
  char wh[600];
  snprintf(wh, sizeof wh, "--warehouse=%s/wh", r->dir);
  argv[0] = "floe";
  argv[1] = wh;
  int n = split_words(c, argv + 2, 60) + 2;
  fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  int devnull = open("/dev/null", O_WRONLY);
  dup2(devnull, STDOUT_FILENO);
  close(devnull);
  int rc = cli_main(n, argv);
  fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  if (rc) fail(r, line, "exec %s failed (status %s)", cmd, rc == 2 ? "2" : "1");
  fl_free(c);
  return rc;
}

static char *cell_text(const char *s) {
  if (!s) return fl_strdup("NULL");
  if (!*s) return fl_strdup("(empty)");
  return fl_strdup(s);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool type_ok(char letter, const char *type) {
  bool integral = !strcmp(type, "tinyint") || !strcmp(type, "smallint") ||
                  !strcmp(type, "integer") || !strcmp(type, "bigint");
  bool real = !strcmp(type, "real") || !strcmp(type, "double") || !strncmp(type, "decimal", 7);
  switch (letter) {
    case 'I': return integral;
    case 'R': return real;
    case 'B': return !strcmp(type, "boolean");
    case 'T': return !integral && !real && strcmp(type, "boolean") != 0;
    default: return false;
  }
}

/* Runs one statement's SQL; *res filled on success. */
static int run_sql(run_t *r, fl_arena_t *a, const char *sql, sql_result_t *res, fl_err_t *err) {
  cli_session_set_warehouse(fl_arena_sprintf(a, "%s/wh", r->dir));
  cat_catalog_t *cat = NULL;
  fl_err_t e2;
  fl_err_clear(&e2);
  if (cat_open(NULL, cli_session_warehouse(), NULL, &cat, &e2))
    return fl_err_set(err, e2.code, "catalog: %s", e2.msg);
  sql_stmt_t *st;
  int rc = sql_parse_statement(a, sql, strlen(sql), &st, err);
  if (!rc) {
    r->session.catalog = cat;
    if (!r->session.threads) r->session.threads = r->threads;
    rc = sql_exec_stmt(&r->session, a, sql, strlen(sql), st, res, err);
    r->threads = r->session.threads;
    r->session.catalog = NULL;
  }
  cat_close(cat);
  return rc;
}

/* Whether got equals want, where __ANY__ in want matches any text (for
 * timings in EXPLAIN ANALYZE). */
static bool matches(const char *got, const char *want) {
  const char *any = strstr(want, "__ANY__");
  if (!any) return strcmp(got, want) == 0;
  size_t pre = (size_t)(any - want);
  if (strncmp(got, want, pre) != 0) return false;
  const char *rest = any + 7;
  for (const char *g = got + pre;; g++) {
    if (matches(g, rest)) return true;
    if (!*g) return false;
  }
}

static void run_query(run_t *r, int line, const char *types, bool rowsort, const char *sql,
                      char **expected, size_t nexp) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  fl_err_clear(&err);
  sql_result_t res;
  char *q = replace_dir(r, sql);
  if (run_sql(r, a, q, &res, &err)) {
    fail(r, line, "query failed: %s%s", err.msg, "");
    goto out;
  }
  if (strlen(types) != res.ncols) {
    char n[32];
    snprintf(n, sizeof n, "%u", res.ncols);
    fail(r, line, "query has %s columns, the test says %s", n, types);
    goto out;
  }
  for (uint32_t c = 0; c < res.ncols; c++)
    if (!type_ok(types[c], res.types[c])) {
      char l[2] = {types[c], 0};
      fail(r, line, "column type %s does not match '%s'", res.types[c], l);
      goto out;
    }
  char **got = fl_calloc(res.nrows ? res.nrows : 1, sizeof *got);
  for (uint64_t i = 0; i < res.nrows; i++) {
    fl_buf_t b;
    fl_buf_init(&b);
    for (uint32_t c = 0; c < res.ncols; c++) {
      if (c) fl_buf_append_u8(&b, '\t');
      char *t = cell_text(res.cells[i * res.ncols + c]);
      fl_buf_append_str(&b, t);
      fl_free(t);
    }
    fl_buf_append_u8(&b, 0);
    got[i] = fl_strdup((const char *)b.data);
    fl_buf_free(&b);
  }
  if (rowsort) {
    qsort(got, res.nrows, sizeof *got, cmp_str);
    qsort(expected, nexp, sizeof *expected, cmp_str);
  }
  size_t n = res.nrows > nexp ? res.nrows : nexp;
  for (size_t i = 0; i < n; i++) {
    const char *g = i < res.nrows ? got[i] : "<no row>";
    const char *e = i < nexp ? expected[i] : "<no row>";
    if (!matches(g, e)) {
      fail(r, line, "row mismatch: got [%s], expected [%s]", g, e);
      /* FLOE_SLT_DUMP=1 prints every row the query returned, to update a
       * test's expected rows after a deliberate plan change. */
      if (getenv("FLOE_SLT_DUMP")) {
        fprintf(stderr, "--- got at line %d\n", line);
        for (uint64_t k = 0; k < res.nrows; k++) fprintf(stderr, "%s\n", got[k]);
        fprintf(stderr, "--- end\n");
      }
      break;
    }
  }
  for (uint64_t i = 0; i < res.nrows; i++) fl_free(got[i]);
  fl_free(got);
out:
  fl_free(q);
  fl_arena_free(a);
}

static void run_statement(run_t *r, int line, bool want_error, const char *sql, const char *msg) {
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  fl_err_clear(&err);
  sql_result_t res;
  char *q = replace_dir(r, sql);
  int rc = run_sql(r, a, q, &res, &err);
  if (!want_error && rc) fail(r, line, "statement failed: %s%s", err.msg, "");
  if (want_error && !rc) fail(r, line, "statement succeeded, expected an error%s%s", "", "");
  if (want_error && rc && msg && *msg && !strstr(err.msg, msg))
    fail(r, line, "error [%s] does not contain [%s]", err.msg, msg);
  fl_free(q);
  fl_arena_free(a);
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(p);
}

/* Reads lines [i, ...) up to a blank line or "----" into one text. */
static char *collect(char **lines, size_t n, size_t *i, bool *dashes) {
  fl_buf_t b;
  fl_buf_init(&b);
  *dashes = false;
  for (; *i < n && lines[*i][0]; (*i)++) {
    if (!strcmp(lines[*i], "----")) {
      *dashes = true;
      (*i)++;
      break;
    }
    if (b.len) fl_buf_append_u8(&b, '\n');
    fl_buf_append_str(&b, lines[*i]);
  }
  fl_buf_append_u8(&b, 0);
  char *s = fl_strdup((const char *)b.data);
  fl_buf_free(&b);
  return s;
}

/* A copy of line with every `tag` replaced by `with` (kept in keep). */
static char *subst(const char *line, const char *tag, const char *with, strvec_t *keep) {
  fl_buf_t b;
  fl_buf_init(&b);
  size_t tl = strlen(tag);
  for (const char *p = line; *p;) {
    const char *m = strstr(p, tag);
    if (!m) {
      fl_buf_append(&b, p, strlen(p));
      break;
    }
    fl_buf_append(&b, p, (size_t)(m - p));
    fl_buf_append(&b, with, strlen(with));
    p = m + tl;
  }
  fl_buf_append_u8(&b, 0);
  keep->v = fl_realloc(keep->v, (keep->n + 1) * sizeof *keep->v);
  keep->v[keep->n++] = (char *)b.data;
  return (char *)b.data;
}

static void run_file(const char *path, int *failures, int *records) {
  run_t r = {.path = path, .threads = g_threads};
  strvec_t keep = {0};
  const char *tmp = getenv("FLOE_TMP");
  if (!tmp || !*tmp) tmp = "/tmp";
  mkdir(tmp, 0777);
  snprintf(r.dir, sizeof r.dir, "%s/slt-XXXXXX", tmp);
  if (!mkdtemp(r.dir)) {
    fprintf(stderr, "%s: cannot make a temporary folder under %s\n", path, tmp);
    (*failures)++;
    return;
  }
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    fprintf(stderr, "%s: cannot open\n", path);
    (*failures)++;
    return;
  }
  fl_buf_t text;
  fl_buf_init(&text);
  char buf[65536];
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, fp)) > 0) fl_buf_append(&text, buf, got);
  fclose(fp);
  fl_buf_append_u8(&text, 0);
  char *all = (char *)text.data;
  size_t nl = 0, cap = 256;
  char **lines = fl_malloc(cap * sizeof *lines);
  for (char *p = all; p;) {
    char *e = strchr(p, '\n');
    if (e) *e = 0;
    size_t l = strlen(p);
    if (l && p[l - 1] == '\r') p[l - 1] = 0;
    if (nl == cap) lines = fl_realloc(lines, (cap *= 2) * sizeof *lines);
    lines[nl++] = p;
    p = e ? e + 1 : NULL;
  }
  for (size_t i = 0; i < nl;) {
    char *l = lines[i];
    int lineno = (int)i + 1;
    if (!l[0] || l[0] == '#') {
      i++;
      continue;
    }
    r.records++;
    bool dashes;
    if (!strncmp(l, "statement ok", 12) || !strncmp(l, "statement error", 15)) {
      bool want_error = l[10] == 'e';
      i++;
      char *sql = collect(lines, nl, &i, &dashes);
      char *msg = dashes ? collect(lines, nl, &i, &dashes) : NULL;
      run_statement(&r, lineno, want_error, sql, msg);
      fl_free(sql);
      fl_free(msg);
    } else if (!strncmp(l, "query ", 6)) {
      char types[64] = {0}, mode[32] = {0};
      sscanf(l + 6, "%63s %31s", types, mode);
      i++;
      char *sql = collect(lines, nl, &i, &dashes);
      char **exp = fl_malloc((nl + 1) * sizeof *exp);
      size_t ne = 0;
      char tn[16];
      snprintf(tn, sizeof tn, "%u", r.threads ? r.threads : ex_default_threads());
      for (; i < nl && lines[i][0]; i++)
        exp[ne++] =
            strstr(lines[i], "__THREADS__") ? subst(lines[i], "__THREADS__", tn, &keep) : lines[i];
      if (!dashes)
        fail(&r, lineno, "query without a ---- line%s%s", "", "");
      else
        run_query(&r, lineno, types, !strcmp(mode, "rowsort"), sql, exp, ne);
      fl_free(exp);
      fl_free(sql);
      for (size_t t = 0; t < keep.n; t++) fl_free(keep.v[t]);
      keep.n = 0;
    } else if (!strncmp(l, "exec ", 5)) {
      run_exec(&r, lineno, l + 5);
      i++;
    } else if (!strncmp(l, "file ", 5)) {
      char *name = replace_dir(&r, l + 5);
      char p[1200];
      snprintf(p, sizeof p, "%s/%s", r.dir, name);
      i++;
      /* NAME may name subfolders of the test's folder: make them. */
      for (char *slash = strchr(p + strlen(r.dir) + 1, '/'); slash;
           slash = strchr(slash + 1, '/')) {
        *slash = 0;
        mkdir(p, 0777);
        *slash = '/';
      }
      FILE *out = fopen(p, "wb");
      for (; i < nl && lines[i][0]; i++)
        if (out) fprintf(out, "%s\n", lines[i]);
      if (!out || fclose(out) != 0) fail(&r, lineno, "cannot write %s%s", p, "");
      fl_free(name);
    } else {
      fail(&r, lineno, "unknown record '%s'%s", l, "");
      i++;
    }
  }
  fl_free(lines);
  fl_free(keep.v);
  fl_buf_free(&text);
  nftw(r.dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  *failures += r.failures;
  *records += r.records;
  printf("%-50s %3d records, %d failed\n", path, r.records, r.failures);
}

static int cmp_path(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_path(const char *path, int *failures, int *records, int *files) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "%s: not found\n", path);
    (*failures)++;
    return;
  }
  if (!S_ISDIR(st.st_mode)) {
    (*files)++;
    run_file(path, failures, records);
    return;
  }
  DIR *d = opendir(path);
  if (!d) return;
  char **names = NULL;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    size_t l = strlen(e->d_name);
    char *full = fl_malloc(strlen(path) + l + 2);
    sprintf(full, "%s/%s", path, e->d_name);
    struct stat s2;
    bool dir = stat(full, &s2) == 0 && S_ISDIR(s2.st_mode);
    if (!dir && (l < 5 || strcmp(e->d_name + l - 5, ".test") != 0)) {
      fl_free(full);
      continue;
    }
    names = fl_realloc(names, (n + 1) * sizeof *names);
    names[n++] = full;
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, cmp_path);
  for (size_t i = 0; i < n; i++) {
    run_path(names[i], failures, records, files);
    fl_free(names[i]);
  }
  fl_free(names);
}

int main(int argc, char **argv) {
  int failures = 0, records = 0, files = 0;
  int first = 1;
  if (argc > 2 && !strcmp(argv[1], "--threads")) {
    g_threads = (uint32_t)atoi(argv[2]);
    first = 3;
  }
  if (argc <= first) {
    fprintf(stderr, "usage: slt_runner [--threads N] FILE_OR_DIR...\n");
    return 2;
  }
  for (int i = first; i < argc; i++) run_path(argv[i], &failures, &records, &files);
  printf("sqllogictest: %d files, %d records, %d failed\n", files, records, failures);
  return failures ? 1 : 0;
}
