// SPDX-License-Identifier: MIT
// A config file's keys given to a subcommand's options (`daemon --config`, and `record --once
// --config`, which reads the same file): the file's format is cli/config_tables.h's.
#pragma once

#include <CLI/CLI.hpp>
#include <array>
#include <cstddef>
#include <expected>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "core/error.h"

namespace gpumeter::cli {

// The keys of the daemon's options that only the daemon uses: `gpumeter record --once` reads
// the same config file and passes these as `ignored`.
inline constexpr std::array<std::string_view, 13> kDaemonOnlyKeys{
    "interval", "horizon", "socket", "socket-mode", "retain-tasks", "metrics-processes",
    // cli/http_options.h
    "listen", "no-http", "token-file", "insecure", "tls-cert", "tls-key", "quota"};

// Where the config file set each option it gave a value to, so that an error found later,
// across options ("--horizon: at least the interval"), can name the file and a line.
struct ConfigOrigins {
  std::filesystem::path file;
  std::map<std::string, std::size_t, std::less<>> lines;  // key -> line

  // `error` with "FILE:LINE: " before it when it is bad input that names (as --KEY) an option
  // the file set; else `error` as it is.
  Error locate(Error error) const;
};

// Reads the config file (cli/config_tables.h: TOML's `key = value` lines, or INI) and gives
// each key's value to the option of that name, unless the command line set it; a [daemon]
// section is the same as no section; keys in `ignored` are skipped. Errors: invalid_input
// "FILE: cannot read: ..." for an unreadable file; "FILE:LINE: ..." for a malformed line, an
// unknown key or table, a key set twice, an array or inline table, a value its option refuses, and
// "FILE: ..." for a file over 1 MiB.
std::expected<ConfigOrigins, Error> apply_config_file(
    CLI::App& command, const std::filesystem::path& file,
    std::span<const std::string_view> ignored = {});

}  // namespace gpumeter::cli
