// Small text helpers shared by the parsers of headers, config tables and quota files.
#pragma once

#include <string_view>

namespace gpumeter {

// `text` without the characters of `blanks` at either end (HTTP's optional whitespace by
// default; config readers add '\r' so that CRLF files read the same).
constexpr std::string_view trim(std::string_view text, std::string_view blanks = " \t") {
  const auto first = text.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(blanks) - first + 1);
}

}  // namespace gpumeter
