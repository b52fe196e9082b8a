#include "view/duration.h"

#include <gtest/gtest.h>

namespace gpumeter::view {
namespace {

using std::chrono::seconds;

TEST(ParseDuration, BareNumbersAreSeconds) {
  EXPECT_EQ(parse_duration("90"), seconds(90));
  EXPECT_EQ(parse_duration("0"), seconds(0));
}

TEST(ParseDuration, Units) {
  EXPECT_EQ(parse_duration("90s"), seconds(90));
  EXPECT_EQ(parse_duration("10m"), seconds(600));
  EXPECT_EQ(parse_duration("2h"), seconds(7200));
  EXPECT_EQ(parse_duration("1d"), seconds(86400));
}

TEST(ParseDuration, RejectsEverythingElse) {
  for (const char* bad : {"", "m", "-5", "+5", "1.5m", "10 m", "10min", "10M", "ten",
                          "99999999999999999999", "9223372036854775807d",
                          // whole seconds that fit 64 bits, but not once counted in µs
                          "9223372036854775807s", "106751991167301d"}) {
    EXPECT_FALSE(parse_duration(bad).has_value()) << bad;
  }
}

TEST(ParseDuration, KeepsEveryDurationWhoseMicrosecondsFit) {
  EXPECT_EQ(parse_duration("9223372036854s"), std::chrono::seconds(9'223'372'036'854));
  EXPECT_FALSE(parse_duration("9223372036855s"));
  EXPECT_EQ(parse_duration("106751991d"), std::chrono::seconds(106'751'991LL * 86'400));
}

}  // namespace
}  // namespace gpumeter::view
