// SPDX-License-Identifier: MIT
// A screen as lines of styled spans, before any terminal draws it: the renderer's output, what
// the ncurses layer paints and what tests compare as text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpumeter::top {

enum class Style : std::uint8_t {
  plain,
  title,   // the first line
  header,  // column headings
  sorted,  // the heading of the sort column
  dim,     // hints, N/A reasons
  free,    // as `list`: green
  busy,    // blue
  alert,   // red
  bar,     // the filled part of a bar
};

struct Span {
  std::string text;
  Style style = Style::plain;
};

using Line = std::vector<Span>;

struct Screen {
  int width = 80;
  int height = 24;
  std::vector<Line> lines;  // at most `height`, each at most `width` columns
};

// Columns a UTF-8 string takes (its code points: the renderer draws no wide characters).
std::size_t columns(std::string_view text);

// `text` cut to at most `width` columns, with "…" (or "~" without Unicode) where it was cut.
std::string fit(std::string_view text, std::size_t width, bool unicode);

// The screen as plain text: a line each, without trailing blanks.
std::string screen_text(const Screen& screen);

}  // namespace gpumeter::top
