// SPDX-License-Identifier: MIT
// What every fuzz target shares: a check that aborts (so that libFuzzer saves the input as a
// crash) when a property the parser promises does not hold, and the input as a string.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>

namespace gpumeter::fuzz {

// Aborts with `what` when `ok` is false. Used instead of assert(): the fuzz build may define
// NDEBUG, and a broken promise must stop the run in every build.
inline void check(bool ok, const char* what) {
  if (!ok) {
    std::fputs(what, stderr);
    std::fputc('\n', stderr);
    std::abort();
  }
}

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Splits `text` at the first '\0' into two parts, so that one input can carry two files
// (say /proc/self/mountinfo and /proc/self/cgroup); the second is empty when there is none.
inline std::pair<std::string_view, std::string_view> two_parts(std::string_view text) {
  const auto cut = text.find('\0');
  if (cut == std::string_view::npos) {
    return {text, {}};
  }
  return {text.substr(0, cut), text.substr(cut + 1)};
}

}  // namespace gpumeter::fuzz
