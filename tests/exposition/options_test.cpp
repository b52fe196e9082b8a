// SPDX-License-Identifier: MIT
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "exposition/metrics.h"

namespace gpumeter::exposition::options_test {

TEST(ProcessLimit, ReadsTheThreeForms) {
  const auto top = parse_process_limit("top:5");
  ASSERT_TRUE(top.has_value());
  EXPECT_EQ(top->series, ProcessSeries::top);
  EXPECT_EQ(top->top, 5U);
  EXPECT_EQ(parse_process_limit("users")->series, ProcessSeries::users);
  EXPECT_EQ(parse_process_limit("none")->series, ProcessSeries::none);
  EXPECT_EQ(parse_process_limit("top:10000")->top, 10000U);
}

TEST(ProcessLimit, RefusesAnythingElseSayingWhatItExpects) {
  for (const char* bad : {"", "top", "top:", "top:0", "top:-1", "top:10001", "top:5x", "top: 5",
                          "Users", "all", "top:99999999999999999999"}) {
    const auto parsed = parse_process_limit(bad);
    ASSERT_FALSE(parsed.has_value()) << bad;
    EXPECT_EQ(parsed.error().code, ErrorCode::invalid_input);
    EXPECT_NE(parsed.error().message.find("expected top:N"), std::string::npos);
    EXPECT_NE(parsed.error().message.find(fmt::format("'{}'", bad)), std::string::npos);
  }
}

TEST(ProcessLimit, PrintsAsItIsRead) {
  for (const char* text : {"top:20", "top:1", "users", "none"}) {
    EXPECT_EQ(to_string(*parse_process_limit(text)), text);
  }
  EXPECT_EQ(to_string(ProcessLimit{}), "top:20");
}

}  // namespace gpumeter::exposition::options_test
