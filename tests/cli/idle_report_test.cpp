// SPDX-License-Identifier: MIT
#include "cli/idle_report.h"

#include <gtest/gtest.h>

#include "support/time_zone.h"

namespace gpumeter::cli::idle_report_test {

constexpr TimeUs kMinute = 60'000'000;
constexpr TimeUs kHour = 60 * kMinute;
constexpr TimeUs kNov3 = 1'793'664'000'000'000;  // 2026-11-03T00:00:00Z

// A spell of [begin, end) of a process last recorded at `last_seen`.
store::IdleSpell spell(TimeUs begin, TimeUs end, TimeUs last_seen, bool final) {
  store::IdleSpell idle{
      .begin_us = begin, .end_us = end, .held_seconds = 3600, .peak_memory_bytes = 2ULL << 30};
  idle.process.host = "node1";
  idle.process.process = {.pid = 303,
                          .start_time_us = begin - kMinute,
                          .gpu_uuid = "GPU-0",
                          .gpu_index = 0,
                          .user = "cy",
                          .command = "python, \"train\".py"};
  idle.process.last_seen_us = last_seen;
  idle.process.final = final;
  return idle;
}

TEST(IdleState, FromTheSpellAndTheProcesssLastRecord) {
  const TimeUs until = kNov3 + 24 * kHour;
  // Went on working after the spell.
  EXPECT_EQ(idle_state(spell(kNov3, kNov3 + 6 * kHour, kNov3 + 7 * kHour, false), until),
            IdleState::ended);
  // Idle until it exited.
  EXPECT_EQ(idle_state(spell(kNov3, kNov3 + 6 * kHour, kNov3 + 6 * kHour, true), until),
            IdleState::exited);
  // Idle up to its last record (mid-minute), still running.
  EXPECT_EQ(
      idle_state(spell(kNov3, kNov3 + 6 * kHour, kNov3 + 6 * kHour - 20'000'000, false), until),
      IdleState::still_idle);
  // Idle at the window's end, though it went on and exited later.
  EXPECT_EQ(idle_state(spell(kNov3, kNov3 + 6 * kHour, kNov3 + 9 * kHour, true), kNov3 + 6 * kHour),
            IdleState::still_idle);
}

TEST(IdleTable, OneLinePerSpell) {
  const testing::TimeZone utc("UTC0");
  const IdleReport report{
      "/h.db",
      {.since_us = kNov3, .until_us = kNov3 + 24 * kHour, .min_duration_us = 90 * kMinute},
      {spell(kNov3, kNov3 + 6 * kHour, kNov3 + 7 * kHour, false),
       spell(kNov3 + 8 * kHour, kNov3 + 10 * kHour + 30 * kMinute,
             kNov3 + 10 * kHour + 30 * kMinute, false)}};
  EXPECT_EQ(render_idle_table(report, false),
            "GPU memory held idle (at most 1% SM use for at least 1h 30m) from 2026-11-03 00:00 "
            "to 2026-11-04 00:00 UTC (/h.db)\n"
            "USER  PID  COMMAND             GPU  MEMORY  IDLE SINCE           FOR  STATE\n"
            "cy    303  python, \"train\".py    0  2.0GiB  2026-11-03 00:00      6h  ended\n"
            "cy    303  python, \"train\".py    0  2.0GiB  2026-11-03 08:00  2h 30m  still idle\n");
  EXPECT_NE(render_idle_table(report, true).find("\x1b[31mstill idle\x1b[0m"), std::string::npos);
}

TEST(IdleTable, NoneFound) {
  const testing::TimeZone utc("UTC0");
  const IdleReport report{"/h.db", {.since_us = kNov3, .until_us = kNov3 + 24 * kHour}, {}};
  EXPECT_EQ(render_idle_table(report, false),
            "no process held a GPU idle (at most 1% SM use for at least 1h) from 2026-11-03 00:00 "
            "to 2026-11-04 00:00 UTC\n");
}

TEST(IdleCsv, KeysAsInTheJson) {
  const IdleReport report{"/h.db",
                          {.since_us = kNov3, .until_us = kNov3 + 24 * kHour},
                          {spell(kNov3, kNov3 + 6 * kHour, kNov3 + 7 * kHour, false)}};
  EXPECT_EQ(render_idle_csv(report),
            "host,user,pid,process_start,command,gpu_index,gpu_uuid,memory_held_bytes,idle_since,"
            "idle_until,idle_seconds,sm_percent,state\n"
            "node1,cy,303,2026-11-02T23:59:00Z,\"python, \"\"train\"\".py\",0,GPU-0,2147483648,"
            "2026-11-03T00:00:00Z,2026-11-03T06:00:00Z,21600,0,ended\n");
}

}  // namespace gpumeter::cli::idle_report_test
