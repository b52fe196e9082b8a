// SPDX-License-Identifier: MIT
#include "core/duration.h"

#include <gtest/gtest.h>

namespace gpumeter::duration_test {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(ParseDuration, BareNumbersAreSeconds) {
  EXPECT_EQ(parse_duration("90"), seconds(90));
  EXPECT_EQ(parse_duration("0"), seconds(0));
}

TEST(ParseDuration, Units) {
  EXPECT_EQ(parse_duration("100ms"), milliseconds(100));
  EXPECT_EQ(parse_duration("90s"), seconds(90));
  EXPECT_EQ(parse_duration("10m"), seconds(600));
  EXPECT_EQ(parse_duration("2h"), seconds(7200));
  EXPECT_EQ(parse_duration("1d"), seconds(86400));
}

TEST(ParseDuration, RejectsEverythingElse) {
  for (const char* bad : {"", "m", "ms", "-5", "+5", "1.5m", "10 m", "10min", "10M", "10MS", "ten",
                          "99999999999999999999", "9223372036854775807d",
                          // whole seconds that fit 64 bits, but not once counted in µs
                          "9223372036854775807s", "106751991167301d"}) {
    EXPECT_FALSE(parse_duration(bad).has_value()) << bad;
  }
}

TEST(ParseDuration, KeepsEveryDurationWhoseMicrosecondsFit) {
  EXPECT_EQ(parse_duration("9223372036854s"), seconds(9'223'372'036'854));
  EXPECT_EQ(parse_duration("9223372036854775ms"), milliseconds(9'223'372'036'854'775));
  EXPECT_FALSE(parse_duration("9223372036855s"));
  EXPECT_FALSE(parse_duration("9223372036854776ms"));
  EXPECT_EQ(parse_duration("106751991d"), seconds(106'751'991LL * 86'400));
}

TEST(ParseWholeSeconds, TheSameGrammarInWholeSeconds) {
  EXPECT_EQ(parse_whole_seconds("90"), seconds(90));
  EXPECT_EQ(parse_whole_seconds("10m"), seconds(600));
  EXPECT_EQ(parse_whole_seconds("2000ms"), seconds(2));
  EXPECT_FALSE(parse_whole_seconds("1500ms"));
  EXPECT_FALSE(parse_whole_seconds("10min"));
}

}  // namespace gpumeter::duration_test
