// SPDX-License-Identifier: MIT
#include "top/screen.h"

namespace gpumeter::top {

std::size_t columns(std::string_view text) {
  std::size_t count = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++count;
  }
  return count;
}

std::string fit(std::string_view text, std::size_t width, bool unicode) {
  if (columns(text) <= width) return std::string(text);
  if (width == 0) return "";
  std::string out;
  std::size_t taken = 0;
  for (const char c : text) {
    const bool starts = (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
    if (starts && taken == width - 1) break;
    if (starts) ++taken;
    out += c;
  }
  return out + (unicode ? "…" : "~");
}

std::string screen_text(const Screen& screen) {
  std::string out;
  for (const Line& line : screen.lines) {
    std::string text;
    for (const Span& span : line) text += span.text;
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text;
    out += '\n';
  }
  return out;
}

}  // namespace gpumeter::top
