// SPDX-License-Identifier: MIT
// The options of `gpumeter daemon`, from the command line and from a config file whose keys
// are the options' long names (docs/daemon.md), and the settings they resolve to.
#pragma once

#include <sys/types.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstddef>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "cli/history_options.h"
#include "cli/http_options.h"
#include "cli/metrics_option.h"
#include "core/duration.h"
#include "core/error.h"
#include "exposition/metrics.h"
#include "task/socket_path.h"

namespace gpumeter::cli {

struct DaemonOptions {
  std::string interval = "1s";
  std::string horizon = "1h";
  std::string socket;  // empty: the default path (task/socket_path.h)
  std::string socket_mode = "0600";
  std::size_t retain_tasks = 10'000;
  std::string config;  // a TOML or INI file; empty: none
  std::string metrics_processes = kDefaultMetricsProcesses;
  HistoryOptions history;
  HttpOptions http;
};

// What the options resolve to.
struct DaemonSettings {
  std::chrono::milliseconds interval{1000};
  std::chrono::milliseconds horizon{3'600'000};
  std::filesystem::path socket;
  bool default_socket = true;  // the path came from the defaults
  mode_t socket_mode = 0600;
  std::size_t retain_tasks = 10'000;
  exposition::ProcessLimit metrics_processes;  // the /metrics exposition's per-process series
};

// Registers the options on the `daemon` subcommand (the history and HTTP options too).
void add_daemon_options(CLI::App& daemon, DaemonOptions& options);

// Permission bits in octal, "0600" or "660"; absent for anything else or above 0777.
std::optional<mode_t> parse_socket_mode(std::string_view text);

// Validates and resolves the options. Errors: invalid_input for an interval below 100 ms,
// a horizon shorter than the interval, a bad mode, a bad --metrics-processes, no socket path.
std::expected<DaemonSettings, Error> resolve_daemon_options(const DaemonOptions& options,
                                                            const task::SocketEnvironment& env);

}  // namespace gpumeter::cli
