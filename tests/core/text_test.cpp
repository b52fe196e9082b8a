// SPDX-License-Identifier: MIT
#include "core/text.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace gpumeter::text_test {

TEST(ParseInteger, WholeTextOnly) {
  EXPECT_EQ(parse_integer<int>("42"), 42);
  EXPECT_EQ(parse_integer<int>("-7"), -7);
  EXPECT_FALSE(parse_integer<int>(""));
  EXPECT_FALSE(parse_integer<int>("4 2"));
  EXPECT_FALSE(parse_integer<int>("42kB"));
  EXPECT_FALSE(parse_integer<std::uint32_t>("-1"));
  EXPECT_FALSE(parse_integer<std::uint8_t>("256"));
}

TEST(SplitFields, RunsOfSpacesAndTabs) {
  EXPECT_EQ(split_fields(" a\t\tb  c "), (std::vector<std::string_view>{"a", "b", "c"}));
  EXPECT_TRUE(split_fields(" \t ").empty());
}

TEST(SplitLines, LastLineWithoutNewline) {
  EXPECT_EQ(split_lines("a\n\nb"), (std::vector<std::string_view>{"a", "", "b"}));
  EXPECT_EQ(split_lines("a\n"), (std::vector<std::string_view>{"a"}));
  EXPECT_TRUE(split_lines("").empty());
}

TEST(AfterPrefix, OnlyAtTheStart) {
  EXPECT_EQ(after_prefix("Uid:\t0", "Uid:"), "\t0");
  EXPECT_FALSE(after_prefix("XUid:", "Uid:"));
}

}  // namespace gpumeter::text_test
