// SPDX-License-Identifier: MIT
#include "cli/usage_plot.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/time_zone.h"

namespace gpumeter::cli::usage_plot_test {

constexpr TimeUs kHour = 3'600'000'000;
constexpr TimeUs kDay = 24 * kHour;
constexpr TimeUs kNov1 = 1'793'491'200'000'000;  // 2026-11-01T00:00:00Z

class UsagePlot : public ::testing::Test {
 protected:
  const testing::TimeZone utc_{"UTC0"};
};

store::UsageRow row(std::string user, std::string period, double hours) {
  store::UsageRow usage{.user = std::move(user), .period = std::move(period)};
  usage.gpu_hours = hours;
  return usage;
}

TEST_F(UsagePlot, PeriodFollowsTheGroupingElseTheWindow) {
  EXPECT_EQ(plot_period(view::CalendarPeriod::month, kNov1, kNov1 + kDay),
            view::CalendarPeriod::month);
  EXPECT_EQ(plot_period(std::nullopt, kNov1, kNov1 + 2 * kDay), view::CalendarPeriod::hour);
  EXPECT_EQ(plot_period(std::nullopt, kNov1, kNov1 + 3 * kDay), view::CalendarPeriod::day);
  EXPECT_EQ(plot_period(std::nullopt, kNov1, kNov1 + 92 * kDay), view::CalendarPeriod::day);
  EXPECT_EQ(plot_period(std::nullopt, kNov1, kNov1 + 93 * kDay), view::CalendarPeriod::month);
  // Hours over a month would be 720 columns: days instead; days over two years: months.
  EXPECT_EQ(plot_period(view::CalendarPeriod::hour, kNov1, kNov1 + 30 * kDay),
            view::CalendarPeriod::day);
  EXPECT_EQ(plot_period(view::CalendarPeriod::day, kNov1, kNov1 + 730 * kDay),
            view::CalendarPeriod::month);
}

TEST_F(UsagePlot, AColumnPerPeriodOfTheWindowEvenEmptyOnes) {
  const StackedBars chart = usage_plot(
      {row("ada", "2026-11-01", 2), row("ada", "2026-11-03", 4), row("bob", "2026-11-03", 8)},
      view::CalendarPeriod::day, kNov1, kNov1 + 3 * kDay);
  EXPECT_EQ(chart.categories, (std::vector<std::string>{"2026-11-01", "2026-11-02", "2026-11-03"}));
  ASSERT_EQ(chart.series.size(), 2U);
  // bob used more: he is at the bottom of the stacks.
  EXPECT_EQ(chart.series[0].name, "bob");
  EXPECT_EQ(chart.series[0].values, (std::vector<double>{0, 0, 8}));
  EXPECT_EQ(chart.series[1].name, "ada");
  EXPECT_EQ(chart.series[1].values, (std::vector<double>{2, 0, 4}));
  EXPECT_EQ(chart.title, "GPU-hours by user, per day");
  EXPECT_EQ(chart.subtitle, "from 2026-11-01 00:00 to 2026-11-04 00:00 UTC");
}

TEST_F(UsagePlot, HoursAreLabelledByTheirLocalTime) {
  const StackedBars chart = usage_plot({row("ada", "2026-11-01T01", 1)}, view::CalendarPeriod::hour,
                                       kNov1, kNov1 + 2 * kHour);
  EXPECT_EQ(chart.categories, (std::vector<std::string>{"2026-11-01T00", "2026-11-01T01"}));
  EXPECT_EQ(chart.labels, (std::vector<std::string>{"11-01 00:00", "11-01 01:00"}));
  EXPECT_EQ(chart.series[0].values, (std::vector<double>{0, 1}));
}

TEST_F(UsagePlot, NineUsersThenOthers) {
  std::vector<store::UsageRow> rows;
  for (int user = 0; user < 12; ++user)
    rows.push_back(row(fmt::format("u{:02}", user), "2026-11", 100.0 - user));
  rows.push_back(row("", "2026-11", 0.5));
  const StackedBars chart = usage_plot(rows, view::CalendarPeriod::month, kNov1, kNov1 + kDay);
  ASSERT_EQ(chart.series.size(), 10U);
  EXPECT_EQ(chart.series[0].name, "u00");
  EXPECT_EQ(chart.series[8].name, "u08");
  EXPECT_EQ(chart.series[9].name, "others (4)");
  EXPECT_DOUBLE_EQ(chart.series[9].values[0], 91 + 90 + 89 + 0.5);
}

TEST_F(UsagePlot, TenUsersAreAllShown) {
  std::vector<store::UsageRow> rows;
  for (int user = 0; user < 9; ++user) rows.push_back(row(fmt::format("u{}", user), "2026-11", 2));
  rows.push_back(row("", "2026-11", 1));
  const StackedBars chart = usage_plot(rows, view::CalendarPeriod::month, kNov1, kNov1 + kDay);
  ASSERT_EQ(chart.series.size(), 10U);
  EXPECT_EQ(chart.series[9].name, "(unknown user)");
}

}  // namespace gpumeter::cli::usage_plot_test
