// SPDX-License-Identifier: MIT
#include "cli/config_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "cli/config_tables.h"

namespace gpumeter::cli {
namespace {

Error config_error(const std::filesystem::path& file, std::size_t line, std::string_view what) {
  return Error{ErrorCode::invalid_input, fmt::format("{}:{}: {}", file.string(), line, what)};
}

std::string known_keys(CLI::App& daemon) {
  std::string keys;
  for (const CLI::Option* option : daemon.get_options()) {
    if (!option->get_configurable() || option->get_lnames().empty()) continue;
    if (option->get_lnames().front() == "config" || option->get_lnames().front() == "help")
      continue;
    keys += (keys.empty() ? "" : ", ") + option->get_lnames().front();
  }
  return keys;
}

// Gives one config entry to its option, unless the command line set the option; true when
// the option took the file's value.
std::expected<bool, Error> apply_entry(CLI::App& daemon, const std::filesystem::path& file,
                                       const ConfigEntry& entry) {
  CLI::Option* option = daemon.get_option_no_throw("--" + entry.key);
  if (option == nullptr || !option->get_configurable() || entry.key == "config") {
    return std::unexpected(config_error(
        file, entry.line,
        fmt::format("unknown key \"{}\" (expected one of {})", entry.key, known_keys(daemon))));
  }
  if (option->count() > 0) return false;  // the command line wins
  try {
    option->add_result(entry.value);
    option->run_callback();
  } catch (const CLI::Error& error) {
    return std::unexpected(config_error(file, entry.line, error.what()));
  }
  return true;
}

// The keys a message names as options ("--horizon: ..."; "--retain-*" names every retain- key).
bool names_key(std::string_view message, std::string_view key) {
  for (auto at = message.find("--"); at != std::string_view::npos;
       at = message.find("--", at + 2)) {
    const std::string_view named = message.substr(at + 2);
    const auto end = named.find_first_not_of("abcdefghijklmnopqrstuvwxyz-*");
    const std::string_view word = named.substr(0, end);
    if (word == key || (word.ends_with('*') && key.starts_with(word.substr(0, word.size() - 1)))) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::expected<ConfigOrigins, Error> apply_config_file(CLI::App& command,
                                                      const std::filesystem::path& file,
                                                      std::span<const std::string_view> ignored) {
  auto text = read_config_text(file);
  // A config named on the command line that cannot be read is a usage error (status 2).
  if (!text) return std::unexpected(Error{ErrorCode::invalid_input, text.error().message});
  auto tables = parse_config_tables(*text, file.string());
  if (!tables) return std::unexpected(std::move(tables.error()));
  ConfigOrigins origins{file, {}};
  std::map<std::string, std::size_t, std::less<>> seen;  // key -> line, across the tables
  for (const ConfigTable& table : *tables) {
    if (!table.name.empty() && (table.name != "daemon" || table.array_item)) {
      return std::unexpected(config_error(
          file, table.line, fmt::format("unknown table \"{}\" (expected [daemon])", table.name)));
    }
    for (const ConfigEntry& entry : table.entries) {
      if (std::ranges::find(ignored, entry.key) != ignored.end()) continue;
      if (const auto [first, fresh] = seen.emplace(entry.key, entry.line); !fresh) {
        return std::unexpected(config_error(
            file, entry.line,
            fmt::format("\"{}\" is set twice (first on line {})", entry.key, first->second)));
      }
      const auto applied = apply_entry(command, file, entry);
      if (!applied) return std::unexpected(applied.error());
      if (*applied) origins.lines.emplace(entry.key, entry.line);
    }
  }
  return origins;
}

Error ConfigOrigins::locate(Error error) const {
  if (error.code != ErrorCode::invalid_input) return error;
  for (const auto& [key, line] : lines) {
    if (names_key(error.message, key)) {
      error.message = fmt::format("{}:{}: {}", file.string(), line, error.message);
      return error;
    }
  }
  return error;
}

}  // namespace gpumeter::cli
