// SPDX-License-Identifier: MIT
// Points in time on the command line.
#include "cli/time_argument.h"

#include <gtest/gtest.h>
#include <stdlib.h>  // setenv: POSIX

#include <ctime>

namespace gpumeter::cli::time_argument_test {

constexpr TimeUs kSecond = 1'000'000;
constexpr TimeUs kNow = 1'767'225'600 * kSecond;  // 2026-01-01T00:00:00Z

class TimeArgument : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "CET-1", 1);  // one hour east of UTC, no daylight saving time
    tzset();
  }
  void TearDown() override {
    unsetenv("TZ");
    tzset();
  }
};

TEST_F(TimeArgument, LocalDatesAndTimes) {
  EXPECT_EQ(parse_time_argument("2026-01-01", kNow), kNow - 3600 * kSecond);
  EXPECT_EQ(parse_time_argument("2026-01-01T08:30", kNow),
            kNow + 7 * 3600 * kSecond + 1800 * kSecond);
  EXPECT_EQ(parse_time_argument("2026-01-01 08:30:15", kNow),
            kNow + 7 * 3600 * kSecond + 1815 * kSecond);
}

TEST_F(TimeArgument, UnixSecondsNowAndAgo) {
  EXPECT_EQ(parse_time_argument("@1767225600", kNow), kNow);
  EXPECT_EQ(parse_time_argument("now", kNow), kNow);
  EXPECT_EQ(parse_time_argument("7d", kNow), kNow - 7 * 86400 * kSecond);
  EXPECT_EQ(parse_time_argument("90m", kNow), kNow - 5400 * kSecond);
}

TEST_F(TimeArgument, AnythingElseIsRefused) {
  for (const char* bad : {"", "yesterday", "2026-02-30", "2026-1-1", "2026-01-01T8:30",
                          "2026-01-01T08:30:15Z", "@", "@12x", "2026-01-01T25:00"}) {
    EXPECT_FALSE(parse_time_argument(bad, kNow)) << bad;
  }
}

}  // namespace gpumeter::cli::time_argument_test
