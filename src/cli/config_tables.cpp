// SPDX-License-Identifier: MIT
#include "cli/config_tables.h"

#include <fmt/format.h>

// Header-only, in this file alone: nothing else includes toml++, and its shared library
// would be one more object for every one-shot command to load.
#define TOML_HEADER_ONLY 1
#define TOML_ENABLE_FORMATTERS 0
#include <toml++/toml.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>

#include "core/bounded_file.h"
#include "core/text.h"

namespace gpumeter::cli {
namespace {

constexpr std::string_view kLineBlanks = " \t\r";

std::unexpected<Error> error_at(std::string_view file, std::size_t line, std::string_view what) {
  return std::unexpected(
      Error{ErrorCode::invalid_input, fmt::format("{}:{}: {}", file, line, what)});
}

// INI's comment lines (`;`) as TOML's (`#`), in place, so that lines keep their numbers.
std::string ini_comments_as_toml(std::string_view text) {
  std::string out(text);
  std::size_t start = 0;
  while (start < out.size()) {
    const std::size_t first = out.find_first_not_of(kLineBlanks, start);
    if (first != std::string::npos && out[first] == ';') out[first] = '#';
    const std::size_t newline = out.find('\n', start);
    if (newline == std::string::npos) break;
    start = newline + 1;
  }
  return out;
}

bool starts_a_key(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '"' || c == '\'';
}

// The line of a table header whose name does not start as a key may ("[=x]", "[#]", a "[" that
// ends its line): toml++ 3.3.0 asserts there in a build without NDEBUG, and a clang build with
// it assumes that cannot happen, so such a header is refused here, before toml++ reads it.
// Lines inside multi-line strings are not headers.
std::optional<std::size_t> header_without_a_name(std::string_view text) {
  bool in_multiline_string = false;
  std::size_t number = 0;
  for (const std::string_view line : split_lines(text)) {
    ++number;
    std::string_view rest = trim(line, kLineBlanks);
    if (!in_multiline_string && rest.starts_with('[')) {
      rest = trim(rest.substr(rest.starts_with("[[") ? 2 : 1), kLineBlanks);
      if (rest.empty() || (rest.front() != ']' && !starts_a_key(rest.front()))) return number;
    }
    for (std::size_t at = 0; (at = line.find_first_of("\"'", at)) != std::string_view::npos;) {
      const std::string_view quotes = line.substr(at, 3);
      const bool triple = quotes == R"(""")" || quotes == "'''";
      if (triple) in_multiline_string = !in_multiline_string;
      at += triple ? 3 : 1;
    }
  }
  return std::nullopt;
}

// The line of the first byte outside ASCII: toml++ 3.3.0 reaches code it marks unreachable for
// some non-ASCII characters (U+0217 among them: undefined behaviour in a release build), so a
// config file is ASCII, which every key and value gpumeter reads is.
std::optional<std::size_t> line_of_non_ascii(std::string_view text) {
  const auto byte = std::ranges::find_if(text, [](char c) { return (c & 0x80) != 0; });
  if (byte == text.end()) return std::nullopt;
  return static_cast<std::size_t>(std::count(text.begin(), byte, '\n')) + 1;
}

// The line of the first key or table header of more than kMaxKeyParts dotted parts. toml++
// makes a table per part and recurses through them: 200,000 parts (400 KB) overflowed the
// stack. Dots are counted outside strings and comments; a config key never has more than two.
constexpr std::size_t kMaxKeyParts = 64;

std::optional<std::size_t> line_with_too_many_key_parts(std::string_view text) {
  enum class In : std::uint8_t {
    code,
    comment,
    basic,
    literal,
    multiline_basic,
    multiline_literal
  };
  In in = In::code;
  std::size_t line = 1;
  std::size_t dots = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const std::string_view here = text.substr(i, 3);
    if (c == '\n') {
      ++line;
      dots = 0;
      if (in == In::comment || in == In::basic || in == In::literal) in = In::code;
    } else if (in == In::code) {
      if (c == '.' && ++dots >= kMaxKeyParts) return line;
      if (c == '#') in = In::comment;
      if (here == R"(""")" || here == "'''") {
        in = c == '"' ? In::multiline_basic : In::multiline_literal;
        i += 2;
      } else if (c == '"' || c == '\'') {
        in = c == '"' ? In::basic : In::literal;
      }
    } else if (in == In::basic || in == In::multiline_basic) {
      if (c == '\\' && i + 1 < text.size()) {
        ++i;  // the escaped character, never a closing quote; a line break still counts
        if (text[i] == '\n') ++line;
      } else if (in == In::basic && c == '"') {
        in = In::code;
      } else if (in == In::multiline_basic && here == R"(""")") {
        i += 2;
        in = In::code;
      }
    } else if (in == In::literal && c == '\'') {
      in = In::code;
    } else if (in == In::multiline_literal && here == "'''") {
      i += 2;
      in = In::code;
    }
  }
  return std::nullopt;
}

// A node's line; for a table TOML made without a header of its own (`[a.b]` makes `a`), the
// first line of what it holds.
std::size_t line_of(const toml::node& node) {
  if (node.source().begin.line > 0) return node.source().begin.line;
  std::size_t first = std::numeric_limits<std::size_t>::max();
  if (const toml::table* table = node.as_table()) {
    for (const auto& [key, child] : *table) first = std::min(first, line_of(child));
  } else if (const toml::array* array = node.as_array()) {
    for (const toml::node& child : *array) first = std::min(first, line_of(child));
  }
  return first == std::numeric_limits<std::size_t>::max() ? 1 : first;
}

// One value as text: a string as it is, a number or a boolean as TOML writes it.
std::expected<std::string, Error> value_text(const toml::node& node, std::string_view file) {
  if (const auto* text = node.as_string()) return text->get();
  if (const auto* integer = node.as_integer()) return fmt::format("{}", integer->get());
  if (const auto* real = node.as_floating_point()) return fmt::format("{}", real->get());
  if (const auto* boolean = node.as_boolean())
    return std::string(boolean->get() ? "true" : "false");
  if (node.is_array() || node.is_table()) {
    return error_at(file, line_of(node),
                    "expected one value (a string, a number or true/false), not an array or table");
  }
  return error_at(file, line_of(node),
                  "expected one value (a string, a number or true/false), not a date or time");
}

std::expected<ConfigTable, Error> table_of(std::string_view name, const toml::table& table,
                                           bool array_item, std::string_view file) {
  ConfigTable out{std::string(name), array_item, line_of(table), {}};
  for (const auto& [key, node] : table) {
    auto value = value_text(node, file);
    if (!value) return std::unexpected(std::move(value.error()));
    out.entries.push_back({std::string(key.str()), std::move(*value), line_of(node)});
  }
  std::ranges::sort(out.entries, {}, &ConfigEntry::line);
  return out;
}

bool is_array_of_tables(const toml::node& node) {
  const toml::array* array = node.as_array();
  return array != nullptr && !array->empty() &&
         std::ranges::all_of(*array, [](const toml::node& item) {
           return item.is_table() && !item.as_table()->is_inline();
         });
}

}  // namespace

std::expected<std::vector<ConfigTable>, Error> parse_config_tables(std::string_view text,
                                                                   std::string_view file) {
  const std::string toml_text = ini_comments_as_toml(text);
  if (const auto line = line_of_non_ascii(toml_text)) {
    return error_at(file, *line, "expected ASCII (config files are plain ASCII text)");
  }
  if (const auto line = header_without_a_name(toml_text)) {
    return error_at(file, *line, "expected a table name after \"[\", such as [daemon]");
  }
  if (const auto line = line_with_too_many_key_parts(toml_text)) {
    return error_at(
        file, *line,
        fmt::format("expected a key or table name of at most {} dotted parts", kMaxKeyParts));
  }
  toml::table root;
  try {
    root = toml::parse(toml_text, file);
  } catch (const toml::parse_error& error) {
    return error_at(file, std::max<std::size_t>(error.source().begin.line, 1), error.description());
  }
  std::vector<ConfigTable> tables(1);
  for (const auto& [key, node] : root) {
    if (const toml::table* table = node.as_table(); table != nullptr && !table->is_inline()) {
      auto read = table_of(key.str(), *table, false, file);
      if (!read) return std::unexpected(std::move(read.error()));
      tables.push_back(std::move(*read));
    } else if (is_array_of_tables(node)) {
      for (const toml::node& item : *node.as_array()) {
        auto read = table_of(key.str(), *item.as_table(), true, file);
        if (!read) return std::unexpected(std::move(read.error()));
        tables.push_back(std::move(*read));
      }
    } else {
      auto value = value_text(node, file);
      if (!value) return std::unexpected(std::move(value.error()));
      tables.front().entries.push_back({std::string(key.str()), std::move(*value), line_of(node)});
    }
  }
  std::ranges::sort(tables.front().entries, {}, &ConfigEntry::line);
  std::stable_sort(tables.begin() + 1, tables.end(),
                   [](const ConfigTable& a, const ConfigTable& b) { return a.line < b.line; });
  return tables;
}

std::expected<std::string, Error> read_config_text(const std::filesystem::path& file) {
  auto text = read_file_at_most(file, kMaxConfigBytes);
  if (!text && text.error().kind == BoundedReadError::Kind::too_large) {
    return std::unexpected(
        Error{ErrorCode::invalid_input,
              fmt::format("{}: larger than 1 MiB (expected a config file of at most 1 MiB)",
                          file.string())});
  }
  if (!text) {
    return std::unexpected(
        Error{ErrorCode::io, fmt::format("{}: cannot read: {}", file.string(),
                                         std::strerror(text.error().errno_value))});
  }
  return std::move(*text);
}

}  // namespace gpumeter::cli
