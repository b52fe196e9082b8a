// SPDX-License-Identifier: MIT
// The fleet report's arithmetic over counter values (cli/report_prometheus.h): increases per
// segment, series that appear, stop or reset, grouping, order and paging. The whole path with
// a real Prometheus is tests/integration/fleet_report_test.py.
#include "cli/report_prometheus.h"

#include <gtest/gtest.h>
#include <stdlib.h>  // setenv: POSIX

#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>

namespace gpumeter::cli::report_prometheus_test {

using store::GroupBy;

constexpr TimeUs kT0 = 1'793'491'200 * kSecondUs;  // 2026-11-01 00:00 UTC

// Periods are local: the test's in UTC, the zone given back after it.
class FleetRows : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* zone = std::getenv("TZ")) saved_ = zone;
    ::setenv("TZ", "UTC0", 1);
    ::tzset();
  }
  void TearDown() override {
    if (saved_) {
      ::setenv("TZ", saved_->c_str(), 1);
    } else {
      ::unsetenv("TZ");
    }
    ::tzset();
  }

 private:
  std::optional<std::string> saved_;
};

CounterSeries series(const std::string& host, const std::string& user, const std::string& figure,
                     std::vector<std::optional<double>> values) {
  return {.labels = {{"host", host}, {"user", user}, {"instance", host + ":9416"}},
          .figure = figure,
          .values = std::move(values)};
}

TEST_F(FleetRows, AWindowIsTheLastValueLessTheFirst) {
  const store::UsageQuery query{
      .since_us = kT0, .until_us = kT0 + kDayUs, .group_by = {GroupBy::user}};
  const auto segments = report_segments(query);
  ASSERT_EQ(segments.size(), 1U);
  const std::vector<CounterSeries> all{
      series("a", "ada", "gpu_seconds", {3600, 3 * 3600}),      // 2 h in the window
      series("b", "ada", "gpu_seconds", {std::nullopt, 1800}),  // appeared: 0.5 h
      series("a", "ada", "sm_busy_seconds", {0, 3600}),
      series("a", "bob", "gpu_seconds", {7200, std::nullopt}),  // not scraped since: no move
      series("c", "cy", "gpu_seconds", {9000, 1800}),           // reset: 0.5 h since
      series("c", "cy", "energy_joules", {0, 3.6e6}),
  };
  const auto rows = rows_from_counters(query, segments, all);
  ASSERT_EQ(rows.size(), 2U);  // bob did not move
  EXPECT_EQ(rows[0].user, "ada");
  EXPECT_DOUBLE_EQ(rows[0].gpu_hours, 2.5);
  EXPECT_DOUBLE_EQ(rows[0].sm_busy_hours.value_or(-1), 1.0);
  EXPECT_DOUBLE_EQ(rows[0].sm_percent_while_held.value_or(-1), 40.0);
  EXPECT_EQ(rows[1].user, "cy");
  EXPECT_DOUBLE_EQ(rows[1].gpu_hours, 0.5);
  EXPECT_DOUBLE_EQ(rows[1].energy_kwh.value_or(-1), 1.0);
  EXPECT_TRUE(rows[1].host.empty());  // not grouped by host
}

TEST_F(FleetRows, DaysAreSegmentsWithTheirLabels) {
  const store::UsageQuery query{.since_us = kT0 + 12 * kHourUs,
                                .until_us = kT0 + 2 * kDayUs + 6 * kHourUs,
                                .group_by = {GroupBy::host, GroupBy::day}};
  const auto segments = report_segments(query);
  ASSERT_EQ(segments.size(), 3U);
  EXPECT_EQ(segments[0].period, "2026-11-01");
  EXPECT_EQ(segments[0].from_us, query.since_us);
  EXPECT_EQ(segments[0].period_start_us, kT0);
  EXPECT_EQ(segments[2].to_us, query.until_us);
  const std::vector<CounterSeries> all{
      series("b", "ada", "gpu_seconds", {0, 3600, 3600, 10800}),
      series("a", "bob", "gpu_seconds", {0, 0, 1800, 1800}),
  };
  const auto rows = rows_from_counters(query, segments, all);
  ASSERT_EQ(rows.size(), 3U);  // host a on day 2; host b on days 1 and 3
  EXPECT_EQ(rows[0].host, "a");
  EXPECT_EQ(rows[0].period, "2026-11-02");
  EXPECT_DOUBLE_EQ(rows[0].gpu_hours, 0.5);
  EXPECT_EQ(rows[1].host, "b");
  EXPECT_EQ(rows[1].period, "2026-11-01");
  EXPECT_EQ(rows[2].period, "2026-11-03");
  EXPECT_DOUBLE_EQ(rows[2].gpu_hours, 2.0);

  store::UsageQuery page = query;
  page.offset = 1;
  page.limit = 1;
  const auto one = rows_from_counters(page, segments, all);
  ASSERT_EQ(one.size(), 1U);
  EXPECT_EQ(one[0].period, "2026-11-01");
}

// A user whose every held second was on MIG devices has no SM or energy figures, as in a
// machine's own report.
TEST_F(FleetRows, HeldTimeWithoutSmFiguresIsUnknownNotZero) {
  const store::UsageQuery query{
      .since_us = kT0, .until_us = kT0 + kHourUs, .group_by = {GroupBy::user}};
  const std::vector<CounterSeries> all{
      series("a", "mig", "gpu_seconds", {0, 1800}),
      series("a", "mig", "sm_unknown_seconds", {0, 1800}),
      series("a", "mig", "sm_busy_seconds", {0, 0}),
  };
  const auto rows = rows_from_counters(query, report_segments(query), all);
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_DOUBLE_EQ(rows[0].sm_unknown_hours, 0.5);
  EXPECT_EQ(rows[0].sm_unknown_reason, "mig");
  EXPECT_FALSE(rows[0].sm_busy_hours);
  EXPECT_FALSE(rows[0].energy_kwh);
  EXPECT_FALSE(rows[0].sm_percent_while_held);
}

}  // namespace gpumeter::cli::report_prometheus_test
