// SPDX-License-Identifier: MIT
// Colours and screen control for human output. Colour is decided once per run from the
// options, the environment and whether stdout is a terminal, then passed down explicitly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpumeter::cli {

enum class Color : std::uint8_t { none, green, blue, red, bold };

// Colours only on a terminal, never with --no-color, and never when NO_COLOR is set to a
// non-empty value (https://no-color.org). `no_color_env` is NO_COLOR's value, or null.
bool colors_wanted(bool no_color_option, const char* no_color_env, bool stdout_is_terminal);

// `text` wrapped in the colour's escape sequence when `enabled`, else `text` unchanged.
std::string paint(std::string_view text, Color color, bool enabled);

// Moves the cursor home and clears the screen: one frame of `--watch` on a terminal.
inline constexpr std::string_view kClearScreen = "\x1b[H\x1b[2J";

// The width to draw charts in: COLUMNS when it holds a positive number (`columns_env` is its
// value, or null), else the terminal's width when stdout is one (TIOCGWINSZ), else 80.
std::size_t terminal_width(const char* columns_env, bool stdout_is_terminal);

// Columns a string takes on a terminal: its UTF-8 code points (escape sequences excluded
// by the caller, who measures text before painting it).
std::size_t display_width(std::string_view text);

}  // namespace gpumeter::cli
