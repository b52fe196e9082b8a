// SPDX-License-Identifier: MIT
#include "view/humanize.h"

#include <gtest/gtest.h>

namespace gpumeter::view::humanize_test {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;

TEST(FormatBytes, MebibytesUnderAGibibyte) {
  EXPECT_EQ(format_bytes(0), "0MiB");
  EXPECT_EQ(format_bytes(936378368), "893MiB");
  EXPECT_EQ(format_bytes(1023 * kMiB), "1023MiB");
}

TEST(FormatBytes, GibibytesAndTebibytesWithOneDecimal) {
  EXPECT_EQ(format_bytes(1023.6 * kMiB), "1.0GiB");
  EXPECT_EQ(format_bytes(16 * kGiB), "16.0GiB");
  EXPECT_EQ(format_bytes(79.6 * kGiB), "79.6GiB");
  EXPECT_EQ(format_bytes(1536 * kGiB), "1.5TiB");
}

TEST(FormatMemory, UsedOverTotal) {
  EXPECT_EQ(format_memory(893 * kMiB, 16 * kGiB), "893MiB / 16.0GiB");
  EXPECT_EQ(format_memory(893 * kMiB, 16 * kGiB, "/"), "893MiB/16.0GiB");
}

TEST(FormatMemory, AbsentSidesPrintNa) {
  const Maybe<double> absent = std::unexpected(Unavailable::not_supported);
  EXPECT_EQ(format_memory(absent, 16 * kGiB), "N/A / 16.0GiB");
  EXPECT_EQ(format_memory(absent, absent), "N/A");
}

TEST(FormatAge, TwoLargestUnits) {
  constexpr TimeUs kSecond = 1'000'000;
  EXPECT_EQ(format_age(0), "0s");
  EXPECT_EQ(format_age(42 * kSecond), "42s");
  EXPECT_EQ(format_age(5 * 60 * kSecond + 3 * kSecond), "5m 3s");
  EXPECT_EQ(format_age((3 * 3600 + 12 * 60 + 59) * kSecond), "3h 12m");
  EXPECT_EQ(format_age((2 * 86400 + 4 * 3600 + 1) * kSecond), "2d 4h");
  EXPECT_EQ(format_age(3600 * kSecond), "1h 0m");
}

TEST(FormatAge, ClockSkewIsZero) {
  EXPECT_EQ(format_age(-5'000'000), "0s");
}

TEST(FormatWhole, RoundsAndAppendsTheUnit) {
  EXPECT_EQ(format_whole(42.5, "W"), "43W");
  EXPECT_EQ(format_whole(99.4, "%"), "99%");
  EXPECT_EQ(format_whole(std::unexpected(Unavailable::gpu_lost), "%"), "N/A");
}

}  // namespace gpumeter::view::humanize_test
