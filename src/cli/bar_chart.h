// SPDX-License-Identifier: MIT
// Horizontal bar charts for the terminal, drawn with Unicode block characters: full blocks,
// then one of the eighth blocks (▏▎▍▌▋▊▉) for the last fraction of a cell, so a bar's length is
// exact to an eighth of a character.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "cli/terminal.h"

namespace gpumeter::cli {

struct Bar {
  std::string label;
  double value = 0;        // >= 0; the longest bar is the largest value
  std::string value_text;  // printed after the bar, right-aligned
  std::string marker;      // printed after the value text ("OVER"), in the bar's colour
  Color color = Color::blue;
};

// A bar of `eighths` eighths of a cell: "███▍" for 27. Empty for 0.
std::string bar_cells(std::size_t eighths);

// A title line, then one line per bar: the label (padded, cut with "…" when labels would leave
// the bars less than 10 cells), the bar scaled so that the largest value fills the bar area,
// the value text right-aligned, and the marker if any; every line at most `width` columns (when
// `width` leaves room for a 10-cell bar). A positive value too small for an eighth still shows "▏".
// Bars are painted in their colour when `color`.
std::string render_bar_chart(std::string_view title, std::span<const Bar> bars, std::size_t width,
                             bool color);

}  // namespace gpumeter::cli
