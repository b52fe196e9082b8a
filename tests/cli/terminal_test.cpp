#include "cli/terminal.h"

#include <gtest/gtest.h>

namespace gpumeter::cli {
namespace {

TEST(Colors, OnlyOnATerminal) {
  EXPECT_TRUE(colors_wanted(false, nullptr, true));
  EXPECT_FALSE(colors_wanted(false, nullptr, false));
}

TEST(Colors, NoColorOptionWins) {
  EXPECT_FALSE(colors_wanted(true, nullptr, true));
}

TEST(Colors, NoColorEnvironmentWhenNotEmpty) {
  EXPECT_FALSE(colors_wanted(false, "1", true));
  EXPECT_TRUE(colors_wanted(false, "", true));
}

TEST(Paint, WrapsOnlyWhenEnabled) {
  EXPECT_EQ(paint("ok", Color::red, true), "\x1b[31mok\x1b[0m");
  EXPECT_EQ(paint("ok", Color::red, false), "ok");
  EXPECT_EQ(paint("ok", Color::none, true), "ok");
}

}  // namespace
}  // namespace gpumeter::cli
