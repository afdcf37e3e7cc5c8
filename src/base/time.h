/*
 * time.h - calendar math and ISO-8601 text for dates and timestamps
 * (layer 1, base).
 *
 * Dates are days since 1970-01-01; times are microseconds since midnight;
 * timestamps are microseconds (or nanoseconds) since the epoch, all with
 * floor semantics before 1970 (proleptic Gregorian calendar, as Iceberg).
 */
#ifndef FL_BASE_TIME_H
#define FL_BASE_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FL_MICROS_PER_DAY 86400000000LL

int64_t fl_days_from_civil(int64_t y, unsigned m, unsigned d);
void fl_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);

/* Floor division and modulo, for epoch math before 1970. */
static inline int64_t fl_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t fl_floormod(int64_t a, int64_t b) { return a - fl_floordiv(a, b) * b; }

/*
 * Parsers return true on success and consume the whole [s, s+n) span.
 * fl_parse_timestamp accepts `YYYY-MM-DD[(T| )HH:MM[:SS[.fraction]]][Z|(+|-)HH[:MM]]`
 * with up to 9 fraction digits, writing units since the epoch at the given
 * precision (6 = micros, 9 = nanos). *has_zone tells whether an offset or Z
 * was present; the result is always shifted to UTC when one was.
 */
bool fl_parse_date(const char *s, size_t n, int32_t *days);
bool fl_parse_time(const char *s, size_t n, int64_t *micros);
bool fl_parse_timestamp(const char *s, size_t n, int precision, int64_t *out, bool *has_zone);

/*
 * Formatters write NUL-terminated text into buf (at least 40 bytes) and
 * return its length. Timestamps print as 2024-01-02T03:04:05.123456,
 * followed by "+00:00" when utc_suffix is set; trailing fraction digits are
 * printed as-is (6 or 9 of them).
 */
size_t fl_format_date(int32_t days, char *buf);
size_t fl_format_time(int64_t micros, char *buf);
size_t fl_format_timestamp(int64_t units, int precision, bool utc_suffix, char *buf);

/* Wall-clock now in microseconds, and a monotonic clock in nanoseconds. */
int64_t fl_now_micros(void);
int64_t fl_monotonic_ns(void);

#endif
