// SPDX-License-Identifier: MIT
#include "cli/bar_chart.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "cli/usage_keys.h"

namespace gpumeter::cli {
namespace {

constexpr std::size_t kMinimumBar = 10;
constexpr std::size_t kMinimumLabel = 4;
constexpr std::size_t kGap = 2;  // spaces between label, bar and value

// U+2588 FULL BLOCK, then U+258F (one eighth) to U+2589 (seven eighths).
constexpr std::string_view kFull = "█";
constexpr std::array<std::string_view, 8> kEighths{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};

struct Layout {
  std::size_t label = 0;
  std::size_t bar = 0;
  std::size_t value = 0;   // the widest value text
  std::size_t marker = 0;  // the widest marker
};

Layout layout(std::span<const Bar> bars, std::size_t width) {
  Layout sizes;
  for (const Bar& bar : bars) {
    sizes.label = std::max(sizes.label, display_width(bar.label));
    sizes.value = std::max(sizes.value, display_width(bar.value_text));
    sizes.marker = std::max(sizes.marker, display_width(bar.marker));
  }
  const std::size_t fixed = 2 * kGap + sizes.value + (sizes.marker > 0 ? sizes.marker + 1 : 0);
  // Labels give way first, down to a few characters, so that bars keep their minimum.
  const std::size_t room = width > fixed + kMinimumBar ? width - fixed - kMinimumBar : 0;
  sizes.label = std::min(sizes.label, std::max(room, kMinimumLabel));
  sizes.bar = std::max(width > fixed + sizes.label ? width - fixed - sizes.label : 0, kMinimumBar);
  return sizes;
}

std::size_t eighths_of(double value, double largest, std::size_t cells) {
  if (value <= 0 || largest <= 0) return 0;
  const auto eighths =
      static_cast<std::size_t>(std::lround(value / largest * static_cast<double>(cells * 8)));
  return std::clamp<std::size_t>(eighths, 1, cells * 8);
}

std::string padded(std::string text, std::size_t width, bool right) {
  const std::size_t used = display_width(text);
  if (used >= width) return text;
  const std::string padding(width - used, ' ');
  return right ? padding + text : text + padding;
}

}  // namespace

std::string bar_cells(std::size_t eighths) {
  std::string out;
  for (std::size_t i = 0; i < eighths / 8; ++i) out += kFull;
  out += kEighths[eighths % 8];
  return out;
}

std::string render_bar_chart(std::string_view title, std::span<const Bar> bars, std::size_t width,
                             bool color) {
  const Layout sizes = layout(bars, width);
  double largest = 0;
  for (const Bar& bar : bars) largest = std::max(largest, bar.value);
  const std::string gap(kGap, ' ');
  std::string out = paint(title, Color::bold, color) + '\n';
  for (const Bar& bar : bars) {
    // Padding is measured on the plain bar, then the bar is painted.
    const std::string cells = bar_cells(eighths_of(bar.value, largest, sizes.bar));
    out += padded(cut(bar.label, sizes.label), sizes.label, false);
    out += gap;
    out += paint(cells, bar.color, color);
    out.append(sizes.bar - display_width(cells), ' ');
    out += gap;
    out += padded(bar.value_text, sizes.value, true);
    if (!bar.marker.empty()) out += ' ' + paint(bar.marker, bar.color, color);
    out += '\n';
  }
  return out;
}

}  // namespace gpumeter::cli
