// SPDX-License-Identifier: MIT
// `--metrics-processes top:N|users|none`: how many per-process series the Prometheus
// exposition carries (docs/metrics.md), an option of `daemon` (and its config file) and of
// `list --prometheus`.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace gpumeter::cli {

inline constexpr const char* kDefaultMetricsProcesses = "top:20";

// Registers the option on `command`, storing its text in `value`; CLI11 refuses a value that
// exposition::parse_process_limit refuses, with its message.
CLI::Option* add_metrics_processes_option(CLI::App& command, std::string& value);

}  // namespace gpumeter::cli
