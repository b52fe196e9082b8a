// SPDX-License-Identifier: MIT
#include "core/text.h"

namespace gpumeter {

std::vector<std::string_view> split_fields(std::string_view text) {
  std::vector<std::string_view> fields;
  std::size_t pos = 0;
  while (pos < text.size()) {
    pos = text.find_first_not_of(" \t", pos);
    if (pos == std::string_view::npos) break;
    std::size_t end = text.find_first_of(" \t", pos);
    if (end == std::string_view::npos) end = text.size();
    fields.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  return fields;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(0, end));
    text.remove_prefix(end == text.size() ? end : end + 1);
  }
  return lines;
}

std::optional<std::string_view> after_prefix(std::string_view line, std::string_view key) {
  if (!line.starts_with(key)) return std::nullopt;
  return line.substr(key.size());
}

}  // namespace gpumeter
