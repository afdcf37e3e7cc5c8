/*
 * test_tz.c - the TZif reader: offsets around DST transitions in New York
 * and Berlin, the POSIX footer rule for far-future dates, local-time
 * resolution in gaps and overlaps, fixed offsets and bad names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/time.h"
#include "base/tz.h"
#include "test.h"

static int64_t utc(int y, int mo, int d, int h, int mi, int s) {
  return fl_days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + s;
}

TEST(tz_new_york_transitions) {
  fl_err_t err;
  const fl_tz_t *ny;
  CHECK_OK(fl_tz_get("America/New_York", 16, &ny, &err), &err);
  CHECK_STR(fl_tz_name(ny), "America/New_York");
  /* 2026-03-08 02:00 EST -> 03:00 EDT happens at 07:00 UTC. */
  CHECK_EQ(fl_tz_offset_at(ny, utc(2026, 3, 8, 6, 59, 59)), -5 * 3600);
  CHECK_EQ(fl_tz_offset_at(ny, utc(2026, 3, 8, 7, 0, 0)), -4 * 3600);
  /* 2026-11-01 02:00 EDT -> 01:00 EST at 06:00 UTC. */
  CHECK_EQ(fl_tz_offset_at(ny, utc(2026, 11, 1, 5, 59, 59)), -4 * 3600);
  CHECK_EQ(fl_tz_offset_at(ny, utc(2026, 11, 1, 6, 0, 0)), -5 * 3600);
  /* Far beyond the file's transitions: the footer rule. */
  CHECK_EQ(fl_tz_offset_at(ny, utc(2091, 7, 1, 12, 0, 0)), -4 * 3600);
  CHECK_EQ(fl_tz_offset_at(ny, utc(2091, 12, 1, 12, 0, 0)), -5 * 3600);
  /* Before 1883 New York kept local mean time (-4:56:02). */
  CHECK_EQ(fl_tz_offset_at(ny, utc(1850, 1, 1, 0, 0, 0)), -(4 * 3600 + 56 * 60 + 2));
  /* Local times: the gap moves forward, the overlap takes the earlier offset. */
  CHECK_EQ(fl_tz_offset_local(ny, utc(2026, 3, 8, 2, 30, 0)), -5 * 3600);
  CHECK_EQ(fl_tz_offset_local(ny, utc(2026, 3, 8, 3, 30, 0)), -4 * 3600);
  CHECK_EQ(fl_tz_offset_local(ny, utc(2026, 11, 1, 1, 30, 0)), -4 * 3600);
  CHECK_EQ(fl_tz_offset_local(ny, utc(2026, 11, 1, 2, 30, 0)), -5 * 3600);
  const fl_tz_t *again;
  CHECK_OK(fl_tz_get("America/New_York", 16, &again, &err), &err);
  CHECK(again == ny); /* cached */
}

TEST(tz_berlin_transitions) {
  fl_err_t err;
  const fl_tz_t *be;
  CHECK_OK(fl_tz_get("Europe/Berlin", 13, &be, &err), &err);
  CHECK_EQ(fl_tz_offset_at(be, utc(2026, 3, 29, 0, 59, 59)), 3600);
  CHECK_EQ(fl_tz_offset_at(be, utc(2026, 3, 29, 1, 0, 0)), 7200);
  CHECK_EQ(fl_tz_offset_at(be, utc(2026, 10, 25, 0, 59, 59)), 7200);
  CHECK_EQ(fl_tz_offset_at(be, utc(2026, 10, 25, 1, 0, 0)), 3600);
  CHECK_EQ(fl_tz_offset_at(be, utc(2100, 7, 1, 0, 0, 0)), 7200);
  CHECK_EQ(fl_tz_offset_local(be, utc(2026, 10, 25, 2, 30, 0)), 7200);
  /* 1945 had double summer time (CEMT, +3). */
  CHECK_EQ(fl_tz_offset_at(be, utc(1945, 6, 1, 12, 0, 0)), 3 * 3600);
}

TEST(tz_fixed_and_errors) {
  fl_err_t err;
  const fl_tz_t *z;
  CHECK_OK(fl_tz_get("+05:30", 6, &z, &err), &err);
  CHECK_STR(fl_tz_name(z), "+05:30");
  CHECK_EQ(fl_tz_offset_at(z, 0), 5 * 3600 + 1800);
  CHECK_OK(fl_tz_get("-08", 3, &z, &err), &err);
  CHECK_STR(fl_tz_name(z), "-08:00");
  CHECK_OK(fl_tz_get("UTC", 3, &z, &err), &err);
  CHECK_EQ(fl_tz_offset_at(z, 123456789), 0);
  CHECK_OK(fl_tz_get("Z", 1, &z, &err), &err);
  CHECK_STR(fl_tz_name(z), "UTC");
  CHECK_ERR(fl_tz_get("Mars/Olympus", 12, &z, &err), FL_ENOTFOUND);
  CHECK_STR(err.msg, "Time zone not supported: 'Mars/Olympus'");
  CHECK_ERR(fl_tz_get("../../etc/passwd", 16, &z, &err), FL_ENOTFOUND);
  CHECK_ERR(fl_tz_get("+25:00", 6, &z, &err), FL_ENOTFOUND);
  CHECK_ERR(fl_tz_get("", 0, &z, &err), FL_ENOTFOUND);
  CHECK_EQ(fl_tz_offset_at(fl_tz_utc(), -1), 0);
}

/* Every truncation and some byte flips of a real file: an error or a
 * zone, never a crash (run under the sanitizers by make unit-asan). */
TEST(tz_damaged_files) {
  FILE *f = fopen("/usr/share/zoneinfo/America/New_York", "rb");
  CHECK(f != NULL);
  static uint8_t data[8192];
  size_t n = fread(data, 1, sizeof data, f);
  fclose(f);
  CHECK(n > 1000);
  char dir[600], path[700];
  snprintf(dir, sizeof dir, "%s/zones", t_tmpdir());
  mkdir(dir, 0777);
  setenv("TZDIR", dir, 1);
  int ok = 0, bad = 0;
  for (size_t cut = 0; cut < n; cut += (cut < 100 ? 1 : 37)) {
    for (int flip = 0; flip < 2; flip++) {
      char name[64];
      snprintf(name, sizeof name, "Damaged_%zu_%d", cut, flip);
      snprintf(path, sizeof path, "%s/%s", dir, name);
      FILE *o = fopen(path, "wb");
      CHECK(o != NULL);
      if (flip) {
        uint8_t copy[8192];
        memcpy(copy, data, n);
        copy[cut] ^= 0xA5;
        fwrite(copy, 1, n, o);
      } else {
        fwrite(data, 1, cut, o);
      }
      fclose(o);
      fl_err_t err;
      const fl_tz_t *z;
      if (fl_tz_get(name, strlen(name), &z, &err) == FL_OK) {
        ok++;
        (void)fl_tz_offset_at(z, 1772953200);
        (void)fl_tz_offset_local(z, 1772937000);
      } else {
        CHECK(err.code == FL_ECORRUPT);
        bad++;
      }
    }
  }
  unsetenv("TZDIR");
  CHECK(bad > 0);
  CHECK(ok > 0); /* flips in the v1 block or the footer still load */
}
