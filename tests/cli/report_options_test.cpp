// SPDX-License-Identifier: MIT
#include "cli/report_options.h"

#include <gtest/gtest.h>

#include "support/time_zone.h"

namespace gpumeter::cli::report_options_test {

using store::GroupBy;

constexpr TimeUs kHour = 3'600'000'000;
constexpr TimeUs kNov1 = 1'793'491'200'000'000;               // 2026-11-01T00:00:00Z
constexpr TimeUs kNow = kNov1 + 21 * 24 * kHour + 9 * kHour;  // 2026-11-22T09:00Z

std::string error_of(const ReportOptions& options) {
  const auto settings = resolve_report_options(options, kNow);
  EXPECT_FALSE(settings.has_value());
  return settings ? std::string{} : settings.error().message;
}

TEST(ReportOptions, DefaultsToThisMonthByUser) {
  const testing::TimeZone utc("UTC0");
  const auto settings = resolve_report_options({}, kNow);
  ASSERT_TRUE(settings) << settings.error().message;
  EXPECT_EQ(settings->query.since_us, kNov1);
  EXPECT_EQ(settings->query.until_us, kNow);
  EXPECT_EQ(settings->query.group_by, std::vector{GroupBy::user});
  EXPECT_TRUE(settings->query.local_time);
  EXPECT_EQ(settings->format, ReportFormat::table);
  EXPECT_FALSE(settings->database || settings->quota_file || settings->plot);
}

TEST(ReportOptions, ThisMonthIsLocal) {
  const testing::TimeZone tokyo("JST-9");
  const auto settings = resolve_report_options({}, kNow);
  ASSERT_TRUE(settings) << settings.error().message;
  EXPECT_EQ(settings->query.since_us, kNov1 - 9 * kHour);
}

TEST(ReportOptions, ResolvesEverything) {
  const testing::TimeZone utc("UTC0");
  const ReportOptions options{.database = "/tmp/h.db",
                              .by = {"user,day", "gpu"},
                              .since = "2026-10-01",
                              .until = "12h",
                              .format = "csv",
                              .user = "alice",
                              .host = "node1",
                              .quota = "q.txt",
                              .check = true,
                              .plot = "u.svg"};
  const auto settings = resolve_report_options(options, kNow);
  ASSERT_TRUE(settings) << settings.error().message;
  EXPECT_EQ(settings->database, std::filesystem::path("/tmp/h.db"));
  EXPECT_EQ(settings->query.group_by, (std::vector{GroupBy::user, GroupBy::day, GroupBy::gpu}));
  EXPECT_EQ(settings->query.since_us, kNov1 - 31 * 24 * kHour);
  EXPECT_EQ(settings->query.until_us, kNow - 12 * kHour);
  EXPECT_EQ(settings->query.user, "alice");
  EXPECT_EQ(settings->query.host, "node1");
  EXPECT_EQ(settings->format, ReportFormat::csv);
  EXPECT_EQ(settings->quota_file, std::filesystem::path("q.txt"));
  EXPECT_TRUE(settings->check);
  EXPECT_EQ(settings->plot, std::filesystem::path("u.svg"));
}

TEST(ReportOptions, IdleQueryTakesTheWindowAndThresholds) {
  const testing::TimeZone utc("UTC0");
  const auto settings = resolve_report_options(
      {.since = "1d", .user = "bob", .idle = true, .idle_for = "2h", .max_sm_percent = 5}, kNow);
  ASSERT_TRUE(settings) << settings.error().message;
  EXPECT_TRUE(settings->idle);
  EXPECT_EQ(settings->idle_query.since_us, kNow - 24 * kHour);
  EXPECT_EQ(settings->idle_query.until_us, kNow);
  EXPECT_EQ(settings->idle_query.min_duration_us, 2 * kHour);
  EXPECT_EQ(settings->idle_query.max_sm_percent, 5);
  EXPECT_EQ(settings->idle_query.user, "bob");
  const auto by_default = resolve_report_options({.idle = true}, kNow);
  ASSERT_TRUE(by_default);
  EXPECT_EQ(by_default->idle_query.min_duration_us, kHour / 2);
  EXPECT_EQ(by_default->idle_query.max_sm_percent, 1);
}

TEST(ReportOptions, RefusesWhatDoesNotFit) {
  const testing::TimeZone utc("UTC0");
  EXPECT_EQ(error_of({.since = "2026-11-10", .until = "2026-11-10"}),
            "the period is empty: --since 2026-11-10 00:00 is not before --until 2026-11-10 00:00");
  EXPECT_EQ(error_of({.since = "yesterday"}).substr(0, 36),
            "--since: \"yesterday\" is not a date (");
  EXPECT_EQ(error_of({.until = "2026-02-30"}).substr(0, 37),
            "--until: \"2026-02-30\" is not a date (");
  EXPECT_EQ(error_of({.by = {"gpu"}, .quota = "q"}),
            "--quota compares users with their quotas: --by must include user");
  EXPECT_EQ(error_of({.check = true}), "--check needs --quota FILE");
  EXPECT_EQ(error_of({.format = "json", .chart = true}),
            "--chart draws in the terminal: it does not combine with --format csv or json");
  EXPECT_EQ(error_of({.idle = true, .chart = true}),
            "--idle lists idle processes: --by, --quota, --check, --chart and --plot do not "
            "apply to it");
  EXPECT_EQ(error_of({.by = {"user"}, .idle = true}).substr(0, 7), "--idle ");
  EXPECT_EQ(error_of({.idle = true, .idle_for = "half an hour"}),
            "--for: \"half an hour\" is not a duration such as 30m, 2h or 1d");
  EXPECT_EQ(error_of({.idle = true, .max_sm_percent = 101}),
            "--max-sm: expected a percentage from 0 to 100");
}

}  // namespace gpumeter::cli::report_options_test
