// SPDX-License-Identifier: MIT
// The daily CSV rows: their text, and the sums over CSV intervals they come from.
#include "recorder/csv_rows.h"

#include <gtest/gtest.h>

namespace gpumeter::recorder::csv_rows_test {

constexpr TimeUs kSecond = 1'000'000;
constexpr TimeUs kT0 = 1'767'225'600 * kSecond;  // 2026-01-01T00:00:00Z

TEST(CsvLine, WholeSecondsAndIntegerPercent) {
  EXPECT_EQ(csv_line({.timestamp_us = kT0 + 999'999,
                      .user = "alice",
                      .pid = 4242,
                      .gpu = 3,
                      .usage_percent = 87}),
            "1767225600,alice,4242,3,87\n");
  EXPECT_EQ(kCsvHeader, "Timestamp,User,PID,GPU Number,GPU Usage\n");
}

TEST(CsvLine, AUserWithACommaOrAQuoteIsQuoted) {
  EXPECT_EQ(csv_line({.timestamp_us = kT0, .user = "smith, j", .pid = 1}),
            "1767225600,\"smith, j\",1,0,0\n");
  EXPECT_EQ(csv_line({.timestamp_us = kT0, .user = "o\"neil", .pid = 1}),
            "1767225600,\"o\"\"neil\",1,0,0\n");
}

TEST(CsvUser, NameElseUidElseEmpty) {
  EXPECT_EQ(csv_user("alice", 1000), "alice");
  EXPECT_EQ(csv_user(std::nullopt, 1000), "1000");
  EXPECT_EQ(csv_user(std::nullopt, std::nullopt), "");
}

CsvUse use(double at, Pid pid, double held, double busy, std::uint32_t gpu = 0) {
  return {.begin_us = kT0 + static_cast<TimeUs>(at * 1e6),
          .user = "u" + std::to_string(pid),
          .pid = pid,
          .start_time_us = kT0 - 1000 * kSecond,
          .gpu = gpu,
          .held_seconds = held,
          .sm_busy_seconds = busy};
}

TEST(CsvIntervals, AverageSmOverTheWholeInterval) {
  CsvIntervals intervals(60 * kSecond);
  // Six 10-second records of pid 7 at 50 % for 40 s in all; pid 8 held memory idle.
  for (int i = 0; i < 6; ++i) intervals.add(use(10.0 * i, 7, 10, i < 4 ? 5 : 0));
  intervals.add(use(30, 8, 10, 0));
  intervals.add(use(59.9, 9, 0, 0));  // neither held nor busy: no row
  EXPECT_TRUE(intervals.take_until(kT0 + 59 * kSecond).empty()) << "the minute is not over";
  const std::vector<CsvRow> rows = intervals.take_until(kT0 + 60 * kSecond);
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0], (CsvRow{.timestamp_us = kT0, .user = "u7", .pid = 7, .usage_percent = 33}));
  EXPECT_EQ(rows[1], (CsvRow{.timestamp_us = kT0, .user = "u8", .pid = 8, .usage_percent = 0}));
  EXPECT_TRUE(intervals.take_all().empty()) << "taken rows are forgotten";
}

TEST(CsvIntervals, RowsComeInTimeGpuAndPidOrder) {
  CsvIntervals intervals(10 * kSecond);
  intervals.add(use(15, 2, 1, 1, 1));
  intervals.add(use(12, 9, 1, 1, 0));
  intervals.add(use(3, 5, 10, 10, 1));
  intervals.add(use(21, 1, 1, 1, 0));  // an interval still going on
  const std::vector<CsvRow> rows = intervals.take_until(kT0 + 20 * kSecond);
  ASSERT_EQ(rows.size(), 3U);
  EXPECT_EQ(rows[0].pid, 5U);
  EXPECT_EQ(rows[0].usage_percent, 100);
  EXPECT_EQ(rows[1].pid, 9U);
  EXPECT_EQ(rows[2].pid, 2U);
  EXPECT_EQ(rows[2].timestamp_us, kT0 + 10 * kSecond);
  const std::vector<CsvRow> rest = intervals.take_all();
  ASSERT_EQ(rest.size(), 1U);
  EXPECT_EQ(rest[0].timestamp_us, kT0 + 20 * kSecond);
  EXPECT_EQ(rest[0].usage_percent, 10);
}

TEST(CsvIntervals, AReusedPidIsAnotherRow) {
  CsvIntervals intervals(60 * kSecond);
  CsvUse first = use(0, 7, 20, 20);
  CsvUse second = use(30, 7, 20, 10);
  second.start_time_us += 40 * kSecond;
  intervals.add(first);
  intervals.add(second);
  const std::vector<CsvRow> rows = intervals.take_all();
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].usage_percent, 33);
  EXPECT_EQ(rows[1].usage_percent, 17);
}

TEST(CsvIntervals, UnknownSmUseLeavesTheUsageEmptyNotZero) {
  // pid 7 on a GPU in MIG mode: held, SM use unknown; pid 8 known at 50 % of the interval.
  CsvIntervals intervals(60 * kSecond);
  CsvUse mig = use(0, 7, 60, 0);
  mig.sm_unknown_seconds = 60;
  intervals.add(mig);
  intervals.add(use(0, 8, 60, 30));
  const std::vector<CsvRow> rows = intervals.take_all();
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_FALSE(rows[0].usage_percent);
  EXPECT_EQ(csv_line(rows[0]), "1767225600,u7,7,0,\n");
  EXPECT_EQ(rows[1].usage_percent, 50);
}

}  // namespace gpumeter::recorder::csv_rows_test
