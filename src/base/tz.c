/*
 * tz.c - a TZif reader (RFC 8536) with a process-wide zone cache.
 *
 * Only the 64-bit (version 2+) data block is used when present; instants
 * after the last transition follow the POSIX TZ rule in the file's footer
 * ("EST5EDT,M3.2.0,M11.1.0"), so dates beyond 2037 stay right even in
 * "slim" files. Leap-second records are skipped: civil time in SQL, as in
 * Java and Trino, has no leap seconds.
 */
#include "base/tz.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/time.h"

/* A POSIX TZ rule date: month m (1..12), week w (1..5, 5 = last), weekday
 * d (0 = Sunday), at secs local time; or Julian forms when m == 0. */
typedef struct tz_rule_date {
  int kind; /* 'M', 'J' (1..365, no Feb 29), 'D' (0..365 zero-based) */
  int m, w, d, jday;
  int32_t secs;
} tz_rule_date_t;

struct fl_tz {
  char name[80];
  uint32_t ntrans;
  int64_t *trans;     /* utc seconds, ascending */
  int32_t *trans_off; /* offset in force from trans[i] on */
  int32_t first_off;  /* before the first transition */
  bool has_rule;
  bool rule_dst; /* the rule has a daylight part */
  int32_t std_off, dst_off;
  tz_rule_date_t start, end;
  struct fl_tz *next;
};

static pthread_mutex_t g_tz_lock = PTHREAD_MUTEX_INITIALIZER;
static fl_tz_t *g_tz_list;
static fl_tz_t g_utc = {.name = "UTC"};

const fl_tz_t *fl_tz_utc(void) { return &g_utc; }
const char *fl_tz_name(const fl_tz_t *tz) { return tz->name; }

/* ---- POSIX TZ rule ---------------------------------------------------- */

static const char *rule_name(const char *p) {
  if (*p == '<') {
    while (*p && *p != '>') p++;
    return *p ? p + 1 : NULL;
  }
  const char *s = p;
  while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')) p++;
  return p - s >= 3 ? p : NULL;
}

/* [+-]hh[:mm[:ss]] into seconds. */
static const char *rule_time(const char *p, int32_t *out) {
  int sign = 1;
  if (*p == '+' || *p == '-') sign = *p++ == '-' ? -1 : 1;
  if (*p < '0' || *p > '9') return NULL;
  int h = 0, m = 0, s = 0;
  while (*p >= '0' && *p <= '9') h = h * 10 + (*p++ - '0');
  if (*p == ':') {
    p++;
    while (*p >= '0' && *p <= '9') m = m * 10 + (*p++ - '0');
    if (*p == ':') {
      p++;
      while (*p >= '0' && *p <= '9') s = s * 10 + (*p++ - '0');
    }
  }
  if (h > 167 || m > 59 || s > 59) return NULL;
  *out = sign * (h * 3600 + m * 60 + s);
  return p;
}

static const char *rule_date(const char *p, tz_rule_date_t *d) {
  memset(d, 0, sizeof *d);
  d->secs = 7200;
  if (*p == 'M') {
    d->kind = 'M';
    p++;
    if (sscanf(p, "%d.%d.%d", &d->m, &d->w, &d->d) != 3) return NULL;
    while (*p && *p != '/' && *p != ',') p++;
    if (d->m < 1 || d->m > 12 || d->w < 1 || d->w > 5 || d->d < 0 || d->d > 6) return NULL;
  } else {
    d->kind = 'D';
    if (*p == 'J') {
      d->kind = 'J';
      p++;
    }
    if (*p < '0' || *p > '9') return NULL;
    while (*p >= '0' && *p <= '9') d->jday = d->jday * 10 + (*p++ - '0');
    if (d->jday > 365) return NULL;
  }
  if (*p == '/') {
    p = rule_time(p + 1, &d->secs);
    if (!p) return NULL;
  }
  return p;
}

static bool parse_rule(fl_tz_t *tz, const char *p) {
  const char *q = rule_name(p);
  if (!q) return false;
  int32_t west;
  q = rule_time(q, &west);
  if (!q) return false;
  tz->std_off = -west;
  tz->has_rule = true;
  if (!*q) return true;
  q = rule_name(q);
  if (!q) return false;
  tz->dst_off = tz->std_off + 3600;
  if (*q && *q != ',') {
    q = rule_time(q, &west);
    if (!q) return false;
    tz->dst_off = -west;
  }
  if (*q != ',') return false;
  q = rule_date(q + 1, &tz->start);
  if (!q || *q != ',') return false;
  q = rule_date(q + 1, &tz->end);
  if (!q || *q) return false;
  tz->rule_dst = true;
  return true;
}

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* Local seconds since the epoch at which the rule date falls in year y. */
static int64_t rule_local(const tz_rule_date_t *d, int64_t y) {
  int64_t days;
  if (d->kind == 'M') {
    int64_t first = fl_days_from_civil(y, (unsigned)d->m, 1);
    int64_t wday = fl_floormod(first + 4, 7); /* 1970-01-01 was a Thursday */
    int64_t day = first + fl_floormod(d->d - wday, 7) + (int64_t)(d->w - 1) * 7;
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int64_t mlen = mdays[d->m - 1] + (d->m == 2 && is_leap(y));
    while (day >= first + mlen) day -= 7;
    days = day;
  } else if (d->kind == 'J') {
    int64_t j = d->jday - 1;
    if (is_leap(y) && j >= 59) j++;
    days = fl_days_from_civil(y, 1, 1) + j;
  } else {
    days = fl_days_from_civil(y, 1, 1) + d->jday;
  }
  return days * 86400 + d->secs;
}

static int32_t rule_offset(const fl_tz_t *tz, int64_t utc) {
  if (!tz->rule_dst) return tz->std_off;
  int64_t y;
  unsigned m, dd;
  fl_civil_from_days(fl_floordiv(utc + tz->std_off, 86400), &y, &m, &dd);
  int64_t start = rule_local(&tz->start, y) - tz->std_off;
  int64_t end = rule_local(&tz->end, y) - tz->dst_off;
  bool dst = start < end ? (utc >= start && utc < end) : !(utc >= end && utc < start);
  return dst ? tz->dst_off : tz->std_off;
}

/* ---- TZif ------------------------------------------------------------- */

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static int64_t be64(const uint8_t *p) { return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4)); }

static int parse_tzif(fl_tz_t *tz, const uint8_t *b, size_t n, const char *path, fl_err_t *err) {
  if (n < 44 || memcmp(b, "TZif", 4) != 0)
    return fl_err_set(err, FL_ECORRUPT, "%s: not a TZif file", path);
  int version = b[4];
  size_t pos = 0;
  int tsize = 4;
  for (int pass = 0; pass < 2; pass++) {
    if (n - pos < 44 || memcmp(b + pos, "TZif", 4) != 0)
      return fl_err_set(err, FL_ECORRUPT, "%s: bad TZif header at %zu", path, pos);
    uint32_t isut = be32(b + pos + 20), isstd = be32(b + pos + 24), leap = be32(b + pos + 28);
    uint32_t timecnt = be32(b + pos + 32), typecnt = be32(b + pos + 36),
             charcnt = be32(b + pos + 40);
    pos += 44;
    if (timecnt > 100000 || typecnt == 0 || typecnt > 256 || charcnt > 100000 || leap > 100000)
      return fl_err_set(err, FL_ECORRUPT, "%s: implausible TZif counts", path);
    size_t body = (size_t)timecnt * (size_t)tsize + timecnt + (size_t)typecnt * 6 + charcnt +
                  (size_t)leap * (size_t)(tsize + 4) + isstd + isut;
    if (n - pos < body) return fl_err_set(err, FL_ECORRUPT, "%s: truncated TZif data", path);
    if (pass == 0 && version >= '2') {
      pos += body;
      tsize = 8;
      continue;
    }
    const uint8_t *times = b + pos, *idx = times + (size_t)timecnt * tsize;
    const uint8_t *types = idx + timecnt;
    tz->ntrans = timecnt;
    tz->trans = fl_malloc((timecnt ? timecnt : 1) * sizeof(int64_t));
    tz->trans_off = fl_malloc((timecnt ? timecnt : 1) * sizeof(int32_t));
    for (uint32_t i = 0; i < timecnt; i++) {
      tz->trans[i] =
          tsize == 8 ? be64(times + (size_t)i * 8) : (int32_t)be32(times + (size_t)i * 4);
      if (idx[i] >= typecnt) return fl_err_set(err, FL_ECORRUPT, "%s: bad type index", path);
      tz->trans_off[i] = (int32_t)be32(types + (size_t)idx[i] * 6);
      if (i && tz->trans[i] <= tz->trans[i - 1])
        return fl_err_set(err, FL_ECORRUPT, "%s: transitions out of order", path);
    }
    tz->first_off = (int32_t)be32(types);
    pos += body;
    break;
  }
  if (version >= '2' && pos < n && b[pos] == '\n') {
    const uint8_t *s = b + pos + 1, *e = memchr(s, '\n', n - pos - 1);
    if (e && e > s && (size_t)(e - s) < 120) {
      char rule[128];
      memcpy(rule, s, (size_t)(e - s));
      rule[e - s] = '\0';
      if (!parse_rule(tz, rule)) tz->has_rule = false;
    }
  }
  return FL_OK;
}

int32_t fl_tz_offset_at(const fl_tz_t *tz, int64_t t) {
  if (tz->ntrans == 0) return tz->has_rule ? rule_offset(tz, t) : tz->first_off;
  if (t < tz->trans[0]) return tz->first_off;
  if (t >= tz->trans[tz->ntrans - 1] && tz->has_rule) return rule_offset(tz, t);
  uint32_t lo = 0, hi = tz->ntrans; /* last i with trans[i] <= t */
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (tz->trans[mid] <= t)
      lo = mid;
    else
      hi = mid;
  }
  return tz->trans_off[lo];
}

int32_t fl_tz_offset_local(const fl_tz_t *tz, int64_t local) {
  /* The offsets a day either side bracket any one transition near local;
   * an interpretation is valid when the instant it gives has that offset. */
  int32_t before = fl_tz_offset_at(tz, local - 86400);
  if (fl_tz_offset_at(tz, local - before) == before) return before;
  int32_t after = fl_tz_offset_at(tz, local + 86400);
  if (fl_tz_offset_at(tz, local - after) == after) return after;
  return before; /* in a gap: moves forward by the gap's length */
}

/* "+05:30", "-05", "+0530", "UTC", "Z", "GMT" and "UTC+02:00" forms. */
static bool parse_fixed(const char *s, size_t n, int32_t *off) {
  if ((n == 3 && (!strncasecmp(s, "UTC", 3) || !strncasecmp(s, "GMT", 3))) ||
      (n == 1 && (s[0] == 'Z' || s[0] == 'z'))) {
    *off = 0;
    return true;
  }
  if (n > 3 && (!strncasecmp(s, "UTC", 3) || !strncasecmp(s, "GMT", 3))) {
    s += 3;
    n -= 3;
  }
  if (n < 2 || (s[0] != '+' && s[0] != '-')) return false;
  int sign = s[0] == '-' ? -1 : 1;
  int h = 0, m = 0;
  size_t i = 1, nd = 0;
  while (i < n && s[i] >= '0' && s[i] <= '9' && nd < 2) h = h * 10 + (s[i++] - '0'), nd++;
  if (nd == 0) return false;
  if (i < n && s[i] == ':') i++;
  nd = 0;
  while (i < n && s[i] >= '0' && s[i] <= '9' && nd < 2) m = m * 10 + (s[i++] - '0'), nd++;
  if (i != n || h > 14 || m > 59 || (nd != 0 && nd != 2)) return false;
  *off = sign * (h * 3600 + m * 60);
  return true;
}

static bool name_ok(const char *s, size_t n) {
  if (n == 0 || n >= 64 || s[0] == '/' || s[0] == '.') return false;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '+' || c == '/';
    if (!ok || (c == '/' && i + 1 < n && s[i + 1] == '.')) return false;
  }
  return true;
}

static int load_zone(const char *s, size_t n, fl_tz_t **out, fl_err_t *err) {
  fl_tz_t *tz = fl_calloc(1, sizeof *tz);
  int32_t off;
  if (parse_fixed(s, n, &off)) {
    tz->first_off = off;
    if (off == 0)
      snprintf(tz->name, sizeof tz->name, "UTC");
    else
      snprintf(tz->name, sizeof tz->name, "%c%02d:%02d", off < 0 ? '-' : '+', abs(off) / 3600,
               abs(off) / 60 % 60);
    *out = tz;
    return FL_OK;
  }
  if (!name_ok(s, n)) {
    fl_free(tz);
    return fl_err_set(err, FL_ENOTFOUND, "Time zone not supported: '%.*s'",
                      (int)(n > 100 ? 100 : n), s);
  }
  memcpy(tz->name, s, n);
  tz->name[n] = '\0';
  const char *dir = getenv("TZDIR");
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", tz->name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fl_free(tz);
    return fl_err_set(err, FL_ENOTFOUND, "Time zone not supported: '%.*s'", (int)n, s);
  }
  uint8_t *buf = fl_malloc(1 << 20);
  size_t len = fread(buf, 1, 1 << 20, f);
  fclose(f);
  int rc = parse_tzif(tz, buf, len, path, err);
  fl_free(buf);
  if (rc) {
    fl_free(tz->trans);
    fl_free(tz->trans_off);
    fl_free(tz);
    return rc;
  }
  *out = tz;
  return FL_OK;
}

int fl_tz_get(const char *name, size_t n, const fl_tz_t **out, fl_err_t *err) {
  pthread_mutex_lock(&g_tz_lock);
  for (fl_tz_t *t = g_tz_list; t; t = t->next)
    if (strlen(t->name) == n && memcmp(t->name, name, n) == 0) {
      *out = t;
      pthread_mutex_unlock(&g_tz_lock);
      return FL_OK;
    }
  fl_tz_t *tz = NULL;
  int rc = load_zone(name, n, &tz, err);
  if (rc == FL_OK) {
    /* Fixed offsets are cached under the spelling asked for, too. */
    if (strlen(tz->name) != n || memcmp(tz->name, name, n) != 0) {
      for (fl_tz_t *t = g_tz_list; t; t = t->next)
        if (strcmp(t->name, tz->name) == 0) {
          fl_free(tz->trans);
          fl_free(tz->trans_off);
          fl_free(tz);
          *out = t;
          pthread_mutex_unlock(&g_tz_lock);
          return FL_OK;
        }
    }
    tz->next = g_tz_list;
    g_tz_list = tz;
    *out = tz;
  }
  pthread_mutex_unlock(&g_tz_lock);
  return rc;
}
