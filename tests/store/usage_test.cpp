// SPDX-License-Identifier: MIT
// Reports over a known timeline of three users on two GPUs across three days (and one hour in
// February), recorded as the daemon records it: one interval per process per minute. Every
// expected figure is worked out by hand in the comments.
//
//  P1 ada pid 101 GPU-0 docker:c1  Jan 1 10:00-12:00        SM 50 %   4 GiB  200 W
//  P2 bob pid 202 GPU-1            Jan 1 11:30-Jan 2 01:30  SM 25 %   8 GiB  100 W
//  P3 ada pid 303 GPU-1 slurm:77   Jan 2 09:00-09:45        SM 100 %  2 GiB  300 W
//  P4 cy  pid 404 GPU-0            Jan 2 20:00-Jan 3 02:00  SM 0 %    1 GiB   50 W
//                                  Jan 3 02:00-04:00        SM 80 %   1 GiB   50 W
//  P5 ada pid 505 GPU-0            Feb 1 00:00-01:00        SM 10 %   1 GiB    0 W
#include "store/usage.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>  // setenv: POSIX

#include <ctime>

#include "store/maintenance.h"
#include "store/write.h"
#include "support/store_fixtures.h"

namespace gpumeter::store::usage_test {

using gpumeter::testing::TempDir;
using testing::kDay;
using testing::kHour;
using testing::kMinute;
using testing::kSecond;
using testing::kT0;

constexpr std::uint64_t kGiB = 1ULL << 30;
constexpr TimeUs kFeb1 = kT0 + 31 * kDay;
constexpr double kTolerance = 1e-9;

ProcessIdentity who(Pid pid, const char* user, const char* gpu, std::uint32_t index,
                    std::optional<Container> container = std::nullopt) {
  ProcessIdentity process = testing::process(pid, user, gpu, index);
  process.command = fmt::format("job-{}", pid);
  process.container = std::move(container);
  return process;
}

// One interval per minute over [from, to).
void hold(Batch& batch, const ProcessIdentity& process, TimeUs from, TimeUs to, double sm_percent,
          std::uint64_t memory, double watts) {
  for (TimeUs t = from; t < to; t += kMinute)
    batch.process_intervals.push_back(
        testing::interval(process, t, t + kMinute, sm_percent, memory, watts));
}

Batch timeline() {
  Batch batch;
  hold(batch, who(101, "ada", "GPU-0", 0, Container{"docker", "c1"}), kT0 + 10 * kHour,
       kT0 + 12 * kHour, 50, 4 * kGiB, 200);
  hold(batch, who(202, "bob", "GPU-1", 1), kT0 + 11 * kHour + 30 * kMinute,
       kT0 + kDay + 90 * kMinute, 25, 8 * kGiB, 100);
  hold(batch, who(303, "ada", "GPU-1", 1, Container{"slurm", "77"}), kT0 + kDay + 9 * kHour,
       kT0 + kDay + 9 * kHour + 45 * kMinute, 100, 2 * kGiB, 300);
  const ProcessIdentity p4 = who(404, "cy", "GPU-0", 0);
  hold(batch, p4, kT0 + kDay + 20 * kHour, kT0 + 2 * kDay + 2 * kHour, 0, kGiB, 50);
  hold(batch, p4, kT0 + 2 * kDay + 2 * kHour, kT0 + 2 * kDay + 4 * kHour, 80, kGiB, 50);
  hold(batch, who(505, "ada", "GPU-0", 0), kFeb1, kFeb1 + kHour, 10, kGiB, 0);
  return batch;
}

class Usage : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto written = write(store_, timeline());
    ASSERT_TRUE(written) << written.error().message;
  }

  std::vector<UsageRow> report(UsageQuery query) {
    auto rows = usage(store_, query);
    EXPECT_TRUE(rows) << rows.error().message;
    return rows ? *rows : std::vector<UsageRow>{};
  }

  TempDir dir_;
  Store store_ = testing::open_store(dir_ / "usage.db");
};

void expect_figures(const UsageRow& row, double gpu_hours, double busy_hours, double kwh,
                    std::uint64_t peak, std::int64_t processes) {
  EXPECT_NEAR(row.gpu_hours, gpu_hours, kTolerance);
  ASSERT_TRUE(row.sm_busy_hours && row.energy_kwh);  // nothing in this timeline is MIG
  EXPECT_NEAR(*row.sm_busy_hours, busy_hours, kTolerance);
  EXPECT_NEAR(*row.energy_kwh, kwh, kTolerance);
  EXPECT_DOUBLE_EQ(row.sm_unknown_hours, 0.0);
  EXPECT_FALSE(row.sm_unknown_reason);
  EXPECT_EQ(row.peak_memory_bytes, peak);
  EXPECT_EQ(row.processes, processes);
}

TEST_F(Usage, EverythingTogether) {
  const auto rows = report({.since_us = kT0, .until_us = kT0 + 3 * kDay});
  ASSERT_EQ(rows.size(), 1U);
  // Held: 2 + 14 + 0.75 + 8 h. Busy: 1 + 3.5 + 0.75 + 0.8 x 2 h.
  // Energy: 0.4 + 1.4 + 0.225 + 0.4 kWh.
  expect_figures(rows[0], 24.75, 6.85, 2.425, 8 * kGiB, 4);
  EXPECT_NEAR(rows[0].sm_percent_while_held.value(), 100 * 6.85 / 24.75, kTolerance);
  EXPECT_TRUE(rows[0].user.empty());
  EXPECT_FALSE(rows[0].gpu_index);
}

TEST_F(Usage, ByUserOverTwoDays) {
  const auto rows =
      report({.since_us = kT0, .until_us = kT0 + 2 * kDay, .group_by = {GroupBy::user}});
  ASSERT_EQ(rows.size(), 3U);
  EXPECT_EQ(rows[0].user, "ada");  // P1 2 h at 50 %, P3 0.75 h at 100 %
  expect_figures(rows[0], 2.75, 1.75, 0.4 + 0.225, 4 * kGiB, 2);
  EXPECT_NEAR(rows[0].sm_percent_while_held.value(), 100 * 1.75 / 2.75, kTolerance);
  EXPECT_EQ(rows[1].user, "bob");  // all 14 h of P2
  expect_figures(rows[1], 14, 3.5, 1.4, 8 * kGiB, 1);
  EXPECT_EQ(rows[2].user, "cy");  // P4's first 4 idle hours, before Jan 3
  expect_figures(rows[2], 4, 0, 0.2, kGiB, 1);
  EXPECT_NEAR(rows[2].sm_percent_while_held.value(), 0, kTolerance);
}

TEST_F(Usage, ByDay) {
  const auto rows =
      report({.since_us = kT0, .until_us = kT0 + 3 * kDay, .group_by = {GroupBy::day}});
  ASSERT_EQ(rows.size(), 3U);
  EXPECT_EQ(rows[0].period, "2026-01-01");
  EXPECT_EQ(rows[0].period_start_us, kT0);
  // P1 2 h (1 busy, 0.4 kWh) + P2 11:30-24:00, 12.5 h (3.125 busy, 1.25 kWh).
  expect_figures(rows[0], 14.5, 4.125, 1.65, 8 * kGiB, 2);
  EXPECT_EQ(rows[1].period, "2026-01-02");
  EXPECT_EQ(rows[1].period_start_us, kT0 + kDay);
  // P2 1.5 h (0.375, 0.15) + P3 0.75 h (0.75, 0.225) + P4 4 h (0, 0.2).
  expect_figures(rows[1], 6.25, 1.125, 0.575, 8 * kGiB, 3);
  EXPECT_EQ(rows[2].period, "2026-01-03");
  // P4 00:00-04:00: 2 idle hours, 2 at 80 %.
  expect_figures(rows[2], 4, 1.6, 0.2, kGiB, 1);
}

TEST_F(Usage, ByUserAndGpuAndHour) {
  const auto rows = report({.since_us = kT0 + 11 * kHour,
                            .until_us = kT0 + 12 * kHour,
                            .group_by = {GroupBy::user, GroupBy::gpu, GroupBy::hour}});
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].user, "ada");
  EXPECT_EQ(rows[0].gpu_uuid, "GPU-0");
  EXPECT_EQ(rows[0].gpu_index, 0U);
  EXPECT_EQ(rows[0].period, "2026-01-01T11");
  EXPECT_EQ(rows[0].period_start_us, kT0 + 11 * kHour);
  expect_figures(rows[0], 1, 0.5, 0.2, 4 * kGiB, 1);
  EXPECT_EQ(rows[1].user, "bob");
  EXPECT_EQ(rows[1].gpu_uuid, "GPU-1");
  EXPECT_EQ(rows[1].gpu_index, 1U);
  expect_figures(rows[1], 0.5, 0.125, 0.05, 8 * kGiB, 1);
}

TEST_F(Usage, ByProcessAndByContainer) {
  const auto processes =
      report({.since_us = kT0, .until_us = kT0 + 3 * kDay, .group_by = {GroupBy::process}});
  ASSERT_EQ(processes.size(), 4U);
  EXPECT_EQ(processes[0].pid, 101U);
  EXPECT_EQ(processes[0].command, "job-101");
  EXPECT_EQ(processes[0].process_start_time_us, kT0 - kDay + 101);
  EXPECT_EQ(processes[3].pid, 404U);
  expect_figures(processes[3], 8, 1.6, 0.4, kGiB, 1);

  const auto containers =
      report({.since_us = kT0, .until_us = kT0 + 3 * kDay, .group_by = {GroupBy::container}});
  ASSERT_EQ(containers.size(), 3U);
  EXPECT_EQ(containers[0].container, "");  // P2 and P4
  expect_figures(containers[0], 22, 5.1, 1.8, 8 * kGiB, 2);
  EXPECT_EQ(containers[1].container, "docker:c1");
  EXPECT_EQ(containers[2].container, "slurm:77");
  expect_figures(containers[2], 0.75, 0.75, 0.225, 2 * kGiB, 1);
}

TEST_F(Usage, ByMonthForOneUser) {
  const auto rows = report(
      {.since_us = kT0, .until_us = kT0 + 59 * kDay, .group_by = {GroupBy::month}, .user = "ada"});
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].period, "2026-01");
  EXPECT_EQ(rows[0].period_start_us, kT0);
  expect_figures(rows[0], 2.75, 1.75, 0.625, 4 * kGiB, 2);
  EXPECT_EQ(rows[1].period, "2026-02");
  EXPECT_EQ(rows[1].period_start_us, kFeb1);
  expect_figures(rows[1], 1, 0.1, 0, kGiB, 1);
}

TEST_F(Usage, EdgesInsideAnHourComeFromTheMinutes) {
  // 11:20:30 to 13:10: P1 from 11:20:30 to 12:00 (39.5 min at 50 %), P2 from 11:30 to 13:10
  // (100 min at 25 %). Partial first minute prorated: half of 11:20.
  const auto rows = report({.since_us = kT0 + 11 * kHour + 20 * kMinute + 30 * kSecond,
                            .until_us = kT0 + 13 * kHour + 10 * kMinute,
                            .group_by = {GroupBy::user}});
  ASSERT_EQ(rows.size(), 2U);
  expect_figures(rows[0], 39.5 / 60, 39.5 / 120, 39.5 / 60 * 0.2, 4 * kGiB, 1);
  expect_figures(rows[1], 100.0 / 60, 25.0 / 60, 100.0 / 60 * 0.1, 8 * kGiB, 1);
}

TEST_F(Usage, OnceMinutesArePrunedEdgesAreProratedFromHours) {
  // Minutes kept one day, as of Jan 10: none is left for Jan 1.
  ASSERT_TRUE(prune(store_, kT0 + 10 * kDay, {.process_minutes_us = kDay}));
  // 11:00-11:30: bob really started at 11:30, but his hour row (30 min) is spread evenly over
  // the hour, so half of it, 15 min, falls in the window. ada's even use is exact.
  const auto rows = report({.since_us = kT0 + 11 * kHour,
                            .until_us = kT0 + 11 * kHour + 30 * kMinute,
                            .group_by = {GroupBy::user}});
  ASSERT_EQ(rows.size(), 2U);
  expect_figures(rows[0], 0.5, 0.25, 0.1, 4 * kGiB, 1);
  expect_figures(rows[1], 0.25, 0.0625, 0.025, 8 * kGiB, 1);
}

TEST_F(Usage, DaysInTheLocalTimeZone) {
  const char* old = std::getenv("TZ");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("TZ", "UTC-3", 1);  // POSIX: three hours east of UTC
  ::tzset();
  const auto rows = report({.since_us = kT0,
                            .until_us = kT0 + kDay,
                            .group_by = {GroupBy::day},
                            .local_time = true,
                            .user = "bob"});
  if (old != nullptr) {
    ::setenv("TZ", saved.c_str(), 1);
  } else {
    ::unsetenv("TZ");
  }
  ::tzset();
  // P2 on Jan 1 UTC: 11:30-21:00 UTC is local Jan 1 (9.5 h), 21:00-24:00 UTC local Jan 2.
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].period, "2026-01-01");
  EXPECT_EQ(rows[0].period_start_us, kT0 - 3 * kHour);
  expect_figures(rows[0], 9.5, 9.5 / 4, 0.95, 8 * kGiB, 1);
  EXPECT_EQ(rows[1].period, "2026-01-02");
  EXPECT_EQ(rows[1].period_start_us, kT0 + 21 * kHour);
  expect_figures(rows[1], 3, 0.75, 0.3, 8 * kGiB, 1);
}

TEST_F(Usage, AnEmptyWindowHasNoRowsAndBadQueriesAreRefused) {
  EXPECT_TRUE(report({.since_us = kT0 + 5 * kDay, .until_us = kT0 + 6 * kDay}).empty());
  EXPECT_TRUE(report({.since_us = kT0, .until_us = kT0 + 3 * kDay, .host = "node9"}).empty());
  const auto backwards = usage(store_, {.since_us = kT0, .until_us = kT0});
  ASSERT_FALSE(backwards);
  EXPECT_EQ(backwards.error().code, ErrorCode::invalid_input);
  const auto two_periods = usage(
      store_, {.since_us = kT0, .until_us = kT0 + kDay, .group_by = {GroupBy::day, GroupBy::hour}});
  ASSERT_FALSE(two_periods);
}

}  // namespace gpumeter::store::usage_test
