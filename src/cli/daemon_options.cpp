// SPDX-License-Identifier: MIT
#include "cli/daemon_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <utility>

#include "cli/duration_option.h"

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

}  // namespace

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
