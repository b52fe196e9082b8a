// SPDX-License-Identifier: MIT
// A stacked bar chart as a standalone SVG document, written by hand (no dependencies): a
// title, a y axis with round ticks and grid lines, one column of stacked bars per category
// with rotated labels, and a legend. Each bar carries a tooltip (<title>) and data-series,
// data-category and data-value attributes, so that the picture can be checked by a program.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpumeter::cli {

struct StackedSeries {
  std::string name;
  std::vector<double> values;  // one per category, >= 0
};

struct StackedBars {
  std::string title;
  std::string subtitle;
  std::string x_title;
  std::string y_title;
  std::string unit;                     // in tooltips: "12.50 GPU-hours"
  std::vector<std::string> categories;  // the x axis, left to right
  std::vector<std::string> labels;      // what the x axis prints for each category
  std::vector<StackedSeries> series;    // stacked bottom-up, listed top-down in the legend
  std::string empty_message;            // shown in the plot area when every value is 0
};

// The document. Text is escaped for XML; invalid UTF-8 and control characters become U+FFFD.
std::string render_stacked_svg(const StackedBars& chart);

// `text` for XML character data or attribute values.
std::string xml_text(std::string_view text);

// A round step for about `target` ticks from 0 to `largest`: 1, 2, 2.5 or 5 times a power of 10.
double tick_step(double largest, int target);

}  // namespace gpumeter::cli
