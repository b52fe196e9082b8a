// SPDX-License-Identifier: MIT
#include "cli/terminal.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>

namespace gpumeter::cli {
namespace {

std::string_view escape(Color color) {
  switch (color) {
    case Color::green: return "\x1b[32m";
    case Color::blue: return "\x1b[34m";
    case Color::red: return "\x1b[31m";
    case Color::bold: return "\x1b[1m";
    case Color::none: return "";
  }
  return "";
}

}  // namespace

bool colors_wanted(bool no_color_option, const char* no_color_env, bool stdout_is_terminal) {
  const bool env_says_no = no_color_env != nullptr && *no_color_env != '\0';
  return stdout_is_terminal && !no_color_option && !env_says_no;
}

std::string paint(std::string_view text, Color color, bool enabled) {
  if (!enabled || color == Color::none || text.empty()) return std::string(text);
  return fmt::format("{}{}\x1b[0m", escape(color), text);
}

std::size_t terminal_width(const char* columns_env, bool stdout_is_terminal) {
  constexpr std::size_t kDefault = 80;
  if (columns_env != nullptr) {
    const std::string_view text(columns_env);
    std::size_t columns = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), columns);
    if (error == std::errc{} && end == text.data() + text.size() && columns > 0) return columns;
  }
  winsize size{};
  if (stdout_is_terminal && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    return size.ws_col;
  return kDefault;
}

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for (const char c : text) {
    // Continuation bytes (10xxxxxx) belong to the code point before them.
    if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++width;
  }
  return width;
}

}  // namespace gpumeter::cli
