// A small subset of TOML, read with line numbers so that every mistake can be named where it
// is: `key = value` lines, `[table]` and `[[array-of-tables]]` headers, `#` comments (`;` too, as
// INI files write them). Values are "double-quoted" strings (with \" and \\), 'literal' strings, or
// bare words (numbers, true/false, or an unquoted word, as the daemon's config also accepts).
#pragma once

#include <cstddef>
#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace gpumeter::cli {

struct ConfigEntry {
  std::string key;
  std::string value;  // without quotes, escapes resolved
  std::size_t line = 0;
};

struct ConfigTable {
  std::string name;         // "" for the keys before the first header
  bool array_item = false;  // [[name]] rather than [name]
  std::size_t line = 0;     // of the header; 0 for the top
  std::vector<ConfigEntry> entries;
};

// The largest config file read (a config is a few KiB; a bigger file is a mistake, and
// refusing it bounds what parsing it costs).
inline constexpr std::size_t kMaxConfigBytes = std::size_t{1} << 20U;

// The text of a config file. Errors: io "FILE: cannot read: ..." when it cannot be read;
// invalid_input "FILE: larger than 1 MiB ..." past kMaxConfigBytes.
std::expected<std::string, Error> read_config_text(const std::filesystem::path& file);

// The tables in order, the top one first (possibly empty); `file` names the text in messages.
// Errors: invalid_input "FILE:LINE: expected ..." for a malformed line, an unterminated
// string, a key set twice in one table.
std::expected<std::vector<ConfigTable>, Error> parse_config_tables(std::string_view text,
                                                                   std::string_view file);

}  // namespace gpumeter::cli
