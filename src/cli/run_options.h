// SPDX-License-Identifier: MIT
// The options of `gpumeter run` and the settings they resolve to (docs/run.md).
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/limit_options.h"
#include "core/error.h"
#include "host/cgroup_limits.h"

namespace gpumeter::cli {

// As typed; an empty limit was not asked for.
struct RunOptions {
  std::vector<std::string> command;
  std::string json;  // a file; empty: none
  std::string interval = "1s";
  LimitTexts limits;
  bool no_cgroup = false;
};

struct RunSettings {
  std::vector<std::string> command;
  std::filesystem::path json;  // empty: none
  std::chrono::milliseconds interval{1000};
  host::Limits limits;
  bool cgroup = true;  // make a cgroup when the kernel lets us (always, with limits)
};

// Registers the options on the `run` subcommand.
void add_run_options(CLI::App& run, RunOptions& options);

// Checks the limits against the machine: the CPUs online are read under `root`
// (sys/devices/system/cpu/online; "/" on a live system) when a CPU limit needs them
// (resolve_limits in cli/limit_options.h). Errors: invalid_input "--cpus: ..." naming the option
// and what was expected.
std::expected<RunSettings, Error> resolve_run_options(const RunOptions& options,
                                                      const std::filesystem::path& root);

}  // namespace gpumeter::cli
