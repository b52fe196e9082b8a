// SPDX-License-Identifier: MIT
// The config files (the daemon's, the master's) as tables of `key = value` entries, each with
// its line, so that every mistake can be named where it is. The text is TOML, read by toml++
// (Debian's libtomlplusplus-dev); lines that begin with `;` are comments too, as INI files
// write them. Of TOML, the files use `key = value` with one string, number or boolean,
// `[table]` and `[[array-of-tables]]`: an array or inline table as a value, a date, and a table
// inside a table (`[a.b]`) are refused with their line.
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

// The tables in order, the top one first (possibly empty), their entries in order; numbers and
// booleans as TOML writes them ("3", "0.5", "true"); `file` names the text in messages.
// Errors: invalid_input "FILE:LINE: ..." for what TOML refuses (toml++'s description: a
// malformed line, an unterminated string, a key set twice) and for what these files refuse.
std::expected<std::vector<ConfigTable>, Error> parse_config_tables(std::string_view text,
                                                                   std::string_view file);

}  // namespace gpumeter::cli
