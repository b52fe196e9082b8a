// SPDX-License-Identifier: MIT
#include "cli/terminal.h"

#include <gtest/gtest.h>

namespace gpumeter::cli::terminal_test {

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

TEST(TerminalWidth, ColumnsThenTheTerminalThen80) {
  EXPECT_EQ(terminal_width("132", false), 132U);
  EXPECT_EQ(terminal_width("132", true), 132U);
  // Not a number, or zero: ignored. Tests run without a terminal on stdout.
  EXPECT_EQ(terminal_width("wide", false), 80U);
  EXPECT_EQ(terminal_width("0", false), 80U);
  EXPECT_EQ(terminal_width("-5", false), 80U);
  EXPECT_EQ(terminal_width(nullptr, false), 80U);
}

}  // namespace gpumeter::cli::terminal_test
