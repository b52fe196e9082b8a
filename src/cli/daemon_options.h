// The options of `gpumeter daemon`, from the command line and from a config file whose keys
// are the options' long names (docs/daemon.md), and the settings they resolve to.
#pragma once

#include <sys/types.h>

#include <CLI/CLI.hpp>
#include <array>
#include <chrono>
#include <cstddef>
#include <expected>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
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

// A CLI11 check of a duration (core/duration.h) of at least `at_least` (`--interval` of
// `daemon` and `run`), with a message that says what was expected.
CLI::Validator duration_validator(std::chrono::milliseconds at_least);

// Permission bits in octal, "0600" or "660"; absent for anything else or above 0777.
std::optional<mode_t> parse_socket_mode(std::string_view text);

// Validates and resolves the options. Errors: invalid_input for an interval below 100 ms,
// a horizon shorter than the interval, a bad mode, a bad --metrics-processes, no socket path.
std::expected<DaemonSettings, Error> resolve_daemon_options(const DaemonOptions& options,
                                                            const task::SocketEnvironment& env);

}  // namespace gpumeter::cli
