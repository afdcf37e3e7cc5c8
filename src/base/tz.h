/*
 * tz.h - time zones from the IANA database (layer 1, base).
 *
 * A zone is loaded once from its TZif file under /usr/share/zoneinfo
 * (or $TZDIR) and cached for the life of the process; fixed offsets such
 * as "+02:00", "-05", "UTC" and "Z" need no file. A zone answers two
 * questions: the UTC offset in force at an instant, and the instant a
 * local wall-clock time denotes. For the second, a local time that falls
 * into a gap (spring forward) is moved forward by the gap's length and a
 * local time that occurs twice (fall back) takes the earlier offset, as
 * java.time (and so Trino) does.
 *
 * Zones are immutable once loaded and may be used from any thread.
 */
#ifndef FL_BASE_TZ_H
#define FL_BASE_TZ_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct fl_tz fl_tz_t;

/*
 * Finds or loads the zone called name[0..n) ("Europe/Berlin", "UTC",
 * "+05:30"). The zone lives until the process ends. Fails with
 * FL_ENOTFOUND for an unknown name and FL_ECORRUPT for a bad file.
 */
int fl_tz_get(const char *name, size_t n, const fl_tz_t **out, fl_err_t *err);
/* The zone UTC itself (never fails). */
const fl_tz_t *fl_tz_utc(void);

/* The canonical name the zone was loaded by ("America/New_York", "+02:00"). */
const char *fl_tz_name(const fl_tz_t *tz);

/* Seconds east of UTC in force at utc_seconds since the epoch. */
int32_t fl_tz_offset_at(const fl_tz_t *tz, int64_t utc_seconds);
/* Seconds east of UTC to subtract from local_seconds (wall clock seconds
 * since 1970-01-01T00:00 local) to get the instant it denotes. */
int32_t fl_tz_offset_local(const fl_tz_t *tz, int64_t local_seconds);

#endif
