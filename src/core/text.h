// SPDX-License-Identifier: MIT
// Small text helpers shared by the parsers: of procfs and cgroup files, headers, config tables
// and quota files.
#pragma once

#include <charconv>
#include <optional>
#include <string_view>
#include <vector>

namespace gpumeter {

// `text` without the characters of `blanks` at either end (HTTP's optional whitespace by
// default; config readers add '\r' so that CRLF files read the same).
constexpr std::string_view trim(std::string_view text, std::string_view blanks = " \t") {
  const auto first = text.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(blanks) - first + 1);
}

// The whole of `text` as a decimal integer; empty on any stray character or overflow.
template <class Int>
std::optional<Int> parse_integer(std::string_view text) {
  Int value{};
  const char* begin = text.data();
  const char* end = begin + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (text.empty() || ec != std::errc{} || ptr != end) return std::nullopt;
  return value;
}

// Fields separated by runs of spaces and tabs.
std::vector<std::string_view> split_fields(std::string_view text);

// Lines without their '\n'; a last line without '\n' counts too.
std::vector<std::string_view> split_lines(std::string_view text);

// `line` without `key` at its start, or empty when it does not start with `key`.
std::optional<std::string_view> after_prefix(std::string_view line, std::string_view key);

}  // namespace gpumeter
