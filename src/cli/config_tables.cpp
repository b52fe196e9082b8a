#include "cli/config_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>

#include "core/text.h"

namespace gpumeter::cli {
namespace {

constexpr std::string_view kLineBlanks = " \t\r";

struct Line {
  std::string_view file;
  std::size_t number;
  std::string_view text;

  std::unexpected<Error> error(std::string_view what) const {
    return std::unexpected(
        Error{ErrorCode::invalid_input, fmt::format("{}:{}: {}", file, number, what)});
  }
};

bool is_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

bool is_key(std::string_view text) {
  return !text.empty() && std::ranges::all_of(text, is_key_char);
}

// A quoted string starting at text[0]; `rest` gets what follows the closing quote.
std::optional<std::string> quoted(std::string_view text, std::string_view& rest) {
  const char quote = text.front();
  std::string value;
  for (std::size_t i = 1; i < text.size(); ++i) {
    const char c = text[i];
    if (c == quote) {
      rest = text.substr(i + 1);
      return value;
    }
    if (quote == '"' && c == '\\' && i + 1 < text.size() &&
        (text[i + 1] == '"' || text[i + 1] == '\\')) {
      value += text[++i];
      continue;
    }
    value += c;
  }
  return std::nullopt;
}

std::expected<std::string, Error> parse_value(const Line& line, std::string_view text) {
  if (text.empty()) return line.error("expected a value after \"=\"");
  if (text.front() == '"' || text.front() == '\'') {
    std::string_view rest;
    auto value = quoted(text, rest);
    if (!value) return line.error("unterminated string (expected a closing quote)");
    rest = trim(rest, kLineBlanks);
    if (!rest.empty() && rest.front() != '#') {
      return line.error("expected nothing but a comment after the string");
    }
    return *value;
  }
  if (text.front() == '[' || text.front() == '{') {
    return line.error(
        "expected one value (a string, a number or true/false), not an array or table");
  }
  const std::string_view bare = trim(text.substr(0, text.find('#')), kLineBlanks);
  if (bare.find_first_of(" \t\"'") != std::string_view::npos) {
    return line.error("expected one value (quote a value that has spaces: \"...\")");
  }
  return std::string(bare);
}

std::expected<ConfigTable, Error> parse_header(const Line& line, std::string_view text) {
  const bool array = text.starts_with("[[");
  const std::string_view close = array ? "]]" : "]";
  const std::string_view open = text.substr(array ? 2 : 1);
  const auto end = open.find(close);
  const std::string_view after =
      end == std::string_view::npos ? "" : trim(open.substr(end + close.size()), kLineBlanks);
  if (end == std::string_view::npos || !is_key(trim(open.substr(0, end), kLineBlanks)) ||
      (!after.empty() && !after.starts_with('#'))) {
    return line.error("expected a table header such as [name] or [[name]]");
  }
  return ConfigTable{std::string(trim(open.substr(0, end), kLineBlanks)), array, line.number, {}};
}

std::expected<void, Error> parse_entry(const Line& line, std::string_view text,
                                       ConfigTable& table) {
  const auto equals = text.find('=');
  const std::string_view key = trim(text.substr(0, equals), kLineBlanks);
  if (equals == std::string_view::npos || !is_key(key)) {
    return line.error("expected key = value (a key of letters, digits, - and _)");
  }
  const auto previous = std::ranges::find(table.entries, key, &ConfigEntry::key);
  if (previous != table.entries.end()) {
    return line.error(fmt::format("\"{}\" is set twice (first on line {})", key, previous->line));
  }
  auto value = parse_value(line, trim(text.substr(equals + 1), kLineBlanks));
  if (!value) return std::unexpected(std::move(value.error()));
  table.entries.push_back({std::string(key), std::move(*value), line.number});
  return {};
}

}  // namespace

std::expected<std::vector<ConfigTable>, Error> parse_config_tables(std::string_view text,
                                                                   std::string_view file) {
  std::vector<ConfigTable> tables(1);
  std::size_t number = 0;
  while (!text.empty() || number == 0) {
    const auto newline = text.find('\n');
    const Line line{file, ++number, text.substr(0, newline)};
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    const std::string_view content = trim(line.text, kLineBlanks);
    if (content.empty() || content.starts_with('#') || content.starts_with(';')) continue;
    if (content.starts_with('[')) {
      auto table = parse_header(line, content);
      if (!table) return std::unexpected(std::move(table.error()));
      tables.push_back(std::move(*table));
    } else if (auto entry = parse_entry(line, content, tables.back()); !entry) {
      return std::unexpected(std::move(entry.error()));
    }
  }
  return tables;
}

std::expected<std::string, Error> read_config_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    return std::unexpected(Error{
        ErrorCode::io, fmt::format("{}: cannot read: {}", file.string(), std::strerror(errno))});
  }
  std::string text(kMaxConfigBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (in.bad()) {
    return std::unexpected(Error{ErrorCode::io, fmt::format("{}: cannot read", file.string())});
  }
  if (text.size() > kMaxConfigBytes) {
    return std::unexpected(
        Error{ErrorCode::invalid_input,
              fmt::format("{}: larger than 1 MiB (expected a config file of at most 1 MiB)",
                          file.string())});
  }
  return text;
}

}  // namespace gpumeter::cli
