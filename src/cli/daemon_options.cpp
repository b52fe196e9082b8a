#include "cli/daemon_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <utility>

#include "cli/config_tables.h"

namespace gpumeter::cli {
namespace {

using std::chrono::milliseconds;

// The sampler's shortest interval.
constexpr milliseconds kMinInterval{100};

CLI::Validator mode_validator() {
  return CLI::Validator(
      [](const std::string& text) {
        return parse_socket_mode(text)
                   ? std::string{}
                   : fmt::format("\"{}\" is not an octal mode such as 0600", text);
      },
      "MODE");
}

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

CLI::Validator duration_validator(milliseconds at_least) {
  return CLI::Validator(
      [at_least](const std::string& text) {
        const auto duration = parse_duration(text);
        if (!duration) {
          return fmt::format("\"{}\" is not a duration such as 100ms, 1s, 10m or 1h", text);
        }
        if (*duration < at_least) {
          return fmt::format("\"{}\" is shorter than {}ms", text, at_least.count());
        }
        return std::string{};
      },
      "DURATION");
}

std::optional<mode_t> parse_socket_mode(std::string_view text) {
  unsigned value = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  const auto [rest, error] = std::from_chars(begin, end, value, 8);
  if (error != std::errc{} || rest != end || text.empty() || value > 0777U) return std::nullopt;
  return static_cast<mode_t>(value);
}

void add_daemon_options(CLI::App& daemon, DaemonOptions& options) {
  daemon
      .add_option("--interval", options.interval,
                  "Sample every DURATION: 100ms, 1s, ... (at least 100ms; default 1s)")
      ->option_text("DURATION")
      ->check(duration_validator(kMinInterval));
  daemon
      .add_option("--horizon", options.horizon,
                  "Keep samples for DURATION; tasks must end within it (default 1h)")
      ->option_text("DURATION")
      ->check(duration_validator(kMinInterval));
  daemon
      .add_option("--socket", options.socket,
                  "Task socket (default: $GPUMETER_SOCKET, else /run/gpumeter/gpumeter.sock "
                  "for root, $XDG_RUNTIME_DIR/gpumeter.sock for others)")
      ->option_text("PATH");
  daemon
      .add_option("--socket-mode", options.socket_mode,
                  "Permissions of the socket file: 0600, the owner only (default), or 0660, "
                  "its group too")
      ->option_text("MODE")
      ->check(mode_validator());
  daemon
      .add_option("--retain-tasks", options.retain_tasks,
                  "Keep the last N ended tasks, 1 to 1000000 (default 10000)")
      ->option_text("N")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000}));
  daemon
      .add_option("--config", options.config,
                  "Read options from FILE (TOML or INI; keys are the long option names)")
      ->option_text("FILE")
      ->configurable(false);
  add_metrics_processes_option(daemon, options.metrics_processes);
  add_history_options(daemon, options.history);
  add_http_options(daemon, options.http);
}

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

std::expected<DaemonSettings, Error> resolve_daemon_options(const DaemonOptions& options,
                                                            const task::SocketEnvironment& env) {
  const auto bad = [](std::string message) {
    return std::unexpected(Error{ErrorCode::invalid_input, std::move(message)});
  };
  DaemonSettings settings;
  const auto interval = parse_duration(options.interval);
  const auto horizon = parse_duration(options.horizon);
  const auto mode = parse_socket_mode(options.socket_mode);
  if (!interval || *interval < kMinInterval) return bad("--interval: at least 100ms");
  if (!horizon || *horizon < *interval) return bad("--horizon: at least the interval");
  if (!mode) return bad("--socket-mode: an octal mode such as 0600 or 0660");
  const auto metrics = exposition::parse_process_limit(options.metrics_processes);
  if (!metrics) return bad("--metrics-processes: " + metrics.error().message);
  settings.metrics_processes = *metrics;
  settings.interval = *interval;
  settings.horizon = *horizon;
  settings.socket_mode = *mode;
  settings.retain_tasks = options.retain_tasks;
  settings.default_socket = options.socket.empty();
  if (!settings.default_socket) {
    settings.socket = options.socket;
    return settings;
  }
  auto path = task::default_socket_path(env);
  if (!path) return std::unexpected(std::move(path.error()));
  settings.socket = std::move(*path);
  return settings;
}

}  // namespace gpumeter::cli
