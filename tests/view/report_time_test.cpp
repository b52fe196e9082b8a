// SPDX-License-Identifier: MIT
#include "view/report_time.h"

#include <gtest/gtest.h>

#include "support/time_zone.h"

namespace gpumeter::view::report_time_test {

using cli::testing::TimeZone;

constexpr TimeUs kSecond = 1'000'000;
constexpr TimeUs kHour = 3600 * kSecond;
constexpr TimeUs kDay = 24 * kHour;
constexpr TimeUs kJan1 = 1'767'225'600 * kSecond;  // 2026-01-01T00:00:00Z, a Thursday
constexpr TimeUs kOct1 = kJan1 + 273 * kDay;       // 2026-10-01T00:00:00Z
constexpr TimeUs kNow = kOct1 + 20 * kDay + 15 * kHour + 42 * 60 * kSecond;  // Oct 21 15:42 UTC

TEST(ParseReportTime, DatesAreLocalMidnights) {
  {
    const TimeZone utc("UTC0");
    EXPECT_EQ(parse_report_time("2026-10-01", kNow), kOct1);
    EXPECT_EQ(parse_report_time("2026-10", kNow), kOct1);
  }
  const TimeZone tokyo("JST-9");
  EXPECT_EQ(parse_report_time("2026-10-01", kNow), kOct1 - 9 * kHour);
  EXPECT_EQ(parse_report_time("2026-10", kNow), kOct1 - 9 * kHour);
}

TEST(ParseReportTime, DateAndTime) {
  const TimeZone tokyo("JST-9");
  const TimeUs noon = kOct1 - 9 * kHour + 12 * kHour;
  EXPECT_EQ(parse_report_time("2026-10-01 12:00", kNow), noon);
  EXPECT_EQ(parse_report_time("2026-10-01T12:00", kNow), noon);
  EXPECT_EQ(parse_report_time("2026-10-01 12:00:30", kNow), noon + 30 * kSecond);
}

TEST(ParseReportTime, DurationsBeforeNowAndWords) {
  const TimeZone utc("UTC0");
  EXPECT_EQ(parse_report_time("30d", kNow), kNow - 30 * kDay);
  EXPECT_EQ(parse_report_time("12h", kNow), kNow - 12 * kHour);
  EXPECT_EQ(parse_report_time("90", kNow), kNow - 90 * kSecond);
  EXPECT_EQ(parse_report_time("now", kNow), kNow);
  EXPECT_EQ(parse_report_time("today", kNow), kOct1 + 20 * kDay);
}

TEST(ParseReportTime, RefusesWhatIsNotADate) {
  const TimeZone utc("UTC0");
  for (const char* bad :
       {"", "2026-02-30", "2026-04-31", "2026-13-01", "2026-00-10", "2026-1-01", "26-10-01",
        "2026-10-01 25:00", "2026-10-01 12", "2026-10-01 12:60", "2026-10-01x", "2026-10-01 ",
        "2026/10/01", "-2026-10-01", "2026-+1-01", "yesterday", "30 d", "1.5d"}) {
    EXPECT_FALSE(parse_report_time(bad, kNow).has_value()) << bad;
  }
  EXPECT_TRUE(parse_report_time("2028-02-29", kNow).has_value());  // a leap year
}

// Found by fuzz/query_fuzz: "2026555555555555555" seconds overflowed their µs (undefined
// behaviour; a wrapped time in practice).
TEST(ParseReportTime, RefusesDurationsWhoseMicrosecondsWouldOverflow) {
  EXPECT_EQ(parse_report_time("100000000000", kNow), kNow - 100'000'000'000 * kSecond);
  EXPECT_FALSE(parse_report_time("100000000001", kNow).has_value());
  EXPECT_FALSE(parse_report_time("2026555555555555555", kNow).has_value());
  EXPECT_FALSE(parse_report_time("9223372036854775807s", kNow).has_value());
}

TEST(PeriodStart, DayWeekMonthAndHour) {
  const TimeZone utc("UTC0");
  const TimeUs nov22 = kJan1 + 325 * kDay;  // 2026-11-22, a Sunday
  EXPECT_EQ(period_start(CalendarPeriod::day, nov22 + 5 * kHour), nov22);
  EXPECT_EQ(period_start(CalendarPeriod::week, nov22 + 5 * kHour), nov22 - 6 * kDay);
  EXPECT_EQ(period_start(CalendarPeriod::week, nov22 - 6 * kDay), nov22 - 6 * kDay);
  EXPECT_EQ(period_start(CalendarPeriod::month, nov22 + 5 * kHour), nov22 - 21 * kDay);
  EXPECT_EQ(period_start(CalendarPeriod::hour, nov22 + 5 * kHour + 59 * 60 * kSecond),
            nov22 + 5 * kHour);
}

TEST(PeriodStart, FollowsTheLocalZone) {
  const TimeZone tokyo("JST-9");
  // 2026-10-31T20:00Z is Nov 1, 05:00 in Tokyo: its month began Oct 31, 15:00 UTC.
  const TimeUs evening = kOct1 + 30 * kDay + 20 * kHour;
  EXPECT_EQ(period_start(CalendarPeriod::month, evening), kOct1 + 30 * kDay + 15 * kHour);
  EXPECT_EQ(period_start(CalendarPeriod::day, evening), kOct1 + 30 * kDay + 15 * kHour);
}

TEST(NextPeriodStart, DaysAcrossDaylightSavingChanges) {
  const TimeZone europe(cli::testing::kCentralEurope);
  // Summer time ends on Sunday 2026-10-25: that local day lasts 25 hours.
  const TimeUs oct25 = parse_report_time("2026-10-25", kNow).value();
  EXPECT_EQ(next_period_start(CalendarPeriod::day, oct25) - oct25, 25 * kHour);
  const TimeUs oct26 = oct25 + 25 * kHour;
  EXPECT_EQ(next_period_start(CalendarPeriod::day, oct26) - oct26, 24 * kHour);
  // October in Central Europe: 31 days and one hour.
  const TimeUs october = parse_report_time("2026-10", kNow).value();
  EXPECT_EQ(next_period_start(CalendarPeriod::month, october) - october, 31 * kDay + kHour);
  EXPECT_EQ(next_period_start(CalendarPeriod::week, oct26) - oct26, 7 * kDay);
  EXPECT_EQ(next_period_start(CalendarPeriod::hour, oct26), oct26 + kHour);
}

TEST(LocalMinute, FormatsInTheLocalZone) {
  const TimeZone tokyo("JST-9");
  EXPECT_EQ(local_minute(kNow), "2026-10-22 00:42");
}

}  // namespace gpumeter::view::report_time_test
