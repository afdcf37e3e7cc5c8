/*
 * time.c - proleptic Gregorian calendar conversions (Howard Hinnant's
 * days_from_civil algorithm) and strict ISO-8601 parsing and printing.
 */
#include "base/time.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int64_t fl_days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = (unsigned)(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + (int64_t)doe - 719468;
}

void fl_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = (unsigned)(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t yy = (int64_t)yoe + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = yy + (*m <= 2);
}

static bool digits(const char *s, size_t n, size_t at, size_t count, int64_t *v) {
  if (at + count > n) return false;
  int64_t x = 0;
  for (size_t i = 0; i < count; i++) {
    char c = s[at + i];
    if (c < '0' || c > '9') return false;
    x = x * 10 + (c - '0');
  }
  *v = x;
  return true;
}

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static unsigned month_days(int64_t y, unsigned m) {
  static const unsigned md[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : md[m - 1];
}

/* Parses YYYY-MM-DD (with optional sign and more year digits) at s. */
static bool parse_date_prefix(const char *s, size_t n, size_t *pos, int64_t *days) {
  size_t i = 0;
  int sign = 1;
  if (i < n && (s[i] == '-' || s[i] == '+')) {
    sign = s[i] == '-' ? -1 : 1;
    i++;
  }
  size_t ystart = i;
  while (i < n && s[i] >= '0' && s[i] <= '9') i++;
  size_t ylen = i - ystart;
  if (ylen < 4 || ylen > 6) return false;
  int64_t y, mo, d;
  if (!digits(s, n, ystart, ylen, &y)) return false;
  if (i >= n || s[i] != '-') return false;
  if (!digits(s, n, i + 1, 2, &mo)) return false;
  i += 3;
  if (i >= n || s[i] != '-') return false;
  if (!digits(s, n, i + 1, 2, &d)) return false;
  i += 3;
  y *= sign;
  if (mo < 1 || mo > 12 || d < 1 || d > month_days(y, (unsigned)mo)) return false;
  *days = fl_days_from_civil(y, (unsigned)mo, (unsigned)d);
  *pos = i;
  return true;
}

bool fl_parse_date(const char *s, size_t n, int32_t *days) {
  size_t pos;
  int64_t d;
  if (!parse_date_prefix(s, n, &pos, &d) || pos != n) return false;
  if (d < INT32_MIN || d > INT32_MAX) return false;
  *days = (int32_t)d;
  return true;
}

/* Parses HH:MM[:SS[.f...]] at s+*pos into units of 10^-precision s. */
static bool parse_clock(const char *s, size_t n, size_t *pos, int precision, int64_t *out) {
  size_t i = *pos;
  int64_t h, mi, sec = 0, frac = 0;
  if (!digits(s, n, i, 2, &h)) return false;
  i += 2;
  if (i >= n || s[i] != ':') return false;
  if (!digits(s, n, i + 1, 2, &mi)) return false;
  i += 3;
  if (i < n && s[i] == ':') {
    if (!digits(s, n, i + 1, 2, &sec)) return false;
    i += 3;
    if (i < n && (s[i] == '.' || s[i] == ',')) {
      i++;
      int nd = 0;
      while (i < n && s[i] >= '0' && s[i] <= '9') {
        if (nd < precision) {
          frac = frac * 10 + (s[i] - '0');
          nd++;
        } else if (nd >= 9) {
          return false;
        } else {
          nd++; /* digits beyond the precision are truncated */
        }
        i++;
      }
      if (nd == 0) return false;
      int kept = nd < precision ? nd : precision;
      for (int k = kept; k < precision; k++) frac *= 10;
    }
  }
  if (h > 23 || mi > 59 || sec > 60) return false;
  if (sec == 60) sec = 59; /* a leap second clamps, as Java does on parse */
  int64_t unit = 1;
  for (int k = 0; k < precision; k++) unit *= 10;
  *out = ((h * 60 + mi) * 60 + sec) * unit + frac;
  *pos = i;
  return true;
}

bool fl_parse_time(const char *s, size_t n, int64_t *micros) {
  size_t pos = 0;
  return parse_clock(s, n, &pos, 6, micros) && pos == n;
}

/* 10^p and INT64_MAX / (86400 * 10^p) for p = 0..9 (the overflow guard). */
static const int64_t unit_pow10[10] = {1,      10,      100,      1000,      10000,
                                       100000, 1000000, 10000000, 100000000, 1000000000};
#define FL_DAY_LIMIT(p) (INT64_MAX / (86400LL * (p)))
static const int64_t day_limit[10] = {
    FL_DAY_LIMIT(1LL),      FL_DAY_LIMIT(10LL),      FL_DAY_LIMIT(100LL),
    FL_DAY_LIMIT(1000LL),   FL_DAY_LIMIT(10000LL),   FL_DAY_LIMIT(100000LL),
    FL_DAY_LIMIT(1000000LL), FL_DAY_LIMIT(10000000LL), FL_DAY_LIMIT(100000000LL),
    FL_DAY_LIMIT(1000000000LL)};
#undef FL_DAY_LIMIT

static inline unsigned dig2(const char *p) {
  return (unsigned)(p[0] - '0') * 10 + (unsigned)(p[1] - '0');
}

static inline bool is_dig(char c) { return (unsigned)(c - '0') <= 9; }

/*
 * The common fixed layout YYYY-MM-DD(T|t| )HH:MM:SS[.f{1,9}][Z|z|(+|-)HH:MM]
 * with 0 <= precision <= 9. Returns true with the same result the general
 * parser gives; false means "not this layout or not valid", and the
 * general parser then decides.
 */
static bool parse_timestamp_fixed(const char *s, size_t n, int precision, int64_t *out,
                                  bool *has_zone) {
  if (n < 19 || precision < 0 || precision > 9) return false;
  if (s[4] != '-' || s[7] != '-' || s[13] != ':' || s[16] != ':') return false;
  if (s[10] != 'T' && s[10] != 't' && s[10] != ' ') return false;
  static const unsigned char dpos[14] = {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18};
  for (int k = 0; k < 14; k++)
    if (!is_dig(s[dpos[k]])) return false;
  size_t i = 19;
  int64_t frac = 0;
  if (i < n && s[i] == '.') {
    i++;
    int nd = 0;
    while (i < n && is_dig(s[i])) {
      if (nd >= 9) return false;
      if (nd < precision) frac = frac * 10 + (s[i] - '0');
      nd++;
      i++;
    }
    if (nd == 0) return false;
    int kept = nd < precision ? nd : precision;
    frac *= unit_pow10[precision - kept];
  }
  int64_t offset_min = 0;
  bool zone = false;
  if (i < n) {
    if (n - i == 1 && (s[i] == 'Z' || s[i] == 'z')) {
      zone = true;
    } else if (n - i == 6 && (s[i] == '+' || s[i] == '-') && is_dig(s[i + 1]) &&
               is_dig(s[i + 2]) && s[i + 3] == ':' && is_dig(s[i + 4]) && is_dig(s[i + 5])) {
      unsigned oh = dig2(s + i + 1), om = dig2(s + i + 4);
      if (oh > 18 || om > 59) return false;
      offset_min = (int64_t)(oh * 60 + om);
      if (s[i] == '-') offset_min = -offset_min;
      zone = true;
    } else {
      return false;
    }
  }
  int64_t y = (int64_t)(dig2(s) * 100 + dig2(s + 2));
  unsigned mo = dig2(s + 5), d = dig2(s + 8);
  unsigned h = dig2(s + 11), mi = dig2(s + 14), sec = dig2(s + 17);
  if (h > 23 || mi > 59 || sec > 60) return false;
  if (sec == 60) sec = 59;
  /* Streams of events carry the same date over and over: the last date
   * of this thread, checked and converted, is kept. */
  static __thread int64_t last_date = -1, last_days;
  int64_t date = (y * 100 + mo) * 100 + d, days; /* every digit pair apart */
  if (date == last_date) {
    days = last_days;
  } else {
    if (mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo)) return false;
    days = fl_days_from_civil(y, mo, d);
    last_date = date;
    last_days = days;
  }
  int64_t unit = unit_pow10[precision];
  int64_t lim = day_limit[precision];
  if (days > lim - 1 || days < -lim + 1) return false;
  int64_t tod = ((int64_t)(h * 60 + mi) * 60 + sec) * unit + frac;
  *out = days * 86400 * unit + tod - offset_min * 60 * unit;
  *has_zone = zone;
  return true;
}

bool fl_parse_timestamp(const char *s, size_t n, int precision, int64_t *out, bool *has_zone) {
  size_t i;
  int64_t days, tod = 0;
  *has_zone = false;
  if (parse_timestamp_fixed(s, n, precision, out, has_zone)) return true;
  if (!parse_date_prefix(s, n, &i, &days)) return false;
  if (i < n && (s[i] == 'T' || s[i] == 't' || s[i] == ' ')) {
    i++;
    if (!parse_clock(s, n, &i, precision, &tod)) return false;
  }
  int64_t offset_min = 0;
  if (i < n) {
    if (s[i] == 'Z' || s[i] == 'z') {
      i++;
      *has_zone = true;
    } else if (s[i] == '+' || s[i] == '-') {
      int sign = s[i] == '-' ? -1 : 1;
      int64_t oh, om = 0;
      if (!digits(s, n, i + 1, 2, &oh)) return false;
      i += 3;
      if (i < n && s[i] == ':') i++;
      if (i < n) {
        if (!digits(s, n, i, 2, &om)) return false;
        i += 2;
      }
      if (oh > 18 || om > 59) return false;
      offset_min = sign * (oh * 60 + om);
      *has_zone = true;
    } else if (s[i] == ' ' && i + 4 == n && (s[i + 1] == 'U' && s[i + 2] == 'T' && s[i + 3] == 'C')) {
      i += 4;
      *has_zone = true;
    }
  }
  if (i != n) return false;
  int64_t unit = 1;
  for (int k = 0; k < precision; k++) unit *= 10;
  const int64_t per_day = 86400 * unit;
  /* Guard against overflow of days * per_day. */
  if (days > INT64_MAX / per_day - 1 || days < INT64_MIN / per_day + 1) return false;
  *out = days * per_day + tod - offset_min * 60 * unit;
  return true;
}

size_t fl_format_date(int32_t days, char *buf) {
  int64_t y;
  unsigned m, d;
  fl_civil_from_days(days, &y, &m, &d);
  int n;
  if (y >= 0 && y <= 9999)
    n = snprintf(buf, 40, "%04lld-%02u-%02u", (long long)y, m, d);
  else
    n = snprintf(buf, 40, "%+05lld-%02u-%02u", (long long)y, m, d);
  return (size_t)n;
}

static size_t format_clock(int64_t units, int precision, char *buf) {
  int64_t unit = 1;
  for (int k = 0; k < precision; k++) unit *= 10;
  int64_t secs = units / unit, frac = units % unit;
  return (size_t)snprintf(buf, 40, "%02lld:%02lld:%02lld.%0*lld", (long long)(secs / 3600),
                          (long long)(secs / 60 % 60), (long long)(secs % 60), precision,
                          (long long)frac);
}

size_t fl_format_time(int64_t micros, char *buf) { return format_clock(micros, 6, buf); }

size_t fl_format_timestamp(int64_t units, int precision, bool utc_suffix, char *buf) {
  int64_t unit = 1;
  for (int k = 0; k < precision; k++) unit *= 10;
  int64_t per_day = 86400 * unit;
  /* Remainder first: days * per_day would overflow near INT64_MIN. */
  int64_t tod = units % per_day, days = units / per_day;
  if (tod < 0) {
    tod += per_day;
    days--;
  }
  size_t n = fl_format_date((int32_t)days, buf);
  buf[n++] = 'T';
  n += format_clock(tod, precision, buf + n);
  if (utc_suffix) {
    memcpy(buf + n, "+00:00", 7);
    n += 6;
  }
  return n;
}

int64_t fl_now_micros(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t fl_monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
