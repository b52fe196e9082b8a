// SPDX-License-Identifier: MIT
#include "net/query_time.h"

#include <gtest/gtest.h>

#include "support/time_zone.h"

namespace gpumeter::net::query_time_test {

constexpr TimeUs kSecond = 1'000'000;
constexpr TimeUs kNow = 1'700'000'000 * kSecond;  // 2023-11-14T22:13:20Z

TEST(QueryTime, DurationsBeforeNow) {
  EXPECT_EQ(parse_query_time("90s", kNow), kNow - 90 * kSecond);
  EXPECT_EQ(parse_query_time("10m", kNow), kNow - 600 * kSecond);
  EXPECT_EQ(parse_query_time("7d", kNow), kNow - 7 * 86400 * kSecond);
  EXPECT_EQ(parse_query_time("now", kNow), kNow);
}

// Found by fuzz/query_fuzz: a duration of 20,265,555,555,510 s overflowed its µs (undefined
// behaviour; a wrapped time in practice). A duration reaching before 1970 is refused.
TEST(QueryTime, DurationsWhoseMicrosecondsWouldOverflowAreRefused) {
  EXPECT_EQ(parse_query_time("1700000000", kNow), 0);  // back to the epoch exactly
  EXPECT_FALSE(parse_query_time("1700000001", kNow));
  EXPECT_FALSE(parse_query_time("100000000000", kNow));
  EXPECT_FALSE(parse_query_time("20265555555510", kNow));
  EXPECT_FALSE(parse_query_time("9223372036854775807s", kNow));
  EXPECT_FALSE(parse_query_time("106751991167d", kNow));
}

TEST(QueryTime, UnixSeconds) {
  EXPECT_EQ(parse_query_time("@1699990000", kNow), 1'699'990'000 * kSecond);
  EXPECT_FALSE(parse_query_time("@", kNow));
  EXPECT_FALSE(parse_query_time("@12x", kNow));
  EXPECT_FALSE(parse_query_time("@99999999999999999", kNow));
}

TEST(QueryTime, RefusesTimesOutsideTheRange) {
  EXPECT_EQ(parse_query_time("@0", kNow), 0);
  EXPECT_EQ(parse_query_time("@253402300799", kNow), 253'402'300'799 * kSecond);
  EXPECT_EQ(parse_query_time("9999-12-31T23:59:59Z", kNow), 253'402'300'799 * kSecond);
  for (const char* bad : {"@-1", "@-99999999999", "@253402300800", "99999999999d", "106751991167d",
                          "9223372036854775807s", "53y", "0001-01-01T00:00Z",
                          "1969-12-31T23:59:59Z", "9999-12-31T23:59:59-01:00"}) {
    EXPECT_FALSE(parse_query_time(bad, kNow)) << bad;
  }
  // A duration that reaches before the epoch is refused, not wrapped.
  EXPECT_FALSE(parse_query_time("19676d", kNow));
  EXPECT_TRUE(parse_query_time("19675d", kNow));
}

TEST(QueryTime, Iso8601WithAZone) {
  EXPECT_EQ(parse_query_time("2023-11-14T22:13:20Z", kNow), kNow);
  EXPECT_EQ(parse_query_time("2023-11-14T22:13:20.250Z", kNow), kNow + 250'000);
  EXPECT_EQ(parse_query_time("2023-11-14T23:13:20+01:00", kNow), kNow);
  EXPECT_EQ(parse_query_time("2023-11-14T17:13:20-0500", kNow), kNow);
  EXPECT_EQ(parse_query_time("2023-11-14T22:13Z", kNow), kNow - 20 * kSecond);
  for (const char* bad : {"2023-02-30T00:00:00Z", "2023-11-14T24:00:00Z", "2023-11-14T22:13:20+1",
                          "2023-11-14T22:13:20Q", "2023-11-14T22:60Z"}) {
    EXPECT_FALSE(parse_query_time(bad, kNow)) << bad;
  }
}

TEST(QueryTime, LocalDatesAsReportsReadThem) {
  const cli::testing::TimeZone utc("UTC0");
  EXPECT_EQ(parse_query_time("2023-11-14", kNow), 1'699'920'000 * kSecond);
  EXPECT_EQ(parse_query_time("2023-11-14 22:13", kNow), kNow - 20 * kSecond);
  EXPECT_FALSE(parse_query_time("yesterday", kNow));
  EXPECT_FALSE(parse_query_time("", kNow));
}

TEST(Step, WholeSecondsAtLeastOne) {
  EXPECT_EQ(parse_step("10s"), std::chrono::seconds(10));
  EXPECT_EQ(parse_step("1m"), std::chrono::seconds(60));
  EXPECT_EQ(parse_step("2"), std::chrono::seconds(2));
  EXPECT_FALSE(parse_step("0s"));
  EXPECT_FALSE(parse_step("1.5s"));
  EXPECT_FALSE(parse_step("100ms"));
  EXPECT_EQ(parse_step("100000000000"), std::chrono::seconds(100'000'000'000));
  EXPECT_FALSE(parse_step("100000000001"));  // its µs would overflow
}

}  // namespace gpumeter::net::query_time_test
