// SPDX-License-Identifier: MIT
#include "cli/bar_chart.h"

#include <gtest/gtest.h>

#include <sstream>
#include <vector>

namespace gpumeter::cli::bar_chart_test {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(BarCells, FullBlocksThenAnEighth) {
  EXPECT_EQ(bar_cells(0), "");
  EXPECT_EQ(bar_cells(1), "▏");
  EXPECT_EQ(bar_cells(4), "▌");
  EXPECT_EQ(bar_cells(7), "▉");
  EXPECT_EQ(bar_cells(8), "█");
  EXPECT_EQ(bar_cells(27), "███▍");
}

TEST(BarChart, ScalesToTheLargestValueInEighths) {
  // 30 columns: label 3 + 2 + bar + 2 + value 4 leaves a 19-cell bar (152 eighths).
  const std::vector<Bar> bars{
      {"ada", 19, "19.0"}, {"bob", 9.5, "9.5"}, {"cy", 0.01, "0.0"}, {"dee", 0, "0"}};
  EXPECT_EQ(render_bar_chart("GPU-hours", bars, 30, false),
            "GPU-hours\n"
            "ada  ███████████████████  19.0\n"
            "bob  █████████▌            9.5\n"
            "cy   ▏                     0.0\n"
            "dee                          0\n");
}

TEST(BarChart, EveryLineFitsTheWidth) {
  const std::vector<Bar> bars{{"a very long label that cannot fit in the chart", 3, "3.00h"},
                              {"short", 1, "1.00h", "OVER", Color::red}};
  for (const std::size_t width : {40U, 60U, 80U, 132U}) {
    for (const std::string& line : lines_of(render_bar_chart("title", bars, width, false)))
      EXPECT_LE(display_width(line), width) << width << ": " << line;
  }
  const std::vector<std::string> lines = lines_of(render_bar_chart("title", bars, 40, false));
  EXPECT_EQ(lines[1].substr(0, 18), "a very long lab…");
  EXPECT_EQ(lines[2].substr(lines[2].size() - 10), "1.00h OVER");
}

TEST(BarChart, KeepsATenCellBarOnANarrowTerminal) {
  const std::vector<Bar> bars{{"someone", 2, "2.00h"}};
  const std::vector<std::string> lines = lines_of(render_bar_chart("t", bars, 10, false));
  EXPECT_EQ(lines[1], "som…  ██████████  2.00h");
}

TEST(BarChart, PaintsBarsAndMarkersOnlyWithColour) {
  const std::vector<Bar> bars{{"bob", 1, "1.00h", "OVER", Color::red}};
  const std::string painted = render_bar_chart("t", bars, 30, true);
  EXPECT_NE(painted.find("\x1b[31m█"), std::string::npos);
  EXPECT_NE(painted.find("\x1b[31mOVER\x1b[0m"), std::string::npos);
  EXPECT_EQ(render_bar_chart("t", bars, 30, false).find('\x1b'), std::string::npos);
}

}  // namespace gpumeter::cli::bar_chart_test
