#include "cli/daemon_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <fstream>
#include <limits>
#include <utility>

namespace gpumeter::cli {
namespace {

using std::chrono::milliseconds;

// The sampler's shortest interval.
constexpr milliseconds kMinInterval{100};

std::optional<std::int64_t> milliseconds_per_unit(std::string_view unit) {
  if (unit == "ms") return 1;
  if (unit.empty() || unit == "s") return 1'000;
  if (unit == "m") return 60'000;
  if (unit == "h") return 3'600'000;
  if (unit == "d") return 86'400'000;
  return std::nullopt;
}

CLI::Validator mode_validator() {
  return CLI::Validator(
      [](const std::string& text) {
        return parse_socket_mode(text)
                   ? std::string{}
                   : fmt::format("\"{}\" is not an octal mode such as 0600", text);
      },
      "MODE");
}

// The first line of `file` that sets `key`, for error messages; 0 when not found.
std::size_t line_of_key(const std::filesystem::path& file, std::string_view key) {
  std::ifstream in(file);
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const auto start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line.compare(start, key.size(), key) != 0) continue;
    const auto after = line.find_first_not_of(" \t", start + key.size());
    if (after != std::string::npos && (line[after] == '=' || line[after] == ':')) return number;
  }
  return 0;
}

Error config_error(const std::filesystem::path& file, std::size_t line, std::string_view what) {
  const std::string where = line == 0 ? file.string() : fmt::format("{}:{}", file.string(), line);
  return Error{ErrorCode::invalid_input, fmt::format("{}: {}", where, what)};
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

// Gives one config item to its option, unless the command line set the option.
std::expected<void, Error> apply_item(CLI::App& daemon, const std::filesystem::path& file,
                                      const CLI::ConfigItem& item) {
  const bool in_scope =
      item.parents.empty() || (item.parents.size() == 1 && item.parents[0] == "daemon");
  CLI::Option* option = in_scope ? daemon.get_option_no_throw("--" + item.name) : nullptr;
  const std::size_t line = line_of_key(file, item.name);
  if (option == nullptr || !option->get_configurable() || item.name == "config") {
    return std::unexpected(config_error(file, line,
                                        fmt::format("unknown key \"{}\" (expected one of {})",
                                                    item.fullname(), known_keys(daemon))));
  }
  if (option->count() > 0) return {};  // the command line wins
  try {
    option->add_result(item.inputs);
    option->run_callback();
  } catch (const CLI::Error& error) {
    return std::unexpected(config_error(file, line, error.what()));
  }
  return {};
}

}  // namespace

CLI::Validator duration_validator(milliseconds at_least) {
  return CLI::Validator(
      [at_least](const std::string& text) {
        const auto duration = parse_interval(text);
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

std::optional<milliseconds> parse_interval(std::string_view text) {
  std::int64_t count = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  const auto [rest, error] = std::from_chars(begin, end, count);
  if (error != std::errc{} || rest == begin || count < 0) return std::nullopt;
  const auto unit = milliseconds_per_unit({rest, end});
  if (!unit || count > std::numeric_limits<std::int64_t>::max() / *unit) return std::nullopt;
  return milliseconds(count * *unit);
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

std::expected<void, Error> apply_config_file(CLI::App& command, const std::filesystem::path& file,
                                             std::span<const std::string_view> ignored) {
  std::vector<CLI::ConfigItem> items;
  try {
    items = CLI::ConfigTOML().from_file(file.string());
  } catch (const CLI::Error& error) {
    return std::unexpected(config_error(file, 0, error.what()));
  }
  for (const CLI::ConfigItem& item : items) {
    if (item.name == "++" || item.name == "--") continue;  // section markers
    if (std::ranges::find(ignored, item.name) != ignored.end()) continue;
    if (auto applied = apply_item(command, file, item); !applied) return applied;
  }
  return {};
}

std::expected<DaemonSettings, Error> resolve_daemon_options(const DaemonOptions& options,
                                                            const task::SocketEnvironment& env) {
  const auto bad = [](std::string message) {
    return std::unexpected(Error{ErrorCode::invalid_input, std::move(message)});
  };
  DaemonSettings settings;
  const auto interval = parse_interval(options.interval);
  const auto horizon = parse_interval(options.horizon);
  const auto mode = parse_socket_mode(options.socket_mode);
  if (!interval || *interval < kMinInterval) return bad("--interval: at least 100ms");
  if (!horizon || *horizon < *interval) return bad("--horizon: at least the interval");
  if (!mode) return bad("--socket-mode: an octal mode such as 0600 or 0660");
  const auto metrics = net::parse_process_limit(options.metrics_processes);
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
