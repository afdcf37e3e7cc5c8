/*
 * fs_glob.c - glob patterns over any io_fs_t back end (layer 2, io).
 *
 * Matching is the classic recursive matcher over '/'-separated paths:
 * '*' and '?' never cross a '/', a '**' component matches zero or more
 * whole components (tried at every later component boundary), and
 * brackets match one character of a set. Expansion lists the files below
 * the pattern's literal directory prefix once (the back end's recursive
 * list) and keeps those that match, so a pattern costs one listing
 * whatever its shape.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "io/fs.h"

bool io_glob_has_magic(const char *pattern) {
  for (const char *p = pattern; *p; p++)
    if (*p == '*' || *p == '?' || *p == '[' || *p == '\\') return true;
  return false;
}

/* Matches one bracket expression at *pp against c; advances *pp past it.
 * A '[' without its ']' is an ordinary character. */
static bool bracket(const char **pp, char c, bool *ok) {
  const char *p = *pp + 1;
  bool neg = *p == '!' || *p == '^';
  if (neg) p++;
  bool hit = false;
  const char *start = p;
  while (*p && (*p != ']' || p == start)) {
    char lo = *p, hi = lo;
    if (p[1] == '-' && p[2] && p[2] != ']') {
      hi = p[2];
      p += 3;
    } else {
      p++;
    }
    if (c >= lo && c <= hi) hit = true;
  }
  if (*p != ']') {
    *ok = false; /* not a bracket expression */
    return false;
  }
  *ok = true;
  *pp = p + 1;
  return hit != neg;
}

static bool match(const char *p, const char *s) {
  for (;;) {
    if (p[0] == '*' && p[1] == '*' && (p[2] == '/' || p[2] == 0)) {
      /* A '**' component: zero or more whole components. */
      const char *rest = p[2] == '/' ? p + 3 : p + 2;
      if (!*rest) return true;
      for (const char *t = s;; t++) {
        if ((t == s || t[-1] == '/') && match(rest, t)) return true;
        if (!*t) return false;
      }
    }
    switch (*p) {
      case 0: return *s == 0;
      case '*': {
        while (*p == '*') p++;
        for (const char *t = s;; t++) {
          if (match(p, t)) return true;
          if (!*t || *t == '/') return false;
        }
      }
      case '?':
        if (!*s || *s == '/') return false;
        p++;
        s++;
        continue;
      case '[': {
        if (!*s || *s == '/') return false;
        bool ok;
        const char *q = p;
        bool hit = bracket(&q, *s, &ok);
        if (ok) {
          if (!hit) return false;
          p = q;
          s++;
          continue;
        }
        if (*s != '[') return false;
        p++;
        s++;
        continue;
      }
      case '\\':
        if (p[1]) p++;
        /* fall through */
      default:
        if (*p != *s) return false;
        p++;
        s++;
    }
  }
}

bool io_glob_match(const char *pattern, const char *path) { return match(pattern, path); }

static int cmp_entry(const void *a, const void *b) {
  return strcmp(((const io_entry_t *)a)->path, ((const io_entry_t *)b)->path);
}

int io_glob(io_fs_t *fs, const char *pattern, io_entry_t **out, size_t *n, fl_err_t *err) {
  *out = NULL;
  *n = 0;
  if (!io_glob_has_magic(pattern)) {
    bool exists = false;
    int rc = fs->exists(fs, pattern, &exists, err);
    if (rc || !exists) return rc;
    *out = fl_calloc(1, sizeof **out);
    (*out)->path = fl_strdup(pattern);
    *n = 1;
    return FL_OK;
  }
  /* The literal directory prefix: up to the '/' before the first magic
   * character. */
  size_t first = strcspn(pattern, "*?[\\");
  size_t cut = first;
  while (cut > 0 && pattern[cut - 1] != '/') cut--;
  char *dir;
  if (cut == 0) {
    dir = fl_strdup(".");
  } else {
    char *lit = fl_malloc(cut + 1);
    memcpy(lit, pattern, cut);
    lit[cut] = 0;
    /* Keep "/" itself for absolute patterns at the root. */
    if (cut > 1) lit[cut - 1] = 0;
    dir = lit;
  }
  io_entry_t *all;
  size_t nall;
  int rc = fs->list(fs, dir, &all, &nall, err);
  if (rc) {
    fl_free(dir);
    return rc;
  }
  size_t k = 0;
  for (size_t i = 0; i < nall; i++) {
    const char *path = all[i].path;
    char *candidate = NULL;
    if (cut == 0 && !strncmp(path, "./", 2)) {
      /* Listing "." gives "./x": the pattern has no such prefix. */
      candidate = fl_strdup(path + 2);
    } else if (cut == 1 && pattern[0] == '/' && path[0] == '/' && path[1] == '/') {
      candidate = fl_strdup(path + 1);
    }
    const char *m = candidate ? candidate : path;
    if (!all[i].is_dir && match(pattern, m)) {
      if (candidate) {
        fl_free(all[i].path);
        all[i].path = candidate;
        candidate = NULL;
      }
      all[k++] = all[i];
    } else {
      fl_free(all[i].path);
    }
    fl_free(candidate);
  }
  fl_free(dir);
  if (k == 0) {
    fl_free(all);
    return FL_OK;
  }
  qsort(all, k, sizeof *all, cmp_entry);
  *out = all;
  *n = k;
  return FL_OK;
}
